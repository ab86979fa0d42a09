/*
 * ets_table.c — ETS tables and their registry (see ets_table.h).
 */
#include "rt/ets_table.h"
#include "rt/internal.h"

#include "term/atom.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/heap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Table ids are references whose low word starts here: far above the ids
 * make_ref hands out, so a table id never equals another reference. */
#define ETS_ID_BASE ((uint64_t)1 << 62)

#define ID_BUCKETS 1024u
#define NAME_BUCKETS_ETS 256u

/* One stored object: a copy of the tuple and the ProcBins it refers to. */
struct ets_obj {
    term *mso;
    size_t words;
    term tuple;
    term data[];
};

struct ets_table {
    pthread_rwlock_t lock;
    _Atomic unsigned refs; /* the registry's (while registered) and each caller's */
    bool dead;             /* deleted: every later access is ETS_BADID (table lock) */
    bool registered;       /* in the registry's lists (registry lock) */
    uint64_t id;
    term name;          /* table lock, and registry lock while registered */
    _Atomic term owner; /* written under the table lock; read anywhere (owner-end scan) */
    term heir;          /* a pid or THE_NON_VALUE (table lock) */
    struct ets_obj *heir_data;
    struct ets_options options;
    struct ets_obj **objs; /* sorted by key, see ets_table.h */
    size_t n, cap;
    size_t object_words;                                         /* words of the stored objects */
    struct ets_table *id_next, *name_next, *all_prev, *all_next; /* registry lock */
};

struct ets_registry {
    pthread_rwlock_t lock;
    _Atomic uint64_t next_id;
    struct ets_table *by_id[ID_BUCKETS];
    struct ets_table *by_name[NAME_BUCKETS_ETS]; /* named tables only */
    struct ets_table *all_first, *all_last;      /* in creation order */
};

/* ---- objects ---- */

static struct ets_obj *obj_new(term t)
{
    size_t size = copy_size(t);
    if (size == SIZE_MAX)
        return NULL;
    struct ets_obj *o = malloc(sizeof *o + size * sizeof(term));
    if (!o)
        return NULL;
    term *hp = o->data;
    o->mso = NULL;
    o->words = size;
    o->tuple = copy_term(t, size, &hp, &o->mso, NULL);
    return o;
}

static void obj_free(struct ets_obj *o)
{
    if (!o)
        return;
    bin_release_mso(o->mso);
    free(o);
}

/* ---- tables ---- */

static struct ets_table *table_new(uint64_t id, term name, term owner, const struct ets_options *o)
{
    struct ets_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (is_value(o->heir) && !(t->heir_data = obj_new(o->heir_data))) {
        free(t);
        return NULL;
    }
    pthread_rwlock_init(&t->lock, NULL);
    atomic_init(&t->refs, 1);
    atomic_init(&t->owner, owner);
    t->id = id;
    t->name = name;
    t->heir = o->heir;
    t->options = *o;
    t->options.heir_data = THE_NON_VALUE; /* kept in heir_data */
    return t;
}

static void table_clear(struct ets_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        obj_free(t->objs[i]);
    t->n = 0;
    t->object_words = 0;
}

static void table_free(struct ets_table *t)
{
    table_clear(t);
    free(t->objs);
    obj_free(t->heir_data);
    pthread_rwlock_destroy(&t->lock);
    free(t);
}

static void table_release(struct ets_table *t)
{
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
        table_free(t);
}

static void table_retain(struct ets_table *t) { atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed); }

/* ---- the registry ---- */

static size_t id_bucket(uint64_t id) { return (size_t)(id * 0x9E3779B97F4A7C15u >> 40) & (ID_BUCKETS - 1); }
static size_t name_bucket(term name) { return (size_t)(atom_index(name) * 0x9E3779B1u) % NAME_BUCKETS_ETS; }

struct ets_registry *ets_registry_new(void)
{
    struct ets_registry *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    pthread_rwlock_init(&r->lock, NULL);
    atomic_init(&r->next_id, ETS_ID_BASE);
    return r;
}

void ets_registry_free(struct ets_registry *r)
{
    if (!r)
        return;
    struct ets_table *t = r->all_first;
    while (t) {
        struct ets_table *next = t->all_next;
        table_release(t);
        t = next;
    }
    pthread_rwlock_destroy(&r->lock);
    free(r);
}

struct ets_registry *ets_registry_of(const struct process *self) { return self->sched->ets; }

/* The named table name (registry lock held). */
static struct ets_table *by_name_locked(struct ets_registry *r, term name)
{
    struct ets_table *t = r->by_name[name_bucket(name)];
    while (t && t->name != name)
        t = t->name_next;
    return t;
}

static struct ets_table *by_id_locked(struct ets_registry *r, uint64_t id)
{
    struct ets_table *t = r->by_id[id_bucket(id)];
    while (t && t->id != id)
        t = t->id_next;
    return t;
}

static void unlink_name_locked(struct ets_registry *r, struct ets_table *t)
{
    struct ets_table **at = &r->by_name[name_bucket(t->name)];
    while (*at && *at != t)
        at = &(*at)->name_next;
    if (*at)
        *at = t->name_next;
    t->name_next = NULL;
}

/* Takes t out of the registry (registry write lock held). */
static void unregister_locked(struct ets_registry *r, struct ets_table *t)
{
    struct ets_table **at = &r->by_id[id_bucket(t->id)];
    while (*at != t)
        at = &(*at)->id_next;
    *at = t->id_next;
    if (t->options.named)
        unlink_name_locked(r, t);
    if (t->all_prev)
        t->all_prev->all_next = t->all_next;
    else
        r->all_first = t->all_next;
    if (t->all_next)
        t->all_next->all_prev = t->all_prev;
    else
        r->all_last = t->all_prev;
    t->registered = false;
}

enum ets_status ets_create(struct ets_registry *r, term name, term owner, const struct ets_options *o, uint64_t *id)
{
    uint64_t new_id = atomic_fetch_add_explicit(&r->next_id, 1, memory_order_relaxed);
    struct ets_table *t = table_new(new_id, name, owner, o);
    if (!t)
        return ETS_NOMEM;
    pthread_rwlock_wrlock(&r->lock);
    if (o->named && by_name_locked(r, name)) {
        pthread_rwlock_unlock(&r->lock);
        table_free(t);
        return ETS_EXISTS;
    }
    size_t b = id_bucket(new_id);
    t->id_next = r->by_id[b];
    r->by_id[b] = t;
    if (o->named) {
        size_t nb = name_bucket(name);
        t->name_next = r->by_name[nb];
        r->by_name[nb] = t;
    }
    t->all_prev = r->all_last;
    if (r->all_last)
        r->all_last->all_next = t;
    else
        r->all_first = t;
    r->all_last = t;
    t->registered = true;
    pthread_rwlock_unlock(&r->lock);
    *id = new_id;
    return ETS_OK;
}

enum ets_status ets_create_owned(struct process *self, term name, const struct ets_options *o, uint64_t *id)
{
    enum ets_status st = ets_create(self->sched->ets, name, self->pid, o, id);
    if (st == ETS_OK)
        atomic_fetch_add_explicit(&self->ets_owned, 1, memory_order_relaxed);
    return st;
}

term ets_ref_term(heap_t *h, term *words, uint64_t id)
{
    if (h)
        return heap_ref_with_id(h, id, 0);
    words[0] = make_header(SUBTAG_REF, REF_WORDS);
    words[1] = id;
    words[2] = 0;
    return make_boxed(words);
}

bool ets_ref_id(term ref, uint64_t *id)
{
    if (!is_ref(ref) || ref_id_high(ref) != 0 || ref_id_low(ref) < ETS_ID_BASE)
        return false;
    *id = ref_id_low(ref);
    return true;
}

/* The table tab names, with a reference taken; NULL when none. */
static struct ets_table *acquire(struct ets_registry *r, term tab)
{
    uint64_t id;
    bool by_id = ets_ref_id(tab, &id);
    if (!by_id && !is_atom(tab))
        return NULL;
    pthread_rwlock_rdlock(&r->lock);
    struct ets_table *t = by_id ? by_id_locked(r, id) : by_name_locked(r, tab);
    if (t)
        table_retain(t);
    pthread_rwlock_unlock(&r->lock);
    return t;
}

static enum ets_status not_found(term tab) { return is_atom(tab) || is_ref(tab) ? ETS_BADID : ETS_BADTYPE; }

static enum ets_status check_locked(const struct ets_table *t, term caller, enum ets_need need)
{
    if (t->dead)
        return ETS_BADID;
    term owner = atomic_load_explicit(&t->owner, memory_order_relaxed);
    switch (need) {
    case ETS_READ:
        return t->options.protection == ETS_PRIVATE && caller != owner ? ETS_ACCESS : ETS_OK;
    case ETS_WRITE:
        return t->options.protection != ETS_PUBLIC && caller != owner ? ETS_ACCESS : ETS_OK;
    default:
        return ETS_OK;
    }
}

enum ets_status ets_access(struct ets_registry *r, term tab, term caller, enum ets_need need,
                           enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg)
{
    struct ets_table *t = acquire(r, tab);
    if (!t)
        return not_found(tab);
    if (need == ETS_WRITE)
        pthread_rwlock_wrlock(&t->lock);
    else
        pthread_rwlock_rdlock(&t->lock);
    enum ets_status st = check_locked(t, caller, need);
    if (st == ETS_OK)
        st = fn(t, arg);
    pthread_rwlock_unlock(&t->lock);
    table_release(t);
    return st;
}

/* Deletes t, whose write lock is held and which is alive: out of the
 * registry first, so that its name is free as soon as it is dead. */
static void delete_locked(struct ets_registry *r, struct ets_table *t)
{
    pthread_rwlock_wrlock(&r->lock);
    bool drop = t->registered;
    if (drop)
        unregister_locked(r, t);
    pthread_rwlock_unlock(&r->lock);
    t->dead = true;
    table_clear(t);
    if (drop)
        table_release(t); /* the registry's reference; the caller still holds one */
}

enum ets_status ets_delete_table(struct ets_registry *r, term tab, term caller)
{
    struct ets_table *t = acquire(r, tab);
    if (!t)
        return not_found(tab);
    pthread_rwlock_wrlock(&t->lock);
    enum ets_status st = check_locked(t, caller, ETS_WRITE);
    if (st == ETS_OK)
        delete_locked(r, t);
    pthread_rwlock_unlock(&t->lock);
    table_release(t);
    return st;
}

enum ets_status ets_rename(struct ets_registry *r, term tab, term caller, term name, bool *named)
{
    struct ets_table *t = acquire(r, tab);
    if (!t)
        return not_found(tab);
    pthread_rwlock_wrlock(&t->lock);
    enum ets_status st = check_locked(t, caller, ETS_WRITE);
    if (st == ETS_OK) {
        *named = t->options.named;
        pthread_rwlock_wrlock(&r->lock);
        if (!t->options.named) {
            t->name = name;
        } else if (name == t->name) {
            /* nothing changes */
        } else if (by_name_locked(r, name)) {
            st = ETS_EXISTS;
        } else {
            unlink_name_locked(r, t);
            t->name = name;
            size_t nb = name_bucket(name);
            t->name_next = r->by_name[nb];
            r->by_name[nb] = t;
        }
        pthread_rwlock_unlock(&r->lock);
    }
    pthread_rwlock_unlock(&t->lock);
    table_release(t);
    return st;
}

bool ets_whereis(struct ets_registry *r, term name, uint64_t *id)
{
    pthread_rwlock_rdlock(&r->lock);
    struct ets_table *t = by_name_locked(r, name);
    if (t)
        *id = t->id;
    pthread_rwlock_unlock(&r->lock);
    return t != NULL;
}

bool ets_all(struct ets_registry *r, uint64_t **ids, term **names, size_t *n)
{
    pthread_rwlock_rdlock(&r->lock);
    size_t count = 0;
    for (struct ets_table *t = r->all_first; t; t = t->all_next)
        count++;
    *ids = malloc((count ? count : 1) * sizeof **ids);
    *names = malloc((count ? count : 1) * sizeof **names);
    bool ok = *ids && *names;
    if (ok) {
        size_t i = 0;
        /* Newest first, as OTP lists them. */
        for (struct ets_table *t = r->all_last; t; t = t->all_prev, i++) {
            (*ids)[i] = t->id;
            (*names)[i] = t->options.named ? t->name : THE_NON_VALUE;
        }
    }
    pthread_rwlock_unlock(&r->lock);
    *n = ok ? count : 0;
    if (!ok) {
        free(*ids);
        free(*names);
        *ids = NULL;
        *names = NULL;
    }
    return ok;
}

/* ---- ownership ---- */

/* {'ETS-TRANSFER', Tab, From, Data} to p as the runtime sends it. */
static bool send_transfer_locked(struct sched *s, worker_id waker, struct process *to, struct ets_table *t, term from,
                                 term data)
{
    term ref[1 + REF_WORDS];
    term tab = t->options.named ? t->name : ets_ref_term(NULL, ref, t->id);
    term msg[5] = {make_header(SUBTAG_TUPLE, 4), A(ETS_TRANSFER), tab, from, data};
    return message_deliver_locked(s, waker, to, make_boxed(msg));
}

enum ets_status ets_give_away(struct process *self, term tab, term to, term data)
{
    struct sched *s = self->sched;
    struct ets_table *t = acquire(s->ets, tab);
    if (!t)
        return not_found(tab);
    enum ets_status st = ETS_OK;
    /* The executor mutex keeps the receiver from ending before it counts
     * the table as its own. */
    rt_lock(&s->exec_lock);
    pthread_rwlock_wrlock(&t->lock);
    struct process *q = is_pid(to) ? sched_live_locked(s, to) : NULL;
    if (t->dead)
        st = ETS_BADID;
    else if (atomic_load_explicit(&t->owner, memory_order_relaxed) != self->pid)
        st = ETS_NOTOWNER;
    else if (q == self)
        st = ETS_NOTOWNER; /* it owns the table already: OTP's cause too */
    else if (!q)
        st = ETS_BADARG;
    if (st == ETS_OK) {
        atomic_store_explicit(&t->owner, to, memory_order_relaxed);
        atomic_fetch_sub_explicit(&self->ets_owned, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&q->ets_owned, 1, memory_order_relaxed);
        if (!send_transfer_locked(s, self->last_worker, q, t, self->pid, data))
            st = ETS_NOMEM;
    }
    pthread_rwlock_unlock(&t->lock);
    rt_unlock(&s->exec_lock);
    table_release(t);
    return st;
}

void ets_owner_ended_locked(struct sched *s, worker_id waker, struct process *p)
{
    if (atomic_load_explicit(&p->ets_owned, memory_order_relaxed) == 0)
        return;
    struct ets_registry *r = s->ets;
    /* Gather its tables with a reference each, then act on them one by one
     * under their own locks (never the registry's lock first). */
    size_t n = 0, cap = 0;
    struct ets_table **owned = NULL;
    pthread_rwlock_rdlock(&r->lock);
    for (struct ets_table *t = r->all_first; t; t = t->all_next) {
        if (atomic_load_explicit(&t->owner, memory_order_relaxed) != p->pid)
            continue;
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 8;
            struct ets_table **grown = realloc(owned, ncap * sizeof *grown);
            if (!grown)
                break; /* the rest stay; the program is out of memory anyway */
            owned = grown;
            cap = ncap;
        }
        table_retain(t);
        owned[n++] = t;
    }
    pthread_rwlock_unlock(&r->lock);
    for (size_t i = 0; i < n; i++) {
        struct ets_table *t = owned[i];
        pthread_rwlock_wrlock(&t->lock);
        if (!t->dead && atomic_load_explicit(&t->owner, memory_order_relaxed) == p->pid) {
            struct process *heir = is_value(t->heir) && t->heir != p->pid ? sched_live_locked(s, t->heir) : NULL;
            if (heir) {
                atomic_store_explicit(&t->owner, heir->pid, memory_order_relaxed);
                atomic_fetch_add_explicit(&heir->ets_owned, 1, memory_order_relaxed);
                send_transfer_locked(s, waker, heir, t, p->pid, t->heir_data->tuple);
            } else {
                delete_locked(r, t);
            }
        }
        pthread_rwlock_unlock(&t->lock);
        table_release(t);
    }
    free(owned);
    atomic_store_explicit(&p->ets_owned, 0, memory_order_relaxed);
}

/* ---- inside a callback ---- */

void ets_describe_locked(const struct ets_table *t, struct ets_description *d)
{
    d->name = t->name;
    d->owner = atomic_load_explicit(&t->owner, memory_order_relaxed);
    d->heir = is_value(t->heir) ? t->heir : A(none);
    d->id = t->id;
    d->options = t->options;
    d->size = t->n;
    /* The table's own record, its array of objects and each object. */
    d->memory_words =
        (sizeof *t + t->cap * sizeof t->objs[0] + t->n * sizeof(struct ets_obj)) / sizeof(term) + t->object_words;
}

enum ets_type ets_type_locked(const struct ets_table *t) { return t->options.type; }
unsigned ets_keypos_locked(const struct ets_table *t) { return t->options.keypos; }
size_t ets_count_locked(const struct ets_table *t) { return t->n; }
term ets_object_locked(const struct ets_table *t, size_t i) { return t->objs[i]->tuple; }
term ets_object_key_locked(const struct ets_table *t, size_t i)
{
    return tuple_element(t->objs[i]->tuple, t->options.keypos);
}

static int key_compare(const struct ets_table *t, term a, term b)
{
    return t->options.type == ETS_ORDERED_SET ? term_compare(a, b) : term_compare_exact(a, b);
}

size_t ets_seek_locked(const struct ets_table *t, term key, bool after)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = key_compare(t, ets_object_key_locked(t, mid), key);
        if (c < 0 || (after && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool ets_find_locked(const struct ets_table *t, term key, size_t *lo, size_t *hi)
{
    size_t first = ets_seek_locked(t, key, false);
    if (first == t->n || key_compare(t, ets_object_key_locked(t, first), key) != 0)
        return false;
    size_t last = first + 1;
    if (t->options.type == ETS_BAG || t->options.type == ETS_DUPLICATE_BAG)
        last = ets_seek_locked(t, key, true);
    *lo = first;
    *hi = last;
    return true;
}

bool ets_valid_object_locked(const struct ets_table *t, term object)
{
    return is_tuple(object) && tuple_arity(object) >= t->options.keypos;
}

bool ets_replace_locked(struct ets_table *t, size_t i, term object)
{
    struct ets_obj *o = obj_new(object);
    if (!o)
        return false;
    t->object_words += o->words;
    t->object_words -= t->objs[i]->words;
    obj_free(t->objs[i]);
    t->objs[i] = o;
    return true;
}

bool ets_put_locked(struct ets_table *t, term object)
{
    term key = tuple_element(object, t->options.keypos);
    size_t lo, hi, at;
    if (ets_find_locked(t, key, &lo, &hi)) {
        switch (t->options.type) {
        case ETS_SET:
        case ETS_ORDERED_SET:
            return ets_replace_locked(t, lo, object);
        case ETS_BAG:
            for (size_t i = lo; i < hi; i++)
                if (term_eq_exact(t->objs[i]->tuple, object))
                    return true;
            break;
        case ETS_DUPLICATE_BAG:
            break;
        }
        at = hi;
    } else {
        at = ets_seek_locked(t, key, false);
    }
    if (t->n == t->cap) {
        size_t ncap = t->cap ? 2 * t->cap : 8;
        struct ets_obj **grown = realloc(t->objs, ncap * sizeof *grown);
        if (!grown)
            return false;
        t->objs = grown;
        t->cap = ncap;
    }
    struct ets_obj *o = obj_new(object);
    if (!o)
        return false;
    memmove(&t->objs[at + 1], &t->objs[at], (t->n - at) * sizeof t->objs[0]);
    t->objs[at] = o;
    t->n++;
    t->object_words += o->words;
    return true;
}

void ets_erase_locked(struct ets_table *t, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        t->object_words -= t->objs[i]->words;
        obj_free(t->objs[i]);
    }
    memmove(&t->objs[lo], &t->objs[hi], (t->n - hi) * sizeof t->objs[0]);
    t->n -= hi - lo;
}
