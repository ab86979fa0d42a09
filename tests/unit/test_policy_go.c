/* The go policy (Go's proc.go) driven by hand: runnext and its inherited
 * slice, the ring's overflow to the global queue, the global queue every
 * global_every schedticks, steal-half in random order, and where yields,
 * unblocked processes and the runtime's wakeups go. */
#include "metrics/metrics.h"
#include "policy_harness.h"
#include "rt/executor.h"
#include "test_main.h"

/* w picks (NULL-safe) and starts the slice: running's budget in *budget. */
static struct process *pick_run(struct sched *s, worker_id w, uint32_t *budget)
{
    struct process *p = harness_pick(s, w);
    if (p) {
        uint32_t b = sched_policy(s)->running(s, w, p);
        if (budget)
            *budget = b;
    }
    return p;
}

/* Puts every process of `all` back in a queue, for sched_destroy. */
static void requeue(struct sched *s, struct process **all, int n)
{
    for (int i = 0; i < n; i++)
        sched_policy(s)->enqueue(s, 0, NULL, all[i], ENQUEUE_YIELD);
}

static void test_go_runnext_inherits_the_wakers_slice(void)
{
    struct sched *s = harness_sched("go", 2);
    const struct policy_ops *ops = sched_policy(s);
    harness_spawn_on(s, 0); /* runnext */
    harness_spawn_on(s, 0); /* runnext; the first to the ring's tail */
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    struct process *b = harness_pick(s, 0), *a = harness_pick(s, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_TRUE(pid_number(a->pid) < pid_number(b->pid));
    /* b, running on worker 0 with 1,500 reductions left, wakes a: a takes
     * runnext and the rest of b's slice, without a schedtick. */
    struct process waker = {0};
    waker.reds_left = 1500;
    sched_test_set_sleeping(s, 1, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, &waker, a, ENQUEUE_WAKE_BY_PROCESS), NOT_A_WORKER); /* nothing to steal */
    uint32_t budget;
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, &budget), a);
    CU_ASSERT_EQUAL(budget, 1500);
    /* A waker with nothing left: a full slice. */
    waker.reds_left = -20;
    ops->enqueue(s, 0, &waker, a, ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, &budget), a);
    CU_ASSERT_EQUAL(budget, 0);
    /* Kicked from runnext to the ring, it loses the inherited slice; the
     * kick makes work a sleeper could steal, so worker 1 is woken. */
    waker.reds_left = 900;
    ops->enqueue(s, 0, &waker, a, ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, &waker, b, ENQUEUE_WAKE_BY_PROCESS), 1);
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, &budget), b);
    CU_ASSERT_EQUAL(budget, 900);
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, &budget), a);
    CU_ASSERT_EQUAL(budget, 0);
    sched_test_set_sleeping(s, 1, false);
    struct process *all[] = {a, b};
    requeue(s, all, 2);
    sched_destroy(s);
}

static void test_go_full_ring_moves_half_to_the_global_queue(void)
{
    struct sched *s = harness_sched("go:ring=4,global_every=1000", 1);
    term pid[6];
    for (int i = 0; i < 6; i++)
        pid[i] = harness_spawn_on(s, 0);
    /* Five spawns: ring 1..4, runnext 5. The sixth kicks 5 into a full
     * ring: its older half (1, 2) and 5 go to the global queue. */
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 6); /* ring 3, 4, runnext 6, and 1, 2, 5 in the global queue */
    /* schedtick 0: the global queue first (one), then runnext, the ring,
     * and a batch from the global queue. */
    static const int order[6] = {0, 5, 2, 3, 1, 4};
    struct process *p[6];
    for (int i = 0; i < 6; i++) {
        p[i] = pick_run(s, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p[i]);
        CU_ASSERT_EQUAL(p[i]->pid, pid[order[i]]);
    }
    CU_ASSERT_PTR_NULL(harness_pick(s, 0));
    requeue(s, p, 6);
    sched_destroy(s);
}

static void test_go_global_queue_every_global_every_ticks(void)
{
    struct sched *s = harness_sched("go:global_every=3", 1);
    const struct policy_ops *ops = sched_policy(s);
    for (int i = 0; i < 5; i++)
        harness_spawn_on(s, 0);
    struct process *p[5];
    for (int i = 0; i < 5; i++)
        p[i] = harness_pick(s, 0);
    ops->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD); /* preempted: the global queue */
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);  /* worker 0 reports the global queue */
    for (int i = 1; i < 5; i++)
        ops->enqueue(s, 0, NULL, p[i], ENQUEUE_SPAWN); /* runnext, then the ring */
    /* Ticks 0, 1, 2 (each running counts one), 3: the global one at 0 and 3. */
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, NULL), p[0]);
    ops->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD);
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, NULL), p[4]);
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, NULL), p[1]);
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, NULL), p[0]);
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, NULL), p[2]);
    CU_ASSERT_PTR_EQUAL(pick_run(s, 0, NULL), p[3]);
    requeue(s, p, 5);
    sched_destroy(s);
}

static void test_go_steals_the_older_half(void)
{
    struct sched *s = harness_sched("go:seed=3", 4);
    for (int i = 0; i < 6; i++)
        harness_spawn_on(s, 2); /* ring 1..5, runnext 6 */
    struct process *p = harness_find_work(s, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    /* Half of five, rounded up: 1, 2, 3; 3 runs, 1 and 2 join worker 0's ring. */
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 3);
    CU_ASSERT_EQUAL(p->last_worker, 0);
    CU_ASSERT_EQUAL(sched_metrics(s)[2].stolen_from, 1);
    struct process *q = pick_run(s, 0, NULL), *r = pick_run(s, 0, NULL);
    CU_ASSERT_TRUE(pid_number(q->pid) < pid_number(r->pid) && pid_number(r->pid) < pid_number(p->pid));
    struct process *all[] = {p, q, r};
    requeue(s, all, 3);
    sched_destroy(s);

    /* runnext is taken only on the last pass, and from a sleeping worker. */
    s = harness_sched("go", 2);
    harness_spawn_on(s, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    CU_ASSERT_PTR_NULL(harness_find_work(s, 0));
    sched_test_set_sleeping(s, 1, true);
    p = harness_find_work(s, 0);
    CU_ASSERT_PTR_NOT_NULL(p);
    sched_test_set_sleeping(s, 1, false);
    requeue(s, &p, 1);
    sched_destroy(s);
}

/* The worker a thief on worker 0 of 8 steals from, under `seed`. */
static worker_id victim_under(int seed)
{
    char spec[64];
    snprintf(spec, sizeof spec, "go:seed=%d", seed);
    struct sched *s = harness_sched(spec, 8);
    for (worker_id w = 1; w < 8; w++) {
        harness_spawn_on(s, w);
        harness_spawn_on(s, w); /* one in the ring, one in runnext */
    }
    struct process *p = harness_find_work(s, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    worker_id victim = NOT_A_WORKER;
    for (worker_id w = 1; w < 8; w++)
        if (sched_metrics(s)[w].stolen_from)
            victim = w;
    requeue(s, &p, 1);
    sched_destroy(s);
    return victim;
}

static void test_go_steal_order_is_random_and_seeded(void)
{
    bool seen[8] = {false};
    int distinct = 0;
    for (int seed = 1; seed <= 12; seed++) {
        worker_id v = victim_under(seed);
        CU_ASSERT_TRUE(v >= 1 && v < 8);
        distinct += !seen[v];
        seen[v] = true;
    }
    CU_ASSERT_TRUE(distinct >= 3);
    CU_ASSERT_EQUAL(victim_under(5), victim_under(5));
}

static void test_go_yield_unblocked_and_runtime_wakeups(void)
{
    struct sched *s = harness_sched("go", 2);
    const struct policy_ops *ops = sched_policy(s);
    for (int i = 0; i < 3; i++)
        harness_spawn_on(s, 0);
    struct process *a = harness_pick(s, 0), *b = harness_pick(s, 0), *c = harness_pick(s, 0);
    /* The timer thread's wakeup: the global queue, which any worker takes;
     * a sleeper is woken for it. */
    sched_test_set_sleeping(s, 1, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, NOT_A_WORKER, NULL, a, ENQUEUE_WAKE_BY_RUNTIME), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1); /* the global queue, counted once */
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), a);
    sched_test_set_sleeping(s, 1, false);
    /* A worker's own timers: its runnext. */
    CU_ASSERT_EQUAL(ops->enqueue(s, 1, NULL, a, ENQUEUE_WAKE_BY_RUNTIME), NOT_A_WORKER);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    /* Unblocked: runnext of its last worker, the occupant to the ring's head. */
    ops->enqueue(s, 1, NULL, b, ENQUEUE_SPAWN); /* runnext b, a to the ring */
    c->last_worker = 1;
    ops->enqueue(s, 0, NULL, c, ENQUEUE_UNBLOCKED);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), c);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), b);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 1), a);
    struct process *three[] = {a, b, c};
    requeue(s, three, 3);
    sched_destroy(s);
    /* yield=local: the tail of its own worker's ring, behind runnext. */
    s = harness_sched("go:yield=local", 1);
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 0);
    a = harness_pick(s, 0);
    sched_policy(s)->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    harness_spawn_on(s, 0);
    b = harness_pick(s, 0);
    CU_ASSERT_PTR_NOT_EQUAL(b, a);
    c = harness_pick(s, 0);
    CU_ASSERT_PTR_NOT_EQUAL(c, a);
    CU_ASSERT_PTR_EQUAL(harness_pick(s, 0), a);
    struct process *all[] = {a, b, c};
    requeue(s, all, 3);
    sched_destroy(s);
}

static void test_go_remove_finds_every_place(void)
{
    struct sched *s = harness_sched("go", 1);
    const struct policy_ops *ops = sched_policy(s);
    for (int i = 0; i < 3; i++)
        harness_spawn_on(s, 0);
    struct process *p[3];
    for (int i = 0; i < 3; i++)
        p[i] = harness_pick(s, 0);
    ops->enqueue(s, 0, NULL, p[0], ENQUEUE_YIELD); /* global */
    ops->enqueue(s, 0, NULL, p[1], ENQUEUE_SPAWN); /* runnext, then the ring */
    ops->enqueue(s, 0, NULL, p[2], ENQUEUE_SPAWN); /* runnext */
    ops->remove(s, p[1]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    ops->remove(s, p[2]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    ops->remove(s, p[0]);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    CU_ASSERT_PTR_NULL(harness_pick(s, 0));
    requeue(s, p, 3);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"go: runnext inherits the waker's slice", test_go_runnext_inherits_the_wakers_slice},
    {"go: a full ring moves half to the global queue", test_go_full_ring_moves_half_to_the_global_queue},
    {"go: the global queue every global_every ticks", test_go_global_queue_every_global_every_ticks},
    {"go: steals the older half", test_go_steals_the_older_half},
    {"go: steal order is random and seeded", test_go_steal_order_is_random_and_seeded},
    {"go: yield, unblocked and runtime wakeups", test_go_yield_unblocked_and_runtime_wakeups},
    {"go: remove finds every place", test_go_remove_finds_every_place},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy_go, tests)
