/*
 * print.c — writing terms as OTP 25's io_lib does (print.h).
 *
 * Owns ~w and ~tw (io_lib:write/2), ~p and ~tp (io_lib_pretty:print/2 as
 * io_lib:format's ~p and ~P call it: strings shown, no chars_limit), OTP's
 * atom quoting, string escapes and float_to_list(F, [short]).
 *
 * Text encoding: every character OTP 25 produces for ~w and ~p in latin1
 * mode is at most U+00FF (atoms with larger code points come out as \x{..};
 * the unicode mode of ~tw and ~tp keeps them, and its strings are still of
 * Latin-1 characters, io:printable_range() being latin1;
 * funs print the bytes of erts' own UTF-8 text one character per byte, as
 * erlang:fun_to_list/1 does in OTP 25). We append each character as UTF-8,
 * so the output converts to Latin-1 without loss when a latin1 device needs
 * it. Line widths count characters, not bytes, as io_lib does.
 *
 * Identifiers: pid N prints <0.N.0>, port N #Port<0.N>, and a reference
 * with id words lo, hi prints #Ref<0.H.L1.L0> with H the low 32 bits of hi,
 * L1 and L0 the high and low halves of lo — for references decoded from a
 * real OTP one (etf.c puts ID words w0, w1 in lo and w2 in hi) that is the
 * text ref_to_list/1 gives.
 *
 * ~p works as io_lib_pretty does: the term becomes a tree of nodes with
 * their one-line lengths (print_length), a dry run picks the indentation
 * used for tagged tuples and map values (cind), then the layout walk writes
 * it (pp). Every walk here runs on explicit stacks or index loops, never C
 * recursion over the term, and none of the layout decisions depend on a
 * child's output, only on lengths known before it is written.
 */
#include "term/print.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/map.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Small utilities                                                      */
/* ------------------------------------------------------------------ */

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("clause: out of memory while printing a term\n", stderr);
        abort();
    }
    return q;
}

/* Characters in a stretch of UTF-8 text: bytes that are not continuations. */
static int64_t count_chars(const char *s, size_t n)
{
    int64_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* Decodes one UTF-8 character at s[*i]; malformed bytes count as Latin-1
 * characters (atom texts are always valid, this is only a guard). */
static uint32_t next_char(const unsigned char *s, size_t n, size_t *i)
{
    unsigned c = s[*i];
    size_t need = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 0;
    if (need == 0 || n - *i <= need) {
        (*i)++;
        return c;
    }
    uint32_t v = c & (0x7Fu >> (need + 1));
    for (size_t k = 1; k <= need; k++) {
        unsigned cc = s[*i + k];
        if ((cc & 0xC0) != 0x80) {
            (*i)++;
            return c;
        }
        v = v << 6 | (cc & 0x3F);
    }
    *i += need + 1;
    return v;
}

/* ------------------------------------------------------------------ */
/* Characters in strings and quoted atoms (io_lib:string_char/4)        */
/* ------------------------------------------------------------------ */

/* One character inside a "..." string or a '...' atom whose quote is q.
 * Characters above 255 only reach here from atoms: io_lib writes them as
 * they are in unicode mode (~tw, ~tp), else "as latin1": \x{HEX}. */
static void put_escaped(struct strbuf *b, uint32_t c, char q, bool unicode)
{
    if (c == (uint32_t)(unsigned char)q) {
        strbuf_putc(b, '\\');
        strbuf_putc(b, q);
        return;
    }
    if (c == '\\') {
        strbuf_puts(b, "\\\\");
        return;
    }
    if ((c >= ' ' && c <= '~') || (c >= 160 && c <= 255)) {
        strbuf_put_utf8(b, c);
        return;
    }
    if (c > 255) {
        if (unicode)
            strbuf_put_utf8(b, c);
        else
            strbuf_printf(b, "\\x{%" PRIX32 "}", c);
        return;
    }
    switch (c) {
    case '\n':
        strbuf_puts(b, "\\n");
        return;
    case '\r':
        strbuf_puts(b, "\\r");
        return;
    case '\t':
        strbuf_puts(b, "\\t");
        return;
    case '\v':
        strbuf_puts(b, "\\v");
        return;
    case '\b':
        strbuf_puts(b, "\\b");
        return;
    case '\f':
        strbuf_puts(b, "\\f");
        return;
    case 27:
        strbuf_puts(b, "\\e");
        return;
    case 127:
        strbuf_puts(b, "\\d");
        return;
    default:
        strbuf_printf(b, "\\%c%c%c", (char)('0' + (c >> 6)), (char)('0' + (c >> 3 & 7)), (char)('0' + (c & 7)));
        return;
    }
}

/* io_lib:printable_latin1_list/1 for one character. */
static bool printable_latin1(int64_t c)
{
    return (c >= ' ' && c <= '~') || (c >= 160 && c <= 255) || c == '\n' || c == '\r' || c == '\t' || c == '\v' ||
           c == '\b' || c == '\f' || c == 27;
}

/* A proper, non-empty list of printable Latin-1 characters? */
static bool printable_latin1_list(term t)
{
    if (!is_list(t))
        return false;
    while (is_list(t)) {
        term h = list_head(t);
        if (!is_small(h) || !printable_latin1(small_value(h)))
            return false;
        t = list_tail(t);
    }
    return is_nil(t);
}

static void put_string_list(struct strbuf *b, term t)
{
    strbuf_putc(b, '"');
    for (; is_list(t); t = list_tail(t))
        put_escaped(b, (uint32_t)small_value(list_head(t)), '"', false);
    strbuf_putc(b, '"');
}

static void put_string_bytes(struct strbuf *b, const uint8_t *d, size_t n)
{
    strbuf_putc(b, '"');
    for (size_t i = 0; i < n; i++)
        put_escaped(b, d[i], '"', false);
    strbuf_putc(b, '"');
}

/* ------------------------------------------------------------------ */
/* Atoms                                                                */
/* ------------------------------------------------------------------ */

static const char *const reserved_words[] = {
    "after", "and",  "andalso", "band",   "begin",   "bnot", "bor", "bsl",  "bsr",
    "bxor",  "case", "catch",   "cond",   "div",     "end",  "fun", "if",   "let",
    "not",   "of",   "or",      "orelse", "receive", "rem",  "try", "when", "xor",
};

static bool is_reserved(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof reserved_words / sizeof reserved_words[0]; i++)
        if (strlen(reserved_words[i]) == n && memcmp(reserved_words[i], s, n) == 0)
            return true;
    return false;
}

/* io_lib's name characters: Latin-1 letters (not × ÷), digits, _ and @. */
static bool lower_start(uint32_t c) { return (c >= 'a' && c <= 'z') || (c >= 223 && c <= 255 && c != 247); }
static bool name_char(uint32_t c)
{
    return lower_start(c) || (c >= 'A' && c <= 'Z') || (c >= 192 && c <= 222 && c != 215) || (c >= '0' && c <= '9') ||
           c == '_' || c == '@';
}

/* io_lib:write_atom/1 (unicode) or write_atom_as_latin1/1: the quoting is
 * the same, only characters above 255 differ. */
static void put_atom(struct strbuf *out, term atom, bool unicode)
{
    size_t n;
    const unsigned char *s = (const unsigned char *)atom_text(atom, &n);
    bool quote = n == 0 || is_reserved((const char *)s, n);
    if (!quote) {
        size_t i = 0;
        quote = !lower_start(next_char(s, n, &i));
        while (!quote && i < n)
            quote = !name_char(next_char(s, n, &i));
    }
    if (!quote) {
        strbuf_append(out, s, n);
        return;
    }
    strbuf_putc(out, '\'');
    for (size_t i = 0; i < n;)
        put_escaped(out, next_char(s, n, &i), '\'', unicode);
    strbuf_putc(out, '\'');
}

void print_atom(struct strbuf *out, term atom) { put_atom(out, atom, false); }

/* erts' own atom printing (erl_printf_term.c), which fun_to_list/1 uses:
 * different quoting rules from io_lib, and it works on the UTF-8 bytes. The
 * bytes go to `raw`; the caller turns each into one character. */
static uint32_t erts_lead_char(const unsigned char *s, size_t n, size_t i)
{
    unsigned c = s[i];
    if (c < 0x80)
        return c;
    if ((c & 0xE0) == 0xC0)
        return (c & 0x1F) << 6 | (i + 1 < n ? s[i + 1] & 0x3F : 0);
    if ((c & 0xC0) == 0x80)
        return 'a';
    return 0;
}

static bool erts_alnum(uint32_t c)
{
    return (c >= '0' && c <= '9') || lower_start(c) || (c >= 'A' && c <= 'Z') || (c >= 192 && c <= 222 && c != 215);
}

static void erts_atom(struct strbuf *raw, term atom)
{
    size_t n;
    const unsigned char *s = (const unsigned char *)atom_text(atom, &n);
    if (n == 0) {
        strbuf_puts(raw, "''");
        return;
    }
    bool quote = !lower_start(erts_lead_char(s, n, 0));
    for (size_t i = 1; !quote && i < n; i++) {
        uint32_t c = erts_lead_char(s, n, i);
        quote = !erts_alnum(c) && c != '_';
    }
    if (quote)
        strbuf_putc(raw, '\'');
    for (size_t i = 0; i < n; i++) {
        unsigned c = s[i];
        switch (c) {
        case '\'':
            strbuf_puts(raw, "\\'");
            break;
        case '\\':
            strbuf_puts(raw, "\\\\");
            break;
        case '\n':
            strbuf_puts(raw, "\\n");
            break;
        case '\f':
            strbuf_puts(raw, "\\f");
            break;
        case '\t':
            strbuf_puts(raw, "\\t");
            break;
        case '\r':
            strbuf_puts(raw, "\\r");
            break;
        case '\b':
            strbuf_puts(raw, "\\b");
            break;
        case '\v':
            strbuf_puts(raw, "\\v");
            break;
        default:
            if (c < ' ') {
                strbuf_printf(raw, "\\%03o", c);
            } else if (c == 0xC2 && i + 1 < n && s[i + 1] < 0xA0) {
                strbuf_printf(raw, "\\%03o", (unsigned)s[i + 1]);
                i++;
            } else {
                strbuf_putc(raw, (char)c);
            }
        }
    }
    if (quote)
        strbuf_putc(raw, '\'');
}

/* ------------------------------------------------------------------ */
/* Floats: float_to_list(F, [short])                                   */
/* ------------------------------------------------------------------ */

/* Parses snprintf's "%.*e" text into its digits and decimal exponent. */
static int parse_e(const char *buf, char *digits, int *exp10)
{
    int n = 0;
    const char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    *exp10 = *p == 'e' ? atoi(p + 1) : 0;
    return n;
}

/* The shortest digits that read back as v (v > 0, finite), closest to v
 * when several of that length do, as Ryu (which OTP uses) picks them. The
 * correctly rounded p-digit value is the closest; when it falls just
 * outside the rounding interval on the narrow side (v a power of two), the
 * next p-digit value up may still be inside, so that one is tried too. */
static int shortest_digits(double v, char *digits, int *sci_exp)
{
    char buf[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        double back = strtod(buf, NULL);
        int e;
        int n = parse_e(buf, digits, &e);
        if (back == v) {
            *sci_exp = e;
            return n;
        }
        if (back < v) {
            /* one unit up in the last place */
            int k = n - 1;
            while (k >= 0 && digits[k] == '9')
                digits[k--] = '0';
            if (k < 0) {
                memmove(digits + 1, digits, (size_t)n - 1);
                digits[0] = '1';
                e++;
            } else {
                digits[k]++;
            }
            snprintf(buf, sizeof buf, "%c.%.*se%d", digits[0], n - 1, digits + 1, e);
            if (n == 1)
                snprintf(buf, sizeof buf, "%ce%d", digits[0], e);
            if (strtod(buf, NULL) == v) {
                *sci_exp = e;
                return n;
            }
        }
    }
    /* %.16e always reads back; not reached */
    snprintf(buf, sizeof buf, "%.16e", v);
    return parse_e(buf, digits, sci_exp);
}

void print_float_short(struct strbuf *out, double d)
{
    if (isnan(d) || isinf(d)) {
        /* Erlang has no such floats; print something recognisable. */
        strbuf_puts(out, isnan(d) ? "nan" : d < 0 ? "-inf" : "inf");
        return;
    }
    if (signbit(d))
        strbuf_putc(out, '-');
    double v = fabs(d);
    if (v == 0.0) {
        strbuf_puts(out, "0.0");
        return;
    }
    char digits[24];
    int sci;
    int n = shortest_digits(v, digits, &sci);
    while (n > 1 && digits[n - 1] == '0')
        n--;
    uint64_t mant = 0;
    for (int i = 0; i < n; i++)
        mant = mant * 10 + (uint64_t)(digits[i] - '0');
    int e = sci - (n - 1); /* value = mant * 10^e */

    /* OTP's choice between fixed and scientific notation (erts' ryu
     * to_chars): a window of exponents around the digits, narrowed so that
     * fixed notation never shows integers beyond 2^53 as if exact. */
    int lower, upper;
    if (n == 1) {
        lower = -4;
        upper = 2;
    } else if (sci >= 10) {
        lower = -(n + 2);
        upper = 2;
    } else {
        lower = -(n + 2);
        upper = 1;
    }
    bool fixed = lower <= e && e <= upper;
    if (fixed && ((mant >= (UINT64_C(1) << 53) && e == 0) || (mant > (UINT64_C(1) << 52) / 5 && e == 1) ||
                  (mant > (UINT64_C(1) << 51) / 25 && e == 2)))
        fixed = false;

    if (fixed) {
        int whole = n + e;
        if (e >= 0) {
            strbuf_append(out, digits, (size_t)n);
            strbuf_fill(out, '0', (size_t)e);
            strbuf_puts(out, ".0");
        } else if (whole > 0) {
            strbuf_append(out, digits, (size_t)whole);
            strbuf_putc(out, '.');
            strbuf_append(out, digits + whole, (size_t)(n - whole));
        } else {
            strbuf_puts(out, "0.");
            strbuf_fill(out, '0', (size_t)-whole);
            strbuf_append(out, digits, (size_t)n);
        }
        return;
    }
    strbuf_putc(out, digits[0]);
    strbuf_putc(out, '.');
    if (n > 1)
        strbuf_append(out, digits + 1, (size_t)(n - 1));
    else
        strbuf_putc(out, '0');
    strbuf_printf(out, "e%d", sci);
}

/* ------------------------------------------------------------------ */
/* Atomic terms (io_lib:write of everything that is not a container)    */
/* ------------------------------------------------------------------ */

static void put_fun(struct strbuf *out, term t)
{
    /* fun_to_list/1 in OTP 25 returns erts' UTF-8 bytes as characters. */
    struct strbuf raw = STRBUF_INIT;
    if (is_export(t)) {
        term *p = boxed_ptr(t);
        strbuf_puts(&raw, "fun ");
        erts_atom(&raw, p[1]);
        strbuf_putc(&raw, ':');
        erts_atom(&raw, p[2]);
        strbuf_printf(&raw, "/%" PRId64, is_small(p[3]) ? small_value(p[3]) : (int64_t)0);
    } else {
        const struct fun_entry *fe = fun_entry_of(t);
        size_t n;
        const char *m = atom_text(fe->module, &n);
        strbuf_puts(&raw, "#Fun<");
        strbuf_append(&raw, m, n);
        strbuf_printf(&raw, ".%" PRIu32 ".%" PRIu32 ">", fe->index, fe->old_uniq);
    }
    for (size_t i = 0; i < raw.len; i++)
        strbuf_put_utf8(out, (unsigned char)raw.data[i]);
    strbuf_free(&raw);
}

/* Writes an atomic term (anything but list, tuple, map, bitstring). */
static void put_atomic(struct strbuf *out, term t, bool unicode)
{
    if (is_small(t)) {
        strbuf_printf(out, "%" PRId64, small_value(t));
    } else if (is_atom(t)) {
        put_atom(out, t, unicode);
    } else if (is_nil(t)) {
        strbuf_puts(out, "[]");
    } else if (is_pid(t)) {
        strbuf_printf(out, "<0.%" PRIu64 ".0>", pid_number(t));
    } else if (is_port(t)) {
        strbuf_printf(out, "#Port<0.%" PRIu64 ">", port_number(t));
    } else if (is_boxed(t)) {
        switch (header_subtag(boxed_header(t))) {
        case SUBTAG_POS_BIG:
        case SUBTAG_NEG_BIG:
            int_to_string(t, 10, out);
            return;
        case SUBTAG_FLOAT:
            print_float_short(out, float_value(t));
            return;
        case SUBTAG_REF:
        case SUBTAG_MAGIC_REF:
            strbuf_printf(out, "#Ref<0.%" PRIu32 ".%" PRIu32 ".%" PRIu32 ">", (uint32_t)ref_id_high(t),
                          (uint32_t)(ref_id_low(t) >> 32), (uint32_t)ref_id_low(t));
            return;
        case SUBTAG_FUN:
        case SUBTAG_EXPORT:
            put_fun(out, t);
            return;
        default:
            strbuf_puts(out, "<unknown>");
            return;
        }
    } else {
        strbuf_puts(out, "<unknown>");
    }
}

/* ------------------------------------------------------------------ */
/* Binaries as io_lib:write_binary/2 writes them                         */
/* ------------------------------------------------------------------ */

/* The bytes of a bitstring; trailing bits are the high bits of
 * data[size]. */
struct bin_view {
    const uint8_t *data;
    size_t size;
    unsigned bits;
};

static struct bin_view bin_view_of(term t)
{
    struct bin_view v;
    bin_bytes(t, &v.data, &v.size, &v.bits);
    return v;
}

/* Number of elements write_binary shows at depth D and whether the last
 * one is "...". */
static size_t bin_elements(const struct bin_view *v, int64_t depth, bool *dots)
{
    size_t total = v->size + (v->bits ? 1 : 0);
    *dots = false;
    if (depth > 0 && total >= (size_t)depth) {
        /* elements 0..depth-2 are data, element depth-1 is "..." */
        *dots = true;
        return (size_t)depth;
    }
    return total;
}

/* Text of element i of count: a byte, the trailing bits as Value:Size, or
 * "..." where the depth ran out. Returns its length. */
static int bin_element(char el[16], const struct bin_view *v, size_t i, bool dots, size_t count)
{
    if (dots && i == count - 1)
        return snprintf(el, 16, "...");
    if (i < v->size)
        return snprintf(el, 16, "%u", (unsigned)v->data[i]);
    return snprintf(el, 16, "%u:%u", (unsigned)(v->data[v->size] >> (8 - v->bits)), v->bits);
}

static void put_binary_plain(struct strbuf *out, term t, int64_t depth)
{
    struct bin_view v = bin_view_of(t);
    bool dots;
    size_t n = bin_elements(&v, depth, &dots);
    strbuf_puts(out, "<<");
    for (size_t i = 0; i < n; i++) {
        char el[16];
        int len = bin_element(el, &v, i, dots, n);
        if (i)
            strbuf_putc(out, ',');
        strbuf_append(out, el, (size_t)len);
    }
    strbuf_puts(out, ">>");
}

/* ------------------------------------------------------------------ */
/* Map pairs in the order io_lib sees them                              */
/* ------------------------------------------------------------------ */

/* io_lib walks maps with maps:iterator/1 and maps:next/1. In OTP 25 that
 * order is maps:to_list/1 order (map_iter's) for flat maps but exactly its
 * reverse for hash maps (more than MAP_SMALL_LIMIT keys). Returns 2n terms,
 * key and value alternating; the caller frees them. */
static term *io_map_pairs(term map, size_t *n_out)
{
    size_t n = map_size(map);
    term *kv = xrealloc(NULL, 2 * n * sizeof *kv);
    struct map_iter it;
    map_iter_init(&it, map);
    size_t k = 0;
    while (k < n && map_iter_next(&it, &kv[2 * k], &kv[2 * k + 1]))
        k++;
    if (header_subtag(boxed_header(map)) == SUBTAG_HASHMAP) {
        for (size_t i = 0, j = k ? k - 1 : 0; i < j; i++, j--) {
            term tk = kv[2 * i], tv = kv[2 * i + 1];
            kv[2 * i] = kv[2 * j];
            kv[2 * i + 1] = kv[2 * j + 1];
            kv[2 * j] = tk;
            kv[2 * j + 1] = tv;
        }
    }
    *n_out = k;
    return kv;
}

/* ------------------------------------------------------------------ */
/* ~w: io_lib:write/2                                                  */
/* ------------------------------------------------------------------ */

enum wop { WOP_TERM, WOP_LIST_TAIL, WOP_TUPLE_REST, WOP_TEXT, WOP_HAMT_NODE };

struct witem {
    term t;
    uint64_t index;
    int64_t depth;
    const char *text;
    enum wop op;
};

struct wstack {
    struct witem *items;
    size_t n, cap;
};

static void wpush(struct wstack *s, enum wop op, term t, uint64_t index, int64_t depth, const char *text)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->items = xrealloc(s->items, s->cap * sizeof *s->items);
    }
    s->items[s->n++] = (struct witem){t, index, depth, text, op};
}

/* One level deeper; a negative depth means no limit and stays so. */
static int64_t deeper(int64_t d) { return d < 0 ? d : d - 1; }

static void w_map(struct wstack *s, struct strbuf *out, term t, int64_t d)
{
    size_t n = map_size(t);
    if (d == 1 || n == 0) {
        strbuf_puts(out, "#{}");
        return;
    }
    /* io_lib writes min(n, D-1) pairs and then ",..." whenever it got that
     * far, even when no pair is left (write_map_body checks the depth
     * before the iterator). */
    int64_t d0 = d - 1;
    size_t shown = n;
    bool dots = false;
    if (d0 >= 1 && (uint64_t)n >= (uint64_t)d0) {
        shown = (size_t)d0;
        dots = true;
    }
    size_t got;
    term *kv = io_map_pairs(t, &got);
    if (shown > got)
        shown = got;
    strbuf_puts(out, "#{");
    wpush(s, WOP_TEXT, 0, 0, 0, "}");
    if (dots)
        wpush(s, WOP_TEXT, 0, 0, 0, ",...");
    for (size_t i = shown; i-- > 0;) {
        wpush(s, WOP_TERM, kv[2 * i + 1], 0, d0, NULL);
        wpush(s, WOP_TEXT, 0, 0, 0, " => ");
        wpush(s, WOP_TERM, kv[2 * i], 0, d0, NULL);
        if (i)
            wpush(s, WOP_TEXT, 0, 0, 0, ",");
    }
    free(kv);
}

static void w_term(struct wstack *s, struct strbuf *out, term t, int64_t d, bool unicode)
{
    if (d == 0) {
        strbuf_puts(out, "...");
    } else if (is_list(t)) {
        if (d == 1) {
            strbuf_puts(out, "[...]");
            return;
        }
        strbuf_putc(out, '[');
        wpush(s, WOP_TEXT, 0, 0, 0, "]");
        wpush(s, WOP_LIST_TAIL, list_tail(t), 0, deeper(d), NULL);
        wpush(s, WOP_TERM, list_head(t), 0, deeper(d), NULL);
    } else if (is_tuple(t)) {
        if (tuple_arity(t) == 0) {
            strbuf_puts(out, "{}");
        } else if (d == 1) {
            strbuf_puts(out, "{...}");
        } else {
            strbuf_putc(out, '{');
            wpush(s, WOP_TEXT, 0, 0, 0, "}");
            wpush(s, WOP_TUPLE_REST, t, 2, deeper(d), NULL);
            wpush(s, WOP_TERM, tuple_element(t, 1), 0, deeper(d), NULL);
        }
    } else if (is_map(t)) {
        w_map(s, out, t, d);
    } else if (is_bitstring(t)) {
        put_binary_plain(out, t, d);
    } else {
        put_atomic(out, t, unicode);
    }
}

void print_w(struct strbuf *out, term t, int depth) { print_w_enc(out, t, depth, false); }

void print_w_enc(struct strbuf *out, term t, int depth, bool unicode)
{
    struct wstack s = {NULL, 0, 0};
    strbuf_reserve(out, 0); /* so the buffer is a string even when nothing is written */
    wpush(&s, WOP_TERM, t, 0, depth < 0 ? -1 : depth, NULL);
    while (s.n) {
        struct witem it = s.items[--s.n];
        switch (it.op) {
        case WOP_TEXT:
            strbuf_puts(out, it.text);
            break;
        case WOP_TERM:
            w_term(&s, out, it.t, it.depth, unicode);
            break;
        case WOP_LIST_TAIL:
            if (is_nil(it.t))
                break;
            if (it.depth == 1) {
                strbuf_puts(out, "|...");
            } else if (is_list(it.t)) {
                strbuf_putc(out, ',');
                wpush(&s, WOP_LIST_TAIL, list_tail(it.t), 0, deeper(it.depth), NULL);
                wpush(&s, WOP_TERM, list_head(it.t), 0, deeper(it.depth), NULL);
            } else {
                strbuf_putc(out, '|');
                wpush(&s, WOP_TERM, it.t, 0, deeper(it.depth), NULL);
            }
            break;
        case WOP_HAMT_NODE: /* print_display's only */
            break;
        case WOP_TUPLE_REST:
            if (it.index > tuple_arity(it.t))
                break;
            if (it.depth == 1) {
                strbuf_puts(out, ",...");
            } else {
                strbuf_putc(out, ',');
                wpush(&s, WOP_TUPLE_REST, it.t, it.index + 1, deeper(it.depth), NULL);
                wpush(&s, WOP_TERM, tuple_element(it.t, it.index), 0, deeper(it.depth), NULL);
            }
            break;
        }
    }
    free(s.items);
}

/* ------------------------------------------------------------------ */
/* erlang:display/1: erts' own printer (erl_printf_term.c)             */
/* ------------------------------------------------------------------ */

/* A character erts shows in a string: Latin-1, not a control character
 * unless it is a space, newline, tab or carriage return. */
static bool display_char(term t)
{
    if (!is_small(t) || small_value(t) < 0 || small_value(t) > 255)
        return false;
    int64_t c = small_value(t);
    bool control = c < ' ' || c == 127 || (c >= 128 && c < 160);
    return !control || c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

static bool display_string(term t)
{
    for (; is_list(t); t = list_tail(t))
        if (!display_char(list_head(t)))
            return false;
    return is_nil(t);
}

static void display_binary(struct strbuf *out, term t)
{
    struct bin_view v = bin_view_of(t);
    bool ascii = v.size > 0 && v.bits == 0;
    for (size_t i = 0; ascii && i < v.size; i++)
        ascii = v.data[i] >= ' ' && v.data[i] < 127;
    if (ascii) {
        strbuf_puts(out, "<<\"");
        for (size_t i = 0; i < v.size; i++) {
            if (v.data[i] == '"')
                strbuf_putc(out, '\\');
            strbuf_putc(out, (char)v.data[i]);
        }
        strbuf_puts(out, "\">>");
        return;
    }
    strbuf_puts(out, "<<");
    for (size_t i = 0; i < v.size; i++)
        strbuf_printf(out, "%s%u", i ? "," : "", (unsigned)v.data[i]);
    if (v.bits)
        strbuf_printf(out, "%s%u:%u", v.size ? "," : "", (unsigned)(v.data[v.size] >> (8 - v.bits)), v.bits);
    strbuf_puts(out, ">>");
}

/* A large map shows its trie as erts lays it out: the head as
 * #<bitmap>{...}, inner nodes as <bitmap>{...}, leaves as [K|V] cons cells;
 * ours has OTP's layout (map.c), so the text is OTP's. */
static void display_hamt_node(struct wstack *s, struct strbuf *out, term node, bool head)
{
    const term *w = boxed_ptr(node);
    uint64_t arity = header_arity(w[0]);
    const term *children = head ? w + 2 : w + 1;
    uint64_t n = head ? arity - 1 : arity;
    strbuf_printf(out, "%s<%x>{", head ? "#" : "", (unsigned)header_extra(w[0]));
    wpush(s, WOP_TEXT, 0, 0, 0, "}");
    for (uint64_t i = n; i-- > 0;) {
        term child = children[i];
        wpush(s, is_boxed(child) && header_subtag(boxed_header(child)) == SUBTAG_HASHMAP ? WOP_HAMT_NODE : WOP_TERM,
              child, 0, -1, NULL);
        if (i)
            wpush(s, WOP_TEXT, 0, 0, 0, ",");
    }
}

static void display_term(struct wstack *s, struct strbuf *out, term t)
{
    if (is_list(t) && display_string(t)) {
        strbuf_putc(out, '"');
        for (; is_list(t); t = list_tail(t)) {
            char c = (char)small_value(list_head(t));
            if (c == '\n') {
                strbuf_puts(out, "\\n");
                continue;
            }
            if (c == '"')
                strbuf_putc(out, '\\');
            strbuf_putc(out, c);
        }
        strbuf_putc(out, '"');
    } else if (is_list(t)) {
        strbuf_putc(out, '[');
        wpush(s, WOP_TEXT, 0, 0, 0, "]");
        wpush(s, WOP_LIST_TAIL, list_tail(t), 0, -1, NULL);
        wpush(s, WOP_TERM, list_head(t), 0, -1, NULL);
    } else if (is_tuple(t)) {
        strbuf_putc(out, '{');
        wpush(s, WOP_TEXT, 0, 0, 0, "}");
        if (tuple_arity(t) > 0) {
            wpush(s, WOP_TUPLE_REST, t, 2, -1, NULL);
            wpush(s, WOP_TERM, tuple_element(t, 1), 0, -1, NULL);
        }
    } else if (is_map(t) && header_subtag(boxed_header(t)) == SUBTAG_HASHMAP) {
        display_hamt_node(s, out, t, true);
    } else if (is_map(t)) {
        size_t n;
        term *kv = io_map_pairs(t, &n);
        strbuf_puts(out, "#{");
        wpush(s, WOP_TEXT, 0, 0, 0, "}");
        for (size_t i = n; i-- > 0;) {
            wpush(s, WOP_TERM, kv[2 * i + 1], 0, -1, NULL);
            wpush(s, WOP_TEXT, 0, 0, 0, "=>");
            wpush(s, WOP_TERM, kv[2 * i], 0, -1, NULL);
            if (i)
                wpush(s, WOP_TEXT, 0, 0, 0, ",");
        }
        free(kv);
    } else if (is_bitstring(t)) {
        display_binary(out, t);
    } else if (is_atom(t)) {
        erts_atom(out, t);
    } else if (is_float(t)) {
        strbuf_printf(out, "%.6e", float_value(t));
    } else {
        put_atomic(out, t, false);
    }
}

void print_display(struct strbuf *out, term t)
{
    struct wstack s = {NULL, 0, 0};
    strbuf_reserve(out, 0);
    wpush(&s, WOP_TERM, t, 0, -1, NULL);
    while (s.n) {
        struct witem it = s.items[--s.n];
        switch (it.op) {
        case WOP_TEXT:
            strbuf_puts(out, it.text);
            break;
        case WOP_TERM:
            display_term(&s, out, it.t);
            break;
        case WOP_HAMT_NODE:
            display_hamt_node(&s, out, it.t, false);
            break;
        case WOP_LIST_TAIL:
            if (is_nil(it.t))
                break;
            strbuf_putc(out, is_list(it.t) ? ',' : '|');
            if (is_list(it.t)) {
                wpush(&s, WOP_LIST_TAIL, list_tail(it.t), 0, -1, NULL);
                wpush(&s, WOP_TERM, list_head(it.t), 0, -1, NULL);
            } else {
                wpush(&s, WOP_TERM, it.t, 0, -1, NULL);
            }
            break;
        case WOP_TUPLE_REST:
            if (it.index > tuple_arity(it.t))
                break;
            strbuf_putc(out, ',');
            wpush(&s, WOP_TUPLE_REST, it.t, it.index + 1, -1, NULL);
            wpush(&s, WOP_TERM, tuple_element(it.t, it.index), 0, -1, NULL);
            break;
        }
    }
    free(s.items);
}

/* ------------------------------------------------------------------ */
/* ~p: the intermediate tree (io_lib_pretty:print_length)              */
/* ------------------------------------------------------------------ */

enum pkind {
    PK_NEW,   /* not expanded yet */
    PK_LEAF,  /* one string: is_list(element(1, If)) in io_lib_pretty */
    PK_LIST,  /* children: elements, then the improper tail if any */
    PK_TUPLE, /* children: elements */
    PK_MAP,   /* children: pairs */
    PK_PAIR,  /* children: key, value */
    PK_BIN,   /* a bitstring written byte by byte: {bin, S} */
};

enum leaf {
    LF_ATOMIC,     /* io_lib:write of an atomic term */
    LF_TEXT,       /* a fixed text: "[]", "{...}", ... (index in `first`) */
    LF_STRING,     /* a printable list */
    LF_BINSTR,     /* <<"...">> */
    LF_BINPREFIX,  /* <<"..."...>> of `first` bytes */
    LF_BINUTF8,    /* <<"..."/utf8>>: the binary's UTF-8 characters (~tp) */
    LF_UTF8PREFIX, /* <<"..."/utf8...>> of `first` bytes (~tp) */
};

enum ptail { PT_NIL, PT_DOTS, PT_IMPROPER };

static const char *const leaf_texts[] = {"[]", "{}", "#{}", "<<>>", "{...}", "#{...}", "<<...>>"};
enum { TX_NIL, TX_TUPLE0, TX_MAP0, TX_BIN0, TX_TUPLE_DOTS, TX_MAP_DOTS, TX_BIN_DOTS };

struct pnode {
    term t;
    int64_t len;    /* characters when written on one line */
    uint32_t first; /* first child; LF_TEXT: text index; LF_BINPREFIX: bytes */
    uint32_t n;     /* children */
    int32_t depth;  /* io_lib_pretty's D for this term; -1: no limit */
    uint8_t kind;
    uint8_t leaf;
    uint8_t tail;   /* enum ptail, for lists, tuples and maps */
    uint8_t tagged; /* tuple with an atom first and more than one element */
};

/* Elements of a sequence node, the improper tail not counted. */
static uint32_t n_elems(const struct pnode *p) { return p->n - (p->tail == PT_IMPROPER); }

struct frame {
    uint32_t node;
    uint32_t next;
    uint8_t type;  /* FR_SEQ, FR_MAP, FR_PAIR, FR_WRITE */
    uint8_t phase; /* PH_START, PH_TAIL, PH_DONE */
    char sep;      /* '|' for lists, ',' for tuples */
    const char *close;
    int64_t col0, col, ind, ld, w;
};

enum { FR_SEQ, FR_MAP, FR_PAIR, FR_WRITE };
enum { PH_START, PH_TAIL, PH_DONE };

struct visit {
    uint32_t node;
    int64_t col, ld, w;
};

struct pp {
    struct pnode *nodes;
    size_t count, cap;
    struct strbuf *out;
    struct strbuf scratch;
    int64_t ll, m, tind;
    struct frame *frames; /* the layout walk (pp) */
    size_t nframes, capframes;
    struct frame *wframes; /* the one-line writer's own stack */
    size_t nwframes, capwframes;
    struct visit *visits; /* cind */
    size_t nvisits, capvisits;
    bool strings; /* lists and binaries may show as strings (not ~lp) */
    bool unicode; /* ~tp: atoms as they are, UTF-8 binaries as /utf8 strings */
};

static uint32_t new_nodes(struct pp *pp, size_t k)
{
    if (pp->count + k >= UINT32_MAX) {
        fputs("clause: term too large to print\n", stderr);
        abort();
    }
    if (pp->count + k > pp->cap) {
        size_t cap = pp->cap ? pp->cap : 64;
        while (cap < pp->count + k)
            cap *= 2;
        pp->nodes = xrealloc(pp->nodes, cap * sizeof *pp->nodes);
        pp->cap = cap;
    }
    uint32_t first = (uint32_t)pp->count;
    memset(pp->nodes + first, 0, k * sizeof *pp->nodes);
    pp->count += k;
    return first;
}

static int32_t clamp_depth(int64_t d) { return d < 0 ? -1 : d > INT32_MAX ? INT32_MAX : (int32_t)d; }

/* Depth of the child at position i (0-based) of a list or tuple at depth d. */
static int32_t child_depth(int32_t d, uint64_t i) { return d < 0 ? -1 : clamp_depth((int64_t)d - 1 - (int64_t)i); }

static void render_leaf(struct strbuf *out, const struct pnode *p, bool unicode);

static void set_leaf(struct pp *pp, uint32_t idx, enum leaf lf, uint32_t first)
{
    struct pnode *p = &pp->nodes[idx];
    p->kind = PK_LEAF;
    p->leaf = (uint8_t)lf;
    p->first = first;
    strbuf_clear(&pp->scratch);
    render_leaf(&pp->scratch, p, pp->unicode);
    p->len = count_chars(pp->scratch.data ? pp->scratch.data : "", pp->scratch.len);
}

/* io_lib_pretty:printable_bin0/4 and printable_bin/4 for latin1: how much of
 * the binary shows as a string. Returns 0: not printable; 1: all of it;
 * 2: the first *prefix bytes followed by "...". */
/* The bytes of v a depth d lets printable_bin look at: all of them, or 4
 * a level below d (io_lib_pretty's D1 * 4); 0 for a bitstring. */
static size_t printable_window(const struct bin_view *v, int64_t d)
{
    if (v->bits)
        return 0;
    int64_t d1 = d < 0 ? -1 : d - 1;
    return d1 >= 0 && (uint64_t)d1 * 4 < v->size ? (size_t)d1 * 4 : v->size;
}

static int printable_bin(const struct bin_view *v, int64_t d, size_t *prefix)
{
    size_t len = printable_window(v, d), size = v->size;
    int64_t d1 = d < 0 ? -1 : d - 1;
    if (len == 0)
        return 0;
    size_t j = 0;
    while (j < len && printable_latin1(v->data[j]))
        j++;
    size_t n = len < 20 ? len : 20;
    if (j >= n) {
        /* the first n bytes are printable */
        if (n == size)
            return 1;
        if (n == len) {
            *prefix = n;
            return 2;
        }
        if (j == len) {
            if (size == len)
                return 1;
            if (d1 > 0 && (int64_t)len >= d1) {
                *prefix = len;
                return 2;
            }
            return 0;
        }
        if (d1 > 0 && (int64_t)j >= d1) {
            *prefix = j;
            return 2;
        }
        return 0;
    }
    if (d1 > 0 && (int64_t)j >= d1) {
        *prefix = j;
        return 2;
    }
    return 0;
}

/* Decodes one character of strict UTF-8 (as Erlang's <<C/utf8>> matches:
 * no overlong forms, surrogates or values above 16#10FFFF) at d[*i]; false
 * when there is none. */
static bool utf8_strict(const uint8_t *d, size_t n, size_t *i, uint32_t *out)
{
    uint32_t c = d[*i];
    size_t need = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 4;
    static const uint32_t min[] = {0, 0x80, 0x800, 0x10000};
    if (need == 4 || n - *i <= need)
        return false;
    c &= 0x7Fu >> need;
    for (size_t k = 1; k <= need; k++) {
        if ((d[*i + k] & 0xC0) != 0x80)
            return false;
        c = c << 6 | (d[*i + k] & 0x3F);
    }
    if (c < min[need] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return false;
    *out = c;
    *i += need + 1;
    return true;
}

/* io_lib_pretty:printable_bin0/4 and printable_bin/4 in unicode mode
 * (~tp). Printable characters are io:printable_range()'s, latin1 by
 * default, so larger ones never show. Only the first Len characters (4 a
 * level of depth) need be valid UTF-8, else the binary is tried as
 * Latin-1. Returns as printable_bin; *utf8 set when the string has
 * characters of more than one byte (written <<"..."/utf8>>). */
static int printable_bin_utf8(const struct bin_view *v, int64_t d, size_t *prefix, bool *utf8)
{
    *utf8 = false;
    size_t len = printable_window(v, d), size = v->size;
    int64_t d1 = d < 0 ? -1 : d - 1;
    if (len == 0)
        return 0;
    uint32_t c;
    /* valid_utf8/2 */
    for (size_t i = 0, k = 0; k < len && i < size; k++)
        if (!utf8_strict(v->data, size, &i, &c))
            return printable_bin(v, d, prefix);
    /* printable_unicode/4: at most len characters while printable */
    size_t i = 0, chars = 0;
    while (chars < len && i < size) {
        size_t j = i;
        if (!utf8_strict(v->data, size, &j, &c) || !printable_latin1(c))
            break;
        i = j;
        chars++;
    }
    *utf8 = i != chars;
    if (i == size)
        return 1;
    if (d1 > 0 && (int64_t)chars >= d1) {
        *prefix = i;
        return 2;
    }
    return 0;
}

/* print_length for one node: makes it a leaf, or gives it its children
 * (appended at the end of the array, so every child has a larger index than
 * its parent). */
static void expand(struct pp *pp, uint32_t idx)
{
    term t = pp->nodes[idx].t;
    int32_t d = pp->nodes[idx].depth;
    if (is_nil(t)) {
        set_leaf(pp, idx, LF_TEXT, TX_NIL);
    } else if (is_list(t)) {
        if (d != 1 && pp->strings && printable_latin1_list(t)) {
            set_leaf(pp, idx, LF_STRING, 0);
            return;
        }
        uint64_t k = 0;
        term cur = t;
        enum ptail tail;
        for (;;) {
            if (is_nil(cur)) {
                tail = PT_NIL;
                break;
            }
            if (d > 0 && (int64_t)d - (int64_t)k == 1) {
                tail = PT_DOTS;
                break;
            }
            if (!is_list(cur)) {
                tail = PT_IMPROPER;
                break;
            }
            k++;
            cur = list_tail(cur);
        }
        size_t total = (size_t)k + (tail == PT_IMPROPER);
        uint32_t first = new_nodes(pp, total);
        cur = t;
        for (uint64_t i = 0; i < k; i++) {
            pp->nodes[first + i].t = list_head(cur);
            pp->nodes[first + i].depth = child_depth(d, i);
            cur = list_tail(cur);
        }
        if (tail == PT_IMPROPER) {
            pp->nodes[first + k].t = cur;
            pp->nodes[first + k].depth = child_depth(d, k);
        }
        struct pnode *p = &pp->nodes[idx];
        p->kind = PK_LIST;
        p->first = first;
        p->n = (uint32_t)total;
        p->tail = (uint8_t)tail;
    } else if (is_tuple(t)) {
        uint64_t arity = tuple_arity(t);
        if (arity == 0) {
            set_leaf(pp, idx, LF_TEXT, TX_TUPLE0);
            return;
        }
        if (d == 1) {
            set_leaf(pp, idx, LF_TEXT, TX_TUPLE_DOTS);
            return;
        }
        uint64_t k = arity;
        enum ptail tail = PT_NIL;
        if (d > 0 && (uint64_t)d - 1 < arity) {
            k = (uint64_t)d - 1;
            tail = PT_DOTS;
        }
        uint32_t first = new_nodes(pp, (size_t)k);
        for (uint64_t i = 0; i < k; i++) {
            pp->nodes[first + i].t = tuple_element(t, i + 1);
            pp->nodes[first + i].depth = child_depth(d, i);
        }
        struct pnode *p = &pp->nodes[idx];
        p->kind = PK_TUPLE;
        p->first = first;
        p->n = (uint32_t)k;
        p->tail = (uint8_t)tail;
        p->tagged = is_atom(tuple_element(t, 1)) && arity > 1;
    } else if (is_map(t)) {
        size_t size = map_size(t);
        if (size == 0) {
            set_leaf(pp, idx, LF_TEXT, TX_MAP0);
            return;
        }
        if (d == 1) {
            set_leaf(pp, idx, LF_TEXT, TX_MAP_DOTS);
            return;
        }
        size_t k = size;
        enum ptail tail = PT_NIL;
        if (d > 0 && (uint64_t)d - 1 < size) {
            k = (size_t)d - 1;
            tail = PT_DOTS;
        }
        int32_t d0 = d < 0 ? -1 : d - 1;
        uint32_t pairs = new_nodes(pp, k);
        uint32_t kvs = new_nodes(pp, 2 * k);
        size_t got;
        term *kv = io_map_pairs(t, &got);
        for (size_t i = 0; i < k; i++) {
            term key = i < got ? kv[2 * i] : NIL, value = i < got ? kv[2 * i + 1] : NIL;
            struct pnode *pair = &pp->nodes[pairs + i];
            pair->kind = PK_PAIR;
            pair->first = kvs + 2 * (uint32_t)i;
            pair->n = 2;
            pp->nodes[kvs + 2 * i].t = key;
            pp->nodes[kvs + 2 * i].depth = d0;
            pp->nodes[kvs + 2 * i + 1].t = value;
            pp->nodes[kvs + 2 * i + 1].depth = d0;
        }
        free(kv);
        struct pnode *p = &pp->nodes[idx];
        p->kind = PK_MAP;
        p->first = pairs;
        p->n = (uint32_t)k;
        p->tail = (uint8_t)tail;
    } else if (is_bitstring(t)) {
        struct bin_view v = bin_view_of(t);
        if (v.size == 0 && v.bits == 0) {
            set_leaf(pp, idx, LF_TEXT, TX_BIN0);
            return;
        }
        if (d == 1) {
            set_leaf(pp, idx, LF_TEXT, TX_BIN_DOTS);
            return;
        }
        size_t prefix = 0;
        bool utf8 = false;
        int pr = !pp->strings  ? 0
                 : pp->unicode ? printable_bin_utf8(&v, d, &prefix, &utf8)
                               : printable_bin(&v, d, &prefix);
        if (pr == 1) {
            set_leaf(pp, idx, utf8 ? LF_BINUTF8 : LF_BINSTR, 0);
            return;
        }
        if (pr == 2) {
            set_leaf(pp, idx, utf8 ? LF_UTF8PREFIX : LF_BINPREFIX, (uint32_t)prefix);
            return;
        }
        struct pnode *p = &pp->nodes[idx];
        p->kind = PK_BIN;
        strbuf_clear(&pp->scratch);
        put_binary_plain(&pp->scratch, t, d);
        p->len = (int64_t)pp->scratch.len;
    } else {
        set_leaf(pp, idx, LF_ATOMIC, 0);
    }
}

static void render_leaf(struct strbuf *out, const struct pnode *p, bool unicode)
{
    switch ((enum leaf)p->leaf) {
    case LF_ATOMIC:
        put_atomic(out, p->t, unicode);
        return;
    case LF_TEXT:
        strbuf_puts(out, leaf_texts[p->first]);
        return;
    case LF_STRING:
        put_string_list(out, p->t);
        return;
    case LF_BINSTR:
    case LF_BINPREFIX: {
        struct bin_view v = bin_view_of(p->t);
        strbuf_puts(out, "<<");
        put_string_bytes(out, v.data, p->leaf == LF_BINSTR ? v.size : p->first);
        strbuf_puts(out, p->leaf == LF_BINSTR ? ">>" : "...>>");
        return;
    }
    case LF_BINUTF8:
    case LF_UTF8PREFIX: {
        /* io_lib:write_string/2 of the characters; printable_bin_utf8 let
         * through only valid UTF-8 of Latin-1 characters */
        struct bin_view v = bin_view_of(p->t);
        size_t n = p->leaf == LF_BINUTF8 ? v.size : p->first;
        strbuf_puts(out, "<<\"");
        for (size_t i = 0; i < n;)
            put_escaped(out, next_char(v.data, n, &i), '"', true);
        strbuf_puts(out, p->leaf == LF_BINUTF8 ? "\"/utf8>>" : "\"/utf8...>>");
        return;
    }
    }
}

/* list_length/3: one-line lengths, children before parents. */
static void compute_lengths(struct pp *pp)
{
    for (size_t i = pp->count; i-- > 0;) {
        struct pnode *p = &pp->nodes[i];
        int64_t acc;
        switch ((enum pkind)p->kind) {
        case PK_LIST:
        case PK_TUPLE:
        case PK_MAP: {
            acc = p->kind == PK_MAP ? 3 : 2;
            uint32_t ne = n_elems(p);
            for (uint32_t k = 0; k < ne; k++)
                acc += (k ? 1 : 0) + pp->nodes[p->first + k].len;
            if (p->tail == PT_DOTS)
                acc += (ne ? 1 : 0) + 3;
            else if (p->tail == PT_IMPROPER)
                acc += 1 + pp->nodes[p->first + ne].len;
            p->len = acc;
            break;
        }
        case PK_PAIR:
            p->len = pp->nodes[p->first].len + 4 + pp->nodes[p->first + 1].len;
            break;
        default:
            break;
        }
    }
}

static void build(struct pp *pp, term t, int depth)
{
    uint32_t root = new_nodes(pp, 1);
    pp->nodes[root].t = t;
    pp->nodes[root].depth = clamp_depth(depth);
    for (size_t i = 0; i < pp->count; i++)
        if (pp->nodes[i].kind == PK_NEW)
            expand(pp, (uint32_t)i);
    compute_lengths(pp);
}

/* ------------------------------------------------------------------ */
/* ~p: one-line writing of a subtree (io_lib_pretty:write/1)            */
/* ------------------------------------------------------------------ */

static struct frame *push_frame(struct frame **stack, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *stack = xrealloc(*stack, *cap * sizeof **stack);
    }
    struct frame *f = &(*stack)[(*n)++];
    memset(f, 0, sizeof *f);
    return f;
}

static void put_bin_node(struct strbuf *out, const struct pnode *p) { put_binary_plain(out, p->t, p->depth); }

/* Writes a leaf or bin directly; a container gets a frame. */
static void write_visit(struct pp *pp, uint32_t idx)
{
    const struct pnode *p = &pp->nodes[idx];
    if (p->kind == PK_LEAF) {
        render_leaf(pp->out, p, pp->unicode);
    } else if (p->kind == PK_BIN) {
        put_bin_node(pp->out, p);
    } else {
        struct frame *f = push_frame(&pp->wframes, &pp->nwframes, &pp->capwframes);
        f->node = idx;
        f->type = FR_WRITE;
    }
}

static void write_node(struct pp *pp, uint32_t root)
{
    size_t base = pp->nwframes;
    write_visit(pp, root);
    while (pp->nwframes > base) {
        struct frame *f = &pp->wframes[pp->nwframes - 1];
        const struct pnode *p = &pp->nodes[f->node];
        uint32_t k = f->next;
        if (p->kind == PK_PAIR) {
            f->next++;
            if (k == 0) {
                write_visit(pp, p->first);
            } else if (k == 1) {
                strbuf_puts(pp->out, " => ");
                write_visit(pp, p->first + 1);
            } else {
                pp->nwframes--;
            }
            continue;
        }
        uint32_t ne = n_elems(p);
        if (k == 0)
            strbuf_puts(pp->out, p->kind == PK_LIST ? "[" : p->kind == PK_TUPLE ? "{" : "#{");
        if (k < ne) {
            if (k)
                strbuf_putc(pp->out, ',');
            f->next++;
            write_visit(pp, p->first + k);
        } else if (k == ne && p->tail == PT_IMPROPER) {
            strbuf_putc(pp->out, '|');
            f->next++;
            write_visit(pp, p->first + k);
        } else {
            if (p->tail == PT_DOTS) {
                if (ne)
                    strbuf_putc(pp->out, p->kind == PK_LIST ? '|' : ',');
                strbuf_puts(pp->out, "...");
            }
            strbuf_putc(pp->out, p->kind == PK_LIST ? ']' : '}');
            pp->nwframes--;
        }
    }
}

/* ------------------------------------------------------------------ */
/* ~p: shared tests                                                     */
/* ------------------------------------------------------------------ */

static bool fits(const struct pp *pp, uint32_t idx, int64_t col, int64_t ld, int64_t w)
{
    int64_t len = pp->nodes[idx].len;
    return len < pp->ll - col - ld && len + w + ld <= pp->m;
}

static bool is_atm(const struct pp *pp, uint32_t idx) { return pp->nodes[idx].kind == PK_LEAF; }

static bool is_atm_pair(const struct pp *pp, uint32_t idx)
{
    const struct pnode *p = &pp->nodes[idx];
    return is_atm(pp, p->first) && is_atm(pp, p->first + 1);
}

/* The test pp_tail and friends make before writing the next element on the
 * current line; ld1 is the last_depth of that element. */
static bool fits_on_line(const struct pp *pp, int64_t elen, int64_t col, int64_t ld1, int64_t w)
{
    if (ld1 == 0)
        return elen + 1 < pp->ll - col && w + elen + 1 <= pp->m;
    return elen < pp->ll - col - ld1 && w + elen + ld1 <= pp->m;
}

/* last_depth/2: 0 when another element follows, else LD + 1. */
static int64_t last_depth(uint32_t k, uint32_t ne, int64_t ld) { return k + 1 < ne ? 0 : ld + 1; }

static void spaces(struct strbuf *out, int64_t n)
{
    if (n > 0)
        strbuf_fill(out, ' ', (size_t)n);
}

/* ------------------------------------------------------------------ */
/* ~p: cind, the dry run that decides the indentation TInd              */
/* ------------------------------------------------------------------ */

static void cind_push(struct pp *pp, uint32_t node, int64_t col, int64_t ld, int64_t w)
{
    if (pp->nvisits == pp->capvisits) {
        pp->capvisits = pp->capvisits ? 2 * pp->capvisits : 64;
        pp->visits = xrealloc(pp->visits, pp->capvisits * sizeof *pp->visits);
    }
    pp->visits[pp->nvisits++] = (struct visit){node, col, ld, w};
}

/* cind_element/7: width taken; queues the element's own check when it does
 * not go on the line as it is. */
static int64_t cind_element(struct pp *pp, uint32_t e, int64_t col, int64_t ld, int64_t w)
{
    if (fits(pp, e, col, ld, w) && is_atm(pp, e))
        return pp->nodes[e].len;
    cind_push(pp, e, col, ld, w);
    return pp->ll;
}

/* cind_tail/8 over elements k.. of sequence p (and its improper tail). */
static void cind_tail(struct pp *pp, const struct pnode *p, uint32_t k, int64_t col0, int64_t col, int64_t ld,
                      int64_t w)
{
    uint32_t ne = n_elems(p);
    for (; k < ne; k++) {
        uint32_t e = p->first + k;
        int64_t ld1 = last_depth(k, ne, ld);
        int64_t elen = 1 + pp->nodes[e].len;
        if (fits_on_line(pp, elen, col, ld1, w) && is_atm(pp, e)) {
            col += elen;
            w += elen;
        } else {
            int64_t we = cind_element(pp, e, col0, ld1, 0);
            col = col0 + we;
            w = we;
        }
    }
    if (p->tail == PT_IMPROPER) {
        uint32_t e = p->first + ne;
        int64_t len = pp->nodes[e].len;
        if (!(len + 1 < pp->ll - col - (ld + 1) && len + 1 + w + (ld + 1) <= pp->m && is_atm(pp, e)))
            cind_push(pp, e, col, ld + 1, 0); /* sic: Col, not Col0 */
    }
}

/* cind_list/7 from element k. */
static void cind_list(struct pp *pp, const struct pnode *p, uint32_t k, int64_t col0, int64_t ld, int64_t w)
{
    uint32_t ne = n_elems(p);
    if (k >= ne)
        return; /* only "..." */
    int64_t we = cind_element(pp, p->first + k, col0, last_depth(k, ne, ld), w);
    cind_tail(pp, p, k + 1, col0, col0 + we, ld, w + we);
}

static int64_t map_value_indent(int64_t tind) { return tind > 0 ? tind : 4; }

static int64_t cind_pair(struct pp *pp, uint32_t pair, int64_t col, int64_t ld, int64_t w, int64_t ind)
{
    if (fits(pp, pair, col, ld, w))
        return is_atm_pair(pp, pair) ? pp->nodes[pair].len : pp->ll;
    uint32_t kv = pp->nodes[pair].first;
    cind_push(pp, kv, col, ld, w);
    cind_push(pp, kv + 1, col + map_value_indent(ind), ld, 0);
    return pp->ll;
}

/* Runs cind for a candidate TInd: false where io_lib_pretty throws
 * no_good. */
static bool cind_ok(struct pp *pp, uint32_t root, int64_t start_col, int64_t ind)
{
    pp->nvisits = 0;
    cind_push(pp, root, start_col, 0, 0);
    while (pp->nvisits) {
        struct visit v = pp->visits[--pp->nvisits];
        if (fits(pp, v.node, v.col, v.ld, v.w))
            continue;
        const struct pnode *p = &pp->nodes[v.node];
        switch ((enum pkind)p->kind) {
        case PK_LIST:
            cind_list(pp, p, 0, v.col + 1, v.ld, v.w + 1);
            break;
        case PK_TUPLE:
            if (!p->tagged) {
                cind_list(pp, p, 0, v.col + 1, v.ld, v.w + 1);
            } else {
                int64_t tlen = pp->nodes[p->first].len;
                int64_t w = v.w + 1;
                int64_t tagind = tlen + 2;
                int64_t tcol = v.col + tagind;
                if (ind > 0 && tagind > ind) {
                    int64_t col1 = v.col + ind;
                    if (!(pp->m + col1 <= pp->ll || col1 <= pp->ll / 2))
                        return false;
                    cind_tail(pp, p, 1, col1, tcol, v.ld, w + tlen);
                } else {
                    if (!(pp->m + tcol < pp->ll || tcol < pp->ll / 2))
                        return false;
                    cind_list(pp, p, 1, tcol, v.ld, w + tlen + 1);
                }
            }
            break;
        case PK_MAP: {
            uint32_t ne = n_elems(p);
            if (ne == 0)
                break;
            int64_t col0 = v.col + 2, w = v.w + 2;
            int64_t pw = cind_pair(pp, p->first, col0, last_depth(0, ne, v.ld), w, ind);
            int64_t col = col0 + pw;
            w += pw;
            for (uint32_t k = 1; k < ne; k++) {
                uint32_t pair = p->first + k;
                int64_t ld1 = last_depth(k, ne, v.ld);
                int64_t elen = 1 + pp->nodes[pair].len;
                if (fits_on_line(pp, elen, col, ld1, w) && is_atm_pair(pp, pair)) {
                    col += elen;
                    w += elen;
                } else {
                    pw = cind_pair(pp, pair, col0, ld1, 0, ind);
                    col = col0 + pw;
                    w = pw;
                }
            }
            break;
        }
        default:
            break;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* ~p: the layout (io_lib_pretty:pp and friends)                        */
/* ------------------------------------------------------------------ */

static struct frame *pp_push(struct pp *pp, uint8_t type, uint32_t node)
{
    struct frame *f = push_frame(&pp->frames, &pp->nframes, &pp->capframes);
    f->type = type;
    f->node = node;
    return f;
}

/* pp_binary/7: bytes wrapped to the room left, continuation lines at ind. */
static void pp_binary(struct pp *pp, const struct pnode *p, int64_t col, int64_t ind, int64_t ld, int64_t w)
{
    int64_t room = pp->ll - col < pp->m - 4 - w ? pp->ll - col : pp->m - 4 - w;
    int64_t n0 = room - ld > 8 ? room - ld : 8;
    int64_t n = n0;
    struct bin_view v = bin_view_of(p->t);
    bool dots;
    size_t count = bin_elements(&v, p->depth, &dots);
    struct strbuf *out = pp->out;
    strbuf_puts(out, "<<");
    for (size_t i = 0; i < count; i++) {
        char el[16];
        int len = bin_element(el, &v, i, dots, count);
        if (i + 1 < count) {
            int64_t elen = len + 1;
            if (n - elen < 0) {
                strbuf_putc(out, '\n');
                spaces(out, ind);
                n = n0 - elen;
            } else {
                n -= elen;
            }
            strbuf_append(out, el, (size_t)len);
            strbuf_putc(out, ',');
        } else {
            if (len > n) {
                strbuf_putc(out, '\n');
                spaces(out, ind);
            }
            strbuf_append(out, el, (size_t)len);
        }
    }
    strbuf_puts(out, ">>");
}

/* pp/8: writes the node on one line when it fits, else lays it out; a
 * container pushes a frame that the main loop runs to completion. */
static void pp_enter(struct pp *pp, uint32_t idx, int64_t col, int64_t ind, int64_t ld, int64_t w)
{
    if (fits(pp, idx, col, ld, w)) {
        write_node(pp, idx);
        return;
    }
    const struct pnode *p = &pp->nodes[idx];
    struct strbuf *out = pp->out;
    switch ((enum pkind)p->kind) {
    case PK_LIST:
    case PK_TUPLE: {
        bool list = p->kind == PK_LIST;
        strbuf_putc(out, list ? '[' : '{');
        if (!list && p->tagged) {
            /* pp_tag_tuple/8 */
            uint32_t tag = p->first;
            int64_t tlen = pp->nodes[tag].len;
            int64_t tagind = tlen + 2;
            int64_t tcol = col + tagind;
            render_leaf(out, &pp->nodes[tag], pp->unicode);
            w += 1;
            struct frame *f = pp_push(pp, FR_SEQ, idx);
            f->next = 1;
            f->sep = ',';
            f->close = "}";
            f->ld = ld;
            if (pp->tind > 0 && tagind > pp->tind) {
                f->phase = PH_TAIL;
                f->col0 = col + pp->tind;
                f->col = tcol;
                f->ind = ind + pp->tind;
                f->w = w + tlen;
            } else {
                strbuf_putc(out, ',');
                f->phase = PH_START;
                f->col0 = tcol;
                f->ind = ind + tagind;
                f->w = w + tlen + 1;
            }
        } else {
            struct frame *f = pp_push(pp, FR_SEQ, idx);
            f->phase = PH_START;
            f->sep = list ? '|' : ',';
            f->close = list ? "]" : "}";
            f->col0 = col + 1;
            f->ind = ind + 1;
            f->ld = ld;
            f->w = w + 1;
        }
        return;
    }
    case PK_MAP: {
        strbuf_puts(out, "#{");
        struct frame *f = pp_push(pp, FR_MAP, idx);
        f->phase = PH_START;
        f->close = "}";
        f->col0 = col + 2;
        f->ind = ind + 2;
        f->ld = ld;
        f->w = w + 1;
        return;
    }
    case PK_BIN:
        pp_binary(pp, p, col + 2, ind + 2, ld, w);
        return;
    case PK_PAIR: /* only reached through pp_pair */
    default:
        render_leaf(out, p, pp->unicode);
        return;
    }
}

/* pp_element/8: the width it takes (Len, or Ll to force a new line). */
static int64_t pp_element(struct pp *pp, uint32_t e, int64_t col, int64_t ind, int64_t ld, int64_t w)
{
    if (fits(pp, e, col, ld, w) && is_atm(pp, e)) {
        render_leaf(pp->out, &pp->nodes[e], pp->unicode);
        return pp->nodes[e].len;
    }
    pp_enter(pp, e, col, ind, ld, w);
    return pp->ll;
}

/* pp_pair/8 */
static int64_t pp_pair(struct pp *pp, uint32_t pair, int64_t col, int64_t ind, int64_t ld, int64_t w)
{
    if (fits(pp, pair, col, ld, w)) {
        write_node(pp, pair);
        return is_atm_pair(pp, pair) ? pp->nodes[pair].len : pp->ll;
    }
    struct frame *f = pp_push(pp, FR_PAIR, pair);
    f->col0 = col;
    f->ind = ind;
    f->ld = ld;
    f->w = w;
    return pp->ll;
}

static void finish_frame(struct pp *pp)
{
    struct frame *f = &pp->frames[pp->nframes - 1];
    if (f->close)
        strbuf_puts(pp->out, f->close);
    pp->nframes--;
}

/* One step of a list or tuple frame: pp_list/9 and pp_tail/10. The frame
 * is updated before any child is entered, since entering may push (and
 * move the frame stack). */
static void step_seq(struct pp *pp)
{
    size_t fi = pp->nframes - 1;
    struct frame f = pp->frames[fi];
    const struct pnode *p = &pp->nodes[f.node];
    uint32_t ne = n_elems(p);
    struct strbuf *out = pp->out;
    if (f.phase == PH_DONE) {
        finish_frame(pp);
        return;
    }
    if (f.phase == PH_START) {
        if (f.next >= ne) {
            strbuf_puts(out, "...");
            finish_frame(pp);
            return;
        }
        uint32_t e = p->first + f.next;
        int64_t ld1 = last_depth(f.next, ne, f.ld);
        int64_t we = (fits(pp, e, f.col0, ld1, f.w) && is_atm(pp, e)) ? pp->nodes[e].len : pp->ll;
        pp->frames[fi].next++;
        pp->frames[fi].phase = PH_TAIL;
        pp->frames[fi].col = f.col0 + we;
        pp->frames[fi].w = f.w + we;
        pp_element(pp, e, f.col0, f.ind, ld1, f.w);
        return;
    }
    if (f.next < ne) {
        uint32_t e = p->first + f.next;
        int64_t ld1 = last_depth(f.next, ne, f.ld);
        int64_t elen = 1 + pp->nodes[e].len;
        pp->frames[fi].next++;
        if (fits_on_line(pp, elen, f.col, ld1, f.w) && is_atm(pp, e)) {
            strbuf_putc(out, ',');
            render_leaf(out, &pp->nodes[e], pp->unicode);
            pp->frames[fi].col = f.col + elen;
            pp->frames[fi].w = f.w + elen;
        } else {
            strbuf_puts(out, ",\n");
            spaces(out, f.ind);
            int64_t we = (fits(pp, e, f.col0, ld1, 0) && is_atm(pp, e)) ? pp->nodes[e].len : pp->ll;
            pp->frames[fi].col = f.col0 + we;
            pp->frames[fi].w = we;
            pp_element(pp, e, f.col0, f.ind, ld1, 0);
        }
        return;
    }
    if (p->tail == PT_DOTS) {
        strbuf_putc(out, f.sep);
        strbuf_puts(out, "...");
    } else if (p->tail == PT_IMPROPER) {
        uint32_t e = p->first + ne;
        int64_t len = pp->nodes[e].len;
        strbuf_putc(out, f.sep);
        if (len + 1 < pp->ll - f.col - (f.ld + 1) && len + 1 + f.w + (f.ld + 1) <= pp->m && is_atm(pp, e)) {
            render_leaf(out, &pp->nodes[e], pp->unicode);
        } else {
            strbuf_putc(out, '\n');
            spaces(out, f.ind);
            pp->frames[fi].phase = PH_DONE;
            pp_enter(pp, e, f.col0, f.ind, f.ld + 1, 0);
            return;
        }
    }
    finish_frame(pp);
}

/* One step of a map frame: pp_map/8 and pp_pairs_tail/9. */
static void step_map(struct pp *pp)
{
    size_t fi = pp->nframes - 1;
    struct frame f = pp->frames[fi];
    const struct pnode *p = &pp->nodes[f.node];
    uint32_t ne = n_elems(p);
    struct strbuf *out = pp->out;
    if (f.phase == PH_START) {
        if (ne == 0) {
            strbuf_puts(out, "...");
            finish_frame(pp);
            return;
        }
        uint32_t pair = p->first;
        int64_t ld1 = last_depth(0, ne, f.ld);
        int64_t pw = fits(pp, pair, f.col0, ld1, f.w) && is_atm_pair(pp, pair) ? pp->nodes[pair].len : pp->ll;
        pp->frames[fi].next = 1;
        pp->frames[fi].phase = PH_TAIL;
        pp->frames[fi].col = f.col0 + pw;
        pp->frames[fi].w = pw; /* sic: PW, not W + PW */
        pp_pair(pp, pair, f.col0, f.ind, ld1, f.w);
        return;
    }
    if (f.next < ne) {
        uint32_t pair = p->first + f.next;
        int64_t ld1 = last_depth(f.next, ne, f.ld);
        int64_t elen = 1 + pp->nodes[pair].len;
        pp->frames[fi].next++;
        if (fits_on_line(pp, elen, f.col, ld1, f.w) && is_atm_pair(pp, pair)) {
            strbuf_putc(out, ',');
            write_node(pp, pair);
            pp->frames[fi].col = f.col + elen;
            pp->frames[fi].w = f.w + elen;
        } else {
            strbuf_puts(out, ",\n");
            spaces(out, f.ind);
            int64_t pw = fits(pp, pair, f.col0, ld1, 0) && is_atm_pair(pp, pair) ? pp->nodes[pair].len : pp->ll;
            pp->frames[fi].col = f.col0 + pw;
            pp->frames[fi].w = pw;
            pp_pair(pp, pair, f.col0, f.ind, ld1, 0);
        }
        return;
    }
    if (p->tail == PT_DOTS)
        strbuf_puts(out, ",...");
    finish_frame(pp);
}

/* A pair that does not fit: key, " =>", then the value on its own line. */
static void step_pair(struct pp *pp)
{
    size_t fi = pp->nframes - 1;
    struct frame f = pp->frames[fi];
    uint32_t kv = pp->nodes[f.node].first;
    if (f.phase == PH_START) {
        pp->frames[fi].phase = PH_TAIL;
        pp_enter(pp, kv, f.col0, f.ind, f.ld, f.w);
    } else if (f.phase == PH_TAIL) {
        int64_t i = map_value_indent(pp->tind);
        strbuf_puts(pp->out, " =>\n");
        spaces(pp->out, f.ind + i);
        pp->frames[fi].phase = PH_DONE;
        pp_enter(pp, kv + 1, f.col0 + i, f.ind + i, f.ld, 0);
    } else {
        pp->nframes--;
    }
}

void print_p(struct strbuf *out, term t, int column, int line_length, int depth)
{
    print_p_opts(out, t, column, line_length, depth, true, false);
}

void print_p_opts(struct strbuf *out, term t, int column, int line_length, int depth, bool strings, bool unicode)
{
    strbuf_reserve(out, 0);
    if (depth == 0) {
        strbuf_puts(out, "...");
        return;
    }
    if (!(is_list(t) || is_nil(t) || is_tuple(t) || is_map(t) || is_bitstring(t))) {
        put_atomic(out, t, unicode);
        return;
    }
    struct pp pp;
    memset(&pp, 0, sizeof pp);
    pp.out = out;
    pp.ll = line_length;
    pp.strings = strings;
    pp.unicode = unicode;
    int64_t col = column < 1 ? 1 : column;
    build(&pp, t, depth < 0 ? -1 : depth);
    pp.m = pp.nodes[0].len;
    if (pp.ll == 0 || pp.m < pp.ll - col) {
        write_node(&pp, 0);
    } else {
        pp.tind = cind_ok(&pp, 0, col, -1) ? -1 : cind_ok(&pp, 0, col, 4) ? 4 : 1;
        pp_enter(&pp, 0, col, col - 1, 0, 0);
        while (pp.nframes) {
            switch (pp.frames[pp.nframes - 1].type) {
            case FR_SEQ:
                step_seq(&pp);
                break;
            case FR_MAP:
                step_map(&pp);
                break;
            default:
                step_pair(&pp);
                break;
            }
        }
    }
    free(pp.nodes);
    free(pp.frames);
    free(pp.wframes);
    free(pp.visits);
    strbuf_free(&pp.scratch);
}
