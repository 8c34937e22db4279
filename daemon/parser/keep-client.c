/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's side of `coredumpd-parser --keep-files` (parser/wire.h): the cell started with the
 * task's root, its answers read from pipes within deadlines and checked; never a file of the
 * task's opened, read or even closed here. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parser/client.h"
#include "parser/launch.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/timestamp.h"

/* How long a cell that sent its last entry may take to end before it is left to the reaper. */
#define KEEP_END_GRACE_USEC (200 * UINT64_C(1000))

/* How often a wait for the cell looks whether the daemon stops. */
#define KEEP_CANCEL_CHECK_USEC (100 * UINT64_C(1000))

static int read_until(int fd, void *buf, size_t size, uint64_t deadline_usec, const atomic_bool *cancel) {
        size_t done = 0;
        while (done < size) {
                if (cancel && atomic_load(cancel))
                        return -ECANCELED;
                uint64_t slice = cancel ? MIN(deadline_usec, now_monotonic_usec() + KEEP_CANCEL_CHECK_USEC)
                                        : deadline_usec;
                int r = parser_wait_fd(fd, POLLIN, slice);
                if (r == -ETIMEDOUT && slice < deadline_usec)
                        continue;
                if (r < 0)
                        return r;
                ssize_t n = read(fd, (char *) buf + done, size - done);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EPIPE; /* it ended early */
                done += (size_t) n;
        }
        return 0;
}

static int fail(int r, char *reason, size_t size, const char *what) {
        snprintf(reason, size, "%s", what);
        return r;
}

void keep_cell_stop(struct keep_cell *c) {
        c->in_fd = safe_close(c->in_fd);
        c->out_fd = safe_close(c->out_fd);
        if (c->pid > 0) {
                /* Never waited for: a cell stuck in a file system that does not answer may not end
                 * even when killed. */
                if (c->pidfd >= 0)
                        (void) syscall(SYS_pidfd_send_signal, c->pidfd, SIGKILL, NULL, 0);
                else
                        (void) kill(c->pid, SIGKILL);
                child_reap_later(c->pid, &c->owner);
        }
        c->pid = 0;
        c->pidfd = safe_close(c->pidfd);
}

int keep_cell_start(int root_fd, const struct keep_cell_file *files, size_t n, uid_t uid, gid_t gid,
                    const struct tenant *owner, uint64_t max_bytes,
                    uint64_t deadline_usec, struct keep_cell *ret, char *reason, size_t reason_size) {
        int req_pipe[2] = { -1, -1 }, res_pipe[2] = { -1, -1 };
        _cleanup_free_ struct parser_keep_request *req = NULL;
        _cleanup_free_ char *paths = NULL;
        size_t paths_size = 0;

        *ret = (struct keep_cell) { .owner = *owner, .pidfd = -1, .in_fd = -1, .out_fd = -1, .n = n, .budget = max_bytes };
        if (n == 0 || n > PARSER_KEEP_FILES_MAX)
                return fail(-EINVAL, reason, reason_size, "no files, or too many");
        if (stuck_budget_exhausted(owner))
                return fail(-EBUSY, reason, reason_size, "too many of this user's cells could not be ended");
        req = calloc(1, sizeof *req);
        paths = malloc(n * PARSER_KEEP_PATH_MAX);
        if (!req || !paths)
                return fail(-ENOMEM, reason, reason_size, "out of memory");
        *req = (struct parser_keep_request) {
                .magic = PARSER_KEEP_MAGIC,
                .version = PARSER_VERSION,
                .uid = uid,
                .gid = gid,
                .n_files = (uint32_t) n,
                .max_bytes = max_bytes,
        };
        for (size_t i = 0; i < n; i++) {
                size_t len = strlen(files[i].path);
                if (len == 0 || len > PARSER_KEEP_PATH_MAX)
                        return fail(-EINVAL, reason, reason_size, "a path too long");
                req->files[i] = (struct parser_keep_file) {
                        .inode = files[i].inode,
                        .dev_major = files[i].dev_major,
                        .dev_minor = files[i].dev_minor,
                        .path_len = (uint32_t) len,
                };
                memcpy(paths + paths_size, files[i].path, len);
                paths_size += len;
        }
        if (!parser_keep_request_valid(req))
                return fail(-EINVAL, reason, reason_size, "not a request the cell takes");

        int r;
        if (pipe2(req_pipe, O_CLOEXEC) < 0 || pipe2(res_pipe, O_CLOEXEC) < 0) {
                r = fail(-errno, reason, reason_size, "cannot make the cell's pipes");
                goto fail;
        }
        r = parser_spawn(&root_fd, 1, req_pipe[0], res_pipe[1], "--keep-files", &req->uid, &req->gid, &ret->pid);
        req_pipe[0] = safe_close(req_pipe[0]);
        res_pipe[1] = safe_close(res_pipe[1]);
        if (r < 0) {
                ret->pid = 0;
                r = fail(r, reason, reason_size, "cannot start the parser");
                goto fail;
        }
        ret->pidfd = (int) syscall(SYS_pidfd_open, ret->pid, 0);
        ret->in_fd = TAKE_FD(req_pipe[1]);
        ret->out_fd = TAKE_FD(res_pipe[0]);
        (void) fcntl(ret->in_fd, F_SETFL, O_NONBLOCK);

        r = parser_write_until(ret->in_fd, req, sizeof *req, deadline_usec);
        r = r ?: parser_write_until(ret->in_fd, paths, paths_size, deadline_usec);
        if (r < 0 && r != -ETIMEDOUT)
                r = -EPIPE; /* it ended: its answer is missing below */
        if (r >= 0)
                r = read_until(ret->out_fd, &ret->opened, sizeof ret->opened, deadline_usec, NULL);
        if (r == -ETIMEDOUT) {
                r = fail(r, reason, reason_size, "it did not open the files by its deadline: killed");
                goto fail;
        }
        if (r < 0) {
                r = fail(r, reason, reason_size, "it ended without an answer");
                goto fail;
        }
        if (parser_keep_opened_check(&ret->opened, n) < 0) {
                r = fail(-EBADMSG, reason, reason_size, "its answer is malformed");
                goto fail;
        }
        return 0;

fail:
        safe_close(req_pipe[0]);
        safe_close(req_pipe[1]);
        safe_close(res_pipe[0]);
        safe_close(res_pipe[1]);
        keep_cell_stop(ret);
        return r;
}

int keep_cell_go(struct keep_cell *c) {
        char go = PARSER_KEEP_GO;
        if (c->in_fd < 0)
                return -EBADF;
        /* The pipe is empty: the byte never waits. */
        return write(c->in_fd, &go, 1) == 1 ? 0 : -errno;
}

int keep_cell_next(struct keep_cell *c, uint64_t deadline_usec, const atomic_bool *cancel,
                   struct parser_keep_entry *ret, char ret_build_id[static 41], char *reason, size_t reason_size) {
        int r = c->out_fd < 0 ? -EBADF : read_until(c->out_fd, ret, sizeof *ret, deadline_usec, cancel);
        if (r == -ETIMEDOUT)
                return fail(r, reason, reason_size, "it did not answer by its deadline: killed");
        if (r == -ECANCELED)
                return fail(r, reason, reason_size, "interrupted: the daemon is stopping");
        if (r < 0)
                return fail(r, reason, reason_size, "it ended before its last answer");
        if (parser_keep_entry_check(ret, &c->opened, c->n, &c->next, &c->budget, ret_build_id) < 0)
                return fail(-EBADMSG, reason, reason_size, "its answer is malformed");
        return 0;
}

void keep_cell_end(struct keep_cell *c) {
        c->in_fd = safe_close(c->in_fd);
        c->out_fd = safe_close(c->out_fd);
        if (c->pid > 0 && child_wait_until(c->pid, c->pidfd, now_monotonic_usec() + KEEP_END_GRACE_USEC, NULL))
                c->pid = 0;
        keep_cell_stop(c);
}
