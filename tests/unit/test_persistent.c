/*
 * test_persistent.c — the persistent_term table (rt/persistent.h): puts,
 * gets that copy into a heap, replacement, erase, the whole-table listing,
 * binaries' references held and dropped, retirement through ck_epoch; and
 * (the concurrent suite, run under TSan by make tsan) readers on several
 * threads racing a writer that replaces and erases what they read.
 */
#include "rt/persistent.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/compare.h"
#include "test_main.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* {Tag, N, Binary}: a boxed value with an off-heap binary (300 bytes). */
static term sample(heap_t *h, const char *tag, int64_t n)
{
    uint8_t *data;
    term bin = bin_alloc(h, 300, &data);
    memset(data, (int)n, 300);
    return heap_tuple3(h, atom_intern_cstr(tag), make_small(n), bin);
}

static void test_put_get_erase(void)
{
    size_t base = binary_live_count();
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct persistent_table t;
    CU_ASSERT_FATAL(persistent_init(&t, &epoch));
    heap_t src, dst;
    CU_ASSERT_FATAL(heap_init(&src, 0, 0));
    CU_ASSERT_FATAL(heap_init(&dst, 0, 0));

    term key = heap_tuple2(&src, atom_intern_cstr("k"), make_small(1));
    term v1 = sample(&src, "one", 1);
    term out = NIL;
    CU_ASSERT_EQUAL(persistent_get(&t, key, &dst, &out), PERSISTENT_ABSENT);
    CU_ASSERT_EQUAL(persistent_put(&t, key, v1, NULL), PERSISTENT_OK);
    /* The table holds its own copy: the source heap can go. */
    heap_destroy(&src);
    CU_ASSERT_FATAL(heap_init(&src, 0, 0));
    term key2 = heap_tuple2(&src, atom_intern_cstr("k"), make_small(1));
    CU_ASSERT_EQUAL(persistent_get(&t, key2, &dst, &out), PERSISTENT_OK);
    CU_ASSERT_TRUE(heap_contains(&dst, boxed_ptr(out)));
    CU_ASSERT_TRUE(term_eq_exact(out, sample(&src, "one", 1)));
    /* 1 and 1.0 are different keys (=:=). */
    term float_key = heap_tuple2(&src, atom_intern_cstr("k"), heap_float(&src, 1.0));
    CU_ASSERT_EQUAL(persistent_get(&t, float_key, &dst, &out), PERSISTENT_ABSENT);

    size_t count, bytes_one;
    persistent_info(&t, &count, &bytes_one);
    CU_ASSERT_EQUAL(count, 1);

    /* Replacing, then a put of an equal value, which changes nothing. */
    CU_ASSERT_EQUAL(persistent_put(&t, key2, sample(&src, "two", 2), NULL), PERSISTENT_OK);
    CU_ASSERT_EQUAL(persistent_put(&t, key2, sample(&src, "two", 2), NULL), PERSISTENT_OK);
    CU_ASSERT_EQUAL(persistent_get(&t, key2, &dst, &out), PERSISTENT_OK);
    CU_ASSERT_EQUAL(small_value(tuple_elements(out)[1]), 2);
    persistent_info(&t, &count, &bytes_one);
    CU_ASSERT_EQUAL(count, 1);

    /* Many keys: the array grows; every key still found, the listing has all. */
    for (int64_t i = 0; i < 100; i++)
        CU_ASSERT_EQUAL(persistent_put(&t, make_small(i), make_small(i * i), NULL), PERSISTENT_OK);
    persistent_info(&t, &count, &bytes_one);
    CU_ASSERT_EQUAL(count, 101);
    for (int64_t i = 0; i < 100; i++) {
        CU_ASSERT_EQUAL(persistent_get(&t, make_small(i), &dst, &out), PERSISTENT_OK);
        CU_ASSERT_EQUAL(out, make_small(i * i));
    }
    term list;
    CU_ASSERT_EQUAL(persistent_get_all(&t, &dst, &list), PERSISTENT_OK);
    size_t listed = 0;
    for (term l = list; is_list(l); l = list_tail(l)) {
        term pair = list_head(l);
        CU_ASSERT_TRUE(is_tuple(pair) && tuple_arity(pair) == 2);
        listed++;
    }
    CU_ASSERT_EQUAL(listed, 101);

    CU_ASSERT_EQUAL(persistent_erase(&t, make_small(7), NULL), PERSISTENT_OK);
    CU_ASSERT_EQUAL(persistent_erase(&t, make_small(7), NULL), PERSISTENT_ABSENT);
    CU_ASSERT_EQUAL(persistent_get(&t, make_small(7), &dst, &out), PERSISTENT_ABSENT);
    CU_ASSERT_EQUAL(persistent_get(&t, make_small(8), &dst, &out), PERSISTENT_OK);

    heap_destroy(&src);
    heap_destroy(&dst);
    /* Only the table's copy of "two"'s binary is left, and destroy drops it. */
    CU_ASSERT_EQUAL(binary_live_count(), base + 1);
    persistent_destroy(&t);
    CU_ASSERT_EQUAL(binary_live_count(), base);
}

/* Writes retire through the record: nothing is freed until a barrier, and
 * then everything is (the ASan build's leak check proves none is lost). */
static void test_epoch_retire(void)
{
    size_t base = binary_live_count();
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    ck_epoch_record_t rec;
    ck_epoch_register(&epoch, &rec, NULL);
    struct persistent_table t;
    CU_ASSERT_FATAL(persistent_init(&t, &epoch));
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term key = atom_intern_cstr("key");
    ck_epoch_begin(&rec, NULL);
    for (int64_t i = 0; i < 10; i++)
        CU_ASSERT_EQUAL(persistent_put(&t, key, sample(&h, "v", i), &rec), PERSISTENT_OK);
    ck_epoch_end(&rec, NULL);
    heap_destroy(&h);
    /* Nine replaced entries wait in the record with their binaries. */
    CU_ASSERT_EQUAL(binary_live_count(), base + 10);
    ck_epoch_barrier(&rec);
    CU_ASSERT_EQUAL(binary_live_count(), base + 1);
    CU_ASSERT_EQUAL(persistent_erase(&t, key, &rec), PERSISTENT_OK);
    ck_epoch_barrier(&rec);
    CU_ASSERT_EQUAL(binary_live_count(), base);
    persistent_destroy(&t);
    ck_epoch_unregister(&rec);
}

static CU_TestInfo tests[] = {
    {"put, get, replace, erase, list", test_put_get_erase},
    {"writes retire through the epoch", test_epoch_retire},
    CU_TEST_INFO_NULL,
};

/* ---------------------------------------------------------------------------
 * Concurrent: READERS threads get KEYS keys in a loop, each inside its epoch
 * section, while a writer replaces every key's value ROUNDS times and erases
 * and puts some back, retiring through its own record and polling. A reader
 * checks every value it sees is whole: {v, N, Binary} with N in range and
 * the binary's bytes all N's low byte. Threads count problems; the main
 * thread asserts.
 */

#define READERS 3
#define KEYS 16
#define ROUNDS 300

struct race {
    ck_epoch_t epoch;
    /* The readers' records: ck keeps a record listed after it is
     * unregistered, so it must outlive the reader's thread. */
    ck_epoch_record_t records[READERS];
    atomic_int next_record;
    struct persistent_table table;
    atomic_bool stop;
    atomic_size_t bad, seen;
};

static void *reader(void *arg)
{
    struct race *r = arg;
    ck_epoch_record_t *rec = &r->records[atomic_fetch_add(&r->next_record, 1)];
    ck_epoch_register(&r->epoch, rec, NULL);
    heap_t h;
    if (!heap_init(&h, 0, 0))
        abort();
    size_t bad = 0, seen = 0;
    while (!atomic_load(&r->stop)) {
        for (int64_t k = 0; k < KEYS; k++) {
            term v;
            ck_epoch_begin(rec, NULL);
            enum persistent_result res = persistent_get(&r->table, make_small(k), &h, &v);
            ck_epoch_end(rec, NULL);
            if (res == PERSISTENT_ABSENT)
                continue;
            if (res != PERSISTENT_OK || !is_tuple(v) || tuple_arity(v) != 3) {
                bad++;
                continue;
            }
            int64_t n = small_value(tuple_elements(v)[1]);
            const uint8_t *data;
            size_t size;
            unsigned bits;
            bin_bytes(tuple_elements(v)[2], &data, &size, &bits);
            if (n < 0 || n > ROUNDS * KEYS || size != 300 || data[0] != (uint8_t)n || data[299] != (uint8_t)n)
                bad++;
            seen++;
        }
        heap_destroy(&h); /* drops the copies and their binary references */
        if (!heap_init(&h, 0, 0))
            abort();
        /* Published each pass: the writer waits for a reader to have read. */
        atomic_fetch_add(&r->seen, seen);
        seen = 0;
    }
    heap_destroy(&h);
    atomic_fetch_add(&r->bad, bad);
    ck_epoch_unregister(rec); /* it retired nothing: no barrier needed */
    return NULL;
}

static void test_readers_race_writer(void)
{
    size_t base = binary_live_count();
    struct race *r = calloc(1, sizeof *r);
    CU_ASSERT_FATAL(r != NULL);
    ck_epoch_init(&r->epoch);
    CU_ASSERT_FATAL(persistent_init(&r->table, &r->epoch));
    ck_epoch_record_t rec;
    ck_epoch_register(&r->epoch, &rec, NULL);
    pthread_t threads[READERS];
    for (int i = 0; i < READERS; i++)
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, reader, r) == 0);
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t failed = 0;
    for (int64_t round = 0; round < ROUNDS; round++) {
        for (int64_t k = 0; k < KEYS; k++) {
            int64_t n = round * KEYS + k;
            if (persistent_put(&r->table, make_small(k), sample(&h, "v", n), &rec) != PERSISTENT_OK)
                failed++;
            if (n % 5 == 0 && persistent_erase(&r->table, make_small(k), &rec) != PERSISTENT_OK)
                failed++;
        }
        ck_epoch_poll(&rec);
        if (heap_used_words(&h) > 100000) {
            heap_destroy(&h);
            if (!heap_init(&h, 0, 0))
                abort();
        }
    }
    /* On a loaded machine the writes may all end before a reader ran: the
     * readers go on until one has read the values left (10 s at most, so a
     * reader that can never read fails the test instead of hanging it). */
    for (int waited = 0; atomic_load(&r->seen) == 0 && waited < 10000; waited++)
        usleep(1000);
    atomic_store(&r->stop, true);
    for (int i = 0; i < READERS; i++)
        pthread_join(threads[i], NULL);
    heap_destroy(&h);
    ck_epoch_barrier(&rec);
    ck_epoch_unregister(&rec);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT_EQUAL(atomic_load(&r->bad), 0);
    CU_ASSERT_TRUE(atomic_load(&r->seen) > 0);
    persistent_destroy(&r->table);
    CU_ASSERT_EQUAL(binary_live_count(), base);
    free(r);
}

static CU_TestInfo ctests[] = {
    {"readers race a writer", test_readers_race_writer},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(persistent, tests)
TEST_SUITE_CONCURRENT(persistent_concurrent, ctests)
