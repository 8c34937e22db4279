/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * How often each crash signature came, per rate-limit interval: what RateLimitIntervalSec=,
 * RateLimitBurst= and OnRepeat= decide on before the ack. Kept in the store directory
 * (.signatures, one line per owner and signature) so that it survives the daemon idling out.
 *
 * Counted per owner (the user who owns the task, a subuid range's owner for a task in a user
 * namespace: struct peer's owner): one user crashing a copy of root's daemon at the same place
 * makes only their own crashes repeats, never root's. At most REPEATS_MAX counters, at most
 * REPEATS_PER_OWNER of one owner: an owner over it forgets their own least recently seen
 * signature, so that nobody can flood out another owner's counters.
 */

#include <stdint.h>

#define REPEATS_MAX 4096
#define REPEATS_PER_OWNER 256

struct repeats;

/* Loads the state from dir_fd/.signatures (missing or malformed lines: a fresh start). dir_fd is
 * not owned. NULL only when out of memory. */
struct repeats *repeats_new(int dir_fd);
struct repeats *repeats_free(struct repeats *r);

/* Counts one crash of owner's with signature at now (CLOCK_REALTIME, usec) in intervals of
 * interval_usec, and saves the state. Returns this crash's number in its interval: 1 for the first. */
unsigned repeats_count(struct repeats *r, uint32_t owner, const char *signature, uint64_t interval_usec,
                       uint64_t now_usec);
