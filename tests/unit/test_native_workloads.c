/*
 * test_native_workloads.c — the benchmark workloads give their checked
 * results under every policy, send mode and worker count, and a workload
 * whose last send blocks still ends (blocking sends are repeated after the
 * target's slice, so a body must resume where it stood).
 */
#include "test_main.h"

#include "app/native_workloads.h"
#include "rt/executor.h"
#include "rt/policy.h"
#include "term/atom.h"
#include "term/strbuf.h"

#include <stdio.h>

/* Runs workload NAME with ARGS; true when it ended with status 0 and its
 * own check of the result passed. */
static bool run_workload(const char *name, char **args, const struct policy_ops *policy, unsigned workers,
                         enum send_mode mode)
{
    const struct native_workload *workload = native_workload_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(workload);
    struct sched *s = test_sched_new(policy, workers, mode, TIMER_THREAD);
    struct strbuf text = STRBUF_INIT;
    term main_pid;
    void *ctx = NULL;
    CU_ASSERT_TRUE_FATAL(workload->start(s, args, &main_pid, &ctx, &text));
    int status = sched_run(s, main_pid);
    bool correct = workload->finish(ctx, &text);
    if (status != 0 || !correct)
        fprintf(stderr, "\n%s (%s, %u workers, %s sends): status %d, %s\n", name, policy->name, workers,
                mode == SEND_MODE_BLOCKING ? "blocking" : "arrivals", status, strbuf_cstr(&text));
    sched_destroy(s);
    workload->free_ctx(ctx);
    strbuf_free(&text);
    return status == 0 && correct;
}

static const char *const policy_names[] = {"erts", "global_fifo"};
static const unsigned worker_counts[] = {1, 2, 4};
static const enum send_mode send_modes[] = {SEND_MODE_ARRIVALS, SEND_MODE_BLOCKING};

static void run_everywhere(const char *name, char **args)
{
    for (size_t p = 0; p < sizeof policy_names / sizeof policy_names[0]; p++)
        for (size_t w = 0; w < sizeof worker_counts / sizeof worker_counts[0]; w++)
            for (size_t m = 0; m < sizeof send_modes / sizeof send_modes[0]; m++)
                CU_ASSERT_TRUE(run_workload(name, args, policy_find(policy_names[p]), worker_counts[w], send_modes[m]));
}

static void test_spawn_exit(void) { run_everywhere("spawn_exit", (char *[]){"2000"}); }
static void test_yield_storm(void) { run_everywhere("yield_storm", (char *[]){"50", "200"}); }
static void test_pingpong(void) { run_everywhere("pingpong", (char *[]){"20", "300"}); }
static void test_ring(void) { run_everywhere("ring", (char *[]){"100", "2000"}); }
static void test_many_to_one(void) { run_everywhere("many_to_one", (char *[]){"20", "200"}); }

/* Two workers, blocking sends, many short games: somewhere a player's last
 * reply finds its partner running and blocks. A body that resumed past its
 * end check would wait forever (the test's time limit fails it). */
static void test_players_whose_last_reply_blocks_still_end(void)
{
    for (int round = 0; round < 300; round++)
        CU_ASSERT_TRUE(run_workload("pingpong", (char *[]){"8", "40"}, policy_find("erts"), 2, SEND_MODE_BLOCKING));
}

static CU_TestInfo tests[] = {
    {"spawn_exit", test_spawn_exit},
    {"yield_storm", test_yield_storm},
    {"pingpong", test_pingpong},
    {"ring", test_ring},
    {"many_to_one", test_many_to_one},
    {"players whose last reply blocks still end", test_players_whose_last_reply_blocks_still_end},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(native_workloads, tests)
