/*
 * test_proc_table.c — the process table: insert, lookup and erase, pids that
 * are never reused, tombstones and rebuilds, a million processes, iteration
 * in pid order, and lock-free lookups racing inserts, erases and rebuilds
 * under ck_epoch reclamation (the concurrent suite, run under TSan by
 * `make tsan`).
 *
 * Processes are fake: a struct carrying its own pid, so a reader can tell a
 * wrong process from the right one, and a ck_epoch entry, so an erased one is
 * freed only after every reader that may hold it left its section.
 */
#include "rt/proc_table.h"
#include "test_main.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_THREAD__)
#define TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEST_TSAN 1
#endif
#endif
#ifdef TEST_TSAN
#include <sanitizer/tsan_interface.h>
#endif

struct fake_proc {
    uint64_t pid;
    ck_epoch_entry_t retire;
};

CK_EPOCH_CONTAINER(struct fake_proc, retire, fake_of_entry)

static struct process *as_proc(struct fake_proc *f) { return (struct process *)(void *)f; }
static struct fake_proc *as_fake(struct process *p) { return (struct fake_proc *)(void *)p; }

static struct fake_proc *fake_new(uint64_t pid)
{
    struct fake_proc *f = calloc(1, sizeof *f);
    if (f)
        f->pid = pid;
    return f;
}

/* ---------------------------------------------------------------------------
 * Single-threaded tests. Inserts pass a NULL record: no reader can run, so a
 * replaced array is freed at once.
 */

static void test_basics(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 0));
    CU_ASSERT_EQUAL(proc_table_count(&t), 0);
    CU_ASSERT_PTR_NULL(proc_table_lookup(&t, 0));
    CU_ASSERT_PTR_NULL(proc_table_lookup(&t, 1));

    struct fake_proc a = {0}, b = {0};
    a.pid = proc_table_next_pid(&t);
    b.pid = proc_table_next_pid(&t);
    CU_ASSERT_EQUAL(a.pid, 1);
    CU_ASSERT_EQUAL(b.pid, 2);
    CU_ASSERT_EQUAL(proc_table_pid_limit(&t), 3);
    CU_ASSERT_TRUE(proc_table_insert(&t, a.pid, as_proc(&a), NULL));
    CU_ASSERT_TRUE(proc_table_insert(&t, b.pid, as_proc(&b), NULL));
    CU_ASSERT_EQUAL(proc_table_count(&t), 2);
    CU_ASSERT_PTR_EQUAL(proc_table_lookup(&t, a.pid), as_proc(&a));
    CU_ASSERT_PTR_EQUAL(proc_table_lookup(&t, b.pid), as_proc(&b));
    CU_ASSERT_PTR_NULL(proc_table_lookup(&t, 3));
    CU_ASSERT_PTR_NULL(proc_table_lookup(&t, 1u + 16u)); /* same home slot as pid 1 */

    CU_ASSERT_TRUE(proc_table_erase(&t, a.pid));
    CU_ASSERT_FALSE(proc_table_erase(&t, a.pid)); /* already a tombstone */
    CU_ASSERT_FALSE(proc_table_erase(&t, 99));    /* never there */
    CU_ASSERT_FALSE(proc_table_erase(&t, 0));
    CU_ASSERT_PTR_NULL(proc_table_lookup(&t, a.pid));
    CU_ASSERT_PTR_EQUAL(proc_table_lookup(&t, b.pid), as_proc(&b));
    CU_ASSERT_EQUAL(proc_table_count(&t), 1);

    struct proc_table_stats s;
    proc_table_stats(&t, &s);
    CU_ASSERT_EQUAL(s.live, 1);
    CU_ASSERT_EQUAL(s.tombstones, 1);
    CU_ASSERT_EQUAL(s.capacity, 16);
    CU_ASSERT_EQUAL(s.rebuilds, 0);
    proc_table_destroy(&t);
}

static void test_rejected_inserts(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 100));
    struct proc_table_stats s;
    proc_table_stats(&t, &s);
    CU_ASSERT_EQUAL(s.capacity, 128); /* rounded up to a power of two */

    struct fake_proc f = {0};
    f.pid = proc_table_next_pid(&t);
    CU_ASSERT_FALSE(proc_table_insert(&t, 0, as_proc(&f), NULL));         /* 0 is never a pid */
    CU_ASSERT_FALSE(proc_table_insert(&t, f.pid + 1, as_proc(&f), NULL)); /* not handed out yet */
    CU_ASSERT_FALSE(proc_table_insert(&t, f.pid, NULL, NULL));
    CU_ASSERT_TRUE(proc_table_insert(&t, f.pid, as_proc(&f), NULL));
    CU_ASSERT_FALSE(proc_table_insert(&t, f.pid, as_proc(&f), NULL)); /* live */
    CU_ASSERT_TRUE(proc_table_erase(&t, f.pid));
    CU_ASSERT_FALSE(proc_table_insert(&t, f.pid, as_proc(&f), NULL)); /* tombstone */
    CU_ASSERT_PTR_NULL(proc_table_lookup(&t, f.pid));
    CU_ASSERT_EQUAL(proc_table_count(&t), 0);
    proc_table_destroy(&t);
}

/* Pids only grow, whatever is erased; an erased pid stays dead even when a
 * later process lands in the slot its tombstone occupied before a rebuild. */
static void test_pids_never_reused(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 16));
    enum { N = 2000 };
    static struct fake_proc procs[N];
    uint64_t last = 0;
    for (int i = 0; i < N; i++) {
        procs[i].pid = proc_table_next_pid(&t);
        CU_ASSERT_TRUE(procs[i].pid > last);
        last = procs[i].pid;
        CU_ASSERT_TRUE(proc_table_insert(&t, procs[i].pid, as_proc(&procs[i]), NULL));
        CU_ASSERT_TRUE(proc_table_erase(&t, procs[i].pid));
    }
    CU_ASSERT_EQUAL(last, N);
    CU_ASSERT_EQUAL(proc_table_count(&t), 0);
    for (uint64_t pid = 1; pid <= N; pid++)
        CU_ASSERT_PTR_NULL(proc_table_lookup(&t, pid));
    struct proc_table_stats s;
    proc_table_stats(&t, &s);
    CU_ASSERT_EQUAL(s.capacity, 16);      /* compaction, not growth */
    CU_ASSERT_TRUE(s.rebuilds >= N / 10); /* one per 8 inserts */
    proc_table_destroy(&t);
}

/* A sliding window of live processes over many pids, plus one process that
 * lives throughout (its pid collides modulo the capacity with a new pid every
 * lap): after every step every live pid is found and every erased one is not.
 * The window size makes the table rebuild every few inserts. */
static void test_tombstones_and_rebuilds(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 16));
    enum { STEPS = 20000, WINDOW = 4 };
    struct fake_proc *procs = calloc(STEPS + 1, sizeof *procs);
    CU_ASSERT_FATAL(procs != NULL);
    procs[0].pid = proc_table_next_pid(&t); /* the long-lived one, pid 1 */
    CU_ASSERT_TRUE(proc_table_insert(&t, procs[0].pid, as_proc(&procs[0]), NULL));
    size_t max_tombstones = 0, max_capacity = 0;
    int failures = 0;
    for (int i = 1; i <= STEPS; i++) {
        procs[i].pid = proc_table_next_pid(&t);
        if (!proc_table_insert(&t, procs[i].pid, as_proc(&procs[i]), NULL))
            failures++;
        if (i > WINDOW && !proc_table_erase(&t, procs[i - WINDOW].pid))
            failures++;
        int lo = i > WINDOW ? i - WINDOW + 1 : 1;
        for (int j = lo; j <= i; j++)
            failures += proc_table_lookup(&t, procs[j].pid) != as_proc(&procs[j]);
        for (int j = lo - 8 > 1 ? lo - 8 : 1; j < lo; j++)
            failures += proc_table_lookup(&t, procs[j].pid) != NULL;
        failures += proc_table_lookup(&t, procs[0].pid) != as_proc(&procs[0]);
        struct proc_table_stats s;
        proc_table_stats(&t, &s);
        failures += s.live != (size_t)(i - lo + 2);
        if (s.tombstones > max_tombstones)
            max_tombstones = s.tombstones;
        if (s.capacity > max_capacity)
            max_capacity = s.capacity;
    }
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_EQUAL(max_capacity, 16); /* 6 live never needs more than 16 slots */
    CU_ASSERT_TRUE(max_tombstones <= 8);
    /* Every erased pid, whether its tombstone was dropped or not. */
    int wrong = 0;
    for (int j = 1; j <= STEPS - WINDOW; j++)
        wrong += proc_table_lookup(&t, procs[j].pid) != NULL;
    CU_ASSERT_EQUAL(wrong, 0);
    struct proc_table_stats s;
    proc_table_stats(&t, &s);
    CU_ASSERT_TRUE(s.rebuilds >= STEPS / 4);
    proc_table_destroy(&t);
    free(procs);
}

/* Growth keeps at most half the slots in use, and an insert after mass
 * erasure compacts the tombstones and shrinks the array back. */
static void test_grow_and_shrink(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 16));
    enum { N = 5000 };
    static struct fake_proc procs[N + 1];
    int failures = 0;
    for (int i = 1; i <= N; i++) {
        procs[i].pid = proc_table_next_pid(&t);
        failures += !proc_table_insert(&t, procs[i].pid, as_proc(&procs[i]), NULL);
        struct proc_table_stats s;
        proc_table_stats(&t, &s);
        failures += (s.live + s.tombstones) * 2 > s.capacity;
    }
    CU_ASSERT_EQUAL(failures, 0);
    struct proc_table_stats s;
    proc_table_stats(&t, &s);
    CU_ASSERT_EQUAL(s.live, N);
    CU_ASSERT_EQUAL(s.capacity, 16384); /* 5001 in at most 3/8: 16384, not more */
    for (int i = 1; i <= N; i++)
        CU_ASSERT_TRUE(proc_table_erase(&t, procs[i].pid));
    /* Tombstones alone never rebuild; churn until an insert does. */
    static struct fake_proc more[N];
    size_t before = s.rebuilds;
    for (int i = 0; i < N; i++) {
        more[i].pid = proc_table_next_pid(&t);
        CU_ASSERT_TRUE(proc_table_insert(&t, more[i].pid, as_proc(&more[i]), NULL));
        CU_ASSERT_TRUE(proc_table_erase(&t, more[i].pid));
        proc_table_stats(&t, &s);
        if (s.rebuilds > before)
            break;
    }
    CU_ASSERT_EQUAL(s.rebuilds, before + 1);
    CU_ASSERT_EQUAL(s.capacity, 16);
    CU_ASSERT_EQUAL(s.live, 0);
    proc_table_destroy(&t);
}

/* A million live processes: correct, bounded memory (2 Mi slots of 16 bytes:
 * growth doubles at half full), and fast. */
static void test_million(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 16));
    enum { N = 1000000 };
    struct fake_proc *procs = calloc(N, sizeof *procs);
    CU_ASSERT_FATAL(procs != NULL);
    int failures = 0;
    for (int i = 0; i < N; i++) {
        procs[i].pid = proc_table_next_pid(&t);
        failures += !proc_table_insert(&t, procs[i].pid, as_proc(&procs[i]), NULL);
    }
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_EQUAL(proc_table_count(&t), N);
    struct proc_table_stats s;
    proc_table_stats(&t, &s);
    CU_ASSERT_EQUAL(s.capacity, (size_t)1 << 21);
    for (int i = 0; i < N; i++)
        failures += proc_table_lookup(&t, procs[i].pid) != as_proc(&procs[i]);
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_PTR_NULL(proc_table_lookup(&t, (uint64_t)N + 1));
    for (int i = 0; i < N; i += 2)
        failures += !proc_table_erase(&t, procs[i].pid);
    for (int i = 0; i < N; i++)
        failures += proc_table_lookup(&t, procs[i].pid) != (i % 2 ? as_proc(&procs[i]) : NULL);
    for (int i = 1; i < N; i += 2)
        failures += !proc_table_erase(&t, procs[i].pid);
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_EQUAL(proc_table_count(&t), 0);
    proc_table_destroy(&t);
    free(procs);
}

struct visit_log {
    uint64_t *pids;
    size_t n, stop_after;
    bool lookups_ok;
    struct proc_table *t;
};

static bool log_visit(uint64_t pid, struct process *p, void *arg)
{
    struct visit_log *log = arg;
    log->pids[log->n++] = pid;
    /* A visitor may look processes up (it holds the writer lock). */
    if (proc_table_lookup(log->t, pid) != p || as_fake(p)->pid != pid)
        log->lookups_ok = false;
    return log->n != log->stop_after;
}

/* Iteration visits live processes in increasing pid order, whatever the
 * insertion order, including after rebuilds and when a long-lived process's
 * pid wrapped around the array behind newer ones. */
static void test_iteration_order(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 16));

    struct visit_log log = {.pids = calloc(4000, sizeof(uint64_t)), .lookups_ok = true, .t = &t};
    CU_ASSERT_FATAL(log.pids != NULL);
    CU_ASSERT_TRUE(proc_table_foreach(&t, log_visit, &log)); /* empty */
    CU_ASSERT_EQUAL(log.n, 0);
    struct proc_table_entry *e;
    size_t n;
    CU_ASSERT_TRUE(proc_table_snapshot(&t, &e, &n));
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_PTR_NULL(e);

    enum { N = 3000 };
    static struct fake_proc procs[N];
    for (int i = 0; i < N; i++)
        procs[i].pid = proc_table_next_pid(&t);
    /* Insert in a shuffled order (a fixed LCG permutation). */
    int order[N];
    for (int i = 0; i < N; i++)
        order[i] = i;
    uint32_t x = 12345;
    for (int i = N - 1; i > 0; i--) {
        x = x * 1103515245u + 12345u;
        int j = (int)((x >> 8) % (uint32_t)(i + 1));
        int tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    for (int i = 0; i < N; i++)
        CU_ASSERT_TRUE(proc_table_insert(&t, procs[order[i]].pid, as_proc(&procs[order[i]]), NULL));
    for (int i = 0; i < N; i += 3)
        CU_ASSERT_TRUE(proc_table_erase(&t, procs[i].pid));

    CU_ASSERT_TRUE(proc_table_foreach(&t, log_visit, &log));
    CU_ASSERT_TRUE(log.lookups_ok);
    CU_ASSERT_EQUAL(log.n, N - (N + 2) / 3);
    size_t k = 0;
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0)
            continue;
        CU_ASSERT_EQUAL(log.pids[k], procs[i].pid);
        k++;
    }

    log.n = 0;
    log.stop_after = 10;
    CU_ASSERT_TRUE(proc_table_foreach(&t, log_visit, &log));
    CU_ASSERT_EQUAL(log.n, 10);

    CU_ASSERT_TRUE(proc_table_snapshot(&t, &e, &n));
    CU_ASSERT_EQUAL(n, N - (N + 2) / 3);
    for (size_t i = 1; i < n; i++)
        CU_ASSERT_TRUE(e[i - 1].pid < e[i].pid);
    /* The caller may erase while walking a snapshot (shutdown). */
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(as_fake(e[i].proc)->pid, e[i].pid);
        CU_ASSERT_TRUE(proc_table_erase(&t, e[i].pid));
    }
    free(e);
    CU_ASSERT_EQUAL(proc_table_count(&t), 0);

    proc_table_destroy(&t);

    /* Wrap-around: pid 1 stays while newer pids cycle through a 16-slot
     * array, so the last ones sit in slots before and after it and slot
     * order is not pid order. */
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 16));
    static struct fake_proc old, young[32];
    old.pid = proc_table_next_pid(&t);
    CU_ASSERT_TRUE(proc_table_insert(&t, old.pid, as_proc(&old), NULL));
    for (int i = 0; i < 32; i++) {
        young[i].pid = proc_table_next_pid(&t);
        CU_ASSERT_TRUE(proc_table_insert(&t, young[i].pid, as_proc(&young[i]), NULL));
        if (i >= 4)
            CU_ASSERT_TRUE(proc_table_erase(&t, young[i - 4].pid));
    }
    struct proc_table_stats s;
    proc_table_stats(&t, &s);
    CU_ASSERT_EQUAL(s.capacity, 16);
    log.n = 0;
    log.stop_after = 0;
    CU_ASSERT_TRUE(proc_table_foreach(&t, log_visit, &log));
    CU_ASSERT_EQUAL(log.n, 5);
    CU_ASSERT_EQUAL(log.pids[0], old.pid);
    for (size_t i = 1; i < log.n; i++)
        CU_ASSERT_EQUAL(log.pids[i], young[27 + i].pid);
    CU_ASSERT_TRUE(log.lookups_ok);
    proc_table_destroy(&t);
    free(log.pids);
}

/* Rebuilds retire through the inserting thread's record; a barrier frees the
 * retired arrays (the ASan build's leak check proves none is lost), and the
 * table can be destroyed before the record is drained. */
static void test_epoch_retire(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    ck_epoch_record_t rec;
    ck_epoch_register(&epoch, &rec, NULL);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 16));
    enum { N = 1000 };
    static struct fake_proc procs[N];
    for (int i = 0; i < N; i++) {
        ck_epoch_begin(&rec, NULL);
        procs[i].pid = proc_table_next_pid(&t);
        CU_ASSERT_TRUE(proc_table_insert(&t, procs[i].pid, as_proc(&procs[i]), &rec));
        CU_ASSERT_PTR_EQUAL(proc_table_lookup(&t, procs[i].pid), as_proc(&procs[i]));
        ck_epoch_end(&rec, NULL);
    }
    struct proc_table_stats s;
    proc_table_stats(&t, &s);
    CU_ASSERT_TRUE(s.rebuilds >= 6);
    proc_table_destroy(&t);
    ck_epoch_barrier(&rec);
    ck_epoch_unregister(&rec);
}

/* drain_visit's record: each pid seen once, already erased when seen. */
struct drain_log {
    struct proc_table *t;
    unsigned seen[64];
    bool erased_first;
};

static bool drain_visit(uint64_t pid, struct process *p, void *arg)
{
    struct drain_log *log = arg;
    if (proc_table_lookup(log->t, pid) != NULL || as_fake(p)->pid != pid)
        log->erased_first = false;
    if (pid < 64)
        log->seen[pid]++;
    return false; /* ignored: drain visits every process */
}

/* Shutdown's drain empties the table, visiting each live process once (not
 * the erased ones) after erasing it, and allocates nothing. */
static void test_drain(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 16));
    static struct fake_proc procs[40];
    for (int i = 0; i < 40; i++) {
        procs[i].pid = proc_table_next_pid(&t);
        CU_ASSERT_TRUE(proc_table_insert(&t, procs[i].pid, as_proc(&procs[i]), NULL));
    }
    for (int i = 0; i < 40; i += 4)
        CU_ASSERT_TRUE(proc_table_erase(&t, procs[i].pid));
    struct drain_log log = {.t = &t, .erased_first = true};
    proc_table_drain(&t, drain_visit, &log);
    CU_ASSERT_TRUE(log.erased_first);
    CU_ASSERT_EQUAL(proc_table_count(&t), 0);
    for (int i = 0; i < 40; i++)
        CU_ASSERT_EQUAL(log.seen[procs[i].pid], i % 4 == 0 ? 0u : 1u);
    proc_table_drain(&t, drain_visit, &log); /* empty: nothing visited */
    for (int i = 0; i < 40; i++)
        CU_ASSERT_TRUE(log.seen[procs[i].pid] <= 1);
    proc_table_destroy(&t);
}

static CU_TestInfo tests[] = {
    {"basics", test_basics},
    {"drain at shutdown", test_drain},
    {"rejected inserts", test_rejected_inserts},
    {"pids never reused", test_pids_never_reused},
    {"tombstones and rebuilds", test_tombstones_and_rebuilds},
    {"grow and shrink", test_grow_and_shrink},
    {"a million processes", test_million},
    {"iteration in pid order", test_iteration_order},
    {"rebuilds retire through the epoch", test_epoch_retire},
    CU_TEST_INFO_NULL,
};

/* ---------------------------------------------------------------------------
 * Concurrent tests. Threads report through counters; the main thread asserts
 * (CUnit is not thread-safe).
 */

#define WRITERS 2
#define READERS 3
#define WRITER_OPS 60000
#define WINDOW 100    /* live processes per writer, besides the pinned ones */
#define PIN_EVERY 512 /* every 512th process lives to the end */
#define MAX_PINNED (WRITER_OPS / PIN_EVERY + 1)
#define SECTION_OPS 32 /* operations per epoch section, as a worker's slice */

struct race {
    struct proc_table table;
    ck_epoch_t epoch;
    ck_epoch_record_t records[WRITERS + READERS];
    atomic_int writers_running;
    /* Pinned pids per writer, published by a release store of the count. */
    uint64_t pinned[WRITERS][MAX_PINNED];
    atomic_size_t pinned_count[WRITERS];
    atomic_long insert_failures, erase_failures, retired, freed;
    atomic_long lookups, hits, wrong, pinned_checks, pinned_missing;
};

static atomic_long *freed_counter;

static void fake_free(ck_epoch_entry_t *entry)
{
    struct fake_proc *f = fake_of_entry(entry);
#ifdef TEST_TSAN
    /* Readers release on the process after their last read of it; the grace
     * period orders those reads before this callback, but TSan cannot see
     * ck_epoch's (see proc_table.c, free_array). */
    __tsan_acquire(f);
#endif
    atomic_fetch_add_explicit(freed_counter, 1, memory_order_relaxed);
    free(f);
}

struct writer_arg {
    struct race *r;
    int id;
};

static void *writer_main(void *varg)
{
    struct writer_arg *arg = varg;
    struct race *r = arg->r;
    ck_epoch_record_t *rec = &r->records[arg->id];
    struct fake_proc *window[WINDOW] = {0};
    size_t head = 0, pinned = 0;
    long insert_failures = 0, erase_failures = 0, retired = 0;
    ck_epoch_begin(rec, NULL);
    for (int op = 0; op < WRITER_OPS; op++) {
        struct fake_proc *f = fake_new(proc_table_next_pid(&r->table));
        if (!f || !proc_table_insert(&r->table, f->pid, as_proc(f), rec)) {
            insert_failures++;
            free(f);
        } else if (op % PIN_EVERY == 0) {
            r->pinned[arg->id][pinned] = f->pid;
            atomic_store_explicit(&r->pinned_count[arg->id], ++pinned, memory_order_release);
        } else {
            struct fake_proc *old = window[head];
            window[head] = f;
            head = (head + 1) % WINDOW;
            if (old) {
                erase_failures += !proc_table_erase(&r->table, old->pid);
                ck_epoch_call(rec, &old->retire, fake_free);
                retired++;
            }
        }
        if (op % SECTION_OPS == SECTION_OPS - 1) {
            ck_epoch_end(rec, NULL);
            ck_epoch_poll(rec);
            ck_epoch_begin(rec, NULL);
        }
    }
    for (size_t i = 0; i < WINDOW; i++) {
        if (window[i]) {
            erase_failures += !proc_table_erase(&r->table, window[i]->pid);
            ck_epoch_call(rec, &window[i]->retire, fake_free);
            retired++;
        }
    }
    ck_epoch_end(rec, NULL);
    ck_epoch_poll(rec);
    atomic_fetch_add(&r->insert_failures, insert_failures);
    atomic_fetch_add(&r->erase_failures, erase_failures);
    atomic_fetch_add(&r->retired, retired);
    atomic_fetch_sub_explicit(&r->writers_running, 1, memory_order_release);
    return NULL;
}

struct reader_arg {
    struct race *r;
    int id;
};

static void *reader_main(void *varg)
{
    struct reader_arg *arg = varg;
    struct race *r = arg->r;
    ck_epoch_record_t *rec = &r->records[WRITERS + arg->id];
    uint64_t seed = 0x9e3779b97f4a7c15u * (uint64_t)(arg->id + 1);
    long lookups = 0, hits = 0, wrong = 0, pinned_checks = 0, pinned_missing = 0;
    /* At least one section, even when the writers were done before this
     * thread first ran (two CPUs, five threads): the checks below count on
     * lookups having happened. */
    do {
        ck_epoch_begin(rec, NULL);
        for (int i = 0; i < SECTION_OPS; i++) {
            /* Mostly pids near the newest: live, just erased, or not yet
             * inserted (handed out, insert pending). */
            uint64_t limit = proc_table_pid_limit(&r->table);
            uint64_t back = test_xorshift(&seed) % (4 * WRITERS * WINDOW);
            uint64_t pid = back < limit ? limit - back : 1;
            struct process *p = proc_table_lookup(&r->table, pid);
            lookups++;
            if (p) {
                hits++;
                wrong += as_fake(p)->pid != pid;
#ifdef TEST_TSAN
                __tsan_release(p); /* last read of p; see fake_free */
#endif
            }
            /* A pinned pid, once published, must always be found. */
            int w = (int)(test_xorshift(&seed) % WRITERS);
            size_t n = atomic_load_explicit(&r->pinned_count[w], memory_order_acquire);
            if (n > 0) {
                uint64_t want = r->pinned[w][test_xorshift(&seed) % n];
                struct process *q = proc_table_lookup(&r->table, want);
                pinned_checks++;
                pinned_missing += !q || as_fake(q)->pid != want;
            }
        }
        ck_epoch_end(rec, NULL);
        ck_epoch_poll(rec);
    } while (atomic_load_explicit(&r->writers_running, memory_order_acquire) > 0);
    atomic_fetch_add(&r->lookups, lookups);
    atomic_fetch_add(&r->hits, hits);
    atomic_fetch_add(&r->wrong, wrong);
    atomic_fetch_add(&r->pinned_checks, pinned_checks);
    atomic_fetch_add(&r->pinned_missing, pinned_missing);
    return NULL;
}

static bool free_visit(uint64_t pid, struct process *p, void *arg)
{
    (void)pid;
    (void)arg;
    free(as_fake(p));
    return true;
}

/* Two writers insert, erase and (through the small initial capacity) rebuild
 * constantly while three readers look pids up inside epoch sections: a reader
 * never gets a wrong or freed process, never misses a published long-lived
 * one, and every erased process and replaced array is freed by the end. */
static void test_readers_race_writers(void)
{
    /* aligned_alloc: ck_epoch records are cache-line aligned. */
    size_t size = (sizeof(struct race) + 63) / 64 * 64;
    struct race *r = aligned_alloc(64, size);
    CU_ASSERT_FATAL(r != NULL);
    memset(r, 0, size);
    ck_epoch_init(&r->epoch);
    for (int i = 0; i < WRITERS + READERS; i++)
        ck_epoch_register(&r->epoch, &r->records[i], NULL);
    CU_ASSERT_FATAL(proc_table_init(&r->table, &r->epoch, 16));
    freed_counter = &r->freed;
    atomic_store(&r->writers_running, WRITERS);

    pthread_t threads[WRITERS + READERS];
    struct writer_arg wargs[WRITERS];
    struct reader_arg rargs[READERS];
    for (int i = 0; i < READERS; i++) {
        rargs[i] = (struct reader_arg){r, i};
        CU_ASSERT_FATAL(pthread_create(&threads[WRITERS + i], NULL, reader_main, &rargs[i]) == 0);
    }
    for (int i = 0; i < WRITERS; i++) {
        wargs[i] = (struct writer_arg){r, i};
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, writer_main, &wargs[i]) == 0);
    }
    for (int i = 0; i < WRITERS + READERS; i++)
        pthread_join(threads[i], NULL);

    /* Every thread is gone and out of its section: one barrier per record
     * runs whatever its owner left pending. */
    for (int i = 0; i < WRITERS + READERS; i++)
        ck_epoch_barrier(&r->records[i]);

    CU_ASSERT_EQUAL(atomic_load(&r->insert_failures), 0);
    CU_ASSERT_EQUAL(atomic_load(&r->erase_failures), 0);
    CU_ASSERT_EQUAL(atomic_load(&r->wrong), 0);
    CU_ASSERT_EQUAL(atomic_load(&r->pinned_missing), 0);
    CU_ASSERT_TRUE(atomic_load(&r->lookups) > 0);
    CU_ASSERT_TRUE(atomic_load(&r->hits) > 0);
    CU_ASSERT_TRUE(atomic_load(&r->pinned_checks) > 0);
    CU_ASSERT_EQUAL(atomic_load(&r->freed), atomic_load(&r->retired));
    size_t pinned = 0;
    for (int w = 0; w < WRITERS; w++)
        pinned += atomic_load(&r->pinned_count[w]);
    CU_ASSERT_EQUAL(proc_table_count(&r->table), pinned);
    struct proc_table_stats s;
    proc_table_stats(&r->table, &s);
    CU_ASSERT_TRUE(s.rebuilds >= 100); /* at most 2048 slots: one per 1024 inserts or fewer */

    CU_ASSERT_TRUE(proc_table_foreach(&r->table, free_visit, NULL));
    proc_table_destroy(&r->table);
    for (int i = 0; i < WRITERS + READERS; i++)
        ck_epoch_unregister(&r->records[i]);
    freed_counter = NULL;
    free(r);
}

#define PID_THREADS 4
#define PIDS_EACH 50000

struct pid_arg {
    struct proc_table *t;
    uint64_t pids[PIDS_EACH];
};

static void *pid_main(void *varg)
{
    struct pid_arg *arg = varg;
    for (int i = 0; i < PIDS_EACH; i++)
        arg->pids[i] = proc_table_next_pid(arg->t);
    return NULL;
}

/* Concurrent spawns get distinct pids, 1..N with none skipped. */
static void test_next_pid_unique(void)
{
    ck_epoch_t epoch;
    ck_epoch_init(&epoch);
    struct proc_table t;
    CU_ASSERT_FATAL(proc_table_init(&t, &epoch, 16));
    struct pid_arg *args = calloc(PID_THREADS, sizeof *args);
    unsigned char *seen = calloc(PID_THREADS * PIDS_EACH + 1, 1);
    CU_ASSERT_FATAL(args && seen);
    pthread_t threads[PID_THREADS];
    for (int i = 0; i < PID_THREADS; i++) {
        args[i].t = &t;
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, pid_main, &args[i]) == 0);
    }
    for (int i = 0; i < PID_THREADS; i++)
        pthread_join(threads[i], NULL);
    int bad = 0;
    for (int i = 0; i < PID_THREADS; i++) {
        for (int j = 0; j < PIDS_EACH; j++) {
            uint64_t pid = args[i].pids[j];
            if (pid == 0 || pid > PID_THREADS * PIDS_EACH || seen[pid]++)
                bad++;
            if (j > 0 && pid <= args[i].pids[j - 1])
                bad++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(proc_table_pid_limit(&t), PID_THREADS * PIDS_EACH + 1);
    free(seen);
    free(args);
    proc_table_destroy(&t);
}

static CU_TestInfo ctests[] = {
    {"readers race writers and rebuilds", test_readers_race_writers},
    {"concurrent pids are unique", test_next_pid_unique},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(proc_table, tests)
TEST_SUITE_CONCURRENT(proc_table_concurrent, ctests)
