/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reader's answer as the daemon reads it (parser/reader-wire.c): whatever a reader taken over
 * by what a task gave it to read sends. The first byte picks the kind asked (modulo 4: a site, a
 * command line, a container's files, a kept crash's /proc texts), the rest is the answer; the sequence asked is the one it names, so that the checks
 * past it are reached. An answer that decodes respects every bound, its mappings are sorted and
 * disjoint, and it encodes back to the very same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct reader_answer a;
        static char again[READER_ANSWER_MAX];
        char reason[160];
        uint32_t seq = 0;

        if (size < 1)
                return 0;
        static const uint32_t kinds[] = { READER_SITE, READER_CMDLINE, READER_FILES, READER_PROC };
        uint32_t kind = kinds[data[0] % 4];
        data++;
        size--;
        if (size >= offsetof(struct reader_answer_header, seq) + sizeof seq)
                memcpy(&seq, data + offsetof(struct reader_answer_header, seq), sizeof seq);
        if (reader_answer_decode(data, size, kind, seq, &a, reason, sizeof reason) < 0)
                return 0;
        if (a.n_maps > READER_MAPS_MAX || a.n_words > READER_WORDS_MAX || a.text_size > READER_TEXT_MAX ||
            a.kind != kind || a.error > 0)
                __builtin_trap();
        if (kind == READER_CMDLINE && (!a.text || a.text[a.text_size] != 0 || a.n_maps || a.n_words))
                __builtin_trap();
        for (size_t i = 0; kind == READER_FILES && i < a.n_maps; i++)
                if (!a.paths[i] || a.paths[i][0] != '/' || strlen(a.paths[i]) > PARSER_KEEP_PATH_MAX ||
                    a.paths[i] < a.text || a.paths[i] >= a.text + a.text_size)
                        __builtin_trap();
        for (size_t i = 0; kind == READER_PROC && a.error == 0 && i < READER_PROC_PARTS; i++) {
                size_t len = a.proc[i] ? strlen(a.proc[i]) : 0;
                if (!a.proc[i] || a.proc[i] < a.text || a.proc[i] + len >= a.text + a.text_size + 1 ||
                    len > reader_proc_max(i) || (len > 0 && a.proc[i][len - 1] != '\n'))
                        __builtin_trap();
        }
        for (size_t i = 0; i < a.n_maps; i++)
                if (a.maps[i].start >= a.maps[i].end || a.maps[i].inode == 0 ||
                    (i > 0 && a.maps[i].start < a.maps[i - 1].end))
                        __builtin_trap();
        size_t n = reader_answer_encode(&a, seq, again);
        if (n != size || memcmp(again, data, size) != 0)
                __builtin_trap();
        reader_answer_done(&a);
        return 0;
}
