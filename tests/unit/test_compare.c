/*
 * test_compare.c — term order, exact equality and hashing: every pair of
 * tests/data/order_cases.txt against OTP 25 (tests/gen/order_cases.escript),
 * the order's 64-bit prefixes (term_order_prefix) on the same pairs, local
 * funs by OTP's rules, large maps against a sort-based reference, and
 * terms too long or too deep for recursion.
 */
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/etf.h"
#include "term/map.h"
#include "test_main.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sgn(int x) { return (x > 0) - (x < 0); }

/* ---- OTP's order, pair by pair ---- */

#define MAX_ORDER_TERMS 512

static void test_order_cases(void)
{
    FILE *f = fopen(test_data_path("data/order_cases.txt"), "r");
    CU_ASSERT_FATAL(f != NULL);
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    static term terms[MAX_ORDER_TERMS];
    static char *rows[MAX_ORDER_TERMS];
    size_t nt = 0, nr = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len > 2 && line[0] == 'T' && nt < MAX_ORDER_TERMS)
            terms[nt++] = test_term_from_hex(&h, line + 2, (size_t)len - 2);
        else if (len > 2 && line[0] == 'R' && nr < MAX_ORDER_TERMS)
            rows[nr++] = strdup(line + 2);
    }
    free(line);
    fclose(f);
    CU_ASSERT_FATAL(nt > 100 && nt == nr);
    unsigned failures = 0, prefix_failures = 0, ordered = 0, told = 0;
    for (size_t i = 0; i < nt; i++) {
        CU_ASSERT_FATAL(strlen(rows[i]) == nt);
        for (size_t j = 0; j < nt; j++) {
            int code = rows[i][j] - 'a';
            int std = code / 3 - 1, exact = code % 3 - 1;
            term a = terms[i], b = terms[j];
            int c = sgn(term_compare(a, b)), e = sgn(term_compare_exact(a, b));
            bool ok = c == std && e == exact && term_eq(a, b) == (std == 0) && term_eq_exact(a, b) == (exact == 0);
            if (exact == 0 && term_hash(a) != term_hash(b))
                ok = false;
            if (!ok && ++failures <= 10)
                fprintf(stderr, "order case %zu vs %zu: want %d/%d, got %d/%d\n", i, j, std, exact, c, e);
            /* term_order_prefix follows the order, and mostly tells it. */
            if (std < 0) {
                uint64_t pa = term_order_prefix(a), pb = term_order_prefix(b);
                ordered++;
                told += pa < pb;
                if (pa > pb && ++prefix_failures <= 10)
                    fprintf(stderr, "order case %zu < %zu: prefixes %016llx > %016llx\n", i, j, (unsigned long long)pa,
                            (unsigned long long)pb);
            }
        }
    }
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_EQUAL(prefix_failures, 0);
    CU_ASSERT(told > ordered * 3 / 4);
    for (size_t i = 0; i < nr; i++)
        free(rows[i]);
    heap_destroy(&h);
}

/* ---- things the decoder cannot bring in ---- */

static void test_local_funs(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term mod_a = atom_intern_cstr("a"), mod_b = atom_intern_cstr("b");
    struct fun_entry e_a0 = {.module = mod_a, .index = 0, .old_uniq = 5, .num_free = 0};
    struct fun_entry e_a1 = {.module = mod_a, .index = 1, .old_uniq = 1, .num_free = 0};
    struct fun_entry e_a1u = {.module = mod_a, .index = 1, .old_uniq = 2, .num_free = 0};
    struct fun_entry e_a1f = {.module = mod_a, .index = 1, .old_uniq = 2, .num_free = 1};
    struct fun_entry e_b0 = {.module = mod_b, .index = 0, .old_uniq = 0, .num_free = 0};
    term one = make_small(1), one_f = heap_float(&h, 1.0), two = make_small(2);
    /* In OTP's order: module, index, uniq, free count, free variables. */
    term ordered[] = {
        heap_local_fun(&h, &e_a0, NULL),      heap_local_fun(&h, &e_a1, NULL),
        heap_local_fun(&h, &e_a1u, NULL),     heap_local_fun(&h, &e_a1f, &one),
        heap_local_fun(&h, &e_a1f, &two),     heap_local_fun(&h, &e_b0, NULL),
        heap_export_fun(&h, mod_a, mod_a, 0), heap_export_fun(&h, mod_a, mod_b, 0),
        heap_export_fun(&h, mod_a, mod_b, 1), heap_export_fun(&h, mod_b, mod_a, 0),
    };
    size_t n = sizeof ordered / sizeof ordered[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int want = (i > j) - (i < j);
            CU_ASSERT_EQUAL(sgn(term_compare(ordered[i], ordered[j])), want);
            CU_ASSERT_EQUAL(sgn(term_compare_exact(ordered[i], ordered[j])), want);
        }
    /* Funs sit between references and ports. */
    term ref = heap_ref_with_id(&h, 1, 2);
    CU_ASSERT_TRUE(term_compare(ref, ordered[0]) < 0);
    CU_ASSERT_TRUE(term_compare(ordered[n - 1], make_port(0)) < 0);
    /* Free variables compare by value under ==, exactly under =:=. */
    term f1 = heap_local_fun(&h, &e_a1f, &one), f1f = heap_local_fun(&h, &e_a1f, &one_f);
    CU_ASSERT_EQUAL(term_compare(f1, f1f), 0);
    CU_ASSERT_TRUE(term_compare_exact(f1, f1f) < 0);
    CU_ASSERT_FALSE(term_eq_exact(f1, f1f));
    CU_ASSERT_TRUE(term_eq_exact(f1, ordered[3]));
    CU_ASSERT_EQUAL(term_hash(f1), term_hash(ordered[3]));
    CU_ASSERT_EQUAL(term_hash(ordered[6]), term_hash(heap_export_fun(&h, mod_a, mod_a, 0)));
    heap_destroy(&h);
}

/* Values computed from OTP 25's make_internal_hash definition. */
static void test_hash_values(void)
{
    CU_ASSERT_EQUAL(term_map_hash(make_small(1), 0), 0x91859556u);
    CU_ASSERT_EQUAL(term_map_hash(make_small(1), 1), 0x89adfee4u);
    CU_ASSERT_EQUAL(term_map_hash(make_small(-5), 0), 0x2f0cfefau);
    CU_ASSERT_EQUAL(term_hash(make_small(1)), 0x91859556u);
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    /* Different representations of equal terms hash alike. */
    CU_ASSERT_EQUAL(term_hash(heap_float(&h, 0.0)), term_hash(heap_float(&h, -0.0)));
    uint8_t bytes[200];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 7);
    term big = bin_from_bytes(&h, bytes, sizeof bytes);
    term whole = bin_from_bytes(&h, bytes + 10, 100);
    term sub = bin_sub(&h, big, 10, 100, 0);
    CU_ASSERT_TRUE(term_eq_exact(whole, sub));
    CU_ASSERT_EQUAL(term_hash(whole), term_hash(sub));
    CU_ASSERT_EQUAL(term_compare(whole, sub), 0);
    term shorter = bin_sub(&h, big, 10, 99, 7);
    CU_ASSERT_TRUE(term_compare(shorter, sub) < 0);
    heap_destroy(&h);
}

/* ---- large maps against a sort-based reference ---- */

static int cmp_exact_qsort(const void *x, const void *y)
{
    return term_compare_exact(*(const term *)x, *(const term *)y);
}

/* OTP's definition: size, then keys in exact order, then values by key. */
static int reference_map_compare(term a, term b, bool exact)
{
    size_t n = map_size(a), m = map_size(b);
    if (n != m)
        return n < m ? -1 : 1;
    term *ka = malloc(2 * n * sizeof(term) + 1), *kb = ka + n;
    struct map_iter it;
    term k, v;
    size_t i = 0;
    map_iter_init(&it, a);
    while (map_iter_next(&it, &k, &v))
        ka[i++] = k;
    i = 0;
    map_iter_init(&it, b);
    while (map_iter_next(&it, &k, &v))
        kb[i++] = k;
    qsort(ka, n, sizeof(term), cmp_exact_qsort);
    qsort(kb, n, sizeof(term), cmp_exact_qsort);
    int r = 0;
    for (i = 0; i < n && r == 0; i++)
        r = sgn(term_compare_exact(ka[i], kb[i]));
    for (i = 0; i < n && r == 0; i++) {
        term va = map_get(a, ka[i]), vb = map_get(b, ka[i]);
        r = sgn(exact ? term_compare_exact(va, vb) : term_compare(va, vb));
    }
    free(ka);
    return r;
}

static uint64_t rng_state = 88172645463325252u;
static uint64_t rng(void) { return test_xorshift(&rng_state); }

/* A random map of n keys drawn from a small universe, values 0..2 as small
 * integers or floats, so that key sets and values often nearly agree. */
static term random_map(heap_t *h, size_t n)
{
    term keys[64], values[64];
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng();
        int64_t k = (int64_t)(r % 48);
        keys[i] = (r >> 8) % 5 == 0 ? heap_float(h, (double)k) : make_small(k);
        int64_t v = (int64_t)((r >> 16) % 3);
        values[i] = (r >> 24) % 4 == 0 ? heap_float(h, (double)v) : make_small(v);
    }
    return map_from_pairs(h, keys, values, n);
}

static uint32_t colliding_hash(term key, unsigned round)
{
    /* Few distinct hashes, equal in every round: deep paths and collision
     * nodes. Floats and integers of a value collide too. */
    (void)round;
    double d = is_float(key) ? float_value(key) : (double)small_value(key);
    return (uint32_t)((int64_t)d % 3) * 0x11111111u;
}

static void check_random_maps(unsigned rounds)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    unsigned failures = 0;
    for (unsigned i = 0; i < rounds; i++) {
        size_t n = 30 + rng() % 20;
        term a = random_map(&h, n);
        term b = rng() % 3 == 0 ? a : random_map(&h, n);
        /* Often: b equal to a except one value or one key. */
        if (rng() % 2 && map_size(b) > 0) {
            term k = make_small((int64_t)(rng() % 48));
            b = rng() % 2 ? map_put(&h, b, k, make_small((int64_t)(rng() % 3))) : map_remove(&h, b, k);
        }
        for (int exact = 0; exact < 2; exact++) {
            int want = reference_map_compare(a, b, exact);
            int got = sgn(exact ? term_compare_exact(a, b) : term_compare(a, b));
            int back = sgn(exact ? term_compare_exact(b, a) : term_compare(b, a));
            if ((want != got || back != -want) && ++failures <= 5)
                fprintf(stderr, "random maps %u (exact %d): want %d, got %d / %d\n", i, exact, want, got, back);
        }
        if (term_eq_exact(a, b) != (reference_map_compare(a, b, true) == 0))
            failures++;
        if (term_eq_exact(a, b) && term_hash(a) != term_hash(b))
            failures++;
    }
    CU_ASSERT_EQUAL(failures, 0);
    heap_destroy(&h);
}

static void test_large_maps(void) { check_random_maps(3000); }

static void test_large_maps_colliding(void)
{
    map_test_set_hash(colliding_hash);
    check_random_maps(1000);
    map_test_set_hash(NULL);
}

/* ---- long and deep terms: constant C stack ---- */

static term long_list(heap_t *h, size_t n, term elem, term last)
{
    term l = NIL;
    for (size_t i = 0; i < n; i++) {
        l = heap_cons(h, i == 0 ? last : elem, l);
        CU_ASSERT_FATAL(is_value(l));
    }
    return l;
}

static void test_long_lists(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t n = 1000000;
    /* Equal but not identical heads: every element goes through the stack. */
    term fa = heap_float(&h, 2.5), fb = heap_float(&h, 2.5);
    term a = long_list(&h, n, fa, fa), b = long_list(&h, n, fb, fb);
    term c = long_list(&h, n, fb, heap_float(&h, 3.0));
    CU_ASSERT_EQUAL(term_compare(a, b), 0);
    CU_ASSERT_TRUE(term_eq_exact(a, b));
    CU_ASSERT_TRUE(term_compare(a, c) < 0);
    CU_ASSERT_TRUE(term_compare_exact(c, a) > 0);
    CU_ASSERT_FALSE(term_eq_exact(a, c));
    CU_ASSERT_EQUAL(term_hash(a), term_hash(b));
    CU_ASSERT_NOT_EQUAL(term_hash(a), term_hash(c));
    /* A long string hashes through the byte-run path. */
    term s1 = long_list(&h, n, make_small('x'), make_small('y'));
    term s2 = long_list(&h, n, make_small('x'), make_small('y'));
    CU_ASSERT_EQUAL(term_hash(s1), term_hash(s2));
    CU_ASSERT_TRUE(term_eq_exact(s1, s2));
    heap_destroy(&h);
}

/* Nests depth levels: each wraps the previous in a tuple of `arity` whose
 * first element is the inner term (the rest: 1). */
static term deep_tuple(heap_t *h, size_t depth, unsigned arity, term bottom)
{
    term t = bottom;
    term elems[3] = {0, make_small(1), make_small(1)};
    for (size_t i = 0; i < depth; i++) {
        elems[0] = t;
        t = heap_tuple(h, arity, elems);
        CU_ASSERT_FATAL(is_value(t));
    }
    return t;
}

static void test_deep_terms(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t depth = 100000;
    for (unsigned arity = 1; arity <= 3; arity += 2) {
        term a = deep_tuple(&h, depth, arity, make_small(0));
        term b = deep_tuple(&h, depth, arity, make_small(0));
        term c = deep_tuple(&h, depth, arity, heap_float(&h, 0.0));
        CU_ASSERT_EQUAL(term_compare(a, b), 0);
        CU_ASSERT_TRUE(term_eq_exact(a, b));
        CU_ASSERT_EQUAL(term_compare(a, c), 0);
        CU_ASSERT_TRUE(term_compare_exact(a, c) < 0);
        CU_ASSERT_FALSE(term_eq_exact(a, c));
        CU_ASSERT_EQUAL(term_hash(a), term_hash(b));
    }
    /* Lists nested in heads: [[[...]]]. */
    term la = NIL, lb = NIL;
    for (size_t i = 0; i < depth; i++) {
        la = heap_cons(&h, la, NIL);
        lb = heap_cons(&h, lb, NIL);
    }
    CU_ASSERT_TRUE(term_eq_exact(la, lb));
    CU_ASSERT_EQUAL(term_compare(la, lb), 0);
    CU_ASSERT_EQUAL(term_hash(la), term_hash(lb));
    /* Maps nested as values and as keys. */
    term key = atom_intern_cstr("k");
    term va = map_new_empty(&h), vb = map_new_empty(&h), ka = va, kb = vb;
    for (size_t i = 0; i < depth; i++) {
        term one = make_small(1);
        va = map_from_pairs(&h, &key, &va, 1);
        vb = map_from_pairs(&h, &key, &vb, 1);
        ka = map_from_pairs(&h, &ka, &one, 1);
        kb = map_from_pairs(&h, &kb, &one, 1);
        CU_ASSERT_FATAL(is_value(va) && is_value(vb) && is_value(ka) && is_value(kb));
    }
    CU_ASSERT_EQUAL(term_compare(va, vb), 0);
    CU_ASSERT_TRUE(term_eq_exact(va, vb));
    CU_ASSERT_EQUAL(term_hash(va), term_hash(vb));
    CU_ASSERT_EQUAL(term_compare(ka, kb), 0);
    CU_ASSERT_TRUE(term_eq_exact(ka, kb));
    CU_ASSERT_EQUAL(term_hash(ka), term_hash(kb));
    heap_destroy(&h);
}

/* Large maps nested in large maps: one map walk inside another's value and
 * key comparisons, thousands deep. */
static void test_deep_large_maps(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t depth = 2000, width = 40;
    term keys[40], va[40], vb[40];
    term a = NIL, b = NIL;
    for (size_t i = 0; i < depth; i++) {
        for (size_t k = 0; k < width; k++) {
            keys[k] = make_small((int64_t)k);
            va[k] = make_small((int64_t)k);
            vb[k] = k == 0 && i == 0 ? heap_float(&h, 0.0) : make_small((int64_t)k);
        }
        va[17] = a;
        vb[17] = b;
        a = map_from_pairs(&h, keys, va, width);
        b = map_from_pairs(&h, keys, vb, width);
        CU_ASSERT_FATAL(is_value(a) && is_value(b));
    }
    CU_ASSERT_EQUAL(term_compare(a, b), 0);
    CU_ASSERT_TRUE(term_compare_exact(a, b) < 0);
    CU_ASSERT_TRUE(term_compare_exact(b, a) > 0);
    CU_ASSERT_FALSE(term_eq_exact(a, b));
    CU_ASSERT_NOT_EQUAL(term_hash(a), term_hash(b));
    heap_destroy(&h);
}

static CU_TestInfo tests[] = {
    {"order of OTP's representative terms", test_order_cases},
    {"local and export funs", test_local_funs},
    {"hash values and representations", test_hash_values},
    {"large maps against a reference", test_large_maps},
    {"large maps with colliding hashes", test_large_maps_colliding},
    {"1,000,000-element lists", test_long_lists},
    {"100,000-deep tuples, lists and maps", test_deep_terms},
    {"large maps nested 2000 deep", test_deep_large_maps},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(compare, tests)
