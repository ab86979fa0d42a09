/*
 * test_civil_time.c — Gregorian dates and Unix seconds (core/term/civil_time.c)
 * against OTP 25's posixtime_to_universaltime/1 on the cases of
 * tests/data/civil_time_cases.txt (tests/gen/civil_time_cases.escript):
 * leap years and centuries, 2038 and later, the int64_t extremes.
 */
#include "term/civil_time.h"
#include "test_main.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void test_otp_cases(void)
{
    FILE *f = fopen(test_data_path("data/civil_time_cases.txt"), "r");
    CU_ASSERT_FATAL(f != NULL);
    char line[256];
    unsigned cases = 0, failures = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        int64_t seconds, year;
        int month, day, hour, minute, second;
        CU_ASSERT_FATAL(sscanf(line, "%" SCNd64 " %" SCNd64 " %d %d %d %d %d", &seconds, &year, &month, &day, &hour,
                               &minute, &second) == 7);
        struct civil_datetime dt = civil_datetime_from_seconds(seconds);
        bool same = dt.date.year == year && dt.date.month == month && dt.date.day == day && dt.hour == hour &&
                    dt.minute == minute && dt.second == second;
        if (!same && ++failures <= 10)
            fprintf(stderr, "%" PRId64 ": %" PRId64 "-%d-%d %d:%d:%d, OTP %s", seconds, dt.date.year, dt.date.month,
                    dt.date.day, dt.hour, dt.minute, dt.second, line);
        /* Back again, where the seconds fit the round trip's arithmetic. */
        if (year > -100000000 && year < 100000000)
            CU_ASSERT_EQUAL(civil_seconds_from_datetime(dt), seconds);
        cases++;
    }
    fclose(f);
    CU_ASSERT_TRUE(cases > 30);
    CU_ASSERT_EQUAL(failures, 0);
}

static void test_days_round_trip(void)
{
    /* Every day of 1599-03-01 .. 2401-03-01 and around day counts far out:
     * consecutive days, valid dates, and back to the same count. */
    const int64_t starts[] = {-135140, 10000000000, -10000000000};
    const int64_t spans[] = {293000, 1000, 1000};
    for (size_t s = 0; s < 3; s++) {
        struct civil_date prev = civil_date_from_days(starts[s] - 1);
        for (int64_t days = starts[s]; days < starts[s] + spans[s]; days++) {
            struct civil_date d = civil_date_from_days(days);
            CU_ASSERT_TRUE_FATAL(civil_date_valid(d));
            CU_ASSERT_EQUAL_FATAL(civil_days_from_date(d), days);
            bool next_day = d.year == prev.year && d.month == prev.month && d.day == prev.day + 1;
            bool next_month = d.year == prev.year && d.month == prev.month + 1 && d.day == 1 &&
                              prev.day == civil_days_in_month(prev.year, prev.month);
            bool next_year =
                d.year == prev.year + 1 && d.month == 1 && d.day == 1 && prev.month == 12 && prev.day == 31;
            CU_ASSERT_TRUE_FATAL(next_day || next_month || next_year);
            prev = d;
        }
    }
}

static void test_validity(void)
{
    CU_ASSERT_TRUE(civil_date_valid((struct civil_date){2000, 2, 29}));
    CU_ASSERT_FALSE(civil_date_valid((struct civil_date){1900, 2, 29}));
    CU_ASSERT_FALSE(civil_date_valid((struct civil_date){2100, 2, 29}));
    CU_ASSERT_TRUE(civil_date_valid((struct civil_date){2400, 2, 29}));
    CU_ASSERT_TRUE(civil_date_valid((struct civil_date){0, 2, 29}));
    CU_ASSERT_FALSE(civil_date_valid((struct civil_date){2001, 4, 31}));
    CU_ASSERT_FALSE(civil_date_valid((struct civil_date){2001, 13, 1}));
    CU_ASSERT_FALSE(civil_date_valid((struct civil_date){2001, 1, 0}));
    CU_ASSERT_EQUAL(civil_seconds_from_datetime((struct civil_datetime){{2038, 1, 19}, 3, 14, 8}), 2147483648);
}

static CU_TestInfo tests[] = {
    {"Unix seconds to dates as OTP", test_otp_cases},
    {"day counts round trip", test_days_round_trip},
    {"date validity", test_validity},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(civil_time, tests)
