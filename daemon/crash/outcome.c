/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <syslog.h>

#include "crash/outcome.h"

bool crash_is_repeat(const struct crash *c) {
        return c->have_decision && c->decision.rate_limit_burst > 0 && c->decision.repeat > c->decision.rate_limit_burst;
}

static bool rule_is(const struct crash *c, const char *name) {
        return c->have_decision && c->decision.rule && strcmp(c->decision.rule, name) == 0;
}

/* The decisions made without the policy (crash_set_decision()): what their rule names. */
static bool special_reason(const struct crash *c, enum metrics_reason *ret) {
        if (rule_is(c, "overload"))
                *ret = METRICS_REASON_OVERLOAD;
        else if (rule_is(c, "self") || rule_is(c, "parser"))
                *ret = METRICS_REASON_SELF;
        else if (rule_is(c, "context-unavailable") || rule_is(c, "policy-failed"))
                *ret = METRICS_REASON_NO_CONTEXT;
        else
                return false;
        return true;
}

enum metrics_reason crash_reason(const struct crash *c) {
        enum metrics_reason why;

        switch (c->result) {
        case CRASH_RESULT_STORED:
        case CRASH_RESULT_USERSPACE:
                return crash_is_repeat(c) ? METRICS_REASON_REPEAT : METRICS_REASON_NONE;
        case CRASH_RESULT_OVERLOAD:
                return METRICS_REASON_OVERLOAD;
        case CRASH_RESULT_REJECTED:
                if (special_reason(c, &why))
                        return why;
                if (rule_is(c, "builtin:rlimit-zero"))
                        return METRICS_REASON_RLIMIT_ZERO;
                return crash_is_repeat(c) ? METRICS_REASON_REPEAT : METRICS_REASON_RULE;
        case CRASH_RESULT_FAILED:
                if (special_reason(c, &why))
                        return why;
                if (c->error_code == -ENOSPC || c->error_code == -EDQUOT)
                        return METRICS_REASON_NO_ROOM;
                if (c->error_code == -ETIMEDOUT)
                        return METRICS_REASON_DEADLINE;
                if (c->have_mark && c->mark != COREDUMP_MARK_REQACK)
                        return METRICS_REASON_KERNEL_REFUSED;
                return METRICS_REASON_ERROR;
        default:
                return METRICS_REASON_ERROR;
        }
}

enum metrics_action crash_metrics_action(const struct crash *c) {
        if (!c->have_decision)
                return METRICS_ACTION_NONE;
        switch (c->decision.action) {
        case ACTION_KERNEL:     return METRICS_ACTION_KERNEL;
        case ACTION_USERSPACE:  return METRICS_ACTION_USERSPACE;
        case ACTION_REJECT:     return METRICS_ACTION_REJECT;
        default:                return METRICS_ACTION_NONE;
        }
}

enum metrics_result crash_metrics_result(const struct crash *c) {
        switch (c->result) {
        case CRASH_RESULT_STORED:       return METRICS_RESULT_STORED;
        case CRASH_RESULT_USERSPACE:    return METRICS_RESULT_USERSPACE;
        case CRASH_RESULT_REJECTED:     return METRICS_RESULT_REJECTED;
        case CRASH_RESULT_OVERLOAD:     return METRICS_RESULT_OVERLOAD;
        default:                        return METRICS_RESULT_FAILED;
        }
}

int crash_priority(const struct crash *c) {
        switch (c->result) {
        case CRASH_RESULT_STORED:
        case CRASH_RESULT_USERSPACE:
                return crash_is_repeat(c) ? LOG_NOTICE : LOG_CRIT;
        case CRASH_RESULT_REJECTED:
                return LOG_NOTICE;
        case CRASH_RESULT_OVERLOAD:
                return LOG_WARNING;
        default:
                return LOG_ERR;
        }
}

void crash_count(struct metrics *m, const struct crash *c) {
        if (!m)
                return;
        metrics_count_crash(m, crash_metrics_action(c), crash_metrics_result(c), crash_reason(c));
        if (c->have_stored) {
                metrics_add(m, METRICS_CORES_STORED, 1);
                metrics_add(m, METRICS_CORE_BYTES_STORED, c->stored.disk_size);
                if (c->stored.truncated)
                        metrics_add(m, METRICS_CORES_TRUNCATED, 1);
        }
        if (c->first_seen)
                metrics_add(m, METRICS_SIGNATURES_FIRST_SEEN, 1);
        if (c->acked)
                metrics_observe(m, METRICS_HISTOGRAM_ACK, c->ack_usec);
        if (c->released_usec > 0 && c->accepted_mono > 0)
                metrics_observe(m, METRICS_HISTOGRAM_RELEASE, c->release_usec);
}
