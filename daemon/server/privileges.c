/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server/privileges.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/syscall-filter.h"

/*
 * Kept for serving crashes: CAP_SYS_PTRACE for ptrace access to /proc/<pid>/{exe,auxv,mem} of any
 * user's process, CAP_DAC_READ_SEARCH to open those files, which are the process owner's 0400/0600;
 * CAP_SETUID and CAP_SETGID only for coredumpd-parser to become the crashing user (or an id of its
 * own, shared/cell-ids.h) before it reads a byte of the task's (parser/sandbox.c): the daemon itself never changes ids;
 * CAP_KILL only to end such a child at its deadline (once it is another user, nothing else may).
 * CAP_CHECKPOINT_RESTORE is passed on, never used: permitted but not effective here (the unit's
 * NoNewPrivileges= lets an executed program have only what its parent permits), so that the
 * parser, before it enters its cell, may follow the links of /proc/<pid>/map_files (the kernel's
 * condition: it or CAP_SYS_ADMIN): the mapped files themselves, reached without walking a path
 * through mounts the crasher may have made (parser/map-files.h). Following them takes the task's
 * mmap_lock, which a CLONE_VM sibling may hold: the killable parser waits there, never the daemon.
 */
static const unsigned kept_capabilities[] = { CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_SETUID, CAP_SETGID, CAP_KILL,
                                              CAP_CHECKPOINT_RESTORE };
/* Of those, the ones only permitted (for the parser), not effective. */
static const unsigned passed_on_capabilities[] = { CAP_CHECKPOINT_RESTORE };

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

/*
 * What the unit's SystemCallFilter= denies, denied again by a filter of the daemon's own, so that it
 * holds wherever the daemon runs (started by hand with --listen, by another service manager, in a
 * test): systemd's @obsolete, @swap, @reboot, @module, @mount, @raw-io, @clock and @cpu-emulation
 * (as systemd 252 lists them), and every way into another process's memory but the
 * /proc/<pid>/mem the daemon opened. None of it is anything the daemon, its parser or its core
 * writers call; all of them inherit this filter.
 */
static const char *const denied[] = {
        /* @obsolete */
        "_sysctl", "afs_syscall", "bdflush", "break", "create_module", "ftime", "get_kernel_syms", "getpmsg",
        "gtty", "idle", "lock", "mpx", "prof", "profil", "putpmsg", "query_module", "security", "sgetmask",
        "ssetmask", "stime", "stty", "sysfs", "tuxcall", "ulimit", "uselib", "ustat", "vserver",
        /* @swap, @reboot, @module */
        "swapoff", "swapon", "kexec_file_load", "kexec_load", "reboot", "delete_module", "finit_module",
        "init_module",
        /* @mount */
        "chroot", "fsconfig", "fsmount", "fsopen", "fspick", "mount", "mount_setattr", "move_mount", "open_tree",
        "pivot_root", "umount", "umount2",
        /* @raw-io */
        "ioperm", "iopl", "pciconfig_iobase", "pciconfig_read", "pciconfig_write", "s390_pci_mmio_read",
        "s390_pci_mmio_write",
        /* @clock */
        "adjtimex", "clock_adjtime", "clock_adjtime64", "clock_settime", "clock_settime64", "settimeofday",
        /* @cpu-emulation */
        "modify_ldt", "subpage_prot", "switch_endian", "vm86", "vm86old",
        /* another process's memory and files */
        "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
        /* setup's: attaching the probe is done (below) */
        "perf_event_open",
};

/*
 * After setup, the kernel interfaces that only setup needed are closed for good: perf_event_open
 * entirely, and of bpf() only the map reads and deletes the probe does per crash remain
 * (selfdump/probe.c: its own maps or the pinned ones, opened at setup). The unit's SystemCallFilter=
 * must allow both for setup, so this filter narrows them afterwards. A deny-list: the answer is
 * EPERM, as the unit's SystemCallErrorNumber=; a call of another ABI kills the daemon.
 */
int privileges_install_syscall_filter(void) {
        scmp_filter_ctx ctx = NULL;
        const char *name = NULL;
        int r;

        r = syscall_filter_new(SCMP_ACT_ALLOW, &ctx);
        if (r < 0)
                return log_error_errno(r, "Cannot build the system call filter with libseccomp: %m");
        /* Every name must be known to libseccomp: one it cannot resolve could not be denied. */
        r = syscall_filter_add(ctx, SCMP_ACT_ERRNO(EPERM), denied, ELEMENTSOF(denied), true, &name);
        if (r >= 0) {
                /* bpf(cmd, ...): the command is the first argument. */
                name = "bpf";
                int nr = syscall_filter_resolve(name);
                r = nr == -ENOENT ? nr : 0;
                if (r >= 0)
                        r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, SCMP_A0(SCMP_CMP_LT, BPF_MAP_LOOKUP_ELEM));
                if (r >= 0)
                        r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, SCMP_A0(SCMP_CMP_EQ, BPF_MAP_UPDATE_ELEM));
                if (r >= 0)
                        r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, SCMP_A0(SCMP_CMP_GT, BPF_MAP_GET_NEXT_KEY));
        }
        if (r < 0) {
                seccomp_release(ctx);
                return log_error_errno(r, "Cannot build the system call filter (%s): %m", name);
        }
        /* It binds the calling thread: this runs before any other thread exists, and every later
         * one inherits it. Loaded with seccomp(2) where allowed, else prctl() (libseccomp). */
        r = syscall_filter_load(ctx);
        seccomp_release(ctx);
        if (r < 0)
                return log_error_errno(r, "Cannot load the system call filter: %m");
        return 0;
}

int privileges_drop_setup_capabilities(void) {
        struct __user_cap_data_struct data[2] = {};
        uint32_t keep[2] = {};
        int r;

        uint32_t effective[2] = {};
        for (size_t i = 0; i < ELEMENTSOF(kept_capabilities); i++)
                keep[CAP_TO_INDEX(kept_capabilities[i])] |= CAP_TO_MASK(kept_capabilities[i]);
        memcpy(effective, keep, sizeof effective);
        for (size_t i = 0; i < ELEMENTSOF(passed_on_capabilities); i++)
                effective[CAP_TO_INDEX(passed_on_capabilities[i])] &= ~CAP_TO_MASK(passed_on_capabilities[i]);

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

        r = privileges_install_syscall_filter();
        if (r < 0)
                return r;

        for (unsigned i = 0; i < 2; i++) {
                data[i].permitted &= keep[i];
                data[i].effective &= effective[i];
                data[i].inheritable = 0;
        }
        r = cap_set(data);
        if (r < 0)
                return log_error_errno(r, "Cannot drop the capabilities used for setting up: %m");
        (void) prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
        return 0;
}
