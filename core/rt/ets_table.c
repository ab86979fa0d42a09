/*
 * ets_table.c — ETS tables and their registry (see ets_table.h).
 */
#include "rt/ets_table.h"
#include "rt/internal.h"
#include "rt/lock.h"

#include "term/atom.h"
#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"
#include "term/heap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Table ids are references whose low word starts here: far above the ids
 * make_ref hands out, so a table id never equals another reference. */
#define ETS_ID_BASE ((uint64_t)1 << 62)

#define ID_BUCKETS 1024u
/* How far ahead a walk asks for objects (ets_walk_prefetch_locked). */
#define WALK_PREFETCH_AHEAD 4u
#define NAME_BUCKETS_ETS 256u

/* One stored object: a copy of the tuple, with the chain link and hash of
 * a hash table (embedded, so that an insert costs one allocation). The
 * header is 16 bytes, so that a {Key, Value} object is 40, a 48-byte
 * block of glibc's malloc where 24 made it a 64-byte one: 400,000 such
 * objects take 19 MB instead of 26, more of a large table's lookups find
 * their object in the cache, and it often sits on one cache line. */
struct ets_obj {
    struct ets_obj *next; /* set, bag, duplicate_bag: the next object in the bucket's chain; a batch's next */
    uint32_t hash_high;   /* set, bag, duplicate_bag: the key's hash (key_hash), its top 32 bits */
    uint32_t words;       /* the copy's, data[0] to data[words - 1] */
    term data[];          /* the copy, its tuple first; past a copy that is not flat, its ProcBins' chain */
};

static uint64_t obj_hash(const struct ets_obj *o) { return (uint64_t)o->hash_high << 32; }
static void obj_set_hash(struct ets_obj *o, uint64_t h) { o->hash_high = (uint32_t)(h >> 32); }

/* A copy of only immediates, its tuple's words alone: every other copy
 * takes more words than its tuple. */
static bool obj_flat(const struct ets_obj *o) { return o->words == header_arity(o->data[0]) + 1; }

/* The ProcBins' chain of a copy that is not flat (NULL when none). */
static term **obj_mso(struct ets_obj *o) { return (term **)&o->data[o->words]; }

struct bt_node;

/* A striped table's locks (see "stripes" below): 32, since a whole
 * table's reader or writer takes them all, one after the other. A hash
 * table's key is in the stripe of its hash's top STRIPE_BITS bits, so a
 * striped hash table keeps at least STRIPES buckets: each bucket's chain
 * is then one stripe's. A partitioned ordered_set's partition i is stripe
 * i's (see "partitions"). */
#define STRIPE_BITS 5u
#define STRIPES (1u << STRIPE_BITS)

struct ets_table {
    struct rt_rwlock lock; /* a table's lock is held for one operation or one portion of a long one */
    _Atomic unsigned refs; /* the registry's (while registered) and each caller's */
    bool dead;             /* deleted: every later access is ETS_BADID (table lock) */
    bool registered;       /* in the registry's lists (registry lock) */
    uint64_t id;
    term name;          /* table lock, and registry lock while registered */
    _Atomic term owner; /* written under the table lock; read anywhere (owner-end scan) */
    term heir;          /* a pid or THE_NON_VALUE (table lock) */
    struct ets_obj *heir_data;
    struct ets_options options;
    /* Objects and their words: atomic, since the callers of a striped
     * table's keys change them under its lock held shared. */
    _Atomic size_t n, object_words;
    struct bt_node *root;         /* ordered_set not partitioned: the B-tree */
    _Atomic size_t tree_bytes;    /* ordered_set: its nodes' bytes (a partition's writer adds to it) */
    struct ets_obj **buckets;     /* the other types: chains, see ets_table.h */
    unsigned bits;                /* log2 of the bucket count */
    struct table_stripe *stripes; /* a striped table's (see "stripes"), else NULL; kept while spare */
    _Atomic bool striped;         /* this table uses its stripes (written under the table lock) */
    bool exclusive;               /* the lock is held for writing, with every stripe (written so) */
    _Atomic unsigned keypos_hint; /* options.keypos, read before any lock to find an object's stripe */
    _Atomic bool resize_wanted;   /* a striped key's caller found the buckets too few or too many */
    _Atomic bool tree_hint;       /* options.type is ordered_set: read before any lock, as keypos_hint */
    /* A partitioned ordered_set's partitions (see "partitions"): their
     * number, the bounds between them, written under the lock held
     * exclusively, and the bounds' summaries, read without any lock. */
    bool partitioned; /* an ordered_set made with write_concurrency (written with every stripe held) */
    _Atomic unsigned parts;
    _Atomic bool split_wanted;                  /* a partition's writers found it contended */
    term bound[STRIPES - 1];                    /* bound[i]: the least key partition i + 1 may hold */
    struct ets_obj *bound_obj[STRIPES - 1];     /* the copies bound[] are in ({Key} tuples) */
    _Atomic uint64_t bound_prefix[STRIPES - 1]; /* term_order_prefix(bound[i]) */
    struct ets_batch *pending;                  /* a long insert under way (see "batches"); table lock */
    struct ets_registry *registry;              /* whose spare list takes it back */
    /* The registry's chains, written under its lock and read without it by
     * ets_access's fast path, with their own copies of the id and the name
     * (the fields above are the table lock's). */
    _Atomic(struct ets_table *) id_next, name_next;
    _Atomic uint64_t chain_id;
    _Atomic term chain_name;
    struct ets_table *all_prev, *all_next; /* registry lock */
};

struct ets_registry {
    pthread_rwlock_t lock;
    _Atomic uint64_t next_id;
    _Atomic(struct ets_table *) by_id[ID_BUCKETS];
    _Atomic(struct ets_table *) by_name[NAME_BUCKETS_ETS]; /* named tables only */
    struct ets_table *all_first, *all_last;                /* in creation order */
    struct ets_table *spare;                               /* emptied tables kept for reuse, by all_next */
};

struct table_stripe {
    struct rt_rwlock lock;
    /* A partitioned ordered_set's partition of this index: its B-tree,
     * and how contended its writers found the lock (see "partitions"). */
    struct bt_node *root;
    int contention;
} __attribute__((aligned(64))); /* whole lines each: two stripes' takers share nothing */

static struct table_stripe *stripes_new(void)
{
    struct table_stripe *s = aligned_alloc(64, STRIPES * sizeof *s);
    if (s)
        memset(s, 0, STRIPES * sizeof *s);
    for (unsigned i = 0; s && i < STRIPES; i++)
        rt_rwlock_init(&s[i].lock);
    return s;
}

static void stripes_free(struct table_stripe *s) { free(s); }

/* Acquire: a table seen striped has its stripes (stored before). */
static bool is_striped(const struct ets_table *t) { return atomic_load_explicit(&t->striped, memory_order_acquire); }

/* Every stripe of t, in order: the lock order is the table's lock, then
 * the stripes upward. */
static void stripes_take(struct ets_table *t, bool write)
{
    for (unsigned i = 0; i < STRIPES; i++)
        (void)rt_rwlock_lock(&t->stripes[i].lock, write);
}

static void stripes_give(struct ets_table *t)
{
    for (unsigned i = STRIPES; i-- > 0;)
        rt_rwlock_unlock(&t->stripes[i].lock);
}

/* Exclusively: the table's lock and, when it has them, every stripe, so
 * that callers holding a key's stripe alone are out too. */
static void table_lock_write(struct ets_table *t)
{
    (void)rt_rwlock_lock(&t->lock, true);
    if (t->stripes)
        stripes_take(t, true);
    t->exclusive = true;
}

static void table_lock_read(struct ets_table *t) { (void)rt_rwlock_lock(&t->lock, false); }

static void table_unlock(struct ets_table *t)
{
    if (t->exclusive) { /* read by a shared holder only while no one may write it */
        t->exclusive = false;
        if (t->stripes)
            stripes_give(t);
    }
    rt_rwlock_unlock(&t->lock);
}

/* An access's path (find the table, lock the key's stripe, check, find
 * the key, unlock) is inlined whole into each entry of a call on one key
 * (ets_access_key, _found, _object) and into ets_access_hinted: called, its helpers' prologues,
 * argument moves and reloads cost more than their work (callgrind,
 * 400,000 ets:member calls on 1,000 keys: 82 instructions a call fewer
 * with the helpers inlined, 33 more with the path in its entries, of
 * about 430; 9 KB of text). */
#define ACCESS_PATH static inline __attribute__((always_inline))

/* ---- objects ---- */

static struct ets_obj *obj_new(term t)
{
    /* The links are set by whoever links the object in. A tuple of
     * immediates (the common {Key, Counter}) is copied word for word,
     * without copy_term's two walks. */
    size_t arity = tuple_arity(t);
    bool flat = true;
    for (size_t i = 0; flat && i < arity; i++)
        flat = is_immed(tuple_elements(t)[i]);
    size_t size = flat ? arity + 1 : copy_size(t);
    if (size >= UINT32_MAX)
        return NULL;
    /* One word more past a copy that may refer to ProcBins, for their chain. */
    struct ets_obj *o = malloc(sizeof *o + (size + !flat) * sizeof(term));
    if (!o)
        return NULL;
    o->words = (uint32_t)size;
    if (flat) {
        memcpy(o->data, boxed_ptr(t), size * sizeof(term));
    } else {
        term *hp = o->data, *mso = NULL;
        /* copy_term lays the root first: the tuple is at data[0]. */
        (void)copy_term(t, size, &hp, &mso, NULL);
        *obj_mso(o) = mso;
    }
    return o;
}

static void obj_free(struct ets_obj *o)
{
    if (!o)
        return;
    if (!obj_flat(o) && *obj_mso(o))
        bin_release_mso(*obj_mso(o));
    free(o);
}

static term obj_tuple(const struct ets_obj *o) { return make_boxed(o->data); }

/* Heir data may be any term: it is kept as the 1-tuple {Data}. */
static struct ets_obj *heir_data_new(term data)
{
    term wrapper[2] = {make_header(SUBTAG_TUPLE, 1), data};
    return obj_new(make_boxed(wrapper));
}

static term heir_data_of(const struct ets_obj *o) { return tuple_element(obj_tuple(o), 1); }

/* ---- tables ----
 *
 * ets_access's fast path finds a table without the registry's lock or a
 * reference, then locks it and checks that it is still the table asked
 * for. So a table's memory, its lock above all, lives as long as its
 * registry: a table whose last reference goes is emptied and kept on the
 * registry's spare list, and the next new table reuses it. A caller that
 * locks a table just deleted or reused sees it dead or with another id
 * or name, and takes the slow path. */

static struct ets_table *take_spare(struct ets_registry *r)
{
    pthread_rwlock_wrlock(&r->lock);
    struct ets_table *t = r->spare;
    if (t)
        r->spare = t->all_next;
    pthread_rwlock_unlock(&r->lock);
    return t;
}

static void give_spare(struct ets_table *t)
{
    struct ets_registry *r = t->registry;
    pthread_rwlock_wrlock(&r->lock);
    t->all_next = r->spare;
    r->spare = t;
    pthread_rwlock_unlock(&r->lock);
}

static void table_clear(struct ets_table *t);

static struct ets_table *table_new(struct ets_registry *r, uint64_t id, term name, term owner,
                                   const struct ets_options *o)
{
    struct ets_table *t = take_spare(r);
    if (!t) {
        if (!(t = calloc(1, sizeof *t)))
            return NULL;
        rt_rwlock_init(&t->lock);
        t->registry = r;
    }
    /* A spare may be locked meanwhile by a caller that found it stale. */
    table_lock_write(t);
    bool ok = is_non_value(o->heir) || (t->heir_data = heir_data_new(o->heir_data));
    bool striped = o->write_concurrency;
    if (ok && striped && !t->stripes) {
        /* Taken at once, as table_lock_write would have: table_unlock
         * lets them go with the table's lock. */
        ok = (t->stripes = stripes_new()) != NULL;
        if (ok)
            stripes_take(t, true);
    }
    atomic_store_explicit(&t->keypos_hint, o->keypos, memory_order_relaxed);
    atomic_store_explicit(&t->tree_hint, o->type == ETS_ORDERED_SET, memory_order_relaxed);
    atomic_store_explicit(&t->parts, 1, memory_order_relaxed);
    t->partitioned = ok && striped && o->type == ETS_ORDERED_SET;
    atomic_store_explicit(&t->striped, ok && striped, memory_order_release);
    if (ok) {
        atomic_store_explicit(&t->refs, 1, memory_order_relaxed);
        atomic_store_explicit(&t->owner, owner, memory_order_relaxed);
        t->dead = t->registered = false;
        t->id = id;
        t->name = name;
        t->heir = o->heir;
        t->options = *o;
        t->options.heir_data = THE_NON_VALUE; /* kept in heir_data */
    } else {
        t->dead = true;
    }
    table_unlock(t);
    if (!ok) {
        give_spare(t);
        return NULL;
    }
    return t;
}

/* Empties t, whose last reference went, onto the spare list. */
static void table_retire(struct ets_table *t)
{
    table_lock_write(t);
    t->dead = true;
    table_clear(t);
    obj_free(t->heir_data);
    t->heir_data = NULL;
    table_unlock(t);
    give_spare(t);
}

static void table_release(struct ets_table *t)
{
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
        table_retire(t);
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
    while ((t = r->spare)) {
        r->spare = t->all_next;
        stripes_free(t->stripes);
        free(t);
    }
    pthread_rwlock_destroy(&r->lock);
    free(r);
}

struct ets_registry *ets_registry_of(const struct process *self) { return self->sched->ets; }

static struct ets_table *next_in(_Atomic(struct ets_table *) *link)
{
    return atomic_load_explicit(link, memory_order_acquire);
}

/* The chains' readers: under the registry's lock, exact; without it, a
 * hint that ets_access checks under the table's lock (a walk may follow
 * a table unlinked or reused meanwhile into another chain, and miss). */
ACCESS_PATH struct ets_table *find_by_name(struct ets_registry *r, term name)
{
    struct ets_table *t = next_in(&r->by_name[name_bucket(name)]);
    while (t && atomic_load_explicit(&t->chain_name, memory_order_relaxed) != name)
        t = next_in(&t->name_next);
    return t;
}

ACCESS_PATH struct ets_table *find_by_id(struct ets_registry *r, uint64_t id)
{
    struct ets_table *t = next_in(&r->by_id[id_bucket(id)]);
    while (t && atomic_load_explicit(&t->chain_id, memory_order_relaxed) != id)
        t = next_in(&t->id_next);
    return t;
}

/* Links t at the head of a chain (registry write lock held): its own link
 * first, then the head, with release, so a reader that sees t sees it whole. */
static void link_head(_Atomic(struct ets_table *) *head, _Atomic(struct ets_table *) *own, struct ets_table *t)
{
    atomic_store_explicit(own, next_in(head), memory_order_relaxed);
    atomic_store_explicit(head, t, memory_order_release);
}

static void link_name_locked(struct ets_registry *r, struct ets_table *t, term name)
{
    atomic_store_explicit(&t->chain_name, name, memory_order_relaxed);
    link_head(&r->by_name[name_bucket(name)], &t->name_next, t);
}

/* Unlinks t from a chain (registry write lock held). t keeps its own link,
 * so a reader standing on it walks on. */
static void unlink_from(_Atomic(struct ets_table *) *at, _Atomic(struct ets_table *) *(*link_of)(struct ets_table *),
                        struct ets_table *t)
{
    struct ets_table *x;
    while ((x = next_in(at)) && x != t)
        at = link_of(x);
    if (x)
        atomic_store_explicit(at, next_in(link_of(t)), memory_order_release);
}

static _Atomic(struct ets_table *) *id_link(struct ets_table *t) { return &t->id_next; }
static _Atomic(struct ets_table *) *name_link(struct ets_table *t) { return &t->name_next; }

static void unlink_name_locked(struct ets_registry *r, struct ets_table *t)
{
    unlink_from(&r->by_name[name_bucket(t->name)], name_link, t);
}

/* Takes t out of the registry (registry write lock held). */
static void unregister_locked(struct ets_registry *r, struct ets_table *t)
{
    unlink_from(&r->by_id[id_bucket(t->id)], id_link, t);
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
    struct ets_table *t = table_new(r, new_id, name, owner, o);
    if (!t)
        return ETS_NOMEM;
    pthread_rwlock_wrlock(&r->lock);
    if (o->named && find_by_name(r, name)) {
        pthread_rwlock_unlock(&r->lock);
        table_release(t);
        return ETS_EXISTS;
    }
    atomic_store_explicit(&t->chain_id, new_id, memory_order_relaxed);
    link_head(&r->by_id[id_bucket(new_id)], &t->id_next, t);
    if (o->named)
        link_name_locked(r, t, name);
    t->all_prev = r->all_last;
    t->all_next = NULL; /* a spare's still held the spare list */
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

ACCESS_PATH bool table_ref_id(term ref, uint64_t *id)
{
    /* A magic reference's id comes from make_ref too: never a table's. */
    if (!is_boxed_subtag(ref, SUBTAG_REF) || ref_id_high(ref) != 0 || ref_id_low(ref) < ETS_ID_BASE)
        return false;
    *id = ref_id_low(ref);
    return true;
}

bool ets_ref_id(term ref, uint64_t *id) { return table_ref_id(ref, id); }

/* A table argument, read once for the finding and the checking: a table
 * id (by_id) or else perhaps a name. */
struct table_arg {
    term tab;
    uint64_t id;
    bool by_id;
};

/* Filled in place: a copy of the struct, made of a byte and two words
 * just stored, would be read back before those stores are done (a stall
 * of its own on every call). */
ACCESS_PATH void table_arg_init(struct table_arg *a, term tab)
{
    a->tab = tab;
    a->id = 0;
    a->by_id = table_ref_id(tab, &a->id);
}

/* The table a denotes, by the chains' rules. */
ACCESS_PATH struct ets_table *find_named(struct ets_registry *r, const struct table_arg *a)
{
    return a->by_id ? find_by_id(r, a->id) : is_atom(a->tab) ? find_by_name(r, a->tab) : NULL;
}

/* The table tab names, with a reference taken; NULL when none. */
static struct ets_table *acquire(struct ets_registry *r, term tab)
{
    struct table_arg a;
    table_arg_init(&a, tab);
    pthread_rwlock_rdlock(&r->lock);
    struct ets_table *t = find_named(r, &a);
    if (t)
        table_retain(t);
    pthread_rwlock_unlock(&r->lock);
    return t;
}

static enum ets_status not_found(term tab) { return is_atom(tab) || is_ref(tab) ? ETS_BADID : ETS_BADTYPE; }

ACCESS_PATH enum ets_status check_locked(const struct ets_table *t, term caller, enum ets_need need)
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

static void settle_locked(struct ets_table *t);

/* Write-locks t with no long insert left half done: whoever takes the lock
 * while one is under way finishes it first (OTP's helping), so that no
 * caller ever sees part of one insert/2 call's objects. */
static void table_wrlock(struct ets_table *t)
{
    table_lock_write(t);
    settle_locked(t);
}

/* ---- stripes ----
 *
 * A set, bag or duplicate_bag made with write_concurrency has STRIPES
 * locks besides its own, stripe s guarding the chains of the keys whose
 * hash has s as its top bits (OTP's lock striping). A caller working on
 * one key (ets_access_key: lookup, insert of one object, update_counter,
 * delete of a key...) holds its key's stripe alone, read or write, so
 * callers on keys of other stripes go on at the same time; the counts are
 * atomic for them. The table's lock taken exclusively includes every
 * stripe, so what only such a holder changes (the buckets, a pending
 * insert, the table's settings and life) is stable under any stripe; a
 * whole table's reader holds the lock shared and every stripe shared.
 * Only the exclusive holder moves chains between buckets: a key's caller
 * that finds the buckets too few or too many asks for a resize, made as
 * its call ends, and a first insert, which makes the buckets, takes the
 * lock exclusively. STRIPES and struct table_stripe are above. */

/* The key a key-scoped access works on: given, or an object's (an invalid
 * object has none: its caller refuses it without looking at the table). */
struct key_scope {
    term key;
    bool of_object;
    int stripe;  /* a walk's: this stripe (key unused), or -1 */
    bool *whole; /* when not NULL: set to whether the call holds more than one stripe */
    /* The key's hash by keypos hash_keypos (0: not taken yet), taken once
     * for the stripe, the bucket's prefetch and the search. */
    unsigned hash_keypos;
    uint64_t hash;
    /* ets_access_found's callback (else NULL): given the key's first object. */
    enum ets_status (*found)(struct ets_table *t, struct ets_obj *first, void *arg);
};

/* What an access holds: a striped key's stripe alone, or the table's
 * lock (with every stripe read-locked for a striped table read whole;
 * taken exclusively, the lock includes every stripe). */
struct held {
    bool all_stripes;
    struct table_stripe *stripe;
};

static uint64_t key_hash(term key);

/* Whether object can be stored in a table of that keypos. */
static bool has_keypos(term object, unsigned keypos) { return is_tuple(object) && tuple_arity(object) >= keypos; }

/* The key ks names, by the keypos given: THE_NON_VALUE for an object
 * invalid for it. */
ACCESS_PATH term scoped_key(const struct key_scope *ks, unsigned keypos)
{
    term key = ks->key;
    if (ks->of_object)
        key = has_keypos(key, keypos) ? tuple_element(key, keypos) : THE_NON_VALUE;
    return key;
}

/* The hash of the key ks names by keypos, which has one. */
ACCESS_PATH uint64_t scope_hash(struct key_scope *ks, unsigned keypos)
{
    if (ks->hash_keypos != keypos) {
        ks->hash = key_hash(scoped_key(ks, keypos));
        ks->hash_keypos = keypos;
    }
    return ks->hash;
}

/* The stripe of the key ks names (an object's without a key: stripe 0). */
ACCESS_PATH struct table_stripe *stripe_of(const struct ets_table *t, struct key_scope *ks, unsigned keypos)
{
    if (ks->stripe >= 0)
        return &t->stripes[ks->stripe];
    return &t->stripes[is_value(scoped_key(ks, keypos)) ? scope_hash(ks, keypos) >> (64 - STRIPE_BITS) : 0];
}

static size_t bucket_of(const struct ets_table *t, uint64_t h);
static bool is_tree(const struct ets_table *t);
static bool lock_key_part(struct ets_table *t, enum ets_need need, term key, unsigned keypos, struct held *h,
                          bool *exclusive);
static void split_asked(struct ets_table *t);

/* A key's call on a hash table, locked: its bucket is asked for now, so
 * that the cache miss on it overlaps the checks and the builtin's own
 * work before the lookup reads it. */
ACCESS_PATH void prefetch_bucket(const struct ets_table *t, struct key_scope *ks)
{
    if (t->buckets && ks->stripe < 0 && is_value(scoped_key(ks, t->options.keypos)))
        __builtin_prefetch(&t->buckets[bucket_of(t, scope_hash(ks, t->options.keypos))]);
}

/* A striped key's caller: its stripe alone, once under it the table is
 * still striped with that keypos, has no long insert pending, and has
 * buckets for a writer; true then. Otherwise false, and *exclusive says
 * whether the table's lock must be taken exclusively instead (a pending
 * insert to finish, buckets to make) or it should be tried again (the
 * table was reused meanwhile). */
ACCESS_PATH bool lock_key_stripe(struct ets_table *t, enum ets_need need, struct key_scope *ks, struct held *h,
                                 bool *exclusive)
{
    unsigned keypos = atomic_load_explicit(&t->keypos_hint, memory_order_relaxed);
    if (ks->stripe < 0 && atomic_load_explicit(&t->tree_hint, memory_order_relaxed))
        return lock_key_part(t, need, scoped_key(ks, keypos), keypos, h, exclusive);
    struct table_stripe *s = stripe_of(t, ks, keypos);
    (void)rt_rwlock_lock(&s->lock, need == ETS_WRITE);
    bool same = is_striped(t) && t->options.keypos == keypos && !is_tree(t);
    *exclusive = same && (t->pending || (need == ETS_WRITE && !t->buckets));
    if (same && !*exclusive) {
        h->stripe = s;
        return true;
    }
    rt_rwlock_unlock(&s->lock);
    return false;
}

/* Locks t for need, and for key alone when ks is given (see "stripes"):
 * a walk of a partitioned ordered_set (ks's stripe given) holds it whole. */
ACCESS_PATH void lock_for(struct ets_table *t, enum ets_need need, struct key_scope *ks, struct held *h)
{
    for (;;) {
        *h = (struct held){false, NULL};
        if (ks && is_striped(t) && !(ks->stripe >= 0 && atomic_load_explicit(&t->tree_hint, memory_order_relaxed))) {
            bool exclusive;
            if (lock_key_stripe(t, need, ks, h, &exclusive))
                return;
            if (!exclusive)
                continue;
            table_wrlock(t);
            return;
        }
        if (need == ETS_WRITE) {
            table_wrlock(t);
            return;
        }
        table_lock_read(t);
        if (t->pending) {
            table_unlock(t);
            table_wrlock(t);
            table_unlock(t);
            continue;
        }
        /* A whole striped table read: every stripe too, which keeps its
         * keys' writers out. */
        if (is_striped(t) && need == ETS_READ) {
            stripes_take(t, false);
            h->all_stripes = true;
        }
        return;
    }
}

ACCESS_PATH void unlock_for(struct ets_table *t, const struct held *h)
{
    if (h->stripe) {
        rt_rwlock_unlock(&h->stripe->lock);
        return;
    }
    if (h->all_stripes)
        stripes_give(t);
    table_unlock(t);
}

static void fit_buckets(struct ets_table *t);

/* After a striped key's call that asked for a resize: made now, under the
 * lock held exclusively, if t is still a live table (it may have been
 * deleted meanwhile: its memory stays, see "tables"). */
static void resize_asked(struct ets_table *t)
{
    table_wrlock(t);
    if (!t->dead)
        fit_buckets(t);
    atomic_store_explicit(&t->resize_wanted, false, memory_order_relaxed);
    table_unlock(t);
}

/* Whether t, locked, is still the live table a names. */
ACCESS_PATH bool still_named_by(const struct ets_table *t, const struct table_arg *a)
{
    return !t->dead && (a->by_id ? t->id == a->id : t->options.named && t->name == a->tab);
}

ACCESS_PATH enum ets_status access_hinted(struct ets_registry *r, struct ets_table *hint, const struct table_arg *a,
                                          term caller, enum ets_need need, struct key_scope *ks,
                                          enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg);

/* The fast path for tab, whole (ks NULL) or scoped: the chains walked
 * without the registry's lock and no reference taken (see "tables" above
 * for why the table can be locked). */
ACCESS_PATH enum ets_status access_named(struct ets_registry *r, term tab, term caller, enum ets_need need,
                                         struct key_scope *ks, enum ets_status (*fn)(struct ets_table *t, void *arg),
                                         void *arg)
{
    struct table_arg a;
    table_arg_init(&a, tab);
    return access_hinted(r, find_named(r, &a), &a, caller, need, ks, fn, arg);
}

/* access_named for the calls on a whole table and the walks, out of line:
 * the path is inlined only into the calls on one key, which are most
 * calls (ets:member 33 instructions fewer a call inlined). */
static enum ets_status access_named_called(struct ets_registry *r, term tab, term caller, enum ets_need need,
                                           struct key_scope *ks, enum ets_status (*fn)(struct ets_table *t, void *arg),
                                           void *arg)
{
    return access_named(r, tab, caller, need, ks, fn, arg);
}

enum ets_status ets_access(struct ets_registry *r, term tab, term caller, enum ets_need need,
                           enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg)
{
    return access_named_called(r, tab, caller, need, NULL, fn, arg);
}

enum ets_status ets_access_key(struct ets_registry *r, term tab, term caller, enum ets_need need, term key,
                               enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg)
{
    struct key_scope ks = {.key = key, .stripe = -1};
    return access_named(r, tab, caller, need, &ks, fn, arg);
}

enum ets_status ets_access_found(struct ets_registry *r, term tab, term caller, enum ets_need need, term key,
                                 enum ets_status (*fn)(struct ets_table *t, struct ets_obj *first, void *arg),
                                 void *arg)
{
    struct key_scope ks = {.key = key, .stripe = -1, .found = fn};
    return access_named(r, tab, caller, need, &ks, NULL, arg);
}

enum ets_status ets_access_object(struct ets_registry *r, term tab, term caller, enum ets_need need, term object,
                                  enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg)
{
    struct key_scope ks = {.key = object, .of_object = true, .stripe = -1};
    return access_named(r, tab, caller, need, &ks, fn, arg);
}

enum ets_status ets_access_hinted(struct ets_registry *r, struct ets_table *hint, term tab, term caller,
                                  enum ets_need need, enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg)
{
    struct table_arg a;
    table_arg_init(&a, tab);
    return access_hinted(r, hint, &a, caller, need, NULL, fn, arg);
}

/* ---- first/1 and next/2 (and last/1 and prev/2) a stripe at a time ----
 *
 * A striped table's objects never change stripes (a stripe is a hash's
 * top bits) and its order is the hashes' order, so the table's order is
 * stripe 0's objects, then stripe 1's, and so on: the object after a key
 * is found holding the key's stripe, and, when that stripe holds nothing
 * after it, each following stripe alone in turn. Holding every stripe for
 * one next/2 call took it from 0.25 to 0.64 us. On these types last/1 and
 * prev/2 are the same walk; an ordered_set walks whole (a partitioned
 * one holding every stripe). */
struct walk {
    term key; /* the first round's: the object after it; else the stripe's first */
    int stripe;
    bool backward; /* last/1 and prev/2: an ordered_set's in reverse (other types have one order) */
    bool whole, go_on;
    enum ets_status (*fn)(struct ets_table *t, struct ets_obj *o, void *arg);
    void *arg;
};

static struct ets_obj *hash_key_last(const struct ets_table *t, term key);
static struct ets_obj *hash_from_until(const struct ets_table *t, size_t b, size_t end);

static enum ets_status walk_step(struct ets_table *t, void *arg)
{
    struct walk *w = arg;
    struct ets_obj *o;
    if (w->whole) { /* the table whole (not striped, or its lock taken): no stripes to go by */
        if (w->backward && is_tree(t))
            o = is_non_value(w->key) ? ets_last_locked(t) : ets_key_before_locked(t, w->key);
        else if (is_non_value(w->key))
            o = ets_first_locked(t);
        else if (!ets_key_after_locked(t, w->key, &o))
            return ETS_BADARG;
        return w->fn(t, o, w->arg);
    }
    if (!t->buckets) /* no object anywhere */
        return is_non_value(w->key) ? w->fn(t, NULL, w->arg) : ETS_BADARG;
    unsigned shift = t->bits - STRIPE_BITS;
    size_t end = ((size_t)w->stripe + 1) << shift;
    if (is_non_value(w->key)) {
        o = hash_from_until(t, (size_t)w->stripe << shift, end);
    } else {
        if (!(o = hash_key_last(t, w->key)))
            return ETS_BADARG;
        o = o->next ? o->next : hash_from_until(t, bucket_of(t, obj_hash(o)) + 1, end);
    }
    if (!o && w->stripe + 1 < (int)STRIPES) {
        w->go_on = true;
        return ETS_OK;
    }
    return w->fn(t, o, w->arg);
}

static enum ets_status access_walk(struct ets_registry *r, term tab, term caller, term key, bool backward,
                                   enum ets_status (*fn)(struct ets_table *t, struct ets_obj *o, void *arg), void *arg)
{
    struct walk w = {key, 0, backward, false, false, fn, arg};
    /* The key's stripe by its hash, as lock_key_stripe finds it. */
    if (is_value(key))
        w.stripe = (int)(key_hash(key) >> (64 - STRIPE_BITS));
    for (;;) {
        struct key_scope ks = {.key = THE_NON_VALUE, .stripe = w.stripe, .whole = &w.whole};
        w.go_on = false;
        enum ets_status st = access_named_called(r, tab, caller, ETS_READ, &ks, walk_step, &w);
        if (st != ETS_OK || !w.go_on)
            return st;
        w.key = THE_NON_VALUE;
        w.stripe++;
    }
}

enum ets_status ets_access_after(struct ets_registry *r, term tab, term caller, term key,
                                 enum ets_status (*fn)(struct ets_table *t, struct ets_obj *o, void *arg), void *arg)
{
    return access_walk(r, tab, caller, key, false, fn, arg);
}

enum ets_status ets_access_before(struct ets_registry *r, term tab, term caller, term key,
                                  enum ets_status (*fn)(struct ets_table *t, struct ets_obj *o, void *arg), void *arg)
{
    return access_walk(r, tab, caller, key, true, fn, arg);
}

ACCESS_PATH struct ets_obj *find_scoped(const struct ets_table *t, struct key_scope *ks);

ACCESS_PATH enum ets_status access_hinted(struct ets_registry *r, struct ets_table *hint, const struct table_arg *a,
                                          term caller, enum ets_need need, struct key_scope *ks,
                                          enum ets_status (*fn)(struct ets_table *t, void *arg), void *arg)
{
    struct ets_table *t = hint, *held = NULL; /* held: the slow path's reference */
    struct held h;
    if (t) {
        lock_for(t, need, ks, &h);
        if (!still_named_by(t, a)) {
            unlock_for(t, &h);
            t = NULL;
        }
    }
    if (!t) {
        if (!(t = held = acquire(r, a->tab)))
            return not_found(a->tab);
        lock_for(t, need, ks, &h);
    }
    if (ks && ks->whole)
        *ks->whole = !h.stripe;
    if (ks && !ks->found) /* a found call's search follows at once */
        prefetch_bucket(t, ks);
    enum ets_status st = check_locked(t, caller, need);
    if (st == ETS_OK)
        st = ks && ks->found ? ks->found(t, find_scoped(t, ks), arg) : fn(t, arg);
    unlock_for(t, &h);
    if (h.stripe && atomic_load_explicit(&t->resize_wanted, memory_order_relaxed))
        resize_asked(t);
    if (h.stripe && atomic_load_explicit(&t->split_wanted, memory_order_relaxed))
        split_asked(t);
    if (held)
        table_release(held);
    return st;
}

static struct ets_rubble *take_all_locked(struct ets_table *t);

/* Deletes t, whose write lock is held and which is alive: out of the
 * registry first, so that its name is free as soon as it is dead. Its
 * objects go into *rubble when rubble is not NULL, else now. A long insert
 * pending on it is not finished, only let go: its objects would go with
 * the table, and its inserter frees them (ets_batch_go_on sees it ended). */
static void delete_locked(struct ets_registry *r, struct ets_table *t, struct ets_rubble **rubble)
{
    t->pending = NULL;
    pthread_rwlock_wrlock(&r->lock);
    bool drop = t->registered;
    if (drop)
        unregister_locked(r, t);
    pthread_rwlock_unlock(&r->lock);
    t->dead = true;
    if (rubble)
        *rubble = take_all_locked(t);
    table_clear(t);
    if (drop)
        table_release(t); /* the registry's reference; the caller still holds one */
}

enum ets_status ets_delete_table(struct ets_registry *r, term tab, term caller, struct ets_rubble **rubble)
{
    struct ets_table *t = acquire(r, tab);
    if (!t)
        return not_found(tab);
    table_lock_write(t); /* a pending insert is let go, not finished */
    enum ets_status st = check_locked(t, caller, ETS_WRITE);
    if (st == ETS_OK)
        delete_locked(r, t, rubble);
    table_unlock(t);
    table_release(t);
    return st;
}

enum ets_status ets_rename(struct ets_registry *r, term tab, term caller, term name, bool *named)
{
    struct ets_table *t = acquire(r, tab);
    if (!t)
        return not_found(tab);
    table_lock_write(t); /* the objects untouched: a pending insert may stay */
    enum ets_status st = check_locked(t, caller, ETS_WRITE);
    if (st == ETS_OK) {
        *named = t->options.named;
        pthread_rwlock_wrlock(&r->lock);
        if (!t->options.named) {
            t->name = name;
        } else if (name == t->name) {
            /* nothing changes */
        } else if (find_by_name(r, name)) {
            st = ETS_EXISTS;
        } else {
            unlink_name_locked(r, t);
            t->name = name;
            link_name_locked(r, t, name);
        }
        pthread_rwlock_unlock(&r->lock);
    }
    table_unlock(t);
    table_release(t);
    return st;
}

bool ets_whereis(struct ets_registry *r, term name, uint64_t *id)
{
    pthread_rwlock_rdlock(&r->lock);
    struct ets_table *t = find_by_name(r, name);
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
    table_lock_write(t); /* the objects untouched: a pending insert may stay */
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
    table_unlock(t);
    rt_unlock(&s->exec_lock);
    table_release(t);
    return st;
}

enum ets_status ets_setopts(struct process *self, term tab, const struct ets_settings *o)
{
    struct sched *s = self->sched;
    struct ets_table *t = acquire(s->ets, tab);
    if (!t)
        return not_found(tab);
    /* The executor mutex keeps the heir from ending while it is checked. */
    rt_lock(&s->exec_lock);
    table_lock_write(t); /* every stripe too: check_locked's readers see one protection */
    enum ets_status st = check_locked(t, self->pid, ETS_WRITE);
    if (st == ETS_OK && (!o->valid || atomic_load_explicit(&t->owner, memory_order_relaxed) != self->pid))
        st = ETS_BADARG;
    if (st == ETS_OK && o->set_heir) {
        term heir = o->heir;
        if (is_value(heir) && heir != self->pid && !sched_live_locked(s, heir))
            heir = THE_NON_VALUE;
        struct ets_obj *data = is_value(heir) ? heir_data_new(o->heir_data) : NULL;
        if (is_value(heir) && !data) {
            st = ETS_NOMEM;
        } else {
            obj_free(t->heir_data);
            t->heir_data = data;
            t->heir = heir;
        }
    }
    if (st == ETS_OK && o->set_protection)
        t->options.protection = o->protection;
    table_unlock(t);
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
        table_lock_write(t); /* settled below only if the table lives on */
        if (!t->dead && atomic_load_explicit(&t->owner, memory_order_relaxed) == p->pid) {
            struct process *heir = is_value(t->heir) && t->heir != p->pid ? sched_live_locked(s, t->heir) : NULL;
            if (heir) {
                settle_locked(t);
                atomic_store_explicit(&t->owner, heir->pid, memory_order_relaxed);
                atomic_fetch_add_explicit(&heir->ets_owned, 1, memory_order_relaxed);
                send_transfer_locked(s, waker, heir, t, p->pid, heir_data_of(t->heir_data));
            } else {
                delete_locked(r, t, NULL);
            }
        }
        table_unlock(t);
        table_release(t);
    }
    free(owned);
    atomic_store_explicit(&p->ets_owned, 0, memory_order_relaxed);
}

/* ---- keys ---- */

static bool is_tree(const struct ets_table *t) { return t->options.type == ETS_ORDERED_SET; }
static term key_of(const struct ets_table *t, const struct ets_obj *o)
{
    return tuple_element(obj_tuple(o), t->options.keypos);
}

/* The chains are placed by the top bits of the hash, so it is spread over
 * 64 bits (a bijection: equal hashes stay equal). */
static uint64_t spread_hash(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    return h;
}

/* An immediate key (a small integer, an atom, a pid: the common keys) is
 * exactly equal only to the same word, so its word is spread as it is;
 * other keys take the 32-bit internal hash first, which walks the term.
 * The top 32 bits alone are kept (an object stores those): they choose
 * the stripe and the bucket, and order the chains. */
static uint64_t key_hash(term key) { return spread_hash(is_immed(key) ? key : term_hash(key)) & ~(uint64_t)UINT32_MAX; }

/* ---- ordered_set: a B-tree ----
 *
 * Each node holds up to BT_MAX objects in key order, with their keys
 * beside them (a search compares a node's keys without touching the
 * objects), and an inner node one child more than objects: child i holds
 * the keys between key[i - 1] and key[i]. Every node but the root holds at
 * least BT_MIN, and every leaf is at the same depth, so 400,000 objects
 * are 6 levels deep where a binary tree is 19: a lookup follows a few
 * nodes of four cache lines each instead of a cache miss a level. Objects
 * never move when nodes split, merge or lend (only their pointers do), so
 * a handle stays valid while others come and go; the neighbour of an
 * object is found by its key. */

/* term_compare, with the common small-integer keys compared here: a
 * search makes a few comparisons a node. */
static inline int key_compare(term a, term b)
{
    if (is_small(a) && is_small(b))
        return (small_value(a) > small_value(b)) - (small_value(a) < small_value(b));
    return term_compare(a, b);
}

#define BT_MAX 15u
#define BT_MIN (BT_MAX / 2)
/* Deeper than any tree can be: a non-root inner node has at least
 * BT_MIN + 1 = 8 children, so 2^64 objects need fewer than 23 levels. */
#define BT_DEPTH 32
#define BT_LINE 64u

struct bt_node {
    unsigned short n; /* objects */
    bool leaf;
    term key[BT_MAX];
    struct ets_obj *obj[BT_MAX];
    struct bt_node *kid[]; /* inner nodes only: n + 1 children */
};

/* A node's bytes, whole cache lines (a node starts on one). */
static size_t bt_node_size(bool leaf)
{
    size_t size = sizeof(struct bt_node) + (leaf ? 0 : (BT_MAX + 1) * sizeof(struct bt_node *));
    return (size + BT_LINE - 1) / BT_LINE * BT_LINE;
}

/* Asks for all of b's lines at once: a search reads a few keys, one after
 * the other, and without this each would wait for its own cache miss. */
static inline void bt_prefetch(const struct bt_node *b)
{
    for (size_t at = 0; at < sizeof(struct bt_node) + (BT_MAX + 1) * sizeof(struct bt_node *); at += BT_LINE)
        __builtin_prefetch((const char *)b + at);
}

static struct bt_node *bt_node_new(struct ets_table *t, bool leaf)
{
    struct bt_node *b = aligned_alloc(BT_LINE, bt_node_size(leaf));
    if (!b)
        return NULL;
    b->n = 0;
    b->leaf = leaf;
    atomic_fetch_add_explicit(&t->tree_bytes, bt_node_size(leaf), memory_order_relaxed);
    return b;
}

static void bt_node_free(struct ets_table *t, struct bt_node *b)
{
    if (t)
        atomic_fetch_sub_explicit(&t->tree_bytes, bt_node_size(b->leaf), memory_order_relaxed);
    free(b);
}

/* ---- partitions ----
 *
 * An ordered_set made with write_concurrency is striped too, as OTP makes
 * it a contention-adapting tree: its keys are split into up to STRIPES
 * partitions by the bounds between them, each a B-tree of its own under
 * its stripe's lock. A call on one key (ets_access_key) finds its
 * partition from the bounds' summaries (term_order_prefix) without any
 * lock, takes that stripe, and checks under it against the bounds
 * themselves (which change only under the table's lock held exclusively,
 * so are still under any stripe), going to the right stripe when the
 * summaries could not tell. A table starts with one partition; a
 * partition whose writers find its lock taken (OTP's statistics: 250 up
 * for a contended take, 1 down for a free one) past SPLIT_AT is split in
 * two at its middle key as the call ends, under the lock held
 * exclusively. Partitions never join (OTP's do when uncontended); deleting
 * every object makes one again. A call on the whole table holds every
 * stripe, and walks the partitions in order. */

enum { CONTENDED_TAKE = 250, SPLIT_AT = 1000, CONTENTION_FLOOR = -1000 };

static bool is_partitioned(const struct ets_table *t) { return t->partitioned; }
static unsigned part_count(const struct ets_table *t)
{
    return is_partitioned(t) ? atomic_load_explicit(&t->parts, memory_order_relaxed) : 1;
}
static struct bt_node *part_tree(const struct ets_table *t, unsigned i)
{
    return is_partitioned(t) ? t->stripes[i].root : t->root;
}
static struct bt_node **part_root(struct ets_table *t, unsigned i)
{
    return is_partitioned(t) ? &t->stripes[i].root : &t->root;
}

/* What a search of the partitions compares the key against: the bounds
 * themselves, or their summaries (term_order_prefix), which need no lock. */
enum bound_view { BY_BOUNDS, BY_SUMMARIES };

/* Which of n partitions holds key: how many of the n - 1 bounds order at
 * or before it (an upper-bound binary search). */
static inline unsigned search_parts(const struct ets_table *t, unsigned n, term key, enum bound_view view)
{
    uint64_t summary = view == BY_SUMMARIES ? term_order_prefix(key) : 0;
    unsigned lo = 0, hi = n - 1;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        bool at_or_before = view == BY_SUMMARIES
                                ? atomic_load_explicit(&t->bound_prefix[mid], memory_order_relaxed) <= summary
                                : key_compare(t->bound[mid], key) <= 0;
        if (at_or_before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The partition that holds key. Under any stripe's lock or the table's. */
static unsigned part_of(const struct ets_table *t, term key)
{
    if (!is_partitioned(t))
        return 0;
    return search_parts(t, atomic_load_explicit(&t->parts, memory_order_relaxed), key, BY_BOUNDS);
}

/* part_of by the bounds' summaries, without a lock: a guess, right unless
 * a summary ties with the key's or a split is under way. */
static unsigned part_hint(const struct ets_table *t, term key)
{
    unsigned n = atomic_load_explicit(&t->parts, memory_order_relaxed);
    if (n <= 1 || n > STRIPES)
        return 0;
    return search_parts(t, n, key, BY_SUMMARIES);
}

/* A writer's take of partition s: contended or not. */
static void note_contention(struct ets_table *t, struct table_stripe *s, bool contended)
{
    if (!contended) {
        s->contention -= s->contention > CONTENTION_FLOOR;
        return;
    }
    s->contention += CONTENDED_TAKE;
    if (s->contention > SPLIT_AT && atomic_load_explicit(&t->parts, memory_order_relaxed) < STRIPES)
        atomic_store_explicit(&t->split_wanted, true, memory_order_relaxed);
}

/* lock_key_stripe for a partitioned ordered_set's key (THE_NON_VALUE for
 * an object without one: partition 0, whose caller refuses it). */
static bool lock_key_part(struct ets_table *t, enum ets_need need, term key, unsigned keypos, struct held *h,
                          bool *exclusive)
{
    unsigned at = is_value(key) ? part_hint(t, key) : 0;
    for (;;) {
        struct table_stripe *s = &t->stripes[at];
        bool contended = rt_rwlock_lock(&s->lock, need == ETS_WRITE);
        bool same = is_striped(t) && is_tree(t) && t->options.keypos == keypos;
        *exclusive = same && t->pending;
        if (!same || *exclusive) {
            rt_rwlock_unlock(&s->lock);
            return false;
        }
        unsigned right = is_value(key) ? part_of(t, key) : 0;
        if (right == at) {
            if (need == ETS_WRITE)
                note_contention(t, s, contended);
            h->stripe = s;
            return true;
        }
        rt_rwlock_unlock(&s->lock);
        at = right;
    }
}

/* The nodes of a tree, not its objects. */
static void bt_free_nodes(struct ets_table *t, struct bt_node *b)
{
    if (!b)
        return;
    if (!b->leaf)
        for (unsigned k = 0; k <= b->n; k++)
            bt_free_nodes(t, b->kid[k]);
    bt_node_free(t, b);
}

static size_t bt_count(const struct bt_node *b)
{
    size_t n = b ? b->n : 0;
    if (b && !b->leaf)
        for (unsigned k = 0; k <= b->n; k++)
            n += bt_count(b->kid[k]);
    return n;
}

/* b's objects in key order, from out[*at] on. */
static void bt_collect(const struct bt_node *b, struct ets_obj **out, size_t *at)
{
    for (unsigned k = 0; b && k <= b->n; k++) {
        if (!b->leaf)
            bt_collect(b->kid[k], out, at);
        if (k < b->n)
            out[(*at)++] = b->obj[k];
    }
}

/* The first index of b whose key does not order before key; *found
 * when that key equals it. */
static unsigned bt_lower(const struct bt_node *b, term key, bool *found)
{
    bt_prefetch(b);
    unsigned lo = 0, hi = b->n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        int c = key_compare(b->key[mid], key);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

/* The way down to a key: the nodes from the root and, in each, the index
 * taken (an inner node's child, or the object where the key was found or
 * would go). */
struct bt_path {
    struct bt_node *node[BT_DEPTH];
    unsigned at[BT_DEPTH];
    int depth;     /* the last level filled in; -1 for an empty tree */
    unsigned part; /* the tree's partition (see "partitions") */
};

static bool bt_search(const struct ets_table *t, term key, struct bt_path *p)
{
    p->depth = -1;
    p->part = part_of(t, key);
    for (struct bt_node *b = part_tree(t, p->part); b; b = b->kid[p->at[p->depth]]) {
        bool found;
        unsigned i = bt_lower(b, key, &found);
        p->node[++p->depth] = b;
        p->at[p->depth] = i;
        if (found)
            return true;
        if (b->leaf)
            return false;
    }
    return false;
}

static struct ets_obj *tree_find(const struct ets_table *t, term key)
{
    for (const struct bt_node *b = part_tree(t, part_of(t, key)); b;) {
        bool found;
        unsigned i = bt_lower(b, key, &found);
        if (found)
            return b->obj[i];
        b = b->leaf ? NULL : b->kid[i];
    }
    return NULL;
}

/* A tree's first object (d = 0) or its last (d = 1). */
static struct ets_obj *bt_edge(const struct bt_node *b, int d)
{
    if (!b)
        return NULL;
    while (!b->leaf)
        b = b->kid[d ? b->n : 0];
    return b->obj[d ? b->n - 1 : 0];
}

/* The first object of the partitions from i on (d = 0), or the last of
 * those up to i (d = 1); i may be one past either end. */
static struct ets_obj *parts_edge(const struct ets_table *t, int i, int d)
{
    for (int n = (int)part_count(t); i >= 0 && i < n; i += d ? -1 : 1)
        if (part_tree(t, (unsigned)i))
            return bt_edge(part_tree(t, (unsigned)i), d);
    return NULL;
}

/* The table's first object (d = 0) or its last (d = 1). */
static struct ets_obj *tree_edge(const struct ets_table *t, int d)
{
    return parts_edge(t, d ? (int)part_count(t) - 1 : 0, d);
}

/* The first object whose key orders after key (d = 1) or the last that
 * orders before it (d = 0): in key's partition, else the nearest of the
 * next ones that way. A child's keys lie between its neighbours in the
 * parent, so the deepest candidate is the nearest. */
static struct ets_obj *tree_beyond(const struct ets_table *t, term key, int d)
{
    struct ets_obj *best = NULL;
    unsigned part = part_of(t, key);
    for (const struct bt_node *b = part_tree(t, part); b;) {
        bool found;
        unsigned i = bt_lower(b, key, &found);
        unsigned kid = i;
        if (d) {
            if (found)
                kid = ++i;
            if (i < b->n)
                best = b->obj[i];
        } else if (i > 0) {
            best = b->obj[i - 1];
        }
        b = b->leaf ? NULL : b->kid[kid];
    }
    return best ? best : parts_edge(t, d ? (int)part + 1 : (int)part - 1, !d);
}

/* The object of rank i in key order (NULL past the end), visiting whole
 * leaves at once. */
static struct ets_obj *bt_nth(const struct bt_node *b, size_t *i)
{
    if (b->leaf) {
        if (*i < b->n)
            return b->obj[*i];
        *i -= b->n;
        return NULL;
    }
    for (unsigned k = 0; k <= b->n; k++) {
        struct ets_obj *o = bt_nth(b->kid[k], i);
        if (o)
            return o;
        if (k < b->n && (*i)-- == 0)
            return b->obj[k];
    }
    return NULL;
}

static void bt_put_at(struct bt_node *b, unsigned i, term key, struct ets_obj *o, struct bt_node *right)
{
    memmove(&b->key[i + 1], &b->key[i], (b->n - i) * sizeof b->key[0]);
    memmove(&b->obj[i + 1], &b->obj[i], (b->n - i) * sizeof b->obj[0]);
    b->key[i] = key;
    b->obj[i] = o;
    if (!b->leaf) {
        memmove(&b->kid[i + 2], &b->kid[i + 1], (b->n - i) * sizeof b->kid[0]);
        b->kid[i + 1] = right;
    }
    b->n++;
}

static void bt_take_at(struct bt_node *b, unsigned i)
{
    memmove(&b->key[i], &b->key[i + 1], (b->n - i - 1) * sizeof b->key[0]);
    memmove(&b->obj[i], &b->obj[i + 1], (b->n - i - 1) * sizeof b->obj[0]);
    b->n--;
}

/* Links o into the tree at *root_at where p (a search for its key, which
 * no object has) ended. The nodes a split needs are made first: false when
 * the host refused them, the tree unchanged. */
static bool bt_insert(struct ets_table *t, struct bt_node **root_at, struct bt_path *p, struct ets_obj *o)
{
    term key = key_of(t, o);
    if (!*root_at) {
        struct bt_node *b = bt_node_new(t, true);
        if (!b)
            return false;
        bt_put_at(b, 0, key, o, NULL);
        *root_at = b;
        return true;
    }
    /* Full nodes from the leaf up split; a full root adds a level. */
    struct bt_node *spare[BT_DEPTH + 1];
    int level = p->depth, needed = 0;
    while (level >= 0 && p->node[level]->n == BT_MAX)
        level--, needed++;
    needed += level < 0;
    for (int k = 0; k < needed; k++) {
        int at = p->depth - k;
        if (!(spare[k] = bt_node_new(t, at >= 0 && p->node[at]->leaf))) {
            while (k-- > 0)
                bt_node_free(t, spare[k]);
            return false;
        }
    }
    struct bt_node *right = NULL;
    int used = 0;
    for (level = p->depth;; level--) {
        struct bt_node *b = p->node[level];
        unsigned i = p->at[level];
        if (b->n < BT_MAX) {
            bt_put_at(b, i, key, o, right);
            return true;
        }
        /* BT_MAX + 1 entries: the lower half stays, the middle one goes
         * up, the upper half moves to a new right sibling. */
        term keys[BT_MAX + 1];
        struct ets_obj *objs[BT_MAX + 1];
        struct bt_node *kids[BT_MAX + 2];
        memcpy(keys, b->key, i * sizeof keys[0]);
        memcpy(objs, b->obj, i * sizeof objs[0]);
        keys[i] = key;
        objs[i] = o;
        memcpy(&keys[i + 1], &b->key[i], (BT_MAX - i) * sizeof keys[0]);
        memcpy(&objs[i + 1], &b->obj[i], (BT_MAX - i) * sizeof objs[0]);
        if (!b->leaf) {
            memcpy(kids, b->kid, (i + 1) * sizeof kids[0]);
            kids[i + 1] = right;
            memcpy(&kids[i + 2], &b->kid[i + 1], (BT_MAX - i) * sizeof kids[0]);
        }
        const unsigned mid = (BT_MAX + 1) / 2, upper = BT_MAX - mid;
        struct bt_node *s = spare[used++];
        memcpy(b->key, keys, mid * sizeof keys[0]);
        memcpy(b->obj, objs, mid * sizeof objs[0]);
        memcpy(s->key, &keys[mid + 1], upper * sizeof keys[0]);
        memcpy(s->obj, &objs[mid + 1], upper * sizeof objs[0]);
        if (!b->leaf) {
            memcpy(b->kid, kids, (mid + 1) * sizeof kids[0]);
            memcpy(s->kid, &kids[mid + 1], (upper + 1) * sizeof kids[0]);
        }
        b->n = (unsigned short)mid;
        s->n = (unsigned short)upper;
        key = keys[mid];
        o = objs[mid];
        right = s;
        if (level == 0) {
            struct bt_node *root = spare[used++];
            root->key[0] = key;
            root->obj[0] = o;
            root->kid[0] = b;
            root->kid[1] = s;
            root->n = 1;
            *root_at = root;
            return true;
        }
    }
}

/* bt_insert into the tree p searched. */
static bool tree_insert(struct ets_table *t, struct bt_path *p, struct ets_obj *o)
{
    return bt_insert(t, part_root(t, p->part), p, o);
}

/* Links o in after every object of the tree at *root (o's key orders
 * after theirs): a tree built so from sorted objects has its nodes half
 * full, as BT_MIN allows. */
static bool bt_append(struct ets_table *t, struct bt_node **root, struct ets_obj *o)
{
    struct bt_path p = {.depth = -1};
    for (struct bt_node *b = *root; b; b = b->leaf ? NULL : b->kid[b->n]) {
        p.node[++p.depth] = b;
        p.at[p.depth] = b->n;
    }
    return bt_insert(t, root, &p, o);
}

/* After p's last node lost an object: nodes below BT_MIN borrow from a
 * sibling or merge with one, from there up; an empty root goes. */
static void tree_refill(struct ets_table *t, struct bt_path *p)
{
    for (int level = p->depth; level > 0 && p->node[level]->n < BT_MIN; level--) {
        struct bt_node *b = p->node[level], *parent = p->node[level - 1];
        unsigned j = p->at[level - 1]; /* b is parent's child j */
        struct bt_node *left = j > 0 ? parent->kid[j - 1] : NULL;
        struct bt_node *right = j < parent->n ? parent->kid[j + 1] : NULL;
        if (left && left->n > BT_MIN) {
            /* The separator comes down in front, left's last goes up. */
            memmove(&b->key[1], &b->key[0], b->n * sizeof b->key[0]);
            memmove(&b->obj[1], &b->obj[0], b->n * sizeof b->obj[0]);
            if (!b->leaf) {
                memmove(&b->kid[1], &b->kid[0], (b->n + 1) * sizeof b->kid[0]);
                b->kid[0] = left->kid[left->n];
            }
            b->key[0] = parent->key[j - 1];
            b->obj[0] = parent->obj[j - 1];
            b->n++;
            parent->key[j - 1] = left->key[left->n - 1];
            parent->obj[j - 1] = left->obj[left->n - 1];
            left->n--;
            return;
        }
        if (right && right->n > BT_MIN) {
            b->key[b->n] = parent->key[j];
            b->obj[b->n] = parent->obj[j];
            if (!b->leaf) {
                b->kid[b->n + 1] = right->kid[0];
                memmove(&right->kid[0], &right->kid[1], right->n * sizeof right->kid[0]);
            }
            b->n++;
            parent->key[j] = right->key[0];
            parent->obj[j] = right->obj[0];
            bt_take_at(right, 0);
            return;
        }
        /* Merge b with a sibling: left + separator + right into left. */
        unsigned sep = left ? j - 1 : j;
        struct bt_node *l = left ? left : b, *r = left ? b : right;
        l->key[l->n] = parent->key[sep];
        l->obj[l->n] = parent->obj[sep];
        memcpy(&l->key[l->n + 1], r->key, r->n * sizeof r->key[0]);
        memcpy(&l->obj[l->n + 1], r->obj, r->n * sizeof r->obj[0]);
        if (!l->leaf)
            memcpy(&l->kid[l->n + 1], r->kid, (r->n + 1) * sizeof r->kid[0]);
        l->n = (unsigned short)(l->n + 1 + r->n);
        bt_take_at(parent, sep);
        memmove(&parent->kid[sep + 1], &parent->kid[sep + 2], (parent->n - sep) * sizeof parent->kid[0]);
        bt_node_free(t, r);
    }
    struct bt_node **root_at = part_root(t, p->part), *root = *root_at;
    if (root->n == 0) {
        *root_at = root->leaf ? NULL : root->kid[0];
        bt_node_free(t, root);
    }
}

/* Unlinks the object p found (at its last level). An inner node's object
 * gives its place to its predecessor, the last of the leaf below. */
static void tree_remove(struct ets_table *t, struct bt_path *p)
{
    struct bt_node *b = p->node[p->depth];
    unsigned i = p->at[p->depth];
    if (b->leaf) {
        bt_take_at(b, i);
    } else {
        struct bt_node *leaf = b->kid[i];
        while (!leaf->leaf) {
            p->node[++p->depth] = leaf;
            p->at[p->depth] = leaf->n;
            leaf = leaf->kid[leaf->n];
        }
        p->node[++p->depth] = leaf;
        p->at[p->depth] = leaf->n - 1;
        b->key[i] = leaf->key[leaf->n - 1];
        b->obj[i] = leaf->obj[leaf->n - 1];
        leaf->n--;
    }
    tree_refill(t, p);
}

/* Where o is in the tree (found by its key: no other object has it). */
static void tree_locate(const struct ets_table *t, const struct ets_obj *o, struct bt_path *p)
{
    (void)bt_search(t, key_of(t, o), p);
}

/* o takes the place of the object p found (same key, though 1 may
 * become 1.0), which is freed. */
static void tree_replace_at(struct ets_table *t, const struct bt_path *p, struct ets_obj *o)
{
    struct bt_node *b = p->node[p->depth];
    unsigned i = p->at[p->depth];
    struct ets_obj *old = b->obj[i];
    b->obj[i] = o;
    b->key[i] = key_of(t, o);
    t->object_words += o->words;
    t->object_words -= old->words;
    obj_free(old);
}

/* ---- set, bag, duplicate_bag: chained hashing ----
 *
 * Bucket i of 2^bits holds the objects whose hash has i as its top bits,
 * its chain sorted by hash; objects of one hash stay in insertion order
 * (those of one key together). The table's order is so the order of the
 * hashes, whatever the bucket count: doubling splits each chain in two
 * and halving joins two, both in place, and a traversal (first/next) is
 * never thrown back by a resize. */

#define MIN_BITS 3u

/* The fewest buckets t keeps: a striped table's chains must each be one
 * stripe's (see "stripes"). */
static unsigned min_bits(const struct ets_table *t) { return is_striped(t) ? STRIPE_BITS : MIN_BITS; }

static size_t bucket_count(const struct ets_table *t) { return t->buckets ? (size_t)1 << t->bits : 0; }
static size_t bucket_of(const struct ets_table *t, uint64_t h) { return t->bits ? (size_t)(h >> (64 - t->bits)) : 0; }

/* Whether a stored key is exactly key: an immediate key is exactly equal
 * to the same word alone (bignums are normalised, floats boxed), so the
 * term comparison is for boxed keys only. */
static inline bool stored_key_is(term stored, term key)
{
    return stored == key || (!is_immed(key) && term_eq_exact(stored, key));
}

static bool same_key(const struct ets_table *t, const struct ets_obj *o, uint64_t h, term key)
{
    return obj_hash(o) == h && stored_key_is(key_of(t, o), key);
}

ACCESS_PATH struct ets_obj *hash_find(const struct ets_table *t, term key, uint64_t h)
{
    if (!t->buckets)
        return NULL;
    struct ets_obj *o = t->buckets[bucket_of(t, h)];
    /* An object's header and its tuple's first words often straddle two
     * cache lines: both misses at once, not one after the other. */
    if (o)
        __builtin_prefetch(&o->data[2]);
    while (o && obj_hash(o) < h)
        o = o->next;
    for (; o && obj_hash(o) == h; o = o->next)
        if (stored_key_is(key_of(t, o), key))
            return o;
    return NULL;
}

/* The first object of the first non-empty bucket in [b, end). */
static struct ets_obj *hash_from_until(const struct ets_table *t, size_t b, size_t end)
{
    for (; b < end; b++)
        if (t->buckets[b])
            return t->buckets[b];
    return NULL;
}

/* The same from b to the last bucket. */
static struct ets_obj *hash_from(const struct ets_table *t, size_t b) { return hash_from_until(t, b, bucket_count(t)); }

/* The last of key's objects (they are adjacent); NULL when none. */
static struct ets_obj *hash_key_last(const struct ets_table *t, term key)
{
    uint64_t h = key_hash(key);
    struct ets_obj *o = hash_find(t, key, h);
    while (o && o->next && same_key(t, o->next, h, key))
        o = o->next;
    return o;
}

static struct ets_obj *hash_next(const struct ets_table *t, const struct ets_obj *o)
{
    return o->next ? o->next : hash_from(t, bucket_of(t, obj_hash(o)) + 1);
}

/* A bucket array of count empty chains. One of 2 MB or more (a table of
 * over 262,144 objects) is on transparent huge pages where the kernel has
 * them on request: a lookup in a large table misses the cache on its
 * bucket and on its object, and on 4 KB pages often the TLB as well for
 * each (400,000 random lookups: median 106 against 116 ms on 10
 * interleaved runs). */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)
static struct ets_obj **buckets_new(size_t count)
{
    size_t bytes = count * sizeof(struct ets_obj *);
    if (bytes < HUGE_PAGE_BYTES)
        return calloc(count, sizeof(struct ets_obj *));
    struct ets_obj **b = aligned_alloc(HUGE_PAGE_BYTES, bytes);
    if (b) {
        (void)madvise(b, bytes, MADV_HUGEPAGE); /* advice: refused, the pages are small */
        memset(b, 0, bytes);
    }
    return b;
}

/* Resizes to 2^bits buckets; false when the host refused (the table
 * stays as it was, still correct, only slower). */
static bool hash_resize(struct ets_table *t, unsigned bits)
{
    struct ets_obj **nb = buckets_new((size_t)1 << bits);
    if (!nb)
        return false;
    size_t old = bucket_count(t);
    struct ets_obj **tail = NULL;
    size_t tail_bucket = SIZE_MAX;
    t->bits = bits;
    /* The old chains, in bucket order, are one list sorted by hash:
     * appending each object to its new bucket keeps every chain sorted. */
    for (size_t b = 0; b < old; b++) {
        struct ets_obj *o = t->buckets[b];
        while (o) {
            struct ets_obj *next = o->next;
            size_t i = bucket_of(t, obj_hash(o));
            if (i != tail_bucket) { /* a new bucket starts: never one seen before */
                tail = &nb[i];
                tail_bucket = i;
            }
            *tail = o;
            o->next = NULL;
            tail = &o->next;
            o = next;
        }
    }
    free(t->buckets);
    t->buckets = nb;
    return true;
}

/* Resizes to 2^bits buckets now if no other caller can be in the chains
 * (t's lock held exclusively, or t without stripes), else asks for a
 * resize as the call ends (see "stripes"). */
static void resize_to(struct ets_table *t, unsigned bits)
{
    if (!is_striped(t) || t->exclusive)
        (void)hash_resize(t, bits);
    else
        atomic_store_explicit(&t->resize_wanted, true, memory_order_relaxed);
}

/* The bucket count for t's objects, at once: doubled past one object a
 * bucket, halved below one for eight, as inserts and deletes do it a step
 * at a time. */
static void fit_buckets(struct ets_table *t)
{
    if (!t->buckets)
        return;
    unsigned bits = t->bits;
    size_t n = t->n;
    while (n > (size_t)1 << bits && bits < 8 * sizeof(size_t) - 2)
        bits++;
    while (bits > min_bits(t) && n < ((size_t)1 << bits) / 8)
        bits--;
    if (bits != t->bits)
        (void)hash_resize(t, bits);
}

/* Links o in after every object whose hash is not greater, or after
 * `after` when given (the last object of o's key in a bag). */
static bool hash_insert(struct ets_table *t, struct ets_obj *o, struct ets_obj *after)
{
    if (!t->buckets && !hash_resize(t, min_bits(t)))
        return false;
    if (after) {
        o->next = after->next;
        after->next = o;
        return true;
    }
    struct ets_obj **at = &t->buckets[bucket_of(t, obj_hash(o))];
    while (*at && obj_hash(*at) <= obj_hash(o))
        at = &(*at)->next;
    o->next = *at;
    *at = o;
    return true;
}

/* The slot that points at o (o is in the table). */
static struct ets_obj **hash_slot(struct ets_table *t, const struct ets_obj *o)
{
    struct ets_obj **at = &t->buckets[bucket_of(t, obj_hash(o))];
    while (*at != o)
        at = &(*at)->next;
    return at;
}

/* ---- common ---- */

/* A table's objects out of it: freed by tear_down, in portions or not. */
struct ets_rubble {
    struct bt_node *trees[STRIPES]; /* an ordered_set's (a tree a partition), torn down from the first object on */
    struct ets_obj **buckets;       /* the other types' chains */
    size_t nbuckets, bucket;        /* bucket: the next one to empty */
};

/* Frees a tree's objects and nodes for up to `budget` steps (a step frees
 * an object or goes a level down), leftmost first, *freed objects; the
 * steps taken. Each round goes down to the first leaf and empties it; an
 * empty leaf goes, and with it its parent's first object and child (or
 * the parent itself when that was its only child), so no stack is kept
 * between calls. */
static size_t tree_tear_down(struct bt_node **root, size_t budget, size_t *freed)
{
    size_t steps = 0;
    while (*root && steps < budget) {
        struct bt_node *path[BT_DEPTH];
        int d = 0;
        path[0] = *root;
        for (; !path[d]->leaf; d++, steps++)
            path[d + 1] = path[d]->kid[0];
        struct bt_node *leaf = path[d];
        for (; leaf->n > 0 && steps < budget; steps++, ++*freed)
            obj_free(leaf->obj[--leaf->n]);
        if (leaf->n > 0)
            break;
        for (;;) {
            bt_node_free(NULL, path[d]);
            if (d == 0) {
                *root = NULL;
                break;
            }
            struct bt_node *parent = path[--d];
            if (parent->n == 0)
                continue;
            obj_free(parent->obj[0]);
            ++*freed;
            steps++;
            bt_take_at(parent, 0);
            memmove(&parent->kid[0], &parent->kid[1], (parent->n + 1) * sizeof parent->kid[0]);
            break;
        }
    }
    return steps;
}

/* Frees rb's objects for up to `budget` steps (see tree_tear_down; a
 * chain's object is a step), *freed of them; true once none is left. */
static bool tear_down(struct ets_rubble *rb, size_t budget, size_t *freed)
{
    *freed = 0;
    size_t steps = 0;
    for (unsigned i = 0; i < STRIPES && steps < budget; i++)
        steps += tree_tear_down(&rb->trees[i], budget - steps, freed);
    for (; rb->bucket < rb->nbuckets && steps < budget; steps++) {
        struct ets_obj *o = rb->buckets[rb->bucket];
        if (!o) {
            rb->bucket++;
            continue;
        }
        rb->buckets[rb->bucket] = o->next;
        obj_free(o);
        ++*freed;
    }
    for (unsigned i = 0; i < STRIPES; i++)
        if (rb->trees[i])
            return false;
    return rb->bucket == rb->nbuckets;
}

static void unpartition(struct ets_table *t);

/* Moves t's objects into rb, leaving t empty (and a partitioned
 * ordered_set one partition again). */
static void take_contents(struct ets_table *t, struct ets_rubble *rb)
{
    *rb = (struct ets_rubble){{NULL}, t->buckets, bucket_count(t), 0};
    for (unsigned i = 0, n = part_count(t); i < n; i++) {
        rb->trees[i] = part_tree(t, i);
        *part_root(t, i) = NULL;
    }
    unpartition(t);
    t->tree_bytes = 0;
    t->buckets = NULL;
    t->bits = 0;
    t->n = 0;
    t->object_words = 0;
}

/* One partition again (its tree taken or empty): the bounds go. */
static void unpartition(struct ets_table *t)
{
    if (!is_partitioned(t))
        return;
    for (unsigned i = 0, n = part_count(t); i + 1 < n; i++) {
        obj_free(t->bound_obj[i]);
        t->bound_obj[i] = NULL;
        t->bound[i] = THE_NON_VALUE;
    }
    for (unsigned i = 0; i < STRIPES; i++)
        t->stripes[i].contention = 0;
    atomic_store_explicit(&t->parts, 1, memory_order_relaxed);
    atomic_store_explicit(&t->split_wanted, false, memory_order_relaxed);
}

bool ets_split_locked(struct ets_table *t, unsigned i)
{
    unsigned n = part_count(t);
    if (!is_partitioned(t) || n >= STRIPES || i >= n)
        return false;
    struct table_stripe *s = &t->stripes[i];
    s->contention = 0; /* split or not, its writers count afresh */
    size_t count = bt_count(s->root), at = 0;
    if (count < 2)
        return false;
    struct ets_obj **objs = malloc(count * sizeof *objs);
    if (!objs)
        return false;
    bt_collect(s->root, objs, &at);
    /* The middle key, copied as a {Key} tuple: the new bound. */
    size_t mid = count / 2;
    term wrap[2] = {make_header(SUBTAG_TUPLE, 1), key_of(t, objs[mid])};
    struct ets_obj *bound = obj_new(make_boxed(wrap));
    /* Both halves built before the old tree goes, so that no memory
     * refused leaves the table changed. */
    struct bt_node *lower = NULL, *upper = NULL;
    bool ok = bound != NULL;
    for (size_t k = 0; ok && k < count; k++)
        ok = bt_append(t, k < mid ? &lower : &upper, objs[k]);
    free(objs);
    if (!ok) {
        bt_free_nodes(t, lower);
        bt_free_nodes(t, upper);
        obj_free(bound);
        return false;
    }
    bt_free_nodes(t, s->root);
    for (unsigned k = n; k > i + 1; k--) {
        t->stripes[k].root = t->stripes[k - 1].root;
        t->stripes[k].contention = t->stripes[k - 1].contention;
    }
    for (unsigned k = n - 1; k > i; k--) {
        t->bound[k] = t->bound[k - 1];
        t->bound_obj[k] = t->bound_obj[k - 1];
        atomic_store_explicit(&t->bound_prefix[k], atomic_load(&t->bound_prefix[k - 1]), memory_order_relaxed);
    }
    s->root = lower;
    t->stripes[i + 1].root = upper;
    t->stripes[i + 1].contention = 0;
    t->bound_obj[i] = bound;
    t->bound[i] = tuple_element(obj_tuple(bound), 1);
    atomic_store_explicit(&t->bound_prefix[i], term_order_prefix(t->bound[i]), memory_order_relaxed);
    atomic_store_explicit(&t->parts, n + 1, memory_order_relaxed);
    return true;
}

unsigned ets_partitions_locked(const struct ets_table *t) { return part_count(t); }

/* After a partition's writer asked for a split: the most contended
 * partition past SPLIT_AT is split now, under the lock held exclusively,
 * if t is still a live partitioned table. */
static void split_asked(struct ets_table *t)
{
    table_wrlock(t);
    if (!t->dead && is_partitioned(t)) {
        unsigned hot = 0;
        for (unsigned i = 1, n = part_count(t); i < n; i++)
            hot = t->stripes[i].contention > t->stripes[hot].contention ? i : hot;
        if (t->stripes[hot].contention > SPLIT_AT)
            (void)ets_split_locked(t, hot);
    }
    atomic_store_explicit(&t->split_wanted, false, memory_order_relaxed);
    table_unlock(t);
}

static void table_clear(struct ets_table *t)
{
    struct ets_rubble rb;
    size_t freed;
    take_contents(t, &rb);
    (void)tear_down(&rb, SIZE_MAX, &freed);
    free(rb.buckets);
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
    /* The table's own record, its buckets and each object. */
    d->memory_words =
        (sizeof *t + bucket_count(t) * sizeof t->buckets[0] + t->tree_bytes + t->n * sizeof(struct ets_obj)) /
            sizeof(term) +
        t->object_words;
}

enum ets_type ets_type_locked(const struct ets_table *t) { return t->options.type; }
uint64_t ets_id_locked(const struct ets_table *t) { return t->id; }
unsigned ets_keypos_locked(const struct ets_table *t) { return t->options.keypos; }
size_t ets_count_locked(const struct ets_table *t) { return t->n; }
term ets_obj_term(const struct ets_obj *o) { return obj_tuple(o); }

term ets_obj_cons(const struct ets_obj *o, heap_t *h)
{
    if (!obj_flat(o)) {
        term copy = copy_to_heap(h, obj_tuple(o));
        return is_value(copy) ? heap_cons(h, copy, NIL) : THE_NON_VALUE;
    }
    /* Only immediates inside: the words as they are, after the cell, in
     * one allocation; a few words, so copied here rather than by memcpy. */
    term *hp = heap_alloc(h, 2 + o->words);
    if (!hp)
        return THE_NON_VALUE;
    for (uint32_t i = 0; i < o->words; i++)
        hp[2 + i] = o->data[i];
    hp[0] = make_boxed(hp + 2);
    hp[1] = NIL;
    return make_list(hp);
}
term ets_obj_key_locked(const struct ets_table *t, const struct ets_obj *o) { return key_of(t, o); }

/* The links and hash, then the tuple's first words. */
static void prefetch_obj(const struct ets_obj *o)
{
    __builtin_prefetch(o);
    __builtin_prefetch((const char *)o + 64);
}

void ets_walk_prefetch_locked(const struct ets_table *t, const struct ets_obj *o)
{
    if (is_tree(t))
        return;
    /* A walk goes bucket by bucket, a bucket holding an object or none:
     * the first objects of the buckets 4 to 7 on (the bucket array's
     * sequential words) come in while the walk visits the ones before
     * (select_count of 300,000 objects 53 -> 28 ms; one bucket 8 on: 40). */
    size_t b = bucket_of(t, obj_hash(o)), nb = bucket_count(t);
    for (size_t i = b + WALK_PREFETCH_AHEAD; i < nb && i < b + 2 * WALK_PREFETCH_AHEAD; i++)
        if (t->buckets[i])
            prefetch_obj(t->buckets[i]);
}

struct ets_obj *ets_lookup_locked(const struct ets_table *t, term key)
{
    return is_tree(t) ? tree_find(t, key) : hash_find(t, key, key_hash(key));
}

/* The first object of the key ks gives (not an object's) by the hash it
 * has taken. */
ACCESS_PATH struct ets_obj *find_scoped(const struct ets_table *t, struct key_scope *ks)
{
    return is_tree(t) ? tree_find(t, ks->key) : hash_find(t, ks->key, scope_hash(ks, t->options.keypos));
}

struct ets_obj *ets_same_key_next_locked(const struct ets_table *t, const struct ets_obj *o)
{
    if (is_tree(t) || t->options.type == ETS_SET)
        return NULL;
    struct ets_obj *n = o->next;
    return n && same_key(t, n, obj_hash(o), key_of(t, o)) ? n : NULL;
}

struct ets_obj *ets_first_locked(const struct ets_table *t)
{
    return is_tree(t) ? tree_edge(t, 0) : t->buckets ? hash_from(t, 0) : NULL;
}

struct ets_obj *ets_last_locked(const struct ets_table *t)
{
    if (is_tree(t))
        return tree_edge(t, 1);
    /* Only first/1's answer is asked of the other types (last/1 is first/1
     * there); walk to the end all the same, for completeness. */
    struct ets_obj *last = NULL;
    for (struct ets_obj *o = ets_first_locked(t); o; o = hash_next(t, o))
        last = o;
    return last;
}

struct ets_obj *ets_next_locked(const struct ets_table *t, const struct ets_obj *o)
{
    return is_tree(t) ? tree_beyond(t, key_of(t, o), 1) : hash_next(t, o);
}

struct ets_obj *ets_prev_locked(const struct ets_table *t, const struct ets_obj *o)
{
    if (is_tree(t))
        return tree_beyond(t, key_of(t, o), 0);
    struct ets_obj *prev = NULL;
    for (struct ets_obj *p = ets_first_locked(t); p && p != o; p = hash_next(t, p))
        prev = p;
    return prev;
}

bool ets_key_after_locked(const struct ets_table *t, term key, struct ets_obj **out)
{
    if (is_tree(t)) {
        *out = tree_beyond(t, key, 1);
        return true;
    }
    struct ets_obj *o = hash_key_last(t, key);
    if (!o)
        return false;
    *out = hash_next(t, o);
    return true;
}

struct ets_obj *ets_key_before_locked(const struct ets_table *t, term key) { return tree_beyond(t, key, 0); }

/* A position is the hash's top bits, few enough for a small integer in a
 * continuation: the order of positions is the order of the hashes. */
#define POSITION_SHIFT 5u

uint64_t ets_position_locked(const struct ets_table *t, const struct ets_obj *o)
{
    (void)t;
    return obj_hash(o) >> POSITION_SHIFT;
}

struct ets_obj *ets_after_position_locked(const struct ets_table *t, uint64_t position)
{
    if (!t->buckets || position > UINT64_MAX >> POSITION_SHIFT)
        return NULL;
    uint64_t h = position << POSITION_SHIFT | ((1u << POSITION_SHIFT) - 1); /* the position's last hash */
    size_t b = bucket_of(t, h);
    struct ets_obj *o = t->buckets[b];
    while (o && obj_hash(o) <= h)
        o = o->next;
    return o ? o : hash_from(t, b + 1);
}

/* A hash table without buckets yet counts the buckets its first insert
 * makes, so that slot 0 of an empty table is [] as in OTP. */
size_t ets_slot_count_locked(const struct ets_table *t)
{
    return is_tree(t) ? t->n : t->buckets ? bucket_count(t) : (size_t)1 << min_bits(t);
}

struct ets_obj *ets_slot_first_locked(const struct ets_table *t, size_t slot)
{
    if (!is_tree(t))
        return t->buckets && slot < bucket_count(t) ? t->buckets[slot] : NULL;
    for (unsigned i = 0, n = part_count(t); i < n; i++) {
        struct ets_obj *o = part_tree(t, i) ? bt_nth(part_tree(t, i), &slot) : NULL;
        if (o)
            return o;
    }
    return NULL;
}

struct ets_obj *ets_slot_next_locked(const struct ets_table *t, const struct ets_obj *o)
{
    return is_tree(t) ? NULL : o->next;
}

bool ets_valid_object_locked(const struct ets_table *t, term object) { return has_keypos(object, t->options.keypos); }

/* Puts o in old's place. */
static void replace_with(struct ets_table *t, struct ets_obj *old, struct ets_obj *o)
{
    if (is_tree(t)) {
        struct bt_path p;
        tree_locate(t, old, &p);
        tree_replace_at(t, &p, o);
        return;
    }
    o->hash_high = old->hash_high;
    o->next = old->next;
    *hash_slot(t, old) = o;
    t->object_words += o->words;
    t->object_words -= old->words;
    obj_free(old);
}

bool ets_replace_locked(struct ets_table *t, struct ets_obj *old, term object)
{
    struct ets_obj *o = obj_new(object);
    if (!o)
        return false;
    replace_with(t, old, o);
    return true;
}

void ets_set_immediate_locked(struct ets_table *t, struct ets_obj *o, unsigned pos, term value)
{
    (void)t;
    boxed_ptr(obj_tuple(o))[pos] = value;
}

/* Puts object in t: its copy `made` when not NULL (taken over: linked in
 * or freed), else a copy made here when it goes in. */
static bool put(struct ets_table *t, term object, struct ets_obj *made)
{
    term key = tuple_element(object, t->options.keypos);
    struct ets_obj *o = made;
    if (is_tree(t)) {
        struct bt_path p;
        bool found = bt_search(t, key, &p);
        if (!o && !(o = obj_new(object)))
            return false;
        if (found) {
            tree_replace_at(t, &p, o);
            return true;
        }
        if (!tree_insert(t, &p, o)) {
            obj_free(o);
            return false;
        }
        t->n++;
        t->object_words += o->words;
        return true;
    }
    uint64_t h = key_hash(key);
    struct ets_obj *found = hash_find(t, key, h), *after = NULL;
    if (found && t->options.type == ETS_SET) {
        if (!o && !(o = obj_new(object)))
            return false;
        replace_with(t, found, o);
        return true;
    }
    /* A bag's new object goes after its key's last one; a bag skips an
     * object it holds already. */
    for (struct ets_obj *k = found; k && same_key(t, k, h, key); k = k->next) {
        if (t->options.type == ETS_BAG && term_eq_exact(obj_tuple(k), object)) {
            obj_free(made);
            return true;
        }
        after = k;
    }
    if (!o && !(o = obj_new(object)))
        return false;
    obj_set_hash(o, h);
    if (!hash_insert(t, o, after)) {
        obj_free(o);
        return false;
    }
    t->n++;
    t->object_words += o->words;
    /* Doubling at one object per bucket on average; a refused doubling
     * leaves longer chains, nothing worse. */
    if (t->n > bucket_count(t) && t->bits < 8 * sizeof(size_t) - 2)
        resize_to(t, t->bits + 1);
    return true;
}

bool ets_put_locked(struct ets_table *t, term object) { return put(t, object, NULL); }

struct ets_obj *ets_obj_make(term object) { return obj_new(object); }

bool ets_put_made_locked(struct ets_table *t, struct ets_obj *made) { return put(t, obj_tuple(made), made); }

void ets_obj_drop(struct ets_obj *made) { obj_free(made); }

/* ---- batches: a long insert's objects, made off the table ----
 *
 * insert/2 and insert_new/2 of a list too long for the caller's slice copy
 * its objects into a batch first, in portions and without the table's
 * lock, then commit it: under the write lock a portion of the objects goes
 * in, and the batch stays the table's pending one until the last does.
 * Every other taker of the lock finishes a pending batch before it does
 * anything (table_wrlock, lock_for), so the objects of one call appear
 * together, as OTP's helping does for its yielding insert; the table's
 * deletion only lets it go (delete_locked), as would-be objects of a gone
 * table. The caller's batch outlives its commit (helped or not) until
 * ets_batch_free, which finishes a commit still pending, as the caller's
 * end must: once begun, an insert happens. */

struct ets_batch {
    struct ets_obj *first, *last; /* chained by next, in the list's order */
    size_t count;
    unsigned keypos;         /* the objects were checked against it */
    struct ets_table *table; /* committing: the table (one reference held) */
};

struct ets_batch *ets_batch_new(unsigned keypos)
{
    struct ets_batch *b = calloc(1, sizeof *b);
    if (b)
        b->keypos = keypos;
    return b;
}

size_t ets_batch_count(const struct ets_batch *b) { return b->count; }

bool ets_batch_add(struct ets_batch *b, term object)
{
    struct ets_obj *o = obj_new(object);
    if (!o)
        return false;
    o->next = NULL;
    if (b->last)
        b->last->next = o;
    else
        b->first = o;
    b->last = o;
    b->count++;
    return true;
}

/* Puts up to `budget` of b's objects in t (write-locked); the last one
 * ends the commit. *done gets the objects put. False when memory ran out
 * (the object that found none is dropped). */
static bool batch_put(struct ets_table *t, struct ets_batch *b, size_t budget, size_t *done)
{
    bool ok = true;
    size_t n = 0;
    for (; n < budget && b->first; n++) {
        struct ets_obj *o = b->first;
        b->first = o->next;
        b->count--;
        ok = put(t, obj_tuple(o), o) && ok;
    }
    if (!b->first) {
        b->last = NULL;
        t->pending = NULL;
    }
    *done = n;
    return ok;
}

static void settle_locked(struct ets_table *t)
{
    size_t done;
    if (t->pending)
        (void)batch_put(t, t->pending, SIZE_MAX, &done);
}

/* Whether a key of b's objects is in t already (insert_new/2). */
static bool batch_meets(const struct ets_table *t, const struct ets_batch *b)
{
    for (const struct ets_obj *o = b->first; o; o = o->next)
        if (ets_lookup_locked(t, tuple_element(obj_tuple(o), t->options.keypos)))
            return true;
    return false;
}

static void batch_drop(struct ets_batch *b)
{
    while (b->first) {
        struct ets_obj *o = b->first;
        b->first = o->next;
        obj_free(o);
    }
    b->last = NULL;
    b->count = 0;
}

/* The commit of b ended (by its caller or a helper): the table's
 * reference goes. */
static void batch_detach(struct ets_batch *b)
{
    struct ets_table *t = b->table;
    b->table = NULL;
    table_release(t);
}

struct commit {
    struct ets_batch *b;
    bool insert_new;
    size_t budget, done;
    bool inserted, met, finished;
};

static enum ets_status commit(struct ets_table *t, void *arg)
{
    struct commit *c = arg;
    struct ets_batch *b = c->b;
    c->met = c->insert_new && batch_meets(t, b);
    if (c->met)
        return ETS_OK;
    /* A table of that name made anew meanwhile may have another keypos. */
    if (t->options.keypos != b->keypos)
        for (const struct ets_obj *o = b->first; o; o = o->next)
            if (!ets_valid_object_locked(t, obj_tuple(o)))
                return ETS_BADARG;
    if (!b->first)
        return ETS_OK;
    c->inserted = true;
    b->table = t;
    t->pending = b;
    table_retain(t);
    bool ok = batch_put(t, b, c->budget, &c->done);
    /* Read under the lock: a helper may finish the batch once it is let go. */
    c->finished = !b->first;
    return ok ? ETS_OK : ETS_NOMEM;
}

enum ets_status ets_batch_commit(struct ets_registry *r, term tab, term caller, struct ets_batch *b, bool insert_new,
                                 size_t budget, size_t *done, bool *inserted)
{
    struct commit c = {b, insert_new, budget, 0, false, false, false};
    enum ets_status st = ets_access(r, tab, caller, ETS_WRITE, commit, &c);
    if (c.finished)
        batch_detach(b);
    if (c.met)
        batch_drop(b);
    *done = c.done;
    *inserted = c.inserted;
    return st;
}

bool ets_batch_go_on(struct ets_batch *b, size_t budget, size_t *done, bool *out_of_memory)
{
    *done = 0;
    *out_of_memory = false;
    struct ets_table *t = b->table;
    if (!t)
        return true;
    table_lock_write(t);
    /* Helped to the end meanwhile, or let go with its deleted table:
     * pending no more (what is left of it ets_batch_free frees). */
    bool mine = t->pending == b;
    if (mine)
        *out_of_memory = !batch_put(t, b, budget, done);
    bool finished = !mine || !b->first;
    table_unlock(t);
    if (finished)
        batch_detach(b);
    return finished;
}

void ets_batch_free(struct ets_batch *b)
{
    if (!b)
        return;
    if (b->table) {
        table_wrlock(b->table);
        table_unlock(b->table);
        batch_detach(b);
    }
    batch_drop(b);
    free(b);
}

void ets_erase_locked(struct ets_table *t, struct ets_obj *o)
{
    if (is_tree(t)) {
        struct bt_path p;
        tree_locate(t, o, &p);
        tree_remove(t, &p);
    } else {
        *hash_slot(t, o) = o->next;
        /* Halving below one object per 8 buckets bounds the empty buckets
         * first/next walk over. */
        if (t->bits > min_bits(t) && t->n - 1 < bucket_count(t) / 8)
            resize_to(t, t->bits - 1);
    }
    t->n--;
    t->object_words -= o->words;
    obj_free(o);
}

size_t ets_erase_key_locked(struct ets_table *t, term key)
{
    size_t count = 0;
    struct ets_obj *o = ets_lookup_locked(t, key);
    while (o) {
        struct ets_obj *next = ets_same_key_next_locked(t, o);
        ets_erase_locked(t, o);
        count++;
        o = next;
    }
    return count;
}

void ets_clear_locked(struct ets_table *t) { table_clear(t); }

/* ---- rubble: a table's objects taken out at once, freed in portions ---- */

/* t's objects, taken out of it (write-locked), which is left empty; NULL
 * when there are none or memory ran out (t is then emptied in place). */
static struct ets_rubble *take_all_locked(struct ets_table *t)
{
    struct ets_rubble *rb = t->n ? malloc(sizeof *rb) : NULL;
    if (!rb) {
        table_clear(t);
        return NULL;
    }
    take_contents(t, rb);
    return rb;
}

struct take_all {
    struct ets_rubble *rubble;
    size_t count;
};

static enum ets_status take_all(struct ets_table *t, void *arg)
{
    struct take_all *ta = arg;
    ta->count = t->n;
    ta->rubble = take_all_locked(t);
    return ETS_OK;
}

enum ets_status ets_take_all(struct ets_registry *r, term tab, term caller, struct ets_rubble **rubble, size_t *count)
{
    struct take_all ta = {NULL, 0};
    enum ets_status st = ets_access(r, tab, caller, ETS_WRITE, take_all, &ta);
    *rubble = ta.rubble;
    *count = ta.count;
    return st;
}

bool ets_rubble_free(struct ets_rubble *rb, size_t budget, size_t *done)
{
    if (!tear_down(rb, budget, done))
        return false;
    free(rb->buckets);
    free(rb);
    return true;
}

void ets_rubble_free_all(struct ets_rubble *rb)
{
    size_t done;
    if (rb)
        (void)ets_rubble_free(rb, SIZE_MAX, &done);
}

/* ---- checks (unit tests) ---- */

/* The depth of b's leaves below it, or -1 when a node's fill, a key
 * beside its object, the key order (between lo and hi, exclusive, when
 * given) or the leaves' depths are wrong. Counts the objects and the
 * nodes' bytes. */
static int tree_check(const struct ets_table *t, const struct bt_node *b, bool root, const term *lo, const term *hi,
                      size_t *count, size_t *bytes)
{
    if (b->n > BT_MAX || b->n < (root ? 1 : BT_MIN))
        return -1;
    for (unsigned i = 0; i < b->n; i++)
        if (b->key[i] != key_of(t, b->obj[i]) || (i > 0 && term_compare(b->key[i - 1], b->key[i]) >= 0))
            return -1;
    if ((lo && term_compare(*lo, b->key[0]) >= 0) || (hi && term_compare(b->key[b->n - 1], *hi) >= 0))
        return -1;
    *count += b->n;
    *bytes += bt_node_size(b->leaf);
    if (b->leaf)
        return 0;
    int depth = -1;
    for (unsigned k = 0; k <= b->n; k++) {
        int d = tree_check(t, b->kid[k], false, k > 0 ? &b->key[k - 1] : lo, k < b->n ? &b->key[k] : hi, count, bytes);
        if (d < 0 || (depth >= 0 && d != depth))
            return -1;
        depth = d;
    }
    return depth + 1;
}

/* Each partition's tree, its keys within its bounds (from the one below
 * it, which it may hold, to the one above), the bounds in order, and the
 * counts. */
static bool parts_check(const struct ets_table *t)
{
    size_t count = 0, bytes = 0;
    unsigned n = part_count(t);
    for (unsigned i = 0; i < n; i++) {
        const struct bt_node *b = part_tree(t, i);
        if (i + 1 < n && (tuple_element(obj_tuple(t->bound_obj[i]), 1) != t->bound[i] ||
                          atomic_load(&t->bound_prefix[i]) != term_order_prefix(t->bound[i]) ||
                          (i > 0 && term_compare(t->bound[i - 1], t->bound[i]) >= 0)))
            return false;
        if (!b)
            continue;
        if (tree_check(t, b, true, NULL, NULL, &count, &bytes) < 0)
            return false;
        if ((i > 0 && term_compare(key_of(t, bt_edge(b, 0)), t->bound[i - 1]) < 0) ||
            (i + 1 < n && term_compare(key_of(t, bt_edge(b, 1)), t->bound[i]) >= 0))
            return false;
    }
    return count == t->n && bytes == t->tree_bytes;
}

bool ets_check_locked(const struct ets_table *t)
{
    size_t count = 0;
    if (is_tree(t))
        return parts_check(t);
    for (size_t b = 0, nb = bucket_count(t); b < nb; b++) {
        for (const struct ets_obj *o = t->buckets[b]; o; o = o->next) {
            if (bucket_of(t, obj_hash(o)) != b || obj_hash(o) != key_hash(key_of(t, o)) ||
                (o->next && obj_hash(o->next) < obj_hash(o)))
                return false;
            count++;
        }
    }
    return count == t->n && (!t->buckets || t->bits >= min_bits(t));
}
