/* hw_counters.c — PAPI event sets per worker thread and clause's SDEs (hw_counters.h). */
#include "metrics/hw_counters.h"

#include <papi.h>
#include <pthread.h>
#include <sde_lib.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long thread_id(void) { return (unsigned long)pthread_self(); }

/* PAPI_library_init once per process; its result, kept for every later
 * executor (tests create many). */
static pthread_once_t papi_once = PTHREAD_ONCE_INIT;
static int papi_init_status;

static void papi_init(void)
{
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        papi_init_status = v < 0 ? v : PAPI_EINVAL;
        return;
    }
    papi_init_status = PAPI_thread_init(thread_id);
}

static void set_reason(char *out, size_t len, const char *what, int status)
{
    snprintf(out, len, "%s%s%s", what ? what : "", what ? ": " : "", PAPI_strerror(status));
}

/* Whether the event can be counted, alone, by this thread (why otherwise). */
static bool try_event(struct hw_event *e)
{
    int code;
    int status = PAPI_event_name_to_code(e->name, &code);
    if (status != PAPI_OK) {
        set_reason(e->why, sizeof e->why, NULL, status);
        return false;
    }
    int cidx = PAPI_get_event_component(code);
    const PAPI_component_info_t *info = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
    e->process_wide = info && strcmp(info->name, "sde") == 0;
    int set = PAPI_NULL;
    status = PAPI_create_eventset(&set);
    if (status == PAPI_OK)
        status = PAPI_add_event(set, code);
    if (set != PAPI_NULL) {
        PAPI_cleanup_eventset(set);
        PAPI_destroy_eventset(&set);
    }
    if (status != PAPI_OK) {
        if (info && info->disabled)
            snprintf(e->why, sizeof e->why, "%.40s: %.110s", info->name, info->disabled_reason);
        else
            set_reason(e->why, sizeof e->why, NULL, status);
        return false;
    }
    return true;
}

/* An event set with every usable event of the kind asked for, in the
 * events' order; events that do not fit beside the earlier ones are marked
 * unusable. PAPI_NULL when none is left. */
static int build_set(struct hw_counters *hc, bool process_wide, bool mark)
{
    int set = PAPI_NULL;
    if (PAPI_create_eventset(&set) != PAPI_OK)
        return PAPI_NULL;
    unsigned added = 0;
    for (unsigned i = 0; i < hc->event_count; i++) {
        struct hw_event *e = &hc->events[i];
        if (!e->usable || e->process_wide != process_wide)
            continue;
        int status = PAPI_add_named_event(set, e->name);
        if (status == PAPI_OK) {
            added++;
        } else if (mark) {
            e->usable = false;
            set_reason(e->why, sizeof e->why, "not countable together with the events before it", status);
        }
    }
    if (!added) {
        PAPI_cleanup_eventset(set);
        PAPI_destroy_eventset(&set);
        return PAPI_NULL;
    }
    return set;
}

static void drop_set(int *set)
{
    if (*set == PAPI_NULL)
        return;
    PAPI_cleanup_eventset(*set);
    PAPI_destroy_eventset(set);
}

/* One line: each of PAPI's reasons once, with the events it applies to. */
static void summarise_unavailable(struct hw_counters *hc)
{
    struct strbuf line = STRBUF_INIT;
    strbuf_puts(&line, "no usable counters (PAPI:");
    for (unsigned i = 0; i < hc->event_count; i++) {
        bool seen = false;
        for (unsigned k = 0; k < i && !seen; k++)
            seen = strcmp(hc->events[k].why, hc->events[i].why) == 0;
        if (seen)
            continue;
        strbuf_printf(&line, "%s %s: %s", i ? ";" : "", hc->events[i].why, hc->events[i].name);
        for (unsigned k = i + 1; k < hc->event_count; k++)
            if (strcmp(hc->events[k].why, hc->events[i].why) == 0)
                strbuf_printf(&line, ", %s", hc->events[k].name);
    }
    strbuf_putc(&line, ')');
    snprintf(hc->unavailable, sizeof hc->unavailable, "%s", strbuf_cstr(&line));
    strbuf_free(&line);
}

struct hw_counters *hw_counters_create(const char *events, unsigned workers)
{
    struct hw_counters *hc = calloc(1, sizeof *hc);
    if (!hc)
        return NULL;
    hc->workers = workers;
    hc->process_set = PAPI_NULL;
    hc->values = calloc((size_t)workers * HW_MAX_EVENTS, sizeof *hc->values);
    hc->counted = calloc(workers, sizeof *hc->counted);
    if (!hc->values || !hc->counted) {
        hw_counters_destroy(hc);
        return NULL;
    }
    const char *p = events ? events : HW_DEFAULT_EVENTS;
    while (*p && hc->event_count < HW_MAX_EVENTS) {
        size_t n = strcspn(p, ",");
        if (n > 0 && n < sizeof hc->events[0].name) {
            memcpy(hc->events[hc->event_count].name, p, n);
            hc->event_count++;
        }
        p += n + (p[n] == ',');
    }
    pthread_once(&papi_once, papi_init);
    unsigned usable = 0;
    for (unsigned i = 0; i < hc->event_count; i++) {
        struct hw_event *e = &hc->events[i];
        if (papi_init_status != PAPI_OK)
            set_reason(e->why, sizeof e->why, "PAPI_library_init", papi_init_status);
        else
            e->usable = try_event(e);
    }
    /* The per-thread events must fit in one set, as each worker counts them
     * all at once: what does not fit is dropped now, with the reason. */
    int trial = build_set(hc, false, true);
    drop_set(&trial);
    for (unsigned i = 0; i < hc->event_count; i++) {
        usable += hc->events[i].usable;
        hc->thread_events += hc->events[i].usable && !hc->events[i].process_wide;
    }
    if (!usable)
        summarise_unavailable(hc);
    return hc;
}

void hw_counters_destroy(struct hw_counters *hc)
{
    if (!hc)
        return;
    drop_set(&hc->process_set);
    free(hc->values);
    free(hc->counted);
    free(hc);
}

/* Each worker's set lives on its own thread: PAPI event sets belong to the
 * thread that created them. */
static _Thread_local int worker_set = PAPI_NULL;

void hw_counters_thread_start(struct hw_counters *hc, unsigned w)
{
    if (!hc->thread_events)
        return;
    /* Worker 0 is the thread that called sched_run, which PAPI knows
     * already and which keeps the process-wide set: it stays registered. */
    if (w != 0)
        PAPI_register_thread();
    worker_set = build_set(hc, false, false);
    if (worker_set != PAPI_NULL && PAPI_start(worker_set) != PAPI_OK)
        drop_set(&worker_set);
}

void hw_counters_thread_stop(struct hw_counters *hc, unsigned w)
{
    if (!hc->thread_events)
        return;
    if (worker_set != PAPI_NULL) {
        long long read[HW_MAX_EVENTS];
        if (PAPI_stop(worker_set, read) == PAPI_OK) {
            unsigned k = 0;
            for (unsigned i = 0; i < hc->event_count; i++)
                if (hc->events[i].usable && !hc->events[i].process_wide)
                    hc->values[(size_t)w * HW_MAX_EVENTS + i] = read[k++];
            hc->counted[w] = true;
        }
        drop_set(&worker_set);
    }
    if (w != 0)
        PAPI_unregister_thread();
}

void hw_counters_process_start(struct hw_counters *hc)
{
    hc->process_set = build_set(hc, true, false);
    if (hc->process_set != PAPI_NULL && PAPI_start(hc->process_set) != PAPI_OK)
        drop_set(&hc->process_set);
}

void hw_counters_process_stop(struct hw_counters *hc)
{
    if (hc->process_set == PAPI_NULL)
        return;
    long long read[HW_MAX_EVENTS];
    if (PAPI_stop(hc->process_set, read) == PAPI_OK) {
        unsigned k = 0;
        for (unsigned i = 0; i < hc->event_count; i++)
            if (hc->events[i].usable && hc->events[i].process_wide)
                hc->process_values[i] = read[k++];
        hc->process_counted = true;
    }
    drop_set(&hc->process_set);
}

long long hw_counters_value(const struct hw_counters *hc, unsigned w, unsigned e)
{
    if (w >= hc->workers || !hc->counted[w] || !hc->events[e].usable || hc->events[e].process_wide)
        return -1;
    return hc->values[(size_t)w * HW_MAX_EVENTS + e];
}

/* ---- clause's counters as SDEs ---- */

struct sde_source {
    const char *name;
    const char *description;
    size_t offset;  /* of the worker_metrics field summed; SIZE_MAX: the timer fires */
    size_t offset2; /* a second field added in, or SIZE_MAX */
};

static const struct sde_source sde_sources[] = {
    {"slices", "time slices run, all workers", offsetof(struct worker_metrics, slices), SIZE_MAX},
    {"steals", "processes stolen by idle workers", offsetof(struct worker_metrics, steals), SIZE_MAX},
    {"migrations", "slices that ran on another worker than the previous one",
     offsetof(struct worker_metrics, migrations_in), SIZE_MAX},
    {"wakeups", "sleeping workers woken by another worker", offsetof(struct worker_metrics, wakeups_sent), SIZE_MAX},
    {"sends", "messages sent to another process (direct or through arrivals)",
     offsetof(struct worker_metrics, sends_direct), offsetof(struct worker_metrics, sends_arrivals)},
    {"timer_fires", "timers fired by the timer wheel", SIZE_MAX, SIZE_MAX},
};
#define SDE_SOURCES (sizeof sde_sources / sizeof sde_sources[0])

/* What the callbacks read: one executor per process publishes at a time. */
static const struct worker_metrics *sde_metrics;
static unsigned sde_workers;
static const uint64_t *sde_timer_fires;

static uint64_t field(const struct worker_metrics *m, size_t offset)
{
    uint64_t v;
    memcpy(&v, (const char *)m + offset, sizeof v);
    return v;
}

/* Called by PAPI when a tool reads the event; the workers may be writing
 * meanwhile, so a value read mid-run is a recent one, not an exact one. */
static long long read_sde(void *param)
{
    const struct sde_source *src = param;
    if (src->offset == SIZE_MAX)
        return sde_timer_fires ? (long long)*sde_timer_fires : 0;
    uint64_t sum = 0;
    for (unsigned w = 0; w < sde_workers; w++) {
        sum += field(&sde_metrics[w], src->offset);
        if (src->offset2 != SIZE_MAX)
            sum += field(&sde_metrics[w], src->offset2);
    }
    return (long long)sum;
}

/* libsde keeps the names and descriptions for the process's life (and
 * leaks the old ones when registered again): once per process. */
static pthread_once_t sde_once = PTHREAD_ONCE_INIT;

static void register_sde(void)
{
    papi_handle_t handle = papi_sde_init("clause");
    if (!handle)
        return;
    for (size_t i = 0; i < SDE_SOURCES; i++) {
        papi_sde_register_counter_cb(handle, sde_sources[i].name, PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
                                     read_sde, (void *)&sde_sources[i]);
        papi_sde_describe_counter(handle, sde_sources[i].name, sde_sources[i].description);
    }
}

void hw_counters_publish_sde(const struct worker_metrics *metrics, unsigned workers, const uint64_t *timer_fires)
{
    sde_metrics = metrics;
    sde_workers = workers;
    sde_timer_fires = timer_fires;
    pthread_once(&sde_once, register_sde);
}
