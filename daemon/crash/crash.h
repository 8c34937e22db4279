/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Everything one crash accumulates on its way through the steps, from peer to record. */

#include <stdbool.h>
#include <stddef.h>

#include "crash/authenticate.h"
#include "crash/context.h"
#include "crash/decide.h"
#include "crash/keep-files.h"
#include "crash/protocol.h"
#include "parser/package-wire.h"
#include "selfdump/selfdump.h"
#include "shared/abi.h"
#include "store/store.h"

enum crash_result {
        CRASH_RESULT_NONE,
        CRASH_RESULT_STORED,            /* the kernel's core is in the store */
        CRASH_RESULT_REJECTED,          /* policy said no core */
        CRASH_RESULT_USERSPACE,         /* left to userspace */
        CRASH_RESULT_OVERLOAD,          /* rejected: too many crashes at once */
        CRASH_RESULT_FAILED,            /* something went wrong; error says what */
};

struct crash {
        char tag[96];                   /* "pid 1234 (comm)" for log lines */
        /* The configuration when the crash came (a copy, taken on the event loop): a reload
         * (SIGHUP) changes the crashes after it, never one half-way. Its Storage= string is the
         * daemon's, which no reload replaces. */
        struct config settings;

        bool have_peer;
        struct peer peer;
        bool have_request;
        struct coredump_request request;
        bool have_context;
        struct crash_context context;
        bool have_decision;
        struct decision decision;
        bool unwind_tried;              /* backtrace_take() ran: before the policy, or after it */
        /* The system's journald (context_is_journald()): held no longer than its dump, not unwound,
         * its record also written to /dev/kmsg (journald cannot take it while it is dumped). */
        bool journald;
        bool acked;
        uint64_t ack_mask;
        unsigned ack_size;
        bool have_mark;
        uint32_t mark;
        bool have_stored;
        struct stored_core stored;
        bool compress_pending;
        uint64_t reserved;              /* room held in the store (store/reserve.h) until the core is kept */          /* stored plain; to be compressed once the task is released */
        uint64_t released_usec;         /* CLOCK_REALTIME when the connection was closed */
        uint64_t accepted_mono;         /* CLOCK_MONOTONIC when it was authenticated, after accept() */
        uint64_t ack_usec;              /* from accept to the ack: how long we kept the kernel waiting */
        uint64_t release_usec;          /* from accept to the release: how long the task was held */
        bool have_selfdump;       /* the core in stored is one coredumpd made (act-userspace.c) */
        struct selfdump_result selfdump;
        struct kept_files kept;         /* a container's files, kept with the core (keep-files.h) */
        /* The compact core for the record (COREDUMP=), made by the parser from the stored core
         * (step_keep()): journal_core (malloc'ed, journal_core_size bytes), or, where one was to be
         * made and none could, why in journal_core_error. */
        void *journal_core;
        size_t journal_core_size;
        char journal_core_error[256];

        bool first_seen;                /* its signature's first crash on this host (crash/first-seen.h) */
        /* The package its executable belongs to (crash/package.c), found after the release: NULL
         * when not looked for; from PACKAGE_FROM_NONE with why when there is none. */
        struct package_info *package;
        bool package_counted;           /* counted as kept and in flight (crash/package.h) */

        enum crash_result result;
        char error[256];
        int error_code;                 /* the errno of the first crash_fail() (negative), 0: none */
};

void crash_init(struct crash *c, const struct config *settings);
void crash_done(struct crash *c);
/* The one error channel of the steps: logs why (with the crash's tag and err) and marks the crash
 * failed with that reason for its record; a later failure is logged but the first reason stays.
 * Returns err (negative). */
int crash_fail(struct crash *c, int err, const char *format, ...) __attribute__((format(printf, 3, 4)));
/* A decision made without policy (overload, our own crash, no context). Returns 0 or -ENOMEM. */
int crash_set_decision(struct crash *c, enum action action, const char *rule);
/* Updates the log tag from what is known (pid, comm). */
void crash_update_tag(struct crash *c);

const char *crash_result_to_string(enum crash_result r);
