/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/log.h"
#include "store/metrics.h"

#define METRICS_FILE_NEW ".metrics.new"

struct metrics_header {
        char magic[8];
        uint32_t version;
        uint32_t n;             /* counters that follow */
};

#define METRICS_SIZE (sizeof(struct metrics_header) + _METRICS_COUNTER_MAX * sizeof(uint64_t))

struct metrics {
        void *map;
        uint64_t *v;
};

const uint64_t metrics_bucket_usec[METRICS_BUCKETS] = {
        500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
        1000000, 2500000, 10000000, 60000000,
};

static const char *const action_labels[_METRICS_ACTION_MAX] = {
        [METRICS_ACTION_NONE] = "none",
        [METRICS_ACTION_KERNEL] = "kernel",
        [METRICS_ACTION_USERSPACE] = "userspace",
        [METRICS_ACTION_REJECT] = "reject",
};

static const char *const result_labels[_METRICS_RESULT_MAX] = {
        [METRICS_RESULT_STORED] = "stored",
        [METRICS_RESULT_USERSPACE] = "left-to-userspace",
        [METRICS_RESULT_REJECTED] = "rejected",
        [METRICS_RESULT_OVERLOAD] = "overload",
        [METRICS_RESULT_FAILED] = "failed",
};

static const char *const reason_labels[_METRICS_REASON_MAX] = {
        [METRICS_REASON_NONE] = "none",
        [METRICS_REASON_RULE] = "rule",
        [METRICS_REASON_RLIMIT_ZERO] = "rlimit-zero",
        [METRICS_REASON_REPEAT] = "repeat",
        [METRICS_REASON_NO_ROOM] = "no-room",
        [METRICS_REASON_OVERLOAD] = "overload",
        [METRICS_REASON_DEADLINE] = "deadline",
        [METRICS_REASON_KERNEL_REFUSED] = "kernel-refused",
        [METRICS_REASON_SELF] = "self",
        [METRICS_REASON_NO_CONTEXT] = "no-context",
        [METRICS_REASON_ABANDONED] = "abandoned",
        [METRICS_REASON_ERROR] = "error",
};

static const char *const vacuum_labels[_METRICS_VACUUM_MAX] = {
        [METRICS_VACUUM_AGE] = "age",
        [METRICS_VACUUM_SIZE] = "size",
        [METRICS_VACUUM_PER_USER] = "per-user",
};

const char *metrics_action_label(enum metrics_action a) {
        return a < _METRICS_ACTION_MAX ? action_labels[a] : NULL;
}

const char *metrics_result_label(enum metrics_result r) {
        return r < _METRICS_RESULT_MAX ? result_labels[r] : NULL;
}

const char *metrics_reason_label(enum metrics_reason r) {
        return r < _METRICS_REASON_MAX ? reason_labels[r] : NULL;
}

const char *metrics_vacuum_label(enum metrics_vacuum_cause c) {
        return c < _METRICS_VACUUM_MAX ? vacuum_labels[c] : NULL;
}

/* The header and the number of counters fd holds, checked against its size: 0, or -EBADMSG. */
static int header_check(int fd, uint32_t *ret_n) {
        struct metrics_header h;
        struct stat st;

        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
                return -EBADMSG;
        if (pread(fd, &h, sizeof h, 0) != (ssize_t) sizeof h || memcmp(h.magic, METRICS_MAGIC, sizeof h.magic) != 0 ||
            h.version != METRICS_VERSION || h.n == 0 || h.n > 65536 ||
            (uint64_t) st.st_size != sizeof h + (uint64_t) h.n * sizeof(uint64_t))
                return -EBADMSG;
        *ret_n = h.n;
        return 0;
}

int metrics_read(int dir_fd, uint64_t values[static _METRICS_COUNTER_MAX]) {
        memset(values, 0, _METRICS_COUNTER_MAX * sizeof values[0]);
        _cleanup_close_ int fd = openat(dir_fd, METRICS_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        struct stat st;
        uint32_t n;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (st.st_uid != 0 && st.st_uid != geteuid())
                return -EBADMSG; /* made by neither root nor us: not believed */
        /* header_check() wants it to be ours; a reader takes root's too. */
        struct metrics_header h;
        if (!S_ISREG(st.st_mode) || pread(fd, &h, sizeof h, 0) != (ssize_t) sizeof h ||
            memcmp(h.magic, METRICS_MAGIC, sizeof h.magic) != 0 || h.version != METRICS_VERSION || h.n == 0 ||
            h.n > 65536 || (uint64_t) st.st_size != sizeof h + (uint64_t) h.n * sizeof(uint64_t))
                return -EBADMSG;
        n = h.n < _METRICS_COUNTER_MAX ? h.n : _METRICS_COUNTER_MAX;
        ssize_t k = pread(fd, values, n * sizeof values[0], sizeof h);
        if (k != (ssize_t) (n * sizeof values[0])) {
                memset(values, 0, _METRICS_COUNTER_MAX * sizeof values[0]);
                return k < 0 ? negative_errno() : -EBADMSG;
        }
        return 0;
}

/* A new file of the full size holding what old_fd (if >= 0, n counters) had, renamed over
 * .metrics: its fd, or -errno. */
static int metrics_replace(int dir_fd, int old_fd, uint32_t n) {
        _cleanup_free_ uint64_t *v = calloc(_METRICS_COUNTER_MAX, sizeof *v);
        if (!v)
                return -ENOMEM;
        if (old_fd >= 0 && n > 0) {
                size_t keep = (n < _METRICS_COUNTER_MAX ? n : _METRICS_COUNTER_MAX) * sizeof *v;
                if (pread(old_fd, v, keep, sizeof(struct metrics_header)) != (ssize_t) keep)
                        memset(v, 0, _METRICS_COUNTER_MAX * sizeof *v);
        }
        (void) unlinkat(dir_fd, METRICS_FILE_NEW, 0);
        _cleanup_close_ int fd = openat(dir_fd, METRICS_FILE_NEW, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return negative_errno();
        struct metrics_header h = { .version = METRICS_VERSION, .n = _METRICS_COUNTER_MAX };
        memcpy(h.magic, METRICS_MAGIC, sizeof h.magic);
        int r = 0;
        if (fchmod(fd, 0644) < 0 || pwrite(fd, &h, sizeof h, 0) != (ssize_t) sizeof h ||
            pwrite(fd, v, _METRICS_COUNTER_MAX * sizeof *v, sizeof h) != (ssize_t) (_METRICS_COUNTER_MAX * sizeof *v) ||
            fsync(fd) < 0)
                r = errno > 0 ? -errno : -EIO;
        if (r >= 0 && renameat(dir_fd, METRICS_FILE_NEW, dir_fd, METRICS_FILE) < 0)
                r = negative_errno();
        if (r < 0) {
                (void) unlinkat(dir_fd, METRICS_FILE_NEW, 0);
                return r;
        }
        return TAKE_FD(fd);
}

struct metrics *metrics_open(int dir_fd) {
        _cleanup_close_ int fd = openat(dir_fd, METRICS_FILE, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        uint32_t n = 0;
        int r = fd < 0 ? negative_errno() : header_check(fd, &n);

        if (r < 0 || n != _METRICS_COUNTER_MAX) {
                /* Missing, another layout (kept: fewer counters, an older one), or not ours. */
                int fresh = metrics_replace(dir_fd, r < 0 ? -1 : fd, r < 0 ? 0 : n);
                if (fresh < 0) {
                        log_debug_errno(-fresh, "Cannot make the counters' file %s: %m", METRICS_FILE);
                        return NULL;
                }
                safe_close(fd);
                fd = fresh;
        }
        void *map = mmap(NULL, METRICS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED) {
                log_debug_errno(errno, "Cannot map the counters' file %s: %m", METRICS_FILE);
                return NULL;
        }
        struct metrics *m = calloc(1, sizeof *m);
        if (!m) {
                munmap(map, METRICS_SIZE);
                return NULL;
        }
        m->map = map;
        m->v = (uint64_t *) ((char *) map + sizeof(struct metrics_header));
        return m;
}

struct metrics *metrics_close(struct metrics *m) {
        if (!m)
                return NULL;
        munmap(m->map, METRICS_SIZE);
        free(m);
        return NULL;
}

void metrics_add(struct metrics *m, enum metrics_counter i, uint64_t n) {
        if (m && i < _METRICS_COUNTER_MAX && n > 0)
                (void) __atomic_add_fetch(&m->v[i], n, __ATOMIC_RELAXED);
}

void metrics_max(struct metrics *m, enum metrics_counter i, uint64_t value) {
        if (!m || i >= _METRICS_COUNTER_MAX)
                return;
        uint64_t old = __atomic_load_n(&m->v[i], __ATOMIC_RELAXED);
        while (old < value &&
               !__atomic_compare_exchange_n(&m->v[i], &old, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
}

void metrics_count_crash(struct metrics *m, enum metrics_action a, enum metrics_result r, enum metrics_reason why) {
        if (a < _METRICS_ACTION_MAX && r < _METRICS_RESULT_MAX && why < _METRICS_REASON_MAX)
                metrics_add(m, metrics_crash_index(a, r, why), 1);
}

void metrics_observe(struct metrics *m, enum metrics_histogram h, uint64_t usec) {
        unsigned b = 0;
        while (b < METRICS_BUCKETS && usec > metrics_bucket_usec[b])
                b++;
        metrics_add(m, metrics_histogram_index(h, b), 1); /* METRICS_BUCKETS: +Inf only */
        metrics_add(m, metrics_histogram_index(h, METRICS_BUCKETS + 1), usec);
        metrics_add(m, metrics_histogram_index(h, METRICS_BUCKETS + 2), 1);
}
