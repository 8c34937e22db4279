/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "server/deadline.h"
#include "shared/cleanup.h"
#include "shared/parse.h"

/* How often a moving core's average rate is looked at. */
#define RATE_CHECK_USEC (5 * USEC_PER_SEC)

/* The deadline is on progress: Deadline= without bytes arriving ends a connection. A moving one
 * ends when, after its first Deadline=, its average rate falls below MinRate= (a core trickling a
 * byte a minute holds its task no longer than a silent one), and at the latest at MaxDuration= (or
 * Deadline= + MaxSize= / MinRate=, if sooner) after it started. Returns 0 if it has expired, else
 * when to look again. */
uint64_t deadline_next(const struct config *c, uint64_t started, uint64_t last, uint64_t received, uint64_t now,
                       const char **ret_why) {
        uint64_t deadline = MIN(c->deadline_usec, UINT64_MAX / 4);
        uint64_t whole_seconds = c->max_size / MAX(c->min_rate, 1);
        uint64_t stream_usec = whole_seconds > UINT64_MAX / 2000000 ? UINT64_MAX / 2 :
                whole_seconds * 1000000 + c->max_size % MAX(c->min_rate, 1) * 1000000 / MAX(c->min_rate, 1);
        uint64_t cap = started + MIN(deadline + stream_usec, MIN(c->max_duration_usec, UINT64_MAX / 4));
        uint64_t idle_end = MAX(started, last) + deadline;

        const char *why_dummy;
        const char **why = ret_why ? ret_why : &why_dummy;
        if (now >= idle_end) {
                *why = "no progress for Deadline=";
                return 0;
        }
        if (now >= cap) {
                *why = "MaxDuration= or Deadline= + MaxSize= / MinRate= in all";
                return 0;
        }
        uint64_t next = MIN(cap, idle_end);
        if (c->min_rate > 0 && now > started + deadline) {
                uint64_t seconds = (now - started - deadline) / USEC_PER_SEC;
                if (seconds > 0 && received / seconds < c->min_rate) {
                        *why = "an average below MinRate=";
                        return 0;
                }
        }
        if (c->min_rate > 0)
                next = MIN(next, MAX(now, started + deadline) + RATE_CHECK_USEC);
        return next;
}
