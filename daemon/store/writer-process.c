/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A core written by a process of its own, which the deadline can kill where no thread could be
 * stopped (a read of the task's memory that a FUSE file blocks). */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* In the writer's process: it must not hold other crashes' connections (their tasks would stay held
 * while it runs), nor the listening socket. What it needs (the file, /proc, BPF maps) is no socket. */
static void close_sockets(void) {
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;

        if (!d)
                return;
        while ((de = readdir(d))) {
                struct stat st;
                int fd = atoi(de->d_name);
                if (fd > STDERR_FILENO && fd != dirfd(d) && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
                        (void) close(fd);
        }
        closedir(d);
}

int store_generate_killable(struct core_writer *w, store_generate_fn generate, void *userdata,
                            const atomic_bool *cancel, void *result, size_t result_size, bool *ret_truncated,
                            char *reason, size_t reason_size) {
        size_t share_size = sizeof(struct child_share) + result_size;
        struct child_share *share = mmap(NULL, share_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        int r;

        if (share == MAP_FAILED) {
                r = negative_errno();
                snprintf(reason, reason_size, "cannot map memory to share with the core's writer: %s", strerror(-r));
                return r;
        }

        pid_t pid = fork();
        if (pid < 0) {
                r = negative_errno();
                munmap(share, share_size);
                snprintf(reason, reason_size, "cannot start the core's writer: %s", strerror(-r));
                return r;
        }
        if (pid == 0) {
                /* The child: only this thread exists here; locks other threads held stay held. */
                log_after_fork();
                close_sockets();
                bool truncated = false;
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
                child_reap_later(pid);
        else if (pid > 0)
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
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
