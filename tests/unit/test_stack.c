/* A BEAM process's stack: grown by a deep recursion, given back when the
 * process parks using little of it, its live frames intact
 * (tests/beam/stack_park.erl, driven slice by slice as a host call). */
#include "rt/mailbox.h"
#include "rt/process.h"
#include "term/atom.h"
#include "term/compare.h"
#include "term/heap.h"
#include "test_main.h"
#include "test_support.h"

#define DEPTH 20000

/* Runs p's slices of 1,000 reductions until it stops otherwise than by
 * yielding; *most_words (when not NULL) gets the largest stack it had. */
static enum body_stop run_slices(struct process *p, size_t *most_words)
{
    enum body_stop stop;
    do {
        p->reds_left = 1000;
        stop = p->body->resume(p);
        if (most_words && p->stack_words > *most_words)
            *most_words = p->stack_words;
    } while (stop == BODY_YIELD);
    return stop;
}

static void test_a_parked_process_gives_its_grown_stack_back(void)
{
    term args[1] = {make_small(DEPTH)};
    struct test_beam_call call;
    test_beam_call_start(&call, "stack_park", "run", args, 1);
    struct process *p = call.p;
    size_t most_words = 0;
    enum body_stop stop = run_slices(p, &most_words);
    CU_ASSERT_FATAL(stop == BODY_WAIT);
    CU_ASSERT(most_words >= DEPTH); /* the recursion grew it */
    /* Parked in park/2 with two small frames: the inline stack again. */
    CU_ASSERT_PTR_EQUAL(p->stack, p->stack_inline);
    CU_ASSERT(proc_stack_in_use(p) > 0);
    CU_ASSERT_FATAL(mailbox_deliver(&p->mailbox, make_small(7)));
    CU_ASSERT_FATAL(run_slices(p, NULL) == BODY_EXIT);
    /* {DEPTH, [DEPTH, DEPTH + 1], 7}: the frames it parked with, moved. */
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term list = heap_cons(&h, make_small(DEPTH), heap_cons(&h, make_small(DEPTH + 1), NIL));
    term elems[3] = {make_small(DEPTH), list, make_small(7)};
    term want = heap_tuple(&h, 3, elems);
    CU_ASSERT(is_value(call.host.value) && is_non_value(call.host.class));
    CU_ASSERT(is_value(call.host.value) && term_eq_exact(call.host.value, want));
    heap_destroy(&h);
    test_beam_call_end(&call);
}

/* call_fun/call_fun2 followed by deallocate and return (the compiler's
 * code for a fun called last) is a last call: the frame goes before the
 * fun runs, and a loop of DEPTH such calls never grows the stack. */
static void test_a_fun_called_last_keeps_the_stack_flat(void)
{
    term args[1] = {make_small(DEPTH)};
    struct test_beam_call call;
    test_beam_call_start(&call, "fun_tail", "run", args, 1);
    struct process *p = call.p;
    size_t most_words = 0;
    enum body_stop stop = run_slices(p, &most_words);
    CU_ASSERT_FATAL(stop == BODY_EXIT);
    CU_ASSERT_PTR_EQUAL(p->stack, p->stack_inline); /* never grown */
    CU_ASSERT(most_words < 1000);
    CU_ASSERT(is_value(call.host.value) && call.host.value == atom_intern_cstr("done"));
    test_beam_call_end(&call);
}

static CU_TestInfo tests[] = {
    {"a parked process gives its grown stack back", test_a_parked_process_gives_its_grown_stack_back},
    {"a fun called last keeps the stack flat", test_a_fun_called_last_keeps_the_stack_flat},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(stack, tests)
