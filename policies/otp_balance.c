/*
 * otp_balance.c — the plan of ERTS 25's full balance check (otp_balance.h
 * says the rules; erl_process.c's check_balance is the source).
 */
#include "policies/otp_balance.h"

struct plan {
    struct otp_balance_queue *(*queue)(void *ctx, int i);
    void *ctx;
};

static struct otp_balance_queue *Q(const struct plan *pl, int i) { return pl->queue(pl->ctx, i); }

/* The queue i-th by diff, ascending, and its index. */
static worker_id sorted_id(const struct plan *pl, int i) { return Q(pl, i)->sorted; }
static struct otp_balance_queue *sorted_at(const struct plan *pl, int i) { return Q(pl, sorted_id(pl, i)); }

/* One side of the path between the i-th-most-over queue (from) and the
 * j-th (to) in the sorted order: from's if kind is MIGRATE_OUT, to's if
 * MIGRATE_IN. */
static void path(const struct plan *pl, int from_i, int to_i, enum otp_migration kind)
{
    struct otp_balance_queue *from = sorted_at(pl, from_i), *to = sorted_at(pl, to_i);
    struct otp_balance_queue *me = kind == MIGRATE_OUT ? from : to, *it = kind == MIGRATE_OUT ? to : from;
    me->migrate = kind;
    me->other = kind == MIGRATE_OUT ? sorted_id(pl, to_i) : sorted_id(pl, from_i);
    me->limit_this = me->limit;
    me->limit_other = it->limit;
    me->evacuate = kind == MIGRATE_OUT && from->avail == 0;
}

/* Availability and limits; the queues sorted by diff. Returns whether some
 * queue is over its limit and some under. */
static bool limits(const struct plan *pl, int n)
{
    int64_t full = 0, full_reds = 0, sum_max = 0, sum_avail = 0;
    for (int q = 0; q < n; q++)
        if (!Q(pl, q)->out_of_work)
            full++, full_reds += (int64_t)Q(pl, q)->reds;
    for (int q = 0; q < n; q++) {
        struct otp_balance_queue *r = Q(pl, q);
        r->avail = r->out_of_work ? 100 : r->reds == 0 ? 0 : 100 * (int64_t)r->reds * full / full_reds;
        sum_max += (int64_t)r->max_len;
        sum_avail += r->avail;
    }
    int64_t avg = sum_max && sum_avail ? (100 * sum_max - 1) / sum_avail + 1 : sum_max;
    bool low = false, high = false;
    for (int q = 0; q < n; q++) {
        struct otp_balance_queue *r = Q(pl, q);
        r->limit = avg == 0 || r->avail == 0 ? 0 : (size_t)((avg * r->avail - 1) / 100 + 1);
        r->diff = (int64_t)r->max_len - (int64_t)r->limit;
        r->migrate = MIGRATE_NONE;
        r->evacuate = false;
        low |= r->diff < 0;
        high |= r->diff > 0;
        int i = q; /* insertion sort by diff */
        for (; i > 0 && sorted_at(pl, i - 1)->diff > r->diff; i--)
            Q(pl, i)->sorted = sorted_id(pl, i - 1);
        Q(pl, i)->sorted = q;
    }
    return low && high;
}

void otp_balance_plan(int n, struct otp_balance_queue *(*queue)(void *ctx, int i), void *ctx)
{
    const struct plan pl = {queue, ctx}, *p = &pl;
    if (!limits(p, n))
        return;
    int tix = 0, fix = n - 1; /* to (under) from the bottom, from (over) from the top */
    while (sorted_at(p, fix)->diff > 0 && sorted_at(p, tix)->diff < 0) {
        path(p, fix, tix, MIGRATE_OUT);
        path(p, fix, tix, MIGRATE_IN);
        tix++, fix--;
    }
    bool eof = sorted_at(p, fix)->diff <= 0, eot = sorted_at(p, tix)->diff >= 0;
    if (!eot && eof) { /* under queues left: they immigrate from the over ones, round */
        fix += fix < n - 1;
        for (int fix2 = -1; sorted_at(p, fix)->diff > 0 && tix < fix && sorted_at(p, tix)->diff < 0; tix++, fix2--) {
            fix2 = fix2 < fix ? n - 1 : fix2;
            path(p, fix2, tix, MIGRATE_IN);
        }
    } else if (!eof && eot) { /* over queues left: they emigrate to the under ones, round */
        tix -= tix > 0;
        for (int tix2 = 0; sorted_at(p, tix)->diff < 0 && tix < fix && sorted_at(p, fix)->diff > 0; fix--, tix2++) {
            tix2 = tix2 > tix ? 0 : tix2;
            path(p, fix, tix2, MIGRATE_OUT);
        }
    }
}
