/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A stored core as the compact core's maker reads it (parser only): plain and seekable, read where
 * it lies; zstd-compressed or on a pipe, read into memory first, within a bound.
 */

#include <stdint.h>
#include <sys/types.h>

/* A plain core is read where it lies (pread); a compressed one, or one on a pipe, is read into
 * memory first, at most this much. */
#define SOURCE_MEMORY_MAX (UINT64_C(256) << 20)

struct source {
        int fd;                         /* a plain, seekable core; -1 when it is in memory */
        uint8_t *mem;
        uint64_t size;                  /* of the (decompressed) core */
};

/* 0, or -errno: fd's core opened for source_read() (decompressed into memory where it must be). */
int source_open(struct source *s, int fd);
/* Up to size bytes at offset: how many (fewer only where the core ends), or -errno. */
ssize_t source_read(const struct source *s, uint64_t offset, void *buf, size_t size);
void source_done(struct source *s);
