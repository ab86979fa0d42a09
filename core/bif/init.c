/*
 * init.c — what OTP's init process answers about the command line, for the
 * library code that asks it (erl_scan asks for the enabled language
 * features through init:get_arguments/0): clause runs no init process, and
 * answers as `erl` started with no flags would: root (the OTP installation
 * clause loads from), progname and home, and no plain arguments (the
 * program's own arguments go to main/1, as escript's do). init:stop/0,1
 * end the program as OTP's orderly stop ends the node.
 */
#include "beam/code_server.h"
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "rt/executor.h"
#include "term/atom.h"
#include "term/heap.h"

#include <stdlib.h>
#include <string.h>

/* [{root, [Root]}, {progname, ["erl"]}, {home, [Home]}]; THE_NON_VALUE when
 * the heap refused. */
static term arguments(struct process *p)
{
    const char *home = getenv("HOME");
    const char *values[3] = {code_otp_root(sched_engine(p->sched)), "erl", home ? home : "/"};
    const char *flags[3] = {"root", "progname", "home"};
    term list = NIL;
    for (int i = 2; i >= 0 && is_value(list); i--) {
        term s = heap_string(&p->heap, values[i], strlen(values[i]));
        term one = is_value(s) ? heap_cons(&p->heap, s, NIL) : s;
        term pair = is_value(one) ? heap_tuple2(&p->heap, atom_intern_cstr(flags[i]), one) : one;
        list = is_value(pair) ? heap_cons(&p->heap, pair, list) : pair;
    }
    return list;
}

static term bif_get_arguments(struct process *p, const term *args)
{
    (void)args;
    term list = arguments(p);
    return is_value(list) ? list : bif_out_of_memory(p);
}

/* {ok, [[Value]]} for a flag given, error otherwise. */
static term bif_get_argument(struct process *p, const term *args)
{
    if (!is_atom(args[0]))
        return bif_badarg(p);
    term list = arguments(p);
    if (is_non_value(list))
        return bif_out_of_memory(p);
    for (; is_list(list); list = list_tail(list)) {
        term pair = list_head(list);
        if (tuple_elements(pair)[0] == args[0]) {
            term values = heap_cons(&p->heap, tuple_elements(pair)[1], NIL);
            term t = is_value(values) ? heap_tuple2(&p->heap, A(ok), values) : values;
            return is_value(t) ? t : bif_out_of_memory(p);
        }
    }
    return A(error);
}

static term bif_get_plain_arguments(struct process *p, const term *args)
{
    (void)p;
    (void)args;
    return NIL;
}

/* init:stop(Status): ok, and the program ends with Status (band 255, as
 * halt/1 takes it) while the caller goes on meanwhile, as OTP's stop is
 * asynchronous; a string is halt/1's crash dump slogan (status 1). OTP's
 * stop first takes the applications down (seconds at most); there is
 * nothing here to take down but the processes, which end with the
 * program. */
static term bif_stop_1(struct process *p, const term *args)
{
    term status = args[0];
    if (is_list(status) || status == NIL)
        return bif_call_erlang(p, A(erlang), atom_intern_cstr("halt"), 1, args);
    int code;
    if (!bif_exit_status(status, &code))
        return bif_badarg(p);
    sched_halt(p, code);
    return A(ok);
}

static term bif_stop_0(struct process *p, const term *args)
{
    (void)args;
    term zero = make_small(0);
    return bif_stop_1(p, &zero);
}

const struct bif_def bif_table_init[] = {
    {"init", "stop", 0, bif_stop_0, 0},
    {"init", "stop", 1, bif_stop_1, 0},
    {"init", "get_arguments", 0, bif_get_arguments, 0},
    {"init", "get_argument", 1, bif_get_argument, 0},
    {"init", "get_plain_arguments", 0, bif_get_plain_arguments, 0},
    {NULL, NULL, 0, NULL, 0},
};
