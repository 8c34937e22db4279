/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ELF package note of a crashed executable (parser/package-note.c, in the parser's cell) and
 * the answer of `coredumpd-parser --package` as the daemon decodes it (parser/package-wire.c). Input
 * starting "A" is an answer: one that decodes holds only checked values and encodes back to an
 * answer that decodes the same. Anything else is a note section's bytes: a note taken is a valid
 * flat JSON object within its bound. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser/package-note.h"
#include "parser/package-wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size >= 1 && data[0] == 'A') {
                struct package_info p, q;
                char why[96], buf[PARSER_PACKAGE_ANSWER_MAX];
                if (package_answer_decode((const char *) data + 1, size - 1, &p, why, sizeof why) < 0)
                        return 0;
                if (p.from != PACKAGE_FROM_NONE && (!p.name[0] || !p.version[0]))
                        __builtin_trap();
                if (p.from == PACKAGE_FROM_DPKG && (!dpkg_name_valid(p.name) || !dpkg_version_valid(p.version)))
                        __builtin_trap();
                size_t n = package_answer_encode(&p, buf, sizeof buf);
                if (package_answer_decode(buf, n, &q, why, sizeof why) < 0 || strcmp(p.name, q.name) != 0 ||
                    strcmp(p.error, q.error) != 0 || p.modified != q.modified)
                        __builtin_trap();
                return 0;
        }
        char json[PACKAGE_NOTE_JSON_MAX + 1], value[256];
        void *copy = malloc(size ? size : 1);
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        if (package_note_parse(copy, size, json) > 0) {
                if (strlen(json) > PACKAGE_NOTE_JSON_MAX || !package_json_valid(json))
                        __builtin_trap();
                if (package_json_string(json, "name", value, sizeof value) > 0 && strchr(value, '\\'))
                        __builtin_trap();
        }
        free(copy);
        return 0;
}
