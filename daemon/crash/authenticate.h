/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Who is on the other end of a connection. The kernel connects as the crashing task, so the peer's
 * pidfd (SO_PEERPIDFD) names the process; PIDFD_GET_INFO tells whether it is really dumping core.
 * A peer that is not (any userspace client) is refused and costs nothing more.
 */

#include <stdbool.h>

#include "shared/abi.h"
#include "shared/tenant.h"

struct peer {
        int pidfd;
        struct pidfd_info info;
        /* Whom every bound is kept for (shared/tenant.h): peer_resolve_tenant(). */
        struct tenant tenant;
};

/* 0: a coredumping task, *ret filled (pidfd owned by *ret). -EPERM: refused (logged). Other
 * negative errno: could not tell (logged). Tests replace this with their own. */
typedef int (*authenticate_fn)(int conn_fd, struct peer *ret, void *userdata);

int authenticate_peer(int conn_fd, struct peer *ret, void *userdata);

/* PIDFD_GET_INFO with the given request mask. */
int pidfd_query_info(int pidfd, uint64_t mask, struct pidfd_info *ret);

/* Sets p->tenant (shared/tenant.h) from the task's user namespace, through
 * PIDFD_GET_USER_NAMESPACE, NS_GET_PARENT and NS_GET_OWNER_UID (own_user_ns: our user namespace's
 * inode, host_view's; 0: looked up): in ours, its real uid; below ours, the outermost one's — its
 * owner's uid if a user made it, the namespace itself if root did. Where that cannot be told, the
 * real uid, as not in ours (never a system user's). */
void peer_resolve_tenant(struct peer *p, uint64_t own_user_ns);

/* The peer is this daemon itself (a crash of ours must never wait on our own socket). */
bool peer_is_self(const struct peer *p);
/* The peer is a child of ours: a coredumpd-parser (or a core writer) that crashed on what it read. */
bool peer_is_our_child(const struct peer *p);

void peer_done(struct peer *p);
