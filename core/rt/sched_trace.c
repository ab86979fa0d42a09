/* sched_trace.c — --trace's rings on an executor and their JSON (see sched_trace.h). */
#include "rt/sched_trace.h"

#include "rt/internal.h"
#include "rt/schedule.h"
#include "term/atom.h"

#include <stdlib.h>
#include <string.h>

bool sched_trace_start(struct sched *s, uint64_t limit, uint32_t sample)
{
    unsigned ring_count = s->worker_count + 1;
    struct trace_ring *rings = aligned_alloc(64, sizeof *rings * ring_count);
    if (!rings)
        return false;
    for (unsigned i = 0; i < ring_count; i++) {
        if (!trace_ring_init(&rings[i], limit ? limit : TRACE_LIMIT_DEFAULT)) {
            while (i-- > 0)
                trace_ring_free(&rings[i]);
            free(rings);
            return false;
        }
        rings[i].logical_ns = s->schedule ? schedule_clock(s->schedule) : NULL;
    }
    s->trace_sample = sample ? sample : 1;
    for (unsigned i = 0; i < s->worker_count; i++)
        s->workers[i].trace_countdown = 1; /* each worker's first slice is recorded */
    s->trace = rings;
    return true;
}

const struct trace_ring *sched_trace_rings(const struct sched *s) { return s->trace; }

void sched_trace_free(struct sched *s)
{
    if (!s->trace)
        return;
    for (unsigned i = 0; i <= s->worker_count; i++)
        trace_ring_free(&s->trace[i]);
    free(s->trace);
    s->trace = NULL;
}

/* bytes as a JSON string's contents. */
static void put_json_text(struct strbuf *out, const char *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if (c == '"' || c == '\\')
            strbuf_printf(out, "\\%c", c);
        else if (c < 0x20)
            strbuf_printf(out, "\\u%04x", c);
        else
            strbuf_putc(out, (char)c);
    }
}

/* ns as microseconds with three decimals: integer formatting, since
 * printf's %f cost most of the writing of a large trace. */
static void put_us(struct strbuf *out, uint64_t ns)
{
    strbuf_printf(out, "%llu.%03u", (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

static const char *instant_name(enum trace_kind kind)
{
    switch (kind) {
    case TRACE_STEAL:
        return "steal";
    case TRACE_MIGRATION:
        return "migration";
    case TRACE_SLEEP:
        return "sleep";
    case TRACE_WAKEUP:
        return "wakeup";
    case TRACE_FLOW_START:
    case TRACE_FLOW_END:
        return "wake";
    case TRACE_BALANCE:
        return "balance";
    case TRACE_WATCHDOG:
        return "watchdog";
    case TRACE_COLLECT:
        return "collection";
    case TRACE_BUILTIN_ELSEWHERE:
        return "builtin";
    case TRACE_SLICE:
        break;
    }
    return "slice";
}

/* A process as the trace names it. */
static void put_pid(struct strbuf *out, uint64_t pid) { strbuf_printf(out, "\"<0.%llu.0>\"", (unsigned long long)pid); }

/* A registered name as a JSON string, or null. */
static void put_name(struct strbuf *out, term name)
{
    size_t len = 0;
    const char *text = is_value(name) ? atom_text(name, &len) : NULL;
    if (!text) {
        strbuf_puts(out, "null");
        return;
    }
    strbuf_putc(out, '"');
    put_json_text(out, text, len);
    strbuf_putc(out, '"');
}

/* A complete event's fields after its name: category, start ts and e's
 * duration on track tid, and its args opened with e's pid and name (the
 * caller adds the rest and closes them). */
static void put_span(struct strbuf *out, const struct trace_record *e, const char *category, unsigned tid, uint64_t ts,
                     double ns_per_tick)
{
    strbuf_printf(out, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", category);
    put_us(out, ts);
    strbuf_puts(out, ",\"dur\":");
    put_us(out, (uint64_t)((double)e->ticks * ns_per_tick));
    strbuf_printf(out, ",\"pid\":1,\"tid\":%u,\"args\":{\"pid\":", tid);
    put_pid(out, e->pid);
    strbuf_puts(out, ",\"name\":");
    put_name(out, e->name);
}

/* One record of the ring `tid` names (the run-queue lock's records say
 * their own track), at ts microseconds. */
static void put_event(struct sched *s, struct strbuf *out, const struct trace_record *e, unsigned tid, uint64_t ts,
                      double ns_per_tick)
{
    if (e->kind == TRACE_FLOW_START || e->kind == TRACE_FLOW_END) {
        /* Chrome's flow events: the start binds to the waker's slice
         * around it, the end (bp "e") to the slice that starts at its time. */
        strbuf_printf(out, ",\n{\"name\":\"wake\",\"cat\":\"wake\",\"ph\":\"%s\",\"id\":%llu,%s\"ts\":",
                      e->kind == TRACE_FLOW_START ? "s" : "f", (unsigned long long)e->ticks,
                      e->kind == TRACE_FLOW_END ? "\"bp\":\"e\"," : "");
        put_us(out, ts);
        strbuf_printf(out, ",\"pid\":1,\"tid\":%u,\"args\":{\"woken\":", tid);
        put_pid(out, e->pid);
        strbuf_puts(out, "}}");
        return;
    }
    if (e->kind == TRACE_SLICE) {
        strbuf_puts(out, ",\n{\"name\":\"");
        size_t len = 0;
        const char *name = is_value(e->name) ? atom_text(e->name, &len) : NULL;
        if (name)
            put_json_text(out, name, len);
        else
            strbuf_printf(out, "<0.%llu.0>", (unsigned long long)e->pid);
        strbuf_puts(out, "\"");
        put_span(out, e, "slice", tid, ts, ns_per_tick);
        strbuf_printf(out, ",\"reductions\":%u,\"end\":\"%s\"}}", e->reds, slice_end_name((enum slice_end)e->why));
        return;
    }
    if (e->kind == TRACE_COLLECT || e->kind == TRACE_BUILTIN_ELSEWHERE) {
        /* On its collector's track, after the workers'. */
        const char *name = instant_name((enum trace_kind)e->kind);
        strbuf_printf(out, ",\n{\"name\":\"%s\"", name);
        put_span(out, e, name, tid, ts, ns_per_tick);
        strbuf_printf(out, ",\"reductions\":%u,\"worker\":%u}}", e->reds, e->why);
        return;
    }
    /* The watchdog's act concerns every worker: a global instant. */
    bool global = e->kind == TRACE_WATCHDOG;
    strbuf_printf(out, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"%s\",\"ts\":",
                  instant_name((enum trace_kind)e->kind), global ? "watchdog" : "worker", global ? "g" : "t");
    put_us(out, ts);
    strbuf_printf(out, ",\"pid\":1,\"tid\":%u,\"args\":{", tid);
    switch ((enum trace_kind)e->kind) {
    case TRACE_STEAL:
        strbuf_printf(out, "\"from_worker\":%u", e->other);
        break;
    case TRACE_MIGRATION:
        strbuf_puts(out, "\"pid\":");
        put_pid(out, e->pid);
        strbuf_printf(out, ",\"from_worker\":%u", e->other);
        break;
    case TRACE_WAKEUP:
        strbuf_printf(out, "\"woken\":%s", e->why ? "true" : "false");
        break;
    case TRACE_BALANCE:
        strbuf_printf(out, "\"from_worker\":%u", e->other);
        break;
    case TRACE_WATCHDOG: {
        const struct sched_watchdog_event *act = &s->watchdog.event;
        strbuf_printf(out, "\"kind\":\"%s\",\"pid\":", e->why == WATCHDOG_STALL ? "stall" : "lost_wakeup");
        put_pid(out, e->pid);
        strbuf_puts(out, ",\"name\":");
        put_name(out, e->name);
        strbuf_printf(out, ",\"waited_ms\":%u,\"policy\":\"%s\",\"handed_to\":", e->reds,
                      act->from_policy ? act->from_policy : "");
        if (act->to_policy)
            strbuf_printf(out, "\"%s\"", act->to_policy);
        else
            strbuf_puts(out, "null");
        break;
    }
    case TRACE_SLEEP:
    case TRACE_SLICE:
    case TRACE_FLOW_START:
    case TRACE_FLOW_END:
    case TRACE_COLLECT:
    case TRACE_BUILTIN_ELSEWHERE:
        break;
    }
    strbuf_puts(out, "}}");
}

void sched_trace_write_json(struct sched *s, const char *program, struct strbuf *out)
{
    /* Ticks to microseconds since the start, against the monotonic clock
     * over the whole run (as --profile converts its slice times). */
    uint64_t start = s->start_stamp, span_ticks = profile_stamp() - start;
    double ns_per_tick = span_ticks ? (double)sched_ticks_to_ns(s, span_ticks) / (double)span_ticks : 1.0;
    if (s->schedule) {
        /* Stamped on the logical clock: nanoseconds since the start. */
        start = 0;
        ns_per_tick = 1.0;
    }
    uint64_t recorded = 0, dropped = 0;
    strbuf_puts(out, "{\"traceEvents\":[\n");
    strbuf_puts(out,
                "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"ts\":0,\"args\":{\"name\":\"clause ");
    put_json_text(out, program, strlen(program));
    strbuf_puts(out, "\"}}");
    for (unsigned w = 0; w < s->worker_count; w++)
        strbuf_printf(out,
                      ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"ts\":0,\"args\":{\"name\":"
                      "\"worker %u\"}}",
                      w, w);
    for (unsigned c = 0; c < s->collectors.count; c++)
        strbuf_printf(out,
                      ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"ts\":0,\"args\":{\"name\":"
                      "\"collector %u\"}}",
                      s->worker_count + c, c);
    const struct trace_ring *locked = sched_trace_locked_ring(s->trace, s->worker_count);
    for (unsigned ring = 0; ring <= s->worker_count; ring++) {
        const struct trace_ring *r = &s->trace[ring];
        uint64_t kept = trace_ring_kept(r);
        recorded += r->written;
        dropped += trace_ring_dropped(r);
        for (uint64_t i = 0; i < kept; i++) {
            const struct trace_record *e = trace_ring_at(r, i);
            /* A stamp read before the start (none should be) is clamped to 0. */
            uint64_t ts = e->stamp > start ? (uint64_t)((double)(e->stamp - start) * ns_per_tick) : 0;
            /* A balance move shows on the worker that gained the process. */
            unsigned tid = r != locked                                                      ? ring
                           : e->kind == TRACE_BALANCE                                       ? e->reds
                           : e->kind == TRACE_COLLECT || e->kind == TRACE_BUILTIN_ELSEWHERE ? s->worker_count + e->other
                                                                                            : 0;
            put_event(s, out, e, tid, ts, ns_per_tick);
        }
    }
    strbuf_printf(out, "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"program\":\"");
    put_json_text(out, program, strlen(program));
    strbuf_printf(out,
                  "\",\"workers\":%u,\"collectors\":%u,\"policy\":\"%s\",\"trace_limit\":%llu,\"trace_sample\":%u,"
                  "\"events_recorded\":%llu,\"events_dropped\":%llu,\"dropped_per_worker\":[",
                  s->worker_count, s->collectors.count, s->policy->name, (unsigned long long)s->trace[0].capacity,
                  s->trace_sample, (unsigned long long)recorded, (unsigned long long)dropped);
    for (unsigned w = 0; w < s->worker_count; w++)
        strbuf_printf(out, "%s%llu", w ? "," : "", (unsigned long long)trace_ring_dropped(&s->trace[w]));
    strbuf_printf(out, "],\"dropped_under_lock\":%llu}}\n", (unsigned long long)trace_ring_dropped(locked));
}
