/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash/first-seen.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "shared/log.h"

#define SEEN_FILE ".signatures-seen"
#define SEEN_FILE_NEW ".signatures-seen.new"
/* A file of more lines than this is read no further (it is rewritten at twice FIRST_SEEN_MAX). */
#define SEEN_LINES_READ_MAX (4 * FIRST_SEEN_MAX)

struct seen {
        uint64_t signature;
        uint64_t first_usec;
};

struct first_seen {
        int dir_fd;
        pthread_mutex_t lock;
        struct seen *v;                 /* sorted by signature */
        size_t n;
        size_t file_lines;              /* lines in the file: rewritten past 2 x FIRST_SEEN_MAX */
};

static bool signature_parse(const char *s, uint64_t *ret) {
        if (!s || strlen(s) != 16 || strspn(s, "0123456789abcdef") != 16)
                return false;
        *ret = strtoull(s, NULL, 16);
        return true;
}

static int by_signature(const void *a, const void *b) {
        const struct seen *x = a, *y = b;
        return x->signature < y->signature ? -1 : x->signature > y->signature;
}

static int by_newest(const void *a, const void *b) {
        const struct seen *x = a, *y = b;
        return x->first_usec > y->first_usec ? -1 : x->first_usec < y->first_usec;
}

/* The index where signature is, or would be inserted. */
static size_t find(const struct first_seen *s, uint64_t signature, bool *ret_found) {
        size_t lo = 0, hi = s->n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (s->v[mid].signature < signature)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *ret_found = lo < s->n && s->v[lo].signature == signature;
        return lo;
}

static void seen_load(struct first_seen *s) {
        _cleanup_close_ int fd = openat(s->dir_fd, SEEN_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return;
        FILE *f = fdopen(TAKE_FD(fd), "re");
        if (!f)
                return;
        size_t cap = 0, n = 0;
        struct seen *all = NULL;
        char line[128];
        while (s->file_lines < SEEN_LINES_READ_MAX && fgets(line, sizeof line, f)) {
                char sig[17];
                uint64_t usec;
                struct seen x;
                s->file_lines++;
                if (sscanf(line, "%16s %" SCNu64, sig, &usec) != 2 || !signature_parse(sig, &x.signature))
                        continue;
                x.first_usec = usec;
                if (n == cap) {
                        size_t grown_cap = cap ? cap * 2 : 1024;
                        struct seen *grown = realloc(all, grown_cap * sizeof *grown);
                        if (!grown)
                                break;
                        all = grown;
                        cap = grown_cap;
                }
                all[n++] = x;
        }
        fclose(f);
        if (n == 0) {
                free(all);
                return;
        }
        /* One line per signature, its earliest; the newest FIRST_SEEN_MAX of them. */
        qsort(all, n, sizeof *all, by_signature);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
                if (m > 0 && all[m - 1].signature == all[i].signature) {
                        if (all[i].first_usec < all[m - 1].first_usec)
                                all[m - 1].first_usec = all[i].first_usec;
                        continue;
                }
                all[m++] = all[i];
        }
        if (m > FIRST_SEEN_MAX) {
                qsort(all, m, sizeof *all, by_newest);
                m = FIRST_SEEN_MAX;
                qsort(all, m, sizeof *all, by_signature);
        }
        memcpy(s->v, all, m * sizeof *all);
        s->n = m;
        free(all);
}

static int seen_rewrite(struct first_seen *s) {
        _cleanup_close_ int fd = openat(s->dir_fd, SEEN_FILE_NEW, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        FILE *f = fdopen(TAKE_FD(fd), "we");
        if (!f)
                return -errno;
        for (size_t i = 0; i < s->n; i++)
                fprintf(f, "%016" PRIx64 " %" PRIu64 "\n", s->v[i].signature, s->v[i].first_usec);
        if (fclose(f) != 0 || renameat(s->dir_fd, SEEN_FILE_NEW, s->dir_fd, SEEN_FILE) < 0)
                return -errno;
        s->file_lines = s->n;
        return 0;
}

static int seen_append(struct first_seen *s, const struct seen *x) {
        char line[64];
        int len = snprintf(line, sizeof line, "%016" PRIx64 " %" PRIu64 "\n", x->signature, x->first_usec);
        _cleanup_close_ int fd = openat(s->dir_fd, SEEN_FILE, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                                        0600);
        if (fd < 0)
                return -errno;
        int r = write_full(fd, line, (size_t) len);
        if (r < 0)
                return r;
        s->file_lines++;
        return 0;
}

struct first_seen *first_seen_new(int dir_fd) {
        struct first_seen *s = calloc(1, sizeof *s);
        if (!s)
                return NULL;
        s->v = calloc(FIRST_SEEN_MAX, sizeof s->v[0]);
        if (!s->v) {
                free(s);
                return NULL;
        }
        s->dir_fd = dir_fd;
        pthread_mutex_init(&s->lock, NULL);
        seen_load(s);
        return s;
}

struct first_seen *first_seen_free(struct first_seen *s) {
        if (!s)
                return NULL;
        pthread_mutex_destroy(&s->lock);
        free(s->v);
        free(s);
        return NULL;
}

bool first_seen_take(struct first_seen *s, const char *signature, uint64_t now_usec) {
        struct seen x = { .first_usec = now_usec };
        bool found;

        if (!s || !signature_parse(signature, &x.signature))
                return false;
        pthread_mutex_lock(&s->lock);
        size_t at = find(s, x.signature, &found);
        if (found) {
                pthread_mutex_unlock(&s->lock);
                return false;
        }
        if (s->n == FIRST_SEEN_MAX) {
                /* Full: the one first seen longest ago goes. */
                size_t oldest = 0;
                for (size_t i = 1; i < s->n; i++)
                        if (s->v[i].first_usec < s->v[oldest].first_usec)
                                oldest = i;
                memmove(&s->v[oldest], &s->v[oldest + 1], (s->n - oldest - 1) * sizeof s->v[0]);
                s->n--;
                if (oldest < at)
                        at--;
        }
        memmove(&s->v[at + 1], &s->v[at], (s->n - at) * sizeof s->v[0]);
        s->v[at] = x;
        s->n++;
        /* Written before its record, so that no restart makes it new again. A failure (a full
         * store) costs only that: said, not retried. */
        int r = s->file_lines + 1 >= 2 * FIRST_SEEN_MAX ? seen_rewrite(s) : seen_append(s, &x);
        if (r < 0)
                log_warning_errno(-r, "Cannot note signature %s as seen in the store: %m", signature);
        pthread_mutex_unlock(&s->lock);
        return true;
}

size_t first_seen_count(struct first_seen *s) {
        pthread_mutex_lock(&s->lock);
        size_t n = s->n;
        pthread_mutex_unlock(&s->lock);
        return n;
}
