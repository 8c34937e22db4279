/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dpkg's database as a container's root may hold it (shared/dpkg.c, read in the parser's cell):
 * the first byte picks the file — status (every installed stanza, and a lookup), a file list, an
 * md5sums file, the diversions, a Depends: value, the index of the lists (parser/package-index.c)
 * — and the rest is its text, not NUL-terminated.
 * What is taken must be within its bounds and of the characters policy allows. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser/package-index.h"
#include "shared/dpkg.h"

static void check_package(const struct dpkg_package *p) {
        if (!dpkg_name_valid(p->name) || !dpkg_version_valid(p->version) || !dpkg_name_valid(p->source) ||
            !dpkg_version_valid(p->source_version) || (p->arch[0] && !dpkg_arch_valid(p->arch)))
                __builtin_trap();
}

static void take(const char *name, void *userdata) {
        (void) userdata;
        if (!dpkg_name_valid(name))
                __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        /* A copy of exactly the text: a read past it is ASan's to see. */
        size_t n = size - 1;
        char *text = malloc(n ? n : 1);
        if (!text)
                return 0;
        memcpy(text, data + 1, n);
        struct dpkg_package p;
        struct dpkg_diversion d;
        char md5[33];
        size_t offset = 0;

        switch (data[0] % 6) {
        case 0:
                while (dpkg_status_next(text, n, &offset, &p) > 0) {
                        check_package(&p);
                        if (p.depends && (p.depends < text || p.depends + p.depends_size > text + n))
                                __builtin_trap();
                }
                if (dpkg_status_find(text, n, "coreutils", NULL, &p) > 0)
                        check_package(&p);
                break;
        case 1:
                (void) dpkg_list_contains(text, n, "/bin/sleep");
                break;
        case 2:
                if (dpkg_md5sums_find(text, n, "/bin/sleep", md5) > 0 && strspn(md5, "0123456789abcdef") != 32)
                        __builtin_trap();
                break;
        case 3:
                if (dpkg_diversions_find(text, n, "/usr/bin/tool", &d) > 0 &&
                    (d.from[0] != '/' || d.to[0] != '/' || (d.by[0] && !dpkg_name_valid(d.by))))
                        __builtin_trap();
                break;
        case 4:
                (void) dpkg_depends_foreach(text, n, 64, take, NULL);
                break;
        case 5: {
                char name[DPKG_NAME_MAX + 1], arch[DPKG_ARCH_MAX + 1];
                while (package_index_next(text, n, "/bin/sleep", &offset, name, arch) > 0)
                        if (!dpkg_name_valid(name) || (arch[0] && !dpkg_arch_valid(arch)) || offset > n)
                                __builtin_trap();
                break;
        }
        }
        free(text);
        return 0;
}
