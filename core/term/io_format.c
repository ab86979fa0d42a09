/*
 * io_format.c — io_lib:format/2 as OTP 25's io_lib_format module computes
 * it (io_format.h).
 *
 * OTP first scans the whole format, then builds the text; any failure in
 * either is badarg. Here both happen in one pass over the format, which is
 * equivalent because nothing is kept when the call fails. Each control
 * sequence builds its text as an array of code points (field widths and
 * truncation count characters, or grapheme clusters), then appends it as
 * UTF-8. The column that ~p starts at is io_lib_format's indentation: the
 * characters written since the last newline, a tab moving to the next
 * multiple of 8.
 */
#include "term/io_format.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/print.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Code point buffers and UTF-8                                         */
/* ------------------------------------------------------------------ */

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("clause: out of memory while formatting\n", stderr);
        abort();
    }
    return q;
}

struct cps {
    uint32_t *v;
    size_t n, cap;
};

static void cps_reserve(struct cps *b, size_t extra)
{
    if (b->cap - b->n >= extra)
        return;
    size_t cap = b->cap ? b->cap : 32;
    while (cap - b->n < extra)
        cap *= 2;
    b->v = xrealloc(b->v, cap * sizeof *b->v);
    b->cap = cap;
}

static void cps_push(struct cps *b, uint32_t c)
{
    cps_reserve(b, 1);
    b->v[b->n++] = c;
}

static void cps_fill(struct cps *b, uint32_t c, size_t n)
{
    cps_reserve(b, n);
    for (size_t i = 0; i < n; i++)
        b->v[b->n++] = c;
}

static void cps_append(struct cps *b, const uint32_t *v, size_t n)
{
    cps_reserve(b, n);
    if (n)
        memcpy(b->v + b->n, v, n * sizeof *v);
    b->n += n;
}

static void cps_free(struct cps *b)
{
    free(b->v);
    *b = (struct cps){NULL, 0, 0};
}

/* A Unicode scalar value: what a device can write. */
static bool valid_char(int64_t c) { return c >= 0 && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF); }

/* Decodes one character of strict UTF-8 (no overlong forms, surrogates or
 * values above 16#10FFFF) at s[*i]; false when malformed or truncated. */
static bool utf8_next(const uint8_t *s, size_t n, size_t *i, uint32_t *out)
{
    uint32_t c = s[*i];
    size_t need;
    uint32_t min;
    if (c < 0x80) {
        *out = c;
        (*i)++;
        return true;
    } else if ((c & 0xE0) == 0xC0) {
        need = 1;
        min = 0x80;
        c &= 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        need = 2;
        min = 0x800;
        c &= 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        need = 3;
        min = 0x10000;
        c &= 0x07;
    } else {
        return false;
    }
    if (n - *i <= need)
        return false;
    for (size_t k = 1; k <= need; k++) {
        uint32_t cc = s[*i + k];
        if ((cc & 0xC0) != 0x80)
            return false;
        c = c << 6 | (cc & 0x3F);
    }
    if (c < min || !valid_char(c))
        return false;
    *out = c;
    *i += need + 1;
    return true;
}

static bool utf8_valid(const uint8_t *s, size_t n)
{
    uint32_t c;
    for (size_t i = 0; i < n;)
        if (!utf8_next(s, n, &i, &c))
            return false;
    return true;
}

/* Appends the characters of valid UTF-8 text. */
static void cps_from_utf8(struct cps *b, const char *s, size_t n)
{
    const uint8_t *u = (const uint8_t *)s;
    uint32_t c;
    for (size_t i = 0; i < n;) {
        if (!utf8_next(u, n, &i, &c))
            c = u[i++]; /* not reached for our own text; keeps the walk going */
        cps_push(b, c);
    }
}

void io_latin1_device(struct strbuf *out, const char *utf8, size_t n)
{
    const uint8_t *u = (const uint8_t *)utf8;
    strbuf_reserve(out, n);
    uint32_t c;
    for (size_t i = 0; i < n;) {
        if (!utf8_next(u, n, &i, &c))
            c = u[i++];
        if (c < 256)
            strbuf_putc(out, (char)(unsigned char)c);
        else
            strbuf_printf(out, "\\x{%" PRIX32 "}", c);
    }
}

/* ------------------------------------------------------------------ */
/* Grapheme clusters (string:length/1, string:slice/3)                  */
/* ------------------------------------------------------------------ */

/* Grapheme_Cluster_Break=Control: breaks on both sides. */
static bool gc_control(uint32_t c)
{
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0xAD || c == 0x061C || c == 0x180E || c == 0x200B ||
           c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF ||
           (c >= 0xFFF0 && c <= 0xFFFB) || (c >= 0xE0000 && c <= 0xE001F);
}

/* Extend (combining marks and friends) and ZWJ: never start a cluster. */
static bool gc_extend(uint32_t c)
{
    return (c >= 0x0300 && c <= 0x036F) || (c >= 0x0483 && c <= 0x0489) || (c >= 0x0591 && c <= 0x05BD) ||
           (c >= 0x0610 && c <= 0x061A) || (c >= 0x064B && c <= 0x065F) || c == 0x0670 ||
           (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) || c == 0x200C || c == 0x200D ||
           (c >= 0x20D0 && c <= 0x20FF) || (c >= 0x302A && c <= 0x302F) || (c >= 0x3099 && c <= 0x309A) ||
           (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xFE20 && c <= 0xFE2F) || (c >= 0x1F3FB && c <= 0x1F3FF) ||
           (c >= 0xE0020 && c <= 0xE007F) || (c >= 0xE0100 && c <= 0xE01EF);
}

static bool gc_pictographic(uint32_t c)
{
    return c == 0x00A9 || c == 0x00AE || c == 0x203C || c == 0x2049 || c == 0x2122 || c == 0x2139 ||
           (c >= 0x2194 && c <= 0x21AA) || (c >= 0x231A && c <= 0x23FF) || (c >= 0x2600 && c <= 0x27BF) ||
           (c >= 0x2B05 && c <= 0x2B55) || (c >= 0x1F000 && c <= 0x1F1E5) || (c >= 0x1F200 && c <= 0x1F3FA) ||
           (c >= 0x1F400 && c <= 0x1FAFF);
}

static bool gc_regional(uint32_t c) { return c >= 0x1F1E6 && c <= 0x1F1FF; }

/* The end of the cluster that starts at v[i]. */
static size_t gc_end(const uint32_t *v, size_t n, size_t i)
{
    uint32_t c = v[i];
    size_t j = i + 1;
    if (c == '\r' && j < n && v[j] == '\n')
        return j + 1;
    if (gc_control(c))
        return j;
    if (gc_regional(c) && j < n && gc_regional(v[j]))
        j++;
    bool pict = gc_pictographic(c);
    while (j < n) {
        uint32_t d = v[j];
        if (gc_extend(d)) {
            j++;
        } else if (pict && v[j - 1] == 0x200D && gc_pictographic(d)) {
            j++;
        } else {
            break;
        }
    }
    return j;
}

static size_t gc_count(const uint32_t *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i = gc_end(v, n, i))
        k++;
    return k;
}

/* Code points in the first k clusters (string:slice(S, 0, k)). */
static size_t gc_prefix(const uint32_t *v, size_t n, size_t k)
{
    size_t i = 0;
    while (k-- > 0 && i < n)
        i = gc_end(v, n, i);
    return i;
}

/* io_lib:chars_length/1: iolist_size when every character fits in a byte,
 * string:length (clusters) otherwise. */
static size_t chars_length(const struct cps *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] > 255)
            return gc_count(s->v, s->n);
    return s->n;
}

/* ------------------------------------------------------------------ */
/* Chardata walks: ~s (latin1), ~ts, put_chars                          */
/* ------------------------------------------------------------------ */

enum cdata_mode {
    CD_LATIN1,   /* iolist_to_chars: bytes 0..255, binaries byte by byte */
    CD_UNICODE,  /* cdata_to_chars: characters, binaries UTF-8 or else bytes */
    CD_PUTCHARS, /* unicode chardata: characters, binaries strictly UTF-8 */
};

static bool cdata_binary(struct cps *out, term bin, enum cdata_mode mode)
{
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(bin, &d, &n, &bits);
    if (bits)
        return false;
    if (mode != CD_LATIN1 && utf8_valid(d, n)) {
        uint32_t c;
        for (size_t i = 0; i < n;) {
            utf8_next(d, n, &i, &c);
            cps_push(out, c);
        }
        return true;
    }
    if (mode == CD_PUTCHARS)
        return false;
    cps_reserve(out, n);
    for (size_t i = 0; i < n; i++)
        out->v[out->n++] = d[i];
    return true;
}

/* Integers that are not characters, which io_lib:format returns as they
 * are (io_format_terms): kept in nc, their code point in a struct cps is
 * NONCHAR_BASE plus the index. Without nc (io_format) they are badarg. */
#define NONCHAR_BASE 0x80000000u
#define NONCHAR_MAX (1u << 24) /* what the 4 bytes after IO_NONCHAR_LEAD hold */

static bool nonchar(struct io_nonchars *nc, term v, uint32_t *out)
{
    if (!nc || nc->n >= NONCHAR_MAX)
        return false;
    if (nc->n == nc->cap) {
        nc->cap = nc->cap ? 2 * nc->cap : 8;
        nc->v = xrealloc(nc->v, nc->cap * sizeof *nc->v);
    }
    *out = NONCHAR_BASE + (uint32_t)nc->n;
    nc->v[nc->n++] = v;
    return true;
}

void io_nonchars_free(struct io_nonchars *nc)
{
    free(nc->v);
    *nc = (struct io_nonchars){NULL, 0, 0};
}

/* Walks nested lists on an explicit stack (any depth of nesting). A list's
 * elements may be characters, lists or binaries; its tail a list, [] or a
 * binary. CD_UNICODE takes any integer >= 0 as OTP's cdata_to_chars does:
 * the ones that are not characters go to nc. */
static bool cdata_walk(struct cps *out, term data, enum cdata_mode mode, struct io_nonchars *nc)
{
    term *stack = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    term x = data;
    for (;;) {
        if (is_nil(x)) {
            /* nothing */
        } else if (is_bitstring(x)) {
            if (!cdata_binary(out, x, mode)) {
                ok = false;
                break;
            }
        } else if (is_list(x)) {
            term h = list_head(x);
            if (is_small(h)) {
                int64_t c = small_value(h);
                uint32_t code = (uint32_t)c;
                if (mode == CD_LATIN1 ? (c < 0 || c > 255) : !valid_char(c)) {
                    if (!(mode == CD_UNICODE && c >= 0 && nonchar(nc, h, &code))) {
                        ok = false;
                        break;
                    }
                }
                cps_push(out, code);
                x = list_tail(x);
                continue;
            }
            if (is_bignum(h)) {
                uint32_t code;
                if (!(mode == CD_UNICODE && !big_is_negative(h) && nonchar(nc, h, &code))) {
                    ok = false;
                    break;
                }
                cps_push(out, code);
                x = list_tail(x);
                continue;
            }
            if (!(is_list(h) || is_nil(h) || is_bitstring(h))) {
                ok = false;
                break;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                stack = xrealloc(stack, cap * sizeof *stack);
            }
            stack[n++] = list_tail(x);
            x = h;
            continue;
        } else {
            ok = false;
            break;
        }
        if (n == 0)
            break;
        x = stack[--n];
    }
    free(stack);
    return ok;
}

static bool chardata_to_utf8(struct strbuf *out, term data, enum cdata_mode mode)
{
    struct cps s = {NULL, 0, 0};
    bool ok = cdata_walk(&s, data, mode, NULL);
    if (ok)
        for (size_t i = 0; i < s.n; i++)
            strbuf_put_utf8(out, s.v[i]);
    cps_free(&s);
    return ok;
}

bool io_chardata(struct strbuf *out, term data) { return chardata_to_utf8(out, data, CD_PUTCHARS); }

/* The characters of an atom's name. */
static void atom_chars(struct cps *out, term atom)
{
    size_t len;
    const char *s = atom_text(atom, &len);
    cps_from_utf8(out, s, len);
}

/* io_lib:deep_char_list/1 (the prefix of ~x and ~X). */
static bool deep_char_list(struct cps *out, term data)
{
    term *stack = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    term x = data;
    for (;;) {
        if (is_list(x)) {
            term h = list_head(x);
            if (is_small(h)) {
                int64_t c = small_value(h);
                if (!valid_char(c) || c == 0xFFFE || c == 0xFFFF) {
                    ok = false;
                    break;
                }
                cps_push(out, (uint32_t)c);
                x = list_tail(x);
                continue;
            }
            if (!(is_list(h) || is_nil(h))) {
                ok = false;
                break;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                stack = xrealloc(stack, cap * sizeof *stack);
            }
            stack[n++] = list_tail(x);
            x = h;
            continue;
        }
        if (!is_nil(x)) {
            ok = false;
            break;
        }
        if (n == 0)
            break;
        x = stack[--n];
    }
    free(stack);
    return ok;
}

/* ------------------------------------------------------------------ */
/* The format                                                           */
/* ------------------------------------------------------------------ */

/* One element of the format: a character, or (chunk set) a nested list or
 * binary copied to the output as it is. */
struct fitem {
    uint32_t c;
    term chunk;
};

struct fitems {
    struct fitem *v;
    size_t n, cap;
};

static void fitems_push(struct fitems *f, uint32_t c, term chunk)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 64;
        f->v = xrealloc(f->v, f->cap * sizeof *f->v);
    }
    f->v[f->n++] = (struct fitem){c, chunk};
}

static bool format_items(term format, struct fitems *f)
{
    if (is_atom(format)) {
        struct cps s = {NULL, 0, 0};
        atom_chars(&s, format);
        for (size_t i = 0; i < s.n; i++)
            fitems_push(f, s.v[i], 0);
        cps_free(&s);
        return true;
    }
    if (is_bitstring(format)) {
        const uint8_t *d;
        size_t n;
        unsigned bits;
        bin_bytes(format, &d, &n, &bits);
        if (bits)
            return false;
        for (size_t i = 0; i < n; i++)
            fitems_push(f, d[i], 0);
        return true;
    }
    term x = format;
    for (; is_list(x); x = list_tail(x)) {
        term h = list_head(x);
        if (is_small(h)) {
            if (!valid_char(small_value(h)))
                return false;
            fitems_push(f, (uint32_t)small_value(h), 0);
        } else if (is_list(h) || is_nil(h) || is_bitstring(h)) {
            fitems_push(f, 0, h);
        } else {
            return false;
        }
    }
    return is_nil(x);
}

/* ------------------------------------------------------------------ */
/* Building the text                                                    */
/* ------------------------------------------------------------------ */

struct fstate {
    struct strbuf *out;
    struct io_nonchars *nc; /* NULL: non-characters are badarg */
    int64_t col;            /* io_lib_format's indentation at out->len */
    size_t scanned;         /* out->len when col was last brought up to date */
    bool bad;               /* a padding character that is not a character was used */
};

static void advance(struct fstate *st)
{
    const char *s = st->out->data;
    for (size_t i = st->scanned; i < st->out->len; i++) {
        unsigned char b = (unsigned char)s[i];
        if ((b & 0xC0) == 0x80)
            continue;
        if (b == '\n')
            st->col = 0;
        else if (b == '\t')
            st->col = (st->col + 8) / 8 * 8;
        else
            st->col++;
    }
    st->scanned = st->out->len;
}

static void emit(struct fstate *st, const uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i] < NONCHAR_BASE) {
            strbuf_put_utf8(st->out, v[i]);
            continue;
        }
        /* IO_NONCHAR_LEAD, then the index 6 bits a byte as continuation
         * bytes, so advance() counts it as one character */
        uint32_t k = v[i] - NONCHAR_BASE;
        strbuf_putc(st->out, (char)IO_NONCHAR_LEAD);
        for (int shift = 18; shift >= 0; shift -= 6)
            strbuf_putc(st->out, (char)(0x80 | (k >> shift & 0x3F)));
    }
    advance(st);
}

/* A control sequence after the '~'. */
struct spec {
    int64_t width, prec; /* -1: none */
    bool left;
    term pad;
    bool unicode; /* t */
    bool strings; /* not l */
};

/* Appends n padding characters. */
static void pad_fill(struct fstate *st, struct cps *b, term pad, size_t n)
{
    if (n == 0)
        return;
    if (!is_small(pad) || !valid_char(small_value(pad))) {
        st->bad = true;
        return;
    }
    cps_fill(b, (uint32_t)small_value(pad), n);
}

/* io_lib_format:adjust/3: data and npad padding characters, on the side
 * the adjustment says. */
static void emit_adjusted(struct fstate *st, const uint32_t *data, size_t n, size_t npad, const struct spec *sp)
{
    struct cps b = {NULL, 0, 0};
    if (sp->left) {
        cps_append(&b, data, n);
        pad_fill(st, &b, sp->pad, npad);
    } else {
        pad_fill(st, &b, sp->pad, npad);
        cps_append(&b, data, n);
    }
    emit(st, b.v, b.n);
    cps_free(&b);
}

/* io_lib_format:term/5 with precision prec (-1: none). */
static void emit_term(struct fstate *st, const struct cps *t, const struct spec *sp, int64_t prec)
{
    int64_t f = sp->width;
    if (f < 0 && prec < 0) {
        emit(st, t->v, t->n);
        return;
    }
    if (f < 0)
        f = prec;
    int64_t len = (int64_t)chars_length(t);
    int64_t lim = prec < 0 ? f : (prec < f ? prec : f);
    int64_t p = len < lim ? len : lim;
    if (len > p) {
        struct cps stars = {NULL, 0, 0};
        cps_fill(&stars, '*', (size_t)p);
        emit_adjusted(st, stars.v, stars.n, (size_t)(f - p), sp);
        cps_free(&stars);
    } else {
        emit_adjusted(st, t->v, t->n, (size_t)(f - len), sp);
    }
}

/* The first n characters (latin1) or clusters (unicode) of s. */
static size_t trunc_len(const struct cps *s, int64_t n, bool unicode)
{
    if (unicode)
        return gc_prefix(s->v, s->n, (size_t)n);
    return (size_t)n < s->n ? (size_t)n : s->n;
}

/* io_lib_format:string_field/6. */
static void emit_string_field(struct fstate *st, const struct cps *s, int64_t f, bool left, int64_t n,
                              const struct spec *sp)
{
    if (n > f) {
        emit(st, s->v, trunc_len(s, f, sp->unicode));
    } else if (n < f) {
        struct spec s2 = *sp;
        s2.left = left;
        emit_adjusted(st, s->v, s->n, (size_t)(f - n), &s2);
    } else {
        emit(st, s->v, s->n);
    }
}

/* io_lib_format:string/6. */
static bool emit_string(struct fstate *st, const struct cps *s, const struct spec *sp)
{
    int64_t f = sp->width, p = sp->prec;
    if (f < 0 && p < 0) {
        emit(st, s->v, s->n);
        return true;
    }
    int64_t n = (int64_t)chars_length(s);
    if (p < 0) {
        emit_string_field(st, s, f, sp->left, n, sp);
        return true;
    }
    if (f < 0) {
        emit_string_field(st, s, p, true, n, sp);
        return true;
    }
    if (f < p)
        return false;
    if (f == p) {
        emit_string_field(st, s, f, sp->left, n, sp);
        return true;
    }
    struct cps inner = {NULL, 0, 0};
    if (n > p)
        cps_append(&inner, s->v, trunc_len(s, p, sp->unicode));
    else
        cps_append(&inner, s->v, s->n);
    if (n < p)
        pad_fill(st, &inner, sp->pad, (size_t)(p - n));
    emit_adjusted(st, inner.v, inner.n, (size_t)(f - p), sp);
    cps_free(&inner);
    return true;
}

/* io_lib_format:char/5. */
static bool emit_char(struct fstate *st, uint32_t c, const struct spec *sp)
{
    int64_t f = sp->width, p = sp->prec;
    struct cps b = {NULL, 0, 0};
    bool ok = true;
    if (f < 0 && p < 0) {
        cps_push(&b, c);
        emit(st, b.v, b.n);
    } else if (p < 0 || f < 0) {
        cps_fill(&b, c, (size_t)(p < 0 ? f : p));
        emit(st, b.v, b.n);
    } else if (f >= p) {
        cps_fill(&b, c, (size_t)p);
        emit_adjusted(st, b.v, b.n, (size_t)(f - p), sp);
    } else {
        ok = false;
    }
    cps_free(&b);
    return ok;
}

/* ~b ~B ~x ~X ~# ~+: digits of |a| in base, with prefix after the sign. */
static bool emit_integer(struct fstate *st, term a, const struct spec *sp, const struct cps *prefix, bool lower)
{
    int64_t base = sp->prec < 0 ? 10 : sp->prec;
    if (base < 2 || base > 36)
        return false;
    struct strbuf digits = STRBUF_INIT;
    int_to_string(a, (unsigned)base, &digits);
    const char *d = strbuf_cstr(&digits);
    struct cps t = {NULL, 0, 0};
    if (*d == '-') {
        cps_push(&t, '-');
        d++;
    }
    if (prefix)
        cps_append(&t, prefix->v, prefix->n);
    for (; *d; d++)
        cps_push(&t, lower && *d >= 'A' && *d <= 'Z' ? (uint32_t)(*d - 'A' + 'a') : (uint32_t)*d);
    emit_term(st, &t, sp, -1);
    cps_free(&t);
    strbuf_free(&digits);
    return true;
}

/* ---- floats ---- */

/* io_lib_format:float_data/1: the 21 significant digits float_to_list/1
 * writes ("%.20e") and the exponent plus one. */
static void float_data(double v, char ds[24], int *e)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%.20e", fabs(v));
    int k = 0;
    const char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            ds[k++] = *p;
    ds[k] = '\0';
    *e = atoi(p + 1) + 1;
}

/* io_lib_format:float_man/3: `whole` digits, '.', `dec` digits taken from
 * ds, rounded half up on the next digit of ds; true when the rounding
 * carried out of the first digit. */
static bool float_man(struct cps *out, const char *ds, size_t nds, int64_t whole, int64_t dec)
{
    size_t total = (size_t)(whole + dec);
    size_t start = out->n;
    cps_reserve(out, total + 1);
    for (size_t i = 0; i < total; i++)
        out->v[out->n++] = i < nds ? (uint32_t)ds[i] : '0';
    bool carry = total < nds && ds[total] >= '5';
    for (size_t i = total; carry && i-- > 0;) {
        if (out->v[start + i] == '9') {
            out->v[start + i] = '0';
        } else {
            out->v[start + i]++;
            carry = false;
        }
    }
    /* the point goes after the whole digits */
    cps_push(out, 0);
    memmove(out->v + start + whole + 1, out->v + start + whole, (size_t)dec * sizeof *out->v);
    out->v[start + whole] = '.';
    return carry;
}

static void push_ascii(struct cps *b, const char *s)
{
    for (; *s; s++)
        cps_push(b, (uint32_t)(unsigned char)*s);
}

static void float_e(struct cps *t, double v, int64_t p)
{
    char ds[24];
    int e;
    float_data(v, ds, &e);
    if (signbit(v))
        cps_push(t, '-');
    size_t start = t->n;
    bool carry = float_man(t, ds, strlen(ds), 1, p - 1);
    if (carry)
        t->v[start] = '1';
    char ex[16];
    int x = carry ? e : e - 1;
    snprintf(ex, sizeof ex, x >= 0 ? "e+%d" : "e%d", x);
    push_ascii(t, ex);
}

static void float_f(struct cps *t, double v, int64_t p)
{
    char ds[24 + 400];
    int e;
    float_data(v, ds, &e);
    if (signbit(v))
        cps_push(t, '-');
    if (e <= 0) {
        /* prepend -e+1 zeros: the digits then start below the point */
        size_t z = (size_t)(-e + 1), len = strlen(ds);
        memmove(ds + z, ds, len + 1);
        memset(ds, '0', z);
        e = 1;
    }
    struct cps m = {NULL, 0, 0};
    if (float_man(&m, ds, strlen(ds), e, p))
        cps_push(t, '1');
    cps_append(t, m.v, m.n);
    cps_free(&m);
}

static bool emit_float(struct fstate *st, char ctl, double v, const struct spec *sp)
{
    int64_t p = sp->prec < 0 ? 6 : sp->prec;
    if (ctl == 'g') {
        if (p < 1)
            return false;
        double a = fabs(v);
        /* the decimal exponent when it is small, else "use ~e" */
        int64_t e = a < 1.0e-1 ? -2 : a < 1.0 ? -1 : a < 1.0e1 ? 0 : a < 1.0e2 ? 1 : a < 1.0e3 ? 2 : a < 1.0e4 ? 3 : 99;
        if (e != 99 && ((p <= 1 && e == -1) || (p - 1 > e && e >= -1))) {
            ctl = 'f';
            p = p - 1 - e;
        } else {
            ctl = 'e';
            p = p <= 1 ? 2 : p;
        }
    }
    if (ctl == 'e' ? p < 2 : p < 1)
        return false;
    struct cps t = {NULL, 0, 0};
    if (ctl == 'e')
        float_e(&t, v, p);
    else
        float_f(&t, v, p);
    if (sp->width < 0)
        emit(st, t.v, t.n);
    else
        emit_term(st, &t, sp, sp->width);
    cps_free(&t);
    return true;
}

/* ---- terms ---- */

static int clamp_int(int64_t v, int lo) { return v < lo ? lo : v > INT_MAX ? INT_MAX : (int)v; }

/* A depth argument of ~W / ~P as the printer takes it. */
static bool depth_of(term d, int *out)
{
    if (is_small(d)) {
        int64_t v = small_value(d);
        *out = v < 0 ? -1 : clamp_int(v, 0);
        return true;
    }
    if (is_bignum(d)) {
        *out = big_is_negative(d) ? -1 : INT_MAX;
        return true;
    }
    return false;
}

static void emit_write(struct fstate *st, term a, int depth, const struct spec *sp)
{
    struct strbuf w = STRBUF_INIT;
    print_w_enc(&w, a, depth, sp->unicode);
    struct cps t = {NULL, 0, 0};
    cps_from_utf8(&t, w.data ? w.data : "", w.len);
    emit_term(st, &t, sp, sp->prec);
    cps_free(&t);
    strbuf_free(&w);
}

static bool emit_print(struct fstate *st, term a, int depth, const struct spec *sp)
{
    if (sp->left)
        return false;
    int column = sp->prec >= 0 ? clamp_int(sp->prec, 0) : clamp_int(st->col + 1, 0);
    int ll = sp->width >= 0 ? clamp_int(sp->width, 0) : 80;
    print_p_opts(st->out, a, column, ll, depth, sp->strings, sp->unicode);
    advance(st);
    return true;
}

/* ---- one control sequence ---- */

static bool next_arg(term *args, term *out)
{
    if (!is_list(*args))
        return false;
    *out = list_head(*args);
    *args = list_tail(*args);
    return true;
}

static bool is_fchar(const struct fitems *f, size_t i, uint32_t c)
{
    return i < f->n && !f->v[i].chunk && f->v[i].c == c;
}

/* io_lib_format:field_value/2: '*' (an integer argument), digits, or
 * nothing (*has false). */
static bool field_value(const struct fitems *f, size_t *i, term *args, int64_t *out, bool *has)
{
    *has = false;
    if (is_fchar(f, *i, '*')) {
        term a;
        if (!is_list(*args) || !is_integer(list_head(*args)))
            return false; /* the '*' then fails as a control character */
        next_arg(args, &a);
        if (!is_small(a) || small_value(a) > IO_FORMAT_MAX_FIELD || small_value(a) < -IO_FORMAT_MAX_FIELD)
            return false;
        *out = small_value(a);
        *has = true;
        (*i)++;
        return true;
    }
    int64_t v = 0;
    while (*i < f->n && !f->v[*i].chunk && f->v[*i].c >= '0' && f->v[*i].c <= '9') {
        v = v * 10 + (f->v[*i].c - '0');
        if (v > IO_FORMAT_MAX_FIELD)
            return false;
        *has = true;
        (*i)++;
    }
    *out = v;
    return true;
}

static bool control(struct fstate *st, const struct fitems *f, size_t *ip, term *args)
{
    size_t i = *ip;
    struct spec sp = {-1, -1, false, make_small(' '), false, true};
    int64_t v;
    bool has;

    /* field width */
    bool minus = is_fchar(f, i, '-');
    if (minus)
        i++;
    if (!field_value(f, &i, args, &v, &has))
        return false;
    if (minus && !has)
        return false; /* -none: badarith in OTP */
    if (has) {
        v = minus ? -v : v;
        sp.left = v < 0;
        sp.width = v < 0 ? -v : v;
    }
    /* precision; only '*' can make it negative */
    bool neg_prec = false;
    if (is_fchar(f, i, '.')) {
        i++;
        if (!field_value(f, &i, args, &v, &has))
            return false;
        if (has && v < 0)
            neg_prec = true;
        else if (has)
            sp.prec = v;
    }
    /* padding character */
    if (is_fchar(f, i, '.') && i + 1 < f->n) {
        if (is_fchar(f, i + 1, '*')) {
            if (!next_arg(args, &sp.pad))
                return false;
        } else if (f->v[i + 1].chunk) {
            return false;
        } else {
            sp.pad = make_small(f->v[i + 1].c);
        }
        i += 2;
    }
    /* modifiers */
    for (;; i++) {
        if (is_fchar(f, i, 't'))
            sp.unicode = true;
        else if (is_fchar(f, i, 'l'))
            sp.strings = false;
        else
            break;
    }
    if (i >= f->n || f->v[i].chunk)
        return false;
    uint32_t ctl = f->v[i++].c;
    *ip = i;

    if (ctl == 'n') {
        if (!is_list(*args) && !is_nil(*args))
            return false;
        if (sp.width < 0) {
            uint32_t nl = '\n';
            emit(st, &nl, 1);
            return true;
        }
        if (sp.left)
            return false;
        struct cps b = {NULL, 0, 0};
        cps_fill(&b, '\n', (size_t)sp.width);
        emit(st, b.v, b.n);
        cps_free(&b);
        return true;
    }
    if (ctl == 'i') {
        term a;
        return next_arg(args, &a);
    }
    /* Everything else would fail or loop in OTP on a negative precision. */
    if (neg_prec)
        return false;
    if (ctl == '~') {
        if (!is_list(*args) && !is_nil(*args))
            return false;
        return emit_char(st, '~', &sp);
    }

    term a, a2 = NIL;
    if (!next_arg(args, &a))
        return false;
    if ((ctl == 'W' || ctl == 'P' || ctl == 'x' || ctl == 'X') && !next_arg(args, &a2))
        return false;

    switch (ctl) {
    case 'c': {
        if (!is_integer(a))
            return false;
        uint32_t c;
        if (sp.unicode) {
            /* any integer: io_lib:format returns it as it is */
            if (is_small(a) && valid_char(small_value(a)))
                c = (uint32_t)small_value(a);
            else if (!nonchar(st->nc, a, &c))
                return false;
        } else if (is_small(a)) {
            c = (uint32_t)((uint64_t)small_value(a) & 255);
        } else {
            /* A band 255 of a bignum: the low byte of its two's complement */
            uint64_t low = big_limbs(a)[0];
            c = (uint32_t)((big_is_negative(a) ? (uint64_t)0 - low : low) & 255);
        }
        return emit_char(st, c, &sp);
    }
    case 'e':
    case 'f':
    case 'g':
        if (!is_float(a))
            return false;
        return emit_float(st, (char)ctl, float_value(a), &sp);
    case 'b':
    case 'B':
        if (!is_integer(a))
            return false;
        return emit_integer(st, a, &sp, NULL, ctl == 'b');
    case 'x':
    case 'X': {
        if (!is_integer(a))
            return false;
        struct cps prefix = {NULL, 0, 0};
        bool ok;
        if (is_atom(a2)) {
            atom_chars(&prefix, a2);
            ok = true;
        } else {
            ok = deep_char_list(&prefix, a2);
        }
        ok = ok && emit_integer(st, a, &sp, &prefix, ctl == 'x');
        cps_free(&prefix);
        return ok;
    }
    case '#':
    case '+': {
        if (!is_integer(a))
            return false;
        int64_t base = sp.prec < 0 ? 10 : sp.prec;
        if (base < 2 || base > 36)
            return false;
        struct cps prefix = {NULL, 0, 0};
        char pre[8];
        snprintf(pre, sizeof pre, "%d#", (int)base);
        push_ascii(&prefix, pre);
        bool ok = emit_integer(st, a, &sp, &prefix, ctl == '+');
        cps_free(&prefix);
        return ok;
    }
    case 's': {
        struct cps s = {NULL, 0, 0};
        bool ok;
        if (is_atom(a)) {
            atom_chars(&s, a);
            ok = true;
            if (!sp.unicode)
                for (size_t k = 0; k < s.n; k++)
                    ok = ok && s.v[k] < 256;
        } else {
            ok = cdata_walk(&s, a, sp.unicode ? CD_UNICODE : CD_LATIN1, st->nc);
        }
        ok = ok && emit_string(st, &s, &sp);
        cps_free(&s);
        return ok;
    }
    case 'w':
        emit_write(st, a, -1, &sp);
        return true;
    case 'W': {
        int depth;
        if (!depth_of(a2, &depth))
            return false;
        emit_write(st, a, depth, &sp);
        return true;
    }
    case 'p':
        return emit_print(st, a, -1, &sp);
    case 'P': {
        int depth;
        if (!depth_of(a2, &depth))
            return false;
        return emit_print(st, a, depth, &sp);
    }
    default:
        return false;
    }
}

bool io_format(struct strbuf *out, term format, term args) { return io_format_terms(out, format, args, NULL); }

bool io_format_terms(struct strbuf *out, term format, term args, struct io_nonchars *nc)
{
    struct fitems f = {NULL, 0, 0};
    bool ok = format_items(format, &f);
    struct fstate st = {out, nc, 0, out->len, false};
    for (size_t i = 0; ok && i < f.n;) {
        const struct fitem *it = &f.v[i];
        if (it->chunk) {
            /* copied as it is; one column, as OTP counts any element */
            struct cps s = {NULL, 0, 0};
            ok = cdata_walk(&s, it->chunk, CD_PUTCHARS, NULL);
            if (ok)
                for (size_t k = 0; k < s.n; k++)
                    strbuf_put_utf8(out, s.v[k]);
            cps_free(&s);
            st.scanned = out->len;
            st.col++;
            i++;
        } else if (it->c == '~') {
            i++;
            ok = control(&st, &f, &i, &args);
        } else {
            emit(&st, &it->c, 1);
            i++;
        }
        ok = ok && !st.bad;
    }
    free(f.v);
    return ok && is_nil(args);
}
