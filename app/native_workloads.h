/*
 * native_workloads.h — scheduler microbenchmarks written as native C
 * processes, run by `clause --native NAME ARGS` and by experiments/bench.
 *
 * Each workload spawns its processes from a main process, checks its own
 * result when the run ends (a wrong result fails the run whatever its
 * speed), and prints one result line.
 */
#ifndef CLAUSE_NATIVE_WORKLOADS_H
#define CLAUSE_NATIVE_WORKLOADS_H

#include "rt/executor.h"
#include "term/strbuf.h"

#include <stdbool.h>

struct native_workload {
    const char *name;
    const char *args; /* e.g. "N" */
    int arg_count;
    /* Parses args, spawns the main process; *ctx is the workload's state. */
    bool (*start)(struct sched *s, char **args, term *main_pid, void **ctx, struct strbuf *error);
    /* After the run: appends the result line; false when the result is wrong. */
    bool (*finish)(void *ctx, struct strbuf *result);
    void (*free_ctx)(void *ctx);
};

const struct native_workload *native_workload_find(const char *name);

#endif
