/*
 * metrics.h — counters of every scheduling decision, per worker, and the
 * state --profile adds on top of them.
 *
 * Each worker owns one cache-line-aligned block and is the only writer of
 * the counters it bumps for itself, so counting costs a plain increment and
 * no cache line is shared between workers. Counters that another thread
 * bumps for a worker (a process stolen from it, one that migrated away)
 * are bumped under the run-queue lock, which serialises those writers.
 * Readers (the report at exit) run after the workers stopped, except
 * statistics/1, which reads slices and reductions while they run: their
 * worker stores those two atomically.
 *
 * The counters always run. What costs a clock reading (latencies, running
 * time, run-queue samples, hardware counters) runs only under --profile:
 * the executor then holds a struct sched_profile, and tests that pointer
 * once per event. Per-event clock readings are taken on a sample of the
 * events (struct sampler, --profile-sample=N), the counters on all. A
 * build with -DCLAUSE_NO_PROFILE compiles all of it and the added counters
 * out, to measure what instrumentation costs.
 */
#ifndef CLAUSE_METRICS_H
#define CLAUSE_METRICS_H

#include "metrics/histogram.h"
#include "term/strbuf.h"
#include "term/term.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#ifdef CLAUSE_NO_PROFILE
#define PROFILING(profile) 0
#define METRIC(expr)                                                                                                   \
    do {                                                                                                               \
        if (0)                                                                                                         \
            (void)(expr);                                                                                              \
    } while (0)
#else
#define PROFILING(profile) __builtin_expect((profile) != NULL, 0)
#define METRIC(expr) ((void)(expr))
#endif

/* The clock of the per-event measurements (queue waits, deliveries, time
 * in slices): the time-stamp counter where there is one, at a third of
 * clock_gettime's cost, in ticks that sched_profile_collect converts to
 * nanoseconds against the monotonic clock over the whole run; elsewhere
 * the monotonic clock itself. Never 0 (0 marks "not measured"). */
static inline uint64_t profile_stamp(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc() | 1;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) | 1;
#endif
}

struct worker_metrics {
    uint64_t slices;         /* time slices run (stored atomically: statistics/1 reads it while workers run) */
    uint64_t reductions;     /* reductions spent in them (the same) */
    uint64_t spawned;        /* processes spawned by processes on this worker */
    uint64_t balance_taken;  /* processes this worker took by balancing */
    uint64_t steal_attempts; /* times this worker looked for work to steal */
    uint64_t steals;         /* processes it stole */
    uint64_t stolen_from;    /* processes others stole from it (bumped by the thief, under the run-queue lock) */
    uint64_t wakeups_sent;   /* sleeping workers this worker woke */
    uint64_t sleeps;         /* times it went to sleep */
    uint64_t busy_ns;        /* time awake (running processes or looking for them) */
    uint64_t idle_ns;        /* time asleep */

    uint64_t wakeups_received;      /* sleeps ended by a wakeup (not by a timer deadline or the program's end) */
    uint64_t busy_wait_found;       /* --busy-wait: idle spells whose spinning found work before sleeping */
    uint64_t busy_wait_slept;       /* --busy-wait: idle spells that spun their full count, then slept */
    uint64_t first_runs;            /* processes whose first slice ran here */
    uint64_t migrations_in;         /* slices of processes whose previous slice ran on another worker */
    uint64_t migrations_out;        /* those, counted on the worker they left (bumped under the run-queue lock) */
    uint64_t sends_self;            /* sends to the sender itself */
    uint64_t sends_direct;          /* copied straight into a receiver that was not running */
    uint64_t sends_arrivals;        /* pushed onto arrivals: a running receiver's, any with 2+ workers */
    uint64_t sends_blocked;         /* blocking mode: the sender blocked on a running receiver (and repeats the send) */
    uint64_t sends_dropped;         /* to no live process */
    uint64_t receives;              /* messages taken by a receive */
    uint64_t words_copied;          /* words of messages copied by sends (into a heap or an arrival buffer) */
    uint64_t collections_elsewhere; /* slices that went on in a collection on a collector thread */
    uint64_t exits_normal, exits_shutdown, exits_killed, exits_other;
    uint64_t arena_warmed_bytes; /* malloc arena made resident after its first full slice (0: none ran yet) */

    /* --profile only */
    uint64_t run_ticks;     /* time inside slices, in profile_stamp ticks (every slice is timed) */
    uint64_t run_samples;   /* slices whose time was measured: all of them */
    uint64_t run_ns;        /* time inside all slices, ns (sched_profile_collect) */
    uint64_t queue_samples; /* run-queue length samples, one per slice */
    uint64_t queue_len_sum; /* their sum (the length excludes the process picked) */
    uint64_t queue_len_max; /* their maximum */
    uint64_t peak_live;     /* most live processes seen at a spawn on this worker */
} __attribute__((aligned(64)));

/* Chooses about one event in `interval`, so that per-event clock readings
 * cost a fraction of their price on hand-off-heavy runs (a reading costs
 * about as much as a short message hand-off's bookkeeping). The gaps
 * between chosen events are drawn uniformly from 1 .. 2 * interval - 1
 * (mean: interval) rather than fixed, so that a workload's own period (a
 * ring of `interval` processes) cannot line up with them and choose the
 * same process every time. Interval 1 chooses every event. One owner per
 * sampler (a worker, or the holder of the run-queue lock). */
struct sampler {
    uint32_t left;     /* events until the next chosen one, this one included */
    uint32_t interval; /* mean gap */
    uint64_t random;   /* xorshift64 state, never 0 */
};

void sampler_init(struct sampler *s, uint32_t interval, uint64_t seed);
/* The next gap (sampler_take's slow path). */
uint32_t sampler_next_gap(struct sampler *s);

/* True when this event is one to measure. */
static inline bool sampler_take(struct sampler *s)
{
    if (__builtin_expect(--s->left != 0, 1))
        return false;
    s->left = sampler_next_gap(s);
    return true;
}

/* Why a slice ended, as --profile's longest slice reports it. */
enum slice_end {
    SLICE_BUDGET,  /* its reductions were spent */
    SLICE_YIELD,   /* it gave up the rest of its budget (erlang:yield, a hand-off) */
    SLICE_TRAP,    /* a builtin did a portion of its work and continues in the next slice */
    SLICE_WAIT,    /* it waits in a receive */
    SLICE_EXIT,    /* it ended */
    SLICE_BLOCKED, /* a builtin waits for a process running on another worker */
    SLICE_COLLECT, /* it goes on on a collector thread (--gc-threads): a long collection, or a builtin's work (re:run)
                    */
    SLICE_END_KINDS
};
/* "budget", "yield", "trap", "wait", "exit", "blocked", "collect". */
const char *slice_end_name(enum slice_end why);

/* Where a process's code stood when a slice started or ended: its
 * function, and the builtin it stood in (a builtin that continues in
 * portions or repeats). Atoms; module THE_NON_VALUE: not known, bif_module
 * THE_NON_VALUE: in no builtin. */
struct slice_place {
    term module, function;
    unsigned arity;
    term bif_module, bif_function;
    unsigned bif_arity;
};

/* The longest slice one worker ran (--profile times every slice, so this
 * is exact). */
struct slice_record {
    uint64_t ticks; /* profile_stamp ticks; 0: no slice yet */
    term pid;
    enum slice_end why;
    struct slice_place in, out; /* where it started and where it ended (out: not known after an exit) */
};

/* Latencies one worker recorded (--profile). */
struct worker_latencies {
    struct histogram queue_wait; /* queued to running, profile_stamp ticks */
    struct histogram delivery;   /* sent to taken by a receive, ticks (recorded by the receiver's worker) */
    struct histogram slice;      /* every slice's duration, ticks (the body's resume alone) */
    struct slice_record longest; /* the longest of them */
    struct sampler sends;        /* which of its processes' sends carry a send time */
    struct sampler enqueues;     /* which processes it queues carry a queue time (run-queue lock) */
} __attribute__((aligned(64)));

/* The executor's two locks (rt/lock.h's slots are these). */
enum profiled_lock { PROFILED_LOCK_EXECUTOR, PROFILED_LOCK_RUN_QUEUE, PROFILED_LOCKS };

/* What one thread's use of one lock cost (--profile; rt/lock_ck.c
 * counts). Every acquisition is counted; about 1 in the sample interval is
 * timed, as the other latencies are: whether it found the lock taken, how
 * long it waited, how long the lock was then held. */
struct lock_costs {
    uint64_t acquisitions;
    uint64_t timed;          /* acquisitions timed */
    uint64_t contended;      /* of those, the ones that found the lock taken */
    uint64_t wait_ticks;     /* their time waiting, profile_stamp ticks */
    uint64_t wait_max_ticks; /* the longest of those waits */
    uint64_t hold_ticks;     /* the timed acquisitions' time held */
    uint64_t held_since;     /* the timed hold in progress (0: none) */
    struct sampler timing;
};

/* One thread's costs of both locks, on its own cache lines. */
struct thread_lock_costs {
    struct lock_costs lock[PROFILED_LOCKS];
} __attribute__((aligned(64)));

/* The same for the report, in ns (sched_profile_collect): one thread's or
 * the sum over them. Contended acquisitions and the times waiting and held
 * are estimated over all acquisitions from the timed ones (exact when every
 * one is timed). */
struct profile_lock_costs {
    uint64_t acquisitions, timed;
    uint64_t contended;
    uint64_t wait_ns, hold_ns;
    uint64_t wait_max_ns; /* the longest timed wait */
};

struct hw_counters;

/* What --profile adds to an executor. */
struct sched_profile {
    struct worker_latencies *workers; /* one per worker */
    /* The timers, executor mutex. */
    struct histogram timer_late;     /* fire time less the deadline's tick start, ns */
    struct sampler runtime_enqueues; /* enqueues by no worker (timers, the host), run-queue lock */
    uint32_t sample_interval;        /* the samplers' mean gap: 1 measures every event */
    uint64_t timer_now_ns;           /* the clock reading of the advance in progress */
    uint64_t timer_thread_wakes;
    uint64_t timer_thread_deadline_wakes; /* of those, the ones whose timed wait expired */
    struct hw_counters *hw;               /* NULL: no hardware counters asked for */
    uint64_t start_stamp, start_ns;       /* the two clocks read together at the start */
    struct worker_metrics *report;        /* the counters with times in ns (sched_profile_collect) */
    struct histogram *slices;             /* the slice durations in ns, per worker (sched_profile_collect) */
    /* The locks' costs: one per worker, then the timer thread's (the
     * threads that take them while the program runs). */
    struct thread_lock_costs *lock_costs;
    struct profile_lock_costs (*lock_report)[PROFILED_LOCKS]; /* them in ns (sched_profile_collect) */
};

/* Adds a's counters to total (maxima are maxima). */
void metrics_add(struct worker_metrics *total, const struct worker_metrics *a);

/* How a process ended, as the runtime classifies its exit reason
 * (signals_exit_kind). */
enum exit_kind {
    EXIT_KIND_NORMAL,
    EXIT_KIND_SHUTDOWN, /* shutdown or {shutdown, _} */
    EXIT_KIND_KILLED,
    EXIT_KIND_OTHER,
};
/* Counts an ended process by how it ended. */
void metrics_count_exit(struct worker_metrics *m, enum exit_kind kind);

/* Jain's fairness index of n values: (sum x)^2 / (n * sum x^2), 1 when all
 * are equal, 1/n when one has everything; 1 for no values or all zero. */
double metrics_jain_index(const double *x, size_t n);

#endif
