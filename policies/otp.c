/*
 * otp.c — ERTS 25's process scheduling as shipped (the seed's summary is
 * `erts`). Source: erlang/otp erts/emulator/beam/erl_process.c: erts_schedule,
 * select_enqueue_run_queue, erts_check_emigration_need, try_steal_task,
 * check_balance, wakeup_other_check, check_requeue_process.
 *
 * Queues: per worker, FIFOs max, high and normal; low shares normal's with a
 * count of RESCHEDULE_LOW (8), others 1. Pick is strictly max > high >
 * normal; a normal head whose decremented count is still above 0 is
 * re-tailed unless last, so low runs at its 8th turn at the head.
 * Placement: a process joins its own last worker's queue (a new one its
 * parent's), woken, spawned or yielding alike, unless emigration redirects
 * it; an unblocked one goes to the front.
 * Stealing: an idle worker marks its queue PROTECTED and takes ONE process,
 * the head of the highest priority, from the first non-empty unprotected
 * queue round the ring from the next worker. ERTS clears the flag at the
 * thief's next pick or before it waits (here: running, or a failed steal);
 * it guards a stolen process sitting in the thief's queue with the lock
 * dropped. Under clause's one lock find_work hands it over at once, so in
 * a run the flag never skips a queue; the tests call find_work twice.
 * Balancing, lazy: each worker counts down balance_reds/2 (ERTS's 4M); the
 * first at 0 makes a global check, alternately a half-time one (restarts
 * the counts) and a full one: every balance_reds (8M, ~2,000 slices), whose
 * plan (otp_balance.h) gives each queue a limit and a partner. An enqueue
 * on an emigrating queue over its limit goes to the partner if that is
 * under its own (always when evacuating); an immigrating worker's pick
 * first pulls one while it is under and the partner over.
 * Wakeups: a queued process wakes its worker if it sleeps. wakeup_other
 * (+swt): after each slice (tick) a worker with len-1 >= 1 adds
 * (len-1)*reds+400, else subtracts reds shifted by the level's shift; past
 * the limit it wakes one sleeper with an empty queue, scanning down from
 * itself. tick cannot wake, so that wake rides on the worker's next enqueue.
 * Busy-wait (+sbwt medium, 10,000 spins) is the executor's: --policy otp
 * --busy-wait 10000. No ports, bound processes or dirty schedulers.
 */
#include "policies/otp_balance.h"
#include "policies/proc_queue.h"

#include <stdint.h>

enum { PARAM_BALANCE_REDS, PARAM_WAKEUP_OTHER };
static const char *const wakeup_choices[] = {"very_high", "high", "medium", "low", "very_low", NULL};
static const int64_t wakeup_limit[] = {800000, 200000, 40000, 4000, 400};
static const int wakeup_dec_shift[] = {3, 1, 0, -2, -5};

static const struct policy_param otp_params[] = {
    [PARAM_BALANCE_REDS] = {"balance_reds", POLICY_PARAM_INT, 8000000, 2, 1000000000000LL, NULL,
                            "reductions between full balance checks (two half-checks of half each)"},
    [PARAM_WAKEUP_OTHER] = {"wakeup_other", POLICY_PARAM_CHOICE, 2, 0, 0, wakeup_choices,
                            "+swt: how soon a worker with queued work wakes a sleeping one"},
};

#define RESCHEDULE_LOW 8
#define WAKEUP_OTHER_FIXED_INC (POLICY_DEFAULT_BUDGET / 10)
enum { QUEUE_MAX, QUEUE_HIGH, QUEUE_NORMAL, QUEUES }; /* low shares normal */

struct otp_worker {
    struct otp_balance_queue bal; /* max_len and reds since the last full check, and its plan */
    struct proc_queue queue[QUEUES];
    size_t len;           /* all three */
    int64_t balance_left; /* reductions until this worker calls a check */
    uint32_t last_reds;   /* the last slice's */
    int64_t wakeup_other;
    bool protect, wake_pending;
};

struct otp_proc {
    uint8_t queue;
    int8_t schedule_count;
};

static struct otp_worker *W(struct sched *s, worker_id w) { return sched_policy_worker_data(s, w); }
static struct otp_proc *PD(struct process *p) { return sched_policy_proc_data(p); }
static bool *halftime(struct sched *s) { return sched_policy_shared_data(s); }

static void push(struct sched *s, worker_id w, struct process *p, bool front)
{
    enum proc_priority prio = sched_proc_priority(p);
    struct otp_worker *me = W(s, w);
    PD(p)->queue = prio == PRIORITY_LOW ? QUEUE_NORMAL : (uint8_t)prio; /* QUEUE_* follow PRIORITY_* */
    PD(p)->schedule_count = prio == PRIORITY_LOW ? RESCHEDULE_LOW : 1;
    (front ? proc_queue_push_front : proc_queue_push_back)(&me->queue[PD(p)->queue], p);
    if (++me->len > me->bal.max_len)
        me->bal.max_len = me->len;
    sched_proc_set_last_worker(p, w);
}

static void take(struct sched *s, struct process *p)
{
    struct otp_worker *from = W(s, sched_proc_last_worker(p));
    proc_queue_remove(&from->queue[PD(p)->queue], p);
    from->len--;
}

/* The head of w's highest non-empty priority queue (steal, immigrate). */
static struct process *first(struct sched *s, worker_id w)
{
    for (int q = 0; q < QUEUES; q++)
        if (W(s, w)->queue[q].head)
            return W(s, w)->queue[q].head;
    return NULL;
}

/* erts_check_emigration_need: where a process bound for w goes. */
static worker_id emigrate(struct sched *s, worker_id w)
{
    struct otp_worker *me = W(s, w);
    struct otp_balance_queue *b = &me->bal;
    if (b->migrate != MIGRATE_OUT)
        return w;
    if (b->evacuate || (me->len > b->limit_this && W(s, b->other)->len < b->limit_other))
        return b->other;
    return w;
}

/* wake_scheduler_on_empty_runq: a sleeper with an empty queue, down from w. */
static worker_id sleeper_below(struct sched *s, worker_id w)
{
    unsigned n = sched_worker_count(s);
    for (unsigned k = 1; k < n; k++) {
        worker_id v = (worker_id)(((unsigned)w + n - k) % n);
        if (sched_worker_sleeping(s, v) && W(s, v)->len == 0)
            return v;
    }
    return NOT_A_WORKER;
}

static worker_id otp_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                             enum enqueue_reason why)
{
    (void)waker;
    worker_id home = sched_proc_last_worker(p), target = home;
    if (why != ENQUEUE_UNBLOCKED && (target = emigrate(s, home)) != home)
        sched_count_balance_move(s, target, home);
    push(s, target, p, why == ENQUEUE_UNBLOCKED);
    if (sched_worker_sleeping(s, target))
        return target;
    if (self != NOT_A_WORKER && W(s, self)->wake_pending) {
        W(s, self)->wake_pending = false; /* wakeup_other's, kept by tick */
        return sleeper_below(s, self);
    }
    return NOT_A_WORKER;
}

static struct process *otp_pick_next(struct sched *s, worker_id w)
{
    struct otp_worker *me = W(s, w);
    /* check_immigration_need: pull one while under the limit, partner over. */
    struct otp_balance_queue *b = &me->bal;
    if (b->migrate == MIGRATE_IN && me->len < b->limit_this && W(s, b->other)->len > b->limit_other) {
        struct process *p = first(s, b->other);
        take(s, p);
        push(s, w, p, false);
        sched_count_balance_move(s, w, b->other);
    }
    for (int q = 0; q < QUEUES; q++) {
        struct process *p;
        while ((p = me->queue[q].head)) {
            /* check_requeue_process: a low process is re-tailed 7 times. */
            if (q == QUEUE_NORMAL && --PD(p)->schedule_count > 0 && p != me->queue[q].tail) {
                proc_queue_remove(&me->queue[q], p);
                proc_queue_push_back(&me->queue[q], p);
                continue;
            }
            take(s, p);
            return p;
        }
    }
    return NULL;
}

static struct process *otp_find_work(struct sched *s, worker_id w)
{
    unsigned n = sched_worker_count(s);
    W(s, w)->wakeup_other = 0; /* ERTS's "prepare for scheduler wait" */
    W(s, w)->protect = true;   /* empty_protected_runq */
    for (unsigned k = 1; k < n; k++) {
        worker_id v = (worker_id)(((unsigned)w + k) % n);
        if (W(s, v)->len == 0 || W(s, v)->protect)
            continue;
        struct process *p = first(s, v);
        take(s, p);
        sched_proc_set_last_worker(p, w);
        sched_count_steal(s, w, v);
        return p;
    }
    /* empty_runq before scheduler_wait; the wait marks it out of work. */
    W(s, w)->protect = false;
    W(s, w)->bal.out_of_work = true;
    return NULL;
}

static uint32_t otp_running(struct sched *s, worker_id w, struct process *p)
{
    (void)p;
    W(s, w)->protect = false; /* cleared as ERTS's pick does */
    return 0;
}

static void otp_stopping(struct sched *s, worker_id w, struct process *p, uint32_t used, enum stop_reason why)
{
    (void)p;
    (void)why;
    W(s, w)->last_reds = used;
    W(s, w)->bal.reds += used;
}

static struct otp_balance_queue *bal_of(void *s, int w) { return &W(s, (worker_id)w)->bal; }

/* After every slice: wakeup_other_check, then the balance countdown. */
static void otp_tick(struct sched *s, worker_id w)
{
    struct otp_worker *me = W(s, w);
    int level = (int)sched_policy_param(s, PARAM_WAKEUP_OTHER), shift = wakeup_dec_shift[level];
    int64_t reds = me->last_reds, left = (int64_t)me->len - 1;
    if (reds && left < 1) {
        me->wakeup_other -= shift >= 0 ? reds << shift : reds >> -shift;
        me->wakeup_other = me->wakeup_other < 0 ? 0 : me->wakeup_other;
    } else if (reds && (me->wakeup_other += left * reds + WAKEUP_OTHER_FIXED_INC) > wakeup_limit[level]) {
        me->wake_pending = true;
        me->wakeup_other = 0;
    }
    me->last_reds = 0;
    if ((me->balance_left -= reds) > 0)
        return;
    int n = (int)sched_worker_count(s);
    int64_t half = sched_policy_param(s, PARAM_BALANCE_REDS) / 2;
    for (int q = 0; q < n; q++)
        W(s, q)->balance_left = half;
    if ((*halftime(s) = !*halftime(s)))
        return; /* the half-time check only restarts the counts */
    otp_balance_plan(n, bal_of, s);
    for (int q = 0; q < n; q++) {
        struct otp_worker *r = W(s, q);
        r->bal.out_of_work = sched_worker_sleeping(s, q);
        r->bal.max_len = r->len;
        r->bal.reds = 0;
    }
}

static bool otp_init(struct sched *s)
{
    for (unsigned q = 0; q < sched_worker_count(s); q++)
        W(s, (worker_id)q)->balance_left = sched_policy_param(s, PARAM_BALANCE_REDS) / 2;
    *halftime(s) = false; /* the first check is a half-time one */
    return true;
}

static void otp_remove(struct sched *s, struct process *p) { take(s, p); }

static size_t otp_queue_length(struct sched *s, worker_id w) { return W(s, w)->len; }

const struct policy_ops otp_policy = {
    .name = "otp",
    .summary = "ERTS 25 as shipped: own-queue wakeups, steal one, 8M-reduction balancing, wakeup_other, priorities",
    .params = otp_params,
    .param_count = sizeof otp_params / sizeof otp_params[0],
    .worker_bytes = sizeof(struct otp_worker),
    .shared_bytes = sizeof(bool),
    .proc_bytes = sizeof(struct otp_proc),
    .init = otp_init,
    .enqueue = otp_enqueue,
    .pick_next = otp_pick_next,
    .find_work = otp_find_work,
    .running = otp_running,
    .stopping = otp_stopping,
    .tick = otp_tick,
    .tick_reductions = 0,
    .remove = otp_remove,
    .queue_length = otp_queue_length,
    .honours_priority = true,
};
