/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/fileio.h"

long read_full(int fd, void *buf, size_t size) {
        size_t done = 0;

        while (done < size) {
                ssize_t n = read(fd, (char *) buf + done, size - done);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                done += (size_t) n;
        }
        return (long) done;
}

int read_exact(int fd, void *buf, size_t size) {
        long n = read_full(fd, buf, size);
        if (n < 0)
                return (int) n;
        return (size_t) n == size ? 0 : -EBADMSG;
}

/* write() or, if positioned, pwrite() at offset, until all is written. */
static int write_all(int fd, const void *buf, size_t size, bool positioned, uint64_t offset) {
        size_t done = 0;

        while (done < size) {
                ssize_t n = positioned ? pwrite(fd, (const char *) buf + done, size - done, (off_t) (offset + done))
                                       : write(fd, (const char *) buf + done, size - done);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        return -EIO;
                done += (size_t) n;
        }
        return 0;
}

int pwrite_full(int fd, const void *buf, size_t size, uint64_t offset) {
        return write_all(fd, buf, size, true, offset);
}

int write_full(int fd, const void *buf, size_t size) {
        return write_all(fd, buf, size, false, 0);
}

int read_file_at(int dir_fd, const char *name, size_t max, char **ret, size_t *ret_size, int *ret_truncated) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;

        fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
        if (fd < 0)
                return negative_errno();

        buf = malloc(max + 1);
        if (!buf)
                return -ENOMEM;

        long n = read_full(fd, buf, max);
        if (n < 0)
                return (int) n;
        buf[n] = 0;

        if (ret_truncated) {
                char extra;
                long m = (size_t) n == max ? read_full(fd, &extra, 1) : 0;
                *ret_truncated = m > 0;
        }
        if (ret_size)
                *ret_size = (size_t) n;
        *ret = TAKE_PTR(buf);
        return 0;
}

int read_link_at(int dir_fd, const char *name, char **ret) {
        char buf[PATH_MAX + 1];

        ssize_t n = readlinkat(dir_fd, name, buf, sizeof buf - 1);
        if (n < 0)
                return negative_errno();
        buf[n] = 0;

        char *s = strdup(buf);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

void strip_trailing_newlines(char *s) {
        size_t n = strlen(s);
        while (n > 0 && s[n - 1] == '\n')
                s[--n] = 0;
}

int open_dir_at(int dir_fd, const char *name, DIR **ret) {
        int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();

        DIR *d = fdopendir(fd);
        if (!d) {
                int r = negative_errno();
                safe_close(fd);
                return r;
        }
        *ret = d;
        return 0;
}
