/*
 * timers.c — the timer builtins bound to their erlang: names; the work is
 * in bif_timers.c.
 */
#include "../atom.h"
#include "../bif.h"
#include "../bif_timers.h"
#include "bif_tables.h"

/* bif_timers.c reports errors as a reason term; system_limit means the
 * runtime failure has been reported already. */
static term result_or_raise(struct process *p, term result, term error)
{
    if (is_value(result))
        return result;
    if (error == A(system_limit))
        return bif_raise(p, FAULT_SYSTEM, error);
    return bif_error(p, error);
}

static term send_after_3(struct process *p, const term *args)
{
    term error = A(badarg);
    return result_or_raise(p, bif_send_after(p, args[0], args[1], args[2], NIL, &error), error);
}
static term send_after_4(struct process *p, const term *args)
{
    term error = A(badarg);
    return result_or_raise(p, bif_send_after(p, args[0], args[1], args[2], args[3], &error), error);
}
static term start_timer_3(struct process *p, const term *args)
{
    term error = A(badarg);
    return result_or_raise(p, bif_start_timer(p, args[0], args[1], args[2], NIL, &error), error);
}
static term start_timer_4(struct process *p, const term *args)
{
    term error = A(badarg);
    return result_or_raise(p, bif_start_timer(p, args[0], args[1], args[2], args[3], &error), error);
}
static term cancel_timer_1(struct process *p, const term *args)
{
    term error = A(badarg);
    return result_or_raise(p, bif_cancel_timer(p, args[0], NIL, &error), error);
}
static term cancel_timer_2(struct process *p, const term *args)
{
    term error = A(badarg);
    return result_or_raise(p, bif_cancel_timer(p, args[0], args[1], &error), error);
}
static term read_timer_1(struct process *p, const term *args)
{
    term error = A(badarg);
    return result_or_raise(p, bif_read_timer(p, args[0], NIL, &error), error);
}
static term read_timer_2(struct process *p, const term *args)
{
    term error = A(badarg);
    return result_or_raise(p, bif_read_timer(p, args[0], args[1], &error), error);
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
