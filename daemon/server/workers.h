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

/* The heap's free memory given back once no crash thread runs, at most once a second
 * (server/pool.h). Returns when a trim still to be made is due (CLOCK_MONOTONIC usec), 0 if none. */
uint64_t workers_trim_due(struct workers *w, uint64_t now_mono);

/* Workers started and not yet reaped, of both kinds. */
unsigned workers_busy(const struct workers *w);
