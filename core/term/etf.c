/*
 * etf.c — the external term format, decoder and encoder (see etf.h).
 *
 * Decoding is a loop over an explicit stack of "slots to fill": a compound
 * term is allocated whole, written into its parent's slot, and pushes a frame
 * for its own element slots, so neither depth nor length of the term uses C
 * stack. Every count read from the input is checked against the bytes left
 * before anything is allocated for it, so a corrupt length cannot make the
 * decoder allocate without bound.
 *
 * Identifiers of another runtime map onto ours by number: a pid <0.N.S>
 * becomes pid N, a port #Port<0.N> port N, and a reference's ID words w0, w1,
 * w2 (w3) become id low = w0 | w1 << 32 and id high = w2 | w3 << 32. A
 * local fun becomes the entry the caller's resolver finds for its module,
 * index and module MD5 (its creator pid is dropped).
 */
#include "term/etf.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/bytes.h"
#include "term/compare.h"
#include "term/map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum {
    ETF_VERSION = 131,
    NEW_FLOAT_EXT = 70,
    BIT_BINARY_EXT = 77,
    COMPRESSED = 80,
    NEW_PID_EXT = 88,
    NEW_PORT_EXT = 89,
    NEWER_REFERENCE_EXT = 90,
    SMALL_INTEGER_EXT = 97,
    INTEGER_EXT = 98,
    FLOAT_EXT = 99,
    ATOM_EXT = 100,
    REFERENCE_EXT = 101,
    PORT_EXT = 102,
    PID_EXT = 103,
    SMALL_TUPLE_EXT = 104,
    LARGE_TUPLE_EXT = 105,
    NIL_EXT = 106,
    STRING_EXT = 107,
    LIST_EXT = 108,
    BINARY_EXT = 109,
    SMALL_BIG_EXT = 110,
    LARGE_BIG_EXT = 111,
    NEW_FUN_EXT = 112,
    EXPORT_EXT = 113,
    NEW_REFERENCE_EXT = 114,
    SMALL_ATOM_EXT = 115,
    MAP_EXT = 116,
    ATOM_UTF8_EXT = 118,
    SMALL_ATOM_UTF8_EXT = 119,
    V4_PORT_EXT = 120,
};

struct reader {
    const uint8_t *p, *end;
};

static size_t left(const struct reader *r) { return (size_t)(r->end - r->p); }

static bool read_u8(struct reader *r, uint32_t *v)
{
    if (left(r) < 1)
        return false;
    *v = r->p[0];
    r->p += 1;
    return true;
}

static bool read_u16(struct reader *r, uint32_t *v)
{
    if (left(r) < 2)
        return false;
    *v = load_be16(r->p);
    r->p += 2;
    return true;
}

static bool read_u32(struct reader *r, uint32_t *v)
{
    if (left(r) < 4)
        return false;
    *v = load_be32(r->p);
    r->p += 4;
    return true;
}

static bool read_u64(struct reader *r, uint64_t *v)
{
    uint32_t hi, lo;
    if (!read_u32(r, &hi) || !read_u32(r, &lo))
        return false;
    *v = (uint64_t)hi << 32 | lo;
    return true;
}

/* A place a decoded term goes: word `offset` of a boxed term's object, or
 * of a list cell (0 its head, 1 its tail). Named by the term that holds
 * it, never by a pointer, so that a decoding in portions can save it on
 * the heap and find it again after the collector moved that term. */
struct slot {
    term container;
    size_t offset;
};

static term *slot_ptr(struct slot s)
{
    return (is_list(s.container) ? list_ptr(s.container) : boxed_ptr(s.container)) + s.offset;
}

enum frame_kind {
    FRAME_WORDS, /* `remaining` slots from `at`, one word apart (a tuple's elements, a fun's free variables) */
    FRAME_CELLS, /* the heads of `remaining` list cells from `at`'s cell on */
    FRAME_MAP,   /* FRAME_WORDS over a tuple K1, V1, ..., then the map built from it goes to map_dest */
    FRAME_BYTES, /* a binary's bytes (at: the binary, offset bytes copied), `remaining` from input byte src on */
};

/* A slot-filling frame. */
struct frame {
    uint32_t kind;
    struct slot at;
    size_t remaining;
    struct slot map_dest;
    size_t src; /* FRAME_BYTES */
};

struct decoder {
    heap_t *heap;
    struct reader in;
    const uint8_t *start; /* the input's first byte (FRAME_BYTES's src counts from it) */
    struct frame *stack;
    size_t depth, capacity;
    term saved;   /* frames below the stack, saved on the heap by an earlier portion */
    size_t units; /* work done in this portion */
    size_t limit; /* and what it may do */
    /* Slots of open frames not decoded yet: each needs at least one more
     * byte, so a compound term may promise only the bytes left beyond
     * them. Without this, nested headers that each claim a large arity
     * would allocate far more than the input could fill (a hostile
     * binary_to_term argument amplifying into the heap). */
    size_t promised;
    const char *error;
    const struct etf_decode_options *options; /* never NULL */
};

term etf_decode(heap_t *h, const uint8_t *buf, size_t len, size_t *used, const char **error)
{
    return etf_decode_with(h, buf, len, NULL, used, error);
}

static bool fail(struct decoder *d, const char *error)
{
    if (!d->error)
        d->error = error;
    return false;
}

static bool push(struct decoder *d, struct frame f)
{
    if (d->depth == d->capacity) {
        size_t cap = d->capacity ? d->capacity * 2 : 64;
        struct frame *s = realloc(d->stack, cap * sizeof *s);
        if (!s)
            return fail(d, "out of memory");
        d->stack = s;
        d->capacity = cap;
    }
    d->stack[d->depth++] = f;
    if (f.kind != FRAME_BYTES)
        d->promised += f.remaining;
    return true;
}

static bool push_words(struct decoder *d, term container, size_t offset, size_t n)
{
    return push(d, (struct frame){FRAME_WORDS, {container, offset}, n, {NIL, 0}, 0});
}

/* Input bytes not yet promised to the slots of open frames. */
static size_t unpromised(const struct decoder *d)
{
    size_t l = left(&d->in);
    return l > d->promised ? l - d->promised : 0;
}

static term *alloc(struct decoder *d, size_t words)
{
    term *p = heap_alloc(d->heap, words);
    if (!p)
        fail(d, "heap refused the term");
    return p;
}

static bool read_atom_text(struct decoder *d, uint32_t tag, term *out)
{
    uint32_t len;
    bool ok = (tag == SMALL_ATOM_EXT || tag == SMALL_ATOM_UTF8_EXT) ? read_u8(&d->in, &len) : read_u16(&d->in, &len);
    if (!ok || left(&d->in) < len)
        return fail(d, "truncated atom");
    enum atom_status status;
    if (d->options->safe) {
        /* Only atoms that exist: look the UTF-8 text up, never intern. */
        char utf8[2048]; /* 255 characters take at most 1020 bytes */
        size_t n = 0;
        if (len > 1020)
            return fail(d, "atom too long");
        if (tag == ATOM_EXT || tag == SMALL_ATOM_EXT) {
            for (uint32_t i = 0; i < len; i++) {
                uint8_t c = d->in.p[i];
                if (c < 0x80) {
                    utf8[n++] = (char)c;
                } else {
                    utf8[n++] = (char)(0xc0 | c >> 6);
                    utf8[n++] = (char)(0x80 | (c & 0x3f));
                }
            }
        } else {
            memcpy(utf8, d->in.p, len);
            n = len;
        }
        *out = atom_lookup(utf8, n);
        d->in.p += len;
        return is_value(*out) || fail(d, "unknown atom in safe mode");
    }
    if (tag == ATOM_EXT || tag == SMALL_ATOM_EXT)
        *out = atom_intern_latin1(d->in.p, len, &status);
    else
        *out = atom_intern((const char *)d->in.p, len, &status);
    d->in.p += len;
    if (is_non_value(*out))
        return fail(d, status == ATOM_BAD_UTF8 ? "atom is not valid UTF-8" : "atom too long or atom table full");
    return true;
}

/* An atom in a position that must hold one (node names, export funs). */
static bool read_atom(struct decoder *d, term *out)
{
    uint32_t tag;
    if (!read_u8(&d->in, &tag))
        return fail(d, "truncated term");
    if (tag != ATOM_EXT && tag != SMALL_ATOM_EXT && tag != ATOM_UTF8_EXT && tag != SMALL_ATOM_UTF8_EXT)
        return fail(d, "atom expected");
    return read_atom_text(d, tag, out);
}

static bool decode_big(struct decoder *d, uint32_t n, term *out)
{
    uint32_t sign;
    if (!read_u8(&d->in, &sign) || left(&d->in) < n)
        return fail(d, "truncated integer");
    size_t limbs = (n + 7) / 8;
    uint64_t small_buf[8];
    uint64_t *buf = limbs <= 8 ? small_buf : calloc(limbs, sizeof *buf);
    if (!buf)
        return fail(d, "out of memory");
    memset(buf, 0, limbs * sizeof *buf);
    for (uint32_t i = 0; i < n; i++)
        buf[i / 8] |= (uint64_t)d->in.p[i] << (8 * (i % 8));
    d->in.p += n;
    *out = int_from_limbs(d->heap, sign != 0, buf, limbs);
    if (buf != small_buf)
        free(buf);
    if (is_non_value(*out))
        return fail(d, "heap refused the term");
    return true;
}

/* OTP 25's B2T_MEMCPY_FACTOR: a work unit per 8 bytes of a binary copied. */
#define DEC_BYTES_PER_UNIT 8

/* Copies what the units left pay for of the binary at the stack's top
 * (FRAME_BYTES); pops it when it is whole. */
static void copy_binary_bytes(struct decoder *d)
{
    struct frame *f = &d->stack[d->depth - 1];
    const uint8_t *data;
    size_t size;
    unsigned bits;
    bin_bytes(f->at.container, &data, &size, &bits);
    size_t room =
        d->limit == SIZE_MAX ? SIZE_MAX : (d->limit > d->units ? d->limit - d->units : 1) * DEC_BYTES_PER_UNIT;
    size_t n = f->remaining < room ? f->remaining : room;
    memcpy((uint8_t *)(uintptr_t)data + f->at.offset, d->start + f->src, n); /* a binary this decoding made */
    f->at.offset += n;
    f->src += n;
    f->remaining -= n;
    d->units += n / DEC_BYTES_PER_UNIT;
    if (f->remaining == 0)
        d->depth--;
    else
        d->units = d->limit; /* the rest in the next portion */
}

/* A binary's bytes follow in a frame, copied in portions. */
static bool decode_binary(struct decoder *d, uint32_t size, unsigned bits, term *out)
{
    if (left(&d->in) < size || (bits != 0 && size == 0))
        return fail(d, "truncated binary");
    uint8_t *bytes;
    term whole = bin_alloc(d->heap, size, &bytes);
    if (is_non_value(whole))
        return fail(d, "heap refused the term");
    /* The last byte holds `bits` significant high bits. */
    *out = bits == 0 ? whole : bin_sub(d->heap, whole, 0, size - 1, bits);
    if (is_non_value(*out))
        return fail(d, "heap refused the term");
    size_t src = (size_t)(d->in.p - d->start);
    d->in.p += size;
    if (size <= BIN_HEAP_MAX) { /* at once: nothing else may see it half-written */
        memcpy(bytes, d->start + src, size);
        return true;
    }
    memset(bytes, 0, size);
    return push(d, (struct frame){FRAME_BYTES, {whole, 0}, size, {NIL, 0}, src});
}

static bool decode_reference(struct decoder *d, uint32_t tag, term *out)
{
    uint32_t n_words, creation;
    term node;
    if (!read_u16(&d->in, &n_words) || !read_atom(d, &node))
        return fail(d, "truncated reference");
    bool ok = tag == NEWER_REFERENCE_EXT ? read_u32(&d->in, &creation) : read_u8(&d->in, &creation);
    if (!ok || n_words == 0 || n_words > 5 || left(&d->in) < 4 * (size_t)n_words)
        return fail(d, "bad reference");
    uint32_t w[5] = {0};
    for (uint32_t i = 0; i < n_words; i++)
        read_u32(&d->in, &w[i]);
    *out = heap_ref_with_id(d->heap, (uint64_t)w[1] << 32 | w[0], (uint64_t)w[3] << 32 | w[2]);
    return is_value(*out) || fail(d, "heap refused the term");
}

/* An integer that must be small (a local fun's old index and old uniq). */
static bool read_small_integer(struct decoder *d, uint32_t *v)
{
    uint32_t tag;
    if (!read_u8(&d->in, &tag))
        return fail(d, "truncated term");
    if (tag == SMALL_INTEGER_EXT)
        return read_u8(&d->in, v) || fail(d, "truncated integer");
    if (tag == INTEGER_EXT)
        return read_u32(&d->in, v) || fail(d, "truncated integer");
    return fail(d, "integer expected");
}

/* NEW_FUN_EXT: size, arity, module MD5, index, free variable count, module,
 * old index, old uniq, creator pid, then the free variables (a frame). The
 * creator is dropped: clause's funs do not keep it. */
static bool decode_local_fun(struct decoder *d, term *dest)
{
    uint32_t size, arity, index, num_free, old_index, old_uniq, tag;
    term module, node;
    const uint8_t *start = d->in.p;
    if (!read_u32(&d->in, &size) || !read_u8(&d->in, &arity) || left(&d->in) < 16)
        return fail(d, "truncated fun");
    const uint8_t *md5 = d->in.p;
    d->in.p += 16;
    if (!read_u32(&d->in, &index) || !read_u32(&d->in, &num_free) || !read_atom(d, &module) ||
        !read_small_integer(d, &old_index) || !read_small_integer(d, &old_uniq))
        return fail(d, "truncated fun");
    uint32_t id, serial, creation;
    if (!read_u8(&d->in, &tag) || (tag != NEW_PID_EXT && tag != PID_EXT) || !read_atom(d, &node) ||
        !read_u32(&d->in, &id) || !read_u32(&d->in, &serial) ||
        !(tag == NEW_PID_EXT ? read_u32(&d->in, &creation) : read_u8(&d->in, &creation)))
        return fail(d, "bad fun creator");
    if (size < (size_t)(d->in.p - start) || size - (size_t)(d->in.p - start) > left(&d->in) || num_free > unpromised(d))
        return fail(d, "bad fun size");
    if (!d->options->resolve_fun)
        return fail(d, "local funs cannot be decoded here");
    const struct fun_entry *entry = d->options->resolve_fun(d->options->resolve_context, module, index, md5);
    if (!entry || entry->num_free != num_free || entry->arity != arity)
        return fail(d, "no such fun");
    term *p = alloc(d, 1 + FUN_FIXED_WORDS + (size_t)num_free);
    if (!p)
        return false;
    p[0] = make_header(SUBTAG_FUN, FUN_FIXED_WORDS + num_free);
    p[1] = (term)(uintptr_t)entry;
    for (uint32_t i = 0; i < num_free; i++)
        p[2 + i] = NIL;
    *dest = make_boxed(p);
    return num_free == 0 || push_words(d, *dest, 2, num_free);
}

/* Decodes the term at the input into slot `at`; compound terms push a
 * frame for their elements. */
static bool decode_one(struct decoder *d, struct slot at)
{
    term *dest = slot_ptr(at);
    uint32_t tag, n, v;
    if (!read_u8(&d->in, &tag))
        return fail(d, "truncated term");
    switch (tag) {
    case SMALL_INTEGER_EXT:
        if (!read_u8(&d->in, &v))
            return fail(d, "truncated integer");
        *dest = make_small(v);
        return true;
    case INTEGER_EXT:
        if (!read_u32(&d->in, &v))
            return fail(d, "truncated integer");
        *dest = make_small((int32_t)v);
        return true;
    case SMALL_BIG_EXT:
        return read_u8(&d->in, &n) ? decode_big(d, n, dest) : fail(d, "truncated integer");
    case LARGE_BIG_EXT:
        return read_u32(&d->in, &n) ? decode_big(d, n, dest) : fail(d, "truncated integer");
    case NEW_FLOAT_EXT: {
        uint64_t bits;
        if (!read_u64(&d->in, &bits))
            return fail(d, "truncated float");
        double f;
        memcpy(&f, &bits, sizeof f);
        if (!isfinite(f)) /* Erlang has no infinities or NaNs: OTP refuses them */
            return fail(d, "float not finite");
        *dest = heap_float(d->heap, f);
        return is_value(*dest) || fail(d, "heap refused the term");
    }
    case FLOAT_EXT: {
        if (left(&d->in) < 31)
            return fail(d, "truncated float");
        char text[32];
        memcpy(text, d->in.p, 31);
        text[31] = '\0';
        d->in.p += 31;
        char *end;
        double f = strtod(text, &end);
        if (end == text)
            return fail(d, "bad float text");
        if (!isfinite(f))
            return fail(d, "float not finite");
        *dest = heap_float(d->heap, f);
        return is_value(*dest) || fail(d, "heap refused the term");
    }
    case ATOM_EXT:
    case SMALL_ATOM_EXT:
    case ATOM_UTF8_EXT:
    case SMALL_ATOM_UTF8_EXT:
        return read_atom_text(d, tag, dest);
    case NIL_EXT:
        *dest = NIL;
        return true;
    case SMALL_TUPLE_EXT:
    case LARGE_TUPLE_EXT: {
        if (!(tag == SMALL_TUPLE_EXT ? read_u8(&d->in, &n) : read_u32(&d->in, &n)))
            return fail(d, "truncated tuple");
        if (n > unpromised(d))
            return fail(d, "tuple arity exceeds the input");
        term *p = alloc(d, 1 + (size_t)n);
        if (!p)
            return false;
        p[0] = make_header(SUBTAG_TUPLE, n);
        for (uint32_t i = 0; i < n; i++)
            p[1 + i] = NIL;
        *dest = make_boxed(p);
        d->units += n;
        return n == 0 || push_words(d, *dest, 1, n);
    }
    case STRING_EXT: {
        if (!read_u16(&d->in, &n) || left(&d->in) < n)
            return fail(d, "truncated string");
        *dest = heap_string(d->heap, (const char *)d->in.p, n);
        d->in.p += n;
        d->units += n;
        return is_value(*dest) || fail(d, "heap refused the term");
    }
    case LIST_EXT: {
        if (!read_u32(&d->in, &n))
            return fail(d, "truncated list");
        if (n == 0 || (size_t)n + 1 > unpromised(d)) /* the elements and the tail */
            return fail(d, "bad list length");
        term *p = alloc(d, 2 * (size_t)n);
        if (!p)
            return false;
        for (uint32_t i = 0; i < n; i++) {
            p[2 * i] = NIL;
            p[2 * i + 1] = i + 1 < n ? make_list(&p[2 * i + 2]) : NIL;
        }
        *dest = make_list(p);
        d->units += n;
        /* The tail follows the elements in the input: push it first. */
        return push_words(d, make_list(&p[2 * (size_t)n - 2]), 1, 1) &&
               push(d, (struct frame){FRAME_CELLS, {*dest, 0}, n, {NIL, 0}, 0});
    }
    case BINARY_EXT:
        return read_u32(&d->in, &n) ? decode_binary(d, n, 0, dest) : fail(d, "truncated binary");
    case BIT_BINARY_EXT:
        if (!read_u32(&d->in, &n) || !read_u8(&d->in, &v))
            return fail(d, "truncated bitstring");
        if (v < 1 || v > 8)
            return fail(d, "bad bitstring bit count");
        return decode_binary(d, n, v == 8 ? 0 : v, dest);
    case MAP_EXT: {
        if (!read_u32(&d->in, &n))
            return fail(d, "truncated map");
        if ((size_t)n * 2 > unpromised(d))
            return fail(d, "map size exceeds the input");
        if (n == 0) {
            *dest = map_new_empty(d->heap);
            return is_value(*dest) || fail(d, "heap refused the term");
        }
        /* The pairs go to a tuple K1, V1, ...; the map replaces the
         * placeholder once they are decoded. */
        term pairs = heap_tuple(d->heap, 2 * (size_t)n, NULL);
        if (is_non_value(pairs))
            return fail(d, "heap refused the term");
        *dest = NIL;
        d->units += 2 * (size_t)n;
        return push(d, (struct frame){FRAME_MAP, {pairs, 1}, 2 * (size_t)n, at, 0});
    }
    case EXPORT_EXT: {
        term module, function, arity;
        if (!read_atom(d, &module) || !read_atom(d, &function))
            return false;
        if (!read_u8(&d->in, &tag) || tag != SMALL_INTEGER_EXT || !read_u8(&d->in, &v))
            return fail(d, "bad export arity");
        arity = v;
        *dest = heap_export_fun(d->heap, module, function, (unsigned)arity);
        return is_value(*dest) || fail(d, "heap refused the term");
    }
    case PID_EXT:
    case NEW_PID_EXT: {
        term node;
        uint32_t id, serial, creation;
        if (!read_atom(d, &node) || !read_u32(&d->in, &id) || !read_u32(&d->in, &serial) ||
            !(tag == NEW_PID_EXT ? read_u32(&d->in, &creation) : read_u8(&d->in, &creation)))
            return fail(d, "truncated pid");
        *dest = make_pid(id);
        return true;
    }
    case PORT_EXT:
    case NEW_PORT_EXT:
    case V4_PORT_EXT: {
        term node;
        uint64_t id;
        uint32_t id32, creation;
        if (!read_atom(d, &node))
            return false;
        bool ok = tag == V4_PORT_EXT ? read_u64(&d->in, &id) : (read_u32(&d->in, &id32) && ((id = id32), true));
        if (!ok || !(tag == PORT_EXT ? read_u8(&d->in, &creation) : read_u32(&d->in, &creation)))
            return fail(d, "truncated port");
        *dest = make_port(id);
        return true;
    }
    case NEW_REFERENCE_EXT:
    case NEWER_REFERENCE_EXT:
        return decode_reference(d, tag, dest);
    case NEW_FUN_EXT:
        return decode_local_fun(d, dest);
    case COMPRESSED:
        return fail(d, "compressed term inside a term");
    default:
        return fail(d, "unknown tag");
    }
}

/* The map of a FRAME_MAP's pairs, into its destination. */
static bool finish_map(struct decoder *d, const struct frame *f)
{
    term pairs = f->at.container;
    size_t n = tuple_arity(pairs) / 2;
    term *keys = malloc(2 * n * sizeof *keys);
    if (!keys)
        return fail(d, "out of memory");
    term *values = keys + n;
    const term *el = tuple_elements(pairs);
    for (size_t i = 0; i < n; i++) {
        keys[i] = el[2 * i];
        values[i] = el[2 * i + 1];
    }
    term map = map_from_pairs(d->heap, keys, values, n);
    free(keys);
    if (is_non_value(map))
        return fail(d, "heap refused the term");
    d->units += n;
    heap_write(d->heap, slot_ptr(f->map_dest), map);
    return true;
}

/* ---- the frames between portions ----
 * A frame is saved as {Kind, AtContainer, AtOffset, Remaining,
 * DestContainer, DestOffset, Src}, the top one first in the list. */

static bool save_frames(struct decoder *d)
{
    for (size_t k = 0; k < d->depth; k++) {
        const struct frame *f = &d->stack[k];
        term el[7] = {make_small(f->kind),
                      f->at.container,
                      make_small((int64_t)f->at.offset),
                      make_small((int64_t)f->remaining),
                      f->map_dest.container,
                      make_small((int64_t)f->map_dest.offset),
                      make_small((int64_t)f->src)};
        term tuple = heap_tuple(d->heap, 7, el);
        term cell = is_value(tuple) ? heap_cons(d->heap, tuple, d->saved) : tuple;
        if (is_non_value(cell))
            return fail(d, "heap refused the term");
        d->saved = cell;
    }
    return true;
}

/* Takes the top saved frame back onto the (empty) stack; its slots were
 * promised already. */
static bool restore_frame(struct decoder *d)
{
    const term *el = tuple_elements(list_head(d->saved));
    struct frame f = {(uint32_t)small_value(el[0]),
                      {el[1], (size_t)small_value(el[2])},
                      (size_t)small_value(el[3]),
                      {el[4], (size_t)small_value(el[5])},
                      (size_t)small_value(el[6])};
    size_t promised = d->promised;
    if (!push(d, f))
        return false;
    d->promised = promised;
    d->saved = list_tail(d->saved);
    return true;
}

/* Runs until every frame is filled (true, nothing on the stack or saved)
 * or the units reach the limit; false after an error. */
static bool decode_loop(struct decoder *d)
{
    while (d->units < d->limit) {
        if (d->depth == 0) {
            if (d->saved == NIL)
                return true;
            if (!restore_frame(d))
                return false;
        }
        struct frame *f = &d->stack[d->depth - 1];
        if (f->kind == FRAME_BYTES) {
            copy_binary_bytes(d);
            continue;
        }
        if (f->remaining == 0) {
            struct frame done = *f;
            d->depth--;
            if (done.kind == FRAME_MAP && !finish_map(d, &done))
                return false;
            continue;
        }
        struct slot at = f->at;
        if (f->kind == FRAME_CELLS)
            f->at.container = list_tail(f->at.container); /* the cells were linked when allocated */
        else
            f->at.offset++;
        f->remaining--;
        d->promised--;
        d->units++;
        if (!decode_one(d, at)) /* may move the stack: f is dead now */
            return false;
        /* The slot's term may have been promoted between portions. */
        term *slot = slot_ptr(at);
        heap_write(d->heap, slot, *slot);
    }
    return true;
}

enum etf_status etf_decode_portion(heap_t *h, struct etf_decoding *dec, const uint8_t *body, size_t len, size_t limit,
                                   size_t *units, const char **error)
{
    static const struct etf_decode_options no_options = {false, NULL, NULL};
    struct decoder d = {h,          {body + dec->pos, body + len},
                        body,       NULL,
                        0,          0,
                        dec->saved, 0,
                        limit,      dec->promised,
                        NULL,       dec->options ? dec->options : &no_options};
    bool ok = true;
    if (is_non_value(dec->holder)) {
        dec->holder = heap_tuple(h, 1, NULL);
        ok = is_value(dec->holder) ? push_words(&d, dec->holder, 1, 1) : fail(&d, "heap refused the term");
    }
    ok = ok && decode_loop(&d);
    bool done = ok && d.depth == 0 && d.saved == NIL;
    if (ok && !done)
        ok = save_frames(&d);
    free(d.stack);
    *units = d.units;
    dec->pos = (size_t)(d.in.p - body);
    dec->promised = d.promised;
    dec->saved = d.saved;
    if (!ok) {
        *error = d.error ? d.error : "malformed term";
        return ETF_FAILED;
    }
    return done ? ETF_DONE : ETF_MORE;
}

/* Inflates a compressed term's zlib stream, which must give exactly
 * `declared` bytes. The buffer grows with what the stream gives, never to
 * the declared size up front: a few hostile bytes that declare gigabytes
 * cost only what they inflate to. The malloc'd bytes, or NULL with *error
 * set; *consumed gets the compressed bytes used. */
static uint8_t *inflate_declared(const uint8_t *in, size_t in_len, uint32_t declared, size_t *consumed,
                                 const char **error)
{
    size_t cap = declared < 65536 ? (declared ? declared : 1) : 65536;
    uint8_t *out = malloc(cap);
    z_stream z = {0};
    if (!out || inflateInit(&z) != Z_OK) {
        free(out);
        *error = "out of memory";
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = in_len > UINT32_MAX ? UINT32_MAX : (uInt)in_len;
    int status = Z_OK;
    while (status == Z_OK) {
        if (z.total_out == cap) {
            if (cap == declared)
                break; /* more than declared */
            size_t grown = cap * 2 < declared ? cap * 2 : declared;
            uint8_t *bigger = realloc(out, grown);
            if (!bigger) {
                status = Z_MEM_ERROR;
                break;
            }
            out = bigger;
            cap = grown;
        }
        z.next_out = out + z.total_out;
        z.avail_out = (uInt)(cap - z.total_out);
        status = inflate(&z, Z_NO_FLUSH);
    }
    bool complete = status == Z_STREAM_END && z.total_out == declared;
    *consumed = z.total_in;
    inflateEnd(&z);
    if (!complete) {
        free(out);
        *error = status == Z_MEM_ERROR ? "out of memory" : "corrupt compressed term";
        return NULL;
    }
    return out;
}

bool etf_body(const uint8_t *buf, size_t len, struct etf_body *body, const char **error)
{
    struct reader in = {buf, buf + len};
    uint32_t version, tag, size;
    *body = (struct etf_body){buf + 1, len ? len - 1 : 0, NULL, 0};
    if (!read_u8(&in, &version) || version != ETF_VERSION) {
        *error = "not an external term (version byte)";
        return false;
    }
    if (left(&in) < 1 || in.p[0] != COMPRESSED)
        return true;
    read_u8(&in, &tag);
    if (!read_u32(&in, &size)) {
        *error = "truncated compressed term";
        return false;
    }
    size_t compressed_len = 0;
    uint8_t *plain = inflate_declared(in.p, left(&in), size, &compressed_len, error);
    if (!plain)
        return false;
    *body = (struct etf_body){plain, size, plain, (size_t)(in.p - buf) + compressed_len};
    return true;
}

term etf_decode_with(heap_t *h, const uint8_t *buf, size_t len, const struct etf_decode_options *options, size_t *used,
                     const char **error)
{
    struct etf_body body;
    if (!etf_body(buf, len, &body, error))
        return THE_NON_VALUE;
    struct etf_decoding dec = {options, 0, 0, THE_NON_VALUE, NIL};
    size_t units;
    term t = THE_NON_VALUE;
    if (etf_decode_portion(h, &dec, body.data, body.len, SIZE_MAX, &units, error) == ETF_DONE) {
        if (body.inflated && dec.pos != body.len)
            *error = "trailing bytes in compressed term";
        else
            t = tuple_element(dec.holder, 1);
    }
    if (used)
        *used = body.inflated ? body.compressed_used : 1 + dec.pos;
    free(body.inflated);
    return t;
}

/* ---- encoding ----
 *
 * Two passes over the term: the sizing pass counts the bytes (and finds
 * what cannot be encoded), the writing pass writes them into a buffer of
 * exactly that size. Each choice of tag is the one OTP 25 makes: the
 * smallest integer form, latin-1 atoms as ATOM_EXT (UTF-8 forms only for
 * atoms with other characters, or for every atom under minor version 2),
 * byte lists up to 65535 long as STRING_EXT.
 *
 * A pass walks an explicit stack of work items, so depth uses no C stack.
 * Items are cursors (a list's next cell, a tuple's next element, a map's
 * iterator), so the stack grows with the term's nesting, not its size, and
 * the last element of a tuple or list takes its item's place (a million
 * nested 1-tuples keep one item).
 *
 * A pass runs in portions (etf_encode_portion): it stops once it has spent
 * the work units it was given and saves its stack on the heap as a list of
 * tuples, so that the collector may move every term the stack refers to
 * before the next portion resumes. A portion takes saved items back one at
 * a time, as it needs them, so it saves again only what it touched: deep
 * terms do not cost their depth at every portion.
 */

enum item_kind {
    ITEM_TERM,    /* t to encode */
    ITEM_LIST,    /* t a list's next cell; i its cells so far; patch its LIST_EXT length field */
    ITEM_TUPLE,   /* t a tuple (or a deterministic map's sorted pairs), i its next element (1-based) */
    ITEM_FUNENV,  /* t a local fun, i its next free variable (0-based) */
    ITEM_FUNSIZE, /* a local fun's size field at patch, filled once its free variables are written */
    ITEM_BYTES,   /* t a bitstring whose whole bytes from patch on are still to copy */
    ITEM_MAP,     /* iter over a map's pairs */
};

struct item {
    term t;
    uint32_t kind, i;
    size_t patch;
    struct map_iter *iter; /* ITEM_MAP's, malloc'd */
};

struct encoder {
    uint8_t *out; /* the writing pass's buffer; NULL while sizing */
    size_t at;    /* bytes counted or written */
    struct item *stack;
    size_t depth, capacity;
    term saved; /* items below the stack, saved by an earlier portion */
    heap_t *heap;
    const struct etf_encode_options *options;
    size_t units; /* work done in this portion */
    const char *error;
};

static bool enc_fail(struct encoder *e, const char *error)
{
    if (!e->error)
        e->error = error;
    return false;
}

static void put_bytes(struct encoder *e, const void *bytes, size_t n)
{
    if (e->out && n)
        memcpy(e->out + e->at, bytes, n);
    e->at += n;
}

static void put_u8(struct encoder *e, unsigned v)
{
    uint8_t b = (uint8_t)v;
    put_bytes(e, &b, 1);
}

static void put_u16(struct encoder *e, uint32_t v)
{
    uint8_t b[2];
    store_be16(b, (uint16_t)v);
    put_bytes(e, b, 2);
}

static void put_u32(struct encoder *e, uint32_t v)
{
    uint8_t b[4];
    store_be32(b, v);
    put_bytes(e, b, 4);
}

/* Fills a 32-bit field written earlier at `at` (writing pass only). */
static void patch_u32(struct encoder *e, size_t at, uint32_t v)
{
    if (!e->out)
        return;
    store_be32(e->out + at, v);
}

static struct item *push_item(struct encoder *e, uint32_t kind, term t, uint32_t i, size_t patch)
{
    if (e->depth == e->capacity) {
        size_t capacity = e->capacity ? 2 * e->capacity : 64;
        struct item *grown = realloc(e->stack, capacity * sizeof *grown);
        if (!grown) {
            enc_fail(e, "out of memory");
            return NULL;
        }
        e->stack = grown;
        e->capacity = capacity;
    }
    struct item *it = &e->stack[e->depth++];
    *it = (struct item){t, kind, i, patch, NULL};
    return it;
}

static void encode_atom(struct encoder *e, term a, bool always_utf8)
{
    size_t len;
    const unsigned char *text = (const unsigned char *)atom_text(a, &len);
    /* Latin-1 when every character is below 256: in valid UTF-8, when no
     * lead byte is above 0xc3. */
    bool latin1 = true;
    size_t chars = 0;
    for (size_t i = 0; i < len; i++) {
        latin1 = latin1 && text[i] < 0xc4;
        chars += (text[i] & 0xc0) != 0x80;
    }
    latin1 = latin1 && !always_utf8;
    if (latin1) {
        put_u8(e, ATOM_EXT);
        put_u16(e, (uint32_t)chars);
        for (size_t i = 0; i < len; i++) {
            if (text[i] < 0x80)
                put_u8(e, text[i]);
            else if (text[i] >= 0xc0)
                put_u8(e, (unsigned)(text[i] & 0x1f) << 6 | (text[i + 1] & 0x3f));
        }
        return;
    }
    if (len < 256) {
        put_u8(e, SMALL_ATOM_UTF8_EXT);
        put_u8(e, (unsigned)len);
    } else {
        put_u8(e, ATOM_UTF8_EXT);
        put_u16(e, (uint32_t)len);
    }
    put_bytes(e, text, len);
}

/* The node every identifier of this runtime belongs to. */
static void encode_node(struct encoder *e, bool always_utf8) { encode_atom(e, A(nonode_at_nohost), always_utf8); }

/* A local pid, creation 0 as on a node that is not distributed. */
static void encode_pid(struct encoder *e, term pid, bool always_utf8)
{
    uint64_t number = pid_number(pid);
    put_u8(e, NEW_PID_EXT);
    encode_node(e, always_utf8);
    put_u32(e, (uint32_t)number);
    put_u32(e, (uint32_t)(number >> 32));
    put_u32(e, 0);
}

/* An integer's magnitude as little-endian bytes without leading zeros. */
static void encode_big(struct encoder *e, bool negative, const uint64_t *limbs, size_t count)
{
    size_t bytes = count * 8;
    while (bytes > 0 && (limbs[(bytes - 1) / 8] >> (8 * ((bytes - 1) % 8)) & 0xff) == 0)
        bytes--;
    if (bytes < 256) {
        put_u8(e, SMALL_BIG_EXT);
        put_u8(e, (unsigned)bytes);
    } else {
        put_u8(e, LARGE_BIG_EXT);
        put_u32(e, (uint32_t)bytes);
    }
    put_u8(e, negative);
    if (!e->out) {
        e->at += bytes;
        return;
    }
    for (size_t i = 0; i < bytes; i++)
        e->out[e->at++] = (uint8_t)(limbs[i / 8] >> (8 * (i % 8)));
}

static void encode_integer(struct encoder *e, term t)
{
    if (is_small(t)) {
        int64_t v = small_value(t);
        if (v >= 0 && v <= 255) {
            put_u8(e, SMALL_INTEGER_EXT);
            put_u8(e, (unsigned)v);
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            put_u8(e, INTEGER_EXT);
            put_u32(e, (uint32_t)(int32_t)v);
        } else {
            uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            encode_big(e, v < 0, &magnitude, 1);
        }
        return;
    }
    encode_big(e, big_is_negative(t), big_limbs(t), big_limb_count(t));
}

/* A bitstring's header; its bytes follow (ITEM_BYTES), the trailing bits'
 * byte last. */
static bool encode_bitstring(struct encoder *e, term t)
{
    const uint8_t *bytes;
    size_t size;
    unsigned bits;
    bin_bytes(t, &bytes, &size, &bits);
    if (bits == 0) {
        put_u8(e, BINARY_EXT);
        put_u32(e, (uint32_t)size);
    } else {
        put_u8(e, BIT_BINARY_EXT);
        put_u32(e, (uint32_t)size + 1);
        put_u8(e, bits);
    }
    if (!e->out) {
        e->at += size + (bits != 0);
        return true;
    }
    return push_item(e, ITEM_BYTES, t, 0, 0) != NULL;
}

/* OTP 25's TERM_TO_BINARY_MEMCPY_FACTOR: a work unit per 8 bytes copied. */
#define ENC_BYTES_PER_UNIT 8

/* Copies what the units left pay for of the bitstring at the top; pops it
 * once its bytes and trailing bits are written. */
static void copy_bytes(struct encoder *e, size_t limit)
{
    struct item *it = &e->stack[e->depth - 1];
    const uint8_t *bytes;
    size_t size;
    unsigned bits;
    bin_bytes(it->t, &bytes, &size, &bits);
    size_t left = size - it->patch, room = SIZE_MAX;
    if (limit != SIZE_MAX)
        room = (limit > e->units ? limit - e->units : 1) * ENC_BYTES_PER_UNIT;
    size_t n = left < room ? left : room;
    put_bytes(e, bytes + it->patch, n);
    it->patch += n;
    e->units += n / ENC_BYTES_PER_UNIT;
    if (n < left) {
        e->units = limit; /* the rest in the next portion */
        return;
    }
    /* The last byte's `bits` high bits are the tail; its other bits zero. */
    if (bits)
        put_u8(e, bytes[size] & (0xff00u >> bits));
    e->depth--;
}

/* A proper list of at most 65535 integers 0..255: STRING_EXT. *checked
 * counts the cells looked at, for the reductions. */
static bool is_byte_string(term t, size_t *length, size_t *checked)
{
    size_t n = 0;
    bool ok = false;
    for (; is_list(t); t = list_tail(t), n++) {
        term h = list_head(t);
        if (n == 65535 || !is_small(h) || small_value(h) < 0 || small_value(h) > 255)
            goto done;
    }
    ok = t == NIL;
done:
    *length = n;
    *checked = n;
    return ok;
}

static int compare_pair_keys(const void *a, const void *b)
{
    return term_compare_exact(*(const term *)a, *(const term *)b);
}

/* The pairs of map t in key order, as a tuple K1, V1, K2, V2... on the
 * heap, walked as a tuple. */
static bool push_sorted_pairs(struct encoder *e, term map)
{
    size_t n = map_size(map);
    if (!e->heap)
        return enc_fail(e, "a deterministic map needs a heap");
    term pairs = heap_tuple(e->heap, 2 * n, NULL);
    if (is_non_value(pairs))
        return enc_fail(e, "heap refused the term");
    term *elems = tuple_elements(pairs);
    struct map_iter it;
    size_t i = 0;
    map_iter_init(&it, map);
    while (i < n && map_iter_next(&it, &elems[2 * i], &elems[2 * i + 1]))
        i++;
    qsort(elems, i, 2 * sizeof *elems, compare_pair_keys);
    /* Gathering and sorting, charged as about n log2 n comparisons. */
    size_t log2n = 1;
    while ((size_t)1 << log2n < n)
        log2n++;
    e->units += n * log2n;
    return push_item(e, ITEM_TUPLE, pairs, 1, 0) != NULL;
}

static bool push_map(struct encoder *e, term map)
{
    if (e->out && e->options->deterministic)
        return push_sorted_pairs(e, map); /* sizing needs no order */
    struct map_iter *iter = malloc(sizeof *iter);
    if (!iter)
        return enc_fail(e, "out of memory");
    map_iter_init(iter, map);
    struct item *it = push_item(e, ITEM_MAP, map, 0, 0);
    if (!it) {
        free(iter);
        return false;
    }
    it->iter = iter;
    return true;
}

/* NEW_FUN_EXT up to the free variables, which follow as items (and then
 * the size field's patch). */
static bool encode_local_fun(struct encoder *e, term t)
{
    const struct fun_entry *entry = fun_entry_of(t);
    bool utf8 = e->options->minor_version >= 2;
    if (!entry->module_md5 || !is_pid(e->options->fun_creator))
        return enc_fail(e, "a local fun cannot be encoded here");
    put_u8(e, NEW_FUN_EXT);
    size_t size_at = e->at;
    put_u32(e, 0);
    put_u8(e, entry->arity);
    put_bytes(e, entry->module_md5, 16);
    put_u32(e, entry->index);
    put_u32(e, (uint32_t)fun_num_free(t));
    encode_atom(e, entry->module, utf8);
    encode_integer(e, make_small(entry->index));
    encode_integer(e, make_small(entry->old_uniq));
    encode_pid(e, e->options->fun_creator, utf8);
    if (e->out && !push_item(e, ITEM_FUNSIZE, NIL, 0, size_at))
        return false;
    return fun_num_free(t) == 0 || push_item(e, ITEM_FUNENV, t, 0, 0) != NULL;
}

static void encode_float(struct encoder *e, double d)
{
    if (e->options->minor_version == 0) {
        /* FLOAT_EXT: "%.20e" in 31 bytes, zero padded. */
        char text[64];
        int n = snprintf(text, sizeof text, "%.20e", d);
        put_u8(e, FLOAT_EXT);
        for (int i = 0; i < 31; i++)
            put_u8(e, i < n ? (unsigned char)text[i] : 0);
        return;
    }
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    put_u8(e, NEW_FLOAT_EXT);
    put_u32(e, (uint32_t)(bits >> 32));
    put_u32(e, (uint32_t)bits);
}

/* Writes t's tag and fixed part; pushes items for what follows it. */
static bool encode_one(struct encoder *e, term t)
{
    bool utf8 = e->options->minor_version >= 2;
    if (is_integer(t)) {
        encode_integer(e, t);
    } else if (is_atom(t)) {
        encode_atom(e, t, utf8);
    } else if (t == NIL) {
        put_u8(e, NIL_EXT);
    } else if (is_list(t)) {
        size_t n, checked;
        if (is_byte_string(t, &n, &checked)) {
            /* OTP charges a unit per byte of a string, half a unit per
             * cell it looked at before finding a list is none. */
            e->units += n;
            put_u8(e, STRING_EXT);
            put_u16(e, (uint32_t)n);
            if (!e->out) {
                e->at += n;
                return true;
            }
            for (; is_list(t); t = list_tail(t))
                e->out[e->at++] = (uint8_t)small_value(list_head(t));
            return true;
        }
        e->units += checked / 2;
        put_u8(e, LIST_EXT);
        size_t length_at = e->at;
        put_u32(e, 0); /* patched at the list's end */
        return push_item(e, ITEM_LIST, t, 0, length_at) != NULL;
    } else if (is_tuple(t)) {
        uint64_t arity = tuple_arity(t);
        if (arity < 256) {
            put_u8(e, SMALL_TUPLE_EXT);
            put_u8(e, (unsigned)arity);
        } else {
            put_u8(e, LARGE_TUPLE_EXT);
            put_u32(e, (uint32_t)arity);
        }
        return arity == 0 || push_item(e, ITEM_TUPLE, t, 1, 0) != NULL;
    } else if (is_float(t)) {
        encode_float(e, float_value(t));
    } else if (is_bitstring(t)) {
        return encode_bitstring(e, t);
    } else if (is_map(t)) {
        put_u8(e, MAP_EXT);
        put_u32(e, (uint32_t)map_size(t));
        return map_size(t) == 0 || push_map(e, t);
    } else if (is_pid(t)) {
        encode_pid(e, t, utf8);
    } else if (is_port(t)) {
        uint64_t number = port_number(t);
        put_u8(e, number >> 32 ? V4_PORT_EXT : NEW_PORT_EXT);
        encode_node(e, utf8);
        if (number >> 32)
            put_u32(e, (uint32_t)(number >> 32));
        put_u32(e, (uint32_t)number);
        put_u32(e, 0);
    } else if (is_ref(t)) {
        uint64_t low = ref_id_low(t), high = ref_id_high(t);
        unsigned words = high >> 32 ? 4 : 3;
        put_u8(e, NEWER_REFERENCE_EXT);
        put_u16(e, words);
        encode_node(e, utf8);
        put_u32(e, 0);
        put_u32(e, (uint32_t)low);
        put_u32(e, (uint32_t)(low >> 32));
        put_u32(e, (uint32_t)high);
        if (words == 4)
            put_u32(e, (uint32_t)(high >> 32));
    } else if (is_export(t)) {
        put_u8(e, EXPORT_EXT);
        encode_atom(e, boxed_ptr(t)[1], utf8);
        encode_atom(e, boxed_ptr(t)[2], utf8);
        encode_integer(e, boxed_ptr(t)[3]);
    } else if (is_local_fun(t)) {
        return encode_local_fun(e, t);
    } else {
        return enc_fail(e, "a term of unknown kind cannot be encoded");
    }
    return true;
}

/* ---- the stack between portions ----
 * An item is saved as {Kind, T, I, Patch}; a map's iterator as T, the
 * tuple map_iter_save makes. */

/* Moves the stack onto the saved list, its top first in the list. */
static bool save_stack(struct encoder *e)
{
    for (size_t k = 0; k < e->depth; k++) {
        struct item *it = &e->stack[k];
        term t = it->kind == ITEM_MAP ? map_iter_save(e->heap, it->iter) : it->t;
        term saved[4] = {make_small(it->kind), t, make_small(it->i), make_small((int64_t)it->patch)};
        term tuple = is_value(t) ? heap_tuple(e->heap, 4, saved) : t;
        term cell = is_value(tuple) ? heap_cons(e->heap, tuple, e->saved) : tuple;
        if (is_non_value(cell))
            return enc_fail(e, "heap refused the term");
        e->saved = cell;
    }
    return true;
}

/* Takes the top saved item back onto the (empty) stack. */
static bool restore_item(struct encoder *e)
{
    const term *el = tuple_elements(list_head(e->saved));
    struct item *it =
        push_item(e, (uint32_t)small_value(el[0]), el[1], (uint32_t)small_value(el[2]), (size_t)small_value(el[3]));
    if (!it)
        return false;
    e->saved = list_tail(e->saved);
    if (it->kind == ITEM_MAP) {
        it->iter = malloc(sizeof *it->iter);
        if (!it->iter) {
            e->depth--;
            return enc_fail(e, "out of memory");
        }
        map_iter_restore(it->t, it->iter);
        it->t = it->iter->map;
    }
    return true;
}

static void free_stack(struct encoder *e)
{
    for (size_t k = 0; k < e->depth; k++)
        free(e->stack[k].iter);
    free(e->stack);
    e->stack = NULL;
    e->depth = e->capacity = 0;
}

/* Runs until the pass ends (true, e->depth 0 and nothing saved) or the
 * units reach limit; false after an error. */
static bool encode_loop(struct encoder *e, size_t limit)
{
    while (e->units < limit) {
        if (e->depth == 0) {
            if (e->saved == NIL)
                return true;
            if (!restore_item(e))
                return false;
        }
        struct item *it = &e->stack[e->depth - 1];
        term next;
        switch (it->kind) {
        case ITEM_TERM:
            next = it->t;
            e->depth--;
            break;
        case ITEM_LIST: {
            term tail = list_tail(it->t);
            next = list_head(it->t);
            it->i++;
            if (is_list(tail)) {
                it->t = tail;
            } else { /* the tail follows the last element */
                patch_u32(e, it->patch, it->i);
                it->kind = ITEM_TERM;
                it->t = tail;
            }
            break;
        }
        case ITEM_TUPLE:
            next = tuple_element(it->t, it->i);
            if (it->i == tuple_arity(it->t))
                e->depth--;
            else
                it->i++;
            break;
        case ITEM_FUNENV:
            next = fun_free_var(it->t, it->i);
            if (it->i + 1 == fun_num_free(it->t))
                e->depth--;
            else
                it->i++;
            break;
        case ITEM_FUNSIZE:
            /* A local fun's size counts from its size field to its end. */
            patch_u32(e, it->patch, (uint32_t)(e->at - it->patch));
            e->depth--;
            continue;
        case ITEM_BYTES:
            copy_bytes(e, limit);
            continue;
        case ITEM_MAP: {
            term value;
            if (!map_iter_next(it->iter, &next, &value)) {
                free(it->iter);
                e->depth--;
                continue;
            }
            if (!push_item(e, ITEM_TERM, value, 0, 0)) /* the value follows the key */
                return false;
            break;
        }
        default:
            return enc_fail(e, "corrupt encoder state");
        }
        e->units++;
        if (!encode_one(e, next))
            return false;
    }
    return true;
}

enum etf_status etf_encode_portion(heap_t *h, struct etf_encoding *enc, size_t limit, size_t *units, const char **error)
{
    struct encoder e = {enc->out, enc->at, NULL, 0, 0, enc->saved, h, enc->options, 0, NULL};
    bool ok = true;
    if (is_value(enc->first)) {
        if (e.at == 0)
            put_u8(&e, ETF_VERSION);
        ok = push_item(&e, ITEM_TERM, enc->first, 0, 0) != NULL;
        enc->first = THE_NON_VALUE;
    }
    ok = ok && encode_loop(&e, limit);
    bool done = ok && e.depth == 0 && e.saved == NIL;
    if (ok && !done)
        ok = save_stack(&e);
    free_stack(&e);
    *units = e.units;
    enc->at = e.at;
    enc->saved = e.saved;
    if (!ok) {
        *error = e.error ? e.error : "cannot encode";
        return ETF_FAILED;
    }
    return done ? ETF_DONE : ETF_MORE;
}

bool etf_compress(const uint8_t *plain, size_t len, int level, struct strbuf *out)
{
    size_t plain_size = len - 1;
    if (len < 1 || plain_size > UINT32_MAX)
        return false;
    uLongf packed_size = compressBound((uLong)plain_size);
    uint8_t *packed = malloc(packed_size);
    if (!packed)
        return false;
    int z = compress2(packed, &packed_size, (const Bytef *)plain + 1, (uLong)plain_size, level);
    bool smaller = z == Z_OK && 5 + packed_size <= plain_size;
    if (smaller) {
        uint8_t head[6] = {ETF_VERSION, COMPRESSED};
        store_be32(head + 2, (uint32_t)plain_size);
        strbuf_append(out, head, sizeof head);
        strbuf_append(out, packed, packed_size);
    }
    free(packed);
    return smaller;
}

bool etf_encode(term t, struct strbuf *out, const char **error)
{
    struct etf_encode_options defaults = ETF_ENCODE_DEFAULTS;
    return etf_encode_with(t, &defaults, out, error);
}

bool etf_encode_with(term t, const struct etf_encode_options *options, struct strbuf *out, const char **error)
{
    /* Only a deterministic map needs a heap (its sorted pairs). */
    heap_t scratch, *h = NULL;
    if (options->deterministic) {
        if (!heap_init(&scratch, 0, 0)) {
            *error = "out of memory";
            return false;
        }
        h = &scratch;
    }
    struct etf_encoding sizing = {options, NULL, 0, t, NIL};
    size_t units;
    bool ok = etf_encode_portion(h, &sizing, SIZE_MAX, &units, error) == ETF_DONE;
    if (ok) {
        size_t start = out->len;
        strbuf_reserve(out, sizing.at);
        struct etf_encoding writing = {options, (uint8_t *)out->data + start, 0, t, NIL};
        ok = etf_encode_portion(h, &writing, SIZE_MAX, &units, error) == ETF_DONE;
        out->len = start + (ok ? writing.at : 0);
        out->data[out->len] = '\0';
        if (ok && options->compression > 0) {
            struct strbuf packed = STRBUF_INIT;
            if (etf_compress((const uint8_t *)out->data + start, out->len - start, options->compression, &packed)) {
                out->len = start;
                strbuf_append(out, packed.data, packed.len);
            }
            strbuf_free(&packed);
        }
    }
    if (h)
        heap_destroy(h);
    return ok;
}

/* ---- term_to_iovec's pieces ---- */

static bool skip(struct reader *r, size_t n)
{
    if (left(r) < n)
        return false;
    r->p += n;
    return true;
}

/* An atom as a pid's, port's or reference's node. */
static bool skip_atom(struct reader *r)
{
    uint32_t tag, len;
    if (!read_u8(r, &tag))
        return false;
    if (tag == SMALL_ATOM_EXT || tag == SMALL_ATOM_UTF8_EXT)
        return read_u8(r, &len) && skip(r, len);
    if (tag == ATOM_EXT || tag == ATOM_UTF8_EXT)
        return read_u16(r, &len) && skip(r, len);
    return false;
}

/* The encoding is a sequence of terms, each a tag, a fixed part and its
 * subterms following it: `pending` counts the terms still to read, so the
 * walk needs no stack. */
bool etf_large_binaries(const uint8_t *enc, size_t len, size_t min, struct etf_span **spans, size_t *count)
{
    struct reader r = {enc, enc + len};
    uint32_t v, n, tag;
    uint64_t pending = 1;
    size_t cap = 0;
    *spans = NULL;
    *count = 0;
    if (!read_u8(&r, &v) || v != ETF_VERSION)
        return false;
    for (; pending > 0; pending--) {
        if (!read_u8(&r, &tag))
            goto fail;
        bool ok = true;
        switch (tag) {
        case SMALL_INTEGER_EXT:
            ok = skip(&r, 1);
            break;
        case INTEGER_EXT:
            ok = skip(&r, 4);
            break;
        case NEW_FLOAT_EXT:
            ok = skip(&r, 8);
            break;
        case FLOAT_EXT:
            ok = skip(&r, 31);
            break;
        case SMALL_BIG_EXT:
            ok = read_u8(&r, &n) && skip(&r, 1 + (size_t)n);
            break;
        case LARGE_BIG_EXT:
            ok = read_u32(&r, &n) && skip(&r, 1 + (size_t)n);
            break;
        case SMALL_ATOM_EXT:
        case SMALL_ATOM_UTF8_EXT:
            ok = read_u8(&r, &n) && skip(&r, n);
            break;
        case ATOM_EXT:
        case ATOM_UTF8_EXT:
        case STRING_EXT:
            ok = read_u16(&r, &n) && skip(&r, n);
            break;
        case NIL_EXT:
            break;
        case LIST_EXT:
            ok = read_u32(&r, &n);
            pending += (uint64_t)n + 1; /* the elements and the tail */
            break;
        case SMALL_TUPLE_EXT:
            ok = read_u8(&r, &n);
            pending += n;
            break;
        case LARGE_TUPLE_EXT:
            ok = read_u32(&r, &n);
            pending += n;
            break;
        case MAP_EXT:
            ok = read_u32(&r, &n);
            pending += 2 * (uint64_t)n;
            break;
        case NEW_PID_EXT:
            ok = skip_atom(&r) && skip(&r, 12);
            break;
        case NEW_PORT_EXT:
            ok = skip_atom(&r) && skip(&r, 8);
            break;
        case V4_PORT_EXT:
            ok = skip_atom(&r) && skip(&r, 12);
            break;
        case NEWER_REFERENCE_EXT:
            ok = read_u16(&r, &n) && skip_atom(&r) && skip(&r, 4 + 4 * (size_t)n);
            break;
        case EXPORT_EXT:
            pending += 3; /* module, function, arity */
            break;
        case NEW_FUN_EXT:
            /* size, arity, MD5, index, then the free variable count; the
             * module, old index, old uniq and pid, then the variables */
            ok = skip(&r, 4 + 1 + 16 + 4) && read_u32(&r, &n);
            pending += 4 + (uint64_t)n;
            break;
        case BINARY_EXT:
        case BIT_BINARY_EXT: {
            uint32_t bits = 0;
            ok = read_u32(&r, &n) && (tag == BINARY_EXT || read_u8(&r, &bits));
            /* the whole bytes; a bitstring's last byte stays with what follows */
            size_t whole = tag == BINARY_EXT ? n : n ? n - 1 : 0;
            if (ok && whole > min) {
                if (*count == cap) {
                    cap = cap ? 2 * cap : 8;
                    struct etf_span *grown = realloc(*spans, cap * sizeof **spans);
                    if (!grown)
                        goto fail;
                    *spans = grown;
                }
                (*spans)[(*count)++] = (struct etf_span){(size_t)(r.p - enc), whole};
            }
            ok = ok && skip(&r, n);
            break;
        }
        default:
            ok = false;
        }
        if (!ok)
            goto fail;
    }
    if (left(&r) == 0)
        return true;
fail:
    free(*spans);
    *spans = NULL;
    *count = 0;
    return false;
}
