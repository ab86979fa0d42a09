/*
 * io_thread.h — standard input and the runtime's I/O servers.
 *
 * A program run by the clause command has two I/O servers, as OTP under
 * erl -noshell has: `user` (standard input and output, every process's
 * group leader unless it sets another) and `standard_error`. They are
 * Erlang processes (core/lib/clause_io.erl) that speak OTP's I/O protocol;
 * this file keeps what they need of the runtime:
 *
 *  - their identities, started on first use: the runtime never spawns them
 *    for a program that does no I/O through the protocol (io:format to
 *    standard_io and standard_error writes at once, without them). Until
 *    the user server starts, a process whose group leader it is holds
 *    IO_LEADER_USER, which io_group_leader resolves (starting it).
 *  - the encodings of standard output and standard error (io:setopts'
 *    {encoding, E}), which the builtins that write at once also follow.
 *  - the I/O thread, which reads standard input for the user server. A read
 *    may block for ever (a terminal, a pipe): it never happens on a worker.
 *    The server asks for the next chunk (io_thread_request) and waits in a
 *    receive; the thread reads and sends it {clause_stdin, {data, Binary}},
 *    or {clause_stdin, eof} at the end of the input (and from then on), as
 *    the timer thread queues a process whose timeout fired. The thread
 *    starts with the first request and reads only when asked, so nothing is
 *    read that the program did not ask for.
 */
#ifndef CLAUSE_IO_THREAD_H
#define CLAUSE_IO_THREAD_H

#include "rt/process.h"
#include "term/atom.h"

#include <stdbool.h>
#include <sys/types.h>

struct sched;

enum io_server {
    IO_SERVER_USER,
    IO_SERVER_STANDARD_ERROR,
    IO_SERVER_COUNT,
};

/* Output devices, numbered as their file descriptors. */
enum io_device {
    IO_DEVICE_STDOUT = 1,
    IO_DEVICE_STDERR = 2,
};

/* The group leader of a process whose leader is the user server before it
 * started (the main process's, and what its children inherit). */
#define IO_LEADER_USER A(user)

/* Spawns the server `which` (self, running, is its parent) and registers
 * its name; its pid, or THE_NON_VALUE when memory was refused. */
typedef term (*io_server_start_fn)(struct process *self, enum io_server which);

/* Before sched_run: the runtime gets I/O servers, started by `start` on
 * first use, and a parentless process (the main one) gets the user server
 * as its group leader. Without this call (embedding hosts, tests) a
 * parentless process leads itself and there are no servers. */
void io_servers_enable(struct sched *s, io_server_start_fn start);
bool io_servers_enabled(const struct sched *s);

/* The server's pid, started now if it never was (self is running; it may
 * take a moment: a spawn). THE_NON_VALUE when the runtime has no servers or
 * memory was refused. A server that ended is not started again. */
term io_server_pid(struct process *self, enum io_server which);
/* The server's pid if it started, else THE_NON_VALUE (any thread, no lock). */
term io_server_started(const struct sched *s, enum io_server which);

/* A group leader as a process's field holds it, resolved to a pid:
 * IO_LEADER_USER becomes the user server's pid, started now if needed
 * (THE_NON_VALUE when memory was refused). */
term io_group_leader(struct process *self, term leader);

/* Whether the device writes UTF-8 ({encoding, unicode}) rather than latin1
 * (the default, as OTP 25's user and standard_error under -noshell). Any
 * thread. */
bool io_device_unicode(const struct sched *s, enum io_device d);
void io_device_set_unicode(struct sched *s, enum io_device d, bool unicode);

/* Asks the I/O thread for the next chunk of standard input for self: it
 * sends self {clause_stdin, {data, Binary}} (at most 64 KiB) or
 * {clause_stdin, eof}. Nothing when a chunk is already asked for (its
 * message goes to the process that asked). Starts the thread on first use;
 * false when it cannot be started. */
bool io_thread_request(struct process *self);

/* ---- the executor's side ---- */

/* What the I/O thread reads instead of standard input (tests: a pipe), set
 * before anything asks for input. */
void io_thread_set_input(struct sched *s, int fd);

/* One read of fd, which the I/O thread and an {fd, In, Out} port may both
 * read (standard input: whoever reads first gets the bytes). It reads only
 * when fd has input (or its end) now, under a lock every such reader
 * takes, so a reader that lost the race never blocks in read(2): -1 with
 * errno EAGAIN then. Otherwise read(2)'s result. */
ssize_t io_read_ready(struct sched *s, int fd, void *buf, size_t size);

/* Under --schedule there is no I/O thread: a request waits for the end of
 * the step that made it, when the controller calls this (no lock held) to
 * read the chunk on its own thread, waiting for input if need be, and
 * deliver it. True when a request was pending. */
bool io_thread_serve_scheduled(struct sched *s);

struct io_state;
/* At sched_create: nothing started, nothing read. NULL when memory was
 * refused. */
struct io_state *io_state_new(void);
/* After the workers stopped: stops and joins the thread if it started (a
 * read that blocks is interrupted). Idempotent. */
void io_thread_stop(struct sched *s);
void io_state_free(struct io_state *io);

/* Standard output that the builtins write at once goes through stdio's
 * buffer (a write(2) a buffer, not one a call, when it is not a terminal).
 * io_stdout_written notes that some may wait there, and
 * io_stdout_flush_pending, which a worker calls as it goes to sleep,
 * writes it out: a program that waits has all it printed on the pipe, as
 * on OTP, not only once it ends (or never, when it is killed). */
void io_stdout_written(void);
void io_stdout_flush_pending(void);

#endif
