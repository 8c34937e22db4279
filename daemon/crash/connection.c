/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>

#include "crash/act.h"
#include "shared/cleanup.h"
#include "crash/connection.h"
#include "crash/crash.h"
#include "shared/log.h"
#include "shared/names.h"
#include "crash/protocol.h"

void connection_init(struct connection *c, int fd) {
        c->fd = fd;
        pthread_mutex_init(&c->lock, NULL);
        atomic_init(&c->expired, false);
}

void connection_destroy(struct connection *c) {
        connection_release(c);
        pthread_mutex_destroy(&c->lock);
}

void connection_release(struct connection *c) {
        pthread_mutex_lock(&c->lock);
        c->fd = safe_close(c->fd);
        pthread_mutex_unlock(&c->lock);
}

void connection_expire(struct connection *c) {
        pthread_mutex_lock(&c->lock);
        if (c->fd >= 0) {
                atomic_store(&c->expired, true);
                (void) shutdown(c->fd, SHUT_RDWR);
        }
        pthread_mutex_unlock(&c->lock);
}

/* ---- the steps ------------------------------------------------------------------------------- */

static int step_authenticate(const struct connection_env *env, struct connection *conn, struct crash *c) {
        int r = env->authenticate(conn->fd, &c->peer, env->authenticate_userdata);
        if (r < 0)
                return r; /* logged by the authenticator; a refused peer costs nothing more */
        c->have_peer = true;
        crash_update_tag(c);
        return 0;
}

static int step_request(struct connection *conn, struct crash *c) {
        int r = request_receive(conn->fd, &c->request);
        switch (r) {
        case 0:
                break;
        case -EBADMSG:
                crash_fail(c, "malformed request (shorter than %u bytes or longer than %u)",
                           COREDUMP_REQ_SIZE_VER0, COREDUMP_REQ_SIZE_MAX);
                log_crash(c->tag, LOG_ERR, "Refusing %s.", c->error);
                return r;
        case -EPROTO:
                crash_fail(c, "request allows an ack of fewer than %u bytes", COREDUMP_ACK_SIZE_VER0);
                log_crash(c->tag, LOG_ERR, "Refusing: %s.", c->error);
                return r;
        default:
                crash_fail(c, "cannot read the request: %s", strerror(-r));
                return log_crash_errno(c->tag, LOG_ERR, r, "Cannot read the coredump request: %m");
        }
        c->have_request = true;

        r = request_check_mask(&c->request);
        if (r < 0) {
                crash_fail(c, "kernel offers mask 0x%" PRIx64 ", lacking 0x%" PRIx64, c->request.mask,
                           (uint64_t) COREDUMP_REQ_NEEDED & ~c->request.mask);
                log_crash(c->tag, LOG_ERR, "Refusing request: %s.", c->error);
                return r;
        }
        return 0;
}

static int step_context_and_policy(const struct connection_env *env, struct crash *c) {
        int r = context_gather(&c->peer, c->tag, &c->context);
        c->have_context = true;
        if (r < 0) {
                crash_fail(c, "cannot gather the crash context: %s", strerror(-r));
                return crash_set_decision(c, ACTION_REJECT, "context-unavailable");
        }
        crash_update_tag(c);
        context_add_probe(&c->context, env->probe, c->tag);

        _cleanup_(policy_unrefp) struct policy *policy = env->policy_acquire(env->policy_userdata);
        r = policy_decide(policy, env->config, &c->context, &c->decision);
        if (r < 0) {
                crash_fail(c, "cannot decide: %s", strerror(-r));
                log_crash_errno(c->tag, LOG_ERR, r, "Cannot apply policy: %m");
                return crash_set_decision(c, ACTION_REJECT, "policy-failed");
        }
        c->have_decision = true;
        return 0;
}

static int step_ack(struct connection *conn, struct crash *c) {
        struct coredump_ack ack;

        int size = ack_build(&c->request, c->decision.action, c->decision.wait, &ack);
        if (size < 0) {
                /* Not offered: REJECT always is (request_check_mask). */
                crash_fail(c, "kernel does not offer action %s", action_to_string(c->decision.action));
                log_crash(c->tag, LOG_ERR, "Rejecting: %s.", c->error);
                size = ack_build(&c->request, ACTION_REJECT, false, &ack);
                if (size < 0)
                        return size;
        }

        int r = ack_send(conn->fd, &ack, (size_t) size);
        if (r < 0) {
                crash_fail(c, "cannot send the ack: %s", strerror(-r));
                return log_crash_errno(c->tag, LOG_ERR, r, "Cannot send the ack: %m");
        }
        c->acked = true;
        c->ack_mask = ack.mask;

        r = mark_receive(conn->fd, &c->mark);
        if (r < 0) {
                crash_fail(c, "no mark after the ack: %s", strerror(-r));
                return log_crash_errno(c->tag, LOG_ERR, r, "Cannot read the kernel's mark: %m");
        }
        c->have_mark = true;

        if (c->mark != COREDUMP_MARK_REQACK) {
                const char *name = mark_to_name(c->mark);
                crash_fail(c, "kernel refused the ack with mark %s (%" PRIu32 ")", name ? name : "unknown", c->mark);
                log_crash(c->tag, LOG_ERR, "Kernel refused our ack (mask 0x%" PRIx64 ", %d bytes) with mark %s (%" PRIu32 ").",
                          ack.mask, size, name ? name : "unknown", c->mark);
                return -EPROTO;
        }
        return 0;
}

/* One line per handled crash. A failure was logged where it happened, with its errno. */
static void log_outcome(const struct crash *c) {
        if (c->result == CRASH_RESULT_FAILED)
                return;
        log_crash(c->tag, LOG_INFO, "Crash handled: %s; action %s, rule %s.", crash_result_to_string(c->result),
                  c->have_decision ? action_to_string(c->decision.action) : "-",
                  c->have_decision ? c->decision.rule : "-");
}

void connection_handle(const struct connection_env *env, struct connection *conn) {
        struct crash c;
        int r;

        crash_init(&c);

        if (step_authenticate(env, conn, &c) < 0)
                goto release;

        bool self = peer_is_self(&c.peer);
        if (self)
                log_crash(c.tag, LOG_CRIT, "Our own process crashed: rejecting at once, never waiting on ourselves.");

        r = step_request(conn, &c);
        if (r < 0)
                goto record;

        if (self)
                r = crash_set_decision(&c, ACTION_REJECT, "self");
        else
                r = step_context_and_policy(env, &c);
        if (r < 0) {
                crash_fail(&c, "out of memory");
                goto record;
        }

        r = step_ack(conn, &c);
        if (r < 0)
                goto record;

        if (c.result == CRASH_RESULT_NONE)
                act_on_decision(env, conn->fd, &conn->expired, &c);

record:
        log_outcome(&c);
        record_crash(&c, env->record_sink, env->record_userdata);
release:
        connection_release(conn);
        crash_done(&c);
}
