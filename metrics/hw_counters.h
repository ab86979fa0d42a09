/*
 * hw_counters.h — PAPI counters per worker thread, and the runtime's own
 * counters published as PAPI Software Defined Events.
 *
 * Events are checked once, on the calling thread, before any worker runs:
 * an event PAPI cannot count here is dropped with PAPI's own reason, and
 * when none is left the report says so in one line. Every worker thread
 * then counts the usable events from its first slice to its last; events
 * of the "sde" component (clause's own, or another library's) count for
 * the whole process and are read once around the run. A PAPI error never
 * fails the run: it only leaves figures out of the report.
 */
#ifndef CLAUSE_HW_COUNTERS_H
#define CLAUSE_HW_COUNTERS_H

#include "metrics/metrics.h"

#include <stdbool.h>
#include <stdint.h>

#define HW_MAX_EVENTS 16
#define HW_DEFAULT_EVENTS "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_DCM,PAPI_L3_TCM,PAPI_BR_MSP"

struct hw_event {
    char name[96];
    bool process_wide; /* an SDE: read once for the whole process */
    bool usable;
    char why[160]; /* PAPI's reason when not usable */
};

struct hw_counters {
    unsigned event_count;
    struct hw_event events[HW_MAX_EVENTS];
    unsigned thread_events; /* usable per-thread events */
    unsigned workers;
    long long *values; /* workers * HW_MAX_EVENTS, per-thread events in events' order */
    bool *counted;     /* per worker: its counters started and were read */
    long long process_values[HW_MAX_EVENTS];
    bool process_counted;
    int process_set;       /* PAPI event set of the process-wide events, or -1 */
    char unavailable[512]; /* one line when no event is usable: PAPI's reasons */
};

/* Checks `events` (comma-separated PAPI preset or native names; NULL: the
 * defaults). NULL only when the host refuses memory. */
struct hw_counters *hw_counters_create(const char *events, unsigned workers);
void hw_counters_destroy(struct hw_counters *hc);

/* On worker w's own thread, before its first slice and after its last. */
void hw_counters_thread_start(struct hw_counters *hc, unsigned w);
void hw_counters_thread_stop(struct hw_counters *hc, unsigned w);

/* The process-wide events, around the run (the calling thread). */
void hw_counters_process_start(struct hw_counters *hc);
void hw_counters_process_stop(struct hw_counters *hc);

/* The value of event e on worker w (per-thread events), or -1 when it was
 * not counted there. */
long long hw_counters_value(const struct hw_counters *hc, unsigned w, unsigned e);

/* Publishes slices, steals, migrations, wakeups, sends and timer fires as
 * the SDEs sde:::clause::NAME, read from the given per-worker counters and
 * the timer count (NULL, 0, NULL: they read 0). Call before
 * hw_counters_create so that PAPI sees them. */
void hw_counters_publish_sde(const struct worker_metrics *metrics, unsigned workers, const uint64_t *timer_fires);

#endif
