/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl info: everything recorded about each matching crash (without a match: the newest). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/policy.h"
#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/saved-files.h"
#include "shared/timestamp.h"

static void print_rule_origin(const char *name) {
        _cleanup_(policy_unrefp) struct policy *p = NULL;
        int saved = log_get_max_priority();

        log_set_max_priority(LOG_CRIT); /* a broken policy is `dumpctl policy`'s business */
        int r = policy_load(policy_dirs_or_default(arg.policy_dirs), &p);
        log_set_max_priority(saved);
        if (r < 0 || !name)
                return;
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct policy_rule *rule = &p->rules[i];
                if (strcmp(rule->name, name) != 0)
                        continue;
                if (rule->source)
                        printf("   Rule Source: %s:%u (as it is now)\n", rule->source, rule->line);
                else
                        printf("   Rule Source: built-in\n");
                return;
        }
        printf("   Rule Source: no longer in the policy\n");
}

static bool same_text(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/* Where the core is: the file and its state, and the compact core the record carries (the one
 * read where the file is gone or on another machine), or why it has none. */
static void print_storage(const struct entry *d) {
        const char *path = fields_get(&d->fields, FIELD_FILENAME);
        const char *error = fields_get(&d->fields, FIELD_JOURNAL_CORE_ERROR);
        char compact[96] = "";

        if (d->journal_core && d->journal_core_size > 0)
                snprintf(compact, sizeof compact, "compact core in the journal%s, %" PRIu64 " bytes",
                         d->presence == ENTRY_JOURNAL ? "" : " too", d->journal_core_size);
        else if (d->journal_core)
                snprintf(compact, sizeof compact, "compact core in the journal%s", d->presence == ENTRY_JOURNAL ? "" : " too");
        if (!path) {
                if (compact[0])
                        printf("       Storage: journal (%s%s%s)\n", presence_color(d->presence), compact, ansi(ANSI_NORMAL));
                else
                        printf("       Storage: none\n");
                return;
        }
        /* The file's own state; the record's core is said after it. */
        const char *state = d->presence != ENTRY_JOURNAL ? entry_presence_to_string(d->presence)
                            : d->remote                  ? entry_presence_to_string(ENTRY_REMOTE)
                                                         : entry_presence_to_string(ENTRY_MISSING);
        printf("       Storage: %s (%s%s%s%s%s)\n", path, presence_color(d->presence), state, compact[0] ? "; " : "", compact,
               ansi(ANSI_NORMAL));
        if (!d->journal_core && error)
                printf("  Compact Core: none (%s)\n", error);
}

/* The package of the executable (COREDUMP_PACKAGE_*, COREDUMPD_PACKAGE_*), or why it has none. */
static void print_package(const struct entry *d) {
        const char *name = fields_get(&d->fields, FIELD_PACKAGE_NAME);
        const char *v;

        if (!name) {
                if ((v = fields_get(&d->fields, FIELD_PACKAGE_ERROR)))
                        printf("       Package: none (%s)\n", v);
                return;
        }
        printf("       Package: %s %s", name, field_or(d, "COREDUMP_PACKAGE_VERSION", "?"));
        const char *arch = fields_get(&d->fields, FIELD_PACKAGE_ARCHITECTURE);
        const char *source = fields_get(&d->fields, FIELD_PACKAGE_SOURCE);
        const char *source_version = fields_get(&d->fields, FIELD_PACKAGE_SOURCE_VERSION);
        const char *from = fields_get(&d->fields, FIELD_PACKAGE_FROM);
        const char *modified = fields_get(&d->fields, FIELD_PACKAGE_MODIFIED);
        printf(" (%s%s", arch ? "arch " : "", arch ? arch : "");
        if (source)
                printf("%ssource %s%s%s", arch ? ", " : "", source, source_version ? " " : "", source_version ? source_version : "");
        printf("%sfrom %s)", arch || source ? ", " : "", from ? from : "?");
        if (modified && strcmp(modified, "yes") == 0)
                printf(" %sMODIFIED%s: the file is not the one the package installed", ansi(ANSI_RED), ansi(ANSI_NORMAL));
        putchar('\n');
        if ((v = fields_get(&d->fields, FIELD_PACKAGE_FILE)) && !same_text(v, fields_get(&d->fields, FIELD_EXE)))
                printf("  Package File: %s\n", v);
        if (modified)
                printf("      Modified: %s\n", modified);
}

static void info_one(const struct entry *d) {
        char tbuf[64], rbuf[64], sbuf[32];
        const char *comm = field_or(d, "COREDUMP_COMM", "n/a");
        const char *v;

        printf("           PID: %s%lld (%s)%s\n", ansi(ANSI_BOLD), d->pid, comm, ansi(ANSI_NORMAL));
        printf("           UID: %s\n", field_or(d, "COREDUMP_UID", "n/a"));
        printf("           GID: %s\n", field_or(d, "COREDUMP_GID", "n/a"));
        if (d->signal > 0)
                printf("        Signal: %s%d (%s)%s\n", ansi(ANSI_RED), d->signal, field_or(d, "COREDUMP_SIGNAL_NAME", "?"),
                       ansi(ANSI_NORMAL));
        if (d->time_usec > 0)
                printf("     Timestamp: %s (%s)\n", format_time(tbuf, d->time_usec),
                       format_timestamp_relative(rbuf, d->time_usec, now_usec()));
        else
                printf("     Timestamp: n/a\n");
        if ((v = fields_get(&d->fields, FIELD_CMDLINE)))
                printf("  Command Line: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_EXE)))
                printf("    Executable: %s%s\n", v, entry_in_own_mount_namespace(d) ? " (in its own mount namespace)" : "");
        print_package(d);
        if ((v = fields_get(&d->fields, FIELD_CGROUP)))
                printf(" Control Group: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_UNIT)))
                printf("          Unit: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_USER_UNIT)))
                printf("     User Unit: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_SLICE)))
                printf("         Slice: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_CONTAINER))) {
                const char *kind = fields_get(&d->fields, FIELD_CONTAINER_KIND);
                printf("     Container: %s%s%s%s\n", v, kind ? " (" : "", kind ? kind : "", kind ? ")" : "");
        }
        if ((v = fields_get(&d->fields, FIELD_NS_PID)) && !same_text(v, fields_get(&d->fields, FIELD_PID)))
                printf("    PID Inside: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_NS_UID)) && !same_text(v, fields_get(&d->fields, FIELD_UID)))
                printf("    UID Inside: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_BOOT_ID)))
                printf("       Boot ID: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_CRASH_ID)))
                printf("      Crash ID: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_HOSTNAME)))
                printf("      Hostname: %s\n", v);
        if ((v = fields_get_name(&d->fields, "COREDUMP_PACKAGE_NAME"))) {
                const char *version = fields_get_name(&d->fields, "COREDUMP_PACKAGE_VERSION");
                printf("       Package: %s%s%s\n", v, version ? " " : "", version ? version : "");
        }
        if ((v = fields_get(&d->fields, FIELD_SIGNATURE)))
                printf("     Signature: %s%s\n", v, fields_get(&d->fields, FIELD_SIGNATURE_PARTIAL) ? " (partial trace)" : "");
        if ((v = fields_get(&d->fields, FIELD_REPEAT)))
                printf("       Repeats: %s (crashes of this signature in its interval, this one included)\n", v);
        if (d->systemd_coredump) {
                /* Read-only: no policy of ours decided it; its core is opened only where
                 * systemd-coredump keeps them (reader/entries.h). */
                printf("   Recorded By: systemd-coredump (read-only: no coredumpd rule, signature or repeat count)\n");
                print_storage(d);
                goto rest;
        }
        printf("        Action: %s\n", field_or(d, "COREDUMPD_ACTION", "n/a"));
        printf("          Rule: %s\n", field_or(d, "COREDUMPD_RULE", "n/a"));
        print_rule_origin(fields_get(&d->fields, FIELD_RULE));
        printf("        Result: %s\n", field_or(d, "COREDUMPD_RESULT", "n/a"));
        if ((v = fields_get(&d->fields, FIELD_ERROR)))
                printf("         Error: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_MARK)))
                printf("   Kernel Mark: %s\n", v);
        print_storage(d);
        if (fields_get(&d->fields, FIELD_SAVED_FILE)) {
                _cleanup_(saved_files_done) struct saved_files files = {};
                if (saved_files_from_fields(&d->fields, &files) < 0)
                        printf("   Saved Files: (malformed)\n");
                for (size_t i = 0; i < files.n; i++) {
                        const struct saved_file *f = &files.v[i];
                        printf("%s %s (%s%s%s)\n", i == 0 ? "   Saved Files:" : "               ", f->path,
                               f->stored ? "kept as " : f->host ? "same as the host's" : "not kept",
                               f->stored ? f->stored : "", f->build_id[0] ? "" : ", no build-id");
                }
        }
rest:
        if ((v = fields_get(&d->fields, FIELD_CORE_SIZE)))
                printf("     Core Size: %s%s\n", v, fields_get(&d->fields, FIELD_TRUNCATED) ? " (truncated)" : "");
        if (d->presence == ENTRY_PRESENT)
                printf("     Disk Size: %s\n", format_bytes(sbuf, d->disk_size));
        /* Whose word the record is (reader/entries.h), and so what is opened for it. */
        printf("        Source: %s%s\n", entry_source_to_string(d->source),
               !d->foreign           ? ""
               : d->found            ? " (foreign: not this machine's own system journal; no path it names is opened)"
               : d->remote           ? " (foreign: another machine's; the core file it names is not opened here)"
               : d->systemd_coredump ? " (foreign: systemd-coredump's; only a core file of root's right in "
                                       SYSTEMD_COREDUMP_DIR " is opened)"
                                     : " (foreign: not this machine's own system journal; only a core file right in the "
                                       "store is opened)");
        if ((v = fields_get(&d->fields, FIELD_MESSAGE)))
                printf("       Message: %s\n", v);

        const char *bt = fields_get_name(&d->fields, "COREDUMPD_BACKTRACE") ?: fields_get_name(&d->fields, "COREDUMP_BACKTRACE");
        if (bt) {
                /* Frames of stripped binaries named from their debug files, where found. */
                _cleanup_free_ char *named = symbols_backtrace(d, bt);
                printf("\n     %sBacktrace:%s\n%s\n", ansi(ANSI_BOLD), ansi(ANSI_NORMAL), named ?: bt);
        }

        printf("\n        %sFields:%s\n", ansi(ANSI_BOLD), ansi(ANSI_NORMAL));
        for (size_t i = 0; i < d->fields.n; i++) {
                const char *e = d->fields.v[i].iov_base;
                if (strncmp(e, "COREDUMP", 8) != 0)
                        continue;
                /* A field of many lines (COREDUMP_PROC_MAPS=, ...) keeps to the column: each of
                 * its lines indented as the first. */
                for (const char *line = e; *line;) {
                        size_t len = strcspn(line, "\n");
                        printf("%s%.*s\n", line == e ? "                " : "                    ", (int) len, line);
                        line += len + (line[len] == '\n');
                }
        }
}

int verb_info(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        size_t hidden = 0;

        /* Without a match, as coredumpctl: the newest crash only (unless -n says how many). */
        size_t limit = arg.lines_given ? arg.lines : arg.n_matches == 0 ? 1 : 0;
        if (gather(&l, &hidden, limit) < 0)
                return EXIT_ERROR;
        if (arg.json != JSON_OFF) {
                /* The same objects as list's, with info's keys more (json.c: the one JSON path). */
                struct json_writer w;
                json_list_begin(&w, stdout, arg.json);
                for (size_t i = 0; i < l.n; i++)
                        json_entry(&w, &l.entries[i], true);
                json_list_end(&w);
                return l.n > 0 ? EXIT_OK : no_dump_status(hidden);
        }
        if (l.n == 0)
                return no_dump_status(hidden);
        for (size_t i = 0; i < l.n; i++) {
                if (i > 0)
                        putchar('\n');
                info_one(&l.entries[i]);
        }
        return EXIT_OK;
}
