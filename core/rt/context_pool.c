/*
 * context_pool.c — process contexts in 2 MiB chunks (context_pool.h).
 */
#include "rt/context_pool.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Under AddressSanitizer a released context is poisoned (but for its link)
 * and a chunk's contexts not yet handed out too, so a use after release is
 * still caught; LeakSanitizer scans the chunks, whose contexts hold the
 * only pointers to their processes' other blocks. */
#if defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif
#ifdef POOL_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#define SCAN_REGION(p, n) __lsan_register_root_region((p), (n))
#define UNSCAN_REGION(p, n) __lsan_unregister_root_region((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#define SCAN_REGION(p, n) ((void)(p), (void)(n))
#define UNSCAN_REGION(p, n) ((void)(p), (void)(n))
#endif

#define LINK_BYTES sizeof(void *)

/* A chunk's bookkeeping, in the last 64 bytes of the chunk, so that its
 * first context starts the chunk and a context's chunk is its address
 * rounded down. */
struct pool_chunk {
    void *free;                                 /* released contexts, chained through their first word */
    struct pool_chunk *prev, *next;             /* in pool->partial while free is not NULL */
    struct pool_chunk *empty_prev, *empty_next; /* in the pool's empty list while every context is free */
    uint64_t empty_since_ns;                    /* since when (monotonic clock) */
    uint32_t free_count, capacity;              /* capacity: contexts the chunk holds */
    uint32_t index;                             /* in pool->chunks */
};
#define CHUNK_TAIL_BYTES 64
/* While a chunk is empty, a give in this many reads the clock for it. */
#define POOL_GIVES_PER_CHECK 64
_Static_assert(sizeof(struct pool_chunk) <= CHUNK_TAIL_BYTES, "a chunk's bookkeeping fits its tail");

static char *chunk_start(const struct pool_chunk *c) { return (char *)c + CHUNK_TAIL_BYTES - CONTEXT_POOL_CHUNK_BYTES; }

static struct pool_chunk *chunk_of(const void *context)
{
    uintptr_t start = (uintptr_t)context & ~(uintptr_t)(CONTEXT_POOL_CHUNK_BYTES - 1);
    return (struct pool_chunk *)(start + CONTEXT_POOL_CHUNK_BYTES - CHUNK_TAIL_BYTES);
}

static void unlink_partial(struct context_pool *pool, struct pool_chunk *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        pool->partial = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void unlink_empty(struct context_pool *pool, struct pool_chunk *c)
{
    if (c->empty_prev)
        c->empty_prev->empty_next = c->empty_next;
    else
        pool->empty_head = c->empty_next;
    if (c->empty_next)
        c->empty_next->empty_prev = c->empty_prev;
    else
        pool->empty_tail = c->empty_prev;
    c->empty_prev = c->empty_next = NULL;
}

static void unmap_chunk(struct pool_chunk *c)
{
    char *start = chunk_start(c);
    UNSCAN_REGION(start, CONTEXT_POOL_CHUNK_BYTES);
    UNPOISON(start, CONTEXT_POOL_CHUNK_BYTES);
    munmap(start, CONTEXT_POOL_CHUNK_BYTES);
}

bool context_pool_init(struct context_pool *pool, size_t object_bytes)
{
    *pool = (struct context_pool){.object_bytes = (object_bytes + 63) & ~(size_t)63,
                                  .empty_hold_ns = CONTEXT_POOL_EMPTY_HOLD_NS};
    atomic_init(&pool->due_ns, UINT64_MAX);
    if (pool->object_bytes > CONTEXT_POOL_CHUNK_BYTES - CHUNK_TAIL_BYTES)
        return false;
    return pthread_mutex_init(&pool->lock, NULL) == 0;
}

void context_pool_destroy(struct context_pool *pool)
{
    for (size_t i = 0; i < pool->chunk_count; i++)
        unmap_chunk(pool->chunks[i]);
    free(pool->chunks);
    pthread_mutex_destroy(&pool->lock);
    *pool = (struct context_pool){0};
}

/* A chunk aligned to its size (chunk_of finds a context's by its address):
 * twice its size mapped, the rest returned; faulted in whole at once when
 * `populate`. */
static char *map_chunk(bool populate)
{
    size_t span = 2 * CONTEXT_POOL_CHUNK_BYTES;
    char *mapped = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
        return NULL;
    char *chunk =
        (char *)(((uintptr_t)mapped + CONTEXT_POOL_CHUNK_BYTES - 1) & ~(uintptr_t)(CONTEXT_POOL_CHUNK_BYTES - 1));
    if (chunk > mapped)
        munmap(mapped, (size_t)(chunk - mapped));
    if (mapped + span > chunk + CONTEXT_POOL_CHUNK_BYTES)
        munmap(chunk + CONTEXT_POOL_CHUNK_BYTES, (size_t)(mapped + span - (chunk + CONTEXT_POOL_CHUNK_BYTES)));
    if (populate)
        heap_prefault_span((uintptr_t)chunk, (uintptr_t)chunk + CONTEXT_POOL_CHUNK_BYTES);
    return chunk;
}

/* A new chunk for `cursor` (lock held). */
static bool add_chunk(struct context_pool *pool, struct pool_cursor *cursor)
{
    if (pool->chunk_count == pool->chunk_cap) {
        size_t cap = pool->chunk_cap ? 2 * pool->chunk_cap : 16;
        struct pool_chunk **chunks = realloc(pool->chunks, cap * sizeof *chunks);
        if (!chunks)
            return false;
        pool->chunks = chunks;
        pool->chunk_cap = cap;
    }
    char *chunk = map_chunk(cursor->chunks > 0);
    if (!chunk)
        return false;
    cursor->chunks++;
    struct pool_chunk *c = chunk_of(chunk);
    /* Every context counts as taken until it comes back: those the cursor
     * has not carved yet never do before it has. */
    *c = (struct pool_chunk){
        .capacity = (uint32_t)((CONTEXT_POOL_CHUNK_BYTES - CHUNK_TAIL_BYTES) / pool->object_bytes),
        .index = (uint32_t)pool->chunk_count,
    };
    pool->chunks[pool->chunk_count++] = c;
    SCAN_REGION(chunk, CONTEXT_POOL_CHUNK_BYTES);
    POISON(chunk, CONTEXT_POOL_CHUNK_BYTES - CHUNK_TAIL_BYTES);
    cursor->next = chunk;
    cursor->end = chunk + (size_t)c->capacity * pool->object_bytes;
    return true;
}

/* When the empty chunk c may be unmapped: once it has stayed empty for the
 * hold time, if another chunk's worth of free contexts remains beside it;
 * UINT64_MAX when it must stay (lock held). */
static uint64_t stale_at_locked(const struct context_pool *pool, const struct pool_chunk *c)
{
    return pool->released - c->capacity >= c->capacity ? c->empty_since_ns + pool->empty_hold_ns : UINT64_MAX;
}

/* Republishes due_ns, the oldest empty chunk's stale_at_locked, after the
 * lists or the count changed (lock held). */
static void due_update_locked(struct context_pool *pool)
{
    uint64_t due = pool->empty_head ? stale_at_locked(pool, pool->empty_head) : UINT64_MAX;
    atomic_store_explicit(&pool->due_ns, due, memory_order_relaxed);
}

/* The next released context, else the next of `cursor` (or of the host
 * cursor), mapping a chunk when it is used up; NULL when the system
 * refused one. Lock held. */
static void *take_locked(struct context_pool *pool, struct pool_cursor *cursor)
{
    char *context;
    struct pool_chunk *c = pool->partial;
    if (c) {
        context = c->free;
        if (c->free_count == c->capacity) /* it leaves the empty list */
            unlink_empty(pool, c);
        c->free = *(void **)(void *)context;
        c->free_count--;
        pool->released--;
        if (!c->free)
            unlink_partial(pool, c);
        return context;
    }
    struct pool_cursor *from = cursor ? cursor : &pool->host;
    if (from->next == from->end && !add_chunk(pool, from))
        return NULL;
    context = from->next;
    from->next += pool->object_bytes;
    return context;
}

size_t context_pool_take_some(struct context_pool *pool, struct pool_cursor *cursor, void **out, size_t n)
{
    size_t got = 0;
    for (; got < n && cursor && cursor->next != cursor->end; got++) {
        out[got] = cursor->next;
        cursor->next += pool->object_bytes;
    }
    if (got < n) {
        pthread_mutex_lock(&pool->lock);
        while (got < n && (out[got] = take_locked(pool, cursor)))
            got++;
        due_update_locked(pool);
        pthread_mutex_unlock(&pool->lock);
    }
    for (size_t i = 0; i < got; i++)
        UNPOISON(out[i], pool->object_bytes);
    return got;
}

void *context_pool_take(struct context_pool *pool, struct pool_cursor *cursor)
{
    void *context;
    return context_pool_take_some(pool, cursor, &context, 1) ? context : NULL;
}

/* Takes out of the pool the chunks empty for the hold time or longer,
 * oldest first, while another chunk's worth of free contexts remains;
 * returns them chained through empty_next, for the caller to unmap
 * without the lock. Lock held. */
static struct pool_chunk *take_stale_locked(struct context_pool *pool, uint64_t now_ns)
{
    struct pool_chunk *stale = NULL;
    for (struct pool_chunk *c = pool->empty_head; c && now_ns >= stale_at_locked(pool, c); c = pool->empty_head) {
        unlink_empty(pool, c);
        unlink_partial(pool, c);
        pool->released -= c->capacity;
        struct pool_chunk *last = pool->chunks[--pool->chunk_count];
        pool->chunks[c->index] = last;
        last->index = c->index;
        pool->chunks_returned++;
        c->empty_next = stale;
        stale = c;
    }
    return stale;
}

/* Unmaps the chunks take_stale_locked took. */
static size_t unmap_stale(struct pool_chunk *stale)
{
    size_t n = 0;
    for (; stale; n++) {
        struct pool_chunk *next = stale->empty_next;
        unmap_chunk(stale);
        stale = next;
    }
    return n;
}

uint64_t context_pool_due_ns(struct context_pool *pool)
{
    return atomic_load_explicit(&pool->due_ns, memory_order_relaxed);
}

size_t context_pool_release_stale(struct context_pool *pool, uint64_t now_ns)
{
    pthread_mutex_lock(&pool->lock);
    struct pool_chunk *stale = take_stale_locked(pool, now_ns);
    due_update_locked(pool);
    pthread_mutex_unlock(&pool->lock);
    return unmap_stale(stale);
}

/* Puts a context back in its chunk; whether the chunk is now empty (and
 * waits in the empty list, stamped `now_ns`, read when 0). Lock held. */
static bool give_locked(struct context_pool *pool, void *context, uint64_t *now_ns)
{
    struct pool_chunk *c = chunk_of(context);
    *(void **)context = c->free;
    c->free = context;
    c->free_count++;
    pool->released++;
    if (c->free_count == 1) {
        c->prev = NULL;
        c->next = pool->partial;
        if (c->next)
            c->next->prev = c;
        pool->partial = c;
    }
    if (c->free_count < c->capacity)
        return false;
    /* Empty: reused first if takes come (it is among the partial chunks),
     * else returned once it has stayed so for the hold time. */
    if (!*now_ns)
        *now_ns = heap_clock_ns();
    c->empty_since_ns = *now_ns;
    c->empty_next = NULL;
    c->empty_prev = pool->empty_tail;
    if (c->empty_prev)
        c->empty_prev->empty_next = c;
    else
        pool->empty_head = c;
    pool->empty_tail = c;
    return true;
}

void context_pool_give_some(struct context_pool *pool, void *const *contexts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        POISON((char *)contexts[i] + LINK_BYTES, pool->object_bytes - LINK_BYTES);
    struct pool_chunk *stale = NULL;
    uint64_t now = 0;
    bool emptied = false;
    pthread_mutex_lock(&pool->lock);
    for (size_t i = 0; i < n; i++)
        emptied |= give_locked(pool, contexts[i], &now);
    if (emptied) {
        stale = take_stale_locked(pool, now);
    } else if (pool->empty_head && (pool->gives_unchecked += (unsigned)n) >= POOL_GIVES_PER_CHECK) {
        /* The chunks a peak emptied at once age with no chunk emptying
         * after them: looked at every so many gives meanwhile. */
        pool->gives_unchecked = 0;
        stale = take_stale_locked(pool, heap_clock_ns());
    }
    due_update_locked(pool);
    pthread_mutex_unlock(&pool->lock);
    unmap_stale(stale);
}

void context_pool_give(struct context_pool *pool, void *context) { context_pool_give_some(pool, &context, 1); }
