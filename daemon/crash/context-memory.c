/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CONTEXT_MEMORY: the task's command line and its container manager's, read by the crash's reader
 * (`coredumpd-parser --reader`, parser/client.h) from fds opened here: a read of a process's
 * cmdline takes its mmap_lock, which a process sharing its memory can hold for good. And a kept
 * crash's status, maps and limits for its record, the same way. */
#include <errno.h>
#include <stdlib.h>

#include "crash/context-memory.h"
#include "parser/client.h"
#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/log.h"
#include "shared/timestamp.h"

void context_reader_job(const struct crash_context *c, struct reader_job *ret) {
        uid_t uid;
        gid_t gid;

        parser_ids(c->uid, c->gid, context_user_may_read(c), &uid, &gid);
        *ret = (struct reader_job) {
                .proc_fd = c->proc_fd,
                .owner = &c->owner,
                .uid = uid,
                .gid = gid,
                .deadline_usec = now_monotonic_usec() + (c->reader_wait_usec ?: READER_WAIT_USEC),
        };
}

/* One process's cmdline (dir_fd its /proc directory) by the reader: 0, or -errno (logged). */
static int read_cmdline(struct crash_context *c, int dir_fd, const char *whose, char **ret, size_t *ret_size) {
        struct reader_job job;
        char reason[160] = "";

        if (c->memory_stalled) {
                log_crash(c->tag, LOG_DEBUG, "Not reading the %s command line: the task's memory did not answer.", whose);
                return -ETIMEDOUT;
        }
        context_reader_job(c, &job);
        int r = reader_cmdline(&job, dir_fd, "cmdline", ret, ret_size, reason, sizeof reason);
        if (r == -ETIMEDOUT)
                c->memory_stalled = true;
        if (r < 0)
                log_crash_errno(c->tag, r == -ETIMEDOUT ? LOG_NOTICE : LOG_WARNING, r, "Cannot read the %s cmdline: %s",
                                whose, reason);
        return r;
}

static int manager_cmdline(void *userdata, int dir_fd, char **ret, size_t *ret_size) {
        return read_cmdline(userdata, dir_fd, "container manager's", ret, ret_size);
}

void context_read_memory(struct crash_context *c) {
        _cleanup_free_ char *raw = NULL;
        size_t size;

        if (read_cmdline(c, c->proc_fd, "task's", &raw, &size) >= 0)
                c->cmdline = escape_cmdline(raw, size);
        container_info_gather_manager(c->host->proc_fd, c->pid, manager_cmdline, c, &c->container);
}

void context_read_proc_texts(struct crash_context *c) {
        struct reader_job job;
        char reason[160] = "";

        if (!c->opened || c->proc_text[0])
                return;
        if (c->memory_stalled) {
                log_crash(c->tag, LOG_DEBUG, "Not reading the task's status, maps and limits: its memory did not answer.");
                return;
        }
        context_reader_job(c, &job);
        int r = reader_proc_texts(&job, c->proc_text, reason, sizeof reason);
        if (r == -ETIMEDOUT)
                c->memory_stalled = true;
        if (r < 0)
                log_crash_errno(c->tag, r == -ETIMEDOUT ? LOG_NOTICE : LOG_WARNING, r,
                                "Cannot read the task's status, maps and limits: %s", reason);
}
