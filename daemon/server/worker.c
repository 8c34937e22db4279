/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "server/deadline.h"
#include "server/worker.h"

/* ---- one worker: made, listed, freed; its clock ------------------------------------------------ */

struct worker *worker_new(struct workers *ws, int fd) {
        struct worker *w = calloc(1, sizeof *w);
        if (!w)
                return NULL;
        w->workers = ws;
        connection_init(&w->conn, fd);
        atomic_init(&w->finished, false);
        crash_init(&w->crash, ws->config);
        return w;
}

void worker_free(struct worker *w) {
        sd_event_source_disable_unref(w->io);
        sd_event_source_disable_unref(w->deadline);
        connection_destroy(&w->conn);
        crash_done(&w->crash);
        fields_done(&w->abandon_record);
        free(w);
}

void worker_link(struct workers *ws, struct worker *w, enum worker_kind kind) {
        w->kind = kind;
        ws->n[kind]++;
        w->next = NULL;
        if (kind == WORKER_QUEUED) {
                *ws->queue_tail = w;
                ws->queue_tail = &w->next;
                if (ws->env->store)
                        metrics_max(ws->env->store->metrics, METRICS_QUEUE_PEAK, ws->n[WORKER_QUEUED]);
        } else {
                w->next = ws->list;
                ws->list = w;
        }
}

void worker_unlink(struct workers *ws, struct worker *w) {
        struct worker **head = w->kind == WORKER_QUEUED ? &ws->queue : &ws->list;

        for (struct worker **p = head; *p; p = &(*p)->next)
                if (*p == w) {
                        *p = w->next;
                        if (w->kind == WORKER_QUEUED && ws->queue_tail == &w->next)
                                ws->queue_tail = p;
                        ws->n[w->kind]--;
                        w->next = NULL;
                        return;
                }
}

uint64_t worker_deadline_next(const struct worker *w, uint64_t now, const char **ret_why) {
        return deadline_next(w->workers->config, w->started_usec, (uint64_t) atomic_load(&w->conn.progress.last_usec),
                             (uint64_t) atomic_load(&w->conn.progress.received), now, ret_why);
}

int worker_arm_deadline(struct worker *w, bool queued) {
        struct workers *ws = w->workers;
        int r = sd_event_now(ws->event, CLOCK_MONOTONIC, &w->started_usec);
        if (r < 0)
                return r;
        uint64_t at = w->started_usec + (queued ? ws->config->queue_deadline_usec : ws->config->deadline_usec);
        if (w->deadline) {
                r = sd_event_source_set_time(w->deadline, at);
                return r < 0 ? r : sd_event_source_set_enabled(w->deadline, SD_EVENT_ONESHOT);
        }
        return sd_event_add_time(ws->event, &w->deadline, CLOCK_MONOTONIC, at, 0, ws->on_deadline, w);
}
