/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/capability.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server/privileges.h"
#include "shared/log.h"

/*
 * Kept for serving crashes: CAP_SYS_PTRACE for ptrace access to /proc/<pid>/{exe,auxv,mem} of any
 * user's process, CAP_DAC_READ_SEARCH to open those files, which are the process owner's 0400/0600.
 */
static const unsigned kept_capabilities[] = { CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH };

static int cap_get(struct __user_cap_data_struct data[2]) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };

        return syscall(SYS_capget, &header, data) < 0 ? -errno : 0;
}

static int cap_set(struct __user_cap_data_struct data[2]) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };

        return syscall(SYS_capset, &header, data) < 0 ? -errno : 0;
}

int privileges_drop_setup_capabilities(void) {
        struct __user_cap_data_struct data[2] = {};
        uint32_t keep[2] = {};
        int r;

        for (size_t i = 0; i < sizeof kept_capabilities / sizeof kept_capabilities[0]; i++)
                keep[CAP_TO_INDEX(kept_capabilities[i])] |= CAP_TO_MASK(kept_capabilities[i]);

        r = cap_get(data);
        if (r < 0)
                return log_error_errno(r, "Cannot read our capabilities: %m");

        for (unsigned i = 0; i < 2; i++) {
                data[i].permitted &= keep[i];
                data[i].effective &= keep[i];
                data[i].inheritable = 0;
        }

        r = cap_set(data);
        if (r < 0)
                return log_error_errno(r, "Cannot drop the capabilities used for setting up: %m");
        return 0;
}
