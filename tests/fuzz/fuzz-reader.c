/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What dumpctl reads back, which others may have written: journal data ("FIELD=value" lines, as
 * the journal hands them over, binary included; COREDUMPD_SAVED_FILE= checked line by line) and
 * store file names (cores and the files kept with them). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader/entries.h"
#include "shared/escape.h"
#include "shared/fields.h"
#include "shared/saved-files.h"
#include "store/store.h"

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
        struct saved_files saved = {};
        if (saved_files_from_fields(&f, &saved) >= 0) {
                for (size_t i = 0; i < saved.n; i++) {
                        /* What was accepted is safe to place under a directory, and reads back the same. */
                        if (!saved_file_path_ok(saved.v[i].path) || strstr(saved.v[i].path, "/../") ||
                            (saved.v[i].stored && strchr(saved.v[i].stored, '/')))
                                __builtin_trap();
                        char *line = saved_file_format(&saved.v[i]);
                        struct saved_files again = {};
                        if (line && (saved_files_add_line(&again, line) < 0 || strcmp(again.v[0].path, saved.v[i].path) != 0))
                                __builtin_trap();
                        saved_files_done(&again);
                        free(line);
                }
                saved_files_done(&saved);
        }
        fields_done(&f);

        /* The whole input as a store file name. */
        char *name = strndup((const char *) data, size);
        if (name) {
                struct fields g = {};
                if (entry_parse_file_name(name, &g) >= 0 && !fields_get(&g, FIELD_PID))
                        __builtin_trap(); /* a parsed name always yields the pid */
                fields_done(&g);
                size_t base;
                if (store_name_is_attachment(name, &base) && (base <= 5 || base >= strlen(name)))
                        __builtin_trap();
                free(name);
        }
        return 0;
}
