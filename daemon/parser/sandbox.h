/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The parser's cell, entered before it reads a byte the crashing task controls: shared/cell.c's
 * (OOM score, resource limits, the unprivileged ids without any capability, not dumpable, no new
 * privileges), then for the parser a user namespace of its own, and an allow-list system call
 * filter: reading, mapping and closing files and memory, opening files, time, and exiting. No
 * sockets, no processes, no signals to others, no ptrace, no process_vm_*, no ioctl: the default
 * answer is EPERM, and a call of another ABI (i386's on x86-64) kills it. Built with libseccomp for
 * whatever architecture this is; where it cannot be built or loaded, sandbox_enter() fails and the
 * parser does not run. The filter is the parser's own, stacked on whatever it inherited (the unit's,
 * the daemon's): its Seccomp_filters in /proc/<pid>/status is one more than its parent's.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shared/cell.h"

enum sandbox_calls {
        SANDBOX_READ,                   /* the parser: read files and memory, nothing else */
        SANDBOX_READER,                 /* --reader: and its socket's messages (parser/reader.c) */
        SANDBOX_JOURNAL,                /* --record: and send one message to journald (AF_UNIX only) */
};

/* 0, or -errno with reason filled: the caller must then exit without parsing anything. Refuses to
 * go on as uid or gid 0 and with any capability left. */
int sandbox_enter(uid_t uid, gid_t gid, const struct cell_limits *limits, enum sandbox_calls calls, char *reason,
                  size_t reason_size);
