/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl groups: the matching crashes by signature — how many, on how many machines, first and
 * last seen, the newest one's host, the executable and the top frame. With -D/--file on a
 * collector's journals (systemd-journal-remote), a group spans the fleet. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"

struct group {
        const char *signature;
        const struct entry *first, *last;       /* by time */
        size_t count;
        const char **machines;                  /* distinct machines (machine_of()) */
        size_t n_machines;
};

static const char *machine_of(const struct entry *d) {
        return entry_machine(d);
}

static const char *host_of(const struct entry *d) {
        return entry_host(d);
}

static int group_add_machine(struct group *g, const char *machine, size_t max) {
        for (size_t i = 0; i < g->n_machines; i++)
                if (strcmp(g->machines[i], machine) == 0)
                        return 0;
        if (!g->machines && !(g->machines = calloc(max, sizeof g->machines[0])))
                return -ENOMEM;
        g->machines[g->n_machines++] = machine;
        return 0;
}

static void groups_free(struct group *groups, size_t n) {
        for (size_t k = 0; k < n; k++)
                free(groups[k].machines);
        free(groups);
}

/* "#0  0x... function + 0x12 (module + 0x..)": the function (named from its debug file where the
 * record could not, symbols.c), or the whole line. */
static char *top_frame(const struct entry *d) {
        const char *recorded = fields_get(&d->fields, FIELD_BACKTRACE);
        if (!recorded)
                return strdup("-");
        _cleanup_free_ char *named = symbols_backtrace(d, recorded);
        const char *bt = named ?: recorded;
        const char *start = strstr(bt, " 0x");
        start = start ? strchr(start + 1, ' ') : NULL;
        start = start ? start + 1 : bt;
        size_t n = strcspn(start, "\n");
        return strndup(start, n);
}

int verb_groups(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        struct group *groups = NULL;
        size_t n = 0, hidden = 0;
        int status = EXIT_OK;

        if (gather(&l, &hidden, arg.lines) < 0)
                return EXIT_ERROR;
        groups = calloc(MAX(l.n, 1), sizeof groups[0]);
        if (!groups)
                return log_error_errno(ENOMEM, "%m"), EXIT_ERROR;
        for (size_t i = 0; i < l.n; i++) {
                const struct entry *d = &l.entries[i];
                const char *sig = fields_get(&d->fields, FIELD_SIGNATURE);
                if (!sig)
                        continue;
                size_t k = 0;
                while (k < n && strcmp(groups[k].signature, sig) != 0)
                        k++;
                if (k == n)
                        groups[n++] = (struct group) { .signature = sig, .first = d, .last = d };
                /* Oldest first, or newest first with -r: compare the times. */
                if (d->time_usec < groups[k].first->time_usec)
                        groups[k].first = d;
                if (d->time_usec >= groups[k].last->time_usec)
                        groups[k].last = d;
                groups[k].count++;
                if (group_add_machine(&groups[k], machine_of(d), l.n) < 0) {
                        log_error_errno(ENOMEM, "%m");
                        groups_free(groups, n);
                        return EXIT_ERROR;
                }
        }

        if (arg.json != JSON_OFF) {
                struct json_writer w;
                json_list_begin(&w, stdout, arg.json);
                for (size_t k = 0; k < n; k++) {
                        const struct group *g = &groups[k];
                        _cleanup_free_ char *frame = top_frame(g->last);
                        json_object_begin(&w);
                        json_field_string(&w, "signature", g->signature);
                        json_field_unsigned(&w, "count", g->count);
                        json_field_unsigned(&w, "hosts", g->n_machines);
                        json_field_unsigned(&w, "first_usec", g->first->time_usec);
                        json_field_unsigned(&w, "last_usec", g->last->time_usec);
                        json_field_string(&w, "last_host", host_of(g->last));
                        json_field_string(&w, "exe", field_or(g->last, "COREDUMP_EXE", field_or(g->last, "COREDUMP_COMM", NULL)));
                        json_field_string(&w, "top_frame", frame);
                        json_object_end(&w);
                }
                json_list_end(&w);
        }
        if (n == 0) {
                if (!arg.quiet)
                        log_notice("No matching crash with a signature recorded.");
                status = EXIT_NO_DUMP;
                goto finish;
        }
        if (arg.json != JSON_OFF)
                goto finish;

        /* SIGNATURE COUNT HOSTS FIRST LAST HOST EXE TOP FRAME: EXE (cut at its start) and the frame
         * share the width. */
        size_t exe_w = 3, count_w = 5, hosts_w = 5, host_w = 4, columns = terminal_columns();
        for (size_t k = 0; k < n; k++)
                host_w = MIN(MAX(host_w, strlen(host_of(groups[k].last))), (size_t) 16);
        for (size_t k = 0; k < n; k++)
                exe_w = MAX(exe_w, strlen(field_or(groups[k].last, "COREDUMP_EXE", field_or(groups[k].last, "COREDUMP_COMM", "n/a"))));
        size_t fixed = 16 + 1 + count_w + 1 + hosts_w + 1 + 19 + 1 + 19 + 1 + host_w + 1;
        size_t space = columns > fixed + 1 ? columns - fixed - 1 : 0;
        if (exe_w > space / 2)
                exe_w = MAX(MIN(exe_w, (size_t) 12), space / 2);
        size_t frame_w = MAX(space > exe_w ? space - exe_w : 0, (size_t) 9);

        if (arg.legend) {
                printf("%s%-16s %*s %*s %-19s %-19s ", ansi(ANSI_UNDERLINE), "SIGNATURE", (int) count_w, "COUNT",
                       (int) hosts_w, "HOSTS", "FIRST", "LAST");
                print_cell("HOST", host_w, false, true);
                putchar(' ');
                print_cell("EXE", exe_w, false, true);
                printf(" %s%s\n", "TOP FRAME", ansi(ANSI_NORMAL));
        }
        for (size_t k = 0; k < n; k++) {
                const struct group *g = &groups[k];
                char first[32], last[32];
                _cleanup_free_ char *frame = top_frame(g->last);
                printf("%-16s %*zu %*zu %-19s %-19s ", g->signature, (int) count_w, g->count, (int) hosts_w,
                       g->n_machines, format_time_short(first, g->first->time_usec),
                       format_time_short(last, g->last->time_usec));
                print_cell(host_of(g->last), host_w, false, true);
                putchar(' ');
                print_cell(field_or(g->last, "COREDUMP_EXE", field_or(g->last, "COREDUMP_COMM", "n/a")), exe_w, true, true);
                putchar(' ');
                print_cell(frame ? frame : "-", frame_w, false, false);
                putchar('\n');
        }
        fflush(stdout);
finish:
        groups_free(groups, n);
        return status;
}
