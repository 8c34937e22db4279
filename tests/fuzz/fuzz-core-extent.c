/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The extent of a stored core, from whatever headers it has: never crashes, and the same file
 * gives the same answer twice. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "store/core-extent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint64_t a = 0, b = 0;
        int fd = memfd_create("core", MFD_CLOEXEC);

        if (fd < 0)
                abort();
        if (size > 0 && write(fd, data, size) != (ssize_t) size)
                abort();
        int ra = core_extent_of_file(fd, &a), rb = core_extent_of_file(fd, &b);
        if (ra != rb || (ra > 0 && a != b))
                __builtin_trap();
        close(fd);
        return 0;
}
