/*
 * global_fifo.c — the seeds' earlier revision: one shared FIFO run queue.
 *
 * Every runnable process waits in one queue that all workers take from, so
 * a new process is queued behind every runnable process. There is no
 * balancing and no stealing (one queue has nothing to balance); each
 * enqueue wakes an idle worker when one sleeps, starting after the
 * process's last worker so that wakeups spread round the ring.
 */
#include "policies/proc_queue.h"

static struct proc_queue *global_queue(struct sched *s) { return sched_policy_shared_data(s); }

static worker_id global_fifo_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                                     enum enqueue_reason why)
{
    (void)self;
    (void)waker;
    if (why == ENQUEUE_UNBLOCKED)
        proc_queue_push_front(global_queue(s), p); /* it runs first */
    else
        proc_queue_push_back(global_queue(s), p);
    return sched_sleeping_worker(s, sched_proc_last_worker(p));
}

static struct process *global_fifo_pick_next(struct sched *s, worker_id w)
{
    struct process *p = proc_queue_pop_front(global_queue(s));
    if (p)
        sched_proc_set_last_worker(p, w);
    return p;
}

static void global_fifo_remove(struct sched *s, struct process *p) { proc_queue_remove(global_queue(s), p); }

/* The one queue is everybody's: each worker reports its full length. */
static size_t global_fifo_queue_length(struct sched *s, worker_id w)
{
    (void)w;
    return global_queue(s)->length;
}

const struct policy_ops global_fifo_policy = {
    .name = "global_fifo",
    .summary = "one shared FIFO queue, no balancing or stealing, an idle worker woken per enqueue (earlier revision)",
    .shared_bytes = sizeof(struct proc_queue),
    .enqueue = global_fifo_enqueue,
    .pick_next = global_fifo_pick_next,
    .remove = global_fifo_remove,
    .queue_length = global_fifo_queue_length,
    .shared_queue = true,
};
