/*
 * introspection.c — builtins that look at processes and the node:
 * process_info/1,2, processes/0, group_leader/0,2, garbage_collect/0,1,2,
 * yield/0, bump_reductions/1, and the node builtins of a node that is not distributed
 * (nodes/0,1,2, node/1, is_alive/0, monitor_node/2,3, disconnect_node/1).
 *
 * Another process is read under the executor mutex and its terms copied
 * into the caller's heap; one running on another worker is read once its
 * slice ended (the caller blocks and repeats, holding it meanwhile).
 */
#include "beam/interp.h"
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/message.h"
#include "rt/node.h"
#include "rt/proc_dict.h"
#include "rt/proc_gc.h"
#include "rt/signals.h"
#include "term/atom.h"
#include "term/copy.h"
#include "term/map.h"

#include <stdlib.h>

/* The items process_info/2 answers, in process_info/1's order after
 * registered_name (which /1 leaves out). */
static const int info_items[] = {
    ATOM_INDEX_registered_name, ATOM_INDEX_status,        ATOM_INDEX_message_queue_len,
    ATOM_INDEX_messages,        ATOM_INDEX_links,         ATOM_INDEX_monitors,
    ATOM_INDEX_monitored_by,    ATOM_INDEX_dictionary,    ATOM_INDEX_trap_exit,
    ATOM_INDEX_group_leader,    ATOM_INDEX_heap_size,     ATOM_INDEX_total_heap_size,
    ATOM_INDEX_stack_size,      ATOM_INDEX_memory,        ATOM_INDEX_reductions,
    ATOM_INDEX_priority,        ATOM_INDEX_error_handler, ATOM_INDEX_garbage_collection,
};
#define INFO_ITEMS (sizeof info_items / sizeof info_items[0])

/* OTP 25's other items: clause does not keep them ({notsup, Item}). */
static const char *const unkept_items[] = {
    "backtrace",
    "binary",
    "catchlevel",
    "current_function",
    "current_location",
    "garbage_collection_info",
    "initial_call",
    "last_calls",
    "message_queue_data",
    "parent",
    "sequential_trace_token",
    "suspending",
    "trace",
    "async_dist",
};

static bool is_kept_item(term item)
{
    for (size_t i = 0; i < INFO_ITEMS; i++)
        if (item == make_atom((uint32_t)info_items[i]))
            return true;
    return false;
}

static bool is_unkept_item(term item)
{
    if (!is_atom(item))
        return false;
    for (size_t i = 0; i < sizeof unkept_items / sizeof unkept_items[0]; i++)
        if (item == atom_intern_cstr(unkept_items[i]))
            return true;
    return false;
}

/* A copy on self's heap of a term on q's (q may be self). */
static term copy_from(struct process *self, struct process *q, term t)
{
    return q == self || is_immed(t) ? t : copy_to_heap(&self->heap, t);
}

static term status_of(struct process *self, struct process *q)
{
    if (q == self)
        return A(running);
    if (proc_signals_of(q)->suspends > 0)
        return A(suspended);
    return proc_state(q) == PROC_WAITING ? A(waiting) : A(runnable);
}

static term stack_words(const struct process *q) { return make_small((int64_t)proc_stack_in_use(q)); }

static term messages_of(struct process *self, struct process *q)
{
    struct list_builder b;
    list_builder_init(&b);
    struct mailbox *mb = &q->mailbox;
    for (int part = 0; part < 2; part++) {
        for (struct message *m = part == 0 ? mb->head : mb->inbox_head; m; m = m->next) {
            term copy = copy_from(self, q, m->payload);
            if (is_non_value(copy) || !list_builder_add(&b, &self->heap, copy))
                return THE_NON_VALUE;
        }
    }
    return b.list;
}

static term garbage_collection_of(struct process *self, struct process *q)
{
    heap_t *h = &self->heap;
    struct proc_max_heap m = proc_max_heap(q);
    term max = bif_max_heap_map(h, &m);
    /* OTP's minor_gcs: minor collections since the last full sweep. */
    term items[5] = {
        is_value(max) ? heap_tuple2(h, A(max_heap_size), max) : max,
        heap_tuple2(h, A(min_bin_vheap_size), make_small(HEAP_BIN_VHEAP_MIN_WORDS)),
        heap_tuple2(h, A(min_heap_size), make_small((int64_t)proc_min_heap_size(q))),
        heap_tuple2(h, A(fullsweep_after), make_small((int64_t)q->heap.fullsweep_after)),
        heap_tuple2(h, A(minor_gcs), make_small((int64_t)q->heap.minor_gcs)),
    };
    for (int i = 0; i < 5; i++)
        if (is_non_value(items[i]))
            return THE_NON_VALUE;
    return heap_list_from_array(h, items, 5);
}

/* The value of one kept item of q, on self's heap (THE_NON_VALUE when the
 * heap refused). registered_name gives THE_NON_VALUE in *unnamed when q
 * has no name, for the caller to lay out. */
static term item_value(struct process *self, struct process *q, term item)
{
    heap_t *h = &self->heap;
    size_t heap_words = heap_block_words(&q->heap);
    size_t all_heap_words = heap_words + heap_old_block_words(&q->heap) + q->heap.frag_words;
    switch (atom_index(item)) {
    case ATOM_INDEX_registered_name:
        return is_value(q->registered_name) ? q->registered_name : NIL;
    case ATOM_INDEX_status:
        return status_of(self, q);
    case ATOM_INDEX_message_queue_len:
        return make_small((int64_t)mailbox_length(&q->mailbox));
    case ATOM_INDEX_messages:
        return messages_of(self, q);
    case ATOM_INDEX_links:
        return signals_links_list_locked(q, h);
    case ATOM_INDEX_monitors:
        return signals_monitors_list_locked(q, h);
    case ATOM_INDEX_monitored_by:
        return signals_monitored_by_list_locked(q, h);
    case ATOM_INDEX_dictionary: /* get/0's list; another's entries copied, as copy_from's terms */
        return q == self ? proc_dict_list(q->dictionary, h, PROC_DICT_PAIRS, THE_NON_VALUE)
                         : proc_dict_copy_pairs(q->dictionary, h);
    case ATOM_INDEX_trap_exit:
        return q->trap_exit ? A(true) : A(false);
    case ATOM_INDEX_group_leader: /* the user server started before (leader_asked) */
        return q->group_leader == IO_LEADER_USER ? io_server_started(self->sched, IO_SERVER_USER) : q->group_leader;
    case ATOM_INDEX_heap_size:
        return make_small((int64_t)heap_words);
    case ATOM_INDEX_total_heap_size:
        return make_small((int64_t)all_heap_words); /* OTP: every generation */
    case ATOM_INDEX_stack_size:
        return stack_words(q);
    case ATOM_INDEX_memory:
        /* Bytes: the context, the heap with its fragments and off-heap
         * binaries, the dictionary's table, and a stack that outgrew the
         * context. */
        return make_small((int64_t)(proc_context_bytes(q) + all_heap_words * sizeof(term) + q->heap.off_heap_bytes +
                                    q->heap.old->off_heap_bytes + proc_dict_bytes(q->dictionary) +
                                    (q->stack != q->stack_inline ? q->stack_words * sizeof(term) : 0)));
    case ATOM_INDEX_reductions:
        return make_small(0); /* the seed: reductions are not reported */
    case ATOM_INDEX_priority:
        return bif_priority_atom(sched_proc_priority(q)); /* normal unless the policy honours priorities */
    case ATOM_INDEX_error_handler:
        return A(error_handler);
    case ATOM_INDEX_garbage_collection:
        return garbage_collection_of(self, q);
    case ATOM_INDEX_max_heap_size: {
        struct proc_max_heap m = proc_max_heap(q);
        return bif_max_heap_map(h, &m);
    }
    case ATOM_INDEX_min_bin_vheap_size: /* every process's (the setting is checked, not applied) */
        return make_small(HEAP_BIN_VHEAP_MIN_WORDS);
    case ATOM_INDEX_min_heap_size: /* OTP's units (the stack's words included) */
        return make_small((int64_t)proc_min_heap_size(q));
    case ATOM_INDEX_fullsweep_after:
        return make_small((int64_t)q->heap.fullsweep_after);
    case ATOM_INDEX_current_stacktrace: /* where it waits: gen_server's report of a client */
        return q == self ? beam_current_stacktrace(self) : beam_stacktrace_of(self, q);
    default:
        return THE_NON_VALUE;
    }
}

/* {Item, Value}, or THE_NON_VALUE with the exception recorded. */
static term item_pair(struct process *self, struct process *q, term item)
{
    term value = item_value(self, q, item);
    term pair = is_value(value) ? heap_tuple2(&self->heap, item, value) : value;
    return is_value(pair) ? pair : bif_out_of_memory(self);
}

/* Checks an item: badarg for unknown ones, {notsup, Item} for OTP's items
 * clause does not keep. */
static bool check_item(struct process *self, term item)
{
    /* Kept, but not among process_info/1's items (nor are they on OTP). */
    if (is_kept_item(item) || item == A(current_stacktrace) || item == A(max_heap_size) || item == A(min_heap_size) ||
        item == A(min_bin_vheap_size) || item == A(fullsweep_after))
        return true;
    if (is_unkept_item(item)) {
        term reason = heap_tuple2(&self->heap, A(notsup), item);
        if (is_non_value(reason))
            bif_out_of_memory(self);
        else
            bif_error(self, reason);
        return false;
    }
    bif_badarg(self);
    return false;
}

/* Answers for q (self, or a process that does not run), executor mutex
 * held. what: an item, a list of items, or THE_NON_VALUE for /1. */
static term answer_locked(struct process *self, struct process *q, term what)
{
    /* Arrivals join the mailbox first, so the counts include them. */
    if (!message_take_all_arrivals(q, self->last_worker)) {
        sched_runtime_failure_locked(self->sched, q->pid, "its heap refused a message");
        return bif_raise(self, FAULT_SYSTEM, A(system_limit));
    }
    if (is_non_value(what)) {
        struct list_builder b;
        list_builder_init(&b);
        for (size_t i = 1; i < INFO_ITEMS; i++) {
            term pair = item_pair(self, q, make_atom((uint32_t)info_items[i]));
            if (is_non_value(pair))
                return pair;
            if (!list_builder_add(&b, &self->heap, pair))
                return bif_out_of_memory(self);
        }
        return b.list;
    }
    if (is_atom(what)) {
        /* registered_name alone answers [] for a process without a name. */
        if (what == A(registered_name) && is_non_value(q->registered_name))
            return NIL;
        return item_pair(self, q, what);
    }
    struct list_builder b;
    list_builder_init(&b);
    for (term l = what; is_list(l); l = list_tail(l)) {
        term pair = item_pair(self, q, list_head(l));
        if (is_non_value(pair))
            return pair;
        if (!list_builder_add(&b, &self->heap, pair))
            return bif_out_of_memory(self);
    }
    return b.list;
}

/* process_info asks for the group leader (what: an item, a list of them,
 * or THE_NON_VALUE for every item): a leader that is the user server not
 * yet started is started now, as the answer, made under the executor
 * mutex, cannot start it. */
static void leader_asked(struct process *self, term what)
{
    bool asked = is_non_value(what) || what == A(group_leader);
    for (term l = what; is_value(l) && is_list(l) && !asked; l = list_tail(l))
        asked = list_head(l) == A(group_leader);
    if (asked && io_servers_enabled(self->sched))
        io_server_pid(self, IO_SERVER_USER);
}

static term bif_process_info_1(struct process *self, const term *args)
{
    if (!is_pid(args[0]))
        return bif_badarg(self);
    leader_asked(self, THE_NON_VALUE);
    return bif_on_process(self, args[0], A(undefined), answer_locked, THE_NON_VALUE);
}

static term bif_process_info_2(struct process *self, const term *args)
{
    term what = args[1];
    if (!is_pid(args[0]))
        return bif_badarg(self);
    if (is_list(what) || what == NIL) {
        if (bif_list_length(what) < 0)
            return bif_badarg(self);
        for (term l = what; is_list(l); l = list_tail(l))
            if (!check_item(self, list_head(l)))
                return THE_NON_VALUE;
    } else if (!check_item(self, what)) {
        return THE_NON_VALUE;
    }
    leader_asked(self, what);
    return bif_on_process(self, args[0], A(undefined), answer_locked, what);
}

static int by_pid_number(const void *a, const void *b)
{
    uint64_t x = ((const struct proc_table_entry *)a)->pid, y = ((const struct proc_table_entry *)b)->pid;
    return x < y ? -1 : x > y;
}

/* Live pids in creation order: pid numbers grow with each spawn. */
static term bif_processes(struct process *self, const term *args)
{
    (void)args;
    struct proc_table_entry *live = NULL;
    size_t n = 0;
    if (!node_processes(self, &live, &n)) {
        sched_runtime_failure(self, "out of memory listing processes");
        return bif_raise(self, FAULT_SYSTEM, A(system_limit));
    }
    qsort(live, n, sizeof *live, by_pid_number);
    struct list_builder b;
    list_builder_init(&b);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok = list_builder_add(&b, &self->heap, make_pid(live[i].pid));
    free(live);
    return ok ? b.list : bif_out_of_memory(self);
}

static term bif_group_leader_0(struct process *self, const term *args)
{
    (void)args;
    term leader = io_group_leader(self, self->group_leader);
    return is_value(leader) ? leader : bif_out_of_memory(self);
}

static term set_group_leader(struct process *self, struct process *q, term leader)
{
    (void)self;
    q->group_leader = leader;
    return A(true);
}

static term bif_group_leader_2(struct process *self, const term *args)
{
    if (!is_pid(args[0]) || !is_pid(args[1]))
        return bif_badarg(self);
    term result = bif_on_process(self, args[1], THE_NON_VALUE, set_group_leader, args[0]);
    if (is_non_value(result) && self->fault_class == FAULT_NONE)
        return bif_badarg(self); /* no live process */
    return result;
}

static term request_collection(struct process *self, struct process *q, term arg)
{
    (void)self;
    (void)arg;
    heap_request_gc(&q->heap); /* at its next safepoint */
    return A(true);
}

/* garbage_collect(Pid, Options): {async, RequestId} answers with a
 * message; {type, major | minor} is accepted. */
static term garbage_collect(struct process *self, term pid, term options)
{
    /* As OTP checks: the options' shape (cause bad_option), then the pid,
     * then the type's value (plain badarg). */
    if (bif_list_length(options) < 0)
        return bif_badarg_cause(self, A(bad_option));
    term async = THE_NON_VALUE;
    bool bad_type = false;
    for (term l = options; is_list(l); l = list_tail(l)) {
        term o = list_head(l);
        if (!is_tuple(o) || tuple_arity(o) != 2)
            return bif_badarg_cause(self, A(bad_option));
        term key = tuple_elements(o)[0], value = tuple_elements(o)[1];
        if (key == A(async))
            async = value;
        else if (key == A(type))
            bad_type = bad_type || (value != A(major) && value != A(minor));
        else
            return bif_badarg_cause(self, A(bad_option));
    }
    if (!is_pid(pid) || bad_type)
        return bif_badarg(self);
    term done = bif_on_process(self, pid, A(false), request_collection, NIL);
    if (is_non_value(done) || is_non_value(async))
        return done;
    term reply = heap_tuple3(&self->heap, A(garbage_collect), async, done);
    if (is_non_value(reply))
        return bif_out_of_memory(self);
    if (sched_send(self, self->pid, reply) != SEND_OK)
        return bif_raise(self, FAULT_SYSTEM, A(system_limit));
    return A(async);
}

static term bif_garbage_collect_0(struct process *self, const term *args)
{
    (void)args;
    heap_request_gc(&self->heap);
    return A(true);
}

static term bif_garbage_collect_1(struct process *self, const term *args)
{
    return garbage_collect(self, args[0], NIL);
}

static term bif_garbage_collect_2(struct process *self, const term *args)
{
    return garbage_collect(self, args[0], args[1]);
}

/* yield/0: the slice ends at the next function entry. */
static term bif_yield(struct process *self, const term *args)
{
    (void)args;
    self->reds_left = 0;
    return A(true);
}

/* ---- a node that is not distributed ---- */

static term bif_nodes_0(struct process *self, const term *args)
{
    (void)self;
    (void)args;
    return NIL;
}

/* nodes(Type | [Type]): this and known name this node, the others none. */
static bool valid_node_type(term t)
{
    return t == A(this) || t == A(known) || t == A(visible) || t == A(hidden) || t == A(connected);
}

static term nodes_of(struct process *self, term types, bool *includes_this)
{
    *includes_this = false;
    if (is_atom(types)) {
        if (!valid_node_type(types))
            return bif_badarg(self);
        *includes_this = types == A(this) || types == A(known);
        return A(true);
    }
    if (bif_list_length(types) < 0)
        return bif_badarg(self);
    for (term l = types; is_list(l); l = list_tail(l)) {
        if (!valid_node_type(list_head(l)))
            return bif_badarg(self);
        if (list_head(l) == A(this) || list_head(l) == A(known))
            *includes_this = true;
    }
    return A(true);
}

static term bif_nodes_1(struct process *self, const term *args)
{
    bool this_node;
    if (is_non_value(nodes_of(self, args[0], &this_node)))
        return THE_NON_VALUE;
    if (!this_node)
        return NIL;
    term list = heap_cons(&self->heap, A(nonode_at_nohost), NIL);
    return is_value(list) ? list : bif_out_of_memory(self);
}

/* nodes(Types, #{connection_id => B, node_type => B}). */
static term bif_nodes_2(struct process *self, const term *args)
{
    bool this_node;
    if (is_non_value(nodes_of(self, args[0], &this_node)))
        return THE_NON_VALUE;
    if (!is_map(args[1]))
        return bif_badarg(self);
    term keys[2], values[2];
    size_t n = 0;
    struct map_iter it;
    map_iter_init(&it, args[1]);
    term key, value;
    bool want_id = false, want_type = false;
    while (map_iter_next(&it, &key, &value)) {
        if ((key != A(connection_id) && key != A(node_type)) || (value != A(true) && value != A(false)))
            return bif_badarg(self);
        if (key == A(connection_id))
            want_id = value == A(true);
        else
            want_type = value == A(true);
    }
    if (!this_node)
        return NIL;
    if (want_id) {
        keys[n] = A(connection_id);
        values[n++] = A(undefined);
    }
    if (want_type) {
        keys[n] = A(node_type);
        values[n++] = A(this);
    }
    term info = map_from_pairs(&self->heap, keys, values, n);
    term pair = is_value(info) ? heap_tuple2(&self->heap, A(nonode_at_nohost), info) : info;
    term list = is_value(pair) ? heap_cons(&self->heap, pair, NIL) : pair;
    return is_value(list) ? list : bif_out_of_memory(self);
}

static term bif_node_1(struct process *self, const term *args)
{
    term t = args[0];
    if (!is_pid(t) && !is_port(t) && !is_ref(t))
        return bif_badarg(self);
    return A(nonode_at_nohost);
}

static term bif_is_alive(struct process *self, const term *args)
{
    (void)self;
    (void)args;
    return A(false);
}

static term bif_monitor_node(struct process *self, const term *args)
{
    if (!is_atom(args[0]) || (args[1] != A(true) && args[1] != A(false)))
        return bif_badarg(self);
    return bif_error(self, A(notalive));
}

static term bif_disconnect_node(struct process *self, const term *args)
{
    if (!is_atom(args[0]))
        return bif_badarg(self);
    return A(ignored);
}

/* bump_reductions(N): spends N reductions of the slice (the rest of it
 * when N is larger), so the process yields sooner, as in OTP; N is a
 * non-negative small integer (OTP refuses bignums). */
static term bif_bump_reductions(struct process *self, const term *args)
{
    term n = args[0];
    if (!is_small(n) || small_value(n) < 0)
        return bif_badarg(self);
    if (small_value(n) >= self->reds_left)
        self->reds_left = self->reds_left > 0 ? 0 : self->reds_left;
    else
        self->reds_left -= (int32_t)small_value(n);
    return A(true);
}

const struct bif_def bif_table_introspection[] = {
    {"erlang", "bump_reductions", 1, bif_bump_reductions, BIF_NOHEAP},
    {"erlang", "process_info", 1, bif_process_info_1, 0},
    {"erlang", "process_info", 2, bif_process_info_2, 0},
    {"erlang", "processes", 0, bif_processes, 0},
    {"erlang", "group_leader", 0, bif_group_leader_0, 0},
    {"erlang", "group_leader", 2, bif_group_leader_2, 0},
    {"erlang", "garbage_collect", 0, bif_garbage_collect_0, 0},
    {"erlang", "garbage_collect", 1, bif_garbage_collect_1, 0},
    {"erlang", "garbage_collect", 2, bif_garbage_collect_2, 0},
    {"erlang", "yield", 0, bif_yield, 0},
    {"erlang", "nodes", 0, bif_nodes_0, 0},
    {"erlang", "nodes", 1, bif_nodes_1, 0},
    {"erlang", "nodes", 2, bif_nodes_2, 0},
    {"erlang", "node", 1, bif_node_1, BIF_GUARD},
    {"erlang", "is_alive", 0, bif_is_alive, 0},
    {"erlang", "monitor_node", 2, bif_monitor_node, 0},
    {"erlang", "monitor_node", 3, bif_monitor_node, 0},
    {"erlang", "disconnect_node", 1, bif_disconnect_node, 0},
    {NULL, NULL, 0, NULL, 0},
};
