/*
 * system_info.c — what the node is: system_info/1 for the items that mean
 * something to a single node that runs no dirty schedulers, system_flag/2 for the flags clause can honour, memory/0,1.
 *
 * Items answer in OTP 25's shapes. Where clause has no such thing, the
 * answer is what OTP gives for its absence: no
 * dirty schedulers (0), no async threads (thread_pool_size 0). Unknown
 * items and flags are badarg, as OTP.
 */
#include "beam/code_server.h"
#include "bif/bif.h"
#include "bif/bif_tables.h"
#include "bif/bif_util.h"
#include "rt/executor.h"
#include "rt/node.h"
#include "rt/ports.h"
#include "rt/proc_dict.h"
#include "rt/proc_gc.h"
#include "term/atom.h"
#include "term/gc.h"
#include "term/heap.h"
#include "term/map.h"

#include <ctype.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The ERTS release clause follows: OTP 25's. */
#define OTP_RELEASE "25"
#define ERTS_VERSION "13.1.5"
#define PORT_LIMIT 65536
/* clause refuses a spawn only when memory runs out; OTP's default limit is
 * what a program that sizes itself by it expects. */
#define PROCESS_LIMIT 262144
#define DEFAULT_BACKTRACE_DEPTH 8

static term atom_named(const char *name) { return atom_intern_cstr(name); }

static term text(struct process *p, const char *s)
{
    term t = heap_string(&p->heap, s, strlen(s));
    return is_value(t) ? t : bif_out_of_memory(p);
}

static term tagged(struct process *p, const char *tag, term value)
{
    term t = heap_tuple2(&p->heap, atom_named(tag), value);
    return is_value(t) ? t : bif_out_of_memory(p);
}

static long cpus_available(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return sysconf(_SC_NPROCESSORS_ONLN);
    return CPU_COUNT(&set);
}

static term checked_binary(struct process *p, const char *s)
{
    term t = bin_from_bytes(&p->heap, s, strlen(s));
    return is_value(t) ? t : bif_out_of_memory(p);
}

static term cpu_count(long n) { return n > 0 ? make_small(n) : atom_named("unknown"); }

static term system_version(struct process *p)
{
    char buf[160];
    unsigned n = node_worker_count(p);
    snprintf(buf, sizeof buf,
             "Erlang/OTP " OTP_RELEASE " [erts-" ERTS_VERSION "] [clause] [64-bit] [smp:%u:%u] [ds:0:0:0] "
             "[async-threads:0]\n",
             n, n);
    return text(p, buf);
}

/* Flags clause accepts without acting on them: the engine keeps 8 frames
 * in stack traces and its own heap sizing; the value is remembered (the
 * heap sizes rounded up to OTP's table, as OTP keeps them), so the next
 * call answers it as the old value and system_info/1 reports it, as OTP's
 * do. fullsweep_after is applied (bif_system_flag). */
static _Atomic int64_t backtrace_depth = DEFAULT_BACKTRACE_DEPTH;
static _Atomic int64_t min_heap_size = HEAP_DEFAULT_MIN_WORDS;
static _Atomic int64_t min_bin_vheap_size = HEAP_BIN_VHEAP_MIN_WORDS;

static term remembered(struct process *p, _Atomic int64_t *flag, term value, bool heap_size)
{
    if (!is_small(value) || small_value(value) < 0)
        return bif_badarg(p);
    int64_t kept = heap_size ? (int64_t)gc_next_heap_size((size_t)small_value(value)) : small_value(value);
    return make_small(atomic_exchange_explicit(flag, kept, memory_order_relaxed));
}

static term remembered_value(_Atomic int64_t *flag)
{
    return make_small(atomic_load_explicit(flag, memory_order_relaxed));
}

static term garbage_collection_defaults(struct process *p)
{
    heap_t *h = &p->heap;
    term items[4] = {
        heap_tuple2(h, atom_named("max_heap_size"), make_small((int64_t)proc_max_heap_default().size)),
        heap_tuple2(h, atom_named("min_bin_vheap_size"), remembered_value(&min_bin_vheap_size)),
        heap_tuple2(h, A(min_heap_size), remembered_value(&min_heap_size)),
        heap_tuple2(h, A(fullsweep_after), make_small((int64_t)heap_default_fullsweep_after())),
    };
    for (int i = 0; i < 4; i++)
        if (is_non_value(items[i]))
            return bif_out_of_memory(p);
    term list = heap_list_from_array(h, items, 4);
    return is_value(list) ? list : bif_out_of_memory(p);
}

/* The default max_heap_size of new processes (rt/proc_gc.h), as a map. */
static term max_heap_size(struct process *p)
{
    struct proc_max_heap m = proc_max_heap_default();
    term map = bif_max_heap_map(&p->heap, &m);
    return is_value(map) ? map : bif_out_of_memory(p);
}

/* {Family, Name}: unix and the kernel's name in lower case ({unix, linux}),
 * as OTP's. */
static term os_type(struct process *p)
{
    struct utsname u;
    char name[sizeof u.sysname] = "unknown";
    if (uname(&u) == 0) {
        size_t i = 0;
        for (; u.sysname[i] && i + 1 < sizeof name; i++)
            name[i] = (char)tolower((unsigned char)u.sysname[i]);
        name[i] = '\0';
    }
    term t = heap_tuple2(&p->heap, atom_named("unix"), atom_named(name));
    return is_value(t) ? t : bif_out_of_memory(p);
}

/* {Major, Minor, Release}: the leading numbers of the kernel's release
 * ("6.1.0-18-amd64" is {6, 1, 0}), missing ones 0, as OTP's. */
static term os_version(struct process *p)
{
    struct utsname u;
    int64_t v[3] = {0, 0, 0};
    if (uname(&u) == 0) {
        const char *c = u.release;
        for (int i = 0; i < 3 && isdigit((unsigned char)*c); i++) {
            while (isdigit((unsigned char)*c))
                v[i] = v[i] * 10 + (*c++ - '0');
            if (*c != '.')
                break;
            c++;
        }
    }
    term t = heap_tuple3(&p->heap, make_small(v[0]), make_small(v[1]), make_small(v[2]));
    return is_value(t) ? t : bif_out_of_memory(p);
}

static term system_info_tuple(struct process *p, term item)
{
    const term *e = tuple_elements(item);
    if (tuple_arity(item) == 2 && e[0] == atom_named("wordsize") &&
        (e[1] == atom_named("internal") || e[1] == atom_named("external")))
        return make_small(8);
    return bif_badarg(p);
}

static term bif_system_info(struct process *p, const term *args)
{
    term item = args[0];
    if (is_tuple(item))
        return system_info_tuple(p, item);
    if (!is_atom(item))
        return bif_badarg(p);
    if (atom_text_is(item, "schedulers") || atom_text_is(item, "schedulers_online"))
        return make_small(node_worker_count(p));
    if (atom_text_is(item, "schedulers_state")) {
        unsigned n = node_worker_count(p);
        term t = heap_tuple3(&p->heap, make_small(n), make_small(n), make_small(node_workers_awake(p)));
        return is_value(t) ? t : bif_out_of_memory(p);
    }
    if (atom_text_is(item, "scheduler_id"))
        return make_small(sched_proc_last_worker(p) + 1);
    if (atom_text_is(item, "logical_processors"))
        return cpu_count(sysconf(_SC_NPROCESSORS_CONF));
    if (atom_text_is(item, "logical_processors_online"))
        return cpu_count(sysconf(_SC_NPROCESSORS_ONLN));
    if (atom_text_is(item, "logical_processors_available"))
        return cpu_count(cpus_available());
    if (atom_text_is(item, "dirty_cpu_schedulers") || atom_text_is(item, "dirty_cpu_schedulers_online") ||
        atom_text_is(item, "dirty_io_schedulers") || atom_text_is(item, "thread_pool_size") ||
        atom_text_is(item, "creation") || atom_text_is(item, "trace_control_word"))
        return make_small(0);
    if (atom_text_is(item, "multi_scheduling"))
        return atom_named("enabled");
    if (atom_text_is(item, "multi_scheduling_blockers") || atom_text_is(item, "dist_ctrl"))
        return NIL;
    if (atom_text_is(item, "otp_release"))
        return text(p, OTP_RELEASE);
    if (atom_text_is(item, "version"))
        return text(p, ERTS_VERSION);
    if (atom_text_is(item, "machine"))
        return text(p, "BEAM");
    if (atom_text_is(item, "system_version"))
        return system_version(p);
    if (atom_text_is(item, "compat_rel"))
        return make_small(25);
    if (atom_text_is(item, "process_count"))
        return make_small((int64_t)node_process_count(p));
    if (atom_text_is(item, "process_limit"))
        return make_small(PROCESS_LIMIT);
    if (atom_text_is(item, "atom_count"))
        return make_small(atom_count());
    if (atom_text_is(item, "atom_limit"))
        return make_small(ATOM_TABLE_LIMIT);
    if (atom_text_is(item, "port_count"))
        return make_small((int64_t)ports_count(p->sched));
    if (atom_text_is(item, "port_limit"))
        return make_small(PORT_LIMIT);
    if (atom_text_is(item, "wordsize"))
        return make_small(8);
    if (atom_text_is(item, "smp_support") || atom_text_is(item, "threads"))
        return A(true);
    if (atom_text_is(item, "debug_compiled") || atom_text_is(item, "kernel_poll"))
        return A(false);
    if (atom_text_is(item, "heap_type"))
        return atom_named("private");
    if (atom_text_is(item, "build_type") || atom_text_is(item, "emu_type"))
        return atom_named("opt");
    if (atom_text_is(item, "emu_flavor"))
        return atom_named("emu"); /* an interpreter, not the JIT */
    if (atom_text_is(item, "dist"))
        return checked_binary(p, "=node:'nonode@nohost'\n=no_distribution\n");
    if (atom_text_is(item, "context_reductions"))
        return make_small(CONTEXT_REDS);
    if (atom_text_is(item, "time_offset"))
        return atom_named("final");
    if (atom_text_is(item, "time_warp_mode"))
        return atom_named("no_time_warp");
    if (atom_text_is(item, "message_queue_data"))
        return atom_named("on_heap");
    if (atom_text_is(item, "fullsweep_after"))
        return tagged(p, "fullsweep_after", make_small((int64_t)heap_default_fullsweep_after()));
    if (atom_text_is(item, "min_heap_size"))
        return tagged(p, "min_heap_size", remembered_value(&min_heap_size));
    if (atom_text_is(item, "min_bin_vheap_size"))
        return tagged(p, "min_bin_vheap_size", remembered_value(&min_bin_vheap_size));
    if (atom_text_is(item, "garbage_collection"))
        return garbage_collection_defaults(p);
    if (atom_text_is(item, "max_heap_size"))
        return max_heap_size(p);
    if (atom_text_is(item, "os_type"))
        return os_type(p);
    if (atom_text_is(item, "os_version"))
        return os_version(p);
    return bif_badarg(p);
}

/* ---- system_flag/2 ---- */

/* system_logger: who gets the runtime's own log events (rt/node.h). */
static term system_logger_flag(struct process *p, term value)
{
    if (!is_pid(value) && value != A(logger) && value != A(undefined))
        return bif_badarg(p);
    return node_set_system_logger(p, value);
}

static term bif_system_flag(struct process *p, const term *args)
{
    term flag = args[0], value = args[1];
    if (!is_atom(flag))
        return bif_badarg(p);
    /* The workers are started once: only the current count is accepted. */
    if (atom_text_is(flag, "schedulers_online")) {
        if (value != make_small(node_worker_count(p)))
            return bif_badarg(p);
        return value;
    }
    /* Never enabled: statistics(scheduler_wall_time) stays undefined. */
    if (atom_text_is(flag, "scheduler_wall_time"))
        return value == A(false) ? A(false) : bif_badarg(p);
    if (atom_text_is(flag, "backtrace_depth"))
        return remembered(p, &backtrace_depth, value, false);
    if (atom_text_is(flag, "fullsweep_after")) {
        /* Applied: the processes spawned from now on start with it. */
        if (!is_small(value) || small_value(value) < 0)
            return bif_badarg(p);
        term old = make_small((int64_t)heap_default_fullsweep_after());
        heap_set_default_fullsweep_after((unsigned long)small_value(value));
        return old;
    }
    if (atom_text_is(flag, "min_heap_size"))
        return remembered(p, &min_heap_size, value, true);
    if (atom_text_is(flag, "min_bin_vheap_size"))
        return remembered(p, &min_bin_vheap_size, value, true);
    if (flag == A(system_logger))
        return system_logger_flag(p, value);
    if (flag == A(max_heap_size)) {
        /* The processes spawned from now on start with it. */
        struct proc_max_heap m;
        if (!bif_max_heap_arg(value, (size_t)atomic_load_explicit(&min_heap_size, memory_order_relaxed), &m))
            return bif_badarg(p);
        term old = max_heap_size(p);
        if (is_value(old))
            proc_set_max_heap_default(m);
        return old;
    }
    return bif_badarg(p);
}

/* ---- memory/0,1 ---- */

struct memory_figures {
    uint64_t total, processes, processes_used, system, atom, atom_used, binary, code, ets;
    uint64_t pooled; /* of processes, the contexts: the executor's pool, not the C heap */
};

/* What a process holds: its context, young and old heap blocks and
 * fragments, its dictionary's table, and a stack that outgrew the context;
 * `used` counts the heap's used words instead of its blocks. */
static void add_process(const struct process *q, struct memory_figures *m)
{
    uint64_t stack = q->stack != q->stack_inline ? q->stack_words * sizeof(term) : 0;
    uint64_t base = proc_context_bytes(q) + stack + q->heap.frag_words * sizeof(term) + proc_dict_bytes(q->dictionary);
    m->processes += base + (heap_block_words(&q->heap) + heap_old_block_words(&q->heap)) * sizeof(term);
    m->processes_used += base + ((uint64_t)(q->heap.top - q->heap.start) + heap_old_words(&q->heap)) * sizeof(term);
    m->binary += q->heap.off_heap_bytes + q->heap.old->off_heap_bytes;
    m->pooled += sizeof *q;
}

static void visit_process(const struct process *q, bool whole, void *arg)
{
    struct memory_figures *m = arg;
    if (whole) {
        add_process(q, m);
    } else {
        m->processes += sizeof *q;
        m->processes_used += sizeof *q;
        m->pooled += sizeof *q;
    }
}

/* The processes: every one not running (its heap does not change while
 * the executor mutex is held), the caller, and only the context of one
 * running on another worker, whose heap moves under it. */
static bool process_figures(struct process *self, struct memory_figures *m)
{
    return node_each_process(self, visit_process, m);
}

/* The atom table's entries and text (each atom's text with its NUL, and an
 * entry of two words). */
static uint64_t atom_bytes(void)
{
    unsigned count = atom_count();
    uint64_t bytes = 0;
    for (unsigned i = 0; i < count; i++) {
        size_t len;
        atom_text(make_atom(i), &len);
        bytes += len + 1 + 2 * sizeof(uint64_t);
    }
    return bytes;
}

static bool memory_figures(struct process *p, struct memory_figures *m)
{
    *m = (struct memory_figures){0};
    if (!process_figures(p, m))
        return false;
    m->atom = m->atom_used = atom_bytes();
    struct code_server *cs = sched_engine(p->sched);
    m->code = cs ? code_loaded_bytes(cs) : 0; /* native processes only: no code */
    /* The system part: what the C heap holds beyond the processes' part of
     * it (their contexts are in the executor's pool), at least the parts
     * counted above. */
    struct mallinfo2 info = mallinfo2();
    uint64_t in_use = (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
    uint64_t counted = m->atom + m->binary + m->code, processes_in_heap = m->processes - m->pooled;
    m->system = in_use > processes_in_heap + counted ? in_use - processes_in_heap : counted;
    m->total = m->processes + m->system;
    return true;
}

static const char *const memory_keys[] = {"total",     "processes", "processes_used", "system", "atom",
                                          "atom_used", "binary",    "code",           "ets"};
#define MEMORY_KEYS (sizeof memory_keys / sizeof memory_keys[0])

static uint64_t memory_value(const struct memory_figures *m, size_t key)
{
    const uint64_t values[MEMORY_KEYS] = {m->total,     m->processes, m->processes_used, m->system, m->atom,
                                          m->atom_used, m->binary,    m->code,           m->ets};
    return values[key];
}

static size_t memory_key(term t)
{
    if (!is_atom(t))
        return MEMORY_KEYS;
    size_t k = 0;
    while (k < MEMORY_KEYS && !atom_text_is(t, memory_keys[k]))
        k++;
    return k;
}

static term memory_out_of_memory(struct process *p)
{
    sched_runtime_failure(p, "out of memory listing processes");
    return bif_raise(p, FAULT_SYSTEM, A(system_limit));
}

static term bif_memory_0(struct process *p, const term *args)
{
    (void)args;
    struct memory_figures m;
    if (!memory_figures(p, &m))
        return memory_out_of_memory(p);
    term pairs[MEMORY_KEYS];
    for (size_t k = 0; k < MEMORY_KEYS; k++) {
        term value = int_from_uint64(&p->heap, memory_value(&m, k));
        pairs[k] = is_value(value) ? heap_tuple2(&p->heap, atom_named(memory_keys[k]), value) : value;
        if (is_non_value(pairs[k]))
            return bif_out_of_memory(p);
    }
    term list = heap_list_from_array(&p->heap, pairs, MEMORY_KEYS);
    return is_value(list) ? list : bif_out_of_memory(p);
}

/* memory(Type) or memory([Type]): badarg for anything but OTP's keys. */
static term bif_memory_1(struct process *p, const term *args)
{
    term what = args[0];
    if (is_atom(what) ? memory_key(what) == MEMORY_KEYS : bif_list_length(what) < 0)
        return bif_badarg(p);
    for (term l = what; is_list(l); l = list_tail(l))
        if (memory_key(list_head(l)) == MEMORY_KEYS)
            return bif_badarg(p);
    struct memory_figures m;
    if (!memory_figures(p, &m))
        return memory_out_of_memory(p);
    if (is_atom(what)) {
        term value = int_from_uint64(&p->heap, memory_value(&m, memory_key(what)));
        return is_value(value) ? value : bif_out_of_memory(p);
    }
    struct list_builder b;
    list_builder_init(&b);
    for (term l = what; is_list(l); l = list_tail(l)) {
        term value = int_from_uint64(&p->heap, memory_value(&m, memory_key(list_head(l))));
        term pair = is_value(value) ? heap_tuple2(&p->heap, list_head(l), value) : value;
        if (is_non_value(pair) || !list_builder_add(&b, &p->heap, pair))
            return bif_out_of_memory(p);
    }
    return b.list;
}

/* init:get_arguments/0: the emulator flags the node was started with. A
 * clause program is started with none of OTP's (its own options are not
 * erl's), so the list is empty. erl_scan asks it (for -enable-feature)
 * before it scans an atom, so io_lib:write, io:read and friends need it. */
static term bif_init_get_arguments(struct process *p, const term *args)
{
    (void)p;
    (void)args;
    return NIL;
}

const struct bif_def bif_table_system_info[] = {
    {"init", "get_arguments", 0, bif_init_get_arguments, BIF_NOHEAP},
    {"erlang", "system_info", 1, bif_system_info, 0},
    {"erlang", "system_flag", 2, bif_system_flag, 0},
    {"erlang", "memory", 0, bif_memory_0, 0},
    {"erlang", "memory", 1, bif_memory_1, 0},
    {NULL, NULL, 0, NULL, 0},
};
