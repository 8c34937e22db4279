/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A crash's site key: where it crashed, told apart without unwinding, so that a repeat of a
 * signature already counted past its RateLimitBurst= is recognized without starting a
 * coredumpd-parser (crash/repeats.c keeps which site keys were unwound to which signature).
 *
 * The key is a hash of the signal, the executable (device and inode of its mapping), and the code
 * addresses of the crashing thread as module-relative places (device, inode, file offset): the
 * program counter, then the first SITE_CODE_WORDS words of the top SITE_STACK_BYTES of its stack
 * that point into an executable mapping of a file — return addresses, for the most part; the main
 * thread's stack only up to its first stack pointer (what lies above, argv, environment, auxiliary
 * vector and a random gap, differs from run to run). Module
 * relative, so the same crash in another run (other load addresses) has the same key; made of the
 * callers' addresses too, so that abort() reached from two places are two keys.
 *
 * Nothing of it is read here. The tenant's reader (`coredumpd-parser --reader`, parser/client.h)
 * reads the maps and the stack from fds opened here — a reader of maps, pagemap or mem takes the
 * task's mmap_lock, which a process sharing its memory can hold for good — and answers the words
 * and the code mappings they and the pc fall in, checked before they are used. The stack is read as
 * SITE_STACK_BYTES of opaque words, each only compared with the mappings' ranges, never followed,
 * and only where /proc/<pid>/pagemap says every page of it is in memory: the read waits for no file
 * system and no userfaultfd. A stack that is not an anonymous mapping, or a program counter outside
 * any file's code, has no key: the crash is unwound as any other.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>

#include "selfdump/probe.h"
#include "shared/tenant.h"
#include "selfdump/proc-maps.h"

#define SITE_STACK_BYTES 2048
#define SITE_CODE_WORDS 8
#define SITE_KEY_SIZE 17        /* 16 hex digits and NUL */

/* The held task, as the crash's context knows it. */
struct site_task {
        int proc_fd;                    /* its /proc/<pid>, proven to be the peer's */
        pid_t pid;
        const char *exe;                /* /proc/<pid>/exe's target, or NULL */
        int signal;
        const struct probe_crash *probe;/* the crash-context probe's record, or NULL */
        const char *tag;                /* for the log */
        const struct tenant *owner;     /* the crash's tenant: whose reader reads the maps and stack */
        uid_t reader_uid;               /* the reader's ids (parser_ids()) */
        gid_t reader_gid;
        uint64_t deadline_usec;         /* CLOCK_MONOTONIC: the reader is killed then */
};

/* The key of a crash with signal signo whose thread was at pc with the stack words words[n] (from
 * its sp up), in the task whose mappings are maps and whose executable is mapped from exe_dev,
 * exe_ino (0, 0: unknown). False, and out "", when pc is in no executable mapping of a file. */
bool site_key_compute(const struct proc_maps *maps, uint64_t exe_dev, uint64_t exe_ino, int signo, uint64_t pc,
                      const uint64_t *words, size_t n, char out[static SITE_KEY_SIZE]);

/* Has what the key needs of the held task read (its crashing thread's pc and sp from the probe, else
 * /proc's stat; its maps and the top of its stack by the reader) and computes it into out. False,
 * with out "", when it has none; why is logged (at debug level unless the reader was killed at its
 * deadline: *ret_stalled then, the task's memory does not answer): the crash is then unwound,
 * nothing is lost. */
bool site_key_take(const struct site_task *t, char out[static SITE_KEY_SIZE], bool *ret_stalled);
