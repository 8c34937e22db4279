/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/log.h"
#include "server/server.h"

static int on_worker_deadline(sd_event_source *source, uint64_t usec, void *userdata) {
        struct worker *w = userdata;

        log_warning("Connection reached its deadline, shutting it down.");
        connection_expire(&w->conn);
        return 0;
}

static void *worker_main(void *userdata) {
        struct worker *w = userdata;

        crash_handle(&w->server->env, &w->conn);
        atomic_store(&w->finished, true);
        server_wake(w->server);
        return NULL;
}

static int worker_start(struct server *s, int fd) {
        struct worker *w = calloc(1, sizeof *w);
        int r;

        if (!w) {
                safe_close(fd);
                return log_error_errno(ENOMEM, "Cannot handle a crash: %m");
        }
        w->server = s;
        connection_init(&w->conn, fd);
        atomic_init(&w->finished, false);

        r = sd_event_add_time_relative(s->event, &w->deadline, CLOCK_MONOTONIC, s->config->deadline_usec, 0,
                                       on_worker_deadline, w);
        if (r < 0) {
                log_error_errno(r, "Cannot arm the connection deadline, dropping the crash: %m");
                goto fail;
        }

        r = pthread_create(&w->thread, NULL, worker_main, w);
        if (r != 0) {
                log_error_errno(r, "Cannot start a worker thread, dropping the crash: %m");
                goto fail;
        }

        w->next = s->workers;
        s->workers = w;
        s->n_workers++;
        return 0;

fail:
        sd_event_source_disable_unref(w->deadline);
        connection_destroy(&w->conn);
        free(w);
        return r < 0 ? r : -r;
}

int server_on_listen(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct server *s = userdata;

        for (;;) {
                /* Without SOCK_NONBLOCK the connection is blocking, as the workers expect. */
                int cfd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
                if (cfd < 0) {
                        if (errno == EINTR || errno == ECONNABORTED)
                                continue;
                        if (errno != EAGAIN)
                                log_error_errno(errno, "Cannot accept a crash connection: %m");
                        break;
                }
                s->n_accepted++;

                if (s->n_workers < s->config->max_concurrent)
                        (void) worker_start(s, cfd);
                else
                        (void) overload_start(s, cfd);
        }

        server_update_idle(s);
        return 0;
}
