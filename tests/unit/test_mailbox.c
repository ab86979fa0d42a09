/* Mailbox: delivery order, the receive scan (peek, take, skip, restart),
 * arrivals joining the queue only when examined, and node reuse. */
#include "rt/mailbox.h"
#include "test_main.h"

#include <stddef.h>

static term msg(int i) { return make_small(i); }

static void test_messages_arrive_in_delivery_order(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    for (int i = 0; i < 100; i++)
        CU_ASSERT_TRUE(mailbox_deliver(&mb, msg(i)));
    CU_ASSERT_EQUAL(mailbox_length(&mb), 100);
    for (int i = 0; i < 100; i++) {
        CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(i));
        CU_ASSERT_EQUAL(mailbox_take(&mb), msg(i));
    }
    CU_ASSERT_TRUE(is_non_value(mailbox_peek(&mb)));
    CU_ASSERT_EQUAL(mailbox_length(&mb), 0);
    mailbox_destroy(&mb);
}

/* receive {b, X} -> ... end over [a1, b1, a2, b2]: takes b1, keeps the a's
 * in order; the next receive starts at the oldest again. */
static void test_selective_receive_keeps_unmatched_in_order(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    int sequence[] = {1, 11, 2, 12, 3};
    for (int i = 0; i < 5; i++)
        mailbox_deliver(&mb, msg(sequence[i]));
    /* Take the first message >= 10. */
    term t;
    while (is_value(t = mailbox_peek(&mb)) && small_value(t) < 10)
        mailbox_skip(&mb);
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(11));
    /* The scan restarted: the next message >= 10 is 12, after skipping 1, 2. */
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(1));
    mailbox_skip(&mb);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(2));
    mailbox_skip(&mb);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(12));
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(12));
    /* No match left: the scan ends, then a timeout restarts it. */
    while (is_value(t = mailbox_peek(&mb)))
        mailbox_skip(&mb);
    mailbox_restart(&mb);
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(1));
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(2));
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(3));
    CU_ASSERT_TRUE(is_non_value(mailbox_peek(&mb)));
    mailbox_destroy(&mb);
}

static void test_arrivals_join_the_queue_when_examined(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    mailbox_deliver(&mb, msg(1));
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(1));
    CU_ASSERT_EQUAL(mb.queued, 1);
    mailbox_skip(&mb);
    /* Delivered during the scan: in the inbox until the scan reaches it. */
    mailbox_deliver(&mb, msg(2));
    mailbox_deliver(&mb, msg(3));
    CU_ASSERT_EQUAL(mb.inboxed, 2);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(2));
    CU_ASSERT_EQUAL(mb.inboxed, 0);
    CU_ASSERT_EQUAL(mb.queued, 3);
    /* Taking the last message keeps the tail right for later arrivals. */
    mailbox_skip(&mb);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(3));
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(3));
    mailbox_deliver(&mb, msg(4));
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(1));
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(2));
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(4));
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(4));
    CU_ASSERT_EQUAL(mailbox_length(&mb), 0);
    mailbox_destroy(&mb);
}

static void count_payload(term *payload, void *ctx)
{
    long *sum = ctx;
    *sum += small_value(*payload);
}

static void test_every_payload_is_visited_as_a_root(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    for (int i = 1; i <= 10; i++)
        mailbox_deliver(&mb, msg(i));
    mailbox_peek(&mb);              /* 10 in the queue ... */
    mailbox_deliver(&mb, msg(100)); /* ... and one in the inbox */
    long sum = 0;
    mailbox_for_each_payload(&mb, count_payload, &sum);
    CU_ASSERT_EQUAL(sum, 155);
    mailbox_destroy(&mb);
}

/* The node of the message just delivered: the inbox tail points at its
 * next field. */
static struct message *last_delivered(struct mailbox *mb)
{
    return (struct message *)((char *)mb->inbox_tail - offsetof(struct message, next));
}

static bool seen(struct message **nodes, size_t n, struct message *m)
{
    for (size_t i = 0; i < n; i++)
        if (nodes[i] == m)
            return true;
    return false;
}

/* Once the mailbox has held up to 68 messages, sends and receives at that
 * depth reuse nodes: no node is new. */
static void test_nodes_are_reused(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    enum { DEPTH = MAILBOX_INLINE_NODES + MAILBOX_SPARE_LIMIT };
    struct message *known[4 * DEPTH];
    size_t n_known = 0;
    for (int i = 0; i < DEPTH; i++) {
        mailbox_deliver(&mb, msg(i));
        known[n_known++] = last_delivered(&mb);
    }
    for (int i = 0; i < DEPTH; i++) {
        mailbox_peek(&mb);
        mailbox_take(&mb);
    }
    CU_ASSERT_EQUAL(mb.spare_count, MAILBOX_SPARE_LIMIT);
    int fresh = 0;
    for (int round = 0; round < 100; round++) {
        for (int i = 0; i < DEPTH; i++) {
            mailbox_deliver(&mb, msg(i));
            fresh += !seen(known, n_known, last_delivered(&mb));
        }
        for (int i = 0; i < DEPTH; i++) {
            mailbox_peek(&mb);
            mailbox_take(&mb);
        }
    }
    CU_ASSERT_EQUAL(fresh, 0);
    /* Deeper than that, the extra nodes are freed again, not hoarded. */
    for (int i = 0; i < 3 * DEPTH; i++)
        mailbox_deliver(&mb, msg(i));
    for (int i = 0; i < 3 * DEPTH; i++) {
        mailbox_peek(&mb);
        mailbox_take(&mb);
    }
    CU_ASSERT_EQUAL(mb.spare_count, MAILBOX_SPARE_LIMIT);
    mailbox_destroy(&mb);
}

static CU_TestInfo tests[] = {
    {"messages arrive in delivery order", test_messages_arrive_in_delivery_order},
    {"selective receive keeps unmatched in order", test_selective_receive_keeps_unmatched_in_order},
    {"arrivals join the queue when examined", test_arrivals_join_the_queue_when_examined},
    {"every payload is visited as a root", test_every_payload_is_visited_as_a_root},
    {"nodes are reused", test_nodes_are_reused},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(mailbox, tests)
