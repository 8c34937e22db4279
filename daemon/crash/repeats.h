/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * How often each crash signature came, per rate-limit interval: what RateLimitIntervalSec=,
 * RateLimitBurst= and OnRepeat= decide on before the ack. Kept in the store directory
 * (.signatures, one line per signature) so that it survives the daemon idling out; at most
 * REPEATS_MAX signatures, the least recently seen forgotten first.
 */

#include <stdint.h>

#define REPEATS_MAX 4096

struct repeats;

/* Loads the state from dir_fd/.signatures (missing or malformed lines: a fresh start). dir_fd is
 * not owned. NULL only when out of memory. */
struct repeats *repeats_new(int dir_fd);
struct repeats *repeats_free(struct repeats *r);

/* Counts one crash of signature at now (CLOCK_REALTIME, usec) in intervals of interval_usec, and
 * saves the state. Returns this crash's number in its interval: 1 for the first. */
unsigned repeats_count(struct repeats *r, const char *signature, uint64_t interval_usec, uint64_t now_usec);
