/*
 * bif.h — builtin functions: Erlang functions implemented in C.
 *
 * A builtin takes its arguments from the caller's registers and returns the
 * result, or THE_NON_VALUE after recording an exception in the process
 * (bif_raise and its shorthands below); the BEAM engine then raises it with
 * a stack trace, or jumps to the instruction's fail label for a guard.
 *
 * Builtins allocate on p->heap freely: heap_alloc never moves a term, so
 * their arguments and partial results stay valid; the engine collects at
 * its next safepoint. A heap that refuses memory (its cap, or the host) is
 * reported with bif_out_of_memory, which makes the process a runtime
 * failure (exit 70), never an Erlang exception.
 *
 * Builtins are registered in tables (struct bif_def) that registry.c
 * gathers; the code server binds an import to a builtin before looking for
 * Erlang code, so a builtin replaces the Erlang stub of a library module
 * (lists:reverse/2 is C although lists.beam defines it).
 */
#ifndef CLAUSE_BIF_H
#define CLAUSE_BIF_H

#include "rt/io_thread.h"
#include "rt/proc_gc.h"
#include "rt/process.h"
#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef term (*bif_fn)(struct process *p, const term *args);

enum bif_flags {
    BIF_GUARD = 1u << 0,     /* allowed in guards (erlc emits bif/gc_bif instructions for it) */
    BIF_NOHEAP = 1u << 1,    /* never allocates */
    BIF_NO_FRAME = 1u << 2,  /* raises for its caller: no frame of its own in the stack trace (error/1) */
    BIF_APPLY = 1u << 3,     /* erlang:apply/2,3: the engine calls what the arguments name */
    BIF_HIBERNATE = 1u << 4, /* with BIF_APPLY: first waits until the mailbox holds a message (hibernate/3) */
};

struct bif_def {
    const char *module;
    const char *function;
    unsigned arity;
    bif_fn fn;
    unsigned flags;
};

/* A bound builtin, as lookups return it. */
struct bif_entry {
    term module, function;
    unsigned arity;
    bif_fn fn;
    unsigned flags;
};

/* Interns every registered builtin; call once before lookups (idempotent,
 * not thread-safe: program start). */
void bif_registry_init(void);
/* The builtin module:function/arity, or NULL. Thread-safe after init. */
const struct bif_entry *bif_lookup(term module, term function, unsigned arity);

/* ---- exceptions ---- */

enum fault_class {
    FAULT_NONE = 0,
    FAULT_ERROR,  /* erlang:error/1,2, and every builtin's badarg etc. */
    FAULT_EXIT,   /* erlang:exit/1 */
    FAULT_THROW,  /* erlang:throw/1 */
    FAULT_SYSTEM, /* not an exception: a runtime failure already reported (exit 70) */
    /* Not an exception: the builtin's target runs on another worker. The
     * caller ends its slice and, once that slice ended, runs first and
     * repeats the call with the same arguments (builtins::Blocked). */
    FAULT_BLOCKED,
    /* Not an exception: a signal the process sent itself ended it (exit(
     * self(), kill)); no catch sees it. p->exit_reason says why. */
    FAULT_EXITED,
    /* Not an exception: the builtin did one portion of its work and used up
     * the slice's budget (bif_trap). The engine keeps the continuation's
     * arguments in x registers, ends the slice with the process runnable,
     * and in its next slice calls the continuation in the original call's
     * place: its result lands where the original's would have, and its
     * error shows the original builtin's name with the continuation's
     * first arguments (as many as the original takes). */
    FAULT_TRAP,
    /* Not an exception: the builtin hands its call over to Erlang code
     * (bif_call_erlang): the engine calls p->bif_trap's module:function
     * with its arguments in the builtin's place, as OTP's BIF_TRAP to an
     * export does (re:run/3 goes on in re:grun/3). */
    FAULT_CALL,
};

/* Records an exception of class with reason and returns THE_NON_VALUE. */
static inline term bif_raise(struct process *p, enum fault_class class, term reason)
{
    p->fault_class = (uint8_t) class;
    proc_bif_call.fault_reason = reason;
    proc_bif_call.fault_args = THE_NON_VALUE;
    proc_bif_call.fault_trace = THE_NON_VALUE;
    proc_bif_call.fault_cause = THE_NON_VALUE;
    proc_bif_call.fault_info = THE_NON_VALUE;
    return THE_NON_VALUE;
}
static inline term bif_error(struct process *p, term reason) { return bif_raise(p, FAULT_ERROR, reason); }
static inline term bif_blocked(struct process *p) { return bif_raise(p, FAULT_BLOCKED, NIL); }
static inline term bif_exited(struct process *p, term reason)
{
    p->exit_reason = reason;
    return bif_raise(p, FAULT_EXITED, reason);
}
term bif_badarg(struct process *p);
/* badarg whose stack frame's error_info names a cause, as OTP 25 does for
 * some builtins (badopt: an option it does not know; time: a bad timeout). */
term bif_badarg_cause(struct process *p, term cause);
term bif_badarith(struct process *p);
/* erlang:error(Reason, Args): the stack trace's top frame shows Args. */
term bif_error_with_args(struct process *p, term reason, term args);
/* The heap refused memory (p->heap.failure says why): a runtime failure. */
term bif_out_of_memory(struct process *p);

/* ---- portions: builtins whose work grows with an argument ----
 *
 * Such a builtin charges reductions in proportion to its work (bif_spend)
 * and, called by the engine outside a guard, does at most as much work as
 * the slice's remaining budget pays for (bif_portion); then it saves its
 * state as terms (the arguments of a continuation builtin) and returns
 * bif_trap(...). A guard's call, and any call from C outside the engine
 * (p->bif_may_trap false), runs to the end, as OTP's guard BIFs do. */

/* Units of work (cells, elements, comparisons) this call may do before it
 * traps, at per_red units per reduction; SIZE_MAX when it may not trap. */
static inline size_t bif_portion(const struct process *p, size_t per_red)
{
    if (!p->bif_may_trap)
        return SIZE_MAX;
    return (size_t)(p->reds_left > 0 ? p->reds_left : 1) * per_red;
}

/* Charges `units` of work at per_red units per reduction (OTP's
 * BUMP_REDS(p, units / per_red)). */
static inline void bif_spend(struct process *p, size_t units, size_t per_red)
{
    size_t reds = units / per_red;
    p->reds_left -= reds > CONTEXT_REDS ? CONTEXT_REDS : (int32_t)reds;
}

/* Ends the slice after a portion (OTP's BUMP_ALL_REDS and BIF_TRAP): the
 * call goes on as cont(args[0..arity)) in the process's next slice.
 * args must be terms (on the heap or immediates), never pointers into it:
 * the heap may be collected before the continuation runs. Its first
 * arguments are what an error's stack trace shows for the original call.
 * arity is at most PROC_TRAP_MAX_ARGS. */
static inline term bif_trap(struct process *p, bif_fn cont, unsigned arity, const term *args)
{
    proc_bif_call.trap_fn = cont;
    proc_bif_call.arity = arity;
    for (unsigned i = 0; i < arity; i++)
        proc_bif_call.args[i] = args[i];
    if (p->reds_left > 0)
        p->reds_left = 0;
    return bif_raise(p, FAULT_TRAP, NIL);
}

/* bif_trap, with work to run on a collector thread before the
 * continuation (OTP runs such a call on a dirty CPU scheduler): the slice
 * ends, work->run runs there while the process waits, running, and its
 * worker runs others, then cont(args) runs in the process's next slice.
 * Only when bif_may_work_elsewhere(p); work touches nothing of the
 * process's (its heap may be collected meanwhile), and must stay valid
 * until the continuation runs (a resource of the process's, for the case
 * that it ends before: an exit signal waits until work ran). */
static inline term bif_trap_elsewhere(struct process *p, struct proc_work *work, bif_fn cont, unsigned arity,
                                      const term *args)
{
    p->work_elsewhere = work;
    p->collected = PROC_WORK_ELSEWHERE;
    return bif_trap(p, cont, arity, args);
}
/* Whether the call may hand work over (bif_trap_elsewhere): the engine's
 * call outside a guard, and collector threads run (proc_gc.h). */
static inline bool bif_may_work_elsewhere(const struct process *p)
{
    return p->bif_may_trap && proc_may_work_elsewhere(p);
}

/* Hands the call over to the Erlang function module:function/arity with
 * args (OTP's BIF_TRAPn to an export): its result is the call's. Only for
 * the engine's call of a builtin outside a guard (p->bif_may_trap), which a
 * builtin that is no guard builtin always is; arity is at most
 * PROC_TRAP_MAX_ARGS, and args are terms, as bif_trap's. */
static inline term bif_call_erlang(struct process *p, term module, term function, unsigned arity, const term *args)
{
    proc_bif_call.trap_fn = NULL;
    proc_bif_call.arity = arity;
    proc_bif_call.module = module;
    proc_bif_call.function = function;
    for (unsigned i = 0; i < arity; i++)
        proc_bif_call.args[i] = args[i];
    return bif_raise(p, FAULT_CALL, NIL);
}

/* ---- argument helpers shared by builtins ---- */

/* A send's destination: a pid (or the pid a registered name stands for) or
 * a reference; NIL for a message that goes nowhere yet succeeds ({Name,
 * Node} for another node, *remote then true, or for a free name here, or
 * a port: msg went to it already, bif_port_message);
 * THE_NON_VALUE with badarg recorded for anything else or a free name.
 * remote may be NULL. */
term bif_send_destination(struct process *p, term to, term msg, bool *remote);
/* Port ! Msg (bif/ports.c): {Pid, {command, Data}}, {Pid, close} (answered
 * {Port, closed}) and {Pid, {connect, New}} (answered {Port, connected})
 * from the connected process act; anything else ends the port with reason
 * badsig, as on OTP. A closed port drops it. */
void bif_port_message(struct process *p, term port, term msg);

/* A proper list's length, or -1 for an improper list. */
int64_t bif_list_length(term list);

/* monitor/3's option list ({alias, Mode}, {tag, Tag}): the message tag and
 * the alias mode (enum monitor_alias); false for anything else. */
bool bif_monitor_options(term options, term *tag, int *alias);
/* The program's exit status for halt/1's or init:stop/1's integer Status:
 * as erts's term_to_Uint_mask, any non-negative integer, a bignum by its
 * lowest limb, and exit() keeps its low 8 bits (halt(261): 5). False for
 * anything else (processes.c). */
bool bif_exit_status(term status, int *code);

/* Starts the runtime's I/O server `which` (io.c): clause_io's server in a
 * process spawned by self, registered as user or standard_error. */
term bif_io_start_server(struct process *self, enum io_server which);

/* Gives a runtime the two I/O servers, started when first asked for: as
 * group leader (io_servers_enable, rt/io_thread.h) or by name (a service,
 * rt/names.h). Before the program runs; false when memory was refused. */
bool bif_io_servers_install(struct sched *s);

/* The kernel's boot on first use (kernel.c). Whether self, calling a
 * builtin on the kernel's name `name` (the table or registered name ac_tab
 * or logger), must first wait for the kernel's boot: then the builtin
 * returns bif_kernel_await(self, its module, its name, its args, its
 * arity), which makes the call again once the boot ended. */
/* The same whether or not the running builtin may hand itself over. */
bool bif_kernel_name_pending(struct process *self, term name);
/* Inline: every ETS call asks, and a table's reference is never a name. */
static inline bool bif_kernel_pending(struct process *self, term name)
{
    return self->bif_may_trap && is_atom(name) && bif_kernel_name_pending(self, name);
}
/* Whether a send to `to` (a name, or {Name, this node}) waits for the
 * kernel's boot: the name is one of the kernel's, not registered yet, and
 * the boot has not ended. erlang:send/2,3 hand themselves over as whereis
 * does, and the send instruction makes such a send as a call of
 * erlang:send/2. */
bool bif_send_awaits_kernel(struct process *self, term to);
term bif_kernel_await(struct process *self, term module, term function, const term *args, unsigned arity);
/* Declares the kernel's process a service (before the program runs);
 * false when memory was refused. */
bool bif_kernel_install(struct sched *s);

#endif
