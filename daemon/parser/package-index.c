/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parser/package-index.h"
#include "selfdump/task-files.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"

#define HEADER "coredumpd-dpkg-index 1 "
#define LIST_MAX (UINT64_C(16) << 20)

static int open_in_root(int root_fd, const char *path) {
        _cleanup_close_ int at = open_beneath_nofollow(root_fd, path, O_PATH | O_CLOEXEC);
        if (at < 0)
                return at;
        return task_file_reopen(at);
}

static int read_fd(int fd, uint64_t max, char **ret, size_t *ret_size) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADF;
        if ((uint64_t) st.st_size > max)
                return -EFBIG;
        size_t cap = (size_t) st.st_size + 1;
        _cleanup_free_ char *buf = malloc(cap + 1);
        if (!buf)
                return -ENOMEM;
        size_t n = 0;
        while (n < cap) { /* pread: the index fd may have been read before */
                ssize_t k = pread(fd, buf + n, cap - n, (off_t) n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t) k;
        }
        if (n == cap)
                return -EFBIG; /* grown meanwhile */
        buf[n] = 0;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

int package_read_in_root(int root_fd, const char *path, uint64_t max, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = open_in_root(root_fd, path);
        if (fd < 0)
                return fd;
        return read_fd(fd, max, ret, ret_size);
}

int package_read_info(int root_fd, const struct dpkg_package *p, const char *suffix, uint64_t max, char **ret,
                      size_t *ret_size) {
        char path[DPKG_NAME_MAX + DPKG_ARCH_MAX + 64];
        int r = -ENOENT;
        for (int i = 0; i < 2 && r == -ENOENT; i++) {
                bool qualified = (i == 0) == p->multi_arch_same;
                if (qualified && !p->arch[0])
                        continue;
                snprintf(path, sizeof path, "/var/lib/dpkg/info/%s%s%s.%s", p->name, qualified ? ":" : "",
                         qualified ? p->arch : "", suffix);
                r = package_read_in_root(root_fd, path, max, ret, ret_size);
        }
        return r;
}

static void key_part(int root_fd, const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open_beneath_nofollow(root_fd, path, O_PATH | O_CLOEXEC);
        struct stat st;
        size_t n = strlen(buf);
        if (fd < 0 || fstat(fd, &st) < 0)
                snprintf(buf + n, size - n, "-");
        else
                snprintf(buf + n, size - n, "%" PRIx64 ":%" PRIx64 ":%" PRIx64 ":%" PRIi64 ".%09ld ", (uint64_t) st.st_dev,
                         (uint64_t) st.st_ino, (uint64_t) st.st_size, (int64_t) st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

int package_index_key(int root_fd, char ret[static PACKAGE_INDEX_KEY_MAX]) {
        ret[0] = 0;
        key_part(root_fd, "/var/lib/dpkg/status", ret, PACKAGE_INDEX_KEY_MAX);
        if (ret[0] == '-')
                return -ENOENT;
        key_part(root_fd, "/var/lib/dpkg/diversions", ret, PACKAGE_INDEX_KEY_MAX);
        key_part(root_fd, "/var/lib/dpkg/info", ret, PACKAGE_INDEX_KEY_MAX);
        return 0;
}

struct buffer {
        char *p;
        size_t n, cap;
};

static int append(struct buffer *b, const char *s, size_t n) {
        if (n > PACKAGE_INDEX_MAX - b->n)
                return -E2BIG;
        if (b->n + n > b->cap) {
                size_t cap = MAX(b->cap * 2, b->n + n + 65536);
                char *p = realloc(b->p, cap);
                if (!p)
                        return -ENOMEM;
                b->p = p;
                b->cap = cap;
        }
        memcpy(b->p + b->n, s, n);
        b->n += n;
        return 0;
}

int package_index_build(int root_fd, const char *status, size_t status_size, const char *key, char **ret,
                        size_t *ret_size) {
        struct buffer b = {};
        struct dpkg_package p;
        size_t offset = 0;
        char owner[DPKG_NAME_MAX + DPKG_ARCH_MAX + 4];
        int r = append(&b, HEADER, strlen(HEADER));
        r = r ?: append(&b, key, strlen(key));
        r = r ?: append(&b, "\n", 1);
        while (r >= 0 && dpkg_status_next(status, status_size, &offset, &p) > 0) {
                _cleanup_free_ char *list = NULL;
                size_t size = 0;
                if (package_read_info(root_fd, &p, "list", LIST_MAX, &list, &size) < 0)
                        continue;
                int k = snprintf(owner, sizeof owner, "\t%s%s%s\n", p.name, p.multi_arch_same && p.arch[0] ? ":" : "",
                                 p.multi_arch_same ? p.arch : "");
                for (const char *line = list; r >= 0 && line < list + size;) {
                        const char *nl = memchr(line, '\n', (size_t) (list + size - line));
                        size_t n = nl ? (size_t) (nl - line) : (size_t) (list + size - line);
                        /* A path: absolute, no tab or NUL in it (its line is one line of the index). */
                        if (n > 1 && line[0] == '/' && !memchr(line, '\t', n) && !memchr(line, 0, n)) {
                                r = append(&b, line, n);
                                r = r ?: append(&b, owner, (size_t) k);
                        }
                        line += n + 1;
                }
        }
        if (r < 0) {
                free(b.p);
                return r;
        }
        *ret = b.p;
        *ret_size = b.n;
        return 0;
}

int package_index_load(int fd, const char *key, char **ret, size_t *ret_size) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        if (fd < 0 || read_fd(fd, PACKAGE_INDEX_MAX, &text, &size) < 0)
                return 0;
        size_t h = strlen(HEADER), k = strlen(key);
        if (size < h + k + 1 || memcmp(text, HEADER, h) != 0 || memcmp(text + h, key, k) != 0 || text[h + k] != '\n')
                return 0;
        *ret = TAKE_PTR(text);
        *ret_size = size;
        return 1;
}

int package_index_next(const char *text, size_t size, const char *path, size_t *offset,
                       char name[static DPKG_NAME_MAX + 1], char arch[static DPKG_ARCH_MAX + 1]) {
        size_t k = strlen(path);
        while (*offset < size) {
                /* "\nPATH\t": a whole path at the start of a line (the header is the first line). */
                const char *at = memmem(text + *offset, size - *offset, path, k);
                if (!at)
                        break;
                *offset = (size_t) (at - text) + 1;
                if (at == text || at[-1] != '\n' || (size_t) (at - text) + k >= size || at[k] != '\t')
                        continue;
                const char *owner = at + k + 1, *nl = memchr(owner, '\n', size - (size_t) (owner - text));
                if (!nl)
                        break;
                size_t n = (size_t) (nl - owner);
                const char *colon = memchr(owner, ':', n);
                size_t nn = colon ? (size_t) (colon - owner) : n, an = colon ? n - nn - 1 : 0;
                if (nn > DPKG_NAME_MAX || an > DPKG_ARCH_MAX)
                        continue;
                memcpy(name, owner, nn);
                name[nn] = 0;
                memcpy(arch, colon ? colon + 1 : "", an);
                arch[an] = 0;
                if (dpkg_name_valid(name) && (!colon || dpkg_arch_valid(arch)))
                        return 1;
        }
        return 0;
}
