/* Host invocations from several threads at once, each on its own runtime,
 * while another thread runs a program through CLAUSE_main_v1: every call
 * gives what the same call gave alone (OTP's answers for these calls are
 * checked by tests/host). Run under ThreadSanitizer by make tsan. */
#include "include/clause.h"
#include "test_main.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 3, CALLS = 40 };

/* term_to_binary([1, 300]) and term_to_binary([[c, b, a]]). */
static const unsigned char seq_args[] = {131, 108, 0, 0, 0, 2, 97, 1, 98, 0, 0, 1, 44, 106};
static const unsigned char reverse_args[] = {131, 108, 0,   0, 0, 1,  108, 0, 0, 0,  3,   100, 0,
                                             1,   99,  100, 0, 1, 98, 100, 0, 1, 97, 106, 106};

struct call {
    const char *module, *function;
    const unsigned char *args;
    size_t size;
    unsigned char *expected; /* the value alone */
    size_t expected_size;
};

static struct call calls[] = {
    {"lists", "seq", seq_args, sizeof seq_args, NULL, 0},
    {"lists", "reverse", reverse_args, sizeof reverse_args, NULL, 0},
};
#define CALL_KINDS (sizeof calls / sizeof calls[0])

static bool invoke_as_expected(CLAUSE_runtime_v1 *rt, const struct call *c)
{
    CLAUSE_result_v1 result;
    bool same = CLAUSE_invoke_v1(rt, c->module, c->function, c->args, c->size, &result) == CLAUSE_OK &&
                result.etf_size == c->expected_size && memcmp(result.etf, c->expected, c->expected_size) == 0;
    CLAUSE_result_free_v1(&result);
    return same;
}

static void *invoker(void *arg)
{
    int *wrong = arg;
    CLAUSE_runtime_v1 *rt = CLAUSE_runtime_new_v1(NULL, 0, 0, NULL, 0);
    if (!rt) {
        *wrong = CALLS;
        return NULL;
    }
    for (int i = 0; i < CALLS; i++)
        *wrong += !invoke_as_expected(rt, &calls[i % CALL_KINDS]);
    CLAUSE_runtime_free_v1(rt);
    return NULL;
}

static void *program(void *arg)
{
    int *status = arg;
    char *argv[] = {"clause", "--schedulers", "2", "--native", "yield_storm", "4", "50", NULL};
    *status = CLAUSE_main_v1(7, argv);
    return NULL;
}

static void test_runtimes_on_several_threads(void)
{
    CLAUSE_runtime_v1 *rt = CLAUSE_runtime_new_v1(NULL, 0, 0, NULL, 0);
    CU_ASSERT_FATAL(rt != NULL);
    for (size_t k = 0; k < CALL_KINDS; k++) {
        CLAUSE_result_v1 result;
        CU_ASSERT_FATAL(CLAUSE_invoke_v1(rt, calls[k].module, calls[k].function, calls[k].args, calls[k].size,
                                         &result) == CLAUSE_OK);
        calls[k].expected = malloc(result.etf_size);
        CU_ASSERT_FATAL(calls[k].expected != NULL);
        memcpy(calls[k].expected, result.etf, result.etf_size);
        calls[k].expected_size = result.etf_size;
        CLAUSE_result_free_v1(&result);
    }
    CLAUSE_runtime_free_v1(rt);

    pthread_t threads[THREADS], main_thread;
    int wrong[THREADS] = {0}, status = -1;
    CU_ASSERT_FATAL(pthread_create(&main_thread, NULL, program, &status) == 0);
    for (int i = 0; i < THREADS; i++)
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, invoker, &wrong[i]) == 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT_EQUAL(wrong[i], 0);
    }
    pthread_join(main_thread, NULL);
    CU_ASSERT_EQUAL(status, 0);
    for (size_t k = 0; k < CALL_KINDS; k++) {
        free(calls[k].expected);
        calls[k].expected = NULL;
    }
}

static CU_TestInfo tests[] = {
    {"runtimes on several threads", test_runtimes_on_several_threads},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(embed, tests)
