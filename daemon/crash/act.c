/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "crash/act.h"
#include "crash/act-userspace.h"
#include "shared/log.h"

static void act_store(const struct connection_env *env, int fd, const atomic_bool *expired, struct crash *c) {
        char error[sizeof c->error] = "";

        int r = store_core(env->store, fd, &c->context, &c->decision, expired, c->tag, &c->stored, error,
                           sizeof error);
        if (r < 0) {
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
