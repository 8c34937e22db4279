/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The daemon's side of the parser: one coredumpd-parser per crash, started with the task's
 * /proc/<pid>/{mem,maps,mountinfo} and root opened here (an fd keeps the access it was opened
 * with), as the crashing user when the dump is theirs, else as an id of its own (CELL_IDS_ANY,
 * shared/cell-ids.h: no other process has it, not even another cell); killed at
 * budget + PARSER_START_GRACE_USEC; its answer decoded and checked (parser_result_decode()).
 * Nothing of the task's files or memory is read in the daemon.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "parser/package-wire.h"
#include "parser/wire.h"
#include "selfdump/proc-maps.h"
#include "shared/cell-ids.h"
#include "shared/tenant.h"

/* The parser's ids for a dump that is not the crashing user's own (root's, a setuid program's):
 * replaced, as each child starts, by an id of its own (shared/cell-ids.h). */
#define PARSER_NOBODY CELL_IDS_ANY
/* Starting the parser and loading libdw, on top of UnwindTimeout=. */
#define PARSER_START_GRACE_USEC UINT64_C(1000000)
/* The parser's address space. */
#define PARSER_MEMORY_MAX (UINT64_C(1024) * 1024 * 1024)

struct parser_job {
        int proc_fd;                    /* /proc/<pid>, verified against the pidfd */
        pid_t pid;
        uid_t uid;                      /* the parser's ids (parser_ids()) */
        gid_t gid;
        struct tenant owner;            /* the crash's: whose stuck budget it counts in (shared/child.h) */
        const char *exe;                /* /proc/<pid>/exe, or NULL */
        const struct parser_thread *threads;
        size_t n_threads;               /* at most UNWIND_MAX_THREADS */
        uint64_t budget_usec;
        unsigned max_frames;
};

/* The ids the parser runs as: the crashing user's when the dump is theirs to read and not root's,
 * else PARSER_NOBODY. */
void parser_ids(uid_t uid, gid_t gid, bool user_may_read, uid_t *ret_uid, gid_t *ret_gid);

/* The program started: $COREDUMPD_PARSER (for tests from the build tree), else the installed one. */
const char *parser_program(void);

/* Runs the parser on the job. 0 and *ret filled (maybe empty), or -errno with reason: the parser
 * could not be started, was killed at its deadline (-ETIMEDOUT), died (-ECHILD), answered
 * nonsense (-EBADMSG), or could look at nothing (its own -errno). */
int parser_unwind(const struct parser_job *job, struct unwind_result *ret, char *reason, size_t reason_size);

/* Sends the record's fields to journald once more, from `coredumpd-parser --record` running as
 * uid and gid (never 0), so that journald files it in that user's journal. 0, or -errno with
 * reason. */
int parser_submit_record(const struct iovec *v, size_t n, uid_t uid, gid_t gid, const struct tenant *owner, char *reason,
                         size_t reason_size);

/* The GNU build-ids of the n files (fds the caller opened and keeps), read by
 * `coredumpd-parser --build-ids` with an id of its own (PARSER_NOBODY) in its cell: ret[i] is the hex id, or "" for
 * none. 0, or -errno with reason (every ret[i] then ""): the parser could not be started, was
 * killed at its deadline, died, or answered nonsense. */
int parser_build_ids(const int *fds, size_t n, const struct tenant *owner, char (*ret)[41], char *reason,
                     size_t reason_size);

/* The compact core of a stored one (core_fd: the plain file or the zstd one, opened by the caller),
 * made by `coredumpd-parser --compact-core` with an id of its own (PARSER_NOBODY) in its cell within
 * PARSER_COMPACT_DEADLINE_USEC: 0 and *ret (malloc'ed, *ret_size bytes, at most max_size, checked
 * by parser_compact_core_valid()), or -errno with reason: -E2BIG (it would not fit: the parser's
 * PARSER_COMPACT_EXIT_TOO_LARGE), -ETIMEDOUT, -ECHILD (it failed or died: not a core it could read),
 * -EBADMSG (what came back is no core). */
#define PARSER_COMPACT_DEADLINE_USEC (10 * UINT64_C(1000000))
int parser_compact_core(int core_fd, uint64_t max_size, const struct tenant *owner, void **ret, size_t *ret_size, char *reason,
                        size_t reason_size);

/* The package of a kept crash's executable (exe: /proc/<pid>/exe as read, a path inside the root),
 * found by `coredumpd-parser --package` as uid/gid (never 0) in its cell, with root_fd (O_PATH: the
 * task's root, or ours; container: it is the task's own) as its fd 3 — and for the host's root,
 * with index_out >= 0, the kept index of the lists (index_in, or -1) and an unnamed file for a new
 * one (ret->index_written: filled, for the caller to link into place) — within
 * PARSER_PACKAGE_DEADLINE_USEC: 0 and *ret checked (package_answer_decode(); PACKAGE_FROM_NONE with
 * why when there is none), or -errno with reason: not started, killed, died, answered nonsense. */
#define PARSER_PACKAGE_DEADLINE_USEC (20 * UINT64_C(1000000))
int parser_package(int root_fd, bool container, int index_in, int index_out, const char *exe, uid_t uid, gid_t gid,
                   const struct tenant *owner, struct package_info *ret, char *reason, size_t reason_size);

/*
 * A container's files kept with its core, by `coredumpd-parser --keep-files` (parser/wire.h) as
 * the crashing user or with an id of its own (PARSER_NOBODY): started with the task's root (root_fd, O_PATH, opened
 * through the pidfd-verified /proc/<pid>) and the candidate files while the task is held; what it
 * answers is read from pipes within deadlines and checked; the cell is killed and left to the
 * reaper (shared/child.h) whenever it is late, never waited for.
 */
struct keep_cell_file {
        const char *path;               /* as the maps line names it */
        uint64_t inode;
        unsigned dev_major, dev_minor;
};

struct keep_cell {
        pid_t pid;                      /* 0: none (ended, or left to the reaper) */
        struct tenant owner;            /* its crash's: whose stuck budget it counts in (shared/child.h) */
        int pidfd, in_fd, out_fd;
        size_t n;
        struct parser_keep_opened opened;       /* checked: which files it holds */
        uint64_t budget;                /* what is left of max_bytes */
        uint32_t next;                  /* the next index an entry may have */
};

/* Starts the cell and waits for it to open the files, until deadline_usec (CLOCK_MONOTONIC): 0 and
 * ret->opened, or -errno with reason (the cell then stopped). */
int keep_cell_start(int root_fd, const struct keep_cell_file *files, size_t n, uid_t uid, gid_t gid,
                    const struct tenant *owner, uint64_t max_bytes,
                    uint64_t deadline_usec, struct keep_cell *ret, char *reason, size_t reason_size);
/* Once the task is released: the cell compares and sends (keep_cell_next()). */
int keep_cell_go(struct keep_cell *c);
/* The next entry, checked (parser_keep_entry_check()), by deadline_usec, or -ECANCELED as soon as
 * *cancel (may be NULL) is set; a PARSER_KEEP_COPY's size bytes follow on c->out_fd. 0, or -errno
 * with reason. */
int keep_cell_next(struct keep_cell *c, uint64_t deadline_usec, const atomic_bool *cancel,
                   struct parser_keep_entry *ret, char ret_build_id[static 41], char *reason, size_t reason_size);
/* After its last entry: reaped if it ends at once, else as keep_cell_stop(). */
void keep_cell_end(struct keep_cell *c);
/* Kills it and leaves it to the reaper, without waiting; closes the pipes. For any state. */
void keep_cell_stop(struct keep_cell *c);

/*
 * The reader (parser/wire.h, `coredumpd-parser --reader`): what a crash's steps would otherwise read
 * of the held task on the daemon's own threads — the site key's maps and stack words, the command
 * line, a kept crash's status, maps and limits — asked of a long-lived reader in the cell, one per tenant and ids (never one that served
 * another tenant), started on demand, kept idle READER_KEEP_USEC, ended by the daemon. The daemon
 * opens the task's files (opening takes no mmap_lock) and sends the fds; it waits on the reader's
 * socket until the deadline, then kills it (stuck in the kernel: counted against the tenant,
 * shared/child.h) and the next errand gets a new one. Nothing of the answer is believed before
 * reader_answer_decode() checked it whole.
 */
#define READER_KEEP_USEC (10 * UINT64_C(1000000))

struct reader_job {
        int proc_fd;                    /* /proc/<pid>, verified against the pidfd */
        const struct tenant *owner;     /* the crash's tenant: whose reader it is */
        uid_t uid;                      /* the reader's ids (parser_ids()) */
        gid_t gid;
        uint64_t deadline_usec;         /* CLOCK_MONOTONIC */
};

/* READER_SITE for the crashing thread at pc, sp (its frames ending at frames_end, 0: unknown), the
 * executable exe (or NULL): 0 and *ret (ret->why says why it has no words), or -errno with reason. */
int reader_site(const struct reader_job *job, uint64_t pc, uint64_t sp, uint64_t frames_end, const char *exe,
                struct reader_answer *ret, char *reason, size_t reason_size);
/* READER_CMDLINE of <proc_fd>/name ("cmdline"; a process's directory fd and its "cmdline" for a
 * container's manager): 0 and *ret (malloc'ed, *ret_size bytes and a NUL), or -errno with reason. */
int reader_cmdline(const struct reader_job *job, int dir_fd, const char *name, char **ret, size_t *ret_size,
                   char *reason, size_t reason_size);
/* READER_FILES: a container's mapped files to keep (parser/wire.h), by the maps and mountinfo of
 * job->proc_fd; exe as reader_site()'s. 0 and *ret (its paths in ret->paths: reader_answer_done()),
 * or -errno with reason. */
int reader_files(const struct reader_job *job, const char *exe, struct reader_answer *ret, char *reason,
                 size_t reason_size);
/* READER_PROC: job->proc_fd's status, maps and limits for a kept crash's record, each within its
 * bound (parser/wire.h): 0 and ret[i] (malloc'ed, "" where one could not be read), or -errno with
 * reason. */
int reader_proc_texts(const struct reader_job *job, char *ret[static READER_PROC_PARTS], char *reason,
                      size_t reason_size);
/* The idle readers, ended (at the daemon's end; and for tests). */
/* One mapping of a checked answer as selfdump/proc-maps.h has them (path: the caller's). */
struct proc_mapping reader_proc_mapping(const struct reader_mapping *m, const char *path);

void reader_pool_end(void);
/* Readers running now (idle or at an errand), for tests. */
unsigned reader_pool_count(void);
