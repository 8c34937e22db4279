/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl list: one line per crash, as a table or as JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/parse.h"

static void json_number_field(FILE *f, const struct entry *d, const char *key, const char *field) {
        const char *v = fields_get_name(&d->fields, field);
        fprintf(f, ",\"%s\":", key);
        if (v && *v && strspn(v, "0123456789") == strlen(v))
                fputs(v, f);
        else
                fputs("null", f);
}

static void list_json_one(const struct entry *d) {
        char iso[64] = "";
        time_t t = (time_t) (d->time_usec / USEC_PER_SEC);
        struct tm tm;
        if (gmtime_r(&t, &tm))
                strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);

        printf("{\"time\":%" PRIu64 ",\"timestamp\":", d->time_usec);
        json_string(stdout, iso);
        printf(",\"pid\":");
        d->pid >= 0 ? printf("%lld", d->pid) : printf("null");
        printf(",\"uid\":");
        d->uid >= 0 ? printf("%lld", d->uid) : printf("null");
        json_number_field(stdout, d, "gid", "COREDUMP_GID");
        printf(",\"signal\":");
        d->signal > 0 ? printf("%d", d->signal) : printf("null");
        static const struct { const char *key, *field; } strings[] = {
                { "signal_name", "COREDUMP_SIGNAL_NAME" },
                { "comm", "COREDUMP_COMM" },
                { "exe", "COREDUMP_EXE" },
                { "unit", "COREDUMP_UNIT" },
                { "action", "COREDUMPD_ACTION" },
                { "rule", "COREDUMPD_RULE" },
                { "result", "COREDUMPD_RESULT" },
                { "filename", "COREDUMP_FILENAME" },
                { "boot_id", "COREDUMPD_BOOT_ID" },
        };
        for (size_t i = 0; i < ELEMENTSOF(strings); i++) {
                printf(",\"%s\":", strings[i].key);
                json_string(stdout, fields_get_name(&d->fields, strings[i].field));
        }
        json_number_field(stdout, d, "core_size", "COREDUMPD_CORE_SIZE");
        printf(",\"disk_size\":");
        d->presence == ENTRY_PRESENT ? printf("%" PRIu64, d->disk_size) : printf("null");
        printf(",\"truncated\":%s", fields_get(&d->fields, FIELD_TRUNCATED) ? "true" : "false");
        printf(",\"present\":\"%s\",\"source\":\"%s\"}\n", entry_presence_to_string(d->presence),
               entry_source_to_string(d->source));
}

static const char *entry_size_text(const struct entry *d, char buf[static 32]) {
        const char *core = fields_get(&d->fields, FIELD_CORE_SIZE);
        uint64_t u;
        if (core && parse_size(core, &u) >= 0)
                return format_bytes(buf, u);
        if (d->presence == ENTRY_PRESENT)
                return format_bytes(buf, d->disk_size);
        return "-";
}

int verb_list(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        size_t hidden = 0;

        if (gather(&l, &hidden) < 0)
                return EXIT_ERROR;
        if (arg.json) {
                for (size_t i = 0; i < l.n; i++)
                        list_json_one(&l.entries[i]);
                fflush(stdout);
                return l.n > 0 || arg.n_matches == 0 ? EXIT_OK : EXIT_NO_DUMP;
        }
        if (l.n == 0) {
                if (arg.n_matches == 0 && !arg.since && !arg.until) {
                        if (arg.legend)
                                fprintf(stderr, "No crashes recorded.\n");
                        return EXIT_OK;
                }
                fprintf(stderr, "No matching crash recorded.\n");
                return EXIT_NO_DUMP;
        }

        size_t rule_w = 4, action_w = 6;
        for (size_t i = 0; i < l.n; i++) {
                rule_w = MAX(rule_w, strlen(field_or(&l.entries[i], "COREDUMPD_RULE", "-")));
                action_w = MAX(action_w, strlen(field_or(&l.entries[i], "COREDUMPD_ACTION", "-")));
        }
        rule_w = MIN(rule_w, (size_t) 32);
        if (arg.legend)
                printf("%-28s %7s %5s %-7s %-*s %-*s %7s %-12s %s\n", "TIME", "PID", "UID", "SIG", (int) action_w,
                       "ACTION", (int) rule_w, "RULE", "SIZE", "PRESENT", "EXE");
        for (size_t i = 0; i < l.n; i++) {
                const struct entry *d = &l.entries[i];
                char tbuf[64], sbuf[32], pid[24] = "-", uid[24] = "-", sig[16] = "-";
                if (d->pid >= 0)
                        snprintf(pid, sizeof pid, "%lld", d->pid);
                if (d->uid >= 0)
                        snprintf(uid, sizeof uid, "%lld", d->uid);
                const char *signame = fields_get(&d->fields, FIELD_SIGNAL_NAME);
                if (signame && strncmp(signame, "SIG", 3) == 0)
                        snprintf(sig, sizeof sig, "%s", signame + 3);
                else if (d->signal > 0)
                        snprintf(sig, sizeof sig, "%d", d->signal);
                printf("%-28s %7s %5s %-7s %-*s %-*.*s %7s %-12s %s\n", format_time(tbuf, d->time_usec), pid, uid, sig,
                       (int) action_w, field_or(d, "COREDUMPD_ACTION", "-"), (int) rule_w, (int) rule_w,
                       field_or(d, "COREDUMPD_RULE", "-"), entry_size_text(d, sbuf),
                       entry_presence_to_string(d->presence),
                       field_or(d, "COREDUMP_EXE", field_or(d, "COREDUMP_COMM", "n/a")));
        }
        return EXIT_OK;
}
