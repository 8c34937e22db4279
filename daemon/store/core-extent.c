/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "store/core-extent.h"

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void libelf_init(void) {
        (void) elf_version(EV_CURRENT);
}

/* *acc = max(*acc, offset + size); false on overflow. */
static bool extend(uint64_t *acc, uint64_t offset, uint64_t size) {
        if (offset > UINT64_MAX - size)
                return false;
        *acc = MAX(*acc, offset + size);
        return true;
}

int core_extent_of_file(int fd, uint64_t *ret_expected) {
        unsigned char ident[EI_NIDENT];
        struct stat st;
        GElf_Ehdr eh;
        uint64_t expected;
        size_t phnum;
        int r = 0;

        pthread_once(&libelf_once, libelf_init);
        if (fstat(fd, &st) < 0)
                return -errno;
        ssize_t n = pread(fd, ident, sizeof ident, 0);
        if (n < 0)
                return -errno;
        if ((size_t) n < SELFMAG || memcmp(ident, ELFMAG, SELFMAG) != 0)
                return 0;
        if ((size_t) n < sizeof ident || (uint64_t) st.st_size < sizeof(Elf32_Ehdr)) {
                /* Cut inside the ELF header itself. */
                *ret_expected = ident[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
                return (uint64_t) st.st_size < *ret_expected ? 1 : 0;
        }

        Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
        if (!elf)
                return 0;
        if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || eh.e_type != ET_CORE)
                goto finish;

        expected = eh.e_ehsize;
        if (eh.e_shoff != 0 && !extend(&expected, eh.e_shoff, (uint64_t) eh.e_shentsize * MAX(eh.e_shnum, 1)))
                goto finish;
        if (elf_getphdrnum(elf, &phnum) < 0) {
                /* libelf refuses a program header table, or (PN_XNUM) the section header holding its
                 * count, that lies beyond the end of the file: the core is cut, its extent reaches at
                 * least that far. */
                if (eh.e_phnum != PN_XNUM && eh.e_phnum > 0 &&
                    !extend(&expected, eh.e_phoff, (uint64_t) eh.e_phnum * eh.e_phentsize))
                        goto finish;
                if (expected > (uint64_t) st.st_size) {
                        *ret_expected = expected;
                        r = 1;
                }
                goto finish;
        }
        if (phnum > 0 && !extend(&expected, eh.e_phoff, (uint64_t) phnum * eh.e_phentsize))
                goto finish;
        if (expected > (uint64_t) st.st_size) {
                /* The program header table itself is cut (or lies beyond the end: a far e_phoff). */
                *ret_expected = expected;
                r = 1;
                goto finish;
        }
        for (size_t i = 0; i < phnum; i++) {
                GElf_Phdr ph;
                if (!gelf_getphdr(elf, (int) i, &ph) || (ph.p_filesz > 0 && !extend(&expected, ph.p_offset, ph.p_filesz)))
                        goto finish;
        }
        *ret_expected = expected;
        r = 1;

finish:
        elf_end(elf);
        return r;
}
