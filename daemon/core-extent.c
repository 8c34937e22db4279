/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <elf.h>
#include <endian.h>
#include <string.h>

#include "cleanup.h"
#include "core-extent.h"

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define ELFDATA_NATIVE ELFDATA2LSB
#else
#define ELFDATA_NATIVE ELFDATA2MSB
#endif

void core_extent_init(struct core_extent *e) {
        *e = (struct core_extent) {
                .state = CORE_EXTENT_HEADER,
                .header_want = EI_NIDENT,
        };
}

static void extent_include(struct core_extent *e, uint64_t offset, uint64_t size) {
        if (offset > UINT64_MAX - size) {
                e->state = CORE_EXTENT_UNKNOWN;
                return;
        }
        e->expected = MAX(e->expected, offset + size);
}

static void extent_parse_ident(struct core_extent *e) {
        const uint8_t *id = e->header;

        if (memcmp(id, ELFMAG, SELFMAG) != 0 || id[EI_DATA] != ELFDATA_NATIVE ||
            (id[EI_CLASS] != ELFCLASS64 && id[EI_CLASS] != ELFCLASS32)) {
                e->state = CORE_EXTENT_UNKNOWN;
                return;
        }
        e->is64 = id[EI_CLASS] == ELFCLASS64;
        e->header_want = e->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
}

static void extent_parse_header(struct core_extent *e) {
        uint64_t shoff, shentsize, shnum, type;

        if (e->is64) {
                Elf64_Ehdr h;
                memcpy(&h, e->header, sizeof h);
                type = h.e_type;
                e->phoff = h.e_phoff;
                e->phentsize = h.e_phentsize;
                e->phnum = h.e_phnum;
                shoff = h.e_shoff;
                shentsize = h.e_shentsize;
                shnum = h.e_shnum;
        } else {
                Elf32_Ehdr h;
                memcpy(&h, e->header, sizeof h);
                type = h.e_type;
                e->phoff = h.e_phoff;
                e->phentsize = h.e_phentsize;
                e->phnum = h.e_phnum;
                shoff = h.e_shoff;
                shentsize = h.e_shentsize;
                shnum = h.e_shnum;
        }

        if (type != ET_CORE || e->phentsize != (e->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr))) {
                e->state = CORE_EXTENT_UNKNOWN;
                return;
        }

        extent_include(e, 0, e->header_want);
        /* With more than 65534 segments the count lives in a section header written last. */
        if (shoff != 0)
                extent_include(e, shoff, shentsize * MAX(shnum, (uint64_t) 1));
        if (e->state == CORE_EXTENT_UNKNOWN)
                return;

        if (e->phnum == 0 || e->phnum == PN_XNUM) {
                e->state = CORE_EXTENT_KNOWN;
                return;
        }
        if (e->phoff < e->header_want) {
                e->state = CORE_EXTENT_UNKNOWN;
                return;
        }
        extent_include(e, e->phoff, e->phnum * e->phentsize);
        if (e->state != CORE_EXTENT_UNKNOWN)
                e->state = CORE_EXTENT_PHDRS;
}

static void extent_parse_entry(struct core_extent *e) {
        uint64_t offset, filesz;

        if (e->is64) {
                Elf64_Phdr p;
                memcpy(&p, e->entry, sizeof p);
                offset = p.p_offset;
                filesz = p.p_filesz;
        } else {
                Elf32_Phdr p;
                memcpy(&p, e->entry, sizeof p);
                offset = p.p_offset;
                filesz = p.p_filesz;
        }
        if (filesz > 0)
                extent_include(e, offset, filesz);

        e->entry_have = 0;
        if (++e->entries_done == e->phnum && e->state == CORE_EXTENT_PHDRS)
                e->state = CORE_EXTENT_KNOWN;
}

void core_extent_feed(struct core_extent *e, const void *data, size_t size) {
        const uint8_t *p = data;
        uint64_t pos = e->seen, end = e->seen + size;

        while (pos < end) {
                if (e->state == CORE_EXTENT_HEADER) {
                        size_t n = MIN((size_t) (end - pos), e->header_want - (size_t) pos);
                        memcpy(e->header + pos, p + (pos - e->seen), n);
                        pos += n;
                        if (pos < e->header_want)
                                continue;
                        if (e->header_want == EI_NIDENT)
                                extent_parse_ident(e);
                        else
                                extent_parse_header(e);
                } else if (e->state == CORE_EXTENT_PHDRS) {
                        uint64_t table_pos = e->phoff + e->entries_done * e->phentsize + e->entry_have;
                        if (pos < table_pos) {
                                pos = MIN(end, table_pos);
                                continue;
                        }
                        size_t n = MIN((size_t) (end - pos), (size_t) e->phentsize - e->entry_have);
                        memcpy(e->entry + e->entry_have, p + (pos - e->seen), n);
                        e->entry_have += n;
                        pos += n;
                        if (e->entry_have == e->phentsize)
                                extent_parse_entry(e);
                } else
                        break;
        }
        e->seen = end;
}

bool core_extent_known(const struct core_extent *e, uint64_t *ret_expected) {
        if (e->state != CORE_EXTENT_KNOWN)
                return false;
        *ret_expected = e->expected;
        return true;
}
