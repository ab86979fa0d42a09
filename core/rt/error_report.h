/*
 * error_report.h — the error report a process writes when it ends with an
 * uncaught error, in the format of OTP's default logger handler:
 *
 *   =ERROR REPORT==== 8-Oct-2026::03:42:15.983000 ===
 *   Error in process <0.8.0> with exit value:
 *   {boom,[{crash_reports,'-main/1-fun-6-',0,[]}]}
 *   (a blank line)
 *
 * The header has the local time; the reason is laid out as ~p. Standard
 * output is flushed first, so that the report follows what the program
 * printed before it.
 *
 * Once kernel's logger_proxy has made itself the system logger (rt/node.h),
 * a crashed process's report goes to it instead, as OTP's erts sends it:
 * {log, error, "Error in process ~p with exit value:~n~p~n", [Pid, Reason],
 * #{error_logger => #{emulator => true, tag => error}, gl => GL, pid => Pid,
 * time => Microseconds}}, which the proxy hands to logger:log/4, so the
 * primary level, filters and the program's own handlers see it.
 */
#ifndef CLAUSE_ERROR_REPORT_H
#define CLAUSE_ERROR_REPORT_H

#include "rt/process.h"
#include "term/term.h"

#include <stdint.h>

/* system_time_ns: the time of the report's header (node_system_time_ns). */
void error_report_exit_value(term pid, term reason, int64_t system_time_ns);
/* p (not running any more, its exit_reason set) ended with an uncaught
 * error or throw: its report goes to the system logger when that is a
 * pid, nowhere when it is undefined, else (before the kernel's boot) it is
 * written at once (error_report_exit_value). */
void error_report_process_exit(struct process *p);
/* p (running: a collection just ended) passed its max_heap_size `max`
 * with `total` words (stack words among them): OTP's report of it, to the
 * system logger as error_report_process_exit sends one, or written. */
void error_report_max_heap_size(struct process *p, size_t max, size_t total, bool kill, size_t stack);
/* The report of a {command, Data} message to a port whose data is no
 * iodata, as erts logs it (the port then ends with badsig). */
void error_report_bad_port_value(const char *port_name, int64_t system_time_ns);
/* The main process ended with class (error, exit, throw) and reason: the
 * line "clause: exception CLASS: REASON" on stderr, the reason as
 * io:format(standard_error, "~p", ...) writes it after that prefix, in the
 * device's encoding (latin-1 bytes unless the program made it unicode),
 * as tests/golden/otp_run.escript writes it on OTP. */
void error_report_main_exception(struct process *p, term class, term reason);

#endif
