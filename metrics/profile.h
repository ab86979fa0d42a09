/*
 * profile.h — the --profile report: what a run measured, as text for a
 * reader and as JSON for scripts (schema: metrics/profile.schema.json).
 *
 * The executor fills a struct profile after its workers stopped
 * (sched_profile_collect, core/rt/sched_profile.h); the caller adds the
 * configuration; the two writers below only format. Every figure is a
 * measurement of this run, nothing is defaulted; latencies and running
 * time come from the sampled events (1 in about sample_interval), and the
 * report says so.
 */
#ifndef CLAUSE_PROFILE_H
#define CLAUSE_PROFILE_H

#include "metrics/histogram.h"
#include "metrics/hw_counters.h"
#include "metrics/metrics.h"
#include "term/strbuf.h"

#include <stdint.h>

#define PROFILE_CACHE_LEVELS 3

/* The machine as hwloc sees it. */
struct profile_topology {
    bool loaded; /* false: hwloc could not load it (nothing else is set) */
    unsigned packages, numa_nodes, cores, pus;
    unsigned caches[PROFILE_CACHE_LEVELS];      /* data or unified caches of L1..L3 */
    uint64_t cache_bytes[PROFILE_CACHE_LEVELS]; /* size of one such cache */
};

/* The longest slice of a run, with names for a reader (sched_profile_collect). */
struct profile_slice {
    uint64_t ns;         /* 0: no slice ran */
    unsigned worker;     /* the worker that ran it */
    uint64_t pid_number; /* <0.N.0> */
    const char *why;     /* slice_end_name */
    char in[160];        /* "m:f/a" where it started; "" not known */
    char out[160];       /* where it ended; "" not known (or it exited) */
    char builtin[160];   /* "m:f/a" of the builtin it ended in (a portion, a repeat); "" none */
};

struct profile {
    /* configuration (the caller's) */
    const char *version; /* git describe of the build */
    const char *policy;
    /* The policy's parameters with their effective values, in its order:
     * the value as text, and whether it is a number (else a name). */
    unsigned policy_param_count;
    struct profile_param {
        const char *name;
        char value[64];
        bool number;
    } policy_params[8];
    unsigned busy_wait;     /* --busy-wait's looks before an idle worker sleeps */
    unsigned watchdog_ms;   /* --watchdog's threshold (0: off) */
    const char *send_mode;  /* arrivals | blocking */
    const char *timer_mode; /* thread | workers | logical (a --schedule's controller fires them) */
    const char *schedule; /* --schedule's spec (random:seed=N, pct:...), replay:FILE, or NULL: the workers run freely */
    const char *locks;    /* the executor's lock kind: pthread | adaptive | ticket | mcs | cas */
    const char *binding;  /* the machine and how workers are bound (cpu_binding_describe) */
    const char *otp_options; /* the same settings as erl flags */
    const char *program;     /* the .beam file or native workload */
    int exit_status;
    double wall_ms; /* sched_run, start to end */
    struct profile_topology topology;

    /* measured (sched_profile_collect) */
    unsigned workers;
    unsigned sample_interval;            /* about 1 in this many sends, enqueues and slices timed */
    const struct worker_metrics *worker; /* [workers] */
    struct worker_metrics total;
    struct histogram queue_wait, delivery; /* merged over the workers */
    struct histogram *slice;               /* [workers]: every slice's duration, ns */
    struct histogram slice_total;          /* merged */
    struct profile_slice longest;
    struct histogram timer_late;
    uint64_t clock_readings; /* of the timer thread, or of the workers keeping the timers */
    uint64_t timer_thread_wakes, timer_thread_deadline_wakes;
    uint64_t timers_armed, timers_cancelled, timers_fired, receive_timeouts_fired;
    uint64_t blocked_builtins;
    /* Collector threads (--gc-threads): how many, the collections done
     * there, their total and longest time (ns). */
    unsigned collector_threads;
    uint64_t collections, collection_ns, collection_max_ns;
    uint64_t builtins_elsewhere, builtins_elsewhere_ns; /* builtins' work done on collector threads */
    /* The watchdog's event: at most one (it acts once). */
    unsigned watchdog_events;
    struct profile_watchdog {
        const char *kind;        /* stall | lost_wakeup */
        uint64_t at_ms;          /* since the executor started */
        uint64_t waited_ms;      /* how long the process had been runnable */
        uint64_t pid;            /* its number N in <0.N.0> */
        char name[256];          /* its registered name, "" when none */
        const char *from_policy; /* the policy it was under */
        const char *to_policy;   /* the one the program went on under, NULL: none */
    } watchdog;
    /* The executor mutex and the run-queue lock: per thread (the workers,
     * then the timer thread) and in total. */
    unsigned lock_threads; /* workers + 1; 0: not measured */
    const struct profile_lock_costs (*lock_costs)[PROFILED_LOCKS];
    struct profile_lock_costs lock_total[PROFILED_LOCKS];
    uint64_t live_at_end;
    double jain_busy;             /* over the workers' time inside slices */
    double jain_reductions;       /* over the reductions of the processes alive at the end */
    const struct hw_counters *hw; /* NULL: no counters were asked for */
};

/* Reads the machine's topology with hwloc. */
void profile_topology_load(struct profile_topology *t);

/* The report for a reader (stderr at exit). */
void profile_write_text(const struct profile *p, struct strbuf *out);
/* The JSON document. */
void profile_write_json(const struct profile *p, struct strbuf *out);

#endif
