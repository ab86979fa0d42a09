/*
 * eevdf.c — Earliest Eligible Virtual Deadline First, per worker.
 *
 * Source: Linux 6.6 kernel/sched/fair.c (commit 147f3efaa241 and the lag
 * placement that followed; Documentation/scheduler/sched-eevdf.rst), after
 * Stoica and Abdel-Wahab (1995), with reductions as time and every
 * process of one weight.
 *
 * Each worker has a queue. A process has a virtual runtime v (reductions
 * used) and a virtual deadline. The queue's clock V is the average v of
 * its processes and of the one it runs (Linux's avg_vruntime, kept as a
 * sum relative to a base value as Linux keeps it relative to
 * min_vruntime). A process is eligible when its lag V - v >= 0; the worker
 * runs the eligible process with the earliest deadline. A slice's budget
 * (running) is what is left of its request: deadline - v. When v reaches
 * the deadline, the next request starts: deadline = v + slice
 * (update_deadline); a process that yields early has its deadline pushed
 * one slice on (yield_task_fair). Linux 6.6 has one request size for all
 * (sysctl_sched_base_slice), and so has this: the parameter `slice`.
 *
 * Placement (place_entity): a process that waited keeps its lag, taken
 * when it stopped and clamped to two slices (update_entity_lag); on wake
 * it is placed at v = V - lag * (n + 1) / n for n processes in the queue
 * (n = 0: v = V), so that its lag survives its own arrival in the
 * average, and gets deadline = v + slice. A new process starts at v = V
 * with half a request (PLACE_DEADLINE_INITIAL). A process unblocked after
 * a blocked builtin runs first (before any deadline).
 *
 * Workers: a spawn joins its parent's worker, a woken process its last
 * worker, a yield its own. Linux balances with a periodic load balancer;
 * here an idle worker steals (find_work) the process the busiest worker
 * would run next, from a queue of at least two (or the only one of a
 * sleeping worker, as erts does), keeping its lag: it is placed on the
 * thief's queue as a wakeup is, so virtual times stay comparable.
 *
 * The data structure: Linux keeps an rbtree by deadline augmented with
 * each subtree's least v. Here each queue is two pairing heaps (pheap.h):
 * the eligible ones by deadline, the others by v. A pick first moves the
 * processes that became eligible (the least v first), then takes the
 * earliest deadline, moving any that became ineligible (V went down)
 * back: O(log n) amortised per move, and a process moves only when V
 * crosses its v.
 */
#include "policies/pheap.h"

#include <stdint.h>

enum { PARAM_SLICE };

static const struct policy_param eevdf_params[] = {
    [PARAM_SLICE] = {"slice", POLICY_PARAM_INT, POLICY_DEFAULT_BUDGET, 100, 1000000, NULL,
                     "reductions a process requests per slice (Linux's base slice)"},
};

enum { IN_NONE, IN_WAITING, IN_ELIGIBLE, IN_URGENT };

struct ee_proc {
    struct pheap_node node; /* first: pheap.h */
    int64_t v, deadline, lag;
    worker_id queue; /* whose queue holds it, or whose curr it is */
    uint8_t where;
    bool lag_kept; /* it waited: place it with its lag when queued */
};

struct ee_worker {
    struct pheap waiting;  /* not eligible (or not yet known to be), by v */
    struct pheap eligible; /* by deadline; unblocked ones first */
    int64_t base, sum;     /* sum of v - base over the queued processes */
    int64_t count;
    struct process *curr; /* the process it runs, counted in V */
};

static struct ee_proc *ee(struct process *p) { return sched_policy_proc_data(p); }
static struct ee_worker *queue_of(struct sched *s, worker_id w) { return sched_policy_worker_data(s, w); }
static int64_t slice_of(struct sched *s) { return sched_policy_param(s, PARAM_SLICE); }

/* Sum and count over the queue and its running process. */
static int64_t load(const struct ee_worker *q, int64_t *sum)
{
    *sum = q->sum + (q->curr ? ee(q->curr)->v - q->base : 0);
    return q->count + (q->curr != NULL);
}

static int64_t vnow(const struct ee_worker *q)
{
    int64_t sum, n = load(q, &sum);
    if (n == 0)
        return q->base;
    return q->base + (sum >= 0 ? sum / n : -((-sum + n - 1) / n)); /* rounded down */
}

/* V - v >= 0, without the division (Linux's vruntime_eligible). */
static bool eligible(const struct ee_worker *q, struct process *p)
{
    int64_t sum, n = load(q, &sum);
    return (ee(p)->v - q->base) * n <= sum;
}

/* Counts p in q's average (queued, or running as q->curr when curr). */
static void account(struct ee_worker *q, struct process *p, bool curr)
{
    int64_t sum;
    if (load(q, &sum) == 0)
        q->base = ee(p)->v; /* an empty queue's V is its base: keep sums small */
    if (curr) {
        q->curr = p;
    } else {
        q->sum += ee(p)->v - q->base;
        q->count++;
    }
}

static void unaccount(struct ee_worker *q, struct process *p)
{
    if (q->curr == p) {
        q->curr = NULL;
    } else {
        q->sum -= ee(p)->v - q->base;
        q->count--;
    }
    int64_t sum;
    if (load(q, &sum) == 0)
        q->base = ee(p)->v;
}

/* Lag when p leaves q, clamped to two slices (update_entity_lag). */
static void keep_lag(struct sched *s, struct ee_worker *q, struct process *p)
{
    int64_t lag = vnow(q) - ee(p)->v, limit = 2 * slice_of(s);
    ee(p)->lag = lag > limit ? limit : lag < -limit ? -limit : lag;
    ee(p)->lag_kept = true;
}

/* place_entity: v from the lag kept (or none for a new process), and a new
 * deadline, half a request for a new process. */
static void place(struct sched *s, struct ee_worker *q, struct process *p, bool initial)
{
    struct ee_proc *e = ee(p);
    int64_t sum, n = load(q, &sum), lag = initial || n == 0 ? 0 : e->lag * (n + 1) / n;
    e->v = vnow(q) - lag;
    e->deadline = e->v + (initial ? slice_of(s) / 2 : slice_of(s));
    e->lag_kept = false;
}

static void push(struct ee_worker *q, struct process *p, uint8_t where)
{
    struct ee_proc *e = ee(p);
    e->where = where;
    if (where == IN_WAITING)
        pheap_push(&q->waiting, p, e->v);
    else
        pheap_push(&q->eligible, p, where == IN_URGENT ? INT64_MIN : e->deadline);
}

static worker_id eevdf_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                               enum enqueue_reason why)
{
    (void)waker;
    worker_id target = why == ENQUEUE_YIELD && self != NOT_A_WORKER ? self : sched_proc_last_worker(p);
    struct ee_worker *q = queue_of(s, target);
    if (why == ENQUEUE_SPAWN)
        place(s, q, p, true);
    else if (ee(p)->lag_kept)
        place(s, q, p, false);
    account(q, p, false);
    ee(p)->queue = target;
    sched_proc_set_last_worker(p, target);
    push(q, p, why == ENQUEUE_UNBLOCKED ? IN_URGENT : IN_WAITING);
    if (sched_worker_sleeping(s, target))
        return target;
    return q->count >= 2 ? sched_sleeping_worker(s, target) : NOT_A_WORKER;
}

/* pick_eevdf on q: the earliest deadline among the eligible, removed. */
static struct process *pick(struct ee_worker *q)
{
    struct process *p;
    while ((p = q->waiting.root) && eligible(q, p)) {
        pheap_remove(&q->waiting, p);
        push(q, p, IN_ELIGIBLE);
    }
    while ((p = pheap_pop(&q->eligible))) {
        if (ee(p)->where == IN_URGENT || eligible(q, p))
            break;
        push(q, p, IN_WAITING); /* V went down below its v */
    }
    if (!p) /* none eligible: only when the running process holds V down */
        p = pheap_pop(&q->waiting);
    if (p)
        ee(p)->where = IN_NONE;
    return p;
}

static struct process *eevdf_pick_next(struct sched *s, worker_id w)
{
    struct ee_worker *q = queue_of(s, w);
    struct process *p = pick(q);
    if (p)
        unaccount(q, p);
    return p;
}

/* Steals for w: the next process of the busiest queue holding two, or of a
 * sleeping worker holding one, placed on w's queue with its lag. */
static struct process *eevdf_find_work(struct sched *s, worker_id w)
{
    unsigned n = sched_worker_count(s);
    worker_id victim = NOT_A_WORKER;
    int64_t most = 1;
    for (unsigned i = 0; i < n; i++) {
        int64_t len = queue_of(s, (worker_id)i)->count;
        if ((worker_id)i != w && (len > most || (len == 1 && most == 1 && victim == NOT_A_WORKER &&
                                                 sched_worker_sleeping(s, (worker_id)i)))) {
            most = len > most ? len : most;
            victim = (worker_id)i;
        }
    }
    if (victim == NOT_A_WORKER)
        return NULL;
    struct ee_worker *from = queue_of(s, victim);
    struct process *p = pick(from);
    keep_lag(s, from, p);
    unaccount(from, p);
    place(s, queue_of(s, w), p, false);
    ee(p)->queue = w;
    sched_proc_set_last_worker(p, w);
    sched_count_steal(s, w, victim);
    return p;
}

static uint32_t eevdf_running(struct sched *s, worker_id w, struct process *p)
{
    struct ee_worker *q = queue_of(s, w);
    account(q, p, true);
    ee(p)->queue = w;
    int64_t left = ee(p)->deadline - ee(p)->v;
    return left < 1 ? 1 : left > 1000000 ? 1000000 : (uint32_t)left;
}

static void eevdf_stopping(struct sched *s, worker_id w, struct process *p, uint32_t reductions, enum stop_reason why)
{
    struct ee_worker *q = queue_of(s, w);
    struct ee_proc *e = ee(p);
    if (q->curr != p) /* driven without running() (tests): count it now */
        account(q, p, true);
    e->v += reductions ? reductions : 1; /* a slice costs at least one */
    if (e->v >= e->deadline)
        e->deadline = e->v + slice_of(s); /* its request is served: the next one */
    else if (why == STOP_YIELD)
        e->deadline += slice_of(s); /* yielded early */
    if (why == STOP_WAIT || why == STOP_BLOCKED)
        keep_lag(s, q, p);
    unaccount(q, p);
}

static void eevdf_remove(struct sched *s, struct process *p)
{
    struct ee_worker *q = queue_of(s, ee(p)->queue);
    pheap_remove(ee(p)->where == IN_WAITING ? &q->waiting : &q->eligible, p);
    ee(p)->where = IN_NONE;
    unaccount(q, p);
}

static size_t eevdf_queue_length(struct sched *s, worker_id w) { return (size_t)queue_of(s, w)->count; }

const struct policy_ops eevdf_policy = {
    .name = "eevdf",
    .summary = "per-worker EEVDF (Linux 6.6): the eligible process with the earliest virtual deadline; lag kept",
    .params = eevdf_params,
    .param_count = sizeof eevdf_params / sizeof eevdf_params[0],
    .worker_bytes = sizeof(struct ee_worker),
    .proc_bytes = sizeof(struct ee_proc),
    .enqueue = eevdf_enqueue,
    .pick_next = eevdf_pick_next,
    .find_work = eevdf_find_work,
    .running = eevdf_running,
    .stopping = eevdf_stopping,
    .remove = eevdf_remove,
    .queue_length = eevdf_queue_length,
};
