/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "shared/log.h"
#include "store/store.h"

#define AUTO_LIMIT_CAP (UINT64_C(4) << 30)

struct stored_file {
        char *name;
        struct timespec mtime;
        uint64_t disk_size;
};

struct stored_files {
        struct stored_file *files;
        size_t n;
        uint64_t usage;
};

static void stored_files_done(struct stored_files *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->files[i].name);
        free(l->files);
}

static int stored_file_compare(const void *a, const void *b) {
        const struct stored_file *x = a, *y = b;
        if (x->mtime.tv_sec != y->mtime.tv_sec)
                return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
        if (x->mtime.tv_nsec != y->mtime.tv_nsec)
                return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
        return strcmp(x->name, y->name);
}

/* The store's core.* regular files, oldest first. */
static int list_stored_files(int dir_fd, struct stored_files *ret) {
        _cleanup_closedir_ DIR *d = NULL;
        int k = open_dir_at(dir_fd, ".", &d);
        if (k < 0)
                return k;

        struct dirent *de;
        while ((errno = 0, de = readdir(d))) {
                struct stat st;

                if (strncmp(de->d_name, "core.", 5) != 0)
                        continue;
                if (fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;

                struct stored_file *grown = realloc(ret->files, (ret->n + 1) * sizeof *grown);
                if (!grown)
                        return -ENOMEM;
                ret->files = grown;
                char *name = strdup(de->d_name);
                if (!name)
                        return -ENOMEM;
                ret->files[ret->n++] = (struct stored_file) {
                        .name = name,
                        .mtime = st.st_mtim,
                        .disk_size = (uint64_t) st.st_blocks * 512,
                };
                ret->usage += (uint64_t) st.st_blocks * 512;
        }
        if (errno != 0)
                return negative_errno();

        if (ret->n > 0)
                qsort(ret->files, ret->n, sizeof ret->files[0], stored_file_compare);
        return 0;
}

static uint64_t auto_limit(uint64_t configured, uint64_t fs_size, unsigned percent) {
        if (configured != SIZE_AUTO)
                return configured;
        return MIN(fs_size / 100 * percent, AUTO_LIMIT_CAP);
}

int store_vacuum(struct store *s, const char *keep, const char *tag) {
        _cleanup_(stored_files_done) struct stored_files files = {};
        struct statvfs sv;
        int removed = 0, r;

        pthread_mutex_lock(&s->vacuum_lock);

        if (fstatvfs(s->dir_fd, &sv) < 0) {
                r = log_crash_errno(tag, LOG_WARNING, errno, "Cannot vacuum %s, statvfs failed: %m", s->path);
                goto finish;
        }
        uint64_t fs_size = (uint64_t) sv.f_blocks * sv.f_frsize;
        uint64_t free_space = (uint64_t) sv.f_bavail * sv.f_frsize;
        uint64_t max_use = auto_limit(s->max_use, fs_size, 10);
        uint64_t keep_free = auto_limit(s->keep_free, fs_size, 15);

        r = list_stored_files(s->dir_fd, &files);
        if (r < 0) {
                log_crash_errno(tag, LOG_WARNING, r, "Cannot vacuum %s, listing failed: %m", s->path);
                goto finish;
        }

        for (size_t i = 0; i < files.n && (files.usage > max_use || free_space < keep_free); i++) {
                const struct stored_file *f = &files.files[i];

                if (keep && strcmp(f->name, keep) == 0)
                        continue;
                if (unlinkat(s->dir_fd, f->name, 0) < 0) {
                        if (errno != ENOENT)
                                log_crash_errno(tag, LOG_WARNING, errno, "Cannot remove old dump %s/%s: %m",
                                                s->path, f->name);
                        continue;
                }
                log_crash(tag, LOG_INFO, "Removed old dump %s/%s (%" PRIu64 " bytes) to honour MaxUse=/KeepFree=.",
                          s->path, f->name, f->disk_size);
                files.usage -= MIN(files.usage, f->disk_size);
                free_space += f->disk_size;
                removed++;
        }
        r = removed;

finish:
        pthread_mutex_unlock(&s->vacuum_lock);
        return r;
}
