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

/* The event erts sends the system logger (error_report.h), built on h. */
static term logger_event(heap_t *h, struct process *p, term gl)
{
    static const char format[] = "Error in process ~p with exit value:~n~p~n";
    term args[2] = {p->pid, p->exit_reason};
    term inner_keys[2] = {atom_intern_cstr("emulator"), A(tag)};
    term inner_values[2] = {A(true), A(error)};
    term inner = map_from_pairs(h, inner_keys, inner_values, 2);
    term keys[4] = {atom_intern_cstr("error_logger"), atom_intern_cstr("gl"), A(pid), atom_intern_cstr("time")};
    term values[4] = {inner, gl, p->pid, int_from_int64(h, node_system_time_ns(p) / 1000)};
    term meta = is_value(inner) && is_value(values[3]) ? map_from_pairs(h, keys, values, 4) : THE_NON_VALUE;
    term text = heap_string(h, format, sizeof format - 1);
    term list = heap_list_from_array(h, args, 2);
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

void error_report_process_exit(struct process *p)
{
    struct sched *s = p->sched;
    term logger = node_system_logger(p);
    if (logger == A(undefined))
        return; /* OTP's proxy in drop mode: the event is lost */
    if (!is_pid(logger)) {
        error_report_exit_value(p->pid, p->exit_reason, node_system_time_ns(p));
        return;
    }
    /* The user server stands for IO_LEADER_USER once started (the kernel's
     * boot starts it). */
    term gl = p->group_leader;
    if (gl == IO_LEADER_USER && is_value(io_server_started(s, IO_SERVER_USER)))
        gl = io_server_started(s, IO_SERVER_USER);
    heap_t scratch;
    if (!heap_init(&scratch, 0, 0)) {
        error_report_exit_value(p->pid, p->exit_reason, node_system_time_ns(p));
        return;
    }
    term event = logger_event(&scratch, p, gl);
    struct arrival *buffer = is_value(event) ? message_buffer_new(event) : NULL;
    heap_destroy(&scratch);
    if (!buffer) {
        error_report_exit_value(p->pid, p->exit_reason, node_system_time_ns(p));
        return;
    }
    rt_lock(&s->exec_lock);
    struct process *target = sched_live_locked(s, logger);
    if (!target)
        message_buffer_free(buffer); /* a proxy that ended: lost, as on OTP */
    else if (!message_buffer_deliver_locked(s, target, buffer))
        sched_runtime_failure_locked(s, logger, "its heap refused a log event");
    rt_unlock(&s->exec_lock);
}

void error_report_bad_port_value(const char *port_name, int64_t system_time_ns)
{
    struct strbuf body = STRBUF_INIT;
    strbuf_printf(&body, "Bad value on output port '%s'\n\n\n", port_name);
    write_report(&body, system_time_ns);
    strbuf_free(&body);
}
