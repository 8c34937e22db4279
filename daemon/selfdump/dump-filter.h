/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What of each mapping a core may hold, decided as the kernel's vma_dump_size() (fs/coredump.c)
 * decides for its own cores: MADV_DONTDUMP, /proc/<pid>/coredump_filter, VM_IO, hugetlb and DAX
 * memory, and the special mappings that are always dumped. The kernel's facts about a mapping come
 * from /proc/<pid>/smaps (VmFlags, Anonymous, Swap) and mountinfo; where one is not known, the
 * smaller of the two possible answers is taken, so a self-made core never holds what the kernel's
 * would leave out:
 *
 *   anon_vma   the kernel dumps a private mapping whole once it has an anon_vma (it was written
 *              to); /proc shows only anonymous pages (Anonymous:, Swap:), and a mapping whose
 *              anonymous pages all went again (MADV_DONTNEED) still has its anon_vma: taken as
 *              none — less than the kernel dumps, never more
 *   ELF header an executable file (mode 0111) at offset 0 gives its first page, as does one whose
 *              first bytes are the ELF magic; only the magic is checked here (the mapped file is
 *              not looked up) — an executable that is not ELF gives nothing
 *   unlinked   a shared mapping of an unlinked file (MAP_SHARED|MAP_ANONYMOUS, SysV shm, memfd)
 *              counts as anonymous shared memory: its maps path ends in " (deleted)" or is
 *              "[anon_shmem:...]"
 *   DAX        a file on a mount whose options say dax or dax=always, or /dev/dax*; dax=inode
 *              leaves it open (the smaller answer)
 */

#include <stdbool.h>
#include <stdint.h>

#include "selfdump/proc-maps.h"

/* The bits of /proc/<pid>/coredump_filter (MMF_DUMP_*). */
enum {
        DUMP_FILTER_ANON_PRIVATE = 1U << 0,
        DUMP_FILTER_ANON_SHARED = 1U << 1,
        DUMP_FILTER_MAPPED_PRIVATE = 1U << 2,
        DUMP_FILTER_MAPPED_SHARED = 1U << 3,
        DUMP_FILTER_ELF_HEADERS = 1U << 4,
        DUMP_FILTER_HUGETLB_PRIVATE = 1U << 5,
        DUMP_FILTER_HUGETLB_SHARED = 1U << 6,
        DUMP_FILTER_DAX_PRIVATE = 1U << 7,
        DUMP_FILTER_DAX_SHARED = 1U << 8,
        DUMP_FILTER_MASK = (1U << 9) - 1,
};

enum tristate { TRI_NO, TRI_YES, TRI_MAYBE };

/* What the kernel knows of a mapping that matters to the decision. */
struct dump_facts {
        bool known;             /* smaps had this mapping's VmFlags; without them nothing is dumped */
        bool read;              /* VM_READ ("rd") */
        bool shared;            /* VM_SHARED ("sh"; maps' 's' is VM_MAYSHARE) */
        bool io;                /* VM_IO ("io") */
        bool dontdump;          /* VM_DONTDUMP ("dd"): MADV_DONTDUMP, or the kernel's own */
        bool hugetlb;           /* VM_HUGETLB ("ht") */
        enum tristate dax;
        bool special;           /* always dumped: [vdso], [vvar], [vsyscall], [uprobes], ... */
        bool file;              /* vm_file is set */
        bool unlinked;          /* the file's i_nlink is 0 */
        bool anon_pages;        /* anonymous pages in memory or swapped out: an anon_vma */
        bool offset_zero;       /* vm_pgoff == 0 */
};

enum dump_extent {
        DUMP_NOTHING,
        DUMP_ELF_HEADER,        /* the first page, if it starts with the ELF magic */
        DUMP_WHOLE,
};

/* vma_dump_size() of the kernel, for these facts and filter bits. */
enum dump_extent dump_extent_of(const struct dump_facts *f, uint32_t filter);

/* The facts of a mapping of m (after proc_smaps_annotate()). */
void dump_facts_of(const struct proc_mapping *m, struct dump_facts *ret);

/* The text of /proc/<pid>/coredump_filter ("%08lx\n"); -EINVAL unless it is one hex number. */
int parse_coredump_filter(const char *text, uint32_t *ret);

/* Adds to each mapping of m what the text of /proc/<pid>/smaps says of it: its VmFlags, whether it
 * has anonymous pages. A block whose range is not a mapping of m is skipped; -EINVAL on a
 * malformed header or VmFlags line. */
int proc_smaps_annotate(const char *text, struct proc_maps *m);
