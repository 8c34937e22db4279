/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The workers: each accepted crash connection is one worker, from start to reap. Up to
 * MaxConcurrent run the crash steps (crash/steps.c) on a thread of their own. Beyond that a crash
 * is an overload worker: the same steps run on the event loop as the socket turns readable, with
 * the decision "reject, overload" made without policy, so no thread is needed. Beyond a further
 * bound a connection is closed unanswered (the kernel then drops that core): a storm never queues
 * crashers without bound.
 *
 * Both kinds are armed with the Deadline= timer at start, reaped on the loop once done, and
 * reported through one callback, so the server only learns that the number of busy workers changed.
 */

#include <systemd/sd-event.h>

#include "config/config.h"
#include "crash/steps.h"

struct workers;

/* Called on the loop after workers were reaped. */
typedef void (*workers_changed_fn)(void *userdata);

int workers_new(sd_event *event, const struct config *config, const struct crash_env *env,
                workers_changed_fn changed, void *userdata, struct workers **ret);
/* Cuts running workers short at once (their sockets are shut down) and reaps them; a thread that
 * has not ended 2 s after is abandoned (recorded, left to end on its own: stuck_threads()), never
 * waited for. */
struct workers *workers_free(struct workers *w);
/* The daemon stops: crashes still holding their task are cut a few seconds from now (and abandoned
 * if stuck), queued and new ones are answered REJECT. */
void workers_stop(struct workers *w);

/* Takes over fd, a freshly accepted blocking crash connection. */
void workers_start(struct workers *w, int fd);

/* The heap's free memory given back (malloc_trim()) once no crash thread runs, at most once every
 * TRIM_INTERVAL_USEC: a crash loop's threads each end alone, and a trim after each (an madvise()
 * of every arena's free pages, which the next crash faults back in) cost each repeat more than it
 * gave back. Returns when a trim still to be made is due (CLOCK_MONOTONIC usec), 0 if none. */
#define TRIM_INTERVAL_USEC (UINT64_C(1000) * 1000)
uint64_t workers_trim_due(struct workers *w, uint64_t now_mono);

/* Workers started and not yet reaped, of both kinds. */
unsigned workers_busy(const struct workers *w);

/* A held crash's deadline (exposed for tests): started at its slot, bytes last arrived at last
 * (0: none yet), received so far; 0 if it has expired at now, else when to look again. Deadline=
 * without progress; after the first Deadline=, an average below MinRate=; MaxDuration= (or
 * Deadline= + MaxSize= / MinRate=, if sooner) in all. */
uint64_t deadline_next(const struct config *c, uint64_t started, uint64_t last, uint64_t received, uint64_t now,
                       const char **ret_why);
