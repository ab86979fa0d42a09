/* A BEAM process's stack: grown by a deep recursion, given back when the
 * process parks using little of it, its live frames intact
 * (tests/beam/stack_park.erl, driven slice by slice as a host call); and
 * the memory a process's requested collection gives back. */
#include "rt/mailbox.h"
#include "rt/proc_gc.h"
#include "rt/process.h"
#include "term/atom.h"
#include "term/compare.h"
#include "term/heap.h"
#include "test_main.h"
#include "test_support.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* stack_park's run to DEPTH frames, the largest stack it had in
 * *most_words: parked with its frames intact and its inline stack back. */
static void park_after_recursion(int64_t depth, size_t *most_words)
{
    term args[1] = {make_small(depth)};
    struct test_beam_call call;
    test_beam_call_start(&call, "stack_park", "run", args, 1);
    struct process *p = call.p;
    enum body_stop stop = run_slices(p, most_words);
    CU_ASSERT_FATAL(stop == BODY_WAIT);
    CU_ASSERT(*most_words >= (size_t)depth); /* the recursion grew it */
    /* Parked in park/2 with two small frames: the inline stack again. */
    CU_ASSERT_PTR_EQUAL(p->stack, p->stack_inline);
    CU_ASSERT(proc_stack_in_use(p) > 0);
    CU_ASSERT_FATAL(mailbox_deliver(&p->mailbox, make_small(7)));
    CU_ASSERT_FATAL(run_slices(p, NULL) == BODY_EXIT);
    /* {DEPTH, [DEPTH, DEPTH + 1], 7}: the frames it parked with, moved. */
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    term list = heap_cons(&h, make_small(depth), heap_cons(&h, make_small(depth + 1), NIL));
    term elems[3] = {make_small(depth), list, make_small(7)};
    term want = heap_tuple(&h, 3, elems);
    CU_ASSERT(is_value(call.host.value) && is_non_value(call.host.class));
    CU_ASSERT(is_value(call.host.value) && term_eq_exact(call.host.value, want));
    heap_destroy(&h);
    test_beam_call_end(&call);
}

static void test_a_parked_process_gives_its_grown_stack_back(void)
{
    size_t most_words = 0;
    park_after_recursion(DEPTH, &most_words);
}

/* A recursion past HEAP_BIG_BLOCK_BYTES of stack grows into mappings of
 * their own: the frames survive each move, and the last mapping is given
 * back as the process parks. */
static void test_a_stack_of_megabytes(void)
{
    size_t most_words = 0;
    park_after_recursion(40 * DEPTH, &most_words);
    CU_ASSERT(most_words * sizeof(term) > HEAP_BIG_BLOCK_BYTES);
}

/* proc_stack_alloc: a stack of HEAP_BIG_BLOCK_BYTES or more is a mapping,
 * none of it resident until written, and unmapped when freed. */
static void test_big_stacks_are_mappings(void)
{
    mallopt(M_MMAP_THRESHOLD, 128 << 20); /* as the executor sets it: malloc would not map a stack */
    size_t words = HEAP_BIG_BLOCK_BYTES / sizeof(term), page = (size_t)sysconf(_SC_PAGESIZE);
    term *stack = proc_stack_alloc(words);
    CU_ASSERT_FATAL(stack != NULL);
    CU_ASSERT_EQUAL((uintptr_t)stack % page, 0);
    stack[words - 1] = NIL; /* a stack grows down from its end */
    size_t in = test_resident_pages((uintptr_t)stack, (uintptr_t)(stack + words));
    CU_ASSERT(in >= 1 && in <= HEAP_HUGE_PAGE_BYTES / page); /* its last page (or huge page) */
    proc_stack_free(stack, words);
    unsigned char resident;
    CU_ASSERT_EQUAL(mincore(stack, page, &resident), -1);
    CU_ASSERT_EQUAL(errno, ENOMEM);
    term *small = proc_stack_alloc(1024);
    CU_ASSERT_FATAL(small != NULL);
    small[1023] = NIL;
    proc_stack_free(small, 1024);
}

/* A process's requested collection (erlang:garbage_collect/0) gives the
 * runtime's free memory back to the system (heap_return_free_memory). */
static void test_a_requested_collection_returns_memory(void)
{
    heap_return_free_memory(UINT64_MAX / 4); /* a clock ahead of the real one: the next call is not too soon */
    uint64_t returns = heap_free_memory_returns();
    term args[1] = {make_small(1000)};
    struct test_beam_call call;
    test_beam_call_start(&call, "gc_request", "run", args, 1);
    CU_ASSERT_FATAL(run_slices(call.p, NULL) == BODY_EXIT);
    CU_ASSERT(is_value(call.host.value) && call.host.value == make_small(1000));
    CU_ASSERT_EQUAL(heap_free_memory_returns(), returns + 1);
    test_beam_call_end(&call);
}

/* A requested collection of a process holding megabytes gives the free
 * part of its new block back (heap_release_free_span): parked after it,
 * the process has almost none of that part resident, though the block is
 * one of the big-block cache's, written end to end before; and the list it
 * holds is intact. */
static void test_a_requested_collection_releases_the_free_part(void)
{
    enum { N = 1000000 };
    heap_return_free_memory(UINT64_MAX / 4); /* a clock ahead of the real one: the next call is not too soon */
    /* Warm blocks of every size the collection might take. */
    for (size_t mib = 4; mib <= 64; mib += 2) {
        size_t words = (mib << 20) / sizeof(term);
        term *block = heap_block_alloc(words);
        CU_ASSERT_FATAL(block != NULL);
        for (size_t i = 0; i < words; i += 512)
            block[i] = NIL;
        heap_block_free(block, words);
    }
    term args[1] = {make_small(N)};
    struct test_beam_call call;
    test_beam_call_start(&call, "gc_request", "hold", args, 1);
    struct process *p = call.p;
    CU_ASSERT_FATAL(run_slices(p, NULL) == BODY_WAIT);
    uintptr_t lo, hi;
    CU_ASSERT_FATAL(heap_free_span(&p->heap, &lo, &hi));
    CU_ASSERT(test_resident_pages(lo, hi) <= 16);
    CU_ASSERT_FATAL(mailbox_deliver(&p->mailbox, make_small(7)));
    CU_ASSERT_FATAL(run_slices(p, NULL) == BODY_EXIT);
    term elems[2] = {make_small(7), make_small(N)};
    heap_t h;
    CU_ASSERT_FATAL(heap_init(&h, 0, 0));
    CU_ASSERT(is_value(call.host.value) && term_eq_exact(call.host.value, heap_tuple(&h, 2, elems)));
    heap_destroy(&h);
    test_beam_call_end(&call);
    heap_big_cache_drop();
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
    {"a stack of megabytes", test_a_stack_of_megabytes},
    {"big stacks are mappings of their own", test_big_stacks_are_mappings},
    {"a requested collection returns memory", test_a_requested_collection_returns_memory},
    {"a requested collection releases the free part", test_a_requested_collection_releases_the_free_part},
    {"a fun called last keeps the stack flat", test_a_fun_called_last_keeps_the_stack_flat},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(stack, tests)
