/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-journal.h>

#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/log.h"
#include "shared/names.h"
#include "crash/record.h"

/* Appends entry ("FIELD=value", malloc'ed), taking it over; frees it on failure. */
static int record_append(struct record *r, char *entry) {
        struct iovec *grown = realloc(r->fields, (r->n + 1) * sizeof *grown);
        if (!grown) {
                free(entry);
                return -ENOMEM;
        }
        r->fields = grown;
        r->fields[r->n++] = (struct iovec) { .iov_base = entry, .iov_len = strlen(entry) };
        return 0;
}

int record_add(struct record *r, const char *field, const char *format, ...) {
        _cleanup_free_ char *value = NULL;
        char *entry;
        va_list ap;

        va_start(ap, format);
        int k = vasprintf(&value, format, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;

        if (asprintf(&entry, "%s=%s", field, value) < 0)
                return -ENOMEM;
        return record_append(r, entry);
}

int record_add_raw(struct record *r, const void *data, size_t size) {
        char *entry = strndup(data, size);
        if (!entry)
                return -ENOMEM;
        return record_append(r, entry);
}

const char *record_get(const struct record *r, const char *field) {
        size_t k = strlen(field);

        for (size_t i = 0; i < r->n; i++) {
                const char *e = r->fields[i].iov_base;
                if (strncmp(e, field, k) == 0 && e[k] == '=')
                        return e + k + 1;
        }
        return NULL;
}

void record_done(struct record *r) {
        for (size_t i = 0; i < r->n; i++)
                free(r->fields[i].iov_base);
        free(r->fields);
        *r = (struct record) {};
}

/* A hostile string as a field: escaped, omitted when unknown. */
static int record_add_escaped(struct record *r, const char *field, const char *raw) {
        if (!raw)
                return 0;
        _cleanup_free_ char *value = escape_text(raw, strlen(raw));
        return value ? record_add(r, field, "%s", value) : -ENOMEM;
}

static const char *crash_outcome_text(const struct crash *c, char *buf, size_t size) {
        switch (c->result) {
        case CRASH_RESULT_STORED:
                if (c->stored.truncated)
                        snprintf(buf, size, "dumped core (truncated at %" PRIu64 " bytes)", c->stored.size);
                else
                        snprintf(buf, size, "dumped core");
                break;
        case CRASH_RESULT_REJECTED:
                snprintf(buf, size, "crashed; no core kept by rule %s", c->have_decision ? c->decision.rule : "?");
                break;
        case CRASH_RESULT_USERSPACE:
                snprintf(buf, size, "crashed; core left to userspace by rule %s", c->have_decision ? c->decision.rule : "?");
                break;
        case CRASH_RESULT_OVERLOAD:
                snprintf(buf, size, "crashed; no core kept: too many crashes at once (overload)");
                break;
        default:
                snprintf(buf, size, "crashed; core not stored: %s", c->error[0] ? c->error : "unknown error");
                break;
        }
        return buf;
}

static int record_add_identity(const struct crash *c, struct record *r) {
        const struct crash_context *ctx = &c->context;
        const struct pidfd_info *info = &c->peer.info;
        int k = 0;

        if (c->have_context) {
                k = k ?: record_add(r, "COREDUMP_PID", "%" PRIi32, (int32_t) ctx->pid);
                k = k ?: record_add(r, "COREDUMP_UID", "%" PRIu32, (uint32_t) ctx->uid);
                k = k ?: record_add(r, "COREDUMP_GID", "%" PRIu32, (uint32_t) ctx->gid);
        } else if (c->have_peer) {
                k = k ?: record_add(r, "COREDUMP_PID", "%" PRIu32, info->tgid ? info->tgid : info->pid);
                k = k ?: record_add(r, "COREDUMP_UID", "%" PRIu32, info->ruid);
                k = k ?: record_add(r, "COREDUMP_GID", "%" PRIu32, info->rgid);
        }

        int sig = c->have_context ? ctx->signal :
                  c->have_peer && (info->mask & PIDFD_INFO_COREDUMP_SIGNAL) ? (int) info->coredump_signal : 0;
        if (sig > 0) {
                k = k ?: record_add(r, "COREDUMP_SIGNAL", "%d", sig);
                if (signal_to_name(sig))
                        k = k ?: record_add(r, "COREDUMP_SIGNAL_NAME", "%s", signal_to_name(sig));
        }
        return k;
}

static int record_add_context(const struct crash_context *ctx, struct record *r) {
        int k = 0;

        k = k ?: record_add(r, "COREDUMP_TIMESTAMP", "%" PRIu64, ctx->timestamp_usec);
        if (ctx->rlimit_known)
                k = k ?: record_add(r, "COREDUMP_RLIMIT", "%" PRIu64, ctx->rlimit_core);
        k = k ?: record_add_escaped(r, "COREDUMP_COMM", ctx->comm);
        k = k ?: record_add_escaped(r, "COREDUMP_EXE", ctx->exe);
        if (ctx->cmdline)
                k = k ?: record_add(r, "COREDUMP_CMDLINE", "%s", ctx->cmdline);
        k = k ?: record_add_escaped(r, "COREDUMP_CGROUP", ctx->cgroup);
        k = k ?: record_add_escaped(r, "COREDUMP_UNIT", ctx->unit);
        k = k ?: record_add_escaped(r, "COREDUMP_USER_UNIT", ctx->user_unit);
        k = k ?: record_add_escaped(r, "COREDUMP_SLICE", ctx->slice);
        k = k ?: record_add_escaped(r, "COREDUMP_HOSTNAME", ctx->hostname);
        k = k ?: record_add(r, "COREDUMPD_BOOT_ID", "%s", ctx->boot_id);
        k = k ?: record_add(r, "COREDUMPD_DUMPABLE", "%d", ctx->dumpable);
        if (ctx->at_secure >= 0)
                k = k ?: record_add(r, "COREDUMPD_AT_SECURE", "%d", ctx->at_secure);
        return k;
}

static int record_add_outcome(const struct crash *c, struct record *r) {
        int k = 0;

        if (c->have_decision) {
                k = k ?: record_add(r, "COREDUMPD_ACTION", "%s", action_to_string(c->decision.action));
                k = k ?: record_add(r, "COREDUMPD_RULE", "%s", c->decision.rule);
        }
        k = k ?: record_add(r, "COREDUMPD_RESULT", "%s", crash_result_to_string(c->result));
        if (c->have_request)
                k = k ?: record_add(r, "COREDUMPD_REQUEST_MASK", "0x%" PRIx64, c->request.mask);
        if (c->acked)
                k = k ?: record_add(r, "COREDUMPD_ACK_MASK", "0x%" PRIx64, c->ack_mask);
        if (c->have_mark && c->mark != COREDUMP_MARK_REQACK) {
                const char *name = mark_to_name(c->mark);
                if (name)
                        k = k ?: record_add(r, "COREDUMPD_MARK", "%s", name);
                else
                        k = k ?: record_add(r, "COREDUMPD_MARK", "%" PRIu32, c->mark);
        }
        if (c->result == CRASH_RESULT_FAILED && c->error[0])
                k = k ?: record_add_escaped(r, "COREDUMPD_ERROR", c->error);
        if (c->have_stored) {
                k = k ?: record_add(r, "COREDUMP_FILENAME", "%s", c->stored.path);
                k = k ?: record_add(r, "COREDUMPD_CORE_SIZE", "%" PRIu64, c->stored.size);
                if (c->stored.truncated)
                        k = k ?: record_add(r, "COREDUMP_TRUNCATED", "1");
        }
        return k;
}

/* What the crash-context probe saw, and the core coredumpd made itself. */
static int record_add_crash_details(const struct crash *c, struct record *r) {
        const struct crash_context *ctx = &c->context;
        int k = 0;

        if (!c->have_context)
                return 0;
        if (ctx->si_code_known)
                k = k ?: record_add(r, "COREDUMPD_SI_CODE", "%d", ctx->si_code);
        k = k ?: record_add(r, "COREDUMPD_PROBE", "%s", ctx->have_probe ? "yes" : "no");
        if (ctx->have_probe) {
                k = k ?: record_add(r, "COREDUMPD_CRASH_TID", "%d", (int) ctx->probe.tid);
                if (ctx->fault_addr_known)
                        k = k ?: record_add(r, "COREDUMPD_FAULT_ADDRESS", "0x%" PRIx64, ctx->fault_addr);
                if (ctx->probe.have_regs) {
                        k = k ?: record_add(r, "COREDUMPD_PROBE_RIP", "0x%" PRIx64, ctx->probe.regs[CORE_REG_RIP]);
                        k = k ?: record_add(r, "COREDUMPD_PROBE_RSP", "0x%" PRIx64, ctx->probe.regs[CORE_REG_RSP]);
                }
        }
        if (c->have_selfdump) {
                k = k ?: record_add(r, "COREDUMPD_USERSPACE_MODE", "%s", userspace_mode_to_string(c->decision.userspace_mode));
                k = k ?: record_add(r, "COREDUMPD_USERSPACE_THREADS", "%u", c->selfdump.n_threads);
                k = k ?: record_add(r, "COREDUMPD_USERSPACE_MEMORY", "%" PRIu64, c->selfdump.memory_bytes);
        }
        return k;
}

int record_build(const struct crash *c, struct record *ret) {
        struct record r = {};
        char outcome[512];
        int k = 0;

        _cleanup_free_ char *comm = c->have_context && c->context.comm
                ? escape_text(c->context.comm, strlen(c->context.comm)) : NULL;
        const struct pidfd_info *info = &c->peer.info;
        long long pid = c->have_context ? (long long) c->context.pid : (long long) (info->tgid ? info->tgid : info->pid);
        unsigned long long uid = c->have_context ? (unsigned long long) c->context.uid : info->ruid;

        k = k ?: record_add(&r, "MESSAGE_ID", COREDUMP_MESSAGE_ID);
        k = k ?: record_add(&r, "PRIORITY", "%d", c->result == CRASH_RESULT_FAILED ? LOG_ERR : LOG_CRIT);
        k = k ?: record_add(&r, "SYSLOG_IDENTIFIER", "coredumpd");
        k = k ?: record_add(&r, "MESSAGE", "Process %lld (%s) of user %llu %s.", pid, comm ? comm : "n/a", uid,
                            crash_outcome_text(c, outcome, sizeof outcome));
        k = k ?: record_add_identity(c, &r);
        if (c->have_context)
                k = k ?: record_add_context(&c->context, &r);
        k = k ?: record_add_outcome(c, &r);
        k = k ?: record_add_crash_details(c, &r);

        if (k < 0) {
                record_done(&r);
                return k;
        }
        *ret = r;
        return 0;
}

int record_sink_journal(const struct record *r, void *userdata) {
        return sd_journal_sendv(r->fields, (int) r->n);
}

void record_crash(const struct crash *c, record_sink_fn sink, void *userdata) {
        _cleanup_(record_done) struct record r = {};

        int k = record_build(c, &r);
        if (k < 0) {
                log_crash_errno(c->tag, LOG_ERR, k, "Cannot build the crash record: %m");
                return;
        }
        k = sink(&r, userdata);
        if (k < 0)
                log_crash_errno(c->tag, LOG_ERR, k, "Cannot write the crash record: %m");
}
