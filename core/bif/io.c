/*
 * io.c — the io builtins: io:format/1,2,3, io:fwrite/1,2,3,
 * io:put_chars/1,2, io:nl/0,1, io_lib:format/2, io_lib:fwrite/2,
 * erlang:display/1, display_string/1 and display_nl/0.
 *
 * Output goes straight to the process's standard output, which stands for
 * OTP's `user` io server under erl -noshell: a latin1 device, so characters
 * above 255 come out as \x{HEX} (io_latin1_device). The only devices are
 * standard_io and user; any other is badarg. Each call writes its
 * whole text with one fwrite, which stdio locks, so texts from different
 * workers never interleave; a call that fails writes nothing.
 *
 * io_lib:format returns the flat list of the characters (io_format.h says
 * how that differs from OTP's deep list).
 *
 * erlang:display/1 writes ~w and "\n" and returns true. OTP 25's own
 * display (erts' term printer, bypassing the io server) differs in ways a
 * byte comparison sees: it ends lines with "\r\n", writes floats as C's
 * %e (1.500000e+00), shows printable lists as strings ("ab"), and writes
 * atoms' characters as raw UTF-8.
 */
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "term/atom.h"
#include "term/heap.h"
#include "term/io_format.h"
#include "term/print.h"

#include <stdio.h>

static bool is_device(term dev) { return dev == A(standard_io) || dev == A(user); }

/* Writes UTF-8 text as the latin1 device does. */
static void write_stdout(const struct strbuf *text)
{
    struct strbuf bytes = STRBUF_INIT;
    io_latin1_device(&bytes, strbuf_cstr(text), text->len);
    if (bytes.len)
        fwrite(bytes.data, 1, bytes.len, stdout);
    strbuf_free(&bytes);
}

static term do_format(struct process *p, term dev, term format, term args)
{
    struct strbuf text = STRBUF_INIT;
    bool ok = is_device(dev) && io_format(&text, format, args);
    if (ok)
        write_stdout(&text);
    strbuf_free(&text);
    return ok ? A(ok) : bif_badarg(p);
}

static term io_format_1(struct process *p, const term *args) { return do_format(p, A(standard_io), args[0], NIL); }
static term io_format_2(struct process *p, const term *args) { return do_format(p, A(standard_io), args[0], args[1]); }
static term io_format_3(struct process *p, const term *args) { return do_format(p, args[0], args[1], args[2]); }

static term do_put_chars(struct process *p, term dev, term data)
{
    struct strbuf text = STRBUF_INIT;
    bool ok = is_device(dev) && io_chardata(&text, data);
    if (ok)
        write_stdout(&text);
    strbuf_free(&text);
    return ok ? A(ok) : bif_badarg(p);
}

static term io_put_chars_1(struct process *p, const term *args) { return do_put_chars(p, A(standard_io), args[0]); }
static term io_put_chars_2(struct process *p, const term *args) { return do_put_chars(p, args[0], args[1]); }

static term io_nl_0(struct process *p, const term *args)
{
    (void)p;
    (void)args;
    fwrite("\n", 1, 1, stdout);
    return A(ok);
}

static term io_nl_1(struct process *p, const term *args)
{
    if (!is_device(args[0]))
        return bif_badarg(p);
    fwrite("\n", 1, 1, stdout);
    return A(ok);
}

/* Decodes one character of the UTF-8 io_format wrote (always valid). */
static uint32_t utf8_char(const unsigned char *s, size_t *i)
{
    uint32_t c = s[*i];
    size_t more = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    if (more)
        c &= 0x3Fu >> more;
    (*i)++;
    for (; more > 0; more--)
        c = c << 6 | (s[(*i)++] & 0x3Fu);
    return c;
}

static term io_lib_format_2(struct process *p, const term *args)
{
    struct strbuf text = STRBUF_INIT;
    if (!io_format(&text, args[0], args[1])) {
        strbuf_free(&text);
        return bif_badarg(p);
    }
    const unsigned char *s = (const unsigned char *)strbuf_cstr(&text);
    size_t chars = 0;
    for (size_t i = 0; i < text.len; i++)
        chars += (s[i] & 0xC0) != 0x80;
    term result = NIL;
    if (chars) {
        term *cells = heap_alloc(&p->heap, 2 * chars);
        if (!cells) {
            strbuf_free(&text);
            return bif_out_of_memory(p);
        }
        /* one block of cons cells, each pointing at the next */
        size_t i = 0;
        for (size_t k = 0; k < chars; k++) {
            cells[2 * k] = make_small(utf8_char(s, &i));
            cells[2 * k + 1] = k + 1 < chars ? make_list(&cells[2 * k + 2]) : NIL;
        }
        result = make_list(cells);
    }
    strbuf_free(&text);
    return result;
}

static term erlang_display_1(struct process *p, const term *args)
{
    (void)p;
    struct strbuf text = STRBUF_INIT;
    print_display(&text, args[0]);
    strbuf_puts(&text, "\r\n"); /* erts ends the line so, even on a pipe */
    fwrite(text.data, 1, text.len, stdout);
    strbuf_free(&text);
    return A(true);
}

/* display_string/1: a list of characters written as UTF-8 to standard
 * error (where OTP 25 writes it, unlike display/1), each "\n" as "\r\n"
 * as erts writes it; true. */
static term erlang_display_string(struct process *p, const term *args)
{
    struct strbuf text = STRBUF_INIT;
    term l = args[0];
    for (; is_list(l); l = list_tail(l)) {
        term c = list_head(l);
        if (!is_small(c) || small_value(c) < 0 || small_value(c) > 0x10FFFF ||
            (small_value(c) >= 0xD800 && small_value(c) <= 0xDFFF))
            break;
        if (c == make_small('\n'))
            strbuf_putc(&text, '\r');
        strbuf_put_utf8(&text, (uint32_t)small_value(c));
    }
    if (l != NIL) {
        strbuf_free(&text);
        return bif_badarg(p);
    }
    fwrite(strbuf_cstr(&text), 1, text.len, stderr); /* data is NULL while empty */
    strbuf_free(&text);
    return A(true);
}

/* display_nl/0: the line end display_string/1 writes, on standard error. */
static term erlang_display_nl(struct process *p, const term *args)
{
    (void)p;
    (void)args;
    fwrite("\r\n", 1, 2, stderr);
    return A(true);
}

const struct bif_def bif_table_io[] = {
    {"io", "format", 1, io_format_1, BIF_NOHEAP},
    {"io", "format", 2, io_format_2, BIF_NOHEAP},
    {"io", "format", 3, io_format_3, BIF_NOHEAP},
    {"io", "fwrite", 1, io_format_1, BIF_NOHEAP},
    {"io", "fwrite", 2, io_format_2, BIF_NOHEAP},
    {"io", "fwrite", 3, io_format_3, BIF_NOHEAP},
    {"io", "put_chars", 1, io_put_chars_1, BIF_NOHEAP},
    {"io", "put_chars", 2, io_put_chars_2, BIF_NOHEAP},
    {"io", "nl", 0, io_nl_0, BIF_NOHEAP},
    {"io", "nl", 1, io_nl_1, BIF_NOHEAP},
    {"io_lib", "format", 2, io_lib_format_2, 0},
    {"io_lib", "fwrite", 2, io_lib_format_2, 0},
    {"erlang", "display", 1, erlang_display_1, BIF_NOHEAP},
    {"erlang", "display_string", 1, erlang_display_string, BIF_NOHEAP},
    {"erlang", "display_nl", 0, erlang_display_nl, BIF_NOHEAP},
    {NULL, NULL, 0, NULL, 0},
};
