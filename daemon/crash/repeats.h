/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * How often each crash signature came, per rate-limit interval: what RateLimitIntervalSec=,
 * RateLimitBurst= and OnRepeat= decide on before the ack. Kept in the store directory
 * (.signatures, one line per owner and signature) so that it survives the daemon idling out.
 *
 * Counted per owner, the crash's tenant (shared/tenant.h: a uid of the host's, or a container root
 * made): one user, or one container, crashing a copy of root's daemon at the same place makes only
 * their own crashes repeats, never root's. At most REPEATS_MAX counters, at most
 * REPEATS_PER_OWNER of one owner: an owner over it forgets their own least recently seen
 * signature, so that nobody can flood out another owner's counters.
 *
 * The counts are written to .signatures at most once every REPEATS_SAVE_USEC, never on a crash's
 * way to its ack: counting marks the table changed, the server's loop saves it when due
 * (repeats_save_due()) and when the daemon stops (repeats_sync(), repeats_free()), from a copy
 * taken under the lock, so that a crash being counted never waits for the store. A daemon that is
 * killed (SIGKILL) forgets at most the last second's counts; a failed write keeps them pending.
 *
 * With each signature the site keys (crash/site.h) of its last unwound crashes: a crash past the
 * burst whose site key is among them is a repeat without a coredumpd-parser being started for it.
 */

#include <stdbool.h>
#include <stdint.h>

#include "crash/site.h"
#include "shared/tenant.h"

#define REPEATS_MAX 4096
#define REPEATS_PER_OWNER 256
#define REPEAT_SITES 4          /* site keys kept per signature */
#define REPEATS_SAVE_USEC (UINT64_C(1000) * 1000) /* at most one save of the counts a second */

struct repeats;

/* Loads the state from dir_fd/.signatures (missing or malformed lines: a fresh start). dir_fd is
 * not owned. NULL only when out of memory. */
struct repeats *repeats_new(int dir_fd);
/* Saves what was counted since the last save (repeats_sync()), then frees. */
struct repeats *repeats_free(struct repeats *r);

/* Saves the counts if they changed and the last save is REPEATS_SAVE_USEC or more before now_mono
 * (CLOCK_MONOTONIC usec). Returns when a save still to be made is due (then call again; also
 * after a failed write), 0 if none is pending. One caller at a time: the server's loop. */
uint64_t repeats_save_due(struct repeats *r, uint64_t now_mono);
/* Saves the counts now if they changed. */
void repeats_sync(struct repeats *r);

/* Counts one crash of owner's with signature at now (CLOCK_REALTIME, usec) in intervals of
 * interval_usec (saved later: repeats_save_due()). site (NULL or "": none) is the crash's site key,
 * unwound to this signature: later crashes of the same site are known by it
 * (repeats_count_by_site()); a site key the owner had under another signature moves here. Returns
 * this crash's number in its interval: 1 for the first. */
unsigned repeats_count(struct repeats *r, const struct tenant *owner, const char *signature, const char *site,
                       uint64_t interval_usec, uint64_t now_usec);
/* The same; *ret_first_seen (may be NULL) tells whether the signature was new to the owner's
 * counters (first seen, as far as they remember: REPEATS_PER_OWNER signatures). */
unsigned repeats_count_seen(struct repeats *r, const struct tenant *owner, const char *signature, const char *site,
                            uint64_t interval_usec, uint64_t now_usec, bool *ret_first_seen);

/* A repeat known without unwinding: when owner's site key was last unwound to a signature that
 * already had burst or more crashes in its current interval, this crash is counted as one more of
 * it, and true returns that signature and the crash's number. False otherwise, nothing counted:
 * the crash is to be unwound (and counted with repeats_count()). */
bool repeats_count_by_site(struct repeats *r, const struct tenant *owner, const char *site, unsigned burst, uint64_t interval_usec,
                           uint64_t now_usec, char signature[static 17], unsigned *ret_count);
