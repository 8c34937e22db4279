/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The ELF package note (https://systemd.io/ELF_PACKAGE_METADATA/, as systemd-coredump reads it):
 * a note of owner "FDO", type 0xcafe1a7e, whose descriptor is a NUL-terminated JSON object naming
 * the package the file was built in ({"type":"deb","name":"...","version":"...",...}). In the
 * parser only (parser/package.c): the file is the crashed task's, hostile. The notes are walked
 * within their bytes, the JSON must be one flat object of at most PACKAGE_NOTE_JSON_MAX bytes of
 * printable ASCII with string, number, true/false/null values, or it is not taken.
 */

#include <stddef.h>

#include "parser/package-wire.h"

#define PACKAGE_NOTE_TYPE 0xcafe1a7eu
#define PACKAGE_NOTE_OWNER "FDO"

/* The package note among the notes in data (a note section's or segment's bytes): 1 and its JSON
 * (checked, NUL-terminated) in ret, 0 if there is none, -EBADMSG if it is malformed. */
int package_note_parse(const void *data, size_t size, char ret[static PACKAGE_NOTE_JSON_MAX + 1]);

/* The package note of the ELF file fd (read with libelf, ELF_C_READ: no mapping): its SHT_NOTE
 * sections, else its PT_NOTE segments. 1 and ret, 0 none, -errno (-ENOEXEC: not ELF). */
int package_note_read(int fd, char ret[static PACKAGE_NOTE_JSON_MAX + 1]);
