/*
 * test_watchdog.c — the stall watchdog and lost-wakeup detector
 * (--watchdog): two broken policies compiled only into these tests, one
 * whose enqueue drops a process on the floor and one that never wakes a
 * sleeping worker, are each caught with a short watchdog; the program is
 * handed to global_fifo and ends with every message delivered, and
 * --profile counts the event.
 */
#include "metrics/profile.h"
#include "policies/proc_queue.h"
#include "rt/executor.h"
#include "rt/message.h"
#include "rt/node.h"
#include "rt/sched_profile.h"
#include "rt/sched_trace.h"
#include "term/strbuf.h"
#include "test_main.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SENDERS = 8, MESSAGES = 500, SHORT_WATCHDOG_MS = 200 };

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the workload: SENDERS processes each send MESSAGES to main ---- */

struct workload {
    int spawned, received;
    /* Main yields until then, and until no other worker is awake, before
     * it spawns (0: it spawns at once). */
    uint64_t spin_until_ns;
    term main;
};

struct sender {
    term to;
    int sent;
};

static enum body_stop sender_step(struct process *p, void *state)
{
    struct sender *x = state;
    while (x->sent < MESSAGES) {
        x->sent++;
        if (sched_send(p, x->to, make_small(x->sent)) != SEND_OK)
            return BODY_EXIT; /* a failure, already reported */
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    return BODY_EXIT;
}

static enum body_stop main_step(struct process *p, void *state)
{
    struct workload *w = state;
    if (w->spin_until_ns && (mono_ns() < w->spin_until_ns || node_workers_awake(p) > 1)) {
        proc_spend(p, 1);
        return BODY_YIELD;
    }
    w->main = p->pid;
    while (w->spawned < SENDERS) {
        struct sender *x = calloc(1, sizeof *x);
        if (!x)
            abort();
        x->to = p->pid;
        if (is_non_value(sched_spawn_native(proc_sched(p), p, sender_step, x, free))) {
            free(x);
            return BODY_EXIT; /* received stays short: the test fails */
        }
        w->spawned++;
    }
    while (is_value(proc_receive_peek(p))) {
        proc_receive_take(p);
        if (++w->received == SENDERS * MESSAGES)
            return BODY_EXIT;
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
    return BODY_WAIT;
}

/* ---- a policy that loses a process: one FIFO whose enqueue drops the
 * second sender's spawn ---- */

static term lossy_dropped;

struct lossy {
    struct proc_queue queue;
    unsigned spawns;
};

static struct lossy *lossy_state(struct sched *s) { return sched_policy_shared_data(s); }

static worker_id lossy_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                               enum enqueue_reason why)
{
    (void)self;
    (void)waker;
    struct lossy *l = lossy_state(s);
    if (why == ENQUEUE_SPAWN && ++l->spawns == 3) { /* main, a sender, then this one */
        lossy_dropped = p->pid;
        return NOT_A_WORKER; /* on the floor */
    }
    proc_queue_push_back(&l->queue, p);
    return sched_sleeping_worker(s, sched_proc_last_worker(p));
}

static struct process *lossy_pick_next(struct sched *s, worker_id w)
{
    (void)w;
    return proc_queue_pop_front(&lossy_state(s)->queue);
}

/* It removes only what its queue holds (the dropped process is not there). */
static void lossy_remove(struct sched *s, struct process *p)
{
    struct proc_queue *q = &lossy_state(s)->queue;
    for (struct process *at = q->head; at; at = *proc_queue_next(at))
        if (at == p) {
            proc_queue_remove(q, p);
            return;
        }
}

static size_t lossy_queue_length(struct sched *s, worker_id w)
{
    (void)w;
    return lossy_state(s)->queue.length;
}

static const struct policy_ops lossy_policy = {
    .name = "lossy",
    .summary = "test: one FIFO that drops the second sender's spawn",
    .shared_bytes = sizeof(struct lossy),
    .enqueue = lossy_enqueue,
    .pick_next = lossy_pick_next,
    .remove = lossy_remove,
    .queue_length = lossy_queue_length,
    .shared_queue = true,
};

/* ---- a policy that never wakes a worker: per-worker FIFOs, a spawn goes
 * to the next worker's queue, everything else to its last worker's; no
 * stealing, and enqueue names no worker to wake ---- */

static struct proc_queue *sleepy_queue(struct sched *s, worker_id w) { return sched_policy_worker_data(s, w); }

static worker_id sleepy_enqueue(struct sched *s, worker_id self, struct process *waker, struct process *p,
                                enum enqueue_reason why)
{
    (void)self;
    worker_id target = sched_proc_last_worker(p);
    if (why == ENQUEUE_SPAWN && waker)
        target = (worker_id)(((unsigned)target + 1) % sched_worker_count(s));
    sched_proc_set_last_worker(p, target);
    proc_queue_push_back(sleepy_queue(s, target), p);
    return NOT_A_WORKER; /* never wakes anyone */
}

static struct process *sleepy_pick_next(struct sched *s, worker_id w)
{
    return proc_queue_pop_front(sleepy_queue(s, w));
}

static void sleepy_remove(struct sched *s, struct process *p)
{
    proc_queue_remove(sleepy_queue(s, sched_proc_last_worker(p)), p);
}

static size_t sleepy_queue_length(struct sched *s, worker_id w) { return sleepy_queue(s, w)->length; }

static const struct policy_ops sleepy_policy = {
    .name = "sleepy",
    .summary = "test: per-worker FIFOs, spawns to the next worker, no wakeups",
    .worker_bytes = sizeof(struct proc_queue),
    .enqueue = sleepy_enqueue,
    .pick_next = sleepy_pick_next,
    .remove = sleepy_remove,
    .queue_length = sleepy_queue_length,
};

/* ---- running them ---- */

struct outcome {
    int status;
    int received;
    struct sched_watchdog_event event;
    char json[8192];
    char traced[512]; /* --trace's watchdog event, "" when it has none */
};

/* Runs the workload under policy with `workers` and a watchdog of
 * watchdog_ms, --profile (no PAPI events) and --trace on. */
static void run(const struct policy_ops *policy, unsigned workers, unsigned watchdog_ms, uint64_t spin_ms,
                struct outcome *out)
{
    struct sched_config config = test_sched_config(policy, workers);
    config.watchdog_ms = watchdog_ms;
    struct sched *s = test_sched_create(&config);
    CU_ASSERT_TRUE_FATAL(sched_profile_start(s, "", 0));
    CU_ASSERT_TRUE_FATAL(sched_trace_start(s, 0, 1));
    struct workload w = {0};
    w.spin_until_ns = spin_ms ? mono_ns() + spin_ms * 1000000u : 0;
    term main_pid = sched_spawn_native(s, NULL, main_step, &w, NULL);
    out->status = sched_run(s, main_pid);
    out->received = w.received;
    out->event = *sched_watchdog_event(s);
    struct profile p = {0};
    sched_profile_collect(s, &p);
    p.version = "test";
    p.policy = policy->name;
    p.send_mode = "arrivals";
    p.timer_mode = "thread";
    p.binding = "";
    p.otp_options = "";
    p.program = "test";
    p.watchdog_ms = watchdog_ms;
    struct strbuf json = STRBUF_INIT;
    profile_write_json(&p, &json);
    snprintf(out->json, sizeof out->json, "%s", strbuf_cstr(&json));
    strbuf_free(&json);
    struct strbuf trace = STRBUF_INIT;
    sched_trace_write_json(s, "test", &trace);
    const char *event = strstr(strbuf_cstr(&trace), "{\"name\":\"watchdog\"");
    const char *end = event ? strstr(event, "}}") : NULL;
    snprintf(out->traced, sizeof out->traced, "%.*s", end ? (int)(end - event) : 0, event ? event : "");
    strbuf_free(&trace);
    sched_destroy(s);
}

/* The JSON's watchdog section: one event of this kind. */
static bool json_has_event(const char *json, const char *kind)
{
    const char *section = strstr(json, "\"watchdog\":{");
    char expected[64];
    snprintf(expected, sizeof expected, "\"kind\":\"%s\"", kind);
    return section && strstr(section, "\"count\":1") && strstr(section, expected) &&
           strstr(section, "\"handed_to\":\"global_fifo\"");
}

static void test_a_lost_process_is_caught_as_a_stall(void)
{
    /* One worker: it was awake when the process was dropped (it ran the
     * spawn), so only the stall can catch it. */
    struct outcome *o = calloc(1, sizeof *o);
    lossy_dropped = 0;
    run(&lossy_policy, 1, SHORT_WATCHDOG_MS, 0, o);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_EQUAL(o->received, SENDERS * MESSAGES);
    CU_ASSERT_EQUAL(o->event.kind, WATCHDOG_STALL);
    CU_ASSERT_EQUAL(o->event.pid, lossy_dropped);
    CU_ASSERT_TRUE(o->event.waited_ms > SHORT_WATCHDOG_MS);
    CU_ASSERT_STRING_EQUAL(o->event.from_policy, "lossy");
    CU_ASSERT_STRING_EQUAL(o->event.to_policy, "global_fifo");
    CU_ASSERT_TRUE(json_has_event(o->json, "stall"));
    /* The trace shows it across every worker's track, with its facts. */
    char pid[64];
    snprintf(pid, sizeof pid, "\"pid\":\"<0.%llu.0>\"", (unsigned long long)pid_number(lossy_dropped));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->traced, "\"ph\":\"i\",\"s\":\"g\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->traced, "\"kind\":\"stall\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->traced, pid));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->traced, "\"policy\":\"lossy\",\"handed_to\":\"global_fifo\""));
    /* More workers: a worker asleep since before the drop makes it a lost
     * wakeup instead; either way it is caught once and the run completes. */
    for (unsigned workers = 2; workers <= 4; workers += 2) {
        lossy_dropped = 0;
        run(&lossy_policy, workers, SHORT_WATCHDOG_MS, 0, o);
        CU_ASSERT_EQUAL(o->status, 0);
        CU_ASSERT_EQUAL(o->received, SENDERS * MESSAGES);
        CU_ASSERT_NOT_EQUAL(o->event.kind, WATCHDOG_NONE);
        CU_ASSERT_TRUE(json_has_event(o->json, "stall") || json_has_event(o->json, "lost_wakeup"));
    }
    free(o);
}

static void test_a_worker_never_woken_is_caught_as_a_lost_wakeup(void)
{
    /* Main yields on worker 0 for 300 ms and until worker 1 has gone to
     * sleep (its queue was empty: under TSan on a loaded machine 300 ms
     * alone was not always enough), then spawns every sender into worker
     * 1's queue without waking it. */
    struct outcome *o = calloc(1, sizeof *o);
    /* A watchdog of 1 s: caught after 100 ms and a period, 900 ms before a
     * stall would be, however late a loaded machine runs the check. */
    run(&sleepy_policy, 2, 1000, 300, o);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_EQUAL(o->received, SENDERS * MESSAGES);
    CU_ASSERT_EQUAL(o->event.kind, WATCHDOG_LOST_WAKEUP);
    CU_ASSERT_TRUE(o->event.waited_ms > 1000 / 10);
    CU_ASSERT_STRING_EQUAL(o->event.from_policy, "sleepy");
    CU_ASSERT_TRUE(json_has_event(o->json, "lost_wakeup"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->traced, "\"kind\":\"lost_wakeup\""));
    free(o);
}

static void test_no_event_under_a_real_policy(void)
{
    /* The same workload under every real policy, with the short watchdog:
     * nothing waits long enough to set it off. */
    struct outcome *o = calloc(1, sizeof *o);
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        run(*policy, 2, SHORT_WATCHDOG_MS * 10, 0, o);
        CU_ASSERT_EQUAL(o->status, 0);
        CU_ASSERT_EQUAL(o->received, SENDERS * MESSAGES);
        CU_ASSERT_EQUAL(o->event.kind, WATCHDOG_NONE);
        CU_ASSERT_PTR_NOT_NULL(strstr(o->json, "\"watchdog\":{\"ms\":2000,\"count\":0,\"events\":[]}"));
        CU_ASSERT_STRING_EQUAL(o->traced, "");
    }
    free(o);
}

static void test_watchdog_off(void)
{
    /* 0 turns it off: the lost process is never found (the run would hang),
     * so only a run that needs no rescue is made; nothing is reported. */
    struct outcome *o = calloc(1, sizeof *o);
    run(policy_find("global_fifo"), 2, 0, 0, o);
    CU_ASSERT_EQUAL(o->status, 0);
    CU_ASSERT_EQUAL(o->event.kind, WATCHDOG_NONE);
    CU_ASSERT_PTR_NOT_NULL(strstr(o->json, "\"watchdog\":{\"ms\":0,\"count\":0,\"events\":[]}"));
    free(o);
}

static CU_TestInfo tests[] = {
    {"a lost process is caught as a stall, and the run completes", test_a_lost_process_is_caught_as_a_stall},
    {"a worker never woken is caught as a lost wakeup, and the run completes",
     test_a_worker_never_woken_is_caught_as_a_lost_wakeup},
    {"no event under a real policy", test_no_event_under_a_real_policy},
    {"--watchdog 0 is off", test_watchdog_off},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(watchdog, tests)
