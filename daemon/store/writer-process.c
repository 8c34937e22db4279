/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A core written by a process of its own, which the deadline can kill where no thread could be
 * stopped (a read of the task's memory that a FUSE file blocks). */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/cell.h"
#include "shared/cell-ids.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"
#include "store/core-writer.h"
#include "store/store.h"

/* ---- generating in a process that can be killed ---------------------------------------------- */

struct child_share {
        int r;
        bool done;
        bool truncated;
        uint64_t size;
        char reason[256];
        uint8_t result[];
};

static int compare_int(const void *a, const void *b) {
        int x = *(const int *) a, y = *(const int *) b;
        return (x > y) - (x < y);
}

/* Without close_range() (before Linux 5.9): every fd /proc/self/fd lists that is not kept, read
 * with getdents64() into the stack (no allocation in a fork of a threaded process), until none is
 * left; without /proc, every number below RLIMIT_NOFILE. */
static int close_listed_but(const int *keep, size_t n) {
        for (unsigned round = 0; round < 64; round++) {
                int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dir < 0) {
                        struct rlimit rl;
                        long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long) rl.rlim_cur : 65536;
                        for (long fd = 0, k = 0; fd < MIN(max, 1L << 20); fd++)
                                if (k < (long) n && keep[k] == fd)
                                        k++;
                                else
                                        (void) close((int) fd);
                        return 0;
                }
                int found[256];
                size_t n_found = 0;
                union {
                        struct dirent64 de;
                        char buf[4096];
                } u;
                long got;
                while (n_found < ELEMENTSOF(found) && (got = syscall(SYS_getdents64, dir, u.buf, sizeof u.buf)) > 0)
                        for (long at = 0; at < got && n_found < ELEMENTSOF(found);) {
                                struct dirent64 *de = (struct dirent64 *) (u.buf + at);
                                char *end;
                                long fd = strtol(de->d_name, &end, 10);
                                at += de->d_reclen;
                                if (*end || end == de->d_name || fd == dir ||
                                    bsearch(&(int) { (int) fd }, keep, n, sizeof *keep, compare_int))
                                        continue;
                                found[n_found++] = (int) fd;
                        }
                (void) close(dir);
                if (n_found == 0)
                        return 0;
                for (size_t i = 0; i < n_found; i++)
                        (void) close(found[i]);
        }
        return -EMFILE;
}

/* In the writer, right after the fork: every fd closed but keep (ascending, no repeats). It must
 * not hold other crashes' connections (their tasks would stay held while it runs) or the listening
 * socket, nor anything of other users' (cores in flight, a parser's /proc/<pid>/mem, BPF maps). */
static int close_all_but(const int *keep, size_t n) {
        unsigned from = 0;

        for (size_t i = 0; i <= n; i++) {
                unsigned to = i < n ? (unsigned) keep[i] : ~0U; /* close [from, to) */
                if (to > from && syscall(SYS_close_range, from, to - 1, 0) < 0) {
                        if (errno != ENOSYS && errno != EINVAL)
                                return -errno;
                        return close_listed_but(keep, n);
                }
                if (i < n)
                        from = to + 1;
        }
        return 0;
}

/* The fds the writer keeps, ascending, without repeats or negatives: 0, 1, 2, the core's, start's. */
static int *keep_list(const struct core_writer *w, const struct writer_start *start, size_t *ret_n) {
        size_t n_extra = start ? start->n_keep_fds : 0, n = 0;
        int *keep = malloc((4 + n_extra) * sizeof *keep);

        if (!keep)
                return NULL;
        keep[n++] = STDIN_FILENO;
        keep[n++] = STDOUT_FILENO;
        keep[n++] = STDERR_FILENO;
        keep[n++] = w->fd;
        for (size_t i = 0; i < n_extra; i++)
                keep[n++] = start->keep_fds[i];
        qsort(keep, n, sizeof *keep, compare_int);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (keep[i] >= 0 && (k == 0 || keep[k - 1] != keep[i]))
                        keep[k++] = keep[i];
        *ret_n = k;
        return keep;
}

/* In the writer, before generate: nothing held but its own fds, and the cell. */
static int writer_setup(const int *keep, size_t n_keep, const struct writer_start *start, char *reason,
                        size_t reason_size) {
        int r = close_all_but(keep, n_keep);
        if (r < 0) {
                snprintf(reason, reason_size, "the core's writer cannot close the daemon's files: %s", strerror(-r));
                return r;
        }
        if (!start || start->uid == 0)
                return 0;
        struct cell_limits limits = start->limits;
        if (limits.address_space != RLIM_INFINITY) {
                uint64_t now = cell_address_space_now();
                limits.address_space = now == 0 ? RLIM_INFINITY : now + limits.address_space;
        }
        return cell_enter(start->uid, start->gid, &limits, reason, reason_size);
}

int store_generate_killable(struct core_writer *w, const struct writer_start *start, store_generate_fn generate,
                            void *userdata, const atomic_bool *cancel, void *result, size_t result_size,
                            bool *ret_truncated, char *reason, size_t reason_size) {
        size_t share_size = sizeof(struct child_share) + result_size, n_keep = 0;
        _cleanup_free_ int *keep = keep_list(w, start, &n_keep);
        struct child_share *share = mmap(NULL, share_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        int r;

        struct tenant owner = start ? start->owner : tenant_of_uid(0);
        if (stuck_budget_exhausted(&owner)) {
                /* Each writer SIGKILL could not end is a process in the kernel pinning its core (an
                 * unlinked file the vacuum cannot see) and a thread of ours. */
                if (share != MAP_FAILED)
                        munmap(share, share_size);
                snprintf(reason, reason_size, "not writing the core: too many core writers are stuck in the kernel");
                return -EBUSY;
        }
        if (share == MAP_FAILED || !keep) {
                r = share == MAP_FAILED ? negative_errno() : -ENOMEM;
                if (share != MAP_FAILED)
                        munmap(share, share_size);
                snprintf(reason, reason_size, "cannot set up the core's writer: %s", strerror(-r));
                return r;
        }

        /* CELL_IDS_ANY: an id of its own (shared/cell-ids.h), held until it is reaped. */
        struct writer_start ids = start ? *start : (struct writer_start) {};
        uint32_t lease = 0;
        r = start ? cell_ids_lease(&ids.uid, &ids.gid, &lease) : 0;
        pid_t pid = r < 0 ? -1 : fork();
        if (pid < 0) {
                r = r < 0 ? r : negative_errno();
                cell_ids_return(lease);
                munmap(share, share_size);
                snprintf(reason, reason_size, "cannot start the core's writer: %s", strerror(-r));
                return r;
        }
        if (pid == 0) {
                /* The child: only this thread exists here; locks other threads held stay held. */
                log_after_fork();
                bool truncated = false;
                r = writer_setup(keep, n_keep, start ? &ids : NULL, share->reason, sizeof share->reason);
                if (r >= 0)
                        r = generate(w, userdata, &truncated, share->reason, sizeof share->reason);
                if (r >= 0)
                        r = core_writer_finish(w);
                share->r = r;
                share->truncated = truncated;
                share->size = w->size;
                if (result_size > 0)
                        memcpy(share->result, result, result_size);
                share->done = true;
                _exit(0);
        }

        cell_ids_bind(lease, pid);
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        bool killed = false, abandoned = false;
        uint64_t killed_usec = 0;
        for (;;) {
                if (pidfd >= 0) {
                        struct pollfd p = { .fd = pidfd, .events = POLLIN };
                        if (poll(&p, 1, 50) > 0)
                                break;
                } else {
                        if (waitpid(pid, NULL, WNOHANG) == pid) {
                                cell_ids_reaped(pid);
                                pid = -1; /* reaped already */
                                break;
                        }
                        usleep(50000);
                }
                if (cancel && atomic_load(cancel) && !killed) {
                        (void) kill(pid, SIGKILL);
                        killed = true;
                        killed_usec = now_monotonic_usec();
                } else if (killed && now_monotonic_usec() - killed_usec > CHILD_KILL_GRACE_USEC) {
                        /* SIGKILL did not end it: it waits in the kernel where no signal reaches
                         * (a file system whose server does not answer). Do not wait with it. */
                        abandoned = true;
                        break;
                }
        }
        int status = 0;
        if (abandoned)
                child_reap_later(pid, &owner);
        else if (pid > 0) {
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
                cell_ids_reaped(pid);
        }
        safe_close(pidfd);

        if (abandoned) {
                snprintf(reason, reason_size,
                         "deadline reached while writing the core: its writer was killed, but is stuck in the kernel; "
                         "left to end on its own");
                r = -ETIMEDOUT;
        } else if (killed && !share->done) {
                snprintf(reason, reason_size, "deadline reached while writing the core: its writer was killed");
                r = -ETIMEDOUT;
        } else if (!share->done) {
                snprintf(reason, reason_size, "the core's writer died (%s %d)",
                         WIFSIGNALED(status) ? "signal" : "exit status",
                         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
                r = -EIO;
        } else if (share->r < 0) {
                snprintf(reason, reason_size, "%s", share->reason);
                r = share->r;
        } else {
                core_writer_adopt(w, share->size);
                *ret_truncated = share->truncated;
                if (result_size > 0)
                        memcpy(result, share->result, result_size);
                r = 0;
        }
        munmap(share, share_size);
        return r;
}
