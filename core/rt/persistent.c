/*
 * persistent.c — the persistent_term table (see persistent.h).
 *
 * An entry holds copies of one key and its value in a single allocation,
 * with the ProcBins of the binaries they refer to. An array is a
 * power-of-two table of entry pointers at most half full, probed linearly
 * from the key's hash; once published it never changes, so readers need
 * only the acquire load of the array pointer. A write builds the next
 * array from the current one's pointers (entries are shared between
 * generations, never copied again) and retires the old array, and the
 * entry it replaced or removed, to ck_epoch.
 */
#include "rt/persistent.h"

#include "term/binary.h"
#include "term/compare.h"
#include "term/copy.h"

#include <stdint.h>
#include <stdlib.h>

/* ThreadSanitizer does not see ck_epoch's grace periods: a reader releases
 * what it read after its last read, the reclaiming callback acquires it
 * (the order the grace period guarantees; see proc_table.c). */
#if defined(__SANITIZE_THREAD__)
#define PERSISTENT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PERSISTENT_TSAN 1
#endif
#endif
#ifdef PERSISTENT_TSAN
#include <sanitizer/tsan_interface.h>
#define TSAN_RELEASE(a) __tsan_release(a)
#define TSAN_ACQUIRE(a) __tsan_acquire(a)
#else
#define TSAN_RELEASE(a) ((void)(a))
#define TSAN_ACQUIRE(a) ((void)(a))
#endif

struct persistent_entry {
    uint64_t hash;
    term key, value;
    size_t key_words, value_words; /* what copies of them take on a heap */
    size_t bytes;                  /* this allocation */
    term *mso;                     /* ProcBins inside words[] */
    ck_epoch_entry_t retire;
    term words[];
};

struct persistent_array {
    size_t mask;  /* capacity - 1 */
    size_t count; /* entries */
    size_t bytes; /* this array and its entries */
    ck_epoch_entry_t retire;
    struct persistent_entry *slots[];
};

CK_EPOCH_CONTAINER(struct persistent_entry, retire, entry_of_retire)
CK_EPOCH_CONTAINER(struct persistent_array, retire, array_of_retire)

static void free_entry(ck_epoch_entry_t *e)
{
    struct persistent_entry *entry = entry_of_retire(e);
    TSAN_ACQUIRE(entry);
    bin_release_mso(entry->mso);
    free(entry);
}

static void free_array(ck_epoch_entry_t *e)
{
    struct persistent_array *a = array_of_retire(e);
    TSAN_ACQUIRE(a);
    free(a);
}

/* An array of capacity slots for count entries; NULL when refused. */
static struct persistent_array *new_array(size_t capacity)
{
    if (capacity > (SIZE_MAX - sizeof(struct persistent_array)) / sizeof(struct persistent_entry *))
        return NULL;
    struct persistent_array *a = calloc(1, sizeof *a + capacity * sizeof a->slots[0]);
    if (a) {
        a->mask = capacity - 1;
        a->bytes = sizeof *a + capacity * sizeof a->slots[0];
    }
    return a;
}

/* The smallest power of two (at least 8) keeping count entries at most half
 * the slots, so every probe meets an empty slot. */
static size_t capacity_for(size_t count)
{
    size_t cap = 8;
    while (cap / 2 < count && cap <= SIZE_MAX / 4)
        cap *= 2;
    return cap;
}

/* The slot holding key in a, or the empty slot where it would go. */
static struct persistent_entry **probe(struct persistent_array *a, term key, uint64_t hash)
{
    for (size_t i = (size_t)hash & a->mask;; i = (i + 1) & a->mask) {
        struct persistent_entry *e = a->slots[i];
        bool found = !e || (e->hash == hash && term_eq_exact(e->key, key));
        if (e)
            TSAN_RELEASE(e); /* a reader's reads of every entry it passed */
        if (found)
            return &a->slots[i];
    }
}

/* A copy of a without `drop`, with `add` (either may be NULL); NULL when
 * refused. Not yet visible to anyone: plain stores. */
static struct persistent_array *rebuilt(const struct persistent_array *a, const struct persistent_entry *drop,
                                        struct persistent_entry *add)
{
    size_t count = a->count - (drop != NULL) + (add != NULL);
    struct persistent_array *n = new_array(capacity_for(count));
    if (!n)
        return NULL;
    for (size_t i = 0; i <= a->mask; i++) {
        struct persistent_entry *e = a->slots[i];
        if (!e || e == drop)
            continue;
        *probe(n, e->key, e->hash) = e;
        n->bytes += e->bytes;
    }
    if (add) {
        *probe(n, add->key, add->hash) = add;
        n->bytes += add->bytes;
    }
    n->count = count;
    return n;
}

bool persistent_init(struct persistent_table *t, ck_epoch_t *epoch)
{
    struct persistent_array *a = new_array(capacity_for(0));
    if (!a)
        return false;
    atomic_init(&t->array, a);
    t->epoch = epoch;
    pthread_mutex_init(&t->lock, NULL);
    return true;
}

void persistent_destroy(struct persistent_table *t)
{
    struct persistent_array *a = atomic_load_explicit(&t->array, memory_order_relaxed);
    if (!a) /* never initialised (the executor's setup failed first) */
        return;
    for (size_t i = 0; i <= a->mask; i++)
        if (a->slots[i])
            free_entry(&a->slots[i]->retire);
    free(a);
    pthread_mutex_destroy(&t->lock);
}

/* ---- readers ---- */

enum persistent_result persistent_get(struct persistent_table *t, term key, heap_t *h, term *value)
{
    struct persistent_array *a = atomic_load_explicit(&t->array, memory_order_acquire);
    struct persistent_entry *e = *probe(a, key, term_hash(key));
    enum persistent_result r = PERSISTENT_ABSENT;
    if (e) {
        term *hp = e->value_words ? heap_alloc(h, e->value_words) : NULL;
        if (e->value_words && !hp) {
            r = PERSISTENT_NO_MEMORY;
        } else {
            *value = copy_term(e->value, e->value_words, &hp, &h->mso, &h->off_heap_bytes);
            r = PERSISTENT_OK;
        }
        TSAN_RELEASE(e);
    }
    TSAN_RELEASE(a);
    return r;
}

enum persistent_result persistent_get_all(struct persistent_table *t, heap_t *h, term *list)
{
    struct persistent_array *a = atomic_load_explicit(&t->array, memory_order_acquire);
    size_t words = 0;
    for (size_t i = 0; i <= a->mask; i++) {
        struct persistent_entry *e = a->slots[i];
        if (e)
            words += e->key_words + e->value_words + 3 + 2; /* {K, V} and its cons */
    }
    term *hp = heap_alloc(h, words);
    enum persistent_result r = PERSISTENT_NO_MEMORY;
    if (hp || words == 0) {
        term l = NIL;
        for (size_t i = a->mask + 1; i-- > 0;) {
            struct persistent_entry *e = a->slots[i];
            if (!e)
                continue;
            term k = copy_term(e->key, e->key_words, &hp, &h->mso, &h->off_heap_bytes);
            term v = copy_term(e->value, e->value_words, &hp, &h->mso, &h->off_heap_bytes);
            hp[0] = make_header(SUBTAG_TUPLE, 2);
            hp[1] = k;
            hp[2] = v;
            term pair = make_boxed(hp);
            hp[3] = pair;
            hp[4] = l;
            l = make_list(hp + 3);
            hp += 5;
        }
        *list = l;
        r = PERSISTENT_OK;
    }
    for (size_t i = 0; i <= a->mask; i++)
        if (a->slots[i])
            TSAN_RELEASE(a->slots[i]);
    TSAN_RELEASE(a);
    return r;
}

void persistent_info(struct persistent_table *t, size_t *count, size_t *bytes)
{
    struct persistent_array *a = atomic_load_explicit(&t->array, memory_order_acquire);
    *count = a->count;
    *bytes = a->bytes;
    TSAN_RELEASE(a);
}

/* ---- writers ---- */

/* Hands x to the epoch (or frees it when no reader can exist). */
static void retire(ck_epoch_record_t *rec, ck_epoch_entry_t *x, void (*fn)(ck_epoch_entry_t *))
{
    if (!rec) {
        fn(x);
        return;
    }
    /* The new array's store must be visible before ck_epoch_call reads the
     * global epoch (see proc_table.c's rebuild_locked). */
    ck_pr_fence_store_load();
    ck_epoch_call(rec, x, fn);
}

/* Publishes n in place of a and retires a and `gone` (may be NULL). */
static void publish_locked(struct persistent_table *t, struct persistent_array *a, struct persistent_array *n,
                           struct persistent_entry *gone, ck_epoch_record_t *rec)
{
    atomic_store_explicit(&t->array, n, memory_order_release);
    retire(rec, &a->retire, free_array);
    if (gone)
        retire(rec, &gone->retire, free_entry);
}

static struct persistent_entry *new_entry(term key, term value, uint64_t hash)
{
    size_t kw = copy_size(key), vw = copy_size(value);
    if (kw == SIZE_MAX || vw == SIZE_MAX || kw + vw > (SIZE_MAX - sizeof(struct persistent_entry)) / sizeof(term))
        return NULL;
    size_t bytes = sizeof(struct persistent_entry) + (kw + vw) * sizeof(term);
    struct persistent_entry *e = malloc(bytes);
    if (!e)
        return NULL;
    term *hp = e->words;
    e->hash = hash;
    e->mso = NULL;
    e->bytes = bytes;
    e->key_words = kw;
    e->value_words = vw;
    e->key = copy_term(key, kw, &hp, &e->mso, NULL);
    e->value = copy_term(value, vw, &hp, &e->mso, NULL);
    return e;
}

enum persistent_result persistent_put(struct persistent_table *t, term key, term value, ck_epoch_record_t *rec)
{
    uint64_t hash = term_hash(key);
    pthread_mutex_lock(&t->lock);
    struct persistent_array *a = atomic_load_explicit(&t->array, memory_order_relaxed);
    struct persistent_entry *old = *probe(a, key, hash);
    if (old && term_eq_exact(old->value, value)) {
        pthread_mutex_unlock(&t->lock);
        return PERSISTENT_OK;
    }
    struct persistent_entry *e = new_entry(key, value, hash);
    struct persistent_array *n = e ? rebuilt(a, old, e) : NULL;
    if (!n) {
        pthread_mutex_unlock(&t->lock);
        if (e)
            free_entry(&e->retire);
        return PERSISTENT_NO_MEMORY;
    }
    publish_locked(t, a, n, old, rec);
    pthread_mutex_unlock(&t->lock);
    return PERSISTENT_OK;
}

enum persistent_result persistent_erase(struct persistent_table *t, term key, ck_epoch_record_t *rec)
{
    uint64_t hash = term_hash(key);
    pthread_mutex_lock(&t->lock);
    struct persistent_array *a = atomic_load_explicit(&t->array, memory_order_relaxed);
    struct persistent_entry *old = *probe(a, key, hash);
    enum persistent_result r = PERSISTENT_ABSENT;
    if (old) {
        struct persistent_array *n = rebuilt(a, old, NULL);
        if (n) {
            publish_locked(t, a, n, old, rec);
            r = PERSISTENT_OK;
        } else {
            r = PERSISTENT_NO_MEMORY;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return r;
}
