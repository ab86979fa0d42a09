/*
 * process.h — a process context.
 *
 * One allocation holds what a process needs to run: its scheduling state,
 * reduction budget, body, heap descriptor, and the first PROC_INLINE_STACK
 * words of its stack (the seed's "first 64 stack words inside the
 * context"), its mailbox and arrivals, and the heads of its links,
 * monitors, aliases, suspends and registered name.
 *
 * Ownership: a running process belongs to its worker alone (its heap, stack
 * and body state are touched by nobody else). A process that is not running
 * is guarded by the executor mutex, its queue membership by the run-queue
 * lock (executor.h).
 */
#ifndef CLAUSE_PROCESS_H
#define CLAUSE_PROCESS_H

#include "rt/body.h"
#include "rt/mailbox.h"
#include "rt/policy.h"
#include "rt/timer_wheel.h"
#include "term/heap.h"

#include <ck_epoch.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define PROC_INLINE_STACK 64

/* min_heap_size, as OTP's, counts a heap block that holds the stack too.
 * A process keeps its first PROC_INLINE_STACK stack words in its context,
 * so its heap block's floor (heap.min_words) is that many words smaller:
 * heap and stack together get OTP's 233 words by default. */
#define PROC_HEAP_FLOOR(min_heap_size) ((min_heap_size)-PROC_INLINE_STACK)
#define PROC_DEFAULT_HEAP_FLOOR PROC_HEAP_FLOOR(HEAP_DEFAULT_MIN_WORDS)
/* OTP's CONTEXT_REDS: reductions in one time slice, unless the policy
 * gives a slice another budget. */
#define CONTEXT_REDS POLICY_DEFAULT_BUDGET
/* Most arguments a builtin's continuation takes (bif.h, bif_trap). */
#define PROC_TRAP_MAX_ARGS 6

/* What became of a collection done on a collector thread (BODY_COLLECT),
 * for the body to act on when it resumes on its worker. */
/* Work a builtin hands to a collector thread, as OTP runs a long call on a
 * dirty CPU scheduler (bif.h: bif_trap_elsewhere): run there, with no
 * access to the process (it may touch only what the builtin gave it),
 * while the process waits, running, and its worker runs others. */
struct proc_work {
    void (*run)(struct proc_work *w);
};

enum proc_collected {
    PROC_COLLECTED_NONE,   /* none since the body last resumed */
    PROC_COLLECTED,        /* done: the body checks max_heap_size */
    PROC_COLLECTED_FAILED, /* refused (memory, the cap): the body fails */
    PROC_WORK_ELSEWHERE,   /* not a collection: a builtin's work handed over (work_elsewhere), not yet run */
};

enum proc_state {
    PROC_RUNNABLE,  /* in a run queue */
    PROC_RUNNING,   /* on a worker, or its slice goes on in a collection on a collector thread (collector.c) */
    PROC_WAITING,   /* in a receive, in no queue */
    PROC_EXITED,    /* ended; its context is freed once its worker leaves the executor mutex */
    PROC_BLOCKED,   /* its builtin targets a process running elsewhere: in no queue until that slice ends */
    PROC_HELD,      /* runnable, but held for processes blocked on it: queued when the last one is done */
    PROC_SUSPENDED, /* runnable, but suspended (suspend_process): queued when the last suspend is resumed */
};

struct arrival;
struct bif_timer;
struct link;
struct monitor;
struct pending_exit;
struct alias_entry;
struct suspension;
struct proc_resource;
struct proc_dict;
struct beam_paused_call;

/* What a builtin call and the engine hand each other within that call, on
 * the thread that runs both: the thread's, so that no process context
 * carries it. None of it outlives the call's return to the engine's next
 * step, and none of it is a collection root (the engine moves what it keeps
 * into x registers or onto the heap before anything can collect).
 * - A builtin that traps or hands its call over (bif.h: bif_trap,
 *   bif_call_erlang): the continuation or bif_call_erlang's callee, the
 *   arguments and their number.
 * - A builtin that raises (bif.h, errors.c): the exception's reason and
 *   extras (its class is the process's fault_class).
 * - The engine, while a builtin called through an export runs: the calling
 *   instruction and the continuation, for process_info(self(),
 *   current_stacktrace). */
struct proc_bif_call {
    term (*trap_fn)(struct process *p, const term *args); /* bif_trap's continuation; NULL: bif_call_erlang's */
    term module, function;                                /* bif_call_erlang's callee */
    unsigned arity;                                       /* of args: at most PROC_TRAP_MAX_ARGS */
    term args[PROC_TRAP_MAX_ARGS];
    term fault_reason; /* the reason of the exception being raised */
    term fault_args;   /* error/2's argument list, or THE_NON_VALUE */
    term fault_trace;  /* erlang:raise/3's stack trace, used as given, or THE_NON_VALUE */
    term fault_cause;  /* the cause in a builtin's error_info (badopt...), or THE_NON_VALUE */
    term fault_info;   /* error/3's error_info map, for the raising frame, or THE_NON_VALUE */
    const uint64_t *pc, *cp;
};
extern _Thread_local struct proc_bif_call proc_bif_call;

/* The outcome of a host invocation's call (embed.c), held by the host:
 * where the engine keeps it as the call's process ends, instead of
 * reporting an uncaught exception. The invocation's executor holds the
 * pointer (sched_host_outcome), so no process context carries one. */
struct host_outcome {
    term class; /* error, exit or throw: its uncaught exception's class; THE_NON_VALUE when none */
    term value; /* what it returned, or the exception's reason; THE_NON_VALUE when neither */
    term trace; /* the exception's stack trace */
};

/* A process's ties to others, which most processes never make: the
 * seed's Signals, with the monitor maps that its first monitor makes, and
 * the builtins blocked on a running process (builtins::Blocked) with the
 * suspends that keep a process from running. The first link, monitor,
 * pending exit signal, timer aimed at it, suspend it holds or takes, alias
 * or blocked builtin makes them (proc_signals_make); they go with its
 * context. Executor mutex. */
struct proc_signals {
    struct link *links_first, *links_last;             /* in the order they were made */
    struct monitor *monitors_first, *monitors_last;    /* monitors it holds, in the order made */
    struct monitor *watchers_first, *watchers_last;    /* monitors held on it, in the order made */
    struct pending_exit *pending_first, *pending_last; /* exit signals that came while it ran elsewhere */
    struct bif_timer *timers_to_me;                    /* send_after/start_timer timers aimed at it */
    struct suspension *suspending;                     /* the processes it suspends (suspend.c) */
    struct alias_entry *aliases;                       /* its active aliases (aliases.c) */
    struct process *blocked_on;                        /* the running target its builtin waits for */
    struct process *blocked_next;                      /* link in that target's blocked_senders */
    struct process *blocked_senders;                   /* processes waiting for this one's slice to end */
    struct process *holding;                           /* the target it holds until it repeats its builtin */
    unsigned holds;                                    /* processes holding this one */
    unsigned suspends;                                 /* suspend_process holds on it */
};

struct process {
    /* The fields are ordered by when they are touched, so that what a hop
     * (a send to a waiting process, then its slice) reads and writes of a
     * process fills few cache lines: with thousands of processes each
     * touched once between two of its hops, every line is a miss. First
     * the scheduling line, then what a sender to it touches (its wake,
     * timer, signals and arrivals), what its slice resumes with, its
     * mailbox and heap, and the rest after them. */

    /* --- scheduling: executor and policy --- */
    void *policy_link[2]; /* the policy's queue links (sched_policy_proc_link) */
    /* The executor's own list of runnable processes, oldest first
     * (internal.h: sched_runnable_*), whatever the policy does with its
     * queues; run-queue lock. Next to the policy's links: one cache line. */
    struct process *runnable_prev, *runnable_next;
    worker_id last_worker; /* worker it runs on, or whose queue holds it (policies move it) */
    worker_id ran_on;      /* worker of its latest slice (the migration counters); NOT_A_WORKER: none yet */
    _Atomic int state;     /* enum proc_state; written under the executor mutex, read anywhere */
    /* What is left of the current slice's budget. A slice handed over to a
     * collector was accounted at 0 (collector.c): the collection leaves it
     * at minus its cost (proc_collected_reds). */
    int32_t reds_left;
    int32_t slice_budget; /* the current slice's budget (the policy's running(), or CONTEXT_REDS) */
    /* When it last became runnable: the executor's coarse clock (ms since
     * it started, sched.coarse_ms), run-queue lock. */
    uint32_t runnable_ms;
    uint64_t reductions; /* spent over its life */

    /* --- its wake: the second line --- */
    bool wake_pending; /* woken while not waiting: its next wait returns at once */
    bool timed_out;    /* its last wait ended by its timeout (executor mutex) */
    /* enum proc_priority: written by the process itself (process_flag, only
     * under a policy that honours_priority), read by the policy. In what was
     * padding. */
    uint8_t priority;
    /* The words of its stack (below, with the stack's other fields), in
     * what would be padding: at most 2^32 (grow_stack). */
    uint32_t stack_words;
    uint64_t receive_deadline; /* tick its current receive times out at; 0: not yet waited; RECEIVE_NO_DEADLINE:
                                  infinity (executor mutex) */
    union {
        struct timer_node timer;  /* its receive timeout in the wheel (executor mutex) */
        ck_epoch_entry_t reclaim; /* ended, no timer armed: the context waits here for lock-free senders to let go */
    };
    /* --- links, monitors, exit signals, blocked builtins and suspends
     * (signals.c), executor mutex; the rest of their state is below --- */
    struct proc_signals *signals; /* NULL until its first tie (proc_signals_make) */

    /* --- messages sent while it ran (message.c), identity, and what it
     * runs: the third line --- */
    struct arrival *arrivals;                             /* newest first */
    struct arrival *arrivals_taken, *arrivals_taken_last; /* swapped out, not yet delivered, oldest first */
    struct sched *sched;
    term pid;
    const struct body_ops *body; /* its state: below, by its body */
    term *stack;                 /* stack_inline until it outgrows it; grows down from stack + stack_words */
    term *stack_top;             /* lowest word in use; NULL or the end: empty (collection roots above it) */

    /* --- the BEAM engine's state while the process does not run (interp.c) --- */
    union { /* by its body: a native body has no engine state */
        struct {
            const uint64_t *beam_pc; /* where it resumes */
            const uint64_t *beam_cp; /* the continuation pointer */
            /* A builtin call that trapped or blocked and goes on in a
             * later slice; NULL until the process's first such call. */
            struct beam_paused_call *beam_paused;
        };
        struct {
            native_step_fn native_step;       /* native bodies only */
            void (*native_free)(void *state); /* native bodies only; may be NULL */
            void *body_state;                 /* native bodies only: native_step's state */
        };
    };
    uint16_t beam_saved_x; /* x registers saved on top of the stack (at most BEAM_MAX_X) */
    uint16_t
        collect_site; /* the line of the instruction that repeats without collecting (0: none); with collect_need */
    bool beam_resume_timeout; /* it waits in a receive with a timeout: resume decides timeout or rescan */
    uint8_t fault_class;      /* enum fault_class of the exception being raised (the rest: proc_bif_call) */
    bool bif_may_trap;        /* the engine's call of a builtin outside a guard: it may end in a portion */
    uint8_t collected;        /* enum proc_collected: its collection on a collector (BODY_COLLECT), for its resume */
    term last_receiver_not_running; /* its last send found this receiver not running (this process only) */
    /* --- process dictionary: a hash table off the heap whose slots refer to
     * the heap, NULL until the first put (proc_dict.h); its slots are
     * collection roots --- */
    struct proc_dict *dictionary;

    /* --- messages (message.h) and memory --- */
    struct mailbox mailbox; /* its worker's while it runs, the executor mutex's otherwise */
    heap_t heap;

    /* --- a collection on a collector thread (BODY_COLLECT; collector.c).
     * Written by the process's body before it stops, then by the collector;
     * the worker that settles it reads them after the hand-back (the
     * run-queue lock orders each hand-over). --- */
    union {
        uint32_t
            collect_need; /* words free after the collection; the engine's collect_site is among its small fields */
        /* A builtin's work handed over instead (bif.h: bif_trap_elsewhere;
         * collected is PROC_WORK_ELSEWHERE until a collector takes it). */
        struct proc_work *work_elsewhere;
    };
    union {
        /* The worker's list of contexts to free after the mutex (an ended
         * process); while it is alive, the collectors' queue and then its
         * worker's list of collected processes (collector.c). */
        struct process *next_released;
        /* The ending chain being finished (signals.c, executor mutex): a
         * process on it runs nowhere, so it is on none of the lists above,
         * and leaves it before its end puts it on a worker's list. */
        struct process *finish_next;
    };
    uint64_t queued_at;  /* when it was last queued (profile_stamp; --profile only, run-queue lock) */
    uint64_t trace_flow; /* --trace: the flow a process's wake of it started, ended by its next slice (0: none) */
    /* --- signals' state read by others only while it does not run --- */
    bool trap_exit;                  /* written by the process itself, read by others only while it does not run */
    bool message_queue_off_heap;     /* process_flag(message_queue_data, off_heap): kept, changes nothing */
    bool release_when_unheld;        /* ended while held: freed when its last holder lets go */
    bool ended_by_signal;            /* an exit signal ended it, not its own code */
    _Atomic unsigned ets_owned;      /* ETS tables it owns (ets_table.c): its end scans for them only if any */
    term group_leader;               /* a pid (immediate) */
    struct proc_resource *resources; /* C objects it owns, newest first (resources.h); this process only */
    /* --- outcome --- */
    term exit_reason;
    term registered_name; /* THE_NON_VALUE or its name (names.c, executor mutex) */

    term stack_inline[PROC_INLINE_STACK]; /* not zeroed at spawn: no word is read before it is written */
    /* Its first heap block (heap_init_in), last: a spawn allocates the
     * context and the block at once, and zeroes the context alone (up to
     * the inline stack). */
    term first_block[PROC_DEFAULT_HEAP_FLOOR];
    /* The policy's per-process state (sched_policy_proc_data), zeroed at
     * spawn; run-queue lock. As many bytes as the policy declares
     * (proc_bytes), behind the context, so that a policy without any, as the
     * default, costs no process a byte. */
    _Alignas(8) unsigned char policy_data[];
};

/* The context's bytes but for its first block while the heap uses it,
 * which the heap's own figures count. */
static inline size_t proc_context_bytes(const struct process *p)
{
    return sizeof *p - (p->heap.borrowed_block ? sizeof p->first_block : 0);
}

/* Spends n reductions; false when the slice's budget is used up, which is
 * the point where a native body should return BODY_YIELD. */
static inline bool proc_spend(struct process *p, int32_t n)
{
    p->reds_left -= n;
    return p->reds_left > 0;
}

/* What p's collection on a collector cost it (reductions), once handed
 * back: it was handed over with reds_left 0, which the collection charged. */
static inline uint32_t proc_collected_reds(const struct process *p) { return (uint32_t)-p->reds_left; }

/* Its min_heap_size as OTP counts it (PROC_HEAP_FLOOR). */
static inline size_t proc_min_heap_size(const struct process *p) { return p->heap.min_words + PROC_INLINE_STACK; }
/* The words on p's stack where its body saved them (stack_top; 0 when
 * none are saved). */
static inline size_t proc_stack_in_use(const struct process *p)
{
    return p->stack_top ? (size_t)(p->stack + p->stack_words - p->stack_top) : 0;
}

/* What a process without ties reads (proc_signals_of). */
extern const struct proc_signals proc_signals_none;

/* p's ties for reading, all empty when it never made any (executor mutex). */
static inline const struct proc_signals *proc_signals_of(const struct process *p)
{
    return p->signals ? p->signals : &proc_signals_none;
}

/* p's ties for a change, made empty when it has none; NULL when the host
 * refused the memory (executor mutex, or p not yet published). */
struct proc_signals *proc_signals_make(struct process *p);

static inline enum proc_state proc_state(const struct process *p)
{
    return (enum proc_state)atomic_load_explicit(&p->state, memory_order_acquire);
}

#endif
