/* metrics.c — summing and classifying the per-worker counters (metrics.h). */
#include "metrics/metrics.h"

void metrics_add(struct worker_metrics *total, const struct worker_metrics *a)
{
    total->slices += a->slices;
    total->reductions += a->reductions;
    total->spawned += a->spawned;
    total->balance_taken += a->balance_taken;
    total->steal_attempts += a->steal_attempts;
    total->steals += a->steals;
    total->stolen_from += a->stolen_from;
    total->wakeups_sent += a->wakeups_sent;
    total->sleeps += a->sleeps;
    total->busy_ns += a->busy_ns;
    total->idle_ns += a->idle_ns;
    total->wakeups_received += a->wakeups_received;
    total->busy_wait_found += a->busy_wait_found;
    total->busy_wait_slept += a->busy_wait_slept;
    total->first_runs += a->first_runs;
    total->migrations_in += a->migrations_in;
    total->migrations_out += a->migrations_out;
    total->sends_self += a->sends_self;
    total->sends_direct += a->sends_direct;
    total->sends_arrivals += a->sends_arrivals;
    total->sends_blocked += a->sends_blocked;
    total->sends_dropped += a->sends_dropped;
    total->receives += a->receives;
    total->words_copied += a->words_copied;
    total->collections_elsewhere += a->collections_elsewhere;
    total->exits_normal += a->exits_normal;
    total->exits_shutdown += a->exits_shutdown;
    total->exits_killed += a->exits_killed;
    total->exits_other += a->exits_other;
    total->arena_warmed_bytes += a->arena_warmed_bytes;
    total->run_ticks += a->run_ticks;
    total->run_samples += a->run_samples;
    total->run_ns += a->run_ns;
    total->queue_samples += a->queue_samples;
    total->queue_len_sum += a->queue_len_sum;
    if (a->queue_len_max > total->queue_len_max)
        total->queue_len_max = a->queue_len_max;
    if (a->peak_live > total->peak_live)
        total->peak_live = a->peak_live;
}

void metrics_count_exit(struct worker_metrics *m, enum exit_kind kind)
{
    switch (kind) {
    case EXIT_KIND_NORMAL:
        m->exits_normal++;
        break;
    case EXIT_KIND_SHUTDOWN:
        m->exits_shutdown++;
        break;
    case EXIT_KIND_KILLED:
        m->exits_killed++;
        break;
    case EXIT_KIND_OTHER:
        m->exits_other++;
        break;
    }
}

double metrics_jain_index(const double *x, size_t n)
{
    double sum = 0, squares = 0;
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        squares += x[i] * x[i];
    }
    if (n == 0 || squares == 0)
        return 1.0;
    return sum * sum / ((double)n * squares);
}

void sampler_init(struct sampler *s, uint32_t interval, uint64_t seed)
{
    s->interval = interval ? interval : 1;
    s->random = seed ? seed : 0x9e3779b97f4a7c15u;
    s->left = sampler_next_gap(s);
}

uint32_t sampler_next_gap(struct sampler *s)
{
    if (s->interval == 1)
        return 1;
    uint64_t x = s->random;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s->random = x;
    return 1 + (uint32_t)(x % (2 * (uint64_t)s->interval - 1));
}

const char *slice_end_name(enum slice_end why)
{
    static const char *const names[SLICE_END_KINDS] = {"budget", "yield", "trap", "wait", "exit", "blocked", "collect"};
    return (unsigned)why < SLICE_END_KINDS ? names[why] : "?";
}
