/*
 * test_profile.c — --profile's figures: the histograms against exact
 * percentiles, Jain's index, the counters of workloads whose counts are
 * known (N spawns, K receive timeouts, no steals on one worker, one receive
 * per message), and the PAPI paths: an event this machine cannot count
 * gives one line with PAPI's reason while the run goes on; the events it
 * can count (the runtime's own SDEs at least) give their values.
 */
#include "test_main.h"

#include "app/native_workloads.h"
#include "metrics/histogram.h"
#include "metrics/profile.h"
#include "rt/executor.h"
#include "rt/message.h"
#include "rt/policy.h"
#include "rt/sched_profile.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- histograms ---- */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_buckets_cover_every_value_once(void)
{
    uint64_t samples[] = {0, 1, 31, 32, 63, 64, 65, 1000, 4095, 4096, 123456789, (uint64_t)1 << 40, UINT64_MAX};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        uint64_t v = samples[i];
        unsigned b = histogram_bucket(v);
        CU_ASSERT(b < HIST_BUCKETS);
        uint64_t high = histogram_bucket_high(b);
        CU_ASSERT(high >= v);
        CU_ASSERT_EQUAL(histogram_bucket(high), b);
        if (high != UINT64_MAX)
            CU_ASSERT_EQUAL(histogram_bucket(high + 1), b + 1);
        /* a bucket is at most 1/32 of its values wide */
        CU_ASSERT(high - v <= (v >> HIST_SUB_BITS));
    }
    CU_ASSERT_EQUAL(histogram_bucket(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_percentiles_are_within_a_bucket_of_exact(void)
{
    enum { N = 20000 };
    uint64_t *values = malloc(N * sizeof *values);
    CU_ASSERT_PTR_NOT_NULL_FATAL(values);
    struct histogram *h = malloc(sizeof *h), *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    CU_ASSERT_FATAL(h && a && b);
    histogram_init(h);
    histogram_init(a);
    histogram_init(b);
    srand(7);
    uint64_t sum = 0;
    for (int i = 0; i < N; i++) {
        /* spread over six orders of magnitude, like latencies */
        uint64_t v = (uint64_t)rand() % 1000 * ((uint64_t)1 << (rand() % 20));
        values[i] = v;
        sum += v;
        histogram_record(h, v);
        histogram_record(i % 2 ? a : b, v);
    }
    histogram_merge(a, b);
    qsort(values, N, sizeof *values, compare_u64);
    CU_ASSERT_EQUAL(h->count, N);
    CU_ASSERT_EQUAL(h->min, values[0]);
    CU_ASSERT_EQUAL(h->max, values[N - 1]);
    CU_ASSERT_DOUBLE_EQUAL(histogram_mean(h), (double)sum / N, 1e-6 * (double)sum / N);
    const double ps[] = {50, 90, 99, 99.9, 100};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        size_t rank = (size_t)(ps[i] / 100.0 * N + 0.999999);
        uint64_t exact = values[rank - 1];
        uint64_t got = histogram_percentile(h, ps[i]);
        CU_ASSERT(got >= exact);
        CU_ASSERT(got - exact <= (exact >> HIST_SUB_BITS));
        CU_ASSERT_EQUAL(histogram_percentile(a, ps[i]), got); /* merged halves answer the same */
    }
    CU_ASSERT_EQUAL(histogram_percentile(h, 100), values[N - 1]);
    CU_ASSERT_EQUAL(a->count, h->count);
    CU_ASSERT_EQUAL(memcmp(a->buckets, h->buckets, sizeof h->buckets), 0);
    free(values);
    free(h);
    free(a);
    free(b);
}

static void test_jain_index(void)
{
    double equal[] = {3, 3, 3, 3};
    double one[] = {0, 0, 8, 0};
    double mixed[] = {1, 2, 3};
    CU_ASSERT_DOUBLE_EQUAL(metrics_jain_index(equal, 4), 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(metrics_jain_index(one, 4), 0.25, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(metrics_jain_index(mixed, 3), 36.0 / (3 * 14.0), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(metrics_jain_index(NULL, 0), 1.0, 1e-12);
}

/* ---- sampling ---- */

static void test_sampler_takes_one_in_interval(void)
{
    struct sampler every;
    sampler_init(&every, 1, 3);
    for (int i = 0; i < 1000; i++)
        CU_ASSERT_TRUE(sampler_take(&every));

    enum { N = 16, EVENTS = 160000 };
    struct sampler s;
    sampler_init(&s, N, 12345);
    unsigned taken = 0, gap = 0, longest = 0, per_residue[N] = {0};
    for (int i = 0; i < EVENTS; i++) {
        gap++;
        if (!sampler_take(&s))
            continue;
        taken++;
        per_residue[i % N]++;
        if (gap > longest)
            longest = gap;
        gap = 0;
    }
    /* mean gap N: 10,000 expected, the spread of the count is about 60 */
    CU_ASSERT(taken > EVENTS / N * 95 / 100 && taken < EVENTS / N * 105 / 100);
    CU_ASSERT(longest <= 2 * N - 1);
    /* Events of a period-N workload are all chosen alike: no residue is
     * favoured or missed, as a fixed gap of N would. */
    for (unsigned r = 0; r < N; r++)
        CU_ASSERT(per_residue[r] > taken / N / 2 && per_residue[r] < taken / N * 2);
}

/* ---- counters of known workloads ---- */

struct run {
    struct sched *s;
    struct profile p;
    void *ctx;
    const struct native_workload *workload;
};

/* Runs a native workload with --profile on; the caller checks r->p, then
 * calls run_end. */
static void run_workload_sampled(struct run *r, const char *name, char **args, unsigned workers, const char *events,
                                 unsigned sample_interval)
{
    memset(r, 0, sizeof *r);
    r->workload = native_workload_find(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->workload);
    r->s = test_sched_new(policy_find("erts"), workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
    CU_ASSERT_TRUE_FATAL(sched_profile_start(r->s, events, sample_interval));
    struct strbuf text = STRBUF_INIT;
    term main_pid;
    CU_ASSERT_TRUE_FATAL(r->workload->start(r->s, args, &main_pid, &r->ctx, &text));
    CU_ASSERT_EQUAL(sched_run(r->s, main_pid), 0);
    CU_ASSERT_TRUE(r->workload->finish(r->ctx, &text));
    strbuf_free(&text);
    sched_profile_collect(r->s, &r->p);
}

/* The same, timing every event. */
static void run_workload(struct run *r, const char *name, char **args, unsigned workers, const char *events)
{
    run_workload_sampled(r, name, args, workers, events, 1);
}

static void run_end(struct run *r)
{
    sched_destroy(r->s);
    r->workload->free_ctx(r->ctx);
}

static void test_n_spawns_are_counted(void)
{
    const unsigned workers[] = {1, 2, 4};
    for (size_t i = 0; i < sizeof workers / sizeof workers[0]; i++) {
        struct run r;
        run_workload(&r, "spawn_exit", (char *[]){"1234"}, workers[i], "");
        CU_ASSERT_EQUAL(r.p.total.spawned, 1234);
        CU_ASSERT_EQUAL(r.p.total.exits_normal, 1235); /* and the main process */
        CU_ASSERT_EQUAL(r.p.total.exits_other, 0);
        CU_ASSERT_EQUAL(r.p.total.first_runs, 1235);
        CU_ASSERT(r.p.total.peak_live >= 2 && r.p.total.peak_live <= 1235);
        CU_ASSERT_EQUAL(r.p.live_at_end, 0);
        /* every slice was queued first: one wait recorded per slice */
        CU_ASSERT_EQUAL(r.p.queue_wait.count, r.p.total.slices);
        CU_ASSERT_EQUAL(r.p.total.queue_samples, r.p.total.slices);
        CU_ASSERT_EQUAL(r.p.total.run_samples, r.p.total.slices);
        CU_ASSERT(r.p.total.run_ns > 0 && r.p.total.run_ns <= r.p.total.busy_ns);
        CU_ASSERT_PTR_NULL(r.p.hw);
        run_end(&r);
    }
}

static void test_one_worker_never_steals(void)
{
    struct run r;
    run_workload(&r, "yield_storm", (char *[]){"40", "100"}, 1, "");
    CU_ASSERT_EQUAL(r.p.total.steals, 0);
    CU_ASSERT_EQUAL(r.p.total.stolen_from, 0);
    CU_ASSERT_EQUAL(r.p.total.migrations_in, 0);
    CU_ASSERT_EQUAL(r.p.total.migrations_out, 0);
    CU_ASSERT_EQUAL(r.p.total.balance_taken, 0);
    CU_ASSERT(r.p.total.slices >= 40 * 100);
    CU_ASSERT_DOUBLE_EQUAL(r.p.jain_busy, 1.0, 1e-12);
    run_end(&r);
}

static void test_every_message_is_received_once(void)
{
    struct run r;
    run_workload(&r, "pingpong", (char *[]){"8", "500"}, 2, "");
    uint64_t messages = 8 * 500 * 2 + 2 * 8; /* and each player tells main it is done */
    const struct worker_metrics *t = &r.p.total;
    CU_ASSERT_EQUAL(t->sends_direct + t->sends_arrivals, messages);
    CU_ASSERT_EQUAL(t->sends_dropped + t->sends_self + t->sends_blocked, 0);
    CU_ASSERT_EQUAL(t->receives, messages);
    CU_ASSERT_EQUAL(r.p.delivery.count, messages);
    CU_ASSERT(r.p.delivery.max >= histogram_percentile(&r.p.delivery, 50));
    run_end(&r);
}

static void test_latencies_are_sampled_one_in_n(void)
{
    enum { N = 8 };
    struct run r;
    run_workload_sampled(&r, "pingpong", (char *[]){"8", "2000"}, 2, "", N);
    uint64_t messages = 8 * 2000 * 2 + 2 * 8;
    const struct worker_metrics *t = &r.p.total;
    CU_ASSERT_EQUAL(r.p.sample_interval, N);
    /* the counters still count every event */
    CU_ASSERT_EQUAL(t->receives, messages);
    CU_ASSERT_EQUAL(t->queue_samples, t->slices);
    /* about 1 in N timed (the count's spread is about 1.5% of it here) */
    CU_ASSERT(r.p.delivery.count > messages / N * 8 / 10 && r.p.delivery.count < messages / N * 12 / 10);
    CU_ASSERT(r.p.queue_wait.count > t->slices / N * 8 / 10 && r.p.queue_wait.count < t->slices / N * 12 / 10);
    /* every slice is timed, whatever the sampling */
    CU_ASSERT_EQUAL(t->run_samples, t->slices);
    CU_ASSERT_EQUAL(r.p.slice_total.count, t->slices);
    CU_ASSERT(t->run_ns > 0 && t->run_ns <= t->busy_ns);
    run_end(&r);
}

/* ---- migrations ---- */

enum { MOVERS = 24, MOVER_SLICES = 300 };
#define MOVERS_DEADLINE_NS (10 * 1000000000LL)

/* Counts, from inside the process, the slices that ran on another worker
 * than its previous one: what the migration counters must say. */
struct mover {
    struct movers *all;
    worker_id previous;
    unsigned slices, moves;
};

struct movers {
    struct mover movers[MOVERS], main;
    unsigned spawned;
    int64_t deadline_ns;
    atomic_bool moved; /* some process ran on another worker than before */
    atomic_uint done;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void count_move(struct process *p, struct mover *m)
{
    worker_id now = sched_proc_last_worker(p); /* while it runs: its worker */
    if (m->slices > 0 && now != m->previous) {
        m->moves++;
        atomic_store_explicit(&m->all->moved, true, memory_order_relaxed);
    }
    m->previous = now;
    m->slices++;
}

/* Which worker runs what is the machine's choice: on a loaded machine the
 * second worker may not run for a while, so the movers keep yielding past
 * their share until some process moved (or ten seconds passed). */
static bool movers_may_stop(const struct mover *m)
{
    return m->slices >= MOVER_SLICES &&
           (atomic_load_explicit(&m->all->moved, memory_order_relaxed) || now_ns() > m->all->deadline_ns);
}

static enum body_stop mover_step(struct process *p, void *state)
{
    struct mover *m = state;
    proc_spend(p, 1);
    count_move(p, m);
    /* Until something moved, each slice holds its worker a little, so that
     * the other worker gets the run queue: an unfair lock kind (adaptive)
     * otherwise let one worker take every slice for the whole ten seconds. */
    if (!atomic_load_explicit(&m->all->moved, memory_order_relaxed))
        nanosleep(&(struct timespec){0, 100000}, NULL);
    if (!movers_may_stop(m))
        return BODY_YIELD;
    atomic_fetch_add_explicit(&m->all->done, 1, memory_order_release);
    return BODY_EXIT;
}

/* Spawns the movers, then yields until they all ended (its own slices
 * count too). */
static enum body_stop movers_main(struct process *p, void *state)
{
    struct movers *all = state;
    proc_spend(p, 1);
    count_move(p, &all->main);
    while (all->spawned < MOVERS) {
        all->movers[all->spawned].all = all;
        sched_spawn_native(p->sched, p, mover_step, &all->movers[all->spawned++], NULL);
    }
    return atomic_load_explicit(&all->done, memory_order_acquire) == MOVERS ? BODY_EXIT : BODY_YIELD;
}

static void test_migrations_are_the_slices_that_changed_worker(void)
{
    const char *policies[] = {"erts", "global_fifo"};
    for (size_t i = 0; i < 2; i++) {
        struct sched *s = test_sched_new(policy_find(policies[i]), 2, SEND_MODE_ARRIVALS, TIMER_THREAD);
        CU_ASSERT_TRUE_FATAL(sched_profile_start(s, "", 1));
        struct movers *all = calloc(1, sizeof *all);
        CU_ASSERT_PTR_NOT_NULL_FATAL(all);
        all->deadline_ns = now_ns() + MOVERS_DEADLINE_NS;
        all->main.all = all;
        term pid = sched_spawn_native(s, NULL, movers_main, all, NULL);
        CU_ASSERT_EQUAL(sched_run(s, pid), 0);
        struct profile p = {0};
        sched_profile_collect(s, &p);
        unsigned moves = all->main.moves;
        for (unsigned k = 0; k < MOVERS; k++) {
            CU_ASSERT(all->movers[k].slices >= MOVER_SLICES);
            moves += all->movers[k].moves;
        }
        CU_ASSERT(moves > 0);
        CU_ASSERT_EQUAL(p.total.migrations_in, moves);
        CU_ASSERT_EQUAL(p.total.migrations_out, moves);
        sched_destroy(s);
        free(all);
    }
}

/* ---- K receive timeouts ---- */

struct timeouts {
    int left, timed_out;
};

/* Waits with a 1 ms timeout and nobody to wake it, K times, as K
 * `receive after 1 -> ok end` would. */
static enum body_stop timeout_step(struct process *p, void *state)
{
    struct timeouts *t = state;
    proc_spend(p, 1);
    if (sched_take_timed_out(p)) {
        t->timed_out++;
        proc_receive_restart(p); /* the receive ends with its after clause */
    }
    if (t->left == 0)
        return BODY_EXIT;
    t->left--;
    sched_set_wait_timeout(p, 1);
    return BODY_WAIT;
}

static void test_k_timeouts_fire_k_timers(void)
{
    enum { K = 25 };
    const enum timer_mode modes[] = {TIMER_THREAD, TIMER_WORKERS};
    for (size_t m = 0; m < 2; m++) {
        struct sched *s = test_sched_new(NULL, 2, SEND_MODE_ARRIVALS, modes[m]);
        CU_ASSERT_TRUE_FATAL(sched_profile_start(s, "", 1));
        struct timeouts t = {K, 0};
        term pid = sched_spawn_native(s, NULL, timeout_step, &t, NULL);
        CU_ASSERT_EQUAL(sched_run(s, pid), 0);
        struct profile p = {0};
        sched_profile_collect(s, &p);
        CU_ASSERT_EQUAL(t.timed_out, K);
        CU_ASSERT_EQUAL(p.timers_armed, K);
        CU_ASSERT_EQUAL(p.timers_fired, K);
        CU_ASSERT_EQUAL(p.receive_timeouts_fired, K);
        CU_ASSERT_EQUAL(p.timers_cancelled, 0);
        CU_ASSERT_EQUAL(p.timer_late.count, K);
        CU_ASSERT(p.clock_readings >= 1);
        if (modes[m] == TIMER_THREAD) {
            CU_ASSERT(p.timer_thread_deadline_wakes >= 1 && p.timer_thread_wakes >= p.timer_thread_deadline_wakes);
        } else {
            CU_ASSERT_EQUAL(p.timer_thread_wakes, 0);
        }
        sched_destroy(s);
    }
}

/* ---- PAPI ---- */

static void test_an_uncountable_event_is_one_line_and_the_run_goes_on(void)
{
    struct run r;
    run_workload(&r, "spawn_exit", (char *[]){"100"}, 2, "PAPI_NO_SUCH_EVENT");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.p.hw);
    CU_ASSERT_FALSE(r.p.hw->events[0].usable);
    CU_ASSERT_NOT_EQUAL(r.p.hw->unavailable[0], '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(r.p.hw->unavailable, "PAPI"));
    CU_ASSERT_EQUAL(r.p.total.spawned, 100);
    r.p.version = r.p.policy = r.p.send_mode = r.p.timer_mode = r.p.binding = r.p.otp_options = r.p.program = "x";
    struct strbuf text = STRBUF_INIT;
    profile_write_text(&r.p, &text);
    const char *line = strstr(strbuf_cstr(&text), "hardware counters: no usable counters (PAPI: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    CU_ASSERT_STRING_EQUAL(strchr(line, '\n'), "\n"); /* one line, the report's last */
    strbuf_free(&text);
    run_end(&r);
}

static void test_default_events_never_fail_the_run(void)
{
    struct run r;
    run_workload(&r, "pingpong", (char *[]){"4", "200"}, 2, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.p.hw);
    /* Whatever this machine counts: each default event is counted on every
     * worker or has PAPI's reason, and the summary line exactly when none is. */
    unsigned usable = 0;
    for (unsigned e = 0; e < r.p.hw->event_count; e++) {
        const struct hw_event *ev = &r.p.hw->events[e];
        usable += ev->usable;
        if (!ev->usable) {
            CU_ASSERT_NOT_EQUAL(ev->why[0], '\0');
        }
        for (unsigned w = 0; ev->usable && w < r.p.workers; w++)
            CU_ASSERT(hw_counters_value(r.p.hw, w, e) >= 0);
    }
    CU_ASSERT_EQUAL(r.p.hw->event_count, 6);
    CU_ASSERT_EQUAL(usable == 0, r.p.hw->unavailable[0] != '\0');
    run_end(&r);
}

static void test_software_events_are_counted(void)
{
    struct run r;
    run_workload(&r, "pingpong", (char *[]){"4", "300"}, 2,
                 "sde:::clause::slices,sde:::clause::sends,perf::TASK-CLOCK");
    const struct hw_counters *hc = r.p.hw;
    CU_ASSERT_PTR_NOT_NULL_FATAL(hc);
    /* clause's own counters, read through PAPI like any other event */
    CU_ASSERT_TRUE_FATAL(hc->events[0].usable && hc->events[1].usable);
    CU_ASSERT_TRUE(hc->events[0].process_wide && hc->process_counted);
    CU_ASSERT_EQUAL((uint64_t)hc->process_values[0], r.p.total.slices);
    CU_ASSERT_EQUAL((uint64_t)hc->process_values[1], 4 * 300 * 2 + 2 * 4);
    /* the kernel's task clock: counted per worker thread where perf events
     * are allowed at all */
    for (unsigned w = 0; hc->events[2].usable && w < r.p.workers; w++)
        CU_ASSERT(hw_counters_value(hc, w, 2) > 0);
    run_end(&r);
}

/* ---- slice durations and the longest slice ---- */

enum { SHORT_SLICES = 2000, LONG_SLICE_NS = 30 * 1000 * 1000 };

struct spinner {
    term pid;
    worker_id worker; /* the worker of its long slice */
    unsigned slices;
};

/* One long slice (a busy loop of LONG_SLICE_NS), then one short one that
 * ends it. */
static enum body_stop spinner_step(struct process *p, void *state)
{
    struct spinner *sp = state;
    proc_spend(p, 1);
    if (sp->slices++ > 0)
        return BODY_EXIT;
    sp->pid = p->pid;
    sp->worker = sched_proc_last_worker(p);
    int64_t until = now_ns() + LONG_SLICE_NS;
    while (now_ns() < until)
        ;
    return BODY_YIELD;
}

struct slices_main {
    struct spinner spinner;
    unsigned short_left;
    bool spawned;
};

/* Spawns the spinner, then yields SHORT_SLICES times. */
static enum body_stop slices_main_step(struct process *p, void *state)
{
    struct slices_main *m = state;
    proc_spend(p, 1);
    if (!m->spawned) {
        m->spawned = true;
        sched_spawn_native(p->sched, p, spinner_step, &m->spinner, NULL);
    }
    return --m->short_left > 0 || m->spinner.slices < 2 ? BODY_YIELD : BODY_EXIT;
}

static void test_every_slice_is_timed_and_the_longest_is_exact(void)
{
    struct slices_main m = {.short_left = SHORT_SLICES};
    struct sched *s = test_sched_new(policy_find("erts"), 2, SEND_MODE_ARRIVALS, TIMER_THREAD);
    /* sampled latencies: the slices are timed all the same */
    CU_ASSERT_TRUE_FATAL(sched_profile_start(s, "", 16));
    term main_pid = sched_spawn_native(s, NULL, slices_main_step, &m, NULL);
    CU_ASSERT_EQUAL(sched_run(s, main_pid), 0);
    struct profile p = {0}; /* collect fills the runtime's fields; the rest is the caller's */
    sched_profile_collect(s, &p);
    const struct worker_metrics *t = &p.total;
    CU_ASSERT_EQUAL(p.slice_total.count, t->slices);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p.slice);
    for (unsigned w = 0; w < p.workers; w++)
        CU_ASSERT_EQUAL(p.slice[w].count, p.worker[w].slices);
    /* the spinner's slice, with its worker and pid, and why it ended */
    CU_ASSERT(p.longest.ns >= LONG_SLICE_NS);
    CU_ASSERT(p.longest.ns < 100 * (uint64_t)LONG_SLICE_NS);
    CU_ASSERT_EQUAL(p.longest.pid_number, pid_number(m.spinner.pid));
    CU_ASSERT_EQUAL(p.longest.worker, (unsigned)m.spinner.worker);
    CU_ASSERT_STRING_EQUAL(p.longest.why, "yield"); /* it returned with budget left */
    /* a native body names no function */
    CU_ASSERT_STRING_EQUAL(p.longest.in, "");
    CU_ASSERT_STRING_EQUAL(p.longest.out, "");
    CU_ASSERT_STRING_EQUAL(p.longest.builtin, "");
    /* the histograms' maximum is the same slice, in the same units (the
     * histogram's is scaled through a bucket, within its 3%) */
    CU_ASSERT(p.slice_total.max >= p.longest.ns * 96 / 100 && p.slice_total.max <= p.longest.ns * 104 / 100);
    CU_ASSERT(histogram_percentile(&p.slice_total, 50) < LONG_SLICE_NS / 10);
    /* the report says it, as text and as JSON */
    p.version = "test";
    p.program = "slices";
    p.policy = "erts";
    p.send_mode = "arrivals";
    p.timer_mode = "thread";
    p.binding = "";
    p.otp_options = "";
    struct strbuf text = STRBUF_INIT;
    profile_write_text(&p, &text);
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&text), "slice durations (us)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&text), "longest slice: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&text), "ended by yield"));
    strbuf_free(&text);
    struct strbuf json = STRBUF_INIT;
    profile_write_json(&p, &json);
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&json), "\"longest_slice\":{\"duration_ns\":"));
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&json), "\"slice_duration\":{\"count\":"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(strbuf_cstr(&json), "\"in\":null,\"out\":null,\"builtin\":null,\"ended_by\":\"yield\""));
    strbuf_free(&json);
    sched_destroy(s);
}

static void test_slice_end_names(void)
{
    CU_ASSERT_STRING_EQUAL(slice_end_name(SLICE_BUDGET), "budget");
    CU_ASSERT_STRING_EQUAL(slice_end_name(SLICE_YIELD), "yield");
    CU_ASSERT_STRING_EQUAL(slice_end_name(SLICE_TRAP), "trap");
    CU_ASSERT_STRING_EQUAL(slice_end_name(SLICE_WAIT), "wait");
    CU_ASSERT_STRING_EQUAL(slice_end_name(SLICE_EXIT), "exit");
    CU_ASSERT_STRING_EQUAL(slice_end_name(SLICE_BLOCKED), "blocked");
    CU_ASSERT_STRING_EQUAL(slice_end_name(SLICE_COLLECT), "collect");
}

static CU_TestInfo tests[] = {
    {"buckets cover every value once", test_buckets_cover_every_value_once},
    {"percentiles are within a bucket of exact", test_percentiles_are_within_a_bucket_of_exact},
    {"Jain's index", test_jain_index},
    {"sampler takes one in interval", test_sampler_takes_one_in_interval},
    {"N spawns are counted", test_n_spawns_are_counted},
    {"one worker never steals", test_one_worker_never_steals},
    {"every message is received once", test_every_message_is_received_once},
    {"latencies are sampled one in N", test_latencies_are_sampled_one_in_n},
    {"migrations are the slices that changed worker", test_migrations_are_the_slices_that_changed_worker},
    {"K timeouts fire K timers", test_k_timeouts_fire_k_timers},
    {"an uncountable event is one line and the run goes on", test_an_uncountable_event_is_one_line_and_the_run_goes_on},
    {"default events never fail the run", test_default_events_never_fail_the_run},
    {"software events are counted", test_software_events_are_counted},
    {"every slice is timed and the longest is exact", test_every_slice_is_timed_and_the_longest_is_exact},
    {"slice end names", test_slice_end_names},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(profile, tests)
