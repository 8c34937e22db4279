/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <string.h>

#include "selfdump/core-elf.h"
#include "shared/cleanup.h"
#include "shared/log.h"

#define ALIGN_TO(x, a) (((x) + (a) - 1) / (a) * (a))

static pthread_once_t elf_version_once = PTHREAD_ONCE_INIT;
static void elf_version_init(void) {
        (void) elf_version(EV_CURRENT);
}

static int libelf_error(const char *what) {
        log_debug("libelf: %s: %s", what, elf_errmsg(-1));
        return -EIO;
}

int core_elf_write_headers(int fd, const void *notes, size_t notes_size, const struct core_segment *segments,
                           size_t n_segments, uint64_t page_size, uint64_t *ret_data_offset) {
        GElf_Ehdr ehdr;
        int r = 0;

        if (n_segments > CORE_MAX_SEGMENTS)
                return -E2BIG;
        pthread_once(&elf_version_once, elf_version_init);

        Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
        if (!elf)
                return libelf_error("elf_begin");

        /* The layout is ours (ELF_F_LAYOUT): headers, notes, section headers, then page-aligned data. */
        size_t n_phdrs = 1 + n_segments;
        uint64_t phoff = sizeof(Elf64_Ehdr);
        uint64_t notes_off = ALIGN_TO(phoff + n_phdrs * sizeof(Elf64_Phdr), 8);
        uint64_t shoff = ALIGN_TO(notes_off + notes_size, 8);
        uint64_t data_off = ALIGN_TO(shoff + 2 * sizeof(Elf64_Shdr), page_size);

        if (!gelf_newehdr(elf, ELFCLASS64) || !gelf_getehdr(elf, &ehdr)) {
                r = libelf_error("gelf_newehdr");
                goto finish;
        }
        ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
        ehdr.e_ident[EI_OSABI] = ELFOSABI_NONE;
        ehdr.e_type = ET_CORE;
        ehdr.e_machine = EM_X86_64;
        ehdr.e_version = EV_CURRENT;
        ehdr.e_phoff = phoff;
        ehdr.e_shoff = shoff;
        ehdr.e_shstrndx = SHN_UNDEF;
        if (!gelf_update_ehdr(elf, &ehdr) || !gelf_newphdr(elf, n_phdrs)) {
                r = libelf_error("ELF header");
                goto finish;
        }

        Elf_Scn *scn = elf_newscn(elf);
        Elf_Data *data = scn ? elf_newdata(scn) : NULL;
        GElf_Shdr shdr;
        if (!data || !gelf_getshdr(scn, &shdr)) {
                r = libelf_error("note section");
                goto finish;
        }
        data->d_buf = (void *) notes;
        data->d_size = notes_size;
        data->d_type = ELF_T_NHDR;
        data->d_align = 4;
        data->d_off = 0;
        data->d_version = EV_CURRENT;
        shdr.sh_type = SHT_NOTE;
        shdr.sh_offset = notes_off;
        shdr.sh_size = notes_size;
        shdr.sh_addralign = 4;
        if (!gelf_update_shdr(scn, &shdr)) {
                r = libelf_error("note section header");
                goto finish;
        }

        GElf_Phdr note = {
                .p_type = PT_NOTE,
                .p_offset = notes_off,
                .p_filesz = notes_size,
                .p_align = 4,
        };
        if (!gelf_update_phdr(elf, 0, &note)) {
                r = libelf_error("PT_NOTE");
                goto finish;
        }
        uint64_t off = data_off;
        for (size_t i = 0; i < n_segments; i++) {
                GElf_Phdr load = {
                        .p_type = PT_LOAD,
                        .p_flags = segments[i].flags,
                        .p_offset = off,
                        .p_vaddr = segments[i].vaddr,
                        .p_filesz = segments[i].size,
                        .p_memsz = MAX(segments[i].mem_size, segments[i].size),
                        .p_align = page_size,
                };
                if (!gelf_update_phdr(elf, 1 + i, &load)) {
                        r = libelf_error("PT_LOAD");
                        goto finish;
                }
                off += segments[i].size;
        }

        elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
        if (elf_update(elf, ELF_C_WRITE) < 0) {
                r = libelf_error("elf_update");
                goto finish;
        }
        *ret_data_offset = data_off;

finish:
        elf_end(elf);
        return r;
}
