/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The GNU build-id of the ELF file fd, as lowercase hex (at most 20 bytes), read with libelf from
 * the file (ELF_C_READ: a file truncated meanwhile cannot SIGBUS the reader). 0 and "" when it has
 * none; -errno when it is not an ELF file. */
int elf_file_build_id(int fd, char out[static 41]);
