/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "parser/core-source.h"
#include "shared/cleanup.h"

void source_done(struct source *s) {
        free(s->mem);
}

static ssize_t read_some(int fd, void *buf, size_t size) {
        for (;;) {
                ssize_t n = read(fd, buf, size);
                if (n >= 0 || errno != EINTR)
                        return n < 0 ? -errno : n;
        }
}

/* Appends to the in-memory core, within SOURCE_MEMORY_MAX. */
static int mem_append(struct source *s, size_t *cap, const void *data, size_t size) {
        if (size > SOURCE_MEMORY_MAX - s->size)
                return -EFBIG;
        if (s->size + size > *cap) {
                size_t want = *cap ? *cap : 1 << 20;
                while (want < s->size + size)
                        want *= 2;
                if (want > SOURCE_MEMORY_MAX)
                        want = SOURCE_MEMORY_MAX;
                uint8_t *grown = realloc(s->mem, want);
                if (!grown)
                        return -ENOMEM;
                s->mem = grown;
                *cap = want;
        }
        memcpy(s->mem + s->size, data, size);
        s->size += size;
        return 0;
}

int source_open(struct source *s, int fd) {
        static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
        uint8_t head[4];
        struct stat st = {};

        *s = (struct source) { .fd = -1 };
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && pread(fd, head, 4, 0) == 4 &&
            memcmp(head, zstd_magic, 4) != 0) {
                s->fd = fd;
                s->size = (uint64_t) st.st_size;
                return 0;
        }

        /* Compressed, or not a file: into memory. */
        size_t in_size = ZSTD_DStreamInSize(), out_size = ZSTD_DStreamOutSize(), cap = 0, got = 0;
        _cleanup_free_ uint8_t *in = malloc(in_size), *out = malloc(out_size);
        ZSTD_DCtx *z = NULL;
        bool zstd = false;
        int r = in && out ? 0 : -ENOMEM;
        if (S_ISREG(st.st_mode))
                (void) lseek(fd, 0, SEEK_SET);
        while (r == 0) {
                ssize_t n = read_some(fd, in, in_size);
                if (n <= 0) {
                        r = (int) n;
                        break;
                }
                if (got == 0 && n >= 4 && memcmp(in, zstd_magic, 4) == 0) {
                        zstd = true;
                        z = ZSTD_createDCtx();
                        if (!z)
                                r = -ENOMEM;
                }
                got += (size_t) n;
                if (!zstd) {
                        r = r ?: mem_append(s, &cap, in, (size_t) n);
                        continue;
                }
                ZSTD_inBuffer ib = { .src = in, .size = (size_t) n };
                while (r == 0 && ib.pos < ib.size) {
                        ZSTD_outBuffer ob = { .dst = out, .size = out_size };
                        size_t k = ZSTD_decompressStream(z, &ob, &ib);
                        r = ZSTD_isError(k) ? -EBADMSG : mem_append(s, &cap, out, ob.pos);
                }
        }
        /* Output zstd may still hold once all input is in. */
        for (size_t k = 1; r == 0 && zstd && k != 0;) {
                ZSTD_inBuffer ib = { .src = in, .size = 0 };
                ZSTD_outBuffer ob = { .dst = out, .size = out_size };
                k = ZSTD_decompressStream(z, &ob, &ib);
                r = ZSTD_isError(k) ? -EBADMSG : mem_append(s, &cap, out, ob.pos);
                if (ob.pos == 0)
                        break;
        }
        ZSTD_freeDCtx(z);
        return r;
}

ssize_t source_read(const struct source *s, uint64_t offset, void *buf, size_t size) {
        if (offset >= s->size)
                return 0;
        if (size > s->size - offset)
                size = (size_t) (s->size - offset);
        if (s->fd < 0) {
                memcpy(buf, s->mem + offset, size);
                return (ssize_t) size;
        }
        size_t done = 0;
        while (done < size) {
                ssize_t n = pread(s->fd, (char *) buf + done, size - done, (off_t) (offset + done));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                done += (size_t) n;
        }
        return (ssize_t) done;
}
