/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The PT_NOTE contents of a self-generated core, laid out as the kernel's ELF core writer lays
 * them out (owner "CORE", 4-byte alignment): NT_PRSTATUS per thread (the crashing one first),
 * NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE. The records use libc's <sys/procfs.h> types and
 * elfutils' GElf_Nhdr; core-elf.c hands the buffer to libelf as ELF_T_NHDR data.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "selfdump/proc-maps.h"
#include "selfdump/proc-threads.h"

/* x86-64 user_regs_struct, in order: r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi
 * orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs. The first 21 are struct pt_regs. */
#define CORE_NREGS 27
#define CORE_REG_RBP 4
#define CORE_REG_RIP 16
#define CORE_REG_CS 17
#define CORE_REG_EFLAGS 18
#define CORE_REG_RSP 19
#define CORE_REG_SS 20

struct note_buffer {
        uint8_t *data;
        size_t size, allocated;
};

void note_buffer_done(struct note_buffer *b);
/* Appends one note: header, owner name, descriptor, each padded to 4 bytes. */
int note_append(struct note_buffer *b, const char *owner, uint32_t type, const void *desc, size_t desc_size);

struct core_signal {
        int signo, si_errno, si_code;
        bool have_addr;
        uint64_t addr;
};

/* NT_PRSTATUS of one thread. */
int note_append_prstatus(struct note_buffer *b, pid_t tid, const struct proc_stat *stat, int cursig,
                         const uint64_t regs[CORE_NREGS]);
/* NT_PRPSINFO of the process. */
int note_append_prpsinfo(struct note_buffer *b, pid_t pid, const struct proc_stat *stat, uid_t uid, gid_t gid,
                         const char *comm, const char *cmdline_raw, size_t cmdline_size);
/* NT_SIGINFO: the signal that caused the dump. */
int note_append_siginfo(struct note_buffer *b, const struct core_signal *sig);
/* NT_AUXV: the raw auxiliary vector. */
int note_append_auxv(struct note_buffer *b, const void *auxv, size_t size);
/* NT_FILE: every file mapping (start, end, offset in pages, path). */
int note_append_file(struct note_buffer *b, const struct proc_maps *maps, uint64_t page_size);

/* Registers of a thread known only by sp and pc (cs/ss of a 64-bit user task). */
void core_regs_from_sp_pc(uint64_t regs[CORE_NREGS], uint64_t sp, uint64_t pc);
