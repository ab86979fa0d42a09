/*
 * options.h — the command line of `clause`.
 *
 *   clause [options] PROGRAM.beam [ARGS...]
 *   clause [options] --native WORKLOAD [ARGS...]
 *
 * Options come before the program; everything after it belongs to the
 * program. Parsing is a pure function of argv (no I/O, no exit), so tests
 * can check every error; main() prints the message and exits with the
 * status the result carries.
 */
#ifndef CLAUSE_OPTIONS_H
#define CLAUSE_OPTIONS_H

#include "rt/executor.h"
#include "rt/schedule.h"

#include <stdbool.h>
#include <stddef.h>

/* Exit statuses of option errors (README documents them). */
#define EXIT_USAGE 2 /* unknown option, bad value, missing program */

struct policy_ops;

#define OPTIONS_MAX_CODE_PATHS 64

struct clause_options {
    unsigned schedulers;                        /* 0: the default (one per CPU of the affinity mask or of the set) */
    const struct policy_ops *policy;            /* never NULL after a successful parse */
    long long policy_params[POLICY_MAX_PARAMS]; /* its parameters' values (--policy NAME:key=value,...) */
    unsigned busy_wait;                         /* --busy-wait N: looks for work before an idle worker sleeps */
    unsigned watchdog_ms;                       /* --watchdog MS: stall watchdog (0: off) */
    int gc_threads;                             /* --gc-threads N: collector threads; -1: the default (workers) */
    const char *scheduler_cpus;                 /* NULL: unbound */
    size_t max_heap_words;                      /* 0: no cap */
    bool blocking_sends;                        /* --send-mode blocking */
    bool worker_timers;                         /* --timers workers */
    enum lock_kind locks;                       /* --locks KIND: how the executor's two locks are built */
    bool profile;                               /* --profile: the report on stderr at exit */
    const char *profile_json;                   /* --profile=FILE.json: the report as JSON in FILE */
    const char *profile_events;                 /* --profile-events=EV,...: PAPI events (NULL: the defaults) */
    unsigned profile_sample;                    /* --profile-sample=N: 1 in about N events timed (0: the default) */
    const char *trace_json;                     /* --trace=FILE.json: the timeline as Chrome trace-event JSON */
    unsigned trace_limit;                       /* --trace-limit=N: events kept per worker (0: the default) */
    unsigned trace_sample;                      /* --trace-sample=N: one slice in N recorded (0: every one) */
    struct schedule_spec schedule;              /* --schedule MODE:...: mode SCHEDULE_OFF when absent */
    const char *schedule_log;                   /* --schedule-log FILE: every step written to FILE */
    const char *replay;                         /* --replay FILE: the steps of a log, replayed */
    bool list_policies;                         /* --policy help */
    bool list_locks;                            /* --locks help */
    bool help;                                  /* --help */
    bool version;                               /* --version */
    const char *native_workload;                /* --native NAME */
    const char *program;                        /* PROGRAM.beam */
    const char *code_paths[OPTIONS_MAX_CODE_PATHS]; /* -pa DIR, in order */
    int code_path_count;
    int program_argc; /* arguments after the program */
    char **program_argv;
};

/* Parses argv. On error returns false and writes a one-line message (without
 * the program name) to error; the exit status is EXIT_USAGE. */
bool options_parse(int argc, char **argv, struct clause_options *out, char *error, size_t error_len);

/* The usage text. */
const char *options_usage(void);

#endif
