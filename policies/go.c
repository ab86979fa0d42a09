/*
 * go.c — Go's runtime scheduler: local rings, a runnext slot, a global
 * queue, steal-half. Source: golang/go src/runtime/proc.go (runqput,
 * runqputslow, runqget, globrunqget, findRunnable, stealWork, runqgrab,
 * ready, newproc, goschedImpl, injectglist) and runtime2.go.
 *
 * Each worker (a P) has a FIFO ring of `ring` (256) processes and a
 * runnext slot; one global queue serves all. A process spawned or woken by
 * a process goes to runnext of the worker running that process (ready and
 * newproc: runqput(next=true)); the slot's old occupant goes to the tail of
 * that ring. The runnext process inherits what is left of the waker's slice
 * (reductions left at enqueue), so a communicating pair shares one slice;
 * when the waker had nothing left, or the process came from the ring or the
 * global queue, it gets a full 4,000, and that slice counts a schedtick
 * (execute: an inherited one does not). When a ring is full, runqputslow
 * moves its older half and the process to the global queue. pick_next takes
 * one from the global queue when schedtick % global_every (61) is 0, else
 * runnext, else the ring's head, else a batch from the global queue
 * (globrunqget: min(len/workers + 1, ring/2), the rest into the ring). An
 * idle worker steals (stealWork): 4 passes over the other workers in a
 * random coprime order (seeded xorshift), each taking the older half
 * (rounded up) of the first non-empty ring, running the newest of those
 * and keeping the rest; only the last pass may take a runnext, and only
 * from a sleeping worker: Go's thief first waits 3 us when the owner runs,
 * which clause's one lock cannot express, so an owner that runs keeps it.
 *
 * A yielding process (ENQUEUE_YIELD) goes to the global queue, as Go's
 * preemption and Gosched do (goschedImpl: globrunqput); yield=local puts it
 * at its ring's tail instead (goyield). A process unblocked after a blocked
 * builtin runs first: runnext of its last worker, the old occupant to the
 * ring's head. The runtime's wakeups from the timer thread (not a worker)
 * go to the global queue (injectglist without a P); from a worker between
 * slices, to its runnext (timers run by a P call ready). Each enqueue wakes
 * the target worker if it sleeps, else a sleeper when the process landed
 * where one could take it (a ring or the global queue; wakep). Go caps
 * spinning threads at half the busy Ps and wakes none while one spins; the
 * executor's idle workers are not visible to a policy, so that cap is not
 * expressed. queue_length(w) counts w's ring and runnext, and worker 0's
 * the global queue too (Go's has no owner; totals then count it once).
 */
#include "policies/proc_queue.h"
#include "policies/random.h"

#include <stdint.h>

enum { PARAM_RING, PARAM_GLOBAL_EVERY, PARAM_SEED, PARAM_YIELD };
enum { YIELD_GLOBAL, YIELD_LOCAL };
static const char *const yield_choices[] = {"global", "local", NULL};

static const struct policy_param go_params[] = {
    [PARAM_RING] = {"ring", POLICY_PARAM_INT, 256, 2, 1000000, NULL, "capacity of each worker's local ring"},
    [PARAM_GLOBAL_EVERY] = {"global_every", POLICY_PARAM_INT, 61, 1, 1000000, NULL,
                            "schedticks between looks at the global queue first"},
    [PARAM_SEED] = {"seed", POLICY_PARAM_INT, 1, 0, 1000000000, NULL, "seed of the steal order"},
    [PARAM_YIELD] = {"yield", POLICY_PARAM_CHOICE, YIELD_GLOBAL, 0, 0, yield_choices,
                     "where a yielding process goes: the global queue (preemption) or its ring's tail"},
};

enum { IN_NONE, IN_RING, IN_RUNNEXT, IN_GLOBAL };

struct go_worker {
    struct proc_queue ring;
    struct process *runnext;
    uint64_t schedtick;
};

struct go_shared {
    struct proc_queue global;
    struct policy_random random;
};

struct go_proc {
    uint8_t where;  /* IN_* */
    bool inherits;  /* taken from runnext: running() gives `budget` */
    int32_t budget; /* the waker's reductions left, 0: a full slice */
};

static struct go_worker *W(struct sched *s, worker_id w) { return sched_policy_worker_data(s, w); }
static struct go_shared *SH(struct sched *s) { return sched_policy_shared_data(s); }
static struct go_proc *PD(struct process *p) { return sched_policy_proc_data(p); }
static size_t ring_cap(struct sched *s) { return (size_t)sched_policy_param(s, PARAM_RING); }

static unsigned draw(struct sched *s, unsigned n) { return (unsigned)policy_random_below(&SH(s)->random, n); }

static void to_global(struct sched *s, struct process *p)
{
    proc_queue_push_back(&SH(s)->global, p);
    PD(p)->where = IN_GLOBAL;
    PD(p)->budget = 0;
}

static void to_ring(struct sched *s, worker_id w, struct process *p, bool front)
{
    (front ? proc_queue_push_front : proc_queue_push_back)(&W(s, w)->ring, p);
    PD(p)->where = IN_RING;
    PD(p)->budget = 0;
    sched_proc_set_last_worker(p, w);
}

/* runqput: into w's runnext (next) or ring; the ring full: runqputslow.
 * True when p or a process it displaced went to the global queue. */
static bool runqput(struct sched *s, worker_id w, struct process *p, bool next, int32_t budget)
{
    struct go_worker *me = W(s, w);
    if (next) {
        struct process *old = me->runnext;
        me->runnext = p;
        PD(p)->where = IN_RUNNEXT;
        PD(p)->budget = budget > 0 ? budget : 0;
        sched_proc_set_last_worker(p, w);
        if (!old)
            return false;
        p = old; /* kicked out to the tail */
    }
    if (me->ring.length < ring_cap(s)) {
        to_ring(s, w, p, false);
        return false;
    }
    for (size_t n = ring_cap(s) / 2; n > 0; n--)
        to_global(s, proc_queue_pop_front(&me->ring));
    to_global(s, p);
    return true;
}

static worker_id go_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                            enum enqueue_reason why)
{
    worker_id home = sched_proc_last_worker(p), target = self;
    bool global = self == NOT_A_WORKER, stealable = false;
    if (why == ENQUEUE_UNBLOCKED) {
        target = home;
        struct process *old = W(s, home)->runnext;
        W(s, home)->runnext = NULL;
        runqput(s, home, p, true, 0);
        if (old) { /* behind p, before the ring */
            to_ring(s, home, old, true);
            stealable = true;
        }
    } else if (why == ENQUEUE_YIELD && sched_policy_param(s, PARAM_YIELD) == YIELD_LOCAL && !global) {
        stealable = true;
        global = runqput(s, self, p, false, 0);
    } else if (why == ENQUEUE_YIELD || global) {
        to_global(s, p);
        global = true;
    } else { /* spawned, or woken by a process or by this worker's timers */
        int32_t left = waker ? sched_proc_reductions_left(waker) : 0;
        stealable = W(s, self)->runnext != NULL; /* kicked to the ring */
        global = runqput(s, self, p, true, left);
    }
    if (target != NOT_A_WORKER && sched_worker_sleeping(s, target))
        return target;
    return global || stealable ? sched_sleeping_worker(s, target) : NOT_A_WORKER;
}

/* globrunqget: one for w, and up to ring/2 - 1 more into its ring. */
static struct process *globrunqget(struct sched *s, worker_id w, size_t most)
{
    struct proc_queue *g = &SH(s)->global;
    size_t n = g->length / sched_worker_count(s) + 1;
    n = n > g->length ? g->length : n;
    n = most && n > most ? most : n;
    n = n > ring_cap(s) / 2 ? ring_cap(s) / 2 : n;
    struct process *p = n ? proc_queue_pop_front(g) : NULL;
    while (n-- > 1)
        to_ring(s, w, proc_queue_pop_front(g), false);
    return p;
}

static struct process *taken(struct process *p, bool from_runnext)
{
    if (p) {
        PD(p)->where = IN_NONE;
        PD(p)->inherits = from_runnext;
    }
    return p;
}

static struct process *go_pick_next(struct sched *s, worker_id w)
{
    struct go_worker *me = W(s, w);
    struct process *p;
    if (me->schedtick % (uint64_t)sched_policy_param(s, PARAM_GLOBAL_EVERY) == 0 && SH(s)->global.length)
        return taken(globrunqget(s, w, 1), false);
    if ((p = me->runnext)) {
        me->runnext = NULL;
        return taken(p, true);
    }
    if ((p = proc_queue_pop_front(&me->ring)))
        return taken(p, false);
    return taken(globrunqget(s, w, 0), false);
}

/* runqsteal from v into w: the older half of v's ring (rounded up), the
 * newest of them to run; or, on the last pass, a sleeping v's runnext. */
static struct process *runqsteal(struct sched *s, worker_id w, worker_id v, bool runnext)
{
    struct go_worker *victim = W(s, v);
    size_t n = victim->ring.length - victim->ring.length / 2;
    if (n == 0) {
        struct process *p = victim->runnext;
        if (!runnext || !p || !sched_worker_sleeping(s, v))
            return NULL;
        victim->runnext = NULL;
        return taken(p, false);
    }
    while (n-- > 0)
        to_ring(s, w, proc_queue_pop_front(&victim->ring), false);
    return taken(proc_queue_pop_back(&W(s, w)->ring), false);
}

static unsigned gcd(unsigned a, unsigned b) { return b ? gcd(b, a % b) : a; }

static struct process *go_find_work(struct sched *s, worker_id w)
{
    unsigned n = sched_worker_count(s);
    for (int pass = 0; pass < 4; pass++) {
        unsigned pos = draw(s, n), inc = 1 + draw(s, n);
        while (gcd(inc, n) != 1)
            inc++;
        for (unsigned k = 0; k < n; k++, pos = (pos + inc) % n) {
            struct process *p = (worker_id)pos == w ? NULL : runqsteal(s, w, (worker_id)pos, pass == 3);
            if (p) {
                sched_proc_set_last_worker(p, w);
                sched_count_steal(s, w, (worker_id)pos);
                return p;
            }
        }
    }
    return NULL;
}

static uint32_t go_running(struct sched *s, worker_id w, struct process *p)
{
    if (PD(p)->inherits && PD(p)->budget > 0)
        return (uint32_t)PD(p)->budget; /* the waker's slice goes on: no schedtick */
    W(s, w)->schedtick++;
    return 0;
}

static void go_remove(struct sched *s, struct process *p)
{
    struct go_worker *me = W(s, sched_proc_last_worker(p));
    if (PD(p)->where == IN_RING)
        proc_queue_remove(&me->ring, p);
    else if (PD(p)->where == IN_RUNNEXT)
        me->runnext = NULL;
    else if (PD(p)->where == IN_GLOBAL)
        proc_queue_remove(&SH(s)->global, p);
    PD(p)->where = IN_NONE;
}

/* w's ring and runnext; worker 0's also counts the global queue, so that
 * the totals (statistics/1) count every queued process. */
static size_t go_queue_length(struct sched *s, worker_id w)
{
    return W(s, w)->ring.length + (W(s, w)->runnext != NULL) + (w == 0 ? SH(s)->global.length : 0);
}

static bool go_init(struct sched *s)
{
    policy_random_seed(&SH(s)->random, sched_policy_param(s, PARAM_SEED), 0);
    return true;
}

const struct policy_ops go_policy = {
    .name = "go",
    .summary = "Go's proc.go: 256-slot rings with runnext, a global queue every 61 ticks, steal half at random",
    .params = go_params,
    .param_count = sizeof go_params / sizeof go_params[0],
    .worker_bytes = sizeof(struct go_worker),
    .shared_bytes = sizeof(struct go_shared),
    .proc_bytes = sizeof(struct go_proc),
    .init = go_init,
    .enqueue = go_enqueue,
    .pick_next = go_pick_next,
    .find_work = go_find_work,
    .running = go_running,
    .remove = go_remove,
    .queue_length = go_queue_length,
};
