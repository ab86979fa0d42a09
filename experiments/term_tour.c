/*
 * term_tour.c — `make run`: a short tour of the runtime's term machinery on
 * real data, with the figures a reader wants (sizes, collections, time).
 *
 * It builds terms on one process heap — a bignum factorial, a map past the
 * flat-map limit, a 1,000,000-element list, a 100,000-deep tuple and an
 * off-heap binary —, prints them as OTP's ~p would, copies them to a second
 * heap in one walk, collects both heaps and checks the copy still equals the
 * original. Each step states what it shows.
 */
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/gc.h"
#include "term/map.h"
#include "term/print.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
    fprintf(stderr, "term-tour: %s failed\n", what);
    exit(70);
}

static term checked(term t, const char *what)
{
    if (is_non_value(t))
        die(what);
    return t;
}

static void show(const char *label, term t, int depth)
{
    struct strbuf out = STRBUF_INIT;
    print_p(&out, t, 1, 80, depth);
    printf("%s\n%s\n\n", label, strbuf_cstr(&out));
    strbuf_free(&out);
}

static term factorial(heap_t *h, int n)
{
    term acc = make_small(1);
    for (int i = 2; i <= n; i++)
        if (int_mul(h, acc, make_small(i), &acc) != INT_OK)
            die("bignum multiplication");
    return acc;
}

int main(void)
{
    atom_table_init();
    heap_t a, b;
    if (!heap_init(&a, 0, 0) || !heap_init(&b, 0, 0))
        die("heap creation");

    term fact = factorial(&a, 100);
    show("factorial(100), a bignum of GMP limbs on the process heap:", fact, -1);

    enum { MAP_KEYS = 40 };
    term keys[MAP_KEYS], values[MAP_KEYS];
    for (int i = 0; i < MAP_KEYS; i++) {
        keys[i] = make_small(i * i);
        values[i] = checked(heap_tuple2(&a, atom_intern_cstr(i % 2 ? "odd" : "even"), make_small(i)), "tuple");
    }
    term map = checked(map_from_pairs(&a, keys, values, MAP_KEYS), "map");
    show("a map of 40 keys (a hash trie, past the 32-key flat map), ~P depth 8:", map, 8);

    uint8_t bytes[1000];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)('a' + i % 26);
    term big_binary = checked(bin_from_bytes(&a, bytes, sizeof bytes), "binary");

    double t0 = now_ms();
    term list = NIL;
    for (int i = 1000000; i > 0; i--)
        list = checked(heap_cons(&a, make_small(i), list), "list");
    term deep = checked(heap_tuple(&a, 0, NULL), "tuple");
    for (int i = 0; i < 100000; i++)
        deep = checked(heap_tuple2(&a, make_small(i), deep), "tuple");
    double built = now_ms() - t0;

    term everything = checked(heap_tuple(&a, 5, (term[]){fact, map, big_binary, list, deep}), "tuple");
    printf("built a 1,000,000-element list and a 100,000-deep tuple: %.1f ms, %zu words on heap A "
           "(block %zu words + fragments)\n",
           built, heap_used_words(&a), heap_block_words(&a));

    t0 = now_ms();
    size_t words = copy_size(everything);
    term copied = checked(copy_to_heap(&b, everything), "copy");
    double copy_ms = now_ms() - t0;
    printf("copied everything to heap B in one walk: %zu words, %.1f ms; the 1000-byte binary is shared, "
           "not copied (%zu off-heap binaries live)\n",
           words, copy_ms, binary_live_count());

    t0 = now_ms();
    struct gc_root_range roots_a = {&everything, 1}, roots_b = {&copied, 1};
    if (gc_collect(&a, 0, &roots_a, 1) != HEAP_OK || gc_collect(&b, 0, &roots_b, 1) != HEAP_OK)
        die("collection");
    double gc_ms = now_ms() - t0;
    printf("collected both heaps: %.1f ms; heap A now one block of %zu words holding %zu live\n", gc_ms,
           heap_block_words(&a), heap_used_words(&a));

    printf("copy =:= original after both collections: %s\n", term_eq_exact(everything, copied) ? "true" : "false");
    term small_part = checked(heap_tuple3(&b, tuple_element(copied, 1), tuple_element(copied, 3),
                                          checked(heap_float(&b, 0.1 + 0.2), "float")),
                              "tuple");
    show("\nfrom the copy, {Factorial, Binary, 0.1 + 0.2} with ~P depth 12:", small_part, 12);

    heap_destroy(&a);
    heap_destroy(&b);
    printf("heaps destroyed; off-heap binaries still live: %zu\n", binary_live_count());
    return 0;
}
