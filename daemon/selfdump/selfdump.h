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
 * coredump_filter, VM_IO, ...): /proc/<pid>/smaps and coredump_filter are opened with the rest and
 * read once the writer dropped its ids. Every mapping is a PT_LOAD; what is not in the core has no
 * bytes (p_filesz 0, or below p_memsz), as in the kernel's cores.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/userspace-mode.h"
#include "selfdump/core-notes.h"
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
        /* Once the task's /proc files are open, before its memory is read, the writer becomes these
         * ids (no capability left, not dumpable); 0: it stays as it is (tests). */
        uid_t run_uid;
        gid_t run_gid;
};

struct selfdump_result {
        uint64_t size;                  /* bytes of core written */
        bool truncated;                 /* cut at max_size */
        unsigned n_threads;
        unsigned n_threads_full_regs;
        size_t n_segments;
        uint64_t memory_bytes;          /* bytes of process memory in the core */
};

/* Writes the core of req->pid into w. On error, error says what. */
int selfdump_write(const struct selfdump_request *req, struct core_writer *w,
                         struct selfdump_result *ret, char *error, size_t error_size);
