/*
 * cli.c — the `clause` command as a library call, CLAUSE_main_v1
 * (include/clause.h): parse options, set up CPU binding and the executor,
 * run the program (a .beam file's main/1, or a native workload), report,
 * and return the program's status. The executable (cli_main.c) is this one
 * call, so the command and the library cannot drift apart.
 */
#include "build/version.h"
#include "include/clause.h"

#include "app/native_workloads.h"
#include "app/options.h"
#include "beam/code_server.h"
#include "beam/interp.h"
#include "beam/services.h"
#include "bif/bif.h"
#include "metrics/metrics.h"
#include "metrics/profile.h"
#include "rt/cpu_binding.h"
#include "rt/executor.h"
#include "rt/sched_profile.h"
#include "rt/sched_trace.h"
#include "rt/schedule.h"
#include "term/atom.h"
#include "term/heap.h"

#include <errno.h>

#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_LOAD_FAILURE 1

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static bool profiling(const struct clause_options *options) { return options->profile || options->profile_json; }

/* The run's time since `started` (now_ms): on the logical clock under
 * --schedule, so that a seed repeats what a workload prints. */
static double run_ms(const struct schedule *schedule, double started)
{
    return schedule ? (double)schedule_now_ns(schedule, NULL) / 1e6 : now_ms() - started;
}

/* The policy and its parameters' values as one word (policy:k=v,...), as a
 * schedule log's header names it and a replay checks it. */
static void policy_text(const struct clause_options *options, char *out, size_t len)
{
    const struct policy_ops *policy = options->policy;
    size_t used = (size_t)snprintf(out, len, "%s", policy->name);
    for (unsigned i = 0; i < policy->param_count && used < len; i++) {
        char value[64];
        policy_format_value(&policy->params[i], options->policy_params[i], value, sizeof value);
        used += (size_t)snprintf(out + used, len - used, "%c%s=%s", i ? ',' : ':', policy->params[i].name, value);
    }
}

/* The run's settings as the erl flags that say the same, where there are
 * such: +sbwt none when idle workers sleep at once, medium (ERTS's
 * default) for 10,000 looks; other counts have no flag. */
static void otp_flags(const struct clause_options *options, const struct cpu_binding *binding, unsigned workers,
                      struct strbuf *out)
{
    strbuf_printf(out, "+S %u:%u", workers, workers);
    if (options->busy_wait == 0)
        strbuf_puts(out, " +sbwt none");
    else if (options->busy_wait == 10000)
        strbuf_puts(out, " +sbwt medium");
    if (!cpu_binding_is_bound(binding))
        strbuf_puts(out, " +sbt u");
    if (options->max_heap_words)
        strbuf_printf(out, " +hmax %zu +hmaxk true", options->max_heap_words);
}

/* The --profile report, on stderr and/or as JSON, after sched_run. */
static void write_profile(const struct clause_options *options, struct sched *s, const struct cpu_binding *binding,
                          const char *program, int status, double wall_ms)
{
    struct profile p = {0};
    struct strbuf binding_text = STRBUF_INIT, flags = STRBUF_INIT, text = STRBUF_INIT;
    sched_profile_collect(s, &p);
    cpu_binding_describe(binding, &binding_text);
    otp_flags(options, binding, p.workers, &flags);
    p.version = "clause " CLAUSE_VERSION " (" CLAUSE_GIT_DESCRIBE ")";
    p.policy = options->policy->name;
    for (unsigned i = 0; i < options->policy->param_count && i < sizeof p.policy_params / sizeof p.policy_params[0];
         i++) {
        const struct policy_param *param = &options->policy->params[i];
        p.policy_params[i].name = param->name;
        policy_format_value(param, options->policy_params[i], p.policy_params[i].value,
                            sizeof p.policy_params[i].value);
        p.policy_params[i].number = param->type == POLICY_PARAM_INT;
        p.policy_param_count = i + 1;
    }
    p.busy_wait = options->busy_wait;
    p.watchdog_ms = options->watchdog_ms;
    p.send_mode = options->blocking_sends ? "blocking" : "arrivals";
    char schedule[160];
    if (options->replay) {
        snprintf(schedule, sizeof schedule, "replay:%s", options->replay);
        p.schedule = schedule;
    } else if (options->schedule.mode != SCHEDULE_OFF) {
        schedule_spec_format(&options->schedule, schedule, sizeof schedule);
        p.schedule = schedule;
    }
    p.timer_mode = p.schedule ? "logical" : options->worker_timers ? "workers" : "thread";
    p.locks = lock_kind_name(options->locks);
    p.binding = strbuf_cstr(&binding_text);
    p.otp_options = strbuf_cstr(&flags);
    p.program = program;
    p.exit_status = status;
    p.wall_ms = wall_ms;
    profile_topology_load(&p.topology);
    if (options->profile) {
        profile_write_text(&p, &text);
        fputs(strbuf_cstr(&text), stderr);
    }
    if (options->profile_json) {
        strbuf_clear(&text);
        profile_write_json(&p, &text);
        FILE *f = fopen(options->profile_json, "w");
        if (!f || fputs(strbuf_cstr(&text), f) < 0 || fclose(f) != 0)
            fprintf(stderr, "clause: --profile=%s: %s\n", options->profile_json, strerror(errno));
    }
    strbuf_free(&text);
    strbuf_free(&flags);
    strbuf_free(&binding_text);
}

/* The --trace file, after sched_run. */
static void write_trace(const struct clause_options *options, struct sched *s, const char *program)
{
    if (!options->trace_json)
        return;
    struct strbuf text = STRBUF_INIT;
    sched_trace_write_json(s, program, &text);
    FILE *f = fopen(options->trace_json, "w");
    if (!f || fputs(strbuf_cstr(&text), f) < 0 || fclose(f) != 0)
        fprintf(stderr, "clause: --trace=%s: %s\n", options->trace_json, strerror(errno));
    strbuf_free(&text);
}

/* Runs a native workload on s; the process status. */
static int run_native(const struct clause_options *options, const struct native_workload *workload, struct sched *s,
                      const struct cpu_binding *binding, const struct schedule *schedule)
{
    struct strbuf text = STRBUF_INIT;
    term main_pid;
    void *ctx = NULL;
    if (!workload->start(s, options->program_argv, &main_pid, &ctx, &text)) {
        fprintf(stderr, "clause: --native %s: %s\n", workload->name, strbuf_cstr(&text));
        strbuf_free(&text);
        return EXIT_USAGE;
    }
    double started = now_ms();
    int status = sched_run(s, main_pid);
    double elapsed = run_ms(schedule, started);
    bool correct = workload->finish(ctx, &text);
    printf("%s time_ms=%.3f\n", strbuf_cstr(&text), elapsed);
    fflush(stdout);
    char program[128];
    snprintf(program, sizeof program, "--native %s", workload->name);
    if (profiling(options))
        write_profile(options, s, binding, program, status, elapsed);
    write_trace(options, s, program);
    strbuf_free(&text);
    workload->free_ctx(ctx);
    if (status == 0 && !correct) {
        fprintf(stderr, "clause: --native %s: wrong result\n", workload->name);
        return EXIT_RUNTIME_FAILURE;
    }
    return status;
}

/* The code server for a program: its own folder first, then -pa folders. */
static struct code_server *program_code_server(const struct clause_options *options)
{
    const char *paths[OPTIONS_MAX_CODE_PATHS + 1];
    char *copy = strdup(options->program);
    if (!copy)
        return NULL;
    paths[0] = dirname(copy);
    for (int i = 0; i < options->code_path_count; i++)
        paths[1 + i] = options->code_paths[i];
    struct code_server *cs = code_server_new(paths, 1 + (size_t)options->code_path_count, NULL);
    free(copy);
    return cs;
}

/* Runs PROGRAM:main(Args) on s and destroys s; the program's status. */
static int run_beam(const struct clause_options *options, struct sched *s, const struct cpu_binding *binding,
                    const struct schedule *schedule)
{
    beam_engine_init();
    struct code_server *cs = program_code_server(options);
    if (!cs) {
        fprintf(stderr, "clause: out of memory\n");
        sched_destroy(s);
        return EXIT_RUNTIME_FAILURE;
    }
    char error[512];
    struct beam_module *program = code_load_file(cs, options->program, error, sizeof error);
    if (!program) {
        fprintf(stderr, "clause: %s\n", error);
        sched_destroy(s);
        code_server_free(cs);
        return EXIT_LOAD_FAILURE;
    }
    /* A program without main/1 would end in undef before doing anything:
     * escript names the function in its first line, and so does clause. */
    term main_atom = atom_intern_cstr("main");
    struct beam_export *entry = code_export(cs, program->name, main_atom, 1);
    if (entry && !code_export_entry(entry)) {
        size_t len;
        const char *module = atom_text(program->name, &len);
        fprintf(stderr, "clause: exception error: undefined function %.*s:main/1\n", (int)len, module);
        sched_destroy(s);
        code_server_free(cs);
        return BEAM_UNCAUGHT_STATUS;
    }
    /* Args: a list of strings, built on a scratch heap and copied. */
    heap_t scratch;
    term args = NIL;
    if (!heap_init(&scratch, 0, 0)) {
        sched_destroy(s);
        code_server_free(cs);
        return EXIT_RUNTIME_FAILURE;
    }
    for (int i = options->program_argc; i-- > 0 && is_value(args);) {
        const char *text = options->program_argv[i];
        term *chars = malloc((strlen(text) + 1) * sizeof *chars);
        term arg = chars ? heap_list_from_array(&scratch, chars, heap_os_chars(text, chars)) : THE_NON_VALUE;
        free(chars);
        args = is_value(arg) ? heap_cons(&scratch, arg, args) : arg;
    }
    sched_set_engine(s, cs);
    /* The services (file_server_2, user, standard_error, the kernel's
     * logger), started when first asked for. */
    if (!beam_services_install(s) || !bif_io_servers_install(s) || !bif_kernel_install(s))
        args = THE_NON_VALUE; /* memory refused: reported below */
    term main_pid = is_value(args) ? beam_spawn(s, NULL, cs, program->name, main_atom, &args, 1) : THE_NON_VALUE;
    heap_destroy(&scratch);
    if (is_non_value(main_pid)) {
        fprintf(stderr, "clause: out of memory starting the program\n");
        sched_destroy(s);
        code_server_free(cs);
        return EXIT_RUNTIME_FAILURE;
    }
    double started = now_ms();
    int status = sched_run(s, main_pid);
    double elapsed = run_ms(schedule, started);
    fflush(stdout);
    if (profiling(options))
        write_profile(options, s, binding, options->program, status, elapsed);
    write_trace(options, s, options->program);
    /* The processes go before the code they ran. */
    sched_destroy(s);
    code_server_free(cs);
    return status;
}

int CLAUSE_main_v1(int argc, char **argv)
{
    struct clause_options options;
    char error[256];
    /* Output into a pipe whose reader ended fails the write (the program's
     * io calls raise terminated, as on OTP) instead of killing the runtime. */
    signal(SIGPIPE, SIG_IGN);
    if (!options_parse(argc, argv, &options, error, sizeof error)) {
        fprintf(stderr, "clause: %s\n%s", error, options_usage());
        return EXIT_USAGE;
    }
    if (options.help) {
        fputs(options_usage(), stdout);
        return 0;
    }
    if (options.version) {
        printf("clause %s (runs .beam files of Erlang/OTP 25)\n", CLAUSE_VERSION);
        return 0;
    }
#ifdef CLAUSE_NO_PROFILE
    if (options.trace_json) {
        fputs("clause: --trace: this build has no profiling instrumentation (CLAUSE_NO_PROFILE)\n", stderr);
        return EXIT_USAGE;
    }
    if (profiling(&options)) {
        fputs("clause: --profile: this build has no profiling instrumentation (CLAUSE_NO_PROFILE)\n", stderr);
        return EXIT_USAGE;
    }
#endif
    if (options.list_locks) {
        for (unsigned k = 0; k < LOCK_KIND_COUNT; k++)
            printf("%-12s %s\n", lock_kind_name((enum lock_kind)k), lock_kind_summary((enum lock_kind)k));
        return 0;
    }
    if (options.list_policies) {
        /* A policy's name starts its line; its parameters follow, indented. */
        for (const struct policy_ops *const *p = policy_all(); *p; p++) {
            printf("%-12s %s\n", (*p)->name, (*p)->summary);
            for (unsigned i = 0; i < (*p)->param_count; i++) {
                const struct policy_param *param = &(*p)->params[i];
                char value[64], allowed[160];
                policy_format_value(param, param->def, value, sizeof value);
                if (param->type == POLICY_PARAM_INT) {
                    snprintf(allowed, sizeof allowed, "%lld..%lld", param->min, param->max);
                } else {
                    size_t used = 0;
                    allowed[0] = '\0';
                    for (size_t c = 0; param->choices[c] && used < sizeof allowed; c++)
                        used += (size_t)snprintf(allowed + used, sizeof allowed - used, "%s%s", c ? "|" : "",
                                                 param->choices[c]);
                }
                char setting[128];
                snprintf(setting, sizeof setting, "%s=%s", param->name, value);
                printf("    %-24s %-20s %s\n", setting, allowed, param->doc);
            }
        }
        return 0;
    }
    const struct native_workload *workload = NULL;
    if (options.native_workload) {
        workload = native_workload_find(options.native_workload);
        if (!workload) {
            fprintf(stderr, "clause: --native: unknown workload '%s'\n%s", options.native_workload, options_usage());
            return EXIT_USAGE;
        }
        if (options.program_argc != workload->arg_count) {
            fprintf(stderr, "clause: --native %s takes %s\n", workload->name, workload->args);
            return EXIT_USAGE;
        }
    }

    struct cpu_binding *binding = NULL;
    enum cpu_binding_status bound = cpu_binding_create(&binding, options.scheduler_cpus, error, sizeof error);
    if (bound != CPU_BINDING_OK) {
        fprintf(stderr, "clause: %s\n", error);
        return bound == CPU_BINDING_MALFORMED ? EXIT_USAGE : EXIT_RUNTIME_FAILURE;
    }
    unsigned workers = options.schedulers ? options.schedulers : cpu_binding_default_workers(binding);
    struct schedule *schedule = NULL;
    if (options.schedule.mode != SCHEDULE_OFF || options.replay) {
        char policy[256];
        policy_text(&options, policy, sizeof policy);
        schedule =
            schedule_new(&options.schedule, workers, policy, options.schedule_log, options.replay, error, sizeof error);
        if (!schedule) {
            fprintf(stderr, "clause: %s\n", error);
            cpu_binding_destroy(binding);
            return EXIT_USAGE;
        }
    }
    struct sched_config config = {workers,
                                  options.policy,
                                  cpu_binding_is_bound(binding) ? binding : NULL,
                                  options.max_heap_words,
                                  options.blocking_sends ? SEND_MODE_BLOCKING : SEND_MODE_ARRIVALS,
                                  options.worker_timers ? TIMER_WORKERS : TIMER_THREAD,
                                  options.locks,
                                  options.policy_params,
                                  options.busy_wait,
                                  options.watchdog_ms,
                                  schedule,
                                  options.gc_threads < 0 ? workers : (unsigned)options.gc_threads,
                                  0};
    const char *why = NULL;
    struct sched *s = sched_create(&config, &why);
    if (!s) {
        fprintf(stderr, "clause: %s\n", why);
        cpu_binding_destroy(binding);
        schedule_free(schedule);
        return EXIT_RUNTIME_FAILURE;
    }
    if (profiling(&options) && !sched_profile_start(s, options.profile_events, options.profile_sample)) {
        fprintf(stderr, "clause: out of memory\n");
        sched_destroy(s);
        cpu_binding_destroy(binding);
        schedule_free(schedule);
        return EXIT_RUNTIME_FAILURE;
    }
    if (options.trace_json && !sched_trace_start(s, options.trace_limit, options.trace_sample)) {
        fprintf(stderr, "clause: out of memory\n");
        sched_destroy(s);
        cpu_binding_destroy(binding);
        schedule_free(schedule);
        return EXIT_RUNTIME_FAILURE;
    }
    int status;
    if (workload) {
        status = run_native(&options, workload, s, binding, schedule);
        sched_destroy(s);
    } else {
        status = run_beam(&options, s, binding, schedule); /* destroys s */
    }
    schedule_free(schedule);
    cpu_binding_destroy(binding);
    return status;
}
