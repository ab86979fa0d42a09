/*
 * test_trace.c — --trace's rings: a full ring keeps the latest records and
 * counts the rest as dropped; on a run, one slice record per slice and one
 * steal and migration record per one counted, on the worker that counted
 * it; the JSON says how many were dropped.
 */
#include "test_main.h"

#include "app/native_workloads.h"
#include "metrics/trace.h"
#include "rt/executor.h"
#include "rt/policy.h"
#include "rt/sched_trace.h"

#include <string.h>

static void push_numbered(struct trace_ring *r, uint64_t n)
{
    struct trace_record *rec = trace_ring_push(r);
    memset(rec, 0, sizeof *rec);
    rec->pid = n;
}

static void test_ring_keeps_the_latest(void)
{
    struct trace_ring r;
    CU_ASSERT_TRUE_FATAL(trace_ring_init(&r, 4));
    CU_ASSERT_EQUAL(trace_ring_kept(&r), 0);
    CU_ASSERT_EQUAL(trace_ring_dropped(&r), 0);
    for (uint64_t n = 1; n <= 3; n++)
        push_numbered(&r, n);
    CU_ASSERT_EQUAL(trace_ring_kept(&r), 3);
    CU_ASSERT_EQUAL(trace_ring_dropped(&r), 0);
    for (uint64_t i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(trace_ring_at(&r, i)->pid, i + 1);
    push_numbered(&r, 4); /* exactly full */
    CU_ASSERT_EQUAL(trace_ring_kept(&r), 4);
    CU_ASSERT_EQUAL(trace_ring_dropped(&r), 0);
    CU_ASSERT_EQUAL(trace_ring_at(&r, 0)->pid, 1);
    for (uint64_t n = 5; n <= 10; n++)
        push_numbered(&r, n);
    CU_ASSERT_EQUAL(trace_ring_kept(&r), 4);
    CU_ASSERT_EQUAL(trace_ring_dropped(&r), 6);
    for (uint64_t i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(trace_ring_at(&r, i)->pid, 7 + i); /* 7..10, oldest first */
    trace_ring_free(&r);
}

static void test_ring_of_one(void)
{
    struct trace_ring r;
    CU_ASSERT_TRUE_FATAL(trace_ring_init(&r, 1));
    for (uint64_t n = 1; n <= 5; n++)
        push_numbered(&r, n);
    CU_ASSERT_EQUAL(trace_ring_kept(&r), 1);
    CU_ASSERT_EQUAL(trace_ring_dropped(&r), 4);
    CU_ASSERT_EQUAL(trace_ring_at(&r, 0)->pid, 5);
    trace_ring_free(&r);
}

/* Runs yield_storm on two workers with --trace's rings of `limit`. */
static struct sched *run_traced(uint64_t limit, void **ctx, const struct native_workload **workload)
{
    *workload = native_workload_find("yield_storm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(*workload);
    struct sched *s = test_sched_new(policy_find("erts"), 2, SEND_MODE_ARRIVALS, TIMER_THREAD);
    CU_ASSERT_TRUE_FATAL(sched_trace_start(s, limit, 1));
    char *args[] = {"16", "200", NULL};
    struct strbuf text = STRBUF_INIT;
    term main_pid;
    CU_ASSERT_TRUE_FATAL((*workload)->start(s, args, &main_pid, ctx, &text));
    CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
    CU_ASSERT_TRUE((*workload)->finish(*ctx, &text));
    strbuf_free(&text);
    return s;
}

static void test_every_slice_steal_and_migration_is_recorded(void)
{
    void *ctx;
    const struct native_workload *workload;
    struct sched *s = run_traced(0, &ctx, &workload);
    const struct trace_ring *rings = sched_trace_rings(s);
    const struct worker_metrics *m = sched_metrics(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rings);
    for (unsigned w = 0; w < 2; w++) {
        uint64_t kinds[TRACE_FLOW_END + 1] = {0}, reds = 0, last = 0;
        bool ordered = true;
        CU_ASSERT_EQUAL(trace_ring_dropped(&rings[w]), 0);
        for (uint64_t i = 0; i < trace_ring_kept(&rings[w]); i++) {
            const struct trace_record *r = trace_ring_at(&rings[w], i);
            kinds[r->kind]++;
            if (r->kind != TRACE_SLICE)
                continue;
            reds += r->reds;
            ordered &= r->stamp >= last;
            last = r->stamp;
        }
        CU_ASSERT(ordered); /* one writer, slices in its own order */
        CU_ASSERT_EQUAL(kinds[TRACE_SLICE], m[w].slices);
        CU_ASSERT_EQUAL(reds, m[w].reductions);
        CU_ASSERT_EQUAL(kinds[TRACE_STEAL], m[w].steals);
        CU_ASSERT_EQUAL(kinds[TRACE_MIGRATION], m[w].migrations_in);
        CU_ASSERT_EQUAL(kinds[TRACE_SLEEP], m[w].sleeps);
        CU_ASSERT_EQUAL(kinds[TRACE_WAKEUP], m[w].sleeps);
    }
    sched_destroy(s);
    workload->free_ctx(ctx);
}

static void test_a_small_limit_drops_the_oldest(void)
{
    void *ctx;
    const struct native_workload *workload;
    struct sched *s = run_traced(10, &ctx, &workload);
    const struct trace_ring *rings = sched_trace_rings(s);
    uint64_t dropped = 0;
    /* The two workers' rings, then the run-queue lock's (balance moves,
     * which a slow run may make more than ten of). */
    for (unsigned ring = 0; ring <= 2; ring++) {
        CU_ASSERT(trace_ring_kept(&rings[ring]) <= 10);
        CU_ASSERT_EQUAL(trace_ring_dropped(&rings[ring]), rings[ring].written - trace_ring_kept(&rings[ring]));
        dropped += trace_ring_dropped(&rings[ring]);
    }
    CU_ASSERT(dropped > 0); /* 16 x 200 yields: thousands of slices */
    struct strbuf json = STRBUF_INIT;
    sched_trace_write_json(s, "--native yield_storm", &json);
    char expect[64];
    snprintf(expect, sizeof expect, "\"events_dropped\":%llu", (unsigned long long)dropped);
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&json), expect));
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&json), "\"trace_limit\":10,"));
    strbuf_free(&json);
    sched_destroy(s);
    workload->free_ctx(ctx);
}

static CU_TestInfo tests[] = {
    {"a ring keeps the latest", test_ring_keeps_the_latest},
    {"a ring of one", test_ring_of_one},
    {"every slice, steal and migration is recorded", test_every_slice_steal_and_migration_is_recorded},
    {"a small limit drops the oldest", test_a_small_limit_drops_the_oldest},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(trace, tests)
