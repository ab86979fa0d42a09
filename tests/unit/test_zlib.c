/* zlib streams (bif/zlib.c) as resources of their controlling process: a
 * process that ends with streams open frees them (their zlib state, queued
 * input and stash: the sanitizer build sees a leak otherwise); a stream
 * handed to another process is freed when that one ends; one handed to a
 * process that had ended is freed by the next open; closed streams are kept
 * for their errors, at most 16 per process. Native processes call the
 * builtins as zlib.erl would. */
#include "bif/bif.h"
#include "bif/zstreams.h"
#include "rt/executor.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/heap.h"
#include "test_main.h"

#include <stdatomic.h>

/* Yields the waiting process may spend before a test gives up. */
#define WAIT_SLICES 2000000

static term call(struct process *p, const char *function, unsigned arity, const term *args)
{
    const struct bif_entry *e = bif_lookup(atom_intern_cstr("zlib"), atom_intern_cstr(function), arity);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    return e->fn(p, args);
}

static term call1(struct process *p, const char *function, term a)
{
    term args[1] = {a};
    return call(p, function, 1, args);
}

static term call2(struct process *p, const char *function, term a, term b)
{
    term args[2] = {a, b};
    return call(p, function, 2, args);
}

static term open_stream(struct process *p) { return call(p, "open_nif", 0, NULL); }

/* deflateInit_nif(Z, default, deflated, 15, 8, default) */
static term deflate_init(struct process *p, term z)
{
    term args[6] = {z, make_small(-1), make_small(8), make_small(15), make_small(8), make_small(0)};
    return call(p, "deflateInit_nif", 6, args);
}

/* Queues size bytes of input (enqueue_nif(Z, [Bin])). */
static term enqueue(struct process *p, term z, size_t size)
{
    uint8_t *data;
    term bin = bin_alloc(&p->heap, size, &data);
    CU_ASSERT_FATAL(is_value(bin));
    for (size_t i = 0; i < size; i++)
        data[i] = (uint8_t)(i * 7 % 251);
    return call2(p, "enqueue_nif", z, heap_cons(&p->heap, bin, NIL));
}

static enum body_stop exit_normal(struct process *p)
{
    p->exit_reason = A(normal);
    return BODY_EXIT;
}

static struct sched *make_sched(unsigned workers)
{
    struct sched *s = test_sched_new(test_policies()[0], workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
    bif_registry_init();
    return s;
}

/* ---- a process that ends with streams open ---- */

struct owner_scene {
    size_t base;
    bool spawned, opened_seen;
    _Atomic bool opened;
    long waits;
    bool freed;
};

static enum body_stop owner_step(struct process *p, void *state)
{
    struct owner_scene *sc = state;
    term z1 = open_stream(p);
    CU_ASSERT_EQUAL(deflate_init(p, z1), A(ok));
    CU_ASSERT_EQUAL(enqueue(p, z1, 20000), A(ok));
    term args[4] = {z1, make_small(8192), make_small(8192), make_small(0)};
    CU_ASSERT_TRUE(is_tuple(call(p, "deflate_nif", 4, args))); /* compresses the first 8 KiB */
    term z2 = open_stream(p);
    term iargs[3] = {z2, make_small(15), make_small(2)};
    CU_ASSERT_EQUAL(call(p, "inflateInit_nif", 3, iargs), A(ok));
    CU_ASSERT_EQUAL(enqueue(p, z2, 3000), A(ok));
    CU_ASSERT_EQUAL(call2(p, "setStash_nif", z2, heap_tuple2(&p->heap, A(ok), z1)), A(ok));
    atomic_store(&sc->opened, true);
    return exit_normal(p);
}

static enum body_stop owner_main_step(struct process *p, void *state)
{
    struct owner_scene *sc = state;
    if (!sc->spawned) {
        sc->spawned = true;
        sched_spawn_native(p->sched, p, owner_step, sc, NULL);
    }
    if (!atomic_load(&sc->opened))
        return BODY_YIELD;
    if (zstreams_live() == sc->base + 2)
        sc->opened_seen = true; /* may already be freed: not asserted */
    if (zstreams_live() != sc->base && ++sc->waits < WAIT_SLICES)
        return BODY_YIELD;
    sc->freed = zstreams_live() == sc->base;
    return exit_normal(p);
}

static void test_owner_ends(void)
{
    for (unsigned workers = 1; workers <= 2; workers++) {
        struct sched *s = make_sched(workers);
        struct owner_scene sc = {.base = zstreams_live()};
        term main = sched_spawn_native(s, NULL, owner_main_step, &sc, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main), 0);
        CU_ASSERT_TRUE(sc.freed);
        sched_destroy(s);
        CU_ASSERT_EQUAL(zstreams_live(), sc.base);
    }
}

/* ---- a stream handed to another process ---- */

struct handover_scene {
    size_t base;
    term z, child;
    _Atomic bool given;
    _Atomic bool adopted;
    term child_answer, old_answer, old_reason;
    long waits;
    bool freed;
    int phase;
};

static enum body_stop heir_step(struct process *p, void *state)
{
    struct handover_scene *sc = state;
    if (!atomic_load(&sc->given))
        return BODY_YIELD;
    sc->child_answer = deflate_init(p, sc->z); /* adopts it */
    if (sc->child_answer == A(ok))
        enqueue(p, sc->z, 5000);
    atomic_store(&sc->adopted, true);
    return exit_normal(p);
}

static enum body_stop handover_main_step(struct process *p, void *state)
{
    struct handover_scene *sc = state;
    switch (sc->phase) {
    case 0:
        sc->z = open_stream(p);
        sc->child = sched_spawn_native(p->sched, p, heir_step, sc, NULL);
        CU_ASSERT_EQUAL(call2(p, "set_controller_nif", sc->z, sc->child), A(ok));
        sc->old_answer = deflate_init(p, sc->z);
        sc->old_reason = proc_bif_call.fault_reason;
        atomic_store(&sc->given, true);
        sc->phase = 1;
        return BODY_YIELD;
    default:
        if (!atomic_load(&sc->adopted) || (zstreams_live() != sc->base && ++sc->waits < WAIT_SLICES))
            return BODY_YIELD;
        sc->freed = zstreams_live() == sc->base;
        return exit_normal(p);
    }
}

static void test_handed_over(void)
{
    for (unsigned workers = 1; workers <= 2; workers++) {
        struct sched *s = make_sched(workers);
        struct handover_scene sc = {.base = zstreams_live()};
        term main = sched_spawn_native(s, NULL, handover_main_step, &sc, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main), 0);
        CU_ASSERT_EQUAL(sc.old_answer, THE_NON_VALUE);
        CU_ASSERT_EQUAL(sc.old_reason, atom_intern_cstr("not_on_controlling_process"));
        CU_ASSERT_EQUAL(sc.child_answer, A(ok));
        CU_ASSERT_TRUE(sc.freed);
        sched_destroy(s);
        CU_ASSERT_EQUAL(zstreams_live(), sc.base);
    }
}

/* ---- handed to a process that had ended; closed streams ---- */

struct orphan_scene {
    size_t base;
    term child, z;
    int phase;
    size_t after_give, after_open, after_closes;
    term unknown_close;
};

static enum body_stop ended_step(struct process *p, void *state)
{
    (void)state;
    return exit_normal(p);
}

static enum body_stop orphan_main_step(struct process *p, void *state)
{
    struct orphan_scene *sc = state;
    if (sc->phase == 0) {
        sc->z = open_stream(p);
        CU_ASSERT_EQUAL(deflate_init(p, sc->z), A(ok));
        sc->child = sched_spawn_native(p->sched, p, ended_step, sc, NULL);
        sc->phase = 1;
    }
    if (sched_is_alive(p, sc->child))
        return BODY_YIELD;
    CU_ASSERT_EQUAL(call2(p, "set_controller_nif", sc->z, sc->child), A(ok));
    sc->after_give = zstreams_live();
    term kept = open_stream(p); /* frees the orphan */
    sc->after_open = zstreams_live();
    CU_ASSERT_EQUAL(call1(p, "close_nif", kept), A(ok));
    for (int i = 0; i < 40; i++)
        CU_ASSERT_EQUAL(call1(p, "close_nif", open_stream(p)), A(ok));
    sc->after_closes = zstreams_live();
    sc->unknown_close = call1(p, "close_nif", sc->z); /* freed: an unknown reference */
    return exit_normal(p);
}

static void test_orphans_and_closed(void)
{
    struct sched *s = make_sched(1);
    struct orphan_scene sc = {.base = zstreams_live()};
    term main = sched_spawn_native(s, NULL, orphan_main_step, &sc, NULL);
    CU_ASSERT_EQUAL(sched_run(s, main), 0);
    CU_ASSERT_EQUAL(sc.after_give, sc.base + 1);
    CU_ASSERT_EQUAL(sc.after_open, sc.base + 1);
    CU_ASSERT_EQUAL(sc.after_closes, sc.base + 16);
    CU_ASSERT_EQUAL(sc.unknown_close, THE_NON_VALUE);
    sched_destroy(s);
    CU_ASSERT_EQUAL(zstreams_live(), sc.base);
}

static CU_TestInfo tests[] = {
    {"a process that ends frees its streams", test_owner_ends},
    {"a stream handed over is freed with its new controller", test_handed_over},
    {"orphans of ended processes and closed streams are freed", test_orphans_and_closed},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(zlib_streams, tests)
