/* Mailbox: delivery order, the receive scan (peek, take, skip, restart),
 * arrivals joining the queue only when examined, node reuse, and receive
 * markers. */
#include "rt/mailbox.h"
#include "term/heap.h"
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

/* A reference with id n, in words the caller keeps. */
static term ref_in(term words[1 + REF_WORDS], uint64_t n)
{
    words[0] = make_header(SUBTAG_REF, REF_WORDS);
    words[1] = n;
    words[2] = 0;
    return make_boxed(words);
}

/* Skips to the first message at or above `from` and returns it, or
 * THE_NON_VALUE: the scan of a receive for one reply. */
static term scan_for(struct mailbox *mb, int from, int *examined)
{
    term t;
    *examined = 0;
    while (is_value(t = mailbox_peek(mb))) {
        ++*examined;
        if (small_value(t) >= from)
            return t;
        mailbox_skip(mb);
    }
    return t;
}

/* request/reply: 1,000 messages queued (some in the queue, some in the
 * inbox) before the reference; the scan that uses its marker examines only
 * what came after, and the next receive starts at the oldest again. */
/* A stamped message (--profile's sampled sends) never takes an inline
 * node, which has no room for the stamp; an unstamped one in a node of the
 * C heap that held a stamp before reads as not measured. */
static void test_send_stamps_live_in_nodes_of_their_own(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    CU_ASSERT_TRUE(mailbox_deliver_sent_at(&mb, msg(1), 1001));
    CU_ASSERT_TRUE(mailbox_deliver(&mb, msg(2)));
    CU_ASSERT_TRUE(mailbox_deliver_sent_at(&mb, msg(3), 1003));
    CU_ASSERT_FALSE(mailbox_node_is_inline(&mb, mb.inbox_head));
    CU_ASSERT_TRUE(mailbox_node_is_inline(&mb, mb.inbox_head->next)); /* unstamped: an inline node */
    uint64_t want[] = {1001, 0, 1003};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(i + 1));
        CU_ASSERT_EQUAL(mailbox_peeked_sent_at(&mb), want[i]);
        mailbox_take(&mb);
    }
    /* The stamped nodes are spares now, at the head of the list: taken
     * again without a stamp, they read 0. */
    CU_ASSERT_FALSE(mailbox_node_is_inline(&mb, mb.spares));
    CU_ASSERT_TRUE(mailbox_deliver(&mb, msg(4)));
    CU_ASSERT_FALSE(mailbox_node_is_inline(&mb, mb.inbox_head));
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(4));
    CU_ASSERT_EQUAL(mailbox_peeked_sent_at(&mb), 0);
    mailbox_destroy(&mb);
}

static void test_a_marker_skips_the_messages_older_than_its_reference(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    for (int i = 0; i < 500; i++)
        mailbox_deliver(&mb, msg(i));
    mailbox_peek(&mb); /* the first 500 join the queue */
    for (int i = 500; i < 1000; i++)
        mailbox_deliver(&mb, msg(i));
    term words[3];
    term token = mailbox_marker_reserve(&mb);
    CU_ASSERT_TRUE(is_small(token));
    term ref = ref_in(words, 7);
    mailbox_marker_bind(&mb, token, ref);
    mailbox_deliver(&mb, msg(5000));  /* an unrelated message after the reference */
    mailbox_deliver(&mb, msg(10000)); /* the reply */
    mailbox_marker_use(&mb, ref);
    int examined;
    CU_ASSERT_EQUAL(scan_for(&mb, 10000, &examined), msg(10000));
    CU_ASSERT_EQUAL(examined, 2);
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(10000));
    mailbox_marker_clear(&mb, ref);
    CU_ASSERT_EQUAL(mailbox_length(&mb), 1001);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(0));
    /* Cleared: using it again scans from the oldest message. */
    mailbox_marker_use(&mb, ref);
    CU_ASSERT_EQUAL(scan_for(&mb, 5000, &examined), msg(5000));
    CU_ASSERT_EQUAL(examined, 1001);
    mailbox_destroy(&mb);
}

/* The reply arrived before the receive, and then a wait: the scan reaches
 * the end, the next delivery joins, and the scan goes on from there. */
static void test_a_marked_scan_resumes_after_a_wait(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    for (int i = 0; i < 10; i++)
        mailbox_deliver(&mb, msg(i));
    term words[3], ref = ref_in(words, 8);
    mailbox_marker_bind(&mb, mailbox_marker_reserve(&mb), ref);
    mailbox_marker_use(&mb, ref);
    int examined;
    CU_ASSERT_TRUE(is_non_value(scan_for(&mb, 100, &examined)));
    CU_ASSERT_EQUAL(examined, 0);
    mailbox_deliver(&mb, msg(20));
    mailbox_deliver(&mb, msg(100));
    CU_ASSERT_EQUAL(scan_for(&mb, 100, &examined), msg(100));
    CU_ASSERT_EQUAL(examined, 2);
    mailbox_take(&mb);
    mailbox_destroy(&mb);
}

/* Messages taken out of the queue while a marker stands right after one of
 * them (another receive, a demonitor flush) move the marker to the link
 * before: it still skips exactly the older messages left. */
static void test_a_marker_survives_the_removal_of_older_messages(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    for (int i = 0; i < 3; i++)
        mailbox_deliver(&mb, msg(i));
    term words[3], ref = ref_in(words, 9);
    mailbox_marker_bind(&mb, mailbox_marker_reserve(&mb), ref);
    /* Take 2, the message right before the marker, then 0. */
    int examined;
    CU_ASSERT_EQUAL(scan_for(&mb, 2, &examined), msg(2));
    mailbox_take(&mb);
    mailbox_peek(&mb);
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(0));
    mailbox_deliver(&mb, msg(50));
    mailbox_marker_use(&mb, ref);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(50));
    mailbox_restart(&mb);
    /* Every message before it gone: it stands at the head. */
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(1));
    mailbox_marker_use(&mb, ref);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(50));
    /* The message after it taken: later ones still follow it. */
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(50));
    mailbox_deliver(&mb, msg(60));
    mailbox_marker_use(&mb, ref);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(60));
    mailbox_destroy(&mb);
}

static bool is_one(term payload, void *ctx)
{
    (void)ctx;
    return payload == msg(1);
}

static void test_remove_first_finds_a_message_in_the_inbox(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    mailbox_deliver(&mb, msg(0));
    mailbox_peek(&mb);            /* 0 in the queue */
    mailbox_deliver(&mb, msg(1)); /* 1 in the inbox */
    term words[3], ref = ref_in(words, 10);
    mailbox_deliver(&mb, msg(2));
    CU_ASSERT_TRUE(mailbox_remove_first(&mb, is_one, NULL));
    CU_ASSERT_EQUAL(mailbox_length(&mb), 2);
    mailbox_marker_bind(&mb, mailbox_marker_reserve(&mb), ref);
    /* The marker stands after 2: removing it moves the marker to after 0. */
    mailbox_restart(&mb);
    mailbox_skip(&mb);
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(2));
    mailbox_deliver(&mb, msg(3));
    mailbox_marker_use(&mb, ref);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(3));
    mailbox_destroy(&mb);
}

/* More reserves than slots: the oldest marker is reused, and its receive
 * scans from the oldest message (still correct, only slower); a bind with
 * a token of a reused slot ties nothing. */
static void test_markers_beyond_the_slots_reuse_the_oldest(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    term words[MAILBOX_MARKERS + 1][3], refs[MAILBOX_MARKERS + 1];
    for (int i = 0; i <= MAILBOX_MARKERS; i++) {
        mailbox_deliver(&mb, msg(i));
        refs[i] = ref_in(words[i], 100 + (uint64_t)i);
        mailbox_marker_bind(&mb, mailbox_marker_reserve(&mb), refs[i]);
    }
    mailbox_marker_use(&mb, refs[0]);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(0));
    for (int i = 1; i <= MAILBOX_MARKERS; i++) {
        mailbox_restart(&mb);
        mailbox_marker_use(&mb, refs[i]);
        CU_ASSERT_EQUAL(mailbox_peek(&mb), i < MAILBOX_MARKERS ? msg(i + 1) : THE_NON_VALUE);
    }
    /* A token whose slot was reserved again since binds nothing. */
    mailbox_restart(&mb);
    term stale = mailbox_marker_reserve(&mb);
    for (int i = 0; i < MAILBOX_MARKERS; i++)
        mailbox_marker_reserve(&mb);
    term late_words[3], late = ref_in(late_words, 999);
    mailbox_marker_bind(&mb, stale, late);
    mailbox_marker_use(&mb, late);
    CU_ASSERT_EQUAL(mailbox_peek(&mb), msg(0));
    mailbox_destroy(&mb);
}

/* Settled: the payloads below a bound (small integers standing for data a
 * minor collection does not move). */
static bool below(term payload, void *ctx) { return small_value(payload) < *(const int *)ctx; }

static void count_young(term *payload, void *ctx)
{
    (void)payload;
    (*(int *)ctx)++;
}

static int young_visits(struct mailbox *mb)
{
    int n = 0;
    mailbox_for_each_young_payload(mb, count_young, &n);
    CU_ASSERT_EQUAL((size_t)n, mailbox_young_length(mb));
    return n;
}

/* A minor collection visits only the messages after the settled prefix;
 * the prefix ends at the first message not settled, follows removals,
 * takes in a settled inbox when the whole queue is settled, and is gone
 * before a full sweep. */
static void test_a_settled_prefix_is_not_visited(void)
{
    struct mailbox mb;
    mailbox_init(&mb);
    for (int i = 0; i < 1000; i++)
        mailbox_deliver(&mb, msg(i));
    mailbox_peek(&mb); /* the 1,000 join the queue */
    CU_ASSERT_EQUAL(young_visits(&mb), 1000);
    int bound = 990;
    mailbox_settle(&mb, below, &bound);
    CU_ASSERT_EQUAL(young_visits(&mb), 10);
    /* Settling again starts where it stopped; 995 and later stay. */
    bound = 995;
    mailbox_settle(&mb, below, &bound);
    CU_ASSERT_EQUAL(young_visits(&mb), 5);
    /* Taking the first unsettled message (995) and a settled one (0). */
    int examined;
    CU_ASSERT_EQUAL(scan_for(&mb, 995, &examined), msg(995));
    mailbox_take(&mb);
    CU_ASSERT_EQUAL(mailbox_take(&mb), msg(0));
    CU_ASSERT_EQUAL(young_visits(&mb), 4);
    /* Arrivals are young until settled; an inbox is settled only behind a
     * settled queue, and stays so when it joins. */
    mailbox_deliver(&mb, msg(2000));
    mailbox_deliver(&mb, msg(2001));
    CU_ASSERT_EQUAL(young_visits(&mb), 6);
    bound = 3000;
    mailbox_settle(&mb, below, &bound);
    CU_ASSERT_EQUAL(young_visits(&mb), 0);
    mailbox_deliver(&mb, msg(3001));
    CU_ASSERT_EQUAL(scan_for(&mb, 3001, &examined), msg(3001)); /* joins the inbox */
    CU_ASSERT_EQUAL(young_visits(&mb), 1);
    /* Taking the last settled message moves the prefix's end with it. */
    mailbox_restart(&mb);
    CU_ASSERT_EQUAL(scan_for(&mb, 2001, &examined), msg(2001));
    mailbox_take(&mb);
    CU_ASSERT_EQUAL(young_visits(&mb), 1);
    mailbox_unsettle(&mb);
    CU_ASSERT_EQUAL(young_visits(&mb), (int)mailbox_length(&mb));
    /* Every payload is still there, in order. */
    long sum = 0;
    mailbox_for_each_payload(&mb, count_payload, &sum);
    /* 0, 995 and 2001 were taken. */
    CU_ASSERT_EQUAL(sum, 989L * 990 / 2 + 990 + 991 + 992 + 993 + 994 + 996 + 997 + 998 + 999 + 2000 + 3001);
    mailbox_destroy(&mb);
}

static CU_TestInfo tests[] = {
    {"messages arrive in delivery order", test_messages_arrive_in_delivery_order},
    {"selective receive keeps unmatched in order", test_selective_receive_keeps_unmatched_in_order},
    {"arrivals join the queue when examined", test_arrivals_join_the_queue_when_examined},
    {"every payload is visited as a root", test_every_payload_is_visited_as_a_root},
    {"nodes are reused", test_nodes_are_reused},
    {"send stamps live in nodes of their own", test_send_stamps_live_in_nodes_of_their_own},
    {"a marker skips the messages older than its reference", test_a_marker_skips_the_messages_older_than_its_reference},
    {"a marked scan resumes after a wait", test_a_marked_scan_resumes_after_a_wait},
    {"a marker survives the removal of older messages", test_a_marker_survives_the_removal_of_older_messages},
    {"remove_first finds a message in the inbox", test_remove_first_finds_a_message_in_the_inbox},
    {"markers beyond the slots reuse the oldest", test_markers_beyond_the_slots_reuse_the_oldest},
    {"a settled prefix is not visited", test_a_settled_prefix_is_not_visited},
    CU_TEST_INFO_NULL,
};
TEST_SUITE(mailbox, tests)
