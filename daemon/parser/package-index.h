/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * In the parser only (`--package`): dpkg's database read inside the task's root, and the index of
 * the host's file lists kept between crashes. Which package has a file takes every installed
 * package's info/PKG.list; the index is those lines once ("PATH\tNAME[:ARCH]"), after a header
 * with the key of the database it was made from (device, inode, size and time of status,
 * diversions and the info directory: dpkg renames a new status into place and adds or renames
 * lists on every change). The cell writes a new one into an unnamed file the daemon made in the
 * store and links into place (crash/package.c), and takes an old one only when its key is the
 * database's now. The daemon never reads it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/dpkg.h"

#include "parser/package-wire.h"

#define PACKAGE_INDEX_MAX PACKAGE_INDEX_FILE_MAX
#define PACKAGE_INDEX_KEY_MAX 256

/* The whole file at path inside root (no symlink followed, a regular file only), at most max
 * bytes (-EFBIG beyond), NUL-terminated. */
int package_read_in_root(int root_fd, const char *path, uint64_t max, char **ret, size_t *ret_size);
/* info/NAME.SUFFIX, or info/NAME:ARCH.SUFFIX of a Multi-Arch: same package (the other tried too). */
int package_read_info(int root_fd, const struct dpkg_package *p, const char *suffix, uint64_t max, char **ret,
                      size_t *ret_size);

/* The key of the dpkg database in root_fd. 0, or -errno (no status). */
int package_index_key(int root_fd, char ret[static PACKAGE_INDEX_KEY_MAX]);
/* The index of every installed package's list (malloc'ed); -E2BIG beyond PACKAGE_INDEX_MAX. */
int package_index_build(int root_fd, const char *status, size_t status_size, const char *key, char **ret,
                        size_t *ret_size);
/* An index read from fd, if it is one of key: 1 and *ret (malloc'ed), else 0. */
int package_index_load(int fd, const char *key, char **ret, size_t *ret_size);
/* The next line of the index for path at or after *offset: 1, its package in name and arch ("" if
 * not qualified), both checked; 0 when there is none. */
int package_index_next(const char *text, size_t size, const char *path, size_t *offset,
                       char name[static DPKG_NAME_MAX + 1], char arch[static DPKG_ARCH_MAX + 1]);
