/*
 * aliases.h — process aliases: references that messages can be sent to.
 *
 * An alias names its owner until it is deactivated: by unalias/1, by its
 * first message (a reply alias), or with the monitor it belongs to
 * (monitor/3's {alias, demonitor | reply_demonitor}). A send to a reference
 * that is no active alias is dropped. One table per executor, under the
 * executor mutex; each process keeps its own aliases in a list, so its end
 * deactivates them.
 */
#ifndef CLAUSE_ALIASES_H
#define CLAUSE_ALIASES_H

#include "rt/process.h"

struct sched;

#include <stdbool.h>

enum alias_mode {
    ALIAS_EXPLICIT,        /* until unalias/1 */
    ALIAS_REPLY,           /* until its first message */
    ALIAS_DEMONITOR,       /* until unalias/1 or the end of its monitor */
    ALIAS_REPLY_DEMONITOR, /* ... or its first message, which also ends the monitor */
};

/* Makes ref (a reference on owner's heap) an alias of owner. False when
 * the host refused memory. */
bool aliases_add_locked(struct sched *s, struct process *owner, term ref, enum alias_mode mode);
/* Deactivates owner's alias ref: true when it was active. */
bool aliases_remove_locked(struct sched *s, struct process *owner, term ref);
/* Deactivates the alias of a monitor that ended (its reference's id). */
void aliases_monitor_ended_locked(struct sched *s, struct process *owner, uint64_t ref_low, uint64_t ref_high);
/* The owner of the active alias ref, or NULL. */
struct process *aliases_owner_locked(struct sched *s, term ref);
/* The same, and a reply alias is consumed
 * (and a reply_demonitor one ends its monitor): call when the message is
 * about to be delivered. */
struct process *aliases_take_locked(struct sched *s, term ref);
/* p ends: its aliases are deactivated. */
void aliases_release_locked(struct sched *s, struct process *p);
/* For builtins (each takes the executor mutex): aliases_add_locked and
 * aliases_remove_locked for self. */
bool aliases_add(struct process *self, term ref, enum alias_mode mode);
bool aliases_remove(struct process *self, term ref);
/* Frees the table (the executor is being destroyed). */
void aliases_destroy(struct sched *s);

#endif
