/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A crash in a container maps files of the container's root: the host may have none of that name,
 * or another one. For `dumpctl debug` the daemon keeps copies of those the host lacks next to the
 * core. The daemon picks them from the task's maps (the executable and the ELF objects it maps,
 * never a mapping marked remote) and nothing more: every file of the crasher's is opened, looked
 * at and read by `coredumpd-parser --keep-files` (parser/keep.c), a killable, unprivileged cell
 * handed the task's root. Before the ack, while the task is held, the cell opens them inside that
 * root (selfdump/task-files.h: O_PATH first, only the mapped regular file is opened); after the
 * task is released it compares each with the host's file at the same path (build-id, or inode)
 * and sends the different ones, whose bytes the daemon copies from its pipe into the store
 * (store_save_stream(): owner, mode and ACL as the core's, named after it, counted to it by vacuum
 * and removed with it), within MaxSize= in all. The daemon's thread waits only on the cell's pipes,
 * each wait bounded (KEEP_OPEN_MAX_USEC and Deadline= before the ack, Deadline= after); a late cell
 * is killed and left to the reaper, and the crash goes on without the files. The list goes into
 * COREDUMPD_SAVED_FILE= (shared/saved-files.h), why some are missing into
 * COREDUMPD_SAVED_FILE_ERROR=.
 */

#include <stdint.h>
#include <sys/types.h>

#include "crash/context.h"
#include "parser/client.h"
#include "shared/saved-files.h"
#include "store/store.h"

#define KEEP_FILES_MAX PARSER_KEEP_FILES_MAX
/* The longest the task is held for its files to be opened (less if Deadline= is shorter). */
#define KEEP_OPEN_MAX_USEC (5 * UINT64_C(1000000))

struct kept_files {
        struct saved_files list;        /* the files the cell holds, in its order */
        uint32_t index[KEEP_FILES_MAX]; /* list.v[i]'s index in the cell's request */
        struct keep_cell cell;
        bool started;                   /* cell is ours to stop */
        uint64_t stall_usec;            /* the longest wait for the cell after the release */
        char error[256];                /* why files are missing: COREDUMPD_SAVED_FILE_ERROR= */
};

/* Has the cell open the task's files if it has a root of its own (before the ack), waiting at
 * most MIN(deadline_usec, KEEP_OPEN_MAX_USEC); at most max_bytes will be copied. */
void kept_files_open(struct crash_context *ctx, struct kept_files *k, uint64_t max_bytes, uint64_t deadline_usec,
                     const char *tag);
/* After the release: the cell compares them with the host's and the different ones are copied
 * next to core_name; every wait for it at most the deadline given to kept_files_open(). */
void kept_files_save(struct store *s, const char *core_name, uid_t reader_uid, struct kept_files *k, const char *tag);
void kept_files_done(struct kept_files *k);
