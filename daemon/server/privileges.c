/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server/privileges.h"
#include "shared/cleanup.h"
#include "shared/log.h"

/*
 * Kept for serving crashes: CAP_SYS_PTRACE for ptrace access to /proc/<pid>/{exe,auxv,mem} of any
 * user's process, CAP_DAC_READ_SEARCH to open those files, which are the process owner's 0400/0600;
 * CAP_SETUID and CAP_SETGID only for coredumpd-parser to become the crashing user (or nobody)
 * before it reads a byte of the task's (parser/sandbox.c): the daemon itself never changes ids;
 * CAP_KILL only to end such a child at its deadline (once it is another user, nothing else may).
 */
static const unsigned kept_capabilities[] = { CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_SETUID, CAP_SETGID, CAP_KILL };

static bool kept(unsigned cap) {
        for (size_t i = 0; i < ELEMENTSOF(kept_capabilities); i++)
                if (kept_capabilities[i] == cap)
                        return true;
        return false;
}

static int cap_get(struct __user_cap_data_struct data[2]) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };

        return syscall(SYS_capget, &header, data) < 0 ? -errno : 0;
}

static int cap_set(struct __user_cap_data_struct data[2]) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };

        return syscall(SYS_capset, &header, data) < 0 ? -errno : 0;
}

static bool cap_in(const struct __user_cap_data_struct data[2], unsigned cap, bool permitted) {
        uint32_t set = permitted ? data[CAP_TO_INDEX(cap)].permitted : data[CAP_TO_INDEX(cap)].effective;
        return set & CAP_TO_MASK(cap);
}

/* Whether we hold, in the permitted set, anything beyond what we keep. */
static bool holds_more(const struct __user_cap_data_struct data[2]) {
        for (unsigned cap = 0; cap <= CAP_LAST_CAP; cap++)
                if (!kept(cap) && cap_in(data, cap, true))
                        return true;
        return false;
}

/* Drops every capability but the kept ones from the bounding set: nothing executed later, and no
 * file capability, can bring them back. Needs CAP_SETPCAP in the effective set. */
static int drop_bounding_set(void) {
        for (unsigned cap = 0; cap <= CAP_LAST_CAP; cap++) {
                if (kept(cap) || prctl(PR_CAPBSET_READ, cap) != 1)
                        continue;
                if (prctl(PR_CAPBSET_DROP, cap) < 0)
                        return -errno;
        }
        return 0;
}

#if defined(__x86_64__)
#define OUR_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define OUR_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/*
 * After setup, the kernel interfaces that only setup needed are closed for good: perf_event_open
 * entirely, and of bpf() only the map reads and deletes the probe does per crash remain. The unit's
 * SystemCallFilter= must allow both for setup, so this filter narrows them afterwards.
 */
static int install_syscall_filter(void) {
#ifdef OUR_AUDIT_ARCH
        struct sock_filter filter[] = {
                /*  0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                /*  1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, OUR_AUDIT_ARCH, 1, 0),
                /*  2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
                /*  3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                /*  4 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),  /* x32 numbers */
                /*  5 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                /*  6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
                /*  7 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                /*  8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_bpf, 0, 5),
                /* bpf(cmd, ...): the command is the first argument (its low 32 bits). */
                /*  9 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
                /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BPF_MAP_LOOKUP_ELEM, 3, 0),
                /* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BPF_MAP_DELETE_ELEM, 2, 0),
                /* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BPF_MAP_GET_NEXT_KEY, 1, 0),
                /* 13 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                /* 14 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = ELEMENTSOF(filter), .filter = filter };

        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
        /* prctl(), not seccomp(2), which the unit's own filter does not allow. It binds the calling
         * thread: this runs before any other thread exists, and every later one inherits it. */
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
                return -errno;
        return 0;
#else
        log_notice("No system call filter on this architecture: bpf() and perf_event_open() stay open.");
        return 0;
#endif
}

int privileges_drop_setup_capabilities(void) {
        struct __user_cap_data_struct data[2] = {};
        uint32_t keep[2] = {};
        int r;

        for (size_t i = 0; i < ELEMENTSOF(kept_capabilities); i++)
                keep[CAP_TO_INDEX(kept_capabilities[i])] |= CAP_TO_MASK(kept_capabilities[i]);

        r = cap_get(data);
        if (r < 0)
                return log_error_errno(r, "Cannot read our capabilities: %m");

        /* Without any capability beyond the kept ones (an unprivileged test run) there is nothing
         * to bound; otherwise the bounding set must shrink, which CAP_SETPCAP allows. */
        if (holds_more(data)) {
                r = drop_bounding_set();
                if (r < 0)
                        return log_error_errno(r, "Cannot drop the setup capabilities from the bounding set%s: %m",
                                               cap_in(data, CAP_SETPCAP, false) ? "" : " (CAP_SETPCAP is missing)");
        }

        r = install_syscall_filter();
        if (r < 0)
                return log_error_errno(r, "Cannot install the system call filter: %m");

        for (unsigned i = 0; i < 2; i++) {
                data[i].permitted &= keep[i];
                data[i].effective &= keep[i];
                data[i].inheritable = 0;
        }
        r = cap_set(data);
        if (r < 0)
                return log_error_errno(r, "Cannot drop the capabilities used for setting up: %m");
        (void) prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
        return 0;
}
