/*
 * calendar.c — calendar time: date/0, time/0, localtime/0,
 * universaltime/0, localtime_to_universaltime/1,2,
 * universaltime_to_localtime/1, universaltime_to_posixtime/1,
 * posixtime_to_universaltime/1.
 *
 * Universal time is plain arithmetic on the system clock (civil_time.h);
 * local time goes through the C library's time zone (localtime_r and
 * mktime, as OTP does on Unix). The accepted years are OTP 25's: 1902 on
 * for the local-time conversions, 1600 on for universaltime_to_posixtime,
 * below 2147483647 for all; anything else is badarg.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/node.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/civil_time.h"
#include "term/heap.h"

#include <errno.h>
#include <time.h>

#define FIRST_LOCAL_YEAR 1902
#define FIRST_POSIX_YEAR 1600
#define YEAR_LIMIT 2147483647 /* first year refused */

static int64_t system_seconds(const struct process *p) { return node_system_time_ns(p) / 1000000000; }

static term make_date(heap_t *h, struct civil_date d)
{
    term year = int_from_int64(h, d.year);
    return is_value(year) ? heap_tuple3(h, year, make_small(d.month), make_small(d.day)) : year;
}

static term make_time(heap_t *h, int hour, int minute, int second)
{
    return heap_tuple3(h, make_small(hour), make_small(minute), make_small(second));
}

/* {{Y, M, D}, {H, Mi, S}} on p's heap. */
static term make_datetime(struct process *p, struct civil_datetime dt)
{
    term date = make_date(&p->heap, dt.date);
    term time = is_value(date) ? make_time(&p->heap, dt.hour, dt.minute, dt.second) : date;
    term pair = is_value(time) ? heap_tuple2(&p->heap, date, time) : time;
    return is_value(pair) ? pair : bif_out_of_memory(p);
}

static bool small_in(term t, int64_t low, int64_t high, int64_t *out)
{
    if (!is_small(t) || small_value(t) < low || small_value(t) > high)
        return false;
    *out = small_value(t);
    return true;
}

/* A {{Y, M, D}, {H, Mi, S}} argument naming a real second, Y >= first_year. */
static bool datetime_arg(term t, int64_t first_year, struct civil_datetime *out)
{
    if (!is_tuple(t) || tuple_arity(t) != 2)
        return false;
    term date = tuple_elements(t)[0], time = tuple_elements(t)[1];
    if (!is_tuple(date) || tuple_arity(date) != 3 || !is_tuple(time) || tuple_arity(time) != 3)
        return false;
    const term *d = tuple_elements(date), *tm = tuple_elements(time);
    int64_t year, month, day, hour, minute, second;
    if (!small_in(d[0], first_year, YEAR_LIMIT - 1, &year) || !small_in(d[1], 1, 12, &month) ||
        !small_in(d[2], 1, 31, &day) || !small_in(tm[0], 0, 23, &hour) || !small_in(tm[1], 0, 59, &minute) ||
        !small_in(tm[2], 0, 59, &second))
        return false;
    *out = (struct civil_datetime){{year, (int)month, (int)day}, (int)hour, (int)minute, (int)second};
    return civil_date_valid(out->date);
}

/* The local time of seconds since the epoch; false when the C library
 * cannot represent it. */
static bool local_from_seconds(int64_t seconds, struct civil_datetime *out)
{
    time_t t = (time_t)seconds;
    struct tm tm;
    if ((int64_t)t != seconds || !localtime_r(&t, &tm))
        return false;
    *out = (struct civil_datetime){{(int64_t)tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday},
                                   tm.tm_hour,
                                   tm.tm_min,
                                   tm.tm_sec < 60 ? tm.tm_sec : 59};
    return true;
}

/* Seconds since the epoch of a local time; is_dst as mktime's tm_isdst
 * (1, 0, or -1 to let the zone decide). False when mktime refuses. */
static bool seconds_from_local(struct civil_datetime local, int is_dst, int64_t *out)
{
    struct tm tm = {0};
    tm.tm_year = (int)(local.date.year - 1900);
    tm.tm_mon = local.date.month - 1;
    tm.tm_mday = local.date.day;
    tm.tm_hour = local.hour;
    tm.tm_min = local.minute;
    tm.tm_sec = local.second;
    tm.tm_isdst = is_dst;
    errno = 0;
    time_t t = mktime(&tm);
    if (t == (time_t)-1 && errno != 0)
        return false;
    *out = (int64_t)t;
    return true;
}

static term local_now(struct process *p, struct civil_datetime *now)
{
    if (!local_from_seconds(system_seconds(p), now))
        return bif_raise(p, FAULT_ERROR, A(system_limit));
    return A(true);
}

static term bif_localtime(struct process *p, const term *a)
{
    (void)a;
    struct civil_datetime now;
    if (is_non_value(local_now(p, &now)))
        return THE_NON_VALUE;
    return make_datetime(p, now);
}

static term bif_date(struct process *p, const term *a)
{
    (void)a;
    struct civil_datetime now;
    if (is_non_value(local_now(p, &now)))
        return THE_NON_VALUE;
    term date = make_date(&p->heap, now.date);
    return is_value(date) ? date : bif_out_of_memory(p);
}

static term bif_time(struct process *p, const term *a)
{
    (void)a;
    struct civil_datetime now;
    if (is_non_value(local_now(p, &now)))
        return THE_NON_VALUE;
    term time = make_time(&p->heap, now.hour, now.minute, now.second);
    return is_value(time) ? time : bif_out_of_memory(p);
}

static term bif_universaltime(struct process *p, const term *a)
{
    (void)a;
    return make_datetime(p, civil_datetime_from_seconds(system_seconds(p)));
}

static term bif_universaltime_to_localtime(struct process *p, const term *a)
{
    struct civil_datetime utc, local;
    if (!datetime_arg(a[0], FIRST_LOCAL_YEAR, &utc) || !local_from_seconds(civil_seconds_from_datetime(utc), &local))
        return bif_badarg(p);
    return make_datetime(p, local);
}

/* IsDst: true, false or undefined (the zone decides). */
static term localtime_to_universaltime(struct process *p, term datetime, term is_dst)
{
    struct civil_datetime local;
    int64_t seconds;
    int dst = is_dst == A(true) ? 1 : is_dst == A(false) ? 0 : -1;
    if ((dst == -1 && is_dst != A(undefined)) || !datetime_arg(datetime, FIRST_LOCAL_YEAR, &local) ||
        !seconds_from_local(local, dst, &seconds))
        return bif_badarg(p);
    return make_datetime(p, civil_datetime_from_seconds(seconds));
}

static term bif_localtime_to_universaltime_1(struct process *p, const term *a)
{
    return localtime_to_universaltime(p, a[0], A(undefined));
}

static term bif_localtime_to_universaltime_2(struct process *p, const term *a)
{
    return localtime_to_universaltime(p, a[0], a[1]);
}

static term bif_universaltime_to_posixtime(struct process *p, const term *a)
{
    struct civil_datetime utc;
    if (!datetime_arg(a[0], FIRST_POSIX_YEAR, &utc))
        return bif_badarg(p);
    term seconds = int_from_int64(&p->heap, civil_seconds_from_datetime(utc));
    return is_value(seconds) ? seconds : bif_out_of_memory(p);
}

/* Any integer that fits int64_t, as OTP. */
static term bif_posixtime_to_universaltime(struct process *p, const term *a)
{
    int64_t seconds;
    if (!is_integer(a[0]) || !int_to_int64(a[0], &seconds))
        return bif_badarg(p);
    return make_datetime(p, civil_datetime_from_seconds(seconds));
}

const struct bif_def bif_table_calendar[] = {
    {"erlang", "date", 0, bif_date, 0},
    {"erlang", "time", 0, bif_time, 0},
    {"erlang", "localtime", 0, bif_localtime, 0},
    {"erlang", "universaltime", 0, bif_universaltime, 0},
    {"erlang", "universaltime_to_localtime", 1, bif_universaltime_to_localtime, 0},
    {"erlang", "localtime_to_universaltime", 1, bif_localtime_to_universaltime_1, 0},
    {"erlang", "localtime_to_universaltime", 2, bif_localtime_to_universaltime_2, 0},
    {"erlang", "universaltime_to_posixtime", 1, bif_universaltime_to_posixtime, 0},
    {"erlang", "posixtime_to_universaltime", 1, bif_posixtime_to_universaltime, 0},
    {NULL, NULL, 0, NULL, 0},
};
