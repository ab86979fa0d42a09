/*
 * civil_time.c — Gregorian calendar arithmetic on 400-year eras.
 *
 * Within an era (146097 days, which the Gregorian rules repeat exactly)
 * the year is counted from March, so the leap day is the era-year's last
 * day and the month lengths from March on follow one linear formula. Day
 * 0 of era 0 is 0000-03-01, 719468 days before the Unix epoch.
 */
#include "term/civil_time.h"

#define DAYS_PER_ERA 146097
#define EPOCH_DAY_OF_ERA_0 719468 /* 1970-01-01 counted from 0000-03-01 */

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

bool civil_is_leap_year(int64_t year) { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

int civil_days_in_month(int64_t year, int month)
{
    static const int lengths[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && civil_is_leap_year(year) ? 29 : lengths[month - 1];
}

bool civil_date_valid(struct civil_date date)
{
    return date.month >= 1 && date.month <= 12 && date.day >= 1 &&
           date.day <= civil_days_in_month(date.year, date.month);
}

int64_t civil_days_from_date(struct civil_date date)
{
    int64_t year = date.year - (date.month <= 2); /* January and February end the March-based year */
    int64_t era = floor_div(year, 400);
    int64_t year_of_era = year - era * 400;           /* 0..399 */
    int64_t month_from_march = (date.month + 9) % 12; /* March 0 .. February 11 */
    int64_t day_of_year = (153 * month_from_march + 2) / 5 + date.day - 1;
    int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * DAYS_PER_ERA + day_of_era - EPOCH_DAY_OF_ERA_0;
}

struct civil_date civil_date_from_days(int64_t days)
{
    int64_t shifted = days + EPOCH_DAY_OF_ERA_0;
    int64_t era = floor_div(shifted, DAYS_PER_ERA);
    int64_t day_of_era = shifted - era * DAYS_PER_ERA; /* 0..146096 */
    /* Leap days before day_of_era are removed before dividing by 365; the
     * era's last day (a 400-year leap day) is the one exception. */
    int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    int64_t month_from_march = (5 * day_of_year + 2) / 153;
    int day = (int)(day_of_year - (153 * month_from_march + 2) / 5 + 1);
    int month = (int)(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
    int64_t year = year_of_era + era * 400 + (month <= 2);
    return (struct civil_date){year, month, day};
}

int64_t civil_seconds_from_datetime(struct civil_datetime dt)
{
    return civil_days_from_date(dt.date) * CIVIL_SECONDS_PER_DAY + dt.hour * 3600 + dt.minute * 60 + dt.second;
}

struct civil_datetime civil_datetime_from_seconds(int64_t seconds)
{
    /* Remainder first: days * 86400 may not fit for the lowest seconds. */
    int64_t days = seconds / CIVIL_SECONDS_PER_DAY, in_day = seconds % CIVIL_SECONDS_PER_DAY;
    if (in_day < 0) {
        in_day += CIVIL_SECONDS_PER_DAY;
        days--;
    }
    return (struct civil_datetime){civil_date_from_days(days), (int)(in_day / 3600), (int)(in_day / 60 % 60),
                                   (int)(in_day % 60)};
}
