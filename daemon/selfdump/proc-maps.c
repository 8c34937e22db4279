/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfdump/proc-maps.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"

#define MAPS_MAX (16U * 1024 * 1024)

void proc_maps_done(struct proc_maps *m) {
        for (size_t i = 0; i < m->n; i++)
                free(m->mappings[i].path);
        free(m->mappings);
        *m = (struct proc_maps) {};
}

/* "start-end perms offset dev inode [path]" */
static int parse_line(const char *line, size_t len, struct proc_mapping *ret) {
        _cleanup_free_ char *copy = strndup(line, len);
        unsigned long long start, end, offset, inode;
        char perms[8];
        int path_at = -1;

        if (!copy)
                return -ENOMEM;
        if (sscanf(copy, "%llx-%llx %7s %llx %*x:%*x %llu %n", &start, &end, perms, &offset, &inode, &path_at) < 5 ||
            strlen(perms) != 4 || end < start)
                return -EINVAL;

        *ret = (struct proc_mapping) {
                .start = start,
                .end = end,
                .offset = offset,
                .read = perms[0] == 'r',
                .write = perms[1] == 'w',
                .exec = perms[2] == 'x',
                .shared = perms[3] == 's',
                .inode = inode,
        };
        if (path_at > 0 && copy[path_at]) {
                ret->path = strdup(copy + path_at);
                if (!ret->path)
                        return -ENOMEM;
        }
        return 0;
}

int proc_maps_parse(const char *text, struct proc_maps *ret) {
        struct proc_maps m = {};

        for (const char *line = text; line && *line;) {
                const char *eol = strchr(line, '\n');
                size_t len = eol ? (size_t) (eol - line) : strlen(line);

                if (len > 0) {
                        struct proc_mapping *grown = realloc(m.mappings, (m.n + 1) * sizeof *grown);
                        if (!grown) {
                                proc_maps_done(&m);
                                return -ENOMEM;
                        }
                        m.mappings = grown;
                        int r = parse_line(line, len, &m.mappings[m.n]);
                        if (r < 0) {
                                proc_maps_done(&m);
                                return r;
                        }
                        m.n++;
                }
                line = eol ? eol + 1 : NULL;
        }
        *ret = m;
        return 0;
}

int proc_maps_read(int proc_fd, struct proc_maps *ret) {
        _cleanup_free_ char *text = NULL;
        int truncated = 0;

        int r = read_file_at(proc_fd, "maps", MAPS_MAX, &text, NULL, &truncated);
        if (r < 0)
                return r;
        if (truncated)
                return -EFBIG;
        return proc_maps_parse(text, ret);
}

const struct proc_mapping *proc_maps_find(const struct proc_maps *m, uint64_t addr) {
        size_t lo = 0, hi = m->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (addr < m->mappings[mid].start)
                        hi = mid;
                else if (addr >= m->mappings[mid].end)
                        lo = mid + 1;
                else
                        return &m->mappings[mid];
        }
        return NULL;
}

bool proc_mapping_is_file(const struct proc_mapping *p) {
        return p->path && p->path[0] == '/';
}
