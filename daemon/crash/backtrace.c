/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <semaphore.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash/backtrace.h"
#include "crash/context.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

/* FNV-1a, 64 bits: a stable, dependency-free hash of a short text. */
static uint64_t fnv1a(uint64_t h, const char *s) {
        for (; *s; s++) {
                h ^= (unsigned char) *s;
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}

static const char *base_name(const char *path) {
        const char *slash = path ? strrchr(path, '/') : NULL;
        return slash ? slash + 1 : path ? path : "?";
}

void signature_compute(const struct unwind_result *u, int signo, char out[static 17]) {
        char item[128];
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        out[0] = 0;
        if (u->n_threads == 0 || u->threads[0].n_frames == 0)
                return;
        snprintf(item, sizeof item, "coredumpd-signature-1 signal=%d exe=%s\n", signo, u->exe_build_id);
        h = fnv1a(h, item);
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
                h = fnv1a(h, item);
        }
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

void backtrace_take(const struct config *config, sem_t *slots, struct crash *c) {
        struct crash_context *ctx = &c->context;

        if (config->unwind_timeout_usec == 0)
                return;
        if (ctx->proc_fd < 0)
                return;
        if (slots && !unwind_slot_take(slots, config->unwind_timeout_usec)) {
                log_crash(c->tag, LOG_NOTICE, "Every unwinder was busy for UnwindTimeout=, going on without a backtrace.");
                return;
        }

        /* Before the request: its initializers are evaluated in no particular order. */
        bool other_root = context_open_root(ctx, c->tag) > 0;
        struct unwind_request req = {
                .pid = ctx->pid,
                .proc_fd = ctx->proc_fd,
                .other_root = other_root,
                .root_fd = ctx->root_fd,
                .crash_tid = ctx->have_probe ? ctx->probe.tid : 0,
                .have_crash_regs = ctx->have_probe && ctx->probe.have_regs,
                .budget_usec = config->unwind_timeout_usec,
                .max_frames = config->unwind_max_frames,
        };
        if (req.have_crash_regs)
                memcpy(req.crash_regs, ctx->probe.regs, sizeof req.crash_regs);

        int r = unwind_task(&req, &ctx->unwind);
        if (slots)
                (void) sem_post(slots);
        if (r < 0) {
                log_crash_errno(c->tag, LOG_NOTICE, r, "Cannot unwind the crashed task, going on without a backtrace: %m");
                return;
        }
        ctx->have_unwind = true;
        signature_compute(&ctx->unwind, ctx->signal, ctx->signature);
        log_crash(c->tag, LOG_DEBUG, "Unwound %zu thread(s) in %" PRIu64 " us; signature %s.", ctx->unwind.n_threads,
                  ctx->unwind.usec, ctx->signature[0] ? ctx->signature : "none");
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
