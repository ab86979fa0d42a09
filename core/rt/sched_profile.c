/* sched_profile.c — --profile's state on an executor (sched_profile.h). */
#include "rt/sched_profile.h"

#include "metrics/hw_counters.h"
#include "metrics/metrics.h"
#include "metrics/profile.h"
#include "rt/internal.h"
#include "rt/lock.h"
#include "rt/proc_table.h"
#include "rt/process.h"
#include "term/atom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sched_profile_start(struct sched *s, const char *events, unsigned sample_interval)
{
    struct sched_profile *sp = calloc(1, sizeof *sp);
    if (!sp)
        return false;
    sp->workers = aligned_alloc(64, sizeof *sp->workers * s->worker_count);
    if (!sp->workers) {
        free(sp);
        return false;
    }
    sp->sample_interval = sample_interval ? sample_interval : SCHED_PROFILE_SAMPLE_DEFAULT;
    /* Fixed seeds: the same run samples the same events' positions. */
    for (unsigned w = 0; w < s->worker_count; w++) {
        histogram_init(&sp->workers[w].queue_wait);
        histogram_init(&sp->workers[w].delivery);
        histogram_init(&sp->workers[w].slice);
        sp->workers[w].longest = (struct slice_record){0};
        sampler_init(&sp->workers[w].sends, sp->sample_interval, 2 * (uint64_t)w + 1);
        sampler_init(&sp->workers[w].enqueues, sp->sample_interval, 2 * (uint64_t)w + 2);
    }
    sampler_init(&sp->runtime_enqueues, sp->sample_interval, 2 * (uint64_t)s->worker_count + 1);
    sp->lock_costs = aligned_alloc(64, sizeof *sp->lock_costs * (s->worker_count + 1));
    if (!sp->lock_costs) {
        free(sp->workers);
        free(sp);
        return false;
    }
    memset(sp->lock_costs, 0, sizeof *sp->lock_costs * (s->worker_count + 1));
    for (unsigned t = 0; t <= s->worker_count; t++)
        for (unsigned k = 0; k < PROFILED_LOCKS; k++)
            sampler_init(&sp->lock_costs[t].lock[k].timing, sp->sample_interval,
                         2 * (uint64_t)s->worker_count + 2 + PROFILED_LOCKS * t + k);
    histogram_init(&sp->timer_late);
    sp->start_ns = sched_clock_ns();
    sp->start_stamp = profile_stamp();
    if (!events || *events) {
        hw_counters_publish_sde(s->metrics, s->worker_count, &s->wheel.stats.timers_fired);
        sp->hw = hw_counters_create(events, s->worker_count);
        if (!sp->hw) {
            free(sp->lock_costs);
            free(sp->workers);
            free(sp);
            return false;
        }
        hw_counters_process_start(sp->hw);
    }
    rt_lock_set_measured(&s->exec_lock, true);
    rt_lock_set_measured(&s->rq_lock, true);
    s->profile = sp;
    return true;
}

void sched_profile_thread_begin(struct sched *s, unsigned thread) { rt_lock_costs = &s->profile->lock_costs[thread]; }

void sched_profile_thread_end(void) { rt_lock_costs = NULL; }

void sched_profile_worker_begin(struct sched *s, unsigned w)
{
    if (s->profile->hw)
        hw_counters_thread_start(s->profile->hw, w);
    sched_profile_thread_begin(s, w);
}

void sched_profile_worker_end(struct sched *s, unsigned w)
{
    sched_profile_thread_end();
    if (s->profile->hw)
        hw_counters_thread_stop(s->profile->hw, w);
}

void sched_profile_free(struct sched *s)
{
    struct sched_profile *sp = s->profile;
    if (!sp)
        return;
    rt_lock_set_measured(&s->exec_lock, false);
    rt_lock_set_measured(&s->rq_lock, false);
    if (sp->hw)
        hw_counters_publish_sde(NULL, 0, NULL); /* the SDEs read 0 from now on, not freed counters */
    hw_counters_destroy(sp->hw);
    free(sp->report);
    free(sp->slices);
    free(sp->lock_costs);
    free(sp->lock_report);
    free(sp->workers);
    free(sp);
    s->profile = NULL;
}

/* "m:f/a" of a place's function (or its builtin), "" when not known. */
static void place_text(char *out, size_t size, term module, term function, unsigned arity)
{
    out[0] = '\0';
    if (is_non_value(module))
        return;
    size_t ml, fl;
    const char *m = atom_text(module, &ml), *f = atom_text(function, &fl);
    snprintf(out, size, "%.*s:%.*s/%u", (int)ml, m, (int)fl, f, arity);
}

static void longest_slice(struct sched *s, double scale, struct profile_slice *out)
{
    memset(out, 0, sizeof *out);
    const struct slice_record *best = NULL;
    unsigned worker = 0;
    for (unsigned w = 0; w < s->worker_count; w++) {
        const struct slice_record *r = &s->profile->workers[w].longest;
        if (r->ticks && (!best || r->ticks > best->ticks)) {
            best = r;
            worker = w;
        }
    }
    if (!best)
        return;
    out->ns = (uint64_t)((double)best->ticks * scale);
    out->worker = worker;
    out->pid_number = pid_number(best->pid);
    out->why = slice_end_name(best->why);
    place_text(out->in, sizeof out->in, best->in.module, best->in.function, best->in.arity);
    place_text(out->out, sizeof out->out, best->out.module, best->out.function, best->out.arity);
    place_text(out->builtin, sizeof out->builtin, best->out.bif_module, best->out.bif_function, best->out.bif_arity);
}

/* c in ns, its timed acquisitions' figures scaled to all of them. */
static struct profile_lock_costs lock_costs_in_ns(const struct lock_costs *c, double ns_per_tick)
{
    struct profile_lock_costs r = {
        .acquisitions = c->acquisitions,
        .timed = c->timed,
        .wait_max_ns = (uint64_t)((double)c->wait_max_ticks * ns_per_tick),
    };
    if (c->timed) {
        double scale = (double)c->acquisitions / (double)c->timed;
        r.contended = (uint64_t)((double)c->contended * scale + 0.5);
        r.wait_ns = (uint64_t)((double)c->wait_ticks * ns_per_tick * scale);
        r.hold_ns = (uint64_t)((double)c->hold_ticks * ns_per_tick * scale);
    }
    return r;
}

static void lock_costs_add(struct profile_lock_costs *total, const struct profile_lock_costs *a)
{
    total->acquisitions += a->acquisitions;
    total->timed += a->timed;
    total->contended += a->contended;
    total->wait_ns += a->wait_ns;
    total->hold_ns += a->hold_ns;
    if (a->wait_max_ns > total->wait_max_ns)
        total->wait_max_ns = a->wait_max_ns;
}

static void collect_lock_costs(struct sched *s, double scale, struct profile *out)
{
    struct sched_profile *sp = s->profile;
    unsigned threads = s->worker_count + 1;
    if (!sp->lock_report)
        sp->lock_report = malloc(sizeof *sp->lock_report * threads);
    if (!sp->lock_report)
        return;
    for (unsigned t = 0; t < threads; t++) {
        for (unsigned k = 0; k < PROFILED_LOCKS; k++) {
            sp->lock_report[t][k] = lock_costs_in_ns(&sp->lock_costs[t].lock[k], scale);
            lock_costs_add(&out->lock_total[k], &sp->lock_report[t][k]);
        }
    }
    out->lock_threads = threads;
    out->lock_costs = (const struct profile_lock_costs(*)[PROFILED_LOCKS])sp->lock_report;
}

/* Jain's index over the reductions of the processes still in the table. */
static double live_reductions_fairness(struct sched *s, uint64_t *live)
{
    struct proc_table_entry *left = NULL;
    size_t n = 0;
    *live = proc_table_count(&s->table);
    if (!proc_table_snapshot(&s->table, &left, &n))
        return 0.0;
    double *x = malloc((n ? n : 1) * sizeof *x);
    double index = 0.0;
    if (x) {
        for (size_t i = 0; i < n; i++)
            x[i] = (double)left[i].proc->reductions;
        index = metrics_jain_index(x, n);
        free(x);
    }
    free(left);
    return index;
}

/* Nanoseconds per profile_stamp tick over the run so far. */
static double ns_per_tick(const struct sched_profile *sp)
{
    uint64_t ticks = profile_stamp() - sp->start_stamp;
    uint64_t ns = sched_clock_ns() - sp->start_ns;
    return ticks ? (double)ns / (double)ticks : 1.0;
}

/* m's counters with the time inside all its slices: the sampled slices'
 * time in ns, scaled by slices / sampled slices (exact at interval 1),
 * never above the time it was awake. */
static struct worker_metrics with_running_time(const struct worker_metrics *m, double ns_per_tick)
{
    struct worker_metrics r = *m;
    double ns = (double)m->run_ticks * ns_per_tick;
    if (m->run_samples && m->run_samples < m->slices)
        ns *= (double)m->slices / (double)m->run_samples;
    r.run_ns = ns < (double)m->busy_ns ? (uint64_t)ns : m->busy_ns;
    return r;
}

void sched_profile_collect(struct sched *s, struct profile *out)
{
    struct sched_profile *sp = s->profile;
    out->workers = s->worker_count;
    out->sample_interval = sp ? sp->sample_interval : 0;
    out->worker = s->metrics;
    memset(&out->total, 0, sizeof out->total);
    histogram_init(&out->queue_wait);
    histogram_init(&out->delivery);
    histogram_init(&out->timer_late);
    histogram_init(&out->slice_total);
    out->slice = NULL;
    memset(&out->longest, 0, sizeof out->longest);
    out->lock_threads = 0;
    out->lock_costs = NULL;
    memset(out->lock_total, 0, sizeof out->lock_total);
    double scale = sp ? ns_per_tick(sp) : 1.0;
    if (sp && !sp->report)
        sp->report = malloc(sizeof *sp->report * s->worker_count);
    if (sp && !sp->slices)
        sp->slices = malloc(sizeof *sp->slices * s->worker_count);
    if (sp && sp->slices) {
        for (unsigned w = 0; w < s->worker_count; w++) {
            histogram_init(&sp->slices[w]);
            histogram_add_scaled(&sp->slices[w], &sp->workers[w].slice, scale);
            histogram_merge(&out->slice_total, &sp->slices[w]);
        }
        out->slice = sp->slices;
    }
    if (sp) {
        longest_slice(s, scale, &out->longest);
        collect_lock_costs(s, scale, out);
    }
    if (sp && sp->report) {
        for (unsigned w = 0; w < s->worker_count; w++)
            sp->report[w] = with_running_time(&s->metrics[w], scale);
        out->worker = sp->report;
    }
    double *busy = malloc(s->worker_count * sizeof *busy);
    for (unsigned w = 0; w < s->worker_count; w++) {
        metrics_add(&out->total, &out->worker[w]);
        if (busy)
            busy[w] = (double)out->worker[w].run_ns;
        if (sp) {
            histogram_add_scaled(&out->queue_wait, &sp->workers[w].queue_wait, scale);
            histogram_add_scaled(&out->delivery, &sp->workers[w].delivery, scale);
        }
    }
    out->jain_busy = busy ? metrics_jain_index(busy, s->worker_count) : 0.0;
    free(busy);
    if (sp) {
        histogram_merge(&out->timer_late, &sp->timer_late);
        out->timer_thread_wakes = sp->timer_thread_wakes;
        out->timer_thread_deadline_wakes = sp->timer_thread_deadline_wakes;
        if (sp->hw)
            hw_counters_process_stop(sp->hw);
        out->hw = sp->hw;
    }
    const struct timer_wheel_stats *ts = timer_wheel_stats(&s->wheel);
    out->clock_readings = s->timer_wakes;
    out->timers_armed = ts->timers_armed;
    out->timers_cancelled = ts->timers_cancelled;
    out->timers_fired = ts->timers_fired;
    out->receive_timeouts_fired = s->timers_fired;
    out->blocked_builtins = s->blocked_builtins;
    sched_collector_counts(s, &out->collections, &out->collection_ns, &out->collection_max_ns, &out->collector_threads);
    sched_collector_builtins(s, &out->builtins_elsewhere, &out->builtins_elsewhere_ns);
    const struct sched_watchdog_event *e = &s->watchdog.event;
    out->watchdog_events = e->kind != WATCHDOG_NONE;
    if (out->watchdog_events) {
        out->watchdog.kind = e->kind == WATCHDOG_STALL ? "stall" : "lost_wakeup";
        out->watchdog.at_ms = e->at_ms;
        out->watchdog.waited_ms = e->waited_ms;
        out->watchdog.pid = pid_number(e->pid);
        out->watchdog.name[0] = '\0';
        if (is_value(e->name)) {
            size_t len;
            const char *text = atom_text(e->name, &len);
            snprintf(out->watchdog.name, sizeof out->watchdog.name, "%.*s", (int)len, text);
        }
        out->watchdog.from_policy = e->from_policy;
        out->watchdog.to_policy = e->to_policy;
    }
    out->jain_reductions = live_reductions_fairness(s, &out->live_at_end);
}
