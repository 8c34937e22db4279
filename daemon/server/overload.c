/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Crashes beyond MaxConcurrent: answered REJECT on the event loop, without a thread, and recorded
 * as "overload". The request and the mark arrive in one piece each, so each is read when the
 * socket turns readable, with a short receive timeout as a bound. Beyond a further limit a
 * connection is closed at once (the kernel then drops that core): a storm never queues crashers
 * without bound.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "shared/cleanup.h"
#include "crash/crash.h"
#include "shared/log.h"
#include "server/server.h"

#define OVERLOAD_MIN_PENDING 16
#define OVERLOAD_RECV_TIMEOUT_USEC 250000

enum overload_state {
        OVERLOAD_WANT_REQUEST,
        OVERLOAD_WANT_MARK,
};

struct overload_conn {
        struct server *server;
        int fd;
        enum overload_state state;
        struct crash crash;
        sd_event_source *io;
        sd_event_source *deadline;
        struct overload_conn *next;
};

static unsigned overload_limit(const struct server *s) {
        return MAX(OVERLOAD_MIN_PENDING, 4 * s->config->max_concurrent);
}

static void overload_unlink(struct server *s, struct overload_conn *o) {
        for (struct overload_conn **p = &s->overloads; *p; p = &(*p)->next)
                if (*p == o) {
                        *p = o->next;
                        s->n_overloads--;
                        return;
                }
}

static void overload_free(struct overload_conn *o) {
        sd_event_source_disable_unref(o->io);
        sd_event_source_disable_unref(o->deadline);
        safe_close(o->fd);
        crash_done(&o->crash);
        free(o);
}

static void overload_finish(struct overload_conn *o) {
        struct server *s = o->server;

        if (o->crash.result == CRASH_RESULT_NONE)
                o->crash.result = CRASH_RESULT_OVERLOAD;
        step_record(&s->env, &o->crash);

        overload_unlink(s, o);
        overload_free(o);
        server_update_idle(s);
        server_maybe_finish(s);
}

static int on_overload_io(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct overload_conn *o = userdata;

        if (o->state == OVERLOAD_WANT_REQUEST) {
                if (step_request(o->fd, &o->crash) >= 0 && step_ack(o->fd, &o->crash) >= 0) {
                        o->state = OVERLOAD_WANT_MARK;
                        return 0;
                }
        } else
                (void) step_mark(o->fd, &o->crash);

        overload_finish(o);
        return 0;
}

static int on_overload_deadline(sd_event_source *source, uint64_t usec, void *userdata) {
        struct overload_conn *o = userdata;

        (void) crash_fail(&o->crash, -ETIMEDOUT, "Overload rejection reached its deadline");
        overload_finish(o);
        return 0;
}

static int overload_watch(struct server *s, struct overload_conn *o) {
        struct timeval tv = { .tv_usec = OVERLOAD_RECV_TIMEOUT_USEC };
        int r;

        if (setsockopt(o->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0)
                return negative_errno();
        r = sd_event_add_io(s->event, &o->io, o->fd, EPOLLIN, on_overload_io, o);
        if (r < 0)
                return r;
        return sd_event_add_time_relative(s->event, &o->deadline, CLOCK_MONOTONIC, s->config->deadline_usec, 0,
                                          on_overload_deadline, o);
}

int overload_start(struct server *s, int fd) {
        if (s->n_overloads >= overload_limit(s)) {
                log_warning("Overloaded beyond %u pending rejections: closing a crash connection unanswered.",
                            overload_limit(s));
                safe_close(fd);
                return -EBUSY;
        }

        struct overload_conn *o = calloc(1, sizeof *o);
        if (!o) {
                safe_close(fd);
                return log_error_errno(ENOMEM, "%m");
        }
        o->server = s;
        o->fd = fd;
        crash_init(&o->crash);

        int r = step_authenticate(&s->env, fd, &o->crash);
        if (r < 0) {
                overload_free(o);
                return r;
        }
        log_crash(o->crash.tag, LOG_DEBUG, "Overload: %u crashes being handled, rejecting.", s->n_workers);

        r = crash_set_decision(&o->crash, ACTION_REJECT, "overload");
        if (r >= 0)
                r = overload_watch(s, o);
        if (r < 0) {
                log_crash_errno(o->crash.tag, LOG_ERR, r, "Cannot answer an overload rejection: %m");
                overload_free(o);
                return r;
        }

        o->next = s->overloads;
        s->overloads = o;
        s->n_overloads++;
        return 0;
}

void overload_free_all(struct server *s) {
        while (s->overloads) {
                struct overload_conn *o = s->overloads;
                s->overloads = o->next;
                overload_free(o);
        }
        s->n_overloads = 0;
}
