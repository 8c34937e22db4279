/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The durable record of a crash: one journal entry in systemd-coredump's format
 * (MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1, COREDUMP_* fields) so that coredumpctl finds it,
 * plus COREDUMPD_* fields saying what coredumpd did. The fields are those of shared/fields.h.
 * Where the entry goes is a sink: the journal in the daemon, a capture in tests.
 */

#include "crash/crash.h"
#include "shared/fields.h"
#include "store/store.h"

/* The facts known before the core is written (identity, context, decision): what the store
 * keeps with the core as attributes. */
int record_metadata(const struct crash *c, struct fields *f);
/* What happened to the crash, in words for a record's MESSAGE= or a log line (into buf). */
const char *record_outcome_text(const struct crash *c, char *buf, size_t size);

/* The whole entry for a crash, as the system journal gets it: message, metadata, outcome, crash
 * details, and the compact core (COREDUMP=, binary, with COREDUMPD_JOURNAL_CORE_SIZE=) where the
 * decision's JournalCore= is system, else why there is none (COREDUMPD_JOURNAL_CORE_ERROR=). */
int record_build(const struct crash *c, struct fields *ret);

/* The same, where the copy in the crashing user's journal was filed (record_crash_for_user()):
 * MESSAGE_ID=COREDUMPD_MESSAGE_ID, not coredumpctl's, which the copy carries. */
int record_build_beside_user_copy(const struct crash *c, struct fields *ret);

/* The entry as the copy in the crashing user's journal has it (record_crash_for_user()): the same
 * fields, the compact core only where record_user_copy_takes_core(), and never a reason for none. */
int record_build_user_copy(const struct crash *c, struct fields *ret);

/* Whether the crash gets a copy in its user's journal: a stored dump of a user other than root
 * that the user may read (context_user_may_read()). */
bool record_user_copy_wanted(const struct crash *c);
/* Whether that copy carries the compact core: JournalCore= not no, and a regular user's crash
 * whose copy journald files in the user's own journal (uid 1000 and up, not nobody, nor systemd's
 * dynamic, container or foreign ranges: those go to the system journal), which that user, root,
 * adm and systemd-journal read. */
bool record_user_copy_takes_core(const struct crash *c);

/* Whether a crash that kept no core gets a short note in its user's own journal
 * (crash/user-notes.h): a regular user's crash of the host's, rejected by a rule, by
 * builtin:rlimit-zero or as a repeat, or for overload. */
bool record_user_note_wanted(const struct crash *c);
/* That note: who crashed, what was decided and why (COREDUMPD_RESULT=, _REASON=, _RULE=), at
 * PRIORITY=5, with MESSAGE_ID=COREDUMPD_MESSAGE_ID (dumpctl lists it; coredumpctl lists the crash
 * once, from the system journal's record); no core, no backtrace, no command line. */
int record_build_user_note(const struct crash *c, struct fields *ret);
/* The crashed task's uid and gid, as the note is filed under. */
void record_note_ids(const struct crash *c, uid_t *ret_uid, gid_t *ret_gid);

/* The store's view of this crash's core: its name, the fields kept with it, who may read it, its
 * size cap and compression. */
struct record_core {
        struct fields metadata;
        char *name;
        struct store_target target;
};
int record_core_init(const struct crash *c, enum compression compress, struct record_core *ret);
void record_core_done(struct record_core *core);

typedef int (*record_sink_fn)(const struct fields *f, void *userdata);

/* Sends to the journal with sd_journal_sendv(). */
int record_sink_journal(const struct fields *f, void *userdata);

/* The crash's record once more, in the crashing user's own journal (coredumpd-parser --record, as
 * that user; sink, where not NULL, instead: tests): only where record_user_copy_wanted(), never for
 * root's. The daemon's record in the system journal stays the one root's tools trust; what this
 * copy names is opened by the user's tools with the user's rights only. A regular user's copy
 * carries the compact core (record_user_copy_takes_core()), which JournalCore=user keeps out of the
 * system journal. A failure is logged (it costs the user their view, not the crash).
 * Returns whether the copy was filed (the sink took it).
 *
 * Each crash once in coredumpctl: bookworm's coredumpctl matches MESSAGE_ID alone, filters on no
 * uid, merges no duplicates and reads every journal file the caller may (root and adm: the
 * system's and every user's). A crash with a filed copy is therefore listed from the copy alone,
 * which carries coredumpctl's id; the system journal's record, written after it, carries
 * COREDUMPD_MESSAGE_ID (record_crash(copy_filed)), which dumpctl reads and trusts. The user, who
 * cannot read the system journal, sees the copy; root and adm see the copy once. */
bool record_crash_for_user(const struct crash *c, record_sink_fn sink, void *userdata);

/* Builds and sends the system journal's record (copy_filed: record_build_beside_user_copy()'s);
 * failures are logged with the crash's tag. */
void record_crash(const struct crash *c, bool copy_filed, record_sink_fn sink, void *userdata);

/* One line for the kernel's log (/dev/kmsg): "coredumpd: systemd-journald[PID] crashed with SIGNAL,
 * core stored as PATH" (or why not): for the crash of journald, which cannot take its own record
 * while it is dumped. A failure is logged. */
void record_crash_to_kmsg(const struct crash *c);
