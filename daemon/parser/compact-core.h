/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The parser's side only (`coredumpd-parser --compact-core`): a small core for the journal record,
 * made from a stored one — the crash's fleet copy (COREDUMP=, what systemd-coredump's
 * Storage=journal writes and coredumpctl opens). It keeps, within a byte budget and in this order:
 * the ELF header and every note (registers of all threads, siginfo, auxv, the file map), the
 * crashing thread's stack from just below its sp up, each other thread's, the first page of every
 * mapped ELF file (its build-id: what debuginfod looks symbols up by), and whole writable segments
 * from the smallest up (a library's data, the dynamic linker's list of them). Everything else of the
 * memory is left out: gdb reads code from the files.
 *
 * The input is a core as the kernel writes it (x86-64, notes before memory), plain or zstd (by its
 * magic), read once from the front, so a pipe will do. It is the crashing task's memory: every
 * length and offset is checked against the file and the budget before it is believed, and a core
 * cut short (MaxSize=) gives what it holds.
 */

#include <stddef.h>
#include <stdint.h>

#include "parser/wire.h"

struct compact_limits {
        uint64_t max_size;              /* the compact core, all of it */
        uint64_t crash_stack;           /* of the crashing thread's stack, from just below its sp */
        uint64_t thread_stack;          /* of every other thread's */
        uint64_t small_segment;         /* writable segments up to this size may be kept whole */
};

/* The default per-stack and segment bounds (max_size is the operator's JournalSizeMax=). */
#define COMPACT_CRASH_STACK (UINT64_C(128) * 1024)
#define COMPACT_THREAD_STACK (UINT64_C(16) * 1024)
#define COMPACT_SMALL_SEGMENT (UINT64_C(64) * 1024)

/* Reads the core from fd and writes the compact core to out_fd. 0, or -errno with reason:
 * -EBADMSG (not an x86-64 ELF core, notes after memory, a note or header out of bounds), -E2BIG
 * (the header and notes alone exceed max_size), -EIO. */
int compact_core(int fd, int out_fd, const struct compact_limits *lim, char *reason, size_t reason_size);
