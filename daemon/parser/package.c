/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `coredumpd-parser --package` (parser/package-wire.h): the package a crashed executable belongs
 * to, in the cell. Every file is opened inside the task's root (fd 3) one component at a time,
 * following no symlink (open_beneath_nofollow(): RESOLVE_IN_ROOT without openat2, which the cell's
 * filter refuses), looked at with O_PATH and opened only as a regular file; every file is read
 * within a bound and parsed by shared/dpkg.c, which takes nothing it has not checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parser/checksum.h"
#include "parser/package-index.h"
#include "parser/package-note.h"
#include "parser/package.h"
#include "parser/sandbox.h"
#include "parser/wire.h"
#include "selfdump/task-files.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"

#define STATUS_MAX (UINT64_C(64) << 20)
#define DIVERSIONS_MAX (UINT64_C(4) << 20)
#define LIST_MAX (UINT64_C(16) << 20)
#define MD5SUMS_MAX (UINT64_C(16) << 20)
#define DELETED_SUFFIX " (deleted)"

__attribute__((format(printf, 2, 3))) static void none(struct package_info *p, const char *format, ...) {
        va_list ap;
        *p = (struct package_info) { .from = PACKAGE_FROM_NONE };
        va_start(ap, format);
        vsnprintf(p->error, sizeof p->error, format, ap);
        va_end(ap);
        /* The path in it is the task's: only printable bytes go back. */
        for (char *c = p->error; *c; c++)
                if ((unsigned char) *c < 0x20 || (unsigned char) *c > 0x7e)
                        *c = '?';
}

static int open_in_root(int root_fd, const char *path) {
        _cleanup_close_ int at = open_beneath_nofollow(root_fd, path, O_PATH | O_CLOEXEC);
        if (at < 0)
                return at;
        return task_file_reopen(at);
}

static int file_md5(int fd, char ret[static 33]) {
        _cleanup_free_ char *buf = malloc(64 * 1024);
        struct md5 m;
        if (!buf)
                return -ENOMEM;
        md5_init(&m);
        for (off_t off = 0;;) {
                ssize_t n = pread(fd, buf, 64 * 1024, off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                md5_update(&m, buf, (size_t) n);
                off += n;
        }
        md5_hex(&m, ret);
        return 0;
}

/* What a lookup reads: the root, its status and diversions, and the index of its lists if there is
 * one (else every list is read). */
struct db {
        int root_fd;
        const char *status, *diversions, *index;
        size_t status_size, diversions_size, index_size;
};

/* The installed package whose list has path (skip: a package not to take, or NULL): 1 and *ret. */
static int owner_of(const struct db *db, const char *path, const char *skip, struct dpkg_package *ret) {
        int root_fd = db->root_fd;
        const char *status = db->status;
        size_t status_size = db->status_size, offset = 0;
        struct dpkg_package p;

        if (db->index) {
                char name[DPKG_NAME_MAX + 1], arch[DPKG_ARCH_MAX + 1];
                while (package_index_next(db->index, db->index_size, path, &offset, name, arch) > 0)
                        if (!(skip && strcmp(name, skip) == 0) &&
                            dpkg_status_find(status, status_size, name, arch[0] ? arch : NULL, ret) > 0)
                                return 1;
                return 0;
        }
        while (dpkg_status_next(status, status_size, &offset, &p) > 0) {
                if (skip && strcmp(p.name, skip) == 0)
                        continue;
                _cleanup_free_ char *list = NULL;
                size_t size = 0;
                if (package_read_info(root_fd, &p, "list", LIST_MAX, &list, &size) < 0)
                        continue;
                if (dpkg_list_contains(list, size, path)) {
                        *ret = p;
                        return 1;
                }
        }
        return 0;
}

/* The other name of path on a merged-/usr root (/bin a symlink to usr/bin, ...): /usr/X/... and
 * /X/... are one file, and dpkg's lists may name either. */
static bool usr_alias(int root_fd, const char *path, char *ret, size_t size) {
        static const char *const dirs[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                size_t k = strlen(dirs[i]);
                const char *rest = NULL;
                bool from_usr = false;
                if (strncmp(path, "/usr/", 5) == 0 && strncmp(path + 5, dirs[i], k) == 0 && path[5 + k] == '/') {
                        rest = path + 5 + k;
                        from_usr = true;
                } else if (strncmp(path + 1, dirs[i], k) == 0 && path[0] == '/' && path[1 + k] == '/')
                        rest = path + 1 + k;
                if (!rest)
                        continue;
                struct stat st;
                if (fstatat(root_fd, dirs[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
                        return false;
                int n = snprintf(ret, size, "%s%s%s", from_usr ? "/" : "/usr/", dirs[i], rest);
                return n > 0 && (size_t) n < size;
        }
        return false;
}

/* Who ships the file at path, diversions considered: 1 with *ret and the path as the package
 * lists it in packaged, 0 none, -EPERM a local diversion (the administrator's file). */
static int lookup(const struct db *db, const char *path, struct dpkg_package *ret, char packaged[static DPKG_PATH_MAX + 1]) {
        struct dpkg_diversion d;
        if (db->diversions && dpkg_diversions_find(db->diversions, db->diversions_size, path, &d) > 0) {
                if (strcmp(path, d.from) == 0) {
                        /* The file at the original name is the diverter's own, or the admin's. */
                        if (!d.by[0])
                                return -EPERM;
                        if (dpkg_status_find(db->status, db->status_size, d.by, NULL, ret) <= 0)
                                return 0;
                        _cleanup_free_ char *list = NULL;
                        size_t size = 0;
                        if (package_read_info(db->root_fd, ret, "list", LIST_MAX, &list, &size) < 0 ||
                            !dpkg_list_contains(list, size, path))
                                return 0;
                        snprintf(packaged, DPKG_PATH_MAX + 1, "%s", path);
                        return 1;
                }
                /* The diverted name: the file another package ships as from. */
                snprintf(packaged, DPKG_PATH_MAX + 1, "%s", d.from);
                return owner_of(db, d.from, d.by[0] ? d.by : NULL, ret);
        }
        snprintf(packaged, DPKG_PATH_MAX + 1, "%s", path);
        return owner_of(db, path, NULL, ret);
}

static bool from_note(int fd, struct package_info *p) {
        char json[PACKAGE_NOTE_JSON_MAX + 1];
        if (package_note_read(fd, json) <= 0)
                return false;
        struct package_info n = { .from = PACKAGE_FROM_NOTE };
        if (package_json_string(json, "name", n.name, sizeof n.name) != 1 ||
            package_json_string(json, "version", n.version, sizeof n.version) != 1)
                return false;
        (void) package_json_string(json, "architecture", n.arch, sizeof n.arch);
        if (n.arch[0] && !dpkg_arch_valid(n.arch))
                n.arch[0] = 0;
        memcpy(n.json, json, sizeof n.json);
        char why[64];
        char buf[PARSER_PACKAGE_ANSWER_MAX];
        size_t size = package_answer_encode(&n, buf, sizeof buf);
        if (package_answer_decode(buf, size, &n, why, sizeof why) < 0)
                return false; /* a note the daemon would refuse: dpkg is asked instead */
        *p = n;
        return true;
}

/* The index of the lists: the cached one if its key is the database's, else one made now and
 * written for the daemon to keep. NULL (every list read) without a cache or on failure. */
static char *index_of(int root_fd, const char *status, size_t status_size, struct package_cache *cache, size_t *ret_size) {
        char key[PACKAGE_INDEX_KEY_MAX];
        char *index = NULL;
        if (!cache || package_index_key(root_fd, key) < 0)
                return NULL;
        if (package_index_load(cache->in_fd, key, &index, ret_size) > 0)
                return index;
        if (package_index_build(root_fd, status, status_size, key, &index, ret_size) < 0)
                return NULL;
        if (cache->out_fd >= 0 && write_full(cache->out_fd, index, *ret_size) >= 0)
                cache->written = true;
        return index;
}

void package_attribute(int root_fd, const char *exe, bool container, struct package_cache *cache,
                       struct package_info *ret) {
        char path[PARSER_PACKAGE_EXE_MAX + 1];
        const char *where = container ? "the container's" : "the host's";

        if (!exe || exe[0] != '/') {
                none(ret, "%s", "the executable is not known");
                return;
        }
        snprintf(path, sizeof path, "%s", exe);
        size_t n = strlen(path), k = strlen(DELETED_SUFFIX);
        bool deleted = n > k && strcmp(path + n - k, DELETED_SUFFIX) == 0;
        if (deleted)
                path[n - k] = 0;

        /* The file that crashed, if it is still there: its note, its md5sum. */
        _cleanup_close_ int fd = deleted ? -ENOENT : open_in_root(root_fd, path);
        if (fd >= 0 && from_note(fd, ret))
                return;

        _cleanup_free_ char *status = NULL, *diversions = NULL;
        size_t status_size = 0, diversions_size = 0;
        int r = package_read_in_root(root_fd, "/var/lib/dpkg/status", STATUS_MAX, &status, &status_size);
        if (r == -ENOENT) {
                none(ret, "no package note, and %s root has no dpkg database (/var/lib/dpkg/status)", where);
                return;
        }
        if (r < 0) {
                none(ret, "cannot read %s /var/lib/dpkg/status: %s", where, strerror(-r));
                return;
        }
        if (package_read_in_root(root_fd, "/var/lib/dpkg/diversions", DIVERSIONS_MAX, &diversions, &diversions_size) < 0)
                diversions = NULL;

        _cleanup_free_ char *index = NULL;
        struct db db = {
                .root_fd = root_fd,
                .status = status,
                .status_size = status_size,
                .diversions = diversions,
                .diversions_size = diversions_size,
        };
        db.index = index = index_of(root_fd, status, status_size, cache, &db.index_size);

        struct dpkg_package p;
        char packaged[DPKG_PATH_MAX + 1] = "", alias[PARSER_PACKAGE_EXE_MAX + 1];
        r = lookup(&db, path, &p, packaged);
        if (r == 0 && usr_alias(root_fd, path, alias, sizeof alias))
                r = lookup(&db, alias, &p, packaged);
        if (r == -EPERM) {
                none(ret, "%s is diverted locally: the administrator's file, no package's", path);
                return;
        }
        if (r <= 0) {
                none(ret, "no package note, and no package installed in %s root has %s", where, path);
                return;
        }

        *ret = (struct package_info) { .from = PACKAGE_FROM_DPKG, .modified = PACKAGE_MODIFIED_UNKNOWN };
        memcpy(ret->name, p.name, sizeof ret->name);
        memcpy(ret->version, p.version, sizeof ret->version);
        memcpy(ret->arch, p.arch, sizeof ret->arch);
        memcpy(ret->source, p.source, sizeof ret->source);
        memcpy(ret->source_version, p.source_version, sizeof ret->source_version);
        snprintf(ret->file, sizeof ret->file, "%s", packaged);
        for (char *c = ret->file; *c; c++)
                if ((unsigned char) *c < 0x20 || (unsigned char) *c > 0x7e)
                        *c = '?';

        _cleanup_free_ char *md5sums = NULL;
        size_t md5sums_size = 0;
        char want[33], have[33];
        if (fd >= 0 && package_read_info(root_fd, &p, "md5sums", MD5SUMS_MAX, &md5sums, &md5sums_size) >= 0 &&
            dpkg_md5sums_find(md5sums, md5sums_size, packaged, want) > 0 && file_md5(fd, have) >= 0)
                ret->modified = strcmp(want, have) == 0 ? PACKAGE_MODIFIED_NO : PACKAGE_MODIFIED_YES;
}

int package_main(void) {
        static struct parser_package_request req;
        char reason[256] = "";

        if (read_exact(STDIN_FILENO, &req, sizeof req) < 0 || !parser_package_request_valid(&req))
                return 2;
        struct cell_limits limits = {
                .address_space = UINT64_C(1) << 30,
                .cpu_seconds = 20,
                .open_files = 32,
                .file_size = req.flags & PARSER_PACKAGE_INDEX ? PACKAGE_INDEX_MAX : 0,
        };
        if (sandbox_enter(req.uid, req.gid, &limits, SANDBOX_READ, reason, sizeof reason) < 0)
                return EXIT_FAILURE;
        /* From here on, everything read is the task's root's. */
        struct package_info info;
        struct package_cache cache = { .in_fd = PARSER_FD_PACKAGE_INDEX_IN, .out_fd = PARSER_FD_PACKAGE_INDEX_OUT };
        bool cached = req.flags & PARSER_PACKAGE_INDEX;
        package_attribute(PARSER_FD_PACKAGE_ROOT, req.exe, req.flags & PARSER_PACKAGE_CONTAINER, cached ? &cache : NULL,
                          &info);
        info.index_written = cached && cache.written;
        char buf[PARSER_PACKAGE_ANSWER_MAX];
        size_t size = package_answer_encode(&info, buf, sizeof buf);
        return write_full(STDOUT_FILENO, buf, size) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
