/*
 * persistent.h — the node's persistent_term table: keys to terms, the
 * terms copied out of process heaps into memory the table owns.
 *
 * Reads are lock-free: the table is an immutable open-addressed array of
 * entries, replaced whole by each write (as OTP's is, so a put costs the
 * table's size and a get costs a probe); writers serialise on the table's
 * mutex and publish the new array with a release store. A replaced array
 * and the entry a put or erase removed go to ck_epoch, which frees them
 * once every reader that may have loaded them has left its epoch section.
 *
 * Unlike OTP's, a get copies the value into the reader's heap: clause has
 * no global collection to run when a value is removed, so no process heap
 * may point into the table.
 *
 * Thread contracts: "reader" functions run inside an epoch section of the
 * table's epoch (a worker running a process, or any thread when no writer
 * retires anything meanwhile); "writer" functions take the lock themselves
 * and retire onto the caller's own epoch record (NULL: free at once, when
 * no reader can exist); "single-threaded" ones need every user stopped.
 */
#ifndef CLAUSE_PERSISTENT_H
#define CLAUSE_PERSISTENT_H

#include "term/heap.h"
#include "term/term.h"

#include <ck_epoch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct persistent_array; /* one generation, private to persistent.c */

struct persistent_table {
    _Atomic(struct persistent_array *) array; /* readers load it with acquire */
    ck_epoch_t *epoch;                        /* the records writers pass belong to it */
    pthread_mutex_t lock;                     /* the writer lock */
};

enum persistent_result {
    PERSISTENT_OK,        /* found (get), stored (put), removed (erase) */
    PERSISTENT_ABSENT,    /* no such key */
    PERSISTENT_NO_MEMORY, /* the heap or the host refused memory (a heap's failure says which) */
};

/* Single-threaded. An empty table; false when out of memory. */
bool persistent_init(struct persistent_table *t, ck_epoch_t *epoch);
/* Single-threaded, every reader and writer stopped: frees the current array
 * and its entries (retired ones belong to the records' pending lists). */
void persistent_destroy(struct persistent_table *t);

/* Reader. Copies key's value onto h into *value. */
enum persistent_result persistent_get(struct persistent_table *t, term key, heap_t *h, term *value);
/* Reader. Every {Key, Value} as a list built on h, in the table's order. */
enum persistent_result persistent_get_all(struct persistent_table *t, heap_t *h, term *list);
/* Reader. The number of keys and the bytes the table holds. */
void persistent_info(struct persistent_table *t, size_t *count, size_t *bytes);

/* Writer. Stores a copy of key and value (a value =:= the stored one
 * changes nothing). PERSISTENT_OK or PERSISTENT_NO_MEMORY. */
enum persistent_result persistent_put(struct persistent_table *t, term key, term value, ck_epoch_record_t *rec);
/* Writer. PERSISTENT_OK, PERSISTENT_ABSENT or PERSISTENT_NO_MEMORY. */
enum persistent_result persistent_erase(struct persistent_table *t, term key, ck_epoch_record_t *rec);

#endif
