/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "crash/outcome.h"
#include "crash/user-notes.h"
#include "parser/client.h"
#include "shared/log.h"
#include "shared/timestamp.h"

struct note {
        struct fields fields;
        uid_t uid;
        gid_t gid;
        struct tenant owner;
        char tag[96];
};

struct noted_user {
        uint32_t uid;
        uint64_t window_start;  /* CLOCK_MONOTONIC usec */
        unsigned count;
        uint64_t last;
};

static struct {
        pthread_mutex_t lock;
        pthread_cond_t work;
        struct noted_user users[USER_NOTES_USERS];
        size_t n_users;
        struct note queue[USER_NOTES_QUEUE];
        size_t head, n;
        bool started, stopping, done;
        pthread_t thread;
} notes = { .lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER };

/* One more note for uid at now, if its bound allows (notes.lock held). */
static bool user_allowed(uint32_t uid, uint64_t now) {
        struct noted_user *u = NULL, *oldest = NULL;

        for (size_t i = 0; i < notes.n_users && !u; i++) {
                if (notes.users[i].uid == uid)
                        u = &notes.users[i];
                else if (!oldest || notes.users[i].last < oldest->last)
                        oldest = &notes.users[i];
        }
        if (!u) {
                u = notes.n_users < USER_NOTES_USERS ? &notes.users[notes.n_users++] : oldest;
                *u = (struct noted_user) { .uid = uid, .window_start = now };
        }
        if (now - u->window_start >= USER_NOTES_INTERVAL_USEC) {
                u->window_start = now;
                u->count = 0;
        }
        u->last = now;
        if (u->count >= USER_NOTES_BURST)
                return false;
        u->count++;
        return true;
}

static void *notes_main(void *userdata) {
        pthread_mutex_lock(&notes.lock);
        for (;;) {
                while (notes.n == 0 && !notes.stopping)
                        pthread_cond_wait(&notes.work, &notes.lock);
                if (notes.n == 0)
                        break;
                struct note n = notes.queue[notes.head];
                notes.queue[notes.head] = (struct note) {};
                notes.head = (notes.head + 1) % USER_NOTES_QUEUE;
                notes.n--;
                pthread_mutex_unlock(&notes.lock);

                char reason[256] = "";
                int r = parser_submit_record(n.fields.v, n.fields.n, n.uid, n.gid, &n.owner, reason, sizeof reason);
                if (r < 0)
                        log_crash(n.tag, LOG_NOTICE, "Cannot tell uid %u of its rejected crash in their journal: %s (%s).",
                                  (unsigned) n.uid, reason, strerror(-r));
                fields_done(&n.fields);
                pthread_mutex_lock(&notes.lock);
        }
        notes.done = true;
        pthread_cond_broadcast(&notes.work);
        pthread_mutex_unlock(&notes.lock);
        return NULL;
}

/* Queues the note (taking its fields) for the thread, started now if it is not: false if it
 * cannot be (queue or its tenant's share full, no thread, stopping). notes.lock held. */
static bool enqueue(struct note *n) {
        if (notes.stopping || notes.n >= USER_NOTES_QUEUE)
                return false;
        size_t own = 0;
        for (size_t i = 0; i < notes.n; i++)
                own += tenant_equal(&notes.queue[(notes.head + i) % USER_NOTES_QUEUE].owner, &n->owner);
        if (own >= USER_NOTES_QUEUE_PER_TENANT)
                return false;
        if (!notes.started) {
                if (pthread_create(&notes.thread, NULL, notes_main, NULL) != 0)
                        return false;
                notes.started = true;
        }
        notes.queue[(notes.head + notes.n) % USER_NOTES_QUEUE] = *n;
        notes.n++;
        pthread_cond_signal(&notes.work);
        return true;
}

void user_note_crash(const struct crash *c, record_sink_fn sink, void *userdata, struct metrics *m) {
        if (!record_user_note_wanted(c))
                return;

        struct note n = { .owner = c->peer.tenant };
        record_note_ids(c, &n.uid, &n.gid);
        snprintf(n.tag, sizeof n.tag, "%s", c->tag);
        /* Of a signature's repeats, only the first past its burst in the interval. */
        bool allowed = !(crash_is_repeat(c) && c->decision.repeat > c->decision.rate_limit_burst + 1);
        if (allowed) {
                pthread_mutex_lock(&notes.lock);
                allowed = user_allowed(n.uid, now_monotonic_usec());
                pthread_mutex_unlock(&notes.lock);
        }
        if (!allowed) {
                metrics_add(m, METRICS_USER_NOTES_WITHHELD, 1);
                return;
        }
        int r = record_build_user_note(c, &n.fields);
        if (r < 0) {
                log_crash_errno(c->tag, LOG_ERR, r, "Cannot build the note for the user's journal: %m");
                return;
        }
        if (sink) {
                r = sink(&n.fields, userdata);
                fields_done(&n.fields);
                metrics_add(m, r < 0 ? METRICS_USER_NOTES_WITHHELD : METRICS_USER_NOTES, 1);
                return;
        }
        pthread_mutex_lock(&notes.lock);
        bool queued = enqueue(&n);
        pthread_mutex_unlock(&notes.lock);
        if (!queued) {
                log_crash(c->tag, LOG_DEBUG, "Not telling uid %u of its rejected crash: too many notes waiting (in all or of its tenant).",
                          (unsigned) n.uid);
                fields_done(&n.fields);
        }
        metrics_add(m, queued ? METRICS_USER_NOTES : METRICS_USER_NOTES_WITHHELD, 1);
}

void user_notes_stop(uint64_t timeout_usec) {
        pthread_mutex_lock(&notes.lock);
        notes.stopping = true;
        pthread_cond_broadcast(&notes.work);
        bool started = notes.started;
        if (started) {
                struct timespec ts; /* the condition's clock: CLOCK_REALTIME */
                (void) clock_gettime(CLOCK_REALTIME, &ts);
                uint64_t until = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000 + timeout_usec;
                ts = (struct timespec) { .tv_sec = (time_t) (until / 1000000), .tv_nsec = (long) (until % 1000000) * 1000 };
                while (!notes.done)
                        if (pthread_cond_timedwait(&notes.work, &notes.lock, &ts) == ETIMEDOUT)
                                break;
        }
        bool done = notes.done;
        pthread_mutex_unlock(&notes.lock);
        if (started && done)
                (void) pthread_join(notes.thread, NULL);
        else if (started)
                (void) pthread_detach(notes.thread); /* stuck: the process ends without it */
}

void user_notes_reset(void) {
        pthread_mutex_lock(&notes.lock);
        notes.n_users = 0;
        pthread_mutex_unlock(&notes.lock);
}
