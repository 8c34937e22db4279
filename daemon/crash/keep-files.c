/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash/keep-files.h"
#include "parser/client.h"
#include "selfdump/proc-maps.h"
#include "selfdump/task-files.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "shared/log.h"

#define MOUNTINFO_MAX (4 * 1024 * 1024)

static bool is_elf(int fd) {
        unsigned char magic[4];
        return pread(fd, magic, sizeof magic, 0) == (ssize_t) sizeof magic && memcmp(magic, "\177ELF", 4) == 0;
}

static bool seen(const struct proc_maps *maps, size_t upto, const struct proc_mapping *m) {
        for (size_t i = 0; i < upto; i++) {
                const struct proc_mapping *o = &maps->mappings[i];
                if (proc_mapping_is_file(o) && o->inode == m->inode && o->dev_major == m->dev_major &&
                    o->dev_minor == m->dev_minor)
                        return true;
        }
        return false;
}

void kept_files_open(struct crash_context *ctx, struct kept_files *k, const char *tag) {
        _cleanup_(proc_maps_done) struct proc_maps maps = {};
        int first_error = 0;
        const char *first_path = NULL;
        size_t n_files = 0, n_remote = 0;

        if (context_open_root(ctx, tag) <= 0)
                return;
        int r = proc_maps_read_marked(ctx->proc_fd, &maps);
        if (r < 0) {
                log_crash_errno(tag, LOG_NOTICE, r, "Cannot read the maps of the task, keeping none of its files: %m");
                return;
        }
        for (size_t i = 0; i < maps.n; i++)
                if (proc_mapping_is_file(&maps.mappings[i])) {
                        n_files++;
                        n_remote += maps.mappings[i].remote;
                }

        /* The executable first: the mapping of ctx->exe, then every other file in address order. */
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < maps.n && k->list.n < KEEP_FILES_MAX; i++) {
                        const struct proc_mapping *m = &maps.mappings[i];
                        bool exe = ctx->exe && m->path && strcmp(m->path, ctx->exe) == 0;
                        if (!proc_mapping_is_file(m) || m->remote || (pass == 0) != exe || seen(&maps, i, m))
                                continue;
                        if (pass == 1 && exe)
                                continue;
                        if (!saved_file_path_ok(m->path))
                                continue;
                        int fd = task_file_open(ctx->root_fd, m);
                        if (fd < 0) {
                                log_crash_errno(tag, LOG_DEBUG, fd, "Not keeping %s: %m", m->path);
                                if (!first_error) {
                                        first_error = fd;
                                        first_path = m->path;
                                }
                                continue;
                        }
                        struct saved_file f = { .path = m->path };
                        if (!is_elf(fd) || saved_files_add(&k->list, &f) < 0) {
                                close(fd);
                                continue;
                        }
                        k->fds[k->list.n - 1] = fd;
                        if (exe)
                                break;
                }
        if (k->list.n == 0 && n_files > 0) {
                if (n_remote == n_files)
                        log_crash(tag, LOG_NOTICE, "Keeping none of the container's files: all %zu mapped files are on "
                                  "remote file systems, or which are is not known.", n_files);
                else if (first_error)
                        log_crash_errno(tag, LOG_NOTICE, first_error, "Keeping none of the container's files: "
                                        "cannot open %s in its root: %m", first_path);
        }
}

/* The host's file at path (a path the container's maps named), opened to be compared with the
 * container's: never on a remote file system (our own mountinfo says which), through no symlink on
 * the way (open_beneath_nofollow()), and only a regular file — looked at with O_PATH first, so that
 * no device or FIFO a crafted path names is ever opened. -1 otherwise. */
static int host_file_open(const char *mountinfo, const char *path) {
        if (!mountinfo || mountinfo_path_is_remote(mountinfo, path) != 0)
                return -1;
        _cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int at = root < 0 ? -1 : open_beneath_nofollow(root, path, O_PATH | O_CLOEXEC);
        struct stat st;
        if (at < 0 || fstat(at, &st) < 0 || !S_ISREG(st.st_mode))
                return -1;
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", at);
        return open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
}

static bool same_inode(int a, int b) {
        struct stat x, y;
        return a >= 0 && b >= 0 && fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

void kept_files_save(struct store *s, const char *core_name, uid_t reader_uid, uint64_t budget, struct kept_files *k,
                     const char *tag) {
        _cleanup_free_ char *mountinfo = NULL;
        int fds[2 * KEEP_FILES_MAX], host[KEEP_FILES_MAX];
        char ids[2 * KEEP_FILES_MAX][41];
        size_t n = 0;
        unsigned kept = 0;

        if (k->list.n == 0)
                return;
        (void) read_file_at(AT_FDCWD, "/proc/self/mountinfo", MOUNTINFO_MAX, &mountinfo, NULL, NULL);

        /* Each of the container's files, and the host's of that name where there is one: their
         * build-ids read by the parser (the container's files are the crasher's to craft). */
        for (size_t i = 0; i < k->list.n; i++) {
                host[i] = k->fds[i] >= 0 ? host_file_open(mountinfo, k->list.v[i].path) : -1;
                if (k->fds[i] >= 0)
                        fds[n++] = k->fds[i];
                if (host[i] >= 0)
                        fds[n++] = host[i];
        }
        char reason[256] = "";
        int r = parser_build_ids(fds, n, ids, reason, sizeof reason);
        if (r < 0)
                log_crash_errno(tag, LOG_NOTICE, r, "Cannot read the build-ids of the container's files: %s", reason);

        size_t at = 0;
        for (size_t i = 0; i < k->list.n; i++) {
                struct saved_file *f = &k->list.v[i];
                int fd = k->fds[i];
                if (fd < 0)
                        continue;
                const char *own = ids[at++];
                const char *host_id = host[i] >= 0 ? ids[at++] : "";
                snprintf(f->build_id, sizeof f->build_id, "%s", own);
                if (same_inode(fd, host[i]) || (own[0] && strcmp(own, host_id) == 0))
                        f->host = true;
                else {
                        uint64_t disk = 0;
                        _cleanup_free_ char *name = store_attachment_name(core_name, kept);
                        reason[0] = 0;
                        r = name ? store_save_file(s, fd, name, reader_uid, budget, &disk, tag, reason, sizeof reason)
                                 : -ENOMEM;
                        if (r < 0)
                                log_crash_errno(tag, LOG_NOTICE, r, "Not keeping the container's %s with the core: %s",
                                                f->path, reason[0] ? reason : "out of memory");
                        else {
                                struct stat st;
                                budget -= fstat(fd, &st) == 0 ? MIN(budget, (uint64_t) st.st_size) : 0;
                                f->stored = TAKE_PTR(name);
                                kept++;
                        }
                }
                k->fds[i] = safe_close(fd);
                host[i] = safe_close(host[i]);
        }
        if (kept > 0)
                log_crash(tag, LOG_INFO, "Kept %u file(s) of the container with the core, for the debugger.", kept);
}

void kept_files_done(struct kept_files *k) {
        for (size_t i = 0; i < k->list.n; i++)
                k->fds[i] = safe_close(k->fds[i]);
        saved_files_done(&k->list);
}
