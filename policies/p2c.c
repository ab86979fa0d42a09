/*
 * p2c.c — power of two choices: placement balances, nothing else does.
 *
 * Source: M. Mitzenmacher, "The Power of Two Choices in Randomized Load
 * Balancing", IEEE TPDS 12(10), 2001; the probes as Sparrow's (Ousterhout
 * et al., SOSP 2013), d distinct queues per placement.
 *
 * Each worker has a FIFO queue. Every process queued (spawned, woken, or
 * at the end of its slice) joins the shortest of `choices` distinct
 * queues drawn at random (a tie: the first drawn), and the worker owning
 * it is woken if it sleeps. There is no stealing and no balancing: an idle
 * worker waits for a placement to pick it. With one random choice the
 * longest of n queues grows as log n / log log n; with two, as
 * log log n / log 2 + O(1). A process unblocked after a blocked builtin
 * goes to the front of its last worker's queue, since it runs first.
 *
 * Parameters: choices (queues probed per placement; 1 is plain random
 * placement, at least the worker count probes every queue) and seed (the
 * generator's seed: a run repeats its placements for a given schedule).
 * Every callback runs under the run-queue lock, so one generator serves
 * all threads. A queued process's last_worker names its queue.
 */
#include "policies/proc_queue.h"
#include "policies/random.h"

#include <stdint.h>

enum { PARAM_CHOICES, PARAM_SEED };

static const struct policy_param p2c_params[] = {
    [PARAM_CHOICES] = {"choices", POLICY_PARAM_INT, 2, 1, 8, NULL,
                       "distinct queues probed per placement; the process joins the shortest"},
    [PARAM_SEED] = {"seed", POLICY_PARAM_INT, 1, 0, 1000000000, NULL, "seed of the random draws"},
};

struct p2c_shared {
    struct policy_random random;
};

static struct proc_queue *queue_of(struct sched *s, worker_id w) { return sched_policy_worker_data(s, w); }

static bool p2c_init(struct sched *s)
{
    struct p2c_shared *sh = sched_policy_shared_data(s);
    policy_random_seed(&sh->random, sched_policy_param(s, PARAM_SEED), 0);
    return true;
}

static unsigned draw(struct sched *s, unsigned n)
{
    struct p2c_shared *sh = sched_policy_shared_data(s);
    return (unsigned)policy_random_below(&sh->random, n);
}

/* The shortest of `choices` distinct queues drawn at random. */
static worker_id choose(struct sched *s)
{
    unsigned n = sched_worker_count(s);
    unsigned d = (unsigned)sched_policy_param(s, PARAM_CHOICES);
    if (d >= n) { /* every queue: the first shortest */
        worker_id best = 0;
        for (unsigned i = 1; i < n; i++)
            if (queue_of(s, (worker_id)i)->length < queue_of(s, best)->length)
                best = (worker_id)i;
        return best;
    }
    unsigned drawn[8];
    worker_id best = NOT_A_WORKER;
    for (unsigned k = 0; k < d; k++) {
        unsigned w;
        bool again;
        do { /* distinct: d < n, so this ends */
            w = draw(s, n);
            again = false;
            for (unsigned j = 0; j < k; j++)
                again |= drawn[j] == w;
        } while (again);
        drawn[k] = w;
        if (best == NOT_A_WORKER || queue_of(s, (worker_id)w)->length < queue_of(s, best)->length)
            best = (worker_id)w;
    }
    return best;
}

static worker_id p2c_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                             enum enqueue_reason why)
{
    (void)self;
    (void)waker;
    worker_id target;
    if (why == ENQUEUE_UNBLOCKED) {
        target = sched_proc_last_worker(p);
        proc_queue_push_front(queue_of(s, target), p);
    } else {
        target = choose(s);
        proc_queue_push_back(queue_of(s, target), p);
    }
    sched_proc_set_last_worker(p, target);
    return target;
}

static struct process *p2c_pick_next(struct sched *s, worker_id w) { return proc_queue_pop_front(queue_of(s, w)); }

static void p2c_remove(struct sched *s, struct process *p)
{
    proc_queue_remove(queue_of(s, sched_proc_last_worker(p)), p);
}

static size_t p2c_queue_length(struct sched *s, worker_id w) { return queue_of(s, w)->length; }

const struct policy_ops p2c_policy = {
    .name = "p2c",
    .summary = "per-worker FIFO queues; each placement joins the shorter of two random queues; no stealing",
    .params = p2c_params,
    .param_count = sizeof p2c_params / sizeof p2c_params[0],
    .worker_bytes = sizeof(struct proc_queue),
    .shared_bytes = sizeof(struct p2c_shared),
    .init = p2c_init,
    .enqueue = p2c_enqueue,
    .pick_next = p2c_pick_next,
    .remove = p2c_remove,
    .queue_length = p2c_queue_length,
};
