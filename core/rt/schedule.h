/*
 * schedule.h — seeded schedules and their replay (--schedule, --schedule-log,
 * --replay): the workers take turns, one step at a time, so that a seed
 * names one interleaving and a run can be repeated byte for byte.
 *
 * The controller serialises the workers without taking the policy's place:
 * each worker still asks its policy which process to run, and the
 * controller only decides which worker takes the next step. A step is one
 * slice of the chosen worker (with the settling of its previous one), or
 * one idle check that found nothing to run, after which the worker counts
 * as asleep, as it would sleep on its event, until something wakes it. Only
 * awake workers are chosen. Every worker waits on a semaphore of its own;
 * the worker that ends a step chooses the next one and posts its semaphore,
 * so exactly one thread runs the program at any time and the controller
 * needs no lock and no thread.
 *
 * Time follows the steps, not the wall clock: the logical clock advances by
 * SCHEDULE_NS_PER_REDUCTION for every reduction a slice spent (at least one
 * per step), and while every worker sleeps it jumps to the next timer, as a
 * discrete-event simulator does. Timers, receive timeouts and the clocks
 * builtins read (monotonic and system time, now, statistics) all read it.
 *
 * Modes: random picks uniformly among the awake workers; pct gives every
 * worker a random priority and runs the highest awake one, lowering the
 * stepping worker's priority at depth-1 change points drawn over the first
 * `steps` steps (Burckhardt et al., "A Randomized Scheduler with
 * Probabilistic Guarantees of Finding Bugs", ASPLOS 2010), and picks at
 * random after those; replay follows a log. Priorities belong to workers,
 * not processes: the policy, not the controller, chooses the process, so
 * the controller can only order workers.
 */
#ifndef CLAUSE_SCHEDULE_H
#define CLAUSE_SCHEDULE_H

#include "rt/policy.h"
#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sched;
struct schedule;

enum schedule_mode {
    SCHEDULE_OFF,
    SCHEDULE_RANDOM,
    SCHEDULE_PCT,
    SCHEDULE_REPLAY,
};

/* A full slice (4,000 reductions) lasts a logical millisecond. */
#define SCHEDULE_NS_PER_REDUCTION 250u
/* The logical system clock starts at 2026-01-01T00:00:00Z; the monotonic
 * clock at 0. */
#define SCHEDULE_EPOCH_NS (1767225600ll * 1000000000ll)
/* pct's largest depth, and its step estimate's default and largest. */
#define SCHEDULE_MAX_DEPTH 64u
#define SCHEDULE_DEFAULT_STEPS 1000u
#define SCHEDULE_MAX_STEPS 1000000000u
/* A replay that does not follow its log ends with this status (sysexits'
 * EX_DATAERR: the log does not fit the program). */
#define EXIT_REPLAY_DIVERGED 65

/* What --schedule asks for. */
struct schedule_spec {
    enum schedule_mode mode;
    uint64_t seed;
    unsigned depth; /* pct's d: 1 gives no change point */
    uint64_t steps; /* pct's estimate of the run's steps (k) */
};

/* Parses --schedule's value: random:seed=N or pct:seed=N,depth=D[,steps=K].
 * False with a one-line message when it is malformed. */
bool schedule_spec_parse(const char *text, struct schedule_spec *spec, char *error, size_t error_len);

/* The spec as --schedule takes it (for logs and messages). */
void schedule_spec_format(const struct schedule_spec *spec, char *out, size_t out_len);

/* ---- the generator: splitmix64 (Steele, Lea, Flood, OOPSLA 2014) ---- */

struct schedule_random {
    uint64_t state;
};

void schedule_random_seed(struct schedule_random *r, uint64_t seed);
uint64_t schedule_random_next(struct schedule_random *r);
/* Uniform in 0..n-1 (n > 0; the modulo's bias is below n / 2^64). */
uint64_t schedule_random_below(struct schedule_random *r, uint64_t n);

/* ---- PCT's priorities ---- */

struct schedule_pct {
    unsigned workers;
    unsigned depth;
    uint64_t steps;
    long long *priority;     /* per worker: the highest awake runs */
    uint64_t *change_points; /* depth-1 steps (1-based), ascending */
    unsigned changes_done;
};

/* Draws the workers' priorities (a permutation of depth..depth+workers-1)
 * and the change points (uniform in 1..steps). False when memory was
 * refused. */
bool schedule_pct_init(struct schedule_pct *pct, struct schedule_random *r, unsigned workers, unsigned depth,
                       uint64_t steps);
void schedule_pct_free(struct schedule_pct *pct);
/* The worker to take step `step` (1-based) among the awake ones
 * (awake[w]); at a change point the highest awake worker first drops below
 * every priority given so far. NOT_A_WORKER when none is awake. */
worker_id schedule_pct_choose(struct schedule_pct *pct, uint64_t step, const bool *awake);

/* ---- the controller ---- */

/* A controller for spec, or for the log replay_path when that is not NULL
 * (then spec is ignored); log_path, when not NULL, receives every step.
 * policy names the policy (with its parameters) and workers the worker
 * count, which a replay's log must match. NULL with a one-line message
 * (unreadable or malformed log, a log of another configuration, a file
 * that cannot be written, memory). */
struct schedule *schedule_new(const struct schedule_spec *spec, unsigned workers, const char *policy,
                              const char *log_path, const char *replay_path, char *error, size_t error_len);
/* Flushes and closes the log. */
void schedule_free(struct schedule *c);
/* Steps taken so far; after sched_run, the run's. */
uint64_t schedule_steps(const struct schedule *c);

/* ---- for the executor (executor.c) ---- */

/* Before the workers loop: workers `started` and above never run; the
 * first step is chosen. */
void schedule_begin(struct sched *s, unsigned started);
/* Worker w waits until the step is its own. */
void schedule_take_turn(struct sched *s, worker_id w);
/* Worker w ended its step, no lock held: a slice of pid that spent `used`
 * reductions, or an idle check (pid THE_NON_VALUE). The clock advances,
 * due timers fire, a pending read of standard input completes, and the
 * next worker is chosen and posted. */
void schedule_end_step(struct sched *s, worker_id w, term pid, uint32_t used);
/* Worker w left its loop (the program ends): the next worker still in
 * its loop, in index order, settles and leaves in turn. */
void schedule_leave(struct sched *s, worker_id w);
/* The logical clock between steps, as a word --trace's rings stamp from
 * (schedule_now_ns(c, NULL) is its value). */
const uint64_t *schedule_clock(const struct schedule *c);
/* After the workers left: a replay whose program ended before its log did
 * reports it, and the run's status becomes EXIT_REPLAY_DIVERGED. */
void schedule_end_run(struct sched *s);
/* The logical clock: nanoseconds since the executor started, counting the
 * reductions the slice of `running` has spent so far (NULL: between
 * slices). */
uint64_t schedule_now_ns(const struct schedule *c, const struct process *running);

#endif
