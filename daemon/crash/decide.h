/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The decision for one crash: its context matched against the policy's rules (config/policy.h),
 * the first rule whose every Match*= holds wins, coredumpd.conf supplying what the rule leaves open.
 */

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "config/policy.h"
#include "crash/context.h"

/* What a crash gets. */
struct decision {
        enum action action;
        bool wait;
        uint64_t max_size;
        enum compression compress;
        enum userspace_mode userspace_mode;     /* for ACTION_USERSPACE */
        char *rule;             /* name of the rule that matched */
        uint64_t rate_limit_interval_usec;
        unsigned rate_limit_burst;      /* 0: no rate limit */
        enum action on_repeat;
        uint64_t max_age_usec;  /* the rule's MaxAge=, kept on the core; 0: MaxAge= of coredumpd.conf */
        unsigned repeat;        /* this crash's number for its signature in the interval; 0: not counted */
        enum journal_core journal_core; /* which records carry the compact core (JournalCore=) */
        enum notify notify;     /* which crashes start the hooks (Notify=, crash/notify.h) */
};

/* The context parts (enum context_part) a rule's Match*= read, MatchSignature= aside (the
 * backtrace, crash/backtrace.c). */
unsigned policy_rule_needs(const struct policy_rule *rule);
/* Whether every Match*= of the rule holds. The parts it needs are read (context_read()) only once
 * the conditions on the pidfd's facts hold: a rule that cannot match costs no /proc file. */
bool policy_rule_matches(const struct policy_rule *rule, struct crash_context *ctx);
const struct policy_rule *policy_find_rule(const struct policy *p, struct crash_context *ctx);

/* Applies the first matching rule, with config supplying what the rule leaves open. */
int policy_decide(const struct policy *p, const struct config *config, struct crash_context *ctx,
                  struct decision *ret);
void decision_done(struct decision *d);

/* MatchFaultAddress=: whether one word matches a fault address. */
bool fault_match_matches(const struct fault_match *m, uint64_t addr, uint64_t null_page_end);
