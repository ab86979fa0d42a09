/*
 * phash2.c — OTP's make_hash2 (see phash2.h). The term is walked with an
 * explicit stack, in the order erts walks it, since the value depends on
 * the order: a list's byte run is hashed four bytes at a time, a tuple's
 * arity before its elements, a map's pairs each from a zero hash and
 * combined by xor (so iteration order does not matter), binaries with Bob
 * Jenkins' block hash.
 */
#include "term/phash2.h"
#include "term/lookup2.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/map.h"

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

/* What the stack holds: a term to hash, or a marker closing a map pair or a
 * whole map (whose saved hash and xor follow it). */
enum item_kind { ITEM_TERM, ITEM_PAIR_END, ITEM_MAP_END };

struct item {
    enum item_kind kind;
    term t;
    uint32_t saved_hash, saved_xor;
};

struct stack {
    struct item *items;
    size_t n, cap;
};

static void push(struct stack *s, struct item it)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        struct item *grown = realloc(s->items, cap * sizeof *grown);
        if (!grown) {
            /* As the printer does: a hash cannot report a failure. */
            fputs("clause: out of memory while hashing a term\n", stderr);
            abort();
        }
        s->items = grown, s->cap = cap;
    }
    s->items[s->n++] = it;
}

static void push_term(struct stack *s, term t) { push(s, (struct item){ITEM_TERM, t, 0, 0}); }

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

static void hash_bitstring(uint32_t *hash, term t)
{
    const uint8_t *data;
    size_t size;
    unsigned bits;
    bin_bytes(t, &data, &size, &bits);
    uint32_t seed = HCONST_13 + *hash;
    if (size == 0 && bits == 0) {
        *hash = seed;
        return;
    }
    /* OTP truncates the byte count to 32 bits. */
    *hash = lookup2_bytes(data, size & 0xFFFFFFFFu, seed);
    if (bits)
        hash_pair(hash, bits, (uint32_t)(data[size] >> (8 - bits)), HCONST_15);
}

/* Hashes t (continuing *hash); containers push their parts on s. */
static void hash_term(struct stack *s, uint32_t *hash, uint32_t *xor_pairs, term t)
{
    for (;;) {
        if (is_list(t)) {
            uint32_t packed = 0;
            int count = 0;
            term rest = t;
            for (; is_list(rest) && is_small(list_head(rest)) && small_value(list_head(rest)) >= 0 &&
                   small_value(list_head(rest)) <= 255;
                 rest = list_tail(rest)) {
                packed = (packed << 8) + (uint32_t)small_value(list_head(rest));
                if (++count == 4) {
                    hash_one(hash, packed, HCONST_4);
                    count = 0, packed = 0;
                }
            }
            if (count > 0)
                hash_one(hash, packed, HCONST_4);
            if (is_list(rest)) {
                push_term(s, list_tail(rest));
                t = list_head(rest);
            } else {
                t = rest;
            }
            continue;
        }
        if (is_tuple(t)) {
            uint64_t arity = tuple_arity(t);
            hash_one(hash, (uint32_t)arity, HCONST_9);
            if (arity == 0)
                return;
            for (uint64_t i = arity; i > 1; i--)
                push_term(s, tuple_element(t, i));
            t = tuple_element(t, 1);
            continue;
        }
        if (is_map(t)) {
            size_t n = map_size(t);
            hash_one(hash, (uint32_t)n, HCONST_16);
            if (n == 0)
                return;
            push(s, (struct item){ITEM_MAP_END, 0, *hash, *xor_pairs});
            *hash = 0, *xor_pairs = 0;
            struct map_iter it;
            map_iter_init(&it, t);
            term k, v;
            while (map_iter_next(&it, &k, &v)) {
                push(s, (struct item){ITEM_PAIR_END, 0, 0, 0});
                push_term(s, v);
                push_term(s, k);
            }
            return;
        }
        if (is_local_fun(t)) {
            const struct fun_entry *fe = fun_entry_of(t);
            uint64_t num_free = fun_num_free(t);
            hash_pair(hash, (uint32_t)num_free, atom_hash(fe->module), HCONST);
            hash_pair(hash, fe->index, fe->old_uniq, HCONST);
            if (num_free == 0)
                return;
            for (uint64_t i = num_free; i-- > 1;)
                push_term(s, fun_free_var(t, i));
            t = fun_free_var(t, 0);
            continue;
        }
        if (is_export(t)) {
            const term *w = boxed_ptr(t);
            hash_pair(hash, (uint32_t)small_value(w[3]), atom_hash(w[1]), HCONST);
            hash_one(hash, atom_hash(w[2]), HCONST_14);
            return;
        }
        if (is_bitstring(t)) {
            hash_bitstring(hash, t);
            return;
        }
        if (is_bignum(t)) {
            const uint64_t *limbs = big_limbs(t);
            uint32_t constant = big_is_negative(t) ? HCONST_10 : HCONST_11;
            for (uint64_t i = 0; i < big_limb_count(t); i++)
                hash_pair(hash, (uint32_t)limbs[i], (uint32_t)(limbs[i] >> 32), constant);
            return;
        }
        if (is_float(t)) {
            double d = float_value(t);
            if (d == 0.0)
                d = 0.0; /* -0.0 hashes as 0.0 */
            uint64_t bits;
            memcpy(&bits, &d, sizeof bits);
            hash_pair(hash, (uint32_t)(bits >> 32), (uint32_t)bits, HCONST_12);
            return;
        }
        if (is_small(t)) {
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
        return;
    }
}

uint32_t phash2_hash(term t)
{
    struct stack s = {NULL, 0, 0};
    uint32_t hash = 0, xor_pairs = 0;
    push_term(&s, t);
    while (s.n) {
        struct item it = s.items[--s.n];
        switch (it.kind) {
        case ITEM_TERM:
            hash_term(&s, &hash, &xor_pairs, it.t);
            break;
        case ITEM_PAIR_END:
            xor_pairs ^= hash;
            hash = 0;
            break;
        case ITEM_MAP_END:
            hash = it.saved_hash;
            hash_one(&hash, xor_pairs, HCONST_19);
            xor_pairs = it.saved_xor;
            break;
        }
    }
    free(s.items);
    return hash;
}
