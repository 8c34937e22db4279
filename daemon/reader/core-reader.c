/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "reader/core-reader.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"

#define PLAIN_BUFFER_SIZE (128 * 1024)

bool core_file_is_compressed(const char *name) {
        size_t n = name ? strlen(name) : 0;
        return n > 4 && strcmp(name + n - 4, ".zst") == 0;
}

static int copy_plain(int in_fd, int out_fd, uint64_t *ret_size) {
        _cleanup_free_ uint8_t *buf = malloc(PLAIN_BUFFER_SIZE);
        uint64_t total = 0;

        if (!buf)
                return -ENOMEM;
        for (;;) {
                long n = read_full(in_fd, buf, PLAIN_BUFFER_SIZE);
                if (n < 0)
                        return (int) n;
                if (n == 0)
                        break;
                int r = write_full(out_fd, buf, (size_t) n);
                if (r < 0)
                        return r;
                total += (uint64_t) n;
        }
        if (ret_size)
                *ret_size = total;
        return 0;
}

static void zstd_dctx_freep(ZSTD_DCtx **d) { ZSTD_freeDCtx(*d); }

static int copy_zstd(int in_fd, int out_fd, uint64_t *ret_size) {
        __attribute__((cleanup(zstd_dctx_freep))) ZSTD_DCtx *dctx = ZSTD_createDCtx();
        size_t in_size = ZSTD_DStreamInSize(), out_size = ZSTD_DStreamOutSize();
        _cleanup_free_ uint8_t *in_buf = malloc(in_size), *out_buf = malloc(out_size);
        uint64_t total = 0;
        size_t last = 0;        /* 0 once a frame is complete */
        bool any = false;

        if (!dctx || !in_buf || !out_buf)
                return -ENOMEM;

        for (;;) {
                long n = read_full(in_fd, in_buf, in_size);
                if (n < 0)
                        return (int) n;
                if (n == 0)
                        break;
                any = true;

                ZSTD_inBuffer in = { in_buf, (size_t) n, 0 };
                while (in.pos < in.size) {
                        ZSTD_outBuffer out = { out_buf, out_size, 0 };
                        last = ZSTD_decompressStream(dctx, &out, &in);
                        if (ZSTD_isError(last))
                                return -EBADMSG;
                        int r = write_full(out_fd, out_buf, out.pos);
                        if (r < 0)
                                return r;
                        total += out.pos;
                }
        }
        /* Flush what the decoder still holds after the last input. */
        for (;;) {
                ZSTD_inBuffer in = { in_buf, 0, 0 };
                ZSTD_outBuffer out = { out_buf, out_size, 0 };
                if (last == 0)
                        break;
                last = ZSTD_decompressStream(dctx, &out, &in);
                if (ZSTD_isError(last))
                        return -EBADMSG;
                if (out.pos == 0)
                        break;
                int r = write_full(out_fd, out_buf, out.pos);
                if (r < 0)
                        return r;
                total += out.pos;
        }
        if (!any || last != 0)
                return -EBADMSG; /* empty or cut off mid-frame */
        if (ret_size)
                *ret_size = total;
        return 0;
}

int core_decompress(int in_fd, bool compressed, int out_fd, uint64_t *ret_size) {
        return compressed ? copy_zstd(in_fd, out_fd, ret_size) : copy_plain(in_fd, out_fd, ret_size);
}
