/*
 * test_main.c — the unit-test runner: every suite the test files registered,
 * or with --concurrent only those that run threads (for ThreadSanitizer), or
 * with --suite NAME one suite; --policy NAME[,NAME...] (or
 * CLAUSE_TEST_POLICY) runs the tests that loop over the policies under
 * those only; --locks KIND (or CLAUSE_TEST_LOCKS=KIND) builds every
 * executor's locks of that kind; --tenth gives every per-policy loop a
 * tenth of its count (test_rounds: the reruns under other lock kinds test
 * the locks' paths, which a tenth of the rounds takes as well);
 * --max-workers N (or CLAUSE_TEST_MAX_WORKERS) builds every executor with
 * at most N workers (the fair spinlocks convoy with more workers than
 * CPUs: make tsan runs them so); --times prints each test's wall time,
 * slowest first.
 * Exits non-zero when any test fails.
 */
#include "test_main.h"

#include "rt/policy.h"
#include "term/atom.h"

#include <CUnit/Basic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SUITES 128

static struct {
    const char *name;
    CU_TestInfo *tests;
    bool concurrent;
} suites[MAX_SUITES];
static int suite_count;

void test_register_suite(const char *name, CU_TestInfo *tests, bool concurrent)
{
    if (suite_count == MAX_SUITES) {
        fprintf(stderr, "test_main: more than %d suites\n", MAX_SUITES);
        exit(2);
    }
    suites[suite_count].name = name;
    suites[suite_count].tests = tests;
    suites[suite_count].concurrent = concurrent;
    suite_count++;
}

const char *test_data_path(const char *relative)
{
    static char path[4096];
    const char *dir = getenv("CLAUSE_TEST_DIR");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests", relative);
    return path;
}

/* A hung test (a lost wakeup, a deadlock) must fail the run, not stall it:
 * every test gets TEST_TIME_LIMIT_S seconds, generous for sanitizer builds. */
#define TEST_TIME_LIMIT_S 300

static void test_overran(int signal_number)
{
    (void)signal_number;
    static const char text[] = "\ntest_main: a test ran over its time limit (hung?): ";
    (void)!write(STDERR_FILENO, text, sizeof text - 1);
    CU_pTest test = CU_get_current_test();
    if (test && test->pName)
        (void)!write(STDERR_FILENO, test->pName, strlen(test->pName));
    (void)!write(STDERR_FILENO, "\n", 1);
    _exit(1);
}

#define MAX_SELECTED_POLICIES 32
static const struct policy_ops *selected_policies[MAX_SELECTED_POLICIES + 1];

const struct policy_ops *const *test_policies(void) { return selected_policies[0] ? selected_policies : policy_all(); }

static bool tenth_rounds; /* --tenth */

unsigned test_rounds(const struct policy_ops *policy, unsigned full)
{
    if (!tenth_rounds &&
        (selected_policies[0] || strcmp(policy->name, "erts") == 0 || strcmp(policy->name, "global_fifo") == 0))
        return full;
    return full / 10 > 0 ? full / 10 : 1;
}

/* Restricts test_policies() to the policies named in names ("erts" or
 * "erts,global_fifo"); false, naming the first unknown one, if one is not a
 * policy. */
static bool select_policies(const char *names)
{
    unsigned count = 0;
    for (const char *name = names; *name;) {
        size_t length = strcspn(name, ",");
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)length, name);
        const struct policy_ops *ops = policy_find(one);
        if (!ops || count == MAX_SELECTED_POLICIES) {
            fprintf(stderr, "test_main: no policy '%s'\n", one);
            return false;
        }
        selected_policies[count++] = ops;
        name += length + (name[length] == ',');
    }
    selected_policies[count] = NULL;
    return count > 0;
}

static enum lock_kind selected_locks = LOCK_SPIN_FUTEX; /* the default */

enum lock_kind test_lock_kind(void) { return selected_locks; }

static unsigned selected_busy_wait;

unsigned test_busy_wait(void) { return selected_busy_wait; }

static unsigned selected_watchdog_ms = SCHED_DEFAULT_WATCHDOG_MS;

unsigned test_watchdog_ms(void) { return selected_watchdog_ms; }

struct sched_config test_sched_config(const struct policy_ops *policy, unsigned workers)
{
    return (struct sched_config){
        .workers = workers,
        .policy = policy,
        .send_mode = SEND_MODE_ARRIVALS,
        .timer_mode = TIMER_THREAD,
        .locks = test_lock_kind(),
        .busy_wait = test_busy_wait(),
        .watchdog_ms = test_watchdog_ms(),
        .gc_threads = 0, /* every collection on its worker; test_collector.c asks for collector threads */
    };
}

static unsigned max_workers; /* --max-workers; 0: no cap */

struct sched *test_sched_create(const struct sched_config *config)
{
    const char *error = NULL;
    struct sched_config capped = *config;
    if (max_workers && capped.workers > max_workers)
        capped.workers = max_workers;
    struct sched *s = sched_create(&capped, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    return s;
}

struct sched *test_sched_new(const struct policy_ops *policy, unsigned workers, enum send_mode send,
                             enum timer_mode timers)
{
    struct sched_config config = test_sched_config(policy, workers);
    config.send_mode = send;
    config.timer_mode = timers;
    return test_sched_create(&config);
}

/* --times: each test's wall time, printed after the run, slowest first
 * (what make test's time goes to). */
#define MAX_TIMED_TESTS 1024
static bool report_times;
static struct timed_test {
    const char *suite, *test;
    double seconds;
} timed[MAX_TIMED_TESTS];
static unsigned timed_count;
static struct timespec test_started;

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static void arm_time_limit(void)
{
    clock_gettime(CLOCK_MONOTONIC, &test_started);
    alarm(TEST_TIME_LIMIT_S);
}

static void disarm_time_limit(void)
{
    alarm(0);
    CU_pSuite suite = CU_get_current_suite();
    CU_pTest test = CU_get_current_test();
    if (report_times && timed_count < MAX_TIMED_TESTS && suite && test)
        timed[timed_count++] = (struct timed_test){suite->pName, test->pName, seconds_since(&test_started)};
}

static int slower_first(const void *a, const void *b)
{
    const struct timed_test *x = a, *y = b;
    return (x->seconds < y->seconds) - (x->seconds > y->seconds);
}

static void print_times(void)
{
    qsort(timed, timed_count, sizeof timed[0], slower_first);
    double total = 0;
    for (unsigned i = 0; i < timed_count; i++)
        total += timed[i].seconds;
    printf("\ntest times (wall, slowest first; %u tests, %.1f s):\n", timed_count, total);
    for (unsigned i = 0; i < timed_count; i++)
        printf("%8.3f  %s/%s\n", timed[i].seconds, timed[i].suite, timed[i].test);
}

static int compare_names(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    return strcmp(*x, *y);
}

int main(int argc, char **argv)
{
    bool concurrent_only = false;
    const char *only = NULL;
    const char *policy = getenv("CLAUSE_TEST_POLICY");
    const char *locks = getenv("CLAUSE_TEST_LOCKS");
    const char *busy_wait = getenv("CLAUSE_TEST_BUSY_WAIT");
    const char *watchdog = getenv("CLAUSE_TEST_WATCHDOG");
    const char *workers_cap = getenv("CLAUSE_TEST_MAX_WORKERS");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--concurrent") == 0)
            concurrent_only = true;
        else if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
            policy = argv[++i];
        else if (strcmp(argv[i], "--locks") == 0 && i + 1 < argc)
            locks = argv[++i];
        else if (strcmp(argv[i], "--busy-wait") == 0 && i + 1 < argc)
            busy_wait = argv[++i];
        else if (strcmp(argv[i], "--watchdog") == 0 && i + 1 < argc)
            watchdog = argv[++i];
        else if (strcmp(argv[i], "--max-workers") == 0 && i + 1 < argc)
            workers_cap = argv[++i];
        else if (strcmp(argv[i], "--times") == 0)
            report_times = true;
        else if (strcmp(argv[i], "--tenth") == 0)
            tenth_rounds = true;
        else {
            fprintf(stderr,
                    "usage: %s [--concurrent] [--suite NAME] [--policy NAME[,NAME...]] [--locks KIND] [--busy-wait N] "
                    "[--watchdog MS] [--max-workers N] [--tenth] [--times]\n",
                    argv[0]);
            return 2;
        }
    }
    if (policy && *policy && !select_policies(policy))
        return 2;
    if (locks && *locks && !lock_kind_find(locks, &selected_locks)) {
        fprintf(stderr, "test_main: no lock kind '%s'\n", locks);
        return 2;
    }
    if (locks && *locks)
        printf("test_main: locks %s\n", lock_kind_name(selected_locks));
    if (busy_wait && *busy_wait) {
        char *end;
        unsigned long n = strtoul(busy_wait, &end, 10);
        if (*end || n > SCHED_MAX_BUSY_WAIT) {
            fprintf(stderr, "test_main: --busy-wait: '%s' is not a number from 0 to %u\n", busy_wait,
                    SCHED_MAX_BUSY_WAIT);
            return 2;
        }
        selected_busy_wait = (unsigned)n;
        printf("test_main: busy-wait %u\n", selected_busy_wait);
    }
    if (watchdog && *watchdog) {
        char *end;
        unsigned long n = strtoul(watchdog, &end, 10);
        if (*end || n > SCHED_MAX_WATCHDOG_MS) {
            fprintf(stderr, "test_main: --watchdog: '%s' is not a number from 0 to %u\n", watchdog,
                    SCHED_MAX_WATCHDOG_MS);
            return 2;
        }
        selected_watchdog_ms = (unsigned)n;
        printf("test_main: watchdog %u ms\n", selected_watchdog_ms);
    }
    if (workers_cap && *workers_cap) {
        char *end;
        unsigned long n = strtoul(workers_cap, &end, 10);
        if (!concurrent_only) {
            /* The rule tests index their executors' workers by the counts they asked for. */
            fprintf(stderr, "test_main: --max-workers is for the concurrent suites (--concurrent)\n");
            return 2;
        }
        if (*end || n < 1 || n > SCHED_MAX_WORKERS) {
            fprintf(stderr, "test_main: --max-workers: '%s' is not a number from 1 to %u\n", workers_cap,
                    SCHED_MAX_WORKERS);
            return 2;
        }
        max_workers = (unsigned)n;
        printf("test_main: at most %u workers\n", max_workers);
    }
    atom_table_init();
    signal(SIGALRM, test_overran);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    /* Constructors run in link order; sort so the report reads the same on
     * every build. */
    const char *names[MAX_SUITES];
    for (int i = 0; i < suite_count; i++)
        names[i] = suites[i].name;
    qsort(names, (size_t)suite_count, sizeof names[0], compare_names);
    int registered = 0;
    for (int n = 0; n < suite_count; n++) {
        for (int i = 0; i < suite_count; i++) {
            if (suites[i].name != names[n])
                continue;
            if (concurrent_only && !suites[i].concurrent)
                continue;
            if (only && strcmp(only, suites[i].name) != 0)
                continue;
            CU_SuiteInfo info[2] = {{suites[i].name, NULL, NULL, arm_time_limit, disarm_time_limit, suites[i].tests},
                                    CU_SUITE_INFO_NULL};
            if (CU_register_suites(info) != CUE_SUCCESS) {
                fprintf(stderr, "test_main: cannot register %s: %s\n", suites[i].name, CU_get_error_msg());
                return 2;
            }
            registered++;
        }
    }
    if (registered == 0) {
        fprintf(stderr, "test_main: no suite selected\n");
        return 2;
    }
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    if (report_times)
        print_times();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned failed_tests = CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    (void)failed;
    return failed_tests == 0 && CU_get_error() == CUE_SUCCESS ? 0 : 1;
}
