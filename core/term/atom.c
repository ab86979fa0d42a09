/*
 * atom.c — the global atom table (see atom.h).
 *
 * Entries live in chunks of ATOM_CHUNK entries allocated on demand and never
 * moved or freed, so atom_text reads an entry with no lock: whoever holds an
 * atom term obtained it, directly or through some synchronised hand-over,
 * after the entry was written. The name-to-index hash is an open-addressed
 * array of indices (plus one; 0 is empty) guarded by a reader-writer lock:
 * lookups of existing atoms — the common case — share the read side.
 */
#include "term/atom.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ATOM_CHUNK 4096u
#define ATOM_CHUNKS (ATOM_TABLE_LIMIT / ATOM_CHUNK)

struct atom_entry {
    const char *text; /* UTF-8, NUL-terminated for convenience */
    uint32_t len;     /* bytes */
    uint32_t hash;
};

static _Atomic(struct atom_entry *) chunks[ATOM_CHUNKS];
static atomic_uint count;

static pthread_rwlock_t index_lock = PTHREAD_RWLOCK_INITIALIZER;
static uint32_t *index_slots; /* atom index + 1, or 0 */
static uint32_t index_capacity;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void out_of_memory(void)
{
    fputs("clause: out of memory for the atom table\n", stderr);
    abort();
}

/* FNV-1a: atoms are short, and this is not on a hot path after loading. */
static uint32_t hash_text(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static struct atom_entry *entry_of(uint32_t index)
{
    struct atom_entry *chunk = atomic_load_explicit(&chunks[index / ATOM_CHUNK], memory_order_acquire);
    return &chunk[index % ATOM_CHUNK];
}

/* Index of the atom with this text, or UINT32_MAX; caller holds index_lock. */
static uint32_t find_locked(const char *s, size_t n, uint32_t hash)
{
    if (index_capacity == 0)
        return UINT32_MAX;
    uint32_t mask = index_capacity - 1;
    for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
        uint32_t slot = index_slots[i];
        if (slot == 0)
            return UINT32_MAX;
        struct atom_entry *e = entry_of(slot - 1);
        if (e->hash == hash && e->len == n && memcmp(e->text, s, n) == 0)
            return slot - 1;
    }
}

static void place_locked(uint32_t index, uint32_t hash)
{
    uint32_t mask = index_capacity - 1;
    uint32_t i = hash & mask;
    while (index_slots[i] != 0)
        i = (i + 1) & mask;
    index_slots[i] = index + 1;
}

static void grow_index_locked(void)
{
    uint32_t old_capacity = index_capacity;
    uint32_t *old = index_slots;
    index_capacity = old_capacity ? old_capacity * 2 : 1024;
    index_slots = calloc(index_capacity, sizeof *index_slots);
    if (!index_slots)
        out_of_memory();
    for (uint32_t i = 0; i < old_capacity; i++)
        if (old[i] != 0)
            place_locked(old[i] - 1, entry_of(old[i] - 1)->hash);
    free(old);
}

/* Number of code points of valid UTF-8 text, or -1 when it is not valid
 * (overlong forms, surrogates and values above U+10FFFF are invalid). */
static long utf8_length(const unsigned char *s, size_t n)
{
    long chars = 0;
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t extra;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            chars++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            extra = 1;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return -1;
        }
        if (i + extra >= n) /* truncated sequence */
            return -1;
        for (size_t k = 1; k <= extra; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return -1;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        static const uint32_t min_for_length[4] = {0, 0x80, 0x800, 0x10000};
        if (cp < min_for_length[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return -1;
        i += extra + 1;
        chars++;
    }
    return chars;
}

static uint32_t insert_locked(const char *s, size_t n, uint32_t hash, enum atom_status *status)
{
    uint32_t index = atomic_load_explicit(&count, memory_order_relaxed);
    if (index >= ATOM_TABLE_LIMIT) {
        *status = ATOM_TABLE_FULL;
        return UINT32_MAX;
    }
    struct atom_entry *chunk = atomic_load_explicit(&chunks[index / ATOM_CHUNK], memory_order_relaxed);
    if (!chunk) {
        chunk = calloc(ATOM_CHUNK, sizeof *chunk);
        if (!chunk)
            out_of_memory();
        atomic_store_explicit(&chunks[index / ATOM_CHUNK], chunk, memory_order_release);
    }
    char *text = malloc(n + 1);
    if (!text)
        out_of_memory();
    memcpy(text, s, n);
    text[n] = '\0';
    struct atom_entry *e = &chunk[index % ATOM_CHUNK];
    e->text = text;
    e->len = (uint32_t)n;
    e->hash = hash;
    if ((index + 1) * 2 > index_capacity)
        grow_index_locked();
    place_locked(index, hash);
    atomic_store_explicit(&count, index + 1, memory_order_release);
    return index;
}

static void create_predefined(void)
{
    static const char *const names[] = {
#define ATOM(c_name, text) text,
#include "term/atoms.def"
#undef ATOM
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        term a = atom_intern(names[i], strlen(names[i]), NULL);
        if (atom_index(a) != i) {
            fprintf(stderr, "clause: atoms.def lists \"%s\" twice\n", names[i]);
            abort();
        }
    }
}

void atom_table_init(void) { pthread_once(&init_once, create_predefined); }

term atom_intern(const char *utf8, size_t len, enum atom_status *status)
{
    enum atom_status ignored;
    if (!status)
        status = &ignored;
    *status = ATOM_OK;
    long chars = utf8_length((const unsigned char *)utf8, len);
    if (chars < 0) {
        *status = ATOM_BAD_UTF8;
        return THE_NON_VALUE;
    }
    if ((unsigned long)chars > ATOM_MAX_CHARS) {
        *status = ATOM_TOO_LONG;
        return THE_NON_VALUE;
    }
    uint32_t hash = hash_text(utf8, len);
    pthread_rwlock_rdlock(&index_lock);
    uint32_t index = find_locked(utf8, len, hash);
    pthread_rwlock_unlock(&index_lock);
    if (index != UINT32_MAX)
        return make_atom(index);
    pthread_rwlock_wrlock(&index_lock);
    index = find_locked(utf8, len, hash); /* another thread may have won */
    if (index == UINT32_MAX)
        index = insert_locked(utf8, len, hash, status);
    pthread_rwlock_unlock(&index_lock);
    return index == UINT32_MAX ? THE_NON_VALUE : make_atom(index);
}

term atom_intern_latin1(const unsigned char *text, size_t len, enum atom_status *status)
{
    if (len > ATOM_MAX_CHARS) {
        if (status)
            *status = ATOM_TOO_LONG;
        return THE_NON_VALUE;
    }
    char utf8[2 * ATOM_MAX_CHARS];
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < 0x80) {
            utf8[n++] = (char)text[i];
        } else {
            utf8[n++] = (char)(0xC0 | text[i] >> 6);
            utf8[n++] = (char)(0x80 | (text[i] & 0x3F));
        }
    }
    return atom_intern(utf8, n, status);
}

term atom_lookup(const char *utf8, size_t len)
{
    uint32_t hash = hash_text(utf8, len);
    pthread_rwlock_rdlock(&index_lock);
    uint32_t index = find_locked(utf8, len, hash);
    pthread_rwlock_unlock(&index_lock);
    return index == UINT32_MAX ? THE_NON_VALUE : make_atom(index);
}

const char *atom_text(term atom, size_t *len_bytes)
{
    struct atom_entry *e = entry_of(atom_index(atom));
    if (len_bytes)
        *len_bytes = e->len;
    return e->text;
}

unsigned atom_count(void) { return atomic_load_explicit(&count, memory_order_acquire); }

int atom_compare(term a, term b)
{
    if (a == b)
        return 0;
    size_t la, lb;
    const char *ta = atom_text(a, &la), *tb = atom_text(b, &lb);
    int c = memcmp(ta, tb, la < lb ? la : lb);
    if (c != 0)
        return c;
    return la < lb ? -1 : la > lb ? 1 : 0;
}
