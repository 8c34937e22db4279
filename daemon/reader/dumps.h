/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The crashes coredumpd recorded, read back for the operator (dumpctl): from the journal (the
 * entries record.c wrote: MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1 with COREDUMPD_ACTION=,
 * sent by root) and, for dumps whose entry the journal lost, from the store itself: the
 * user.coredump.* attributes store.c sets on each file, or failing those the file's name.
 *
 * Every dump's metadata is a struct record of journal-style "FIELD=value" pairs whichever source
 * it came from, so a journal entry and a stored file's attributes read the same way.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-journal.h>

#include "crash/record.h"

/* The coredumpd-specific attributes next to systemd-coredump's user.coredump.* ones. */
#define XATTR_COREDUMPD_ACTION "user.coredumpd.action"
#define XATTR_COREDUMPD_RULE   "user.coredumpd.rule"

enum dump_source {
        DUMP_SOURCE_JOURNAL,
        DUMP_SOURCE_STORE,      /* the journal has no entry: metadata from the file */
};

enum dump_presence {
        DUMP_NONE,              /* no core was kept (rejected, left to userspace, failed) */
        DUMP_PRESENT,           /* stored and readable by us */
        DUMP_MISSING,           /* stored once, gone now (vacuumed or removed) */
        DUMP_INACCESSIBLE,      /* stored, but we may not read it */
};

struct dump {
        struct record fields;
        enum dump_source source;
        uint64_t time_usec;     /* COREDUMP_TIMESTAMP, else the journal's realtime */
        long long pid;          /* -1 if unknown */
        long long uid;          /* -1 if unknown */
        int signal;             /* 0 if unknown */
        enum dump_presence presence;
        uint64_t disk_size;     /* allocated bytes of the stored file, when present */
};

struct dump_list {
        struct dump *dumps;
        size_t n;
};

void dump_list_done(struct dump_list *l);

/* Adds every coredumpd entry of j (matches are added here; the caller opened j). */
int dump_list_load_journal(struct dump_list *l, sd_journal *j);
/* Adds the store's core.* files that no listed dump names in COREDUMP_FILENAME. -EACCES if the
 * store cannot be listed, -ENOENT if it does not exist. */
int dump_list_load_store(struct dump_list *l, const char *store_path);
/* Oldest first; fills in presence. */
void dump_list_finish(struct dump_list *l);

/* The user.coredump.* attributes of name (relative to dir_fd) as COREDUMP_* fields added to r.
 * Returns the number of attributes found, or -errno. */
int dump_read_xattrs(int dir_fd, const char *name, struct record *r);
/* Fields from a core.<comm>.<uid>.<bootid>.<pid>.<usec>[.zst] name; -EINVAL if it is not one. */
int dump_parse_file_name(const char *name, struct record *r);

void dump_update_presence(struct dump *d);
const char *dump_presence_to_string(enum dump_presence p);
const char *dump_source_to_string(enum dump_source s);

/* Opens the stored core read-only. -ENODATA: none was kept; -ENOENT: it is gone; -EACCES: we may
 * not read it; -EBADF: not a regular file. */
int dump_open_core(const struct dump *d, int *ret_fd);
