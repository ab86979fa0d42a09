/* proc_gc.c — a process's roots for the collector (see proc_gc.h). */
#include "rt/proc_gc.h"

#include "rt/internal.h"
#include "term/gc.h"

#include <stdlib.h>

struct payload_cursor {
    term *payloads;
    size_t next;
};

static void gather(term *payload, void *ctx)
{
    struct payload_cursor *c = ctx;
    c->payloads[c->next++] = *payload;
}

static void scatter(term *payload, void *ctx)
{
    struct payload_cursor *c = ctx;
    *payload = c->payloads[c->next++];
}

/* OTP 25's gc_cost (erl_gc.c): a collection costs the process one
 * reduction per 10 live words it moved, at least one. clause caps it at a
 * slice's worth (OTP: INT_MAX), which changes nothing but the count: the
 * slice ends either way. */
#define GC_MOVED_WORDS_PER_RED 10

/* A payload a minor collection neither moves nor reads: an immediate, or
 * data in the old generation or off the heap (just after a collection, the
 * young generation is the block alone). */
static bool settled(term payload, void *ctx)
{
    const heap_t *h = ctx;
    if (!is_pointer_term(payload))
        return true;
    const term *at = term_ptr(payload);
    return heap_in_old(h, at) || !heap_contains(h, at);
}

enum heap_failure proc_collect(struct process *p, size_t need, term *registers, size_t count)
{
    /* Messages live in a linked list; the collector wants ranges: copy the
     * payloads out, collect, and write the moved ones back in the same
     * order. A minor collection takes only those after the settled prefix
     * (mailbox.h), so a long queue, once promoted, costs it nothing. */
    bool full = gc_next_is_full_sweep(&p->heap, need);
    if (full)
        mailbox_unsettle(&p->mailbox);
    size_t messages = mailbox_young_length(&p->mailbox);
    term inline_payloads[64];
    term *payloads = messages <= 64 ? inline_payloads : malloc(messages * sizeof *payloads);
    if (!payloads)
        return p->heap.failure = HEAP_FAIL_NOMEM;
    struct payload_cursor cursor = {payloads, 0};
    mailbox_for_each_young_payload(&p->mailbox, gather, &cursor);
    term *stack_end = p->stack + p->stack_words;
    size_t stack_used = p->stack_top ? (size_t)(stack_end - p->stack_top) : 0;
    struct gc_root_range roots[4] = {
        {registers, count}, {payloads, messages}, {p->stack_top, stack_used}, {&p->dictionary, 1}};
    /* Timed only while a system monitor watches long collections. */
    uint64_t long_gc = atomic_load_explicit(&p->sched->sysmon_long_gc_ms, memory_order_relaxed);
    uint64_t started = long_gc ? sched_clock_ns() : 0;
    p->heap.stack_words = stack_used;
    enum heap_failure result = gc_collect(&p->heap, need, roots, 4);
    if (long_gc && result == HEAP_OK) {
        uint64_t ms = (sched_clock_ns() - started) / 1000000u;
        if (ms > long_gc)
            sysmon_long_gc(p, ms, stack_used);
    }
    if (result == HEAP_OK) {
        size_t reds = p->heap.moved_words / GC_MOVED_WORDS_PER_RED;
        p->reds_left -= reds < 1 ? 1 : reds > CONTEXT_REDS ? CONTEXT_REDS : (int32_t)reds;
        cursor.next = 0;
        mailbox_for_each_young_payload(&p->mailbox, scatter, &cursor);
        mailbox_settle(&p->mailbox, settled, &p->heap);
    }
    if (payloads != inline_payloads)
        free(payloads);
    return result;
}

bool proc_collect_elsewhere(const struct process *p, size_t need)
{
    if (!atomic_load_explicit(&p->sched->collectors.on, memory_order_relaxed) || p->host)
        return false;
    const heap_t *h = &p->heap;
    term *stack_end = p->stack + p->stack_words;
    size_t words = heap_young_words(h) + (p->stack_top ? (size_t)(stack_end - p->stack_top) : 0);
    if (words < PROC_LONG_GC_WORDS && gc_next_is_full_sweep(h, need))
        words += heap_old_words(h);
    return words >= PROC_LONG_GC_WORDS;
}

void proc_collect_saved(struct process *p)
{
    int32_t before = p->reds_left;
    p->collect_failed = proc_collect(p, p->collect_need, NULL, 0) != HEAP_OK;
    p->collect_reds = before - p->reds_left;
}
