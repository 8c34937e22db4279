/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl dump: the newest matching core, decompressed, to a file or stdout. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <unistd.h>

#include "dumpctl.h"
#include "reader/core-reader.h"
#include "shared/cleanup.h"
#include "shared/log.h"

static int open_status(const struct entry *d, int r) {
        const char *path = field_or(d, "COREDUMP_FILENAME", "?");
        if (r == -ENOENT) {
                log_error("The core is gone (vacuumed or removed): %s", path);
                return EXIT_NOT_PRESENT;
        }
        if (r == -EPERM && d->systemd_coredump) {
                log_error("Refusing %s: a record of systemd-coredump's names a core only as a file of root's right in "
                          SYSTEMD_COREDUMP_DIR ", a directory of root's no one else may write.", path);
                return EXIT_PERMISSION;
        }
        if (r == -EPERM && d->foreign) {
                log_error("Refusing %s: a foreign record (not from this machine's own system journal) names a file "
                          "outside the store %s.", path,
                          arg.store ?: "of coredumpd.conf");
                return EXIT_PERMISSION;
        }
        if (r == -EACCES || r == -EPERM) {
                log_error("Permission denied: %s", path);
                return EXIT_PERMISSION;
        }
        log_error_errno(r, "Cannot open %s: %m", path);
        return EXIT_ERROR;
}

/* The compact core the record carries, where the file is not here to be read. */
static int write_compact_core(const struct entry *d, int out_fd) {
        uint64_t size = 0;

        int r = write_journal_core(d, out_fd, &size);
        if (r == -EPIPE)
                return EXIT_OK;
        if (r == -ENODATA || r == -ESTALE) {
                log_error("The compact core of pid %lld (%s) is not in the journal any more.", d->pid,
                          field_or(d, "COREDUMP_COMM", "n/a"));
                return EXIT_NOT_PRESENT;
        }
        if (r == -EBADMSG || r == -EFBIG) {
                log_error("The record of pid %lld (%s) carries no compact core dumpctl can use: %s.", d->pid,
                          field_or(d, "COREDUMP_COMM", "n/a"), r == -EFBIG ? "it is too large" : "it is not an ELF core");
                return EXIT_ERROR;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot read the compact core from the journal: %m");
                return EXIT_ERROR;
        }
        if (!arg.quiet)
                log_notice("The core file of pid %lld (%s) is %s: the compact core its record carries instead (%" PRIu64
                           " bytes: registers, stacks, build-ids; not all of its memory).", d->pid,
                           field_or(d, "COREDUMP_COMM", "n/a"),
                           !fields_get(&d->fields, FIELD_FILENAME)   ? "not named"
                           : d->remote && entry_claims_this_machine(d) ? "not opened for a foreign record"
                           : d->remote                                 ? "on the machine that recorded it"
                                                                       : "gone",
                           size);
        return EXIT_OK;
}

int write_core(const struct entry *d, int out_fd) {
        _cleanup_close_ int in_fd = -1;
        const char *path = field_or(d, "COREDUMP_FILENAME", "");
        uint64_t size = 0;

        if (d->presence == ENTRY_JOURNAL)
                return write_compact_core(d, out_fd);
        /* systemd-coredump compresses with what its build has: zstd is read here, xz and lz4 not. */
        if (d->systemd_coredump && (has_suffix(path, ".xz") || has_suffix(path, ".lz4"))) {
                log_error("The core %s is compressed as %s, which dumpctl does not read; coredumpctl dump does.", path,
                          has_suffix(path, ".xz") ? "xz" : "lz4");
                return EXIT_ERROR;
        }
        const char *store = store_path();
        if (!store)
                return EXIT_ERROR;
        int r = entry_open_core(d, store, &in_fd);
        if (r == -ENOENT && d->journal_core && d->cursor)
                return write_compact_core(d, out_fd); /* removed since it was listed */
        if (r < 0)
                return open_status(d, r);
        r = core_decompress(in_fd, core_file_is_compressed(path), out_fd, &size);
        if (r == -EPIPE)
                return EXIT_OK; /* the reader stopped early, its business */
        if (r < 0) {
                log_error_errno(r, "Cannot decompress %s: %m", path);
                return EXIT_ERROR;
        }
        log_debug("Wrote %" PRIu64 " bytes of core from %s.", size, path);
        return EXIT_OK;
}

/* -o FILE: a new file; or one that is there already if it is the caller's own regular file (cut to
 * nothing) or a character device (/dev/null). Never through a symlink, never into a FIFO (O_NONBLOCK:
 * no waiting for a reader) or a file someone else placed there for root to write into. The fd, or
 * -EPERM for such a file, or -errno. */
static int open_output(const char *path) {
        int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK;
        int fd = open(path, flags | O_CREAT | O_EXCL, 0600);
        if (fd >= 0)
                return fd;
        if (errno != EEXIST)
                return errno == ELOOP ? -EPERM : -errno;
        fd = open(path, flags);
        if (fd < 0)
                return errno == ELOOP || errno == ENXIO ? -EPERM : -errno;
        struct stat st;
        if (fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_uid == geteuid()))) {
                safe_close(fd);
                return -EPERM;
        }
        if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
                int r = -errno;
                safe_close(fd);
                return r;
        }
        /* Blocking again: the core is written in full. */
        (void) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        return fd;
}

int verb_dump(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        const struct entry *d = NULL;
        _cleanup_close_ int fd = -1;

        if (!arg.output && isatty(STDOUT_FILENO)) {
                log_error("Refusing to write a core to a terminal: use -o FILE or a pipe.");
                return EXIT_USAGE;
        }
        int status = select_dump(&l, &d);
        if (status != EXIT_OK)
                return status;

        if (arg.output) {
                fd = open_output(arg.output);
                if (fd == -EPERM) {
                        log_error("Refusing to write to %s: it is a symlink, a FIFO or socket, or a file of another "
                                  "user; remove it or name a new file.", arg.output);
                        return EXIT_ERROR;
                }
                if (fd < 0) {
                        errno = -fd;
                        log_error_errno(errno, "Cannot create %s: %m", arg.output);
                        return errno == EACCES ? EXIT_PERMISSION : EXIT_ERROR;
                }
        }
        status = write_core(d, fd >= 0 ? fd : STDOUT_FILENO);
        if (status == EXIT_OK && fd >= 0 && close(TAKE_FD(fd)) < 0) {
                log_error_errno(errno, "Cannot write %s: %m", arg.output);
                return EXIT_ERROR;
        }
        return status;
}
