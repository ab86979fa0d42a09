/*
 * proc_gc.h — collecting a process's heap at a safepoint.
 *
 * The collector (gc.h) takes explicit roots; this gathers a process's own:
 * the registers its body passes, its stack (from stack_top up: code
 * pointers and catch markers there are left alone), and every message in
 * its mailbox until a receive takes it (the seed's "every message is a
 * collection root of its receiver"), and its process dictionary.
 * Runs on the process's worker while it runs, or on a collector thread
 * while the process's slice goes on there (BODY_COLLECT, collector.c).
 */
#ifndef CLAUSE_PROC_GC_H
#define CLAUSE_PROC_GC_H

#include "rt/process.h"

/* Collects p's heap with `need` free words after it; registers[0..count)
 * are rewritten in place. HEAP_OK, or the failure (the heap and every root
 * unchanged), which the caller turns into a runtime failure; but
 * HEAP_FAIL_MAX_HEAP_SIZE (the collection done) means p passed its
 * max_heap_size with kill set: the caller ends it with reason killed. */
enum heap_failure proc_collect(struct process *p, size_t need, term *registers, size_t count);

/* OTP's max_heap_size: past `size` words (0: no limit) a collection kills
 * the process (kill) and logs an error report (error_logger). OTP counts
 * both generations' blocks and the fragments; clause adds the stack, which
 * OTP's young block holds. */
struct proc_max_heap {
    size_t size;
    bool kill, error_logger;
};

/* OTP's largest size (its largest small integer). */
#define PROC_MAX_HEAP_SIZE_LIMIT (((size_t)1 << 59) - 1)

/* The default of processes spawned from now on (erlang:system_flag): no
 * limit, kill and error_logger at first. Thread-safe. */
struct proc_max_heap proc_max_heap_default(void);
void proc_set_max_heap_default(struct proc_max_heap m);

/* p's own (p itself, or under the executor mutex while p does not run). */
struct proc_max_heap proc_max_heap(const struct process *p);
/* Sets p's: p itself, or a process not yet started. False when the host
 * refused memory (nothing changed). */
bool proc_set_max_heap(struct process *p, struct proc_max_heap m);

/* OTP's ERTS_POTENTIALLY_LONG_GC_HSIZE: a collection estimated to move at
 * least this many words runs on a collector thread (a dirty CPU scheduler
 * on OTP) when the executor has them. */
#define PROC_LONG_GC_WORDS (128 * 1024)

/* Whether p's slice may go on on a collector thread: the executor runs
 * collectors (--gc-threads) and p is no host invocation's. */
bool proc_may_work_elsewhere(const struct process *p);

/* Whether a collection of p now, with `need` words free after it, should
 * go to a collector thread: the executor runs collectors (--gc-threads),
 * p is no host invocation's, and OTP's estimate (check_for_possibly_long_gc:
 * the young generation in use, fragments included, and the stack, and the
 * old generation too when the collection will be a full sweep) reaches
 * PROC_LONG_GC_WORDS. The body then saves its state (every root on its
 * stack), sets collect_need and returns BODY_COLLECT. */
bool proc_collect_elsewhere(const struct process *p, size_t need);

/* The collection a body asked for with BODY_COLLECT (on a collector, or on
 * the worker when there is none): collect_need words free after it, every
 * root on p's stack, dictionary and mailbox. Charges its cost to reds_left
 * (proc_collected_reds) and sets collected (enum proc_collected): the max_heap_size check
 * waits for the body's resume on p's worker (proc_collected_check). */
void proc_collect_saved(struct process *p);
/* On p's worker, after proc_collect_saved: HEAP_FAIL_MAX_HEAP_SIZE when p
 * passed its max_heap_size with kill set (the report logged first when
 * error_logger is), else HEAP_OK. */
enum heap_failure proc_collected_check(struct process *p);

/* ---- the stack's storage, once it outgrows the context's ----
 *
 * A stack of HEAP_BIG_BLOCK_BYTES or more (a deep recursion) is a mapping
 * of its own, not malloc's: only the pages the recursion touched become
 * resident, and freed (the process ends, or parks using little of it) it
 * goes back to the system at once, where malloc's arena would keep it
 * resident (rt/executor.c's trim threshold): a body-recursive
 * comprehension over 200,000 elements leaves 8 MB behind otherwise. */

/* Room for `words` stack words; NULL when the host refuses. */
term *proc_stack_alloc(size_t words);
/* Frees what proc_stack_alloc(words) returned. */
void proc_stack_free(term *stack, size_t words);

#endif
