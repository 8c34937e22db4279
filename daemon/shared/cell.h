/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The cell a child of the daemon enters before it reads a byte a crashing task controls, shared by
 * coredumpd-parser (parser/sandbox.c adds its namespace and system call filter) and the writer of a
 * core of our own (store/writer-process.c): the OOM killer's first choice (oom_score_adj 1000, where
 * the daemon has -500); resource limits (address space, CPU seconds, open files, file size, no core
 * of its own, no locked memory, no message queues); the unprivileged uid and gid the daemon chose,
 * without supplementary groups, so that no capability is left; not dumpable, so that no process of
 * that uid may ptrace it or read its memory; no new privileges.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* RLIM_INFINITY: the process's limit is left as it is. */
struct cell_limits {
        uint64_t address_space;         /* RLIMIT_AS, bytes */
        uint64_t cpu_seconds;           /* RLIMIT_CPU */
        uint64_t open_files;            /* RLIMIT_NOFILE */
        uint64_t file_size;             /* RLIMIT_FSIZE */
};

/* 0, or -errno with reason filled: the caller must then end without reading anything. Refuses uid
 * or gid 0, and to go on with any capability left. */
int cell_enter(uid_t uid, gid_t gid, const struct cell_limits *limits, char *reason, size_t reason_size);

/* Whether any capability is permitted, effective or inheritable (true if that cannot be told). */
bool cell_holds_capabilities(void);
/* Clears every capability of this process: 0 or -errno. */
int cell_drop_capabilities(void);

/* This process's address space now (bytes; 0 if unknown): a fork of the daemon starts with the
 * daemon's mappings, so its RLIMIT_AS is this plus what it may add. */
uint64_t cell_address_space_now(void);
