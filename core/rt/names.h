/*
 * names.h — registered names: atoms standing for local processes.
 *
 * One table per executor, under the executor mutex (a name's holder cannot
 * end between the liveness check and the insert). A process holds at most
 * one name; its name is released as it ends, before anything else of its
 * end is signalled.
 *
 * Services. Some names stand for processes OTP's boot starts (the file
 * server `file_server_2`, later `user`, the timer server, ...), which clause
 * does not start at boot: a program that uses none starts as fast as one
 * without them. An upper layer (the engine, which can spawn Erlang code)
 * declares such names before the program runs (names_add_service); the
 * first lookup of a declared name that finds nothing registered (whereis,
 * a send to the name, a monitor of it, and so gen's calls, which look the
 * name up with whereis) starts the service, registers it and proceeds as
 * if it had been there. One mutex per executor serializes starts, and the
 * name is looked up again under it, so concurrent lookups start a service
 * once. A service that ends is started again by the next lookup. Lookups
 * of other names cost one scan of the (short, immutable) service list.
 */
#ifndef CLAUSE_NAMES_H
#define CLAUSE_NAMES_H

#include "rt/executor.h"
#include "rt/process.h"

#include <stdbool.h>

/* register(Name, Pid)'s outcome: where OTP raises badarg, which of its
 * causes (erl_register.c checks in this order). */
enum names_outcome {
    NAMES_DONE,
    NAMES_BADARG,   /* Name not an atom or undefined, Pid not a pid (cause none) */
    NAMES_NOTALIVE, /* Pid is no live local process (cause notalive) */
    NAMES_HAS_NAME, /* Pid is named already (cause registered_name) */
    NAMES_TAKEN,    /* another process holds Name (cause none) */
    NAMES_NOMEM,    /* the host refused memory */
};
enum names_outcome names_register(struct process *self, term name, term pid);
/* unregister(Name): false when Name is not registered (badarg). */
bool names_unregister(struct process *self, term name);
/* The pid registered as name, or THE_NON_VALUE; starts the service of
 * that name first when it is one and is not running. */
term names_whereis(struct process *self, term name);

/* Starts a service for a lookup by self: spawns its process (not yet
 * registered) and returns its pid, or THE_NON_VALUE when it could not.
 * Called with no lock of the runtime held, under the executor's service
 * mutex (one start at a time); must not look up service names itself. */
typedef term (*names_service_start_fn)(struct process *self, term name, void *arg);
/* Declares name a service started by start(self, name, arg) on first
 * lookup. Before sched_run only (the list is then read without a lock);
 * false when memory was refused or name is not an atom. */
bool names_add_service(struct sched *s, term name, names_service_start_fn start, void *arg);
/* Starts the service `name` if it is one and nothing is registered under
 * it (a monitor by name looks it up under the executor mutex, where no
 * service can start). */
void names_ensure_service(struct process *self, term name);
/* The same under the executor mutex (timers resolving a name at fire). */
struct process *names_lookup_locked(struct sched *s, term name);
/* registered(): every name, as a list on self's heap (THE_NON_VALUE when
 * the heap refused). */
term names_registered(struct process *self);
/* p ends: its name is released (executor mutex held). */
void names_release_locked(struct sched *s, struct process *p);
/* Frees the table and the service list (the executor is being destroyed). */
void names_destroy(struct sched *s);

#endif
