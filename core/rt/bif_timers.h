/*
 * bif_timers.h — erlang:send_after/3,4, start_timer/3,4, cancel_timer/1,2 and
 * read_timer/1,2 as C functions on terms (the seed's "Timers").
 *
 * A timer lives in the executor's wheel, the one receive timeouts use. Its
 * message is copied into a message buffer when the timer starts and into
 * the receiver's heap when it fires, as a send copies. A registered name is
 * resolved when the timer fires (names.h; a name nobody holds then drops
 * the message); a pid of an ended process drops it. Timers to a pid are released when that process
 * ends.
 *
 * Each function returns its result term on the caller's heap, or
 * THE_NON_VALUE with *error set to what to raise: badarg; badopt or time,
 * a badarg with that cause in its error_info, as OTP raises them; or, when
 * the heap refused, system_limit after reporting a runtime failure.
 */
#ifndef CLAUSE_BIF_TIMERS_H
#define CLAUSE_BIF_TIMERS_H

#include "rt/process.h"

/* send_after(Time, Dest, Msg, Options) sends Msg; start_timer sends
 * {timeout, TimerRef, Msg}. Time: 0..2^49-1 ms, or with [{abs, true}] an
 * absolute erlang:monotonic_time(millisecond) (node_monotonic_ns). Returns the timer reference. */
term bif_send_after(struct process *self, term time, term dest, term msg, term options, term *error);
term bif_start_timer(struct process *self, term time, term dest, term msg, term options, term *error);

/* cancel_timer(TimerRef, Options) / read_timer: the milliseconds left, or
 * false when no such timer runs; [{async, true}] returns ok and sends
 * {cancel_timer | read_timer, TimerRef, Result}; [{info, false}] returns ok
 * without a result (and sends nothing). Options [] for the /1 forms. */
term bif_cancel_timer(struct process *self, term ref, term options, term *error);
term bif_read_timer(struct process *self, term ref, term options, term *error);

#endif
