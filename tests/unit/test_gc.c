/* The copying collector: random term graphs of every object kind collected
 * thousands of times with random root subsets (each root must keep its
 * structure, every off-heap binary must die exactly when unreachable), the
 * heap cap (refusal leaves heap and roots untouched), growth and shrinking
 * by OTP's table, and deep or long terms collected in constant C stack.
 *
 * Structure is compared through a test-local fingerprint: a hash of each
 * term computed bottom-up by an iterative walk, memoised per object so that
 * shared subterms cost one visit. */
#include "test_main.h"
#include "test_support.h"

#include "term/binary.h"
#include "term/copy.h"
#include "term/gc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *xrealloc(void *p, size_t bytes)
{
    void *q = realloc(p, bytes);
    if (!q) {
        fprintf(stderr, "test_gc: out of memory\n");
        abort();
    }
    return q;
}

/* ---- deterministic random numbers (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* ---- literals: terms outside every heap, which the collector leaves ---- */

static term literal_area[16];
static term lit_list, lit_tuple, lit_float;

static void literals_init(void)
{
    literal_area[0] = make_small(1);
    literal_area[1] = make_list(&literal_area[2]);
    literal_area[2] = make_small(2);
    literal_area[3] = NIL;
    literal_area[4] = make_header(SUBTAG_TUPLE, 2);
    literal_area[5] = make_list(&literal_area[0]);
    literal_area[6] = make_atom(3);
    literal_area[7] = make_header(SUBTAG_FLOAT, 1);
    double d = 2.5;
    memcpy(&literal_area[8], &d, sizeof d);
    lit_list = make_list(&literal_area[0]);
    lit_tuple = make_boxed(&literal_area[4]);
    lit_float = make_boxed(&literal_area[7]);
}

static bool is_literal_address(uintptr_t a) { return a - (uintptr_t)literal_area < sizeof literal_area; }

/* ---- an address-keyed hash table (open addressing) ---- */

struct memo {
    uintptr_t *keys;
    uint64_t *vals;
    size_t cap, len;
};

static size_t memo_slot(const struct memo *m, uintptr_t k)
{
    size_t i = (size_t)((uint64_t)(k >> 3) * 0x9E3779B97F4A7C15u >> 20) & (m->cap - 1);
    while (m->keys[i] != 0 && m->keys[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static bool memo_get(const struct memo *m, uintptr_t k, uint64_t *v)
{
    if (m->cap == 0)
        return false;
    size_t i = memo_slot(m, k);
    if (m->keys[i] == 0)
        return false;
    if (v)
        *v = m->vals[i];
    return true;
}

static void memo_put(struct memo *m, uintptr_t k, uint64_t v);

static void memo_grow(struct memo *m)
{
    struct memo old = *m;
    m->cap = old.cap ? 2 * old.cap : 1024;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->vals = calloc(m->cap, sizeof *m->vals);
    if (!m->keys || !m->vals)
        abort();
    m->len = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i] != 0)
            memo_put(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
}

static void memo_put(struct memo *m, uintptr_t k, uint64_t v)
{
    if (2 * (m->len + 1) > m->cap)
        memo_grow(m);
    size_t i = memo_slot(m, k);
    if (m->keys[i] == 0) {
        m->keys[i] = k;
        m->len++;
    }
    m->vals[i] = v;
}

static void memo_reset(struct memo *m)
{
    if (m->cap)
        memset(m->keys, 0, m->cap * sizeof *m->keys);
    m->len = 0;
}

static void memo_free(struct memo *m)
{
    free(m->keys);
    free(m->vals);
    *m = (struct memo){NULL, NULL, 0, 0};
}

/* ---- structural fingerprints ---- */

struct fp {
    struct memo memo; /* object address -> hash */
    struct memo bins; /* distinct struct binary reached */
    term *stack;
    size_t len, cap;
    size_t objects, words; /* distinct objects reached and their words */
    size_t procbins, procbin_bytes;
    size_t young_words, young_procbins, young_procbin_bytes; /* those in heap's young block */
    const heap_t *heap; /* when set: every pointer must be into its used words or a literal */
    size_t stray;
};

static void fp_reset(struct fp *fp, const heap_t *check)
{
    memo_reset(&fp->memo);
    memo_reset(&fp->bins);
    fp->len = 0;
    fp->objects = fp->words = fp->procbins = fp->procbin_bytes = fp->stray = 0;
    fp->young_words = fp->young_procbins = fp->young_procbin_bytes = 0;
    fp->heap = check;
}

static void fp_free(struct fp *fp)
{
    memo_free(&fp->memo);
    memo_free(&fp->bins);
    free(fp->stack);
    fp->stack = NULL;
    fp->cap = fp->len = 0;
}

static void fp_push(struct fp *fp, term t)
{
    if (fp->len == fp->cap) {
        fp->cap = fp->cap ? 2 * fp->cap : 1024;
        fp->stack = xrealloc(fp->stack, fp->cap * sizeof *fp->stack);
    }
    fp->stack[fp->len++] = t;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15u + (h << 6) + (h >> 2);
    h *= 0xFF51AFD7ED558CCDu;
    return h ^ (h >> 32);
}

static uint64_t child_hash(struct fp *fp, term c)
{
    if (!is_pointer_term(c))
        return mix(0x1111, c);
    uint64_t v = 0;
    memo_get(&fp->memo, (uintptr_t)term_ptr(c), &v);
    if (fp->heap) {
        uintptr_t a = (uintptr_t)term_ptr(c);
        if (!(a - (uintptr_t)fp->heap->start < (uintptr_t)(fp->heap->top - fp->heap->start) * sizeof(term)) &&
            !heap_in_old(fp->heap, term_ptr(c)) && !is_literal_address(a))
            fp->stray++;
    }
    return mix(is_list(c) ? 0x2222 : 0x3333, v);
}

/* Pushes the pointer children of x not yet hashed; true when there were none. */
static bool push_missing(struct fp *fp, term x)
{
    const term *p = term_ptr(x);
    uint64_t first = 0, count = 2;
    if (is_boxed(x))
        term_boxed_term_range(p[0], &first, &count);
    bool none = true;
    for (uint64_t i = first; i < first + count; i++) {
        term c = p[i];
        if (is_pointer_term(c) && !memo_get(&fp->memo, (uintptr_t)term_ptr(c), NULL)) {
            fp_push(fp, c);
            none = false;
        }
    }
    return none;
}

static uint64_t node_hash(struct fp *fp, term x)
{
    const term *p = term_ptr(x);
    /* Heap words only: literals are reached but never copied. */
    bool counted = !is_literal_address((uintptr_t)p);
    bool young = fp->heap && (uintptr_t)p - (uintptr_t)fp->heap->start <
                                 (uintptr_t)(fp->heap->top - fp->heap->start) * sizeof(term);
    fp->objects++;
    if (is_list(x)) {
        fp->words += counted ? 2 : 0;
        fp->young_words += young ? 2 : 0;
        return mix(mix(0x4444, child_hash(fp, p[0])), child_hash(fp, p[1]));
    }
    term hdr = p[0];
    uint64_t first, count, arity = header_arity(hdr);
    term_boxed_term_range(hdr, &first, &count);
    fp->words += counted ? 1 + arity : 0;
    fp->young_words += young ? 1 + arity : 0;
    uint64_t h = mix(0x5555, hdr);
    bool procbin = header_subtag(hdr) == SUBTAG_REFC_BIN;
    for (uint64_t i = 1; i <= arity; i++) {
        if (i >= first && i < first + count)
            h = mix(h, child_hash(fp, p[i]));
        else if (!(procbin && i == PROCBIN_NEXT)) /* the collector relinks it */
            h = mix(h, p[i]);
    }
    if (procbin) {
        fp->procbins++;
        fp->procbin_bytes += p[PROCBIN_SIZE];
        fp->young_procbins += young;
        fp->young_procbin_bytes += young ? p[PROCBIN_SIZE] : 0;
        memo_put(&fp->bins, (uintptr_t)p[PROCBIN_BINARY], 1);
        /* Reading the bytes also proves the binary is still allocated. */
        const uint8_t *d;
        size_t n;
        unsigned bits;
        bin_bytes(x, &d, &n, &bits);
        for (size_t i = 0; i < n; i++)
            h = mix(h, d[i]);
    }
    return h;
}

static uint64_t fingerprint(struct fp *fp, term t)
{
    if (!is_pointer_term(t))
        return mix(0x1111, t);
    fp_push(fp, t);
    while (fp->len > 0) {
        term x = fp->stack[fp->len - 1];
        if (memo_get(&fp->memo, (uintptr_t)term_ptr(x), NULL)) {
            fp->len--;
            continue;
        }
        if (!push_missing(fp, x))
            continue;
        memo_put(&fp->memo, (uintptr_t)term_ptr(x), node_hash(fp, x));
        fp->len--;
    }
    return child_hash(fp, t);
}

/* ---- random term graphs ---- */

#define NROOTS 48
#define NSTACK 12

static struct fun_entry fun_entries[4];

static void fun_entries_init(void)
{
    for (uint32_t k = 0; k < 4; k++)
        fun_entries[k] = (struct fun_entry){make_atom(1), make_atom(2), k, 1000 + k, 1, k, NULL, NULL};
}

struct world {
    heap_t heap;
    term roots[NROOTS];
    /* A stack: even slots hold raw words (tag 00, like code pointers, here
     * even addresses inside the heap), odd slots hold terms. */
    term stack[NSTACK];
};

static term pick(struct world *w)
{
    switch (rnd_below(12)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
        return w->roots[rnd_below(NROOTS)];
    case 5:
        return make_small((int64_t)rnd_below(2000001) - 1000000);
    case 6:
        return make_atom((uint32_t)rnd_below(20));
    case 7:
        return NIL;
    case 8:
        return make_pid(rnd_below(1000));
    case 9:
        return rnd_below(2) ? lit_list : lit_tuple;
    case 10:
        return lit_float;
    default:
        return w->stack[1 + 2 * rnd_below(NSTACK / 2)];
    }
}

/* A root holding an object of subtag s, or THE_NON_VALUE. */
static term find_root(struct world *w, bool (*want)(term))
{
    size_t start = rnd_below(NROOTS);
    for (size_t i = 0; i < NROOTS; i++) {
        term t = w->roots[(start + i) % NROOTS];
        if (want(t))
            return t;
    }
    return THE_NON_VALUE;
}

static bool is_procbin(term t) { return is_boxed_subtag(t, SUBTAG_REFC_BIN); }

enum op {
    OP_TUPLE,
    OP_CONS,
    OP_LIST,
    OP_FLOAT,
    OP_BIGNUM,
    OP_REF,
    OP_HEAP_BIN,
    OP_OFF_BIN,
    OP_SHARE_BIN,
    OP_SUB_BIN,
    OP_FLATMAP,
    OP_HASHMAP,
    OP_FUN,
    OP_EXPORT,
    OP_BURST,
    OP_COUNT
};

static term build(struct world *w)
{
    heap_t *h = &w->heap;
    term e[16];
    switch ((enum op)rnd_below(OP_COUNT)) {
    case OP_TUPLE: {
        size_t n = rnd_below(7);
        for (size_t i = 0; i < n; i++)
            e[i] = pick(w);
        return heap_tuple(h, n, e);
    }
    case OP_CONS:
        e[0] = pick(w);
        e[1] = pick(w);
        return heap_cons(h, e[0], e[1]);
    case OP_LIST: {
        size_t n = 1 + rnd_below(16);
        for (size_t i = 0; i < n; i++)
            e[i] = pick(w);
        return heap_list_from_array(h, e, n);
    }
    case OP_FLOAT:
        return heap_float(h, (double)(int64_t)rnd() / 7.0);
    case OP_BIGNUM: {
        /* Raw limbs, some of them copies of live pointer terms: the
         * collector must neither follow nor rewrite them. */
        size_t k = 1 + rnd_below(5);
        term *p = heap_alloc(h, 1 + k);
        if (!p)
            return THE_NON_VALUE;
        p[0] = make_header(rnd_below(2) ? SUBTAG_POS_BIG : SUBTAG_NEG_BIG, k);
        for (size_t i = 1; i <= k; i++)
            p[i] = rnd_below(2) ? rnd() : w->roots[rnd_below(NROOTS)];
        return make_boxed(p);
    }
    case OP_REF:
        return heap_ref_with_id(h, rnd(), w->roots[rnd_below(NROOTS)]);
    case OP_HEAP_BIN:
    case OP_OFF_BIN: {
        uint8_t bytes[400];
        size_t n = rnd_below(2) ? rnd_below(BIN_HEAP_MAX + 1) : BIN_HEAP_MAX + 1 + rnd_below(300);
        for (size_t i = 0; i < n; i++)
            bytes[i] = (uint8_t)rnd();
        return bin_from_bytes(h, bytes, n);
    }
    case OP_SHARE_BIN: {
        term pb = find_root(w, is_procbin);
        if (is_non_value(pb))
            return THE_NON_VALUE;
        return bin_procbin(h, (struct binary *)(uintptr_t)boxed_ptr(pb)[PROCBIN_BINARY]);
    }
    case OP_SUB_BIN: {
        term b = find_root(w, is_bitstring);
        if (is_non_value(b))
            return THE_NON_VALUE;
        const uint8_t *d;
        size_t size;
        unsigned bits;
        bin_bytes(b, &d, &size, &bits);
        size_t off = rnd_below(size + 1);
        size_t len = rnd_below(size - off + 1);
        unsigned tail = off + len < size ? (unsigned)rnd_below(8) : 0;
        return bin_sub(h, b, off, len, tail);
    }
    case OP_FLATMAP: {
        size_t n = rnd_below(5);
        for (size_t i = 0; i < n; i++)
            e[i] = pick(w);
        term keys = heap_tuple(h, n, e);
        if (is_non_value(keys))
            return keys;
        term *p = heap_alloc(h, 3 + n);
        if (!p)
            return THE_NON_VALUE;
        p[0] = make_header(SUBTAG_FLATMAP, n + 2);
        p[1] = make_small((int64_t)n);
        p[2] = keys;
        for (size_t i = 0; i < n; i++)
            p[3 + i] = pick(w);
        return make_boxed(p);
    }
    case OP_HASHMAP: {
        uint16_t bitmap = (uint16_t)(rnd() | 1);
        size_t k = (size_t)__builtin_popcount(bitmap);
        term *p = heap_alloc(h, 2 + k);
        if (!p)
            return THE_NON_VALUE;
        p[0] = make_header_extra(SUBTAG_HASHMAP, k + 1, bitmap);
        p[1] = make_small((int64_t)k);
        for (size_t i = 0; i < k; i++)
            p[2 + i] = pick(w);
        return make_boxed(p);
    }
    case OP_FUN: {
        const struct fun_entry *fe = &fun_entries[rnd_below(4)];
        for (size_t i = 0; i < fe->num_free; i++)
            e[i] = pick(w);
        return heap_local_fun(h, fe, e);
    }
    case OP_EXPORT:
        return heap_export_fun(h, make_atom(1), make_atom(2), (unsigned)rnd_below(5));
    case OP_BURST: {
        /* Large objects, most of them garbage: many heap fragments. */
        if (rnd_below(4) != 0)
            return pick(w);
        term last = NIL;
        size_t n = 5 + rnd_below(25);
        for (size_t i = 0; i < n; i++) {
            size_t arity = 100 + rnd_below(150);
            term t = heap_tuple(h, arity, NULL);
            if (is_non_value(t))
                return THE_NON_VALUE;
            tuple_elements(t)[rnd_below(arity)] = last;
            last = rnd_below(3) ? t : last;
        }
        return last;
    }
    case OP_COUNT:
        break;
    }
    return NIL;
}

/* ---- checking a collection ---- */

struct snapshot {
    uint64_t roots[NROOTS];
    uint64_t stack[NSTACK];
    term raw_roots[NROOTS];
    term raw_stack[NSTACK];
    size_t procbins, procbin_bytes, binaries, words;
    size_t young_words, young_procbins, young_procbin_bytes;
};

static void take_snapshot(struct world *w, struct fp *fp, struct snapshot *s, const heap_t *check)
{
    fp_reset(fp, check);
    for (size_t i = 0; i < NROOTS; i++)
        s->roots[i] = fingerprint(fp, w->roots[i]);
    for (size_t i = 0; i < NSTACK; i++)
        s->stack[i] = fingerprint(fp, w->stack[i]);
    memcpy(s->raw_roots, w->roots, sizeof w->roots);
    memcpy(s->raw_stack, w->stack, sizeof w->stack);
    s->procbins = fp->procbins;
    s->procbin_bytes = fp->procbin_bytes;
    s->binaries = fp->bins.len;
    s->words = fp->words;
    s->young_words = fp->young_words;
    s->young_procbins = fp->young_procbins;
    s->young_procbin_bytes = fp->young_procbin_bytes;
}

static bool is_table_size(size_t n) { return gc_next_heap_size(n) == n; }

/* Everything that must hold after a successful collection. The young
 * generation holds exactly what the roots reach there; the old one at
 * least what they reach there (it keeps its garbage until a full sweep),
 * and after a full sweep it is gone. */
static bool check_after(struct world *w, struct fp *fp, const struct snapshot *before, size_t need,
                        size_t base_binaries, const char **why)
{
    heap_t *h = &w->heap;
    struct snapshot after;
    take_snapshot(w, fp, &after, h);
    size_t live = (size_t)(h->top - h->start), block = heap_block_words(h);
    if (memcmp(before->roots, after.roots, sizeof before->roots) != 0 ||
        memcmp(before->stack, after.stack, sizeof before->stack) != 0)
        return *why = "a root changed structure", false;
    for (size_t i = 0; i < NSTACK; i += 2)
        if (w->stack[i] != before->raw_stack[i])
            return *why = "a raw stack word changed", false;
    for (size_t i = 0; i < NROOTS; i++)
        if (!is_pointer_term(w->roots[i]) && w->roots[i] != before->raw_roots[i])
            return *why = "an immediate root changed", false;
    if (fp->stray != 0)
        return *why = "a pointer outside the new block", false;
    if (h->frags != NULL || h->frag_words != 0)
        return *why = "fragments left", false;
    bool full = h->minor_gcs == 0;
    if (full && h->old->start != NULL)
        return *why = "an old block left by a full sweep", false;
    /* A remembered old word keeps its young cons (write_in_place) even
     * when its tuple died: at most 2 words each. */
    if (after.young_words > live || live - after.young_words > 2 * h->old->remembered_len ||
        after.words > live + heap_old_words(h))
        return *why = "live words differ from reachable words", false;
    if ((size_t)(h->end - h->top) < need)
        return *why = "need not met", false;
    if (h->max_words == 0 && block < h->min_words)
        return *why = "block below min_words", false;
    if (block != h->min_words && block != h->max_words && !is_table_size(block))
        return *why = "block size not from the table", false;
    size_t mso_count = 0, old_count = 0, old_bytes = 0;
    for (term *p = h->mso; p; p = (term *)(uintptr_t)p[PROCBIN_NEXT]) {
        if ((uintptr_t)p - (uintptr_t)h->start >= live * sizeof(term) || header_subtag(p[0]) != SUBTAG_REFC_BIN ||
            is_boxed(p[0]))
            return *why = "bad mso chain entry", false;
        mso_count++;
    }
    for (term *p = h->old->mso; p; p = (term *)(uintptr_t)p[PROCBIN_NEXT]) {
        if (!heap_in_old(h, p) || header_subtag(p[0]) != SUBTAG_REFC_BIN || is_boxed(p[0]))
            return *why = "bad old mso chain entry", false;
        old_count++;
        old_bytes += p[PROCBIN_SIZE];
    }
    if (mso_count != after.young_procbins || h->off_heap_bytes != after.young_procbin_bytes ||
        old_count < after.procbins - after.young_procbins || old_bytes != h->old->off_heap_bytes)
        return *why = "mso chain does not match reachable ProcBins", false;
    if (full ? binary_live_count() != base_binaries + after.binaries
             : binary_live_count() < base_binaries + after.binaries)
        return *why = "off-heap binaries not freed exactly when unreachable", false;
    return true;
}

static void refresh_stack(struct world *w)
{
    size_t used = (size_t)(w->heap.top - w->heap.start);
    for (size_t i = 0; i < NSTACK; i += 2)
        w->stack[i] = (term)(uintptr_t)(w->heap.start + rnd_below(used + 1));
}

static size_t split_roots(struct world *w, struct gc_root_range *ranges)
{
    /* The roots in up to four runs of random length, then the stack. */
    size_t n = 0, at = 0;
    while (at < NROOTS) {
        size_t len = n == 3 ? NROOTS - at : 1 + rnd_below(NROOTS - at);
        ranges[n++] = (struct gc_root_range){&w->roots[at], len};
        at += len;
    }
    ranges[n++] = (struct gc_root_range){w->stack, NSTACK};
    ranges[n++] = (struct gc_root_range){NULL, 0};
    return n;
}

/* One random run: `iters` collections of a heap capped at max_words (0: no
 * cap). Returns false and says why on the first broken invariant. */
/* In place, as a portioned builtin fills its result: a new cons of small
 * integers into the first element of a tuple root (never a literal), so
 * that an old tuple comes to refer to young data. */
static void write_in_place(struct world *w)
{
    term t = w->roots[rnd_below(NROOTS)];
    if (!is_tuple(t) || tuple_arity(t) == 0 || is_literal_address((uintptr_t)boxed_ptr(t)))
        return;
    term cell = heap_cons(&w->heap, make_small((int64_t)rnd_below(1000)), NIL);
    if (is_value(cell))
        heap_write(&w->heap, &tuple_elements(t)[0], cell);
}

/* fullsweep_after as the heap's option: 0 makes every collection full. */
static bool stress(uint64_t seed, int iters, size_t min_words, size_t max_words, unsigned long fullsweep_after,
                   int *cap_failures)
{
    rng_state = seed;
    size_t base = binary_live_count();
    struct world *w = calloc(1, sizeof *w);
    struct fp fp = {0};
    struct snapshot *before = malloc(sizeof *before);
    if (!w || !before || !heap_init(&w->heap, min_words, max_words))
        abort();
    w->heap.fullsweep_after = fullsweep_after;
    for (size_t i = 0; i < NROOTS; i++)
        w->roots[i] = NIL;
    for (size_t i = 0; i < NSTACK; i++)
        w->stack[i] = NIL;
    refresh_stack(w);
    const char *why = NULL;
    bool ok = true;
    size_t live_limit = max_words ? max_words : 12000;
    for (int it = 0; ok && it < iters; it++) {
        int ops = 1 + (int)rnd_below(30);
        for (int k = 0; k < ops; k++) {
            term t = build(w);
            if (is_value(t)) {
                if (rnd_below(8) == 0)
                    w->stack[1 + 2 * rnd_below(NSTACK / 2)] = t;
                else
                    w->roots[rnd_below(NROOTS)] = t;
            }
            if (rnd_below(4) == 0)
                write_in_place(w);
        }
        /* Collect two times in three, so fragments pile up in between. */
        if (rnd_below(3) == 0)
            continue;
        /* Drop a random subset of the roots. */
        size_t drop = rnd_below(4) == 0 ? 25 : 3;
        for (size_t i = 0; i < NROOTS; i++)
            if (rnd_below(100) < drop)
                w->roots[i] = rnd_below(2) ? NIL : make_small((int64_t)i);
        refresh_stack(w);
        size_t need = rnd_below(5) == 0 ? rnd_below(max_words ? max_words : 3000) : rnd_below(30);
        struct gc_root_range ranges[8];
        size_t nranges = split_roots(w, ranges);

        take_snapshot(w, &fp, before, NULL);
        heap_t saved = w->heap;
        struct heap_old saved_old = *w->heap.old;
        size_t live_bins = binary_live_count();
        enum heap_failure r = gc_collect(&w->heap, need, ranges, nranges);
        if (r == HEAP_FAIL_CAP && max_words != 0) {
            /* Refused: not a word may have changed. */
            (*cap_failures)++;
            struct snapshot again;
            take_snapshot(w, &fp, &again, NULL);
            if (memcmp(w->roots, before->raw_roots, sizeof w->roots) != 0 ||
                memcmp(w->stack, before->raw_stack, sizeof w->stack) != 0 ||
                memcmp(again.roots, before->roots, sizeof again.roots) != 0 ||
                memcmp(again.stack, before->stack, sizeof again.stack) != 0)
                ok = false, why = "roots changed by a refused collection";
            else if (w->heap.start != saved.start || w->heap.top != saved.top || w->heap.frags != saved.frags ||
                     w->heap.mso != saved.mso || w->heap.off_heap_bytes != saved.off_heap_bytes ||
                     w->heap.frag_words != saved.frag_words || w->heap.failure != HEAP_FAIL_CAP ||
                     w->heap.old != saved.old || w->heap.old->start != saved_old.start ||
                     w->heap.old->top != saved_old.top || w->heap.old->mso != saved_old.mso ||
                     w->heap.old->remembered_len != saved_old.remembered_len || w->heap.high_water != saved.high_water)
                ok = false, why = "heap changed by a refused collection";
            else if (binary_live_count() != live_bins)
                ok = false, why = "binaries released by a refused collection";
            else if (before->words + need <= max_words)
                ok = false, why = "refused although live + need fits the cap";
            for (size_t i = 0; i < NROOTS; i += 2)
                w->roots[i] = NIL;
            continue;
        }
        if (r != HEAP_OK) {
            ok = false;
            why = "collection failed";
            break;
        }
        ok = check_after(w, &fp, before, need, base, &why);
        if (ok && max_words != 0 && heap_used_words(&w->heap) + need > max_words)
            ok = false, why = "collection passed the cap";
        if (ok && w->heap.collections != (unsigned long)saved.collections + 1)
            ok = false, why = "collections not counted";
        if (heap_used_words(&w->heap) > live_limit)
            for (size_t i = 0; i < NROOTS; i += 2)
                w->roots[i] = NIL;
        if (!ok)
            fprintf(stderr, "\ngc stress seed %llu iteration %d: %s\n", (unsigned long long)seed, it, why);
    }
    if (ok) {
        /* Everything dropped: every off-heap binary goes. */
        for (size_t i = 0; i < NROOTS; i++)
            w->roots[i] = NIL;
        for (size_t i = 0; i < NSTACK; i++)
            w->stack[i] = NIL;
        struct gc_root_range all[2] = {{w->roots, NROOTS}, {w->stack, NSTACK}};
        heap_request_gc(&w->heap); /* a full sweep */
        ok = gc_collect(&w->heap, 0, all, 2) == HEAP_OK && binary_live_count() == base && w->heap.mso == NULL &&
             w->heap.off_heap_bytes == 0 && w->heap.top == w->heap.start;
        if (!ok)
            fprintf(stderr, "\ngc stress seed %llu: final collection kept garbage\n", (unsigned long long)seed);
    }
    heap_destroy(&w->heap);
    ok = ok && binary_live_count() == base;
    fp_free(&fp);
    free(before);
    free(w);
    return ok;
}

static void test_stress(void)
{
    int cap_failures = 0;
    CU_ASSERT(stress(1, 2000, 0, 0, 0, &cap_failures));
    CU_ASSERT(stress(2, 2000, 0, 0, 0, &cap_failures));
    CU_ASSERT(stress(3, 1000, 1000, 0, 0, &cap_failures));
    CU_ASSERT_EQUAL(cap_failures, 0);
}

/* Minor collections, promotion, full sweeps every few minors or when the
 * old block fills, and words written in place into old tuples. */
static void test_stress_generational(void)
{
    int cap_failures = 0;
    CU_ASSERT(stress(21, 2000, 0, 0, HEAP_DEFAULT_FULLSWEEP_AFTER, &cap_failures));
    CU_ASSERT(stress(22, 2000, 0, 0, 5, &cap_failures));
    CU_ASSERT(stress(23, 1000, 1000, 0, 1, &cap_failures));
    CU_ASSERT_EQUAL(cap_failures, 0);
}

static void test_stress_capped(void)
{
    int cap_failures = 0;
    CU_ASSERT(stress(11, 2000, 0, 5000, 0, &cap_failures));
    CU_ASSERT(stress(12, 2000, 0, 20000, HEAP_DEFAULT_FULLSWEEP_AFTER, &cap_failures));
    /* The refusal path must actually have been taken. */
    CU_ASSERT(cap_failures > 10);
}

/* ---- deterministic cases ---- */

static term make_list_of(heap_t *h, size_t n)
{
    term l = NIL;
    for (size_t i = 0; i < n; i++) {
        l = heap_cons(h, make_small((int64_t)i), l);
        if (is_non_value(l))
            return l;
    }
    return l;
}

static bool list_is(term l, size_t n)
{
    for (size_t i = n; i-- > 0; l = list_tail(l))
        if (!is_list(l) || list_head(l) != make_small((int64_t)i))
            return false;
    return is_nil(l);
}

static void test_cap(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 2000));
    term root = make_list_of(&h, 600); /* 1200 words */
    CU_ASSERT_FATAL(is_value(root));
    for (int i = 0; i < 100; i++) /* 600 words of garbage */
        CU_ASSERT_FATAL(is_value(heap_tuple(&h, 5, NULL)));
    /* Allocation beyond the cap fails with HEAP_FAIL_CAP. */
    size_t used = heap_used_words(&h);
    CU_ASSERT_EQUAL(used, 1800);
    CU_ASSERT_PTR_NULL(heap_alloc(&h, 201));
    CU_ASSERT_EQUAL(h.failure, HEAP_FAIL_CAP);
    CU_ASSERT_EQUAL(heap_used_words(&h), used);

    struct gc_root_range r = {&root, 1};
    term saved_root = root;
    term *saved_start = h.start, *saved_top = h.top;
    struct heap_fragment *saved_frags = h.frags;
    /* live 1200 + need 801 passes 2000: refused, nothing changed. */
    CU_ASSERT_EQUAL(gc_collect(&h, 801, &r, 1), HEAP_FAIL_CAP);
    CU_ASSERT_EQUAL(h.failure, HEAP_FAIL_CAP);
    CU_ASSERT_EQUAL(root, saved_root);
    CU_ASSERT(h.start == saved_start && h.top == saved_top && h.frags == saved_frags);
    CU_ASSERT_EQUAL(heap_used_words(&h), used);
    CU_ASSERT(list_is(root, 600));
    CU_ASSERT_EQUAL(h.collections, 0);
    CU_ASSERT_EQUAL(gc_collect(&h, 2001, &r, 1), HEAP_FAIL_CAP);
    CU_ASSERT(list_is(root, 600));

    /* live 1200 + need 800 fits exactly, though used + need does not. */
    CU_ASSERT_EQUAL(gc_collect(&h, 800, &r, 1), HEAP_OK);
    CU_ASSERT(list_is(root, 600));
    CU_ASSERT_EQUAL(heap_used_words(&h), 1200);
    CU_ASSERT_EQUAL(heap_block_words(&h), 2000);
    /* A block at the cap, more than 7/8 full, does not ask for a collection
     * at safepoints (one cannot grow it): only a full block collects. */
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 700));
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 100));
    CU_ASSERT_PTR_NULL(heap_alloc(&h, 1));
    CU_ASSERT_EQUAL(h.failure, HEAP_FAIL_CAP);

    /* A need beyond the cap itself is a cap failure, however large. */
    saved_root = root;
    saved_top = h.top;
    CU_ASSERT_EQUAL(gc_collect(&h, SIZE_MAX / 2, &r, 1), HEAP_FAIL_CAP);
    CU_ASSERT_EQUAL(h.failure, HEAP_FAIL_CAP);
    CU_ASSERT_EQUAL(root, saved_root);
    CU_ASSERT_EQUAL(h.top, saved_top);
    CU_ASSERT(list_is(root, 600));
    heap_destroy(&h);

    /* Without a cap, a block with less free than an eighth of it asks for
     * one while that is under HEAP_MESSAGE_ROOM_WORDS (room for small
     * messages); a larger block only at that room, so that it fills and
     * can grow; and any allocation that went to a fragment asks. */
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t block = heap_block_words(&h);
    CU_ASSERT(block / 8 < HEAP_MESSAGE_ROOM_WORDS);
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, block - block / 8 - 1));
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 2));
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    heap_destroy(&h);
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term big_root[1] = {make_list_of(&h, 20000)};
    struct gc_root_range big = {big_root, 1};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &big, 1), HEAP_OK);
    block = heap_block_words(&h);
    size_t left = (size_t)(h.end - h.top);
    CU_ASSERT(block / 8 > 2 * HEAP_MESSAGE_ROOM_WORDS && left > block / 8);
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, left - block / 8 + 1));
    CU_ASSERT_FALSE(heap_wants_gc(&h)); /* under an eighth free, not under the room */
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, (size_t)(h.end - h.top) - HEAP_MESSAGE_ROOM_WORDS));
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 1));
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 2 * HEAP_MESSAGE_ROOM_WORDS));
    CU_ASSERT_PTR_NOT_NULL(h.frags);
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    CU_ASSERT(list_is(big_root[0], 20000));
    heap_destroy(&h);

    /* Without a cap, a request no host can meet is out of memory. */
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    root = make_list_of(&h, 10);
    CU_ASSERT_EQUAL(gc_collect(&h, SIZE_MAX - 5, &r, 1), HEAP_FAIL_NOMEM);
    CU_ASSERT_EQUAL(h.failure, HEAP_FAIL_NOMEM);
    CU_ASSERT(list_is(root, 10));
    heap_destroy(&h);
}

static void test_heap_sizes(void)
{
    static const size_t table[] = {12,   38,    51,    90,    142,   233,   376,    610,    987,    1598,   2586,  4185,
                                   6772, 10958, 17731, 28690, 46422, 75113, 121536, 196650, 318187, 514838, 833026};
    size_t n = sizeof table / sizeof table[0];
    CU_ASSERT_EQUAL(gc_next_heap_size(0), 12);
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(gc_next_heap_size(table[i]), table[i]);
        CU_ASSERT_EQUAL(gc_next_heap_size(table[i] - 1), table[i]);
        if (i + 1 < n)
            CU_ASSERT_EQUAL(gc_next_heap_size(table[i] + 1), table[i + 1]);
    }
    /* Then +20 % steps. */
    size_t s = 833026;
    for (int i = 0; i < 20; i++) {
        size_t next = s + s / 5;
        CU_ASSERT_EQUAL(gc_next_heap_size(s + 1), next);
        s = next;
    }
}

/* heap_prefault_span over heap_free_span makes the young block's free part
 * resident (a collector thread's work, so that the worker's next
 * allocations do not fault), and leaves a page written meanwhile as it is.
 * The block may be memory malloc had before: its free pages are dropped
 * first (MADV_DONTNEED), so that none is resident before. */
static void test_prefault_free(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, (40u << 20) / sizeof(term), 0));
    term root = make_list_of(&h, 100);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)h.top + page - 1) & ~(uintptr_t)(page - 1),
              hi = (uintptr_t)h.end & ~(uintptr_t)(page - 1);
    size_t pages = (hi - lo) / page;
    CU_ASSERT_FATAL(madvise((void *)lo, hi - lo, MADV_DONTNEED) == 0);
    CU_ASSERT(test_resident_pages(lo, hi) < pages / 2);
    uintptr_t free_lo, free_hi;
    CU_ASSERT_FATAL(heap_free_span(&h, &free_lo, &free_hi));
    CU_ASSERT(free_lo == (uintptr_t)h.top && free_hi == (uintptr_t)h.end);
    term *written = (term *)(lo + 3 * page); /* the process allocated into it first */
    *written = make_small(77);
    heap_prefault_span(free_lo, free_hi);
#ifdef MADV_POPULATE_WRITE
    CU_ASSERT_EQUAL(test_resident_pages(lo, hi), pages);
#endif
    CU_ASSERT_EQUAL(*written, make_small(77));
    CU_ASSERT(list_is(root, 100)); /* what the heap held is unchanged */
    /* A small free part is left alone. */
    h.top = h.end - 100;
    CU_ASSERT_FALSE(heap_free_span(&h, &free_lo, &free_hi));
    heap_destroy(&h);
}

/* heap_release_free_span drops the young block's free part and a big
 * block's mapping past its end from memory, resident before (a block
 * reused warm), and leaves what the heap holds as it was; a free part
 * under a huge page is left alone. */
static void test_release_free(void)
{
    heap_t h;
    size_t words = (41u << 20) / sizeof(term); /* mapped to 42 MiB */
    CU_ASSERT_FATAL(heap_init(&h, words, 0));
    CU_ASSERT_FATAL(heap_is_big_block((size_t)(h.end - h.start)));
    term root = make_list_of(&h, 100);
    uintptr_t mapped_end = (uintptr_t)h.start + (42u << 20);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)h.top + page - 1) & ~(uintptr_t)(page - 1);
    size_t pages = (mapped_end - lo) / page;
    heap_prefault_span(lo, mapped_end);
#ifdef MADV_POPULATE_WRITE
    CU_ASSERT_EQUAL(test_resident_pages(lo, mapped_end), pages);
#endif
    heap_release_free_span(&h);
    CU_ASSERT_EQUAL(test_resident_pages(lo, mapped_end), 0);
    CU_ASSERT(list_is(root, 100));
    term *last = h.top;
    CU_ASSERT(make_list_of(&h, 100) != NIL && h.top > last); /* allocates into it again */
    /* A small free part is left alone. */
    heap_t small;
    CU_ASSERT_FATAL(heap_init(&small, (1u << 20) / sizeof(term), 0));
    root = make_list_of(&small, 100);
    lo = ((uintptr_t)small.top + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = (uintptr_t)small.end & ~(uintptr_t)(page - 1);
    for (uintptr_t a = lo; a < hi; a += page)
        *(volatile term *)a = NIL;
    heap_release_free_span(&small);
    CU_ASSERT_EQUAL(test_resident_pages(lo, hi), (hi - lo) / page);
    CU_ASSERT(list_is(root, 100));
    heap_destroy(&small);
    heap_destroy(&h);
}

/* heap_arena_warm leaves the thread's arena memory resident and free: the
 * next heap-sized allocation of that thread is served from it, faulted in
 * already. In a thread of its own, whose arena is new. (The sanitizers'
 * allocators keep freed memory from reuse: nothing to see there.) */
static void *warm_and_allocate(void *arg)
{
    size_t *resident = arg;
    void *kept = heap_arena_warm((size_t)1 << 20);
    uint8_t *p = malloc(64 << 10);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)p + (64 << 10)) & ~(uintptr_t)(page - 1);
    resident[0] = test_resident_pages(lo, hi);
    resident[1] = (hi - lo) / page;
    resident[2] = kept != NULL;
    free(p);
    heap_arena_warm_end(kept);
    return NULL;
}

static void test_arena_warm(void)
{
    size_t resident[3] = {0};
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, warm_and_allocate, resident) == 0);
    pthread_join(t, NULL);
    CU_ASSERT(resident[2]); /* a piece kept */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    CU_ASSERT_EQUAL(resident[0], resident[1]);
#endif
}

/* The full sweep's sizing (fullsweep_after 0: every collection is one). */
static void test_grow_and_shrink(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    h.fullsweep_after = 0;
    term root = NIL;
    struct gc_root_range r = {&root, 1};
    size_t last_block = heap_block_words(&h);
    for (size_t i = 0; i < 20000; i++) {
        root = heap_cons(&h, make_small((int64_t)i), root);
        CU_ASSERT_FATAL(is_value(root));
        if (heap_wants_gc(&h)) {
            CU_ASSERT_FATAL(gc_collect(&h, 2, &r, 1) == HEAP_OK);
            size_t block = heap_block_words(&h);
            /* Growing data never shrinks the block, and leaves room. */
            CU_ASSERT(block >= last_block);
            CU_ASSERT(is_table_size(block));
            CU_ASSERT(4 * heap_used_words(&h) <= 3 * block + 8);
            last_block = block;
        }
    }
    CU_ASSERT(heap_block_words(&h) > 40000);
    CU_ASSERT(list_is(root, 20000));

    /* Keep a tenth: the block shrinks, still with room. */
    term l = root;
    for (size_t i = 0; i < 2000; i++)
        l = list_tail(l);
    list_ptr(l)[1] = NIL; /* cut the list after 2001 cells */
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_used_words(&h), 2 * 2001);
    size_t block = heap_block_words(&h);
    CU_ASSERT(block < last_block / 4);
    CU_ASSERT(block >= 2 * 2 * 2001);
    CU_ASSERT(is_table_size(block));

    /* Everything garbage: back to the minimum, never below it. */
    root = NIL;
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_block_words(&h), HEAP_DEFAULT_MIN_WORDS);
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_block_words(&h), HEAP_DEFAULT_MIN_WORDS);
    heap_destroy(&h);

    /* A larger minimum holds as well. */
    CU_ASSERT_FATAL(heap_init(&h, 5000, 0));
    h.fullsweep_after = 0;
    root = make_list_of(&h, 30000);
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT(heap_block_words(&h) >= 60000);
    root = NIL;
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_block_words(&h), 5000);
    /* A large need grows the block even with nothing live. */
    CU_ASSERT_EQUAL(gc_collect(&h, 100000, &r, 1), HEAP_OK);
    CU_ASSERT(heap_block_words(&h) >= 100000);
    CU_ASSERT(is_table_size(heap_block_words(&h)));
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 100000));
    CU_ASSERT_PTR_NULL(h.frags);
    heap_destroy(&h);
}

/* A recycled heap keeps its block, emptied, only when that is its floor. */
static void test_recycle_floor(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 169, 0));
    term root = make_list_of(&h, 20);
    struct gc_root_range r = {&root, 1};
    CU_ASSERT_FATAL(heap_alloc(&h, 10) != NULL);
    CU_ASSERT_TRUE(heap_recycle(&h));
    CU_ASSERT_EQUAL(h.min_words, 169);
    CU_ASSERT_EQUAL(heap_block_words(&h), 169);
    CU_ASSERT_EQUAL(heap_used_words(&h), 0);
    /* The floor holds through a collection. */
    root = NIL;
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_block_words(&h), 169);
    /* A block of another size than the floor is not kept. */
    h.min_words = 1000; /* process_flag(min_heap_size, ...) after the block was made */
    CU_ASSERT_FALSE(heap_recycle(&h));
    CU_ASSERT_PTR_NULL(h.start);
}

/* A heap in a block its owner holds (a process's first block, inside its
 * context): collections leave it for a block of their own and never free
 * it, nor does heap_destroy (a free of it would fail under ASan); the floor
 * and a cap below the block's size hold. */
static void test_borrowed_block(void)
{
    static term block[169];
    heap_t h;
    heap_init_in(&h, block, 169, 0);
    CU_ASSERT_PTR_EQUAL(h.start, block);
    CU_ASSERT_EQUAL(heap_block_words(&h), 169);
    CU_ASSERT_EQUAL(h.min_words, 169);
    term root = make_list_of(&h, 50);
    struct gc_root_range r = {&root, 1};
    CU_ASSERT_PTR_EQUAL(h.start, block);
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_PTR_NOT_EQUAL(h.start, block);
    CU_ASSERT_FALSE(h.borrowed_block);
    CU_ASSERT_TRUE(list_is(root, 50));
    root = make_list_of(&h, 500); /* grows past the floor: collections of its own blocks */
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_TRUE(list_is(root, 500));
    heap_destroy(&h);

    /* Destroyed while still in the borrowed block. */
    heap_init_in(&h, block, 169, 0);
    root = make_list_of(&h, 20);
    heap_destroy(&h);
    CU_ASSERT_PTR_NULL(h.start);

    /* A cap below the block: only the capped part is the heap's. */
    heap_init_in(&h, block, 169, 100);
    CU_ASSERT_EQUAL(heap_block_words(&h), 100);
    heap_destroy(&h);
}

static void test_sharing_and_fragments(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    /* Many fragments (more than the collector's inline index). */
    term roots[64];
    for (size_t i = 0; i < 64; i++) {
        roots[i] = heap_tuple(&h, 200, NULL);
        CU_ASSERT_FATAL(is_value(roots[i]));
    }
    size_t frags = 0;
    for (struct heap_fragment *f = h.frags; f; f = f->next)
        frags++;
    CU_ASSERT(frags > 20);
    /* Shared subterms stay shared; a raw word equal to a pointer is not a
     * pointer. */
    term shared = heap_tuple2(&h, make_small(1), roots[3]);
    for (size_t i = 0; i < 64; i++)
        tuple_elements(roots[i])[0] = shared;
    term *big = heap_alloc(&h, 2);
    big[0] = make_header(SUBTAG_POS_BIG, 1);
    big[1] = shared;
    tuple_elements(roots[5])[1] = make_boxed(big);
    /* Overlapping root ranges: a word already rewritten is left alone. */
    struct gc_root_range r[2] = {{roots, 64}, {roots + 10, 5}};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, r, 2), HEAP_OK);
    CU_ASSERT_EQUAL(heap_used_words(&h), 64 * 201 + 3 + 2);
    term s0 = tuple_element(roots[0], 1);
    for (size_t i = 1; i < 64; i++)
        CU_ASSERT_EQUAL(tuple_element(roots[i], 1), s0);
    CU_ASSERT_EQUAL(tuple_element(s0, 2), roots[3]);
    CU_ASSERT_EQUAL(boxed_ptr(tuple_element(roots[5], 2))[1], shared); /* raw, untouched */
    heap_destroy(&h);
}

/* A fragment filled elsewhere, as a message's sender fills one before any
 * lock: {I, [I-1 .. 0], Bin} copied from src, its ProcBin chained apart. */
struct adoptable {
    struct heap_fragment *frag;
    term payload, *mso;
    size_t off_heap_bytes;
};

static struct adoptable adoptable_new(heap_t *src, size_t i, size_t cells)
{
    uint8_t bytes[100];
    memset(bytes, (int)i, sizeof bytes);
    term t = heap_tuple3(src, make_small((int64_t)i), make_list_of(src, cells), bin_from_bytes(src, bytes, 100));
    CU_ASSERT_FATAL(is_value(t));
    size_t size = copy_size(t);
    struct adoptable a = {malloc(sizeof(struct heap_fragment) + size * sizeof(term)), THE_NON_VALUE, NULL, 0};
    CU_ASSERT_FATAL(a.frag != NULL);
    term *hp = (term *)(a.frag + 1);
    *a.frag = (struct heap_fragment){NULL, size, size, hp};
    a.payload = copy_term(t, size, &hp, &a.mso, &a.off_heap_bytes);
    return a;
}

/* Adopted fragments (heap_adopt_fragment): counted against the cap before
 * anything is linked, asked to be collected once they hold more words than
 * the block has free, and merged into the block by the next collection,
 * their ProcBins with the heap's. 300 of them use the granule index; a
 * literal among the roots is left where it is. */
static void test_adopted_fragments(void)
{
    heap_t src, h, capped;
    CU_ASSERT_FATAL(heap_init(&src, 0, 0) && heap_init(&h, 0, 0) && heap_init(&capped, 0, 60));
    size_t base = binary_live_count();
    struct adoptable big = adoptable_new(&src, 1, 40); /* 4 + 80 + 5 words */
    CU_ASSERT_FALSE(heap_adopt_fragment(&capped, big.frag, big.mso, big.off_heap_bytes));
    CU_ASSERT_EQUAL(capped.failure, HEAP_FAIL_CAP);
    CU_ASSERT(capped.frags == NULL && capped.mso == NULL && heap_used_words(&capped) == 0);
    bin_release_mso(big.mso);
    free(big.frag);

    enum { N = 300 };
    term roots[N / 2 + 1];
    size_t words = 0;
    for (size_t i = 0; i < N; i++) {
        struct adoptable a = adoptable_new(&src, i, 10);
        words += a.frag->used;
        CU_ASSERT_FATAL(heap_adopt_fragment(&h, a.frag, a.mso, a.off_heap_bytes));
        if (i % 2 == 0)
            roots[i / 2] = a.payload;
        if (i == 0)
            CU_ASSERT_FALSE(heap_wants_gc(&h)); /* 29 words, a block of 233 free */
    }
    roots[N / 2] = lit_tuple;
    heap_destroy(&src);
    CU_ASSERT_EQUAL(binary_live_count(), base + N);
    CU_ASSERT_EQUAL(h.adopted_words, words);
    CU_ASSERT_EQUAL(heap_used_words(&h), words);
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    struct gc_root_range r = {roots, N / 2 + 1};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT(h.frags == NULL && h.adopted_words == 0 && heap_used_words(&h) == words / 2);
    CU_ASSERT_EQUAL(binary_live_count(), base + N / 2);
    CU_ASSERT_EQUAL(roots[N / 2], lit_tuple);
    for (size_t i = 0; i < N; i += 2) {
        term t = roots[i / 2];
        const uint8_t *data;
        size_t size;
        unsigned bits;
        bin_bytes(tuple_element(t, 3), &data, &size, &bits);
        CU_ASSERT(tuple_element(t, 1) == make_small((int64_t)i) && list_is(tuple_element(t, 2), 10) && size == 100 &&
                  data[99] == (uint8_t)i);
    }
    heap_destroy(&h);
    heap_destroy(&capped);
    CU_ASSERT_EQUAL(binary_live_count(), base);
}

/* heap_wants_gc and heap_alloc test one word each against marks that
 * heap_set_gc_mark keeps: each rule folded into them holds at its exact
 * boundary after each change it depends on (an adopted fragment, a
 * fragment given back, a request, a collection, a cap shared with
 * fragments). */
static void test_marks_keep_every_rule(void)
{
    heap_t src, h;
    CU_ASSERT_FATAL(heap_init(&src, 0, 0) && heap_init(&h, 0, 0));
    struct adoptable a = adoptable_new(&src, 1, 20); /* 4 + 40 + 5 words */
    size_t frag = a.frag->used;
    CU_ASSERT_FATAL(frag > heap_room_words(heap_block_words(&h)));
    CU_ASSERT_FATAL(heap_adopt_fragment(&h, a.frag, a.mso, a.off_heap_bytes));
    /* The fragment waits while the block has as many words free. */
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, (size_t)(h.end - h.top) - frag));
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 1));
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    term root = a.payload;
    struct gc_root_range r = {&root, 1};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    /* A request holds until the collection it asks for. */
    heap_request_gc(&h);
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    CU_ASSERT(gc_next_is_full_sweep(&h, 0));
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    /* An allocation that went to a fragment asks at once; the part given
     * back (heap_shrink_last) moves the mark back. */
    size_t over = (size_t)(h.end - h.top) + 1;
    term *f = heap_alloc(&h, over);
    CU_ASSERT_FATAL(f != NULL && h.frags != NULL);
    CU_ASSERT_TRUE(heap_wants_gc(&h));
    heap_shrink_last(&h, f, over, 0);
    CU_ASSERT_EQUAL(h.frag_words, 0);
    CU_ASSERT_FALSE(heap_wants_gc(&h));
    heap_destroy(&h);
    heap_destroy(&src);

    /* Under a cap, fragments count: the fast path stops where the young
     * block's words and theirs reach it, not at the block's end. */
    heap_t capped;
    CU_ASSERT_FATAL(heap_init(&src, 0, 0) && heap_init(&capped, 0, 100));
    a = adoptable_new(&src, 2, 10); /* 4 + 20 + 5 words */
    frag = a.frag->used;
    CU_ASSERT_FATAL(heap_adopt_fragment(&capped, a.frag, a.mso, a.off_heap_bytes));
    CU_ASSERT_EQUAL(heap_block_words(&capped), 100);
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&capped, 100 - frag));
    CU_ASSERT_EQUAL(heap_used_words(&capped), 100);
    CU_ASSERT(capped.top < capped.end);
    CU_ASSERT_PTR_NULL(heap_alloc(&capped, 1));
    CU_ASSERT_EQUAL(capped.failure, HEAP_FAIL_CAP);
    heap_destroy(&capped);
    heap_destroy(&src);
}

static void test_deep_and_long(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term deep = NIL;
    for (int i = 0; i < 100000; i++) {
        deep = heap_tuple2(&h, deep, make_small(i));
        if (is_non_value(deep))
            break;
    }
    CU_ASSERT_FATAL(is_value(deep));
    term list = make_list_of(&h, 1000000);
    CU_ASSERT_FATAL(is_value(list));
    term roots[2] = {deep, list};
    struct gc_root_range r = {roots, 2};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_used_words(&h), 300000 + 2000000);
    CU_ASSERT(list_is(roots[1], 1000000));
    term t = roots[0];
    for (int i = 99999; i >= 0; i--) {
        if (!is_tuple(t) || tuple_element(t, 2) != make_small(i))
            break;
        t = tuple_element(t, 1);
    }
    CU_ASSERT(is_nil(t));
    heap_destroy(&h);
}

/* A list's cells move as a chain, one after another in to-space, even when
 * a tuple was built between each two cells and the cells lie in fragments;
 * a tail shared with another root moves once and both see the one copy. */
static void test_list_chains(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term list = NIL, shared = NIL;
    for (int i = 0; i < 5000; i++) {
        list = heap_cons(&h, heap_tuple2(&h, make_small(i), NIL), list);
        if (i == 99)
            shared = list;
    }
    CU_ASSERT_FATAL(is_value(list) && h.frags != NULL);
    term roots[2] = {shared, list};
    struct gc_root_range r = {roots, 2};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    int cells = 0, in_order = 0;
    term l = roots[1];
    for (int i = 4999; i >= 0 && is_list(l); i--, cells++) {
        term e = list_head(l);
        if (is_tuple(e) && tuple_element(e, 1) == make_small(i))
            in_order++;
        if (is_list(list_tail(l)) && list_ptr(list_tail(l)) == list_ptr(l) + 2)
            in_order++;
        if (i == 99)
            CU_ASSERT_EQUAL(l, roots[0]);
        l = list_tail(l);
    }
    CU_ASSERT_EQUAL(cells, 5000);
    CU_ASSERT(is_nil(l));
    /* Every head matched, and every tail but the last (and the one where the
     * chain started over at the shared part) pointed at the next word. */
    CU_ASSERT(in_order >= 5000 + 4999 - 1);
    heap_destroy(&h);
}

static void test_off_heap_lifetime(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t base = binary_live_count();
    uint8_t bytes[500];
    memset(bytes, 7, sizeof bytes);
    h.fullsweep_after = 0; /* the generations' ProcBins: test_procbin_generations */
    term a = bin_from_bytes(&h, bytes, 500);
    term b = bin_from_bytes(&h, bytes, 300);
    term c = bin_from_bytes(&h, bytes, 100);
    /* A sub-binary keeps its original (and so the off-heap binary) alive. */
    term sub = bin_sub(&h, b, 10, 20, 0);
    (void)c;
    CU_ASSERT_EQUAL(binary_live_count(), base + 3);
    term roots[2] = {a, sub};
    struct gc_root_range r = {roots, 2};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(binary_live_count(), base + 2);
    CU_ASSERT_EQUAL(h.off_heap_bytes, 800);
    CU_ASSERT_EQUAL(bin_size(roots[1]), 20);
    roots[0] = NIL;
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(binary_live_count(), base + 1);
    CU_ASSERT_EQUAL(h.off_heap_bytes, 300);
    CU_ASSERT(h.mso != NULL && h.mso == boxed_ptr(boxed_ptr(roots[1])[SUBBIN_ORIG]));
    /* heap_destroy releases what is still referenced. */
    heap_destroy(&h);
    CU_ASSERT_EQUAL(binary_live_count(), base);
}

/* ---- generations ---- */

static bool in_young_block(const heap_t *h, term t)
{
    return (uintptr_t)term_ptr(t) - (uintptr_t)h->start < (uintptr_t)(h->top - h->start) * sizeof(term);
}

/* A chain of cells whose heads are all immediates (a string) is not
 * scanned but for its last cell, whose tail must still be fixed: here an
 * improper tail (a tuple holding another such list), a tail into the
 * mature words (a young string ending in a promoted one, so the chain
 * stops there), and a chain with one pointer head among immediates, which
 * the scan must visit whole. Every word is checked to lie in the heap
 * after each collection, so a tail left pointing into the freed
 * from-space fails here (and under ASan at once). */
static bool in_heap_now(const heap_t *h, term t)
{
    return !is_pointer_term(t) || in_young_block(h, t) || heap_in_old(h, term_ptr(t));
}

static bool string_is(const heap_t *h, term l, int from, int count, term *rest)
{
    for (int i = 0; i < count; i++, l = list_tail(l))
        if (!is_list(l) || !in_heap_now(h, l) || list_head(l) != make_small(from + i))
            return false;
    *rest = l;
    return in_heap_now(h, l);
}

static void test_clean_runs(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    /* [0..999 | {[1000..1499], [5, Tuple | 7..9]}] */
    term inner = NIL;
    for (int i = 1499; i >= 1000; i--)
        inner = heap_cons(&h, make_small(i), inner);
    term mixed = NIL;
    for (int i = 9; i >= 7; i--)
        mixed = heap_cons(&h, make_small(i), mixed);
    mixed = heap_cons(&h, heap_tuple2(&h, make_small(6), NIL), mixed);
    mixed = heap_cons(&h, make_small(5), mixed);
    term improper = heap_tuple2(&h, inner, mixed);
    for (int i = 999; i >= 0; i--)
        improper = heap_cons(&h, make_small(i), improper);
    CU_ASSERT_FATAL(is_value(improper));
    term roots[2] = {improper, NIL};
    struct gc_root_range r = {roots, 2};
    for (int round = 0; round < 3; round++) {
        if (round == 1) {
            /* A young string whose tail is the promoted-to-be one. */
            term young = roots[0];
            for (int i = -1; i >= -200; i--)
                young = heap_cons(&h, make_small(i), young);
            roots[1] = young;
        }
        CU_ASSERT_EQUAL_FATAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
        term rest, t;
        CU_ASSERT_FATAL(string_is(&h, roots[0], 0, 1000, &rest));
        CU_ASSERT_FATAL(is_tuple(rest) && tuple_arity(rest) == 2);
        CU_ASSERT(string_is(&h, tuple_element(rest, 1), 1000, 500, &t) && is_nil(t));
        t = tuple_element(rest, 2);
        CU_ASSERT_FATAL(string_is(&h, t, 5, 1, &t));
        CU_ASSERT_FATAL(is_list(t) && in_heap_now(&h, t) && is_tuple(list_head(t)) && in_heap_now(&h, list_head(t)));
        CU_ASSERT(tuple_element(list_head(t), 1) == make_small(6));
        CU_ASSERT(string_is(&h, list_tail(t), 7, 3, &t) && is_nil(t));
        if (round >= 1) {
            CU_ASSERT(string_is(&h, roots[1], -200, 200, &t));
            CU_ASSERT_EQUAL(t, roots[0]);
        }
    }
    /* Three collections: the first string was promoted on the way. */
    CU_ASSERT(heap_in_old(&h, list_ptr(roots[0])) || h.full_sweeps > 0);
    heap_destroy(&h);
}

/* Data survives one collection in the young block, is promoted by the
 * next, and a minor collection then neither moves nor rewrites it. */
static void test_promotion(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term roots[2] = {make_list_of(&h, 1000), NIL};
    struct gc_root_range r = {roots, 2};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT(in_young_block(&h, roots[0]));
    CU_ASSERT_PTR_NULL(h.old->start);
    CU_ASSERT(h.high_water == h.top);
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT(heap_in_old(&h, list_ptr(roots[0])));
    CU_ASSERT_EQUAL(heap_old_words(&h), 2000);
    CU_ASSERT(h.top == h.start);
    CU_ASSERT_EQUAL(h.minor_gcs, 2);
    CU_ASSERT(list_is(roots[0], 1000));

    /* Churn beside the old list: young garbage and a young survivor. */
    term *old_lo = h.old->start, *old_top = h.old->top;
    term *copy = malloc(2000 * sizeof(term));
    CU_ASSERT_FATAL(copy != NULL);
    memcpy(copy, old_lo, 2000 * sizeof(term));
    term kept = roots[0];
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 500; i++)
            CU_ASSERT_FATAL(is_value(heap_tuple(&h, 3, NULL)));
        roots[1] = heap_tuple2(&h, make_small(round), roots[0]);
        CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
        CU_ASSERT_EQUAL(roots[0], kept); /* not moved */
        CU_ASSERT(h.old->start == old_lo);
        CU_ASSERT_EQUAL(memcmp(copy, old_lo, 2000 * sizeof(term)), 0); /* not rewritten */
        CU_ASSERT_EQUAL(tuple_element(roots[1], 2), kept);
    }
    /* Each tuple died before its second collection: none was promoted. */
    CU_ASSERT(h.old->top == old_top);
    CU_ASSERT_EQUAL(h.full_sweeps, 0);
    free(copy);
    heap_destroy(&h);
}

/* The old generation's state is an allocation of its own, made by the
 * first promotion: a heap that never promotes (most processes) carries
 * only the pointer in its process context. A full sweep keeps it, empty,
 * for the next promotion. */
static void test_old_state_made_by_first_promotion(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    CU_ASSERT(!heap_has_old_state(&h));
    CU_ASSERT_EQUAL(heap_old_words(&h), 0);
    CU_ASSERT(!heap_in_old(&h, h.start));
    term root = make_list_of(&h, 100);
    struct gc_root_range r = {&root, 1};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK); /* survives once: still young */
    CU_ASSERT(!heap_has_old_state(&h));
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK); /* survives twice: promoted */
    CU_ASSERT_FATAL(heap_has_old_state(&h));
    const struct heap_old *state = h.old;
    CU_ASSERT_EQUAL(heap_old_words(&h), 200);
    h.gc_requested = true;
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(h.full_sweeps, 1);
    CU_ASSERT(h.old == state);
    CU_ASSERT_PTR_NULL(h.old->start);
    CU_ASSERT(list_is(root, 100));
    heap_destroy(&h);
    CU_ASSERT(!heap_has_old_state(&h));
}

/* A full sweep after fullsweep_after minor collections, and when the old
 * block cannot take what the next minor one would promote. */
static void test_full_sweeps(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    h.fullsweep_after = 3;
    term root = make_list_of(&h, 100);
    struct gc_root_range r = {&root, 1};
    for (int i = 1; i <= 3; i++) {
        CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
        CU_ASSERT_EQUAL(h.minor_gcs, (unsigned long)i);
    }
    CU_ASSERT_PTR_NOT_NULL(h.old->start);
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(h.full_sweeps, 1);
    CU_ASSERT_EQUAL(h.minor_gcs, 0);
    CU_ASSERT_PTR_NULL(h.old->start);
    CU_ASSERT(in_young_block(&h, root));
    CU_ASSERT(list_is(root, 100));
    heap_destroy(&h);

    /* fullsweep_after 0: every collection is full, nothing is promoted. */
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    h.fullsweep_after = 0;
    root = make_list_of(&h, 100);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(h.full_sweeps, 3);
    CU_ASSERT_PTR_NULL(h.old->start);
    heap_destroy(&h);

    /* A growing live list fills the old block: full sweeps follow. */
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    root = NIL;
    for (int i = 0; i < 20000; i++) {
        root = heap_cons(&h, make_small(i), root);
        if (heap_wants_gc(&h))
            CU_ASSERT_FATAL(gc_collect(&h, 0, &r, 1) == HEAP_OK);
    }
    CU_ASSERT(h.full_sweeps > 0);
    CU_ASSERT(h.collections > 2 * h.full_sweeps); /* mostly minor ones */
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT(list_is(root, 20000));
    /* And garbage_collect's request is a full sweep. */
    unsigned long sweeps = h.full_sweeps;
    h.gc_requested = true;
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(h.full_sweeps, sweeps + 1);
    CU_ASSERT(!h.gc_requested);
    heap_destroy(&h);
}

/* Old words written in place that refer to young data: through
 * heap_write into an old tuple, and by a minor collection that promotes a
 * tuple written while it was young. Without the remembered words the
 * young cons would be freed under the old tuple. */
static void test_remembered_words(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term roots[2] = {heap_tuple(&h, 2, NULL), heap_tuple(&h, 2, NULL)};
    struct gc_root_range r = {roots, 2};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    /* roots[1] is young but mature: the next collection promotes it. */
    term young_cell = heap_cons(&h, make_small(7), NIL);
    heap_write(&h, &tuple_elements(roots[1])[0], young_cell);
    CU_ASSERT_EQUAL(h.old->remembered_len, 0); /* not old yet */
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT(heap_in_old(&h, boxed_ptr(roots[0])) && heap_in_old(&h, boxed_ptr(roots[1])));
    CU_ASSERT(in_young_block(&h, tuple_element(roots[1], 1)));
    CU_ASSERT_EQUAL(h.old->remembered_len, 1); /* found by the promotion */

    /* Into an old tuple: remembered at the write. */
    term cell = heap_cons(&h, make_small(8), NIL);
    heap_write(&h, &tuple_elements(roots[0])[1], cell);
    CU_ASSERT_EQUAL(h.old->remembered_len, 2);
    for (int i = 0; i < 300; i++) /* garbage between */
        CU_ASSERT_FATAL(is_value(heap_tuple(&h, 4, NULL)));
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    term a = tuple_element(roots[0], 2), b = tuple_element(roots[1], 1);
    CU_ASSERT(in_young_block(&h, a) || heap_in_old(&h, list_ptr(a)));
    CU_ASSERT(is_list(a) && list_head(a) == make_small(8) && list_tail(a) == NIL);
    CU_ASSERT(is_list(b) && list_head(b) == make_small(7) && list_tail(b) == NIL);
    /* Promoted by now or the next: then no word needs remembering. */
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(h.old->remembered_len, 0);
    CU_ASSERT(heap_in_old(&h, list_ptr(tuple_element(roots[0], 2))));
    CU_ASSERT(list_head(tuple_element(roots[1], 1)) == make_small(7));
    heap_destroy(&h);
}

/* ProcBins: one dying young is freed by the minor collection; one
 * promoted moves to the old chain and, once dead, waits for a full sweep. */
static void test_procbin_generations(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t base = binary_live_count();
    uint8_t bytes[400];
    memset(bytes, 3, sizeof bytes);
    term roots[2] = {bin_from_bytes(&h, bytes, 400), bin_from_bytes(&h, bytes, 200)};
    struct gc_root_range r = {roots, 2};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT(heap_in_old(&h, boxed_ptr(roots[0])));
    CU_ASSERT_PTR_NULL(h.mso);
    CU_ASSERT_PTR_NOT_NULL(h.old->mso);
    CU_ASSERT_EQUAL(h.old->off_heap_bytes, 600);
    CU_ASSERT_EQUAL(h.off_heap_bytes, 0);

    term young = bin_from_bytes(&h, bytes, 300);
    CU_ASSERT_EQUAL(binary_live_count(), base + 3);
    CU_ASSERT_EQUAL(h.off_heap_bytes, 300);
    (void)young;
    roots[1] = NIL; /* the 200-byte one dies old */
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(binary_live_count(), base + 2); /* the young one freed, the old one waits */
    CU_ASSERT_EQUAL(h.old->off_heap_bytes, 600);
    h.gc_requested = true;
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(binary_live_count(), base + 1);
    CU_ASSERT_PTR_NULL(h.old->mso);
    CU_ASSERT_EQUAL(h.off_heap_bytes, 400);
    CU_ASSERT_EQUAL(bin_size(roots[0]), 400);
    heap_destroy(&h);
    CU_ASSERT_EQUAL(binary_live_count(), base);
}

/* Minor collections promote ProcBins in front of an old chain they leave
 * as it is: each live one stays chained exactly once (on the old chain
 * after a minor collection promoted it, on the young one after a full
 * sweep), each chain's bytes add up, and a full sweep then frees the dead. */
static size_t chain_bytes(const term *first, size_t *count)
{
    size_t bytes = 0;
    for (const term *pb = first; pb; pb = (const term *)(uintptr_t)pb[PROCBIN_NEXT]) {
        ++*count;
        bytes += pb[PROCBIN_SIZE];
    }
    return bytes;
}

static void test_procbin_promoted_onto_old_chain(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t base = binary_live_count();
    uint8_t bytes[160];
    memset(bytes, 5, sizeof bytes);
    term roots[6] = {NIL, NIL, NIL, NIL, NIL, NIL};
    struct gc_root_range r = {roots, 6};
    size_t expected = 0, onto_chain = 0;
    for (int i = 0; i < 6; i++) {
        roots[i] = bin_from_bytes(&h, bytes, (size_t)(100 + 10 * i));
        expected += (size_t)(100 + 10 * i);
        for (int k = 0; k < 2; k++) {
            bool had_old = h.old->mso != NULL;
            CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
            onto_chain += had_old && h.full_sweeps == 0 && h.mso == NULL;
        }
        size_t young = 0, old = 0;
        CU_ASSERT_EQUAL(chain_bytes(h.old->mso, &old), h.old->off_heap_bytes);
        CU_ASSERT_EQUAL(chain_bytes(h.mso, &young), h.off_heap_bytes);
        CU_ASSERT_EQUAL(young + old, (size_t)i + 1);
        CU_ASSERT_EQUAL(h.off_heap_bytes + h.old->off_heap_bytes, expected);
    }
    CU_ASSERT(onto_chain > 0);
    CU_ASSERT_EQUAL(binary_live_count(), base + 6);
    roots[1] = roots[2] = NIL;
    h.gc_requested = true;
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(binary_live_count(), base + 4);
    CU_ASSERT_EQUAL(h.off_heap_bytes, expected - 110 - 120);
    CU_ASSERT_EQUAL(bin_size(roots[3]), 130);
    heap_destroy(&h);
    CU_ASSERT_EQUAL(binary_live_count(), base);
}

/* The cap counts both generations: old words leave less room for young
 * ones, and a collection whose live data would pass it is refused. */
static void test_cap_over_generations(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 3000));
    term root = make_list_of(&h, 600); /* 1200 words */
    struct gc_root_range r = {&root, 1};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_old_words(&h), 1200);
    CU_ASSERT_EQUAL(heap_used_words(&h), 1200);
    CU_ASSERT_PTR_NOT_NULL(heap_alloc(&h, 1800));
    CU_ASSERT_PTR_NULL(heap_alloc(&h, 1));
    CU_ASSERT_EQUAL(h.failure, HEAP_FAIL_CAP);
    /* Live 1200 (old) + need 1801 passes 3000: refused, nothing changed. */
    term *old_top = h.old->top, *top = h.top;
    CU_ASSERT_EQUAL(gc_collect(&h, 1801, &r, 1), HEAP_FAIL_CAP);
    CU_ASSERT(h.old->top == old_top && h.top == top);
    CU_ASSERT(list_is(root, 600));
    CU_ASSERT_EQUAL(gc_collect(&h, 1800, &r, 1), HEAP_OK);
    CU_ASSERT(list_is(root, 600));
    CU_ASSERT(heap_used_words(&h) + 1800 <= 3000);
    heap_destroy(&h);
}

/* Minor collections size the young block by OTP's rule: a small block
 * (under 3,000 words) keeps its size however little survives; a large one
 * (28,690) that is mostly garbage shrinks, to about three times what
 * survives (OTP's 3 * need_after); one that survivors fill grows; and the new block holds at least
 * what the process used before the collection, its stack included, so one
 * that overflowed into fragments grows however little survives, unless the
 * grown block is large and mostly empty, which shrinks as any other. */
static void test_minor_sizing(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term roots[1] = {make_list_of(&h, 800)}; /* 1,600 words */
    struct gc_root_range r = {roots, 1};
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK); /* grows the block */
    size_t small = heap_block_words(&h);
    CU_ASSERT(small < 3000);
    roots[0] = make_list_of(&h, 10); /* the rest is garbage from now on */
    for (int round = 0; round < 5; round++) {
        /* Garbage filling half the room left: within the block. */
        size_t tuples = (size_t)(h.end - h.top) / 8;
        for (size_t i = 0; i < tuples; i++)
            CU_ASSERT_FATAL(is_value(heap_tuple(&h, 3, NULL)));
        CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
        CU_ASSERT_EQUAL(h.full_sweeps, 0);
        CU_ASSERT_EQUAL(heap_block_words(&h), small);
    }
    /* Used before: a block full, 100 words of fragments and a stack of
     * 20; nothing of it survives, and the block grows to hold it (under
     * 3,000 words, so it stays). Here, with 2,586 words used before, it
     * would grow past 3,000 words and then shrink back, as on OTP. */
    heap_t u;
    CU_ASSERT_FATAL(heap_init(&u, 0, 0));
    term u_roots[1] = {NIL};
    struct gc_root_range ur = {u_roots, 1};
    size_t first = heap_block_words(&u);
    while (u.top < u.end)
        CU_ASSERT_FATAL(heap_alloc(&u, 1) != NULL);
    for (int i = 0; i < 25; i++)
        CU_ASSERT_FATAL(is_value(heap_tuple(&u, 3, NULL)));
    u.stack_words = 20;
    CU_ASSERT_EQUAL(gc_collect(&u, 0, &ur, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_block_words(&u), gc_next_heap_size(first + 120));
    CU_ASSERT(heap_block_words(&u) > first && heap_block_words(&u) < 3000);
    heap_destroy(&u);
    while (h.top < h.end)
        CU_ASSERT_FATAL(heap_alloc(&h, 1) != NULL);
    for (int i = 0; i < 100; i++)
        CU_ASSERT_FATAL(is_value(heap_tuple(&h, 3, NULL)));
    h.stack_words = 100;
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT(gc_next_heap_size(small + 500) > 3000 && heap_block_words(&h) <= small);
    h.stack_words = 0;
    roots[0] = make_list_of(&h, 12000); /* 24,000 words survive: growth */
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    size_t large = heap_block_words(&h);
    CU_ASSERT(large > 8000 && 4 * heap_young_words(&h) <= 3 * large);
    roots[0] = make_list_of(&h, 100); /* 200 words survive, then are promoted */
    CU_ASSERT_EQUAL(gc_collect(&h, 0, &r, 1), HEAP_OK);
    CU_ASSERT(heap_block_words(&h) < large / 4);
    CU_ASSERT(heap_block_words(&h) >= 2 * heap_young_words(&h));
    CU_ASSERT(list_is(roots[0], 100));
    heap_destroy(&h);

    /* A process making 4,000 words a call (tuple_to_list of 2,000
     * elements) whose last result survives: having used 20,000 words, the
     * block shrinks no further than a third used (OTP's 3 * need_after), so
     * that the next three results fit without a fragment or a collection
     * (shrunk to twice the survivors, it held one). */
    heap_t v;
    CU_ASSERT_FATAL(heap_init(&v, 0, 0));
    while (heap_young_words(&v) < 16000)
        CU_ASSERT_FATAL(heap_alloc(&v, 4000) != NULL);
    term v_roots[1] = {make_list_of(&v, 2000)};
    struct gc_root_range vr = {v_roots, 1};
    CU_ASSERT(heap_young_words(&v) >= 20000);
    CU_ASSERT_EQUAL(gc_collect(&v, 0, &vr, 1), HEAP_OK);
    CU_ASSERT_EQUAL(heap_young_words(&v), 4000);
    CU_ASSERT_EQUAL(heap_block_words(&v), gc_next_heap_size(3 * 4000));
    for (int call = 0; call < 3; call++)
        CU_ASSERT_FATAL(heap_alloc(&v, 4000) != NULL);
    CU_ASSERT_PTR_NULL(v.frags);
    CU_ASSERT_FALSE(heap_wants_gc(&v));
    CU_ASSERT(list_is(v_roots[0], 2000));
    heap_destroy(&v);
}

/* A busy owner's block collected because it filled to its room grows a
 * step at each such collection while little survives, up to the largest
 * size a minor collection keeps (2,586 words), and stays there: a loop
 * making garbage beside little live data collects as seldom as on OTP. */
static void test_filled_block_grows(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term roots[1] = {NIL};
    struct gc_root_range r = {roots, 1};
    size_t previous = heap_block_words(&h);
    for (int round = 0; round < 12; round++) {
        roots[0] = make_list_of(&h, 10);
        while (!heap_wants_gc(&h))
            CU_ASSERT_FATAL(is_value(heap_tuple(&h, 1, NULL)));
        CU_ASSERT_PTR_NULL(h.frags);
        CU_ASSERT_EQUAL(gc_collect_owned(&h, 0, &r, 1, true), HEAP_OK);
        size_t block = heap_block_words(&h);
        CU_ASSERT_EQUAL(block, previous < 2586 ? gc_next_heap_size(previous + 1) : 2586);
        CU_ASSERT(list_is(roots[0], 10));
        previous = block;
    }
    CU_ASSERT_EQUAL(previous, 2586);
    CU_ASSERT_EQUAL(h.full_sweeps, 0);
    heap_destroy(&h);

    /* An owner that stopped between its collections keeps its block. */
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t first = heap_block_words(&h);
    for (int round = 0; round < 4; round++) {
        roots[0] = make_list_of(&h, 10);
        while (!heap_wants_gc(&h))
            CU_ASSERT_FATAL(is_value(heap_tuple(&h, 1, NULL)));
        CU_ASSERT_EQUAL(gc_collect_owned(&h, 0, &r, 1, false), HEAP_OK);
        CU_ASSERT_EQUAL(heap_block_words(&h), first);
    }
    heap_destroy(&h);
}

/* Blocks of megabytes start on a 2 MiB boundary (so huge pages can back
 * them), small ones come from malloc as they are, and a resize keeps the
 * words, in either kind and across them. */
static void test_block_allocation(void)
{
    heap_big_cache_drop();
    size_t words = (size_t)1 << 20; /* 8 MiB */
    term *big = heap_block_alloc(words);
    CU_ASSERT_FATAL(big != NULL);
    CU_ASSERT_EQUAL((uintptr_t)big % ((uintptr_t)2 << 20), 0);
    for (size_t i = 0; i < words; i += 4096)
        big[i] = make_small((int64_t)i);
    term *grown = heap_block_realloc(big, words, words + words / 2);
    CU_ASSERT_FATAL(grown != NULL);
    int intact = 0;
    for (size_t i = 0; i < words; i += 4096)
        intact += grown[i] == make_small((int64_t)i);
    CU_ASSERT_EQUAL(intact, (int)(words / 4096));
    grown[words + words / 2 - 1] = NIL;
    /* Shrunk to a small block: the first words move to malloc's memory. */
    term *small = heap_block_realloc(grown, words + words / 2, 1000);
    CU_ASSERT_FATAL(small != NULL);
    CU_ASSERT_EQUAL(small[0], make_small(0));
    small[999] = NIL;
    /* And grown to a big one again. */
    term *again = heap_block_realloc(small, 1000, words);
    CU_ASSERT_FATAL(again != NULL);
    CU_ASSERT_EQUAL(again[0], make_small(0));
    again[words - 1] = NIL;
    heap_block_free(again, words);
    term *tiny = heap_block_alloc(233);
    CU_ASSERT_FATAL(tiny != NULL);
    tiny[232] = NIL;
    heap_block_free(tiny, 233);
    heap_big_cache_drop();
}

/* A freed big block stays cached for HEAP_BIG_CACHE_HOLD_NS, published as
 * when the oldest is due; heap_big_cache_release_aged unmaps those whose
 * hold has ended, oldest first, and nothing before. */
static void test_big_cache_hold(void)
{
    heap_big_cache_drop();
    CU_ASSERT_EQUAL(heap_big_cache_due_ns(), UINT64_MAX);
    size_t words = (size_t)1 << 19, blocks, bytes; /* 4 MiB: big */
    term *first = heap_block_alloc(words), *second = heap_block_alloc(2 * words);
    CU_ASSERT_FATAL(first != NULL && second != NULL);
    first[0] = second[0] = NIL;
    uint64_t before = heap_clock_ns();
    heap_block_free(first, words);
    uint64_t given = heap_clock_ns(), due = heap_big_cache_due_ns();
    CU_ASSERT(due >= before + HEAP_BIG_CACHE_HOLD_NS && due <= given + HEAP_BIG_CACHE_HOLD_NS);
    /* A second, given later, does not move the oldest's due time. */
    heap_block_free(second, 2 * words);
    CU_ASSERT_EQUAL(heap_big_cache_due_ns(), due);
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 2);
    CU_ASSERT_EQUAL(heap_big_cache_release_aged(due - 1), 0); /* not yet */
    CU_ASSERT_EQUAL(heap_big_cache_release_aged(before), 0);  /* a clock behind the stamps: nothing */
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 2);
    /* At the first's due time it goes and the second becomes the oldest. */
    CU_ASSERT_EQUAL(heap_big_cache_release_aged(due), 1);
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 1);
    CU_ASSERT_EQUAL(bytes, (size_t)8 << 20);
    uint64_t second_due = heap_big_cache_due_ns();
    CU_ASSERT(second_due >= due && second_due != UINT64_MAX);
    CU_ASSERT_EQUAL(heap_big_cache_release_aged(second_due), 1);
    CU_ASSERT_EQUAL(heap_big_cache_due_ns(), UINT64_MAX);
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 0);
    CU_ASSERT_EQUAL(bytes, 0);
}

/* This process's resident bytes (/proc/self/statm). */
static size_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* heap_return_free_memory empties the big-block cache and gives malloc's
 * free pages back (the resident size falls by most of what was freed), at
 * most once per HEAP_RETURN_INTERVAL_NS of the clock it is given. */
static void test_return_free_memory(void)
{
    uint64_t now = UINT64_MAX / 2; /* far from any other caller's clock: this call returns */
    size_t words = 600000, blocks, bytes;
    term *big = heap_block_alloc(words);
    CU_ASSERT_FATAL(big != NULL);
    big[0] = NIL;
    heap_block_free(big, words);
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT(blocks >= 1);
    /* 32 MiB in chunks of 64 KiB, written, then freed between small chunks
     * still held: free memory malloc keeps, which no free() trims. */
    enum { CHUNKS = 512, CHUNK = 64 << 10 };
    static void *chunks[CHUNKS], *held[CHUNKS];
    for (int i = 0; i < CHUNKS; i++) {
        chunks[i] = malloc(CHUNK);
        held[i] = malloc(64);
        CU_ASSERT_FATAL(chunks[i] != NULL && held[i] != NULL);
        memset(chunks[i], 1, CHUNK);
    }
    for (int i = 0; i < CHUNKS; i++)
        free(chunks[i]);
    size_t before = resident_bytes();
    CU_ASSERT_TRUE(heap_return_free_memory(now));
    size_t after = resident_bytes();
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 0);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    /* (A sanitizer's allocator keeps freed memory its own way.) */
    CU_ASSERT(before > after && before - after >= (size_t)CHUNKS * CHUNK / 2);
#else
    (void)before;
    (void)after;
#endif
    CU_ASSERT_FALSE(heap_return_free_memory(now + HEAP_RETURN_INTERVAL_NS / 2));
    CU_ASSERT_TRUE(heap_return_free_memory(now + HEAP_RETURN_INTERVAL_NS));
    for (int i = 0; i < CHUNKS; i++)
        free(held[i]);
}

/* A freed big block serves the next request it can hold, the smallest
 * such, with its pages still in place, cut to the request's size (rounded
 * to huge pages); the cache keeps HEAP_BIG_CACHE_BLOCKS blocks at most,
 * the newest. */
static void test_big_block_cache(void)
{
    heap_big_cache_drop();
    size_t blocks, bytes;
    size_t words = (size_t)600000; /* 4.8 MB: three huge pages */
    term *a = heap_block_alloc(words);
    CU_ASSERT_FATAL(a != NULL);
    a[0] = make_small(1);
    heap_block_free(a, words);
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 1);
    CU_ASSERT_EQUAL(bytes, 3 * HEAP_HUGE_PAGE_BYTES);
    /* A larger size grows the largest cached block: its pages, with the
     * word written before it was freed, and fresh ones after them. */
    term *larger = heap_block_alloc(words * 2);
    CU_ASSERT_FATAL(larger != NULL);
    CU_ASSERT_EQUAL(larger[0], make_small(1));
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 0);
    larger[2 * words - 1] = make_small(2);
    term *a2 = heap_block_alloc(words); /* nothing cached: a fresh mapping */
    CU_ASSERT_FATAL(a2 != NULL);
    a2[0] = make_small(1);
    heap_block_free(a2, words);
    heap_block_free(larger, words * 2);
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 2);
    CU_ASSERT_EQUAL(bytes, 8 * HEAP_HUGE_PAGE_BYTES);
    /* The smallest that holds a request: the 3-page block, with the word
     * written before it was freed. */
    term *b = heap_block_alloc(words - 1000);
    CU_ASSERT_PTR_EQUAL(b, a2);
    CU_ASSERT_EQUAL(b[0], make_small(1));
    /* Then the larger one, cut to three huge pages. */
    term *c = heap_block_alloc(words);
    CU_ASSERT_PTR_EQUAL(c, larger);
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 0);
    c[words - 1] = NIL;
    heap_block_free(c, words);
    heap_block_free(b, words - 1000);
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 2);
    CU_ASSERT_EQUAL(bytes, 6 * HEAP_HUGE_PAGE_BYTES);
    /* Beyond the count the oldest go. */
    term *many[HEAP_BIG_CACHE_BLOCKS + 4];
    for (unsigned i = 0; i < HEAP_BIG_CACHE_BLOCKS + 4; i++)
        CU_ASSERT_FATAL((many[i] = heap_block_alloc(words)) != NULL);
    for (unsigned i = 0; i < HEAP_BIG_CACHE_BLOCKS + 4; i++)
        heap_block_free(many[i], words);
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, HEAP_BIG_CACHE_BLOCKS);
    CU_ASSERT(bytes <= HEAP_BIG_CACHE_BYTES);
    /* Among blocks of one size the newest, likeliest in the caches. */
    term *next = heap_block_alloc(words);
    CU_ASSERT_PTR_EQUAL(next, many[HEAP_BIG_CACHE_BLOCKS + 3]);
    heap_block_free(next, words);
    heap_big_cache_drop();
    heap_big_cache_figures(&blocks, &bytes);
    CU_ASSERT_EQUAL(blocks, 0);
    CU_ASSERT_EQUAL(bytes, 0);
}

static CU_TestInfo tests[] = {
    {"heap size table", test_heap_sizes},
    {"big blocks cached by size", test_big_block_cache},
    {"free memory given back on request", test_return_free_memory},
    {"a cached big block is held for a second, then unmapped", test_big_cache_hold},
    {"prefault of the free part", test_prefault_free},
    {"release of the free part", test_release_free},
    {"a warm arena", test_arena_warm},
    {"random graphs, thousands of collections", test_stress},
    {"random graphs under a cap", test_stress_capped},
    {"random graphs, generations and in-place writes", test_stress_generational},
    {"heap cap", test_cap},
    {"growth and shrinking", test_grow_and_shrink},
    {"sharing, raw words and many fragments", test_sharing_and_fragments},
    {"adopted fragments", test_adopted_fragments},
    {"the collection and allocation marks keep every rule", test_marks_keep_every_rule},
    {"deep and long terms", test_deep_and_long},
    {"lists move as chains", test_list_chains},
    {"strings are scanned by their last cell only", test_clean_runs},
    {"off-heap binary lifetime", test_off_heap_lifetime},
    {"promotion, and minor collections leave old data", test_promotion},
    {"old-generation state made by the first promotion", test_old_state_made_by_first_promotion},
    {"full sweeps: fullsweep_after, 0, old block full, request", test_full_sweeps},
    {"remembered old words written in place", test_remembered_words},
    {"ProcBins dying young and old", test_procbin_generations},
    {"ProcBins promoted onto the old chain", test_procbin_promoted_onto_old_chain},
    {"cap counted over both generations", test_cap_over_generations},
    {"minor collections size the young block as OTP", test_minor_sizing},
    {"a block collected full grows a step", test_filled_block_grows},
    {"block allocation", test_block_allocation},
    {"a recycled heap keeps its block at its floor", test_recycle_floor},
    {"a heap in its owner's block never frees it", test_borrowed_block},
    CU_TEST_INFO_NULL,
};

__attribute__((constructor)) static void gc_test_data_init(void)
{
    literals_init();
    fun_entries_init();
}

TEST_SUITE(gc, tests)
