/*
 * tokio.c — Tokio's multi-thread scheduler: per worker a LIFO slot and a
 * bounded local queue, a shared inject queue, steal-half, one searcher.
 *
 * Source: tokio-rs/tokio runtime/scheduler/multi_thread/: worker.rs
 * (next_task, steal_work, schedule_local, run_task's LIFO loop), queue.rs
 * (push_back_or_overflow, steal_into), idle.rs (the searching workers).
 *
 * Queueing on worker w: a process spawned or woken by a process running on
 * w takes w's LIFO slot, its previous occupant going to the tail of w's
 * queue (schedule_local); once the slot served `lifo_polls` picks in a row
 * (MAX_LIFO_POLLS_PER_TICK), such processes join the tail instead until w
 * picks from elsewhere (lifo_enabled). Yielded: the tail (yield_now defers
 * to the back). Woken by the runtime: the inject queue from a non-worker
 * thread, w's tail from w. A push on a full queue (`queue`) moves its older
 * half, then the process, to the inject queue. Unblocked after a blocked
 * builtin: a FIFO of its last worker served before all else, never stolen.
 *
 * pick_next: that FIFO; the slot within its cap; every `global_every` ticks
 * (picks not from the slot) the inject queue first; the local head; a batch
 * of min(inject / workers + 1, queue / 2) from the inject queue. find_work:
 * from a random start, the first other worker with a non-empty local queue
 * loses its older ceil(n/2): the newest of them runs, the rest join the
 * thief's queue; not when the thief holds more than queue / 2 (steal_into;
 * here find_work only runs with nothing local, so it never refuses); then
 * the inject queue. Slots are never stolen.
 *
 * Searching: a worker searches from its wake, or from starting find_work
 * while fewer than half the workers search, until pick_next or find_work
 * returns (transition_worker_from_searching, or _to_parked when it found
 * nothing). Work another worker could take (not a slot filled without
 * displacing anyone) wakes a sleeper only when none searches
 * (notify_should_wakeup); the woken one searches. Not expressed: the last
 * searcher to find work waking the next (only enqueue names a worker to
 * wake; the next enqueue does it); the coop budget a LIFO chain shares
 * (each pick gets a full slice); the self-tuned inject interval.
 *
 * Parameters: lifo_polls (0: no slot), global_every, queue, seed.
 */
#include "policies/proc_queue.h"
#include "policies/random.h"

#include <stdint.h>

enum { PARAM_LIFO_POLLS, PARAM_GLOBAL_EVERY, PARAM_QUEUE, PARAM_SEED };

static const struct policy_param tokio_params[] = {
    [PARAM_LIFO_POLLS] = {"lifo_polls", POLICY_PARAM_INT, 3, 0, 1000000, NULL,
                          "consecutive picks the LIFO slot may serve (0: no slot)"},
    [PARAM_GLOBAL_EVERY] = {"global_every", POLICY_PARAM_INT, 61, 1, 1000000, NULL,
                            "ticks between looks at the inject queue before the local one"},
    [PARAM_QUEUE] = {"queue", POLICY_PARAM_INT, 256, 2, 1000000, NULL,
                     "bound of a local queue; a full one moves half to the inject queue"},
    [PARAM_SEED] = {"seed", POLICY_PARAM_INT, 1, 0, 1000000000, NULL, "seed of the steal scan's random start"},
};

struct tk_worker {
    struct proc_queue front; /* unblocked processes: run first, never stolen */
    struct proc_queue lifo;  /* the LIFO slot: at most one */
    struct proc_queue local;
    unsigned lifo_polls; /* consecutive picks from the slot */
    uint64_t tick;
    struct policy_random random;
    bool searching;
};

struct tk_shared {
    struct proc_queue inject;
    unsigned searching; /* workers searching (Tokio's num_searching) */
};

/* Per process: the queue holding it (NULL: none), for remove(). */
static struct proc_queue **holder(struct process *p) { return sched_policy_proc_data(p); }
static struct tk_worker *W(struct sched *s, worker_id w) { return sched_policy_worker_data(s, w); }
static struct tk_shared *shared(struct sched *s) { return sched_policy_shared_data(s); }
static size_t param(struct sched *s, unsigned i) { return (size_t)sched_policy_param(s, i); }

static void put(struct proc_queue *q, struct process *p)
{
    proc_queue_push_back(q, p);
    *holder(p) = q;
}

static struct process *take(struct proc_queue *q)
{
    struct process *p = proc_queue_pop_front(q);
    if (p)
        *holder(p) = NULL;
    return p;
}

static bool tokio_init(struct sched *s)
{
    for (unsigned i = 0; i < sched_worker_count(s); i++)
        policy_random_seed(&W(s, (worker_id)i)->random, param(s, PARAM_SEED), i);
    return true;
}

static unsigned draw(struct tk_worker *me, unsigned n) { return (unsigned)policy_random_below(&me->random, n); }

/* push_back_or_overflow: a full queue sends its older half, then p, to the
 * inject queue. */
static void push_local(struct sched *s, worker_id w, struct process *p)
{
    struct tk_worker *me = W(s, w);
    if (me->local.length >= param(s, PARAM_QUEUE)) {
        for (size_t i = 0; i < param(s, PARAM_QUEUE) / 2; i++)
            put(&shared(s)->inject, take(&me->local));
        put(&shared(s)->inject, p);
        return;
    }
    put(&me->local, p);
    sched_proc_set_last_worker(p, w);
}

static void set_searching(struct sched *s, worker_id w, bool on)
{
    if (W(s, w)->searching != on)
        shared(s)->searching += on ? 1u : (unsigned)-1;
    W(s, w)->searching = on;
}

/* notify_parked: a sleeper (prefer first) when nobody searches; it searches. */
static worker_id notify(struct sched *s, worker_id prefer)
{
    if (shared(s)->searching > 0)
        return NOT_A_WORKER;
    worker_id v =
        prefer != NOT_A_WORKER && sched_worker_sleeping(s, prefer) ? prefer : sched_sleeping_worker(s, prefer);
    if (v != NOT_A_WORKER)
        set_searching(s, v, true);
    return v;
}

static worker_id tokio_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                               enum enqueue_reason why)
{
    (void)waker;
    worker_id home = sched_proc_last_worker(p);
    if (why == ENQUEUE_UNBLOCKED) { /* only home takes it: home is woken */
        put(&W(s, home)->front, p);
        if (!sched_worker_sleeping(s, home))
            return NOT_A_WORKER;
        set_searching(s, home, true);
        return home;
    }
    if (self == NOT_A_WORKER) {
        put(&shared(s)->inject, p);
        return notify(s, home);
    }
    struct tk_worker *me = W(s, self);
    if ((why != ENQUEUE_SPAWN && why != ENQUEUE_WAKE_BY_PROCESS) || me->lifo_polls >= param(s, PARAM_LIFO_POLLS)) {
        push_local(s, self, p);
        return notify(s, self);
    }
    struct process *prev = take(&me->lifo);
    put(&me->lifo, p);
    sched_proc_set_last_worker(p, self);
    if (!prev)
        return NOT_A_WORKER; /* nothing another worker could take */
    push_local(s, self, prev);
    return notify(s, self);
}

static struct process *tokio_pick_next(struct sched *s, worker_id w)
{
    struct tk_worker *me = W(s, w);
    struct tk_shared *sh = shared(s);
    struct process *p = take(&me->front);
    if (!p && me->lifo.length && me->lifo_polls < param(s, PARAM_LIFO_POLLS)) {
        me->lifo_polls++;
        p = take(&me->lifo);
    } else if (!p) {
        if (me->lifo.length) /* the cap was reached with an occupant: to the tail */
            push_local(s, w, take(&me->lifo));
        me->lifo_polls = 0;
        if (++me->tick % param(s, PARAM_GLOBAL_EVERY) == 0)
            p = take(&sh->inject);
        if (!p)
            p = take(&me->local);
        if (!p && sh->inject.length) { /* a batch: the first runs, the rest are queued */
            size_t n = sh->inject.length / sched_worker_count(s) + 1;
            if (n > param(s, PARAM_QUEUE) / 2)
                n = param(s, PARAM_QUEUE) / 2;
            p = take(&sh->inject);
            for (size_t i = 1; i < n && sh->inject.length; i++)
                push_local(s, w, take(&sh->inject));
        }
    }
    if (p)
        set_searching(s, w, false); /* transition_worker_from_searching */
    return p;
}

/* steal_into: the older half of victim's queue, rounded up; the last of it
 * runs, the rest join the thief's tail. */
static struct process *steal_into(struct sched *s, worker_id victim, worker_id thief)
{
    struct proc_queue *from = &W(s, victim)->local;
    if (W(s, thief)->local.length > param(s, PARAM_QUEUE) / 2 || from->length == 0)
        return NULL;
    size_t n = from->length - from->length / 2;
    for (size_t i = 1; i < n; i++)
        push_local(s, thief, take(from));
    sched_count_steal(s, thief, victim);
    return take(from);
}

static struct process *tokio_find_work(struct sched *s, worker_id w)
{
    struct tk_worker *me = W(s, w);
    unsigned n = sched_worker_count(s);
    if (!me->searching) { /* transition_worker_to_searching */
        if (2 * shared(s)->searching >= n)
            return NULL;
        set_searching(s, w, true);
    }
    unsigned start = draw(me, n);
    struct process *p = NULL;
    for (unsigned i = 0; i < n && !p; i++) {
        worker_id v = (worker_id)((start + i) % n);
        if (v != w)
            p = steal_into(s, v, w);
    }
    if (!p)
        p = take(&shared(s)->inject);
    set_searching(s, w, false); /* found, or transition_worker_to_parked */
    return p;
}

static void tokio_remove(struct sched *s, struct process *p)
{
    (void)s;
    if (*holder(p))
        proc_queue_remove(*holder(p), p);
    *holder(p) = NULL;
}

/* w's own queues; the inject queue with worker 0's, so a sum counts it once. */
static size_t tokio_queue_length(struct sched *s, worker_id w)
{
    struct tk_worker *me = W(s, w);
    return me->front.length + me->lifo.length + me->local.length + (w == 0 ? shared(s)->inject.length : 0);
}

const struct policy_ops tokio_policy = {
    .name = "tokio",
    .summary = "Tokio: per-worker LIFO slot (3 polls) and bounded queue, inject queue every 61 ticks, steal half",
    .params = tokio_params,
    .param_count = sizeof tokio_params / sizeof tokio_params[0],
    .worker_bytes = sizeof(struct tk_worker),
    .shared_bytes = sizeof(struct tk_shared),
    .proc_bytes = sizeof(struct proc_queue *),
    .init = tokio_init,
    .enqueue = tokio_enqueue,
    .pick_next = tokio_pick_next,
    .find_work = tokio_find_work,
    .remove = tokio_remove,
    .queue_length = tokio_queue_length,
};
