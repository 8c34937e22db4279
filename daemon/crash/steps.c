/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crash/backtrace.h"
#include "crash/context-memory.h"
#include "crash/outcome.h"
#include "crash/package.h"
#include "crash/protocol.h"
#include "crash/site.h"
#include "crash/steps.h"
#include "crash/user-notes.h"
#include "crash/userspace.h"
#include "parser/client.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/names.h"
#include "shared/parse.h"
#include "shared/timestamp.h"
#include "store/reserve.h"

int step_authenticate(const struct crash_env *env, int fd, struct crash *c) {
        c->accepted_mono = now_monotonic_usec();
        int r = env->authenticate(fd, &c->peer, env->authenticate_userdata);
        if (r < 0)
                return r;
        c->have_peer = true;
        peer_resolve_tenant(&c->peer, env->host ? env->host->ns.own_user_ns : 0);
        crash_update_tag(c);
        return 0;
}

int step_request(int fd, struct crash *c) {
        int r = request_receive(fd, &c->request);
        switch (r) {
        case 0:
                break;
        case -EBADMSG:
                return crash_fail(c, r, "Refusing a malformed request (shorter than %u bytes or longer than %u)",
                                  COREDUMP_REQ_SIZE_VER0, COREDUMP_REQ_SIZE_MAX);
        case -EPROTO:
                return crash_fail(c, r, "Refusing a request that allows an ack of fewer than %u bytes",
                                  COREDUMP_ACK_SIZE_VER0);
        default:
                return crash_fail(c, r, "Cannot read the request: %s", strerror(-r));
        }
        c->have_request = true;

        r = request_check_mask(&c->request);
        if (r < 0)
                return crash_fail(c, r, "Refusing a request: kernel offers mask 0x%" PRIx64 ", lacking 0x%" PRIx64,
                                  c->request.mask, (uint64_t) COREDUMP_REQ_NEEDED & ~c->request.mask);
        return 0;
}

/* The crash's site key into its context (crash/site.c), read once, by the tenant's reader. */
static bool site_take(struct crash_context *ctx) {
        struct reader_job job;
        bool stalled;

        if (ctx->site_tried)
                return ctx->site[0] != 0;
        ctx->site_tried = true;
        if (ctx->memory_stalled)
                return false;
        /* The crashing thread and its registers, if probed; AT_SECURE for the reader's ids. */
        context_read(ctx, CONTEXT_PROBE | CONTEXT_AT_SECURE);
        context_reader_job(ctx, &job);
        const struct site_task t = {
                .proc_fd = ctx->proc_fd,
                .pid = ctx->pid,
                .exe = ctx->exe,
                .signal = ctx->signal,
                .probe = ctx->have_probe ? &ctx->probe : NULL,
                .tag = ctx->tag,
                .owner = job.owner,
                .reader_uid = job.uid,
                .reader_gid = job.gid,
                .deadline_usec = job.deadline_usec,
        };
        bool taken = site_key_take(&t, ctx->site, &stalled);
        ctx->memory_stalled = ctx->memory_stalled || stalled;
        return taken;
}

/* A crash past its signature's RateLimitBurst= in the interval; a later one: past the first such. */
static bool repeat(const struct crash *c) {
        return crash_is_repeat(c);
}

static bool later_repeat(const struct crash *c) {
        return repeat(c) && c->decision.repeat > c->decision.rate_limit_burst + 1;
}

static bool rate_limited(const struct crash_env *env, const struct crash *c) {
        return env->repeats && c->decision.action != ACTION_REJECT && c->decision.rate_limit_burst > 0;
}

/* A repeat past its burst whose site key (crash/site.c) was unwound to its signature before: counted
 * by it, and not unwound — no coredumpd-parser is started for a crash loop's repeats. */
static bool repeat_by_site(const struct crash_env *env, struct crash *c) {
        struct crash_context *ctx = &c->context;
        unsigned n;

        if (c->unwind_tried || !site_take(ctx) ||
            !repeats_count_by_site(env->repeats, &c->peer.tenant, ctx->site, c->decision.rate_limit_burst,
                                   c->decision.rate_limit_interval_usec, now_usec(), ctx->signature, &n))
                return false;
        ctx->signature_by_site = true;
        c->unwind_tried = true;
        c->decision.repeat = n;
        return true;
}

/* A crash whose signature came more than RateLimitBurst= times in the interval is a repeat: it gets
 * OnRepeat= (a stacks self-dump, or nothing) instead of the rule's action, decided before the
 * kernel writes a byte. An unwound crash is counted here, with its site key learnt for the next. */
static void decide_repeat(const struct crash_env *env, struct crash *c) {
        struct decision *d = &c->decision;
        struct crash_context *ctx = &c->context;

        if (!rate_limited(env, c) || !ctx->signature[0])
                return;
        if (!ctx->signature_by_site) {
                (void) site_take(ctx);
                d->repeat = repeats_count(env->repeats, &c->peer.tenant, ctx->signature, ctx->site,
                                          d->rate_limit_interval_usec, now_usec());
        }
        if (d->repeat <= d->rate_limit_burst)
                return;
        /* The first repeat of an interval is told; the next are in their records (COREDUMPD_REPEAT=),
         * not three journal lines each: a crash loop's journal entries cost journald what they cost
         * us. */
        log_crash(c->tag, later_repeat(c) ? LOG_DEBUG : LOG_INFO,
                  "Repeat %u of signature %s in its interval (RateLimitBurst=%u%s): %s%s.", d->repeat, ctx->signature,
                  d->rate_limit_burst, ctx->signature_by_site ? "; known by its site, not unwound" : "",
                  action_to_string(d->on_repeat),
                  later_repeat(c) ? "" : "; the next repeats are in their records, not logged");
        d->action = d->on_repeat;
        /* A stacks core of our own needs the task held; a rejected one must not wait for nothing. */
        d->wait = d->action == ACTION_USERSPACE;
        if (d->action == ACTION_USERSPACE)
                d->userspace_mode = USERSPACE_MODE_STACKS;
}

int step_decide(const struct crash_env *env, struct crash *c, bool may_block) {
        int r;

        if (peer_is_self(&c->peer)) {
                log_crash(c->tag, LOG_CRIT, "Our own process crashed: rejecting at once, never waiting on ourselves.");
                return crash_set_decision(c, ACTION_REJECT, "self");
        }
        /* Unwinding it would run a parser on a parser's crash, and so on: its record is enough. */
        if (peer_is_our_child(&c->peer)) {
                log_crash(c->tag, LOG_WARNING, "Our parser crashed on what a crashed task gave it to read: rejecting its own dump.");
                return crash_set_decision(c, ACTION_REJECT, "parser");
        }

        if (!c->have_context) {
                r = context_open(&c->peer, env->host, env->probe, c->tag, &c->context);
                c->have_context = true;
                c->context.reader_wait_usec = MIN(c->settings.deadline_usec, READER_WAIT_USEC);
                        if (r < 0) {
                        (void) crash_fail(c, r, "Cannot gather the crash context: %s",
                                          c->context.refused[0] ? c->context.refused : strerror(-r));
                        return crash_set_decision(c, ACTION_REJECT, "context-unavailable");
                }
                /* journald: every log line of the system waits while it is held (ours too, once
                 * their buffers fill), so it is held no longer than its dump takes. */
                context_read(&c->context, CONTEXT_EXE | CONTEXT_CGROUP);
                c->journald = context_is_journald(&c->context);
                if (c->journald)
                        c->unwind_tried = true; /* not unwound: that would hold it longer */
        }

        /* Unwinding costs the held task time. It comes first when a rule matches on the signature;
         * otherwise the policy decides first, and a crash it rejects is not unwound at all. */
        _cleanup_(policy_unrefp) struct policy *policy = env->policy_acquire(env->policy_userdata);
        if (policy_uses_signature(policy) && !c->journald) {
                if (!may_block)
                        return 0; /* undecided: unwinding reads the task's memory, on a thread */
                context_read(&c->context, CONTEXT_ALL);
                crash_update_tag(c);
                backtrace_take(&c->settings, env->unwind_slots, c);
                c->unwind_tried = true;
        }
        r = policy_decide(policy, &c->settings, &c->context, &c->decision);
        if (r < 0) {
                (void) crash_fail(c, r, "Cannot apply the policy: %s", strerror(-r));
                return crash_set_decision(c, ACTION_REJECT, "policy-failed");
        }
        c->have_decision = true;
        if (c->journald && c->decision.action == ACTION_KERNEL && c->decision.wait) {
                log_crash(c->tag, LOG_NOTICE, "systemd-journald crashed: not holding it past its dump (Wait=no).");
                c->decision.wait = false;
        }
        /* A rejected crash: only what names it in the record (a rejection is then as quick as the
         * kernel allows). One that is kept reads the rest in step_prepare(), on its thread. */
        if (c->decision.action == ACTION_REJECT)
                context_read(&c->context, CONTEXT_IDENTITY);
        crash_update_tag(c);
        return 0;
}

/* Room for the notes and headers of a core beyond its memory: a note per thread, the file map. */
#define CORE_OVERHEAD_MAX (UINT64_C(16) << 20)

/* The most a core of this crash may take: MaxSize= (the rule's), the task's soft RLIMIT_CORE (a size,
 * as the kernel takes it for a core file; 0 is the policy's to reject), and its address space plus
 * the notes (no dumped mapping is larger than the mapping). */
static uint64_t core_cap(const struct crash *c) {
        const struct crash_context *ctx = &c->context;
        uint64_t cap = c->decision.max_size;
        if (ctx->rlimit_known && ctx->rlimit_core > 0 && ctx->rlimit_core != RLIMIT_UNLIMITED)
                cap = MIN(cap, ctx->rlimit_core);
        if (ctx->container.vm_size > 0)
                cap = MIN(cap, ctx->container.vm_size + CORE_OVERHEAD_MAX);
        return cap;
}

/* Room in the store before the kernel writes a byte, for as much as the core may take (not
 * MaxSize= alone: a reservation of MaxSize= each would leave crashes at once without room): it is
 * cut at its reservation; with no room at all the crash is rejected (recorded with why), not
 * streamed into a full disk. */
static void reserve_room(const struct crash_env *env, struct crash *c) {
        struct decision *d = &c->decision;
        char why[256] = "";

        uint64_t want = core_cap(c);
        if (want < d->max_size)
                log_crash(c->tag, LOG_DEBUG, "The core takes at most %" PRIu64 " bytes (MaxSize=%" PRIu64 ").", want,
                          d->max_size);
        d->max_size = want;
        bool makes_core = d->action == ACTION_KERNEL ||
                          (d->action == ACTION_USERSPACE && d->wait && d->userspace_mode != USERSPACE_MODE_NONE);
        if (!env->store || !makes_core)
                return;
        /* MaxUsePerUser= is the tenant's: a subuid range shares its user's, a container has its own. */
        c->reserved = store_reserve(env->store, &c->peer.tenant, want, why, sizeof why);
        if (c->reserved == 0) {
                (void) crash_fail(c, -ENOSPC, "Not keeping a core: %s", why);
                d->action = ACTION_REJECT;
                d->wait = false;
                return;
        }
        if (c->reserved < want)
                log_crash(c->tag, LOG_NOTICE, "Room for %" PRIu64 " of the core's at most %" PRIu64 " bytes: it may be cut.",
                          c->reserved, want);
        /* No core takes more than its reservation. */
        d->max_size = c->reserved;
}

void step_prepare(const struct crash_env *env, struct crash *c) {
        if (!c->have_decision || c->decision.action == ACTION_REJECT)
                return;

        /* A crash loop's repeat, known by its site, is decided before the rest of its context is
         * read: rejected (OnRepeat=reject), it reads no more than any rejected crash. */
        context_read(&c->context, CONTEXT_IDENTITY);
        crash_update_tag(c);
        bool by_site = rate_limited(env, c) && repeat_by_site(env, c);
        if (c->context.memory_stalled && !c->unwind_tried) {
                /* Its reader was killed at its deadline: a parser would wait on the same lock. */
                log_crash(c->tag, LOG_NOTICE, "Not unwinding: the task's memory did not answer its reader within %" PRIu64 " ms.",
                          c->context.reader_wait_usec / 1000);
                c->unwind_tried = true;
        }
        if (!by_site && !c->unwind_tried) {
                context_read(&c->context, CONTEXT_ALL);
                crash_update_tag(c);
                backtrace_take(&c->settings, env->unwind_slots, c);
                c->unwind_tried = true;
        }
        decide_repeat(env, c);
        if (c->decision.action == ACTION_REJECT)
                return;
        context_read(&c->context, CONTEXT_ALL);
        crash_update_tag(c);
        reserve_room(env, c);
        /* A container's files, for the debugger: opened while the task is held, kept later; not
         * again for a repeat, whose first crash has them. */
        if (c->decision.action != ACTION_REJECT && !repeat(c)) /* reserve_room() may reject */
                kept_files_open(&c->context, &c->kept, c->decision.max_size, c->settings.deadline_usec, c->tag);
        /* Its status, maps and limits for the record, by its reader while the task is held (its
         * maps are gone once it is released). */
        if (c->decision.action != ACTION_REJECT)
                context_read_proc_texts(&c->context);
        /* Its root, for its package after the release (crash/package.h). */
        if (c->decision.action != ACTION_REJECT && env->packages)
                package_prepare(c);
}

int step_ack(int fd, struct crash *c) {
        struct coredump_ack ack;

        int size = ack_build(&c->request, c->decision.action, c->decision.wait, &ack);
        if (size < 0) {
                /* Not offered: REJECT always is (request_check_mask). */
                (void) crash_fail(c, size, "Rejecting: kernel does not offer action %s",
                                  action_to_string(c->decision.action));
                size = ack_build(&c->request, ACTION_REJECT, false, &ack);
                if (size < 0)
                        return size;
        }

        int r = ack_send(fd, &ack, (size_t) size);
        if (r < 0)
                return crash_fail(c, r, "Cannot send the ack: %s", strerror(-r));
        c->acked = true;
        if (c->accepted_mono > 0)
                c->ack_usec = now_monotonic_usec() - c->accepted_mono;
        c->ack_mask = ack.mask;
        c->ack_size = (unsigned) size;
        return 0;
}

int step_mark(int fd, struct crash *c) {
        int r = mark_receive(fd, &c->mark);
        if (r < 0)
                return crash_fail(c, r, "No mark after the ack: %s", strerror(-r));
        c->have_mark = true;

        if (c->mark != COREDUMP_MARK_REQACK) {
                const char *name = mark_to_name(c->mark);
                return crash_fail(c, -EPROTO, "Kernel refused our ack (mask 0x%" PRIx64 ", %u bytes) with mark %s (%" PRIu32 ")",
                                  c->ack_mask, c->ack_size, name ? name : "unknown", c->mark);
        }
        return 0;
}

/* Action=kernel: the kernel streams the core, the store keeps it. It is taken plain, at the speed
 * of the socket; compression waits until the task is released (step_keep()). */
static void act_store(const struct crash_env *env, int fd, struct store_progress *progress, struct crash *c) {
        _cleanup_(record_core_done) struct record_core core = {};
        char reason[sizeof c->error] = "";

        int r = record_core_init(c, COMPRESSION_NONE, &core);
        if (r < 0) {
                (void) crash_fail(c, r, "Cannot name the core: %s", strerror(-r));
                return;
        }
        core.target.sync_later = true; /* the task waits for the link, not for the disk */
        r = store_core(env->store, fd, &core.target, progress, &c->stored, reason, sizeof reason);
        if (r < 0) {
                (void) crash_fail(c, r, "%s", reason);
                return;
        }
        c->have_stored = true;
        c->compress_pending = c->decision.compress != COMPRESSION_NONE;
        c->result = CRASH_RESULT_STORED;
        log_crash(c->tag, LOG_INFO, "Stored core as %s.", c->stored.path);
}

void step_act(const struct crash_env *env, int fd, struct store_progress *progress, struct crash *c) {
        switch (c->decision.action) {
        case ACTION_KERNEL:
                act_store(env, fd, progress, c);
                break;
        case ACTION_USERSPACE:
                act_userspace(env->store, env->probe, &progress->expired, c);
                break;
        case ACTION_REJECT:
        default:
                c->result = CRASH_RESULT_REJECTED;
                break;
        }
}

void step_release(struct connection *conn, struct crash *c) {
        connection_release(conn);
        if (c->released_usec == 0) {
                c->released_usec = now_usec();
                if (c->accepted_mono > 0)
                        c->release_usec = now_monotonic_usec() - c->accepted_mono;
        }
}

/* The released task still has its teardown to do (unmapping all it held: the longer the larger it
 * was), and until it ends it is not reaped. Compressing meanwhile would take the CPU from it; the
 * compressor waits for its exit (the pidfd polls readable), for at most env->exit_wait_usec, and
 * not at all once the daemon is stopping (the store is interrupted). */
static void wait_task_exit(const struct crash_env *env, const struct crash *c) {
        if (env->exit_wait_usec == 0 || !c->have_peer || c->peer.pidfd < 0)
                return;
        for (uint64_t waited = 0; waited < env->exit_wait_usec; waited += 100000) {
                if (env->store && atomic_load(&env->store->interrupted))
                        return;
                struct pollfd p = { .fd = c->peer.pidfd, .events = POLLIN };
                if (poll(&p, 1, 100) != 0)
                        return; /* exited, or the pidfd cannot tell: no use waiting */
        }
}

/* JournalSizeMax= is bounded where the parser bounds what it makes. */
_Static_assert(JOURNAL_SIZE_MAX_LIMIT == PARSER_COMPACT_MAX, "JournalSizeMax='s limit is PARSER_COMPACT_MAX");

/* Whether a record carries a compact core: for a core in the store, with JournalSizeMax= not 0,
 * and the first crash of its signature in its rate-limit interval (decision.repeat 1), so that a
 * collector gets one per crash site and owner, not one per crash of a loop. A crash that is not
 * counted (no signature, RateLimitBurst=0, no rate limits) carries none. Which record carries it is
 * JournalCore='s (crash/record.c): none is made that no record would carry. */
static bool journal_core_wanted(const struct crash_env *env, struct crash *c) {
        if (!(c->have_stored && c->settings.journal_size_max > 0 && c->have_decision && c->decision.repeat == 1))
                return false;
        /* The system journal is read by more than root (adm, systemd-journal): a core the crashing
         * user may not read either (setuid, setgid, dumped as root) stays in the store, root-only.
         * Decided here, before step_keep() waits for the task's exit on its account. */
        if (!context_user_may_read(&c->context)) {
                snprintf(c->journal_core_error, sizeof c->journal_core_error, "%s",
                         "withheld: a root-only core (setuid, or not dumpable by its user)");
                return false;
        }
        switch (c->decision.journal_core) {
        case JOURNAL_CORE_SYSTEM:
                return true;
        case JOURNAL_CORE_USER:
                /* Not into the system journal, whose readers may not read root's or a system
                 * service's memory: only a regular user's crash, into their own journal's copy. */
                if (env->user_records && record_user_copy_wanted(c) && record_user_copy_takes_core(c))
                        return true;
                snprintf(c->journal_core_error, sizeof c->journal_core_error, "%s",
                         "withheld from the system journal: not a regular user's crash (JournalCore=user; "
                         "JournalCore=system puts it there)");
                return false;
        default:
                return false; /* JournalCore=no: the operator's choice, as JournalSizeMax=0 */
        }
}

/* The compact core, made by coredumpd-parser --compact-core (with an id of its own, in its cell) from the stored
 * file: the daemon opens it and passes on what comes back (checked for size and ELF header only),
 * never reads the core itself. Read before compression, from the plain file where there is one. A
 * failure costs the record its compact core and says why (COREDUMPD_JOURNAL_CORE_ERROR=). */
static void keep_journal_core(const struct crash_env *env, struct crash *c) {
        char reason[sizeof c->journal_core_error] = "";
        char size[32];

        if (env->store && atomic_load(&env->store->interrupted)) {
                snprintf(c->journal_core_error, sizeof c->journal_core_error, "%s", "not made: coredumpd was stopping");
                return;
        }
        _cleanup_close_ int fd = env->store
                ? openat(env->store->dir_fd, c->stored.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
                : open(c->stored.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        int r = fd < 0 ? -errno : 0;
        if (r < 0)
                snprintf(reason, sizeof reason, "cannot open the stored core: %s", strerror(-r));
        else
                r = parser_compact_core(fd, c->settings.journal_size_max, &c->peer.tenant, &c->journal_core,
                                        &c->journal_core_size,
                                        reason, sizeof reason);
        if (r < 0) {
                snprintf(c->journal_core_error, sizeof c->journal_core_error, "%s", reason[0] ? reason : strerror(-r));
                log_crash(c->tag, LOG_NOTICE, "No compact core in the record (JournalSizeMax=%s): %s.",
                          format_size(size, c->settings.journal_size_max), c->journal_core_error);
                return;
        }
        log_crash(c->tag, LOG_INFO, "A compact core of %zu bytes goes with the record.", c->journal_core_size);
}

void step_keep(const struct crash_env *env, struct crash *c) {
        if (!c->have_stored)
                return;

        bool journal_core = journal_core_wanted(env, c);
        /* Both read the whole core: the released task's teardown goes first. */
        if (c->compress_pending || journal_core)
                wait_task_exit(env, c);
        if (journal_core)
                keep_journal_core(env, c);

        if (c->compress_pending) {
                _cleanup_(record_core_done) struct record_core core = {};
                char reason[sizeof c->error] = "";

                c->compress_pending = false;
                int r = record_core_init(c, c->decision.compress, &core);
                if (r >= 0)
                        r = store_compress(env->store, &c->stored, &core.target, reason, sizeof reason);
                else
                        snprintf(reason, sizeof reason, "%s", strerror(-r));
                if (r < 0)
                        log_crash_errno(c->tag, r == -ECANCELED ? LOG_NOTICE : LOG_WARNING, r,
                                        "Keeping the core uncompressed: %s", reason);
                else
                        log_crash(c->tag, LOG_INFO, "Compressed the core as %s.", c->stored.path);
        }

        /* A plain core that stays plain loses its zero blocks now, off its task's wait (spliced, they
         * were never seen); then it goes on disk before its record says it is there: a core stored
         * while the task waited was linked unsynced (unless its compressed form replaced it, synced
         * before its link). */
        char reason[sizeof c->error] = "";
        int r = env->store ? store_settle(env->store, &c->stored, c->tag, reason, sizeof reason) : 0;
        if (r < 0) {
                (void) crash_fail(c, r, "%s; the core is not kept", reason);
                stored_core_done(&c->stored);
                c->have_stored = false;
                return;
        }

        kept_files_save(env->store, c->stored.name, context_user_may_read(&c->context) ? c->context.uid : STORE_NO_READER,
                        &c->kept, c->tag);
        (void) store_vacuum(env->store, c->stored.name, c->tag);
}

static void step_unreserve(const struct crash_env *env, struct crash *c) {
        if (c->reserved > 0 && env->store)
                store_unreserve(env->store, c->reserved);
        c->reserved = 0;
}

void step_record(const struct crash_env *env, struct crash *c) {
        int level = c->result == CRASH_RESULT_OVERLOAD ? LOG_WARNING : later_repeat(c) ? LOG_DEBUG : LOG_INFO;
        if (c->result != CRASH_RESULT_FAILED) /* a failure was logged where it happened */
                log_crash(c->tag, level,
                          "Crash handled: %s; action %s, rule %s.", crash_result_to_string(c->result),
                          c->have_decision ? action_to_string(c->decision.action) : "-",
                          c->have_decision ? c->decision.rule : "-");
        /* journald's own crash: a line in the kernel's log it reads back once it is up again, the
         * record in the journal too (a datagram its socket keeps until the new journald reads it). */
        if (c->journald)
                record_crash_to_kmsg(c);
        crash_note_first_seen(env, c);
        /* The user's copy first: whether it was filed decides the system record's message id (each
         * crash once in coredumpctl, crash/record.h). */
        bool copy_filed = env->user_records && record_crash_for_user(c, env->user_record_sink, env->user_record_userdata);
        record_crash(c, copy_filed, env->record_sink, env->record_userdata);
        struct metrics *m = env->store ? env->store->metrics : NULL;
        if (env->user_records)
                user_note_crash(c, env->user_record_sink, env->user_record_userdata, m);
        crash_count(m, c);
        crash_notify(env, c);
}

void crash_continue(const struct crash_env *env, struct connection *conn, struct crash *c) {
        if (!c->have_request && step_request(conn->fd, c) < 0)
                goto record;
        if (!c->have_decision && step_decide(env, c, true) < 0) {
                (void) crash_fail(c, -ENOMEM, "Out of memory");
                goto record;
        }
        step_prepare(env, c);
        if (step_ack(conn->fd, c) < 0 || step_mark(conn->fd, c) < 0)
                goto record;

        if (c->result == CRASH_RESULT_NONE)
                step_act(env, conn->fd, &conn->progress, c);

record:
        /* The task waits for nothing that follows: compressing, vacuuming, recording. */
        step_release(conn, c);
        if (connection_abandoned(conn)) {
                /* Given up at its deadline while stuck here (server/pool.c): its record was
                 * written then, with why; no second one, and no core kept without a record. */
                log_crash(c->tag, LOG_NOTICE, "Its thread returned after it was abandoned: not recorded again.");
                if (c->have_stored && env->store)
                        (void) unlinkat(env->store->dir_fd, c->stored.name, 0);
                step_unreserve(env, c);
                return;
        }
        step_keep(env, c);
        step_unreserve(env, c);
        step_package(env, c);
        step_record(env, c);
}

void crash_handle(const struct crash_env *env, struct connection *conn) {
        struct crash c;

        crash_init(&c, env->config);
        if (step_authenticate(env, conn->fd, &c) >= 0)
                crash_continue(env, conn, &c);
        connection_release(conn);
        crash_done(&c);
}
