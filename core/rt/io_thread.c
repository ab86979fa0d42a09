/*
 * io_thread.c — standard input and the runtime's I/O servers (io_thread.h).
 *
 * The I/O thread sleeps on a condition variable until a process asks for a
 * chunk, then polls the input and a stop pipe together, so that the end of
 * the program interrupts a read that would block (a terminal, a pipe whose
 * writer keeps it open). It reads once, and sends the chunk to the process
 * that asked as a message from the runtime (message_buffer_deliver_locked,
 * as a timer's message), which queues it if it waits; then it sleeps
 * again. Once the input ended every later request gets eof at once, as
 * OTP's user server keeps its eof.
 *
 * Locks: io.lock guards the request and the thread's life and is never held
 * while taking the executor mutex (a delivery takes that alone); the
 * servers' lock is held across a server's spawn (which takes the run-queue
 * and table locks), and nothing holding a runtime lock takes it.
 */
#include "rt/io_thread.h"

#include "rt/internal.h"
#include "term/binary.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The most one read takes: what OTP's fd driver reads at once too. The
 * server keeps the rest of a chunk in the form a read converted it to, as
 * user.erl does, so a mode or encoding change between reads can show where
 * a chunk ended; for a file, clause's chunks end where OTP's do. */
#define IO_CHUNK_BYTES 65536

struct io_state {
    /* --- servers: started once, under servers_lock; read lock-free --- */
    pthread_mutex_t servers_lock;
    io_server_start_fn start; /* NULL: the runtime has no servers */
    _Atomic term servers[IO_SERVER_COUNT];
    _Atomic bool unicode[3]; /* per output device (io_device), false: latin1 */

    /* --- the I/O thread (lock) --- */
    pthread_mutex_t lock;
    pthread_cond_t asked;
    pthread_t thread;
    bool started;
    bool stop;
    bool eof;                   /* the input ended: every later request gets eof */
    term reader;                /* the pid that asked for the next chunk, THE_NON_VALUE when none */
    pthread_mutex_t input_lock; /* one reader of the input at a time (io_read_ready) */
    int input_fd;
    int stop_pipe[2]; /* written once to interrupt the thread's poll */
};

struct io_state *io_state_new(void)
{
    struct io_state *io = calloc(1, sizeof *io);
    if (!io)
        return NULL;
    pthread_mutex_init(&io->servers_lock, NULL);
    pthread_mutex_init(&io->lock, NULL);
    pthread_mutex_init(&io->input_lock, NULL);
    pthread_cond_init(&io->asked, NULL);
    for (int i = 0; i < IO_SERVER_COUNT; i++)
        atomic_init(&io->servers[i], THE_NON_VALUE);
    io->reader = THE_NON_VALUE;
    io->input_fd = STDIN_FILENO;
    io->stop_pipe[0] = io->stop_pipe[1] = -1;
    return io;
}

static _Atomic bool stdout_pending;

void io_stdout_written(void) { atomic_store_explicit(&stdout_pending, true, memory_order_relaxed); }

void io_stdout_flush_pending(void)
{
    if (atomic_load_explicit(&stdout_pending, memory_order_relaxed) &&
        atomic_exchange_explicit(&stdout_pending, false, memory_order_relaxed))
        fflush(stdout);
}

void io_state_free(struct io_state *io)
{
    if (!io)
        return;
    pthread_cond_destroy(&io->asked);
    pthread_mutex_destroy(&io->lock);
    pthread_mutex_destroy(&io->input_lock);
    pthread_mutex_destroy(&io->servers_lock);
    free(io);
}

/* ---- servers ---- */

void io_servers_enable(struct sched *s, io_server_start_fn start) { s->io->start = start; }

bool io_servers_enabled(const struct sched *s) { return s->io->start != NULL; }

term io_server_started(const struct sched *s, enum io_server which)
{
    return atomic_load_explicit(&s->io->servers[which], memory_order_acquire);
}

term io_server_pid(struct process *self, enum io_server which)
{
    struct io_state *io = self->sched->io;
    term pid = io_server_started(self->sched, which);
    if (is_value(pid) || !io->start)
        return pid;
    /* Two processes may ask at once: one starts it, the other waits for
     * that spawn and finds its pid. */
    pthread_mutex_lock(&io->servers_lock);
    pid = atomic_load_explicit(&io->servers[which], memory_order_relaxed);
    if (is_non_value(pid)) {
        pid = io->start(self, which);
        atomic_store_explicit(&io->servers[which], pid, memory_order_release);
    }
    pthread_mutex_unlock(&io->servers_lock);
    return pid;
}

term io_group_leader(struct process *self, term leader)
{
    return leader == IO_LEADER_USER ? io_server_pid(self, IO_SERVER_USER) : leader;
}

bool io_device_unicode(const struct sched *s, enum io_device d)
{
    return atomic_load_explicit(&s->io->unicode[d], memory_order_relaxed);
}

void io_device_set_unicode(struct sched *s, enum io_device d, bool unicode)
{
    atomic_store_explicit(&s->io->unicode[d], unicode, memory_order_relaxed);
}

/* ---- the I/O thread ---- */

/* Sends the reader {clause_stdin, {data, Bytes}}, or {clause_stdin, eof}
 * when n is 0. The message is built on a scratch heap and copied into a
 * buffer before the executor mutex is taken. */
static void deliver(struct sched *s, term reader, const uint8_t *bytes, size_t n)
{
    heap_t scratch;
    if (!heap_init(&scratch, 0, 0))
        goto failed;
    term payload = A(eof);
    if (n) {
        term bin = bin_from_bytes(&scratch, bytes, n);
        payload = is_value(bin) ? heap_tuple2(&scratch, A(data), bin) : bin;
    }
    term msg = is_value(payload) ? heap_tuple2(&scratch, A(clause_stdin), payload) : payload;
    struct arrival *buffer = is_value(msg) ? message_buffer_new(msg) : NULL;
    heap_destroy(&scratch);
    if (!buffer)
        goto failed;
    rt_lock(&s->exec_lock);
    struct process *p = sched_live_locked(s, reader);
    bool ok = true;
    if (p)
        ok = message_buffer_deliver_locked(s, p, buffer);
    else
        message_buffer_free(buffer); /* the reader ended: its chunk goes with it */
    if (!ok)
        sched_runtime_failure_locked(s, reader, "its heap refused standard input");
    rt_unlock(&s->exec_lock);
    return;
failed:
    fputs("clause: runtime failure: out of memory for standard input\n", stderr);
    rt_lock(&s->rq_lock);
    sched_stop_locked(s, EXIT_RUNTIME_FAILURE);
    rt_unlock(&s->rq_lock);
}

ssize_t io_read_ready(struct sched *s, int fd, void *buf, size_t size)
{
    struct io_state *io = s->io;
    pthread_mutex_lock(&io->input_lock);
    struct pollfd ready = {fd, POLLIN, 0};
    int r;
    do
        r = poll(&ready, 1, 0);
    while (r < 0 && errno == EINTR);
    ssize_t n = -1;
    if (r == 0)
        errno = EAGAIN;
    else
        do
            n = read(fd, buf, size);
        while (n < 0 && errno == EINTR);
    pthread_mutex_unlock(&io->input_lock);
    return n;
}

/* One read of the input: its byte count (0 at its end), or -1 when the
 * program is ending. An error reads as the end, as a closed descriptor
 * does: OTP's user server then sees its port close. */
static ssize_t read_chunk(struct sched *s, uint8_t *buf)
{
    struct io_state *io = s->io;
    for (;;) {
        struct pollfd fds[2] = {{io->input_fd, POLLIN, 0}, {io->stop_pipe[0], POLLIN, 0}};
        int ready = poll(fds, 2, -1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            return 0;
        if (fds[1].revents)
            return -1;
        if (fds[0].revents & POLLNVAL)
            return 0;
        if (!fds[0].revents)
            continue;
        ssize_t n = io_read_ready(s, io->input_fd, buf, IO_CHUNK_BYTES);
        if (n >= 0)
            return n;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return 0;
        /* EAGAIN: a port on the same input read it first, or a descriptor
         * left non-blocking by whoever started us; poll again. */
    }
}

static void *io_thread_main(void *arg)
{
    struct sched *s = arg;
    struct io_state *io = s->io;
    uint8_t *buf = malloc(IO_CHUNK_BYTES);
    pthread_mutex_lock(&io->lock);
    for (;;) {
        while (!io->stop && is_non_value(io->reader))
            pthread_cond_wait(&io->asked, &io->lock);
        if (io->stop)
            break;
        term reader = io->reader;
        bool eof = io->eof;
        pthread_mutex_unlock(&io->lock);
        ssize_t n = eof || !buf ? 0 : read_chunk(s, buf);
        pthread_mutex_lock(&io->lock);
        if (n < 0)
            break;
        if (n == 0)
            io->eof = true;
        /* Cleared before the delivery: the reader asks again only after it
         * got this chunk. */
        io->reader = THE_NON_VALUE;
        pthread_mutex_unlock(&io->lock);
        deliver(s, reader, buf, (size_t)n);
        pthread_mutex_lock(&io->lock);
    }
    pthread_mutex_unlock(&io->lock);
    free(buf);
    return NULL;
}

void io_thread_set_input(struct sched *s, int fd) { s->io->input_fd = fd; }

bool io_thread_request(struct process *self)
{
    struct sched *s = self->sched;
    struct io_state *io = s->io;
    bool ok = true;
    pthread_mutex_lock(&io->lock);
    if (s->schedule) {
        /* No thread: the controller reads when this step ends. */
        if (!io->started && fcntl(io->input_fd, F_GETFD) < 0)
            io->eof = true;
        io->started = true;
        io->reader = self->pid;
        pthread_mutex_unlock(&io->lock);
        return true;
    }
    if (!io->started && !io->stop) {
        /* A closed standard input reads as empty (checked before the pipe,
         * which would otherwise take its number). */
        if (fcntl(io->input_fd, F_GETFD) < 0)
            io->eof = true;
        ok = pipe2(io->stop_pipe, O_CLOEXEC) == 0;
        if (ok && pthread_create(&io->thread, NULL, io_thread_main, s) != 0) {
            close(io->stop_pipe[0]);
            close(io->stop_pipe[1]);
            io->stop_pipe[0] = io->stop_pipe[1] = -1;
            ok = false;
        }
        io->started = ok;
    }
    if (ok && is_non_value(io->reader)) {
        io->reader = self->pid;
        pthread_cond_signal(&io->asked);
    }
    pthread_mutex_unlock(&io->lock);
    return ok;
}

bool io_thread_serve_scheduled(struct sched *s)
{
    struct io_state *io = s->io;
    pthread_mutex_lock(&io->lock);
    term reader = io->reader;
    io->reader = THE_NON_VALUE;
    bool eof = io->eof;
    pthread_mutex_unlock(&io->lock);
    if (is_non_value(reader))
        return false;
    uint8_t *buf = eof ? NULL : malloc(IO_CHUNK_BYTES);
    /* Without a stop pipe (-1, which poll skips) the read waits for input. */
    ssize_t n = buf ? read_chunk(s, buf) : 0;
    if (n <= 0) {
        n = 0;
        pthread_mutex_lock(&io->lock);
        io->eof = true;
        pthread_mutex_unlock(&io->lock);
    }
    deliver(s, reader, buf, (size_t)n);
    free(buf);
    return true;
}

void io_thread_stop(struct sched *s)
{
    struct io_state *io = s->io;
    if (!io || s->schedule)
        return;
    pthread_mutex_lock(&io->lock);
    bool started = io->started;
    io->stop = true;
    io->started = false;
    pthread_cond_signal(&io->asked);
    pthread_mutex_unlock(&io->lock);
    if (!started)
        return;
    /* A byte in the pipe wakes a poll that waits for input. */
    ssize_t w;
    do
        w = write(io->stop_pipe[1], "", 1);
    while (w < 0 && errno == EINTR);
    pthread_join(io->thread, NULL);
    close(io->stop_pipe[0]);
    close(io->stop_pipe[1]);
    io->stop_pipe[0] = io->stop_pipe[1] = -1;
}
