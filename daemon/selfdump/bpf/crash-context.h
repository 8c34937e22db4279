/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the crash-context probe (crash-context.bpf.c) and the daemon (probe.c) share: the map
 * layouts. Plain fixed-size types, the same for the BPF target and x86-64.
 *
 * Registers are the x86-64 kernel's struct pt_regs, which is the user register set saved at kernel
 * entry: r15 r14 r13 r12 bp bx r11 r10 r9 r8 ax cx dx si di orig_ax ip cs flags sp ss.
 */

#include <linux/types.h>

#define CRASH_CONTEXT_NREGS 21
#define CRASH_CONTEXT_REG_DI 14
#define CRASH_CONTEXT_REG_IP 16
#define CRASH_CONTEXT_REG_SP 19

#define CRASH_CONTEXT_MAX_THREADS 16384
#define CRASH_CONTEXT_MAX_CRASHES 1024

/* "stash" (LRU hash, key: tid): a thread's user registers, taken each time it goes to handle a
 * signal (arch_do_signal_or_restart). */
struct crash_context_regs {
        __u64 boot_ns;                          /* bpf_ktime_get_boot_ns() when taken */
        __u64 regs[CRASH_CONTEXT_NREGS];
};

/* "crashes" (LRU hash, key: tgid): a thread group entering core dumping (do_coredump on 6.1,
 * vfs_coredump since 6.16), with the dumping thread's registers from the stash. */
struct crash_context_record {
        __u32 tgid;
        __u32 tid;
        __s32 signo;
        __s32 si_errno;
        __s32 si_code;
        __u32 have_regs;                        /* the stash held this thread's registers */
        __u64 fault_addr;                       /* siginfo's si_addr (meaningful for faults) */
        __u64 boot_ns;                          /* bpf_ktime_get_boot_ns() at the dump's entry */
        struct crash_context_regs regs;
};
