/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl's JSON: a list of flat objects, as one array (short, pretty) or one object per line. */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/parse.h"

#define INDENT "        "

static bool json_is_array(const struct json_writer *w) {
        return w->mode == JSON_SHORT || w->mode == JSON_PRETTY;
}

void json_list_begin(struct json_writer *w, FILE *f, enum json_mode mode) {
        *w = (struct json_writer) { .f = f, .mode = mode };
        if (json_is_array(w))
                fputc('[', f);
}

void json_list_end(struct json_writer *w) {
        if (json_is_array(w))
                fputs(w->mode == JSON_PRETTY && w->n_objects > 0 ? "\n]\n" : "]\n", w->f);
        fflush(w->f);
}

void json_object_begin(struct json_writer *w) {
        if (w->mode == JSON_PRETTY)
                fputs(w->n_objects > 0 ? ",\n" INDENT "{" : "\n" INDENT "{", w->f);
        else {
                if (w->mode == JSON_SHORT && w->n_objects > 0)
                        fputc(',', w->f);
                fputc('{', w->f);
        }
        w->n_fields = 0;
}

void json_object_end(struct json_writer *w) {
        if (w->mode == JSON_PRETTY)
                fputs(w->n_fields > 0 ? "\n" INDENT "}" : "}", w->f);
        else
                fputc('}', w->f);
        if (w->mode == JSON_LINES)
                fputc('\n', w->f);
        w->n_objects++;
}

static void json_key(struct json_writer *w, const char *key) {
        if (w->mode == JSON_PRETTY)
                fputs(w->n_fields > 0 ? ",\n" INDENT INDENT : "\n" INDENT INDENT, w->f);
        else if (w->n_fields > 0)
                fputc(',', w->f);
        json_string(w->f, key);
        fputs(w->mode == JSON_PRETTY ? " : " : ":", w->f);
        w->n_fields++;
}

void json_field_string(struct json_writer *w, const char *key, const char *value) {
        json_key(w, key);
        json_string(w->f, value);
}

void json_field_number(struct json_writer *w, const char *key, long long value) {
        json_key(w, key);
        if (value < 0)
                fputs("null", w->f);
        else
                fprintf(w->f, "%lld", value);
}

void json_field_unsigned(struct json_writer *w, const char *key, uint64_t value) {
        json_key(w, key);
        fprintf(w->f, "%" PRIu64, value);
}

void json_field_bool(struct json_writer *w, const char *key, bool value) {
        json_key(w, key);
        fputs(value ? "true" : "false", w->f);
}

void json_field_digits(struct json_writer *w, const char *key, const char *value) {
        json_key(w, key);
        if (value && *value && strspn(value, "0123456789") == strlen(value) && strlen(value) < 20)
                fputs(value, w->f);
        else
                fputs("null", w->f);
}

const char *entry_recorder(const struct entry *d) {
        return d->systemd_coredump ? "systemd-coredump" : "coredumpd";
}

/* The one JSON form of a recorded crash: list's object (detailed: info's, with more keys). Every verb
 * that prints records as JSON prints them through here. */
void json_entry(struct json_writer *w, const struct entry *d, bool detailed) {
        char iso[64] = "";
        time_t t = (time_t) (d->time_usec / USEC_PER_SEC);
        struct tm tm;
        if (gmtime_r(&t, &tm))
                strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);

        json_object_begin(w);
        json_field_unsigned(w, "time", d->time_usec);
        json_field_string(w, "timestamp", iso);
        json_field_number(w, "pid", d->pid);
        json_field_number(w, "uid", d->uid);
        json_field_digits(w, "gid", fields_get_name(&d->fields, "COREDUMP_GID"));
        json_field_number(w, "signal", d->signal > 0 ? d->signal : -1);
        static const struct { const char *key, *field; } strings[] = {
                { "signal_name", "COREDUMP_SIGNAL_NAME" },
                { "comm", "COREDUMP_COMM" },
                { "exe", "COREDUMP_EXE" },
                { "unit", "COREDUMP_UNIT" },
                { "action", "COREDUMPD_ACTION" },
                { "rule", "COREDUMPD_RULE" },
                { "result", "COREDUMPD_RESULT" },
                { "reason", "COREDUMPD_REASON" },
                { "filename", "COREDUMP_FILENAME" },
                { "boot_id", "COREDUMPD_BOOT_ID" },
                { "crash_id", "COREDUMPD_CRASH_ID" },
                { "container", "COREDUMPD_CONTAINER" },
        };
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                json_field_string(w, strings[i].key, fields_get_name(&d->fields, strings[i].field));
        json_field_digits(w, "core_size", fields_get_name(&d->fields, "COREDUMPD_CORE_SIZE"));
        json_field_number(w, "disk_size", d->presence == ENTRY_PRESENT ? (long long) d->disk_size : -1);
        json_field_bool(w, "truncated", fields_get(&d->fields, FIELD_TRUNCATED) != NULL);
        json_field_string(w, "present", entry_presence_to_string(d->presence));
        json_field_string(w, "source", entry_source_to_string(d->source));
        /* The compact core in the record (COREDUMP=): what "journal" above reads. */
        json_field_bool(w, "journal_core", d->journal_core);
        json_field_number(w, "journal_core_size", d->journal_core && d->journal_core_size > 0 ? (long long) d->journal_core_size : -1);
        /* Who wrote the record: coredumpd, or systemd-coredump (listed read-only). */
        json_field_string(w, "recorder", entry_recorder(d));
        json_field_string(w, "host", entry_host(d));
        /* coredumpctl's own keys, for scripts written against it: the signal, the core's presence,
         * its size. */
        json_field_number(w, "sig", d->signal > 0 ? d->signal : -1);
        json_field_string(w, "corefile", entry_presence_to_string(d->presence));
        json_field_digits(w, "size", fields_get_name(&d->fields, "COREDUMPD_CORE_SIZE"));
        if (detailed) {
                static const struct { const char *key, *field; } more[] = {
                        { "signature", "COREDUMPD_SIGNATURE" },
                        { "tenant", "COREDUMPD_TENANT" },
                        { "package", "COREDUMP_PACKAGE_NAME" },
                        { "package_version", "COREDUMP_PACKAGE_VERSION" },
                        { "cmdline", "COREDUMP_CMDLINE" },
                        { "cgroup", "COREDUMP_CGROUP" },
                        { "proc_status", "COREDUMP_PROC_STATUS" },
                        { "proc_maps", "COREDUMP_PROC_MAPS" },
                        { "proc_limits", "COREDUMP_PROC_LIMITS" },
                        { "user_unit", "COREDUMP_USER_UNIT" },
                        { "slice", "COREDUMP_SLICE" },
                        { "hostname", "COREDUMP_HOSTNAME" },
                        { "machine_id", "_MACHINE_ID" },
                        { "error", "COREDUMPD_ERROR" },
                        { "mark", "COREDUMPD_MARK" },
                        { "message", "MESSAGE" },
                };
                /* The crash's number for its signature in its interval; the first on this host. */
                json_field_digits(w, "repeat", fields_get(&d->fields, FIELD_REPEAT));
                json_field_bool(w, "first_seen", fields_get(&d->fields, FIELD_FIRST_SEEN) != NULL);
                for (size_t i = 0; i < ELEMENTSOF(more); i++)
                        json_field_string(w, more[i].key, fields_get_name(&d->fields, more[i].field));
                json_field_string(w, "backtrace", fields_get_name(&d->fields, "COREDUMPD_BACKTRACE")
                                                          ?: fields_get_name(&d->fields, "COREDUMP_BACKTRACE"));
        }
        json_object_end(w);
}
