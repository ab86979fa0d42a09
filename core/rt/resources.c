/* resources.c — per-process C objects named by references (resources.h). */
#include "rt/resources.h"

#include "term/heap.h"

void proc_resource_attach(struct process *owner, struct proc_resource *r)
{
    r->companion = NULL;
    r->next = owner->resources;
    owner->resources = r;
}

void proc_resource_attach_companion(struct process *owner, struct proc_resource *r)
{
    struct proc_resource *newest = owner->resources;
    if (newest && newest->type->adopts_companion && !newest->companion) {
        r->companion = NULL;
        r->next = NULL;
        newest->companion = r;
        return;
    }
    proc_resource_attach(owner, r);
}

/* Releases r and its companion. */
static void release_one(struct proc_resource *r)
{
    struct proc_resource *companion = r->companion;
    r->type->release(r);
    if (companion)
        companion->type->release(companion);
}

struct proc_resource *proc_resource_find(struct process *owner, term ref, const struct proc_resource_type *type)
{
    if (!is_ref(ref))
        return NULL;
    uint64_t lo = ref_id_low(ref), hi = ref_id_high(ref);
    for (struct proc_resource *r = owner->resources; r; r = r->next)
        if (r->id_low == lo && r->id_high == hi)
            return r->type == type ? r : NULL;
    return NULL;
}

struct proc_resource *proc_resource_of_type(const struct process *owner, const struct proc_resource_type *type)
{
    for (struct proc_resource *r = owner->resources; r; r = r->next)
        if (r->type == type)
            return r;
    return NULL;
}

void proc_resource_release(struct process *owner, struct proc_resource *r)
{
    for (struct proc_resource **at = &owner->resources; *at; at = &(*at)->next)
        if (*at == r) {
            *at = r->next;
            break;
        }
    release_one(r);
}

void proc_resources_release_all(struct process *p)
{
    while (p->resources) {
        struct proc_resource *r = p->resources;
        p->resources = r->next;
        release_one(r);
    }
}
