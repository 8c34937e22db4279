/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The way back out of the store: a stored dump (zstd-compressed or plain, as core-writer wrote it)
 * copied, decompressed, into a file or a pipe.
 */

#include <stdbool.h>
#include <stdint.h>

/* Whether a stored file name says the dump is compressed (".zst"). */
bool core_file_is_compressed(const char *name);

/* Reads in_fd to its end and writes the plain core to out_fd, decompressing zstd frames when
 * compressed. *ret_size (if not NULL) gets the bytes written. Returns 0, -EBADMSG for a corrupt
 * or cut-off zstd stream, or -errno. */
int core_decompress(int in_fd, bool compressed, int out_fd, uint64_t *ret_size);
