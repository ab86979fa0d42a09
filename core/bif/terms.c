/*
 * terms.c — type tests, tuples (insert_element, delete_element, is_record
 * as functions), lists (++ and --, also as append/2 and subtract/2),
 * references, node/0,1, and the text of pids and references (pid_to_list,
 * list_to_pid, ref_to_list).
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/heap.h"
#include "term/phash2.h"
#include "term/print.h"
#include "term/strbuf.h"

#include <stdio.h>
#include <stdlib.h>

static term boolean(bool b) { return b ? A(true) : A(false); }

/* ---- type tests ---- */

#define TYPE_TEST(name, test)                                                                                          \
    static term bif_##name(struct process *p, const term *a)                                                           \
    {                                                                                                                  \
        (void)p;                                                                                                       \
        return boolean(test(a[0]));                                                                                    \
    }

static bool is_boolean_term(term t) { return t == A(true) || t == A(false); }
static bool is_binary_term(term t) { return is_binary_whole(t); }
static bool is_list_term(term t) { return is_list_or_nil(t); }

TYPE_TEST(is_atom, is_atom)
TYPE_TEST(is_binary, is_binary_term)
TYPE_TEST(is_bitstring, is_bitstring)
TYPE_TEST(is_boolean, is_boolean_term)
TYPE_TEST(is_float, is_float)
TYPE_TEST(is_function, is_fun)
TYPE_TEST(is_integer, is_integer)
TYPE_TEST(is_list, is_list_term)
TYPE_TEST(is_map, is_map)
TYPE_TEST(is_number, is_number)
TYPE_TEST(is_pid, is_pid)
TYPE_TEST(is_port, is_port)
TYPE_TEST(is_reference, is_ref)
TYPE_TEST(is_tuple, is_tuple)

static unsigned fun_arity(term f)
{
    if (is_export(f))
        return (unsigned)small_value(boxed_ptr(f)[3]);
    return fun_entry_of(f)->arity;
}

/* The arity must be a non-negative integer even when f is no fun. */
static term bif_is_function_2(struct process *p, const term *a)
{
    term arity = a[1];
    if (is_small(arity) ? small_value(arity) < 0 : !(is_bignum(arity) && !big_is_negative(arity)))
        return bif_badarg(p);
    if (!is_fun(a[0]) || !is_small(arity))
        return A(false);
    return boolean((int64_t)fun_arity(a[0]) == small_value(arity));
}

/* ---- tuples ---- */

/* A 1-based position within 1..limit, or 0. */
static uint64_t position(term t, uint64_t limit)
{
    if (!is_small(t) || small_value(t) < 1 || (uint64_t)small_value(t) > limit)
        return 0;
    return (uint64_t)small_value(t);
}

static term bif_element(struct process *p, const term *a)
{
    if (!is_tuple(a[1]))
        return bif_badarg(p);
    uint64_t i = position(a[0], tuple_arity(a[1]));
    return i ? tuple_element(a[1], i) : bif_badarg(p);
}

static term bif_setelement(struct process *p, const term *a)
{
    if (!is_tuple(a[1]))
        return bif_badarg(p);
    uint64_t n = tuple_arity(a[1]), i = position(a[0], n);
    if (!i)
        return bif_badarg(p);
    term t = heap_tuple(&p->heap, n, tuple_elements(a[1]));
    if (is_non_value(t))
        return bif_out_of_memory(p);
    tuple_elements(t)[i - 1] = a[2];
    return t;
}

static term bif_tuple_size(struct process *p, const term *a)
{
    return is_tuple(a[0]) ? make_small((int64_t)tuple_arity(a[0])) : bif_badarg(p);
}

static term bif_size(struct process *p, const term *a)
{
    if (is_tuple(a[0]))
        return make_small((int64_t)tuple_arity(a[0]));
    if (is_bitstring(a[0]))
        return make_small((int64_t)bin_size(a[0]));
    return bif_badarg(p);
}

/* A tuple of count copies of fill; false leaves *out unset for a count
 * that is not an arity, THE_NON_VALUE after a heap failure. */
static bool make_tuple(struct process *p, term count, term fill, term *out)
{
    if (!is_small(count) || small_value(count) < 0 || (uint64_t)small_value(count) > MAX_ARITY)
        return false;
    size_t n = (size_t)small_value(count);
    term t = heap_tuple(&p->heap, n, NULL);
    if (is_non_value(t)) {
        *out = bif_out_of_memory(p);
        return true;
    }
    for (size_t i = 0; i < n; i++)
        tuple_elements(t)[i] = fill;
    *out = t;
    return true;
}

static term bif_make_tuple_2(struct process *p, const term *a)
{
    term t;
    return make_tuple(p, a[0], a[1], &t) ? t : bif_badarg(p);
}

/* make_tuple(N, Default, [{Pos, Value}]): later entries win. */
static term bif_make_tuple_3(struct process *p, const term *a)
{
    term t;
    if (!make_tuple(p, a[0], a[1], &t))
        return bif_badarg(p);
    if (is_non_value(t))
        return t;
    uint64_t n = tuple_arity(t);
    term l = a[2];
    for (; is_list(l); l = list_tail(l)) {
        term e = list_head(l);
        uint64_t i;
        if (!is_tuple(e) || tuple_arity(e) != 2 || !(i = position(tuple_element(e, 1), n)))
            return bif_badarg(p);
        tuple_elements(t)[i - 1] = tuple_element(e, 2);
    }
    return l == NIL ? t : bif_badarg(p);
}

static term bif_append_element(struct process *p, const term *a)
{
    if (!is_tuple(a[0]) || tuple_arity(a[0]) >= MAX_ARITY)
        return bif_badarg(p);
    uint64_t n = tuple_arity(a[0]);
    term t = heap_tuple(&p->heap, n + 1, NULL);
    if (is_non_value(t))
        return bif_out_of_memory(p);
    memcpy(tuple_elements(t), tuple_elements(a[0]), n * sizeof(term));
    tuple_elements(t)[n] = a[1];
    return t;
}

/* insert_element(Index, Tuple, Term): Index from 1 to the arity + 1. */
static term bif_insert_element(struct process *p, const term *a)
{
    if (!is_tuple(a[1]) || tuple_arity(a[1]) >= MAX_ARITY)
        return bif_badarg(p);
    uint64_t n = tuple_arity(a[1]), i = position(a[0], n + 1);
    if (!i)
        return bif_badarg(p);
    term t = heap_tuple(&p->heap, n + 1, NULL);
    if (is_non_value(t))
        return bif_out_of_memory(p);
    term *to = tuple_elements(t);
    const term *from = tuple_elements(a[1]);
    memcpy(to, from, (i - 1) * sizeof(term));
    to[i - 1] = a[2];
    memcpy(to + i, from + i - 1, (n - (i - 1)) * sizeof(term));
    return t;
}

static term bif_delete_element(struct process *p, const term *a)
{
    if (!is_tuple(a[1]))
        return bif_badarg(p);
    uint64_t n = tuple_arity(a[1]), i = position(a[0], n);
    if (!i)
        return bif_badarg(p);
    term t = heap_tuple(&p->heap, n - 1, NULL);
    if (is_non_value(t))
        return bif_out_of_memory(p);
    term *to = tuple_elements(t);
    const term *from = tuple_elements(a[1]);
    memcpy(to, from, (i - 1) * sizeof(term));
    memcpy(to + i - 1, from + i, (n - i) * sizeof(term));
    return t;
}

/* is_record(Term, Tag) and is_record(Term, Tag, Size): a tuple whose first
 * element is Tag (an atom), of arity Size (an integer) when given. */
static term bif_is_record_2(struct process *p, const term *a)
{
    if (!is_atom(a[1]))
        return bif_badarg(p);
    return boolean(is_tuple(a[0]) && tuple_arity(a[0]) >= 1 && tuple_element(a[0], 1) == a[1]);
}

static term bif_is_record_3(struct process *p, const term *a)
{
    if (!is_atom(a[1]) || !is_small(a[2]))
        return bif_badarg(p);
    int64_t size = small_value(a[2]);
    return boolean(is_tuple(a[0]) && size >= 1 && tuple_arity(a[0]) == (uint64_t)size &&
                   tuple_element(a[0], 1) == a[1]);
}

/* Reductions. tuple_to_list and list_to_tuple run in portions (bif.h);
 * OTP 25 charges them nothing and runs them to the end, so the constants
 * are clause's own: an element a cell, as lists:reverse's 40 cells a
 * reduction, and list_to_tuple's count of the list at length/1's 16. The
 * continuations take the original argument first, so an error after a
 * trap shows it. */
#define TUPLE_TO_LIST_ELEMS_PER_RED 40
#define LIST_TO_TUPLE_COUNT_PER_RED 16
#define LIST_TO_TUPLE_FILL_PER_RED 40

/* Elements [0, remaining) of the tuple in front of acc, the last ones
 * first; traps with (Tuple, Acc, Remaining). */
static term tuple_to_list_cont(struct process *p, const term *a)
{
    term t = a[0], acc = a[1];
    size_t remaining = (size_t)small_value(a[2]), n = bif_portion(p, TUPLE_TO_LIST_ELEMS_PER_RED);
    if (n > remaining)
        n = remaining;
    bif_spend(p, n, TUPLE_TO_LIST_ELEMS_PER_RED);
    if (n > 0) {
        term *cells = heap_alloc(&p->heap, 2 * n);
        if (!cells)
            return bif_out_of_memory(p);
        const term *from = tuple_elements(t) + remaining - n;
        for (size_t i = 0; i < n; i++) {
            cells[2 * i] = from[i];
            cells[2 * i + 1] = i + 1 < n ? make_list(&cells[2 * i + 2]) : acc;
        }
        acc = make_list(cells);
        remaining -= n;
    }
    if (remaining == 0)
        return acc;
    term next[3] = {t, acc, make_small((int64_t)remaining)};
    return bif_trap(p, tuple_to_list_cont, 3, next);
}

static term bif_tuple_to_list(struct process *p, const term *a)
{
    if (!is_tuple(a[0]))
        return bif_badarg(p);
    term st[3] = {a[0], NIL, make_small((int64_t)tuple_arity(a[0]))};
    return tuple_to_list_cont(p, st);
}

/* list_to_tuple from state (List, Rest, Count or Tuple, Filled): first
 * Rest walks List to count it, then the tuple (its elements [] until
 * filled, a well-formed term between portions) is filled from Rest. */
static term list_to_tuple_cont(struct process *p, const term *a)
{
    term rest = a[1], t = a[2];
    for (;;) {
        size_t i = 0, limit;
        if (is_small(t)) {
            limit = bif_portion(p, LIST_TO_TUPLE_COUNT_PER_RED);
            for (; i < limit && is_list(rest); i++)
                rest = list_tail(rest);
            bif_spend(p, i, LIST_TO_TUPLE_COUNT_PER_RED);
            if (!is_list_or_nil(rest))
                return bif_badarg(p);
            int64_t n = small_value(t) + (int64_t)i;
            if (rest != NIL) {
                term next[4] = {a[0], rest, make_small(n), make_small(0)};
                return bif_trap(p, list_to_tuple_cont, 4, next);
            }
            if ((uint64_t)n > MAX_ARITY)
                return bif_badarg(p);
            t = heap_tuple(&p->heap, (size_t)n, NULL);
            if (is_non_value(t))
                return bif_out_of_memory(p);
            rest = a[0];
            if (n == 0)
                return t;
            if (p->bif_may_trap && p->reds_left <= 0) {
                term next[4] = {a[0], rest, t, make_small(0)};
                return bif_trap(p, list_to_tuple_cont, 4, next);
            }
            continue;
        }
        size_t filled = (size_t)small_value(a[3]);
        if (is_small(a[2]))
            filled = 0; /* the tuple was made in this call */
        term *to = tuple_elements(t);
        limit = bif_portion(p, LIST_TO_TUPLE_FILL_PER_RED);
        for (; i < limit && is_list(rest); i++, rest = list_tail(rest))
            heap_write(&p->heap, &to[filled + i], list_head(rest)); /* t may be old by now */
        bif_spend(p, i, LIST_TO_TUPLE_FILL_PER_RED);
        if (rest == NIL)
            return t;
        term next[4] = {a[0], rest, t, make_small((int64_t)(filled + i))};
        return bif_trap(p, list_to_tuple_cont, 4, next);
    }
}

static term bif_list_to_tuple(struct process *p, const term *a)
{
    term st[4] = {a[0], a[0], make_small(0), make_small(0)};
    return list_to_tuple_cont(p, st);
}

/* ---- lists ---- */

static term bif_hd(struct process *p, const term *a) { return is_list(a[0]) ? list_head(a[0]) : bif_badarg(p); }
static term bif_tl(struct process *p, const term *a) { return is_list(a[0]) ? list_tail(a[0]) : bif_badarg(p); }

/* Reductions. length, ++ and -- run in portions (bif.h). Their
 * continuations take the original arguments first, so an error after a
 * trap shows them, as OTP 25's do. */

/* OTP 25's erts_trapping_length_1: max_iter = ERTS_BIF_REDS_LEFT * 16
 * (erl_bif_guard.c). */
#define LENGTH_CELLS_PER_RED 16
/* OTP 25's CELLS_PER_RED of lists_append_alloc (erl_bif_lists.c). */
#define APPEND_CELLS_PER_RED 40
/* OTP 25's subtract (erl_bif_lists.c): ELEMENTS_PER_RED of
 * subtract_get_length, CHECKS_PER_RED of the linear scans, and of the
 * multiset's stages INSERTIONS_PER_RED (building it from the right-hand
 * list) and CHECKS_PER_RED (sweeping the left-hand one). */
#define SUBTRACT_LENGTH_PER_RED 32
#define SUBTRACT_CHECKS_PER_RED 16
#define SUBTRACT_INSERTS_PER_RED 16
#define SUBTRACT_SWEEP_PER_RED 8
#define SUBTRACT_REVERSE_PER_RED APPEND_CELLS_PER_RED

/* Counts on from count cells at l; traps with (Original, Rest, Count). */
static term length_cont(struct process *p, const term *a);
static term length_walk(struct process *p, term original, term l, int64_t count)
{
    size_t limit = bif_portion(p, LENGTH_CELLS_PER_RED), i = 0;
    for (; is_list(l); l = list_tail(l), i++) {
        if (i == limit) {
            bif_spend(p, i, LENGTH_CELLS_PER_RED);
            term next[3] = {original, l, make_small(count + (int64_t)i)};
            return bif_trap(p, length_cont, 3, next);
        }
    }
    bif_spend(p, i, LENGTH_CELLS_PER_RED);
    return l == NIL ? make_small(count + (int64_t)i) : bif_badarg(p);
}

static term length_cont(struct process *p, const term *a) { return length_walk(p, a[0], a[1], small_value(a[2])); }

static term bif_length(struct process *p, const term *a) { return length_walk(p, a[0], a[0], 0); }

/* A copy of the proper list l's n cells ending in tail, in one block. */
static term copy_list(struct process *p, term l, size_t n, term tail)
{
    if (n == 0)
        return tail;
    term *cells = heap_alloc(&p->heap, 2 * n);
    if (!cells)
        return bif_out_of_memory(p);
    for (size_t i = 0; i < n; i++, l = list_tail(l)) {
        cells[2 * i] = list_head(l);
        cells[2 * i + 1] = i + 1 < n ? make_list(&cells[2 * i + 2]) : tail;
    }
    return make_list(cells);
}

/* Lhs ++ Rhs from iter on: result is the copy so far (NIL: none yet) and
 * last its last cell, whose tail the next portion sets; the copy is a
 * proper list (ending in []) between portions, so a collection sees a
 * well-formed term, and the copying collector keeps last inside it.
 * Traps with (Lhs, Rhs, Iter, Result, Last). */
static term append_cont(struct process *p, const term *a);
static term append_portion(struct process *p, term lhs, term rhs, term iter, term result, term last)
{
    size_t limit = bif_portion(p, APPEND_CELLS_PER_RED), n = 0;
    term rest = iter;
    for (; n < limit && is_list(rest); n++)
        rest = list_tail(rest);
    bif_spend(p, n, APPEND_CELLS_PER_RED);
    if (!is_list_or_nil(rest))
        return bif_badarg(p);
    if (rest == NIL && result == NIL)
        return copy_list(p, iter, n, rhs);
    term copy = copy_list(p, iter, n, rest == NIL ? rhs : NIL);
    if (is_non_value(copy))
        return copy;
    if (result == NIL)
        result = copy;
    else
        heap_write(&p->heap, &list_ptr(last)[1], copy); /* last may be old by now */
    if (rest == NIL)
        return result;
    last = make_list(list_ptr(copy) + 2 * (n - 1));
    term next[5] = {lhs, rhs, rest, result, last};
    return bif_trap(p, append_cont, 5, next);
}

static term append_cont(struct process *p, const term *a) { return append_portion(p, a[0], a[1], a[2], a[3], a[4]); }

static term bif_append(struct process *p, const term *a)
{
    if (a[0] == NIL)
        return a[1];
    if (!is_list(a[0]))
        return bif_badarg(p);
    return append_portion(p, a[0], a[1], a[0], NIL, NIL);
}

/* The length of l if it is proper and at most limit cells; -1 improper,
 * -2 longer. */
static int64_t length_upto(term l, size_t limit)
{
    size_t n = 0;
    for (; is_list(l); l = list_tail(l))
        if (n++ == limit)
            return -2;
    return l == NIL ? (int64_t)n : -1;
}

/* A -- B on short lists: each element of B removes the first element of A
 * exactly equal (=:=) to it. */
static term subtract_linear(struct process *p, term a, size_t n, term b)
{
    term *left = malloc(n * sizeof(term));
    if (!left)
        return bif_out_of_memory(p);
    term l = a;
    for (size_t i = 0; i < n; i++, l = list_tail(l))
        left[i] = list_head(l);
    /* Removed slots become THE_NON_VALUE, which no term equals. */
    size_t kept = n;
    for (term r = b; is_list(r) && kept > 0; r = list_tail(r)) {
        for (size_t i = 0; i < n; i++) {
            if (is_value(left[i]) && term_eq_exact(left[i], list_head(r))) {
                left[i] = THE_NON_VALUE;
                kept--;
                break;
            }
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (is_value(left[i]))
            left[k++] = left[i];
    term result = bif_make_list(p, left, k);
    free(left);
    return is_value(result) ? result : bif_out_of_memory(p);
}

/* OTP 25's SUBTRACT_LHS_THRESHOLD and SUBTRACT_RHS_THRESHOLD: up to this
 * many elements, a side is scanned linearly instead of put in a set. */
#define SUBTRACT_LINEAR_MAX 16

/* A copy of the short list l without its first element exactly equal to e;
 * l itself when there is none (*found false). */
static term list_delete_first(struct process *p, term l, term e, bool *found)
{
    term head[SUBTRACT_LINEAR_MAX];
    size_t n = 0;
    term rest = l;
    for (; is_list(rest) && !term_eq_exact(list_head(rest), e); rest = list_tail(rest))
        head[n++] = list_head(rest);
    *found = is_list(rest);
    if (!*found)
        return l;
    term out = list_tail(rest);
    while (n > 0 && is_value(out))
        out = heap_cons(&p->heap, head[--n], out);
    return out;
}

/* A -- B on long lists, in stages that each run in portions; the state is
 * (A, B, Stage, Iter, Set, Acc), all terms:
 *   LEN_A   Iter walks A to check it is proper, Acc counts it;
 *   NAIVE_A (A has at most SUBTRACT_LINEAR_MAX elements) Iter walks B,
 *           each element taking its first equal out of Set (A's remaining
 *           elements, in order), which is the result;
 *   LEN_B   Iter walks B to check it is proper, Acc counts it;
 *   SET     Iter walks B, counting its elements in Set (a multiset, below);
 *           a short B is its own Set instead, a list scanned linearly;
 *   SWEEP   Iter walks A: an element Set still holds is dropped (and taken
 *           out of Set), any other is pushed on Acc; once Set is empty the
 *           rest of A is kept as it is;
 *   REVERSE Iter (the kept elements, reversed) goes back onto Acc (the
 *           rest of A) and the result is complete. */
enum { SUB_LEN_A, SUB_NAIVE_A, SUB_LEN_B, SUB_SET, SUB_SWEEP, SUB_REVERSE };

/* The multiset of a long B: a tuple {Left, K1, N1, K2, N2, ...}, a hash
 * table (term_hash, which respects =:=, open addressing, linear probing) at
 * most two thirds full, that this builtin alone holds and so updates in
 * place between portions (the collector copies it as any tuple). Left counts
 * the elements still to remove; a slot whose N is [] is free; an element
 * whose count falls to 0 keeps its slot, so probes go on past it. OTP 25
 * keeps a red-black tree there; a persistent map cost a path copy an
 * element (300,000 - 150,000 evens: 2.2 s against OTP's 0.16 s). */
static term multiset_new(heap_t *h, size_t elements)
{
    size_t slots = 16;
    while (slots < elements + elements / 2)
        slots *= 2;
    term set = heap_tuple(h, 1 + 2 * slots, NULL);
    if (is_value(set))
        tuple_elements(set)[0] = make_small(0);
    return set;
}

/* The slot of e: its key and count words, e's own or the free one where it
 * would go. */
static term *multiset_slot(term set, term e)
{
    term *el = tuple_elements(set);
    size_t mask = (tuple_arity(set) - 1) / 2 - 1;
    for (size_t i = (size_t)term_hash(e) & mask;; i = (i + 1) & mask) {
        term *slot = el + 1 + 2 * i;
        if (slot[1] == NIL || term_eq_exact(slot[0], e))
            return slot;
    }
}

static void multiset_add(term set, term e)
{
    term *slot = multiset_slot(set, e), *left = tuple_elements(set);
    slot[0] = e;
    slot[1] = make_small(slot[1] == NIL ? 1 : small_value(slot[1]) + 1);
    *left = make_small(small_value(*left) + 1);
}

/* Takes one e out of set; false when it holds none. */
static bool multiset_take(term set, term e)
{
    term *slot = multiset_slot(set, e), *left = tuple_elements(set);
    if (slot[1] == NIL || slot[1] == make_small(0))
        return false;
    slot[1] = make_small(small_value(slot[1]) - 1);
    *left = make_small(small_value(*left) - 1);
    return true;
}

static bool multiset_empty(term set) { return tuple_elements(set)[0] == make_small(0); }

static term subtract_cont(struct process *p, const term *a)
{
    term st[6];
    for (int i = 0; i < 6; i++)
        st[i] = a[i];
    heap_t *h = &p->heap;
    for (;;) {
        int stage = (int)small_value(st[2]);
        term it = st[3];
        size_t i = 0, limit;
        bool found;
        switch (stage) {
        case SUB_LEN_A:
        case SUB_LEN_B:
            limit = bif_portion(p, SUBTRACT_LENGTH_PER_RED);
            for (; i < limit && is_list(it); i++)
                it = list_tail(it);
            bif_spend(p, i, SUBTRACT_LENGTH_PER_RED);
            if (!is_list_or_nil(it))
                return bif_badarg(p);
            st[5] = make_small(small_value(st[5]) + (int64_t)i);
            if (it != NIL)
                break;
            if (stage == SUB_LEN_A && small_value(st[5]) <= SUBTRACT_LINEAR_MAX) {
                st[2] = make_small(SUB_NAIVE_A);
                it = st[1];
                st[4] = st[0];
            } else if (stage == SUB_LEN_A) {
                st[2] = make_small(SUB_LEN_B);
                it = st[1];
                st[5] = make_small(0);
            } else {
                st[2] = make_small(SUB_SET);
                it = st[1];
                st[4] = small_value(st[5]) <= SUBTRACT_LINEAR_MAX ? st[1] : multiset_new(h, (size_t)small_value(st[5]));
                if (is_non_value(st[4]))
                    return bif_out_of_memory(p);
            }
            break;
        case SUB_NAIVE_A:
            limit = bif_portion(p, SUBTRACT_CHECKS_PER_RED / SUBTRACT_LINEAR_MAX);
            /* B is walked to its end even once Set is empty: an improper B
             * is badarg whatever A holds, as on OTP. */
            for (; i < limit && is_list(it); i++, it = list_tail(it))
                if (st[4] != NIL && is_non_value(st[4] = list_delete_first(p, st[4], list_head(it), &found)))
                    return bif_out_of_memory(p);
            bif_spend(p, i, SUBTRACT_CHECKS_PER_RED / SUBTRACT_LINEAR_MAX);
            if (!is_list_or_nil(it))
                return bif_badarg(p);
            if (it == NIL)
                return st[4];
            break;
        case SUB_SET:
            limit = bif_portion(p, SUBTRACT_INSERTS_PER_RED);
            if (is_list(st[4])) { /* a short B: its own set */
                it = NIL;
            }
            for (; i < limit && is_list(it); i++, it = list_tail(it))
                multiset_add(st[4], list_head(it));
            bif_spend(p, i, SUBTRACT_INSERTS_PER_RED);
            if (it == NIL) {
                st[2] = make_small(SUB_SWEEP);
                it = st[0];
                st[5] = NIL;
            }
            break;
        case SUB_SWEEP:
            limit = bif_portion(p, SUBTRACT_SWEEP_PER_RED);
            for (; i < limit && is_list(it) && st[4] != NIL && (is_list(st[4]) || !multiset_empty(st[4]));
                 i++, it = list_tail(it)) {
                term e = list_head(it);
                if (is_list(st[4]))
                    st[4] = list_delete_first(p, st[4], e, &found);
                else
                    found = multiset_take(st[4], e);
                if (!found)
                    st[5] = heap_cons(h, e, st[5]);
                if (is_non_value(st[4]) || is_non_value(st[5]))
                    return bif_out_of_memory(p);
            }
            bif_spend(p, i, SUBTRACT_SWEEP_PER_RED);
            if (it == NIL || st[4] == NIL || (!is_list(st[4]) && multiset_empty(st[4]))) {
                st[2] = make_small(SUB_REVERSE);
                term kept = st[5];
                st[5] = it; /* the rest of A, kept as it is */
                it = kept;
                st[4] = NIL;
            }
            break;
        default: /* SUB_REVERSE */
            limit = bif_portion(p, SUBTRACT_REVERSE_PER_RED);
            for (; i < limit && is_list(it); i++, it = list_tail(it)) {
                st[5] = heap_cons(h, list_head(it), st[5]);
                if (is_non_value(st[5]))
                    return bif_out_of_memory(p);
            }
            bif_spend(p, i, SUBTRACT_REVERSE_PER_RED);
            if (it == NIL)
                return st[5];
            break;
        }
        st[3] = it;
        /* A stage that used up the portion traps; one that finished early
         * goes on to the next in this call. */
        if (i >= limit)
            return bif_trap(p, subtract_cont, 6, st);
    }
}

static term bif_subtract(struct process *p, const term *a)
{
    if (!is_list_or_nil(a[0]) || !is_list_or_nil(a[1]))
        return bif_badarg(p);
    size_t limit = bif_portion(p, SUBTRACT_CHECKS_PER_RED);
    int64_t n = length_upto(a[0], limit), m = length_upto(a[1], limit);
    if (n == -1 || m == -1)
        return bif_badarg(p);
    if (n >= 0 && m >= 0) {
        bif_spend(p, (size_t)(n + m), SUBTRACT_LENGTH_PER_RED);
        if (n == 0 || m == 0)
            return a[0];
        if ((uint64_t)n * (uint64_t)m <= limit) {
            bif_spend(p, (size_t)n * (size_t)m, SUBTRACT_CHECKS_PER_RED);
            return subtract_linear(p, a[0], (size_t)n, a[1]);
        }
    }
    term st[6] = {a[0], a[1], make_small(SUB_LEN_A), a[0], NIL, make_small(0)};
    return subtract_cont(p, st);
}

/* ---- references and node ---- */

static term bif_make_ref(struct process *p, const term *a)
{
    (void)a;
    term r = heap_make_ref(&p->heap);
    return is_value(r) ? r : bif_out_of_memory(p);
}

static term bif_node(struct process *p, const term *a)
{
    (void)p;
    (void)a;
    return A(nonode_at_nohost);
}

/* phash2 in portions (phash2.h): OTP 25's 64 work units a reduction. Its
 * continuation takes the original arguments first, then (Saved, Hash, Xor):
 * the walk's saved stack (a list on the heap) and its two running hashes. */
static term phash2_run(struct process *p, const term *a, unsigned argc, bif_fn cont)
{
    const term *state = a + argc;
    struct phash2_run run = {THE_NON_VALUE, state[0], (uint32_t)small_value(state[1]), (uint32_t)small_value(state[2])};
    if (state[0] == THE_NON_VALUE) { /* the first portion */
        run.first = a[0];
        run.saved = NIL;
    }
    size_t units, limit = bif_portion(p, PHASH2_UNITS_PER_RED);
    enum phash2_status status = phash2_portion(&p->heap, &run, limit, &units);
    bif_spend(p, units, PHASH2_UNITS_PER_RED);
    if (status == PHASH2_NOMEM)
        return bif_out_of_memory(p);
    if (status == PHASH2_MORE) {
        term next[PROC_TRAP_MAX_ARGS];
        for (unsigned i = 0; i < argc; i++)
            next[i] = a[i];
        next[argc] = run.saved;
        next[argc + 1] = make_small(run.hash);
        next[argc + 2] = make_small(run.xor_pairs);
        return bif_trap(p, cont, argc + 3, next);
    }
    if (argc == 1)
        return make_small(run.hash & ((UINT32_C(1) << 27) - 1));
    return make_small((int64_t)(run.hash % (uint64_t)small_value(a[1])));
}

static term phash2_1_cont(struct process *p, const term *a) { return phash2_run(p, a, 1, phash2_1_cont); }
static term phash2_2_cont(struct process *p, const term *a) { return phash2_run(p, a, 2, phash2_2_cont); }

static term bif_phash2_1(struct process *p, const term *a)
{
    term st[4] = {a[0], THE_NON_VALUE, make_small(0), make_small(0)};
    return phash2_run(p, st, 1, phash2_1_cont);
}

/* phash2(Term, Range): Range from 1 to 2^32. */
static term bif_phash2_2(struct process *p, const term *a)
{
    if (!is_small(a[1]) || small_value(a[1]) < 1 || small_value(a[1]) > (INT64_C(1) << 32))
        return bif_badarg(p);
    term st[5] = {a[0], a[1], THE_NON_VALUE, make_small(0), make_small(0)};
    return phash2_run(p, st, 2, phash2_2_cont);
}

/* node/1: every pid, port and reference here is local. */
static term bif_node_1(struct process *p, const term *a)
{
    if (!is_pid(a[0]) && !is_port(a[0]) && !is_ref(a[0]))
        return bif_badarg(p);
    return A(nonode_at_nohost);
}

/* pid_to_list/1 and ref_to_list/1: the text ~w shows. */
static term term_text(struct process *p, term t)
{
    struct strbuf text = STRBUF_INIT;
    print_w(&text, t, -1);
    term list = heap_string(&p->heap, strbuf_cstr(&text), text.len);
    strbuf_free(&text);
    return is_value(list) ? list : bif_out_of_memory(p);
}

static term bif_pid_to_list(struct process *p, const term *a)
{
    return is_pid(a[0]) ? term_text(p, a[0]) : bif_badarg(p);
}

static term bif_ref_to_list(struct process *p, const term *a)
{
    return is_ref(a[0]) ? term_text(p, a[0]) : bif_badarg(p);
}

/* list_to_pid/1 of a local pid's text, "<0.N.0>". */
static term bif_list_to_pid(struct process *p, const term *a)
{
    struct strbuf text = STRBUF_INIT;
    bool ok = bif_list_bytes(a[0], &text);
    unsigned long long number = 0;
    int consumed = 0;
    ok = ok && sscanf(strbuf_cstr(&text), "<0.%llu.0>%n", &number, &consumed) == 1 && (size_t)consumed == text.len &&
         text.data[3] >= '0' && text.data[3] <= '9' && number < (1ull << 59);
    strbuf_free(&text);
    return ok ? make_pid(number) : bif_badarg(p);
}

#define G BIF_GUARD
#define GN (BIF_GUARD | BIF_NOHEAP)

const struct bif_def bif_table_terms[] = {
    {"erlang", "is_atom", 1, bif_is_atom, GN},
    {"erlang", "is_binary", 1, bif_is_binary, GN},
    {"erlang", "is_bitstring", 1, bif_is_bitstring, GN},
    {"erlang", "is_boolean", 1, bif_is_boolean, GN},
    {"erlang", "is_float", 1, bif_is_float, GN},
    {"erlang", "is_function", 1, bif_is_function, GN},
    {"erlang", "is_function", 2, bif_is_function_2, GN},
    {"erlang", "is_integer", 1, bif_is_integer, GN},
    {"erlang", "is_list", 1, bif_is_list, GN},
    {"erlang", "is_map", 1, bif_is_map, GN},
    {"erlang", "is_number", 1, bif_is_number, GN},
    {"erlang", "is_pid", 1, bif_is_pid, GN},
    {"erlang", "is_port", 1, bif_is_port, GN},
    {"erlang", "is_reference", 1, bif_is_reference, GN},
    {"erlang", "is_tuple", 1, bif_is_tuple, GN},
    {"erlang", "element", 2, bif_element, GN},
    {"erlang", "setelement", 3, bif_setelement, 0},
    {"erlang", "tuple_size", 1, bif_tuple_size, GN},
    {"erlang", "size", 1, bif_size, GN},
    {"erlang", "make_tuple", 2, bif_make_tuple_2, 0},
    {"erlang", "make_tuple", 3, bif_make_tuple_3, 0},
    {"erlang", "append_element", 2, bif_append_element, 0},
    {"erlang", "insert_element", 3, bif_insert_element, 0},
    {"erlang", "delete_element", 2, bif_delete_element, 0},
    {"erlang", "is_record", 2, bif_is_record_2, GN},
    {"erlang", "is_record", 3, bif_is_record_3, GN},
    {"erlang", "tuple_to_list", 1, bif_tuple_to_list, 0},
    {"erlang", "list_to_tuple", 1, bif_list_to_tuple, 0},
    {"erlang", "hd", 1, bif_hd, GN},
    {"erlang", "tl", 1, bif_tl, GN},
    {"erlang", "length", 1, bif_length, GN},
    {"erlang", "++", 2, bif_append, 0},
    {"erlang", "--", 2, bif_subtract, 0},
    {"erlang", "append", 2, bif_append, 0},
    {"erlang", "subtract", 2, bif_subtract, 0},
    {"erlang", "make_ref", 0, bif_make_ref, 0},
    {"erlang", "node", 0, bif_node, GN},
    {"erlang", "node", 1, bif_node_1, GN},
    {"erlang", "phash2", 1, bif_phash2_1, 0},
    {"erlang", "phash2", 2, bif_phash2_2, 0},
    {"erlang", "pid_to_list", 1, bif_pid_to_list, 0},
    {"erlang", "ref_to_list", 1, bif_ref_to_list, 0},
    {"erlang", "list_to_pid", 1, bif_list_to_pid, 0},
    {NULL, NULL, 0, NULL, 0},
};
