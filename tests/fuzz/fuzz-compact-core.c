/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The compact core of a stored core (parser/compact-core.c), from whatever the file holds: never
 * crashes, never writes more than its bound, and what it writes starts as the core the daemon
 * accepts (parser_compact_core_valid()). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parser/compact-core.h"
#include "parser/wire.h"

#define BOUND (64 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        int in = memfd_create("core", MFD_CLOEXEC), out = memfd_create("compact", MFD_CLOEXEC);
        struct compact_limits lim = {
                .max_size = BOUND,
                .crash_stack = 4096,
                .thread_stack = 1024,
                .small_segment = 4096,
        };
        char reason[256];
        struct stat st;

        if (in < 0 || out < 0)
                abort();
        if (size > 0 && write(in, data, size) != (ssize_t) size)
                abort();
        int r = compact_core(in, out, &lim, reason, sizeof reason);
        if (fstat(out, &st) < 0)
                abort();
        if (st.st_size > BOUND)
                __builtin_trap();
        if (r == 0) {
                void *buf = malloc((size_t) st.st_size + 1);
                if (!buf || pread(out, buf, (size_t) st.st_size, 0) != st.st_size)
                        abort();
                if (!parser_compact_core_valid(buf, (size_t) st.st_size, BOUND))
                        __builtin_trap();
                free(buf);
        }
        close(in);
        close(out);
        return 0;
}
