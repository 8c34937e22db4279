/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The writer of our own core: what the daemon opens and reads of the task with its rights, the
 * writer process started clean (every other fd closed, the cell), and what the writer reads of the
 * task there, from the fds it was handed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "selfdump/dump-filter.h"
#include "selfdump/selfdump.h"
#include "shared/cell.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "store/store.h"

#define AUXV_MAX (8U * 1024)
#define CMDLINE_MAX 4096U
#define COMM_MAX 64U
#define SMAPS_MAX (256U * 1024 * 1024)
#define FILTER_MAX 64U

/* The writer's cell: what it may add to the daemon's address space it starts with (the smaps text
 * at most SMAPS_MAX, zstd's context, the copy buffers), a few fds of its own; no CPU limit: the
 * deadline kills it; its file is the core, cut at the request's size. */
static const struct cell_limits writer_limits = {
        .address_space = UINT64_C(1) << 30,
        .cpu_seconds = RLIM_INFINITY,
        .open_files = 64,
        .file_size = RLIM_INFINITY,
};

/* ---- on the daemon's side --------------------------------------------------------------------- */

static int open_proc(const struct selfdump_request *req, const char *name, int *ret) {
        *ret = openat(req->proc_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
        return *ret < 0 ? negative_errno() : 0;
}

static void task_init(struct selfdump_task *t) {
        *t = (struct selfdump_task) {
                .mem_fd = -1, .maps_fd = -1, .mountinfo_fd = -1, .pagemap_fd = -1, .smaps_fd = -1,
                .filter_fd = -1, .auxv_fd = -1, .cmdline_fd = -1, .comm_fd = -1,
        };
}

int selfdump_task_open(const struct selfdump_request *req, struct selfdump_task *ret, char *error,
                       size_t error_size) {
        struct selfdump_task *t = ret;
        const char *what = "mem";
        int r;

        task_init(t);
        r = open_proc(req, "mem", &t->mem_fd);
        if (r >= 0 && (r = open_proc(req, "maps", &t->maps_fd)) < 0)
                what = "maps";
        if (r >= 0 && (r = open_proc(req, "smaps", &t->smaps_fd)) < 0)
                what = "smaps";
        if (r >= 0 && (r = open_proc(req, "coredump_filter", &t->filter_fd)) < 0)
                what = "coredump_filter";
        /* The thread table: task/<tid>/syscall needs ptrace access, the registers the probe's maps. */
        if (r >= 0 && (r = proc_threads_read(req->proc_fd, &t->threads)) < 0)
                what = "task/";
        if (r >= 0 && (r = proc_stat_read(req->proc_fd, &t->stat)) < 0)
                what = "stat";
        if (r < 0) {
                snprintf(error, error_size, "cannot read /proc/%d/%s: %s", (int) req->pid, what, strerror(-r));
                selfdump_task_done(t);
                return r;
        }
        /* Optional: without mountinfo every mapped file is taken as remote; a core without the
         * others is still a core. */
        (void) open_proc(req, "mountinfo", &t->mountinfo_fd);
        (void) open_proc(req, "pagemap", &t->pagemap_fd);
        (void) open_proc(req, "auxv", &t->auxv_fd);
        (void) open_proc(req, "cmdline", &t->cmdline_fd);
        (void) open_proc(req, "comm", &t->comm_fd);
        if (req->thread_regs && t->threads.n > 0) {
                t->thread_regs = calloc(t->threads.n, sizeof t->thread_regs[0]);
                t->thread_full = calloc(t->threads.n, sizeof t->thread_full[0]);
                for (size_t i = 0; t->thread_regs && t->thread_full && i < t->threads.n; i++) {
                        const struct proc_thread *th = &t->threads.threads[i];
                        t->thread_full[i] = req->thread_regs(req->thread_regs_userdata, th->tid, th->sp, th->pc,
                                                             t->thread_regs[i]);
                }
                if (!t->thread_regs || !t->thread_full) {
                        free(t->thread_regs);
                        free(t->thread_full);
                        t->thread_regs = NULL;
                        t->thread_full = NULL;
                }
        }
        return 0;
}

void selfdump_task_fds(const struct selfdump_task *t, int fds[SELFDUMP_TASK_FDS]) {
        const int all[SELFDUMP_TASK_FDS] = {
                t->mem_fd, t->maps_fd, t->mountinfo_fd, t->pagemap_fd, t->smaps_fd,
                t->filter_fd, t->auxv_fd, t->cmdline_fd, t->comm_fd,
        };
        memcpy(fds, all, sizeof all);
}

void selfdump_task_done(struct selfdump_task *t) {
        int fds[SELFDUMP_TASK_FDS];

        selfdump_task_fds(t, fds);
        for (size_t i = 0; i < SELFDUMP_TASK_FDS; i++)
                safe_close(fds[i]);
        proc_threads_done(&t->threads);
        proc_maps_done(&t->maps);
        free(t->thread_regs);
        free(t->thread_full);
        free(t->auxv);
        free(t->cmdline);
        free(t->comm);
        task_init(t);
}

/* ---- in the writer's cell --------------------------------------------------------------------- */

/* All of an open /proc file, up to max bytes (-EFBIG beyond). */
static int read_fd_text(int fd, size_t max, char **ret) {
        size_t size = 0, allocated = 0;
        char *buf = NULL;

        for (;;) {
                if (allocated - size < 4096) {
                        size_t want = MAX(allocated * 2, (size_t) 65536);
                        if (want > max + 1)
                                want = max + 1;
                        if (want <= size + 1) {
                                free(buf);
                                return -EFBIG;
                        }
                        char *grown = realloc(buf, want);
                        if (!grown) {
                                free(buf);
                                return -ENOMEM;
                        }
                        buf = grown;
                        allocated = want;
                }
                ssize_t n = read(fd, buf + size, allocated - size - 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int r = negative_errno();
                        free(buf);
                        return r;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
        }
        buf[size] = 0;
        *ret = buf;
        return 0;
}

/* Up to max bytes of an optional file (what is beyond is left out): 0, or -errno and nothing. */
static int read_fd_head(int fd, size_t max, char **ret, size_t *ret_size) {
        if (fd < 0)
                return -EBADF;
        _cleanup_free_ char *buf = malloc(max + 1);
        if (!buf)
                return -ENOMEM;
        long n = read_full(fd, buf, max);
        if (n < 0)
                return (int) n;
        buf[n] = 0;
        if (ret_size)
                *ret_size = (size_t) n;
        *ret = TAKE_PTR(buf);
        return 0;
}

int selfdump_task_read(const struct selfdump_request *req, struct selfdump_task *t, char *error, size_t error_size) {
        _cleanup_free_ char *maps = NULL, *mountinfo = NULL, *filter = NULL, *smaps = NULL;
        const char *what = "maps";

        int r = read_fd_text(t->maps_fd, PROC_MAPS_MAX, &maps);
        if (r >= 0)
                r = proc_maps_parse(maps, &t->maps);
        if (r >= 0) {
                if (t->mountinfo_fd < 0 || read_fd_text(t->mountinfo_fd, PROC_MAPS_MAX, &mountinfo) < 0)
                        mountinfo = NULL;
                proc_maps_mark(mountinfo, &t->maps);
                /* What the task lets a core hold: what the kernel would leave out of its own core is
                 * left out of ours too. */
                what = "coredump_filter";
                r = read_fd_text(t->filter_fd, FILTER_MAX, &filter);
        }
        if (r >= 0)
                r = parse_coredump_filter(filter, &t->filter);
        if (r >= 0) {
                what = "smaps";
                r = read_fd_text(t->smaps_fd, SMAPS_MAX, &smaps);
        }
        if (r >= 0)
                r = proc_smaps_annotate(smaps, &t->maps);
        if (r < 0) {
                snprintf(error, error_size, "cannot read /proc/%d/%s: %s", (int) req->pid, what, strerror(-r));
                return r;
        }
        (void) read_fd_head(t->auxv_fd, AUXV_MAX, &t->auxv, &t->auxv_size);
        (void) read_fd_head(t->cmdline_fd, CMDLINE_MAX, &t->cmdline, &t->cmdline_size);
        if (read_fd_head(t->comm_fd, COMM_MAX, &t->comm, NULL) >= 0)
                strip_trailing_newlines(t->comm);
        return 0;
}

/* ---- the writer's process --------------------------------------------------------------------- */

struct in_cell {
        const struct selfdump_request *req;
        struct selfdump_task *task;
        struct selfdump_result res;
};

/* In the writer's process, in its cell already: the task read from its fds, the core written. */
static int write_in_cell(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                         size_t reason_size) {
        struct in_cell *c = userdata;
        int r = selfdump_task_read(c->req, c->task, reason, reason_size);
        if (r >= 0)
                r = selfdump_write_task(c->req, c->task, w, &c->res, reason, reason_size);
        *ret_truncated = c->res.truncated;
        return r;
}

int selfdump_write_killable(const struct selfdump_request *req, struct core_writer *w, const atomic_bool *cancel,
                            struct selfdump_result *ret, char *error, size_t error_size) {
        _cleanup_(selfdump_task_done) struct selfdump_task task;
        struct in_cell c = { .req = req, .task = &task };
        int fds[SELFDUMP_TASK_FDS];
        bool truncated = false;

        int r = selfdump_task_open(req, &task, error, error_size);
        if (r < 0)
                return r;
        selfdump_task_fds(&task, fds);
        struct writer_start start = {
                .keep_fds = fds,
                .n_keep_fds = SELFDUMP_TASK_FDS,
                .uid = req->run_uid,
                .owner = req->owner,
                .gid = req->run_gid,
                .limits = writer_limits,
        };
        r = store_generate_killable(w, &start, write_in_cell, &c, cancel, &c.res, sizeof c.res, &truncated, error,
                                    error_size);
        if (r >= 0)
                *ret = c.res;
        return r;
}

int selfdump_write(const struct selfdump_request *req, struct core_writer *w, struct selfdump_result *ret,
                   char *error, size_t error_size) {
        _cleanup_(selfdump_task_done) struct selfdump_task task;

        int r = selfdump_task_open(req, &task, error, error_size);
        proc_maps_prepare();    /* before the cell: which of the task's files are local */
        if (r >= 0 && req->run_uid != 0) {
                struct cell_limits limits = writer_limits;
                uint64_t now = cell_address_space_now();
                limits.address_space = now == 0 ? RLIM_INFINITY : now + limits.address_space;
                r = cell_enter(req->run_uid, req->run_gid, &limits, error, error_size);
        }
        if (r >= 0)
                r = selfdump_task_read(req, &task, error, error_size);
        if (r >= 0)
                r = selfdump_write_task(req, &task, w, ret, error, error_size);
        return r;
}
