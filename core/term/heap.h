/*
 * heap.h — a process's heap: where its terms live.
 *
 * A heap has two generations, as OTP's. The young one is a contiguous
 * block [start, top, end) plus a chain of heap fragments (its own overflow,
 * and messages' fragments it adopted from their senders); the words of the
 * block below `high_water` survived the last collection. The old one is a
 * block [old->start, old->top, old->end) holding what survived two (gc.h);
 * it exists only once something was promoted. Its descriptor (struct
 * heap_old) is a separate allocation made at the first promotion, so that
 * the many heaps that never promote (most processes) carry one pointer for
 * it in their process context instead of its nine words. Allocation never moves a
 * term: when the young block is full, heap_alloc takes a fragment from the
 * C heap instead, so C code may hold raw term pointers across any number
 * of allocations. Terms move only in gc_collect (gc.h), which callers run
 * at safepoints with an explicit root set.
 *
 * Old data never refers to young data, since terms are immutable, except
 * through a word written in place after its object was built (a builtin
 * filling its result across portions, set_tuple_element): such writes go
 * through heap_write, which remembers a written old word for the minor
 * collections.
 *
 * Off-heap (reference-counted) binaries are reached from the heap through
 * their ProcBin objects, which are chained through `mso` (young ones) and
 * `old->mso` (promoted ones) (binary.h). The collector drops a reference for
 * each ProcBin that did not survive.
 *
 * The optional cap (`max_words`, the seed's --max-heap) bounds the words the
 * heap holds, both generations and fragments together. An allocation that would pass
 * it, or that the host cannot satisfy, returns NULL and records why in
 * `failure`; the caller turns that into the runtime failure (exit 70).
 *
 * A heap belongs to one thread at a time (its process's worker); nothing
 * here is synchronized.
 */
#ifndef CLAUSE_HEAP_H
#define CLAUSE_HEAP_H

#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum heap_failure {
    HEAP_OK = 0,
    HEAP_FAIL_CAP,   /* the cap (--max-heap) would be exceeded */
    HEAP_FAIL_NOMEM, /* the host refused the memory */
    /* Not the heap's: a collection found its process past its
     * max_heap_size, which kills it (rt/proc_gc.h). */
    HEAP_FAIL_MAX_HEAP_SIZE,
};

/* mem is a pointer, not a flexible array, so that a fragment can head a
 * larger allocation (a message's arrival buffer, message.c) that the heap
 * adopts whole. */
struct heap_fragment {
    struct heap_fragment *next;
    size_t size; /* words in mem */
    size_t used; /* words allocated from mem */
    term *mem;
};

/* The old generation and what only it needs. heap_old_none until the first
 * promotion (heap_old_make); kept from then on until the heap is destroyed
 * or recycled, with an empty block after a full sweep. */
struct heap_old {
    term *start, *top, *end;                 /* the block; NULL when there is none */
    term *mso;                               /* first old ProcBin, chained */
    size_t off_heap_bytes;                   /* bytes the old ProcBins refer to */
    term **remembered;                       /* old words written in place since the last collection (heap_write) */
    uint32_t remembered_len, remembered_cap; /* past UINT32_MAX words, a full sweep instead (heap_remember) */
};

/* What a heap without old-generation state points to: all empty, and
 * read-only (a write to it faults), so that readers need no test. */
extern const struct heap_old heap_old_none;

typedef struct heap {
    term *start, *top, *end; /* the young block */
    /* A top past it asks for a collection: an address, 0 when one is asked
     * for whatever the top (heap_set_gc_mark). */
    uintptr_t gc_mark;
    /* Where heap_alloc's fast path stops: the end, or before it where the
     * cap would be passed (heap_set_gc_mark). */
    term *alloc_end;
    term *high_water;            /* young block words below it survived a collection */
    struct heap_fragment *frags; /* newest first; all young */
    size_t frag_words;           /* words allocated in fragments */
    size_t adopted_words;        /* of those, words in adopted fragments (heap_adopt_fragment) */
    struct heap_old *old;        /* &heap_old_none until the first promotion (heap_old_make) */
    size_t min_words;            /* the block never shrinks below this */
    size_t max_words;            /* cap on words held; 0 = no cap */
    term *mso;                   /* first young ProcBin, chained (binary.h) */
    size_t off_heap_bytes;       /* bytes of off-heap binaries the young ProcBins refer to */
    /* old->off_heap_bytes past this ask for a full sweep. Here, not in
     * struct heap_old: full sweeps adjust it before there is an old
     * generation (binary.c: bin_vheap_after_gc). */
    size_t old_bin_vheap_limit;
    size_t bin_vheap_limit; /* off_heap_bytes past this ask for a collection (binary.h) */
    /* Minor collections allowed between full sweeps (OTP's option, which
     * OTP keeps in 16 bits; here larger values saturate). */
    uint32_t fullsweep_after;
    uint32_t moved_words; /* words the last collection copied (saturated) */
    uint32_t stack_words; /* words the owner's stack holds at this collection (its caller sets it; saturated) */
    uint32_t owner_mark;  /* the owner's own: rt/proc_gc.c marks the slice of the last collection with it */
    /* Counters of 32 bits and a byte for the failure, in the words every
     * process context holds (a 4-billionth collection wraps the counters). */
    uint32_t collections; /* gc_collect calls that completed */
    uint32_t minor_gcs;   /* minor collections since the last full sweep */
    uint32_t full_sweeps; /* full sweeps completed */
    uint8_t failure;      /* enum heap_failure: why the last allocation returned NULL */
    bool need_fullsweep;  /* the next collection must be full (a word could not be remembered) */
    bool borrowed_block;  /* the young block is its owner's (heap_init_in): never freed here */
    bool gc_requested;    /* garbage_collect/0,1: a full sweep at the next safepoint */
} heap_t;

/* n in one of heap_t's 32-bit fields: past UINT32_MAX, UINT32_MAX. */
static inline uint32_t heap_saturate_u32(uint64_t n) { return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n; }

/* OTP's default fullsweep_after. */
#define HEAP_DEFAULT_FULLSWEEP_AFTER 65535

/* OTP's initial virtual binary heap (BIN_VH_MIN_SIZE: min_bin_vheap_size's
 * default, in words), and in bytes. */
#define HEAP_BIN_VHEAP_MIN_WORDS 46422
#define HEAP_BIN_VHEAP_MIN_BYTES ((size_t)HEAP_BIN_VHEAP_MIN_WORDS * 8)

/* OTP's default minimum heap size (words). */
#define HEAP_DEFAULT_MIN_WORDS 233

/* A fresh heap of at least min_words (0: the default). max_words 0 means no
 * cap. Returns false, leaving nothing allocated, when the host refuses. */
bool heap_init(heap_t *h, size_t min_words, size_t max_words);

/* A fresh heap whose first block is the caller's `words` words at `block`
 * (at most max_words of them when that is not 0), with `words` as its
 * floor: a process's first block inside its context, one allocation for
 * both. The first collection leaves it for a block of the heap's own, and
 * neither it nor heap_destroy frees it. */
void heap_init_in(heap_t *h, term *block, size_t words, size_t max_words);

/* Frees the young block unless it is borrowed; the caller installs another
 * (a collection's to-space) or none. */
void heap_free_block(heap_t *h);

/* A transparent huge page's size (2 MiB on x86-64). */
#define HEAP_HUGE_PAGE_BYTES ((uintptr_t)2 << 20)

/* Blocks of this size or more are big: mappings of their own, in whole huge
 * pages advised to be huge, cached when freed (heap.c). */
#define HEAP_BIG_BLOCK_BYTES (2 * HEAP_HUGE_PAGE_BYTES)
/* Whether a block of `words` is big. */
static inline bool heap_is_big_block(size_t words) { return words >= HEAP_BIG_BLOCK_BYTES / sizeof(term); }
/* The big-block cache keeps at most this many blocks and bytes (the newest
 * blocks). */
#define HEAP_BIG_CACHE_BLOCKS 8u
#define HEAP_BIG_CACHE_BYTES ((size_t)64 << 20)

/* A block of `words` for a generation, or NULL; free it with
 * heap_block_free, giving the same size. heap_block_realloc is realloc's
 * counterpart (old_words: the size it was allocated or last resized to),
 * and may move it. Any thread may call them. */
term *heap_block_alloc(size_t words);
void heap_block_free(term *block, size_t words);
term *heap_block_realloc(term *block, size_t old_words, size_t words);

/* The big blocks cached now and their bytes (for tests and reports). */
void heap_big_cache_figures(size_t *blocks, size_t *bytes);
/* Unmaps every cached big block. */
void heap_big_cache_drop(void);

/* How long a freed big block stays cached when no request takes it: as
 * OTP's segment cache, whose check (erl_mseg.c, every second by default)
 * lets go of what a burst left, a runtime gone quiet does not keep tens of
 * megabytes of it to the end. */
#define HEAP_BIG_CACHE_HOLD_NS 1000000000u
/* When the oldest cached block's hold ends, on heap_clock_ns's clock;
 * UINT64_MAX while the cache is empty. Any thread, without a lock: the
 * idle workers sleep until then (rt/executor.c). */
uint64_t heap_big_cache_due_ns(void);
/* Unmaps the cached blocks whose hold has ended by now_ns; how many. */
size_t heap_big_cache_release_aged(uint64_t now_ns);
/* The monotonic clock the cache's holds are measured on (nanoseconds,
 * CLOCK_MONOTONIC: the executor's sched_clock_ns). */
uint64_t heap_clock_ns(void);

/* Gives the system back the freed memory the runtime keeps for reuse: the
 * big-block cache and the free pages of malloc's arenas. For a program's
 * own request to shed memory (erlang:garbage_collect/0,1, hibernation),
 * where keeping freed memory warm (rt/executor.c's malloc tuning) is a
 * speed trade the program did not ask for. At most once a second of
 * now_ns (a monotonic clock in nanoseconds), since a program collecting in
 * a loop would otherwise walk every arena at each call and fault its
 * memory in again after: true when this call returned memory. */
#define HEAP_RETURN_INTERVAL_NS 1000000000u
bool heap_return_free_memory(uint64_t now_ns);
/* How many calls have returned memory so far (for tests and reports). */
uint64_t heap_free_memory_returns(void);

/* Advises the huge pages inside [p, p + bytes) (its 2 MiB-aligned part)
 * to be backed by transparent huge pages: memory written once, front to
 * back, and new to the process then costs a fault per huge page, not per
 * 4 KiB (on a VM about 8 us each). Advice only: where it is refused or
 * unknown nothing changes. Returns p. */
void *heap_advise_huge(void *p, size_t bytes);

/* The young block's free part, [*lo, *hi): the pages a process allocates
 * into next; false when it is small (under a huge page), left alone. A
 * collector thread faults it in after a long collection
 * (heap_prefault_span): the first touch of a new huge page zeroes 2 MiB
 * and may compact memory, milliseconds on a VM, which otherwise fell inside
 * the process's next slices on its worker, where the collector thread is
 * there to keep such work away. */
bool heap_free_span(const heap_t *h, uintptr_t *lo, uintptr_t *hi);
/* Faults in the whole pages of [lo, hi) by advice (MADV_POPULATE_WRITE),
 * writing nothing: a page already in place is left as it is, so the
 * caller may do it after handing the process back, while the process
 * allocates into the span, or after the block is freed or reused (the
 * advice then faults in pages of someone else's, or fails on a range no
 * longer mapped). Nothing where the kernel lacks the advice (before Linux
 * 5.14). */
void heap_prefault_span(uintptr_t lo, uintptr_t hi);
/* The opposite, after a collection the program asked for
 * (erlang:garbage_collect, hibernate) when heap_return_free_memory did its
 * work: gives the whole pages of the young block's free part, and of a big
 * block's mapping past its end, back to the system (MADV_DONTNEED; they
 * read as zero when next touched). Its new block is often one reused warm,
 * resident end to end: one process holding the pids of 200,000 waiting
 * ones kept 8 MiB resident for 3 MiB of list. Nothing when that is under
 * a huge page. */
void heap_release_free_span(const heap_t *h);

/* Pre-faults about `bytes` of the calling thread's malloc arena and leaves
 * it there, free, for the heap blocks and fragments its processes take
 * next. Memory new to the process costs a page fault per 4 KiB at first
 * touch (on a VM about 10 us each, against under 1 us a page for one
 * MADV_POPULATE_WRITE), so without it the first collections of every
 * process in a run's first milliseconds took hundreds of microseconds
 * each; OTP's allocators meet the same memory warm from its boot. The
 * memory is malloc'd in pieces glibc serves from the arena, populated,
 * and freed but for the highest piece, which keeps the rest from being
 * trimmed back to the system. Returns that piece for heap_arena_warm_end
 * (NULL when nothing was kept); best effort throughout. */
void *heap_arena_warm(size_t bytes);
void heap_arena_warm_end(void *kept);

/* Releases the block, every fragment, and the heap's references to off-heap
 * binaries. The heap may be initialised again afterwards. */
void heap_destroy(heap_t *h);

/* Empties the heap for reuse: drops its off-heap references and fragments
 * and keeps its block when that is exactly min_words (native bodies and
 * tests start over on the same block). Returns false (the heap is then
 * destroyed) when the block was not kept. */
bool heap_recycle(heap_t *h);

/* `words` as the old generation of a heap that has none, in a block sized
 * as a collection would size it: for a new process's arguments too large
 * for its young block, its state from the start, which no minor collection
 * then copies (in young fragments, the first two collections copied a hog's
 * 1,500,000-word argument, 170 ms); a quarter of the block is left free, as
 * a collection leaves one. A ProcBin made there goes on old->mso.
 * NULL when the heap has an old generation already, or the cap or the host
 * refuses. */
term *heap_alloc_old(heap_t *h, size_t words);

/* Words allocated in the young generation (block and fragments). */
static inline size_t heap_young_words(const heap_t *h) { return (size_t)(h->top - h->start) + h->frag_words; }

/* Words held by the old generation, and its block's size. */
static inline size_t heap_old_words(const heap_t *h) { return (size_t)(h->old->top - h->old->start); }
static inline size_t heap_old_block_words(const heap_t *h) { return (size_t)(h->old->end - h->old->start); }

/* True once h has old-generation state of its own (heap_old_make). */
static inline bool heap_has_old_state(const heap_t *h) { return h->old != &heap_old_none; }

/* h's old-generation state for a change, made empty when it has none;
 * NULL when the host refused the memory. */
struct heap_old *heap_old_make(heap_t *h);

/* Words currently allocated (both generations). */
static inline size_t heap_used_words(const heap_t *h) { return heap_young_words(h) + heap_old_words(h); }

/* Size of the young block in words. */
static inline size_t heap_block_words(const heap_t *h) { return (size_t)(h->end - h->start); }

/* The default fullsweep_after of heaps initialised from now on
 * (erlang:system_flag(fullsweep_after, N)); thread-safe. */
void heap_set_default_fullsweep_after(unsigned long n);
unsigned long heap_default_fullsweep_after(void);

/* Allocates `words` words, never moving a term. Slow path out of line. */
term *heap_alloc_slow(heap_t *h, size_t words);
static inline term *heap_alloc(heap_t *h, size_t words)
{
    if (h->alloc_end - h->top >= (ptrdiff_t)words) {
        term *p = h->top;
        h->top += words;
        return p;
    }
    return heap_alloc_slow(h, words);
}

/* Takes f, a fragment filled elsewhere (a message copied by its sender
 * before any lock), into the young generation with its ProcBins (chained
 * from mso, referring to off_heap_bytes): the next collection moves its live
 * words into the block, as OTP merges a message's heap fragment. f must
 * begin its allocation, which the heap frees; an empty f is freed at once.
 * False, f untouched, when its words would pass the cap (failure says so). */
bool heap_adopt_fragment(heap_t *h, struct heap_fragment *f, term *mso, size_t off_heap_bytes);

/* Gives back the last `words` words of the most recent allocation when it
 * came from the main block (a result that turned out smaller than reserved,
 * as a bignum often does). Elsewhere the words are simply left unused. */
void heap_shrink_last(heap_t *h, term *alloc_start, size_t alloc_words, size_t keep_words);

/* Room a collection keeps free for messages: a small message is copied
 * into the receiver's block under the executor mutex (rt/message.c, up to
 * 96 words), and one that finds the block full goes to a fragment of its
 * own, a malloc and a collection later (threadring: 503 processes passing
 * a token, 25 % slower without the room). */
#define HEAP_MESSAGE_ROOM_WORDS 128

/* The room a block of `block` words keeps: an eighth of it or
 * HEAP_MESSAGE_ROOM_WORDS, whichever is less (heap_wants_gc says why). */
static inline size_t heap_room_words(size_t block)
{
    return block / 8 < HEAP_MESSAGE_ROOM_WORDS ? block / 8 : HEAP_MESSAGE_ROOM_WORDS;
}

/* Sets h->gc_mark and h->alloc_end from everything heap_wants_gc and
 * heap_alloc test but the top and the young generation's off-heap bytes:
 * the young block, the cap, the old generation, the fragments, a requested
 * collection. Called wherever one of those changes, so that the tests
 * after every builtin call and allocation are one comparison each (they
 * were a fifth of a float loop's instructions when they worked each rule
 * out every time). heap_wants_gc explains the rules. */
static inline void heap_set_gc_mark(heap_t *h)
{
    size_t block = heap_block_words(h);
    size_t elsewhere = h->frag_words + heap_old_words(h); /* held words the top does not count */
    /* The cap counts both generations' blocks. */
    bool may_grow = h->max_words == 0 || block + heap_old_block_words(h) < h->max_words;
    uintptr_t mark = (uintptr_t)(may_grow ? h->end - heap_room_words(block) : h->end);
    if (h->frags) {
        /* The fragments hold more than the block has free once the top
         * passes end - frag_words. */
        uintptr_t frag_mark = h->frag_words > block ? 0 : (uintptr_t)(h->end - h->frag_words);
        mark = frag_mark < mark ? frag_mark : mark;
    }
    if (h->gc_requested || h->old->off_heap_bytes > h->old_bin_vheap_limit)
        mark = 0;
    h->gc_mark = mark;
    if (h->max_words == 0)
        h->alloc_end = h->end;
    else if (elsewhere >= h->max_words)
        h->alloc_end = h->start;
    else
        h->alloc_end = h->max_words - elsewhere < block ? h->start + (h->max_words - elsewhere) : h->end;
}

/* True when the heap would profit from a collection at the next safepoint:
 * its fragments hold more words than the block has free, the block has
 * less free than an eighth of it or HEAP_MESSAGE_ROOM_WORDS, whichever is
 * less, and may still grow, a generation's off-heap binaries passed its
 * virtual binary heap limit, or a collection was requested. All but the
 * young generation's binaries are folded into h->gc_mark.
 *
 * The fragment rule is OTP's (ERTS_IS_GC_DESIRED): an allocation that went
 * to a fragment asks for a collection at once (it did not fit), while
 * messages adopted as fragments wait until the block could not take them
 * (one collection a message otherwise). The room is capped because a
 * collection that comes before the block overflows never grows it (the
 * next block holds what was used before): with an eighth of any block
 * kept free, a process allocating 4,000 words a call (tuple_to_list of
 * 2,000 elements) stayed in a block two calls deep and a collection copied
 * its last result every second call (2.5x OTP's time a call), and a
 * process building 3,000,000 cells and a copy of them collected 40 times
 * on the way instead of 29 and ended with an old block of 15.4 million
 * words instead of 7.4 (gc_idioms churn: the young block's floor, an
 * eighth of that, made the short-lived tuples that followed 2.5x slower).
 * A block at the cap (--max-heap) is collected only once it is full: a
 * collection cannot grow it, and one at every safepoint while it stayed
 * nearly full copied the live words each time (building a 4 MB list under
 * --max-heap 4M took 70 s). */
static inline bool heap_wants_gc(const heap_t *h)
{
    return (uintptr_t)h->top > h->gc_mark || h->off_heap_bytes > h->bin_vheap_limit;
}

/* Asks for a full sweep at h's next safepoint (garbage_collect/0,1); by
 * its owner, or by anyone while the owner does not run. */
static inline void heap_request_gc(heap_t *h)
{
    h->gc_requested = true;
    h->gc_mark = 0;
}

/* True when p points into either generation's block or a fragment. */
bool heap_contains(const heap_t *h, const term *p);

/* True when p points into the old generation's used words. */
static inline bool heap_in_old(const heap_t *h, const term *p)
{
    return (uintptr_t)p - (uintptr_t)h->old->start < (uintptr_t)h->old->top - (uintptr_t)h->old->start;
}

/* Records an old word written in place, a root of the minor collections
 * until it no longer refers to young data. When the host refuses the room,
 * the next collection is a full sweep instead. */
void heap_remember(heap_t *h, term *slot);

/* Writes value into slot, a word of a term built earlier that may have
 * been promoted since (a result filled across portions): the one way to
 * change a heap word in place once a collection may have run. */
static inline void heap_write(heap_t *h, term *slot, term value)
{
    *slot = value;
    if (is_pointer_term(value) && heap_in_old(h, slot))
        heap_remember(h, slot);
}

/* ---- building terms (each returns THE_NON_VALUE when heap_alloc fails) ---- */

static inline term heap_cons(heap_t *h, term head, term tail)
{
    term *p = heap_alloc(h, 2);
    if (!p)
        return THE_NON_VALUE;
    p[0] = head;
    p[1] = tail;
    return make_list(p);
}

/* A tuple of n elements copied from elems (or left as nil when elems is
 * NULL, for the caller to fill through tuple_elements). */
term heap_tuple(heap_t *h, size_t n, const term *elems);
term heap_tuple2(heap_t *h, term a, term b);
term heap_tuple3(heap_t *h, term a, term b, term c);
term heap_float(heap_t *h, double d);
/* A list of the bytes of s (a string as Erlang code sees "..."). */
term heap_string(heap_t *h, const char *s, size_t n);
/* A list of n terms, in order. */
term heap_list_from_array(heap_t *h, const term *elems, size_t n);
/* The characters of a NUL-terminated string the OS gave (a command-line
 * argument, an environment variable) as small integers into out (room for
 * strlen(s)): its code points when it is UTF-8 throughout, else its bytes,
 * each a Latin-1 character. Returns how many. */
size_t heap_os_chars(const char *s, term *out);

/* A proper list built front to back, one cell appended at a time. */
struct list_builder {
    term list;
    term *tail;
};
static inline void list_builder_init(struct list_builder *b)
{
    b->list = NIL;
    b->tail = &b->list;
}
/* False when the heap refused the cell. */
static inline bool list_builder_add(struct list_builder *b, heap_t *h, term item)
{
    term cell = heap_cons(h, item, NIL);
    if (is_non_value(cell))
        return false;
    *b->tail = cell;
    b->tail = &list_ptr(cell)[1];
    return true;
}
/* fun M:F/A. */
term heap_export_fun(heap_t *h, term module, term function, unsigned arity);
/* A local fun of entry, with its free variables copied from free_vars. */
term heap_local_fun(heap_t *h, const struct fun_entry *entry, const term *free_vars);
/* A new reference, unique within the run (thread-safe counter). */
term heap_make_ref(heap_t *h);
/* The next id of that counter, for a reference made elsewhere (a magic one). */
uint64_t heap_new_ref_id(void);
/* A reference with a given id (the ETF decoder's and tests' use). */
term heap_ref_with_id(heap_t *h, uint64_t lo, uint64_t hi);

/* The id words of either kind of reference (term.h). */
static inline const term *ref_id_words(term t)
{
    const term *p = boxed_ptr(t);
    return header_subtag(p[0]) == SUBTAG_MAGIC_REF ? p + MAGIC_REF_ID : p + 1;
}
static inline uint64_t ref_id_low(term t) { return ref_id_words(t)[0]; }
static inline uint64_t ref_id_high(term t) { return ref_id_words(t)[1]; }

#endif
