/* Policies driven by hand on an executor that is not running: where spawned
 * and woken processes go, FIFO order, balancing and stealing conditions. */
#include "metrics/metrics.h"
#include "rt/executor.h"
#include "test_main.h"

#include <stdlib.h>

static enum body_stop never_runs(struct process *p, void *state)
{
    (void)p;
    (void)state;
    return BODY_EXIT;
}

/* An executor under `spec`, a policy with its parameters as --policy
 * takes them ("p2c:choices=2,seed=3"). */
static struct sched *make_sched(const char *spec, unsigned workers)
{
    const struct policy_ops *ops = NULL;
    long long params[POLICY_MAX_PARAMS];
    char error_text[256];
    CU_ASSERT_FATAL(policy_parse(spec, &ops, params, error_text, sizeof error_text));
    struct sched_config config = {
        workers, ops, NULL, 0, SEND_MODE_ARRIVALS, TIMER_THREAD, test_lock_kind(), params, test_busy_wait()};
    const char *error = NULL;
    struct sched *s = sched_create(&config, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    return s;
}

/* A stand-in parent: only its worker matters to spawn. */
static struct process fake_parent_on(worker_id w)
{
    struct process parent = {0};
    parent.last_worker = w;
    return parent;
}

static void spawn_on(struct sched *s, worker_id w)
{
    struct process parent = fake_parent_on(w);
    CU_ASSERT_FATAL(is_value(sched_spawn_native(s, &parent, never_runs, NULL, NULL)));
}

/* Takes the next process as a worker does: it is running until queued again
 * (so that sched_destroy does not look for it in a queue). */
static struct process *pick(struct sched *s, worker_id w)
{
    struct process *p = sched_policy(s)->pick_next(s, w);
    if (p)
        atomic_store(&p->state, PROC_RUNNING);
    return p;
}

static void test_erts_queues_are_fifo(void)
{
    struct sched *s = make_sched("erts", 1);
    term pids[5];
    for (int i = 0; i < 5; i++)
        pids[i] = sched_spawn_native(s, NULL, never_runs, NULL, NULL);
    for (int i = 0; i < 5; i++) {
        struct process *p = pick(s, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_EQUAL(p->pid, pids[i]);
        /* A yielded process goes to the back. */
        if (i == 0)
            sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    }
    CU_ASSERT_EQUAL(pick(s, 0)->pid, pids[0]);
    CU_ASSERT_PTR_NULL(pick(s, 0));
    sched_destroy(s);
}

static void test_spawn_joins_the_parents_worker_queue(void)
{
    struct sched *s = make_sched("erts", 4);
    spawn_on(s, 2);
    spawn_on(s, 2);
    spawn_on(s, 3);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 2), 2);
    CU_ASSERT_EQUAL(sched_queue_length(s, 3), 1);
    struct process *p = pick(s, 2);
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
    struct sched *s = make_sched("erts", 3);
    /* Worker 0's neighbour is worker 1. One more than worker 0: no move. */
    spawn_on(s, 0);
    spawn_on(s, 1);
    spawn_on(s, 1);
    end_slices(s, 0, 4);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 2);
    /* Two more: exactly one moves, and only on the 4th slice. */
    spawn_on(s, 1);
    end_slices(s, 0, 3);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 3);
    end_slices(s, 0, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 2);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 2);
    /* Worker 2 is not worker 0's neighbour: a long queue there is not taken. */
    for (int i = 0; i < 6; i++)
        spawn_on(s, 2);
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
    struct sched *s = make_sched("erts", 4);
    const struct policy_ops *ops = sched_policy(s);
    spawn_on(s, 1);
    spawn_on(s, 2);
    spawn_on(s, 2);
    spawn_on(s, 3);
    spawn_on(s, 3);
    spawn_on(s, 3);
    struct process *p = ops->find_work(s, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    atomic_store(&p->state, PROC_RUNNING);
    CU_ASSERT_EQUAL(p->last_worker, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 3), 2);
    CU_ASSERT_EQUAL(sched_metrics(s)[0].steals, 1);
    CU_ASSERT_EQUAL(sched_metrics(s)[3].stolen_from, 1);
    ops->enqueue(s, 0, NULL, p, ENQUEUE_YIELD);
    /* Queues of one process each (and an awake worker) are not stolen from. */
    struct sched *t = make_sched("erts", 3);
    spawn_on(t, 1);
    spawn_on(t, 2);
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
    struct sched *s = make_sched("erts", 3);
    const struct policy_ops *ops = sched_policy(s);
    spawn_on(s, 1);
    struct process *p = pick(s, 1); /* p last ran on worker 1 */
    /* Worker 1 sleeps with an empty queue: a process running on worker 0
     * that wakes p queues it on worker 0, and wakes nobody. */
    sched_test_set_sleeping(s, 1, true);
    sched_test_set_sleeping(s, 2, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, p, ENQUEUE_WAKE_BY_PROCESS), NOT_A_WORKER);
    CU_ASSERT_EQUAL(p->last_worker, 0);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    /* A second process queued there makes two: a sleeping worker is woken
     * (to steal). */
    spawn_on(s, 2);
    struct process *q = pick(s, 2);
    sched_test_set_sleeping(s, 2, true);
    worker_id woken = ops->enqueue(s, 0, NULL, q, ENQUEUE_WAKE_BY_PROCESS);
    CU_ASSERT_TRUE(woken == 1 || woken == 2);
    /* The runtime (a timer) waking a process whose worker is busy queues it
     * for an idle worker, and wakes that one. */
    CU_ASSERT_PTR_NOT_NULL(pick(s, 0));
    struct process *r = pick(s, 0);
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
    struct sched *s = make_sched("global_fifo", 3);
    const struct policy_ops *ops = sched_policy(s);
    CU_ASSERT_PTR_NULL(ops->find_work);
    CU_ASSERT_PTR_NULL(ops->tick);
    spawn_on(s, 2);
    spawn_on(s, 0);
    spawn_on(s, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 3);
    /* Any worker takes the oldest. */
    struct process *a = pick(s, 1), *b = pick(s, 0), *c = pick(s, 2);
    CU_ASSERT_FATAL(a && b && c);
    CU_ASSERT_TRUE(pid_number(a->pid) < pid_number(b->pid) && pid_number(b->pid) < pid_number(c->pid));
    /* Each enqueue names a sleeping worker to wake. */
    sched_test_set_sleeping(s, 2, true);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD), 2);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, b, ENQUEUE_SPAWN), 2);
    sched_test_set_sleeping(s, 2, false);
    CU_ASSERT_EQUAL(ops->enqueue(s, 0, NULL, c, ENQUEUE_YIELD), NOT_A_WORKER);
    /* A new process is queued behind every runnable one. */
    CU_ASSERT_PTR_EQUAL(pick(s, 0), a);
    ops->enqueue(s, 0, NULL, a, ENQUEUE_YIELD);
    sched_destroy(s);
}

/* ---- erts's parameters ---- */

static void test_erts_parameters_vary_one_rule_each(void)
{
    /* balance_every: the check comes every N slices; 0 never. */
    struct sched *s = make_sched("erts:balance_every=2", 2);
    for (int i = 0; i < 4; i++)
        spawn_on(s, 1);
    end_slices(s, 0, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    end_slices(s, 0, 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 1);
    sched_destroy(s);
    s = make_sched("erts:balance_every=0", 2);
    for (int i = 0; i < 4; i++)
        spawn_on(s, 1);
    end_slices(s, 0, 100);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    sched_destroy(s);
    /* steal=none: an idle worker takes nothing, even from a long queue. */
    s = make_sched("erts:steal=none", 2);
    for (int i = 0; i < 4; i++)
        spawn_on(s, 1);
    CU_ASSERT_PTR_NULL(sched_policy(s)->find_work(s, 0));
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 4);
    sched_destroy(s);
    /* wake=home: a woken process joins its own worker's queue even when
     * that worker sleeps idle, and wakes it. */
    s = make_sched("erts:wake=home", 2);
    spawn_on(s, 1);
    struct process *p = pick(s, 1);
    sched_test_set_sleeping(s, 1, true);
    CU_ASSERT_EQUAL(sched_policy(s)->enqueue(s, 0, NULL, p, ENQUEUE_WAKE_BY_PROCESS), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 1), 1);
    CU_ASSERT_EQUAL(sched_queue_length(s, 0), 0);
    sched_test_set_sleeping(s, 1, false);
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
    {"registry", test_registry},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(policy, tests)
