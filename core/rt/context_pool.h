/*
 * context_pool.h — where process contexts live: 2 MiB chunks, each
 * faulted in whole when it is mapped, each worker carving contexts from a
 * chunk of its own.
 *
 * Why not malloc: when many processes live at once, their contexts are
 * fresh memory, and on a virtual machine every first touch of a 4 KiB page
 * is a fault that costs several microseconds. 100,000 processes alive at
 * once took 80,000 faults, and half the run's time at one worker, three
 * quarters at two (experiments/workloads/fjcreate.erl). A chunk is one
 * system call (MADV_POPULATE_WRITE, heap_prefault_span) that faults in its
 * 512 pages for well under a microsecond each. Not huge pages: on this
 * VM (free page reporting) a huge page's first touch took from 0.1 to
 * several milliseconds, and fjcreate at two workers 590-900 ms with them
 * against 233-309 ms populated (OTP 383-517). But for its first one: each
 * cursor's first chunk is faulted in as contexts are handed out, so that a
 * program of a few processes stays as small as before (`clause hello.beam`
 * took 8 MB instead of 6 when every chunk was resident whole).
 *
 * Contexts are all one size. A released one is kept for the next (the
 * executor's per-worker spares first, then its chunk's free list: takes
 * come from chunks with free contexts before a new chunk is mapped). A
 * chunk whose every context has been back for CONTEXT_POOL_EMPTY_HOLD_NS
 * is unmapped, while another chunk's worth of free contexts remains, so a
 * peak's chunks go back to the system once their processes have ended, as
 * ERTS gives back empty carriers after its cache's check interval, and
 * waves of spawns closer together than that reuse them. A peak need not be
 * one of live processes: a context is released only after an epoch's
 * grace period, and a worker the system preempts in the middle of a slice
 * holds every worker's releases back (a soak at 38,000 spawns a second,
 * one CPU taken from it in 150 ms bursts, mapped six chunks in 130 ms).
 */
#ifndef CLAUSE_RT_CONTEXT_POOL_H
#define CLAUSE_RT_CONTEXT_POOL_H

#include "term/heap.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A chunk's size, and its alignment (a context's chunk is its address masked). */
#define CONTEXT_POOL_CHUNK_BYTES ((size_t)HEAP_HUGE_PAGE_BYTES)

/* How long a chunk whose contexts have all come back stays mapped. */
#define CONTEXT_POOL_EMPTY_HOLD_NS 1000000000u

/* A worker's part of a chunk: contexts not yet handed out. */
struct pool_cursor {
    char *next, *end;
    unsigned chunks; /* chunks it carved so far */
};

struct pool_chunk; /* a chunk's bookkeeping, in its last bytes (context_pool.c) */

struct context_pool {
    size_t object_bytes;                        /* a multiple of 64: no two contexts share a cache line */
    pthread_mutex_t lock;                       /* the fields below */
    struct pool_chunk *partial;                 /* the chunks with released contexts, latest first */
    struct pool_chunk *empty_head, *empty_tail; /* the chunks with every context released, oldest first */
    uint64_t empty_hold_ns;                     /* CONTEXT_POOL_EMPTY_HOLD_NS but in tests */
    unsigned gives_unchecked;                   /* gives since the empty chunks' ages were looked at */
    size_t released;                            /* released contexts in all chunks */
    struct pool_cursor host;                    /* the cursor of every thread that is not a worker */
    struct pool_chunk **chunks;                 /* every chunk mapped */
    size_t chunk_count, chunk_cap;
    size_t chunks_returned; /* chunks unmapped since init (for tests and reports) */
    /* When the oldest empty chunk's hold ends, if it may go then (another
     * chunk's worth of free contexts beside it); UINT64_MAX otherwise.
     * Written under the lock, read without it (context_pool_due_ns). */
    _Atomic uint64_t due_ns;
};

/* A pool of objects of `object_bytes`; false when they are larger than a
 * chunk less its 64 bytes of bookkeeping, or the lock cannot be made. */
bool context_pool_init(struct context_pool *pool, size_t object_bytes);

/* Unmaps every chunk: every context taken is gone with it. */
void context_pool_destroy(struct context_pool *pool);

/* A context's memory, its bytes as a released context left them (the
 * caller zeroes what it needs), or NULL when the system refused a chunk.
 * `cursor` is the calling worker's (no lock taken while its chunk lasts),
 * or NULL from any other thread. */
void *context_pool_take(struct context_pool *pool, struct pool_cursor *cursor);

/* Up to n contexts into out[] under one hold of the lock, as n takes
 * would; how many (fewer only when the system refused a chunk). */
size_t context_pool_take_some(struct context_pool *pool, struct pool_cursor *cursor, void **out, size_t n);

/* Gives a context back for a later take; any thread. */
void context_pool_give(struct context_pool *pool, void *context);

/* Gives n contexts back under one hold of the lock, as n gives would. */
void context_pool_give_some(struct context_pool *pool, void *const *contexts, size_t n);

/* Gives look at the empty chunks' ages; a pool nobody gives to any more
 * (a runtime gone quiet after a burst) has its stale chunks unmapped by
 * its idle workers: they sleep until context_pool_due_ns (heap_clock_ns's
 * clock; UINT64_MAX: nothing to wait for), any thread, without the lock,
 * then call context_pool_release_stale, which unmaps what a give would
 * have and says how many chunks went. */
uint64_t context_pool_due_ns(struct context_pool *pool);
size_t context_pool_release_stale(struct context_pool *pool, uint64_t now_ns);

#endif
