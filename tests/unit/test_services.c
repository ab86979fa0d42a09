/* Services started on first lookup (rt/names.h): under every policy with
 * 1, 2 and 4 workers, eight processes look a service's name up at once and
 * all get the one process its start function made, which ran once; a name
 * that is no service is unaffected (not found, nothing started); a
 * service that ended is started again by the next lookup; and a program
 * that looks up no service starts none. */
#include "bif/bif.h"
#include "rt/names.h"
#include "term/atom.h"
#include "test_main.h"

#include <stdatomic.h>
#include <time.h>

#define LOOKERS 8

static const unsigned worker_counts[] = {1, 2, 4};

static struct sched *make_sched(const struct policy_ops *policy, unsigned workers)
{
    struct sched *s = test_sched_new(policy, workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
    bif_registry_init();
    return s;
}

static enum body_stop wait_forever_step(struct process *p, void *state)
{
    (void)p;
    (void)state;
    return BODY_WAIT;
}

struct scene {
    _Atomic int starts;
    _Atomic int done;
    term found[LOOKERS];
    int phase;
    term unknown_found, again, restarted;
};

/* The service: a process that waits forever. The start sleeps a little so
 * that lookers on other workers arrive while it runs. */
static term start_service(struct process *self, term name, void *arg)
{
    struct scene *sc = arg;
    (void)name;
    atomic_fetch_add(&sc->starts, 1);
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
    return sched_spawn_native(self->sched, self, wait_forever_step, NULL, NULL);
}

static term service_name(void) { return atom_intern_cstr("test_service"); }

struct looker {
    struct scene *sc;
    int index;
};

static struct looker lookers[LOOKERS];

static enum body_stop looker_step(struct process *p, void *state)
{
    struct looker *l = state;
    l->sc->found[l->index] = names_whereis(p, service_name());
    atomic_fetch_add(&l->sc->done, 1);
    return BODY_EXIT;
}

static enum body_stop main_step(struct process *p, void *state)
{
    struct scene *sc = state;
    if (sc->phase == 0) {
        sc->phase = 1;
        sc->unknown_found = names_whereis(p, atom_intern_cstr("no_such_service"));
        for (int i = 0; i < LOOKERS; i++) {
            lookers[i] = (struct looker){sc, i};
            sched_spawn_native(p->sched, p, looker_step, &lookers[i], NULL);
        }
    }
    if (atomic_load(&sc->done) < LOOKERS)
        return BODY_YIELD;
    sc->again = names_whereis(p, service_name());
    /* The service ends (its name is released at once); the next lookup
     * starts a new one. */
    names_unregister(p, service_name());
    sc->restarted = names_whereis(p, service_name());
    return BODY_EXIT;
}

static void test_started_once_under_concurrent_lookups(void)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++)
        for (size_t w = 0; w < sizeof worker_counts / sizeof worker_counts[0]; w++) {
            struct sched *s = make_sched(*policy, worker_counts[w]);
            struct scene sc = {0};
            CU_ASSERT_TRUE_FATAL(names_add_service(s, service_name(), start_service, &sc));
            term main = sched_spawn_native(s, NULL, main_step, &sc, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main), 0);
            CU_ASSERT_TRUE(is_non_value(sc.unknown_found));
            CU_ASSERT_TRUE(is_pid(sc.found[0]));
            for (int i = 1; i < LOOKERS; i++)
                CU_ASSERT_EQUAL(sc.found[i], sc.found[0]);
            CU_ASSERT_EQUAL(sc.again, sc.found[0]);
            /* Once for the lookers, once more after the name was freed. */
            CU_ASSERT_EQUAL(atomic_load(&sc.starts), 2);
            CU_ASSERT_TRUE(is_pid(sc.restarted));
            CU_ASSERT_NOT_EQUAL(sc.restarted, sc.found[0]);
            sched_destroy(s);
        }
}

static enum body_stop unknown_only_step(struct process *p, void *state)
{
    struct scene *sc = state;
    sc->unknown_found = names_whereis(p, atom_intern_cstr("another_name"));
    return BODY_EXIT;
}

static void test_other_names_start_nothing(void)
{
    struct sched *s = make_sched(test_policies()[0], 2);
    struct scene sc = {0};
    CU_ASSERT_FALSE(names_add_service(s, make_small(1), start_service, &sc)); /* not an atom */
    CU_ASSERT_TRUE_FATAL(names_add_service(s, service_name(), start_service, &sc));
    term main = sched_spawn_native(s, NULL, unknown_only_step, &sc, NULL);
    CU_ASSERT_EQUAL(sched_run(s, main), 0);
    CU_ASSERT_TRUE(is_non_value(sc.unknown_found));
    CU_ASSERT_EQUAL(atomic_load(&sc.starts), 0);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"eight concurrent lookups start a service once", test_started_once_under_concurrent_lookups},
    {"other names are unaffected and start nothing", test_other_names_start_nothing},
    CU_TEST_INFO_NULL,
};

TEST_SUITE_CONCURRENT(services, tests)
