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
};

struct body_ops {
    const char *name;
    /* Runs p on the calling worker until it stops. */
    enum body_stop (*resume)(struct process *p);
    /* Frees the body's state: the process ended or the program is ending.
     * Runs without locks. */
    void (*release)(struct process *p);
};

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
