/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "shared/syscall-filter.h"

int syscall_filter_new(uint32_t default_action, scmp_filter_ctx *ret) {
        scmp_filter_ctx ctx = seccomp_init(default_action);
        int r;

        if (!ctx)
                return -EINVAL;
        /* A call of another ABI kills the process; where libseccomp cannot tell that the kernel
         * takes SECCOMP_RET_KILL_PROCESS (it asks through seccomp(2), which a filter of the service
         * manager's may refuse), the thread: the parser has one; the daemon makes no such call. */
        r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        if (r == -EINVAL)
                r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_THREAD);
        if (r >= 0)
                r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
        /* The kernel's own errno when it refuses the filter, not libseccomp's -ECANCELED. */
        if (r >= 0)
                r = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
        if (r < 0) {
                seccomp_release(ctx);
                return r;
        }
        *ret = ctx;
        return 0;
}

int syscall_filter_resolve(const char *name) {
        int nr = seccomp_syscall_resolve_name(name);
        return nr == __NR_SCMP_ERROR ? -ENOENT : nr;
}

int syscall_filter_add(scmp_filter_ctx ctx, uint32_t action, const char *const *names, size_t n, int must_know,
                       const char **failed) {
        for (size_t i = 0; i < n; i++) {
                int nr = syscall_filter_resolve(names[i]);
                int r = 0;

                if (nr == -ENOENT)
                        r = must_know ? -ENOENT : 0;
                else
                        /* A pseudo number (this architecture lacks the call, or multiplexes it as
                         * i386's socketcall does) is libseccomp's to translate or leave out. */
                        r = seccomp_rule_add(ctx, action, nr, 0);
                if (r < 0) {
                        if (failed)
                                *failed = names[i];
                        return r;
                }
        }
        return 0;
}

int syscall_filter_load(scmp_filter_ctx ctx) {
        return seccomp_load(ctx);
}
