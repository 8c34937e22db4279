/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/socket.h>

#include "crash/connection.h"
#include "shared/cleanup.h"

void connection_init(struct connection *c, int fd) {
        c->fd = fd;
        pthread_mutex_init(&c->lock, NULL);
        atomic_init(&c->progress.expired, false);
        atomic_init(&c->progress.expired_why, NULL);
        atomic_init(&c->progress.last_usec, 0);
        atomic_init(&c->progress.received, 0);
        atomic_init(&c->released, false);
        atomic_init(&c->abandoned, false);
        c->on_release = NULL;
        c->on_release_userdata = NULL;
}

void connection_destroy(struct connection *c) {
        connection_release(c);
        pthread_mutex_destroy(&c->lock);
}

void connection_release(struct connection *c) {
        pthread_mutex_lock(&c->lock);
        c->fd = safe_close(c->fd);
        bool first = !atomic_exchange(&c->released, true);
        pthread_mutex_unlock(&c->lock);
        if (first && c->on_release)
                c->on_release(c->on_release_userdata);
}

void connection_expire(struct connection *c) {
        pthread_mutex_lock(&c->lock);
        if (c->fd >= 0) {
                atomic_store(&c->progress.expired, true);
                (void) shutdown(c->fd, SHUT_RDWR);
        }
        pthread_mutex_unlock(&c->lock);
}

bool connection_abandon(struct connection *c, void (*hand_over)(void *userdata), void *userdata) {
        pthread_mutex_lock(&c->lock);
        bool won = !atomic_load(&c->released);
        if (won) {
                c->on_release = NULL; /* whoever abandoned it hears of it no more */
                /* Under the lock: the thread, should it return now, waits in connection_release()
                 * until the caller is done with what becomes the thread's. */
                if (hand_over)
                        hand_over(userdata);
                atomic_store(&c->abandoned, true);
        }
        pthread_mutex_unlock(&c->lock);
        return won;
}
