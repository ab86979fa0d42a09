/* The I/O thread's hand-off (rt/io_thread.h) on real workers: a process
 * asks for input and waits in a receive; bytes written later to a pipe
 * reach it as {clause_stdin, {data, Bin}} in order, the writer's close as
 * {clause_stdin, eof}, and every later request as eof at once; nothing is
 * read before a request; and a program that ends while a read blocks ends
 * at once, its thread stopped. Every policy, 1 and 2 workers. */
#include "rt/executor.h"
#include "rt/io_thread.h"
#include "rt/message.h"
#include "term/atom.h"
#include "term/binary.h"
#include "test_main.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

/* What the reading process saw. */
struct reader {
    bool asked;
    _Atomic unsigned asks; /* requests made, for the writer to pace itself */
    char got[64];
    size_t len;
    unsigned chunks;
    unsigned eofs; /* eof answers: the first, then one more asked after it */
    unsigned other;
};

/* Asks for a chunk, waits, takes it; after the first eof asks once more. */
static enum body_stop reader_step(struct process *p, void *state)
{
    struct reader *r = state;
    for (;;) {
        if (!r->asked) {
            if (!io_thread_request(p))
                return BODY_EXIT;
            r->asked = true;
            atomic_fetch_add(&r->asks, 1);
        }
        term m = proc_receive_peek(p);
        if (is_non_value(m))
            return BODY_WAIT;
        proc_receive_take(p);
        r->asked = false;
        term payload = is_tuple(m) && tuple_arity(m) == 2 && tuple_element(m, 1) == A(clause_stdin)
                           ? tuple_element(m, 2)
                           : THE_NON_VALUE;
        if (payload == A(eof)) {
            if (++r->eofs == 2)
                return BODY_EXIT;
        } else if (is_value(payload) && is_tuple(payload) && tuple_element(payload, 1) == A(data)) {
            const uint8_t *data;
            size_t size;
            unsigned bits;
            bin_bytes(tuple_element(payload, 2), &data, &size, &bits);
            if (r->len + size <= sizeof r->got) {
                memcpy(r->got + r->len, data, size);
                r->len += size;
            }
            r->chunks++;
        } else {
            r->other++;
        }
    }
}

struct writer {
    int fd;
    struct reader *reader;
};

/* Writes three parts, each once the reader asked for it and had a moment
 * to park in its receive, so that each arrives while it waits and no two
 * share a read; then closes the pipe (its end of input). */
static void *writer_main(void *arg)
{
    struct writer *w = arg;
    static const char *const parts[] = {"abc", "def\n", "g"};
    for (unsigned i = 0; i <= 3; i++) {
        while (atomic_load(&w->reader->asks) <= i)
            sleep_ms(1);
        sleep_ms(5);
        if (i == 3 || write(w->fd, parts[i], strlen(parts[i])) < 0)
            break;
    }
    close(w->fd);
    return NULL;
}

static void test_chunks_then_eof(void)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++)
        for (unsigned workers = 1; workers <= 2; workers++) {
            int fds[2];
            CU_ASSERT_FATAL(pipe(fds) == 0);
            struct sched *s = test_sched_new(*policy, workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
            io_thread_set_input(s, fds[0]);
            struct reader r = {0};
            term pid = sched_spawn_native(s, NULL, reader_step, &r, NULL);
            struct writer w = {fds[1], &r};
            pthread_t writer;
            CU_ASSERT_FATAL(pthread_create(&writer, NULL, writer_main, &w) == 0);
            CU_ASSERT_EQUAL(sched_run(s, pid), 0);
            pthread_join(writer, NULL);
            sched_destroy(s);
            close(fds[0]);
            CU_ASSERT_EQUAL(r.len, 8);
            CU_ASSERT(r.len == 8 && memcmp(r.got, "abcdef\ng", 8) == 0);
            CU_ASSERT_EQUAL(r.chunks, 3); /* one read each: each came while the reader waited */
            CU_ASSERT_EQUAL(r.eofs, 2);
            CU_ASSERT_EQUAL(r.other, 0);
        }
}

/* Bytes waiting in the pipe before anything asks stay there: the thread
 * reads only for a request, and a program that never asks reads nothing. */
static enum body_stop idle_step(struct process *p, void *state)
{
    (void)p;
    (void)state;
    return BODY_EXIT;
}

static void test_nothing_read_unasked(void)
{
    int fds[2];
    CU_ASSERT_FATAL(pipe(fds) == 0);
    CU_ASSERT_FATAL(write(fds[1], "xyz", 3) == 3);
    struct sched *s = test_sched_new(NULL, 1, SEND_MODE_ARRIVALS, TIMER_THREAD);
    io_thread_set_input(s, fds[0]);
    term pid = sched_spawn_native(s, NULL, idle_step, NULL, NULL);
    CU_ASSERT_EQUAL(sched_run(s, pid), 0);
    sched_destroy(s);
    char buf[8];
    CU_ASSERT_FATAL(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0);
    CU_ASSERT_EQUAL(read(fds[0], buf, sizeof buf), 3);
    close(fds[0]);
    close(fds[1]);
}

/* Asks for input, then ends the program while the read blocks (the pipe's
 * writer keeps it open): sched_run returns, and sched_destroy finds the
 * thread stopped. */
static enum body_stop ask_and_end_step(struct process *p, void *state)
{
    int *phase = state;
    if ((*phase)++ == 0) {
        CU_ASSERT(io_thread_request(p));
        sched_set_wait_timeout(p, 30);
        return BODY_WAIT;
    }
    CU_ASSERT(sched_take_timed_out(p));
    return BODY_EXIT;
}

static void test_end_while_a_read_blocks(void)
{
    for (unsigned workers = 1; workers <= 2; workers++) {
        int fds[2];
        CU_ASSERT_FATAL(pipe(fds) == 0);
        struct sched *s = test_sched_new(NULL, workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
        io_thread_set_input(s, fds[0]);
        int phase = 0;
        term pid = sched_spawn_native(s, NULL, ask_and_end_step, &phase, NULL);
        CU_ASSERT_EQUAL(sched_run(s, pid), 0);
        sched_destroy(s);
        close(fds[0]);
        close(fds[1]);
    }
}

static CU_TestInfo tests[] = {
    {"chunks reach a waiting reader in order, then eof", test_chunks_then_eof},
    {"nothing is read until a process asks", test_nothing_read_unasked},
    {"a program ends while a read blocks", test_end_while_a_read_blocks},
    CU_TEST_INFO_NULL,
};

TEST_SUITE_CONCURRENT(io_thread, tests);
