/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The crashes' threads (detached), for server/workers.c: a crash to keep handed to a parked thread
 * or a new one; a thread done with a crash parks for the next one (two at most); one still holding
 * its task ABANDON_GRACE_USEC after its deadline cut it is abandoned; on stop, running threads are
 * given that grace too and the parked ones ended. The pool's state is in struct workers
 * (server/worker.h); everything here runs on the loop but thread_main().
 */

#include <stdbool.h>

#include "server/worker.h"
#include "shared/parse.h"

/* A crash thread the deadline cut (connection_expire()) that still holds its task this long after
 * waits in the kernel where the shut-down socket does not reach (reading the task's /proc files
 * while a sibling sharing its mm holds the mmap lock, a FUSE file): it is abandoned (worker_abandon()). */
#define ABANDON_GRACE_USEC (2 * USEC_PER_SEC)

/* The heap's free memory given back (malloc_trim()) once no crash thread runs, at most once every
 * TRIM_INTERVAL_USEC: a crash loop's threads each end alone, and a trim after each (an madvise()
 * of every arena's free pages, which the next crash faults back in) cost each repeat more than it
 * gave back. Returns when a trim still to be made is due (CLOCK_MONOTONIC usec), 0 if none. */
#define TRIM_INTERVAL_USEC (UINT64_C(1000) * 1000)
uint64_t pool_trim_due(struct workers *ws, uint64_t now_mono);

/* The pool's lock, conditions and lists, in ws (allocated and zeroed). */
void pool_init(struct workers *ws);

/* w (not linked) gets its record for an abandonment and its Deadline=, then a parked thread, else a
 * new one, and is linked as WORKER_THREAD. < 0 (logged) if it could not: w is still the loop's. */
int thread_start(struct workers *ws, struct worker *w);

/* Waits for w's thread to be done with its steps (it may still be on its way out: an early exit). */
void thread_wait_finished(struct workers *ws, struct worker *w);

/* A thread worker cut at its deadline that still holds its task after the grace (or, on stop, one
 * that has not finished) is given up: unlinked, recorded, counted stuck (shared/child.h), left to
 * its thread to free. False if it released its task first (it goes on as ever). */
bool worker_abandon(struct workers *ws, struct worker *w);

/* On the daemon's end, the connections already cut: waits ABANDON_GRACE_USEC at most for the
 * running threads to finish, and abandons those that did not. */
void threads_finish_or_abandon(struct workers *ws);

/* The parked threads end, every thread not abandoned is waited for, the pool's lock and conditions
 * destroyed. No worker is left in ws's lists. */
void pool_end(struct workers *ws);
