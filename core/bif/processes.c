/*
 * processes.c — builtins about the calling process and new ones: self,
 * spawn, halt, send, and the apply markers the engine acts on.
 */
#include "../atom.h"
#include "../beam/interp.h"
#include "../bif.h"
#include "../executor.h"
#include "../message.h"
#include "../names.h"
#include "bif_tables.h"

static term bif_self(struct process *p, const term *args)
{
    (void)args;
    return p->pid;
}

static term spawned(struct process *p, term pid) { return is_non_value(pid) ? bif_out_of_memory(p) : pid; }

static term bif_spawn_1(struct process *p, const term *args)
{
    if (!is_fun(args[0]))
        return bif_badarg(p);
    return spawned(p, beam_spawn(p->sched, p, sched_engine(p->sched), args[0], NIL, NULL, 0));
}

static term bif_spawn_3(struct process *p, const term *args)
{
    int64_t n = bif_list_length(args[2]);
    if (!is_atom(args[0]) || !is_atom(args[1]) || n < 0 || n > 255)
        return bif_badarg(p);
    term argv[255];
    term l = args[2];
    for (int64_t i = 0; i < n; i++, l = list_tail(l))
        argv[i] = list_head(l);
    return spawned(p, beam_spawn(p->sched, p, sched_engine(p->sched), args[0], args[1], argv, (unsigned)n));
}

/* halt(Status): the program ends with Status; the caller stops at once. */
static term halt_with(struct process *p, term status)
{
    int code;
    if (is_small(status) && small_value(status) >= 0 && small_value(status) <= 255)
        code = (int)small_value(status);
    else if (status == A(abort))
        code = 134;
    else if (is_list(status) || status == NIL)
        code = 1; /* halt(String): a crash dump slogan; the status is 1 */
    else
        return bif_badarg(p);
    sched_halt(p, code);
    return bif_raise(p, FAULT_SYSTEM, A(normal));
}

static term bif_halt_0(struct process *p, const term *args)
{
    (void)args;
    return halt_with(p, make_small(0));
}
static term bif_halt_1(struct process *p, const term *args) { return halt_with(p, args[0]); }
static term bif_halt_2(struct process *p, const term *args) { return halt_with(p, args[0]); }

/* A send's destination as a pid: a pid, or a registered name (badarg when
 * nobody holds it). THE_NON_VALUE with badarg recorded otherwise. */
term bif_send_destination(struct process *p, term to)
{
    if (is_pid(to))
        return to;
    term pid = is_atom(to) ? names_whereis(p, to) : THE_NON_VALUE;
    return is_value(pid) ? pid : bif_badarg(p);
}

static term bif_send(struct process *p, const term *args)
{
    term to = bif_send_destination(p, args[0]);
    if (is_non_value(to))
        return to;
    switch (sched_send(p, to, args[1])) {
    case SEND_OK:
        return args[1];
    case SEND_BLOCKED:
        /* A builtin cannot repeat itself yet: deliver as arrivals would.
         * (The send instruction blocks properly; erlang:send/2 is rare.) */
        return args[1];
    case SEND_FAILED:
        break;
    }
    return bif_raise(p, FAULT_SYSTEM, A(system_limit));
}

static term bif_is_process_alive(struct process *p, const term *args)
{
    if (!is_pid(args[0]))
        return bif_badarg(p);
    return sched_is_alive(p, args[0]) ? A(true) : A(false);
}

static term bif_register(struct process *p, const term *args)
{
    return names_register(p, args[0], args[1]) ? A(true) : bif_badarg(p);
}

static term bif_unregister(struct process *p, const term *args)
{
    return names_unregister(p, args[0]) ? A(true) : bif_badarg(p);
}

static term bif_whereis(struct process *p, const term *args)
{
    if (!is_atom(args[0]))
        return bif_badarg(p);
    term pid = names_whereis(p, args[0]);
    return is_value(pid) ? pid : A(undefined);
}

static term bif_registered(struct process *p, const term *args)
{
    (void)args;
    term list = names_registered(p);
    return is_value(list) ? list : bif_out_of_memory(p);
}

/* Never called: BIF_APPLY tells the engine to call what the arguments name. */
static term bif_apply(struct process *p, const term *args)
{
    (void)args;
    return bif_badarg(p);
}

const struct bif_def bif_table_processes[] = {
    {"erlang", "self", 0, bif_self, BIF_GUARD | BIF_NOHEAP},
    {"erlang", "spawn", 1, bif_spawn_1, 0},
    {"erlang", "spawn", 3, bif_spawn_3, 0},
    {"erlang", "halt", 0, bif_halt_0, BIF_NO_FRAME},
    {"erlang", "halt", 1, bif_halt_1, BIF_NO_FRAME},
    {"erlang", "halt", 2, bif_halt_2, BIF_NO_FRAME},
    {"erlang", "send", 2, bif_send, 0},
    {"erlang", "!", 2, bif_send, 0},
    {"erlang", "is_process_alive", 1, bif_is_process_alive, 0},
    {"erlang", "register", 2, bif_register, 0},
    {"erlang", "unregister", 1, bif_unregister, 0},
    {"erlang", "whereis", 1, bif_whereis, 0},
    {"erlang", "registered", 0, bif_registered, 0},
    {"erlang", "apply", 2, bif_apply, BIF_APPLY},
    {"erlang", "apply", 3, bif_apply, BIF_APPLY},
    {NULL, NULL, 0, NULL, 0},
};
