/*
 * collector.c — long collections on collector threads (internal.h).
 *
 * OTP collects a heap estimated at ERTS_POTENTIALLY_LONG_GC_HSIZE words or
 * more on a dirty CPU scheduler (erl_gc.c, check_for_possibly_long_gc), so
 * that the other processes of its scheduler run meanwhile. Here the
 * process's body stops at the collection's point with BODY_COLLECT, every
 * root saved on its stack (proc_gc.h: proc_collect_elsewhere); its worker
 * ends the slice for the policy (stopping) and queues the process here
 * instead of settling it, then runs other processes. The process stays
 * PROC_RUNNING throughout: senders push onto its arrivals, exit signals wait
 * among its pending exits, and builtins that target it block until its
 * slice ends, exactly as for a process running on another worker. A
 * collector takes it, collects (proc_collect_saved), and hands it back to
 * its worker (sched_collected), which settles it at its next slice
 * boundary under the executor mutex: pending exits, blocked senders,
 * queueing through the policy, its reductions. Resumed, the body goes on
 * as if the collection had just returned.
 *
 * A builtin may hand over work of its own the same way (bif.h:
 * bif_trap_elsewhere; re:run's long match): the collector runs it instead
 * of a collection, and the process resumes in the builtin's continuation.
 *
 * Locks: the pool's own mutex guards its queue and figures and is never
 * held while another lock is taken (a worker may hold the executor mutex
 * and the run-queue lock when it submits: the pool's lock comes last). A
 * collector touches nothing of a worker but its collected list, under the
 * run-queue lock, and the process it collects, which nobody else touches
 * while it is there (it runs, and is on no worker).
 */
#include "rt/cpu_binding.h"
#include "rt/internal.h"
#include "rt/proc_gc.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

_Thread_local bool rt_on_collector;

struct collector_arg {
    struct sched *s;
    unsigned index;
};

bool collectors_init(struct sched *s, unsigned count)
{
    struct collectors *c = &s->collectors;
    if (count == 0)
        return true;
    c->threads = calloc(count, sizeof *c->threads);
    if (!c->threads)
        return false;
    c->count = count;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->work, NULL);
    return true;
}

static void *collector_thread(void *arg)
{
    struct collector_arg a = *(struct collector_arg *)arg;
    free(arg);
    struct sched *s = a.s;
    struct collectors *c = &s->collectors;
    rt_on_collector = true;
    /* Linux's SCHED_BATCH: a collector woken by a worker does not preempt
     * it (with more threads than CPUs, a woken collector on the worker's
     * CPU otherwise took the CPU from it for a scheduler tick: 2-3 ms in
     * which the worker's other processes, which the collector is there to
     * let run, waited). Refused or absent: it runs as any thread. */
#ifdef SCHED_BATCH
    struct sched_param batch = {0};
    (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &batch);
#endif
    /* With bound workers, a collector keeps off their CPUs when any are
     * spare: on a worker's CPU the OS time-slices the two, and a ping
     * answered in microseconds otherwise waited a scheduler slice. */
    if (s->binding)
        (void)cpu_binding_bind_spare_thread(s->binding, s->worker_count);
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->stop && !c->first)
            pthread_cond_wait(&c->work, &c->lock);
        if (c->stop)
            break;
        struct process *p = c->first;
        c->first = p->next_released;
        if (!c->first)
            c->last = NULL;
        p->next_released = NULL;
        atomic_fetch_add_explicit(&c->busy, 1, memory_order_relaxed);
        pthread_mutex_unlock(&c->lock);

        if (c->test_hook)
            c->test_hook(p, c->test_hook_arg);
        uint64_t stamp = profile_stamp(), started = sched_clock_ns();
        /* A collection the program asked for may have given its free
         * part back (heap_release_free_span): not to be faulted in again. */
        bool requested = p->heap.gc_requested;
        bool builtin = collector_run(p);
        uintptr_t free_lo, free_hi;
        bool prefault = !builtin && !requested && heap_free_span(&p->heap, &free_lo, &free_hi);
        uint64_t ns = sched_clock_ns() - started, ticks = profile_stamp() - stamp;

        pthread_mutex_lock(&c->lock);
        if (builtin) {
            c->builtins_done++;
            c->builtins_ns += ns;
        } else {
            c->done++;
            c->total_ns += ns;
            if (ns > c->max_ns)
                c->max_ns = ns;
        }
        atomic_fetch_sub_explicit(&c->busy, 1, memory_order_relaxed);
        pthread_mutex_unlock(&c->lock);
        sched_collected(s, p, a.index, stamp, ticks, builtin);
        /* After the hand-back, not before: the process goes on meanwhile
         * (a page it touches first is left as it is), and a free part it
         * never fills (a program about to end) no longer delays it. */
        if (prefault)
            heap_prefault_span(free_lo, free_hi);
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

bool collectors_start(struct sched *s)
{
    struct collectors *c = &s->collectors;
    for (unsigned i = 0; i < c->count; i++) {
        struct collector_arg *arg = malloc(sizeof *arg);
        if (!arg)
            break;
        *arg = (struct collector_arg){s, i};
        if (pthread_create(&c->threads[i], NULL, collector_thread, arg) != 0) {
            free(arg);
            break;
        }
        c->started++;
    }
    if (c->count && c->started < c->count)
        fprintf(stderr, "clause: started %u of %u collector threads\n", c->started, c->count);
    atomic_store_explicit(&c->on, c->started > 0, memory_order_relaxed);
    return c->started > 0;
}

void collectors_stop(struct sched *s)
{
    struct collectors *c = &s->collectors;
    if (c->count == 0)
        return;
    atomic_store_explicit(&c->on, false, memory_order_relaxed);
    pthread_mutex_lock(&c->lock);
    c->stop = true;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->lock);
    for (unsigned i = 0; i < c->started; i++)
        pthread_join(c->threads[i], NULL);
    c->started = 0;
}

void collectors_destroy(struct sched *s)
{
    struct collectors *c = &s->collectors;
    if (c->count == 0)
        return;
    collectors_stop(s);
    pthread_cond_destroy(&c->work);
    pthread_mutex_destroy(&c->lock);
    free(c->threads);
    c->threads = NULL;
    c->count = 0;
}

bool collector_run(struct process *p)
{
    if (p->collected != PROC_WORK_ELSEWHERE) {
        proc_collect_saved(p);
        return false;
    }
    p->collected = PROC_COLLECTED_NONE;
    p->work_elsewhere->run(p->work_elsewhere);
    return true;
}

void collectors_submit(struct sched *s, struct process *p)
{
    struct collectors *c = &s->collectors;
    p->next_released = NULL;
    pthread_mutex_lock(&c->lock);
    if (c->last)
        c->last->next_released = p;
    else
        c->first = p;
    c->last = p;
    pthread_cond_signal(&c->work);
    pthread_mutex_unlock(&c->lock);
}

void sched_test_collector_hook(struct sched *s, void (*hook)(struct process *p, void *arg), void *arg)
{
    s->collectors.test_hook = hook;
    s->collectors.test_hook_arg = arg;
}
