/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a crash's record goes (crash/record.h): the system journal, the crashing user's own journal
 * copy (by coredumpd-parser --record, as the user), the kernel's log for journald's own crash; and
 * the core's name and attributes in the store, made of the same fields. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "crash/record.h"
#include "parser/client.h"
#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/log.h"

int record_core_init(const struct crash *c, enum compression compress, struct record_core *ret) {
        const struct crash_context *ctx = &c->context;
        struct record_core core = {};

        int r = record_metadata(c, &core.metadata);
        if (r < 0)
                return r;
        core.name = store_core_name(ctx->comm, ctx->uid, ctx->boot_id, ctx->pid, ctx->timestamp_usec, compress);
        if (!core.name) {
                fields_done(&core.metadata);
                return -ENOMEM;
        }
        *ret = core;
        ret->target = (struct store_target) {
                .name = ret->name,
                .metadata = &ret->metadata,
                .reader_uid = context_user_may_read(ctx) ? ctx->uid : STORE_NO_READER,
                .max_size = c->decision.max_size,
                .compress = compress,
                .tag = c->tag,
        };
        return 0;
}

void record_core_done(struct record_core *core) {
        fields_done(&core->metadata);
        free(core->name);
        *core = (struct record_core) {};
}

int record_sink_journal(const struct fields *f, void *userdata) {
        return sd_journal_sendv(f->v, (int) f->n);
}

static int record_send(const struct crash *c, bool user_copy, bool copy_filed, record_sink_fn sink, void *userdata);

struct user_copy {
        uid_t uid;
        gid_t gid;
        const struct tenant *owner;
        const char *tag;
};

static int sink_user_journal(const struct fields *f, void *userdata) {
        const struct user_copy *u = userdata;
        char reason[256] = "";
        int r = parser_submit_record(f->v, f->n, u->uid, u->gid, u->owner, reason, sizeof reason);
        if (r < 0)
                log_crash(u->tag, LOG_NOTICE, "Cannot file the record in the journal of uid %u too: %s (%s).",
                          (unsigned) u->uid, reason, strerror(-r));
        return r;
}

bool record_crash_for_user(const struct crash *c, record_sink_fn sink, void *userdata) {
        const struct crash_context *ctx = &c->context;
        if (!record_user_copy_wanted(c))
                return false;
        struct user_copy u = { .uid = ctx->uid, .gid = ctx->gid, .owner = &c->peer.tenant, .tag = c->tag };
        /* Sent by coredumpd-parser --record as the user, through its bounded wire
         * (parser_record_encode(), room for a compact core of the largest JournalSizeMax=). Its
         * failure was logged by the sink; the system journal's record then keeps coredumpctl's id. */
        return record_send(c, true, false, sink ?: sink_user_journal, sink ? userdata : &u) >= 0;
}

static int record_send(const struct crash *c, bool user_copy, bool copy_filed, record_sink_fn sink, void *userdata) {
        _cleanup_(fields_done) struct fields f = {};

        int k = user_copy ? record_build_user_copy(c, &f) : copy_filed ? record_build_beside_user_copy(c, &f) : record_build(c, &f);
        if (k < 0) {
                log_crash_errno(c->tag, LOG_ERR, k, "Cannot build the crash record: %m");
                return k;
        }
        k = sink(&f, userdata);
        if (k < 0 && user_copy)
                return k; /* logged by the sink, as what it costs the user */
        if (k < 0)
                log_crash_errno(c->tag, LOG_ERR, k, "Cannot write the crash record: %m");
        return k;
}

void record_crash(const struct crash *c, bool copy_filed, record_sink_fn sink, void *userdata) {
        (void) record_send(c, false, copy_filed, sink, userdata);
}

void record_crash_to_kmsg(const struct crash *c) {
        const struct crash_context *ctx = &c->context;
        char outcome[sizeof c->error + 64], line[1024];
        const char *sig = signal_to_name(ctx->signal);

        if (c->result == CRASH_RESULT_STORED)
                snprintf(outcome, sizeof outcome, "core stored as %s", c->stored.path);
        else
                (void) record_outcome_text(c, outcome, sizeof outcome);
        _cleanup_free_ char *text = escape_text(outcome, strlen(outcome));
        int n = snprintf(line, sizeof line, "<%d>coredumpd: systemd-journald[%d] crashed with %s, %s\n",
                         LOG_DAEMON | LOG_ERR, (int) ctx->pid, sig ? sig : "an unknown signal", text ? text : "?");
        if (n < 0)
                return;
        if ((size_t) n >= sizeof line) {
                line[sizeof line - 2] = '\n';
                n = (int) sizeof line - 1;
        }
        _cleanup_close_ int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 || write(fd, line, (size_t) n) != n)
                log_crash_errno(c->tag, LOG_WARNING, -errno, "Cannot write journald's crash to /dev/kmsg: %m");
        else
                log_crash(c->tag, LOG_NOTICE, "Wrote journald's crash to the kernel log too.");
}
