/*
 * timers.c — the timer builtins bound to their erlang: names; the work is
 * in bif_timers.c.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "rt/bif_timers.h"
#include "term/atom.h"

/* bif_timers.c reports errors as a term: badarg, a badarg's cause, or
 * system_limit when the runtime failure has been reported already. The
 * callers read that term after the call returned, never as an argument
 * beside the call: C leaves their order of evaluation open. */
static term result_or_raise(struct process *p, term result, term error)
{
    if (is_value(result))
        return result;
    if (error == A(system_limit))
        return bif_raise(p, FAULT_SYSTEM, error);
    if (error == A(badopt) || error == A(time))
        return bif_badarg_cause(p, error);
    return bif_error(p, error);
}

static term send_after_3(struct process *p, const term *args)
{
    term error = A(badarg);
    term result = bif_send_after(p, args[0], args[1], args[2], NIL, &error);
    return result_or_raise(p, result, error);
}
static term send_after_4(struct process *p, const term *args)
{
    term error = A(badarg);
    term result = bif_send_after(p, args[0], args[1], args[2], args[3], &error);
    return result_or_raise(p, result, error);
}
static term start_timer_3(struct process *p, const term *args)
{
    term error = A(badarg);
    term result = bif_start_timer(p, args[0], args[1], args[2], NIL, &error);
    return result_or_raise(p, result, error);
}
static term start_timer_4(struct process *p, const term *args)
{
    term error = A(badarg);
    term result = bif_start_timer(p, args[0], args[1], args[2], args[3], &error);
    return result_or_raise(p, result, error);
}
static term cancel_timer_1(struct process *p, const term *args)
{
    term error = A(badarg);
    term result = bif_cancel_timer(p, args[0], NIL, &error);
    return result_or_raise(p, result, error);
}
static term cancel_timer_2(struct process *p, const term *args)
{
    term error = A(badarg);
    term result = bif_cancel_timer(p, args[0], args[1], &error);
    return result_or_raise(p, result, error);
}
static term read_timer_1(struct process *p, const term *args)
{
    term error = A(badarg);
    term result = bif_read_timer(p, args[0], NIL, &error);
    return result_or_raise(p, result, error);
}
static term read_timer_2(struct process *p, const term *args)
{
    term error = A(badarg);
    term result = bif_read_timer(p, args[0], args[1], &error);
    return result_or_raise(p, result, error);
}

const struct bif_def bif_table_timers[] = {
    {"erlang", "send_after", 3, send_after_3, 0},
    {"erlang", "send_after", 4, send_after_4, 0},
    {"erlang", "start_timer", 3, start_timer_3, 0},
    {"erlang", "start_timer", 4, start_timer_4, 0},
    {"erlang", "cancel_timer", 1, cancel_timer_1, 0},
    {"erlang", "cancel_timer", 2, cancel_timer_2, 0},
    {"erlang", "read_timer", 1, read_timer_1, 0},
    {"erlang", "read_timer", 2, read_timer_2, 0},
    {NULL, NULL, 0, NULL, 0},
};
