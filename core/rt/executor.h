/*
 * executor.h — running processes on worker threads.
 *
 * The executor ("sched") runs processes on N workers: the thread that calls
 * sched_run is worker 0, and one more thread per further worker. Which
 * process runs where is the policy's decision (policy.h); the executor keeps
 * the mechanism and its two locks, as the seed assigns them:
 *
 *  - the executor mutex guards every process that is not running (its
 *    state, waiting, exiting), the timers, registered names, links,
 *    monitors and aliases. A worker takes it once per slice boundary;
 *    builtins never take it themselves, they call the runtime (node.h,
 *    signals.h, ...), which does.
 *  - the run-queue lock guards the policy's queues and the workers' idle
 *    state; it is taken after the executor mutex when both are needed. An
 *    idle worker checks the queues and reads its wake event's count under
 *    it, then sleeps on that event (a futex word, rt/lock.h); wakers signal
 *    the event under the lock, so a worker cannot miss a wakeup.
 *
 * How both locks are built (glibc mutexes or Concurrency Kit spinlocks) is
 * the configuration's lock kind; sleeping never depends on it.
 *
 * A spawn that neither links nor monitors takes neither the executor mutex
 * nor anything but the table's writer lock and the run-queue lock.
 *
 * The main process's end (or, when a process holds it, sched_hold_end,
 * that process's end after main's), a halt or a runtime failure stops the
 * program: every worker finishes its current slice and leaves its loop;
 * sched_run joins them and returns the status; sched_destroy then releases
 * every process still queued or waiting.
 */
#ifndef CLAUSE_EXECUTOR_H
#define CLAUSE_EXECUTOR_H

#include "rt/body.h"
#include "rt/policy.h"
#include "rt/process.h"

#include <stdbool.h>
#include <stdint.h>

struct cpu_binding;
struct schedule;
struct worker_metrics;

#define SCHED_MAX_WORKERS 1024
/* The seed's status for a runtime failure (memory, caps, internal errors). */
#define EXIT_RUNTIME_FAILURE 70

/* How a send reaches a process running on another worker (message.h). */
enum send_mode {
    SEND_MODE_ARRIVALS, /* the current seed: a lock-free push onto its arrivals */
    SEND_MODE_BLOCKING, /* the earlier revision: the sender blocks until that slice ends */
};

/* Who fires receive timeouts. */
enum timer_mode {
    TIMER_THREAD,  /* the current seed: one timer thread drives the wheel */
    TIMER_WORKERS, /* the earlier revision: workers check the timers before each slice, idle workers sleep until
                      the earliest timeout, and parking with a timeout wakes every idle worker */
};

/* How the executor mutex and the run-queue lock are built (rt/lock.h);
 * which locks exist is the seed's, how they are built is an experimental
 * axis. Idle workers and the timer thread sleep on their own futex words
 * whatever the kind, so no kind makes an idle worker spin. The default is
 * zero, so a zeroed configuration has it. */
enum lock_kind {
    LOCK_SPIN_FUTEX, /* the default, clause's own: unfair, spins a bounded while, then sleeps on a futex */
    LOCK_PTHREAD,    /* glibc's default mutex */
    LOCK_ADAPTIVE,   /* glibc's PTHREAD_MUTEX_ADAPTIVE_NP: spins a little before sleeping */
    LOCK_TICKET,     /* ck_spinlock_ticket: fair (FIFO), spins */
    LOCK_MCS,        /* ck_spinlock_mcs: fair (FIFO), each waiter spins on its own node */
    LOCK_CAS,        /* ck_spinlock_cas: unfair, spins */
    LOCK_KIND_COUNT
};

/* The kind's name (as --locks takes it) and a one-line summary; the kind
 * called name, false if none is. */
const char *lock_kind_name(enum lock_kind kind);
const char *lock_kind_summary(enum lock_kind kind);
bool lock_kind_find(const char *name, enum lock_kind *kind);

struct sched_config {
    unsigned workers;                  /* 1..SCHED_MAX_WORKERS */
    const struct policy_ops *policy;   /* NULL: the default policy */
    const struct cpu_binding *binding; /* NULL: workers unbound */
    size_t max_heap_words;             /* per-process heap cap; 0 = none */
    enum send_mode send_mode;
    enum timer_mode timer_mode;
    enum lock_kind locks; /* zero: LOCK_SPIN_FUTEX, the default */
    /* The policy's parameter values, in the order of its params (policy_parse
     * gives them); NULL: every default. */
    const long long *policy_params;
    /* An idle worker looks for work this many times, yielding the CPU every
     * 100, before it sleeps (ERTS's +sbwt); 0: it sleeps at once. */
    unsigned busy_wait;
    /* The stall watchdog (--watchdog MS): a process runnable for longer
     * than this, or a worker asleep through a tenth of it while a process
     * waits, is reported and the program handed to global_fifo; 0: off. */
    unsigned watchdog_ms;
    /* --schedule/--replay: the controller that runs the workers one step
     * at a time on a logical clock (rt/schedule.h); NULL: they run freely.
     * It replaces the timer thread, and turns busy-wait and the watchdog off. The caller frees it after
     * sched_destroy. */
    struct schedule *schedule;
    /* Collector threads (--gc-threads N): a collection estimated at
     * PROC_LONG_GC_WORDS words or more (rt/proc_gc.h) runs on one of them
     * while the process's worker runs other processes, as OTP's dirty CPU
     * schedulers collect. 0: every collection on its worker (also under
     * --schedule, which keeps collections on the workers for its
     * determinism, and in host invocations, whose workers never start). */
    unsigned gc_threads;
    /* In arrivals mode, whether a send to a parked receiver pushes onto its
     * arrivals too and wakes it as the sender's slice ends (message.c:
     * send_deferring_wake): 0 when there is more than one worker, 1 always,
     * -1 never (tests). */
    int defer_wakes;
};
/* The largest --gc-threads. */
#define SCHED_MAX_GC_THREADS 1024u

/* The largest --busy-wait. */
#define SCHED_MAX_BUSY_WAIT 100000000u
/* --watchdog's default and largest value (a day). */
#define SCHED_DEFAULT_WATCHDOG_MS 30000u
#define SCHED_MAX_WATCHDOG_MS 86400000u

/* NULL when the host refuses memory or the policy refuses the config
 * (error says why). */
struct sched *sched_create(const struct sched_config *config, const char **error);

/* Spawns a native process. parent is the spawning process (running on the
 * calling worker), or NULL before sched_run (the main process, tests).
 * Returns its pid, or THE_NON_VALUE when memory was refused. */
term sched_spawn_native(struct sched *s, struct process *parent, native_step_fn step, void *state,
                        void (*free_state)(void *));

/* Spawning in two steps, for bodies that set a process up before it runs
 * (the BEAM engine copies the arguments to its heap): a new context with
 * `body`, not yet visible to anyone, or NULL when memory was refused; then
 * start it (its pid, or THE_NON_VALUE when memory was refused: the context
 * is gone, its body state left to the caller), or discard it unstarted. */
struct process *sched_new_process(struct sched *s, struct process *parent, const struct body_ops *body);
term sched_start_process(struct sched *s, struct process *parent, struct process *p);
/* What a spawn ties the new process to its parent with, made before any
 * worker can run it: a link, and/or a monitor the parent holds (its
 * reference on the parent's heap, the tag of its message, its alias). */
struct spawn_ties {
    bool link;
    bool monitor;
    term monitor_ref;
    term tag;  /* 'DOWN', or monitor/3's {tag, Tag} */
    int alias; /* enum monitor_alias (signals.h) */
};
term sched_start_process_tied(struct sched *s, struct process *parent, struct process *p,
                              const struct spawn_ties *ties);
void sched_discard_process(struct process *p);

/* Runs until the process `main_pid` ends (and its holder, sched_hold_end),
 * a halt, or a runtime failure,
 * and returns the program's status: 0 when main ends normally, 1 when it
 * ends with another reason, the halt status, or EXIT_RUNTIME_FAILURE. */
int sched_run(struct sched *s, term main_pid);

/* Releases every remaining process and the executor itself. */
void sched_destroy(struct sched *s);

/* Host invocations (embed.c) use an executor whose workers never start:
 * publishes p (from sched_new_process) in the process table as running on
 * the calling thread, which then resumes its body itself; p is queued
 * nowhere, and its end stops nothing (the caller reads its outcome, which
 * the engine writes into `outcome`). Its pid, or THE_NON_VALUE when memory
 * was refused (p is discarded). */
term sched_start_host_process(struct sched *s, struct process *p, struct host_outcome *outcome);

/* Where p's outcome goes when p is a host invocation's process (the
 * `outcome` its executor was given), else NULL. */
struct host_outcome *sched_host_outcome(const struct process *p);

/* Whether a halt or a runtime failure stopped the program: *status gets
 * its status, and *failure the runtime failure's text on an executor of a
 * host invocation (kept for the host instead of written to stderr), else
 * NULL. */
bool sched_stopped(struct sched *s, int *status, const char **failure);

/* ---- for process bodies (running on a worker) ---- */

/* Whether `pid` names a live process (erlang:is_process_alive/1). */
bool sched_is_alive(struct process *self, term pid);

/* Wakes the process `pid` if it waits; when it is running or queued, its
 * next wait returns at once instead. False for no live process. Takes the
 * executor mutex. */
bool sched_wake(struct process *self, term pid);

/* Sets the timeout of the wait the body is about to return BODY_WAIT for:
 * milliseconds (0..4294967295), or -1 for infinity (the default). The
 * timeout starts when the process parks and never fires early; a wake
 * before it cancels it, and whichever comes first queues the process.
 * Applies to one wait. */
void sched_set_wait_timeout(struct process *self, int64_t ms);

/* A receive's timeout starts now (the engine's wait_timeout, which keeps
 * its deadline while messages that match no clause wake it), and whether
 * that deadline has passed. */
void sched_start_receive_timeout(struct process *self, int64_t ms);
/* receive_deadline of a receive whose timeout is infinity (ms -1 above). */
#define RECEIVE_NO_DEADLINE UINT64_MAX
bool sched_receive_timeout_passed(struct process *self);

/* The timeout is the receive's, not the wait's: a receive that waits again
 * after messages matching no clause keeps its first deadline, until
 * proc_receive_take or proc_receive_restart (message.h) ends the receive.
 *
 * Whether the process's last wait ended by its timeout; reading clears it. */
bool sched_take_timed_out(struct process *self);

/* Ends the program with status (erlang:halt/1). The caller's slice goes on;
 * it should return soon. */
void sched_halt(struct process *self, int status);

/* Ends the program as a runtime failure (exit EXIT_RUNTIME_FAILURE): host
 * memory exhausted, a cap exceeded, an internal error. Writes one line with
 * the process and why on stderr. The caller should end its slice soon. */
void sched_runtime_failure(struct process *self, const char *why);

/* sched_runtime_failure for the process `pid` with the executor mutex held
 * (run-queue lock not): inside node_on_process's answer, for one. */
void sched_runtime_failure_locked(struct sched *s, term pid, const char *why);

/* Shared state of the engine that runs code (the BEAM code server): set
 * before sched_run, read by running processes. */
void sched_set_engine(struct sched *s, void *engine);
void *sched_engine(const struct sched *s);
/* The main process's pid (THE_NON_VALUE before sched_run). */
term sched_main_pid(const struct sched *s);
/* The program's status when the main process ends abnormally (by an
 * exception or an exit signal); 1 unless set. */
void sched_set_main_crash_status(struct sched *s, int status);

/* Holds the program's end: when main ends, the program ends once holder
 * ends too (at once if holder has ended), with main's status. The
 * kernel's process (core/bif/kernel.c) holds it to write out the log
 * events still queued, as OTP's escript runner does before it halts. A
 * halt or a runtime failure still ends the program at once. Returns
 * main's pid, or THE_NON_VALUE when main has ended (nothing is held). */
term sched_hold_end(struct process *holder);

/* Whether the kernel's boot has ended (core/bif/kernel.c): set once, read
 * by any worker without a lock. */
void sched_set_kernel_booted(struct sched *s);
bool sched_kernel_booted(const struct sched *s);
/* Whether the kernel has started global's servers (core/bif/kernel.c),
 * which it does on their first use; as sched_kernel_booted. */
void sched_set_global_started(struct sched *s);
bool sched_global_started(const struct sched *s);

/* The executor of a process. */
struct sched *proc_sched(const struct process *p);

/* Live processes (table entries). */
size_t sched_live_processes(struct sched *s);

/* Per-worker counters; valid after sched_run returned. */
const struct worker_metrics *sched_metrics(const struct sched *s);

/* Collections done on collector threads, their total and longest time in
 * nanoseconds, and the collector threads asked for; valid after sched_run
 * returned. */
void sched_collector_counts(struct sched *s, uint64_t *collections, uint64_t *total_ns, uint64_t *max_ns,
                            unsigned *threads);
/* The builtins' work collector threads ran (re:run's long matches) and its
 * time. */
void sched_collector_builtins(struct sched *s, uint64_t *done, uint64_t *total_ns);
/* Collections under way on collector threads now (tests). */
unsigned sched_collections_under_way(struct sched *s);
/* For tests, before sched_run: hook(p, arg) runs on a collector thread
 * before each collection of p (which counts as under way), e.g. to hold
 * it until another process has acted. */
void sched_test_collector_hook(struct sched *s, void (*hook)(struct process *p, void *arg), void *arg);

/* The timer thread's clock readings and the timeouts it fired; valid after
 * sched_run returned. */
void sched_timer_counts(const struct sched *s, uint64_t *clock_readings, uint64_t *fired);

/* Builtins that blocked on a process running elsewhere (sends in blocking
 * mode); valid after sched_run returned. */
uint64_t sched_blocked_builtins(const struct sched *s);

/* Sends that skipped the lock-free lookup because the sender's last send to
 * the same receiver found it not running (with one worker: with more, every
 * send looks up and pushes without the mutex); valid after sched_run
 * returned. */
uint64_t sched_lookups_skipped(const struct sched *s);

/* The policy in use (global_fifo after the watchdog's hand-over). */
const struct policy_ops *sched_policy(const struct sched *s);

/* What the watchdog found. It acts at most once per run. */
enum sched_watchdog_kind {
    WATCHDOG_NONE,
    WATCHDOG_STALL,       /* a process runnable for longer than --watchdog */
    WATCHDOG_LOST_WAKEUP, /* a worker asleep since before a process, runnable for over a tenth of it, was queued */
};
struct sched_watchdog_event {
    enum sched_watchdog_kind kind;
    uint64_t at_ms;          /* when, since the executor started */
    uint64_t waited_ms;      /* how long the oldest runnable process had waited (at least) */
    term pid;                /* that process */
    term name;               /* its registered name, or THE_NON_VALUE */
    const char *from_policy; /* the policy it was under */
    const char *to_policy;   /* the policy the program went on under (global_fifo), NULL: none */
};
/* The watchdog's event (kind WATCHDOG_NONE when it never acted); valid
 * after sched_run returned. */
const struct sched_watchdog_event *sched_watchdog_event(const struct sched *s);

/* Processes queued for worker w (takes the run-queue lock). */
size_t sched_queue_length(struct sched *s, worker_id w);

/* For tests that drive a policy by hand on an executor that is not running:
 * marks worker w asleep or awake, as its loop would. */
void sched_test_set_sleeping(struct sched *s, worker_id w, bool sleeping);
/* For the same tests: the count every enqueue and kick bumps, which a
 * worker spinning for work watches (--busy-wait). */
uint64_t sched_test_work_generation(struct sched *s);
/* For tests, on w's own thread: the ended processes whose contexts wait
 * for the epoch on w. */
unsigned sched_test_epoch_pending(struct sched *s, worker_id w);
/* For tests: the context pool's chunks mapped now and unmapped so far. */
void sched_test_context_chunks(struct sched *s, size_t *mapped, size_t *returned);
/* For tests that call a function whose contract is "executor mutex held"
 * from a process's slice: take and leave that mutex. */
void sched_test_lock(struct sched *s);
void sched_test_unlock(struct sched *s);

#endif
