/*
 * phash.c — make_hash, erlang:phash/2's hash (see phash.h).
 *
 * Every step multiplies the hash by one of fourteen primes just above 2^28
 * and adds a part of the term; only + and * are used, so computing modulo
 * 2^32 gives what erts computes in a wider word and then truncates. The
 * term is walked with an explicit stack, so depth uses no C stack.
 */
#include "term/phash.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/map.h"
#include "term/phash2.h"

#include <stdlib.h>
#include <string.h>

enum {
    PRIME1 = 268440163,
    PRIME2 = 268439161,
    PRIME3 = 268435459,
    PRIME4 = 268436141,
    PRIME5 = 268438633,
    PRIME6 = 268437017,
    PRIME8 = 268437511,
    PRIME9 = 268439627,
    PRIME10 = 268440479,
    PRIME11 = 268440577,
    PRIME12 = 268440581,
    PRIME13 = 268440593,
    PRIME14 = 268440611,
};

/* What the stack holds: a term to hash; the rest of a tuple's or a fun's
 * elements; a list's tail; the step that closes a list. */
enum item_kind { ITEM_TERM, ITEM_ELEMENTS, ITEM_TUPLE_END, ITEM_TAIL, ITEM_LIST_END };

struct item {
    enum item_kind kind;
    term t;               /* ITEM_TERM, ITEM_TAIL */
    const term *elements; /* ITEM_ELEMENTS */
    uint64_t count;       /* ITEM_ELEMENTS: left; ITEM_TUPLE_END: the arity */
};

struct stack {
    struct item *items;
    size_t depth, capacity;
};

static void push(struct stack *s, struct item it)
{
    if (s->depth == s->capacity) {
        size_t capacity = s->capacity ? 2 * s->capacity : 32;
        struct item *grown = realloc(s->items, capacity * sizeof *grown);
        if (!grown)
            abort(); /* the runtime's own bookkeeping, as strbuf's */
        s->items = grown;
        s->capacity = capacity;
    }
    s->items[s->depth++] = it;
}

/* A 32-bit word, low byte first. */
static uint32_t hash_word(uint32_t hash, uint32_t x, uint32_t prime)
{
    for (int i = 0; i < 4; i++)
        hash = hash * prime + (x >> (8 * i) & 0xff);
    return hash;
}

/* A magnitude's low word, then its high word when it has one. */
static uint32_t hash_magnitude(uint32_t hash, uint64_t magnitude)
{
    hash = hash_word(hash, (uint32_t)magnitude, PRIME2);
    if (magnitude >> 32)
        hash = hash_word(hash, (uint32_t)(magnitude >> 32), PRIME2);
    return hash;
}

static uint32_t hash_bitstring(uint32_t hash, term t)
{
    const uint8_t *bytes;
    size_t size;
    unsigned bits;
    bin_bytes(t, &bytes, &size, &bits);
    for (size_t i = 0; i < size; i++)
        hash = hash * PRIME1 + bytes[i];
    if (bits)
        hash = (hash * PRIME1 + (uint32_t)(bytes[size] >> (8 - bits))) * PRIME12 + bits;
    return hash * PRIME4 + (uint32_t)size;
}

static bool is_byte(term t) { return is_small(t) && small_value(t) >= 0 && small_value(t) <= 255; }

/* Hashes t's own part; pushes what is hashed after it. */
static uint32_t hash_one(struct stack *s, uint32_t hash, term t)
{
    if (t == NIL)
        return hash * PRIME3 + 1;
    if (is_atom(t))
        return hash * PRIME1 + atom_hash(t);
    if (is_small(t)) {
        int64_t v = small_value(t);
        hash = hash_magnitude(hash, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
        return hash * (v < 0 ? PRIME4 : PRIME3);
    }
    if (is_bignum(t)) {
        /* Every limb's eight bytes, the last limb's four when its high half is zero. */
        const uint64_t *limbs = big_limbs(t);
        uint64_t n = big_limb_count(t);
        for (uint64_t i = 0; i + 1 < n; i++)
            for (int j = 0; j < 8; j++)
                hash = hash * PRIME2 + (uint32_t)(limbs[i] >> (8 * j) & 0xff);
        hash = hash_magnitude(hash, limbs[n - 1]);
        return hash * (big_is_negative(t) ? PRIME4 : PRIME3);
    }
    if (is_float(t)) {
        double d = float_value(t);
        if (d == 0.0)
            d = 0.0; /* -0.0 hashes as 0.0 */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return hash * PRIME6 + ((uint32_t)bits ^ (uint32_t)(bits >> 32));
    }
    if (is_bitstring(t))
        return hash_bitstring(hash, t);
    if (is_pid(t))
        return hash_word(hash, (uint32_t)pid_number(t), PRIME5) * PRIME6;
    if (is_port(t))
        return hash_word(hash, (uint32_t)port_number(t), PRIME9) * PRIME10;
    if (is_ref(t))
        return hash_word(hash, (uint32_t)ref_id_low(t), PRIME9) * PRIME10;
    if (is_map(t))
        return hash * PRIME13 + PRIME14 + phash2_hash(t);
    if (is_export(t)) {
        const term *w = boxed_ptr(t);
        hash = hash * PRIME11 + (uint32_t)small_value(w[3]);
        hash = hash * PRIME1 + atom_hash(w[1]);
        return hash * PRIME1 + atom_hash(w[2]);
    }
    if (is_local_fun(t)) {
        const struct fun_entry *entry = fun_entry_of(t);
        uint64_t num_free = fun_num_free(t);
        hash = hash * PRIME10 + (uint32_t)num_free;
        hash = hash * PRIME1 + atom_hash(entry->module);
        hash = hash * PRIME2 + entry->index;
        hash = hash * PRIME2 + entry->old_uniq;
        if (num_free)
            push(s, (struct item){ITEM_ELEMENTS, NIL, &boxed_ptr(t)[2], num_free});
        return hash;
    }
    if (is_tuple(t)) {
        uint64_t arity = tuple_arity(t);
        push(s, (struct item){ITEM_TUPLE_END, NIL, NULL, arity});
        if (arity)
            push(s, (struct item){ITEM_ELEMENTS, NIL, tuple_elements(t), arity});
        return hash;
    }
    if (is_list(t)) {
        /* Leading bytes inline; then the first other element, and its tail after it. */
        for (; is_list(t) && is_byte(list_head(t)); t = list_tail(t))
            hash = hash * PRIME2 + (uint32_t)small_value(list_head(t));
        if (!is_list(t)) {
            push(s, (struct item){ITEM_LIST_END, NIL, NULL, 0});
            push(s, (struct item){ITEM_TERM, t, NULL, 0});
            return hash;
        }
        push(s, (struct item){ITEM_TAIL, list_tail(t), NULL, 0});
        push(s, (struct item){ITEM_TERM, list_head(t), NULL, 0});
        return hash;
    }
    return hash;
}

uint32_t phash_hash(term t)
{
    struct stack s = {NULL, 0, 0};
    uint32_t hash = 0;
    push(&s, (struct item){ITEM_TERM, t, NULL, 0});
    while (s.depth > 0) {
        struct item it = s.items[--s.depth];
        switch (it.kind) {
        case ITEM_TERM:
            hash = hash_one(&s, hash, it.t);
            break;
        case ITEM_ELEMENTS:
            if (it.count > 1)
                push(&s, (struct item){ITEM_ELEMENTS, NIL, it.elements + 1, it.count - 1});
            hash = hash_one(&s, hash, it.elements[0]);
            break;
        case ITEM_TUPLE_END:
            hash = hash * PRIME9 + (uint32_t)it.count;
            break;
        case ITEM_TAIL:
            /* A tail that is a list continues it; any other closes it. */
            if (is_list(it.t)) {
                hash = hash_one(&s, hash, it.t);
            } else {
                push(&s, (struct item){ITEM_LIST_END, NIL, NULL, 0});
                hash = hash_one(&s, hash, it.t);
            }
            break;
        case ITEM_LIST_END:
            hash *= PRIME8;
            break;
        }
    }
    free(s.items);
    return hash;
}
