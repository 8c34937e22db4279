/* SPDX-License-Identifier: LGPL-2.1-or-later */
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

#include "crash/backtrace.h"
#include "crash/outcome.h"
#include "crash/record.h"
#include "parser/client.h"
#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/log.h"
#include "shared/names.h"

const char *record_outcome_text(const struct crash *c, char *buf, size_t size) {
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
                snprintf(buf, size, "crashed; no core kept: too many crashes at once (overload: %s)",
                         c->error[0] ? c->error : "?");
                break;
        default:
                snprintf(buf, size, "crashed; core not stored: %s", c->error[0] ? c->error : "unknown error");
                break;
        }
        return buf;
}

static int record_add_identity(const struct crash *c, struct fields *f) {
        const struct crash_context *ctx = &c->context;
        const struct pidfd_info *info = &c->peer.info;
        int k = 0;

        if (c->have_context) {
                k = k ?: fields_set_number(f, FIELD_PID, ctx->pid);
                k = k ?: fields_set_unsigned(f, FIELD_UID, ctx->uid);
                k = k ?: fields_set_unsigned(f, FIELD_GID, ctx->gid);
        } else if (c->have_peer) {
                k = k ?: fields_set_unsigned(f, FIELD_PID, info->tgid ? info->tgid : info->pid);
                k = k ?: fields_set_unsigned(f, FIELD_UID, info->ruid);
                k = k ?: fields_set_unsigned(f, FIELD_GID, info->rgid);
        }

        /* The tenant every per-user bound counted the crash against (fair shares, queue quota,
         * rate limits, the store): for a task in a subuid range, the range's user, not
         * COREDUMP_UID=; for a container root made, its user namespace. The owner is the tenant's
         * uid: the user, or 0 (root made the container). */
        if (c->have_peer) {
                char t[TENANT_TEXT_MAX];
                k = k ?: fields_set_unsigned(f, FIELD_OWNER_UID, c->peer.tenant.uid);
                k = k ?: fields_set_text(f, FIELD_TENANT, tenant_format(&c->peer.tenant, t));
        }

        int sig = c->have_context ? ctx->signal :
                  c->have_peer && (info->mask & PIDFD_INFO_COREDUMP_SIGNAL) ? (int) info->coredump_signal : 0;
        if (sig > 0) {
                k = k ?: fields_set_number(f, FIELD_SIGNAL, sig);
                k = k ?: fields_set_text(f, FIELD_SIGNAL_NAME, signal_to_name(sig));
        }
        return k;
}

/* Where the process lives: its ids inside its namespaces, the namespaces, its container. */
static int record_add_container(const struct container_info *ci, struct fields *f) {
        static const enum field ns_fields[_NAMESPACE_MAX] = {
                [NAMESPACE_PID] = FIELD_PID_NS, [NAMESPACE_MNT] = FIELD_MNT_NS, [NAMESPACE_USER] = FIELD_USER_NS,
        };
        char own[32] = "";
        bool compared = false;
        int k = 0;

        if (ci->ns_pid > 0)
                k = k ?: fields_set_number(f, FIELD_NS_PID, ci->ns_pid);
        if (ci->ns_uid >= 0)
                k = k ?: fields_set_number(f, FIELD_NS_UID, ci->ns_uid);
        if (ci->ns_gid >= 0)
                k = k ?: fields_set_number(f, FIELD_NS_GID, ci->ns_gid);
        for (enum namespace_kind n = 0; n < _NAMESPACE_MAX; n++) {
                if (ci->ns[n] != 0)
                        k = k ?: fields_set_unsigned(f, ns_fields[n], ci->ns[n]);
                compared = compared || (ci->ns[n] != 0 && ci->host_ns[n] != 0);
                if (container_ns_differs(ci, n))
                        snprintf(own + strlen(own), sizeof own - strlen(own), "%s%s", own[0] ? " " : "",
                                 namespace_kind_to_string(n));
        }
        if (compared)
                k = k ?: fields_set_text(f, FIELD_OWN_NAMESPACES, own[0] ? own : "none");
        if (compared || ci->name)
                k = k ?: fields_set_number(f, FIELD_IN_CONTAINER, container_info_in_container(ci));
        k = k ?: fields_set_text(f, FIELD_CONTAINER, ci->name);
        k = k ?: fields_set_text(f, FIELD_CONTAINER_KIND, ci->kind);
        if (ci->delegated_to >= 0)
                k = k ?: fields_set_number(f, FIELD_CGROUP_DELEGATED_TO, ci->delegated_to);
        return k ?: fields_set_text(f, FIELD_CONTAINER_CMDLINE, ci->manager_cmdline);
}

/* "PREFIX<id>SUFFIX" of systemd's unit names (user-1000.slice, session-c3.scope): the id, if it
 * is 1 to 31 letters and digits (digits only with digits_only), else NULL. */
static const char *unit_id(const char *name, const char *prefix, const char *suffix, bool digits_only, char buf[static 32]) {
        size_t p = strlen(prefix), s = strlen(suffix);
        if (!name || strncmp(name, prefix, p) != 0)
                return NULL;
        size_t n = strlen(name);
        if (n <= p + s || n - p - s >= 32 || strcmp(name + n - s, suffix) != 0)
                return NULL;
        for (size_t i = p; i < n - s; i++)
                if (!(name[i] >= '0' && name[i] <= '9') &&
                    (digits_only || !((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z'))))
                        return NULL;
        memcpy(buf, name + p, n - p - s);
        buf[n - p - s] = 0;
        return buf;
}

/* COREDUMP_OWNER_UID= and COREDUMP_SESSION= as systemd derives them, from the cgroup path alone
 * (crash/context.c: the slice before the first unit, and that unit): only root's systemd makes
 * those (a delegated subtree lies below a unit), so the task cannot forge them. */
static int record_add_session(const struct crash_context *ctx, struct fields *f) {
        char uid[32], session[32];
        int k = 0;

        if (unit_id(ctx->slice, "user-", ".slice", true, uid)) {
                char *end;
                errno = 0;
                unsigned long long v = strtoull(uid, &end, 10);
                if (errno == 0 && *end == 0 && v < UINT32_MAX)
                        k = k ?: fields_set_unsigned(f, FIELD_SESSION_OWNER_UID, v);
        }
        if (unit_id(ctx->unit, "session-", ".scope", false, session))
                k = k ?: fields_set_text(f, FIELD_SESSION, session);
        return k;
}

static int record_add_context(const struct crash_context *ctx, struct fields *f) {
        int k = 0;

        k = k ?: fields_set_unsigned(f, FIELD_TIMESTAMP, ctx->timestamp_usec);
        if (ctx->rlimit_known)
                k = k ?: fields_set_unsigned(f, FIELD_RLIMIT, ctx->rlimit_core);
        k = k ?: fields_set_text(f, FIELD_COMM, ctx->comm);
        k = k ?: fields_set_text(f, FIELD_EXE, ctx->exe);
        k = k ?: fields_set_text(f, FIELD_CMDLINE, ctx->cmdline);
        static const enum field proc_fields[READER_PROC_PARTS] = { FIELD_PROC_STATUS, FIELD_PROC_MAPS, FIELD_PROC_LIMITS };
        for (size_t i = 0; i < READER_PROC_PARTS; i++)
                if (ctx->proc_text[i] && ctx->proc_text[i][0])
                        k = k ?: fields_set_text(f, proc_fields[i], ctx->proc_text[i]);
        k = k ?: fields_set_text(f, FIELD_CGROUP, ctx->cgroup);
        k = k ?: fields_set_text(f, FIELD_UNIT, ctx->unit);
        k = k ?: fields_set_text(f, FIELD_USER_UNIT, ctx->user_unit);
        k = k ?: fields_set_text(f, FIELD_SLICE, ctx->slice);
        k = k ?: record_add_session(ctx, f);
        k = k ?: fields_set_text(f, FIELD_HOSTNAME, ctx->hostname);
        k = k ?: fields_set_text(f, FIELD_BOOT_ID, ctx->boot_id);
        k = k ?: fields_set_number(f, FIELD_DUMPABLE, ctx->dumpable);
        if (ctx->at_secure >= 0)
                k = k ?: fields_set_number(f, FIELD_AT_SECURE, ctx->at_secure);
        if (ctx->signature[0])
                k = k ?: fields_set_text(f, FIELD_SIGNATURE, ctx->signature);
        if (ctx->site[0])
                k = k ?: fields_set_text(f, FIELD_SITE, ctx->site);
        if (ctx->signature_by_site)
                k = k ?: fields_set_text(f, FIELD_SIGNATURE_FROM, "site");
        return k ?: record_add_container(&ctx->container, f);
}

static int record_add_decision(const struct crash *c, struct fields *f) {
        int k = 0;

        if (c->have_decision) {
                k = k ?: fields_set_text(f, FIELD_ACTION, action_to_string(c->decision.action));
                k = k ?: fields_set_text(f, FIELD_RULE, c->decision.rule);
                if (c->decision.max_age_usec > 0) {
                        char b[32];
                        k = k ?: fields_set_text(f, FIELD_MAX_AGE, format_max_age(b, c->decision.max_age_usec));
                }
                if (c->decision.repeat > 0)
                        k = k ?: fields_set_unsigned(f, FIELD_REPEAT, c->decision.repeat);
        }
        return k;
}

int record_metadata(const struct crash *c, struct fields *f) {
        int k = record_add_identity(c, f);
        if (c->have_context && c->context.crash_id[0])
                k = k ?: fields_set_text(f, FIELD_CRASH_ID, c->context.crash_id);
        if (c->have_context)
                k = k ?: record_add_context(&c->context, f);
        return k ?: record_add_decision(c, f);
}

static int record_add_outcome(const struct crash *c, struct fields *f) {
        int k = 0;

        k = k ?: fields_set_text(f, FIELD_RESULT, crash_result_to_string(c->result));
        if (c->first_seen)
                k = k ?: fields_set_unsigned(f, FIELD_FIRST_SEEN, 1);
        if (c->result != CRASH_RESULT_NONE && crash_reason(c) != METRICS_REASON_NONE)
                k = k ?: fields_set_text(f, FIELD_REASON, metrics_reason_label(crash_reason(c)));
        if (c->have_request)
                k = k ?: fields_set_unsigned(f, FIELD_REQUEST_MASK, c->request.mask);
        if (c->acked)
                k = k ?: fields_set_unsigned(f, FIELD_ACK_MASK, c->ack_mask);
        if (c->have_mark && c->mark != COREDUMP_MARK_REQACK) {
                char number[16];
                const char *name = mark_to_name(c->mark);
                if (!name)
                        snprintf(number, sizeof number, "%" PRIu32, c->mark);
                k = k ?: fields_set_text(f, FIELD_MARK, name ?: number);
        }
        if ((c->result == CRASH_RESULT_FAILED || c->result == CRASH_RESULT_OVERLOAD) && c->error[0])
                k = k ?: fields_set_text(f, FIELD_ERROR, c->error);
        if (c->have_stored) {
                k = k ?: fields_set_text(f, FIELD_FILENAME, c->stored.path);
                k = k ?: fields_set_unsigned(f, FIELD_CORE_SIZE, c->stored.size);
                if (c->stored.truncated)
                        k = k ?: fields_set_number(f, FIELD_TRUNCATED, 1);
                k = k ?: fields_set_text(f, FIELD_CORE_FORM, c->stored.compression == COMPRESSION_ZSTD ? "zstd" : "plain");
                k = k ?: fields_set_unsigned(f, FIELD_AVAILABLE_TIMESTAMP, c->stored.linked_usec);
        }
        if (c->released_usec > 0)
                k = k ?: fields_set_unsigned(f, FIELD_RELEASED_TIMESTAMP, c->released_usec);
        if (c->have_context)
                k = k ?: fields_set_unsigned(f, FIELD_CONTEXT_USEC, c->context.read_usec);
        if (c->acked)
                k = k ?: fields_set_unsigned(f, FIELD_ACK_USEC, c->ack_usec);
        return k;
}

/* Whether journald files an entry written as uid in that user's own journal, not the system one
 * (its uid_for_system_journal(): system users below 1000, systemd's dynamic users, nobody, and
 * the ranges systemd hands containers and foreign images all go to the system journal). */
static bool uid_has_own_journal(uid_t uid) {
        return uid >= 1000 && !(uid >= 61184 && uid <= 65519) && uid != 65534 && uid != (uid_t) -1 &&
               !(uid >= UINT32_C(0x80000) && uid <= UINT32_C(0x6FFFFFFF)) &&
               !(uid >= UINT32_C(0x7FFF0000) && uid <= UINT32_C(0x7FFFFFFF));
}

bool record_user_copy_wanted(const struct crash *c) {
        const struct crash_context *ctx = &c->context;
        /* Stored crashes only: those are handled on a worker thread (a rejection is answered on the
         * event loop, which must not wait for a child), and have a core for the user to fetch. */
        return c->have_stored && c->have_peer && c->have_context && ctx->opened && ctx->uid != 0 && ctx->gid != 0 &&
               context_user_may_read(ctx);
}

bool record_user_copy_takes_core(const struct crash *c) {
        return c->have_context && c->context.uid != 0 && c->context.gid != 0 && context_user_may_read(&c->context) &&
               uid_has_own_journal(c->context.uid) && c->have_decision &&
               c->decision.journal_core != JOURNAL_CORE_NO;
}

static bool system_record_takes_core(const struct crash *c) {
        return c->have_decision && c->decision.journal_core == JOURNAL_CORE_SYSTEM;
}

/* The compact core (COREDUMP=, binary) and its size, or why this record has none where the crash
 * was to have one: the system journal's record carries it with JournalCore=system only, the copy in
 * a regular user's own journal with user too (record_user_copy_takes_core()). */
static int record_add_journal_core(const struct crash *c, bool user_copy, struct fields *f) {
        bool takes = user_copy ? record_user_copy_takes_core(c) : system_record_takes_core(c);
        int k = 0;

        if (c->journal_core && takes) {
                k = k ?: fields_add_binary(f, field_name(FIELD_COREDUMP), c->journal_core, c->journal_core_size);
                k = k ?: fields_set_unsigned(f, FIELD_JOURNAL_CORE_SIZE, c->journal_core_size);
        } else if (user_copy)
                return 0; /* the system journal's record says why */
        else if (c->journal_core)
                k = k ?: fields_set_text(f, FIELD_JOURNAL_CORE_ERROR,
                                         "in the user's own journal only (JournalCore=user)");
        else if (c->journal_core_error[0])
                k = k ?: fields_set_text(f, FIELD_JOURNAL_CORE_ERROR, c->journal_core_error);
        return k;
}

/* What the crash-context probe saw, and the core coredumpd made itself. */
static int record_add_crash_details(const struct crash *c, struct fields *f) {
        const struct crash_context *ctx = &c->context;
        int k = 0;

        if (!c->have_context)
                return 0;
        if (ctx->si_code_known)
                k = k ?: fields_set_number(f, FIELD_SI_CODE, ctx->si_code);
        k = k ?: fields_set_text(f, FIELD_PROBE, ctx->have_probe ? "yes" : "no");
        if (ctx->have_probe) {
                k = k ?: fields_set_number(f, FIELD_CRASH_TID, ctx->probe.tid);
                if (ctx->fault_addr_known)
                        k = k ?: fields_set_unsigned(f, FIELD_FAULT_ADDRESS, ctx->fault_addr);
                if (ctx->probe.have_regs) {
                        k = k ?: fields_set_unsigned(f, FIELD_PROBE_RIP, ctx->probe.regs[CORE_REG_RIP]);
                        k = k ?: fields_set_unsigned(f, FIELD_PROBE_RSP, ctx->probe.regs[CORE_REG_RSP]);
                }
        }
        if (ctx->have_unwind) {
                k = k ?: fields_set_unsigned(f, FIELD_UNWIND_USEC, ctx->unwind.usec);
                if (ctx->unwind.n_threads > 0) {
                        const struct unwind_thread *t = &ctx->unwind.threads[0];
                        _cleanup_free_ char *text = unwind_thread_format(t);
                        k = k ?: fields_set_text(f, FIELD_UNWIND_REGISTERS, ctx->unwind_full_regs ? "full" : "sp+pc");
                        if (t->cut != UNWIND_CUT_NONE)
                                k = k ?: fields_set_text(f, FIELD_BACKTRACE_CUT, unwind_cut_to_string(t->cut) ?: "?");
                        if (signature_partial(&ctx->unwind))
                                k = k ?: fields_set_number(f, FIELD_SIGNATURE_PARTIAL, 1);
                        k = k ?: fields_set_text(f, FIELD_BACKTRACE, text);
                        for (size_t i = 0; i < t->n_frames && k >= 0; i++) {
                                const struct unwind_frame *fr = &t->frames[i];
                                k = fields_add(f, field_name(FIELD_FRAME), "%zu %s+0x%" PRIx64 " %s+0x%" PRIx64 " %s", i,
                                               fr->build_id[0] ? fr->build_id : "-", fr->module_offset,
                                               fr->symbol ? fr->symbol : "-", fr->symbol_offset,
                                               fr->module ? fr->module : "-");
                        }
                }
        }
        if (c->have_selfdump) {
                k = k ?: fields_set_text(f, FIELD_SELFDUMP_MODE, userspace_mode_to_string(c->decision.userspace_mode));
                k = k ?: fields_set_unsigned(f, FIELD_SELFDUMP_THREADS, c->selfdump.n_threads);
                k = k ?: fields_set_unsigned(f, FIELD_SELFDUMP_MEMORY, c->selfdump.memory_bytes);
        }
        /* A container's files, kept with the core or not (crash/keep-files.c). */
        for (size_t i = 0; c->have_stored && i < c->kept.list.n && k >= 0; i++) {
                _cleanup_free_ char *saved = saved_file_format(&c->kept.list.v[i]);
                k = saved ? fields_set_text(f, FIELD_SAVED_FILE, saved) : -ENOMEM;
        }
        if (c->have_stored && c->kept.error[0] && k >= 0)
                k = fields_set_text(f, FIELD_SAVED_FILE_ERROR, c->kept.error);
        return k;
}

/* The package of the executable (crash/package.h): checked by the decoder, set as it came. */
static int record_add_package(const struct crash *c, struct fields *f) {
        const struct package_info *p = c->package;
        int k = 0;

        if (!p)
                return 0;
        if (p->from == PACKAGE_FROM_NONE)
                return fields_set_text(f, FIELD_PACKAGE_ERROR, p->error);
        k = k ?: fields_set_text(f, FIELD_PACKAGE_NAME, p->name);
        k = k ?: fields_set_text(f, FIELD_PACKAGE_VERSION, p->version);
        k = k ?: fields_set_text(f, FIELD_PACKAGE_FROM, package_from_to_string(p->from));
        if (p->json[0])
                k = k ?: fields_set_text(f, FIELD_PACKAGE_JSON, p->json);
        if (p->arch[0])
                k = k ?: fields_set_text(f, FIELD_PACKAGE_ARCHITECTURE, p->arch);
        if (p->source[0])
                k = k ?: fields_set_text(f, FIELD_PACKAGE_SOURCE, p->source);
        if (p->source_version[0])
                k = k ?: fields_set_text(f, FIELD_PACKAGE_SOURCE_VERSION, p->source_version);
        if (p->file[0])
                k = k ?: fields_set_text(f, FIELD_PACKAGE_FILE, p->file);
        if (p->from == PACKAGE_FROM_DPKG)
                k = k ?: fields_set_text(f, FIELD_PACKAGE_MODIFIED, package_modified_to_string(p->modified));
        return k;
}

/* The system journal's record, or (user_copy) the copy in the user's journal: the same fields, the
 * compact core in whichever of them JournalCore= puts it. The system journal's record carries
 * coredumpd's own message id where the copy was filed (copy_filed): coredumpctl lists the crash
 * once, from the copy, for root, adm and the user alike. */
static int record_build_for(const struct crash *c, bool user_copy, bool copy_filed, struct fields *ret) {
        struct fields f = {};
        char outcome[512];
        int k = 0;

        _cleanup_free_ char *comm = c->have_context && c->context.comm
                ? escape_text(c->context.comm, strlen(c->context.comm)) : NULL;
        const char *container_name = c->have_context ? c->context.container.name : NULL;
        _cleanup_free_ char *container = container_name ? escape_text(container_name, strlen(container_name)) : NULL;
        const struct pidfd_info *info = &c->peer.info;
        long long pid = c->have_context ? (long long) c->context.pid : (long long) (info->tgid ? info->tgid : info->pid);
        unsigned long long uid = c->have_context ? (unsigned long long) c->context.uid : info->ruid;

        k = k ?: fields_set_text(&f, FIELD_MESSAGE_ID, !user_copy && copy_filed ? COREDUMPD_MESSAGE_ID : COREDUMP_MESSAGE_ID);
        k = k ?: fields_set_number(&f, FIELD_PRIORITY, crash_priority(c));
        k = k ?: fields_set_text(&f, FIELD_SYSLOG_IDENTIFIER, "coredumpd");
        _cleanup_free_ char *stacks = c->have_context ? backtrace_message(&c->context) : NULL;
        char repeat[128] = "";
        if (c->have_decision && c->decision.repeat > c->decision.rate_limit_burst && c->decision.rate_limit_burst > 0)
                snprintf(repeat, sizeof repeat, " (repeat %u of signature %s%s)", c->decision.repeat, c->context.signature,
                         c->context.signature_by_site ? ", known by its site, not unwound" : "");
        k = k ?: fields_add(&f, field_name(FIELD_MESSAGE), "Process %lld (%s) of user %llu%s%s %s%s.%s%s", pid,
                            comm ? comm : "n/a", uid, container ? " in container " : "", container ? container : "",
                            record_outcome_text(c, outcome, sizeof outcome), repeat,
                            stacks ? "\n\n" : "", stacks ? stacks : "");
        k = k ?: record_metadata(c, &f);
        k = k ?: record_add_outcome(c, &f);
        k = k ?: record_add_crash_details(c, &f);
        k = k ?: record_add_package(c, &f);
        k = k ?: record_add_journal_core(c, user_copy, &f);

        if (k < 0) {
                fields_done(&f);
                return k;
        }
        *ret = f;
        return 0;
}

int record_build(const struct crash *c, struct fields *ret) {
        return record_build_for(c, false, false, ret);
}

int record_build_beside_user_copy(const struct crash *c, struct fields *ret) {
        return record_build_for(c, false, true, ret);
}

int record_build_user_copy(const struct crash *c, struct fields *ret) {
        return record_build_for(c, true, false, ret);
}

/* The uid and gid of the crashed task: from its context, else from its pidfd. */
static void crash_ids(const struct crash *c, uid_t *ret_uid, gid_t *ret_gid) {
        *ret_uid = c->have_context ? c->context.uid : c->peer.info.ruid;
        *ret_gid = c->have_context ? c->context.gid : c->peer.info.rgid;
}

bool record_user_note_wanted(const struct crash *c) {
        uid_t uid;
        gid_t gid;

        if (!c->have_peer || c->have_stored)
                return false;
        enum metrics_reason why = crash_reason(c);
        if (!(c->result == CRASH_RESULT_OVERLOAD ||
              (c->result == CRASH_RESULT_REJECTED &&
               (why == METRICS_REASON_RULE || why == METRICS_REASON_RLIMIT_ZERO || why == METRICS_REASON_REPEAT))))
                return false;
        crash_ids(c, &uid, &gid);
        /* A regular user of the host's, crashing as themselves: not a subuid range's or a
         * container's task, whose journal nobody reads. */
        return uid != 0 && gid != 0 && uid_has_own_journal(uid) && c->peer.tenant.host && c->peer.tenant.userns == 0 &&
               c->peer.tenant.uid == uid;
}

/* What the user is told of why, beyond the result. */
static const char *note_hint(const struct crash *c) {
        switch (crash_reason(c)) {
        case METRICS_REASON_RLIMIT_ZERO:
                return " Its soft RLIMIT_CORE was 0: a shell or service started before coredumpd was installed "
                       "keeps Debian's 0 until it is started again (log in again, or restart the service).";
        case METRICS_REASON_REPEAT:
                return " It crashed at the same place more often than RateLimitBurst= allows in the interval: "
                       "the first of these crashes are kept, the next ones are not told here.";
        case METRICS_REASON_OVERLOAD:
                return " Too many crashes came at once; try again later.";
        default:
                return " The policy (dumpctl policy) says no core for it.";
        }
}

int record_build_user_note(const struct crash *c, struct fields *ret) {
        const struct crash_context *ctx = &c->context;
        struct fields f = {};
        char outcome[512];
        uid_t uid;
        gid_t gid;
        int k = 0;

        crash_ids(c, &uid, &gid);
        _cleanup_free_ char *comm = c->have_context && ctx->comm ? escape_text(ctx->comm, strlen(ctx->comm)) : NULL;
        const struct pidfd_info *info = &c->peer.info;
        long long pid = c->have_context ? (long long) ctx->pid : (long long) (info->tgid ? info->tgid : info->pid);

        /* coredumpd's id: coredumpctl lists the crash once, from the system journal's record. */
        k = k ?: fields_set_text(&f, FIELD_MESSAGE_ID, COREDUMPD_MESSAGE_ID);
        k = k ?: fields_set_number(&f, FIELD_PRIORITY, LOG_NOTICE);
        k = k ?: fields_set_text(&f, FIELD_SYSLOG_IDENTIFIER, "coredumpd");
        k = k ?: fields_add(&f, field_name(FIELD_MESSAGE), "Process %lld (%s) of user %llu %s.%s", pid,
                            comm ? comm : "n/a", (unsigned long long) uid, record_outcome_text(c, outcome, sizeof outcome),
                            note_hint(c));
        k = k ?: record_add_identity(c, &f);
        if (c->have_context) {
                if (ctx->crash_id[0])
                        k = k ?: fields_set_text(&f, FIELD_CRASH_ID, ctx->crash_id);
                k = k ?: fields_set_unsigned(&f, FIELD_TIMESTAMP, ctx->timestamp_usec);
                k = k ?: fields_set_text(&f, FIELD_COMM, ctx->comm);
                k = k ?: fields_set_text(&f, FIELD_EXE, ctx->exe);
                k = k ?: fields_set_text(&f, FIELD_UNIT, ctx->unit);
                k = k ?: fields_set_text(&f, FIELD_USER_UNIT, ctx->user_unit);
                k = k ?: record_add_session(ctx, &f);
                k = k ?: fields_set_text(&f, FIELD_BOOT_ID, ctx->boot_id);
                if (ctx->signature[0])
                        k = k ?: fields_set_text(&f, FIELD_SIGNATURE, ctx->signature);
        }
        k = k ?: record_add_decision(c, &f);
        k = k ?: fields_set_text(&f, FIELD_RESULT, crash_result_to_string(c->result));
        k = k ?: fields_set_text(&f, FIELD_REASON, metrics_reason_label(crash_reason(c)));
        if (c->result == CRASH_RESULT_OVERLOAD && c->error[0])
                k = k ?: fields_set_text(&f, FIELD_ERROR, c->error);
        if (k < 0) {
                fields_done(&f);
                return k;
        }
        *ret = f;
        return 0;
}

void record_note_ids(const struct crash *c, uid_t *ret_uid, gid_t *ret_gid) {
        crash_ids(c, ret_uid, ret_gid);
}
