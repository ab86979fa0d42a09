/*
 * context_pool.h — where process contexts live: 2 MiB chunks that the
 * kernel is asked to back with transparent huge pages (madvise
 * MADV_HUGEPAGE), each worker carving contexts from a chunk of its own.
 *
 * Why not malloc: when many processes live at once, their contexts are
 * fresh memory, and on a virtual machine every first touch of a 4 KiB page
 * is a fault that costs several microseconds; glibc's malloc asks for huge
 * pages only when a tunable set before the program starts says so.
 * 100,000 processes alive at once took 80,000 faults, and half the run's
 * time at one worker, three quarters at two (experiments/workloads/
 * fjcreate.erl). A chunk is a fault a huge page. But for its first one:
 * each cursor's first chunk keeps 4 KiB pages, touched as contexts are
 * handed out, so that a program of a few processes stays as small as
 * before (a huge page is resident whole: `clause hello.beam` took 8 MB
 * instead of 6 when every chunk had them).
 *
 * Contexts are all one size. A released one is kept for the next (the
 * executor's per-worker spares first, then the pool's shared list); chunks
 * are returned to the system when the pool is destroyed, with the
 * executor. So the contexts of a peak of live processes stay mapped until
 * then, as ERTS keeps its carriers.
 */
#ifndef CLAUSE_RT_CONTEXT_POOL_H
#define CLAUSE_RT_CONTEXT_POOL_H

#include "term/heap.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* A chunk is a huge page. */
#define CONTEXT_POOL_CHUNK_BYTES ((size_t)HEAP_HUGE_PAGE_BYTES)

/* A worker's part of a chunk: contexts not yet handed out. */
struct pool_cursor {
    char *next, *end;
    unsigned chunks; /* chunks it carved so far */
};

struct context_pool {
    size_t object_bytes;     /* a multiple of 64: no two contexts share a cache line */
    pthread_mutex_t lock;    /* the fields below */
    void *released;          /* released contexts, chained through their first word */
    struct pool_cursor host; /* the cursor of every thread that is not a worker */
    void **chunks;           /* every chunk mapped, to unmap at the end */
    size_t chunk_count, chunk_cap;
};

/* A pool of objects of `object_bytes` (at most a chunk's); false when the
 * lock cannot be made. */
bool context_pool_init(struct context_pool *pool, size_t object_bytes);

/* Unmaps every chunk: every context taken is gone with it. */
void context_pool_destroy(struct context_pool *pool);

/* A context's memory, its bytes as a released context left them (the
 * caller zeroes what it needs), or NULL when the system refused a chunk.
 * `cursor` is the calling worker's (no lock taken while its chunk lasts),
 * or NULL from any other thread. */
void *context_pool_take(struct context_pool *pool, struct pool_cursor *cursor);

/* Gives a context back for a later take; any thread. */
void context_pool_give(struct context_pool *pool, void *context);

#endif
