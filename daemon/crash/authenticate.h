/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Who is on the other end of a connection. The kernel connects as the crashing task, so the peer's
 * pidfd (SO_PEERPIDFD) names the process; PIDFD_GET_INFO tells whether it is really dumping core.
 * A peer that is not (any userspace client) is refused and costs nothing more.
 */

#include <stdbool.h>

#include "shared/abi.h"

struct peer {
        int pidfd;
        struct pidfd_info info;
        /* Whom bounds are kept for (fair shares, queue room, repeat counters): the real uid, or for
         * a task in a user namespace below ours the uid owning the outermost one (a subuid range
         * counts as its owner's). peer_resolve_owner(). */
        uid_t owner;
};

/* 0: a coredumping task, *ret filled (pidfd owned by *ret). -EPERM: refused (logged). Other
 * negative errno: could not tell (logged). Tests replace this with their own. */
typedef int (*authenticate_fn)(int conn_fd, struct peer *ret, void *userdata);

int authenticate_peer(int conn_fd, struct peer *ret, void *userdata);

/* PIDFD_GET_INFO with the given request mask. */
int pidfd_query_info(int pidfd, uint64_t mask, struct pidfd_info *ret);

/* Sets p->owner (see struct peer): the owner of the task's outermost user namespace below ours
 * (own_user_ns: our user namespace's inode, host_view's; 0: looked up), through
 * PIDFD_GET_USER_NAMESPACE, NS_GET_PARENT and NS_GET_OWNER_UID; its real uid when it is in ours or
 * that cannot be told. */
void peer_resolve_owner(struct peer *p, uint64_t own_user_ns);

/* The peer is this daemon itself (a crash of ours must never wait on our own socket). */
bool peer_is_self(const struct peer *p);
/* The peer is a child of ours: a coredumpd-parser (or a core writer) that crashed on what it read. */
bool peer_is_our_child(const struct peer *p);

void peer_done(struct peer *p);
