/*
 * lists.c — the builtins of module lists (its Erlang bodies for these are
 * stubs): reverse/2, keyfind/3, keysearch/3, keymember/3, member/2.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/atom.h"
#include "term/compare.h"
#include "term/heap.h"

/* reverse(List, Tail): List must be proper; Tail may be anything. */
static term bif_reverse_2(struct process *p, const term *a)
{
    int64_t n = bif_list_length(a[0]);
    if (n < 0)
        return bif_badarg(p);
    if (n == 0)
        return a[1];
    term *cells = heap_alloc(&p->heap, 2 * (size_t)n);
    if (!cells)
        return bif_out_of_memory(p);
    term acc = a[1], l = a[0];
    for (int64_t i = 0; i < n; i++, l = list_tail(l)) {
        cells[2 * i] = list_head(l);
        cells[2 * i + 1] = acc;
        acc = make_list(&cells[2 * i]);
    }
    return acc;
}

/* The first tuple of list whose element n equals key (==, so 1 finds 1.0);
 * THE_NON_VALUE with *bad set for a bad position or a list that turns out
 * improper before a match, NIL (never a tuple) when there is none. */
static term keyfind(term key, term pos, term list, bool *bad)
{
    *bad = !is_small(pos) || small_value(pos) < 1;
    if (*bad)
        return THE_NON_VALUE;
    uint64_t n = (uint64_t)small_value(pos);
    /* Exact comparison is enough unless key is a number. */
    bool numeric = is_number(key);
    for (; is_list(list); list = list_tail(list)) {
        term e = list_head(list);
        if (is_tuple(e) && tuple_arity(e) >= n) {
            term k = tuple_element(e, n);
            if (numeric ? term_eq(k, key) : term_eq_exact(k, key))
                return e;
        }
    }
    *bad = list != NIL;
    return NIL;
}

static term bif_keyfind(struct process *p, const term *a)
{
    bool bad;
    term e = keyfind(a[0], a[1], a[2], &bad);
    if (bad)
        return bif_badarg(p);
    return e == NIL ? A(false) : e;
}

static term bif_keymember(struct process *p, const term *a)
{
    bool bad;
    term e = keyfind(a[0], a[1], a[2], &bad);
    if (bad)
        return bif_badarg(p);
    return e == NIL ? A(false) : A(true);
}

static term bif_keysearch(struct process *p, const term *a)
{
    bool bad;
    term e = keyfind(a[0], a[1], a[2], &bad);
    if (bad)
        return bif_badarg(p);
    if (e == NIL)
        return A(false);
    term t = heap_tuple2(&p->heap, A(value), e);
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* member uses exact equality: member(1, [1.0]) is false. */
static term bif_member(struct process *p, const term *a)
{
    term l = a[1];
    for (; is_list(l); l = list_tail(l))
        if (term_eq_exact(list_head(l), a[0]))
            return A(true);
    return l == NIL ? A(false) : bif_badarg(p);
}

const struct bif_def bif_table_lists[] = {
    {"lists", "reverse", 2, bif_reverse_2, 0},
    {"lists", "keyfind", 3, bif_keyfind, BIF_NOHEAP},
    {"lists", "keymember", 3, bif_keymember, BIF_NOHEAP},
    {"lists", "keysearch", 3, bif_keysearch, 0},
    {"lists", "member", 2, bif_member, BIF_NOHEAP},
    {NULL, NULL, 0, NULL, 0},
};
