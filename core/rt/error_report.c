/* error_report.c — OTP's logger error report of a crashed process. */
#include "rt/error_report.h"

#include "term/io_format.h"
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
    strbuf_printf(&text, "=ERROR REPORT==== %d-%s-%d::%02d:%02d:%02d.%06ld ===\n", local.tm_mday,
                  months[local.tm_mon], local.tm_year + 1900, local.tm_hour, local.tm_min, local.tm_sec, micros);
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

void error_report_bad_port_value(const char *port_name, int64_t system_time_ns)
{
    struct strbuf body = STRBUF_INIT;
    strbuf_printf(&body, "Bad value on output port '%s'\n\n\n", port_name);
    write_report(&body, system_time_ns);
    strbuf_free(&body);
}
