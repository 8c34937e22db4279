/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The daemon's side of the parser: one coredumpd-parser per crash, started with the task's
 * /proc/<pid>/{mem,maps,mountinfo} and root opened here (an fd keeps the access it was opened
 * with), as the crashing user when the dump is theirs, else as PARSER_NOBODY; killed at
 * budget + PARSER_START_GRACE_USEC; its answer decoded and checked (parser_result_decode()).
 * Nothing of the task's files or memory is read in the daemon.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "parser/wire.h"

/* The parser's ids for a dump that is not the crashing user's own (root's, a setuid program's). */
#define PARSER_NOBODY 65534
/* Starting the parser and loading libdw, on top of UnwindTimeout=. */
#define PARSER_START_GRACE_USEC UINT64_C(1000000)
/* The parser's address space. */
#define PARSER_MEMORY_MAX (UINT64_C(1024) * 1024 * 1024)

struct parser_job {
        int proc_fd;                    /* /proc/<pid>, verified against the pidfd */
        pid_t pid;
        uid_t uid;                      /* the parser's ids (parser_ids()) */
        gid_t gid;
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
int parser_submit_record(const struct iovec *v, size_t n, uid_t uid, gid_t gid, char *reason, size_t reason_size);

/* The GNU build-ids of the n files (fds the caller opened and keeps), read by
 * `coredumpd-parser --build-ids` as PARSER_NOBODY in its cell: ret[i] is the hex id, or "" for
 * none. 0, or -errno with reason (every ret[i] then ""): the parser could not be started, was
 * killed at its deadline, died, or answered nonsense. */
int parser_build_ids(const int *fds, size_t n, char (*ret)[41], char *reason, size_t reason_size);

/* The compact core of a stored one (core_fd: the plain file or the zstd one, opened by the caller),
 * made by `coredumpd-parser --compact-core` as PARSER_NOBODY in its cell within
 * PARSER_COMPACT_DEADLINE_USEC: 0 and *ret (malloc'ed, *ret_size bytes, at most max_size, checked
 * by parser_compact_core_valid()), or -errno with reason: -E2BIG (it would not fit: the parser's
 * PARSER_COMPACT_EXIT_TOO_LARGE), -ETIMEDOUT, -ECHILD (it failed or died: not a core it could read),
 * -EBADMSG (what came back is no core). */
#define PARSER_COMPACT_DEADLINE_USEC (10 * UINT64_C(1000000))
int parser_compact_core(int core_fd, uint64_t max_size, void **ret, size_t *ret_size, char *reason,
                        size_t reason_size);
