/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The crashes coredumpd recorded ("entries"), read back for the operator (dumpctl): from the journal (the
 * entries record.c wrote: MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1 with COREDUMPD_ACTION=,
 * sent by root) and, for dumps whose entry the journal lost, from the store itself: the
 * user.coredump.* attributes store/store.c sets on each file, or failing those the file's name.
 *
 * Every entry's metadata is a struct fields (shared/fields.h) of journal-style "FIELD=value" pairs whichever source
 * it came from, so a journal entry and a stored file's attributes read the same way.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-journal.h>

#include "shared/fields.h"

/* Where systemd-coredump keeps its cores (Storage=external): the one place a record of its names a
 * core dumpctl opens. */
#define SYSTEMD_COREDUMP_DIR "/var/lib/systemd/coredump"

enum entry_source {
        ENTRY_SOURCE_JOURNAL,
        ENTRY_SOURCE_STORE,      /* the journal has no entry: metadata from the file */
};

enum entry_presence {
        ENTRY_NONE,              /* no core was kept (rejected, left to userspace, failed) */
        ENTRY_PRESENT,           /* stored and readable by us */
        ENTRY_MISSING,           /* stored once, gone now (vacuumed or removed) */
        ENTRY_INACCESSIBLE,      /* stored, but we may not read it */
        ENTRY_REMOTE,            /* recorded on another machine (dumpctl --all): its core is there */
        ENTRY_JOURNAL,           /* the file is gone or on another machine (or none was named), but the
                                  * record carries a compact core (COREDUMP=): that is what we read */
};

struct entry {
        struct fields fields;
        enum entry_source source;
        /* Trusted (foreign false) only when read from this machine's own system journal files (see
         * entry_list_load_journal()) with _UID=0: coredumpd's records, which journald wrote. Anything
         * else is foreign: journal files the user named, a container's linked journal or another
         * machine's files (--all), a user's own journal, an entry without _UID. A foreign record's
         * paths are opened only as a core.* file right in the store. */
        bool foreign;
        /* No core file or saved file it names is opened here, only its compact core read (and of
         * files the user named, an executable only of the build recorded: dumpctl debug): its
         * _MACHINE_ID is not this machine's, or it is found (below). Decided with foreign, once. */
        bool remote;
        /* Foreign and read from journal files the user did not name (dumpctl --all's other machines'
         * and containers' directories; users' journals but the caller's own copy): whoever wrote
         * them chose every path in them, so none is even looked at here, the executable's neither
         * (remote is true too). Decided with foreign, once. */
        bool found;
        /* A record of systemd-coredump's own (SYSLOG_IDENTIFIER=systemd-coredump with coredumpctl's
         * MESSAGE_ID and no COREDUMPD_ fields: history, or a boot on a kernel without the coredump
         * socket), listed read-only: foreign always (systemd-coredump sends it as the crashing user),
         * its core opened only as a core.* file of root's right in SYSTEMD_COREDUMP_DIR, a directory
         * of root's that no one else may write. */
        bool systemd_coredump;
        uint64_t time_usec;     /* COREDUMP_TIMESTAMP, else the journal's realtime */
        long long pid;          /* -1 if unknown */
        long long uid;          /* -1 if unknown */
        int signal;             /* 0 if unknown */
        enum entry_presence presence;
        uint64_t disk_size;     /* allocated bytes of the stored file, when present */
        /* The record carries a compact core (COREDUMP=, binary: never among the fields, only noted
         * here) of journal_core_size bytes (COREDUMPD_JOURNAL_CORE_SIZE=; 0: not said). */
        bool journal_core;
        uint64_t journal_core_size;
        char *cursor;           /* the journal entry's, to read its COREDUMP= later; NULL: from the store */
};

struct entry_list {
        struct entry *entries;
        size_t n;
        size_t allocated;       /* entries has room for this many */
};

void entry_done(struct entry *d);
void entry_list_done(struct entry_list *l);

/* Which journal files an sd_journal holds, as the caller opened it. */
enum journal_files {
        JOURNAL_LOCAL_SYSTEM,   /* this machine's own system journal files and nothing else
                                 * (/var/log/journal/MACHINE-ID/system*.journal, /run/log/journal/…),
                                 * which only journald writes: where _UID=0 proves root sent an entry */
        JOURNAL_NAMED,          /* files the user named (-D, --file=) */
        JOURNAL_LOCAL,          /* this machine's files (its system and users' journals), which its
                                 * journald alone writes, maybe the above too */
        JOURNAL_FOUND,          /* the system's other files too (--all: other machines' and
                                 * containers' directories), maybe the above too */
};

/* Adds every coredumpd entry of j, and systemd-coredump's (struct entry: systemd_coredump) (matches are added here; the caller opened j). Only entries of
 * JOURNAL_LOCAL_SYSTEM files with _UID=0 are trusted; in any other files anybody may have written
 * them, and neither their _UID= nor their _MACHINE_ID= nor their paths prove anything (struct
 * entry: foreign, remote). An entry whose cursor is already listed (read before from the trusted
 * files, which JOURNAL_FOUND files hold too) is not added again. */
int entry_list_load_journal(struct entry_list *l, sd_journal *j, enum journal_files files);
/* Adds the store's core.* files that no listed entry names in COREDUMP_FILENAME. -EACCES if the
 * store cannot be listed, -ENOENT if it does not exist. */
int entry_list_load_store(struct entry_list *l, const char *store_path);
/* Oldest first; fills in presence (a foreign entry's COREDUMP_FILENAME is looked at only when it
 * names a core.* file right in store_path: the one place entry_open_core() would open it). */
void entry_list_finish(struct entry_list *l, const char *store_path);

/* The attributes of name (relative to dir_fd) that the field table names, as fields added to f.
 * Returns the number of attributes found, or -errno. */
int entry_read_xattrs(int dir_fd, const char *name, struct fields *f);
/* Fields from a core.<comm>.<uid>.<bootid>.<pid>.<usec>[.zst] name; -EINVAL if it is not one. */
int entry_parse_file_name(const char *name, struct fields *f);

/* Whether d's _MACHINE_ID= is this machine's, or it names none: words for a remote record (another
 * machine's, or a foreign one that claims to be this machine's); it proves nothing. */
bool entry_claims_this_machine(const struct entry *d);

void entry_update_presence(struct entry *d, const char *store_path);
const char *entry_presence_to_string(enum entry_presence p);
const char *entry_source_to_string(enum entry_source s);

/* Writes d's compact core (COREDUMP= of its journal entry, found again by its cursor in j, which
 * the caller opened on the same files d was read from) to out_fd. 0 and *ret_size (if not NULL),
 * or -errno: -ENODATA (the record carries none), -ESTALE (the entry is not in j any more), -EBADMSG
 * (not an ELF core), -EFBIG (larger than any compact core: JournalSizeMax='s limit), -EPIPE (the
 * reader went away). */
int entry_write_journal_core(sd_journal *j, const struct entry *d, int out_fd, uint64_t *ret_size);

/* Where the files a record names are looked for: NULL, this system; else the directory of another
 * system's root (dumpctl --root=), under which every path of its records is taken. */
void entry_set_root(const char *root);
/* path (absolute) as this process opens it: under the root entry_set_root() named, or path itself.
 * NULL: no memory. Free it. */
char *entry_path_in_root(const char *path);

/* Opens the stored core read-only, never through a symlink. A foreign entry's core must be a file
 * directly in store_path (-EPERM otherwise): such a journal could name any file; a remote entry's
 * none (-EREMOTE). -ENODATA: none
 * was kept; -ENOENT: it is gone; -EACCES: we may not read it; -EBADF: not a regular file. */
int entry_open_core(const struct entry *d, const char *store_path, int *ret_fd);
