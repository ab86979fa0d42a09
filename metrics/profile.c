/* profile.c — formatting the --profile report as text and JSON (profile.h). */
#include "metrics/profile.h"

#include <hwloc.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void profile_topology_load(struct profile_topology *t)
{
    memset(t, 0, sizeof *t);
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return;
    }
    t->loaded = true;
    t->packages = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    t->numa_nodes = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    t->cores = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    t->pus = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    static const hwloc_obj_type_t levels[PROFILE_CACHE_LEVELS] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                                                  HWLOC_OBJ_L3CACHE};
    for (unsigned i = 0; i < PROFILE_CACHE_LEVELS; i++) {
        int n = hwloc_get_nbobjs_by_type(topo, levels[i]);
        for (int k = 0; k < n; k++) {
            hwloc_obj_t c = hwloc_get_obj_by_type(topo, levels[i], (unsigned)k);
            if (c->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
                continue;
            t->caches[i]++;
            t->cache_bytes[i] = c->attr->cache.size;
        }
    }
    hwloc_topology_destroy(topo);
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }

static double queue_mean(const struct worker_metrics *m)
{
    return m->queue_samples ? (double)m->queue_len_sum / (double)m->queue_samples : 0.0;
}

/* awake but running no process: settling slices, picking, searching, locks */
static uint64_t between_ns(const struct worker_metrics *m) { return m->busy_ns - m->run_ns; }

static const double percentiles[] = {50, 90, 99, 99.9};
static const char *const percentile_names[] = {"p50", "p90", "p99", "p99.9"};
#define PERCENTILES 4

/* ---- text ---- */

static void worker_row(struct strbuf *out, const char *label, const struct worker_metrics *m)
{
    strbuf_printf(out,
                  "  %-6s %9" PRIu64 " %11" PRIu64 " %9.1f %9.1f %9.1f %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
                  " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7.2f %6" PRIu64 " %7" PRIu64
                  " %7" PRIu64 "\n",
                  label, m->slices, m->reductions, ms(m->run_ns), ms(between_ns(m)), ms(m->idle_ns), m->first_runs,
                  m->spawned, m->balance_taken, m->steal_attempts, m->steals, m->stolen_from, m->wakeups_sent,
                  m->wakeups_received, m->sleeps, queue_mean(m), m->queue_len_max, m->migrations_in, m->migrations_out);
}

static void histogram_line(struct strbuf *out, const char *label, const struct histogram *h)
{
    strbuf_printf(out, "  %-18s %10" PRIu64, label, h->count);
    if (!h->count) {
        strbuf_puts(out, "  (none)\n");
        return;
    }
    strbuf_printf(out, " %10.2f", histogram_mean(h) / 1e3);
    for (unsigned i = 0; i < PERCENTILES; i++)
        strbuf_printf(out, " %10.2f", (double)histogram_percentile(h, percentiles[i]) / 1e3);
    strbuf_printf(out, " %10.2f\n", (double)h->max / 1e3);
}

static void hw_text(struct strbuf *out, const struct profile *p)
{
    const struct hw_counters *hc = p->hw;
    if (!hc)
        return;
    if (hc->unavailable[0]) {
        strbuf_printf(out, "hardware counters: %s\n", hc->unavailable);
        return;
    }
    strbuf_puts(out, "hardware counters (PAPI), per worker thread:\n  worker");
    int cycles = -1, instructions = -1;
    for (unsigned e = 0; e < hc->event_count; e++) {
        const struct hw_event *ev = &hc->events[e];
        if (!ev->usable || ev->process_wide)
            continue;
        strbuf_printf(out, " %16s", ev->name);
        if (strcmp(ev->name, "PAPI_TOT_CYC") == 0)
            cycles = (int)e;
        if (strcmp(ev->name, "PAPI_TOT_INS") == 0)
            instructions = (int)e;
    }
    if (cycles >= 0 && instructions >= 0)
        strbuf_printf(out, " %6s", "IPC");
    strbuf_putc(out, '\n');
    for (unsigned w = 0; hc->thread_events && w < p->workers; w++) {
        strbuf_printf(out, "  %-6u", w);
        for (unsigned e = 0; e < hc->event_count; e++) {
            if (!hc->events[e].usable || hc->events[e].process_wide)
                continue;
            long long v = hw_counters_value(hc, w, e);
            if (v < 0)
                strbuf_printf(out, " %16s", "-");
            else
                strbuf_printf(out, " %16lld", v);
        }
        if (cycles >= 0 && instructions >= 0) {
            long long c = hw_counters_value(hc, w, (unsigned)cycles);
            long long i = hw_counters_value(hc, w, (unsigned)instructions);
            if (c > 0 && i >= 0)
                strbuf_printf(out, " %6.2f", (double)i / (double)c);
            else
                strbuf_printf(out, " %6s", "-");
        }
        strbuf_putc(out, '\n');
    }
    for (unsigned e = 0; e < hc->event_count; e++) {
        const struct hw_event *ev = &hc->events[e];
        if (ev->usable && ev->process_wide && hc->process_counted)
            strbuf_printf(out, "  process-wide %s: %lld\n", ev->name, hc->process_values[e]);
        else if (!ev->usable)
            strbuf_printf(out, "  %s not counted: %s\n", ev->name, ev->why);
    }
}

/* Every slice's duration per worker, and the longest slice. */
static void slice_text(struct strbuf *out, const struct profile *p)
{
    strbuf_printf(out, "slice durations (us) %10s %10s", "count", "mean");
    for (unsigned i = 0; i < PERCENTILES; i++)
        strbuf_printf(out, " %10s", percentile_names[i]);
    strbuf_printf(out, " %10s\n", "max");
    char label[24];
    for (unsigned w = 0; p->slice && w < p->workers; w++) {
        snprintf(label, sizeof label, "worker %u", w);
        histogram_line(out, label, &p->slice[w]);
    }
    histogram_line(out, "all workers", &p->slice_total);
    const struct profile_slice *l = &p->longest;
    if (!l->ns)
        return;
    strbuf_printf(out, "longest slice: %.3f ms on worker %u, <0.%" PRIu64 ".0>, from %s to %s", (double)l->ns / 1e6,
                  l->worker, l->pid_number, l->in[0] ? l->in : "(unknown)", l->out[0] ? l->out : "(unknown)");
    if (l->builtin[0])
        strbuf_printf(out, " in builtin %s", l->builtin);
    strbuf_printf(out, ", ended by %s\n", l->why);
}

static const char *const lock_names[PROFILED_LOCKS] = {"executor mutex", "run-queue lock"};
static const char *const lock_keys[PROFILED_LOCKS] = {"executor", "run_queue"};

/* "worker N" or "timer thread": lock_costs' rows are the workers', then
 * the timer thread's. */
static void lock_thread_label(char *label, size_t size, const struct profile *p, unsigned thread)
{
    if (thread < p->workers)
        snprintf(label, size, "worker %u", thread);
    else
        snprintf(label, size, "timer thread");
}

static void lock_row(struct strbuf *out, const char *label, const struct profile_lock_costs *c)
{
    strbuf_printf(out, "    %-13s %12" PRIu64 " %10.2f %11.3f %11.1f %11.3f\n", label, c->acquisitions,
                  c->acquisitions ? 100.0 * (double)c->contended / (double)c->acquisitions : 0.0, ms(c->wait_ns),
                  (double)c->wait_max_ns / 1e3, ms(c->hold_ns));
}

static void locks_text(struct strbuf *out, const struct profile *p)
{
    if (!p->lock_threads)
        return;
    if (p->sample_interval > 1)
        strbuf_printf(out,
                      "locks (%s; about 1 in %u acquisitions timed, contention and times scaled to all of them):\n",
                      p->locks ? p->locks : "pthread", p->sample_interval);
    else
        strbuf_printf(out, "locks (%s; every acquisition timed):\n", p->locks ? p->locks : "pthread");
    for (unsigned k = 0; k < PROFILED_LOCKS; k++) {
        strbuf_printf(out, "  %-15s %12s %10s %11s %11s %11s\n", lock_names[k], "acquired", "contended%", "waiting ms",
                      "max wait us", "held ms");
        char label[32];
        for (unsigned t = 0; t < p->lock_threads; t++) {
            lock_thread_label(label, sizeof label, p, t);
            lock_row(out, label, &p->lock_costs[t][k]);
        }
        lock_row(out, "total", &p->lock_total[k]);
    }
}

void profile_write_text(const struct profile *p, struct strbuf *out)
{
    const struct worker_metrics *t = &p->total;
    strbuf_printf(out, "clause profile: %s %s (exit status %d, %.3f ms)\n", p->version, p->program, p->exit_status,
                  p->wall_ms);
    strbuf_printf(out, "configuration: policy %s", p->policy);
    for (unsigned i = 0; i < p->policy_param_count; i++)
        strbuf_printf(out, "%s%s=%s", i ? "," : ":", p->policy_params[i].name, p->policy_params[i].value);
    const char *timers = strcmp(p->timer_mode, "thread") == 0    ? "timers in a thread"
                         : strcmp(p->timer_mode, "workers") == 0 ? "timers in the workers"
                                                                 : "timers on the schedule's logical clock";
    strbuf_printf(out, ", %s sends, %s, %s locks, busy-wait %u, %u workers", p->send_mode, timers,
                  p->locks ? p->locks : "pthread", p->busy_wait, p->workers);
    if (p->schedule)
        strbuf_printf(out, ", schedule %s (one worker at a time)", p->schedule);
    strbuf_printf(out, "; as erl flags %s\n", p->otp_options);
    strbuf_printf(out, "machine: %s\n", p->binding);

    strbuf_puts(out, "workers (times in ms; between = awake without a process: settling, picking, searching):\n");
    if (t->run_samples < t->slices)
        strbuf_printf(out, "  (running: the time of the %" PRIu64 " slices timed, scaled to all %" PRIu64 ")\n",
                      t->run_samples, t->slices);
    strbuf_printf(out, "  %-6s %9s %11s %9s %9s %9s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %6s %7s %7s\n", "worker",
                  "slices", "reductions", "running", "between", "sleeping", "first", "spawned", "balance", "st-try",
                  "stole", "victim", "wk-sent", "wk-recv", "sleeps", "rq-mean", "rq-max", "mig-in", "mig-out");
    char label[16];
    for (unsigned w = 0; w < p->workers; w++) {
        snprintf(label, sizeof label, "%u", w);
        worker_row(out, label, &p->worker[w]);
    }
    worker_row(out, "total", t);
    if (p->busy_wait)
        strbuf_printf(out,
                      "busy-wait: %u looks before sleeping; %" PRIu64 " idle spells found work spinning, %" PRIu64
                      " spun out and slept\n",
                      p->busy_wait, t->busy_wait_found, t->busy_wait_slept);

    strbuf_printf(out,
                  "timers: %" PRIu64 " clock readings, %" PRIu64 " timer-thread wakes (%" PRIu64
                  " at a deadline), %" PRIu64 " armed, %" PRIu64 " cancelled, %" PRIu64 " fired (%" PRIu64
                  " receive timeouts)\n",
                  p->clock_readings, p->timer_thread_wakes, p->timer_thread_deadline_wakes, p->timers_armed,
                  p->timers_cancelled, p->timers_fired, p->receive_timeouts_fired);
    strbuf_printf(out,
                  "messages: %" PRIu64 " sends (%" PRIu64 " to a waiting or queued receiver, %" PRIu64
                  " pushed onto arrivals, %" PRIu64 " to self, %" PRIu64 " dropped, %" PRIu64 " blocked), %" PRIu64
                  " receives, %" PRIu64 " words copied; %" PRIu64 " builtins blocked\n",
                  t->sends_direct + t->sends_arrivals + t->sends_self + t->sends_dropped, t->sends_direct,
                  t->sends_arrivals, t->sends_self, t->sends_dropped, t->sends_blocked, t->receives, t->words_copied,
                  p->blocked_builtins);
    strbuf_printf(out,
                  "collectors: %u threads (--gc-threads); %" PRIu64 " collections done there (%" PRIu64
                  " slices handed over), %.3f ms in all, longest %.3f ms; %" PRIu64
                  " builtins' work (re:run's long matches), %.3f ms\n",
                  p->collector_threads, p->collections, t->collections_elsewhere, (double)p->collection_ns / 1e6,
                  (double)p->collection_max_ns / 1e6, p->builtins_elsewhere, (double)p->builtins_elsewhere_ns / 1e6);
    if (p->watchdog_events)
        strbuf_printf(out,
                      "watchdog: --watchdog %u ms; %s at %" PRIu64 " ms: <0.%" PRIu64 ".0>%s%s runnable for %" PRIu64
                      " ms under %s; %s%s\n",
                      p->watchdog_ms, p->watchdog.kind, p->watchdog.at_ms, p->watchdog.pid,
                      p->watchdog.name[0] ? " " : "", p->watchdog.name, p->watchdog.waited_ms, p->watchdog.from_policy,
                      p->watchdog.to_policy ? "went on under " : "not handed over",
                      p->watchdog.to_policy ? p->watchdog.to_policy : "");
    else if (p->watchdog_ms)
        strbuf_printf(out, "watchdog: --watchdog %u ms; no stall or lost wakeup\n", p->watchdog_ms);
    else
        strbuf_puts(out, "watchdog: off\n");
    strbuf_printf(out,
                  "processes: %" PRIu64 " spawned, exits %" PRIu64 " normal, %" PRIu64 " shutdown, %" PRIu64
                  " killed, %" PRIu64 " other; peak %" PRIu64 " live, %" PRIu64 " live at the end\n",
                  t->spawned, t->exits_normal, t->exits_shutdown, t->exits_killed, t->exits_other, t->peak_live,
                  p->live_at_end);
    if (p->sample_interval > 1)
        strbuf_printf(out,
                      "latencies: about 1 in %u enqueues and sends timed (--profile-sample=1 times all); timer "
                      "lateness: every fire\n",
                      p->sample_interval);
    strbuf_printf(out, "latencies (us)       %10s %10s", "count", "mean");
    for (unsigned i = 0; i < PERCENTILES; i++)
        strbuf_printf(out, " %10s", percentile_names[i]);
    strbuf_printf(out, " %10s\n", "max");
    histogram_line(out, "run-queue wait", &p->queue_wait);
    histogram_line(out, "message delivery", &p->delivery);
    histogram_line(out, "timer lateness", &p->timer_late);
    slice_text(out, p);
    locks_text(out, p);
    strbuf_printf(out,
                  "fairness (Jain): %.4f over the workers' running time, %.4f over the reductions of the %" PRIu64
                  " processes alive at the end\n",
                  p->jain_busy, p->jain_reductions, p->live_at_end);
    hw_text(out, p);
}

/* ---- JSON ---- */

static void json_string(struct strbuf *out, const char *s)
{
    strbuf_putc(out, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            strbuf_printf(out, "\\%c", c);
        else if (c < 0x20)
            strbuf_printf(out, "\\u%04x", c);
        else
            strbuf_putc(out, (char)c);
    }
    strbuf_putc(out, '"');
}

static void key(struct strbuf *out, bool *first, const char *name)
{
    strbuf_puts(out, *first ? "" : ",");
    *first = false;
    json_string(out, name);
    strbuf_putc(out, ':');
}

static void kv_u64(struct strbuf *out, bool *first, const char *name, uint64_t v)
{
    key(out, first, name);
    strbuf_printf(out, "%" PRIu64, v);
}

static void kv_double(struct strbuf *out, bool *first, const char *name, double v)
{
    key(out, first, name);
    strbuf_printf(out, "%.6g", v);
}

static void kv_string(struct strbuf *out, bool *first, const char *name, const char *v)
{
    key(out, first, name);
    json_string(out, v);
}

static void json_histogram(struct strbuf *out, bool *first, const char *name, const struct histogram *h);

/* slice: its slice durations (NULL: an empty histogram). */
static void json_worker(struct strbuf *out, const struct worker_metrics *m, const struct histogram *slice)
{
    bool f = true;
    strbuf_putc(out, '{');
    kv_u64(out, &f, "slices", m->slices);
    kv_u64(out, &f, "reductions", m->reductions);
    kv_u64(out, &f, "running_ns", m->run_ns);
    kv_u64(out, &f, "running_timed_slices", m->run_samples);
    kv_u64(out, &f, "between_ns", between_ns(m));
    kv_u64(out, &f, "sleeping_ns", m->idle_ns);
    kv_u64(out, &f, "first_runs", m->first_runs);
    kv_u64(out, &f, "spawned", m->spawned);
    kv_u64(out, &f, "balance_taken", m->balance_taken);
    kv_u64(out, &f, "steal_attempts", m->steal_attempts);
    kv_u64(out, &f, "steals", m->steals);
    kv_u64(out, &f, "stolen_from", m->stolen_from);
    kv_u64(out, &f, "wakeups_sent", m->wakeups_sent);
    kv_u64(out, &f, "wakeups_received", m->wakeups_received);
    kv_u64(out, &f, "sleeps", m->sleeps);
    kv_u64(out, &f, "busy_wait_found", m->busy_wait_found);
    kv_u64(out, &f, "busy_wait_slept", m->busy_wait_slept);
    kv_double(out, &f, "run_queue_mean", queue_mean(m));
    kv_u64(out, &f, "run_queue_max", m->queue_len_max);
    kv_u64(out, &f, "migrations_in", m->migrations_in);
    kv_u64(out, &f, "migrations_out", m->migrations_out);
    struct histogram empty;
    if (!slice) {
        histogram_init(&empty);
        slice = &empty;
    }
    json_histogram(out, &f, "slice_duration", slice);
    strbuf_putc(out, '}');
}

static void json_place(struct strbuf *out, bool *first, const char *name, const char *place)
{
    key(out, first, name);
    if (place[0])
        json_string(out, place);
    else
        strbuf_puts(out, "null");
}

static void json_longest(struct strbuf *out, bool *first, const struct profile_slice *l)
{
    key(out, first, "longest_slice");
    if (!l->ns) {
        strbuf_puts(out, "null");
        return;
    }
    bool f = true;
    strbuf_putc(out, '{');
    kv_u64(out, &f, "duration_ns", l->ns);
    kv_u64(out, &f, "worker", l->worker);
    char pid[48];
    snprintf(pid, sizeof pid, "<0.%" PRIu64 ".0>", l->pid_number);
    kv_string(out, &f, "pid", pid);
    json_place(out, &f, "in", l->in);
    json_place(out, &f, "out", l->out);
    json_place(out, &f, "builtin", l->builtin);
    kv_string(out, &f, "ended_by", l->why);
    strbuf_putc(out, '}');
}

static void json_lock_costs(struct strbuf *out, const struct profile_lock_costs *c)
{
    bool f = true;
    strbuf_putc(out, '{');
    kv_u64(out, &f, "acquisitions", c->acquisitions);
    kv_u64(out, &f, "timed", c->timed);
    kv_u64(out, &f, "contended", c->contended);
    kv_u64(out, &f, "wait_ns", c->wait_ns);
    kv_u64(out, &f, "wait_max_ns", c->wait_max_ns);
    kv_u64(out, &f, "hold_ns", c->hold_ns);
    strbuf_putc(out, '}');
}

/* "locks": per lock, the total and each thread's share (null when the
 * locks were not measured). */
static void json_locks(struct strbuf *out, bool *first, const struct profile *p)
{
    key(out, first, "locks");
    if (!p->lock_threads) {
        strbuf_puts(out, "null");
        return;
    }
    bool f = true;
    strbuf_putc(out, '{');
    for (unsigned k = 0; k < PROFILED_LOCKS; k++) {
        key(out, &f, lock_keys[k]);
        bool c = true;
        strbuf_putc(out, '{');
        key(out, &c, "total");
        json_lock_costs(out, &p->lock_total[k]);
        key(out, &c, "threads");
        strbuf_putc(out, '[');
        char label[32];
        for (unsigned t = 0; t < p->lock_threads; t++) {
            lock_thread_label(label, sizeof label, p, t);
            strbuf_printf(out, "%s{\"thread\":", t ? "," : "");
            json_string(out, label);
            strbuf_puts(out, ",\"costs\":");
            json_lock_costs(out, &p->lock_costs[t][k]);
            strbuf_putc(out, '}');
        }
        strbuf_puts(out, "]}");
    }
    strbuf_putc(out, '}');
}

static void json_histogram(struct strbuf *out, bool *first, const char *name, const struct histogram *h)
{
    key(out, first, name);
    bool f = true;
    strbuf_putc(out, '{');
    kv_u64(out, &f, "count", h->count);
    kv_double(out, &f, "mean_ns", histogram_mean(h));
    kv_u64(out, &f, "min_ns", h->count ? h->min : 0);
    for (unsigned i = 0; i < PERCENTILES; i++) {
        char k[16];
        snprintf(k, sizeof k, "%s_ns", percentile_names[i]);
        kv_u64(out, &f, k, histogram_percentile(h, percentiles[i]));
    }
    kv_u64(out, &f, "max_ns", h->max);
    /* The non-empty buckets, for scripts that plot or merge runs. */
    key(out, &f, "buckets");
    strbuf_putc(out, '[');
    bool fb = true;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        if (!h->buckets[i])
            continue;
        strbuf_printf(out, "%s[%" PRIu64 ",%" PRIu64 "]", fb ? "" : ",", histogram_bucket_high(i), h->buckets[i]);
        fb = false;
    }
    strbuf_puts(out, "]}");
}

static void json_hw(struct strbuf *out, bool *first, const struct profile *p)
{
    const struct hw_counters *hc = p->hw;
    key(out, first, "hardware_counters");
    if (!hc) {
        strbuf_puts(out, "null");
        return;
    }
    bool f = true;
    strbuf_putc(out, '{');
    key(out, &f, "unavailable");
    if (hc->unavailable[0])
        json_string(out, hc->unavailable);
    else
        strbuf_puts(out, "null");
    key(out, &f, "events");
    strbuf_putc(out, '[');
    for (unsigned e = 0; e < hc->event_count; e++) {
        const struct hw_event *ev = &hc->events[e];
        bool fe = true;
        strbuf_puts(out, e ? ",{" : "{");
        kv_string(out, &fe, "name", ev->name);
        key(out, &fe, "usable");
        strbuf_puts(out, ev->usable ? "true" : "false");
        key(out, &fe, "scope");
        json_string(out, ev->process_wide ? "process" : "thread");
        key(out, &fe, "reason");
        if (ev->usable)
            strbuf_puts(out, "null");
        else
            json_string(out, ev->why);
        key(out, &fe, "values");
        strbuf_putc(out, '[');
        if (ev->usable && ev->process_wide) {
            if (hc->process_counted)
                strbuf_printf(out, "%lld", hc->process_values[e]);
        } else if (ev->usable) {
            for (unsigned w = 0; w < p->workers; w++) {
                long long v = hw_counters_value(hc, w, e);
                strbuf_puts(out, w ? "," : "");
                if (v < 0)
                    strbuf_puts(out, "null");
                else
                    strbuf_printf(out, "%lld", v);
            }
        }
        strbuf_puts(out, "]}");
    }
    strbuf_puts(out, "]}");
}

void profile_write_json(const struct profile *p, struct strbuf *out)
{
    const struct worker_metrics *t = &p->total;
    bool f = true;
    strbuf_putc(out, '{');
    kv_string(out, &f, "schema", "clause-profile/1");
    key(out, &f, "configuration");
    {
        bool c = true;
        strbuf_putc(out, '{');
        kv_string(out, &c, "version", p->version);
        kv_string(out, &c, "program", p->program);
        kv_string(out, &c, "policy", p->policy);
        key(out, &c, "policy_params");
        {
            bool pf = true;
            strbuf_putc(out, '{');
            for (unsigned i = 0; i < p->policy_param_count; i++) {
                key(out, &pf, p->policy_params[i].name);
                if (p->policy_params[i].number)
                    strbuf_puts(out, p->policy_params[i].value);
                else
                    json_string(out, p->policy_params[i].value);
            }
            strbuf_putc(out, '}');
        }
        kv_u64(out, &c, "busy_wait", p->busy_wait);
        kv_string(out, &c, "send_mode", p->send_mode);
        kv_string(out, &c, "timer_mode", p->timer_mode);
        key(out, &c, "schedule");
        if (p->schedule)
            json_string(out, p->schedule);
        else
            strbuf_puts(out, "null");
        kv_string(out, &c, "locks", p->locks ? p->locks : "pthread");
        kv_u64(out, &c, "workers", p->workers);
        kv_string(out, &c, "binding", p->binding);
        kv_string(out, &c, "otp_options", p->otp_options);
        kv_u64(out, &c, "sample_interval", p->sample_interval);
        key(out, &c, "topology");
        if (!p->topology.loaded) {
            strbuf_puts(out, "null");
        } else {
            bool tf = true;
            strbuf_putc(out, '{');
            kv_u64(out, &tf, "packages", p->topology.packages);
            kv_u64(out, &tf, "numa_nodes", p->topology.numa_nodes);
            kv_u64(out, &tf, "cores", p->topology.cores);
            kv_u64(out, &tf, "pus", p->topology.pus);
            key(out, &tf, "caches");
            strbuf_putc(out, '[');
            bool cf = true;
            for (unsigned i = 0; i < PROFILE_CACHE_LEVELS; i++) {
                if (!p->topology.caches[i])
                    continue;
                strbuf_printf(out, "%s{\"level\":%u,\"count\":%u,\"bytes\":%" PRIu64 "}", cf ? "" : ",", i + 1,
                              p->topology.caches[i], p->topology.cache_bytes[i]);
                cf = false;
            }
            strbuf_puts(out, "]}");
        }
        strbuf_putc(out, '}');
    }
    kv_u64(out, &f, "exit_status", (uint64_t)(p->exit_status < 0 ? 0 : p->exit_status));
    kv_double(out, &f, "wall_ms", p->wall_ms);
    key(out, &f, "workers");
    strbuf_putc(out, '[');
    for (unsigned w = 0; w < p->workers; w++) {
        strbuf_puts(out, w ? "," : "");
        json_worker(out, &p->worker[w], p->slice ? &p->slice[w] : NULL);
    }
    strbuf_putc(out, ']');
    key(out, &f, "total");
    json_worker(out, t, &p->slice_total);
    json_longest(out, &f, &p->longest);
    key(out, &f, "timers");
    {
        bool c = true;
        strbuf_putc(out, '{');
        kv_u64(out, &c, "clock_readings", p->clock_readings);
        kv_u64(out, &c, "thread_wakes", p->timer_thread_wakes);
        kv_u64(out, &c, "thread_deadline_wakes", p->timer_thread_deadline_wakes);
        kv_u64(out, &c, "armed", p->timers_armed);
        kv_u64(out, &c, "cancelled", p->timers_cancelled);
        kv_u64(out, &c, "fired", p->timers_fired);
        kv_u64(out, &c, "receive_timeouts_fired", p->receive_timeouts_fired);
        json_histogram(out, &c, "late", &p->timer_late);
        strbuf_putc(out, '}');
    }
    key(out, &f, "messages");
    {
        bool c = true;
        strbuf_putc(out, '{');
        kv_u64(out, &c, "sends_direct", t->sends_direct);
        kv_u64(out, &c, "sends_arrivals", t->sends_arrivals);
        kv_u64(out, &c, "sends_self", t->sends_self);
        kv_u64(out, &c, "sends_dropped", t->sends_dropped);
        kv_u64(out, &c, "sends_blocked", t->sends_blocked);
        kv_u64(out, &c, "receives", t->receives);
        kv_u64(out, &c, "words_copied", t->words_copied);
        kv_u64(out, &c, "blocked_builtins", p->blocked_builtins);
        strbuf_putc(out, '}');
    }
    key(out, &f, "collectors");
    {
        bool c = true;
        strbuf_putc(out, '{');
        kv_u64(out, &c, "threads", p->collector_threads);
        kv_u64(out, &c, "collections", p->collections);
        kv_u64(out, &c, "handed_over", t->collections_elsewhere);
        kv_u64(out, &c, "total_ns", p->collection_ns);
        kv_u64(out, &c, "max_ns", p->collection_max_ns);
        kv_u64(out, &c, "builtins", p->builtins_elsewhere);
        kv_u64(out, &c, "builtins_ns", p->builtins_elsewhere_ns);
        strbuf_putc(out, '}');
    }
    key(out, &f, "watchdog");
    {
        bool c = true;
        strbuf_putc(out, '{');
        kv_u64(out, &c, "ms", p->watchdog_ms);
        kv_u64(out, &c, "count", p->watchdog_events);
        key(out, &c, "events");
        strbuf_putc(out, '[');
        if (p->watchdog_events) {
            const struct profile_watchdog *e = &p->watchdog;
            bool ef = true;
            char pid[40];
            snprintf(pid, sizeof pid, "<0.%" PRIu64 ".0>", e->pid);
            strbuf_putc(out, '{');
            kv_string(out, &ef, "kind", e->kind);
            kv_u64(out, &ef, "time_ms", e->at_ms);
            kv_string(out, &ef, "pid", pid);
            key(out, &ef, "name");
            if (e->name[0])
                json_string(out, e->name);
            else
                strbuf_puts(out, "null");
            kv_u64(out, &ef, "waited_ms", e->waited_ms);
            kv_string(out, &ef, "policy", e->from_policy);
            key(out, &ef, "handed_to");
            if (e->to_policy)
                json_string(out, e->to_policy);
            else
                strbuf_puts(out, "null");
            strbuf_putc(out, '}');
        }
        strbuf_puts(out, "]}");
    }
    key(out, &f, "processes");
    {
        bool c = true;
        strbuf_putc(out, '{');
        kv_u64(out, &c, "spawned", t->spawned);
        key(out, &c, "exits");
        strbuf_printf(out,
                      "{\"normal\":%" PRIu64 ",\"shutdown\":%" PRIu64 ",\"killed\":%" PRIu64 ",\"other\":%" PRIu64 "}",
                      t->exits_normal, t->exits_shutdown, t->exits_killed, t->exits_other);
        kv_u64(out, &c, "peak_live", t->peak_live);
        kv_u64(out, &c, "live_at_end", p->live_at_end);
        strbuf_putc(out, '}');
    }
    key(out, &f, "latencies");
    {
        bool c = true;
        strbuf_putc(out, '{');
        json_histogram(out, &c, "run_queue_wait", &p->queue_wait);
        json_histogram(out, &c, "message_delivery", &p->delivery);
        strbuf_putc(out, '}');
    }
    json_locks(out, &f, p);
    key(out, &f, "fairness");
    strbuf_printf(out, "{\"jain_worker_running\":%.6g,\"jain_process_reductions\":%.6g}", p->jain_busy,
                  p->jain_reductions);
    json_hw(out, &f, p);
    strbuf_puts(out, "}\n");
}
