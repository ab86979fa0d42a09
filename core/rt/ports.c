/*
 * ports.c — ports to external programs (see ports.h).
 *
 * The open ports are a list in the order opened, under the executor mutex
 * like everything else here; a port is looked up by walking it (programs
 * hold a few ports, not thousands). A port owns its child's pid until the
 * child is reaped, and its two pipe ends (non-blocking, close-on-exec).
 * When a port ends, its child, if still unreaped, moves to the orphans: a
 * list of pids the poller reaps (waitpid WNOHANG every few milliseconds
 * while there are any) and ports_stop kills and reaps. A pid is signalled
 * only while it is unreaped, under the mutex, so it is never a reused one.
 *
 * The poller builds its poll set under the mutex, waits without it, and
 * services the ready pipes under it again: a read (at most 64 KiB) is
 * framed into messages delivered at once, so a port's messages keep their
 * order, and nothing a worker closed meanwhile is read. A worker that
 * changes what the poller must wait for (a queued write, a closed port)
 * writes a byte into the wake pipe, and the poller builds its set again.
 *
 * Exit signals: a port ended by a worker (port_close, an exit signal, its
 * owner's end) signals its links from that worker, with any reason; the
 * poller ends ports only with reason normal (the child's output ended),
 * which ends no process, so it needs no worker.
 *
 * An fd port's descriptors are its own: In dup'ed (a read shares the
 * offset and the input with the runtime's other readers, io_read_ready
 * keeps the poller from blocking when another reader was first); Out
 * dup'ed for a regular file (sharing its offset with the runtime's own
 * writes), else opened again through /proc/self/fd as a new open file
 * description, non-blocking, so the runtime's own writes to that fd stay
 * blocking while the port's are queued for the poller as a pipe's.
 */
#include "rt/ports.h"

#include "rt/internal.h"
#include "rt/io_thread.h"
#include "rt/ram_file.h"
#include "rt/signals.h"
#include "term/atom.h"
#include "term/binary.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The most one read takes, as OTP's spawn driver. */
#define PORT_READ_BYTES 65536
/* How often the poller looks for a child whose exit status a port waits
 * for, and for the children of ended ports, while there are any. */
#define PORT_STATUS_POLL_MS 5
#define PORT_ORPHAN_POLL_MS 50

struct port_monitor {
    term watcher;
    uint64_t ref_low, ref_high;
};

struct port {
    struct port *next;
    term id;
    term connected;
    char *name;
    pid_t os_pid; /* 0 for an fd port, which has no child (reaped from the start) */
    bool fd_port;
    struct ram_file *ram; /* a ram_file_drv port's file, else NULL */
    bool out_bad;         /* an fd port whose Out is not open: its first command ends it */
    bool reaped;
    int status; /* the child's exit status once reaped (128 + signal when killed) */
    int in_fd;  /* the child's output, -1 once it ended */
    int out_fd; /* the child's input, -1 without one */
    bool binary, eof_option, exit_status_option;
    unsigned packet;
    size_t line;
    bool output_ended; /* in_fd read its end */
    bool eof_sent, status_sent;
    uint8_t *pending; /* a partial line or packet */
    size_t pending_len, pending_cap;
    uint8_t *queued; /* input for the child that the pipe did not take yet */
    size_t queued_len, queued_off;
    uint64_t input, output;
    term *links;
    size_t link_count, link_cap;
    struct port_monitor *monitors;
    size_t monitor_count, monitor_cap;
};

struct orphan {
    struct orphan *next;
    pid_t pid;
};

struct port_state {
    struct port *first, *last; /* open ports, oldest first */
    size_t count;
    struct orphan *orphans;
    uint64_t next_number;
    _Atomic bool used;    /* a port was opened: process ends look at the ports */
    _Atomic bool fd_used; /* an fd port was opened: commands flush standard output first */
    /* the poller's life: executor mutex */
    bool started, stop;
    pthread_t thread;
    int wake[2];
};

struct port_state *ports_state_new(void)
{
    struct port_state *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->wake[0] = ps->wake[1] = -1;
    ps->next_number = 1;
    return ps;
}

void ports_state_free(struct port_state *ps)
{
    if (!ps)
        return;
    free(ps);
}

/* ---- the port list ---- */

static struct port *find_locked(struct port_state *ps, term id)
{
    for (struct port *p = ps->first; p; p = p->next)
        if (p->id == id)
            return p;
    return NULL;
}

static void list_remove(struct port_state *ps, struct port *port)
{
    struct port **at = &ps->first, *prev = NULL;
    while (*at != port) {
        prev = *at;
        at = &(*at)->next;
    }
    *at = port->next;
    if (ps->last == port)
        ps->last = prev;
    ps->count--;
}

static void port_free(struct port *port)
{
    ram_file_free(port->ram);
    free(port->name);
    free(port->pending);
    free(port->queued);
    free(port->links);
    free(port->monitors);
    free(port);
}

static void wake_poller(struct port_state *ps)
{
    if (ps->wake[1] < 0)
        return;
    ssize_t w;
    do
        w = write(ps->wake[1], "", 1);
    while (w < 0 && errno == EINTR);
    /* EAGAIN: bytes are waiting already, which wakes it as well. */
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Growable arrays of links and monitors. */
static bool grow(void **items, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 4;
    void *more = realloc(*items, n * size);
    if (!more)
        return false;
    *items = more;
    *cap = n;
    return true;
}

static bool link_add(struct port *port, term pid)
{
    for (size_t i = 0; i < port->link_count; i++)
        if (port->links[i] == pid)
            return true;
    if (!grow((void **)&port->links, &port->link_cap, port->link_count, sizeof *port->links))
        return false;
    port->links[port->link_count++] = pid;
    return true;
}

static bool link_remove(struct port *port, term pid)
{
    for (size_t i = 0; i < port->link_count; i++)
        if (port->links[i] == pid) {
            memmove(&port->links[i], &port->links[i + 1], (port->link_count - i - 1) * sizeof *port->links);
            port->link_count--;
            return true;
        }
    return false;
}

/* ---- messages ---- */

/* Delivers msg (any term readable now) to the live process pid as a send
 * from the runtime; dropped when pid ended. Executor mutex held. */
static void send_locked(struct sched *s, term pid, term msg)
{
    struct process *p = is_value(msg) ? sched_live_locked(s, pid) : NULL;
    if (!p)
        return;
    struct arrival *buffer = message_buffer_new(msg);
    if (!buffer || !message_buffer_deliver_locked(s, p, buffer))
        sched_runtime_failure_locked(s, pid, "its heap refused a port's message");
}

/* {Port, Payload} to the port's connected process. */
static void send_to_connected_locked(struct sched *s, struct port *port, term payload)
{
    term msg[3] = {make_header(SUBTAG_TUPLE, 2), port->id, payload};
    if (is_value(payload))
        send_locked(s, port->connected, make_boxed(msg));
}

/* Data as the port's messages carry it: a binary or a list of bytes. */
static term data_term(heap_t *h, const struct port *port, const uint8_t *bytes, size_t n)
{
    return port->binary ? bin_from_bytes(h, bytes, n) : heap_string(h, (const char *)bytes, n);
}

/* {Port, {data, Data}}, or {Port, {data, {Eol, Data}}} when eol is an
 * atom (line mode). */
static void send_data_locked(struct sched *s, struct port *port, term eol, const uint8_t *bytes, size_t n)
{
    heap_t scratch;
    if (!heap_init(&scratch, 0, 0)) {
        sched_runtime_failure_locked(s, port->connected, "out of memory for a port's data");
        return;
    }
    term data = data_term(&scratch, port, bytes, n);
    if (is_value(data) && is_atom(eol))
        data = heap_tuple2(&scratch, eol, data);
    term payload = is_value(data) ? heap_tuple2(&scratch, A(data), data) : data;
    if (is_non_value(payload))
        sched_runtime_failure_locked(s, port->connected, "out of memory for a port's data");
    send_to_connected_locked(s, port, payload);
    heap_destroy(&scratch);
}

static bool pending_append(struct port *port, uint8_t byte)
{
    if (port->pending_len == port->pending_cap) {
        size_t cap = port->pending_cap ? port->pending_cap * 2 : 256;
        uint8_t *more = realloc(port->pending, cap);
        if (!more)
            return false;
        port->pending = more;
        port->pending_cap = cap;
    }
    port->pending[port->pending_len++] = byte;
    return true;
}

/* Line mode: a line of up to L bytes is {eol, Line}; a longer one comes
 * in pieces of L bytes as {noeol, Piece}, its last piece as eol. */
static void frame_lines_locked(struct sched *s, struct port *port, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (bytes[i] == '\n') {
            send_data_locked(s, port, A(eol), port->pending, port->pending_len);
            port->pending_len = 0;
            continue;
        }
        if (port->pending_len == port->line) {
            send_data_locked(s, port, A(noeol), port->pending, port->pending_len);
            port->pending_len = 0;
        }
        if (!pending_append(port, bytes[i]))
            sched_runtime_failure_locked(s, port->connected, "out of memory for a port's line");
    }
}

static size_t packet_length(const uint8_t *header, unsigned size)
{
    size_t len = 0;
    for (unsigned i = 0; i < size; i++)
        len = len << 8 | header[i];
    return len;
}

/* Packet mode: each packet is its header's length of bytes after it. */
static void frame_packets_locked(struct sched *s, struct port *port, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!pending_append(port, bytes[i])) {
            sched_runtime_failure_locked(s, port->connected, "out of memory for a port's packet");
            return;
        }
    size_t at = 0;
    while (port->pending_len - at >= port->packet) {
        size_t len = packet_length(port->pending + at, port->packet);
        if (port->pending_len - at - port->packet < len)
            break;
        send_data_locked(s, port, THE_NON_VALUE, port->pending + at + port->packet, len);
        at += port->packet + len;
    }
    memmove(port->pending, port->pending + at, port->pending_len - at);
    port->pending_len -= at;
}

static void deliver_output_locked(struct sched *s, struct port *port, const uint8_t *bytes, size_t n)
{
    port->input += n;
    if (port->line)
        frame_lines_locked(s, port, bytes, n);
    else if (port->packet)
        frame_packets_locked(s, port, bytes, n);
    else
        send_data_locked(s, port, THE_NON_VALUE, bytes, n);
}

/* ---- children ---- */

static int decode_status(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}

/* Whether pid ended (reaped now, its status in *status). */
static bool reap(pid_t pid, int *status, bool wait)
{
    int raw;
    pid_t r;
    do
        r = waitpid(pid, &raw, wait ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        return false;
    if (status)
        *status = r == pid ? decode_status(raw) : 255;
    return true; /* reaped, or no longer ours (ECHILD) */
}

/* The port's child goes to the orphans (killed first when kill_child). */
static void release_child_locked(struct port_state *ps, struct port *port, bool kill_child)
{
    if (port->reaped)
        return;
    if (kill_child)
        kill(port->os_pid, SIGKILL);
    struct orphan *o = malloc(sizeof *o);
    if (!o) {
        /* No record to reap it later: wait for it now (it was killed, or
         * its output ended). */
        if (!kill_child)
            kill(port->os_pid, SIGKILL);
        reap(port->os_pid, NULL, true);
        return;
    }
    o->pid = port->os_pid;
    o->next = ps->orphans;
    ps->orphans = o;
    port->reaped = true;
}

static void reap_orphans_locked(struct port_state *ps)
{
    struct orphan **at = &ps->orphans;
    while (*at) {
        struct orphan *o = *at;
        if (reap(o->pid, NULL, false)) {
            *at = o->next;
            free(o);
        } else {
            at = &o->next;
        }
    }
}

/* ---- the end of a port ---- */

/* The port ends with reason (a term readable now): it leaves the list, its
 * child goes (killed when kill_child), its links get exit signals from it
 * and its watchers 'DOWN'. w: the worker acting, or NULL on the poller
 * (reason normal only). Ending linked processes may end more ports:
 * nothing here keeps a pointer into the list across the signals. */
static void port_end_locked(struct sched *s, struct worker *w, struct port *port, term reason, bool kill_child)
{
    struct port_state *ps = s->ports;
    list_remove(ps, port);
    close_fd(&port->in_fd);
    close_fd(&port->out_fd);
    release_child_locked(ps, port, kill_child);
    wake_poller(ps);
    for (size_t i = 0; i < port->link_count; i++) {
        struct process *target = sched_live_locked(s, port->links[i]);
        if (target)
            signals_exit_locked(s, w, target, port->id, reason, false);
    }
    for (size_t i = 0; i < port->monitor_count; i++) {
        const struct port_monitor *m = &port->monitors[i];
        term ref[1 + REF_WORDS] = {make_header(SUBTAG_REF, REF_WORDS), m->ref_low, m->ref_high};
        term down[6] = {make_header(SUBTAG_TUPLE, 5), A(DOWN), make_boxed(ref), A(port), port->id, reason};
        send_locked(s, m->watcher, make_boxed(down));
    }
    port_free(port);
}

/* ---- the poller ---- */

/* The child's output ended: the port says so as its options ask, and ends
 * unless it has eof, or waits for the child's status. */
static void settle_output_end_locked(struct sched *s, struct port *port)
{
    if (!port->reaped && reap(port->os_pid, &port->status, false))
        port->reaped = true;
    if (port->eof_option && !port->eof_sent) {
        port->eof_sent = true;
        send_to_connected_locked(s, port, A(eof));
    }
    if (port->exit_status_option && !port->status_sent) {
        if (!port->reaped)
            return;
        port->status_sent = true;
        term status[3] = {make_header(SUBTAG_TUPLE, 2), A(exit_status), make_small(port->status)};
        send_to_connected_locked(s, port, make_boxed(status));
    }
    if (!port->eof_option)
        port_end_locked(s, NULL, port, A(normal), false);
}

static bool wants_settling(const struct port *port)
{
    return port->output_ended &&
           (!port->eof_option || !port->eof_sent || (port->exit_status_option && !port->status_sent));
}

/* The ports whose output ended: their eof, status and end. Ending one may
 * end others (through links), so they are named first, then looked up. */
static void settle_ended_outputs_locked(struct sched *s, term **ids, size_t *cap)
{
    struct port_state *ps = s->ports;
    size_t n = 0;
    for (struct port *port = ps->first; port && n < *cap; port = port->next)
        if (wants_settling(port))
            (*ids)[n++] = port->id;
    for (size_t i = 0; i < n; i++) {
        struct port *port = find_locked(ps, (*ids)[i]);
        if (port)
            settle_output_end_locked(s, port);
    }
}

static void read_output_locked(struct sched *s, struct port *port, uint8_t *buf)
{
    ssize_t n;
    if (port->fd_port)
        n = io_read_ready(s, port->in_fd, buf, PORT_READ_BYTES);
    else
        do
            n = read(port->in_fd, buf, PORT_READ_BYTES);
        while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n > 0) {
        deliver_output_locked(s, port, buf, (size_t)n);
        return;
    }
    /* Its end (or an error, which reads as one): a partial line or packet
     * is dropped, as OTP 25 drops it. */
    close_fd(&port->in_fd);
    port->output_ended = true;
    port->pending_len = 0;
}

/* Writes what the pipe takes of the queued input. A child that closed its
 * input loses the rest, as its end will tell. */
static void write_queued_locked(struct port *port)
{
    while (port->queued_off < port->queued_len) {
        ssize_t n = write(port->out_fd, port->queued + port->queued_off, port->queued_len - port->queued_off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0) {
            close_fd(&port->out_fd);
            break;
        }
        port->queued_off += (size_t)n;
    }
    port->queued_len = port->queued_off = 0;
}

/* The poll set: the wake pipe, then each port's pipes that have something
 * to wait for. ports[i] is the port of fds[i] (NULL for the wake pipe). */
static size_t build_poll_set_locked(struct port_state *ps, struct pollfd **fds, term **ids, size_t *cap, int *timeout)
{
    size_t need = 1 + 2 * ps->count;
    if (need > *cap) {
        struct pollfd *f = realloc(*fds, need * sizeof **fds);
        if (f)
            *fds = f;
        term *i = realloc(*ids, need * sizeof **ids);
        if (i)
            *ids = i;
        if (!f || !i)
            need = 1; /* only the wake pipe: the next round tries again */
        else
            *cap = need;
    }
    size_t n = 0;
    (*fds)[n] = (struct pollfd){ps->wake[0], POLLIN, 0};
    (*ids)[n++] = THE_NON_VALUE;
    *timeout = ps->orphans ? PORT_ORPHAN_POLL_MS : -1;
    for (struct port *p = ps->first; p && n + 2 <= *cap; p = p->next) {
        if (p->in_fd >= 0) {
            (*fds)[n] = (struct pollfd){p->in_fd, POLLIN, 0};
            (*ids)[n++] = p->id;
        }
        if (p->out_fd >= 0 && p->queued_len) {
            (*fds)[n] = (struct pollfd){p->out_fd, POLLOUT, 0};
            (*ids)[n++] = p->id;
        }
        if (wants_settling(p))
            *timeout = PORT_STATUS_POLL_MS; /* waits for its child's status */
    }
    return n;
}

static void drain_wake(struct port_state *ps)
{
    char buf[64];
    while (read(ps->wake[0], buf, sizeof buf) > 0)
        ;
}

static void *poller_main(void *arg)
{
    struct sched *s = arg;
    struct port_state *ps = s->ports;
    uint8_t *buf = malloc(PORT_READ_BYTES);
    size_t cap = 16;
    struct pollfd *fds = malloc(cap * sizeof *fds);
    term *ids = malloc(cap * sizeof *ids);
    rt_lock(&s->exec_lock);
    while (!ps->stop && buf && fds && ids) {
        int timeout;
        size_t n = build_poll_set_locked(ps, &fds, &ids, &cap, &timeout);
        rt_unlock(&s->exec_lock);
        int ready = poll(fds, n, timeout);
        rt_lock(&s->exec_lock);
        if (ready < 0 && errno != EINTR)
            break;
        drain_wake(ps);
        /* Each ready pipe, looked up again: a worker may have closed its
         * port meanwhile, and the number may belong to another now. */
        for (size_t i = 1; ready > 0 && i < n; i++) {
            struct port *port = fds[i].revents ? find_locked(ps, ids[i]) : NULL;
            if (!port)
                continue;
            if (fds[i].events == POLLIN && port->in_fd == fds[i].fd)
                read_output_locked(s, port, buf);
            else if (fds[i].events == POLLOUT && port->out_fd == fds[i].fd)
                write_queued_locked(port);
        }
        settle_ended_outputs_locked(s, &ids, &cap);
        reap_orphans_locked(ps);
    }
    rt_unlock(&s->exec_lock);
    free(fds);
    free(ids);
    free(buf);
    return NULL;
}

/* Starts the poller with the first port (executor mutex held). */
static bool poller_start_locked(struct sched *s)
{
    struct port_state *ps = s->ports;
    if (ps->started)
        return true;
    if (ps->stop || pipe2(ps->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        return false;
    /* A write into a pipe whose reader ended must be an error (EPIPE), not
     * the end of the runtime: children get the default back (spawn_child). */
    signal(SIGPIPE, SIG_IGN);
    if (pthread_create(&ps->thread, NULL, poller_main, s) != 0) {
        close_fd(&ps->wake[0]);
        close_fd(&ps->wake[1]);
        return false;
    }
    ps->started = true;
    return true;
}

/* ---- opening ---- */

static bool set_nonblocking(int fd) { return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0; }

/* Starts the child with its pipe ends as its fds. 0 or an errno. */
static int spawn_child(const struct port_spec *spec, int child_in, int child_out, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int err = posix_spawn_file_actions_init(&actions);
    if (err)
        return err;
    err = posix_spawnattr_init(&attr);
    if (err) {
        posix_spawn_file_actions_destroy(&actions);
        return err;
    }
    int in_target = spec->use_stdio ? 0 : 3, out_target = spec->use_stdio ? 1 : 4;
    if (child_in >= 0)
        err = posix_spawn_file_actions_adddup2(&actions, child_in, in_target);
    else if (spec->use_stdio)
        err = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    /* Without `in` the child writes to the runtime's own output, as on OTP. */
    if (!err && child_out >= 0)
        err = posix_spawn_file_actions_adddup2(&actions, child_out, out_target);
    if (!err && spec->stderr_to_stdout && child_out >= 0)
        err = posix_spawn_file_actions_adddup2(&actions, child_out, 2);
    if (!err && spec->cd)
        err = posix_spawn_file_actions_addchdir_np(&actions, spec->cd);
    /* The child starts with default signal dispositions (SIGPIPE is ignored
     * here) and nothing blocked, whatever this thread blocks. */
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    if (!err)
        err = posix_spawnattr_setsigmask(&attr, &none);
    if (!err)
        err = posix_spawnattr_setsigdefault(&attr, &defaults);
    if (!err)
        err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (!err)
        err = posix_spawn(pid, spec->file, &actions, &attr, spec->argv, spec->envp);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return err;
}

static struct port *port_new(const struct port_spec *spec, term owner)
{
    struct port *port = calloc(1, sizeof *port);
    char *name = port ? strdup(spec->name) : NULL;
    if (!name || !link_add(port, owner)) {
        if (port)
            free(port->links);
        free(port);
        free(name);
        return NULL;
    }
    port->name = name;
    port->connected = owner;
    port->in_fd = port->out_fd = -1;
    port->binary = spec->binary;
    port->eof_option = spec->eof;
    port->exit_status_option = spec->exit_status;
    port->packet = spec->packet;
    port->line = spec->line;
    return port;
}

/* The port joins the list under a new identifier, which it returns. */
static term port_join(struct sched *s, struct port *port)
{
    struct port_state *ps = s->ports;
    rt_lock(&s->exec_lock);
    port->id = make_port(ps->next_number++);
    if (ps->last)
        ps->last->next = port;
    else
        ps->first = port;
    ps->last = port;
    ps->count++;
    atomic_store_explicit(&ps->used, true, memory_order_relaxed);
    wake_poller(ps);
    term id = port->id;
    rt_unlock(&s->exec_lock);
    return id;
}

/* An fd port's own descriptor for fd (see the top of this file): -1 with
 * *error 0 when fd is not open for reading (output: writing), -1 with the
 * errno when it could not be had. */
static int own_descriptor(int fd, bool output, int *error)
{
    *error = 0;
    int flags = fcntl(fd, F_GETFL);
    int mode = flags & O_ACCMODE;
    if (flags < 0 || (mode != O_RDWR && mode != (output ? O_WRONLY : O_RDONLY)))
        return -1;
    struct stat st;
    if (output && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        char path[32];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        int own = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (own >= 0)
            return own;
    }
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0)
        *error = errno;
    return own;
}

static term open_fd_port(struct sched *s, struct port *port, const struct port_spec *spec, int *error)
{
    port->fd_port = true;
    port->reaped = true;
    int err = 0;
    if (spec->in)
        port->in_fd = own_descriptor(spec->fd_in, false, &err);
    if (!err && spec->out) {
        port->out_fd = own_descriptor(spec->fd_out, true, &err);
        port->out_bad = port->out_fd < 0;
    }
    if (!err) {
        rt_lock(&s->exec_lock);
        if (!poller_start_locked(s))
            err = EAGAIN;
        rt_unlock(&s->exec_lock);
    }
    if (err) {
        close_fd(&port->in_fd);
        close_fd(&port->out_fd);
        port_free(port);
        *error = err;
        return THE_NON_VALUE;
    }
    atomic_store_explicit(&s->ports->fd_used, true, memory_order_relaxed);
    return port_join(s, port);
}

term ports_open(struct process *self, const struct port_spec *spec, int *error)
{
    struct sched *s = self->sched;
    struct port *port = port_new(spec, self->pid);
    if (!port) {
        *error = ENOMEM;
        return THE_NON_VALUE;
    }
    if (spec->fd)
        return open_fd_port(s, port, spec, error);
    if (spec->ram_file) {
        port->reaped = true; /* no child */
        if (!(port->ram = ram_file_new())) {
            port_free(port);
            *error = ENOMEM;
            return THE_NON_VALUE;
        }
        return port_join(s, port);
    }
    int to_child[2] = {-1, -1}, from_child[2] = {-1, -1};
    int err = 0;
    if (spec->out && pipe2(to_child, O_CLOEXEC) != 0)
        err = errno;
    if (!err && spec->in && pipe2(from_child, O_CLOEXEC) != 0)
        err = errno;
    if (!err && ((to_child[1] >= 0 && !set_nonblocking(to_child[1])) ||
                 (from_child[0] >= 0 && !set_nonblocking(from_child[0]))))
        err = errno;
    if (!err) {
        rt_lock(&s->exec_lock);
        if (!poller_start_locked(s))
            err = EAGAIN;
        rt_unlock(&s->exec_lock);
    }
    /* The spawn runs without the mutex (it takes a while); the program
     * cannot end before the port joins the list below, since this worker
     * still runs, so ports_stop will find its child. */
    if (!err)
        err = spawn_child(spec, to_child[0], from_child[1], &port->os_pid);
    close_fd(&to_child[0]);
    close_fd(&from_child[1]);
    if (err) {
        close_fd(&to_child[1]);
        close_fd(&from_child[0]);
        port_free(port);
        *error = err;
        return THE_NON_VALUE;
    }
    port->out_fd = to_child[1];
    port->in_fd = from_child[0];
    return port_join(s, port);
}

/* ---- operations of processes ---- */

/* Queues bytes (the header first, when hsize) for the child's input, and
 * writes what the pipe takes now. */
static enum port_outcome command_locked(struct port_state *ps, struct port *port, const uint8_t *header, size_t hsize,
                                        const uint8_t *data, size_t size)
{
    port->output += size;
    if (port->out_fd < 0)
        return PORT_DONE; /* an `in` port, or a child that closed its input: dropped */
    size_t total = port->queued_len - port->queued_off + hsize + size;
    if (port->queued_off) {
        memmove(port->queued, port->queued + port->queued_off, port->queued_len - port->queued_off);
        port->queued_len -= port->queued_off;
        port->queued_off = 0;
    }
    uint8_t *q = realloc(port->queued, total ? total : 1);
    if (!q)
        return PORT_NO_MEMORY;
    memcpy(q + port->queued_len, header, hsize);
    memcpy(q + port->queued_len + hsize, data, size);
    port->queued = q;
    port->queued_len = total;
    write_queued_locked(port);
    if (port->queued_len)
        wake_poller(ps);
    return PORT_DONE;
}

static struct worker *worker_of(struct process *self) { return &self->sched->workers[self->last_worker]; }

/* A ram_file_drv port's command, run now: its reply {Port, {data, Reply}}
 * goes to the connected process, the reply's header as bytes of a list
 * whose tail is its data (a binary in binary mode, [] when none), as OTP's
 * driver_output2 makes it. */
static enum port_outcome ram_command_locked(struct sched *s, struct port *port, const uint8_t *data, size_t size)
{
    struct ram_file_reply reply;
    if (!ram_file_command(port->ram, data, size, &reply))
        return PORT_NO_MEMORY;
    heap_t scratch;
    if (!heap_init(&scratch, 0, 0))
        return PORT_NO_MEMORY;
    term list = NIL;
    if (reply.data_len)
        list = data_term(&scratch, port, reply.data, reply.data_len);
    for (size_t i = reply.header_len; i-- > 0 && is_value(list);)
        list = heap_cons(&scratch, make_small(reply.header[i]), list);
    term payload = is_value(list) ? heap_tuple2(&scratch, A(data), list) : list;
    enum port_outcome outcome = is_value(payload) ? PORT_DONE : PORT_NO_MEMORY;
    send_to_connected_locked(s, port, payload);
    heap_destroy(&scratch);
    return outcome;
}

enum port_outcome ports_command(struct process *self, term id, const uint8_t *data, size_t size)
{
    struct sched *s = self->sched;
    uint8_t header[4];
    /* Not under the mutex: a full pipe may block this (as io:format's own
     * write would). */
    if (atomic_load_explicit(&s->ports->fd_used, memory_order_relaxed))
        fflush(stdout);
    rt_lock(&s->exec_lock);
    struct port *port = find_locked(s->ports, id);
    enum port_outcome outcome = PORT_NOT_OPEN;
    if (port && port->out_bad) {
        /* OTP's fd driver fails the write: the port ends with its errno. */
        port_end_locked(s, worker_of(self), port, A(ebadf), false);
        outcome = PORT_DONE;
    } else if (port && port->ram) {
        outcome = ram_command_locked(s, port, data, size);
    } else if (port) {
        unsigned hsize = port->packet;
        if (hsize && hsize < 4 && size >> (8 * hsize))
            outcome = PORT_BAD_DATA;
        else {
            for (unsigned i = 0; i < hsize; i++)
                header[i] = (uint8_t)(size >> (8 * (hsize - 1 - i)));
            outcome = command_locked(s->ports, port, header, hsize, data, size);
        }
    }
    rt_unlock(&s->exec_lock);
    return outcome;
}

enum port_outcome ports_close(struct process *self, term id, bool reply)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct port *port = find_locked(s->ports, id);
    if (port && reply) {
        term closed[3] = {make_header(SUBTAG_TUPLE, 2), id, A(closed)};
        send_locked(s, port->connected, make_boxed(closed));
    }
    if (port)
        port_end_locked(s, worker_of(self), port, A(normal), true);
    rt_unlock(&s->exec_lock);
    return port ? PORT_DONE : PORT_NOT_OPEN;
}

enum port_outcome ports_connect(struct process *self, term id, term pid, bool reply)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct port *port = find_locked(s->ports, id);
    enum port_outcome outcome = PORT_NOT_OPEN;
    if (port && sched_live_locked(s, pid)) {
        outcome = link_add(port, pid) ? PORT_DONE : PORT_NO_MEMORY;
        if (outcome == PORT_DONE && reply) {
            term connected[3] = {make_header(SUBTAG_TUPLE, 2), id, A(connected)};
            send_locked(s, port->connected, make_boxed(connected));
        }
        if (outcome == PORT_DONE)
            port->connected = pid;
    }
    rt_unlock(&s->exec_lock);
    return outcome;
}

void ports_exit(struct process *self, term id, term reason)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct port *port = find_locked(s->ports, id);
    if (port && (reason != A(normal) || port->connected == self->pid))
        port_end_locked(s, worker_of(self), port, reason == A(kill) ? A(killed) : reason, true);
    rt_unlock(&s->exec_lock);
}

bool ports_link(struct process *self, term id)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct port *port = find_locked(s->ports, id);
    bool linked = port && link_add(port, self->pid);
    rt_unlock(&s->exec_lock);
    return linked;
}

void ports_unlink(struct process *self, term id)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct port *port = find_locked(s->ports, id);
    if (port)
        link_remove(port, self->pid);
    rt_unlock(&s->exec_lock);
}

bool ports_monitor(struct process *self, term id, term ref)
{
    struct sched *s = self->sched;
    rt_lock(&s->exec_lock);
    struct port *port = find_locked(s->ports, id);
    bool made = port && grow((void **)&port->monitors, &port->monitor_cap, port->monitor_count, sizeof *port->monitors);
    if (made)
        port->monitors[port->monitor_count++] = (struct port_monitor){self->pid, ref_id_low(ref), ref_id_high(ref)};
    rt_unlock(&s->exec_lock);
    return made;
}

/* Removes the monitors of port that match (watcher, and the reference
 * unless any_ref); true when one did. */
static bool monitors_remove(struct port *port, term watcher, bool any_ref, uint64_t low, uint64_t high)
{
    bool removed = false;
    size_t kept = 0;
    for (size_t i = 0; i < port->monitor_count; i++) {
        const struct port_monitor *m = &port->monitors[i];
        if (m->watcher == watcher && (any_ref || (m->ref_low == low && m->ref_high == high)))
            removed = true;
        else
            port->monitors[kept++] = *m;
    }
    port->monitor_count = kept;
    return removed;
}

bool ports_demonitor(struct process *self, term ref)
{
    struct sched *s = self->sched;
    if (!atomic_load_explicit(&s->ports->used, memory_order_relaxed))
        return false;
    rt_lock(&s->exec_lock);
    bool active = false;
    for (struct port *port = s->ports->first; port && !active; port = port->next)
        active = monitors_remove(port, self->pid, false, ref_id_low(ref), ref_id_high(ref));
    rt_unlock(&s->exec_lock);
    return active;
}

void ports_process_ended_locked(struct sched *s, struct worker *w, struct process *p)
{
    struct port_state *ps = s->ports;
    if (!atomic_load_explicit(&ps->used, memory_order_relaxed))
        return;
    /* Ending a port signals its links, which may end processes and so
     * ports: the scan starts over after each port ended. */
    struct port *port = ps->first;
    while (port) {
        monitors_remove(port, p->pid, true, 0, 0);
        bool linked = link_remove(port, p->pid);
        if (port->connected == p->pid || (linked && p->exit_reason != A(normal))) {
            port_end_locked(s, w, port, p->exit_reason, true);
            port = ps->first;
        } else {
            port = port->next;
        }
    }
}

/* ---- introspection ---- */

static term *copy_terms(const term *items, size_t n, bool *refused)
{
    term *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy)
        *refused = true;
    else if (n)
        memcpy(copy, items, n * sizeof *copy);
    return copy;
}

bool ports_snapshot(struct sched *s, term id, struct port_snapshot *out, bool *refused)
{
    *refused = false;
    memset(out, 0, sizeof *out);
    rt_lock(&s->exec_lock);
    struct port *port = find_locked(s->ports, id);
    if (port) {
        out->id = port->id;
        out->connected = port->connected;
        out->os_pid = port->os_pid;
        out->input = port->input;
        out->output = port->output;
        out->name = strdup(port->name);
        *refused = !out->name;
        out->links = copy_terms(port->links, port->link_count, refused);
        out->link_count = port->link_count;
        out->watchers = malloc((port->monitor_count ? port->monitor_count : 1) * sizeof *out->watchers);
        *refused = *refused || !out->watchers;
        for (size_t i = 0; out->watchers && i < port->monitor_count; i++)
            out->watchers[i] = port->monitors[i].watcher;
        out->watcher_count = port->monitor_count;
    }
    rt_unlock(&s->exec_lock);
    if (*refused)
        ports_snapshot_free(out);
    return port && !*refused;
}

void ports_snapshot_free(struct port_snapshot *snap)
{
    free(snap->name);
    free(snap->links);
    free(snap->watchers);
    memset(snap, 0, sizeof *snap);
}

term *ports_list(struct sched *s, size_t *count)
{
    rt_lock(&s->exec_lock);
    struct port_state *ps = s->ports;
    term *ids = ps->count ? malloc(ps->count * sizeof *ids) : NULL;
    *count = 0;
    for (struct port *port = ids ? ps->first : NULL; port; port = port->next)
        ids[(*count)++] = port->id;
    rt_unlock(&s->exec_lock);
    return ids;
}

term ports_connected(struct sched *s, term id)
{
    rt_lock(&s->exec_lock);
    struct port *port = find_locked(s->ports, id);
    term pid = port ? port->connected : THE_NON_VALUE;
    rt_unlock(&s->exec_lock);
    return pid;
}

size_t ports_count(struct sched *s)
{
    rt_lock(&s->exec_lock);
    size_t n = s->ports->count;
    rt_unlock(&s->exec_lock);
    return n;
}

/* ---- the end of the program ---- */

/* What an fd port still has queued is written out, as the runtime's own
 * output is at the end, waiting at most a second for the descriptor each
 * time. */
static void flush_at_end(struct port *port)
{
    while (port->fd_port && port->out_fd >= 0 && port->queued_len) {
        struct pollfd out = {port->out_fd, POLLOUT, 0};
        if (poll(&out, 1, 1000) <= 0)
            break;
        write_queued_locked(port);
    }
}

void ports_stop(struct sched *s)
{
    struct port_state *ps = s->ports;
    if (!ps)
        return;
    rt_lock(&s->exec_lock);
    bool started = ps->started;
    ps->stop = true;
    ps->started = false;
    wake_poller(ps);
    rt_unlock(&s->exec_lock);
    if (started)
        pthread_join(ps->thread, NULL);
    /* Single-threaded from here: the workers and the poller stopped. */
    while (ps->first) {
        struct port *port = ps->first;
        list_remove(ps, port);
        flush_at_end(port);
        close_fd(&port->in_fd);
        close_fd(&port->out_fd);
        if (!port->reaped) {
            kill(port->os_pid, SIGKILL);
            reap(port->os_pid, NULL, true);
        }
        port_free(port);
    }
    while (ps->orphans) {
        struct orphan *o = ps->orphans;
        ps->orphans = o->next;
        kill(o->pid, SIGKILL);
        reap(o->pid, NULL, true);
        free(o);
    }
    close_fd(&ps->wake[0]);
    close_fd(&ps->wake[1]);
}
