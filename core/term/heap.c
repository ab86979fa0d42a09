/*
 * heap.c — a process heap's block and fragments, and the builders of small
 * terms (see heap.h). Collection lives in gc.c.
 *
 * When the block is full, allocation continues in fragments: the newest
 * fragment is filled first, and a new one is at least half the block (so a
 * builtin building a long list does not call malloc per cell). The cap
 * counts words handed out, not fragment capacity, so a cap is exact.
 */
#include "term/heap.h"

#include "term/binary.h"
#include "term/gc.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define HEAP_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define HEAP_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define HEAP_POISON(p, n) ((void)(p), (void)(n))
#define HEAP_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define FRAGMENT_MIN_WORDS 256

/* The whole units (a power of two) inside [lo, hi): lo rounded up, hi
 * down. */
static void inner_span(uintptr_t *lo, uintptr_t *hi, uintptr_t unit)
{
    *lo = (*lo + unit - 1) & ~(unit - 1);
    *hi &= ~(unit - 1);
}

/* A collection writes its new blocks front to back once, and the memory
 * of a block of megabytes is usually new to the process: on a 2-CPU VM a
 * 4 KiB page's first touch cost about 8 us, so promoting 100,000 queued
 * messages (a fresh 4 MB old block) spent most of its time faulting. With
 * transparent huge pages in madvise mode (the usual default), advising the
 * block's 2 MiB-aligned inside makes that one fault per 2 MiB. */
void *heap_advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t lo = (uintptr_t)p, hi = (uintptr_t)p + bytes;
    inner_span(&lo, &hi, HEAP_HUGE_PAGE_BYTES);
    if (p && hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)bytes;
#endif
    return p;
}

#define PAGE_BYTES ((uintptr_t)4096)

/* Faults in the whole pages of [lo, hi) without writing them, as a write
 * to each would; false where the kernel cannot (before Linux 5.14) or
 * part of the range is not mapped. */
static bool populate_advised(uintptr_t lo, uintptr_t hi)
{
    inner_span(&lo, &hi, PAGE_BYTES);
#ifdef MADV_POPULATE_WRITE
    return hi <= lo || madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0;
#else
    return hi <= lo;
#endif
}

/* Faults in [lo, hi), memory the caller owns and whose contents do not
 * matter: where the kernel cannot, by a write a page. */
static void populate(uintptr_t lo, uintptr_t hi)
{
    if (populate_advised(lo, hi))
        return;
    inner_span(&lo, &hi, PAGE_BYTES);
    for (uintptr_t a = lo; a < hi; a += PAGE_BYTES)
        *(volatile term *)a = 0;
}

bool heap_free_span(const heap_t *h, uintptr_t *lo, uintptr_t *hi)
{
    if (!h->top || (uintptr_t)h->end - (uintptr_t)h->top < HEAP_HUGE_PAGE_BYTES)
        return false;
    *lo = (uintptr_t)h->top;
    *hi = (uintptr_t)h->end;
    return true;
}

void heap_prefault_span(uintptr_t lo, uintptr_t hi) { (void)populate_advised(lo, hi); }

static size_t big_bytes(size_t words);

void heap_release_free_span(const heap_t *h)
{
    if (!h->top)
        return;
    size_t words = (size_t)(h->end - h->start);
    uintptr_t lo = (uintptr_t)h->top, hi = (uintptr_t)h->end;
    /* A big block is mapped to the next huge page past its end, and that
     * tail is as resident as the rest when the block was reused warm. */
    if (!h->borrowed_block && heap_is_big_block(words))
        hi = (uintptr_t)h->start + big_bytes(words);
    if (hi - lo < HEAP_HUGE_PAGE_BYTES)
        return;
    inner_span(&lo, &hi, PAGE_BYTES);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Below glibc's smallest mmap threshold (128 KiB), so arena memory. */
#define WARM_PIECE_BYTES ((size_t)32 << 10)

void *heap_arena_warm(size_t bytes)
{
    size_t n = bytes / WARM_PIECE_BYTES, got = 0, highest = 0;
    void **pieces = n >= 2 ? malloc(n * sizeof *pieces) : NULL;
    if (!pieces)
        return NULL;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (; got < n && (pieces[got] = malloc(WARM_PIECE_BYTES)); got++) {
        uintptr_t a = (uintptr_t)pieces[got];
        highest = a > (uintptr_t)pieces[highest] ? got : highest;
        lo = a < lo ? a : lo;
        hi = a + WARM_PIECE_BYTES > hi ? a + WARM_PIECE_BYTES : hi;
    }
    /* In a fresh arena the pieces are adjacent and one system call covers
     * their span; what lies between them is the process's own memory, so
     * over the span advice only, never a write. */
    if (got > 0 && (hi - lo > 2 * got * WARM_PIECE_BYTES || !populate_advised(lo, hi)))
        for (size_t i = 0; i < got; i++)
            populate((uintptr_t)pieces[i], (uintptr_t)pieces[i] + WARM_PIECE_BYTES);
    void *kept = got > 0 ? pieces[highest] : NULL;
    for (size_t i = 0; i < got; i++)
        if (i != highest)
            free(pieces[i]);
    free(pieces);
    return kept;
}

void heap_arena_warm_end(void *kept) { free(kept); }

/* ---- Big blocks -----------------------------------------------------------
 *
 * A block of HEAP_BIG_BLOCK_BYTES or more is a mapping of its own, whole
 * huge pages advised to be huge (heap_advise_huge), and a freed one waits
 * in a cache for the next request it can hold, as OTP's segment cache
 * (erl_mseg.c) keeps freed carriers. A process holding much old data gets
 * a young block of megabytes at each minor collection however little
 * survives, and the kernel zeroes a fresh mapping's every huge page at its
 * first touch: a hog folding over a 300,000-key map spent 4-7 ms a minor
 * collection faulting where the copying took 50 us, and on a VM the
 * other CPU's worker stalled now and then meanwhile. Mappings of their own
 * also keep the huge-page advice out of malloc's arenas, where it outlived
 * the block and a later small allocation's first touch zeroed a whole
 * huge page. A request takes the smallest cached block that holds it, cut
 * to its size; the cache keeps the newest HEAP_BIG_CACHE_BLOCKS blocks up
 * to HEAP_BIG_CACHE_BYTES and unmaps the oldest beyond. */

static struct {
    pthread_mutex_t lock;
    struct big_slot {
        void *p;
        size_t bytes;
        uint64_t since_ns;             /* when it was given (heap_clock_ns) */
    } slot[HEAP_BIG_CACHE_BLOCKS + 1]; /* oldest first */
    unsigned n;
    size_t bytes;
    _Atomic uint64_t due_ns; /* the oldest slot's since_ns + HEAP_BIG_CACHE_HOLD_NS; UINT64_MAX: empty */
} big_cache = {.lock = PTHREAD_MUTEX_INITIALIZER, .due_ns = UINT64_MAX};

uint64_t heap_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* When the oldest slot's hold ends; UINT64_MAX when empty (lock held). */
static uint64_t big_due_locked(void)
{
    return big_cache.n ? big_cache.slot[0].since_ns + HEAP_BIG_CACHE_HOLD_NS : UINT64_MAX;
}

/* Republishes big_due_locked for the readers without the lock. */
static void big_due_update_locked(void)
{
    atomic_store_explicit(&big_cache.due_ns, big_due_locked(), memory_order_relaxed);
}

/* Unmaps a block taken out of the cache, outside the lock: a big unmap
 * takes milliseconds. */
static void big_unmap(struct big_slot s)
{
    HEAP_UNPOISON(s.p, s.bytes);
    munmap(s.p, s.bytes);
}

/* Takes slot i out of the cache (its lock held). */
static struct big_slot big_remove_locked(unsigned i)
{
    struct big_slot got = big_cache.slot[i];
    big_cache.bytes -= got.bytes;
    big_cache.n--;
    memmove(&big_cache.slot[i], &big_cache.slot[i + 1], (big_cache.n - i) * sizeof big_cache.slot[0]);
    big_due_update_locked();
    return got;
}

static size_t big_bytes(size_t words)
{
    return (words * sizeof(term) + HEAP_HUGE_PAGE_BYTES - 1) & ~(HEAP_HUGE_PAGE_BYTES - 1);
}

/* A fresh mapping of `bytes` (whole huge pages) on a huge-page boundary. */
static void *big_map(size_t bytes)
{
    size_t span = bytes + HEAP_HUGE_PAGE_BYTES;
    char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uintptr_t lo = (uintptr_t)m, hi = lo + span;
    inner_span(&lo, &hi, HEAP_HUGE_PAGE_BYTES);
    if (lo > (uintptr_t)m)
        munmap(m, lo - (uintptr_t)m);
    if (lo + bytes < (uintptr_t)m + span)
        munmap((void *)(lo + bytes), (uintptr_t)m + span - (lo + bytes));
    return heap_advise_huge((void *)lo, bytes);
}

/* The smallest cached block of `bytes` or more (of equals, the newest),
 * its tail beyond `bytes` unmapped (a freed block is given back with the
 * size it was asked for). Without one, the largest cached block grown to
 * `bytes` by moving page tables: its pages stay, only the rest is fresh. A
 * collection's to-space is often a little larger than the block the last
 * one shrank to, and mapping it afresh each time zeroed every page of it
 * (gc_idioms setelement: over half its time clearing pages). NULL when the
 * cache is empty or the block cannot grow. */
static void *big_take(size_t bytes)
{
    struct big_slot got = {NULL, 0, 0};
    pthread_mutex_lock(&big_cache.lock);
    unsigned best = big_cache.n, largest = big_cache.n;
    for (unsigned i = 0; i < big_cache.n; i++) {
        size_t b = big_cache.slot[i].bytes;
        if (b >= bytes && (best == big_cache.n || b <= big_cache.slot[best].bytes))
            best = i;
        if (largest == big_cache.n || b >= big_cache.slot[largest].bytes)
            largest = i;
    }
    if (best < big_cache.n)
        got = big_remove_locked(best);
    else if (largest < big_cache.n)
        got = big_remove_locked(largest);
    pthread_mutex_unlock(&big_cache.lock);
    if (!got.p)
        return NULL;
    HEAP_UNPOISON(got.p, got.bytes);
    if (got.bytes > bytes)
        munmap((char *)got.p + bytes, got.bytes - bytes);
    if (got.bytes < bytes) {
        void *grown = mremap(got.p, got.bytes, bytes, MREMAP_MAYMOVE);
        if (grown == MAP_FAILED) {
            munmap(got.p, got.bytes);
            return NULL;
        }
        return heap_advise_huge(grown, bytes);
    }
    return got.p;
}

static void big_give(void *p, size_t bytes)
{
    struct big_slot evicted[HEAP_BIG_CACHE_BLOCKS + 1];
    unsigned gone = 0;
    if (bytes > HEAP_BIG_CACHE_BYTES) {
        munmap(p, bytes);
        return;
    }
    /* Poisoned while cached, so that a use after free is caught. */
    HEAP_POISON(p, bytes);
    uint64_t now = heap_clock_ns();
    pthread_mutex_lock(&big_cache.lock);
    big_cache.slot[big_cache.n++] = (struct big_slot){p, bytes, now};
    big_cache.bytes += bytes;
    while (big_cache.n > HEAP_BIG_CACHE_BLOCKS || big_cache.bytes > HEAP_BIG_CACHE_BYTES)
        evicted[gone++] = big_remove_locked(0);
    big_due_update_locked();
    pthread_mutex_unlock(&big_cache.lock);
    for (unsigned i = 0; i < gone; i++)
        big_unmap(evicted[i]);
}

void heap_big_cache_figures(size_t *blocks, size_t *bytes)
{
    pthread_mutex_lock(&big_cache.lock);
    *blocks = big_cache.n;
    *bytes = big_cache.bytes;
    pthread_mutex_unlock(&big_cache.lock);
}

uint64_t heap_big_cache_due_ns(void) { return atomic_load_explicit(&big_cache.due_ns, memory_order_relaxed); }

size_t heap_big_cache_release_aged(uint64_t now_ns)
{
    size_t released = 0;
    for (;;) {
        pthread_mutex_lock(&big_cache.lock);
        bool aged = big_cache.n && now_ns >= big_due_locked();
        struct big_slot oldest = aged ? big_remove_locked(0) : (struct big_slot){NULL, 0, 0};
        pthread_mutex_unlock(&big_cache.lock);
        if (!oldest.p)
            return released;
        big_unmap(oldest);
        released++;
    }
}

/* Every block's hold has ended by the end of time. */
void heap_big_cache_drop(void) { heap_big_cache_release_aged(UINT64_MAX); }

static _Atomic uint64_t last_return_ns; /* 0: never */
static _Atomic uint64_t returns;

bool heap_return_free_memory(uint64_t now_ns)
{
    uint64_t last = atomic_load_explicit(&last_return_ns, memory_order_relaxed);
    if (last && now_ns - last < HEAP_RETURN_INTERVAL_NS)
        return false;
    /* One caller among those racing for the same second trims. */
    if (!atomic_compare_exchange_strong_explicit(&last_return_ns, &last, now_ns, memory_order_relaxed,
                                                 memory_order_relaxed))
        return false;
    heap_big_cache_drop();
    malloc_trim(0);
    atomic_fetch_add_explicit(&returns, 1, memory_order_relaxed);
    return true;
}

uint64_t heap_free_memory_returns(void) { return atomic_load_explicit(&returns, memory_order_relaxed); }

term *heap_block_alloc(size_t words)
{
    if (!heap_is_big_block(words))
        return malloc(words * sizeof(term));
    size_t bytes = big_bytes(words);
    void *p = big_take(bytes);
    return p ? p : big_map(bytes);
}

void heap_block_free(term *block, size_t words)
{
    if (!block)
        return;
    if (heap_is_big_block(words))
        big_give(block, big_bytes(words));
    else
        free(block);
}

term *heap_block_realloc(term *block, size_t old_words, size_t words)
{
    if (!heap_is_big_block(old_words) && !heap_is_big_block(words))
        return realloc(block, words * sizeof(term));
    if (heap_is_big_block(old_words) && heap_is_big_block(words)) {
        size_t had = big_bytes(old_words), want = big_bytes(words);
        if (want <= had) {
            /* The tail goes back to the system; the block stays put. */
            if (want < had)
                munmap((char *)block + want, had - want);
            return block;
        }
        /* Grown by moving page tables, not words; the advice moves too. */
        void *moved = mremap(block, had, want, MREMAP_MAYMOVE);
        return moved == MAP_FAILED ? NULL : moved;
    }
    term *to = heap_block_alloc(words);
    if (!to)
        return NULL;
    memcpy(to, block, (old_words < words ? old_words : words) * sizeof(term));
    heap_block_free(block, old_words);
    return to;
}

/* erlang:system_flag(fullsweep_after, N); relaxed: a new setting needs to
 * reach only the heaps initialised after it. */
static _Atomic unsigned long default_fullsweep_after = HEAP_DEFAULT_FULLSWEEP_AFTER;

void heap_set_default_fullsweep_after(unsigned long n)
{
    atomic_store_explicit(&default_fullsweep_after, n, memory_order_relaxed);
}

unsigned long heap_default_fullsweep_after(void)
{
    return atomic_load_explicit(&default_fullsweep_after, memory_order_relaxed);
}

const struct heap_old heap_old_none = {0};

struct heap_old *heap_old_make(heap_t *h)
{
    if (!heap_has_old_state(h)) {
        struct heap_old *old = calloc(1, sizeof *old);
        if (!old)
            return NULL;
        h->old = old;
    }
    return h->old;
}

/* Points the heap at nothing off its block: no old generation, fragment or
 * ProcBin (their memory freed already, or never made). */
static void clear_off_block(heap_t *h)
{
    /* Cast: heap_old_none is never written (heap_has_old_state guards every write). */
    h->old = (struct heap_old *)&heap_old_none;
    h->frags = NULL;
    h->frag_words = h->adopted_words = 0;
    h->mso = NULL;
    h->off_heap_bytes = 0;
}

/* The state of a heap with nothing allocated, but for the block (its old
 * generation's state already freed, or never made). */
static void reset_generations(heap_t *h)
{
    h->top = h->high_water = h->start;
    clear_off_block(h);
    h->bin_vheap_limit = h->old_bin_vheap_limit = HEAP_BIN_VHEAP_MIN_BYTES;
    h->failure = HEAP_OK;
    h->collections = h->minor_gcs = h->full_sweeps = 0;
    h->fullsweep_after = heap_saturate_u32(heap_default_fullsweep_after());
    h->moved_words = 0;
    h->need_fullsweep = false;
    h->gc_requested = false;
    h->stack_words = 0;
    h->owner_mark = 0;
    heap_set_gc_mark(h);
}

bool heap_init(heap_t *h, size_t min_words, size_t max_words)
{
    if (min_words == 0)
        min_words = HEAP_DEFAULT_MIN_WORDS;
    size_t size = min_words;
    if (max_words != 0 && size > max_words)
        size = max_words;
    term *block = heap_block_alloc(size);
    if (!block)
        return false;
    h->start = block;
    h->end = block + size;
    h->min_words = min_words;
    h->max_words = max_words;
    h->borrowed_block = false;
    reset_generations(h);
    return true;
}

void heap_init_in(heap_t *h, term *block, size_t words, size_t max_words)
{
    h->start = block;
    h->end = block + (max_words != 0 && words > max_words ? max_words : words);
    h->min_words = words;
    h->max_words = max_words;
    h->borrowed_block = true;
    reset_generations(h);
}

void heap_free_block(heap_t *h)
{
    if (!h->borrowed_block)
        heap_block_free(h->start, heap_block_words(h));
    h->borrowed_block = false;
}

/* What both destroy and recycle give up: off-heap references, fragments,
 * the old generation and the remembered words. Leaves their pointers to
 * the caller. */
static void release_off_block(heap_t *h)
{
    bin_release_mso(h->mso);
    bin_release_mso(h->old->mso);
    struct heap_fragment *f = h->frags;
    while (f) {
        struct heap_fragment *next = f->next;
        free(f);
        f = next;
    }
    if (heap_has_old_state(h)) {
        heap_block_free(h->old->start, heap_old_block_words(h));
        free(h->old->remembered);
        free(h->old);
    }
}

/* A destroyed heap holds nothing and refers to nothing freed; only heap_init
 * makes it usable again, so the rest of reset_generations' work (half a
 * process's end in it once) is left to that. */
void heap_destroy(heap_t *h)
{
    release_off_block(h);
    heap_free_block(h);
    h->start = h->top = h->high_water = h->end = h->alloc_end = NULL;
    h->gc_mark = 0;
    clear_off_block(h);
}

bool heap_recycle(heap_t *h)
{
    if (heap_block_words(h) != h->min_words) {
        heap_destroy(h);
        return false;
    }
    release_off_block(h);
    reset_generations(h);
    return true;
}

term *heap_alloc_old(heap_t *h, size_t words)
{
    if (h->old->start || (h->max_words != 0 && heap_used_words(h) + words > h->max_words))
        return NULL;
    struct heap_old *old = heap_old_make(h);
    if (!old)
        return NULL;
    /* At most 3/4 full, as a collection sizes a block (gc.c: block_size),
     * so that the first promotions do not force a full sweep at once. */
    size_t size = gc_next_heap_size(words + (words + 2) / 3);
    term *block = heap_block_alloc(size);
    if (!block)
        return NULL;
    old->start = block;
    old->top = block + words;
    old->end = block + size;
    heap_set_gc_mark(h);
    return block;
}

/* slot is old (heap_write), so the old generation's state exists. */
void heap_remember(heap_t *h, term *slot)
{
    struct heap_old *old = h->old;
    if (old->remembered_len == old->remembered_cap) {
        size_t cap = old->remembered_cap ? 2 * (size_t)old->remembered_cap : 16;
        term **grown = cap <= UINT32_MAX ? realloc(old->remembered, cap * sizeof *grown) : NULL;
        if (!grown) {
            h->need_fullsweep = true;
            return;
        }
        old->remembered = grown;
        old->remembered_cap = (uint32_t)cap;
    }
    old->remembered[old->remembered_len++] = slot;
}

term *heap_alloc_slow(heap_t *h, size_t words)
{
    if (h->max_words != 0 && heap_used_words(h) + words > h->max_words) {
        h->failure = HEAP_FAIL_CAP;
        return NULL;
    }
    if ((size_t)(h->end - h->top) >= words) {
        term *p = h->top;
        h->top += words;
        return p;
    }
    struct heap_fragment *f = h->frags;
    if (!f || f->size - f->used < words) {
        size_t size = heap_block_words(h) / 2;
        if (size < FRAGMENT_MIN_WORDS)
            size = FRAGMENT_MIN_WORDS;
        if (size < words)
            size = words;
        f = heap_advise_huge(malloc(sizeof *f + size * sizeof(term)), sizeof *f + size * sizeof(term));
        if (!f) {
            h->failure = HEAP_FAIL_NOMEM;
            return NULL;
        }
        f->size = size;
        f->used = 0;
        f->mem = (term *)(f + 1);
        f->next = h->frags;
        h->frags = f;
    }
    term *p = f->mem + f->used;
    f->used += words;
    h->frag_words += words;
    heap_set_gc_mark(h);
    return p;
}

bool heap_adopt_fragment(heap_t *h, struct heap_fragment *f, term *mso, size_t off_heap_bytes)
{
    if (h->max_words != 0 && heap_used_words(h) + f->used > h->max_words) {
        h->failure = HEAP_FAIL_CAP;
        return false;
    }
    if (f->used == 0) {
        free(f);
        return true;
    }
    if (mso) {
        term *last = mso;
        while (last[PROCBIN_NEXT])
            last = (term *)(uintptr_t)last[PROCBIN_NEXT];
        last[PROCBIN_NEXT] = (term)(uintptr_t)h->mso;
        h->mso = mso;
        h->off_heap_bytes += off_heap_bytes;
    }
    f->next = h->frags;
    h->frags = f;
    h->frag_words += f->used;
    h->adopted_words += f->used;
    heap_set_gc_mark(h);
    return true;
}

void heap_shrink_last(heap_t *h, term *alloc_start, size_t alloc_words, size_t keep_words)
{
    size_t give_back = alloc_words - keep_words;
    if (alloc_start + alloc_words == h->top) {
        h->top -= give_back;
        return;
    }
    struct heap_fragment *f = h->frags;
    if (f && alloc_start + alloc_words == f->mem + f->used) {
        f->used -= give_back;
        h->frag_words -= give_back;
        heap_set_gc_mark(h);
    }
}

bool heap_contains(const heap_t *h, const term *p)
{
    if (p >= h->start && p < h->end)
        return true;
    if (heap_in_old(h, p))
        return true;
    for (const struct heap_fragment *f = h->frags; f; f = f->next)
        if (p >= f->mem && p < f->mem + f->used)
            return true;
    return false;
}

term heap_tuple(heap_t *h, size_t n, const term *elems)
{
    term *p = heap_alloc(h, n + 1);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(SUBTAG_TUPLE, n);
    /* Copied in one piece: the loop with the test inside it took 8
     * instructions an element (setelement/3 on a 1,000-tuple, 5x OTP's time). */
    if (elems)
        memcpy(p + 1, elems, n * sizeof(term));
    else
        for (size_t i = 0; i < n; i++)
            p[1 + i] = NIL;
    return make_boxed(p);
}

term heap_tuple2(heap_t *h, term a, term b)
{
    term e[2] = {a, b};
    return heap_tuple(h, 2, e);
}

term heap_tuple3(heap_t *h, term a, term b, term c)
{
    term e[3] = {a, b, c};
    return heap_tuple(h, 3, e);
}

term heap_float(heap_t *h, double d)
{
    term *p = heap_alloc(h, 2);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(SUBTAG_FLOAT, 1);
    memcpy(&p[1], &d, sizeof d);
    return make_boxed(p);
}

/* n linked cons cells (heads left for the caller), or NULL. */
static term *alloc_list_cells(heap_t *h, size_t n)
{
    term *p = heap_alloc(h, 2 * n);
    if (p)
        for (size_t i = 0; i < n; i++)
            p[2 * i + 1] = i + 1 < n ? make_list(&p[2 * i + 2]) : NIL;
    return p;
}

term heap_list_from_array(heap_t *h, const term *elems, size_t n)
{
    if (n == 0)
        return NIL;
    term *p = alloc_list_cells(h, n);
    if (!p)
        return THE_NON_VALUE;
    for (size_t i = 0; i < n; i++)
        p[2 * i] = elems[i];
    return make_list(p);
}

term heap_string(heap_t *h, const char *s, size_t n)
{
    if (n == 0)
        return NIL;
    term *p = alloc_list_cells(h, n);
    if (!p)
        return THE_NON_VALUE;
    for (size_t i = 0; i < n; i++)
        p[2 * i] = make_small((unsigned char)s[i]);
    return make_list(p);
}

/* Whether s is UTF-8 throughout: each lead byte followed by its
 * continuation bytes (0xC0 and 0xC1 lead only overlong forms). */
static bool os_text_is_utf8(const unsigned char *s)
{
    while (*s) {
        unsigned char c = *s;
        size_t k = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 4;
        if (k == 4 || (k == 1 && c < 0xC2))
            return false;
        s++;
        for (size_t i = 0; i < k; i++, s++)
            if ((*s & 0xC0) != 0x80)
                return false;
    }
    return true;
}

size_t heap_os_chars(const char *s, term *out)
{
    const unsigned char *c = (const unsigned char *)s;
    size_t n = 0;
    if (!os_text_is_utf8(c)) {
        for (; *c; c++)
            out[n++] = make_small(*c);
        return n;
    }
    while (*c) {
        uint32_t lead = *c++;
        size_t more = lead < 0x80 ? 0 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;
        uint32_t cp = more == 0 ? lead : lead & (0x3F >> more);
        for (size_t i = 0; i < more; i++)
            cp = cp << 6 | (*c++ & 0x3F);
        out[n++] = make_small(cp);
    }
    return n;
}

term heap_export_fun(heap_t *h, term module, term function, unsigned arity)
{
    term *p = heap_alloc(h, 1 + EXPORT_WORDS);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(SUBTAG_EXPORT, EXPORT_WORDS);
    p[1] = module;
    p[2] = function;
    p[3] = make_small(arity);
    return make_boxed(p);
}

term heap_local_fun(heap_t *h, const struct fun_entry *entry, const term *free_vars)
{
    size_t n = entry->num_free;
    term *p = heap_alloc(h, 1 + FUN_FIXED_WORDS + n);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(SUBTAG_FUN, FUN_FIXED_WORDS + n);
    p[1] = (term)(uintptr_t)entry;
    for (size_t i = 0; i < n; i++)
        p[2 + i] = free_vars[i];
    return make_boxed(p);
}

term heap_ref_with_id(heap_t *h, uint64_t lo, uint64_t hi)
{
    term *p = heap_alloc(h, 1 + REF_WORDS);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(SUBTAG_REF, REF_WORDS);
    p[1] = lo;
    p[2] = hi;
    return make_boxed(p);
}

uint64_t heap_new_ref_id(void)
{
    /* Relaxed: uniqueness needs only atomicity, not ordering. */
    static atomic_uint_fast64_t next_ref = 1;
    return atomic_fetch_add_explicit(&next_ref, 1, memory_order_relaxed);
}

term heap_make_ref(heap_t *h) { return heap_ref_with_id(h, heap_new_ref_id(), 0); }
