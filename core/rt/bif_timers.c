/*
 * bif_timers.c — the timer builtins (see bif_timers.h).
 *
 * A timer is one allocation with its wheel node first, found by its
 * reference id through a chained hash table in the executor, and linked
 * into its target process's list so the process's end releases it. All of
 * it is guarded by the executor mutex; the message buffer is made before
 * the mutex is taken.
 */
#include "rt/bif_timers.h"
#include "rt/names.h"

#include "rt/internal.h"
#include "rt/message.h"
#include "term/atom.h"
#include "term/bignum.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_RELATIVE_MS (((int64_t)1 << 49) - 1)

struct bif_timer {
    struct timer_node node; /* kind TIMER_KIND_BIF */
    struct bif_timer *bucket_next;
    struct bif_timer *target_prev, *target_next;
    uint64_t ref_id;
    struct process *target; /* NULL: a name (resolved at fire), or the pid had ended */
    term name;
    struct arrival *message;
};

/* ---- the reference table (executor mutex) ---- */

static struct bif_timer **bucket_of(struct sched *s, uint64_t ref_id)
{
    return &s->timer_buckets[ref_id & (s->timer_bucket_count - 1)];
}

static bool table_insert(struct sched *s, struct bif_timer *t)
{
    if (s->timer_count + 1 > s->timer_bucket_count) {
        size_t count = s->timer_bucket_count ? 2 * s->timer_bucket_count : 64;
        struct bif_timer **buckets = calloc(count, sizeof *buckets);
        if (!buckets)
            return false;
        for (size_t i = 0; i < s->timer_bucket_count; i++) {
            struct bif_timer *e = s->timer_buckets[i];
            while (e) {
                struct bif_timer *next = e->bucket_next;
                e->bucket_next = buckets[e->ref_id & (count - 1)];
                buckets[e->ref_id & (count - 1)] = e;
                e = next;
            }
        }
        free(s->timer_buckets);
        s->timer_buckets = buckets;
        s->timer_bucket_count = count;
    }
    struct bif_timer **b = bucket_of(s, t->ref_id);
    t->bucket_next = *b;
    *b = t;
    s->timer_count++;
    return true;
}

static struct bif_timer *table_find(struct sched *s, uint64_t ref_id)
{
    if (!s->timer_bucket_count)
        return NULL;
    for (struct bif_timer *t = *bucket_of(s, ref_id); t; t = t->bucket_next)
        if (t->ref_id == ref_id)
            return t;
    return NULL;
}

static void table_remove(struct sched *s, struct bif_timer *t)
{
    for (struct bif_timer **link = bucket_of(s, t->ref_id); *link; link = &(*link)->bucket_next)
        if (*link == t) {
            *link = t->bucket_next;
            s->timer_count--;
            return;
        }
}

static void unlink_target(struct bif_timer *t)
{
    if (!t->target)
        return;
    if (t->target_prev)
        t->target_prev->target_next = t->target_next;
    else
        t->target->signals->timers_to_me = t->target_next;
    if (t->target_next)
        t->target_next->target_prev = t->target_prev;
    t->target = NULL;
}

/* Takes t out of everything and frees it (executor mutex held). */
static void discard(struct sched *s, struct bif_timer *t)
{
    timer_wheel_cancel(&s->wheel, &t->node);
    table_remove(s, t);
    unlink_target(t);
    if (t->message)
        message_buffer_free(t->message);
    free(t);
}

void bif_timer_fire_locked(struct sched *s, struct timer_node *node)
{
    struct bif_timer *t = (struct bif_timer *)(void *)node;
    struct process *target = t->target;
    term t_name = t->name;
    struct arrival *message = t->message;
    t->message = NULL;
    table_remove(s, t);
    unlink_target(t);
    free(t);
    /* A name is resolved now; a name nobody holds drops the message. */
    if (!target && is_value(t_name))
        target = names_lookup_locked(s, t_name);
    if (!target) {
        message_buffer_free(message);
        return;
    }
    if (!message_buffer_deliver_locked(s, target, message)) {
        fprintf(stderr, "clause: runtime failure in <0.%llu.0>: its heap refused a timer's message\n",
                (unsigned long long)pid_number(target->pid));
        rt_lock(&s->rq_lock);
        sched_stop_locked(s, EXIT_RUNTIME_FAILURE);
        rt_unlock(&s->rq_lock);
    }
}

void bif_timers_release_target_locked(struct sched *s, struct process *p)
{
    while (proc_signals_of(p)->timers_to_me)
        discard(s, p->signals->timers_to_me);
}

void bif_timers_destroy(struct sched *s)
{
    for (size_t i = 0; i < s->timer_bucket_count; i++) {
        struct bif_timer *t = s->timer_buckets[i];
        while (t) {
            struct bif_timer *next = t->bucket_next;
            if (t->message)
                message_buffer_free(t->message);
            free(t);
            t = next;
        }
    }
    free(s->timer_buckets);
    s->timer_buckets = NULL;
    s->timer_bucket_count = s->timer_count = 0;
}

/* ---- argument checking ---- */

/* Reads a proper list of {Key, true|false} options naming only keys[0..n);
 * values[i] gets the last value given for keys[i]. False for anything else
 * (badarg). */
static bool read_options(term options, const term *keys, bool *values, size_t n)
{
    for (; is_list(options); options = list_tail(options)) {
        term o = list_head(options);
        if (!is_tuple(o) || tuple_arity(o) != 2)
            return false;
        term value = tuple_element(o, 2);
        if (value != A(true) && value != A(false))
            return false;
        size_t i = 0;
        while (i < n && keys[i] != tuple_element(o, 1))
            i++;
        if (i == n)
            return false;
        values[i] = value == A(true);
    }
    return is_nil(options);
}

static term fail(term *error, term reason)
{
    *error = reason;
    return THE_NON_VALUE;
}

/* ---- start ---- */

static term start(struct process *self, term time, term dest, term msg, term options, bool timeout_tuple, term *error)
{
    struct sched *s = self->sched;
    const term keys[] = {A(abs)};
    bool absolute = false;
    int64_t ms;
    if (!read_options(options, keys, &absolute, 1))
        return fail(error, A(badopt));
    if (!is_integer(time) || !int_to_int64(time, &ms) || (!absolute && (ms < 0 || ms > MAX_RELATIVE_MS)))
        return fail(error, A(time));
    if (!(is_pid(dest) || is_atom(dest)))
        return fail(error, A(badarg));
    term ref = heap_make_ref(&self->heap);
    term payload = is_value(ref) && timeout_tuple ? heap_tuple3(&self->heap, A(timeout), ref, msg) : msg;
    struct bif_timer *t = is_value(ref) && is_value(payload) ? calloc(1, sizeof *t) : NULL;
    struct arrival *buffer = t ? message_buffer_new(payload) : NULL;
    if (!buffer) {
        free(t);
        sched_runtime_failure(self, "out of memory for a timer");
        return fail(error, A(system_limit));
    }
    t->node.kind = TIMER_KIND_BIF;
    t->ref_id = ref_id_low(ref);
    t->message = buffer;
    t->name = is_atom(dest) ? dest : THE_NON_VALUE;

    /* The deadline as a tick (milliseconds since the executor started),
     * the tick at or after it so that it never fires early; the past fires
     * at once. Computed in milliseconds: 2^49 ms in nanoseconds would
     * overflow. */
    uint64_t now_ns = sched_elapsed_ns(s, self);
    int64_t now_tick = (int64_t)timer_tick_from_deadline_ns(now_ns);
    int64_t tick = absolute ? ms - (int64_t)(sched_monotonic_origin_ns(s) / 1000000u) : now_tick + ms;
    if (tick < now_tick)
        tick = now_tick;

    rt_lock(&s->exec_lock);
    bool ok = table_insert(s, t);
    if (ok && is_pid(dest)) {
        struct process *p = proc_table_lookup(&s->table, pid_number(dest));
        struct proc_signals *sig = p && proc_state(p) != PROC_EXITED ? proc_signals_make(p) : NULL;
        if (sig) {
            t->target = p;
            t->target_next = sig->timers_to_me;
            if (sig->timers_to_me)
                sig->timers_to_me->target_prev = t;
            sig->timers_to_me = t;
        } else if (p && proc_state(p) != PROC_EXITED) {
            table_remove(s, t); /* no memory for its ties */
            ok = false;
        }
    }
    if (ok && (t->target || is_atom(dest))) {
        if (!absolute)
            timer_node_set_deadline_ns(&t->node, now_ns); /* now plus whole milliseconds: the same place in a tick */
        sched_arm_timer_locked(s, &t->node, (uint64_t)tick);
    } else if (ok) {
        discard(s, t); /* an ended pid: the timer is cancelled at once, as OTP does */
    }
    rt_unlock(&s->exec_lock);
    if (!ok) {
        message_buffer_free(buffer);
        free(t);
        sched_runtime_failure(self, "out of memory for a timer");
        return fail(error, A(system_limit));
    }
    return ref;
}

term bif_send_after(struct process *self, term time, term dest, term msg, term options, term *error)
{
    return start(self, time, dest, msg, options, false, error);
}

term bif_start_timer(struct process *self, term time, term dest, term msg, term options, term *error)
{
    return start(self, time, dest, msg, options, true, error);
}

/* ---- cancel and read ---- */

static term cancel_or_read(struct process *self, term ref, term options, bool cancel, term *error)
{
    struct sched *s = self->sched;
    const term keys[] = {A(async), A(info)};
    bool values[2] = {false, true};
    if (!is_ref(ref) || !read_options(options, keys, values, 2))
        return fail(error, A(badarg));
    bool async = values[0], info = values[1];

    int64_t left = -1; /* -1: no such timer (false) */
    rt_lock(&s->exec_lock);
    struct bif_timer *t = ref_id_high(ref) == 0 ? table_find(s, ref_id_low(ref)) : NULL;
    if (t) {
        /* Whole milliseconds from now to the tick, rounded down: the
         * deadline was rounded up to a tick, so this never reports more
         * than the time asked for. In milliseconds, as far ticks in
         * nanoseconds would overflow. */
        uint64_t now = sched_elapsed_ns(s, self);
        uint64_t tick = timer_node_tick(&t->node), now_ms = now / 1000000u;
        uint64_t whole = tick > now_ms ? tick - now_ms : 0;
        left = (int64_t)(whole && now % 1000000u ? whole - 1 : whole);
        if (cancel)
            discard(s, t);
    }
    rt_unlock(&s->exec_lock);

    term result = left < 0 ? A(false) : make_small(left);
    if (!info)
        return A(ok);
    if (!async)
        return result;
    term reply = heap_tuple3(&self->heap, cancel ? A(cancel_timer) : A(read_timer), ref, result);
    if (is_non_value(reply) || sched_send(self, self->pid, reply) != SEND_OK) {
        sched_runtime_failure(self, "out of memory for a timer's reply");
        return fail(error, A(system_limit));
    }
    return A(ok);
}

term bif_cancel_timer(struct process *self, term ref, term options, term *error)
{
    return cancel_or_read(self, ref, options, true, error);
}

term bif_read_timer(struct process *self, term ref, term options, term *error)
{
    return cancel_or_read(self, ref, options, false, error);
}
