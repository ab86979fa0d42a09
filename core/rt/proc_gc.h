/*
 * proc_gc.h — collecting a process's heap at a safepoint.
 *
 * The collector (gc.h) takes explicit roots; this gathers a process's own:
 * the registers its body passes, its stack (from stack_top up: code
 * pointers and catch markers there are left alone), and every message in
 * its mailbox until a receive takes it (the seed's "every message is a
 * collection root of its receiver"), and its process dictionary.
 * Runs on the process's worker while it runs.
 */
#ifndef CLAUSE_PROC_GC_H
#define CLAUSE_PROC_GC_H

#include "rt/process.h"

/* Collects p's heap with `need` free words after it; registers[0..count)
 * are rewritten in place. HEAP_OK, or the failure (the heap and every root
 * unchanged), which the caller turns into a runtime failure. */
enum heap_failure proc_collect(struct process *p, size_t need, term *registers, size_t count);

#endif
