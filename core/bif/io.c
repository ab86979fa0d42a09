/*
 * io.c — the io builtins: io:format/1,2,3, io:fwrite/1,2,3,
 * io:put_chars/1,2, io:nl/0,1, io_lib:format/2, io_lib:fwrite/2,
 * erlang:display/1, display_string/1 and display_nl/0; the builtins of the
 * I/O servers (core/lib/clause_io.erl): clause_io:write/2, set_encoding/2,
 * request_input/0, and how the runtime starts them; and
 * net_kernel:dflag_unicode_io/1, which OTP's io module asks of every
 * device.
 *
 * Output to standard_io (when the group leader is the runtime's `user`
 * server), user and standard_error is written at once, as the seed says
 * each io:format call writes its text: the process's standard output or
 * standard error, as OTP's user and standard_error write them under erl
 * -noshell. A latin1 device (the default) writes characters above 255 as
 * \x{HEX} (io_latin1_device); after io:setopts(D, [{encoding, unicode}])
 * the device writes UTF-8, and so do these builtins. Each call writes its
 * whole text with one fwrite, which stdio locks, so texts from different
 * workers never interleave; a call that fails writes nothing. Standard
 * output is flushed before standard error is written, and before standard
 * input is read, so a terminal shows them in the order they happened (and
 * a prompt before its answer is typed).
 *
 * Any other device (a pid such as a file's I/O server, a registered name,
 * standard_io led by another process) gets OTP's I/O protocol: the builtin
 * hands its call over to clause_io:o_request/2 (bif_call_erlang), Erlang
 * code that sends the request, waits for its reply in a receive, and
 * raises an error as OTP's io does (the io call in the first frame, with
 * its cause). Waiting is what Erlang code does well: a builtin that
 * waited itself would need its own selective receive, monitor and
 * timeout-free park. The text written at once is unchanged by this: it
 * stays with the builtins.
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
#include "beam/interp.h"
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "rt/io_thread.h"
#include "rt/names.h"
#include "term/atom.h"
#include "term/heap.h"
#include "term/io_format.h"
#include "term/print.h"

#include <stdio.h>

/* Where dev's text is written at once: IO_DEVICE_STDOUT or _STDERR, or 0
 * for a device that gets the I/O protocol. standard_io is the group
 * leader: at once while that is the runtime's user server (started or
 * not), or the process itself in a runtime without servers (an embedding
 * host's call, where nobody else could write it). */
static int direct_device(struct process *p, term dev)
{
    if (dev == A(user))
        return IO_DEVICE_STDOUT;
    if (dev == A(standard_error))
        return IO_DEVICE_STDERR;
    if (dev != A(standard_io))
        return 0;
    term leader = p->group_leader;
    if (leader == IO_LEADER_USER || leader == io_server_started(p->sched, IO_SERVER_USER) ||
        (leader == p->pid && !io_servers_enabled(p->sched)))
        return IO_DEVICE_STDOUT;
    return 0;
}

/* Writes UTF-8 text as the device does: UTF-8 for a unicode device, else
 * as a latin1 device. False once a write to the device has failed (its
 * reader closed the pipe, say): the device has terminated, as OTP's does
 * when its port ends, and the caller raises terminated. */
static bool write_device(struct process *p, int device, const struct strbuf *text)
{
    struct strbuf bytes = STRBUF_INIT;
    const struct strbuf *out = text;
    if (!io_device_unicode(p->sched, (enum io_device)device)) {
        io_latin1_device(&bytes, strbuf_cstr(text), text->len);
        out = &bytes;
    }
    if (device == IO_DEVICE_STDERR)
        fflush(stdout);
    FILE *stream = device == IO_DEVICE_STDERR ? stderr : stdout;
    if (out->len)
        fwrite(out->data, 1, out->len, stream);
    if (device != IO_DEVICE_STDERR)
        io_stdout_written();
    strbuf_free(&bytes);
    return !ferror(stream);
}

static term written(struct process *p, int device, const struct strbuf *text)
{
    return write_device(p, device, text) ? A(ok) : bif_error(p, A(terminated));
}

/* Hands the call io:Function(orig...) to clause_io:o_request(Function,
 * Orig), which makes the I/O request and raises its errors as OTP's io
 * does, with the original call in the stack trace's first frame; badarg
 * where the engine cannot take it (never for these, which guards cannot
 * call). */
static term protocol_call(struct process *p, term function, const term *orig, size_t n)
{
    if (!p->bif_may_trap)
        return bif_badarg(p);
    term list = NIL;
    for (size_t i = n; i > 0 && is_value(list); i--)
        list = heap_cons(&p->heap, orig[i - 1], list);
    if (is_non_value(list))
        return bif_out_of_memory(p);
    term call[2] = {function, list};
    return bif_call_erlang(p, A(clause_io), A(o_request), 2, call);
}

/* Text a device written at once refuses (a bad format or arguments, data
 * that is not chardata): badarg with the cause OTP's io gives when the
 * device answers {error, put_chars}, which erl_error's explanation of the
 * arguments needs. */
static term refused(struct process *p)
{
    term cause = heap_tuple2(&p->heap, A(device), A(put_chars));
    return is_value(cause) ? bif_badarg_cause(p, cause) : bif_out_of_memory(p);
}

/* io:Function(orig...) for format and fwrite of 1, 2 or 3 arguments. */
static term do_format(struct process *p, term function, const term *orig, size_t n)
{
    term dev = n == 3 ? orig[0] : A(standard_io);
    term format = orig[n == 3 ? 1 : 0];
    term args = n == 1 ? NIL : orig[n - 1];
    int device = direct_device(p, dev);
    if (!device)
        return protocol_call(p, function, orig, n);
    struct strbuf text = STRBUF_INIT;
    term result = io_format(&text, format, args) ? written(p, device, &text) : refused(p);
    strbuf_free(&text);
    return result;
}

static term io_format_1(struct process *p, const term *args) { return do_format(p, A(format), args, 1); }
static term io_format_2(struct process *p, const term *args) { return do_format(p, A(format), args, 2); }
static term io_format_3(struct process *p, const term *args) { return do_format(p, A(format), args, 3); }
static term io_fwrite_1(struct process *p, const term *args) { return do_format(p, A(fwrite), args, 1); }
static term io_fwrite_2(struct process *p, const term *args) { return do_format(p, A(fwrite), args, 2); }
static term io_fwrite_3(struct process *p, const term *args) { return do_format(p, A(fwrite), args, 3); }

static term do_put_chars(struct process *p, const term *orig, size_t n)
{
    term dev = n == 2 ? orig[0] : A(standard_io);
    int device = direct_device(p, dev);
    if (!device)
        return protocol_call(p, A(put_chars), orig, n);
    struct strbuf text = STRBUF_INIT;
    term result = io_chardata(&text, orig[n - 1]) ? written(p, device, &text) : refused(p);
    strbuf_free(&text);
    return result;
}

static term io_put_chars_1(struct process *p, const term *args) { return do_put_chars(p, args, 1); }
static term io_put_chars_2(struct process *p, const term *args) { return do_put_chars(p, args, 2); }

static term do_nl(struct process *p, const term *orig, size_t n)
{
    term dev = n == 1 ? orig[0] : A(standard_io);
    int device = direct_device(p, dev);
    if (!device)
        return protocol_call(p, A(nl), orig, n);
    struct strbuf text = STRBUF_INIT;
    strbuf_putc(&text, '\n');
    term result = written(p, device, &text);
    strbuf_free(&text);
    return result;
}

static term io_nl_0(struct process *p, const term *args) { return do_nl(p, args, 0); }

static term io_nl_1(struct process *p, const term *args) { return do_nl(p, args, 1); }

/* ---- the I/O servers' builtins (core/lib/clause_io.erl) ---- */

static bool output_device(term fd, int *device)
{
    if (fd != make_small(IO_DEVICE_STDOUT) && fd != make_small(IO_DEVICE_STDERR))
        return false;
    *device = (int)small_value(fd);
    return true;
}

/* clause_io:write(Fd, CharData): writes unicode chardata to standard
 * output (1) or standard error (2) as the device's encoding says; ok,
 * error for data that is not chardata (the server's {error, put_chars}),
 * or terminated once the device's writes fail. */
static term clause_io_write(struct process *p, const term *args)
{
    int device;
    if (!output_device(args[0], &device))
        return bif_badarg(p);
    struct strbuf text = STRBUF_INIT;
    term result = !io_chardata(&text, args[1]) ? A(error) : write_device(p, device, &text) ? A(ok) : A(terminated);
    strbuf_free(&text);
    return result;
}

/* clause_io:set_encoding(Fd, latin1 | unicode): the device's encoding, for
 * the server's writes and the builtins' alike. */
static term clause_io_set_encoding(struct process *p, const term *args)
{
    int device;
    if (!output_device(args[0], &device) || (args[1] != A(latin1) && args[1] != A(unicode)))
        return bif_badarg(p);
    io_device_set_unicode(p->sched, (enum io_device)device, args[1] == A(unicode));
    return A(ok);
}

/* clause_io:request_input(): the next chunk of standard input comes to the
 * caller as a message (rt/io_thread.h). Standard output is flushed first:
 * a prompt shows before the program waits for its answer. */
static term clause_io_request_input(struct process *p, const term *args)
{
    (void)args;
    fflush(stdout);
    if (!io_thread_request(p)) {
        sched_runtime_failure(p, "cannot start the I/O thread");
        return bif_raise(p, FAULT_SYSTEM, NIL);
    }
    return A(ok);
}

/* net_kernel:dflag_unicode_io(Pid): whether the node of an I/O server
 * takes unicode requests, which a local one always does. */
static term net_kernel_dflag_unicode_io(struct process *p, const term *args)
{
    return is_pid(args[0]) ? A(true) : bif_badarg(p);
}

/* What the service table starts when a lookup of user or standard_error
 * finds nobody under the name: the I/O server, which registers itself
 * (a name the program took first keeps its holder). */
static term start_io_service(struct process *self, term name, void *arg)
{
    (void)arg;
    return io_server_pid(self, name == A(user) ? IO_SERVER_USER : IO_SERVER_STANDARD_ERROR);
}

bool bif_io_servers_install(struct sched *s)
{
    io_servers_enable(s, bif_io_start_server);
    return names_add_service(s, A(user), start_io_service, NULL) &&
           names_add_service(s, A(standard_error), start_io_service, NULL);
}

term bif_io_start_server(struct process *self, enum io_server which)
{
    term name = which == IO_SERVER_USER ? A(user) : A(standard_error);
    term function = which == IO_SERVER_USER ? A(user_server) : A(standard_error_server);
    term pid = beam_spawn(self->sched, self, sched_engine(self->sched), A(clause_io), function, NULL, 0);
    /* A program that took the name first keeps it; the server still serves
     * whoever has its pid (its children, as their group leader). */
    if (is_value(pid))
        (void)names_register(self, name, pid);
    return pid;
}

/* Decodes one character of the UTF-8 io_format wrote (always valid), or
 * the index of a non-character (IO_NONCHAR_LEAD) with *index set. */
static uint32_t utf8_char(const unsigned char *s, size_t *i, bool *index)
{
    *index = s[*i] == IO_NONCHAR_LEAD;
    if (*index) {
        uint32_t k = 0;
        for (int n = 1; n <= 4; n++)
            k = k << 6 | (s[*i + (size_t)n] & 0x3Fu);
        *i += 5;
        return k;
    }
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
    struct io_nonchars nc = {NULL, 0, 0};
    if (!io_format_terms(&text, args[0], args[1], &nc)) {
        strbuf_free(&text);
        io_nonchars_free(&nc);
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
            io_nonchars_free(&nc);
            return bif_out_of_memory(p);
        }
        /* one block of cons cells, each pointing at the next */
        size_t i = 0;
        for (size_t k = 0; k < chars; k++) {
            bool index;
            uint32_t c = utf8_char(s, &i, &index);
            cells[2 * k] = index ? nc.v[c] : make_small(c);
            cells[2 * k + 1] = k + 1 < chars ? make_list(&cells[2 * k + 2]) : NIL;
        }
        result = make_list(cells);
    }
    strbuf_free(&text);
    io_nonchars_free(&nc);
    return result;
}

static term erlang_display_1(struct process *p, const term *args)
{
    (void)p;
    struct strbuf text = STRBUF_INIT;
    print_display(&text, args[0]);
    strbuf_puts(&text, "\r\n"); /* erts ends the line so, even on a pipe */
    fwrite(text.data, 1, text.len, stdout);
    io_stdout_written();
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

/* io:printable_range/0: which characters io_lib's ~tp and printable_list
 * take for text; latin1, OTP's default (erl +pc), which clause keeps. */
static term io_printable_range(struct process *p, const term *args)
{
    (void)p;
    (void)args;
    return A(latin1);
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
    {"io", "format", 1, io_format_1, 0},
    {"io", "format", 2, io_format_2, 0},
    {"io", "format", 3, io_format_3, 0},
    {"io", "fwrite", 1, io_fwrite_1, 0},
    {"io", "fwrite", 2, io_fwrite_2, 0},
    {"io", "fwrite", 3, io_fwrite_3, 0},
    {"io", "put_chars", 1, io_put_chars_1, 0},
    {"io", "put_chars", 2, io_put_chars_2, 0},
    {"io", "nl", 0, io_nl_0, 0},
    {"io", "printable_range", 0, io_printable_range, BIF_NOHEAP},
    {"io", "nl", 1, io_nl_1, 0},
    {"io_lib", "format", 2, io_lib_format_2, 0},
    {"io_lib", "fwrite", 2, io_lib_format_2, 0},
    {"erlang", "display", 1, erlang_display_1, BIF_NOHEAP},
    {"erlang", "display_string", 1, erlang_display_string, BIF_NOHEAP},
    {"erlang", "display_nl", 0, erlang_display_nl, BIF_NOHEAP},
    {"clause_io", "write", 2, clause_io_write, BIF_NOHEAP},
    {"clause_io", "set_encoding", 2, clause_io_set_encoding, BIF_NOHEAP},
    {"clause_io", "request_input", 0, clause_io_request_input, BIF_NOHEAP},
    {"net_kernel", "dflag_unicode_io", 1, net_kernel_dflag_unicode_io, BIF_NOHEAP},
    {NULL, NULL, 0, NULL, 0},
};
