/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "parser/sandbox.h"
#include "shared/cell.h"
#include "shared/cleanup.h"

static int fail(int r, char *reason, size_t size, const char *what) {
        snprintf(reason, size, "%s: %s", what, strerror(-r));
        return r;
}

/* A user namespace of the parser's own, which maps no id, so every id the parser sees is the
 * overflow id and no capability it could gain there reaches anything of the host's. It is entered
 * after the change of ids, so the crashing user owns the namespace: that gives them no hold over the
 * parser, whose memory belongs to the namespace it was executed in (and it is not dumpable). The
 * capabilities a new user namespace grants inside are dropped at once. No network or IPC namespace
 * besides: the system call filter already refuses every socket and SysV IPC call, and the unit
 * allows only user namespaces to be made. Where the kernel or the service manager refuses
 * (user.max_user_namespaces, a user at their own namespace limit), the parser goes on without: the
 * cell's other walls stand alone. */
static int own_namespaces(void) {
        if (unshare(CLONE_NEWUSER) < 0)
                return -errno;
        return cell_drop_capabilities();
}

/* What the parser needs once it is in the cell: libc's and libelf/libdw's reading of files and
 * memory, the heap, time. */
static const unsigned allowed[] = {
        __NR_read, __NR_pread64, __NR_readv, __NR_preadv, __NR_write, __NR_writev, __NR_close,
        __NR_lseek, __NR_fstat, __NR_newfstatat, __NR_statx, __NR_fstatfs,
        __NR_fcntl, __NR_mmap, __NR_munmap, __NR_mremap, __NR_mprotect, __NR_brk, __NR_madvise,
        __NR_futex, __NR_clock_gettime, __NR_gettimeofday, __NR_getpid, __NR_gettid, __NR_getrandom,
        __NR_getuid, __NR_geteuid, __NR_getgid, __NR_getegid, __NR_getgroups,
        __NR_rt_sigreturn, __NR_rt_sigprocmask, __NR_sched_yield, __NR_exit, __NR_exit_group,
};

/* And for --record: sd_journal_sendv()'s datagram to journald, or for a large record a sealed memfd
 * passed along it. socket() only for AF_UNIX (its first argument). */
static const unsigned allowed_journal[] = {
        __NR_connect, __NR_sendmsg, __NR_sendto, __NR_setsockopt, __NR_getsockopt, __NR_memfd_create,
        __NR_ftruncate, __NR_pwrite64,
};

#if defined(__x86_64__)
#define OUR_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define OUR_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* openat() only to read: no flag that writes, creates or truncates. openat2() hides its flags in a
 * struct the filter cannot read: refused (EPERM), and task_file_open() walks the path instead. */
/* O_TMPFILE without its O_DIRECTORY (libc's __O_TMPFILE includes it): the kernel's own bit. */
#define OPEN_TMPFILE_BIT 020000000
#define OPEN_WRITING (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | OPEN_TMPFILE_BIT)

static int install_filter(enum sandbox_calls calls) {
#ifdef OUR_AUDIT_ARCH
        struct sock_filter filter[4 + 5 + 5 + 2 * (ELEMENTSOF(allowed) + ELEMENTSOF(allowed_journal)) + 1];
        size_t n = 0;

        filter[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
        filter[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, OUR_AUDIT_ARCH, 1, 0);
        filter[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
        filter[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        filter[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 4);
        filter[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2]));
        filter[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, OPEN_WRITING, 0, 1);
        filter[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
        filter[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        for (size_t i = 0; i < ELEMENTSOF(allowed); i++) {
                filter[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allowed[i], 0, 1);
                filter[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        }
        if (calls == SANDBOX_JOURNAL) {
                filter[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 4);
                filter[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
                filter[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1);
                filter[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
                filter[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
                for (size_t i = 0; i < ELEMENTSOF(allowed_journal); i++) {
                        filter[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allowed_journal[i], 0, 1);
                        filter[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
                }
        }
        filter[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
        struct sock_fprog prog = { .len = (unsigned short) n, .filter = filter };

        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
                return -errno;
#endif
        return 0;
}

int sandbox_enter(uid_t uid, gid_t gid, const struct cell_limits *limits, enum sandbox_calls calls, char *reason,
                  size_t reason_size) {
        int r = cell_enter(uid, gid, limits, reason, reason_size);
        if (r < 0)
                return r;
        /* Only the parser: --record's message must reach journald with the crashing user's ids. */
        if (calls == SANDBOX_READ) {
                r = own_namespaces();
                if (r < 0 && r != -EPERM && r != -ENOSPC && r != -EUSERS && r != -EINVAL)
                        return fail(r, reason, reason_size, "cannot enter namespaces of its own");
        }
        if (cell_holds_capabilities())
                return fail(-EPERM, reason, reason_size, "capabilities left in its own user namespace");
        r = install_filter(calls);
        if (r < 0)
                return fail(r, reason, reason_size, "cannot install the system call filter");
        return 0;
}
