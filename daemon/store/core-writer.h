/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Writes a core to a file as it streams in: zstd-compressed (streaming, with checksum), or plain
 * with holes where whole aligned blocks are zero (cores are mostly zero pages).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

#define CORE_HOLE_BLOCK 4096

struct core_writer {
        int fd;                         /* not owned */
        enum compression compression;
        void *zstd;                     /* ZSTD_CCtx */
        uint8_t *out;
        size_t out_size;
        uint64_t size;                  /* uncompressed bytes taken */
        bool spliced;                   /* plain: bytes went in by splice(), unseen: zero blocks stay data */
        bool finished;                  /* nothing is left to flush */
        bool no_splice;                 /* the file takes no splice(): copy from the pipe (out) */
};

int core_writer_init(struct core_writer *w, int fd, enum compression compression, int level);
int core_writer_write(struct core_writer *w, const void *data, size_t size);
/* Plain only: moves up to SIZE bytes from the pipe PIPE_FD into the file at its end with splice()
 * (no copy through our memory, and no look at them: their zero blocks stay data until
 * core_file_punch_zeros()); where the file takes no splice (EINVAL) they are copied through a
 * buffer, now and for the rest of the core, and their zero blocks left out as by a write.
 * Returns the bytes moved (0: the pipe's writer is gone) or -errno. */
long core_writer_splice(struct core_writer *w, int pipe_fd, size_t size);
/* Punches out the runs of whole zero blocks of the plain file fd's first size bytes, looking at them
 * in the file's own pages (mapped read-only, 4 MiB at a time: no copy), so that a spliced core
 * is as sparse as a written one. -EOPNOTSUPP: the file system cannot punch holes. */
int core_file_punch_zeros(int fd, uint64_t size);
/* Flushes the compressor, or sets the length of a plain file (a trailing hole). */
int core_writer_finish(struct core_writer *w);
void core_writer_done(struct core_writer *w);
/* Another process wrote and finished the core through a copy of this writer, on the same file:
 * take its size; finishing is then a no-op. */
void core_writer_adopt(struct core_writer *w, uint64_t size);
