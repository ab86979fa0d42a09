/*
 * errors.c — raising exceptions from builtins, and the builtins that do
 * nothing else: erlang:error/1,2,3, nif_error/1,2, exit/1, throw/1.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "rt/executor.h"
#include "term/atom.h"

term bif_badarg(struct process *p) { return bif_error(p, A(badarg)); }
term bif_badarith(struct process *p) { return bif_error(p, A(badarith)); }

term bif_badarg_cause(struct process *p, term cause)
{
    bif_badarg(p);
    proc_bif_call.fault_cause = cause;
    return THE_NON_VALUE;
}

term bif_error_with_args(struct process *p, term reason, term args)
{
    bif_raise(p, FAULT_ERROR, reason);
    proc_bif_call.fault_args = args;
    return THE_NON_VALUE;
}

term bif_out_of_memory(struct process *p)
{
    sched_runtime_failure(p, p->heap.failure == HEAP_FAIL_CAP ? "the heap cap (--max-heap) was exceeded"
                                                              : "out of memory");
    return bif_raise(p, FAULT_SYSTEM, A(system_limit));
}

int64_t bif_list_length(term list)
{
    int64_t n = 0;
    while (is_list(list)) {
        n++;
        list = list_tail(list);
    }
    return list == NIL ? n : -1;
}

static term bif_error_1(struct process *p, const term *args) { return bif_error(p, args[0]); }
static term bif_error_2(struct process *p, const term *args)
{
    /* OTP accepts any term as the argument list here and shows it as is. */
    return bif_error_with_args(p, args[0], args[1]);
}
/* erlang:error(Reason, Args, Options): as error/2, but Args none shows
 * the function's arity, and an {error_info, Map} option goes to the end of
 * the raising frame's location (for erl_error's messages), as OTP 25 does. */
static term bif_error_3(struct process *p, const term *args)
{
    bif_error_with_args(p, args[0], args[1] == A(none) ? THE_NON_VALUE : args[1]);
    for (term l = args[2]; is_list(l); l = list_tail(l)) {
        term o = list_head(l);
        if (is_tuple(o) && tuple_arity(o) == 2 && tuple_element(o, 1) == A(error_info) && is_map(tuple_element(o, 2)))
            proc_bif_call.fault_info = tuple_element(o, 2);
    }
    return THE_NON_VALUE;
}
/* erlang:raise(Class, Reason, Stacktrace): the exception with the given
 * trace, which must be a proper list. With a bad class or trace it does
 * not raise: it returns the atom badarg, as OTP documents. */
static term bif_raise_3(struct process *p, const term *args)
{
    term class = args[0];
    enum fault_class c = class == A(error)   ? FAULT_ERROR
                         : class == A(exit)  ? FAULT_EXIT
                         : class == A(throw) ? FAULT_THROW
                                             : FAULT_NONE;
    if (c == FAULT_NONE || bif_list_length(args[2]) < 0)
        return A(badarg);
    bif_raise(p, c, args[1]);
    proc_bif_call.fault_trace = args[2];
    return THE_NON_VALUE;
}

/* erlang:nif_error/1,2: what a library module's stub calls when no native
 * body replaced it; raises error with its first argument, as OTP's does. */
static term bif_nif_error_1(struct process *p, const term *args) { return bif_error(p, args[0]); }
static term bif_nif_error_2(struct process *p, const term *args) { return bif_error(p, args[0]); }

static term bif_exit_1(struct process *p, const term *args) { return bif_raise(p, FAULT_EXIT, args[0]); }
static term bif_throw_1(struct process *p, const term *args) { return bif_raise(p, FAULT_THROW, args[0]); }

const struct bif_def bif_table_errors[] = {
    {"erlang", "error", 1, bif_error_1, BIF_NO_FRAME},
    {"erlang", "error", 2, bif_error_2, BIF_NO_FRAME},
    {"erlang", "error", 3, bif_error_3, BIF_NO_FRAME},
    {"erlang", "nif_error", 1, bif_nif_error_1, 0},
    {"erlang", "nif_error", 2, bif_nif_error_2, 0},
    {"erlang", "exit", 1, bif_exit_1, BIF_NO_FRAME},
    {"erlang", "throw", 1, bif_throw_1, BIF_NO_FRAME},
    {"erlang", "raise", 3, bif_raise_3, BIF_NO_FRAME},
    {NULL, NULL, 0, NULL, 0},
};
