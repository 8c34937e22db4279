/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The dump store: one directory, opened once (O_DIRECTORY|O_NOFOLLOW); every file operation is
 * relative to it and never follows a link. A dump is written into an unnamed O_TMPFILE and only
 * linked under its final name once complete, so no half-written dump is ever visible. Files are
 * 0640 root:root, plus a read ACL for the crashing user when it may see its own memory.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "crash/context.h"
#include "config/policy.h"

struct store {
        int dir_fd;
        char *path;
        uint64_t max_use;       /* SIZE_AUTO or bytes */
        uint64_t keep_free;     /* SIZE_AUTO or bytes */
        int compress_level;
        pthread_mutex_t vacuum_lock;
};

struct stored_core {
        char *name;             /* file name inside the store */
        char *path;             /* full path, for COREDUMP_FILENAME */
        uint64_t size;          /* uncompressed bytes kept */
        uint64_t disk_size;     /* bytes allocated on disk */
        bool truncated;         /* the core was cut at the size limit */
};

/* Opens (creating it 0751 if missing: others may reach their ACL'd dumps, not list them) the store
 * directory. */
int store_open(const char *path, uint64_t max_use, uint64_t keep_free, int compress_level, struct store **ret);
struct store *store_free(struct store *s);

/* core.<comm>.<uid>.<bootid>.<pid>.<usec>[.zst], comm escaped to a safe file name part. */
char *core_file_name(const struct crash_context *ctx, enum compression compression);

/* Streams the core from sock_fd into the store, following the decision's size cap and
 * compression. 0: stored (maybe truncated) and *ret filled. Negative: nothing was kept; the reason
 * is logged (with tag) and put into error. *expired is checked to tell a deadline from an EOF. */
int store_core(struct store *s, int sock_fd, const struct crash_context *ctx, const struct decision *d,
               const atomic_bool *expired, const char *tag, struct stored_core *ret, char *error,
               size_t error_size);

/* A core that coredumpd makes itself (Action=userspace): generate writes it into w, which compresses
 * as the decision says; it sets *ret_truncated if it stopped at d->max_size. Stored like a streamed
 * core: O_TMPFILE, owner, mode, xattrs, ACL, linked when complete. */
struct core_writer;
typedef int (*store_generate_fn)(struct core_writer *w, void *userdata, bool *ret_truncated, char *error,
                                 size_t error_size);
int store_core_generated(struct store *s, const struct crash_context *ctx, const struct decision *d,
                         store_generate_fn generate, void *userdata, const char *tag, struct stored_core *ret,
                         char *error, size_t error_size);

void stored_core_done(struct stored_core *c);

/* Deletes the oldest core.* files until the store uses at most MaxUse and the file system has
 * KeepFree left. The file named keep is never deleted. Returns the number of files removed. */
int store_vacuum(struct store *s, const char *keep, const char *tag);
