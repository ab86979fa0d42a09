/* The context pool: contexts carved from aligned chunks, each cursor's
 * first chunk faulted in as it is carved and the later ones whole at once,
 * released contexts handed out again, empty chunks unmapped, and threads
 * taking and giving at once (concurrent suite: `make tsan`). */
#include "rt/context_pool.h"
#include "test_main.h"
#include "test_support.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define OBJECT 3000 /* rounded up to 3008 */

static void test_carving_and_chunks(void)
{
    struct context_pool pool;
    CU_ASSERT_FATAL(context_pool_init(&pool, OBJECT));
    CU_ASSERT_EQUAL(pool.object_bytes, 3008);
    struct pool_cursor cursor = {0};
    size_t per_chunk = CONTEXT_POOL_CHUNK_BYTES / pool.object_bytes;
    char *first = context_pool_take(&pool, &cursor), *previous = first;
    CU_ASSERT_FATAL(first != NULL);
    CU_ASSERT_EQUAL((uintptr_t)first % CONTEXT_POOL_CHUNK_BYTES, 0); /* a chunk is aligned to its size */
    /* The first chunk is faulted in as it is carved: its end, but for the
     * last page (the chunk's bookkeeping), is not yet. */
    uintptr_t first_end = (uintptr_t)first + CONTEXT_POOL_CHUNK_BYTES;
    CU_ASSERT_EQUAL(test_resident_pages(first_end - 16 * 4096, first_end - 4096), 0);
    memset(first, 0xab, OBJECT);
    for (size_t i = 1; i < per_chunk; i++) {
        char *c = context_pool_take(&pool, &cursor);
        CU_ASSERT_PTR_EQUAL(c, previous + pool.object_bytes);
        memset(c, 0xab, OBJECT);
        previous = c;
    }
    CU_ASSERT_EQUAL(pool.chunk_count, 1);
    char *second = context_pool_take(&pool, &cursor); /* the chunk is used up */
    CU_ASSERT_FATAL(second != NULL);
    CU_ASSERT_EQUAL(pool.chunk_count, 2);
    CU_ASSERT_EQUAL((uintptr_t)second % CONTEXT_POOL_CHUNK_BYTES, 0);
    /* The second is resident whole before a context of it is touched. */
    CU_ASSERT_EQUAL(test_resident_pages((uintptr_t)second, (uintptr_t)second + CONTEXT_POOL_CHUNK_BYTES),
                    CONTEXT_POOL_CHUNK_BYTES / 4096);
    memset(second, 0xcd, OBJECT);
    /* A released context is the next one a thread without a cursor gets,
     * and so is the next one of a cursor whose chunk is used up. */
    context_pool_give(&pool, first);
    CU_ASSERT_PTR_EQUAL(context_pool_take(&pool, NULL), first);
    struct pool_cursor used_up = {previous + pool.object_bytes, previous + pool.object_bytes, 1};
    context_pool_give(&pool, previous);
    CU_ASSERT_PTR_EQUAL(context_pool_take(&pool, &used_up), previous);
    /* With none released, a thread without a cursor gets a chunk of its own. */
    char *host = context_pool_take(&pool, NULL);
    CU_ASSERT_EQUAL(pool.chunk_count, 3);
    CU_ASSERT_EQUAL((uintptr_t)host % CONTEXT_POOL_CHUNK_BYTES, 0);
    context_pool_destroy(&pool);
    CU_ASSERT_EQUAL(pool.chunk_count, 0);
}

/* A chunk whose contexts have all come back stays mapped for the hold
 * time, then goes, oldest first, while another chunk's worth of free
 * contexts remains (looked at when a chunk empties and every 64 gives
 * meanwhile); takes go to the chunks with free contexts first. */
static void test_empty_chunks_go_back(void)
{
    struct context_pool pool;
    CU_ASSERT_FATAL(context_pool_init(&pool, OBJECT));
    CU_ASSERT_EQUAL(pool.empty_hold_ns, CONTEXT_POOL_EMPTY_HOLD_NS);
    struct context_pool too_big;
    CU_ASSERT_FALSE(context_pool_init(&too_big, CONTEXT_POOL_CHUNK_BYTES - 63)); /* no room for the bookkeeping */
    struct pool_cursor cursor = {0};
    size_t per_chunk = (CONTEXT_POOL_CHUNK_BYTES - 64) / pool.object_bytes, n = 3 * per_chunk;
    char **held = malloc(n * sizeof *held);
    CU_ASSERT_FATAL(held != NULL);
    for (size_t i = 0; i < n; i++) {
        held[i] = context_pool_take(&pool, &cursor);
        CU_ASSERT_FATAL(held[i] != NULL);
        memset(held[i], 0x5a, OBJECT);
    }
    CU_ASSERT_EQUAL(pool.chunk_count, 3);
    /* The first two chunks' contexts back: empty, but not for a second. */
    for (size_t i = 0; i < 2 * per_chunk; i++)
        context_pool_give(&pool, held[i]);
    CU_ASSERT_EQUAL(pool.chunk_count, 3);
    CU_ASSERT_EQUAL(pool.chunks_returned, 0);
    CU_ASSERT_EQUAL(pool.released, 2 * per_chunk);
    /* A take (the cursor's chunk used up) reuses the latest emptied. */
    char *again = context_pool_take(&pool, &cursor);
    CU_ASSERT((uintptr_t)again - (uintptr_t)held[per_chunk] < CONTEXT_POOL_CHUNK_BYTES);
    context_pool_give(&pool, again);
    /* With no hold: gives that empty no chunk look at the empty ones every
     * so often, and return the oldest, another chunk's worth remaining. */
    pool.empty_hold_ns = 0;
    size_t i = 2 * per_chunk;
    for (; i < 2 * per_chunk + 64; i++)
        context_pool_give(&pool, held[i]);
    CU_ASSERT_EQUAL(pool.chunk_count, 2);
    CU_ASSERT_EQUAL(pool.chunks_returned, 1);
    /* The third emptied returns the second, keeping the last. */
    for (; i < n; i++)
        context_pool_give(&pool, held[i]);
    CU_ASSERT_EQUAL(pool.chunk_count, 1);
    CU_ASSERT_EQUAL(pool.chunks_returned, 2);
    CU_ASSERT_EQUAL(pool.released, per_chunk);
    unsigned char resident;
    CU_ASSERT_EQUAL(mincore(held[0], 4096, &resident), -1); /* unmapped */
    CU_ASSERT_EQUAL(errno, ENOMEM);
    CU_ASSERT_EQUAL(mincore(held[per_chunk], 4096, &resident), -1);
    CU_ASSERT_EQUAL(mincore(held[2 * per_chunk], 4096, &resident), 0);
    again = context_pool_take(&pool, &cursor);
    CU_ASSERT((uintptr_t)again - (uintptr_t)held[2 * per_chunk] < CONTEXT_POOL_CHUNK_BYTES);
    CU_ASSERT_EQUAL(pool.chunk_count, 1);
    context_pool_destroy(&pool);
    free(held);
}

/* Batches: a take of n carves the cursor's chunk first and goes on in its
 * next one, or reuses released contexts; a give of n puts them back as n
 * gives would, its emptied chunks returned with the same rules. */
static void test_batches(void)
{
    struct context_pool pool;
    CU_ASSERT_FATAL(context_pool_init(&pool, OBJECT));
    struct pool_cursor cursor = {0};
    size_t per_chunk = (CONTEXT_POOL_CHUNK_BYTES - 64) / pool.object_bytes, n = per_chunk + 5;
    void **held = malloc(3 * per_chunk * sizeof *held);
    CU_ASSERT_FATAL(held != NULL);
    CU_ASSERT_EQUAL_FATAL(context_pool_take_some(&pool, &cursor, held, n), n);
    CU_ASSERT_EQUAL(pool.chunk_count, 2);
    for (size_t i = 1; i < per_chunk; i++)
        CU_ASSERT_PTR_EQUAL(held[i], (char *)held[i - 1] + pool.object_bytes);
    CU_ASSERT_EQUAL((uintptr_t)held[per_chunk] % CONTEXT_POOL_CHUNK_BYTES, 0); /* the next chunk's first */
    for (size_t i = 0; i < n; i++)
        memset(held[i], 0x3c, OBJECT);
    /* The first chunk's contexts back in one give: empty, held an hour. */
    context_pool_give_some(&pool, held, per_chunk);
    CU_ASSERT_EQUAL(pool.released, per_chunk);
    CU_ASSERT_PTR_EQUAL(pool.empty_head, pool.empty_tail);
    CU_ASSERT_PTR_NOT_NULL(pool.empty_head);
    CU_ASSERT_EQUAL(pool.chunk_count, 2);
    /* A take without a cursor gets released ones, latest given first. */
    void *three[3];
    CU_ASSERT_EQUAL_FATAL(context_pool_take_some(&pool, NULL, three, 3), 3);
    CU_ASSERT_PTR_EQUAL(three[0], held[per_chunk - 1]);
    CU_ASSERT_PTR_EQUAL(three[2], held[per_chunk - 3]);
    CU_ASSERT_EQUAL(pool.released, per_chunk - 3);
    CU_ASSERT_PTR_NULL(pool.empty_head); /* no longer empty */
    context_pool_give_some(&pool, three, 3);
    CU_ASSERT_PTR_NOT_NULL(pool.empty_head);
    /* Fill the second chunk, then give it all back with no hold: it empties
     * while another chunk's worth is free, so the older empty one goes. */
    size_t rest = per_chunk - 5;
    CU_ASSERT_EQUAL_FATAL(context_pool_take_some(&pool, &cursor, held + n, rest), rest);
    CU_ASSERT_EQUAL(pool.chunk_count, 2);
    pool.empty_hold_ns = 0;
    context_pool_give_some(&pool, held + per_chunk, per_chunk);
    CU_ASSERT_EQUAL(pool.chunks_returned, 1);
    CU_ASSERT_EQUAL(pool.chunk_count, 1);
    CU_ASSERT_EQUAL(pool.released, per_chunk);
    unsigned char resident;
    CU_ASSERT_EQUAL(mincore(held[0], 4096, &resident), -1);
    CU_ASSERT_EQUAL(mincore(held[per_chunk], 4096, &resident), 0);
    context_pool_destroy(&pool);
    free(held);
}

/* The pool publishes when its oldest empty chunk may go, if another
 * chunk's worth of free contexts would remain; context_pool_release_stale
 * unmaps at that time what a give would, not before. */
static void test_stale_release_when_idle(void)
{
    struct context_pool pool;
    CU_ASSERT_FATAL(context_pool_init(&pool, OBJECT));
    CU_ASSERT_EQUAL(context_pool_due_ns(&pool), UINT64_MAX);
    struct pool_cursor cursor = {0};
    size_t per_chunk = (CONTEXT_POOL_CHUNK_BYTES - 64) / pool.object_bytes, n = 3 * per_chunk;
    void **held = malloc(n * sizeof *held);
    CU_ASSERT_FATAL(held != NULL);
    CU_ASSERT_EQUAL_FATAL(context_pool_take_some(&pool, &cursor, held, n), n);
    /* The first chunk empty alone: kept (no other chunk's worth free). */
    uint64_t before = heap_clock_ns();
    context_pool_give_some(&pool, held, per_chunk);
    CU_ASSERT_EQUAL(context_pool_due_ns(&pool), UINT64_MAX);
    CU_ASSERT_EQUAL(context_pool_release_stale(&pool, UINT64_MAX / 2), 0);
    /* The second empty too: the first may go a hold after it emptied. */
    context_pool_give_some(&pool, held + per_chunk, per_chunk);
    uint64_t due = context_pool_due_ns(&pool);
    CU_ASSERT(due >= before + CONTEXT_POOL_EMPTY_HOLD_NS && due <= heap_clock_ns() + CONTEXT_POOL_EMPTY_HOLD_NS);
    CU_ASSERT_EQUAL(context_pool_release_stale(&pool, due - 1), 0);
    CU_ASSERT_EQUAL(pool.chunk_count, 3);
    CU_ASSERT_EQUAL(context_pool_release_stale(&pool, due), 1);
    CU_ASSERT_EQUAL(pool.chunk_count, 2);
    CU_ASSERT_EQUAL(pool.chunks_returned, 1);
    unsigned char resident;
    CU_ASSERT_EQUAL(mincore(held[0], 4096, &resident), -1); /* unmapped */
    /* The second is the last chunk's worth free: nothing more is due. */
    CU_ASSERT_EQUAL(context_pool_due_ns(&pool), UINT64_MAX);
    CU_ASSERT_EQUAL(context_pool_release_stale(&pool, UINT64_MAX / 2), 0);
    /* A take from it makes it partial, its give empties it again. */
    void *again = context_pool_take(&pool, &cursor);
    CU_ASSERT((uintptr_t)again - (uintptr_t)held[per_chunk] < CONTEXT_POOL_CHUNK_BYTES);
    context_pool_give(&pool, again);
    CU_ASSERT_EQUAL(context_pool_due_ns(&pool), UINT64_MAX);
    context_pool_destroy(&pool);
    free(held);
}

struct churn {
    struct context_pool *pool;
    unsigned char mark;
    bool intact;
};

/* Takes contexts, marks them, checks the marks, gives them back: two of
 * these at once must never hold the same context. */
static void *churn(void *arg)
{
    struct churn *c = arg;
    struct pool_cursor cursor = {0};
    char *held[64];
    for (int round = 0; round < 2000; round++) {
        int n = 1 + round % 64;
        bool batch = round % 4 == 0;
        if (batch && context_pool_take_some(c->pool, &cursor, (void **)held, (size_t)n) != (size_t)n)
            return c->intact = false, NULL;
        for (int i = 0; i < n; i++) {
            if (!batch && !(held[i] = context_pool_take(c->pool, round % 3 ? &cursor : NULL)))
                return c->intact = false, NULL;
            memset(held[i] + 16, c->mark, 256);
        }
        for (int i = 0; i < n; i++) {
            for (int k = 16; k < 16 + 256; k++)
                if ((unsigned char)held[i][k] != c->mark)
                    c->intact = false;
            if (!batch)
                context_pool_give(c->pool, held[i]);
        }
        if (batch)
            context_pool_give_some(c->pool, (void *const *)held, (size_t)n);
    }
    return NULL;
}

static void test_threads_take_and_give(void)
{
    struct context_pool pool;
    CU_ASSERT_FATAL(context_pool_init(&pool, OBJECT));
    struct churn a = {&pool, 0x11, true}, b = {&pool, 0x22, true};
    pthread_t ta, tb;
    CU_ASSERT_FATAL(pthread_create(&ta, NULL, churn, &a) == 0);
    CU_ASSERT_FATAL(pthread_create(&tb, NULL, churn, &b) == 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CU_ASSERT_TRUE(a.intact);
    CU_ASSERT_TRUE(b.intact);
    context_pool_destroy(&pool);
}

static CU_TestInfo tests[] = {
    {"contexts are carved from aligned chunks, the second faulted in whole", test_carving_and_chunks},
    {"a chunk whose contexts all came back is unmapped after the hold time", test_empty_chunks_go_back},
    {"contexts taken and given in batches", test_batches},
    {"an idle pool's stale chunks go at the published time", test_stale_release_when_idle},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(context_pool, tests)

static CU_TestInfo concurrent_tests[] = {
    {"threads take and give contexts at once", test_threads_take_and_give},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(context_pool_threads, concurrent_tests)
