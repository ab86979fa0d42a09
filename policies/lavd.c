/*
 * lavd.c — latency-criticality aware virtual deadlines over one shared
 * queue.
 *
 * Source: sched_ext's scx_lavd (sched-ext/scx, scheds/rust/scx_lavd/src/
 * bpf/main.bpf.c, lat_cri.bpf.c, lavd.bpf.h; Changwoo Min, Valve/Igalia),
 * with reductions as time: one reduction stands for 1 µs, so lavd's 1 s
 * frequency window is 1,000,000 reductions and its slices (0.5 to 5 ms)
 * become `slice_min` and `slice_max` below.
 *
 * Per process, from its callbacks:
 *  - wait_freq: how often it waits (stopping with STOP_WAIT), an EWMA
 *    (3/4 old, 1/4 new) of 1,000,000 / the interval since its last wait;
 *  - wake_freq: how often it wakes others (an enqueue with
 *    ENQUEUE_WAKE_BY_PROCESS names it as the waker), the same EWMA, an
 *    interval at least slice_min (LAVD_LC_WAKE_INTERVAL_MIN);
 *  - avg_runtime: an EWMA of its run since it last woke (acc_runtime,
 *    accumulated over consecutive slices).
 * Intervals are measured on a global clock: the reductions all workers
 * have run (stopping advances it), standing for lavd's wall clock.
 *
 * At each enqueue (calc_lat_cri): wait_ft and wake_ft = min(freq, 100000)
 * + 1; runtime_ft = (1,000,000 - avg_runtime) / slice_min, at least 1;
 * weight_ft = 100 * (1 + 128 if it was just woken) + 1 (every process has
 * lavd's nice-0 weight; the boost is lavd's wakeup boost);
 * lat_cri = (log2(wait_ft * wake_ft) + log2(runtime_ft * weight_ft))^2,
 * raised by 1/8 of the gap to its last waker's lat_cri when that is
 * higher. Its virtual deadline is the logical clock plus
 * (slice_max + min(acc_runtime, slice_max)) * 1024 / lat_cri: a more
 * latency-critical, shorter-running process runs sooner. All runnable
 * processes wait in one queue by deadline; any worker takes the earliest
 * (lavd has one queue per compute domain; clause has one domain). The
 * logical clock moves at each slice start toward that process's deadline
 * by 1/(number queued) of the gap, never back (advance_cur_logical_clk).
 *
 * Slice (calc_time_slice): target_latency * workers / (queued + 1),
 * clamped to [slice_min, slice_max], a quarter of that for a process that
 * never ran. A process unblocked after a blocked builtin runs first.
 * Left out: lavd's greedy ratio (service time against the average), its
 * slice boost for CPU-bound tasks, core compaction, frequency scaling and
 * kick-preemption (the contract cannot preempt a running slice).
 */
#include "policies/pheap.h"

#include <stdint.h>

enum { PARAM_TARGET_LATENCY, PARAM_SLICE_MIN, PARAM_SLICE_MAX };

static const struct policy_param lavd_params[] = {
    [PARAM_TARGET_LATENCY] = {"target_latency", POLICY_PARAM_INT, 8000, 100, 100000000, NULL,
                              "reductions in which every queued process should run once (lavd: 10 ms)"},
    [PARAM_SLICE_MIN] = {"slice_min", POLICY_PARAM_INT, 500, 10, 1000000, NULL, "shortest slice (lavd: 0.5 ms)"},
    [PARAM_SLICE_MAX] = {"slice_max", POLICY_PARAM_INT, POLICY_DEFAULT_BUDGET, 10, 1000000, NULL,
                         "longest slice (lavd: 5 ms)"},
};

#define FREQ_WINDOW 1000000u /* reductions standing for lavd's one second */
#define FREQ_MAX 100000u     /* LAVD_LC_FREQ_MAX: one event per 10 reductions */
#define WEIGHT 100u          /* sched_ext's weight of a nice-0 task */
#define WAKEUP_BOOST 128u    /* LAVD_LC_WEIGHT_BOOST */
#define INHERIT_SHIFT 3      /* 1/8 of the waker's higher criticality */

struct lv_proc {
    struct pheap_node node; /* first: pheap.h; key = virtual deadline */
    uint32_t wait_freq, wake_freq, avg_runtime, acc_runtime;
    uint32_t last_wait, last_wake; /* the global clock, modulo 2^32 */
    uint16_t lat_cri, lat_cri_waker;
    bool ran;
};

struct lv_shared {
    struct pheap queue;
    uint64_t clock;        /* reductions run by all workers */
    int64_t logical_clock; /* deadlines are measured from it */
};

static struct lv_proc *lv(struct process *p) { return sched_policy_proc_data(p); }
static struct lv_shared *shared(struct sched *s) { return sched_policy_shared_data(s); }
static uint32_t param(struct sched *s, unsigned i) { return (uint32_t)sched_policy_param(s, i); }

static unsigned log2_floor(uint64_t x) { return x ? 63u - (unsigned)__builtin_clzll(x) : 0; }

/* calc_avg_freq: EWMA of FREQ_WINDOW / interval. */
static uint32_t ewma_freq(uint32_t old, uint32_t interval)
{
    uint32_t fresh = FREQ_WINDOW / (interval ? interval : 1);
    return old - (old >> 2) + (fresh >> 2);
}

static uint16_t lat_cri_of(struct sched *s, struct lv_proc *v, bool woken)
{
    uint64_t wait_ft = (v->wait_freq < FREQ_MAX ? v->wait_freq : FREQ_MAX) + 1;
    uint64_t wake_ft = (v->wake_freq < FREQ_MAX ? v->wake_freq : FREQ_MAX) + 1;
    uint64_t runtime_ft = v->avg_runtime < FREQ_WINDOW ? (FREQ_WINDOW - v->avg_runtime) / param(s, PARAM_SLICE_MIN) : 1;
    uint64_t weight_ft = WEIGHT * (1 + (woken ? WAKEUP_BOOST : 0)) + 1;
    unsigned log = log2_floor(wait_ft * wake_ft) + log2_floor((runtime_ft ? runtime_ft : 1) * weight_ft);
    unsigned lat = log * log;
    if (v->lat_cri_waker > lat)
        lat += (v->lat_cri_waker - lat) >> INHERIT_SHIFT;
    return (uint16_t)(lat ? lat : 1);
}

static worker_id lavd_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                              enum enqueue_reason why)
{
    (void)self;
    struct lv_shared *sh = shared(s);
    struct lv_proc *v = lv(p);
    uint32_t now = (uint32_t)sh->clock, slice_max = param(s, PARAM_SLICE_MAX);
    if (why == ENQUEUE_SPAWN) {
        v->avg_runtime = slice_max; /* lavd's first guess: a full slice */
        v->last_wait = v->last_wake = now;
    }
    bool woken = why == ENQUEUE_WAKE_BY_PROCESS || why == ENQUEUE_WAKE_BY_RUNTIME;
    if (why == ENQUEUE_WAKE_BY_PROCESS && waker) {
        struct lv_proc *w = lv(waker);
        uint32_t interval = now - w->last_wake, least = param(s, PARAM_SLICE_MIN);
        w->wake_freq = ewma_freq(w->wake_freq, interval > least ? interval : least);
        w->last_wake = now;
        v->lat_cri_waker = w->lat_cri;
    }
    v->lat_cri = lat_cri_of(s, v, woken);
    uint64_t runtime = slice_max + (v->acc_runtime < slice_max ? v->acc_runtime : slice_max);
    int64_t deadline = sh->logical_clock + (int64_t)((runtime << 10) / v->lat_cri);
    pheap_push(&sh->queue, p, why == ENQUEUE_UNBLOCKED ? INT64_MIN : deadline);
    return sched_sleeping_worker(s, sched_proc_last_worker(p));
}

static struct process *lavd_pick_next(struct sched *s, worker_id w)
{
    struct process *p = pheap_pop(&shared(s)->queue);
    if (p)
        sched_proc_set_last_worker(p, w);
    return p;
}

static uint32_t lavd_running(struct sched *s, worker_id w, struct process *p)
{
    (void)w;
    struct lv_shared *sh = shared(s);
    struct lv_proc *v = lv(p);
    size_t queued = sh->queue.length;
    /* advance_cur_logical_clk: toward its deadline, slower when many wait. */
    if (v->node.key > sh->logical_clock)
        sh->logical_clock += (v->node.key - sh->logical_clock) / (int64_t)(queued ? queued : 1);
    uint64_t slice = (uint64_t)param(s, PARAM_TARGET_LATENCY) * sched_worker_count(s) / (queued + 1);
    uint64_t lo = param(s, PARAM_SLICE_MIN), hi = param(s, PARAM_SLICE_MAX);
    slice = slice < lo ? lo : slice > hi ? hi : slice;
    if (!v->ran)
        slice >>= 2; /* not yet known: a quarter */
    v->ran = true;
    return slice ? (uint32_t)slice : 1;
}

static void lavd_stopping(struct sched *s, worker_id w, struct process *p, uint32_t reductions, enum stop_reason why)
{
    (void)w;
    struct lv_shared *sh = shared(s);
    struct lv_proc *v = lv(p);
    sh->clock += reductions;
    if (v->acc_runtime < (1u << 31)) /* a process that never waits: saturate */
        v->acc_runtime += reductions;
    v->avg_runtime = v->avg_runtime - (v->avg_runtime >> 2) + (v->acc_runtime >> 2);
    if (why == STOP_WAIT) {
        uint32_t now = (uint32_t)sh->clock;
        v->wait_freq = ewma_freq(v->wait_freq, now - v->last_wait);
        v->last_wait = now;
        v->acc_runtime = 0;
    }
}

static void lavd_remove(struct sched *s, struct process *p) { pheap_remove(&shared(s)->queue, p); }

/* The one queue is everybody's: each worker reports its full length. */
static size_t lavd_queue_length(struct sched *s, worker_id w)
{
    (void)w;
    return shared(s)->queue.length;
}

const struct policy_ops lavd_policy = {
    .name = "lavd",
    .summary = "one shared queue by virtual deadline, shorter for latency-critical processes (scx_lavd)",
    .params = lavd_params,
    .param_count = sizeof lavd_params / sizeof lavd_params[0],
    .shared_bytes = sizeof(struct lv_shared),
    .proc_bytes = sizeof(struct lv_proc),
    .enqueue = lavd_enqueue,
    .pick_next = lavd_pick_next,
    .running = lavd_running,
    .stopping = lavd_stopping,
    .remove = lavd_remove,
    .queue_length = lavd_queue_length,
    .shared_queue = true,
};
