/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * COREDUMPD_SAVED_FILE=: the ELF objects a crash in a container mapped (its executable first),
 * and for each whether the daemon kept a copy with the core, for `dumpctl debug`. The field is
 * repeated, once per file (as COREDUMPD_FRAME= is per frame), each value one line:
 *
 *     <build-id|-> <stored-name|host|-> <path>
 *
 * build-id: hex, "-" if it has none; stored-name: the copy's file name, next to the core in the
 * store; "host": not kept, the host's file at that path is the same (same build-id, or the same
 * inode); "-": neither (too large for what was left of MaxSize=, or could not be read); path:
 * the file's absolute path in the container's root, last, so it may hold blanks. Made by the
 * daemon, read by dumpctl from a journal anybody may have written: every part is checked.
 */

#include <stdbool.h>
#include <stddef.h>

#include "shared/fields.h"

struct saved_file {
        char *path;             /* absolute, in the crashed task's root */
        char build_id[41];      /* hex; "" if none */
        char *stored;           /* the copy's name in the store, or NULL */
        bool host;              /* not kept: the host's file at path is the same */
};

struct saved_files {
        struct saved_file *v;
        size_t n;
};

/* An absolute path of at most PATH_MAX bytes, of printable bytes other than backslash, without
 * empty, "." or ".." components. */
bool saved_file_path_ok(const char *path);
/* A name in the store: "core." and then no '/', blank or control byte. */
bool saved_file_name_ok(const char *name);

/* Appends a copy of f (path checked: -EINVAL). */
int saved_files_add(struct saved_files *l, const struct saved_file *f);
/* One field's value (malloc'ed), or NULL when out of memory. */
char *saved_file_format(const struct saved_file *f);
/* Appends what one field's value says; -EINVAL when it is malformed (nothing appended). */
int saved_files_add_line(struct saved_files *l, const char *line);
/* Every COREDUMPD_SAVED_FILE= of a record, in order; -EINVAL when any is malformed (nothing
 * returned). */
int saved_files_from_fields(const struct fields *f, struct saved_files *ret);
void saved_files_done(struct saved_files *l);
