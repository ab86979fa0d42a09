/*
 * main.c — the `clause` command: parse options, set up CPU binding and the
 * executor, run the program, report, and exit with the program's status.
 */
#include "../experiments/native_workloads.h"
#include "../metrics/metrics.h"
#include "cpu_binding.h"
#include "executor.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    struct clause_options options;
    char error[256];
    if (!options_parse(argc, argv, &options, error, sizeof error)) {
        fprintf(stderr, "clause: %s\n%s", error, options_usage());
        return EXIT_USAGE;
    }
    if (options.help) {
        fputs(options_usage(), stdout);
        return 0;
    }
    if (options.list_policies) {
        for (const struct policy_ops *const *p = policy_all(); *p; p++)
            printf("%-12s %s\n", (*p)->name, (*p)->summary);
        return 0;
    }
    const struct native_workload *workload = native_workload_find(options.native_workload);
    if (!workload) {
        fprintf(stderr, "clause: --native: unknown workload '%s'\n%s", options.native_workload, options_usage());
        return EXIT_USAGE;
    }
    if (options.program_argc != workload->arg_count) {
        fprintf(stderr, "clause: --native %s takes %s\n", workload->name, workload->args);
        return EXIT_USAGE;
    }

    struct cpu_binding *binding = NULL;
    enum cpu_binding_status bound = cpu_binding_create(&binding, options.scheduler_cpus, error, sizeof error);
    if (bound != CPU_BINDING_OK) {
        fprintf(stderr, "clause: %s\n", error);
        return bound == CPU_BINDING_MALFORMED ? EXIT_USAGE : EXIT_RUNTIME_FAILURE;
    }
    unsigned workers = options.schedulers ? options.schedulers : cpu_binding_default_workers(binding);
    struct sched_config config = {workers,
                                  options.policy,
                                  cpu_binding_is_bound(binding) ? binding : NULL,
                                  options.max_heap_words,
                                  options.blocking_sends ? SEND_MODE_BLOCKING : SEND_MODE_ARRIVALS,
                                  options.worker_timers ? TIMER_WORKERS : TIMER_THREAD};
    const char *why = NULL;
    struct sched *s = sched_create(&config, &why);
    if (!s) {
        fprintf(stderr, "clause: %s\n", why);
        cpu_binding_destroy(binding);
        return EXIT_RUNTIME_FAILURE;
    }

    struct strbuf text = STRBUF_INIT;
    term main_pid;
    void *ctx = NULL;
    if (!workload->start(s, options.program_argv, &main_pid, &ctx, &text)) {
        fprintf(stderr, "clause: --native %s: %s\n", workload->name, strbuf_cstr(&text));
        strbuf_free(&text);
        sched_destroy(s);
        cpu_binding_destroy(binding);
        return EXIT_USAGE;
    }
    double started = now_ms();
    int status = sched_run(s, main_pid);
    double elapsed = now_ms() - started;
    bool correct = workload->finish(ctx, &text);
    printf("%s time_ms=%.3f\n", strbuf_cstr(&text), elapsed);
    fflush(stdout);
    if (options.profile) {
        strbuf_clear(&text);
        strbuf_printf(&text, "clause profile: policy %s, %s sends, timers in %s, %u workers\n", options.policy->name,
                      options.blocking_sends ? "blocking" : "arrivals", options.worker_timers ? "workers" : "a thread",
                      workers);
        metrics_report(&text, sched_metrics(s), workers);
        uint64_t readings, fired;
        sched_timer_counts(s, &readings, &fired);
        strbuf_printf(&text, "timer thread: %llu clock readings, %llu timeouts fired; %llu builtins blocked\n",
                      (unsigned long long)readings, (unsigned long long)fired,
                      (unsigned long long)sched_blocked_builtins(s));
        fputs(strbuf_cstr(&text), stderr);
    }
    strbuf_free(&text);
    sched_destroy(s);
    workload->free_ctx(ctx);
    cpu_binding_destroy(binding);
    if (status == 0 && !correct) {
        fprintf(stderr, "clause: --native %s: wrong result\n", workload->name);
        return EXIT_RUNTIME_FAILURE;
    }
    return status;
}
