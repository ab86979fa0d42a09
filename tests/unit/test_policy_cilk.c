/* The cilk policy driven by hand: LIFO deques, where spawned, woken and
 * yielded processes go, thieves taking the oldest of a random victim, the
 * patience rule against starvation, and its wakeups. */
#include "metrics/metrics.h"
#include "policy_harness.h"
#include "rt/executor.h"
#include "test_main.h"

#include <stdio.h>

/* n processes spawned on worker w and taken from it, left running. */
static void take(struct sched *s, worker_id w, struct process **out, int n)
{
    for (int i = 0; i < n; i++)
        harness_spawn_on(s, w);
    harness_take(s, w, out, n);
}

static void test_own_work_is_lifo(void)
{
    struct sched *s = harness_sched("cilk", 2);
    term pids[3];
    for (int i = 0; i < 3; i++)
        pids[i] = harness_spawn_on(s, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 3);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    /* The newest spawn runs first. */
    struct process *p[3];
    for (int i = 0; i < 3; i++) {
        p[i] = harness_pick(s, 1);
        CU_ASSERT_EQUAL(p[i]->pid, pids[2 - i]);
    }
    /* A process woken by a process joins the waker's worker (worker 0, not
     * its last worker 1); the runtime's wake joins its last worker. */
    sched_policy(s)->enqueue(s, 0, p[1], p[0], ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_EQUAL(p[0]->last_worker, 0);
    sched_policy(s)->enqueue(s, NOT_A_WORKER, NULL, p[2], ENQUEUE_WAKE_BY_RUNTIME);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    /* An unblocked process joins its last worker's tail: it runs next. */
    sched_policy(s)->enqueue(s, 0, NULL, p[1], ENQUEUE_UNBLOCKED);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), p[1]);
    harness_yield_all(s, 1, p + 1, 1);
    sched_destroy(s);
}

static void test_thief_takes_the_oldest(void)
{
    struct sched *s = harness_sched("cilk", 2);
    term pids[3];
    for (int i = 0; i < 3; i++)
        pids[i] = harness_spawn_on(s, 1);
    struct process *p = harness_find_work(s, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->pid, pids[0]);
    CU_ASSERT_EQUAL(p->last_worker, 0);
    CU_ASSERT_EQUAL(sched_metrics(s)[0].steals, 1);
    CU_ASSERT_EQUAL(sched_metrics(s)[1].stolen_from, 1);
    CU_ASSERT_EQUAL(harness_pick(s, 1)->pid, pids[2]); /* the owner still takes the newest */
    struct process *q = harness_pick(s, 1);
    CU_ASSERT_PTR_NULL(harness_find_work(s, 0)); /* nothing left to steal */
    sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    sched_policy(s)->enqueue(s, 1, NULL, q, ENQUEUE_YIELD);
    sched_destroy(s);
    /* One worker has no victim. */
    s = harness_sched("cilk", 1);
    harness_spawn_on(s, 0);
    CU_ASSERT_PTR_NULL(harness_find_work(s, 0));
    sched_destroy(s);
}

/* Victims are drawn uniformly among the other workers: four victims holding
 * one process each, one attempt per steal; over 400 seeds each is drawn
 * about 100 times, and one attempt finds the only loaded victim 1 time in 4,
 * `attempts` of them more often. */
static void test_victims_are_uniform(void)
{
    int chosen[5] = {0}, found_one = 0, found_default = 0;
    for (int seed = 1; seed <= 400; seed++) {
        char spec[64];
        snprintf(spec, sizeof spec, "cilk:attempts=1,seed=%d", seed);
        struct sched *s = harness_sched(spec, 5);
        for (worker_id v = 1; v <= 4; v++)
            harness_spawn_on(s, v);
        struct process *p = harness_find_work(s, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        for (worker_id v = 1; v <= 4; v++)
            chosen[v] += sched_queue_length(s, v) == 0;
        sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
        sched_destroy(s);
        for (int k = 0; k < 2; k++) {
            snprintf(spec, sizeof spec, k ? "cilk:seed=%d" : "cilk:attempts=1,seed=%d", seed);
            s = harness_sched(spec, 5);
            harness_spawn_on(s, 3);
            p = harness_find_work(s, 0);
            *(k ? &found_default : &found_one) += p != NULL;
            if (p)
                sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
            sched_destroy(s);
        }
    }
    double chi2 = 0;
    for (int v = 1; v <= 4; v++)
        chi2 += (chosen[v] - 100.0) * (chosen[v] - 100.0) / 100.0;
    CU_ASSERT_EQUAL(chosen[1] + chosen[2] + chosen[3] + chosen[4], 400);
    CU_ASSERT_TRUE(chi2 < 16.3); /* 3 degrees of freedom, p = 0.001 */
    CU_ASSERT_TRUE(found_one > 60 && found_one < 140);
    /* 5 attempts: 1 - (3/4)^5 = 76% */
    CU_ASSERT_TRUE(found_default > 260 && found_default < 350);
}

static void test_patience_bounds_the_wait_of_older_processes(void)
{
    struct sched *s = harness_sched("cilk:patience=3", 1);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[4];
    take(s, 0, p, 4);
    /* O = p[0] waits; A = p[1] and B = p[2] wake each other. */
    harness_yield_all(s, 0, p, 2); /* deque: O A */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    ops->enqueue(s, 0, p[1], p[2], ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]);
    ops->enqueue(s, 0, p[2], p[1], ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    ops->enqueue(s, 0, p[1], p[2], ENQUEUE_WAKE_BY_PROCESS);
    /* Three tail picks passed over O: O runs now. */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]);
    /* Yielders: each process of a deque of four runs within 4 * 4 picks,
     * though every one of them yields at once. */
    harness_yield_all(s, 0, p, 3);
    ops->enqueue(s, 0, NULL, p[3], ENQUEUE_YIELD);
    int first_run[4] = {-1, -1, -1, -1};
    for (int k = 0; k < 16; k++) {
        struct process *x = harness_pick(s, 0);
        for (int i = 0; i < 4; i++)
            if (x == p[i] && first_run[i] < 0)
                first_run[i] = k;
        ops->enqueue(s, 0, NULL, x, ENQUEUE_YIELD);
    }
    for (int i = 0; i < 4; i++)
        CU_ASSERT_TRUE(first_run[i] >= 0);
    CU_ASSERT_EQUAL(first_run[3], 0); /* the tail first (work-first) */
    CU_ASSERT_EQUAL(first_run[0], 3); /* then the oldest, after 3 tail picks */
    sched_destroy(s);
}

static void test_wakes_when_a_thief_could_take_work(void)
{
    struct sched *s = harness_sched("cilk", 3);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[3];
    take(s, 0, p, 3);
    sched_test_set_sleeping(s, 2, true);
    /* Worker 0 re-queues its own process between slices: it takes it next. */
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD), NOT_A_WORKER);
    /* A second one could be stolen: a sleeper is woken. */
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, p[1], ENQUEUE_YIELD), 2);
    CU_ASSERT_PTR_NOT_NULL(harness_pick(s, 0));
    CU_ASSERT_PTR_NOT_NULL(harness_pick(s, 0));
    /* A spawn by a process running on worker 0 can be stolen at once. */
    harness_spawn_on(s, 0);
    sched_test_set_sleeping(s, 2, true); /* the spawn woke it: asleep again */
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, p[2], p[0], ENQUEUE_WAKE_BY_PROCESS), 2);
    /* Work for a sleeping worker wakes that worker. */
    sched_test_set_sleeping(s, 1, true);
    p[1]->last_worker = 1;
    CU_ASSERT_EQUAL(ops->enqueue(s, NOT_A_WORKER, NULL, p[1], ENQUEUE_WAKE_BY_RUNTIME), 1);
    /* remove() finds each in its deque. */
    ops->remove(s, p[1]);
    ops->remove(s, p[0]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 0);
    sched_test_set_sleeping(s, 1, false);
    sched_test_set_sleeping(s, 2, false);
    harness_yield_all(s, 0, p, 3);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"own work is LIFO; where woken processes go", test_own_work_is_lifo},
    {"a thief takes the oldest", test_thief_takes_the_oldest},
    {"victims are uniform", test_victims_are_uniform},
    {"patience bounds the wait of older processes", test_patience_bounds_the_wait_of_older_processes},
    {"wakes when a thief could take work", test_wakes_when_a_thief_could_take_work},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy_cilk, tests)
