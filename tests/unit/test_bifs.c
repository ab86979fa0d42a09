/*
 * The pure builtins (core/bif/). The bulk of the cases are calls OTP 25
 * answered, recorded in tests/data/bif_cases.txt by
 * tests/gen/bif_cases.escript and replayed here through bif_lookup; the
 * tests below it cover what that file cannot: clocks, unique values, long
 * and deep arguments, the registry's flags.
 */
#include "bif/bif.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/heap.h"
#include "term/map.h"
#include "term/print.h"
#include "test_main.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ARGS 4

static term call1(struct process *p, const char *m, const char *f, term a) { return test_bif_call(p, m, f, 1, &a); }

static const char *show(struct strbuf *b, term t)
{
    strbuf_clear(b);
    if (is_non_value(t))
        strbuf_puts(b, "<none>");
    else
        print_w(b, t, -1);
    if (b->len > 300) {
        b->len = 300;
        strbuf_puts(b, "...");
    }
    return strbuf_cstr(b);
}

/* Same term, and same printed form: that tells -0.0 from 0.0, which =:=
 * does not in OTP 25. */
static bool same(term a, term b)
{
    if (!term_eq_exact(a, b))
        return false;
    struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    print_w(&x, a, -1);
    print_w(&y, b, -1);
    bool eq = x.len == y.len && memcmp(strbuf_cstr(&x), strbuf_cstr(&y), x.len) == 0;
    strbuf_free(&x);
    strbuf_free(&y);
    return eq;
}

/* ---- OTP's answers ---- */

static void test_otp_cases(void)
{
    FILE *f = fopen(test_data_path("data/bif_cases.txt"), "r");
    CU_ASSERT_FATAL(f != NULL);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned cases = 0, failures = 0, errors = 0;
    struct strbuf b1 = STRBUF_INIT, b2 = STRBUF_INIT, b3 = STRBUF_INIT;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[0] == '#')
            continue;
        char *call_hex = strtok(line, " \n"), *kind = strtok(NULL, " \n"), *value_hex = strtok(NULL, " \n");
        CU_ASSERT_FATAL(call_hex && kind && value_hex);
        bool want_error = strcmp(kind, "error") == 0;
        struct process *p = test_bif_process_new();
        term c = test_term_from_hex(&p->heap, call_hex, strlen(call_hex));
        CU_ASSERT_FATAL(is_tuple(c) && tuple_arity(c) == 3);
        term args[MAX_ARGS];
        unsigned arity = 0;
        for (term l = tuple_element(c, 3); is_list(l) && arity < MAX_ARGS; l = list_tail(l))
            args[arity++] = list_head(l);
        const struct bif_entry *e = bif_lookup(tuple_element(c, 1), tuple_element(c, 2), arity);
        cases++;
        if (!e) {
            if (++failures <= 20)
                fprintf(stderr, "no builtin for %s\n", show(&b1, c));
            test_bif_process_free(p);
            continue;
        }
        p->fault_class = FAULT_NONE;
        term got = e->fn(p, args);
        /* Decoded after the call, so that no atom of the answer exists
         * before the builtin runs (list_to_existing_atom). */
        term want = test_term_from_hex(&p->heap, value_hex, strlen(value_hex));
        bool ok;
        if (want_error) {
            errors++;
            ok = is_non_value(got) && p->fault_class == FAULT_ERROR && same(proc_bif_call.fault_reason, want);
        } else {
            ok = is_value(got) && p->fault_class == FAULT_NONE && same(got, want);
        }
        if (!ok && ++failures <= 40)
            fprintf(stderr, "%s: want %s %s, got %s\n", show(&b1, c), kind, show(&b2, want),
                    is_value(got) ? show(&b3, got) : show(&b3, proc_bif_call.fault_reason));
        test_bif_process_free(p);
    }
    free(line);
    fclose(f);
    strbuf_free(&b1);
    strbuf_free(&b2);
    strbuf_free(&b3);
    if (failures)
        fprintf(stderr, "%u of %u builtin cases failed\n", failures, cases);
    CU_ASSERT(cases > 10000);
    CU_ASSERT(errors > 1000);
    CU_ASSERT_EQUAL(failures, 0);
}

/* ---- clocks and unique values ---- */

static int64_t int_of(term t)
{
    int64_t v = 0;
    CU_ASSERT_FATAL(is_integer(t) && int_to_int64(t, &v));
    return v;
}

static void test_clocks(void)
{
    struct process *p = test_bif_process_new();
    term none[1] = {NIL};
    int64_t m1 = int_of(test_bif_call(p, "erlang", "monotonic_time", 0, none));
    int64_t m2 = int_of(test_bif_call(p, "erlang", "monotonic_time", 0, none));
    CU_ASSERT(m2 >= m1);
    int64_t ms = int_of(call1(p, "erlang", "monotonic_time", A(millisecond)));
    CU_ASSERT(ms >= m2 / 1000000 && ms <= m2 / 1000000 + 60000);

    int64_t now = (int64_t)time(NULL);
    int64_t s = int_of(call1(p, "erlang", "system_time", A(second)));
    CU_ASSERT(s >= now - 1 && s <= now + 1);
    int64_t ns = int_of(test_bif_call(p, "os", "system_time", 0, none));
    CU_ASSERT(ns / 1000000000 >= now - 1 && ns / 1000000000 <= now + 1);
    int64_t us = int_of(call1(p, "os", "system_time", A(microsecond)));
    CU_ASSERT(us / 1000000 >= now - 1 && us / 1000000 <= now + 1);
    /* An integer unit: parts per second. */
    int64_t tenths = int_of(call1(p, "erlang", "system_time", make_small(10)));
    CU_ASSERT(tenths / 10 >= now - 1 && tenths / 10 <= now + 1);

    term ts = test_bif_call(p, "erlang", "timestamp", 0, none);
    CU_ASSERT_FATAL(is_tuple(ts) && tuple_arity(ts) == 3);
    int64_t secs = int_of(tuple_element(ts, 1)) * 1000000 + int_of(tuple_element(ts, 2));
    CU_ASSERT(secs >= now - 1 && secs <= now + 1);
    CU_ASSERT(int_of(tuple_element(ts, 3)) >= 0 && int_of(tuple_element(ts, 3)) < 1000000);

    CU_ASSERT(is_non_value(call1(p, "erlang", "monotonic_time", A(badarg))));
    CU_ASSERT(p->fault_class == FAULT_ERROR && proc_bif_call.fault_reason == A(badarg));
    CU_ASSERT(is_non_value(call1(p, "erlang", "system_time", make_small(0))));
    CU_ASSERT(proc_bif_call.fault_reason == A(badarg));
    test_bif_process_free(p);
}

static void test_unique_integer(void)
{
    struct process *p = test_bif_process_new();
    term none[1] = {NIL};
    term opts = heap_cons(&p->heap, A(positive), heap_cons(&p->heap, A(monotonic), NIL));
    int64_t last = int_of(call1(p, "erlang", "unique_integer", opts));
    CU_ASSERT(last > 0);
    for (int i = 0; i < 1000; i++) {
        int64_t v = int_of(i % 2 ? test_bif_call(p, "erlang", "unique_integer", 0, none)
                                 : call1(p, "erlang", "unique_integer", opts));
        CU_ASSERT(v > last);
        last = v;
    }
    CU_ASSERT(is_non_value(call1(p, "erlang", "unique_integer", heap_cons(&p->heap, A(ok), NIL))));
    CU_ASSERT(proc_bif_call.fault_reason == A(badarg));
    CU_ASSERT(is_non_value(call1(p, "erlang", "unique_integer", A(positive))));
    test_bif_process_free(p);
}

static void test_refs_and_node(void)
{
    struct process *p = test_bif_process_new();
    term none[1] = {NIL};
    term r1 = test_bif_call(p, "erlang", "make_ref", 0, none), r2 = test_bif_call(p, "erlang", "make_ref", 0, none);
    CU_ASSERT(is_ref(r1) && is_ref(r2) && !term_eq_exact(r1, r2));
    CU_ASSERT(test_bif_call(p, "erlang", "node", 0, none) == A(nonode_at_nohost));
    test_bif_process_free(p);
}

/* ---- what OTP's logger asks of the runtime ---- */

static void test_logger_flags(void)
{
    struct process *p = test_bif_process_new();
    term none[1] = {NIL};
    term off[2] = {A(message_queue_data), A(off_heap)}, on[2] = {A(message_queue_data), A(on_heap)};
    term bad[2] = {A(message_queue_data), A(ok)};
    CU_ASSERT(test_bif_call(p, "erlang", "process_flag", 2, off) == A(on_heap)); /* OTP's default */
    CU_ASSERT(test_bif_call(p, "erlang", "process_flag", 2, on) == A(off_heap)); /* the old value, remembered */
    CU_ASSERT(is_non_value(test_bif_call(p, "erlang", "process_flag", 2, bad)));
    /* The system logger is the node's: the process needs one. */
    p->sched = test_sched_new(NULL, 1, SEND_MODE_ARRIVALS, TIMER_THREAD);
    CU_ASSERT_FATAL(p->sched != NULL);
    term pid = make_pid(7);
    term to_pid[2] = {A(system_logger), pid}, back[2] = {A(system_logger), A(logger)};
    term wrong[2] = {A(system_logger), make_small(1)};
    CU_ASSERT(test_bif_call(p, "erlang", "system_flag", 2, to_pid) == A(logger));
    CU_ASSERT(test_bif_call(p, "erlang", "system_flag", 2, back) == pid);
    CU_ASSERT(is_non_value(test_bif_call(p, "erlang", "system_flag", 2, wrong)));
    CU_ASSERT(test_bif_call(p, "io", "printable_range", 0, none) == A(latin1));
    sched_destroy(p->sched);
    test_bif_process_free(p);
}

/* ---- sizes the data file does not hold ---- */

#define LONG_LIST 200000

static void test_long_lists(void)
{
    struct process *p = test_bif_process_new();
    term l = NIL;
    for (int i = LONG_LIST; i > 0; i--)
        l = heap_cons(&p->heap, make_small(i), l);
    term args[3] = {l, NIL, NIL};
    term r = test_bif_call(p, "lists", "reverse", 2, args);
    CU_ASSERT_FATAL(is_list(r));
    CU_ASSERT(list_head(r) == make_small(LONG_LIST));
    CU_ASSERT(int_of(call1(p, "erlang", "length", r)) == LONG_LIST);

    /* l ++ l, then removing l from it leaves l. */
    args[1] = l;
    term twice = test_bif_call(p, "erlang", "++", 2, args);
    CU_ASSERT(int_of(call1(p, "erlang", "length", twice)) == 2 * LONG_LIST);
    term small_list = heap_cons(&p->heap, make_small(LONG_LIST), heap_cons(&p->heap, make_small(1), NIL));
    args[0] = twice;
    args[1] = small_list;
    term fewer = test_bif_call(p, "erlang", "--", 2, args);
    CU_ASSERT(int_of(call1(p, "erlang", "length", fewer)) == 2 * LONG_LIST - 2);
    CU_ASSERT(list_head(fewer) == make_small(2));

    /* A key near the end. */
    term pairs = NIL;
    for (int i = LONG_LIST; i > 0; i--)
        pairs = heap_cons(&p->heap, heap_tuple2(&p->heap, make_small(i), A(ok)), pairs);
    args[0] = make_small(LONG_LIST - 1);
    args[1] = make_small(1);
    args[2] = pairs;
    term found = test_bif_call(p, "lists", "keyfind", 3, args);
    CU_ASSERT(is_tuple(found) && tuple_element(found, 1) == make_small(LONG_LIST - 1));

    /* A map of all the pairs. */
    term m = call1(p, "maps", "from_list", pairs);
    CU_ASSERT_FATAL(is_map(m));
    CU_ASSERT(map_size(m) == LONG_LIST);
    CU_ASSERT(int_of(call1(p, "erlang", "length", call1(p, "maps", "keys", m))) == LONG_LIST);
    test_bif_process_free(p);
}

static void test_deep_iolist(void)
{
    struct process *p = test_bif_process_new();
    /* [[[...[1]...]], 2] nested 100,000 deep: no recursion on the C stack. */
    term deep = heap_cons(&p->heap, make_small(1), NIL);
    for (int i = 0; i < 100000; i++)
        deep = heap_cons(&p->heap, deep, NIL);
    deep = heap_cons(&p->heap, deep, heap_cons(&p->heap, make_small(2), NIL));
    CU_ASSERT(int_of(call1(p, "erlang", "iolist_size", deep)) == 2);
    term bin = call1(p, "erlang", "iolist_to_binary", deep);
    CU_ASSERT_FATAL(is_binary_whole(bin));
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(bin, &d, &n, &bits);
    CU_ASSERT(n == 2 && d[0] == 1 && d[1] == 2);
    test_bif_process_free(p);
}

/* A large binary lives off-heap; its parts are windows onto it. */
static void test_large_binary(void)
{
    struct process *p = test_bif_process_new();
    size_t live = binary_live_count();
    uint8_t *data;
    term big = bin_alloc(&p->heap, 1000, &data);
    for (size_t i = 0; i < 1000; i++)
        data[i] = (uint8_t)i;
    term args[3] = {big, make_small(500), make_small(-100)};
    term part = test_bif_call(p, "erlang", "binary_part", 3, args);
    CU_ASSERT_FATAL(is_binary_whole(part));
    const uint8_t *d;
    size_t n;
    unsigned bits;
    bin_bytes(part, &d, &n, &bits);
    CU_ASSERT(n == 100 && d[0] == (uint8_t)400);
    term l = call1(p, "erlang", "binary_to_list", part);
    CU_ASSERT(int_of(call1(p, "erlang", "length", l)) == 100);
    CU_ASSERT(small_value(list_head(l)) == 400 % 256);
    test_bif_process_free(p);
    CU_ASSERT(binary_live_count() == live);
}

/* ---- the registry ---- */

static void test_registry(void)
{
    atom_table_init();
    bif_registry_init();
    static const struct {
        const char *m, *f;
        unsigned arity;
        bool guard;
    } expect[] = {
        {"erlang", "+", 2, true},
        {"erlang", "element", 2, true},
        {"erlang", "is_map_key", 2, true},
        {"erlang", "binary_part", 3, true},
        {"erlang", "node", 0, true},
        {"erlang", "ceil", 1, true},
        {"erlang", "max", 2, false},
        {"erlang", "setelement", 3, false},
        {"lists", "reverse", 2, false},
        {"maps", "get", 2, false},
        {"erlang", "integer_to_list", 2, false},
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        const struct bif_entry *e =
            bif_lookup(atom_intern_cstr(expect[i].m), atom_intern_cstr(expect[i].f), expect[i].arity);
        CU_ASSERT_FATAL(e != NULL);
        CU_ASSERT(((e->flags & BIF_GUARD) != 0) == expect[i].guard);
    }
    CU_ASSERT(bif_lookup(A(erlang), atom_intern_cstr("no_such_builtin"), 1) == NULL);
}

static CU_TestInfo tests[] = {
    {"OTP 25's answers", test_otp_cases},    {"clocks", test_clocks},
    {"unique_integer", test_unique_integer}, {"make_ref and node", test_refs_and_node},
    {"long lists", test_long_lists},         {"deep iolist", test_deep_iolist},
    {"large binary", test_large_binary},     {"registry", test_registry},
    {"logger's flags", test_logger_flags},   CU_TEST_INFO_NULL,
};

TEST_SUITE(bifs, tests)
