/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A crash connection's socket, shared between the thread that runs the steps and the deadline:
 * connection_expire() shuts the socket down, which makes every blocked read or write on it return,
 * and the steps finish as failed. connection_release() closes it, which ends the kernel's WAIT.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "store/store.h"

struct connection {
        int fd;                         /* the crash socket; -1 once released */
        pthread_mutex_t lock;           /* orders release against expire */
        struct store_progress progress; /* bytes arriving; expired once the deadline shut the socket */
        atomic_bool released;           /* the task is no longer held */
        atomic_bool abandoned;          /* given up on while it held the task (connection_abandon()):
                                         * its crash is recorded by who abandoned it, not by the steps */
        void (*on_release)(void *userdata);     /* told once, from the releasing thread; may be NULL */
        void *on_release_userdata;
};

void connection_init(struct connection *c, int fd);
void connection_destroy(struct connection *c);

/* Closes the socket (this ends the kernel's WAIT), then calls on_release. Idempotent. */
void connection_release(struct connection *c);
/* Shuts the socket down if not yet released. Safe from any thread. */
void connection_expire(struct connection *c);
/* Gives the connection up while its steps are stuck (server/pool.c): true if it was not released
 * yet, and then, once its steps do release it, connection_abandoned() holds (they record nothing);
 * false if it was released first (the steps go on and record as ever). hand_over(userdata), when
 * given, runs only when it wins, under the connection's lock: the steps cannot return past their
 * release meanwhile, so it may still touch what becomes theirs. Safe from any thread. */
bool connection_abandon(struct connection *c, void (*hand_over)(void *userdata), void *userdata);
/* After connection_release(): whether it had been abandoned before (fixed from then on). */
static inline bool connection_abandoned(struct connection *c) {
        return atomic_load(&c->abandoned);
}
