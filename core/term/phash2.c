/*
 * phash2.c — OTP's make_hash2 (see phash2.h). The term is walked with an
 * explicit stack, in the order erts walks it, since the value depends on
 * the order: a list's byte run is hashed four bytes at a time, a tuple's
 * arity before its elements, a map's pairs each from a zero hash and
 * combined by xor (so iteration order does not matter), binaries with Bob
 * Jenkins' block hash. The walk runs in portions for erlang:phash2/1,2
 * (below).
 */
#include "term/phash2.h"
#include "term/bytes.h"
#include "term/lookup2.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/map.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HCONST is the golden ratio; HCONST_N is N * HCONST mod 2^32. */
#define HCONST LOOKUP2_GOLDEN
#define HCONST_2 0x3c6ef372u
#define HCONST_3 0xdaa66d2bu
#define HCONST_4 0x78dde6e4u
#define HCONST_5 0x1715609du
#define HCONST_6 0xb54cda56u
#define HCONST_7 0x5384540fu
#define HCONST_9 0x8ff34781u
#define HCONST_10 0x2e2ac13au
#define HCONST_11 0xcc623af3u
#define HCONST_12 0x6a99b4acu
#define HCONST_13 0x08d12e65u
#define HCONST_14 0xa708a81eu
#define HCONST_15 0x454021d7u
#define HCONST_16 0xe3779b90u
#define HCONST_19 0xbe1e08bbu

/* The hash of [] when nothing was hashed before it, and erts' tag number of
 * [] otherwise. */
#define NIL_FIRST_HASH 3468870702u
#define NIL_TAG_NUMBER 2u

static void hash_pair(uint32_t *hash, uint32_t x, uint32_t y, uint32_t constant)
{
    uint32_t a = constant + x, b = constant + y;
    lookup2_mix(&a, &b, hash);
}

static void hash_one(uint32_t *hash, uint32_t x, uint32_t constant) { hash_pair(hash, x, 0, constant); }

/* erts' atom hash: hashpjw over the name's Latin-1 characters (a two-byte
 * UTF-8 sequence for 128..255 counts as one character). */
uint32_t atom_hash(term atom)
{
    size_t n;
    const uint8_t *p = (const uint8_t *)atom_text(atom, &n);
    uint32_t h = 0;
    while (n--) {
        uint32_t v = *p++;
        if (n && (v & 0xFE) == 0xC2 && (*p & 0xC0) == 0x80) {
            v = ((v << 6) | (*p & 0x3F)) & 0xFF;
            p++;
            n--;
        }
        h = (h << 4) + v;
        uint32_t g = h & 0xf0000000u;
        if (g) {
            h ^= g >> 24;
            h ^= g;
        }
    }
    return h;
}

/* ---- the walk, in portions ----
 * The stack holds terms to hash, markers closing a map pair or a whole map
 * (whose saved hash and xor the item keeps), and cursors: a list's byte
 * run (its next cell, the bytes packed so far and their count), a tuple's
 * next element, a map's iterator, a binary's block hash (its bytes done
 * and lookup2's three words). Cursors keep the stack as deep as the term's
 * nesting, not its size. A portion stops after the work units it was given
 * and saves the stack on the heap as a list of tuples {Kind, T, I, X, Y,
 * Z} (a map's iterator as T, map_iter_save's tuple), so that the collector
 * may move what it refers to; the next portion takes the items back one
 * at a time, as it needs them. */

enum item_kind { ITEM_TERM, ITEM_PAIR_END, ITEM_MAP_END, ITEM_BYTES, ITEM_TUPLE, ITEM_MAP, ITEM_BINARY };

struct item {
    uint32_t kind;
    term t;
    uint64_t i;
    uint32_t x, y, z;      /* ITEM_MAP_END: the saved hash and xor; ITEM_BYTES: packed, count; ITEM_BINARY: a, b, c */
    struct map_iter *iter; /* ITEM_MAP's, malloc'd */
};

struct walk {
    struct item *items;
    size_t n, cap;
    term saved;
    heap_t *heap;
    uint32_t hash, xor_pairs;
    size_t units, limit;
    bool nomem;
};

/* OTP's BLOCK_HASH_BYTES_PER_ITER: a binary's work unit is a block. */
#define BLOCK_BYTES 12

static struct item *push(struct walk *w, struct item it)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 32;
        struct item *grown = realloc(w->items, cap * sizeof *grown);
        if (!grown) {
            /* As the printer does: a hash cannot report a failure. */
            fputs("clause: out of memory while hashing a term\n", stderr);
            abort();
        }
        w->items = grown, w->cap = cap;
    }
    w->items[w->n] = it;
    return &w->items[w->n++];
}

static void push_term(struct walk *w, term t) { push(w, (struct item){ITEM_TERM, t, 0, 0, 0, 0, NULL}); }

static void hash_small(uint32_t *hash, int64_t v)
{
    if (v >= -(INT64_C(1) << 27) && v < (INT64_C(1) << 27)) {
        int32_t y = (int32_t)v;
        if (y < 0)
            hash_one(hash, (uint32_t)-y, HCONST); /* OTP mixes a negative twice */
        hash_one(hash, (uint32_t)y, HCONST);
        return;
    }
    uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    hash_pair(hash, (uint32_t)magnitude, (uint32_t)(magnitude >> 32), v < 0 ? HCONST_10 : HCONST_11);
}

/* The binary at the top (ITEM_BINARY): lookup2's blocks (lookup2_bytes,
 * a step at a time) as far as the units left pay for, then its end. */
static void hash_binary_step(struct walk *w)
{
    struct item *it = &w->items[w->n - 1];
    const uint8_t *data;
    size_t size;
    unsigned bits;
    bin_bytes(it->t, &data, &size, &bits);
    size_t n = size & 0xFFFFFFFFu; /* OTP truncates the byte count to 32 bits */
    uint32_t a = it->x, b = it->y, c = it->z;
    size_t at = (size_t)it->i;
    for (; n - at >= BLOCK_BYTES; at += BLOCK_BYTES) {
        if (w->units >= w->limit) {
            it->i = at, it->x = a, it->y = b, it->z = c;
            return;
        }
        a += load_le32(data + at);
        b += load_le32(data + at + 4);
        c += load_le32(data + at + 8);
        lookup2_mix(&a, &b, &c);
        w->units++;
    }
    c += (uint32_t)n;
    for (size_t i = 0; i < n - at; i++) {
        if (i < 4)
            a += (uint32_t)data[at + i] << (8 * i);
        else if (i < 8)
            b += (uint32_t)data[at + i] << (8 * (i - 4));
        else
            c += (uint32_t)data[at + i] << (8 * (i - 7));
    }
    lookup2_mix(&a, &b, &c);
    w->hash = c;
    if (bits)
        hash_pair(&w->hash, bits, (uint32_t)(data[size] >> (8 - bits)), HCONST_15);
    w->n--;
}

static void hash_bitstring(struct walk *w, term t)
{
    const uint8_t *data;
    size_t size;
    unsigned bits;
    bin_bytes(t, &data, &size, &bits);
    uint32_t seed = HCONST_13 + w->hash;
    if (size == 0 && bits == 0) {
        w->hash = seed;
        return;
    }
    push(w, (struct item){ITEM_BINARY, t, 0, LOOKUP2_GOLDEN, LOOKUP2_GOLDEN, seed, NULL});
    hash_binary_step(w);
}

static void hash_term(struct walk *w, term t);

/* A term whose hash pushes nothing on the stack. */
static bool is_leaf(term t)
{
    return !is_list(t) && !is_tuple(t) && !is_map(t) && !is_local_fun(t) && !is_bitstring(t);
}

/* The byte run of the list at the top (ITEM_BYTES): its bytes four at a
 * time, as far as the units left pay for; at its end, what follows it. */
static void hash_bytes_step(struct walk *w)
{
    struct item *it = &w->items[w->n - 1];
    term rest = it->t;
    uint32_t packed = it->x, count = it->y;
    for (;;) {
        for (; is_list(rest) && is_small(list_head(rest)) && small_value(list_head(rest)) >= 0 &&
               small_value(list_head(rest)) <= 255;
             rest = list_tail(rest)) {
            if (w->units >= w->limit) {
                it->t = rest, it->x = packed, it->y = count;
                return;
            }
            packed = (packed << 8) + (uint32_t)small_value(list_head(rest));
            if (++count == 4) {
                hash_one(&w->hash, packed, HCONST_4);
                count = 0, packed = 0;
            }
            w->units++;
        }
        if (count > 0)
            hash_one(&w->hash, packed, HCONST_4);
        count = 0, packed = 0;
        /* A head that pushes nothing (an integer, atom, float...) is hashed
         * here and its tail starts a new run, as erts does after hashing
         * the head: the same order without a push and pop per element, and
         * the same two units (the head, then the tail's restart). */
        if (!is_list(rest) || !is_leaf(list_head(rest)))
            break;
        if (w->units >= w->limit) {
            it->t = rest, it->x = 0, it->y = 0;
            return;
        }
        hash_term(w, list_head(rest));
        w->units++;
        rest = list_tail(rest);
    }
    w->n--;
    if (is_list(rest)) {
        push_term(w, list_tail(rest));
        push_term(w, list_head(rest));
    } else {
        push_term(w, rest);
    }
}

/* Hashes t (continuing w->hash); containers push what follows. */
static void hash_term(struct walk *w, term t)
{
    uint32_t *hash = &w->hash;
    w->units++;
    if (is_list(t)) {
        push(w, (struct item){ITEM_BYTES, t, 0, 0, 0, 0, NULL});
        hash_bytes_step(w);
    } else if (is_tuple(t)) {
        uint64_t arity = tuple_arity(t);
        hash_one(hash, (uint32_t)arity, HCONST_9);
        if (arity > 0)
            push(w, (struct item){ITEM_TUPLE, t, 1, 0, 0, 0, NULL});
    } else if (is_map(t)) {
        size_t n = map_size(t);
        hash_one(hash, (uint32_t)n, HCONST_16);
        if (n == 0)
            return;
        push(w, (struct item){ITEM_MAP_END, NIL, 0, *hash, w->xor_pairs, 0, NULL});
        *hash = 0, w->xor_pairs = 0;
        struct map_iter *iter = malloc(sizeof *iter);
        if (!iter) {
            fputs("clause: out of memory while hashing a term\n", stderr);
            abort();
        }
        map_iter_init(iter, t);
        push(w, (struct item){ITEM_MAP, t, 0, 0, 0, 0, iter});
    } else if (is_local_fun(t)) {
        const struct fun_entry *fe = fun_entry_of(t);
        uint64_t num_free = fun_num_free(t);
        hash_pair(hash, (uint32_t)num_free, atom_hash(fe->module), HCONST);
        hash_pair(hash, fe->index, fe->old_uniq, HCONST);
        for (uint64_t i = num_free; i-- > 0;)
            push_term(w, fun_free_var(t, i));
    } else if (is_export(t)) {
        const term *x = boxed_ptr(t);
        hash_pair(hash, (uint32_t)small_value(x[3]), atom_hash(x[1]), HCONST);
        hash_one(hash, atom_hash(x[2]), HCONST_14);
    } else if (is_bitstring(t)) {
        hash_bitstring(w, t);
    } else if (is_bignum(t)) {
        const uint64_t *limbs = big_limbs(t);
        uint32_t constant = big_is_negative(t) ? HCONST_10 : HCONST_11;
        for (uint64_t i = 0; i < big_limb_count(t); i++)
            hash_pair(hash, (uint32_t)limbs[i], (uint32_t)(limbs[i] >> 32), constant);
        w->units += big_limb_count(t);
    } else if (is_float(t)) {
        double d = float_value(t);
        if (d == 0.0)
            d = 0.0; /* -0.0 hashes as 0.0 */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        hash_pair(hash, (uint32_t)(bits >> 32), (uint32_t)bits, HCONST_12);
    } else if (is_small(t)) {
        hash_small(hash, small_value(t));
    } else if (is_atom(t)) {
        if (*hash == 0)
            *hash = atom_hash(t);
        else
            hash_one(hash, atom_hash(t), HCONST_3);
    } else if (is_nil(t)) {
        if (*hash == 0)
            *hash = NIL_FIRST_HASH;
        else
            hash_one(hash, NIL_TAG_NUMBER, HCONST_2);
    } else if (is_pid(t)) {
        hash_one(hash, (uint32_t)pid_number(t), HCONST_5);
    } else if (is_port(t)) {
        uint64_t number = port_number(t);
        hash_pair(hash, (uint32_t)number, (uint32_t)(number >> 32), HCONST_6);
    } else if (is_ref(t)) {
        hash_one(hash, (uint32_t)ref_id_low(t), HCONST_7);
    }
}

/* Moves the stack onto the saved list, its top first; false when the heap
 * refused. */
static bool save_items(struct walk *w)
{
    for (size_t k = 0; k < w->n; k++) {
        struct item *it = &w->items[k];
        term t = it->kind == ITEM_MAP ? map_iter_save(w->heap, it->iter) : it->t;
        term el[6] = {make_small(it->kind), t, make_small((int64_t)it->i), make_small(it->x), make_small(it->y),
                      make_small(it->z)};
        term tuple = is_value(t) ? heap_tuple(w->heap, 6, el) : t;
        term cell = is_value(tuple) ? heap_cons(w->heap, tuple, w->saved) : tuple;
        if (is_non_value(cell))
            return false;
        w->saved = cell;
    }
    return true;
}

static void restore_item(struct walk *w)
{
    const term *el = tuple_elements(list_head(w->saved));
    struct item *it = push(w, (struct item){(uint32_t)small_value(el[0]), el[1], (uint64_t)small_value(el[2]),
                                            (uint32_t)small_value(el[3]), (uint32_t)small_value(el[4]),
                                            (uint32_t)small_value(el[5]), NULL});
    w->saved = list_tail(w->saved);
    if (it->kind == ITEM_MAP) {
        it->iter = malloc(sizeof *it->iter);
        if (!it->iter) {
            fputs("clause: out of memory while hashing a term\n", stderr);
            abort();
        }
        map_iter_restore(it->t, it->iter);
        it->t = it->iter->map;
    }
}

static void walk(struct walk *w)
{
    while (w->units < w->limit) {
        if (w->n == 0) {
            if (w->saved == NIL)
                return;
            restore_item(w);
        }
        struct item *it = &w->items[w->n - 1];
        switch (it->kind) {
        case ITEM_TERM: {
            term t = it->t;
            w->n--;
            hash_term(w, t);
            break;
        }
        case ITEM_PAIR_END:
            w->n--;
            w->xor_pairs ^= w->hash;
            w->hash = 0;
            break;
        case ITEM_MAP_END:
            w->n--;
            w->hash = it->x;
            hash_one(&w->hash, w->xor_pairs, HCONST_19);
            w->xor_pairs = it->y;
            break;
        case ITEM_BYTES:
            hash_bytes_step(w);
            break;
        case ITEM_BINARY:
            hash_binary_step(w);
            break;
        case ITEM_TUPLE: {
            term e = tuple_element(it->t, it->i);
            if (it->i == tuple_arity(it->t))
                w->n--;
            else
                it->i++;
            w->units++;
            hash_term(w, e);
            break;
        }
        case ITEM_MAP: {
            term k, v;
            if (!map_iter_next(it->iter, &k, &v)) {
                free(it->iter);
                w->n--;
                break;
            }
            /* Each pair from a zero hash (the previous pair's end reset
             * it), combined by xor: the order of pairs does not matter. */
            push(w, (struct item){ITEM_PAIR_END, NIL, 0, 0, 0, 0, NULL});
            push_term(w, v);
            w->units++;
            hash_term(w, k);
            break;
        }
        }
    }
}

enum phash2_status phash2_portion(heap_t *h, struct phash2_run *run, size_t limit, size_t *units)
{
    struct walk w = {NULL, 0, 0, run->saved, h, run->hash, run->xor_pairs, 0, limit, false};
    if (is_value(run->first)) {
        push_term(&w, run->first);
        run->first = THE_NON_VALUE;
    }
    walk(&w);
    bool done = w.n == 0 && w.saved == NIL;
    bool ok = done || save_items(&w);
    for (size_t k = 0; k < w.n; k++)
        free(w.items[k].iter);
    free(w.items);
    *units = w.units;
    run->saved = w.saved;
    run->hash = w.hash;
    run->xor_pairs = w.xor_pairs;
    return !ok ? PHASH2_NOMEM : done ? PHASH2_DONE : PHASH2_MORE;
}

uint32_t phash2_hash(term t)
{
    struct phash2_run run = {t, NIL, 0, 0};
    size_t units;
    phash2_portion(NULL, &run, SIZE_MAX, &units);
    return run.hash;
}
