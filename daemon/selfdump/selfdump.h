/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The core coredumpd writes itself for Action=userspace (ack USERSPACE|WAIT): while the kernel holds
 * the crashed process, its state is read through the verified /proc/<pid> directory — maps, mem,
 * task/<tid>/{stat,syscall}, auxv, cmdline — and written as an ELF core (core-elf.c, core-notes.c):
 *
 *   notes     NT_PRSTATUS per thread (the crashing thread first, with the probe's full registers;
 *             other threads with the stash's registers when they match, else sp and pc), NT_PRPSINFO,
 *             NT_SIGINFO, NT_AUXV, NT_FILE
 *   memory    always: the first page of every mapped ELF file (ELF header and build-id note), the
 *             vDSO, and the dynamic loader's state gdb follows to find shared libraries (the
 *             executable's dynamic section, r_debug, every link_map and its name); then by mode:
 *             stacks — each thread's stack from just below sp up to STACK_WINDOW_MAX;
 *             stacks+heap-refs — plus every page of a writable private mapping that a word on those
 *             stacks points into; all-writable — every readable, writable private mapping.
 *
 * Executable code is not copied: NT_FILE names the mapped files, and gdb and libdwfl read them.
 *
 * Of all that, only what the kernel's own core would hold (dump-filter.c: MADV_DONTDUMP,
 * coredump_filter, VM_IO, ...). Every mapping is a PT_LOAD; what is not in the core has no bytes
 * (p_filesz 0, or below p_memsz), as in the kernel's cores.
 *
 * Who reads what (writer.c): the daemon opens the task's files (mem, maps, mountinfo, pagemap,
 * smaps, coredump_filter, auxv, cmdline, comm) and reads what needs its rights: the thread table
 * (task/<tid>/syscall needs ptrace access), the process's stat and the probe's registers (its BPF
 * maps). The writer, a process of its own, closes every other fd right after the fork and enters
 * the cell (shared/cell.c) as the crashing user, or with an id of its own, before it reads a byte
 * of those files; it opens nothing of the task.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/userspace-mode.h"
#include "selfdump/core-notes.h"
#include "selfdump/proc-maps.h"
#include "selfdump/proc-threads.h"
#include "shared/tenant.h"
#include "store/core-writer.h"

#define STACK_WINDOW_MAX (1024U * 1024)
#define HEAP_REFS_MAX_PAGES 4096U

/* Full registers for a thread known by sp and pc; false if there are none. */
typedef bool (*thread_regs_fn)(void *userdata, pid_t tid, uint64_t sp, uint64_t pc, uint64_t regs[CORE_NREGS]);

struct selfdump_request {
        int proc_fd;                    /* /proc/<pid>, verified against the pidfd */
        pid_t pid;
        uid_t uid;
        gid_t gid;
        enum userspace_mode mode;
        struct core_signal signal;
        pid_t crash_tid;                /* 0: unknown (the thread group leader goes first) */
        bool have_crash_regs;
        uint64_t crash_regs[CORE_NREGS];
        thread_regs_fn thread_regs;     /* may be NULL */
        void *thread_regs_userdata;
        uint64_t max_size;              /* 0: unlimited */
        /* The writer's ids in its cell (no capability left, not dumpable), entered before it reads
         * anything of the task; 0: it stays as it is (tests). */
        uid_t run_uid;
        gid_t run_gid;
        struct tenant owner;            /* the crash's: whose stuck budget the writer counts in */
};

struct selfdump_result {
        uint64_t size;                  /* bytes of core written */
        bool truncated;                 /* cut at max_size */
        unsigned n_threads;
        unsigned n_threads_full_regs;
        size_t n_segments;
        uint64_t memory_bytes;          /* bytes of process memory in the core */
};

/* The task as the writer gets it. Opened on the daemon's side (selfdump_task_open()): the fds, the
 * thread table with its registers, the process's stat. Read in the writer's cell
 * (selfdump_task_read()): the rest, from the fds. */
struct selfdump_task {
        int mem_fd, maps_fd, mountinfo_fd, pagemap_fd, smaps_fd, filter_fd, auxv_fd, cmdline_fd, comm_fd;
        struct proc_threads threads;
        uint64_t (*thread_regs)[CORE_NREGS];    /* per thread: the probe's registers, if thread_full */
        bool *thread_full;
        struct proc_stat stat;
        /* Read in the cell: */
        struct proc_maps maps;                  /* marked remote and DAX from mountinfo, and from smaps */
        uint32_t filter;                        /* coredump_filter */
        char *auxv, *cmdline, *comm;
        size_t auxv_size, cmdline_size;
};
#define SELFDUMP_TASK_FDS 9

/* On the daemon's side: req's task opened; 0, or -errno with error filled. */
int selfdump_task_open(const struct selfdump_request *req, struct selfdump_task *ret, char *error, size_t error_size);
/* The fds of an opened task (-1 for an optional one that is not), SELFDUMP_TASK_FDS of them. */
void selfdump_task_fds(const struct selfdump_task *t, int fds[SELFDUMP_TASK_FDS]);
/* In the writer: the task's files read from its fds; nothing is opened. */
int selfdump_task_read(const struct selfdump_request *req, struct selfdump_task *t, char *error, size_t error_size);
void selfdump_task_done(struct selfdump_task *t);

/* In the writer: the core of a task read in, into w. */
int selfdump_write_task(const struct selfdump_request *req, const struct selfdump_task *t, struct core_writer *w,
                        struct selfdump_result *ret, char *error, size_t error_size);

/* The daemon's: the task opened here, the core written into w by a process of its own that starts
 * clean (store_generate_killable(): every other fd closed, the cell as req->run_uid) and that is
 * killed once *cancel is set. */
int selfdump_write_killable(const struct selfdump_request *req, struct core_writer *w, const atomic_bool *cancel,
                            struct selfdump_result *ret, char *error, size_t error_size);

/* All of it in this process (tests): the task opened, the cell entered here if req->run_uid, the
 * task read, the core written into w. On error, error says what. */
int selfdump_write(const struct selfdump_request *req, struct core_writer *w,
                         struct selfdump_result *ret, char *error, size_t error_size);
