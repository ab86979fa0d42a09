/*
 * names.c — the registered-name table and the services started on first
 * lookup (names.h).
 */
#include "rt/names.h"

#include "rt/internal.h"
#include "term/atom.h"

#include <stdlib.h>

struct name_entry {
    term name;
    struct process *holder;
    struct name_entry *next;
};

struct names_service {
    term name;
    names_service_start_fn start;
    void *arg;
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

enum names_outcome names_register(struct process *self, term name, term pid)
{
    if (!is_atom(name) || name == A(undefined) || !is_pid(pid))
        return NAMES_BADARG;
    struct sched *s = self->sched;
    enum names_outcome r;
    rt_lock(&s->exec_lock);
    struct process *p = proc_table_lookup(&s->table, pid_number(pid));
    struct name_entry **at = find_locked(s, name);
    if (!p || proc_state(p) == PROC_EXITED) {
        r = NAMES_NOTALIVE;
    } else if (is_value(p->registered_name)) {
        r = NAMES_HAS_NAME;
    } else if (*at) {
        r = NAMES_TAKEN;
    } else {
        struct name_entry *e = malloc(sizeof *e);
        r = e ? NAMES_DONE : NAMES_NOMEM;
        if (e) {
            *e = (struct name_entry){name, p, NULL};
            *at = e;
            p->registered_name = name;
        }
    }
    rt_unlock(&s->exec_lock);
    return r;
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

static const struct names_service *service_named(const struct sched *s, term name)
{
    for (size_t i = 0; i < s->service_count; i++)
        if (s->services[i].name == name)
            return &s->services[i];
    return NULL;
}

bool names_add_service(struct sched *s, term name, names_service_start_fn start, void *arg)
{
    if (!is_atom(name) || !start)
        return false;
    struct names_service *grown = realloc(s->services, (s->service_count + 1) * sizeof *grown);
    if (!grown)
        return false;
    s->services = grown;
    s->services[s->service_count++] = (struct names_service){name, start, arg};
    return true;
}

static term lookup(struct sched *s, term name)
{
    rt_lock(&s->exec_lock);
    struct process *p = names_lookup_locked(s, name);
    term pid = p ? p->pid : THE_NON_VALUE;
    rt_unlock(&s->exec_lock);
    return pid;
}

/* The service's pid, starting it when nothing holds its name. Two lookups
 * that both found the name free meet at the service mutex: the second looks
 * again under it and finds the first one's process. The new process is
 * registered by this thread right after its spawn; until then a lookup from
 * the process itself (it may already run on another worker) waits at the
 * mutex. Should a program register the name itself in that moment, its
 * registration wins and the new process stays nameless. */
static term start_service(struct process *self, const struct names_service *svc)
{
    struct sched *s = self->sched;
    pthread_mutex_lock(&s->service_lock);
    term pid = lookup(s, svc->name);
    if (is_non_value(pid)) {
        pid = svc->start(self, svc->name, svc->arg);
        if (is_value(pid) && names_register(self, svc->name, pid) != NAMES_DONE)
            pid = lookup(s, svc->name);
    }
    pthread_mutex_unlock(&s->service_lock);
    return pid;
}

term names_whereis(struct process *self, term name)
{
    struct sched *s = self->sched;
    term pid = lookup(s, name);
    if (is_non_value(pid) && s->service_count) {
        const struct names_service *svc = service_named(s, name);
        if (svc)
            pid = start_service(self, svc);
    }
    return pid;
}

void names_ensure_service(struct process *self, term name) { (void)names_whereis(self, name); }

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
    free(s->services);
    s->services = NULL;
    s->service_count = 0;
    pthread_mutex_destroy(&s->service_lock);
}
