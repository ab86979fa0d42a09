/*
 * interp.h — the BEAM engine: Erlang functions as process bodies.
 *
 * A BEAM process runs the prepared code of loaded modules (code_server.h)
 * with threaded dispatch. Its x registers live in its worker thread while
 * it runs; its stack (frames of y registers under a continuation pointer,
 * and catch markers) and its heap are its own. It spends one reduction per
 * function entry; with none left it stops before the entry, saves the
 * entry's arguments on its stack and resumes by repeating the entry.
 */
#ifndef CLAUSE_BEAM_INTERP_H
#define CLAUSE_BEAM_INTERP_H

#include "beam/code_server.h"
#include "rt/executor.h"

/* The handler address of every opcode number (prepared code's opcode
 * words); unimplemented ones lead to a handler that fails the process. */
const void *const *beam_handler_table(void);

/* The handler for the prepared instruction at instr (generic opcode op,
 * import operands already export records): one specialised for its operand
 * shapes where the engine has it (a move from an x register to a y
 * register, '+' of an x register and a small constant, ...), or fused with
 * the instructions after it (deallocate and return, ...), else the generic
 * one. end is the end of the code, whose instructions after instr are not
 * prepared yet; NULL when instr stands alone (nothing is fused). */
const void *beam_prepared_handler(const uint64_t *instr, unsigned op, const uint64_t *end);
/* Whether a handler address is one of the specialised ones. */
bool beam_handler_is_special(const void *handler);

extern const struct body_ops beam_body_ops;

/* Sets up what every runtime in the host process shares (the atom table,
 * the builtins, the handler table), once, whichever thread comes first. */
void beam_engine_init(void);

/* A process set up to run module:function(args[0..argc)) (terms on the
 * parent's heap, or anywhere when parent is NULL), not yet started: for
 * sched_start_process, or for a host invocation, which runs it on the
 * calling thread (embed.c). NULL when memory was refused or argc is past
 * 255. */
struct process *beam_new_call(struct sched *s, struct process *parent, term module, term function, const term *args,
                              unsigned argc);

/* Spawns a process running module:function(args[0..argc)) (terms on the
 * parent's heap, or anywhere when parent is NULL); its pid, or
 * THE_NON_VALUE when memory was refused. The function need not exist: the
 * new process then exits with undef, as on OTP. */
term beam_spawn(struct sched *s, struct process *parent, struct code_server *cs, term module, term function,
                const term *args, unsigned argc);
/* The same with spawn options: ties to the parent (a link, a monitor) made
 * before the process can run, and its minimum heap (OTP's words; 0: the
 * default). spawn_opt's other tuning options are checked and accepted, not
 * applied (the seed): the process takes the system's max_heap_size and
 * fullsweep_after. */
term beam_spawn_tied(struct sched *s, struct process *parent, struct code_server *cs, term module, term function,
                     const term *args, unsigned argc, const struct spawn_ties *ties, size_t min_heap_words);

/* The status with which the main process's uncaught exception ends the
 * program, as escript's. */
#define BEAM_UNCAUGHT_STATUS 127

/* The stack trace of p where it called the builtin now running (called
 * through an export, as process_info/2 is): OTP's current_stacktrace of
 * self, the builtin's own frame left out. THE_NON_VALUE when p's heap
 * refused. */
term beam_current_stacktrace(struct process *p);
/* process_info(Q, current_stacktrace) of another process q, which does not
 * run (the executor mutex held, or q held): where it waits, then its
 * continuations, as frames on self's heap; THE_NON_VALUE when self's heap
 * refused. */
term beam_stacktrace_of(struct process *self, struct process *q);

#endif
