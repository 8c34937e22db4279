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
#include "crash/record.h"
#include "crash/protocol.h"
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
        log_crash(o->crash.tag, LOG_WARNING, "Crash rejected: overload (%u crashes being handled).", s->n_workers);
        record_crash(&o->crash, s->env.record_sink, s->env.record_userdata);

        overload_unlink(s, o);
        overload_free(o);
        server_update_idle(s);
        server_maybe_finish(s);
}

static int overload_answer_request(struct overload_conn *o) {
        struct crash *c = &o->crash;
        struct coredump_ack ack;

        int r = request_receive(o->fd, &c->request);
        if (r < 0) {
                crash_fail(c, "cannot read the request: %s", strerror(-r));
                return r;
        }
        c->have_request = true;

        int size = ack_build(&c->request, ACTION_REJECT, false, &ack);
        if (size < 0) {
                crash_fail(c, "kernel does not offer REJECT");
                return size;
        }
        r = ack_send(o->fd, &ack, (size_t) size);
        if (r < 0) {
                crash_fail(c, "cannot send the ack: %s", strerror(-r));
                return r;
        }
        c->acked = true;
        c->ack_mask = ack.mask;
        o->state = OVERLOAD_WANT_MARK;
        return 0;
}

static int overload_read_mark(struct overload_conn *o) {
        struct crash *c = &o->crash;

        int r = mark_receive(o->fd, &c->mark);
        if (r < 0) {
                crash_fail(c, "no mark after the ack: %s", strerror(-r));
                return r;
        }
        c->have_mark = true;
        if (c->mark != COREDUMP_MARK_REQACK)
                crash_fail(c, "kernel refused the ack with mark %s", mark_to_name(c->mark) ?: "unknown");
        return 1; /* done */
}

static int on_overload_io(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct overload_conn *o = userdata;
        int r;

        if (o->state == OVERLOAD_WANT_REQUEST)
                r = overload_answer_request(o);
        else
                r = overload_read_mark(o);

        if (r != 0)
                overload_finish(o);
        return 0;
}

static int on_overload_deadline(sd_event_source *source, uint64_t usec, void *userdata) {
        struct overload_conn *o = userdata;

        crash_fail(&o->crash, "deadline reached");
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

        int r = s->env.authenticate(fd, &o->crash.peer, s->env.authenticate_userdata);
        if (r < 0) {
                overload_free(o);
                return r;
        }
        o->crash.have_peer = true;
        crash_update_tag(&o->crash);

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
