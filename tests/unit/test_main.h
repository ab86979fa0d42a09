/*
 * test_main.h — how a unit-test file registers its suites.
 *
 * Each tests/unit/test_*.c ends with
 *     TEST_SUITE(name, tests)              a suite of ordinary tests
 *     TEST_SUITE_CONCURRENT(name, tests)   a suite that runs threads
 * where tests is a CU_TestInfo array ending in CU_TEST_INFO_NULL. The macro
 * registers the suite at program start, so adding a file to tests/unit/ is
 * all it takes: the Makefile compiles every file there into one runner.
 * `make tsan` runs the concurrent suites only.
 */
#ifndef CLAUSE_TEST_MAIN_H
#define CLAUSE_TEST_MAIN_H

#include "rt/executor.h"

#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stdint.h>
struct policy_ops;

/* The tests' reproducible pseudo-random step (Marsaglia's xorshift64,
 * shifts 13, 7, 17): advances *state (never 0) and returns it. */
static inline uint64_t test_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

void test_register_suite(const char *name, CU_TestInfo *tests, bool concurrent);

#define TEST_SUITE_IMPL(name, tests, concurrent)                                                                       \
    __attribute__((constructor)) static void register_suite_##name(void)                                               \
    {                                                                                                                  \
        test_register_suite(#name, tests, concurrent);                                                                 \
    }
#define TEST_SUITE(name, tests) TEST_SUITE_IMPL(name, tests, false)
#define TEST_SUITE_CONCURRENT(name, tests) TEST_SUITE_IMPL(name, tests, true)

/* Path of a file under tests/ (the runner is started from the repository
 * root or given CLAUSE_TEST_DIR). */
const char *test_data_path(const char *relative);

/* The policies the concurrent tests run under: every registered policy, or
 * only those named by the runner's --policy NAME[,NAME...] (or the
 * environment variable CLAUSE_TEST_POLICY), so a new policy can be tested
 * alone (scripts/validate-policy) and a lock kind under the seeds'
 * policies. A NULL-terminated array, as policy_all(). */
const struct policy_ops *const *test_policies(void);

/* How many of a per-policy test's FULL rounds (messages, processes, repeats)
 * POLICY gets: all of them for the seeds' policies (erts, global_fifo) and
 * for every policy named by --policy; a tenth, at least one, for each other
 * policy when the run tests them all, and for every policy under --tenth. Policies are added often, and each
 * adds its loops to make test's time; a newer policy still meets every case,
 * and scripts/validate-policy, naming it, gives it the full count. */
unsigned test_rounds(const struct policy_ops *policy, unsigned full);

/* The lock kind the tests' executors are built with: the runner's
 * --locks KIND (or CLAUSE_TEST_LOCKS=KIND), else the default (pthread).
 * make test-rel and make tsan run the concurrent suites under every kind. */
enum lock_kind test_lock_kind(void);

/* The --busy-wait the tests' executors are built with: the runner's
 * --busy-wait N (or CLAUSE_TEST_BUSY_WAIT=N), else 0. */
unsigned test_busy_wait(void);

/* The --watchdog the tests' executors are built with: the runner's
 * --watchdog MS (or CLAUSE_TEST_WATCHDOG=MS), else clause's default
 * (30000), so the concurrent suites check that no policy sets it off. */
unsigned test_watchdog_ms(void);

/* The config every test executor starts from: policy (NULL: the default)
 * with `workers` workers, the seed's send and timer modes (arrivals, the
 * timer thread), the runner's lock kind, busy-wait and watchdog, and every
 * other field zero. A test that needs one more (a heap cap, policy
 * parameters, a schedule) sets it on this copy and calls test_sched_create,
 * so a new field of struct sched_config is added here and nowhere else. */
struct sched_config test_sched_config(const struct policy_ops *policy, unsigned workers);

/* An executor of config; the current test fails (fatally) when it cannot
 * be made. */
struct sched *test_sched_create(const struct sched_config *config);

/* An executor of test_sched_config(policy, workers) with send and timer
 * modes `send` and `timers`. */
struct sched *test_sched_new(const struct policy_ops *policy, unsigned workers, enum send_mode send,
                             enum timer_mode timers);

#endif
