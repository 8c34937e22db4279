/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One crash, taken along the data's path:
 *
 *   authenticate → request → context + policy → ack → mark → act (store | selfdump | nothing)
 *   → release → keep (compress, vacuum) → record
 *
 * crash_handle() runs the whole path on a blocking socket (in a worker thread in the daemon,
 * directly in tests) and always ends by releasing the connection. The workers (server/workers.c)
 * run request and decide on the event loop and answer a REJECT there; a crash that is kept goes on
 * with crash_continue() on a thread.
 *
 * Each step returns 0 or a negative errno; a step that fails has said why once, through
 * crash_fail() (the log line and the record's COREDUMPD_ERROR=).
 */

#include <semaphore.h>
#include <stdatomic.h>

#include "config/config.h"
#include "config/policy.h"

#include "crash/authenticate.h"
#include "crash/connection.h"
#include "crash/crash.h"
#include "crash/first-seen.h"
#include "crash/notify.h"
#include "crash/record.h"
#include "crash/repeats.h"
#include "selfdump/probe.h"
#include "store/store.h"

struct crash_env {
        authenticate_fn authenticate;
        void *authenticate_userdata;
        /* Returns a reference to the policy in force (caller unrefs). */
        struct policy *(*policy_acquire)(void *userdata);
        void *policy_userdata;
        const struct config *config;
        struct store *store;
        record_sink_fn record_sink;
        void *record_userdata;
        bool user_records;              /* a copy of each record in the crashing user's journal */
        record_sink_fn user_record_sink;        /* where that copy goes; NULL: coredumpd-parser --record */
        void *user_record_userdata;
        struct probe *probe;            /* the crash-context probe, or NULL */
        struct repeats *repeats;        /* counts per crash signature, or NULL: no rate limits */
        const struct host_view *host;   /* the /proc root and what is read of the host once */
        sem_t *unwind_slots;            /* unwinders that may run at once (crash/backtrace.h); NULL: any */
        bool packages;                  /* a kept crash's package, after the release (crash/package.h) */
        uint64_t exit_wait_usec;        /* compression waits this long at most for the released task's
                                         * exit (its teardown); 0: not at all */
        struct first_seen *first_seen;  /* the signatures seen on this host, or NULL (crash/first-seen.h) */
        hook_start_fn hook_start;       /* the hook units to start (crash/notify.h), or NULL: none */
        void *hook_userdata;
};

/* The peer must be a task the kernel is dumping; a refused peer is logged by the authenticator
 * and gets no record (it is not a crash). */
int step_authenticate(const struct crash_env *env, int fd, struct crash *c);
/* Reads and checks the kernel's coredump_req. */
int step_request(int fd, struct crash *c);
/* Applies the policy, reading of the context what its rules match on; without a context or a
 * policy the crash is rejected. A rejected crash then reads only its identity for the record (a
 * kept one the rest in step_prepare()). Reads no process's memory, so the workers run it on the
 * event loop; only when a rule matches on signatures is the task unwound first, which may block:
 * without may_block the crash is then left undecided (have_decision false) for a thread. Fails
 * only when out of memory. */
int step_decide(const struct crash_env *env, struct crash *c, bool may_block);
/* For a crash that is kept, before the ack, on a worker thread: the rest of its context (the
 * memory parts), its backtrace, whether it repeats (OnRepeat=), a container's files. */
void step_prepare(const struct crash_env *env, struct crash *c);
/* Sends the ack for the decision (REJECT if the kernel does not offer that action). */
int step_ack(int fd, struct crash *c);
/* Reads the kernel's mark; anything but REQACK fails the crash. */
int step_mark(int fd, struct crash *c);
/* Carries out the accepted decision: KERNEL stores the streamed core, USERSPACE makes our own
 * (crash/userspace.c), REJECT keeps nothing. Sets the result. */
void step_act(const struct crash_env *env, int fd, struct store_progress *progress, struct crash *c);
/* Closes the connection, which releases the task (once; its time is the record's
 * COREDUMPD_RELEASED_TIMESTAMP=). */
void step_release(struct connection *conn, struct crash *c);
/* After the task is released: compresses a core that was taken plain, then vacuums the store. */
void step_keep(const struct crash_env *env, struct crash *c);
/* One log line for a handled crash and the record; then the hooks it starts (crash/notify.h). */
void step_record(const struct crash_env *env, struct crash *c);

void crash_handle(const struct crash_env *env, struct connection *conn);
/* The steps after step_authenticate(), for a crash authenticated already (the workers do that on
 * the loop, to know whose it is), from the request or the decision on, whichever c lacks. Does not
 * free c. */
void crash_continue(const struct crash_env *env, struct connection *conn, struct crash *c);
