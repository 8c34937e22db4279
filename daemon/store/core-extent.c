/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cleanup.h"
#include "store/core-extent.h"

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void libelf_init(void) {
        (void) elf_version(EV_CURRENT);
}

void core_extent_init(struct core_extent *e) {
        pthread_once(&libelf_once, libelf_init);
        *e = (struct core_extent) {
                .state = CORE_EXTENT_COLLECTING,
                .header_want = EI_NIDENT,
        };
}

void core_extent_done(struct core_extent *e) {
        free(e->headers);
        e->headers = NULL;
}

static void extent_give_up(struct core_extent *e) {
        e->state = CORE_EXTENT_UNKNOWN;
        core_extent_done(e);
}

/* Grows the extent to cover [offset, offset + size); false on overflow. */
static bool extent_include(struct core_extent *e, uint64_t offset, uint64_t size) {
        if (offset > UINT64_MAX - size)
                return false;
        e->expected = MAX(e->expected, offset + size);
        return true;
}

/* With the ELF header in hand: how many bytes hold the program header table? 0: none, -1: bad. */
static int64_t extent_headers_end(Elf *elf, uint64_t *ret_expected) {
        GElf_Ehdr eh;
        size_t phnum;

        if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || eh.e_type != ET_CORE)
                return -1;
        /* With PN_XNUM the count lives in a section header the kernel writes last. */
        if (eh.e_phnum == PN_XNUM || eh.e_phentsize != gelf_fsize(elf, ELF_T_PHDR, 1, EV_CURRENT))
                return -1;

        phnum = eh.e_phnum;
        *ret_expected = eh.e_ehsize;
        if (eh.e_shoff != 0) {
                if (eh.e_shoff > UINT64_MAX - (uint64_t) eh.e_shentsize * MAX(eh.e_shnum, 1))
                        return -1;
                *ret_expected = MAX(*ret_expected, eh.e_shoff + (uint64_t) eh.e_shentsize * MAX(eh.e_shnum, 1));
        }
        if (phnum == 0)
                return 0;
        if (eh.e_phoff < eh.e_ehsize || eh.e_phoff > CORE_EXTENT_HEADERS_MAX)
                return -1;
        uint64_t end = eh.e_phoff + (uint64_t) phnum * eh.e_phentsize;
        return end > CORE_EXTENT_HEADERS_MAX ? -1 : (int64_t) end;
}

/* The first header_want bytes have arrived: read what they say with libelf. */
static void extent_parse(struct core_extent *e) {
        Elf *elf = elf_memory((char *) e->headers, e->header_have);
        uint64_t expected = 0;

        if (!elf) {
                extent_give_up(e);
                return;
        }

        int64_t end = extent_headers_end(elf, &expected);
        if (end < 0 || !extent_include(e, 0, expected)) {
                elf_end(elf);
                extent_give_up(e);
                return;
        }

        if ((uint64_t) end > e->header_have) {
                /* Only the ELF header so far; keep collecting up to the end of the phdr table. */
                elf_end(elf);
                e->header_want = (size_t) end;
                return;
        }

        size_t phnum = 0;
        if (end > 0 && elf_getphdrnum(elf, &phnum) < 0)
                phnum = SIZE_MAX;
        for (size_t i = 0; phnum != SIZE_MAX && i < phnum; i++) {
                GElf_Phdr ph;

                if (!gelf_getphdr(elf, (int) i, &ph) ||
                    (ph.p_filesz > 0 && !extent_include(e, ph.p_offset, ph.p_filesz)))
                        phnum = SIZE_MAX;
        }
        elf_end(elf);
        if (phnum == SIZE_MAX || !extent_include(e, 0, (uint64_t) end)) {
                extent_give_up(e);
                return;
        }
        e->state = CORE_EXTENT_KNOWN;
        core_extent_done(e);
}

void core_extent_feed(struct core_extent *e, const void *data, size_t size) {
        const uint8_t *p = data;

        e->seen += size;

        while (size > 0 && e->state == CORE_EXTENT_COLLECTING) {
                size_t n = MIN(size, e->header_want - e->header_have);
                uint8_t *grown = realloc(e->headers, e->header_want);

                if (!grown) {
                        extent_give_up(e);
                        break;
                }
                e->headers = grown;
                memcpy(e->headers + e->header_have, p, n);
                e->header_have += n;
                p += n;
                size -= n;
                if (e->header_have < e->header_want)
                        break;

                if (e->header_want == EI_NIDENT) {
                        /* Enough to tell the class, and so the size of the ELF header. */
                        if (memcmp(e->headers, ELFMAG, SELFMAG) != 0 ||
                            (e->headers[EI_CLASS] != ELFCLASS32 && e->headers[EI_CLASS] != ELFCLASS64)) {
                                extent_give_up(e);
                                break;
                        }
                        e->header_want = e->headers[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr)
                                                                            : sizeof(Elf32_Ehdr);
                } else
                        extent_parse(e);
        }
}

bool core_extent_known(const struct core_extent *e, uint64_t *ret_expected) {
        if (e->state != CORE_EXTENT_KNOWN)
                return false;
        *ret_expected = e->expected;
        return true;
}
