/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A core from the kernel's stream on the coredump socket: spliced (or read) into the writer within
 * MaxSize=, the store's progress kept for the deadline, and checked to be complete. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"
#include "store/core-extent.h"
#include "store/core-writer.h"
#include "store/store-internal.h"
#include "store/store.h"

/* ---- streaming ------------------------------------------------------------------------------- */

struct stream_result {
        uint64_t received;
        bool truncated;
};

/* Whether the peer has more data after we hit the cap (a blocking peek of one byte). */
static bool peer_has_more(int sock_fd) {
        char c;
        ssize_t n;
        do
                n = recv(sock_fd, &c, 1, MSG_PEEK);
        while (n < 0 && errno == EINTR);
        return n > 0;
}

/* The stream's bytes: what to do with a failed receive, and the progress the deadline watches. */
static int stream_receive_failed(int r, const struct stream_result *res, char *reason, size_t reason_size) {
        snprintf(reason, reason_size, "receiving the core failed after %" PRIu64 " bytes: %s", res->received,
                 strerror(-r));
        return r;
}

/* A plain core, socket → pipe → file with splice(): the kernel hands the stream's pages to the
 * pipe and copies them once into the file, where read()/write() copies them twice through our
 * buffer (bench/README.md has the figures). Returns -ENOTSUP before taking any byte when the
 * socket cannot splice, so that the caller receives with recv() instead (a file that cannot is
 * the writer's business: core_writer_splice()). */
static int stream_splice(int sock_fd, struct core_writer *w, uint64_t max_size, struct store_progress *progress,
                         struct stream_result *res, char *reason, size_t reason_size) {
        _cleanup_close_ int pipe_rd = -1, pipe_wr = -1;
        int p[2];

        if (w->compression != COMPRESSION_NONE || pipe2(p, O_CLOEXEC) < 0)
                return -ENOTSUP;
        pipe_rd = p[0];
        pipe_wr = p[1];
        /* A larger pipe, fewer round trips; the default 64 KiB still works. */
        int pipe_size = fcntl(pipe_wr, F_SETPIPE_SZ, STREAM_BUFFER_SIZE);
        if (pipe_size <= 0)
                pipe_size = fcntl(pipe_wr, F_GETPIPE_SZ);
        if (pipe_size <= 0)
                pipe_size = 65536;

        for (;;) {
                if (res->received >= max_size) {
                        res->truncated = peer_has_more(sock_fd);
                        return 0;
                }
                size_t want = (size_t) MIN((uint64_t) pipe_size, max_size - res->received);
                ssize_t n = splice(sock_fd, NULL, pipe_wr, NULL, want, SPLICE_F_MOVE);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if ((errno == EINVAL || errno == ENOSYS) && res->received == 0)
                                return -ENOTSUP;
                        return stream_receive_failed(negative_errno(), res, reason, reason_size);
                }
                if (n == 0)
                        return 0;
                if (progress) {
                        atomic_store(&progress->last_usec, now_monotonic_usec());
                        atomic_fetch_add(&progress->received, (uint64_t) n);
                }

                long moved = core_writer_splice(w, pipe_rd, (size_t) n);
                if (moved < 0 || moved != n) {
                        int r = moved < 0 ? (int) moved : -EIO;
                        snprintf(reason, reason_size, "writing the core failed: %s", strerror(-r));
                        return r;
                }
                res->received += (uint64_t) n;
        }
}

/* Any core, with recv() into our buffer (compressed writers, and where splice() cannot). */
static int stream_recv(int sock_fd, struct core_writer *w, uint64_t max_size, struct store_progress *progress,
                       struct stream_result *res, char *reason, size_t reason_size) {
        _cleanup_free_ uint8_t *buf = malloc(STREAM_BUFFER_SIZE);
        int r;

        if (!buf)
                return -ENOMEM;

        for (;;) {
                if (res->received >= max_size) {
                        res->truncated = peer_has_more(sock_fd);
                        return 0;
                }

                size_t want = (size_t) MIN((uint64_t) STREAM_BUFFER_SIZE, max_size - res->received);
                ssize_t n = recv(sock_fd, buf, want, 0);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return stream_receive_failed(negative_errno(), res, reason, reason_size);
                }
                if (n == 0)
                        return 0;
                if (progress) {
                        atomic_store(&progress->last_usec, now_monotonic_usec());
                        atomic_fetch_add(&progress->received, (uint64_t) n);
                }

                r = core_writer_write(w, buf, (size_t) n);
                if (r < 0) {
                        snprintf(reason, reason_size, "writing the core failed: %s", strerror(-r));
                        return r;
                }
                res->received += (uint64_t) n;
        }
}

static int stream_into(int sock_fd, struct core_writer *w, uint64_t max_size, struct store_progress *progress,
                       struct stream_result *res, char *reason, size_t reason_size) {
        /* Deadline= measures the peer's progress: the idle clock starts when we start to take the
         * core, so our own work before it (opening the file, a loaded machine) is not counted as
         * the peer's silence while its bytes wait in the socket. */
        if (progress)
                atomic_store(&progress->last_usec, now_monotonic_usec());
        int r = stream_splice(sock_fd, w, max_size, progress, res, reason, reason_size);
        if (r != -ENOTSUP)
                return r;
        return stream_recv(sock_fd, w, max_size, progress, res, reason, reason_size);
}

/* A stream that ended early is not a core: the peer vanished, or the deadline cut it. */
static int stream_check_complete(struct core_writer *w, const struct stream_result *res,
                                 struct store_progress *progress, char *reason, size_t reason_size) {
        uint64_t expected;
        int r;

        if (res->truncated)
                return 0;
        if (progress && atomic_load(&progress->expired)) {
                const char *why = atomic_load(&progress->expired_why);
                snprintf(reason, reason_size, "deadline reached%s%s%s after %" PRIu64 " bytes of core", why ? " (" : "",
                         why ? why : "", why ? ")" : "", res->received);
                return -ETIMEDOUT;
        }
        if (res->received == 0) {
                snprintf(reason, reason_size, "the kernel sent no core data");
                return -ENODATA;
        }
        if (w->compression != COMPRESSION_NONE)
                return 0; /* streamed cores are taken plain (crash/steps.c); nothing to read back here */
        r = core_writer_finish(w); /* the file's length, trailing hole included */
        if (r < 0) {
                snprintf(reason, reason_size, "finishing the core failed: %s", strerror(-r));
                return r;
        }
        r = core_extent_of_file(w->fd, &expected);
        if (r > 0 && res->received < expected) {
                snprintf(reason, reason_size,
                         "core ended after %" PRIu64 " of %" PRIu64 " bytes (the peer vanished mid-stream)",
                         res->received, expected);
                return -EPIPE;
        }
        return 0;
}

/* Fills the dump from the kernel's stream on the coredump socket. */
struct socket_fill {
        int sock_fd;
        uint64_t max_size;
        struct store_progress *progress;
};

static int fill_from_socket(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                            size_t reason_size) {
        const struct socket_fill *f = userdata;
        struct stream_result res = {};

        int r = stream_into(f->sock_fd, w, f->max_size, f->progress, &res, reason, reason_size);
        if (r >= 0)
                r = stream_check_complete(w, &res, f->progress, reason, reason_size);
        *ret_truncated = res.truncated;
        return r;
}

int store_core(struct store *s, int sock_fd, const struct store_target *t, struct store_progress *progress,
               struct stored_core *ret, char *reason, size_t reason_size) {
        struct socket_fill fill = {
                .sock_fd = sock_fd,
                .max_size = t->max_size,
                .progress = progress,
        };

        return store_core_generated(s, t, fill_from_socket, &fill, ret, reason, reason_size);
}
