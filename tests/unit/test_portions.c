/*
 * Builtins that run in portions (bif.h: bif_portion, bif_trap). Each is
 * called as a process's first call on a list long enough for many slices,
 * resumed slice by slice on this thread as an embedding host does, with a
 * collection of its heap between every two slices; it must span many
 * slices and return what the same builtin returns in one uninterrupted call
 * (a C call, which never traps). A process ended in the middle of a
 * portion must leave nothing behind (the sanitizer build checks).
 */
#include "beam/code_server.h"
#include "beam/interp.h"
#include "bif/bif.h"
#include "rt/executor.h"
#include "rt/proc_gc.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/etf.h"
#include "term/heap.h"
#include "term/map.h"
#include "term/phash2.h"
#include "term/strbuf.h"
#include "test_main.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sanitizer builds run every size and slice budget a fifth as large:
 * the same number of slices, each collection copying a fifth (a collection
 * runs between every two slices, and under ASan those copies took 100 s). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SCALE 5
#else
#define SCALE 1
#endif
#define LONG (1000000 / SCALE)
#define FULL_SLICE (CONTEXT_REDS / SCALE)

static term long_list(heap_t *h, bool tuples)
{
    term l = NIL;
    for (int64_t i = LONG; i > 0 && is_value(l); i--) {
        term e = tuples ? heap_tuple2(h, make_small(i), A(ok)) : make_small(i);
        l = is_value(e) ? heap_cons(h, e, l) : e;
    }
    CU_ASSERT_FATAL(is_value(l));
    return l;
}

/* The budget of each slice run_sliced runs (a smaller one makes a builtin
 * whose constant pays for much work a slice span many slices still). */
static int32_t slice_reds = FULL_SLICE;

/* What run_sliced calls, when set: once its executor exists (before the
 * call), after each slice's collection, and before the executor goes. */
static void (*at_start)(struct sched *s);
static void (*between_slices)(struct sched *s, int slices);
static void (*at_end)(struct sched *s);

/* Runs module:function(args) as a host call, a collection between every
 * two slices; stops after max_slices (then the process is still in the
 * middle of its builtin). Returns the slices run; *result is what it
 * returned, THE_NON_VALUE when it raised or did not end. */
static int run_sliced(const char *module, const char *function, const term *args, unsigned argc, int max_slices,
                      heap_t *result_heap, term *result, term *raised)
{
    struct code_server *cs = code_server_new(NULL, 0, NULL);
    CU_ASSERT_FATAL(cs != NULL);
    struct sched_config config = {.workers = 1}; /* its workers never start: every default */
    struct sched *s = test_sched_create(&config);
    sched_set_engine(s, cs);
    if (at_start)
        at_start(s);
    struct process *p = beam_new_call(s, NULL, atom_intern_cstr(module), atom_intern_cstr(function), args, argc);
    CU_ASSERT_FATAL(p != NULL);
    struct host_outcome host = {THE_NON_VALUE, THE_NON_VALUE, THE_NON_VALUE};
    CU_ASSERT_FATAL(is_value(sched_start_host_process(s, p, &host)));
    *result = THE_NON_VALUE;
    *raised = THE_NON_VALUE;
    int slices = 0;
    while (slices < max_slices) {
        p->reds_left = slice_reds;
        enum body_stop stop = p->body->resume(p);
        slices++;
        if (stop == BODY_EXIT) {
            if (is_value(host.value) && is_non_value(host.class))
                *result = copy_to_heap(result_heap, host.value);
            else if (is_value(host.value))
                *raised = copy_to_heap(result_heap, host.value);
            break;
        }
        CU_ASSERT_FATAL(stop == BODY_YIELD);
        /* Between portions: everything the builtin keeps must be a root. */
        CU_ASSERT_FATAL(proc_collect(p, 0, NULL, 0) == HEAP_OK);
        if (between_slices)
            between_slices(s, slices);
    }
    if (at_end)
        at_end(s);
    sched_destroy(s);
    code_server_free(cs);
    return slices;
}

/* The builtin's answer in one C call (p->bif_may_trap is false there). */
static term unportioned(heap_t *h, const char *module, const char *function, const term *args, unsigned argc)
{
    struct process *p = calloc(1, sizeof *p);
    CU_ASSERT_FATAL(p != NULL);
    CU_ASSERT_FATAL(heap_init(&p->heap, 0, 0));
    const struct bif_entry *e = bif_lookup(atom_intern_cstr(module), atom_intern_cstr(function), argc);
    CU_ASSERT_FATAL(e != NULL);
    term result = e->fn(p, args);
    CU_ASSERT_FATAL(p->fault_class != FAULT_TRAP);
    term copy = is_value(result) ? copy_to_heap(h, result) : THE_NON_VALUE;
    heap_destroy(&p->heap);
    free(p);
    return copy;
}

/* The portioned call's result on h, checked against one piece's. */
static term check_case_on(heap_t *h, const char *module, const char *function, const term *args, unsigned argc,
                          int min_slices)
{
    term expected = unportioned(h, module, function, args, argc), got, raised;
    int slices = run_sliced(module, function, args, argc, 100000, h, &got, &raised);
    if (slices < min_slices || is_non_value(got) || !term_eq_exact(got, expected))
        fprintf(stderr, "\n%s:%s/%u: %d slices (at least %d), %s\n", module, function, argc, slices, min_slices,
                is_non_value(got)              ? "no result"
                : term_eq_exact(got, expected) ? "same result"
                                               : "another result");
    CU_ASSERT(slices >= min_slices);
    CU_ASSERT(is_value(got) && is_value(expected) && term_eq_exact(got, expected));
    return got;
}

/* module:function(args) raises badarg, after at least min_slices slices. */
static void check_badarg(heap_t *h, const char *module, const char *function, const term *args, unsigned argc,
                         int min_slices)
{
    term got, raised;
    int slices = run_sliced(module, function, args, argc, 100000, h, &got, &raised);
    if (slices < min_slices || is_value(got) || raised != A(badarg))
        fprintf(stderr, "\n%s:%s/%u: %d slices (at least %d), %s\n", module, function, argc, slices, min_slices,
                is_value(got) ? "a result" : "an error");
    CU_ASSERT(slices >= min_slices);
    CU_ASSERT(is_non_value(got));
    CU_ASSERT(raised == A(badarg));
}

static void check_case(const char *module, const char *function, const term *args, unsigned argc, int min_slices)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    check_case_on(&h, module, function, args, argc, min_slices);
    heap_destroy(&h);
}

static void test_portioned_results(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term l = long_list(&h, false), tuples = long_list(&h, true);
    term args[3];
    /* OTP's constants: 40 cells a reduction for reverse and ++, 16 for
     * length and member, 10 (OTP's rate where it traps) for keyfind. */
    args[0] = l, args[1] = NIL;
    check_case("lists", "reverse", args, 2, LONG / (40 * FULL_SLICE));
    args[0] = l;
    check_case("erlang", "length", args, 1, LONG / (16 * FULL_SLICE));
    args[0] = make_small(LONG), args[1] = l;
    check_case("lists", "member", args, 2, LONG / (16 * FULL_SLICE));
    args[0] = make_small(LONG), args[1] = make_small(1), args[2] = tuples;
    check_case("lists", "keyfind", args, 3, LONG / (10 * FULL_SLICE));
    check_case("lists", "keymember", args, 3, LONG / (10 * FULL_SLICE));
    check_case("lists", "keysearch", args, 3, LONG / (10 * FULL_SLICE));
    /* An atom key, compared as a word: absent, then in the first tuple. */
    args[0] = A(undefined), args[1] = make_small(2);
    check_case("lists", "keyfind", args, 3, LONG / (10 * FULL_SLICE));
    args[0] = A(ok);
    check_case("lists", "keymember", args, 3, 0);
    args[0] = l, args[1] = heap_cons(&h, A(undefined), NIL);
    check_case("erlang", "++", args, 2, LONG / (40 * FULL_SLICE));
    check_case("erlang", "append", args, 2, LONG / (40 * FULL_SLICE));
    term few = heap_cons(&h, make_small(LONG), heap_cons(&h, make_small(7), NIL));
    args[0] = l, args[1] = few;
    check_case("erlang", "--", args, 2, LONG / (8 * FULL_SLICE));
    args[0] = few, args[1] = l;
    check_case("erlang", "subtract", args, 2, LONG / (16 * FULL_SLICE));
    heap_destroy(&h);
}

/* An error after some portions: badarg, as in one call. */
static void test_portioned_errors(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    /* [1..LONG | tail]: improper at its very end. */
    term l = long_list(&h, false), args[2];
    term *last = NULL;
    for (term c = l; is_list(c); c = list_tail(c))
        last = list_ptr(c);
    last[1] = A(undefined);
    const char *cases[][2] = {{"lists", "reverse"}, {"erlang", "length"}, {"erlang", "++"}, {"erlang", "--"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned argc = cases[i][1][0] == 'l' && cases[i][1][1] == 'e' ? 1 : 2;
        args[0] = l, args[1] = NIL;
        check_badarg(&h, cases[i][0], cases[i][1], args, argc, 3);
    }
    heap_destroy(&h);
}

/* A process ended in the middle of a portioned builtin (its executor goes
 * away with it, as an exit signal's end frees its context): nothing of the
 * builtin's state is left (LeakSanitizer). */
static void test_ended_mid_portion(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term l = long_list(&h, false), args[2] = {l, l}, got, raised;
    CU_ASSERT(run_sliced("erlang", "--", args, 2, 3, &h, &got, &raised) == 3);
    CU_ASSERT(is_non_value(got));
    CU_ASSERT(run_sliced("erlang", "++", args, 2, 3, &h, &got, &raised) == 3);
    CU_ASSERT(is_non_value(got));
    heap_destroy(&h);
}

/* Conversions run on shorter arguments, in slices of SHORT_SLICE
 * reductions, so that they span many slices with less to collect. */
#define CONV (LONG / 4)
#define SHORT_SLICE (400 / SCALE)
/* binary_to_list's 256 bytes a reduction would copy CONV in few slices of
 * SHORT_SLICE. */
#define TINY_SLICE (100 / SCALE)

/* [0..255, 0..255, ...]: CONV bytes. */
static term byte_list(heap_t *h)
{
    term l = NIL;
    for (int64_t i = CONV; i > 0 && is_value(l); i--)
        l = heap_cons(h, make_small(i & 255), l);
    CU_ASSERT_FATAL(is_value(l));
    return l;
}

/* A binary of n bytes 0, 1, 2, ... (mod 251). */
static term long_binary(heap_t *h, size_t n)
{
    uint8_t *bytes = malloc(n);
    CU_ASSERT_FATAL(bytes != NULL);
    for (size_t i = 0; i < n; i++)
        bytes[i] = (uint8_t)(i % 251);
    term b = bin_from_bytes(h, bytes, n);
    free(bytes);
    CU_ASSERT_FATAL(is_value(b));
    return b;
}

/* An iolist of every kind of element: CONV / 4 items [Byte, <<3 bytes>>,
 * [], [[Byte]]] ending in a large binary, inside a list nested `depth`
 * deep on the left ([[[...], 1], 2] ...). */
static term deep_iolist(heap_t *h, term big, int depth)
{
    term l = big;
    for (int64_t i = CONV / 4; i > 0 && is_value(l); i--) {
        uint8_t three[3] = {(uint8_t)i, (uint8_t)(i >> 8), 7};
        term b = bin_from_bytes(h, three, 3);
        term inner = heap_cons(h, heap_cons(h, make_small(i & 255), NIL), NIL);
        term item = heap_cons(h, make_small(i & 127), heap_cons(h, b, heap_cons(h, NIL, heap_cons(h, inner, NIL))));
        l = heap_cons(h, item, l);
    }
    for (int i = 0; i < depth && is_value(l); i++)
        l = heap_cons(h, l, heap_cons(h, make_small(i & 255), NIL));
    CU_ASSERT_FATAL(is_value(l));
    return l;
}

/* A tuple of CONV integers. */
static term long_tuple(heap_t *h)
{
    term t = heap_tuple(h, CONV, NULL);
    CU_ASSERT_FATAL(is_value(t));
    for (size_t i = 0; i < CONV; i++)
        tuple_elements(t)[i] = make_small((int64_t)i);
    return t;
}

static void test_portioned_conversions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term bytes = byte_list(&h), big = long_binary(&h, CONV), l = NIL;
    for (int64_t i = CONV; i > 0; i--)
        l = heap_cons(&h, make_small(i), l);
    term deep = deep_iolist(&h, big, 50000 / SCALE), args[3];
    /* OTP's constants: 256 bytes a reduction for binary_to_list; 8 cells a
     * reduction for list_to_binary's two walks; 64 for iolist_size;
     * clause's own for the tuples (16 to count, 40 to copy). */
    slice_reds = TINY_SLICE;
    args[0] = big;
    check_case("erlang", "binary_to_list", args, 1, CONV / (256 * TINY_SLICE));
    args[0] = big, args[1] = make_small(2), args[2] = make_small(CONV - 1);
    check_case("erlang", "binary_to_list", args, 3, (CONV - 2) / (256 * TINY_SLICE));
    slice_reds = SHORT_SLICE;
    args[0] = bytes;
    check_case("erlang", "list_to_binary", args, 1, 2 * CONV / (8 * SHORT_SLICE));
    check_case("erlang", "iolist_to_binary", args, 1, 2 * CONV / (8 * SHORT_SLICE));
    check_case("erlang", "iolist_size", args, 1, CONV / (64 * SHORT_SLICE));
    args[0] = deep;
    check_case("erlang", "list_to_binary", args, 1, 2 * CONV / (8 * SHORT_SLICE));
    check_case("erlang", "iolist_to_binary", args, 1, 2 * CONV / (8 * SHORT_SLICE));
    check_case("erlang", "iolist_size", args, 1, CONV / (64 * SHORT_SLICE));
    /* A few large binaries: the copy of each runs in portions too. */
    term bins = heap_cons(&h, big, heap_cons(&h, make_small(1), heap_cons(&h, big, big)));
    args[0] = bins;
    check_case("erlang", "list_to_binary", args, 1, 3 * CONV / (256 * SHORT_SLICE));
    args[0] = l;
    check_case("erlang", "list_to_tuple", args, 1, CONV / (16 * SHORT_SLICE) + CONV / (40 * SHORT_SLICE));
    args[0] = long_tuple(&h);
    check_case("erlang", "tuple_to_list", args, 1, CONV / (40 * SHORT_SLICE));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Errors at the very end of a long argument, after many portions: badarg. */
static void test_conversion_errors(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term improper = byte_list(&h), *last = NULL;
    for (term c = improper; is_list(c); c = list_tail(c))
        last = list_ptr(c);
    last[1] = A(undefined);
    term not_byte = byte_list(&h);
    for (term c = not_byte; is_list(c); c = list_tail(c))
        last = list_ptr(c);
    last[0] = make_small(256);
    term deep_bad = deep_iolist(&h, A(undefined), 1000);
    slice_reds = SHORT_SLICE;
    const char *names[] = {"list_to_binary", "iolist_to_binary", "iolist_size", "list_to_tuple"};
    term cases[] = {improper, not_byte, deep_bad};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++) {
            if (names[i][8] == 't' && j > 0) /* list_to_tuple takes any elements */
                continue;
            check_badarg(&h, "erlang", names[i], &cases[j], 1, 3);
        }
    }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Ended in the middle: list_to_binary has made its (off-heap) binary and
 * is filling it; list_to_tuple's tuple is half filled. Nothing is left. */
static void test_conversions_ended_mid_portion(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    size_t live = binary_live_count();
    term bytes = byte_list(&h), got, raised;
    slice_reds = SHORT_SLICE;
    /* About 80 slices size it, 80 more fill it. */
    CU_ASSERT(run_sliced("erlang", "list_to_binary", &bytes, 1, 100, &h, &got, &raised) == 100);
    CU_ASSERT(is_non_value(got));
    CU_ASSERT(binary_live_count() == live);
    term big = long_binary(&h, CONV);
    CU_ASSERT(run_sliced("erlang", "binary_to_list", &big, 1, 2, &h, &got, &raised) == 2);
    CU_ASSERT(is_non_value(got));
    term l = byte_list(&h);
    CU_ASSERT(run_sliced("erlang", "list_to_tuple", &l, 1, 50, &h, &got, &raised) == 50);
    CU_ASSERT(is_non_value(got));
    CU_ASSERT(run_sliced("erlang", "iolist_size", &bytes, 1, 2, &h, &got, &raised) == 2);
    CU_ASSERT(is_non_value(got));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* ---- the external term format ---- */

/* A term of every kind the encoder walks in portions: a list of CONV / 4
 * small and large integers, CONV / 8 tuples {I, <<4 bytes>>, "text",
 * 1.5}, a large map (CONV / 16 keys, a HAMT), a small one, a large
 * binary, a byte string and an improper list, nested in a tuple. */
static term external_term(heap_t *h)
{
    term ints = NIL, tuples = NIL, str = NIL;
    for (int64_t i = CONV / 4; i > 0; i--)
        ints = heap_cons(h, make_small(i % 3 ? i : (i << 33)), ints);
    for (int64_t i = CONV / 8; i > 0; i--) {
        uint8_t four[4] = {(uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16), 1};
        term text = heap_string(h, "text", 4);
        term elems[4] = {make_small(i), bin_from_bytes(h, four, 4), text, heap_float(h, 1.5)};
        tuples = heap_cons(h, heap_tuple(h, 4, elems), tuples);
    }
    for (int i = 0; i < 1000; i++)
        str = heap_cons(h, make_small(i & 255), str);
    size_t n = CONV / 16;
    term *keys = malloc(2 * n * sizeof *keys);
    CU_ASSERT_FATAL(keys != NULL);
    for (size_t i = 0; i < n; i++) {
        keys[i] = make_small((int64_t)i * 7);
        keys[n + i] = heap_tuple2(h, make_small((int64_t)i), A(ok));
    }
    term big_map = map_from_pairs(h, keys, keys + n, n);
    term small_map = map_from_pairs(h, keys, keys + n, 5);
    free(keys);
    term improper = heap_cons(h, A(ok), heap_cons(h, A(error), A(undefined)));
    term elems[7] = {ints, tuples, big_map, small_map, long_binary(h, CONV), str, improper};
    term t = heap_tuple(h, 7, elems);
    CU_ASSERT_FATAL(is_value(t) && is_value(big_map));
    return t;
}

static term option_list(heap_t *h, const char *const *atoms, size_t n)
{
    term l = NIL;
    for (size_t i = n; i-- > 0;)
        l = heap_cons(h, atom_intern_cstr(atoms[i]), l);
    return l;
}

/* term_to_binary in portions: OTP's 32 units a reduction, a unit a term
 * (some CONV / 4 + 5 * CONV / 8 + 3 * CONV / 16 terms), twice (sizing,
 * writing). Checked against one piece, byte for byte. */
static void test_external_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term t = external_term(&h), args[2];
    size_t terms = CONV / 4 + 5 * CONV / 8 + 3 * CONV / 16;
    int min_slices = (int)(2 * terms / (32 * SHORT_SLICE));
    slice_reds = SHORT_SLICE;
    args[0] = t;
    check_case("erlang", "term_to_binary", args, 1, min_slices);
    static const char *const deterministic[] = {"deterministic"};
    args[1] = option_list(&h, deterministic, 1);
    check_case("erlang", "term_to_binary", args, 2, min_slices);
    args[1] = heap_cons(&h, A(compressed), heap_cons(&h, heap_tuple2(&h, A(minor_version), make_small(0)), NIL));
    check_case("erlang", "term_to_binary", args, 2, min_slices);
    args[1] = heap_cons(&h, heap_tuple2(&h, A(minor_version), make_small(2)), NIL);
    check_case("erlang", "term_to_binary", args, 2, min_slices);
    /* {{...{}...}} 100,000 deep: a portion's stack stays one item. */
    term deep = heap_tuple(&h, 0, NULL);
    for (int i = 0; i < 100000; i++)
        deep = heap_tuple2(&h, deep, make_small(i));
    args[0] = deep;
    check_case("erlang", "term_to_binary", args, 1, 2 * 200000 / (32 * SHORT_SLICE));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* A local fun the encoder refuses (no module MD5) at the end of a long
 * list: badarg after the sizing pass's portions, the original argument in
 * the stack trace. */
static void test_external_errors(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    static struct fun_entry entry = {0, 0, 0, 0, 0, 0, NULL, NULL};
    entry.module = atom_intern_cstr("m");
    entry.name = atom_intern_cstr("-f/0-fun-0-");
    term *fun = heap_alloc(&h, 2);
    fun[0] = make_header(SUBTAG_FUN, FUN_FIXED_WORDS);
    fun[1] = (term)(uintptr_t)&entry;
    term l = heap_cons(&h, make_boxed(fun), NIL);
    for (int64_t i = CONV; i > 0; i--)
        l = heap_cons(&h, make_small(i), l);
    slice_reds = SHORT_SLICE;
    term args[2] = {l, NIL};
    check_badarg(&h, "erlang", "term_to_binary", args, 1, (int)(CONV / (32 * SHORT_SLICE)));
    check_badarg(&h, "erlang", "term_to_binary", args, 2, (int)(CONV / (32 * SHORT_SLICE)));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Ended while sizing, while writing (its binary allocated) and while
 * copying a large binary: nothing is left (LeakSanitizer, and the live
 * off-heap binaries). */
static void test_external_ended_mid_portion(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term t = external_term(&h), got, raised;
    size_t live = binary_live_count();
    slice_reds = SHORT_SLICE;
    size_t terms = CONV / 4 + 5 * CONV / 8 + 3 * CONV / 16;
    int sizing = (int)(terms / (32 * SHORT_SLICE));
    int stops[] = {2, sizing + sizing / 2, 2 * sizing - 1};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        CU_ASSERT(run_sliced("erlang", "term_to_binary", &t, 1, stops[i], &h, &got, &raised) == stops[i]);
        CU_ASSERT(is_non_value(got));
        CU_ASSERT(binary_live_count() == live);
    }
    term big = long_binary(&h, 4 * CONV);
    size_t mid = binary_live_count();
    CU_ASSERT(run_sliced("erlang", "term_to_binary", &big, 1, 3, &h, &got, &raised) == 3);
    CU_ASSERT(is_non_value(got));
    CU_ASSERT(binary_live_count() == mid);
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* external_term's encoding (with options: NULL for none), as a binary. */
static term external_binary(heap_t *h, term t, const struct etf_encode_options *options)
{
    struct etf_encode_options defaults = ETF_ENCODE_DEFAULTS;
    struct strbuf out = STRBUF_INIT;
    const char *error = NULL;
    CU_ASSERT_FATAL(etf_encode_with(t, options ? options : &defaults, &out, &error));
    term bin = bin_from_bytes(h, out.data, out.len);
    strbuf_free(&out);
    CU_ASSERT_FATAL(is_value(bin));
    return bin;
}

/* external_size in portions: term_to_binary's sizing pass alone, at its
 * 32 units a reduction (clause's charge: OTP 25 sizes in one piece); the
 * size of the encoding etf_encode_with writes, with and without options;
 * ended in the middle, nothing is left. */
static void test_external_size_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term t = external_term(&h), args[2] = {t, NIL}, got, raised;
    size_t terms = CONV / 4 + 5 * CONV / 8 + 3 * CONV / 16;
    int min_slices = (int)(terms / (32 * SHORT_SLICE));
    slice_reds = SHORT_SLICE;
    check_case("erlang", "external_size", args, 1, min_slices);
    run_sliced("erlang", "external_size", args, 1, 100000, &h, &got, &raised);
    CU_ASSERT(is_small(got) && (size_t)small_value(got) == bin_size(external_binary(&h, t, NULL)));
    args[1] = heap_cons(&h, heap_tuple2(&h, A(minor_version), make_small(0)), NIL);
    check_case("erlang", "external_size", args, 2, min_slices);
    struct etf_encode_options old_floats = ETF_ENCODE_DEFAULTS;
    old_floats.minor_version = 0;
    run_sliced("erlang", "external_size", args, 2, 100000, &h, &got, &raised);
    CU_ASSERT(is_small(got) && (size_t)small_value(got) == bin_size(external_binary(&h, t, &old_floats)));
    CU_ASSERT(run_sliced("erlang", "external_size", args, 2, 3, &h, &got, &raised) == 3);
    CU_ASSERT(is_non_value(got));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* binary_to_term in portions: OTP's 128 units a reduction, a unit a term
 * and one per element slot allocated, so slices of TINY_SLICE. */
static void test_decode_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term t = external_term(&h), args[2];
    size_t terms = CONV / 4 + 5 * CONV / 8 + 3 * CONV / 16;
    int min_slices = (int)(terms / (128 * TINY_SLICE));
    slice_reds = TINY_SLICE;
    args[0] = external_binary(&h, t, NULL);
    check_case("erlang", "binary_to_term", args, 1, min_slices);
    args[1] = heap_cons(&h, A(used), heap_cons(&h, A(safe), NIL));
    check_case("erlang", "binary_to_term", args, 2, min_slices);
    struct etf_encode_options compressed = ETF_ENCODE_DEFAULTS;
    compressed.compression = 6;
    args[0] = external_binary(&h, t, &compressed);
    check_case("erlang", "binary_to_term", args, 2, min_slices);
    /* The decoded term is the encoded one. */
    term got, raised;
    run_sliced("erlang", "binary_to_term", args, 1, 100000, &h, &got, &raised);
    CU_ASSERT(is_value(got) && term_eq_exact(got, t));
    /* A large binary alone: copied a portion at a time. */
    args[0] = external_binary(&h, long_binary(&h, 4 * CONV), NULL);
    check_case("erlang", "binary_to_term", args, 1, (int)(4 * CONV / (8 * 128 * TINY_SLICE)));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* A truncated encoding and one whose last term has a bad tag: badarg
 * after many portions. */
static void test_decode_errors(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term t = external_term(&h);
    term whole = external_binary(&h, t, NULL);
    const uint8_t *data;
    size_t size;
    unsigned bits;
    bin_bytes(whole, &data, &size, &bits);
    uint8_t *bad = malloc(size);
    CU_ASSERT_FATAL(bad != NULL);
    memcpy(bad, data, size);
    /* The last term is the atom undefined (tag, 2 bytes of length, 9
     * characters): a tag no version knows in its place. */
    CU_ASSERT_FATAL(bad[size - 12] == 100);
    bad[size - 12] = 200;
    term cases[2] = {bin_sub(&h, whole, 0, size - 1, 0), bin_from_bytes(&h, bad, size)};
    free(bad);
    size_t terms = CONV / 4 + 5 * CONV / 8 + 3 * CONV / 16;
    slice_reds = TINY_SLICE;
    for (int i = 0; i < 2; i++) {
        term args[2] = {cases[i], NIL};
        for (unsigned argc = 1; argc <= 2; argc++)
            check_badarg(&h, "erlang", "binary_to_term", args, argc, (int)(terms / (128 * TINY_SLICE)));
    }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Ended in the middle of a decoding, and of a large binary's copy: nothing
 * is left. */
static void test_decode_ended_mid_portion(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term t = external_term(&h), got, raised;
    term bins[2] = {external_binary(&h, t, NULL), external_binary(&h, long_binary(&h, 4 * CONV), NULL)};
    size_t live = binary_live_count();
    slice_reds = TINY_SLICE;
    for (int i = 0; i < 2; i++) {
        CU_ASSERT(run_sliced("erlang", "binary_to_term", &bins[i], 1, 3, &h, &got, &raised) == 3);
        CU_ASSERT(is_non_value(got));
        CU_ASSERT(binary_live_count() == live);
    }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* phash2 in portions: OTP's 64 units a reduction, about a unit a term (two
 * a tuple element or a list element that is not a byte), so slices of TINY_SLICE; the same hash as in one call
 * (phash2_hash, which the unportioned call also gives). */
static void test_phash2_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term t = external_term(&h), args[2];
    size_t terms = CONV / 4 + 5 * CONV / 8 + 3 * CONV / 16;
    slice_reds = TINY_SLICE;
    args[0] = t;
    check_case("erlang", "phash2", args, 1, (int)(terms / (64 * TINY_SLICE)));
    args[1] = make_small(INT64_C(1) << 32);
    check_case("erlang", "phash2", args, 2, (int)(terms / (64 * TINY_SLICE)));
    term got, raised;
    run_sliced("erlang", "phash2", args, 2, 100000, &h, &got, &raised);
    CU_ASSERT(is_small(got) && small_value(got) == (int64_t)phash2_hash(t));
    /* A large binary: 12 bytes a unit. */
    args[0] = long_binary(&h, 4 * CONV);
    check_case("erlang", "phash2", args, 1, (int)(4 * CONV / (12 * 64 * TINY_SLICE)));
    /* A long byte string: a unit a byte. */
    args[0] = byte_list(&h);
    check_case("erlang", "phash2", args, 1, (int)(CONV / (64 * TINY_SLICE)));
    /* A list of integers, all but 255 above a byte: two units each, the
     * element and its tail's restart, as OTP 25 counts (some 60 reductions
     * for 2,000 of them there); 65 for 64 leaves room for a unit's
     * overshoot a slice. */
    args[0] = long_list(&h, false);
    check_case("erlang", "phash2", args, 1, (int)(2 * (LONG - 255) / (65 * TINY_SLICE)));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Ended in the middle of a map's pairs: its iterator is freed. */
static void test_phash2_ended_mid_portion(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term t = external_term(&h), got, raised;
    term map = tuple_element(t, 3);
    slice_reds = TINY_SLICE;
    CU_ASSERT(run_sliced("erlang", "phash2", &map, 1, 3, &h, &got, &raised) == 3);
    CU_ASSERT(is_non_value(got));
    CU_ASSERT(run_sliced("erlang", "phash2", &t, 1, 5, &h, &got, &raised) == 5);
    CU_ASSERT(is_non_value(got));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* maps:keys/1, values/1 (clause's 40 elements a reduction) and
 * erts_internal:map_next/3's list form, maps:to_list/1's (OTP's 4
 * reductions a pair), on a map of CONV / 16 keys (a HAMT): many slices, the
 * same list as in one call and as the map's iteration order. */
static void test_maps_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term map = tuple_element(external_term(&h), 3), args[3];
    size_t n = map_size(map);
    slice_reds = TINY_SLICE;
    args[0] = map;
    check_case("maps", "keys", args, 1, (int)(n / (40 * TINY_SLICE)));
    check_case("maps", "values", args, 1, (int)(n / (40 * TINY_SLICE)));
    args[0] = make_small(0), args[1] = map, args[2] = heap_cons(&h, A(ok), NIL);
    check_case("erts_internal", "map_next", args, 3, (int)(4 * n / TINY_SLICE));
    /* From the path of the pair a third of the way in. */
    struct map_iter third;
    map_iter_init_reverse(&third, map);
    term k, v;
    for (size_t i = 0; i < n / 3; i++)
        map_iter_next(&third, &k, &v);
    uint64_t path[MAP_PATH_LIMBS];
    CU_ASSERT_FATAL(map_iter_path(&third, path) && path[1] == 0 && path[0] <= (uint64_t)MAX_SMALL);
    args[0] = make_small((int64_t)path[0]);
    check_case("erts_internal", "map_next", args, 3, (int)(4 * (n - n / 3) / TINY_SLICE));
    /* The keys come in map_iter's order. */
    term got, raised;
    args[0] = map;
    run_sliced("maps", "keys", args, 1, 100000, &h, &got, &raised);
    struct map_iter it;
    map_iter_init(&it, map);
    term l = got;
    size_t same = 0;
    while (map_iter_next(&it, &k, &v) && is_list(l) && list_head(l) == k)
        same++, l = list_tail(l);
    CU_ASSERT(same == n && l == NIL);
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* erts_internal:map_next/3's iterator form (maps:next/1) gives a large map
 * in batches of as many pairs as the reductions left pay for at 4 a pair
 * (at most 32 from path 0), each ending in the path of the next batch:
 * walking them all takes n / batch calls and gives the pairs in OTP's
 * iterator order (map_iter_init_reverse's). A small map comes whole, in
 * key order. */
static void test_map_iterator_batches(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term t = external_term(&h), map = tuple_element(t, 3), small = tuple_element(t, 4);
    size_t n = map_size(map);
    struct process *p = calloc(1, sizeof *p);
    CU_ASSERT_FATAL(p != NULL && heap_init(&p->heap, 0, 0));
    const struct bif_entry *e = bif_lookup(atom_intern_cstr("erts_internal"), atom_intern_cstr("map_next"), 3);
    CU_ASSERT_FATAL(e != NULL);
    struct map_iter it;
    map_iter_init_reverse(&it, map);
    term args[3] = {make_small(0), map, A(iterator)}, k, v;
    size_t calls = 0, same = 0, given = 0;
    for (bool more = true; more && calls <= n; calls++) {
        p->reds_left = 4 * 10; /* 10 pairs a batch */
        term batch = e->fn(p, args);
        CU_ASSERT_FATAL(is_value(batch));
        size_t before = given;
        while (is_tuple(batch)) {
            given++;
            if (map_iter_next(&it, &k, &v) && k == tuple_element(batch, 1) && v == tuple_element(batch, 2))
                same++;
            batch = tuple_element(batch, 3);
        }
        CU_ASSERT(p->reds_left == (int32_t)(4 * (10 - (given - before)))); /* 4 a pair */
        more = is_list(batch);
        if (more)
            args[0] = list_head(batch);
        else
            CU_ASSERT(batch == A(none));
    }
    CU_ASSERT(given == n && same == n && !map_iter_next(&it, &k, &v));
    CU_ASSERT(calls == (n + 9) / 10);
    /* A small map: one batch, in key order, ending in none. */
    args[0] = make_small(0), args[1] = small;
    term batch = e->fn(p, args);
    map_iter_init(&it, small);
    for (same = 0; is_tuple(batch) && map_iter_next(&it, &k, &v) && k == tuple_element(batch, 1);
         batch = tuple_element(batch, 3))
        same++;
    CU_ASSERT(same == map_size(small) && batch == A(none));
    heap_destroy(&p->heap);
    free(p);
    heap_destroy(&h);
}

/* CONV / 4 pairs {K, I} for maps:from_list, K of every kind a map keys
 * on (integers, atoms, tuples, strings, floats), a third of them repeated
 * so that a later pair replaces an earlier one; *keys gets the K. */
static term pair_list(heap_t *h, term *keys)
{
    term l = NIL;
    *keys = NIL;
    for (int64_t i = CONV / 4; i > 0 && is_value(l); i--) {
        int64_t k = i % (CONV / 6);
        term key = k % 4 == 0   ? make_small(k)
                   : k % 4 == 1 ? heap_tuple2(h, make_small(k), A(ok))
                   : k % 4 == 2 ? heap_cons(h, make_small(k & 127), heap_cons(h, make_small(k >> 7), NIL))
                                : heap_float(h, (double)k / 4);
        l = heap_cons(h, heap_tuple2(h, key, make_small(i)), l);
        *keys = heap_cons(h, key, *keys);
    }
    CU_ASSERT_FATAL(is_value(l) && is_value(*keys));
    return l;
}

/* The map map_from_pairs builds in one piece from the pairs of l ({K, V},
 * or keys given value). */
static term one_piece_map(heap_t *h, term l, bool pairs, term value)
{
    size_t n = 0;
    for (term c = l; is_list(c); c = list_tail(c))
        n++;
    term *ks = malloc((n + 1) * sizeof(term)), *vs = malloc((n + 1) * sizeof(term));
    CU_ASSERT_FATAL(ks && vs);
    n = 0;
    for (term c = l; is_list(c); c = list_tail(c), n++) {
        ks[n] = pairs ? tuple_element(list_head(c), 1) : list_head(c);
        vs[n] = pairs ? tuple_element(list_head(c), 2) : value;
    }
    term m = map_from_pairs(h, ks, vs, n);
    free(ks);
    free(vs);
    CU_ASSERT_FATAL(is_value(m));
    return m;
}

/* maps:from_list/1 and from_keys/2 in portions (clause's 16 units a
 * reduction, log2 n + 5 units a pair): many slices, a collection between
 * every two, the same map as in one call and as map_from_pairs builds. */
static void test_from_list_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term keys, pairs = pair_list(&h, &keys), args[2] = {pairs, A(ok)}, got, raised;
    int min_slices = (int)(CONV / 4 * 14 / (16 * TINY_SLICE));
    slice_reds = TINY_SLICE;
    check_case("maps", "from_list", args, 1, min_slices);
    run_sliced("maps", "from_list", args, 1, 100000, &h, &got, &raised);
    term expected = one_piece_map(&h, pairs, true, NIL);
    CU_ASSERT(is_value(got) && term_eq_exact(got, expected) && map_size(got) == (size_t)(CONV / 6 - 1 + 1));
    args[0] = keys;
    check_case("maps", "from_keys", args, 2, min_slices);
    run_sliced("maps", "from_keys", args, 2, 100000, &h, &got, &raised);
    CU_ASSERT(is_value(got) && term_eq_exact(got, one_piece_map(&h, keys, false, A(ok))));
    /* Duplicates down to a flat map, and to one key. */
    term few = NIL, one = NIL;
    for (int64_t i = 0; i < 1000; i++) {
        few = heap_cons(&h, heap_tuple2(&h, make_small(i % 20), make_small(i)), few);
        one = heap_cons(&h, A(ok), one);
    }
    args[0] = few;
    run_sliced("maps", "from_list", args, 1, 100000, &h, &got, &raised);
    CU_ASSERT(is_value(got) && map_size(got) == 20 && term_eq_exact(got, one_piece_map(&h, few, true, NIL)));
    args[0] = one, args[1] = make_small(1);
    run_sliced("maps", "from_keys", args, 2, 100000, &h, &got, &raised);
    CU_ASSERT(is_value(got) && map_size(got) == 1 && map_get(got, A(ok)) == make_small(1));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Keys that share every slot (a collision node at the deepest level) are
 * built in one piece when the portions find them: still map_from_pairs's
 * map. */
static uint32_t colliding_hash(term key, unsigned round)
{
    (void)round;
    return small_value(key) < 100 ? 7u : (uint32_t)small_value(key) * 2654435761u;
}

static void test_from_list_collisions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    map_test_set_hash(colliding_hash);
    term l = NIL, got, raised;
    for (int64_t i = 0; i < 3000; i++)
        l = heap_cons(&h, heap_tuple2(&h, make_small(i), make_small(-i)), l);
    slice_reds = TINY_SLICE;
    CU_ASSERT(run_sliced("maps", "from_list", &l, 1, 100000, &h, &got, &raised) > 2);
    CU_ASSERT(is_value(got) && term_eq_exact(got, one_piece_map(&h, l, true, NIL)));
    CU_ASSERT(is_value(got) && map_size(got) == 3000 && map_get(got, make_small(42)) == make_small(-42));
    slice_reds = FULL_SLICE;
    map_test_set_hash(NULL);
    heap_destroy(&h);
}

/* badarg after portions: an improper list, an element not a pair. */
static void test_from_list_errors(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term keys, pairs = pair_list(&h, &keys), got, raised;
    term *last = NULL;
    for (term c = pairs; is_list(c); c = list_tail(c))
        last = list_ptr(c);
    slice_reds = TINY_SLICE;
    term args[2] = {pairs, A(ok)};
    for (int i = 0; i < 2; i++) {
        last[0] = i == 0 ? last[0] : A(ok);
        last[1] = i == 0 ? A(undefined) : NIL;
        CU_ASSERT(run_sliced("maps", "from_list", args, 1, 100000, &h, &got, &raised) > 2);
        CU_ASSERT(is_non_value(got) && raised == A(badarg));
    }
    for (last = NULL, args[0] = keys; is_list(args[0]); args[0] = list_tail(args[0]))
        last = list_ptr(args[0]);
    last[1] = A(undefined);
    args[0] = keys;
    CU_ASSERT(run_sliced("maps", "from_keys", args, 2, 100000, &h, &got, &raised) > 2);
    CU_ASSERT(is_non_value(got) && raised == A(badarg));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Ended while walking, sorting and building: nothing is left. */
static void test_from_list_ended_mid_portion(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term keys, pairs = pair_list(&h, &keys), got, raised;
    slice_reds = TINY_SLICE;
    int all = run_sliced("maps", "from_list", &pairs, 1, 100000, &h, &got, &raised);
    for (int k = 1; k < 4; k++) {
        CU_ASSERT(run_sliced("maps", "from_list", &pairs, 1, all * k / 4, &h, &got, &raised) == all * k / 4);
        CU_ASSERT(is_non_value(got));
    }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Ended in the middle of keys/1: nothing is left. */
static void test_maps_ended_mid_portion(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term map = tuple_element(external_term(&h), 3), got, raised;
    slice_reds = TINY_SLICE;
    CU_ASSERT(run_sliced("maps", "values", &map, 1, 3, &h, &got, &raised) == 3);
    CU_ASSERT(is_non_value(got));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* ---- module unicode ---- */

/* The characters of the conversions' tests. */
#define CHARS (300000 / SCALE)

/* Character i: every UTF-8 length in turn (no surrogate), or Latin-1. */
static uint32_t test_char(size_t i, bool latin1)
{
    if (latin1)
        return (uint32_t)(i * 7 % 256);
    switch (i % 4) {
    case 0:
        return 'a' + (uint32_t)(i % 26);
    case 1:
        return 0x80 + (uint32_t)(i % 0x780);
    case 2:
        return 0x800 + (uint32_t)(i % (0xD800 - 0x800));
    default:
        return 0x10000 + (uint32_t)(i % 0x100000);
    }
}

/* Characters 0..n-1 as chardata of every shape a conversion walks, in
 * turn: a character, a binary of three, [], [[a character]], a
 * character's UTF-8 split over two binaries (one binary in Latin-1); the
 * last 1,000 a binary tail; the list nested `depth` deep on the left with
 * [] and <<>> tails. Binaries hold the encoding's bytes. *utf8 gets the
 * characters' UTF-8, *whole (when not NULL) a binary of all their bytes in
 * the encoding. */
static term chardata(heap_t *h, size_t n, bool latin1, int depth, struct strbuf *utf8, term *whole)
{
    uint8_t *enc = malloc(4 * n + 1);
    size_t *off = malloc((n + 1) * sizeof *off);
    CU_ASSERT_FATAL(enc && off);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        off[i] = len;
        uint32_t c = test_char(i, latin1);
        if (latin1)
            enc[len++] = (uint8_t)c;
        else
            len += utf8_encode(c, enc + len);
        strbuf_put_utf8(utf8, c);
    }
    off[n] = len;
    if (whole)
        *whole = bin_from_bytes(h, enc, len);
    /* Pieces (kind, first character) forward, then consed from the end. */
    size_t body = n > 1000 ? n - 1000 : 0, *first = malloc((body + 1) * sizeof *first), pieces = 0;
    CU_ASSERT_FATAL(first != NULL);
    for (size_t i = 0; i < body; pieces++) {
        first[pieces] = i;
        i += pieces % 5 == 1 ? (body - i < 3 ? body - i : 3) : pieces % 5 == 2 ? 0 : 1;
    }
    first[pieces] = body;
    term l = bin_from_bytes(h, enc + off[body], len - off[body]);
    for (size_t k = pieces; k-- > 0 && is_value(l);) {
        size_t i = first[k];
        term c = make_small(test_char(i, latin1)), e;
        switch (k % 5) {
        case 0:
            l = heap_cons(h, c, l);
            break;
        case 1:
            l = heap_cons(h, bin_from_bytes(h, enc + off[i], off[first[k + 1]] - off[i]), l);
            break;
        case 2:
            l = heap_cons(h, NIL, l);
            break;
        case 3:
            e = heap_cons(h, heap_cons(h, c, NIL), NIL);
            l = heap_cons(h, e, l);
            break;
        default: {
            size_t at = off[i], k1 = off[i + 1] - at > 1 ? 1 : off[i + 1] - at;
            l = heap_cons(h, bin_from_bytes(h, enc + at + k1, off[i + 1] - at - k1), l);
            l = heap_cons(h, bin_from_bytes(h, enc + at, k1), l);
        }
        }
    }
    for (int d = 0; d < depth && is_value(l); d++)
        l = heap_cons(h, l, d % 2 ? NIL : bin_from_bytes(h, "", 0));
    free(enc);
    free(off);
    free(first);
    CU_ASSERT_FATAL(is_value(l) && (!whole || is_value(*whole)));
    return l;
}

/* Whether t, a binary or a list of characters, holds that UTF-8. */
static bool same_utf8(term t, const struct strbuf *utf8)
{
    const uint8_t *d;
    size_t n;
    unsigned bits;
    if (is_bitstring(t)) {
        bin_bytes(t, &d, &n, &bits);
        return n == utf8->len && memcmp(d, utf8->data, n) == 0;
    }
    struct strbuf b = STRBUF_INIT;
    for (; is_list(t) && is_small(list_head(t)); t = list_tail(t))
        strbuf_put_utf8(&b, (uint32_t)small_value(list_head(t)));
    bool same = t == NIL && b.len == utf8->len && memcmp(strbuf_cstr(&b), strbuf_cstr(utf8), b.len) == 0;
    strbuf_free(&b);
    return same;
}

/* characters_to_binary/2 and characters_to_list/2 on CHARS characters
 * (OTP's 10 a reduction to convert and to build the list, 50 to check the
 * shape): chardata nested 1,000 deep with binaries and characters split
 * over them, Latin-1 chardata, a flat list, binaries (a UTF-8 binary is
 * only checked, being its own answer); many slices, a collection between
 * every two, the same answer as one piece and the characters' UTF-8. */
static void test_unicode_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct strbuf utf8 = STRBUF_INIT, latin = STRBUF_INIT, again = STRBUF_INIT, latin_again = STRBUF_INIT;
    term bin, latin_bin, flat = NIL;
    term deep = chardata(&h, CHARS, false, 1000, &utf8, &bin);
    term latin_deep = chardata(&h, CHARS, true, 1000, &latin, &latin_bin);
    term shallow = chardata(&h, CHARS, false, 0, &again, NULL);
    term latin_flat = chardata(&h, CHARS, true, 0, &latin_again, NULL);
    for (size_t i = CHARS; i-- > 0;)
        flat = heap_cons(&h, make_small(test_char(i, false)), flat);
    struct {
        term data, encoding;
        const struct strbuf *utf8;
    } cases[] = {
        {deep, A(unicode), &utf8},
        {shallow, A(utf8), &utf8},
        {flat, A(unicode), &utf8},
        {bin, A(unicode), &utf8},
        {heap_cons(&h, bin, NIL), A(utf8), &utf8},
        {latin_deep, A(latin1), &latin},
        {latin_flat, A(latin1), &latin},
        {latin_bin, A(latin1), &latin},
    };
    const char *functions[] = {"characters_to_binary", "characters_to_list"};
    slice_reds = SHORT_SLICE;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int f = 0; f < 2; f++) {
            term args[2] = {cases[i].data, cases[i].encoding};
            term got = check_case_on(&h, "unicode", functions[f], args, 2, CHARS / (10 * SHORT_SLICE));
            if (is_non_value(got) || !same_utf8(got, cases[i].utf8))
                fprintf(stderr, "\nunicode:%s, case %zu: not the characters\n", functions[f], i);
            CU_ASSERT(is_value(got) && same_utf8(got, cases[i].utf8));
        }
    }
    slice_reds = FULL_SLICE;
    strbuf_free(&utf8);
    strbuf_free(&latin);
    strbuf_free(&again);
    strbuf_free(&latin_again);
    heap_destroy(&h);
}

static term list3(heap_t *h, term a, term b, term c) { return heap_cons(h, a, heap_cons(h, b, heap_cons(h, c, NIL))); }

/* Errors and incomplete input after CHARS good characters, so after many
 * portions: the same {error | incomplete, Converted, Rest} as one piece
 * (Rest with the list tails still to walk, pending bytes apart); badarg
 * for a wrong shape at the very end, found by the check's portions. */
static void test_unicode_errors(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct strbuf utf8 = STRBUF_INIT, latin = STRBUF_INIT;
    term bin;
    term prefix = chardata(&h, CHARS, false, 10, &utf8, &bin);
    term latin_prefix = chardata(&h, CHARS, true, 10, &latin, NULL);
    const uint8_t ok_bad[] = {'a', 'b', 0xFF, 'c', 'd'}, e2[] = {0xE2}, e2_82[] = {0xE2, 0x82};
    term bad_in_list = heap_cons(&h, bin_from_bytes(&h, ok_bad, 5), heap_cons(&h, make_small('x'), NIL));
    const uint8_t *bin_bytes_at;
    size_t bin_len;
    unsigned bits;
    bin_bytes(bin, &bin_bytes_at, &bin_len, &bits);
    uint8_t *tailed = malloc(bin_len + 2);
    CU_ASSERT_FATAL(tailed != NULL);
    memcpy(tailed, bin_bytes_at, bin_len);
    tailed[bin_len] = 0xFF, tailed[bin_len + 1] = 'z';
    term bad_bin = bin_from_bytes(&h, tailed, bin_len + 2);
    tailed[bin_len] = 0xF0, tailed[bin_len + 1] = 0x9F;
    term cut_bin = bin_from_bytes(&h, tailed, bin_len + 2);
    free(tailed);
    struct {
        term data, encoding, tag;
    } cases[] = {
        /* A character out of range, then more. */
        {list3(&h, prefix, make_small(-1), make_small('b')), A(unicode), A(error)},
        {list3(&h, prefix, make_small(0xD800), make_small('b')), A(unicode), A(error)},
        /* Bytes that are no UTF-8 in a binary in a nested list. */
        {list3(&h, prefix, bad_in_list, make_small('y')), A(unicode), A(error)},
        /* Ends inside a character. */
        {heap_cons(&h, prefix, bin_from_bytes(&h, e2_82, 2)), A(unicode), A(incomplete)},
        /* An integer while a character's bytes are pending. */
        {list3(&h, prefix, bin_from_bytes(&h, e2, 1), make_small('A')), A(unicode), A(error)},
        /* Pending bytes the next binary does not complete, and the input
         * ending with a pending byte that is no continuation. */
        {list3(&h, prefix, bin_from_bytes(&h, e2, 1), bin_from_bytes(&h, "x", 1)), A(unicode), A(error)},
        {list3(&h, prefix, bin_from_bytes(&h, e2, 1), bin_from_bytes(&h, "", 0)), A(unicode), A(incomplete)},
        /* A bignum: nothing after it is looked at. */
        {list3(&h, prefix, int_from_uint64(&h, UINT64_MAX), A(undefined)), A(unicode), A(error)},
        {list3(&h, latin_prefix, make_small(256), make_small('b')), A(latin1), A(error)},
        /* A binary checked in place. */
        {bad_bin, A(unicode), A(error)},
        {cut_bin, A(utf8), A(incomplete)},
    };
    const char *functions[] = {"characters_to_binary", "characters_to_list"};
    slice_reds = SHORT_SLICE;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int f = 0; f < 2; f++) {
            term args[2] = {cases[i].data, cases[i].encoding};
            term got = check_case_on(&h, "unicode", functions[f], args, 2, CHARS / (10 * SHORT_SLICE));
            bool tagged =
                is_value(got) && is_tuple(got) && tuple_arity(got) == 3 && tuple_element(got, 1) == cases[i].tag;
            if (!tagged)
                fprintf(stderr, "\nunicode:%s, error case %zu: not the tag\n", functions[f], i);
            CU_ASSERT(tagged);
        }
    }
    /* A wrong shape at the end: badarg, after the check's portions. */
    term bits3 = bin_sub(&h, bin, 0, 0, 3);
    term shapes[] = {heap_cons(&h, prefix, A(undefined)), list3(&h, prefix, bits3, NIL),
                     list3(&h, prefix, heap_float(&h, 1.5), NIL)};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (int f = 0; f < 2; f++) {
            term args[2] = {shapes[i], A(unicode)}, got, raised;
            int slices = run_sliced("unicode", functions[f], args, 2, 100000, &h, &got, &raised);
            CU_ASSERT(slices >= CHARS / (50 * SHORT_SLICE));
            CU_ASSERT(is_non_value(got) && raised == A(badarg));
        }
    }
    slice_reds = FULL_SLICE;
    strbuf_free(&utf8);
    strbuf_free(&latin);
    heap_destroy(&h);
}

static term bytes_term(heap_t *h, const char *bytes) { return bin_from_bytes(h, bytes, strlen(bytes)); }

/* Short chardata in the smallest portions (1 to 4 reductions a slice, so
 * 10 to 40 units): a portion ends at every place in turn, inside binaries,
 * between a character's bytes spread over binaries and with bytes
 * pending; the same answers as one piece, in both encodings. */
static void test_unicode_smallest_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    char long_bad[61];
    memset(long_bad, 'q', 60);
    long_bad[60] = 0;
    long_bad[37] = (char)0xFF;
    term split = heap_cons(
        &h, bytes_term(&h, "\xF0\x9F"),
        heap_cons(&h, heap_cons(&h, bytes_term(&h, "\x98"), heap_cons(&h, bytes_term(&h, "\x80"), NIL)), NIL));
    term valid = heap_cons(
        &h, bytes_term(&h, "ab\xE2"),
        heap_cons(&h, bytes_term(&h, "\x82"),
                  heap_cons(&h,
                            bytes_term(&h, "\xAC"
                                           "cdefghijklmnopqrstuvwxyz\xC3\xA9"),
                            heap_cons(&h, make_small(0x10FFFF), heap_cons(&h, split, bytes_term(&h, "end"))))));
    term nested_bad =
        heap_cons(&h,
                  heap_cons(&h, heap_cons(&h, bytes_term(&h, long_bad), heap_cons(&h, make_small(1), NIL)),
                            heap_cons(&h, make_small(2), NIL)),
                  heap_cons(&h, make_small(3), NIL));
    term cases[] = {
        valid,
        list3(&h, valid, bytes_term(&h, "\xE2"), make_small('x')),
        list3(&h, valid, bytes_term(&h, "\xE2"), bytes_term(&h, "\x82")),
        list3(&h, valid, bytes_term(&h, "\xE2"), bytes_term(&h, "x")),
        heap_cons(&h, bytes_term(&h, "0123456789abcdefghijklmnopqrstuvwxyz"),
                  list3(&h, bytes_term(&h, "\xC8\xC9"), make_small(255), heap_cons(&h, bytes_term(&h, "x"), NIL))),
        nested_bad,
        bytes_term(&h, "0123456789abcdefghijklmnopqrstuvwxyz\xE2\x82\xAC\xF0\x9F\x98"),
        bytes_term(&h, "0123456789abcdefghijklmnopqrstuvwxyz\xE2\x82\xAC\xED\xA0\x80tail"),
        list3(&h, valid, make_small(256), NIL),
        list3(&h, valid, int_from_uint64(&h, UINT64_MAX), A(undefined)),
    };
    const char *functions[] = {"characters_to_binary", "characters_to_list"};
    term encodings[] = {A(unicode), A(latin1)};
    for (slice_reds = 1; slice_reds <= 4; slice_reds++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            for (int f = 0; f < 2; f++)
                for (int e = 0; e < 2; e++) {
                    term args[2] = {cases[i], encodings[e]};
                    check_case_on(&h, "unicode", functions[f], args, 2, slice_reds == 1 ? 2 : 1);
                }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Ended while checking, converting (its off-heap binary allocated) and
 * building the list: nothing is left. */
static void test_unicode_ended_mid_portion(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    struct strbuf utf8 = STRBUF_INIT;
    term args[2] = {chardata(&h, CHARS, false, 1000, &utf8, NULL), A(unicode)}, got, raised;
    slice_reds = SHORT_SLICE;
    const char *functions[] = {"characters_to_binary", "characters_to_list"};
    for (int f = 0; f < 2; f++) {
        int all = run_sliced("unicode", functions[f], args, 2, 100000, &h, &got, &raised);
        CU_ASSERT(is_value(got));
        size_t live = binary_live_count(); /* with the answer's binary, copied to h */
        int stops[] = {2, all / 3, all - 2};
        for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
            CU_ASSERT(run_sliced("unicode", functions[f], args, 2, stops[i], &h, &got, &raised) == stops[i]);
            CU_ASSERT(is_non_value(got));
            CU_ASSERT(binary_live_count() == live);
        }
    }
    slice_reds = FULL_SLICE;
    strbuf_free(&utf8);
    heap_destroy(&h);
}

/* ---- module binary ---- */

/* A subject of CONV bytes over 'a'..'g' (i % 7) with text written at
 * `at`: what the searches look for. */
static term search_subject(heap_t *h, size_t at, const char *text)
{
    uint8_t *bytes = malloc(CONV);
    CU_ASSERT_FATAL(bytes != NULL);
    for (size_t i = 0; i < CONV; i++)
        bytes[i] = (uint8_t)('a' + i % 7);
    memcpy(bytes + at, text, strlen(text));
    term b = bin_from_bytes(h, bytes, CONV);
    free(bytes);
    CU_ASSERT_FATAL(is_value(b));
    return b;
}

static term atom_list(heap_t *h, const char *const *atoms, size_t n)
{
    term l = NIL;
    while (n-- > 0)
        l = heap_cons(h, atom_intern_cstr(atoms[n]), l);
    return l;
}

static void test_binary_module_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    /* OTP's constants: 10 search units a reduction (for one pattern, a
     * window compared or 8 bytes memchr passes; for several, a position),
     * 100 bytes a reduction for copy, 10 comparisons for the longest
     * common prefix and suffix. */
    slice_reds = TINY_SLICE;
    term subject = search_subject(&h, CONV - 10, "XYZ"), args[3];
    term one = bytes_term(&h, "Q"), several = list3(&h, bytes_term(&h, "XY"), bytes_term(&h, "XYZ"), one);
    /* Absent, and found only near the end (the longest of those there). */
    args[0] = subject, args[1] = one;
    check_case("binary", "match", args, 2, CONV / (80 * TINY_SLICE));
    slice_reds = SHORT_SLICE;
    args[1] = several;
    check_case("binary", "match", args, 2, CONV / (10 * SHORT_SLICE));
    term scope =
        heap_cons(&h, heap_tuple2(&h, A(scope), heap_tuple2(&h, make_small(CONV - 1), make_small(1 - CONV))), NIL);
    args[2] = scope;
    check_case("binary", "match", args, 3, CONV / (10 * SHORT_SLICE));
    /* Sparse matches: "ga" every 7 bytes (a window and a match every 7
     * bytes), "gab" among several (a position every byte but those a
     * match spans). */
    term sparse = bytes_term(&h, "ga"),
         overlapping = list3(&h, bytes_term(&h, "gab"), bytes_term(&h, "ga"), bytes_term(&h, "bcdefg"));
    args[0] = subject, args[1] = sparse;
    check_case("binary", "matches", args, 2, CONV / (40 * SHORT_SLICE));
    args[1] = overlapping;
    check_case("binary", "matches", args, 2, CONV / (40 * SHORT_SLICE));
    args[2] = scope;
    check_case("binary", "matches", args, 3, CONV / (40 * SHORT_SLICE));
    static const char *const global[] = {"global"}, *const trim_all[] = {"global", "trim_all"};
    args[1] = sparse, args[2] = atom_list(&h, global, 1);
    check_case("binary", "split", args, 3, CONV / (40 * SHORT_SLICE));
    args[1] = overlapping, args[2] = atom_list(&h, trim_all, 2);
    check_case("binary", "split", args, 3, CONV / (40 * SHORT_SLICE));
    args[1] = several;
    check_case("binary", "split", args, 2, CONV / (40 * SHORT_SLICE));
    /* Copies: 100 bytes a reduction. */
    slice_reds = TINY_SLICE;
    args[0] = subject, args[1] = make_small(3);
    check_case("binary", "copy", args, 2, 3 * CONV / (100 * TINY_SLICE));
    check_case("binary", "copy", args, 1, CONV / (100 * TINY_SLICE));
    args[0] = bytes_term(&h, "abc"), args[1] = make_small(CONV);
    check_case("binary", "copy", args, 2, 3 * CONV / (100 * TINY_SLICE));
    /* Three binaries that differ only in one byte near the far end; a list
     * of many short ones. */
    slice_reds = SHORT_SLICE;
    term start = search_subject(&h, CONV - 1, "X"), end = search_subject(&h, 0, "X");
    args[0] = list3(&h, subject, search_subject(&h, CONV - 10, "XYZ"), start);
    check_case("binary", "longest_common_prefix", args, 1, 2 * CONV / (10 * SHORT_SLICE));
    args[0] = list3(&h, subject, search_subject(&h, CONV - 10, "XYZ"), end);
    check_case("binary", "longest_common_suffix", args, 1, CONV / (10 * SHORT_SLICE));
    term many = NIL;
    for (size_t i = 0; i < CONV / 4; i++)
        many = heap_cons(&h, one, many);
    args[0] = many;
    check_case("binary", "longest_common_prefix", args, 1, CONV / 2 / (10 * SHORT_SLICE));
    args[0] = byte_list(&h);
    check_case("binary", "list_to_bin", args, 1, 2 * CONV / (8 * SHORT_SLICE));
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Leftmost-longest across every portion boundary: overlapping patterns
 * over "ab" repeated, searched 10 units a slice (a reduction's worth),
 * where portions end inside matches and between overlapping candidates. */
static void test_binary_smallest_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    char text[601];
    for (size_t i = 0; i < 600; i++)
        text[i] = "aab"[i % 3 == 2 ? 2 : i % 2];
    text[600] = 0;
    term subject = bytes_term(&h, text), args[3];
    term patterns[] = {
        list3(&h, bytes_term(&h, "a"), bytes_term(&h, "ab"), bytes_term(&h, "aba")),
        list3(&h, bytes_term(&h, "bab"), bytes_term(&h, "aabaa"), bytes_term(&h, "b")),
        bytes_term(&h, "aba"),
        bytes_term(&h, "abaab"),
    };
    static const char *const global[] = {"global", "trim"};
    for (slice_reds = 1; slice_reds <= 3; slice_reds++)
        for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
            args[0] = subject, args[1] = patterns[i], args[2] = atom_list(&h, global, 2);
            check_case_on(&h, "binary", "matches", args, 2, 2);
            check_case_on(&h, "binary", "split", args, 3, 2);
            check_case_on(&h, "binary", "match", args, 2, 1);
        }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* longest_common_prefix's list ends badly after many portions: badarg,
 * its stack frame showing the original list. */
static void test_binary_module_errors(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term abc = bytes_term(&h, "abc"), bad_element = heap_cons(&h, make_small(7), NIL), improper = A(undefined);
    for (size_t i = 0; i < CONV / 4; i++) {
        bad_element = heap_cons(&h, abc, bad_element);
        improper = heap_cons(&h, abc, improper);
    }
    term cases[] = {bad_element, improper};
    slice_reds = SHORT_SLICE;
    const char *names[] = {"longest_common_prefix", "longest_common_suffix"};
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 2; j++) {
            check_badarg(&h, "binary", names[i], &cases[j], 1, 3);
        }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Ended while searching, while building the matches' list, and while
 * copying into its off-heap binary: nothing is left. */
static void test_binary_module_ended_mid_portion(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term subject = search_subject(&h, CONV - 10, "XYZ"), got, raised;
    size_t live = binary_live_count();
    slice_reds = SHORT_SLICE;
    term args[3] = {subject, bytes_term(&h, "ga"), NIL};
    int all = run_sliced("binary", "matches", args, 2, 100000, &h, &got, &raised);
    CU_ASSERT(is_value(got));
    int stops[] = {2, all / 2, all - 1};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        CU_ASSERT(run_sliced("binary", "matches", args, 2, stops[i], &h, &got, &raised) == stops[i]);
        CU_ASSERT(is_non_value(got));
        CU_ASSERT(binary_live_count() == live);
    }
    slice_reds = TINY_SLICE;
    args[1] = make_small(5);
    CU_ASSERT(run_sliced("binary", "copy", args, 2, 3, &h, &got, &raised) == 3);
    CU_ASSERT(is_non_value(got));
    CU_ASSERT(binary_live_count() == live);
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* ---- ETS walks (select and its kin, tab2list) ----
 * A named public table of ETS_OBJECTS objects {K, K rem 10} (K from 1),
 * made in the run's own executor before the call, walked in slices of
 * ETS_SLICE reductions (a portion visits at most as many objects). */
#define ETS_OBJECTS (20000 / SCALE)
#define ETS_SLICE (200 / SCALE)
#define ETS_MIN_SLICES (ETS_OBJECTS / ETS_SLICE / 2)

static const char *ets_type = "set"; /* the next table's */
static heap_t *ets_heap;             /* where at_end copies the table's objects */
static term ets_after;               /* tab2list after the call */
static uint8_t *ets_deleted;         /* keys a hook deleted during the call */

static term ets_name(void) { return atom_intern_cstr("portion_tab"); }
static term var(const char *name) { return atom_intern_cstr(name); }

/* A bare process of s's (pid 1) to call ETS builtins on in one C call. */
static struct process *ets_caller(struct sched *s)
{
    struct process *p = test_bif_process_new();
    p->sched = s;
    p->pid = make_pid(1);
    return p;
}

static term ets_call(struct process *p, const char *function, const term *args, unsigned argc)
{
    term r = test_bif_call(p, "ets", function, argc, args);
    CU_ASSERT_FATAL(p->fault_class != FAULT_TRAP);
    return r;
}

static void ets_insert_range(struct process *p, int64_t from, int64_t to)
{
    for (int64_t k = from; k <= to; k++) {
        term args[2] = {ets_name(), heap_tuple2(&p->heap, make_small(k), make_small(k % 10))};
        CU_ASSERT_FATAL(ets_call(p, "insert", args, 2) == A(true));
    }
}

static void ets_fill(struct sched *s)
{
    struct process *p = ets_caller(s);
    term type = atom_intern_cstr(ets_type);
    term opts = heap_list_from_array(&p->heap, (term[]){var("named_table"), var("public"), type}, 3);
    CU_ASSERT_FATAL(ets_call(p, "new", (term[]){ets_name(), opts}, 2) == ets_name());
    ets_insert_range(p, 1, ETS_OBJECTS);
    test_bif_process_free(p);
}

static void ets_capture(struct sched *s)
{
    struct process *p = ets_caller(s);
    term all = ets_call(p, "tab2list", (term[]){ets_name()}, 1);
    ets_after = is_value(all) ? copy_to_heap(ets_heap, all) : THE_NON_VALUE;
    test_bif_process_free(p);
}

/* function(args) in one C call on a fresh table (the unlimited budget);
 * *after gets the table's objects after it. */
static term ets_unportioned(heap_t *h, const char *function, const term *args, unsigned argc, term *after)
{
    struct sched_config config = {.workers = 1};
    struct sched *s = test_sched_create(&config);
    ets_fill(s);
    struct process *p = ets_caller(s);
    term r = ets_call(p, function, args, argc);
    CU_ASSERT_FATAL(is_value(r));
    term copy = copy_to_heap(h, r);
    *after = copy_to_heap(h, ets_call(p, "tab2list", (term[]){ets_name()}, 1));
    test_bif_process_free(p);
    sched_destroy(s);
    return copy;
}

/* The part of two answers that must agree: a chunk's continuation names
 * its table by an id each executor numbers itself. */
static bool same_answer(term a, term b)
{
    if (!is_tuple(a) || tuple_arity(a) != 2 || !is_tuple(b) || tuple_arity(b) != 2)
        return term_eq_exact(a, b);
    term ca = tuple_element(a, 2), cb = tuple_element(b, 2);
    return term_eq_exact(tuple_element(a, 1), tuple_element(b, 1)) &&
           (!is_tuple(ca) ? term_eq_exact(ca, cb)
                          : is_tuple(cb) && tuple_arity(ca) == tuple_arity(cb) &&
                                term_eq_exact(tuple_element(ca, 2), tuple_element(cb, 2)));
}

/* ets:function(args) in slices, a collection between every two, against
 * one C call on a table filled alike: the same answer, the same table after. */
static void ets_case(heap_t *h, const char *type, const char *function, const term *args, unsigned argc, int min_slices)
{
    ets_type = type;
    term after, expected = ets_unportioned(h, function, args, argc, &after), got, raised;
    ets_heap = h;
    at_start = ets_fill;
    at_end = ets_capture;
    int slices = run_sliced("ets", function, args, argc, 100000, h, &got, &raised);
    at_start = NULL;
    at_end = NULL;
    bool same = is_value(got) && same_answer(got, expected) && term_eq_exact(ets_after, after);
    if (slices < min_slices || !same)
        fprintf(stderr, "\nets:%s/%u on a %s: %d slices (at least %d), %s\n", function, argc, type, slices, min_slices,
                same ? "same result" : "another result");
    CU_ASSERT(slices >= min_slices);
    CU_ASSERT(same);
}

/* [{Head, Guards, Body}] */
static term spec1(heap_t *h, term head, term guards, term body)
{
    return heap_cons(h, heap_tuple(h, 3, (term[]){head, guards, body}), NIL);
}

/* [{'<', '$2', N}] */
static term below(heap_t *h, const char *v, int64_t n)
{
    return heap_cons(h, heap_tuple(h, 3, (term[]){var("<"), var(v), make_small(n)}), NIL);
}

static void test_ets_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    slice_reds = ETS_SLICE;
    term kv = heap_tuple2(&h, var("$1"), var("$2"));
    term one = heap_cons(&h, var("$_"), NIL), yes = heap_cons(&h, A(true), NIL);
    term select = spec1(&h, kv, below(&h, "$2", 5), one), count = spec1(&h, kv, below(&h, "$2", 5), yes);
    /* {{'$1', {'+', '$2', 1}}} */
    term plus = heap_tuple(&h, 3, (term[]){var("+"), var("$2"), make_small(1)});
    term replace =
        spec1(&h, kv, NIL, heap_cons(&h, heap_tuple(&h, 1, (term[]){heap_tuple2(&h, var("$1"), plus)}), NIL));
    /* one object in 997: a chunk of 5 walks some 5,000 */
    term rem = heap_tuple(&h, 3, (term[]){var("rem"), var("$1"), make_small(997)});
    term rare = heap_cons(&h, heap_tuple(&h, 3, (term[]){var("=="), rem, make_small(0)}), NIL);
    term sparse = spec1(&h, kv, rare, heap_cons(&h, var("$1"), NIL));
    term bound = heap_tuple2(&h, var("$1"), make_small(3)), any3 = heap_tuple2(&h, var("_"), make_small(3));
    const char *types[] = {"set", "ordered_set", "bag"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        const char *type = types[i];
        ets_case(&h, type, "select", (term[]){ets_name(), select}, 2, ETS_MIN_SLICES);
        ets_case(&h, type, "select_reverse", (term[]){ets_name(), select}, 2, ETS_MIN_SLICES);
        ets_case(&h, type, "match", (term[]){ets_name(), bound}, 2, ETS_MIN_SLICES);
        ets_case(&h, type, "match_object", (term[]){ets_name(), any3}, 2, ETS_MIN_SLICES);
        ets_case(&h, type, "select_count", (term[]){ets_name(), count}, 2, ETS_MIN_SLICES);
        ets_case(&h, type, "internal_select_delete", (term[]){ets_name(), count}, 2, ETS_MIN_SLICES);
        if (strcmp(type, "bag") != 0)
            ets_case(&h, type, "select_replace", (term[]){ets_name(), replace}, 2, ETS_MIN_SLICES);
        ets_case(&h, type, "tab2list", (term[]){ets_name()}, 1, ETS_MIN_SLICES);
        ets_case(&h, type, "select", (term[]){ets_name(), sparse, make_small(5)}, 3, ETS_MIN_SLICES / 10);
        ets_case(&h, type, "match_object", (term[]){ets_name(), any3, make_small(ETS_OBJECTS / 20)}, 3,
                 ETS_MIN_SLICES / 2);
    }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Between slices, another process's changes: keys deleted here and there,
 * then many inserted (the hash table doubles) and deleted again with a
 * quarter of the first ones (it halves). */
static void ets_churn(struct sched *s, int slices)
{
    struct process *p = ets_caller(s);
    term args[2] = {ets_name(), THE_NON_VALUE};
    int64_t first = (int64_t)slices * 37 % ETS_OBJECTS + 1;
    for (int64_t k = first; k < first + 5 && k <= ETS_OBJECTS; k++) {
        args[1] = make_small(k);
        ets_call(p, "delete", args, 2);
        ets_deleted[k] = 1;
    }
    if (slices == 5)
        ets_insert_range(p, ETS_OBJECTS + 1, ETS_OBJECTS + ETS_OBJECTS / 2);
    for (int64_t k = 1; slices == 20 && k <= ETS_OBJECTS + ETS_OBJECTS / 2; k++) {
        if (k > ETS_OBJECTS / 4 && k <= ETS_OBJECTS)
            continue;
        args[1] = make_small(k);
        ets_call(p, "delete", args, 2);
        if (k <= ETS_OBJECTS)
            ets_deleted[k] = 1;
    }
    test_bif_process_free(p);
}

/* A walk over a table changed between its portions gives each object
 * present throughout exactly once, and no object twice (OTP's select on a
 * table it does not fix). */
static void test_ets_changed_between_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    slice_reds = ETS_SLICE;
    term all = spec1(&h, heap_tuple2(&h, var("$1"), var("_")), NIL, heap_cons(&h, var("$1"), NIL));
    const char *types[] = {"set", "ordered_set", "duplicate_bag"};
    uint8_t *seen = malloc(2 * ETS_OBJECTS);
    ets_deleted = malloc(2 * ETS_OBJECTS);
    CU_ASSERT_FATAL(seen && ets_deleted);
    for (size_t i = 0; i < 3; i++) {
        for (int reverse = 0; reverse < 2; reverse++) {
            memset(seen, 0, 2 * ETS_OBJECTS);
            memset(ets_deleted, 0, 2 * ETS_OBJECTS);
            ets_type = types[i];
            at_start = ets_fill;
            between_slices = ets_churn;
            term got, raised;
            int slices = run_sliced("ets", reverse ? "select_reverse" : "select", (term[]){ets_name(), all}, 2, 100000,
                                    &h, &got, &raised);
            at_start = NULL;
            between_slices = NULL;
            CU_ASSERT(slices > 20);
            CU_ASSERT_FATAL(is_value(got));
            bool twice = false, missed = false;
            for (term l = got; is_list(l); l = list_tail(l)) {
                int64_t k = small_value(list_head(l));
                twice |= seen[k]++ != 0;
            }
            for (int64_t k = 1; k <= ETS_OBJECTS; k++)
                missed |= !ets_deleted[k] && !seen[k];
            if (twice || missed)
                fprintf(stderr, "\n%s%s over a changing %s: %s\n", reverse ? "select_reverse" : "select", "", types[i],
                        twice ? "an object twice" : "an object missed");
            CU_ASSERT(!twice && !missed);
        }
    }
    free(seen);
    free(ets_deleted);
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

static int ets_drop_at = 3; /* the slice after which ets_drop deletes the table */

static void ets_drop(struct sched *s, int slices)
{
    if (slices != ets_drop_at)
        return;
    struct process *p = ets_caller(s);
    CU_ASSERT(ets_call(p, "delete", (term[]){ets_name()}, 1) == A(true));
    test_bif_process_free(p);
}

/* A table deleted between portions: badarg, as OTP's. A process ended in
 * the middle of a walk leaves nothing behind (LeakSanitizer). */
static void test_ets_deleted_or_ended_mid_walk(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    slice_reds = ETS_SLICE;
    term all = spec1(&h, heap_tuple2(&h, var("$1"), var("_")), NIL, heap_cons(&h, var("$_"), NIL));
    const char *types[] = {"set", "ordered_set"};
    for (size_t i = 0; i < 2; i++) {
        ets_type = types[i];
        at_start = ets_fill;
        between_slices = ets_drop;
        term got, raised;
        int slices = run_sliced("ets", "select", (term[]){ets_name(), all}, 2, 100000, &h, &got, &raised);
        CU_ASSERT(slices == 4);
        CU_ASSERT(is_non_value(got) && raised == A(badarg));
        between_slices = NULL;
        const char *functions[] = {"select", "internal_select_delete", "select_replace", "tab2list"};
        for (size_t f = 0; f < 4; f++) {
            unsigned argc = f == 3 ? 1 : 2;
            slices = run_sliced("ets", functions[f], (term[]){ets_name(), all}, argc, 3, &h, &got, &raised);
            CU_ASSERT(slices == 3 && is_non_value(got) && is_non_value(raised));
        }
        slices =
            run_sliced("ets", "select", (term[]){ets_name(), all, make_small(ETS_OBJECTS)}, 3, 3, &h, &got, &raised);
        CU_ASSERT(slices == 3 && is_non_value(got));
        at_start = NULL;
    }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* [{K, K rem 7} || K <- lists:seq(From, To)] */
static term pairs(heap_t *h, int64_t from, int64_t to)
{
    term l = NIL;
    for (int64_t k = to; k >= from && is_value(l); k--) {
        term e = heap_tuple2(h, make_small(k), make_small(k % 7));
        l = is_value(e) ? heap_cons(h, e, l) : e;
    }
    CU_ASSERT_FATAL(is_value(l));
    return l;
}

static int64_t cells(term l)
{
    int64_t n = 0;
    for (; is_list(l); l = list_tail(l))
        n++;
    return n;
}

/* insert/2 of a long list copies 4 objects a reduction, then commits as
 * many: at least this many slices of ETS_SLICE reductions for each. */
#define INSERT_OBJECTS (2 * ETS_OBJECTS)
#define INSERT_SLICES (INSERT_OBJECTS / (ETS_SLICE * 4))

/* ets_peek sees info(Tab, size) after the slices ets_peek_at names (0:
 * none): a size, or undefined once the table went. */
static int ets_peek_at[2];
static term ets_peeked[2];

static void ets_peek(struct sched *s, int slices)
{
    for (int i = 0; i < 2; i++) {
        if (slices != ets_peek_at[i])
            continue;
        struct process *p = ets_caller(s);
        term size = ets_call(p, "info", (term[]){ets_name(), var("size")}, 2);
        ets_peeked[i] = is_immed(size) ? size : THE_NON_VALUE;
        test_bif_process_free(p);
    }
}

/* insert/2 and insert_new/2 of a long list: many slices copying, then many
 * committing, the same answer and table as in one call; another process's
 * access in the middle of the commit finishes it first (it sees all of the
 * call's objects or none), a bad object found late leaves the table as it
 * was, and a process ended while copying or committing leaves nothing
 * behind (LeakSanitizer). */
static void test_ets_insert_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    slice_reds = ETS_SLICE;
    /* Half the keys are in the filled table already, half are new. */
    term half_new = pairs(&h, ETS_OBJECTS / 2 + 1, ETS_OBJECTS / 2 + INSERT_OBJECTS);
    term all_new = pairs(&h, ETS_OBJECTS + 1, ETS_OBJECTS + INSERT_OBJECTS);
    term bad_last = pairs(&h, ETS_OBJECTS + 1, ETS_OBJECTS + INSERT_OBJECTS);
    term last = bad_last;
    while (list_tail(last) != NIL)
        last = list_tail(last);
    list_ptr(last)[0] = heap_tuple(&h, 0, NULL); /* {}: no key */
    const char *types[] = {"set", "ordered_set", "bag", "duplicate_bag"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        const char *type = types[i];
        ets_case(&h, type, "insert", (term[]){ets_name(), half_new}, 2, 2 * INSERT_SLICES);
        ets_case(&h, type, "insert_new", (term[]){ets_name(), half_new}, 2, INSERT_SLICES);
        ets_case(&h, type, "insert_new", (term[]){ets_name(), all_new}, 2, 2 * INSERT_SLICES);

        ets_type = type;
        ets_heap = &h;
        at_start = ets_fill;
        at_end = ets_capture;
        term got, raised;
        int slices = run_sliced("ets", "insert", (term[]){ets_name(), bad_last}, 2, 100000, &h, &got, &raised);
        CU_ASSERT(slices >= INSERT_SLICES && raised == A(badarg));
        CU_ASSERT(is_list(ets_after) && cells(ets_after) == ETS_OBJECTS);

        between_slices = ets_peek;
        ets_peek_at[0] = INSERT_SLICES * 2 / 5;
        ets_peek_at[1] = INSERT_SLICES * 6 / 5;
        ets_peeked[0] = ets_peeked[1] = THE_NON_VALUE;
        slices = run_sliced("ets", "insert", (term[]){ets_name(), all_new}, 2, 100000, &h, &got, &raised);
        between_slices = NULL;
        CU_ASSERT(got == A(true) && slices > INSERT_SLICES * 6 / 5);
        CU_ASSERT_EQUAL(ets_peeked[0], make_small(ETS_OBJECTS));
        CU_ASSERT_EQUAL(ets_peeked[1], make_small(ETS_OBJECTS + INSERT_OBJECTS));

        /* The table deleted in the middle of the commit: the insert ends
         * there, true (its objects went with the table), and its batch's
         * objects not yet in are freed (LeakSanitizer). */
        between_slices = ets_drop;
        ets_drop_at = INSERT_SLICES * 6 / 5;
        slices = run_sliced("ets", "insert", (term[]){ets_name(), all_new}, 2, 100000, &h, &got, &raised);
        ets_drop_at = 3;
        between_slices = NULL;
        CU_ASSERT(got == A(true) && slices == INSERT_SLICES * 6 / 5 + 1);

        /* Ended while copying, then while committing (at_end's tab2list
         * finishes the commit before the process goes). */
        slices = run_sliced("ets", "insert", (term[]){ets_name(), all_new}, 2, INSERT_SLICES / 2, &h, &got, &raised);
        CU_ASSERT(slices == INSERT_SLICES / 2 && is_non_value(got));
        CU_ASSERT(is_list(ets_after) && cells(ets_after) == ETS_OBJECTS);
        at_end = NULL;
        slices =
            run_sliced("ets", "insert", (term[]){ets_name(), all_new}, 2, INSERT_SLICES * 3 / 2, &h, &got, &raised);
        CU_ASSERT(slices == INSERT_SLICES * 3 / 2 && is_non_value(got));
        at_start = NULL;
    }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* delete_all_objects/1 (internal_delete_all/2) and delete/1 empty or drop
 * the table at once (another caller sees it empty, or gone, after the first
 * slice), then free the objects a reduction each over many slices; a
 * process ended meanwhile leaves nothing behind (LeakSanitizer). */
static void test_ets_delete_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    slice_reds = ETS_SLICE;
    const char *types[] = {"set", "ordered_set", "bag"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        const char *type = types[i];
        ets_case(&h, type, "internal_delete_all", (term[]){ets_name(), var("undefined")}, 2,
                 ETS_OBJECTS / ETS_SLICE / 2);
        ets_type = type;
        at_start = ets_fill;
        between_slices = ets_peek;
        ets_peek_at[0] = 2;
        ets_peek_at[1] = 0;
        term got, raised;
        ets_peeked[0] = THE_NON_VALUE;
        int slices = run_sliced("ets", "internal_delete_all", (term[]){ets_name(), var("undefined")}, 2, 100000, &h,
                                &got, &raised);
        CU_ASSERT(got == make_small(ETS_OBJECTS) && slices >= ETS_OBJECTS / ETS_SLICE / 2);
        CU_ASSERT(ets_peeked[0] == make_small(0));
        ets_peeked[0] = THE_NON_VALUE;
        slices = run_sliced("ets", "delete", (term[]){ets_name()}, 1, 100000, &h, &got, &raised);
        CU_ASSERT(got == A(true) && slices >= ETS_OBJECTS / ETS_SLICE / 2);
        CU_ASSERT(ets_peeked[0] == var("undefined"));
        between_slices = NULL;
        slices = run_sliced("ets", "delete", (term[]){ets_name()}, 1, 3, &h, &got, &raised);
        CU_ASSERT(slices == 3 && is_non_value(got));
        slices =
            run_sliced("ets", "internal_delete_all", (term[]){ets_name(), var("undefined")}, 2, 3, &h, &got, &raised);
        CU_ASSERT(slices == 3 && is_non_value(got));
        at_start = NULL;
    }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* re:run tries a long subject's start positions a window a slice (2 a
 * reduction): the same match, or nomatch, as one call, with windows ending
 * inside a match's span and inside UTF-8 characters, from an offset, over
 * an iolist; a pattern whose positions depend on where a call starts
 * ((*COMMIT), \G, anchored) runs whole in one slice. */
static void test_re_portions(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    slice_reds = SHORT_SLICE;
    int windows = CONV / (2 * SHORT_SLICE);
    term subject = search_subject(&h, CONV - 10, "XYZ"), args[3];
    term binary_capture = heap_cons(&h, heap_tuple3(&h, A(capture), A(all), A(binary)), NIL);
    args[0] = subject, args[1] = bytes_term(&h, "[a-f]q");
    check_case("re", "run", args, 2, windows);
    args[1] = bytes_term(&h, "(?:ab|fg|cd)X(Y)(Q)?Z");
    check_case("re", "run", args, 2, windows);
    args[2] = binary_capture;
    check_case("re", "run", args, 3, windows);
    args[2] = heap_cons(&h, heap_tuple2(&h, A(offset), make_small(CONV / 2)), NIL);
    check_case("re", "run", args, 3, windows / 2);
    /* An iolist: its bytes become one binary for the later windows. */
    args[0] = heap_cons(&h, subject, heap_cons(&h, bytes_term(&h, "tail"), NIL));
    args[1] = bytes_term(&h, "Z(ta)il"), args[2] = binary_capture;
    check_case("re", "run", args, 3, windows);
    /* The first "ab" commits and fails: nomatch, though "abq" ends the
     * subject (a later window would find it). \G holds at the call's start
     * only: nomatch, though a later window would start at a "b". */
    char *bytes = malloc(CONV);
    CU_ASSERT_FATAL(bytes != NULL);
    memset(bytes, 'c', CONV);
    memcpy(bytes, "ab", 2);
    memcpy(bytes + CONV - 3, "abq", 3);
    args[0] = bin_from_bytes(&h, bytes, CONV), args[1] = bytes_term(&h, "a(*COMMIT)bq");
    CU_ASSERT(check_case_on(&h, "re", "run", args, 2, 1) == A(nomatch));
    args[1] = bytes_term(&h, "^.*abq");
    check_case_on(&h, "re", "run", args, 2, 1);
    memset(bytes + 1, 'b', CONV - 1);
    args[0] = bin_from_bytes(&h, bytes, CONV), args[1] = bytes_term(&h, "q|\\Gb");
    CU_ASSERT(check_case_on(&h, "re", "run", args, 2, 1) == A(nomatch));
    free(bytes);
    /* UTF-8: two-byte characters, a three-byte one near the end; windows of
     * 2 to 6 bytes end inside characters at every place in turn. */
    struct strbuf text = STRBUF_INIT;
    for (int i = 0; i < 300; i++)
        strbuf_puts(&text, i % 2 ? "\xc3\xa9" : "e\xc2\xb5");
    strbuf_puts(&text, "\xe2\x84\xa6z");
    term utf8 = bin_from_bytes(&h, text.data, text.len);
    term unicode = heap_cons(&h, A(unicode), NIL);
    for (slice_reds = 1; slice_reds <= 3; slice_reds++) {
        args[0] = utf8, args[1] = bytes_term(&h, "(.)\xe2\x84\xa6"), args[2] = unicode;
        check_case_on(&h, "re", "run", args, 3, 2);
        args[1] = bytes_term(&h, "\xc2\xb5z");
        CU_ASSERT(check_case_on(&h, "re", "run", args, 3, 2) == A(nomatch));
    }
    strbuf_free(&text);
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* Windows against one call on random patterns and subjects: 400 patterns
 * of one to four pieces (literals, classes, \b and \B, lookarounds, ^ and
 * $, lazy and greedy repeats, groups, alternations) over subjects of 150 to
 * 400 characters (a, b, c, spaces, newlines, and two-byte characters under
 * unicode, where the pattern ends in ".z" and the subject in "z"), with
 * caseless, multiline, notempty, an offset, or unicode, in
 * windows of 2 to 6 positions (1 to 3 reductions a slice): the same answer,
 * whatever a window boundary falls on. A fixed seed, so a failure repeats. */
static uint64_t re_random_state = 0x9E3779B97F4A7C15u;

static unsigned re_random(unsigned n) { return (unsigned)(test_xorshift(&re_random_state) % n); }

static void test_re_windows_random(void)
{
    beam_engine_init();
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    static const char *const pieces[] = {"a",      "b",         "ab",    "[ab]",   "[^a ]", ".",      "\\b",    "\\B",
                                         "(?<=a)", "(?=b)",     "(?!a)", "(?<!b)", "^",     "$",      "a*",     "b+?",
                                         "(a|bc)", "(?:ab)*",   "x?",    "\\w+",   "\\s",   "c{2,3}", "(b)\\1", "a??",
                                         "[bc]*+", "(?:a|b|c)", " ",     "\\n",    "(?i)B", "a{0,2}b"};
    static const char *const options[] = {NULL, "caseless", "multiline", "notempty", "offset", "unicode"};
    size_t cases = 400 / SCALE;
    for (size_t i = 0; i < cases; i++) {
        char pattern[128] = "";
        unsigned n = 1 + re_random(4);
        for (unsigned k = 0; k < n; k++) {
            if (k > 0 && re_random(5) == 0)
                strcat(pattern, "|");
            strcat(pattern, pieces[re_random(sizeof pieces / sizeof pieces[0])]);
        }
        const char *option = options[re_random(sizeof options / sizeof options[0])];
        bool unicode = option && strcmp(option, "unicode") == 0;
        if (unicode)
            strcat(pattern, ".z"); /* a match late, after a character a window may end inside */
        char subject[1024];
        size_t length = 0, chars = 150 + re_random(250);
        for (size_t c = 0; c < chars; c++) {
            unsigned pick = re_random(unicode ? 8 : 7);
            if (pick == 7) {
                memcpy(subject + length, "\xc3\xa9", 2); /* e acute: windows end inside it */
                length += 2;
            } else {
                subject[length++] = "aabbc \n"[pick];
            }
        }
        if (unicode)
            subject[length - 1] = 'z';
        term opts = NIL;
        if (option && strcmp(option, "offset") == 0)
            opts = heap_cons(&h, heap_tuple2(&h, A(offset), make_small((int64_t)re_random((unsigned)length))), NIL);
        else if (option)
            opts = heap_cons(&h, atom_intern_cstr(option), NIL);
        term args[3] = {bin_from_bytes(&h, subject, length), bytes_term(&h, pattern), opts};
        slice_reds = 1 + (int32_t)re_random(3);
        term expected = unportioned(&h, "re", "run", args, 3), got, raised;
        run_sliced("re", "run", args, 3, 100000, &h, &got, &raised);
        bool same = is_value(expected) ? is_value(got) && term_eq_exact(got, expected) : is_non_value(got);
        if (!same)
            fprintf(stderr, "\nre:run(<<%zu bytes>>, \"%s\", [%s]) in slices of %d: another answer\n", length, pattern,
                    option ? option : "", slice_reds);
        CU_ASSERT(same);
    }
    slice_reds = FULL_SLICE;
    heap_destroy(&h);
}

/* The seed's rule: each comprehension loop head spends one reduction. Every
 * shape OTP 25's compiler emits (tests/beam/loops.erl: generators over
 * lists and binaries, filters, patterns, nested, in effect context,
 * binary comprehensions) over n elements spends at least n reductions more
 * than over none, in slices of 1,000 (the loop's calls preempt it). */
static int64_t loop_reductions(const char *shape, size_t n)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    bool binary = strncmp(shape, "bin_", 4) == 0 && strcmp(shape, "bin_comprehension") != 0;
    term input = NIL;
    if (binary) {
        size_t size = strcmp(shape, "bin_in_list") == 0 ? 2 * n : n;
        uint8_t *bytes = calloc(size ? size : 1, 1);
        CU_ASSERT_FATAL(bytes != NULL);
        input = bin_from_bytes(&h, bytes, size);
        free(bytes);
    } else {
        for (size_t i = n; i > 0; i--) {
            term e = make_small((int64_t)i);
            input = heap_cons(&h, strcmp(shape, "pattern") == 0 ? heap_tuple2(&h, e, e) : e, input);
        }
    }
    term args[2] = {atom_intern_cstr(shape), input};
    struct test_beam_call call;
    test_beam_call_start(&call, "loops", "run", args, 2);
    struct process *p = call.p;
    int64_t spent = 0;
    for (;;) {
        p->reds_left = 1000;
        enum body_stop stop = p->body->resume(p);
        spent += 1000 - p->reds_left;
        if (stop == BODY_EXIT)
            break;
        CU_ASSERT_FATAL(stop == BODY_YIELD);
    }
    CU_ASSERT(is_value(call.host.value) && is_non_value(call.host.class));
    test_beam_call_end(&call);
    heap_destroy(&h);
    return spent;
}

static void test_comprehension_loop_heads(void)
{
    beam_engine_init();
    const char *shapes[] = {"list",   "filter",        "filters",           "pattern",    "nested",
                            "effect", "bin_generator", "bin_comprehension", "bin_to_bin", "bin_in_list"};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        int64_t none = loop_reductions(shapes[i], 0), many = loop_reductions(shapes[i], 20000);
        if (many - none < 20000)
            fprintf(stderr, "\n%s: %lld reductions for 20,000 elements, %lld for none\n", shapes[i], (long long)many,
                    (long long)none);
        CU_ASSERT(many - none >= 20000);
    }
}

/* iolist_size charges OTP 25's units, 64 a reduction: measured on OTP 25
 * with process_info's reductions around iolist_size of 64,000 copies of
 * each element: a unit a cell whatever it holds, none for a binary ending
 * a list or a list's end, one for each end found after going back up a
 * level. Here 32,000 copies, in one call (units * 500 reductions). */
static void test_iolist_size_units(void)
{
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term one = make_small(1), two = make_small(2), bin = bytes_term(&h, "a");
    term l1 = heap_cons(&h, one, NIL);
    struct {
        const char *name;
        term element;
        int units;
    } shapes[] = {
        {"1", one, 1},
        {"<<a>>", bin, 1},
        {"[1]", l1, 2},
        {"[1, 2]", heap_cons(&h, one, heap_cons(&h, two, NIL)), 3},
        {"[[1]]", heap_cons(&h, l1, NIL), 4},
        {"[[[1]]]", heap_cons(&h, heap_cons(&h, l1, NIL), NIL), 6},
        {"[1 | <<a>>]", heap_cons(&h, one, bin), 2},
        {"[<<a>>, <<a>>]", heap_cons(&h, bin, heap_cons(&h, bin, NIL)), 3},
        {"[1, [<<a>>]]", heap_cons(&h, one, heap_cons(&h, heap_cons(&h, bin, NIL), NIL)), 5},
        {"[]", NIL, 1},
        {"[1, [2, [1]]]", heap_cons(&h, one, heap_cons(&h, heap_cons(&h, two, heap_cons(&h, l1, NIL)), NIL)), 8},
        {"[[1], 2]", heap_cons(&h, l1, heap_cons(&h, two, NIL)), 4},
    };
    struct process *p = calloc(1, sizeof *p);
    CU_ASSERT_FATAL(p != NULL);
    CU_ASSERT_FATAL(heap_init(&p->heap, 0, 0));
    const struct bif_entry *e = bif_lookup(A(erlang), atom_intern_cstr("iolist_size"), 1);
    CU_ASSERT_FATAL(e != NULL);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        term list = NIL;
        for (int k = 0; k < 32000; k++)
            list = heap_cons(&h, shapes[i].element, list);
        p->reds_left = CONTEXT_REDS;
        CU_ASSERT(is_value(e->fn(p, &list)));
        int spent = CONTEXT_REDS - p->reds_left;
        if (spent != shapes[i].units * 500)
            fprintf(stderr, "\niolist_size of [%s, ...]: %d reductions, OTP's %d\n", shapes[i].name, spent,
                    shapes[i].units * 500);
        CU_ASSERT_EQUAL(spent, shapes[i].units * 500);
    }
    heap_destroy(&p->heap);
    free(p);
    heap_destroy(&h);
}

static CU_TestInfo tests[] = {
    {"long lists span many slices, same results", test_portioned_results},
    {"errors after portions", test_portioned_errors},
    {"ended in the middle of a portion", test_ended_mid_portion},
    {"conversions span many slices, same results", test_portioned_conversions},
    {"conversion errors after portions", test_conversion_errors},
    {"conversions ended in the middle of a portion", test_conversions_ended_mid_portion},
    {"term_to_binary spans many slices, same bytes", test_external_portions},
    {"term_to_binary errors after portions", test_external_errors},
    {"term_to_binary ended in the middle of a portion", test_external_ended_mid_portion},
    {"external_size spans many slices, same size", test_external_size_portions},
    {"binary_to_term spans many slices, same term", test_decode_portions},
    {"binary_to_term errors after portions", test_decode_errors},
    {"binary_to_term ended in the middle of a portion", test_decode_ended_mid_portion},
    {"phash2 spans many slices, same hash", test_phash2_portions},
    {"phash2 ended in the middle of a portion", test_phash2_ended_mid_portion},
    {"maps:keys/values/to_list span many slices, same lists", test_maps_portions},
    {"maps:values ended in the middle of a portion", test_maps_ended_mid_portion},
    {"maps:next batches: linear, in OTP's order", test_map_iterator_batches},
    {"maps:from_list/from_keys span many slices, same maps", test_from_list_portions},
    {"maps:from_list with colliding keys", test_from_list_collisions},
    {"maps:from_list/from_keys errors after portions", test_from_list_errors},
    {"maps:from_list ended in the middle of a portion", test_from_list_ended_mid_portion},
    {"unicode conversions span many slices, same results", test_unicode_portions},
    {"unicode errors and incomplete input after portions", test_unicode_errors},
    {"unicode conversions in the smallest portions", test_unicode_smallest_portions},
    {"unicode conversions ended in the middle of a portion", test_unicode_ended_mid_portion},
    {"module binary spans many slices, same results", test_binary_module_portions},
    {"module binary in the smallest portions", test_binary_smallest_portions},
    {"module binary errors after portions", test_binary_module_errors},
    {"module binary ended in the middle of a portion", test_binary_module_ended_mid_portion},
    {"ETS walks span many slices, same results", test_ets_portions},
    {"ETS walks over a table changed between portions", test_ets_changed_between_portions},
    {"ETS walks: table deleted, process ended mid-walk", test_ets_deleted_or_ended_mid_walk},
    {"ets:insert/insert_new of long lists in portions", test_ets_insert_portions},
    {"ets:delete/1 and delete_all_objects free in portions", test_ets_delete_portions},
    {"re:run tries a long subject's positions a window a slice", test_re_portions},
    {"re:run's windows give one call's answers on random patterns", test_re_windows_random},
    {"each comprehension loop head spends a reduction", test_comprehension_loop_heads},
    {"iolist_size charges OTP's units", test_iolist_size_units},
    CU_TEST_INFO_NULL,
};

TEST_SUITE(portions, tests)
