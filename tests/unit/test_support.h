/*
 * test_support.h — helpers the tests share: reading the hex fields of the
 * files tests/gen/ writes, whole data files, resident pages, calling
 * builtins on a bare process and BEAM functions as host calls.
 */
#ifndef CLAUSE_TEST_SUPPORT_H
#define CLAUSE_TEST_SUPPORT_H

#include "rt/process.h"
#include "term/heap.h"

#include <stddef.h>
#include <stdint.h>

/* The bytes of hex text s[0..n) (either case), stopping at the first
 * character that is not a hex digit, in a fresh NUL-terminated buffer the
 * caller frees; *len gets their count. */
uint8_t *test_unhex(const char *s, size_t n, size_t *len);

/* The term whose term_to_binary hex is s[0..n), decoded onto h; the current
 * test fails (fatally) when it cannot be decoded. */
term test_term_from_hex(heap_t *h, const char *s, size_t n);

/* A whole file in a malloc'd buffer (*size its length), or NULL. */
uint8_t *read_whole_file(const char *path, size_t *size);

/* A process with a heap and nothing else, all a pure builtin needs (the
 * atom table and the builtins' registry initialised); freed with
 * test_bif_process_free. */
struct process *test_bif_process_new(void);
void test_bif_process_free(struct process *p);
/* The builtin module:function/arity on args (the test fails fatally when
 * there is none); THE_NON_VALUE with p's fault set when it raised. */
term test_bif_call(struct process *p, const char *module, const char *function, unsigned arity, const term *args);

/* How many of the whole pages inside [lo, hi) are resident (mincore); the
 * current test fails (fatally) when the range is not all mapped. */
size_t test_resident_pages(uintptr_t lo, uintptr_t hi);

/* module:function(args) of the test modules (tests/data/beam) as a host
 * call on a one-worker executor whose workers never start: the test drives
 * p's slices by hand (p->body->resume) and reads what it returned or raised
 * in host. The current test fails (fatally) when it cannot be set up. */
struct test_beam_call {
    struct code_server *cs;
    struct sched *s;
    struct process *p;
    struct host_outcome host;
};
void test_beam_call_start(struct test_beam_call *c, const char *module, const char *function, const term *args,
                          unsigned arity);
void test_beam_call_end(struct test_beam_call *c);

#endif
