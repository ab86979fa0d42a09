/* central driven by hand: one global FIFO, dispatch to idle workers' slots
 * (awake ones by the dispatcher, at most one sleeping one per enqueue,
 * which it wakes), no stealing, and the budget cut short while work
 * waits. */
#include "policy_harness.h"
#include "rt/executor.h"
#include "test_main.h"

static struct process *pick(struct sched *s, worker_id w)
{
    struct process *p = harness_pick(s, w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

static void test_central_one_worker_is_a_fifo_with_short_slices(void)
{
    struct sched *s = harness_sched("central", 1);
    const struct policy_ops *ops = sched_policy(s);
    term pids[3];
    for (int i = 0; i < 3; i++)
        pids[i] = harness_spawn_on(s, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 3);
    struct process *a = pick(s, 0);
    CU_ASSERT_EQUAL(a->pid, pids[0]);
    CU_ASSERT_EQUAL(ops->running(s, 0, a), 1000); /* two wait: short_slice */
    harness_end_slice(s, 0, a, 1000, STOP_YIELD); /* to the back */
    struct process *b = pick(s, 0), *c = pick(s, 0);
    CU_ASSERT_EQUAL(b->pid, pids[1]);
    CU_ASSERT_EQUAL(c->pid, pids[2]);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), a);
    CU_ASSERT_EQUAL(ops->running(s, 0, a), 20000); /* nothing waits: the long slice */
    ops->stopping(s, 0, a, 20000, STOP_YIELD);
    /* An unblocked process goes to the front. */
    ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_UNBLOCKED);
    CU_ASSERT_PTR_EQUAL(pick(s, 0), b);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD);
    sched_destroy(s);
    s = harness_sched("central:slice=5000,short_slice=200", 1);
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 0);
    a = pick(s, 0);
    CU_ASSERT_EQUAL(sched_policy(s)->running(s, 0, a), 200);
    sched_policy(s)->stopping(s, 0, a, 1, STOP_YIELD);
    b = pick(s, 0);
    CU_ASSERT_EQUAL(sched_policy(s)->running(s, 0, b), 5000);
    sched_policy(s)->stopping(s, 0, b, 1, STOP_YIELD);
    sched_policy(s)->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    sched_policy(s)->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_central_dispatches_to_idle_slots(void)
{
    struct sched *s = harness_sched("central", 3);
    const struct policy_ops *ops = sched_policy(s);
    CU_ASSERT_PTR_NULL(ops->find_work); /* nobody steals */
    CU_ASSERT_FALSE(ops->shared_queue);
    term pids[3];
    for (int i = 0; i < 3; i++)
        pids[i] = harness_spawn_on(s, 2);
    /* Workers 1 and 2 are idle: one process each; the third waits. */
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 1);
    struct process *a = pick(s, 1), *b = pick(s, 2);
    CU_ASSERT_EQUAL(a->pid, pids[0]);
    CU_ASSERT_EQUAL(b->pid, pids[1]);
    CU_ASSERT_PTR_NULL(harness_pick(s, 1)); /* only its slot */
    ops->running(s, 1, a);
    ops->running(s, 2, b);
    /* Both busy: new work waits in the global queue for worker 0. */
    term more = harness_spawn_on(s, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 0);
    /* Worker 1's slice ends (it waits): at worker 0's next pick the
     * dispatcher hands it the head, and runs the next itself. */
    ops->stopping(s, 1, a, 10, STOP_WAIT);
    struct process *c = pick(s, 0);
    CU_ASSERT_EQUAL(c->pid, more);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    struct process *d = pick(s, 1);
    CU_ASSERT_EQUAL(d->pid, pids[2]);
    CU_ASSERT_EQUAL(d->last_worker, 1);
    ops->running(s, 1, d);
    /* remove() finds a process in a slot and in the global queue. */
    ops->stopping(s, 2, b, 10, STOP_WAIT);
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD); /* to worker 2's slot */
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 1);
    ops->remove(s, c);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 0);
    ops->running(s, 2, b);
    ops->enqueue(s, 0, NULL, a, ENQUEUE_WAKE_BY_RUNTIME);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    ops->remove(s, a);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    ops->stopping(s, 1, d, 10, STOP_YIELD);
    ops->stopping(s, 2, b, 10, STOP_YIELD);
    ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, b, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD);
    ops->enqueue(s, 0, NULL, d, ENQUEUE_YIELD);
    sched_destroy(s);
}

/* A worker given work by the dispatcher's pick while it is awake (it may
 * be spinning for work) is kicked: the work generation it watches moves.
 * Without the kick a spinning worker found its slot only when its spin ran
 * out. */
static void test_central_kicks_an_awake_idle_worker(void)
{
    struct sched *s = harness_sched("central", 2);
    const struct policy_ops *ops = sched_policy(s);
    harness_spawn_on(s, 0);
    struct process *a = pick(s, 1);
    ops->running(s, 1, a);
    term next = harness_spawn_on(s, 1);    /* worker 1 busy: the global queue */
    ops->stopping(s, 1, a, 10, STOP_WAIT); /* idle now, and awake */
    uint64_t before = sched_test_work_generation(s);
    CU_ASSERT_PTR_NULL(harness_pick(s, 0)); /* the head goes to worker 1's slot */
    CU_ASSERT(sched_test_work_generation(s) != before);
    struct process *b = pick(s, 1);
    CU_ASSERT_EQUAL(b->pid, next);
    ops->enqueue(s, 1, NULL, a, ENQUEUE_YIELD);
    ops->enqueue(s, 1, NULL, b, ENQUEUE_YIELD);
    sched_destroy(s);
}

static void test_central_wakes_one_sleeper_per_enqueue(void)
{
    struct sched *s = harness_sched("central", 3);
    const struct policy_ops *ops = sched_policy(s);
    harness_spawn_on(s, 0);
    harness_spawn_on(s, 0);
    struct process *a = pick(s, 1), *b = pick(s, 2);
    ops->running(s, 1, a);
    ops->running(s, 2, b);
    term first = harness_spawn_on(s, 0);
    term second = harness_spawn_on(s, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    /* Both finish and sleep before worker 0 dispatches: the dispatcher's
     * pick hands nothing to sleepers, it cannot wake them. */
    ops->stopping(s, 1, a, 10, STOP_WAIT);
    ops->stopping(s, 2, b, 10, STOP_WAIT);
    sched_test_set_sleeping(s, 1, true);
    sched_test_set_sleeping(s, 2, true);
    struct process *c = pick(s, 0);
    CU_ASSERT_EQUAL(c->pid, first);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 0);
    /* The next enqueue gives the head to one sleeper and wakes it. */
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, c, a, ENQUEUE_WAKE_BY_PROCESS), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    sched_test_set_sleeping(s, 1, false); /* the executor woke it */
    struct process *d = pick(s, 1);
    CU_ASSERT_EQUAL(d->pid, second);
    ops->running(s, 1, d);
    /* The next enqueue: the head (a) to the other sleeper. */
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, b, ENQUEUE_WAKE_BY_PROCESS), 2);
    sched_test_set_sleeping(s, 2, false);
    CU_ASSERT_PTR_EQUAL(pick(s, 2), a);
    ops->running(s, 2, a);
    /* Workers 1 and 2 busy: what is queued is worker 0's to run. */
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD), 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2); /* b, c */
    ops->stopping(s, 1, d, 10, STOP_YIELD);
    ops->stopping(s, 2, a, 10, STOP_YIELD);
    ops->enqueue(s, 1, NULL, d, ENQUEUE_YIELD);
    ops->enqueue(s, 2, NULL, a, ENQUEUE_YIELD);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"one worker is a FIFO with short slices", test_central_one_worker_is_a_fifo_with_short_slices},
    {"an awake idle worker given work is kicked", test_central_kicks_an_awake_idle_worker},
    {"dispatches to idle slots", test_central_dispatches_to_idle_slots},
    {"wakes one sleeper per enqueue", test_central_wakes_one_sleeper_per_enqueue},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy_central, tests)
