/*
 * ports.h — ports to external programs ({spawn, Command} and
 * {spawn_executable, File}) and to the runtime's own file descriptors
 * ({fd, In, Out}).
 *
 * A port is a child process joined to the runtime by pipes: what the
 * program writes on its standard output (or fd 4) comes to the port's
 * connected process as messages {Port, {data, Data}}, framed by the port's
 * mode (stream, {line, L}, {packet, N}); what the connected process hands
 * to port_command goes to the program's standard input (or fd 3). Ports
 * take part in links and monitors: a port's end sends exit signals to its
 * linked processes and 'DOWN' to its watchers, and the end of its connected
 * process (or an exit signal other than normal from a linked one) closes it.
 *
 * One poller thread, started with the first port, waits on every port's
 * pipes and reads what comes: a process waiting for port data is in an
 * ordinary receive, and the data reaches it through the runtime's message
 * delivery, as a timer's message does, so every policy sees the same thing
 * as for any message. Port state is guarded by the executor mutex (links
 * and monitors are too); the pipes are non-blocking, so no lock is held
 * across a wait. A closed port's child is killed (SIGKILL) and reaped by
 * the poller; at the program's end every child still running is killed
 * and reaped (ports_stop), so none is left behind.
 *
 * An {fd, In, Out} port has no child: it reads In and writes Out through
 * descriptors of its own (see ports_open), with the same framing, messages
 * and poller; closing it closes those, never In and Out themselves.
 *
 * A ram_file_drv port (kernel's ram_file, file:open(Data, [ram])) has
 * neither: it holds an in-memory file (ram_file.h), and each command's
 * reply goes to its connected process as the command is made.
 */
#ifndef CLAUSE_PORTS_H
#define CLAUSE_PORTS_H

#include "rt/process.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sched;
struct worker;

/* What open_port/2 asked for, checked by the builtin. */
struct port_spec {
    bool ram_file;     /* {spawn, "ram_file_drv"}: an in-memory file (ram_file.h), no child */
    bool fd;           /* {fd, In, Out}: no child, fd_in and fd_out instead */
    int fd_in, fd_out; /* the descriptors read (when in) and written (when out) */
    const char *file;  /* the executable to run */
    char *const *argv; /* NULL-terminated, argv[0] first */
    char *const *envp; /* the child's whole environment, NULL-terminated */
    const char *cd;    /* its working directory, or NULL */
    const char *name;  /* port_info's name: the command or the file */
    bool in, out;      /* the port reads the child's output / writes its input */
    bool use_stdio;    /* fds 0 and 1, else 3 and 4 */
    bool stderr_to_stdout;
    bool binary;      /* data as binaries, else lists of bytes */
    bool eof;         /* {Port, eof} at the end of output, and the port stays open */
    bool exit_status; /* {Port, {exit_status, S}} once the child ended */
    unsigned packet;  /* 0 (stream), 1, 2 or 4: a length header in each direction */
    size_t line;      /* > 0: {line, L} messages */
};

/* Opens a port connected to and linked with self. Its identifier, or
 * THE_NON_VALUE with *error set to the errno of the failure (ENOENT: no
 * such executable; ENOMEM when memory was refused). An fd port opens even
 * when its descriptors are not open, as OTP's: its first command then ends
 * it with reason ebadf, and it reads nothing. */
term ports_open(struct process *self, const struct port_spec *spec, int *error);

enum port_outcome {
    PORT_DONE,
    PORT_NOT_OPEN,  /* no open port has that identifier */
    PORT_BAD_DATA,  /* too long for the packet header */
    PORT_NO_MEMORY, /* the host refused memory */
};

/* port_command: data for the child's input (a header added in packet
 * mode), or for an fd port's Out (standard output flushed first, so that
 * what the program printed before comes first). Written at once when the
 * pipe takes it, else queued for the poller, so the caller never blocks. */
enum port_outcome ports_command(struct process *self, term port, const uint8_t *data, size_t size);
/* port_close: the port ends with reason normal (its child killed). reply:
 * the connected process gets {Port, closed} first (a {Pid, close}
 * message). */
enum port_outcome ports_close(struct process *self, term port, bool reply);
/* port_connect: pid (a live process) becomes the connected process and is
 * linked to the port. PORT_NOT_OPEN also when pid is no live process.
 * reply: the previous one gets {Port, connected} (a {Pid, {connect, New}}
 * message). */
enum port_outcome ports_connect(struct process *self, term port, term pid, bool reply);
/* The connected process of an open port, else THE_NON_VALUE. */
term ports_connected(struct sched *s, term port);
/* exit(Port, Reason): normal is ignored unless self is the connected
 * process; kill ends the port with reason killed, another reason with it
 * (a bad message to a port ends it with badsig this way). */
void ports_exit(struct process *self, term port, term reason);

/* link(Port): false when the port is not open. */
bool ports_link(struct process *self, term port);
void ports_unlink(struct process *self, term port);
/* monitor(port, Port) under ref (on self's heap): false when the port is
 * not open. */
bool ports_monitor(struct process *self, term port, term ref);
/* Ends self's port monitor ref: true when it was active. */
bool ports_demonitor(struct process *self, term ref);

/* What port_info/1,2 show of an open port. */
struct port_snapshot {
    term id, connected;
    char *name;   /* malloc'd */
    pid_t os_pid; /* 0 for an fd port */
    uint64_t input, output;
    term *links; /* malloc'd pids, in the order made */
    size_t link_count;
    term *watchers; /* malloc'd pids of its monitors */
    size_t watcher_count;
};
/* False when the port is not open (or memory was refused: *refused). */
bool ports_snapshot(struct sched *s, term port, struct port_snapshot *out, bool *refused);
void ports_snapshot_free(struct port_snapshot *snap);
/* The open ports' identifiers, oldest first, malloc'd (*count of them);
 * NULL with *count 0 when there is none or memory was refused. */
term *ports_list(struct sched *s, size_t *count);
size_t ports_count(struct sched *s);

/* ---- the runtime's side ---- */

/* p is ending (executor mutex held, w its finishing worker): its links with
 * ports and its port monitors go, the ports it is connected to close with
 * its exit reason, and so do the ports it was linked to when the reason
 * is not normal. */
void ports_process_ended_locked(struct sched *s, struct worker *w, struct process *p);

struct port_state;
/* At sched_create: no port, no thread. NULL when memory was refused. */
struct port_state *ports_state_new(void);
/* The program ends: the poller stops and every child still running is
 * killed and reaped. Idempotent. */
void ports_stop(struct sched *s);
void ports_state_free(struct port_state *ps);

#endif
