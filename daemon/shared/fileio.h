/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

/* Reads at most max bytes of the file name (relative to dir_fd, never following a symlink in the
 * last component) into a NUL-terminated buffer; *ret_size excludes the NUL. Returns 0 or -errno.
 * Reading stops at max; *ret_truncated (if not NULL) says whether more was there. */
int read_file_at(int dir_fd, const char *name, size_t max, char **ret, size_t *ret_size, int *ret_truncated);

/* Opens the directory name (relative to dir_fd, "." for dir_fd itself) for reading, without
 * following a symlink in the last component. Returns 0 or -errno. */
int open_dir_at(int dir_fd, const char *name, DIR **ret);

/* Reads a symlink relative to dir_fd into a new string. */
int read_link_at(int dir_fd, const char *name, char **ret);

/* Strips trailing newlines in place. */
void strip_trailing_newlines(char *s);

/* read()/write() in full, retrying on EINTR and short transfers. read returns bytes read (short only
 * at EOF) or -errno; write returns 0 or -errno. */
long read_full(int fd, void *buf, size_t size);
/* read() of exactly size bytes: 0, -errno, or -EBADMSG when the data ends before. */
int read_exact(int fd, void *buf, size_t size);
int write_full(int fd, const void *buf, size_t size);
/* pwrite() in full at offset; 0 or -errno. */
int pwrite_full(int fd, const void *buf, size_t size, uint64_t offset);
