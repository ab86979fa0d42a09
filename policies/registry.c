/* registry.c — the policies --policy can name, the default first. A new
 * policy adds its extern declaration and one entry here. */
#include "rt/policy.h"

#include <string.h>

extern const struct policy_ops erts_policy;
extern const struct policy_ops global_fifo_policy;

static const struct policy_ops *const policies[] = {
    &erts_policy,
    &global_fifo_policy,
    NULL,
};

const struct policy_ops *const *policy_all(void) { return policies; }

const struct policy_ops *policy_find(const char *name)
{
    for (size_t i = 0; policies[i]; i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return NULL;
}
