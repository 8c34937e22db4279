/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What became of a crash, in the few bounded words its readers sort by: the reason of its result
 * (rule, rlimit-zero, repeat, no room, overload, deadline, ...: the metrics' label, the user's note),
 * the record's priority, and its counts in the store's metrics (store/metrics.h), made once the
 * task is released.
 */

#include <stdbool.h>

#include "crash/crash.h"
#include "store/metrics.h"

/* A crash past its signature's RateLimitBurst= in the interval (OnRepeat= decided it). */
bool crash_is_repeat(const struct crash *c);
enum metrics_reason crash_reason(const struct crash *c);
enum metrics_action crash_metrics_action(const struct crash *c);
enum metrics_result crash_metrics_result(const struct crash *c);
/* The record's PRIORITY=: crit (2) for a kept crash within its signature's burst (or of no counted
 * signature), notice (5) for a repeat and for a crash the policy rejected, warning (4) for
 * overload, err (3) for a failure. */
int crash_priority(const struct crash *c);
/* The crash's counts (NULL m: none): result, reason, the core kept, a first-seen signature, the ack
 * and release latencies. Off the task's path: called once it is released. */
void crash_count(struct metrics *m, const struct crash *c);
