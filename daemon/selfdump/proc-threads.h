/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The threads of a held process, from /proc/<pid>/task/<tid>/{stat,syscall}: ids, times, and the
 * user stack and instruction pointers. The kernel fills stat's kstkesp/kstkeip only for a task that
 * is exiting or dumping (which every thread of a crashed, held process is but the dumping one);
 * syscall gives sp and pc of any blocked task, the dumping thread included.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_stat {
        char state;
        pid_t ppid, pgrp, session;
        uint64_t utime, stime, cutime, cstime;  /* clock ticks */
        int64_t nice;
        uint64_t start_time;                    /* clock ticks after boot */
        uint64_t start_stack;                   /* the main thread's first stack pointer (argc's
                                                 * address); 0 if not shown */
        uint64_t kstkesp, kstkeip;              /* 0 unless exiting or dumping */
};

struct proc_thread {
        pid_t tid;
        struct proc_stat stat;
        uint64_t sp, pc;                        /* 0 if unknown */
};

struct proc_threads {
        struct proc_thread *threads;
        size_t n;
};

/* Parses the text of a stat file (the comm may hold anything, even ") "). */
int proc_stat_parse(const char *text, struct proc_stat *ret);
/* Parses a syscall file: "NR ARGS… SP PC", "-1 SP PC" (in user space, blocked) or "running". */
int proc_syscall_parse(const char *text, uint64_t *ret_sp, uint64_t *ret_pc);

/* Reads <proc_fd>/stat. */
int proc_stat_read(int proc_fd, struct proc_stat *ret);
/* Reads one thread, <proc_fd>/task/<tid>/stat (and syscall where stat shows no sp and pc). */
int proc_thread_read(int proc_fd, pid_t tid, struct proc_thread *ret);
/* Lists <proc_fd>/task and reads every thread, sorted by tid. */
int proc_threads_read(int proc_fd, struct proc_threads *ret);
void proc_threads_done(struct proc_threads *t);
