/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash/crash.h"
#include "crash/package.h"
#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/log.h"

void crash_init(struct crash *c, const struct config *settings) {
        *c = (struct crash) {
                .settings = *settings,
                .peer.pidfd = -1,
                .context.proc_fd = -1,
                .context.root_fd = -1,
                .context.at_secure = -1,
                .context.container = { .ns_uid = -1, .ns_gid = -1, .delegated_to = -1 },
        };
        snprintf(c->tag, sizeof c->tag, "crash");
}

void crash_done(struct crash *c) {
        kept_files_done(&c->kept);
        free(c->journal_core);
        package_release(c);
        free(c->package);
        c->package = NULL;
        c->journal_core = NULL;
        c->journal_core_size = 0;
        if (c->have_peer)
                peer_done(&c->peer);
        if (c->have_context)
                context_done(&c->context);
        if (c->have_decision)
                decision_done(&c->decision);
        if (c->have_stored)
                stored_core_done(&c->stored);
        c->have_peer = c->have_context = c->have_decision = c->have_stored = false;
}

int crash_fail(struct crash *c, int err, const char *format, ...) {
        char reason[sizeof c->error];
        va_list ap;

        va_start(ap, format);
        vsnprintf(reason, sizeof reason, format, ap);
        va_end(ap);

        /* The log line reads as a sentence, the record's error as a reason: one text, two cases. */
        log_crash_errno(c->tag, LOG_ERR, err, "%c%s.", toupper((unsigned char) reason[0]), reason[0] ? reason + 1 : "");
        if (c->result != CRASH_RESULT_FAILED) {
                c->result = CRASH_RESULT_FAILED;
                c->error_code = err < 0 ? err : -err;
                /* The record's error reads as a reason, not a sentence. */
                snprintf(c->error, sizeof c->error, "%c%s", tolower((unsigned char) reason[0]),
                         reason[0] ? reason + 1 : "");
        }
        return err < 0 ? err : -err;
}

int crash_set_decision(struct crash *c, enum action action, const char *rule) {
        if (c->have_decision)
                decision_done(&c->decision);
        c->decision = (struct decision) {
                .action = action,
                .rule = strdup(rule),
        };
        c->have_decision = c->decision.rule != NULL;
        return c->have_decision ? 0 : -ENOMEM;
}

void crash_update_tag(struct crash *c) {
        if (c->have_context && c->context.comm) {
                _cleanup_free_ char *comm = escape_text(c->context.comm, strlen(c->context.comm));
                snprintf(c->tag, sizeof c->tag, "pid %d (%.40s)", (int) c->context.pid, comm ? comm : "?");
        } else if (c->have_peer)
                snprintf(c->tag, sizeof c->tag, "pid %u", c->peer.info.tgid ? c->peer.info.tgid : c->peer.info.pid);
}

const char *crash_result_to_string(enum crash_result r) {
        switch (r) {
        case CRASH_RESULT_STORED:    return "stored";
        case CRASH_RESULT_REJECTED:  return "rejected";
        case CRASH_RESULT_USERSPACE: return "left-to-userspace";
        case CRASH_RESULT_OVERLOAD:  return "overload";
        case CRASH_RESULT_FAILED:    return "failed";
        default:                     return "none";
        }
}
