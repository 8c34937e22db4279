/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl groups: the matching crashes by signature — how many, first and last seen, the
 * executable and the top frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"

struct group {
        const char *signature;
        const struct entry *first, *last;       /* entries are oldest first */
        size_t count;
};

/* "#0  0x... function + 0x12 (module + 0x..)": the function, or the whole line. */
static char *top_frame(const struct entry *d) {
        const char *bt = fields_get(&d->fields, FIELD_BACKTRACE);
        if (!bt)
                return strdup("-");
        const char *start = strstr(bt, " 0x");
        start = start ? strchr(start + 1, ' ') : NULL;
        start = start ? start + 1 : bt;
        size_t n = strcspn(start, "\n");
        return strndup(start, n);
}

int verb_groups(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        _cleanup_free_ struct group *groups = NULL;
        size_t n = 0, hidden = 0;

        if (gather(&l, &hidden) < 0)
                return EXIT_ERROR;
        groups = calloc(MAX(l.n, 1), sizeof groups[0]);
        if (!groups)
                return log_error_errno(ENOMEM, "%m"), EXIT_ERROR;
        for (size_t i = 0; i < l.n; i++) {
                const char *sig = fields_get(&l.entries[i].fields, FIELD_SIGNATURE);
                if (!sig)
                        continue;
                size_t k = 0;
                while (k < n && strcmp(groups[k].signature, sig) != 0)
                        k++;
                if (k == n)
                        groups[n++] = (struct group) { .signature = sig, .first = &l.entries[i] };
                groups[k].last = &l.entries[i];
                groups[k].count++;
        }
        if (n == 0) {
                fprintf(stderr, "No crash with a signature recorded.\n");
                return arg.n_matches > 0 ? EXIT_NO_DUMP : EXIT_OK;
        }

        if (!arg.json && arg.legend)
                printf("%-16s %6s %-28s %-28s %-30s %s\n", "SIGNATURE", "COUNT", "FIRST", "LAST", "EXE", "TOP FRAME");
        for (size_t k = 0; k < n; k++) {
                const struct group *g = &groups[k];
                char first[64], last[64];
                _cleanup_free_ char *frame = top_frame(g->last);
                const char *exe = field_or(g->last, "COREDUMP_EXE", field_or(g->last, "COREDUMP_COMM", "n/a"));
                if (arg.json) {
                        printf("{\"signature\":");
                        json_string(stdout, g->signature);
                        printf(",\"count\":%zu,\"first_usec\":%llu,\"last_usec\":%llu,\"exe\":", g->count,
                               (unsigned long long) g->first->time_usec, (unsigned long long) g->last->time_usec);
                        json_string(stdout, exe);
                        printf(",\"top_frame\":");
                        json_string(stdout, frame);
                        printf("}\n");
                } else
                        printf("%-16s %6zu %-28s %-28s %-30s %s\n", g->signature, g->count,
                               format_time(first, g->first->time_usec), format_time(last, g->last->time_usec), exe,
                               frame ? frame : "-");
        }
        fflush(stdout);
        return EXIT_OK;
}
