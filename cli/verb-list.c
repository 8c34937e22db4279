/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl list: one line per crash, as a table that fits the terminal, as JSON, or one field. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/parse.h"

/* SIZE has one meaning: the core's size, uncompressed, as recorded ("-" if unknown). What it takes
 * on disk is info's "Disk Size" and JSON's disk_size. */
static const char *entry_size_text(const struct entry *d, char buf[static 32]) {
        const char *core = fields_get(&d->fields, FIELD_CORE_SIZE);
        uint64_t u;
        if (core && parse_size(core, &u) >= 0)
                return format_bytes(buf, u);
        return "-";
}

enum { COL_TIME, COL_HOST, COL_PID, COL_UID, COL_SIG, COL_ACTION, COL_RULE, COL_SIZE, COL_COREFILE, COL_EXE, _COL_MAX };

/* HOST is shown only where the crashes come from more than one machine (a collector's journals). */
static bool shown[_COL_MAX] = {
        [COL_TIME] = true, [COL_PID] = true, [COL_UID] = true, [COL_SIG] = true, [COL_ACTION] = true,
        [COL_RULE] = true, [COL_SIZE] = true, [COL_COREFILE] = true, [COL_EXE] = true,
};

struct row {
        char time[32], pid[24], uid[24], sig[16], size[32];
        const char *cell[_COL_MAX];
};

static void row_fill(struct row *r, const struct entry *d) {
        *r = (struct row) {};
        strcpy(r->pid, "-");
        strcpy(r->uid, "-");
        strcpy(r->sig, "-");
        if (d->pid >= 0)
                snprintf(r->pid, sizeof r->pid, "%lld", d->pid);
        if (d->uid >= 0)
                snprintf(r->uid, sizeof r->uid, "%lld", d->uid);
        const char *signame = fields_get(&d->fields, FIELD_SIGNAL_NAME);
        if (signame && strncmp(signame, "SIG", 3) == 0)
                snprintf(r->sig, sizeof r->sig, "%s", signame + 3);
        else if (d->signal > 0)
                snprintf(r->sig, sizeof r->sig, "%d", d->signal);
        r->cell[COL_TIME] = format_time_short(r->time, d->time_usec);
        r->cell[COL_HOST] = entry_host(d);
        r->cell[COL_PID] = r->pid;
        r->cell[COL_UID] = r->uid;
        r->cell[COL_SIG] = r->sig;
        r->cell[COL_ACTION] = field_or(d, "COREDUMPD_ACTION", "-");
        /* systemd-coredump's record: no rule of ours decided it; its recorder says so. */
        r->cell[COL_RULE] = d->systemd_coredump ? "systemd-coredump" : field_or(d, "COREDUMPD_RULE", "-");
        r->cell[COL_SIZE] = entry_size_text(d, r->size);
        r->cell[COL_COREFILE] = entry_presence_to_string(d->presence);
        r->cell[COL_EXE] = field_or(d, "COREDUMP_EXE", field_or(d, "COREDUMP_COMM", "n/a"));
}

static const char *const headers[_COL_MAX] = {
        "TIME", "HOST", "PID", "UID", "SIG", "ACTION", "RULE", "SIZE", "COREFILE", "EXE",
};
static const bool right_aligned[_COL_MAX] = { [COL_PID] = true, [COL_UID] = true, [COL_SIZE] = true };

/* Every column as wide as its widest cell; RULE and EXE share what the width leaves, EXE (cut at
 * its start, the file name stays) down to 12 columns before RULE (cut at its end) goes below 8. */
static void column_widths(struct row *rows, size_t n, size_t w[_COL_MAX]) {
        size_t fixed = 0;
        for (size_t c = 0; c < _COL_MAX; c++) {
                w[c] = arg.legend ? strlen(headers[c]) : 1;
                for (size_t i = 0; i < n; i++)
                        w[c] = MAX(w[c], strlen(rows[i].cell[c]));
                if (c == COL_HOST)
                        w[c] = MIN(w[c], (size_t) 16);
                if (!shown[c])
                        w[c] = 0;
                else if (c != COL_RULE && c != COL_EXE)
                        fixed += w[c] + 1; /* and the blank after it */
                else if (c == COL_RULE)
                        fixed += 1;
        }
        size_t columns = terminal_columns();
        size_t space = columns > fixed ? columns - fixed : 0;
        size_t rule = w[COL_RULE], exe = w[COL_EXE];
        if (rule + exe <= space)
                return;
        size_t exe_w = MIN(exe, MAX(MIN(exe, (size_t) 12), space > rule ? space - rule : 0));
        size_t rule_w = MIN(rule, MAX(MIN(rule, (size_t) 8), space > exe_w ? space - exe_w : 0));
        exe_w = MAX(space > rule_w ? space - rule_w : 0, MIN(exe, (size_t) 12));
        w[COL_RULE] = rule_w;
        w[COL_EXE] = MIN(exe_w, exe);
}

static void print_row(const char *const cell[_COL_MAX], const size_t w[_COL_MAX], const char *const color[_COL_MAX],
                      const char *end) {
        for (size_t c = 0; c < _COL_MAX; c++) {
                bool last = c == _COL_MAX - 1;
                if (!shown[c])
                        continue;
                if (c > 0)
                        putchar(' ');
                if (color && color[c] && *color[c])
                        fputs(color[c], stdout);
                if (right_aligned[c] && strlen(cell[c]) < w[c])
                        printf("%*s", (int) (w[c] - strlen(cell[c])), "");
                print_cell(cell[c], w[c], c == COL_EXE, !last && !right_aligned[c]);
                if (color && color[c] && *color[c])
                        fputs(ansi(ANSI_NORMAL), stdout);
        }
        fputs(end, stdout);
        putchar('\n');
}

static int list_table(const struct entry_list *l) {
        _cleanup_free_ struct row *rows = calloc(MAX(l->n, (size_t) 1), sizeof *rows);
        size_t w[_COL_MAX];

        if (!rows)
                return EXIT_ERROR;
        const char *host = NULL;
        for (size_t i = 0; i < l->n; i++) {
                row_fill(&rows[i], &l->entries[i]);
                /* More than one host named: a collector's journals (-D), or --all. */
                const char *h = rows[i].cell[COL_HOST];
                if (strcmp(h, "-") == 0)
                        continue;
                if (host && strcmp(h, host) != 0)
                        shown[COL_HOST] = true;
                host = h;
        }
        column_widths(rows, l->n, w);

        if (arg.legend) {
                /* The header underlined as one line, as systemd's tables have it. */
                fputs(ansi(ANSI_UNDERLINE), stdout);
                print_row(headers, w, NULL, ansi(ANSI_NORMAL));
        }
        for (size_t i = 0; i < l->n; i++) {
                const char *color[_COL_MAX] = { [COL_COREFILE] = presence_color(l->entries[i].presence) };
                print_row(rows[i].cell, w, color, "");
        }
        return EXIT_OK;
}

int verb_list(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        size_t hidden = 0;

        if (gather(&l, &hidden, arg.lines) < 0)
                return EXIT_ERROR;

        if (arg.json != JSON_OFF) {
                struct json_writer w;
                json_list_begin(&w, stdout, arg.json);
                for (size_t i = 0; i < l.n; i++)
                        json_entry(&w, &l.entries[i], false);
                json_list_end(&w);
                return l.n > 0 ? EXIT_OK : no_dump_status(hidden);
        }
        if (l.n == 0)
                return no_dump_status(hidden);

        if (arg.field) {
                /* -F: the values the field takes among the matching crashes, each once, in the order
                 * first seen, as coredumpctl -F (journalctl -F) prints them. */
                for (size_t i = 0; i < l.n; i++) {
                        const char *v = fields_get_name(&l.entries[i].fields, arg.field);
                        bool seen = false;
                        for (size_t k = 0; v && k < i && !seen; k++) {
                                const char *o = fields_get_name(&l.entries[k].fields, arg.field);
                                seen = o && strcmp(o, v) == 0;
                        }
                        if (v && !seen)
                                puts(v);
                }
                return EXIT_OK;
        }
        return list_table(&l);
}
