/*
 * resources.h — C objects a process owns, named by references (what OTP's
 * NIFs call resources: an open file, prim_buffer's buffers).
 *
 * A resource is created by a builtin for the calling process, which becomes
 * its owner, and is named by a reference term of its own (the term the
 * builtin returns). Only the owner finds it again (OTP's prim_file works on
 * a file only in the process that opened it, and monitors that process to
 * close the file when it ends): a lookup walks the owner's own list, so no
 * lock is taken and a process with n resources pays O(n) per lookup. A
 * resource is released by its builtin (a file's close) or, at the latest,
 * when its owner ends: its type's release runs then, on the worker that
 * frees the process, and closes what it holds. Another process holding the
 * reference finds nothing (the builtins answer as for a closed handle).
 *
 * Companions. OTP's prim_file makes a read buffer (prim_buffer:new/0)
 * right after each open; left to its owner's list it would outlive the file
 * until the process ends. A type that adopts a companion takes the next
 * resource its owner attaches with proc_resource_attach_companion as its
 * own: the two are released together.
 */
#ifndef CLAUSE_RT_RESOURCES_H
#define CLAUSE_RT_RESOURCES_H

#include "rt/process.h"

#include <stdbool.h>
#include <stdint.h>

struct proc_resource;

struct proc_resource_type {
    const char *name;
    /* Frees r and what it holds (owner ended, or proc_resource_release). */
    void (*release)(struct proc_resource *r);
    /* Takes the owner's next companion resource (see above). */
    bool adopts_companion;
};

/* Embed this in the object (first member or not) and pass it here. */
struct proc_resource {
    const struct proc_resource_type *type;
    uint64_t id_low, id_high; /* the reference that names it */
    struct proc_resource *next;
    struct proc_resource *companion; /* released with it; NULL when none */
};

/* Adds r (type and id set) to the owner's list. Owner only. */
void proc_resource_attach(struct process *owner, struct proc_resource *r);
/* Attaches r as the companion of the owner's newest resource when that
 * one adopts companions and has none yet, else as proc_resource_attach. */
void proc_resource_attach_companion(struct process *owner, struct proc_resource *r);
/* The owner's resource of that type named by the reference ref, or NULL
 * (not a reference, another type, released, or someone else's). */
struct proc_resource *proc_resource_find(struct process *owner, term ref, const struct proc_resource_type *type);
/* The owner's newest resource of that type, or NULL: for a type a process
 * has at most one of (a setting kept only by the processes that change
 * it), named by no reference. The owner, or under the executor mutex
 * while it does not run. */
struct proc_resource *proc_resource_of_type(const struct process *owner, const struct proc_resource_type *type);
/* Removes r from its owner's list and releases it. Owner only. */
void proc_resource_release(struct process *owner, struct proc_resource *r);
/* The process ended (or is freed at shutdown): releases everything it
 * owns, newest first. */
void proc_resources_release_all(struct process *p);

#endif
