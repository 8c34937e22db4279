/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/openat2.h>

#include "selfdump/task-files.h"
#include "shared/cleanup.h"

#ifndef OVERLAYFS_SUPER_MAGIC
#define OVERLAYFS_SUPER_MAGIC 0x794c7630
#endif

/* The identity of a directory as the VFS has it cached: AT_STATX_DONT_SYNC keeps a file system
 * that asks someone (FUSE, and overlayfs over it) from being asked — the task's root may be a
 * mount its user serves and never answers. Device and inode number are the inode's own. */
static int cached_identity(int dir_fd, const char *path, int flags, struct statx *ret) {
        if (statx(dir_fd, path, flags | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO, ret) < 0)
                return -errno;
        return 0;
}

static bool same_inode(const struct statx *a, const struct statx *b) {
        return a->stx_dev_major == b->stx_dev_major && a->stx_dev_minor == b->stx_dev_minor &&
               a->stx_ino == b->stx_ino;
}

static int root_of(int proc_fd, const char *name, int *ret_fd) {
        struct statx ours, theirs;

        int r = cached_identity(AT_FDCWD, "/", 0, &ours);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = openat(proc_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = cached_identity(fd, "", AT_EMPTY_PATH, &theirs);
        if (r < 0)
                return r;
        if (same_inode(&ours, &theirs)) {
                *ret_fd = -1;
                return 0;
        }
        *ret_fd = TAKE_FD(fd);
        return 1;
}

int task_root_open(int proc_fd, pid_t tid, int *ret_fd) {
        int r = root_of(proc_fd, "root", ret_fd);
        if (r >= 0 || tid <= 0)
                return r;
        char name[64];
        snprintf(name, sizeof name, "task/%d/root", (int) tid);
        int k = root_of(proc_fd, name, ret_fd);
        return k >= 0 ? k : r;
}

bool task_file_is_mapped(int fd, const struct proc_mapping *m) {
        struct stat st;
        struct statfs sfs;

        if (fstat(fd, &st) < 0 || (uint64_t) st.st_ino != m->inode)
                return false;
        if (major(st.st_dev) == m->dev_major && minor(st.st_dev) == m->dev_minor)
                return true;
        return fstatfs(fd, &sfs) == 0 && (unsigned long) sfs.f_type == OVERLAYFS_SUPER_MAGIC;
}

int open_beneath_nofollow(int root_fd, const char *path, int flags) {
        if (!path || path[0] != '/')
                return -EINVAL;
        _cleanup_close_ int dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (dir < 0)
                return -errno;
        for (const char *p = path;;) {
                p += strspn(p, "/");
                size_t n = strcspn(p, "/");
                char name[NAME_MAX + 1];
                if (n == 0 || n > NAME_MAX)
                        return -EINVAL;
                memcpy(name, p, n);
                name[n] = 0;
                if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                        return -EINVAL;
                p += n;
                if (p[strspn(p, "/")] == 0) {
                        int fd = openat(dir, name, flags | O_NOFOLLOW);
                        return fd < 0 ? -errno : fd;
                }
                int next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        return errno == ENOTDIR ? -ELOOP : -errno; /* a symlink (or a file) on the way */
                safe_close(dir);
                dir = next;
        }
}

/* Looks path up inside root_fd (or from our root when it is -1), following no symlink (maps names
 * resolved paths: none is needed), as O_PATH: nothing is opened yet, so a device node or FIFO that
 * sits at the path by now (a bind mount, a rename) is only looked at, never opened. */
static int lookup(int root_fd, const char *path) {
        int flags = O_PATH | O_CLOEXEC | O_NOFOLLOW;
        int fd;
        if (root_fd >= 0) {
                struct open_how how = {
                        .flags = (uint64_t) flags,
                        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
                };
                fd = (int) syscall(SYS_openat2, root_fd, path, &how, sizeof how);
                /* No openat2(): a kernel before 5.6, or a system call filter (the parser's cell);
                 * coredumpd.service's RestrictSUIDSGID=yes makes systemd answer every openat2()
                 * with ENOSYS (its flags cannot be inspected by seccomp). maps names a file by its
                 * resolved path, so no link needs following; none is. */
                if (fd < 0 && (errno == ENOSYS || errno == EPERM))
                        return open_beneath_nofollow(root_fd, path, flags);
                return fd < 0 ? -errno : fd;
        }
        _cleanup_close_ int ours = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        return ours < 0 ? -errno : open_beneath_nofollow(ours, path, flags);
}

int task_file_reopen(int path_fd) {
        struct stat st;
        if (fstat(path_fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADF;
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", path_fd);
        /* O_NONBLOCK besides: no mandatory lock or lease makes the open wait. */
        int fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        /* The magic link opens the inode path_fd holds: still the regular file looked at. */
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -EBADF;
        }
        return fd;
}

/* The fd of the mapped file at m->path inside root_fd (or our root), read-only: looked at first
 * (regular, the mapped inode), opened after. */
static int open_checked(int root_fd, const struct proc_mapping *m) {
        _cleanup_close_ int at = lookup(root_fd, m->path);
        if (at < 0)
                return at;
        struct stat st;
        if (fstat(at, &st) < 0)
                return -errno;
        if (S_ISLNK(st.st_mode))
                return -ELOOP; /* O_PATH | O_NOFOLLOW: the link itself, not followed */
        if (!S_ISREG(st.st_mode))
                return -EBADF;
        if (!task_file_is_mapped(at, m))
                return -ESTALE;
        return task_file_reopen(at);
}

int task_file_open(int root_fd, const struct proc_mapping *m) {
        if (!proc_mapping_is_file(m))
                return -EINVAL;
        if (m->remote)
                return -EREMOTE;
        int fd = open_checked(root_fd, m);
        if (fd >= 0 || root_fd < 0)
                return fd;
        /* A root of its own in our mount namespace (a chroot): maps names the file by our path.
         * Taken only if it is the mapped inode. */
        int k = open_checked(-1, m);
        return k >= 0 ? k : fd;
}

