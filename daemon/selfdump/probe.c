/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "selfdump/probe.h"
#include "shared/cleanup.h"
#include "shared/log.h"

#if HAVE_PROBE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "selfdump/bpf/crash-context.bpf.h"
#endif

struct probe {
#if HAVE_PROBE
        struct bpf_object *obj;
        struct bpf_link *stash_link;
        struct bpf_link *crash_link;
        int stash_fd;
        int crashes_fd;
#endif
        const char *crash_symbol;
};

void probe_regs_to_core(const uint64_t pt_regs[CRASH_CONTEXT_NREGS], uint64_t regs[CORE_NREGS]) {
        memset(regs, 0, CORE_NREGS * sizeof regs[0]);
        /* user_regs_struct begins with exactly the fields of pt_regs, in the same order. */
        memcpy(regs, pt_regs, CRASH_CONTEXT_NREGS * sizeof pt_regs[0]);
}

bool probe_record_not_before(uint64_t boot_ns, uint64_t start_time_ticks) {
        long hz = sysconf(_SC_CLK_TCK);
        if (hz <= 0)
                hz = 100;
        /* start_time is rounded down to a tick, so a record of this process is never before it. */
        return boot_ns / (UINT64_C(1000000000) / (uint64_t) hz) >= start_time_ticks;
}

bool probe_is_loaded(const struct probe *p) {
        return p != NULL;
}

const char *probe_crash_symbol(const struct probe *p) {
        return p ? p->crash_symbol : NULL;
}

#if HAVE_PROBE

static int libbpf_print(enum libbpf_print_level level, const char *format, va_list ap) {
        if (level == LIBBPF_DEBUG)
                return 0;
        char line[512];
        vsnprintf(line, sizeof line, format, ap);
        size_t n = strlen(line);
        while (n > 0 && line[n - 1] == '\n')
                line[--n] = 0;
        log_debug("libbpf: %s", line);
        return 0;
}

static struct bpf_link *attach_first(struct bpf_program *prog, const char *const *symbols, const char **ret_symbol) {
        int err = ENOENT;

        for (const char *const *s = symbols; *s; s++) {
                struct bpf_link *link = bpf_program__attach_kprobe(prog, false, *s);
                if (link) {
                        *ret_symbol = *s;
                        return link;
                }
                err = errno;
        }
        errno = err;
        return NULL;
}

int probe_open(struct probe **ret) {
        static const char *const stash_symbols[] = { "arch_do_signal_or_restart", NULL };
        /* The coredump's entry: vfs_coredump since 6.16, do_coredump before. */
        static const char *const crash_symbols[] = { "vfs_coredump", "do_coredump", NULL };
        const char *what, *stash_symbol = NULL;
        int r;

        *ret = NULL;
        libbpf_set_print(libbpf_print);

        struct probe *p = calloc(1, sizeof *p);
        if (!p)
                return log_error_errno(ENOMEM, "%m");
        p->stash_fd = p->crashes_fd = -1;

        what = "open the BPF object";
        p->obj = bpf_object__open_mem(crash_context_bpf_object, sizeof crash_context_bpf_object, NULL);
        if (!p->obj)
                goto fail;
        what = "load the BPF programs (needs CAP_BPF and CAP_PERFMON)";
        if (bpf_object__load(p->obj) < 0)
                goto fail;

        struct bpf_program *stash = bpf_object__find_program_by_name(p->obj, "stash_regs");
        struct bpf_program *crash = bpf_object__find_program_by_name(p->obj, "record_crash");
        p->stash_fd = bpf_object__find_map_fd_by_name(p->obj, "stash");
        p->crashes_fd = bpf_object__find_map_fd_by_name(p->obj, "crashes");
        what = "find the programs and maps";
        if (!stash || !crash || p->stash_fd < 0 || p->crashes_fd < 0) {
                errno = ENOENT;
                goto fail;
        }

        what = "attach a kprobe to arch_do_signal_or_restart";
        p->stash_link = attach_first(stash, stash_symbols, &stash_symbol);
        if (!p->stash_link)
                goto fail;
        what = "attach a kprobe to vfs_coredump or do_coredump";
        p->crash_link = attach_first(crash, crash_symbols, &p->crash_symbol);
        if (!p->crash_link)
                goto fail;

        log_info("Crash-context probe attached (kprobes on %s and %s).", stash_symbol, p->crash_symbol);
        *ret = p;
        return 0;

fail:
        r = errno > 0 ? -errno : -EIO;
        log_full_errno(LOG_NOTICE, r, "Crash-context probe unavailable, going on without it: cannot %s: %m", what);
        probe_free(p);
        return r;
}

int probe_check_object(void) {
        struct bpf_object *obj = bpf_object__open_mem(crash_context_bpf_object, sizeof crash_context_bpf_object, NULL);
        if (!obj)
                return errno > 0 ? -errno : -EIO;
        int r = bpf_object__find_program_by_name(obj, "stash_regs") &&
                bpf_object__find_program_by_name(obj, "record_crash") &&
                bpf_object__find_map_by_name(obj, "stash") && bpf_object__find_map_by_name(obj, "crashes")
                ? 0 : -ENOENT;
        bpf_object__close(obj);
        return r;
}

struct probe *probe_free(struct probe *p) {
        if (!p)
                return NULL;
        bpf_link__destroy(p->crash_link);
        bpf_link__destroy(p->stash_link);
        bpf_object__close(p->obj);
        free(p);
        return NULL;
}

int probe_take(struct probe *p, pid_t tgid, int signo, bool si_code_known, int si_code, uint64_t start_time,
               struct probe_crash *ret) {
        struct crash_context_record rec;
        __u32 key = (__u32) tgid;

        if (!p)
                return -ENOENT;
        if (bpf_map_lookup_elem(p->crashes_fd, &key, &rec) < 0)
                return -ENOENT;
        (void) bpf_map_delete_elem(p->crashes_fd, &key);

        if (rec.tgid != (__u32) tgid || (signo > 0 && rec.signo != signo) ||
            (si_code_known && rec.si_code != si_code) || !probe_record_not_before(rec.boot_ns, start_time))
                return -ESTALE;

        *ret = (struct probe_crash) {
                .tid = (pid_t) rec.tid,
                .signo = rec.signo,
                .si_errno = rec.si_errno,
                .si_code = rec.si_code,
                .fault_addr = rec.fault_addr,
                .boot_ns = rec.boot_ns,
                .have_regs = rec.have_regs && rec.regs.boot_ns <= rec.boot_ns,
        };
        if (ret->have_regs) {
                probe_regs_to_core((const uint64_t *) rec.regs.regs, ret->regs);
                key = rec.tid;
                (void) bpf_map_delete_elem(p->stash_fd, &key);
        }
        return 0;
}

bool probe_thread_regs(struct probe *p, pid_t tid, uint64_t not_before_ns, uint64_t sp, uint64_t pc,
                       uint64_t regs[CORE_NREGS]) {
        struct crash_context_regs stashed;
        __u32 key = (__u32) tid;

        if (!p || bpf_map_lookup_elem(p->stash_fd, &key, &stashed) < 0)
                return false;
        if (stashed.boot_ns < not_before_ns ||
            (sp != 0 && stashed.regs[CRASH_CONTEXT_REG_SP] != sp) ||
            (pc != 0 && stashed.regs[CRASH_CONTEXT_REG_IP] != pc))
                return false;
        (void) bpf_map_delete_elem(p->stash_fd, &key);
        probe_regs_to_core((const uint64_t *) stashed.regs, regs);
        return true;
}

#else /* !HAVE_PROBE */

int probe_open(struct probe **ret) {
        *ret = NULL;
        log_notice("Crash-context probe unavailable, going on without it: coredumpd was built without BPF support.");
        return -EOPNOTSUPP;
}

int probe_check_object(void) {
        return -EOPNOTSUPP;
}

struct probe *probe_free(struct probe *p) {
        return NULL;
}

int probe_take(struct probe *p, pid_t tgid, int signo, bool si_code_known, int si_code, uint64_t start_time,
               struct probe_crash *ret) {
        return -ENOENT;
}

bool probe_thread_regs(struct probe *p, pid_t tid, uint64_t not_before_ns, uint64_t sp, uint64_t pc,
                       uint64_t regs[CORE_NREGS]) {
        return false;
}

#endif
