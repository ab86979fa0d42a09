/*
 * sched_trace.h — --trace on an executor: a timeline of every slice and of
 * the workers' steals, migrations, sleeps and wakeups, recorded into one
 * ring per worker (metrics/trace.h), and of balance moves and the
 * watchdog's act, recorded under the run-queue lock (by whichever thread
 * makes them) into one more ring; written after the run as Chrome
 * trace-event JSON (what Perfetto's UI and chrome://tracing open).
 */
#ifndef CLAUSE_SCHED_TRACE_H
#define CLAUSE_SCHED_TRACE_H

#include "metrics/metrics.h"
#include "metrics/trace.h"
#include "term/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

struct sched;

/* Turns tracing on, before sched_run: `limit` records kept per ring (0:
 * TRACE_LIMIT_DEFAULT); one slice in `sample` recorded on each worker
 * (0 or 1: every slice), with the arrows from the wakes it makes, and
 * every slice that such an arrow ends at. False when the memory was
 * refused. */
bool sched_trace_start(struct sched *s, uint64_t limit, uint32_t sample);

/* The trace as JSON, after sched_run returned, before sched_destroy;
 * program names the run in the file's otherData. */
void sched_trace_write_json(struct sched *s, const char *program, struct strbuf *out);

/* The rings, one per worker and then the run-queue lock's (NULL: no
 * --trace), for tests. */
const struct trace_ring *sched_trace_rings(const struct sched *s);

/* sched_destroy. */
void sched_trace_free(struct sched *s);

/* An instant event on a worker's ring, from that worker's thread; the
 * record, for a caller that adds to it. */
static inline struct trace_record *sched_trace_instant(struct trace_ring *r, enum trace_kind kind, uint64_t pid,
                                                       unsigned other, unsigned why)
{
    struct trace_record *rec = trace_ring_push(r);
    rec->stamp = r->logical_ns ? *r->logical_ns : profile_stamp();
    rec->ticks = 0;
    rec->pid = pid;
    rec->name = THE_NON_VALUE;
    rec->reds = 0;
    rec->other = (uint16_t)other;
    rec->kind = (uint8_t)kind;
    rec->why = (uint8_t)why;
    return rec;
}

/* The ring that records under the run-queue lock (s->trace non-NULL). */
static inline struct trace_ring *sched_trace_locked_ring(struct trace_ring *rings, unsigned worker_count)
{
    return &rings[worker_count];
}

#endif
