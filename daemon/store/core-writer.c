/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "store/core-writer.h"

int core_writer_init(struct core_writer *w, int fd, enum compression compression, int level) {
        *w = (struct core_writer) {
                .fd = fd,
                .compression = compression,
        };
        if (compression == COMPRESSION_NONE)
                return 0;

        ZSTD_CCtx *cctx = ZSTD_createCCtx();
        if (!cctx)
                return -ENOMEM;
        if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1))) {
                ZSTD_freeCCtx(cctx);
                return -EINVAL;
        }
        w->zstd = cctx;
        w->out_size = ZSTD_CStreamOutSize();
        w->out = malloc(w->out_size);
        if (!w->out) {
                core_writer_done(w);
                return -ENOMEM;
        }
        return 0;
}

void core_writer_done(struct core_writer *w) {
        ZSTD_freeCCtx(w->zstd);
        w->zstd = NULL;
        free(w->out);
        w->out = NULL;
}

static bool is_all_zero(const uint8_t *p, size_t n) {
        return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* Writes the bytes at the file's current end: one pwrite() per run of data blocks, nothing for a
 * run of whole zero blocks (it stays a hole; core_writer_finish() sets the length). */
static int plain_write(struct core_writer *w, const uint8_t *p, size_t n) {
        const uint8_t *run = NULL;      /* pending data, to be written at run_offset */
        uint64_t run_offset = 0;
        size_t run_size = 0;

        while (n > 0) {
                size_t piece = MIN(n, CORE_HOLE_BLOCK - (size_t) (w->size % CORE_HOLE_BLOCK));

                if (piece == CORE_HOLE_BLOCK && is_all_zero(p, piece)) {
                        if (run_size > 0) {
                                int r = pwrite_full(w->fd, run, run_size, run_offset);
                                if (r < 0)
                                        return r;
                                run_size = 0;
                        }
                } else {
                        if (run_size == 0) {
                                run = p;
                                run_offset = w->size;
                        }
                        run_size += piece;
                }
                w->size += piece;
                p += piece;
                n -= piece;
        }
        return run_size > 0 ? pwrite_full(w->fd, run, run_size, run_offset) : 0;
}

static int zstd_run(struct core_writer *w, ZSTD_inBuffer *in, ZSTD_EndDirective mode) {
        for (;;) {
                ZSTD_outBuffer out = { .dst = w->out, .size = w->out_size };
                size_t remaining = ZSTD_compressStream2(w->zstd, &out, in, mode);
                if (ZSTD_isError(remaining))
                        return -EIO;
                int r = write_full(w->fd, w->out, out.pos);
                if (r < 0)
                        return r;
                if (mode == ZSTD_e_end ? remaining == 0 : in->pos == in->size)
                        return 0;
        }
}

int core_writer_write(struct core_writer *w, const void *data, size_t size) {
        if (w->compression == COMPRESSION_NONE)
                return plain_write(w, data, size);

        ZSTD_inBuffer in = { .src = data, .size = size };
        int r = zstd_run(w, &in, ZSTD_e_continue);
        if (r >= 0)
                w->size += size;
        return r;
}

void core_writer_adopt(struct core_writer *w, uint64_t size) {
        w->size = size;
        w->finished = true;
}

int core_writer_finish(struct core_writer *w) {
        if (w->finished)
                return 0;
        w->finished = true;
        if (w->compression == COMPRESSION_NONE)
                return ftruncate(w->fd, (off_t) w->size) < 0 ? negative_errno() : 0;

        ZSTD_inBuffer in = {};
        return zstd_run(w, &in, ZSTD_e_end);
}
