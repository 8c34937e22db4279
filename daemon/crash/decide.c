/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The decision: a crash's context matched against the policy's rules, first match wins. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "crash/decide.h"
#include "shared/cleanup.h"

#define DELETED_SUFFIX " (deleted)"

bool fault_match_matches(const struct fault_match *m, uint64_t addr, uint64_t null_page_end) {
        bool upper_half = addr >> 63;
        switch (m->kind) {
        case FAULT_NULL:
                return addr < null_page_end;
        case FAULT_KERNEL:
                return upper_half;
        case FAULT_USER:
                return !upper_half && addr >= null_page_end;
        case FAULT_RANGE:
                return addr >= m->low && addr <= m->high;
        }
        return false;
}

static bool glob_list_matches(char *const *patterns, const char *value) {
        if (!patterns || !*patterns)
                return true; /* no condition */
        if (!value)
                return false;
        for (char *const *p = patterns; *p; p++)
                if (fnmatch(*p, value, 0) == 0)
                        return true;
        return false;
}

static bool exe_matches(char *const *patterns, const char *exe) {
        if (glob_list_matches(patterns, exe))
                return true;

        /* An executable replaced while running shows as "/path (deleted)"; match its path too. */
        size_t n = exe ? strlen(exe) : 0, k = strlen(DELETED_SUFFIX);
        if (n <= k || strcmp(exe + n - k, DELETED_SUFFIX) != 0)
                return false;
        _cleanup_free_ char *path = strndup(exe, n - k);
        return path && glob_list_matches(patterns, path);
}

static bool id_list_matches(const struct id_range *list, size_t n, uint32_t id) {
        if (n == 0)
                return true;
        for (size_t i = 0; i < n; i++)
                if (id >= list[i].low && id <= list[i].high)
                        return true;
        return false;
}

static bool signal_list_matches(const int *list, size_t n, int sig) {
        if (n == 0)
                return true;
        for (size_t i = 0; i < n; i++)
                if (list[i] == sig)
                        return true;
        return false;
}

static bool tristate_matches(int want, bool have) {
        return want == POLICY_UNSET || (want != 0) == have;
}

static bool si_code_list_matches(const struct si_code_match *list, size_t n, const struct crash_context *ctx) {
        if (n == 0)
                return true;
        if (!ctx->si_code_known)
                return false;
        for (size_t i = 0; i < n; i++)
                if (list[i].code == ctx->si_code && (list[i].signo == 0 || list[i].signo == ctx->signal))
                        return true;
        return false;
}

static bool fault_list_matches(const struct fault_match *list, size_t n, const struct crash_context *ctx) {
        if (n == 0)
                return true;
        if (!ctx->fault_addr_known)
                return false;
        for (size_t i = 0; i < n; i++)
                if (fault_match_matches(&list[i], ctx->fault_addr, ctx->null_page_end ?: 4096))
                        return true;
        return false;
}

/* MatchContainer=: "yes" is any container, "no" the host, anything else a glob on the name. */
static bool container_list_matches(char *const *patterns, const struct container_info *ci) {
        if (!patterns || !*patterns)
                return true;
        bool in_container = container_info_in_container(ci);
        for (char *const *p = patterns; *p; p++) {
                if (strcmp(*p, "yes") == 0 || strcmp(*p, "no") == 0) {
                        if (in_container == (strcmp(*p, "yes") == 0))
                                return true;
                } else if (ci->name && fnmatch(*p, ci->name, 0) == 0)
                        return true;
        }
        return false;
}

/* MatchMachine=: MatchContainer= for systemd-machined machines only (nspawn, machine-NAME.scope). */
static bool machine_list_matches(char *const *patterns, const struct container_info *ci) {
        if (!patterns || !*patterns)
                return true;
        bool machine = ci->name && ci->kind && (strcmp(ci->kind, "nspawn") == 0 || strcmp(ci->kind, "machine") == 0);
        for (char *const *p = patterns; *p; p++) {
                if (strcmp(*p, "yes") == 0 || strcmp(*p, "no") == 0) {
                        if (machine == (strcmp(*p, "yes") == 0))
                                return true;
                } else if (machine && fnmatch(*p, ci->name, 0) == 0)
                        return true;
        }
        return false;
}

unsigned policy_rule_needs(const struct policy_rule *rule) {
        unsigned parts = 0;

        if (rule->match_exe && *rule->match_exe)
                parts |= CONTEXT_EXE;
        if (rule->match_comm && *rule->match_comm)
                parts |= CONTEXT_COMM;
        if ((rule->match_unit && *rule->match_unit) || (rule->match_slice && *rule->match_slice))
                parts |= CONTEXT_CGROUP;
        if ((rule->match_container && *rule->match_container) || (rule->match_machine && *rule->match_machine))
                parts |= CONTEXT_CONTAINER;
        if (rule->match_rlimit_zero != POLICY_UNSET)
                parts |= CONTEXT_RLIMIT;
        if (rule->n_match_si_code > 0 || rule->n_match_fault > 0)
                parts |= CONTEXT_PROBE;
        return parts;
}

bool policy_rule_matches(const struct policy_rule *rule, struct crash_context *ctx) {
        /* What the pidfd told first; the /proc files the rest needs only if that holds. */
        if (!id_list_matches(rule->match_uid, rule->n_match_uid, ctx->uid) ||
            !id_list_matches(rule->match_gid, rule->n_match_gid, ctx->gid) ||
            !signal_list_matches(rule->match_signal, rule->n_match_signal, ctx->signal) ||
            !tristate_matches(rule->match_dumpable, ctx->dumpable) ||
            !glob_list_matches(rule->match_signature, ctx->signature[0] ? ctx->signature : NULL))
                return false;

        context_read(ctx, policy_rule_needs(rule));
        bool rlimit_zero = ctx->rlimit_known && ctx->rlimit_core == 0;
        return exe_matches(rule->match_exe, ctx->exe) &&
               glob_list_matches(rule->match_comm, ctx->comm) &&
               glob_list_matches(rule->match_unit, ctx->unit) &&
               glob_list_matches(rule->match_slice, ctx->slice) &&
               container_list_matches(rule->match_container, &ctx->container) &&
               machine_list_matches(rule->match_machine, &ctx->container) &&
               tristate_matches(rule->match_rlimit_zero, rlimit_zero) &&
               si_code_list_matches(rule->match_si_code, rule->n_match_si_code, ctx) &&
               fault_list_matches(rule->match_fault, rule->n_match_fault, ctx);
}

const struct policy_rule *policy_find_rule(const struct policy *p, struct crash_context *ctx) {
        for (size_t i = 0; p && i < p->n_rules; i++)
                if (policy_rule_matches(&p->rules[i], ctx))
                        return &p->rules[i];
        return NULL;
}

int policy_decide(const struct policy *p, const struct config *config, struct crash_context *ctx,
                  struct decision *ret) {
        const struct policy_rule *rule = policy_find_rule(p, ctx);

        *ret = (struct decision) {
                .action = rule ? rule->action : ACTION_KERNEL,
                .wait = !rule || rule->wait != 0,
                .max_size = rule && rule->max_size > 0 ? rule->max_size : config->max_size,
                .compress = rule && rule->compress != POLICY_UNSET ? (enum compression) rule->compress
                                                                     : config->compress,
                .userspace_mode = rule && rule->userspace_mode != POLICY_UNSET ? (enum userspace_mode) rule->userspace_mode
                                                                               : USERSPACE_MODE_STACKS,
                .rule = strdup(rule ? rule->name : "builtin:keep"),
                .rate_limit_interval_usec = rule && rule->rate_limit_interval_usec > 0 ? rule->rate_limit_interval_usec
                                                                                      : config->rate_limit_interval_usec,
                .rate_limit_burst = rule && rule->rate_limit_burst != POLICY_UNSET ? (unsigned) rule->rate_limit_burst
                                                                                  : config->rate_limit_burst,
                .on_repeat = rule && rule->on_repeat != POLICY_UNSET ? (enum action) rule->on_repeat : config->on_repeat,
                .max_age_usec = rule ? rule->max_age_usec : 0,
                .journal_core = rule && rule->journal_core != POLICY_UNSET ? (enum journal_core) rule->journal_core
                                                                           : config->journal_core,
                .notify = rule && rule->notify != POLICY_UNSET ? (enum notify) rule->notify : NOTIFY_FIRST,
        };
        return ret->rule ? 0 : -ENOMEM;
}

void decision_done(struct decision *d) {
        free(d->rule);
        d->rule = NULL;
}
