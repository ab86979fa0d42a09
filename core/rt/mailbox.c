/* mailbox.c — inbox, message queue and node reuse (see mailbox.h). */
#include "rt/mailbox.h"

#include <stdlib.h>

static bool is_inline(const struct mailbox *mb, const struct message *m)
{
    return m >= mb->inline_nodes && m < mb->inline_nodes + MAILBOX_INLINE_NODES;
}

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
        if (!is_inline(mb, m))
            free(m);
        m = next;
    }
}

void mailbox_destroy(struct mailbox *mb)
{
    free_list(mb, mb->head);
    free_list(mb, mb->inbox_head);
    free_list(mb, mb->spares);
    mailbox_init(mb); /* empty and usable again: a recycled context reuses it */
}

static struct message *new_node(struct mailbox *mb)
{
    struct message *m = mb->spares;
    if (m) {
        mb->spares = m->next;
        if (!is_inline(mb, m))
            mb->spare_count--;
        return m;
    }
    return malloc(sizeof *m);
}

static void recycle_node(struct mailbox *mb, struct message *m)
{
    if (is_inline(mb, m) || mb->spare_count < MAILBOX_SPARE_LIMIT) {
        if (!is_inline(mb, m))
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
    struct message *m = new_node(mb);
    if (!m)
        return false;
    m->next = NULL;
    m->payload = payload;
    m->sent_at = sent_at;
    *mb->inbox_tail = m;
    mb->inbox_tail = &m->next;
    mb->inboxed++;
    return true;
}

term mailbox_peek(struct mailbox *mb)
{
    if (!*mb->scan && mb->inbox_head) {
        /* The scan reached the end of the queue: what arrived meanwhile
         * moves behind it, in arrival order. */
        *mb->tail = mb->inbox_head;
        mb->tail = mb->inbox_tail;
        mb->queued += mb->inboxed;
        mb->inbox_head = NULL;
        mb->inbox_tail = &mb->inbox_head;
        mb->inboxed = 0;
    }
    return *mb->scan ? (*mb->scan)->payload : THE_NON_VALUE;
}

term mailbox_take(struct mailbox *mb)
{
    struct message *m = *mb->scan;
    term payload = m->payload;
    *mb->scan = m->next;
    if (mb->tail == &m->next)
        mb->tail = mb->scan;
    mb->queued--;
    recycle_node(mb, m);
    mb->scan = &mb->head;
    return payload;
}

bool mailbox_remove_first(struct mailbox *mb, bool (*match)(term payload, void *ctx), void *ctx)
{
    mb->scan = &mb->head;
    mailbox_peek(mb); /* the inbox joins the queue */
    for (struct message **at = &mb->head; *at; at = &(*at)->next) {
        struct message *m = *at;
        if (!match(m->payload, ctx))
            continue;
        *at = m->next;
        if (mb->tail == &m->next)
            mb->tail = at;
        mb->queued--;
        recycle_node(mb, m);
        return true;
    }
    return false;
}

void mailbox_skip(struct mailbox *mb) { mb->scan = &(*mb->scan)->next; }

void mailbox_restart(struct mailbox *mb) { mb->scan = &mb->head; }

void mailbox_for_each_payload(struct mailbox *mb, void (*visit)(term *payload, void *ctx), void *ctx)
{
    for (struct message *m = mb->head; m; m = m->next)
        visit(&m->payload, ctx);
    for (struct message *m = mb->inbox_head; m; m = m->next)
        visit(&m->payload, ctx);
}
