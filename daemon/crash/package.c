/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash/package.h"
#include "parser/client.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "store/reserve.h"

/* The index of the host's dpkg lists in the store (parser/package-index.h): made by the cell,
 * linked here, never read here. */
#define INDEX_FILE ".dpkg-index"

/* One crash at a time may write a new index (and hold room for it): a burst of crashes before
 * there is one makes one, not one each. */
static atomic_flag index_writer = ATOMIC_FLAG_INIT;

/* Kept crashes between package_prepare() and their lookup: how busy the daemon is. */
static atomic_uint kept_in_flight;

void package_prepare(struct crash *c) {
        if (c->context.proc_fd >= 0)
                (void) context_open_root(&c->context, c->tag);
        if (!c->package_counted) {
                atomic_fetch_add(&kept_in_flight, 1);
                c->package_counted = true;
        }
}

void package_release(struct crash *c) {
        if (c->package_counted) {
                atomic_fetch_sub(&kept_in_flight, 1);
                c->package_counted = false;
        }
}

/* A new index the cell wrote into the unnamed file fd: linked under a name of this thread's and
 * renamed over the old one, so that a reader sees the old or the new, whole. */
static void index_keep(const struct store *s, int fd, const char *tag) {
        char proc_path[64], tmp[64];
        struct stat st;

        if (fstat(fd, &st) < 0 || st.st_size <= 0 || (uint64_t) st.st_size > PACKAGE_INDEX_FILE_MAX)
                return;
        snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
        snprintf(tmp, sizeof tmp, INDEX_FILE ".%d", (int) gettid());
        (void) unlinkat(s->dir_fd, tmp, 0);
        if (linkat(AT_FDCWD, proc_path, s->dir_fd, tmp, AT_SYMLINK_FOLLOW) < 0 &&
            linkat(fd, "", s->dir_fd, tmp, AT_EMPTY_PATH) < 0) {
                log_crash_errno(tag, LOG_DEBUG, errno, "Cannot keep the index of dpkg's lists: %m");
                return;
        }
        if (renameat(s->dir_fd, tmp, s->dir_fd, INDEX_FILE) < 0) {
                log_crash_errno(tag, LOG_DEBUG, errno, "Cannot keep the index of dpkg's lists: %m");
                (void) unlinkat(s->dir_fd, tmp, 0);
                return;
        }
        log_crash(tag, LOG_DEBUG, "Kept a new index of dpkg's lists (%lld bytes).", (long long) st.st_size);
}

void step_package(const struct crash_env *env, struct crash *c) {
        const struct crash_context *ctx = &c->context;
        char reason[PARSER_PACKAGE_ERROR_MAX + 1] = "";

        if (!env->packages || !c->have_stored || !c->have_context || c->package)
                return;
        if (env->store && atomic_load(&env->store->interrupted))
                return;
        /* A burst (a crash loop, a storm): the lookups would double the parsers started; they are
         * left out while others are being handled, and the record says so. */
        unsigned others = atomic_load(&kept_in_flight) - (c->package_counted ? 1 : 0);
        package_release(c);
        c->package = calloc(1, sizeof *c->package);
        if (!c->package)
                return;
        if (others >= PACKAGE_BURST) {
                snprintf(c->package->error, sizeof c->package->error,
                         "not looked up: %u other kept crashes were being handled at once", others);
                log_crash(c->tag, LOG_DEBUG, "No package for the crash: %s.", c->package->error);
                return;
        }
        if (!ctx->exe) {
                snprintf(c->package->error, sizeof c->package->error, "%s", "the executable is not known");
                return;
        }
        bool container = ctx->root_fd >= 0;
        _cleanup_close_ int ours = container ? -1 : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        /* The host's root: the kept index and an unnamed file in the store for a new one — only
         * where the largest index leaves the room crashes need (store/reserve.h): never below
         * KeepFree=, never taking what crashes in flight hold. */
        _cleanup_close_ int index_in = -1, index_out = -1;
        uint64_t reserved = 0;
        bool writer = false;
        if (!container && env->store) {
                char why[160];
                index_in = openat(env->store->dir_fd, INDEX_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
                writer = !atomic_flag_test_and_set(&index_writer);
                struct tenant root = tenant_of_uid(0);
                if (writer)
                        reserved = store_reserve(env->store, &root, PACKAGE_INDEX_FILE_MAX, why, sizeof why);
                if (reserved == PACKAGE_INDEX_FILE_MAX)
                        index_out = openat(env->store->dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        }
        uid_t uid;
        gid_t gid;
        parser_ids(ctx->uid, ctx->gid, context_user_may_read(ctx), &uid, &gid);
        int r = container || ours >= 0 ? parser_package(container ? ctx->root_fd : ours, container, index_in, index_out,
                                                        ctx->exe, uid, gid, &c->peer.tenant, c->package, reason,
                                                        sizeof reason)
                                       : -errno;
        if (r < 0) {
                if (reserved > 0)
                        store_unreserve(env->store, reserved);
                if (writer)
                        atomic_flag_clear(&index_writer);
                *c->package = (struct package_info) { .from = PACKAGE_FROM_NONE };
                snprintf(c->package->error, sizeof c->package->error, "the package parser failed: %s",
                         reason[0] ? reason : strerror(-r));
                log_crash(c->tag, LOG_NOTICE, "No package for the crash: %s.", c->package->error);
                return;
        }
        if (r >= 0 && c->package->index_written && index_out >= 0)
                index_keep(env->store, index_out, c->tag);
        if (reserved > 0)
                store_unreserve(env->store, reserved);
        if (writer)
                atomic_flag_clear(&index_writer);
        if (c->package->from == PACKAGE_FROM_NONE)
                log_crash(c->tag, LOG_DEBUG, "No package for the crash: %s.", c->package->error);
        else
                log_crash(c->tag, LOG_INFO, "The executable belongs to %s %s (%s)%s.", c->package->name,
                          c->package->version, package_from_to_string(c->package->from),
                          c->package->modified == PACKAGE_MODIFIED_YES ? ", modified" : "");
}
