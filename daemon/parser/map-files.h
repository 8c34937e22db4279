/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The parser's side only: the files a held task maps, reached through /proc/<pid>/map_files (the
 * fd the daemon hands over, PARSER_FD_MAP_FILES), never by the path its maps name. An entry there
 * ("start-end", the kernel's name of one mapping) leads straight to the mapped file: no directory
 * of the task's mounts is walked, so a mount the crasher made over a directory on the way (a FUSE
 * directory whose server never answers, with a local file bound over one of its names) is never
 * asked anything.
 *
 * Two steps, split by the cell:
 *  - before it (map_files_collect()), while the parser still holds the CAP_CHECKPOINT_RESTORE the
 *    daemon passes on (the kernel's condition for following those links): each entry looked up as
 *    O_PATH (no file system is asked to open anything), its identity taken as the VFS has it cached
 *    (statx with AT_STATX_DONT_SYNC: a FUSE server is not asked), only regular files, each file
 *    once (by device and inode), at most MAP_FILES_MAX: the ones holding a thread's pc first, then
 *    the largest. Nothing of the task's is read: the names are the kernel's, the rest numbers.
 *  - in the cell (map_files_open_local()), once maps and mountinfo are read and the one rule of
 *    remote files (selfdump/proc-maps.c) has marked them: only a file that a mapping called local
 *    names by device and inode is opened, read-only and without waiting (task_file_reopen());
 *    every other one is closed unopened.
 * The unwinder takes a module's file only from here (map_files_fd()); a file not here stays
 * unnamed.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parser/wire.h"
#include "selfdump/proc-maps.h"

/* The files handed to the unwinder at most, and the entries of map_files looked at at most. */
#define MAP_FILES_MAX PARSER_MAP_FILES_MAX
#define MAP_FILES_ENTRIES_MAX 4096

struct map_file {
        int path_fd;                    /* O_PATH, through map_files; -1 once closed */
        int fd;                         /* read-only, opened in the cell; -1 if not */
        unsigned dev_major, dev_minor;
        uint64_t inode;
        uint64_t size;
        bool pinned;                    /* a thread's pc lies in it: never given up for a larger one */
        bool local;                     /* a mapping the rule calls local names it */
};

struct map_files {
        struct map_file files[MAP_FILES_MAX];
        size_t n;
        size_t max;                     /* at most MAP_FILES_MAX */
};

void map_files_init(struct map_files *t, size_t max);
/* Closes every fd. */
void map_files_done(struct map_files *t);

/* An entry's name, "start-end" in lowercase hex as the kernel writes it: 0, or -EINVAL. */
int map_files_name_parse(const char *name, uint64_t *ret_start, uint64_t *ret_end);

/* Offers the file c (its path_fd owned by the table from here) to the table: taken if it is a file
 * not yet there and there is room, or it is pinned, or larger than the smallest unpinned one, which
 * then leaves. Returns the fd the caller must close (c's own when it is not taken or already there,
 * the one that left), or -1. */
int map_files_offer(struct map_files *t, const struct map_file *c);

/* Before the cell: the files of dir_fd (an open /proc/<pid>/map_files), the entries holding one of
 * pcs[] first (in that order), then the others in address order, at most MAP_FILES_ENTRIES_MAX
 * looked at. 0 (maybe none), or -errno when the directory cannot be read. */
int map_files_collect(int dir_fd, const uint64_t *pcs, size_t n_pcs, struct map_files *t);

/* Marks `local` the files that a file mapping of maps not marked remote names (device, inode).
 * Returns how many. */
size_t map_files_mark_local(struct map_files *t, const struct proc_maps *maps);

/* In the cell: map_files_mark_local(), the local ones opened read-only, every path_fd closed.
 * Returns how many were opened. */
size_t map_files_open_local(struct map_files *t, const struct proc_maps *maps);

/* The opened fd of m's file (device, inode), or -1: never for a remote mapping. */
int map_files_fd(const struct map_files *t, const struct proc_mapping *m);
