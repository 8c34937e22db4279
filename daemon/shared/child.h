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

/* How long a SIGKILLed child may take to end before it is left to end on its own. */
#define CHILD_KILL_GRACE_USEC UINT64_C(2000000)

/* Children left to end on their own (each a process in the kernel and a thread of ours), counted
 * until they are reaped: in all, and per owner (the uid the child runs as). Past either bound the
 * caller starts no further child of that owner (child_budget_exhausted()). */
#define CHILD_ABANDONED_MAX 32U
#define CHILD_ABANDONED_MAX_PER_OWNER 4U
#define CHILD_ANY_OWNER ((uid_t) -1)

/* Reaps pid whenever it ends, on a detached thread; counted as owner's abandoned child until then. */
void child_reap_later(pid_t pid, uid_t owner);

/* Kills pid (through pidfd when >= 0), waits up to CHILD_KILL_GRACE_USEC for its end and reaps it;
 * if it does not end by then, child_reap_later(). Returns true if it was reaped here, with its wait
 * status in *ret_status (may be NULL). */
bool child_kill_and_reap(pid_t pid, int pidfd, uid_t owner, int *ret_status);

/* Abandoned children not reaped yet: owner's, or all (CHILD_ANY_OWNER). */
unsigned child_abandoned(uid_t owner);
/* Whether owner's abandoned children, or all, reached their bound: start none for owner then. */
bool child_budget_exhausted(uid_t owner);

/* Waits for pid to end (through pidfd when >= 0) until the CLOCK_MONOTONIC deadline (usec); true
 * and reaped (status in *ret_status) if it ended, false if the deadline came first. */
bool child_wait_until(pid_t pid, int pidfd, uint64_t deadline_usec, int *ret_status);
