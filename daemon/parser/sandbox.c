/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "parser/sandbox.h"
#include "selfdump/proc-maps.h"
#include "shared/cell.h"
#include "shared/cleanup.h"
#include "shared/syscall-filter.h"

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
 * memory, the heap, time. By name, for libseccomp to resolve on each architecture: the 32-bit
 * architectures' own spellings of the same calls (fstat64, _llseek, mmap2, fcntl64, the *32 ids, the
 * time64 ones) name nothing on a 64-bit one. */
static const char *const allowed[] = {
        "read", "pread64", "readv", "preadv", "write", "writev", "close",
        "lseek", "_llseek", "fstat", "fstat64", "newfstatat", "fstatat64", "statx", "fstatfs", "fstatfs64",
        "fcntl", "fcntl64", "mmap", "mmap2", "munmap", "mremap", "mprotect", "brk", "madvise",
        "futex", "futex_time64", "clock_gettime", "clock_gettime64", "gettimeofday", "getpid", "gettid", "getrandom",
        "getuid", "geteuid", "getgid", "getegid", "getgroups",
        "getuid32", "geteuid32", "getgid32", "getegid32", "getgroups32",
        "rt_sigreturn", "sigreturn", "rt_sigprocmask", "sched_yield", "exit", "exit_group",
};

/* And for --record: sd_journal_sendv()'s datagram to journald, or for a large record a sealed memfd
 * passed along it. socket() only for AF_UNIX (its first argument). */
static const char *const allowed_journal[] = {
        "connect", "sendmsg", "sendto", "setsockopt", "getsockopt", "memfd_create",
        "ftruncate", "ftruncate64", "pwrite64",
};

/* And for --reader: its requests and the task's fds in, its answers out, on the socket it was
 * started with (no socket of its own); waiting for the next request, up to its idle end. */
static const char *const allowed_reader[] = {
        "recvmsg", "sendmsg", "poll", "ppoll", "ppoll_time64",
};

/* openat() only to read: no flag that writes, creates or truncates. openat2() hides its flags in a
 * struct the filter cannot read: refused (EPERM), and task_file_open() walks the path instead.
 * O_TMPFILE without its O_DIRECTORY (libc's O_TMPFILE includes it): the kernel's own bit, which
 * differs between architectures as the others do. */
#define OPEN_WRITING (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY))

static int filter_fail(int r, char *reason, size_t size, const char *what, const char *name) {
        snprintf(reason, size, "cannot build the system call filter: %s%s%s: %s", what, name ? " " : "",
                 name ? name : "", strerror(-r));
        return r;
}

/* An allow-list: everything else is answered EPERM, a call of another ABI kills the process
 * (shared/syscall-filter.c). One filter, loaded last: /proc/<pid>/status shows the parser with one
 * more in Seccomp_filters than the daemon that started it. */
static int install_filter(enum sandbox_calls calls, char *reason, size_t size) {
        scmp_filter_ctx ctx = NULL;
        const char *name = NULL;
        int r;

        r = syscall_filter_new(SCMP_ACT_ERRNO(EPERM), &ctx);
        if (r < 0)
                return filter_fail(r, reason, size, "libseccomp", NULL);
        r = syscall_filter_add(ctx, SCMP_ACT_ALLOW, allowed, ELEMENTSOF(allowed), false, &name);
        if (r < 0)
                goto fail;
        name = "openat";
        r = syscall_filter_resolve(name);
        if (r != -ENOENT) /* a pseudo number included */
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, OPEN_WRITING, 0));
        if (r < 0)
                goto fail;
        if (calls == SANDBOX_READER) {
                r = syscall_filter_add(ctx, SCMP_ACT_ALLOW, allowed_reader, ELEMENTSOF(allowed_reader), false, &name);
                if (r < 0)
                        goto fail;
        }
        if (calls == SANDBOX_JOURNAL) {
                r = syscall_filter_add(ctx, SCMP_ACT_ALLOW, allowed_journal, ELEMENTSOF(allowed_journal), false,
                                       &name);
                if (r < 0)
                        goto fail;
                name = "socket";
                r = syscall_filter_resolve(name);
                if (r != -ENOENT) /* a pseudo number included */
                        r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r, 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
                if (r < 0)
                        goto fail;
        }
        r = syscall_filter_load(ctx);
        seccomp_release(ctx);
        if (r < 0) {
                snprintf(reason, size, "cannot install the system call filter: %s", strerror(-r));
                return r;
        }
        return 0;
fail:
        seccomp_release(ctx);
        return filter_fail(r, reason, size, "rule for", name);
}

int sandbox_enter(uid_t uid, gid_t gid, const struct cell_limits *limits, enum sandbox_calls calls, char *reason,
                  size_t reason_size) {
        /* Before the cell and its filter: our own mountinfo opened, the kernel's tmpfs device learned
         * (proc-maps.h: which of the task's files are local). */
        proc_maps_prepare();
        int r = cell_enter(uid, gid, limits, reason, reason_size);
        if (r < 0)
                return r;
        /* Only the parser: --record's message must reach journald with the crashing user's ids. */
        if (calls == SANDBOX_READ || calls == SANDBOX_READER) {
                r = own_namespaces();
                if (r < 0 && r != -EPERM && r != -ENOSPC && r != -EUSERS && r != -EINVAL)
                        return fail(r, reason, reason_size, "cannot enter namespaces of its own");
        }
        if (cell_holds_capabilities())
                return fail(-EPERM, reason, reason_size, "capabilities left in its own user namespace");
        /* Fail closed: without its filter the parser does not run (parser/main.c answers the error
         * and exits before it reads a byte of the task's). */
        return install_filter(calls, reason, reason_size);
}
