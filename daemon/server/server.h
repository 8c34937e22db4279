/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The daemon's event loop (sd-event): accepts crash connections, hands each to a worker thread
 * (at most MaxConcurrent; beyond that a crash is rejected on the loop as "overload"), shuts a
 * connection down at its deadline, reloads policy on SIGHUP, exits on SIGTERM/SIGINT or when idle.
 * Blocking I/O never runs on the loop.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <systemd/sd-event.h>

#include "crash/steps.h"

struct workers;

struct server {
        sd_event *event;
        int listen_fd;
        sd_event_source *listen_source;
        sd_event_source *resume_timer;  /* the listener paused for want of fds, resumed by this */
        unsigned n_paused;              /* times accept() ran out of fds (EMFILE, ENFILE, ...) */
        sd_event_source *wake_source;   /* server_request_stop() from other threads, through wake_fd */
        sd_event_source *idle_timer;
        sd_event_source *housekeeping_timer; /* counts saved, heap trimmed, when due (server_housekeeping()) */
        int wake_fd;
        atomic_bool stop_requested;
        bool stopping;
        bool notify;

        struct config *config;          /* the live one: changed by a reload, on the loop only */
        const char *config_path;        /* for reloads: coredumpd.conf ... */
        bool config_must_exist;
        const char *const *config_dropin_dirs; /* ... and its drop-ins */
        char *restart_warned;           /* the Storage= a reload last said needs a restart */
        atomic_bool reload_requested;
        struct host_view host;          /* read once, shared by every crash (env.host) */
        sem_t unwind_slots;             /* env.unwind_slots */
        struct crash_env env;

        pthread_mutex_t policy_lock;
        struct policy *policy;
        const char *const *policy_dirs;

        struct workers *workers;
        unsigned long long n_accepted;
        uint64_t longest_turn_usec;     /* the longest dispatch of the loop so far (server_loop()) */

        /* fds_short(): the open fds as last counted (/proc/self/fd) and the connections accepted
         * since; counted again when that is FDS_COUNT_MAX_AGE_USEC old or leaves too few. */
        unsigned fds_counted;
        uint64_t fds_counted_usec;      /* CLOCK_MONOTONIC; 0: never */
        unsigned fds_accepted_since;
};

/* How long compression waits at most for a released task's teardown (crash/steps.c). */
#define SERVER_EXIT_WAIT_USEC (5 * 1000000ULL)

struct server_options {
        struct config *config;          /* in force; a reload (SIGHUP) updates it */
        const char *config_path;        /* what a reload reads: coredumpd.conf (NULL: no config reload) */
        bool config_must_exist;
        const char *const *config_dropin_dirs;
        int listen_fd;                  /* taken over by the server */
        struct store *store;            /* not owned */
        struct policy *policy;          /* initial policy, a reference is taken */
        const char *const *policy_dirs; /* for reloads */
        authenticate_fn authenticate;
        void *authenticate_userdata;
        record_sink_fn record_sink;
        void *record_userdata;
        bool user_records;              /* also a copy in the crashing user's journal (crash/record.h) */
        bool packages;                  /* crash_env.packages: a kept crash's package (crash/package.h) */
        struct probe *probe;            /* crash-context probe, not owned; may be NULL */
        struct repeats *repeats;        /* counts per crash signature, not owned; may be NULL */
        uint64_t exit_wait_usec;        /* crash_env.exit_wait_usec: SERVER_EXIT_WAIT_USEC, or 0 where
                                         * the peers are no crashing tasks and never exit (tests) */
        bool handle_signals;            /* SIGTERM/SIGINT/SIGHUP (must be blocked by the caller) */
        bool notify;                    /* sd_notify() READY=1 / STOPPING=1 */
        struct first_seen *first_seen;  /* signatures seen on this host, not owned; may be NULL */
        hook_start_fn hook_start;       /* the hooks (server/hooks.h: hooks_start()); NULL: none */
        void *hook_userdata;
};

int server_new(const struct server_options *o, struct server **ret);
struct server *server_free(struct server *s);

/* Runs the loop until stopped; returns 0 or a negative errno. */
int server_run(struct server *s);
/* Asks the loop to stop (from any thread): no new connections; exit once the running ones end. */
void server_request_stop(struct server *s);
/* Loads policy anew; on failure the old one stays in force. */
int server_reload_policy(struct server *s);
/* Asks the loop (from any thread) to reload as on SIGHUP: coredumpd.conf with its drop-ins, then
 * the policy. */
void server_request_reload(struct server *s);
