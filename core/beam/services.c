/*
 * services.c — which OTP processes start on first lookup, and how
 * (services.h).
 */
#include "beam/services.h"

#include "beam/code_server.h"
#include "beam/interp.h"
#include "rt/names.h"
#include "term/atom.h"

#include <stddef.h>

/* A gen_server OTP's boot starts as {local, name} with module:init(Args)
 * where Args is [], or a supervisor (module supervisor) whose children
 * come from supervisor_module:init(supervisor_arg). */
struct gen_server_service {
    const char *name;
    const char *module;
    const char *supervisor_module, *supervisor_arg;
};

static const struct gen_server_service gen_server_services[] = {
    {"file_server_2", "file_server", NULL, NULL}, /* file:'s calls (kernel's file_server) */
    {"timer_server", "timer", NULL, NULL},        /* timer:apply_after, send_interval, ... (stdlib's timer) */
    /* kernel's supervisor of the services started on demand (disk_log's
     * server and supervisor, which ets:tab2file/2 uses), as kernel's
     * supervisor starts it: kernel:init(safe) */
    {"kernel_safe_sup", "supervisor", "kernel", "safe"},
};

/* Cons cells in a C array: terms anywhere may be passed to a spawn, which
 * copies them to the new heap. */
static term list_in(term *cells, const term *items, size_t n)
{
    term list = NIL;
    for (size_t i = n; i-- > 0;) {
        cells[2 * i] = items[i];
        cells[2 * i + 1] = list;
        list = make_list(&cells[2 * i]);
    }
    return list;
}

static term start_gen_server(struct process *self, term name, void *arg)
{
    const struct gen_server_service *svc = arg;
    term parent = make_pid(0); /* no process has pid 0: nothing is linked, acks go nowhere */
    term local[3] = {make_header(SUBTAG_TUPLE, 2), atom_intern_cstr("local"), name};
    term supervisor_args[4] = {make_header(SUBTAG_TUPLE, 3), make_boxed(local), THE_NON_VALUE, THE_NON_VALUE};
    term module_args = NIL;
    if (svc->supervisor_module) {
        supervisor_args[2] = atom_intern_cstr(svc->supervisor_module);
        supervisor_args[3] = atom_intern_cstr(svc->supervisor_arg);
        module_args = make_boxed(supervisor_args);
    }
    term init_args[6] = {parent, parent, make_boxed(local), atom_intern_cstr(svc->module), module_args, NIL};
    term init_cells[12];
    term args[5] = {parent, NIL, atom_intern_cstr("gen_server"), atom_intern_cstr("init_it"),
                    list_in(init_cells, init_args, 6)};
    struct code_server *cs = sched_engine(self->sched);
    return beam_spawn(self->sched, self, cs, atom_intern_cstr("proc_lib"), atom_intern_cstr("init_p"), args, 5);
}

bool beam_services_install(struct sched *s)
{
    for (size_t i = 0; i < sizeof gen_server_services / sizeof gen_server_services[0]; i++)
        if (!names_add_service(s, atom_intern_cstr(gen_server_services[i].name), start_gen_server,
                               (void *)&gen_server_services[i]))
            return false;
    return true;
}
