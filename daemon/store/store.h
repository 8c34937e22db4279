/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The dump store: one directory, opened once (O_DIRECTORY|O_NOFOLLOW); every file operation is
 * relative to it and never follows a link. A dump is written into an unnamed O_TMPFILE and only
 * linked under its final name once complete, so no half-written dump is ever visible. Files are
 * 0640 root:root, plus a read ACL for the crashing user when it may see its own memory.
 */

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"
#include "shared/cell.h"
#include "shared/fields.h"
#include "shared/tenant.h"
#include "store/metrics.h"

/* The store's limits from the configuration. */
struct store_limits {
        uint64_t max_use;               /* SIZE_AUTO or bytes */
        uint64_t max_use_per_user;      /* SIZE_AUTO or bytes */
        uint64_t keep_free;             /* SIZE_AUTO or bytes */
        uint64_t max_age_usec;          /* MaxAge=: cores older are removed; USEC_INFINITY: never */
        unsigned keep_per_signature;    /* KeepPerSignature=: the newest cores of a signature and tenant
                                         * kept; 0: any number */
        int compress_level;
};

struct user_usage;

/* What the last full vacuum left in the store (store/vacuum.c), under vacuum_lock: a core that
 * breaks no limit is then vacuumed without listing the store again. */
struct store_tally {
        bool valid;
        uint64_t usage;                 /* bytes on disk of every core and what is kept with it */
        struct user_usage *users;       /* each user's part of it */
        size_t n_users;
        uint64_t next_expiry;           /* CLOCK_REALTIME usec when the first outlives its MaxAge= */
        uint64_t max_age_usec;          /* the store's MaxAge= that was computed with */
};

struct store {
        int dir_fd;
        char *path;
        /* A reload changes the limits while crashes use them: they are set and read as one set, under
         * limits_lock (store_set_limits(), store_get_limits()), so no step mixes old and new. */
        pthread_mutex_t limits_lock;
        struct store_limits limits;
        pthread_mutex_t vacuum_lock;
        struct store_tally tally;       /* under vacuum_lock */
        uint64_t vacuum_passes;         /* vacuums that listed the store (under vacuum_lock; tests) */
        pthread_mutex_t reserve_lock;
        uint64_t reserved;              /* bytes held by crashes in flight (store/reserve.h) */
        sem_t compress_slots;           /* background compressions at once */
        atomic_bool interrupted;        /* store_interrupt(): background work stops early */
        struct metrics *metrics;        /* the store's counters (store/metrics.h), or NULL */
};

/* A stream's progress, shared with the thread that enforces its deadline. */
struct store_progress {
        atomic_bool expired;                    /* the deadline cut the stream */
        _Atomic(const char *) expired_why;      /* which bound cut it (a static string), or NULL */
        atomic_uint_fast64_t last_usec;         /* CLOCK_MONOTONIC when bytes last arrived; 0: none yet */
        atomic_uint_fast64_t received;          /* bytes so far, for the average-rate floor */
};

struct stored_core {
        char *name;             /* file name inside the store */
        char *path;             /* full path, for COREDUMP_FILENAME */
        uint64_t size;          /* uncompressed bytes kept */
        uint64_t disk_size;     /* bytes allocated on disk */
        bool truncated;         /* the core was cut at the size limit */
        bool sync_pending;      /* linked, not yet on disk: store_settle() before it is recorded */
        bool punch_pending;     /* spliced in unseen: its zero blocks are data until store_settle() */
        uint64_t linked_usec;   /* CLOCK_REALTIME when it first appeared in the store */
        enum compression compression;
};

/* Opens (creating it 0751 if missing: others may reach their ACL'd dumps, not list them) the store
 * directory. */
int store_open(const char *path, const struct config *config, struct store **ret);
struct store *store_free(struct store *s);
/* MaxUse=, MaxUsePerUser=, KeepFree=, MaxAge= and CompressLevel= of config, for the next vacuum,
 * reservation and compression (a reload). */
void store_set_limits(struct store *s, const struct config *config);
/* The limits as one consistent set. */
struct store_limits store_get_limits(struct store *s);

/* A uid that is granted nothing. */
#define STORE_NO_READER ((uid_t) -1)

/* What to store and how. */
struct store_target {
        const char *name;               /* file name inside the store (store_core_name()) */
        const struct fields *metadata;  /* the crash's fields; those with an attribute go on the core */
        uid_t reader_uid;               /* granted read access by an ACL entry, or STORE_NO_READER */
        uint64_t max_size;              /* uncompressed bytes kept at most; more is cut (truncated) */
        enum compression compress;
        const char *tag;                /* crash tag for log lines of what does not fail the store */
        /* The task waits on this core: its fdatasync() is left to store_settle(), after the release
         * (a plain core that is compressed next is never synced: its compressed form is). */
        bool sync_later;
};

/* core.<comm>.<uid>.<bootid>.<pid>.<usec>[.zst], comm escaped to a safe file name part. */
char *store_core_name(const char *comm, uid_t uid, const char *boot_id, pid_t pid, uint64_t timestamp_usec,
                      enum compression compression);

/* Streams the core from sock_fd into the store, noting each arrival of bytes in progress (may be
 * NULL), whose expired flag tells a deadline from an EOF. 0: stored (maybe truncated) and *ret
 * filled. Negative: nothing was kept; why is in reason (nothing is logged). */
int store_core(struct store *s, int sock_fd, const struct store_target *t, struct store_progress *progress,
               struct stored_core *ret, char *reason, size_t reason_size);

/* A core that coredumpd makes itself (Action=userspace): generate writes it into w, which compresses
 * as the target says; it sets *ret_truncated if it stopped at the size cap. Stored like a streamed
 * core: O_TMPFILE, owner, mode, attributes, ACL, linked when complete. */
struct core_writer;
typedef int (*store_generate_fn)(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                                 size_t reason_size);
int store_core_generated(struct store *s, const struct store_target *t, store_generate_fn generate,
                         void *userdata, struct stored_core *ret, char *reason, size_t reason_size);

/* How a writer process starts (store_generate_killable()): right after the fork it closes every
 * fd but stdin, stdout, stderr, the core's file (w->fd) and keep_fds, so it holds nothing of the
 * daemon's (other crashes' connections and cores in flight, the parsers' /proc/<pid>/mem, BPF
 * maps); then, with uid set, it enters the cell (shared/cell.h) as uid and gid before generate reads
 * anything of the task: what it needs of the task is open already, in keep_fds. */
struct writer_start {
        const int *keep_fds;
        size_t n_keep_fds;
        uid_t uid;                      /* 0: the ids stay (a test that runs unprivileged) */
        gid_t gid;
        struct tenant owner;            /* its crash's: whose stuck budget it counts in (shared/child.h) */
        struct cell_limits limits;      /* address_space: on top of the daemon's, which the fork starts with */
};

/* For a store_generate_fn that may block where nothing can wake it (reading the memory of a
 * process mapped from a FUSE file whose server never answers): runs generate in a child process
 * on the same writer, started as start says (NULL: every fd closed but the three and w->fd, the
 * ids kept), and SIGKILLs it as soon as *cancel is set (looked at every 50 ms), so the caller is
 * back within moments, whatever the child is stuck on. result_size bytes at result (a part of
 * userdata that generate fills) come back from the child. -ETIMEDOUT when cancelled. */
int store_generate_killable(struct core_writer *w, const struct writer_start *start, store_generate_fn generate,
                            void *userdata, const atomic_bool *cancel, void *result, size_t result_size,
                            bool *ret_truncated, char *reason, size_t reason_size);

/* Compresses a plain stored core in the background of its crash (the task is released already):
 * at low CPU and I/O priority, at most half the CPUs at once, into an unnamed file linked as
 * t->name (t->compress, t->metadata and t->reader_uid as for any core); only then is the plain
 * file removed, so the store always holds one valid form. On success *plain is replaced by the
 * compressed core. Negative: the plain core stays as it is; why is in reason. -ECANCELED after
 * store_interrupt(). */
int store_compress(struct store *s, struct stored_core *plain, const struct store_target *t, char *reason,
                   size_t reason_size);
/* Settles a core after its task's release, opening it once: a spliced plain core's zero blocks
 * become holes (core_file_punch_zeros(); a failure leaves them data, said in the log with tag but
 * for a file system that has no holes), then a core stored with sync_later goes on disk
 * (fdatasync()), so that its record never names a core a power loss could take. A core compressed
 * next needs neither (its compressed form replaced it, synced before its link). Negative: the core
 * could not be synced and is removed (not kept, as if its store had failed); why is in reason. */
int store_settle(struct store *s, struct stored_core *c, const char *tag, char *reason, size_t reason_size);
/* Whether store_compress() lowered the calling thread's CPU and I/O priority (nice 10, idle I/O):
 * the daemon keeps no right to raise them again, so such a thread takes no further crash. */
bool store_thread_priority_lowered(void);
/* Makes background work (store_compress()) stop early, keeping what it started from. */
void store_interrupt(struct store *s);

void stored_core_done(struct stored_core *c);

/*
 * Files kept with a core ("attachments": the ELF objects of a container's crash, for the debugger):
 * <core name without .zst>.file-<N>. Vacuum counts them to their core and removes them with it;
 * the reader does not take them for cores.
 */
/* The attachment name of a core's n-th file (malloc'ed), or NULL. */
char *store_attachment_name(const char *core_name, unsigned n);
/* Whether name is an attachment; *ret_base_len (may be NULL) is the length of its core's name
 * without .zst. */
bool store_name_is_attachment(const char *name, size_t *ret_base_len);
/* The uid in a core's name, core.<comm>.<uid>.… (store_core_name(): the comm is escaped and holds
 * no '.'); UINT32_MAX if it has none. */
uint32_t store_name_uid(const char *name);
/* Whether name is a core's in the store: core.*, no '/', not an attachment. */
bool store_name_is_core(const char *name);
/* Removes the core name (relative to the store's dir_fd; never through a symlink, only a regular
 * file) and the files kept with it, for requester: root any; another uid only a core whose
 * record's uid (user.coredump.uid) is theirs and that is theirs to read (its owner, or an ACL entry
 * of theirs with read: a dumpable crash's core; not a setuid or root-only one; on a file system
 * without user.* attributes, such as tmpfs before Linux 6.6, the uid in the core's name, which only
 * the daemon gives). 0 and
 * *ret_removed (the files removed), or -errno with why: -EPERM (not theirs), -EINVAL (not a core's
 * name), -ENOENT, -EBADF (not a regular file), -ELOOP (a symlink). */
int store_remove_core(int dir_fd, const char *name, uid_t requester, unsigned *ret_removed, char *why, size_t why_size);

/* Copies src_fd (a regular file, at most max_size bytes, else -EFBIG) into the store as name: an
 * O_TMPFILE, 0640 root:root with the core's read ACL for reader_uid, linked when complete (never
 * over an existing name). *ret_disk_size gets what it takes. Negative: nothing kept; why is in
 * reason. */
int store_save_file(struct store *s, int src_fd, const char *name, uid_t reader_uid, uint64_t max_size,
                    uint64_t *ret_disk_size, const char *tag, char *reason, size_t reason_size);

/* As store_save_file(), from a pipe (the parser's cell, parser/keep.c): exactly size bytes, each
 * wait for more at most stall_usec (-ETIMEDOUT: nothing is linked); the writer is never handed the
 * source file. */
int store_save_stream(struct store *s, int pipe_fd, uint64_t size, uint64_t stall_usec, uint64_t until_usec,
                      const char *name, uid_t reader_uid, uint64_t *ret_disk_size, const char *tag, char *reason,
                      size_t reason_size);

/* Deletes core.* files older (by mtime) than their MaxAge= (the user.coredumpd.max_age attribute
 * their rule set, else the store's), then until each user's cores take at most MaxUsePerUser=, the
 * store at most MaxUse= and the file system has KeepFree= left: first the oldest of a user over its
 * share, then the oldest of whichever user takes the most, so one user cannot flush everybody
 * else's cores out. The file named keep is never deleted. Returns the number of files removed. */
int store_vacuum(struct store *s, const char *keep, const char *tag);

/* MaxUse= and KeepFree= when "auto": a share of the file system, at most 4G. */
#define STORE_MAX_USE_PERCENT 10
#define STORE_KEEP_FREE_PERCENT 15
uint64_t store_limit(uint64_t configured, uint64_t fs_size, unsigned percent);
/* The bytes the cores (and files kept with them) of a tenant take in the store now. */
uint64_t store_usage_of(struct store *s, const struct tenant *owner);
