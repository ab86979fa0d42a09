/*
 * cilk.c — work-first with randomized work stealing (Cilk-5).
 *
 * Source: M. Frigo, C. E. Leiserson, K. H. Randall, "The Implementation of
 * the Cilk-5 Multithreaded Language", PLDI 1998 (the work-first principle;
 * the THE protocol: the worker pushes and pops at its deque's tail, thieves
 * take from the head); R. D. Blumofe, C. E. Leiserson, "Scheduling
 * Multithreaded Computations by Work Stealing", JACM 46(5), 1999 (victims
 * chosen uniformly at random; a frame suspended at a sync resumes on the
 * worker that returns its last child).
 *
 * Each worker has a deque. A worker takes its own work LIFO, from the tail;
 * a thief takes the OLDEST process, the head, of a victim drawn uniformly at
 * random among the other workers, trying `attempts` victims per find_work.
 * What joins the tail, so runs next on that worker:
 * - a spawned process, on its parent's worker. In Cilk the parent suspends
 *   at spawn and its continuation is what thieves take; a clause parent
 *   runs on to the end of its slice, so the child runs right after it: the
 *   nearest work-first clause expresses. A thief then takes the oldest
 *   work, the top of the spawn tree, as in Cilk.
 * - a process woken by a process, on the waker's worker: Cilk resumes a
 *   frame waiting at a sync on the worker that returns its last child, and
 *   a process waiting in a receive is woken by the process whose message it
 *   waits for.
 * - a process the runtime wakes (a timer), on its last worker; a process
 *   unblocked after a blocked builtin, on its last worker (the tail is
 *   where it runs first);
 * - a yielded process, on its worker: Cilk never preempts, a worker goes on
 *   with its current work.
 * Starvation: LIFO alone lets a yielding process, or a pair that wake each
 * other, run forever ahead of older processes of the same deque (Cilk's
 * strands end; Erlang processes need not). So after `patience` consecutive
 * picks from the tail passing over an older process, a worker takes its
 * head, the oldest, instead. A process at position i from the head of a
 * deque then runs within (i + 1) * (patience + 1) of that worker's picks:
 * new work joins the tail, so no process is ever put before it.
 *
 * Wakeups: work queued for a sleeping worker wakes it; otherwise a sleeper
 * is woken (to steal) when the deque holds more than its owner takes next:
 * two processes, or one while the owner runs another process.
 *
 * Parameters: attempts (victims tried per find_work; 0: the worker count),
 * patience, seed. A queued process's last_worker names its deque.
 */
#include "policies/proc_queue.h"
#include "policies/random.h"

#include <stdint.h>

enum { PARAM_ATTEMPTS, PARAM_PATIENCE, PARAM_SEED };

static const struct policy_param cilk_params[] = {
    [PARAM_ATTEMPTS] = {"attempts", POLICY_PARAM_INT, 0, 0, 1000000, NULL,
                        "random victims a thief tries per find_work (0: the worker count)"},
    [PARAM_PATIENCE] = {"patience", POLICY_PARAM_INT, 8, 1, 1000000, NULL,
                        "consecutive tail picks over an older process before the head is taken"},
    [PARAM_SEED] = {"seed", POLICY_PARAM_INT, 1, 0, 1000000000, NULL, "seed of the victims' draws"},
};

struct cilk_worker {
    struct proc_queue deque; /* head: oldest, stolen; tail: newest, popped */
    unsigned tail_run;       /* consecutive tail picks over an older process */
};

struct cilk_shared {
    struct policy_random random;
};

static struct cilk_worker *W(struct sched *s, worker_id w) { return sched_policy_worker_data(s, w); }

static bool cilk_init(struct sched *s)
{
    struct cilk_shared *sh = sched_policy_shared_data(s);
    policy_random_seed(&sh->random, sched_policy_param(s, PARAM_SEED), 0);
    return true;
}

static unsigned draw(struct sched *s, unsigned n)
{
    struct cilk_shared *sh = sched_policy_shared_data(s);
    return (unsigned)policy_random_below(&sh->random, n);
}

static worker_id cilk_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                              enum enqueue_reason why)
{
    (void)waker;
    worker_id target = sched_proc_last_worker(p);
    if (self != NOT_A_WORKER && (why == ENQUEUE_SPAWN || why == ENQUEUE_WAKE_BY_PROCESS || why == ENQUEUE_YIELD))
        target = self;
    struct proc_queue *d = &W(s, target)->deque;
    proc_queue_push_back(d, p);
    sched_proc_set_last_worker(p, target);
    if (sched_worker_sleeping(s, target))
        return target;
    /* The owner takes one next unless it is busy running another process. */
    bool owner_between_slices = self == target && (why == ENQUEUE_YIELD || why == ENQUEUE_UNBLOCKED);
    if (d->length + !owner_between_slices >= 2)
        return sched_sleeping_worker(s, target);
    return NOT_A_WORKER;
}

static struct process *cilk_pick_next(struct sched *s, worker_id w)
{
    struct cilk_worker *me = W(s, w);
    if (me->deque.length < 2) {
        me->tail_run = 0; /* the tail is the oldest */
        return proc_queue_pop_back(&me->deque);
    }
    if (me->tail_run >= (unsigned)sched_policy_param(s, PARAM_PATIENCE)) {
        me->tail_run = 0;
        return proc_queue_pop_front(&me->deque);
    }
    me->tail_run++;
    return proc_queue_pop_back(&me->deque);
}

/* Steals the head of random victims' deques. */
static struct process *cilk_find_work(struct sched *s, worker_id w)
{
    unsigned n = sched_worker_count(s);
    if (n < 2)
        return NULL;
    unsigned attempts = (unsigned)sched_policy_param(s, PARAM_ATTEMPTS);
    if (attempts == 0)
        attempts = n;
    for (unsigned i = 0; i < attempts; i++) {
        unsigned v = draw(s, n - 1); /* uniform over the others */
        worker_id victim = (worker_id)(v >= (unsigned)w ? v + 1 : v);
        struct process *p = proc_queue_pop_front(&W(s, victim)->deque);
        if (p) {
            sched_proc_set_last_worker(p, w);
            sched_count_steal(s, w, victim);
            return p;
        }
    }
    return NULL;
}

static void cilk_remove(struct sched *s, struct process *p)
{
    proc_queue_remove(&W(s, sched_proc_last_worker(p))->deque, p);
}

static size_t cilk_queue_length(struct sched *s, worker_id w) { return W(s, w)->deque.length; }

const struct policy_ops cilk_policy = {
    .name = "cilk",
    .summary = "Cilk-5 work-first: per-worker deques, spawns and wakes run next (LIFO), thieves take the oldest",
    .params = cilk_params,
    .param_count = sizeof cilk_params / sizeof cilk_params[0],
    .worker_bytes = sizeof(struct cilk_worker),
    .shared_bytes = sizeof(struct cilk_shared),
    .init = cilk_init,
    .enqueue = cilk_enqueue,
    .pick_next = cilk_pick_next,
    .find_work = cilk_find_work,
    .remove = cilk_remove,
    .queue_length = cilk_queue_length,
};
