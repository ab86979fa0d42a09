/*
 * test_code_server.c — loading on first call from the search path, OTP's
 * library as the last folder, builtins before Erlang code, failures
 * remembered, and code addresses mapped back to modules.
 */
#include "beam/code_server.h"
#include "beam/interp.h"
#include "beam/loader.h"
#include "beam/opcodes.h"
#include "bif/bif.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/heap.h"
#include "test_main.h"

#include <stdio.h>
#include <string.h>

static struct code_server *server_for_test_modules(void)
{
    bif_registry_init();
    const char *paths[] = {test_data_path("data/beam")};
    struct code_server *cs = code_server_new(paths, 1, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    return cs;
}

static struct beam_export *export_of(struct code_server *cs, const char *m, const char *f, unsigned arity)
{
    struct beam_export *e = code_export(cs, atom_intern_cstr(m), atom_intern_cstr(f), arity);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    return e;
}

static void test_a_module_loads_on_its_first_call(void)
{
    struct code_server *cs = server_for_test_modules();
    term basic = atom_intern_cstr("loader_basic");
    CU_ASSERT_FALSE(code_is_loaded(cs, basic));
    struct beam_export *add = export_of(cs, "loader_basic", "add", 2);
    CU_ASSERT_PTR_NULL(add->bif);
    const uint64_t *entry = code_export_entry(add);
    CU_ASSERT_PTR_NOT_NULL_FATAL(entry);
    CU_ASSERT_TRUE(code_is_loaded(cs, basic));
    /* One record per function: asking again gives the same one. */
    CU_ASSERT_PTR_EQUAL(export_of(cs, "loader_basic", "add", 2), add);
    /* The entry follows its func_info: module, name, arity. */
    CU_ASSERT_EQUAL((term)entry[-3], basic);
    CU_ASSERT_EQUAL((term)entry[-2], atom_intern_cstr("add"));
    CU_ASSERT_EQUAL(entry[-1], 2);
    const struct beam_module *m = code_module_of(cs, entry);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->name, basic);
    CU_ASSERT_PTR_NULL(code_module_of(cs, (const uint64_t *)&cs));
    /* A function the module does not export stays unbound. */
    CU_ASSERT_PTR_NULL(code_export_entry(export_of(cs, "loader_basic", "add", 3)));
    code_server_free(cs);
}

static void test_missing_modules_and_erlang_are_undefined(void)
{
    struct code_server *cs = server_for_test_modules();
    struct beam_export *missing = export_of(cs, "no_such_module_anywhere", "f", 0);
    CU_ASSERT_PTR_NULL(code_export_entry(missing));
    CU_ASSERT_PTR_NULL(code_export_entry(missing)); /* remembered, not searched again */
    CU_ASSERT_FALSE(code_is_loaded(cs, atom_intern_cstr("no_such_module_anywhere")));
    /* Module erlang is never loaded from OTP: builtins or undef. */
    struct beam_export *not_bif = export_of(cs, "erlang", "no_such_builtin", 1);
    CU_ASSERT_PTR_NULL(not_bif->bif);
    CU_ASSERT_PTR_NULL(code_export_entry(not_bif));
    CU_ASSERT_FALSE(code_is_loaded(cs, A(erlang)));
    code_server_free(cs);
}

static void test_otp_library_loads_with_its_stubs_in_c(void)
{
    struct code_server *cs = server_for_test_modules();
    /* lists:reverse/2 is a stub in lists.beam: the C builtin binds first. */
    struct beam_export *reverse = export_of(cs, "lists", "reverse", 2);
    CU_ASSERT_PTR_NOT_NULL(reverse->bif);
    /* lists:seq/2 is Erlang code, loaded from OTP's stdlib. */
    struct beam_export *seq = export_of(cs, "lists", "seq", 2);
    CU_ASSERT_PTR_NULL(seq->bif);
    CU_ASSERT_PTR_NOT_NULL(code_export_entry(seq));
    CU_ASSERT_TRUE(code_is_loaded(cs, atom_intern_cstr("lists")));
    code_server_free(cs);
}

static void test_the_program_folder_comes_first(void)
{
    /* An OTP module name found in an earlier folder is taken from there:
     * here a folder holding no lists.beam falls through to OTP, and one
     * that names a test module finds it. */
    bif_registry_init();
    const char *paths[] = {"/nonexistent-folder", test_data_path("data/beam")};
    struct code_server *cs = code_server_new(paths, 2, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_PTR_NOT_NULL(code_export_entry(export_of(cs, "loader_basic", "first", 1)));
    code_server_free(cs);
}

static void test_a_broken_file_is_reported_not_loaded(void)
{
    bif_registry_init();
    struct code_server *cs = server_for_test_modules();
    char error[256] = "";
    CU_ASSERT_PTR_NULL(code_load_file(cs, test_data_path("data/beam/loader_literals.txt"), error, sizeof error));
    CU_ASSERT_PTR_NOT_NULL(strstr(error, "loader_literals.txt"));
    struct beam_module *m = code_load_file(cs, test_data_path("data/beam/loader_features.beam"), error, sizeof error);
    if (!m)
        fprintf(stderr, "\n%s\n", error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    /* Loading the same module again gives the loaded one. */
    CU_ASSERT_PTR_EQUAL(code_load_file(cs, test_data_path("data/beam/loader_features.beam"), error, sizeof error), m);
    code_server_free(cs);
}

/* Whether preparing instr (opcode op) picks a specialised handler. */
static bool special(unsigned op, const uint64_t *instr)
{
    const void *handler = beam_prepared_handler(instr, op, NULL);
    return beam_handler_is_special(handler) && handler != beam_handler_table()[op];
}

static void test_operand_shapes_pick_their_handlers(void)
{
    struct code_server *cs = server_for_test_modules();
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    uint64_t boxed = (uint64_t)heap_float(&h, 1.5), big_const = (uint64_t)make_small(MAX_SMALL);
    uint64_t two = (uint64_t)make_small(2), ok = (uint64_t)atom_intern_cstr("ok");
    uint64_t x0 = beam_x(0), x1 = beam_x(1), y0 = beam_y(0), fr0 = beam_fr(0);
    uint64_t plus = (uint64_t)(uintptr_t)export_of(cs, "erlang", "+", 2);
    uint64_t divide = (uint64_t)(uintptr_t)export_of(cs, "erlang", "/", 2);

    /* move: every register and constant shape. */
    CU_ASSERT(special(BEAM_OP_move, (uint64_t[]){0, x0, y0}));
    CU_ASSERT(special(BEAM_OP_move, (uint64_t[]){0, ok, x1}));
    CU_ASSERT(special(BEAM_OP_move, (uint64_t[]){0, boxed, y0}));
    /* '+' with a small constant second, or two registers; not '/'. */
    CU_ASSERT(special(BEAM_OP_gc_bif2, (uint64_t[]){0, 0, 2, plus, x0, two, x0}));
    CU_ASSERT(special(BEAM_OP_gc_bif2, (uint64_t[]){0, 0, 2, plus, y0, x0, x0}));
    CU_ASSERT(special(BEAM_OP_gc_bif2, (uint64_t[]){0, 0, 2, plus, x0, big_const, x0}));
    CU_ASSERT(special(BEAM_OP_gc_bif2, (uint64_t[]){0, 0, 2, plus, x0, boxed, x0})); /* the generic '+' */
    CU_ASSERT_FALSE(special(BEAM_OP_gc_bif2, (uint64_t[]){0, 0, 2, divide, x0, two, x0}));
    /* *, div, rem and the bitwise operators: each operand shape with a
     * small constant has a handler of its own, not the operator's generic
     * one, which a bignum constant or a constant divisor of 0 takes. */
    static const char *const operators[] = {"*", "div", "rem", "band", "bor", "bxor"};
    uint64_t zero = (uint64_t)make_small(0), bignum_const = (uint64_t)int_from_uint64(&h, UINT64_MAX);
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++) {
        uint64_t op = (uint64_t)(uintptr_t)export_of(cs, "erlang", operators[i], 2);
        const void *generic = beam_prepared_handler((uint64_t[]){0, 0, 2, op, x0, boxed, x0}, BEAM_OP_gc_bif2, NULL);
        CU_ASSERT(beam_handler_is_special(generic));
        const uint64_t shaped[][7] = {{0, 0, 2, op, x0, two, x0}, {0, 0, 2, op, y0, two, x0},
                                      {0, 0, 2, op, x0, x1, x0},  {0, 0, 2, op, x0, y0, x0},
                                      {0, 0, 2, op, y0, x0, x0},  {0, 0, 2, op, two, x0, x0}};
        const void *seen[6];
        for (int j = 0; j < 6; j++) {
            seen[j] = beam_prepared_handler(shaped[j], BEAM_OP_gc_bif2, NULL);
            CU_ASSERT(beam_handler_is_special(seen[j]) && seen[j] != generic);
            for (int k = 0; k < j; k++)
                CU_ASSERT_PTR_NOT_EQUAL(seen[j], seen[k]);
        }
        CU_ASSERT_PTR_EQUAL(
            beam_prepared_handler((uint64_t[]){0, 0, 2, op, x0, bignum_const, x0}, BEAM_OP_gc_bif2, NULL), generic);
        CU_ASSERT_PTR_EQUAL(beam_prepared_handler((uint64_t[]){0, 0, 2, op, x0, x1, y0}, BEAM_OP_gc_bif2, NULL),
                            generic); /* into a y register */
        bool divides = strcmp(operators[i], "div") == 0 || strcmp(operators[i], "rem") == 0;
        const void *by_zero = beam_prepared_handler((uint64_t[]){0, 0, 2, op, x0, zero, x0}, BEAM_OP_gc_bif2, NULL);
        CU_ASSERT(divides ? by_zero == generic : by_zero == seen[0]);
    }
    /* Tests: x against a small constant; an immediate for exact equality. */
    CU_ASSERT(special(BEAM_OP_is_lt, (uint64_t[]){0, 0, x0, two}));
    CU_ASSERT(special(BEAM_OP_is_ge, (uint64_t[]){0, 0, two, x1}));
    CU_ASSERT_FALSE(special(BEAM_OP_is_lt, (uint64_t[]){0, 0, x0, boxed}));
    CU_ASSERT_FALSE(special(BEAM_OP_is_lt, (uint64_t[]){0, 0, y0, two}));
    CU_ASSERT(special(BEAM_OP_is_eq_exact, (uint64_t[]){0, 0, x0, ok}));
    CU_ASSERT(special(BEAM_OP_is_eq_exact, (uint64_t[]){0, 0, y0, two}));
    CU_ASSERT_FALSE(special(BEAM_OP_is_eq_exact, (uint64_t[]){0, 0, x0, boxed}));
    CU_ASSERT_FALSE(special(BEAM_OP_is_eq_exact, (uint64_t[]){0, 0, x0, x1}));
    /* get_tuple_element from a register only. */
    CU_ASSERT(special(BEAM_OP_get_tuple_element, (uint64_t[]){0, y0, 1, x0}));
    CU_ASSERT_FALSE(special(BEAM_OP_get_tuple_element, (uint64_t[]){0, boxed, 1, x0}));
    /* fmove in, out and between float registers. */
    CU_ASSERT(special(BEAM_OP_fmove, (uint64_t[]){0, boxed, fr0}));
    CU_ASSERT(special(BEAM_OP_fmove, (uint64_t[]){0, fr0, y0}));
    /* select_val: every value immediate, or the generic search. */
    CU_ASSERT(special(BEAM_OP_select_val, (uint64_t[]){0, x0, 0, 4, two, 0, ok, 0}));
    CU_ASSERT_FALSE(special(BEAM_OP_select_val, (uint64_t[]){0, x0, 0, 4, two, 0, boxed, 0}));
    /* Fused with what follows, only where the code goes on that far. */
    uint64_t code[] = {BEAM_OP_move, y0, x0, BEAM_OP_deallocate, 1, BEAM_OP_return};
    const void *move_return = beam_prepared_handler(code, BEAM_OP_move, code + 6);
    const void *dealloc_return = beam_prepared_handler(code + 3, BEAM_OP_deallocate, code + 6);
    CU_ASSERT(beam_handler_is_special(move_return) && beam_handler_is_special(dealloc_return));
    CU_ASSERT_PTR_NOT_EQUAL(move_return, dealloc_return);
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(code + 3, BEAM_OP_deallocate, code + 5),
                        beam_handler_table()[BEAM_OP_deallocate]);
    CU_ASSERT_PTR_NOT_EQUAL(beam_prepared_handler(code, BEAM_OP_move, code + 5), move_return);
    code[2] = x1; /* a move into x1 is no return value */
    CU_ASSERT_PTR_NOT_EQUAL(beam_prepared_handler(code, BEAM_OP_move, code + 6), move_return);
    /* Two moves between registers fuse (the second keeps its own handler);
     * one from a constant does not. */
    uint64_t moves[] = {BEAM_OP_move, x0, y0, BEAM_OP_move, x1, x0, BEAM_OP_move, ok, x1};
    const void *move_shift = beam_prepared_handler(moves, BEAM_OP_move, moves + 9);
    const void *second = beam_prepared_handler(moves + 3, BEAM_OP_move, moves + 9);
    CU_ASSERT(beam_handler_is_special(move_shift) && beam_handler_is_special(second));
    CU_ASSERT_PTR_NOT_EQUAL(move_shift, beam_prepared_handler(moves, BEAM_OP_move, moves + 3));
    CU_ASSERT_PTR_EQUAL(second, beam_prepared_handler(moves + 3, BEAM_OP_move, moves + 6));
    /* ... and a call after move_shift; is_lt against a small constant
     * with the return after it. */
    uint64_t shift_call[] = {BEAM_OP_move, x0, y0, BEAM_OP_move, x1, x0, BEAM_OP_call, 1, 0};
    CU_ASSERT_PTR_NOT_EQUAL(beam_prepared_handler(shift_call, BEAM_OP_move, shift_call + 9), move_shift);
    CU_ASSERT(beam_handler_is_special(beam_prepared_handler(shift_call, BEAM_OP_move, shift_call + 9)));
    uint64_t lt_return[] = {BEAM_OP_is_lt, 0, x0, two, BEAM_OP_return};
    const void *base_case = beam_prepared_handler(lt_return, BEAM_OP_is_lt, lt_return + 5);
    CU_ASSERT(beam_handler_is_special(base_case));
    CU_ASSERT_PTR_NOT_EQUAL(base_case, beam_prepared_handler(lt_return, BEAM_OP_is_lt, lt_return + 4));
    /* ... and when its failure goes on to a recursive case's fused first
     * step (N - 1 into a one-slot frame, N saved, the call), a handler
     * that runs into that step: neither the base case's alone nor the
     * step's. With its fail label elsewhere, the base case's. */
    uint64_t minus = (uint64_t)(uintptr_t)export_of(cs, "erlang", "-", 2);
    uint64_t recursion[] = {
        BEAM_OP_is_lt,    0,  x0, two,                /* N < 2, failing to the step (set below) */
        BEAM_OP_return,                               /* N */
        BEAM_OP_gc_bif2,  0,  1,  minus, x0, two, x1, /* N - 1 */
        BEAM_OP_allocate, 1,  1,                      /* a one-slot frame */
        BEAM_OP_move,     x0, y0,                     /* N saved */
        BEAM_OP_move,     x1, x0,                     /* N - 1 the argument */
        BEAM_OP_call,     1,  0,                      /* fib(N - 1) (set below) */
    };
    uint64_t *recursion_end = recursion + sizeof recursion / sizeof recursion[0];
    recursion[1] = (uint64_t)(uintptr_t)(recursion + 5);
    recursion[23] = (uint64_t)(uintptr_t)recursion;
    const void *into_step = beam_prepared_handler(recursion, BEAM_OP_is_lt, recursion_end);
    const void *step = beam_prepared_handler(recursion + 5, BEAM_OP_gc_bif2, recursion_end);
    CU_ASSERT(beam_handler_is_special(into_step) && beam_handler_is_special(step));
    CU_ASSERT(into_step != step && into_step != base_case);
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(recursion, BEAM_OP_is_lt, recursion + 5), base_case);
    recursion[1] = (uint64_t)(uintptr_t)(recursion + 12);
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(recursion, BEAM_OP_is_lt, recursion_end), base_case);
    /* A sum fuses with a one-slot frame whose slot the shift's first move
     * writes and the call, with the shift and call alone, or with the
     * return; each the whole sequence, and a different handler each. */
    uint64_t body[] = {BEAM_OP_gc_bif2, 0,  2,  plus,         x0, two, x1, BEAM_OP_allocate, 1, 2, BEAM_OP_move, x0, y0,
                       BEAM_OP_move,    x1, x0, BEAM_OP_call, 1,  0};
    const void *sum = beam_prepared_handler(body, BEAM_OP_gc_bif2, body + 7);
    const void *sum_frame_call = beam_prepared_handler(body, BEAM_OP_gc_bif2, body + 19);
    CU_ASSERT(beam_handler_is_special(sum_frame_call));
    CU_ASSERT_PTR_NOT_EQUAL(sum_frame_call, sum);
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(body, BEAM_OP_gc_bif2, body + 16), sum); /* no call */
    body[8] = 2; /* two slots: the other one is not written */
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(body, BEAM_OP_gc_bif2, body + 19), sum);
    body[8] = 1;
    body[12] = beam_y(1);
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(body, BEAM_OP_gc_bif2, body + 19), sum);
    uint64_t call_after[] = {BEAM_OP_gc_bif2, 0,  2,  plus,         y0, two, x1, BEAM_OP_move, x0, y0,
                             BEAM_OP_move,    x1, x0, BEAM_OP_call, 1,  0};
    const void *sum_call = beam_prepared_handler(call_after, BEAM_OP_gc_bif2, call_after + 16);
    CU_ASSERT(beam_handler_is_special(sum_call));
    CU_ASSERT_PTR_NOT_EQUAL(sum_call, beam_prepared_handler(call_after, BEAM_OP_gc_bif2, call_after + 13));
    CU_ASSERT_PTR_NOT_EQUAL(sum_call, sum_frame_call);
    call_after[11] = beam_x(2); /* the shift moves another register than the sum's */
    CU_ASSERT_PTR_NOT_EQUAL(beam_prepared_handler(call_after, BEAM_OP_gc_bif2, call_after + 16), sum_call);
    call_after[11] = x1;
    call_after[14] = 2; /* the call takes x1 too: the sum's register stays live */
    CU_ASSERT_PTR_NOT_EQUAL(beam_prepared_handler(call_after, BEAM_OP_gc_bif2, call_after + 16), sum_call);
    body[12] = y0;
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(body, BEAM_OP_gc_bif2, body + 19), sum_frame_call);
    body[14] = beam_x(2);
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(body, BEAM_OP_gc_bif2, body + 19), sum);
    uint64_t returned[] = {BEAM_OP_gc_bif2, 0, 2, plus, y0, x0, x0, BEAM_OP_deallocate, 1, BEAM_OP_return};
    const void *sum_return = beam_prepared_handler(returned, BEAM_OP_gc_bif2, returned + 10);
    CU_ASSERT(beam_handler_is_special(sum_return));
    CU_ASSERT_PTR_NOT_EQUAL(sum_return, beam_prepared_handler(returned, BEAM_OP_gc_bif2, returned + 9));
    CU_ASSERT_PTR_NOT_EQUAL(sum_return, sum_call);
    returned[3] = divide; /* '/' is no sum of smalls */
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(returned, BEAM_OP_gc_bif2, returned + 10),
                        beam_handler_table()[BEAM_OP_gc_bif2]);
    /* bs_get_integer2 of a constant size below a small's width, from x. */
    uint64_t u = (uint64_t)make_small(1), fifty = (uint64_t)make_small(59), sixty = (uint64_t)make_small(60);
    CU_ASSERT(special(BEAM_OP_bs_get_integer2, (uint64_t[]){0, 0, x0, 2, fifty, 1, 0, x1}));
    CU_ASSERT_FALSE(special(BEAM_OP_bs_get_integer2, (uint64_t[]){0, 0, x0, 2, sixty, 1, 0, x1}));
    CU_ASSERT_FALSE(special(BEAM_OP_bs_get_integer2, (uint64_t[]){0, 0, y0, 2, u, 8, 0, x1}));
    CU_ASSERT_FALSE(special(BEAM_OP_bs_get_integer2, (uint64_t[]){0, 0, x0, 2, x1, 8, 0, x1}));
    /* Two unboxings fuse, and a tuple field taken into x then unboxed. */
    uint64_t unbox[] = {BEAM_OP_get_tuple_element, y0, 1, x1, BEAM_OP_fmove, x1, fr0, BEAM_OP_fmove, x0, fr0};
    const void *field = beam_prepared_handler(unbox, BEAM_OP_get_tuple_element, unbox + 10);
    const void *unbox2 = beam_prepared_handler(unbox + 4, BEAM_OP_fmove, unbox + 10);
    CU_ASSERT(beam_handler_is_special(field) && beam_handler_is_special(unbox2));
    CU_ASSERT_PTR_NOT_EQUAL(field, beam_prepared_handler(unbox, BEAM_OP_get_tuple_element, unbox + 4));
    CU_ASSERT_PTR_NOT_EQUAL(unbox2, beam_prepared_handler(unbox + 4, BEAM_OP_fmove, unbox + 7));
    unbox[5] = x0; /* the fmove reads another register than the field's */
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(unbox, BEAM_OP_get_tuple_element, unbox + 10),
                        beam_prepared_handler(unbox, BEAM_OP_get_tuple_element, unbox + 4));
    /* A float operation fuses with the next when that one takes its
     * result, as either operand; not when it takes neither. */
    uint64_t fr1 = beam_fr(1), fr2 = beam_fr(2);
    uint64_t floats[] = {BEAM_OP_fmul, 0, fr0, fr1, fr2, BEAM_OP_fsub, 0, fr0, fr2, fr0};
    const void *alone = beam_prepared_handler(floats, BEAM_OP_fmul, floats + 5);
    const void *as_second = beam_prepared_handler(floats, BEAM_OP_fmul, floats + 10);
    CU_ASSERT(beam_handler_is_special(as_second));
    CU_ASSERT_PTR_NOT_EQUAL(as_second, alone);
    floats[7] = fr2;
    floats[8] = fr1;
    const void *as_first = beam_prepared_handler(floats, BEAM_OP_fmul, floats + 10);
    CU_ASSERT(beam_handler_is_special(as_first));
    CU_ASSERT_PTR_NOT_EQUAL(as_first, alone);
    CU_ASSERT_PTR_NOT_EQUAL(as_first, as_second);
    floats[7] = fr0;
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(floats, BEAM_OP_fmul, floats + 10), alone);
    /* put_list into x from a register and a register or a constant tail. */
    uint64_t nil = (uint64_t)NIL;
    CU_ASSERT(special(BEAM_OP_put_list, (uint64_t[]){0, y0, x1, x0}));
    CU_ASSERT(special(BEAM_OP_put_list, (uint64_t[]){0, x0, nil, x0}));
    CU_ASSERT(special(BEAM_OP_put_list, (uint64_t[]){0, x1, boxed, x0}));
    CU_ASSERT_PTR_NOT_EQUAL(beam_prepared_handler((uint64_t[]){0, x0, y0, x0}, BEAM_OP_put_list, NULL),
                            beam_prepared_handler((uint64_t[]){0, x0, nil, x0}, BEAM_OP_put_list, NULL));
    CU_ASSERT_FALSE(special(BEAM_OP_put_list, (uint64_t[]){0, ok, x1, x0}));
    CU_ASSERT_FALSE(special(BEAM_OP_put_list, (uint64_t[]){0, x0, x1, y0}));
    /* A clause head's [H | T] test and split fuse when the split takes the
     * tested register; a test_heap and the put_list after it. */
    uint64_t x2 = beam_x(2);
    uint64_t split[] = {BEAM_OP_is_nonempty_list, 0, x0, BEAM_OP_get_list, x0, x1, x2};
    const void *test_only = beam_prepared_handler(split, BEAM_OP_is_nonempty_list, split + 3);
    CU_ASSERT_PTR_NOT_EQUAL(beam_prepared_handler(split, BEAM_OP_is_nonempty_list, split + 7), test_only);
    split[4] = x1;
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(split, BEAM_OP_is_nonempty_list, split + 7), test_only);
    uint64_t build[] = {BEAM_OP_test_heap, 2, 2, BEAM_OP_put_list, x0, x1, x0};
    const void *heap_only = beam_prepared_handler(build, BEAM_OP_test_heap, build + 3);
    CU_ASSERT(beam_handler_is_special(beam_prepared_handler(build, BEAM_OP_test_heap, build + 7)));
    CU_ASSERT_PTR_NOT_EQUAL(beam_prepared_handler(build, BEAM_OP_test_heap, build + 7), heap_only);
    build[4] = ok; /* a constant head: the generic put_list, not fused */
    CU_ASSERT_PTR_EQUAL(beam_prepared_handler(build, BEAM_OP_test_heap, build + 7), heap_only);
    /* put_tuple2 of registers only. */
    CU_ASSERT(special(BEAM_OP_put_tuple2, (uint64_t[]){0, x0, 3, x1, y0, x0}));
    CU_ASSERT_FALSE(special(BEAM_OP_put_tuple2, (uint64_t[]){0, x0, 3, x1, ok, x0}));
    /* allocate without a heap need. */
    CU_ASSERT(special(BEAM_OP_allocate, (uint64_t[]){0, 2, 1}));
    CU_ASSERT_FALSE(special(BEAM_OP_allocate_heap, (uint64_t[]){0, 2, 3, 1}));
    heap_destroy(&h);
    code_server_free(cs);
}

static CU_TestInfo tests[] = {
    {"a module loads on its first call", test_a_module_loads_on_its_first_call},
    {"missing modules and erlang are undefined", test_missing_modules_and_erlang_are_undefined},
    {"OTP's library loads with its stubs in C", test_otp_library_loads_with_its_stubs_in_c},
    {"the program folder comes first", test_the_program_folder_comes_first},
    {"a broken file is reported, not loaded", test_a_broken_file_is_reported_not_loaded},
    {"operand shapes pick their handlers", test_operand_shapes_pick_their_handlers},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(code_server, tests)
