/*
 * test_map.c — maps against OTP 25: every map of tests/data/map_cases.txt
 * (tests/gen/map_cases.escript) decoded, read back in maps:to_list order,
 * rebuilt by map_put and map_from_pairs and taken apart by map_remove; the
 * flat/trie boundary; collision nodes; a heap that refuses.
 */
#include "term/atom.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/etf.h"
#include "term/gc.h"
#include "term/map.h"
#include "test_main.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_flat(term m) { return is_boxed_subtag(m, SUBTAG_FLATMAP); }

/* The pairs of map in iteration order. */
static size_t map_pairs(term map, term *keys, term *values)
{
    struct map_iter it;
    size_t n = 0;
    map_iter_init(&it, map);
    while (map_iter_next(&it, &keys[n], &values[n]))
        n++;
    return n;
}

/* Checks one map of the file; returns false on the first disagreement. */
static bool check_case(heap_t *h, term map, term list, bool order)
{
    size_t n = 0;
    for (term l = list; is_list(l); l = list_tail(l))
        n++;
    if (map_size(map) != n || is_flat(map) != (n <= MAP_SMALL_LIMIT))
        return false;
    term *keys = malloc(4 * (n + 1) * sizeof(term)), *values = keys + n + 1;
    term *ks = values + n + 1, *vs = ks + n + 1;
    CU_ASSERT_FATAL(keys != NULL);
    size_t i = 0;
    for (term l = list; is_list(l); l = list_tail(l), i++) {
        keys[i] = tuple_element(list_head(l), 1);
        values[i] = tuple_element(list_head(l), 2);
    }
    bool ok = true;
    /* maps:to_list order, or at least the same pairs. */
    if (map_pairs(map, ks, vs) != n)
        ok = false;
    for (i = 0; ok && i < n; i++) {
        if (order && (!term_eq_exact(ks[i], keys[i]) || !term_eq_exact(vs[i], values[i])))
            ok = false;
        term v = map_get(map, keys[i]);
        if (is_non_value(v) || !term_eq_exact(v, values[i]))
            ok = false;
    }
    /* Built pair by pair, and all at once from reversed pairs: the same map. */
    term built = map_new_empty(h);
    for (i = 0; ok && i < n; i++)
        built = map_put(h, built, keys[i], values[i]);
    if (ok && (!term_eq_exact(built, map) || term_compare(built, map) != 0 || term_hash(built) != term_hash(map)))
        ok = false;
    for (i = 0; i < n; i++) {
        ks[i] = keys[n - 1 - i];
        vs[i] = values[n - 1 - i];
    }
    if (ok && !term_eq_exact(map_from_pairs(h, ks, vs, n), map))
        ok = false;
    /* Taken apart key by key; halfway it equals a map of the rest. */
    term m = map;
    for (i = 0; ok && i < n; i++) {
        m = map_remove(h, m, keys[i]);
        if (map_size(m) != n - 1 - i || is_non_value(m) || is_value(map_get(m, keys[i])))
            ok = false;
        else if (is_flat(m) != (n - 1 - i <= MAP_SMALL_LIMIT))
            ok = false;
        if (ok && i == n / 2) {
            term rest = map_from_pairs(h, keys + i + 1, values + i + 1, n - 1 - i);
            if (!term_eq_exact(m, rest) || (i + 1 < n && !term_eq_exact(map_get(m, keys[i + 1]), values[i + 1])))
                ok = false;
        }
    }
    /* Removing an absent key gives the map itself. */
    if (ok && n > 0) {
        term less = map_remove(h, map, keys[0]);
        if (map_remove(h, less, keys[0]) != less)
            ok = false;
    }
    free(keys);
    return ok;
}

static void test_map_cases(void)
{
    FILE *f = fopen(test_data_path("data/map_cases.txt"), "r");
    CU_ASSERT_FATAL(f != NULL);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned cases = 0, failures = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[0] != 'M')
            continue;
        char *check = line + 2, *map_hex = strchr(check, ' ');
        CU_ASSERT_FATAL(map_hex != NULL);
        char *list_hex = strchr(map_hex + 1, ' ');
        CU_ASSERT_FATAL(list_hex != NULL);
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        term map = test_term_from_hex(&h, map_hex + 1, (size_t)(list_hex - map_hex - 1));
        term list = test_term_from_hex(&h, list_hex + 1, strlen(list_hex + 1));
        bool order = strncmp(check, "order", 5) == 0;
        if (!check_case(&h, map, list, order) && ++failures <= 10)
            fprintf(stderr, "map case %u (%s, size %zu) disagrees\n", cases, order ? "order" : "set", map_size(map));
        heap_destroy(&h);
        cases++;
    }
    free(line);
    fclose(f);
    CU_ASSERT_TRUE(cases > 100);
    CU_ASSERT_EQUAL(failures, 0);
}

/* ---- the flat / trie boundary and the basic operations ---- */

static void test_flat_and_trie(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term m = map_new_empty(&h);
    CU_ASSERT_TRUE(is_map(m) && is_flat(m) && map_size(m) == 0);
    CU_ASSERT_TRUE(is_non_value(map_get(m, make_small(1))));
    CU_ASSERT_EQUAL(map_remove(&h, m, make_small(1)), m);
    for (int64_t i = 40; i >= 1; i--) {
        m = map_put(&h, m, make_small(i), make_small(-i));
        CU_ASSERT_EQUAL(map_size(m), (size_t)(41 - i));
        CU_ASSERT_EQUAL(is_flat(m), 41 - i <= MAP_SMALL_LIMIT);
    }
    for (int64_t i = 1; i <= 40; i++)
        CU_ASSERT_EQUAL(map_get(m, make_small(i)), make_small(-i));
    /* Putting an identical value gives the same map; a new value, a new one. */
    CU_ASSERT_EQUAL(map_put(&h, m, make_small(5), make_small(-5)), m);
    term m2 = map_put(&h, m, make_small(5), make_small(5));
    CU_ASSERT_EQUAL(map_get(m2, make_small(5)), make_small(5));
    CU_ASSERT_EQUAL(map_get(m, make_small(5)), make_small(-5));
    /* 1 and 1.0 are different keys; integers come first in a flat map. */
    term f = map_new_empty(&h);
    term one_f = heap_float(&h, 1.0);
    f = map_put(&h, f, one_f, A(true));
    f = map_put(&h, f, make_small(2), A(false));
    f = map_put(&h, f, make_small(1), A(ok));
    term ks[3], vs[3];
    CU_ASSERT_EQUAL(map_pairs(f, ks, vs), 3);
    CU_ASSERT_TRUE(ks[0] == make_small(1) && ks[1] == make_small(2) && ks[2] == one_f);
    CU_ASSERT_EQUAL(map_get(f, heap_float(&h, 1.0)), A(true));
    CU_ASSERT_EQUAL(map_get(f, make_small(1)), A(ok));
    /* A later duplicate replaces an earlier one. */
    term dk[3] = {A(ok), A(error), A(ok)}, dv[3] = {make_small(1), make_small(2), make_small(3)};
    term d = map_from_pairs(&h, dk, dv, 3);
    CU_ASSERT_EQUAL(map_size(d), 2);
    CU_ASSERT_EQUAL(map_get(d, A(ok)), make_small(3));
    term many_k[40], many_v[40];
    for (int i = 0; i < 40; i++) {
        many_k[i] = make_small(i % 20);
        many_v[i] = make_small(i);
    }
    d = map_from_pairs(&h, many_k, many_v, 40);
    CU_ASSERT_TRUE(is_flat(d) && map_size(d) == 20);
    CU_ASSERT_EQUAL(map_get(d, make_small(3)), make_small(23));
    heap_destroy(&h);
}

/* Insertions, replacements and removals in a large map against an array
 * model: every node edit (a child added, replaced or taken out at any
 * slot) keeps every other pair. */
static void test_trie_edits_against_model(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    enum { KEYS = 3000 };
    static int64_t model[KEYS]; /* 0: absent, else the value */
    memset(model, 0, sizeof model);
    term m = map_new_empty(&h);
    size_t size = 0;
    uint64_t x = 88172645463325252u;
    for (int step = 0; step < 40000; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t k = (int64_t)(x % KEYS);
        if (x >> 60 < 4) {
            m = map_remove(&h, m, make_small(k));
            size -= model[k] != 0;
            model[k] = 0;
        } else {
            int64_t v = (int64_t)(x >> 40) | 1;
            m = map_put(&h, m, make_small(k), make_small(v));
            size += model[k] == 0;
            model[k] = v;
        }
        CU_ASSERT_FATAL(is_value(m));
        if (step % 4000 == 0 || step == 39999) {
            CU_ASSERT_EQUAL(map_size(m), size);
            int wrong = 0;
            for (int64_t i = 0; i < KEYS; i++) {
                term got = map_get(m, make_small(i));
                wrong += model[i] ? got != make_small(model[i]) : is_value(got);
            }
            CU_ASSERT_EQUAL(wrong, 0);
        }
    }
    heap_destroy(&h);
}

/* ---- collision nodes, reachable only under a forced hash ---- */

static uint32_t two_hashes(term key, unsigned round)
{
    (void)round;
    return (uint32_t)(small_value(key) % 2) * 0x01234567u;
}

static void test_collisions(void)
{
    map_test_set_hash(two_hashes);
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term m = map_new_empty(&h);
    size_t n = 100;
    for (size_t i = 0; i < n; i++) {
        int64_t k = (int64_t)((i * 37) % n);
        m = map_put(&h, m, make_small(k), make_small(k * 2));
        CU_ASSERT_FATAL(is_value(m));
    }
    CU_ASSERT_EQUAL(map_size(m), n);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL(map_get(m, make_small((int64_t)i)), make_small((int64_t)i * 2));
    CU_ASSERT_TRUE(is_non_value(map_get(m, make_small(1000))));
    term ks[100], vs[100];
    CU_ASSERT_EQUAL(map_pairs(m, ks, vs), n);
    term built = map_from_pairs(&h, ks, vs, n);
    CU_ASSERT_TRUE(term_eq_exact(built, m));
    CU_ASSERT_EQUAL(map_put(&h, m, make_small(4), make_small(8)), m);
    for (size_t i = 0; i < n; i++) {
        m = map_remove(&h, m, make_small((int64_t)i));
        CU_ASSERT_FATAL(is_value(m));
        CU_ASSERT_EQUAL(map_size(m), n - 1 - i);
        CU_ASSERT_TRUE(is_non_value(map_get(m, make_small((int64_t)i))));
        if (i + 1 < n)
            CU_ASSERT_EQUAL(map_get(m, make_small((int64_t)i + 1)), make_small((int64_t)i * 2 + 2));
    }
    heap_destroy(&h);
    map_test_set_hash(NULL);
}

/* ---- a capped heap: every builder reports failure, nothing breaks ---- */

static void test_heap_refuses(void)
{
    heap_t big;
    CU_ASSERT_FATAL(heap_init(&big, 0, 0));
    term keys[50], values[50];
    for (int i = 0; i < 50; i++) {
        keys[i] = make_small(i);
        values[i] = make_small(i);
    }
    term large = map_from_pairs(&big, keys, values, 50);
    term small = map_from_pairs(&big, keys, values, 10);
    for (size_t cap = 1; cap < 400; cap += 7) {
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, cap));
        /* Fill the block so the cap is what is left. */
        while (heap_alloc(&h, 1))
            ;
        CU_ASSERT_TRUE(is_non_value(map_new_empty(&h)));
        CU_ASSERT_TRUE(is_non_value(map_from_pairs(&h, keys, values, 50)));
        CU_ASSERT_TRUE(is_non_value(map_put(&h, large, make_small(100), NIL)));
        CU_ASSERT_TRUE(is_non_value(map_put(&h, small, make_small(100), NIL)));
        CU_ASSERT_TRUE(is_non_value(map_remove(&h, large, make_small(3))));
        heap_destroy(&h);
    }
    /* With room for some but not all of a build. */
    for (size_t cap = 250; cap < 2000; cap += 50) {
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, cap));
        term m = map_from_pairs(&h, keys, values, 50);
        CU_ASSERT_TRUE(is_non_value(m) || term_eq_exact(m, large));
        heap_destroy(&h);
    }
    heap_destroy(&big);
}

/* ---- the copier and the collector walk maps as plain objects ---- */

static bool same_pairs(term a, term b)
{
    term ka[200], va[200], kb[200], vb[200];
    size_t n = map_pairs(a, ka, va);
    if (n != map_pairs(b, kb, vb))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!term_eq_exact(ka[i], kb[i]) || !term_eq_exact(va[i], vb[i]))
            return false;
    return true;
}

static void test_copy_and_gc(void)
{
    heap_t a, b;
    CU_ASSERT_FATAL(heap_init(&a, 0, 0) && heap_init(&b, 0, 0));
    term keys[150], values[150];
    for (int i = 0; i < 150; i++) {
        keys[i] = i % 2 ? heap_float(&a, i / 3.0) : make_small(i);
        values[i] = heap_tuple2(&a, make_small(i), heap_float(&a, i));
    }
    term roots[3] = {map_from_pairs(&a, keys, values, 150), map_from_pairs(&a, keys, values, 20), map_new_empty(&a)};
    term copies[3];
    for (int i = 0; i < 3; i++) {
        copies[i] = copy_to_heap(&b, roots[i]);
        CU_ASSERT_FATAL(is_value(copies[i]));
        CU_ASSERT_TRUE(term_eq_exact(copies[i], roots[i]) && same_pairs(copies[i], roots[i]));
    }
    /* Garbage around the live maps, then a collection. */
    for (int i = 0; i < 1000; i++)
        map_put(&a, roots[0], make_small(i), NIL);
    struct gc_root_range range = {roots, 3};
    CU_ASSERT_EQUAL(gc_collect(&a, 0, &range, 1), HEAP_OK);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_TRUE(term_eq_exact(copies[i], roots[i]) && same_pairs(copies[i], roots[i]));
    CU_ASSERT_TRUE(term_eq_exact(map_get(roots[0], make_small(4)), map_get(copies[0], make_small(4))));
    heap_destroy(&a);
    heap_destroy(&b);
}

static CU_TestInfo tests[] = {
    {"OTP's maps and their order", test_map_cases},
    {"flat and trie maps", test_flat_and_trie},
    {"trie edits against a model", test_trie_edits_against_model},
    {"collision nodes", test_collisions},
    {"heap refuses", test_heap_refuses},
    {"copy and gc", test_copy_and_gc},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(map, tests)
