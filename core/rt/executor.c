/*
 * executor.c — workers, slices, spawning, waking, and program end.
 *
 * Each worker runs one loop: at a slice boundary it takes the executor
 * mutex, settles the process whose slice just ended (queue it again, park
 * it, or finish it), then takes the run-queue lock and asks the policy for
 * the next process; it marks that process running, leaves both locks, frees
 * the contexts of processes that ended (never under the mutex) and resumes
 * the process's body for one slice. A worker with nothing to run sleeps on
 * its own event (rt/lock.h: a futex word, whatever kind the locks are),
 * after checking the queues and reading the event's count under the
 * run-queue lock: every queueing takes that lock and signals the event, so
 * a wakeup cannot fall between the check and the sleep.
 *
 * Reclamation: a worker stays inside its ck_epoch section while it runs,
 * and passes through a quiescent point every EPOCH_POLL_SLICES slice
 * boundaries and before it sleeps or spins, so what was retired (replaced
 * process-table arrays, later arrivals of ended processes) is freed once
 * every worker has passed such a point after the retirement.
 */
#include "rt/executor.h"
#include "rt/aliases.h"
#include "rt/ets_table.h"
#include "rt/io_thread.h"
#include "rt/names.h"
#include "rt/ports.h"
#include "rt/resources.h"
#include "rt/sched_profile.h"
#include "rt/sched_trace.h"
#include "rt/schedule.h"

#include "metrics/metrics.h"
#include "rt/cpu_binding.h"
#include "rt/internal.h"
#include "rt/message.h"
#include "rt/proc_dict.h"
#include "rt/proc_gc.h"
#include "rt/proc_table.h"
#include "rt/signals.h"
#include "term/atom.h"

#include <ck_epoch.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- services for policies ---- */

_Static_assert(offsetof(struct sched, policy_view) == 0, "policy.h's inline services read the view at the start");
_Static_assert(offsetof(struct process, policy_link) == 0, "sched_policy_proc_link is the process's address");

unsigned sched_worker_count(const struct sched *s) { return s->worker_count; }

bool sched_worker_sleeping(const struct sched *s, worker_id w) { return s->workers[w].sleeping; }

void *sched_policy_proc_data(struct process *p) { return p->policy_data; }

int32_t sched_proc_reductions_left(const struct process *p) { return p->reds_left; }

enum proc_priority sched_proc_priority(const struct process *p) { return (enum proc_priority)p->priority; }

worker_id sched_sleeping_worker(const struct sched *s, worker_id after)
{
    if (s->sleeping_count == 0)
        return NOT_A_WORKER;
    unsigned n = s->worker_count;
    unsigned start = after == NOT_A_WORKER ? 0 : ((unsigned)after + 1) % n;
    for (unsigned k = 0; k < n; k++) {
        unsigned i = (start + k) % n;
        if (s->workers[i].sleeping)
            return (worker_id)i;
    }
    return NOT_A_WORKER;
}

worker_id sched_proc_last_worker(const struct process *p) { return p->last_worker; }

void sched_proc_set_last_worker(struct process *p, worker_id w) { p->last_worker = w; }

void sched_count_steal_attempt(struct sched *s, worker_id thief) { s->metrics[thief].steal_attempts++; }

void sched_count_steal(struct sched *s, worker_id thief, worker_id victim)
{
    s->metrics[thief].steals++;
    s->metrics[victim].stolen_from++;
    /* The thief steals on its own thread: its ring has no other writer. */
    if (TRACING(s->trace))
        sched_trace_instant(&s->trace[thief], TRACE_STEAL, 0, victim, 0);
}

void sched_count_balance_move(struct sched *s, worker_id to, worker_id from)
{
    s->metrics[to].balance_taken++;
    /* Any thread may move (an enqueue by the timer thread): the ring
     * written under the run-queue lock, which every policy callback holds. */
    if (TRACING(s->trace))
        sched_trace_instant(sched_trace_locked_ring(s->trace, s->worker_count), TRACE_BALANCE, 0, from, 0)->reds = to;
}

struct sched *proc_sched(const struct process *p) { return p->sched; }

size_t sched_live_processes(struct sched *s) { return proc_table_count(&s->table); }

const struct worker_metrics *sched_metrics(const struct sched *s) { return s->metrics; }

const struct policy_ops *sched_policy(const struct sched *s) { return s->policy; }

const struct sched_watchdog_event *sched_watchdog_event(const struct sched *s) { return &s->watchdog.event; }

void sched_set_engine(struct sched *s, void *engine) { s->engine = engine; }
void *sched_engine(const struct sched *s) { return s->engine; }
term sched_main_pid(const struct sched *s) { return s->main_pid; }
void sched_set_main_crash_status(struct sched *s, int status) { s->main_crash_status = status; }

term sched_hold_end(struct process *holder)
{
    struct sched *s = holder->sched;
    term main = THE_NON_VALUE;
    rt_lock(&s->exec_lock);
    if (is_value(s->main_pid) && !s->main_ended && proc_table_lookup(&s->table, pid_number(s->main_pid))) {
        s->end_holder = holder->pid;
        main = s->main_pid;
    }
    rt_unlock(&s->exec_lock);
    return main;
}

void sched_set_kernel_booted(struct sched *s) { atomic_store_explicit(&s->kernel_booted, true, memory_order_release); }

bool sched_kernel_booted(const struct sched *s)
{
    return atomic_load_explicit(&s->kernel_booted, memory_order_acquire);
}

void sched_set_global_started(struct sched *s)
{
    atomic_store_explicit(&s->global_started, true, memory_order_release);
}

bool sched_global_started(const struct sched *s)
{
    return atomic_load_explicit(&s->global_started, memory_order_acquire);
}
uint64_t sched_blocked_builtins(const struct sched *s) { return s->blocked_builtins; }

uint64_t sched_lookups_skipped(const struct sched *s) { return s->lookups_skipped; }

void sched_collector_counts(struct sched *s, uint64_t *collections, uint64_t *total_ns, uint64_t *max_ns,
                            unsigned *threads)
{
    struct collectors *c = &s->collectors;
    *collections = *total_ns = *max_ns = 0;
    *threads = c->count;
    if (c->count == 0)
        return;
    pthread_mutex_lock(&c->lock);
    *collections = c->done;
    *total_ns = c->total_ns;
    *max_ns = c->max_ns;
    pthread_mutex_unlock(&c->lock);
}

void sched_collector_builtins(struct sched *s, uint64_t *done, uint64_t *total_ns)
{
    struct collectors *c = &s->collectors;
    *done = *total_ns = 0;
    if (c->count == 0)
        return;
    pthread_mutex_lock(&c->lock);
    *done = c->builtins_done;
    *total_ns = c->builtins_ns;
    pthread_mutex_unlock(&c->lock);
}

unsigned sched_collections_under_way(struct sched *s)
{
    return atomic_load_explicit(&s->collectors.busy, memory_order_relaxed);
}

void sched_timer_counts(const struct sched *s, uint64_t *clock_readings, uint64_t *fired)
{
    *clock_readings = s->timer_wakes;
    *fired = s->timers_fired;
}

size_t sched_queue_length(struct sched *s, worker_id w)
{
    rt_lock(&s->rq_lock);
    size_t n = s->policy->queue_length ? s->policy->queue_length(s, w) : 0;
    rt_unlock(&s->rq_lock);
    return n;
}

void sched_test_set_sleeping(struct sched *s, worker_id w, bool sleeping)
{
    rt_lock(&s->rq_lock);
    if (s->workers[w].sleeping != sleeping)
        s->sleeping_count += sleeping ? 1u : (unsigned)-1;
    s->workers[w].sleeping = sleeping;
    rt_unlock(&s->rq_lock);
}

/* ---- native bodies ---- */

static enum body_stop native_resume(struct process *p) { return p->native_step(p, p->body_state); }

static void native_release(struct process *p)
{
    if (p->native_free)
        p->native_free(p->body_state);
    p->body_state = NULL;
}

const struct body_ops native_body_ops = {"native", native_resume, native_release, NULL, NULL};

_Thread_local struct proc_bif_call proc_bif_call;

/* ---- creation ---- */

uint64_t sched_clock_ns(void) { return heap_clock_ns(); }

/* Process memory churns in waves (a burst of spawns, then their exits; a
 * collection's new block, then the old one freed). glibc's default returns
 * the top of its heap to the OS after every wave, so the next one faults in
 * every page again: measured, a million spawn+exit took 10x longer. Keep up
 * to 256 MiB of freed memory instead, and pad growth by 64 MiB. Setting
 * those fixes glibc's mmap threshold at its 128 KiB start, so every heap
 * block above it would be a fresh mapping, faulted in page by page and
 * unmapped when the next collection frees it: a third of the time of a
 * program collecting 300,000-element lists went to page faults. Heap
 * blocks up to 4 MiB, fragments and binaries up to 128 MiB come from
 * malloc's reusable memory instead; bigger heap blocks are mappings of
 * their own, kept warm by heap.c's cache (golden portioned_bifs: 2.4 s to
 * 0.7 s, peak resident 120 to 129 MB; portioned_binaries: 4.7 s to 1.6 s,
 * 236 to 340 MB; with the cache, 146 and 291 MB). A program's own request
 * to shed memory (erlang:garbage_collect) gives what is kept back
 * (heap_return_free_memory). */
static void tune_malloc(void)
{
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 128 << 20);
}

struct sched *sched_create(const struct sched_config *config, const char **error)
{
    tune_malloc();
    const struct policy_ops *policy = config->policy ? config->policy : policy_all()[0];
    if (config->workers < 1 || config->workers > SCHED_MAX_WORKERS) {
        *error = "worker count out of range";
        return NULL;
    }
    if (policy->proc_bytes > POLICY_MAX_PROC_BYTES || policy->param_count > POLICY_MAX_PARAMS ||
        config->busy_wait > SCHED_MAX_BUSY_WAIT || config->watchdog_ms > SCHED_MAX_WATCHDOG_MS) {
        *error = "the policy declares too much per-process state or too many parameters, or busy-wait or the "
                 "watchdog is too long";
        return NULL;
    }
    /* Its locks are cache-line aligned (rt/lock.h), so it is too. */
    struct sched *s = aligned_alloc(64, sizeof *s);
    if (!s) {
        *error = "out of memory";
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->policy = policy;
    for (unsigned i = 0; i < policy->param_count; i++)
        s->policy_view.params[i] = config->policy_params ? config->policy_params[i] : policy->params[i].def;
    s->busy_wait = config->busy_wait;
    s->worker_count = config->workers;
    s->schedule = config->schedule;
    s->binding = config->binding;
    s->max_heap_words = config->max_heap_words;
    s->send_mode = config->send_mode;
    s->defer_wakes = config->send_mode == SEND_MODE_ARRIVALS &&
                     (config->defer_wakes > 0 || (config->defer_wakes == 0 && config->workers > 1));
    s->timer_mode = config->timer_mode;
    if (s->schedule) {
        /* The controller fires the timers between steps and keeps idle
         * workers from spinning; a watchdog on the wall clock would act at
         * a different step in every run. */
        s->timer_mode = TIMER_THREAD;
        s->busy_wait = 0;
    }
    s->main_pid = THE_NON_VALUE;
    s->end_holder = THE_NON_VALUE;
    s->host_pid = THE_NON_VALUE;
    pthread_mutex_init(&s->service_lock, NULL);
    /* Per-worker policy blocks padded to cache lines: workers never share one. */
    s->policy_view.worker_block_bytes = (policy->worker_bytes + 63) & ~(size_t)63;
    s->workers = aligned_alloc(64, sizeof(struct worker) * s->worker_count);
    s->metrics = aligned_alloc(64, sizeof(struct worker_metrics) * s->worker_count);
    s->policy_view.worker_blocks = s->policy_view.worker_block_bytes
                                       ? aligned_alloc(64, s->policy_view.worker_block_bytes * s->worker_count)
                                       : NULL;
    s->policy_view.shared = calloc(1, policy->shared_bytes ? policy->shared_bytes : 1);
    if (!s->workers || !s->metrics || (s->policy_view.worker_block_bytes && !s->policy_view.worker_blocks) ||
        !s->policy_view.shared) {
        free(s->policy_view.shared);
        free(s->workers);
        free(s->metrics);
        free(s->policy_view.worker_blocks);
        free(s);
        *error = "out of memory";
        return NULL;
    }
    memset(s->workers, 0, sizeof(struct worker) * s->worker_count);
    memset(s->metrics, 0, sizeof(struct worker_metrics) * s->worker_count);
    if (s->policy_view.worker_blocks)
        memset(s->policy_view.worker_blocks, 0, s->policy_view.worker_block_bytes * s->worker_count);
    if (!rt_lock_init(&s->exec_lock, config->locks, RT_LOCK_SLOT_EXEC) ||
        !rt_lock_init(&s->rq_lock, config->locks, RT_LOCK_SLOT_RUNQ) ||
        !context_pool_init(&s->contexts, sizeof(struct process) + policy->proc_bytes)) {
        free(s->policy_view.shared);
        free(s->workers);
        free(s->metrics);
        free(s->policy_view.worker_blocks);
        free(s);
        *error = "cannot create the executor's locks";
        return NULL;
    }
    s->start_ns = sched_clock_ns();
    s->start_stamp = profile_stamp();
    s->sysmon.pid = THE_NON_VALUE;
    timer_wheel_init(&s->wheel, 0);
    ck_epoch_init(&s->epoch);
    for (unsigned i = 0; i < s->worker_count; i++) {
        struct worker *w = &s->workers[i];
        w->sched = s;
        w->id = (worker_id)i;
        ck_epoch_register(&s->epoch, &w->epoch_record, NULL);
    }
    if (!proc_table_init(&s->table, &s->epoch, 1024) || !persistent_init(&s->persistent, &s->epoch) ||
        !(s->ets = ets_registry_new()) || !(s->io = io_state_new()) || !(s->ports = ports_state_new())) {
        *error = "out of memory";
        sched_destroy(s);
        return NULL;
    }
    if (policy->init && !policy->init(s)) {
        *error = "the policy refused the configuration";
        sched_destroy(s);
        return NULL;
    }
    if (!collectors_init(s, s->schedule                                 ? 0
                            : config->gc_threads > SCHED_MAX_GC_THREADS ? SCHED_MAX_GC_THREADS
                                                                        : config->gc_threads)) {
        *error = "out of memory";
        sched_destroy(s);
        return NULL;
    }
    if (!watchdog_init(s, s->schedule ? 0 : config->watchdog_ms)) {
        *error = "out of memory";
        sched_destroy(s);
        return NULL;
    }
    atom_table_init();
    return s;
}

/* ---- waking and stopping (run-queue lock held) ---- */

static void wake_worker_locked(struct sched *s, worker_id waker, worker_id target)
{
    if (target == NOT_A_WORKER)
        return;
    struct worker *w = &s->workers[target];
    if (!w->sleeping)
        return;
    w->sleeping = false;
    s->sleeping_count--;
    rt_event_signal(&w->wake);
    if (waker != NOT_A_WORKER)
        s->metrics[waker].wakeups_sent++;
}

void sched_kick_worker(struct sched *s, worker_id self, worker_id w)
{
    sched_bump_work_generation_locked(s);
    wake_worker_locked(s, self, w);
}

uint64_t sched_test_work_generation(struct sched *s)
{
    return atomic_load_explicit(&s->work_generation, memory_order_acquire);
}

unsigned sched_test_epoch_pending(struct sched *s, worker_id w) { return s->workers[w].epoch_record.n_pending; }

void sched_test_context_chunks(struct sched *s, size_t *mapped, size_t *returned)
{
    pthread_mutex_lock(&s->contexts.lock);
    *mapped = s->contexts.chunk_count;
    *returned = s->contexts.chunks_returned;
    pthread_mutex_unlock(&s->contexts.lock);
}

void sched_test_lock(struct sched *s) { rt_lock(&s->exec_lock); }

void sched_test_unlock(struct sched *s) { rt_unlock(&s->exec_lock); }

void sched_stop_locked(struct sched *s, int status)
{
    if (s->stopping)
        return; /* the first end wins */
    s->stopping = true;
    s->exit_status = status;
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

/* sched_wake_waiting_locked with both locks held. */
static void wake_waiting_rq_locked(struct sched *s, worker_id waker, struct process *p, enum enqueue_reason why)
{
    timer_wheel_cancel(&s->wheel, &p->timer); /* the wake came first */
    sched_enqueue_locked(s, waker, p, why);
}

void sched_wake_waiting_locked(struct sched *s, worker_id waker, struct process *p, enum enqueue_reason why)
{
    rt_lock(&s->rq_lock);
    wake_waiting_rq_locked(s, waker, p, why);
    rt_unlock(&s->rq_lock);
}

/* p's send pushed onto its arrivals: whether it is still parked with a
 * message among them, and so needs the wake (executor mutex held). Anyone
 * who takes a parked process's arrivals under the mutex wakes it, so a
 * message left there always has a wake on its way. */
static bool parked_with_arrivals(const struct process *p)
{
    return proc_state(p) == PROC_WAITING && message_arrivals_pending(p);
}

/* Takes the run-queue lock (executor mutex held) and queues the receivers
 * that w's slice left to wake (sched_defer_wake): the wakes share the lock
 * that the slice's end takes anyway, one acquisition of a line both
 * workers write instead of one more for each wake. */
static void lock_run_queues(struct sched *s, struct worker *w)
{
    rt_lock(&s->rq_lock);
    for (unsigned i = 0; i < w->deferred_count; i++)
        if (parked_with_arrivals(w->deferred_wakes[i]))
            wake_waiting_rq_locked(s, w->id, w->deferred_wakes[i], ENQUEUE_WAKE_BY_PROCESS);
    w->deferred_count = 0;
}

void sched_defer_wake(struct process *self, struct process *p)
{
    struct sched *s = self->sched;
    struct worker *w =
        self->last_worker >= 0 && (unsigned)self->last_worker < s->worker_count ? &s->workers[self->last_worker] : NULL;
    if (w && w->running != self)
        w = NULL; /* not a slice on a worker: no slice end to wait for */
    if (w) {
        for (unsigned i = 0; i < w->deferred_count; i++)
            if (w->deferred_wakes[i] == p)
                return;
        if (w->deferred_count < SCHED_DEFERRED_WAKES) {
            w->deferred_wakes[w->deferred_count++] = p;
            return;
        }
    }
    rt_lock(&s->exec_lock);
    if (w)
        lock_run_queues(s, w);
    else
        rt_lock(&s->rq_lock);
    if (parked_with_arrivals(p))
        wake_waiting_rq_locked(s, self->last_worker, p, ENQUEUE_WAKE_BY_PROCESS);
    rt_unlock(&s->rq_lock);
    rt_unlock(&s->exec_lock);
}

/* ---- the executor's list of runnable processes (run-queue lock) ---- */

static bool runnable_linked(const struct sched *s, const struct process *p)
{
    return p->runnable_prev || s->runnable_head == p;
}

/* p became runnable now: it joins the end. */
static void runnable_link(struct sched *s, struct process *p)
{
    p->runnable_ms = sched_coarse_ms(s);
    p->runnable_next = NULL;
    p->runnable_prev = s->runnable_tail;
    if (s->runnable_tail)
        s->runnable_tail->runnable_next = p;
    else
        s->runnable_head = p;
    s->runnable_tail = p;
}

/* p left the queues (a worker took it, or it was removed); a process that
 * is not on the list (a policy test's own enqueue) is left alone. */
static void runnable_unlink(struct sched *s, struct process *p)
{
    if (!runnable_linked(s, p))
        return;
    if (p->runnable_prev)
        p->runnable_prev->runnable_next = p->runnable_next;
    else
        s->runnable_head = p->runnable_next;
    if (p->runnable_next)
        p->runnable_next->runnable_prev = p->runnable_prev;
    else
        s->runnable_tail = p->runnable_prev;
    p->runnable_prev = p->runnable_next = NULL;
}

void sched_policy_remove_locked(struct sched *s, struct process *p)
{
    s->policy->remove(s, p);
    runnable_unlink(s, p);
}

/* Queues p on behalf of waker (enqueue's argument). */
static void enqueue_by_locked(struct sched *s, worker_id self, struct process *waker, struct process *p,
                              enum enqueue_reason why)
{
    const struct proc_signals *sig = proc_signals_of(p);
    if (sig->holds > 0 && why != ENQUEUE_UNBLOCKED) {
        /* Held for blocked processes: it is queued when the last one has
         * repeated its builtin (sched_release_hold_locked). A held process
         * that must itself repeat a blocked builtin is queued all the same:
         * two processes blocked on each other (both sending at once) would
         * otherwise hold each other forever. If its holder then finds it
         * running, that holder blocks once more. */
        atomic_store_explicit(&p->state, PROC_HELD, memory_order_release);
        return;
    }
    if (sig->suspends > 0) {
        /* Suspended: queued when its last suspend is resumed. */
        atomic_store_explicit(&p->state, PROC_SUSPENDED, memory_order_release);
        return;
    }
    atomic_store_explicit(&p->state, PROC_RUNNABLE, memory_order_release);
    if (PROFILING(s->profile)) {
        /* Its slice is timed too when its wait is: one sample for both. */
        struct sampler *sampler =
            self == NOT_A_WORKER ? &s->profile->runtime_enqueues : &s->profile->workers[self].enqueues;
        p->queued_at = sampler_take(sampler) ? profile_stamp() : 0;
        /* A spawn by a process counts on its worker, the caller's thread. */
        if (why == ENQUEUE_SPAWN && self != NOT_A_WORKER && proc_table_count(&s->table) > s->metrics[self].peak_live)
            s->metrics[self].peak_live = proc_table_count(&s->table);
    }
    /* A process woke p (a send to it, waiting): the trace's arrow from the
     * waker's slice to p's next one. On the waker's worker's thread. */
    if (TRACING(s->trace) && waker && self != NOT_A_WORKER && why == ENQUEUE_WAKE_BY_PROCESS &&
        s->workers[self].trace_sampled) {
        struct trace_ring *tr = &s->trace[self];
        uint64_t id = (++tr->flows << 16) | ((uint64_t)self + 1);
        sched_trace_instant(tr, TRACE_FLOW_START, pid_number(p->pid), 0, 0)->ticks = id;
        p->trace_flow = id;
    }
    runnable_unlink(s, p); /* never there, unless a policy test queued it by hand */
    runnable_link(s, p);
    worker_id target = s->policy->enqueue(s, self, waker, p, why);
    sched_kick_worker(s, self, target); /* spinners look; the worker it names wakes if asleep */
}

void sched_enqueue_locked(struct sched *s, worker_id self, struct process *p, enum enqueue_reason why)
{
    /* A wake by a process comes from the worker it runs on, on that
     * worker's thread (or from its slice's settling there): the process
     * that worker runs is the waker. */
    struct process *waker = why == ENQUEUE_WAKE_BY_PROCESS && self != NOT_A_WORKER ? s->workers[self].running : NULL;
    enqueue_by_locked(s, self, waker, p, why);
}

void sched_block_on_locked(struct process *self, struct process *target)
{
    /* It held a target for its repeat and found it running again: it lets
     * go before blocking anew, so holds never outnumber holders. */
    sched_release_hold_locked(self);
    struct proc_signals *mine = proc_signals_make(self), *its = proc_signals_make(target);
    /* Without the memory for the record the builtin repeats at once
     * (settle_locked: blocked on nothing), a spin where it would wait. */
    if (!mine || !its)
        return;
    mine->blocked_on = target;
    mine->blocked_next = its->blocked_senders;
    its->blocked_senders = self;
    its->holds++;
    self->sched->blocked_builtins++;
}

void sched_release_hold_locked(struct process *self)
{
    struct proc_signals *mine = self->signals;
    struct process *target = mine ? mine->holding : NULL;
    if (!target)
        return;
    mine->holding = NULL;
    if (--target->signals->holds > 0) /* its hold was counted in its ties */
        return;
    struct sched *s = self->sched;
    if (proc_state(target) == PROC_HELD) {
        rt_lock(&s->rq_lock);
        sched_enqueue_locked(s, self->last_worker, target, ENQUEUE_WAKE_BY_PROCESS);
        rt_unlock(&s->rq_lock);
    } else if (target->release_when_unheld) {
        /* It ended while held: the last holder, on its own worker, frees it. */
        struct process **at = &s->ended_held;
        while (*at != target)
            at = &(*at)->next_released;
        *at = target->next_released;
        struct worker *w = &s->workers[self->last_worker];
        target->next_released = w->released;
        w->released = target;
    }
}

/* p's slice ended: the processes blocked on it may repeat their builtins.
 * Each now holds p and runs first; one still in its own slice is queued
 * when that slice ends (settle_locked). Executor mutex held. */
static void unblock_senders_locked(struct sched *s, struct worker *w, struct process *p, bool ending)
{
    struct proc_signals *its = p->signals; /* it has blocked senders: its ties exist */
    struct process *sender = its->blocked_senders;
    its->blocked_senders = NULL;
    while (sender) {
        struct proc_signals *theirs = sender->signals;
        struct process *next = theirs->blocked_next;
        theirs->blocked_next = NULL;
        theirs->blocked_on = NULL;
        /* An ending target needs no hold, and its context must not be
         * touched once it is reclaimed. */
        theirs->holding = ending ? NULL : p;
        if (ending)
            its->holds--; /* the hold it took when it blocked */
        if (proc_state(sender) == PROC_BLOCKED) {
            rt_lock(&s->rq_lock);
            sched_enqueue_locked(s, w->id, sender, ENQUEUE_UNBLOCKED);
            rt_unlock(&s->rq_lock);
        }
        sender = next;
    }
}

/* A worker keeps this many freed contexts for its next spawns, and moves
 * them to and from the pool SPARE_BATCH at a time: a process spawning in
 * bursts, or whose children end in bursts, took the pool's shared lock
 * once a context. */
#define SPARE_CONTEXTS 256
#define SPARE_BATCH 32

static void refill_spares(struct sched *s, struct worker *w)
{
    void *got[SPARE_BATCH];
    size_t n = context_pool_take_some(&s->contexts, &w->context_cursor, got, SPARE_BATCH);
    for (size_t i = n; i-- > 0;) {
        struct process *p = got[i];
        p->next_released = w->spares;
        w->spares = p;
    }
    w->spare_count += (unsigned)n;
}

/* A context zeroed but for its inline stack and first block, with an empty
 * heap in that block: a spare of the spawning worker when it has one
 * (spawning then allocates nothing), else a new one. No word of a stack is
 * read before it is written (a frame's slots are filled as it is made), so
 * the inline stack keeps what a previous process left. */
static struct process *new_context(struct sched *s, struct worker *w)
{
    if (w && !w->spares)
        refill_spares(s, w);
    struct process *p = w ? w->spares : NULL;
    if (p) {
        w->spares = p->next_released;
        w->spare_count--;
    } else if (w || !(p = context_pool_take(&s->contexts, NULL))) {
        return NULL;
    }
    memset(p, 0, offsetof(struct process, stack_inline));
    memset(p->policy_data, 0, s->policy->proc_bytes);
    heap_init_in(&p->heap, p->first_block, PROC_DEFAULT_HEAP_FLOOR, s->max_heap_words);
    return p;
}

struct process *sched_new_process(struct sched *s, struct process *parent, const struct body_ops *body)
{
    struct process *p = new_context(s, parent ? &s->workers[parent->last_worker] : NULL);
    if (!p)
        return NULL;
    p->sched = s;
    p->stack = p->stack_inline;
    p->stack_words = PROC_INLINE_STACK;
    p->body = body;
    p->exit_reason = A(normal);
    p->last_receiver_not_running = NIL;
    mailbox_init(&p->mailbox);
    /* A spawned process starts on its parent's worker. */
    p->last_worker = parent ? parent->last_worker : 0;
    p->ran_on = NOT_A_WORKER; /* its first slice counts as a first run, not a migration */
    p->priority = PRIORITY_NORMAL;
    atomic_init(&p->state, PROC_RUNNABLE);
    return p;
}

void sched_discard_process(struct process *p)
{
    proc_dict_free(&p->dictionary);
    mailbox_destroy(&p->mailbox);
    if (p->stack != p->stack_inline)
        proc_stack_free(p->stack, p->stack_words);
    heap_destroy(&p->heap);
    context_pool_give(&p->sched->contexts, p);
}

term sched_start_process(struct sched *s, struct process *parent, struct process *p)
{
    return sched_start_process_tied(s, parent, p, NULL);
}

term sched_start_process_tied(struct sched *s, struct process *parent, struct process *p, const struct spawn_ties *ties)
{
    worker_id home = p->last_worker;
    uint64_t number = proc_table_next_pid(&s->table);
    p->pid = make_pid(number);
    /* A spawned process inherits its parent's group leader; the first
     * process leads itself, unless the runtime has I/O servers (the clause
     * command): then the user server leads it, as OTP's user leads an
     * escript's processes, started when first needed (io_thread.h). */
    p->group_leader = parent ? parent->group_leader : io_servers_enabled(s) ? IO_LEADER_USER : p->pid;
    bool tied = parent && ties && (ties->link || ties->monitor);
    /* Ties are made before any worker can run it, and before anyone can
     * find it: under the executor mutex, which every exit signal and
     * process end takes. */
    if (tied) {
        rt_lock(&s->exec_lock);
        if ((ties->link && !signals_link_locked(parent, p)) ||
            (ties->monitor &&
             !signals_monitor_locked(parent, p, ties->monitor_ref, THE_NON_VALUE, ties->tag, ties->alias))) {
            signals_forget(p);
            rt_unlock(&s->exec_lock);
            sched_discard_process(p);
            return THE_NON_VALUE;
        }
    }
    /* The table retires a replaced array on the inserting thread's own
     * epoch record: the parent's worker is the calling thread. Without a
     * parent no worker runs yet, and the old array is freed at once. */
    if (!proc_table_insert(&s->table, number, p, parent ? &s->workers[home].epoch_record : NULL)) {
        if (tied) {
            signals_forget(p);
            rt_unlock(&s->exec_lock);
        }
        sched_discard_process(p);
        return THE_NON_VALUE;
    }
    term pid = p->pid; /* p may run and end as soon as it is queued */
    rt_lock(&s->rq_lock);
    enqueue_by_locked(s, parent ? home : NOT_A_WORKER, parent, p, ENQUEUE_SPAWN);
    rt_unlock(&s->rq_lock);
    if (tied)
        rt_unlock(&s->exec_lock);
    if (parent)
        s->metrics[home].spawned++;
    return pid;
}

term sched_spawn_native(struct sched *s, struct process *parent, native_step_fn step, void *state,
                        void (*free_state)(void *))
{
    struct process *p = sched_new_process(s, parent, &native_body_ops);
    if (!p)
        return THE_NON_VALUE;
    p->native_step = step;
    p->native_free = free_state;
    p->body_state = state;
    return sched_start_process(s, parent, p);
}

term sched_start_host_process(struct sched *s, struct process *p, struct host_outcome *outcome)
{
    uint64_t number = proc_table_next_pid(&s->table);
    p->pid = make_pid(number);
    /* No worker runs: a replaced table array can go at once. */
    if (!proc_table_insert(&s->table, number, p, NULL)) {
        sched_discard_process(p);
        return THE_NON_VALUE;
    }
    atomic_store_explicit(&p->state, PROC_RUNNING, memory_order_release);
    s->host = true;
    s->host_pid = p->pid;
    s->host_outcome = outcome;
    return p->pid;
}

/* By pid, never reused: a context released and taken again by another
 * process is not the invocation's. */
struct host_outcome *sched_host_outcome(const struct process *p)
{
    const struct sched *s = p->sched;
    return s->host && p->pid == s->host_pid ? s->host_outcome : NULL;
}

bool sched_stopped(struct sched *s, int *status, const char **failure)
{
    rt_lock(&s->rq_lock);
    bool stopped = s->stopping;
    *status = s->exit_status;
    rt_unlock(&s->rq_lock);
    *failure = s->host_failure[0] ? s->host_failure : NULL;
    return stopped;
}

struct process *sched_live_locked(struct sched *s, term pid)
{
    struct process *p = proc_table_lookup(&s->table, pid_number(pid));
    return p && proc_state(p) != PROC_EXITED ? p : NULL;
}

bool sched_is_alive(struct process *self, term pid)
{
    /* The caller's worker is inside its epoch section: the context stays
     * readable even if it ends meanwhile. */
    struct process *p = proc_table_lookup(&self->sched->table, pid_number(pid));
    return p && proc_state(p) != PROC_EXITED;
}

bool sched_wake(struct process *self, term pid)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct process *p = proc_table_lookup(&s->table, pid_number(pid));
    bool found = p != NULL;
    if (p) {
        if (proc_state(p) == PROC_WAITING) {
            sched_wake_waiting_locked(s, self->last_worker, p, ENQUEUE_WAKE_BY_PROCESS);
        } else {
            p->wake_pending = true; /* running or queued: its next wait returns at once */
        }
    }
    rt_unlock(&s->exec_lock);
    return found;
}

void sched_halt(struct process *self, int status)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    rt_lock(&s->rq_lock);
    sched_stop_locked(s, status);
    rt_unlock(&s->rq_lock);
    rt_unlock(&s->exec_lock);
}

/* ---- receive timeouts and the timer thread ---- */

uint64_t sched_elapsed_ns(const struct sched *s, const struct process *running)
{
    if (s->schedule)
        return schedule_now_ns(s->schedule, running);
    return sched_clock_ns() - s->start_ns;
}

/* Its worker's: the slice that sets it ends in the wait (an invocation's
 * process, which no worker runs, has worker 0's, whose thread never
 * starts). */
void sched_set_wait_timeout(struct process *self, int64_t ms)
{
    self->sched->workers[self->last_worker].wait_timeout_ms = ms;
}

/* The receive's deadline: ms after now_ns (since the start). */
static void start_receive_timeout_at(struct process *self, int64_t ms, uint64_t now_ns)
{
    if (ms < 0) {
        /* infinity: a deadline no tick reaches, so the receive is known to
         * have started when messages that match no clause wake it. */
        self->receive_deadline = RECEIVE_NO_DEADLINE;
        return;
    }
    self->receive_deadline = timer_tick_from_deadline_ns(now_ns + (uint64_t)ms * 1000000u);
    timer_node_set_deadline_ns(&self->timer, now_ns);
}

void sched_start_receive_timeout(struct process *self, int64_t ms)
{
    start_receive_timeout_at(self, ms, sched_elapsed_ns(self->sched, self));
}

bool sched_receive_timeout_passed(struct process *self)
{
    return self->receive_deadline != 0 &&
           timer_tick_from_clock_ns(sched_elapsed_ns(self->sched, self)) >= self->receive_deadline;
}

bool sched_take_timed_out(struct process *self)
{
    /* Set under the executor mutex before the process was queued; its
     * worker took that mutex since, so a plain read is ordered. */
    bool timed_out = self->timed_out;
    self->timed_out = false;
    return timed_out;
}

/* Arms p's timeout (executor mutex held). The deadline becomes the tick at
 * or after it, so it never fires early. When it is earlier than every other
 * timer, only the timer thread is woken, to sleep less. */
void sched_arm_timer_locked(struct sched *s, struct timer_node *node, uint64_t tick)
{
    uint64_t next = timer_wheel_next_wake(&s->wheel);
    timer_wheel_arm(&s->wheel, node, tick);
    if (tick >= next)
        return;
    if (s->timer_mode == TIMER_THREAD) {
        rt_event_signal(&s->timer_event);
        return;
    }
    /* Workers keep the timers: every idle worker wakes to sleep again until
     * the new earliest deadline. */
    rt_lock(&s->rq_lock);
    for (unsigned i = 0; i < s->worker_count; i++)
        wake_worker_locked(s, NOT_A_WORKER, (worker_id)i);
    rt_unlock(&s->rq_lock);
}

/* A finite timeout starts when its receive first waits and is not
 * restarted by messages that match no clause: the deadline is fixed at the
 * first wait and kept until the receive takes a message or times out
 * (message.c clears it). */
static void arm_receive_timeout_locked(struct sched *s, struct process *p, uint64_t ms)
{
    /* p's slice has ended: its reductions are on the clock already. */
    if (p->receive_deadline == 0)
        start_receive_timeout_at(p, (int64_t)ms, sched_elapsed_ns(s, NULL));
    sched_arm_timer_locked(s, &p->timer, p->receive_deadline);
}

static void fire_timeout_locked(struct timer_node *node, void *ctx)
{
    struct sched *s = ctx;
    if (PROFILING(s->profile))
        histogram_record(&s->profile->timer_late,
                         s->profile->timer_now_ns - s->start_ns - timer_tick_start_ns(timer_node_tick(node)));
    if (node->kind == TIMER_KIND_BIF) {
        bif_timer_fire_locked(s, node);
        return;
    }
    struct process *p = (struct process *)(void *)((char *)node - offsetof(struct process, timer));
    if (proc_state(p) != PROC_WAITING)
        return;
    /* A message among its arrivals came first: its wake is on its way. */
    p->timed_out = !message_arrivals_pending(p);
    s->timers_fired++;
    rt_lock(&s->rq_lock);
    sched_enqueue_locked(s, NOT_A_WORKER, p, ENQUEUE_WAKE_BY_RUNTIME);
    rt_unlock(&s->rq_lock);
}

void sched_fire_timeouts_locked(struct sched *s, uint64_t now_ns)
{
    s->timer_wakes++;
    if (PROFILING(s->profile))
        s->profile->timer_now_ns = s->start_ns + now_ns;
    timer_wheel_advance(&s->wheel, timer_tick_from_clock_ns(now_ns), fire_timeout_locked, s);
}

/* Fires every timeout whose tick has come on the wall clock (executor
 * mutex held). */
static void fire_due_timeouts_locked(struct sched *s) { sched_fire_timeouts_locked(s, sched_clock_ns() - s->start_ns); }

/* Sleeps until the next occupied slot, reads the clock once, advances the
 * wheel to that tick (firing expired timeouts in tick order), repeats. With
 * the watchdog on, it also wakes every watchdog period to publish the
 * coarse clock and run the watchdog's check (watchdog.c), without the
 * executor mutex; such a wake fires nothing and counts as no timer wake.
 * With --timers workers it runs for the watchdog alone. */
static void *timer_thread(void *arg)
{
    struct sched *s = arg;
    if (s->binding)
        cpu_binding_unbind_current_thread(s->binding);
    bool fires = s->timer_mode == TIMER_THREAD;
    uint64_t period_ns = (uint64_t)s->watchdog.period_ms * 1000000u;
    uint64_t next_check = period_ns ? sched_clock_ns() + period_ns : UINT64_MAX;
    if (PROFILING(s->profile))
        sched_profile_thread_begin(s, s->worker_count);
    rt_lock(&s->exec_lock);
    while (!s->timer_stop) {
        uint64_t next = fires ? timer_wheel_next_wake(&s->wheel) : UINT64_MAX;
        uint64_t wheel_due = next == UINT64_MAX ? UINT64_MAX : s->start_ns + timer_tick_start_ns(next);
        /* The count is read under the mutex, where arming signals it. */
        uint32_t seen = rt_event_prepare(&s->timer_event);
        rt_unlock(&s->exec_lock);
        bool deadline = !rt_event_wait(&s->timer_event, seen, wheel_due < next_check ? wheel_due : next_check);
        bool for_wheel = fires && (!deadline || wheel_due <= next_check);
        if (period_ns) {
            uint64_t now = sched_clock_ns();
            if (now >= next_check) {
                watchdog_check(s, now);
                next_check = now + period_ns;
            }
        }
        rt_lock(&s->exec_lock);
        if (s->timer_stop)
            break;
        if (!for_wheel)
            continue;
        if (PROFILING(s->profile)) {
            s->profile->timer_thread_wakes++;
            s->profile->timer_thread_deadline_wakes += deadline;
        }
        fire_due_timeouts_locked(s);
    }
    rt_unlock(&s->exec_lock);
    if (PROFILING(s->profile))
        sched_profile_thread_end();
    return NULL;
}

void sched_runtime_failure(struct process *self, const char *why)
{
    rt_lock(&self->sched->exec_lock);
    sched_runtime_failure_locked(self->sched, self->pid, why);
    rt_unlock(&self->sched->exec_lock);
}

void sched_runtime_failure_locked(struct sched *s, term pid, const char *why)
{
    rt_lock(&s->rq_lock);
    /* The first failure (or end) decides: processes on other workers that
     * run out of the same memory meanwhile add no line of their own. */
    if (!s->stopping) {
        if (s->host) { /* the invocation's thread is its only one: no other writer */
            snprintf(s->host_failure, sizeof s->host_failure, "%s", why);
        } else {
            fflush(stdout);
            fprintf(stderr, "clause: runtime failure in <0.%llu.0>: %s\n", (unsigned long long)pid_number(pid), why);
        }
        sched_stop_locked(s, EXIT_RUNTIME_FAILURE);
    }
    rt_unlock(&s->rq_lock);
}

/* ---- the worker loop ---- */

/* When memory kept for reuse is next due to go back to the system: the
 * big-block cache's oldest block, the context pool's oldest empty chunk. */
static uint64_t kept_memory_due_ns(struct sched *s)
{
    uint64_t heap_due = heap_big_cache_due_ns(), pool_due = context_pool_due_ns(&s->contexts);
    return heap_due < pool_due ? heap_due : pool_due;
}

/* The context itself of an ended process outlives its contents: senders
 * find processes through the table without any lock and may still touch
 * the context (its state and arrivals) until they leave their epoch
 * section, so it is freed, or kept as a spare of the worker that ended it,
 * only after a grace period. */
static void reclaim_context(ck_epoch_entry_t *entry)
{
    struct process *p = (struct process *)(void *)((char *)entry - offsetof(struct process, reclaim));
    struct worker *w = &p->sched->workers[p->last_worker];
    sched_tsan_acquire(p);
    p->next_released = w->spares;
    w->spares = p;
    if (++w->spare_count <= SPARE_CONTEXTS)
        return;
    void *back[SPARE_BATCH];
    for (size_t i = 0; i < SPARE_BATCH; i++) {
        back[i] = w->spares;
        w->spares = w->spares->next_released;
    }
    w->spare_count -= SPARE_BATCH;
    context_pool_give_some(&p->sched->contexts, back, SPARE_BATCH);
}

/* Frees what an ended process holds. On a worker (w), the context (with
 * its first heap block) goes through the epoch and may serve a spare; at
 * shutdown (w NULL, no sender left) everything is freed at once. */
static void release_process(struct worker *w, struct process *p)
{
    p->body->release(p);
    proc_resources_release_all(p); /* its open files close, as OTP's owner monitor closes them */
    signals_forget(p);
    message_release_arrivals(p);
    mailbox_destroy(&p->mailbox);
    proc_dict_free(&p->dictionary);
    if (p->stack != p->stack_inline)
        proc_stack_free(p->stack, p->stack_words);
    if (w) {
        /* It ended on w (settle_locked): its reason is still on its heap. */
        METRIC(metrics_count_exit(&w->sched->metrics[w->id], signals_exit_kind(p->exit_reason)));
        heap_destroy(&p->heap);
        /* reclaim_context runs on w (its epoch record) and keeps the
         * context among w's spares: a process ended by a signal from
         * another worker may still name the worker whose queue held it. */
        p->last_worker = w->id;
        ck_epoch_call(&w->epoch_record, &p->reclaim, reclaim_context);
        return;
    }
    heap_destroy(&p->heap);
    context_pool_give(&p->sched->contexts, p);
}

void sched_release_ended(struct process *p) { release_process(NULL, p); }

static void free_released(struct worker *w)
{
    struct process *p = w->released;
    w->released = NULL;
    while (p) {
        struct process *next = p->next_released;
        release_process(w, p);
        p = next;
    }
}

/* The policy hears that p's slice ended (both locks held), before p is
 * queued again if it runs on. */
static void stopping_locked(struct sched *s, struct worker *w, struct process *p, uint32_t used, enum stop_reason why)
{
    if (s->policy->stopping)
        s->policy->stopping(s, w->id, p, used, why);
}

/* The end of p's slice for the signals (executor mutex held): exit
 * signals that came during it act first, so that the processes blocked on
 * p find it ended when they repeat; then those are released. Whether p
 * ends (`ending`: it ended already). */
static bool settle_signals_locked(struct sched *s, struct worker *w, struct process *p, bool ending)
{
    if (!ending && proc_signals_of(p)->pending_first && signals_settle_pending_locked(s, p))
        ending = true;
    if (proc_signals_of(p)->blocked_senders)
        unblock_senders_locked(s, w, p, ending);
    return ending;
}

/* Settles p after its slice, in which it used `used` reductions (executor
 * mutex held). Returns with the run-queue lock held too (lock_run_queues:
 * the wakes its sends left go first). */
static void settle_locked(struct sched *s, struct worker *w, struct process *p, enum body_stop why, uint32_t used)
{
    if (settle_signals_locked(s, w, p, why == BODY_EXIT))
        why = BODY_EXIT;
    switch (why) {
    case BODY_EXIT:
        signals_finish_locked(s, w, p);
        lock_run_queues(s, w);
        stopping_locked(s, w, p, used, STOP_EXIT);
        return;
    case BODY_WAIT: {
        int64_t timeout = w->wait_timeout_ms;
        /* Parking: first stop looking running (sequentially consistent),
         * then look for arrivals (sequentially consistent). A sender pushes
         * an arrival, then reads the state the same way: of the two, at
         * least one sees the other, so either the process does not park or
         * the sender wakes it (message.c). */
        atomic_store_explicit(&p->state, PROC_WAITING, memory_order_seq_cst);
        bool woken = p->wake_pending || message_arrivals_pending(p);
        if (woken || timeout == 0) {
            p->timed_out = !woken;
            p->wake_pending = false;
            lock_run_queues(s, w);
            stopping_locked(s, w, p, used, STOP_WAIT);
            sched_enqueue_locked(s, w->id, p, ENQUEUE_YIELD);
            return;
        }
        atomic_store_explicit(&p->state, PROC_WAITING, memory_order_release);
        if (timeout > 0)
            arm_receive_timeout_locked(s, p, (uint64_t)timeout);
        /* Nobody queues it before this: every waker takes the mutex. */
        lock_run_queues(s, w);
        stopping_locked(s, w, p, used, STOP_WAIT);
        return;
    }
    case BODY_BLOCKED:
        if (proc_signals_of(p)->blocked_on) {
            /* Its target still runs: wait in no queue for that slice's end. */
            atomic_store_explicit(&p->state, PROC_BLOCKED, memory_order_release);
            lock_run_queues(s, w);
            stopping_locked(s, w, p, used, STOP_BLOCKED);
            return;
        }
        /* The target's slice ended during ours: repeat at once. */
        lock_run_queues(s, w);
        stopping_locked(s, w, p, used, STOP_BLOCKED);
        sched_enqueue_locked(s, w->id, p, ENQUEUE_UNBLOCKED);
        return;
    case BODY_YIELD:
    case BODY_COLLECT: /* never here: worker_loop hands it over, or collects and makes it a yield */
        lock_run_queues(s, w);
        stopping_locked(s, w, p, used, STOP_YIELD);
        sched_enqueue_locked(s, w->id, p, ENQUEUE_YIELD);
        return;
    }
}

void sched_collected(struct sched *s, struct process *p, unsigned collector, uint64_t stamp, uint64_t ticks,
                     bool builtin)
{
    struct worker *w = &s->workers[p->last_worker];
    rt_lock(&s->rq_lock);
    if (TRACING(s->trace)) {
        struct trace_record *r = trace_ring_push(sched_trace_locked_ring(s->trace, s->worker_count));
        r->stamp = stamp;
        r->ticks = ticks;
        r->pid = pid_number(p->pid);
        r->name = __atomic_load_n(&p->registered_name, __ATOMIC_RELAXED);
        r->reds = proc_collected_reds(p);
        r->other = (uint16_t)collector;
        r->kind = builtin ? TRACE_BUILTIN_ELSEWHERE : TRACE_COLLECT;
        r->why = (uint8_t)w->id; /* its worker (at most 255 named; the pid says whose) */
    }
    p->next_released = w->collected;
    w->collected = p;
    sched_kick_worker(s, NOT_A_WORKER, w->id); /* its worker, spinning or asleep, looks */
    rt_unlock(&s->rq_lock);
}

/* The slice p ran on w is over: its reductions and the worker's counters;
 * the reductions used. */
static uint32_t account_slice(struct worker_metrics *m, struct process *p, int32_t spent)
{
    p->reductions += (uint64_t)spent;
    /* Atomic stores: statistics/1 reads these two while we run. */
    __atomic_store_n(&m->slices, m->slices + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&m->reductions, m->reductions + (uint64_t)spent, __ATOMIC_RELAXED);
    return (uint32_t)spent;
}

/* Settles the processes whose slices on w went on in collections on
 * collector threads and have come back (sched_collected): the rest of
 * settle_locked, once each, the policy having heard of the slice's end
 * when w let it go (worker_loop). Both locks held on entry and on return. */
static void settle_collected_locked(struct sched *s, struct worker *w)
{
    while (w->collected) {
        struct process *p = w->collected;
        w->collected = p->next_released;
        p->next_released = NULL;
        rt_unlock(&s->rq_lock);
        /* The collection's cost, charged to the process (proc_collect). */
        uint32_t reds = proc_collected_reds(p);
        p->reductions += reds;
        struct worker_metrics *m = &s->metrics[w->id];
        __atomic_store_n(&m->reductions, m->reductions + reds, __ATOMIC_RELAXED);
        w->running = p; /* the waker of what its settling wakes */
        if (settle_signals_locked(s, w, p, false)) {
            signals_finish_locked(s, w, p);
            rt_lock(&s->rq_lock);
        } else {
            rt_lock(&s->rq_lock);
            sched_enqueue_locked(s, w->id, p, ENQUEUE_YIELD);
        }
        w->running = NULL;
    }
}

static struct process *next_process_locked(struct sched *s, struct worker *w)
{
    struct process *p = s->policy->pick_next(s, w->id);
    if (!p && s->policy->find_work) {
        sched_count_steal_attempt(s, w->id);
        p = s->policy->find_work(s, w->id);
    }
    return p;
}

/* One spinning pause. */
static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* --busy-wait: w found nothing to run. With both locks held on entry and
 * on return, it looks for new work up to *looks_left times without any
 * lock, yielding the CPU every 100 looks: a look reads the work
 * generation, which every enqueue (and the program's end) changes. True
 * when it changed: the caller looks at the queues again. */
static bool spin_for_work(struct sched *s, struct worker *w, unsigned *looks_left)
{
    uint64_t seen = atomic_load_explicit(&s->work_generation, memory_order_relaxed);
    rt_unlock(&s->rq_lock);
    rt_unlock(&s->exec_lock);
    ck_epoch_end(&w->epoch_record, NULL); /* reclamation does not wait for a spinner */
    bool changed = false;
    while (*looks_left > 0 && !changed) {
        (*looks_left)--;
        changed = atomic_load_explicit(&s->work_generation, memory_order_acquire) != seen;
        if (*looks_left % 100 == 0)
            sched_yield();
        else
            spin_pause();
    }
    ck_epoch_begin(&w->epoch_record, NULL);
    rt_lock(&s->exec_lock);
    if (s->timer_mode == TIMER_WORKERS && timer_wheel_armed_count(&s->wheel))
        fire_due_timeouts_locked(s);
    rt_lock(&s->rq_lock);
    return changed;
}

/* Where p stands now (nowhere known for a body that cannot say). */
static void take_position(const struct process *p, struct body_position *at)
{
    if (p->body->position)
        p->body->position(p, at);
    else
        *at = (struct body_position){NULL, NULL};
}

static struct body_location locate(const struct process *p, const struct body_position *at)
{
    struct body_location l = body_location_unknown();
    if (p->body->locate && at->at)
        p->body->locate(p, at, &l);
    return l;
}

static struct slice_place place_of(const struct body_location *l)
{
    return (struct slice_place){l->module, l->function, l->arity, l->bif_module, l->bif_function, l->bif_arity};
}

/* out: where p stands after the slice (a builtin there, after a yield:
 * one that continues in portions). */
static enum slice_end slice_end_of(const struct process *p, enum body_stop why, const struct body_position *out)
{
    switch (why) {
    case BODY_WAIT:
        return SLICE_WAIT;
    case BODY_EXIT:
        return SLICE_EXIT;
    case BODY_BLOCKED:
        return SLICE_BLOCKED;
    case BODY_COLLECT:
        return SLICE_COLLECT;
    case BODY_YIELD:
        break;
    }
    if (out->aux)
        return SLICE_TRAP;
    return p->reds_left > 0 ? SLICE_YIELD : SLICE_BUDGET;
}

/* --trace's record of p's slice, which started at `start` and lasted
 * `ticks` (before the slice is settled: p is alive, even after an exit). */
static void trace_slice(struct trace_ring *tr, struct process *p, enum body_stop why, uint64_t start, uint64_t ticks)
{
    struct body_position out = {NULL, NULL};
    if (why == BODY_YIELD)
        take_position(p, &out); /* a builtin in portions: a trap */
    struct trace_record *r = trace_ring_push(tr);
    r->stamp = start;
    r->ticks = ticks;
    r->pid = pid_number(p->pid);
    /* Changed by register/unregister under the executor mutex; a word read. */
    r->name = __atomic_load_n(&p->registered_name, __ATOMIC_RELAXED);
    r->reds = (uint32_t)(p->slice_budget - (p->reds_left > 0 ? p->reds_left : 0));
    r->other = 0;
    r->kind = TRACE_SLICE;
    r->why = (uint8_t)slice_end_of(p, why, &out);
}

/* A slice longer than system_monitor's long_schedule, to report once the
 * worker holds the executor mutex. */
struct long_slice {
    uint64_t ms; /* 0: none */
    term pid;
    struct body_location in, out;
};

/* The end of a timed slice of p (why: how its body stopped), `ticks`
 * long: --profile's histogram and longest slice (lat), system_monitor's
 * long_schedule (long_schedule_ms, 0: off). */
static void slice_timed(struct sched *s, struct worker_latencies *lat, struct process *p, enum body_stop why,
                        const struct body_position *in, uint64_t ticks, uint64_t long_schedule_ms,
                        struct long_slice *report)
{
    struct body_position out = {NULL, NULL};
    bool out_taken = false;
    if (lat) {
        histogram_record(&lat->slice, ticks);
        if (ticks > lat->longest.ticks) {
            struct body_location where_in = locate(p, in), where_out = body_location_unknown();
            if (why != BODY_EXIT) {
                take_position(p, &out);
                out_taken = true;
                where_out = locate(p, &out);
            }
            lat->longest = (struct slice_record){ticks, p->pid, slice_end_of(p, why, &out), place_of(&where_in),
                                                 place_of(&where_out)};
        }
    }
    /* A tick lasts at most 10 ns (a counter of at least 100 MHz): shorter
     * slices cannot be long, and need no clock reading to tell. */
    if (!long_schedule_ms || ticks < long_schedule_ms * 100000u)
        return;
    uint64_t ms = sched_ticks_to_ns(s, ticks) / 1000000u;
    if (ms <= long_schedule_ms)
        return;
    report->ms = ms;
    report->pid = p->pid;
    report->in = locate(p, in);
    report->out = body_location_unknown();
    if (why != BODY_EXIT) {
        if (!out_taken)
            take_position(p, &out);
        report->out = locate(p, &out);
    }
}

/* --schedule: w found nothing to run. It goes to sleep as the free loop's
 * idle path does (so policies see it asleep and wake it), ends its step,
 * and is chosen again only once something woke it or the program ends.
 * Both locks held on entry and on return. */
static void idle_step(struct sched *s, struct worker *w)
{
    struct worker_metrics *m = &s->metrics[w->id];
    w->sleeping = true;
    s->sleeping_count++;
    m->sleeps++;
    if (TRACING(s->trace))
        sched_trace_instant(&s->trace[w->id], TRACE_SLEEP, 0, 0, 0);
    rt_unlock(&s->rq_lock);
    rt_unlock(&s->exec_lock);
    ck_epoch_end(&w->epoch_record, NULL);
    io_stdout_flush_pending();
    schedule_end_step(s, w->id, THE_NON_VALUE, 0);
    schedule_take_turn(s, w->id);
    ck_epoch_begin(&w->epoch_record, NULL);
    rt_lock(&s->exec_lock);
    rt_lock(&s->rq_lock);
    METRIC(m->wakeups_received += !s->stopping);
    if (TRACING(s->trace))
        sched_trace_instant(&s->trace[w->id], TRACE_WAKEUP, 0, 0, !s->stopping);
}

/* Each worker's warm arena (heap_arena_warm), made in its own thread
 * after the first slice that used its whole budget: a worker that only
 * ever runs short slices (a program that starts, prints and ends; a
 * message relay) has no collections large enough to fault much, and
 * keeps its start-up size. 4 MiB, less where the workers would hold more
 * than 64 MiB in all. */
#define WORKER_WARM_BYTES ((size_t)4 << 20)
#define WORKERS_WARM_BYTES ((size_t)64 << 20)

static void worker_loop(struct worker *w)
{
    struct sched *s = w->sched;
    size_t warm_bytes = WORKERS_WARM_BYTES / s->worker_count;
    warm_bytes = warm_bytes < WORKER_WARM_BYTES ? warm_bytes : WORKER_WARM_BYTES;
    bool warmed = false;
    void *warm_kept = NULL;
    message_pool_enter(&w->arrival_pool);
    /* Under --schedule the worker takes turns (schedule.h). A loop
     * specialised for each case made gcc stop inlining settle_locked and
     * next_process_locked, which cost more than these two tests a slice. */
    const bool scheduled = s->schedule != NULL;
    struct worker_metrics *m = &s->metrics[w->id];
    struct process *current = NULL;
    enum body_stop why = BODY_YIELD;
    uint32_t used = 0;
    /* Busy time is the loop's time less its sleeps: reading the clock at
     * every slice would cost more than a short slice itself. */
    uint64_t loop_started = sched_clock_ns();
    struct worker_latencies *lat = PROFILING(s->profile) ? &s->profile->workers[w->id] : NULL;
    if (lat)
        sched_profile_worker_begin(s, w->id);
    struct long_slice long_slice = {0};
    ck_epoch_begin(&w->epoch_record, NULL);
    for (;;) {
        if (scheduled)
            schedule_take_turn(s, w->id);
        rt_lock(&s->exec_lock);
        if (long_slice.ms) {
            sysmon_long_schedule_locked(s, w->id, long_slice.pid, long_slice.ms, &long_slice.in, &long_slice.out);
            long_slice.ms = 0;
        }
        if (s->timer_mode == TIMER_WORKERS && timer_wheel_armed_count(&s->wheel))
            fire_due_timeouts_locked(s); /* before each slice */
        if (current && why == BODY_COLLECT) {
            /* Its slice goes on in a collection on a collector thread: the
             * policy hears that it left w, and it stays running, in no
             * queue, until its collector hands it back (settle_collected_locked). */
            lock_run_queues(s, w);
            stopping_locked(s, w, current, used, STOP_YIELD);
            w->last_pid = current->pid;
            w->last_end_ms = sched_coarse_ms(s);
            METRIC(m->collections_elsewhere++);
            current->reds_left = 0;        /* the slice is accounted: the collection charges its cost from 0 */
            collectors_submit(s, current); /* touched no more here */
        } else if (current) {
            settle_locked(s, w, current, why, used);
            w->last_pid = current->pid; /* for the watchdog's report */
            w->last_end_ms = sched_coarse_ms(s);
        } else {
            rt_lock(&s->rq_lock);
        }
        w->running = NULL;
        if (current && s->policy->tick && (w->reductions_since_tick += used) >= s->policy->tick_reductions) {
            w->reductions_since_tick = 0;
            s->policy->tick(s, w->id);
        }
        current = NULL;
        if (w->collected)
            settle_collected_locked(s, w);
        struct process *next = NULL;
        unsigned looks_left = s->busy_wait;
        bool spun = false;
        while (!s->stopping && !(next = next_process_locked(s, w))) {
            if (w->collected) {
                /* A collection came back while w looked for work. */
                settle_collected_locked(s, w);
                continue;
            }
            if (scheduled) {
                idle_step(s, w);
                continue;
            }
            if (looks_left > 0) {
                spun = true;
                spin_for_work(s, w, &looks_left);
                continue;
            }
            METRIC(m->busy_wait_slept += spun);
            spun = false;
            /* Nothing to run: sleep without the executor mutex, and outside
             * the epoch section so reclamation does not wait for us. */
            uint64_t deadline_tick = s->timer_mode == TIMER_WORKERS ? timer_wheel_next_wake(&s->wheel) : UINT64_MAX;
            rt_unlock(&s->exec_lock);
            ck_epoch_end(&w->epoch_record, NULL);
            w->sleeping = true;
            w->sleep_ms = sched_coarse_ms(s);
            s->sleeping_count++;
            m->sleeps++;
            if (TRACING(s->trace))
                sched_trace_instant(&s->trace[w->id], TRACE_SLEEP, 0, 0, 0);
            uint64_t slept = sched_clock_ns();
            bool deadline = false;
            /* Workers keep the timers: sleep until the earliest one. */
            uint64_t until =
                deadline_tick == UINT64_MAX ? UINT64_MAX : s->start_ns + timer_tick_start_ns(deadline_tick);
            while (w->sleeping) {
                /* Read under the run-queue lock, where wakers clear
                 * sleeping and signal: a wakeup after the unlock changes
                 * the count, and the wait returns at once. */
                uint32_t seen = rt_event_prepare(&w->wake);
                rt_unlock(&s->rq_lock);
                io_stdout_flush_pending(); /* what the program printed reaches its reader while it waits */
                /* What ended here is freed now, not at the next wake (the
                 * last process to end before the quiet may hold a large
                 * heap), and waits for the epoch no longer than this: with
                 * every worker idle outside its section, one poll runs all
                 * of it, and the contexts go to the spares and the pool. */
                free_released(w);
                if (w->epoch_record.n_pending > 0)
                    ck_epoch_poll(&w->epoch_record);
                /* The big heap blocks and the context chunks a burst left
                 * go back once their hold ends, which an idle runtime waits
                 * for here, asleep on. */
                uint64_t memory_due = kept_memory_due_ns(s);
                bool timed_out = !rt_event_wait(&w->wake, seen, memory_due < until ? memory_due : until);
                if (timed_out && memory_due < until) {
                    uint64_t now = sched_clock_ns();
                    heap_big_cache_release_aged(now);
                    context_pool_release_stale(&s->contexts, now);
                    timed_out = now >= until; /* else asleep on, unless woken meanwhile */
                }
                rt_lock(&s->rq_lock);
                if (timed_out && w->sleeping) {
                    w->sleeping = false;
                    s->sleeping_count--;
                    deadline = true;
                }
            }
            m->idle_ns += sched_clock_ns() - slept;
            METRIC(m->wakeups_received += !deadline && !s->stopping);
            if (TRACING(s->trace))
                sched_trace_instant(&s->trace[w->id], TRACE_WAKEUP, 0, 0, !deadline && !s->stopping);
            rt_unlock(&s->rq_lock);
            ck_epoch_begin(&w->epoch_record, NULL);
            rt_lock(&s->exec_lock);
            if (s->timer_mode == TIMER_WORKERS && timer_wheel_armed_count(&s->wheel))
                fire_due_timeouts_locked(s);
            rt_lock(&s->rq_lock);
        }
        if (s->stopping) {
            rt_unlock(&s->rq_lock);
            rt_unlock(&s->exec_lock);
            break;
        }
        METRIC(m->busy_wait_found += spun);
        runnable_unlink(s, next);
        w->slice_start_ms = sched_coarse_ms(s);
        atomic_store_explicit(&next->state, PROC_RUNNING, memory_order_release);
        uint32_t budget = s->policy->running ? s->policy->running(s, w->id, next) : 0;
        next->slice_budget = (int32_t)(budget == 0 ? CONTEXT_REDS : budget > 1000000 ? 1000000 : budget);
        w->running = next;
        if (next->ran_on == NOT_A_WORKER) {
            METRIC(m->first_runs++);
        } else if (next->ran_on != w->id) {
            /* Not last_worker: a policy that queued it here (a steal, a
             * wake on the waker's worker) has set that to w already. */
            METRIC(m->migrations_in++);
            METRIC(s->metrics[next->ran_on].migrations_out++); /* under the run-queue lock */
            if (TRACING(s->trace))
                sched_trace_instant(&s->trace[w->id], TRACE_MIGRATION, pid_number(next->pid), next->ran_on, 0);
        }
        METRIC(next->ran_on = w->id);
        if (lat) {
            if (next->queued_at) {
                histogram_record(&lat->queue_wait, profile_stamp() - next->queued_at);
                next->queued_at = 0;
            }
            uint64_t queued = s->policy->queue_length ? s->policy->queue_length(s, w->id) : 0;
            m->queue_samples++;
            m->queue_len_sum += queued;
            if (queued > m->queue_len_max)
                m->queue_len_max = queued;
        }
        next->last_worker = w->id;
        rt_unlock(&s->rq_lock);
        rt_unlock(&s->exec_lock);
        free_released(w);
        /* A quiescent point every EPOCH_POLL_SLICES slices (or sooner when
         * many ended contexts wait): the section spans the slices between,
         * which only delays reclamation. Re-entering it costs a full fence
         * (a sixth of the worker loop's own time in a ping-pong), and
         * polling walks every record. */
        if (++w->slices_since_poll >= EPOCH_POLL_SLICES || w->epoch_record.n_pending > EPOCH_POLL_PENDING) {
            w->slices_since_poll = 0;
            ck_epoch_end(&w->epoch_record, NULL);
            ck_epoch_poll(&w->epoch_record);
            ck_epoch_begin(&w->epoch_record, NULL);
        }

        current = next;
        current->reds_left = current->slice_budget;
        w->wait_timeout_ms = -1;
        /* Every slice is timed under --profile (its longest must be
         * exact), and while a system monitor watches long schedules: two
         * clock readings, and where the process stands. */
        uint64_t long_schedule = atomic_load_explicit(&s->sysmon_long_schedule_ms, memory_order_relaxed);
        /* --trace is read from s, not kept in a local: a register held
         * across the loop costs every slice more than this load. */
        if (TRACING(s->trace)) {
            /* --trace-sample: one slice in N, and every slice an arrow ends at. */
            w->trace_sampled = --w->trace_countdown == 0;
            if (w->trace_sampled)
                w->trace_countdown = s->trace_sample;
            w->trace_this_slice = w->trace_sampled || current->trace_flow;
        }
        if (lat || long_schedule || (TRACING(s->trace) && w->trace_this_slice)) {
            struct body_position in;
            take_position(current, &in);
            uint64_t slice_start = profile_stamp();
            why = current->body->resume(current);
            uint64_t ticks = profile_stamp() - slice_start;
            if (lat) {
                m->run_ticks += ticks;
                m->run_samples++;
            }
            if (TRACING(s->trace) && w->trace_this_slice) {
                uint64_t traced_start = slice_start, traced_ticks = ticks;
                if (scheduled) {
                    /* On the logical clock, which this step has not yet
                     * advanced: the slice lasted its reductions. */
                    traced_start = sched_elapsed_ns(s, NULL);
                    traced_ticks =
                        (uint64_t)(current->slice_budget - (current->reds_left > 0 ? current->reds_left : 0)) *
                        SCHEDULE_NS_PER_REDUCTION;
                }
                if (current->trace_flow) {
                    struct trace_record *end =
                        sched_trace_instant(&s->trace[w->id], TRACE_FLOW_END, pid_number(current->pid), 0, 0);
                    end->stamp = traced_start;
                    end->ticks = current->trace_flow;
                    current->trace_flow = 0;
                }
                trace_slice(&s->trace[w->id], current, why, traced_start, traced_ticks);
            }
            slice_timed(s, lat, current, why, &in, ticks, long_schedule, &long_slice);
        } else {
            why = current->body->resume(current);
        }
        if (why == BODY_COLLECT && !atomic_load_explicit(&s->collectors.on, memory_order_relaxed)) {
            /* No collector (a native body asked, or the pool stopped):
             * the collection runs here, and the slice ends as a yield. */
            collector_run(current); /* a collection charges current->reds_left */
            why = BODY_YIELD;
        }
        used = account_slice(m, current, current->slice_budget - (current->reds_left > 0 ? current->reds_left : 0));
        if (scheduled)
            schedule_end_step(s, w->id, current->pid, used);
        if (!warmed && current->reds_left <= 0) {
            warmed = true;
            warm_kept = heap_arena_warm(warm_bytes);
            m->arena_warmed_bytes = warm_kept ? warm_bytes : 0;
        }
    }
    ck_epoch_end(&w->epoch_record, NULL);
    free_released(w);
    heap_arena_warm_end(warm_kept);
    message_pool_leave();
    m->busy_ns = sched_clock_ns() - loop_started - m->idle_ns;
    if (lat)
        sched_profile_worker_end(s, w->id);
    if (scheduled)
        schedule_leave(s, w->id);
}

static void *worker_thread(void *arg)
{
    struct worker *w = arg;
    if (w->sched->binding)
        cpu_binding_bind_current_thread(w->sched->binding, (unsigned)w->id);
    worker_loop(w);
    return NULL;
}

int sched_run(struct sched *s, term main_pid)
{
    s->main_pid = main_pid;
    rt_lock(&s->exec_lock);
    bool main_alive = proc_table_lookup(&s->table, pid_number(main_pid)) != NULL;
    rt_unlock(&s->exec_lock);
    if (!main_alive)
        return 1;
    /* The timer thread starts before worker 0 binds itself, so it does not
     * inherit that binding (and unbinds itself in case the caller is bound). */
    bool timer_wanted = !s->schedule && (s->timer_mode == TIMER_THREAD || s->watchdog.period_ms);
    bool timer_started = !timer_wanted || pthread_create(&s->timer_thread, NULL, timer_thread, s) == 0;
    if (!timer_started) {
        fprintf(stderr, "clause: cannot start the timer thread\n");
        return EXIT_RUNTIME_FAILURE;
    }
    /* Collector threads start before the workers (a body may hand a
     * collection over from its first slice) and unbound. */
    if (s->collectors.count)
        collectors_start(s);
    unsigned started = 1;
    for (unsigned i = 1; i < s->worker_count; i++) {
        if (pthread_create(&s->workers[i].thread, NULL, worker_thread, &s->workers[i]) != 0) {
            fprintf(stderr, "clause: cannot start worker %u\n", i);
            rt_lock(&s->exec_lock);
            rt_lock(&s->rq_lock);
            sched_stop_locked(s, EXIT_RUNTIME_FAILURE);
            rt_unlock(&s->rq_lock);
            rt_unlock(&s->exec_lock);
            break;
        }
        started++;
    }
    if (s->schedule)
        schedule_begin(s, started);
    if (s->binding)
        cpu_binding_bind_current_thread(s->binding, 0);
    worker_loop(&s->workers[0]);
    for (unsigned i = 1; i < started; i++)
        pthread_join(s->workers[i].thread, NULL);
    /* A process still queued for a collector, or collected and not yet
     * settled, is in the table: sched_destroy releases it. */
    collectors_stop(s);
    if (s->schedule)
        schedule_end_run(s);
    if (timer_wanted) {
        rt_lock(&s->exec_lock);
        s->timer_stop = true;
        rt_event_signal(&s->timer_event);
        rt_unlock(&s->exec_lock);
        pthread_join(s->timer_thread, NULL);
    }
    io_thread_stop(s);
    ports_stop(s);
    return s->exit_status;
}

/* proc_table_drain's visitor at shutdown: a process that never ended. */
static bool release_left(uint64_t pid, struct process *p, void *arg)
{
    (void)pid;
    (void)arg;
    release_process(NULL, p);
    return true;
}

void sched_destroy(struct sched *s)
{
    io_thread_stop(s); /* sched_run stopped it, unless it never ran */
    ports_stop(s);
    collectors_destroy(s); /* stopped by sched_run, unless it never ran */
    /* Every worker has stopped: what is left in the table (queued, waiting)
     * is released without running further. The queues are emptied first, so
     * that no policy holds a freed process. */
    for (unsigned w = 0; w < s->worker_count; w++)
        while (s->policy->pick_next(s, (worker_id)w))
            ;
    s->runnable_head = s->runnable_tail = NULL;
    names_destroy(s); /* before the processes its entries point at */
    aliases_destroy(s);
    proc_table_drain(&s->table, release_left, NULL);
    /* After the processes: one in the middle of a long ets:insert holds a
     * table (ets_batch_free finishes the insert). */
    ets_registry_free(s->ets);
    s->ets = NULL;
    signals_destroy(s);
    bif_timers_destroy(s);
    /* Run what every record still has pending (ended contexts, replaced
     * table arrays); contexts land among the spares, which go with the
     * pool's chunks below. */
    for (unsigned i = 0; i < s->worker_count; i++)
        ck_epoch_barrier(&s->workers[i].epoch_record);
    watchdog_destroy(s); /* the original policy back in place */
    if (s->policy->fini)
        s->policy->fini(s);
    proc_table_destroy(&s->table);
    context_pool_destroy(&s->contexts); /* every context, spares included */
    persistent_destroy(&s->persistent);
    for (unsigned i = 0; i < s->worker_count; i++) {
        ck_epoch_unregister(&s->workers[i].epoch_record);
    }
    rt_lock_destroy(&s->exec_lock);
    rt_lock_destroy(&s->rq_lock);
    for (unsigned i = 0; i < s->worker_count; i++)
        message_pool_destroy(&s->workers[i].arrival_pool); /* after every process's arrivals */
    free(s->workers);
    sched_profile_free(s);
    sched_trace_free(s);
    io_state_free(s->io);
    ports_state_free(s->ports);
    free(s->metrics);
    free(s->policy_view.worker_blocks);
    free(s->policy_view.shared);
    free(s);
}
