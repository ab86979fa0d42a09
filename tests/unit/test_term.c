/* Term representation: construction and inspection of every type, and the
 * heap's block, fragments and cap. */
#include "term/atom.h"
#include "term/heap.h"
#include "test_main.h"

#include <math.h>

static void test_small_integers_round_trip_at_the_edges(void)
{
    const int64_t values[] = {0, 1, -1, 42, -42, MAX_SMALL, MIN_SMALL, MAX_SMALL - 1, MIN_SMALL + 1};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        term t = make_small(values[i]);
        CU_ASSERT_TRUE(is_small(t));
        CU_ASSERT_TRUE(is_integer(t));
        CU_ASSERT_TRUE(is_immed(t));
        CU_ASSERT_FALSE(is_atom(t) || is_pid(t) || is_nil(t) || is_boxed(t) || is_list(t));
        CU_ASSERT_EQUAL(small_value(t), values[i]);
    }
    CU_ASSERT_TRUE(small_fits(MAX_SMALL));
    CU_ASSERT_FALSE(small_fits(MAX_SMALL + 1));
    CU_ASSERT_FALSE(small_fits(MIN_SMALL - 1));
    CU_ASSERT_EQUAL(MAX_SMALL, ((int64_t)1 << 59) - 1);
}

static void test_immediates_are_distinct_classes(void)
{
    term atom = A(ok), pid = make_pid(7), port = make_port(7);
    CU_ASSERT_TRUE(is_atom(atom) && !is_pid(atom) && !is_small(atom) && !is_nil(atom));
    CU_ASSERT_TRUE(is_pid(pid) && !is_port(pid) && !is_small(pid) && !is_atom(pid));
    CU_ASSERT_TRUE(is_port(port) && !is_pid(port));
    CU_ASSERT_EQUAL(pid_number(pid), 7);
    CU_ASSERT_EQUAL(port_number(port), 7);
    CU_ASSERT_TRUE(is_nil(NIL) && !is_atom(NIL) && !is_list(NIL) && is_list_or_nil(NIL));
    CU_ASSERT_FALSE(is_value(THE_NON_VALUE));
    CU_ASSERT_TRUE(is_catch(make_catch(3)) && catch_value(make_catch(3)) == 3);
    CU_ASSERT_FALSE(is_pointer_term(atom) || is_pointer_term(pid) || is_pointer_term(NIL));
    /* Large pid numbers (never reused) keep their value. */
    CU_ASSERT_EQUAL(pid_number(make_pid((uint64_t)1 << 40)), (uint64_t)1 << 40);
}

static void test_boxed_and_list_construction(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term list = heap_cons(&h, make_small(1), heap_cons(&h, A(ok), NIL));
    CU_ASSERT_TRUE(is_list(list) && is_pointer_term(list));
    CU_ASSERT_EQUAL(list_head(list), make_small(1));
    CU_ASSERT_EQUAL(list_head(list_tail(list)), A(ok));
    CU_ASSERT_TRUE(is_nil(list_tail(list_tail(list))));

    term tuple = heap_tuple3(&h, atom_intern_cstr("a"), list, make_small(3));
    CU_ASSERT_TRUE(is_tuple(tuple) && is_boxed(tuple) && !is_list(tuple));
    CU_ASSERT_EQUAL(tuple_arity(tuple), 3);
    CU_ASSERT_EQUAL(tuple_element(tuple, 2), list);
    term empty = heap_tuple(&h, 0, NULL);
    CU_ASSERT_TRUE(is_tuple(empty) && tuple_arity(empty) == 0);

    term f = heap_float(&h, -2.5);
    CU_ASSERT_TRUE(is_float(f) && is_number(f) && !is_integer(f));
    CU_ASSERT_EQUAL(float_value(f), -2.5);
    term nan_free = heap_float(&h, 1e308);
    CU_ASSERT_EQUAL(float_value(nan_free), 1e308);

    term r1 = heap_make_ref(&h), r2 = heap_make_ref(&h);
    CU_ASSERT_TRUE(is_ref(r1) && is_ref(r2));
    CU_ASSERT_TRUE(ref_id_low(r1) != ref_id_low(r2) || ref_id_high(r1) != ref_id_high(r2));

    term ex = heap_export_fun(&h, A(erlang), A(exit), 2);
    CU_ASSERT_TRUE(is_export(ex) && is_fun(ex) && !is_local_fun(ex));
    CU_ASSERT_EQUAL(boxed_ptr(ex)[3], make_small(2));

    static const struct fun_entry entry = {0, 0, 3, 12345, 1, 2, NULL, NULL};
    term free_vars[2] = {make_small(10), tuple};
    term fun = heap_local_fun(&h, &entry, free_vars);
    CU_ASSERT_TRUE(is_local_fun(fun) && is_fun(fun));
    CU_ASSERT_EQUAL(fun_entry_of(fun), &entry);
    CU_ASSERT_EQUAL(fun_num_free(fun), 2);
    CU_ASSERT_EQUAL(fun_free_var(fun, 1), tuple);

    term s = heap_string(&h, "hi", 2);
    CU_ASSERT_EQUAL(list_head(s), make_small('h'));
    CU_ASSERT_EQUAL(list_head(list_tail(s)), make_small('i'));
    term elems[3] = {atom_intern_cstr("a"), atom_intern_cstr("b"), atom_intern_cstr("c")};
    term l3 = heap_list_from_array(&h, elems, 3);
    CU_ASSERT_EQUAL(list_head(list_tail(list_tail(l3))), elems[2]);
    CU_ASSERT_TRUE(is_nil(heap_list_from_array(&h, elems, 0)));
    heap_destroy(&h);
}

static void test_term_ranges_cover_term_words_only(void)
{
    uint64_t first, count;
    term_boxed_term_range(make_header(SUBTAG_TUPLE, 5), &first, &count);
    CU_ASSERT_TRUE(first == 1 && count == 5);
    term_boxed_term_range(make_header(SUBTAG_FLOAT, 1), &first, &count);
    CU_ASSERT_EQUAL(count, 0);
    term_boxed_term_range(make_header(SUBTAG_FUN, FUN_FIXED_WORDS + 3), &first, &count);
    CU_ASSERT_TRUE(first == 2 && count == 3);
    term_boxed_term_range(make_header(SUBTAG_POS_BIG, 4), &first, &count);
    CU_ASSERT_EQUAL(count, 0);
    term h = make_header_extra(SUBTAG_HASHMAP, 7, 0xBEEF);
    CU_ASSERT_EQUAL(header_extra(h), 0xBEEF);
    CU_ASSERT_EQUAL(header_arity(h), 7);
    CU_ASSERT_EQUAL(header_subtag(h), SUBTAG_HASHMAP);
    CU_ASSERT_TRUE(is_header(h));
}

static void test_fragments_keep_terms_in_place(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 64, 0));
    term list = NIL;
    term *first_cell = NULL;
    for (int i = 0; i < 10000; i++) {
        list = heap_cons(&h, make_small(i), list);
        CU_ASSERT_FATAL(is_value(list));
        if (i == 0)
            first_cell = list_ptr(list);
    }
    CU_ASSERT_PTR_NOT_NULL(h.frags);
    CU_ASSERT_EQUAL(heap_used_words(&h), 20000);
    CU_ASSERT_TRUE(heap_contains(&h, first_cell));
    CU_ASSERT_TRUE(heap_contains(&h, list_ptr(list)));
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    /* The oldest cell is still where it was made. */
    CU_ASSERT_EQUAL(first_cell[0], make_small(0));
    int64_t expect = 9999;
    for (term t = list; is_list(t); t = list_tail(t))
        CU_ASSERT_EQUAL_FATAL(small_value(list_head(t)), expect--);
    CU_ASSERT_EQUAL(expect, -1);
    heap_destroy(&h);
}

static void test_cap_refuses_cleanly(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 300));
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 200));
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 100));
    CU_ASSERT_PTR_NULL(heap_alloc(&h, 1));
    CU_ASSERT_EQUAL(h.failure, HEAP_FAIL_CAP);
    CU_ASSERT_TRUE(is_non_value(heap_cons(&h, NIL, NIL)));
    CU_ASSERT_EQUAL(heap_used_words(&h), 300);
    heap_destroy(&h);
}

static void test_shrink_last_returns_words(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term *p = heap_alloc(&h, 10);
    heap_shrink_last(&h, p, 10, 3);
    CU_ASSERT_EQUAL(heap_used_words(&h), 3);
    term *q = heap_alloc(&h, 1);
    CU_ASSERT_PTR_EQUAL(q, p + 3);
    heap_destroy(&h);
}

static CU_TestInfo tests[] = {
    {"small integers round trip at the edges", test_small_integers_round_trip_at_the_edges},
    {"immediates are distinct classes", test_immediates_are_distinct_classes},
    {"boxed and list construction", test_boxed_and_list_construction},
    {"term ranges cover term words only", test_term_ranges_cover_term_words_only},
    {"fragments keep terms in place", test_fragments_keep_terms_in_place},
    {"cap refuses cleanly", test_cap_refuses_cleanly},
    {"shrink_last returns words", test_shrink_last_returns_words},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(term, tests)
