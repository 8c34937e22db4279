/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Children of the daemon that a deadline may kill (the parser, a core writer): ended and reaped
 * without anyone waiting with them. A child that SIGKILL does not end waits in the kernel where no
 * signal reaches (a file system whose server does not answer); it is reaped whenever it ends, on a
 * thread of its own, and nobody waits for it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "shared/tenant.h"

/* How long a SIGKILLed child may take to end before it is left to end on its own. */
#define CHILD_KILL_GRACE_USEC UINT64_C(2000000)

/*
 * Stuck work: what a deadline gave up on while it waits in the kernel, where no signal reaches —
 * children left to end on their own (each a process in the kernel and a reaper thread of ours) and
 * crash threads abandoned at their deadline (server/pool.c) — counted per tenant until it ends.
 * ONE budget for both, defined here:
 *
 *   - a tenant with STUCK_MAX_PER_TENANT stuck: no further child is started for it, and its new
 *     crashes are answered REJECT on the loop ("N of this tenant's crashes are stuck in the kernel");
 *   - STUCK_MAX stuck in all: the same for every tenant but root and system users of the host's
 *     (tenant_is_system()), whose crashes still get threads and children up to STUCK_MAX_SYSTEM in
 *     all — a user or container cannot cost the host's own services their dumps, and the number of
 *     stuck tasks (coredumpd.service's TasksMax=) stays bounded.
 *
 * A child's tenant, as a thread's, is its crash's (not the uid it runs as: an id of its own for
 * root's and setuid dumps, one of many for a container's).
 */
#define STUCK_MAX_PER_TENANT 2U
#define STUCK_MAX 16U
#define STUCK_MAX_SYSTEM 24U

/* Stuck work not ended yet: t's, or all (t NULL). */
unsigned stuck_count(const struct tenant *t);
/* Abandoned crash threads not returned yet. */
unsigned stuck_threads(void);
/* Whether t may start no further work (a child, a crash's thread): its own or the global bound. */
bool stuck_budget_exhausted(const struct tenant *t);
/* A crash thread of t's abandoned at its deadline, and (when it returns at last) ended. */
void stuck_thread_add(const struct tenant *t);
void stuck_thread_remove(const struct tenant *t);

/* Reaps pid whenever it ends, on a detached thread; counted as owner's abandoned child until then.
 * The stuck handler, if one is set, is told (so that the child can leave the daemon's unit: a
 * process no signal ends would otherwise hold `systemctl stop` until systemd gives up on it). */
void child_reap_later(pid_t pid, const struct tenant *owner);

/* Told of each child left to child_reap_later(), on the caller's thread; must not block. NULL: none.
 * Set before the first crash and cleared before what userdata points to goes. */
typedef void (*child_stuck_fn)(pid_t pid, const struct tenant *owner, void *userdata);
void child_set_stuck_handler(child_stuck_fn fn, void *userdata);

/* Kills pid (through pidfd when >= 0), waits up to CHILD_KILL_GRACE_USEC for its end and reaps it;
 * if it does not end by then, child_reap_later(). Returns true if it was reaped here, with its wait
 * status in *ret_status (may be NULL). */
bool child_kill_and_reap(pid_t pid, int pidfd, const struct tenant *owner, int *ret_status);

/* Abandoned children not reaped yet: owner's, or all (NULL). Whether one may be started for a crash
 * of owner's: stuck_budget_exhausted(). */
unsigned child_abandoned(const struct tenant *owner);

/* Waits for pid to end (through pidfd when >= 0) until the CLOCK_MONOTONIC deadline (usec); true
 * and reaped (status in *ret_status) if it ended, false if the deadline came first. */
bool child_wait_until(pid_t pid, int pidfd, uint64_t deadline_usec, int *ret_status);
