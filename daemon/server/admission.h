/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Admission: which crash to keep gets a thread now, which waits in the queue and which is answered
 * REJECT for overload — the slots of MaxConcurrent=, the fair shares per tenant
 * (MaxConcurrentPerUser=, ReservedConcurrent=), the queue's quotas (MaxQueued=,
 * MaxQueuedPerUser=), and the tenant's stuck work (shared/child.h). Counted over the workers'
 * lists (server/worker.h), on the loop only.
 */

#include <stdbool.h>
#include <stddef.h>

#include "server/worker.h"

enum holders {
        HOLDERS_ALL,
        HOLDERS_USERS,          /* tenants that are not root or a system user of the host's */
        HOLDERS_TENANT,         /* the tenant given */
};

/* Whether a thread worker still holds its task (and so a slot of MaxConcurrent=). An abandoned
 * one is in no list: it holds none. */
bool holds_task(const struct worker *w);
/* Thread workers holding a task, of whom. */
unsigned holding(const struct workers *ws, enum holders who, const struct tenant *t);
/* Whether a crash of tenant t may take a thread now: a slot is free, the tenant is below its share,
 * and tenants other than root and system users of the host's together leave the reserved slots
 * free. */
bool may_run(const struct workers *ws, const struct tenant *t);

/* Queued crashes, of whom. */
unsigned queued(const struct workers *ws, enum holders who, const struct tenant *t);
/* NULL if a crash of tenant t may wait in the queue, else why not. */
const char *queue_room(const struct workers *ws, const struct tenant *t);

/* NULL if a crash of tenant t may have a thread as far as stuck work goes (stuck_budget_exhausted()),
 * else why not, written into buf: "N of this tenant's crashes are stuck in the kernel", or the
 * bound in all. */
const char *stuck_room(const struct tenant *t, char *buf, size_t size);
