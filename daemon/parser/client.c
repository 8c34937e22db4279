/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build-config.h"
#include "parser/client.h"
#include "parser/launch.h"
#include "shared/child.h"
#include "shared/cell-ids.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

void parser_ids(uid_t uid, gid_t gid, bool user_may_read, uid_t *ret_uid, gid_t *ret_gid) {
        bool own = user_may_read && uid != 0 && gid != 0 && uid != (uid_t) -1 && gid != (gid_t) -1;
        *ret_uid = own ? uid : PARSER_NOBODY;
        *ret_gid = own ? gid : PARSER_NOBODY;
}

const char *parser_program(void) {
        const char *p = getenv("COREDUMPD_PARSER");
        return p && p[0] == '/' ? p : COREDUMPD_PARSER_PATH;
}

/* The task's files the parser reads, opened here with the daemon's access. */
struct task_fds {
        int fd[_PARSER_FD_MAX];
};

static void task_fds_close(struct task_fds *t) {
        for (int i = PARSER_FD_MEM; i < _PARSER_FD_MAX; i++)
                safe_close(t->fd[i]);
}

/* The mapped files are reached through the crashing thread's map_files (tid > 0; its thread group
 * shares one mm, and a leader that has exited has none left), else the task's: opened for reading
 * here, where it costs no lock of the task's; what is in it is looked at by the parser. tid is
 * taken only if it is a thread of this task (task/<tid> in its /proc directory), held meanwhile. */
static int map_files_open(int proc_fd, pid_t pid, pid_t tid) {
        if (tid > 0 && tid != pid) {
                char path[64];
                snprintf(path, sizeof path, "task/%d", (int) tid);
                _cleanup_close_ int thread = openat(proc_fd, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (thread >= 0) {
                        snprintf(path, sizeof path, "../%d/map_files", (int) tid);
                        int fd = openat(proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (fd >= 0)
                                return fd;
                }
        }
        return openat(proc_fd, "map_files", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int task_fds_open(int proc_fd, pid_t pid, pid_t tid, struct task_fds *t, char *reason, size_t size) {
        static const char *const names[_PARSER_FD_MAX] = {
                [PARSER_FD_MEM] = "mem",
                [PARSER_FD_MAPS] = "maps",
                [PARSER_FD_MOUNTINFO] = "mountinfo",
                [PARSER_FD_MAP_FILES] = "map_files",
        };
        for (int i = 0; i < _PARSER_FD_MAX; i++)
                t->fd[i] = -1;
        for (int i = PARSER_FD_MEM; i < _PARSER_FD_MAX; i++) {
                t->fd[i] = i == PARSER_FD_MAP_FILES ? map_files_open(proc_fd, pid, tid)
                                                    : openat(proc_fd, names[i], O_RDONLY | O_CLOEXEC);
                if (t->fd[i] < 0) {
                        int r = -errno;
                        task_fds_close(t);
                        return fail_reason(r, reason, size, "cannot open the task's %s", names[i]);
                }
        }
        return 0;
}

int parser_spawn(const int *fds, size_t n, int req_fd, int res_fd, const char *mode, uint32_t *uid, uint32_t *gid,
                 pid_t *ret_pid) {
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        sigset_t none, all;
        uint32_t lease;
        int r;

        r = cell_ids_lease(uid, gid, &lease);
        if (r < 0)
                return r;
        r = posix_spawn_file_actions_init(&fa);
        if (r != 0) {
                cell_ids_return(lease);
                return -r;
        }
        r = posix_spawnattr_init(&attr);
        if (r != 0) {
                posix_spawn_file_actions_destroy(&fa);
                cell_ids_return(lease);
                return -r;
        }
        sigemptyset(&none);
        sigfillset(&all);
        r = r ?: posix_spawnattr_setsigmask(&attr, &none);
        r = r ?: posix_spawnattr_setsigdefault(&attr, &all);
        r = r ?: posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        r = r ?: posix_spawn_file_actions_adddup2(&fa, req_fd, STDIN_FILENO);
        r = r ?: (res_fd >= 0 ? posix_spawn_file_actions_adddup2(&fa, res_fd, STDOUT_FILENO)
                              : posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0));
        /* Its stderr goes nowhere: what it has to say comes back in its bounded result, and a parser
         * taken over by a crafted file could otherwise write the log full in the daemon's name. */
        r = r ?: posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        /* A source fd may sit where an earlier one is to go: each is first moved above them all,
         * sources and destinations. */
        int high = PARSER_FD_MEM + (int) n;
        for (size_t i = 0; i < n; i++)
                high = MAX(high, fds[i] + 1);
        for (size_t i = 0; i < n && r == 0; i++)
                r = posix_spawn_file_actions_adddup2(&fa, fds[i], high + (int) i);
        for (size_t i = 0; i < n && r == 0; i++)
                r = posix_spawn_file_actions_adddup2(&fa, high + (int) i, PARSER_FD_MEM + (int) i);
        r = r ?: posix_spawn_file_actions_addclosefrom_np(&fa, PARSER_FD_MEM + (int) n);
        if (r == 0) {
                char *argv[] = { (char *) "coredumpd-parser", (char *) mode, NULL };
                /* No environment: nothing of the daemon's (DEBUGINFOD_URLS above all, which would
                 * have libdwfl ask a server while the task is held) reaches libdwfl in the parser. */
                char *envp[] = { NULL };
                r = posix_spawn(ret_pid, parser_program(), &fa, &attr, argv, envp);
        }
        posix_spawnattr_destroy(&attr);
        posix_spawn_file_actions_destroy(&fa);
        if (r == 0)
                cell_ids_bind(lease, *ret_pid);
        else
                cell_ids_return(lease);
        return -r;
}

int parser_wait_fd(int fd, short events, uint64_t deadline_usec) {
        for (;;) {
                uint64_t now = now_monotonic_usec();
                if (now >= deadline_usec)
                        return -ETIMEDOUT;
                struct pollfd p = { .fd = fd, .events = events };
                int n = poll(&p, 1, (int) MIN((deadline_usec - now + 999) / 1000, 1000));
                if (n > 0)
                        return 0;
                if (n < 0 && errno != EINTR)
                        return -errno;
        }
}

/* Reads the parser's answer until it closes its end, PARSER_RESULT_MAX + 1 bytes came (too many),
 * or the deadline. */
static int read_answer(int fd, uint64_t deadline_usec, void *buf, size_t cap, size_t *ret_size) {
        size_t size = 0;
        for (;;) {
                int r = parser_wait_fd(fd, POLLIN, deadline_usec);
                if (r < 0)
                        return r;
                ssize_t k = read(fd, (char *) buf + size, cap - size);
                if (k < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                size += (size_t) k;
                if (size == cap)
                        break;
        }
        *ret_size = size;
        return 0;
}

/* One errand of the parser (launch.h). */
int parser_errand(const int *fds, size_t n, const char *mode, const struct tenant *owner, void *req, size_t req_size,
                  uint32_t *uid, uint32_t *gid, uint64_t budget_usec, void *buf, size_t cap, size_t *ret_size,
                  int *ret_status, char *reason, size_t reason_size) {
        int req_pipe[2] = { -1, -1 }, res_pipe[2] = { -1, -1 };
        pid_t pid;
        int r;

        /* Each parser SIGKILL could not end is a process in the kernel and a thread of ours. */
        if (stuck_budget_exhausted(owner))
                return fail_reason(-EBUSY, reason, reason_size, "%s", "not started: too many parsers are stuck in the kernel");

        if (pipe2(req_pipe, O_CLOEXEC) < 0 || pipe2(res_pipe, O_CLOEXEC) < 0) {
                r = fail_reason(-errno, reason, reason_size, "%s", "cannot make the parser's pipes");
                goto finish;
        }
        r = parser_spawn(fds, n, req_pipe[0], res_pipe[1], mode, uid, gid, &pid);
        req_pipe[0] = safe_close(req_pipe[0]);
        res_pipe[1] = safe_close(res_pipe[1]);
        if (r < 0) {
                r = fail_reason(r, reason, reason_size, "cannot start %s", parser_program());
                goto finish;
        }
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);

        /* A parser that ended before it read this (EPIPE) says why by how it ended: read on. */
        if (write(req_pipe[1], req, req_size) < 0 && errno != EPIPE)
                log_debug_errno(errno, "Cannot hand the parser its request: %m");
        req_pipe[1] = safe_close(req_pipe[1]);

        uint64_t deadline = now_monotonic_usec() + budget_usec;
        *ret_size = 0;
        r = read_answer(res_pipe[0], deadline, buf, cap, ret_size);
        bool reaped;
        *ret_status = 0;
        if (r == -ETIMEDOUT)
                reaped = child_kill_and_reap(pid, pidfd, owner, ret_status);
        else if (!(reaped = child_wait_until(pid, pidfd, deadline + CHILD_KILL_GRACE_USEC, ret_status)))
                reaped = child_kill_and_reap(pid, pidfd, owner, ret_status);
        safe_close(pidfd);
        if (!reaped)
                *ret_status = 0; /* not known: as if it had ended well, its answer judged alone */
        if (r == -ETIMEDOUT)
                r = fail_reason(r, reason, reason_size, "%s", reaped ? "killed at its deadline"
                                                              : "killed at its deadline, but stuck in the kernel");
        else if (r < 0)
                r = fail_reason(r, reason, reason_size, "%s", "cannot read its answer");

finish:
        safe_close(req_pipe[0]);
        safe_close(req_pipe[1]);
        safe_close(res_pipe[0]);
        safe_close(res_pipe[1]);
        return r;
}

int parser_unwind(const struct parser_job *job, struct unwind_result *ret, char *reason, size_t reason_size) {
        _cleanup_(task_fds_close) struct task_fds t = {};
        _cleanup_free_ void *buf = NULL;
        int r;

        if (job->n_threads > UNWIND_MAX_THREADS)
                return fail_reason(-EINVAL, reason, reason_size, "%s", "too many threads");
        r = task_fds_open(job->proc_fd, job->pid, job->n_threads > 0 ? job->threads[0].tid : 0, &t, reason, reason_size);
        if (r < 0)
                return r;

        /* ~8 KiB: fits in the pipe, the write never waits for the parser. */
        _cleanup_free_ struct parser_request *req = calloc(1, sizeof *req);
        buf = malloc(PARSER_RESULT_MAX + 1);
        if (!req || !buf)
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        *req = (struct parser_request) {
                .magic = PARSER_MAGIC,
                .version = PARSER_VERSION,
                .pid = job->pid,
                .uid = job->uid,
                .gid = job->gid,
                .max_frames = MIN(job->max_frames ? job->max_frames : UNWIND_MAX_FRAMES, UNWIND_MAX_FRAMES),
                .budget_usec = job->budget_usec,
                .memory_max = PARSER_MEMORY_MAX,
                .n_threads = (uint32_t) job->n_threads,
                .max_files = PARSER_MAP_FILES_MAX,
        };
        memcpy(req->threads, job->threads, job->n_threads * sizeof job->threads[0]);
        snprintf(req->exe, sizeof req->exe, "%s", job->exe ? job->exe : "");

        size_t size = 0;
        int status = 0;
        r = parser_errand(t.fd + PARSER_FD_MEM, _PARSER_FD_MAX - PARSER_FD_MEM, NULL, &job->owner, req, sizeof *req,
                   &req->uid, &req->gid, job->budget_usec + PARSER_START_GRACE_USEC, buf, PARSER_RESULT_MAX + 1, &size, &status, reason,
                   reason_size);
        if (r < 0)
                return r;
        if (WIFSIGNALED(status)) {
                snprintf(reason, reason_size, "it died of signal %d", WTERMSIG(status));
                return -ECHILD;
        }
        int error = 0;
        char why[160] = "";
        r = parser_result_decode(buf, size, ret, &error, why, sizeof why);
        if (r < 0) {
                snprintf(reason, reason_size, "its answer is malformed: %s", why);
                return r;
        }
        if (error < 0) {
                unwind_result_done(ret);
                return fail_reason(error, reason, reason_size, "%s", "it could look at nothing");
        }
        return 0;
}

/* How long a record may take to reach journald. */
#define RECORD_DEADLINE_USEC (5 * UINT64_C(1000000))

int parser_write_until(int fd, const void *buf, size_t size, uint64_t deadline_usec) {
        while (size > 0) {
                int r = parser_wait_fd(fd, POLLOUT, deadline_usec);
                if (r < 0)
                        return r;
                ssize_t k = write(fd, buf, size);
                if (k < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (k < 0)
                        return -errno;
                buf = (const char *) buf + k;
                size -= (size_t) k;
        }
        return 0;
}

int parser_submit_record(const struct iovec *v, size_t n, uid_t uid, gid_t gid, const struct tenant *owner, char *reason,
                         size_t reason_size) {
        _cleanup_free_ void *buf = NULL;
        size_t size = 0;
        int pipe_fds[2] = { -1, -1 };
        pid_t pid;

        if (uid == 0 || gid == 0)
                return fail_reason(-EPERM, reason, reason_size, "%s", "not as root");
        int r = parser_record_encode(v, n, uid, gid, &buf, &size);
        if (r < 0)
                return fail_reason(r, reason, reason_size, "%s", r == -E2BIG ? "the record is too large" : "out of memory");
        if (stuck_budget_exhausted(owner))
                return fail_reason(-EBUSY, reason, reason_size, "%s", "not started: too many parsers are stuck in the kernel");
        if (pipe2(pipe_fds, O_CLOEXEC) < 0)
                return fail_reason(-errno, reason, reason_size, "%s", "cannot make a pipe");
        /* As the user: journald files the copy in their journal by the sender's uid. */
        r = parser_spawn(NULL, 0, pipe_fds[0], -1, "--record", NULL, NULL, &pid);
        safe_close(pipe_fds[0]);
        if (r < 0) {
                safe_close(pipe_fds[1]);
                return fail_reason(r, reason, reason_size, "cannot start %s", parser_program());
        }
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        (void) fcntl(pipe_fds[1], F_SETFL, O_NONBLOCK);
        uint64_t deadline = now_monotonic_usec() + RECORD_DEADLINE_USEC;
        r = parser_write_until(pipe_fds[1], buf, size, deadline);
        safe_close(pipe_fds[1]);
        int status = 0;
        bool ended = child_wait_until(pid, pidfd, deadline, &status);
        if (!ended)
                (void) child_kill_and_reap(pid, pidfd, owner, &status);
        safe_close(pidfd);
        if (!ended)
                return fail_reason(-ETIMEDOUT, reason, reason_size, "%s", "killed at its deadline");
        if (r < 0 && r != -EPIPE)
                return fail_reason(r, reason, reason_size, "%s", "cannot hand it the record");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return fail_reason(-EIO, reason, reason_size, "it ended with %s %d", WIFSIGNALED(status) ? "signal" : "status",
                            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        return 0;
}

/* How long the build-ids of a crash's files may take. */
#define BUILD_IDS_DEADLINE_USEC (5 * UINT64_C(1000000))

int parser_build_ids(const int *fds, size_t n, const struct tenant *owner, char (*ret)[41], char *reason,
                     size_t reason_size) {
        _cleanup_free_ char *buf = NULL;

        for (size_t i = 0; i < n; i++)
                ret[i][0] = 0;
        if (n == 0)
                return 0;
        if (n > PARSER_BUILD_ID_FILES_MAX)
                return fail_reason(-E2BIG, reason, reason_size, "%s", "too many files");
        buf = malloc(PARSER_BUILD_ID_ANSWER_MAX + 1);
        if (!buf)
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        struct parser_build_id_request req = {
                .magic = PARSER_BUILD_ID_MAGIC,
                .version = PARSER_VERSION,
                .uid = PARSER_NOBODY,
                .gid = PARSER_NOBODY,
                .n_files = (uint32_t) n,
        };
        size_t size = 0;
        int status = 0;
        int r = parser_errand(fds, n, "--build-ids", owner, &req, sizeof req, &req.uid, &req.gid, BUILD_IDS_DEADLINE_USEC, buf,
                       PARSER_BUILD_ID_ANSWER_MAX + 1, &size, &status, reason, reason_size);
        if (r < 0)
                return r;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return fail_reason(-ECHILD, reason, reason_size, "it ended with %s %d", WIFSIGNALED(status) ? "signal" : "status",
                            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        r = parser_build_ids_decode(buf, size, n, ret);
        if (r < 0) {
                for (size_t i = 0; i < n; i++)
                        ret[i][0] = 0;
                return fail_reason(r, reason, reason_size, "%s", "its answer is malformed");
        }
        return 0;
}

int parser_compact_core(int core_fd, uint64_t max_size, const struct tenant *owner, void **ret, size_t *ret_size, char *reason,
                        size_t reason_size) {
        *ret = NULL;
        *ret_size = 0;
        if (max_size > PARSER_COMPACT_MAX)
                max_size = PARSER_COMPACT_MAX;
        struct parser_compact_request req = {
                .magic = PARSER_COMPACT_MAGIC,
                .version = PARSER_VERSION,
                .uid = PARSER_NOBODY,
                .gid = PARSER_NOBODY,
                .max_size = max_size,
        };
        if (!parser_compact_request_valid(&req))
                return fail_reason(-EINVAL, reason, reason_size, "%s", "a bound too small for any core");
        /* One byte more than allowed tells "too large" from "just fits". */
        _cleanup_free_ void *buf = malloc(max_size + 1);
        if (!buf)
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        size_t size = 0;
        int status = 0;
        int r = parser_errand(&core_fd, 1, "--compact-core", owner, &req, sizeof req, &req.uid, &req.gid, PARSER_COMPACT_DEADLINE_USEC, buf,
                       max_size + 1, &size, &status, reason, reason_size);
        if (r < 0)
                return r;
        if (size > max_size)
                return fail_reason(-E2BIG, reason, reason_size, "it answered more than %" PRIu64 " bytes", max_size);
        if (WIFEXITED(status) && WEXITSTATUS(status) == PARSER_COMPACT_EXIT_TOO_LARGE)
                return fail_reason(-E2BIG, reason, reason_size, "too large even compacted: its headers and notes alone "
                            "exceed %" PRIu64 " bytes", max_size);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return fail_reason(-ECHILD, reason, reason_size, "it ended with %s %d (not a core it could read)",
                            WIFSIGNALED(status) ? "signal" : "status",
                            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        if (!parser_compact_core_valid(buf, size, max_size))
                return fail_reason(-EBADMSG, reason, reason_size, "%s", "its answer is not a core");
        *ret = TAKE_PTR(buf);
        *ret_size = size;
        return 0;
}

int parser_package(int root_fd, bool container, int index_in, int index_out, const char *exe, uid_t uid, gid_t gid,
                   const struct tenant *owner, struct package_info *ret, char *reason, size_t reason_size) {
        _cleanup_free_ struct parser_package_request *req = calloc(1, sizeof *req);
        char buf[PARSER_PACKAGE_ANSWER_MAX + 1], why[96] = "";

        if (!req)
                return fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
        *req = (struct parser_package_request) {
                .magic = PARSER_PACKAGE_MAGIC,
                .version = PARSER_VERSION,
                .uid = uid,
                .gid = gid,
                .flags = container ? PARSER_PACKAGE_CONTAINER : index_out >= 0 ? PARSER_PACKAGE_INDEX : 0,
        };
        if (!exe || strlen(exe) > PARSER_PACKAGE_EXE_MAX)
                return fail_reason(-ENAMETOOLONG, reason, reason_size, "%s", "no executable path, or one too long");
        snprintf(req->exe, sizeof req->exe, "%s", exe);
        if (!parser_package_request_valid(req))
                return fail_reason(-EINVAL, reason, reason_size, "%s", "an invalid request");
        /* No kept index: one that is none (/dev/null), which the cell rebuilds. */
        _cleanup_close_ int none = -1;
        if (req->flags & PARSER_PACKAGE_INDEX && index_in < 0) {
                none = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (none < 0)
                        return fail_reason(-errno, reason, reason_size, "%s", "cannot open /dev/null");
                index_in = none;
        }
        int fds[3] = { root_fd, index_in, index_out };
        size_t size = 0;
        int status = 0;
        int r = parser_errand(fds, req->flags & PARSER_PACKAGE_INDEX ? 3 : 1, "--package", owner, req, sizeof *req,
                              &req->uid, &req->gid, PARSER_PACKAGE_DEADLINE_USEC, buf, sizeof buf, &size, &status, reason, reason_size);
        if (r < 0)
                return r;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return fail_reason(-ECHILD, reason, reason_size, "it ended with %s %d", WIFSIGNALED(status) ? "signal" : "status",
                            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        r = package_answer_decode(buf, size, ret, why, sizeof why);
        if (r < 0)
                return fail_reason(r, reason, reason_size, "its answer is malformed: %s", why);
        return 0;
}
