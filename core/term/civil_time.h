/*
 * civil_time.h — proleptic Gregorian dates to and from day counts since
 * 1970-01-01, for any date whose day count fits int64_t arithmetic with
 * room to spare (years within about ±2.5e13). Pure arithmetic: no time
 * zone, no clock.
 */
#ifndef CLAUSE_CIVIL_TIME_H
#define CLAUSE_CIVIL_TIME_H

#include <stdbool.h>
#include <stdint.h>

#define CIVIL_SECONDS_PER_DAY 86400

struct civil_date {
    int64_t year; /* astronomical: year 0 is 1 BC */
    int month;    /* 1..12 */
    int day;      /* 1..31 */
};

struct civil_datetime {
    struct civil_date date;
    int hour, minute, second;
};

bool civil_is_leap_year(int64_t year);
/* Days in month (1..12) of year. */
int civil_days_in_month(int64_t year, int month);
/* Whether the date names a real day (month 1..12, day within it). */
bool civil_date_valid(struct civil_date date);
/* Days since 1970-01-01 (negative before); the date must be valid. */
int64_t civil_days_from_date(struct civil_date date);
struct civil_date civil_date_from_days(int64_t days);
/* Seconds since 1970-01-01T00:00:00 of a valid date and time, and back. */
int64_t civil_seconds_from_datetime(struct civil_datetime dt);
struct civil_datetime civil_datetime_from_seconds(int64_t seconds);

#endif
