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
    *v = (uint32_t)r->p[0] << 8 | r->p[1];
    r->p += 2;
    return true;
}

static bool read_u32(struct reader *r, uint32_t *v)
{
    if (left(r) < 4)
        return false;
    *v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
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

/* A slot-filling frame: `remaining` slots from dest, `stride` words apart.
 * A map frame fills the pairs buffer, then builds the map into map_dest. */
struct frame {
    term *dest;
    size_t remaining;
    size_t stride;
    term *pairs; /* map frames: malloc'd keys then values interleaved */
    size_t pair_count;
    term *map_dest;
};

struct decoder {
    heap_t *heap;
    struct reader in;
    struct frame *stack;
    size_t depth, capacity;
    /* Slots of open frames not decoded yet: each needs at least one more
     * byte, so a compound term may promise only the bytes left beyond
     * them. Without this, nested headers that each claim a large arity
     * would allocate far more than the input could fill (a hostile
     * binary_to_term argument amplifying into the heap). */
    size_t promised;
    const char *error;
    const struct etf_decode_options *options; /* never NULL */
};

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
    d->promised += f.remaining;
    return true;
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

static bool decode_binary(struct decoder *d, uint32_t size, unsigned bits, term *out)
{
    if (left(&d->in) < size || (bits != 0 && size == 0))
        return fail(d, "truncated binary");
    if (bits == 0) {
        *out = bin_from_bytes(d->heap, d->in.p, size);
    } else {
        /* The last byte holds `bits` significant high bits. */
        term whole = bin_from_bytes(d->heap, d->in.p, size);
        *out = is_value(whole) ? bin_sub(d->heap, whole, 0, size - 1, bits) : whole;
    }
    d->in.p += size;
    if (is_non_value(*out))
        return fail(d, "heap refused the term");
    return true;
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
    return num_free == 0 || push(d, (struct frame){p + 2, num_free, 1, NULL, 0, NULL});
}

/* Decodes the term at the input into *dest; compound terms push a frame for
 * their elements. */
static bool decode_one(struct decoder *d, term *dest)
{
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
        return n == 0 || push(d, (struct frame){p + 1, n, 1, NULL, 0, NULL});
    }
    case STRING_EXT: {
        if (!read_u16(&d->in, &n) || left(&d->in) < n)
            return fail(d, "truncated string");
        *dest = heap_string(d->heap, (const char *)d->in.p, n);
        d->in.p += n;
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
        /* The tail follows the elements in the input: push it first. */
        return push(d, (struct frame){&p[2 * (size_t)n - 1], 1, 1, NULL, 0, NULL}) &&
               push(d, (struct frame){p, n, 2, NULL, 0, NULL});
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
        term *pairs = malloc(2 * (size_t)n * sizeof *pairs);
        if (!pairs)
            return fail(d, "out of memory");
        for (size_t i = 0; i < 2 * (size_t)n; i++)
            pairs[i] = NIL;
        *dest = NIL;
        if (!push(d, (struct frame){pairs, 2 * (size_t)n, 1, pairs, n, dest})) {
            free(pairs);
            return false;
        }
        return true;
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

static bool finish_map(struct decoder *d, struct frame *f)
{
    size_t n = f->pair_count;
    term *keys = malloc(2 * n * sizeof *keys);
    if (!keys)
        return fail(d, "out of memory");
    term *values = keys + n;
    for (size_t i = 0; i < n; i++) {
        keys[i] = f->pairs[2 * i];
        values[i] = f->pairs[2 * i + 1];
    }
    term map = map_from_pairs(d->heap, keys, values, n);
    free(keys);
    if (is_non_value(map))
        return fail(d, "heap refused the term");
    *f->map_dest = map;
    return true;
}

static term decode_body(struct decoder *d)
{
    term result = NIL;
    bool ok = push(d, (struct frame){&result, 1, 1, NULL, 0, NULL});
    while (ok && d->depth > 0) {
        struct frame *f = &d->stack[d->depth - 1];
        if (f->remaining == 0) {
            struct frame done = *f;
            d->depth--;
            if (done.pairs) {
                ok = finish_map(d, &done);
                free(done.pairs);
            }
            continue;
        }
        term *slot = f->dest;
        f->dest += f->stride;
        f->remaining--;
        d->promised--;
        ok = decode_one(d, slot); /* may move the stack: f is dead now */
    }
    while (d->depth > 0) /* after an error: free pending maps' buffers */
        free(d->stack[--d->depth].pairs);
    free(d->stack);
    d->stack = NULL;
    d->capacity = 0;
    return ok ? result : THE_NON_VALUE;
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

term etf_decode(heap_t *h, const uint8_t *buf, size_t len, size_t *used, const char **error)
{
    return etf_decode_with(h, buf, len, NULL, used, error);
}

term etf_decode_with(heap_t *h, const uint8_t *buf, size_t len, const struct etf_decode_options *options, size_t *used,
                     const char **error)
{
    static const struct etf_decode_options no_options = {false, NULL, NULL};
    if (!options)
        options = &no_options;
    struct decoder d = {h, {buf, buf + len}, NULL, 0, 0, 0, NULL, options};
    uint32_t version, tag;
    if (!read_u8(&d.in, &version) || version != ETF_VERSION) {
        *error = "not an external term (version byte)";
        return THE_NON_VALUE;
    }
    if (left(&d.in) >= 1 && d.in.p[0] == COMPRESSED) {
        uint32_t size;
        read_u8(&d.in, &tag);
        if (!read_u32(&d.in, &size)) {
            *error = "truncated compressed term";
            return THE_NON_VALUE;
        }
        size_t compressed_len = 0;
        uint8_t *plain = inflate_declared(d.in.p, left(&d.in), size, &compressed_len, error);
        if (!plain)
            return THE_NON_VALUE;
        struct decoder inner = {h, {plain, plain + size}, NULL, 0, 0, 0, NULL, options};
        term t = decode_body(&inner);
        bool complete = inner.in.p == inner.in.end;
        free(plain);
        if (is_non_value(t) || !complete) {
            *error = inner.error ? inner.error : "trailing bytes in compressed term";
            return THE_NON_VALUE;
        }
        if (used)
            *used = (size_t)(d.in.p - buf) + compressed_len;
        return t;
    }
    term t = decode_body(&d);
    if (is_non_value(t)) {
        *error = d.error ? d.error : "malformed term";
        return THE_NON_VALUE;
    }
    if (used)
        *used = (size_t)(d.in.p - buf);
    return t;
}

/* ---- encoding ----
 *
 * The term is walked with an explicit stack of terms still to write, so
 * depth uses no C stack: a compound term writes its header and pushes its
 * elements last-first. Each choice of tag is the one OTP 25 makes: the
 * smallest integer form, latin-1 atoms as ATOM_EXT (UTF-8 forms only for
 * atoms with other characters, or for every atom under minor version 2),
 * byte lists up to 65535 long as STRING_EXT. */

/* A pending item: a term to write, or (term THE_NON_VALUE) a local fun's
 * size field at patch_at to fill in once its free variables are written. */
struct pending {
    term t;
    size_t patch_at;
};

struct encoder {
    struct strbuf *out;
    struct pending *stack;
    size_t depth, capacity;
    const struct etf_encode_options *options;
};

static void put_u8(struct strbuf *out, unsigned v) { strbuf_putc(out, (char)(uint8_t)v); }

static void put_u16(struct strbuf *out, uint32_t v)
{
    put_u8(out, v >> 8 & 0xff);
    put_u8(out, v & 0xff);
}

static void put_u32(struct strbuf *out, uint32_t v)
{
    put_u16(out, v >> 16);
    put_u16(out, v & 0xffff);
}

static bool push_pending(struct encoder *e, term t, size_t patch_at)
{
    if (e->depth == e->capacity) {
        size_t capacity = e->capacity ? 2 * e->capacity : 64;
        struct pending *grown = realloc(e->stack, capacity * sizeof *grown);
        if (!grown)
            return false;
        e->stack = grown;
        e->capacity = capacity;
    }
    e->stack[e->depth++] = (struct pending){t, patch_at};
    return true;
}

static bool push_term(struct encoder *e, term t) { return push_pending(e, t, 0); }

/* Terms pushed from `first` on went on first-first: reverse them so that
 * they pop in that order. */
static void reverse_pushed(struct encoder *e, size_t first)
{
    for (size_t i = first, j = e->depth; i + 1 < j; i++, j--) {
        struct pending swap = e->stack[i];
        e->stack[i] = e->stack[j - 1];
        e->stack[j - 1] = swap;
    }
}

static void encode_atom(struct strbuf *out, term a, bool always_utf8)
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
        put_u8(out, ATOM_EXT);
        put_u16(out, (uint32_t)chars);
        for (size_t i = 0; i < len; i++) {
            if (text[i] < 0x80)
                put_u8(out, text[i]);
            else if (text[i] >= 0xc0)
                put_u8(out, (unsigned)(text[i] & 0x1f) << 6 | (text[i + 1] & 0x3f));
        }
        return;
    }
    if (len < 256) {
        put_u8(out, SMALL_ATOM_UTF8_EXT);
        put_u8(out, (unsigned)len);
    } else {
        put_u8(out, ATOM_UTF8_EXT);
        put_u16(out, (uint32_t)len);
    }
    strbuf_append(out, text, len);
}

/* The node every identifier of this runtime belongs to. */
static void encode_node(struct strbuf *out, bool always_utf8) { encode_atom(out, A(nonode_at_nohost), always_utf8); }

/* A local pid, creation 0 as on a node that is not distributed. */
static void encode_pid(struct strbuf *out, term pid, bool always_utf8)
{
    uint64_t number = pid_number(pid);
    put_u8(out, NEW_PID_EXT);
    encode_node(out, always_utf8);
    put_u32(out, (uint32_t)number);
    put_u32(out, (uint32_t)(number >> 32));
    put_u32(out, 0);
}

/* An integer's magnitude as little-endian bytes without leading zeros. */
static void encode_big(struct strbuf *out, bool negative, const uint64_t *limbs, size_t count)
{
    size_t bytes = count * 8;
    while (bytes > 0 && (limbs[(bytes - 1) / 8] >> (8 * ((bytes - 1) % 8)) & 0xff) == 0)
        bytes--;
    if (bytes < 256) {
        put_u8(out, SMALL_BIG_EXT);
        put_u8(out, (unsigned)bytes);
    } else {
        put_u8(out, LARGE_BIG_EXT);
        put_u32(out, (uint32_t)bytes);
    }
    put_u8(out, negative);
    for (size_t i = 0; i < bytes; i++)
        put_u8(out, limbs[i / 8] >> (8 * (i % 8)) & 0xff);
}

static void encode_integer(struct strbuf *out, term t)
{
    if (is_small(t)) {
        int64_t v = small_value(t);
        if (v >= 0 && v <= 255) {
            put_u8(out, SMALL_INTEGER_EXT);
            put_u8(out, (unsigned)v);
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            put_u8(out, INTEGER_EXT);
            put_u32(out, (uint32_t)(int32_t)v);
        } else {
            uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            encode_big(out, v < 0, &magnitude, 1);
        }
        return;
    }
    encode_big(out, big_is_negative(t), big_limbs(t), big_limb_count(t));
}

static void encode_bitstring(struct strbuf *out, term t)
{
    const uint8_t *bytes;
    size_t size;
    unsigned bits;
    bin_bytes(t, &bytes, &size, &bits);
    if (bits == 0) {
        put_u8(out, BINARY_EXT);
        put_u32(out, (uint32_t)size);
        strbuf_append(out, bytes, size);
        return;
    }
    /* The last byte's `bits` high bits are the tail; its other bits zero. */
    put_u8(out, BIT_BINARY_EXT);
    put_u32(out, (uint32_t)size + 1);
    put_u8(out, bits);
    strbuf_append(out, bytes, size);
    put_u8(out, bytes[size] & (0xff00u >> bits));
}

/* A proper list of at most 65535 integers 0..255: STRING_EXT. */
static bool is_byte_string(term t, size_t *length)
{
    size_t n = 0;
    for (; is_list(t); t = list_tail(t), n++) {
        term h = list_head(t);
        if (n == 65535 || !is_small(h) || small_value(h) < 0 || small_value(h) > 255)
            return false;
    }
    *length = n;
    return t == NIL;
}

/* Writes t's tag and fixed part; pushes what follows it. */
/* The pairs of map t in key order, pushed to pop first-first. */
static int compare_pair_keys(const void *a, const void *b)
{
    return term_compare_exact(*(const term *)a, *(const term *)b);
}

static bool push_sorted_pairs(struct encoder *e, term map)
{
    size_t n = (size_t)map_size(map);
    term *pairs = malloc((n ? n : 1) * 2 * sizeof *pairs);
    if (!pairs)
        return false;
    struct map_iter it;
    size_t i = 0;
    map_iter_init(&it, map);
    while (i < n && map_iter_next(&it, &pairs[2 * i], &pairs[2 * i + 1]))
        i++;
    qsort(pairs, i, 2 * sizeof *pairs, compare_pair_keys);
    bool ok = true;
    for (size_t k = i; k-- > 0 && ok;)
        ok = push_term(e, pairs[2 * k + 1]) && push_term(e, pairs[2 * k]);
    free(pairs);
    return ok;
}

/* NEW_FUN_EXT up to the free variables, which are pushed with the size
 * field's patch below them. */
static bool encode_local_fun(struct encoder *e, term t, const char **error)
{
    const struct fun_entry *entry = fun_entry_of(t);
    bool utf8 = e->options->minor_version >= 2;
    if (!entry->module_md5 || !is_pid(e->options->fun_creator)) {
        *error = "a local fun cannot be encoded here";
        return false;
    }
    struct strbuf *out = e->out;
    put_u8(out, NEW_FUN_EXT);
    size_t size_at = out->len;
    put_u32(out, 0);
    put_u8(out, entry->arity);
    strbuf_append(out, entry->module_md5, 16);
    put_u32(out, entry->index);
    put_u32(out, (uint32_t)fun_num_free(t));
    encode_atom(out, entry->module, utf8);
    encode_integer(out, make_small(entry->index));
    encode_integer(out, make_small(entry->old_uniq));
    encode_pid(out, e->options->fun_creator, utf8);
    if (!push_pending(e, THE_NON_VALUE, size_at)) {
        *error = "out of memory";
        return false;
    }
    for (uint64_t i = fun_num_free(t); i > 0; i--) {
        if (!push_term(e, fun_free_var(t, i - 1))) {
            *error = "out of memory";
            return false;
        }
    }
    return true;
}

static void encode_float(struct encoder *e, double d)
{
    struct strbuf *out = e->out;
    if (e->options->minor_version == 0) {
        /* FLOAT_EXT: "%.20e" in 31 bytes, zero padded. */
        char text[64];
        int n = snprintf(text, sizeof text, "%.20e", d);
        put_u8(out, FLOAT_EXT);
        for (int i = 0; i < 31; i++)
            put_u8(out, i < n ? (unsigned char)text[i] : 0);
        return;
    }
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    put_u8(out, NEW_FLOAT_EXT);
    put_u32(out, (uint32_t)(bits >> 32));
    put_u32(out, (uint32_t)bits);
}

static bool encode_one(struct encoder *e, term t, const char **error)
{
    struct strbuf *out = e->out;
    bool utf8 = e->options->minor_version >= 2;
    if (is_integer(t)) {
        encode_integer(out, t);
    } else if (is_atom(t)) {
        encode_atom(out, t, utf8);
    } else if (t == NIL) {
        put_u8(out, NIL_EXT);
    } else if (is_list(t)) {
        size_t n = 0;
        if (is_byte_string(t, &n)) {
            put_u8(out, STRING_EXT);
            put_u16(out, (uint32_t)n);
            for (; is_list(t); t = list_tail(t))
                put_u8(out, (unsigned)small_value(list_head(t)));
            return true;
        }
        term tail = t;
        for (n = 0; is_list(tail); tail = list_tail(tail))
            n++;
        put_u8(out, LIST_EXT);
        put_u32(out, (uint32_t)n);
        size_t first = e->depth;
        if (!push_term(e, tail))
            goto out_of_memory;
        for (; is_list(t); t = list_tail(t))
            if (!push_term(e, list_head(t)))
                goto out_of_memory;
        reverse_pushed(e, first + 1); /* the tail stays below the elements */
    } else if (is_tuple(t)) {
        uint64_t arity = tuple_arity(t);
        if (arity < 256) {
            put_u8(out, SMALL_TUPLE_EXT);
            put_u8(out, (unsigned)arity);
        } else {
            put_u8(out, LARGE_TUPLE_EXT);
            put_u32(out, (uint32_t)arity);
        }
        for (uint64_t i = arity; i > 0; i--)
            if (!push_term(e, tuple_element(t, i)))
                goto out_of_memory;
    } else if (is_float(t)) {
        encode_float(e, float_value(t));
    } else if (is_bitstring(t)) {
        encode_bitstring(out, t);
    } else if (is_map(t)) {
        put_u8(out, MAP_EXT);
        put_u32(out, (uint32_t)map_size(t));
        if (e->options->deterministic) {
            if (!push_sorted_pairs(e, t))
                goto out_of_memory;
            return true;
        }
        size_t first = e->depth;
        struct map_iter it;
        term key, value;
        map_iter_init(&it, t);
        while (map_iter_next(&it, &key, &value))
            if (!push_term(e, key) || !push_term(e, value))
                goto out_of_memory;
        reverse_pushed(e, first);
    } else if (is_pid(t)) {
        encode_pid(out, t, utf8);
    } else if (is_port(t)) {
        uint64_t number = port_number(t);
        put_u8(out, number >> 32 ? V4_PORT_EXT : NEW_PORT_EXT);
        encode_node(out, utf8);
        if (number >> 32)
            put_u32(out, (uint32_t)(number >> 32));
        put_u32(out, (uint32_t)number);
        put_u32(out, 0);
    } else if (is_ref(t)) {
        uint64_t low = ref_id_low(t), high = ref_id_high(t);
        unsigned words = high >> 32 ? 4 : 3;
        put_u8(out, NEWER_REFERENCE_EXT);
        put_u16(out, words);
        encode_node(out, utf8);
        put_u32(out, 0);
        put_u32(out, (uint32_t)low);
        put_u32(out, (uint32_t)(low >> 32));
        put_u32(out, (uint32_t)high);
        if (words == 4)
            put_u32(out, (uint32_t)(high >> 32));
    } else if (is_export(t)) {
        put_u8(out, EXPORT_EXT);
        encode_atom(out, boxed_ptr(t)[1], utf8);
        encode_atom(out, boxed_ptr(t)[2], utf8);
        encode_integer(out, boxed_ptr(t)[3]);
    } else if (is_local_fun(t)) {
        return encode_local_fun(e, t, error);
    } else {
        *error = "a term of unknown kind cannot be encoded";
        return false;
    }
    return true;
out_of_memory:
    *error = "out of memory";
    return false;
}

bool etf_encode(term t, struct strbuf *out, const char **error)
{
    struct etf_encode_options defaults = ETF_ENCODE_DEFAULTS;
    return etf_encode_with(t, &defaults, out, error);
}

/* Replaces the encoding from `start` (its version byte) with its
 * compressed form unless that is larger (OTP keeps it at equal size):
 * version, COMPRESSED, the plain size, then zlib's stream of everything
 * after the version byte. */
static bool compress_encoding(struct strbuf *out, size_t start, int level, const char **error)
{
    size_t plain_size = out->len - start - 1;
    if (plain_size > UINT32_MAX)
        return true;
    uLongf packed_size = compressBound((uLong)plain_size);
    uint8_t *packed = malloc(packed_size);
    if (!packed) {
        *error = "out of memory";
        return false;
    }
    int z = compress2(packed, &packed_size, (const Bytef *)out->data + start + 1, (uLong)plain_size, level);
    if (z == Z_OK && 5 + packed_size <= plain_size) {
        out->len = start + 1;
        put_u8(out, COMPRESSED);
        put_u32(out, (uint32_t)plain_size);
        strbuf_append(out, packed, packed_size);
    }
    free(packed);
    return true;
}

bool etf_encode_with(term t, const struct etf_encode_options *options, struct strbuf *out, const char **error)
{
    struct encoder e = {out, NULL, 0, 0, options};
    size_t start = out->len;
    put_u8(out, ETF_VERSION);
    bool ok = push_term(&e, t);
    if (!ok)
        *error = "out of memory";
    while (ok && e.depth > 0) {
        struct pending next = e.stack[--e.depth];
        if (is_value(next.t)) {
            ok = encode_one(&e, next.t, error);
            continue;
        }
        /* A local fun's size counts from its size field to its end. */
        uint32_t size = (uint32_t)(out->len - next.patch_at);
        for (int i = 0; i < 4; i++)
            out->data[next.patch_at + (size_t)i] = (char)(uint8_t)(size >> (24 - 8 * i));
    }
    free(e.stack);
    if (ok && options->compression > 0)
        ok = compress_encoding(out, start, options->compression, error);
    return ok;
}
