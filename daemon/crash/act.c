/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "crash/act.h"
#include "crash/act-userspace.h"
#include "shared/cleanup.h"
#include "shared/log.h"

static void act_store(const struct connection_env *env, int fd, const atomic_bool *expired, struct crash *c) {
        _cleanup_(crash_core_done) struct crash_core core = {};
        char error[sizeof c->error] = "";

        int r = crash_core_init(c, &core);
        if (r < 0) {
                crash_fail(c, "out of memory");
                return;
        }
        r = store_core(env->store, fd, &core.target, expired, &c->stored, error, sizeof error);
        if (r < 0) {
                log_crash_errno(c->tag, LOG_ERR, r, "Core not stored: %s", error);
                crash_fail(c, "%s", error);
                return;
        }
        c->have_stored = true;
        c->result = CRASH_RESULT_STORED;
        log_crash(c->tag, LOG_INFO, "Stored core as %s.", c->stored.path);

        (void) store_vacuum(env->store, c->stored.name, c->tag);
}

void act_on_decision(const struct connection_env *env, int fd, const atomic_bool *expired, struct crash *c) {
        switch (c->decision.action) {
        case ACTION_KERNEL:
                act_store(env, fd, expired, c);
                break;
        case ACTION_USERSPACE:
                act_userspace(env, expired, c);
                break;
        case ACTION_REJECT:
        default:
                c->result = CRASH_RESULT_REJECTED;
                break;
        }
}
