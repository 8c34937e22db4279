/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "shared/elf-build-id.h"

/*
 * The files a crashed task maps, opened the way the task sees them. A task in a container has a
 * root of its own: the path /proc/<pid>/maps names is a path inside that root, and the file of the
 * same name on the host is another file (or none). Such a path is resolved inside the task's root
 * (/proc/<pid>/root, openat2 with RESOLVE_IN_ROOT: its absolute symlinks stay inside, no magic
 * links; where openat2 is refused, as under RestrictSUIDSGID=, a walk that follows no link at all:
 * open_beneath_nofollow()), and what is opened is used only if it is still the mapped file (the
 * device and inode the mapping names): a container's kept files (parser/keep.c). The unwinder walks
 * no path: it takes the mapped files through /proc/<pid>/map_files (parser/map-files.h), with the
 * CAP_CHECKPOINT_RESTORE the daemon passes on to the parser before its cell. Mappings marked remote
 * (proc_maps_read_marked()) are never opened.
 */

#include <stdbool.h>
#include <sys/types.h>

#include "selfdump/proc-maps.h"

/* The task's root when it is not ours (st_dev/st_ino of /proc/<pid>/root differ from those of our
 * "/"): 1 and an O_PATH directory fd in *ret_fd; 0 and -1 when it is ours; -errno when it cannot be
 * looked at. A thread group leader that has exited has no root any more: then tid's (if > 0). */
int task_root_open(int proc_fd, pid_t tid, int *ret_fd);

/* Opens the mapped file of m (read-only, close-on-exec) inside root_fd, or from our own root when
 * root_fd is -1. maps names a file by the reader's path where the task's root is reachable from
 * it (a chroot in our mount namespace), by the path inside it otherwise (a container's own mount
 * namespace): a path that is not the mapped file inside root_fd is tried from our root too. Either
 * way only the mapped inode is taken. -EREMOTE for a mapping marked remote, -ESTALE when the path
 * names another file than the mapped one (replaced, deleted, or a symlink elsewhere), -EBADF when
 * it is not a regular file. The path is looked at with O_PATH first: a device node or FIFO at it is
 * never opened. Returns the fd. */
int task_file_open(int root_fd, const struct proc_mapping *m);

/* A regular file looked at with O_PATH (path_fd) opened read-only through /proc/self/fd: the fd,
 * -EBADF for anything but a regular file (never opened), or -errno. */
int task_file_reopen(int path_fd);

/* openat2()'s RESOLVE_IN_ROOT for a resolved path, where there is no openat2(): path (absolute) is
 * walked from root_fd one component at a time, following no symlink and no "..", so it cannot leave
 * root_fd; the last component is opened with flags. -ELOOP for a symlink on the way, -EINVAL for
 * "." or "..". */
int open_beneath_nofollow(int root_fd, const char *path, int flags);

/* Whether the file opened as fd is the file m maps (same inode; same device, or an overlayfs
 * file, whose mapping names the layer's device). */
bool task_file_is_mapped(int fd, const struct proc_mapping *m);

