/*
 * ports.c — the builtins of ports (to external programs and to file
 * descriptors): open_port/2,
 * port_command/2,3, port_close/1, port_connect/2, port_info/1,2,
 * erlang:ports/0, and what a send to a port does (bif_port_message). They
 * check their arguments as OTP 25's do (badarg, enoent as the exception of
 * a missing executable) and call the runtime (core/rt/ports.h).
 */
#include "rt/ports.h"
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/error_report.h"
#include "rt/executor.h"
#include "rt/node.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/strbuf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file name, command or argument: a (deep) list of characters, a binary
 * or an atom, as UTF-8 without NUL. */
static bool text_arg(term t, struct strbuf *out)
{
    const uint8_t *bytes;
    size_t size;
    if (is_atom(t)) {
        size_t len;
        const char *text = atom_text(t, &len);
        strbuf_append(out, text, len);
        strbuf_reserve(out, 1);
        out->data[out->len] = '\0';
        return true;
    }
    if (bif_binary_arg(t, &bytes, &size)) {
        if (memchr(bytes, 0, size))
            return false;
        strbuf_append(out, bytes, size);
    } else if (!is_list_or_nil(t) || !bif_chars_utf8(t, out)) {
        return false;
    }
    strbuf_reserve(out, 1);
    out->data[out->len] = '\0';
    return true;
}

/* A NULL-terminated array of strings that grows. */
struct strings {
    char **items;
    size_t count, cap;
};

static bool strings_add(struct strings *v, char *item)
{
    if (!item)
        return false;
    if (v->count + 2 > v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 16;
        char **more = realloc(v->items, cap * sizeof *more);
        if (!more) {
            free(item);
            return false;
        }
        v->items = more;
        v->cap = cap;
    }
    v->items[v->count++] = item;
    v->items[v->count] = NULL;
    return true;
}

static void strings_free(struct strings *v)
{
    for (size_t i = 0; i < v->count; i++)
        free(v->items[i]);
    free(v->items);
    memset(v, 0, sizeof *v);
}

/* Removes the variable `name` (name_len bytes) from env. */
static void env_unset(struct strings *env, const char *name, size_t name_len)
{
    size_t kept = 0;
    for (size_t i = 0; i < env->count; i++) {
        char *var = env->items[i];
        if (strncmp(var, name, name_len) == 0 && var[name_len] == '=')
            free(var);
        else
            env->items[kept++] = var;
    }
    env->count = kept;
    if (env->items)
        env->items[kept] = NULL;
}

/* {env, [{Name, Value}]}: the runtime's environment with these set (false
 * or [] unsets). 1: done, 0: badarg, -1: memory refused. */
static int env_merge(term list, struct strings *env)
{
    if (!env->items) {
        /* node_environ's array is NULL-terminated, its strings malloc'd. */
        char **vars;
        size_t n;
        if (!node_environ(&vars, &n))
            return -1;
        env->items = vars;
        env->count = n;
        env->cap = n + 1;
    }
    for (; is_list(list); list = list_tail(list)) {
        term pair = list_head(list);
        if (!is_tuple(pair) || tuple_arity(pair) != 2)
            return 0;
        struct strbuf name = STRBUF_INIT, value = STRBUF_INIT;
        term v = tuple_elements(pair)[1];
        bool unset = v == A(false) || v == NIL;
        bool ok = text_arg(tuple_elements(pair)[0], &name) && name.len && !memchr(name.data, '=', name.len) &&
                  (unset || text_arg(v, &value));
        if (ok) {
            env_unset(env, name.data, name.len);
            if (!unset) {
                strbuf_putc(&name, '=');
                strbuf_append(&name, value.data, value.len);
                strbuf_reserve(&name, 1);
                name.data[name.len] = '\0';
                ok = strings_add(env, strdup(name.data));
                strbuf_free(&name);
                strbuf_free(&value);
                if (!ok)
                    return -1;
                continue;
            }
        }
        strbuf_free(&name);
        strbuf_free(&value);
        if (!ok)
            return 0;
    }
    return is_nil(list) ? 1 : 0;
}

/* open_port's settings, as OTP reads them (erl_bif_port.c): later options
 * win, in and out add up (neither: both). False for badarg. */
struct open_request {
    struct port_spec spec;
    struct strings args; /* {args, ...}: argv from 1 on; argv[0] is arg0's */
    bool has_args;
    struct strbuf arg0, cd;
    bool has_arg0, has_cd;
    struct strings env;
    bool memory_refused;
};

static bool tuple_option(struct open_request *r, term option, term value)
{
    int64_t n;
    if (option == A(packet))
        return bif_small_arg(value, &n) && (n == 1 || n == 2 || n == 4) && (r->spec.packet = (unsigned)n, true);
    if (option == A(line))
        return bif_small_arg(value, &n) && n > 0 && (r->spec.line = (size_t)n, true);
    if (option == A(env)) {
        int merged = env_merge(value, &r->env);
        r->memory_refused = merged < 0;
        return merged > 0;
    }
    if (option == A(args)) {
        strings_free(&r->args);
        if (bif_list_length(value) < 0)
            return false;
        r->has_args = true;
        for (term l = value; is_list(l); l = list_tail(l)) {
            struct strbuf arg = STRBUF_INIT;
            if (!text_arg(list_head(l), &arg)) {
                strbuf_free(&arg);
                return false;
            }
            if (!strings_add(&r->args, strdup(strbuf_cstr(&arg)))) {
                r->memory_refused = true;
                strbuf_free(&arg);
                return false;
            }
            strbuf_free(&arg);
        }
        return true;
    }
    if (option == A(arg0)) {
        strbuf_clear(&r->arg0);
        return (r->has_arg0 = text_arg(value, &r->arg0));
    }
    if (option == A(cd)) {
        strbuf_clear(&r->cd);
        return (r->has_cd = text_arg(value, &r->cd));
    }
    if (option == A(parallelism))
        return value == A(true) || value == A(false);
    return false;
}

static bool atom_option(struct open_request *r, term option, bool *in, bool *out)
{
    struct port_spec *spec = &r->spec;
    if (option == A(stream))
        spec->packet = 0;
    else if (option == A(use_stdio))
        spec->use_stdio = true;
    else if (option == A(nouse_stdio))
        spec->use_stdio = false;
    else if (option == A(stderr_to_stdout))
        spec->stderr_to_stdout = true;
    else if (option == A(line))
        spec->line = 512;
    else if (option == A(binary))
        spec->binary = true;
    else if (option == A(in))
        *in = true;
    else if (option == A(out))
        *out = true;
    else if (option == A(eof))
        spec->eof = true;
    else if (option == A(exit_status))
        spec->exit_status = true;
    else if (option != A(hide) && option != A(overlapped_io))
        return false;
    return true;
}

static bool parse_settings(struct open_request *r, term settings)
{
    bool in = false, out = false;
    if (bif_list_length(settings) < 0)
        return false;
    r->spec.use_stdio = true;
    for (term l = settings; is_list(l); l = list_tail(l)) {
        term o = list_head(l);
        bool ok = is_tuple(o) && tuple_arity(o) == 2 ? tuple_option(r, tuple_elements(o)[0], tuple_elements(o)[1])
                  : is_atom(o)                       ? atom_option(r, o, &in, &out)
                                                     : false;
        if (!ok)
            return false;
    }
    r->spec.in = in || !out;
    r->spec.out = out || !in;
    /* Mutually exclusive, as OTP's. */
    return !(r->spec.line && r->spec.packet) && !(r->spec.stderr_to_stdout && !r->spec.use_stdio);
}

static void request_free(struct open_request *r)
{
    strings_free(&r->args);
    strings_free(&r->env);
    strbuf_free(&r->arg0);
    strbuf_free(&r->cd);
}

/* The exception of a spawn that failed: the errno's name, as OTP's. */
static term errno_atom(int error)
{
    switch (error) {
    case ENOENT:
        return atom_intern_cstr("enoent");
    case EACCES:
        return atom_intern_cstr("eacces");
    case ENOTDIR:
        return atom_intern_cstr("enotdir");
    case ENOEXEC:
        return atom_intern_cstr("enoexec");
    case EMFILE:
        return atom_intern_cstr("emfile");
    case ENFILE:
        return atom_intern_cstr("enfile");
    case EAGAIN:
        return atom_intern_cstr("eagain");
    case ENOMEM:
        return A(system_limit);
    default:
        return atom_intern_cstr("einval");
    }
}

/* open_port({fd, In, Out}, Settings): named "In/Out" as OTP's; a
 * descriptor the port uses (In when it reads, Out when it writes) out of
 * range is einval, exit_status, args and arg0 badarg, as OTP's checks make
 * them. */
static term open_fd_port(struct process *self, term name, term settings)
{
    int64_t fds[2];
    struct open_request r;
    memset(&r, 0, sizeof r);
    term result = THE_NON_VALUE;
    bool ok = bif_small_arg(tuple_elements(name)[1], &fds[0]) && bif_small_arg(tuple_elements(name)[2], &fds[1]) &&
              parse_settings(&r, settings) && !r.spec.exit_status && !r.has_args && !r.has_arg0;
    if (!ok) {
        result = r.memory_refused ? bif_out_of_memory(self) : bif_badarg(self);
    } else if ((r.spec.in && (fds[0] < 0 || fds[0] > INT32_MAX)) ||
               (r.spec.out && (fds[1] < 0 || fds[1] > INT32_MAX))) {
        result = bif_error(self, atom_intern_cstr("einval"));
    } else {
        char port_name[48];
        snprintf(port_name, sizeof port_name, "%lld/%lld", (long long)fds[0], (long long)fds[1]);
        r.spec.fd = true;
        r.spec.fd_in = (int)fds[0];
        r.spec.fd_out = (int)fds[1];
        r.spec.name = port_name;
        int error = 0;
        result = ports_open(self, &r.spec, &error);
        if (is_non_value(result))
            result = error == ENOMEM ? bif_out_of_memory(self) : bif_error(self, errno_atom(error));
    }
    request_free(&r);
    return result;
}

static term bif_open_port(struct process *self, const term *args)
{
    term name = args[0];
    if (is_tuple(name) && tuple_arity(name) == 3 && tuple_elements(name)[0] == A(fd))
        return open_fd_port(self, name, args[1]);
    if (!is_tuple(name) || tuple_arity(name) != 2 ||
        (tuple_elements(name)[0] != A(spawn) && tuple_elements(name)[0] != A(spawn_executable)))
        return bif_badarg(self); /* no port drivers */
    bool executable = tuple_elements(name)[0] == A(spawn_executable);
    struct open_request r;
    memset(&r, 0, sizeof r);
    struct strbuf command = STRBUF_INIT;
    struct strings argv = {0};
    term result = THE_NON_VALUE;
    bool ok = parse_settings(&r, args[1]) && text_arg(tuple_elements(name)[1], &command) && command.len &&
              (executable || (!r.has_args && !r.has_arg0));
    if (!ok) {
        result = r.memory_refused ? bif_out_of_memory(self) : bif_badarg(self);
        goto done;
    }
    if (!executable && strcmp(command.data, "ram_file_drv") == 0) {
        /* kernel's ram_file: the runtime's in-memory file (ports.h). */
        r.spec.ram_file = true;
        r.spec.name = command.data;
        int error = 0;
        result = ports_open(self, &r.spec, &error);
        if (is_non_value(result))
            result = bif_out_of_memory(self);
        goto done;
    }
    if (executable) {
        /* The file itself, not searched in PATH; argv[0] is arg0 or it. */
        ok = strings_add(&argv, strdup(r.has_arg0 ? r.arg0.data : command.data));
        for (size_t i = 0; ok && i < r.args.count; i++)
            ok = strings_add(&argv, strdup(r.args.items[i]));
    } else {
        /* OTP's spawn: sh -c "exec Command". */
        struct strbuf line = STRBUF_INIT;
        strbuf_puts(&line, "exec ");
        strbuf_append(&line, command.data, command.len);
        strbuf_putc(&line, '\0');
        ok = strings_add(&argv, strdup("sh")) && strings_add(&argv, strdup("-c")) &&
             strings_add(&argv, strdup(line.data));
        strbuf_free(&line);
    }
    if (ok && !r.env.items)
        ok = env_merge(NIL, &r.env) > 0;
    if (!ok) {
        result = bif_out_of_memory(self);
        goto done;
    }
    extern char **environ;
    r.spec.file = executable ? command.data : "/bin/sh";
    r.spec.argv = argv.items;
    r.spec.envp = r.env.items ? r.env.items : environ;
    r.spec.cd = r.has_cd ? r.cd.data : NULL;
    r.spec.name = command.data;
    int error = 0;
    result = ports_open(self, &r.spec, &error);
    if (is_non_value(result))
        result = error == ENOMEM ? bif_out_of_memory(self) : bif_error(self, errno_atom(error));
done:
    strings_free(&argv);
    strbuf_free(&command);
    request_free(&r);
    return result;
}

/* The outcome of an operation on a port as its builtin answers. */
static term outcome_answer(struct process *self, enum port_outcome outcome)
{
    switch (outcome) {
    case PORT_DONE:
        return A(true);
    case PORT_NO_MEMORY:
        return bif_out_of_memory(self);
    case PORT_NOT_OPEN:
    case PORT_BAD_DATA:
        break;
    }
    return bif_badarg(self);
}

static term port_command(struct process *self, term port, term data)
{
    uint8_t *bytes;
    size_t size;
    if (!is_port(port) || !bif_iodata_bytes(data, &bytes, &size))
        return bif_badarg(self);
    term answer = outcome_answer(self, ports_command(self, port, bytes, size));
    free(bytes);
    return answer;
}

static term bif_port_command_2(struct process *self, const term *args) { return port_command(self, args[0], args[1]); }

static term bif_port_command_3(struct process *self, const term *args)
{
    if (bif_list_length(args[2]) < 0)
        return bif_badarg(self);
    for (term l = args[2]; is_list(l); l = list_tail(l))
        if (list_head(l) != A(force) && list_head(l) != A(nosuspend))
            return bif_badarg(self);
    return port_command(self, args[0], args[1]); /* never busy: nosuspend sends too */
}

static term bif_port_close(struct process *self, const term *args)
{
    if (!is_port(args[0]))
        return bif_badarg(self);
    return outcome_answer(self, ports_close(self, args[0], false));
}

static term bif_port_connect(struct process *self, const term *args)
{
    if (!is_port(args[0]) || !is_pid(args[1]))
        return bif_badarg(self);
    return outcome_answer(self, ports_connect(self, args[0], args[1], false));
}

/* erts logs a command message whose data is no iodata. */
static void report_bad_value(struct process *self, term port)
{
    struct port_snapshot snap;
    bool refused;
    if (!ports_snapshot(self->sched, port, &snap, &refused))
        return;
    error_report_bad_port_value(snap.name, node_system_time_ns(self));
    ports_snapshot_free(&snap);
}

void bif_port_message(struct process *self, term port, term msg)
{
    term connected = ports_connected(self->sched, port);
    if (is_non_value(connected))
        return; /* a closed port drops what is sent to it */
    term request = is_tuple(msg) && tuple_arity(msg) == 2 && tuple_elements(msg)[0] == connected
                       ? tuple_elements(msg)[1]
                       : THE_NON_VALUE;
    term op = is_tuple(request) && tuple_arity(request) == 2 ? tuple_elements(request)[0] : THE_NON_VALUE;
    enum port_outcome outcome = PORT_BAD_DATA;
    if (request == A(close)) {
        outcome = ports_close(self, port, true);
    } else if (op == A(connect) && is_pid(tuple_elements(request)[1])) {
        outcome = ports_connect(self, port, tuple_elements(request)[1], true);
    } else if (op == A(command)) {
        uint8_t *bytes;
        size_t size;
        if (bif_iodata_bytes(tuple_elements(request)[1], &bytes, &size)) {
            outcome = ports_command(self, port, bytes, size);
            free(bytes);
        } else {
            report_bad_value(self, port);
        }
    }
    if (outcome == PORT_NO_MEMORY)
        sched_runtime_failure(self, "out of memory for a port's command");
    else if (outcome != PORT_DONE)
        ports_exit(self, port, A(badsig)); /* OTP: a bad port message ends the port */
}

/* ---- port_info ---- */

static term pid_list(struct process *self, const term *pids, size_t n) { return bif_make_list(self, pids, n); }

/* One item of port_info/2 as {Item, Value}; THE_NON_VALUE with nothing
 * recorded for an item OTP does not know (the caller raises badarg). */
static term info_item(struct process *self, const struct port_snapshot *snap, term item, bool *unknown)
{
    heap_t *h = &self->heap;
    term value;
    *unknown = false;
    if (item == A(name))
        value = heap_string(h, snap->name, strlen(snap->name));
    else if (item == A(links))
        value = pid_list(self, snap->links, snap->link_count);
    else if (item == A(id))
        value = make_small((int64_t)port_number(snap->id));
    else if (item == A(connected))
        value = snap->connected;
    else if (item == A(input))
        value = int_from_uint64(h, snap->input);
    else if (item == A(output))
        value = int_from_uint64(h, snap->output);
    else if (item == A(os_pid))
        value = snap->os_pid ? make_small(snap->os_pid) : A(undefined);
    else if (item == A(monitored_by))
        value = pid_list(self, snap->watchers, snap->watcher_count);
    else if (item == A(monitors) || item == A(registered_name))
        value = NIL;
    else if (item == A(queue_size))
        value = make_small(0);
    else {
        *unknown = true;
        return THE_NON_VALUE;
    }
    if (item == A(registered_name))
        return NIL; /* OTP's answer for a port with no name */
    return is_value(value) ? heap_tuple2(h, item, value) : value;
}

static term port_info(struct process *self, term port, term item)
{
    if (is_atom(port))
        return A(undefined); /* no port has a registered name */
    if (!is_port(port) || (is_value(item) && !is_atom(item)))
        return bif_badarg(self);
    struct port_snapshot snap;
    bool refused;
    if (!ports_snapshot(self->sched, port, &snap, &refused)) {
        if (refused)
            return bif_out_of_memory(self);
        /* A closed port: undefined, once the item is one OTP knows. */
        struct port_snapshot none = {.name = ""};
        bool unknown = false;
        if (is_value(item))
            info_item(self, &none, item, &unknown);
        return unknown ? bif_badarg(self) : A(undefined);
    }
    term result;
    bool unknown = false;
    if (is_value(item)) {
        result = info_item(self, &snap, item, &unknown);
    } else {
        term items[7] = {A(name), A(links), A(id), A(connected), A(input), A(output), A(os_pid)};
        term values[7];
        result = NIL;
        for (size_t i = 0; i < 7 && is_value(result); i++) {
            values[i] = info_item(self, &snap, items[i], &unknown);
            if (is_non_value(values[i]))
                result = THE_NON_VALUE;
        }
        if (is_value(result))
            result = bif_make_list(self, values, 7);
    }
    ports_snapshot_free(&snap);
    if (unknown)
        return bif_badarg(self);
    return is_value(result) ? result : bif_out_of_memory(self);
}

static term bif_port_info_1(struct process *self, const term *args) { return port_info(self, args[0], THE_NON_VALUE); }
static term bif_port_info_2(struct process *self, const term *args) { return port_info(self, args[0], args[1]); }

static term bif_ports(struct process *self, const term *args)
{
    (void)args;
    size_t n;
    term *ids = ports_list(self->sched, &n);
    term list = bif_make_list(self, ids, n);
    free(ids);
    return is_value(list) ? list : bif_out_of_memory(self);
}

const struct bif_def bif_table_ports[] = {
    {"erlang", "open_port", 2, bif_open_port, 0},
    {"erlang", "port_command", 2, bif_port_command_2, 0},
    {"erlang", "port_command", 3, bif_port_command_3, 0},
    {"erlang", "port_close", 1, bif_port_close, 0},
    {"erlang", "port_connect", 2, bif_port_connect, 0},
    {"erlang", "port_info", 1, bif_port_info_1, 0},
    {"erlang", "port_info", 2, bif_port_info_2, 0},
    {"erlang", "ports", 0, bif_ports, 0},
    {NULL, NULL, 0, NULL, 0},
};
