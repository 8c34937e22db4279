/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "server/admission.h"
#include "shared/child.h"
#include "shared/cleanup.h"

bool holds_task(const struct worker *w) {
        return w->kind == WORKER_THREAD && !atomic_load(&w->conn.released);
}

/* Whether w counts among who. */
static bool worker_is(const struct worker *w, enum holders who, const struct tenant *t) {
        return who == HOLDERS_ALL || (who == HOLDERS_USERS ? !tenant_is_system(&w->tenant) : tenant_equal(&w->tenant, t));
}

unsigned holding(const struct workers *ws, enum holders who, const struct tenant *t) {
        unsigned n = 0;
        for (const struct worker *w = ws->list; w; w = w->next)
                if (holds_task(w) && worker_is(w, who, t))
                        n++;
        return n;
}

bool may_run(const struct workers *ws, const struct tenant *t) {
        const struct config *c = ws->config;

        /* Threads that released their task and only compress and record: MaxConcurrent= more. */
        if (holding(ws, HOLDERS_ALL, NULL) >= c->max_concurrent || ws->n[WORKER_THREAD] >= 2 * c->max_concurrent)
                return false;
        if (!tenant_is_system(t)) {
                /* At least one slot stays open to users, whatever is reserved. */
                unsigned for_users = c->max_concurrent - MIN(c->reserved_concurrent, c->max_concurrent - 1);
                if (holding(ws, HOLDERS_USERS, NULL) >= for_users)
                        return false;
        }
        return holding(ws, HOLDERS_TENANT, t) < c->max_concurrent_per_user;
}

unsigned queued(const struct workers *ws, enum holders who, const struct tenant *t) {
        unsigned n = 0;
        for (const struct worker *w = ws->queue; w; w = w->next)
                if (worker_is(w, who, t))
                        n++;
        return n;
}

/* The tenant (every one, root and system users too) has MaxQueuedPerUser= waiting, the queue is
 * full, or tenants other than root and system users of the host's together fill what they may (an
 * eighth of MaxQueued= stays for those, so that no user or container can make their crashes be
 * rejected). */
const char *queue_room(const struct workers *ws, const struct tenant *t) {
        const struct config *c = ws->config;
        if (queued(ws, HOLDERS_TENANT, t) >= c->max_queued_per_user)
                return "queue quota of the user";
        if (ws->n[WORKER_QUEUED] >= c->max_queued)
                return "queue full";
        if (!tenant_is_system(t) && queued(ws, HOLDERS_USERS, NULL) >= c->max_queued - MIN(c->max_queued / 8, c->max_queued))
                return "queue room of users";
        return NULL;
}

/* A tenant whose crashes get stuck in the kernel (its tasks share an mm with a sibling that holds
 * the mmap lock, its files are on a FUSE server it runs) would otherwise take a thread per crash
 * for good: past its bound its crashes are answered at once, everyone else's go on. */
const char *stuck_room(const struct tenant *t, char *buf, size_t size) {
        if (!stuck_budget_exhausted(t))
                return NULL;
        unsigned own = stuck_count(t);
        if (own >= STUCK_MAX_PER_TENANT)
                snprintf(buf, size, "%u of this tenant's crashes are stuck in the kernel", own);
        else
                snprintf(buf, size, "%u crashes are stuck in the kernel in all", stuck_count(NULL));
        return buf;
}
