/*
 * sysmon.c — erlang:system_monitor's setting and the messages it sends
 * (OTP 25's erl_bif_trace.c and erl_process.c):
 *
 *   {monitor, Pid, long_schedule, [{timeout, Ms}, {in, Location}, {out, Location}]}
 *   {monitor, Pid, long_gc, [{timeout, Ms}, {old_heap_block_size, W}, {heap_block_size, W},
 *                            {mbuf_size, W}, {stack_size, W}, {old_heap_size, W}, {heap_size, W}]}
 *
 * Ms is the time the slice or the collection took, in whole milliseconds;
 * a message is sent when it is more than the threshold, as OTP compares.
 * Location is {M, F, A} of the function the process ran, or undefined
 * (OTP 25 names no function for a process inside a builtin's trap, and
 * neither does clause for one that stands in a builtin continuing in
 * portions). As on OTP, nothing is sent about the monitor process itself,
 * and the setting goes when the monitor ends.
 */
#include "rt/internal.h"
#include "rt/proc_gc.h"
#include "term/atom.h"

#include <stdatomic.h>

uint64_t sched_ticks_to_ns(const struct sched *s, uint64_t ticks)
{
#if defined(__x86_64__) || defined(__i386__)
    uint64_t stamp = profile_stamp(), ns = sched_clock_ns();
    uint64_t span_ticks = stamp - s->start_stamp, span_ns = ns - s->start_ns;
    return span_ticks ? (uint64_t)((double)ticks * (double)span_ns / (double)span_ticks) : ticks;
#else
    (void)s;
    return ticks; /* profile_stamp is the monotonic clock in ns */
#endif
}

void node_system_monitor_get(struct process *self, struct node_sysmon *out)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    *out = s->sysmon;
    rt_unlock(&s->exec_lock);
}

bool node_system_monitor_set(struct process *self, const struct node_sysmon *set, struct node_sysmon *old)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    if (is_value(set->pid) && !proc_table_lookup(&s->table, pid_number(set->pid))) {
        rt_unlock(&s->exec_lock);
        return false;
    }
    *old = s->sysmon;
    s->sysmon = *set;
    if (is_non_value(set->pid))
        s->sysmon = (struct node_sysmon){.pid = THE_NON_VALUE};
    atomic_store_explicit(&s->sysmon_long_schedule_ms, s->sysmon.long_schedule, memory_order_relaxed);
    atomic_store_explicit(&s->sysmon_long_gc_ms, s->sysmon.long_gc, memory_order_relaxed);
    rt_unlock(&s->exec_lock);
    return true;
}

void sysmon_process_ended_locked(struct sched *s, const struct process *p)
{
    if (s->sysmon.pid != p->pid)
        return;
    s->sysmon = (struct node_sysmon){.pid = THE_NON_VALUE};
    atomic_store_explicit(&s->sysmon_long_schedule_ms, 0, memory_order_relaxed);
    atomic_store_explicit(&s->sysmon_long_gc_ms, 0, memory_order_relaxed);
}

/* The monitor, when one is set and it is not pid itself. */
static struct process *monitor_for_locked(struct sched *s, term pid)
{
    if (is_non_value(s->sysmon.pid) || s->sysmon.pid == pid)
        return NULL;
    return proc_table_lookup(&s->table, pid_number(s->sysmon.pid));
}

/* {Tag, Value} in words[0..3). */
static term pair(term *words, term tag, term value)
{
    words[0] = make_header(SUBTAG_TUPLE, 2);
    words[1] = tag;
    words[2] = value;
    return make_boxed(words);
}

/* Location: {M, F, A} in words[0..4), or undefined. */
static term location(term *words, const struct body_location *l)
{
    if (is_non_value(l->module) || is_value(l->bif_module))
        return A(undefined);
    words[0] = make_header(SUBTAG_TUPLE, 3);
    words[1] = l->module;
    words[2] = l->function;
    words[3] = make_small(l->arity);
    return make_boxed(words);
}

/* A count as a small (they are far below its limit; clamped all the same). */
static term count(uint64_t v) { return make_small(v > (uint64_t)MAX_SMALL ? MAX_SMALL : (int64_t)v); }

/* The list of n items in cells[0..2n). */
static term list_of(term *cells, const term *items, unsigned n)
{
    term list = NIL;
    for (unsigned i = n; i-- > 0;) {
        cells[2 * i] = items[i];
        cells[2 * i + 1] = list;
        list = make_list(cells + 2 * i);
    }
    return list;
}

/* Delivers {monitor, Pid, What, Info} to the monitor. */
static void send_locked(struct sched *s, worker_id waker, struct process *monitor, term pid, term what, term info)
{
    term msg[5] = {make_header(SUBTAG_TUPLE, 4), A(monitor), pid, what, info};
    /* A monitor whose heap refuses it misses the message, as a full
     * monitor queue on OTP would only delay it: nothing else to do. */
    (void)message_deliver_locked(s, waker, monitor, make_boxed(msg));
}

void sysmon_long_schedule_locked(struct sched *s, worker_id waker, term pid, uint64_t ms,
                                 const struct body_location *in, const struct body_location *out)
{
    struct process *monitor = monitor_for_locked(s, pid);
    if (!monitor)
        return;
    term words[3 * 3 + 2 * 4], cells[2 * 3];
    term items[3] = {
        pair(words, A(timeout), count(ms)),
        pair(words + 3, atom_intern_cstr("in"), location(words + 9, in)),
        pair(words + 6, atom_intern_cstr("out"), location(words + 13, out)),
    };
    send_locked(s, waker, monitor, pid, atom_intern_cstr("long_schedule"), list_of(cells, items, 3));
}

void sysmon_long_gc(struct process *p, uint64_t ms, size_t stack)
{
    const heap_t *h = &p->heap;
    struct sched *s = p->sched;
    rt_lock(&s->exec_lock);
    struct process *monitor = monitor_for_locked(s, p->pid);
    if (monitor) {
        static const char *const names[7] = {"timeout",    "old_heap_block_size", "heap_block_size", "mbuf_size",
                                             "stack_size", "old_heap_size",       "heap_size"};
        uint64_t values[7] = {ms,    heap_old_block_words(h), heap_block_words(h), h->frag_words,
                              stack, heap_old_words(h),       heap_young_words(h)};
        term words[7 * 3], cells[2 * 7], items[7];
        for (unsigned i = 0; i < 7; i++)
            items[i] = pair(words + 3 * i, atom_intern_cstr(names[i]), count(values[i]));
        /* On a collector, no worker wakes the monitor (as the timer thread). */
        worker_id waker = rt_on_collector ? NOT_A_WORKER : p->last_worker;
        send_locked(s, waker, monitor, p->pid, atom_intern_cstr("long_gc"), list_of(cells, items, 7));
    }
    rt_unlock(&s->exec_lock);
}
