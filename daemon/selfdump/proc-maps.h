/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * /proc/<pid>/maps as a sorted array of mappings, for the self-generated core: which ranges exist,
 * their permissions, and which file (at which offset) backs them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_mapping {
        uint64_t start, end;            /* [start, end) */
        uint64_t offset;                /* file offset of start */
        bool read, write, exec, shared;
        uint64_t inode;
        char *path;                     /* "/usr/lib/…", "[stack]", "[heap]", "[vdso]"…, or NULL */
};

struct proc_maps {
        struct proc_mapping *mappings;
        size_t n;
};

/* Parses the text of a maps file. -EINVAL on a malformed line. */
int proc_maps_parse(const char *text, struct proc_maps *ret);
/* Reads <proc_fd>/maps and parses it. */
int proc_maps_read(int proc_fd, struct proc_maps *ret);
void proc_maps_done(struct proc_maps *m);

/* The mapping holding addr, or NULL. */
const struct proc_mapping *proc_maps_find(const struct proc_maps *m, uint64_t addr);

/* A mapping of a file (its path starts with '/'). */
bool proc_mapping_is_file(const struct proc_mapping *p);
