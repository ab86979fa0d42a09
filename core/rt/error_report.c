/* error_report.c — OTP's logger error report of a crashed process. */
#include "rt/error_report.h"

#include "rt/internal.h"
#include "rt/io_thread.h"
#include "rt/node.h"
#include "term/bignum.h"
#include "term/io_format.h"
#include "term/map.h"
#include "term/print.h"
#include "term/strbuf.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Writes a report: the header with the time, then body (its text ends
 * with the report's blank line). */
static void write_report(const struct strbuf *body, int64_t system_time_ns)
{
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t seconds = (time_t)(system_time_ns / 1000000000);
    long micros = (long)(system_time_ns % 1000000000 / 1000);
    struct tm local;
    localtime_r(&seconds, &local);
    struct strbuf text = STRBUF_INIT;
    strbuf_printf(&text, "=ERROR REPORT==== %d-%s-%d::%02d:%02d:%02d.%06ld ===\n", local.tm_mday, months[local.tm_mon],
                  local.tm_year + 1900, local.tm_hour, local.tm_min, local.tm_sec, micros);
    strbuf_append(&text, body->data, body->len);
    /* Written as OTP's standard_error device writes text: latin-1 bytes. */
    struct strbuf bytes = STRBUF_INIT;
    io_latin1_device(&bytes, strbuf_cstr(&text), text.len);
    fflush(stdout);
    fwrite(bytes.data, 1, bytes.len, stderr);
    strbuf_free(&bytes);
    strbuf_free(&text);
}

void error_report_exit_value(term pid, term reason, int64_t system_time_ns)
{
    struct strbuf body = STRBUF_INIT;
    strbuf_puts(&body, "Error in process ");
    print_w(&body, pid, -1);
    strbuf_puts(&body, " with exit value:\n");
    print_p(&body, reason, 1, 80, -1);
    strbuf_puts(&body, "\n\n");
    write_report(&body, system_time_ns);
    strbuf_free(&body);
}

/* The event erts sends the system logger (error_report.h), built on h:
 * format with the n arguments args. */
static term logger_event(heap_t *h, struct process *p, term gl, const char *format, const term *args, size_t n)
{
    term inner_keys[2] = {atom_intern_cstr("emulator"), A(tag)};
    term inner_values[2] = {A(true), A(error)};
    term inner = map_from_pairs(h, inner_keys, inner_values, 2);
    term keys[4] = {atom_intern_cstr("error_logger"), atom_intern_cstr("gl"), A(pid), atom_intern_cstr("time")};
    term values[4] = {inner, gl, p->pid, int_from_int64(h, node_system_time_ns(p) / 1000)};
    term meta = is_value(inner) && is_value(values[3]) ? map_from_pairs(h, keys, values, 4) : THE_NON_VALUE;
    term text = heap_string(h, format, strlen(format));
    term list = heap_list_from_array(h, args, n);
    if (is_non_value(meta) || is_non_value(text) || is_non_value(list))
        return THE_NON_VALUE;
    term *event = heap_alloc(h, 6);
    if (!event)
        return THE_NON_VALUE;
    event[0] = make_header(SUBTAG_TUPLE, 5);
    event[1] = atom_intern_cstr("log");
    event[2] = A(error);
    event[3] = text;
    event[4] = list;
    event[5] = meta;
    return make_boxed(event);
}

/* p's event for the system logger, a pid: format with the n arguments
 * that build() makes on the heap it is given. False (nothing sent) when
 * the host refused memory. */
static bool send_to_system_logger(struct process *p, term logger, const char *format,
                                  bool (*build)(heap_t *h, struct process *p, term *args, void *ctx), size_t n,
                                  void *ctx)
{
    struct sched *s = p->sched;
    /* The user server stands for IO_LEADER_USER once started (the kernel's
     * boot starts it). */
    term gl = p->group_leader;
    if (gl == IO_LEADER_USER && is_value(io_server_started(s, IO_SERVER_USER)))
        gl = io_server_started(s, IO_SERVER_USER);
    heap_t scratch;
    if (!heap_init(&scratch, 0, 0))
        return false;
    term args[8];
    term event = build(&scratch, p, args, ctx) ? logger_event(&scratch, p, gl, format, args, n) : THE_NON_VALUE;
    struct arrival *buffer = is_value(event) ? message_buffer_new(event) : NULL;
    heap_destroy(&scratch);
    if (!buffer)
        return false;
    rt_lock(&s->exec_lock);
    struct process *target = sched_live_locked(s, logger);
    if (!target)
        message_buffer_free(buffer); /* a proxy that ended: lost, as on OTP */
    else if (!message_buffer_deliver_locked(s, target, buffer))
        sched_runtime_failure_locked(s, logger, "its heap refused a log event");
    rt_unlock(&s->exec_lock);
    return true;
}

static bool exit_value_args(heap_t *h, struct process *p, term *args, void *ctx)
{
    (void)h;
    (void)ctx;
    args[0] = p->pid;
    args[1] = p->exit_reason;
    return true;
}

void error_report_process_exit(struct process *p)
{
    term logger = node_system_logger(p);
    if (logger == A(undefined))
        return; /* OTP's proxy in drop mode: the event is lost */
    if (!is_pid(logger) ||
        !send_to_system_logger(p, logger, "Error in process ~p with exit value:~n~p~n", exit_value_args, 2, NULL))
        error_report_exit_value(p->pid, p->exit_reason, node_system_time_ns(p));
}

/* ---- max_heap_size ---- */

struct max_heap_report {
    size_t max, total, stack;
    bool kill;
};

/* OTP's GC Info: the heap's figures after the collection (words; the
 * virtual binary heaps' in words too, as OTP counts them). */
static term gc_info(heap_t *h, const struct process *p, size_t stack)
{
    const heap_t *q = &p->heap;
    static const char *const names[11] = {
        "old_heap_block_size",     "heap_block_size", "mbuf_size",      "recent_size",          "stack_size",
        "old_heap_size",           "heap_size",       "bin_vheap_size", "bin_vheap_block_size", "bin_old_vheap_size",
        "bin_old_vheap_block_size"};
    size_t values[11] = {heap_old_block_words(q),
                         heap_block_words(q),
                         q->frag_words,
                         (size_t)(q->high_water - q->start),
                         stack,
                         heap_old_words(q),
                         (size_t)(q->top - q->start),
                         q->off_heap_bytes / sizeof(term),
                         q->bin_vheap_limit / sizeof(term),
                         q->old->off_heap_bytes / sizeof(term),
                         q->old_bin_vheap_limit / sizeof(term)};
    term items[11];
    for (int i = 0; i < 11; i++) {
        items[i] = heap_tuple2(h, atom_intern_cstr(names[i]), int_from_int64(h, (int64_t)values[i]));
        if (is_non_value(items[i]))
            return THE_NON_VALUE;
    }
    return heap_list_from_array(h, items, 11);
}

static bool max_heap_args(heap_t *h, struct process *p, term *args, void *ctx)
{
    const struct max_heap_report *r = ctx;
    args[0] = p->pid;
    args[1] = int_from_int64(h, (int64_t)r->max);
    args[2] = int_from_int64(h, (int64_t)r->total);
    args[3] = r->kill ? A(true) : A(false);
    args[4] = A(true);
    args[5] = make_small((int64_t)mailbox_length(&p->mailbox));
    args[6] = gc_info(h, p, r->stack);
    return is_value(args[1]) && is_value(args[2]) && is_value(args[6]);
}

/* Laid out as OTP's report of it. */
static const char max_heap_format[] = "     Process:            ~p ~n"
                                      "     Context:            maximum heap size reached~n"
                                      "     Max Heap Size:      ~p~n"
                                      "     Total Heap Size:    ~p~n"
                                      "     Kill:               ~p~n"
                                      "     Error Logger:       ~p~n"
                                      "     Message Queue Len:  ~p~n"
                                      "     GC Info:            ~p~n";

/* The report written at once (no system logger yet): the logger's format
 * and arguments, formatted here as its handler would. */
static void write_max_heap(struct process *p, struct max_heap_report *r)
{
    heap_t scratch;
    if (!heap_init(&scratch, 0, 0))
        return;
    term args[7];
    term format = heap_string(&scratch, max_heap_format, sizeof max_heap_format - 1);
    term list = max_heap_args(&scratch, p, args, r) ? heap_list_from_array(&scratch, args, 7) : THE_NON_VALUE;
    struct strbuf body = STRBUF_INIT;
    if (is_value(format) && is_value(list) && io_format(&body, format, list)) {
        strbuf_puts(&body, "\n");
        write_report(&body, node_system_time_ns(p));
    }
    strbuf_free(&body);
    heap_destroy(&scratch);
}

void error_report_max_heap_size(struct process *p, size_t max, size_t total, bool kill, size_t stack)
{
    struct max_heap_report r = {max, total, stack, kill};
    term logger = node_system_logger(p);
    if (logger == A(undefined))
        return;
    if (!is_pid(logger) || !send_to_system_logger(p, logger, max_heap_format, max_heap_args, 7, &r))
        write_max_heap(p, &r);
}

void error_report_bad_port_value(const char *port_name, int64_t system_time_ns)
{
    struct strbuf body = STRBUF_INIT;
    strbuf_printf(&body, "Bad value on output port '%s'\n\n\n", port_name);
    write_report(&body, system_time_ns);
    strbuf_free(&body);
}

void error_report_main_exception(struct process *p, term class, term reason)
{
    struct strbuf text = STRBUF_INIT;
    strbuf_puts(&text, "clause: exception ");
    print_atom(&text, class);
    strbuf_puts(&text, ": ");
    print_p(&text, reason, (int)text.len + 1, 80, -1);
    strbuf_putc(&text, '\n');
    /* print_p writes UTF-8; a latin-1 device writes a character below 256
     * as its byte (an atom 'é', <<"é"/utf8>> printed as <<"Ã©">>). */
    struct strbuf bytes = STRBUF_INIT;
    const struct strbuf *out = &text;
    if (!io_device_unicode(p->sched, IO_DEVICE_STDERR)) {
        io_latin1_device(&bytes, strbuf_cstr(&text), text.len);
        out = &bytes;
    }
    fflush(stdout);
    fwrite(out->data, 1, out->len, stderr);
    strbuf_free(&bytes);
    strbuf_free(&text);
}
