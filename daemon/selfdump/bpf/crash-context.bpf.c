// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The crash-context probe: for every thread group that enters core dumping, the signal, si_code,
 * fault address, dumping thread and that thread's user registers, into a map the daemon reads when
 * the kernel connects. No BTF/CO-RE: our 6.1 kernel has no BTF, so everything read is fixed ABI —
 * the kprobe context (struct pt_regs, x86-64), the first argument register, and the leading fields
 * of kernel_siginfo_t (si_signo, si_errno, si_code, then the union, si_addr at offset 16).
 *
 * Attach points (the daemon attaches them by name; see probe.c):
 *   stash_regs     kprobe on arch_do_signal_or_restart(struct pt_regs *regs)
 *   record_crash   kprobe on do_coredump(const kernel_siginfo_t *) (≤ 6.15)
 *                  or vfs_coredump(const kernel_siginfo_t *) (≥ 6.16)
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "crash-context.h"

char LICENSE[] SEC("license") = "GPL";

struct {
        __uint(type, BPF_MAP_TYPE_LRU_HASH);
        __uint(max_entries, CRASH_CONTEXT_MAX_THREADS);
        __type(key, __u32);
        __type(value, struct crash_context_regs);
} stash SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_LRU_HASH);
        __uint(max_entries, CRASH_CONTEXT_MAX_CRASHES);
        __type(key, __u32);
        __type(value, struct crash_context_record);
} crashes SEC(".maps");

/* The kprobe context is the kernel's struct pt_regs; its first argument is in di. */
static __always_inline __u64 first_argument(void *ctx) {
        return ((const __u64 *) ctx)[CRASH_CONTEXT_REG_DI];
}

/* Per-CPU scratch: the values are too big to build on the 512-byte BPF stack together. */
struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, 1);
        __type(key, __u32);
        __type(value, struct crash_context_record);
} scratch SEC(".maps");

SEC("kprobe")
int stash_regs(void *ctx) {
        __u32 zero = 0;
        struct crash_context_record *s = bpf_map_lookup_elem(&scratch, &zero);
        const void *user_regs = (const void *) first_argument(ctx);
        __u32 tid = (__u32) bpf_get_current_pid_tgid();

        if (!s || !user_regs)
                return 0;
        if (bpf_probe_read_kernel(s->regs.regs, sizeof s->regs.regs, user_regs) < 0)
                return 0;
        s->regs.boot_ns = bpf_ktime_get_boot_ns();
        bpf_map_update_elem(&stash, &tid, &s->regs, BPF_ANY);
        return 0;
}

SEC("kprobe")
int record_crash(void *ctx) {
        __u32 zero = 0;
        struct crash_context_record *rec = bpf_map_lookup_elem(&scratch, &zero);
        const void *siginfo = (const void *) first_argument(ctx);
        __u64 pid_tgid = bpf_get_current_pid_tgid();
        __s32 head[3];          /* si_signo, si_errno, si_code */
        __u64 addr = 0;

        if (!rec || !siginfo)
                return 0;
        if (bpf_probe_read_kernel(head, sizeof head, siginfo) < 0)
                return 0;
        (void) bpf_probe_read_kernel(&addr, sizeof addr, (const char *) siginfo + 16);

        __builtin_memset(rec, 0, sizeof *rec);
        rec->tgid = (__u32) (pid_tgid >> 32);
        rec->tid = (__u32) pid_tgid;
        rec->signo = head[0];
        rec->si_errno = head[1];
        rec->si_code = head[2];
        rec->fault_addr = addr;
        rec->boot_ns = bpf_ktime_get_boot_ns();

        __u32 tid = rec->tid;
        const struct crash_context_regs *regs = bpf_map_lookup_elem(&stash, &tid);
        if (regs) {
                rec->regs = *regs;
                rec->have_regs = 1;
        }
        __u32 tgid = rec->tgid;
        bpf_map_update_elem(&crashes, &tgid, rec, BPF_ANY);
        return 0;
}
