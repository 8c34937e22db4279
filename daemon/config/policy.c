/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The policy's lifetime: references, rules, and the built-in tail every policy ends with. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "shared/cleanup.h"
#include "shared/strv.h"

static const char *const notify_names[_NOTIFY_MAX] = {
        [NOTIFY_FIRST] = "first",
        [NOTIFY_EVERY] = "every",
        [NOTIFY_NONE] = "none",
};

const char *notify_to_string(enum notify n) {
        return n >= 0 && n < _NOTIFY_MAX ? notify_names[n] : NULL;
}

int notify_from_string(const char *s, enum notify *ret) {
        for (enum notify n = 0; s && n < _NOTIFY_MAX; n++)
                if (strcmp(s, notify_names[n]) == 0) {
                        *ret = n;
                        return 0;
                }
        return -EINVAL;
}

struct policy *policy_new(void) {
        struct policy *p = calloc(1, sizeof *p);
        if (p)
                atomic_init(&p->n_ref, 1);
        return p;
}

struct policy *policy_ref(struct policy *p) {
        if (p)
                atomic_fetch_add(&p->n_ref, 1);
        return p;
}

static void policy_rule_done(struct policy_rule *r) {
        free(r->name);
        free(r->source);
        strv_free(r->match_exe);
        strv_free(r->match_comm);
        strv_free(r->match_unit);
        strv_free(r->match_slice);
        strv_free(r->match_signature);
        strv_free(r->match_container);
        strv_free(r->match_machine);
        free(r->match_uid);
        free(r->match_gid);
        free(r->match_signal);
        free(r->match_si_code);
        free(r->match_fault);
}

struct policy *policy_unref(struct policy *p) {
        if (!p || atomic_fetch_sub(&p->n_ref, 1) != 1)
                return NULL;

        for (size_t i = 0; i < p->n_rules; i++)
                policy_rule_done(&p->rules[i]);
        free(p->rules);
        free(p);
        return NULL;
}

struct policy_rule *policy_add_rule(struct policy *p, const char *source, unsigned line) {
        struct policy_rule *rules = realloc(p->rules, (p->n_rules + 1) * sizeof *rules);
        if (!rules)
                return NULL;
        p->rules = rules;

        struct policy_rule *r = &rules[p->n_rules];
        *r = (struct policy_rule) {
                .line = line,
                .match_dumpable = POLICY_UNSET,
                .match_rlimit_zero = POLICY_UNSET,
                .action = _ACTION_INVALID,
                .wait = POLICY_UNSET,
                .compress = POLICY_UNSET,
                .userspace_mode = POLICY_UNSET,
                .rate_limit_burst = POLICY_UNSET,
                .on_repeat = POLICY_UNSET,
                .journal_core = POLICY_UNSET,
                .notify = POLICY_UNSET,
        };
        if (source && !(r->source = strdup(source)))
                return NULL;
        p->n_rules++;
        return r;
}

void policy_remove_rule(struct policy *p, size_t i) {
        if (i >= p->n_rules)
                return;
        policy_rule_done(&p->rules[i]);
        memmove(&p->rules[i], &p->rules[i + 1], (p->n_rules - i - 1) * sizeof p->rules[0]);
        p->n_rules--;
}

int policy_add_builtin_rules(struct policy *p) {
        struct policy_rule *r;

        r = policy_add_rule(p, NULL, 0);
        if (!r || !(r->name = strdup("builtin:rlimit-zero")))
                return -ENOMEM;
        r->match_rlimit_zero = 1;
        r->action = ACTION_REJECT;

        r = policy_add_rule(p, NULL, 0);
        if (!r || !(r->name = strdup("builtin:keep")))
                return -ENOMEM;
        r->action = ACTION_KERNEL;
        return 0;
}

bool policy_uses_signature(const struct policy *p) {
        for (size_t i = 0; p && i < p->n_rules; i++)
                if (p->rules[i].match_signature && p->rules[i].match_signature[0])
                        return true;
        return false;
}
