/*
 * policy.h — the scheduling-policy contract, version 2.
 *
 * The executor owns the mechanism: process states, the executor mutex, the
 * run-queue lock, sleeping and waking workers, time slices, how an idle
 * worker waits (--busy-wait). A policy owns the decisions: which queue a
 * runnable process joins, which process a worker runs next, what a worker
 * with nothing local does (steal, or nothing), when and how queues are
 * balanced, and how many reductions each slice may use. A policy never
 * sees a process that is not runnable or running, and never changes a
 * process's state.
 *
 * Locking: every callback below runs with the run-queue lock held (the
 * seed's lock "of their own" for the run queues and the workers' idle
 * state), so a policy's state needs no synchronisation of its own: one
 * lock serialises every callback of every worker. The executor mutex may
 * or may not be held as well; each comment says which. A callback never
 * blocks, never takes another lock and never calls back into the executor
 * except through the sched_* services below.
 *
 * A slice, as the policy sees it: pick_next (or find_work) returns p;
 * running(w, p) sets its budget; p runs; stopping(w, p, used, why); then,
 * if p runs on, enqueue(..., ENQUEUE_YIELD or ENQUEUE_UNBLOCKED); then
 * tick(w) when it is due; then pick_next for w's next slice.
 *
 * The watchdog (--watchdog, core/rt/watchdog.c) may end a policy's reign
 * mid-run: when a process waits too long, or a worker sleeps through its
 * wait, every runnable process is taken out with remove() and the program
 * goes on under global_fifo; no callback of the first policy runs after
 * that but fini.
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

/* How a slice ended (stopping). */
enum stop_reason {
    STOP_YIELD,   /* its budget ran out, or it yielded: it runs on (enqueue follows) */
    STOP_WAIT,    /* it waits in a receive: parked, or queued again at once when a message came */
    STOP_EXIT,    /* it ended */
    STOP_BLOCKED, /* its builtin waits for a process running elsewhere (blocking sends) */
};

/* A process's priority (process_flag(priority, P)), ERTS's order: a
 * smaller value is more urgent. Only a policy with honours_priority keeps
 * and applies it; under any other every process reports normal. */
enum proc_priority {
    PRIORITY_MAX,
    PRIORITY_HIGH,
    PRIORITY_NORMAL, /* every process's at spawn */
    PRIORITY_LOW,
};

/* Who is queueing: a worker between slices or running a process, or a
 * thread that is not a worker (timer or I/O thread, or the starting thread
 * before the workers run); -1 for the latter. */
typedef int worker_id;
#define NOT_A_WORKER (-1)

/* The seed's slice: reductions a process may use before it yields (OTP's
 * CONTEXT_REDS). running() may give another budget. */
#define POLICY_DEFAULT_BUDGET 4000
/* The most per-process state a policy may declare (proc_bytes). */
#define POLICY_MAX_PROC_BYTES 64
/* The most parameters a policy may declare. */
#define POLICY_MAX_PARAMS 8

/* A tunable of a policy (--policy NAME:key=value,...). Every value is an
 * integer: an int parameter's own, a choice parameter's index into
 * `choices`. */
enum policy_param_type {
    POLICY_PARAM_INT,    /* an integer from min to max */
    POLICY_PARAM_CHOICE, /* one of the names in choices (NULL-terminated) */
};

struct policy_param {
    const char *name;
    enum policy_param_type type;
    long long def;      /* the default (a choice's index) */
    long long min, max; /* POLICY_PARAM_INT: the allowed range */
    const char *const *choices;
    const char *doc; /* one line for --policy help */
};

struct policy_ops {
    const char *name;
    const char *summary; /* one line for --policy help */

    /* Its parameters, param_count of them (at most POLICY_MAX_PARAMS); the
     * policy reads their values with sched_policy_param(s, index). */
    const struct policy_param *params;
    unsigned param_count;

    /* Bytes of per-worker policy state the executor allocates, zeroed, one
     * block per worker (sched_policy_worker_data). Default 0. */
    size_t worker_bytes;
    /* Bytes of policy state shared by all workers (sched_policy_shared_data),
     * zeroed. Default 0. */
    size_t shared_bytes;
    /* Bytes of per-process policy state (sched_policy_proc_data), at most
     * POLICY_MAX_PROC_BYTES, zeroed when the process is created. Default 0. */
    size_t proc_bytes;

    /* Called once before any worker runs, on the starting thread, without
     * locks; the parameters are set. Default: nothing. Returns false to
     * refuse the configuration. */
    bool (*init)(struct sched *s);
    /* Called once after every worker stopped, on the starting thread,
     * without locks. Default: nothing. */
    void (*fini)(struct sched *s);

    /* Queue p, which is runnable and in no queue. `self` is the worker
     * doing it (NOT_A_WORKER from other threads). `waker` is the process
     * on whose behalf it happens: the parent for ENQUEUE_SPAWN, the waking
     * process for ENQUEUE_WAKE_BY_PROCESS (running on self, or settling
     * its slice there: with more than one worker a send's wake of a waiting
     * receiver comes as its sender's slice ends, before the sender's own
     * stopping; message.c); NULL otherwise (the runtime woke p, or p itself
     * runs on). Returns the worker that should be woken if it sleeps, or
     * NOT_A_WORKER for none; the executor wakes it only when it actually
     * sleeps. sched_proc_last_worker(p) is the worker p last ran on (its
     * parent's for a new process). Called by any thread that makes p
     * runnable, run-queue lock held, and the executor mutex except for a
     * spawn. REQUIRED. */
    worker_id (*enqueue)(struct sched *s, worker_id self, struct process *waker, struct process *p,
                         enum enqueue_reason why);

    /* The process worker w runs next, removed from its queue, or NULL when
     * w has nothing local. Called by w between slices, both locks held.
     * REQUIRED. */
    struct process *(*pick_next)(struct sched *s, worker_id w);

    /* w found nothing local: take work from elsewhere (steal), removed from
     * wherever it was, or NULL. The executor then lets w wait (spinning
     * with --busy-wait, then sleeping) until work is queued. Called by w,
     * both locks held. Default: NULL (no stealing). */
    struct process *(*find_work)(struct sched *s, worker_id w);

    /* p's slice starts on w (p came from pick_next or find_work). Returns
     * the slice's reduction budget, 0 for POLICY_DEFAULT_BUDGET (larger
     * values are capped at 1,000,000). Called by w, both locks held.
     * Default: POLICY_DEFAULT_BUDGET. */
    uint32_t (*running)(struct sched *s, worker_id w, struct process *p);

    /* p's slice on w ended, having used `reductions` of its budget, for
     * `why`; when p runs on, enqueue (ENQUEUE_YIELD, or ENQUEUE_UNBLOCKED
     * after a blocked builtin) follows this call. After STOP_EXIT p is in
     * no queue and never returns; its state stays readable until this
     * call returns. Called by w, both locks held. Default: nothing. */
    void (*stopping)(struct sched *s, worker_id w, struct process *p, uint32_t reductions, enum stop_reason why);

    /* Periodic work (balancing): called on worker w at a slice boundary,
     * after the ended slice's process was settled (queued again, parked
     * or ended) and before pick_next, once w has run tick_reductions
     * reductions since its last tick, or after every slice when
     * tick_reductions is 0. Both locks held. Default: never (tick NULL). */
    void (*tick)(struct sched *s, worker_id w);
    uint64_t tick_reductions;

    /* Removes p from whatever queue holds it (an exit signal to a runnable
     * process, program end). Called by any worker, both locks held.
     * Default: required when a policy keeps queues the executor cannot see;
     * every shipped policy implements it. */
    void (*remove)(struct sched *s, struct process *p);

    /* Number of processes queued for w (reports and balancing tests).
     * Run-queue lock held. */
    size_t (*queue_length)(struct sched *s, worker_id w);

    /* True when every worker takes from one queue, whose whole length
     * queue_length reports for each (statistics/1 then counts it once). */
    bool shared_queue;

    /* True when the policy applies process priorities (reading them with
     * sched_proc_priority): process_flag(priority, P) then stores P and
     * returns the old one, and process_info reports it. False (the
     * default): process_flag checks P but applies nothing, and every
     * process reports normal. */
    bool honours_priority;
};

/* ---- services the executor offers to policies (callable in callbacks) ---- */

/* What the inline services below read: the executor's state begins with
 * it (executor.c asserts so), so that a policy's queue operations, which
 * call them at every enqueue and pick, make no calls for them. Policies
 * read it only through the services. */
struct sched_policy_view {
    char *worker_blocks; /* worker_bytes each, at worker_block_bytes apart */
    size_t worker_block_bytes;
    void *shared; /* shared_bytes */
    long long params[POLICY_MAX_PARAMS];
};

static inline const struct sched_policy_view *sched_policy_view_of(const struct sched *s)
{
    return (const struct sched_policy_view *)(const void *)s;
}

unsigned sched_worker_count(const struct sched *s);
/* The value of the policy's parameter `index` (its position in params). */
static inline long long sched_policy_param(const struct sched *s, unsigned index)
{
    return sched_policy_view_of(s)->params[index];
}
/* The policy's per-worker block of worker_bytes. */
static inline void *sched_policy_worker_data(struct sched *s, worker_id w)
{
    const struct sched_policy_view *view = sched_policy_view_of(s);
    return view->worker_blocks + (size_t)w * view->worker_block_bytes;
}
/* The policy's block of shared_bytes. */
static inline void *sched_policy_shared_data(struct sched *s) { return sched_policy_view_of(s)->shared; }
/* Whether w sleeps (waiting for work), read under the run-queue lock. */
bool sched_worker_sleeping(const struct sched *s, worker_id w);
/* A sleeping worker, searching from the one after `after` round the ring
 * (pass NOT_A_WORKER to start at 0), or NOT_A_WORKER when none sleeps. */
worker_id sched_sleeping_worker(const struct sched *s, worker_id after);
/* w was given work outside an enqueue (a dispatcher's pass in pick_next,
 * scx_central's kick; `self` is the worker that gave it): a w spinning for
 * work (--busy-wait) looks at once, a sleeping w is woken. An enqueue's
 * own target needs none: the executor does this for it. Run-queue lock
 * held, as in every policy hook. */
void sched_kick_worker(struct sched *s, worker_id self, worker_id w);
/* Two per-process words reserved for the policy (e.g. queue links): a
 * process begins with them (executor.c asserts so). */
static inline void **sched_policy_proc_link(struct process *p) { return (void **)(void *)p; }
/* The policy's per-process block of proc_bytes. */
void *sched_policy_proc_data(struct process *p);
worker_id sched_proc_last_worker(const struct process *p);
void sched_proc_set_last_worker(struct process *p, worker_id w);
/* Reductions left in the budget of p's current slice, while p runs (a
 * waker's, in enqueue); may be 0 or below once it is spent. */
int32_t sched_proc_reductions_left(const struct process *p);
/* p's priority: what process_flag(priority, P) stored under a policy that
 * honours priorities; PRIORITY_NORMAL otherwise. */
enum proc_priority sched_proc_priority(const struct process *p);

/* Counters the policy reports through (metrics.h has the rest). */
void sched_count_steal_attempt(struct sched *s, worker_id thief);
void sched_count_steal(struct sched *s, worker_id thief, worker_id victim);
void sched_count_balance_move(struct sched *s, worker_id to, worker_id from);

/* ---- the registry (policies/registry.c) ---- */

const struct policy_ops *policy_find(const char *name);
/* Every registered policy, NULL-terminated, default first. */
const struct policy_ops *const *policy_all(void);

/* A policy with its parameters, as --policy takes it: "NAME" or
 * "NAME:key=value,key=value". Sets *ops and values[0..param_count) (the
 * defaults, then the keys given), or returns false with one line in error
 * naming the policy, the key and what is allowed. */
bool policy_parse(const char *spec, const struct policy_ops **ops, long long values[POLICY_MAX_PARAMS], char *error,
                  size_t error_size);
/* "key=value,key=value" for every parameter of ops with its value ("" when
 * it has none), truncated to out_size. */
void policy_format_params(const struct policy_ops *ops, const long long *values, char *out, size_t out_size);
/* One parameter's value as text (a choice's name, an integer's digits). */
void policy_format_value(const struct policy_param *param, long long value, char *out, size_t out_size);

#endif
