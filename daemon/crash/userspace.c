/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <string.h>

#include "crash/record.h"
#include "crash/userspace.h"
#include "parser/client.h"
#include "selfdump/probe.h"
#include "selfdump/selfdump.h"
#include "shared/cleanup.h"
#include "shared/log.h"

struct generate {
        struct selfdump_request req;
        struct selfdump_result res;
        struct probe *probe;
        uint64_t not_before_ns;
        const atomic_bool *expired;
};

static bool stashed_regs(void *userdata, pid_t tid, uint64_t sp, uint64_t pc, uint64_t regs[CORE_NREGS]) {
        struct generate *g = userdata;
        return probe_thread_regs(g->probe, tid, g->not_before_ns, sp, pc, regs);
}

/* A read of the task's memory can block for good (a page of a FUSE file whose server never
 * answers), so the core is written by a child process that the deadline kills; what it needs of the
 * task is opened here, and it starts with nothing else, as the crashing user (selfdump/writer.c). */
static int generate(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason, size_t reason_size) {
        struct generate *g = userdata;
        int r = selfdump_write_killable(&g->req, w, g->expired, &g->res, reason, reason_size);
        *ret_truncated = r >= 0 && g->res.truncated;
        return r;
}

void act_userspace(struct store *store, struct probe *probe, const atomic_bool *expired, struct crash *c) {
        const struct crash_context *ctx = &c->context;
        _cleanup_(record_core_done) struct record_core core = {};
        char reason[sizeof c->error] = "";

        if (c->decision.userspace_mode == USERSPACE_MODE_NONE || !c->decision.wait) {
                if (c->decision.userspace_mode != USERSPACE_MODE_NONE)
                        log_crash(c->tag, LOG_NOTICE, "Not dumping: a core of our own needs Wait=yes to hold the task.");
                c->result = CRASH_RESULT_USERSPACE;
                return;
        }

        if (ctx->proc_fd < 0) {
                (void) crash_fail(c, -ESRCH, "No verified /proc of the crashed process to make a core of");
                return;
        }

        struct generate g = {
                .req = {
                        .proc_fd = ctx->proc_fd,
                        .pid = ctx->pid,
                        .uid = ctx->uid,
                        .gid = ctx->gid,
                        .mode = c->decision.userspace_mode,
                        .signal = {
                                .signo = ctx->signal,
                                .si_code = ctx->si_code,
                                .si_errno = ctx->have_probe ? ctx->probe.si_errno : 0,
                                .have_addr = ctx->fault_addr_known,
                                .addr = ctx->fault_addr,
                        },
                        .crash_tid = ctx->have_probe ? ctx->probe.tid : 0,
                        .have_crash_regs = ctx->have_probe && ctx->probe.have_regs,
                        .thread_regs = probe ? stashed_regs : NULL,
                        .max_size = c->decision.max_size,
                },
                .probe = probe,
                .not_before_ns = ctx->have_probe ? ctx->probe.boot_ns : UINT64_MAX,
                .expired = expired,
        };
        g.req.thread_regs_userdata = &g;
        /* The writer reads the task's files as the parser would: as the crashing user, or with an id of its own. */
        parser_ids(ctx->uid, ctx->gid, context_user_may_read(ctx), &g.req.run_uid, &g.req.run_gid);
        g.req.owner = ctx->owner;
        if (g.req.have_crash_regs)
                memcpy(g.req.crash_regs, ctx->probe.regs, sizeof g.req.crash_regs);

        int r = record_core_init(c, c->decision.compress, &core);
        if (r < 0) {
                (void) crash_fail(c, r, "Cannot name the core: %s", strerror(-r));
                return;
        }
        core.target.sync_later = true; /* the task waits for the link, not for the disk */
        r = store_core_generated(store, &core.target, generate, &g, &c->stored, reason, sizeof reason);
        if (r < 0) {
                (void) crash_fail(c, r, "%s", reason);
                return;
        }
        c->have_stored = true;
        c->have_selfdump = true;
        c->selfdump = g.res;
        c->result = CRASH_RESULT_STORED;
        log_crash(c->tag, LOG_INFO,
                  "Stored our own core (%s) as %s: %u threads (%u with full registers), %zu segments, "
                  "%" PRIu64 " bytes of memory, %" PRIu64 " bytes.",
                  userspace_mode_to_string(c->decision.userspace_mode), c->stored.path, g.res.n_threads,
                  g.res.n_threads_full_regs, g.res.n_segments, g.res.memory_bytes, g.res.size);
}
