/*
 * match_spec.h — match specifications ([{Head, Guards, Body}]) in OTP's
 * table dialect, as ets's select functions, ets:match_spec_compile/1 and
 * erlang:match_spec_test/3 use them, run against one term at a time.
 *
 * Heads are any term, with '_' (anything) and '$N' variables (0 <= N <
 * 256 here; bound once, then compared with =:=). Guards and bodies are
 * expressions: '$N' (bound by the head), '$_' (the whole term), '$$' (the
 * bindings in order), {const, T}, {{E, ...}} (a tuple built from
 * expressions), lists of expressions, maps whose values are expressions,
 * constants, the special forms and,
 * or, andalso, orelse and self, and calls {F, Args...} of the guard
 * functions OTP 25 allows there (is_atom, element, '+', ...), which the
 * caller runs (struct ms_run). Compile checks all of it as OTP's compiler
 * does, refusing unknown functions and unbound variables. A guard that
 * raises is false; a body that raises gives 'EXIT'. The spec term is read
 * in place: it must stay where it is (no collection) while the compiled
 * form is used.
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

/* What compile finds wrong with spec, as erlang:match_spec_test/3 reports
 * it: a list on h of {error, String} in OTP's words, oldest first; [] for
 * a spec compile accepts. THE_NON_VALUE when h refused. */
term match_spec_errors(term spec, heap_t *h);

/* What a run needs from its caller: the heap results are built on, what
 * self() gives, and call, which runs guard function function/arity (a
 * builtin of module erlang) on args: its value, or THE_NON_VALUE when it
 * raised (and *nomem set when that was the heap refusing memory). */
struct ms_run {
    heap_t *h;
    term self;
    term (*call)(void *context, term function, unsigned arity, const term *args, bool *nomem);
    void *context;
};

/* Runs ms on t: the first clause whose head matches and whose guards hold
 * gives *out, its body's last value, built on run->h; with copy, a full
 * copy (t itself may live elsewhere, as an ETS table's objects do);
 * without, it may share t's words. */
enum ms_status match_spec_run(const struct match_spec *ms, term t, const struct ms_run *run, bool copy, term *out);

/* When ms has one clause whose head is a tuple with a constant (no
 * variable, no '_') at position keypos: that element; else THE_NON_VALUE. */
term match_spec_bound_key(const struct match_spec *ms, unsigned keypos);

/* Whether every clause's body gives back an object with the key its head
 * matched (ets:select_replace/2's rule, checked on the spec's text as
 * OTP does): the body is ['$_'], or one tuple, built ({{...}}) or constant
 * ({const, T}), whose element keypos is the head's key written the same
 * way or {element, keypos, '$_'}. */
bool match_spec_keeps_key(const struct match_spec *ms, unsigned keypos);

#endif
