/*
 * kernel.c — the part of OTP's kernel boot that logging and applications
 * need, done on first use: OTP's application controller (which makes the
 * `ac_tab` table of application environments) with kernel and stdlib
 * started, the `logger` process and table, and the default log handler
 * (core/lib/clause_kernel.erl does the boot in Erlang, running OTP's own
 * code).
 *
 * What starts it: a builtin that touches one of the kernel's names before
 * the boot ended, from a process outside the kernel: ets's builtins on the
 * tables `ac_tab` and `logger` (application:get_env/2 reads ac_tab,
 * logger:log/3 finds the logger table with ets:whereis/1) and
 * erlang:whereis of `logger` or `application_controller`
 * (gen_server:call(logger, ...) and application:'s calls look the name up
 * so), and a send to one of these names (erlang:send/2,3, `!`), which
 * OTP delivers since its boot started them. Such a call hands itself over to clause_kernel:await_boot/3, which
 * starts the kernel's process (the service `clause_kernel`, rt/names.h),
 * waits until its boot ended and makes the call again. Until then the
 * kernel's names are the kernel's alone: a process that finds `logger`
 * registered while the default handler is still being added waits like
 * the first, so no event reaches the boot's temporary handler.
 *
 * The kernel's own processes are the boot process, the application
 * controller, and every process with the boot process as group leader (it
 * makes itself its own, and processes inherit theirs: the logger, its
 * supervisor, the handlers), as OTP's kernel processes have kernel's
 * application master. Once the boot ended, one acquire load per such
 * builtin is all this costs; a program that never touches these names
 * never starts anything.
 *
 * global's servers (global_name_server, with its tables, and global_group),
 * which OTP's kernel supervisor starts at boot, are started the same way
 * but apart: on the first use of their names or tables (global:'s calls
 * and whereis_name/1, which reads global_names), after the boot if it had
 * not happened. Started with the boot they would add a third to its time
 * (about 6 ms) for every program that only logs.
 */
#include "beam/interp.h"
#include "bif/bif.h"
#include "rt/names.h"
#include "term/atom.h"
#include "term/heap.h"

/* Whether self is the kernel's (executor mutex not held). The application
 * controller is, whatever its group leader: it makes `user` its group
 * leader as kernel starts (application_controller:check_user/0), then goes
 * on reading ac_tab while the boot starts stdlib. */
static bool kernel_process(struct process *self)
{
    term kernel = names_whereis(self, A(clause_kernel));
    if (is_value(kernel) && (self->pid == kernel || self->group_leader == kernel))
        return true;
    return names_whereis(self, A(application_controller)) == self->pid;
}

/* global's server and tables (global:whereis_name/1 and registered_names/0
 * read the tables directly) and global_group's server. */
static bool global_name(term name)
{
    return name == A(global_name_server) || name == A(global_group) || name == A(global_names) ||
           name == A(global_names_ext) || name == A(global_pid_names) || name == A(global_pid_ids) ||
           name == A(global_locks);
}

bool bif_kernel_name_pending(struct process *self, term name)
{
    if (!is_atom(name)) /* a table's reference: every ETS call on one asks */
        return false;
    if (name == A(ac_tab) || name == A(logger) || name == A(application_controller))
        return !sched_kernel_booted(self->sched) && !kernel_process(self);
    if (global_name(name))
        return !sched_global_started(self->sched) && !kernel_process(self);
    return false;
}

term bif_kernel_await(struct process *self, term module, term function, const term *args, unsigned arity)
{
    term list = NIL;
    for (unsigned i = arity; i-- > 0 && is_value(list);)
        list = heap_cons(&self->heap, args[i], list);
    if (is_non_value(list))
        return bif_out_of_memory(self);
    term call[3] = {module, function, list};
    return bif_call_erlang(self, A(clause_kernel), A(await_boot), 3, call);
}

/* clause_kernel:boot_ended(): the kernel's names are everyone's from now
 * on (the boot process says so when it ended, a waiter when it died). */
static term kernel_boot_ended(struct process *p, const term *args)
{
    (void)args;
    sched_set_kernel_booted(p->sched);
    return A(ok);
}

/* clause_kernel:is_global_name(Name): for the kernel's process, which
 * waits for global's servers on a call that names one (global_name). */
static term kernel_is_global_name(struct process *p, const term *args)
{
    (void)p;
    return global_name(args[0]) ? A(true) : A(false);
}

/* clause_kernel:global_started(): global's names are everyone's from now
 * on (the kernel's process says so once it started global's servers). */
static term kernel_global_started(struct process *p, const term *args)
{
    (void)args;
    sched_set_global_started(p->sched);
    return A(ok);
}

/* clause_kernel:hold_end(): the program's end waits for the caller's
 * (rt/executor.h, sched_hold_end); main's pid, or undefined when main has
 * ended already. */
static term kernel_hold_end(struct process *p, const term *args)
{
    (void)args;
    term main = sched_hold_end(p);
    return is_value(main) ? main : A(undefined);
}

/* The service: clause_kernel:boot() in a new process, which the service
 * table registers as clause_kernel. */
static term start_kernel(struct process *self, term name, void *arg)
{
    (void)name;
    (void)arg;
    return beam_spawn(self->sched, self, sched_engine(self->sched), A(clause_kernel), A(boot), NULL, 0);
}

bool bif_kernel_install(struct sched *s) { return names_add_service(s, A(clause_kernel), start_kernel, NULL); }

const struct bif_def bif_table_kernel[] = {
    {"clause_kernel", "boot_ended", 0, kernel_boot_ended, 0},
    {"clause_kernel", "hold_end", 0, kernel_hold_end, 0},
    {"clause_kernel", "global_started", 0, kernel_global_started, 0},
    {"clause_kernel", "is_global_name", 1, kernel_is_global_name, BIF_NOHEAP},
    {NULL, NULL, 0, NULL, 0},
};
