/*
 * policy.h — the scheduling-policy contract.
 *
 * The executor owns the mechanism: process states, the executor mutex, the
 * run-queue lock, sleeping and waking workers, time slices. A policy owns
 * the decisions: which queue a runnable process joins, which process a
 * worker runs next, what a worker with nothing local does (steal, or
 * nothing), and when and how queues are balanced. A policy never sees a
 * process that is not runnable, and never changes a process's state.
 *
 * Locking: every callback below runs with the run-queue lock held (the
 * seed's lock "of their own" for the run queues and the workers' idle
 * state), so a policy's queues need no synchronisation of their own; the
 * executor mutex may or may not be held as well. A callback never blocks,
 * never takes another lock and never calls back into the executor except
 * through the sched_* services named in each comment.
 *
 * A new policy is one file in policies/ defining a `const struct
 * policy_ops` and one line in policies/registry.c. Only `name`, `summary`,
 * `enqueue` and `pick_next` are required; every other callback has the
 * default its comment gives.
 */
#ifndef CLAUSE_POLICY_H
#define CLAUSE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct process;
struct sched;

/* Why a process is being queued. */
enum enqueue_reason {
    ENQUEUE_SPAWN, /* a new process, from its parent's worker (or from outside: the main process) */
    ENQUEUE_YIELD, /* its slice ended with work left: back to the end of a queue */
    /* It waited, and a running process woke it (a message, a signal): the
     * waker runs on `self`. */
    ENQUEUE_WAKE_BY_PROCESS,
    /* It waited, and the runtime woke it: the timer or an I/O thread (self is
     * NOT_A_WORKER), or a worker between slices. */
    ENQUEUE_WAKE_BY_RUNTIME,
    /* Its builtin was blocked on a process running elsewhere, whose slice
     * just ended: it runs first (the front of a queue) and repeats it. */
    ENQUEUE_UNBLOCKED,
};

/* Who is queueing: a worker between slices or running a process, or a
 * thread that is not a worker (timer or I/O thread, or the starting thread
 * before the workers run); -1 for the latter. */
typedef int worker_id;
#define NOT_A_WORKER (-1)

struct policy_ops {
    const char *name;
    const char *summary; /* one line for --policy help */

    /* Bytes of per-worker policy state the executor allocates, zeroed, one
     * block per worker (sched_policy_worker_data). Default 0. */
    size_t worker_bytes;
    /* Bytes of policy state shared by all workers (sched_policy_shared_data),
     * zeroed. Default 0. */
    size_t shared_bytes;

    /* Called once before any worker runs, on the starting thread, without
     * locks. Default: nothing. Returns false to refuse the configuration. */
    bool (*init)(struct sched *s);
    /* Called once after every worker stopped, on the starting thread. */
    void (*fini)(struct sched *s);

    /* Queue p, which is runnable and in no queue. `self` is the worker
     * doing it (NOT_A_WORKER from other threads). Returns the worker that
     * should be woken if it sleeps, or NOT_A_WORKER for none; the executor
     * wakes it only when it actually sleeps. p->last_worker is the worker p
     * last ran on (its own worker for a new process: its parent's).
     * REQUIRED. */
    worker_id (*enqueue)(struct sched *s, worker_id self, struct process *p, enum enqueue_reason why);

    /* The process worker w runs next, removed from its queue, or NULL when
     * w has nothing local. REQUIRED. */
    struct process *(*pick_next)(struct sched *s, worker_id w);

    /* w found nothing local: take work from elsewhere (steal), removed from
     * wherever it was, or NULL. The executor then puts w to sleep until a
     * wakeup names it. Default: NULL (no stealing). */
    struct process *(*find_work)(struct sched *s, worker_id w);

    /* w finished a slice (any reason). Balancing policies count slices here
     * and move processes between queues. Default: nothing. */
    void (*slice_done)(struct sched *s, worker_id w);

    /* Removes p from whatever queue holds it (an exit signal to a runnable
     * process, program end). Default: required when a policy keeps queues
     * the executor cannot see; both shipped policies implement it. */
    void (*remove)(struct sched *s, struct process *p);

    /* Number of processes queued for w (reports and balancing tests). */
    size_t (*queue_length)(struct sched *s, worker_id w);

    /* True when every worker takes from one queue, whose whole length
     * queue_length reports for each (statistics/1 then counts it once). */
    bool shared_queue;
};

/* ---- services the executor offers to policies (callable in callbacks) ---- */

unsigned sched_worker_count(const struct sched *s);
/* The policy's per-worker block of worker_bytes. */
void *sched_policy_worker_data(struct sched *s, worker_id w);
/* The policy's block of shared_bytes. */
void *sched_policy_shared_data(struct sched *s);
/* Whether w sleeps (waiting for work), read under the run-queue lock. */
bool sched_worker_sleeping(const struct sched *s, worker_id w);
/* A sleeping worker, searching from the one after `after` round the ring
 * (pass NOT_A_WORKER to start at 0), or NOT_A_WORKER when none sleeps. */
worker_id sched_sleeping_worker(const struct sched *s, worker_id after);
/* Two per-process words reserved for the policy (e.g. queue links). */
void **sched_policy_proc_link(struct process *p);
worker_id sched_proc_last_worker(const struct process *p);
void sched_proc_set_last_worker(struct process *p, worker_id w);

/* Counters the policy reports through (metrics.h has the rest). */
void sched_count_steal_attempt(struct sched *s, worker_id thief);
void sched_count_steal(struct sched *s, worker_id thief, worker_id victim);
void sched_count_balance_move(struct sched *s, worker_id to, worker_id from);

/* The registry (policies/registry.c). */
const struct policy_ops *policy_find(const char *name);
/* Every registered policy, NULL-terminated, default first. */
const struct policy_ops *const *policy_all(void);

#endif
