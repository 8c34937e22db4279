/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The facts about a crash, each defined once: its journal field (systemd-coredump's COREDUMP_*
 * names where systemd has the fact, COREDUMPD_* for what only coredumpd knows), the extended
 * attribute it is kept in on the stored core (user.coredump.* as systemd-coredump sets them,
 * user.coredumpd.* for ours; none for facts that only the journal keeps), and how its value is
 * rendered.
 *
 * A crash's record (crash/record.c) is a struct fields built from this table; the store
 * (store/store.c) writes the fields that have an attribute onto the core; the reader
 * (reader/entries.c) reads journal entries and attributes back into the same struct fields.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* systemd's coredump message, so that coredumpctl lists our records. */
#define COREDUMP_MESSAGE_ID "fc2e22bc6ee647b6b90729ab34a250b1"
/* The system journal's record of a crash whose copy in the crashing user's journal carries
 * COREDUMP_MESSAGE_ID (crash/record.h): coredumpctl, which matches that id alone and reads every
 * journal file it may, then lists the crash once, from the copy; dumpctl reads both ids. */
#define COREDUMPD_MESSAGE_ID "3ffbd697b6d74dbc8eb757accc447f8b"

enum field {
        /* the journal entry itself */
        FIELD_MESSAGE_ID,
        FIELD_PRIORITY,
        FIELD_SYSLOG_IDENTIFIER,
        FIELD_MESSAGE,
        /* who crashed, and how */
        FIELD_PID,
        FIELD_UID,
        FIELD_GID,
        FIELD_OWNER_UID,
        FIELD_TENANT,
        FIELD_SIGNAL,
        FIELD_SIGNAL_NAME,
        FIELD_TIMESTAMP,
        FIELD_RLIMIT,
        FIELD_COMM,
        FIELD_EXE,
        FIELD_CMDLINE,
        FIELD_CGROUP,
        FIELD_UNIT,
        FIELD_USER_UNIT,
        FIELD_SLICE,
        FIELD_SESSION_OWNER_UID,
        FIELD_SESSION,
        FIELD_HOSTNAME,
        FIELD_BOOT_ID,
        FIELD_DUMPABLE,
        FIELD_AT_SECURE,
        FIELD_CRASH_ID,
        /* where it lives: namespaces, container */
        FIELD_NS_PID,
        FIELD_NS_UID,
        FIELD_NS_GID,
        FIELD_PID_NS,
        FIELD_MNT_NS,
        FIELD_USER_NS,
        FIELD_OWN_NAMESPACES,
        FIELD_IN_CONTAINER,
        FIELD_CONTAINER,
        FIELD_CONTAINER_KIND,
        FIELD_CONTAINER_CMDLINE,
        FIELD_PROC_STATUS,
        FIELD_PROC_MAPS,
        FIELD_PROC_LIMITS,
        FIELD_CGROUP_DELEGATED_TO,
        /* what coredumpd decided and did */
        FIELD_ACTION,
        FIELD_RULE,
        FIELD_MAX_AGE,
        FIELD_RESULT,
        FIELD_REASON,
        FIELD_REQUEST_MASK,
        FIELD_ACK_MASK,
        FIELD_MARK,
        FIELD_ERROR,
        FIELD_FILENAME,
        FIELD_CORE_SIZE,
        FIELD_TRUNCATED,
        FIELD_CORE_FORM,
        FIELD_RELEASED_TIMESTAMP,
        FIELD_AVAILABLE_TIMESTAMP,
        FIELD_CONTEXT_USEC,
        FIELD_ACK_USEC,
        /* what the crash-context probe saw, and the core coredumpd made itself */
        FIELD_SI_CODE,
        FIELD_PROBE,
        FIELD_CRASH_TID,
        FIELD_FAULT_ADDRESS,
        FIELD_PROBE_RIP,
        FIELD_PROBE_RSP,
        FIELD_SELFDUMP_MODE,
        FIELD_SELFDUMP_THREADS,
        FIELD_SELFDUMP_MEMORY,
        /* where it crashed */
        FIELD_SIGNATURE,
        FIELD_BACKTRACE,
        FIELD_FRAME,
        FIELD_UNWIND_USEC,
        FIELD_UNWIND_REGISTERS,
        FIELD_BACKTRACE_CUT,
        FIELD_SIGNATURE_PARTIAL,
        FIELD_SITE,
        FIELD_SIGNATURE_FROM,
        FIELD_REPEAT,
        FIELD_FIRST_SEEN,
        /* what was kept with the core: a container's ELF objects (shared/saved-files.h) */
        FIELD_SAVED_FILE,
        /* why a container's files are not all listed or kept (crash/keep-files.h) */
        FIELD_SAVED_FILE_ERROR,
        /* the compact core in the record (parser/compact-core.h), its size, or why there is none */
        FIELD_COREDUMP,
        FIELD_JOURNAL_CORE_SIZE,
        FIELD_JOURNAL_CORE_ERROR,
        /* the package the executable belongs to (parser/package-wire.h), or why none */
        FIELD_PACKAGE_NAME,
        FIELD_PACKAGE_VERSION,
        FIELD_PACKAGE_JSON,
        FIELD_PACKAGE_ARCHITECTURE,
        FIELD_PACKAGE_SOURCE,
        FIELD_PACKAGE_SOURCE_VERSION,
        FIELD_PACKAGE_FILE,
        FIELD_PACKAGE_MODIFIED,
        FIELD_PACKAGE_FROM,
        FIELD_PACKAGE_ERROR,
        _FIELD_MAX,
};

enum field_render {
        FIELD_RAW,              /* text that is safe as it is (names we chose, escaped cmdlines) */
        FIELD_ESCAPED,          /* text from the crashed process: escaped (escape_text) */
        FIELD_ESCAPED_LINES,    /* lines from the crashed process: escaped, newlines and tabs kept
                                 * (escape_lines) */
        FIELD_DECIMAL,          /* a number */
        FIELD_HEX,              /* a mask or an address: 0x... */
        FIELD_BINARY,           /* bytes, NULs too: fields_add_binary() only, never read as text */
};

struct field_def {
        const char *name;       /* journal field */
        const char *xattr;      /* attribute on the stored core, or NULL */
        enum field_render render;
};

extern const struct field_def field_table[_FIELD_MAX];

static inline const char *field_name(enum field f) {
        return field_table[f].name;
}

/* A list of journal-style "FIELD=value" pairs, ready for sd_journal_sendv(). */
struct fields {
        struct iovec *v;
        size_t n;
};

/* Appends a field's value, rendered as the table says: the text, escaped or not (NULL: omitted);
 * a number in decimal or hex. Return 0 or -ENOMEM (-EINVAL: a FIELD_BINARY field as text). */
int fields_set_text(struct fields *f, enum field field, const char *text);
int fields_set_number(struct fields *f, enum field field, int64_t n);
int fields_set_unsigned(struct fields *f, enum field field, uint64_t n);
/* Appends NAME=value (formatted), for any name. */
int fields_add(struct fields *f, const char *name, const char *format, ...) __attribute__((format(printf, 3, 4)));
/* Appends a "NAME=value" datum as read from the journal (binary data stops at its first NUL). */
int fields_add_raw(struct fields *f, const void *data, size_t size);
/* "NAME=" and size bytes of data as they are (NULs too): a binary field, as COREDUMP=. Its value
 * is no string: read it with its iov_len. */
int fields_add_binary(struct fields *f, const char *name, const void *data, size_t size);

/* The value of the first such field, or NULL. */
const char *fields_get(const struct fields *f, enum field field);
const char *fields_get_name(const struct fields *f, const char *name);

void fields_done(struct fields *f);
