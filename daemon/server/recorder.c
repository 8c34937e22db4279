/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/fatal.h"
#include "server/recorder.h"
#include "shared/log.h"

struct recorder {
        record_sink_fn sink;
        void *userdata;
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;            /* to the thread: a record, or stop; from it: done */
        struct fields queue[RECORDER_QUEUE_MAX];
        size_t head, n;
        bool stop, done;
        bool full_said;                 /* "the queue is full" logged, until it has room again */
};

static void *recorder_main(void *userdata) {
        struct recorder *r = userdata;
        void *alt_stack = fatal_signals_thread_init();

        pthread_mutex_lock(&r->lock);
        for (;;) {
                while (r->n == 0 && !r->stop)
                        pthread_cond_wait(&r->cond, &r->lock);
                if (r->n == 0)
                        break;
                struct fields f = r->queue[r->head];
                r->queue[r->head] = (struct fields) {};
                r->head = (r->head + 1) % RECORDER_QUEUE_MAX;
                r->n--;
                pthread_mutex_unlock(&r->lock);
                int k = r->sink(&f, r->userdata);
                if (k < 0)
                        log_error_errno(k, "Cannot write a crash record: %m");
                fields_done(&f);
                pthread_mutex_lock(&r->lock);
        }
        r->done = true;
        pthread_cond_broadcast(&r->cond);
        pthread_mutex_unlock(&r->lock);
        fatal_signals_thread_done(alt_stack);
        return NULL;
}

struct recorder *recorder_new(record_sink_fn sink, void *userdata) {
        struct recorder *r = calloc(1, sizeof *r);
        if (!r) {
                log_error_errno(ENOMEM, "Cannot make the loop's recorder: %m");
                return NULL;
        }
        r->sink = sink;
        r->userdata = userdata;
        (void) pthread_mutex_init(&r->lock, NULL);
        (void) pthread_cond_init(&r->cond, NULL);
        int k = pthread_create(&r->thread, NULL, recorder_main, r);
        if (k != 0) {
                log_error_errno(k, "Cannot start the loop's recorder thread: %m");
                pthread_cond_destroy(&r->cond);
                pthread_mutex_destroy(&r->lock);
                free(r);
                return NULL;
        }
        return r;
}

/* A copy of f, bytes as they are (a binary field too). */
static int fields_copy(const struct fields *f, struct fields *ret) {
        struct fields copy = { .v = calloc(f->n ?: 1, sizeof *copy.v) };

        if (!copy.v)
                return -ENOMEM;
        for (; copy.n < f->n; copy.n++) {
                size_t len = f->v[copy.n].iov_len;
                void *b = malloc(len + 1);
                if (!b) {
                        fields_done(&copy);
                        return -ENOMEM;
                }
                memcpy(b, f->v[copy.n].iov_base, len);
                ((char *) b)[len] = 0;
                copy.v[copy.n] = (struct iovec) { .iov_base = b, .iov_len = len };
        }
        *ret = copy;
        return 0;
}

int recorder_sink(const struct fields *f, void *userdata) {
        struct recorder *r = userdata;
        struct fields copy;

        int k = fields_copy(f, &copy);
        if (k < 0)
                return r->sink(f, r->userdata); /* no memory for a copy: written here */
        pthread_mutex_lock(&r->lock);
        bool queued = !r->stop && r->n < RECORDER_QUEUE_MAX;
        if (queued) {
                r->queue[(r->head + r->n) % RECORDER_QUEUE_MAX] = copy;
                r->n++;
                r->full_said = false;
                pthread_cond_signal(&r->cond);
        }
        bool say = !queued && !r->full_said;
        r->full_said = r->full_said || !queued;
        pthread_mutex_unlock(&r->lock);
        if (queued)
                return 0;
        fields_done(&copy);
        if (say)
                log_warning("%u crash records wait for the journal: the loop writes the next itself (and waits).",
                            (unsigned) RECORDER_QUEUE_MAX);
        return r->sink(f, r->userdata);
}

void recorder_free(struct recorder *r, uint64_t timeout_usec) {
        struct timespec ts; /* the condition's clock: CLOCK_REALTIME */

        if (!r)
                return;
        (void) clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t until = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000 + timeout_usec;
        ts = (struct timespec) { .tv_sec = (time_t) (until / 1000000), .tv_nsec = (long) (until % 1000000) * 1000 };
        pthread_mutex_lock(&r->lock);
        r->stop = true;
        pthread_cond_broadcast(&r->cond);
        while (!r->done)
                if (pthread_cond_timedwait(&r->cond, &r->lock, &ts) == ETIMEDOUT)
                        break;
        bool done = r->done;
        size_t left = r->n;
        pthread_mutex_unlock(&r->lock);
        if (!done) {
                log_warning("The journal took no crash record for %u ms: %zu record(s) not written.",
                            (unsigned) (timeout_usec / 1000), left);
                (void) pthread_detach(r->thread); /* waiting on the journal: left to the exit */
                return;
        }
        (void) pthread_join(r->thread, NULL);
        pthread_cond_destroy(&r->cond);
        pthread_mutex_destroy(&r->lock);
        free(r);
}
