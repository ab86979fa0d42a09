/* Links, monitors and exit signals between native processes on real
 * workers, under every policy with 1, 2 and 4 workers: trapped and untrapped
 * link signals, 'DOWN' order, exit/2 to a process running elsewhere (the
 * caller blocks; the target is gone when exit/2 returns), a message sent
 * before an exit signal arriving first, signals to waiting, queued and
 * blocked processes, names released before links are signalled, a long
 * linked chain, and the wakeup stress of the seed's executables_wakeups:
 * a chain of 16 linked spinning processes ended by one exit signal with
 * every member monitored, watchers woken as what they watch ends, and a
 * halt in another process, many times per configuration. */
#include "bif/bif.h"
#include "rt/message.h"
#include "term/atom.h"
#include "term/heap.h"
#include "test_main.h"

#include <stdatomic.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHAIN_LENGTH 10000
#define STRESS_ROUNDS 100
#else
#define CHAIN_LENGTH 100000
#define STRESS_ROUNDS 1000
#endif

static const unsigned worker_counts[] = {1, 2, 4};
#define FOR_EACH_CONFIG(policy, workers)                                                                               \
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++)                                  \
        for (size_t w_ = 0; w_ < sizeof worker_counts / sizeof worker_counts[0] && ((workers = worker_counts[w_]), 1); \
             w_++)

static struct sched *make_sched(const struct policy_ops *policy, unsigned workers, enum send_mode mode)
{
    struct sched *s = test_sched_new(policy, workers, mode, TIMER_THREAD);
    bif_registry_init();
    return s;
}

/* Calls erlang:name/arity as the engine would. */
static term call(struct process *p, const char *name, unsigned arity, const term *args)
{
    const struct bif_entry *e = bif_lookup(A(erlang), atom_intern_cstr(name), arity);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    return e->fn(p, args);
}

static term call1(struct process *p, const char *name, term a)
{
    term args[1] = {a};
    return call(p, name, 1, args);
}

static term call2(struct process *p, const char *name, term a, term b)
{
    term args[2] = {a, b};
    return call(p, name, 2, args);
}

/* A builtin's answer that is not a value: blocked (repeat later), or the
 * process ended itself. */
static bool blocked(struct process *p, term result) { return is_non_value(result) && p->fault_class == FAULT_BLOCKED; }

static term receive_any(struct process *p)
{
    term m = proc_receive_peek(p);
    return is_value(m) ? proc_receive_take(p) : THE_NON_VALUE;
}

static bool is_tuple_tagged(term t, term tag, unsigned arity)
{
    return is_tuple(t) && tuple_arity(t) == arity && tuple_elements(t)[0] == tag;
}

/* ---- bodies used by several scenes ---- */

static enum body_stop spin_step(struct process *p, void *state)
{
    (void)state;
    while (proc_spend(p, 1))
        ;
    return BODY_YIELD;
}

static enum body_stop wait_forever_step(struct process *p, void *state)
{
    (void)state;
    while (is_value(receive_any(p)))
        ;
    return BODY_WAIT;
}

static enum body_stop exit_boom_step(struct process *p, void *state)
{
    (void)state;
    p->exit_reason = atom_intern_cstr("boom");
    return BODY_EXIT;
}

/* ---- a trapping parent gets {'EXIT', Child, boom} ---- */

struct link_scene {
    int phase;
    term child;
    term got;
    bool untrapped;
};

static enum body_stop link_parent_step(struct process *p, void *state)
{
    struct link_scene *sc = state;
    if (sc->phase == 0) {
        sc->phase = 1;
        if (!sc->untrapped)
            call2(p, "process_flag", A(trap_exit), A(true));
        sc->child = sched_spawn_native(proc_sched(p), p, exit_boom_step, NULL, NULL);
        term r = call1(p, "link", sc->child);
        /* It may have ended already: trapping, link answers true and
         * sends {'EXIT', Child, noproc}. */
        CU_ASSERT_EQUAL(r, A(true));
    }
    term m = receive_any(p);
    if (is_non_value(m))
        return BODY_WAIT;
    sc->got = m;
    return BODY_EXIT;
}

static void test_trapped_link_signal_is_a_message(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        struct sched *s = make_sched(*policy, workers, SEND_MODE_ARRIVALS);
        struct link_scene sc = {0};
        term parent = sched_spawn_native(s, NULL, link_parent_step, &sc, NULL);
        CU_ASSERT_EQUAL(sched_run(s, parent), 0);
        CU_ASSERT_TRUE(is_tuple_tagged(sc.got, A(EXIT), 3));
        if (is_tuple_tagged(sc.got, A(EXIT), 3)) {
            CU_ASSERT_EQUAL(tuple_elements(sc.got)[1], sc.child);
            term why = tuple_elements(sc.got)[2];
            CU_ASSERT_TRUE(why == atom_intern_cstr("boom") || why == A(noproc));
        }
        sched_destroy(s);
    }
}

/* Not trapping: a linked process's abnormal end ends the parent too, and
 * the main process's end is the program's (status 1). */
static enum body_stop untrapped_parent_step(struct process *p, void *state)
{
    struct link_scene *sc = state;
    if (sc->phase == 0) {
        sc->phase = 1;
        sc->child = sched_spawn_native(proc_sched(p), p, wait_forever_step, NULL, NULL);
        CU_ASSERT_EQUAL(call1(p, "link", sc->child), A(true));
        /* The child ends by exit/2 from here; its link then ends us. */
        term r = call2(p, "exit", sc->child, atom_intern_cstr("boom"));
        if (blocked(p, r))
            return BODY_BLOCKED;
        CU_ASSERT_EQUAL(r, A(true));
    } else if (sc->phase == 1) {
        sc->phase = 2;
        term r = call2(p, "exit", sc->child, atom_intern_cstr("boom"));
        if (blocked(p, r))
            return BODY_BLOCKED;
    }
    receive_any(p);
    return BODY_WAIT; /* the link signal ends it */
}

static void test_untrapped_link_signal_ends_the_process(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        struct sched *s = make_sched(*policy, workers, SEND_MODE_ARRIVALS);
        struct link_scene sc = {0};
        term parent = sched_spawn_native(s, NULL, untrapped_parent_step, &sc, NULL);
        CU_ASSERT_EQUAL(sched_run(s, parent), 1);
        sched_destroy(s);
    }
}

/* ---- 'DOWN' messages in the order the monitors were made ---- */

struct down_scene {
    int phase;
    term target;
    term refs[5];
    int downs, in_order;
    term reason;
};

static enum body_stop down_watcher_step(struct process *p, void *state)
{
    struct down_scene *sc = state;
    if (sc->phase == 0) {
        sc->phase = 1;
        sc->target = sched_spawn_native(proc_sched(p), p, wait_forever_step, NULL, NULL);
        for (int i = 0; i < 5; i++)
            sc->refs[i] = call2(p, "monitor", A(process), sc->target);
        /* The third one is stopped: its 'DOWN' never comes. */
        CU_ASSERT_EQUAL(call1(p, "demonitor", sc->refs[2]), A(true));
        term r = call2(p, "exit", sc->target, atom_intern_cstr("stop"));
        if (blocked(p, r))
            sc->phase = 2;
        else
            CU_ASSERT_EQUAL(r, A(true));
        if (sc->phase == 2)
            return BODY_BLOCKED;
    } else if (sc->phase == 2) {
        sc->phase = 1;
        term r = call2(p, "exit", sc->target, atom_intern_cstr("stop"));
        if (blocked(p, r)) {
            sc->phase = 2;
            return BODY_BLOCKED;
        }
    }
    static const int expected[4] = {0, 1, 3, 4};
    for (term m; is_value(m = receive_any(p));) {
        CU_ASSERT_TRUE_FATAL(is_tuple_tagged(m, A(DOWN), 5));
        const term *e = tuple_elements(m);
        if (sc->downs < 4 && ref_id_low(e[1]) == ref_id_low(sc->refs[expected[sc->downs]]))
            sc->in_order++;
        CU_ASSERT_EQUAL(e[2], A(process));
        CU_ASSERT_EQUAL(e[3], sc->target);
        sc->reason = e[4];
        if (++sc->downs == 4)
            return BODY_EXIT;
    }
    return BODY_WAIT;
}

static void test_downs_come_in_monitoring_order(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        struct sched *s = make_sched(*policy, workers, SEND_MODE_ARRIVALS);
        struct down_scene sc = {0};
        term watcher = sched_spawn_native(s, NULL, down_watcher_step, &sc, NULL);
        CU_ASSERT_EQUAL(sched_run(s, watcher), 0);
        CU_ASSERT_EQUAL(sc.downs, 4);
        CU_ASSERT_EQUAL(sc.in_order, 4);
        CU_ASSERT_EQUAL(sc.reason, atom_intern_cstr("stop"));
        sched_destroy(s);
    }
}

/* ---- time offset monitors ---- */

/* A monitor of the clock service has no process behind it: process_info
 * lists it, demonitor ends it once, and one still held when its watcher
 * ends goes with it (the watcher's end must not look for a target). */
struct offset_scene {
    term refs_listed, first_info, second_info;
};

static enum body_stop offset_watcher_step(struct process *p, void *state)
{
    struct offset_scene *sc = state;
    term r1 = call2(p, "monitor", A(time_offset), atom_intern_cstr("clock_service"));
    term r2 = call2(p, "monitor", A(time_offset), atom_intern_cstr("clock_service"));
    CU_ASSERT(is_ref(r1) && is_ref(r2));
    term monitors = call2(p, "process_info", p->pid, atom_intern_cstr("monitors"));
    CU_ASSERT_FATAL(is_tuple(monitors));
    sc->refs_listed = make_small(bif_list_length(tuple_element(monitors, 2)));
    term info = heap_cons(&p->heap, atom_intern_cstr("info"), NIL);
    sc->first_info = call2(p, "demonitor", r1, info);
    sc->second_info = call2(p, "demonitor", r1, info);
    return BODY_EXIT; /* r2 still held */
}

static void test_time_offset_monitors(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        struct sched *s = make_sched(*policy, workers, SEND_MODE_ARRIVALS);
        struct offset_scene sc = {0};
        term watcher = sched_spawn_native(s, NULL, offset_watcher_step, &sc, NULL);
        CU_ASSERT_EQUAL(sched_run(s, watcher), 0);
        CU_ASSERT_EQUAL(sc.refs_listed, make_small(2));
        CU_ASSERT_EQUAL(sc.first_info, A(true));
        CU_ASSERT_EQUAL(sc.second_info, A(false));
        sched_destroy(s);
    }
}

/* ---- exit/2 to a process running elsewhere ---- */

struct kill_scene {
    int phase;
    term victims[4];
    int blocked_calls;
    int alive_after;
};

static enum body_stop killer_step(struct process *p, void *state)
{
    struct kill_scene *sc = state;
    if (sc->phase == 0) {
        for (int i = 0; i < 4; i++)
            sc->victims[i] = sched_spawn_native(proc_sched(p), p, spin_step, NULL, NULL);
        sc->phase = 1;
        return BODY_YIELD; /* let the other workers take them */
    }
    while (sc->phase <= 4) {
        term r = call2(p, "exit", sc->victims[sc->phase - 1], A(kill));
        if (blocked(p, r)) {
            sc->blocked_calls++;
            return BODY_BLOCKED;
        }
        CU_ASSERT_EQUAL(r, A(true));
        /* is_process_alive/1 right after exit(P, kill) returns: false. */
        if (sched_is_alive(p, sc->victims[sc->phase - 1]))
            sc->alive_after++;
        sc->phase++;
    }
    return BODY_EXIT;
}

static void test_exit_kill_is_done_when_exit_returns(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        struct sched *s = make_sched(*policy, workers, SEND_MODE_ARRIVALS);
        struct kill_scene sc = {0};
        term killer = sched_spawn_native(s, NULL, killer_step, &sc, NULL);
        CU_ASSERT_EQUAL(sched_run(s, killer), 0);
        CU_ASSERT_EQUAL(sc.alive_after, 0);
        if (workers == 1)
            CU_ASSERT_EQUAL(sc.blocked_calls, 0);
        CU_ASSERT_EQUAL(sched_live_processes(s), 0);
        sched_destroy(s);
    }
}

/* ---- a message sent before an exit signal arrives first ---- */

struct order_scene {
    _Atomic int trapping;
    term receiver;
    term first, second;
    int phase;
    bool sent;
};

static enum body_stop trapping_spinner_step(struct process *p, void *state)
{
    struct order_scene *sc = state;
    if (sc->phase == 0) {
        sc->phase = 1;
        call2(p, "process_flag", A(trap_exit), A(true));
        atomic_store(&sc->trapping, 1);
    }
    /* Spin for a while so that the sender finds it running, then read. */
    if (sc->phase < 40) {
        sc->phase++;
        while (proc_spend(p, 1))
            ;
        return BODY_YIELD;
    }
    term m = receive_any(p);
    if (is_non_value(m))
        return BODY_WAIT;
    if (is_non_value(sc->first)) {
        sc->first = m;
        m = receive_any(p);
        if (is_non_value(m))
            return BODY_WAIT;
    }
    sc->second = m;
    return BODY_EXIT;
}

static enum body_stop ordered_sender_step(struct process *p, void *state)
{
    struct order_scene *sc = state;
    if (!atomic_load(&sc->trapping))
        return BODY_YIELD;
    if (!sc->sent) {
        /* First the message (once), then the signal (repeated if blocked). */
        enum send_result sent = sched_send(p, sc->receiver, atom_intern_cstr("hello"));
        if (sent == SEND_BLOCKED)
            return BODY_BLOCKED;
        sc->sent = true;
    }
    term r = call2(p, "exit", sc->receiver, atom_intern_cstr("goodbye"));
    if (blocked(p, r))
        return BODY_BLOCKED;
    return BODY_EXIT;
}

static enum body_stop order_main_step(struct process *p, void *state)
{
    struct order_scene *sc = state;
    if (is_non_value(sc->receiver)) {
        sc->receiver = sched_spawn_native(proc_sched(p), p, trapping_spinner_step, sc, NULL);
        sched_spawn_native(proc_sched(p), p, ordered_sender_step, sc, NULL);
        call2(p, "monitor", A(process), sc->receiver);
    }
    term m = receive_any(p);
    return is_value(m) ? BODY_EXIT : BODY_WAIT;
}

static void test_a_message_before_an_exit_signal_arrives_first(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        for (int mode = 0; mode < 2; mode++) {
            struct sched *s = make_sched(*policy, workers, mode ? SEND_MODE_BLOCKING : SEND_MODE_ARRIVALS);
            struct order_scene sc = {0, THE_NON_VALUE, THE_NON_VALUE, THE_NON_VALUE, 0, false};
            term main = sched_spawn_native(s, NULL, order_main_step, &sc, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main), 0);
            CU_ASSERT_EQUAL(sc.first, atom_intern_cstr("hello"));
            CU_ASSERT_TRUE(is_tuple_tagged(sc.second, A(EXIT), 3) &&
                           tuple_elements(sc.second)[2] == atom_intern_cstr("goodbye"));
            sched_destroy(s);
        }
    }
}

/* ---- signals to waiting, queued and blocked processes ---- */

struct states_scene {
    int phase;
    term waiting, queued, blocked_sender, spinner;
    _Atomic int queued_ran;
    term refs[3];
    int downs, gone;
};

static enum body_stop mark_ran_step(struct process *p, void *state)
{
    struct states_scene *sc = state;
    (void)p;
    atomic_store(&sc->queued_ran, 1);
    return BODY_EXIT;
}

static enum body_stop blocking_sender_step(struct process *p, void *state)
{
    struct states_scene *sc = state;
    /* Sends to the spinner forever: in blocking mode, on two workers it is
     * blocked on it most of the time. */
    for (;;) {
        enum send_result r = sched_send(p, sc->spinner, make_small(1));
        if (r == SEND_BLOCKED)
            return BODY_BLOCKED;
        if (!proc_spend(p, 1))
            return BODY_YIELD;
    }
}

static enum body_stop states_main_step(struct process *p, void *state)
{
    struct states_scene *sc = state;
    struct sched *s = proc_sched(p);
    switch (sc->phase) {
    case 0:
        sc->spinner = sched_spawn_native(s, p, spin_step, NULL, NULL);
        sc->waiting = sched_spawn_native(s, p, wait_forever_step, NULL, NULL);
        sc->blocked_sender = sched_spawn_native(s, p, blocking_sender_step, sc, NULL);
        sc->phase = 1;
        return BODY_YIELD; /* the waiting one parks, the sender starts sending */
    case 1:
        /* Spawned and signalled in one slice: it is still in its queue. */
        sc->queued = sched_spawn_native(s, p, mark_ran_step, sc, NULL);
        sc->refs[0] = call2(p, "monitor", A(process), sc->waiting);
        sc->refs[1] = call2(p, "monitor", A(process), sc->queued);
        sc->refs[2] = call2(p, "monitor", A(process), sc->blocked_sender);
        sc->phase = 2;
        /* fall through */
    case 2: {
        term r = call2(p, "exit", sc->queued, atom_intern_cstr("gone"));
        if (blocked(p, r))
            return BODY_BLOCKED;
        sc->phase = 3;
    }
        /* fall through */
    case 3: {
        term r = call2(p, "exit", sc->waiting, atom_intern_cstr("gone"));
        if (blocked(p, r))
            return BODY_BLOCKED;
        sc->phase = 4;
    }
        /* fall through */
    case 4: {
        term r = call2(p, "exit", sc->blocked_sender, atom_intern_cstr("gone"));
        if (blocked(p, r))
            return BODY_BLOCKED;
        sc->phase = 5;
    }
        /* fall through */
    case 5: {
        term r = call2(p, "exit", sc->spinner, A(kill));
        if (blocked(p, r))
            return BODY_BLOCKED;
        sc->phase = 6;
    }
        /* fall through */
    default:
        for (term m; is_value(m = receive_any(p));) {
            if (!is_tuple_tagged(m, A(DOWN), 5))
                continue;
            sc->downs++;
            /* On more than one worker the queued one may have run and
             * ended first: its 'DOWN' then says normal or noproc. */
            if (tuple_elements(m)[4] == atom_intern_cstr("gone"))
                sc->gone++;
        }
        return sc->downs == 3 ? BODY_EXIT : BODY_WAIT;
    }
}

static void test_signals_reach_waiting_queued_and_blocked_processes(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        for (int mode = 0; mode < 2; mode++) {
            struct sched *s = make_sched(*policy, workers, mode ? SEND_MODE_BLOCKING : SEND_MODE_ARRIVALS);
            struct states_scene sc = {0};
            term main = sched_spawn_native(s, NULL, states_main_step, &sc, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main), 0);
            CU_ASSERT_EQUAL(sc.downs, 3);
            CU_ASSERT_TRUE(sc.gone >= 2);
            if (workers == 1) {
                CU_ASSERT_EQUAL(sc.gone, 3);
                CU_ASSERT_EQUAL(atomic_load(&sc.queued_ran), 0);
            }
            CU_ASSERT_EQUAL(sched_live_processes(s), 0);
            sched_destroy(s);
        }
    }
}

/* ---- a name is released before links and monitors are signalled ---- */

struct name_scene {
    int phase;
    term named;
    term reregistered;
};

static enum body_stop name_main_step(struct process *p, void *state)
{
    struct name_scene *sc = state;
    term name = atom_intern_cstr("the_name");
    if (sc->phase == 0) {
        sc->phase = 1;
        sc->named = sched_spawn_native(proc_sched(p), p, wait_forever_step, NULL, NULL);
        CU_ASSERT_EQUAL(call2(p, "register", name, sc->named), A(true));
        call2(p, "monitor", A(process), sc->named);
    }
    if (sc->phase == 1) {
        term r = call2(p, "exit", sc->named, A(kill));
        if (blocked(p, r))
            return BODY_BLOCKED;
        sc->phase = 2;
    }
    term m = receive_any(p);
    if (is_non_value(m))
        return BODY_WAIT;
    /* On its 'DOWN', the name is free again. */
    sc->reregistered = call2(p, "register", name, p->pid);
    return BODY_EXIT;
}

static void test_names_are_released_before_downs(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        struct sched *s = make_sched(*policy, workers, SEND_MODE_ARRIVALS);
        struct name_scene sc = {0};
        term main = sched_spawn_native(s, NULL, name_main_step, &sc, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main), 0);
        CU_ASSERT_EQUAL(sc.reregistered, A(true));
        sched_destroy(s);
    }
}

/* ---- a long linked chain ends without recursion ---- */

struct chain_scene {
    int phase;
    long length;
    term first;
    _Atomic term last;
    _Atomic long ready; /* members linked to their successor (or the last) */
    _Atomic long ended;
};

/* The chain is built by its members: each spawns and links the next. */
struct chain_member {
    struct chain_scene *sc;
    long left;
    bool spawned;
};

static void free_member(void *state)
{
    struct chain_member *m = state;
    atomic_fetch_add(&m->sc->ended, 1);
    free(m);
}

static enum body_stop chain_member_step(struct process *p, void *state)
{
    struct chain_member *m = state;
    if (!m->spawned) {
        m->spawned = true;
        if (m->left > 0) {
            struct chain_member *next = malloc(sizeof *next);
            CU_ASSERT_PTR_NOT_NULL_FATAL(next);
            *next = (struct chain_member){m->sc, m->left - 1, false};
            term pid = sched_spawn_native(proc_sched(p), p, chain_member_step, next, free_member);
            CU_ASSERT_EQUAL(call1(p, "link", pid), A(true));
        } else {
            atomic_store(&m->sc->last, p->pid);
        }
        atomic_fetch_add(&m->sc->ready, 1);
    }
    return wait_forever_step(p, NULL);
}

static enum body_stop chain_driver_step(struct process *p, void *state)
{
    struct chain_scene *sc = state;
    if (sc->phase == 0) {
        sc->phase = 1;
        struct chain_member *head = malloc(sizeof *head);
        CU_ASSERT_PTR_NOT_NULL_FATAL(head);
        *head = (struct chain_member){sc, sc->length - 1, false};
        sc->first = sched_spawn_native(proc_sched(p), p, chain_member_step, head, free_member);
    }
    if (sc->phase == 1) {
        /* Wait until the whole chain exists, linked. */
        if (atomic_load(&sc->ready) < sc->length)
            return BODY_YIELD;
        call2(p, "monitor", A(process), atomic_load(&sc->last));
        sc->phase = 2;
    }
    if (sc->phase == 2) {
        term r = call2(p, "exit", sc->first, atom_intern_cstr("cut"));
        if (blocked(p, r))
            return BODY_BLOCKED;
        sc->phase = 3;
    }
    term m = receive_any(p);
    if (is_non_value(m))
        return BODY_WAIT;
    CU_ASSERT_TRUE(is_tuple_tagged(m, A(DOWN), 5) && tuple_elements(m)[4] == atom_intern_cstr("cut"));
    return BODY_EXIT;
}

static void test_a_long_linked_chain_ends(void)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++) {
        for (unsigned workers = 1; workers <= 2; workers++) {
            struct sched *s = make_sched(*policy, workers, SEND_MODE_ARRIVALS);
            struct chain_scene sc = {0, test_rounds(*policy, CHAIN_LENGTH), THE_NON_VALUE, THE_NON_VALUE, 0, 0};
            term main = sched_spawn_native(s, NULL, chain_driver_step, &sc, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main), 0);
            CU_ASSERT_EQUAL(atomic_load(&sc.ended), sc.length);
            CU_ASSERT_EQUAL(sched_live_processes(s), 0);
            sched_destroy(s);
        }
    }
}

/* ---- suspend_process: a suspended process does not run ---- */

struct suspend_scene {
    int phase;
    term spinner;
    _Atomic long spins; /* the spinner's slices */
    long spins_at_suspend;
    int waits;
};

static enum body_stop counting_spin_step(struct process *p, void *state)
{
    struct suspend_scene *sc = state;
    atomic_fetch_add(&sc->spins, 1);
    while (proc_spend(p, 1))
        ;
    return BODY_YIELD;
}

static term status_of(struct process *p, term pid, bool *was_blocked)
{
    term r = call2(p, "process_info", pid, A(status));
    *was_blocked = blocked(p, r);
    return *was_blocked ? THE_NON_VALUE : tuple_elements(r)[1];
}

static enum body_stop suspender_step(struct process *p, void *state)
{
    struct suspend_scene *sc = state;
    bool was_blocked;
    switch (sc->phase) {
    case 0:
        sc->spinner = sched_spawn_native(proc_sched(p), p, counting_spin_step, sc, NULL);
        sc->phase = 1;
        return BODY_YIELD;
    case 1: {
        term r = call1(p, "suspend_process", sc->spinner);
        if (blocked(p, r))
            return BODY_BLOCKED; /* it ran elsewhere: the suspend waits for its slice */
        CU_ASSERT_EQUAL(r, A(true));
        sc->phase = 2;
    }
        /* fall through */
    case 2: {
        term status = status_of(p, sc->spinner, &was_blocked);
        if (was_blocked)
            return BODY_BLOCKED;
        CU_ASSERT_EQUAL(status, atom_intern_cstr("suspended"));
        sc->spins_at_suspend = atomic_load(&sc->spins);
        sc->phase = 3;
        return BODY_YIELD;
    }
    case 3:
        /* Yield a few slices: a suspended process is in no queue. */
        if (sc->waits++ < 20)
            return BODY_YIELD;
        CU_ASSERT_EQUAL(atomic_load(&sc->spins), sc->spins_at_suspend);
        CU_ASSERT_EQUAL(call1(p, "resume_process", sc->spinner), A(true));
        CU_ASSERT_TRUE(is_non_value(call1(p, "resume_process", sc->spinner))); /* not suspended: badarg */
        p->fault_class = FAULT_NONE;
        sc->phase = 4;
        return BODY_YIELD;
    default: {
        /* Resumed, it runs again. */
        if (atomic_load(&sc->spins) == sc->spins_at_suspend)
            return BODY_YIELD;
        term status = status_of(p, sc->spinner, &was_blocked);
        if (was_blocked)
            return BODY_BLOCKED;
        CU_ASSERT_EQUAL(status, atom_intern_cstr("runnable"));
        term r = call2(p, "exit", sc->spinner, A(kill));
        if (blocked(p, r))
            return BODY_BLOCKED;
        return BODY_EXIT;
    }
    }
}

static void test_a_suspended_process_does_not_run(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        struct sched *s = make_sched(*policy, workers, SEND_MODE_ARRIVALS);
        struct suspend_scene sc = {0, THE_NON_VALUE, 0, 0, 0};
        term main = sched_spawn_native(s, NULL, suspender_step, &sc, NULL);
        CU_ASSERT_EQUAL(sched_run(s, main), 0);
        CU_ASSERT_EQUAL(sc.phase, 4);
        sched_destroy(s);
    }
}

/* ---- aliases: a send to an alias reaches its owner until unalias ---- */

struct alias_scene {
    _Atomic term alias;
    _Atomic int unaliased;
    term owner;
    int phase;
    term got[2];
    int count;
};

static enum body_stop alias_sender_step(struct process *p, void *state)
{
    struct alias_scene *sc = state;
    if (sc->phase == 0) {
        if (is_non_value(atomic_load(&sc->alias)))
            return BODY_YIELD;
        if (sched_send(p, atomic_load(&sc->alias), atom_intern_cstr("via_alias")) == SEND_BLOCKED)
            return BODY_BLOCKED;
        sc->phase = 1;
    }
    if (sc->phase == 1) {
        if (!atomic_load(&sc->unaliased))
            return BODY_YIELD;
        /* Dropped: no longer an alias. Then one straight to the owner,
         * which arrives after it would have. */
        if (sched_send(p, atomic_load(&sc->alias), atom_intern_cstr("dropped")) == SEND_BLOCKED)
            return BODY_BLOCKED;
        sc->phase = 2;
    }
    if (sched_send(p, sc->owner, atom_intern_cstr("direct")) == SEND_BLOCKED)
        return BODY_BLOCKED;
    return BODY_EXIT;
}

static enum body_stop alias_owner_step(struct process *p, void *state)
{
    struct alias_scene *sc = state;
    if (is_non_value(sc->owner)) {
        sc->owner = p->pid;
        term alias = call(p, "alias", 0, NULL);
        CU_ASSERT_TRUE_FATAL(is_ref(alias));
        /* The scene keeps the reference's words: the owner's heap stays
         * put while it runs no collection. */
        sched_spawn_native(proc_sched(p), p, alias_sender_step, sc, NULL);
        atomic_store(&sc->alias, alias);
    }
    for (term m; is_value(m = receive_any(p));) {
        sc->got[sc->count++] = m;
        if (sc->count == 1) {
            CU_ASSERT_EQUAL(call1(p, "unalias", atomic_load(&sc->alias)), A(true));
            atomic_store(&sc->unaliased, 1);
        }
        if (sc->count == 2)
            return BODY_EXIT;
    }
    return BODY_WAIT;
}

static void test_sends_to_an_alias(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        for (int mode = 0; mode < 2; mode++) {
            struct sched *s = make_sched(*policy, workers, mode ? SEND_MODE_BLOCKING : SEND_MODE_ARRIVALS);
            struct alias_scene sc = {THE_NON_VALUE, 0, THE_NON_VALUE, 0, {0, 0}, 0};
            term main = sched_spawn_native(s, NULL, alias_owner_step, &sc, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main), 0);
            CU_ASSERT_EQUAL(sc.got[0], atom_intern_cstr("via_alias"));
            CU_ASSERT_EQUAL(sc.got[1], atom_intern_cstr("direct"));
            sched_destroy(s);
        }
    }
}

/* ---- the executables_wakeups stress ---- */

#define STRESS_CHAIN 16
#define STRESS_WATCHED 4

struct stress {
    int phase;
    _Atomic term members[STRESS_CHAIN]; /* written by the members */
    int made;
    int downs, exits;
    int watched_downs;
    bool halted_elsewhere;
};

struct stress_member {
    struct stress *st;
    int index;
    bool linked;
};

static enum body_stop stress_member_step(struct process *p, void *state)
{
    struct stress_member *m = state;
    if (!m->linked) {
        m->linked = true;
        if (m->index + 1 < STRESS_CHAIN) {
            struct stress_member *next = malloc(sizeof *next);
            CU_ASSERT_PTR_NOT_NULL_FATAL(next);
            *next = (struct stress_member){m->st, m->index + 1, false};
            term pid = sched_spawn_native(proc_sched(p), p, stress_member_step, next, free);
            CU_ASSERT_EQUAL(call1(p, "link", pid), A(true));
        }
        /* Known to the main process only once linked to the next: the
         * chain is whole when every member is known. */
        atomic_store(&m->st->members[m->index], p->pid);
    }
    return spin_step(p, NULL);
}

static enum body_stop short_lived_step(struct process *p, void *state)
{
    (void)state;
    proc_spend(p, 100);
    return BODY_EXIT;
}

static enum body_stop stress_main_step(struct process *p, void *state)
{
    struct stress *st = state;
    struct sched *s = proc_sched(p);
    switch (st->phase) {
    case 0: {
        struct stress_member *first = malloc(sizeof *first);
        CU_ASSERT_PTR_NOT_NULL_FATAL(first);
        *first = (struct stress_member){st, 0, false};
        sched_spawn_native(s, p, stress_member_step, first, free);
        st->phase = 1;
    }
        /* fall through */
    case 1:
        for (int i = 0; i < STRESS_CHAIN; i++)
            if (is_non_value(atomic_load(&st->members[i])))
                return BODY_YIELD;
        for (int i = 0; i < STRESS_CHAIN; i++)
            call2(p, "monitor", A(process), atomic_load(&st->members[i]));
        /* Monitored processes that end while this one waits. */
        for (int i = 0; i < STRESS_WATCHED; i++)
            call2(p, "monitor", A(process), sched_spawn_native(s, p, short_lived_step, NULL, NULL));
        call2(p, "process_flag", A(trap_exit), A(true));
        st->phase = 2;
        /* fall through */
    case 2: {
        term r = call2(p, "exit", atomic_load(&st->members[STRESS_CHAIN / 2]), atom_intern_cstr("stop"));
        if (blocked(p, r))
            return BODY_BLOCKED;
        st->phase = 3;
    }
        /* fall through */
    default:
        for (term m; is_value(m = receive_any(p));) {
            if (is_tuple_tagged(m, A(DOWN), 5)) {
                if (tuple_elements(m)[4] == atom_intern_cstr("stop"))
                    st->downs++;
                else if (tuple_elements(m)[4] == A(normal) || tuple_elements(m)[4] == A(noproc))
                    st->watched_downs++; /* noproc: it ended before the monitor */
            }
        }
        if (st->downs == STRESS_CHAIN && st->watched_downs == STRESS_WATCHED)
            return BODY_EXIT;
        return BODY_WAIT;
    }
}

static enum body_stop halter_step(struct process *p, void *state)
{
    int *spins = state;
    if ((*spins)++ < 3) {
        while (proc_spend(p, 1))
            ;
        return BODY_YIELD;
    }
    call1(p, "halt", make_small(7));
    return BODY_EXIT;
}

static enum body_stop halt_main_step(struct process *p, void *state)
{
    int *phase = state;
    if ((*phase)++ == 0) {
        for (int i = 0; i < 3; i++)
            sched_spawn_native(proc_sched(p), p, spin_step, NULL, NULL);
        sched_spawn_native(proc_sched(p), p, wait_forever_step, NULL, NULL);
        sched_spawn_native(proc_sched(p), p, halter_step, phase + 1, NULL);
    }
    receive_any(p);
    return BODY_WAIT;
}

static void test_wakeup_stress(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        for (unsigned round = 0, rounds = test_rounds(*policy, STRESS_ROUNDS); round < rounds; round++) {
            enum send_mode mode = round % 2 ? SEND_MODE_BLOCKING : SEND_MODE_ARRIVALS;
            struct sched *s = make_sched(*policy, workers, mode);
            struct stress st = {0};
            for (int i = 0; i < STRESS_CHAIN; i++)
                atomic_init(&st.members[i], THE_NON_VALUE);
            term main = sched_spawn_native(s, NULL, stress_main_step, &st, NULL);
            int status = sched_run(s, main);
            CU_ASSERT_EQUAL(status, 0);
            CU_ASSERT_EQUAL(st.downs, STRESS_CHAIN);
            CU_ASSERT_EQUAL(st.watched_downs, STRESS_WATCHED);
            sched_destroy(s);
            if (status != 0 || st.downs != STRESS_CHAIN)
                return; /* one failure says enough */

            s = make_sched(*policy, workers, mode);
            int halt_state[2] = {0, 0};
            main = sched_spawn_native(s, NULL, halt_main_step, halt_state, NULL);
            CU_ASSERT_EQUAL(sched_run(s, main), 7);
            sched_destroy(s);
        }
    }
}

/* ---- a heap cap refusing an 'EXIT' or a 'DOWN': exit 70 ---- */

enum { BIG_REASON_LENGTH = 5000 };

/* Waits for a message, then ends with a reason of 10,000 words (a list on
 * its own heap). Waiting first lets the watcher link or monitor it before
 * it can end, whichever worker runs it. */
static enum body_stop exit_big_step(struct process *p, void *state)
{
    (void)state;
    if (is_non_value(proc_receive_peek(p)))
        return BODY_WAIT;
    term reason = NIL;
    for (int i = 0; i < BIG_REASON_LENGTH; i++)
        reason = heap_cons(&p->heap, make_small(i), reason);
    CU_ASSERT_TRUE_FATAL(is_value(reason));
    p->exit_reason = reason;
    return BODY_EXIT;
}

struct capped_scene {
    bool monitor; /* 'DOWN' rather than a trapped 'EXIT' */
    bool started;
    bool child_woken; /* the child's own state */
};

/* Holds 5,000 words of its own, then links (trapping) or monitors a child
 * whose reason cannot fit beside them: the message must never arrive. The
 * child ends only once woken after the link or monitor is made: a policy
 * may run it on another worker at once, and a child already gone would
 * give a small noproc message instead. */
static enum body_stop capped_watcher_step(struct process *p, void *state)
{
    struct capped_scene *sc = state;
    if (!sc->started) {
        sc->started = true;
        CU_ASSERT_PTR_NOT_NULL(heap_alloc(&p->heap, 5000));
        if (!sc->monitor)
            call2(p, "process_flag", A(trap_exit), A(true));
        term child = sched_spawn_native(proc_sched(p), p, exit_big_step, &sc->child_woken, NULL);
        if (sc->monitor) {
            CU_ASSERT_TRUE(is_ref(call2(p, "monitor", A(process), child)));
        } else {
            CU_ASSERT_EQUAL(call1(p, "link", child), A(true));
        }
        CU_ASSERT_EQUAL(sched_send(p, child, A(ok)), SEND_OK);
    }
    if (is_value(proc_receive_peek(p)))
        return BODY_EXIT; /* must not happen: the reason does not fit */
    return BODY_WAIT;
}

static void test_heap_cap_refusing_an_exit_or_down_exits_70(void)
{
    unsigned workers;
    FOR_EACH_CONFIG(policy, workers)
    {
        for (int monitor = 0; monitor < 2; monitor++) {
            /* Every heap may hold 12,000 words: the child's reason fits its
             * own heap, not the watcher's beside its 5,000 words. */
            struct sched_config config = test_sched_config(*policy, workers);
            config.max_heap_words = 12000;
            struct sched *s = test_sched_create(&config);
            struct capped_scene sc = {monitor == 1, false, false};
            term watcher = sched_spawn_native(s, NULL, capped_watcher_step, &sc, NULL);
            CU_ASSERT_EQUAL(sched_run(s, watcher), EXIT_RUNTIME_FAILURE);
            sched_destroy(s);
        }
    }
}

static CU_TestInfo tests[] = {
    {"a trapped link signal is a message", test_trapped_link_signal_is_a_message},
    {"heap cap refusing an EXIT or a DOWN exits 70", test_heap_cap_refusing_an_exit_or_down_exits_70},
    {"an untrapped link signal ends the process", test_untrapped_link_signal_ends_the_process},
    {"DOWNs come in monitoring order", test_downs_come_in_monitoring_order},
    {"time offset monitors are listed, ended once, and go with their watcher", test_time_offset_monitors},
    {"exit kill is done when exit returns", test_exit_kill_is_done_when_exit_returns},
    {"a message before an exit signal arrives first", test_a_message_before_an_exit_signal_arrives_first},
    {"signals reach waiting, queued and blocked processes", test_signals_reach_waiting_queued_and_blocked_processes},
    {"names are released before DOWNs", test_names_are_released_before_downs},
    {"a long linked chain ends", test_a_long_linked_chain_ends},
    {"a suspended process does not run", test_a_suspended_process_does_not_run},
    {"sends to an alias", test_sends_to_an_alias},
    {"wakeup stress", test_wakeup_stress},
    CU_TEST_INFO_NULL,
};
TEST_SUITE_CONCURRENT(signals, tests)
