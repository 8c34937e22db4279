/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crash/outcome.h"
#include "crash/record.h"
#include "server/fatal.h"
#include "server/pool.h"
#include "store/store.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

/* A crash's thread, its steps done, waits this long for the next crash to keep before it ends
 * (THREADS_PARKED_MAX of them at most): a crash loop's every repeat would otherwise pay a thread's
 * start and end on its way to the ack — clone3(), the signal stack, the stack's madvise() at the
 * exit, which under a TLB flush of every CPU is the dearest of them on a small VM. */
#define THREADS_PARKED_MAX 2
#define THREAD_PARKED_USEC (30 * USEC_PER_SEC)

void pool_init(struct workers *ws) {
        ws->handed_tail = &ws->handed;
        /* (glibc's initialisers of a mutex, a condition and its attributes cannot fail on Linux.) */
        pthread_condattr_t cattr;
        (void) pthread_condattr_init(&cattr);
        (void) pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
        (void) pthread_cond_init(&ws->pool_work, &cattr);
        (void) pthread_cond_init(&ws->pool_done, &cattr);
        (void) pthread_condattr_destroy(&cattr);
        (void) pthread_mutex_init(&ws->pool_lock, NULL);
}

/* ---- the threads ----------------------------------------------------------------------------- */

/* Waits, parked (counted in ws->parked already), for a crash handed over (pool_lock held): NULL
 * when none came in time, or on stop. */
static struct worker *thread_park(struct workers *ws) {
        uint64_t until = now_monotonic_usec() + THREAD_PARKED_USEC;
        struct timespec ts = { .tv_sec = (time_t) (until / USEC_PER_SEC),
                               .tv_nsec = (long) (until % USEC_PER_SEC) * 1000 };
        while (!ws->handed && !ws->stopping)
                if (pthread_cond_timedwait(&ws->pool_work, &ws->pool_lock, &ts) == ETIMEDOUT)
                        break;
        ws->parked--;
        struct worker *w = ws->handed; /* one handed over as it timed out is still taken */
        if (w) {
                ws->handed = w->handed_next;
                if (!ws->handed)
                        ws->handed_tail = &ws->handed;
                ws->handed_n--;
        }
        return w;
}

static void *thread_main(void *userdata) {
        struct worker *w = userdata;
        struct workers *ws = w->workers;
        uint64_t one = 1;
        void *alt_stack = fatal_signals_thread_init();

        while (w) {
                crash_continue(ws->env, &w->conn, &w->crash);
                if (connection_abandoned(&w->conn)) {
                        /* Abandoned at its deadline (worker_abandon()): recorded, out of every list
                         * and count, its sd-event sources gone. w is this thread's alone; ws may be
                         * gone (the daemon stopped meanwhile): not touched again. */
                        struct tenant t = w->tenant;
                        worker_free(w);
                        stuck_thread_remove(&t);
                        break;
                }
                /* A thread that compressed runs at a priority it cannot raise again: it ends. */
                bool may_park = !store_thread_priority_lowered();

                pthread_mutex_lock(&ws->pool_lock);
                atomic_store(&w->finished, true); /* w is the loop's to free from here on */
                pthread_cond_broadcast(&ws->pool_done);
                /* Parked before the loop hears of the free slot, so that a queued crash it starts
                 * next is handed to this thread rather than to a new one. */
                bool parking = may_park && !ws->stopping && ws->parked < THREADS_PARKED_MAX;
                if (parking)
                        ws->parked++;
                (void) !write(ws->wake_fd, &one, sizeof one); /* an eventfd: never blocks */
                w = parking ? thread_park(ws) : NULL;
                if (!w) {
                        ws->alive--;
                        pthread_cond_broadcast(&ws->pool_done);
                }
                pthread_mutex_unlock(&ws->pool_lock); /* not ws again: it may be freed from here on */
        }
        fatal_signals_thread_done(alt_stack);
        return NULL;
}

/* A parked thread takes w, else a new one starts with it. */
static int thread_run(struct workers *ws, struct worker *w) {
        pthread_mutex_lock(&ws->pool_lock);
        if (ws->parked > ws->handed_n) {
                w->handed_next = NULL;
                *ws->handed_tail = w;
                ws->handed_tail = &w->handed_next;
                ws->handed_n++;
                pthread_cond_signal(&ws->pool_work);
                pthread_mutex_unlock(&ws->pool_lock);
                return 0;
        }
        ws->alive++;
        pthread_mutex_unlock(&ws->pool_lock);

        pthread_attr_t attr;
        pthread_t thread;
        int r = pthread_attr_init(&attr);
        if (r == 0) {
                r = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
                if (r == 0)
                        r = pthread_create(&thread, &attr, thread_main, w);
                pthread_attr_destroy(&attr);
        }
        if (r != 0) {
                pthread_mutex_lock(&ws->pool_lock);
                ws->alive--;
                pthread_mutex_unlock(&ws->pool_lock);
        }
        return -r;
}

/* From the worker's thread: its task is released, its slot is free for a queued crash. */
static void on_thread_released(void *userdata) {
        struct worker *w = userdata;
        uint64_t one = 1;
        (void) !write(w->workers->wake_fd, &one, sizeof one);
}

/* The record of the crash should its thread be abandoned, made while the crash is still the loop's
 * alone: once its thread runs, the loop never reads the crash again (the thread may wake up and
 * write to it at any time). A few dozen fields per crash kept on a thread, against a record that
 * could not be written safely at all later. */
static void prepare_abandon_record(struct worker *w) {
        struct crash *c = &w->crash;
        enum crash_result result = c->result;
        char error[sizeof c->error];

        memcpy(error, c->error, sizeof error);
        c->result = CRASH_RESULT_FAILED;
        snprintf(c->error, sizeof c->error, "Abandoned: its thread was stuck in the kernel past the connection's "
                 "deadline and %u s more; its slot and its user's share were given back",
                 (unsigned) (ABANDON_GRACE_USEC / USEC_PER_SEC));
        if (record_build(c, &w->abandon_record) < 0)
                w->abandon_record = (struct fields) {};
        w->abandon_action = (int) crash_metrics_action(c);
        c->result = result;
        memcpy(c->error, error, sizeof error);
        memcpy(w->tag, c->tag, sizeof w->tag);
}

int thread_start(struct workers *ws, struct worker *w) {
        w->conn.on_release = on_thread_released;
        w->conn.on_release_userdata = w;
        prepare_abandon_record(w);
        int r = worker_arm_deadline(w, false);
        if (r < 0)
                return log_crash_errno(w->crash.tag, LOG_ERR, r, "Cannot arm the connection deadline: %m");

        r = thread_run(ws, w);
        if (r < 0)
                return log_crash_errno(w->crash.tag, LOG_ERR, r, "Cannot start a worker thread: %m");
        worker_link(ws, w, WORKER_THREAD);
        return 0;
}

void thread_wait_finished(struct workers *ws, struct worker *w) {
        pthread_mutex_lock(&ws->pool_lock);
        while (!atomic_load(&w->finished))
                pthread_cond_wait(&ws->pool_done, &ws->pool_lock);
        pthread_mutex_unlock(&ws->pool_lock);
}

/* ---- a thread stuck in the kernel ------------------------------------------------------------ */

/* It gives back what it held at once — out of the list, so it counts in no slot, share or thread
 * bound; its record written now, with why (the one record of the crash: its steps, should they
 * return, write none, connection_abandoned()) — and is counted as stuck against its tenant until
 * its thread returns (shared/child.h). The worker is its thread's from here on, which frees it,
 * never touching ws again; one that never returns is never joined (detached). */
struct abandonment {
        struct workers *ws;
        struct worker *w;
        /* What the loop still needs once w is its thread's: */
        struct fields record;
        struct tenant tenant;
        int action;
        const char *why;
        char tag[sizeof ((struct worker *) NULL)->tag];
};

/* Under the connection's lock (connection_abandon()): w is still the loop's. */
static void abandon_hand_over(void *userdata) {
        struct abandonment *a = userdata;
        struct workers *ws = a->ws;
        struct worker *w = a->w;

        worker_unlink(ws, w);
        w->deadline = sd_event_source_disable_unref(w->deadline); /* sd-event's: the loop's to free */
        pthread_mutex_lock(&ws->pool_lock);
        ws->alive--; /* not waited for by pool_end() */
        pthread_mutex_unlock(&ws->pool_lock);
        stuck_thread_add(&w->tenant); /* before the thread can return and remove it */
        a->tenant = w->tenant;
        a->why = w->cut_why ? w->cut_why : "stop";
        memcpy(a->tag, w->tag, sizeof a->tag);
        a->record = w->abandon_record;
        a->action = w->abandon_action;
        w->abandon_record = (struct fields) {};
}

bool worker_abandon(struct workers *ws, struct worker *w) {
        struct abandonment a = { .ws = ws, .w = w };

        if (!connection_abandon(&w->conn, abandon_hand_over, &a))
                return false;
        /* w is its thread's from here on: only a's copies. */
        log_crash(a.tag, LOG_WARNING, "Its thread is stuck in the kernel %u s after the deadline (%s): abandoned, "
                  "its slot given back (%u of this user's crashes stuck, %u in all).",
                  (unsigned) (ABANDON_GRACE_USEC / USEC_PER_SEC), a.why, stuck_count(&a.tenant), stuck_count(NULL));
        if (a.record.n > 0) {
                int r = ws->loop_env.record_sink(&a.record, ws->loop_env.record_userdata);
                if (r < 0)
                        log_crash_errno(a.tag, LOG_ERR, r, "Cannot write the crash record: %m");
        } else
                log_crash(a.tag, LOG_ERR, "No record for the abandoned crash: out of memory at its hand-over.");
        fields_done(&a.record);
        if (ws->env->store)
                metrics_count_crash(ws->env->store->metrics, (enum metrics_action) a.action, METRICS_RESULT_FAILED,
                                    METRICS_REASON_ABANDONED);
        if (ws->n[WORKER_THREAD] == 0)
                ws->trim_pending = true;
        return true;
}

/* ---- the heap, and the end ------------------------------------------------------------------- */

uint64_t pool_trim_due(struct workers *ws, uint64_t now_mono) {
        if (!ws->trim_pending || ws->n[WORKER_THREAD] > 0)
                return 0; /* nothing freed, or the next thread's end will ask again */
        if (ws->trimmed_usec != 0 && now_mono < ws->trimmed_usec + TRIM_INTERVAL_USEC)
                return ws->trimmed_usec + TRIM_INTERVAL_USEC;
        (void) malloc_trim(0);
        ws->trimmed_usec = now_mono;
        ws->trim_pending = false;
        return 0;
}

void threads_finish_or_abandon(struct workers *ws) {
        uint64_t until = now_monotonic_usec() + ABANDON_GRACE_USEC;
        struct timespec ts = { .tv_sec = (time_t) (until / USEC_PER_SEC), .tv_nsec = (long) (until % USEC_PER_SEC) * 1000 };
        pthread_mutex_lock(&ws->pool_lock);
        for (bool running = true; running;) {
                running = false;
                for (struct worker *w = ws->list; w; w = w->next)
                        running = running || (w->kind == WORKER_THREAD && !atomic_load(&w->finished));
                if (running && pthread_cond_timedwait(&ws->pool_done, &ws->pool_lock, &ts) == ETIMEDOUT)
                        break;
        }
        pthread_mutex_unlock(&ws->pool_lock);
        for (struct worker *w = ws->list, *next; w; w = next) {
                next = w->next;
                if (w->kind == WORKER_THREAD && !atomic_load(&w->finished)) {
                        w->cut_why = w->cut_why ?: "coredumpd stopping";
                        (void) worker_abandon(ws, w);
                }
        }
}

void pool_end(struct workers *ws) {
        /* The parked threads end; none runs a crash any more. */
        pthread_mutex_lock(&ws->pool_lock);
        ws->stopping = true;
        pthread_cond_broadcast(&ws->pool_work);
        while (ws->alive > 0)
                pthread_cond_wait(&ws->pool_done, &ws->pool_lock);
        pthread_mutex_unlock(&ws->pool_lock);
        pthread_cond_destroy(&ws->pool_work);
        pthread_cond_destroy(&ws->pool_done);
        pthread_mutex_destroy(&ws->pool_lock);
}
