/*
 * clean_runs.h — copied chains of cons cells whose heads are all immediates
 * (a string, a list of small integers).
 *
 * Both copiers (the Cheney collection in gc.c and a term's copy in copy.c)
 * copy a list's cells as one chain, each tail already pointing to the next
 * copy, so nothing in such a chain but its last cell's tail needs fixing:
 * the copier offers the chain here, and its scan jumps from the chain's
 * first cell to its last. Copies are only appended, so a queue in address
 * order is the order the scan meets them. The first runs live inside the
 * queue, so a small copy allocates nothing; a run that could not be
 * recorded is simply scanned.
 */
#ifndef CLAUSE_CLEAN_RUNS_H
#define CLAUSE_CLEAN_RUNS_H

#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Chains shorter than this are scanned: recording one costs about what
 * scanning a few cells does. */
#define CLEAN_RUN_MIN_CELLS 4
#define CLEAN_RUNS_INLINE 16

struct clean_run {
    const term *first, *last; /* the chain's first cell and its last one, which the scan visits */
};

struct clean_runs {
    struct clean_run *runs; /* inline_runs until more are needed */
    size_t len, cap, next;
    const term *next_first; /* runs[next].first, or NULL: one comparison per object scanned */
    bool refused;           /* the host refused room for more: the rest are scanned */
    struct clean_run inline_runs[CLEAN_RUNS_INLINE];
};

static inline void clean_runs_init(struct clean_runs *q)
{
    q->runs = q->inline_runs;
    q->len = q->next = 0;
    q->cap = CLEAN_RUNS_INLINE;
    q->next_first = NULL;
    q->refused = false;
}

static inline void clean_runs_release(struct clean_runs *q)
{
    if (q->runs != q->inline_runs)
        free(q->runs);
}

static __attribute__((noinline, unused)) bool clean_runs_grow(struct clean_runs *q)
{
    if (q->refused)
        return false;
    size_t cap = 4 * q->cap;
    struct clean_run *grown =
        q->runs == q->inline_runs ? malloc(cap * sizeof *grown) : realloc(q->runs, cap * sizeof *grown);
    if (!grown) {
        q->refused = true;
        return false;
    }
    if (q->runs == q->inline_runs)
        memcpy(grown, q->inline_runs, sizeof q->inline_runs);
    q->runs = grown;
    q->cap = cap;
    return true;
}

/* Records the chain from first to last (its last cell) if it is clean and
 * long enough; heads is the AND of its heads, which keeps the immediates'
 * primary tag only if every head has it (a head is never a header). */
static inline void clean_runs_offer(struct clean_runs *q, const term *first, const term *last, term heads)
{
    if (!is_immed(heads) || last - first < 2 * (CLEAN_RUN_MIN_CELLS - 1))
        return;
    if (q->len == q->cap && !clean_runs_grow(q))
        return;
    if (q->next == q->len)
        q->next_first = first;
    q->runs[q->len++] = (struct clean_run){first, last};
}

/* Where the scan goes on from the clean run it reached: the run's last cell.
 * An emptied queue starts again from its first slot. */
static inline const term *clean_runs_skip(struct clean_runs *q)
{
    const term *last = q->runs[q->next++].last;
    if (q->next < q->len) {
        q->next_first = q->runs[q->next].first;
    } else {
        q->next_first = NULL;
        q->len = q->next = 0;
    }
    return last;
}

#endif
