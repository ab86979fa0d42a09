/*
 * test_io_format.c — io_format, io_chardata and io_latin1_device against
 * OTP 25.
 *
 * The expected texts come only from erl: tests/gen/io_format_cases.escript
 * writes tests/data/io_format_cases.txt (format described there). Each
 * format and argument list is decoded from its term_to_binary bytes and
 * formatted; the text, or badarg, must match byte for byte. The device
 * records compare what erl -noshell wrote to standard output.
 */
#include "test_main.h"
#include "test_support.h"

#include "bif/bif.h"
#include "rt/process.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/heap.h"
#include "term/io_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTS 12

static int split(char *line, char **fields, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \n", &save); tok && n < max; tok = strtok_r(NULL, " \n", &save))
        fields[n++] = tok;
    return n;
}

struct stats {
    unsigned checks, failures, reports;
};

/* Compares one result with the record's expectation ("badarg" or "=HEX"). */
static void check(struct stats *st, unsigned line, const char *expected, bool ok, const struct strbuf *got)
{
    st->checks++;
    bool want_badarg = strcmp(expected, "badarg") == 0;
    size_t n = 0;
    uint8_t *want = want_badarg ? NULL : test_unhex(expected + 1, strlen(expected + 1), &n);
    bool same = want_badarg ? !ok : ok && n == got->len && memcmp(want, strbuf_cstr(got), n) == 0;
    if (!same) {
        st->failures++;
        if (st->reports++ < MAX_REPORTS) {
            fprintf(stderr, "\nio_format case line %u differs\n  expected: ", line);
            if (want_badarg)
                fputs("badarg", stderr);
            else
                fprintf(stderr, "\"%.*s\"", (int)n, (const char *)want);
            if (ok)
                fprintf(stderr, "\n  got:      \"%.*s\"\n", (int)got->len, strbuf_cstr(got));
            else
                fputs("\n  got:      badarg\n", stderr);
        }
    }
    free(want);
}

static FILE *open_cases(void)
{
    const char *path = test_data_path("data/io_format_cases.txt");
    FILE *f = fopen(path, "r");
    if (!f)
        fprintf(stderr, "\ncannot open %s (run from the repository root or set CLAUSE_TEST_DIR)\n", path);
    return f;
}

/* Every record of one kind ('c' or 'd'), through run. */
static void run_records(char kind, unsigned *count, struct stats *st,
                        void (*run)(struct stats *, unsigned, heap_t *, char **, int))
{
    FILE *f = open_cases();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        if (line[0] != kind)
            continue;
        char *fld[6];
        int nf = split(line, fld, 6);
        if (nf != 4) {
            fprintf(stderr, "\nio_format case line %u: malformed\n", lineno);
            st->failures++;
            continue;
        }
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        run(st, lineno, &h, fld, nf);
        heap_destroy(&h);
        (*count)++;
    }
    free(line);
    fclose(f);
}

static void run_format(struct stats *st, unsigned lineno, heap_t *h, char **fld, int nf)
{
    (void)nf;
    term format = test_term_from_hex(h, fld[1], strlen(fld[1]));
    term args = test_term_from_hex(h, fld[2], strlen(fld[2]));
    struct strbuf out = STRBUF_INIT;
    bool ok = io_format(&out, format, args);
    check(st, lineno, fld[3], ok, &out);
    strbuf_free(&out);
}

static void test_format_cases(void)
{
    struct stats st = {0, 0, 0};
    unsigned n = 0;
    run_records('c', &n, &st, run_format);
    if (st.failures)
        fprintf(stderr, "\nio_format: %u of %u cases differ\n", st.failures, st.checks);
    CU_ASSERT(n >= 1000);
    CU_ASSERT_EQUAL(st.failures, 0);
}

static void run_device(struct stats *st, unsigned lineno, heap_t *h, char **fld, int nf)
{
    (void)nf;
    term t = test_term_from_hex(h, fld[2], strlen(fld[2]));
    struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
    bool ok;
    if (fld[1][0] == 'f') {
        CU_ASSERT_FATAL(is_tuple(t) && tuple_arity(t) == 2);
        ok = io_format(&text, tuple_element(t, 1), tuple_element(t, 2));
    } else {
        ok = io_chardata(&text, t);
    }
    if (ok)
        io_latin1_device(&out, strbuf_cstr(&text), text.len);
    check(st, lineno, fld[3], ok, &out);
    strbuf_free(&text);
    strbuf_free(&out);
}

static void test_device_cases(void)
{
    struct stats st = {0, 0, 0};
    unsigned n = 0;
    run_records('d', &n, &st, run_device);
    CU_ASSERT(n >= 15);
    CU_ASSERT_EQUAL(st.failures, 0);
}

static term cstr_list(heap_t *h, const char *s) { return heap_string(h, s, strlen(s)); }

static void expect(const char *format, term args, const char *want)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct strbuf out = STRBUF_INIT;
    bool ok = io_format(&out, cstr_list(&h, format), args);
    if (want == NULL) {
        CU_ASSERT_FALSE(ok);
    } else {
        CU_ASSERT_TRUE(ok);
        if (ok && strcmp(strbuf_cstr(&out), want) != 0)
            fprintf(stderr, "\n%s: expected \"%s\", got \"%s\"\n", format, want, strbuf_cstr(&out));
        CU_ASSERT_STRING_EQUAL(strbuf_cstr(&out), want);
    }
    strbuf_free(&out);
    heap_destroy(&h);
}

/* Cases the table cannot hold: limits of this implementation, and nesting
 * deep enough to need the explicit stacks (run under ASan to see them). */
static void test_limits(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    /* widths above IO_FORMAT_MAX_FIELD are refused rather than built */
    expect("~99999999999w", cstr_list(&h, "a"), NULL);
    term big[2] = {make_small(IO_FORMAT_MAX_FIELD + 1), A(ok)};
    expect("~*w", heap_list_from_array(&h, big, 2), NULL);
    /* ~.*c with a negative precision loops in OTP; badarg here */
    term neg[2] = {make_small(-2), make_small('a')};
    expect("~.*c", heap_list_from_array(&h, neg, 2), NULL);
    expect("~.*w", heap_list_from_array(&h, neg, 2), NULL);

    /* a chardata argument nested a million lists deep */
    term deep = heap_string(&h, "xy", 2);
    for (int i = 0; i < 1000000; i++)
        deep = heap_cons(&h, deep, NIL);
    term one = heap_cons(&h, deep, NIL);
    expect("~s|", one, "xy|");
    struct strbuf out = STRBUF_INIT;
    CU_ASSERT_TRUE(io_chardata(&out, deep));
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&out), "xy");
    strbuf_free(&out);
    heap_destroy(&h);
}

/* Integers that are not characters: io_format (a device's text) refuses
 * them, io_format_terms keeps each as a marker and the integer in nc, and
 * counts it as one character (column, field width). Results from OTP 25's
 * io_lib:format. */
static void test_nonchars(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term big = int_from_uint64(&h, UINT64_C(1) << 62);
    CU_ASSERT_FATAL(is_bignum(big));
    term s1[1] = {make_small(0x110000)};
    term a1[1] = {heap_list_from_array(&h, s1, 1)};
    term args = heap_list_from_array(&h, a1, 1);
    expect("~ts", args, NULL);
    term c1[1] = {make_small(-5)};
    expect("~tc", heap_list_from_array(&h, c1, 1), NULL);

    /* "~4ts|~tc~ts": "   " X "|" Y Z, X = 16#110000, Y = -5, Z = 2^62 */
    term s2[1] = {big};
    term a3[3] = {a1[0], make_small(-5), heap_list_from_array(&h, s2, 1)};
    struct strbuf out = STRBUF_INIT;
    struct io_nonchars nc = {NULL, 0, 0};
    CU_ASSERT_TRUE_FATAL(
        io_format_terms(&out, heap_string(&h, "~4ts|~tc~ts", 11), heap_list_from_array(&h, a3, 3), &nc));
    CU_ASSERT_EQUAL_FATAL(nc.n, 3);
    CU_ASSERT_EQUAL(nc.v[0], make_small(0x110000));
    CU_ASSERT_EQUAL(nc.v[1], make_small(-5));
    CU_ASSERT_EQUAL(nc.v[2], big);
    const char want[] = "   \xFF\x80\x80\x80\x80|\xFF\x80\x80\x80\x81\xFF\x80\x80\x80\x82";
    CU_ASSERT_EQUAL(out.len, sizeof want - 1);
    CU_ASSERT(memcmp(out.data, want, sizeof want - 1) == 0);
    io_nonchars_free(&nc);
    strbuf_free(&out);

    /* ~p after one: its column counts the marker as one character */
    term a4[2] = {a1[0], NIL};
    term l[12];
    for (int i = 0; i < 12; i++)
        l[i] = make_small(1000000 + i);
    a4[1] = heap_list_from_array(&h, l, 12);
    CU_ASSERT_TRUE(io_format_terms(&out, heap_string(&h, "~ts~p", 5), heap_list_from_array(&h, a4, 2), &nc));
    CU_ASSERT_PTR_NOT_NULL(strstr(strbuf_cstr(&out), "1000008,\n  1000009"));
    io_nonchars_free(&nc);
    strbuf_free(&out);

    /* ~ts takes no negative integer, ~s nothing above 255 */
    term neg[1] = {make_small(-1)};
    term a5[1] = {heap_list_from_array(&h, neg, 1)};
    CU_ASSERT_FALSE(io_format_terms(&out, heap_string(&h, "~ts", 3), heap_list_from_array(&h, a5, 1), &nc));
    CU_ASSERT_FALSE(io_format_terms(&out, heap_string(&h, "~s", 2), args, &nc));
    io_nonchars_free(&nc);
    strbuf_free(&out);
    heap_destroy(&h);
}

/* Calls the builtin module:function/arity on a bare process. */
static term call_bif(struct process *p, const char *module, const char *function, unsigned arity, const term *args)
{
    bif_registry_init();
    const struct bif_entry *e = bif_lookup(atom_intern_cstr(module), atom_intern_cstr(function), arity);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    p->fault_class = FAULT_NONE;
    return e->fn(p, args);
}

static bool raised_badarg(const struct process *p, term result)
{
    return is_non_value(result) && p->fault_class == FAULT_ERROR && proc_bif_call.fault_reason == A(badarg);
}

/* The builtins' results and exceptions; output is kept empty so that the
 * test prints nothing. */
static void test_builtins(void)
{
    atom_table_init();
    struct sched_config config = {.workers = 1}; /* its workers never start: every default */
    struct sched *s = test_sched_create(&config);
    struct process *p = calloc(1, sizeof *p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_FATAL(heap_init(&p->heap, 0, 0));
    p->sched = s; /* a runtime without I/O servers: the process leads itself */
    p->pid = make_pid(1);
    p->group_leader = p->pid;
    heap_t *h = &p->heap;

    /* io_lib:format returns the flat list of characters */
    term fa[2] = {heap_string(h, "~w ~s~tc", 8), NIL};
    term x[3] = {make_small(1), heap_string(h, "ab", 2), make_small(1024)};
    fa[1] = heap_list_from_array(h, x, 3);
    term r = call_bif(p, "io_lib", "format", 2, fa);
    CU_ASSERT_FATAL(is_value(r));
    int64_t want[] = {'1', ' ', 'a', 'b', 1024};
    for (size_t i = 0; i < 5; i++) {
        CU_ASSERT_FATAL(is_list(r));
        CU_ASSERT_EQUAL(small_value(list_head(r)), want[i]);
        r = list_tail(r);
    }
    CU_ASSERT_EQUAL(r, NIL);
    /* ...with the integers that are not characters in it */
    fa[0] = heap_string(h, "~tc~ts", 6);
    term sur[1] = {make_small(0xD800)};
    term y[2] = {make_small(-1), heap_list_from_array(h, sur, 1)};
    fa[1] = heap_list_from_array(h, y, 2);
    r = call_bif(p, "io_lib", "format", 2, fa);
    CU_ASSERT_FATAL(is_list(r) && is_list(list_tail(r)));
    CU_ASSERT_EQUAL(list_head(r), make_small(-1));
    CU_ASSERT_EQUAL(list_head(list_tail(r)), make_small(0xD800));
    CU_ASSERT_EQUAL(list_tail(list_tail(r)), NIL);
    CU_ASSERT_TRUE(raised_badarg(p, call_bif(p, "io", "format", 2, fa)));
    fa[0] = NIL;
    fa[1] = NIL;
    CU_ASSERT_EQUAL(call_bif(p, "io_lib", "fwrite", 2, fa), NIL);
    fa[0] = heap_string(h, "~w", 2);
    CU_ASSERT_TRUE(raised_badarg(p, call_bif(p, "io_lib", "format", 2, fa)));

    /* io functions: ok for the devices written at once, badarg for bad
     * arguments; any other device is handed to clause_io (the I/O
     * protocol), which only a call from the engine may do: badarg from C */
    term none[3] = {NIL, NIL, NIL};
    CU_ASSERT_EQUAL(call_bif(p, "io", "format", 1, none), A(ok));
    CU_ASSERT_EQUAL(call_bif(p, "io", "fwrite", 2, none), A(ok));
    term dev[3] = {A(user), NIL, NIL};
    CU_ASSERT_EQUAL(call_bif(p, "io", "format", 3, dev), A(ok));
    dev[0] = A(standard_io);
    CU_ASSERT_EQUAL(call_bif(p, "io", "fwrite", 3, dev), A(ok));
    CU_ASSERT_EQUAL(call_bif(p, "io", "put_chars", 2, dev), A(ok));
    dev[0] = A(standard_error);
    CU_ASSERT_EQUAL(call_bif(p, "io", "format", 3, dev), A(ok));
    CU_ASSERT_EQUAL(call_bif(p, "io", "put_chars", 2, dev), A(ok));
    dev[0] = atom_intern_cstr("no_such_device");
    CU_ASSERT_TRUE(raised_badarg(p, call_bif(p, "io", "format", 3, dev)));
    CU_ASSERT_TRUE(raised_badarg(p, call_bif(p, "io", "put_chars", 2, dev)));
    CU_ASSERT_TRUE(raised_badarg(p, call_bif(p, "io", "nl", 1, dev)));
    p->bif_may_trap = true;
    CU_ASSERT_TRUE(is_non_value(call_bif(p, "io", "nl", 1, dev)));
    CU_ASSERT_EQUAL(p->fault_class, FAULT_CALL);
    CU_ASSERT_EQUAL(proc_bif_call.module, A(clause_io));
    /* clause_io:o_request(nl, [Dev]): io's function and its arguments as
     * called, for the frame of an error (OTP's io:o_request/2) */
    CU_ASSERT_EQUAL(proc_bif_call.function, A(o_request));
    CU_ASSERT_EQUAL(proc_bif_call.arity, 2);
    CU_ASSERT_EQUAL(proc_bif_call.args[0], A(nl));
    CU_ASSERT_TRUE(is_list(proc_bif_call.args[1]) && list_head(proc_bif_call.args[1]) == dev[0] &&
                   list_tail(proc_bif_call.args[1]) == NIL);
    dev[1] = heap_string(h, "x", 1);
    CU_ASSERT_TRUE(is_non_value(call_bif(p, "io", "fwrite", 3, dev)));
    CU_ASSERT_EQUAL(proc_bif_call.args[0], A(fwrite));
    CU_ASSERT_TRUE(is_list(proc_bif_call.args[1]) && list_head(proc_bif_call.args[1]) == dev[0]);
    dev[1] = NIL;
    p->bif_may_trap = false;
    CU_ASSERT_EQUAL(call_bif(p, "io", "put_chars", 1, none), A(ok));
    term bad[2] = {A(ok), NIL};
    CU_ASSERT_TRUE(raised_badarg(p, call_bif(p, "io", "put_chars", 1, bad)));
    /* a device written at once refuses with OTP's cause {device, put_chars},
     * which erl_stdlib_errors needs to explain the argument */
    CU_ASSERT_TRUE(is_tuple(proc_bif_call.fault_cause) && tuple_arity(proc_bif_call.fault_cause) == 2 &&
                   tuple_element(proc_bif_call.fault_cause, 1) == A(device) &&
                   tuple_element(proc_bif_call.fault_cause, 2) == A(put_chars));
    bad[0] = make_small(1);
    CU_ASSERT_TRUE(raised_badarg(p, call_bif(p, "io", "format", 1, bad)));
    CU_ASSERT_TRUE(raised_badarg(p, call_bif(p, "io", "format", 2, fa)));
    heap_destroy(&p->heap);
    free(p);
    sched_destroy(s);
}

static CU_TestInfo tests[] = {
    {"builtins", test_builtins},
    {"format cases from OTP", test_format_cases},
    {"standard output bytes from OTP", test_device_cases},
    {"limits and deep nesting", test_limits},
    {"integers that are not characters", test_nonchars},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(io_format, tests)
