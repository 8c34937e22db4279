/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash/context-memory.h"
#include "crash/keep-files.h"
#include "selfdump/proc-maps.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

static bool seen(const struct proc_maps *maps, size_t upto, const struct proc_mapping *m) {
        for (size_t i = 0; i < upto; i++) {
                const struct proc_mapping *o = &maps->mappings[i];
                if (proc_mapping_is_file(o) && o->inode == m->inode && o->dev_major == m->dev_major &&
                    o->dev_minor == m->dev_minor)
                        return true;
        }
        return false;
}

/* The files to keep, by the maps alone (nothing opened): the executable's mapping first, then every
 * other file in address order, none marked remote, each once. */
static size_t candidates(const struct crash_context *ctx, const struct proc_maps *maps, struct keep_cell_file *ret) {
        size_t n = 0;
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < maps->n && n < KEEP_FILES_MAX; i++) {
                        const struct proc_mapping *m = &maps->mappings[i];
                        bool exe = ctx->exe && m->path && strcmp(m->path, ctx->exe) == 0;
                        if (!proc_mapping_is_file(m) || m->remote || (pass == 0) != exe || seen(maps, i, m))
                                continue;
                        if (!saved_file_path_ok(m->path) || strlen(m->path) > PARSER_KEEP_PATH_MAX)
                                continue;
                        ret[n++] = (struct keep_cell_file) {
                                .path = m->path,
                                .inode = m->inode,
                                .dev_major = m->dev_major,
                                .dev_minor = m->dev_minor,
                        };
                        if (exe)
                                break;
                }
        return n;
}

static void reader_answer_freep(struct reader_answer **a) {
        if (*a)
                reader_answer_done(*a);
        free(*a);
}

void kept_files_open(struct crash_context *ctx, struct kept_files *k, uint64_t max_bytes, uint64_t deadline_usec,
                     const char *tag) {
        _cleanup_(reader_answer_freep) struct reader_answer *a = NULL;
        struct proc_mapping mappings[READER_FILES_MAX];
        struct keep_cell_file files[KEEP_FILES_MAX];
        struct reader_job job;
        char why[160] = "";

        /* Only a task with a root of its own: a crash in the host's root pays for no cell. */
        if (context_open_root(ctx, tag) <= 0)
                return;
        /* Its reader was killed at its deadline (the task's mmap_lock held): the maps would wait too. */
        if (ctx->memory_stalled) {
                log_crash(tag, LOG_NOTICE, "Keeping none of its files: the task's memory did not answer.");
                return;
        }
        /* Its maps and mountinfo read by the tenant's reader (parser/client.h), not here: a process
         * sharing the task's memory can hold its mmap_lock for good. */
        a = calloc(1, sizeof *a);
        context_reader_job(ctx, &job);
        int r = a ? reader_files(&job, ctx->exe, a, why, sizeof why) : -ENOMEM;
        if (r < 0) {
                ctx->memory_stalled = ctx->memory_stalled || r == -ETIMEDOUT;
                log_crash_errno(tag, LOG_NOTICE, r, "Cannot read the maps of the task, keeping none of its files: %s",
                                why[0] ? why : strerror(-r));
                return;
        }
        /* Its answer, checked (reader_answer_decode()): files not on remote file systems, each once. */
        for (size_t i = 0; i < a->n_maps; i++)
                mappings[i] = reader_proc_mapping(&a->maps[i], a->paths[i]);
        const struct proc_maps maps = { .mappings = mappings, .n = a->n_maps };
        size_t n = candidates(ctx, &maps, files);
        if (n == 0) {
                if (a->n_files > 0 && a->n_remote == a->n_files)
                        log_crash(tag, LOG_NOTICE, "Keeping none of the container's files: all %" PRIu32 " mapped files are on "
                                  "remote file systems, or which are is not known.", a->n_files);
                return;
        }

        uid_t uid;
        gid_t gid;
        char reason[160] = "";
        parser_ids(ctx->uid, ctx->gid, context_user_may_read(ctx), &uid, &gid);
        uint64_t wait = MIN(deadline_usec, KEEP_OPEN_MAX_USEC);
        k->stall_usec = deadline_usec;
        r = keep_cell_start(ctx->root_fd, files, n, uid, gid, &ctx->owner, max_bytes, now_monotonic_usec() + wait, &k->cell,
                            reason, sizeof reason);
        if (r < 0) {
                snprintf(k->error, sizeof k->error, "opening %zu file(s) in the container's root (%s, ...): %s", n,
                         files[0].path, reason);
                log_crash_errno(tag, LOG_NOTICE, r, "Keeping none of the container's files: %s", k->error);
                return;
        }
        k->started = true;
        int first_error = 0;
        const char *first_path = NULL;
        for (size_t i = 0; i < n; i++) {
                int e = k->cell.opened.error[i];
                struct saved_file f = { .path = (char *) files[i].path };
                if (e == 0 && saved_files_add(&k->list, &f) >= 0)
                        k->index[k->list.n - 1] = (uint32_t) i;
                else if (e < 0 && e != -ENOEXEC && !first_error) {
                        first_error = e;
                        first_path = files[i].path;
                }
                if (e < 0)
                        log_crash_errno(tag, LOG_DEBUG, e, "Not keeping %s: %m", files[i].path);
        }
        if (k->list.n == 0) {
                keep_cell_stop(&k->cell);
                if (first_error)
                        log_crash_errno(tag, LOG_NOTICE, first_error, "Keeping none of the container's files: "
                                        "cannot open %s in its root: %m", first_path);
        }
}

static struct saved_file *listed(struct kept_files *k, uint32_t index) {
        for (size_t i = 0; i < k->list.n; i++)
                if (k->index[i] == index)
                        return &k->list.v[i];
        return NULL;
}

void kept_files_save(struct store *s, const char *core_name, uid_t reader_uid, struct kept_files *k, const char *tag) {
        char reason[160] = "";
        unsigned kept = 0;
        int r;

        if (!k->started || k->cell.pid <= 0 || k->list.n == 0)
                return;
        /* The cell compares each file with the host's and sends those to keep; here only its pipe is
         * read, each wait at most Deadline=, and all of it within Deadline= too: a cell that answers
         * just often enough would otherwise hold this thread, released task or not, for ever. */
        uint64_t until = now_monotonic_usec() + k->stall_usec;
        r = keep_cell_go(&k->cell);
        for (;;) {
                struct parser_keep_entry e;
                char id[41];
                if (r < 0)
                        break;
                r = keep_cell_next(&k->cell, MIN(now_monotonic_usec() + k->stall_usec, until), &s->interrupted, &e,
                                   id, reason, sizeof reason);
                if (r < 0 || e.what == PARSER_KEEP_END)
                        break;
                struct saved_file *f = listed(k, e.index);
                if (!f) {
                        r = -EBADMSG;
                        snprintf(reason, sizeof reason, "it answered for a file it does not hold");
                        break;
                }
                snprintf(f->build_id, sizeof f->build_id, "%s", id);
                if (e.what == PARSER_KEEP_HOST)
                        f->host = true;
                else if (e.what == PARSER_KEEP_NONE && e.error == -EFBIG)
                        log_crash(tag, LOG_NOTICE, "Not keeping the container's %s with the core: more than is left "
                                  "of MaxSize=.", f->path);
                else if (e.what == PARSER_KEEP_NONE)
                        log_crash_errno(tag, LOG_NOTICE, e.error, "Not keeping the container's %s with the core: %m",
                                        f->path);
                else {
                        _cleanup_free_ char *name = store_attachment_name(core_name, kept);
                        char why[160] = "";
                        r = name ? store_save_stream(s, k->cell.out_fd, e.size, k->stall_usec, until, name,
                                                     reader_uid, NULL, tag, why, sizeof why)
                                 : -ENOMEM;
                        if (r < 0) {
                                /* Its stream is out of step now: no more of it is taken. */
                                snprintf(reason, sizeof reason, "copying %s: %s", f->path, name ? why : "out of memory");
                                break;
                        }
                        f->stored = TAKE_PTR(name);
                        kept++;
                }
        }
        if (r < 0) {
                snprintf(k->error, sizeof k->error, "reading the container's files: %s", reason);
                log_crash_errno(tag, LOG_NOTICE, r, "Not keeping all of the container's files: %s", k->error);
                keep_cell_stop(&k->cell);
        } else
                keep_cell_end(&k->cell);
        if (kept > 0)
                log_crash(tag, LOG_INFO, "Kept %u file(s) of the container with the core, for the debugger.", kept);
}

void kept_files_done(struct kept_files *k) {
        if (k->started)
                keep_cell_stop(&k->cell);
        k->started = false;
        saved_files_done(&k->list);
}
