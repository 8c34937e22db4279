/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "parser/package-note.h"
#include "parser/package-wire.h"

/* The most note bytes looked at in one file. */
#define NOTES_MAX (UINT64_C(1) << 20)

static size_t align4(size_t n) {
        return (n + 3) & ~(size_t) 3;
}

int package_note_parse(const void *data, size_t size, char ret[static PACKAGE_NOTE_JSON_MAX + 1]) {
        const unsigned char *p = data;
        size_t offset = 0;

        while (size - offset >= 12) {
                uint32_t namesz, descsz, type;
                memcpy(&namesz, p + offset, 4);
                memcpy(&descsz, p + offset + 4, 4);
                memcpy(&type, p + offset + 8, 4);
                offset += 12;
                if (namesz > size - offset || align4(namesz) > size - offset)
                        return -EBADMSG;
                const char *name = (const char *) p + offset;
                offset += align4(namesz);
                if (descsz > size - offset)
                        return -EBADMSG;
                const char *desc = (const char *) p + offset;
                offset = align4(descsz) > size - offset ? size : offset + align4(descsz);
                if (type != PACKAGE_NOTE_TYPE || namesz != sizeof PACKAGE_NOTE_OWNER ||
                    memcmp(name, PACKAGE_NOTE_OWNER, sizeof PACKAGE_NOTE_OWNER) != 0)
                        continue;
                /* The JSON ends at its NUL, within the descriptor and the bound. */
                const char *nul = memchr(desc, 0, descsz);
                size_t n = nul ? (size_t) (nul - desc) : descsz;
                if (n == 0 || n > PACKAGE_NOTE_JSON_MAX)
                        return -EBADMSG;
                memcpy(ret, desc, n);
                ret[n] = 0;
                return package_json_valid(ret) ? 1 : -EBADMSG;
        }
        return 0;
}

static int notes_of(Elf *elf, char *ret) {
        size_t n_sections = 0;
        uint64_t seen = 0;
        bool any_section = false;

        if (elf_getshdrnum(elf, &n_sections) == 0)
                for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
                        GElf_Shdr shdr;
                        if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
                                continue;
                        any_section = true;
                        if (shdr.sh_size > NOTES_MAX - seen)
                                return -E2BIG;
                        seen += shdr.sh_size;
                        Elf_Data *d = elf_rawdata(scn, NULL);
                        if (!d || !d->d_buf)
                                continue;
                        int r = package_note_parse(d->d_buf, d->d_size, ret);
                        if (r != 0)
                                return r;
                }
        if (any_section)
                return 0;
        size_t n_phdrs = 0;
        if (elf_getphdrnum(elf, &n_phdrs) != 0)
                return 0;
        for (size_t i = 0; i < n_phdrs && i < 4096; i++) {
                GElf_Phdr phdr;
                if (!gelf_getphdr(elf, (int) i, &phdr) || phdr.p_type != PT_NOTE)
                        continue;
                if (phdr.p_filesz > NOTES_MAX - seen)
                        return -E2BIG;
                seen += phdr.p_filesz;
                Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t) phdr.p_offset, phdr.p_filesz, ELF_T_BYTE);
                if (!d || !d->d_buf)
                        continue;
                int r = package_note_parse(d->d_buf, d->d_size, ret);
                if (r != 0)
                        return r;
        }
        return 0;
}

int package_note_read(int fd, char ret[static PACKAGE_NOTE_JSON_MAX + 1]) {
        ret[0] = 0;
        if (elf_version(EV_CURRENT) == EV_NONE)
                return -EIO;
        Elf *elf = elf_begin(fd, ELF_C_READ, NULL); /* not mmap: a file truncated meanwhile must not SIGBUS us */
        if (!elf)
                return -ENOEXEC;
        int r = elf_kind(elf) == ELF_K_ELF ? notes_of(elf, ret) : -ENOEXEC;
        elf_end(elf);
        if (r <= 0)
                ret[0] = 0;
        return r;
}
