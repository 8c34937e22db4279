/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One crash connection, taken along the data's path:
 *
 *   authenticate → request → context → policy → ack/mark → act (store) → record → release
 *
 * connection_handle() runs the whole path on a blocking socket (in a worker thread in the daemon,
 * directly in tests) and always ends with connection_release(). Another thread may call
 * connection_expire() at the deadline: the socket is shut down, which makes every blocked read or
 * write on it return, and the handler finishes as failed.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "crash/authenticate.h"
#include "config/config.h"
#include "config/policy.h"
#include "crash/record.h"
#include "store/store.h"

struct connection_env {
        authenticate_fn authenticate;
        void *authenticate_userdata;
        /* Returns a reference to the policy in force (caller unrefs). */
        struct policy *(*policy_acquire)(void *userdata);
        void *policy_userdata;
        const struct config *config;
        struct store *store;
        record_sink_fn record_sink;
        void *record_userdata;
        struct probe *probe;            /* the crash-context probe, or NULL */
};

struct connection {
        int fd;                         /* the crash socket; -1 once released */
        pthread_mutex_t lock;           /* orders release against expire */
        atomic_bool expired;            /* the deadline shut the socket */
};

void connection_init(struct connection *c, int fd);
void connection_destroy(struct connection *c);

void connection_handle(const struct connection_env *env, struct connection *c);

/* Closes the socket (this ends the kernel's WAIT). Idempotent. */
void connection_release(struct connection *c);
/* Shuts the socket down if not yet released. Safe from any thread. */
void connection_expire(struct connection *c);
