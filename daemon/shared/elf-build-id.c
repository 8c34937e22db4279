/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "shared/elf-build-id.h"

int elf_file_build_id(int fd, char out[static 41]) {
        out[0] = 0;
        if (elf_version(EV_CURRENT) == EV_NONE)
                return -EIO;
        Elf *elf = elf_begin(fd, ELF_C_READ, NULL); /* not mmap: a file truncated meanwhile must not SIGBUS us */
        if (!elf)
                return -EINVAL;
        int r = 0;
        if (elf_kind(elf) != ELF_K_ELF)
                r = -EINVAL;
        else {
                const void *bits = NULL;
                ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);
                for (ssize_t i = 0; i < n && i < 20; i++)
                        snprintf(out + 2 * i, 3, "%02x", ((const unsigned char *) bits)[i]);
        }
        elf_end(elf);
        return r;
}
