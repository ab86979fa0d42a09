/*
 * erts.c — the default policy: the current seed's ERTS-style design.
 *
 * Each worker has a FIFO run queue. A spawned process joins the end of its
 * parent's worker queue; a process whose slice ended joins the end of its
 * own worker's queue. Every 4 slices a worker compares its queue with its
 * neighbour's (the next worker round the ring) and takes one process when
 * the neighbour holds at least two more. A worker with an empty queue steals
 * one process from the longest queue holding at least two, or else the only
 * process of a sleeping worker, and runs it at once.
 *
 * Wakeups are lazy, as ERTS keeps processes that talk to each other on one
 * worker: a running process that wakes a process whose worker sleeps with an
 * empty queue queues it on its own worker instead; another worker is woken
 * only when a queue then holds more than one process (it will steal). The
 * runtime (timer and I/O threads, workers between slices) queues a process
 * for its own worker, or for an idle one when its own one is busy.
 *
 * A queued process's last_worker always names the worker whose queue holds
 * it, so remove() finds it in constant time.
 *
 * Parameters (their defaults are the seed's rules, so `erts` alone is the
 * seed): balance_every (slices between two balance checks, 0: never),
 * steal (longest: the rule above; none: an idle worker never steals) and
 * wake (lazy: the rule above; home: a woken process always joins its own
 * last worker's queue, as ERTS's select_enqueue_run_queue does).
 */
#include "policies/proc_queue.h"

enum { PARAM_BALANCE_EVERY, PARAM_STEAL, PARAM_WAKE };
enum { STEAL_LONGEST, STEAL_NONE };
enum { WAKE_LAZY, WAKE_HOME };

static const char *const steal_choices[] = {"longest", "none", NULL};
static const char *const wake_choices[] = {"lazy", "home", NULL};

static const struct policy_param erts_params[] = {
    [PARAM_BALANCE_EVERY] = {"balance_every", POLICY_PARAM_INT, 4, 0, 1000000000, NULL,
                             "slices between a worker's balance checks with its neighbour (0: never)"},
    [PARAM_STEAL] = {"steal", POLICY_PARAM_CHOICE, STEAL_LONGEST, 0, 0, steal_choices,
                     "what an idle worker takes: the head of the longest queue (or a sleeper's one), or nothing"},
    [PARAM_WAKE] = {"wake", POLICY_PARAM_CHOICE, WAKE_LAZY, 0, 0, wake_choices,
                    "a process woken by a process: to the waker's worker when its own sleeps idle, or home"},
};

struct erts_worker {
    struct proc_queue queue;
    unsigned slices_since_balance; /* since its last balance check (a count, not a division a slice) */
};

static struct erts_worker *worker_state(struct sched *s, worker_id w) { return sched_policy_worker_data(s, w); }

static void push(struct sched *s, worker_id w, struct process *p)
{
    proc_queue_push_back(&worker_state(s, w)->queue, p);
    sched_proc_set_last_worker(p, w);
}

static worker_id erts_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                              enum enqueue_reason why)
{
    (void)waker;
    worker_id home = sched_proc_last_worker(p);
    worker_id target = home;
    switch (why) {
    case ENQUEUE_SPAWN:
        break;
    case ENQUEUE_YIELD:
        target = self;
        break;
    case ENQUEUE_WAKE_BY_PROCESS:
        if (sched_policy_param(s, PARAM_WAKE) == WAKE_LAZY && self != NOT_A_WORKER && sched_worker_sleeping(s, home) &&
            worker_state(s, home)->queue.length == 0)
            target = self;
        break;
    case ENQUEUE_WAKE_BY_RUNTIME:
        if (!sched_worker_sleeping(s, home)) {
            worker_id idle = sched_sleeping_worker(s, home);
            if (idle != NOT_A_WORKER)
                target = idle;
        }
        break;
    case ENQUEUE_UNBLOCKED:
        break;
    }
    if (why == ENQUEUE_UNBLOCKED) {
        proc_queue_push_front(&worker_state(s, target)->queue, p); /* it runs first */
        sched_proc_set_last_worker(p, target);
    } else {
        push(s, target, p);
    }
    if (sched_worker_sleeping(s, target))
        return target;
    if (worker_state(s, target)->queue.length > 1)
        return sched_sleeping_worker(s, target);
    return NOT_A_WORKER;
}

static struct process *erts_pick_next(struct sched *s, worker_id w)
{
    return proc_queue_pop_front(&worker_state(s, w)->queue);
}

/* Steals for w: the head of the longest queue holding at least two (the
 * process that has waited longest there), else the only process of a
 * sleeping worker, which w runs before that worker wakes. */
static struct process *erts_find_work(struct sched *s, worker_id w)
{
    if (sched_policy_param(s, PARAM_STEAL) == STEAL_NONE)
        return NULL;
    unsigned n = sched_worker_count(s);
    worker_id victim = NOT_A_WORKER;
    size_t longest = 1;
    for (unsigned i = 0; i < n; i++) {
        size_t len = worker_state(s, (worker_id)i)->queue.length;
        if ((worker_id)i != w && len > longest) {
            longest = len;
            victim = (worker_id)i;
        }
    }
    if (victim == NOT_A_WORKER) {
        for (unsigned i = 0; i < n && victim == NOT_A_WORKER; i++)
            if ((worker_id)i != w && sched_worker_sleeping(s, (worker_id)i) &&
                worker_state(s, (worker_id)i)->queue.length == 1)
                victim = (worker_id)i;
    }
    if (victim == NOT_A_WORKER)
        return NULL;
    struct process *p = proc_queue_pop_front(&worker_state(s, victim)->queue);
    sched_proc_set_last_worker(p, w);
    sched_count_steal(s, w, victim);
    return p;
}

/* After every slice (tick_reductions 0), every balance_every slices: take
 * one process from the neighbour when it holds at least two more. The one
 * taken is the neighbour's last (it would wait longest there); it joins
 * the end of w's queue. */
static void erts_tick(struct sched *s, worker_id w)
{
    struct erts_worker *me = worker_state(s, w);
    unsigned every = (unsigned)sched_policy_param(s, PARAM_BALANCE_EVERY);
    if (every == 0 || ++me->slices_since_balance < every)
        return;
    me->slices_since_balance = 0;
    unsigned n = sched_worker_count(s);
    if (n < 2)
        return;
    worker_id neighbour = (worker_id)(((unsigned)w + 1) % n);
    struct erts_worker *other = worker_state(s, neighbour);
    if (other->queue.length >= me->queue.length + 2) {
        push(s, w, proc_queue_pop_back(&other->queue));
        sched_count_balance_move(s, w, neighbour);
    }
}

static void erts_remove(struct sched *s, struct process *p)
{
    proc_queue_remove(&worker_state(s, sched_proc_last_worker(p))->queue, p);
}

static size_t erts_queue_length(struct sched *s, worker_id w) { return worker_state(s, w)->queue.length; }

const struct policy_ops erts_policy = {
    .name = "erts",
    .summary = "per-worker FIFO queues, balancing every 4 slices, stealing, lazy wakeups (the current seed; default)",
    .params = erts_params,
    .param_count = sizeof erts_params / sizeof erts_params[0],
    .worker_bytes = sizeof(struct erts_worker),
    .enqueue = erts_enqueue,
    .pick_next = erts_pick_next,
    .find_work = erts_find_work,
    .tick = erts_tick,
    .remove = erts_remove,
    .queue_length = erts_queue_length,
};
