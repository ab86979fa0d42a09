/* The tokio policy driven by hand: the LIFO slot and its cap, the inject
 * queue's interval, overflow and batches, steal-half and its condition, and
 * the one-searcher wake rule, on queues built by hand. */
#include "metrics/metrics.h"
#include "policy_harness.h"
#include "rt/executor.h"
#include "test_main.h"

#include <stdio.h>

/* n processes spawned from outside (the inject queue) and taken by w: all
 * left running, ready to be queued again by hand. */
static void take_fresh(struct sched *s, worker_id w, struct process **out, int n)
{
    for (int i = 0; i < n; i++)
        sched_spawn_native(s, NULL, harness_never_runs, NULL, NULL);
    harness_take(s, w, out, n);
}

static void test_spawn_and_wake_go_to_the_lifo_slot(void)
{
    struct sched *s = harness_sched("tokio", 2);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[4];
    take_fresh(s, 0, p, 4);
    /* Two processes queued behind; p[0] runs on worker 0 and wakes p[2],
     * then p[3]: p[3] takes the slot, p[2] goes to the local tail. */
    harness_yield_all(s, 0, p + 1, 1);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, p[0], p[2], ENQUEUE_WAKE_BY_PROCESS), NOT_A_WORKER);
    ops->enqueue(s, 0, p[0], p[3], ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 3);
    ops->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD); /* a yield: the tail, never the slot */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[3]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]);
    /* A spawn on worker 1 fills worker 1's slot; a wake by the runtime from
     * a non-worker thread joins the inject queue (counted with worker 0). */
    harness_spawn_on(s, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    ops->enqueue(s, NOT_A_WORKER, NULL, p[0], ENQUEUE_WAKE_BY_RUNTIME);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    harness_yield_all(s, 1, p + 1, 3);
    sched_destroy(s);
}

static void test_lifo_slot_serves_at_most_three_in_a_row(void)
{
    struct sched *s = harness_sched("tokio", 1);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[7];
    take_fresh(s, 0, p, 7);
    /* Queue: p[0], p[1]. p[0] runs and wakes p[2]; each then wakes the next. */
    harness_yield_all(s, 0, p, 2);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]);
    ops->enqueue(s, 0, p[0], p[2], ENQUEUE_WAKE_BY_PROCESS);
    for (int i = 2; i <= 4; i++) {
        CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[i]); /* the slot: 1st, 2nd, 3rd time */
        ops->enqueue(s, 0, p[i], p[i + 1], ENQUEUE_WAKE_BY_PROCESS);
    }
    /* The cap is reached: p[5] went to the tail, the queue's head runs. */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    /* A pick from the queue re-enables the slot. */
    ops->enqueue(s, 0, p[1], p[6], ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[6]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[5]);
    harness_yield_all(s, 0, p, 7);
    sched_destroy(s);
    /* lifo_polls=0: no slot; wakes are FIFO. */
    s = harness_sched("tokio:lifo_polls=0", 1);
    take_fresh(s, 0, p, 3);
    sched_policy(s)->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD);
    sched_policy(s)->enqueue(s, 0, p[2], p[1], ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    harness_yield_all(s, 0, p, 3);
    sched_destroy(s);
}

static void test_inject_queue_every_global_every_ticks(void)
{
    struct sched *s = harness_sched("tokio:global_every=4", 1);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[8];
    take_fresh(s, 0, p, 8);        /* 8 picks: ticks 1..8 */
    harness_yield_all(s, 0, p, 6); /* local: p0..p5 */
    ops->enqueue(s, NOT_A_WORKER, NULL, p[6], ENQUEUE_WAKE_BY_RUNTIME);
    ops->enqueue(s, NOT_A_WORKER, NULL, p[7], ENQUEUE_WAKE_BY_RUNTIME);
    /* Ticks 9, 10, 11 take the local queue; tick 12 the inject queue. */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[6]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[3]);
    harness_yield_all(s, 0, p, 4);
    harness_yield_all(s, 0, p + 6, 1);
    sched_destroy(s);
}

static void test_overflow_and_inject_batches(void)
{
    enum { N = 12 };
    struct sched *s = harness_sched("tokio:queue=8", 2);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[N];
    take_fresh(s, 1, p, N);
    harness_yield_all(s, 1, p, 8);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 8);
    /* The 9th push: the older half and p[8] move to the inject queue. */
    ops->enqueue(s, 1, NULL, p[8], ENQUEUE_YIELD);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 4);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 5);
    /* Worker 0, empty, takes a batch: 5 / 2 workers + 1 = 3, the first run. */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2 + 2);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]);
    /* The batch is at most queue / 2. */
    harness_yield_all(s, 1, p + 9, 3);
    for (int i = 0; i < 3; i++)
        ops->enqueue(s, NOT_A_WORKER, NULL, p[i], ENQUEUE_WAKE_BY_RUNTIME);
    sched_destroy(s);
}

static void test_steal_takes_the_older_half(void)
{
    struct sched *s = harness_sched("tokio:queue=8", 2);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[10];
    take_fresh(s, 1, p, 10);
    harness_yield_all(s, 1, p, 5);
    /* ceil(5/2) = 3 taken: p[2] runs, p[0] and p[1] join the thief's queue. */
    CU_ASSERT_PTR_EQUAL(harness_find_work(s, 0), p[2]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 2);
    CU_ASSERT_EQUAL(sched_metrics(s)[0].steals, 1);
    CU_ASSERT_EQUAL(sched_metrics(s)[1].stolen_from, 1);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), p[3]);
    /* A LIFO slot is never stolen: worker 1 holds p[0] there and p[4]. */
    ops->enqueue(s, 1, p[3], p[0], ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_PTR_EQUAL(harness_find_work(s, 0), p[4]);
    CU_ASSERT_PTR_NULL(harness_find_work(s, 0));
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    /* A thief holding more than queue / 2 does not steal; at half it does. */
    harness_yield_all(s, 1, p + 5, 2);
    harness_yield_all(s, 0, p + 2, 3); /* worker 0: p1 p2 p3 p4 */
    harness_yield_all(s, 0, p + 7, 2); /* ... p7 p8: 6 > 4 */
    CU_ASSERT_PTR_NULL(harness_find_work(s, 0));
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 3);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]); /* 4 left: half */
    CU_ASSERT_PTR_EQUAL(harness_find_work(s, 0), p[5]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 4);
    CU_ASSERT_EQUAL(sched_metrics(s)[0].steals, 3);
    harness_yield_all(s, 0, p + 1, 2);
    harness_yield_all(s, 0, p + 5, 1);
    harness_yield_all(s, 0, p + 9, 1);
    sched_destroy(s);
}

/* Which victim a steal on worker 0 takes from, of three holding two each. */
static void test_steal_scan_starts_at_random(void)
{
    int chosen[4] = {0};
    for (int seed = 1; seed <= 40; seed++) {
        char spec[64];
        snprintf(spec, sizeof spec, "tokio:seed=%d", seed);
        struct sched *s = harness_sched(spec, 4);
        struct process *p[6];
        take_fresh(s, 1, p, 6);
        for (int v = 1; v <= 3; v++)
            harness_yield_all(s, v, p + 2 * (v - 1), 2);
        struct process *got = harness_find_work(s, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        for (int v = 1; v <= 3; v++)
            if (sched_queue_length(s, v) == 1)
                chosen[v]++;
        sched_policy(s)->enqueue(s, 0, NULL, got, ENQUEUE_YIELD);
        sched_destroy(s);
    }
    CU_ASSERT_EQUAL(chosen[1] + chosen[2] + chosen[3], 40);
    for (int v = 1; v <= 3; v++)
        CU_ASSERT_TRUE(chosen[v] >= 5);
}

static void test_one_searcher_at_a_time(void)
{
    struct sched *s = harness_sched("tokio", 3);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[5];
    take_fresh(s, 0, p, 5);
    sched_test_set_sleeping(s, 1, true);
    sched_test_set_sleeping(s, 2, true);
    /* Work a sleeper could take wakes one, which then searches: further
     * work wakes nobody, from a worker or from the runtime. */
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD), 1);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, p[1], ENQUEUE_YIELD), NOT_A_WORKER);
    CU_ASSERT_EQUAL(ops->enqueue(s, NOT_A_WORKER, NULL, p[2], ENQUEUE_WAKE_BY_RUNTIME), NOT_A_WORKER);
    /* The searcher finds work (a steal of half of worker 0's two): it stops
     * searching, and the next enqueue wakes the other sleeper. */
    sched_test_set_sleeping(s, 1, false);
    CU_ASSERT_PTR_EQUAL(harness_find_work(s, 1), p[0]);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, p[3], ENQUEUE_YIELD), 2);
    /* Worker 0 takes everything; the searcher finds nothing and stops too. */
    sched_test_set_sleeping(s, 2, false);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[3]);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[2]); /* the inject queue */
    CU_ASSERT_PTR_NULL(harness_find_work(s, 2));
    sched_test_set_sleeping(s, 2, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, p[4], ENQUEUE_YIELD), 2);
    sched_test_set_sleeping(s, 2, false);
    CU_ASSERT_PTR_EQUAL(harness_find_work(s, 2), p[4]);
    /* Into an empty LIFO slot nobody else could take it: nobody is woken;
     * displacing an occupant to the queue wakes a sleeper. */
    sched_test_set_sleeping(s, 2, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, p[1], p[3], ENQUEUE_WAKE_BY_PROCESS), NOT_A_WORKER);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, p[1], p[2], ENQUEUE_WAKE_BY_PROCESS), 2);
    sched_test_set_sleeping(s, 2, false);
    harness_yield_all(s, 0, p, 2);
    harness_yield_all(s, 0, p + 4, 1);
    sched_destroy(s);

    /* At most half the workers search: with worker 1 woken (searching),
     * worker 0 of 2 does not start a search, even with work to steal. */
    s = harness_sched("tokio", 2);
    ops = sched_policy(s);
    take_fresh(s, 1, p, 1);
    sched_test_set_sleeping(s, 1, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 1, NULL, p[0], ENQUEUE_YIELD), 1);
    CU_ASSERT_PTR_NULL(harness_find_work(s, 0));
    sched_test_set_sleeping(s, 1, false);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), p[0]);
    CU_ASSERT_EQUAL(ops->enqueue(s, 1, NULL, p[0], ENQUEUE_YIELD), NOT_A_WORKER);
    CU_ASSERT_PTR_EQUAL(harness_find_work(s, 0), p[0]);
    harness_yield_all(s, 0, p, 1);
    sched_destroy(s);
}

static void test_unblocked_first_and_remove_anywhere(void)
{
    struct sched *s = harness_sched("tokio", 2);
    const struct policy_ops *ops = sched_policy(s);
    struct process *p[4];
    take_fresh(s, 0, p, 4);
    for (int i = 0; i < 4; i++)
        p[i]->last_worker = 0;
    ops->enqueue(s, 0, NULL, p[2], ENQUEUE_YIELD);                      /* local */
    ops->enqueue(s, 0, p[2], p[1], ENQUEUE_WAKE_BY_PROCESS);            /* slot */
    ops->enqueue(s, 1, NULL, p[0], ENQUEUE_UNBLOCKED);                  /* worker 0's front */
    ops->enqueue(s, NOT_A_WORKER, NULL, p[3], ENQUEUE_WAKE_BY_RUNTIME); /* inject */
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 4);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 0);
    /* Only its own worker takes an unblocked process. */
    CU_ASSERT_PTR_EQUAL(harness_find_work(s, 1), p[2]);
    ops->enqueue(s, 0, NULL, p[2], ENQUEUE_YIELD);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[0]); /* before the slot */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), p[1]);
    ops->enqueue(s, 0, NULL, p[0], ENQUEUE_UNBLOCKED);
    ops->enqueue(s, 0, p[2], p[1], ENQUEUE_WAKE_BY_PROCESS);
    /* remove() finds each wherever it waits. */
    for (int i = 3; i >= 0; i--) {
        ops->remove(s, p[i]);
        CU_ASSERT_EQUAL(sched_queue_length(s, 0), (size_t)i);
    }
    CU_ASSERT_PTR_NULL(harness_pick(s, 0));
    harness_yield_all(s, 0, p, 4);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"spawn and wake go to the LIFO slot", test_spawn_and_wake_go_to_the_lifo_slot},
    {"the LIFO slot serves at most three in a row", test_lifo_slot_serves_at_most_three_in_a_row},
    {"the inject queue first every global_every ticks", test_inject_queue_every_global_every_ticks},
    {"overflow and inject batches", test_overflow_and_inject_batches},
    {"steal takes the older half", test_steal_takes_the_older_half},
    {"the steal scan starts at random", test_steal_scan_starts_at_random},
    {"one searcher at a time", test_one_searcher_at_a_time},
    {"unblocked first; remove anywhere", test_unblocked_first_and_remove_anywhere},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy_tokio, tests)
