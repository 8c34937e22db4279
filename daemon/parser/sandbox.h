/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The parser's cell, entered before it reads a byte the crashing task controls: the OOM killer's
 * first choice (oom_score_adj 1000, where the daemon has -500), resource limits
 * (address space, CPU seconds, open files, no file writes, no core of its own), the unprivileged
 * uid and gid the daemon chose (no supplementary groups; the change of ids leaves it without any
 * capability and not dumpable, so that no user can ptrace it or read its memory), no new privileges,
 * and an allow-list system call filter: reading, mapping and closing files and memory, opening
 * files, time, and exiting. No sockets, no processes, no signals to others, no ptrace, no
 * process_vm_*, no ioctl: the default answer is EPERM.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sandbox_limits {
        uint64_t address_space;         /* RLIMIT_AS, bytes */
        uint64_t cpu_seconds;           /* RLIMIT_CPU */
        uint64_t open_files;            /* RLIMIT_NOFILE */
        uint64_t file_size;             /* RLIMIT_FSIZE: 0 for the parser; a record's memfd for journald */
};

enum sandbox_calls {
        SANDBOX_READ,                   /* the parser: read files and memory, nothing else */
        SANDBOX_JOURNAL,                /* --record: and send one message to journald (AF_UNIX only) */
};

/* 0, or -errno with reason filled: the caller must then exit without parsing anything. Refuses to
 * go on as uid or gid 0 and with any capability left. */
int sandbox_enter(uid_t uid, gid_t gid, const struct sandbox_limits *limits, enum sandbox_calls calls, char *reason,
                  size_t reason_size);
