/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* The window of the file mapped at a time: at most this much of the core's page cache counts to the
 * daemon's resident memory at once (a 64 MiB window showed as 64 MiB more VmHWM). */
#define PUNCH_WINDOW (4ULL << 20)

int core_file_punch_zeros(int fd, uint64_t size) {
        uint64_t end = size - size % CORE_HOLE_BLOCK;
        uint64_t hole = 0, hole_len = 0;

        for (uint64_t start = 0; start < end; start += PUNCH_WINDOW) {
                size_t len = (size_t) MIN(PUNCH_WINDOW, end - start);
                uint8_t *m = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, (off_t) start);
                if (m == MAP_FAILED)
                        return negative_errno();
                for (uint64_t off = start; off < start + len; off += CORE_HOLE_BLOCK) {
                        bool zero = is_all_zero(m + (off - start), CORE_HOLE_BLOCK);
                        if (zero) {
                                if (hole_len == 0)
                                        hole = off;
                                hole_len += CORE_HOLE_BLOCK;
                        }
                        if (hole_len > 0 && (!zero || off + CORE_HOLE_BLOCK >= end)) {
                                if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t) hole,
                                              (off_t) hole_len) < 0) {
                                        int r = negative_errno();
                                        (void) munmap(m, len);
                                        return r;
                                }
                                hole_len = 0;
                        }
                }
                (void) munmap(m, len);
        }
        return 0;
}

/* Where the file takes no splice() (its file system, or O_APPEND): the pipe's bytes pass through
 * our memory, as recv() would have brought them. */
static long pipe_copy(struct core_writer *w, int pipe_fd, size_t size) {
        if (!w->out) {
                w->out_size = 64 * 1024;
                w->out = malloc(w->out_size);
                if (!w->out)
                        return -ENOMEM;
        }
        size_t moved = 0;
        while (moved < size) {
                long n = read_full(pipe_fd, w->out, MIN(w->out_size, size - moved));
                if (n <= 0)
                        return n < 0 ? n : (long) moved;
                int r = plain_write(w, w->out, (size_t) n);
                if (r < 0)
                        return r;
                moved += (size_t) n;
        }
        return (long) moved;
}

long core_writer_splice(struct core_writer *w, int pipe_fd, size_t size) {
        if (w->compression != COMPRESSION_NONE)
                return -EINVAL;
        if (w->no_splice)
                return pipe_copy(w, pipe_fd, size);

        size_t moved = 0;
        while (moved < size) {
                loff_t off = (loff_t) w->size;
                ssize_t n = splice(pipe_fd, NULL, w->fd, &off, size - moved, SPLICE_F_MOVE);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno != EINVAL)
                                return negative_errno();
                        w->no_splice = true;
                        long copied = pipe_copy(w, pipe_fd, size - moved);
                        if (copied < 0)
                                return copied;
                        moved += (size_t) copied;
                        break;
                }
                if (n == 0)
                        break;
                w->size += (uint64_t) n;
                w->spliced = true;
                moved += (size_t) n;
        }
        return (long) moved;
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
