/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/kernel-handler.h"
#include "shared/log.h"

bool kernel_handler_is_ours(char *pattern, size_t size) {
        const char *path = getenv("COREDUMPD_CORE_PATTERN_FILE") ?: "/proc/sys/kernel/core_pattern";
        FILE *f = fopen(path, "re");
        pattern[0] = 0;
        if (!f)
                return false;
        if (!fgets(pattern, (int) size, f))
                pattern[0] = 0;
        fclose(f);
        pattern[strcspn(pattern, "\n")] = 0;
        return strcmp(pattern, COREDUMPD_CORE_PATTERN) == 0;
}

bool kernel_handler_warn(void) {
        char pattern[256];
        if (kernel_handler_is_ours(pattern, sizeof pattern))
                return true;
        /* The pattern is root's to set, but may be any text: shown escaped as a C string would be. */
        for (char *p = pattern; *p; p++)
                if ((unsigned char) *p < 0x20 || (unsigned char) *p >= 0x7f)
                        *p = '?';
        log_warning("coredumpd is not the kernel's handler: kernel.core_pattern is '%s', not '%s'; crashes are "
                    "not collected by coredumpd (see coredumpd-register(8): a kernel without the coredump socket "
                    "leaves the pattern alone).",
                    pattern[0] ? pattern : "(unreadable)", COREDUMPD_CORE_PATTERN);
        return false;
}
