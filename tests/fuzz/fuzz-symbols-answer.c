/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The answer of dumpctl's symbol cell as dumpctl reads it (cli/symbols-wire.c): whatever a cell
 * taken over by a crafted debug file sends. The first byte picks how many frames were asked
 * (modulo SYMBOLS_MAX_QUERIES + 1), the rest is the answer. An answer that decodes names each
 * frame with printable ASCII of 1 to SYMBOL_MAX bytes, or not at all, and its notices are ones the
 * wire knows, each errno within 1 to 4095. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dumpctl.h"

static void check_notice(enum symbols_notice notice, int error, void *userdata) {
        (void) userdata;
        if ((unsigned) notice >= _SYMBOLS_NOTICE_MAX)
                abort();
        if (symbols_notice_has_errno(notice) ? error <= 0 || error >= 4096 : error != 0)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct symbol_answer answers[SYMBOLS_MAX_QUERIES];

        if (size < 1)
                return 0;
        size_t n = data[0] % (SYMBOLS_MAX_QUERIES + 1);
        char *buf = malloc(size);
        if (!buf)
                return 0;
        memcpy(buf, data + 1, size - 1);
        if (symbols_answer_decode(buf, size - 1, n, answers, check_notice, NULL))
                for (size_t i = 0; i < n; i++) {
                        const struct symbol_answer *a = &answers[i];
                        if (a->origin == SYMBOL_NONE)
                                continue;
                        size_t len = strnlen(a->name, sizeof a->name);
                        if ((a->origin != SYMBOL_LOCAL && a->origin != SYMBOL_DEBUGINFOD) || len == 0 || len > SYMBOL_MAX)
                                abort();
                        for (size_t j = 0; j < len; j++)
                                if ((unsigned char) a->name[j] < 0x20 || (unsigned char) a->name[j] >= 0x7f)
                                        abort();
                }
        free(buf);
        return 0;
}
