/* lavd driven by hand: wait and wake frequencies, latency criticality and
 * its inheritance from the waker, virtual deadlines on the logical clock,
 * and slices from the target latency. The per-process block is read
 * through a view of its fields (lavd.c's lv_proc). */
#include "policies/pheap.h"
#include "policy_harness.h"
#include "rt/executor.h"
#include "test_main.h"

struct lv_view {
    struct pheap_node node; /* key: the virtual deadline */
    uint32_t wait_freq, wake_freq, avg_runtime, acc_runtime;
    uint32_t last_wait, last_wake;
    uint16_t lat_cri, lat_cri_waker;
};

static struct lv_view *view(struct process *p) { return sched_policy_proc_data(p); }

static struct process *pick(struct sched *s, worker_id w)
{
    struct process *p = harness_pick(s, w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

static void test_lavd_new_process_deadline(void)
{
    struct sched *s = harness_sched("lavd", 1);
    CU_ASSERT_TRUE(sched_policy(s)->proc_bytes >= sizeof(struct lv_view));
    CU_ASSERT_TRUE(sched_policy(s)->shared_queue);
    harness_spawn_on(s, 0);
    struct process *p = pick(s, 0);
    /* wait_ft = wake_ft = 1; runtime_ft = (1,000,000 - 4,000) / 500 = 1992;
     * weight_ft = 101: lat_cri = (0 + log2(1992 * 101) = 17)^2. */
    CU_ASSERT_EQUAL(view(p)->lat_cri, 289);
    CU_ASSERT_EQUAL(view(p)->avg_runtime, 4000);
    /* Deadline: clock 0 + (4000 + 0) * 1024 / 289. */
    CU_ASSERT_EQUAL(view(p)->node.key, 14173);
    sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_lavd_frequencies_criticality_and_order(void)
{
    struct sched *s = harness_sched("lavd", 1);
    const struct policy_ops *ops = sched_policy(s);
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 0);
    struct process *p = pick(s, 0); /* queued: 2; the logical clock moves 14173 / 2 */
    ops->running(s, 0, p);
    ops->stopping(s, 0, p, 100, STOP_WAIT); /* global clock 100 */
    /* One wait 100 reductions after the last: 1,000,000 / 100 = 10,000,
     * a quarter of it in the average. */
    CU_ASSERT_EQUAL(view(p)->wait_freq, 2500);
    CU_ASSERT_EQUAL(view(p)->avg_runtime, 4000 - 1000 + 25);
    CU_ASSERT_EQUAL(view(p)->acc_runtime, 0);
    struct process *q = pick(s, 0), *c = pick(s, 0);
    ops->running(s, 0, q);
    /* q wakes p: q's wake interval (100) counts as slice_min (500). */
    ops->enqueue(s, 0, q, p, ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_EQUAL(view(q)->wake_freq, 500);
    CU_ASSERT_EQUAL(view(p)->lat_cri_waker, 289);
    /* p: log2(2501 * 1) = 11; runtime_ft = 996,975 / 500 = 1993, woken:
     * weight_ft 12901, log2(1993 * 12901) = 24: (11 + 24)^2. */
    CU_ASSERT_EQUAL(view(p)->lat_cri, 1225);
    CU_ASSERT_EQUAL(view(p)->node.key, 14173 + 4096000 / 1225); /* q's slice moved the clock to 14173 */
    /* c ran 8000 reductions without waiting, and is queued now: a later
     * deadline ((4000 + 4000) * 1024 / 289), so p runs first. */
    ops->running(s, 0, c);
    ops->stopping(s, 0, c, 8000, STOP_YIELD);
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD);
    CU_ASSERT_EQUAL(view(c)->lat_cri, 289);
    CU_ASSERT_TRUE(view(c)->node.key > view(p)->node.key);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), p);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), c);
    /* A waker more critical than the wakee lends it 1/8 of the gap. */
    ops->stopping(s, 0, q, 10, STOP_YIELD);
    ops->enqueue(s, NOT_A_WORKER, NULL, c, ENQUEUE_WAKE_BY_RUNTIME);
    unsigned own = view(c)->lat_cri;
    CU_ASSERT_TRUE(own < 1225);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), c);
    ops->enqueue(s, 0, p, c, ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_EQUAL(view(c)->lat_cri_waker, 1225);
    CU_ASSERT_EQUAL(view(c)->lat_cri, own + ((1225 - own) >> 3));
    ops->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, q, ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_lavd_logical_clock_and_slices(void)
{
    struct sched *s = harness_sched("lavd", 2);
    const struct policy_ops *ops = sched_policy(s);
    for (int i = 0; i < 4; i++)
        harness_spawn_on(s, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 4); /* one queue for all */
    struct process *a = pick(s, 1);
    /* Slice: 8000 * 2 workers / (3 queued + 1) = 4000, a quarter for a
     * process that never ran. */
    CU_ASSERT_EQUAL(ops->running(s, 1, a), 1000);
    /* The clock moved a third of the way to a's deadline: a spawn now
     * has its deadline from there. */
    harness_spawn_on(s, 0);
    struct process *b = pick(s, 0), *c = pick(s, 0), *d = pick(s, 0), *e = pick(s, 0);
    CU_ASSERT_EQUAL(view(e)->node.key, 14173 / 3 + 14173);
    ops->stopping(s, 1, a, 1000, STOP_YIELD);
    ops->enqueue(s, 1, NULL, a, ENQUEUE_YIELD);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), a);
    CU_ASSERT_EQUAL(ops->running(s, 0, a), 4000); /* 16000 / 1, at most slice_max */
    struct process *more[40];
    for (int i = 0; i < 40; i++)
        harness_spawn_on(s, 1);
    CU_ASSERT_EQUAL(ops->running(s, 0, a), 500); /* 16000 / 41, at least slice_min */
    ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    for (int i = 0; i < 40; i++)
        more[i] = pick(s, 1);
    /* An unblocked process runs first; remove() takes any out. */
    ops->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, c, ENQUEUE_UNBLOCKED);
    ops->remove(s, a);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    CU_ASSERT_PTR_EQUAL(pick(s, 1), c);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), b);
    /* Each enqueue names a sleeping worker. */
    sched_test_set_sleeping(s, 1, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD), 1);
    sched_test_set_sleeping(s, 1, false);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, b, ENQUEUE_YIELD), NOT_A_WORKER);
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, d, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, e, ENQUEUE_YIELD);
    for (int i = 0; i < 40; i++)
        ops->enqueue(s, 0, NULL, more[i], ENQUEUE_YIELD);
    sched_destroy(s);
    /* The parameters set the target and the bounds. */
    s = harness_sched("lavd:target_latency=100000,slice_max=9000", 2);
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 0);
    a = pick(s, 0);
    ops = sched_policy(s);
    CU_ASSERT_EQUAL(ops->running(s, 0, a), 9000 / 4);
    CU_ASSERT_EQUAL(ops->running(s, 0, a), 9000);
    ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"new process deadline", test_lavd_new_process_deadline},
    {"frequencies, criticality and order", test_lavd_frequencies_criticality_and_order},
    {"logical clock and slices", test_lavd_logical_clock_and_slices},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy_lavd, tests)
