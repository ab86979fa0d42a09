/*
 * otp_balance.h — ERTS 25's full balance check (erl_process.c,
 * check_balance, the branch where every scheduler is online), as a plan
 * computed from each run queue's figures over the period: how many
 * processes each queue may hold (its migration limit) and which queues
 * pass processes to which. The `otp` policy makes the check and enforces
 * the plan lazily (otp.c); this part touches no queue, so its rules can be
 * tested on figures alone.
 *
 * Availability is 100 for a queue that ran out of work in the period,
 * else its share of the others' reductions times their count (0 if it ran
 * none); limit = the average of the queues' maximum lengths scaled by it.
 * Queues are sorted by how far over their limit they were; the most-over
 * emigrates to the most-under, which immigrates from it, and so on inward;
 * queues left over on one side pair round the other side's as ERTS does.
 * A queue emigrating with availability 0 evacuates: everything goes.
 * Simplified: one level for all priorities (ERTS: per priority, scaled by
 * higher ones' reductions) and the period's reductions for its 8-period
 * history, as ERTS with +scl false.
 */
#ifndef CLAUSE_OTP_BALANCE_H
#define CLAUSE_OTP_BALANCE_H

#include "rt/policy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum otp_migration { MIGRATE_NONE, MIGRATE_OUT, MIGRATE_IN };

struct otp_balance_queue {
    /* The period's figures, read. */
    size_t max_len;   /* the most processes queued at once */
    uint64_t reds;    /* reductions run */
    bool out_of_work; /* its worker found nothing to do */
    /* The plan, written. */
    enum otp_migration migrate;
    worker_id other;    /* the partner of the path */
    size_t limit_this;  /* this queue's limit */
    size_t limit_other; /* the partner's limit */
    bool evacuate;      /* emigrate whatever the limits */
    /* Working values of the check. */
    size_t limit;
    int64_t avail, diff;
    worker_id sorted; /* the i-th queue by diff, ascending, for i = this one's index */
};

/* Plans migration for queues 0..n-1, reached through queue(ctx, i). */
void otp_balance_plan(int n, struct otp_balance_queue *(*queue)(void *ctx, int i), void *ctx);

#endif
