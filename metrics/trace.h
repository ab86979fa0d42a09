/*
 * trace.h — --trace's recording: one ring of fixed-size binary records per
 * worker, allocated before the run and written only by its worker (no
 * lock, no allocation while the program runs), formatted to Chrome
 * trace-event JSON after the run (rt/sched_trace.h).
 *
 * A full ring overwrites its oldest records, so that the file shows the
 * end of a long run; the ring counts what it overwrote.
 */
#ifndef CLAUSE_TRACE_H
#define CLAUSE_TRACE_H

#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Without --trace-limit: the records kept per worker. */
#define TRACE_LIMIT_DEFAULT 1000000u
#define TRACE_LIMIT_MAX 100000000u

#ifdef CLAUSE_NO_PROFILE
#define TRACING(ring) 0
#else
#define TRACING(ring) __builtin_expect((ring) != NULL, 0)
#endif

enum trace_kind {
    TRACE_SLICE,      /* a slice: stamp, ticks, pid, name, reductions, why (enum slice_end) */
    TRACE_STEAL,      /* this worker stole pid from worker `other` */
    TRACE_MIGRATION,  /* pid's slice runs here, its previous one on worker `other` */
    TRACE_SLEEP,      /* the worker went to sleep */
    TRACE_WAKEUP,     /* it woke; why: 1 woken by another thread, 0 a deadline or the end */
    TRACE_FLOW_START, /* the running process woke pid (a send to it, waiting): flow `ticks` starts */
    TRACE_FLOW_END,   /* flow `ticks` ends at the start of pid's slice */
    /* On the ring written under the run-queue lock: */
    TRACE_BALANCE,           /* a balance move to worker `reds` from worker `other` */
    TRACE_WATCHDOG,          /* the watchdog acted on pid, waiting `reds` ms; why: enum sched_watchdog_kind */
    TRACE_COLLECT,           /* pid's collection on collector `other`, for worker `why`: stamp, ticks; reds: its cost */
    TRACE_BUILTIN_ELSEWHERE, /* pid's builtin's work on collector `other`, as TRACE_COLLECT's (reds 0) */
};

struct trace_record {
    uint64_t stamp; /* profile_stamp at the event (a slice's start) */
    uint64_t ticks; /* a slice's length in profile_stamp ticks */
    uint64_t pid;   /* N of <0.N.0>; 0: none */
    term name;      /* the process's registered name, THE_NON_VALUE: none */
    uint32_t reds;  /* reductions the slice used */
    uint16_t other; /* a worker (steal, migration) */
    uint8_t kind;   /* enum trace_kind */
    uint8_t why;    /* see enum trace_kind */
};

/* The size the documentation gives (README.md, metrics/README.md). */
_Static_assert(sizeof(struct trace_record) == 40, "a trace record is 40 bytes");

struct trace_ring {
    struct trace_record *records; /* [capacity] */
    uint64_t flows;               /* flows this worker started: a flow's id is (flows << 16) | worker + 1 */
    uint64_t capacity;
    uint64_t written; /* records ever written: the next goes to written % capacity */
    uint64_t next;    /* written % capacity, kept to avoid a division */
    /* Under --schedule, the logical clock (ns since the start) that stamps
     * the records, so that a seed repeats the trace; NULL: profile_stamp. */
    const uint64_t *logical_ns;
} __attribute__((aligned(64)));

/* False when the memory was refused. */
bool trace_ring_init(struct trace_ring *r, uint64_t capacity);
void trace_ring_free(struct trace_ring *r);

/* The record to fill next (over the oldest when full). */
static inline struct trace_record *trace_ring_push(struct trace_ring *r)
{
    struct trace_record *rec = &r->records[r->next];
    if (++r->next == r->capacity)
        r->next = 0;
    r->written++;
    return rec;
}

/* Records kept, and overwritten. */
static inline uint64_t trace_ring_kept(const struct trace_ring *r)
{
    return r->written < r->capacity ? r->written : r->capacity;
}
static inline uint64_t trace_ring_dropped(const struct trace_ring *r) { return r->written - trace_ring_kept(r); }

/* The i-th kept record, oldest first (i < trace_ring_kept). */
const struct trace_record *trace_ring_at(const struct trace_ring *r, uint64_t i);

#endif
