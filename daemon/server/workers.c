/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "server/workers.h"
#include "shared/cleanup.h"
#include "shared/log.h"

#define OVERLOAD_MIN_PENDING 16
#define OVERLOAD_RECV_TIMEOUT_USEC 250000

enum worker_kind {
        WORKER_THREAD,          /* crash_handle() on a thread of its own */
        WORKER_OVERLOAD,        /* the steps on the loop, answered REJECT */
};

enum overload_state {
        OVERLOAD_WANT_REQUEST,
        OVERLOAD_WANT_MARK,
};

struct worker {
        struct workers *workers;
        enum worker_kind kind;
        struct connection conn;
        sd_event_source *deadline;
        uint64_t started_usec;          /* CLOCK_MONOTONIC */
        struct worker *next;

        /* WORKER_THREAD */
        pthread_t thread;
        atomic_bool finished;

        /* WORKER_OVERLOAD */
        struct crash crash;
        enum overload_state state;
        sd_event_source *io;
};

struct workers {
        sd_event *event;
        const struct config *config;
        const struct crash_env *env;
        workers_changed_fn changed;
        void *userdata;

        int wake_fd;                    /* thread workers report completion here */
        sd_event_source *wake_source;

        struct worker *list;
        unsigned n_threads;
        unsigned n_overloads;
};

/* ---- start and reap, for both kinds ---------------------------------------------------------- */

static struct worker *worker_new(struct workers *ws, enum worker_kind kind, int fd) {
        struct worker *w = calloc(1, sizeof *w);
        if (!w)
                return NULL;
        w->workers = ws;
        w->kind = kind;
        connection_init(&w->conn, fd);
        atomic_init(&w->finished, false);
        crash_init(&w->crash);
        return w;
}

/* Frees a worker whose thread, if any, has ended. */
static void worker_free(struct worker *w) {
        sd_event_source_disable_unref(w->io);
        sd_event_source_disable_unref(w->deadline);
        connection_destroy(&w->conn);
        crash_done(&w->crash);
        free(w);
}

static void workers_link(struct workers *ws, struct worker *w) {
        w->next = ws->list;
        ws->list = w;
        if (w->kind == WORKER_THREAD)
                ws->n_threads++;
        else
                ws->n_overloads++;
}

static void workers_unlink(struct workers *ws, struct worker *w) {
        for (struct worker **p = &ws->list; *p; p = &(*p)->next)
                if (*p == w) {
                        *p = w->next;
                        if (w->kind == WORKER_THREAD)
                                ws->n_threads--;
                        else
                                ws->n_overloads--;
                        return;
                }
}

static void worker_reap(struct workers *ws, struct worker *w) {
        workers_unlink(ws, w);
        if (w->kind == WORKER_THREAD)
                pthread_join(w->thread, NULL);
        worker_free(w);
}

static int on_deadline(sd_event_source *source, uint64_t usec, void *userdata);

static int worker_arm_deadline(struct worker *w) {
        struct workers *ws = w->workers;
        int r = sd_event_now(ws->event, CLOCK_MONOTONIC, &w->started_usec);
        if (r < 0)
                return r;
        return sd_event_add_time(ws->event, &w->deadline, CLOCK_MONOTONIC,
                                 w->started_usec + ws->config->deadline_usec, 0, on_deadline, w);
}

/* The deadline is on progress: Deadline= without bytes arriving ends a connection; a moving one
 * ends at the latest Deadline= + MaxSize= / MinRate= after it started. Returns 0 if it has
 * expired, else when to look again. */
static uint64_t worker_deadline_next(const struct worker *w, uint64_t now) {
        const struct config *c = w->workers->config;
        uint64_t last = MAX(w->started_usec, (uint64_t) atomic_load(&w->conn.progress.last_usec));
        uint64_t whole_seconds = c->max_size / c->min_rate;
        uint64_t stream_usec = whole_seconds > UINT64_MAX / 2000000 ? UINT64_MAX / 2 :
                whole_seconds * 1000000 + c->max_size % c->min_rate * 1000000 / c->min_rate;
        uint64_t cap = w->started_usec + MIN(c->deadline_usec, UINT64_MAX / 4) + stream_usec;
        uint64_t idle_end = last + c->deadline_usec;

        if (now >= cap || now >= idle_end)
                return 0;
        return MIN(cap, idle_end);
}

/* ---- thread workers -------------------------------------------------------------------------- */

static void *thread_main(void *userdata) {
        struct worker *w = userdata;
        uint64_t one = 1;

        crash_handle(w->workers->env, &w->conn);
        atomic_store(&w->finished, true);
        (void) !write(w->workers->wake_fd, &one, sizeof one);
        return NULL;
}

static int thread_start(struct workers *ws, struct worker *w) {
        int r = worker_arm_deadline(w);
        if (r < 0)
                return log_error_errno(r, "Cannot arm the connection deadline, dropping the crash: %m");

        r = pthread_create(&w->thread, NULL, thread_main, w);
        if (r != 0)
                return log_error_errno(r, "Cannot start a worker thread, dropping the crash: %m");
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
        ws->changed(ws->userdata);
        return 0;
}

/* ---- overload workers: the steps on the loop ------------------------------------------------- */

static unsigned overload_limit(const struct workers *ws) {
        return MAX(OVERLOAD_MIN_PENDING, 4 * ws->config->max_concurrent);
}

static void overload_finish(struct worker *w) {
        struct workers *ws = w->workers;

        if (w->crash.result == CRASH_RESULT_NONE)
                w->crash.result = CRASH_RESULT_OVERLOAD;
        step_record(ws->env, &w->crash);
        worker_reap(ws, w);
        ws->changed(ws->userdata);
}

static int on_overload_io(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct worker *w = userdata;

        if (w->state == OVERLOAD_WANT_REQUEST) {
                /* The request and the mark arrive in one piece each: read when readable, bounded by
                 * the socket's receive timeout. */
                if (step_request(w->conn.fd, &w->crash) >= 0 && step_ack(w->conn.fd, &w->crash) >= 0) {
                        w->state = OVERLOAD_WANT_MARK;
                        return 0;
                }
        } else
                (void) step_mark(w->conn.fd, &w->crash);

        overload_finish(w);
        return 0;
}

static int overload_start(struct workers *ws, struct worker *w) {
        struct timeval tv = { .tv_usec = OVERLOAD_RECV_TIMEOUT_USEC };
        int r;

        r = step_authenticate(ws->env, w->conn.fd, &w->crash);
        if (r < 0)
                return r; /* logged by the authenticator */
        log_crash(w->crash.tag, LOG_DEBUG, "Overload: %u crashes being handled, rejecting.", ws->n_threads);

        r = crash_set_decision(&w->crash, ACTION_REJECT, "overload");
        if (r >= 0 && setsockopt(w->conn.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0)
                r = negative_errno();
        if (r >= 0)
                r = sd_event_add_io(ws->event, &w->io, w->conn.fd, EPOLLIN, on_overload_io, w);
        if (r >= 0)
                r = worker_arm_deadline(w);
        if (r < 0)
                return log_crash_errno(w->crash.tag, LOG_ERR, r, "Cannot answer an overload rejection: %m");
        return 0;
}

/* ---- the deadline, for both kinds ------------------------------------------------------------ */

static int on_deadline(sd_event_source *source, uint64_t usec, void *userdata) {
        struct worker *w = userdata;

        if (w->kind == WORKER_THREAD) {
                uint64_t next = worker_deadline_next(w, usec);
                if (next > 0) {
                        (void) sd_event_source_set_time(source, next);
                        (void) sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
                        return 0;
                }
                log_warning("Connection reached its deadline (no progress for Deadline=, or Deadline= + MaxSize= / MinRate= in all), shutting it down.");
                connection_expire(&w->conn);
        } else {
                (void) crash_fail(&w->crash, -ETIMEDOUT, "Overload rejection reached its deadline");
                overload_finish(w);
        }
        return 0;
}

/* ---- the pool -------------------------------------------------------------------------------- */

void workers_start(struct workers *ws, int fd) {
        enum worker_kind kind = ws->n_threads < ws->config->max_concurrent ? WORKER_THREAD : WORKER_OVERLOAD;

        if (kind == WORKER_OVERLOAD && ws->n_overloads >= overload_limit(ws)) {
                log_warning("Overloaded beyond %u pending rejections: closing a crash connection unanswered.",
                            overload_limit(ws));
                safe_close(fd);
                return;
        }

        struct worker *w = worker_new(ws, kind, fd);
        if (!w) {
                safe_close(fd);
                log_error_errno(ENOMEM, "Cannot handle a crash: %m");
                return;
        }
        int r = kind == WORKER_THREAD ? thread_start(ws, w) : overload_start(ws, w);
        if (r < 0) {
                worker_free(w);
                return;
        }
        workers_link(ws, w);
}

unsigned workers_busy(const struct workers *ws) {
        return ws->n_threads + ws->n_overloads;
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
                .wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK),
        };
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

struct workers *workers_free(struct workers *ws) {
        if (!ws)
                return NULL;

        /* Normally all are reaped on the loop; on an early exit cut the rest short. */
        for (struct worker *w = ws->list; w; w = w->next)
                connection_expire(&w->conn);
        while (ws->list)
                worker_reap(ws, ws->list);

        sd_event_source_disable_unref(ws->wake_source);
        safe_close(ws->wake_fd);
        sd_event_unref(ws->event);
        free(ws);
        return NULL;
}
