/*
 * metrics.h — counters of every scheduling decision, per worker.
 *
 * Each worker owns one cache-line-aligned block and is the only writer of
 * the counters it bumps for itself, so counting costs a plain increment and
 * no cache line is shared between workers. Counters that another thread
 * bumps for a worker (a wakeup a worker receives) live with the thread that
 * caused them (wakeups_sent). Readers (the report at exit) run after the
 * workers stopped.
 */
#ifndef CLAUSE_METRICS_H
#define CLAUSE_METRICS_H

#include "../core/strbuf.h"

#include <stdint.h>

struct worker_metrics {
    uint64_t slices;         /* time slices run */
    uint64_t reductions;     /* reductions spent in them */
    uint64_t spawned;        /* processes spawned by processes on this worker */
    uint64_t balance_taken;  /* processes this worker took by balancing */
    uint64_t steal_attempts; /* times this worker looked for work to steal */
    uint64_t steals;         /* processes it stole */
    uint64_t stolen_from;    /* processes others stole from it (bumped by the thief, under the run-queue lock) */
    uint64_t wakeups_sent;   /* sleeping workers this worker woke */
    uint64_t sleeps;         /* times it went to sleep */
    uint64_t busy_ns;        /* time awake (running processes or looking for them) */
    uint64_t idle_ns;        /* time asleep */
} __attribute__((aligned(64)));

/* Adds a's counters to total. */
void metrics_add(struct worker_metrics *total, const struct worker_metrics *a);

/* The --profile text for n workers. */
void metrics_report(struct strbuf *out, const struct worker_metrics *workers, unsigned n);

#endif
