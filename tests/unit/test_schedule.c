/*
 * test_schedule.c — seeded schedules (rt/schedule.h): --schedule's
 * parsing, the generator, PCT's priorities and change points worked by
 * hand; then, concurrently, native workloads under every policy at 1, 2 and
 * 4 workers take the same steps twice for one seed, and replay their log.
 */
#include "test_main.h"

#include "app/native_workloads.h"
#include "rt/executor.h"
#include "rt/policy.h"
#include "rt/schedule.h"
#include "term/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- parsing ---- */

static bool parses(const char *text, struct schedule_spec *spec)
{
    char error[200];
    return schedule_spec_parse(text, spec, error, sizeof error);
}

static void test_spec_parse(void)
{
    struct schedule_spec spec;
    CU_ASSERT_TRUE(parses("random:seed=42", &spec));
    CU_ASSERT_EQUAL(spec.mode, SCHEDULE_RANDOM);
    CU_ASSERT_EQUAL(spec.seed, 42);
    CU_ASSERT_TRUE(parses("random:seed=18446744073709551615", &spec));
    CU_ASSERT_EQUAL(spec.seed, UINT64_MAX);
    CU_ASSERT_TRUE(parses("pct:seed=7,depth=3", &spec));
    CU_ASSERT_EQUAL(spec.mode, SCHEDULE_PCT);
    CU_ASSERT_EQUAL(spec.depth, 3);
    CU_ASSERT_EQUAL(spec.steps, SCHEDULE_DEFAULT_STEPS);
    CU_ASSERT_TRUE(parses("pct:depth=2,steps=50,seed=0", &spec));
    CU_ASSERT_EQUAL(spec.steps, 50);
    char text[128];
    schedule_spec_format(&spec, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "pct:seed=0,depth=2,steps=50");
}

static void test_spec_refused(void)
{
    static const char *const bad[] = {"",
                                      "random",
                                      "random:",
                                      "random:seed=",
                                      "random:seed=-1",
                                      "random:seed=18446744073709551616",
                                      "random:seed=1,depth=2",
                                      "random:seed=1x",
                                      "fifo:seed=1",
                                      "pct:seed=1",
                                      "pct:seed=1,depth=0",
                                      "pct:seed=1,depth=65",
                                      "pct:depth=2",
                                      "pct:seed=1,depth=2,steps=0",
                                      "pct:seed=1,depth=2,colour=red"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct schedule_spec spec;
        char error[200] = "";
        CU_ASSERT_FALSE(schedule_spec_parse(bad[i], &spec, error, sizeof error));
        CU_ASSERT_PTR_NOT_NULL(strstr(error, "--schedule: "));
        CU_ASSERT_PTR_NULL(strchr(error, '\n'));
    }
}

/* ---- the generator ---- */

static void test_random_splitmix64(void)
{
    /* splitmix64's published first outputs from state 0. */
    struct schedule_random r;
    schedule_random_seed(&r, 0);
    CU_ASSERT_EQUAL(schedule_random_next(&r), 0xe220a8397b1dcdafu);
    CU_ASSERT_EQUAL(schedule_random_next(&r), 0x6e789e6aa1b965f4u);
    CU_ASSERT_EQUAL(schedule_random_next(&r), 0x06c45d188009454fu);
    /* below(n) stays below n and reaches every value. */
    schedule_random_seed(&r, 12345);
    unsigned seen[7] = {0};
    for (int i = 0; i < 7000; i++) {
        uint64_t v = schedule_random_below(&r, 7);
        CU_ASSERT_TRUE_FATAL(v < 7);
        seen[v]++;
    }
    for (int v = 0; v < 7; v++)
        CU_ASSERT_TRUE(seen[v] > 800 && seen[v] < 1200);
}

/* ---- PCT ---- */

static void test_pct_priorities_and_change_points(void)
{
    for (uint64_t seed = 0; seed < 50; seed++) {
        struct schedule_random r;
        schedule_random_seed(&r, seed);
        struct schedule_pct pct;
        CU_ASSERT_TRUE_FATAL(schedule_pct_init(&pct, &r, 5, 4, 100));
        /* A permutation of depth .. depth + workers - 1. */
        bool taken[5] = {false};
        for (unsigned w = 0; w < 5; w++) {
            CU_ASSERT_TRUE_FATAL(pct.priority[w] >= 4 && pct.priority[w] < 9);
            CU_ASSERT_FALSE(taken[pct.priority[w] - 4]);
            taken[pct.priority[w] - 4] = true;
        }
        /* depth - 1 change points in 1..steps, ascending. */
        for (unsigned i = 0; i < 3; i++) {
            CU_ASSERT_TRUE(pct.change_points[i] >= 1 && pct.change_points[i] <= 100);
            if (i)
                CU_ASSERT_TRUE(pct.change_points[i - 1] <= pct.change_points[i]);
        }
        schedule_pct_free(&pct);
    }
}

static void test_pct_choose(void)
{
    /* Priorities and change points set by hand: workers 0..2 at 3, 5, 4;
     * change points at steps 2 and 4 (depth 3). */
    long long priority[3] = {3, 5, 4};
    uint64_t change_points[2] = {2, 4};
    struct schedule_pct pct = {3, 3, 10, priority, change_points, 0};
    bool all[3] = {true, true, true}, not1[3] = {true, false, true};
    CU_ASSERT_EQUAL(schedule_pct_choose(&pct, 1, all), 1);
    CU_ASSERT_EQUAL(schedule_pct_choose(&pct, 1, not1), 2); /* the highest awake */
    /* Step 2: worker 1 drops to depth - 1 = 2, below every initial one. */
    CU_ASSERT_EQUAL(schedule_pct_choose(&pct, 2, all), 2);
    CU_ASSERT_EQUAL(priority[1], 2);
    CU_ASSERT_EQUAL(schedule_pct_choose(&pct, 3, all), 2);
    /* Step 4: worker 2 drops to 1; worker 0 (3) now leads. */
    CU_ASSERT_EQUAL(schedule_pct_choose(&pct, 4, all), 0);
    CU_ASSERT_EQUAL(priority[2], 1);
    CU_ASSERT_EQUAL(schedule_pct_choose(&pct, 5, all), 0);
    bool none[3] = {false, false, false};
    CU_ASSERT_EQUAL(schedule_pct_choose(&pct, 6, none), NOT_A_WORKER);
    /* Two change points on one step lower two workers at once. */
    long long p2[3] = {3, 5, 4};
    uint64_t same[2] = {1, 1};
    struct schedule_pct twice = {3, 3, 10, p2, same, 0};
    CU_ASSERT_EQUAL(schedule_pct_choose(&twice, 1, all), 0);
    CU_ASSERT_EQUAL(p2[1], 2);
    CU_ASSERT_EQUAL(p2[2], 1);
}

/* ---- runs ---- */

/* Runs workload NAME under spec (or replaying `replay`) writing its steps
 * to `log`; its status. */
static int run_scheduled(const char *name, char **args, const struct policy_ops *policy, unsigned workers,
                         const struct schedule_spec *spec, const char *log, const char *replay)
{
    const struct native_workload *workload = native_workload_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(workload);
    char error[300];
    struct schedule *c = schedule_new(spec, workers, policy->name, log, replay, error, sizeof error);
    if (!c)
        fprintf(stderr, "\n%s\n", error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    struct sched_config config = test_sched_config(policy, workers);
    config.busy_wait = 0; /* the controller turns both off anyway */
    config.watchdog_ms = 0;
    config.schedule = c;
    struct sched *s = test_sched_create(&config);
    struct strbuf text = STRBUF_INIT;
    term main_pid;
    void *ctx = NULL;
    CU_ASSERT_TRUE_FATAL(workload->start(s, args, &main_pid, &ctx, &text));
    int status = sched_run(s, main_pid);
    if (!workload->finish(ctx, &text) && status == 0)
        status = -1;
    sched_destroy(s);
    schedule_free(c);
    workload->free_ctx(ctx);
    strbuf_free(&text);
    return status;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    struct strbuf text = STRBUF_INIT;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        strbuf_append(&text, chunk, n);
    fclose(f);
    char *copy = strdup(strbuf_cstr(&text));
    strbuf_free(&text);
    return copy;
}

/* The log's steps, without its header (which names the mode). */
static const char *steps_of(const char *log) { return strchr(log, '\n') ? strchr(log, '\n') + 1 : log; }

static void same_steps_twice_and_replayed(const char *name, char **args, const char *spec_text)
{
    struct schedule_spec spec;
    CU_ASSERT_TRUE_FATAL(parses(spec_text, &spec));
    char first[] = "/tmp/clause-schedule-XXXXXX", second[] = "/tmp/clause-schedule-XXXXXX",
         replayed[] = "/tmp/clause-schedule-XXXXXX";
    int fds[3] = {mkstemp(first), mkstemp(second), mkstemp(replayed)};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_TRUE_FATAL(fds[i] >= 0);
        close(fds[i]);
    }
    static const unsigned worker_counts[] = {1, 2, 4};
    for (const struct policy_ops *const *p = test_policies(); *p; p++) {
        for (size_t k = 0; k < sizeof worker_counts / sizeof worker_counts[0]; k++) {
            unsigned workers = worker_counts[k];
            CU_ASSERT_EQUAL(run_scheduled(name, args, *p, workers, &spec, first, NULL), 0);
            CU_ASSERT_EQUAL(run_scheduled(name, args, *p, workers, &spec, second, NULL), 0);
            CU_ASSERT_EQUAL(run_scheduled(name, args, *p, workers, &spec, replayed, first), 0);
            char *a = read_all(first), *b = read_all(second), *c = read_all(replayed);
            CU_ASSERT_TRUE_FATAL(a && b && c);
            bool same = strcmp(a, b) == 0 && strcmp(steps_of(a), steps_of(c)) == 0;
            if (!same)
                fprintf(stderr, "\n%s under %s, %s, %u workers: the steps differ\n", name, spec_text, (*p)->name,
                        workers);
            CU_ASSERT_TRUE(same);
            free(a);
            free(b);
            free(c);
        }
    }
    unlink(first);
    unlink(second);
    unlink(replayed);
}

static void test_pingpong_random(void)
{
    same_steps_twice_and_replayed("pingpong", (char *[]){"3", "40"}, "random:seed=5");
}
static void test_ring_pct(void)
{
    same_steps_twice_and_replayed("ring", (char *[]){"6", "60"}, "pct:seed=9,depth=3,steps=200");
}
static void test_spawn_exit_random(void)
{
    same_steps_twice_and_replayed("spawn_exit", (char *[]){"100"}, "random:seed=77");
}

/* A log of another run diverges: the replay stops and says so. */
static void test_replay_diverges(void)
{
    struct schedule_spec spec;
    CU_ASSERT_TRUE_FATAL(parses("random:seed=3", &spec));
    char log[] = "/tmp/clause-schedule-XXXXXX";
    int fd = mkstemp(log);
    CU_ASSERT_TRUE_FATAL(fd >= 0);
    close(fd);
    const struct policy_ops *erts = policy_find("erts");
    CU_ASSERT_EQUAL(run_scheduled("pingpong", (char *[]){"3", "40"}, erts, 2, &spec, log, NULL), 0);
    CU_ASSERT_EQUAL(run_scheduled("ring", (char *[]){"6", "60"}, erts, 2, &spec, NULL, log), EXIT_REPLAY_DIVERGED);
    unlink(log);
}

static CU_TestInfo tests[] = {
    {"--schedule's values", test_spec_parse},
    {"malformed values are refused with one line", test_spec_refused},
    {"splitmix64 gives its published outputs; below(n) is uniform", test_random_splitmix64},
    {"pct's priorities are a permutation above the change points'", test_pct_priorities_and_change_points},
    {"pct runs the highest awake worker and lowers it at change points", test_pct_choose},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(schedule, tests)

static CU_TestInfo concurrent_tests[] = {
    {"pingpong under random takes the same steps twice and replays", test_pingpong_random},
    {"ring under pct takes the same steps twice and replays", test_ring_pct},
    {"spawn_exit under random takes the same steps twice and replays", test_spawn_exit_random},
    {"replaying another run's log diverges with its status", test_replay_diverges},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(schedule_runs, concurrent_tests)
