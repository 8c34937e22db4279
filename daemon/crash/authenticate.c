/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash/authenticate.h"
#include "shared/cleanup.h"
#include "shared/log.h"

int pidfd_query_info(int pidfd, uint64_t mask, struct pidfd_info *ret) {
        struct pidfd_info info = { .mask = mask };

        if (ioctl(pidfd, PIDFD_GET_INFO, &info) < 0)
                return negative_errno();
        *ret = info;
        return 0;
}

bool peer_is_self(const struct peer *p) {
        pid_t self = getpid();
        return (pid_t) p->info.tgid == self || (pid_t) p->info.pid == self;
}

bool peer_is_our_child(const struct peer *p) {
        return (pid_t) p->info.ppid == getpid();
}

/* A user namespace nesting deeper than the kernel allows (32) is not followed further. */
#define USERNS_DEPTH_MAX 33

void peer_resolve_tenant(struct peer *p, uint64_t own_user_ns) {
        struct stat st;

        /* Until the task is known to be in our user namespace, it is not (never a system user's);
         * and until its namespace is known, a task of real uid 0 is nobody's root: a tenant of its
         * own (TENANT_USERNS_UNKNOWN), never host root's counters and shares. */
        p->tenant = (struct tenant) { .uid = p->info.ruid, .userns = p->info.ruid == 0 ? TENANT_USERNS_UNKNOWN : 0 };
        if (own_user_ns == 0 && stat("/proc/self/ns/user", &st) == 0)
                own_user_ns = (uint64_t) st.st_ino; /* namespaces are inodes of the one nsfs */
        if (p->pidfd < 0 || own_user_ns == 0)
                return;
        _cleanup_close_ int fd = ioctl(p->pidfd, PIDFD_GET_USER_NAMESPACE, 0);
        for (unsigned depth = 0; fd >= 0 && depth < USERNS_DEPTH_MAX; depth++) {
                if (fstat(fd, &st) < 0)
                        return;
                if ((uint64_t) st.st_ino == own_user_ns) {
                        p->tenant = (struct tenant) { .uid = p->info.ruid, .host = true }; /* ours: its real uid */
                        return;
                }
                uint64_t ino = (uint64_t) st.st_ino;
                _cleanup_close_ int parent = ioctl(fd, NS_GET_PARENT);
                if (parent < 0 || fstat(parent, &st) < 0)
                        return;
                if ((uint64_t) st.st_ino == own_user_ns) {
                        /* The outermost below ours: a user's counts as theirs, root's is a tenant
                         * of its own, whatever ids its tasks run as. */
                        uid_t uid;
                        if (ioctl(fd, NS_GET_OWNER_UID, &uid) == 0)
                                p->tenant = (struct tenant) { .uid = uid, .userns = uid == 0 ? ino : 0 };
                        return;
                }
                safe_close(fd);
                fd = TAKE_FD(parent);
        }
}

void peer_done(struct peer *p) {
        p->pidfd = safe_close(p->pidfd);
}

static bool info_says_coredumping(const struct pidfd_info *info) {
        return (info->mask & PIDFD_INFO_COREDUMP) && (info->coredump_mask & PIDFD_COREDUMPED);
}

/* The peer was reaped before its connection was accepted: a crashed task killed (by its owner, the
 * OOM killer) while it waited in the listener's backlog, e.g. while the daemon was out of fds. Its
 * pidfd still says whether it dumped (PIDFD_INFO_EXIT keeps the record), though no longer its pid
 * or ids: those come from the connection (SO_PEERCRED, taken when the kernel connected as the
 * task). Without this such a crash was refused as a stranger, without a record. */
static int reaped_peer_info(int conn_fd, int pidfd, struct pidfd_info *ret) {
        struct pidfd_info info;
        struct ucred cred;
        socklen_t len = sizeof cred;

        int r = pidfd_query_info(pidfd, PIDFD_INFO_EXIT | PIDFD_INFO_CGROUPID | PIDFD_INFO_COREDUMP, &info);
        if (r < 0)
                return r;
        if (getsockopt(conn_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return negative_errno();
        info.pid = info.tgid = (uint32_t) cred.pid;
        info.ruid = info.euid = info.suid = info.fsuid = (uint32_t) cred.uid;
        info.rgid = info.egid = info.sgid = info.fsgid = (uint32_t) cred.gid;
        info.mask |= PIDFD_INFO_PID | PIDFD_INFO_CREDS;
        *ret = info;
        return 0;
}

int authenticate_peer(int conn_fd, struct peer *ret, void *userdata) {
        _cleanup_close_ int pidfd = -1;
        struct pidfd_info info;
        socklen_t len = sizeof pidfd;
        int r;

        if (getsockopt(conn_fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
                return log_error_errno(errno, "Cannot get the peer's pidfd (SO_PEERPIDFD), refusing connection: %m");

        r = pidfd_query_info(pidfd, PIDFD_INFO_PID | PIDFD_INFO_CREDS | PIDFD_INFO_CGROUPID | PIDFD_INFO_COREDUMP,
                             &info);
        if (r == -ESRCH)
                r = reaped_peer_info(conn_fd, pidfd, &info);
        if (r < 0)
                return log_error_errno(r, "Cannot query the peer's pidfd (PIDFD_GET_INFO), refusing connection: %m");

        if (!info_says_coredumping(&info)) {
                log_warning("Refusing connection from pid %u (uid %u): not a coredumping task.",
                            info.tgid ? info.tgid : info.pid, info.ruid);
                return -EPERM;
        }

        *ret = (struct peer) {
                .pidfd = TAKE_FD(pidfd),
                .info = info,
        };
        return 0;
}
