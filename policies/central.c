/*
 * central.c — one dispatcher hands out work from one global FIFO; slices
 * are cut short while work waits.
 *
 * Sources: sched_ext's scx_central (sched-ext/scx, scheds/c/
 * scx_central.bpf.c; tools/sched_ext in Linux): one CPU makes every
 * decision, dispatching from a global FIFO to the other CPUs' local
 * queues and kicking them; they run with infinite slices, and a 1 ms
 * timer preempts a task past its 20 ms slice when tasks wait. And
 * Shinjuku (Kaffes et al., NSDI 2019): a centralized queue with
 * preemption after a short quantum, so that short requests do not wait
 * behind long ones.
 *
 * Here every process queued joins the end of one global FIFO (an
 * unblocked one, which runs first, its front). Worker 0 is the
 * dispatcher; each other worker has a one-process mailbox (its slot), and
 * takes only from it: it never steals (no find_work). A worker is idle
 * when it runs nothing (between stopping and running) and its slot is
 * empty. Dispatching gives the head of the global queue to idle workers,
 * 1 to n-1 in order. Worker 0 runs the head of the global queue itself.
 *
 * Budget (running): `slice` when the global queue is empty, `short_slice`
 * when processes wait in it. The contract cannot preempt a running slice,
 * so this is decided as the slice starts, not by a timer during it.
 *
 * How close this is to scx_central: the executor runs a worker's
 * callbacks only between its slices, and only an enqueue can wake a
 * sleeping worker (its return value, one worker). So dispatching happens
 * at two moments. (1) In worker 0's pick_next, to idle workers that are
 * awake (between slices, or spinning), each kicked (sched_kick_worker) so
 * that a spinning one looks at once: each of them calls pick_next again
 * before it may sleep, under the same lock, so it finds its slot.
 * (2) In enqueue, on the dispatcher's behalf, when work arrives: to the
 * awake idle workers and to at most one sleeping idle worker, which
 * enqueue returns to be woken (scx_central's kick). A sleeping worker's
 * slot is therefore always empty, and while worker 0 sleeps the global
 * queue stays empty (each enqueue then finds an idle worker), so nothing
 * waits for a worker that nobody will wake. The gap against scx_central:
 * a worker that goes idle while worker 0 runs a slice and no enqueue
 * follows sleeps until the next enqueue (scx_central's idle CPU kicks the
 * central one at once); the processes meanwhile run on worker 0.
 */
#include "policies/proc_queue.h"

enum { PARAM_SLICE, PARAM_SHORT_SLICE };

static const struct policy_param central_params[] = {
    [PARAM_SLICE] = {"slice", POLICY_PARAM_INT, 20000, 100, 1000000, NULL,
                     "budget when nothing waits in the global queue (scx_central: 20 ms)"},
    [PARAM_SHORT_SLICE] = {"short_slice", POLICY_PARAM_INT, 1000, 10, 1000000, NULL,
                           "budget when processes wait (Shinjuku's preemption quantum)"},
};

struct ce_worker {
    struct process *slot; /* dispatched to this worker, not yet run */
    bool busy;            /* between running and stopping */
};

struct ce_proc {
    worker_id slot_of; /* whose slot holds it, or NOT_A_WORKER: the global queue */
};

static struct proc_queue *global_queue(struct sched *s) { return sched_policy_shared_data(s); }
static struct ce_worker *worker_state(struct sched *s, worker_id w) { return sched_policy_worker_data(s, w); }
static struct ce_proc *ce(struct process *p) { return sched_policy_proc_data(p); }

static bool idle(struct sched *s, worker_id w) { return !worker_state(s, w)->busy && !worker_state(s, w)->slot; }

/* The dispatcher's pass: the head of the global queue to each idle worker
 * 1..n-1 that is awake, and to one sleeping idle worker when may_wake;
 * returns that one (the caller wakes it), or NOT_A_WORKER. An awake one is
 * kicked: one spinning for work (--busy-wait) began before its slot was
 * filled, and would otherwise find it only once its spin ran out (central
 * on threadring at 2 workers spinning 10,000 looks: 309 us a hop instead
 * of 7). */
static worker_id dispatch(struct sched *s, worker_id self, bool may_wake)
{
    struct proc_queue *global = global_queue(s);
    worker_id woken = NOT_A_WORKER;
    unsigned n = sched_worker_count(s);
    for (unsigned i = 1; i < n && global->length > 0; i++) {
        worker_id w = (worker_id)i;
        if (!idle(s, w))
            continue;
        if (sched_worker_sleeping(s, w)) {
            if (!may_wake || woken != NOT_A_WORKER)
                continue;
            woken = w;
        }
        struct process *p = proc_queue_pop_front(global);
        worker_state(s, w)->slot = p;
        ce(p)->slot_of = w;
        sched_proc_set_last_worker(p, w);
        if (w != woken)
            sched_kick_worker(s, self, w);
    }
    return woken;
}

static worker_id central_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                                 enum enqueue_reason why)
{
    (void)waker;
    if (why == ENQUEUE_UNBLOCKED)
        proc_queue_push_front(global_queue(s), p);
    else
        proc_queue_push_back(global_queue(s), p);
    ce(p)->slot_of = NOT_A_WORKER;
    worker_id woken = dispatch(s, self, true);
    if (woken != NOT_A_WORKER)
        return woken;
    /* What is left is worker 0's to run (or to dispatch). */
    return global_queue(s)->length > 0 ? 0 : NOT_A_WORKER;
}

static struct process *central_pick_next(struct sched *s, worker_id w)
{
    struct process *p;
    if (w == 0) {
        dispatch(s, w, false);
        p = proc_queue_pop_front(global_queue(s));
    } else {
        p = worker_state(s, w)->slot;
        worker_state(s, w)->slot = NULL;
    }
    if (p)
        sched_proc_set_last_worker(p, w);
    return p;
}

static uint32_t central_running(struct sched *s, worker_id w, struct process *p)
{
    (void)p;
    worker_state(s, w)->busy = true;
    return (uint32_t)sched_policy_param(s, global_queue(s)->length > 0 ? PARAM_SHORT_SLICE : PARAM_SLICE);
}

static void central_stopping(struct sched *s, worker_id w, struct process *p, uint32_t reductions, enum stop_reason why)
{
    (void)p;
    (void)reductions;
    (void)why;
    worker_state(s, w)->busy = false;
}

static void central_remove(struct sched *s, struct process *p)
{
    if (ce(p)->slot_of == NOT_A_WORKER)
        proc_queue_remove(global_queue(s), p);
    else
        worker_state(s, ce(p)->slot_of)->slot = NULL;
}

/* Worker 0 holds the global queue; the others hold their slot. */
static size_t central_queue_length(struct sched *s, worker_id w)
{
    return w == 0 ? global_queue(s)->length : worker_state(s, w)->slot != NULL;
}

const struct policy_ops central_policy = {
    .name = "central",
    .summary = "worker 0 dispatches one global FIFO to the others' one-process slots; short slices while work "
               "waits (scx_central, Shinjuku)",
    .params = central_params,
    .param_count = sizeof central_params / sizeof central_params[0],
    .worker_bytes = sizeof(struct ce_worker),
    .shared_bytes = sizeof(struct proc_queue),
    .proc_bytes = sizeof(struct ce_proc),
    .enqueue = central_enqueue,
    .pick_next = central_pick_next,
    .running = central_running,
    .stopping = central_stopping,
    .remove = central_remove,
    .queue_length = central_queue_length,
};
