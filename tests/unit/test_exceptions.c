/*
 * test_exceptions.c — raw traces (core/beam/interp.c): a raise saves where
 * it happened and the stack trace term is built only when asked for. Run
 * through the embedding API on tests/beam/exc_raw.erl: a trace built after
 * other raises, collections and a grown stack equals the one built at once;
 * many raises caught with and without their traces give OTP's sum; an
 * uncaught error reports its frames.
 */
#include "include/clause.h"
#include "test_main.h"

#include <stdbool.h>
#include <string.h>

static CLAUSE_runtime_v1 *runtime_for_exc_raw(void)
{
    const char *paths[] = {test_data_path("data/beam")};
    char error[256];
    CLAUSE_runtime_v1 *rt = CLAUSE_runtime_new_v1(paths, 1, 0, error, sizeof error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
    return rt;
}

/* module:function(args) returns what exc_raw:expected_function() returns. */
static bool returns_as(CLAUSE_runtime_v1 *rt, const char *function, const void *args, size_t size, const void *expected,
                       size_t expected_size)
{
    CLAUSE_result_v1 got;
    bool same = CLAUSE_invoke_v1(rt, "exc_raw", function, args, size, &got) == CLAUSE_OK &&
                got.etf_size == expected_size && memcmp(got.etf, expected, expected_size) == 0;
    CLAUSE_result_free_v1(&got);
    return same;
}

static void test_a_trace_built_later_is_the_raises(void)
{
    CLAUSE_runtime_v1 *rt = runtime_for_exc_raw();
    CLAUSE_result_v1 yes;
    CU_ASSERT_EQUAL_FATAL(CLAUSE_invoke_v1(rt, "exc_raw", "yes", NULL, 0, &yes), CLAUSE_OK);
    CU_ASSERT_TRUE(returns_as(rt, "same_trace", NULL, 0, yes.etf, yes.etf_size));
    CLAUSE_result_free_v1(&yes);
    CLAUSE_runtime_free_v1(rt);
}

static void test_many_raises_give_otps_sum(void)
{
    CLAUSE_runtime_v1 *rt = runtime_for_exc_raw();
    /* term_to_binary([300]), and of caught_many(300) on OTP 25: 45750. */
    static const unsigned char args[] = {131, 108, 0, 0, 0, 1, 98, 0, 0, 1, 44, 106};
    static const unsigned char sum[] = {131, 98, 0, 0, 178, 182};
    CU_ASSERT_TRUE(returns_as(rt, "caught_many", args, sizeof args, sum, sizeof sum));
    CLAUSE_runtime_free_v1(rt);
}

static void test_an_uncaught_error_shows_its_frames(void)
{
    CLAUSE_runtime_v1 *rt = runtime_for_exc_raw();
    /* term_to_binary([2]) */
    static const unsigned char args[] = {131, 108, 0, 0, 0, 1, 97, 2, 106};
    CLAUSE_result_v1 r;
    CU_ASSERT_EQUAL(CLAUSE_invoke_v1(rt, "exc_raw", "deep_error", args, sizeof args, &r), CLAUSE_RAISED);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.text);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "bottom"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "deep_error"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "exc_raw.erl"));
    CLAUSE_result_free_v1(&r);
    CLAUSE_runtime_free_v1(rt);
}

static CU_TestInfo tests[] = {
    {"a trace built after other raises is the raise's", test_a_trace_built_later_is_the_raises},
    {"many raises, caught with and without traces", test_many_raises_give_otps_sum},
    {"an uncaught error shows its frames", test_an_uncaught_error_shows_its_frames},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(exceptions, tests)
