/*
 * processes.c — builtins about the calling process and new ones: self,
 * spawn, halt, send, and the apply markers the engine acts on.
 */
#include "beam/interp.h"
#include "bif/bif.h"
#include "rt/executor.h"
#include "rt/message.h"
#include "rt/names.h"
#include "rt/proc_gc.h"
#include "rt/signals.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/gc.h"
#include "term/strbuf.h"

#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include <stdio.h>
#include <string.h>

static term bif_self(struct process *p, const term *args)
{
    (void)args;
    return p->pid;
}

/* ---- spawning ---- */

/* How a spawn_opt call asks for its process. */
struct spawn_request_opts {
    struct spawn_ties ties;
    size_t min_heap_words;
};

/* A node argument: only this node (the seed: another node is badarg). */
static bool is_this_node(term node) { return node == A(nonode_at_nohost); }

static bool is_non_negative_small(term t) { return is_small(t) && small_value(t) >= 0; }

/* monitor/3's options for a monitor made by spawn: {alias, Mode} and
 * {tag, Tag}. False for anything else. */
bool bif_monitor_options(term options, term *tag, int *alias)
{
    *tag = A(DOWN);
    *alias = MONITOR_NO_ALIAS;
    int64_t n = bif_list_length(options);
    if (n < 0)
        return false;
    for (term l = options; is_list(l); l = list_tail(l)) {
        term o = list_head(l);
        if (!is_tuple(o) || tuple_arity(o) != 2)
            return false;
        term key = tuple_elements(o)[0], value = tuple_elements(o)[1];
        if (key == A(tag)) {
            *tag = value;
        } else if (key == A(alias)) {
            if (value == A(explicit_unalias))
                *alias = MONITOR_ALIAS_EXPLICIT;
            else if (value == A(demonitor))
                *alias = MONITOR_ALIAS_DEMONITOR;
            else if (value == A(reply_demonitor))
                *alias = MONITOR_ALIAS_REPLY_DEMONITOR;
            else
                return false;
        } else {
            return false;
        }
    }
    return true;
}

/* One of spawn_opt's options: link, monitor, {monitor, Opts} and the
 * tuning options, which are checked and (but for min_heap_size) not
 * applied, as the seed says (OTP applies them). False for anything else. */
static bool parse_spawn_option(term o, struct spawn_request_opts *out)
{
    if (o == A(link)) {
        out->ties.link = true;
        return true;
    }
    if (o == A(monitor)) {
        out->ties.monitor = true;
        return true;
    }
    if (!is_tuple(o) || tuple_arity(o) != 2)
        return false;
    term key = tuple_elements(o)[0], value = tuple_elements(o)[1];
    if (key == A(monitor)) {
        out->ties.monitor = true;
        return bif_monitor_options(value, &out->ties.tag, &out->ties.alias);
    }
    if (key == A(priority))
        return value == A(low) || value == A(normal) || value == A(high) || value == A(max);
    if (key == A(min_heap_size)) {
        if (!is_non_negative_small(value))
            return false;
        out->min_heap_words = gc_min_size_setting((size_t)small_value(value), HEAP_DEFAULT_MIN_WORDS);
        return true;
    }
    if (key == A(fullsweep_after) || key == A(min_bin_vheap_size))
        return is_non_negative_small(value);
    if (key == A(max_heap_size)) {
        struct proc_max_heap unused;
        return bif_max_heap_arg(value, HEAP_DEFAULT_MIN_WORDS, &unused);
    }
    if (key == A(message_queue_data))
        return value == A(off_heap) || value == A(on_heap);
    if (key == A(async_dist))
        return value == A(true) || value == A(false);
    return false;
}

static void spawn_options_init(struct spawn_request_opts *out)
{
    memset(out, 0, sizeof *out);
    out->ties.tag = A(DOWN);
}

static bool parse_spawn_options(term options, struct spawn_request_opts *out)
{
    spawn_options_init(out);
    if (bif_list_length(options) < 0)
        return false;
    for (term l = options; is_list(l); l = list_tail(l))
        if (!parse_spawn_option(list_head(l), out))
            return false;
    return true;
}

/* What a spawn starts: a fun (function THE_NON_VALUE), or module and
 * function atoms with a proper list of at most 255 arguments. */
static bool spawn_target_valid(term fun_or_module, term function, term args)
{
    if (is_non_value(function))
        return is_fun(fun_or_module);
    int64_t n = bif_list_length(args);
    return is_atom(fun_or_module) && is_atom(function) && n >= 0 && n <= 255;
}

/* Spawns fun (function THE_NON_VALUE) or module:function(args); pid, or
 * {Pid, Ref} when it is monitored. badarg for malformed arguments. */
static term spawn_with(struct process *p, term fun_or_module, term function, term args, struct spawn_request_opts *opts)
{
    term argv[255];
    unsigned argc = 0;
    if (!spawn_target_valid(fun_or_module, function, args))
        return bif_badarg(p);
    if (is_non_value(function)) {
        function = NIL; /* the start code's mark for a fun */
    } else {
        for (term l = args; is_list(l); l = list_tail(l))
            argv[argc++] = list_head(l);
    }
    term ref = THE_NON_VALUE;
    if (opts && opts->ties.monitor) {
        ref = heap_make_ref(&p->heap);
        if (is_non_value(ref))
            return bif_out_of_memory(p);
        opts->ties.monitor_ref = ref;
    }
    term pid = beam_spawn_tied(p->sched, p, sched_engine(p->sched), fun_or_module, function, argv, argc,
                               opts ? &opts->ties : NULL, opts ? opts->min_heap_words : 0);
    if (is_non_value(pid))
        return bif_out_of_memory(p);
    if (is_non_value(ref))
        return pid;
    term pair = heap_tuple2(&p->heap, pid, ref);
    return is_value(pair) ? pair : bif_out_of_memory(p);
}

static term spawn_linked(struct process *p, term fun_or_module, term function, term args)
{
    struct spawn_request_opts opts = {.ties = {.link = true, .tag = A(DOWN)}};
    return spawn_with(p, fun_or_module, function, args, &opts);
}

static term spawn_monitored(struct process *p, term fun_or_module, term function, term args)
{
    struct spawn_request_opts opts = {.ties = {.monitor = true, .tag = A(DOWN)}};
    return spawn_with(p, fun_or_module, function, args, &opts);
}

static term spawn_optioned(struct process *p, term fun_or_module, term function, term args, term options)
{
    struct spawn_request_opts opts;
    /* OTP checks a fun before the options, and a module's call after. */
    if (is_non_value(function) && !is_fun(fun_or_module))
        return bif_badarg(p);
    if (!parse_spawn_options(options, &opts))
        return bif_badarg_cause(p, A(badopt));
    return spawn_with(p, fun_or_module, function, args, &opts);
}

/* ---- spawn_request ---- */

/* {Tag, ReqId, ok | error, PidOrReason} to the requester itself; the
 * request id, or THE_NON_VALUE with the failure recorded. */
static term spawn_reply(struct process *p, term tag, term id, term outcome, term value)
{
    term elements[4] = {tag, id, outcome, value};
    term message = heap_tuple(&p->heap, 4, elements);
    if (is_non_value(message))
        return bif_out_of_memory(p);
    if (sched_send(p, p->pid, message) != SEND_OK)
        return bif_raise(p, FAULT_SYSTEM, A(system_limit));
    return id;
}

/* spawn_request: spawns at once and answers with a message, as asked by
 * {reply_tag, Tag} and {reply, yes | no | error_only | success_only}; the
 * request id is the monitor's reference when it monitors. An invalid
 * option is an error reply (badopt), another node one too (noconnection,
 * as OTP answers for a node it cannot reach). */
static term spawn_request_with(struct process *p, term node, term fun_or_module, term function, term args, term options)
{
    if (!is_atom(node) || !spawn_target_valid(fun_or_module, function, args))
        return bif_badarg(p);
    if (bif_list_length(options) < 0)
        return bif_badarg_cause(p, A(badopt));
    struct spawn_request_opts opts;
    spawn_options_init(&opts);
    term tag = A(spawn_reply), reply = A(yes), error = THE_NON_VALUE;
    for (term l = options; is_list(l); l = list_tail(l)) {
        term o = list_head(l);
        if (is_tuple(o) && tuple_arity(o) == 2 && tuple_elements(o)[0] == A(reply_tag)) {
            tag = tuple_elements(o)[1];
        } else if (is_tuple(o) && tuple_arity(o) == 2 && tuple_elements(o)[0] == A(reply)) {
            term r = tuple_elements(o)[1];
            if (r == A(yes) || r == A(no) || r == A(error_only) || r == A(success_only))
                reply = r;
            else
                error = A(badopt);
        } else if (!parse_spawn_option(o, &opts)) {
            error = A(badopt);
        }
    }
    if (is_value(error) || !is_this_node(node)) {
        if (is_non_value(error))
            error = A(noconnection);
        term id = heap_make_ref(&p->heap);
        if (is_non_value(id))
            return bif_out_of_memory(p);
        bool wanted = reply == A(yes) || reply == A(error_only);
        return wanted ? spawn_reply(p, tag, id, A(error), error) : id;
    }
    term spawned = spawn_with(p, fun_or_module, function, args, &opts);
    if (is_non_value(spawned))
        return spawned;
    term pid = opts.ties.monitor ? tuple_elements(spawned)[0] : spawned;
    term id = opts.ties.monitor ? opts.ties.monitor_ref : heap_make_ref(&p->heap);
    if (is_non_value(id))
        return bif_out_of_memory(p);
    bool wanted = reply == A(yes) || reply == A(success_only);
    return wanted ? spawn_reply(p, tag, id, A(ok), pid) : id;
}

static term bif_spawn_request_1(struct process *p, const term *a)
{
    return spawn_request_with(p, A(nonode_at_nohost), a[0], THE_NON_VALUE, NIL, NIL);
}

/* (Fun, Options) or (Node, Fun). */
static term bif_spawn_request_2(struct process *p, const term *a)
{
    if (is_fun(a[0]))
        return spawn_request_with(p, A(nonode_at_nohost), a[0], THE_NON_VALUE, NIL, a[1]);
    return spawn_request_with(p, a[0], a[1], THE_NON_VALUE, NIL, NIL);
}

/* (Node, Fun, Options) or (Module, Function, Args). */
static term bif_spawn_request_3(struct process *p, const term *a)
{
    if (is_fun(a[1]))
        return spawn_request_with(p, a[0], a[1], THE_NON_VALUE, NIL, a[2]);
    return spawn_request_with(p, A(nonode_at_nohost), a[0], a[1], a[2], NIL);
}

/* (Module, Function, Args, Options) or (Node, Module, Function, Args). */
static term bif_spawn_request_4(struct process *p, const term *a)
{
    if (is_atom(a[2]))
        return spawn_request_with(p, a[0], a[1], a[2], a[3], NIL);
    return spawn_request_with(p, A(nonode_at_nohost), a[0], a[1], a[2], a[3]);
}

static term bif_spawn_request_5(struct process *p, const term *a)
{
    return spawn_request_with(p, a[0], a[1], a[2], a[3], a[4]);
}

/* The reply is sent when the request is made: there is nothing left to
 * abandon. */
static term bif_spawn_request_abandon(struct process *p, const term *a)
{
    return is_ref(a[0]) ? A(false) : bif_badarg(p);
}

static term bif_spawn_1(struct process *p, const term *a) { return spawn_with(p, a[0], THE_NON_VALUE, NIL, NULL); }
static term bif_spawn_2(struct process *p, const term *a)
{
    return is_this_node(a[0]) ? spawn_with(p, a[1], THE_NON_VALUE, NIL, NULL) : bif_badarg(p);
}
static term bif_spawn_3(struct process *p, const term *a) { return spawn_with(p, a[0], a[1], a[2], NULL); }
static term bif_spawn_4(struct process *p, const term *a)
{
    return is_this_node(a[0]) ? spawn_with(p, a[1], a[2], a[3], NULL) : bif_badarg(p);
}
static term bif_spawn_link_1(struct process *p, const term *a) { return spawn_linked(p, a[0], THE_NON_VALUE, NIL); }
static term bif_spawn_link_2(struct process *p, const term *a)
{
    return is_this_node(a[0]) ? spawn_linked(p, a[1], THE_NON_VALUE, NIL) : bif_badarg(p);
}
static term bif_spawn_link_3(struct process *p, const term *a) { return spawn_linked(p, a[0], a[1], a[2]); }
static term bif_spawn_link_4(struct process *p, const term *a)
{
    return is_this_node(a[0]) ? spawn_linked(p, a[1], a[2], a[3]) : bif_badarg(p);
}
static term bif_spawn_monitor_1(struct process *p, const term *a)
{
    return spawn_monitored(p, a[0], THE_NON_VALUE, NIL);
}
static term bif_spawn_monitor_2(struct process *p, const term *a)
{
    return is_this_node(a[0]) ? spawn_monitored(p, a[1], THE_NON_VALUE, NIL) : bif_badarg(p);
}
static term bif_spawn_monitor_3(struct process *p, const term *a) { return spawn_monitored(p, a[0], a[1], a[2]); }
static term bif_spawn_monitor_4(struct process *p, const term *a)
{
    return is_this_node(a[0]) ? spawn_monitored(p, a[1], a[2], a[3]) : bif_badarg(p);
}
static term bif_spawn_opt_2(struct process *p, const term *a)
{
    return spawn_optioned(p, a[0], THE_NON_VALUE, NIL, a[1]);
}
static term bif_spawn_opt_3(struct process *p, const term *a)
{
    return is_this_node(a[0]) ? spawn_optioned(p, a[1], THE_NON_VALUE, NIL, a[2]) : bif_badarg(p);
}
static term bif_spawn_opt_4(struct process *p, const term *a) { return spawn_optioned(p, a[0], a[1], a[2], a[3]); }
static term bif_spawn_opt_5(struct process *p, const term *a)
{
    return is_this_node(a[0]) ? spawn_optioned(p, a[1], a[2], a[3], a[4]) : bif_badarg(p);
}

/* halt(String): OTP writes the slogan on stderr, then a crash dump; clause
 * writes the slogan alone (UTF-8, as erts does), as OTP does with
 * ERL_CRASH_DUMP_SECONDS=0. 1, the status. */
static int halt_slogan(term string)
{
    struct strbuf text = STRBUF_INIT;
    if (!bif_chars_utf8(string, &text))
        text.len = 0;
    strbuf_puts(&text, "\r\n"); /* erts's line end on stderr */
    fflush(stdout);
    fwrite(text.data, 1, text.len, stderr);
    fflush(stderr);
    strbuf_free(&text);
    return 1;
}

bool bif_exit_status(term status, int *code)
{
    if (is_small(status) && small_value(status) >= 0)
        *code = (int)(small_value(status) & 255);
    else if (is_bignum(status) && !big_is_negative(status))
        *code = (int)(big_limbs(status)[0] & 255);
    else
        return false;
    return true;
}

/* halt(Status): the program ends with Status; the caller stops at once. */
static term halt_with(struct process *p, term status)
{
    int code;
    if (bif_exit_status(status, &code)) {
    } else if (status == A(abort)) {
        code = 134;
    } else if (is_list(status) || status == NIL) {
        code = halt_slogan(status); /* halt(String): a crash dump's slogan; the status is 1 */
    } else {
        return bif_badarg(p);
    }
    sched_halt(p, code);
    return bif_raise(p, FAULT_SYSTEM, A(normal));
}

/* halt/2's options, checked before the status as erts does: a proper list
 * of {flush, Boolean}. clause flushes its output either way. */
static bool halt_options_ok(term options)
{
    term l = options;
    for (; is_list(l); l = list_tail(l)) {
        term o = list_head(l);
        if (!is_tuple(o) || tuple_arity(o) != 2 || tuple_elements(o)[0] != A(flush))
            return false;
        if (tuple_elements(o)[1] != A(true) && tuple_elements(o)[1] != A(false))
            return false;
    }
    return l == NIL;
}

static term bif_halt_0(struct process *p, const term *args)
{
    (void)args;
    return halt_with(p, make_small(0));
}
static term bif_halt_1(struct process *p, const term *args) { return halt_with(p, args[0]); }
static term bif_halt_2(struct process *p, const term *args)
{
    return halt_options_ok(args[1]) ? halt_with(p, args[0]) : bif_badarg(p);
}

/* A send's destination: a pid or reference to send to, or NIL when the
 * message goes nowhere and the send still succeeds, as OTP's does: {Name,
 * Node} for another node (this node is not distributed; *remote is set) or
 * for a name nobody holds here, or a port (msg went to it). THE_NON_VALUE with badarg recorded for
 * anything else, and for a bare name nobody holds. */
term bif_send_destination(struct process *p, term to, term msg, bool *remote)
{
    if (remote)
        *remote = false;
    if (is_port(to)) {
        bif_port_message(p, to, msg);
        return NIL;
    }
    if (is_pid(to) || is_ref(to)) /* a reference: an alias, or dropped */
        return to;
    if (is_tuple(to) && tuple_arity(to) == 2 && is_atom(tuple_elements(to)[0]) && is_atom(tuple_elements(to)[1])) {
        if (!is_this_node(tuple_elements(to)[1])) {
            if (remote)
                *remote = true;
            return NIL;
        }
        term pid = names_whereis(p, tuple_elements(to)[0]);
        return is_value(pid) ? pid : NIL;
    }
    term pid = is_atom(to) ? names_whereis(p, to) : THE_NON_VALUE;
    return is_value(pid) ? pid : bif_badarg(p);
}

bool bif_send_awaits_kernel(struct process *p, term to)
{
    term name = to;
    if (is_tuple(to) && tuple_arity(to) == 2 && is_atom(tuple_elements(to)[1]) && is_this_node(tuple_elements(to)[1]))
        name = tuple_elements(to)[0];
    /* Once registered, the name is sent to: the boot's own processes
     * (application masters among them) send to the controller by name. */
    return is_atom(name) && bif_kernel_name_pending(p, name) && is_non_value(names_whereis(p, name));
}

/* Sends msg to a destination bif_send_destination resolved; value on
 * success, THE_NON_VALUE with the fault recorded otherwise. */
static term send_resolved(struct process *p, term to, term msg, term value)
{
    if (to == NIL)
        return value;
    switch (sched_send(p, to, msg)) {
    case SEND_OK:
        return value;
    case SEND_BLOCKED:
        return bif_blocked(p);
    case SEND_FAILED:
        break;
    }
    return bif_raise(p, FAULT_SYSTEM, A(system_limit));
}

static term bif_send(struct process *p, const term *args)
{
    if (p->bif_may_trap && bif_send_awaits_kernel(p, args[0]))
        return bif_kernel_await(p, A(erlang), A(send), args, 2);
    term to = bif_send_destination(p, args[0], args[1], NULL);
    if (is_non_value(to))
        return to;
    return send_resolved(p, to, args[1], args[1]);
}

/* erlang:send(Dest, Msg, Options): the options are checked before the
 * destination. A local send neither connects nor suspends, so it answers
 * ok; noconnect answers noconnect for another node, which this node, not
 * distributed, never reaches (without it such a message is dropped). In
 * the blocking send mode the sender still waits for the receiver's slice:
 * that is how clause delivers locally, not a busy distribution port.
 * name and arity are the builtin called, which a wait for the kernel
 * calls again. */
static term send_optioned(struct process *p, const term *args, term options, term name, unsigned arity)
{
    bool noconnect = false, remote;
    term l = options;
    for (; is_list(l); l = list_tail(l)) {
        if (list_head(l) == A(noconnect))
            noconnect = true;
        else if (list_head(l) != A(nosuspend))
            break;
    }
    if (l != NIL)
        return bif_badarg_cause(p, A(badopt));
    if (p->bif_may_trap && bif_send_awaits_kernel(p, args[0]))
        return bif_kernel_await(p, A(erlang), name, args, arity);
    term to = bif_send_destination(p, args[0], args[1], &remote);
    if (is_non_value(to))
        return to;
    if (remote && noconnect)
        return A(noconnect);
    return send_resolved(p, to, args[1], A(ok));
}

static term bif_send_3(struct process *p, const term *args) { return send_optioned(p, args, args[2], A(send), 3); }

/* erlang:send_nosuspend/2,3: OTP's are send/3 with nosuspend added, true
 * for ok and false otherwise (noconnect to another node); their errors
 * name send_nosuspend, as OTP's rethrow them. */
static term send_nosuspend(struct process *p, const term *args, term options, unsigned arity)
{
    term sent = send_optioned(p, args, options, A(send_nosuspend), arity);
    if (is_non_value(sent))
        return sent;
    return sent == A(ok) ? A(true) : A(false);
}
static term bif_send_nosuspend_2(struct process *p, const term *args) { return send_nosuspend(p, args, NIL, 2); }
static term bif_send_nosuspend_3(struct process *p, const term *args) { return send_nosuspend(p, args, args[2], 3); }

static term bif_is_process_alive(struct process *p, const term *args)
{
    if (!is_pid(args[0]))
        return bif_badarg(p);
    return sched_is_alive(p, args[0]) ? A(true) : A(false);
}

/* register/2's badarg names OTP's cause (erl_erts_errors explains it). */
static term bif_register(struct process *p, const term *args)
{
    switch (names_register(p, args[0], args[1])) {
    case NAMES_DONE:
        return A(true);
    case NAMES_NOTALIVE:
        return bif_badarg_cause(p, A(notalive));
    case NAMES_HAS_NAME:
        return bif_badarg_cause(p, A(registered_name));
    case NAMES_NOMEM:
        sched_runtime_failure(p, "out of memory for a registered name");
        return bif_raise(p, FAULT_SYSTEM, A(system_limit));
    case NAMES_BADARG:
    case NAMES_TAKEN:
        break;
    }
    return bif_badarg_cause(p, A(none));
}

static term bif_unregister(struct process *p, const term *args)
{
    return names_unregister(p, args[0]) ? A(true) : bif_badarg(p);
}

static term bif_whereis(struct process *p, const term *args)
{
    if (!is_atom(args[0]))
        return bif_badarg(p);
    if (bif_kernel_pending(p, args[0]))
        return bif_kernel_await(p, A(erlang), A(whereis), args, 1);
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
    {"erlang", "spawn", 2, bif_spawn_2, 0},
    {"erlang", "spawn", 3, bif_spawn_3, 0},
    {"erlang", "spawn", 4, bif_spawn_4, 0},
    {"erlang", "spawn_link", 1, bif_spawn_link_1, 0},
    {"erlang", "spawn_link", 2, bif_spawn_link_2, 0},
    {"erlang", "spawn_link", 3, bif_spawn_link_3, 0},
    {"erlang", "spawn_link", 4, bif_spawn_link_4, 0},
    {"erlang", "spawn_monitor", 1, bif_spawn_monitor_1, 0},
    {"erlang", "spawn_monitor", 2, bif_spawn_monitor_2, 0},
    {"erlang", "spawn_monitor", 3, bif_spawn_monitor_3, 0},
    {"erlang", "spawn_monitor", 4, bif_spawn_monitor_4, 0},
    {"erlang", "spawn_opt", 2, bif_spawn_opt_2, 0},
    {"erlang", "spawn_opt", 3, bif_spawn_opt_3, 0},
    {"erlang", "spawn_opt", 4, bif_spawn_opt_4, 0},
    {"erlang", "spawn_opt", 5, bif_spawn_opt_5, 0},
    {"erlang", "spawn_request", 1, bif_spawn_request_1, 0},
    {"erlang", "spawn_request", 2, bif_spawn_request_2, 0},
    {"erlang", "spawn_request", 3, bif_spawn_request_3, 0},
    {"erlang", "spawn_request", 4, bif_spawn_request_4, 0},
    {"erlang", "spawn_request", 5, bif_spawn_request_5, 0},
    {"erlang", "spawn_request_abandon", 1, bif_spawn_request_abandon, 0},
    {"erlang", "halt", 0, bif_halt_0, BIF_NO_FRAME},
    {"erlang", "halt", 1, bif_halt_1, 0},
    {"erlang", "halt", 2, bif_halt_2, 0},
    {"erlang", "send", 2, bif_send, 0},
    {"erlang", "send", 3, bif_send_3, 0},
    {"erlang", "send_nosuspend", 2, bif_send_nosuspend_2, 0},
    {"erlang", "send_nosuspend", 3, bif_send_nosuspend_3, 0},
    {"erlang", "!", 2, bif_send, 0},
    {"erlang", "is_process_alive", 1, bif_is_process_alive, 0},
    {"erlang", "register", 2, bif_register, 0},
    {"erlang", "unregister", 1, bif_unregister, 0},
    {"erlang", "whereis", 1, bif_whereis, 0},
    {"erlang", "registered", 0, bif_registered, 0},
    {"erlang", "apply", 2, bif_apply, BIF_APPLY},
    {"erlang", "apply", 3, bif_apply, BIF_APPLY},
    {"erlang", "hibernate", 3, bif_apply, BIF_APPLY | BIF_HIBERNATE},
    {NULL, NULL, 0, NULL, 0},
};
