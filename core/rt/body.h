/*
 * body.h — what a process runs, behind an interface the executor calls.
 *
 * The executor never knows whether a process runs native C or BEAM code. It
 * resumes the body with a reduction budget (process.reds_left) and the body
 * answers why it stopped. A body that spends its budget records where it
 * was (for BEAM: the function entry it did not make) so that the next
 * resume repeats it; a body that waits has registered its wait; a body that
 * exits has set the exit reason.
 *
 * Native bodies (native_body below) are a step function and its state: the
 * tests' and microbenchmarks' processes. The BEAM engine is the other
 * implementation.
 */
#ifndef CLAUSE_BODY_H
#define CLAUSE_BODY_H

#include "term/term.h"

struct process;

enum body_stop {
    BODY_YIELD,   /* budget spent, or yield requested: resume later */
    BODY_WAIT,    /* waiting in a receive: resume when a message arrives */
    BODY_EXIT,    /* ended: process.exit_reason holds why */
    BODY_BLOCKED, /* a builtin targets a process running on another worker: resume once its slice ended */
    BODY_COLLECT, /* its heap wants a long collection (process.collect_need words free after it; the roots on
                     its stack, dictionary and mailbox): the slice goes on on a collector thread, where the
                     process stays running, and ends there; resumed, the body goes on as after the
                     collection (collector.c) */
};

/* Where a process's code stands, as a slice's report names it (--profile's
 * longest slice, system_monitor's long_schedule): the function it runs,
 * and the builtin it stands in when that builtin continues in portions or
 * repeats after blocking. A module of THE_NON_VALUE: not known (OTP's
 * undefined); a bif_module of THE_NON_VALUE: in no builtin. */
struct body_location {
    term module, function;
    unsigned arity;
    term bif_module, bif_function;
    unsigned bif_arity;
};

/* A position, taken cheaply when a slice starts or ends (two words read)
 * and turned into a body_location only when a report wants it. */
struct body_position {
    const void *at, *aux;
};

struct body_ops {
    const char *name;
    /* Runs p on the calling worker until it stops. */
    enum body_stop (*resume)(struct process *p);
    /* Frees the body's state: the process ended or the program is ending.
     * Runs without locks. */
    void (*release)(struct process *p);
    /* Where p stands while it does not run (may be NULL: nowhere known). */
    void (*position)(const struct process *p, struct body_position *out);
    /* The function and builtin of a position p stood at (p's own code:
     * p's worker, or the executor mutex while p does not run). */
    void (*locate)(const struct process *p, const struct body_position *at, struct body_location *out);
};

/* A location that names nothing (every field unknown). */
static inline struct body_location body_location_unknown(void)
{
    struct body_location l = {THE_NON_VALUE, THE_NON_VALUE, 0, THE_NON_VALUE, THE_NON_VALUE, 0};
    return l;
}

/* A native process: step() is called with the process; it spends
 * reductions with proc_spend (process.h) and returns why it stopped. Its
 * state pointer is process.body_state, released with free_state (may be
 * NULL) when the process ends or the program ends. */
typedef enum body_stop (*native_step_fn)(struct process *p, void *state);

struct native_body {
    native_step_fn step;
    void (*free_state)(void *state);
};

extern const struct body_ops native_body_ops;

#endif
