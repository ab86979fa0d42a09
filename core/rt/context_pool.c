/*
 * context_pool.c — process contexts in huge-page chunks (context_pool.h).
 */
#include "rt/context_pool.h"

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

bool context_pool_init(struct context_pool *pool, size_t object_bytes)
{
    *pool = (struct context_pool){.object_bytes = (object_bytes + 63) & ~(size_t)63};
    if (pool->object_bytes > CONTEXT_POOL_CHUNK_BYTES)
        return false;
    return pthread_mutex_init(&pool->lock, NULL) == 0;
}

void context_pool_destroy(struct context_pool *pool)
{
    for (size_t i = 0; i < pool->chunk_count; i++) {
        UNSCAN_REGION(pool->chunks[i], CONTEXT_POOL_CHUNK_BYTES);
        UNPOISON(pool->chunks[i], CONTEXT_POOL_CHUNK_BYTES);
        munmap(pool->chunks[i], CONTEXT_POOL_CHUNK_BYTES);
    }
    free(pool->chunks);
    pthread_mutex_destroy(&pool->lock);
    *pool = (struct context_pool){0};
}

/* A chunk aligned to its size, so that the kernel can back it with one
 * huge page (asked for when `huge`): twice its size mapped, the rest
 * returned. */
static char *map_chunk(bool huge)
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
    return huge ? heap_advise_huge(chunk, CONTEXT_POOL_CHUNK_BYTES) : chunk;
}

/* A new chunk for `cursor` (lock held). */
static bool add_chunk(struct context_pool *pool, struct pool_cursor *cursor)
{
    if (pool->chunk_count == pool->chunk_cap) {
        size_t cap = pool->chunk_cap ? 2 * pool->chunk_cap : 16;
        void **chunks = realloc(pool->chunks, cap * sizeof *chunks);
        if (!chunks)
            return false;
        pool->chunks = chunks;
        pool->chunk_cap = cap;
    }
    char *chunk = map_chunk(cursor->chunks > 0);
    if (!chunk)
        return false;
    cursor->chunks++;
    pool->chunks[pool->chunk_count++] = chunk;
    SCAN_REGION(chunk, CONTEXT_POOL_CHUNK_BYTES);
    POISON(chunk, CONTEXT_POOL_CHUNK_BYTES);
    cursor->next = chunk;
    cursor->end = chunk + CONTEXT_POOL_CHUNK_BYTES / pool->object_bytes * pool->object_bytes;
    return true;
}

void *context_pool_take(struct context_pool *pool, struct pool_cursor *cursor)
{
    char *context;
    if (cursor && cursor->next != cursor->end) {
        context = cursor->next;
        cursor->next += pool->object_bytes;
        UNPOISON(context, pool->object_bytes);
        return context;
    }
    pthread_mutex_lock(&pool->lock);
    context = pool->released;
    if (context) {
        pool->released = *(void **)(void *)context;
    } else {
        struct pool_cursor *from = cursor ? cursor : &pool->host;
        if (from->next == from->end && !add_chunk(pool, from)) {
            pthread_mutex_unlock(&pool->lock);
            return NULL;
        }
        context = from->next;
        from->next += pool->object_bytes;
    }
    pthread_mutex_unlock(&pool->lock);
    UNPOISON(context, pool->object_bytes);
    return context;
}

void context_pool_give(struct context_pool *pool, void *context)
{
    POISON((char *)context + LINK_BYTES, pool->object_bytes - LINK_BYTES);
    pthread_mutex_lock(&pool->lock);
    *(void **)context = pool->released;
    pool->released = context;
    pthread_mutex_unlock(&pool->lock);
}
