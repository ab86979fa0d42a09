/*
 * cpu_binding.h — the CPU topology and the binding of workers to CPUs
 * (seeds 000, "Workers" and "CPU binding").
 *
 * Design. Workers are unbound by default, as OTP's +sbt u: the OS places them
 * on any CPU of the program's affinity mask, and the default worker count is
 * the number of CPUs in that mask (so `taskset -c 0 prog` runs one worker).
 * --scheduler-cpus SET names an ordered list of CPUs; worker N binds itself to
 * the (N mod |SET|)-th CPU of it, round-robin as OTP's +sbt/+sct, and the
 * default worker count becomes |SET|. SET is
 *   performance  the fastest core class the program may run on,
 *   all          every CPU of the affinity mask, in ascending order,
 *   a list       `0-15`, `2,4,6`, `0-3,8,10-11`: CPUs 0 to 1023, each of them
 *                in the affinity mask, kept in the order written.
 * A list names every CPU at most once (`0,0` and `0-3,2` are malformed), as
 * OTP's +sct rejects "not unique logical identifiers": a second worker on one
 * CPU is what round-robin gives when there are more workers than CPUs, so a
 * duplicate can only be a typing slip.
 *
 * hwloc ranks core classes (hwloc_cpukinds_*) and binds threads; the
 * affinity mask comes from sched_getaffinity, so the default, unbound case
 * never pays for loading an hwloc topology. The timer and I/O threads stay
 * unbound; a thread that inherits a worker's binding (threads start with
 * their creator's mask) undoes it with cpu_binding_unbind_current_thread.
 * Collector threads, whose long collections would otherwise share a bound
 * worker's CPU with it (the OS time-slices the two, and the worker's other
 * processes wait), bind to the CPUs no worker uses when there are any
 * (cpu_binding_bind_spare_thread).
 *
 * The list parser and the choice of the performance class are pure functions
 * of their arguments (a mask, a topology, a sysfs folder), so the tests can
 * run them against fake masks and synthetic topologies.
 */
#ifndef CLAUSE_CPU_BINDING_H
#define CLAUSE_CPU_BINDING_H

#include <stddef.h>

struct strbuf;
/* hwloc's hwloc_topology_t is `struct hwloc_topology *` and hwloc_bitmap_t is
 * `struct hwloc_bitmap_s *`; declaring the structs keeps <hwloc.h> (large,
 * and needed only here and in the tests) out of every scheduler file. */
struct hwloc_topology;
struct hwloc_bitmap_s;

/* CPUs a list may name are 0 .. CPU_BINDING_MAX_CPUS - 1. */
#define CPU_BINDING_MAX_CPUS 1024u
/* The default worker count never exceeds this (--schedulers is 1 to 1,024),
 * even on a host with more logical processors. */
#define CPU_BINDING_MAX_WORKERS 1024u
/* cpu_binding_cpu_of_worker's answer when workers are unbound. */
#define CPU_BINDING_NO_CPU ((unsigned)-1)

enum cpu_binding_status {
    CPU_BINDING_OK = 0,
    /* SET is malformed: empty, not a keyword, a descending range, a CPU
     * beyond 1023, a CPU listed twice, a stray character. A usage error. */
    CPU_BINDING_MALFORMED,
    /* A well-formed list names a CPU outside the affinity mask; the text is
     * exactly "--scheduler-cpus: CPU N is not available to the program"
     * (the first such CPU in the order written). Exit 70. */
    CPU_BINDING_UNAVAILABLE,
    /* The topology or the affinity mask could not be read, or memory ran
     * out. A runtime failure (exit 70). */
    CPU_BINDING_SYSTEM_ERROR,
};

/* Where the CPUs of `performance` came from (for reports and tests). */
enum cpu_binding_perf_source {
    /* The fastest of several ranked hwloc CPU kinds that has CPUs in the
     * mask. */
    CPU_BINDING_PERF_HWLOC_KINDS,
    /* hwloc did not rank the kinds; <sysfs>/devices/cpu_core/cpus (the
     * P-cores of an Intel hybrid CPU) meets the mask. */
    CPU_BINDING_PERF_SYSFS_CPU_CORE,
    /* As above, from the largest <sysfs>/devices/system/cpu/cpuN/cpu_capacity
     * among the CPUs of the mask (ARM big.LITTLE and the like). */
    CPU_BINDING_PERF_SYSFS_CAPACITY,
    /* The cores are alike, or nothing told them apart: every CPU of the
     * mask. */
    CPU_BINDING_PERF_ALIKE,
    /* Memory ran out; the result is undefined. */
    CPU_BINDING_PERF_ERROR,
};

/* The topology, the program's affinity mask when it was created, and the
 * ordered CPU set (none when workers are unbound). Immutable once created. */
struct cpu_binding;

/*
 * Reads the program's affinity mask and resolves spec (NULL: workers
 * unbound; else the text of --scheduler-cpus), loading the hwloc topology
 * only when spec is given (a load costs tens of milliseconds). On success
 * stores the binding in *out and returns CPU_BINDING_OK; otherwise stores
 * NULL, writes a one-line message without a newline into error (truncated to
 * error_len, which may be 0) and returns the status.
 *
 * Thread contract: call it on the program's first thread before the workers
 * start — the mask read is the calling thread's (sched_getaffinity), which is
 * the program's (taskset, cgroups) only while no thread has rebound itself.
 */
enum cpu_binding_status cpu_binding_create(struct cpu_binding **out, const char *spec, char *error, size_t error_len);

/*
 * The number of CPUs of SET, or of the affinity mask when unbound; at least 1
 * and at most CPU_BINDING_MAX_WORKERS.
 *
 * Thread contract (also of cpu_binding_cpu_of_worker, cpu_binding_is_bound
 * and cpu_binding_describe): reads only, so any threads may call it
 * concurrently once the binding was handed to them (by thread creation or
 * another synchronising operation), until cpu_binding_destroy.
 */
unsigned cpu_binding_default_workers(const struct cpu_binding *b);

/* Whether --scheduler-cpus was given. */
int cpu_binding_is_bound(const struct cpu_binding *b);

/* The CPU worker worker_index is bound to, CPU_BINDING_NO_CPU when unbound.
 * Round-robin: worker N gets the (N mod |SET|)-th CPU of SET. */
unsigned cpu_binding_cpu_of_worker(const struct cpu_binding *b, unsigned worker_index);

/*
 * Binds the calling thread to the CPU of worker worker_index; does nothing
 * when unbound. Returns 0, or an errno value (the binding is then unchanged;
 * the caller decides whether a worker that could not be bound may run).
 *
 * Thread contract: each worker calls it on itself, before its first slice;
 * calls from different threads may run concurrently (hwloc binding only
 * reads the shared topology).
 */
int cpu_binding_bind_current_thread(const struct cpu_binding *b, unsigned worker_index);

/*
 * Gives the calling thread the program's affinity mask again, as the timer
 * and I/O threads need when a bound worker (the program's first thread is
 * worker 0) created them; does nothing when unbound. Returns 0 or an errno
 * value. Thread contract as cpu_binding_bind_current_thread.
 */
int cpu_binding_unbind_current_thread(const struct cpu_binding *b);

/*
 * Binds the calling thread to the CPUs of the affinity mask that none of
 * worker_count bound workers uses, so that a helper thread (a collector)
 * never takes a worker's CPU from it; to the whole mask when every CPU has a
 * worker. Does nothing when unbound. Returns 0 or an errno value. Thread
 * contract as cpu_binding_bind_current_thread.
 */
int cpu_binding_bind_spare_thread(const struct cpu_binding *b, unsigned worker_count);

/*
 * Appends one paragraph (no final newline): packages, cores, PUs, the L1d, L2
 * and L3 caches with their sizes, CPU kinds, the affinity mask and the
 * binding, e.g.
 *   "1 package, 2 cores, 2 PUs; caches L1d 2 x 48 KiB, L2 2 x 1 MiB, L3 1 x
 *    32 MiB; 1 CPU kind; affinity mask 0-1 (2 PUs); workers unbound, 2 by
 *    default."
 * When unbound it loads a topology of its own for the purpose (tens of
 * milliseconds), so it is for reports, not for hot paths.
 */
void cpu_binding_describe(const struct cpu_binding *b, struct strbuf *out);

/* Frees the binding. Thread contract: no other thread may use b then. NULL is
 * allowed. It does not unbind any thread. */
void cpu_binding_destroy(struct cpu_binding *b);

/* ---- Pure helpers, public for the tests and for reports ---------------- */

/*
 * Parses a CPU list (`0-15`, `2,4,6`, `0-3,8,10-11`; no spaces, no keywords)
 * into cpus (room for CPU_BINDING_MAX_CPUS entries, in the order written) and
 * *count, checking each CPU against available (an hwloc cpuset: the affinity
 * mask). Syntax is checked over the whole text before availability, so a
 * malformed list is always reported as malformed. Error texts start with
 * "--scheduler-cpus: ". Thread-safe; touches no global state.
 */
enum cpu_binding_status cpu_binding_parse_list(const char *text, const struct hwloc_bitmap_s *available, unsigned *cpus,
                                               unsigned *count, char *error, size_t error_len);

/* Appends cpus[0..n) as a list the parser reads back, in the same order:
 * each run of consecutive ascending CPUs as a range ({0,1,2,3,8,10,11} ->
 * "0-3,8,10-11", {6,2,3} -> "6,2-3"). Appends "none" when n is 0. */
void cpu_binding_format_cpus(const unsigned *cpus, unsigned n, struct strbuf *out);

/*
 * Stores in out (an allocated hwloc bitmap) the CPUs of mask in the fastest
 * core class: the best-ranked hwloc CPU kind of topology (a loaded hwloc
 * topology) that has CPUs in mask; when hwloc has no ranked kinds, the files
 * under sysfs_root ("/sys" on the host); else mask itself. Never empty when
 * mask is not. Returns where the answer came from. Reads the topology only.
 */
enum cpu_binding_perf_source cpu_binding_performance_cpus(struct hwloc_topology *topology,
                                                          const struct hwloc_bitmap_s *mask, const char *sysfs_root,
                                                          struct hwloc_bitmap_s *out);

#endif
