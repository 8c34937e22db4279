/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * /etc/coredumpd/coredumpd.conf, then the drop-ins coredumpd.conf.d/\*.conf (config/conf-files.h):
 *
 *   [Coredump]
 *   Storage=/var/lib/coredumpd    directory the dumps go to
 *   MaxUse=auto                   total size of stored dumps (auto: 10% of the file system, ≤ 4G)
 *   MaxUsePerUser=auto            of that, the cores of one user (auto: no cap of its own; beyond
 *                                 MaxUse= the oldest of the user whose cores take most go first)
 *   KeepFree=auto                 free space to leave (auto: 15% of the file system, ≤ 4G)
 *   MaxSize=2G                    per dump, uncompressed; a larger core is cut and marked truncated
 *   Compress=zstd                 zstd | none (yes/no accepted)
 *   CompressLevel=3               zstd level
 *   MaxConcurrent=16              crashes handled at once; more wait in a queue
 *   MaxConcurrentPerUser=8        of those, at most this many of one user
 *   ReservedConcurrent=2          of those, this many only for root and system users (UID < 1000)
 *   MaxQueued=256                 crashes waiting for a slot (each for at most QueueDeadlineSec=, 5min); beyond,
 *                                 a crash is answered REJECT at once and recorded as "overload"
 *   MaxQueuedPerUser=32           of those, at most this many of one user
 *   QueueDeadlineSec=5min         the longest a crash waits in the queue
 *   DeadlineSec=60s               a connection is closed after this long without progress
 *   MinRate=1M                    ... and at the latest after DeadlineSec= + MaxSize= / MinRate=
 *   MaxDurationSec=5min           ... or this, if sooner
 *   UnwindTimeoutSec=3s           time to unwind the held task before deciding (0: do not)
 *   UnwindMaxFrames=64            frames per thread
 *   RateLimitIntervalSec=1h       per crash signature: the first RateLimitBurst= crashes in an
 *   RateLimitBurst=5              interval get the rule's action, later ones OnRepeat= (policy
 *   OnRepeat=reject               rules may say otherwise); 0 turns the rate limit off
 *   MaxAgeSec=3d                  cores older than this are removed (0 or infinity: kept until
 *                                 MaxUse=/KeepFree= need the room); a policy rule may say otherwise
 *   KeepPerSignature=0            at most this many cores of one signature and tenant, the newest
 *                                 (0: no such limit)
 *   IdleExitSec=30s               exit when idle this long (0: never)
 *   JournalSizeMax=1M             the compact core (COREDUMP=) in the record of a signature's first
 *                                 crash in its RateLimitIntervalSec=, for a collector (0: none)
 *   JournalCore=user              which records carry it: user (the copy in a regular user's own
 *                                 journal only), system (the system journal's record too, for root's
 *                                 and system users' crashes as well: a fleet), no (none); a policy
 *                                 rule may say otherwise
 *
 * The file is read as systemd.syntax(7) says (shared/ini-file.h), the spans as systemd.time(7) writes
 * them (shared/parse.h: 1M is a month). The keys of spans end in Sec; the names before (Deadline=,
 * QueueDeadline=, UnwindTimeout=, MaxDuration=, IdleExit=, MaxAge=) are aliases (config_key_aliases).
 *
 * A key or value that is wrong is logged as "file:line: what (hint)" and ignored, the rest of the
 * file and every other file still apply, as in systemd: a typo never stops crash collection.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SIZE_AUTO (UINT64_MAX - 1)

enum compression {
        COMPRESSION_NONE,
        COMPRESSION_ZSTD,
};

/* JournalCore=: which journal records carry a crash's compact core (COREDUMP=). Who reads a record
 * is who reads its journal: the system journal root, adm and systemd-journal (and whatever
 * systemd-journal-upload sends it to); a regular user's own journal that user and the same groups. */
enum journal_core {
        JOURNAL_CORE_NO,        /* none */
        JOURNAL_CORE_USER,      /* the copy in a regular user's own journal only (the default) */
        JOURNAL_CORE_SYSTEM,    /* that, and the system journal's record, whoever crashed */
        _JOURNAL_CORE_MAX,
};

struct config {
        char *storage;
        uint64_t max_use;
        uint64_t max_use_per_user;
        uint64_t keep_free;
        uint64_t max_size;
        enum compression compress;
        int compress_level;
        unsigned max_concurrent;
        unsigned max_concurrent_per_user;
        unsigned reserved_concurrent;
        unsigned max_queued;
        unsigned max_queued_per_user;   /* of one tenant, every one; users leave max_queued / 8 to the host's system users */
        uint64_t deadline_usec;
        uint64_t queue_deadline_usec;
        uint64_t unwind_timeout_usec;   /* 0: no unwinding before the ack */
        uint64_t rate_limit_interval_usec;
        unsigned rate_limit_burst;      /* 0: none */
        int on_repeat;                  /* enum action: ACTION_REJECT or ACTION_USERSPACE */
        unsigned unwind_max_frames;
        uint64_t min_rate;              /* bytes per second, on average after the first Deadline= */
        uint64_t max_duration_usec;     /* a connection's whole life, however it moves */
        uint64_t idle_exit_usec;
        uint64_t max_age_usec;          /* USEC_INFINITY: no age limit */
        unsigned keep_per_signature;    /* cores of one signature and tenant kept; 0: any number */
        uint64_t journal_size_max;      /* 0: no compact core in the record */
        enum journal_core journal_core; /* which records carry it */
};

#define USEC_INFINITY UINT64_MAX
/* JournalSizeMax='s largest value, and the parser's own cap (parser/wire.h's PARSER_COMPACT_MAX). */
#define JOURNAL_SIZE_MAX_LIMIT (UINT64_C(64) << 20)

void config_init_defaults(struct config *c);
void config_done(struct config *c);

/* Loads path over *c, then the drop-ins: the *.conf files of dropin_dirs (NULL: none), in the order
 * of their names, whichever directory they are in (config/conf-files.h). A missing main file is
 * fine unless must_exist. Every file is read and every wrong line logged once, as a warning
 * "path:line: what is wrong, ignored (hint: ...)", and skipped: what the other lines say applies
 * (a drop-in that cannot be read is skipped likewise). Returns the number of lines and files
 * skipped (0: all clean) with *c updated, or -errno (out of memory, a must_exist main file that
 * cannot be opened), *c left as it was. */
int config_load_with_dropins(struct config *c, const char *path, bool must_exist, const char *const *dropin_dirs);
/* The main file alone. */
int config_load(struct config *c, const char *path, int must_exist);

/* The drop-in directories: those given (--config-dir=, NULL-terminated), else none if the main file
 * was given explicitly (--config=), else the defaults: coredumpd.conf.d in /etc/coredumpd,
 * /run/coredumpd and /usr/lib/coredumpd, or $COREDUMPD_CONFIG_DROPIN_PATH. */
const char *const *config_dropin_dirs(char *const *given, bool config_explicit);

/* A reload: next's settings into the running *live, but for those that cannot change while the
 * daemon runs: Storage= (the store directory is opened once, the sandbox is set up for it), kept as
 * it is. Returns the name of the first such key that next changes ("Storage"), or NULL. */
const char *config_update_runtime(struct config *live, const struct config *next);

/* The keys coredumpd.conf takes, by their names (NULL-terminated); the older names of some, each
 * {alias, key}, {NULL, NULL} last; the key an alias names (any other key as it is). */
const char *const *config_known_keys(void);
extern const char *const config_key_aliases[][2];
const char *config_key_canonical(const char *key);

/* The effective configuration, in the file format. */
void config_print(const struct config *c, FILE *out);

/* MaxAge= of coredumpd.conf and of policy rules: a duration of at least 1s, or 0 or "infinity"
 * (USEC_INFINITY: no age limit). */
int parse_max_age(const char *value, uint64_t *ret);
const char *format_max_age(char buf[static 32], uint64_t usec);

const char *compression_to_string(enum compression c);
/* "no", "user", "system"; from_string takes those three words only (yes would not say which
 * journal). */
const char *journal_core_to_string(enum journal_core j);
int journal_core_from_string(const char *s, enum journal_core *ret);
int compression_from_string(const char *s, enum compression *ret);
