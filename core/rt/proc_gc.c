/* proc_gc.c — a process's roots for the collector (see proc_gc.h). */
#include "rt/proc_gc.h"

#include "rt/error_report.h"
#include "rt/internal.h"
#include "rt/proc_dict.h"
#include "rt/resources.h"
#include "term/gc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

/* ---- max_heap_size ---- */

/* A process's setting, when it is not the one that means nothing (no limit,
 * kill and error_logger): kept as a resource, so that a process without one
 * carries nothing and its collections look no further than an empty list. */
struct max_heap_resource {
    struct proc_resource res;
    struct proc_max_heap m;
};

static void release_max_heap(struct proc_resource *r) { free(r); }

static const struct proc_resource_type max_heap_type = {"max_heap_size", release_max_heap, false};

/* The default, packed: size << 2 | kill << 1 | error_logger. */
static _Atomic uint64_t max_heap_default = 3;

struct proc_max_heap proc_max_heap_default(void)
{
    uint64_t v = atomic_load_explicit(&max_heap_default, memory_order_relaxed);
    return (struct proc_max_heap){(size_t)(v >> 2), (v & 2) != 0, (v & 1) != 0};
}

void proc_set_max_heap_default(struct proc_max_heap m)
{
    uint64_t v = (uint64_t)m.size << 2 | (uint64_t)m.kill << 1 | (uint64_t)m.error_logger;
    atomic_store_explicit(&max_heap_default, v, memory_order_relaxed);
}

static struct max_heap_resource *max_heap_of(const struct process *p)
{
    return (struct max_heap_resource *)proc_resource_of_type(p, &max_heap_type);
}

struct proc_max_heap proc_max_heap(const struct process *p)
{
    struct max_heap_resource *r = max_heap_of(p);
    return r ? r->m : (struct proc_max_heap){0, true, true};
}

bool proc_set_max_heap(struct process *p, struct proc_max_heap m)
{
    struct max_heap_resource *r = max_heap_of(p);
    if (!r && m.size == 0 && m.kill && m.error_logger)
        return true;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return false;
        r->res.type = &max_heap_type;
        proc_resource_attach(p, &r->res);
    }
    r->m = m;
    return true;
}

/* The words OTP's check counts, after a collection. */
static size_t total_heap_words(const struct process *p, size_t stack_used)
{
    return heap_block_words(&p->heap) + heap_old_block_words(&p->heap) + p->heap.frag_words + stack_used;
}

/* After a collection: HEAP_FAIL_MAX_HEAP_SIZE when p passed its limit with
 * kill set; the report first when error_logger is. */
static enum heap_failure check_max_heap(struct process *p, size_t stack_used)
{
    struct max_heap_resource *r = max_heap_of(p);
    if (!r || r->m.size == 0)
        return HEAP_OK;
    size_t total = total_heap_words(p, stack_used);
    if (total <= r->m.size)
        return HEAP_OK;
    if (r->m.error_logger)
        error_report_max_heap_size(p, r->m.size, total, r->m.kill, stack_used);
    return r->m.kill ? (p->heap.failure = HEAP_FAIL_MAX_HEAP_SIZE) : HEAP_OK;
}

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

/* The collection itself, without the max_heap_size check. */
static enum heap_failure collect(struct process *p, size_t need, term *registers, size_t count)
{
    /* Messages live in a linked list; the collector wants ranges: copy the
     * payloads out, collect, and write the moved ones back in the same
     * order. A minor collection takes only those after the settled prefix
     * (mailbox.h), so a long queue, once promoted, costs it nothing; and of
     * the dictionary, only its young slots, gathered after the payloads the
     * same way (proc_dict.h). */
    bool requested = p->heap.gc_requested;
    bool full = gc_next_is_full_sweep(&p->heap, need);
    if (full)
        mailbox_unsettle(&p->mailbox);
    struct proc_dict *dict = p->dictionary;
    bool dict_young = !full && proc_dict_knows_young(dict);
    size_t messages = mailbox_young_length(&p->mailbox), gathered = messages + (dict_young ? dict->young_len : 0);
    term inline_payloads[64];
    term *payloads = gathered <= 64 ? inline_payloads : malloc(gathered * sizeof *payloads);
    if (!payloads)
        return p->heap.failure = HEAP_FAIL_NOMEM;
    struct payload_cursor cursor = {payloads, 0};
    mailbox_for_each_young_payload(&p->mailbox, gather, &cursor);
    struct gc_root_range dict_roots = proc_dict_roots(dict);
    if (dict_young) {
        proc_dict_young_gather(dict, payloads + messages);
        dict_roots = (struct gc_root_range){payloads + messages, dict->young_len};
    }
    size_t stack_used = proc_stack_in_use(p);
    struct gc_root_range roots[4] = {{registers, count}, {payloads, messages}, {p->stack_top, stack_used}, dict_roots};
    /* Timed only while a system monitor watches long collections. */
    uint64_t long_gc = atomic_load_explicit(&p->sched->sysmon_long_gc_ms, memory_order_relaxed);
    uint64_t started = long_gc ? sched_clock_ns() : 0;
    p->heap.stack_words = heap_saturate_u32(stack_used);
    /* Busy: collecting again in the slice of its last collection (the life
     * total of reductions moves only as a slice ends). */
    uint32_t slice_mark = (uint32_t)p->reductions;
    bool busy = p->heap.owner_mark == slice_mark;
    p->heap.owner_mark = slice_mark;
    enum heap_failure result = gc_collect_owned(&p->heap, need, roots, 4, busy);
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
        if (dict_young)
            proc_dict_young_scatter(dict, payloads + messages);
        proc_dict_collected(dict, &p->heap, full);
    }
    if (payloads != inline_payloads)
        free(payloads);
    if (requested && result == HEAP_OK && heap_return_free_memory(sched_clock_ns()))
        heap_release_free_span(&p->heap);
    return result;
}

enum heap_failure proc_collect(struct process *p, size_t need, term *registers, size_t count)
{
    enum heap_failure result = collect(p, need, registers, count);
    if (result == HEAP_OK && p->resources)
        result = check_max_heap(p, proc_stack_in_use(p));
    return result;
}

enum heap_failure proc_collected_check(struct process *p)
{
    return p->resources ? check_max_heap(p, proc_stack_in_use(p)) : HEAP_OK;
}

bool proc_may_work_elsewhere(const struct process *p)
{
    return atomic_load_explicit(&p->sched->collectors.on, memory_order_relaxed) && !sched_host_outcome(p);
}

bool proc_collect_elsewhere(const struct process *p, size_t need)
{
    if (!proc_may_work_elsewhere(p))
        return false;
    const heap_t *h = &p->heap;
    size_t words = heap_young_words(h) + proc_stack_in_use(p);
    if (words < PROC_LONG_GC_WORDS && gc_next_is_full_sweep(h, need))
        words += heap_old_words(h);
    return words >= PROC_LONG_GC_WORDS;
}

void proc_collect_saved(struct process *p)
{
    /* Without the max_heap_size check, which may log (a send, as from p):
     * the body makes it when it resumes on its worker. */
    p->collected = collect(p, p->collect_need, NULL, 0) == HEAP_OK ? PROC_COLLECTED : PROC_COLLECTED_FAILED;
}

term *proc_stack_alloc(size_t words)
{
    if (!heap_is_big_block(words))
        return malloc(words * sizeof(term));
    void *p = mmap(NULL, words * sizeof(term), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void proc_stack_free(term *stack, size_t words)
{
    if (heap_is_big_block(words))
        munmap(stack, words * sizeof(term));
    else
        free(stack);
}
