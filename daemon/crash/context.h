/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reading the context of a crash (crash/context-state.h): opened through the pidfd, /proc read in parts. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crash/context-state.h"

/* proc_path NULL: "/proc". Never fails: a /proc that cannot be trusted leaves proc_fd -1, and every
 * crash is then refused with the reason (context_open()). */
void host_view_open(const char *proc_path, struct host_view *ret);
void host_view_close(struct host_view *v);

/* Starts *ret for the peer with what its pidfd and the host view tell (ids, signal, dump mode,
 * si_code, the crash id on pidfs), reading no /proc file yet. The host's /proc must have passed
 * proc_root_check(); the /proc/<pid> directory is verified against the pidfd once and kept open in
 * ret->proc_fd for the later steps (unwinding, a core of our own); failing either, or a vanished
 * process, yields an error (logged, with tag; ret->refused says why). tag must outlive ret (it is
 * the crash's, updated as the crash learns its name); probe may be NULL. */
int context_open(const struct peer *peer, const struct host_view *host, struct probe *probe, const char *tag,
                 struct crash_context *ret);
/* Reads the parts (enum context_part) not read yet, with those they need. Fields that cannot be
 * read stay empty (logged). Nothing for a context that is not opened (a test's, or a refused one). */
void context_read(struct crash_context *c, unsigned parts);

/* Whether fd is the root directory of a procfs mount: statfs f_type PROC_SUPER_MAGIC and inode
 * PROCFS_ROOT_INODE. 0, or -EXDEV with the reason in reason (an -errno of fstatfs()/fstat() as it
 * is, with a reason too). Nothing is read from a /proc that fails it. */
int proc_root_check(int fd, char *reason, size_t size);
void context_done(struct crash_context *c);

/* The task's root, once: 1 when it has one of its own (a container; ctx->root_fd, the files it
 * maps are to be opened in it), 0 when it shares ours or it cannot be told (logged). */
int context_open_root(struct crash_context *c, const char *tag);


/* Whether the crashed task is the system's journald: its unit (from its cgroup) is
 * systemd-journald.service and its executable is the host's own /usr/lib/systemd/systemd-journald
 * (or /lib/...): the same inode, not a file of that name. Needs CONTEXT_EXE and CONTEXT_CGROUP. */
bool context_is_journald(const struct crash_context *c);

/* Pure parsers of /proc contents (exposed for tests and fuzzing). */
int parse_limits_core(const char *limits, uint64_t *ret_soft);
int parse_auxv_at_secure(const void *data, size_t size, int *ret);
int parse_proc_cgroup(const char *text, char **ret_path);
int cgroup_path_to_units(const char *path, char **ret_unit, char **ret_user_unit, char **ret_slice);
