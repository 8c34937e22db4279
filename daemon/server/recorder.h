/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The records of the crashes the loop finishes (a REJECT answered there, a crash closed unanswered,
 * an abandoned thread's), written by a thread of their own: journald's socket holds its sender
 * while its queue is full (journald busy, flooded by any local user, or restarting), and the loop
 * must not wait on it. A bounded queue (RECORDER_QUEUE_MAX); when it is full the record is written
 * by the caller, as before: never dropped.
 */

#include <stdint.h>

#include "crash/record.h"

#define RECORDER_QUEUE_MAX 1024

struct recorder;

/* The thread writes each record to sink; NULL without memory or thread (logged). */
struct recorder *recorder_new(record_sink_fn sink, void *userdata);
/* A record_sink_fn (userdata: the recorder): f copied into the queue; 0, or the sink's own result
 * where the queue was full and the record written here. */
int recorder_sink(const struct fields *f, void *userdata);
/* What is queued written within timeout_usec, then the thread ended; one still waiting on its
 * sink then is left to the exit (with what it uses), the records still queued logged as lost. */
void recorder_free(struct recorder *r, uint64_t timeout_usec);
