/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What dumpctl's environment says of debuginfod, as elfutils' client reads it: whether
 * $DEBUGINFOD_URLS names a server, and the time a run may spend asking ($DEBUGINFOD_TIMEOUT). The
 * record's lines (symbols.c), the cell that asks (symbols-cell.c, symbols-lookup.c) and gdb's
 * options (verb-debug.c) go by the same answer. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dumpctl.h"

uint64_t symbols_budget_usec(void) {
        const char *t = getenv("DEBUGINFOD_TIMEOUT");
        char *end;
        if (t && *t >= '0' && *t <= '9') {
                errno = 0;
                unsigned long long s = strtoull(t, &end, 10);
                if (errno == 0 && *end == 0 && s > 0 && s <= 24 * 3600)
                        return s * UINT64_C(1000000);
        }
        return SYMBOLS_DEFAULT_TIMEOUT_SEC * UINT64_C(1000000);
}

bool debuginfod_urls_set(void) {
        const char *urls = getenv("DEBUGINFOD_URLS");
        return urls && urls[strspn(urls, " \t")] != 0;
}
