/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The listening socket: passed by systemd (coredumpd.socket), or bound by us for --listen. */

/* The single AF_UNIX stream socket systemd passed. -ENOENT if none was passed. */
int listen_fd_from_systemd(void);

/* Binds and listens on path (mode 0600), replacing a stale socket there. Non-blocking, CLOEXEC. */
int listen_fd_bind(const char *path);
