/*
 * names.h — registered names: atoms standing for local processes.
 *
 * One table per executor, under the executor mutex (a name's holder cannot
 * end between the liveness check and the insert). A process holds at most
 * one name; its name is released as it ends, before anything else of its
 * end is signalled.
 */
#ifndef CLAUSE_NAMES_H
#define CLAUSE_NAMES_H

#include "rt/executor.h"
#include "rt/process.h"

#include <stdbool.h>

/* register(Name, Pid): false where OTP raises badarg (Name not an atom or
 * undefined, Pid not a live local process, Name taken, Pid named already). */
bool names_register(struct process *self, term name, term pid);
/* unregister(Name): false when Name is not registered (badarg). */
bool names_unregister(struct process *self, term name);
/* The pid registered as name, or THE_NON_VALUE. */
term names_whereis(struct process *self, term name);
/* The same under the executor mutex (timers resolving a name at fire). */
struct process *names_lookup_locked(struct sched *s, term name);
/* registered(): every name, as a list on self's heap (THE_NON_VALUE when
 * the heap refused). */
term names_registered(struct process *self);
/* p ends: its name is released (executor mutex held). */
void names_release_locked(struct sched *s, struct process *p);
/* Frees the table (the executor is being destroyed). */
void names_destroy(struct sched *s);

#endif
