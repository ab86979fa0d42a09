/*
 * time.c — clocks and time units: monotonic_time/0,1, system_time/0,1,
 * os:system_time/0,1, timestamp/0 (erlang and os), convert_time_unit/3, unique_integer/0,1,
 * time_offset/0,1, now/0.
 *
 * The native unit (and perf_counter's) is the nanosecond, as OTP 25's on
 * Linux. A unit is second, millisecond, microsecond, nanosecond, native,
 * perf_counter, the deprecated plural names, or a positive integer (parts
 * per second). Conversions round toward minus infinity, as OTP's do.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/node.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/heap.h"

#include <stdatomic.h>

#define NS_PER_SECOND 1000000000

/* Parts per second of a unit, as an integer term; THE_NON_VALUE when it is
 * not a unit. */
static term unit_per_second(term u)
{
    if (u == A(second) || u == A(seconds))
        return make_small(1);
    if (u == A(millisecond) || u == A(milli_seconds))
        return make_small(1000);
    if (u == A(microsecond) || u == A(micro_seconds))
        return make_small(1000000);
    if (u == A(nanosecond) || u == A(nano_seconds) || u == A(native) || u == A(perf_counter))
        return make_small(NS_PER_SECOND);
    if (is_small(u) ? small_value(u) > 0 : is_bignum(u) && !big_is_negative(u))
        return u;
    return THE_NON_VALUE;
}

/* floor(v * to / from) in machine integers, where the units divide one
 * another (all the named ones do) and nothing overflows; false otherwise.
 * The general path multiplies into a bignum and divides it with GMP: a
 * timed loop's every monotonic_time(microsecond). */
static bool scale_int64(int64_t v, int64_t from, int64_t to, int64_t *r)
{
    if (from % to == 0) {
        int64_t d = from / to, q = v / d;
        *r = v % d != 0 && v < 0 ? q - 1 : q;
        return true;
    }
    return to % from == 0 && !__builtin_mul_overflow(v, to / from, r);
}

/* floor(t * to / from). */
static enum int_status convert(heap_t *h, term t, term from, term to, term *out)
{
    int64_t r;
    if (is_small(t) && is_small(from) && is_small(to) &&
        scale_int64(small_value(t), small_value(from), small_value(to), &r)) {
        *out = int_from_int64(h, r);
        return is_value(*out) ? INT_OK : INT_HEAP_FAILED;
    }
    term scaled;
    enum int_status st = int_mul(h, t, to, &scaled);
    if (st != INT_OK)
        return st;
    if (is_small(scaled) ? small_value(scaled) < 0 : big_is_negative(scaled)) {
        /* Truncating division rounds a negative quotient up; pull the
         * dividend down by from - 1 first. */
        term adjust;
        if ((st = int_sub(h, from, make_small(1), &adjust)) != INT_OK ||
            (st = int_sub(h, scaled, adjust, &scaled)) != INT_OK)
            return st;
    }
    return int_div(h, scaled, from, out);
}

static term bif_convert_time_unit(struct process *p, const term *a)
{
    term from = unit_per_second(a[1]), to = unit_per_second(a[2]);
    if (!is_integer(a[0]) || is_non_value(from) || is_non_value(to))
        return bif_badarg(p);
    term r;
    enum int_status st = convert(&p->heap, a[0], from, to, &r);
    return st == INT_OK ? r : bif_int_failure(p, st);
}

static term checked(struct process *p, term t) { return is_value(t) ? t : bif_out_of_memory(p); }

/* A clock's nanoseconds in unit. Nanoseconds since the epoch pass the
 * 60-bit smalls: a bignum. */
static term time_in(struct process *p, int64_t ns, term unit)
{
    term per_second = unit_per_second(unit);
    if (is_non_value(per_second))
        return bif_badarg(p);
    int64_t scaled;
    if (is_small(per_second) && scale_int64(ns, NS_PER_SECOND, small_value(per_second), &scaled))
        return checked(p, int_from_int64(&p->heap, scaled));
    term r, t = int_from_int64(&p->heap, ns);
    if (is_non_value(t))
        return bif_out_of_memory(p);
    enum int_status st = convert(&p->heap, t, make_small(NS_PER_SECOND), per_second, &r);
    return st == INT_OK ? r : bif_int_failure(p, st);
}

static term bif_monotonic_time_0(struct process *p, const term *a)
{
    (void)a;
    return checked(p, int_from_int64(&p->heap, node_monotonic_ns(p)));
}
/* os:perf_counter/0: clause's monotonic clock, whose unit (perf_counter's)
 * is the nanosecond; os:perf_counter/1 is os.erl's, over this one. */
static term bif_perf_counter(struct process *p, const term *a) { return bif_monotonic_time_0(p, a); }
static term bif_monotonic_time_1(struct process *p, const term *a) { return time_in(p, node_monotonic_ns(p), a[0]); }
static term bif_system_time_0(struct process *p, const term *a)
{
    (void)a;
    return checked(p, int_from_int64(&p->heap, node_system_time_ns(p)));
}
static term bif_system_time_1(struct process *p, const term *a) { return time_in(p, node_system_time_ns(p), a[0]); }

/* {MegaSecs, Secs, MicroSecs} of the system time. */
static term bif_timestamp(struct process *p, const term *a)
{
    (void)a;
    int64_t us = node_system_time_ns(p) / 1000;
    term t = heap_tuple3(&p->heap, make_small(us / 1000000000000), make_small(us / 1000000 % 1000000),
                         make_small(us % 1000000));
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* The system time less the monotonic time: what OTP's time offset is,
 * read now (clause's system_time/0 reads the system clock itself). */
static int64_t time_offset_ns(const struct process *p) { return node_system_time_ns(p) - node_monotonic_ns(p); }

static term bif_time_offset_0(struct process *p, const term *a)
{
    (void)a;
    return checked(p, int_from_int64(&p->heap, time_offset_ns(p)));
}
static term bif_time_offset_1(struct process *p, const term *a) { return time_in(p, time_offset_ns(p), a[0]); }

/* now/0's last answer, in microseconds: each call answers a later one,
 * whatever the clock does, as OTP guarantees. */
static _Atomic int64_t last_now_us;

static term bif_now(struct process *p, const term *a)
{
    (void)a;
    int64_t clock_us = node_system_time_ns(p) / 1000;
    int64_t last = atomic_load_explicit(&last_now_us, memory_order_relaxed), us;
    do
        us = clock_us > last ? clock_us : last + 1;
    while (!atomic_compare_exchange_weak_explicit(&last_now_us, &last, us, memory_order_relaxed, memory_order_relaxed));
    term t = heap_tuple3(&p->heap, make_small(us / 1000000000000), make_small(us / 1000000 % 1000000),
                         make_small(us % 1000000));
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* One counter for the whole run: its values are unique, positive and
 * strictly increasing, so they satisfy every option at once. */
static _Atomic int64_t unique_counter;

static term bif_unique_integer_0(struct process *p, const term *a)
{
    (void)p;
    (void)a;
    return make_small(atomic_fetch_add_explicit(&unique_counter, 1, memory_order_relaxed) + 1);
}

/* Options: a proper list of positive and monotonic. */
static term bif_unique_integer_1(struct process *p, const term *a)
{
    term l = a[0];
    for (; is_list(l); l = list_tail(l))
        if (list_head(l) != A(positive) && list_head(l) != A(monotonic))
            return bif_badarg(p);
    if (l != NIL)
        return bif_badarg(p);
    return bif_unique_integer_0(p, a);
}

const struct bif_def bif_table_time[] = {
    {"erlang", "monotonic_time", 0, bif_monotonic_time_0, 0},
    {"erlang", "monotonic_time", 1, bif_monotonic_time_1, 0},
    {"erlang", "system_time", 0, bif_system_time_0, 0},
    {"erlang", "system_time", 1, bif_system_time_1, 0},
    {"os", "system_time", 0, bif_system_time_0, 0},
    {"os", "system_time", 1, bif_system_time_1, 0},
    {"erlang", "timestamp", 0, bif_timestamp, 0},
    {"os", "timestamp", 0, bif_timestamp, 0},
    {"os", "perf_counter", 0, bif_perf_counter, 0},
    {"erlang", "convert_time_unit", 3, bif_convert_time_unit, 0},
    {"erlang", "time_offset", 0, bif_time_offset_0, 0},
    {"erlang", "time_offset", 1, bif_time_offset_1, 0},
    {"erlang", "now", 0, bif_now, 0},
    {"erlang", "unique_integer", 0, bif_unique_integer_0, BIF_NOHEAP},
    {"erlang", "unique_integer", 1, bif_unique_integer_1, BIF_NOHEAP},
    {NULL, NULL, 0, NULL, 0},
};
