/*
 * rt/internal.h — the executor's state, shared by the files that make up
 * the executor (executor.c, message.c) and by nothing else: policies and
 * process bodies see only executor.h and policy.h.
 */
#ifndef CLAUSE_SCHED_INTERNAL_H
#define CLAUSE_SCHED_INTERNAL_H

#include "metrics/metrics.h"
#include "metrics/trace.h"
#include "rt/body.h"
#include "rt/context_pool.h"
#include "rt/executor.h"
#include "rt/lock.h"
#include "rt/message.h"
#include "rt/node.h"
#include "rt/persistent.h"
#include "rt/proc_table.h"
#include "rt/timer_wheel.h"

#include <ck_epoch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The parked receivers a slice's sends may leave to wake at its end. */
#define SCHED_DEFERRED_WAKES 8

struct worker {
    struct sched *sched;
    worker_id id;
    pthread_t thread;
    struct rt_event wake;     /* what it sleeps on when idle (lock.h) */
    bool sleeping;            /* run-queue lock */
    struct process *released; /* ended processes to free after the mutex; this worker only */
    struct process *spares;   /* freed contexts kept for this worker's next spawns; this worker only */
    unsigned spare_count;
    /* The timeout of the wait its running process's slice ends in
     * (sched_set_wait_timeout); -1, infinity, from each slice's start. */
    int64_t wait_timeout_ms;
    struct pool_cursor context_cursor; /* its part of a chunk of s->contexts; this worker only */
    ck_epoch_record_t epoch_record;
    unsigned slices_since_poll;
    /* The process whose slice runs or is being settled here: the waker
     * that enqueue reports for the wakes and spawns this worker makes.
     * This worker only. */
    struct process *running;
    uint64_t reductions_since_tick; /* policy tick (policy_ops.tick_reductions); this worker only */
    /* What the watchdog reports of this worker (watchdog.c), run-queue
     * lock; times on the coarse clock (sched.coarse_ms). */
    uint32_t sleep_ms;       /* when it last went to sleep */
    uint32_t slice_start_ms; /* when its current or latest slice started */
    uint32_t last_end_ms;    /* when its latest settled slice ended */
    term last_pid;           /* whose slice that was; 0 before any */
    /* --trace-sample: slices until the next sampled one; whether the
     * current slice was sampled (a wake it makes draws its arrow) and
     * whether it is recorded (sampled, or an arrow ends at it: such a
     * slice draws no arrow, or one sample would record a whole chain of
     * wakes). This worker only. */
    uint32_t trace_countdown;
    bool trace_sampled, trace_this_slice;
    /* Processes whose slices here went on in collections on collector
     * threads and came back (collector.c): this worker settles them at its
     * next slice boundary. Newest first, linked by next_released; run-queue
     * lock. */
    struct process *collected;
    /* Receivers that a send from the slice running here found parked, to
     * wake as the slice ends (sched_defer_wake): their messages wait among
     * their arrivals meanwhile. This worker only. */
    struct process *deferred_wakes[SCHED_DEFERRED_WAKES];
    unsigned deferred_count;
    struct arrival_pool arrival_pool; /* the buffers of its sends' small arrivals (message.h) */
} __attribute__((aligned(64)));

/* Collector threads (--gc-threads; collector.c): the slices of processes
 * whose collections are long (proc_gc.h: proc_collect_elsewhere) go on
 * there while their workers run other processes. */
struct collectors {
    unsigned count;     /* threads asked for; 0: every collection on its worker */
    unsigned started;   /* threads running */
    pthread_t *threads; /* [count] */
    _Atomic bool on;    /* they run: bodies may hand collections over (relaxed; set before the workers start) */
    pthread_mutex_t lock;
    pthread_cond_t work;                 /* signalled when a process is queued or the pool stops */
    struct process *first, *last;        /* queued processes, oldest first (lock) */
    bool stop;                           /* lock */
    _Atomic unsigned busy;               /* collections under way (relaxed; tests, --profile) */
    uint64_t done, total_ns, max_ns;     /* collections done and their time (lock) */
    uint64_t builtins_done, builtins_ns; /* builtins' work done (proc_work) and its time (lock) */
    /* Tests (sched_test_collector_hook): called on the collector before
     * each collection; set before sched_run. */
    void (*test_hook)(struct process *p, void *arg);
    void *test_hook_arg;
};

#define EPOCH_POLL_SLICES 64
/* ... or sooner when this many ended contexts wait for their grace period. */
#define EPOCH_POLL_PENDING 256

#define NAME_BUCKETS 64
struct name_entry;
struct names_service;
#define ALIAS_BUCKETS 64
struct alias_entry;
struct sched_profile;

/* The watchdog's hand-over target and what it acted on (watchdog.c). */
struct watchdog {
    unsigned ms;        /* --watchdog: 0 off */
    unsigned period_ms; /* how often it looks: ms / 10, from 1 to 100 */
    /* The policy the program is handed to (global_fifo), with its blocks
     * allocated at sched_create; after the hand-over these fields hold the
     * original policy's, for its fini. */
    const struct policy_ops *fallback;
    void *fallback_shared;
    char *fallback_blocks;
    size_t fallback_block_bytes;
    long long fallback_params[POLICY_MAX_PARAMS];
    bool handed_over;                  /* run-queue lock (written under both) */
    struct sched_watchdog_event event; /* run-queue lock (written under both) */
};

struct sched {
    struct sched_policy_view policy_view; /* first: policy.h's inline services read it */
    const struct policy_ops *policy;
    unsigned worker_count;
    struct worker *workers;
    struct worker_metrics *metrics;
    struct sched_profile *profile; /* --profile's state, NULL without it (sched_profile.c) */
    struct context_pool contexts;  /* every process context (context_pool.h) */
    /* --trace: a ring per worker, then one for the events recorded under
     * the run-queue lock by any thread (balance moves, the watchdog); NULL
     * without it (sched_trace.c). */
    struct trace_ring *trace;
    uint32_t trace_sample;     /* --trace-sample: one slice in N recorded */
    struct schedule *schedule; /* --schedule's controller (schedule.c), NULL: the workers run freely */
    unsigned busy_wait;        /* looks for work before an idle worker sleeps (--busy-wait) */
    /* Bumped (under the run-queue lock: sched_bump_work_generation_locked)
     * by every enqueue and by the program's end; a worker spinning for work
     * (busy_wait) polls it without the lock, and looks at the queues again
     * when it changes. */
    _Atomic uint64_t work_generation;
    unsigned sleeping_count; /* run-queue lock */
    /* Every runnable process, in the order it became runnable: linked at
     * enqueue, unlinked when a worker takes it or it is removed (run-queue
     * lock), so the oldest is known whatever the policy does. */
    struct process *runnable_head, *runnable_tail;
    /* A coarse clock for stamping runnable processes: milliseconds since
     * start_ns, published by the timer thread every watchdog period (no
     * clock read on the enqueue path); relaxed loads. */
    _Atomic uint32_t coarse_ms;
    struct watchdog watchdog;
    struct rt_lock exec_lock; /* the executor mutex */
    struct rt_lock rq_lock;   /* the run-queue lock */
    bool stopping;            /* run-queue lock */
    int exit_status;
    term main_pid;
    int main_crash_status; /* sched_set_main_crash_status; 0: 1 */
    /* A process that holds the program's end (sched_hold_end): once main
     * ends, its status waits in held_status until end_holder ends too.
     * Executor mutex. */
    term end_holder;
    bool main_ended;
    int held_status;
    _Atomic bool kernel_booted;  /* sched_set_kernel_booted: release/acquire */
    _Atomic bool global_started; /* sched_set_global_started: release/acquire */
    _Atomic term system_logger;  /* erlang:system_flag(system_logger, _); 0: not set (the atom logger) */
    struct proc_table table;
    ck_epoch_t epoch;
    struct persistent_table persistent; /* persistent_term's (node.c) */
    const struct cpu_binding *binding;
    size_t max_heap_words;

    /* Receive timeouts: the wheel is shared under the executor mutex; one
     * timer thread sleeps on timer_event (signalled under that mutex) until
     * the next occupied slot. Ticks are milliseconds since start_ns. */
    struct timer_wheel wheel;
    uint64_t start_ns;
    pthread_t timer_thread;
    struct rt_event timer_event;
    bool timer_stop;      /* executor mutex */
    uint64_t timer_wakes; /* clock readings of the timer thread */
    uint64_t timers_fired;
    enum send_mode send_mode;
    /* Sends push onto every receiver's arrivals and leave the wakes of
     * parked ones for the slice's end (message.c: send_deferring_wake):
     * arrivals mode with more than one worker, or as the config says. */
    bool defer_wakes;
    enum timer_mode timer_mode;

    /* Timers of erlang:send_after/start_timer (bif_timers.c), by reference
     * id: chained buckets, executor mutex. */
    struct bif_timer **timer_buckets;
    size_t timer_bucket_count, timer_count;
    uint64_t blocked_builtins;                     /* executor mutex */
    uint64_t lookups_skipped;                      /* executor mutex */
    void *engine;                                  /* the code engine's shared state (sched_set_engine) */
    struct name_entry *name_buckets[NAME_BUCKETS]; /* registered names (names.c), executor mutex */
    struct names_service *services;                /* names started on first lookup (names.c); set before run */
    size_t service_count;
    pthread_mutex_t service_lock; /* one service start at a time (names.c); never held with the executor mutex */
    struct process *ended_held;   /* ended while held, freed by the last holder (signals.c) */
    struct alias_entry *alias_buckets[ALIAS_BUCKETS]; /* active aliases (aliases.c), executor mutex */
    bool host;                                        /* runs a host invocation (sched_start_host_process) */
    term host_pid;                                    /* that invocation's process (THE_NON_VALUE: none) */
    struct host_outcome *host_outcome;                /* where its outcome goes (sched_host_outcome) */
    char host_failure[200];                           /* its runtime failure, kept for the host instead of stderr */
    /* statistics/1's previous answers, for its "since the last call"
     * figures (node_since_last; executor mutex). */
    uint64_t since_last_seen[NODE_SINCE_ITEMS];
    struct ets_registry *ets; /* the node's ETS tables (ets_table.c), its own locks */
    struct io_state *io;      /* standard input and the I/O servers (io_thread.c), its own locks */
    struct port_state *ports; /* ports to external programs (ports.c), executor mutex */
    uint64_t start_stamp;     /* profile_stamp read with start_ns: converts slice ticks to ns */

    /* erlang:system_monitor (sysmon.c): set under the executor mutex; the
     * two thresholds are also read by workers at every slice and by
     * collections (relaxed: a setting takes effect within a slice). */
    _Atomic uint64_t sysmon_long_schedule_ms; /* 0: off */
    _Atomic uint64_t sysmon_long_gc_ms;       /* 0: off */
    struct node_sysmon sysmon;                /* the whole setting; pid THE_NON_VALUE: none */
    struct collectors collectors;             /* collector threads (collector.c) */
};

/* ---- collector threads (collector.c) ---- */

/* Sets the pool up (no thread yet): `count` threads, 0 for none. False
 * when memory was refused. */
bool collectors_init(struct sched *s, unsigned count);
/* Starts the threads (sched_run, before the workers); false when none
 * could start (collections then stay on the workers). */
bool collectors_start(struct sched *s);
/* Stops and joins the threads: each finishes the collection it does; the
 * processes still queued stay where they are, in the process table, for
 * sched_destroy. Idempotent. */
void collectors_stop(struct sched *s);
/* Frees the pool (after collectors_stop). */
void collectors_destroy(struct sched *s);
/* Queues p, whose body returned BODY_COLLECT on worker p->last_worker,
 * for a collector; its state stays PROC_RUNNING. The caller touches p no
 * more. Any lock may be held (the pool's lock is taken last). */
void collectors_submit(struct sched *s, struct process *p);
/* What a slice that ended with BODY_COLLECT handed over, run on the
 * calling thread: its builtin's work (p->work_elsewhere, cleared; true),
 * else its collection (false). */
bool collector_run(struct process *p);
/* A collector has collected p (or run its builtin's work: builtin): it
 * joins its worker's collected list and that worker is woken (takes the
 * run-queue lock). */
void sched_collected(struct sched *s, struct process *p, unsigned collector, uint64_t stamp, uint64_t ticks,
                     bool builtin);
/* True on a collector thread (sysmon_long_gc names no worker as the waker). */
extern _Thread_local bool rt_on_collector;

/* ThreadSanitizer cannot see ck_epoch's grace periods (libck is not
 * instrumented): a thread that touched an epoch-protected object releases
 * it when done, and the reclamation callback acquires it, which is exactly
 * the order the grace period guarantees. Nothing in other builds. */
#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static inline void sched_tsan_acquire(void *addr) { __tsan_acquire(addr); }
static inline void sched_tsan_release(void *addr) { __tsan_release(addr); }
#else
static inline void sched_tsan_acquire(void *addr) { (void)addr; }
static inline void sched_tsan_release(void *addr) { (void)addr; }
#endif

/* ---- system_monitor (sysmon.c) ---- */

/* Nanoseconds of `ticks` profile_stamp ticks, against the monotonic clock
 * since the executor started (one clock reading). */
uint64_t sched_ticks_to_ns(const struct sched *s, uint64_t ticks);
/* A slice of pid ran ms milliseconds, more than long_schedule: the
 * monitor gets {monitor, Pid, long_schedule, Info}. Executor mutex held. */
void sysmon_long_schedule_locked(struct sched *s, worker_id waker, term pid, uint64_t ms,
                                 const struct body_location *in, const struct body_location *out);
/* A collection of p (running, no lock held) took ms milliseconds, more
 * than long_gc: the monitor gets {monitor, Pid, long_gc, Info} with the
 * heap's figures after it, in words. Takes the executor mutex. */
void sysmon_long_gc(struct process *p, uint64_t ms, size_t stack);
/* p (ending) was the monitor: the setting is cleared. Executor mutex held. */
void sysmon_process_ended_locked(struct sched *s, const struct process *p);

/* self (running) waits for target (running on another worker) to end its
 * slice: self's body returns BODY_BLOCKED and repeats its builtin when
 * resumed, target then held until it has. Executor mutex held. */
void sched_block_on_locked(struct process *self, struct process *target);
/* self repeated its blocked builtin (or ended): the target it held may run
 * again. Executor mutex held. */
void sched_release_hold_locked(struct process *self);

/* Message buffers: a copy of a message made now, delivered later by the
 * runtime (timers). */
struct arrival *message_buffer_new(term msg); /* NULL when the host refuses */
void message_buffer_free(struct arrival *buffer);
/* Delivers and consumes the buffer as a send from the runtime would: into a
 * running p's arrivals, else into its heap (waking it when it waits); a
 * buffer for an ended p is dropped. False when p's heap refused it.
 * Executor mutex held. */
bool message_buffer_deliver_locked(struct sched *s, struct process *p, struct arrival *buffer);
/* The message a buffer holds. */
term message_buffer_payload(const struct arrival *buffer);
/* Delivers a copy of msg (any term readable now: a heap's, or words on the
 * C stack) as a send from the runtime: onto the arrivals of a running p,
 * else into its heap after its arrivals, waking it when it waits; dropped
 * for an ended p. False when p's heap or the host refused. Executor mutex
 * held. */
bool message_deliver_locked(struct sched *s, worker_id waker, struct process *p, term msg);

/* Arms node at tick in the executor's wheel; when it is the earliest, wakes
 * whoever keeps the timers (the timer thread, or every idle worker).
 * Executor mutex held, run-queue lock not. */
void sched_arm_timer_locked(struct sched *s, struct timer_node *node, uint64_t tick);

/* Timer kinds in the wheel (timer_node.kind). */
enum { TIMER_KIND_RECEIVE = 0, TIMER_KIND_BIF = 1 };
/* A BIF timer's time came: deliver its message (executor mutex held). */
void bif_timer_fire_locked(struct sched *s, struct timer_node *node);
/* p ended: its timers are released (executor mutex held). */
void bif_timers_release_target_locked(struct sched *s, struct process *p);
/* Program end: every timer is freed (single-threaded). */
void bif_timers_destroy(struct sched *s);

/* Ends the program with status (run-queue lock held). */
void sched_stop_locked(struct sched *s, int status);

/* The live process `pid` names, or NULL (executor mutex held). */
struct process *sched_live_locked(struct sched *s, term pid);

/* How an exit reason ended a process, for the per-worker counters
 * (signals.c). */
enum exit_kind signals_exit_kind(term reason);

/* Frees an ended process's context at once (no sender can reach it). */
void sched_release_ended(struct process *p);

/* Tells spinning workers to look at the queues again (work_generation).
 * Run-queue lock held, which orders every bump: a plain increment, not a
 * locked one, since a locked instruction drains the store buffer and this
 * runs at every enqueue (2.4 % of pingpong's time at one worker). */
static inline void sched_bump_work_generation_locked(struct sched *s)
{
    uint64_t g = atomic_load_explicit(&s->work_generation, memory_order_relaxed);
    atomic_store_explicit(&s->work_generation, g + 1, memory_order_release);
}

/* The monotonic clock the executor measures time with (nanoseconds). */
uint64_t sched_clock_ns(void);
/* The program's time: nanoseconds since the executor started, on the wall
 * clock, or under --schedule on the logical clock (counting the reductions
 * `running`, the caller, spent in its slice so far; NULL between slices).
 * Timers, timeouts and the clocks builtins read all measure this. */
uint64_t sched_elapsed_ns(const struct sched *s, const struct process *running);
/* Where erlang:monotonic_time's clock stood when the executor started: the
 * monotonic clock's reading, or 0 on the logical clock. */
static inline uint64_t sched_monotonic_origin_ns(const struct sched *s) { return s->schedule ? 0 : s->start_ns; }
/* Fires every timeout whose tick now_ns (since the start) has reached.
 * Executor mutex held. */
void sched_fire_timeouts_locked(struct sched *s, uint64_t now_ns);

/* Wakes p, which waits: cancels its receive timeout and queues it.
 * Executor mutex held, run-queue lock not. */
void sched_wake_waiting_locked(struct sched *s, worker_id waker, struct process *p, enum enqueue_reason why);

/* A send of self, running, pushed a message onto the arrivals of p and then
 * found p parked: p is woken when self's slice ends, in the critical section
 * that settles self, instead of in one of its own (at once when the list of
 * such wakes is full, or when self does not run on a worker). */
void sched_defer_wake(struct process *self, struct process *p);

/* Takes p, runnable, out of its policy's queue and the executor's runnable
 * list (an exit signal, a suspend). Both locks held. */
void sched_policy_remove_locked(struct sched *s, struct process *p);

/* The coarse clock (sched.coarse_ms): ms since start, as last published. */
static inline uint32_t sched_coarse_ms(struct sched *s)
{
    return atomic_load_explicit(&s->coarse_ms, memory_order_relaxed);
}

/* ---- the watchdog (watchdog.c) ---- */

/* At sched_create: the fallback policy's blocks. False when memory was
 * refused. */
bool watchdog_init(struct sched *s, unsigned ms);
/* On the timer thread, every period, with no lock held: publishes the
 * coarse clock (now_ns from sched_clock_ns), looks at the oldest runnable
 * process and the sleeping workers under the run-queue lock, and on a stall
 * or a lost wakeup reports and hands the program to the fallback policy. */
void watchdog_check(struct sched *s, uint64_t now_ns);
/* At sched_destroy: the original policy's state back in place (for its
 * fini), and the other policy's blocks freed. */
void watchdog_destroy(struct sched *s);

/* Queues p, runnable and in no queue, through the policy, and wakes the
 * worker the policy names if it sleeps. Run-queue lock held (and the
 * executor mutex, except for a spawn). */
void sched_enqueue_locked(struct sched *s, worker_id self, struct process *p, enum enqueue_reason why);

#endif
