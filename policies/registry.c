/* registry.c — the policies --policy can name, the default first, and
 * their parameters as the command line gives them ("NAME:key=value,...").
 * A new policy adds its extern declaration and one entry here. */
#include "rt/policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct policy_ops erts_policy;
extern const struct policy_ops global_fifo_policy;
extern const struct policy_ops cilk_policy;
extern const struct policy_ops p2c_policy;
extern const struct policy_ops shuffle_policy;
extern const struct policy_ops tokio_policy;
extern const struct policy_ops vtime_policy;
extern const struct policy_ops otp_policy;
extern const struct policy_ops go_policy;
extern const struct policy_ops eevdf_policy;
extern const struct policy_ops lavd_policy;
extern const struct policy_ops central_policy;

static const struct policy_ops *const policies[] = {
    &erts_policy, &global_fifo_policy, &otp_policy, &go_policy,   &tokio_policy,   &vtime_policy, &eevdf_policy,
    &lavd_policy, &central_policy,     &p2c_policy, &cilk_policy, &shuffle_policy, NULL,
};

const struct policy_ops *const *policy_all(void) { return policies; }

const struct policy_ops *policy_find(const char *name)
{
    for (size_t i = 0; policies[i]; i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return NULL;
}

void policy_format_value(const struct policy_param *param, long long value, char *out, size_t out_size)
{
    if (param->type == POLICY_PARAM_CHOICE)
        snprintf(out, out_size, "%s", param->choices[value]);
    else
        snprintf(out, out_size, "%lld", value);
}

void policy_format_params(const struct policy_ops *ops, const long long *values, char *out, size_t out_size)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < ops->param_count && used < out_size; i++) {
        char value[64];
        policy_format_value(&ops->params[i], values[i], value, sizeof value);
        int n = snprintf(out + used, out_size - used, "%s%s=%s", i ? "," : "", ops->params[i].name, value);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* What a parameter allows, for error messages: "an integer from 0 to 9",
 * "one of longest, none". */
static void describe_allowed(const struct policy_param *param, char *out, size_t out_size)
{
    if (param->type == POLICY_PARAM_INT) {
        snprintf(out, out_size, "an integer from %lld to %lld", param->min, param->max);
        return;
    }
    size_t used = (size_t)snprintf(out, out_size, "one of");
    for (size_t i = 0; param->choices[i] && used < out_size; i++)
        used += (size_t)snprintf(out + used, out_size - used, "%s %s", i ? "," : "", param->choices[i]);
}

static bool parse_value(const struct policy_param *param, const char *text, size_t len, long long *value)
{
    if (param->type == POLICY_PARAM_CHOICE) {
        for (long long i = 0; param->choices[i]; i++)
            if (strlen(param->choices[i]) == len && strncmp(param->choices[i], text, len) == 0) {
                *value = i;
                return true;
            }
        return false;
    }
    char digits[32];
    if (len == 0 || len >= sizeof digits)
        return false;
    memcpy(digits, text, len);
    digits[len] = '\0';
    errno = 0;
    char *end;
    long long v = strtoll(digits, &end, 10);
    if (errno || *end || v < param->min || v > param->max)
        return false;
    *value = v;
    return true;
}

bool policy_parse(const char *spec, const struct policy_ops **ops, long long values[POLICY_MAX_PARAMS], char *error,
                  size_t error_size)
{
    const char *colon = strchr(spec, ':');
    size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec);
    const struct policy_ops *found = NULL;
    for (size_t i = 0; policies[i] && !found; i++)
        if (strlen(policies[i]->name) == name_len && strncmp(policies[i]->name, spec, name_len) == 0)
            found = policies[i];
    if (!found) {
        snprintf(error, error_size, "--policy: unknown policy '%.*s' (--policy help lists them)", (int)name_len, spec);
        return false;
    }
    for (unsigned i = 0; i < found->param_count; i++)
        values[i] = found->params[i].def;
    const char *at = colon ? colon + 1 : NULL;
    if (at && !*at) {
        snprintf(error, error_size, "--policy %s: no parameter after ':' (--policy help lists them)", found->name);
        return false;
    }
    while (at) {
        const char *comma = strchr(at, ',');
        size_t len = comma ? (size_t)(comma - at) : strlen(at);
        const char *eq = memchr(at, '=', len);
        size_t key_len = eq ? (size_t)(eq - at) : len;
        const struct policy_param *param = NULL;
        unsigned index = 0;
        for (; index < found->param_count; index++)
            if (strlen(found->params[index].name) == key_len && strncmp(found->params[index].name, at, key_len) == 0) {
                param = &found->params[index];
                break;
            }
        if (!param) {
            char keys[160] = "";
            size_t used = 0;
            for (unsigned k = 0; k < found->param_count && used < sizeof keys; k++)
                used += (size_t)snprintf(keys + used, sizeof keys - used, "%s%s", k ? ", " : "", found->params[k].name);
            snprintf(error, error_size, "--policy %s: unknown parameter '%.*s' (%s%s)", found->name, (int)key_len, at,
                     found->param_count ? "it takes " : "it takes none", keys);
            return false;
        }
        if (!eq || !parse_value(param, eq + 1, len - key_len - 1, &values[index])) {
            char allowed[160];
            describe_allowed(param, allowed, sizeof allowed);
            snprintf(error, error_size, "--policy %s: %s must be %s, not '%.*s'", found->name, param->name, allowed,
                     eq ? (int)(len - key_len - 1) : 0, eq ? eq + 1 : "");
            return false;
        }
        at = comma ? comma + 1 : NULL;
    }
    *ops = found;
    return true;
}
