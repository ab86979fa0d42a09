/* names.c — the registered-name table (names.h). */
#include "rt/names.h"

#include "rt/internal.h"
#include "term/atom.h"

#include <stdlib.h>

struct name_entry {
    term name;
    struct process *holder;
    struct name_entry *next;
};

static size_t bucket_of(term name) { return (size_t)(atom_index(name) * 0x9E3779B1u) % NAME_BUCKETS; }

static struct name_entry **find_locked(struct sched *s, term name)
{
    struct name_entry **at = &s->name_buckets[bucket_of(name)];
    while (*at && (*at)->name != name)
        at = &(*at)->next;
    return at;
}

struct process *names_lookup_locked(struct sched *s, term name)
{
    struct name_entry *e = *find_locked(s, name);
    return e ? e->holder : NULL;
}

bool names_register(struct process *self, term name, term pid)
{
    if (!is_atom(name) || name == A(undefined) || !is_pid(pid))
        return false;
    struct sched *s = self->sched;
    bool done = false;
    rt_lock(&s->exec_lock);
    struct process *p = proc_table_lookup(&s->table, pid_number(pid));
    struct name_entry **at = find_locked(s, name);
    if (p && proc_state(p) != PROC_EXITED && is_non_value(p->registered_name) && !*at) {
        struct name_entry *e = malloc(sizeof *e);
        if (e) {
            *e = (struct name_entry){name, p, NULL};
            *at = e;
            p->registered_name = name;
            done = true;
        }
    }
    rt_unlock(&s->exec_lock);
    return done;
}

static void remove_locked(struct name_entry **at)
{
    struct name_entry *e = *at;
    *at = e->next;
    e->holder->registered_name = THE_NON_VALUE;
    free(e);
}

bool names_unregister(struct process *self, term name)
{
    if (!is_atom(name))
        return false;
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct name_entry **at = find_locked(s, name);
    bool found = *at != NULL;
    if (found)
        remove_locked(at);
    rt_unlock(&s->exec_lock);
    return found;
}

term names_whereis(struct process *self, term name)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct process *p = names_lookup_locked(s, name);
    term pid = p ? p->pid : THE_NON_VALUE;
    rt_unlock(&s->exec_lock);
    return pid;
}

term names_registered(struct process *self)
{
    struct sched *s = self->sched;
    term list = NIL;
    rt_lock(&s->exec_lock);
    for (size_t b = 0; b < NAME_BUCKETS && is_value(list); b++)
        for (struct name_entry *e = s->name_buckets[b]; e && is_value(list); e = e->next)
            list = heap_cons(&self->heap, e->name, list);
    rt_unlock(&s->exec_lock);
    return list;
}

void names_release_locked(struct sched *s, struct process *p)
{
    if (is_value(p->registered_name))
        remove_locked(find_locked(s, p->registered_name));
}

void names_destroy(struct sched *s)
{
    for (size_t b = 0; b < NAME_BUCKETS; b++)
        while (s->name_buckets[b])
            remove_locked(&s->name_buckets[b]);
}
