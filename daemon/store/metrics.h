/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The daemon's counters, kept in the store directory (.metrics) so that they outlive the daemon's
 * idle exits and restarts: what became of the crashes (by action, result and reason), the cores
 * stored and vacuumed, the first-seen signatures, the ack and release latencies (histograms), the
 * queue's peak. `dumpctl metrics` prints them in Prometheus' text format (cli/verb-metrics.c).
 *
 * The file is a fixed array of 64-bit counters behind a header, mapped shared by each process that
 * counts (the daemon's threads, `dumpctl vacuum`): a count is one atomic add into the mapping — no
 * lock, no system call, no write on a crash's way to its ack. The page cache holds it whatever
 * becomes of the process (SIGKILL loses nothing); the kernel writes it back. Every counter is an
 * aligned 8-byte word, so a reader (pread) never sees one half-written. The file is made whole (an
 * O_TMPFILE of the full size, linked) and never shrinks; one of another layout is replaced the same
 * way, keeping the counters it has. Its counts name no signature, executable or user: it is 0644.
 */

#include <stdbool.h>
#include <stdint.h>

#define METRICS_FILE ".metrics"
#define METRICS_MAGIC "CDMETRIC"
#define METRICS_VERSION 1

/* The labels of coredumpd_crashes_total. */
enum metrics_action {
        METRICS_ACTION_NONE,            /* not decided: failed before the policy */
        METRICS_ACTION_KERNEL,
        METRICS_ACTION_USERSPACE,
        METRICS_ACTION_REJECT,
        _METRICS_ACTION_MAX,
};

enum metrics_result {
        METRICS_RESULT_STORED,
        METRICS_RESULT_USERSPACE,
        METRICS_RESULT_REJECTED,
        METRICS_RESULT_OVERLOAD,
        METRICS_RESULT_FAILED,
        _METRICS_RESULT_MAX,
};

enum metrics_reason {
        METRICS_REASON_NONE,                    /* kept as the rule said */
        METRICS_REASON_RULE,                    /* a policy rule's Action=reject */
        METRICS_REASON_RLIMIT_ZERO,             /* builtin:rlimit-zero */
        METRICS_REASON_REPEAT,                  /* past RateLimitBurst=: OnRepeat= */
        METRICS_REASON_NO_ROOM,                 /* no room in the store (KeepFree=, MaxUse=, MaxUsePerUser=) */
        METRICS_REASON_OVERLOAD,                /* MaxQueued=, QueueDeadlineSec=, stuck work, stopping */
        METRICS_REASON_DEADLINE,                /* DeadlineSec=, MinRate=, MaxDurationSec= */
        METRICS_REASON_KERNEL_REFUSED,          /* the kernel's mark was not REQACK */
        METRICS_REASON_SELF,                    /* coredumpd's own crash, or its parser's */
        METRICS_REASON_NO_CONTEXT,              /* the context or the policy could not be had */
        METRICS_REASON_ABANDONED,               /* its thread stuck in the kernel */
        METRICS_REASON_ERROR,                   /* any other failure (COREDUMPD_ERROR= says) */
        _METRICS_REASON_MAX,
};

/* Why the vacuum removed a core (coredumpd_vacuumed_cores_total{cause}). */
enum metrics_vacuum_cause {
        METRICS_VACUUM_AGE,             /* MaxAgeSec= */
        METRICS_VACUUM_SIZE,            /* MaxUse=, KeepFree= */
        METRICS_VACUUM_PER_USER,        /* MaxUsePerUser= */
        _METRICS_VACUUM_MAX,
};

/* The latency histograms' upper bounds, in microseconds (+Inf follows). */
#define METRICS_BUCKETS 14
extern const uint64_t metrics_bucket_usec[METRICS_BUCKETS];

enum metrics_histogram {
        METRICS_HISTOGRAM_ACK,          /* accept → ack: how long the kernel waited for our answer */
        METRICS_HISTOGRAM_RELEASE,      /* accept → release: how long the task was held */
        _METRICS_HISTOGRAM_MAX,
};

/* The counters' places in the file. */
enum metrics_counter {
        METRICS_CRASHES = 0,            /* [action][result][reason] */
        METRICS_CORES_STORED = METRICS_CRASHES + _METRICS_ACTION_MAX * _METRICS_RESULT_MAX * _METRICS_REASON_MAX,
        METRICS_CORE_BYTES_STORED,      /* on disk, as stored (before compression) */
        METRICS_CORES_TRUNCATED,
        METRICS_SIGNATURES_FIRST_SEEN,
        METRICS_VACUUMED_CORES,         /* [cause] */
        METRICS_VACUUMED_BYTES = METRICS_VACUUMED_CORES + _METRICS_VACUUM_MAX, /* [cause] */
        METRICS_HISTOGRAMS = METRICS_VACUUMED_BYTES + _METRICS_VACUUM_MAX,
        /* [histogram][bucket 0..METRICS_BUCKETS (+Inf)], then sum (usec) and count */
        METRICS_QUEUE_PEAK = METRICS_HISTOGRAMS + _METRICS_HISTOGRAM_MAX * (METRICS_BUCKETS + 3),
        METRICS_USER_NOTES,             /* rejected crashes told in their user's own journal */
        METRICS_USER_NOTES_WITHHELD,    /* ... and not told: past the bound */
        _METRICS_COUNTER_MAX,
};

static inline enum metrics_counter metrics_crash_index(enum metrics_action a, enum metrics_result r,
                                                       enum metrics_reason why) {
        return METRICS_CRASHES + ((unsigned) a * _METRICS_RESULT_MAX + (unsigned) r) * _METRICS_REASON_MAX + why;
}

static inline enum metrics_counter metrics_histogram_index(enum metrics_histogram h, unsigned slot) {
        return METRICS_HISTOGRAMS + (unsigned) h * (METRICS_BUCKETS + 3) + slot;
}

const char *metrics_action_label(enum metrics_action a);
const char *metrics_result_label(enum metrics_result r);
const char *metrics_reason_label(enum metrics_reason r);
const char *metrics_vacuum_label(enum metrics_vacuum_cause c);

struct metrics;

/* Opens (making it, 0644 root, if missing or of another layout) dir_fd/.metrics and maps it for
 * counting. NULL on any failure (logged at debug: counting is never worth a crash's record). */
struct metrics *metrics_open(int dir_fd);
struct metrics *metrics_close(struct metrics *m);

/* Each a no-op on NULL. */
void metrics_add(struct metrics *m, enum metrics_counter i, uint64_t n);
/* The counter becomes value if that is larger (a peak). */
void metrics_max(struct metrics *m, enum metrics_counter i, uint64_t value);
void metrics_count_crash(struct metrics *m, enum metrics_action a, enum metrics_result r, enum metrics_reason why);
void metrics_observe(struct metrics *m, enum metrics_histogram h, uint64_t usec);

/* The counters as dir_fd/.metrics holds them now, read (not mapped) and checked: 0, -ENOENT when
 * there is none yet (all zero), or -EBADMSG for a file that is not one of ours. Counters the file
 * lacks (an older layout) read as 0. */
int metrics_read(int dir_fd, uint64_t values[static _METRICS_COUNTER_MAX]);
