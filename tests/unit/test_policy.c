/* Policies driven by hand on an executor that is not running: where spawned
 * and woken processes go, FIFO order, balancing and stealing conditions. */
#include "metrics/metrics.h"
#include "policy_harness.h"
#include "rt/executor.h"
#include "test_main.h"

#include <stdlib.h>

static void test_erts_queues_are_fifo(void)
{
    struct sched *s = harness_sched("erts", 1);
    term pids[5];
    for (int i = 0; i < 5; i++)
        pids[i] = sched_spawn_native(s, NULL, harness_never_runs, NULL, NULL);
    for (int i = 0; i < 5; i++) {
        struct process *p = harness_pick(s, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_EQUAL(p->pid, pids[i]);
        /* A yielded process goes to the back. */
        if (i == 0)
            sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    }
    CU_ASSERT_EQUAL(harness_pick(s, 0)->pid, pids[0]);
    CU_ASSERT_PTR_NULL(harness_pick(s, 0));
    sched_destroy(s);
}

static void test_spawn_joins_the_parents_worker_queue(void)
{
    struct sched *s = harness_sched("erts", 4);
    harness_spawn_on(s, 2);
    harness_spawn_on(s, 2);
    harness_spawn_on(s, 3);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 2);
    CU_ASSERT_EQUAL(sched_queue_length(s, 3), 1);
    struct process *p = harness_pick(s, 2);
    CU_ASSERT_EQUAL(p->last_worker, 2);
    sched_policy(s)->enqueue(s, 2, NULL, p, ENQUEUE_YIELD);
    sched_destroy(s);
}

/* Runs `slices` slice ends on worker w. */
static void end_slices(struct sched *s, worker_id w, int slices)
{
    for (int i = 0; i < slices; i++)
        sched_policy(s)->tick(s, w);
}

static void test_balancing_takes_one_when_the_neighbour_holds_two_more(void)
{
    struct sched *s = harness_sched("erts", 3);
    /* Worker 0's neighbour is worker 1. One more than worker 0: no move. */
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 1);
    harness_spawn_on(s, 1);
    end_slices(s, 0, 4);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 2);
    /* Two more: exactly one moves, and only on the 4th slice. */
    harness_spawn_on(s, 1);
    end_slices(s, 0, 3);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 3);
    end_slices(s, 0, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 2);
    /* Worker 2 is not worker 0's neighbour: a long queue there is not taken. */
    for (int i = 0; i < 6; i++)
        harness_spawn_on(s, 2);
    end_slices(s, 0, 8);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 6);
    /* Worker 1's neighbour is worker 2 (6 vs 2): one process per 4 slices. */
    end_slices(s, 1, 4);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 3);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 5);
    CU_ASSERT_EQUAL(sched_metrics(s)[1].balance_taken, 1);
    sched_destroy(s);
}

static void test_stealing_takes_from_the_longest_queue_holding_two(void)
{
    struct sched *s = harness_sched("erts", 4);
    const struct policy_ops *ops = sched_policy(s);
    harness_spawn_on(s, 1);
    harness_spawn_on(s, 2);
    harness_spawn_on(s, 2);
    harness_spawn_on(s, 3);
    harness_spawn_on(s, 3);
    harness_spawn_on(s, 3);
    struct process *p = ops->find_work(s, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    atomic_store(&p->state, PROC_RUNNING);
    CU_ASSERT_EQUAL(p->last_worker, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 3), 2);
    CU_ASSERT_EQUAL(sched_metrics(s)[0].steals, 1);
    CU_ASSERT_EQUAL(sched_metrics(s)[3].stolen_from, 1);
    ops->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    /* Queues of one process each (and an awake worker) are not stolen from. */
    struct sched *t = harness_sched("erts", 3);
    harness_spawn_on(t, 1);
    harness_spawn_on(t, 2);
    CU_ASSERT_PTR_NULL(sched_policy(t)->find_work(t, 0));
    /* ... unless that worker sleeps: its only process is taken. */
    sched_test_set_sleeping(t, 2, true);
    struct process *q = sched_policy(t)->find_work(t, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    atomic_store(&q->state, PROC_RUNNING);
    CU_ASSERT_EQUAL(sched_queue_length(t, 2), 0);
    CU_ASSERT_EQUAL(sched_queue_length(t, 1), 1);
    sched_policy(t)->enqueue(t, 0, NULL, q, ENQUEUE_YIELD);
    sched_test_set_sleeping(t, 2, false);
    sched_destroy(t);
    sched_destroy(s);
}

static void test_wakeups_are_lazy(void)
{
    struct sched *s = harness_sched("erts", 3);
    const struct policy_ops *ops = sched_policy(s);
    harness_spawn_on(s, 1);
    struct process *p = harness_pick(s, 1); /* p last ran on worker 1 */
    /* Worker 1 sleeps with an empty queue: a process running on worker 0
     * that wakes p queues it on worker 0, and wakes nobody. */
    sched_test_set_sleeping(s, 1, true);
    sched_test_set_sleeping(s, 2, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, p, ENQUEUE_WAKE_BY_PROCESS), NOT_A_WORKER);
    CU_ASSERT_EQUAL(p->last_worker, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    /* A second process queued there makes two: a sleeping worker is woken
     * (to steal). */
    harness_spawn_on(s, 2);
    struct process *q = harness_pick(s, 2);
    sched_test_set_sleeping(s, 2, true);
    worker_id woken = ops->enqueue(s, 0, NULL, q, ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_TRUE(woken == 1 || woken == 2);
    /* The runtime (a timer) waking a process whose worker is busy queues it
     * for an idle worker, and wakes that one. */
    CU_ASSERT_PTR_NOT_NULL(harness_pick(s, 0));
    struct process *r = harness_pick(s, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    r->last_worker = 0; /* worker 0 is awake (busy) */
    worker_id target = ops->enqueue(s, NOT_A_WORKER, NULL, r, ENQUEUE_WAKE_BY_RUNTIME);
    CU_ASSERT_TRUE(target == 1 || target == 2);
    CU_ASSERT_EQUAL(r->last_worker, target);
    sched_test_set_sleeping(s, 1, false);
    sched_test_set_sleeping(s, 2, false);
    sched_destroy(s);
}

static void test_global_fifo_shares_one_queue(void)
{
    struct sched *s = harness_sched("global_fifo", 3);
    const struct policy_ops *ops = sched_policy(s);
    CU_ASSERT_PTR_NULL(ops->find_work);
    CU_ASSERT_PTR_NULL(ops->tick);
    harness_spawn_on(s, 2);
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 3);
    /* Any worker takes the oldest. */
    struct process *a = harness_pick(s, 1), *b = harness_pick(s, 0), *c = harness_pick(s, 2);
    CU_ASSERT_FATAL(a && b && c);
    CU_ASSERT_TRUE(pid_number(a->pid) < pid_number(b->pid) && pid_number(b->pid) < pid_number(c->pid));
    /* Each enqueue names a sleeping worker to wake. */
    sched_test_set_sleeping(s, 2, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD), 2);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, b, ENQUEUE_SPAWN), 2);
    sched_test_set_sleeping(s, 2, false);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD), NOT_A_WORKER);
    /* A new process is queued behind every runnable one. */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), a);
    ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    sched_destroy(s);
}

/* ---- erts's parameters ---- */

static void test_erts_parameters_vary_one_rule_each(void)
{
    /* balance_every: the check comes every N slices; 0 never. */
    struct sched *s = harness_sched("erts:balance_every=2", 2);
    for (int i = 0; i < 4; i++)
        harness_spawn_on(s, 1);
    end_slices(s, 0, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    end_slices(s, 0, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    sched_destroy(s);
    s = harness_sched("erts:balance_every=0", 2);
    for (int i = 0; i < 4; i++)
        harness_spawn_on(s, 1);
    end_slices(s, 0, 100);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    sched_destroy(s);
    /* steal=none: an idle worker takes nothing, even from a long queue. */
    s = harness_sched("erts:steal=none", 2);
    for (int i = 0; i < 4; i++)
        harness_spawn_on(s, 1);
    CU_ASSERT_PTR_NULL(sched_policy(s)->find_work(s, 0));
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 4);
    sched_destroy(s);
    /* wake=home: a woken process joins its own worker's queue even when
     * that worker sleeps idle, and wakes it. */
    s = harness_sched("erts:wake=home", 2);
    harness_spawn_on(s, 1);
    struct process *p = harness_pick(s, 1);
    sched_test_set_sleeping(s, 1, true);
    CU_ASSERT_EQUAL(sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_WAKE_BY_PROCESS), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    sched_test_set_sleeping(s, 1, false);
    sched_destroy(s);
}

/* ---- p2c ---- */

static void test_p2c_joins_the_shorter_of_the_queues_probed(void)
{
    /* Two workers, two probes: both queues are always probed, so each
     * placement joins the shorter, and spawns alternate. */
    struct sched *s = harness_sched("p2c:choices=2", 2);
    const struct policy_ops *ops = sched_policy(s);
    CU_ASSERT_PTR_NULL(ops->find_work); /* no stealing */
    CU_ASSERT_PTR_NULL(ops->tick);      /* no balancing */
    for (int i = 0; i < 9; i++) {
        harness_spawn_on(s, 0); /* the parent's worker does not matter */
        size_t a = sched_queue_length(s, 0), b = sched_queue_length(s, 1);
        CU_ASSERT_TRUE(a + b == (size_t)i + 1 && (a > b ? a - b : b - a) <= 1);
    }
    /* Constructed queues: 5 and 1, worker 1 running three of its four. */
    struct process *running[3];
    if (sched_queue_length(s, 0) < sched_queue_length(s, 1)) { /* 4 and 5: move one over */
        harness_take(s, 1, running, 1);
        ops->enqueue(s, 1, NULL, running[0], ENQUEUE_YIELD);
    }
    CU_ASSERT_EQUAL_FATAL(sched_queue_length(s, 0), 5);
    harness_take(s, 1, running, 3);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    /* Whoever queues, and for whatever reason, the shorter queue gets it. */
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, running[0], ENQUEUE_YIELD), 1);
    CU_ASSERT_EQUAL(ops->enqueue(s, NOT_A_WORKER, NULL, running[1], ENQUEUE_WAKE_BY_RUNTIME), 1);
    CU_ASSERT_EQUAL(running[1]->last_worker, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 3);
    /* An unblocked process goes to the front of its own worker's queue. */
    CU_ASSERT_EQUAL(ops->enqueue(s, 1, NULL, running[2], ENQUEUE_UNBLOCKED), 1);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), running[2]);
    ops->enqueue(s, 1, NULL, running[2], ENQUEUE_YIELD);
    sched_destroy(s);

    /* Probing every queue (choices >= workers) finds the shortest of all. */
    s = harness_sched("p2c:choices=4", 4);
    for (int i = 0; i < 8; i++)
        harness_spawn_on(s, 0);
    for (worker_id w = 0; w < 4; w++)
        CU_ASSERT_EQUAL(sched_queue_length(s, w), 2);
    struct process *two[2];
    harness_take(s, 2, two, 2);
    CU_ASSERT_EQUAL(sched_policy(s)->enqueue(s, 0, NULL, two[0], ENQUEUE_YIELD), 2);
    CU_ASSERT_EQUAL(sched_policy(s)->enqueue(s, 0, NULL, two[1], ENQUEUE_YIELD), 2);
    sched_destroy(s);
}

/* Max minus min queue length after n spawns on `workers` queues. */
static size_t p2c_spread(const char *spec, unsigned workers, int n)
{
    struct sched *s = harness_sched(spec, workers);
    for (int i = 0; i < n; i++)
        harness_spawn_on(s, 0);
    size_t lo = (size_t)-1, hi = 0;
    for (unsigned w = 0; w < workers; w++) {
        size_t len = sched_queue_length(s, (worker_id)w);
        lo = len < lo ? len : lo;
        hi = len > hi ? len : hi;
    }
    sched_destroy(s);
    return hi - lo;
}

static void test_p2c_two_choices_keep_queues_even(void)
{
    /* 2,000 placements on 16 queues: one random choice leaves queues far
     * apart (30 to 50 here), two keep them within a few of each other (the
     * longest exceeds the mean by ln ln n / ln 2 + O(1), the shortest falls
     * short of it by O(1): 2 to 5 here). */
    size_t one = 0, two = 0;
    for (int seed = 1; seed <= 5; seed++) {
        char spec[64];
        snprintf(spec, sizeof spec, "p2c:choices=1,seed=%d", seed);
        size_t d1 = p2c_spread(spec, 16, 2000);
        snprintf(spec, sizeof spec, "p2c:choices=2,seed=%d", seed);
        size_t d2 = p2c_spread(spec, 16, 2000);
        CU_ASSERT_TRUE(d2 <= 6);
        one += d1;
        two += d2;
    }
    CU_ASSERT_TRUE(one > 3 * two);
    /* The same seed makes the same placements. */
    CU_ASSERT_EQUAL(p2c_spread("p2c:choices=1,seed=9", 16, 500), p2c_spread("p2c:choices=1,seed=9", 16, 500));
}

/* ---- vtime ---- */

/* Runs p's slice on w as the executor does: running, then stopping with
 * `used` reductions; the caller queues it again. */
static void run_slice(struct sched *s, worker_id w, struct process *p, uint32_t used)
{
    const struct policy_ops *ops = sched_policy(s);
    ops->running(s, w, p);
    ops->stopping(s, w, p, used, STOP_YIELD);
}

static void test_vtime_runs_the_process_that_used_least(void)
{
    struct sched *s = harness_sched("vtime", 2);
    const struct policy_ops *ops = sched_policy(s);
    CU_ASSERT_TRUE(ops->shared_queue);
    struct process *p[4];
    for (int i = 0; i < 4; i++)
        harness_spawn_on(s, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 4);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 4); /* one queue for all */
    for (int i = 0; i < 4; i++)
        p[i] = harness_pick(s, i % 2);
    CU_ASSERT_EQUAL(ops->running(s, 0, p[0]), POLICY_DEFAULT_BUDGET);
    static const uint32_t used[4] = {3000, 1000, 4000, 2000};
    for (int i = 0; i < 4; i++) {
        ops->stopping(s, 0, p[i], used[i], STOP_YIELD);
        ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
    }
    /* Least used first, whichever worker asks: 1000, 2000, 3000, 4000. */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), p[1]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[3]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), p[0]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]);
    CU_ASSERT_PTR_NULL(harness_pick(s, 0));
    /* Equal virtual times run in the order they were queued. */
    for (int i = 0; i < 4; i++)
        ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    run_slice(s, 0, p[1], 1000); /* 2000, as p[3], and queued after it */
    ops->enqueue(s, 0, NULL, p[1], ENQUEUE_YIELD);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[3]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    /* remove() takes any member out (an exit signal); the rest keep order. */
    ops->enqueue(s, 0, NULL, p[1], ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, p[3], ENQUEUE_YIELD);
    ops->remove(s, p[0]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 3);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]); /* 2000, queued before p[3] this time */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[3]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]);
    for (int i = 0; i < 4; i++)
        ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_vtime_credit_is_clamped_to_one_slice(void)
{
    struct sched *s = harness_sched("vtime", 1);
    const struct policy_ops *ops = sched_policy(s);
    for (int i = 0; i < 3; i++)
        harness_spawn_on(s, 0);
    struct process *sleeper = harness_pick(s, 0), *a = harness_pick(s, 0), *b = harness_pick(s, 0);
    /* a and b have used 100,000 and 100,500 reductions; the sleeper used
     * nothing and waited meanwhile. */
    ops->stopping(s, 0, a, 100000, STOP_YIELD);
    ops->stopping(s, 0, b, 100500, STOP_YIELD);
    ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), a);
    ops->running(s, 0, a);                /* the clock: 100,000 */
    ops->stopping(s, 0, a, 0, STOP_WAIT); /* a slice costs at least one: 100,001 */
    harness_spawn_on(s, 0);               /* a new process starts at the clock, 100,000 */
    struct process *c = harness_pick(s, 0);
    ops->enqueue(s, 0, NULL, a, ENQUEUE_WAKE_BY_PROCESS);                  /* 100,001 */
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD);                            /* 100,000 */
    ops->enqueue(s, NOT_A_WORKER, NULL, sleeper, ENQUEUE_WAKE_BY_RUNTIME); /* 0, raised to 96,000 */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), sleeper);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), c);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), a);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), b);
    /* The sleeper counts from 96,000: charged 4,499 it is still before b
     * (100,500); charged 5,000 in all it is after. */
    ops->stopping(s, 0, sleeper, 4499, STOP_YIELD);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, sleeper, ENQUEUE_YIELD);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), sleeper);
    ops->stopping(s, 0, sleeper, 5000 - 4499, STOP_YIELD);
    ops->enqueue(s, 0, NULL, sleeper, ENQUEUE_YIELD);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), b);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_YIELD); /* 100,500 */
    ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD); /* 100,001 */
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD); /* 100,000 */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), c);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), a);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), b);
    /* An unblocked process runs first, whatever its time: b before a and c. */
    ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_UNBLOCKED);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), b);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), c);
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    sched_destroy(s);
    /* The slice parameter is each slice's budget. */
    s = harness_sched("vtime:slice=500", 1);
    harness_spawn_on(s, 0);
    struct process *p = harness_pick(s, 0);
    CU_ASSERT_EQUAL(sched_policy(s)->running(s, 0, p), 500);
    sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    sched_destroy(s);
}

/* Members in and out in a mixed order: the head is always a least-charged
 * queued process, against a plain scan. */
static void test_vtime_heap_order_under_churn(void)
{
    enum { N = 300 };
    struct sched *s = harness_sched("vtime:credit=1000000000", 1);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[N];
    uint64_t charged[N] = {0};
    bool queued[N] = {false};
    for (int i = 0; i < N; i++)
        harness_spawn_on(s, 0);
    for (int i = 0; i < N; i++)
        p[i] = harness_pick(s, 0);
    uint64_t x = 12345;
    for (int round = 0; round < 5000; round++) {
        test_xorshift(&x);
        int i = (int)(x % N);
        if (!queued[i]) {
            uint32_t used = 1 + (uint32_t)((x >> 20) % 5000); /* a slice costs at least one */
            ops->stopping(s, 0, p[i], used, STOP_YIELD);
            charged[i] += used;
            ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
            queued[i] = true;
        } else if (x & 1) {
            ops->remove(s, p[i]);
            queued[i] = false;
        } else {
            uint64_t least = UINT64_MAX;
            for (int j = 0; j < N; j++)
                if (queued[j] && charged[j] < least)
                    least = charged[j];
            struct process *head = ops->pick_next(s, 0);
            CU_ASSERT_PTR_NOT_NULL_FATAL(head);
            int k = 0;
            while (p[k] != head)
                k++;
            CU_ASSERT_EQUAL(charged[k], least);
            queued[k] = false;
        }
    }
    size_t still = 0;
    for (int i = 0; i < N; i++)
        still += queued[i];
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), still);
    for (int i = 0; i < N; i++)
        if (!queued[i])
            ops->enqueue(s, 0, NULL, p[i], ENQUEUE_YIELD);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), N);
    sched_destroy(s);
}

static void test_registry(void)
{
    const struct policy_ops *const *all = policy_all();
    CU_ASSERT_STRING_EQUAL(all[0]->name, "erts");
    CU_ASSERT_PTR_EQUAL(policy_find("global_fifo"), all[1]);
    CU_ASSERT_PTR_NULL(policy_find("no_such_policy"));
    for (size_t i = 0; all[i]; i++) {
        CU_ASSERT_PTR_NOT_NULL(all[i]->enqueue);
        CU_ASSERT_PTR_NOT_NULL(all[i]->pick_next);
        CU_ASSERT_PTR_NOT_NULL(all[i]->summary);
    }
}

static CU_TestInfo tests[] = {
    {"erts queues are FIFO", test_erts_queues_are_fifo},
    {"spawn joins the parent's worker queue", test_spawn_joins_the_parents_worker_queue},
    {"balancing takes one when the neighbour holds two more",
     test_balancing_takes_one_when_the_neighbour_holds_two_more},
    {"stealing takes from the longest queue holding two", test_stealing_takes_from_the_longest_queue_holding_two},
    {"wakeups are lazy", test_wakeups_are_lazy},
    {"global_fifo shares one queue", test_global_fifo_shares_one_queue},
    {"erts parameters vary one rule each", test_erts_parameters_vary_one_rule_each},
    {"p2c joins the shorter of the queues probed", test_p2c_joins_the_shorter_of_the_queues_probed},
    {"p2c: two choices keep queues even", test_p2c_two_choices_keep_queues_even},
    {"vtime runs the process that used least", test_vtime_runs_the_process_that_used_least},
    {"vtime credit is clamped to one slice", test_vtime_credit_is_clamped_to_one_slice},
    {"vtime heap order under churn", test_vtime_heap_order_under_churn},
    {"registry", test_registry},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy, tests)
