/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
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

/* What the daemon keeps of the probe: the two maps and the two attachments, as descriptors. The
 * object was opened, loaded and attached by a short-lived child (probe_open()), so that libbpf's
 * parse of the kernel's BTF (several MiB at its peak) never counts against the daemon's memory. */
struct probe {
        int stash_fd;
        int crashes_fd;
        int link_fds[2];                /* the kprobes stay attached while these are open */
        char crash_symbol[64];
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

struct probe *probe_free(struct probe *p) {
        if (!p)
                return NULL;
        safe_close(p->stash_fd);
        safe_close(p->crashes_fd);
        safe_close(p->link_fds[0]);
        safe_close(p->link_fds[1]);
        free(p);
        return NULL;
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

static struct probe *probe_new(void) {
        struct probe *p = calloc(1, sizeof *p);
        if (p)
                p->stash_fd = p->crashes_fd = p->link_fds[0] = p->link_fds[1] = -1;
        return p;
}

/* The loader's report to the daemon: the names, or why it failed; the fds ride along. */
struct probe_report {
        int error;                      /* positive errno, 0 on success */
        char what[96];                  /* what failed */
        char stash_symbol[64];
        char crash_symbol[64];
};

#define PROBE_FDS 4                     /* stash map, crashes map, stash link, crash link */
#define PROBE_LOAD_TIMEOUT_MS 30000

/* In the child: open, load, attach; report with the four descriptors. Never returns. */
static _Noreturn void probe_load_child(int sock) {
        static const char *const stash_symbols[] = { "arch_do_signal_or_restart", NULL };
        /* The coredump's entry: vfs_coredump since 6.16, do_coredump before. */
        static const char *const crash_symbols[] = { "vfs_coredump", "do_coredump", NULL };
        struct probe_report rep = {};
        const char *what, *stash_symbol = NULL, *crash_symbol = NULL;
        int fds[PROBE_FDS] = { -1, -1, -1, -1 };
        struct bpf_link *stash_link = NULL, *crash_link = NULL;
        struct bpf_program *stash, *crash;

        libbpf_set_print(libbpf_print);
        what = "open the BPF object";
        struct bpf_object *obj = bpf_object__open_mem(crash_context_bpf_object, sizeof crash_context_bpf_object, NULL);
        if (!obj)
                goto fail;
        what = "load the BPF programs (needs CAP_BPF and CAP_PERFMON)";
        if (bpf_object__load(obj) < 0)
                goto fail;

        stash = bpf_object__find_program_by_name(obj, "stash_regs");
        crash = bpf_object__find_program_by_name(obj, "record_crash");
        fds[0] = bpf_object__find_map_fd_by_name(obj, "stash");
        fds[1] = bpf_object__find_map_fd_by_name(obj, "crashes");
        what = "find the programs and maps";
        if (!stash || !crash || fds[0] < 0 || fds[1] < 0) {
                errno = ENOENT;
                goto fail;
        }
        what = "attach a kprobe to arch_do_signal_or_restart";
        stash_link = attach_first(stash, stash_symbols, &stash_symbol);
        if (!stash_link)
                goto fail;
        what = "attach a kprobe to vfs_coredump or do_coredump";
        crash_link = attach_first(crash, crash_symbols, &crash_symbol);
        if (!crash_link)
                goto fail;
        fds[2] = bpf_link__fd(stash_link);
        fds[3] = bpf_link__fd(crash_link);
        what = "hand the probe to the daemon";
        if (fds[2] < 0 || fds[3] < 0) {
                errno = EBADF;
                goto fail;
        }
        snprintf(rep.stash_symbol, sizeof rep.stash_symbol, "%s", stash_symbol);
        snprintf(rep.crash_symbol, sizeof rep.crash_symbol, "%s", crash_symbol);
        goto send;

fail:
        rep.error = errno > 0 ? errno : EIO;
        snprintf(rep.what, sizeof rep.what, "%s", what);
send:;
        struct iovec iov = { .iov_base = &rep, .iov_len = sizeof rep };
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int) * PROBE_FDS)];
        } control = {};
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        if (rep.error == 0) {
                mh.msg_control = control.buf;
                mh.msg_controllen = sizeof control.buf;
                struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
                cm->cmsg_level = SOL_SOCKET;
                cm->cmsg_type = SCM_RIGHTS;
                cm->cmsg_len = CMSG_LEN(sizeof(int) * PROBE_FDS);
                memcpy(CMSG_DATA(cm), fds, sizeof(int) * PROBE_FDS);
        }
        /* Leave without libbpf's destructors: the attachments live on in the daemon's copies. */
        _exit(sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t) sizeof rep ? 0 : 1);
}

/* In the daemon: the child's report and descriptors, within PROBE_LOAD_TIMEOUT_MS. */
static int probe_receive(int sock, struct probe *p, struct probe_report *rep) {
        struct pollfd pfd = { .fd = sock, .events = POLLIN };
        int n = poll(&pfd, 1, PROBE_LOAD_TIMEOUT_MS);
        if (n <= 0)
                return n == 0 ? -ETIMEDOUT : -errno;

        struct iovec iov = { .iov_base = rep, .iov_len = sizeof *rep };
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int) * PROBE_FDS)];
        } control = {};
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof control.buf };
        ssize_t k = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        if (k < 0)
                return -errno;
        int fds[PROBE_FDS] = { -1, -1, -1, -1 };
        bool have_fds = false;
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
                if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
                    cm->cmsg_len == CMSG_LEN(sizeof(int) * PROBE_FDS)) {
                        memcpy(fds, CMSG_DATA(cm), sizeof fds);
                        have_fds = true;
                }
        if (k != (ssize_t) sizeof *rep || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
                for (int i = 0; i < PROBE_FDS; i++)
                        safe_close(fds[i]);
                return -EBADMSG;
        }
        rep->what[sizeof rep->what - 1] = rep->stash_symbol[sizeof rep->stash_symbol - 1] =
                rep->crash_symbol[sizeof rep->crash_symbol - 1] = 0;
        if (rep->error != 0 || !have_fds) {
                for (int i = 0; i < PROBE_FDS; i++)
                        safe_close(fds[i]);
                return rep->error > 0 ? -rep->error : -EBADMSG;
        }
        p->stash_fd = fds[0];
        p->crashes_fd = fds[1];
        p->link_fds[0] = fds[2];
        p->link_fds[1] = fds[3];
        snprintf(p->crash_symbol, sizeof p->crash_symbol, "%s", rep->crash_symbol);
        return 0;
}

int probe_open(struct probe **ret) {
        struct probe_report rep = {};
        int pair[2], r;

        *ret = NULL;
        struct probe *p = probe_new();
        if (!p)
                return log_error_errno(ENOMEM, "%m");
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
                r = log_error_errno(errno, "Crash-context probe unavailable: cannot make a socket pair: %m");
                probe_free(p);
                return r;
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
                r = log_error_errno(errno, "Crash-context probe unavailable: cannot fork its loader: %m");
                safe_close(pair[0]);
                safe_close(pair[1]);
                probe_free(p);
                return r;
        }
        if (pid == 0) {
                log_after_fork();
                safe_close(pair[0]);
                probe_load_child(pair[1]);
        }
        safe_close(pair[1]);
        r = probe_receive(pair[0], p, &rep);
        safe_close(pair[0]);
        if (r == -ETIMEDOUT)
                (void) kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        if (r < 0) {
                log_full_errno(LOG_NOTICE, r, "Crash-context probe unavailable, going on without it: cannot %s: %m",
                               rep.what[0] ? rep.what : "load it in a child process");
                probe_free(p);
                return r;
        }
        log_info("Crash-context probe attached (kprobes on %s and %s).", rep.stash_symbol, p->crash_symbol);
        *ret = p;
        return 0;
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

int probe_take(struct probe *p, pid_t tgid, int signo, bool si_code_known, int si_code, uint64_t start_time,
               struct probe_crash *ret) {
        return -ENOENT;
}

bool probe_thread_regs(struct probe *p, pid_t tid, uint64_t not_before_ns, uint64_t sp, uint64_t pc,
                       uint64_t regs[CORE_NREGS]) {
        return false;
}

#endif
