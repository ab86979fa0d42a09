/* eevdf driven by hand: placement (new, woken with lag), the eligible
 * earliest deadline, requests and budgets, stealing with renormalised
 * virtual times, and the two heaps against a plain scan. The per-process
 * block is read through a view of its leading fields (eevdf.c's ee_proc). */
#include "metrics/metrics.h"
#include "policies/pheap.h"
#include "policy_harness.h"
#include "rt/executor.h"
#include "test_main.h"

#include <stdlib.h>

struct ee_view {
    struct pheap_node node;
    int64_t v, deadline, lag;
};

static struct ee_view *view(struct process *p) { return sched_policy_proc_data(p); }

/* One slice of p on w: running (its budget returned), then stopping and,
 * for a yield, the enqueue that follows. */
static uint32_t run(struct sched *s, worker_id w, struct process *p, uint32_t used, enum stop_reason why)
{
    uint32_t budget = sched_policy(s)->running(s, w, p);
    harness_end_slice(s, w, p, used, why);
    return budget;
}

static struct process *pick(struct sched *s, worker_id w)
{
    struct process *p = harness_pick(s, w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

static void test_eevdf_new_processes_get_half_a_request(void)
{
    struct sched *s = harness_sched("eevdf", 1);
    CU_ASSERT_TRUE(sched_policy(s)->proc_bytes >= sizeof(struct ee_view));
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 0);
    struct process *a = pick(s, 0);
    CU_ASSERT_EQUAL(view(a)->v, 0);
    CU_ASSERT_EQUAL(view(a)->deadline, 2000); /* V + slice / 2 */
    CU_ASSERT_EQUAL(run(s, 0, a, 2000, STOP_YIELD), 2000);
    CU_ASSERT_EQUAL(view(a)->deadline, 6000); /* served: v + slice */
    /* A spawn now starts at V = (2000 + 0) / 2. */
    harness_spawn_on(s, 0);
    struct process *b = pick(s, 0), *c = pick(s, 0);
    CU_ASSERT_EQUAL(view(b)->v, 0);
    CU_ASSERT_EQUAL(view(c)->v, 1000);
    CU_ASSERT_EQUAL(view(c)->deadline, 3000);
    sched_policy(s)->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    sched_policy(s)->enqueue(s, 0, NULL, c, ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_eevdf_runs_the_eligible_earliest_deadline(void)
{
    struct sched *s = harness_sched("eevdf", 1);
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 0);
    struct process *a = pick(s, 0);
    run(s, 0, a, 2000, STOP_YIELD); /* a: v 2000, deadline 6000 */
    struct process *b = pick(s, 0);
    CU_ASSERT_EQUAL(run(s, 0, b, 100, STOP_YIELD), 2000); /* yielded early: deadline 2000 + 4000 */
    CU_ASSERT_EQUAL(view(b)->deadline, 6000);
    /* Equal deadlines, but a (v 2000) is not eligible at V = 1050. */
    CU_ASSERT_PTR_EQUAL(pick(s, 0), b);
    CU_ASSERT_EQUAL(run(s, 0, b, 100, STOP_YIELD), 5900); /* the rest of its request */
    CU_ASSERT_EQUAL(view(b)->deadline, 10000);
    /* a has the earlier deadline (6000 against 10000), but V = 1100 < 2000. */
    CU_ASSERT_PTR_EQUAL(pick(s, 0), b);
    run(s, 0, b, 2000, STOP_YIELD); /* v 2200 */
    /* V = 2100: a is eligible now, and its deadline is the earliest. */
    struct process *first = pick(s, 0);
    CU_ASSERT_PTR_EQUAL(first, a);
    CU_ASSERT_EQUAL(sched_policy(s)->running(s, 0, a), 4000);
    harness_end_slice(s, 0, a, 4000, STOP_YIELD);
    /* An unblocked process runs before any deadline. */
    struct process *next = pick(s, 0);
    sched_policy(s)->enqueue(s, 0, NULL, next, ENQUEUE_UNBLOCKED);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), next);
    sched_policy(s)->enqueue(s, 0, NULL, next, ENQUEUE_YIELD);
    /* remove() takes a queued process out of either heap. */
    sched_policy(s)->remove(s, a);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), b);
    CU_ASSERT_PTR_NULL(harness_pick(s, 0));
    sched_policy(s)->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    sched_policy(s)->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_eevdf_wakeup_keeps_lag(void)
{
    struct sched *s = harness_sched("eevdf", 1);
    const struct policy_ops *ops = sched_policy(s);
    for (int i = 0; i < 3; i++)
        harness_spawn_on(s, 0);
    struct process *a = pick(s, 0);
    run(s, 0, a, 6000, STOP_YIELD);
    struct process *b = pick(s, 0);
    run(s, 0, b, 6000, STOP_YIELD);
    struct process *c = pick(s, 0);
    /* c waits at v 3000 while a and b are at 6000: V = 5000, lag 2000. */
    run(s, 0, c, 3000, STOP_WAIT);
    CU_ASSERT_EQUAL(view(c)->lag, 2000);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    run(s, 0, pick(s, 0), 4000, STOP_YIELD);
    run(s, 0, pick(s, 0), 4000, STOP_YIELD); /* both at 10000 */
    /* Woken: v = V - lag * (n + 1) / n = 10000 - 3000, so that after it
     * joins, V - v = 9000 - 7000 = its lag again. */
    CU_ASSERT_EQUAL(ops->enqueue(s, NOT_A_WORKER, NULL, c, ENQUEUE_WAKE_BY_RUNTIME), NOT_A_WORKER);
    CU_ASSERT_EQUAL(view(c)->v, 7000);
    CU_ASSERT_EQUAL(view(c)->deadline, 11000);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), c);
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD);
    sched_destroy(s);

    /* The lag is clamped to two slices (update_entity_lag). */
    s = harness_sched("eevdf:slice=100", 1);
    ops = sched_policy(s);
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 0);
    a = pick(s, 0);
    run(s, 0, a, 5000, STOP_YIELD);
    b = pick(s, 0);
    run(s, 0, b, 0, STOP_WAIT); /* v 1, V 2500: lag 2499, clamped to 200 */
    CU_ASSERT_EQUAL(view(b)->lag, 200);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_EQUAL(view(b)->v, 5000 - 400);
    CU_ASSERT_EQUAL(view(b)->deadline, 4700);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), b);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_eevdf_steals_with_renormalised_time(void)
{
    struct sched *s = harness_sched("eevdf", 2);
    const struct policy_ops *ops = sched_policy(s);
    harness_spawn_on(s, 0);
    struct process *z = pick(s, 0);
    run(s, 0, z, 100000, STOP_YIELD); /* worker 0's V: 100,000 */
    for (int i = 0; i < 3; i++)
        harness_spawn_on(s, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 3);
    struct process *x = harness_find_work(s, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(x->last_worker, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 2);
    CU_ASSERT_EQUAL(sched_metrics(s)[0].steals, 1);
    /* Lag 0 on worker 1 (v = V = 0): placed at worker 0's V. */
    CU_ASSERT_EQUAL(view(x)->v, 100000);
    CU_ASSERT_EQUAL(view(x)->deadline, 104000);
    ops->enqueue(s, 0, NULL, x, ENQUEUE_YIELD);
    /* One process on an awake worker is not stolen; a sleeper's is. */
    struct process *keep[2] = {pick(s, 1), pick(s, 1)};
    ops->enqueue(s, 1, NULL, keep[0], ENQUEUE_YIELD);
    CU_ASSERT_PTR_NULL(harness_find_work(s, 0));
    sched_test_set_sleeping(s, 1, true);
    struct process *y = harness_find_work(s, 0);
    CU_ASSERT_PTR_EQUAL(y, keep[0]);
    sched_test_set_sleeping(s, 1, false);
    ops->enqueue(s, 0, NULL, y, ENQUEUE_YIELD);
    ops->enqueue(s, 1, NULL, keep[1], ENQUEUE_YIELD);
    /* Wakes: the process's worker if it sleeps, else a sleeper once two wait. */
    struct process *w = pick(s, 1);
    sched_test_set_sleeping(s, 1, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, w, ENQUEUE_WAKE_BY_PROCESS), 1);
    sched_test_set_sleeping(s, 1, false);
    sched_destroy(s);
}

/* Random slices, waits, wakes and removals on one queue: every pick is an
 * eligible process with the earliest deadline, against a plain scan. */
static void test_eevdf_heaps_match_a_scan(void)
{
    enum { N = 200 };
    struct sched *s = harness_sched("eevdf:slice=3000", 1);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[N];
    bool queued[N];
    for (int i = 0; i < N; i++)
        harness_spawn_on(s, 0);
    for (int i = 0; i < N; i++) {
        p[i] = pick(s, 0);
        ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
        queued[i] = true;
    }
    uint64_t x = 99;
    for (int round = 0; round < 20000; round++) {
        test_xorshift(&x);
        int i = (int)(x % N);
        if (!queued[i]) {
            ops->enqueue(s, NOT_A_WORKER, NULL, p[i], ENQUEUE_WAKE_BY_RUNTIME);
            queued[i] = true;
            continue;
        }
        if ((x >> 8) % 16 == 0) {
            ops->remove(s, p[i]);
            queued[i] = false; /* back by a wake, with no lag kept: at V */
            continue;
        }
        int64_t sum = 0, n = 0, best = INT64_MAX;
        for (int j = 0; j < N; j++)
            if (queued[j]) {
                sum += view(p[j])->v;
                n++;
            }
        for (int j = 0; j < N; j++)
            if (queued[j] && view(p[j])->v * n <= sum && view(p[j])->deadline < best)
                best = view(p[j])->deadline;
        struct process *head = pick(s, 0);
        CU_ASSERT_EQUAL(view(head)->deadline, best);
        CU_ASSERT_TRUE(view(head)->v * n <= sum);
        int k = 0;
        while (p[k] != head)
            k++;
        uint32_t used = (uint32_t)((x >> 20) % 5000);
        bool waits = (x >> 40) % 4 == 0;
        run(s, 0, head, used, waits ? STOP_WAIT : STOP_YIELD);
        queued[k] = !waits;
    }
    size_t still = 0;
    for (int i = 0; i < N; i++)
        still += queued[i];
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), still);
    for (int i = 0; i < N; i++)
        if (!queued[i])
            ops->enqueue(s, 0, NULL, p[i], ENQUEUE_WAKE_BY_RUNTIME);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"new processes get half a request", test_eevdf_new_processes_get_half_a_request},
    {"runs the eligible earliest deadline", test_eevdf_runs_the_eligible_earliest_deadline},
    {"a wakeup keeps its lag", test_eevdf_wakeup_keeps_lag},
    {"steals with renormalised time", test_eevdf_steals_with_renormalised_time},
    {"heaps match a scan", test_eevdf_heaps_match_a_scan},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy_eevdf, tests)
