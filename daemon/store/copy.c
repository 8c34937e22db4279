/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A regular file copied into the store through a core writer: a plain core compressed in its place
 * once the task is released, and the files kept beside a core (their names, and their bytes as the
 * parser's cell sends them on a pipe: the daemon never reads a container's file itself). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"
#include "store/core-writer.h"
#include "store/store-internal.h"
#include "store/store.h"

/* ---- compression after the task is released -------------------------------------------------- */

void store_interrupt(struct store *s) {
        atomic_store(&s->interrupted, true);
}

struct file_fill {
        struct store *store;
        int fd;
        const char *what;       /* for the reason: "the plain core", "the file" */
        uint64_t max_size;      /* bytes read at most; the file must not be longer (-EFBIG) */
        bool truncated;         /* the plain core was already cut at MaxSize= */
};

/* Fills from a regular file, from its start whatever its offset: a plain core to compress, or a
 * file kept beside a core. */
static int fill_from_file(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                          size_t reason_size) {
        struct file_fill *f = userdata;
        _cleanup_free_ uint8_t *buf = malloc(STREAM_BUFFER_SIZE);
        uint64_t offset = 0;

        if (!buf)
                return -ENOMEM;
        (void) posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        for (;;) {
                if (atomic_load(&f->store->interrupted)) {
                        snprintf(reason, reason_size, "interrupted: the daemon is stopping");
                        return -ECANCELED;
                }
                ssize_t n = pread(f->fd, buf, STREAM_BUFFER_SIZE, (off_t) offset);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int r = negative_errno();
                        snprintf(reason, reason_size, "reading %s failed: %s", f->what, strerror(-r));
                        return r;
                }
                if (n == 0)
                        break;
                if ((uint64_t) n > f->max_size - offset) {
                        snprintf(reason, reason_size, "longer than the %" PRIu64 " bytes left", f->max_size);
                        return -EFBIG;
                }
                offset += (uint64_t) n;
                int r = core_writer_write(w, buf, (size_t) n);
                if (r < 0) {
                        snprintf(reason, reason_size, "writing the copy failed: %s", strerror(-r));
                        return r;
                }
        }
        *ret_truncated = f->truncated;
        return 0;
}

static __thread bool priority_lowered;

bool store_thread_priority_lowered(void) {
        return priority_lowered;
}

/* Low CPU and I/O priority for the calling thread (best effort: Linux applies both per thread). */
static void thread_lower_priority(void) {
        pid_t tid = (pid_t) syscall(SYS_gettid);
        priority_lowered = true;
        (void) setpriority(PRIO_PROCESS, (id_t) tid, 10);
        /* IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT, for IOPRIO_WHO_PROCESS */
        (void) syscall(SYS_ioprio_set, 1, tid, 3 << 13);
}

int store_compress(struct store *s, struct stored_core *plain, const struct store_target *t, char *reason,
                   size_t reason_size) {
        struct file_fill fill = {
                .store = s,
                .what = "the plain core",
                .max_size = UINT64_MAX,
                .truncated = plain->truncated,
        };
        struct stored_core compressed = {};
        int r;

        fill.fd = openat(s->dir_fd, plain->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fill.fd < 0) {
                r = negative_errno();
                snprintf(reason, reason_size, "cannot open the plain core: %s", strerror(-r));
                return r;
        }

        /* Wait for a slot, looking up every 100 ms in case the daemon is stopping. */
        for (;;) {
                struct timespec until = realtime_after(100 * 1000);
                if (sem_timedwait(&s->compress_slots, &until) == 0)
                        break;
                if (atomic_load(&s->interrupted)) {
                        safe_close(fill.fd);
                        snprintf(reason, reason_size, "interrupted: the daemon is stopping");
                        return -ECANCELED;
                }
        }
        thread_lower_priority();
        r = store_core_generated(s, t, fill_from_file, &fill, &compressed, reason, reason_size);
        (void) sem_post(&s->compress_slots);
        safe_close(fill.fd);
        if (r < 0)
                return r;

        if (unlinkat(s->dir_fd, plain->name, 0) < 0)
                log_crash_errno(t->tag, LOG_WARNING, errno, "Cannot remove the plain core %s after compressing it: %m",
                                plain->path);
        compressed.linked_usec = plain->linked_usec;
        stored_core_done(plain);
        *plain = compressed;
        return 0;
}

/* ---- files kept with a core ------------------------------------------------------------------ */

#define ATTACHMENT_INFIX ".file-"

char *store_attachment_name(const char *core_name, unsigned n) {
        size_t len = strlen(core_name);
        char *name;

        if (len >= 4 && strcmp(core_name + len - 4, ".zst") == 0)
                len -= 4;
        if (asprintf(&name, "%.*s" ATTACHMENT_INFIX "%u", (int) len, core_name, n) < 0)
                return NULL;
        return name;
}

bool store_name_is_attachment(const char *name, size_t *ret_base_len) {
        if (strncmp(name, "core.", 5) != 0)
                return false;
        const char *p = strstr(name + 5, ATTACHMENT_INFIX);
        if (!p || p == name + 5)
                return false; /* a core's name comes first */
        const char *digits = p + strlen(ATTACHMENT_INFIX);
        if (!*digits || strspn(digits, "0123456789") != strlen(digits))
                return false;
        if (ret_base_len)
                *ret_base_len = (size_t) (p - name);
        return true;
}

int store_save_file(struct store *s, int src_fd, const char *name, uid_t reader_uid, uint64_t max_size,
                    uint64_t *ret_disk_size, const char *tag, char *reason, size_t reason_size) {
        struct file_fill fill = { .store = s, .fd = src_fd, .what = "the file", .max_size = max_size };
        const struct store_target t = {
                .name = name,
                .reader_uid = reader_uid,
                .max_size = max_size,
                .compress = COMPRESSION_NONE,
                .tag = tag,
        };
        struct stored_core saved = {};
        struct stat st;

        if (fstat(src_fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                snprintf(reason, reason_size, "not a regular file");
                return -EBADF;
        }
        if ((uint64_t) st.st_size > max_size) {
                snprintf(reason, reason_size, "%" PRIu64 " bytes, more than the %" PRIu64 " left", (uint64_t) st.st_size,
                         max_size);
                return -EFBIG;
        }
        int r = store_core_generated(s, &t, fill_from_file, &fill, &saved, reason, reason_size);
        if (r < 0)
                return r;
        if (ret_disk_size)
                *ret_disk_size = saved.disk_size;
        stored_core_done(&saved);
        return 0;
}

/* Fills from a pipe: exactly size bytes, each wait for more at most stall_usec. */
struct pipe_fill {
        struct store *store;
        int fd;
        uint64_t size;
        uint64_t stall_usec;
        uint64_t until_usec;            /* CLOCK_MONOTONIC: the end, however steadily it comes */
};

static int fill_from_pipe(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                          size_t reason_size) {
        struct pipe_fill *f = userdata;
        _cleanup_free_ uint8_t *buf = malloc(STREAM_BUFFER_SIZE);
        uint64_t done = 0, last = now_monotonic_usec();

        if (!buf)
                return -ENOMEM;
        while (done < f->size) {
                if (atomic_load(&f->store->interrupted)) {
                        snprintf(reason, reason_size, "interrupted: the daemon is stopping");
                        return -ECANCELED;
                }
                uint64_t now = now_monotonic_usec();
                if (now - last >= f->stall_usec) {
                        snprintf(reason, reason_size, "nothing came for %" PRIu64 " ms", f->stall_usec / 1000);
                        return -ETIMEDOUT;
                }
                if (now >= f->until_usec) {
                        snprintf(reason, reason_size, "not complete within its time in all");
                        return -ETIMEDOUT;
                }
                struct pollfd p = { .fd = f->fd, .events = POLLIN };
                int n = poll(&p, 1, (int) MIN((f->stall_usec - (now - last) + 999) / 1000, 100));
                if (n < 0 && errno != EINTR) {
                        int r = negative_errno();
                        snprintf(reason, reason_size, "cannot wait for the file: %s", strerror(-r));
                        return r;
                }
                if (n <= 0)
                        continue;
                ssize_t k = read(f->fd, buf, (size_t) MIN((uint64_t) STREAM_BUFFER_SIZE, f->size - done));
                if (k < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (k <= 0) {
                        int r = k < 0 ? negative_errno() : -EPIPE;
                        snprintf(reason, reason_size, "the file ended after %" PRIu64 " of %" PRIu64 " bytes", done,
                                 f->size);
                        return r;
                }
                done += (uint64_t) k;
                last = now_monotonic_usec();
                int r = core_writer_write(w, buf, (size_t) k);
                if (r < 0) {
                        snprintf(reason, reason_size, "writing the copy failed: %s", strerror(-r));
                        return r;
                }
        }
        *ret_truncated = false;
        return 0;
}

int store_save_stream(struct store *s, int pipe_fd, uint64_t size, uint64_t stall_usec, uint64_t until_usec,
                      const char *name, uid_t reader_uid, uint64_t *ret_disk_size, const char *tag, char *reason,
                      size_t reason_size) {
        struct pipe_fill fill = {
                .store = s, .fd = pipe_fd, .size = size, .stall_usec = MAX(stall_usec, 1), .until_usec = until_usec,
        };
        const struct store_target t = {
                .name = name,
                .reader_uid = reader_uid,
                .max_size = size,
                .compress = COMPRESSION_NONE,
                .tag = tag,
        };
        struct stored_core saved = {};

        int r = store_core_generated(s, &t, fill_from_pipe, &fill, &saved, reason, reason_size);
        if (r < 0)
                return r;
        if (ret_disk_size)
                *ret_disk_size = saved.disk_size;
        stored_core_done(&saved);
        return 0;
}
