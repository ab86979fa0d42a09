/* The clause command line: every option, and a clear error for bad ones. */
#include "app/options.h"
#include "rt/policy.h"
#include "test_main.h"

#include <string.h>

static bool parse(struct clause_options *o, char *error, int argc, char **argv)
{
    return options_parse(argc, argv, o, error, 256);
}

#define ARGV(...) ((char *[]){"clause", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"clause", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, e, ...) parse(o, e, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void test_defaults_and_program_arguments(void)
{
    struct clause_options o;
    char e[256];
    char *argv[] = {"clause", "--native", "pingpong", "3", "10", NULL};
    CU_ASSERT_TRUE_FATAL(parse(&o, e, 5, argv));
    CU_ASSERT_EQUAL(o.schedulers, 0);
    CU_ASSERT_PTR_EQUAL(o.policy, policy_find("erts"));
    CU_ASSERT_PTR_NULL(o.scheduler_cpus);
    CU_ASSERT_FALSE(o.profile);
    CU_ASSERT_PTR_NULL(o.profile_json);
    CU_ASSERT_STRING_EQUAL(o.native_workload, "pingpong");
    CU_ASSERT_EQUAL(o.program_argc, 2);
    CU_ASSERT_STRING_EQUAL(o.program_argv[1], "10");
}

static void test_every_option(void)
{
    struct clause_options o;
    char e[256];
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--schedulers", "1024", "--policy", "global_fifo", "--scheduler-cpus", "0-1",
                               "--max-heap", "2M", "--send-mode", "blocking", "--timers", "workers", "--profile",
                               "--native", "spawn_exit", "5"));
    CU_ASSERT_TRUE(o.blocking_sends);
    CU_ASSERT_TRUE(o.worker_timers);
    CU_ASSERT_EQUAL(o.schedulers, 1024);
    CU_ASSERT_PTR_EQUAL(o.policy, policy_find("global_fifo"));
    CU_ASSERT_STRING_EQUAL(o.scheduler_cpus, "0-1");
    CU_ASSERT_EQUAL(o.max_heap_words, (2u << 20) / 8);
    CU_ASSERT_TRUE(o.profile);
    /* Options after the program belong to it. */
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--native", "spawn_exit", "--profile"));
    CU_ASSERT_FALSE(o.profile);
    CU_ASSERT_EQUAL(o.program_argc, 1);
    CU_ASSERT_TRUE(PARSE(&o, e, "--policy", "help"));
    CU_ASSERT_TRUE(o.list_policies);
    CU_ASSERT_TRUE(PARSE(&o, e, "--help"));
    CU_ASSERT_TRUE(o.help);
}

static void test_errors_say_what_is_wrong(void)
{
    struct clause_options o;
    char e[256];
    CU_ASSERT_FALSE(PARSE(&o, e, "--schedulers", "0", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "1 to 1024"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--schedulers", "1025", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "'1025'"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--schedulers", "-1", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--schedulers", "2x", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--schedulers"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "needs a value"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--policy", "lottery", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "unknown policy 'lottery'"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--frobnicate", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "unknown option '--frobnicate'"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--max-heap", "12Q", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--max-heap", "99999999999999999999G", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--send-mode", "lazy", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "'lazy' is not arrivals or blocking"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--timers", "sundial", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "'sundial' is not thread or workers"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--profile"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "no program"));
    CU_ASSERT_FALSE(PARSE(&o, e, "-pa"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "-pa needs a folder"));
}

/* A .beam program: options before it, its arguments after (even ones that
 * look like options), -pa folders in order. */
static void test_a_beam_program_and_its_arguments(void)
{
    struct clause_options o;
    char e[256];
    /* A named argv: the parse result points into it. */
    char *argv[] = {"clause", "-pa", "lib1", "--schedulers", "2", "-pa", "lib2", "prog.beam", "a", "--policy", NULL};
    CU_ASSERT_TRUE(parse(&o, e, 10, argv));
    CU_ASSERT_STRING_EQUAL(o.program, "prog.beam");
    CU_ASSERT_PTR_NULL(o.native_workload);
    CU_ASSERT_EQUAL(o.code_path_count, 2);
    CU_ASSERT_STRING_EQUAL(o.code_paths[0], "lib1");
    CU_ASSERT_STRING_EQUAL(o.code_paths[1], "lib2");
    CU_ASSERT_EQUAL(o.program_argc, 2);
    CU_ASSERT_STRING_EQUAL(o.program_argv[0], "a");
    CU_ASSERT_STRING_EQUAL(o.program_argv[1], "--policy");
    CU_ASSERT_TRUE(PARSE(&o, e, "--version"));
    CU_ASSERT_TRUE(o.version);
}

/* --profile, --profile=FILE.json (together or alone) and the PAPI events. */
static void test_profile_options(void)
{
    struct clause_options o;
    char e[256];
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--profile=out.json", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(o.profile);
    CU_ASSERT_STRING_EQUAL(o.profile_json, "out.json");
    CU_ASSERT_PTR_NULL(o.profile_events);
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--profile", "--profile=a.json", "--profile-events=PAPI_TOT_CYC,perf::TASK-CLOCK",
                               "--native", "spawn_exit", "1"));
    CU_ASSERT_TRUE(o.profile);
    CU_ASSERT_STRING_EQUAL(o.profile_json, "a.json");
    CU_ASSERT_STRING_EQUAL(o.profile_events, "PAPI_TOT_CYC,perf::TASK-CLOCK");
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--profile-events=none", "--native", "spawn_exit", "1"));
    CU_ASSERT_STRING_EQUAL(o.profile_events, "");
    CU_ASSERT_FALSE(PARSE(&o, e, "--profile=", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "--profile= needs a file name"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--profile-events=", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "--profile-events= needs event names"));
    CU_ASSERT_EQUAL(o.profile_sample, 0);
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--profile", "--profile-sample=1", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.profile_sample, 1);
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--profile-sample=64", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.profile_sample, 64);
    char *bad[] = {"--profile-sample=", "--profile-sample=0", "--profile-sample=-3", "--profile-sample=2x",
                   "--profile-sample=1000001"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_FALSE(PARSE(&o, e, bad[i], "--native", "spawn_exit", "1"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e, "--profile-sample: "));
    }
}

/* --trace=FILE, --trace-limit=N and --trace-sample=N; bad values are
 * one-line errors. */
static void test_trace_options(void)
{
    struct clause_options o;
    char e[256];
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NULL(o.trace_json);
    CU_ASSERT_EQUAL(o.trace_limit, 0);
    CU_ASSERT_EQUAL(o.trace_sample, 0);
    CU_ASSERT_TRUE_FATAL(
        PARSE(&o, e, "--trace=t.json", "--trace-limit=5", "--trace-sample=7", "--native", "spawn_exit", "1"));
    CU_ASSERT_STRING_EQUAL(o.trace_json, "t.json");
    CU_ASSERT_EQUAL(o.trace_limit, 5);
    CU_ASSERT_EQUAL(o.trace_sample, 7);
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--trace-limit=100000000", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.trace_limit, 100000000);
    CU_ASSERT_FALSE(PARSE(&o, e, "--trace=", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "--trace= needs a file name"));
    char *bad[] = {"--trace-limit=", "--trace-limit=0", "--trace-limit=-1", "--trace-limit=1k",
                   "--trace-limit=100000001"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_FALSE(PARSE(&o, e, bad[i], "--native", "spawn_exit", "1"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e, "--trace-limit: "));
        CU_ASSERT_PTR_NULL(strchr(e, '\n'));
    }
    char *bad_samples[] = {"--trace-sample=", "--trace-sample=0", "--trace-sample=1000001", "--trace-sample=x"};
    for (size_t i = 0; i < sizeof bad_samples / sizeof bad_samples[0]; i++) {
        CU_ASSERT_FALSE(PARSE(&o, e, bad_samples[i], "--native", "spawn_exit", "1"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e, "--trace-sample: "));
        CU_ASSERT_PTR_NULL(strchr(e, '\n'));
    }
}

/* --locks: every kind by name, the default, help, and an unknown kind. */
static void test_lock_kinds(void)
{
    struct clause_options o;
    char e[256];
    CU_ASSERT_TRUE(PARSE(&o, e, "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.locks, LOCK_SPIN_FUTEX);
    for (unsigned k = 0; k < LOCK_KIND_COUNT; k++) {
        char *name = (char *)lock_kind_name((enum lock_kind)k);
        CU_ASSERT_TRUE(PARSE(&o, e, "--locks", name, "--native", "spawn_exit", "1"));
        CU_ASSERT_EQUAL(o.locks, (enum lock_kind)k);
    }
    CU_ASSERT_TRUE(PARSE(&o, e, "--locks", "mcs", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.locks, LOCK_MCS);
    CU_ASSERT_TRUE(PARSE(&o, e, "--locks", "help"));
    CU_ASSERT_TRUE(o.list_locks);
    CU_ASSERT_FALSE(PARSE(&o, e, "--locks", "futex", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "unknown lock kind 'futex'"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--locks"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "--locks needs a value"));
}

/* The index of a policy's parameter called name. */
static unsigned param_index(const struct policy_ops *ops, const char *name)
{
    for (unsigned i = 0; i < ops->param_count; i++)
        if (strcmp(ops->params[i].name, name) == 0)
            return i;
    CU_FAIL_FATAL("no such parameter");
    return 0;
}

static void test_policy_parameters(void)
{
    struct clause_options o;
    char e[256];
    const struct policy_ops *erts = policy_find("erts");
    unsigned every = param_index(erts, "balance_every"), steal = param_index(erts, "steal");
    /* Without parameters: every default, the seed's rules. */
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--policy", "erts", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.policy_params[every], 4);
    CU_ASSERT_STRING_EQUAL(erts->params[steal].choices[o.policy_params[steal]], "longest");
    /* The keys given, in any order; the others keep their defaults. */
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--policy", "erts:steal=none,balance_every=2000", "--native", "spawn_exit", "1"));
    CU_ASSERT_PTR_EQUAL(o.policy, erts);
    CU_ASSERT_EQUAL(o.policy_params[every], 2000);
    CU_ASSERT_STRING_EQUAL(erts->params[steal].choices[o.policy_params[steal]], "none");
    CU_ASSERT_TRUE(PARSE(&o, e, "--policy", "erts:balance_every=0", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.policy_params[every], 0);
    /* Back to the defaults when a later --policy gives none. */
    CU_ASSERT_TRUE(PARSE(&o, e, "--policy", "erts:balance_every=9", "--policy", "erts", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.policy_params[every], 4);
    char formatted[128];
    policy_format_params(erts, o.policy_params, formatted, sizeof formatted);
    CU_ASSERT_STRING_EQUAL(formatted, "balance_every=4,steal=longest,wake=lazy");

    /* Each error is one line naming the policy, the key and what is allowed. */
    static const struct {
        const char *spec, *message;
    } errors[] = {
        {"erts:speed=3", "--policy erts: unknown parameter 'speed' (it takes balance_every, steal, wake)"},
        {"erts:balance_every=x", "--policy erts: balance_every must be an integer from 0 to 1000000000, not 'x'"},
        {"erts:balance_every=-1", "--policy erts: balance_every must be an integer from 0 to 1000000000, not '-1'"},
        {"erts:balance_every=1000000001",
         "--policy erts: balance_every must be an integer from 0 to 1000000000, not '1000000001'"},
        {"erts:balance_every=", "--policy erts: balance_every must be an integer from 0 to 1000000000, not ''"},
        {"erts:balance_every", "--policy erts: balance_every must be an integer from 0 to 1000000000, not ''"},
        {"erts:steal=most", "--policy erts: steal must be one of longest, none, not 'most'"},
        {"erts:", "--policy erts: no parameter after ':' (--policy help lists them)"},
        {"erts:steal=none,", "--policy erts: unknown parameter '' (it takes balance_every, steal, wake)"},
        {"global_fifo:k=1", "--policy global_fifo: unknown parameter 'k' (it takes none)"},
        {"lottery:k=1", "--policy: unknown policy 'lottery' (--policy help lists them)"},
    };
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        CU_ASSERT_FALSE(PARSE(&o, e, "--policy", (char *)errors[i].spec, "--native", "spawn_exit", "1"));
        CU_ASSERT_STRING_EQUAL(e, errors[i].message);
        CU_ASSERT_PTR_NULL(strchr(e, '\n'));
    }
    /* Every registered policy's defaults lie in their ranges. */
    for (const struct policy_ops *const *p = policy_all(); *p; p++) {
        CU_ASSERT_TRUE((*p)->param_count <= POLICY_MAX_PARAMS);
        for (unsigned i = 0; i < (*p)->param_count; i++) {
            const struct policy_param *param = &(*p)->params[i];
            CU_ASSERT_PTR_NOT_NULL(param->doc);
            if (param->type == POLICY_PARAM_INT) {
                CU_ASSERT_TRUE(param->min <= param->def && param->def <= param->max);
            } else {
                CU_ASSERT_PTR_NOT_NULL(param->choices[param->def]);
            }
        }
    }
}

static void test_busy_wait_option(void)
{
    struct clause_options o;
    char e[256];
    CU_ASSERT_TRUE(PARSE(&o, e, "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.busy_wait, 0);
    CU_ASSERT_TRUE(PARSE(&o, e, "--busy-wait", "10000", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.busy_wait, 10000);
    CU_ASSERT_FALSE(PARSE(&o, e, "--busy-wait", "lots", "--native", "spawn_exit", "1"));
    CU_ASSERT_STRING_EQUAL(e, "--busy-wait: 'lots' is not a number from 0 to 100000000");
    CU_ASSERT_FALSE(PARSE(&o, e, "--busy-wait", "100000001", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--busy-wait"));
}

static void test_watchdog_option(void)
{
    struct clause_options o;
    char e[256];
    CU_ASSERT_TRUE(PARSE(&o, e, "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.watchdog_ms, 30000);
    CU_ASSERT_TRUE(PARSE(&o, e, "--watchdog", "0", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.watchdog_ms, 0);
    CU_ASSERT_TRUE(PARSE(&o, e, "--watchdog", "200", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.watchdog_ms, 200);
    CU_ASSERT_FALSE(PARSE(&o, e, "--watchdog", "x", "--native", "spawn_exit", "1"));
    CU_ASSERT_STRING_EQUAL(e, "--watchdog: 'x' is not a number of milliseconds from 0 to 86400000");
    CU_ASSERT_PTR_NULL(strchr(e, '\n'));
    CU_ASSERT_FALSE(PARSE(&o, e, "--watchdog", "-1", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--watchdog", "86400001", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--watchdog"));
    CU_ASSERT_STRING_EQUAL(e, "--watchdog: '' is not a number of milliseconds from 0 to 86400000");
    CU_ASSERT_PTR_NOT_NULL(strstr(options_usage(), "--watchdog MS"));
}

static void test_gc_threads_option(void)
{
    struct clause_options o;
    char e[256];
    CU_ASSERT_TRUE(PARSE(&o, e, "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.gc_threads, -1); /* the default: one per worker, chosen once the workers are known */
    CU_ASSERT_TRUE(PARSE(&o, e, "--gc-threads", "0", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.gc_threads, 0);
    CU_ASSERT_TRUE(PARSE(&o, e, "--gc-threads", "3", "--native", "spawn_exit", "1"));
    CU_ASSERT_EQUAL(o.gc_threads, 3);
    CU_ASSERT_TRUE(PARSE(&o, e, "--gc-threads", "1024", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--gc-threads", "1025", "--native", "spawn_exit", "1"));
    CU_ASSERT_STRING_EQUAL(e, "--gc-threads: '1025' is not a number from 0 to 1024");
    CU_ASSERT_FALSE(PARSE(&o, e, "--gc-threads", "-1", "--native", "spawn_exit", "1"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--gc-threads"));
    CU_ASSERT_STRING_EQUAL(e, "--gc-threads: '' is not a number from 0 to 1024");
    CU_ASSERT_PTR_NOT_NULL(strstr(options_usage(), "--gc-threads N"));
}

static void test_schedule_options(void)
{
    struct clause_options o;
    char e[256];
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "p.beam"));
    CU_ASSERT_EQUAL(o.schedule.mode, SCHEDULE_OFF);
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--schedule", "pct:seed=3,depth=2", "--schedule-log", "l", "p.beam"));
    CU_ASSERT_EQUAL(o.schedule.mode, SCHEDULE_PCT);
    CU_ASSERT_STRING_EQUAL(o.schedule_log, "l");
    CU_ASSERT_TRUE_FATAL(PARSE(&o, e, "--replay", "l", "--schedule-log", "m", "p.beam"));
    CU_ASSERT_STRING_EQUAL(o.replay, "l");
    CU_ASSERT_FALSE(PARSE(&o, e, "--schedule", "random:seed=1", "--replay", "l", "p.beam"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "--replay"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--schedule-log", "l", "p.beam"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "needs --schedule"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--schedule", "random:seed=x", "p.beam"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "seed 'x'"));
    CU_ASSERT_FALSE(PARSE(&o, e, "--replay"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "needs a file"));
}

static CU_TestInfo tests[] = {
    {"seeded schedules", test_schedule_options},
    {"lock kinds", test_lock_kinds},
    {"watchdog", test_watchdog_option},
    {"gc-threads", test_gc_threads_option},
    {"policy parameters", test_policy_parameters},
    {"busy wait", test_busy_wait_option},
    {"defaults and program arguments", test_defaults_and_program_arguments},
    {"profile options", test_profile_options},
    {"every option", test_every_option},
    {"errors say what is wrong", test_errors_say_what_is_wrong},
    {"a beam program and its arguments", test_a_beam_program_and_its_arguments},
    {"trace options", test_trace_options},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(options, tests)
