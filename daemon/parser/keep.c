/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `coredumpd-parser --keep-files` (parser/wire.h): a container's files opened, compared with the
 * host's and read for their copies, in the cell. Whatever a file does to the process reading it —
 * a FUSE server under an overlay that never answers, a read that never returns — happens to this
 * process, which the daemon stops waiting for at its deadline and kills.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parser/keep.h"
#include "parser/sandbox.h"
#include "parser/wire.h"
#include "selfdump/proc-maps.h"
#include "selfdump/task-files.h"
#include "shared/cleanup.h"
#include "shared/elf-build-id.h"
#include "shared/fileio.h"

#define MOUNTINFO_MAX (4u * 1024 * 1024)
#define COPY_CHUNK (128u * 1024)

static bool is_elf(int fd) {
        unsigned char magic[4];
        return pread(fd, magic, sizeof magic, 0) == (ssize_t) sizeof magic && memcmp(magic, "\177ELF", 4) == 0;
}

/* Our own mountinfo (the daemon's mount namespace: the host's files), read before the cell is
 * entered; NULL if it cannot be: then no host file is looked at. */
static char *read_mountinfo(void) {
        _cleanup_close_ int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        size_t size = 0;
        char *text = malloc(MOUNTINFO_MAX + 1);
        while (text && size < MOUNTINFO_MAX) {
                ssize_t n = read(fd, text + size, MOUNTINFO_MAX - size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                size += (size_t) n;
        }
        if (text)
                text[size] = 0;
        return text;
}

/* The host's file at path, to be compared with the container's: never on a remote file system,
 * through no symlink, only a regular file (looked at with O_PATH before it is opened). -1 if none. */
static int host_file_open(int host_root, const char *mountinfo, const char *path) {
        if (host_root < 0 || !mountinfo || mountinfo_path_is_remote(mountinfo, path) != 0)
                return -1;
        _cleanup_close_ int at = open_beneath_nofollow(host_root, path, O_PATH | O_CLOEXEC);
        int fd = at < 0 ? -1 : task_file_reopen(at);
        return fd < 0 ? -1 : fd;
}

static bool same_inode(int a, int b) {
        struct stat x, y;
        return a >= 0 && b >= 0 && fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Exactly size bytes of fd from its start: zeros where it has become shorter meanwhile. */
static int send_file(int fd, uint64_t size) {
        _cleanup_free_ char *buf = malloc(COPY_CHUNK);
        uint64_t offset = 0;
        bool ended = false;

        if (!buf)
                return -ENOMEM;
        while (offset < size) {
                size_t want = (size_t) MIN((uint64_t) COPY_CHUNK, size - offset);
                ssize_t n = 0;
                if (!ended) {
                        n = pread(fd, buf, want, (off_t) offset);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0) {
                                ended = true;
                                n = 0;
                        }
                }
                if (n == 0) {
                        memset(buf, 0, want);
                        n = (ssize_t) want;
                }
                int r = write_full(STDOUT_FILENO, buf, (size_t) n);
                if (r < 0)
                        return r;
                offset += (uint64_t) n;
        }
        return 0;
}

static int send_entry(uint32_t index, uint32_t what, int error, const char *build_id, uint64_t size) {
        struct parser_keep_entry e = {
                .magic = PARSER_KEEP_MAGIC,
                .index = index,
                .what = what,
                .error = error,
                .size = size,
        };
        if (build_id)
                memcpy(e.build_id, build_id, strnlen(build_id, sizeof e.build_id));
        return write_full(STDOUT_FILENO, &e, sizeof e);
}

int keep_files_main(void) {
        static struct parser_keep_request req;
        static char paths[PARSER_KEEP_FILES_MAX][PARSER_KEEP_PATH_MAX + 1];
        int fds[PARSER_KEEP_FILES_MAX];
        char reason[256] = "";

        if (read_exact(STDIN_FILENO, &req, sizeof req) < 0 || !parser_keep_request_valid(&req))
                return 2;
        for (uint32_t i = 0; i < req.n_files; i++) {
                if (read_exact(STDIN_FILENO, paths[i], req.files[i].path_len) < 0 ||
                    memchr(paths[i], 0, req.files[i].path_len))
                        return 2;
                paths[i][req.files[i].path_len] = 0;
        }
        _cleanup_free_ char *mountinfo = read_mountinfo();
        _cleanup_close_ int host_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct cell_limits limits = {
                .address_space = UINT64_C(256) << 20,
                .cpu_seconds = 120,
                .open_files = 2 * PARSER_KEEP_FILES_MAX + 16,
                .file_size = 0,
        };
        if (sandbox_enter(req.uid, req.gid, &limits, SANDBOX_READ, reason, sizeof reason) < 0)
                return EXIT_FAILURE;

        /* 1. While the task is held: each file opened in its root. From here on, everything looked
         * at is the crasher's. */
        struct parser_keep_opened opened = { .magic = PARSER_KEEP_MAGIC, .n_files = req.n_files };
        for (uint32_t i = 0; i < req.n_files; i++) {
                struct proc_mapping m = {
                        .path = paths[i],
                        .inode = req.files[i].inode,
                        .dev_major = req.files[i].dev_major,
                        .dev_minor = req.files[i].dev_minor,
                };
                fds[i] = task_file_open(PARSER_FD_KEEP_ROOT, &m);
                if (fds[i] >= 0 && !is_elf(fds[i])) {
                        fds[i] = safe_close(fds[i]);
                        fds[i] = -ENOEXEC;
                }
                opened.error[i] = fds[i] < 0 ? fds[i] : 0;
        }
        if (write_full(STDOUT_FILENO, &opened, sizeof opened) < 0)
                return EXIT_FAILURE;

        /* 2. Once the task is released: compared, and read for the copies. */
        char go = 0;
        if (read_exact(STDIN_FILENO, &go, 1) < 0 || go != PARSER_KEEP_GO)
                return EXIT_SUCCESS;
        uint64_t left = req.max_bytes;
        for (uint32_t i = 0; i < req.n_files; i++) {
                if (fds[i] < 0)
                        continue;
                char own[41] = "", host_id[41] = "";
                if (elf_file_build_id(fds[i], own) < 0)
                        own[0] = 0;
                _cleanup_close_ int host = host_file_open(host_root, mountinfo, paths[i]);
                if (host >= 0 && elf_file_build_id(host, host_id) < 0)
                        host_id[0] = 0;
                int r;
                struct stat st;
                if (same_inode(fds[i], host) || (own[0] && strcmp(own, host_id) == 0))
                        r = send_entry(i, PARSER_KEEP_HOST, 0, own, 0);
                else if (fstat(fds[i], &st) < 0 || !S_ISREG(st.st_mode))
                        r = send_entry(i, PARSER_KEEP_NONE, -EBADF, own, 0);
                else if ((uint64_t) st.st_size > left)
                        r = send_entry(i, PARSER_KEEP_NONE, -EFBIG, own, 0);
                else {
                        left -= (uint64_t) st.st_size;
                        r = send_entry(i, PARSER_KEEP_COPY, 0, own, (uint64_t) st.st_size);
                        r = r ?: send_file(fds[i], (uint64_t) st.st_size);
                }
                if (r < 0)
                        return EXIT_FAILURE;
        }
        return send_entry(0, PARSER_KEEP_END, 0, NULL, 0) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
