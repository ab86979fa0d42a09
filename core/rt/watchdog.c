/*
 * watchdog.c — the stall watchdog and lost-wakeup detector (--watchdog MS).
 *
 * The executor keeps every runnable process on its own list, in the order
 * each became runnable, stamped with a coarse clock (internal.h:
 * runnable_head, coarse_ms): a policy's queues may be anything, but the
 * oldest runnable process is always the list's head. Every watchdog period
 * (a tenth of MS, from 1 to 100 ms) the timer thread publishes the coarse
 * clock and looks, under the run-queue lock alone, at that head and at the
 * sleeping workers:
 *
 *   stall        the oldest runnable process has waited longer than MS;
 *   lost wakeup  it has waited longer than MS / 10, and a worker has slept
 *                since before it became runnable (a wakeup the policy never
 *                asked for).
 *
 * Each threshold is passed only when the wait exceeds it by a whole period
 * (the stamps' resolution), so a wait is never judged longer than it was.
 *
 * On either, once per run: one report on stderr (the policy, the process,
 * how long it waited, each worker's queue, sleep and latest slice), then
 * the program is handed to global_fifo under both locks. No worker is in a
 * policy callback then (every callback runs under the run-queue lock), and
 * every callback after it reads the new policy (every caller reads
 * s->policy under that lock): a worker in the middle of a slice calls the
 * new policy's stopping and enqueue when it ends. Each runnable process is
 * taken out of the old policy (its remove, which a broken policy may fail
 * to do: the executor's list is the truth), and queued in global_fifo,
 * oldest first, in the blocks allocated for it at sched_create; every
 * sleeping worker is woken.
 */
#include "rt/internal.h"
#include "rt/sched_trace.h"
#include "term/atom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool watchdog_init(struct sched *s, unsigned ms)
{
    struct watchdog *wd = &s->watchdog;
    if (ms == 0)
        return true;
    wd->ms = ms;
    wd->period_ms = ms / 10 < 1 ? 1 : ms / 10 > 100 ? 100 : ms / 10;
    /* The fallback must need nothing the executor does not give it here:
     * no init (it runs mid-program), no per-process state (the processes
     * carry the first policy's), no parameters. global_fifo needs none. */
    const struct policy_ops *fallback = policy_find("global_fifo");
    if (!fallback || fallback->init || fallback->proc_bytes || fallback->param_count)
        return true; /* it reports, and hands nothing over */
    wd->fallback_block_bytes = (fallback->worker_bytes + 63) & ~(size_t)63;
    wd->fallback_shared = calloc(1, fallback->shared_bytes ? fallback->shared_bytes : 1);
    if (wd->fallback_block_bytes) {
        wd->fallback_blocks = aligned_alloc(64, wd->fallback_block_bytes * s->worker_count);
        if (wd->fallback_blocks)
            memset(wd->fallback_blocks, 0, wd->fallback_block_bytes * s->worker_count);
    }
    if (!wd->fallback_shared || (wd->fallback_block_bytes && !wd->fallback_blocks))
        return false;
    wd->fallback = fallback;
    return true;
}

/* Stall, lost wakeup or nothing, at now_ms (run-queue lock held). */
static enum sched_watchdog_kind judge_locked(struct sched *s, uint32_t now_ms, uint32_t *waited_ms)
{
    const struct watchdog *wd = &s->watchdog;
    const struct process *oldest = s->runnable_head;
    if (s->stopping || wd->handed_over || !oldest)
        return WATCHDOG_NONE;
    uint32_t age = now_ms - oldest->runnable_ms; /* modular: right across the 49-day wrap */
    *waited_ms = age;
    if (age > wd->ms + wd->period_ms)
        return WATCHDOG_STALL;
    if (age <= wd->ms / 10 + wd->period_ms)
        return WATCHDOG_NONE;
    for (unsigned i = 0; i < s->worker_count; i++) {
        const struct worker *w = &s->workers[i];
        /* Asleep since a period before it became runnable: certainly before. */
        if (w->sleeping && (int32_t)(oldest->runnable_ms - w->sleep_ms) > 0)
            return WATCHDOG_LOST_WAKEUP;
    }
    return WATCHDOG_NONE;
}

static unsigned long long pid_no(term pid) { return (unsigned long long)pid_number(pid); }

/* The report, on stderr (both locks held: names and queues are stable). */
static void report_locked(struct sched *s, const struct process *oldest, uint32_t now_ms)
{
    const struct watchdog *wd = &s->watchdog;
    const struct sched_watchdog_event *e = &wd->event;
    const struct policy_ops *policy = s->policy;
    char name[300] = "";
    if (is_value(e->name)) {
        size_t len;
        const char *text = atom_text(e->name, &len);
        snprintf(name, sizeof name, " (registered as %.*s)", (int)(len > 200 ? 200 : len), text);
    }
    fflush(stdout);
    if (e->kind == WATCHDOG_STALL)
        fprintf(stderr, "clause: watchdog: stall under policy %s: <0.%llu.0>%s runnable for %llu ms (--watchdog %u)",
                policy->name, pid_no(e->pid), name, (unsigned long long)e->waited_ms, wd->ms);
    else
        fprintf(stderr,
                "clause: watchdog: lost wakeup under policy %s: <0.%llu.0>%s runnable for %llu ms while a worker "
                "slept since before it was queued (--watchdog %u: over %u ms)",
                policy->name, pid_no(e->pid), name, (unsigned long long)e->waited_ms, wd->ms, wd->ms / 10);
    fprintf(stderr, wd->fallback ? "; the program goes on under %s\n" : "; nothing to hand it to\n",
            wd->fallback ? wd->fallback->name : "");
    for (unsigned i = 0; i < s->worker_count; i++) {
        const struct worker *w = &s->workers[i];
        fprintf(stderr, "clause: watchdog:   worker %u: ", i);
        if (policy->queue_length)
            fprintf(stderr, "%zu queued", policy->queue_length(s, (worker_id)i));
        else
            fputs("queue length unknown", stderr);
        if (w->sleeping)
            fprintf(stderr, ", asleep for %u ms", now_ms - w->sleep_ms);
        else if (w->running)
            fprintf(stderr, ", running <0.%llu.0> for %u ms", pid_no(w->running->pid), now_ms - w->slice_start_ms);
        else
            fputs(", awake", stderr);
        if (w->last_pid)
            fprintf(stderr, "; latest slice <0.%llu.0> ended %u ms ago\n", pid_no(w->last_pid),
                    now_ms - w->last_end_ms);
        else
            fputs("; no slice ended yet\n", stderr);
    }
    (void)oldest;
}

/* Swaps the policy in use with the one kept in the watchdog. */
static void swap_policy(struct sched *s)
{
    struct watchdog *wd = &s->watchdog;
    const struct policy_ops *ops = s->policy;
    s->policy = wd->fallback;
    wd->fallback = ops;
    void *shared = s->policy_view.shared;
    s->policy_view.shared = wd->fallback_shared;
    wd->fallback_shared = shared;
    char *blocks = s->policy_view.worker_blocks;
    s->policy_view.worker_blocks = wd->fallback_blocks;
    wd->fallback_blocks = blocks;
    size_t bytes = s->policy_view.worker_block_bytes;
    s->policy_view.worker_block_bytes = wd->fallback_block_bytes;
    wd->fallback_block_bytes = bytes;
    long long params[POLICY_MAX_PARAMS];
    memcpy(params, s->policy_view.params, sizeof params);
    memcpy(s->policy_view.params, wd->fallback_params, sizeof params);
    memcpy(wd->fallback_params, params, sizeof params);
}

/* Reports and hands the program over (both locks held). */
static void act_locked(struct sched *s, enum sched_watchdog_kind kind, uint32_t now_ms, uint32_t waited_ms)
{
    struct watchdog *wd = &s->watchdog;
    struct process *oldest = s->runnable_head;
    wd->event = (struct sched_watchdog_event){kind,
                                              now_ms,
                                              waited_ms,
                                              oldest->pid,
                                              oldest->registered_name,
                                              s->policy->name,
                                              wd->fallback ? wd->fallback->name : NULL};
    if (TRACING(s->trace)) {
        struct trace_record *r = sched_trace_instant(sched_trace_locked_ring(s->trace, s->worker_count), TRACE_WATCHDOG,
                                                     pid_number(oldest->pid), 0, kind);
        r->name = oldest->registered_name;
        r->reds = waited_ms;
    }
    report_locked(s, oldest, now_ms);
    wd->handed_over = true; /* it acts once */
    if (!wd->fallback)
        return;
    const struct policy_ops *old = s->policy;
    if (old->remove)
        for (struct process *p = s->runnable_head; p; p = p->runnable_next)
            old->remove(s, p);
    swap_policy(s);
    for (struct process *p = s->runnable_head; p; p = p->runnable_next) {
        p->policy_link[0] = p->policy_link[1] = NULL;
        s->policy->enqueue(s, NOT_A_WORKER, NULL, p, ENQUEUE_WAKE_BY_RUNTIME);
    }
    sched_bump_work_generation_locked(s);
    for (unsigned i = 0; i < s->worker_count; i++) {
        struct worker *w = &s->workers[i];
        if (w->sleeping) {
            w->sleeping = false;
            s->sleeping_count--;
            rt_event_signal(&w->wake);
        }
    }
}

void watchdog_check(struct sched *s, uint64_t now_ns)
{
    uint32_t now_ms = (uint32_t)((now_ns - s->start_ns) / 1000000u);
    atomic_store_explicit(&s->coarse_ms, now_ms, memory_order_relaxed);
    uint32_t waited = 0;
    rt_lock(&s->rq_lock);
    enum sched_watchdog_kind kind = judge_locked(s, now_ms, &waited);
    rt_unlock(&s->rq_lock);
    if (kind == WATCHDOG_NONE)
        return;
    /* Both locks, in their order; the verdict is taken again, since the
     * process may have been picked meanwhile. */
    rt_lock(&s->exec_lock);
    rt_lock(&s->rq_lock);
    kind = judge_locked(s, now_ms, &waited);
    if (kind != WATCHDOG_NONE)
        act_locked(s, kind, now_ms, waited);
    rt_unlock(&s->rq_lock);
    rt_unlock(&s->exec_lock);
}

void watchdog_destroy(struct sched *s)
{
    struct watchdog *wd = &s->watchdog;
    if (wd->handed_over && wd->fallback)
        swap_policy(s); /* the original policy's state back, for its fini */
    free(wd->fallback_shared);
    free(wd->fallback_blocks);
    wd->fallback_shared = NULL;
    wd->fallback_blocks = NULL;
}
