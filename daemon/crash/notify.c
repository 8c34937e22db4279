/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "crash/first-seen.h"
#include "crash/notify.h"
#include "crash/steps.h"
#include "shared/log.h"
#include "shared/timestamp.h"
#include "shared/unit-name.h"

const char *hook_template(enum hook hook) {
        switch (hook) {
        case HOOK_CRASH:
                return HOOK_CRASH_PREFIX "@.service";
        case HOOK_NEW_SIGNATURE:
                return HOOK_NEW_SIGNATURE_PREFIX "@.service";
        default:
                return NULL;
        }
}

void crash_note_first_seen(const struct crash_env *env, struct crash *c) {
        if (env->first_seen && c->have_context && c->context.signature[0])
                c->first_seen = first_seen_take(env->first_seen, c->context.signature, now_usec());
}

static void start(const struct crash_env *env, const struct crash *c, enum hook hook, const char *prefix, const char *instance) {
        char unit[UNIT_NAME_MAX + 1];

        if (unit_name_instance(prefix, instance, "service", unit, sizeof unit) < 0) {
                log_crash(c->tag, LOG_WARNING, "No hook unit for %s: no valid unit name.", instance);
                return;
        }
        env->hook_start(hook, unit, &c->peer.tenant, env->hook_userdata);
}

void crash_notify(const struct crash_env *env, const struct crash *c) {
        enum notify notify = c->have_decision ? c->decision.notify : NOTIFY_FIRST;

        if (!env->hook_start || notify == NOTIFY_NONE || !c->have_context)
                return;
        /* first: the first of its signature in its interval; without a rate limit there is no
         * repeat, and every crash unwound to a signature is a first. A crash without one (rejected
         * before it was unwound) is not told apart from the next: none. */
        bool crash_hook = notify == NOTIFY_EVERY ||
                          (c->have_decision && (c->decision.repeat == 1 ||
                                                (c->decision.rate_limit_burst == 0 && c->context.signature[0])));
        if (crash_hook && c->context.crash_id[0])
                start(env, c, HOOK_CRASH, HOOK_CRASH_PREFIX, c->context.crash_id);
        if (c->first_seen)
                start(env, c, HOOK_NEW_SIGNATURE, HOOK_NEW_SIGNATURE_PREFIX, c->context.signature);
}
