/*
 * cpu_binding.c — CPU topology, --scheduler-cpus and worker binding with hwloc
 * (see cpu_binding.h for the rules).
 *
 * Design. cpu_binding_create reads the affinity mask and resolves SET into a
 * plain array of OS CPU numbers; after that the binding is immutable, so the
 * workers read it without a lock, and binding a thread is one hwloc call on a
 * singleton cpuset. The affinity mask is read once, at creation, so a worker
 * that binds itself cannot shrink what `all` or unbinding means later.
 *
 * Loading an hwloc topology costs tens of milliseconds (hwloc 2.9 dlopens its
 * GL/OpenCL/PCI plugins, and its x86 backend runs cpuid on every PU), which
 * every program run would pay. So the default, unbound case reads the mask
 * with sched_getaffinity and loads no topology; only --scheduler-cpus (which
 * binds through hwloc and may need its CPU kinds) loads one, and describe
 * loads a short-lived one of its own when there is none.
 *
 * `performance` asks hwloc first (its CPU kinds come from the OS: Linux
 * cpu_capacity, Intel hybrid core types, Windows efficiency classes, macOS
 * perflevels); only when hwloc found kinds it could not rank, or none, do we
 * read the Linux sysfs files the specification names ourselves.
 */
#include "rt/cpu_binding.h"

#include "term/strbuf.h"

#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum set_kind { SET_UNBOUND, SET_ALL, SET_PERFORMANCE, SET_LIST };

struct cpu_binding {
    hwloc_topology_t topology; /* NULL when unbound: see above */
    hwloc_bitmap_t affinity;   /* the program's mask at creation */
    enum set_kind kind;
    enum cpu_binding_perf_source perf_source; /* meaningful for SET_PERFORMANCE */
    unsigned *cpus;                           /* the ordered SET; NULL when unbound */
    unsigned ncpus;
};

#define OPTION "--scheduler-cpus: "
#define SET_HINT "SET is performance, all or a list such as 0-3,8,10-11"

static void set_error(char *error, size_t error_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_error(char *error, size_t error_len, const char *fmt, ...)
{
    if (error == NULL || error_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, error_len, fmt, ap);
    va_end(ap);
}

/* ---- The list parser ---------------------------------------------------- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Reads the digits at p into *value, saturating just above the largest CPU
 * so that no digit string, however long, can overflow. Returns the first
 * character after the digits. */
static const char *scan_cpu(const char *p, unsigned *value)
{
    unsigned v = 0;
    for (; is_digit(*p); p++) {
        if (v < CPU_BINDING_MAX_CPUS)
            v = v * 10 + (unsigned)(*p - '0');
    }
    *value = v;
    return p;
}

/* A number too large to be a CPU, quoted as written (at most 40 digits, so
 * the message stays one readable line). */
static enum cpu_binding_status out_of_range(const char *start, const char *end, char *error, size_t error_len)
{
    size_t len = (size_t)(end - start);
    int shown = len > 40 ? 40 : (int)len;
    set_error(error, error_len, OPTION "CPU %.*s%s is out of range (CPUs are 0 to %u)", shown, start,
              len > 40 ? "..." : "", CPU_BINDING_MAX_CPUS - 1);
    return CPU_BINDING_MALFORMED;
}

static enum cpu_binding_status syntax_error(const char *text, const char *at, char *error, size_t error_len)
{
    if (at == text)
        set_error(error, error_len, OPTION "\"%s\" is not a CPU set (" SET_HINT ")", text);
    else if (*at == '\0')
        set_error(error, error_len, OPTION "\"%s\" ends where a CPU number should follow (" SET_HINT ")", text);
    else
        set_error(error, error_len, OPTION "unexpected \"%s\" in \"%s\" (" SET_HINT ")", at, text);
    return CPU_BINDING_MALFORMED;
}

enum cpu_binding_status cpu_binding_parse_list(const char *text, const struct hwloc_bitmap_s *available, unsigned *cpus,
                                               unsigned *count, char *error, size_t error_len)
{
    *count = 0;
    if (*text == '\0') {
        set_error(error, error_len, OPTION "the CPU set is empty (" SET_HINT ")");
        return CPU_BINDING_MALFORMED;
    }
    /* Which CPUs were named: rejects duplicates and bounds n by
     * CPU_BINDING_MAX_CPUS, the size of cpus. */
    uint64_t seen[CPU_BINDING_MAX_CPUS / 64] = {0};
    unsigned n = 0;
    const char *p = text;
    for (;;) {
        if (!is_digit(*p))
            return syntax_error(text, p, error, error_len);
        const char *start = p;
        unsigned lo, hi;
        p = scan_cpu(p, &lo);
        if (lo >= CPU_BINDING_MAX_CPUS)
            return out_of_range(start, p, error, error_len);
        hi = lo;
        if (*p == '-') {
            p++;
            if (!is_digit(*p))
                return syntax_error(text, p, error, error_len);
            start = p;
            p = scan_cpu(p, &hi);
            if (hi >= CPU_BINDING_MAX_CPUS)
                return out_of_range(start, p, error, error_len);
            if (hi < lo) {
                set_error(error, error_len, OPTION "the range %u-%u runs backwards (write %u-%u)", lo, hi, hi, lo);
                return CPU_BINDING_MALFORMED;
            }
        }
        for (unsigned cpu = lo; cpu <= hi; cpu++) {
            uint64_t bit = UINT64_C(1) << (cpu % 64);
            if (seen[cpu / 64] & bit) {
                set_error(error, error_len, OPTION "CPU %u is named more than once", cpu);
                return CPU_BINDING_MALFORMED;
            }
            seen[cpu / 64] |= bit;
            cpus[n++] = cpu;
        }
        if (*p == '\0')
            break;
        if (*p != ',')
            return syntax_error(text, p, error, error_len);
        p++;
    }
    /* Availability only now: a list that is malformed anywhere is a usage
     * error, whatever CPUs its well-formed part names. */
    for (unsigned i = 0; i < n; i++) {
        if (!hwloc_bitmap_isset(available, cpus[i])) {
            set_error(error, error_len, OPTION "CPU %u is not available to the program", cpus[i]);
            return CPU_BINDING_UNAVAILABLE;
        }
    }
    *count = n;
    return CPU_BINDING_OK;
}

void cpu_binding_format_cpus(const unsigned *cpus, unsigned n, struct strbuf *out)
{
    if (n == 0) {
        strbuf_puts(out, "none");
        return;
    }
    for (unsigned i = 0; i < n;) {
        unsigned j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        if (i > 0)
            strbuf_putc(out, ',');
        if (j > i)
            strbuf_printf(out, "%u-%u", cpus[i], cpus[j]);
        else
            strbuf_printf(out, "%u", cpus[i]);
        i = j + 1;
    }
}

/* ---- performance -------------------------------------------------------- */

enum answer { NO_ANSWER, ANSWERED, ALIKE, FAILED };

/* The best-ranked hwloc kinds that meet mask, or ALIKE when hwloc knows one
 * kind only; NO_ANSWER when it knows none or could not rank them. */
static enum answer performance_from_kinds(hwloc_topology_t topology, hwloc_const_bitmap_t mask, hwloc_bitmap_t out)
{
    int nr = hwloc_cpukinds_get_nr(topology, 0);
    if (nr == 1)
        return ALIKE;
    if (nr < 2)
        return NO_ANSWER;
    hwloc_bitmap_t kind = hwloc_bitmap_alloc();
    hwloc_bitmap_t meet = hwloc_bitmap_alloc();
    if (kind == NULL || meet == NULL) {
        hwloc_bitmap_free(kind);
        hwloc_bitmap_free(meet);
        return FAILED;
    }
    enum answer answer = NO_ANSWER;
    int best = -1;
    hwloc_bitmap_zero(out);
    for (int i = 0; i < nr; i++) {
        int efficiency;
        if (hwloc_cpukinds_get_info(topology, (unsigned)i, kind, &efficiency, NULL, NULL, 0) != 0)
            continue;
        /* hwloc ranks all kinds or none: one unknown efficiency means the
         * order tells nothing. */
        if (efficiency < 0) {
            best = -1;
            break;
        }
        if (hwloc_bitmap_and(meet, kind, mask) != 0) {
            answer = FAILED;
            break;
        }
        if (hwloc_bitmap_iszero(meet))
            continue;
        int rc = 0;
        if (efficiency > best) {
            best = efficiency;
            rc = hwloc_bitmap_copy(out, meet);
        } else if (efficiency == best) {
            rc = hwloc_bitmap_or(out, out, meet);
        }
        if (rc != 0) {
            answer = FAILED;
            break;
        }
    }
    if (answer != FAILED && best >= 0)
        answer = ANSWERED;
    hwloc_bitmap_free(kind);
    hwloc_bitmap_free(meet);
    return answer;
}

/* Reads a small sysfs file into buf with trailing white space removed;
 * returns 0, or -1 when it cannot be read. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t got = fread(buf, 1, len - 1, f);
    int failed = ferror(f);
    fclose(f);
    if (failed)
        return -1;
    while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' ' || buf[got - 1] == '\t'))
        got--;
    buf[got] = '\0';
    return 0;
}

/* Intel hybrid CPUs list their P-cores in <sysfs>/devices/cpu_core/cpus. */
static enum answer performance_from_cpu_core(const char *sysfs_root, hwloc_const_bitmap_t mask, hwloc_bitmap_t out)
{
    char path[4096];
    /* A cpulist of a machine's CPUs fits: 64 KiB is "0-N" well past any
     * machine, and a longer file would only be truncated to fewer CPUs. */
    static const size_t text_len = 65536;
    snprintf(path, sizeof path, "%s/devices/cpu_core/cpus", sysfs_root);
    char *text = malloc(text_len);
    if (text == NULL)
        return FAILED;
    enum answer answer = NO_ANSWER;
    if (read_line(path, text, text_len) == 0 && text[0] != '\0') {
        hwloc_bitmap_t cores = hwloc_bitmap_alloc();
        if (cores == NULL)
            answer = FAILED;
        else if (hwloc_bitmap_list_sscanf(cores, text) == 0) {
            if (hwloc_bitmap_and(out, cores, mask) != 0)
                answer = FAILED;
            else if (!hwloc_bitmap_iszero(out))
                answer = ANSWERED;
        }
        hwloc_bitmap_free(cores);
    }
    free(text);
    return answer;
}

/* The CPUs of mask with the largest <sysfs>/devices/system/cpu/cpuN/
 * cpu_capacity (the kernel's relative speed of each CPU, 1024 the fastest);
 * CPUs without the file are left out. */
static enum answer performance_from_capacity(const char *sysfs_root, hwloc_const_bitmap_t mask, hwloc_bitmap_t out)
{
    unsigned long best = 0;
    unsigned readable = 0;
    hwloc_bitmap_zero(out);
    for (int cpu = hwloc_bitmap_first(mask); cpu >= 0; cpu = hwloc_bitmap_next(mask, cpu)) {
        char path[4096], text[64];
        snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/cpu_capacity", sysfs_root, cpu);
        if (read_line(path, text, sizeof text) != 0 || !is_digit(text[0]))
            continue;
        char *end;
        errno = 0;
        unsigned long capacity = strtoul(text, &end, 10);
        if (errno != 0 || *end != '\0')
            continue;
        if (readable == 0 || capacity > best) {
            best = capacity;
            hwloc_bitmap_zero(out);
        }
        readable++;
        if (capacity == best && hwloc_bitmap_set(out, (unsigned)cpu) != 0)
            return FAILED;
    }
    if (readable == 0)
        return NO_ANSWER;
    /* Every CPU of the mask at one capacity: the cores are alike. */
    return hwloc_bitmap_isequal(out, mask) ? ALIKE : ANSWERED;
}

enum cpu_binding_perf_source cpu_binding_performance_cpus(struct hwloc_topology *topology,
                                                          const struct hwloc_bitmap_s *mask, const char *sysfs_root,
                                                          struct hwloc_bitmap_s *out)
{
    enum answer a = performance_from_kinds(topology, mask, out);
    enum cpu_binding_perf_source source = CPU_BINDING_PERF_HWLOC_KINDS;
    if (a == NO_ANSWER) {
        a = performance_from_cpu_core(sysfs_root, mask, out);
        source = CPU_BINDING_PERF_SYSFS_CPU_CORE;
    }
    if (a == NO_ANSWER) {
        a = performance_from_capacity(sysfs_root, mask, out);
        source = CPU_BINDING_PERF_SYSFS_CAPACITY;
    }
    switch (a) {
    case ANSWERED:
        return source;
    case FAILED:
        return CPU_BINDING_PERF_ERROR;
    case NO_ANSWER:
    case ALIKE:
        break;
    }
    return hwloc_bitmap_copy(out, mask) == 0 ? CPU_BINDING_PERF_ALIKE : CPU_BINDING_PERF_ERROR;
}

/* ---- Creation ----------------------------------------------------------- */

/* The CPUs of set in ascending order, as SET. */
static int take_ascending(struct cpu_binding *b, hwloc_const_bitmap_t set)
{
    int weight = hwloc_bitmap_weight(set);
    if (weight <= 0)
        return -1;
    b->cpus = malloc((size_t)weight * sizeof b->cpus[0]);
    if (b->cpus == NULL)
        return -1;
    unsigned n = 0;
    for (int cpu = hwloc_bitmap_first(set); cpu >= 0 && n < (unsigned)weight; cpu = hwloc_bitmap_next(set, cpu))
        b->cpus[n++] = (unsigned)cpu;
    b->ncpus = n;
    return 0;
}

static enum cpu_binding_status system_error(struct cpu_binding *b, const char *what, int err, char *error,
                                            size_t error_len)
{
    set_error(error, error_len, "cpu binding: %s: %s", what, strerror(err));
    cpu_binding_destroy(b);
    return CPU_BINDING_SYSTEM_ERROR;
}

static enum cpu_binding_status resolve_set(struct cpu_binding *b, const char *spec, char *error, size_t error_len)
{
    if (spec == NULL) {
        b->kind = SET_UNBOUND;
        return CPU_BINDING_OK;
    }
    if (strcmp(spec, "all") == 0) {
        b->kind = SET_ALL;
        return take_ascending(b, b->affinity) == 0 ? CPU_BINDING_OK : CPU_BINDING_SYSTEM_ERROR;
    }
    if (strcmp(spec, "performance") == 0) {
        b->kind = SET_PERFORMANCE;
        hwloc_bitmap_t fast = hwloc_bitmap_alloc();
        if (fast == NULL)
            return CPU_BINDING_SYSTEM_ERROR;
        b->perf_source = cpu_binding_performance_cpus(b->topology, b->affinity, "/sys", fast);
        int rc = b->perf_source == CPU_BINDING_PERF_ERROR ? -1 : take_ascending(b, fast);
        hwloc_bitmap_free(fast);
        return rc == 0 ? CPU_BINDING_OK : CPU_BINDING_SYSTEM_ERROR;
    }
    b->kind = SET_LIST;
    unsigned *cpus = malloc(CPU_BINDING_MAX_CPUS * sizeof cpus[0]);
    if (cpus == NULL)
        return CPU_BINDING_SYSTEM_ERROR;
    unsigned n;
    enum cpu_binding_status st = cpu_binding_parse_list(spec, b->affinity, cpus, &n, error, error_len);
    if (st != CPU_BINDING_OK) {
        free(cpus);
        return st;
    }
    /* Give back the unused part of the parser's buffer; keep it if the
     * shrink fails, since it is still valid. */
    unsigned *fit = realloc(cpus, n * sizeof cpus[0]);
    b->cpus = fit ? fit : cpus;
    b->ncpus = n;
    return CPU_BINDING_OK;
}

/* The calling thread's affinity mask (the program's, while it is the only
 * thread) into out; 0 or an errno value. glibc's cpu_set_t holds 1,024 CPUs,
 * so the set grows until the kernel's mask fits (EINVAL means too small). */
static int read_affinity(hwloc_bitmap_t out)
{
    for (size_t ncpus = CPU_SETSIZE; ncpus <= ((size_t)1 << 22); ncpus *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpus);
        if (set == NULL)
            return ENOMEM;
        size_t size = CPU_ALLOC_SIZE(ncpus);
        if (sched_getaffinity(0, size, set) != 0) {
            int err = errno;
            CPU_FREE(set);
            if (err == EINVAL)
                continue;
            return err;
        }
        int rc = 0;
        hwloc_bitmap_zero(out);
        for (size_t cpu = 0; cpu < ncpus && rc == 0; cpu++) {
            if (CPU_ISSET_S(cpu, size, set))
                rc = hwloc_bitmap_set(out, (unsigned)cpu) == 0 ? 0 : ENOMEM;
        }
        CPU_FREE(set);
        return rc;
    }
    return EINVAL;
}

/* A topology of this machine in *out; 0 or an errno value. */
static int load_topology(hwloc_topology_t *out)
{
    if (hwloc_topology_init(out) != 0) {
        *out = NULL;
        return errno != 0 ? errno : ENOMEM;
    }
    if (hwloc_topology_load(*out) != 0) {
        int err = errno != 0 ? errno : EINVAL;
        hwloc_topology_destroy(*out);
        *out = NULL;
        return err;
    }
    return 0;
}

enum cpu_binding_status cpu_binding_create(struct cpu_binding **out, const char *spec, char *error, size_t error_len)
{
    *out = NULL;
    if (error != NULL && error_len > 0)
        error[0] = '\0';
    struct cpu_binding *b = calloc(1, sizeof *b);
    if (b == NULL)
        return system_error(NULL, "out of memory", ENOMEM, error, error_len);
    b->affinity = hwloc_bitmap_alloc();
    if (b->affinity == NULL)
        return system_error(b, "out of memory", ENOMEM, error, error_len);
    int err = read_affinity(b->affinity);
    if (err != 0)
        return system_error(b, "cannot read the program's affinity mask", err, error, error_len);
    if (hwloc_bitmap_iszero(b->affinity))
        return system_error(b, "the program's affinity mask is empty", EINVAL, error, error_len);
    if (spec != NULL) {
        err = load_topology(&b->topology);
        if (err != 0)
            return system_error(b, "cannot read the CPU topology", err, error, error_len);
    }

    enum cpu_binding_status st = resolve_set(b, spec, error, error_len);
    if (st == CPU_BINDING_SYSTEM_ERROR)
        return system_error(b, "out of memory", ENOMEM, error, error_len);
    if (st != CPU_BINDING_OK) {
        cpu_binding_destroy(b);
        return st;
    }
    *out = b;
    return CPU_BINDING_OK;
}

void cpu_binding_destroy(struct cpu_binding *b)
{
    if (b == NULL)
        return;
    hwloc_bitmap_free(b->affinity);
    if (b->topology != NULL)
        hwloc_topology_destroy(b->topology);
    free(b->cpus);
    free(b);
}

/* ---- Queries and binding ------------------------------------------------ */

unsigned cpu_binding_default_workers(const struct cpu_binding *b)
{
    unsigned n = b->kind == SET_UNBOUND ? (unsigned)hwloc_bitmap_weight(b->affinity) : b->ncpus;
    if (n == 0)
        return 1;
    return n > CPU_BINDING_MAX_WORKERS ? CPU_BINDING_MAX_WORKERS : n;
}

int cpu_binding_is_bound(const struct cpu_binding *b) { return b->kind != SET_UNBOUND; }

unsigned cpu_binding_cpu_of_worker(const struct cpu_binding *b, unsigned worker_index)
{
    if (b->kind == SET_UNBOUND || b->ncpus == 0)
        return CPU_BINDING_NO_CPU;
    return b->cpus[worker_index % b->ncpus];
}

/* Binds the calling thread to set; 0 or an errno value. */
static int bind_thread(const struct cpu_binding *b, hwloc_const_bitmap_t set)
{
    if (hwloc_set_cpubind(b->topology, set, HWLOC_CPUBIND_THREAD) == 0)
        return 0;
    return errno != 0 ? errno : EINVAL;
}

int cpu_binding_bind_current_thread(const struct cpu_binding *b, unsigned worker_index)
{
    unsigned cpu = cpu_binding_cpu_of_worker(b, worker_index);
    if (cpu == CPU_BINDING_NO_CPU)
        return 0;
    hwloc_bitmap_t one = hwloc_bitmap_alloc();
    if (one == NULL)
        return ENOMEM;
    int rc = hwloc_bitmap_only(one, cpu) == 0 ? bind_thread(b, one) : ENOMEM;
    hwloc_bitmap_free(one);
    return rc;
}

int cpu_binding_unbind_current_thread(const struct cpu_binding *b)
{
    if (b->kind == SET_UNBOUND)
        return 0;
    return bind_thread(b, b->affinity);
}

int cpu_binding_bind_spare_thread(const struct cpu_binding *b, unsigned worker_count)
{
    if (b->kind == SET_UNBOUND)
        return 0;
    hwloc_bitmap_t spare = hwloc_bitmap_dup(b->affinity);
    if (spare == NULL)
        return ENOMEM;
    unsigned used = worker_count < b->ncpus ? worker_count : b->ncpus;
    for (unsigned i = 0; i < used; i++)
        hwloc_bitmap_clr(spare, b->cpus[i]);
    int rc = bind_thread(b, hwloc_bitmap_iszero(spare) ? b->affinity : spare);
    hwloc_bitmap_free(spare);
    return rc;
}

/* ---- Description -------------------------------------------------------- */

static void put_size(struct strbuf *out, hwloc_uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    /* Whole units only, so "1280 KiB" rather than a rounded "1.25 MiB". */
    while (u + 1 < sizeof units / sizeof units[0] && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    strbuf_printf(out, "%llu %s", (unsigned long long)bytes, units[u]);
}

/* "L2 8 x 2 MiB + 4 x 1 MiB": the caches of one level grouped by size
 * (hybrid CPUs mix sizes), after ", " unless it is the first level shown.
 * Counts the levels shown in *shown. */
static void put_cache_level(hwloc_topology_t t, hwloc_obj_type_t type, const char *name, unsigned *shown,
                            struct strbuf *out)
{
    enum { MAX_SIZES = 4 };
    hwloc_uint64_t sizes[MAX_SIZES];
    unsigned counts[MAX_SIZES], distinct = 0, others = 0;
    int nobjs = hwloc_get_nbobjs_by_type(t, type);
    for (int i = 0; i < nobjs; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(t, type, (unsigned)i);
        if (obj == NULL || obj->attr == NULL)
            continue;
        hwloc_uint64_t size = obj->attr->cache.size;
        unsigned k = 0;
        while (k < distinct && sizes[k] != size)
            k++;
        if (k < distinct)
            counts[k]++;
        else if (distinct < MAX_SIZES) {
            sizes[distinct] = size;
            counts[distinct++] = 1;
        } else
            others++;
    }
    if (distinct == 0)
        return;
    strbuf_printf(out, "%s%s ", *shown ? ", " : " ", name);
    ++*shown;
    for (unsigned k = 0; k < distinct; k++) {
        strbuf_printf(out, "%s%u x ", k ? " + " : "", counts[k]);
        put_size(out, sizes[k]);
    }
    if (others)
        strbuf_printf(out, " + %u of other sizes", others);
}

static void put_count(struct strbuf *out, int n, const char *what)
{
    strbuf_printf(out, "%d %s%s", n, what, n == 1 ? "" : "s");
}

static const char *perf_source_text(enum cpu_binding_perf_source source)
{
    switch (source) {
    case CPU_BINDING_PERF_HWLOC_KINDS:
        return "the fastest hwloc CPU kind";
    case CPU_BINDING_PERF_SYSFS_CPU_CORE:
        return "the P-cores of /sys/devices/cpu_core/cpus";
    case CPU_BINDING_PERF_SYSFS_CAPACITY:
        return "the largest cpu_capacity";
    case CPU_BINDING_PERF_ALIKE:
        return "cores alike, so every CPU";
    case CPU_BINDING_PERF_ERROR:
        break;
    }
    return "unknown";
}

/* Packages, cores, PUs, caches and CPU kinds of topology t. */
static void put_topology(hwloc_topology_t t, struct strbuf *out)
{
    put_count(out, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE), "package");
    strbuf_puts(out, ", ");
    put_count(out, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE), "core");
    strbuf_puts(out, ", ");
    put_count(out, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), "PU");
    strbuf_puts(out, "; caches");
    /* hwloc's L1CACHE holds data or unified caches; instruction caches are
     * L1ICACHE, left out as the workers' heaps never live there. */
    unsigned shown = 0;
    put_cache_level(t, HWLOC_OBJ_L1CACHE, "L1d", &shown, out);
    put_cache_level(t, HWLOC_OBJ_L2CACHE, "L2", &shown, out);
    put_cache_level(t, HWLOC_OBJ_L3CACHE, "L3", &shown, out);
    if (shown == 0)
        strbuf_puts(out, " unknown");
    int kinds = hwloc_cpukinds_get_nr(t, 0);
    if (kinds > 0) {
        strbuf_puts(out, "; ");
        put_count(out, kinds, "CPU kind");
    }
}

void cpu_binding_describe(const struct cpu_binding *b, struct strbuf *out)
{
    if (b->topology != NULL)
        put_topology(b->topology, out);
    else {
        /* Unbound bindings keep no topology (see the top of this file); a
         * description is rare enough to pay for a private one, which also
         * keeps describe free of shared mutable state. */
        hwloc_topology_t t;
        if (load_topology(&t) == 0) {
            put_topology(t, out);
            hwloc_topology_destroy(t);
        } else
            strbuf_puts(out, "topology unknown");
    }
    char *mask = NULL;
    if (hwloc_bitmap_list_asprintf(&mask, b->affinity) >= 0 && mask != NULL)
        strbuf_printf(out, "; affinity mask %s (", mask);
    else
        strbuf_puts(out, "; affinity mask (");
    free(mask);
    put_count(out, hwloc_bitmap_weight(b->affinity), "PU");
    strbuf_puts(out, "); ");
    switch (b->kind) {
    case SET_UNBOUND:
        strbuf_puts(out, "workers unbound");
        break;
    case SET_ALL:
        strbuf_puts(out, "workers bound round-robin to --scheduler-cpus all = ");
        break;
    case SET_PERFORMANCE:
        strbuf_printf(
            out, "workers bound round-robin to --scheduler-cpus performance (%s) = ", perf_source_text(b->perf_source));
        break;
    case SET_LIST:
        strbuf_puts(out, "workers bound round-robin to --scheduler-cpus ");
        break;
    }
    if (b->kind != SET_UNBOUND)
        cpu_binding_format_cpus(b->cpus, b->ncpus, out);
    strbuf_printf(out, ", %u by default.", cpu_binding_default_workers(b));
}
