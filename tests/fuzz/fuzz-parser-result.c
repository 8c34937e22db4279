/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The parser's answer as the daemon reads it (parser/wire.c): whatever a parser taken over by a
 * crafted file sends. A result that decodes must respect every bound, and encode back to the very
 * same bytes. Input starting "B" and a count byte is a --build-ids answer: its ids must be hex. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct unwind_result r = {};
        char reason[160];
        int error = 0;

        /* "B" and a count: the input is a --build-ids answer for that many files instead. */
        if (size >= 2 && data[0] == 'B') {
                char ids[PARSER_BUILD_ID_FILES_MAX][41];
                size_t n = data[1] % (PARSER_BUILD_ID_FILES_MAX + 2);
                if (parser_build_ids_decode((const char *) data + 2, size - 2, n, ids) == 0)
                        for (size_t i = 0; i < n; i++)
                                if (strlen(ids[i]) > 40 || strspn(ids[i], "0123456789abcdef") != strlen(ids[i]))
                                        __builtin_trap();
                return 0;
        }

        if (parser_result_decode(data, size, &r, &error, reason, sizeof reason) < 0)
                return 0;
        if (r.n_threads > UNWIND_MAX_THREADS || strlen(r.exe_build_id) > 40)
                __builtin_trap();
        for (size_t i = 0; i < r.n_threads; i++) {
                if (r.threads[i].n_frames > UNWIND_MAX_FRAMES)
                        __builtin_trap();
                for (size_t k = 0; k < r.threads[i].n_frames; k++) {
                        const struct unwind_frame *f = &r.threads[i].frames[k];
                        if ((f->module && strlen(f->module) > PARSER_MODULE_MAX) ||
                            (f->symbol && strlen(f->symbol) > PARSER_SYMBOL_MAX))
                                __builtin_trap();
                }
                free(unwind_thread_format(&r.threads[i]));
        }
        void *again = NULL;
        size_t again_size = 0;
        if (parser_result_encode(&r, error, &again, &again_size) < 0)
                __builtin_trap();
        if (again_size != size || memcmp(again, data, size) != 0) {
                /* Reserved fields are not kept: only a result with them zero round-trips. */
                struct unwind_result r2 = {};
                int error2 = 0;
                if (parser_result_decode(again, again_size, &r2, &error2, reason, sizeof reason) < 0 ||
                    r2.n_threads != r.n_threads || error2 != error)
                        __builtin_trap();
                unwind_result_done(&r2);
        }
        free(again);
        unwind_result_done(&r);
        return 0;
}
