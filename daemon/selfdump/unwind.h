/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The stacks of a held task, unwound before the ack: the threads' registers (the crash-context
 * probe's, or sp and pc from /proc), memory from /proc/<pid>/mem, and the call frame information
 * of the mapped objects (.eh_frame, so binaries without frame pointers unwind too; symbols from
 * .symtab or, for stripped ones, .dynsym; separate debug info by build-id, never from a
 * debuginfod server) — elfutils' libdwfl with thread callbacks of our own. Bounded by a time
 * and a frame budget: what is not unwound by then stays out, the crash goes on.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "selfdump/core-notes.h"
#include "selfdump/selfdump.h"

#define UNWIND_MAX_FRAMES 64
#define UNWIND_MAX_THREADS 16

struct unwind_frame {
        uint64_t pc;                    /* the frame's pc (a return address for all but the first) */
        char build_id[41];              /* of its module, hex; "" if unknown */
        uint64_t module_offset;         /* pc (minus one for return addresses) from the module's base */
        char *module;                   /* the module's file name, or NULL */
        char *symbol;                   /* the function, or NULL */
        uint64_t symbol_offset;
};

struct unwind_thread {
        pid_t tid;
        struct unwind_frame *frames;
        size_t n_frames;
        bool cut;                       /* stopped by the budget or an error, not at the outermost frame */
};

struct unwind_result {
        struct unwind_thread *threads;  /* the crashing thread first */
        size_t n_threads;
        char exe_build_id[41];          /* of the main executable, "" if unknown */
        uint64_t usec;                  /* time spent */
};

struct unwind_request {
        pid_t pid;
        int proc_fd;                    /* /proc/<pid>, verified against the pidfd */
        bool other_root;                /* the task has a root of its own (task_root_open()): root_fd */
        int root_fd;                    /* ... in which its files are opened */
        pid_t crash_tid;                /* 0: unknown (the thread group leader goes first) */
        bool have_crash_regs;
        uint64_t crash_regs[CORE_NREGS];
        thread_regs_fn thread_regs;     /* other threads' registers, may be NULL */
        void *thread_regs_userdata;
        uint64_t budget_usec;           /* for everything */
        unsigned max_frames;            /* per thread, at most UNWIND_MAX_FRAMES */
        unsigned max_threads;           /* at most UNWIND_MAX_THREADS */
};

/* Unwinds what the budget allows. 0 with *ret filled (threads may be cut or empty), or -errno when
 * nothing could be looked at (no /proc, out of memory). */
int unwind_task(const struct unwind_request *req, struct unwind_result *ret);
void unwind_result_done(struct unwind_result *r);

/* "#0  0x... function+0x12 (module)" lines of a thread, systemd-coredump's layout. */
char *unwind_thread_format(const struct unwind_thread *t);
