/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What is known about a crashed process (struct crash_context: crash/context.c reads it,
 * crash/context-memory.c the parts that need the task's memory), gathered while the kernel holds it: from its pidfd
 * (identity, credentials, signal, dump mode) and from a /proc/<pid> directory fd that is opened
 * once and confirmed through the pidfd to still be that process.
 *
 * Strings are raw (they may contain anything but NUL): they are matched by policy as they are and
 * escaped when they are written anywhere.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "crash/authenticate.h"
#include "crash/cgroup-names.h"
#include "crash/container.h"
#include "crash/site.h"
#include "selfdump/probe.h"
#include "parser/wire.h"
#include "shared/crash-id.h"

#define RLIMIT_UNLIMITED UINT64_MAX

/* The parts of the context read from /proc, each once, when a step first needs it
 * (context_read()): the policy those its rules match on (policy_rule_needs()), a rejected crash
 * then its identity for the record, a crash that is kept all of them. */
enum context_part {
        CONTEXT_COMM            = 1u << 0,
        CONTEXT_EXE             = 1u << 1,
        CONTEXT_CGROUP          = 1u << 2,      /* cgroup path, unit, user unit, slice, container name */
        CONTEXT_RLIMIT          = 1u << 3,      /* limits: RLIMIT_CORE */
        CONTEXT_AT_SECURE       = 1u << 4,      /* auxv */
        CONTEXT_START           = 1u << 5,      /* stat: the start time; the crash id off pidfs */
        CONTEXT_PROBE           = 1u << 6,      /* the probe's record (needs START) */
        CONTEXT_CONTAINER       = 1u << 7,      /* namespaces, ids inside them (needs CGROUP) */
        /* Processes' memory: the task's command line, its container manager's. A task can back
         * that memory with a file system that never answers, or have its mmap_lock held: read by
         * the crash's reader (crash/context-memory.c), from worker threads only. */
        CONTEXT_MEMORY          = 1u << 8,
        /* COREDUMPD_CRASH_ID: known from the pidfd on pidfs, else it needs START. */
        CONTEXT_CRASH_ID        = 1u << 9,
        _CONTEXT_PART_MAX       = 1u << 10,

        /* What names a rejected crash in its record: who, what, where, and its crash id. */
        CONTEXT_IDENTITY        = CONTEXT_COMM | CONTEXT_EXE | CONTEXT_CGROUP | CONTEXT_CRASH_ID,
        /* What never blocks on a process's memory: may be read on the event loop. */
        CONTEXT_LOOP_SAFE       = _CONTEXT_PART_MAX - 1 - CONTEXT_MEMORY,
        CONTEXT_ALL             = _CONTEXT_PART_MAX - 1,
};

struct crash_context {
        bool opened;            /* context_open() succeeded: context_read() may read /proc */
        unsigned parts;         /* enum context_part read so far (or tried: what failed was logged) */
        const char *tag;        /* the crash's log tag, for what context_read() logs */
        const struct host_view *host;
        struct probe *prober;   /* the crash-context probe to take the record from, or NULL */
        uint64_t read_usec;     /* time spent opening and reading /proc so far */
        int proc_fd;            /* /proc/<pid>, proven through the pidfd to be the peer's; -1 if not */
        int root_fd;            /* the task's root when it is not ours (context_open_root()), else -1 */
        bool root_looked_at;
        pid_t pid;
        struct tenant owner;    /* struct peer's tenant: whose share of a bounded table it uses */
        uid_t uid, euid;
        gid_t gid, egid;

        char *comm;             /* /proc/pid/comm */
        char *exe;              /* /proc/pid/exe link target, maybe with " (deleted)" */
        char *cmdline;          /* /proc/pid/cmdline, already escaped (escape_cmdline) */
        /* A kept crash's /proc/pid/status, maps, limits as its reader read them, checked and
         * bounded, not escaped (the record's fields are: FIELD_ESCAPED_LINES); NULL: not read. */
        char *proc_text[READER_PROC_PARTS];
        uint64_t cgroup_id;     /* PIDFD_INFO_CGROUPID; 0: not given */
        bool cgroup_cached;     /* the path came from the table of cgroups seen before (no /proc read) */
        char *cgroup;           /* cgroup v2 path */
        char *unit;             /* systemd unit from the cgroup path, or NULL */
        char *user_unit;        /* unit inside user@.service, or NULL */
        char *slice;            /* innermost slice, or NULL */

        int signal;             /* signal that caused the dump, 0 if unknown */
        bool rlimit_known;
        uint64_t rlimit_core;   /* soft RLIMIT_CORE, RLIMIT_UNLIMITED */
        bool dumpable;          /* kernel dumped with the task's own creds (PIDFD_COREDUMP_USER) */
        int at_secure;          /* AT_SECURE from auxv: 1, 0, or -1 if unknown */

        uint64_t timestamp_usec;
        char boot_id[33];
        char hostname[65];
        char crash_id[CRASH_ID_MAX];    /* COREDUMPD_CRASH_ID (shared/crash-id.h); "" if unknown */
        struct container_info container;/* namespaces and container (crash/container.h) */
        char refused[160];              /* why the context could not be gathered, if it could not */

        /* Crash details for policy (MatchSiCode=, MatchFaultAddress=) and the self-generated core. */
        bool si_code_known;
        int si_code;            /* from the pidfd (PIDFD_INFO_COREDUMP_CODE), else from the probe */
        bool start_time_known;
        uint64_t start_time;    /* /proc/pid/stat starttime: clock ticks after boot */
        uint64_t null_page_end; /* faults below this are NULL-page faults: max(4096, vm.mmap_min_addr) */
        bool have_probe;        /* the crash-context probe saw this crash (probe_fill_context) */
        struct probe_crash probe;
        bool fault_addr_known;  /* a fault signal with a kernel-generated si_code: si_addr is an address */
        uint64_t fault_addr;

        /* Where it crashed, unwound before the ack (crash/backtrace.c). */
        bool have_unwind;
        struct unwind_result unwind;
        bool unwind_full_regs;  /* the crashing thread was unwound from the probe's registers */
        char signature[17];     /* hex; "" when the crashing thread could not be unwound */
        /* Where it crashed without unwinding (crash/site.c), before the ack: "" if unknown. */
        bool site_tried;
        char site[SITE_KEY_SIZE];
        /* The signature is the one its site was last unwound to (crash/repeats.c): a repeat past
         * its RateLimitBurst=, recognized without unwinding; have_unwind is false. */
        bool signature_by_site;
        /* The crash's reader (parser/client.h) waits this long at most (0: READER_WAIT_USEC); once
         * it was killed at that deadline, the task's memory is not read again for this crash (its
         * mmap_lock is held: a parser would wait as long). */
        uint64_t reader_wait_usec;
        bool memory_stalled;
};

/* What the context reads of the host once instead of per crash: the /proc root, checked with
 * proc_root_check(), the host's namespaces, vm.mmap_min_addr and the boot id. Read-only once opened: the
 * crashes handled at the same time share it. */
struct host_view {
        int proc_fd;                    /* the /proc root; -1: refused says why */
        int cgroup_fd;                  /* the cgroup2 root (/sys/fs/cgroup, or its unified/ on a
                                         * hybrid host); -1: none, so no container is named */
        struct cgroup_names *cgroup_names; /* the cgroups seen before, by id (crash/cgroup-names.h;
                                         * the one part that changes, under its own lock); NULL: none */
        char refused[160];
        struct host_namespaces ns;
        uint64_t null_page_end;         /* max(4096, vm.mmap_min_addr) */
        char boot_id[33];               /* "unknown" if it cannot be read */
};

/* How long the crash's reader may take for the task's memory (crash/context-memory.h). */
#define READER_WAIT_USEC (5 * UINT64_C(1000000))

/* Whether the crashing user may read its own dump: only if the kernel dumped the task as itself,
 * with uid == euid, gid == egid and AT_SECURE 0 (CVE-2022-4415). */
static inline bool context_user_may_read(const struct crash_context *c) {
        return c->dumpable && c->uid == c->euid && c->gid == c->egid && c->at_secure == 0;
}
