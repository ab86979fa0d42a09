/*
 * shuffle.c — a seeded uniform random choice among the runnable processes:
 * a schedule explorer, not a scheduler that wins anything.
 *
 * Source: Go's runtime under randomizeScheduler (race builds shuffle the
 * run queue's order: runqput, runqputslow in golang/go src/runtime/
 * proc.go), and randomized schedule exploration in the manner of PCT
 * (Burckhardt et al., ASPLOS 2010) and rr's chaos mode (random slices).
 * A program whose output changes under it depends on the schedule.
 *
 * All runnable processes wait in one pool; pick_next, on any worker, takes
 * a member drawn uniformly at random. Same seed and same sequence of
 * callbacks: the same choices (one generator, under the run-queue lock).
 * Each slice's budget is drawn uniformly from slice_min..slice_max (both
 * 4,000 by default: a fixed slice). A process unblocked after a blocked
 * builtin runs first, from a FIFO kept before the pool. Every enqueue
 * wakes a sleeping worker, if any: the pool is everybody's.
 *
 * The pool: an array of POOL_SLOTS process pointers in the shared block,
 * each member's index in its per-process state, so that a pick (draw an
 * index, move the last member into the hole) and remove are O(1) and
 * allocate nothing. POOL_SLOTS is 2^20, OTP's default process limit (8 MiB
 * of address space, touched only as far as the pool has grown). Members
 * beyond it wait in an overflow FIFO: a draw of index i >= POOL_SLOTS takes
 * the overflow's head, and a hole in the array is filled from that head,
 * so each draw is still over all members, but past 2^20 runnable processes
 * the overflow's own order is FIFO rather than random.
 */
#include "policies/proc_queue.h"
#include "policies/random.h"

#include <stdint.h>

#define POOL_SLOTS (1u << 20)

enum { PARAM_SEED, PARAM_SLICE_MIN, PARAM_SLICE_MAX };

static const struct policy_param shuffle_params[] = {
    [PARAM_SEED] = {"seed", POLICY_PARAM_INT, 1, 0, 1000000000, NULL, "seed of the choices and slices"},
    [PARAM_SLICE_MIN] = {"slice_min", POLICY_PARAM_INT, POLICY_DEFAULT_BUDGET, 1, 1000000, NULL,
                         "fewest reductions in a slice"},
    [PARAM_SLICE_MAX] = {"slice_max", POLICY_PARAM_INT, POLICY_DEFAULT_BUDGET, 1, 1000000, NULL,
                         "most reductions in a slice (a slice's budget is uniform in min..max)"},
};

enum where { IN_NONE, IN_POOL, IN_OVERFLOW, IN_FRONT };

struct sh_proc {
    uint32_t index; /* in the array, when IN_POOL */
    uint8_t where;
};

struct sh_shared {
    struct policy_random random;
    size_t count; /* members in the array */
    struct proc_queue overflow, front;
    struct process *slots[POOL_SLOTS];
};

static struct sh_shared *shared(struct sched *s) { return sched_policy_shared_data(s); }
static struct sh_proc *sp(struct process *p) { return sched_policy_proc_data(p); }

static bool shuffle_init(struct sched *s)
{
    if (sched_policy_param(s, PARAM_SLICE_MIN) > sched_policy_param(s, PARAM_SLICE_MAX))
        return false;
    policy_random_seed(&shared(s)->random, sched_policy_param(s, PARAM_SEED), 0);
    return true;
}

static uint64_t draw(struct sched *s, uint64_t n) { return policy_random_below(&shared(s)->random, n); }

static void put_slot(struct sh_shared *sh, size_t i, struct process *p)
{
    sh->slots[i] = p;
    sp(p)->index = (uint32_t)i;
    sp(p)->where = IN_POOL;
}

static void pool_add(struct sh_shared *sh, struct process *p)
{
    if (sh->count < POOL_SLOTS) {
        put_slot(sh, sh->count++, p);
    } else {
        proc_queue_push_back(&sh->overflow, p);
        sp(p)->where = IN_OVERFLOW;
    }
}

/* Takes slot i's member out; the last member fills the hole, and the
 * overflow's head the last slot. */
static struct process *pool_take(struct sh_shared *sh, size_t i)
{
    struct process *p = sh->slots[i];
    sh->count--;
    if (i != sh->count)
        put_slot(sh, i, sh->slots[sh->count]);
    struct process *next = proc_queue_pop_front(&sh->overflow);
    if (next)
        put_slot(sh, sh->count++, next);
    sp(p)->where = IN_NONE;
    return p;
}

static worker_id shuffle_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                                 enum enqueue_reason why)
{
    (void)self;
    (void)waker;
    struct sh_shared *sh = shared(s);
    if (why == ENQUEUE_UNBLOCKED) {
        proc_queue_push_back(&sh->front, p);
        sp(p)->where = IN_FRONT;
    } else {
        pool_add(sh, p);
    }
    return sched_sleeping_worker(s, sched_proc_last_worker(p));
}

static struct process *shuffle_pick_next(struct sched *s, worker_id w)
{
    struct sh_shared *sh = shared(s);
    struct process *p = proc_queue_pop_front(&sh->front);
    if (p) {
        sp(p)->where = IN_NONE;
    } else if (sh->count) {
        uint64_t i = draw(s, sh->count + sh->overflow.length);
        if (i < sh->count) {
            p = pool_take(sh, (size_t)i);
        } else {
            p = proc_queue_pop_front(&sh->overflow);
            sp(p)->where = IN_NONE;
        }
    }
    if (p)
        sched_proc_set_last_worker(p, w);
    return p;
}

static uint32_t shuffle_running(struct sched *s, worker_id w, struct process *p)
{
    (void)w;
    (void)p;
    uint64_t lo = (uint64_t)sched_policy_param(s, PARAM_SLICE_MIN);
    uint64_t hi = (uint64_t)sched_policy_param(s, PARAM_SLICE_MAX);
    return (uint32_t)(lo == hi ? lo : lo + draw(s, hi - lo + 1));
}

static void shuffle_remove(struct sched *s, struct process *p)
{
    struct sh_shared *sh = shared(s);
    switch ((enum where)sp(p)->where) {
    case IN_POOL:
        pool_take(sh, sp(p)->index);
        break;
    case IN_OVERFLOW:
        proc_queue_remove(&sh->overflow, p);
        break;
    case IN_FRONT:
        proc_queue_remove(&sh->front, p);
        break;
    case IN_NONE:
        break;
    }
    sp(p)->where = IN_NONE;
}

static size_t shuffle_queue_length(struct sched *s, worker_id w)
{
    (void)w;
    struct sh_shared *sh = shared(s);
    return sh->count + sh->overflow.length + sh->front.length;
}

const struct policy_ops shuffle_policy = {
    .name = "shuffle",
    .summary = "one shared pool, each pick a seeded uniform random member (Go's randomizeScheduler); slices random",
    .params = shuffle_params,
    .param_count = sizeof shuffle_params / sizeof shuffle_params[0],
    .shared_bytes = sizeof(struct sh_shared),
    .proc_bytes = sizeof(struct sh_proc),
    .init = shuffle_init,
    .enqueue = shuffle_enqueue,
    .pick_next = shuffle_pick_next,
    .running = shuffle_running,
    .remove = shuffle_remove,
    .queue_length = shuffle_queue_length,
    .shared_queue = true,
};
