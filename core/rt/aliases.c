/* aliases.c — the alias table (aliases.h). */
#include "rt/aliases.h"
#include "rt/internal.h"

#include "rt/signals.h"
#include "term/heap.h"

#include <stdlib.h>

struct alias_entry {
    uint64_t low, high; /* the reference's id */
    struct process *owner;
    enum alias_mode mode;
    struct alias_entry *next;       /* in its bucket */
    struct alias_entry *next_owned; /* in its owner's list */
};

static size_t bucket_of(uint64_t low) { return (size_t)((low * 0x9E3779B97F4A7C15u) >> 40) % ALIAS_BUCKETS; }

static struct alias_entry **find_locked(struct sched *s, uint64_t low, uint64_t high)
{
    struct alias_entry **at = &s->alias_buckets[bucket_of(low)];
    while (*at && !((*at)->low == low && (*at)->high == high))
        at = &(*at)->next;
    return at;
}

static void unlink_owned(struct alias_entry *e)
{
    struct alias_entry **at = &e->owner->signals->aliases;
    while (*at != e)
        at = &(*at)->next_owned;
    *at = e->next_owned;
}

/* Removes the entry at *at from the table and its owner's list. */
static void drop_at(struct alias_entry **at)
{
    struct alias_entry *e = *at;
    *at = e->next;
    unlink_owned(e);
    free(e);
}

bool aliases_add_locked(struct sched *s, struct process *owner, term ref, enum alias_mode mode)
{
    struct alias_entry *e = proc_signals_make(owner) ? malloc(sizeof *e) : NULL;
    if (!e)
        return false;
    e->low = ref_id_low(ref);
    e->high = ref_id_high(ref);
    e->owner = owner;
    e->mode = mode;
    struct alias_entry **bucket = &s->alias_buckets[bucket_of(e->low)];
    e->next = *bucket;
    *bucket = e;
    e->next_owned = owner->signals->aliases;
    owner->signals->aliases = e;
    return true;
}

bool aliases_remove_locked(struct sched *s, struct process *owner, term ref)
{
    struct alias_entry **at = find_locked(s, ref_id_low(ref), ref_id_high(ref));
    if (!*at || (*at)->owner != owner)
        return false;
    drop_at(at);
    return true;
}

void aliases_monitor_ended_locked(struct sched *s, struct process *owner, uint64_t ref_low, uint64_t ref_high)
{
    struct alias_entry **at = find_locked(s, ref_low, ref_high);
    if (*at && (*at)->owner == owner && ((*at)->mode == ALIAS_DEMONITOR || (*at)->mode == ALIAS_REPLY_DEMONITOR))
        drop_at(at);
}

struct process *aliases_owner_locked(struct sched *s, term ref)
{
    struct alias_entry *e = *find_locked(s, ref_id_low(ref), ref_id_high(ref));
    return e ? e->owner : NULL;
}

struct process *aliases_take_locked(struct sched *s, term ref)
{
    struct alias_entry **at = find_locked(s, ref_id_low(ref), ref_id_high(ref));
    struct alias_entry *e = *at;
    if (!e)
        return NULL;
    struct process *owner = e->owner;
    if (e->mode == ALIAS_REPLY) {
        drop_at(at);
    } else if (e->mode == ALIAS_REPLY_DEMONITOR) {
        drop_at(at);
        signals_demonitor_locked(owner, ref);
    }
    return owner;
}

void aliases_release_locked(struct sched *s, struct process *p)
{
    while (proc_signals_of(p)->aliases) {
        struct alias_entry *e = p->signals->aliases;
        drop_at(find_locked(s, e->low, e->high));
    }
}

void aliases_destroy(struct sched *s)
{
    for (size_t b = 0; b < ALIAS_BUCKETS; b++) {
        while (s->alias_buckets[b]) {
            struct alias_entry *e = s->alias_buckets[b];
            s->alias_buckets[b] = e->next;
            e->owner->signals->aliases = NULL; /* the owners go with the executor */
            free(e);
        }
    }
}

bool aliases_add(struct process *self, term ref, enum alias_mode mode)
{
    rt_lock(&self->sched->exec_lock);
    bool made = aliases_add_locked(self->sched, self, ref, mode);
    rt_unlock(&self->sched->exec_lock);
    return made;
}

bool aliases_remove(struct process *self, term ref)
{
    rt_lock(&self->sched->exec_lock);
    bool was_active = aliases_remove_locked(self->sched, self, ref);
    rt_unlock(&self->sched->exec_lock);
    return was_active;
}
