/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The hooks: after a crash's record is written, systemd units are started for whoever wants to
 * act on it, never in the crash's path. Which, by the rule's Notify= (config/policy.h):
 *
 *   coredumpd-crash@CRASH_ID.service          Notify=every: every recorded crash with a crash id;
 *                                             Notify=first (the default): the first crash of its
 *                                             signature in its rate-limit interval
 *                                             (COREDUMPD_REPEAT=1) — a crash loop starts one per
 *                                             interval, and a crash without a counted signature
 *                                             (rejected before it was unwound, RateLimitBurst=0)
 *                                             none; Notify=none: never
 *   coredumpd-new-signature@SIGNATURE.service the first crash of a signature on this host
 *                                             (crash/first-seen.h), unless Notify=none
 *
 * The instance is the crash id (COREDUMPD_CRASH_ID=) or the signature, escaped as systemd-escape
 * does (shared/unit-name.h): %I in the unit gives it back. Here the unit is only named and handed
 * to env->hook_start, which must not block: the server queues it for a thread of its own that
 * starts it (server/hooks.c), only where something is wanted by the template.
 */

#include "crash/crash.h"

struct crash_env;

enum hook {
        HOOK_CRASH,
        HOOK_NEW_SIGNATURE,
        _HOOK_MAX,
};

#define HOOK_CRASH_PREFIX "coredumpd-crash"
#define HOOK_NEW_SIGNATURE_PREFIX "coredumpd-new-signature"

/* The template's name, "coredumpd-crash@.service". */
const char *hook_template(enum hook hook);

/* Hands a unit to start to whoever starts them, for the crash's tenant (whose share of the waiting
 * room it takes); never blocks. */
typedef void (*hook_start_fn)(enum hook hook, const char *unit, const struct tenant *tenant, void *userdata);

/* Before the record: whether the crash's signature is seen for the first time on this host
 * (c->first_seen, the record's COREDUMPD_FIRST_SEEN=1). */
void crash_note_first_seen(const struct crash_env *env, struct crash *c);
/* After the record: the hook units the crash starts, by its rule's Notify=. */
void crash_notify(const struct crash_env *env, const struct crash *c);
