/*
 * convert.c — conversions between atoms, integers, floats and their text
 * (lists of characters or binaries).
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/heap.h"
#include "term/print.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text as a list of bytes, or as a binary. */
static term text_result(struct process *p, const char *s, size_t n, bool binary)
{
    term t = binary ? bin_from_bytes(&p->heap, s, n) : heap_string(&p->heap, s, n);
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* ---- atoms ---- */

static term bif_atom_to_list(struct process *p, const term *a)
{
    if (!is_atom(a[0]))
        return bif_badarg(p);
    size_t len;
    const unsigned char *s = (const unsigned char *)atom_text(a[0], &len), *end = s + len;
    term chars[ATOM_MAX_CHARS];
    size_t n = 0;
    while (s < end)
        chars[n++] = make_small(bif_next_utf8(&s));
    term l = bif_make_list(p, chars, n);
    return is_value(l) ? l : bif_out_of_memory(p);
}

/* The UTF-8 text of a list of code points; false when it is not one. */
static bool code_points(term list, struct strbuf *out)
{
    for (; is_list(list); list = list_tail(list)) {
        term c = list_head(list);
        if (!is_small(c) || small_value(c) < 0 || small_value(c) > 0x10FFFF ||
            (small_value(c) >= 0xD800 && small_value(c) <= 0xDFFF))
            return false;
        strbuf_put_utf8(out, (uint32_t)small_value(c));
    }
    return list == NIL;
}

static term atom_result(struct process *p, term atom, enum atom_status st)
{
    if (is_value(atom))
        return atom;
    return st == ATOM_BAD_UTF8 ? bif_badarg(p) : bif_error(p, A(system_limit));
}

static term bif_list_to_atom(struct process *p, const term *a)
{
    struct strbuf text = STRBUF_INIT;
    term r;
    if (!code_points(a[0], &text)) {
        r = bif_badarg(p);
    } else {
        enum atom_status st = ATOM_OK;
        term atom = atom_intern(strbuf_cstr(&text), text.len, &st);
        r = atom_result(p, atom, st);
    }
    strbuf_free(&text);
    return r;
}

static term bif_list_to_existing_atom(struct process *p, const term *a)
{
    struct strbuf text = STRBUF_INIT;
    term r = code_points(a[0], &text) ? atom_lookup(strbuf_cstr(&text), text.len) : THE_NON_VALUE;
    strbuf_free(&text);
    return is_value(r) ? r : bif_badarg(p);
}

enum encoding { ENC_BAD, ENC_LATIN1, ENC_UTF8 };

static enum encoding encoding_of(term t)
{
    if (t == A(latin1))
        return ENC_LATIN1;
    if (t == A(utf8) || t == A(unicode))
        return ENC_UTF8;
    return ENC_BAD;
}

static term atom_to_binary(struct process *p, term atom, enum encoding enc)
{
    if (!is_atom(atom) || enc == ENC_BAD)
        return bif_badarg(p);
    size_t len;
    const char *s = atom_text(atom, &len);
    if (enc == ENC_UTF8)
        return text_result(p, s, len, true);
    char latin[ATOM_MAX_CHARS];
    size_t n = 0;
    for (const unsigned char *q = (const unsigned char *)s, *end = q + len; q < end;) {
        uint32_t c = bif_next_utf8(&q);
        if (c > 255)
            return bif_badarg(p);
        latin[n++] = (char)(unsigned char)c;
    }
    return text_result(p, latin, n, true);
}

static term bif_atom_to_binary_1(struct process *p, const term *a) { return atom_to_binary(p, a[0], ENC_UTF8); }
static term bif_atom_to_binary_2(struct process *p, const term *a)
{
    return atom_to_binary(p, a[0], encoding_of(a[1]));
}

static term binary_to_atom(struct process *p, term bin, enum encoding enc, bool existing)
{
    const uint8_t *data;
    size_t size;
    if (!bif_binary_arg(bin, &data, &size) || enc == ENC_BAD)
        return bif_badarg(p);
    struct strbuf text = STRBUF_INIT;
    if (enc == ENC_LATIN1)
        for (size_t i = 0; i < size; i++)
            strbuf_put_utf8(&text, data[i]);
    else
        strbuf_append(&text, data, size);
    term r;
    if (existing) {
        r = atom_lookup(strbuf_cstr(&text), text.len);
        if (is_non_value(r))
            r = bif_badarg(p);
    } else {
        enum atom_status st = ATOM_OK;
        term atom = atom_intern(strbuf_cstr(&text), text.len, &st);
        r = atom_result(p, atom, st);
    }
    strbuf_free(&text);
    return r;
}

static term bif_binary_to_atom_1(struct process *p, const term *a) { return binary_to_atom(p, a[0], ENC_UTF8, false); }
static term bif_binary_to_atom_2(struct process *p, const term *a)
{
    return binary_to_atom(p, a[0], encoding_of(a[1]), false);
}
static term bif_binary_to_existing_atom_1(struct process *p, const term *a)
{
    return binary_to_atom(p, a[0], ENC_UTF8, true);
}
static term bif_binary_to_existing_atom_2(struct process *p, const term *a)
{
    return binary_to_atom(p, a[0], encoding_of(a[1]), true);
}

/* ---- integers ---- */

static bool base_arg(term t, unsigned *base)
{
    if (!is_small(t) || small_value(t) < 2 || small_value(t) > 36)
        return false;
    *base = (unsigned)small_value(t);
    return true;
}

static term integer_to_text(struct process *p, term i, term base_term, bool binary)
{
    unsigned base = 10;
    if (!is_integer(i) || (is_value(base_term) && !base_arg(base_term, &base)))
        return bif_badarg(p);
    struct strbuf text = STRBUF_INIT;
    int_to_string(i, base, &text);
    term r = text_result(p, strbuf_cstr(&text), text.len, binary);
    strbuf_free(&text);
    return r;
}

static term bif_integer_to_list_1(struct process *p, const term *a)
{
    return integer_to_text(p, a[0], THE_NON_VALUE, false);
}
static term bif_integer_to_list_2(struct process *p, const term *a) { return integer_to_text(p, a[0], a[1], false); }
static term bif_integer_to_binary_1(struct process *p, const term *a)
{
    return integer_to_text(p, a[0], THE_NON_VALUE, true);
}
static term bif_integer_to_binary_2(struct process *p, const term *a) { return integer_to_text(p, a[0], a[1], true); }

static term parse_integer(struct process *p, const char *s, size_t n, unsigned base)
{
    term r = THE_NON_VALUE;
    enum int_status st = INT_OK;
    if (int_from_string(&p->heap, s, n, base, &r, &st))
        return r;
    return st == INT_OK ? bif_badarg(p) : bif_int_failure(p, st);
}

static term list_to_integer(struct process *p, term list, term base_term)
{
    unsigned base = 10;
    struct strbuf text = STRBUF_INIT;
    term r;
    if ((is_value(base_term) && !base_arg(base_term, &base)) || !bif_list_bytes(list, &text))
        r = bif_badarg(p);
    else
        r = parse_integer(p, strbuf_cstr(&text), text.len, base);
    strbuf_free(&text);
    return r;
}

static term bif_list_to_integer_1(struct process *p, const term *a) { return list_to_integer(p, a[0], THE_NON_VALUE); }
static term bif_list_to_integer_2(struct process *p, const term *a) { return list_to_integer(p, a[0], a[1]); }

static term binary_to_integer(struct process *p, term bin, term base_term)
{
    unsigned base = 10;
    const uint8_t *data;
    size_t size;
    if ((is_value(base_term) && !base_arg(base_term, &base)) || !bif_binary_arg(bin, &data, &size))
        return bif_badarg(p);
    return parse_integer(p, (const char *)data, size, base);
}

static term bif_binary_to_integer_1(struct process *p, const term *a)
{
    return binary_to_integer(p, a[0], THE_NON_VALUE);
}
static term bif_binary_to_integer_2(struct process *p, const term *a) { return binary_to_integer(p, a[0], a[1]); }

/* ---- floats to text ---- */

/* OTP formats into a buffer of this many bytes, NUL included, and raises
 * badarg when the text does not fit. */
#define FLOAT_BUF 256

/* Drops trailing zeros but keeps one after the point. Also applies to the
 * integer digits when there is no point, as OTP's does: float_to_list(1.0e20,
 * [{decimals, 0}, compact]) is "1". */
static size_t strip_zeros(const char *s, size_t n)
{
    while (n > 0 && s[n - 1] == '0')
        n--;
    if (n > 0 && s[n - 1] == '.')
        n++;
    return n;
}

/* {decimals, N}: printf's correctly rounded %.*f for large values or many
 * decimals; otherwise OTP's own arithmetic, which rounds the fraction
 * scaled by 10^N half away from zero, and so differs from printf on ties
 * such as 0.5 (printf "0", OTP "1"). */
static bool format_fixed(double f, int decimals, bool compact, struct strbuf *out)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                   1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    const int max_decimals = (int)(sizeof pow10 / sizeof pow10[0]);
    char buf[FLOAT_BUF];
    double af = fabs(f);
    if (af > 9007199254740992.0 /* 2^53 */ || decimals >= max_decimals) {
        int len = snprintf(buf, sizeof buf, "%.*f", decimals, f);
        if (len < 0 || len >= FLOAT_BUF)
            return false;
        size_t n = compact ? strip_zeros(buf, (size_t)len) : (size_t)len;
        strbuf_append(out, buf, n);
        return true;
    }
    uint64_t int_part, frac_part = 0;
    if (decimals > 0) {
        double int_f = floor(af);
        double frac_f = round((af - int_f) * pow10[decimals]);
        int_part = (uint64_t)int_f;
        frac_part = (uint64_t)frac_f;
        if (frac_f >= pow10[decimals]) {
            int_part++;
            frac_part = 0;
        }
    } else {
        int_part = (uint64_t)llround(af);
    }
    /* The sign comes from the sign bit: -0.0 and -0.4 print as "-0". */
    int len = snprintf(buf, sizeof buf, "%s%llu", signbit(f) ? "-" : "", (unsigned long long)int_part);
    if (decimals > 0)
        len += snprintf(buf + len, sizeof buf - (size_t)len, ".%0*llu", decimals, (unsigned long long)frac_part);
    size_t n = compact && decimals > 0 ? strip_zeros(buf, (size_t)len) : (size_t)len;
    strbuf_append(out, buf, n);
    return true;
}

static bool format_scientific(double f, int decimals, struct strbuf *out)
{
    char buf[FLOAT_BUF];
    int len = snprintf(buf, sizeof buf, "%.*e", decimals, f);
    if (len < 0 || len >= FLOAT_BUF)
        return false;
    strbuf_append(out, buf, (size_t)len);
    return true;
}

/* float_to_list/2's options, read left to right: the last of {decimals, N},
 * {scientific, N} and short decides the format; compact only affects
 * decimals. */
static bool format_float(term f, term opts, struct strbuf *out)
{
    enum { FMT_LEGACY, FMT_FIXED, FMT_SCIENTIFIC, FMT_SHORT } fmt = FMT_LEGACY;
    int64_t decimals = 20;
    bool compact = false;
    if (!is_float(f))
        return false;
    for (; is_list(opts); opts = list_tail(opts)) {
        term o = list_head(opts);
        if (o == A(compact)) {
            compact = true;
        } else if (o == A(short)) {
            fmt = FMT_SHORT;
        } else if (is_tuple(o) && tuple_arity(o) == 2 && is_small(tuple_element(o, 2)) &&
                   (tuple_element(o, 1) == A(decimals) || tuple_element(o, 1) == A(scientific))) {
            decimals = small_value(tuple_element(o, 2));
            fmt = tuple_element(o, 1) == A(decimals) ? FMT_FIXED : FMT_SCIENTIFIC;
        } else {
            return false;
        }
    }
    if (opts != NIL)
        return false;
    double d = float_value(f);
    switch (fmt) {
    case FMT_FIXED:
        return decimals >= 0 && decimals <= 253 && format_fixed(d, (int)decimals, compact, out);
    case FMT_SCIENTIFIC:
        return decimals >= 0 && decimals <= 249 && format_scientific(d, (int)decimals, out);
    case FMT_SHORT:
        print_float_short(out, d);
        return true;
    case FMT_LEGACY:
    default:
        return format_scientific(d, 20, out);
    }
}

static term float_to_text(struct process *p, term f, term opts, bool binary)
{
    struct strbuf text = STRBUF_INIT;
    term r = format_float(f, opts, &text) ? text_result(p, strbuf_cstr(&text), text.len, binary) : bif_badarg(p);
    strbuf_free(&text);
    return r;
}

static term bif_float_to_list_1(struct process *p, const term *a) { return float_to_text(p, a[0], NIL, false); }
static term bif_float_to_list_2(struct process *p, const term *a) { return float_to_text(p, a[0], a[1], false); }
static term bif_float_to_binary_1(struct process *p, const term *a) { return float_to_text(p, a[0], NIL, true); }
static term bif_float_to_binary_2(struct process *p, const term *a) { return float_to_text(p, a[0], a[1], true); }

/* ---- text to floats ---- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* OTP's float syntax: [+-]digits(.|,)digits([eE][+-]digits)?, read as a C
 * string (so text after a NUL byte is ignored). Overflow is badarg;
 * underflow gives 0.0 or a subnormal. */
static bool parse_float(char *s, double *out)
{
    char *q = s;
    if (*q == '+' || *q == '-')
        q++;
    if (!is_digit(*q))
        return false;
    while (is_digit(*q))
        q++;
    if (*q != '.' && *q != ',')
        return false;
    *q++ = '.';
    if (!is_digit(*q))
        return false;
    while (is_digit(*q))
        q++;
    if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!is_digit(*q))
            return false;
        while (is_digit(*q))
            q++;
    }
    if (*q)
        return false;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end != q || isinf(d))
        return false;
    *out = d;
    return true;
}

static term text_to_float(struct process *p, struct strbuf *text)
{
    double d;
    strbuf_putc(text, '\0');
    if (!parse_float(text->data, &d))
        return bif_badarg(p);
    term r = heap_float(&p->heap, d);
    return is_value(r) ? r : bif_out_of_memory(p);
}

static term bif_list_to_float(struct process *p, const term *a)
{
    struct strbuf text = STRBUF_INIT;
    term r = bif_list_bytes(a[0], &text) ? text_to_float(p, &text) : bif_badarg(p);
    strbuf_free(&text);
    return r;
}

static term bif_binary_to_float(struct process *p, const term *a)
{
    const uint8_t *data;
    size_t size;
    if (!bif_binary_arg(a[0], &data, &size))
        return bif_badarg(p);
    struct strbuf text = STRBUF_INIT;
    strbuf_append(&text, data, size);
    term r = text_to_float(p, &text);
    strbuf_free(&text);
    return r;
}

/* ---- string:list_to_integer/1 and string:list_to_float/1 ----
 * The builtins under string:to_integer/1 and to_float/1 (OTP's string
 * module calls them with a list): the longest number at the start of the
 * list, as {Number, Rest} with Rest the list after it as it is (an improper
 * tail included), else {error, no_integer | no_float}; anything but a list
 * is {error, not_a_list}. Only ASCII characters make a number. */

/* The ASCII character at the head of cell `at`, else -1. */
static int head_char(term at)
{
    if (!is_list(at) || !is_small(list_head(at)))
        return -1;
    int64_t c = small_value(list_head(at));
    return c >= 0 && c < 128 ? (int)c : -1;
}

/* Moves past one character of `set`, writing it to text as `as` (0: as it is). */
static bool take_char(term *at, const char *set, char as, struct strbuf *text)
{
    int c = head_char(*at);
    if (c <= 0 || !strchr(set, c))
        return false;
    strbuf_putc(text, as ? as : (char)c);
    *at = list_tail(*at);
    return true;
}

/* Moves past the digits at the start; false when there is none. */
static bool take_digits(term *at, struct strbuf *text)
{
    bool any = false;
    int c;
    while ((c = head_char(*at)) >= 0 && is_digit((char)c)) {
        strbuf_putc(text, (char)c);
        *at = list_tail(*at);
        any = true;
    }
    return any;
}

static term number_and_rest(struct process *p, term number, term rest)
{
    if (is_non_value(number))
        return number; /* the exception is raised already */
    term r = heap_tuple2(&p->heap, number, rest);
    return is_value(r) ? r : bif_out_of_memory(p);
}

static term string_error(struct process *p, term why)
{
    term r = heap_tuple2(&p->heap, A(error), why);
    return is_value(r) ? r : bif_out_of_memory(p);
}

static term bif_string_list_to_integer(struct process *p, const term *a)
{
    if (!is_list_or_nil(a[0]))
        return string_error(p, A(not_a_list));
    term at = a[0];
    struct strbuf text = STRBUF_INIT;
    take_char(&at, "+-", 0, &text);
    term r = take_digits(&at, &text) ? number_and_rest(p, parse_integer(p, text.data, text.len, 10), at)
                                     : string_error(p, A(no_integer));
    strbuf_free(&text);
    return r;
}

static term bif_string_list_to_float(struct process *p, const term *a)
{
    if (!is_list_or_nil(a[0]))
        return string_error(p, A(not_a_list));
    term at = a[0];
    struct strbuf text = STRBUF_INIT;
    take_char(&at, "+-", 0, &text);
    bool ok = take_digits(&at, &text) && take_char(&at, ".,", '.', &text) && take_digits(&at, &text);
    if (ok) {
        /* An exponent counts only when complete: "1.5e+" is 1.5 and "e+". */
        term before = at;
        size_t len = text.len;
        if (!(take_char(&at, "eE", 'e', &text) && (take_char(&at, "+-", 0, &text), take_digits(&at, &text)))) {
            at = before;
            text.len = len;
        }
    }
    term r;
    double d = 0;
    if (ok) {
        strbuf_putc(&text, '\0');
        d = strtod(text.data, NULL);
        ok = !isinf(d); /* overflow; an underflow reads as 0.0 or a subnormal, as on OTP */
    }
    if (!ok) {
        r = string_error(p, A(no_float));
    } else {
        term f = heap_float(&p->heap, d);
        r = is_value(f) ? number_and_rest(p, f, at) : bif_out_of_memory(p);
    }
    strbuf_free(&text);
    return r;
}

const struct bif_def bif_table_convert[] = {
    {"erlang", "atom_to_list", 1, bif_atom_to_list, 0},
    {"erlang", "list_to_atom", 1, bif_list_to_atom, 0},
    {"erlang", "list_to_existing_atom", 1, bif_list_to_existing_atom, 0},
    {"erlang", "atom_to_binary", 1, bif_atom_to_binary_1, 0},
    {"erlang", "atom_to_binary", 2, bif_atom_to_binary_2, 0},
    {"erlang", "binary_to_atom", 1, bif_binary_to_atom_1, 0},
    {"erlang", "binary_to_atom", 2, bif_binary_to_atom_2, 0},
    {"erlang", "binary_to_existing_atom", 1, bif_binary_to_existing_atom_1, 0},
    {"erlang", "binary_to_existing_atom", 2, bif_binary_to_existing_atom_2, 0},
    {"erlang", "integer_to_list", 1, bif_integer_to_list_1, 0},
    {"erlang", "integer_to_list", 2, bif_integer_to_list_2, 0},
    {"erlang", "integer_to_binary", 1, bif_integer_to_binary_1, 0},
    {"erlang", "integer_to_binary", 2, bif_integer_to_binary_2, 0},
    {"erlang", "list_to_integer", 1, bif_list_to_integer_1, 0},
    {"erlang", "list_to_integer", 2, bif_list_to_integer_2, 0},
    {"erlang", "binary_to_integer", 1, bif_binary_to_integer_1, 0},
    {"erlang", "binary_to_integer", 2, bif_binary_to_integer_2, 0},
    {"erlang", "float_to_list", 1, bif_float_to_list_1, 0},
    {"erlang", "float_to_list", 2, bif_float_to_list_2, 0},
    {"erlang", "float_to_binary", 1, bif_float_to_binary_1, 0},
    {"erlang", "float_to_binary", 2, bif_float_to_binary_2, 0},
    {"erlang", "list_to_float", 1, bif_list_to_float, 0},
    {"erlang", "binary_to_float", 1, bif_binary_to_float, 0},
    {"string", "list_to_integer", 1, bif_string_list_to_integer, 0},
    {"string", "list_to_float", 1, bif_string_list_to_float, 0},
    {NULL, NULL, 0, NULL, 0},
};
