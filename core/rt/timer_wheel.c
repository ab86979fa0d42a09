/*
 * timer_wheel.c — the hierarchical hashed timer wheel (see timer_wheel.h).
 *
 * Placement invariant, for every armed node n and the wheel's tick now:
 *   - n->tick <= now: n is in the due list (it fires at the next advance);
 *   - n->tick and now differ in bits 36 and up: n is in the beyond list;
 *   - otherwise, with L the highest 6-bit digit in which they differ, n is in
 *     slot digit_L(n->tick) of level L. As the higher digits agree and
 *     n->tick > now, that slot comes strictly after digit_L(now).
 * Consequences the code relies on. (1) Every slot of level L covers ticks
 * before every slot of level L+1, and the beyond list comes last, so the
 * earliest timer lies in the lowest occupied level, and the next slot to
 * reach is found with one count-trailing-zeros per level. (2) When now steps
 * to the start t of that next slot, no other slot starts at or before t, so
 * only that slot's timers break the invariant; re-filing them (those at t
 * become due) restores it. (3) Moving now to any tick before the next slot
 * start keeps every digit comparison, so no timer moves. A timer therefore
 * moves at most once per level on its way down, plus, while it waits beyond,
 * once each time the epoch of the earliest beyond timer begins. The beyond
 * list's wake comes from a lower bound of its ticks (beyond_min_tick): any
 * bound keeps (1)-(3), as its epoch start is after now's epoch.
 */
#include "rt/timer_wheel.h"

#include <assert.h>

#define SLOT_MASK ((uint64_t)TIMER_WHEEL_SLOTS - 1)
#define BEYOND_REACH(diff) (((diff) >> TIMER_WHEEL_REACH_BITS) != 0)

static unsigned level_shift(unsigned level) { return level * TIMER_WHEEL_SLOT_BITS; }

static unsigned digit(uint64_t tick, unsigned level) { return (unsigned)((tick >> level_shift(level)) & SLOT_MASK); }

static void list_append(struct timer_list *list, struct timer_node *n)
{
    n->next = NULL;
    n->prev = list->tail;
    if (list->tail)
        list->tail->next = n;
    else
        list->head = n;
    list->tail = n;
    n->list = list;
}

static void list_unlink(struct timer_list *list, struct timer_node *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        list->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        list->tail = n->prev;
    n->next = n->prev = NULL;
    n->list = NULL;
}

static bool fires_before(const struct timer_node *a, const struct timer_node *b)
{
    return a->tick < b->tick || (a->tick == b->tick && a->within < b->within);
}

/* Whether the chain from head already fires in its order: the common
 * case, as the timers of one tick are mostly armed in deadline order. */
static bool in_firing_order(const struct timer_node *head)
{
    for (const struct timer_node *x = head; x && x->next; x = x->next)
        if (fires_before(x->next, x))
            return false;
    return true;
}

/* Cuts the first `width` nodes (fewer at the end) off the chain at *rest,
 * returning them NULL-terminated and leaving *rest at the node after. */
static struct timer_node *split_run(struct timer_node **rest, size_t width)
{
    struct timer_node *run = *rest, *last = NULL;
    for (size_t i = 0; i < width && *rest; i++) {
        last = *rest;
        *rest = last->next;
    }
    if (last)
        last->next = NULL;
    return run;
}

/* Links runs a then b, merged in firing order, at *tail, and returns the
 * link after the last node. A tie takes a's node, the earlier in the list,
 * which keeps the sort stable. */
static struct timer_node **merge_runs(struct timer_node *a, struct timer_node *b, struct timer_node **tail)
{
    while (a && b) {
        struct timer_node **from = fires_before(b, a) ? &b : &a;
        *tail = *from;
        tail = &(*from)->next;
        *from = (*from)->next;
    }
    *tail = a ? a : b; /* what is left of the other run, already in order */
    while (*tail)
        tail = &(*tail)->next;
    return tail;
}

/* Orders the due list by tick, then deadline within the tick, equals in
 * the order they came: done as they fire, so that arming stays constant
 * time. A batch already in order costs one look at each node; any other
 * a bottom-up merge sort of the chain, O(k log k) for k due timers. */
static void sort_due(struct timer_list *list)
{
    struct timer_node *head = list->head;
    if (in_firing_order(head))
        return; /* links and tail are right as they are */
    for (size_t width = 1;; width *= 2) {
        struct timer_node *merged = NULL, **tail = &merged, *rest = head;
        size_t merges = 0;
        while (rest) {
            struct timer_node *a = split_run(&rest, width);
            struct timer_node *b = split_run(&rest, width);
            tail = merge_runs(a, b, tail);
            merges++;
        }
        head = merged;
        if (merges == 1) /* that one took the whole chain */
            break;
    }
    struct timer_node *prev = NULL;
    for (struct timer_node *x = head; x; prev = x, x = x->next)
        x->prev = prev;
    list->head = head;
    list->tail = prev;
}

/* Files an armed node's tick under the invariant; n must be in no list. Does
 * not count it in w->armed: callers that arm do, callers that move do not. */
static void file_node(struct timer_wheel *w, struct timer_node *n)
{
    if (n->tick <= w->now) {
        list_append(&w->due, n);
        return;
    }
    uint64_t diff = n->tick ^ w->now;
    if (BEYOND_REACH(diff)) {
        /* The minimum is only lowered here, never raised on cancel: a stale
         * low bound just wakes the wheel early, and the pass that re-files
         * the list recomputes it. Keeping it exact would cost a scan. */
        if (!w->beyond.head || n->tick < w->beyond_min_tick)
            w->beyond_min_tick = n->tick;
        list_append(&w->beyond, n);
        return;
    }
    /* diff != 0 here since tick > now; 63 - clz is its highest set bit. */
    unsigned level = (unsigned)(63 - __builtin_clzll(diff)) / TIMER_WHEEL_SLOT_BITS;
    unsigned slot = digit(n->tick, level);
    list_append(&w->slots[level * TIMER_WHEEL_SLOTS + slot], n);
    w->occupied[level] |= (uint64_t)1 << slot;
}

void timer_wheel_init(struct timer_wheel *w, uint64_t now_tick)
{
    *w = (struct timer_wheel){0};
    w->now = now_tick;
}

static bool unlink_node(struct timer_wheel *w, struct timer_node *n);

void timer_wheel_arm(struct timer_wheel *w, struct timer_node *n, uint64_t tick)
{
    if (!unlink_node(w, n))
        w->stats.timers_armed++;
    /* An overdue tick becomes now, so that ticks of fired nodes never go
     * backwards: the caller sees them fire in the order of their ticks. */
    n->tick = tick > w->now ? tick : w->now;
    file_node(w, n);
    w->armed++;
}

bool timer_wheel_cancel(struct timer_wheel *w, struct timer_node *n)
{
    if (!unlink_node(w, n))
        return false;
    w->stats.timers_cancelled++;
    return true;
}

static bool unlink_node(struct timer_wheel *w, struct timer_node *n)
{
    struct timer_list *list = n->list;
    if (!list)
        return false;
    list_unlink(list, n);
    w->armed--;
    /* A slot's bit must be cleared when its list empties, or the next wake
     * would aim at an empty slot. The due and beyond lists have no bit. */
    if (list != &w->due && list != &w->beyond && !list->head) {
        size_t index = (size_t)(list - w->slots);
        w->occupied[index / TIMER_WHEEL_SLOTS] &= ~((uint64_t)1 << (index % TIMER_WHEEL_SLOTS));
    }
    return true;
}

/* The next slot whose start the wheel must reach: its level (or
 * TIMER_WHEEL_LEVELS for the beyond list) and its start tick. False when no
 * slot and no beyond timer is waiting; due timers are not considered. */
static bool next_slot(const struct timer_wheel *w, unsigned *level_out, uint64_t *start_out)
{
    for (unsigned level = 0; level < TIMER_WHEEL_LEVELS; level++) {
        uint64_t occupied = w->occupied[level];
        if (!occupied)
            continue;
        unsigned slot = (unsigned)__builtin_ctzll(occupied);
        assert(slot > digit(w->now, level));
        /* now with its digits at and below this level replaced by the slot
         * followed by zeros. The shift is at most 36, always in range. */
        uint64_t block_mask = ((uint64_t)1 << level_shift(level + 1)) - 1;
        *level_out = level;
        *start_out = (w->now & ~block_mask) | ((uint64_t)slot << level_shift(level));
        return true;
    }
    if (w->beyond.head) {
        /* The start of the earliest beyond tick's epoch, which is later than
         * now's epoch; waking there, not at every epoch, spares a 2^49 ms
         * timer some 8,000 passes. */
        *level_out = TIMER_WHEEL_LEVELS;
        *start_out = w->beyond_min_tick >> TIMER_WHEEL_REACH_BITS << TIMER_WHEEL_REACH_BITS;
        return true;
    }
    return false;
}

uint64_t timer_wheel_next_wake(const struct timer_wheel *w)
{
    if (w->due.head)
        return w->now;
    unsigned level;
    uint64_t start;
    return next_slot(w, &level, &start) ? start : UINT64_MAX;
}

/* Empties one list whose start the wheel has just reached, re-filing every
 * node against the new now: the ones at now go to the due list, the others
 * to lower levels (or back beyond). The list is detached first, so nodes
 * filed back into the beyond list are not met again. */
static void redistribute(struct timer_wheel *w, struct timer_list *list)
{
    struct timer_node *n = list->head;
    list->head = list->tail = NULL;
    w->stats.slots_visited++;
    while (n) {
        struct timer_node *next = n->next;
        file_node(w, n);
        w->stats.timers_moved++;
        n = next;
    }
}

size_t timer_wheel_advance(struct timer_wheel *w, uint64_t to_tick, timer_fire_fn *fire, void *ctx)
{
    size_t fired = 0;
    for (;;) {
        /* Everything due is at now, earlier than anything in a slot, so
         * firing the due list first keeps the tick order. Nodes fire one by
         * one from the head so that fire may cancel or arm any node, and a
         * node fire arms at or before now joins this same loop. */
        struct timer_node *n;
        sort_due(&w->due);
        while ((n = w->due.head) != NULL) {
            list_unlink(&w->due, n);
            w->armed--;
            w->stats.timers_fired++;
            fired++;
            fire(n, ctx);
        }
        unsigned level;
        uint64_t start;
        if (!next_slot(w, &level, &start) || start > to_tick)
            break;
        w->now = start;
        if (level == TIMER_WHEEL_LEVELS) {
            redistribute(w, &w->beyond);
        } else {
            unsigned slot = digit(start, level);
            w->occupied[level] &= ~((uint64_t)1 << slot);
            redistribute(w, &w->slots[level * TIMER_WHEEL_SLOTS + slot]);
        }
    }
    /* No slot starts in (now, to_tick]: see (3) at the top. */
    if (to_tick > w->now)
        w->now = to_tick;
    return fired;
}

/* Whether every node of list is filed where file_node would put it, with
 * intact links; adds the nodes to *count. */
static bool verify_list(const struct timer_wheel *w, const struct timer_list *list, int level, unsigned slot,
                        size_t *count)
{
    const struct timer_node *prev = NULL;
    for (const struct timer_node *n = list->head; n; prev = n, n = n->next) {
        if (n->prev != prev || n->list != list)
            return false;
        uint64_t diff = n->tick ^ w->now;
        if (level == -1) { /* due */
            if (n->tick > w->now)
                return false;
        } else if (level == TIMER_WHEEL_LEVELS) { /* beyond */
            if (n->tick <= w->now || !BEYOND_REACH(diff))
                return false;
        } else {
            if (n->tick <= w->now || BEYOND_REACH(diff) ||
                (unsigned)(63 - __builtin_clzll(diff)) / TIMER_WHEEL_SLOT_BITS != (unsigned)level ||
                digit(n->tick, (unsigned)level) != slot)
                return false;
        }
        ++*count;
    }
    return list->tail == prev;
}

bool timer_wheel_verify(const struct timer_wheel *w)
{
    size_t count = 0;
    if (!verify_list(w, &w->due, -1, 0, &count) || !verify_list(w, &w->beyond, TIMER_WHEEL_LEVELS, 0, &count))
        return false;
    for (const struct timer_node *n = w->beyond.head; n; n = n->next)
        if (n->tick < w->beyond_min_tick)
            return false;
    for (unsigned level = 0; level < TIMER_WHEEL_LEVELS; level++) {
        for (unsigned slot = 0; slot < TIMER_WHEEL_SLOTS; slot++) {
            const struct timer_list *list = &w->slots[level * TIMER_WHEEL_SLOTS + slot];
            bool marked = (w->occupied[level] >> slot) & 1;
            if (marked != (list->head != NULL) || !verify_list(w, list, (int)level, slot, &count))
                return false;
        }
    }
    return count == w->armed;
}
