/*
 * lists.c — the builtins of module lists (its Erlang bodies for these are
 * stubs): reverse/2, keyfind/3, keysearch/3, keymember/3, member/2, each
 * in portions on long lists.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/atom.h"
#include "term/compare.h"
#include "term/heap.h"

/* Reductions. Each builtin here runs in portions (bif.h): it does at most
 * what the slice's remaining reductions pay for, then traps to itself with
 * the rest of its list, as OTP 25's do (so an error after a trap shows the
 * trapped arguments in the stack trace, as on OTP). */

/* OTP 25's CELLS_PER_RED of lists_reverse_alloc (erl_bif_lists.c). */
#define REVERSE_CELLS_PER_RED 40
/* OTP 25's lists_member_2: max_iter = 16 * ERTS_BIF_REDS_LEFT (erl_bif_lists.c). */
#define MEMBER_ELEMS_PER_RED 16
/* OTP 25's keyfind charges nothing below 10 * CONTEXT_REDS elements and
 * then ends the slice (BUMP_ALL_REDS): at most 10 elements a reduction.
 * clause charges that rate throughout, so a loop of short keyfinds yields
 * as often as its work asks and a long one covers what OTP's covers in a
 * slice. */
#define KEYFIND_ELEMS_PER_RED 10

/* reverse(List, Tail): List must be proper; Tail may be anything. A portion
 * first checks its cells are a list, then builds them onto Tail. */
static term bif_reverse_2(struct process *p, const term *a)
{
    term l = a[0];
    if (l == NIL)
        return a[1];
    if (!is_list(l))
        return bif_badarg(p);
    size_t limit = bif_portion(p, REVERSE_CELLS_PER_RED), n = 0;
    term rest = l;
    for (; n < limit && is_list(rest); n++)
        rest = list_tail(rest);
    bif_spend(p, n, REVERSE_CELLS_PER_RED);
    if (!is_list_or_nil(rest))
        return bif_badarg(p);
    term *cells = heap_alloc(&p->heap, 2 * n);
    if (!cells)
        return bif_out_of_memory(p);
    term acc = a[1];
    for (size_t i = 0; i < n; i++, l = list_tail(l)) {
        cells[2 * i] = list_head(l);
        cells[2 * i + 1] = acc;
        acc = make_list(&cells[2 * i]);
    }
    if (rest == NIL)
        return acc;
    term next[2] = {rest, acc};
    return bif_trap(p, bif_reverse_2, 2, next);
}

enum keyfind_outcome { KEYFIND_FOUND, KEYFIND_NONE, KEYFIND_BAD, KEYFIND_TRAP };

/* The first tuple of *list whose element pos equals key (==, so 1 finds
 * 1.0) in *found; KEYFIND_BAD for a bad position or a list that turns out
 * improper before a match; KEYFIND_TRAP with *list the rest when the
 * portion ran out. */
static enum keyfind_outcome keyfind(struct process *p, term key, term pos, term *list, term *found)
{
    if (!is_small(pos) || small_value(pos) < 1)
        return KEYFIND_BAD;
    uint64_t n = (uint64_t)small_value(pos);
    /* Exact comparison is enough unless key is a number; an immediate's is
     * the word's. */
    bool numeric = is_number(key), word = !numeric && is_immed(key);
    size_t limit = bif_portion(p, KEYFIND_ELEMS_PER_RED), i = 0;
    term l = *list;
    for (; is_list(l); l = list_tail(l), i++) {
        if (i == limit) {
            bif_spend(p, i, KEYFIND_ELEMS_PER_RED);
            *list = l;
            return KEYFIND_TRAP;
        }
        term e = list_head(l);
        if (is_tuple(e) && tuple_arity(e) >= n) {
            term k = tuple_element(e, n);
            if (word ? k == key : numeric ? term_eq(k, key) : term_eq_exact(k, key)) {
                bif_spend(p, i, KEYFIND_ELEMS_PER_RED);
                *found = e;
                return KEYFIND_FOUND;
            }
        }
    }
    bif_spend(p, i, KEYFIND_ELEMS_PER_RED);
    return l == NIL ? KEYFIND_NONE : KEYFIND_BAD;
}

/* Runs keyfind for `self` (keyfind, keymember or keysearch); NIL when
 * nothing matched, THE_NON_VALUE after badarg or a trap. */
static term keyfind_call(struct process *p, const term *a, bif_fn self)
{
    term list = a[2], found = NIL;
    switch (keyfind(p, a[0], a[1], &list, &found)) {
    case KEYFIND_FOUND:
        return found;
    case KEYFIND_NONE:
        return NIL;
    case KEYFIND_BAD:
        return bif_badarg(p);
    case KEYFIND_TRAP:
        break;
    }
    term next[3] = {a[0], a[1], list};
    return bif_trap(p, self, 3, next);
}

static term bif_keyfind(struct process *p, const term *a)
{
    term e = keyfind_call(p, a, bif_keyfind);
    return e == NIL ? A(false) : e;
}

static term bif_keymember(struct process *p, const term *a)
{
    term e = keyfind_call(p, a, bif_keymember);
    return e == NIL ? A(false) : is_value(e) ? A(true) : e;
}

static term bif_keysearch(struct process *p, const term *a)
{
    term e = keyfind_call(p, a, bif_keysearch);
    if (e == NIL)
        return A(false);
    if (is_non_value(e))
        return e;
    term t = heap_tuple2(&p->heap, A(value), e);
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* member uses exact equality: member(1, [1.0]) is false, so an immediate
 * (an atom, a small integer) equals only its own word, which the loop
 * compares without a call (OTP's EQ macro does the same). */
static term bif_member(struct process *p, const term *a)
{
    size_t limit = bif_portion(p, MEMBER_ELEMS_PER_RED), i = 0;
    term l = a[1], x = a[0];
    bool immed = is_immed(x);
    for (; is_list(l); l = list_tail(l), i++) {
        if (i == limit) {
            bif_spend(p, i, MEMBER_ELEMS_PER_RED);
            term next[2] = {x, l};
            return bif_trap(p, bif_member, 2, next);
        }
        term e = list_head(l);
        if (e == x || (!immed && term_eq_exact(e, x))) {
            bif_spend(p, i, MEMBER_ELEMS_PER_RED);
            return A(true);
        }
    }
    bif_spend(p, i, MEMBER_ELEMS_PER_RED);
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
