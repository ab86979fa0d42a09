/*
 * match_spec.h — match specifications ([{Head, Guards, Body}]), as
 * ets:select/2 and ets:fun2ms/1 use them, run against one term at a time.
 *
 * Heads are patterns with '_' (anything) and '$N' variables (N >= 0;
 * bound once, then compared with =:=), tuples, lists and constants.
 * Guards and bodies are expressions: '$N', '$_' (the whole term), '$$'
 * (the bindings in order), {const, T}, {{E, ...}} (a tuple built from
 * expressions), lists of expressions, constants, and calls {F, Args...}:
 * the type tests (is_atom, is_integer, ...), comparisons, and, or, not,
 * xor, andalso, orelse, integer + - * div rem, abs, element, hd, tl,
 * length, tuple_size and self. A guard that raises is false. The spec
 * term is read in place: it must stay where it is (no collection) while
 * the compiled form is used.
 */
#ifndef CLAUSE_MATCH_SPEC_H
#define CLAUSE_MATCH_SPEC_H

#include "term/heap.h"
#include "term/term.h"

#include <stdbool.h>

struct match_spec;

enum ms_status {
    MS_OK,      /* compiled; or matched, *out the body's value */
    MS_NOMATCH, /* no clause matched (run only) */
    MS_BAD,     /* not a valid match specification (compile only) */
    MS_NOMEM,   /* the host or the heap refused memory */
};

/* Checks spec and prepares it; *out to free with match_spec_free. */
enum ms_status match_spec_compile(term spec, struct match_spec **out);
void match_spec_free(struct match_spec *ms);

/* Runs ms on t: the first clause whose head matches and whose guards hold
 * gives *out, its body's last value, built on h; with copy, a full copy
 * on h (t itself may live elsewhere, as an ETS table's objects do);
 * without, it may share t's words (enough to test it against true). self
 * is what self() gives. */
enum ms_status match_spec_run(const struct match_spec *ms, term t, heap_t *h, term self, bool copy, term *out);

/* When ms has one clause whose head is a tuple with a constant (no
 * variable, no '_') at position keypos: that element; else THE_NON_VALUE. */
term match_spec_bound_key(const struct match_spec *ms, unsigned keypos);

#endif
