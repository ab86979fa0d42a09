/*
 * sched_profile.h — --profile on an executor: what it measures beyond the
 * counters that always run (metrics.h), and reading it all out at the end.
 *
 * Part of the executor (it reads rt/internal.h); the formatting lives in
 * metrics/profile.c.
 */
#ifndef CLAUSE_SCHED_PROFILE_H
#define CLAUSE_SCHED_PROFILE_H

#include <stdbool.h>

struct sched;
struct profile;

/* Without --profile-sample: about 1 in 16 sends, enqueues and slices
 * timed, which keeps --profile's cost on a ring of one-message slices
 * within a few percent (experiments/bench_profile_cost.sh). */
#define SCHED_PROFILE_SAMPLE_DEFAULT 16

/* Turns profiling on, before sched_run: latencies, running time, run-queue
 * samples and the PAPI events (comma-separated names; NULL: the defaults;
 * "" for none), and publishes clause's counters as PAPI SDEs. Latencies
 * and running time are measured on about 1 event in sample_interval (0:
 * the default; 1: every event). False when the host refused memory. */
bool sched_profile_start(struct sched *s, const char *events, unsigned sample_interval);

/* Fills the measured part of out; after sched_run returned, before
 * sched_destroy. out->worker points into s. */
void sched_profile_collect(struct sched *s, struct profile *out);

/* ---- for the executor ---- */

/* On worker w's own thread, before its first slice and after its last. */
void sched_profile_worker_begin(struct sched *s, unsigned w);
void sched_profile_worker_end(struct sched *s, unsigned w);
/* On a thread that takes the executor's locks, holding neither: from
 * begin to end its lock operations are measured into thread's record (a
 * worker's number, or worker_count for the timer thread). The worker
 * calls above include these. */
void sched_profile_thread_begin(struct sched *s, unsigned thread);
void sched_profile_thread_end(void);
/* sched_destroy. */
void sched_profile_free(struct sched *s);

#endif
