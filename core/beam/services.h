/*
 * services.h — the registered processes of OTP's boot that clause starts on
 * first use (rt/names.h's services), running OTP's own Erlang code.
 *
 * The table (services.c) names each service and how OTP starts it; the
 * entries today are gen_servers: `file_server_2` (kernel's file_server),
 * `timer_server` (stdlib's timer) and `kernel_safe_sup` (a supervisor:
 * Module supervisor, Args {{local, kernel_safe_sup}, kernel, safe}). A
 * gen_server service's process runs
 * proc_lib:init_p(Parent, [], gen_server, init_it, [Parent, Parent,
 * {local, Name}, Module, Args, []]) with Parent <0.0.0> (a pid no process
 * ever has, which stands where OTP's boot has init or a supervisor):
 * gen_server:start_link's own path after the name's registration, which
 * the runtime has made already, so the server runs Module:init/1 and
 * loops, reports crashes under its name, and sends its init
 * acknowledgement nowhere. It is linked to nothing: it never keeps the
 * program alive (the program ends with main/1) and prints nothing when
 * the program ends.
 */
#ifndef CLAUSE_BEAM_SERVICES_H
#define CLAUSE_BEAM_SERVICES_H

#include "rt/executor.h"

#include <stdbool.h>

/* Declares every known service on s (before sched_run); false when memory
 * was refused. */
bool beam_services_install(struct sched *s);

#endif
