/*
 * signals.c — builtins of links, monitors and exit signals: link/1,
 * unlink/1, monitor/2,3, demonitor/1,2, exit/2 (and the seed's
 * exit_signal/2) and process_flag/2. The mechanisms are core/rt/signals.c's;
 * these check arguments as OTP 25 does and call the runtime, which takes
 * the executor mutex.
 */
#include "rt/signals.h"
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/aliases.h"
#include "rt/executor.h"
#include "rt/message.h"
#include "rt/names.h"
#include "rt/ports.h"
#include "rt/proc_gc.h"
#include "rt/resources.h"
#include "rt/suspend.h"
#include "term/atom.h"
#include "term/gc.h"
#include "term/map.h"

#include <stdlib.h>

/* The host refused memory for a link or monitor record. */
static term host_refused(struct process *self, const char *what)
{
    sched_runtime_failure(self, what);
    return bif_raise(self, FAULT_SYSTEM, A(system_limit));
}

/* A message from the runtime to the caller itself. */
static term send_self(struct process *self, term msg)
{
    if (is_non_value(msg))
        return bif_out_of_memory(self);
    if (sched_send(self, self->pid, msg) != SEND_OK)
        return bif_raise(self, FAULT_SYSTEM, A(system_limit));
    return A(true);
}

/* ---- links ---- */

static term bif_link(struct process *self, const term *args)
{
    term to = args[0];
    if (!is_pid(to) && !is_port(to))
        return bif_badarg(self);
    if (to == self->pid)
        return A(true);
    enum signal_outcome linked = is_pid(to)             ? signals_link(self, to)
                                 : ports_link(self, to) ? SIGNAL_DONE
                                                        : SIGNAL_NO_PROCESS;
    if (linked != SIGNAL_NO_PROCESS)
        return linked == SIGNAL_DONE ? A(true) : host_refused(self, "out of memory for a link");
    /* OTP's local link/1 to an ended process. */
    if (!self->trap_exit)
        return bif_error(self, A(noproc));
    return send_self(self, heap_tuple3(&self->heap, A(EXIT), to, A(noproc)));
}

static term bif_unlink(struct process *self, const term *args)
{
    term to = args[0];
    if (!is_pid(to) && !is_port(to))
        return bif_badarg(self);
    if (is_port(to))
        ports_unlink(self, to);
    else
        signals_unlink(self, to);
    return A(true);
}

/* ---- monitors ---- */

/* The message of a monitor whose target is gone already. */
static term send_noproc_down(struct process *self, term tag, term ref, term type, term object)
{
    term elements[5] = {tag, ref, type, object, A(noproc)};
    return send_self(self, heap_tuple(&self->heap, 5, elements));
}

/* A registered-name item: Name or {Name, nonode@nohost}. Sets *name, or
 * answers false (badarg) for another node or a malformed item. */
static bool monitor_name(term item, term *name)
{
    if (is_atom(item)) {
        *name = item;
        return true;
    }
    if (is_tuple(item) && tuple_arity(item) == 2 && is_atom(tuple_elements(item)[0]) &&
        tuple_elements(item)[1] == A(nonode_at_nohost)) {
        *name = tuple_elements(item)[0];
        return true;
    }
    return false;
}

static term monitor_process(struct process *self, term item, term tag, int alias)
{
    term name = THE_NON_VALUE;
    if (!is_pid(item) && !monitor_name(item, &name))
        return bif_badarg(self);
    if (is_value(name))
        names_ensure_service(self, name); /* a service not yet started is started, as a send would */
    term ref = heap_make_ref(&self->heap);
    if (is_non_value(ref))
        return bif_out_of_memory(self);
    enum signal_outcome made = signals_monitor(self, item, name, ref, tag, (enum monitor_alias)alias);
    if (made == SIGNAL_REFUSED)
        return host_refused(self, "out of memory for a monitor");
    if (made == SIGNAL_DONE)
        return ref;
    term object = is_value(name) ? heap_tuple2(&self->heap, name, A(nonode_at_nohost)) : item;
    if (is_non_value(object))
        return bif_out_of_memory(self);
    term sent = send_noproc_down(self, tag, ref, A(process), object);
    return is_value(sent) ? ref : sent;
}

/* A port that is not open (or a name: no port has one) gets its 'DOWN'
 * at once. A name that stands for a process is badarg, as a pid is. */
static term monitor_port(struct process *self, term item)
{
    term name = THE_NON_VALUE;
    if (!is_port(item) && !monitor_name(item, &name))
        return bif_badarg(self);
    if (is_value(name) && is_value(names_whereis(self, name)))
        return bif_badarg(self);
    term ref = heap_make_ref(&self->heap);
    term object = is_value(name) ? heap_tuple2(&self->heap, name, A(nonode_at_nohost)) : item;
    if (is_non_value(ref) || is_non_value(object))
        return bif_out_of_memory(self);
    if (is_port(item) && ports_monitor(self, item, ref))
        return ref;
    term sent = send_noproc_down(self, A(DOWN), ref, A(port), object);
    return is_value(sent) ? ref : sent;
}

/* monitor(time_offset, clock_service): a reference whose message never
 * comes, as OTP's on a node whose time offset does not change. */
static term monitor_time_offset(struct process *self, term item, term tag, int alias)
{
    if (item != A(clock_service))
        return bif_badarg(self);
    term ref = heap_make_ref(&self->heap);
    if (is_non_value(ref))
        return bif_out_of_memory(self);
    if (!signals_monitor_time_offset(self, ref, tag, (enum monitor_alias)alias))
        return host_refused(self, "out of memory for a monitor");
    return ref;
}

static term bif_monitor_2(struct process *self, const term *args)
{
    if (args[0] == A(process))
        return monitor_process(self, args[1], A(DOWN), MONITOR_NO_ALIAS);
    if (args[0] == A(port))
        return monitor_port(self, args[1]);
    if (args[0] == A(time_offset))
        return monitor_time_offset(self, args[1], A(DOWN), MONITOR_NO_ALIAS);
    return bif_badarg_cause(self, A(badtype)); /* a type OTP does not know */
}

static term bif_monitor_3(struct process *self, const term *args)
{
    term tag;
    int alias;
    if (!bif_monitor_options(args[2], &tag, &alias))
        return bif_badarg_cause(self, A(badopt));
    if (args[0] == A(process))
        return monitor_process(self, args[1], tag, alias);
    if (args[0] == A(port) && args[2] == NIL)
        return monitor_port(self, args[1]);
    if (args[0] == A(time_offset))
        return monitor_time_offset(self, args[1], tag, alias);
    if (args[0] != A(port))
        return bif_badarg_cause(self, A(badtype)); /* a type OTP does not know */
    return bif_badarg(self);
}

static bool is_monitor_message(term msg, void *ref)
{
    if (!is_tuple(msg) || tuple_arity(msg) != 5)
        return false;
    term r = tuple_elements(msg)[1], want = *(term *)ref;
    return is_ref(r) && ref_id_low(r) == ref_id_low(want) && ref_id_high(r) == ref_id_high(want);
}

static term demonitor(struct process *self, term ref, bool flush, bool info)
{
    if (!is_ref(ref))
        return bif_badarg(self);
    bool active = signals_demonitor(self, ref) || ports_demonitor(self, ref);
    if (flush && !active) {
        /* Its message may be among the arrivals still. */
        if (!message_take_all_arrivals(self, self->last_worker)) {
            sched_runtime_failure(self, "its heap refused a message");
            return bif_raise(self, FAULT_SYSTEM, A(system_limit));
        }
        mailbox_remove_first(&self->mailbox, is_monitor_message, &ref);
    }
    return info ? (active ? A(true) : A(false)) : A(true);
}

static term bif_demonitor_1(struct process *self, const term *args) { return demonitor(self, args[0], false, false); }

static term bif_demonitor_2(struct process *self, const term *args)
{
    bool flush = false, info = false;
    if (bif_list_length(args[1]) < 0)
        return bif_badarg(self);
    for (term l = args[1]; is_list(l); l = list_tail(l)) {
        if (list_head(l) == A(flush))
            flush = true;
        else if (list_head(l) == A(info))
            info = true;
        else
            return bif_badarg(self);
    }
    return demonitor(self, args[0], flush, info);
}

/* ---- exit signals ---- */

/* exit/2 to q, another process that does not run (executor mutex held). */
static term signal_exit(struct process *self, struct process *q, term reason)
{
    if (signals_exit_from_locked(self, q, reason))
        return A(true);
    return bif_raise(self, FAULT_SYSTEM, A(system_limit));
}

static term bif_exit_2(struct process *self, const term *args)
{
    term to = args[0], reason = args[1];
    /* The seed: a reference destination does nothing, even an alias. */
    if (is_ref(to))
        return A(true);
    if (is_port(to)) {
        ports_exit(self, to, reason);
        return A(true);
    }
    if (!is_pid(to))
        return bif_badarg(self);
    if (to == self->pid) {
        /* A signal to itself is not an exception: no catch sees it. */
        if (reason == A(kill))
            return bif_exited(self, A(killed));
        if (self->trap_exit)
            return send_self(self, heap_tuple3(&self->heap, A(EXIT), to, reason));
        return bif_exited(self, reason);
    }
    return bif_on_process(self, to, A(true), signal_exit, reason);
}

/* ---- aliases ---- */

static term make_alias(struct process *self, enum alias_mode mode)
{
    term ref = heap_make_ref(&self->heap);
    if (is_non_value(ref))
        return bif_out_of_memory(self);
    return aliases_add(self, ref, mode) ? ref : host_refused(self, "out of memory for an alias");
}

static term bif_alias_0(struct process *self, const term *args)
{
    (void)args;
    return make_alias(self, ALIAS_EXPLICIT);
}

/* alias([explicit_unalias | reply]). */
static term bif_alias_1(struct process *self, const term *args)
{
    enum alias_mode mode = ALIAS_EXPLICIT;
    if (bif_list_length(args[0]) < 0)
        return bif_badarg(self);
    for (term l = args[0]; is_list(l); l = list_tail(l)) {
        if (list_head(l) == A(reply))
            mode = ALIAS_REPLY;
        else if (list_head(l) == A(explicit_unalias))
            mode = ALIAS_EXPLICIT;
        else
            return bif_badarg(self);
    }
    return make_alias(self, mode);
}

static term bif_unalias(struct process *self, const term *args)
{
    if (!is_ref(args[0]))
        return bif_badarg(self);
    return aliases_remove(self, args[0]) ? A(true) : A(false);
}

/* ---- suspending ---- */

/* suspend_process(Pid, Options): asynchronous, {asynchronous, Tag},
 * unless_suspending. A synchronous suspend of a process running elsewhere
 * waits for its slice to end. */
static term suspend(struct process *self, term pid, term options)
{
    bool async = false, unless_suspending = false;
    term tag = THE_NON_VALUE;
    if (!is_pid(pid) || pid == self->pid || bif_list_length(options) < 0)
        return bif_badarg(self);
    for (term l = options; is_list(l); l = list_tail(l)) {
        term o = list_head(l);
        if (o == A(asynchronous)) {
            async = true;
        } else if (o == A(unless_suspending)) {
            unless_suspending = true;
        } else if (is_tuple(o) && tuple_arity(o) == 2 && tuple_elements(o)[0] == A(asynchronous)) {
            async = true;
            tag = tuple_elements(o)[1];
        } else {
            return bif_badarg(self);
        }
    }
    switch (suspend_process(self, pid, async, unless_suspending)) {
    case SUSPEND_NO_PROCESS:
        return bif_badarg(self);
    case SUSPEND_ALREADY:
        return A(false);
    case SUSPEND_BLOCKED:
        return bif_blocked(self);
    case SUSPEND_REFUSED:
        return host_refused(self, "out of memory for a suspend");
    case SUSPEND_DONE:
        break;
    }
    if (is_value(tag)) {
        term sent = send_self(self, heap_tuple2(&self->heap, tag, A(suspended)));
        if (is_non_value(sent))
            return sent;
    }
    return A(true);
}

static term bif_suspend_process_1(struct process *self, const term *args) { return suspend(self, args[0], NIL); }

static term bif_suspend_process_2(struct process *self, const term *args) { return suspend(self, args[0], args[1]); }

static term bif_resume_process(struct process *self, const term *args)
{
    if (!is_pid(args[0]) || args[0] == self->pid)
        return bif_badarg(self);
    return suspend_resume(self, args[0]) ? A(true) : bif_badarg(self);
}

/* ---- process flags ---- */

/* monitor_nodes subscriptions. OTP keeps a count per process and per set
 * of options; this node is never distributed, so no nodeup or nodedown
 * ever comes and the counts are all there is. A subscription's options:
 * the legacy form (process_flag(monitor_nodes, F), or {monitor_nodes, []})
 * is the list format; a map names list (true only), nodedown_reason and
 * connection_id (booleans, false as if absent) and node_type. */
enum {
    NODES_MON_LIST = 1,
    NODES_MON_DOWN_REASON = 2,
    NODES_MON_CONNECTION_ID = 4,
    NODES_MON_VISIBLE = 8,
    NODES_MON_HIDDEN = 16,
    NODES_MON_KEYS = 32,
};

/* A process's counts, kept as a resource (freed when it ends) so that a
 * process that never subscribes carries nothing. */
struct nodes_monitors {
    struct proc_resource res;
    uint32_t count[NODES_MON_KEYS];
};

static void release_nodes_monitors(struct proc_resource *r) { free(r); }

static const struct proc_resource_type nodes_monitors_type = {"monitor_nodes", release_nodes_monitors, false};

/* The options' key, or -1 for options OTP refuses (badarg). */
static int nodes_monitor_key(term options)
{
    if (options == NIL)
        return NODES_MON_LIST;
    if (!is_map(options))
        return -1;
    int key = 0;
    struct map_iter it;
    term k, v;
    map_iter_init(&it, options);
    while (map_iter_next(&it, &k, &v)) {
        if (k == atom_intern_cstr("list") && v == A(true)) {
            key |= NODES_MON_LIST;
        } else if (k == atom_intern_cstr("nodedown_reason") && (v == A(true) || v == A(false))) {
            key |= v == A(true) ? NODES_MON_DOWN_REASON : 0;
        } else if (k == atom_intern_cstr("connection_id") && (v == A(true) || v == A(false))) {
            key |= v == A(true) ? NODES_MON_CONNECTION_ID : 0;
        } else if (k == atom_intern_cstr("node_type") && v == atom_intern_cstr("visible")) {
            key |= NODES_MON_VISIBLE;
        } else if (k == atom_intern_cstr("node_type") && v == atom_intern_cstr("hidden")) {
            key |= NODES_MON_HIDDEN;
        } else if (k == atom_intern_cstr("node_type") && v == atom_intern_cstr("all")) {
            key |= NODES_MON_VISIBLE | NODES_MON_HIDDEN;
        } else {
            return -1;
        }
    }
    return key;
}

/* The count before: true adds a subscription, false drops them all, as
 * OTP 25 answers. */
static term monitor_nodes(struct process *self, term options, term on)
{
    int key = nodes_monitor_key(options);
    if (key < 0 || (on != A(true) && on != A(false)))
        return bif_badarg(self);
    struct nodes_monitors *m = (struct nodes_monitors *)proc_resource_of_type(self, &nodes_monitors_type);
    if (!m && on == A(false))
        return make_small(0);
    if (!m) {
        m = calloc(1, sizeof *m);
        if (!m)
            return host_refused(self, "out of memory for a node monitor");
        m->res.type = &nodes_monitors_type;
        proc_resource_attach(self, &m->res);
    }
    uint32_t old = m->count[key];
    m->count[key] = on == A(true) ? old + 1 : 0;
    return make_small((int64_t)old);
}

static term bif_process_flag(struct process *self, const term *args)
{
    term flag = args[0], value = args[1];
    if (flag == A(trap_exit)) {
        if (value != A(true) && value != A(false))
            return bif_badarg(self);
        bool old = self->trap_exit;
        self->trap_exit = value == A(true); /* read by others only while it does not run */
        return old ? A(true) : A(false);
    }
    if (flag == A(min_heap_size)) {
        if (!is_small(value) || small_value(value) < 0)
            return bif_badarg(self);
        term old = make_small((int64_t)proc_min_heap_size(self));
        /* From the next collection on. */
        self->heap.min_words = PROC_HEAP_FLOOR(gc_min_size_setting((size_t)small_value(value), HEAP_DEFAULT_MIN_WORDS));
        return old;
    }
    if (flag == A(fullsweep_after)) {
        if (!is_small(value) || small_value(value) < 0)
            return bif_badarg(self);
        term old = make_small((int64_t)self->heap.fullsweep_after);
        /* From the next collection on; saturated at 32 bits (OTP keeps 16). */
        self->heap.fullsweep_after = heap_saturate_u32((uint64_t)small_value(value));
        return old;
    }
    if (flag == A(min_bin_vheap_size)) {
        /* Checked and accepted, not applied (as spawn_opt's): every process
         * keeps the default minimum, which is the old value. */
        if (!is_small(value) || small_value(value) < 0)
            return bif_badarg(self);
        return make_small(HEAP_BIN_VHEAP_MIN_WORDS);
    }
    if (flag == A(message_queue_data)) {
        /* Where OTP keeps the queue; clause's is always the same, so the
         * setting is only remembered (logger's processes ask for off_heap). */
        if (value != A(off_heap) && value != A(on_heap))
            return bif_badarg(self);
        bool old = self->message_queue_off_heap;
        self->message_queue_off_heap = value == A(off_heap);
        return old ? A(off_heap) : A(on_heap);
    }
    if (flag == A(priority)) {
        if (value != A(low) && value != A(normal) && value != A(high) && value != A(max))
            return bif_badarg(self);
        /* Checked, and applied only under a policy that honours priorities;
         * under any other every process runs at normal. */
        if (!sched_policy(proc_sched(self))->honours_priority)
            return A(normal);
        term old = bif_priority_atom(sched_proc_priority(self));
        self->priority = (uint8_t)(value == A(max)    ? PRIORITY_MAX
                                   : value == A(high) ? PRIORITY_HIGH
                                   : value == A(low)  ? PRIORITY_LOW
                                                      : PRIORITY_NORMAL);
        return old;
    }
    if (flag == A(max_heap_size)) {
        /* From the next collection on; the old setting as a map. */
        struct proc_max_heap m, old = proc_max_heap(self);
        if (!bif_max_heap_arg(value, proc_min_heap_size(self), &m))
            return bif_badarg(self);
        term map = bif_max_heap_map(&self->heap, &old);
        if (is_non_value(map))
            return bif_out_of_memory(self);
        if (!proc_set_max_heap(self, m))
            return host_refused(self, "out of memory for a max_heap_size");
        return map;
    }
    if (flag == atom_intern_cstr("monitor_nodes"))
        return monitor_nodes(self, NIL, value);
    if (is_tuple(flag) && tuple_arity(flag) == 2 && tuple_elements(flag)[0] == atom_intern_cstr("monitor_nodes"))
        return monitor_nodes(self, tuple_elements(flag)[1], value);
    return bif_badarg_cause(self, A(badopt));
}

const struct bif_def bif_table_signals[] = {
    {"erlang", "link", 1, bif_link, 0},
    {"erlang", "unlink", 1, bif_unlink, 0},
    {"erlang", "monitor", 2, bif_monitor_2, 0},
    {"erlang", "monitor", 3, bif_monitor_3, 0},
    {"erlang", "demonitor", 1, bif_demonitor_1, 0},
    {"erlang", "demonitor", 2, bif_demonitor_2, 0},
    {"erlang", "exit", 2, bif_exit_2, 0},
    {"erlang", "exit_signal", 2, bif_exit_2, 0},
    {"erlang", "process_flag", 2, bif_process_flag, 0},
    {"erlang", "suspend_process", 1, bif_suspend_process_1, 0},
    {"erlang", "suspend_process", 2, bif_suspend_process_2, 0},
    {"erlang", "resume_process", 1, bif_resume_process, 0},
    {"erlang", "alias", 0, bif_alias_0, 0},
    {"erlang", "alias", 1, bif_alias_1, 0},
    {"erlang", "unalias", 1, bif_unalias, 0},
    {NULL, NULL, 0, NULL, 0},
};
