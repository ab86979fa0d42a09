/*
 * map.c — Erlang maps: flat up to MAP_SMALL_LIMIT keys, a hash array mapped
 * trie (HAMT) above, both laid out as OTP 25 lays them out (map.h).
 *
 * Invariants:
 *  - Layouts are canonical: a map of at most MAP_SMALL_LIMIT keys is flat,
 *    keys in term_compare_exact order; a larger one is a trie whose shape
 *    depends only on its key set. Equal maps are therefore equal word by
 *    word, which term_eq_exact and term_hash rely on.
 *  - Trie nodes are SUBTAG_HASHMAP objects with the slot bitmap in the
 *    header's extra field and every payload word a term:
 *      head       [hdr arity 1+n][size: small][child]...   (the map itself)
 *      inner      [hdr arity n][child]...
 *      collision  [hdr arity n, bitmap 0][leaf]...         (level 32 only)
 *    A child is a leaf [Key|Value] (a cons) or a node, in slot order; a head
 *    is told from an inner node by its arity (popcount + 1). A subtree holding
 *    one key is always the bare leaf, so every node has two keys or more
 *    below it. Collision leaves are in term_compare_exact order.
 *  - Level L of the trie is 4 bits of term_map_hash(key, L / 8), least
 *    significant first: OTP 25's hash and placement. maps:to_list walks the
 *    trie depth first from the highest slot down, and so does map_iter.
 *
 * Deviation from OTP 25: its hash of an atom, pid, port or fun is that of its
 * own word or pointer, which ours cannot reproduce (atom indices differ), so
 * large maps with such keys iterate in an order of their own; everything else
 * orders as in OTP. OTP 25 re-hashes forever when two keys collide in every
 * round; we stop after four rounds (128 bits) at a collision node.
 *
 * Nothing here recurses with the size of a term: building a trie recurses
 * once per level, at most MAP_MAX_DEPTH deep.
 */
#include "term/map.h"

#include "term/compare.h"

#include <stdlib.h>
#include <string.h>

static uint32_t (*test_hash)(term key, unsigned round);

void map_test_set_hash(uint32_t (*hash)(term key, unsigned round)) { test_hash = hash; }

static uint32_t key_hash(term key, unsigned round)
{
    return test_hash ? test_hash(key, round) : term_map_hash(key, round);
}

/* The slot of a hash at a level (4 bits, least significant first). */
static unsigned nibble(uint32_t hash, unsigned level) { return (hash >> (4 * (level % 8))) & 0xFu; }
static unsigned key_nibble(term key, unsigned level) { return nibble(key_hash(key, level / 8), level); }

/* A hash with its nibbles reversed: comparing these as numbers compares the
 * slot sequences level by level, which is the trie's order. */
static uint32_t slot_order(uint32_t hash)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < 8; i++, hash >>= 4)
        r = (r << 4) | (hash & 0xFu);
    return r;
}

/* The popcnt instruction where the build may use it (Makefile), else a
 * branch-free count rather than libgcc's out-of-line one. */
static unsigned popcount(unsigned x)
{
#if defined(__POPCNT__) || !defined(__x86_64__)
    return (unsigned)__builtin_popcount(x);
#else
    x -= (x >> 1) & 0x55555555u;
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
#endif
}

/* ---- flat maps ---- */

static bool is_flat(term map) { return header_subtag(boxed_header(map)) == SUBTAG_FLATMAP; }
static const term *flat_keys(term map) { return tuple_elements(boxed_ptr(map)[2]); }
static const term *flat_values(term map) { return boxed_ptr(map) + 3; }

size_t map_size(term map) { return (size_t)small_value(boxed_ptr(map)[1]); }

/* A flat map of n pairs already in key order: the key tuple and the map in
 * one allocation. */
static term flat_build(heap_t *h, const term *keys, const term *values, size_t n)
{
    term *p = heap_alloc(h, 1 + n + 3 + n);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header(SUBTAG_TUPLE, n);
    term *m = p + 1 + n;
    m[0] = make_header(SUBTAG_FLATMAP, n + 2);
    m[1] = make_small((int64_t)n);
    m[2] = make_boxed(p);
    if (n > 0) {
        memcpy(p + 1, keys, n * sizeof(term));
        memcpy(m + 3, values, n * sizeof(term));
    }
    return make_boxed(m);
}

/* The index of immediate key among n keys, or n: =:= to an immediate is
 * identity, so a scan of words finds it without ordering comparisons
 * (atoms order by their text). */
static size_t flat_find_immediate(const term *keys, size_t n, term key)
{
    size_t i = 0;
    while (i < n && keys[i] != key)
        i++;
    return i;
}

/* Where key is or would go among n sorted keys; *found says which. An
 * immediate key present (a map update's, mostly) is found by its word. */
static size_t flat_search(const term *keys, size_t n, term key, bool *found)
{
    if (is_immed(key)) {
        size_t i = flat_find_immediate(keys, n, key);
        if (i < n) {
            *found = true;
            return i;
        }
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = term_compare_exact(keys[mid], key);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

/* Adds (key, value) to the sorted arrays of *n pairs, replacing an equal key. */
static void sorted_insert(term *keys, term *values, size_t *n, term key, term value)
{
    bool found;
    size_t i = flat_search(keys, *n, key, &found);
    if (!found) {
        memmove(keys + i + 1, keys + i, (*n - i) * sizeof(term));
        memmove(values + i + 1, values + i, (*n - i) * sizeof(term));
        (*n)++;
    }
    keys[i] = key;
    values[i] = value;
}

/* ---- trie nodes ---- */

static bool node_is_head(term hdr)
{
    unsigned bitmap = header_extra(hdr);
    return bitmap != 0 && header_arity(hdr) == popcount(bitmap) + 1u;
}
static unsigned node_count(term hdr) { return (unsigned)header_arity(hdr) - (node_is_head(hdr) ? 1u : 0u); }
static term *node_children(term node)
{
    term *p = boxed_ptr(node);
    return p + 1 + (node_is_head(p[0]) ? 1 : 0);
}

/* A node with `count` children from kids; head nodes carry the size. */
static term node_build(heap_t *h, unsigned bitmap, const term *kids, unsigned count, bool head, size_t size)
{
    term *p = heap_alloc(h, 1 + (head ? 1 : 0) + count);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header_extra(SUBTAG_HASHMAP, count + (head ? 1u : 0u), (uint16_t)bitmap);
    term *q = p + 1;
    if (head)
        *q++ = make_small((int64_t)size);
    memcpy(q, kids, count * sizeof(term));
    return make_boxed(p);
}

enum edit { EDIT_REPLACE, EDIT_INSERT, EDIT_REMOVE };

/* A copy of node with the child at `slot` replaced or removed, or a new one
 * inserted there under `bit`, and a head's size moved by delta. In collision
 * nodes (bitmap 0) only the position counts. */
static term node_edit(heap_t *h, term node, enum edit op, unsigned bit, unsigned slot, term child, int delta)
{
    term hdr = boxed_header(node);
    unsigned bitmap = header_extra(hdr), count = node_count(hdr);
    unsigned head = node_is_head(hdr) ? 1 : 0;
    unsigned n = op == EDIT_INSERT ? count + 1 : op == EDIT_REMOVE ? count - 1 : count;
    const term *old = node_children(node);
    term *p = heap_alloc(h, 1 + head + n); /* collision nodes may pass 16 */
    if (!p)
        return THE_NON_VALUE;
    if (bitmap != 0)
        bitmap = op == EDIT_REMOVE ? bitmap & ~bit : bitmap | bit;
    p[0] = make_header_extra(SUBTAG_HASHMAP, n + head, (uint16_t)bitmap);
    term *q = p + 1;
    if (head)
        *q++ = make_small((int64_t)map_size(node) + delta);
    /* The children before the slot, the slot's new child (none for a
     * removal), then those after it (from the slot's old child on for an
     * insertion). */
    memcpy(q, old, slot * sizeof(term));
    q += slot;
    if (op != EDIT_REMOVE)
        *q++ = child;
    unsigned after = op == EDIT_INSERT ? slot : slot + 1;
    memcpy(q, old + after, (count - after) * sizeof(term));
    return make_boxed(p);
}

/* ---- collision nodes (level MAP_MAX_LEVEL) ---- */

/* Where key is or would go among a collision node's sorted leaves. */
static unsigned collision_search(term node, term key, bool *found)
{
    const term *kids = node_children(node);
    unsigned n = node_count(boxed_header(node)), i = 0;
    *found = false;
    for (; i < n; i++) {
        int c = term_compare_exact(list_head(kids[i]), key);
        if (c >= 0) {
            *found = c == 0;
            break;
        }
    }
    return i;
}

static term collision_build(heap_t *h, term leaf_a, term leaf_b)
{
    term kids[2] = {leaf_a, leaf_b};
    if (term_compare_exact(list_head(leaf_a), list_head(leaf_b)) > 0) {
        kids[0] = leaf_b;
        kids[1] = leaf_a;
    }
    term *p = heap_alloc(h, 3);
    if (!p)
        return THE_NON_VALUE;
    p[0] = make_header_extra(SUBTAG_HASHMAP, 2, 0);
    p[1] = kids[0];
    p[2] = kids[1];
    return make_boxed(p);
}

/* The smallest subtree from `level` down holding two leaves whose keys agree
 * on every slot above it. */
static term pair_subtree(heap_t *h, term leaf_a, term leaf_b, unsigned level)
{
    term ka = list_head(leaf_a), kb = list_head(leaf_b);
    unsigned split = level;
    while (split < MAP_MAX_LEVEL && key_nibble(ka, split) == key_nibble(kb, split))
        split++;
    term node;
    if (split == MAP_MAX_LEVEL) {
        node = collision_build(h, leaf_a, leaf_b);
    } else {
        unsigned na = key_nibble(ka, split), nb = key_nibble(kb, split);
        term kids[2] = {na < nb ? leaf_a : leaf_b, na < nb ? leaf_b : leaf_a};
        node = node_build(h, (1u << na) | (1u << nb), kids, 2, false, 0);
    }
    /* Single-child nodes for the levels where both keys share a slot. */
    while (split > level && is_value(node)) {
        split--;
        node = node_build(h, 1u << key_nibble(ka, split), &node, 1, false, 0);
    }
    return node;
}

/* ---- building a trie from many pairs ---- */

struct entry {
    term key, value;
    uint32_t order0; /* slot_order of the round-0 hash */
    size_t index;    /* position in the input: the later duplicate wins */
};

/* Trie order of two keys below round 0; collisions fall back to term order. */
static int deep_order(term ka, term kb)
{
    for (unsigned round = 1; round < MAP_MAX_LEVEL / 8; round++) {
        uint32_t a = slot_order(key_hash(ka, round)), b = slot_order(key_hash(kb, round));
        if (a != b)
            return a < b ? -1 : 1;
    }
    return term_compare_exact(ka, kb);
}

static int entry_cmp(const void *x, const void *y)
{
    const struct entry *a = x, *b = y;
    if (a->order0 != b->order0)
        return a->order0 < b->order0 ? -1 : 1;
    int c = deep_order(a->key, b->key);
    if (c)
        return c;
    return (a->index > b->index) - (a->index < b->index);
}

static unsigned entry_nibble(const struct entry *e, unsigned level)
{
    if (level < 8)
        return (e->order0 >> (28 - 4 * level)) & 0xFu;
    return key_nibble(e->key, level);
}

/* The node for n >= 2 sorted entries that share their slots above level. */
static term build_node(heap_t *h, const struct entry *e, size_t n, unsigned level, bool head)
{
    term kids[16];
    unsigned count = 0, bitmap = 0;
    if (level == MAP_MAX_LEVEL) {
        /* Sorted in term order by entry_cmp. Never reached in practice. */
        term *p = heap_alloc(h, 1 + n);
        if (!p)
            return THE_NON_VALUE;
        p[0] = make_header_extra(SUBTAG_HASHMAP, n, 0);
        for (size_t i = 0; i < n; i++) /* every word a term before the leaves are made */
            p[1 + i] = NIL;
        for (size_t i = 0; i < n; i++) {
            p[1 + i] = heap_cons(h, e[i].key, e[i].value);
            if (is_non_value(p[1 + i]))
                return THE_NON_VALUE;
        }
        return make_boxed(p);
    }
    for (size_t i = 0; i < n;) {
        unsigned slot = entry_nibble(&e[i], level);
        size_t j = i + 1;
        while (j < n && entry_nibble(&e[j], level) == slot)
            j++;
        term child = j - i == 1 ? heap_cons(h, e[i].key, e[i].value) : build_node(h, e + i, j - i, level + 1, false);
        if (is_non_value(child))
            return THE_NON_VALUE;
        kids[count++] = child;
        bitmap |= 1u << slot;
        i = j;
    }
    return node_build(h, bitmap, kids, count, head, n);
}

/* A map of n pairs, n above the flat limit before duplicates are dropped. */
static term map_from_many(heap_t *h, const term *keys, const term *values, size_t n)
{
    struct entry *e = malloc(n * sizeof *e);
    if (!e) {
        h->failure = HEAP_FAIL_NOMEM;
        return THE_NON_VALUE;
    }
    for (size_t i = 0; i < n; i++) {
        e[i].key = keys[i];
        e[i].value = values[i];
        e[i].order0 = slot_order(key_hash(keys[i], 0));
        e[i].index = i;
    }
    qsort(e, n, sizeof *e, entry_cmp);
    /* Equal keys are now adjacent, in input order: keep the last of each. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && e[i].order0 == e[i + 1].order0 && term_eq_exact(e[i].key, e[i + 1].key))
            continue;
        e[m++] = e[i];
    }
    term result;
    if (m <= MAP_SMALL_LIMIT) {
        term ks[MAP_SMALL_LIMIT], vs[MAP_SMALL_LIMIT];
        size_t k = 0;
        for (size_t i = 0; i < m; i++)
            sorted_insert(ks, vs, &k, e[i].key, e[i].value);
        result = flat_build(h, ks, vs, k);
    } else {
        result = build_node(h, e, m, 0, true);
    }
    free(e);
    return result;
}

term map_from_pairs(heap_t *h, const term *keys, const term *values, size_t n)
{
    if (n > MAP_SMALL_LIMIT)
        return map_from_many(h, keys, values, n);
    term ks[MAP_SMALL_LIMIT], vs[MAP_SMALL_LIMIT];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        sorted_insert(ks, vs, &k, keys[i], values[i]);
    return flat_build(h, ks, vs, k);
}

term map_new_empty(heap_t *h) { return flat_build(h, NULL, NULL, 0); }

/* ---- building a map in portions (map.h: map_build_*) ----
 * The same map as map_from_pairs, by the same order (entry_cmp's, with a
 * stable merge sort standing for the index), in steps of bounded work whose
 * state is all in the work tuple W:
 *   {Stage, Src, Dst, N, A, B, C}
 * Src and Dst are tuples of n entries {Key, Value, Order0} (Order0 a small,
 * the slot_order of the round-0 hash). SORT merges runs of width A from Src
 * into Dst, B and C the next left and right entries of the current pair of
 * runs, then swaps them and doubles A; DEDUP compacts Src in place, A
 * reading and B writing, keeping the last of equal keys; BUILD (N now the
 * distinct keys) adds entry A - 1 to the trie being built in Dst, a stack
 * of the open nodes from the root down (below), by its split level from
 * entry A. Entries hold only the caller's keys and values, made before the
 * tuples and so at least as old: they are written without heap_write; the
 * stack's new nodes and leaves go through it. */
enum { MB_STAGE, MB_SRC, MB_DST, MB_N, MB_A, MB_B, MB_C, MB_WORDS };
enum { MB_SORT, MB_DEDUP, MB_BUILD };
#define MB_ENTRY 3
/* A stack frame: Level, First (the entry the node's subtree starts at),
 * Bitmap, Count, then up to 16 children in slot order; the stack tuple is
 * {Depth, Frame 0 (the root), Frame 1, ...}. */
enum { MB_LEVEL, MB_FIRST, MB_BITMAP, MB_COUNT, MB_KIDS, MB_FRAME = MB_KIDS + 16 };

static term *mb_word(term work, unsigned i) { return &tuple_elements(work)[i]; }
static size_t mb_small(term work, unsigned i) { return (size_t)small_value(*mb_word(work, i)); }
static void mb_set(term work, unsigned i, size_t v) { *mb_word(work, i) = make_small((int64_t)v); }
static term *mb_entry(term entries, size_t i) { return &tuple_elements(entries)[MB_ENTRY * i]; }

term map_build_new(heap_t *h, size_t n)
{
    term src = heap_tuple(h, MB_ENTRY * n, NULL), dst = heap_tuple(h, MB_ENTRY * n, NULL);
    term w[MB_WORDS] = {make_small(MB_SORT),
                        src,
                        dst,
                        make_small((int64_t)n),
                        make_small(1),
                        make_small(0),
                        make_small(n > 1 ? 1 : (int64_t)n)};
    return is_value(src) && is_value(dst) ? heap_tuple(h, MB_WORDS, w) : THE_NON_VALUE;
}

void map_build_set(term work, size_t i, term key, term value)
{
    term *e = mb_entry(*mb_word(work, MB_SRC), i);
    e[0] = key;
    e[1] = value;
    e[2] = make_small((int64_t)slot_order(key_hash(key, 0)));
}

static unsigned mb_nibble(const term *e, unsigned level)
{
    if (level < 8)
        return ((uint32_t)small_value(e[2]) >> (28 - 4 * level)) & 0xFu;
    return key_nibble(e[0], level);
}

/* entry_cmp without the index (the merge is stable). */
static int mb_cmp(const term *a, const term *b)
{
    if (a[2] != b[2])
        return small_value(a[2]) < small_value(b[2]) ? -1 : 1;
    return deep_order(a[0], b[0]);
}

/* The first level at which two distinct keys' slots differ; MAP_MAX_LEVEL
 * when none does (they would share a collision node). */
static unsigned mb_split(const term *a, const term *b)
{
    uint32_t x = (uint32_t)(small_value(a[2]) ^ small_value(b[2]));
    for (unsigned round = 0; round < MAP_MAX_LEVEL / 8; round++) {
        if (round > 0)
            x = slot_order(key_hash(a[0], round)) ^ slot_order(key_hash(b[0], round));
        if (x)
            return 8 * round + (unsigned)__builtin_clz(x) / 4;
    }
    return MAP_MAX_LEVEL;
}

/* Up to limit merge steps; true when the sort is done. */
static bool mb_sort(term work, size_t limit, size_t *units)
{
    size_t n = mb_small(work, MB_N), w = mb_small(work, MB_A), li = mb_small(work, MB_B), ri = mb_small(work, MB_C);
    term src = *mb_word(work, MB_SRC), dst = *mb_word(work, MB_DST);
    size_t done = 0;
    bool sorted = w >= n;
    while (!sorted && done < limit) {
        size_t s = li / (2 * w) * (2 * w), mid = s + w < n ? s + w : n, end = s + 2 * w < n ? s + 2 * w : n;
        term *out = mb_entry(dst, s + (li - s) + (ri - mid));
        const term *from;
        if (li < mid && (ri >= end || mb_cmp(mb_entry(src, li), mb_entry(src, ri)) <= 0))
            from = mb_entry(src, li++);
        else
            from = mb_entry(src, ri++);
        memcpy(out, from, MB_ENTRY * sizeof(term));
        done++;
        if (li == mid && ri == end) {
            li = end;
            if (li >= n) { /* the pass is done */
                term t = src;
                src = dst;
                dst = t;
                w *= 2;
                li = 0;
                sorted = w >= n;
            }
            ri = li + w < n ? li + w : n;
        }
    }
    *mb_word(work, MB_SRC) = src;
    *mb_word(work, MB_DST) = dst;
    mb_set(work, MB_A, w);
    mb_set(work, MB_B, li);
    mb_set(work, MB_C, ri);
    *units += done;
    return sorted;
}

/* Up to limit entries; true when the duplicates are gone (N is then the
 * distinct keys). */
static bool mb_dedup(term work, size_t limit, size_t *units)
{
    size_t n = mb_small(work, MB_N), r = mb_small(work, MB_A), w = mb_small(work, MB_B), done = 0;
    term src = *mb_word(work, MB_SRC);
    for (; r < n && done < limit; r++, done++) {
        const term *e = mb_entry(src, r);
        if (r + 1 < n && e[2] == e[MB_ENTRY + 2] && term_eq_exact(e[0], e[MB_ENTRY]))
            continue;
        memmove(mb_entry(src, w++), e, MB_ENTRY * sizeof(term));
    }
    mb_set(work, MB_A, r);
    mb_set(work, MB_B, w);
    *units += done;
    if (r < n)
        return false;
    mb_set(work, MB_N, w);
    return true;
}

static term *mb_frame(term stack, size_t j) { return &tuple_elements(stack)[1 + j * MB_FRAME]; }

static void mb_push(term stack, unsigned level, size_t first)
{
    term *depth = &tuple_elements(stack)[0];
    term *f = mb_frame(stack, (size_t)small_value(*depth));
    *depth = make_small(small_value(*depth) + 1);
    f[MB_LEVEL] = make_small(level);
    f[MB_FIRST] = make_small((int64_t)first);
    f[MB_BITMAP] = make_small(0);
    f[MB_COUNT] = make_small(0);
}

static void mb_attach(heap_t *h, term *frame, term child, unsigned slot)
{
    int64_t count = small_value(frame[MB_COUNT]);
    heap_write(h, &frame[MB_KIDS + count], child);
    frame[MB_COUNT] = make_small(count + 1);
    frame[MB_BITMAP] = make_small(small_value(frame[MB_BITMAP]) | (1 << slot));
}

/* Closes the open nodes below level d, each wrapped in the single-child
 * nodes of the levels between it and its parent and attached there (a
 * parent at level d is opened when there is none); false when the heap
 * refused. */
static bool mb_close_to(heap_t *h, term entries, term stack, unsigned d)
{
    term *depth = &tuple_elements(stack)[0];
    for (;;) {
        size_t j = (size_t)small_value(*depth) - 1;
        term *top = mb_frame(stack, j);
        unsigned b = (unsigned)small_value(top[MB_LEVEL]);
        if (b <= d)
            return true;
        const term *first = mb_entry(entries, (size_t)small_value(top[MB_FIRST]));
        size_t first_index = (size_t)small_value(top[MB_FIRST]);
        term node = node_build(h, (unsigned)small_value(top[MB_BITMAP]), &top[MB_KIDS],
                               (unsigned)small_value(top[MB_COUNT]), false, 0);
        *depth = make_small((int64_t)j);
        unsigned parent = (unsigned)small_value(mb_frame(stack, j - 1)[MB_LEVEL]);
        if (parent < d) {
            mb_push(stack, d, first_index);
            parent = d;
        }
        for (unsigned level = b; level-- > parent + 1 && is_value(node);)
            node = node_build(h, 1u << mb_nibble(first, level), &node, 1, false, 0);
        if (is_non_value(node))
            return false;
        mb_attach(h, mb_frame(stack, (size_t)small_value(*depth) - 1), node, mb_nibble(first, parent));
    }
}

/* The trie in one piece from the sorted distinct entries, for keys that
 * share a collision node (never met with the real hash). */
static term mb_build_whole(heap_t *h, term entries, size_t n)
{
    struct entry *e = malloc(n * sizeof *e);
    if (!e) {
        h->failure = HEAP_FAIL_NOMEM;
        return THE_NON_VALUE;
    }
    for (size_t i = 0; i < n; i++) {
        const term *x = mb_entry(entries, i);
        e[i] = (struct entry){x[0], x[1], (uint32_t)small_value(x[2]), i};
    }
    term map = build_node(h, e, n, 0, true);
    free(e);
    return map;
}

/* Up to limit entries into the trie; *map when it is done. False when the
 * heap refused. */
static bool mb_build(heap_t *h, term work, size_t limit, size_t *units, term *map)
{
    size_t n = mb_small(work, MB_N), k = mb_small(work, MB_A), done = 0;
    term entries = *mb_word(work, MB_SRC), stack = *mb_word(work, MB_DST);
    for (; k < n && done < limit; k++, done++) {
        const term *pending = mb_entry(entries, k - 1), *next = mb_entry(entries, k);
        unsigned d = mb_split(pending, next);
        if (d == MAP_MAX_LEVEL) {
            *map = mb_build_whole(h, entries, n);
            *units += n;
            return is_value(*map);
        }
        term *top = mb_frame(stack, (size_t)small_value(tuple_elements(stack)[0]) - 1);
        unsigned level = (unsigned)small_value(top[MB_LEVEL]);
        term leaf = heap_cons(h, pending[0], pending[1]);
        if (is_non_value(leaf))
            return false;
        if (d > level) {
            mb_push(stack, d, k - 1);
            mb_attach(h, mb_frame(stack, (size_t)small_value(tuple_elements(stack)[0]) - 1), leaf,
                      mb_nibble(pending, d));
        } else {
            mb_attach(h, top, leaf, mb_nibble(pending, level));
            if (d < level && !mb_close_to(h, entries, stack, d))
                return false;
        }
    }
    mb_set(work, MB_A, k);
    *units += done;
    if (k < n)
        return true;
    const term *last = mb_entry(entries, n - 1);
    term *top = mb_frame(stack, (size_t)small_value(tuple_elements(stack)[0]) - 1);
    term leaf = heap_cons(h, last[0], last[1]);
    if (is_non_value(leaf))
        return false;
    mb_attach(h, top, leaf, mb_nibble(last, (unsigned)small_value(top[MB_LEVEL])));
    if (!mb_close_to(h, entries, stack, 0))
        return false;
    const term *root = mb_frame(stack, 0);
    *map = node_build(h, (unsigned)small_value(root[MB_BITMAP]), &root[MB_KIDS], (unsigned)small_value(root[MB_COUNT]),
                      true, n);
    return is_value(*map);
}

enum map_build_status map_build_portion(heap_t *h, term work, size_t limit, size_t *units, term *map)
{
    *units = 0;
    for (;;) {
        size_t left = limit - *units;
        switch (mb_small(work, MB_STAGE)) {
        case MB_SORT:
            if (!mb_sort(work, left, units))
                return MAP_BUILD_MORE;
            mb_set(work, MB_STAGE, MB_DEDUP);
            mb_set(work, MB_A, 0);
            mb_set(work, MB_B, 0);
            break;
        case MB_DEDUP: {
            if (!mb_dedup(work, left, units))
                return MAP_BUILD_MORE;
            size_t n = mb_small(work, MB_N);
            if (n <= MAP_SMALL_LIMIT) {
                term ks[MAP_SMALL_LIMIT], vs[MAP_SMALL_LIMIT];
                for (size_t i = 0; i < n; i++) {
                    ks[i] = mb_entry(*mb_word(work, MB_SRC), i)[0];
                    vs[i] = mb_entry(*mb_word(work, MB_SRC), i)[1];
                }
                *map = map_from_pairs(h, ks, vs, n);
                return is_value(*map) ? MAP_BUILD_DONE : MAP_BUILD_FAILED;
            }
            /* The stack replaces Dst, no longer needed. */
            term stack = heap_tuple(h, 1 + MAP_MAX_DEPTH * MB_FRAME, NULL);
            if (is_non_value(stack))
                return MAP_BUILD_FAILED;
            tuple_elements(stack)[0] = make_small(0);
            mb_push(stack, 0, 0);
            heap_write(h, mb_word(work, MB_DST), stack);
            mb_set(work, MB_STAGE, MB_BUILD);
            mb_set(work, MB_A, 1);
            break;
        }
        default: /* MB_BUILD */
            *map = THE_NON_VALUE;
            if (!mb_build(h, work, left, units, map))
                return MAP_BUILD_FAILED;
            return is_value(*map) ? MAP_BUILD_DONE : MAP_BUILD_MORE;
        }
        if (*units >= limit)
            return MAP_BUILD_MORE;
    }
}

/* ---- lookup ---- */

/* The leaf holding key, or THE_NON_VALUE. */
static term trie_find(term map, term key)
{
    term node = map;
    unsigned level = 0;
    uint32_t hash = key_hash(key, 0);
    for (;;) {
        term hdr = boxed_header(node);
        unsigned bitmap = header_extra(hdr);
        const term *kids = node_children(node);
        if (bitmap == 0) {
            bool found;
            unsigned i = collision_search(node, key, &found);
            return found ? kids[i] : THE_NON_VALUE;
        }
        unsigned bit = 1u << nibble(hash, level);
        if (!(bitmap & bit))
            return THE_NON_VALUE;
        term child = kids[popcount(bitmap & (bit - 1))];
        if (is_list(child))
            return term_eq_exact(list_head(child), key) ? child : THE_NON_VALUE;
        node = child;
        if (++level % 8 == 0)
            hash = key_hash(key, level / 8);
    }
}

term map_get(term map, term key)
{
    if (!is_flat(map)) {
        term leaf = trie_find(map, key);
        return is_value(leaf) ? list_tail(leaf) : THE_NON_VALUE;
    }
    size_t n = map_size(map);
    const term *keys = flat_keys(map);
    if (is_immed(key)) {
        size_t i = flat_find_immediate(keys, n, key);
        return i < n ? flat_values(map)[i] : THE_NON_VALUE;
    }
    bool found;
    size_t i = flat_search(keys, n, key, &found);
    return found ? flat_values(map)[i] : THE_NON_VALUE;
}

/* ---- update ---- */

struct path_step {
    term node;
    unsigned bit, slot; /* the child taken */
};

/* Rebuilds the path's nodes bottom up around a new child for the last one. */
static term rebuild_path(heap_t *h, const struct path_step *path, size_t depth, term child, int delta)
{
    while (depth > 0 && is_value(child)) {
        const struct path_step *s = &path[--depth];
        child = node_edit(h, s->node, EDIT_REPLACE, s->bit, s->slot, child, delta);
    }
    return child;
}

static term trie_put(heap_t *h, term map, term key, term value)
{
    struct path_step path[MAP_MAX_DEPTH];
    size_t depth = 0;
    term node = map;
    unsigned level = 0;
    uint32_t hash = key_hash(key, 0);
    for (;;) {
        term hdr = boxed_header(node);
        unsigned bitmap = header_extra(hdr);
        term *kids = node_children(node);
        unsigned bit, slot;
        if (bitmap == 0) {
            bool found;
            slot = collision_search(node, key, &found);
            bit = 0;
            if (found && list_tail(kids[slot]) == value)
                return map;
            term leaf = heap_cons(h, key, value);
            if (is_non_value(leaf))
                return THE_NON_VALUE;
            term grown = node_edit(h, node, found ? EDIT_REPLACE : EDIT_INSERT, bit, slot, leaf, found ? 0 : 1);
            return rebuild_path(h, path, depth, grown, found ? 0 : 1);
        }
        bit = 1u << nibble(hash, level);
        slot = popcount(bitmap & (bit - 1));
        if (!(bitmap & bit)) {
            term leaf = heap_cons(h, key, value);
            if (is_non_value(leaf))
                return THE_NON_VALUE;
            return rebuild_path(h, path, depth, node_edit(h, node, EDIT_INSERT, bit, slot, leaf, 1), 1);
        }
        path[depth++] = (struct path_step){node, bit, slot};
        term child = kids[slot];
        if (is_list(child)) {
            if (term_eq_exact(list_head(child), key)) {
                if (list_tail(child) == value)
                    return map;
                term leaf = heap_cons(h, key, value);
                return is_value(leaf) ? rebuild_path(h, path, depth, leaf, 0) : THE_NON_VALUE;
            }
            term leaf = heap_cons(h, key, value);
            if (is_non_value(leaf))
                return THE_NON_VALUE;
            return rebuild_path(h, path, depth, pair_subtree(h, child, leaf, level + 1), 1);
        }
        node = child;
        if (++level % 8 == 0)
            hash = key_hash(key, level / 8);
    }
}

term map_put(heap_t *h, term map, term key, term value)
{
    if (!is_flat(map))
        return trie_put(h, map, key, value);
    size_t n = map_size(map);
    const term *keys = flat_keys(map), *values = flat_values(map);
    bool found;
    size_t i = flat_search(keys, n, key, &found);
    if (found) {
        if (values[i] == value)
            return map;
        /* Same keys: share the key tuple, copy the values. */
        term *p = heap_alloc(h, 3 + n);
        if (!p)
            return THE_NON_VALUE;
        memcpy(p, boxed_ptr(map), (3 + n) * sizeof(term));
        p[3 + i] = value;
        return make_boxed(p);
    }
    term ks[MAP_SMALL_LIMIT + 1], vs[MAP_SMALL_LIMIT + 1];
    memcpy(ks, keys, i * sizeof(term));
    memcpy(vs, values, i * sizeof(term));
    ks[i] = key;
    vs[i] = value;
    memcpy(ks + i + 1, keys + i, (n - i) * sizeof(term));
    memcpy(vs + i + 1, values + i, (n - i) * sizeof(term));
    if (n + 1 <= MAP_SMALL_LIMIT)
        return flat_build(h, ks, vs, n + 1);
    return map_from_many(h, ks, vs, n + 1);
}

/* ---- removal ---- */

/* A large map shrinking to the flat limit: all pairs but the leaf's. */
static term trie_to_flat(heap_t *h, term map, term skip_leaf)
{
    term ks[MAP_SMALL_LIMIT], vs[MAP_SMALL_LIMIT];
    size_t n = 0;
    struct map_iter it;
    term k, v;
    map_iter_init(&it, map);
    while (map_iter_next(&it, &k, &v))
        if (k != list_head(skip_leaf)) /* keys are unique, so the word tells */
            sorted_insert(ks, vs, &n, k, v);
    return flat_build(h, ks, vs, n);
}

static term trie_remove(heap_t *h, term map, term key)
{
    struct path_step path[MAP_MAX_DEPTH];
    size_t depth = 0;
    term node = map;
    unsigned level = 0;
    uint32_t hash = key_hash(key, 0);
    for (;;) {
        term hdr = boxed_header(node);
        unsigned bitmap = header_extra(hdr);
        const term *kids = node_children(node);
        unsigned bit = 0, slot;
        if (bitmap == 0) {
            bool found;
            slot = collision_search(node, key, &found);
            if (!found)
                return map;
        } else {
            bit = 1u << nibble(hash, level);
            if (!(bitmap & bit))
                return map;
            slot = popcount(bitmap & (bit - 1));
        }
        term child = kids[slot];
        path[depth++] = (struct path_step){node, bit, slot};
        if (is_list(child)) {
            if (!term_eq_exact(list_head(child), key))
                return map;
            if (map_size(map) - 1 <= MAP_SMALL_LIMIT)
                return trie_to_flat(h, map, child);
            break;
        }
        node = child;
        if (++level % 8 == 0)
            hash = key_hash(key, level / 8);
    }
    /* Remove the leaf from the bottom node; a node left with one leaf and
     * nothing else collapses into that leaf, up the path. */
    const struct path_step *s = &path[--depth];
    term hdr = boxed_header(s->node);
    term result;
    if (!node_is_head(hdr) && node_count(hdr) == 2 && is_list(node_children(s->node)[1 - s->slot]))
        result = node_children(s->node)[1 - s->slot];
    else
        result = node_edit(h, s->node, EDIT_REMOVE, s->bit, s->slot, THE_NON_VALUE, -1);
    while (depth > 0 && is_value(result)) {
        s = &path[--depth];
        hdr = boxed_header(s->node);
        if (is_list(result) && !node_is_head(hdr) && node_count(hdr) == 1)
            continue;
        result = node_edit(h, s->node, EDIT_REPLACE, s->bit, s->slot, result, -1);
    }
    return result;
}

term map_remove(heap_t *h, term map, term key)
{
    if (!is_flat(map))
        return trie_remove(h, map, key);
    size_t n = map_size(map);
    const term *keys = flat_keys(map), *values = flat_values(map);
    bool found;
    size_t i = flat_search(keys, n, key, &found);
    if (!found)
        return map;
    term ks[MAP_SMALL_LIMIT], vs[MAP_SMALL_LIMIT];
    memcpy(ks, keys, i * sizeof(term));
    memcpy(vs, values, i * sizeof(term));
    memcpy(ks + i, keys + i + 1, (n - i - 1) * sizeof(term));
    memcpy(vs + i, values + i + 1, (n - i - 1) * sizeof(term));
    return flat_build(h, ks, vs, n - 1);
}

/* ---- iteration ---- */

void map_iter_init(struct map_iter *it, term map)
{
    it->map = map;
    it->pos = 0;
    it->depth = 0;
    it->reverse = false;
    if (!is_flat(map)) {
        it->stack[0] = map;
        it->index[0] = node_count(boxed_header(map));
        it->depth = 1;
    }
}

/* pos counts the flat pairs still to give, index[d] a node's next child:
 * each runs the other way. */
void map_iter_init_reverse(struct map_iter *it, term map)
{
    it->map = map;
    it->pos = is_flat(map) ? map_size(map) : 0;
    it->depth = 0;
    it->reverse = true;
    if (!is_flat(map)) {
        it->stack[0] = map;
        it->index[0] = 0;
        it->depth = 1;
    }
}

static bool map_iter_prev(struct map_iter *it, term *key, term *value)
{
    if (is_flat(it->map)) {
        if (it->pos == 0)
            return false;
        it->pos--;
        *key = flat_keys(it->map)[it->pos];
        *value = flat_values(it->map)[it->pos];
        return true;
    }
    /* Depth first, each node's children from the first to the last. */
    while (it->depth > 0) {
        size_t d = it->depth - 1;
        if (it->index[d] == node_count(boxed_header(it->stack[d]))) {
            it->depth--;
            continue;
        }
        term child = node_children(it->stack[d])[it->index[d]++];
        if (is_list(child)) {
            *key = list_head(child);
            *value = list_tail(child);
            return true;
        }
        it->stack[it->depth] = child;
        it->index[it->depth] = 0;
        it->depth++;
    }
    return false;
}

bool map_iter_next(struct map_iter *it, term *key, term *value)
{
    if (it->reverse)
        return map_iter_prev(it, key, value);
    if (is_flat(it->map)) {
        if (it->pos >= map_size(it->map))
            return false;
        *key = flat_keys(it->map)[it->pos];
        *value = flat_values(it->map)[it->pos];
        it->pos++;
        return true;
    }
    /* Depth first, each node's children from the last to the first. */
    while (it->depth > 0) {
        size_t d = it->depth - 1;
        if (it->index[d] == 0) {
            it->depth--;
            continue;
        }
        term child = node_children(it->stack[d])[--it->index[d]];
        if (is_list(child)) {
            *key = list_head(child);
            *value = list_tail(child);
            return true;
        }
        it->stack[it->depth] = child;
        it->index[it->depth] = node_count(boxed_header(child));
        it->depth++;
    }
    return false;
}

static unsigned path_nibble(const uint64_t path[MAP_PATH_LIMBS], size_t level)
{
    return (unsigned)(path[level / 16] >> (4 * (level % 16))) & 0xFu;
}

bool map_iter_at_path(struct map_iter *it, term map, const uint64_t path[MAP_PATH_LIMBS])
{
    map_iter_init_reverse(it, map);
    term node = map;
    for (size_t d = 0;; d++) {
        unsigned i = path_nibble(path, d);
        if (i >= node_count(boxed_header(node)))
            return false;
        term child = node_children(node)[i];
        it->stack[d] = node;
        it->depth = d + 1;
        if (is_list(child)) {
            it->index[d] = i; /* map_iter_prev gives this leaf next */
            return true;
        }
        it->index[d] = i + 1;
        node = child;
    }
}

bool map_iter_path(const struct map_iter *it, uint64_t path[MAP_PATH_LIMBS])
{
    size_t depth = it->depth;
    /* Levels whose children are all given are done. */
    while (depth > 0 && it->index[depth - 1] == node_count(boxed_header(it->stack[depth - 1])))
        depth--;
    if (depth == 0)
        return false;
    memset(path, 0, MAP_PATH_LIMBS * sizeof path[0]);
    for (size_t d = 0; d < depth; d++) {
        /* Above the deepest level the child being walked is the one before
         * index; at it, index is the next child. */
        uint64_t i = d + 1 < depth ? it->index[d] - 1 : it->index[d];
        path[d / 16] |= i << (4 * (d % 16));
    }
    return true;
}

/* {Map, Pos, Depth, Reverse, Node0, Index0, Node1, Index1, ...} */
term map_iter_save(heap_t *h, const struct map_iter *it)
{
    term t = heap_tuple(h, 4 + 2 * it->depth, NULL);
    if (is_non_value(t))
        return t;
    term *el = tuple_elements(t);
    el[0] = it->map;
    el[1] = make_small((int64_t)it->pos);
    el[2] = make_small((int64_t)it->depth);
    el[3] = make_small(it->reverse);
    for (size_t d = 0; d < it->depth; d++) {
        el[4 + 2 * d] = it->stack[d];
        el[5 + 2 * d] = make_small(it->index[d]);
    }
    return t;
}

void map_iter_restore(term saved, struct map_iter *it)
{
    const term *el = tuple_elements(saved);
    it->map = el[0];
    it->pos = (size_t)small_value(el[1]);
    it->depth = (size_t)small_value(el[2]);
    it->reverse = small_value(el[3]) != 0;
    for (size_t d = 0; d < it->depth; d++) {
        it->stack[d] = el[4 + 2 * d];
        it->index[d] = (unsigned)small_value(el[5 + 2 * d]);
    }
}

int map_hash_order(term ka, term kb)
{
    for (unsigned round = 0; round < MAP_MAX_LEVEL / 8; round++) {
        uint32_t a = slot_order(key_hash(ka, round)), b = slot_order(key_hash(kb, round));
        if (a != b)
            return a > b ? -1 : 1; /* higher slots come first */
    }
    return 0;
}
