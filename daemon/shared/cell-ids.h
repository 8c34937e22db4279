/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The ids a cell runs as when they are not the crashing user's (root's crashes, setuid and
 * non-dumpable tasks, a container's root, the build-ids and compact cores of any crash): a request
 * says CELL_IDS_ANY, and the child gets, as it starts, an id of its own from the range the build
 * chose (meson's cell_ids, by default 0x7FFD0000 and the 65535 above it: above the ranges systemd
 * hands containers, below its foreign range), uid and gid the same number, that no other running
 * child of ours holds. It keeps it until it is reaped, a child stuck in the kernel included. A
 * nobody service — or the cell of another user's crash — then shares no uid with the parser of
 * root's crash: it can neither signal, prlimit nor ptrace it, nor open its /proc files.
 *
 * The range is checked once, at startup (cell_ids_init()): outside every range systemd assigns,
 * and no entry of /etc/passwd, /etc/group, /etc/subuid or /etc/subgid in it. Where it fails (or
 * the build turned it off), every such cell is nobody (65534), as before, and the daemon says why.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* In a request: "not the crashing user's ids" — a leased id, or nobody's without a range. */
#define CELL_IDS_ANY UINT32_C(65534)

/* Checks the build's range (below) against the files under root ("/" on a host; a test's
 * directory), and uses it if it passes; else nobody for all, with why in why. Returns 0 or -errno
 * (-EEXIST: an entry in those files is in the range; -ERANGE: it overlaps an assigned range). */
int cell_ids_init(const char *root, char *why, size_t why_size);
/* The same for a range of one's own (tests): count 0 turns it off. */
int cell_ids_init_range(const char *root, uint32_t first, uint32_t count, char *why, size_t why_size);
/* The range in use (count 0: none, nobody for all). */
void cell_ids_range(uint32_t *ret_first, uint32_t *ret_count);

/*
 * Where *uid (and *gid) is CELL_IDS_ANY, a free id of the range into both, leased to the child
 * about to start: *ret_lease is that id, handed to cell_ids_bind() once the child's pid is known,
 * or back with cell_ids_return() if it did not start. Otherwise (the crashing user's ids, no
 * range, or uid or gid NULL: ids that must stay) nothing changes and *ret_lease is 0. -EBUSY: every id of the range is held.
 */
int cell_ids_lease(uint32_t *uid, uint32_t *gid, uint32_t *ret_lease);
void cell_ids_bind(uint32_t lease, pid_t pid);
void cell_ids_return(uint32_t lease);
/* pid was reaped: the id it held (if any) is free. Every waitpid() of a cell's child calls it. */
void cell_ids_reaped(pid_t pid);
/* Ids held now (leased or bound). */
unsigned cell_ids_held(void);
