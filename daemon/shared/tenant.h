/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Whom a crash counts against: its tenant. Every bound kept per owner — the fair shares of
 * MaxConcurrentPerUser=, the queue quota of MaxQueuedPerUser=, MaxUsePerUser= and the vacuum's
 * heaviest user, the repeat counters of a signature, the cgroup names kept — is kept per tenant,
 * and only here is it said what one is:
 *
 *   - a uid of the host's user namespace: a task's real uid there; a task in a user namespace a
 *     user (not root) made counts as that user, whatever (sub)uid it runs as;
 *   - a container: a task in a user namespace root made (systemd-nspawn -U, LXD/Incus, rootful
 *     podman with a user namespace, a service's PrivateUsers=) counts under that namespace — the
 *     outermost one below the host's, which nothing inside can leave or replace — never as root.
 *
 * The room kept for root and system users (ReservedConcurrent=, an eighth of MaxQueued=) is for
 * tasks of the host's own user namespace only (tenant_is_system()).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Uids up to this are root and system users. */
#define SYSTEM_UID_MAX 999

struct tenant {
        uint32_t uid;           /* a uid of the host's user namespace (0 for a container: root made it) */
        uint64_t userns;        /* a container: its outermost user namespace's inode; 0: none */
        bool host;              /* the task is in the host's user namespace itself */
};

/* The user namespace of a task of real uid 0 whose namespace could not be learnt: none of host
 * root's bounds (authenticate.c). */
#define TENANT_USERNS_UNKNOWN UINT64_MAX

/* The tenant of a task of the host's user namespace with real uid uid. */
static inline struct tenant tenant_of_uid(uint32_t uid) {
        return (struct tenant) { .uid = uid, .host = true };
}

/* The same tenant: one's bounds are the other's (host says where a task is, not whose it is). */
static inline bool tenant_equal(const struct tenant *a, const struct tenant *b) {
        return a->uid == b->uid && a->userns == b->userns;
}

/* Root or a system user, in the host's own user namespace: may use the room kept for them. */
static inline bool tenant_is_system(const struct tenant *t) {
        return t->host && t->userns == 0 && t->uid <= SYSTEM_UID_MAX;
}

/* "UID" for a uid of the host's, "UID:USERNS" for a container; at most TENANT_TEXT_MAX with its 0.
 * The form of the record (COREDUMPD_TENANT=), of the stored core's attribute and of the repeat
 * counters' file. */
#define TENANT_TEXT_MAX 32
const char *tenant_format(const struct tenant *t, char buf[static TENANT_TEXT_MAX]);
/* Parses tenant_format()'s text (a plain uid, as files of before tenants say, is a uid's); the
 * task's place (host) is not in it: false. 0 or -EINVAL. */
int tenant_parse(const char *s, struct tenant *ret);
