/*
 * mailbox.h — a process's mailbox: a signal inbox and a message queue.
 *
 * Deliveries append to the inbox. A receive scans the message queue from a
 * saved position (the seed's peek / take / skip): peek shows the next
 * unexamined message, and when the scan reaches the end of the queue the
 * inbox moves behind it, so arrived messages join the queue when a receive
 * examines them. take removes the message peek showed and restarts the scan
 * at the oldest message, as the next receive must; skip leaves it in place
 * and moves on.
 *
 * Nodes are reused: four live inside the mailbox (inside the process
 * context), and up to MAILBOX_SPARE_LIMIT freed nodes are kept, so a send
 * and a receive of a message allocate no node from the C heap once the
 * mailbox has seen its usual depth. A node of the C heap also has room for
 * when its message was sent (--profile's sampled sends); the inline ones,
 * in every context, do not, and a stamped message never takes one.
 *
 * Receive markers (the compiler's recv_marker_reserve / bind / use / clear
 * around a receive that matches a reference made just before it): reserve
 * remembers the end of the mailbox before the reference exists, bind ties
 * that place to the reference, and use starts the receive's scan there.
 * No message older than the reference can hold it, so the scan skips only
 * messages that cannot match, and a gen_server:call costs the same whatever
 * else waits in the queue. A marker is a link (the `next` field of the last
 * message before it, or the queue's head); removing a message moves every
 * marker that pointed into it to the link before it, as the tail moves.
 * Deliveries only append, so nothing can arrive before a marker. The slots
 * are allocated at a process's first reserve; when all are taken the oldest
 * is reused, and a receive whose marker is gone scans from the oldest
 * message, as without markers.
 *
 * A mailbox belongs to its process: the process's worker while it runs,
 * the executor mutex otherwise. Nothing here is synchronised. Every message
 * payload is a collection root until a receive takes it
 * (mailbox_for_each_payload). Payloads live on the receiver's heap and are
 * promoted like its other data; once promoted, a minor collection neither
 * moves them nor needs to read them, so the mailbox keeps a settled prefix
 * (`young`, a link like the tail and the markers, and `inbox_young`): the
 * messages before it hold only old data or immediates, and a minor
 * collection visits only the messages after it
 * (mailbox_for_each_young_payload), not a long queue at every collection.
 */
#ifndef CLAUSE_MAILBOX_H
#define CLAUSE_MAILBOX_H

#include "term/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAILBOX_INLINE_NODES 4
#define MAILBOX_SPARE_LIMIT 64

struct message {
    struct message *next;
    term payload;
};

/* A node of the C heap (not one of a mailbox's inline_nodes). */
struct message_node {
    struct message message;
    uint64_t sent_at; /* when it was sent (profile_stamp, --profile), else 0 */
};

#define MAILBOX_MARKERS 4

struct mailbox_marker {
    struct message **at;        /* link to the first message after the marker */
    term token;                 /* the value reserve answered; 0 when the slot is free */
    uint64_t ref_low, ref_high; /* the bound reference's id */
    bool bound;
};

struct mailbox_markers {
    uint64_t reserved; /* reserves so far: the next token, and the slot to reuse */
    struct mailbox_marker slot[MAILBOX_MARKERS];
};

struct mailbox {
    struct message *head, **tail; /* the message queue, oldest first */
    struct message **scan;        /* link to the next unexamined message */
    struct message *inbox_head, **inbox_tail;
    size_t queued; /* messages in the queue */
    struct message *spares;
    uint32_t inboxed; /* messages in the inbox (a mailbox of 2^32 messages would hold over 100 GB) */
    unsigned spare_count;
    struct mailbox_markers *markers; /* NULL until the first reserve */
    /* Links to the first message, of the queue and of the inbox, that may
     * refer to young data (mailbox_settle); an inbox message is settled
     * only when the whole queue is. */
    struct message **young, **inbox_young;
    struct message inline_nodes[MAILBOX_INLINE_NODES];
};

void mailbox_init(struct mailbox *mb);
/* Frees every node (payloads belong to the heap) and leaves the mailbox
 * empty and usable. */
void mailbox_destroy(struct mailbox *mb);

/* Appends a message to the inbox. False when no node can be had (host out
 * of memory); nothing is delivered then. */
bool mailbox_deliver(struct mailbox *mb, term payload);
/* The same, remembering when the message was sent (0: not measured). */
bool mailbox_deliver_sent_at(struct mailbox *mb, term payload, uint64_t sent_at);

/* The next unexamined message, or THE_NON_VALUE when every message has been
 * examined. */
term mailbox_peek(struct mailbox *mb);
/* Removes the message the last peek returned; the next peek starts at the
 * oldest message again. */
term mailbox_take(struct mailbox *mb);
/* Leaves the message the last peek returned and moves past it. */
void mailbox_skip(struct mailbox *mb);
static inline bool mailbox_node_is_inline(const struct mailbox *mb, const struct message *m)
{
    return m >= mb->inline_nodes && m < mb->inline_nodes + MAILBOX_INLINE_NODES;
}
/* When the message the last peek returned was sent (0: not measured). */
static inline uint64_t mailbox_peeked_sent_at(const struct mailbox *mb)
{
    const struct message *m = *mb->scan;
    return mailbox_node_is_inline(mb, m) ? 0 : ((const struct message_node *)m)->sent_at;
}
/* The next peek starts at the oldest message (a receive that timed out or
 * raised). */
void mailbox_restart(struct mailbox *mb);
/* Removes the oldest message (inbox included) that match accepts; false
 * when none does. The next peek starts at the oldest message. */
bool mailbox_remove_first(struct mailbox *mb, bool (*match)(term payload, void *ctx), void *ctx);

/* A marker at the end of the mailbox (the compiler's recv_marker_reserve):
 * the token to keep in a register until bind, a small integer (NIL when the
 * host refused the slots' memory: bind then ignores it). */
term mailbox_marker_reserve(struct mailbox *mb);
/* Ties the marker reserve answered with token to the reference ref. */
void mailbox_marker_bind(struct mailbox *mb, term token, term ref);
/* The receive about to scan starts at ref's marker, when it has one. */
void mailbox_marker_use(struct mailbox *mb, term ref);
/* Frees ref's marker (its receive is over). */
void mailbox_marker_clear(struct mailbox *mb, term ref);

static inline size_t mailbox_length(const struct mailbox *mb) { return mb->queued + mb->inboxed; }

/* Calls visit on the address of every payload (queue and inbox), so a
 * collection can rewrite them. */
void mailbox_for_each_payload(struct mailbox *mb, void (*visit)(term *payload, void *ctx), void *ctx);

/* The same for the payloads after the settled prefix only: the roots of a
 * minor collection. */
void mailbox_for_each_young_payload(struct mailbox *mb, void (*visit)(term *payload, void *ctx), void *ctx);
/* How many payloads mailbox_for_each_young_payload visits. */
size_t mailbox_young_length(const struct mailbox *mb);
/* After a collection: the settled prefix grows over the messages, oldest
 * first, that `settled` accepts (their data is old, or not on the heap),
 * up to the first it refuses. */
void mailbox_settle(struct mailbox *mb, bool (*settled)(term payload, void *ctx), void *ctx);
/* Before a full sweep, which moves old data too: nothing is settled. */
void mailbox_unsettle(struct mailbox *mb);

#endif
