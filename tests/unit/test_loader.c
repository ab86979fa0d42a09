/*
 * test_loader.c — the BEAM loader (core/beam/loader.h).
 *
 * Four kinds of test:
 *   - modules compiled by erlc from tests/beam/ (committed under
 *     tests/data/beam/ by tests/gen/beam_files.sh): instruction dumps compared
 *     with text written by hand from `erlc +to_asm` output, literals compared
 *     with what OTP's ~w prints for them (loader_literals.txt, from erl);
 *   - OTP's own modules: lists.beam in detail, then every installed .beam,
 *     each walked instruction by instruction to check the operand encoding;
 *   - small modules assembled here byte by byte, for each compact-term form
 *     and each error the loader reports;
 *   - damaged copies of a real module: truncated at every byte, chunks
 *     removed, bytes flipped. Each must load or fail with one line naming the
 *     file; ASan checks that none crashes or leaks.
 */
#include "test_main.h"
#include "test_support.h"

#include "beam/loader.h"
#include "beam/opcodes.h"
#include "term/atom.h"
#include "term/binary.h"
#include "term/bytes.h"
#include "term/compare.h"
#include "term/map.h"
#include "term/print.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ERROR_LEN 512

static term atom(const char *s) { return atom_intern_cstr(s); }

static struct beam_module *load_test_module(const char *name)
{
    char path[256], error[ERROR_LEN];
    snprintf(path, sizeof path, "data/beam/%s.beam", name);
    struct beam_module *m = beam_load(test_data_path(path), error, sizeof error);
    if (!m)
        fprintf(stderr, "\n%s\n", error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    return m;
}

static bool expect_text(const char *what, const char *got, const char *expected)
{
    if (strcmp(got, expected) == 0)
        return true;
    fprintf(stderr, "\n%s: expected\n%s\ngot\n%s\n", what, expected, got);
    return false;
}

static void expect_function_dump(const struct beam_module *m, const char *function, unsigned arity,
                                 const char *expected)
{
    struct strbuf out = STRBUF_INIT;
    CU_ASSERT_TRUE(beam_module_dump_function(m, atom(function), arity, &out));
    CU_ASSERT_TRUE(expect_text(function, strbuf_cstr(&out), expected));
    strbuf_free(&out);
}

/* An error message is one line: "<name>: <problem>". */
static bool is_error_line(const char *error, const char *name)
{
    size_t n = strlen(name);
    return strncmp(error, name, n) == 0 && error[n] == ':' && error[n + 1] == ' ' && strlen(error) > n + 2 &&
           strchr(error, '\n') == NULL;
}

static void expect_load_error(const uint8_t *data, size_t size, const char *expected)
{
    char error[ERROR_LEN];
    struct beam_module *m = beam_load_bytes(data, size, "t.beam", error, sizeof error);
    CU_ASSERT_PTR_NULL(m);
    beam_module_free(m);
    bool ok = is_error_line(error, "t.beam") && strstr(error, expected) != NULL;
    if (!ok)
        fprintf(stderr, "\nexpected an error containing \"%s\", got \"%s\"\n", expected, m ? "(loaded)" : error);
    CU_ASSERT_TRUE(ok);
}

/* ---- modules compiled by erlc ---- */

static void test_basic_module(void)
{
    struct beam_module *m = load_test_module("loader_basic");
    CU_ASSERT_EQUAL(m->name, atom("loader_basic"));
    CU_ASSERT_EQUAL(m->export_count, 8);
    CU_ASSERT_EQUAL(m->function_count, 8);
    static const struct {
        const char *name;
        unsigned arity;
    } exports[] = {{"add", 2},  {"classify", 1}, {"arity", 1},       {"big", 1},
                   {"pair", 2}, {"first", 1},    {"module_info", 0}, {"module_info", 1}};
    for (size_t i = 0; i < sizeof exports / sizeof exports[0]; i++) {
        const uint64_t *entry = beam_export_entry(m, atom(exports[i].name), exports[i].arity);
        CU_ASSERT_PTR_NOT_NULL_FATAL(entry);
        /* Every entry follows its func_info: module, function, arity. */
        CU_ASSERT_EQUAL(entry[-4], BEAM_OP_func_info);
        CU_ASSERT_EQUAL(entry[-3], atom("loader_basic"));
        CU_ASSERT_EQUAL(entry[-2], atom(exports[i].name));
        CU_ASSERT_EQUAL(entry[-1], exports[i].arity);
    }
    CU_ASSERT_PTR_NULL(beam_export_entry(m, atom("add"), 3));
    CU_ASSERT_PTR_NULL(beam_export_entry(m, atom("nonexistent"), 0));

    /* classify/1's atom table is sorted by atom word, which depends on the
     * order the run interned the atoms in: compute its expected order. */
    struct select_pair {
        term value;
        unsigned target;
    } pairs[] = {{atom("one"), 37}, {atom("three"), 33}, {atom("two"), 29}};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (beam_select_compare(pairs[j].value, pairs[i].value) < 0) {
                struct select_pair t = pairs[i];
                pairs[i] = pairs[j];
                pairs[j] = t;
            }
    struct strbuf select = STRBUF_INIT;
    strbuf_puts(&select, "    19  select_val x(0), @57, [");
    for (int i = 0; i < 3; i++) {
        print_w(&select, pairs[i].value, -1);
        strbuf_printf(&select, " -> @%u%s", pairs[i].target, i < 2 ? ", " : "]\n");
    }

    struct strbuf expected = STRBUF_INIT;
    strbuf_puts(&expected, "module loader_basic: 163 words, 8 functions, 8 exports, 5 imports, 0 funs, 0 literals\n"
                           "      ; loader_basic.erl:6\n"
                           "     0  func_info loader_basic, add, 2\n"
                           "     4  gc_bif2 none, 2, erlang:'+'/2, x(0), x(1), x(0)\n"
                           "    11  return\n"
                           "      ; loader_basic.erl:8\n"
                           "    12  func_info loader_basic, classify, 1\n"
                           "    16  is_atom @41, x(0)\n");
    strbuf_puts(&expected, strbuf_cstr(&select));
    strbuf_puts(&expected, "    29  move 2, x(0)\n"
                           "    32  return\n"
                           "    33  move 3, x(0)\n"
                           "    36  return\n"
                           "    37  move 1, x(0)\n"
                           "    40  return\n"
                           "    41  select_val x(0), @57, [-5 -> @53, 7 -> @49]\n"
                           "    49  move seven, x(0)\n"
                           "    52  return\n"
                           "    53  move minus_five, x(0)\n"
                           "    56  return\n"
                           "    57  move other, x(0)\n"
                           "    60  return\n"
                           "      ; loader_basic.erl:18\n"
                           "    61  func_info loader_basic, arity, 1\n"
                           "    65  is_tuple @90, x(0)\n"
                           "    68  select_tuple_arity x(0), @90, [1 -> @86, 2 -> @82, 3 -> @78]\n"
                           "    78  move three, x(0)\n"
                           "    81  return\n"
                           "    82  move two, x(0)\n"
                           "    85  return\n"
                           "    86  move one, x(0)\n"
                           "    89  return\n"
                           "      ; loader_basic.erl:19\n"
                           "    90  case_end x(0)\n"
                           "      ; loader_basic.erl:25\n"
                           "    92  func_info loader_basic, big, 1\n"
                           "    96  gc_bif2 none, 1, erlang:'*'/2, x(0), 123456789012345678901234567890, x(0)\n"
                           "   103  gc_bif2 none, 1, erlang:'-'/2, x(0), 98765432109876543210, x(0)\n"
                           "   110  return\n"
                           "      ; loader_basic.erl:27\n"
                           "   111  func_info loader_basic, pair, 2\n"
                           "   115  test_heap 6, 2\n"
                           "   118  put_list x(0), x(1), x(2)\n"
                           "   122  put_tuple2 x(0), [x(0), x(1), x(2)]\n"
                           "   128  return\n"
                           "      ; loader_basic.erl:29\n"
                           "   129  func_info loader_basic, first, 1\n"
                           "   133  is_nonempty_list @129, x(0)\n"
                           "   136  get_hd x(0), x(0)\n"
                           "   139  return\n"
                           "      ; no location\n"
                           "   140  func_info loader_basic, module_info, 0\n"
                           "   144  move loader_basic, x(0)\n"
                           "   147  call_ext_only 1, erlang:get_module_info/1\n"
                           "   150  func_info loader_basic, module_info, 1\n"
                           "   154  move x(0), x(1)\n"
                           "   157  move loader_basic, x(0)\n"
                           "   160  call_ext_only 2, erlang:get_module_info/2\n");
    struct strbuf dump = STRBUF_INIT;
    beam_module_dump(m, &dump);
    CU_ASSERT_TRUE(expect_text("loader_basic", strbuf_cstr(&dump), strbuf_cstr(&expected)));

    /* The operand words themselves, for add/2's gc_bif2. */
    const uint64_t *add = beam_export_entry(m, atom("add"), 2);
    CU_ASSERT_EQUAL(add[0], BEAM_OP_gc_bif2);
    CU_ASSERT_EQUAL(add[1], 0); /* no fail label */
    CU_ASSERT_EQUAL(add[2], 2); /* live */
    CU_ASSERT_EQUAL(m->imports[add[3]].function, atom("+"));
    CU_ASSERT_EQUAL(add[4], beam_x(0));
    CU_ASSERT_EQUAL(add[5], beam_x(1));
    CU_ASSERT_EQUAL(add[6], beam_x(0));
    CU_ASSERT_EQUAL(beam_instruction_words(add), 7);

    /* Locations: classify's select_val is on line 8, arity's case_end on 19. */
    const char *file;
    uint32_t line;
    CU_ASSERT_TRUE(beam_location_of(m, 19, &file, &line));
    CU_ASSERT_STRING_EQUAL(file, "loader_basic.erl");
    CU_ASSERT_EQUAL(line, 8);
    CU_ASSERT_TRUE(beam_location_of(m, 90, &file, &line));
    CU_ASSERT_EQUAL(line, 19);
    CU_ASSERT_FALSE(beam_location_of(m, 144, &file, &line));
    strbuf_free(&select);
    strbuf_free(&expected);
    strbuf_free(&dump);
    beam_module_free(m);
}

static void test_literals(void)
{
    struct beam_module *m = load_test_module("loader_literals");
    size_t size;
    char *text = (char *)read_whole_file(test_data_path("data/beam/loader_literals.txt"), &size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    text = realloc(text, size + 1);
    text[size] = '\0';
    int checked = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        CU_ASSERT_PTR_NOT_NULL_FATAL(tab);
        *tab = '\0';
        /* Each function is "move Literal, x(0); return". */
        const uint64_t *entry = beam_export_entry(m, atom(line), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(entry);
        CU_ASSERT_EQUAL(entry[0], BEAM_OP_move);
        CU_ASSERT_EQUAL(entry[2], beam_x(0));
        CU_ASSERT_EQUAL(entry[3], BEAM_OP_return);
        CU_ASSERT_FALSE(beam_is_register(entry[1]));
        struct strbuf out = STRBUF_INIT;
        print_w(&out, entry[1], -1);
        CU_ASSERT_TRUE(expect_text(line, strbuf_cstr(&out), tab + 1));
        strbuf_free(&out);
        checked++;
    }
    CU_ASSERT_EQUAL(checked, 18);
    free(text);

    /* The large map equals one built here, and the 84-byte binary is an
     * off-heap binary held by the literal heap. */
    term keys[40], values[40];
    heap_t h;
    CU_ASSERT_TRUE_FATAL(heap_init(&h, 0, 0));
    for (int k = 1; k <= 40; k++) {
        keys[k - 1] = make_small(k);
        values[k - 1] = make_small(k * k);
    }
    term map = map_from_pairs(&h, keys, values, 40);
    CU_ASSERT_TRUE(term_eq_exact(beam_export_entry(m, atom("large_map"), 0)[1], map));
    heap_destroy(&h);
    term bin = beam_export_entry(m, atom("large_binary"), 0)[1];
    CU_ASSERT_TRUE(is_boxed_subtag(bin, SUBTAG_REFC_BIN));
    CU_ASSERT_TRUE(heap_contains(&m->literal_heap, boxed_ptr(bin)));
    CU_ASSERT_TRUE(heap_contains(&m->literal_heap, boxed_ptr(beam_export_entry(m, atom("in_code_bignum"), 0)[1])));

    /* Integers of the instruction stream (i operands), not literals. */
    static const char *const int_moves[] = {"-576460752303423489", "576460752303423487", "-2049", "2048", "2047", "-1"};
    const uint64_t *entry = beam_export_entry(m, atom("int_moves"), 1);
    CU_ASSERT_EQUAL(entry[0], BEAM_OP_select_val);
    const uint64_t *pc = entry + beam_instruction_words(entry);
    for (int i = 0; i < 6; i++) {
        CU_ASSERT_EQUAL(pc[0], BEAM_OP_move);
        struct strbuf out = STRBUF_INIT;
        print_w(&out, pc[1], -1);
        CU_ASSERT_TRUE(expect_text("int_moves", strbuf_cstr(&out), int_moves[i]));
        strbuf_free(&out);
        pc += 4; /* move, return */
    }
    beam_module_free(m);
}

static void test_features(void)
{
    struct beam_module *m = load_test_module("loader_features");
    expect_function_dump(m, "adder", 1,
                         "      ; loader_features.erl:8\n"
                         "     0  func_info loader_features, adder, 1\n"
                         "     4  test_heap 3, 1\n"
                         "     7  make_fun3 fun#0, x(0), [x(0)]\n"
                         "    12  return\n");
    expect_function_dump(m, "apply_twice", 2,
                         "      ; loader_features.erl:10\n"
                         "    13  func_info loader_features, apply_twice, 2\n"
                         "    17  allocate 1, 2\n"
                         "    20  move x(0), y(0)\n"
                         "    23  swap x(0), x(1)\n"
                         "    26  call_fun 1\n"
                         "    28  move y(0), x(1)\n"
                         "    31  call_fun2 safe, 1, x(1)\n"
                         "    35  deallocate 1\n"
                         "    37  return\n");
    expect_function_dump(m, "safe_div", 2,
                         "      ; loader_features.erl:12\n"
                         "    38  func_info loader_features, safe_div, 2\n"
                         "    42  allocate 3, 2\n"
                         "    45  init_yregs [y(0), y(1)]\n"
                         "    49  try y(2), @102\n"
                         "    52  try y(1), @69\n"
                         "      ; loader_features.erl:13\n"
                         "    55  gc_bif2 none, 2, erlang:'div'/2, x(0), x(1), x(0)\n"
                         "    62  try_end y(1)\n"
                         "    64  move x(0), y(1)\n"
                         "    67  jump @82\n"
                         "    69  try_case y(1)\n"
                         "    71  is_eq_exact @99, x(0), error\n"
                         "    75  is_eq_exact @99, x(1), badarith\n"
                         "    79  move infinity, y(1)\n"
                         "    82  try_end y(2)\n"
                         "    84  move true, x(1)\n"
                         "    87  move done, x(0)\n"
                         "      ; loader_features.erl:15\n"
                         "    90  call_ext 2, erlang:put/2\n"
                         "    93  move y(1), x(0)\n"
                         "    96  deallocate 3\n"
                         "    98  return\n"
                         "    99  raise x(2), x(1)\n"
                         "   102  try_case y(2)\n"
                         "   104  move x(2), y(0)\n"
                         "   107  move x(1), y(1)\n"
                         "   110  move true, x(1)\n"
                         "   113  move done, x(0)\n"
                         "   116  call_ext 2, erlang:put/2\n"
                         "   119  raise y(0), y(1)\n");
    expect_function_dump(m, "old_catch", 1,
                         "      ; loader_features.erl:18\n"
                         "   122  func_info loader_features, old_catch, 1\n"
                         "   126  allocate 1, 1\n"
                         "   129  catch y(0), @135\n"
                         "   132  call_ext 1, erlang:throw/1\n"
                         "   135  catch_end y(0)\n"
                         "   137  deallocate 1\n"
                         "   139  return\n");
    expect_function_dump(m, "wait", 1,
                         "      ; loader_features.erl:20\n"
                         "   140  func_info loader_features, wait, 1\n"
                         "   144  allocate 1, 1\n"
                         "   147  move x(0), y(0)\n"
                         "   150  loop_rec @168, x(0)\n"
                         "   153  is_tagged_tuple @166, x(0), 2, msg\n"
                         "   158  get_tuple_element x(0), 1, x(0)\n"
                         "   162  remove_message\n"
                         "   163  deallocate 1\n"
                         "   165  return\n"
                         "   166  loop_rec_end @150\n"
                         "   168  wait_timeout @150, y(0)\n"
                         "   171  timeout\n"
                         "   172  move timeout, x(0)\n"
                         "   175  deallocate 1\n"
                         "   177  return\n");
    expect_function_dump(m, "call_ref", 1,
                         "      ; loader_features.erl:31\n"
                         "   200  func_info loader_features, call_ref, 1\n"
                         "   204  allocate 2, 1\n"
                         "   207  move x(0), y(1)\n"
                         "   210  recv_marker_reserve y(0)\n"
                         "   212  call_ext 0, erlang:make_ref/0\n"
                         "   215  test_heap 3, 1\n"
                         "   218  put_tuple2 x(1), [x(0), hello]\n"
                         "   223  recv_marker_bind y(0), x(0)\n"
                         "   226  swap y(1), x(0)\n"
                         "   229  init_yregs [y(0)]\n"
                         "      ; loader_features.erl:33\n"
                         "   232  send\n"
                         "   233  recv_marker_use y(1)\n"
                         "   235  loop_rec @265, x(0)\n"
                         "   238  is_tuple @263, x(0)\n"
                         "   241  test_arity @263, x(0), 2\n"
                         "   245  get_tuple_element x(0), 0, x(1)\n"
                         "   249  is_eq_exact @263, x(1), y(1)\n"
                         "   253  recv_marker_clear y(1)\n"
                         "   255  get_tuple_element x(0), 1, x(0)\n"
                         "   259  remove_message\n"
                         "   260  deallocate 2\n"
                         "   262  return\n"
                         "   263  loop_rec_end @235\n"
                         "   265  wait @235\n");
    expect_function_dump(m, "map_get", 1,
                         "      ; loader_features.erl:36\n"
                         "   267  func_info loader_features, map_get, 1\n"
                         "   271  is_map @267, x(0)\n"
                         "   274  get_map_elements @267, x(0), [other -> x(2), key -> x(1)]\n"
                         "   282  test_heap 3, 3\n"
                         "   285  put_tuple2 x(0), [x(1), x(2)]\n"
                         "   290  return\n");
    expect_function_dump(m, "map_new", 1,
                         "      ; loader_features.erl:40\n"
                         "   318  func_info loader_features, map_new, 1\n"
                         "   322  put_map_assoc none, #{}, x(0), 1, [a, x(0), b, 2]\n"
                         "   332  return\n");
    expect_function_dump(m, "bin", 1,
                         "      ; loader_features.erl:42\n"
                         "   333  func_info loader_features, bin, 1\n"
                         "   337  bs_create_bin none, 0, 1, 1, x(0), [{string, 0, 8, [], 0, 3}, "
                         "{integer, 2, 1, [], x(0), 8}]\n"
                         "   356  return\n");
    expect_function_dump(m, "parse", 1,
                         "      ; loader_features.erl:44\n"
                         "   357  func_info loader_features, parse, 1\n"
                         "   361  bs_start_match3 @357, x(0), 1, x(1)\n"
                         "   366  bs_get_position x(1), x(0), 2\n"
                         "   370  bs_get_integer2 @400, x(1), 2, 8, 1, 0, x(2)\n"
                         "   378  bs_match_string @400, x(1), 16, 0\n"
                         "   383  bs_get_binary2 @400, x(1), 3, all, 8, 0, x(3)\n"
                         "   391  test_heap 3, 4\n"
                         "   394  put_tuple2 x(0), [x(2), x(3)]\n"
                         "   399  return\n"
                         "   400  bs_set_position x(1), x(0)\n"
                         "   403  bs_get_tail x(1), x(0), 2\n"
                         "   407  jump @357\n");
    expect_function_dump(m, "fsum", 2,
                         "      ; loader_features.erl:46\n"
                         "   409  func_info loader_features, fsum, 2\n"
                         "   413  is_float @409, x(0)\n"
                         "   416  is_float @409, x(1)\n"
                         "   419  fmove x(0), fr(0)\n"
                         "   422  fmove x(1), fr(1)\n"
                         "   425  fmul none, fr(0), fr(1), fr(2)\n"
                         "   430  fdiv none, fr(0), fr(1), fr(0)\n"
                         "   435  fadd none, fr(2), fr(0), fr(0)\n"
                         "   440  test_heap 2, 0\n"
                         "   443  fmove fr(0), x(0)\n"
                         "   446  return\n");

    /* The fun: FunT entry 0 is the local '-adder/1-fun-0-'/2, one free variable. */
    CU_ASSERT_EQUAL_FATAL(m->fun_count, 1);
    const struct fun_entry *fun = &m->funs[0];
    CU_ASSERT_EQUAL(fun->module, atom("loader_features"));
    CU_ASSERT_EQUAL(fun->name, atom("-adder/1-fun-0-"));
    CU_ASSERT_EQUAL(fun->arity, 1);
    CU_ASSERT_EQUAL(fun->num_free, 1);
    CU_ASSERT_EQUAL(fun->index, 0);
    CU_ASSERT_PTR_NULL(beam_export_entry(m, atom("-adder/1-fun-0-"), 2));
    CU_ASSERT_PTR_EQUAL(fun->code, beam_function_entry(m, atom("-adder/1-fun-0-"), 2));
    const uint64_t *adder = beam_export_entry(m, atom("adder"), 1);
    CU_ASSERT_EQUAL(adder[3], BEAM_OP_make_fun3);
    CU_ASSERT_PTR_EQUAL((const struct fun_entry *)(uintptr_t)adder[4], fun);
    /* StrT holds "abc" and "ab"; the string segment and bs_match_string point into it. */
    CU_ASSERT_TRUE(m->string_size >= 3);
    beam_module_free(m);
}

/* ---- OTP's modules ---- */

/* Paths of OTP's installed .beam files matching pattern under the OTP root
 * (CLAUSE_OTP_ROOT, else the usual install places). */
static bool otp_glob(const char *pattern, glob_t *g)
{
    const char *roots[] = {getenv("CLAUSE_OTP_ROOT"), "/usr/lib/erlang", "/usr/local/lib/erlang"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        if (!roots[i])
            continue;
        char full[1024];
        snprintf(full, sizeof full, "%s/%s", roots[i], pattern);
        if (glob(full, 0, NULL, g) == 0)
            return true;
        globfree(g);
    }
    return false;
}

static bool is_list_kind(char kind) { return strchr("LYMVTB", kind) != NULL; }

/* Walks the whole code, checking the encoding module.h promises: the
 * instructions tile the array exactly; every label is an instruction start;
 * registers, imports and funs are in range; select tables are sorted. */
static bool check_code(const struct beam_module *m, const char *path)
{
    bool *start = calloc(m->code_words + 1, sizeof *start);
    size_t pc = 0;
    while (pc < m->code_words) {
        start[pc] = true;
        if (!beam_opcode_loadable(m->code[pc]) || m->code[pc] == BEAM_OP_label || m->code[pc] == BEAM_OP_line) {
            fprintf(stderr, "\n%s: bad opcode word at %zu\n", path, pc);
            free(start);
            return false;
        }
        pc += beam_instruction_words(m->code + pc);
    }
    bool ok = pc == m->code_words;
    const uint64_t *end = m->code + m->code_words;
#define CHECK(cond)                                                                                                    \
    if (!(cond)) {                                                                                                     \
        fprintf(stderr, "\n%s: %s fails at %zu\n", path, #cond, pc);                                                   \
        ok = false;                                                                                                    \
    }
    for (pc = 0; ok && pc < m->code_words; pc += beam_instruction_words(m->code + pc)) {
        const uint64_t *w = m->code + pc;
        const char *kinds = beam_opcodes[w[0]].operands;
        size_t i = 1;
        for (; *kinds && ok; kinds++) {
            uint64_t v = w[i];
            const uint64_t *target = (const uint64_t *)(uintptr_t)v;
            switch (*kinds) {
            case 'f':
                CHECK(v == 0 || (target >= m->code && target < end && start[target - m->code]));
                break;
            case 'd':
                CHECK(beam_is_register(v) && beam_register_kind(v) != BEAM_REG_FR);
                break;
            case 'y':
                CHECK(beam_is_register(v) && beam_register_kind(v) == BEAM_REG_Y);
                break;
            case 'r':
                CHECK(beam_is_register(v) && beam_register_kind(v) == BEAM_REG_FR);
                break;
            case 's':
            case 'i':
                CHECK(!beam_is_register(v) || beam_register_kind(v) != BEAM_REG_FR);
                break;
            case 'a':
                CHECK(is_atom(v));
                break;
            case 'e':
                CHECK(v < m->import_count);
                break;
            case 'F':
                CHECK((const struct fun_entry *)(uintptr_t)v >= m->funs &&
                      (const struct fun_entry *)(uintptr_t)v < m->funs + m->fun_count);
                break;
            case 'V':
                for (uint64_t k = 2; k < v; k += 2)
                    CHECK(beam_select_compare(w[i + 1 + k - 2], w[i + 1 + k]) < 0);
                break;
            case 'T':
                for (uint64_t k = 2; k < v; k += 2)
                    CHECK(w[i + 1 + k - 2] < w[i + 1 + k]);
                break;
            default:
                break;
            }
            if ((*kinds == 'V' || *kinds == 'T') && ok)
                for (uint64_t k = 1; k < v; k += 2) {
                    const uint64_t *t = (const uint64_t *)(uintptr_t)w[i + 1 + k];
                    CHECK(t >= m->code && t < end && start[t - m->code]);
                }
            i += is_list_kind(*kinds) ? 1 + v : 1;
        }
    }
#undef CHECK
    for (uint32_t i = 0; ok && i < m->export_count; i++)
        ok = m->exports[i].entry[-4] == BEAM_OP_func_info && m->exports[i].entry[-3] == m->name &&
             m->exports[i].entry[-2] == m->exports[i].name && m->exports[i].entry[-1] == m->exports[i].arity;
    for (uint32_t i = 0; ok && i < m->fun_count; i++)
        ok = start[(const uint64_t *)m->funs[i].code - m->code];
    free(start);
    return ok;
}

static void test_otp_lists(void)
{
    glob_t g;
    CU_ASSERT_TRUE_FATAL(otp_glob("lib/stdlib-*/ebin/lists.beam", &g));
    char error[ERROR_LEN];
    struct beam_module *m = beam_load(g.gl_pathv[0], error, sizeof error);
    if (!m)
        fprintf(stderr, "\n%s\n", error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->name, atom("lists"));
    static const struct {
        const char *name;
        unsigned arity;
    } exports[] = {{"reverse", 1}, {"reverse", 2}, {"foldl", 3},  {"keyfind", 3}, {"member", 2},
                   {"seq", 2},     {"sort", 1},    {"append", 2}, {"map", 2}};
    for (size_t i = 0; i < sizeof exports / sizeof exports[0]; i++)
        CU_ASSERT_PTR_NOT_NULL(beam_export_entry(m, atom(exports[i].name), exports[i].arity));
    CU_ASSERT_PTR_NULL(beam_export_entry(m, atom("reverse"), 3));
    /* lists calls only BIFs and itself (notes/beam.md: 20 imports). */
    CU_ASSERT_TRUE(m->import_count >= 15 && m->import_count <= 30);
    bool has_reverse2 = false;
    for (uint32_t i = 0; i < m->import_count; i++)
        has_reverse2 |= m->imports[i].module == atom("lists") && m->imports[i].function == atom("reverse") &&
                        m->imports[i].arity == 2;
    CU_ASSERT_TRUE(has_reverse2);
    CU_ASSERT_TRUE(check_code(m, g.gl_pathv[0]));
    const char *file;
    uint32_t line;
    CU_ASSERT_TRUE(beam_location_of(m, (size_t)(beam_export_entry(m, atom("seq"), 2) - m->code), &file, &line));
    CU_ASSERT_STRING_EQUAL(file, "lists.erl");
    beam_module_free(m);
    globfree(&g);
}

/* The function that holds a code address (beam_function_at, stack
 * traces' lookup by binary search) is the one a scan of every export and
 * local finds: the last whose func_info starts at or before the address,
 * for every word of lists.beam's code. And each file's {file, Name} item,
 * shared by stack traces, is that file's name as a string. */
static const struct beam_function *function_by_scan(const struct beam_module *m, const uint64_t *pc)
{
    const struct beam_function *best = NULL;
    const struct beam_function *tables[2] = {m->exports, m->locals};
    uint32_t counts[2] = {m->export_count, m->local_count};
    for (int t = 0; t < 2; t++)
        for (uint32_t i = 0; i < counts[t]; i++)
            if (tables[t][i].entry - 4 <= pc && (!best || tables[t][i].entry > best->entry))
                best = &tables[t][i];
    return best;
}

static void test_function_at(void)
{
    glob_t g;
    CU_ASSERT_TRUE_FATAL(otp_glob("lib/stdlib-*/ebin/lists.beam", &g));
    char error[ERROR_LEN];
    struct beam_module *m = beam_load(g.gl_pathv[0], error, sizeof error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->by_entry_count, m->export_count + m->local_count);
    size_t mismatches = 0;
    for (size_t i = 0; i < m->code_words; i++)
        mismatches += beam_function_at(m, m->code + i) != function_by_scan(m, m->code + i);
    CU_ASSERT_EQUAL(mismatches, 0);
    const struct beam_function *seq = beam_function_at(m, beam_export_entry(m, atom("seq"), 2));
    CU_ASSERT_PTR_NOT_NULL_FATAL(seq);
    CU_ASSERT_EQUAL(seq->name, atom("seq"));
    CU_ASSERT_EQUAL(seq->arity, 2);
    for (uint32_t i = 0; i < m->file_count; i++) {
        term item = m->files[i].file_item;
        CU_ASSERT_TRUE_FATAL(is_tuple(item) && tuple_arity(item) == 2);
        CU_ASSERT_EQUAL(tuple_element(item, 1), atom("file"));
        size_t n = 0;
        term l = tuple_element(item, 2);
        for (; is_list(l) && n < m->files[i].len; l = list_tail(l), n++)
            CU_ASSERT_EQUAL(list_head(l), make_small((unsigned char)m->files[i].text[n]));
        CU_ASSERT_EQUAL(l, NIL);
        CU_ASSERT_EQUAL(n, m->files[i].len);
    }
    beam_module_free(m);
    globfree(&g);
}

/* Every module of OTP's installation (stdlib, kernel, compiler, ...): all of
 * them load, and their code passes check_code. */
static void test_otp_sweep(void)
{
    glob_t g;
    CU_ASSERT_TRUE_FATAL(otp_glob("lib/*/ebin/*.beam", &g));
    size_t loaded = 0, stdlib = 0, kernel = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char error[ERROR_LEN];
        struct beam_module *m = beam_load(g.gl_pathv[i], error, sizeof error);
        if (!m) {
            fprintf(stderr, "\n%s\n", error);
            CU_FAIL("an OTP module did not load");
            continue;
        }
        CU_ASSERT_TRUE(check_code(m, g.gl_pathv[i]));
        loaded++;
        stdlib += strstr(g.gl_pathv[i], "/stdlib-") != NULL;
        kernel += strstr(g.gl_pathv[i], "/kernel-") != NULL;
        beam_module_free(m);
    }
    CU_ASSERT_EQUAL(loaded, g.gl_pathc);
    CU_ASSERT_TRUE(stdlib > 50 && kernel > 50);
    globfree(&g);
}

/* ---- modules assembled byte by byte ---- */

static void put32(struct strbuf *b, uint32_t v)
{
    uint8_t p[4];
    store_be32(p, v);
    strbuf_append(b, p, 4);
}

static void put_chunk(struct strbuf *file, const char *id, const void *data, size_t n)
{
    strbuf_append(file, id, 4);
    put32(file, (uint32_t)n);
    strbuf_append(file, data, n);
    strbuf_fill(file, 0, (4 - n % 4) % 4);
}

/* A module m with function f/0 (and whatever else the code defines). */
struct mini {
    const char *atoms[4]; /* default {"m", "f"} */
    const uint8_t *code;  /* instructions after the Code header */
    size_t code_len;
    uint32_t format, max_opcode, label_count, function_count;
    uint32_t export_label; /* f/0's entry; default 2 */
    uint32_t imports[2][3];
    int import_count;
    const uint8_t *litt; /* raw LitT contents, or NULL */
    size_t litt_len;
    const uint8_t *strt;
    size_t strt_len;
    bool old_atom_chunk;
    size_t code_offset; /* out: file offset of the first instruction */
};

/* The usual start: label 1, func_info m f 0, label 2. */
#define MINI_PREFIX 0x01, 0x10, 0x02, 0x12, 0x22, 0x00, 0x01, 0x20
#define MINI_PREFIX_LEN 8

static void build_mini(struct mini *m, struct strbuf *file)
{
    const char *default_atoms[] = {"m", "f"};
    struct strbuf chunk = STRBUF_INIT;
    strbuf_clear(file);
    strbuf_append(file, "FOR1\0\0\0\0BEAM", 12);

    int natoms = 0;
    while (natoms < 4 && m->atoms[natoms])
        natoms++;
    const char *const *atoms = natoms ? m->atoms : default_atoms;
    natoms = natoms ? natoms : 2;
    put32(&chunk, (uint32_t)natoms);
    for (int i = 0; i < natoms; i++) {
        strbuf_putc(&chunk, (char)strlen(atoms[i]));
        strbuf_puts(&chunk, atoms[i]);
    }
    put_chunk(file, m->old_atom_chunk ? "Atom" : "AtU8", chunk.data, chunk.len);

    strbuf_clear(&chunk);
    put32(&chunk, 16);
    put32(&chunk, m->format);
    put32(&chunk, m->max_opcode ? m->max_opcode : BEAM_OPCODE_MAX);
    put32(&chunk, m->label_count ? m->label_count : 3);
    put32(&chunk, m->function_count ? m->function_count : 1);
    m->code_offset = file->len + 8 + chunk.len;
    strbuf_append(&chunk, m->code, m->code_len);
    put_chunk(file, "Code", chunk.data, chunk.len);

    strbuf_clear(&chunk);
    put32(&chunk, (uint32_t)m->import_count);
    for (int i = 0; i < m->import_count; i++)
        for (int k = 0; k < 3; k++)
            put32(&chunk, m->imports[i][k]);
    put_chunk(file, "ImpT", chunk.data, chunk.len);

    strbuf_clear(&chunk);
    put32(&chunk, 1);
    put32(&chunk, 2); /* f */
    put32(&chunk, 0);
    put32(&chunk, m->export_label ? m->export_label : 2);
    put_chunk(file, "ExpT", chunk.data, chunk.len);

    if (m->litt)
        put_chunk(file, "LitT", m->litt, m->litt_len);
    if (m->strt)
        put_chunk(file, "StrT", m->strt, m->strt_len);
    store_be32((uint8_t *)file->data + 4, (uint32_t)file->len - 8);
    strbuf_free(&chunk);
}

/* Loads a mini module whose f/0 body is `body` (after the prefix; 0x03,
 * int_code_end, is appended) and compares f/0's dump with expected. */
static void expect_mini_dump(const uint8_t *body, size_t n, const char *expected)
{
    uint8_t code[256] = {MINI_PREFIX};
    memcpy(code + MINI_PREFIX_LEN, body, n);
    code[MINI_PREFIX_LEN + n] = 0x03;
    struct mini mini = {.code = code, .code_len = MINI_PREFIX_LEN + n + 1};
    struct strbuf file = STRBUF_INIT, out = STRBUF_INIT;
    build_mini(&mini, &file);
    char error[ERROR_LEN];
    struct beam_module *m = beam_load_bytes((const uint8_t *)file.data, file.len, "mini.beam", error, sizeof error);
    if (!m)
        fprintf(stderr, "\n%s\n", error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    beam_module_dump_function(m, atom("f"), 0, &out);
    CU_ASSERT_TRUE(expect_text("mini", strbuf_cstr(&out), expected));
    beam_module_free(m);
    strbuf_free(&file);
    strbuf_free(&out);
}

static void expect_mini_error(struct mini *mini, const char *expected)
{
    struct strbuf file = STRBUF_INIT;
    build_mini(mini, &file);
    expect_load_error((const uint8_t *)file.data, file.len, expected);
    strbuf_free(&file);
}

static void expect_body_error(const uint8_t *body, size_t n, const char *expected)
{
    uint8_t code[256] = {MINI_PREFIX};
    memcpy(code + MINI_PREFIX_LEN, body, n);
    code[MINI_PREFIX_LEN + n] = 0x03;
    struct mini mini = {.code = code, .code_len = MINI_PREFIX_LEN + n + 1};
    expect_mini_error(&mini, expected);
}

#define BODY(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

static void test_compact_terms(void)
{
    /* move {integer,-1}, x(0): two-byte form, sign-extended. */
    expect_mini_dump(BODY(0x40, 0x19, 0xFF, 0xFF, 0x03, 0x13), "     0  func_info m, f, 0\n"
                                                               "     4  move -1, x(0)\n"
                                                               "     7  return\n");
    /* 11-bit forms: integer 2047, unsigned 300. */
    expect_mini_dump(BODY(0x40, 0xE9, 0xFF, 0x03, 0x10, 0x28, 0x2C, 0x00, 0x13), "     0  func_info m, f, 0\n"
                                                                                 "     4  move 2047, x(0)\n"
                                                                                 "     7  test_heap 300, 0\n"
                                                                                 "    10  return\n");
    /* Eight bytes: -2^62 is a bignum here (smalls have 60 bits). */
    expect_mini_dump(BODY(0x40, 0xD9, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0x13),
                     "     0  func_info m, f, 0\n"
                     "     4  move -4611686018427387904, x(0)\n"
                     "     7  return\n");
    /* Nine bytes need the length prefix form: 2^64 and -2^64-1. */
    expect_mini_dump(BODY(0x40, 0xF9, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0x40, 0xF9, 0x00, 0xFE, 0xFF, 0xFF,
                          0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x13, 0x13),
                     "     0  func_info m, f, 0\n"
                     "     4  move 18446744073709551616, x(0)\n"
                     "     7  move -18446744073709551617, x(1)\n"
                     "    10  return\n");
    /* Leading zero bytes that still make a small: 00 00 00 00 00 00 00 00 05. */
    expect_mini_dump(BODY(0x40, 0xF9, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x05, 0x03, 0x13), "     0  func_info m, f, 0\n"
                                                                                       "     4  move 5, x(0)\n"
                                                                                       "     7  return\n");
    /* Typed register (z 5: register, type index) and y registers. */
    expect_mini_dump(BODY(0x40, 0x57, 0x13, 0x00, 0x03, 0x40, 0x57, 0x24, 0x30, 0x34, 0x13),
                     "     0  func_info m, f, 0\n"
                     "     4  move x(1), x(0)\n"
                     "     7  move y(2), y(3)\n"
                     "    10  return\n");
    /* Old float (z 0, eight bytes), a character (h), nil (atom 0). */
    expect_mini_dump(
        BODY(0x40, 0x07, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0, 0x03, 0x40, 0x0E, 0x41, 0x13, 0x40, 0x02, 0x23, 0x13),
        "     0  func_info m, f, 0\n"
        "     4  move 1.5, x(0)\n"
        "     7  move 65, x(1)\n"
        "    10  move [], x(2)\n"
        "    13  return\n");
    /* Allocation list: 5 words, 2 floats, 1 fun = 5 + 2*2 + 1*2 words. */
    expect_mini_dump(BODY(0x10, 0x37, 0x30, 0x00, 0x50, 0x10, 0x20, 0x20, 0x10, 0x00, 0x13),
                     "     0  func_info m, f, 0\n"
                     "     4  test_heap 11, 0\n"
                     "     7  return\n");
    /* select_val sorts its pairs: 3, -1, 1 become -1, 1, 3. */
    expect_mini_dump(BODY(0x3B, 0x03, 0x25, 0x17, 0x60, 0x31, 0x25, 0x19, 0xFF, 0xFF, 0x25, 0x11, 0x25),
                     "     0  func_info m, f, 0\n"
                     "     4  select_val x(0), @4, [-1 -> @4, 1 -> @4, 3 -> @4]\n");
    /* select_tuple_arity sorts by arity; fmove with a float register. */
    expect_mini_dump(BODY(0x60, 0x03, 0x27, 0x20, 0x3C, 0x03, 0x25, 0x17, 0x40, 0x30, 0x25, 0x20, 0x25),
                     "     0  func_info m, f, 0\n"
                     "     4  fmove x(0), fr(2)\n"
                     "     7  select_tuple_arity x(0), @4, [2 -> @4, 3 -> @4]\n");
    /* A list whose length is in the 11-bit form, and a long y register. */
    uint8_t list[4 + 20 + 4] = {0xA4, 0x03, 0x17, 0x08, 20};
    for (int i = 0; i < 20; i++)
        list[5 + i] = 0x01; /* integer 0 */
    list[25] = 0x13;
    struct strbuf expected = STRBUF_INIT;
    strbuf_puts(&expected, "     0  func_info m, f, 0\n     4  put_tuple2 x(0), [");
    for (int i = 0; i < 20; i++)
        strbuf_puts(&expected, i ? ", 0" : "0");
    strbuf_puts(&expected, "]\n    27  return\n");
    expect_mini_dump(list, 26, strbuf_cstr(&expected));
    strbuf_free(&expected);
}

/* A LitT chunk holding the given ETF terms, compressed with zlib. */
static size_t make_litt(const uint8_t *const *terms, const size_t *sizes, int n, uint8_t *out, size_t cap)
{
    uint8_t raw[512];
    size_t len = 0;
    raw[len++] = 0, raw[len++] = 0, raw[len++] = 0, raw[len++] = (uint8_t)n;
    for (int i = 0; i < n; i++) {
        raw[len++] = 0, raw[len++] = 0, raw[len++] = 0, raw[len++] = (uint8_t)sizes[i];
        memcpy(raw + len, terms[i], sizes[i]);
        len += sizes[i];
    }
    uLongf clen = cap - 4;
    CU_ASSERT_EQUAL_FATAL(compress2(out + 4, &clen, raw, len, 9), Z_OK);
    out[0] = 0, out[1] = 0, out[2] = 0, out[3] = (uint8_t)len;
    return clen + 4;
}

static void test_literal_chunk(void)
{
    static const uint8_t ok_one[] = {131, 104, 2, 119, 2, 'o', 'k', 97, 1};          /* {ok, 1} */
    static const uint8_t body[] = {MINI_PREFIX, 0x40, 0x47, 0x00, 0x03, 0x13, 0x03}; /* move literal 0, x(0) */
    const uint8_t *terms[] = {ok_one};
    size_t sizes[] = {sizeof ok_one};
    uint8_t litt[256];
    struct mini mini = {.code = body, .code_len = sizeof body};
    mini.litt = litt;
    mini.litt_len = make_litt(terms, sizes, 1, litt, sizeof litt);
    struct strbuf file = STRBUF_INIT, out = STRBUF_INIT;
    build_mini(&mini, &file);
    char error[ERROR_LEN];
    struct beam_module *m = beam_load_bytes((const uint8_t *)file.data, file.len, "lit.beam", error, sizeof error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->literal_count, 1);
    beam_module_dump_function(m, atom("f"), 0, &out);
    CU_ASSERT_TRUE(expect_text("literal", strbuf_cstr(&out),
                               "     0  func_info m, f, 0\n     4  move {ok,1}, x(0)\n     7  return\n"));
    beam_module_free(m);

    /* Literal index beyond the table. */
    static const uint8_t body2[] = {MINI_PREFIX, 0x40, 0x47, 0x10, 0x03, 0x13, 0x03};
    mini.code = body2;
    expect_mini_error(&mini, "literal index 1 out of range (1 literals) (in move at offset ");
    /* A term followed by extra bytes; a term etf_decode refuses. */
    static const uint8_t trailing[] = {131, 97, 1, 0};
    static const uint8_t bad_tag[] = {131, 200};
    terms[0] = trailing, sizes[0] = sizeof trailing;
    mini.code = body;
    mini.litt_len = make_litt(terms, sizes, 1, litt, sizeof litt);
    expect_mini_error(&mini, "LitT chunk: literal 0: 1 bytes after the term");
    terms[0] = bad_tag, sizes[0] = sizeof bad_tag;
    mini.litt_len = make_litt(terms, sizes, 1, litt, sizeof litt);
    expect_mini_error(&mini, "LitT chunk: literal 0: ");
    /* Corrupt compressed data; an impossible uncompressed size; a size that
     * does not match the data. */
    terms[0] = ok_one, sizes[0] = sizeof ok_one;
    mini.litt_len = make_litt(terms, sizes, 1, litt, sizeof litt);
    litt[8] ^= 0x55;
    expect_mini_error(&mini, "LitT chunk: corrupt compressed data");
    mini.litt_len = make_litt(terms, sizes, 1, litt, sizeof litt);
    litt[0] = 0x7F;
    expect_mini_error(&mini, "impossible for");
    mini.litt_len = make_litt(terms, sizes, 1, litt, sizeof litt);
    litt[3] += 1;
    expect_mini_error(&mini, "LitT chunk: corrupt compressed data");
    /* A count beyond what the data holds. */
    uint8_t raw[4] = {0, 0, 0, 9};
    uLongf clen = sizeof litt - 4;
    compress2(litt + 4, &clen, raw, 4, 9);
    litt[0] = 0, litt[1] = 0, litt[2] = 0, litt[3] = 4;
    mini.litt_len = clen + 4;
    expect_mini_error(&mini, "LitT chunk: count 9 does not fit in the chunk");
    strbuf_free(&file);
    strbuf_free(&out);
}

static void test_code_errors(void)
{
    struct mini mini = {0};
    uint8_t code[64];
    char expected[128];

    /* Unknown opcodes, with the byte offset of the opcode in the file. */
    static const unsigned unknown[] = {213, 181, 0};
    for (size_t i = 0; i < 3; i++) {
        uint8_t c[] = {MINI_PREFIX, (uint8_t)unknown[i], 0x13, 0x03};
        mini = (struct mini){.code = c, .code_len = sizeof c};
        struct strbuf file = STRBUF_INIT;
        build_mini(&mini, &file);
        snprintf(expected, sizeof expected, "t.beam: unknown opcode %u at offset %zu", unknown[i],
                 mini.code_offset + MINI_PREFIX_LEN);
        char error[ERROR_LEN];
        CU_ASSERT_PTR_NULL(beam_load_bytes((const uint8_t *)file.data, file.len, "t.beam", error, sizeof error));
        CU_ASSERT_TRUE(expect_text("unknown opcode", error, expected));
        strbuf_free(&file);
    }
    expect_body_error(BODY(27, 0x00, 0x00, 0x00, 0x03), "unknown opcode 27 at offset ");
    expect_body_error(BODY(27, 0x00, 0x00, 0x00, 0x03), "(m_plus, not supported since before OTP 25)");
    expect_body_error(BODY(70, 0x10, 0x03), "unknown opcode 70"); /* put_tuple */

    /* Out-of-range indices. */
    uint8_t bad_atom[] = {0x01, 0x10, 0x02, 0x0A, 0x4D, 0x22, 0x00, 0x01, 0x20, 0x13, 0x03};
    mini = (struct mini){.code = bad_atom, .code_len = sizeof bad_atom};
    expect_mini_error(&mini, "atom index 77 out of range (2 atoms) (in func_info at offset ");
    expect_body_error(BODY(0x3D, 0x95), "label 9 out of range (3 labels) (in jump at offset ");
    expect_body_error(BODY(0x07, 0x00, 0x30), "import index 3 out of range (0 imports) (in call_ext at offset ");
    expect_body_error(BODY(0xAB, 0x00, 0x03, 0x17, 0x00), "fun index 0 out of range (0 funs) (in make_fun3 at");
    expect_body_error(BODY(0x99, 0x10), "line index 1 out of range (0 locations) (in line at offset ");
    expect_body_error(BODY(0x40, 0x03, 0x8B, 0x00), "x register 1024 out of range (limit 1024)");
    expect_body_error(BODY(0x60, 0x03, 0x27, 0x18, 0x08, 0x00), "float register 2048 out of range");

    /* Wrong kinds of operand. */
    expect_body_error(BODY(0x40, 0x51, 0x51), "operand 2 is an integer, expected an x or y register (in move");
    expect_body_error(BODY(0x3D, 0x03), "operand 1 is an x register, expected a label (in jump");
    expect_body_error(BODY(0x40, 0x17, 0x00, 0x03), "operand 1 is a list, expected a register or a term");
    expect_body_error(BODY(0x40, 0x0F), "bad extended compact term 0x0f");
    expect_body_error(BODY(0x40, 0x67, 0x03), "unknown extended compact term tag 6");
    expect_body_error(BODY(0x40, 0x57, 0x51, 0x00, 0x03), "typed register that is not an x or y register");
    expect_body_error(BODY(0x10, 0x37, 0x10, 0x30, 0x10, 0x00), "unknown allocation list entry type 3");

    /* select lists: odd length, a duplicate, a label where a value goes. */
    expect_body_error(BODY(0x3B, 0x03, 0x25, 0x17, 0x30, 0x31, 0x25, 0x41), "odd length 3 of a select_val list");
    expect_body_error(BODY(0x3B, 0x03, 0x25, 0x17, 0x40, 0x31, 0x25, 0x31, 0x25), "a value appears twice");
    expect_body_error(BODY(0x3B, 0x03, 0x25, 0x17, 0x20, 0x25, 0x25), "select_val value is a label");

    /* A string reference outside StrT (none here). */
    expect_body_error(BODY(0x84, 0x05, 0x03, 0x08, 0x10, 0x00),
                      "string at 0 (2 bytes) outside StrT (0 bytes) (in bs_match_string");

    /* Structure: no int_code_end, label twice, a missing label, counts. */
    mini = (struct mini){.code = (const uint8_t[]){MINI_PREFIX, 0x13}, .code_len = MINI_PREFIX_LEN + 1};
    expect_mini_error(&mini, "truncated Code chunk (no int_code_end)");
    expect_body_error(BODY(0x01, 0x20, 0x13), "label 2 defined twice");
    memcpy(code, (const uint8_t[]){MINI_PREFIX, 0x3D, 0x45, 0x03}, MINI_PREFIX_LEN + 3);
    mini = (struct mini){.code = code, .code_len = MINI_PREFIX_LEN + 3, .label_count = 5};
    expect_mini_error(&mini, "label 4 is never defined");
    mini = (struct mini){
        .code = (const uint8_t[]){MINI_PREFIX, 0x13, 0x03}, .code_len = MINI_PREFIX_LEN + 2, .function_count = 2};
    expect_mini_error(&mini, "Code chunk: header says 2 functions, the code has 1");
    mini.function_count = 1;
    mini.export_label = 1;
    expect_mini_error(&mini, "ExpT chunk: entry 0 (label 1) does not follow a func_info");
    mini.export_label = 7;
    expect_mini_error(&mini, "ExpT chunk: entry 0 enters at label 7, which is out of range");
    mini.export_label = 0;
    mini.max_opcode = 181;
    expect_mini_error(&mini, "Code chunk: uses opcodes up to 181, newer than OTP 25 (180)");
    mini.max_opcode = 3;
    expect_mini_error(&mini, "opcode 19 at offset ");
    mini.max_opcode = 0;
    mini.format = 1;
    expect_mini_error(&mini, "Code chunk: instruction set 1 (only 0 is known)");
    mini.format = 0;
    mini.label_count = 100000;
    expect_mini_error(&mini, "Code chunk: label count 100000 does not fit the code");
}

static void test_table_errors(void)
{
    static const uint8_t body[] = {MINI_PREFIX, 0x13, 0x03};
    struct mini mini = {.code = body, .code_len = sizeof body};
    mini.atoms[0] = "m", mini.atoms[1] = "f", mini.atoms[2] = "\xC3\x28";
    expect_mini_error(&mini, "AtU8 chunk: atom 3 is not valid UTF-8");
    mini.atoms[2] = NULL;
    mini.old_atom_chunk = true;
    expect_mini_error(&mini, "obsolete Atom chunk (latin-1 atoms, OTP 20 or earlier): recompile with OTP 25");
    mini.old_atom_chunk = false;
    mini.import_count = 1;
    mini.imports[0][0] = 1, mini.imports[0][1] = 77, mini.imports[0][2] = 0;
    expect_mini_error(&mini, "ImpT chunk: atom index 77 out of range (2 atoms)");
    mini.imports[0][1] = 2, mini.imports[0][2] = 256;
    expect_mini_error(&mini, "ImpT chunk: import 0 has arity 256");
    mini.imports[0][2] = 0;
    mini.strt = (const uint8_t *)"abc";
    mini.strt_len = 3;
    struct strbuf file = STRBUF_INIT;
    build_mini(&mini, &file);
    char error[ERROR_LEN];
    struct beam_module *m = beam_load_bytes((const uint8_t *)file.data, file.len, "t.beam", error, sizeof error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->import_count, 1);
    CU_ASSERT_EQUAL(m->string_size, 3);
    CU_ASSERT_EQUAL(memcmp(m->strings, "abc", 3), 0);
    beam_module_free(m);
    strbuf_free(&file);
}

/* ---- damaged copies of real modules ---- */

static uint8_t *load_test_bytes(const char *name, size_t *size)
{
    char path[256];
    snprintf(path, sizeof path, "data/beam/%s.beam", name);
    uint8_t *data = read_whole_file(test_data_path(path), size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    return data;
}

/* Loads a damaged file: it may load (a flipped byte inside a literal, say),
 * but a failure must be one line naming the file. */
static bool survives(const uint8_t *data, size_t size)
{
    char error[ERROR_LEN];
    struct beam_module *m = beam_load_bytes(data, size, "bad.beam", error, sizeof error);
    if (m) {
        beam_module_free(m);
        return true;
    }
    if (!is_error_line(error, "bad.beam")) {
        fprintf(stderr, "\nmalformed error message: \"%s\"\n", error);
        return false;
    }
    return true;
}

static void set_form_size(uint8_t *data, size_t size) { store_be32(data + 4, (uint32_t)size - 8); }

static void test_truncation(void)
{
    size_t size;
    uint8_t *data = load_test_bytes("loader_features", &size);
    uint8_t *copy = malloc(size);
    for (size_t n = 0; n < size; n++) {
        char error[ERROR_LEN];
        /* As cut: the header's form size no longer matches. */
        CU_ASSERT_PTR_NULL(beam_load_bytes(data, n, "bad.beam", error, sizeof error));
        CU_ASSERT_TRUE(is_error_line(error, "bad.beam"));
        /* With the form size patched, so the chunk readers see the cut. */
        if (n >= 12) {
            memcpy(copy, data, n);
            set_form_size(copy, n);
            CU_ASSERT_TRUE(survives(copy, n));
        }
    }
    expect_load_error(data, 0, "truncated file (0 bytes)");
    char expected[128];
    snprintf(expected, sizeof expected, "truncated file (the header says %zu bytes, the file has 100)", size);
    expect_load_error(data, 100, expected);
    /* Cut inside the Code chunk with a consistent form size. */
    memcpy(copy, data, 600);
    set_form_size(copy, 600);
    expect_load_error(copy, 600, "truncated Code chunk");
    free(copy);
    free(data);
}

/* Offsets of the chunks of a well-formed file. */
static size_t chunk_offsets(const uint8_t *data, size_t size, size_t *offsets, size_t max)
{
    size_t n = 0;
    for (size_t p = 12; p + 8 <= size && n < max;) {
        offsets[n++] = p;
        uint32_t len = load_be32(data + p + 4);
        p += 8 + ((len + 3) & ~3u);
    }
    return n;
}

static void test_missing_chunks(void)
{
    static const struct {
        const char *module, *chunk, *error; /* NULL error: still loads */
    } cases[] = {
        {"loader_features", "AtU8", "missing AtU8 chunk"},
        {"loader_features", "Code", "missing Code chunk"},
        {"loader_features", "ImpT", "missing ImpT chunk"},
        {"loader_features", "ExpT", "missing ExpT chunk"},
        {"loader_features", "FunT", "fun index 0 out of range (0 funs) (in make_fun3"},
        {"loader_features", "StrT", "outside StrT (0 bytes)"},
        {"loader_features", "Line", "line index 1 out of range (0 locations)"},
        {"loader_features", "LitT", "literal index 0 out of range (0 literals)"},
        {"loader_features", "LocT", NULL},
        {"loader_features", "Type", NULL},
        {"loader_features", "Meta", NULL},
        {"loader_features", "Attr", NULL},
        {"loader_features", "CInf", NULL},
        {"loader_literals", "LitT", "literal index 0 out of range (0 literals)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t size, offsets[32];
        uint8_t *data = load_test_bytes(cases[i].module, &size);
        size_t n = chunk_offsets(data, size, offsets, 32), k = 0;
        while (k < n && memcmp(data + offsets[k], cases[i].chunk, 4) != 0)
            k++;
        CU_ASSERT_TRUE_FATAL(k < n);
        size_t end = k + 1 < n ? offsets[k + 1] : size;
        memmove(data + offsets[k], data + end, size - end);
        size -= end - offsets[k];
        set_form_size(data, size);
        if (cases[i].error) {
            expect_load_error(data, size, cases[i].error);
        } else {
            char error[ERROR_LEN];
            struct beam_module *m = beam_load_bytes(data, size, "t.beam", error, sizeof error);
            CU_ASSERT_PTR_NOT_NULL(m);
            beam_module_free(m);
        }
        free(data);
    }
}

static void test_container_errors(void)
{
    size_t size;
    uint8_t *data = load_test_bytes("loader_basic", &size);
    uint8_t *copy = malloc(2 * size);
    size_t offsets[32];
    size_t n = chunk_offsets(data, size, offsets, 32);

    memcpy(copy, data, size);
    copy[3] = '2';
    expect_load_error(copy, size, "t.beam: not a BEAM file (bad magic)");
    memcpy(copy, data, size);
    copy[11] = 'X';
    expect_load_error(copy, size, "t.beam: not a BEAM file (IFF form type is not BEAM)");
    expect_load_error((const uint8_t *)"ELF", 3, "not a BEAM file (bad magic)");
    /* A chunk longer than the file. */
    memcpy(copy, data, size);
    copy[offsets[1] + 4] = 0x10;
    expect_load_error(copy, size, "truncated ");
    /* A form size larger than the file, smaller than a header. */
    memcpy(copy, data, size);
    copy[4] = 0x7F;
    expect_load_error(copy, size, "truncated file (the header says");
    set_form_size(copy, 10);
    expect_load_error(copy, size, "bad IFF form length 2");
    /* A chunk twice. */
    memcpy(copy, data, offsets[1]);
    memcpy(copy + offsets[1], data + offsets[0], offsets[1] - offsets[0]);
    memcpy(copy + 2 * offsets[1] - offsets[0], data + offsets[1], size - offsets[1]);
    size_t bigger = size + offsets[1] - offsets[0];
    set_form_size(copy, bigger);
    CU_ASSERT_TRUE(n > 2);
    char id[5] = {0};
    memcpy(id, data + offsets[0], 4);
    char expected[64];
    snprintf(expected, sizeof expected, "duplicate %s chunk", id);
    expect_load_error(copy, bigger, expected);
    /* Trailing bytes after the form are ignored, as OTP does. */
    memcpy(copy, data, size);
    memcpy(copy + size, "junk", 4);
    char error[ERROR_LEN];
    struct beam_module *m = beam_load_bytes(copy, size + 4, "t.beam", error, sizeof error);
    CU_ASSERT_PTR_NOT_NULL(m);
    beam_module_free(m);
    /* beam_load's own errors. */
    CU_ASSERT_PTR_NULL(beam_load("/nonexistent/x.beam", error, sizeof error));
    CU_ASSERT_STRING_EQUAL(error, "/nonexistent/x.beam: cannot open: No such file or directory");
    CU_ASSERT_PTR_NULL(beam_load("/", error, sizeof error));
    CU_ASSERT_STRING_EQUAL(error, "/: not a regular file");
    /* A tiny buffer truncates the message but keeps it a string. */
    char small[8];
    CU_ASSERT_PTR_NULL(beam_load_bytes(data, 5, "t.beam", small, sizeof small));
    CU_ASSERT_STRING_EQUAL(small, "t.beam:");
    CU_ASSERT_PTR_NULL(beam_load_bytes(data, 5, "t.beam", NULL, 0));
    free(copy);
    free(data);
}

static void test_flipped_bytes(void)
{
    static const char *const modules[] = {"loader_features", "loader_literals", "loader_basic"};
    static const uint8_t masks[] = {0xFF, 0x01, 0x80, 0x10};
    size_t failures = 0, loads = 0;
    for (size_t k = 0; k < sizeof modules / sizeof modules[0]; k++) {
        size_t size;
        uint8_t *data = load_test_bytes(modules[k], &size);
        for (size_t i = 0; i < size; i++)
            for (size_t j = 0; j < sizeof masks; j++) {
                data[i] ^= masks[j];
                failures += !survives(data, size);
                loads++;
                data[i] ^= masks[j];
            }
        free(data);
    }
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_TRUE(loads > 10000);
}

/* Inputs the fuzzer (make fuzz) found to crash, leak or hang the loader, or
 * to give a module that broke a promise of module.h, each kept after its fix:
 * every one must now fail with one line naming the file, or load and pass
 * check_code. */
static void test_fuzz_findings(void)
{
    glob_t g;
    char pattern[512];
    snprintf(pattern, sizeof pattern, "%s", test_data_path("data/beam/fuzz/*"));
    CU_ASSERT_EQUAL_FATAL(glob(pattern, 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char error[ERROR_LEN];
        struct beam_module *m = beam_load(g.gl_pathv[i], error, sizeof error);
        bool ok = m ? check_code(m, g.gl_pathv[i]) : is_error_line(error, g.gl_pathv[i]);
        if (!ok && !m)
            fprintf(stderr, "\n%s: malformed error message: \"%s\"\n", g.gl_pathv[i], error);
        CU_ASSERT_TRUE(ok);
        beam_module_free(m);
    }
    globfree(&g);
}

static CU_TestInfo tests[] = {
    {"a small module, dumped whole", test_basic_module},
    {"literals of every kind", test_literals},
    {"funs, exceptions, receive, maps, binaries, floats", test_features},
    {"OTP's lists.beam", test_otp_lists},
    {"the function at a code address, the files' items", test_function_at},
    {"every installed OTP module loads", test_otp_sweep},
    {"compact term forms", test_compact_terms},
    {"the literal chunk", test_literal_chunk},
    {"errors in the code", test_code_errors},
    {"errors in the tables", test_table_errors},
    {"truncated at every byte", test_truncation},
    {"chunks removed", test_missing_chunks},
    {"container errors", test_container_errors},
    {"flipped bytes", test_flipped_bytes},
    {"inputs found by the fuzzer", test_fuzz_findings},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(loader, tests)
