/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfdump/dump-filter.h"
#include "shared/cleanup.h"

static enum dump_extent extent_min(enum dump_extent a, enum dump_extent b) {
        return a < b ? a : b;
}

/* The kernel's order: special mappings, VM_DONTDUMP, DAX, hugetlb, VM_IO, shared, written-to
 * private, file private, the ELF header. */
static enum dump_extent extent_known_dax(const struct dump_facts *f, uint32_t filter, bool dax) {
        if (f->special)
                return DUMP_WHOLE;
        if (!f->known || f->dontdump)
                return DUMP_NOTHING;
        if (dax)
                return (filter & (f->shared ? DUMP_FILTER_DAX_SHARED : DUMP_FILTER_DAX_PRIVATE)) ? DUMP_WHOLE
                                                                                                : DUMP_NOTHING;
        if (f->hugetlb)
                return (filter & (f->shared ? DUMP_FILTER_HUGETLB_SHARED : DUMP_FILTER_HUGETLB_PRIVATE))
                               ? DUMP_WHOLE
                               : DUMP_NOTHING;
        if (f->io)
                return DUMP_NOTHING;
        if (f->shared)
                /* VM_SHARED always has a file (shmem for anonymous shared memory). */
                return (filter & (f->unlinked ? DUMP_FILTER_ANON_SHARED : DUMP_FILTER_MAPPED_SHARED)) ? DUMP_WHOLE
                                                                                                       : DUMP_NOTHING;
        if (f->anon_pages && (filter & DUMP_FILTER_ANON_PRIVATE))
                return DUMP_WHOLE;
        if (!f->file)
                return DUMP_NOTHING;
        if (filter & DUMP_FILTER_MAPPED_PRIVATE)
                return DUMP_WHOLE;
        if ((filter & DUMP_FILTER_ELF_HEADERS) && f->offset_zero && f->read)
                return DUMP_ELF_HEADER;
        return DUMP_NOTHING;
}

enum dump_extent dump_extent_of(const struct dump_facts *f, uint32_t filter) {
        switch (f->dax) {
        case TRI_YES:
                return extent_known_dax(f, filter, true);
        case TRI_MAYBE:
                return extent_min(extent_known_dax(f, filter, true), extent_known_dax(f, filter, false));
        default:
                return extent_known_dax(f, filter, false);
        }
}

static bool path_has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);
        return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Names the kernel gives mappings in brackets: those of special mappings ([vdso], [vvar],
 * [vsyscall], [uprobes], ...: a vm_ops name, or the gate VMA), which are always dumped, and these,
 * which are not special. */
static bool path_is_special(const char *p) {
        if (!p || p[0] != '[' || !path_has_suffix(p, "]"))
                return false;
        return !(strcmp(p, "[heap]") == 0 || strcmp(p, "[stack]") == 0 || strncmp(p, "[stack:", 7) == 0 ||
                 strncmp(p, "[anon:", 6) == 0 || strncmp(p, "[anon_shmem:", 12) == 0);
}

void dump_facts_of(const struct proc_mapping *m, struct dump_facts *ret) {
        bool file = m->inode != 0 || proc_mapping_is_file(m) || (m->path && strncmp(m->path, "[anon_shmem:", 12) == 0);
        enum tristate dax = (enum tristate) m->dax;

        if (m->path && strncmp(m->path, "/dev/dax", 8) == 0)
                dax = TRI_YES;
        *ret = (struct dump_facts) {
                .known = m->smaps_known,
                .read = m->vm_flags & PROC_VM_READ,
                .shared = m->vm_flags & PROC_VM_SHARED,
                .io = m->vm_flags & PROC_VM_IO,
                .dontdump = m->vm_flags & PROC_VM_DONTDUMP,
                .hugetlb = m->vm_flags & PROC_VM_HUGETLB,
                .dax = file ? dax : TRI_NO,
                .special = !file && path_is_special(m->path),
                .file = file,
                .unlinked = file && m->path &&
                            (path_has_suffix(m->path, " (deleted)") || strncmp(m->path, "[anon_shmem:", 12) == 0),
                .anon_pages = m->anon_pages,
                .offset_zero = m->offset == 0,
        };
}

int parse_coredump_filter(const char *text, uint32_t *ret) {
        char *end;

        if (!text || !((text[0] >= '0' && text[0] <= '9') || (text[0] >= 'a' && text[0] <= 'f') ||
                       (text[0] >= 'A' && text[0] <= 'F')))
                return -EINVAL;
        errno = 0;
        unsigned long long v = strtoull(text, &end, 16);
        if (errno != 0 || end == text || (*end != 0 && strcmp(end, "\n") != 0))
                return -EINVAL;
        *ret = (uint32_t) (v & DUMP_FILTER_MASK);
        return 0;
}

/* ---- /proc/<pid>/smaps ------------------------------------------------------------------------ */

/* A block's header is a maps line: "start-end perms offset dev inode [path]". */
static bool smaps_header(const char *line, size_t len, uint64_t *start, uint64_t *end) {
        char buf[64];
        size_t k = MIN(len, sizeof buf - 1);
        unsigned long long s, e;
        int n = 0;

        memcpy(buf, line, k);
        buf[k] = 0;
        if (sscanf(buf, "%llx-%llx %n", &s, &e, &n) != 2 || n == 0)
                return false;
        *start = s;
        *end = e;
        return true;
}

/* "Name:   N kB" → N > 0 */
static int smaps_kb_positive(const char *line, size_t len, const char *name, bool *ret) {
        size_t k = strlen(name);
        char buf[64];

        if (len <= k || strncmp(line, name, k) != 0)
                return 0;
        size_t n = MIN(len - k, sizeof buf - 1);
        memcpy(buf, line + k, n);
        buf[n] = 0;
        unsigned long long v;
        if (sscanf(buf, " %llu kB", &v) != 1)
                return -EINVAL;
        *ret = v > 0;
        return 1;
}

static int smaps_vmflags(const char *line, size_t len, uint32_t *ret) {
        static const struct {
                char code[3];
                uint32_t flag;
        } known[] = {
                { "rd", PROC_VM_READ }, { "sh", PROC_VM_SHARED },   { "io", PROC_VM_IO },
                { "dd", PROC_VM_DONTDUMP }, { "ht", PROC_VM_HUGETLB },
        };
        uint32_t flags = 0;
        size_t i = strlen("VmFlags:");

        for (;;) {
                while (i < len && line[i] == ' ')
                        i++;
                if (i >= len)
                        break;
                size_t w = i;
                while (w < len && line[w] != ' ')
                        w++;
                if (w - i != 2)
                        return -EINVAL;
                for (size_t k = 0; k < ELEMENTSOF(known); k++)
                        if (memcmp(line + i, known[k].code, 2) == 0)
                                flags |= known[k].flag;
                i = w;
        }
        *ret = flags;
        return 0;
}

static bool is_hex_digit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int proc_smaps_annotate(const char *text, struct proc_maps *m) {
        struct proc_mapping *cur = NULL;

        for (const char *line = text; line && *line;) {
                const char *eol = strchr(line, '\n');
                size_t len = eol ? (size_t) (eol - line) : strlen(line);
                uint64_t start, end;
                bool positive = false;
                int r = 0;

                if (len >= 8 && strncmp(line, "VmFlags:", 8) == 0) {
                        uint32_t flags;
                        r = smaps_vmflags(line, len, &flags);
                        if (r >= 0 && cur) {
                                cur->vm_flags = flags;
                                cur->smaps_known = true;
                        }
                } else if (len > 0 && is_hex_digit(line[0])) {
                        /* Field names start with a capital: this is the next mapping's header. */
                        if (!smaps_header(line, len, &start, &end))
                                return -EINVAL;
                        struct proc_mapping *p = (struct proc_mapping *) proc_maps_find(m, start);
                        cur = p && p->start == start && p->end == end ? p : NULL;
                } else if ((r = smaps_kb_positive(line, len, "Anonymous:", &positive)) == 0)
                        r = smaps_kb_positive(line, len, "Swap:", &positive);
                if (r < 0)
                        return r;
                if (positive && cur)
                        cur->anon_pages = true;
                line = eol ? eol + 1 : NULL;
        }
        return 0;
}
