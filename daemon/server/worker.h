/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the server's files share (server/worker.c, workers.c, pool.c, admission.c): a worker (one
 * crash connection, from start to reap) and the workers with their pool of threads; a worker's
 * lifetime and clock (server/worker.c), which workers.c and pool.c both use. Only these files
 * include it.
 */

#include <pthread.h>
#include <stdatomic.h>

#include <systemd/sd-event.h>

#include "config/config.h"
#include "crash/steps.h"
#include "shared/fields.h"
#include "shared/tenant.h"

enum worker_kind {
        WORKER_LOOP,            /* on the loop: the request read, the policy applied; a REJECT (by
                                 * the policy, or overload) answered there, waiting for the mark */
        WORKER_QUEUED,          /* decided to keep, waiting for a slot; the kernel holds the task */
        WORKER_THREAD,          /* the rest of the steps on a thread of its own; it holds a slot of
                                 * MaxConcurrent= until it releases the task (conn.released), then
                                 * compresses and records beside the slots, MaxConcurrent= such
                                 * threads at most */
        _WORKER_KIND_MAX,
};

enum loop_state {
        LOOP_WANT_REQUEST,
        LOOP_WANT_MARK,
};

struct worker {
        struct workers *workers;
        enum worker_kind kind;
        struct connection conn;
        struct crash crash;             /* authenticated on the loop, at accept */
        struct tenant tenant;           /* whose share, quota and reserved room (shared/tenant.h) */
        sd_event_source *deadline;
        uint64_t started_usec;          /* CLOCK_MONOTONIC: accepted, or taken off the queue */
        struct worker *next;

        /* WORKER_THREAD */
        atomic_bool finished;           /* its steps are done; set under pool_lock */
        struct worker *handed_next;     /* handed to a parked thread, not taken yet */
        const char *cut_why;            /* the deadline cut it (connection_expire()): which bound;
                                         * abandoned if it still holds its task after the grace */
        char tag[96];                   /* the crash's tag at hand-over, for the loop's lines */
        struct fields abandon_record;   /* its record should it be abandoned, made at hand-over */
        int abandon_action;             /* its action then (enum metrics_action), for the counts */

        /* WORKER_LOOP */
        enum loop_state state;
        sd_event_source *io;
        const char *overload_why;       /* rejected for overload, not by the policy: which bound */
        char stuck_why[96];             /* overload_why when its tenant's stuck work is the bound */
};

struct workers {
        sd_event *event;
        const struct config *config;
        const struct crash_env *env;
        /* env but for the record_sink: what the loop records goes through the recorder's thread
         * (server/recorder.h), never waiting on the journal. */
        struct crash_env loop_env;
        struct recorder *recorder;
        void (*changed)(void *userdata);        /* workers_new()'s */
        void *userdata;
        sd_event_time_handler_t on_deadline;    /* a worker's deadline (server/workers.c) */

        int wake_fd;                    /* thread workers report completion here */
        sd_event_source *wake_source;

        struct worker *list;            /* threads and loop workers, any order */
        struct worker *queue, **queue_tail;     /* queued, oldest first */
        unsigned n[_WORKER_KIND_MAX];
        bool trim_pending;              /* the last crash thread ended since the last trim */
        uint64_t trimmed_usec;          /* CLOCK_MONOTONIC of the last malloc_trim() */

        /* The crashes' threads (detached): running one's steps, or parked for the next. */
        pthread_mutex_t pool_lock;
        pthread_cond_t pool_work;       /* to the parked: a crash handed over, or stop */
        pthread_cond_t pool_done;       /* from the threads: a crash's steps done, a thread ended */
        struct worker *handed, **handed_tail;
        unsigned handed_n, parked, alive;
        bool stopping;
        uint64_t stop_at;               /* CLOCK_MONOTONIC: threads still holding a task are cut then
                                         * (workers_stop()); 0: not stopping */
};

/* A worker's lifetime (server/worker.c), for server/workers.c and the pool's threads (server/pool.c). */

/* A worker for fd, a freshly accepted crash connection, not linked; NULL without memory. */
struct worker *worker_new(struct workers *ws, int fd);
/* Frees a worker whose thread, if any, has ended. */
void worker_free(struct worker *w);
/* Into (out of) the list of its kind: the queue's tail, else the list of threads and loop workers. */
void worker_link(struct workers *ws, struct worker *w, enum worker_kind kind);
void worker_unlink(struct workers *ws, struct worker *w);
/* (Re)starts the worker's clock (ws->on_deadline fires): at accept (QueueDeadline= while it
 * waits), and Deadline= again when a queued crash gets its slot. */
int worker_arm_deadline(struct worker *w, bool queued);
/* When w's connection expires (server/deadline.h): 0 if it has at now, with why. */
uint64_t worker_deadline_next(const struct worker *w, uint64_t now, const char **ret_why);
