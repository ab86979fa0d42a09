/* The kernel's boot on first use (bif/kernel.c) and the hold on the
 * program's end it takes (rt/executor.h, sched_hold_end): under every
 * policy at 1 and 2 workers, a program whose main ends while another
 * process holds its end runs until that process ends, with main's status;
 * a holder that ends first leaves main's end to end the program; and the
 * rule that sends a builtin to wait for the boot: only the names ac_tab,
 * logger and application_controller, only before the boot ended, only
 * where the builtin may hand its call over, never for the application
 * controller itself. */
#include "bif/bif.h"
#include "rt/executor.h"
#include "rt/names.h"
#include "term/atom.h"
#include "test_main.h"

#include <stdatomic.h>

static const unsigned worker_counts[] = {1, 2};

static struct sched *make_sched(const struct policy_ops *policy, unsigned workers)
{
    struct sched *s = test_sched_new(policy, workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
    bif_registry_init();
    return s;
}

/* Slices the holder runs after main ended: enough that an end not held
 * would stop the program before the holder finished. */
#define HOLDER_SLICES 200

struct hold_scene {
    _Atomic int held;  /* the holder holds the end */
    term main_seen;    /* what sched_hold_end answered */
    bool holder_first; /* the holder ends before main */
    bool spawned;
    _Atomic bool finished; /* the holder did all of its slices */
    int slices;
};

static enum body_stop holder_step(struct process *p, void *state)
{
    struct hold_scene *sc = state;
    if (!atomic_load(&sc->held)) {
        sc->main_seen = sched_hold_end(p);
        atomic_store(&sc->held, 1);
    }
    if (sc->holder_first || ++sc->slices >= HOLDER_SLICES) {
        atomic_store(&sc->finished, true);
        p->exit_reason = A(normal);
        return BODY_EXIT;
    }
    return BODY_YIELD;
}

/* Main: spawns the holder, waits until it holds (and, when the holder
 * goes first, until it finished), then ends with a reason other than
 * normal, status 1. */
static enum body_stop hold_main_step(struct process *p, void *state)
{
    struct hold_scene *sc = state;
    if (!sc->spawned) {
        sc->spawned = true;
        sched_spawn_native(p->sched, p, holder_step, sc, NULL);
    }
    if (!atomic_load(&sc->held) || (sc->holder_first && !atomic_load(&sc->finished)))
        return BODY_YIELD;
    p->exit_reason = atom_intern_cstr("done");
    return BODY_EXIT;
}

static void run_hold(bool holder_first)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++)
        for (size_t w = 0; w < sizeof worker_counts / sizeof worker_counts[0]; w++) {
            struct sched *s = make_sched(*policy, worker_counts[w]);
            struct hold_scene sc = {.main_seen = THE_NON_VALUE, .holder_first = holder_first};
            term main = sched_spawn_native(s, NULL, hold_main_step, &sc, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main), 1);
            CU_ASSERT_EQUAL(sc.main_seen, main);
            CU_ASSERT_TRUE(atomic_load(&sc.finished));
            if (!holder_first)
                CU_ASSERT_EQUAL(sc.slices, HOLDER_SLICES);
            sched_destroy(s);
        }
}

static void test_end_waits_for_holder(void) { run_hold(false); }

static void test_holder_ended_first(void) { run_hold(true); }

struct pending_scene {
    bool ac_tab, logger, controller, other, untrappable, as_controller, booted;
};

static enum body_stop pending_step(struct process *p, void *state)
{
    struct pending_scene *sc = state;
    p->bif_may_trap = true;
    sc->ac_tab = bif_kernel_pending(p, atom_intern_cstr("ac_tab"));
    sc->logger = bif_kernel_pending(p, atom_intern_cstr("logger"));
    sc->controller = bif_kernel_pending(p, atom_intern_cstr("application_controller"));
    sc->other = bif_kernel_pending(p, atom_intern_cstr("my_table"));
    /* The controller is the kernel's whatever its group leader. */
    term controller = atom_intern_cstr("application_controller");
    sc->as_controller =
        names_register(p, controller, p->pid) == NAMES_DONE && bif_kernel_pending(p, atom_intern_cstr("ac_tab"));
    names_unregister(p, controller);
    p->bif_may_trap = false;
    sc->untrappable = bif_kernel_pending(p, atom_intern_cstr("logger"));
    p->bif_may_trap = true;
    sched_set_kernel_booted(p->sched);
    sc->booted = bif_kernel_pending(p, atom_intern_cstr("ac_tab"));
    p->bif_may_trap = false;
    p->exit_reason = A(normal);
    return BODY_EXIT;
}

static void test_which_calls_wait_for_the_boot(void)
{
    struct sched *s = make_sched(test_policies()[0], 1);
    struct pending_scene sc = {0};
    term main = sched_spawn_native(s, NULL, pending_step, &sc, NULL);
    CU_ASSERT_EQUAL(sched_run(s, main), 0);
    CU_ASSERT_TRUE(sc.ac_tab);
    CU_ASSERT_TRUE(sc.logger);
    CU_ASSERT_TRUE(sc.controller);
    CU_ASSERT_FALSE(sc.as_controller);
    CU_ASSERT_FALSE(sc.other);
    CU_ASSERT_FALSE(sc.untrappable);
    CU_ASSERT_FALSE(sc.booted);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"main's end waits for the holder's, with main's status", test_end_waits_for_holder},
    {"a holder that ended first leaves the end to main", test_holder_ended_first},
    {"only the kernel's names wait, only before the boot ended", test_which_calls_wait_for_the_boot},
    CU_TEST_INFO_NULL,
};

TEST_SUITE_CONCURRENT(kernel_boot, tests)
