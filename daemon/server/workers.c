/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "server/admission.h"
#include "server/pool.h"
#include "server/recorder.h"
#include "server/worker.h"
#include "server/workers.h"
#include "store/store.h"
#include "shared/parse.h"
#include "shared/cleanup.h"
#include "shared/log.h"

#define OVERLOAD_MIN_PENDING 16
#define LOOP_RECV_TIMEOUT_USEC 250000
/* On stop, a crash still holding its task is cut this long after (then abandoned ABANDON_GRACE_USEC
 * later if stuck): the stop ends within WORKERS_STOP_GRACE_USEC + ABANDON_GRACE_USEC and a little,
 * under the unit's TimeoutStopSec=. */
#define WORKERS_STOP_GRACE_USEC (5 * USEC_PER_SEC)
/* Then the loop's records still queued get this long to be written. */
#define RECORDER_STOP_USEC (2 * USEC_PER_SEC)

/* ---- start and reap, for every kind ---------------------------------------------------------- */

static void worker_reap(struct workers *ws, struct worker *w) {
        bool thread = w->kind == WORKER_THREAD;

        worker_unlink(ws, w);
        if (thread)
                thread_wait_finished(ws, w);
        worker_free(w);
        /* What the crashes' threads freed goes back to the system once the last one is done
         * (workers_trim_due(), from the server's housekeeping). */
        if (thread && ws->n[WORKER_THREAD] == 0)
                ws->trim_pending = true;
}

/* ---- loop workers: request and decision on the loop, a REJECT answered there ---------------- */

/* Reads on the loop wait for data that is there (the kernel writes the request and the mark in one
 * piece each); the socket's receive timeout bounds them all the same. A thread's reads have none:
 * the deadline is on progress. */
static int set_receive_timeout(struct worker *w, uint64_t usec) {
        struct timeval tv = { .tv_sec = (time_t) (usec / 1000000), .tv_usec = (suseconds_t) (usec % 1000000) };
        return setsockopt(w->conn.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ? negative_errno() : 0;
}

static unsigned overload_limit(const struct workers *ws) {
        return MAX(OVERLOAD_MIN_PENDING, 4 * ws->config->max_concurrent);
}

static void loop_finish(struct worker *w) {
        struct workers *ws = w->workers;

        /* The socket leaves epoll before it is closed. epoll forgets a closed fd only once no one
         * holds its file any more, and a child being spawned (a parser, for a crash on a thread)
         * holds a copy of every fd until its exec: an event on the rejected crash's socket (the
         * kernel closing it) then came back with the freed source, and sd-event aborted. */
        w->io = sd_event_source_disable_unref(w->io);
        if (w->crash.result == CRASH_RESULT_NONE)
                w->crash.result = w->overload_why ? CRASH_RESULT_OVERLOAD : CRASH_RESULT_REJECTED;
        step_release(&w->conn, &w->crash);
        step_record(&ws->loop_env, &w->crash);
        worker_reap(ws, w);
        ws->changed(ws->userdata);
}

static int on_loop_io(sd_event_source *source, int fd, uint32_t revents, void *userdata);

/* Waits on the loop for what the worker's state needs next. */
static int loop_wait(struct worker *w, enum loop_state state) {
        w->state = state;
        if (w->io)
                return 0;
        return sd_event_add_io(w->workers->event, &w->io, w->conn.fd, EPOLLIN, on_loop_io, w);
}

static void hand_over(struct workers *ws, struct worker *w);

/* The request is readable: read it, decide, answer a REJECT; a crash to keep goes to a thread. */
static void loop_request(struct workers *ws, struct worker *w) {
        struct crash *c = &w->crash;

        if (step_request(w->conn.fd, c) < 0) {
                loop_finish(w);
                return;
        }
        if (!w->overload_why) {
                if (step_decide(ws->env, c, false) < 0) {
                        (void) crash_fail(c, -ENOMEM, "Out of memory");
                        loop_finish(w);
                        return;
                }
                if (!c->have_decision || c->decision.action != ACTION_REJECT) {
                        hand_over(ws, w);
                        return;
                }
        }
        if (step_ack(w->conn.fd, c) < 0) {
                loop_finish(w);
                return;
        }
        int r = loop_wait(w, LOOP_WANT_MARK);
        if (r < 0) {
                (void) crash_fail(c, r, "Cannot wait for the mark: %s", strerror(-r));
                loop_finish(w);
        }
}

static int on_loop_io(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct worker *w = userdata;

        if (w->state == LOOP_WANT_REQUEST)
                loop_request(w->workers, w);
        else {
                (void) step_mark(w->conn.fd, &w->crash);
                loop_finish(w);
        }
        return 0;
}

/* Beyond every bound: not even a REJECT is answered (the kernel drops the core when we close), but
 * the crash is still recorded. */
static void drop_unanswered(struct workers *ws, struct worker *w) {
        log_crash(w->crash.tag, LOG_WARNING,
                  "Overloaded beyond %u crashes waiting on the loop: closing the crash connection unanswered.",
                  overload_limit(ws));
        (void) crash_set_decision(&w->crash, ACTION_REJECT, "overload");
        (void) crash_fail(&w->crash, -EBUSY, "Closed unanswered: %u crashes queued and %u on the loop",
                          ws->n[WORKER_QUEUED], ws->n[WORKER_LOOP]);
        step_release(&w->conn, &w->crash);
        step_record(&ws->loop_env, &w->crash);
        worker_free(w);
}

/* Starts w (not linked) on the loop: why NULL to decide by the policy, else rejected for overload
 * (why says which bound was reached). Its request is read now if it is there, else when it comes.
 * Beyond the loop's bound it is closed unanswered (and recorded). */
static void loop_start(struct workers *ws, struct worker *w, const char *why) {
        if (ws->n[WORKER_LOOP] >= overload_limit(ws)) {
                drop_unanswered(ws, w);
                return;
        }
        if (why) {
                log_crash(w->crash.tag, LOG_DEBUG, "Overload (%s): rejecting.", why);
                w->overload_why = why;
                /* The record says which bound (COREDUMPD_ERROR=): the one crash record with its why. */
                snprintf(w->crash.error, sizeof w->crash.error, "%s", why);
        }
        int r = why ? crash_set_decision(&w->crash, ACTION_REJECT, "overload") : 0;
        if (r >= 0)
                r = set_receive_timeout(w, LOOP_RECV_TIMEOUT_USEC);
        if (r >= 0)
                r = worker_arm_deadline(w, false);
        if (r < 0) {
                log_crash_errno(w->crash.tag, LOG_ERR, r, "Cannot answer on the loop: %m");
                drop_unanswered(ws, w);
                return;
        }
        worker_link(ws, w, WORKER_LOOP);

        struct pollfd p = { .fd = w->conn.fd, .events = POLLIN };
        if (w->crash.have_request || poll(&p, 1, 0) > 0) {
                if (!w->crash.have_request) {
                        loop_request(ws, w);
                        return;
                }
                /* Taken off the queue: asked and decided already, the ack is due. */
                if (step_ack(w->conn.fd, &w->crash) < 0) {
                        loop_finish(w);
                        return;
                }
                r = loop_wait(w, LOOP_WANT_MARK);
        } else
                r = loop_wait(w, LOOP_WANT_REQUEST);
        if (r < 0) {
                (void) crash_fail(&w->crash, r, "Cannot wait on the crash connection: %s", strerror(-r));
                loop_finish(w);
        }
}

/* ---- the queue ------------------------------------------------------------------------------- */

/* Starts queued crashes, oldest first, as far as the slots and the shares allow. */
static void queue_dispatch(struct workers *ws) {
        struct worker *w = ws->queue;

        while (w) {
                struct worker *next = w->next;
                const char *stuck = stuck_room(&w->tenant, w->stuck_why, sizeof w->stuck_why);
                if (stuck || ws->stop_at > 0) {
                        worker_unlink(ws, w);
                        loop_start(ws, w, stuck ?: "coredumpd stopping");
                } else if (may_run(ws, &w->tenant)) {
                        worker_unlink(ws, w);
                        if (thread_start(ws, w) < 0)
                                loop_start(ws, w, "no worker thread");
                }
                w = next;
        }
}

/* ---- the deadline, for every kind ------------------------------------------------------------ */

static int on_deadline(sd_event_source *source, uint64_t usec, void *userdata) {
        struct worker *w = userdata;
        struct workers *ws = w->workers;

        switch (w->kind) {
        case WORKER_THREAD: {
                if (atomic_load(&w->conn.released))
                        break; /* nothing held to cut: it compresses and records */
                if (w->cut_why) { /* cut ABANDON_GRACE_USEC ago, and still holding its task */
                        if (worker_abandon(ws, w)) {
                                queue_dispatch(ws); /* its slot is free */
                                ws->changed(ws->userdata);
                        }
                        break;
                }
                const char *why = NULL;
                uint64_t next = worker_deadline_next(w, usec, &why);
                if (ws->stop_at > 0 && usec >= ws->stop_at) {
                        why = "coredumpd stopping";
                        next = 0;
                } else if (ws->stop_at > 0 && next > ws->stop_at)
                        next = ws->stop_at;
                if (next > 0) {
                        (void) sd_event_source_set_time(source, next);
                        (void) sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
                        return 0;
                }
                log_crash(w->tag, LOG_WARNING, "Connection reached its deadline (%s) after %" PRIu64 " bytes, shutting it down.",
                          why, (uint64_t) atomic_load(&w->conn.progress.received));
                /* The record says which bound cut it (store.c). */
                atomic_store(&w->conn.progress.expired_why, why);
                connection_expire(&w->conn);
                w->cut_why = why;
                (void) sd_event_source_set_time(source, usec + ABANDON_GRACE_USEC);
                (void) sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
                break;
        }
        case WORKER_QUEUED:
                /* Waited QueueDeadline= for a slot: answer it now rather than hold the task longer. */
                worker_unlink(ws, w);
                loop_start(ws, w, "queued for QueueDeadline=");
                ws->changed(ws->userdata);
                break;
        case WORKER_LOOP:
                (void) crash_fail(&w->crash, -ETIMEDOUT, "%s reached its deadline",
                                  w->state == LOOP_WANT_REQUEST ? "Waiting for the request" : "Waiting for the mark");
                loop_finish(w);
                break;
        default:
                break;
        }
        return 0;
}

static int on_wake(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct workers *ws = userdata;
        uint64_t n;

        (void) !read(ws->wake_fd, &n, sizeof n);

        for (struct worker *w = ws->list, *next; w; w = next) {
                next = w->next;
                if (w->kind == WORKER_THREAD && atomic_load(&w->finished))
                        worker_reap(ws, w);
        }
        queue_dispatch(ws);
        ws->changed(ws->userdata);
        return 0;
}

/* ---- the pool -------------------------------------------------------------------------------- */

/* A decided crash to keep (or one left undecided for a thread): a slot now, else the queue, else
 * REJECT for overload. */
static void hand_over(struct workers *ws, struct worker *w) {
        sd_event_source_disable_unref(w->io);
        w->io = NULL;
        worker_unlink(ws, w);
        int r = set_receive_timeout(w, 0);
        if (r < 0) {
                log_crash_errno(w->crash.tag, LOG_ERR, r, "Cannot clear the receive timeout: %m");
                loop_start(ws, w, "no worker thread");
                return;
        }

        /* A tenant whose crashes are stuck in the kernel gets no further thread; nor does anyone once
         * the daemon is stopping. */
        const char *stuck = stuck_room(&w->tenant, w->stuck_why, sizeof w->stuck_why);
        if (stuck || ws->stop_at > 0) {
                loop_start(ws, w, stuck ?: "coredumpd stopping");
                return;
        }
        /* A crash that may run now runs, whoever else waits (they wait for a share of their own);
         * only one of an owner with crashes waiting queues behind them, in order. */
        if (queued(ws, HOLDERS_TENANT, &w->tenant) == 0 && may_run(ws, &w->tenant)) {
                if (thread_start(ws, w) < 0)
                        loop_start(ws, w, "no worker thread");
                return;
        }
        const char *why = queue_room(ws, &w->tenant);
        if (!why) {
                if (worker_arm_deadline(w, true) >= 0) {
                        log_crash(w->crash.tag, LOG_DEBUG, "Queued: %u crashes held, %u queued.",
                                  holding(ws, HOLDERS_ALL, NULL), ws->n[WORKER_QUEUED]);
                        worker_link(ws, w, WORKER_QUEUED);
                        queue_dispatch(ws); /* it may be first in line for a free share */
                        return;
                }
        }
        loop_start(ws, w, why ? why : "queue full");
}

void workers_start(struct workers *ws, int fd) {
        struct worker *w = worker_new(ws, fd);
        if (!w) {
                safe_close(fd);
                log_error_errno(ENOMEM, "Cannot handle a crash: %m");
                return;
        }

        /* Cheap and non-blocking (SO_PEERPIDFD, PIDFD_GET_INFO): who it is decides where it goes. */
        if (step_authenticate(ws->env, w->conn.fd, &w->crash) < 0) {
                worker_free(w); /* not a crash: logged by the authenticator */
                return;
        }
        w->tenant = w->crash.peer.tenant;
        /* The decision on the loop: a REJECT is answered without a thread's start or a slot. */
        loop_start(ws, w, NULL);
}

void workers_stop(struct workers *ws) {
        uint64_t now;
        if (ws->stop_at > 0 || sd_event_now(ws->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        ws->stop_at = now + WORKERS_STOP_GRACE_USEC;
        for (struct worker *w = ws->list; w; w = w->next) {
                uint64_t at;
                if (holds_task(w) && !w->cut_why && w->deadline &&
                    sd_event_source_get_time(w->deadline, &at) >= 0 && at > ws->stop_at)
                        (void) sd_event_source_set_time(w->deadline, ws->stop_at);
        }
        queue_dispatch(ws); /* the queued: answered now */
}

unsigned workers_busy(const struct workers *ws) {
        return ws->n[WORKER_QUEUED] + ws->n[WORKER_THREAD] + ws->n[WORKER_LOOP];
}

int workers_new(sd_event *event, const struct config *config, const struct crash_env *env,
                workers_changed_fn changed, void *userdata, struct workers **ret) {
        struct workers *ws = calloc(1, sizeof *ws);
        int r;

        if (!ws)
                return log_error_errno(ENOMEM, "%m");
        *ws = (struct workers) {
                .event = sd_event_ref(event),
                .config = config,
                .env = env,
                .changed = changed,
                .userdata = userdata,
                .on_deadline = on_deadline,
                .wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK),
        };
        ws->queue_tail = &ws->queue;
        ws->loop_env = *env;
        ws->recorder = env->record_sink ? recorder_new(env->record_sink, env->record_userdata) : NULL;
        if (ws->recorder) {
                ws->loop_env.record_sink = recorder_sink;
                ws->loop_env.record_userdata = ws->recorder;
        }
        pool_init(ws);
        if (ws->wake_fd < 0) {
                r = log_error_errno(errno, "Cannot create an eventfd: %m");
                goto fail;
        }
        r = sd_event_add_io(event, &ws->wake_source, ws->wake_fd, EPOLLIN, on_wake, ws);
        if (r < 0) {
                log_error_errno(r, "Cannot watch the workers' eventfd: %m");
                goto fail;
        }
        *ret = ws;
        return 0;

fail:
        workers_free(ws);
        return r;
}

uint64_t workers_trim_due(struct workers *ws, uint64_t now_mono) {
        return pool_trim_due(ws, now_mono);
}

struct workers *workers_free(struct workers *ws) {
        if (!ws)
                return NULL;

        /* Normally all are reaped on the loop; on an early exit cut the rest short. Their threads get
         * ABANDON_GRACE_USEC in all to end; one stuck in the kernel is abandoned, not waited for. */
        for (struct worker *w = ws->list; w; w = w->next)
                connection_expire(&w->conn);
        threads_finish_or_abandon(ws);
        while (ws->list)
                worker_reap(ws, ws->list);
        while (ws->queue)
                worker_reap(ws, ws->queue);
        pool_end(ws);
        recorder_free(ws->recorder, RECORDER_STOP_USEC);

        sd_event_source_disable_unref(ws->wake_source);
        safe_close(ws->wake_fd);
        sd_event_unref(ws->event);
        free(ws);
        return NULL;
}
