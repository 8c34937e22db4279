/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/fields.h"

const struct field_def field_table[_FIELD_MAX] = {
        [FIELD_MESSAGE_ID]        = { "MESSAGE_ID",                 NULL,                        FIELD_RAW },
        [FIELD_PRIORITY]          = { "PRIORITY",                   NULL,                        FIELD_DECIMAL },
        [FIELD_SYSLOG_IDENTIFIER] = { "SYSLOG_IDENTIFIER",          NULL,                        FIELD_RAW },
        [FIELD_MESSAGE]           = { "MESSAGE",                    NULL,                        FIELD_RAW },

        [FIELD_PID]               = { "COREDUMP_PID",               "user.coredump.pid",         FIELD_DECIMAL },
        [FIELD_UID]               = { "COREDUMP_UID",               "user.coredump.uid",         FIELD_DECIMAL },
        [FIELD_GID]               = { "COREDUMP_GID",               "user.coredump.gid",         FIELD_DECIMAL },
        /* whom the crash counts against: the real uid, or the owner of the outermost user namespace */
        [FIELD_OWNER_UID]         = { "COREDUMPD_OWNER_UID",        "user.coredumpd.owner_uid",  FIELD_DECIMAL },
        /* whom every bound counts the crash against (shared/tenant.h): "UID", or "0:USERNS" for a
         * container root made (its outermost user namespace's inode) */
        [FIELD_TENANT]            = { "COREDUMPD_TENANT",           "user.coredumpd.tenant",     FIELD_RAW },
        [FIELD_SIGNAL]            = { "COREDUMP_SIGNAL",            "user.coredump.signal",      FIELD_DECIMAL },
        [FIELD_SIGNAL_NAME]       = { "COREDUMP_SIGNAL_NAME",       "user.coredump.signal_name", FIELD_RAW },
        [FIELD_TIMESTAMP]         = { "COREDUMP_TIMESTAMP",         "user.coredump.timestamp",   FIELD_DECIMAL },
        [FIELD_RLIMIT]            = { "COREDUMP_RLIMIT",            "user.coredump.rlimit",      FIELD_DECIMAL },
        [FIELD_COMM]              = { "COREDUMP_COMM",              "user.coredump.comm",        FIELD_ESCAPED },
        [FIELD_EXE]               = { "COREDUMP_EXE",               "user.coredump.exe",         FIELD_ESCAPED },
        [FIELD_CMDLINE]           = { "COREDUMP_CMDLINE",           "user.coredump.cmdline",     FIELD_RAW },
        [FIELD_CGROUP]            = { "COREDUMP_CGROUP",            "user.coredump.cgroup",      FIELD_ESCAPED },
        [FIELD_UNIT]              = { "COREDUMP_UNIT",              "user.coredump.unit",        FIELD_ESCAPED },
        [FIELD_USER_UNIT]         = { "COREDUMP_USER_UNIT",         NULL,                        FIELD_ESCAPED },
        [FIELD_SLICE]             = { "COREDUMP_SLICE",             "user.coredump.slice",       FIELD_ESCAPED },
        /* systemd's: the uid of the user slice (user-UID.slice) the cgroup path begins with — the
         * owner of the session or of user@UID.service —, and the session (session-N.scope) */
        [FIELD_SESSION_OWNER_UID] = { "COREDUMP_OWNER_UID",         NULL,                        FIELD_DECIMAL },
        [FIELD_SESSION]           = { "COREDUMP_SESSION",           NULL,                        FIELD_RAW },
        [FIELD_HOSTNAME]          = { "COREDUMP_HOSTNAME",          "user.coredump.hostname",    FIELD_ESCAPED },
        [FIELD_BOOT_ID]           = { "COREDUMPD_BOOT_ID",          "user.coredump.boot_id",     FIELD_RAW },
        [FIELD_DUMPABLE]          = { "COREDUMPD_DUMPABLE",         NULL,                        FIELD_DECIMAL },
        [FIELD_AT_SECURE]         = { "COREDUMPD_AT_SECURE",        NULL,                        FIELD_DECIMAL },
        [FIELD_CRASH_ID]          = { "COREDUMPD_CRASH_ID",         "user.coredumpd.crash_id",   FIELD_RAW },

        [FIELD_NS_PID]            = { "COREDUMPD_NS_PID",           NULL,                        FIELD_DECIMAL },
        [FIELD_NS_UID]            = { "COREDUMPD_NS_UID",           NULL,                        FIELD_DECIMAL },
        [FIELD_NS_GID]            = { "COREDUMPD_NS_GID",           NULL,                        FIELD_DECIMAL },
        [FIELD_PID_NS]            = { "COREDUMPD_PID_NS",           NULL,                        FIELD_DECIMAL },
        [FIELD_MNT_NS]            = { "COREDUMPD_MNT_NS",           NULL,                        FIELD_DECIMAL },
        [FIELD_USER_NS]           = { "COREDUMPD_USER_NS",          NULL,                        FIELD_DECIMAL },
        [FIELD_OWN_NAMESPACES]    = { "COREDUMPD_OWN_NAMESPACES",   NULL,                        FIELD_RAW },
        [FIELD_IN_CONTAINER]      = { "COREDUMPD_IN_CONTAINER",     NULL,                        FIELD_DECIMAL },
        [FIELD_CONTAINER]         = { "COREDUMPD_CONTAINER",        "user.coredumpd.container",  FIELD_ESCAPED },
        [FIELD_CONTAINER_KIND]    = { "COREDUMPD_CONTAINER_KIND",   NULL,                        FIELD_RAW },
        [FIELD_CONTAINER_CMDLINE] = { "COREDUMP_CONTAINER_CMDLINE", NULL,                        FIELD_RAW },
        /* a kept crash's /proc/PID/status, maps and limits as systemd-coredump names them, read by
         * the tenant's reader (parser/wire.h's READER_PROC) while the task is held, each cut at a
         * line's end within its bound (READER_PROC_*_MAX), checked, then escaped line by line */
        [FIELD_PROC_STATUS]       = { "COREDUMP_PROC_STATUS",       NULL,                        FIELD_ESCAPED_LINES },
        [FIELD_PROC_MAPS]         = { "COREDUMP_PROC_MAPS",         NULL,                        FIELD_ESCAPED_LINES },
        [FIELD_PROC_LIMITS]       = { "COREDUMP_PROC_LIMITS",       NULL,                        FIELD_ESCAPED_LINES },
        [FIELD_CGROUP_DELEGATED_TO] = { "COREDUMPD_CGROUP_DELEGATED_TO", NULL,                   FIELD_DECIMAL },

        [FIELD_ACTION]            = { "COREDUMPD_ACTION",           "user.coredumpd.action",     FIELD_RAW },
        [FIELD_RULE]              = { "COREDUMPD_RULE",             "user.coredumpd.rule",       FIELD_RAW },
        [FIELD_MAX_AGE]           = { "COREDUMPD_MAX_AGE",          "user.coredumpd.max_age",    FIELD_RAW },
        [FIELD_RESULT]            = { "COREDUMPD_RESULT",           NULL,                        FIELD_RAW },
        /* the result's reason in one bounded word (crash/outcome.h; the metrics' label): rule,
         * rlimit-zero, repeat, no-room, overload, deadline, kernel-refused, self, no-context,
         * abandoned, error; none for a crash kept as its rule said (then not in the record) */
        [FIELD_REASON]            = { "COREDUMPD_REASON",           NULL,                        FIELD_RAW },
        [FIELD_REQUEST_MASK]      = { "COREDUMPD_REQUEST_MASK",     NULL,                        FIELD_HEX },
        [FIELD_ACK_MASK]          = { "COREDUMPD_ACK_MASK",         NULL,                        FIELD_HEX },
        [FIELD_MARK]              = { "COREDUMPD_MARK",             NULL,                        FIELD_RAW },
        [FIELD_ERROR]             = { "COREDUMPD_ERROR",            NULL,                        FIELD_ESCAPED },
        [FIELD_FILENAME]          = { "COREDUMP_FILENAME",          NULL,                        FIELD_RAW },
        [FIELD_CORE_SIZE]         = { "COREDUMPD_CORE_SIZE",        NULL,                        FIELD_DECIMAL },
        [FIELD_TRUNCATED]         = { "COREDUMP_TRUNCATED",         "user.coredump.truncated",   FIELD_DECIMAL },
        [FIELD_CORE_FORM]         = { "COREDUMPD_CORE_FORM",        NULL,                        FIELD_RAW },
        [FIELD_RELEASED_TIMESTAMP] = { "COREDUMPD_RELEASED_TIMESTAMP", NULL,                     FIELD_DECIMAL },
        [FIELD_AVAILABLE_TIMESTAMP] = { "COREDUMPD_AVAILABLE_TIMESTAMP", NULL,                   FIELD_DECIMAL },
        [FIELD_CONTEXT_USEC]      = { "COREDUMPD_CONTEXT_USEC",     NULL,                        FIELD_DECIMAL },
        [FIELD_ACK_USEC]          = { "COREDUMPD_ACK_USEC",         NULL,                        FIELD_DECIMAL },

        [FIELD_SI_CODE]           = { "COREDUMPD_SI_CODE",          NULL,                        FIELD_DECIMAL },
        [FIELD_PROBE]             = { "COREDUMPD_PROBE",            NULL,                        FIELD_RAW },
        [FIELD_CRASH_TID]         = { "COREDUMPD_CRASH_TID",        NULL,                        FIELD_DECIMAL },
        [FIELD_FAULT_ADDRESS]     = { "COREDUMPD_FAULT_ADDRESS",    NULL,                        FIELD_HEX },
        [FIELD_PROBE_RIP]         = { "COREDUMPD_PROBE_RIP",        NULL,                        FIELD_HEX },
        [FIELD_PROBE_RSP]         = { "COREDUMPD_PROBE_RSP",        NULL,                        FIELD_HEX },
        [FIELD_SELFDUMP_MODE]     = { "COREDUMPD_USERSPACE_MODE",   NULL,                        FIELD_RAW },
        [FIELD_SELFDUMP_THREADS]  = { "COREDUMPD_USERSPACE_THREADS", NULL,                       FIELD_DECIMAL },
        [FIELD_SELFDUMP_MEMORY]   = { "COREDUMPD_USERSPACE_MEMORY", NULL,                        FIELD_DECIMAL },

        [FIELD_SIGNATURE]         = { "COREDUMPD_SIGNATURE",        "user.coredumpd.signature",  FIELD_RAW },
        [FIELD_BACKTRACE]         = { "COREDUMPD_BACKTRACE",        NULL,                        FIELD_RAW },
        [FIELD_FRAME]             = { "COREDUMPD_FRAME",            NULL,                        FIELD_RAW },
        [FIELD_UNWIND_USEC]       = { "COREDUMPD_UNWIND_USEC",      NULL,                        FIELD_DECIMAL },
        /* "full" (the probe's) or "sp+pc" (/proc's): what the crashing thread was unwound from */
        [FIELD_UNWIND_REGISTERS]  = { "COREDUMPD_UNWIND_REGISTERS", NULL,                        FIELD_RAW },
        /* why the crashing thread's trace ended before its outermost frame: error, budget, frames */
        [FIELD_BACKTRACE_CUT]     = { "COREDUMPD_BACKTRACE_CUT",    NULL,                        FIELD_RAW },
        /* 1: the signature is over a trace cut within its frames (crash/backtrace.h) */
        [FIELD_SIGNATURE_PARTIAL] = { "COREDUMPD_SIGNATURE_PARTIAL", NULL,                       FIELD_DECIMAL },
        /* where it crashed without unwinding (crash/site.h): what a repeat is known by */
        [FIELD_SITE]              = { "COREDUMPD_SITE",             NULL,                        FIELD_RAW },
        /* "site": a repeat not unwound, its signature the one its site was last unwound to */
        [FIELD_SIGNATURE_FROM]    = { "COREDUMPD_SIGNATURE_FROM",   NULL,                        FIELD_RAW },
        [FIELD_REPEAT]            = { "COREDUMPD_REPEAT",           "user.coredumpd.repeat",     FIELD_DECIMAL },
        /* 1: the first crash of its signature recorded on this host (crash/first-seen.h) */
        [FIELD_FIRST_SEEN]        = { "COREDUMPD_FIRST_SEEN",       NULL,                        FIELD_DECIMAL },
        /* checked line by line on the way in (shared/saved-files.c) */
        [FIELD_SAVED_FILE]        = { "COREDUMPD_SAVED_FILE",       NULL,                        FIELD_RAW },
        /* the cell was late, died or answered nonsense (crash/keep-files.h): a path in it escaped */
        [FIELD_SAVED_FILE_ERROR]  = { "COREDUMPD_SAVED_FILE_ERROR", NULL,                        FIELD_ESCAPED },
        /* the compact core (parser/compact-core.h): systemd-coredump's Storage=journal field, which
         * coredumpctl opens where a record has no COREDUMP_FILENAME=, and dumpctl also where the file
         * is gone or on another machine (a collector) */
        [FIELD_COREDUMP]          = { "COREDUMP",                   NULL,                        FIELD_BINARY },
        /* its bytes (the journal hands a reader only the first 64K of a field unless asked) */
        [FIELD_JOURNAL_CORE_SIZE] = { "COREDUMPD_JOURNAL_CORE_SIZE", NULL,                       FIELD_DECIMAL },
        /* why a crash that was to carry one does not: too large even compacted, the parser failed */
        [FIELD_JOURNAL_CORE_ERROR] = { "COREDUMPD_JOURNAL_CORE_ERROR", NULL,                     FIELD_ESCAPED },

        /* The package of the executable, found after the release by coredumpd-parser --package and
         * checked (package_answer_decode()): systemd-coredump's three from the ELF package note, the
         * same two (no JSON) from dpkg's database of the task's root. Names and versions are of
         * Debian policy's characters (a note's name: [A-Za-z0-9+._~-]); the JSON a flat object of
         * printable ASCII. */
        [FIELD_PACKAGE_NAME]      = { "COREDUMP_PACKAGE_NAME",      NULL,                        FIELD_RAW },
        [FIELD_PACKAGE_VERSION]   = { "COREDUMP_PACKAGE_VERSION",   NULL,                        FIELD_RAW },
        [FIELD_PACKAGE_JSON]      = { "COREDUMP_PACKAGE_JSON",      NULL,                        FIELD_RAW },
        [FIELD_PACKAGE_ARCHITECTURE] = { "COREDUMPD_PACKAGE_ARCHITECTURE", NULL,                 FIELD_RAW },
        /* the source package and its version ("Source: name (version)", else the package's own) */
        [FIELD_PACKAGE_SOURCE]    = { "COREDUMPD_PACKAGE_SOURCE",   NULL,                        FIELD_RAW },
        [FIELD_PACKAGE_SOURCE_VERSION] = { "COREDUMPD_PACKAGE_SOURCE_VERSION", NULL,             FIELD_RAW },
        /* the path as the package lists it (/bin/sleep for /usr/bin/sleep; a diversion's original) */
        [FIELD_PACKAGE_FILE]      = { "COREDUMPD_PACKAGE_FILE",     NULL,                        FIELD_ESCAPED },
        /* yes: the file's md5sum is not the one in info/PKG.md5sums; no; unknown: not checked */
        [FIELD_PACKAGE_MODIFIED]  = { "COREDUMPD_PACKAGE_MODIFIED", NULL,                        FIELD_RAW },
        /* note or dpkg: where the package was found */
        [FIELD_PACKAGE_FROM]      = { "COREDUMPD_PACKAGE_FROM",     NULL,                        FIELD_RAW },
        /* why a kept crash has no package: no note and no dpkg database (a container's), no owner */
        [FIELD_PACKAGE_ERROR]     = { "COREDUMPD_PACKAGE_ERROR",    NULL,                        FIELD_ESCAPED },
};

/* Appends entry ("NAME=value", malloc'ed), taking it over; frees it on failure. */
static int fields_append(struct fields *f, char *entry) {
        struct iovec *grown = realloc(f->v, (f->n + 1) * sizeof *grown);
        if (!grown) {
                free(entry);
                return -ENOMEM;
        }
        f->v = grown;
        f->v[f->n++] = (struct iovec) { .iov_base = entry, .iov_len = strlen(entry) };
        return 0;
}

int fields_add(struct fields *f, const char *name, const char *format, ...) {
        _cleanup_free_ char *value = NULL;
        char *entry;
        va_list ap;

        va_start(ap, format);
        int k = vasprintf(&value, format, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;

        if (asprintf(&entry, "%s=%s", name, value) < 0)
                return -ENOMEM;
        return fields_append(f, entry);
}

int fields_add_binary(struct fields *f, const char *name, const void *data, size_t size) {
        size_t name_len = strlen(name);
        if (size > SIZE_MAX - name_len - 2)
                return -E2BIG;
        /* A NUL after the bytes, not counted: a reader that takes the value for text by mistake
         * stops there instead of running off the allocation. */
        char *entry = malloc(name_len + 1 + size + 1);
        if (!entry)
                return -ENOMEM;
        memcpy(entry, name, name_len);
        entry[name_len] = '=';
        if (size > 0)
                memcpy(entry + name_len + 1, data, size);
        entry[name_len + 1 + size] = 0;
        struct iovec *grown = realloc(f->v, (f->n + 1) * sizeof *grown);
        if (!grown) {
                free(entry);
                return -ENOMEM;
        }
        f->v = grown;
        f->v[f->n++] = (struct iovec) { .iov_base = entry, .iov_len = name_len + 1 + size };
        return 0;
}

int fields_add_raw(struct fields *f, const void *data, size_t size) {
        char *entry = strndup(data, size);
        if (!entry)
                return -ENOMEM;
        return fields_append(f, entry);
}

int fields_set_text(struct fields *f, enum field field, const char *text) {
        const struct field_def *d = &field_table[field];

        if (!text)
                return 0;
        if (d->render == FIELD_BINARY)
                return -EINVAL; /* fields_add_binary() */
        if (d->render != FIELD_ESCAPED && d->render != FIELD_ESCAPED_LINES)
                return fields_add(f, d->name, "%s", text);
        _cleanup_free_ char *escaped = d->render == FIELD_ESCAPED_LINES ? escape_lines(text, strlen(text))
                                                                         : escape_text(text, strlen(text));
        return escaped ? fields_add(f, d->name, "%s", escaped) : -ENOMEM;
}

int fields_set_number(struct fields *f, enum field field, int64_t n) {
        const struct field_def *d = &field_table[field];
        if (d->render == FIELD_HEX)
                return fields_add(f, d->name, "0x%" PRIx64, (uint64_t) n);
        return fields_add(f, d->name, "%" PRIi64, n);
}

int fields_set_unsigned(struct fields *f, enum field field, uint64_t n) {
        const struct field_def *d = &field_table[field];
        if (d->render == FIELD_HEX)
                return fields_add(f, d->name, "0x%" PRIx64, n);
        return fields_add(f, d->name, "%" PRIu64, n);
}

const char *fields_get_name(const struct fields *f, const char *name) {
        size_t k = strlen(name);

        for (size_t i = 0; i < f->n; i++) {
                const char *e = f->v[i].iov_base;
                if (strncmp(e, name, k) == 0 && e[k] == '=')
                        return e + k + 1;
        }
        return NULL;
}

const char *fields_get(const struct fields *f, enum field field) {
        return fields_get_name(f, field_table[field].name);
}

void fields_done(struct fields *f) {
        for (size_t i = 0; i < f->n; i++)
                free(f->v[i].iov_base);
        free(f->v);
        *f = (struct fields) {};
}
