/*
 * timer_wheel.h — the hierarchical hashed timer wheel of receive timeouts and
 * timer BIFs (the seed's scheduler/timer_wheel).
 *
 * Ticks are milliseconds since the executor started. Six levels of 64 slots
 * cover 2^36 ticks; a timer sits in the slot of the highest 6-bit digit in
 * which its tick differs from the wheel's current tick, each slot a FIFO list
 * of intrusive nodes, with one 64-bit occupancy bitmap per level. Arming and
 * cancelling are O(1). Advancing visits only slots whose start has come:
 * a higher-level slot moves its timers down, a level-0 slot fires; waiting
 * timers are never scanned. Ticks in a later 2^36-tick epoch than the
 * current tick (timer BIFs reach 2^49-1 ms) wait in a "beyond" list, armed
 * again when the epoch of its earliest tick begins. Timers fire in tick
 * order, then in the order of their deadlines within the tick
 * (timer_node_set_deadline_ns), ties in arming order.
 *
 * Thread contract: nothing here is synchronized and nothing reads a clock.
 * The executor calls every function with its mutex held; its timer thread
 * sleeps until timer_wheel_next_wake, reads the clock once and calls
 * timer_wheel_advance. The fire callback runs with that same mutex held.
 */
#ifndef CLAUSE_TIMER_WHEEL_H
#define CLAUSE_TIMER_WHEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIMER_WHEEL_LEVELS 6
#define TIMER_WHEEL_SLOT_BITS 6
#define TIMER_WHEEL_SLOTS (1u << TIMER_WHEEL_SLOT_BITS)
/* Ticks from the start of an epoch that the levels cover: 2^36. */
#define TIMER_WHEEL_REACH_BITS (TIMER_WHEEL_LEVELS * TIMER_WHEEL_SLOT_BITS)

struct timer_list {
    struct timer_node *head, *tail; /* NULL-terminated both ways */
};

/* Embedded in its owner (a process's scheduling state, a BIF timer); the
 * owner finds itself from the node with offsetof. A zero-filled node is a
 * valid unarmed node, so owners allocated with calloc need no set-up. The
 * fields belong to the wheel: read them through the functions below. */
struct timer_node {
    struct timer_node *next, *prev;
    struct timer_list *list; /* the list holding it, NULL when not armed */
    uint64_t tick;           /* the tick it fires at (see timer_wheel_arm) */
    unsigned kind;           /* the owner's: what kind of timer this is (the wheel never reads it) */
    uint32_t within;         /* where in its tick its deadline falls (timer_node_set_deadline_ns) */
};

#define TIMER_NODE_INIT                                                                                                \
    {                                                                                                                  \
        NULL, NULL, NULL, 0, 0, 0                                                                                      \
    }

static inline void timer_node_init(struct timer_node *n) { *n = (struct timer_node)TIMER_NODE_INIT; }
static inline bool timer_node_armed(const struct timer_node *n) { return n->list != NULL; }
/* The tick an armed node fires at; after it fired, the tick it fired at. */
static inline uint64_t timer_node_tick(const struct timer_node *n) { return n->tick; }

/* Work counters, for tests and --profile: they show that advancing costs
 * the slots reached and the timers moved or fired, not the timers waiting. */
struct timer_wheel_stats {
    uint64_t slots_visited; /* slots (and beyond-list passes) emptied by advance */
    uint64_t timers_moved;  /* timers re-filed to a lower level or out of beyond */
    uint64_t timers_fired;
    uint64_t timers_armed;     /* arms of a node that was not armed */
    uint64_t timers_cancelled; /* cancels of an armed node (not the moves of a re-arm) */
};

/* Holds pointers into itself (nodes point at their list): initialise it in
 * place and never move or copy it while timers are armed. */
struct timer_wheel {
    uint64_t now;                                                    /* every tick <= now has fired */
    uint64_t occupied[TIMER_WHEEL_LEVELS];                           /* bit s: slot s of the level is non-empty */
    struct timer_list slots[TIMER_WHEEL_LEVELS * TIMER_WHEEL_SLOTS]; /* level * 64 + slot */
    struct timer_list due;    /* armed at or before now: fire at the next advance */
    struct timer_list beyond; /* tick in a later 2^36-tick epoch than now */
    uint64_t beyond_min_tick; /* <= every tick in beyond (may be stale-low after a cancel) */
    size_t armed;
    struct timer_wheel_stats stats;
};

/* An empty wheel whose current tick is now_tick. */
void timer_wheel_init(struct timer_wheel *w, uint64_t now_tick);

/* Arms n to fire at tick. A tick at or before the wheel's current tick is
 * overdue: the node fires at the next advance (even one to the current
 * tick) and its tick becomes the current tick, which keeps the firing order
 * a tick order. Arming an armed node moves it (as if cancelled first). */
void timer_wheel_arm(struct timer_wheel *w, struct timer_node *n, uint64_t tick);

/* Disarms n in O(1). Returns whether it was armed: false when it already
 * fired, was cancelled or never armed, and then nothing changes. */
bool timer_wheel_cancel(struct timer_wheel *w, struct timer_node *n);

/* The tick at which the timer thread must wake: the current tick when a
 * timer is overdue, else the start of the first occupied slot after the
 * current one on any level (or of the earliest beyond timer's epoch), else
 * UINT64_MAX. Never later than the earliest armed timer's tick; it may be
 * earlier, when a higher-level slot must first move its timers down. */
uint64_t timer_wheel_next_wake(const struct timer_wheel *w);

typedef void timer_fire_fn(struct timer_node *n, void *ctx);

/* Moves the wheel to to_tick (a to_tick before the current tick is the
 * current tick) and fires every armed timer whose tick <= to_tick, each once,
 * in tick order, ties in arming order; returns how many fired. A node is
 * disarmed before fire sees it. fire may arm, re-arm and cancel any node,
 * the fired one included: a node armed during the advance for a tick <=
 * to_tick fires in this same advance, in its tick order — so a callback that
 * always re-arms at or before the tick it runs at never lets advance return.
 * fire must not call timer_wheel_advance or timer_wheel_init.
 * Costs O(slots whose start is reached + timers moved + timers fired). */
size_t timer_wheel_advance(struct timer_wheel *w, uint64_t to_tick, timer_fire_fn *fire, void *ctx);

static inline uint64_t timer_wheel_now(const struct timer_wheel *w) { return w->now; }
static inline size_t timer_wheel_armed_count(const struct timer_wheel *w) { return w->armed; }
static inline const struct timer_wheel_stats *timer_wheel_stats(const struct timer_wheel *w) { return &w->stats; }

/* Checks every invariant by walking all slots — O(armed timers), for tests
 * and debugging only. Returns false at the first violation. */
bool timer_wheel_verify(const struct timer_wheel *w);

/* Where in its tick a node's deadline (nanoseconds since the start) falls,
 * set before it is armed: timers of one tick fire in their deadlines'
 * order (ties in arming order), so two set a millisecond apart across a
 * tick's boundary fire in their order. A node never given one fires first
 * in its tick. */
static inline void timer_node_set_deadline_ns(struct timer_node *n, uint64_t ns)
{
    uint32_t within = (uint32_t)(ns % 1000000u);
    n->within = within ? within : 1000000u; /* a deadline on the boundary is its tick's last instant */
}

/* Converting nanoseconds since the executor started into ticks. A deadline
 * rounds up (the tick at or after it), so no timeout fires early; a clock
 * reading rounds down (the last tick whose time has fully come). */
static inline uint64_t timer_tick_from_deadline_ns(uint64_t ns) { return ns / 1000000u + (ns % 1000000u != 0); }
static inline uint64_t timer_tick_from_clock_ns(uint64_t ns) { return ns / 1000000u; }
/* Nanoseconds since start at which tick begins, saturating at UINT64_MAX
 * (ticks reach 2^49 and beyond; nanoseconds overflow past about 584 years):
 * what the timer thread's timed wait aims at. */
static inline uint64_t timer_tick_start_ns(uint64_t tick)
{
    return tick > UINT64_MAX / 1000000u ? UINT64_MAX : tick * 1000000u;
}

#endif
