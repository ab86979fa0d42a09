/* bits.c — bit syntax: match contexts and binary construction (bits.h). */
#include "beam/bits.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"

#include <math.h>
#include <string.h>

#define MATCH_CONTEXT MAKE_SPECIAL(2)

enum { CTX_MARK = 1, CTX_BINARY = 2, CTX_OFFSET = 3, CTX_END = 4 };

bool bits_is_context(term t) { return is_tuple(t) && tuple_arity(t) == 4 && boxed_ptr(t)[CTX_MARK] == MATCH_CONTEXT; }

static uint64_t ctx_offset(term ctx) { return (uint64_t)small_value(boxed_ptr(ctx)[CTX_OFFSET]); }
static uint64_t ctx_end(term ctx) { return (uint64_t)small_value(boxed_ptr(ctx)[CTX_END]); }
static void ctx_advance(term ctx, uint64_t bits)
{
    boxed_ptr(ctx)[CTX_OFFSET] = make_small((int64_t)(ctx_offset(ctx) + bits));
}
static const uint8_t *ctx_data(term ctx)
{
    const uint8_t *data;
    size_t size;
    unsigned bitsize;
    bin_bytes(boxed_ptr(ctx)[CTX_BINARY], &data, &size, &bitsize);
    return data;
}
static uint64_t ctx_remaining(term ctx) { return ctx_end(ctx) - ctx_offset(ctx); }

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
    p[CTX_MARK] = MATCH_CONTEXT;
    p[CTX_BINARY] = src;
    p[CTX_OFFSET] = make_small(0);
    p[CTX_END] = make_small((int64_t)(size * 8 + bitsize));
    *result = BITS_OK;
    return make_boxed(p);
}

/* n (<= 64) bits at bit offset `at`, most significant first. */
static uint64_t read_bits(const uint8_t *data, uint64_t at, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t bit = at + i;
        v = v << 1 | ((data[bit / 8] >> (7 - bit % 8)) & 1u);
    }
    return v;
}

static uint64_t swap_bytes(uint64_t v, unsigned bytes)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < bytes; i++, v >>= 8)
        r = r << 8 | (v & 0xFF);
    return r;
}

static bool little_endian(unsigned flags) { return flags & (BITS_FLAG_LITTLE | BITS_FLAG_NATIVE); }

enum bits_result bits_get_integer(heap_t *h, term ctx, uint64_t bits, unsigned flags, term *out)
{
    if (bits > ctx_remaining(ctx))
        return BITS_NO_MATCH;
    if (bits > 64 || (little_endian(flags) && bits % 8))
        return BITS_UNSUPPORTED;
    uint64_t v = bits ? read_bits(ctx_data(ctx), ctx_offset(ctx), (unsigned)bits) : 0;
    if (little_endian(flags))
        v = swap_bytes(v, (unsigned)(bits / 8));
    term t;
    if ((flags & BITS_FLAG_SIGNED) && bits > 0 && bits < 64 && (v >> (bits - 1)) & 1)
        t = int_from_int64(h, (int64_t)(v | ~(((uint64_t)1 << bits) - 1)));
    else if ((flags & BITS_FLAG_SIGNED) && bits == 64)
        t = int_from_int64(h, (int64_t)v);
    else
        t = int_from_uint64(h, v);
    if (is_non_value(t))
        return BITS_NO_MEMORY;
    ctx_advance(ctx, bits);
    *out = t;
    return BITS_OK;
}

enum bits_result bits_get_binary(heap_t *h, term ctx, uint64_t bits, unsigned unit, term *out)
{
    uint64_t left = ctx_remaining(ctx);
    if (bits == UINT64_MAX) {
        if (unit > 1 && left % unit)
            return BITS_NO_MATCH;
        bits = left;
    }
    if (bits > left)
        return BITS_NO_MATCH;
    uint64_t at = ctx_offset(ctx);
    if (at % 8)
        return BITS_UNSUPPORTED;
    term t = bin_sub(h, boxed_ptr(ctx)[CTX_BINARY], at / 8, bits / 8, (unsigned)(bits % 8));
    if (is_non_value(t))
        return BITS_NO_MEMORY;
    ctx_advance(ctx, bits);
    *out = t;
    return BITS_OK;
}

enum bits_result bits_get_float(heap_t *h, term ctx, uint64_t bits, unsigned flags, term *out)
{
    if (bits > ctx_remaining(ctx))
        return BITS_NO_MATCH;
    if (bits != 64 && bits != 32)
        return bits == 16 ? BITS_UNSUPPORTED : BITS_NO_MATCH;
    uint64_t v = read_bits(ctx_data(ctx), ctx_offset(ctx), (unsigned)bits);
    if (little_endian(flags))
        v = swap_bytes(v, (unsigned)(bits / 8));
    double d;
    if (bits == 64) {
        memcpy(&d, &v, sizeof d);
    } else {
        uint32_t w = (uint32_t)v;
        float f;
        memcpy(&f, &w, sizeof f);
        d = f;
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

enum bits_result bits_get_utf8(term ctx, term *out)
{
    uint64_t at = ctx_offset(ctx), left = ctx_remaining(ctx);
    if (at % 8)
        return BITS_UNSUPPORTED;
    const uint8_t *s = ctx_data(ctx) + at / 8;
    size_t avail = (size_t)(left / 8);
    if (avail == 0)
        return BITS_NO_MATCH;
    unsigned n = s[0] < 0x80             ? 1
                 : (s[0] & 0xE0) == 0xC0 ? 2
                 : (s[0] & 0xF0) == 0xE0 ? 3
                 : (s[0] & 0xF8) == 0xF0 ? 4
                                         : 0;
    if (n == 0 || n > avail)
        return BITS_NO_MATCH;
    uint32_t c = n == 1 ? s[0] : (uint32_t)(s[0] & (0x7F >> n));
    for (unsigned i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return BITS_NO_MATCH;
        c = c << 6 | (s[i] & 0x3F);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return BITS_NO_MATCH;
    ctx_advance(ctx, 8u * n);
    *out = make_small(c);
    return BITS_OK;
}

enum bits_result bits_skip(term ctx, uint64_t bits)
{
    if (bits == UINT64_MAX)
        bits = ctx_remaining(ctx);
    if (bits > ctx_remaining(ctx))
        return BITS_NO_MATCH;
    ctx_advance(ctx, bits);
    return BITS_OK;
}

enum bits_result bits_match_string(term ctx, const uint8_t *bytes, uint64_t bits)
{
    if (bits > ctx_remaining(ctx))
        return BITS_NO_MATCH;
    uint64_t at = ctx_offset(ctx);
    if (at % 8 || bits % 8)
        return BITS_UNSUPPORTED;
    if (memcmp(ctx_data(ctx) + at / 8, bytes, (size_t)(bits / 8)) != 0)
        return BITS_NO_MATCH;
    ctx_advance(ctx, bits);
    return BITS_OK;
}

bool bits_test_tail(term ctx, uint64_t bits) { return ctx_remaining(ctx) == bits; }
bool bits_test_unit(term ctx, unsigned unit) { return unit <= 1 || ctx_remaining(ctx) % unit == 0; }

/* The rest of the match, leaving the position where it is, as OTP's
 * bs_get_tail does: the compiler passes the context on after taking a tail
 * (io_lib's count_and_find_utf8 loops over one context so). */
enum bits_result bits_get_tail(heap_t *h, term ctx, term *out)
{
    term at = bits_position(ctx);
    enum bits_result r = bits_get_binary(h, ctx, UINT64_MAX, 1, out);
    bits_set_position(ctx, at);
    return r;
}

term bits_position(term ctx) { return boxed_ptr(ctx)[CTX_OFFSET]; }
void bits_set_position(term ctx, term position) { boxed_ptr(ctx)[CTX_OFFSET] = position; }

/* ---- construction ---- */

static unsigned segment_flags(term flags)
{
    unsigned f = 0;
    for (; is_list(flags); flags = list_tail(flags)) {
        term a = list_head(flags);
        size_t len;
        const char *name = is_atom(a) ? atom_text(a, &len) : "";
        if (is_atom(a) && len == 6 && memcmp(name, "little", 6) == 0)
            f |= BITS_FLAG_LITTLE;
        else if (is_atom(a) && len == 6 && memcmp(name, "signed", 6) == 0)
            f |= BITS_FLAG_SIGNED;
        else if (is_atom(a) && len == 6 && memcmp(name, "native", 6) == 0)
            f |= BITS_FLAG_NATIVE;
    }
    return f;
}

static bool is_type(term type, const char *name)
{
    size_t len;
    const char *text = atom_text(type, &len);
    return strlen(name) == len && memcmp(text, name, len) == 0;
}

static size_t utf8_length(int64_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

/* The bits segment s adds; false for a bad argument. */
static enum bits_result segment_bits(const struct bits_segment *s, uint64_t *bits)
{
    term t = s->type;
    if (is_type(t, "integer") || is_type(t, "float")) {
        if (!is_small(s->size) || small_value(s->size) < 0)
            return BITS_NO_MATCH;
        *bits = (uint64_t)small_value(s->size) * s->unit;
        if (is_type(t, "integer"))
            return is_integer(s->value) ? BITS_OK : BITS_NO_MATCH;
        if (*bits == 16)
            return BITS_UNSUPPORTED;
        return is_number(s->value) && (*bits == 32 || *bits == 64) ? BITS_OK : BITS_NO_MATCH;
    }
    if (is_type(t, "binary") || is_type(t, "append") || is_type(t, "private_append")) {
        if (!is_bitstring(s->value))
            return BITS_NO_MATCH;
        const uint8_t *d;
        size_t n;
        unsigned extra;
        bin_bytes(s->value, &d, &n, &extra);
        uint64_t have = n * 8 + extra;
        if (!is_small(s->size)) {
            *bits = have;
            return s->unit > 1 && have % s->unit ? BITS_NO_MATCH : BITS_OK;
        }
        if (small_value(s->size) < 0)
            return BITS_NO_MATCH;
        *bits = (uint64_t)small_value(s->size) * s->unit;
        return *bits <= have ? BITS_OK : BITS_NO_MATCH;
    }
    if (is_type(t, "string")) {
        *bits = (uint64_t)small_value(s->size) * (s->unit ? s->unit : 8);
        return *bits % 8 ? BITS_UNSUPPORTED : BITS_OK;
    }
    if (is_type(t, "utf8")) {
        if (!is_small(s->value) || small_value(s->value) < 0 || small_value(s->value) > 0x10FFFF ||
            (small_value(s->value) >= 0xD800 && small_value(s->value) <= 0xDFFF))
            return BITS_NO_MATCH;
        *bits = 8 * utf8_length(small_value(s->value));
        return BITS_OK;
    }
    return BITS_UNSUPPORTED; /* utf16, utf32 */
}

static void write_bits(uint8_t *data, uint64_t at, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t bit = at + i;
        uint8_t mask = (uint8_t)(1u << (7 - bit % 8));
        if ((v >> (n - 1 - i)) & 1)
            data[bit / 8] |= mask;
        else
            data[bit / 8] &= (uint8_t)~mask;
    }
}

static enum bits_result write_segment(uint8_t *data, uint64_t at, const struct bits_segment *s, uint64_t bits)
{
    term t = s->type;
    if (is_type(t, "integer")) {
        unsigned flags = segment_flags(s->flags);
        int64_t v;
        if (!int_to_int64(s->value, &v))
            return BITS_UNSUPPORTED; /* a bignum value */
        if (little_endian(flags) && bits % 8)
            return BITS_UNSUPPORTED;
        /* Above 64 bits the value's sign fills the high bits. */
        for (; bits > 64; bits -= 64, at += 64)
            write_bits(data, at, v < 0 ? UINT64_MAX : 0, 64);
        uint64_t u = (uint64_t)v;
        if (little_endian(flags))
            u = swap_bytes(u, (unsigned)(bits / 8));
        write_bits(data, at, u, (unsigned)bits);
        return BITS_OK;
    }
    if (is_type(t, "float")) {
        double d;
        if (is_float(s->value))
            d = float_value(s->value);
        else if (!int_to_double(s->value, &d))
            return BITS_NO_MATCH;
        uint64_t u;
        if (bits == 64) {
            memcpy(&u, &d, sizeof u);
        } else {
            float f = (float)d;
            uint32_t w;
            memcpy(&w, &f, sizeof w);
            u = w;
        }
        if (little_endian(segment_flags(s->flags)))
            u = swap_bytes(u, (unsigned)(bits / 8));
        write_bits(data, at, u, (unsigned)bits);
        return BITS_OK;
    }
    if (is_type(t, "string")) {
        const uint8_t *bytes = (const uint8_t *)(uintptr_t)s->value;
        for (uint64_t i = 0; i < bits / 8; i++)
            write_bits(data, at + 8 * i, bytes[i], 8);
        return BITS_OK;
    }
    if (is_type(t, "utf8")) {
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
        return BITS_OK;
    }
    /* binary, append: bits from the start of the value. */
    const uint8_t *d;
    size_t n;
    unsigned extra;
    bin_bytes(s->value, &d, &n, &extra);
    if (at % 8 == 0 && bits % 8 == 0) {
        memcpy(data + at / 8, d, (size_t)(bits / 8));
        return BITS_OK;
    }
    for (uint64_t i = 0; i < bits; i++)
        write_bits(data, at + i, (d[i / 8] >> (7 - i % 8)) & 1u, 1);
    return BITS_OK;
}

enum bits_result bits_create(heap_t *h, const struct bits_segment *segments, size_t n, term *out)
{
    uint64_t total = 0;
    uint64_t sizes[64];
    if (n > 64)
        return BITS_UNSUPPORTED;
    for (size_t i = 0; i < n; i++) {
        enum bits_result r = segment_bits(&segments[i], &sizes[i]);
        if (r != BITS_OK)
            return r;
        total += sizes[i];
    }
    uint8_t *data;
    size_t bytes = (size_t)((total + 7) / 8);
    term bin = bin_alloc(h, bytes, &data);
    if (is_non_value(bin))
        return BITS_NO_MEMORY;
    if (bytes)
        memset(data, 0, bytes);
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        enum bits_result r = write_segment(data, at, &segments[i], sizes[i]);
        if (r != BITS_OK)
            return r;
        at += sizes[i];
    }
    if (total % 8) {
        bin = bin_sub(h, bin, 0, (size_t)(total / 8), (unsigned)(total % 8));
        if (is_non_value(bin))
            return BITS_NO_MEMORY;
    }
    *out = bin;
    return BITS_OK;
}
