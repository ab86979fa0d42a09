/*
 * fuzz_io_format.c — a libFuzzer target for io_lib:format's interpreter
 * (term/io_format.h). An input is a format and its arguments: the first
 * byte is the format's length, the format's bytes follow (a list of
 * character codes), and the rest is an external term (term_to_binary's
 * bytes) whose elements are the arguments when it is a list. io_format must
 * either refuse (badarg) or write valid UTF-8 no longer than the widths the
 * format can ask for allow. Widths over 65,535 are skipped (see
 * asks_huge_width).
 *
 * Built and run by `make fuzz` (see the Makefile); not part of `make test`.
 */
#include "term/atom.h"
#include "term/etf.h"
#include "term/heap.h"
#include "term/io_format.h"
#include "term/strbuf.h"

#include "fuzz_utf8.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void broken(const char *what)
{
    fprintf(stderr, "fuzz_io_format: %s\n", what);
    abort();
}

/* io_format's arguments must be a proper list. */
static bool is_proper_list(term t)
{
    while (is_list(t))
        t = list_tail(t);
    return is_nil(t);
}

/* A field width or precision over 65,535 (six digits in the format, or a
 * `*` given a large integer) asks for that many characters: linear work,
 * but seconds of it under the sanitizers, which libFuzzer would report as
 * a hang. Such inputs are skipped. */
static bool asks_huge_width(const uint8_t *format, size_t n, term args)
{
    size_t digits = 0;
    bool star = false;
    for (size_t i = 0; i < n; i++) {
        digits = format[i] >= '0' && format[i] <= '9' ? digits + 1 : 0;
        if (digits >= 6)
            return true;
        star = star || format[i] == '*';
    }
    for (; star && is_list(args); args = list_tail(args)) {
        term a = list_head(args);
        if (is_bignum(a) || (is_small(a) && (small_value(a) > 65535 || small_value(a) < -65535)))
            return true;
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        atom_table_init();
        ready = true;
    }
    if (size < 1 || (size_t)data[0] + 1 > size)
        return 0;
    size_t format_len = data[0];
    heap_t h;
    if (!heap_init(&h, 64, 0))
        broken("heap_init");
    term format = heap_string(&h, (const char *)data + 1, format_len);
    term args = NIL;
    const char *error = NULL;
    if (size > format_len + 1) {
        term t = etf_decode(&h, data + 1 + format_len, size - 1 - format_len, NULL, &error);
        if (is_value(t) && is_proper_list(t))
            args = t;
    }
    if (asks_huge_width(data + 1, format_len, args)) {
        heap_destroy(&h);
        return 0;
    }
    struct strbuf out = STRBUF_INIT;
    if (io_format(&out, format, args) && fuzz_utf8_chars((const uint8_t *)strbuf_cstr(&out), out.len) < 0)
        broken("a formatted text that is not UTF-8");
    strbuf_free(&out);
    heap_destroy(&h);
    return 0;
}
