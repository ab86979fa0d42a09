/* mailbox.c — inbox, message queue and node reuse (see mailbox.h). */
#include "rt/mailbox.h"

#include "term/heap.h"

#include <stdlib.h>

void mailbox_init(struct mailbox *mb)
{
    mb->head = NULL;
    mb->tail = &mb->head;
    mb->scan = &mb->head;
    mb->inbox_head = NULL;
    mb->inbox_tail = &mb->inbox_head;
    mb->queued = mb->inboxed = 0;
    mb->spares = NULL;
    mb->spare_count = 0;
    mb->markers = NULL;
    mb->young = &mb->head;
    mb->inbox_young = &mb->inbox_head;
    for (int i = MAILBOX_INLINE_NODES - 1; i >= 0; i--) {
        mb->inline_nodes[i].next = mb->spares;
        mb->spares = &mb->inline_nodes[i];
    }
    /* Inline nodes are not counted: they can never be freed, so they do not
     * take places among the spares kept. */
}

static void free_list(struct mailbox *mb, struct message *m)
{
    while (m) {
        struct message *next = m->next;
        if (!mailbox_node_is_inline(mb, m))
            free(m);
        m = next;
    }
}

void mailbox_destroy(struct mailbox *mb)
{
    free_list(mb, mb->head);
    free_list(mb, mb->inbox_head);
    if (mb->spare_count > 0) /* else every spare is an inline node */
        free_list(mb, mb->spares);
    if (mb->markers)
        free(mb->markers);
    mailbox_init(mb); /* empty and usable again: a recycled context reuses it */
}

/* A node for a message, of the C heap when it is `stamped` (an inline
 * node has no room for the stamp). */
static struct message *new_node(struct mailbox *mb, bool stamped)
{
    struct message *m = mb->spares;
    if (m && !(stamped && mailbox_node_is_inline(mb, m))) {
        mb->spares = m->next;
        if (!mailbox_node_is_inline(mb, m))
            mb->spare_count--;
        return m;
    }
    struct message_node *n = malloc(sizeof *n);
    return n ? &n->message : NULL;
}

static void recycle_node(struct mailbox *mb, struct message *m)
{
    if (mailbox_node_is_inline(mb, m) || mb->spare_count < MAILBOX_SPARE_LIMIT) {
        if (!mailbox_node_is_inline(mb, m))
            mb->spare_count++;
        m->next = mb->spares;
        mb->spares = m;
    } else {
        free(m);
    }
}

bool mailbox_deliver(struct mailbox *mb, term payload) { return mailbox_deliver_sent_at(mb, payload, 0); }

bool mailbox_deliver_sent_at(struct mailbox *mb, term payload, uint64_t sent_at)
{
    struct message *m = new_node(mb, sent_at != 0);
    if (!m)
        return false;
    m->next = NULL;
    m->payload = payload;
    if (!mailbox_node_is_inline(mb, m))
        ((struct message_node *)m)->sent_at = sent_at;
    *mb->inbox_tail = m;
    mb->inbox_tail = &m->next;
    mb->inboxed++;
    return true;
}

/* The inbox's messages move behind the queue's, in arrival order. */
static void join_inbox(struct mailbox *mb)
{
    /* A settled inbox prefix follows a settled queue, so it stays settled. */
    if (mb->young == mb->tail && mb->inbox_young != &mb->inbox_head)
        mb->young = mb->inbox_young;
    mb->inbox_young = &mb->inbox_head;
    *mb->tail = mb->inbox_head;
    mb->tail = mb->inbox_tail;
    mb->queued += mb->inboxed;
    mb->inbox_head = NULL;
    mb->inbox_tail = &mb->inbox_head;
    mb->inboxed = 0;
}

term mailbox_peek(struct mailbox *mb)
{
    /* The scan reached the end of the queue: what arrived meanwhile joins. */
    if (!*mb->scan && mb->inbox_head)
        join_inbox(mb);
    return *mb->scan ? (*mb->scan)->payload : THE_NON_VALUE;
}

/* m, linked from *at, leaves the queue: whatever pointed at its link (the
 * tail, the settled prefix's end, markers) points at the link that now
 * holds its successor. */
static void unlink_message(struct mailbox *mb, struct message **at, struct message *m)
{
    *at = m->next;
    if (mb->tail == &m->next)
        mb->tail = at;
    if (mb->young == &m->next)
        mb->young = at;
    if (mb->markers)
        for (int i = 0; i < MAILBOX_MARKERS; i++)
            if (mb->markers->slot[i].at == &m->next)
                mb->markers->slot[i].at = at;
    mb->queued--;
}

term mailbox_take(struct mailbox *mb)
{
    struct message *m = *mb->scan;
    term payload = m->payload;
    unlink_message(mb, mb->scan, m);
    recycle_node(mb, m);
    mb->scan = &mb->head;
    return payload;
}

bool mailbox_remove_first(struct mailbox *mb, bool (*match)(term payload, void *ctx), void *ctx)
{
    mb->scan = &mb->head;
    if (mb->inbox_head)
        join_inbox(mb);
    for (struct message **at = &mb->head; *at; at = &(*at)->next) {
        struct message *m = *at;
        if (!match(m->payload, ctx))
            continue;
        unlink_message(mb, at, m);
        recycle_node(mb, m);
        return true;
    }
    return false;
}

void mailbox_skip(struct mailbox *mb) { mb->scan = &(*mb->scan)->next; }

void mailbox_restart(struct mailbox *mb) { mb->scan = &mb->head; }

term mailbox_marker_reserve(struct mailbox *mb)
{
    if (!mb->markers) {
        mb->markers = calloc(1, sizeof *mb->markers);
        if (!mb->markers)
            return NIL; /* the receive will scan from the oldest message */
    }
    struct mailbox_markers *ms = mb->markers;
    /* A free slot, else the one reserved longest ago. */
    struct mailbox_marker *mk = &ms->slot[ms->reserved % MAILBOX_MARKERS];
    for (int i = 0; i < MAILBOX_MARKERS; i++)
        if (ms->slot[i].token == 0) {
            mk = &ms->slot[i];
            break;
        }
    ms->reserved++;
    /* The end of the mailbox, as a link of the queue (a marker never points
     * into the inbox, whose links move when it joins). */
    if (mb->inbox_head)
        join_inbox(mb);
    mk->at = mb->tail;
    /* Tokens differ from one reserve to the next, so a bind can only tie
     * the marker its own reserve made. */
    mk->token = make_small((int64_t)(ms->reserved & ((UINT64_C(1) << 58) - 1)));
    mk->bound = false;
    return mk->token;
}

static struct mailbox_marker *marker_of(struct mailbox *mb, term ref)
{
    if (!mb->markers || !is_ref(ref))
        return NULL;
    const term *id = ref_id_words(ref);
    for (int i = 0; i < MAILBOX_MARKERS; i++) {
        struct mailbox_marker *mk = &mb->markers->slot[i];
        if (mk->bound && mk->ref_low == id[0] && mk->ref_high == id[1])
            return mk;
    }
    return NULL;
}

void mailbox_marker_bind(struct mailbox *mb, term token, term ref)
{
    if (!mb->markers || !is_small(token) || !is_ref(ref))
        return;
    for (int i = 0; i < MAILBOX_MARKERS; i++) {
        struct mailbox_marker *mk = &mb->markers->slot[i];
        if (mk->token == token && !mk->bound) {
            const term *id = ref_id_words(ref);
            mk->ref_low = id[0];
            mk->ref_high = id[1];
            mk->bound = true;
            return;
        }
    }
}

void mailbox_marker_use(struct mailbox *mb, term ref)
{
    struct mailbox_marker *mk = marker_of(mb, ref);
    if (mk)
        mb->scan = mk->at;
}

void mailbox_marker_clear(struct mailbox *mb, term ref)
{
    struct mailbox_marker *mk = marker_of(mb, ref);
    if (mk) {
        mk->token = 0;
        mk->bound = false;
    }
}

void mailbox_for_each_payload(struct mailbox *mb, void (*visit)(term *payload, void *ctx), void *ctx)
{
    for (struct message *m = mb->head; m; m = m->next)
        visit(&m->payload, ctx);
    for (struct message *m = mb->inbox_head; m; m = m->next)
        visit(&m->payload, ctx);
}

void mailbox_for_each_young_payload(struct mailbox *mb, void (*visit)(term *payload, void *ctx), void *ctx)
{
    for (struct message *m = *mb->young; m; m = m->next)
        visit(&m->payload, ctx);
    for (struct message *m = *mb->inbox_young; m; m = m->next)
        visit(&m->payload, ctx);
}

size_t mailbox_young_length(const struct mailbox *mb)
{
    size_t n = 0;
    for (const struct message *m = *mb->young; m; m = m->next)
        n++;
    for (const struct message *m = *mb->inbox_young; m; m = m->next)
        n++;
    return n;
}

void mailbox_settle(struct mailbox *mb, bool (*settled)(term payload, void *ctx), void *ctx)
{
    while (*mb->young && settled((*mb->young)->payload, ctx))
        mb->young = &(*mb->young)->next;
    if (*mb->young)
        return; /* the inbox follows a message that is not settled */
    while (*mb->inbox_young && settled((*mb->inbox_young)->payload, ctx))
        mb->inbox_young = &(*mb->inbox_young)->next;
}

void mailbox_unsettle(struct mailbox *mb)
{
    mb->young = &mb->head;
    mb->inbox_young = &mb->inbox_head;
}
