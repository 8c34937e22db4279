/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What dumpctl reads back, which others may have written: journal data ("FIELD=value" lines, as
 * the journal hands them over, binary included) and store file names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader/entries.h"
#include "shared/escape.h"
#include "shared/fields.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct fields f = {};
        const uint8_t *p = data, *end = data + size;

        /* Each line a journal datum. */
        while (p < end) {
                const uint8_t *nl = memchr(p, '\n', (size_t) (end - p));
                size_t n = nl ? (size_t) (nl - p) : (size_t) (end - p);
                (void) fields_add_raw(&f, p, n);
                p += n + (nl ? 1 : 0);
        }
        for (enum field i = 0; i < _FIELD_MAX; i++) {
                const char *v = fields_get(&f, i);
                if (v) {
                        char *e = escape_text(v, strlen(v));
                        free(e);
                }
        }
        fields_done(&f);

        /* The whole input as a store file name. */
        char *name = strndup((const char *) data, size);
        if (name) {
                struct fields g = {};
                if (entry_parse_file_name(name, &g) >= 0 && !fields_get(&g, FIELD_PID))
                        __builtin_trap(); /* a parsed name always yields the pid */
                fields_done(&g);
                free(name);
        }
        return 0;
}
