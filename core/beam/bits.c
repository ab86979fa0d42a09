/*
 * bits.c — bit syntax: match contexts and binary construction (bits.h).
 *
 * Bits are numbered from the most significant bit of a bitstring's first
 * byte, as Erlang numbers them. bits_read and write_bits move up to 64 bits
 * at any bit offset a byte at a time, bits_read_within and write_bits_within
 * with one 8-byte load (and store) where those bytes are the binary's;
 * copy_bits moves any number. Integers
 * wider than 64 bits pass through limb arrays (two's complement, least
 * significant limb first, GMP's order as in bignum.h). Little-endian
 * integers are their bytes from the least significant, the last "byte"
 * holding the size's remainder of bits (OTP's rule for sizes that are not a
 * multiple of 8). A binary matched at an offset inside a byte is copied
 * into a new binary, since a sub-binary starts at a byte (binary.h).
 *
 * Appending (a bs_create_bin whose first segment is append or
 * private_append) writes in place when the binary appended to ends exactly
 * at the tip of a writable binary (binary.h) that nothing but this heap
 * refers to, and there is room; otherwise it copies into a new writable
 * binary with twice the room needed, so a loop appending to its last result
 * costs amortized constant time a segment.
 */
#include "beam/bits.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static uint64_t ctx_offset(term ctx) { return (uint64_t)small_value(boxed_ptr(ctx)[BITS_CTX_OFFSET]); }
static uint64_t ctx_end(term ctx) { return (uint64_t)small_value(boxed_ptr(ctx)[BITS_CTX_END]); }
static void ctx_advance(term ctx, uint64_t bits)
{
    boxed_ptr(ctx)[BITS_CTX_OFFSET] = make_small((int64_t)(ctx_offset(ctx) + bits));
}
static const uint8_t *ctx_data(term ctx) { return bin_data(boxed_ptr(ctx)[BITS_CTX_BINARY]); }

term bits_start_match(heap_t *h, term src, enum bits_result *result)
{
    if (bits_is_context(src))
        return src;
    if (!is_bitstring(src)) {
        *result = BITS_NO_MATCH;
        return THE_NON_VALUE;
    }
    const uint8_t *data;
    size_t size;
    unsigned bitsize;
    bin_bytes(src, &data, &size, &bitsize);
    term *p = heap_alloc(h, 5);
    if (!p) {
        *result = BITS_NO_MEMORY;
        return THE_NON_VALUE;
    }
    p[0] = make_header(SUBTAG_TUPLE, 4);
    p[BITS_CTX_MARK] = BITS_MATCH_CONTEXT;
    p[BITS_CTX_BINARY] = src;
    p[BITS_CTX_OFFSET] = make_small(0);
    p[BITS_CTX_END] = make_small((int64_t)(size * 8 + bitsize));
    *result = BITS_OK;
    return make_boxed(p);
}

/* ---- moving bits ---- */

/* n (<= 64) bits at bit offset `at`, most significant first. */
uint64_t bits_read(const uint8_t *data, uint64_t at, unsigned n)
{
    if (n == 0)
        return 0;
    const uint8_t *p = data + at / 8;
    unsigned skip = (unsigned)(at % 8), avail = 8 - skip;
    uint64_t v = *p & (0xFFu >> skip);
    if (n <= avail)
        return v >> (avail - n);
    n -= avail;
    p++;
    for (; n >= 8; n -= 8)
        v = v << 8 | *p++;
    if (n)
        v = v << n | (uint64_t)(*p >> (8 - n));
    return v;
}

/* The low n (<= 64) bits of v at bit offset `at`, most significant first;
 * the other bits of the bytes touched keep their values (an in-place
 * append adds bits beside ones other terms see). */
static void write_bits(uint8_t *data, uint64_t at, uint64_t v, unsigned n)
{
    if (n == 0)
        return;
    uint8_t *p = data + at / 8;
    unsigned skip = (unsigned)(at % 8), avail = 8 - skip;
    if (n <= avail) {
        unsigned shift = avail - n;
        unsigned mask = ((1u << n) - 1) << shift;
        *p = (uint8_t)((*p & ~mask) | ((unsigned)(v << shift) & mask));
        return;
    }
    n -= avail;
    unsigned mask = 0xFFu >> skip;
    *p = (uint8_t)((*p & ~mask) | ((unsigned)(v >> n) & mask));
    p++;
    for (; n >= 8; n -= 8)
        *p++ = (uint8_t)(v >> (n - 8));
    if (n) {
        mask = (0xFF00u >> n) & 0xFFu;
        *p = (uint8_t)((*p & ~mask) | ((unsigned)(v << (8 - n)) & mask));
    }
}

/* write_bits where the 8 bytes from at's lie within the `bytes` of data:
 * one load and one store, the bits around the n kept as they were. */
static void write_bits_within(uint8_t *data, uint64_t at, uint64_t v, unsigned n, uint64_t bytes)
{
    if (n == 0 || at % 8 + n > 64 || at / 8 + 8 > bytes) {
        write_bits(data, at, v, n);
        return;
    }
    uint64_t w;
    memcpy(&w, data + at / 8, sizeof w);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    unsigned shift = 64 - (unsigned)(at % 8) - n;
    uint64_t mask = (n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1) << shift;
    w = (w & ~mask) | (v << shift & mask);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    memcpy(data + at / 8, &w, sizeof w);
}

static void copy_bits(uint8_t *dst, uint64_t dst_at, const uint8_t *src, uint64_t src_at, uint64_t n)
{
    if (dst_at % 8 == 0 && src_at % 8 == 0) {
        if (n >= 8)
            memcpy(dst + dst_at / 8, src + src_at / 8, (size_t)(n / 8));
        uint64_t whole = n / 8 * 8;
        write_bits(dst, dst_at + whole, bits_read(src, src_at + whole, (unsigned)(n % 8)), (unsigned)(n % 8));
        return;
    }
    for (; n >= 56; n -= 56, dst_at += 56, src_at += 56)
        write_bits(dst, dst_at, bits_read(src, src_at, 56), 56);
    write_bits(dst, dst_at, bits_read(src, src_at, (unsigned)n), (unsigned)n);
}

/* The low `bytes` (<= 8) bytes of v in the other order. */
static uint64_t swap_bytes(uint64_t v, unsigned bytes)
{
    return bytes == 0 ? 0 : __builtin_bswap64(v) >> (64 - 8 * bytes);
}

static bool little_endian(unsigned flags) { return flags & (BITS_FLAG_LITTLE | BITS_FLAG_NATIVE); }

/* ---- integers of any width ---- */

static size_t limb_count(uint64_t bits) { return (size_t)((bits + 63) / 64); }

/* `bits` bits at `at` into m = limb_count(bits) limbs: big endian, or
 * little endian by bytes with the remainder last. */
static void read_limbs(const uint8_t *data, uint64_t at, uint64_t bits, bool little, uint64_t *limbs)
{
    size_t m = limb_count(bits);
    memset(limbs, 0, m * sizeof *limbs);
    if (!little) {
        unsigned top = (unsigned)(bits - 64 * (m - 1));
        limbs[m - 1] = bits_read(data, at, top);
        at += top;
        for (size_t i = m - 1; i-- > 0; at += 64)
            limbs[i] = bits_read(data, at, 64);
        return;
    }
    uint64_t whole = bits / 8;
    for (uint64_t i = 0; i < whole; i++, at += 8)
        limbs[i / 8] |= bits_read(data, at, 8) << (8 * (i % 8));
    if (bits % 8)
        limbs[whole / 8] |= bits_read(data, at, (unsigned)(bits % 8)) << (8 * (whole % 8));
}

/* An integer's two's complement limbs, each computed when asked: below the
 * magnitude's lowest non-zero limb z a negative value's limbs are 0, at z
 * the limb is negated, above it inverted (-x = ~x + 1, the carry stopping
 * at z), and past the magnitude all ones. */
struct int_view {
    const uint64_t *mag;
    size_t k, z;
    bool negative;
    int64_t small;
    bool is_small;
};

static struct int_view int_view(term v)
{
    struct int_view w = {0};
    w.is_small = is_small(v);
    if (w.is_small) {
        w.small = small_value(v);
        return w;
    }
    w.mag = big_limbs(v);
    w.k = (size_t)big_limb_count(v);
    w.negative = big_is_negative(v);
    while (w.z < w.k && w.mag[w.z] == 0)
        w.z++;
    return w;
}

static uint64_t int_limb(const struct int_view *w, size_t i)
{
    if (w->is_small)
        return i == 0 ? (uint64_t)w->small : w->small < 0 ? UINT64_MAX : 0;
    uint64_t m = i < w->k ? w->mag[i] : 0;
    if (!w->negative)
        return m;
    return i < w->z ? 0 : i == w->z ? ~m + 1 : ~m;
}

/* The inverse of read_limbs, for the integer w modulo 2^bits. */
static void write_limbs(uint8_t *data, uint64_t at, uint64_t bits, bool little, const struct int_view *w)
{
    size_t m = limb_count(bits);
    if (!little) {
        unsigned top = (unsigned)(bits - 64 * (m - 1));
        write_bits(data, at, int_limb(w, m - 1), top);
        at += top;
        for (size_t i = m - 1; i-- > 0; at += 64)
            write_bits(data, at, int_limb(w, i), 64);
        return;
    }
    uint64_t whole = bits / 8;
    for (uint64_t i = 0; i < whole; i++, at += 8)
        write_bits(data, at, int_limb(w, (size_t)(i / 8)) >> (8 * (i % 8)), 8);
    if (bits % 8)
        write_bits(data, at, int_limb(w, (size_t)(whole / 8)) >> (8 * (whole % 8)), (unsigned)(bits % 8));
}

/* Limbs for `bits` bits: on the stack when few, else from the C heap (only
 * integers wider than 512 bits get there). */
#define INLINE_LIMBS 8

static uint64_t *limbs_for(uint64_t bits, uint64_t *inline_limbs)
{
    size_t m = limb_count(bits);
    return m <= INLINE_LIMBS ? inline_limbs : malloc(m * sizeof(uint64_t));
}

static term wide_integer(heap_t *h, const uint8_t *data, uint64_t at, uint64_t bits, unsigned flags,
                         enum bits_result *r)
{
    uint64_t inline_limbs[INLINE_LIMBS];
    uint64_t *limbs = limbs_for(bits, inline_limbs);
    if (!limbs) {
        h->failure = HEAP_FAIL_NOMEM;
        *r = BITS_NO_MEMORY;
        return THE_NON_VALUE;
    }
    size_t m = limb_count(bits);
    read_limbs(data, at, bits, little_endian(flags), limbs);
    bool negative = false;
    unsigned top = (unsigned)(bits % 64);
    if ((flags & BITS_FLAG_SIGNED) && (limbs[m - 1] >> (top ? top - 1 : 63)) & 1) {
        /* Sign-extend, then take the magnitude: -x = ~x + 1. */
        if (top)
            limbs[m - 1] |= ~(((uint64_t)1 << top) - 1);
        uint64_t carry = 1;
        for (size_t i = 0; i < m; i++) {
            limbs[i] = ~limbs[i] + carry;
            carry = carry && limbs[i] == 0;
        }
        negative = true;
    }
    term t = int_from_limbs(h, negative, limbs, m);
    if (limbs != inline_limbs)
        free(limbs);
    *r = is_value(t) ? BITS_OK : BITS_NO_MEMORY;
    return t;
}

enum bits_result bits_get_integer(heap_t *h, term ctx, uint64_t bits, unsigned flags, term *out)
{
    if (bits > bits_remaining(ctx))
        return BITS_NO_MATCH;
    if (bits < SMALL_BITS && !(little_endian(flags) && bits % 8)) {
        bits_get_small(ctx, (unsigned)bits, flags, out);
        return BITS_OK;
    }
    const uint8_t *data = ctx_data(ctx);
    uint64_t at = ctx_offset(ctx);
    term t;
    if (bits > 64 || (little_endian(flags) && bits % 8)) {
        enum bits_result r;
        t = wide_integer(h, data, at, bits, flags, &r);
        if (r != BITS_OK)
            return r;
    } else {
        uint64_t v = bits_read(data, at, (unsigned)bits);
        if (little_endian(flags))
            v = swap_bytes(v, (unsigned)(bits / 8));
        if ((flags & BITS_FLAG_SIGNED) && bits < 64 && (v >> (bits - 1)) & 1)
            t = int_from_int64(h, (int64_t)(v | ~(((uint64_t)1 << bits) - 1)));
        else if ((flags & BITS_FLAG_SIGNED) && bits == 64)
            t = int_from_int64(h, (int64_t)v);
        else
            t = int_from_uint64(h, v);
        if (is_non_value(t))
            return BITS_NO_MEMORY;
    }
    ctx_advance(ctx, bits);
    *out = t;
    return BITS_OK;
}

/* `bits` bits at bit `at` of bin (whose bytes are data) as a term: a
 * sub-binary when `at` is on a byte, else a copy. */
static term extract(heap_t *h, term bin, const uint8_t *data, uint64_t at, uint64_t bits)
{
    if (at % 8 == 0)
        return bin_sub(h, bin, (size_t)(at / 8), (size_t)(bits / 8), (unsigned)(bits % 8));
    size_t bytes = (size_t)((bits + 7) / 8);
    uint8_t *d;
    term t = bin_alloc(h, bytes, &d);
    if (is_non_value(t))
        return t;
    if (bytes)
        d[bytes - 1] = 0; /* the padding after trailing bits */
    copy_bits(d, 0, data, at, bits);
    if (bits % 8)
        t = bin_sub(h, t, 0, (size_t)(bits / 8), (unsigned)(bits % 8));
    return t;
}

enum bits_result bits_get_binary(heap_t *h, term ctx, uint64_t bits, unsigned unit, term *out)
{
    uint64_t left = bits_remaining(ctx);
    if (bits == UINT64_MAX) {
        if (unit > 1 && left % unit)
            return BITS_NO_MATCH;
        bits = left;
    }
    if (bits > left)
        return BITS_NO_MATCH;
    term t = extract(h, boxed_ptr(ctx)[BITS_CTX_BINARY], ctx_data(ctx), ctx_offset(ctx), bits);
    if (is_non_value(t))
        return BITS_NO_MEMORY;
    ctx_advance(ctx, bits);
    *out = t;
    return BITS_OK;
}

/* ---- 16-bit floats (IEEE 754 binary16) ---- */

/* A finite double to binary16, rounding to nearest, ties to even (what a
 * C cast to _Float16 does, which OTP 25 uses); too large gives infinity. */
static uint16_t half_from_double(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    uint16_t sign = (uint16_t)(u >> 48 & 0x8000);
    int e = (int)(u >> 52 & 0x7FF) - 1023;
    uint64_t full = (u & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
    if ((u >> 52 & 0x7FF) == 0)
        return sign; /* a double subnormal: far below half's least */
    if (e > 15)
        return sign | 0x7C00;
    unsigned shift;
    uint32_t h;
    if (e >= -14) {
        shift = 42; /* 52 fraction bits to 10 */
        h = (uint32_t)(e + 15) << 10 | (uint32_t)(full >> shift & 0x3FF);
    } else {
        shift = (unsigned)(28 - e); /* units of 2^-24 */
        if (shift > 63)
            return sign;
        h = (uint32_t)(full >> shift);
    }
    uint64_t rest = full & (((uint64_t)1 << shift) - 1), half = (uint64_t)1 << (shift - 1);
    if (rest > half || (rest == half && (h & 1)))
        h++; /* a carry into the exponent is right, up to infinity */
    return (uint16_t)(sign | h);
}

static double half_to_double(uint16_t v)
{
    int e = v >> 10 & 0x1F;
    double m = v & 0x3FF;
    double d = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return v & 0x8000 ? -d : d;
}

enum bits_result bits_get_float(heap_t *h, term ctx, uint64_t bits, unsigned flags, term *out)
{
    if (bits > bits_remaining(ctx))
        return BITS_NO_MATCH;
    if (bits != 64 && bits != 32 && bits != 16)
        return BITS_NO_MATCH;
    uint64_t v = bits_read(ctx_data(ctx), ctx_offset(ctx), (unsigned)bits);
    if (little_endian(flags))
        v = swap_bytes(v, (unsigned)(bits / 8));
    double d;
    if (bits == 64) {
        memcpy(&d, &v, sizeof d);
    } else if (bits == 32) {
        uint32_t w = (uint32_t)v;
        float f;
        memcpy(&f, &w, sizeof f);
        d = f;
    } else {
        d = half_to_double((uint16_t)v);
    }
    if (!isfinite(d))
        return BITS_NO_MATCH;
    term t = heap_float(h, d);
    if (is_non_value(t))
        return BITS_NO_MEMORY;
    ctx_advance(ctx, bits);
    *out = t;
    return BITS_OK;
}

/* ---- UTF-8, UTF-16, UTF-32 ---- */

static bool code_point_valid(int64_t c) { return c >= 0 && c <= 0x10FFFF && (c < 0xD800 || c > 0xDFFF); }

enum bits_result bits_get_utf8(term ctx, term *out)
{
    uint64_t at = ctx_offset(ctx), left = bits_remaining(ctx);
    const uint8_t *data = ctx_data(ctx);
    if (left < 8)
        return BITS_NO_MATCH;
    uint8_t s[4];
    s[0] = (uint8_t)bits_read(data, at, 8);
    unsigned n = s[0] < 0x80             ? 1
                 : (s[0] & 0xE0) == 0xC0 ? 2
                 : (s[0] & 0xF0) == 0xE0 ? 3
                 : (s[0] & 0xF8) == 0xF0 ? 4
                                         : 0;
    if (n == 0 || n > left / 8)
        return BITS_NO_MATCH;
    uint32_t c = n == 1 ? s[0] : (uint32_t)(s[0] & (0x7F >> n));
    for (unsigned i = 1; i < n; i++) {
        s[i] = (uint8_t)bits_read(data, at + 8 * i, 8);
        if ((s[i] & 0xC0) != 0x80)
            return BITS_NO_MATCH;
        c = c << 6 | (s[i] & 0x3F);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || !code_point_valid(c))
        return BITS_NO_MATCH;
    ctx_advance(ctx, 8u * n);
    *out = make_small(c);
    return BITS_OK;
}

static uint32_t read_unit(term ctx, uint64_t at, unsigned bits, unsigned flags)
{
    uint64_t v = bits_read(ctx_data(ctx), at, bits);
    return (uint32_t)(little_endian(flags) ? swap_bytes(v, bits / 8) : v);
}

enum bits_result bits_get_utf16(term ctx, unsigned flags, term *out)
{
    uint64_t at = ctx_offset(ctx), left = bits_remaining(ctx);
    if (left < 16)
        return BITS_NO_MATCH;
    uint32_t w = read_unit(ctx, at, 16, flags);
    if (w >= 0xDC00 && w <= 0xDFFF)
        return BITS_NO_MATCH;
    if (w < 0xD800 || w > 0xDBFF) {
        ctx_advance(ctx, 16);
        *out = make_small(w);
        return BITS_OK;
    }
    if (left < 32)
        return BITS_NO_MATCH;
    uint32_t low = read_unit(ctx, at + 16, 16, flags);
    if (low < 0xDC00 || low > 0xDFFF)
        return BITS_NO_MATCH;
    ctx_advance(ctx, 32);
    *out = make_small(0x10000 + ((w - 0xD800) << 10) + (low - 0xDC00));
    return BITS_OK;
}

enum bits_result bits_get_utf32(term ctx, unsigned flags, term *out)
{
    if (bits_remaining(ctx) < 32)
        return BITS_NO_MATCH;
    uint32_t c = read_unit(ctx, ctx_offset(ctx), 32, flags);
    if (!code_point_valid(c))
        return BITS_NO_MATCH;
    ctx_advance(ctx, 32);
    *out = make_small(c);
    return BITS_OK;
}

enum bits_result bits_skip(term ctx, uint64_t bits)
{
    if (bits == UINT64_MAX)
        bits = bits_remaining(ctx);
    if (bits > bits_remaining(ctx))
        return BITS_NO_MATCH;
    ctx_advance(ctx, bits);
    return BITS_OK;
}

enum bits_result bits_match_string(term ctx, const uint8_t *bytes, uint64_t bits)
{
    if (bits > bits_remaining(ctx))
        return BITS_NO_MATCH;
    uint64_t at = ctx_offset(ctx);
    const uint8_t *data = ctx_data(ctx);
    if (bits <= 64) {
        /* The commonest: a few bits or bytes (<<1:1, Rest/bits>>). */
        if (bits_read_within(data, at, (unsigned)bits, ctx_end(ctx)) != bits_read(bytes, 0, (unsigned)bits))
            return BITS_NO_MATCH;
    } else if (at % 8 == 0 && bits % 8 == 0) {
        if (memcmp(data + at / 8, bytes, (size_t)(bits / 8)) != 0)
            return BITS_NO_MATCH;
    } else {
        /* A string of bits (<<1:1, 1:1, 0:1, ...>> in a pattern), or one
         * at an offset inside a byte: compared 64 bits at a time. */
        for (uint64_t done = 0; done < bits; done += 64) {
            unsigned n = bits - done < 64 ? (unsigned)(bits - done) : 64;
            if (bits_read(data, at + done, n) != bits_read(bytes, done, n))
                return BITS_NO_MATCH;
        }
    }
    ctx_advance(ctx, bits);
    return BITS_OK;
}

/* The rest of the binary, leaving the position where it is, as OTP's
 * bs_get_tail does: the compiler may go on matching with the same context
 * (a function given it tests the rest's size, then passes the context on). */
enum bits_result bits_get_tail(heap_t *h, term ctx, term *out)
{
    uint64_t at = ctx_offset(ctx);
    enum bits_result r = bits_get_binary(h, ctx, UINT64_MAX, 1, out);
    boxed_ptr(ctx)[BITS_CTX_OFFSET] = make_small((int64_t)at);
    return r;
}

/* ---- construction ---- */

/* Segment types and flags by atom, interned at first use (atom_intern is
 * idempotent and thread-safe, so two workers racing store the same term):
 * the types in enum bits_segment_kind's order, then the flags. */
enum {
    SEG_FLAG_LITTLE = BITS_SEG_UNKNOWN,
    SEG_FLAG_SIGNED,
    SEG_FLAG_NATIVE,
    SEG_NAMES,
};
static const char *const seg_names[SEG_NAMES] = {
    "integer", "float",  "binary",         "string", "utf8",   "utf16",
    "utf32",   "append", "private_append", "little", "signed", "native",
};
static _Atomic term seg_atoms[SEG_NAMES];

static term seg_atom(unsigned i)
{
    term a = atomic_load_explicit(&seg_atoms[i], memory_order_relaxed);
    if (a == 0) {
        a = atom_intern_cstr(seg_names[i]);
        atomic_store_explicit(&seg_atoms[i], a, memory_order_relaxed);
    }
    return a;
}

enum bits_segment_kind bits_segment_kind_of(term type)
{
    for (unsigned i = 0; i < BITS_SEG_UNKNOWN; i++)
        if (type == seg_atom(i))
            return (enum bits_segment_kind)i;
    return BITS_SEG_UNKNOWN;
}

unsigned bits_segment_flags_of(term flags)
{
    unsigned f = 0;
    for (; is_list(flags); flags = list_tail(flags)) {
        term a = list_head(flags);
        if (a == seg_atom(SEG_FLAG_LITTLE))
            f |= BITS_FLAG_LITTLE;
        else if (a == seg_atom(SEG_FLAG_SIGNED))
            f |= BITS_FLAG_SIGNED;
        else if (a == seg_atom(SEG_FLAG_NATIVE))
            f |= BITS_FLAG_NATIVE;
    }
    return f;
}

static size_t utf8_length(int64_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

static uint64_t bitstring_bits(term t)
{
    const uint8_t *d;
    size_t n;
    unsigned extra;
    bin_bytes(t, &d, &n, &extra);
    return (uint64_t)n * 8 + extra;
}

/* The bits segment s adds, or BITS_NO_MATCH for a bad argument (badarg). */
static enum bits_result segment_bits(const struct bits_segment *s, uint64_t *bits)
{
    enum bits_segment_kind k = s->kind;
    switch (k) {
    case BITS_SEG_INTEGER:
    case BITS_SEG_FLOAT:
        if (!is_small(s->size) || small_value(s->size) < 0 ||
            (s->unit > 1 && (uint64_t)small_value(s->size) > UINT64_MAX / 2 / s->unit))
            return BITS_NO_MATCH;
        *bits = (uint64_t)small_value(s->size) * s->unit;
        if (k == BITS_SEG_INTEGER)
            return is_integer(s->value) ? BITS_OK : BITS_NO_MATCH;
        if (*bits != 16 && *bits != 32 && *bits != 64)
            return BITS_NO_MATCH;
        double d;
        return is_float(s->value) || (is_integer(s->value) && int_to_double(s->value, &d)) ? BITS_OK : BITS_NO_MATCH;
    case BITS_SEG_BINARY:
    case BITS_SEG_APPEND:
    case BITS_SEG_PRIVATE_APPEND: {
        if (!is_bitstring(s->value))
            return BITS_NO_MATCH;
        uint64_t have = bitstring_bits(s->value);
        if (!is_small(s->size)) {
            *bits = have;
            return s->unit > 1 && have % s->unit ? BITS_NO_MATCH : BITS_OK;
        }
        if (small_value(s->size) < 0)
            return BITS_NO_MATCH;
        *bits = (uint64_t)small_value(s->size) * s->unit;
        return *bits <= have ? BITS_OK : BITS_NO_MATCH;
    }
    case BITS_SEG_STRING:
        *bits = (uint64_t)small_value(s->size) * (s->unit ? s->unit : 8);
        return BITS_OK;
    case BITS_SEG_UTF8:
    case BITS_SEG_UTF16:
    case BITS_SEG_UTF32: {
        if (!is_small(s->value) || !code_point_valid(small_value(s->value)))
            return BITS_NO_MATCH;
        int64_t c = small_value(s->value);
        *bits = k == BITS_SEG_UTF8 ? 8 * utf8_length(c) : k == BITS_SEG_UTF32 || c >= 0x10000 ? 32 : 16;
        return BITS_OK;
    }
    default:
        return BITS_NO_MATCH;
    }
}

/* The error of a segment segment_bits refused (see bits_failure). */
static void explain_segment(const struct bits_segment *s, struct bits_failure *f)
{
    bool sized = is_small(s->size) && small_value(s->size) >= 0;
    f->error = "type";
    f->value = s->value;
    switch (s->kind) {
    case BITS_SEG_INTEGER:
        f->type = "integer";
        if (!sized || (s->unit > 1 && (uint64_t)small_value(s->size) > UINT64_MAX / 2 / s->unit)) {
            f->error = "size";
            f->value = s->size;
        }
        return;
    case BITS_SEG_FLOAT:
        f->type = "float";
        if (!sized) {
            f->error = "size";
            f->value = s->size;
        } else if (is_number(s->value)) {
            f->error = "invalid"; /* a size other than 16, 32 or 64 bits */
            f->value = s->size;
        }
        return;
    case BITS_SEG_BINARY:
    case BITS_SEG_APPEND:
    case BITS_SEG_PRIVATE_APPEND:
        f->type = "binary";
        if (!is_bitstring(s->value))
            return;
        if (is_small(s->size))
            f->error = small_value(s->size) < 0 ? "size" : "short";
        else
            f->error = "unit";
        if (is_small(s->size) && small_value(s->size) < 0)
            f->value = s->size;
        return;
    case BITS_SEG_UTF8:
        f->type = "utf8";
        return;
    case BITS_SEG_UTF16:
        f->type = "utf16";
        return;
    case BITS_SEG_UTF32:
        f->type = "utf32";
        return;
    default:
        f->type = "integer";
        return;
    }
}

bool bits_explain_failure(const struct bits_segment *segments, size_t n, struct bits_failure *out)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        if (segment_bits(&segments[i], &bits) == BITS_NO_MATCH) {
            out->segment = i;
            explain_segment(&segments[i], out);
            return true;
        }
    }
    return false;
}

static void write_integer(uint8_t *data, uint64_t at, term value, unsigned flags, uint64_t bits)
{
    if (bits == 0)
        return;
    int64_t v;
    bool little = little_endian(flags);
    if (bits <= 64 && is_small(value)) {
        v = small_value(value);
        if (!little) {
            write_bits(data, at, (uint64_t)v, (unsigned)bits);
            return;
        }
        if (bits % 8 == 0) {
            write_bits(data, at, swap_bytes((uint64_t)v, (unsigned)(bits / 8)), (unsigned)bits);
            return;
        }
    }
    struct int_view w = int_view(value);
    write_limbs(data, at, bits, little, &w);
}

static void write_float(uint8_t *data, uint64_t at, term value, unsigned flags, uint64_t bits)
{
    double d;
    if (is_float(value))
        d = float_value(value);
    else
        int_to_double(value, &d); /* checked by segment_bits */
    uint64_t u;
    if (bits == 64) {
        memcpy(&u, &d, sizeof u);
    } else if (bits == 32) {
        float f = (float)d;
        uint32_t w;
        memcpy(&w, &f, sizeof w);
        u = w;
    } else {
        u = half_from_double(d);
    }
    if (little_endian(flags))
        u = swap_bytes(u, (unsigned)(bits / 8));
    write_bits(data, at, u, (unsigned)bits);
}

static void write_segment(uint8_t *data, uint64_t at, const struct bits_segment *s, uint64_t bits)
{
    switch (s->kind) {
    case BITS_SEG_INTEGER:
        write_integer(data, at, s->value, s->flags, bits);
        return;
    case BITS_SEG_FLOAT:
        write_float(data, at, s->value, s->flags, bits);
        return;
    case BITS_SEG_STRING:
        copy_bits(data, at, (const uint8_t *)(uintptr_t)s->value, 0, bits);
        return;
    case BITS_SEG_UTF8: {
        int64_t c = small_value(s->value);
        size_t n = utf8_length(c);
        uint8_t b[4];
        if (n == 1) {
            b[0] = (uint8_t)c;
        } else {
            for (size_t i = n - 1; i > 0; i--, c >>= 6)
                b[i] = (uint8_t)(0x80 | (c & 0x3F));
            b[0] = (uint8_t)((0xF00 >> n) | c);
        }
        for (size_t i = 0; i < n; i++)
            write_bits(data, at + 8 * i, b[i], 8);
        return;
    }
    case BITS_SEG_UTF16: {
        unsigned flags = s->flags;
        int64_t c = small_value(s->value);
        uint64_t units = (uint64_t)c;
        if (c >= 0x10000) /* a surrogate pair, the high one first */
            units = (uint64_t)(0xD800 + ((c - 0x10000) >> 10)) << 16 | (uint64_t)(0xDC00 + ((c - 0x10000) & 0x3FF));
        if (little_endian(flags) && bits == 32)
            units = swap_bytes(units >> 16, 2) << 16 | swap_bytes(units & 0xFFFF, 2);
        else if (little_endian(flags))
            units = swap_bytes(units, 2);
        write_bits(data, at, units, (unsigned)bits);
        return;
    }
    case BITS_SEG_UTF32: {
        uint64_t c = (uint64_t)small_value(s->value);
        write_bits(data, at, little_endian(s->flags) ? swap_bytes(c, 4) : c, 32);
        return;
    }
    default: { /* binary, append: bits from the start of the value */
        const uint8_t *d;
        size_t n;
        unsigned extra;
        bin_bytes(s->value, &d, &n, &extra);
        copy_bits(data, at, d, 0, bits);
        return;
    }
    }
}

static void write_segments(uint8_t *data, uint64_t at, const struct bits_segment *s, const uint64_t *sizes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        write_segment(data, at, &s[i], sizes[i]);
        at += sizes[i];
    }
}

/* A binary term of `bits` bits over a fresh plain (not writable) binary. */
static term plain_result(heap_t *h, uint64_t bits, uint8_t **data)
{
    size_t bytes = (size_t)((bits + 7) / 8);
    term bin = bin_alloc(h, bytes, data);
    if (is_non_value(bin))
        return bin;
    if (bytes)
        memset(*data, 0, bytes);
    return bits % 8 ? bin_sub(h, bin, 0, (size_t)(bits / 8), (unsigned)(bits % 8)) : bin;
}

/* Room for a writable binary of `bytes` bytes to grow into: twice (OTP's
 * factor, 1.2 beyond 16 MB), at least 256 bytes. */
static size_t writable_capacity(size_t bytes)
{
    size_t cap = bytes > ((size_t)1 << 24) ? bytes + bytes / 5 : 2 * bytes;
    return cap < 256 ? 256 : cap;
}

/* A window (sub-binary) onto the binary that holds its bits: the only
 * bitstring appended to in place, since a writable binary's ProcBin covers
 * its whole capacity and so never ends at its tip with room after it. */
struct window {
    term orig;      /* the binary, never a window (bin_sub) */
    uint64_t start; /* the window's first bit in orig */
    uint64_t bits;
};

/* a's window; false when a is no window. */
static inline __attribute__((always_inline)) bool window_of(term a, struct window *w)
{
    if (!is_boxed(a))
        return false;
    const term *box = boxed_ptr(a);
    if (header_subtag(box[0]) != SUBTAG_SUB_BIN)
        return false;
    *w = (struct window){box[SUBBIN_ORIG], 8 * (uint64_t)box[SUBBIN_OFFSET],
                         8 * (uint64_t)box[SUBBIN_SIZE] + box[SUBBIN_BITSIZE]};
    return true;
}

/* The writable binary under window w when `added` bits can follow its bits
 * where they are: they end at the binary's tip, the room is there, and only
 * this heap refers to the binary (create_append says why that is safe).
 * NULL otherwise. */
static inline __attribute__((always_inline)) struct binary *appendable_in_place(const struct window *w, uint64_t added)
{
    const term *ob = boxed_ptr(w->orig);
    if (header_subtag(ob[0]) != SUBTAG_REFC_BIN)
        return NULL;
    struct binary *b = (struct binary *)(uintptr_t)ob[PROCBIN_BINARY];
    if (atomic_load_explicit(&b->refc, memory_order_acquire) != 1 || b->tip_bits != w->start + w->bits ||
        (uint64_t)b->size * 8 - b->tip_bits < added)
        return NULL;
    return b;
}

/* The result of appending in place to window a (whose window w
 * appendable_in_place accepted) up to `total` bits: a itself, grown, for a
 * private_append (the compiler emits it only for a binary comprehension's
 * accumulator, which nothing else holds); else a new window over a's
 * binary. THE_NON_VALUE when memory is refused. The caller
 * writes the bits at the tip. */
static inline __attribute__((always_inline)) term in_place_result(heap_t *h, term a, const struct window *w,
                                                                  bool private_append, uint64_t total)
{
    if (private_append) {
        term *box = boxed_ptr(a);
        box[SUBBIN_SIZE] = (term)(total / 8);
        box[SUBBIN_BITSIZE] = (term)(total % 8);
        return a;
    }
    return bin_window(h, w->orig, (size_t)(w->start / 8), (size_t)(total / 8), (unsigned)(total % 8));
}

/* segments[0] is append or private_append: its value A gets the other
 * segments after its first sizes[0] bits.
 *
 * In place when A's bits end at its writable binary's tip, the binary has
 * room and its reference count is 1. Why that is safe: the count is 1, so
 * the ProcBin under A (on this heap) holds the only reference; no message,
 * ETS table or other heap can read the binary, and no other thread can take
 * a new reference (only this process can copy a term of its heap). Every
 * term over the binary covers bits below the tip, so the bits written here,
 * at and after it, change no term: appending twice to the same A finds the
 * tip moved by the first and copies. The acquire load pairs with the
 * release in binary_unref, so the writes of a former holder (which handed
 * the binary over in a message) happen before ours. */
static enum bits_result create_append(heap_t *h, const struct bits_segment *s, const uint64_t *sizes, size_t n,
                                      uint64_t total, term *out)
{
    term a = s[0].value;
    struct window w;
    struct binary *b;
    /* All of A (a sized append is only ever made by hand) is appended. */
    if (window_of(a, &w) && w.bits == sizes[0] && (b = appendable_in_place(&w, total - sizes[0]))) {
        term t = in_place_result(h, a, &w, s[0].kind == BITS_SEG_PRIVATE_APPEND, total);
        if (is_non_value(t))
            return BITS_NO_MEMORY;
        write_segments(b->data, b->tip_bits, s + 1, sizes + 1, n - 1);
        b->tip_bits = w.start + total;
        *out = t;
        return BITS_OK;
    }
    size_t bytes = (size_t)((total + 7) / 8);
    uint8_t *data;
    term t;
    if (bytes <= BIN_HEAP_MAX) {
        /* Small: a heap binary, copied at each append up to 64 bytes. */
        t = plain_result(h, total, &data);
        if (is_non_value(t))
            return BITS_NO_MEMORY;
    } else {
        struct binary *fresh;
        term pb = bin_writable(h, writable_capacity(bytes), bytes, &fresh);
        if (is_non_value(pb))
            return BITS_NO_MEMORY;
        t = bin_sub(h, pb, 0, (size_t)(total / 8), (unsigned)(total % 8));
        if (is_non_value(t))
            return BITS_NO_MEMORY;
        fresh->tip_bits = total;
        data = fresh->data;
    }
    write_segments(data, 0, s, sizes, n);
    *out = t;
    return BITS_OK;
}

term bits_init_writable(heap_t *h, term size_hint)
{
    uint8_t *unused;
    if (!is_small(size_hint) || small_value(size_hint) <= BIN_HEAP_MAX)
        return bin_alloc(h, 0, &unused);
    struct binary *b;
    term pb = bin_writable(h, (size_t)small_value(size_hint), 0, &b);
    if (is_non_value(pb) && h->failure == HEAP_FAIL_NOMEM) {
        /* Only a hint: without the room, appends grow the binary. */
        h->failure = HEAP_OK;
        return bin_alloc(h, 0, &unused);
    }
    return is_value(pb) ? bin_sub(h, pb, 0, 0, 0) : pb;
}

bool bits_append_integers(heap_t *h, term acc, bool private_append, unsigned acc_unit, const uint64_t *values,
                          const unsigned *widths, const unsigned *flags, size_t n, term *out)
{
    struct window w;
    if (!window_of(acc, &w) || (acc_unit > 1 && w.bits % acc_unit))
        return false;
    uint64_t added = 0;
    for (size_t i = 0; i < n; i++)
        added += widths[i];
    struct binary *b = appendable_in_place(&w, added);
    if (!b)
        return false;
    term t = in_place_result(h, acc, &w, private_append, w.bits + added);
    if (is_non_value(t))
        return false;
    *out = t;
    /* Consecutive fields gathered into words of up to 64 bits, each
     * written once. */
    uint64_t at = b->tip_bits, word = 0;
    unsigned word_bits = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned width = widths[i];
        uint64_t v = little_endian(flags[i]) ? swap_bytes(values[i], width / 8) : values[i];
        if (word_bits + width > 64) {
            write_bits_within(b->data, at, word, word_bits, b->size);
            at += word_bits;
            word = 0;
            word_bits = 0;
        }
        word = width == 64 ? v : word << width | (v & (((uint64_t)1 << width) - 1));
        word_bits += width;
    }
    write_bits_within(b->data, at, word, word_bits, b->size);
    b->tip_bits = at + word_bits;
    return true;
}

#define INLINE_SEGMENTS 16

enum bits_result bits_create(heap_t *h, const struct bits_segment *segments, size_t n, term *out)
{
    uint64_t inline_sizes[INLINE_SEGMENTS];
    uint64_t *sizes = inline_sizes;
    if (n > INLINE_SEGMENTS && !(sizes = malloc(n * sizeof *sizes))) {
        h->failure = HEAP_FAIL_NOMEM;
        return BITS_NO_MEMORY;
    }
    enum bits_result r = BITS_OK;
    uint64_t total = 0;
    for (size_t i = 0; i < n && r == BITS_OK; i++) {
        r = segment_bits(&segments[i], &sizes[i]);
        if (r == BITS_OK && sizes[i] > UINT64_MAX / 2 - total)
            r = BITS_NO_MATCH; /* past any binary a host can hold */
        total += r == BITS_OK ? sizes[i] : 0;
    }
    if (r == BITS_OK && total / 8 > SIZE_MAX / 2)
        r = BITS_NO_MATCH;
    if (r == BITS_OK && n > 0 && (segments[0].kind == BITS_SEG_APPEND || segments[0].kind == BITS_SEG_PRIVATE_APPEND)) {
        r = create_append(h, segments, sizes, n, total, out);
    } else if (r == BITS_OK) {
        uint8_t *data;
        term bin = plain_result(h, total, &data);
        if (is_non_value(bin)) {
            r = BITS_NO_MEMORY;
        } else {
            write_segments(data, 0, segments, sizes, n);
            *out = bin;
        }
    }
    if (sizes != inline_sizes)
        free(sizes);
    return r;
}
