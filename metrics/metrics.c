/* metrics.c — summing and printing the per-worker counters (metrics.h). */
#include "metrics.h"

#include <stdio.h>

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
}

static void row(struct strbuf *out, const char *label, const struct worker_metrics *m)
{
    strbuf_printf(out, "%-7s %10llu %12llu %8llu %8llu %8llu %7llu %7llu %8llu %8llu %10.1f %10.1f\n", label,
                  (unsigned long long)m->slices, (unsigned long long)m->reductions, (unsigned long long)m->spawned,
                  (unsigned long long)m->balance_taken, (unsigned long long)m->steal_attempts,
                  (unsigned long long)m->steals, (unsigned long long)m->stolen_from,
                  (unsigned long long)m->wakeups_sent, (unsigned long long)m->sleeps, m->busy_ns / 1e6,
                  m->idle_ns / 1e6);
}

void metrics_report(struct strbuf *out, const struct worker_metrics *workers, unsigned n)
{
    strbuf_printf(out, "%-7s %10s %12s %8s %8s %8s %7s %7s %8s %8s %10s %10s\n", "worker", "slices", "reductions",
                  "spawned", "balanced", "steal-try", "stole", "stolen", "wakeups", "sleeps", "busy-ms", "idle-ms");
    struct worker_metrics total = {0};
    char label[16];
    for (unsigned i = 0; i < n; i++) {
        snprintf(label, sizeof label, "%u", i);
        row(out, label, &workers[i]);
        metrics_add(&total, &workers[i]);
    }
    row(out, "total", &total);
}
