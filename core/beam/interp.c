/*
 * interp.c — the BEAM engine's instruction loop (interp.h).
 *
 * Registers. x registers are a per-thread array (a process's live ones are
 * saved on its stack when it stops before a function entry); y registers
 * are slots of the current stack frame. The stack grows down from the end
 * of process.stack: a frame is [continuation pointer][y0][y1]..., and E
 * points at its first word, so y(N) is E[N + 1]. Code pointers on the stack
 * have primary tag 00 and catch markers are immediates, so the collector
 * leaves both alone and the stack is passed to it whole.
 *
 * Operands come pre-decoded (module.h): a source word is a register when
 * its two low bits are 00, a term otherwise.
 *
 * Exceptions. A builtin that fails records the exception in the process
 * (bif.h); the engine saves what its stack trace is built from (a raw
 * trace, below), then looks for the nearest catch marker on the stack. A
 * catch marker holds the address of its handler; the frame it sits in
 * begins at the nearest continuation pointer below it. The handler finds
 * x0 = THE_NON_VALUE, x1 = class, x2 = reason, x3 = the raw trace (see "raw
 * traces" below: the stack trace term is built only when asked for).
 */
#include "beam/interp.h"

#include "beam/bits.h"
#include "beam/loader.h"
#include "beam/opcodes.h"
#include "bif/bif.h"
#include "rt/error_report.h"
#include "rt/message.h"
#include "rt/node.h"
#include "rt/proc_dict.h"
#include "rt/proc_gc.h"
#include "term/atom.h"
#include "term/bignum.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/map.h"
#include "term/print.h"
#include "term/strbuf.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* OTP's default backtrace_depth. */
#define STACKTRACE_DEPTH 8

static _Thread_local term x_regs[BEAM_MAX_X + 8];

/* CLAUSE_GC_STRESS=1 collects at every point where BEAM may collect, so a
 * term pointer kept across one (a root the engine forgot) shows at once. */
static bool gc_stress;
static _Thread_local double f_regs[BEAM_MAX_FR];

/* Code the engine itself runs, one word each, in one array so that a stack
 * trace tells it from a module's code with one range test
 * (is_engine_code). Their opcode words are set when the table is built.
 *   normal_exit_code      the continuation of a process's first function
 *   spawn_start_code      the start of a spawned process (x0:x1(x2...))
 *   repeat_call_code      where a process resumes to repeat a builtin call
 *                         that blocked
 *   trap_resume_code      where it resumes to continue a builtin that
 *                         trapped (bif_trap)
 *   handover_return_code  where Erlang code that a builtin handed a tail
 *                         call to returns (call_handed_over): it pops the
 *                         frame kept for the caller */
static uint64_t engine_code[5];
#define normal_exit_code (engine_code + 0)
#define spawn_start_code (engine_code + 1)
#define repeat_call_code (engine_code + 2)
#define trap_resume_code (engine_code + 3)
#define handover_return_code (engine_code + 4)
/* beam_paused_call.how of a trapped gc_bif instruction (0..2 are call_how's). */
#define REPEAT_INSTRUCTION 3

/* A builtin call that goes on in a later slice: it trapped (did a portion
 * of its work; op_trap_resume runs its continuation) or blocked on a
 * running process (op_repeat_call repeats it). Most processes never make
 * one: it is made at a process's first (paused_call) and kept until the
 * process ends (release). */
struct beam_paused_call {
    const struct beam_export *target; /* the called builtin's export; a gc_bif's is its instruction's */
    const uint64_t *site;             /* the calling instruction */
    const uint64_t *after;            /* the call's call_after */
    uint32_t dealloc;                 /* stack words the call's frame gives back (an instruction's operand) */
    int how;                          /* call_how, or REPEAT_INSTRUCTION */
    bif_fn trap_fn;                   /* a trap's continuation */
    unsigned trap_arity;              /* its arguments, kept in x registers until it runs */
};

/* p's paused call, made at its first; NULL when the host refused the memory. */
static struct beam_paused_call *paused_call(struct process *p)
{
    if (!p->beam_paused)
        p->beam_paused = malloc(sizeof *p->beam_paused);
    return p->beam_paused;
}

static const void *const *handler_table;

/* ---- the stack ---- */

static inline term *stack_end(struct process *p) { return p->stack + p->stack_words; }

/* Makes room for `words` more words below E; returns the (moved) E, or
 * NULL when memory is refused. */
static term *grow_stack(struct process *p, term *E, size_t words)
{
    size_t used = (size_t)(stack_end(p) - E);
    size_t size = p->stack_words * 2;
    while (size < used + words + 16)
        size *= 2;
    if (size > UINT32_MAX) /* stack_words' limit: 32 GiB */
        return NULL;
    term *stack = proc_stack_alloc(size);
    if (!stack)
        return NULL;
    memcpy(stack + size - used, E, used * sizeof *stack);
    if (p->stack != p->stack_inline)
        proc_stack_free(p->stack, p->stack_words);
    p->stack = stack;
    p->stack_words = (uint32_t)size;
    return stack + size - used;
}

/* A process that parks using an eighth or less of a stack grown past
 * STACK_KEPT_WORDS gets one four times what it uses (at least
 * STACK_KEPT_WORDS), or its inline stack back when that holds it: a deep
 * recursion once (a body-recursive comprehension over 200,000 elements
 * grows 4 MB) would otherwise keep its stack for the process's life, as
 * OTP's collector shrinks a heap block that holds its stack. Parked, the
 * process's stack is all in p (stack_top), and its words hold no address
 * of the stack itself, so moving them is all it takes. */
#define STACK_KEPT_WORDS 1024

static void shrink_parked_stack(struct process *p)
{
    if (p->stack == p->stack_inline || p->stack_words <= STACK_KEPT_WORDS)
        return;
    size_t used = proc_stack_in_use(p);
    if (used > p->stack_words / 8)
        return;
    size_t size = used <= PROC_INLINE_STACK ? PROC_INLINE_STACK : 4 * used;
    if (size > PROC_INLINE_STACK && size < STACK_KEPT_WORDS)
        size = STACK_KEPT_WORDS;
    term *stack = size == PROC_INLINE_STACK ? p->stack_inline : proc_stack_alloc(size);
    if (!stack)
        return; /* keeps the large one */
    term *top = stack + size - used;
    memcpy(top, p->stack_top ? p->stack_top : stack_end(p), used * sizeof *stack);
    proc_stack_free(p->stack, p->stack_words);
    p->stack = stack;
    p->stack_words = (uint32_t)size;
    p->stack_top = top;
}

/* ---- finding code ---- */

/* The function whose code holds pc: its func_info operands. */
static bool function_of(const struct beam_module *m, const uint64_t *pc, term *function, unsigned *arity)
{
    const struct beam_function *f = beam_function_at(m, pc);
    if (!f)
        return false;
    *function = (term)f->entry[-2];
    *arity = (unsigned)f->entry[-1];
    return true;
}

/* ---- stack traces ---- */

/* [{file, F}, {line, L}]: the file item is the module's literal. */
static term location_of(heap_t *h, const struct beam_module *m, const uint64_t *pc)
{
    uint32_t file, line;
    if (!m || !beam_location_at(m, (size_t)(pc - m->code), &file, &line))
        return NIL;
    term line_pair = heap_tuple2(h, A(line), make_small(line));
    if (is_non_value(line_pair))
        return THE_NON_VALUE;
    term tail = heap_cons(h, line_pair, NIL);
    return is_non_value(tail) ? tail : heap_cons(h, m->files[file].file_item, tail);
}

/* {M, F, ArityOrArgs, Location} for code at pc; NIL when pc is in no
 * module (the engine's own code). */
/* The frame {M, F, A, Location} of the code at pc, built on h; NIL for
 * code of no module. */
static term frame_at(struct process *p, heap_t *h, const uint64_t *pc, term arity_or_args)
{
    const struct beam_module *m = code_module_of(sched_engine(p->sched), pc);
    term function;
    unsigned arity;
    if (!m || !function_of(m, pc, &function, &arity))
        return NIL;
    term location = location_of(h, m, pc);
    if (is_non_value(location))
        return THE_NON_VALUE;
    term elems[4] = {m->name, function, is_value(arity_or_args) ? arity_or_args : make_small(arity), location};
    return heap_tuple(h, 4, elems);
}

static term list_of_registers(heap_t *h, const term *x, unsigned n)
{
    term list = NIL;
    for (unsigned i = n; i-- > 0 && is_value(list);)
        list = heap_cons(h, x[i], list);
    return list;
}

/* The location of a builtin's own frame: OTP 25 names the module that
 * explains its errors (ERTS's for the modules ERTS implements), and the
 * cause when the builtin gave one; kernel's for os. */
static term bif_frame_location(heap_t *h, term module, term cause)
{
    bool erts = module == A(erlang) || module == A(persistent_term);
    term explainer = erts ? A(erl_erts_errors) : module == A(os) ? A(erl_kernel_errors) : A(erl_stdlib_errors);
    term keys[2] = {A(module), A(cause)}, values[2] = {explainer, cause};
    term info = map_from_pairs(h, keys, values, is_value(cause) ? 2 : 1);
    if (is_non_value(info))
        return info;
    term pair = heap_tuple2(h, A(error_info), info);
    term location = is_non_value(pair) ? pair : heap_cons(h, pair, NIL);
    /* io's output functions are Erlang on OTP: their frame has the place in
     * io.erl where o_request/2 raises a device's error (OTP 25's line 99),
     * which stack traces and crash reports print. */
    if (module == A(io) && is_value(location)) {
        term file = heap_string(h, "io.erl", 6);
        term items[2] = {is_value(file) ? heap_tuple2(h, A(file), file) : file,
                         heap_tuple2(h, A(line), make_small(99))};
        for (int i = 1; i >= 0 && is_value(location); i--)
            location = is_value(items[i]) ? heap_cons(h, items[i], location) : items[i];
    }
    return location;
}

/* The frame {M, F, A, Location} with {error_info, Info} after its
 * location's items (error/3's option). */
static term with_error_info(heap_t *h, term frame, term info)
{
    term pair = heap_tuple2(h, A(error_info), info);
    term location = is_value(pair) ? heap_cons(h, pair, NIL) : pair;
    term items[8];
    size_t n = 0;
    for (term l = tuple_element(frame, 4); is_list(l) && n < 8; l = list_tail(l))
        items[n++] = list_head(l);
    while (n > 0 && is_value(location))
        location = heap_cons(h, items[--n], location);
    if (is_non_value(location))
        return location;
    term elems[4] = {tuple_element(frame, 1), tuple_element(frame, 2), tuple_element(frame, 3), location};
    return heap_tuple(h, 4, elems);
}

static term class_atom(enum fault_class c)
{
    return c == FAULT_EXIT ? A(exit) : c == FAULT_THROW ? A(throw) : A(error);
}

static enum fault_class class_of_atom(term a)
{
    return a == A(exit) ? FAULT_EXIT : a == A(throw) ? FAULT_THROW : a == A(error) ? FAULT_ERROR : FAULT_NONE;
}

struct fault_site {
    const uint64_t *pc;          /* the instruction that raised */
    const struct bif_entry *bif; /* the builtin that raised, or NULL */
    const term *bif_args;        /* its arguments */
    bool function_clause;        /* raised by func_info: the frame shows x0.. */
    bool fun_call;               /* a fun call failed (badfun, badarity) */
    bool tail_call;              /* a tail call failed: the caller's frame is gone in OTP */
};

/* Code the engine itself runs rather than a module: no stack trace frame
 * shows it. Every code address a process holds (I, cp, a continuation on
 * its stack) is a module's or one of these. */
static inline bool is_engine_code(const uint64_t *pc)
{
    return (uintptr_t)pc - (uintptr_t)engine_code < sizeof engine_code;
}

/* The next continuation pointer on the stack at or above *w (advancing *w
 * past it), or NULL at the stack's end. */
static const uint64_t *next_continuation(term **w, term *end)
{
    for (; *w < end; (*w)++)
        if (is_header(**w) && **w)
            return (const uint64_t *)(uintptr_t) * (*w)++;
    return NULL;
}

/* The stack trace term on h: frames[0..n), then a frame per continuation
 * of p (cp, then each one saved on its stack from E on), at most
 * STACKTRACE_DEPTH in all. A return address equal to the one before it
 * shows once, as on OTP 25: a body recursion N deep is one frame for its
 * call site, not N. */
static term continuation_trace(struct process *p, heap_t *h, term *E, const uint64_t *cp, term *frames, unsigned n)
{
    const uint64_t *next = cp, *shown = NULL;
    term *end = stack_end(p), *w = E;
    while (n < STACKTRACE_DEPTH && next != normal_exit_code) {
        if (next && next != shown) {
            term f = frame_at(p, h, next - 1, THE_NON_VALUE);
            if (is_non_value(f))
                return f;
            if (f != NIL)
                frames[n++] = f;
            shown = next;
        }
        if (!(next = next_continuation(&w, end)))
            break;
    }
    return heap_list_from_array(h, frames, n);
}

term beam_current_stacktrace(struct process *p)
{
    term frames[STACKTRACE_DEPTH];
    unsigned n = 0;
    term top = frame_at(p, &p->heap, proc_bif_call.pc, THE_NON_VALUE);
    if (is_non_value(top))
        return top;
    if (top != NIL)
        frames[n++] = top;
    return continuation_trace(p, &p->heap, p->stack_top, proc_bif_call.cp, frames, n);
}

/* ---- raw traces ----
 * A raise records where it happened, not the stack trace term: most
 * handlers never look at the trace, and its frames (functions found by
 * address, locations, error_info maps) cost many times the raise itself.
 * As OTP does, the raise saves what the frames are built from, and the term
 * is built only when asked for: by build_stacktrace (catch C:R:St), by
 * catch's 'EXIT' value of an error, or when the exception ends the process.
 *
 * The raw trace (x3 in a handler, the operand of raise and raw_raise) is a
 * tuple on the process heap in one of two forms:
 *   {Class, Trace}           the trace is known: erlang:raise/3 gave it
 *   {Class, Pc, Extra, Cp...}
 * Pc is the raising instruction (0: no frame for it) and the Cps are the
 * return addresses whose frames follow, as many as the trace shows. Extra
 * is NIL for a plain raise (throw/1, error/1, exit/1, a badmatch...: 4 + n
 * words, n <= 8), else {Flags, Bif, BifArgs, TopArgs, Cause, Info,
 * Override}: the builtin whose own frame goes first (0: none) and its
 * argument list, the arguments the raising frame shows instead of its
 * arity, the cause in the builtin's error_info, error/3's error_info map,
 * an undef frame for the top, each present when Flags says so (NIL when
 * not). Addresses are kept as small integers: a code pointer has primary
 * tag 00, which no heap word may have, so the tuple is an ordinary term to
 * the collector and the copier. Only the engine makes raw traces and only
 * it reads them: Erlang code cannot get hold of one. */
enum { RAW_CLASS = 1, RAW_PC, RAW_EXTRA, RAW_FIXED = RAW_EXTRA /* elements before the Cps */ };
enum {
    EXTRA_FLAGS = 1,
    EXTRA_BIF,
    EXTRA_BIF_ARGS,
    EXTRA_TOP_ARGS,
    EXTRA_CAUSE,
    EXTRA_INFO,
    EXTRA_OVERRIDE,
    EXTRA_SIZE = 7
};
enum {
    RAW_HAS_TOP_ARGS = 1,
    RAW_HAS_CAUSE = 2,
    RAW_HAS_INFO = 4,
    RAW_HAS_OVERRIDE = 8,
    RAW_FUN_CALL = 16, /* the raising frame shows twice (a failed fun call) */
};

static inline term raw_address(const void *ptr) { return make_small((int64_t)(uintptr_t)ptr); }
static inline const void *raw_pointer(term t) { return (const void *)(uintptr_t)small_value(t); }

static term optional_term(term t, unsigned flag, unsigned *flags)
{
    if (is_non_value(t))
        return NIL;
    *flags |= flag;
    return t;
}

/* The raw trace's Extra for the exception p records at site: NIL when the
 * frames need nothing beyond the addresses. */
static term raw_extra(struct process *p, const struct fault_site *site, const struct bif_entry *bif, bool fun_call,
                      term override)
{
    if (!bif && !site->function_clause && !fun_call && is_non_value(proc_bif_call.fault_args) &&
        is_non_value(proc_bif_call.fault_cause) && is_non_value(proc_bif_call.fault_info) && is_non_value(override))
        return NIL;
    heap_t *h = &p->heap;
    unsigned flags = fun_call ? RAW_FUN_CALL : 0;
    term bif_args = NIL;
    if (bif && is_non_value(bif_args = list_of_registers(h, site->bif_args, bif->arity)))
        return bif_args;
    term top_args = proc_bif_call.fault_args;
    if (site->function_clause && is_non_value(top_args = list_of_registers(h, x_regs, (unsigned)site->pc[3])))
        return top_args;
    term e[EXTRA_SIZE];
    e[EXTRA_BIF - 1] = raw_address(bif);
    e[EXTRA_BIF_ARGS - 1] = bif_args;
    e[EXTRA_TOP_ARGS - 1] = optional_term(top_args, RAW_HAS_TOP_ARGS, &flags);
    e[EXTRA_CAUSE - 1] = optional_term(proc_bif_call.fault_cause, RAW_HAS_CAUSE, &flags);
    e[EXTRA_INFO - 1] = optional_term(proc_bif_call.fault_info, RAW_HAS_INFO, &flags);
    e[EXTRA_OVERRIDE - 1] = optional_term(override, RAW_HAS_OVERRIDE, &flags);
    e[EXTRA_FLAGS - 1] = make_small(flags);
    return heap_tuple(h, EXTRA_SIZE, e);
}

/* The raw trace of the exception p records (p->fault_*), raised at site
 * with the stack at E and continuation cp; THE_NON_VALUE when the heap
 * refuses it. A plain raise allocates the tuple alone. */
static term capture_raw_trace(struct process *p, const struct fault_site *site, term *E, const uint64_t *cp,
                              term override)
{
    heap_t *h = &p->heap;
    term class = class_atom((enum fault_class)p->fault_class);
    if (is_value(proc_bif_call.fault_trace)) {
        term trace = proc_bif_call.fault_trace;
        if (is_value(override))
            trace = heap_cons(h, override, trace);
        return is_non_value(trace) ? trace : heap_tuple2(h, class, trace);
    }
    const struct bif_entry *bif = site->bif && !(site->bif->flags & BIF_NO_FRAME) ? site->bif : NULL;
    const uint64_t *top = site->tail_call ? NULL : site->function_clause ? site->pc + 4 : site->pc;
    if (top && is_engine_code(top))
        top = NULL;
    bool fun_call = top && site->fun_call;
    unsigned shown = (bif != NULL) + (top != NULL) + fun_call;
    term extra = raw_extra(p, site, bif, fun_call, override);
    if (is_non_value(extra))
        return extra;
    /* The continuations whose frames the trace shows: the walk of
     * continuation_trace, without building the frames. */
    const uint64_t *cps[STACKTRACE_DEPTH];
    unsigned n = 0;
    const uint64_t *next = cp, *last = NULL;
    term *end = stack_end(p), *w = E;
    while (shown + n < STACKTRACE_DEPTH && next != normal_exit_code) {
        if (next && next != last) {
            if (!is_engine_code(next))
                cps[n++] = next;
            last = next;
        }
        if (!(next = next_continuation(&w, end)))
            break;
    }
    term *t = heap_alloc(h, 1 + RAW_FIXED + n);
    if (!t)
        return THE_NON_VALUE;
    t[0] = make_header(SUBTAG_TUPLE, RAW_FIXED + n);
    t[RAW_CLASS] = class;
    t[RAW_PC] = raw_address(top);
    t[RAW_EXTRA] = extra;
    for (unsigned i = 0; i < n; i++)
        t[1 + RAW_FIXED + i] = raw_address(cps[i]);
    return make_boxed(t);
}

/* The stack trace term of a raw trace, built on p's heap (NIL for anything
 * that is not a raw trace); THE_NON_VALUE when the heap refuses it. */
static term raw_trace_term(struct process *p, term raw)
{
    if (!is_tuple(raw) || tuple_arity(raw) < 2)
        return NIL;
    if (tuple_arity(raw) == 2)
        return tuple_element(raw, 2);
    heap_t *h = &p->heap;
    term frames[STACKTRACE_DEPTH];
    unsigned n = 0;
    term extra = tuple_element(raw, RAW_EXTRA);
    unsigned flags = 0;
    term args = THE_NON_VALUE;
    if (extra != NIL) {
        term *e = tuple_elements(extra) - 1; /* e[EXTRA_...] */
        flags = (unsigned)small_value(e[EXTRA_FLAGS]);
        if (flags & RAW_HAS_TOP_ARGS)
            args = e[EXTRA_TOP_ARGS];
        const struct bif_entry *bif = raw_pointer(e[EXTRA_BIF]);
        if (bif) {
            term location = bif_frame_location(h, bif->module, flags & RAW_HAS_CAUSE ? e[EXTRA_CAUSE] : THE_NON_VALUE);
            term elems[4] = {bif->module, bif->function, e[EXTRA_BIF_ARGS], location};
            if (is_non_value(location) || is_non_value(frames[n++] = heap_tuple(h, 4, elems)))
                return THE_NON_VALUE;
        }
    }
    const uint64_t *pc = raw_pointer(tuple_element(raw, RAW_PC));
    term top = pc ? frame_at(p, h, pc, args) : NIL;
    if (is_value(top) && top != NIL && (flags & RAW_HAS_INFO))
        top = with_error_info(h, top, tuple_element(extra, EXTRA_INFO));
    if (is_non_value(top))
        return top;
    if (top != NIL) {
        frames[n++] = top;
        /* OTP 25 has pushed the return address when a fun call fails, so
         * the caller shows twice. */
        if (flags & RAW_FUN_CALL)
            frames[n++] = top;
    }
    for (uint64_t i = RAW_FIXED + 1; i <= tuple_arity(raw) && n < STACKTRACE_DEPTH; i++) {
        const uint64_t *next = raw_pointer(tuple_element(raw, i));
        term f = frame_at(p, h, next - 1, THE_NON_VALUE);
        if (is_non_value(f))
            return f;
        if (f != NIL)
            frames[n++] = f;
    }
    term trace = heap_list_from_array(h, frames, n);
    if (is_value(trace) && (flags & RAW_HAS_OVERRIDE))
        trace = heap_cons(h, tuple_element(extra, EXTRA_OVERRIDE), trace);
    return trace;
}

term beam_stacktrace_of(struct process *self, struct process *q)
{
    if (q->body != &beam_body_ops || !q->beam_pc || !q->stack_top)
        return NIL; /* not started, or no Erlang code: nothing on its stack */
    /* A receive that waits with a timeout resumes at its wait_timeout;
     * OTP shows where either wait resumes, the receive's loop (operand 1). */
    const uint64_t *pc = q->beam_resume_timeout ? (const uint64_t *)(uintptr_t)q->beam_pc[1] : q->beam_pc;
    term frames[STACKTRACE_DEPTH];
    unsigned n = 0;
    term top = frame_at(q, &self->heap, pc, THE_NON_VALUE);
    if (is_non_value(top))
        return top;
    if (top != NIL)
        frames[n++] = top;
    return continuation_trace(q, &self->heap, q->stack_top, q->beam_cp, frames, n);
}

/* ---- errors ---- */

static term error_tuple(struct process *p, term tag, term value)
{
    term t = heap_tuple2(&p->heap, tag, value);
    return is_non_value(t) ? bif_out_of_memory(p) : bif_error(p, t);
}

/* ---- calls to exports and funs ---- */

/* How a call to an export or a fun resolves. */
enum call_kind {
    CALL_CODE,  /* jump to *code */
    CALL_BIF,   /* call *bif */
    CALL_APPLY, /* erlang:apply/2,3: the arguments name the real callee */
    CALL_FAULT, /* an exception is recorded */
};

static bool is_apply(const struct bif_entry *b) { return b->flags & BIF_APPLY; }

static enum call_kind resolve_export(struct process *p, struct beam_export *e, const uint64_t **code,
                                     const struct bif_entry **bif)
{
    if (e->bif) {
        *bif = e->bif;
        return is_apply(e->bif) ? CALL_APPLY : CALL_BIF;
    }
    if ((*code = code_export_entry(e)))
        return CALL_CODE;
    /* undef: the frame shows the missing function with its arguments. */
    term args = list_of_registers(&p->heap, x_regs, e->arity);
    term elems[4] = {e->module, e->function, args, NIL};
    term frame = is_value(args) ? heap_tuple(&p->heap, 4, elems) : args;
    if (is_non_value(frame)) {
        bif_out_of_memory(p);
        return CALL_FAULT;
    }
    bif_error(p, A(undef));
    proc_bif_call.fault_args = frame; /* picked up by raise: an undef frame of its own */
    return CALL_FAULT;
}

/* apply(M, F, Args) with x0 = M, x1 = F, x2 = Args: moves the arguments
 * into x0.. and returns the export, or NULL with an exception recorded. */
static struct beam_export *prepare_apply(struct process *p, term module, term function, term args)
{
    int64_t n = bif_list_length(args);
    if (!is_atom(module) || !is_atom(function) || n < 0 || n > 255) {
        bif_badarg(p);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++, args = list_tail(args))
        x_regs[i] = list_head(args);
    struct beam_export *e = code_export(sched_engine(p->sched), module, function, (unsigned)n);
    if (!e)
        bif_out_of_memory(p);
    return e;
}

/* A send (!) that raised badarg: OTP's trace starts with erlang:send/2
 * and its arguments, as for a call of it (a name nobody holds, a
 * destination of no kind). Out of the engine's loop, as a raise's work. */
static __attribute__((noinline, cold)) void send_fault_site(struct process *p, struct fault_site *site, term *args,
                                                            const term *x)
{
    const struct beam_export *send = code_export(sched_engine(p->sched), A(erlang), A(send), 2);
    site->bif = send ? send->bif : NULL;
    args[0] = x[0];
    args[1] = x[1];
    site->bif_args = args;
}

/* A bs_create_bin at I that failed in a body: OTP 25's error_info for
 * its raise, #{cause => {Segment, Type, Error, Value}, function =>
 * format_bs_fail, module => erl_erts_errors}, Segment the instruction's own
 * number for the segment (proc_bif_call.fault_info; left out when the heap
 * refuses it). Out of the engine's loop: a raise's work, not a step's. */
static __attribute__((noinline, cold)) void bs_create_fault_info(struct process *p, const uint64_t *I,
                                                                 const struct bits_segment *segments, size_t count)
{
    struct bits_failure why;
    if (!bits_explain_failure(segments, count, &why))
        return;
    term cause[5] = {make_header(SUBTAG_TUPLE, 4), make_small((int64_t)I[7 + 6 * why.segment + 1]),
                     atom_intern_cstr(why.type), atom_intern_cstr(why.error), why.value};
    term keys[3] = {A(cause), atom_intern_cstr("function"), A(module)};
    term values[3] = {copy_to_heap(&p->heap, make_boxed(cause)), atom_intern_cstr("format_bs_fail"),
                      A(erl_erts_errors)};
    if (is_non_value(values[0]))
        return;
    term info = map_from_pairs(&p->heap, keys, values, 3);
    if (is_value(info))
        proc_bif_call.fault_info = info;
}

/* A new frame's y slots, [] until written; two a step (frames of more than
 * four slots, which the engine's prepared allocates leave to this: 5 % of
 * them, but the large ones of a float loop's functions). */
static inline void frame_slots_nil(term *first, uint64_t slots)
{
    term *slot = first, *end = first + slots;
    if (slots & 1)
        *slot++ = NIL;
    for (; slot < end; slot += 2) {
        slot[0] = NIL;
        slot[1] = NIL;
    }
}

/* A fun call with the fun f and `arity` arguments in x0.. that the engine's
 * own path (call_fun_value: a local fun of that arity) did not take: the
 * export an export fun of that arity calls, or NULL with an exception
 * recorded (badfun, badarity, or memory). */
static struct beam_export *export_fun_call(struct process *p, term f, unsigned arity)
{
    if (is_export(f)) {
        term *e = boxed_ptr(f);
        if ((unsigned)small_value(e[3]) == arity) {
            struct beam_export *export = code_export(sched_engine(p->sched), e[1], e[2], arity);
            if (!export)
                bif_out_of_memory(p);
            return export;
        }
    } else if (!is_local_fun(f)) {
        error_tuple(p, A(badfun), f);
        return NULL;
    }
    /* {badarity, {Fun, Args}} */
    term args = list_of_registers(&p->heap, x_regs, arity);
    term inner = is_value(args) ? heap_tuple2(&p->heap, f, args) : args;
    if (is_non_value(inner))
        bif_out_of_memory(p);
    else
        error_tuple(p, A(badarity), inner);
    return NULL;
}

/* OTP 25 (its JIT) raises from some arithmetic operators' instructions
 * without a frame for the operator: unary '+', '/' (its float path), '+'
 * with a small integer constant operand (X + 1, 1 + X: the increment it
 * emits) and '-' with one as its second (X - 1) — unless an operand is a
 * constant that is no number (X + a, "s" - X), which the JIT hands to the
 * builtin itself, frame and all. Everything else has the operator's frame
 * with its arguments: '+' and '-' on two registers (A + B), on a constant
 * bignum, 1 - X, and '*', div, rem, the bit operators, unary '-', as every
 * other builtin; checked on erl. operands: the instruction's operand
 * words, as many as the builtin's arity. */
static bool raises_without_frame(const struct beam_export *e, const uint64_t *operands)
{
    if (e->module != A(erlang))
        return false;
    for (unsigned i = 0; i < e->arity; i++)
        if (!beam_is_register(operands[i]) && !is_number((term)operands[i]))
            return false;
    bool small_constant[2] = {false, false};
    for (unsigned i = 0; i < e->arity && i < 2; i++)
        small_constant[i] = !beam_is_register(operands[i]) && is_small((term)operands[i]);
    if (e->arity == 1)
        return atom_text_is(e->function, "+");
    if (e->arity != 2)
        return false;
    if (atom_text_is(e->function, "/"))
        return true;
    if (atom_text_is(e->function, "+"))
        return small_constant[0] || small_constant[1];
    if (atom_text_is(e->function, "-"))
        return small_constant[1];
    return false;
}

/* The operators on two smalls' words, into *r when the result is a small
 * (OPERATOR_SHAPES' handlers). A small's word is its value times 16 plus
 * the tag, so the untagged words' product is 16 times the values' and
 * overflows 64 bits exactly when the values' does not fit a small; their
 * quotient is the values'; their remainder 16 times the values' (all
 * three truncating as C does, as Erlang's do). */
static inline bool small_times(term a, term b, term *r)
{
    int64_t product;
    if (__builtin_mul_overflow((int64_t)(a - TAG_IMMED1_SMALL), small_value(b), &product))
        return false;
    *r = (term)product | TAG_IMMED1_SMALL;
    return true;
}

static inline bool small_div(term a, term b, term *r)
{
    if (b == make_small(0))
        return false;
    /* The least small over -1 is the one quotient that is not a small. */
    int64_t quotient = (int64_t)(a - TAG_IMMED1_SMALL) / (int64_t)(b - TAG_IMMED1_SMALL);
    if (!small_fits(quotient))
        return false;
    *r = make_small(quotient);
    return true;
}

static inline bool small_rem(term a, term b, term *r)
{
    if (b == make_small(0))
        return false;
    *r = (term)((int64_t)(a - TAG_IMMED1_SMALL) % (int64_t)(b - TAG_IMMED1_SMALL)) + TAG_IMMED1_SMALL;
    return true;
}

/* The tags agree, and so do the words (bxor clears the tag, which goes
 * back). */
static inline bool small_band(term a, term b, term *r)
{
    *r = a & b;
    return true;
}

static inline bool small_bor(term a, term b, term *r)
{
    *r = a | b;
    return true;
}

static inline bool small_bxor(term a, term b, term *r)
{
    *r = (a ^ b) | TAG_IMMED1_SMALL;
    return true;
}

/* ---- the loop ---- */

#define BODY_FAULT 100 /* internal: handled below the loop */

static enum body_stop run(struct process *p);

static void init_handler_table(void)
{
    const char *stress = getenv("CLAUSE_GC_STRESS");
    gc_stress = stress && strcmp(stress, "1") == 0;
    run(NULL);
}

/* Handlers specialised for an instruction's operand shapes, chosen when a
 * module is prepared (beam_prepared_handler): each reads its operands
 * without testing their kinds, which the generic handlers do at every
 * execution (SRC, DST). Most take the generic handler's path for what
 * their shape does not cover (a sum that is not small, ...). The shapes are
 * the frequent ones in compiled code: x and y registers, constants. */
// clang-format off
#define SPECIAL_HANDLERS(S)                                                                                            \
    S(plus) S(plus_xc) S(plus_yc) S(plus_xx) S(plus_xy) S(plus_yx)                                                     \
    S(minus) S(minus_xc) S(minus_yc) S(minus_xx) S(minus_xy) S(minus_yx)                                               \
    S(times) S(band) S(bor) S(bxor) S(div) S(rem)                                                                      \
    S(move_xx) S(move_xy) S(move_yx) S(move_yy) S(move_cx) S(move_cy)                                                  \
    S(get_tuple_element_xx) S(get_tuple_element_xy) S(get_tuple_element_yx) S(get_tuple_element_yy)                    \
    S(get_list_xxx) S(get_list_xxy) S(get_list_xyy)                                                                    \
    S(is_eq_exact_xi) S(is_ne_exact_xi) S(is_eq_exact_yi)                                                              \
    S(is_lt_xc) S(is_lt_cx) S(is_ge_xc) S(is_ge_cx) S(is_lt_xx) S(is_ge_xx)                                            \
    S(test_arity_x) S(is_tuple_x) S(is_tagged_tuple_x) S(is_nonempty_list_x) S(is_nil_x) S(get_dictionary)            \
    S(fmove_ff) S(fmove_xf) S(fmove_yf) S(fmove_cf) S(fmove_fx) S(fmove_fy)                                            \
    S(select_val_immediate) S(bs_append_integers) S(bs_get_small) S(put_tuple2_registers)                            \
    S(deallocate_return) S(move_return) S(move_deallocate_return) S(is_lt_xc_return)                                  \
    S(move_xx_xx) S(move_xx_xy) S(move_xx_yx) S(move_xy_xx) S(move_xy_xy) S(move_xy_yx)                               \
    S(move_yx_xx) S(move_yx_xy) S(move_yx_yx) S(move_shift_call) S(allocate) S(allocate_0) S(allocate_1) S(allocate_2) \
    S(fmove_xf_xf) S(fmove_xf_yf) S(fmove_yf_xf) S(fmove_yf_yf)                                                        \
    S(get_tuple_element_xx_fmove) S(get_tuple_element_yx_fmove) S(allocate_3) S(allocate_4)                          \
    S(put_list_registers) S(put_list_register_constant) S(is_nonempty_list_get_list_xxx)                          \
    S(test_heap_put_list_registers) S(test_heap_fmove_fx) S(fmove_fx_fx) S(fmove_fy_fy) S(test_heap_fmove_fx_fx)    \
    FLOAT_PAIRS(S) FMOVE_FLOAT_OPS(S)                                                                                  \
    ARITH_THEN(S, allocate_shift_call) ARITH_THEN(S, shift_call) ARITH_THEN(S, deallocate_return)                    \
    BASE_CASE_THEN(S)                                                                                                  \
    OPERATOR_SHAPES(S, times) OPERATOR_SHAPES(S, band) OPERATOR_SHAPES(S, bor) OPERATOR_SHAPES(S, bxor)              \
    OPERATOR_SHAPES(S, div) OPERATOR_SHAPES(S, rem)
/* The other operators on smalls with a register result, in
 * operator_shapes' order: constants first are the compiler's for operators
 * that do not commute (N rem D with N known). */
#define OPERATOR_SHAPES(S, op) S(op##_xc) S(op##_yc) S(op##_xx) S(op##_xy) S(op##_yx) S(op##_cx)
/* A sum or difference of smalls in one of special_for's operand shapes
 * (plus_xc to plus_yx, then minus_xc to minus_yx), and what a body
 * recursion does next with it: a one-slot frame, its slot saved and a call
 * (fib(N - 1) + ...), the call alone (... + fib(N - 2)), or the return. */
#define ARITH_THEN(S, then)                                                                                            \
    S(plus_xc_##then) S(plus_yc_##then) S(plus_xx_##then) S(plus_xy_##then) S(plus_yx_##then)                         \
    S(minus_xc_##then) S(minus_yc_##then) S(minus_xx_##then) S(minus_xy_##then) S(minus_yx_##then)
/* is_lt_xc_return (a recursion's base case) whose failure goes on to the
 * instruction after its return, one of ARITH_THEN's allocate_shift_call
 * fusions (the recursive case's first step: fib(N - 1)), in their order:
 * the failed test reaches it by a direct jump, without a dispatch. */
#define BASE_CASE_WORDS 5 /* is_lt and return: the step's offset */
#define BASE_CASE_THEN(S)                                                                                              \
    S(base_case_plus_xc) S(base_case_plus_yc) S(base_case_plus_xx) S(base_case_plus_xy) S(base_case_plus_yx)          \
    S(base_case_minus_xc) S(base_case_minus_yc) S(base_case_minus_xx) S(base_case_minus_xy) S(base_case_minus_yx)
/* Two float operations in a row, the second taking the first's result as
 * its first operand (a) or its second (b): a*b*c, a + b*c. By first
 * operation, then second, in fadd, fsub, fmul, fdiv order (float_op_index). */
#define FLOAT_PAIRS_AFTER(S, first)                                                                                    \
    S(first##_fadd_a) S(first##_fadd_b) S(first##_fsub_a) S(first##_fsub_b)                                           \
    S(first##_fmul_a) S(first##_fmul_b) S(first##_fdiv_a) S(first##_fdiv_b)
#define FLOAT_PAIRS(S)                                                                                                 \
    FLOAT_PAIRS_AFTER(S, fadd) FLOAT_PAIRS_AFTER(S, fsub) FLOAT_PAIRS_AFTER(S, fmul) FLOAT_PAIRS_AFTER(S, fdiv)
/* A float unboxed into a float register from an x register or a constant,
 * then an operation taking it as its first operand (a) or its second (b):
 * by source, then operation in float_op_index's order. */
#define FMOVE_FLOAT_OPS_FROM(S, source)                                                                                \
    S(source##_fadd_a) S(source##_fadd_b) S(source##_fsub_a) S(source##_fsub_b)                                       \
    S(source##_fmul_a) S(source##_fmul_b) S(source##_fdiv_a) S(source##_fdiv_b)
#define FMOVE_FLOAT_OPS(S) FMOVE_FLOAT_OPS_FROM(S, fmove_xf) FMOVE_FLOAT_OPS_FROM(S, fmove_cf)
// clang-format on
enum special_handler {
#define SPECIAL_ENUM(name) SPECIAL_##name,
    SPECIAL_HANDLERS(SPECIAL_ENUM)
#undef SPECIAL_ENUM
        SPECIAL_COUNT
};
static const void *const *special_handlers;

/* An operand's shape: 'x' or 'y' register, 'f' float register, 'i' an
 * immediate term, 'c' any other term (a literal). */
static char operand_shape(uint64_t w)
{
    if (beam_is_register(w)) {
        unsigned kind = beam_register_kind(w);
        return kind == BEAM_REG_X ? 'x' : kind == BEAM_REG_Y ? 'y' : 'f';
    }
    return is_immed((term)w) ? 'i' : 'c';
}

/* Shapes as two or three letters, constants of either kind as 'c'. */
static bool shapes_are(const char *want, const uint64_t *operands)
{
    for (unsigned i = 0; want[i]; i++) {
        char have = operand_shape(operands[i]);
        if (have != want[i] && !(want[i] == 'c' && have == 'i'))
            return false;
    }
    return true;
}

static bool is_erlang_function(const struct beam_export *e, const char *function, unsigned arity)
{
    size_t len;
    const char *name = atom_text(e->function, &len);
    return e->module == A(erlang) && e->arity == arity && len == strlen(function) && memcmp(name, function, len) == 0;
}

static bool is_erlang_operator(const struct beam_export *e, const char *op) { return is_erlang_function(e, op, 2); }

/* The opcode of the instruction after instr (unprepared, as the code
 * server prepares in order), or 0 when it is past end or end is NULL. */
static unsigned next_opcode(const uint64_t *instr, const uint64_t *end, const uint64_t **next)
{
    if (!end)
        return 0;
    *next = instr + beam_instruction_words(instr);
    return *next < end ? (unsigned)**next : 0;
}

/* fadd, fsub, fmul, fdiv as 0 to 3 (FLOAT_PAIRS' order), else -1. */
static int float_op_index(unsigned op)
{
    switch (op) {
    case BEAM_OP_fadd:
        return 0;
    case BEAM_OP_fsub:
        return 1;
    case BEAM_OP_fmul:
        return 2;
    case BEAM_OP_fdiv:
        return 3;
    default:
        return -1;
    }
}

static int special_for(const uint64_t *instr, unsigned op, const uint64_t *end);

/* gc_bif2's operand shapes with handlers of their own, in their order
 * (ARITH_THEN's, OPERATOR_SHAPES'): into an x register, from registers or
 * a register and a small constant. A constant first only where the operator
 * does not commute (N rem D with N known): the compiler puts it second
 * otherwise, so sums and differences have the first five alone. */
static const char *const operand_shapes[] = {"xcx", "ycx", "xxx", "xyx", "yxx", "cxx"};

/* The index in operand_shapes, among its first `count`, of instr's
 * operands; -1 when none fits. A constant must be a small, and a divisor
 * (`divides`) other than 0, which takes the builtin's error. */
static int operand_shape_index(const uint64_t *instr, int count, bool divides)
{
    for (int j = 0; j < count; j++) {
        const char *shape = operand_shapes[j];
        term constant = shape[0] == 'c' ? (term)instr[4] : (term)instr[5];
        if (shapes_are(shape, instr + 4) &&
            (strchr(shape, 'c') == NULL ||
             (is_small(constant) && !(divides && shape[1] == 'c' && constant == make_small(0)))))
            return j;
    }
    return -1;
}

/* gc_bif2's special handler (erlang's arithmetic operators), or -1. */
static int arith_special(const uint64_t *instr)
{
    const struct beam_export *e = (const struct beam_export *)(uintptr_t)instr[3];
    static const struct {
        const char *name;
        int special;
    } others[] = {{"*", SPECIAL_times},   {"band", SPECIAL_band}, {"bor", SPECIAL_bor},
                  {"bxor", SPECIAL_bxor}, {"div", SPECIAL_div},   {"rem", SPECIAL_rem}};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        if (!is_erlang_operator(e, others[i].name))
            continue;
        bool divides = others[i].special == SPECIAL_div || others[i].special == SPECIAL_rem;
        int shape = operand_shape_index(instr, 6, divides);
        /* others' order is SPECIAL_HANDLERS' */
        return shape < 0 ? others[i].special : SPECIAL_times_xc + 6 * (int)i + shape;
    }
    bool plus = is_erlang_operator(e, "+");
    if (!plus && !is_erlang_operator(e, "-"))
        return -1;
    int shape = operand_shape_index(instr, 5, false);
    if (shape >= 0)
        return (plus ? SPECIAL_plus_xc : SPECIAL_minus_xc) + shape;
    return plus ? SPECIAL_plus : SPECIAL_minus;
}

/* A gc_bif2's place in ARITH_THEN's order (0 to 9), or -1 when it is not
 * a sum or difference in one of the shapes. */
static int arith_shape_index(const uint64_t *instr)
{
    int special = arith_special(instr);
    if (special >= SPECIAL_plus_xc && special <= SPECIAL_plus_yx)
        return special - SPECIAL_plus_xc;
    if (special >= SPECIAL_minus_xc && special <= SPECIAL_minus_yx)
        return 5 + special - SPECIAL_minus_xc;
    return -1;
}

/* Pairs and triples fused into the first instruction's handler, as OTP's
 * loader fuses them: the later instructions keep their own handlers for
 * whatever jumps to them. */
static int fused_for(const uint64_t *instr, unsigned op, const uint64_t *end)
{
    const uint64_t *next = NULL, *after = NULL;
    unsigned next_op = next_opcode(instr, end, &next);
    int arith = op == BEAM_OP_gc_bif2 && next_op ? arith_shape_index(instr) : -1;
    if (arith >= 0) {
        unsigned after_op = next_opcode(next, end, &after);
        if (next_op == BEAM_OP_deallocate && after_op == BEAM_OP_return)
            return SPECIAL_plus_xc_deallocate_return + arith;
        /* The shift's second move takes the result (operands: fail, live,
         * bif, a, b, result), whose own register the call leaves dead (past
         * its arity): it is not written. */
        if (next_op == BEAM_OP_move && fused_for(next, next_op, end) == SPECIAL_move_shift_call &&
            next[4] == instr[6] && beam_register_index(instr[6]) >= next[7])
            return SPECIAL_plus_xc_shift_call + arith;
        /* ... and the frame's one slot is the one its first move writes. */
        if ((next_op == BEAM_OP_allocate || next_op == BEAM_OP_allocate_zero) && next[1] == 1 &&
            after_op == BEAM_OP_move && fused_for(after, after_op, end) == SPECIAL_move_shift_call &&
            after[2] == beam_y(0) && after[4] == instr[6] && beam_register_index(instr[6]) >= after[7])
            return SPECIAL_plus_xc_allocate_shift_call + arith;
    }
    if (op == BEAM_OP_deallocate && next_op == BEAM_OP_return)
        return SPECIAL_deallocate_return;
    if (op == BEAM_OP_is_lt && next_op == BEAM_OP_return && shapes_are("xi", instr + 2) && is_small((term)instr[3])) {
        /* A recursion's base case: fib(N) when N < 2 -> N; and, where its
         * failure goes next, the recursive case's first step. */
        unsigned after_op = next_opcode(next, end, &after);
        int then =
            after_op == BEAM_OP_gc_bif2 && instr[1] == (uint64_t)(uintptr_t)after && after == instr + BASE_CASE_WORDS
                ? fused_for(after, after_op, end)
                : -1;
        if (then >= SPECIAL_plus_xc_allocate_shift_call && then <= SPECIAL_minus_yx_allocate_shift_call)
            return SPECIAL_base_case_plus_xc + (then - SPECIAL_plus_xc_allocate_shift_call);
        return SPECIAL_is_lt_xc_return;
    }
    if (op == BEAM_OP_move && instr[2] == beam_x(0)) {
        if (next_op == BEAM_OP_return)
            return SPECIAL_move_return;
        if (next_op == BEAM_OP_deallocate && next_opcode(next, end, &after) == BEAM_OP_return)
            return SPECIAL_move_deallocate_return;
    }
    if (op == BEAM_OP_is_nonempty_list && next_op == BEAM_OP_get_list && shapes_are("x", instr + 2) &&
        next[1] == instr[2] && shapes_are("xxx", next + 1))
        return SPECIAL_is_nonempty_list_get_list_xxx; /* a list function's clause head: [H | T] */
    if (op == BEAM_OP_test_heap && next_op == BEAM_OP_put_list &&
        special_for(next, next_op, NULL) == SPECIAL_put_list_registers)
        return SPECIAL_test_heap_put_list_registers; /* [H | T] built */
    if (float_op_index(op) >= 0 && float_op_index(next_op) >= 0) {
        /* The first's result (operands: fail, a, b, result) straight into
         * the second, not through its float register: a dependent chain's
         * store and reload, and a dispatch, fewer. */
        int later = next[2] == instr[4] ? 0 : next[3] == instr[4] ? 1 : -1;
        if (later >= 0)
            return SPECIAL_fadd_fadd_a + 8 * float_op_index(op) + 2 * float_op_index(next_op) + later;
    }
    if (op == BEAM_OP_fmove && float_op_index(next_op) >= 0 && fused_for(next, next_op, end) < 0 &&
        operand_shape(instr[2]) == 'f' && (operand_shape(instr[1]) == 'x' || operand_shape(instr[1]) == 'c')) {
        /* The unboxed value straight into the operation (unless that
         * operation fuses with the next, a dependent chain). */
        int later = next[2] == instr[2] ? 0 : next[3] == instr[2] ? 1 : -1;
        if (later >= 0)
            return (operand_shape(instr[1]) == 'x' ? SPECIAL_fmove_xf_fadd_a : SPECIAL_fmove_cf_fadd_a) +
                   2 * float_op_index(next_op) + later;
    }
    if (op == BEAM_OP_fmove && next_op == BEAM_OP_fmove && shapes_are("fx", instr + 1) && shapes_are("fx", next + 1))
        return SPECIAL_fmove_fx_fx; /* a block's float results boxed */
    if (op == BEAM_OP_fmove && next_op == BEAM_OP_fmove && shapes_are("fy", instr + 1) && shapes_are("fy", next + 1))
        return SPECIAL_fmove_fy_fy; /* ... or kept across a call */
    if (op == BEAM_OP_test_heap && next_op == BEAM_OP_fmove && shapes_are("fx", next + 1))
        return fused_for(next, next_op, end) == SPECIAL_fmove_fx_fx ? SPECIAL_test_heap_fmove_fx_fx
                                                                    : SPECIAL_test_heap_fmove_fx;
    if (op == BEAM_OP_fmove && next_op == BEAM_OP_fmove) {
        /* Two floats unboxed into float registers (the operands of an
         * arithmetic block). */
        static const char *const shapes[] = {"xf", "yf"};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                if (shapes_are(shapes[i], instr + 1) && shapes_are(shapes[j], next + 1))
                    return SPECIAL_fmove_xf_xf + 2 * i + j;
    }
    if (op == BEAM_OP_get_tuple_element && next_op == BEAM_OP_fmove && shapes_are("x", instr + 3) &&
        next[1] == instr[3] && shapes_are("f", next + 2)) {
        /* A float field taken out of a tuple, then unboxed. */
        if (shapes_are("x", instr + 1))
            return SPECIAL_get_tuple_element_xx_fmove;
        if (shapes_are("y", instr + 1))
            return SPECIAL_get_tuple_element_yx_fmove;
    }
    if (op == BEAM_OP_move && next_op == BEAM_OP_move) {
        /* Two moves between registers (OTP's move_shift, a frame's saved
         * registers): one dispatch. */
        static const char *const shapes[] = {"xx", "xy", "yx"};
        if (shapes_are("xy", instr + 1) && shapes_are("xx", next + 1) && next_opcode(next, end, &after) == BEAM_OP_call)
            return SPECIAL_move_shift_call;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                if (shapes_are(shapes[i], instr + 1) && shapes_are(shapes[j], next + 1))
                    return SPECIAL_move_xx_xx + 3 * i + j;
    }
    return -1;
}

/* The special handler for instr, or -1. */
static int special_for(const uint64_t *instr, unsigned op, const uint64_t *end)
{
    int fused = fused_for(instr, op, end);
    if (fused >= 0)
        return fused;
    switch (op) {
    case BEAM_OP_gc_bif2:
        return arith_special(instr);
    case BEAM_OP_bif1:
        /* get/1, the process dictionary's read: a loop's common guard-free
         * builtin, which cannot fail. */
        return is_erlang_function((const struct beam_export *)(uintptr_t)instr[2], "get", 1) ? SPECIAL_get_dictionary
                                                                                             : -1;
    case BEAM_OP_allocate:
    case BEAM_OP_allocate_zero:
        /* Frames of up to four slots (95 % of the allocates in the golden
         * programs) are written without a loop. */
        switch (instr[1]) {
        case 0:
            return SPECIAL_allocate_0;
        case 1:
            return SPECIAL_allocate_1;
        case 2:
            return SPECIAL_allocate_2;
        case 3:
            return SPECIAL_allocate_3;
        case 4:
            return SPECIAL_allocate_4;
        default:
            return SPECIAL_allocate;
        }
    case BEAM_OP_move: {
        static const char *const shapes[] = {"xx", "xy", "yx", "yy", "cx", "cy"};
        for (int i = 0; i < 6; i++)
            if (shapes_are(shapes[i], instr + 1))
                return SPECIAL_move_xx + i;
        return -1;
    }
    case BEAM_OP_get_tuple_element: {
        static const char *const shapes[] = {"x", "y"};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                if (shapes_are(shapes[i], instr + 1) && shapes_are(shapes[j], instr + 3))
                    return SPECIAL_get_tuple_element_xx + 2 * i + j;
        return -1;
    }
    case BEAM_OP_get_list:
        return shapes_are("xxx", instr + 1)   ? SPECIAL_get_list_xxx
               : shapes_are("xxy", instr + 1) ? SPECIAL_get_list_xxy
               : shapes_are("xyy", instr + 1) ? SPECIAL_get_list_xyy
                                              : -1;
    case BEAM_OP_is_eq_exact:
    case BEAM_OP_is_ne_exact: {
        /* An immediate equals exactly only the same word. */
        bool eq = op == BEAM_OP_is_eq_exact;
        if (operand_shape(instr[3]) != 'i')
            return -1;
        char a = operand_shape(instr[2]);
        return a == 'x'         ? (eq ? SPECIAL_is_eq_exact_xi : SPECIAL_is_ne_exact_xi)
               : a == 'y' && eq ? SPECIAL_is_eq_exact_yi
                                : -1;
    }
    case BEAM_OP_is_lt:
    case BEAM_OP_is_ge: {
        bool lt = op == BEAM_OP_is_lt;
        if (shapes_are("xx", instr + 2))
            return lt ? SPECIAL_is_lt_xx : SPECIAL_is_ge_xx;
        if (shapes_are("xi", instr + 2) && is_small((term)instr[3]))
            return lt ? SPECIAL_is_lt_xc : SPECIAL_is_ge_xc;
        if (shapes_are("ix", instr + 2) && is_small((term)instr[2]))
            return lt ? SPECIAL_is_lt_cx : SPECIAL_is_ge_cx;
        return -1;
    }
    case BEAM_OP_test_arity:
        return operand_shape(instr[2]) == 'x' ? SPECIAL_test_arity_x : -1;
    case BEAM_OP_is_tuple:
        return operand_shape(instr[2]) == 'x' ? SPECIAL_is_tuple_x : -1;
    case BEAM_OP_is_tagged_tuple:
        return operand_shape(instr[2]) == 'x' ? SPECIAL_is_tagged_tuple_x : -1;
    case BEAM_OP_is_nonempty_list:
        return operand_shape(instr[2]) == 'x' ? SPECIAL_is_nonempty_list_x : -1;
    case BEAM_OP_is_nil:
        return operand_shape(instr[2]) == 'x' ? SPECIAL_is_nil_x : -1;
    case BEAM_OP_fmove: {
        char s = operand_shape(instr[1]), d = operand_shape(instr[2]);
        if (s == 'f')
            return d == 'f' ? SPECIAL_fmove_ff : d == 'x' ? SPECIAL_fmove_fx : SPECIAL_fmove_fy;
        return s == 'x' ? SPECIAL_fmove_xf : s == 'y' ? SPECIAL_fmove_yf : SPECIAL_fmove_cf;
    }
    case BEAM_OP_bs_create_bin: {
        /* A loop's or a binary comprehension's step: append or
         * private_append to the accumulator (whole) of integers whose sizes
         * are constants of at most 64 bits, whole bytes when little-endian,
         * and strings of at most 8 bytes (the compiler makes constant
         * fields one: <<Acc/binary, ",">>, <<Acc/binary, I:16, 1:3, 2:5>>).
         * The segments are decoded already (bits.h). */
        uint64_t count = instr[6] / 6;
        const uint64_t *segment = instr + 7;
        if (count < 2 || count - 1 > BITS_APPEND_INTEGERS_MAX ||
            (segment[0] != BITS_SEG_PRIVATE_APPEND && segment[0] != BITS_SEG_APPEND) || is_small((term)segment[5]))
            return -1;
        for (uint64_t i = 1; i < count; i++) {
            const uint64_t *g = segment + 6 * i;
            term size = (term)g[5];
            if (operand_shape(g[5]) != 'i' || !is_small(size) || small_value(size) < 0 || small_value(size) > 64)
                return -1;
            if (g[0] == BITS_SEG_STRING && g[2] == 8 && small_value(size) <= 8)
                continue;
            if (g[0] != BITS_SEG_INTEGER || (uint64_t)small_value(size) * g[2] > 64 ||
                (g[3] & (BITS_FLAG_LITTLE | BITS_FLAG_NATIVE) && (uint64_t)small_value(size) * g[2] % 8))
                return -1;
        }
        return SPECIAL_bs_append_integers;
    }
    case BEAM_OP_put_list:
        /* Into an x register (nearly all), from a register and a register
         * or a constant tail ([H | T], [H]). */
        if (!shapes_are("x", instr + 3) || !(shapes_are("x", instr + 1) || shapes_are("y", instr + 1)))
            return -1;
        if (shapes_are("x", instr + 2) || shapes_are("y", instr + 2))
            return SPECIAL_put_list_registers;
        return operand_shape(instr[2]) == 'f' ? -1 : SPECIAL_put_list_register_constant;
    case BEAM_OP_put_tuple2:
        /* dst, count, sources: every source an x or y register. */
        for (uint64_t i = 0; i < instr[2]; i++)
            if (!shapes_are("x", instr + 3 + i) && !shapes_are("y", instr + 3 + i))
                return -1;
        return SPECIAL_put_tuple2_registers;
    case BEAM_OP_bs_get_integer2: {
        /* fail, ctx, live, size, unit, flags, dst: a constant size whose
         * integer is always a small (bits_get_small). */
        term size = (term)instr[4];
        if (operand_shape(instr[2]) != 'x' || operand_shape(instr[4]) != 'i' || !is_small(size) ||
            small_value(size) < 0 || small_value(size) >= SMALL_BITS ||
            (uint64_t)small_value(size) * instr[5] >= SMALL_BITS ||
            (instr[6] & (BITS_FLAG_LITTLE | BITS_FLAG_NATIVE) && (uint64_t)small_value(size) * instr[5] % 8))
            return -1;
        return SPECIAL_bs_get_small;
    }
    case BEAM_OP_select_val: {
        /* Every value immediate: the table is sorted by word (the loader's
         * order for immediates), so a search compares words only. */
        for (uint64_t i = 0; i < instr[3]; i += 2)
            if (!is_immed((term)instr[4 + i]))
                return -1;
        return SPECIAL_select_val_immediate;
    }
    default:
        return -1;
    }
}

const void *beam_prepared_handler(const uint64_t *instr, unsigned op, const uint64_t *end)
{
    const void *const *table = beam_handler_table();
    int special = special_for(instr, op, end);
    return special >= 0 ? special_handlers[special] : table[op];
}

bool beam_handler_is_special(const void *handler)
{
    beam_handler_table();
    for (int i = 0; i < SPECIAL_COUNT; i++)
        if (special_handlers[i] == handler)
            return true;
    return false;
}

static void engine_init_once(void)
{
    atom_table_init();
    bif_registry_init();
    beam_handler_table();
}

void beam_engine_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, engine_init_once);
}

const void *const *beam_handler_table(void)
{
    if (!handler_table)
        init_handler_table();
    return handler_table;
}

/* Saves the live x registers on the stack and the resume point. */
static bool save_state(struct process *p, term *E, const uint64_t *pc, const uint64_t *cp, unsigned live)
{
    if ((size_t)(E - p->stack) < live) {
        E = grow_stack(p, E, live);
        if (!E)
            return false;
    }
    E -= live;
    if (live) /* none at a wait: the call costs more than the rest */
        memcpy(E, x_regs, live * sizeof(term));
    p->stack_top = E;
    p->beam_pc = pc;
    p->beam_cp = cp;
    p->beam_saved_x = live;
    return true;
}

static enum body_stop resume(struct process *p) { return run(p); }

/* Everything else a BEAM process holds is in its context. */
static void release(struct process *p)
{
    free(p->beam_paused);
    p->beam_paused = NULL;
}

/* A process parked in a builtin that trapped or blocked stands at the
 * calling instruction, inside that builtin (its export); elsewhere at the
 * instruction it resumes at. */
static void position(const struct process *p, struct body_position *out)
{
    const uint64_t *pc = p->beam_pc;
    out->at = pc;
    out->aux = NULL;
    const struct beam_paused_call *c = p->beam_paused;
    if ((pc == trap_resume_code || pc == repeat_call_code) && c && c->site) {
        out->at = c->site;
        out->aux = pc == trap_resume_code && c->how == REPEAT_INSTRUCTION ? (const void *)(uintptr_t)c->site[3]
                                                                          : (const void *)c->target;
    }
}

static void locate(const struct process *p, const struct body_position *at, struct body_location *out)
{
    *out = body_location_unknown();
    const struct beam_module *m = at->at ? code_module_of(sched_engine(p->sched), at->at) : NULL;
    if (m && function_of(m, at->at, &out->function, &out->arity))
        out->module = m->name;
    const struct beam_export *e = at->aux;
    if (e) {
        out->bif_module = e->module;
        out->bif_function = e->function;
        out->bif_arity = e->arity;
    }
}

const struct body_ops beam_body_ops = {"beam", resume, release, position, locate};

/* OTP logger's header for an error report: local time to the microsecond. */
/* The main process's uncaught exception goes to stderr as
 * "clause: exception CLASS: REASON", the reason as io:format's ~p prints it
 * after that prefix (tests/golden/otp_run.escript prints the same on OTP).
 * Another process's error or throw is an error report in the format of
 * OTP's logger: through the logger once the kernel booted, else written on
 * stderr at once (error_report.h). */
static void report_crash(struct process *p, enum fault_class class, term reason)
{
    if (p->pid != sched_main_pid(p->sched)) {
        error_report_process_exit(p);
        return;
    }
    error_report_main_exception(p, class_atom(class), reason);
}

/* The exit reason of an uncaught exception, as OTP forms it. */
static term exit_reason_of(struct process *p, enum fault_class class, term reason, term trace)
{
    heap_t *h = &p->heap;
    switch (class) {
    case FAULT_EXIT:
        return reason;
    case FAULT_THROW: {
        term nocatch = heap_tuple2(h, A(nocatch), reason);
        return is_non_value(nocatch) ? nocatch : heap_tuple2(h, nocatch, trace);
    }
    default:
        return heap_tuple2(h, reason, trace);
    }
}

/* Registers are their byte offsets (module.h): XR and YR read one known to
 * be an x or a y register, SRC and DST either, SRC a term too. */
#define XR(w) (*(term *)((char *)X + (w)))
#define YR(w) (*(term *)((char *)E + 4 + (w)))
/* A constant operand (operand-shape specialisations: special_for) is its
 * word. */
#define CR(w) ((term)(w))
#define SRC(w) (((w)&7) == 0 ? XR(w) : ((w)&3) == 0 ? YR(w) : (term)(w))
#define DST(w) (*((w)&4 ? &YR(w) : &XR(w)))
/* An x or y register's word (nothing else), its file chosen by the y bit
 * without a branch: handlers whose registers mix x and y in no pattern
 * (put_list, put_tuple2) set x_base and y_base first. */
#define REGISTER_AT(w) (*(const term *)(((w)&4 ? y_base : x_base) + (w)))
/* A float register. */
#define FR_OF(w) (*(double *)((char *)FR + (uint32_t)(w)-4))
/* r - r is a NaN exactly when r is an infinity or a NaN: a subtraction and
 * an unordered compare, where isfinite loads two constants for a mask and
 * a bound. */
#define FLOAT_NOT_FINITE(r) __builtin_expect(((r) - (r)) != ((r) - (r)), 0)
#define LABEL(w) ((const uint64_t *)(uintptr_t)(w))
#define DISPATCH() goto *(const void *)(uintptr_t)I[0]
#define NEXT(words)                                                                                                    \
    do {                                                                                                               \
        I += (words);                                                                                                  \
        DISPATCH();                                                                                                    \
    } while (0)
/* No room on the stack for a frame of `slots` y slots below E (the frame
 * word included): E <= p->stack + slots, as addresses, so that the compiler
 * subtracts from E and compares with p->stack as it loads it. */
#define STACK_SHORT(slots) ((uintptr_t)E - (slots) * sizeof(term) <= (uintptr_t)p->stack)
/* A test: jump to the fail label when cond is false. */
#define TEST(cond, words)                                                                                              \
    do {                                                                                                               \
        if (cond)                                                                                                      \
            NEXT(words);                                                                                               \
        I = LABEL(I[1]);                                                                                               \
        DISPATCH();                                                                                                    \
    } while (0)
/* Allocation within what a test_heap reserved; the cap still applies. */
#define HALLOC(var, words)                                                                                             \
    do {                                                                                                               \
        if (!((var) = heap_alloc(&p->heap, (words))))                                                                  \
            goto out_of_memory;                                                                                        \
    } while (0)
/* Spends the reduction of a function entry; with none left, stops before
 * the entry (the instruction at I repeats on resume) with `live` x
 * registers saved. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
/* One subtraction in memory and a branch on its flags: GCC compiles the C
 * below to a load, a decrement, a store and a comparison, and a call's
 * reduction is on every function entry. A label of its own for each
 * site, so that the branch needs no live count held in a register. */
#define ENTRY(live) ENTRY_AT_LINE(live, __LINE__)
#define ENTRY_AT_LINE(live, line) ENTRY_AT_LINE_(live, line)
#define ENTRY_AT_LINE_(live, line)                                                                                     \
    do {                                                                                                               \
        __asm__ goto("subl $1, %0\n\tjle %l2" : "+m"(p->reds_left) : : "cc" : out_of_reductions_##line);               \
        if (0) {                                                                                                       \
            out_of_reductions_##line : stop_live = (live);                                                             \
            goto yield;                                                                                                \
        }                                                                                                              \
    } while (0)
#else
#define ENTRY(live)                                                                                                    \
    do {                                                                                                               \
        if (__builtin_expect(p->reds_left-- <= 1, 0)) {                                                                \
            stop_live = (live);                                                                                        \
            goto yield;                                                                                                \
        }                                                                                                              \
    } while (0)
#endif
#define RAISE()                                                                                                        \
    do {                                                                                                               \
        goto raise;                                                                                                    \
    } while (0)

/* Collects with `live` x registers as roots and `need` words free after.
 * A collection estimated long (proc_gc.h: proc_collect_elsewhere), and one
 * the heap asks for (`natural`: not one CLAUSE_GC_STRESS adds), goes to a
 * collector thread instead: the engine saves its state to resume at
 * `again` (after the collecting instruction, or that instruction itself
 * when `site` is its line: it repeats there, and skips its collection
 * once, RESUMED_AT) and ends the slice with BODY_COLLECT. */
#define COLLECT(need, live, again, site, natural)                                                                      \
    do {                                                                                                               \
        p->stack_top = E;                                                                                              \
        if ((natural) && proc_collect_elsewhere(p, (need))) {                                                          \
            p->collect_need = (uint32_t)(need);                                                                        \
            p->collect_site = (site);                                                                                  \
            collect_live = (live);                                                                                     \
            collect_again = (again);                                                                                   \
            goto collect_elsewhere;                                                                                    \
        }                                                                                                              \
        if (proc_collect(p, (need), X, (live)) != HEAP_OK)                                                             \
            goto gc_failed;                                                                                            \
    } while (0)
/* The instruction repeats after its collection was done on a collector
 * (COLLECT with `site`, nonzero): true once, at that site. The sites:
 * COLLECT_KEEPING's are its lines, the others these. */
enum { SITE_TRAP_INSTRUCTION = 1, SITE_TRAP_CALL, SITE_GC_BIF, SITE_BS_CREATE_BIN, SITE_WAIT };
#define RESUMED_AT(site)                                                                                               \
    (__builtin_expect(collect_resumed_at != 0, 0) && collect_resumed_at == (site) && (collect_resumed_at = 0, true))
/* test_heap and allocate_heap: `need` words, or a collection, then the
 * instruction's end (`again`: the next instruction). */
#define ENSURE_HEAP(need, live, again)                                                                                 \
    do {                                                                                                               \
        size_t need_ = (need);                                                                                         \
        if (gc_stress || (size_t)(p->heap.end - p->heap.top) < need_ || heap_wants_gc(&p->heap))                       \
            COLLECT(need_, (live), (again), 0,                                                                         \
                    (size_t)(p->heap.end - p->heap.top) < need_ || heap_wants_gc(&p->heap));                           \
    } while (0)

/* The operands of +, - or * as doubles when one is a float and the other a
 * float or a small (OTP converts the integer); false otherwise. */
static inline bool float_operands(term a, term b, double *x, double *y)
{
    if (!(is_float(a) || is_float(b)))
        return false;
    if (is_float(a))
        *x = float_value(a);
    else if (is_small(a))
        *x = (double)small_value(a);
    else
        return false;
    if (is_float(b))
        *y = float_value(b);
    else if (is_small(b))
        *y = (double)small_value(b);
    else
        return false;
    return true;
}

/* A collection first where the heap asks for one, as OTP's instructions
 * with a live count do (put_map_*, bs_start_match*, bs_get_*): t, the term
 * the instruction reads, is a root after the live registers. A loop that
 * matches or updates maps and calls, and allocates nowhere else, collects
 * here. */
#define COLLECT_KEEPING(t, live)                                                                                       \
    do {                                                                                                               \
        if (RESUMED_AT(__LINE__))                                                                                      \
            break;                                                                                                     \
        if (gc_stress || heap_wants_gc(&p->heap)) {                                                                    \
            X[(live)] = (t);                                                                                           \
            COLLECT(0, (live) + 1, I, __LINE__, heap_wants_gc(&p->heap));                                              \
            (t) = X[(live)];                                                                                           \
        }                                                                                                              \
    } while (0)

static enum body_stop run(struct process *p)
{
    static const void *labels[BEAM_OPCODE_MAX + 1];
    if (!p) {
        for (unsigned i = 0; i <= BEAM_OPCODE_MAX; i++)
            labels[i] = &&op_unsupported;
#define HANDLER(name) labels[BEAM_OP_##name] = &&op_##name
        HANDLER(func_info);
        HANDLER(call);
        HANDLER(call_last);
        HANDLER(call_only);
        HANDLER(call_ext);
        HANDLER(call_ext_last);
        HANDLER(call_ext_only);
        HANDLER(bif0);
        HANDLER(bif1);
        HANDLER(bif2);
        HANDLER(allocate);
        HANDLER(allocate_heap);
        HANDLER(allocate_zero);
        HANDLER(allocate_heap_zero);
        HANDLER(test_heap);
        HANDLER(init);
        HANDLER(deallocate);
        HANDLER(return );
        HANDLER(send);
        HANDLER(remove_message);
        HANDLER(timeout);
        HANDLER(loop_rec);
        HANDLER(loop_rec_end);
        HANDLER(wait);
        HANDLER(wait_timeout);
        HANDLER(is_lt);
        HANDLER(is_ge);
        HANDLER(is_eq);
        HANDLER(is_ne);
        HANDLER(is_eq_exact);
        HANDLER(is_ne_exact);
        HANDLER(is_integer);
        HANDLER(is_float);
        HANDLER(is_number);
        HANDLER(is_atom);
        HANDLER(is_pid);
        HANDLER(is_reference);
        HANDLER(is_port);
        HANDLER(is_nil);
        HANDLER(is_binary);
        HANDLER(is_list);
        HANDLER(is_nonempty_list);
        HANDLER(is_tuple);
        HANDLER(test_arity);
        HANDLER(select_val);
        HANDLER(select_tuple_arity);
        HANDLER(jump);
        HANDLER(catch);
        HANDLER(catch_end);
        HANDLER(move);
        HANDLER(get_list);
        HANDLER(get_tuple_element);
        HANDLER(set_tuple_element);
        HANDLER(put_list);
        HANDLER(badmatch);
        HANDLER(if_end);
        HANDLER(case_end);
        HANDLER(call_fun);
        HANDLER(is_function);
        HANDLER(fclearerror);
        HANDLER(fcheckerror);
        HANDLER(fmove);
        HANDLER(fconv);
        HANDLER(fadd);
        HANDLER(fsub);
        HANDLER(fmul);
        HANDLER(fdiv);
        HANDLER(fnegate);
        HANDLER(make_fun2);
        HANDLER(try);
        HANDLER(try_end);
        HANDLER(try_case);
        HANDLER(try_case_end);
        HANDLER(raise);
        HANDLER(apply);
        HANDLER(apply_last);
        HANDLER(is_boolean);
        HANDLER(is_function2);
        HANDLER(gc_bif1);
        HANDLER(gc_bif2);
        HANDLER(gc_bif3);
        HANDLER(is_bitstr);
        HANDLER(trim);
        HANDLER(put_map_assoc);
        HANDLER(put_map_exact);
        HANDLER(is_map);
        HANDLER(has_map_fields);
        HANDLER(get_map_elements);
        HANDLER(is_tagged_tuple);
        HANDLER(build_stacktrace);
        HANDLER(raw_raise);
        HANDLER(get_hd);
        HANDLER(get_tl);
        HANDLER(put_tuple2);
        HANDLER(swap);
        HANDLER(make_fun3);
        HANDLER(init_yregs);
        HANDLER(recv_marker_bind);
        HANDLER(recv_marker_clear);
        HANDLER(recv_marker_reserve);
        HANDLER(recv_marker_use);
        HANDLER(call_fun2);
        HANDLER(badrecord);
        HANDLER(on_load);
        HANDLER(nif_start);
        HANDLER(line);
        HANDLER(bs_start_match3);
        HANDLER(bs_start_match4);
        HANDLER(bs_get_integer2);
        HANDLER(bs_get_binary2);
        HANDLER(bs_get_float2);
        HANDLER(bs_skip_bits2);
        HANDLER(bs_test_tail2);
        HANDLER(bs_test_unit);
        HANDLER(bs_match_string);
        HANDLER(bs_get_tail);
        HANDLER(bs_get_position);
        HANDLER(bs_set_position);
        HANDLER(bs_get_utf8);
        HANDLER(bs_skip_utf8);
        HANDLER(bs_get_utf16);
        HANDLER(bs_skip_utf16);
        HANDLER(bs_get_utf32);
        HANDLER(bs_skip_utf32);
        HANDLER(bs_init_writable);
        HANDLER(bs_create_bin);
#undef HANDLER
        static const void *specials[SPECIAL_COUNT];
#define SPECIAL_LABEL(name) specials[SPECIAL_##name] = &&special_##name;
        SPECIAL_HANDLERS(SPECIAL_LABEL)
#undef SPECIAL_LABEL
        special_handlers = specials;
        normal_exit_code[0] = (uint64_t)(uintptr_t) && op_normal_exit;
        spawn_start_code[0] = (uint64_t)(uintptr_t) && op_spawn_start;
        repeat_call_code[0] = (uint64_t)(uintptr_t) && op_repeat_call;
        trap_resume_code[0] = (uint64_t)(uintptr_t) && op_trap_resume;
        handover_return_code[0] = (uint64_t)(uintptr_t) && op_handover_return;
        handler_table = labels;
        return BODY_EXIT;
    }

    term *const X = x_regs;
    double *const FR = f_regs;
    const uint64_t *I = p->beam_pc;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    /* The continuation in a callee-saved register of its own: GCC's
     * allocation over this loop's hundreds of handlers otherwise keeps it
     * in r13 or on the stack depending on which handlers exist (adding
     * the operators' shaped handlers spilled it, fib +2.8 % instructions;
     * held here, fib -0.9 % and foldl -4.2 % against before them). */
    register const uint64_t *cp __asm__("r13") = p->beam_cp;
#else
    const uint64_t *cp = p->beam_cp;
#endif
    term *E = p->stack_top ? p->stack_top : stack_end(p);
    unsigned stop_live = 0;
    struct fault_site site = {NULL, NULL, NULL, false, false, false};
    const struct bif_entry *bif = NULL;
    const struct beam_export *missing = NULL; /* the instruction builtin that is absent or failed */
    /* The call in progress on the shared call path (call_export). */
    struct beam_export *call_target = NULL;
    const uint64_t *call_code = NULL, *call_after = NULL;
    int call_how = 0;
    uint64_t call_dealloc = 0;
    term call_fun_term = NIL;
    unsigned call_fun_arity = 0;
    bool call_fun_instruction = false;
    enum body_stop repeat_stop = BODY_BLOCKED; /* why a call to repeat stops the process */
    term bif_args[3];
    term result;
    bif_fn bif_now = NULL;           /* the builtin or continuation being called */
    struct beam_paused_call *paused; /* a call that goes on in a later slice */
    unsigned trap_base = 0;          /* where a trapped gc_bif's continuation arguments start (its live registers) */
    double arith_float_value;        /* a float sum, difference or product for arith_float */

    unsigned collect_live = 0;            /* COLLECT: the live registers of a collection handed over */
    const uint64_t *collect_again = NULL; /* and where the process resumes after it */
    /* After a collection on a collector: the repeating instruction's site,
     * which skips it (RESUMED_AT); 0: none. */
    unsigned collect_resumed_at = p->collect_site;
    p->collect_site = 0;

    if (__builtin_expect(p->collected != PROC_COLLECTED_NONE, 0)) {
        /* Its collection on a collector found no memory (or the cap), or
         * left it past its max_heap_size, checked here on its worker. (A
         * builtin's work handed over always ran before: BODY_COLLECT.) */
        bool failed = p->collected == PROC_COLLECTED_FAILED;
        p->collected = PROC_COLLECTED_NONE;
        if (failed)
            goto out_of_memory;
        if (proc_collected_check(p) != HEAP_OK)
            goto gc_failed;
    }
    /* Restore the saved x registers. */
    if (p->beam_saved_x)
        memcpy(X, E, p->beam_saved_x * sizeof(term));
    E += p->beam_saved_x;
    p->beam_saved_x = 0;
    p->stack_top = NULL;
    if (p->beam_resume_timeout) {
        /* wait_timeout: rescan on a message, fall through on a timeout. */
        p->beam_resume_timeout = false;
        if (sched_take_timed_out(p))
            I += 3;
        else
            I = LABEL(I[1]);
    }
    DISPATCH();

op_spawn_start:
    /* x0:x1(x2...), or the fun x0 when x1 is [] (spawn/1); the arguments
     * were saved as a list in x2. A tail call: cp is the normal exit. */
    call_how = 2;
    if (X[1] == NIL) {
        term args = X[2];
        call_fun_term = X[0];
        call_fun_arity = 0;
        call_fun_instruction = false;
        for (; is_list(args) && call_fun_arity < 255; args = list_tail(args))
            X[call_fun_arity++] = list_head(args);
        goto call_fun_value;
    }
    call_target = prepare_apply(p, X[0], X[1], X[2]);
    if (!call_target) {
        site.pc = I;
        goto raise_with_site;
    }
    goto call_export;

/* The call a paused call (c) continues: its builtin's export, and how the
 * call returns. */
#define RESUME_PAUSED_CALL(c)                                                                                          \
    (call_target = (struct beam_export *)(uintptr_t)(c)->target, call_how = (c)->how, call_dealloc = (c)->dealloc,     \
     call_after = (c)->after)
op_trap_resume : {
    /* A builtin that trapped goes on: its continuation, with the arguments
     * it saved in x registers, in the original call's place. A collection
     * may happen here, between two portions, as anywhere in BEAM. */
    const struct beam_paused_call *c = p->beam_paused;
    I = c->site;
    bif_now = c->trap_fn;
    unsigned nargs = c->trap_arity;
    if (c->how == REPEAT_INSTRUCTION) {
        trap_base = (unsigned)I[2];
        if (!RESUMED_AT(SITE_TRAP_INSTRUCTION) && (gc_stress || heap_wants_gc(&p->heap)))
            COLLECT(0, trap_base + nargs, trap_resume_code, SITE_TRAP_INSTRUCTION, heap_wants_gc(&p->heap));
        goto gc_bif_continue;
    }
    if (!RESUMED_AT(SITE_TRAP_CALL) && (gc_stress || heap_wants_gc(&p->heap)))
        COLLECT(0, nargs, trap_resume_code, SITE_TRAP_CALL, heap_wants_gc(&p->heap));
    RESUME_PAUSED_CALL(c);
    bif = call_target->bif;
    goto call_bif;
}

op_repeat_call : {
    /* The builtin call that blocked, again with its arguments in x0.. */
    const struct beam_paused_call *c = p->beam_paused;
    RESUME_PAUSED_CALL(c);
    I = c->site;
    goto call_export;
}
#undef RESUME_PAUSED_CALL

op_normal_exit:
    p->exit_reason = A(normal);
    struct host_outcome *host = sched_host_outcome(p);
    if (host)
        host->value = X[0]; /* what the call returned, for the host */
    p->stack_top = NULL;
    return BODY_EXIT;

op_func_info:
    /* Reached when no clause matched. */
    site.pc = I;
    site.function_clause = true;
    bif_error(p, A(function_clause));
    goto raise_with_site;

op_line:
    NEXT(2);

op_call:
    ENTRY((unsigned)I[1]);
    cp = I + 3;
    I = LABEL(I[2]);
    DISPATCH();

op_call_last:
    ENTRY((unsigned)I[1]);
    cp = (const uint64_t *)(uintptr_t)E[0];
    E += I[3] + 1;
    I = LABEL(I[2]);
    DISPATCH();

op_call_only:
    ENTRY((unsigned)I[1]);
    I = LABEL(I[2]);
    DISPATCH();

    /* Calls through export records (call_ext, apply, fun calls, a spawned
     * process's first call) share one path. call_how: 0 returns to
     * call_after, 1 is a last call (deallocate call_dealloc y slots first),
     * 2 a tail call that keeps cp. */
op_call_ext:
    ENTRY((unsigned)I[1]);
    call_how = 0;
    call_after = I + 3;
    call_target = (struct beam_export *)(uintptr_t)I[2];
    goto call_export;
op_call_ext_last:
    ENTRY((unsigned)I[1]);
    call_how = 1;
    call_dealloc = I[3];
    call_target = (struct beam_export *)(uintptr_t)I[2];
    goto call_export;
op_call_ext_only:
    ENTRY((unsigned)I[1]);
    call_how = 2;
    call_target = (struct beam_export *)(uintptr_t)I[2];

call_export:
    switch (resolve_export(p, call_target, &call_code, &bif)) {
    case CALL_CODE:
        goto enter_code;
    case CALL_BIF:
        bif_now = bif->fn;
    call_bif:
        /* Three words whatever the arity (the registers past it are
         * there, unread): a loop on the arity cost 15 instructions a call. */
        bif_args[0] = X[0];
        bif_args[1] = X[1];
        bif_args[2] = X[2];
        p->stack_top = E; /* what process_info(self(), stack_size) reads */
        proc_bif_call.pc = I;
        proc_bif_call.cp = cp;
        p->bif_may_trap = true;
        result = bif_now(p, X);
        p->bif_may_trap = false;
        if (is_non_value(result)) {
            if (p->fault_class == FAULT_BLOCKED)
                goto call_blocked;
            if (p->fault_class == FAULT_TRAP)
                goto call_trapped;
            if (p->fault_class == FAULT_CALL)
                goto call_handed_over;
            site.pc = I;
            site.bif = bif;
            site.bif_args = bif->arity <= 3 ? bif_args : X;
            goto raise_with_site;
        }
        X[0] = result;
        /* The call returns (a last call's frame is dead from here). What
         * the builtin allocated past the block went into fragments: collect
         * now if they are worth it, as OTP does after a builtin call
         * (erts_gc_after_bif_call), where only x0 is live. A loop whose
         * other instructions allocate nothing and collect nowhere would
         * otherwise pile fragments up. Handed over, the process resumes
         * where the call returned to. */
        if (call_how == 0) {
            I = call_after;
        } else {
            if (call_how == 1) {
                cp = (const uint64_t *)(uintptr_t)E[0];
                E += call_dealloc + 1;
            }
            I = cp;
            cp = NULL; /* used: a later raise's stack trace must not show it (op_return) */
        }
        if (gc_stress || heap_wants_gc(&p->heap))
            COLLECT(0, 1, I, 0, heap_wants_gc(&p->heap));
        DISPATCH();
    case CALL_APPLY:
        if ((bif->flags & BIF_HIBERNATE) && mailbox_length(&p->mailbox) == 0 && !message_arrivals_pending(p)) {
            /* hibernate/3 waits for a message, then makes its call; the
             * stack is kept, so the call returns to the caller. */
            sched_set_wait_timeout(p, -1);
            heap_request_gc(&p->heap); /* a full sweep when it wakes, as OTP compacts a hibernating heap */
            repeat_stop = BODY_WAIT;
            goto stop_to_repeat_call;
        }
        if (bif->arity == 2) {
            /* apply(Fun, Args) */
            term args = X[1];
            int64_t n = bif_list_length(args);
            if (n < 0 || n > 255) {
                bif_badarg(p);
                site.pc = I;
                goto raise_with_site;
            }
            call_fun_term = X[0];
            call_fun_arity = (unsigned)n;
            call_fun_instruction = false;
            for (int64_t i = 0; i < n; i++, args = list_tail(args))
                X[i] = list_head(args);
            goto call_fun_value;
        }
        call_target = prepare_apply(p, X[0], X[1], X[2]);
        if (!call_target) {
            site.pc = I;
            goto raise_with_site;
        }
        goto call_export;
    case CALL_FAULT:
        site.pc = I;
        site.tail_call = call_how != 0;
        goto raise_with_site;
    }

call_handed_over:
    /* The builtin goes on as a call of Erlang code (bif_call_erlang): it
     * returns where the builtin would have. A tail call keeps a frame for
     * its caller, as OTP's loader makes a tail call of a builtin a body
     * call: the call site after the continuation (a return address that
     * only stack traces read, so that they show the caller at the call's
     * line), popped by op_handover_return. */
    p->fault_class = FAULT_NONE;
    memcpy(X, proc_bif_call.args, proc_bif_call.arity * sizeof(term));
    if (call_how != 0) {
        if (call_how == 1) {
            cp = (const uint64_t *)(uintptr_t)E[0];
            E += call_dealloc + 1;
        }
        if ((size_t)(E - p->stack) < 2) {
            term *moved = grow_stack(p, E, 2);
            if (!moved)
                goto out_of_memory;
            E = moved;
        }
        E -= 2;
        E[0] = (term)(uintptr_t)(I + 1);
        E[1] = (term)(uintptr_t)cp;
        cp = handover_return_code;
        call_how = 2;
    }
    call_target =
        code_export(sched_engine(p->sched), proc_bif_call.module, proc_bif_call.function, proc_bif_call.arity);
    if (!call_target)
        goto out_of_memory;
    goto call_export;

op_handover_return:
    cp = (const uint64_t *)(uintptr_t)E[1];
    E += 2;
    I = cp;
    cp = NULL;
    DISPATCH();

enter_code:
    if (call_how == 0) {
        cp = call_after;
    } else if (call_how == 1) {
        cp = (const uint64_t *)(uintptr_t)E[0];
        E += call_dealloc + 1;
    }
    I = call_code;
    DISPATCH();

call_fun_value : {
    /* call_fun_term with call_fun_arity arguments in x0.. A local fun of
     * that arity here, its free variables after the arguments; anything
     * else (an export, a bad fun or arity) out of line. */
    if (__builtin_expect(is_local_fun(call_fun_term), 1)) {
        const struct fun_entry *local = fun_entry_of(call_fun_term);
        if (__builtin_expect(local->arity == call_fun_arity, 1)) {
            uint64_t free_vars = fun_num_free(call_fun_term);
            for (uint64_t i = 0; i < free_vars; i++)
                X[call_fun_arity + i] = fun_free_var(call_fun_term, i);
            call_code = local->code;
            goto enter_code;
        }
    }
    struct beam_export *fe = export_fun_call(p, call_fun_term, call_fun_arity);
    if (!fe) {
        /* A body call's return address is already pushed when OTP 25's
         * call fails, so its frame shows twice; a call in tail position
         * (the function returns right after it) pushes none. */
        const void *next = call_fun_instruction ? (const void *)(uintptr_t)call_after[0] : NULL;
        site.pc = I;
        site.fun_call = call_fun_instruction && next != &&op_deallocate && next != &&op_return &&
                        next != &&special_deallocate_return && next != &&special_move_deallocate_return &&
                        next != &&special_move_return;
        goto raise_with_site;
    }
    call_target = fe;
    goto call_export;
}

op_bif0 : {
    struct beam_export *e = (struct beam_export *)(uintptr_t)I[1];
    if (!e->bif) {
        missing = e;
        goto undefined_bif;
    }
    result = e->bif->fn(p, X);
    if (is_non_value(result)) {
        site.pc = I;
        site.bif = e->bif;
        site.bif_args = bif_args;
        goto raise_with_site;
    }
    DST(I[2]) = result;
    NEXT(3);
}

/* bif1 of erlang:get/1 (fail, export, key, dst): the dictionary read
 * without the builtin's call (dictionary.c's bif_get_1). */
special_get_dictionary : {
    term value = proc_dict_get(p->dictionary, SRC(I[3]));
    DST(I[4]) = is_value(value) ? value : A(undefined);
    NEXT(5);
}

op_bif1:
op_bif2 : {
    struct beam_export *e = (struct beam_export *)(uintptr_t)I[2];
    unsigned n = (unsigned)e->arity;
    if (!e->bif) {
        missing = e;
        goto undefined_bif;
    }
    bif_args[0] = SRC(I[3]);
    if (n == 2)
        bif_args[1] = SRC(I[4]);
    result = e->bif->fn(p, bif_args);
    if (is_non_value(result)) {
        missing = e;
        goto instruction_bif_failed;
    }
    DST(I[3 + n]) = result;
    NEXT(4 + n);
}

/* gc_bif2 of erlang:'+' / '-' (fail, live, bif, a, b, dst). */
/* On tagged words: a small's word is its value times 16 plus the tag, and
 * smalls span the whole 64-bit range, so a + (b - tag) is the sum's word,
 * and it overflows exactly when the sum is not a small. */
#define SMALL_ARITH(name, A_, B_, SMALLS, DST_, OVERFLOWS, FLOAT_OP)                                                   \
    special_##name:                                                                                                    \
    {                                                                                                                  \
        term a = A_(I[4]), b = B_(I[5]);                                                                               \
        int64_t r;                                                                                                     \
        double x, y;                                                                                                   \
        if (SMALLS(a, b) && !OVERFLOWS((int64_t)a, (int64_t)(b - TAG_IMMED1_SMALL), &r)) {                             \
            DST_(I[6]) = (term)r;                                                                                      \
            NEXT(7);                                                                                                   \
        }                                                                                                              \
        if (!float_operands(a, b, &x, &y))                                                                             \
            goto op_gc_bif2;                                                                                           \
        arith_float_value = x FLOAT_OP y;                                                                              \
        goto arith_float;                                                                                              \
    }
/* Both smalls (both_small); or, beside a constant checked to be a small
 * when the module was prepared, only the register's tag: the first operand
 * (FIRST_SMALL) or the second (SECOND_SMALL). For the sums and differences
 * here and the other operators' shaped handlers below. */
#define BOTH_SMALL(a, b) both_small((a), (b))
#define FIRST_SMALL(a, b) is_small(a)
#define SECOND_SMALL(a, b) is_small(b)
    SMALL_ARITH(plus, SRC, SRC, BOTH_SMALL, DST, __builtin_add_overflow, +)
    SMALL_ARITH(plus_xc, XR, CR, FIRST_SMALL, XR, __builtin_add_overflow, +)
    SMALL_ARITH(plus_yc, YR, CR, FIRST_SMALL, XR, __builtin_add_overflow, +)
    SMALL_ARITH(plus_xx, XR, XR, BOTH_SMALL, XR, __builtin_add_overflow, +)
    SMALL_ARITH(plus_xy, XR, YR, BOTH_SMALL, XR, __builtin_add_overflow, +)
    SMALL_ARITH(plus_yx, YR, XR, BOTH_SMALL, XR, __builtin_add_overflow, +)
    SMALL_ARITH(minus, SRC, SRC, BOTH_SMALL, DST, __builtin_sub_overflow, -)
    SMALL_ARITH(minus_xc, XR, CR, FIRST_SMALL, XR, __builtin_sub_overflow, -)
    SMALL_ARITH(minus_yc, YR, CR, FIRST_SMALL, XR, __builtin_sub_overflow, -)
    SMALL_ARITH(minus_xx, XR, XR, BOTH_SMALL, XR, __builtin_sub_overflow, -)
    SMALL_ARITH(minus_xy, XR, YR, BOTH_SMALL, XR, __builtin_sub_overflow, -)
    SMALL_ARITH(minus_yx, YR, XR, BOTH_SMALL, XR, __builtin_sub_overflow, -)
/* The fusions of ARITH_THEN: a small result, then the instructions after
 * without their dispatches (the result's own register written only where
 * it stays live: fused_for); anything else takes the operator's own
 * handler above, which goes on to the next instruction's. */
#define SMALL_ARITH_THEN(name, then, A_, B_, SMALLS, OVERFLOWS)                                                        \
    special_##name##_##then:                                                                                           \
    {                                                                                                                  \
        term a = A_(I[4]), b = B_(I[5]);                                                                               \
        int64_t r;                                                                                                     \
        if (!SMALLS(a, b) || OVERFLOWS((int64_t)a, (int64_t)(b - TAG_IMMED1_SMALL), &r))                               \
            goto special_##name;                                                                                       \
        THEN_##then;                                                                                                   \
    }
#define SMALL_ARITH_SHAPES_THEN(then)                                                                                  \
    SMALL_ARITH_THEN(plus_xc, then, XR, CR, FIRST_SMALL, __builtin_add_overflow)                                       \
    SMALL_ARITH_THEN(plus_yc, then, YR, CR, FIRST_SMALL, __builtin_add_overflow)                                       \
    SMALL_ARITH_THEN(plus_xx, then, XR, XR, BOTH_SMALL, __builtin_add_overflow)                                        \
    SMALL_ARITH_THEN(plus_xy, then, XR, YR, BOTH_SMALL, __builtin_add_overflow)                                        \
    SMALL_ARITH_THEN(plus_yx, then, YR, XR, BOTH_SMALL, __builtin_add_overflow)                                        \
    SMALL_ARITH_THEN(minus_xc, then, XR, CR, FIRST_SMALL, __builtin_sub_overflow)                                      \
    SMALL_ARITH_THEN(minus_yc, then, YR, CR, FIRST_SMALL, __builtin_sub_overflow)                                      \
    SMALL_ARITH_THEN(minus_xx, then, XR, XR, BOTH_SMALL, __builtin_sub_overflow)                                       \
    SMALL_ARITH_THEN(minus_xy, then, XR, YR, BOTH_SMALL, __builtin_sub_overflow)                                       \
    SMALL_ARITH_THEN(minus_yx, then, YR, XR, BOTH_SMALL, __builtin_sub_overflow)
/* The two moves (I + 7, I + 10; the second of the result), then the call
 * (I + 13). */
#define THEN_shift_call                                                                                                \
    do {                                                                                                               \
        YR(I[9]) = XR(I[8]);                                                                                           \
        XR(I[12]) = (term)r;                                                                                           \
        I += 13;                                                                                                       \
        goto op_call;                                                                                                  \
    } while (0)
/* allocate 1 (I + 7), then the shift and call after it; without the
 * stack's room, the result in its own register, the generic allocate
 * grows the stack, and the moves and call follow in their own handlers. */
#define THEN_allocate_shift_call                                                                                       \
    do {                                                                                                               \
        if (__builtin_expect(STACK_SHORT(1), 0)) {                                                                     \
            XR(I[6]) = (term)r; /* the shift's handler moves it */                                                     \
            I += 7;                                                                                                    \
            goto op_allocate;                                                                                          \
        }                                                                                                              \
        E -= 2;                                                                                                        \
        E[0] = (term)(uintptr_t)cp;                                                                                    \
        cp = NULL;                                                                                                     \
        I += 3;                                                                                                        \
        THEN_shift_call;                                                                                               \
    } while (0)
/* The result (I[6]), deallocate (I + 7), return. */
#define THEN_deallocate_return                                                                                         \
    do {                                                                                                               \
        XR(I[6]) = (term)r;                                                                                            \
        cp = (const uint64_t *)(uintptr_t)E[0];                                                                        \
        E += I[8] + 1;                                                                                                 \
        I = cp;                                                                                                        \
        cp = NULL;                                                                                                     \
        DISPATCH();                                                                                                    \
    } while (0)
    SMALL_ARITH_SHAPES_THEN(allocate_shift_call)
    SMALL_ARITH_SHAPES_THEN(shift_call)
    SMALL_ARITH_SHAPES_THEN(deallocate_return)
#undef THEN_deallocate_return
#undef THEN_shift_call
#undef THEN_allocate_shift_call
#undef SMALL_ARITH_SHAPES_THEN
#undef SMALL_ARITH_THEN
#undef SMALL_ARITH
    {
        /* The other operators on two smalls; anything else, or a result
         * that is not a small, takes the builtin (after *'s floats). */
        term a, b, r;
    special_times:
        a = SRC(I[4]);
        b = SRC(I[5]);
        if (both_small(a, b) && small_times(a, b, &r))
            goto small_result;
        {
            double x, y;
            if (!float_operands(a, b, &x, &y))
                goto op_gc_bif2;
            arith_float_value = x * y;
            goto arith_float;
        }
#define SMALL_OPERATOR_GENERIC(op)                                                                                     \
    special_##op : a = SRC(I[4]);                                                                                      \
    b = SRC(I[5]);                                                                                                     \
    if (both_small(a, b) && small_##op(a, b, &r))                                                                      \
        goto small_result;                                                                                             \
    goto op_gc_bif2;
        SMALL_OPERATOR_GENERIC(band)
        SMALL_OPERATOR_GENERIC(bor)
        SMALL_OPERATOR_GENERIC(bxor)
        SMALL_OPERATOR_GENERIC(div)
        SMALL_OPERATOR_GENERIC(rem)
#undef SMALL_OPERATOR_GENERIC
    small_result:
        DST(I[6]) = r;
        NEXT(7);
    }
/* OPERATOR_SHAPES' handlers: the operator on smalls without decoding its
 * operands; anything else (a result that is not a small, a divisor of 0, a
 * float) takes the operator's generic handler above. */
#define SMALL_OPERATOR(name, op, A_, B_, SMALLS)                                                                       \
    special_##name:                                                                                                    \
    {                                                                                                                  \
        term a = A_(I[4]), b = B_(I[5]), r;                                                                            \
        if (SMALLS(a, b) && small_##op(a, b, &r)) {                                                                    \
            XR(I[6]) = r;                                                                                              \
            NEXT(7);                                                                                                   \
        }                                                                                                              \
        goto special_##op;                                                                                             \
    }
#define SMALL_OPERATOR_SHAPES(op)                                                                                      \
    SMALL_OPERATOR(op##_xc, op, XR, CR, FIRST_SMALL)                                                                   \
    SMALL_OPERATOR(op##_yc, op, YR, CR, FIRST_SMALL)                                                                   \
    SMALL_OPERATOR(op##_xx, op, XR, XR, BOTH_SMALL)                                                                    \
    SMALL_OPERATOR(op##_xy, op, XR, YR, BOTH_SMALL)                                                                    \
    SMALL_OPERATOR(op##_yx, op, YR, XR, BOTH_SMALL)                                                                    \
    SMALL_OPERATOR(op##_cx, op, CR, XR, SECOND_SMALL)
    SMALL_OPERATOR_SHAPES(times)
    SMALL_OPERATOR_SHAPES(band)
    SMALL_OPERATOR_SHAPES(bor)
    SMALL_OPERATOR_SHAPES(bxor)
    SMALL_OPERATOR_SHAPES(div)
    SMALL_OPERATOR_SHAPES(rem)
#undef SMALL_OPERATOR_SHAPES
#undef SECOND_SMALL
#undef FIRST_SMALL
#undef BOTH_SMALL
#undef SMALL_OPERATOR
arith_float : {
    /* A float result of +, - or * with a float operand. Not finite, or with
     * a collection due (the instruction's safepoint), the builtin does it. */
    term *box;
    if (!isfinite(arith_float_value) || gc_stress || heap_wants_gc(&p->heap))
        goto op_gc_bif2;
    HALLOC(box, 2);
    box[0] = make_header(SUBTAG_FLOAT, 1);
    memcpy(&box[1], &arith_float_value, sizeof(double));
    DST(I[6]) = make_boxed(box);
    NEXT(7);
}

special_move_xx:
    XR(I[2]) = XR(I[1]);
    NEXT(3);
special_move_xy:
    YR(I[2]) = XR(I[1]);
    NEXT(3);
special_move_yx:
    XR(I[2]) = YR(I[1]);
    NEXT(3);
special_move_yy:
    YR(I[2]) = YR(I[1]);
    NEXT(3);
special_move_cx:
    XR(I[2]) = CR(I[1]);
    NEXT(3);
special_move_cy:
    YR(I[2]) = CR(I[1]);
    NEXT(3);

/* Two moves: the second one's operands follow the first's opcode and
 * operands. */
#define MOVE2(name, DST1, SRC1, DST2, SRC2)                                                                            \
    special_##name : DST1(I[2]) = SRC1(I[1]);                                                                          \
    DST2(I[5]) = SRC2(I[4]);                                                                                           \
    NEXT(6);
    MOVE2(move_xx_xx, XR, XR, XR, XR)
    MOVE2(move_xx_xy, XR, XR, YR, XR)
    MOVE2(move_xx_yx, XR, XR, XR, YR)
    MOVE2(move_xy_xx, YR, XR, XR, XR)
    MOVE2(move_xy_xy, YR, XR, YR, XR)
    MOVE2(move_xy_yx, YR, XR, XR, YR)
    MOVE2(move_yx_xx, XR, YR, XR, XR)
    MOVE2(move_yx_xy, XR, YR, YR, XR)
    MOVE2(move_yx_yx, XR, YR, XR, YR)
#undef MOVE2
special_move_shift_call:
    /* The two moves, then the call (I at it: it repeats after a yield). */
    YR(I[2]) = XR(I[1]);
    XR(I[5]) = XR(I[4]);
    I += 6;
    goto op_call;

special_get_tuple_element_xx:
    XR(I[3]) = tuple_elements(XR(I[1]))[I[2]];
    NEXT(4);
special_get_tuple_element_xy:
    YR(I[3]) = tuple_elements(XR(I[1]))[I[2]];
    NEXT(4);
special_get_tuple_element_yx:
    XR(I[3]) = tuple_elements(YR(I[1]))[I[2]];
    NEXT(4);
special_get_tuple_element_yy:
    YR(I[3]) = tuple_elements(YR(I[1]))[I[2]];
    NEXT(4);
    {
        term list;
    special_get_list_xxx:
        list = XR(I[1]);
        XR(I[2]) = list_head(list);
        XR(I[3]) = list_tail(list);
        NEXT(4);
    special_get_list_xxy:
        list = XR(I[1]);
        XR(I[2]) = list_head(list);
        YR(I[3]) = list_tail(list);
        NEXT(4);
    special_get_list_xyy:
        list = XR(I[1]);
        YR(I[2]) = list_head(list);
        YR(I[3]) = list_tail(list);
        NEXT(4);
    }

special_is_eq_exact_xi:
    TEST(XR(I[2]) == CR(I[3]), 4);
special_is_ne_exact_xi:
    TEST(XR(I[2]) != CR(I[3]), 4);
special_is_eq_exact_yi:
    TEST(YR(I[2]) == CR(I[3]), 4);
    {
        term a, b;
        /* The constant was checked to be a small when the module was
         * prepared: a small register orders against it as their words. */
    special_is_lt_xc:
        a = XR(I[2]);
        b = CR(I[3]);
        if (is_small(a))
            TEST((int64_t)a < (int64_t)b, 4);
        goto is_lt;
/* is_lt_xc_return's test, and the return where it holds (the generic
 * comparison goes on to the return's own handler); on_failure otherwise. */
#define BASE_CASE_TEST(on_failure)                                                                                     \
    a = XR(I[2]);                                                                                                      \
    b = CR(I[3]);                                                                                                      \
    if (!is_small(a))                                                                                                  \
        goto is_lt;                                                                                                    \
    if ((int64_t)a < (int64_t)b) {                                                                                     \
        I = cp;                                                                                                        \
        cp = NULL;                                                                                                     \
        DISPATCH();                                                                                                    \
    }                                                                                                                  \
    on_failure;
    special_is_lt_xc_return:
        BASE_CASE_TEST(I = LABEL(I[1]); DISPATCH())
#define BASE_CASE(shape)                                                                                               \
    special_base_case_##shape : BASE_CASE_TEST(I += BASE_CASE_WORDS; /* the fail label */                              \
                                               goto special_##shape##_allocate_shift_call)
        BASE_CASE(plus_xc)
        BASE_CASE(plus_yc)
        BASE_CASE(plus_xx)
        BASE_CASE(plus_xy)
        BASE_CASE(plus_yx)
        BASE_CASE(minus_xc)
        BASE_CASE(minus_yc)
        BASE_CASE(minus_xx)
        BASE_CASE(minus_xy)
        BASE_CASE(minus_yx)
#undef BASE_CASE
#undef BASE_CASE_TEST
    special_is_lt_cx:
        a = CR(I[2]);
        b = XR(I[3]);
        if (is_small(b))
            TEST((int64_t)a < (int64_t)b, 4);
        goto is_lt;
    special_is_lt_xx:
        a = XR(I[2]);
        b = XR(I[3]);
    is_lt:
        /* Small integers order as their words do, read as signed; floats
         * as their values (-0.0 and 0.0 are equal in OTP 25's order). */
        if (is_small(a) && is_small(b))
            TEST((int64_t)a < (int64_t)b, 4);
        if (is_float(a) && is_float(b))
            TEST(float_value(a) < float_value(b), 4);
        TEST(term_compare(a, b) < 0, 4);
    special_is_ge_xc:
        a = XR(I[2]);
        b = CR(I[3]);
        if (is_small(a))
            TEST((int64_t)a >= (int64_t)b, 4);
        goto is_ge;
    special_is_ge_cx:
        a = CR(I[2]);
        b = XR(I[3]);
        if (is_small(b))
            TEST((int64_t)a >= (int64_t)b, 4);
        goto is_ge;
    special_is_ge_xx:
        a = XR(I[2]);
        b = XR(I[3]);
    is_ge:
        if (is_small(a) && is_small(b))
            TEST((int64_t)a >= (int64_t)b, 4);
        if (is_float(a) && is_float(b))
            TEST(float_value(a) >= float_value(b), 4);
        TEST(term_compare(a, b) >= 0, 4);
    op_is_lt:
        a = SRC(I[2]);
        b = SRC(I[3]);
        goto is_lt;
    op_is_ge:
        a = SRC(I[2]);
        b = SRC(I[3]);
        goto is_ge;
    }
special_test_arity_x:
    TEST(tuple_arity(XR(I[2])) == I[3], 4);
special_is_tuple_x:
    TEST(is_tuple(XR(I[2])), 3);
special_is_tagged_tuple_x : {
    term t = XR(I[2]);
    TEST(is_tuple(t) && tuple_arity(t) == I[3] && tuple_elements(t)[0] == (term)I[4], 5);
}
special_is_nonempty_list_x:
    TEST(is_list(XR(I[2])), 3);
special_is_nonempty_list_get_list_xxx : {
    /* get_list at I + 3 takes the tested register apart. */
    term list = XR(I[2]);
    if (!is_list(list)) {
        I = LABEL(I[1]);
        DISPATCH();
    }
    XR(I[5]) = list_head(list);
    XR(I[6]) = list_tail(list);
    NEXT(7);
}
special_is_nil_x:
    TEST(XR(I[2]) == NIL, 3);

special_fmove_ff:
    FR_OF(I[2]) = FR_OF(I[1]);
    NEXT(3);
special_fmove_xf:
    FR_OF(I[2]) = float_value(XR(I[1]));
    NEXT(3);
    /* Two unboxings: the second's operands follow the first's opcode and
     * operands. */
#define FMOVE2(name, SRC1, SRC2)                                                                                       \
    special_##name : FR_OF(I[2]) = float_value(SRC1(I[1]));                                                            \
    FR_OF(I[5]) = float_value(SRC2(I[4]));                                                                             \
    NEXT(6);
    FMOVE2(fmove_xf_xf, XR, XR)
    FMOVE2(fmove_xf_yf, XR, YR)
    FMOVE2(fmove_yf_xf, YR, XR)
    FMOVE2(fmove_yf_yf, YR, YR)
#undef FMOVE2
    {
        /* get_tuple_element into x, then fmove of that x into a float
         * register (the fmove's operands from I[5]). */
        term field;
    special_get_tuple_element_xx_fmove:
        field = tuple_elements(XR(I[1]))[I[2]];
        goto tuple_field_fmove;
    special_get_tuple_element_yx_fmove:
        field = tuple_elements(YR(I[1]))[I[2]];
    tuple_field_fmove:
        XR(I[3]) = field;
        FR_OF(I[6]) = float_value(field);
        NEXT(7);
    }
special_fmove_yf:
    FR_OF(I[2]) = float_value(YR(I[1]));
    NEXT(3);
special_fmove_cf:
    FR_OF(I[2]) = float_value(CR(I[1]));
    NEXT(3);
    {
        term *boxed;
    special_fmove_fx:
        HALLOC(boxed, 2);
        XR(I[2]) = make_boxed(boxed);
        goto fmove_box;
    special_fmove_fy:
        HALLOC(boxed, 2);
        YR(I[2]) = make_boxed(boxed);
    fmove_box:
        boxed[0] = make_header(SUBTAG_FLOAT, 1);
        memcpy(&boxed[1], &FR_OF(I[1]), sizeof(double));
        NEXT(3);
    special_fmove_fx_fx:
        /* The second fmove's operands at I[4] and I[5]. */
        HALLOC(boxed, 4);
        XR(I[2]) = make_boxed(boxed);
        XR(I[5]) = make_boxed(boxed + 2);
        goto fmove_box_two;
    special_fmove_fy_fy:
        HALLOC(boxed, 4);
        YR(I[2]) = make_boxed(boxed);
        YR(I[5]) = make_boxed(boxed + 2);
    fmove_box_two:
        boxed[0] = make_header(SUBTAG_FLOAT, 1);
        memcpy(&boxed[1], &FR_OF(I[1]), sizeof(double));
        boxed[2] = make_header(SUBTAG_FLOAT, 1);
        memcpy(&boxed[3], &FR_OF(I[4]), sizeof(double));
        NEXT(6);
    }

special_select_val_immediate : {
    /* Pairs sorted by word: a binary search on words, none of which a
     * boxed value can equal. */
    term v = SRC(I[1]);
    if (is_immed(v)) {
        const uint64_t *table = I + 4;
        size_t lo = 0, hi = I[3] / 2;
        uint64_t key = v ^ (UINT64_C(1) << 63);
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            uint64_t here = table[2 * mid] ^ (UINT64_C(1) << 63);
            if (here == key) {
                I = LABEL(table[2 * mid + 1]);
                DISPATCH();
            }
            if (key < here)
                hi = mid;
            else
                lo = mid + 1;
        }
    }
    I = LABEL(I[2]);
    DISPATCH();
}

op_gc_bif1:
op_gc_bif2:
op_gc_bif3 : {
    /* fail, live, bif, args..., dst */
    struct beam_export *e = (struct beam_export *)(uintptr_t)I[3];
    unsigned n = (unsigned)e->arity, live = (unsigned)I[2];
    if (!e->bif) {
        missing = e;
        goto undefined_bif;
    }
    for (unsigned i = 0; i < n; i++)
        bif_args[i] = SRC(I[4 + i]);
    if (!RESUMED_AT(SITE_GC_BIF) && (gc_stress || heap_wants_gc(&p->heap))) {
        /* The arguments are roots too: after the live registers. */
        for (unsigned i = 0; i < n; i++)
            X[live + i] = bif_args[i];
        COLLECT(0, live + n, I, SITE_GC_BIF, heap_wants_gc(&p->heap));
        for (unsigned i = 0; i < n; i++)
            bif_args[i] = X[live + i];
    }
    /* In a body (no fail label) the builtin may trap; in a guard it runs
     * to the end. */
    p->bif_may_trap = !I[1];
    result = e->bif->fn(p, bif_args);
    p->bif_may_trap = false;
    if (is_non_value(result)) {
        if (p->fault_class == FAULT_TRAP) {
            trap_base = live;
            goto gc_bif_trapped;
        }
        missing = e;
        goto instruction_bif_failed;
    }
    DST(I[4 + n]) = result;
    NEXT(5 + n);
}

gc_bif_continue : {
    /* A trapped gc_bif's continuation: the live registers below
     * trap_base, its arguments from there. */
    struct beam_export *e = (struct beam_export *)(uintptr_t)I[3];
    unsigned n = (unsigned)e->arity;
    for (unsigned i = 0; i < n; i++)
        bif_args[i] = X[trap_base + i];
    p->bif_may_trap = true;
    result = bif_now(p, X + trap_base);
    p->bif_may_trap = false;
    if (is_non_value(result)) {
        if (p->fault_class == FAULT_TRAP)
            goto gc_bif_trapped;
        missing = e;
        goto instruction_bif_failed;
    }
    DST(I[4 + n]) = result;
    NEXT(5 + n);
}

gc_bif_trapped:
    /* Keep the live registers and, after them, the continuation's
     * arguments; resume at this instruction's continuation. */
    p->fault_class = FAULT_NONE;
    paused = paused_call(p);
    if (!paused)
        goto out_of_memory;
    memcpy(X + trap_base, proc_bif_call.args, proc_bif_call.arity * sizeof(term));
    *paused = (struct beam_paused_call){
        .site = I, .how = REPEAT_INSTRUCTION, .trap_fn = proc_bif_call.trap_fn, .trap_arity = proc_bif_call.arity};
    if (!save_state(p, E, trap_resume_code, cp, trap_base + proc_bif_call.arity))
        goto out_of_memory;
    return p->collected == PROC_WORK_ELSEWHERE ? BODY_COLLECT : BODY_YIELD; /* bif_trap_elsewhere: its work first */

    /* A bif/gc_bif instruction's builtin (`missing`) failed: a guard takes
     * its fail label, a body raises. */
instruction_bif_failed:
    if (I[1] && p->fault_class != FAULT_SYSTEM) {
        p->fault_class = FAULT_NONE;
        I = LABEL(I[1]);
        DISPATCH();
    }
    site.pc = I;
    {
        /* The operands: a bif instruction's from I[3], a gc_bif's (its
         * specialised handlers' too) from I[4]. */
        const void *op = (const void *)(uintptr_t)I[0];
        site.bif =
            raises_without_frame(missing, I + (op == &&op_bif1 || op == &&op_bif2 ? 3 : 4)) ? NULL : missing->bif;
    }
    site.bif_args = bif_args;
    goto raise_with_site;

undefined_bif : {
    /* bif/gc_bif instructions name builtins: one missing here is ours. */
    const struct beam_export *e = missing;
    size_t mlen, flen;
    const char *mtext = atom_text(e->module, &mlen), *ftext = atom_text(e->function, &flen);
    char why[200];
    snprintf(why, sizeof why, "the builtin %.*s:%.*s/%u is not implemented", (int)mlen, mtext, (int)flen, ftext,
             e->arity);
    sched_runtime_failure(p, why);
    goto fail_system;
}

    /* Labels without code between them may share an address, so each
     * variant sets what differs before the common code. */
    {
        bool with_heap;
    op_allocate:
    op_allocate_zero:
        with_heap = false;
        goto allocate;
    op_allocate_heap:
    op_allocate_heap_zero:
        with_heap = true;
    allocate : {
        uint64_t slots = I[1];
        uint64_t need = with_heap ? I[2] : 0;
        unsigned live = (unsigned)I[with_heap ? 3 : 2];
        if (STACK_SHORT(slots)) {
            term *moved = grow_stack(p, E, slots + 1);
            if (!moved)
                goto out_of_memory;
            E = moved;
        }
        E -= slots + 1;
        E[0] = (term)(uintptr_t)cp;
        cp = NULL; /* kept in the frame now */
        frame_slots_nil(E + 1, slots);
        if (with_heap)
            ENSURE_HEAP(need, live, I + 4);
        NEXT(with_heap ? 4 : 3);
    }
    }

    /* allocate of 0 to 4 slots without a heap need, where the stack has
     * the room (else the generic one grows it). */
#define ALLOCATE_SLOTS(slots)                                                                                          \
    special_allocate_##slots : if (__builtin_expect(STACK_SHORT(slots), 0)) goto op_allocate;                          \
    E -= (slots) + 1;                                                                                                  \
    E[0] = (term)(uintptr_t)cp;                                                                                        \
    for (int i = 1; i <= (slots); i++) /* unrolled: a constant count */                                                \
        E[i] = NIL;                                                                                                    \
    cp = NULL;                                                                                                         \
    NEXT(3);
    ALLOCATE_SLOTS(0)
    ALLOCATE_SLOTS(1)
    ALLOCATE_SLOTS(2)
    ALLOCATE_SLOTS(3)
    ALLOCATE_SLOTS(4)
#undef ALLOCATE_SLOTS
special_allocate : {
    /* allocate without a heap need, where the stack has the room (else the
     * generic one grows it): the frame, its slots [] until written. */
    uint64_t slots = I[1];
    if (__builtin_expect(STACK_SHORT(slots), 0))
        goto op_allocate;
    E -= slots + 1;
    E[0] = (term)(uintptr_t)cp;
    cp = NULL;
    frame_slots_nil(E + 1, slots);
    NEXT(3);
}

op_test_heap:
    ENSURE_HEAP(I[1], (unsigned)I[2], I + 3);
    NEXT(3);
special_test_heap_fmove_fx:
    /* fmove_fx at I + 3; after a collection the code resumes there, at
     * its own handler. */
    ENSURE_HEAP(I[1], (unsigned)I[2], I + 3);
    I += 3;
    goto special_fmove_fx;
special_test_heap_fmove_fx_fx:
    ENSURE_HEAP(I[1], (unsigned)I[2], I + 3);
    I += 3;
    goto special_fmove_fx_fx;
special_test_heap_put_list_registers:
    /* put_list_registers at I + 3; after a collection the code resumes
     * there, at its own handler. */
    ENSURE_HEAP(I[1], (unsigned)I[2], I + 3);
    I += 3;
    goto special_put_list_registers;

op_init:
    DST(I[1]) = NIL;
    NEXT(2);

op_init_yregs : {
    uint64_t n = I[1];
    for (uint64_t i = 0; i < n; i++)
        DST(I[2 + i]) = NIL;
    NEXT(2 + n);
}

op_deallocate:
    cp = (const uint64_t *)(uintptr_t)E[0];
    E += I[1] + 1;
    NEXT(2);

op_trim : {
    /* Drop the first I[1] y slots; the continuation moves up. */
    const uint64_t *saved = (const uint64_t *)(uintptr_t)E[0];
    E += I[1];
    E[0] = (term)(uintptr_t)saved;
    NEXT(3);
}

op_return:
    /* cp goes stale once used: a stack trace must not show it again. */
    I = cp;
    cp = NULL;
    DISPATCH();

special_move_deallocate_return:
    X[0] = SRC(I[1]);
    I += 3;
    /* fall through to the deallocate and return after the move */
special_deallocate_return:
    cp = (const uint64_t *)(uintptr_t)E[0];
    E += I[1] + 1;
    I = cp;
    cp = NULL;
    DISPATCH();
special_move_return:
    X[0] = SRC(I[1]);
    I = cp;
    cp = NULL;
    DISPATCH();

op_send : {
    if (bif_send_awaits_kernel(p, X[0])) {
        /* Waits for the kernel's boot as erlang:send/2 does: made as that
         * call, which returns here. */
        call_target = code_export(sched_engine(p->sched), A(erlang), A(send), 2);
        if (!call_target) {
            bif_out_of_memory(p);
            site.pc = I;
            goto raise_with_site;
        }
        call_how = 0;
        call_after = I + 1;
        goto call_export;
    }
    term to = bif_send_destination(p, X[0], X[1], NULL), msg = X[1];
    if (is_non_value(to)) {
        site.pc = I;
        send_fault_site(p, &site, bif_args, X);
        goto raise_with_site;
    }
    if (to == NIL) { /* {Name, Node} that reaches nobody: the send succeeds */
        X[0] = msg;
        NEXT(1);
    }
    enum send_result sent = sched_send(p, to, msg);
    if (sent == SEND_BLOCKED) {
        if (!save_state(p, E, I, cp, 2))
            goto out_of_memory;
        return BODY_BLOCKED;
    }
    if (sent == SEND_FAILED)
        goto fail_system;
    X[0] = msg;
    NEXT(1);
}

op_loop_rec : {
    term m = proc_receive_peek(p);
    if (is_non_value(m)) {
        I = LABEL(I[1]);
        DISPATCH();
    }
    X[0] = m;
    NEXT(3);
}

op_remove_message:
    proc_receive_take(p);
    NEXT(1);

op_timeout:
    proc_receive_restart(p);
    NEXT(1);

op_loop_rec_end:
    proc_receive_skip(p);
    I = LABEL(I[1]);
    DISPATCH();

/* A process about to wait collects first when its heap asks (no x
 * register is live): messages delivered to a waiting process whose block
 * is full go into fragments, and a receive loop that allocates nothing
 * else (a server answering with atoms) reaches no other safepoint, so
 * without this its fragments grew with every message it ever received
 * (OTP collects such a process when it is next scheduled in). The wait
 * repeats after a collection on a collector; the process was queued in
 * between, not waiting, so what was sent to it then went straight into its
 * inbox, which the receive scans first (else it would wait with the
 * message it waits for delivered). Only where the heap asks, even under
 * CLAUSE_GC_STRESS: a process that waits must not count collections OTP
 * would not make (process_info's minor_gcs). */
#define COLLECT_BEFORE_WAIT()                                                                                          \
    do {                                                                                                               \
        if (RESUMED_AT(SITE_WAIT)) {                                                                                   \
            if (p->mailbox.inboxed > 0) {                                                                              \
                I = LABEL(I[1]);                                                                                       \
                DISPATCH();                                                                                            \
            }                                                                                                          \
        } else if (heap_wants_gc(&p->heap)) {                                                                          \
            COLLECT(0, 0, I, SITE_WAIT, true);                                                                         \
        }                                                                                                              \
    } while (0)
op_wait:
    /* Messages that arrived since the scan ended are scanned first: a
     * receive whose loop does not peek (receive after T) would otherwise be
     * woken by them over and over. */
    if (message_arrivals_pending(p)) {
        if (!proc_receive_take_arrivals(p))
            goto fail_system;
        I = LABEL(I[1]);
        DISPATCH();
    }
    COLLECT_BEFORE_WAIT();
    sched_set_wait_timeout(p, -1);
    if (!save_state(p, E, LABEL(I[1]), cp, 0))
        goto out_of_memory;
    shrink_parked_stack(p);
    return BODY_WAIT;

op_wait_timeout : {
    int64_t ms = 1;
    if (p->receive_deadline == 0) {
        /* BEAM evaluates the timeout once per receive; its operand (an x
         * register, say) need not be live when the receive waits again. */
        if (!proc_receive_timeout_value(SRC(I[2]), &ms)) {
            proc_receive_restart(p);
            bif_error(p, A(timeout_value));
            site.pc = I;
            goto raise_with_site;
        }
        if (ms == 0)
            NEXT(3);
        sched_start_receive_timeout(p, ms);
    } else if (p->receive_deadline == RECEIVE_NO_DEADLINE) {
        ms = -1; /* after infinity, from a register: wait as long again */
    } else if (sched_receive_timeout_passed(p)) {
        NEXT(3); /* messages kept it from waiting until its deadline passed */
    }
    if (message_arrivals_pending(p)) {
        if (!proc_receive_take_arrivals(p))
            goto fail_system;
        I = LABEL(I[1]);
        DISPATCH();
    }
    COLLECT_BEFORE_WAIT();
    sched_set_wait_timeout(p, ms);
    if (!save_state(p, E, I, cp, 0))
        goto out_of_memory;
    shrink_parked_stack(p);
    p->beam_resume_timeout = true;
    return BODY_WAIT;
}

/* Receive markers (see mailbox.h): a receive for a fresh reference skips
 * the messages queued before the reference existed. */
op_recv_marker_reserve:
    DST(I[1]) = mailbox_marker_reserve(&p->mailbox);
    NEXT(2);
op_recv_marker_bind:
    mailbox_marker_bind(&p->mailbox, SRC(I[1]), SRC(I[2]));
    NEXT(3);
op_recv_marker_clear:
    mailbox_marker_clear(&p->mailbox, SRC(I[1]));
    NEXT(2);
op_recv_marker_use:
    mailbox_marker_use(&p->mailbox, SRC(I[1]));
    NEXT(2);

op_is_eq:
    TEST(term_compare(SRC(I[2]), SRC(I[3])) == 0, 4);
op_is_ne:
    TEST(term_compare(SRC(I[2]), SRC(I[3])) != 0, 4);
op_is_eq_exact : {
    term a = SRC(I[2]), b = SRC(I[3]);
    TEST(a == b || term_eq_exact(a, b), 4);
}
op_is_ne_exact : {
    term a = SRC(I[2]), b = SRC(I[3]);
    TEST(a != b && !term_eq_exact(a, b), 4);
}
op_is_integer:
    TEST(is_integer(SRC(I[2])), 3);
op_is_float:
    TEST(is_float(SRC(I[2])), 3);
op_is_number:
    TEST(is_number(SRC(I[2])), 3);
op_is_atom:
    TEST(is_atom(SRC(I[2])), 3);
op_is_pid:
    TEST(is_pid(SRC(I[2])), 3);
op_is_reference:
    TEST(is_ref(SRC(I[2])), 3);
op_is_port:
    TEST(is_port(SRC(I[2])), 3);
op_is_nil:
    TEST(SRC(I[2]) == NIL, 3);
op_is_binary : {
    term t = SRC(I[2]);
    TEST(is_bitstring(t) && is_binary_whole(t), 3);
}
op_is_bitstr:
    TEST(is_bitstring(SRC(I[2])), 3);
op_is_list : {
    term t = SRC(I[2]);
    TEST(is_list(t) || t == NIL, 3);
}
op_is_nonempty_list:
    TEST(is_list(SRC(I[2])), 3);
op_is_tuple:
    TEST(is_tuple(SRC(I[2])), 3);
op_is_map:
    TEST(is_map(SRC(I[2])), 3);
op_is_boolean : {
    term t = SRC(I[2]);
    TEST(t == A(true) || t == A(false), 3);
}
op_is_function:
    TEST(is_fun(SRC(I[2])), 3);
op_is_function2 : {
    term f = SRC(I[2]), arity = SRC(I[3]);
    bool ok = false;
    if (is_fun(f) && is_small(arity)) {
        int64_t a = small_value(arity);
        ok = is_local_fun(f) ? fun_entry_of(f)->arity == a : small_value(boxed_ptr(f)[3]) == a;
    }
    TEST(ok, 4);
}
op_test_arity : {
    term t = SRC(I[2]);
    TEST(tuple_arity(t) == I[3], 4);
}
op_is_tagged_tuple : {
    term t = SRC(I[2]);
    TEST(is_tuple(t) && tuple_arity(t) == I[3] && tuple_elements(t)[0] == (term)I[4], 5);
}

op_select_val : {
    term v = SRC(I[1]);
    uint64_t pairs = I[3] / 2;
    const uint64_t *table = I + 4;
    size_t lo = 0, hi = pairs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = beam_select_compare(v, (term)table[2 * mid]);
        if (c == 0) {
            I = LABEL(table[2 * mid + 1]);
            DISPATCH();
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    I = LABEL(I[2]);
    DISPATCH();
}

op_select_tuple_arity : {
    term t = SRC(I[1]);
    if (is_tuple(t)) {
        uint64_t arity = tuple_arity(t), pairs = I[3] / 2;
        const uint64_t *table = I + 4;
        size_t lo = 0, hi = pairs;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (table[2 * mid] == arity) {
                I = LABEL(table[2 * mid + 1]);
                DISPATCH();
            }
            if (arity < table[2 * mid])
                hi = mid;
            else
                lo = mid + 1;
        }
    }
    I = LABEL(I[2]);
    DISPATCH();
}

op_jump:
    I = LABEL(I[1]);
    DISPATCH();

    /* Prepared code never comes here: every shape of move and fmove has
     * its handler (special_for); the table's entries find the same one. */
op_move:
    goto *special_handlers[special_for(I, BEAM_OP_move, NULL)];
op_fmove:
    goto *special_handlers[special_for(I, BEAM_OP_fmove, NULL)];

op_swap : {
    term a = DST(I[1]);
    DST(I[1]) = DST(I[2]);
    DST(I[2]) = a;
    NEXT(3);
}

op_get_list : {
    term l = SRC(I[1]);
    term head = list_head(l), tail = list_tail(l);
    DST(I[2]) = head;
    DST(I[3]) = tail;
    NEXT(4);
}
op_get_hd:
    DST(I[2]) = list_head(SRC(I[1]));
    NEXT(3);
op_get_tl:
    DST(I[2]) = list_tail(SRC(I[1]));
    NEXT(3);

op_get_tuple_element:
    DST(I[3]) = tuple_elements(SRC(I[1]))[I[2]];
    NEXT(4);

op_set_tuple_element:
    /* Only on a tuple this function just built (record updates), which is
     * young; heap_write keeps that an assumption, not a requirement. */
    heap_write(&p->heap, &tuple_elements(SRC(I[2]))[I[3]], SRC(I[1]));
    NEXT(4);

/* put_list's cell of HEAD and TAIL into the destination DST_(I[3]), for
 * the generic handler and its register shapes. */
#define PUT_LIST(HEAD, TAIL, DST_)                                                                                     \
    do {                                                                                                               \
        term *cell;                                                                                                    \
        term head = (HEAD), tail = (TAIL);                                                                             \
        HALLOC(cell, 2);                                                                                               \
        cell[0] = head;                                                                                                \
        cell[1] = tail;                                                                                                \
        DST_(I[3]) = make_list(cell);                                                                                  \
        NEXT(4);                                                                                                       \
    } while (0)
op_put_list:
    PUT_LIST(SRC(I[1]), SRC(I[2]), DST);

    /* The register file chosen by the operand's y bit, not branched on
     * (REGISTER_AT, as put_tuple2_registers). */
special_put_list_registers : {
    const char *x_base = (const char *)X, *y_base = (const char *)E + 4;
    PUT_LIST(REGISTER_AT(I[1]), REGISTER_AT(I[2]), XR);
}
special_put_list_register_constant : {
    const char *x_base = (const char *)X, *y_base = (const char *)E + 4;
    PUT_LIST(REGISTER_AT(I[1]), (term)I[2], XR);
}
#undef PUT_LIST

op_put_tuple2 : {
    uint64_t n = I[2];
    term *t;
    HALLOC(t, n + 1);
    t[0] = make_header(SUBTAG_TUPLE, n);
    for (uint64_t i = 0; i < n; i++)
        t[1 + i] = SRC(I[3 + i]);
    DST(I[1]) = make_boxed(t);
    NEXT(3 + n);
}

special_put_tuple2_registers : {
    /* The register file chosen by the operand's y bit, not branched on: the
     * sources of a tuple mix x and y registers in no pattern. */
    uint64_t n = I[2];
    term *t;
    HALLOC(t, n + 1);
    t[0] = make_header(SUBTAG_TUPLE, n);
    const char *x_base = (const char *)X, *y_base = (const char *)E + 4;
    /* Two elements a step: tuples of registers are mostly small. */
    uint64_t i = 0;
    if (n & 1) {
        t[1] = REGISTER_AT(I[3]);
        i = 1;
    }
    for (; i < n; i += 2) {
        uint64_t w0 = I[3 + i], w1 = I[4 + i];
        t[1 + i] = REGISTER_AT(w0);
        t[2 + i] = REGISTER_AT(w1);
    }
    DST(I[1]) = make_boxed(t);
    NEXT(3 + n);
}

op_badmatch:
    error_tuple(p, A(badmatch), SRC(I[1]));
    site.pc = I;
    goto raise_with_site;
op_case_end:
    error_tuple(p, A(case_clause), SRC(I[1]));
    site.pc = I;
    goto raise_with_site;
op_try_case_end:
    error_tuple(p, A(try_clause), SRC(I[1]));
    site.pc = I;
    goto raise_with_site;
op_badrecord:
    error_tuple(p, A(badrecord), SRC(I[1]));
    site.pc = I;
    goto raise_with_site;
op_if_end:
    bif_error(p, A(if_clause));
    site.pc = I;
    goto raise_with_site;

    {
        bool three;
    op_make_fun2:
        three = false;
        goto make_fun;
    op_make_fun3:
        three = true;
    make_fun : {
        const struct fun_entry *fe = (const struct fun_entry *)(uintptr_t)I[1];
        term *f;
        HALLOC(f, BEAM_FUN_WORDS + fe->num_free);
        f[0] = make_header(SUBTAG_FUN, FUN_FIXED_WORDS + fe->num_free);
        f[1] = (term)(uintptr_t)fe;
        if (three) {
            uint64_t n = I[3];
            for (uint64_t i = 0; i < n && i < fe->num_free; i++)
                f[2 + i] = SRC(I[4 + i]);
            DST(I[2]) = make_boxed(f);
            NEXT(4 + n);
        }
        for (uint32_t i = 0; i < fe->num_free; i++)
            f[2 + i] = X[i];
        X[0] = make_boxed(f);
        NEXT(2);
    }
    }

    {
        unsigned fun_words; /* call_fun 2, call_fun2 4 */
    op_call_fun:
        call_fun_arity = (unsigned)I[1];
        call_fun_term = X[call_fun_arity];
        fun_words = 2;
        goto call_fun;
    op_call_fun2:
        call_fun_arity = (unsigned)I[2];
        call_fun_term = SRC(I[3]);
        fun_words = 4;
    call_fun : {
        /* The fun's own register stays live too when it is an x register. */
        unsigned live = call_fun_arity + 1;
        uint64_t fun_operand = fun_words == 4 ? I[3] : 0;
        if (beam_is_register(fun_operand) && beam_register_kind(fun_operand) == BEAM_REG_X &&
            beam_register_index(fun_operand) >= live)
            live = beam_register_index(fun_operand) + 1;
        ENTRY(live);
        call_how = 0;
        call_after = I + fun_words;
        call_fun_instruction = true;
        /* A fun called in tail position is a last call, as OTP's loader
         * fuses call_fun and call_fun2 with the deallocate and return after
         * them (i_call_fun_last): a loop through a fun (G(G, N - 1)) then
         * runs in constant stack, and stack traces and current_stacktrace
         * do not show the caller's frame. */
        const void *next = (const void *)(uintptr_t)call_after[0];
        if (next == &&special_deallocate_return ||
            (next == &&op_deallocate && (const void *)(uintptr_t)call_after[2] == &&op_return)) {
            call_how = 1;
            call_dealloc = call_after[1];
        }
        goto call_fun_value;
    }
    }

    {
        unsigned arity;
    op_apply:
        arity = (unsigned)I[1];
        call_how = 0;
        call_after = I + 2;
        goto apply;
    op_apply_last:
        arity = (unsigned)I[1];
        call_how = 1;
        call_dealloc = I[2];
    apply : {
        ENTRY(arity + 2);
        term module = X[arity], function = X[arity + 1];
        if (!is_atom(module) || !is_atom(function)) {
            bif_badarg(p);
            site.pc = I;
            goto raise_with_site;
        }
        call_target = code_export(sched_engine(p->sched), module, function, arity);
        if (!call_target)
            goto out_of_memory;
        goto call_export;
    }
    }

    /* ---- floats ---- */
op_fclearerror:
    NEXT(1);
op_fcheckerror:
    NEXT(2);
op_fconv : {
    term t = SRC(I[1]);
    double d;
    if (is_float(t)) {
        d = float_value(t);
    } else if (!is_integer(t) || !int_to_double(t, &d)) {
        bif_badarith(p);
        site.pc = I;
        goto raise_with_site;
    }
    FR_OF(I[2]) = d;
    NEXT(3);
}
/* Each operation with its own check and dispatch (no jump to a shared
 * tail): a result that is not finite is badarith (FLOAT_NOT_FINITE). */
#define FLOAT_OP(name, OP)                                                                                             \
    op_##name:                                                                                                         \
    {                                                                                                                  \
        double r = FR_OF(I[2]) OP FR_OF(I[3]);                                                                         \
        if (FLOAT_NOT_FINITE(r))                                                                                       \
            goto float_not_finite;                                                                                     \
        FR_OF(I[4]) = r;                                                                                               \
        NEXT(5);                                                                                                       \
    }
    FLOAT_OP(fadd, +)
    FLOAT_OP(fsub, -)
    FLOAT_OP(fmul, *)
    FLOAT_OP(fdiv, /)
#undef FLOAT_OP
/* fused_for's float pairs: the second operation at I + 5, its operands at
 * I[7] and I[8]; a result that is not finite is the failing operation's. */
#define FLOAT_PAIR(name, FIRST_OP, SECOND)                                                                             \
    special_##name:                                                                                                    \
    {                                                                                                                  \
        double r1 = FR_OF(I[2]) FIRST_OP FR_OF(I[3]);                                                                  \
        if (FLOAT_NOT_FINITE(r1))                                                                                      \
            goto float_not_finite;                                                                                     \
        FR_OF(I[4]) = r1;                                                                                              \
        double r2 = SECOND;                                                                                            \
        if (FLOAT_NOT_FINITE(r2)) {                                                                                    \
            I += 5;                                                                                                    \
            goto float_not_finite;                                                                                     \
        }                                                                                                              \
        FR_OF(I[9]) = r2;                                                                                              \
        NEXT(10);                                                                                                      \
    }
#define FLOAT_PAIRS_AFTER_OP(first, FIRST_OP)                                                                          \
    FLOAT_PAIR(first##_fadd_a, FIRST_OP, r1 + FR_OF(I[8]))                                                             \
    FLOAT_PAIR(first##_fadd_b, FIRST_OP, FR_OF(I[7]) + r1)                                                             \
    FLOAT_PAIR(first##_fsub_a, FIRST_OP, r1 - FR_OF(I[8]))                                                             \
    FLOAT_PAIR(first##_fsub_b, FIRST_OP, FR_OF(I[7]) - r1)                                                             \
    FLOAT_PAIR(first##_fmul_a, FIRST_OP, r1 *FR_OF(I[8]))                                                              \
    FLOAT_PAIR(first##_fmul_b, FIRST_OP, FR_OF(I[7]) * r1)                                                             \
    FLOAT_PAIR(first##_fdiv_a, FIRST_OP, r1 / FR_OF(I[8]))                                                             \
    FLOAT_PAIR(first##_fdiv_b, FIRST_OP, FR_OF(I[7]) / r1)
    FLOAT_PAIRS_AFTER_OP(fadd, +)
    FLOAT_PAIRS_AFTER_OP(fsub, -)
    FLOAT_PAIRS_AFTER_OP(fmul, *)
    FLOAT_PAIRS_AFTER_OP(fdiv, /)
#undef FLOAT_PAIRS_AFTER_OP
#undef FLOAT_PAIR
/* fused_for's fmove and float operation: the fmove's source at I[1] and
 * float register at I[2] (still written: later code may read it), the
 * operation's operands at I[5] and I[6], its result at I[7]. The value
 * goes into the operation without a store and reload between them. */
#define FMOVE_FLOAT_OP(name, LOAD, EXPR)                                                                               \
    special_##name:                                                                                                    \
    {                                                                                                                  \
        double v = float_value(LOAD(I[1]));                                                                            \
        FR_OF(I[2]) = v;                                                                                               \
        double r = EXPR;                                                                                               \
        if (FLOAT_NOT_FINITE(r)) {                                                                                     \
            I += 3;                                                                                                    \
            goto float_not_finite;                                                                                     \
        }                                                                                                              \
        FR_OF(I[7]) = r;                                                                                               \
        NEXT(8);                                                                                                       \
    }
#define FMOVE_FLOAT_OPS_WITH(source, LOAD)                                                                             \
    FMOVE_FLOAT_OP(source##_fadd_a, LOAD, v + FR_OF(I[6]))                                                             \
    FMOVE_FLOAT_OP(source##_fadd_b, LOAD, FR_OF(I[5]) + v)                                                             \
    FMOVE_FLOAT_OP(source##_fsub_a, LOAD, v - FR_OF(I[6]))                                                             \
    FMOVE_FLOAT_OP(source##_fsub_b, LOAD, FR_OF(I[5]) - v)                                                             \
    FMOVE_FLOAT_OP(source##_fmul_a, LOAD, v *FR_OF(I[6]))                                                              \
    FMOVE_FLOAT_OP(source##_fmul_b, LOAD, FR_OF(I[5]) * v)                                                             \
    FMOVE_FLOAT_OP(source##_fdiv_a, LOAD, v / FR_OF(I[6]))                                                             \
    FMOVE_FLOAT_OP(source##_fdiv_b, LOAD, FR_OF(I[5]) / v)
    FMOVE_FLOAT_OPS_WITH(fmove_xf, XR)
    FMOVE_FLOAT_OPS_WITH(fmove_cf, CR)
#undef FMOVE_FLOAT_OPS_WITH
#undef FMOVE_FLOAT_OP
float_not_finite:
    bif_badarith(p);
    site.pc = I;
    goto raise_with_site;
op_fnegate:
    FR_OF(I[3]) = -FR_OF(I[2]);
    NEXT(4);

    /* ---- maps ---- */
    {
        bool exact;
    op_put_map_assoc:
        exact = false;
        goto put_map;
    op_put_map_exact:
        exact = true;
    put_map : {
        /* fail, source, dst, live, count, then key-value pairs (in live
         * registers or constants, so the collection keeps them). */
        term map = SRC(I[2]);
        uint64_t n = I[5];
        COLLECT_KEEPING(map, (unsigned)I[4]);
        if (!is_map(map)) {
            error_tuple(p, A(badmap), map);
            site.pc = I;
            goto raise_with_site;
        }
        for (uint64_t i = 0; i < n; i += 2) {
            term key = SRC(I[6 + i]);
            if (exact && is_non_value(map_get(map, key))) {
                error_tuple(p, A(badkey), key);
                site.pc = I;
                goto raise_with_site;
            }
            map = map_put(&p->heap, map, key, SRC(I[6 + i + 1]));
            if (is_non_value(map))
                goto out_of_memory;
        }
        DST(I[3]) = map;
        NEXT(6 + n);
    }
    }
op_has_map_fields : {
    term map = SRC(I[2]);
    uint64_t n = I[3];
    for (uint64_t i = 0; i < n; i++)
        if (is_non_value(map_get(map, SRC(I[4 + i])))) {
            I = LABEL(I[1]);
            DISPATCH();
        }
    NEXT(4 + n);
}
op_get_map_elements : {
    term map = SRC(I[2]);
    uint64_t n = I[3];
    /* Look everything up first: a destination may be a source's register. */
    term values[64];
    for (uint64_t i = 0; i < n; i += 2) {
        term v = map_get(map, SRC(I[4 + i]));
        if (is_non_value(v)) {
            I = LABEL(I[1]);
            DISPATCH();
        }
        if (i / 2 < 64)
            values[i / 2] = v;
        else
            DST(I[4 + i + 1]) = v;
    }
    for (uint64_t i = 0; i < n && i / 2 < 64; i += 2)
        DST(I[4 + i + 1]) = values[i / 2];
    NEXT(4 + n);
}

    /* ---- exceptions ---- */
op_catch:
op_try:
    DST(I[1]) = make_catch((uint64_t)(uintptr_t)LABEL(I[2]));
    NEXT(3);

op_try_end:
    DST(I[1]) = NIL;
    NEXT(2);

op_try_case:
    DST(I[1]) = NIL;
    X[0] = X[1];
    X[1] = X[2];
    X[2] = X[3];
    NEXT(2);

op_catch_end:
    DST(I[1]) = NIL;
    if (is_non_value(X[0])) {
        /* catch Expr raised: throw gives its value, exit {'EXIT', R},
         * error {'EXIT', {R, Trace}}. */
        term class = X[1], reason = X[2];
        if (class == A(throw)) {
            X[0] = reason;
        } else {
            if (class == A(error)) {
                term trace = raw_trace_term(p, X[3]);
                reason = is_value(trace) ? heap_tuple2(&p->heap, reason, trace) : trace;
                if (is_non_value(reason))
                    goto out_of_memory;
            }
            term t = heap_tuple2(&p->heap, A(EXIT), reason);
            if (is_non_value(t))
                goto out_of_memory;
            X[0] = t;
        }
    }
    NEXT(2);

op_build_stacktrace:
    X[0] = raw_trace_term(p, X[0]);
    if (is_non_value(X[0]))
        goto out_of_memory;
    NEXT(1);

op_raise : {
    /* raise Trace, Reason: rethrow with the class and trace of the raw trace. */
    term raw = SRC(I[1]), reason = SRC(I[2]);
    enum fault_class c = FAULT_ERROR;
    if (is_tuple(raw) && tuple_arity(raw) >= 2 && class_of_atom(tuple_element(raw, RAW_CLASS)) != FAULT_NONE)
        c = class_of_atom(tuple_element(raw, RAW_CLASS));
    bif_raise(p, c, reason);
    result = raw;
    goto rethrow;
}

op_raw_raise : {
    /* x0 class, x1 reason, x2 raw trace */
    enum fault_class c = class_of_atom(X[0]);
    if (c == FAULT_NONE) {
        bif_badarg(p);
        site.pc = I;
        goto raise_with_site;
    }
    bif_raise(p, c, X[1]);
    result = X[2];
    goto rethrow;
}

    /* ---- bit syntax (bits.h) ---- */
    {
        enum bits_result bits_result;
        const uint64_t *bits_fail;
    op_bs_start_match3 : {
        term src = SRC(I[2]);
        COLLECT_KEEPING(src, (unsigned)I[3]);
        term ctx = bits_start_match(&p->heap, src, &bits_result);
        if (is_non_value(ctx)) {
            bits_fail = LABEL(I[1]);
            goto bits_failed;
        }
        DST(I[4]) = ctx;
        NEXT(5);
    }
    op_bs_start_match4 : {
        term src = SRC(I[3]);
        if (bits_is_context(src) && !collect_resumed_at && !gc_stress) {
            /* A loop's next match reuses its context: nothing to allocate. */
            DST(I[4]) = src;
            NEXT(5);
        }
        COLLECT_KEEPING(src, (unsigned)I[2]);
        term ctx = bits_start_match(&p->heap, src, &bits_result);
        if (is_non_value(ctx)) {
            /* no_fail / resume: the compiler proved it a bitstring. */
            bits_fail = is_atom((term)I[1]) ? NULL : LABEL(I[1]);
            goto bits_failed;
        }
        DST(I[4]) = ctx;
        NEXT(5);
    }
        int bs_get_kind; /* 0 integer, 1 binary, 2 float */
    op_bs_get_integer2:
        bs_get_kind = 0;
        goto bs_get;
    op_bs_get_binary2:
        bs_get_kind = 1;
        goto bs_get;
    op_bs_get_float2:
        bs_get_kind = 2;
    bs_get : {
        term ctx = SRC(I[2]), size = SRC(I[4]), value = THE_NON_VALUE;
        COLLECT_KEEPING(ctx, (unsigned)I[3]);
        uint64_t unit = I[5];
        unsigned flags = (unsigned)I[6];
        uint64_t bits;
        if (is_small(size) && small_value(size) >= 0)
            bits = (uint64_t)small_value(size) * unit;
        else if (size == A(all))
            bits = UINT64_MAX;
        else {
            I = LABEL(I[1]);
            DISPATCH();
        }
        if (bs_get_kind == 1)
            bits_result = bits_get_binary(&p->heap, ctx, bits, (unsigned)unit, &value);
        else if (bits == UINT64_MAX)
            bits_result = BITS_NO_MATCH;
        else if (bs_get_kind == 0)
            bits_result = bits_get_integer(&p->heap, ctx, bits, flags, &value);
        else
            bits_result = bits_get_float(&p->heap, ctx, bits, flags, &value);
        if (bits_result != BITS_OK) {
            bits_fail = LABEL(I[1]);
            goto bits_failed;
        }
        DST(I[7]) = value;
        NEXT(8);
    }
    special_bs_get_small : {
        /* op_bs_get_integer2's operands, of the shape special_for checked.
         * A small allocates nothing, so only a collection under GC stress
         * (or one resuming after a collector) takes the generic path. */
        term value;
        if (collect_resumed_at || gc_stress)
            goto op_bs_get_integer2;
        if (!bits_get_small(XR(I[2]), (unsigned)((uint64_t)small_value((term)I[4]) * I[5]), (unsigned)I[6], &value)) {
            I = LABEL(I[1]);
            DISPATCH();
        }
        DST(I[7]) = value;
        NEXT(8);
    }
    op_bs_skip_bits2 : {
        term size = SRC(I[3]);
        uint64_t bits;
        if (is_small(size) && small_value(size) >= 0)
            bits = (uint64_t)small_value(size) * I[4];
        else if (size == A(all))
            bits = UINT64_MAX;
        else {
            I = LABEL(I[1]);
            DISPATCH();
        }
        bits_result = bits_skip(SRC(I[2]), bits);
        if (bits_result != BITS_OK) {
            bits_fail = LABEL(I[1]);
            goto bits_failed;
        }
        NEXT(6);
    }
    op_bs_test_tail2:
        TEST(bits_test_tail(SRC(I[2]), I[3]), 4);
    op_bs_test_unit:
        TEST(bits_test_unit(SRC(I[2]), (unsigned)I[3]), 4);
    op_bs_match_string:
        bits_result = bits_match_string(SRC(I[2]), (const uint8_t *)(uintptr_t)I[4], I[3]);
        if (bits_result != BITS_OK) {
            bits_fail = LABEL(I[1]);
            goto bits_failed;
        }
        NEXT(5);
    op_bs_get_tail : {
        term value;
        bits_result = bits_get_tail(&p->heap, SRC(I[1]), &value);
        if (bits_result != BITS_OK) {
            bits_fail = NULL;
            goto bits_failed;
        }
        DST(I[2]) = value;
        NEXT(4);
    }
    op_bs_get_position:
        DST(I[2]) = bits_position(SRC(I[1]));
        NEXT(4);
    op_bs_set_position:
        bits_set_position(SRC(I[1]), SRC(I[2]));
        NEXT(3);
        int bs_utf; /* 8, 16 or 32 */
        bool bs_utf_skip;
    op_bs_get_utf8:
        bs_utf = 8;
        bs_utf_skip = false;
        goto bs_utf_get;
    op_bs_skip_utf8:
        bs_utf = 8;
        bs_utf_skip = true;
        goto bs_utf_get;
    op_bs_get_utf16:
        bs_utf = 16;
        bs_utf_skip = false;
        goto bs_utf_get;
    op_bs_skip_utf16:
        bs_utf = 16;
        bs_utf_skip = true;
        goto bs_utf_get;
    op_bs_get_utf32:
        bs_utf = 32;
        bs_utf_skip = false;
        goto bs_utf_get;
    op_bs_skip_utf32:
        bs_utf = 32;
        bs_utf_skip = true;
    bs_utf_get : {
        /* fail, ctx, live, flags[, dst] */
        term value;
        unsigned flags = (unsigned)I[4];
        bits_result = bs_utf == 8    ? bits_get_utf8(SRC(I[2]), &value)
                      : bs_utf == 16 ? bits_get_utf16(SRC(I[2]), flags, &value)
                                     : bits_get_utf32(SRC(I[2]), flags, &value);
        if (bits_result != BITS_OK) {
            bits_fail = LABEL(I[1]);
            goto bits_failed;
        }
        if (bs_utf_skip)
            NEXT(5);
        DST(I[5]) = value;
        NEXT(6);
    }
    op_bs_init_writable : {
        term empty = bits_init_writable(&p->heap, X[0]);
        if (is_non_value(empty))
            goto out_of_memory;
        X[0] = empty;
        NEXT(1);
    }
    op_bs_create_bin : {
        /* fail, heap, live, unit, dst, count, then six words a segment:
         * kind, number, unit, flags, value, size (the kind and the flags
         * decoded when the module was prepared). As
         * OTP's, a construction may collect first (live x registers are the
         * roots, the sources among them): binaries appended to off-heap count
         * towards the virtual binary heap (binary.h). */
        if (!RESUMED_AT(SITE_BS_CREATE_BIN) && (gc_stress || heap_wants_gc(&p->heap)))
            COLLECT(0, (unsigned)I[3], I, SITE_BS_CREATE_BIN, heap_wants_gc(&p->heap));
        uint64_t count = I[6] / 6;
        struct bits_segment inline_segments[16];
        struct bits_segment *segments = inline_segments;
        if (count > 16 && !(segments = malloc(count * sizeof *segments)))
            goto out_of_memory;
        for (uint64_t i = 0; i < count; i++) {
            const uint64_t *w = I + 7 + 6 * i;
            segments[i].kind = (enum bits_segment_kind)w[0];
            segments[i].unit = (unsigned)w[2];
            segments[i].flags = (unsigned)w[3];
            segments[i].value = segments[i].kind == BITS_SEG_STRING ? (term)w[4] : SRC(w[4]);
            segments[i].size = SRC(w[5]);
        }
        term value;
        bits_result = bits_create(&p->heap, segments, count, &value);
        if (bits_result == BITS_NO_MATCH && !I[1]) {
            bif_badarg(p);
            bs_create_fault_info(p, I, segments, count); /* before the segments go */
        }
        if (segments != inline_segments)
            free(segments);
        if (bits_result != BITS_OK) {
            if (bits_result == BITS_NO_MATCH && !I[1]) {
                site.pc = I;
                goto raise_with_site;
            }
            bits_fail = I[1] ? LABEL(I[1]) : NULL;
            goto bits_failed;
        }
        DST(I[5]) = value;
        NEXT(7 + I[6]);
    }
    special_bs_append_integers : {
        /* op_bs_create_bin's operands, of the shape special_for checked. A
         * private_append allocates nothing, so it collects nowhere; an
         * append allocates its result: where a collection is due (or
         * repeats after one on a collector), and under CLAUSE_GC_STRESS,
         * the generic path collects first. */
        bool private_append = I[7] == BITS_SEG_PRIVATE_APPEND;
        if (gc_stress || (!private_append && (collect_resumed_at || heap_wants_gc(&p->heap))))
            goto op_bs_create_bin;
        uint64_t count = I[6] / 6 - 1;
        uint64_t values[BITS_APPEND_INTEGERS_MAX];
        unsigned widths[BITS_APPEND_INTEGERS_MAX], flags[BITS_APPEND_INTEGERS_MAX];
        const uint64_t *w = I + 13;
        for (uint64_t i = 0; i < count; i++, w += 6) {
            widths[i] = (unsigned)((uint64_t)small_value((term)w[5]) * w[2]);
            flags[i] = (unsigned)w[3];
            if (w[0] == BITS_SEG_STRING) {
                /* Its bytes, most significant first: a big-endian integer. */
                const uint8_t *bytes = (const uint8_t *)(uintptr_t)w[4];
                uint64_t v = 0;
                for (unsigned b = 0; b < widths[i] / 8; b++)
                    v = v << 8 | bytes[b];
                values[i] = v;
                flags[i] = 0;
                continue;
            }
            term v = SRC(w[4]);
            if (!is_small(v))
                goto op_bs_create_bin;
            values[i] = (uint64_t)small_value(v);
        }
        if (!bits_append_integers(&p->heap, SRC(I[11]), private_append, (unsigned)I[9], values, widths, flags, count,
                                  &result))
            goto op_bs_create_bin;
        DST(I[5]) = result;
        NEXT(7 + I[6]);
    }
    bits_failed:
        if (bits_result == BITS_NO_MEMORY)
            goto out_of_memory;
        if (!bits_fail) {
            bif_badarg(p);
            site.pc = I;
            goto raise_with_site;
        }
        I = bits_fail;
        DISPATCH();
    }

op_on_load:
op_nif_start:
    NEXT(1);

op_unsupported : {
    char why[160];
    const struct beam_module *m = code_module_of(sched_engine(p->sched), I);
    term function;
    unsigned arity;
    size_t len = 0;
    const char *name = m ? atom_text(m->name, &len) : "?";
    if (m && function_of(m, I, &function, &arity)) {
        size_t flen;
        const char *fname = atom_text(function, &flen);
        snprintf(why, sizeof why, "an instruction clause does not run yet, in %.*s:%.*s/%u", (int)len, name, (int)flen,
                 fname, arity);
    } else {
        snprintf(why, sizeof why, "an instruction clause does not run yet");
    }
    sched_runtime_failure(p, why);
    goto fail_system;
}

call_blocked:
    p->fault_class = FAULT_NONE;
    repeat_stop = BODY_BLOCKED;
stop_to_repeat_call:
    /* Resume by repeating the call: how it continues is kept aside, the
     * arguments stay in the x registers saved with the stack. */
    paused = paused_call(p);
    if (!paused)
        goto out_of_memory;
    *paused = (struct beam_paused_call){call_target, I, call_after, (uint32_t)call_dealloc, call_how, NULL, 0};
    if (!save_state(p, E, repeat_call_code, cp, bif->arity))
        goto out_of_memory;
    return repeat_stop;

call_trapped:
    /* The call continues in the next slice (op_trap_resume): how it
     * returns is kept aside, the continuation's arguments go to x0.. */
    p->fault_class = FAULT_NONE;
    paused = paused_call(p);
    if (!paused)
        goto out_of_memory;
    *paused = (struct beam_paused_call){
        call_target, I, call_after, (uint32_t)call_dealloc, call_how, proc_bif_call.trap_fn, proc_bif_call.arity};
    memcpy(X, proc_bif_call.args, proc_bif_call.arity * sizeof(term));
    if (!save_state(p, E, trap_resume_code, cp, proc_bif_call.arity))
        goto out_of_memory;
    return p->collected == PROC_WORK_ELSEWHERE ? BODY_COLLECT : BODY_YIELD; /* bif_trap_elsewhere: its work first */

collect_elsewhere:
    /* COLLECT handed the collection over: every root on the stack. */
    if (!save_state(p, E, collect_again, cp, collect_live))
        goto out_of_memory;
    return BODY_COLLECT;

yield:
    if (!save_state(p, E, I, cp, stop_live))
        goto out_of_memory;
    return BODY_YIELD;

gc_failed:
    if (p->heap.failure != HEAP_FAIL_MAX_HEAP_SIZE)
        goto out_of_memory;
    /* Past its max_heap_size: killed, as by an untrappable exit signal. */
    p->heap.failure = HEAP_OK;
    p->exit_reason = A(killed);
    p->ended_by_signal = true;
    p->stack_top = NULL;
    return BODY_EXIT;

out_of_memory:
    bif_out_of_memory(p);
fail_system:
    p->exit_reason = A(killed);
    p->stack_top = NULL;
    return BODY_EXIT;

raise_with_site : {
    if (p->fault_class == FAULT_SYSTEM)
        goto fail_system;
    if (p->fault_class == FAULT_EXITED) {
        p->fault_class = FAULT_NONE;
        p->ended_by_signal = true;
        p->stack_top = NULL;
        return BODY_EXIT;
    }
    term frame_override = THE_NON_VALUE;
    if (proc_bif_call.fault_reason == A(undef) && is_tuple(proc_bif_call.fault_args)) {
        /* resolve_export's undef frame goes on top of the caller's. */
        frame_override = proc_bif_call.fault_args;
        proc_bif_call.fault_args = THE_NON_VALUE;
    }
    /* The trace term is built only when something asks for it. */
    result = capture_raw_trace(p, &site, E, cp, frame_override);
    proc_bif_call.fault_trace = THE_NON_VALUE;
    proc_bif_call.fault_cause = THE_NON_VALUE;
    proc_bif_call.fault_info = THE_NON_VALUE;
    if (is_non_value(result))
        goto out_of_memory;
    site = (struct fault_site){NULL, NULL, NULL, false, false, false};
}
rethrow : {
    /* result: the raw trace. Find the nearest catch. */
    enum fault_class c = (enum fault_class)p->fault_class;
    term reason = proc_bif_call.fault_reason;
    p->fault_class = FAULT_NONE;
    proc_bif_call.fault_args = THE_NON_VALUE;
    term *end = stack_end(p), *frame = E;
    for (term *w = E; w < end; w++) {
        term v = *w;
        if (is_header(v) && v) {
            frame = w;
        } else if (is_catch(v)) {
            E = frame;
            cp = NULL; /* the frame holds it */
            X[0] = THE_NON_VALUE;
            X[1] = class_atom(c);
            X[2] = reason;
            X[3] = result;
            I = (const uint64_t *)(uintptr_t)catch_value(v);
            DISPATCH();
        }
    }
    /* Uncaught: the process exits. */
    term trace = raw_trace_term(p, result);
    term why = is_value(trace) ? exit_reason_of(p, c, reason, trace) : trace;
    if (is_non_value(why))
        goto out_of_memory;
    p->exit_reason = why;
    struct host_outcome *host_outcome = sched_host_outcome(p);
    if (host_outcome) {
        /* The host gets the exception itself; nothing is reported. */
        host_outcome->class = class_atom(c);
        host_outcome->value = reason;
        host_outcome->trace = trace;
    } else if (p->pid == sched_main_pid(p->sched)) {
        report_crash(p, c, reason);
    } else if (c != FAULT_EXIT) {
        /* OTP reports errors and uncaught throws, not exits. */
        report_crash(p, c, why);
    }
    p->stack_top = NULL;
    return BODY_EXIT;
}
}

struct process *beam_new_call(struct sched *s, struct process *parent, term module, term function, const term *args,
                              unsigned argc)
{
    beam_handler_table();
    struct process *p = sched_new_process(s, parent, &beam_body_ops);
    if (!p)
        return NULL;
    /* The start code applies x0:x1(x2...): the arguments go as a list;
     * spawn/1 passes a fun as the module, on the parent's heap. All of it
     * in one area: the young block when it fits, else the old generation
     * (heap_alloc_old), as that is what a long-lived process's arguments
     * are. */
    heap_t *h = &p->heap;
    size_t sizes[255]; /* Erlang's largest arity */
    if (argc > 255) {
        sched_discard_process(p);
        return NULL;
    }
    size_t fun = is_atom(module) ? 0 : copy_size(module);
    size_t total = fun == SIZE_MAX ? SIZE_MAX : 2 * (size_t)argc + fun;
    for (unsigned i = 0; i < argc && total != SIZE_MAX; i++)
        total = (sizes[i] = copy_size(args[i])) == SIZE_MAX ? SIZE_MAX : total + sizes[i];
    term *hp = NULL, **mso = &h->mso;
    size_t *mso_bytes = &h->off_heap_bytes;
    if (total != SIZE_MAX && total > (size_t)(h->end - h->top) && (hp = heap_alloc_old(h, total))) {
        mso = &h->old->mso;
        mso_bytes = &h->old->off_heap_bytes;
    }
    if (total != SIZE_MAX && !hp)
        hp = heap_alloc(h, total);
    if (!hp) {
        sched_discard_process(p);
        return NULL;
    }
    term list = NIL;
    for (unsigned i = argc; i-- > 0;) {
        term copy = copy_term(args[i], sizes[i], &hp, mso, mso_bytes);
        hp[0] = copy;
        hp[1] = list;
        list = make_list(hp);
        hp += 2;
    }
    if (!is_atom(module))
        module = copy_term(module, fun, &hp, mso, mso_bytes);
    heap_set_gc_mark(h); /* the off-heap bytes the copies brought */
    term *top = stack_end(p) - 3;
    top[0] = module;
    top[1] = function;
    top[2] = list;
    p->stack_top = top;
    p->beam_saved_x = 3;
    p->beam_pc = spawn_start_code;
    p->beam_cp = normal_exit_code;
    /* Without a parent it is the main process: ending abnormally, by an
     * exception or an exit signal, it ends the program as escript does. */
    if (!parent)
        sched_set_main_crash_status(s, BEAM_UNCAUGHT_STATUS);
    return p;
}

term beam_spawn(struct sched *s, struct process *parent, struct code_server *cs, term module, term function,
                const term *args, unsigned argc)
{
    return beam_spawn_tied(s, parent, cs, module, function, args, argc, NULL, 0);
}

term beam_spawn_tied(struct sched *s, struct process *parent, struct code_server *cs, term module, term function,
                     const term *args, unsigned argc, const struct spawn_ties *ties, size_t min_heap_words)
{
    (void)cs;
    struct process *p = beam_new_call(s, parent, module, function, args, argc);
    if (!p)
        return THE_NON_VALUE;
    if (min_heap_words > proc_min_heap_size(p))
        p->heap.min_words = PROC_HEAP_FLOOR(min_heap_words); /* from its first collection */
    if (!proc_set_max_heap(p, proc_max_heap_default())) {
        sched_discard_process(p);
        return THE_NON_VALUE;
    }
    return sched_start_process_tied(s, parent, p, ties);
}
