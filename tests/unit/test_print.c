/*
 * test_print.c — print_w and print_p against OTP 25's io_lib.
 *
 * The expected texts come only from erl: tests/gen/print_table.escript
 * writes tests/data/print_table.txt (format described there); each term is
 * decoded from its term_to_binary bytes and printed, and the output must
 * match byte for byte. Local funs cannot travel through the external
 * format, so they are built here from the module, index and uniq the table
 * recorded for a real fun. The remaining tests check that huge and deep
 * terms print without C recursion (run them under ASan to see the stack).
 */
#include "test_main.h"
#include "test_support.h"

#include "term/atom.h"
#include "term/bignum.h"
#include "term/etf.h"
#include "term/heap.h"
#include "term/print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTS 12

/* Splits a line into at most max space-separated fields, in place. */
static int split(char *line, char **fields, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \n", &save); tok && n < max; tok = strtok_r(NULL, " \n", &save))
        fields[n++] = tok;
    return n;
}

struct table_stats {
    unsigned checks, failures, reports;
};

static void report(struct table_stats *st, unsigned line, const char *what, const char *expected, size_t elen,
                   const char *got, size_t glen)
{
    st->failures++;
    if (st->reports++ >= MAX_REPORTS)
        return;
    fprintf(stderr, "\nprint table line %u (%s) differs\n  expected: %.*s\n  got:      %.*s\n", line, what, (int)elen,
            expected, (int)glen, got);
}

static void check(struct table_stats *st, unsigned line, const char *what, const char *expected_hex,
                  const struct strbuf *got)
{
    size_t n;
    uint8_t *expected = test_unhex(expected_hex, strlen(expected_hex), &n);
    st->checks++;
    if (n != got->len || memcmp(expected, strbuf_cstr(got), n) != 0)
        report(st, line, what, (const char *)expected, n, strbuf_cstr(got), got->len);
    free(expected);
}

static FILE *open_table(void)
{
    FILE *f = fopen(test_data_path("data/print_table.txt"), "r");
    if (!f)
        fprintf(stderr, "\ncannot open %s (run from the repository root or set CLAUSE_TEST_DIR)\n",
                test_data_path("data/print_table.txt"));
    return f;
}

static void test_table(void)
{
    FILE *f = open_table();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    struct table_stats st = {0, 0, 0};
    unsigned terms = 0;
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    struct strbuf out = STRBUF_INIT;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        if (line[0] == '#' || line[0] == 'f')
            continue;
        char *fld[8];
        int nf = split(line, fld, 8);
        const char *etf_hex;
        if (nf == 4 && strcmp(fld[0], "t") == 0)
            etf_hex = fld[1];
        else if (nf == 6 && strcmp(fld[0], "p") == 0)
            etf_hex = fld[4];
        else if (nf == 4 && strcmp(fld[0], "w") == 0)
            etf_hex = fld[2];
        else {
            fprintf(stderr, "\nprint table line %u: malformed\n", lineno);
            st.failures++;
            continue;
        }
        size_t len, used;
        uint8_t *bytes = test_unhex(etf_hex, strlen(etf_hex), &len);
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        const char *error = NULL;
        term t = etf_decode(&h, bytes, len, &used, &error);
        if (is_non_value(t)) {
            fprintf(stderr, "\nprint table line %u: etf_decode failed: %s\n", lineno, error ? error : "?");
            st.failures++;
        } else if (fld[0][0] == 't') {
            terms++;
            strbuf_clear(&out);
            print_w(&out, t, -1);
            check(&st, lineno, "~w", fld[2], &out);
            strbuf_clear(&out);
            print_p(&out, t, 1, 80, -1);
            check(&st, lineno, "~p", fld[3], &out);
        } else if (fld[0][0] == 'p') {
            strbuf_clear(&out);
            print_p(&out, t, atoi(fld[1]), atoi(fld[2]), atoi(fld[3]));
            check(&st, lineno, "~P", fld[5], &out);
        } else {
            strbuf_clear(&out);
            print_w(&out, t, atoi(fld[1]));
            check(&st, lineno, "~W", fld[3], &out);
        }
        heap_destroy(&h);
        free(bytes);
    }
    free(line);
    fclose(f);
    strbuf_free(&out);
    if (st.failures)
        fprintf(stderr, "\nprint table: %u of %u checks failed (%u terms)\n", st.failures, st.checks, terms);
    CU_ASSERT(terms >= 250);
    CU_ASSERT_EQUAL(st.failures, 0);
}

/* Local funs: a closure of module MOD with the recorded index and uniq and
 * one free variable, as erl printed the real one. */
static void test_local_funs(void)
{
    FILE *f = open_table();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    struct table_stats st = {0, 0, 0};
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0, funs = 0;
    struct strbuf out = STRBUF_INIT;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        if (line[0] != 'f')
            continue;
        char *fld[8];
        CU_ASSERT_EQUAL_FATAL(split(line, fld, 8), 6);
        size_t mlen;
        uint8_t *mod = test_unhex(fld[1], strlen(fld[1]), &mlen);
        struct fun_entry fe = {
            .module = atom_intern((const char *)mod, mlen, NULL),
            .name = atom_intern_cstr("-f/1-fun-0-"),
            .index = (uint32_t)strtoul(fld[2], NULL, 10),
            .old_uniq = (uint32_t)strtoul(fld[3], NULL, 10),
            .arity = 1,
            .num_free = 1,
            .code = NULL,
        };
        free(mod);
        CU_ASSERT_FATAL(is_value(fe.module));
        heap_t h;
        CU_ASSERT_FATAL(heap_init(&h, 0, 0));
        term x = make_small(1);
        term fun = heap_local_fun(&h, &fe, &x);
        CU_ASSERT_FATAL(is_value(fun));
        strbuf_clear(&out);
        print_p(&out, fun, 1, 80, -1);
        check(&st, lineno, "~p fun", fld[4], &out);
        term pair = heap_tuple2(&h, fun, A(ok));
        strbuf_clear(&out);
        print_w(&out, pair, -1);
        check(&st, lineno, "~w {fun, ok}", fld[5], &out);
        heap_destroy(&h);
        funs++;
    }
    free(line);
    fclose(f);
    strbuf_free(&out);
    CU_ASSERT(funs >= 1);
    CU_ASSERT_EQUAL(st.failures, 0);
}

static void expect(const char *what, const struct strbuf *got, const char *want)
{
    if (strcmp(strbuf_cstr(got), want) != 0)
        fprintf(stderr, "\n%s: expected %s, got %s\n", what, want, strbuf_cstr(got));
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(got), want);
}

/* Things the table cannot hold: a column convention check and floats
 * built directly. */
static void test_basics(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct strbuf out = STRBUF_INIT;
    print_float_short(&out, 0.1);
    expect("0.1", &out, "0.1");
    strbuf_clear(&out);
    print_float_short(&out, -0.0);
    expect("-0.0", &out, "-0.0");
    strbuf_clear(&out);
    print_float_short(&out, 1e22);
    expect("1e22", &out, "1.0e22");
    strbuf_clear(&out);
    print_float_short(&out, 5e-324);
    expect("5e-324", &out, "5.0e-324");
    strbuf_clear(&out);
    print_atom(&out, atom_intern_cstr("hello world"));
    expect("atom", &out, "'hello world'");
    /* A column at or below zero means column 1, as in io_lib_pretty. */
    term l = heap_string(&h, "abc", 3);
    strbuf_clear(&out);
    print_p(&out, l, -5, 80, -1);
    expect("column -5", &out, "\"abc\"");
    strbuf_clear(&out);
    print_p(&out, l, 1, 80, 0);
    expect("depth 0", &out, "...");
    strbuf_free(&out);
    heap_destroy(&h);
}

/* A 1,000,000-element list: both writers walk it without recursion; ~p
 * breaks it into lines at most 80 wide. */
static void test_huge_list(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    const long n = 1000000;
    term list = NIL;
    for (long i = n; i >= 1; i--) {
        list = heap_cons(&h, make_small(i), list);
        CU_ASSERT_FATAL(is_value(list));
    }
    struct strbuf out = STRBUF_INIT;
    print_w(&out, list, -1);
    CU_ASSERT(strncmp(out.data, "[1,2,3,", 7) == 0);
    CU_ASSERT(out.len > 7 && strcmp(out.data + out.len - 9, ",1000000]") == 0);
    strbuf_clear(&out);
    print_p(&out, list, 1, 80, -1);
    CU_ASSERT(strncmp(out.data, "[1,2,3,", 7) == 0);
    CU_ASSERT(strcmp(out.data + out.len - 8, "1000000]") == 0);
    size_t longest = 0, cur = 0;
    for (size_t i = 0; i < out.len; i++) {
        cur = out.data[i] == '\n' ? 0 : cur + 1;
        if (cur > longest)
            longest = cur;
    }
    CU_ASSERT(longest <= 80);
    strbuf_clear(&out);
    print_p(&out, list, 1, 80, 5);
    /* erl: io_lib:format("~P", [lists:seq(1, 1000000), 5]) */
    expect("~P of the huge list", &out, "[1,2,3,4|...]");
    strbuf_free(&out);
    heap_destroy(&h);
}

/* A 100,000-deep nested tuple {{{...ok...}}}, a tagged one and a list
 * nested through its heads. For the one-element nesting ~p stays on one
 * line (each level adds one column and saves two characters), so it must
 * equal ~w. */
static void test_deep_terms(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    const size_t depth = 100000;
    term t = A(ok);
    for (size_t i = 0; i < depth; i++) {
        t = heap_tuple(&h, 1, &t);
        CU_ASSERT_FATAL(is_value(t));
    }
    struct strbuf w = STRBUF_INIT, p = STRBUF_INIT;
    print_w(&w, t, -1);
    CU_ASSERT_EQUAL(w.len, 2 * depth + 2);
    CU_ASSERT(w.data[0] == '{' && w.data[depth] == 'o' && w.data[w.len - 1] == '}');
    print_p(&p, t, 1, 80, -1);
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&p), strbuf_cstr(&w));

    /* {a,{a,{a,...}}}: a tagged tuple at every level. */
    term u = NIL;
    for (size_t i = 0; i < depth; i++) {
        u = heap_tuple2(&h, A(error), u);
        CU_ASSERT_FATAL(is_value(u));
    }
    strbuf_clear(&w);
    print_w(&w, u, -1);
    CU_ASSERT(strncmp(w.data, "{error,{error,", 14) == 0);
    /* Laid out in 80 columns this nesting indents every level by one more
     * column, so the text is quadratic in the depth (5 GB here, in OTP as
     * well): print it one-line (line length 0 writes like ~w) and laid out
     * with a depth limit. */
    strbuf_clear(&p);
    print_p(&p, u, 1, 0, -1);
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&p), strbuf_cstr(&w));
    strbuf_clear(&p);
    print_p(&p, u, 1, 80, 2000);
    CU_ASSERT(strncmp(p.data, "{error,", 7) == 0);
    /* the depth runs out 1000 levels down (a tuple's second element is
     * two levels deeper) */
    CU_ASSERT_PTR_NOT_NULL(strstr(p.data, "{error,...}}}"));
    CU_ASSERT(p.data[p.len - 1] == '}');

    /* [[[...]]] with a cons tail at every level: deep in both directions. */
    term l = NIL;
    for (size_t i = 0; i < depth; i++) {
        l = heap_cons(&h, l, make_small((int64_t)i));
        CU_ASSERT_FATAL(is_value(l));
    }
    strbuf_clear(&w);
    print_w(&w, l, -1);
    CU_ASSERT(strncmp(w.data, "[[[[", 4) == 0);
    strbuf_clear(&p);
    print_p(&p, l, 1, 0, -1);
    CU_ASSERT_STRING_EQUAL(strbuf_cstr(&p), strbuf_cstr(&w));
    strbuf_clear(&p);
    print_p(&p, l, 1, 80, 3);
    /* erl: io_lib:format("~P", [L, 3]) of the same list */
    expect("~P 3 of the deep improper list", &p, "[[[...]|...]|99999]");
    strbuf_free(&w);
    strbuf_free(&p);
    heap_destroy(&h);
}

static CU_TestInfo tests[] = {
    {"basics", test_basics},
    {"table from erl", test_table},
    {"local funs", test_local_funs},
    {"1,000,000-element list", test_huge_list},
    {"100,000-deep terms", test_deep_terms},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(print, tests)
