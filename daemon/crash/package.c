/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "crash/package.h"
#include "parser/client.h"
#include "shared/cleanup.h"
#include "shared/log.h"

void package_prepare(struct crash *c) {
        if (c->context.proc_fd >= 0)
                (void) context_open_root(&c->context, c->tag);
}

void step_package(const struct crash_env *env, struct crash *c) {
        const struct crash_context *ctx = &c->context;
        char reason[PARSER_PACKAGE_ERROR_MAX + 1] = "";

        if (!env->packages || !c->have_stored || !c->have_context || c->package)
                return;
        if (env->store && atomic_load(&env->store->interrupted))
                return;
        c->package = calloc(1, sizeof *c->package);
        if (!c->package)
                return;
        if (!ctx->exe) {
                snprintf(c->package->error, sizeof c->package->error, "%s", "the executable is not known");
                return;
        }
        bool container = ctx->root_fd >= 0;
        _cleanup_close_ int ours = container ? -1 : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        uid_t uid;
        gid_t gid;
        parser_ids(ctx->uid, ctx->gid, context_user_may_read(ctx), &uid, &gid);
        int r = container || ours >= 0 ? parser_package(container ? ctx->root_fd : ours, container, ctx->exe, uid, gid,
                                                        &c->peer.tenant, c->package, reason, sizeof reason)
                                       : -errno;
        if (r < 0) {
                *c->package = (struct package_info) { .from = PACKAGE_FROM_NONE };
                snprintf(c->package->error, sizeof c->package->error, "the package parser failed: %s",
                         reason[0] ? reason : strerror(-r));
                log_crash(c->tag, LOG_NOTICE, "No package for the crash: %s.", c->package->error);
                return;
        }
        if (c->package->from == PACKAGE_FROM_NONE)
                log_crash(c->tag, LOG_DEBUG, "No package for the crash: %s.", c->package->error);
        else
                log_crash(c->tag, LOG_INFO, "The executable belongs to %s %s (%s)%s.", c->package->name,
                          c->package->version, package_from_to_string(c->package->from),
                          c->package->modified == PACKAGE_MODIFIED_YES ? ", modified" : "");
}
