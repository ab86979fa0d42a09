/*
 * node.h — the executor as builtins see it: the node's figures
 * (system_info, statistics, memory) and the calls that do a builtin's work
 * on other processes under the executor's locks. The runtime owns its
 * locks: a builtin never takes one itself, it calls one of these.
 */
#ifndef CLAUSE_NODE_H
#define CLAUSE_NODE_H

#include "rt/persistent.h"
#include "rt/proc_table.h"
#include "rt/process.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- figures ---- */

unsigned node_worker_count(const struct process *self);
/* Workers not asleep (run-queue lock inside). */
unsigned node_workers_awake(struct process *self);
/* Live processes (executor mutex inside). */
size_t node_process_count(struct process *self);
/* Processes queued per worker, read from the policy under the run-queue
 * lock, into lengths[0 .. worker count - 1]: a shared queue counts once, as
 * the first worker's; with count_awake, an awake worker adds one (the
 * process it runs or is about to run). */
void node_run_queue_lengths(struct process *self, size_t *lengths, bool count_awake);
/* Reductions of every finished slice and of the caller's slice so far. */
uint64_t node_reductions(const struct process *self);
/* Slices every worker finished. */
uint64_t node_slices(const struct process *self);
/* The clocks, read by self (running). Under --schedule they follow the
 * logical clock (rt/schedule.h), so that a seed repeats them; otherwise
 * the machine's. Milliseconds since the executor started: */
uint64_t node_uptime_ms(const struct process *self);
/* erlang:monotonic_time in nanoseconds (logical: from 0): */
int64_t node_monotonic_ns(const struct process *self);
/* The system time, nanoseconds since the Unix epoch (logical: from
 * 2026-01-01, SCHEDULE_EPOCH_NS): */
int64_t node_system_time_ns(const struct process *self);
/* The CPU time the node used, in milliseconds (logical: the uptime): */
uint64_t node_runtime_ms(const struct process *self);

/* erlang:system_flag(system_logger, L): who gets the runtime's own log
 * events (rt/error_report.h). A pid, undefined or logger (the default,
 * which kernel's logger_proxy replaces with its pid as it starts). The
 * setter answers the previous value. */
term node_system_logger(const struct process *self);
term node_set_system_logger(struct process *self, term logger);

/* statistics/1's "since the last call" figures, one memory per item. */
enum node_since {
    NODE_SINCE_REDUCTIONS,
    NODE_SINCE_EXACT_REDUCTIONS,
    NODE_SINCE_RUNTIME,
    NODE_SINCE_WALL_CLOCK,
    NODE_SINCE_ITEMS,
};
/* total less the total of the previous call for that item (0 when it did
 * not grow), which becomes total. */
uint64_t node_since_last(struct process *self, enum node_since item, uint64_t total);

/* The live processes' table entries, in no order, in a malloc'd array
 * (*live, *n); false when the host refused memory. */
bool node_processes(struct process *self, struct proc_table_entry **live, size_t *n);
/* Calls visit for every live process with the executor mutex held: whole
 * is true for self and every process not running (whose heap cannot
 * change meanwhile), false for one running on another worker (only its
 * context may be read). False when the host refused memory. */
bool node_each_process(struct process *self, void (*visit)(const struct process *q, bool whole, void *arg), void *arg);

/* ---- work on another process ---- */

enum node_answer {
    NODE_ANSWERED, /* *result is answer's */
    NODE_NO_PROCESS,
    /* It runs on another worker: the builtin must end the slice and repeat
     * once that slice ended (builtins::Blocked), the target held till then. */
    NODE_BLOCKED,
};
/* Calls answer(self, q, arg) for the live process q that pid names (self
 * included), with the executor mutex held and q not running elsewhere; it
 * may call the runtime's *_locked functions on q. A blocked caller's hold
 * on a target ends here when it does not block again. */
enum node_answer node_on_process(struct process *self, term pid,
                                 term (*answer)(struct process *self, struct process *q, term arg), term arg,
                                 term *result);

/* ---- persistent_term's table (persistent.h), for the calling process ---- */

/* Copies key's value onto self's heap. */
enum persistent_result node_persistent_get(struct process *self, term key, term *value);
/* Every {Key, Value} as a list on self's heap. */
enum persistent_result node_persistent_get_all(struct process *self, term *list);
void node_persistent_info(struct process *self, size_t *count, size_t *bytes);
enum persistent_result node_persistent_put(struct process *self, term key, term value);
enum persistent_result node_persistent_erase(struct process *self, term key);

/* ---- erlang:system_monitor ---- */

/* A system monitor setting: the process that gets the messages and what it
 * asked for. long_schedule and long_gc are milliseconds (0: off; clause
 * sends both messages); large_heap, busy_port and busy_dist_port are kept
 * and reported as set, and never send anything. */
struct node_sysmon {
    term pid; /* THE_NON_VALUE: no monitor */
    uint64_t long_schedule, long_gc, large_heap;
    bool busy_port, busy_dist_port;
};
/* The current setting. */
void node_system_monitor_get(struct process *self, struct node_sysmon *out);
/* Replaces the setting with *set (pid THE_NON_VALUE: none) and returns the
 * previous one in *old; false, changing nothing, when set->pid is no live
 * process. */
bool node_system_monitor_set(struct process *self, const struct node_sysmon *set, struct node_sysmon *old);

/* ---- the OS environment (os:getenv/putenv/unsetenv) ---- */

/* The environment is the host process's, shared by every worker; these take
 * a reader-writer lock so that no read sees a variable being replaced. */

/* A malloc'd copy of name's value, or NULL when unset (or memory refused:
 * *failed then true). */
char *node_getenv(const char *name, bool *failed);
/* A malloc'd array of malloc'd "NAME=VALUE" strings (*n of them); false
 * when memory was refused. Free with node_environ_free. */
bool node_environ(char ***vars, size_t *n);
void node_environ_free(char **vars, size_t n);
/* setenv/unsetenv: false when the host refused. */
bool node_setenv(const char *name, const char *value);
bool node_unsetenv(const char *name);

#endif
