/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Times as an operator writes and reads them, in the syntax of systemd.time(7):
 *
 *   now, today, yesterday, tomorrow          (the last three: midnight, local time)
 *   @1700000000[.5]                          seconds since the epoch
 *   -1h, +30min, 2 hours ago, 1h 30min left  relative to now
 *   [Wkd] 2024-03-01[ |T]12:34[:56[.789]] [UTC|Z|+01:00]   absolute, local time unless a zone is given;
 *   2024-03-01                                a date alone is its midnight;
 *   12:34[:56]                                a time alone is today's
 *
 * The spans are parse_duration()'s (shared/parse.h), the one reader of systemd.time(7)'s spans that
 * coredumpd.conf and the policy files use too: "1h 30min", "2 hours", "90s", "1.5d", "1M" (a month).
 *
 * Everything takes "now" as an argument, so tests pin it.
 */

#include <stdint.h>
#include <time.h>

/* Microseconds since the epoch, now. */
uint64_t now_usec(void);
/* Microseconds of CLOCK_MONOTONIC, now: for durations and deadlines. */
uint64_t now_monotonic_usec(void);
/* CLOCK_REALTIME usec from now, as the absolute time sem_timedwait() takes. */
struct timespec realtime_after(uint64_t usec);

/* A time spec (above) → microseconds since the epoch. -EINVAL if it is none, -ERANGE if it lies
 * before the epoch or out of range. */
int parse_timestamp(const char *s, uint64_t now, uint64_t *ret_usec);

/* "3min ago", "1h 5min ago", "2 days ago", "4 weeks 2 days ago", "1 year 2 months ago"; "in 5min"
 * for the future, "now" within a second. */
const char *format_timestamp_relative(char buf[static 64], uint64_t usec, uint64_t now);
