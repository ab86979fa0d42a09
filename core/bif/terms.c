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

static term bif_tuple_to_list(struct process *p, const term *a)
{
    if (!is_tuple(a[0]))
        return bif_badarg(p);
    term l = bif_make_list(p, tuple_elements(a[0]), tuple_arity(a[0]));
    return is_value(l) ? l : bif_out_of_memory(p);
}

static term bif_list_to_tuple(struct process *p, const term *a)
{
    int64_t n = bif_list_length(a[0]);
    if (n < 0 || (uint64_t)n > MAX_ARITY)
        return bif_badarg(p);
    term t = heap_tuple(&p->heap, (size_t)n, NULL);
    if (is_non_value(t))
        return bif_out_of_memory(p);
    term l = a[0];
    for (int64_t i = 0; i < n; i++, l = list_tail(l))
        tuple_elements(t)[i] = list_head(l);
    return t;
}

/* ---- lists ---- */

static term bif_hd(struct process *p, const term *a) { return is_list(a[0]) ? list_head(a[0]) : bif_badarg(p); }
static term bif_tl(struct process *p, const term *a) { return is_list(a[0]) ? list_tail(a[0]) : bif_badarg(p); }

static term bif_length(struct process *p, const term *a)
{
    int64_t n = bif_list_length(a[0]);
    return n < 0 ? bif_badarg(p) : make_small(n);
}

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

static term bif_append(struct process *p, const term *a)
{
    int64_t n = bif_list_length(a[0]);
    if (n < 0)
        return bif_badarg(p);
    return copy_list(p, a[0], (size_t)n, a[1]);
}

/* A -- B: each element of B removes the first element of A exactly equal
 * (=:=) to it. */
static term bif_subtract(struct process *p, const term *a)
{
    int64_t n = bif_list_length(a[0]), m = bif_list_length(a[1]);
    if (n < 0 || m < 0)
        return bif_badarg(p);
    if (n == 0 || m == 0)
        return a[0];
    term *left = malloc((size_t)n * sizeof(term));
    if (!left)
        return bif_out_of_memory(p);
    term l = a[0];
    for (int64_t i = 0; i < n; i++, l = list_tail(l))
        left[i] = list_head(l);
    /* Removed slots become THE_NON_VALUE, which no term equals. */
    size_t kept = (size_t)n;
    for (term r = a[1]; is_list(r) && kept > 0; r = list_tail(r)) {
        for (int64_t i = 0; i < n; i++) {
            if (is_value(left[i]) && term_eq_exact(left[i], list_head(r))) {
                left[i] = THE_NON_VALUE;
                kept--;
                break;
            }
        }
    }
    size_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (is_value(left[i]))
            left[k++] = left[i];
    term result = bif_make_list(p, left, k);
    free(left);
    return is_value(result) ? result : bif_out_of_memory(p);
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

static term bif_phash2_1(struct process *p, const term *a)
{
    (void)p;
    return make_small(phash2_hash(a[0]) & ((UINT32_C(1) << 27) - 1));
}

/* phash2(Term, Range): Range from 1 to 2^32. */
static term bif_phash2_2(struct process *p, const term *a)
{
    uint64_t range;
    if (is_small(a[1]) && small_value(a[1]) >= 1 && small_value(a[1]) <= (INT64_C(1) << 32))
        range = (uint64_t)small_value(a[1]);
    else
        return bif_badarg(p);
    return make_small((int64_t)(phash2_hash(a[0]) % range));
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
    {"erlang", "phash2", 1, bif_phash2_1, BIF_NOHEAP},
    {"erlang", "phash2", 2, bif_phash2_2, BIF_NOHEAP},
    {"erlang", "pid_to_list", 1, bif_pid_to_list, 0},
    {"erlang", "ref_to_list", 1, bif_ref_to_list, 0},
    {"erlang", "list_to_pid", 1, bif_list_to_pid, 0},
    {NULL, NULL, 0, NULL, 0},
};
