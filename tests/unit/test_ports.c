/* Ports to external programs (rt/ports.h) on real workers: a native
 * process opens a port to /bin/sh and waits in an ordinary receive; the
 * child's output reaches it framed by the port's mode (stream, line,
 * packet), then its exit status; port_close kills the child; the end of
 * the connected process closes its port (its watcher gets 'DOWN' with its
 * reason); fifty ports at once each answer their own command; an
 * {fd, In, Out} port on a pipe reads back what it wrote, more than the
 * pipe holds, and one whose Out is not open ends with ebadf at its first
 * command. Every policy, 1 and 2 workers. */
#include "rt/executor.h"
#include "rt/message.h"
#include "rt/ports.h"
#include "term/atom.h"
#include "term/binary.h"
#include "test_main.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* A port to `sh -c script` with the given framing. */
static term open_sh(struct process *p, const char *script, bool binary, unsigned packet, size_t line)
{
    char *const argv[] = {"sh", "-c", (char *)script, NULL};
    struct port_spec spec = {.file = "/bin/sh",
                             .argv = argv,
                             .envp = environ,
                             .name = script,
                             .in = true,
                             .out = true,
                             .use_stdio = true,
                             .binary = binary,
                             .exit_status = true,
                             .packet = packet,
                             .line = line};
    int error = 0;
    term port = ports_open(p, &spec, &error);
    CU_ASSERT(is_value(port) && error == 0);
    return port;
}

/* Appends a data payload's bytes (a binary or a list of bytes) to out. */
static void append_data(char *out, size_t cap, term data)
{
    size_t len = strlen(out);
    if (is_bitstring(data)) {
        const uint8_t *bytes;
        size_t size;
        unsigned bits;
        bin_bytes(data, &bytes, &size, &bits);
        for (size_t i = 0; i < size && len + 1 < cap; i++)
            out[len++] = (char)bytes[i];
    } else {
        for (term l = data; is_list(l) && len + 1 < cap; l = list_tail(l))
            out[len++] = (char)small_value(list_head(l));
    }
    out[len] = '\0';
}

/* One port's run: what it said, in order. */
struct run {
    const char *script;
    const char *command; /* written to the child's input, or NULL */
    bool binary;
    unsigned packet;
    size_t line;
    term port;
    char got[256]; /* data, line pieces as "eol:TEXT|" / "noeol:TEXT|", packets as "TEXT|" */
    int status;    /* its exit status, -1 until it came */
    unsigned others;
};

static enum body_stop run_step(struct process *p, void *state)
{
    struct run *r = state;
    if (is_non_value(r->port)) {
        r->port = open_sh(p, r->script, r->binary, r->packet, r->line);
        if (r->command)
            CU_ASSERT_EQUAL(ports_command(p, r->port, (const uint8_t *)r->command, strlen(r->command)), PORT_DONE);
    }
    for (;;) {
        term m = proc_receive_peek(p);
        if (is_non_value(m))
            return BODY_WAIT;
        proc_receive_take(p);
        term what =
            is_tuple(m) && tuple_arity(m) == 2 && tuple_element(m, 1) == r->port ? tuple_element(m, 2) : THE_NON_VALUE;
        term kind = is_value(what) && is_tuple(what) ? tuple_element(what, 1) : THE_NON_VALUE;
        if (kind == A(exit_status)) {
            r->status = (int)small_value(tuple_element(what, 2));
            return BODY_EXIT;
        }
        if (kind != A(data)) {
            r->others++;
            continue;
        }
        term data = tuple_element(what, 2);
        if (is_tuple(data)) {
            strcat(r->got, tuple_element(data, 1) == A(eol) ? "eol:" : "noeol:");
            append_data(r->got, sizeof r->got, tuple_element(data, 2));
            strcat(r->got, "|");
        } else {
            CU_ASSERT(r->binary ? is_bitstring(data) : is_list_or_nil(data));
            append_data(r->got, sizeof r->got, data);
            if (r->packet)
                strcat(r->got, "|");
        }
        if (r->packet && r->command) {
            /* cat echoes until its input closes: close the port instead. */
            CU_ASSERT_EQUAL(ports_close(p, r->port, false), PORT_DONE);
            r->status = 0;
            return BODY_EXIT;
        }
    }
}

static void check_run(struct run *r, const char *want, int status)
{
    for (const struct policy_ops *const *policy = test_policies(); *policy; policy++)
        for (unsigned workers = 1; workers <= 2; workers++) {
            r->port = THE_NON_VALUE;
            r->got[0] = '\0';
            r->status = -1;
            r->others = 0;
            struct sched *s = test_sched_new(*policy, workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
            term pid = sched_spawn_native(s, NULL, run_step, r, NULL);
            CU_ASSERT_EQUAL(sched_run(s, pid), 0);
            sched_destroy(s);
            CU_ASSERT_STRING_EQUAL(r->got, want);
            CU_ASSERT_EQUAL(r->status, status);
            CU_ASSERT_EQUAL(r->others, 0);
        }
}

static void test_stream_and_status(void)
{
    struct run r = {.script = "printf 'abc'; printf 'def'; exit 3", .binary = true};
    check_run(&r, "abcdef", 3);
    struct run lists = {.script = "echo hi"};
    check_run(&lists, "hi\n", 0);
}

static void test_lines(void)
{
    struct run r = {.script = "printf 'ab\\nlongline\\n\\ncut'", .line = 4};
    check_run(&r, "eol:ab|noeol:long|eol:line|eol:|", 0); /* the unended "cut" is dropped, as OTP drops it */
}

static void test_packets(void)
{
    struct run out = {.script = "printf '\\000\\002hi\\000\\000\\000\\003abc'", .packet = 2};
    check_run(&out, "hi||abc|", 0);
    /* A header of 4 bytes added on the way in, and read back through cat. */
    struct run echo = {.script = "cat", .command = "hello", .packet = 4};
    check_run(&echo, "hello|", 0);
}

/* ---- port_close kills the child ---- */

struct closer {
    pid_t os_pid;
    bool gone; /* the child was reaped within 2 s of the close */
};

static enum body_stop close_step(struct process *p, void *state)
{
    struct closer *c = state;
    term port = open_sh(p, "sleep 30", false, 0, 0);
    struct port_snapshot snap;
    bool refused;
    CU_ASSERT_FATAL(ports_snapshot(p->sched, port, &snap, &refused));
    c->os_pid = snap.os_pid;
    ports_snapshot_free(&snap);
    CU_ASSERT_EQUAL(ports_close(p, port, false), PORT_DONE);
    CU_ASSERT_EQUAL(ports_close(p, port, false), PORT_NOT_OPEN);
    CU_ASSERT_EQUAL(ports_command(p, port, (const uint8_t *)"x", 1), PORT_NOT_OPEN);
    /* The poller reaps it: after that the pid is no child of ours. */
    for (int i = 0; i < 400 && !c->gone; i++) {
        struct timespec t = {0, 5000000L};
        nanosleep(&t, NULL);
        c->gone = kill(c->os_pid, 0) != 0 && errno == ESRCH;
    }
    return BODY_EXIT;
}

static void test_close_kills_the_child(void)
{
    struct closer c = {0};
    struct sched *s = test_sched_new(NULL, 2, SEND_MODE_ARRIVALS, TIMER_THREAD);
    term pid = sched_spawn_native(s, NULL, close_step, &c, NULL);
    CU_ASSERT_EQUAL(sched_run(s, pid), 0);
    sched_destroy(s);
    CU_ASSERT(c.os_pid > 0);
    CU_ASSERT(c.gone);
}

/* ---- the connected process's end closes its port ---- */

struct ending_owner {
    term watcher, owner, port;
    term down_reason;
    size_t ports_left;
};

/* Opens a port, tells the watcher, and ends with reason badarg once told. */
static enum body_stop owner_step(struct process *p, void *state)
{
    struct ending_owner *o = state;
    if (is_non_value(o->port)) {
        o->port = open_sh(p, "cat", false, 0, 0);
        sched_send(p, o->watcher, A(ok));
    }
    if (is_non_value(proc_receive_peek(p)))
        return BODY_WAIT;
    p->exit_reason = A(badarg);
    return BODY_EXIT;
}

static enum body_stop watcher_step(struct process *p, void *state)
{
    struct ending_owner *o = state;
    if (is_non_value(o->owner)) {
        o->watcher = p->pid;
        o->owner = sched_spawn_native(p->sched, p, owner_step, o, NULL);
    }
    term m = proc_receive_peek(p);
    if (is_non_value(m))
        return BODY_WAIT;
    proc_receive_take(p);
    if (m == A(ok)) {
        CU_ASSERT(ports_monitor(p, o->port, heap_make_ref(&p->heap)));
        sched_send(p, o->owner, A(ok));
        return BODY_WAIT;
    }
    CU_ASSERT(is_tuple(m) && tuple_arity(m) == 5 && tuple_element(m, 1) == A(DOWN) && tuple_element(m, 3) == A(port));
    o->down_reason = tuple_element(m, 5);
    o->ports_left = ports_count(p->sched);
    return BODY_EXIT;
}

static void test_owner_end_closes_the_port(void)
{
    for (unsigned workers = 1; workers <= 2; workers++) {
        struct ending_owner o = {THE_NON_VALUE, THE_NON_VALUE, THE_NON_VALUE, THE_NON_VALUE, 99};
        struct sched *s = test_sched_new(NULL, workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
        term pid = sched_spawn_native(s, NULL, watcher_step, &o, NULL);
        CU_ASSERT_EQUAL(sched_run(s, pid), 0);
        sched_destroy(s);
        CU_ASSERT(o.down_reason == A(badarg));
        CU_ASSERT_EQUAL(o.ports_left, 0);
    }
}

/* ---- many ports at once ---- */

#define MANY 50

struct many {
    term ports[MANY];
    bool opened;
    unsigned answered;
    unsigned wrong;
};

static enum body_stop many_step(struct process *p, void *state)
{
    struct many *m = state;
    if (!m->opened) {
        m->opened = true;
        for (unsigned i = 0; i < MANY; i++) {
            m->ports[i] = open_sh(p, "cat", false, 0, 16);
            char line[16];
            snprintf(line, sizeof line, "%u\n", i * 7);
            ports_command(p, m->ports[i], (const uint8_t *)line, strlen(line));
        }
    }
    for (;;) {
        term msg = proc_receive_peek(p);
        if (is_non_value(msg))
            return BODY_WAIT;
        proc_receive_take(p);
        unsigned i = 0;
        while (i < MANY && m->ports[i] != tuple_element(msg, 1))
            i++;
        term data = tuple_element(tuple_element(msg, 2), 2); /* {eol, Line} */
        char got[16] = "", want[16];
        append_data(got, sizeof got, tuple_element(data, 2));
        snprintf(want, sizeof want, "%u", i * 7);
        m->wrong += strcmp(got, want) != 0;
        ports_close(p, m->ports[i], false);
        if (++m->answered == MANY)
            return BODY_EXIT;
    }
}

static void test_many_ports(void)
{
    for (unsigned workers = 1; workers <= 2; workers++) {
        struct many m = {0};
        struct sched *s = test_sched_new(NULL, workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
        term pid = sched_spawn_native(s, NULL, many_step, &m, NULL);
        CU_ASSERT_EQUAL(sched_run(s, pid), 0);
        CU_ASSERT_EQUAL(ports_count(s), 0);
        sched_destroy(s);
        CU_ASSERT_EQUAL(m.answered, MANY);
        CU_ASSERT_EQUAL(m.wrong, 0);
    }
}

/* ---- fd ports ---- */

#define FD_BYTES 200000

struct fd_echo {
    int in, out; /* the pipe's ends */
    term port;
    size_t got;
    unsigned wrong, others;
    pid_t os_pid;
};

static enum body_stop fd_echo_step(struct process *p, void *state)
{
    struct fd_echo *e = state;
    if (is_non_value(e->port)) {
        struct port_spec spec = {
            .fd = true, .fd_in = e->in, .fd_out = e->out, .name = "fd", .in = true, .out = true, .binary = true};
        int error = 0;
        e->port = ports_open(p, &spec, &error);
        CU_ASSERT_FATAL(is_value(e->port));
        struct port_snapshot snap;
        bool refused;
        CU_ASSERT_FATAL(ports_snapshot(p->sched, e->port, &snap, &refused));
        e->os_pid = snap.os_pid;
        ports_snapshot_free(&snap);
        uint8_t *bytes = malloc(FD_BYTES);
        CU_ASSERT_FATAL(bytes != NULL);
        for (size_t i = 0; i < FD_BYTES; i++)
            bytes[i] = (uint8_t)(i % 251);
        /* More than the pipe takes: the rest waits for the poller, which
         * reads the pipe meanwhile. */
        CU_ASSERT_EQUAL(ports_command(p, e->port, bytes, FD_BYTES), PORT_DONE);
        free(bytes);
    }
    for (;;) {
        term m = proc_receive_peek(p);
        if (is_non_value(m))
            return BODY_WAIT;
        proc_receive_take(p);
        term what = is_tuple(m) && tuple_element(m, 1) == e->port ? tuple_element(m, 2) : THE_NON_VALUE;
        if (!is_tuple(what) || tuple_element(what, 1) != A(data)) {
            e->others++;
            continue;
        }
        const uint8_t *bytes;
        size_t size;
        unsigned bits;
        bin_bytes(tuple_element(what, 2), &bytes, &size, &bits);
        for (size_t i = 0; i < size; i++)
            e->wrong += bytes[i] != (uint8_t)((e->got + i) % 251);
        e->got += size;
        if (e->got >= FD_BYTES) {
            CU_ASSERT_EQUAL(ports_close(p, e->port, false), PORT_DONE);
            return BODY_EXIT;
        }
    }
}

static void test_fd_port_reads_what_it_wrote(void)
{
    for (unsigned workers = 1; workers <= 2; workers++) {
        int pipe_fds[2];
        CU_ASSERT_FATAL(pipe(pipe_fds) == 0);
        struct fd_echo e = {pipe_fds[0], pipe_fds[1], THE_NON_VALUE, 0, 0, 0, -1};
        struct sched *s = test_sched_new(NULL, workers, SEND_MODE_ARRIVALS, TIMER_THREAD);
        term pid = sched_spawn_native(s, NULL, fd_echo_step, &e, NULL);
        CU_ASSERT_EQUAL(sched_run(s, pid), 0);
        sched_destroy(s);
        CU_ASSERT_EQUAL(e.got, FD_BYTES);
        CU_ASSERT_EQUAL(e.wrong, 0);
        CU_ASSERT_EQUAL(e.others, 0);
        CU_ASSERT_EQUAL(e.os_pid, 0);
        /* The port's descriptors were its own: the pipe's are still open. */
        CU_ASSERT(fcntl(pipe_fds[0], F_GETFD) >= 0 && fcntl(pipe_fds[1], F_GETFD) >= 0);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
    }
}

struct fd_bad {
    term port;
    term down_reason;
};

static enum body_stop fd_bad_step(struct process *p, void *state)
{
    struct fd_bad *b = state;
    if (is_non_value(b->port)) {
        struct port_spec spec = {.fd = true, .fd_in = -1, .fd_out = 1000, .name = "bad", .out = true};
        int error = 0;
        b->port = ports_open(p, &spec, &error);
        CU_ASSERT_FATAL(is_value(b->port));
        ports_unlink(p, b->port);
        CU_ASSERT(ports_monitor(p, b->port, heap_make_ref(&p->heap)));
        CU_ASSERT_EQUAL(ports_command(p, b->port, (const uint8_t *)"x", 1), PORT_DONE);
    }
    term m = proc_receive_peek(p);
    if (is_non_value(m))
        return BODY_WAIT;
    proc_receive_take(p);
    if (is_tuple(m) && tuple_arity(m) == 5 && tuple_element(m, 1) == A(DOWN))
        b->down_reason = tuple_element(m, 5);
    return BODY_EXIT;
}

static void test_fd_port_bad_descriptor(void)
{
    struct fd_bad b = {THE_NON_VALUE, THE_NON_VALUE};
    struct sched *s = test_sched_new(NULL, 2, SEND_MODE_ARRIVALS, TIMER_THREAD);
    term pid = sched_spawn_native(s, NULL, fd_bad_step, &b, NULL);
    CU_ASSERT_EQUAL(sched_run(s, pid), 0);
    CU_ASSERT_EQUAL(ports_count(s), 0);
    sched_destroy(s);
    CU_ASSERT(b.down_reason == A(ebadf));
}

static CU_TestInfo tests[] = {
    {"stream data then the exit status", test_stream_and_status},
    {"line mode: eol, noeol pieces", test_lines},
    {"packet mode both ways", test_packets},
    {"port_close kills and reaps the child", test_close_kills_the_child},
    {"the connected process's end closes its port", test_owner_end_closes_the_port},
    {"fifty ports at once", test_many_ports},
    {"an fd port on a pipe reads back what it wrote", test_fd_port_reads_what_it_wrote},
    {"an fd port whose Out is not open ends with ebadf", test_fd_port_bad_descriptor},
    CU_TEST_INFO_NULL,
};

TEST_SUITE_CONCURRENT(ports, tests);
