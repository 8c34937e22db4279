/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A crash in a container maps files of the container's root: the host may have none of that name,
 * or another one. For `dumpctl debug` the daemon keeps copies of those the host lacks next to the
 * core. Before the ack, while the task is held, the executable and the ELF objects it maps are
 * opened inside its root (selfdump/task-files.h; never a mapping marked remote); after the task is
 * released each is compared with the host's file at the same path (build-id, or inode), and the
 * different ones are copied into the store (store_save_file(): owner, mode and ACL as the core's,
 * named after it, counted to it by vacuum and removed with it), within MaxSize= in all. The list
 * goes into COREDUMPD_SAVED_FILE= (shared/saved-files.h).
 */

#include <stdint.h>
#include <sys/types.h>

#include "crash/context.h"
#include "shared/saved-files.h"
#include "store/store.h"

#define KEEP_FILES_MAX 64

struct kept_files {
        struct saved_files list;
        int fds[KEEP_FILES_MAX];        /* opened before the ack; -1 once done with */
};

/* Opens the task's files if it has a root of its own (before the ack). */
void kept_files_open(struct crash_context *ctx, struct kept_files *k, const char *tag);
/* Compares them with the host's and copies the different ones next to core_name (after the
 * release), at most budget bytes in all; closes them. */
void kept_files_save(struct store *s, const char *core_name, uid_t reader_uid, uint64_t budget, struct kept_files *k,
                     const char *tag);
void kept_files_done(struct kept_files *k);
