/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The parser's side of `--package` (parser/package-wire.h): which package the crashed executable
 * belongs to. Its ELF package note (parser/package-note.h) first; else dpkg's database in the
 * task's root: the owner of the path (or, on a merged-/usr root, of its /bin <-> /usr/bin alias) by
 * the installed packages' info/PKG.list files, diversions honoured (the diverted name is the original
 * package's file, the original name the diverter's; a local diversion is nobody's), the version,
 * architecture and source from the status file, and "modified" when the file's md5sum differs from
 * info/PKG.md5sums.
 */

#include <stdbool.h>

#include "parser/package-wire.h"

/* The index of the host's lists kept between crashes (parser/package-index.h): in_fd the kept one
 * (or -1, or any file that is none), out_fd where a new one is written (or -1); written says one
 * was. */
struct package_cache {
        int in_fd, out_fd;
        bool written;
};

/* The package of exe (an absolute path inside root_fd, maybe ending " (deleted)": then by its path
 * only, not checked for changes); container says whose database it is for the error text. *ret is
 * always filled: PACKAGE_FROM_NONE with why when there is none. cache: NULL (every list read), or
 * the index's files. */
void package_attribute(int root_fd, const char *exe, bool container, struct package_cache *cache,
                       struct package_info *ret);

/* `coredumpd-parser --package`: the request read, the cell entered, the answer written. */
int package_main(void);
