/*
 * CPU binding: the --scheduler-cpus list parser against fake affinity masks,
 * the choice of `performance` on synthetic hwloc topologies and a fake sysfs
 * tree, and on this machine the default worker count, `all`, `performance`,
 * round-robin, binding a thread (in a thread of its own, so the runner keeps
 * its affinity) and a taskset-like restricted mask (in a forked child).
 */
#include "rt/cpu_binding.h"
#include "term/strbuf.h"
#include "test_main.h"

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- Helpers ------------------------------------------------------------ */

static hwloc_bitmap_t mask_of(const char *list)
{
    hwloc_bitmap_t m = hwloc_bitmap_alloc();
    CU_ASSERT_FATAL(m != NULL);
    CU_ASSERT_FATAL(hwloc_bitmap_list_sscanf(m, list) == 0);
    return m;
}

static unsigned cpus[CPU_BINDING_MAX_CPUS];
static char error[256];

/* Parses text against the mask written as a list; returns the status. */
static enum cpu_binding_status parse(const char *text, const char *mask_list, unsigned *n)
{
    hwloc_bitmap_t m = mask_of(mask_list);
    error[0] = '\0';
    enum cpu_binding_status st = cpu_binding_parse_list(text, m, cpus, n, error, sizeof error);
    hwloc_bitmap_free(m);
    return st;
}

static void assert_cpus(const unsigned *expect, unsigned expect_n, unsigned n)
{
    CU_ASSERT_EQUAL_FATAL(n, expect_n);
    for (unsigned i = 0; i < n; i++)
        CU_ASSERT_EQUAL(cpus[i], expect[i]);
}

/* The calling thread's affinity from the kernel, not through hwloc. */
static cpu_set_t thread_affinity(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CU_ASSERT_EQUAL(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
    return set;
}

static cpu_set_t process_affinity(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CU_ASSERT_EQUAL(sched_getaffinity(0, sizeof set, &set), 0);
    return set;
}

static struct cpu_binding *create_ok(const char *spec)
{
    struct cpu_binding *b = NULL;
    char err[256];
    enum cpu_binding_status st = cpu_binding_create(&b, spec, err, sizeof err);
    if (st != CPU_BINDING_OK)
        fprintf(stderr, "cpu_binding_create(%s): %s\n", spec ? spec : "NULL", err);
    CU_ASSERT_EQUAL_FATAL(st, CPU_BINDING_OK);
    CU_ASSERT_FATAL(b != NULL);
    return b;
}

/* ---- The list parser ---------------------------------------------------- */

static void test_parse_ranges_lists_and_mixed(void)
{
    unsigned n;
    CU_ASSERT_EQUAL(parse("0-15", "0-31", &n), CPU_BINDING_OK);
    CU_ASSERT_EQUAL(n, 16);
    for (unsigned i = 0; i < n; i++)
        CU_ASSERT_EQUAL(cpus[i], i);

    CU_ASSERT_EQUAL(parse("2,4,6", "0-31", &n), CPU_BINDING_OK);
    assert_cpus((const unsigned[]){2, 4, 6}, 3, n);

    CU_ASSERT_EQUAL(parse("0-3,8,10-11", "0-31", &n), CPU_BINDING_OK);
    assert_cpus((const unsigned[]){0, 1, 2, 3, 8, 10, 11}, 7, n);

    /* Single CPUs, one-CPU ranges, leading zeros are decimal. */
    CU_ASSERT_EQUAL(parse("5", "0-31", &n), CPU_BINDING_OK);
    assert_cpus((const unsigned[]){5}, 1, n);
    CU_ASSERT_EQUAL(parse("7-7,010", "0-31", &n), CPU_BINDING_OK);
    assert_cpus((const unsigned[]){7, 10}, 2, n);
}

static void test_parse_keeps_written_order(void)
{
    unsigned n;
    /* Worker N gets the N-th CPU as written, so the user chooses the order. */
    CU_ASSERT_EQUAL(parse("6,2-3,0", "0-7", &n), CPU_BINDING_OK);
    assert_cpus((const unsigned[]){6, 2, 3, 0}, 4, n);
}

static void test_parse_cpu_1023_but_not_1024(void)
{
    unsigned n;
    CU_ASSERT_EQUAL(parse("1023", "0-1023", &n), CPU_BINDING_OK);
    assert_cpus((const unsigned[]){1023}, 1, n);
    CU_ASSERT_EQUAL(parse("0-1023", "0-1023", &n), CPU_BINDING_OK);
    CU_ASSERT_EQUAL(n, 1024);
    CU_ASSERT_EQUAL(cpus[1023], 1023);

    CU_ASSERT_EQUAL(parse("1024", "0-2047", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: CPU 1024 is out of range (CPUs are 0 to 1023)");
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(parse("1000-1024", "0-2047", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: CPU 1024 is out of range (CPUs are 0 to 1023)");
    /* No digit string overflows the scanner. */
    CU_ASSERT_EQUAL(parse("99999999999999999999999", "0-31", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_PTR_NOT_NULL(strstr(error, "CPU 99999999999999999999999 is out of range"));
}

static void test_parse_rejects_duplicates(void)
{
    unsigned n;
    /* As OTP's +sct ("not unique logical identifiers"): round-robin already
     * puts several workers on one CPU when there are more workers. */
    CU_ASSERT_EQUAL(parse("0,0", "0-31", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: CPU 0 is named more than once");
    CU_ASSERT_EQUAL(parse("0-3,2", "0-31", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: CPU 2 is named more than once");
    CU_ASSERT_EQUAL(parse("4-6,0-4", "0-31", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: CPU 4 is named more than once");
}

static void test_parse_malformed(void)
{
    unsigned n;
    CU_ASSERT_EQUAL(parse("", "0-31", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: the CPU set is empty (SET is performance, all or a list such as "
                                  "0-3,8,10-11)");
    CU_ASSERT_EQUAL(parse("3-1", "0-31", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: the range 3-1 runs backwards (write 1-3)");
    CU_ASSERT_EQUAL(parse("x", "0-31", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: \"x\" is not a CPU set (SET is performance, all or a list such "
                                  "as 0-3,8,10-11)");
    CU_ASSERT_EQUAL(parse("0,1,", "0-31", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: \"0,1,\" ends where a CPU number should follow (SET is "
                                  "performance, all or a list such as 0-3,8,10-11)");
    CU_ASSERT_EQUAL(parse("0-3x", "0-31", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: unexpected \"x\" in \"0-3x\" (SET is performance, all or a list "
                                  "such as 0-3,8,10-11)");
    /* Every other shape of malformed list, each with a message. */
    static const char *const bad[] = {",0",  "0,,1", "0-",  "-1",   "0--1", " 0",  "0 ",   "1-2-3", "+1",
                                      "0x1", "ALL",  "all", "perf", "1;2",  "1.5", "0-3,", "0,-1",  "\t"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        error[0] = '\0';
        CU_ASSERT_EQUAL(parse(bad[i], "0-31", &n), CPU_BINDING_MALFORMED);
        CU_ASSERT_EQUAL(strncmp(error, "--scheduler-cpus: ", 18), 0);
        CU_ASSERT_TRUE(strlen(error) > 18);
        CU_ASSERT_EQUAL(n, 0);
    }
}

static void test_parse_unavailable_cpu_text(void)
{
    unsigned n;
    CU_ASSERT_EQUAL(parse("0-3,5", "0-3,8", &n), CPU_BINDING_UNAVAILABLE);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: CPU 5 is not available to the program");
    CU_ASSERT_EQUAL(n, 0);
    /* The first such CPU in the order written. */
    CU_ASSERT_EQUAL(parse("8,9,5", "0-3,8", &n), CPU_BINDING_UNAVAILABLE);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: CPU 9 is not available to the program");
    CU_ASSERT_EQUAL(parse("0-15", "0-1", &n), CPU_BINDING_UNAVAILABLE);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: CPU 2 is not available to the program");
    /* 1023 is a CPU, merely not ours; 1024 is not a CPU at all. */
    CU_ASSERT_EQUAL(parse("1023", "0-31", &n), CPU_BINDING_UNAVAILABLE);
    CU_ASSERT_STRING_EQUAL(error, "--scheduler-cpus: CPU 1023 is not available to the program");
    CU_ASSERT_EQUAL(parse("1024", "0-31", &n), CPU_BINDING_MALFORMED);
    /* Syntax first: a malformed list is a usage error whatever it names. */
    CU_ASSERT_EQUAL(parse("5,x", "0-3", &n), CPU_BINDING_MALFORMED);
    CU_ASSERT_EQUAL(parse("5,5", "0-3", &n), CPU_BINDING_MALFORMED);
    /* The mask is the whole truth: a gap in it is unavailable too. */
    CU_ASSERT_EQUAL(parse("8", "0-3,8", &n), CPU_BINDING_OK);
    CU_ASSERT_EQUAL(parse("4", "0-3,8", &n), CPU_BINDING_UNAVAILABLE);
}

static void test_parse_error_buffer_limits(void)
{
    hwloc_bitmap_t m = mask_of("0-3");
    unsigned n;
    char small[12];
    memset(small, 'Z', sizeof small);
    CU_ASSERT_EQUAL(cpu_binding_parse_list("7", m, cpus, &n, small, sizeof small), CPU_BINDING_UNAVAILABLE);
    CU_ASSERT_STRING_EQUAL(small, "--scheduler");
    CU_ASSERT_EQUAL(cpu_binding_parse_list("7", m, cpus, &n, NULL, 0), CPU_BINDING_UNAVAILABLE);
    CU_ASSERT_EQUAL(cpu_binding_parse_list("x", m, cpus, &n, NULL, 0), CPU_BINDING_MALFORMED);
    hwloc_bitmap_free(m);
}

static void test_format_reads_back(void)
{
    struct strbuf sb = STRBUF_INIT;
    const unsigned a[] = {0, 1, 2, 3, 8, 10, 11};
    cpu_binding_format_cpus(a, 7, &sb);
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&sb), "0-3,8,10-11");
    strbuf_clear(&sb);
    const unsigned b[] = {6, 2, 3, 0};
    cpu_binding_format_cpus(b, 4, &sb);
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&sb), "6,2-3,0");
    unsigned n;
    CU_ASSERT_EQUAL(parse(strbuf_cstr(&sb), "0-7", &n), CPU_BINDING_OK);
    assert_cpus(b, 4, n);
    strbuf_clear(&sb);
    cpu_binding_format_cpus(NULL, 0, &sb);
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&sb), "none");
    strbuf_free(&sb);
}

/* ---- performance on synthetic topologies and a fake sysfs --------------- */

/* A loaded synthetic topology of n single-PU cores (no host information, so
 * no CPU kinds unless the test registers them). */
static hwloc_topology_t synthetic(unsigned cores)
{
    hwloc_topology_t t;
    char desc[64];
    snprintf(desc, sizeof desc, "pack:1 core:%u pu:1", cores);
    CU_ASSERT_FATAL(hwloc_topology_init(&t) == 0);
    CU_ASSERT_FATAL(hwloc_topology_set_synthetic(t, desc) == 0);
    CU_ASSERT_FATAL(hwloc_topology_load(t) == 0);
    return t;
}

static void register_kind(hwloc_topology_t t, const char *list, int efficiency)
{
    hwloc_bitmap_t set = mask_of(list);
    CU_ASSERT_EQUAL(hwloc_cpukinds_register(t, set, efficiency, 0, NULL, 0), 0);
    hwloc_bitmap_free(set);
}

/* The performance set of topology t for the mask `mask_list`, as a list. */
static enum cpu_binding_perf_source performance(hwloc_topology_t t, const char *mask_list, const char *sysfs,
                                                char *list, size_t list_len)
{
    hwloc_bitmap_t m = mask_of(mask_list), out = hwloc_bitmap_alloc();
    enum cpu_binding_perf_source src = cpu_binding_performance_cpus(t, m, sysfs, out);
    hwloc_bitmap_list_snprintf(list, list_len, out);
    hwloc_bitmap_free(m);
    hwloc_bitmap_free(out);
    return src;
}

/* A folder that is no sysfs at all. */
#define NO_SYSFS "/nonexistent-clause-sysfs"

static void test_performance_from_ranked_hwloc_kinds(void)
{
    hwloc_topology_t t = synthetic(8);
    /* Four E-cores, four P-cores, as an Intel hybrid; efficiency ranks them. */
    register_kind(t, "0-3", 0);
    register_kind(t, "4-7", 1);
    CU_ASSERT_EQUAL(hwloc_cpukinds_get_nr(t, 0), 2);
    char list[64];
    CU_ASSERT_EQUAL(performance(t, "0-7", NO_SYSFS, list, sizeof list), CPU_BINDING_PERF_HWLOC_KINDS);
    CU_ASSERT_STRING_EQUAL(list, "4-7");
    /* Only within the mask ... */
    CU_ASSERT_EQUAL(performance(t, "2-5", NO_SYSFS, list, sizeof list), CPU_BINDING_PERF_HWLOC_KINDS);
    CU_ASSERT_STRING_EQUAL(list, "4-5");
    /* ... and when the mask holds E-cores only, they are the fastest class
     * the program may run on. */
    CU_ASSERT_EQUAL(performance(t, "1,3", NO_SYSFS, list, sizeof list), CPU_BINDING_PERF_HWLOC_KINDS);
    CU_ASSERT_STRING_EQUAL(list, "1,3");
    hwloc_topology_destroy(t);
}

static void test_performance_single_kind_is_alike(void)
{
    hwloc_topology_t t = synthetic(4);
    register_kind(t, "0-3", -1);
    char list[64];
    CU_ASSERT_EQUAL(performance(t, "1-3", NO_SYSFS, list, sizeof list), CPU_BINDING_PERF_ALIKE);
    CU_ASSERT_STRING_EQUAL(list, "1-3");
    hwloc_topology_destroy(t);
}

/* A fake sysfs tree under a fresh temporary folder. */
struct fake_sysfs {
    char root[64];
    char paths[16][160]; /* created files and folders, removed in reverse */
    unsigned n;
};

/* Records root/rel as a path to remove and returns it. */
static const char *fake_add(struct fake_sysfs *fs, const char *rel)
{
    CU_ASSERT_FATAL(fs->n < 16);
    /* Through a local buffer, as the root and the paths share *fs. */
    char path[sizeof fs->paths[0]];
    snprintf(path, sizeof path, "%s/%s", fs->root, rel);
    memcpy(fs->paths[fs->n], path, sizeof path);
    return fs->paths[fs->n++];
}

static void fake_mkdir(struct fake_sysfs *fs, const char *rel) { CU_ASSERT_FATAL(mkdir(fake_add(fs, rel), 0700) == 0); }

static void fake_file(struct fake_sysfs *fs, const char *rel, const char *text)
{
    FILE *f = fopen(fake_add(fs, rel), "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void fake_init(struct fake_sysfs *fs)
{
    fs->n = 0;
    snprintf(fs->root, sizeof fs->root, "/tmp/clause-sysfs-XXXXXX");
    CU_ASSERT_FATAL(mkdtemp(fs->root) != NULL);
    fake_mkdir(fs, "devices");
}

static void fake_remove(struct fake_sysfs *fs)
{
    while (fs->n > 0) {
        fs->n--;
        CU_ASSERT_EQUAL(remove(fs->paths[fs->n]), 0);
    }
    CU_ASSERT_EQUAL(rmdir(fs->root), 0);
}

static void fake_capacities(struct fake_sysfs *fs, const unsigned *capacity, unsigned n)
{
    fake_mkdir(fs, "devices/system");
    fake_mkdir(fs, "devices/system/cpu");
    for (unsigned i = 0; i < n; i++) {
        char rel[64], text[32];
        snprintf(rel, sizeof rel, "devices/system/cpu/cpu%u", i);
        fake_mkdir(fs, rel);
        snprintf(rel, sizeof rel, "devices/system/cpu/cpu%u/cpu_capacity", i);
        snprintf(text, sizeof text, "%u\n", capacity[i]);
        fake_file(fs, rel, text);
    }
}

static void test_performance_from_sysfs_cpu_core(void)
{
    struct fake_sysfs fs;
    fake_init(&fs);
    fake_mkdir(&fs, "devices/cpu_core");
    fake_file(&fs, "devices/cpu_core/cpus", "0-1\n");
    hwloc_topology_t t = synthetic(4); /* no kinds: hwloc has no answer */
    char list[64];
    CU_ASSERT_EQUAL(performance(t, "0-3", fs.root, list, sizeof list), CPU_BINDING_PERF_SYSFS_CPU_CORE);
    CU_ASSERT_STRING_EQUAL(list, "0-1");
    /* No P-core in the mask, no capacities: every CPU of the mask. */
    CU_ASSERT_EQUAL(performance(t, "2-3", fs.root, list, sizeof list), CPU_BINDING_PERF_ALIKE);
    CU_ASSERT_STRING_EQUAL(list, "2-3");
    /* Kinds hwloc could not rank leave the answer to sysfs too. */
    register_kind(t, "0-1", -1);
    register_kind(t, "2-3", -1);
    CU_ASSERT_EQUAL(hwloc_cpukinds_get_nr(t, 0), 2);
    CU_ASSERT_EQUAL(performance(t, "0-3", fs.root, list, sizeof list), CPU_BINDING_PERF_SYSFS_CPU_CORE);
    CU_ASSERT_STRING_EQUAL(list, "0-1");
    hwloc_topology_destroy(t);
    fake_remove(&fs);
}

static void test_performance_from_sysfs_capacity(void)
{
    struct fake_sysfs fs;
    fake_init(&fs);
    /* big.LITTLE: CPUs 2 and 3 are the big ones. */
    fake_capacities(&fs, (const unsigned[]){446, 446, 1024, 1024}, 4);
    hwloc_topology_t t = synthetic(4);
    char list[64];
    CU_ASSERT_EQUAL(performance(t, "0-3", fs.root, list, sizeof list), CPU_BINDING_PERF_SYSFS_CAPACITY);
    CU_ASSERT_STRING_EQUAL(list, "2-3");
    CU_ASSERT_EQUAL(performance(t, "1-2", fs.root, list, sizeof list), CPU_BINDING_PERF_SYSFS_CAPACITY);
    CU_ASSERT_STRING_EQUAL(list, "2");
    /* Only little cores in the mask: all alike as far as we may run. */
    CU_ASSERT_EQUAL(performance(t, "0-1", fs.root, list, sizeof list), CPU_BINDING_PERF_ALIKE);
    CU_ASSERT_STRING_EQUAL(list, "0-1");
    hwloc_topology_destroy(t);
    fake_remove(&fs);
}

static void test_performance_without_any_information(void)
{
    hwloc_topology_t t = synthetic(4);
    char list[64];
    CU_ASSERT_EQUAL(performance(t, "0,2-3", NO_SYSFS, list, sizeof list), CPU_BINDING_PERF_ALIKE);
    CU_ASSERT_STRING_EQUAL(list, "0,2-3");
    hwloc_topology_destroy(t);
}

/* ---- This machine ------------------------------------------------------- */

static void test_default_workers_is_the_affinity_mask(void)
{
    cpu_set_t mine = process_affinity();
    struct cpu_binding *b = create_ok(NULL);
    CU_ASSERT_EQUAL(cpu_binding_default_workers(b), (unsigned)CPU_COUNT(&mine));
    CU_ASSERT_FALSE(cpu_binding_is_bound(b));
    CU_ASSERT_EQUAL(cpu_binding_cpu_of_worker(b, 0), CPU_BINDING_NO_CPU);
    CU_ASSERT_EQUAL(cpu_binding_cpu_of_worker(b, 5), CPU_BINDING_NO_CPU);
    cpu_binding_destroy(b);
}

static void test_all_is_the_affinity_mask(void)
{
    cpu_set_t mine = process_affinity();
    struct cpu_binding *b = create_ok("all");
    unsigned n = cpu_binding_default_workers(b);
    CU_ASSERT_TRUE(cpu_binding_is_bound(b));
    CU_ASSERT_EQUAL(n, (unsigned)CPU_COUNT(&mine));
    /* Worker i gets the i-th CPU of the mask, ascending. */
    unsigned i = 0;
    for (unsigned cpu = 0; cpu < CPU_SETSIZE && i < n; cpu++) {
        if (CPU_ISSET(cpu, &mine))
            CU_ASSERT_EQUAL(cpu_binding_cpu_of_worker(b, i++), cpu);
    }
    CU_ASSERT_EQUAL(i, n);
    cpu_binding_destroy(b);
}

static void test_performance_is_a_subset_of_the_mask(void)
{
    cpu_set_t mine = process_affinity();
    struct cpu_binding *b = create_ok("performance");
    unsigned n = cpu_binding_default_workers(b);
    CU_ASSERT_TRUE(n >= 1);
    CU_ASSERT_TRUE(n <= (unsigned)CPU_COUNT(&mine));
    cpu_set_t seen;
    CPU_ZERO(&seen);
    for (unsigned i = 0; i < n; i++) {
        unsigned cpu = cpu_binding_cpu_of_worker(b, i);
        CU_ASSERT_FATAL(cpu < CPU_SETSIZE);
        CU_ASSERT_TRUE(CPU_ISSET(cpu, &mine));
        CU_ASSERT_FALSE(CPU_ISSET(cpu, &seen));
        CPU_SET(cpu, &seen);
    }
    cpu_binding_destroy(b);
}

static void test_round_robin(void)
{
    struct cpu_binding *b = create_ok("all");
    unsigned n = cpu_binding_default_workers(b);
    for (unsigned w = 0; w < 3 * n + 2; w++)
        CU_ASSERT_EQUAL(cpu_binding_cpu_of_worker(b, w), cpu_binding_cpu_of_worker(b, w % n));
    CU_ASSERT_EQUAL(cpu_binding_cpu_of_worker(b, (unsigned)-1), cpu_binding_cpu_of_worker(b, (unsigned)-1 % n));
    cpu_binding_destroy(b);

    /* A list of the machine's first two CPUs written backwards. */
    cpu_set_t mine = process_affinity();
    if (CPU_COUNT(&mine) < 2)
        return;
    unsigned first = CPU_SETSIZE, second = CPU_SETSIZE;
    for (unsigned cpu = 0; cpu < CPU_SETSIZE && second == CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &mine))
            continue;
        if (first == CPU_SETSIZE)
            first = cpu;
        else
            second = cpu;
    }
    char spec[32];
    snprintf(spec, sizeof spec, "%u,%u", second, first);
    b = create_ok(spec);
    CU_ASSERT_EQUAL(cpu_binding_default_workers(b), 2);
    const unsigned expect[] = {second, first, second, first, second};
    for (unsigned w = 0; w < 5; w++)
        CU_ASSERT_EQUAL(cpu_binding_cpu_of_worker(b, w), expect[w]);
    cpu_binding_destroy(b);
}

struct bind_check {
    const struct cpu_binding *b;
    unsigned worker;
    int bind_rc, unbind_rc;
    cpu_set_t bound, unbound;
};

static void *bind_in_thread(void *arg)
{
    struct bind_check *c = arg;
    c->bind_rc = cpu_binding_bind_current_thread(c->b, c->worker);
    CPU_ZERO(&c->bound);
    pthread_getaffinity_np(pthread_self(), sizeof c->bound, &c->bound);
    c->unbind_rc = cpu_binding_unbind_current_thread(c->b);
    CPU_ZERO(&c->unbound);
    pthread_getaffinity_np(pthread_self(), sizeof c->unbound, &c->unbound);
    return NULL;
}

static void run_bind_check(struct bind_check *c)
{
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, bind_in_thread, c), 0);
    CU_ASSERT_EQUAL(pthread_join(th, NULL), 0);
}

static void test_bind_current_thread_pins_one_cpu(void)
{
    cpu_set_t before = thread_affinity();
    struct cpu_binding *b = create_ok("all");
    unsigned n = cpu_binding_default_workers(b);
    /* Worker 0, and worker n, which round-robin puts on the same CPU. */
    const unsigned workers[] = {0, n};
    for (unsigned k = 0; k < 2; k++) {
        struct bind_check c = {.b = b, .worker = workers[k]};
        run_bind_check(&c);
        CU_ASSERT_EQUAL(c.bind_rc, 0);
        CU_ASSERT_EQUAL(CPU_COUNT(&c.bound), 1);
        CU_ASSERT_TRUE(CPU_ISSET(cpu_binding_cpu_of_worker(b, 0), &c.bound));
        /* Unbinding gives the thread the program's mask back. */
        CU_ASSERT_EQUAL(c.unbind_rc, 0);
        CU_ASSERT_TRUE(CPU_EQUAL(&c.unbound, &before));
    }
    /* The runner's own thread never moved. */
    cpu_set_t after = thread_affinity();
    CU_ASSERT_TRUE(CPU_EQUAL(&before, &after));
    cpu_binding_destroy(b);
}

static void test_unbound_binding_changes_nothing(void)
{
    cpu_set_t before = thread_affinity();
    struct cpu_binding *b = create_ok(NULL);
    struct bind_check c = {.b = b, .worker = 0};
    run_bind_check(&c);
    CU_ASSERT_EQUAL(c.bind_rc, 0);
    CU_ASSERT_EQUAL(c.unbind_rc, 0);
    CU_ASSERT_TRUE(CPU_EQUAL(&c.bound, &before));
    CU_ASSERT_TRUE(CPU_EQUAL(&c.unbound, &before));
    cpu_binding_destroy(b);
}

struct spare_check {
    const struct cpu_binding *b;
    unsigned workers;
    int rc;
    cpu_set_t mask;
};

static void *spare_in_thread(void *arg)
{
    struct spare_check *c = arg;
    c->rc = cpu_binding_bind_spare_thread(c->b, c->workers);
    CPU_ZERO(&c->mask);
    pthread_getaffinity_np(pthread_self(), sizeof c->mask, &c->mask);
    return NULL;
}

static cpu_set_t spare_mask(const struct cpu_binding *b, unsigned workers)
{
    struct spare_check c = {.b = b, .workers = workers};
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, spare_in_thread, &c), 0);
    CU_ASSERT_EQUAL(pthread_join(th, NULL), 0);
    CU_ASSERT_EQUAL(c.rc, 0);
    return c.mask;
}

/* A helper thread keeps off the CPUs of the bound workers while any CPU of
 * the mask is left over, and has the whole mask when none is (or when the
 * workers are unbound). */
static void test_spare_thread_avoids_worker_cpus(void)
{
    cpu_set_t mine = thread_affinity();
    struct cpu_binding *b = create_ok(NULL);
    cpu_set_t got = spare_mask(b, 1);
    CU_ASSERT_TRUE(CPU_EQUAL(&got, &mine));
    cpu_binding_destroy(b);

    b = create_ok("all");
    unsigned n = cpu_binding_default_workers(b);
    got = spare_mask(b, n);
    CU_ASSERT_TRUE(CPU_EQUAL(&got, &mine));
    if (n >= 2) {
        /* One worker, on the first CPU of the set: every other CPU. */
        cpu_set_t expect = mine;
        CPU_CLR(cpu_binding_cpu_of_worker(b, 0), &expect);
        got = spare_mask(b, 1);
        CU_ASSERT_TRUE(CPU_EQUAL(&got, &expect));
        /* More workers than CPUs: none is spare. */
        got = spare_mask(b, 2 * n);
        CU_ASSERT_TRUE(CPU_EQUAL(&got, &mine));
    }
    cpu_binding_destroy(b);
    cpu_set_t after = thread_affinity();
    CU_ASSERT_TRUE(CPU_EQUAL(&after, &mine));
}

static void test_create_reports_errors(void)
{
    cpu_set_t mine = process_affinity();
    struct cpu_binding *b = NULL;
    char err[128];
    CU_ASSERT_EQUAL(cpu_binding_create(&b, "3-1", err, sizeof err), CPU_BINDING_MALFORMED);
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT_STRING_EQUAL(err, "--scheduler-cpus: the range 3-1 runs backwards (write 1-3)");
    CU_ASSERT_EQUAL(cpu_binding_create(&b, "", err, sizeof err), CPU_BINDING_MALFORMED);
    CU_ASSERT_PTR_NULL(b);
    /* The highest CPU this machine lacks. */
    unsigned missing = CPU_BINDING_MAX_CPUS - 1;
    while (missing > 0 && CPU_ISSET(missing, &mine))
        missing--;
    char spec[16], expect[96];
    snprintf(spec, sizeof spec, "%u", missing);
    snprintf(expect, sizeof expect, "--scheduler-cpus: CPU %u is not available to the program", missing);
    CU_ASSERT_EQUAL(cpu_binding_create(&b, spec, err, sizeof err), CPU_BINDING_UNAVAILABLE);
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT_STRING_EQUAL(err, expect);
}

/* As `taskset -c C prog`: in a child restricted to its first CPU, the
 * default is one worker, `all` is that CPU and any other CPU is unavailable.
 * A forked child, so no thread of the runner is restricted. Exit status 0
 * when all holds, else the number of the first failed check. */
static int restricted_child(void)
{
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        return 1;
    unsigned first = 0, other = 0;
    while (!CPU_ISSET(first, &mine))
        first++;
    while (other == first)
        other++;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return 2;
    struct cpu_binding *b;
    char err[128], spec[16], expect[96];
    if (cpu_binding_create(&b, NULL, err, sizeof err) != CPU_BINDING_OK)
        return 3;
    if (cpu_binding_default_workers(b) != 1)
        return 4;
    cpu_binding_destroy(b);
    if (cpu_binding_create(&b, "all", err, sizeof err) != CPU_BINDING_OK)
        return 5;
    if (cpu_binding_default_workers(b) != 1 || cpu_binding_cpu_of_worker(b, 3) != first)
        return 6;
    cpu_binding_destroy(b);
    if (cpu_binding_create(&b, "performance", err, sizeof err) != CPU_BINDING_OK)
        return 7;
    if (cpu_binding_default_workers(b) != 1 || cpu_binding_cpu_of_worker(b, 0) != first)
        return 8;
    cpu_binding_destroy(b);
    snprintf(spec, sizeof spec, "%u", other);
    snprintf(expect, sizeof expect, "--scheduler-cpus: CPU %u is not available to the program", other);
    if (cpu_binding_create(&b, spec, err, sizeof err) != CPU_BINDING_UNAVAILABLE || strcmp(err, expect) != 0)
        return 9;
    return 0;
}

static void test_restricted_mask_as_taskset(void)
{
    fflush(NULL); /* the child must not write the runner's buffers twice */
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0)
        _exit(restricted_child());
    int status;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        fprintf(stderr, "restricted child failed check %d\n", WEXITSTATUS(status));
    CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

static void test_describe_mentions_topology_and_set(void)
{
    struct strbuf sb = STRBUF_INIT;
    struct cpu_binding *b = create_ok(NULL);
    cpu_binding_describe(b, &sb);
    const char *text = strbuf_cstr(&sb);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, " PU"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "package"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "core"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "caches"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "workers unbound"));
    CU_ASSERT_PTR_NULL(strchr(text, '\n'));
    cpu_binding_destroy(b);

    strbuf_clear(&sb);
    b = create_ok("all");
    cpu_binding_describe(b, &sb);
    char expect[64];
    snprintf(expect, sizeof expect, "%u by default.", cpu_binding_default_workers(b));
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&sb), "--scheduler-cpus all = "));
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&sb), expect));
    cpu_binding_destroy(b);

    strbuf_clear(&sb);
    b = create_ok("performance");
    cpu_binding_describe(b, &sb);
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&sb), "--scheduler-cpus performance ("));
    if (getenv("CLAUSE_TEST_VERBOSE"))
        printf("\n%s\n", strbuf_cstr(&sb));
    cpu_binding_destroy(b);
    strbuf_free(&sb);
}

static CU_TestInfo tests[] = {
    {"parse ranges, lists and mixed", test_parse_ranges_lists_and_mixed},
    {"parse keeps the written order", test_parse_keeps_written_order},
    {"parse CPU 1023 but not 1024", test_parse_cpu_1023_but_not_1024},
    {"parse rejects duplicates", test_parse_rejects_duplicates},
    {"parse malformed lists", test_parse_malformed},
    {"parse unavailable CPU text", test_parse_unavailable_cpu_text},
    {"parse error buffer limits", test_parse_error_buffer_limits},
    {"format reads back", test_format_reads_back},
    {"performance from ranked hwloc kinds", test_performance_from_ranked_hwloc_kinds},
    {"performance single kind is alike", test_performance_single_kind_is_alike},
    {"performance from sysfs cpu_core", test_performance_from_sysfs_cpu_core},
    {"performance from sysfs cpu_capacity", test_performance_from_sysfs_capacity},
    {"performance without any information", test_performance_without_any_information},
    {"default workers is the affinity mask", test_default_workers_is_the_affinity_mask},
    {"all is the affinity mask", test_all_is_the_affinity_mask},
    {"performance is a subset of the mask", test_performance_is_a_subset_of_the_mask},
    {"round-robin", test_round_robin},
    {"bind current thread pins one CPU", test_bind_current_thread_pins_one_cpu},
    {"unbound binding changes nothing", test_unbound_binding_changes_nothing},
    {"a helper thread keeps off the workers' CPUs", test_spare_thread_avoids_worker_cpus},
    {"create reports errors", test_create_reports_errors},
    {"restricted mask as taskset", test_restricted_mask_as_taskset},
    {"describe mentions topology and set", test_describe_mentions_topology_and_set},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(cpu_binding, tests)
