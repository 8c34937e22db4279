/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shared/cell.h"
#include "shared/cleanup.h"

static int fail(int r, char *reason, size_t size, const char *what) {
        snprintf(reason, size, "%s: %s", what, strerror(-r));
        return r;
}

static int limit(int resource, uint64_t value) {
        struct rlimit rl = { .rlim_cur = value, .rlim_max = value };

        /* No bound of the cell's own: the one there stays (raising it would need CAP_SYS_RESOURCE,
         * which the daemon does not have). */
        if (value == RLIM_INFINITY)
                return 0;
        return setrlimit(resource, &rl) < 0 ? -errno : 0;
}

static int set_limits(const struct cell_limits *l) {
        int r = 0;
        r = r ?: limit(RLIMIT_AS, l->address_space);
        r = r ?: limit(RLIMIT_CPU, l->cpu_seconds);
        r = r ?: limit(RLIMIT_NOFILE, l->open_files);
        r = r ?: limit(RLIMIT_FSIZE, l->file_size);
        r = r ?: limit(RLIMIT_CORE, 0);
        r = r ?: limit(RLIMIT_MEMLOCK, 0);
        r = r ?: limit(RLIMIT_MSGQUEUE, 0);
        return r;
}

int cell_drop_capabilities(void) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[2] = {};

        return syscall(SYS_capset, &header, data) < 0 ? -errno : 0;
}

bool cell_holds_capabilities(void) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[2] = {};

        if (syscall(SYS_capget, &header, data) < 0)
                return true; /* cannot tell: as if it did */
        for (size_t i = 0; i < 2; i++)
                if (data[i].permitted || data[i].effective || data[i].inheritable)
                        return true;
        return false;
}

uint64_t cell_address_space_now(void) {
        char buf[128];
        unsigned long long pages;
        _cleanup_close_ int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);

        if (n <= 0)
                return 0;
        buf[n] = 0;
        if (sscanf(buf, "%llu", &pages) != 1)
                return 0;
        return (uint64_t) pages * (uint64_t) sysconf(_SC_PAGESIZE);
}

int cell_enter(uid_t uid, gid_t gid, const struct cell_limits *limits, char *reason, size_t reason_size) {
        int r;

        if (uid == 0 || gid == 0)
                return fail(-EPERM, reason, reason_size, "refusing to enter the cell as uid or gid 0");
        /* Raising one's own OOM score needs no privilege. */
        int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, "1000", 4) != 4)
                r = fd < 0 ? -errno : -EIO;
        else
                r = 0;
        if (fd >= 0)
                close(fd);
        if (r < 0)
                return fail(r, reason, reason_size, "cannot raise the OOM score");
        r = set_limits(limits);
        if (r < 0)
                return fail(r, reason, reason_size, "cannot set the resource limits");
        if (getuid() != uid || geteuid() != uid || getgid() != gid) {
                if (setgroups(0, NULL) < 0)
                        return fail(-errno, reason, reason_size, "cannot drop the supplementary groups");
                if (setresgid(gid, gid, gid) < 0)
                        return fail(-errno, reason, reason_size, "cannot change the gid");
                if (setresuid(uid, uid, uid) < 0)
                        return fail(-errno, reason, reason_size, "cannot change the uid");
        }
        uid_t ru, eu, su;
        gid_t rg, eg, sg;
        if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0 || ru != uid || eu != uid || su != uid ||
            rg != gid || eg != gid || sg != gid)
                return fail(-EPERM, reason, reason_size, "the ids did not change");
        (void) prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
        if (cell_holds_capabilities())
                return fail(-EPERM, reason, reason_size, "capabilities left after the change of ids");
        /* Not dumpable: a process of the same uid may neither ptrace it nor open its memory. */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                return fail(-errno, reason, reason_size, "cannot make the process non-dumpable");
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return fail(-errno, reason, reason_size, "cannot set no_new_privs");
        return 0;
}
