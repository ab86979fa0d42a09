/*
 * compare.c — Erlang's term order, exact equality and the internal hash.
 *
 * Owns term_compare (==, <), term_compare_exact (=:=, map key order),
 * term_eq_exact, term_hash and term_map_hash. The order is OTP 25's erts_cmp:
 * number < atom < reference < fun < port < pid < tuple < map < [] < list <
 * bitstring; integers and floats compare by value, except in exact mode where
 * every integer precedes every float (so 1 and 1.0 are two map keys, in that
 * order). The hash is OTP 25's make_internal_hash, bit for bit, wherever our
 * representation carries the same information (see compare.h).
 *
 * Invariant: nothing here recurses in C. Pending work lives on explicit
 * stacks that start in a local buffer and grow on the C heap, so neither the
 * depth nor the length of a term reaches the C stack. Growing a stack is the
 * one thing that can fail, and only when the host is out of memory for a
 * term too deep to walk otherwise; that aborts, as there is no value to
 * return for "cannot compare".
 */
#include "term/compare.h"
#include "term/lookup2.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growable stack of fixed-size items ---- */

struct vec {
    unsigned char *items;
    size_t len, cap, size; /* size: bytes per item */
    void *inline_buf;      /* the caller's initial buffer, never freed */
};

static void vec_init(struct vec *v, void *buf, size_t cap, size_t size)
{
    v->items = buf;
    v->inline_buf = buf;
    v->len = 0;
    v->cap = cap;
    v->size = size;
}

static void *vec_push(struct vec *v)
{
    if (v->len == v->cap) {
        size_t cap = v->cap * 2;
        unsigned char *p;
        if (v->items == v->inline_buf) {
            p = malloc(cap * v->size);
            if (p)
                memcpy(p, v->items, v->len * v->size);
        } else {
            p = realloc(v->items, cap * v->size);
        }
        if (!p) {
            fputs("clause: out of memory walking a term\n", stderr);
            abort();
        }
        v->items = p;
        v->cap = cap;
    }
    return v->items + v->len++ * v->size;
}

static void *vec_top(struct vec *v) { return v->items + (v->len - 1) * v->size; }
static void *vec_at(struct vec *v, size_t i) { return v->items + i * v->size; }

static void vec_free(struct vec *v)
{
    if (v->items != v->inline_buf)
        free(v->items);
}

/* ---- the standard order's classes ---- */

enum rank {
    RANK_NUMBER,
    RANK_ATOM,
    RANK_REF,
    RANK_FUN,
    RANK_PORT,
    RANK_PID,
    RANK_TUPLE,
    RANK_MAP,
    RANK_NIL,
    RANK_LIST,
    RANK_BITSTRING,
    RANK_OTHER, /* not an Erlang term (catch markers, specials): after all */
};

static enum rank rank_of(term t)
{
    switch (term_primary_tag(t)) {
    case TAG_PRIMARY_LIST:
        return RANK_LIST;
    case TAG_PRIMARY_BOXED:
        switch (header_subtag(boxed_header(t))) {
        case SUBTAG_TUPLE:
            return RANK_TUPLE;
        case SUBTAG_POS_BIG:
        case SUBTAG_NEG_BIG:
        case SUBTAG_FLOAT:
            return RANK_NUMBER;
        case SUBTAG_REF:
        case SUBTAG_MAGIC_REF:
            return RANK_REF;
        case SUBTAG_FUN:
        case SUBTAG_EXPORT:
            return RANK_FUN;
        case SUBTAG_REFC_BIN:
        case SUBTAG_HEAP_BIN:
        case SUBTAG_SUB_BIN:
            return RANK_BITSTRING;
        case SUBTAG_FLATMAP:
        case SUBTAG_HASHMAP:
            return RANK_MAP;
        }
        return RANK_OTHER;
    case TAG_PRIMARY_IMMED:
        switch (t & TAG_IMMED1_MASK) {
        case TAG_IMMED1_SMALL:
            return RANK_NUMBER;
        case TAG_IMMED1_PID:
            return RANK_PID;
        case TAG_IMMED1_PORT:
            return RANK_PORT;
        }
        if (is_atom(t))
            return RANK_ATOM;
        if (is_nil(t))
            return RANK_NIL;
        return RANK_OTHER;
    }
    return RANK_OTHER;
}

/* ---- term_order_prefix ---- */

#define PREFIX_VALUE_BITS 60u

/* A double's bits as an unsigned number in the double's own order. */
static uint64_t ordered_double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

/* The first bytes of a name or a bitstring, big-endian, zero-padded:
 * their order is the bytes' order as far as they go. */
static uint64_t bytes_prefix(const uint8_t *data, size_t size)
{
    uint64_t v = 0;
    for (size_t i = 0; i < 7; i++)
        v = v << 8 | (i < size ? data[i] : 0);
    return v << (PREFIX_VALUE_BITS - 56);
}

static uint64_t order_prefix(term t, unsigned depth)
{
    enum rank r = rank_of(t);
    uint64_t value = 0;
    switch (r) {
    case RANK_NUMBER: {
        double d = 0;
        if (is_small(t))
            d = (double)small_value(t);
        else if (is_float(t))
            d = float_value(t);
        else if (!int_to_double(t, &d))
            d = header_subtag(boxed_header(t)) == SUBTAG_NEG_BIG ? -HUGE_VAL : HUGE_VAL;
        value = ordered_double_bits(d) >> (64 - PREFIX_VALUE_BITS);
        break;
    }
    case RANK_ATOM: {
        size_t len;
        const char *text = atom_text(t, &len);
        value = bytes_prefix((const uint8_t *)text, len);
        break;
    }
    case RANK_BITSTRING: {
        const uint8_t *data;
        size_t size;
        unsigned bits;
        bin_bytes(t, &data, &size, &bits);
        value = bytes_prefix(data, size + (bits > 0));
        break;
    }
    case RANK_TUPLE: {
        /* Arity first (12 bits, the largest standing for all larger), then
         * the first element's summary. */
        uint64_t arity = tuple_arity(t);
        value = (arity < 0xfff ? arity : 0xfff) << (PREFIX_VALUE_BITS - 12);
        if (arity > 0 && depth > 0)
            value |= order_prefix(tuple_element(t, 1), depth - 1) >> 16;
        break;
    }
    case RANK_LIST:
        if (depth > 0)
            value = order_prefix(list_head(t), depth - 1) >> (64 - PREFIX_VALUE_BITS);
        break;
    default:
        break;
    }
    return (uint64_t)r << PREFIX_VALUE_BITS | value;
}

uint64_t term_order_prefix(term t) { return order_prefix(t, 2); }

static int sign(int x) { return (x > 0) - (x < 0); }
static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }
static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int compare_numbers(term a, term b, bool exact)
{
    bool ia = is_integer(a), ib = is_integer(b);
    if (ia && ib)
        return sign(int_compare(a, b));
    if (!ia && !ib) {
        /* C's == makes 0.0 and -0.0 equal, as OTP 25 does. */
        double x = float_value(a), y = float_value(b);
        return (x > y) - (x < y);
    }
    if (exact) /* every integer precedes every float */
        return ia ? -1 : 1;
    return ia ? sign(int_compare_double(a, float_value(b))) : -sign(int_compare_double(b, float_value(a)));
}

/* References compare by their ID numbers from the most significant, which
 * for the ETF decoder's mapping (etf.c) is OTP's order. */
static int compare_refs(term a, term b)
{
    int r = cmp_u64(ref_id_high(a), ref_id_high(b));
    return r ? r : cmp_u64(ref_id_low(a), ref_id_low(b));
}

/* Bitstrings compare bit by bit over their common length, then by length. */
static int compare_bits(term a, term b)
{
    const uint8_t *pa, *pb;
    size_t na, nb;
    unsigned ba, bb;
    bin_bytes(a, &pa, &na, &ba);
    bin_bytes(b, &pb, &nb, &bb);
    size_t bits_a = na * 8 + ba, bits_b = nb * 8 + bb;
    size_t common = bits_a < bits_b ? bits_a : bits_b;
    size_t whole = common / 8;
    if (whole > 0) {
        int r = memcmp(pa, pb, whole);
        if (r)
            return sign(r);
    }
    unsigned rest = common % 8;
    if (rest) {
        /* Trailing bits are the high bits of their byte. */
        unsigned mask = (0xFF00u >> rest) & 0xFFu;
        unsigned x = pa[whole] & mask, y = pb[whole] & mask;
        if (x != y)
            return x < y ? -1 : 1;
    }
    return cmp_u64(bits_a, bits_b);
}

/* ---- the comparison machine ----
 *
 * Frames are pending comparisons. A PAIR compares two terms; an ARRAY
 * compares two runs of words element by element; an HMAP walks two large
 * maps of equal size side by side. The first non-zero result decides, except
 * that an HMAP frame receives the result of each comparison it asked for (the
 * frames above it are discarded and it decides what to do next).
 */

enum frame_kind { FRAME_PAIR, FRAME_ARRAY, FRAME_HMAP };

struct frame {
    enum frame_kind kind;
    bool exact;
    size_t n;          /* ARRAY: pairs left; HMAP: index of its state */
    const term *a, *b; /* ARRAY: next words */
    term x, y;         /* PAIR */
};

/*
 * Two large maps of equal size are compared as OTP orders maps: first their
 * key sets, as sorted lists compared exactly, then the values in key order.
 * Without sorting, that is: the least key (=:= order) found in one map but
 * not the other decides; failing that, the least key whose values differ.
 * Both maps are walked in the same order (map_iter's, which depends only on
 * the key set), so while the keys agree position by position the key sets are
 * equal so far; once they disagree, the walk becomes a merge in that order.
 */
enum hmap_phase {
    HM_START,
    HM_KEYS,      /* keys agree so far; comparing the current keys */
    HM_IS_MIN,    /* is the current key below the least differing one? */
    HM_VALUES,    /* comparing the current values */
    HM2_KEYS,     /* key sets differ; comparing the current keys */
    HM2_IS_MIN_A, /* is a's key (absent from b) below the least so far? */
    HM2_IS_MIN_B, /* likewise for b */
};

struct hmap_state {
    struct map_iter ia, ib;
    term ka, va, kb, vb;
    bool more_a, more_b;
    term min_key;      /* least key deciding the result so far */
    int result;        /* order decided by min_key: -1, 0 or 1 */
    bool values_exact; /* values compare with the exactness of the maps */
    enum hmap_phase phase;
};

struct cmp_ctx {
    struct vec frames, hmaps;
    bool eq_only; /* only zero / non-zero matters: maps compare by layout */
};

#define HM_PUSHED 2 /* an HMAP frame asked for a comparison */

static void push_pair(struct cmp_ctx *c, term x, term y, bool exact)
{
    struct frame *f = vec_push(&c->frames);
    f->kind = FRAME_PAIR;
    f->exact = exact;
    f->x = x;
    f->y = y;
}

static void push_array(struct cmp_ctx *c, const term *a, const term *b, size_t n, bool exact)
{
    struct frame *f = vec_push(&c->frames);
    f->kind = FRAME_ARRAY;
    f->exact = exact;
    f->a = a;
    f->b = b;
    f->n = n;
}

static void start_hmap(struct cmp_ctx *c, term a, term b, bool exact)
{
    struct hmap_state *s = vec_push(&c->hmaps);
    map_iter_init(&s->ia, a);
    map_iter_init(&s->ib, b);
    s->min_key = NIL;
    s->result = 0;
    s->values_exact = exact;
    s->phase = HM_START;
    struct frame *f = vec_push(&c->frames);
    f->kind = FRAME_HMAP;
    f->n = c->hmaps.len - 1;
}

static int compare_maps(struct cmp_ctx *c, term a, term b, bool exact)
{
    if (c->eq_only) {
        /* Layouts are canonical (map.c), so equal maps are equal word by
         * word; trie nodes and leaves compare like any other object. */
        term ha = boxed_header(a);
        if (ha != boxed_header(b))
            return 1;
        push_array(c, boxed_ptr(a) + 1, boxed_ptr(b) + 1, header_arity(ha), true);
        return 0;
    }
    size_t sa = map_size(a), sb = map_size(b);
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    bool flat_a = is_boxed_subtag(a, SUBTAG_FLATMAP), flat_b = is_boxed_subtag(b, SUBTAG_FLATMAP);
    if (flat_a != flat_b) /* cannot happen: the size fixes the kind */
        return flat_a ? -1 : 1;
    if (flat_a) {
        /* [size][keys tuple][values...]: the key tuples compare exactly (keys
         * are sorted), then the values in key order. */
        const term *pa = boxed_ptr(a) + 2, *pb = boxed_ptr(b) + 2;
        if (exact) {
            push_array(c, pa, pb, sa + 1, true);
        } else {
            push_array(c, pa + 1, pb + 1, sa, false);
            push_pair(c, pa[0], pb[0], true);
        }
        return 0;
    }
    start_hmap(c, a, b, exact);
    return 0;
}

/* Local funs compare by module, index, uniq, free-variable count and free
 * variables; export funs by module, function and arity; local < export. */
static int compare_funs(struct cmp_ctx *c, term a, term b, bool exact)
{
    bool la = is_local_fun(a), lb = is_local_fun(b);
    if (la != lb)
        return la ? -1 : 1;
    if (!la) {
        const term *pa = boxed_ptr(a), *pb = boxed_ptr(b);
        int r = sign(atom_compare(pa[1], pb[1]));
        if (!r)
            r = sign(atom_compare(pa[2], pb[2]));
        return r ? r : cmp_i64(small_value(pa[3]), small_value(pb[3]));
    }
    const struct fun_entry *ea = fun_entry_of(a), *eb = fun_entry_of(b);
    int r = ea == eb ? 0 : sign(atom_compare(ea->module, eb->module));
    if (!r)
        r = cmp_u64(ea->index, eb->index);
    if (!r)
        r = cmp_u64(ea->old_uniq, eb->old_uniq);
    uint64_t n = fun_num_free(a);
    if (!r)
        r = cmp_u64(n, fun_num_free(b));
    if (!r && n > 0)
        push_array(c, boxed_ptr(a) + 2, boxed_ptr(b) + 2, n, exact);
    return r;
}

/* Compares a and b as far as possible without descending into them; what is
 * left is pushed. Returns the order, or 0 with any remaining work pushed. */
static int step(struct cmp_ctx *c, term a, term b, bool exact)
{
again:
    if (a == b)
        return 0;
    if (is_small(a) && is_small(b))
        return cmp_i64(small_value(a), small_value(b));
    enum rank ra = rank_of(a), rb = rank_of(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    switch (ra) {
    case RANK_NUMBER:
        return compare_numbers(a, b, exact);
    case RANK_ATOM:
        return sign(atom_compare(a, b));
    case RANK_REF:
        return compare_refs(a, b);
    case RANK_FUN:
        return compare_funs(c, a, b, exact);
    case RANK_PORT:
        return cmp_u64(port_number(a), port_number(b));
    case RANK_PID:
        return cmp_u64(pid_number(a), pid_number(b));
    case RANK_TUPLE: {
        uint64_t n = tuple_arity(a), m = tuple_arity(b);
        if (n != m)
            return n < m ? -1 : 1;
        if (n > 0)
            push_array(c, tuple_elements(a), tuple_elements(b), n, exact);
        return 0;
    }
    case RANK_MAP:
        return compare_maps(c, a, b, exact);
    case RANK_LIST:
        /* Walk the common run of identical heads in place; at the first
         * differing head, leave the tails pending and compare the heads. */
        for (;;) {
            term ha = list_head(a), hb = list_head(b);
            term ta = list_tail(a), tb = list_tail(b);
            if (ha != hb) {
                if (ta != tb)
                    push_pair(c, ta, tb, exact);
                a = ha;
                b = hb;
                goto again;
            }
            if (ta == tb)
                return 0;
            a = ta;
            b = tb;
            if (!is_list(a) || !is_list(b))
                goto again;
        }
    case RANK_BITSTRING:
        return compare_bits(a, b);
    case RANK_NIL:
    case RANK_OTHER:
        break;
    }
    return cmp_u64(a, b);
}

/* ---- walking two large maps (see enum hmap_phase) ---- */

static void advance_a(struct hmap_state *s) { s->more_a = map_iter_next(&s->ia, &s->ka, &s->va); }
static void advance_b(struct hmap_state *s) { s->more_b = map_iter_next(&s->ib, &s->kb, &s->vb); }

/* Which of two different current keys comes first in the walk: negative for
 * a's. j is their term order, which decides inside a collision node. */
static int walk_order(const struct hmap_state *s, int j)
{
    int o = map_hash_order(s->ka, s->kb);
    return o ? o : -j;
}

static int ask(struct cmp_ctx *c, struct hmap_state *s, term x, term y, bool exact, enum hmap_phase phase)
{
    push_pair(c, x, y, exact);
    s->phase = phase;
    return HM_PUSHED;
}

/* Once the key sets are known to differ: merge the rest of both walks,
 * skipping keys present in both, keeping the least key present in one. */
static int hmap_merge(struct cmp_ctx *c, struct hmap_state *s, int order)
{
    if (order == 0) {
        if (s->more_a && s->more_b)
            return ask(c, s, s->ka, s->kb, true, HM2_KEYS);
        if (!s->more_a && !s->more_b)
            return s->result;
        order = s->more_a ? -1 : 1;
    }
    if (order < 0)
        return ask(c, s, s->ka, s->min_key, true, HM2_IS_MIN_A);
    return ask(c, s, s->kb, s->min_key, true, HM2_IS_MIN_B);
}

/* The step of the HMAP frame on top of the stack, given j, the result of the
 * comparison it asked for last. Returns HM_PUSHED, or the maps' order. */
static int hmap_step(struct cmp_ctx *c, struct hmap_state *s, int j)
{
    switch (s->phase) {
    case HM_START:
        break;
    case HM_KEYS:
        if (j != 0) {
            /* The first key in the walk that the other map lacks. */
            if (walk_order(s, j) < 0) {
                s->min_key = s->ka;
                s->result = -1;
                advance_a(s);
            } else {
                s->min_key = s->kb;
                s->result = 1;
                advance_b(s);
            }
            return hmap_merge(c, s, 0);
        }
        if (s->result != 0)
            return ask(c, s, s->ka, s->min_key, true, HM_IS_MIN);
        return ask(c, s, s->va, s->vb, s->values_exact, HM_VALUES);
    case HM_IS_MIN:
        if (j < 0)
            return ask(c, s, s->va, s->vb, s->values_exact, HM_VALUES);
        break;
    case HM_VALUES:
        if (j != 0) {
            s->result = j;
            s->min_key = s->ka;
        }
        break;
    case HM2_KEYS:
        if (j == 0) {
            advance_a(s);
            advance_b(s);
            return hmap_merge(c, s, 0);
        }
        return hmap_merge(c, s, walk_order(s, j));
    case HM2_IS_MIN_A:
        if (j < 0) {
            s->min_key = s->ka;
            s->result = -1;
        }
        advance_a(s);
        return hmap_merge(c, s, 0);
    case HM2_IS_MIN_B:
        if (j < 0) {
            s->min_key = s->kb;
            s->result = 1;
        }
        advance_b(s);
        return hmap_merge(c, s, 0);
    }
    /* Keys agree so far: on to the next pair of both maps. */
    advance_a(s);
    advance_b(s);
    if (!s->more_a)
        return s->result;
    return ask(c, s, s->ka, s->kb, true, HM_KEYS);
}

static int run(struct cmp_ctx *c)
{
    int j = 0;
    while (c->frames.len > 0) {
        struct frame *f = vec_top(&c->frames);
        if (f->kind == FRAME_HMAP) {
            j = hmap_step(c, vec_at(&c->hmaps, f->n), j);
            if (j == HM_PUSHED) {
                j = 0;
                continue;
            }
            /* Decided: drop the frame (still on top) and its state. */
            c->frames.len--;
            c->hmaps.len--;
        } else {
            term x, y;
            bool exact = f->exact;
            if (f->kind == FRAME_PAIR) {
                x = f->x;
                y = f->y;
                c->frames.len--;
            } else {
                x = *f->a++;
                y = *f->b++;
                if (--f->n == 0) /* last element: no frame left behind */
                    c->frames.len--;
            }
            j = step(c, x, y, exact);
        }
        if (j != 0) {
            /* Decided: discard pending work up to the map walk that asked. */
            while (c->frames.len > 0 && ((struct frame *)vec_top(&c->frames))->kind != FRAME_HMAP)
                c->frames.len--;
        }
    }
    return j;
}

#define FRAMES_INLINE 32

static int compare_run(term a, term b, bool exact, bool eq_only)
{
    struct frame frame_buf[FRAMES_INLINE];
    struct hmap_state hmap_buf[1];
    struct cmp_ctx c;
    vec_init(&c.frames, frame_buf, FRAMES_INLINE, sizeof frame_buf[0]);
    vec_init(&c.hmaps, hmap_buf, 1, sizeof hmap_buf[0]);
    c.eq_only = eq_only;
    int r = step(&c, a, b, exact);
    if (r == 0)
        r = run(&c);
    vec_free(&c.frames);
    vec_free(&c.hmaps);
    return r;
}

int term_compare(term a, term b)
{
    if (a == b)
        return 0;
    if (is_small(a) && is_small(b))
        return cmp_i64(small_value(a), small_value(b));
    return compare_run(a, b, false, false);
}

int term_compare_exact(term a, term b)
{
    if (a == b)
        return 0;
    if (is_small(a) && is_small(b))
        return cmp_i64(small_value(a), small_value(b));
    return compare_run(a, b, true, false);
}

bool term_eq_exact(term a, term b)
{
    if (a == b)
        return true;
    /* An immediate is =:= only to itself (integers are normalised). */
    if (is_immed(a) || is_immed(b))
        return false;
    return compare_run(a, b, true, true) == 0;
}

/* ---- hashing: OTP 25's make_internal_hash ----
 *
 * Bob Jenkins' 96-bit mix folds 32-bit inputs into the running hash; each
 * kind of input comes with its own multiple of the golden ratio, as OTP's
 * does, so the numbers below are what make the results agree with OTP.
 */

#define GOLDEN LOOKUP2_GOLDEN
#define K(n) ((uint32_t)(GOLDEN * (uint32_t)(n)))
/* OTP starts from this prime so the hash differs from phash2's. */
#define INTERNAL_SALT 3432918353u

/* Folds two 32-bit words into h under the constant k. */
static uint32_t fold2(uint32_t h, uint32_t x, uint32_t y, uint32_t k)
{
    uint32_t a = k + x, b = k + y;
    lookup2_mix(&a, &b, &h);
    return h;
}

/* A cheap fold of a type mark, for the cells of lists. */
static uint32_t fold_mark(uint32_t h, uint32_t k)
{
    h ^= k;
    return (h << 17) | (h >> 15);
}

static uint32_t fold_word(uint32_t h, uint64_t w) { return fold2(h, (uint32_t)w, (uint32_t)(w >> 32), GOLDEN); }

static bool is_byte(term t) { return is_small(t) && small_value(t) >= 0 && small_value(t) <= 255; }

/* Marks the point between a list cell's head and a tail that is not a list.
 * A header word, so never a term. */
#define MARK_CDR make_header(SUBTAG_REF, 1)

#define HASH_INLINE 64

static uint32_t hash_term(term t, uint32_t salt)
{
    uint32_t h = salt ^ INTERNAL_SALT;
    if (is_immed(t))
        return fold_word(h, t);
    term buf[HASH_INLINE];
    struct vec st;
    vec_init(&st, buf, HASH_INLINE, sizeof buf[0]);
    for (;;) {
        switch (term_primary_tag(t)) {
        case TAG_PRIMARY_LIST: {
            /* Runs of bytes (strings) fold four at a time. */
            const term *cell = list_ptr(t);
            uint32_t sh = 0;
            unsigned n = 0;
            while (is_byte(cell[0])) {
                sh = (sh << 8) + (uint32_t)small_value(cell[0]);
                if (n == 3) {
                    h = fold2(h, sh, 0, K(4));
                    sh = 0;
                    n = 0;
                } else {
                    n++;
                }
                t = cell[1];
                if (!is_list(t))
                    break;
                cell = list_ptr(t);
            }
            if (n > 0)
                h = fold2(h, sh, n, K(22));
            if (is_list(t)) {
                /* A head that is not a byte: hash it, then the tail. */
                term tail = cell[1];
                h = fold_mark(h, K(17));
                *(term *)vec_push(&st) = tail;
                if (!is_list(tail))
                    *(term *)vec_push(&st) = MARK_CDR;
                t = cell[0];
            }
            continue; /* the head, or the tail after a run of bytes */
        }
        case TAG_PRIMARY_BOXED: {
            const term *p = boxed_ptr(t);
            switch (header_subtag(p[0])) {
            case SUBTAG_TUPLE: {
                uint64_t n = header_arity(p[0]);
                h = fold2(h, (uint32_t)n, 0, K(9));
                if (n == 0)
                    break;
                for (uint64_t i = n; i > 1; i--)
                    *(term *)vec_push(&st) = p[i];
                t = p[1];
                continue;
            }
            case SUBTAG_FLATMAP:
            case SUBTAG_HASHMAP: {
                /* Size, then keys and values in map_iter's order, which is
                 * the order OTP's walk of its own layout takes. */
                size_t n = map_size(t);
                h = fold2(h, (uint32_t)n, 0, K(16));
                size_t base = st.len;
                struct map_iter it;
                term k, v;
                map_iter_init(&it, t);
                while (map_iter_next(&it, &k, &v)) {
                    *(term *)vec_push(&st) = k;
                    *(term *)vec_push(&st) = v;
                }
                /* Reverse so the first key is on top. */
                for (size_t lo = base, hi = st.len; hi - lo > 1; lo++, hi--) {
                    term *x = vec_at(&st, lo), *y = vec_at(&st, hi - 1), tmp = *x;
                    *x = *y;
                    *y = tmp;
                }
                break;
            }
            case SUBTAG_FLOAT: {
                double d = float_value(t);
                if (d == 0.0) /* -0.0 =:= 0.0 */
                    d = 0.0;
                uint64_t bits;
                memcpy(&bits, &d, sizeof bits);
                h = fold2(h, (uint32_t)bits, (uint32_t)(bits >> 32), K(12));
                break;
            }
            case SUBTAG_POS_BIG:
            case SUBTAG_NEG_BIG: {
                uint32_t k = header_subtag(p[0]) == SUBTAG_NEG_BIG ? K(10) : K(11);
                for (uint64_t i = 1; i <= header_arity(p[0]); i++)
                    h = fold2(h, (uint32_t)p[i], (uint32_t)(p[i] >> 32), k);
                break;
            }
            case SUBTAG_REF:
            case SUBTAG_MAGIC_REF: {
                /* OTP's numbers n0, n1, n2 are our low word and the low half
                 * of the high word (etf.c); a fourth number is ours only. */
                uint64_t lo = ref_id_low(t), hi = ref_id_high(t);
                h = fold2(h, (uint32_t)lo, 0, K(7));
                h = fold2(h, (uint32_t)(lo >> 32), (uint32_t)hi, K(8));
                if (hi >> 32)
                    h = fold2(h, (uint32_t)(hi >> 32), 0, K(9));
                break;
            }
            case SUBTAG_FUN: {
                const struct fun_entry *e = fun_entry_of(t);
                uint64_t n = fun_num_free(t);
                h = fold2(h, (uint32_t)n, (uint32_t)e->module, K(20));
                h = fold2(h, e->index, e->old_uniq, K(21));
                if (n == 0)
                    break;
                for (uint64_t i = n - 1; i > 0; i--)
                    *(term *)vec_push(&st) = fun_free_var(t, i);
                t = fun_free_var(t, 0);
                continue;
            }
            case SUBTAG_EXPORT:
                /* OTP hashes its export entry's address; we hash M, F, A. */
                h = fold2(h, (uint32_t)p[1], (uint32_t)p[2], K(14));
                h = fold2(h, (uint32_t)small_value(p[3]), 0, K(14));
                break;
            case SUBTAG_REFC_BIN:
            case SUBTAG_HEAP_BIN:
            case SUBTAG_SUB_BIN: {
                const uint8_t *data;
                size_t size;
                unsigned bits;
                bin_bytes(t, &data, &size, &bits);
                uint32_t init = K(13) + h;
                if (size == 0 && bits == 0) {
                    h = init;
                } else {
                    h = lookup2_bytes(data, size, init);
                    if (bits > 0)
                        h = fold2(h, bits, (uint32_t)data[size] >> (8 - bits), K(15));
                }
                break;
            }
            default:
                h = fold_word(h, p[0]);
                break;
            }
            break;
        }
        default: /* immediates */
            h = fold_word(h, t);
            break;
        }
        /* t is done: on to the next pending term. */
        for (;;) {
            if (st.len == 0) {
                vec_free(&st);
                return h;
            }
            t = *(term *)vec_top(&st);
            st.len--;
            if (t != MARK_CDR)
                break;
            h = fold_mark(h, K(18));
        }
    }
}

uint64_t term_hash(term t) { return hash_term(t, 0); }

uint32_t term_map_hash(term key, unsigned round)
{
    /* Round r > 0 salts the hash with the fold of (r, 1), as OTP 25 does. */
    return hash_term(key, round == 0 ? 0 : fold2(0, round, 1, K(22)));
}
