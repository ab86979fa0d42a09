/* Atom table: predefined atoms, UTF-8 and length rules, concurrent interning. */
#include "term/atom.h"
#include "test_main.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void test_predefined_atoms_have_fixed_indices(void)
{
    size_t n;
    CU_ASSERT_STRING_EQUAL(atom_text(A(true), &n), "true");
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_EQUAL(atom_intern_cstr("false"), A(false));
    CU_ASSERT_EQUAL(atom_intern_cstr("nonode@nohost"), A(nonode_at_nohost));
    CU_ASSERT_STRING_EQUAL(atom_text(A(empty), &n), "");
    CU_ASSERT_EQUAL(n, 0);
}

static void test_intern_is_idempotent_and_distinct(void)
{
    term a = atom_intern_cstr("hello_atom");
    term b = atom_intern_cstr("hello_atom");
    term c = atom_intern_cstr("hello_atoms");
    CU_ASSERT_TRUE(is_atom(a));
    CU_ASSERT_EQUAL(a, b);
    CU_ASSERT_NOT_EQUAL(a, c);
    CU_ASSERT_EQUAL(atom_lookup("hello_atom", 10), a);
    CU_ASSERT_TRUE(is_non_value(atom_lookup("never_interned_xyz", 18)));
}

static void test_utf8_and_latin1(void)
{
    enum atom_status st;
    /* "ü" in UTF-8 and in Latin-1 name one atom. */
    term u = atom_intern("\xc3\xbc", 2, &st);
    CU_ASSERT_EQUAL(st, ATOM_OK);
    const unsigned char latin1[] = {0xfc};
    CU_ASSERT_EQUAL(atom_intern_latin1(latin1, 1, &st), u);
    /* Invalid: lone continuation, truncated sequence, overlong, surrogate. */
    const char *bad[] = {"\x80", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_TRUE(is_non_value(atom_intern(bad[i], strlen(bad[i]), &st)));
        CU_ASSERT_EQUAL(st, ATOM_BAD_UTF8);
    }
}

static void test_length_limit_counts_characters(void)
{
    enum atom_status st;
    char text[600];
    memset(text, 'a', 255);
    CU_ASSERT_TRUE(is_value(atom_intern(text, 255, &st)));
    memset(text, 'a', 256);
    CU_ASSERT_TRUE(is_non_value(atom_intern(text, 256, &st)));
    CU_ASSERT_EQUAL(st, ATOM_TOO_LONG);
    /* 255 two-byte characters are 510 bytes and still fit. */
    for (int i = 0; i < 255; i++)
        memcpy(text + 2 * i, "\xc3\xa9", 2);
    CU_ASSERT_TRUE(is_value(atom_intern(text, 510, &st)));
}

static void test_compare_orders_by_code_points(void)
{
    CU_ASSERT_TRUE(atom_compare(atom_intern_cstr("a"), atom_intern_cstr("b")) < 0);
    CU_ASSERT_TRUE(atom_compare(atom_intern_cstr("ab"), atom_intern_cstr("a")) > 0);
    CU_ASSERT_TRUE(atom_compare(atom_intern_cstr("z"), atom_intern("\xc3\xa9", 2, NULL)) < 0);
    CU_ASSERT_EQUAL(atom_compare(A(ok), A(ok)), 0);
}

#define THREADS 4
#define NAMES 20000

struct worker_result {
    int id;
    term atoms[NAMES];
};

static void *intern_many(void *arg)
{
    struct worker_result *r = arg;
    char name[32];
    /* Every thread interns the same names, in a different order, so inserts
     * of one name race between threads. */
    for (int k = 0; k < NAMES; k++) {
        int i = (k * 7919 + r->id * 4049) % NAMES;
        int n = snprintf(name, sizeof name, "concurrent_%d", i);
        r->atoms[i] = atom_intern(name, (size_t)n, NULL);
    }
    return NULL;
}

static void test_concurrent_inserts_from_four_threads(void)
{
    static struct worker_result results[THREADS];
    pthread_t threads[THREADS];
    unsigned before = atom_count();
    for (int t = 0; t < THREADS; t++) {
        results[t].id = t;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[t], NULL, intern_many, &results[t]), 0);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    CU_ASSERT_EQUAL(atom_count(), before + NAMES);
    int mismatches = 0;
    char name[32];
    for (int i = 0; i < NAMES; i++) {
        for (int t = 1; t < THREADS; t++)
            mismatches += results[t].atoms[i] != results[0].atoms[i];
        snprintf(name, sizeof name, "concurrent_%d", i);
        mismatches += strcmp(atom_text(results[0].atoms[i], NULL), name) != 0;
    }
    CU_ASSERT_EQUAL(mismatches, 0);
}

static CU_TestInfo tests[] = {
    {"predefined atoms have fixed indices", test_predefined_atoms_have_fixed_indices},
    {"intern is idempotent and distinct", test_intern_is_idempotent_and_distinct},
    {"utf8 and latin1", test_utf8_and_latin1},
    {"length limit counts characters", test_length_limit_counts_characters},
    {"compare orders by code points", test_compare_orders_by_code_points},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(atom, tests)

static CU_TestInfo concurrent_tests[] = {
    {"concurrent inserts from four threads", test_concurrent_inserts_from_four_threads},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(atom_concurrent, concurrent_tests)
