/*
 * gc.c — the per-process generational copying collector (gc.h), OTP's
 * design. A minor collection moves the young data reachable from the roots
 * (and from the remembered old words) out of the young block and fragments
 * ("from-space"): what lies below the high-water mark survived the previous
 * collection and is promoted to the old block, the rest goes to a new young
 * block. Old data is not read, but for the remembered words and the words
 * promoted in this collection. A full sweep moves every live term of both
 * generations into one new young block and frees the old one; it runs when
 * the old block could not take the promotion, after fullsweep_after minor
 * collections, when asked (garbage_collect, hibernate), near the cap, when
 * the old ProcBins passed their limit, or when a word could not be
 * remembered. Each sizes the young block by OTP's policy and drops the
 * off-heap references of ProcBins that died.
 *
 * Invariant kept: when gc_collect returns HEAP_OK no root, heap word or mso
 * link refers to from-space (freed); when it fails nothing but h->failure
 * has been written — heap, roots and from-space are exactly as they were.
 *
 * How failure stays write-free. The collector overwrites from-space while
 * copying (forwarding marks), so every reason to fail must be known before
 * the first mark:
 *   - host memory: everything a collection allocates (the fragment index
 *     when there are many fragments, the measuring pass's bitmap and stack,
 *     the to-space, the first old block) is taken before copying; a later
 *     resize that the host refuses is skipped (the to-space is already big
 *     enough), and so is a remembered word (the next collection is then a
 *     full sweep, which needs none);
 *   - the cap: live words are at most used words, so when used + need fits
 *     the cap, live + need does too and no check is needed. Only when it
 *     does not (a heap close to its cap) does a read-only marking pass (side
 *     bitmap, explicit stack) measure the live words first, and the
 *     collection fails before copying if live + need passes the cap.
 * Undoing marks instead would need a log as large as the live data on every
 * collection, or reverse pointers the to-space does not keep; measuring
 * costs a second traversal, but only for heaps that are about to hit their
 * cap anyway.
 */
#include "term/gc.h"

#include "term/binary.h"
#include "term/clean_runs.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Largest block the collector asks for: beyond this a byte count no longer
 * fits a ptrdiff_t, and no host could satisfy it anyway. */
#define GC_MAX_WORDS ((size_t)PTRDIFF_MAX / sizeof(term))

static enum heap_failure fail(heap_t *h, enum heap_failure why)
{
    h->failure = why;
    return why;
}

/* ---- heap sizes ----
 * OTP's table (erl_gc.c): 12, 38, then each entry is the sum of the two
 * before plus one up to index 22 (…, 233, 376, 610, 987, …, 833,026), then
 * +20 % per step up to 2^50 words. Generated on demand: at most ~150 steps,
 * cheap beside a collection, and no shared table to initialise. */
#define HEAP_SIZE_FIB_ENTRIES 23
#define HEAP_SIZE_LIMIT ((size_t)1 << 50)

size_t gc_next_heap_size(size_t words)
{
    size_t prev = 12, cur = 38;
    if (words <= prev)
        return prev;
    for (int i = 2;; i++) {
        if (words <= cur)
            return cur;
        size_t next = i < HEAP_SIZE_FIB_ENTRIES ? cur + prev + 1 : cur + cur / 5;
        if (next > HEAP_SIZE_LIMIT)
            return words;
        prev = cur;
        cur = next;
    }
}

/* Whether a minor collection may shrink the young block: OTP's rule
 * (erl_gc.c, minor_collection), only a large one (over 3,000 words, and
 * over 8,000 or over the old block). A small young block keeps its size:
 * shrunk to what survives, a process making short-lived data beside
 * little live data collected ever more often (1,000 live cells beside
 * 3,000,000 short-lived tuples: 36,143 collections of a 376-word block;
 * OTP 7,637 of a 1,598-word one). */
static bool minor_may_shrink(size_t young_block, size_t old_gen_block)
{
    return young_block > 3000 && (young_block > 8000 || young_block > old_gen_block);
}

/* The block size for need_after = live + need words, given the current block
 * (OTP's adjust_after_fullsweep, with its deferred grow done at once):
 * grow to the first table size at most 3/4 full; shrink, to a size about
 * half full, when under 1/4 would be used and, after a minor collection
 * (minor), minor_may_shrink allows; otherwise keep the size. Never below
 * floor, min_words or need_after, never above the cap. A minor collection
 * that shrinks passes a floor of a third full (minor_collection), so its
 * block ends a third full, as OTP's; a full sweep's ends about half full. */
static size_t block_size(const heap_t *h, size_t old_block, size_t need_after, size_t floor, bool minor,
                         size_t old_gen_block)
{
    size_t roomy = gc_next_heap_size(need_after + (need_after + 2) / 3);
    size_t size;
    if (old_block < roomy)
        size = roomy;
    else if (4 * need_after < old_block && (!minor || minor_may_shrink(old_block, old_gen_block)))
        size = gc_next_heap_size(2 * need_after);
    else
        size = old_block;
    if (size < floor)
        size = floor;
    if (size < h->min_words)
        size = h->min_words;
    if (h->max_words != 0 && size > h->max_words)
        size = h->max_words;
    if (size < need_after)
        size = need_after;
    return size > 0 ? size : 1;
}

/* ---- from-space ----
 * A minor collection's: the used part of the young block plus every
 * fragment. A full sweep's adds the old block's used part. Addresses are
 * compared as integers: the regions are separate objects, and relational
 * operators between pointers into different objects are undefined in C. */
struct region {
    uintptr_t lo, hi;
    size_t bit_base; /* index of lo's word in the marking bitmap */
};

#define INLINE_REGIONS 16

/* With more regions than that (a heap that adopted many messages, a
 * fragment each), a binary search for every pointer met cost a tenth of a
 * collection's time: a hash of the 512-byte granules the regions cover, each
 * to the first region (in address order) reaching into it, answers in a
 * probe and a step or two. */
#define GRANULE_SHIFT 9

struct granule {
    uintptr_t number; /* address >> GRANULE_SHIFT, plus one: 0 marks a free slot */
    size_t first;     /* index of the first region reaching into it */
};

struct from_space {
    uintptr_t block_lo;
    size_t block_bytes;
    uintptr_t old_lo; /* the old block, in a full sweep (also among frags, for the bitmap) */
    size_t old_bytes;
    /* The newest fragment (also among frags), tested before the search: a
     * builtin's result in one fragment, the common case, costs a range test
     * a pointer instead of a call. */
    uintptr_t newest_lo;
    size_t newest_bytes;
    /* The fragment of the last search's hit, tested next: a message's list
     * or tuple lies in one fragment, so its words hit the same one. */
    uintptr_t recent_lo;
    size_t recent_bytes;
    struct region *frags; /* sorted by lo; inline_frags or malloc'd */
    size_t nfrags;
    size_t total_words;
    struct granule *granules; /* NULL: none (few regions, or the host refused: binary search) */
    size_t granule_mask;      /* slots - 1, a power of two less one */
    struct region inline_frags[INLINE_REGIONS];
};

static size_t granule_slot(const struct from_space *fs, uintptr_t number)
{
    return (size_t)((number * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & fs->granule_mask;
}

/* Builds the granule hash over the sorted regions; without memory for it
 * lookups search the regions instead, so it cannot fail a collection. */
static void index_granules(struct from_space *fs)
{
    size_t count = 0;
    for (size_t i = 0; i < fs->nfrags; i++)
        count += ((fs->frags[i].hi - 1) >> GRANULE_SHIFT) - (fs->frags[i].lo >> GRANULE_SHIFT) + 1;
    size_t slots = 64;
    while (slots < 2 * count && slots < SIZE_MAX / 4 / sizeof(struct granule))
        slots *= 2;
    if (slots < 2 * count || !(fs->granules = calloc(slots, sizeof *fs->granules)))
        return;
    fs->granule_mask = slots - 1;
    for (size_t i = 0; i < fs->nfrags; i++) {
        uintptr_t last = (fs->frags[i].hi - 1) >> GRANULE_SHIFT;
        for (uintptr_t g = fs->frags[i].lo >> GRANULE_SHIFT; g <= last; g++) {
            size_t s = granule_slot(fs, g + 1);
            while (fs->granules[s].number != 0 && fs->granules[s].number != g + 1)
                s = (s + 1) & fs->granule_mask;
            if (fs->granules[s].number == 0) /* else an earlier region reaches into it */
                fs->granules[s] = (struct granule){g + 1, i};
        }
    }
}

/* Sorts regions by address: a Shell sort (Ciura's gaps, then x2.25), since
 * a heap that adopted many messages has a fragment each, and qsort's
 * indirect comparisons cost more than the collection of a small heap. */
static void sort_regions(struct region *r, size_t n)
{
    static const size_t ciura[] = {1, 4, 10, 23, 57, 132, 301, 701};
    size_t gaps[48], ngaps = 0;
    for (size_t g = 1; g < n && ngaps < sizeof gaps / sizeof *gaps; ngaps++) {
        gaps[ngaps] = g;
        g = ngaps + 1 < sizeof ciura / sizeof *ciura ? ciura[ngaps + 1] : g + g + g / 4;
    }
    while (ngaps > 0) {
        size_t gap = gaps[--ngaps];
        for (size_t i = gap; i < n; i++) {
            struct region x = r[i];
            size_t j = i;
            for (; j >= gap && r[j - gap].lo > x.lo; j -= gap)
                r[j] = r[j - gap];
            r[j] = x;
        }
    }
}

static void add_region(struct from_space *fs, const term *lo, size_t words)
{
    struct region *r = &fs->frags[fs->nfrags++];
    r->lo = (uintptr_t)lo;
    r->hi = r->lo + words * sizeof(term);
    r->bit_base = fs->total_words;
    fs->total_words += words;
}

static bool from_space_init(struct from_space *fs, const heap_t *h, bool full)
{
    size_t block_words = (size_t)(h->top - h->start);
    size_t old_words = full ? heap_old_words(h) : 0;
    fs->block_lo = (uintptr_t)h->start;
    fs->block_bytes = block_words * sizeof(term);
    fs->old_lo = (uintptr_t)h->old->start;
    fs->old_bytes = old_words * sizeof(term);
    size_t n = old_words > 0;
    for (const struct heap_fragment *f = h->frags; f; f = f->next)
        n += f->used > 0;
    fs->frags = fs->inline_frags;
    if (n > INLINE_REGIONS && !(fs->frags = malloc(n * sizeof *fs->frags)))
        return false;
    fs->nfrags = 0;
    fs->total_words = block_words;
    fs->newest_lo = 0;
    fs->newest_bytes = 0;
    fs->recent_lo = 0;
    fs->recent_bytes = 0;
    for (const struct heap_fragment *f = h->frags; f; f = f->next)
        if (f->used > 0) {
            if (fs->newest_bytes == 0) {
                fs->newest_lo = (uintptr_t)f->mem;
                fs->newest_bytes = f->used * sizeof(term);
            }
            add_region(fs, f->mem, f->used);
        }
    if (old_words > 0)
        add_region(fs, h->old->start, old_words);
    sort_regions(fs->frags, fs->nfrags);
    fs->granules = NULL;
    if (fs->nfrags > INLINE_REGIONS)
        index_granules(fs);
    return true;
}

static void from_space_free(struct from_space *fs)
{
    if (fs->frags != fs->inline_frags)
        free(fs->frags);
    free(fs->granules);
}

static const struct region *find_frag(const struct from_space *fs, uintptr_t a)
{
    if (fs->granules) {
        uintptr_t number = (a >> GRANULE_SHIFT) + 1;
        size_t s = granule_slot(fs, number);
        while (fs->granules[s].number != number) {
            if (fs->granules[s].number == 0)
                return NULL;
            s = (s + 1) & fs->granule_mask;
        }
        for (size_t i = fs->granules[s].first; i < fs->nfrags && fs->frags[i].lo <= a; i++)
            if (a < fs->frags[i].hi)
                return &fs->frags[i];
        return NULL;
    }
    size_t lo = 0, hi = fs->nfrags;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a < fs->frags[mid].lo)
            hi = mid;
        else if (a >= fs->frags[mid].hi)
            lo = mid + 1;
        else
            return &fs->frags[mid];
    }
    return NULL;
}

/* Whether a is in a fragment, remembered for the next test when it is. */
static bool __attribute__((noinline)) in_frags(struct from_space *fs, uintptr_t a)
{
    const struct region *r = find_frag(fs, a);
    if (!r)
        return false;
    fs->recent_lo = r->lo;
    fs->recent_bytes = r->hi - r->lo;
    return true;
}

static inline bool in_from(struct from_space *fs, uintptr_t a)
{
    if (a - fs->block_lo < fs->block_bytes || a - fs->old_lo < fs->old_bytes || a - fs->newest_lo < fs->newest_bytes ||
        a - fs->recent_lo < fs->recent_bytes)
        return true;
    return fs->nfrags > 0 && in_frags(fs, a);
}

/* Bitmap index of the word at a, when a is in from-space. */
static bool from_space_bit(const struct from_space *fs, uintptr_t a, size_t *bit)
{
    if (a - fs->block_lo < fs->block_bytes) {
        *bit = (a - fs->block_lo) / sizeof(term);
        return true;
    }
    const struct region *r = fs->nfrags > 0 ? find_frag(fs, a) : NULL;
    if (!r)
        return false;
    *bit = r->bit_base + (a - r->lo) / sizeof(term);
    return true;
}

/* ---- measuring live words without writing (only near the cap) ---- */

/* Pending term words: a run of n words from w. Runs rather than single
 * terms keep the stack as deep as the term, not as wide. */
struct span {
    const term *w;
    size_t n;
};
struct span_stack {
    struct span *items;
    size_t len, cap;
};

static bool span_push(struct span_stack *s, const term *w, size_t n)
{
    if (s->len == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct span *items = realloc(s->items, cap * sizeof *items);
        if (!items)
            return false;
        s->items = items;
        s->cap = cap;
    }
    s->items[s->len++] = (struct span){w, n};
    return true;
}

static bool mark(struct from_space *fs, uint64_t *marks, struct span_stack *st, term t, size_t *live)
{
    if (!is_pointer_term(t))
        return true;
    const term *p = term_ptr(t);
    size_t bit;
    if (!from_space_bit(fs, (uintptr_t)p, &bit))
        return true;
    uint64_t m = (uint64_t)1 << (bit % 64);
    if (marks[bit / 64] & m)
        return true;
    marks[bit / 64] |= m;
    if (is_list(t)) {
        *live += 2;
        return span_push(st, p, 2);
    }
    uint64_t first, count;
    term_boxed_term_range(p[0], &first, &count);
    *live += boxed_object_words(p[0]);
    return count == 0 || span_push(st, p + first, count);
}

/* Words a collection would copy: objects in from-space reachable from the
 * roots, each once. False when the host refuses the bitmap or stack. */
static bool measure_live(struct from_space *fs, const struct gc_root_range *roots, size_t nroots, size_t *live_out)
{
    uint64_t *marks = calloc(fs->total_words / 64 + 1, sizeof *marks);
    struct span_stack st = {NULL, 0, 0};
    size_t live = 0;
    bool ok = marks != NULL;
    for (size_t r = 0; ok && r < nroots; r++) {
        if (roots[r].count == 0)
            continue;
        ok = span_push(&st, roots[r].words, roots[r].count);
        while (ok && st.len > 0) {
            struct span *top = &st.items[st.len - 1];
            term t = *top->w++;
            if (--top->n == 0)
                st.len--;
            ok = mark(fs, marks, &st, t, &live);
        }
    }
    free(marks);
    free(st.items);
    *live_out = live;
    return ok;
}

/* ---- the Cheney copy ---- */

struct cheney {
    struct from_space *fs;
    term *top;           /* next free word of the young to-space */
    uintptr_t mature_lo; /* young block words promoted (minor: below high water; full: none) */
    size_t mature_bytes;
    term *old_top;         /* next free word of the old block (minor) */
    uintptr_t promoted_lo; /* where this collection's promoted words begin (minor) */
    uintptr_t young_lo;    /* the young to-space: promoted words referring to it are remembered */
    size_t young_bytes;
    struct clean_runs young_clean, old_clean; /* chains the scans skip (clean_runs.h) */
};

/* Whether a is in from-space outside the mature words, with the bounds of
 * the range holding it (the block's young words, or a region: a message's
 * fragment, or the old block in a full sweep) in *lo and *bytes when it
 * is: a list that goes on in a fragment mostly stays in that fragment. */
static inline bool young_from_range(struct cheney *c, uintptr_t a, uintptr_t *lo, size_t *bytes)
{
    struct from_space *fs = c->fs;
    if (a - c->mature_lo < c->mature_bytes)
        return false;
    if (a - fs->block_lo < fs->block_bytes) {
        *lo = fs->block_lo + c->mature_bytes;
        *bytes = fs->block_bytes - c->mature_bytes;
        return true;
    }
    if (a - fs->newest_lo < fs->newest_bytes) {
        *lo = fs->newest_lo;
        *bytes = fs->newest_bytes;
        return true;
    }
    if (!(a - fs->recent_lo < fs->recent_bytes) && !(fs->nfrags > 0 && in_frags(fs, a)))
        return false;
    *lo = fs->recent_lo;
    *bytes = fs->recent_bytes;
    return true;
}

/* The copy of the list cell at p (in from-space, not yet moved) and of the
 * chain of cells from-space holds after it for the same destination, at
 * once and contiguously, each tail pointing to the next copy; a tail
 * already moved points to its copy. The scan then leaves list tails into
 * the young to-space alone. Out of line, so that fix stays inlined in the
 * scan. */
static term evacuate_list(struct cheney *c, term *p, term **dest)
{
    bool mature = dest == &c->old_top;
    /* Where a tail continues the chain at one range test, in locals: the
     * stores below may alias any field of c. A promotion's chain goes on in
     * the mature words (the block's start, all in from-space); a young one
     * in the block's other words, or in another young range of from-space
     * (a fragment; the old block in a full sweep, whose mature range is
     * empty), which then becomes the one tested first. */
    uintptr_t same_lo = c->mature_lo, same_bytes = c->mature_bytes;
    if (!mature) {
        same_lo = c->fs->block_lo + c->mature_bytes;
        same_bytes = c->fs->block_bytes - c->mature_bytes;
    }
    term *n = *dest, *first = n;
    /* All heads immediate: both low tag bits stay set in their AND, where
     * a pointer's clears one (a head is never a header). */
    term heads = ~(term)0;
    for (;;) {
        term tail = p[1], head = p[0];
        n[0] = head;
        heads &= head;
        p[0] = MOVED_MARKER;
        p[1] = make_list(n);
        if (is_list(tail)) {
            term *q = list_ptr(tail);
            if (q[0] == MOVED_MARKER) {
                tail = q[1];
            } else if ((uintptr_t)q - same_lo < same_bytes ||
                       (!mature && young_from_range(c, (uintptr_t)q, &same_lo, &same_bytes))) {
                n[1] = make_list(n + 2);
                n += 2;
                p = q;
                continue;
            }
        }
        n[1] = tail;
        n += 2;
        break;
    }
    *dest = n;
    clean_runs_offer(mature ? &c->old_clean : &c->young_clean, first, n - 2, heads);
    return make_list(first);
}

/* The to-space copy of the object t (a pointer into from-space), copying it
 * on first visit and leaving a forwarding mark: a moved boxed object's
 * header becomes a boxed pointer to the copy; a moved cons cell's head
 * becomes MOVED_MARKER and its tail the new list pointer. Mature objects
 * go to the old block, the others to the young to-space. */
static inline __attribute__((always_inline)) term evacuate(struct cheney *c, term t)
{
    term *p = term_ptr(t);
    term **dest = (uintptr_t)p - c->mature_lo < c->mature_bytes ? &c->old_top : &c->top;
    if (is_list(t)) {
        if (p[0] == MOVED_MARKER)
            return p[1];
        if (is_list(p[1]))
            return evacuate_list(c, p, dest);
        /* A single cell (a map's key-value pair, a list's last): here. */
        term *n = *dest;
        *dest += 2;
        n[0] = p[0];
        n[1] = p[1];
        term moved = make_list(n);
        p[0] = MOVED_MARKER;
        p[1] = moved;
        return moved;
    }
    term hdr = p[0];
    if (is_boxed(hdr))
        return hdr;
    size_t words = boxed_object_words(hdr);
    term *n = *dest;
    *dest += words;
    memcpy(n, p, words * sizeof(term));
    term moved = make_boxed(n);
    p[0] = moved;
    return moved;
}

static inline __attribute__((always_inline)) void fix(struct cheney *c, term *slot)
{
    term t = *slot;
    if (is_pointer_term(t) && in_from(c->fs, (uintptr_t)term_ptr(t)))
        *slot = evacuate(c, t);
}

/* fix for a word of the old block: one left referring to young data is
 * remembered for the next minor collection. Only a word written in place
 * can be one: an immutable term refers only to older terms. */
static inline __attribute__((always_inline)) void fix_old(struct cheney *c, heap_t *h, term *slot)
{
    fix(c, slot);
    term t = *slot;
    if (is_pointer_term(t) && (uintptr_t)term_ptr(t) - c->young_lo < c->young_bytes)
        heap_remember(h, slot);
}

/* Fixes the term words of the object at s; returns the next object. A
 * header introduces a boxed object whose raw words are skipped; anything
 * else starts a cons cell. h is NULL in the young to-space. */
static inline __attribute__((always_inline)) term *scan_object(struct cheney *c, heap_t *h, term *s)
{
    term w = *s;
    if (is_header(w)) {
        uint64_t first, count;
        term_boxed_term_range(w, &first, &count);
        for (uint64_t i = first; i < first + count; i++)
            h ? fix_old(c, h, &s[i]) : fix(c, &s[i]);
        return s + boxed_object_words(w);
    }
    if (h) {
        fix_old(c, h, &s[0]);
        /* A tail into the words promoted by this collection was chained
         * there by evacuate_list: old to old, nothing to fix or remember. */
        term tail = s[1];
        if (!is_list(tail) || (uintptr_t)list_ptr(tail) - c->promoted_lo >= (uintptr_t)c->old_top - c->promoted_lo)
            fix_old(c, h, &s[1]);
    } else {
        fix(c, &s[0]);
        term tail = s[1];
        if (!is_list(tail) || (uintptr_t)list_ptr(tail) - c->young_lo >= c->young_bytes)
            fix(c, &s[1]);
    }
    return s + 2;
}

/* Scans the copies from young (to-space) and old (promoted words) until
 * both catch up with the copying. */
static void scan(struct cheney *c, heap_t *h, term *young, term *old)
{
    while (young < c->top || old < c->old_top) {
        while (young < c->top)
            young = young == c->young_clean.next_first ? (term *)clean_runs_skip(&c->young_clean)
                                                       : scan_object(c, NULL, young);
        while (old < c->old_top)
            old = old == c->old_clean.next_first ? (term *)clean_runs_skip(&c->old_clean) : scan_object(c, h, old);
    }
    /* Nothing is copied after the scan: the runs served it alone. */
    clean_runs_release(&c->young_clean);
    clean_runs_release(&c->old_clean);
}

/* Rebuilds the mso chains from the old ones: a ProcBin whose header was
 * forwarded survived (its copy is chained: young ones in the old order,
 * promoted ones onto the old chain); one still holding its header died and
 * drops its reference. A ProcBin outside from-space (an old one in a minor
 * collection, or one never made by this runtime) is kept as it is. */
struct mso_chain {
    term *head, *tail;
    size_t bytes;
};

static void chain_append(struct mso_chain *c, term *pb)
{
    if (c->tail)
        c->tail[PROCBIN_NEXT] = (term)(uintptr_t)pb;
    else
        c->head = pb;
    c->tail = pb;
    c->bytes += pb[PROCBIN_SIZE];
}

static void sweep_chain(term *first, struct from_space *fs, const heap_t *h, struct mso_chain *young,
                        struct mso_chain *old)
{
    for (term *p = first; p;) {
        term *next = (term *)(uintptr_t)p[PROCBIN_NEXT];
        if (!in_from(fs, (uintptr_t)p)) {
            chain_append(heap_in_old(h, p) ? old : young, p);
        } else if (is_boxed(p[0])) {
            term *copy = boxed_ptr(p[0]);
            chain_append(heap_in_old(h, copy) ? old : young, copy);
        } else {
            binary_unref((struct binary *)(uintptr_t)p[PROCBIN_BINARY]);
        }
        p = next;
    }
}

/* Once h->old->top covers the promoted words (minor), or the old block is
 * no longer from-space's (full sweep: h->old->top == h->old->start first).
 * A minor collection leaves the old chain as it is (nothing old dies or
 * moves in it) and puts the promoted ProcBins in front of it: walking it
 * made every minor collection of a process holding many old binaries cost
 * their number again. */
static void sweep_mso(heap_t *h, struct from_space *fs, bool full)
{
    struct mso_chain young = {NULL, NULL, 0}, old = {NULL, NULL, 0};
    sweep_chain(h->mso, fs, h, &young, &old);
    if (full) {
        sweep_chain(h->old->mso, fs, h, &young, &old);
        if (old.tail)
            old.tail[PROCBIN_NEXT] = 0;
    } else {
        if (old.tail)
            old.tail[PROCBIN_NEXT] = (term)(uintptr_t)h->old->mso;
        else
            old.head = h->old->mso;
        old.bytes += h->old->off_heap_bytes;
    }
    if (young.tail)
        young.tail[PROCBIN_NEXT] = 0;
    h->mso = young.head;
    h->off_heap_bytes = young.bytes;
    /* Without old-generation state nothing was old, nor promoted (a
     * promotion makes the state first). */
    if (heap_has_old_state(h)) {
        h->old->mso = old.head;
        h->old->off_heap_bytes = old.bytes;
    }
}

/* ---- resizing the to-space ----
 * realloc keeps the data; when it moves the block, every pointer into the
 * old block's live part is shifted by the distance moved. Old addresses are
 * kept only as integers, never dereferenced. */
struct move {
    uintptr_t lo;
    size_t bytes;
    uint64_t delta; /* new - old, modulo 2^64 */
};

static inline void move_term(const struct move *mv, term *slot)
{
    term w = *slot;
    if (is_pointer_term(w) && (uintptr_t)(w & ~(term)TAG_PRIMARY_MASK) - mv->lo < mv->bytes)
        *slot = w + mv->delta;
}

static inline void move_raw(const struct move *mv, term *slot)
{
    if ((uintptr_t)*slot - mv->lo < mv->bytes)
        *slot += mv->delta;
}

/* Only the remembered old words refer into the young block (fix_old). */
static term *resize_block(heap_t *h, term *block, size_t block_words, size_t live, size_t size,
                          const struct gc_root_range *roots, size_t nroots)
{
    struct move mv = {(uintptr_t)block, live * sizeof(term), 0};
    term *moved = heap_block_realloc(block, block_words, size);
    if (!moved)
        return NULL;
    if ((uintptr_t)moved == mv.lo)
        return moved;
    mv.delta = (uint64_t)(uintptr_t)moved - (uint64_t)mv.lo;
    for (term *s = moved; s < moved + live;) {
        term w = *s;
        if (is_header(w)) {
            uint64_t first, count;
            term_boxed_term_range(w, &first, &count);
            for (uint64_t i = first; i < first + count; i++)
                move_term(&mv, &s[i]);
            s += boxed_object_words(w);
        } else {
            move_term(&mv, &s[0]);
            move_term(&mv, &s[1]);
            s += 2;
        }
    }
    for (size_t r = 0; r < nroots; r++)
        for (size_t i = 0; i < roots[r].count; i++)
            move_term(&mv, &roots[r].words[i]);
    for (size_t i = 0; i < h->old->remembered_len; i++)
        move_term(&mv, h->old->remembered[i]);
    term mso = (term)(uintptr_t)h->mso;
    move_raw(&mv, &mso);
    h->mso = (term *)(uintptr_t)mso;
    for (term *p = h->mso; p; p = (term *)(uintptr_t)p[PROCBIN_NEXT])
        move_raw(&mv, &p[PROCBIN_NEXT]);
    return moved;
}

/* Every heap's collections, for statistics(garbage_collection). */
static _Atomic uint64_t collections_done, words_reclaimed;

void gc_totals(uint64_t *collections, uint64_t *reclaimed)
{
    *collections = atomic_load_explicit(&collections_done, memory_order_relaxed);
    *reclaimed = atomic_load_explicit(&words_reclaimed, memory_order_relaxed);
}

/* Young block words promoted by a minor collection now. */
static size_t mature_words(const heap_t *h) { return (size_t)(h->high_water - h->start); }

/* OTP's reasons, and clause's cap, which only a full sweep measures
 * against. */
bool gc_next_is_full_sweep(const heap_t *h, size_t need)
{
    if (h->gc_requested || h->need_fullsweep || h->minor_gcs >= h->fullsweep_after)
        return true;
    if (h->old->off_heap_bytes > h->old_bin_vheap_limit)
        return true;
    if (h->old->start && mature_words(h) > (size_t)(h->old->end - h->old->top))
        return true;
    return h->max_words != 0 && heap_used_words(h) + need > h->max_words;
}

/* Keeps the remembered words that still refer to young data. */
static void prune_remembered(heap_t *h)
{
    struct heap_old *old = h->old;
    if (old->remembered_len == 0)
        return; /* also heap_old_none, which is never written */
    size_t kept = 0;
    for (size_t i = 0; i < old->remembered_len; i++) {
        term t = *old->remembered[i];
        if (is_pointer_term(t) && heap_contains(h, term_ptr(t)) && !heap_in_old(h, term_ptr(t)))
            old->remembered[kept++] = old->remembered[i];
    }
    old->remembered_len = (uint32_t)kept;
}

/* The young block's least size after a minor collection: as OTP's, not
 * below an eighth of the old block, so that a process holding much old data
 * does not collect after every few young words. */
static size_t young_floor(size_t old_block_words)
{
    return old_block_words >= 8 ? gc_next_heap_size(old_block_words / 8) : 0;
}

/* Ends a collection that copied live young words into `to` (to_size words)
 * from fs: resizes the young block, frees from-space, installs the block. */
static void finish(heap_t *h, struct from_space *fs, term *to, size_t to_size, size_t live, size_t need,
                   size_t old_block, size_t floor, const struct gc_root_range *roots, size_t nroots, bool may_move,
                   bool full_sweep)
{
    size_t want = block_size(h, old_block, live + need, floor, !full_sweep, heap_old_block_words(h));
    if (want != to_size && may_move) {
        term *resized = resize_block(h, to, to_size, live, want, roots, nroots);
        if (resized) {
            to = resized;
            to_size = want;
        }
    }
    for (struct heap_fragment *f = h->frags; f;) {
        struct heap_fragment *next = f->next;
        free(f);
        f = next;
    }
    heap_free_block(h);
    from_space_free(fs);
    h->start = to;
    h->top = h->high_water = to + live;
    h->end = to + to_size;
    h->frags = NULL;
    h->frag_words = h->adopted_words = 0;
    h->collections++;
    h->gc_requested = false;
    bin_vheap_after_gc(h, full_sweep);
    heap_set_gc_mark(h);
    atomic_fetch_add_explicit(&collections_done, 1, memory_order_relaxed);
}

/* A young to-space of the size the policy gives if `bound` words survive,
 * so the common case needs no resize; failing that, just enough. */
static term *alloc_to_space(const heap_t *h, size_t old_block, size_t bound, size_t floor, bool minor,
                            size_t old_gen_block, size_t *size)
{
    *size = block_size(h, old_block, bound, floor, minor, old_gen_block);
    term *to = heap_block_alloc(*size);
    if (!to && *size > bound && bound > 0) {
        *size = bound;
        to = heap_block_alloc(*size);
    }
    return to;
}

static void fix_roots(struct cheney *c, const struct gc_root_range *roots, size_t nroots)
{
    for (size_t r = 0; r < nroots; r++)
        for (size_t i = 0; i < roots[r].count; i++)
            fix(c, &roots[r].words[i]);
}

/* Undoes the heap_old_make of a collection that then failed (`made`: it
 * made the state), so that a refused collection leaves the heap as it was. */
static void forget_old_state(heap_t *h, bool made)
{
    if (made && heap_has_old_state(h)) {
        free(h->old);
        h->old = (struct heap_old *)&heap_old_none; /* never written: see heap_has_old_state */
    }
}

static enum heap_failure minor_collection(heap_t *h, size_t need, const struct gc_root_range *roots, size_t nroots,
                                          bool busy)
{
    size_t young = heap_young_words(h), mature = mature_words(h);
    if (young > GC_MAX_WORDS || need > GC_MAX_WORDS - young)
        return fail(h, HEAP_FAIL_NOMEM);
    struct from_space fs;
    if (!from_space_init(&fs, h, false))
        return fail(h, HEAP_FAIL_NOMEM);
    term *new_old = NULL;
    size_t new_old_words = 0;
    bool made_old_state = false;
    if (mature > 0 && !h->old->start) {
        /* OTP sizes the first old block by the young block's use. */
        new_old_words = gc_next_heap_size((size_t)(h->top - h->start));
        made_old_state = !heap_has_old_state(h);
        if (!heap_old_make(h) || !(new_old = heap_block_alloc(new_old_words))) {
            forget_old_state(h, made_old_state);
            from_space_free(&fs);
            return fail(h, HEAP_FAIL_NOMEM);
        }
    }
    size_t old_block = heap_block_words(h), to_size;
    size_t young_min = young_floor(new_old ? new_old_words : heap_old_block_words(h));
    /* OTP sizes a minor collection's new block by what the process used
     * before it, stack included (erl_gc.c: stack_size + size_before): a
     * process that fills its block between collections gets a larger one,
     * whatever survives. */
    size_t used_before = gc_next_heap_size(young + h->stack_words);
    /* A busy owner's block collected because it filled (less free than its
     * room, or an allocation that went to a fragment) grows a step, unless
     * at that size it would be shrunk at once. OTP's blocks grow so through
     * the heap fragments a full block's allocations spill into, which
     * clause's room avoids: a loop making garbage beside little live data
     * settles at 2,586 words (nbody: 24,562 collections of a 610-word block
     * before; OTP 4,445 of a 2,586-word one). Only while the owner runs on:
     * grown alike, processes that fill their blocks a message at a time
     * over many short slices (threadring's 503) spread over more memory
     * than the caches hold (threadring 1.3x slower). */
    size_t free_before = (size_t)(h->end - h->top);
    if (busy && (free_before < heap_room_words(old_block) || h->frag_words > 0)) {
        size_t step = gc_next_heap_size(old_block + 1);
        bool kept = !minor_may_shrink(step, heap_old_block_words(h)) || 4 * (young - mature + need) >= step;
        if (kept && step > used_before)
            used_before = step;
    }
    size_t floor = young_min < used_before ? used_before : young_min;
    term *to = alloc_to_space(h, old_block, young - mature + need, floor, true,
                              new_old ? new_old_words : heap_old_block_words(h), &to_size);
    if (!to) {
        heap_block_free(new_old, new_old_words);
        forget_old_state(h, made_old_state);
        from_space_free(&fs);
        return fail(h, HEAP_FAIL_NOMEM);
    }

    /* From here on nothing can fail. */
    if (new_old) {
        h->old->start = h->old->top = new_old;
        h->old->end = new_old + new_old_words;
    }
    term *promoted = h->old->top;
    struct cheney c = {.fs = &fs,
                       .top = to,
                       .mature_lo = (uintptr_t)h->start,
                       .mature_bytes = mature * sizeof(term),
                       .old_top = promoted,
                       .promoted_lo = (uintptr_t)promoted,
                       .young_lo = (uintptr_t)to,
                       .young_bytes = to_size * sizeof(term)};
    clean_runs_init(&c.young_clean);
    clean_runs_init(&c.old_clean);
    fix_roots(&c, roots, nroots);
    size_t remembered = h->old->remembered_len;
    for (size_t i = 0; i < remembered; i++)
        fix(&c, h->old->remembered[i]);
    bool lost_before = h->need_fullsweep;
    scan(&c, h, to, promoted);
    if (c.old_top != promoted)
        h->old->top = c.old_top; /* promoted only into an old block, whose state exists */
    sweep_mso(h, &fs, false);
    size_t live = (size_t)(c.top - to), moved = live + (size_t)(c.old_top - promoted);
    /* A remembered word that could not be recorded refers into `to` unseen:
     * the block must not move before the full sweep that follows. */
    bool may_move = h->need_fullsweep == lost_before;
    /* The size used before is kept unless that block would be large and
     * under a quarter used, which OTP shrinks after a minor collection to
     * one a third used (minor_may_shrink; erl_gc.c: 3 * need_after): a
     * process that filled a big block with data now promoted or dead gets
     * a smaller one, but one that still holds its next few allocations.
     * Shrunk further, to the old block's floor, a process making 4,000
     * words a call beside little live data (tuple_to_list of 2,000
     * elements) collected every second call where OTP collects every
     * fourth or later, copying the last result each time. */
    size_t old_gen_block = heap_old_block_words(h);
    if (minor_may_shrink(floor, old_gen_block) && 4 * (live + need) < floor) {
        size_t third_full = gc_next_heap_size(3 * (live + need));
        floor = third_full > young_min ? third_full : young_min;
    }
    finish(h, &fs, to, to_size, live, need, old_block, floor, roots, nroots, may_move, false);
    prune_remembered(h);
    h->minor_gcs++;
    h->moved_words = heap_saturate_u32(moved);
    atomic_fetch_add_explicit(&words_reclaimed, young > moved ? young - moved : 0, memory_order_relaxed);
    return HEAP_OK;
}

static enum heap_failure full_sweep(heap_t *h, size_t need, const struct gc_root_range *roots, size_t nroots)
{
    size_t used = heap_used_words(h);
    if (used > GC_MAX_WORDS || need > GC_MAX_WORDS - used)
        return fail(h, HEAP_FAIL_NOMEM);
    struct from_space fs;
    if (!from_space_init(&fs, h, true))
        return fail(h, HEAP_FAIL_NOMEM);

    /* An upper bound of live + need, exact when the cap forced a measure. */
    size_t bound = used + need;
    if (h->max_words != 0 && bound > h->max_words) {
        size_t live;
        if (!measure_live(&fs, roots, nroots, &live)) {
            from_space_free(&fs);
            return fail(h, HEAP_FAIL_NOMEM);
        }
        if (live > h->max_words - need) {
            from_space_free(&fs);
            return fail(h, HEAP_FAIL_CAP);
        }
        bound = live + need;
    }
    size_t old_block = heap_block_words(h), to_size;
    term *to = alloc_to_space(h, old_block, bound, 0, false, 0, &to_size);
    if (!to) {
        from_space_free(&fs);
        return fail(h, HEAP_FAIL_NOMEM);
    }

    /* From here on nothing can fail. The remembered words are in the old
     * block, which is from-space: copying it copies what they refer to. */
    struct cheney c = {.fs = &fs, .top = to, .young_lo = (uintptr_t)to, .young_bytes = to_size * sizeof(term)};
    clean_runs_init(&c.young_clean);
    clean_runs_init(&c.old_clean);
    fix_roots(&c, roots, nroots);
    scan(&c, h, to, NULL);
    term *old_block_start = h->old->start;
    size_t old_block_words = heap_old_block_words(h);
    /* The state stays, empty, for the next promotion. */
    if (heap_has_old_state(h)) {
        h->old->start = h->old->top = h->old->end = NULL;
        h->old->remembered_len = 0;
    }
    sweep_mso(h, &fs, true);
    heap_block_free(old_block_start, old_block_words);
    size_t live = (size_t)(c.top - to);
    finish(h, &fs, to, to_size, live, need, old_block, 0, roots, nroots, true, true);
    h->minor_gcs = 0;
    h->full_sweeps++;
    h->need_fullsweep = false;
    h->moved_words = heap_saturate_u32(live);
    atomic_fetch_add_explicit(&words_reclaimed, used > live ? used - live : 0, memory_order_relaxed);
    return HEAP_OK;
}

enum heap_failure gc_collect_owned(heap_t *h, size_t need, const struct gc_root_range *roots, size_t nroots, bool busy)
{
    if (h->max_words != 0 && need > h->max_words)
        return fail(h, HEAP_FAIL_CAP);
    if (gc_next_is_full_sweep(h, need))
        return full_sweep(h, need, roots, nroots);
    return minor_collection(h, need, roots, nroots, busy);
}

enum heap_failure gc_collect(heap_t *h, size_t need, const struct gc_root_range *roots, size_t nroots)
{
    return gc_collect_owned(h, need, roots, nroots, false);
}
