/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parser/map-files.h"
#include "selfdump/task-files.h"
#include "shared/cleanup.h"

/* The names read from map_files at most: a task has at most vm.max_map_count (65530) mappings. */
#define MAP_FILES_NAMES_MAX 65536

void map_files_init(struct map_files *t, size_t max) {
        t->n = 0;
        t->max = MIN(max, (size_t) MAP_FILES_MAX);
}

void map_files_done(struct map_files *t) {
        for (size_t i = 0; i < t->n; i++) {
                safe_close(t->files[i].path_fd);
                safe_close(t->files[i].fd);
        }
        t->n = 0;
}

static bool hex_digits(const char **p, const char *end, uint64_t *ret) {
        uint64_t v = 0;
        const char *q = *p;
        for (; q < end && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')); q++) {
                if (v >> 60)
                        return false;
                v = v * 16 + (uint64_t) (*q <= '9' ? *q - '0' : *q - 'a' + 10);
        }
        if (q == *p || q - *p > 16)
                return false;
        *p = q;
        *ret = v;
        return true;
}

int map_files_name_parse(const char *name, uint64_t *ret_start, uint64_t *ret_end) {
        const char *p = name, *end = name + strlen(name);
        uint64_t start, stop;
        if (!hex_digits(&p, end, &start) || p >= end || *p++ != '-' || !hex_digits(&p, end, &stop) || p != end ||
            start >= stop)
                return -EINVAL;
        *ret_start = start;
        *ret_end = stop;
        return 0;
}

static bool same_file(const struct map_file *a, unsigned major, unsigned minor, uint64_t inode) {
        return a->dev_major == major && a->dev_minor == minor && a->inode == inode;
}

int map_files_offer(struct map_files *t, const struct map_file *c) {
        for (size_t i = 0; i < t->n; i++)
                if (same_file(&t->files[i], c->dev_major, c->dev_minor, c->inode)) {
                        t->files[i].pinned = t->files[i].pinned || c->pinned;
                        return c->path_fd;
                }
        if (t->n < t->max) {
                t->files[t->n++] = *c;
                return -1;
        }
        /* Full: the smallest unpinned file leaves for a pinned one, or for a larger one. */
        struct map_file *smallest = NULL;
        for (size_t i = 0; i < t->n; i++)
                if (!t->files[i].pinned && (!smallest || t->files[i].size <= smallest->size))
                        smallest = &t->files[i];
        if (!smallest || (!c->pinned && c->size <= smallest->size))
                return c->path_fd;
        int gone = smallest->path_fd;
        safe_close(smallest->fd);
        *smallest = *c;
        return gone;
}

struct range {
        uint64_t start, end;
        bool done;
};

static int range_compare(const void *a, const void *b) {
        const struct range *x = a, *y = b;
        return x->start < y->start ? -1 : x->start > y->start;
}

/* The names of dir_fd as ranges, sorted by address. */
static int read_ranges(int dir_fd, struct range **ret, size_t *ret_n) {
        int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        DIR *d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                close(fd);
                return r;
        }
        rewinddir(d);
        struct range *v = NULL;
        size_t n = 0, cap = 0;
        int r = 0;
        for (struct dirent *de; n < MAP_FILES_NAMES_MAX && (errno = 0, de = readdir(d));) {
                uint64_t start, end;
                if (map_files_name_parse(de->d_name, &start, &end) < 0)
                        continue; /* "." and ".." */
                if (n == cap) {
                        size_t more = cap ? cap * 2 : 256;
                        struct range *bigger = reallocarray(v, more, sizeof *v);
                        if (!bigger) {
                                r = -ENOMEM;
                                break;
                        }
                        v = bigger;
                        cap = more;
                }
                v[n++] = (struct range) { .start = start, .end = end };
        }
        if (r == 0 && errno != 0 && n == 0)
                r = -errno;
        closedir(d);
        if (r < 0) {
                free(v);
                return r;
        }
        if (n > 0)
                qsort(v, n, sizeof *v, range_compare);
        *ret = v;
        *ret_n = n;
        return 0;
}

static struct range *range_holding(struct range *v, size_t n, uint64_t addr) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (addr < v[mid].start)
                        hi = mid;
                else if (addr >= v[mid].end)
                        lo = mid + 1;
                else
                        return &v[mid];
        }
        return NULL;
}

static bool known(const struct map_files *t, const struct statx *sx) {
        for (size_t i = 0; i < t->n; i++)
                if (same_file(&t->files[i], sx->stx_dev_major, sx->stx_dev_minor, sx->stx_ino))
                        return true;
        return false;
}

/* The identity of a file as the VFS has it cached: AT_STATX_DONT_SYNC asks no FUSE server (nor any
 * other that would ask someone), and a FUSE mount of another user's refuses (EACCES) unasked. */
static int identity(int dir_fd, const char *name, int flags, struct statx *sx) {
        if (statx(dir_fd, name, flags | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO | STATX_SIZE, sx) < 0)
                return -errno;
        if (!(sx->stx_mask & STATX_TYPE) || !(sx->stx_mask & STATX_INO) || !S_ISREG(sx->stx_mode))
                return -EBADF;
        if (!(sx->stx_mask & STATX_SIZE))
                sx->stx_size = 0;
        return 0;
}

/* One entry: its file's identity through the link (one call: most entries are another mapping of
 * a file already taken), then, for a regular file not yet taken, looked up as O_PATH (the link
 * followed to the mapped file, which is not opened) and taken by that fd's own identity (the
 * entry may have changed in between). */
static void look_at(int dir_fd, struct range *e, bool pinned, struct map_files *t) {
        char name[64];
        struct statx sx;

        e->done = true;
        snprintf(name, sizeof name, "%" PRIx64 "-%" PRIx64, e->start, e->end);
        if (identity(dir_fd, name, 0, &sx) < 0)
                return;
        if (known(t, &sx) && !pinned)
                return;
        int fd = openat(dir_fd, name, O_PATH | O_CLOEXEC);
        if (fd < 0)
                return;
        if (identity(fd, "", AT_EMPTY_PATH, &sx) < 0) {
                close(fd);
                return;
        }
        struct map_file c = {
                .path_fd = fd,
                .fd = -1,
                .dev_major = sx.stx_dev_major,
                .dev_minor = sx.stx_dev_minor,
                .inode = sx.stx_ino,
                .size = sx.stx_size,
                .pinned = pinned,
        };
        int k = map_files_offer(t, &c);
        if (k >= 0)
                close(k);
}

int map_files_collect(int dir_fd, const uint64_t *pcs, size_t n_pcs, struct map_files *t) {
        struct range *v = NULL;
        size_t n = 0, looked = 0;

        int r = read_ranges(dir_fd, &v, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_pcs && looked < MAP_FILES_ENTRIES_MAX; i++) {
                struct range *e = pcs[i] ? range_holding(v, n, pcs[i]) : NULL;
                if (e && !e->done) {
                        look_at(dir_fd, e, true, t);
                        looked++;
                }
        }
        for (size_t i = 0; i < n && looked < MAP_FILES_ENTRIES_MAX; i++)
                if (!v[i].done) {
                        look_at(dir_fd, &v[i], false, t);
                        looked++;
                }
        free(v);
        return 0;
}

size_t map_files_mark_local(struct map_files *t, const struct proc_maps *maps) {
        size_t n = 0;
        for (size_t i = 0; i < t->n; i++)
                t->files[i].local = false;
        for (size_t k = 0; k < maps->n; k++) {
                const struct proc_mapping *m = &maps->mappings[k];
                if (!proc_mapping_is_file(m) || m->remote)
                        continue;
                for (size_t i = 0; i < t->n; i++)
                        if (!t->files[i].local && same_file(&t->files[i], m->dev_major, m->dev_minor, m->inode)) {
                                t->files[i].local = true;
                                n++;
                                break;
                        }
        }
        return n;
}

size_t map_files_open_local(struct map_files *t, const struct proc_maps *maps) {
        size_t n = 0;
        (void) map_files_mark_local(t, maps);
        for (size_t i = 0; i < t->n; i++) {
                struct map_file *f = &t->files[i];
                if (f->local && f->path_fd >= 0 && f->fd < 0) {
                        int fd = task_file_reopen(f->path_fd);
                        if (fd >= 0) {
                                f->fd = fd;
                                n++;
                        }
                }
                f->path_fd = safe_close(f->path_fd);
        }
        return n;
}

int map_files_fd(const struct map_files *t, const struct proc_mapping *m) {
        if (!t || !m || m->remote || !proc_mapping_is_file(m))
                return -1;
        for (size_t i = 0; i < t->n; i++)
                if (t->files[i].local && same_file(&t->files[i], m->dev_major, m->dev_minor, m->inode))
                        return t->files[i].fd;
        return -1;
}
