/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfdump/proc-threads.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"

#define STAT_MAX 4096

int proc_stat_parse(const char *text, struct proc_stat *ret) {
        const char *p = strrchr(text, ')');
        unsigned long long v[30] = {};
        long long nice;
        char state;
        int ppid, pgrp, session;

        if (!p)
                return -EINVAL;
        /* Fields 3… of proc(5): state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
         * utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss rsslim
         * startcode endcode startstack kstkesp kstkeip. */
        int n = sscanf(p + 1, " %c %d %d %d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu %*d %lld %*d %*d "
                              "%llu %*u %*d %*u %*u %*u %llu %llu %llu",
                       &state, &ppid, &pgrp, &session, &v[0], &v[1], &v[2], &v[3], &nice, &v[4], &v[7], &v[5], &v[6]);
        if (n != 13)
                return -EINVAL;
        *ret = (struct proc_stat) {
                .state = state,
                .ppid = ppid,
                .pgrp = pgrp,
                .session = session,
                .utime = v[0],
                .stime = v[1],
                .cutime = v[2],
                .cstime = v[3],
                .nice = nice,
                .start_time = v[4],
                .start_stack = v[7],
                .kstkesp = v[5],
                .kstkeip = v[6],
        };
        return 0;
}

int proc_syscall_parse(const char *text, uint64_t *ret_sp, uint64_t *ret_pc) {
        unsigned long long w[9];
        int n = 0, used;

        if (strncmp(text, "running", 7) == 0)
                return -EBUSY;
        for (const char *p = text; n < 9 && sscanf(p, " %lli%n", (long long *) &w[n], &used) == 1; p += used)
                n++;
        /* "NR a1 … a6 SP PC" (9 words) or "-1 SP PC" (3 words). */
        if (n != 9 && n != 3)
                return -EINVAL;
        *ret_sp = w[n - 2];
        *ret_pc = w[n - 1];
        return 0;
}

int proc_stat_read(int proc_fd, struct proc_stat *ret) {
        _cleanup_free_ char *text = NULL;
        int r = read_file_at(proc_fd, "stat", STAT_MAX, &text, NULL, NULL);
        return r < 0 ? r : proc_stat_parse(text, ret);
}

int proc_thread_read(int proc_fd, pid_t tid, struct proc_thread *ret) {
        _cleanup_free_ char *stat = NULL, *syscall = NULL;
        char path[64];

        *ret = (struct proc_thread) { .tid = tid };

        snprintf(path, sizeof path, "task/%d/stat", (int) tid);
        int r = read_file_at(proc_fd, path, STAT_MAX, &stat, NULL, NULL);
        if (r < 0)
                return r;
        r = proc_stat_parse(stat, &ret->stat);
        if (r < 0)
                return r;
        ret->sp = ret->stat.kstkesp;
        ret->pc = ret->stat.kstkeip;

        if (ret->sp == 0 || ret->pc == 0) {
                snprintf(path, sizeof path, "task/%d/syscall", (int) tid);
                if (read_file_at(proc_fd, path, STAT_MAX, &syscall, NULL, NULL) >= 0)
                        (void) proc_syscall_parse(syscall, &ret->sp, &ret->pc);
        }
        return 0;
}

static int compare_tid(const void *a, const void *b) {
        const struct proc_thread *x = a, *y = b;
        return (x->tid > y->tid) - (x->tid < y->tid);
}

int proc_threads_read(int proc_fd, struct proc_threads *ret) {
        struct proc_threads t = {};
        int r = 0;

        _cleanup_closedir_ DIR *d = NULL;
        int k = open_dir_at(proc_fd, "task", &d);
        if (k < 0)
                return k;

        for (struct dirent *de; (de = readdir(d));) {
                char *end;
                long tid = strtol(de->d_name, &end, 10);
                if (*end || tid <= 0)
                        continue;

                struct proc_thread *grown = realloc(t.threads, (t.n + 1) * sizeof *grown);
                if (!grown) {
                        r = -ENOMEM;
                        break;
                }
                t.threads = grown;
                /* A thread that is already gone is simply not part of the dump. */
                if (proc_thread_read(proc_fd, (pid_t) tid, &t.threads[t.n]) >= 0)
                        t.n++;
        }
        if (r < 0 || t.n == 0) {
                proc_threads_done(&t);
                return r < 0 ? r : -ESRCH;
        }
        qsort(t.threads, t.n, sizeof *t.threads, compare_tid);
        *ret = t;
        return 0;
}

void proc_threads_done(struct proc_threads *t) {
        free(t->threads);
        *t = (struct proc_threads) {};
}
