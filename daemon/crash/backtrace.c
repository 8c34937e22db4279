/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <semaphore.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <assert.h>

#include "crash/backtrace.h"
#include "crash/context.h"
#include "parser/client.h"
#include "selfdump/core-notes.h"
#include "selfdump/proc-threads.h"
#include "shared/cleanup.h"
#include "shared/hash.h"
#include "shared/log.h"
#include "shared/timestamp.h"

static const char *base_name(const char *path) {
        const char *slash = path ? strrchr(path, '/') : NULL;
        return slash ? slash + 1 : path ? path : "?";
}

bool signature_partial(const struct unwind_result *u) {
        if (u->n_threads == 0 || u->threads[0].n_frames == 0)
                return false;
        const struct unwind_thread *t = &u->threads[0];
        return t->cut != UNWIND_CUT_NONE && t->n_frames < SIGNATURE_FRAMES;
}

void signature_compute(const struct unwind_result *u, int signo, char out[static 17]) {
        char item[128];
        uint64_t h = FNV1A_64_INIT;

        out[0] = 0;
        if (u->n_threads == 0 || u->threads[0].n_frames == 0)
                return;
        snprintf(item, sizeof item, "coredumpd-signature-1 signal=%d exe=%s\n", signo, u->exe_build_id);
        h = fnv1a_64(h, item);
        const struct unwind_thread *t = &u->threads[0];
        for (size_t k = 0; k < t->n_frames && k < SIGNATURE_FRAMES; k++) {
                const struct unwind_frame *f = &t->frames[k];
                /* Without a build-id the module's name stands in; without a module, nothing stable. */
                if (f->build_id[0])
                        snprintf(item, sizeof item, "%s+%" PRIx64 "\n", f->build_id, f->module_offset);
                else if (f->module)
                        snprintf(item, sizeof item, "%s+%" PRIx64 "\n", base_name(f->module), f->module_offset);
                else
                        snprintf(item, sizeof item, "?\n");
                h = fnv1a_64(h, item);
        }
        /* Fewer frames than the signature takes, and not because the stack ended there: what is
         * missing is unknown, so this is no signature of the crash site. It is kept apart from
         * every complete one (never equal to one by accident of the frames it lacks). */
        if (signature_partial(u))
                h = fnv1a_64(h, "partial\n");
        snprintf(out, 17, "%016" PRIx64, h);
}

void unwind_slots_init(sem_t *slots) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        /* Cannot fail: the count is far below SEM_VALUE_MAX. */
        (void) sem_init(slots, 0, (unsigned) (cpus < 1 ? 1 : cpus > 256 ? 256 : cpus));
}

static bool unwind_slot_take(sem_t *slots, uint64_t wait_usec) {
        struct timespec until = realtime_after(wait_usec);
        while (sem_timedwait(slots, &until) < 0)
                if (errno != EINTR)
                        return false;
        return true;
}

/* The threads to unwind, the crashing one first (the leader if unknown), with what is known of
 * their registers: the probe's for the crashing thread, else sp and pc from /proc. */
static size_t crash_threads(const struct crash_context *ctx, struct parser_thread out[static UNWIND_MAX_THREADS]) {
        struct proc_threads threads = {};
        size_t n = 0;

        if (proc_threads_read(ctx->proc_fd, &threads) < 0)
                return 0;
        pid_t first = ctx->have_probe && ctx->probe.tid > 0 ? ctx->probe.tid : ctx->pid;
        for (size_t pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < threads.n && n < UNWIND_MAX_THREADS; i++) {
                        const struct proc_thread *t = &threads.threads[i];
                        if ((t->tid == first) != (pass == 0))
                                continue;
                        struct parser_thread *p = &out[n++];
                        *p = (struct parser_thread) { .tid = t->tid };
                        if (pass == 0 && ctx->have_probe && ctx->probe.have_regs && ctx->probe.tid == t->tid) {
                                p->crashed = 1;
                                static_assert(sizeof p->regs == sizeof ctx->probe.regs, "user_regs_struct");
                                memcpy(p->regs, ctx->probe.regs, sizeof p->regs);
                        } else
                                core_regs_from_sp_pc(p->regs, t->sp, t->pc);
                }
        proc_threads_done(&threads);
        return n;
}

void backtrace_take(const struct config *config, sem_t *slots, struct crash *c) {
        struct crash_context *ctx = &c->context;
        struct parser_thread threads[UNWIND_MAX_THREADS];
        char reason[256] = "";

        if (config->unwind_timeout_usec == 0)
                return;
        if (ctx->proc_fd < 0)
                return;
        if (slots && !unwind_slot_take(slots, config->unwind_timeout_usec)) {
                log_crash(c->tag, LOG_NOTICE, "Every unwinder was busy for UnwindTimeout=, going on without a backtrace.");
                return;
        }

        struct parser_job job = {
                .proc_fd = ctx->proc_fd,
                .pid = ctx->pid,
                .exe = ctx->exe,
                .threads = threads,
                .n_threads = crash_threads(ctx, threads),
                .budget_usec = config->unwind_timeout_usec,
                .max_frames = config->unwind_max_frames,
        };
        parser_ids(ctx->uid, ctx->gid, context_user_may_read(ctx), &job.uid, &job.gid);
        job.owner = ctx->owner;

        ctx->unwind_full_regs = job.n_threads > 0 && threads[0].crashed;
        int r = parser_unwind(&job, &ctx->unwind, reason, sizeof reason);
        if (slots)
                (void) sem_post(slots);
        if (r < 0) {
                log_crash(c->tag, LOG_NOTICE, "Cannot unwind the crashed task, going on without a backtrace: the parser %s (%s).",
                          reason, strerror(-r));
                return;
        }
        ctx->have_unwind = true;
        signature_compute(&ctx->unwind, ctx->signal, ctx->signature);
        log_crash(c->tag, LOG_DEBUG, "Unwound %zu thread(s) in %" PRIu64 " us; signature %s.", ctx->unwind.n_threads,
                  ctx->unwind.usec, ctx->signature[0] ? ctx->signature : "none");
        if (signature_partial(&ctx->unwind))
                log_crash(c->tag, LOG_NOTICE, "The crashing thread's trace was cut short after %zu frame(s) (%s, from %s): "
                          "signature %s is marked partial.", ctx->unwind.threads[0].n_frames,
                          unwind_cut_to_string(ctx->unwind.threads[0].cut) ?: "?",
                          ctx->unwind_full_regs ? "its registers" : "its sp and pc only", ctx->signature);
}

char *backtrace_message(const struct crash_context *ctx) {
        char *text = NULL;
        size_t size = 0;

        if (!ctx->have_unwind || ctx->unwind.n_threads == 0)
                return NULL;
        FILE *f = open_memstream(&text, &size);
        if (!f)
                return NULL;
        for (size_t i = 0; i < ctx->unwind.n_threads; i++) {
                const struct unwind_thread *t = &ctx->unwind.threads[i];
                _cleanup_free_ char *frames = unwind_thread_format(t);
                fprintf(f, "%sStack trace of thread %d:\n%s", i > 0 ? "\n" : "", (int) t->tid, frames ? frames : "");
        }
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}
