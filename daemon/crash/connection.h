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
        void (*on_release)(void *userdata);     /* told once, from the releasing thread; may be NULL */
        void *on_release_userdata;
};

void connection_init(struct connection *c, int fd);
void connection_destroy(struct connection *c);

/* Closes the socket (this ends the kernel's WAIT), then calls on_release. Idempotent. */
void connection_release(struct connection *c);
/* Shuts the socket down if not yet released. Safe from any thread. */
void connection_expire(struct connection *c);
