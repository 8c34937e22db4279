/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash/repeats.h"
#include "shared/cleanup.h"
#include "shared/log.h"

#define STATE_FILE ".signatures"
#define STATE_FILE_NEW ".signatures.new"

struct repeat {
        struct tenant owner;
        char signature[17];
        uint64_t window_start;          /* usec */
        unsigned count;                 /* crashes in the window */
        uint64_t last;                  /* usec */
        /* The site keys (crash/site.h) last unwound to this signature, the newest first. */
        char sites[REPEAT_SITES][SITE_KEY_SIZE];
};

struct repeats {
        int dir_fd;
        pthread_mutex_t lock;
        struct repeat *items;
        size_t n;
        bool dirty;                     /* counted since the last save */
        /* The saver's own (the loop's), not under the lock: */
        struct repeat *snapshot;        /* the counters as they are written */
        uint64_t saved_mono;            /* CLOCK_MONOTONIC usec of the last save (0: never) */
};

static void repeats_load(struct repeats *r) {
        _cleanup_close_ int fd = openat(r->dir_fd, STATE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return;
        FILE *f = fdopen(TAKE_FD(fd), "re");
        if (!f)
                return;
        char line[256];
        while (fgets(line, sizeof line, f) && r->n < REPEATS_MAX) {
                struct repeat x = {};
                char tenant[TENANT_TEXT_MAX];
                int end = 0;
                /* Lines of before the counters were per owner (four fields): a fresh start. A plain
                 * uid (lines of before tenants) is that uid's. */
                if (sscanf(line, "%31s %16s %" SCNu64 " %u %" SCNu64 "%n", tenant, x.signature, &x.window_start,
                           &x.count, &x.last, &end) != 5 ||
                    strlen(x.signature) != 16 || tenant_parse(tenant, &x.owner) < 0)
                        continue;
                /* Then its site keys, if any (lines of before them have none). */
                const char *p = line + end;
                for (size_t k = 0; k < REPEAT_SITES; k++) {
                        char site[SITE_KEY_SIZE];
                        int used = 0;
                        if (sscanf(p, " %16[0-9a-f]%n", site, &used) != 1 || strlen(site) != 16)
                                break;
                        memcpy(x.sites[k], site, sizeof site);
                        p += used;
                }
                r->items[r->n++] = x;
        }
        fclose(f);
}

/* Writes n counters to a new file and renames it over the old one: 0, or -errno. */
static int repeats_write(int dir_fd, const struct repeat *items, size_t n) {
        _cleanup_close_ int fd = openat(dir_fd, STATE_FILE_NEW, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        FILE *f = fdopen(TAKE_FD(fd), "we");
        if (!f)
                return -errno;
        for (size_t i = 0; i < n; i++) {
                char tenant[TENANT_TEXT_MAX];
                fprintf(f, "%s %s %" PRIu64 " %u %" PRIu64, tenant_format(&items[i].owner, tenant), items[i].signature,
                        items[i].window_start, items[i].count, items[i].last);
                for (size_t k = 0; k < REPEAT_SITES && items[i].sites[k][0]; k++)
                        fprintf(f, " %s", items[i].sites[k]);
                fputc('\n', f);
        }
        if (fclose(f) != 0 || renameat(dir_fd, STATE_FILE_NEW, dir_fd, STATE_FILE) < 0)
                return -errno;
        return 0;
}

/* Saves what changed: a copy of the counters taken under the lock, written without it, so that a
 * crash being counted meanwhile waits for a copy, never for the store. The loop (and the stop) are
 * the only savers. A failed write leaves the counts pending (ENOSPC: the store may be full just
 * then). Best effort: a failure only costs the counts across a restart. */
static int repeats_save(struct repeats *r) {
        pthread_mutex_lock(&r->lock);
        if (!r->dirty) {
                pthread_mutex_unlock(&r->lock);
                return 0;
        }
        size_t n = r->n;
        memcpy(r->snapshot, r->items, n * sizeof r->items[0]);
        r->dirty = false;
        pthread_mutex_unlock(&r->lock);

        int err = repeats_write(r->dir_fd, r->snapshot, n);
        if (err < 0) {
                log_debug_errno(-err, "Cannot save the signature counts: %m");
                pthread_mutex_lock(&r->lock);
                r->dirty = true;
                pthread_mutex_unlock(&r->lock);
        }
        return err;
}

struct repeats *repeats_new(int dir_fd) {
        struct repeats *r = calloc(1, sizeof *r);
        if (!r)
                return NULL;
        r->items = calloc(REPEATS_MAX, sizeof r->items[0]);
        r->snapshot = calloc(REPEATS_MAX, sizeof r->snapshot[0]);
        if (!r->items || !r->snapshot) {
                free(r->items);
                free(r->snapshot);
                free(r);
                return NULL;
        }
        r->dir_fd = dir_fd;
        pthread_mutex_init(&r->lock, NULL);
        repeats_load(r);
        return r;
}

uint64_t repeats_save_due(struct repeats *r, uint64_t now_mono) {
        pthread_mutex_lock(&r->lock);
        bool dirty = r->dirty;
        pthread_mutex_unlock(&r->lock);
        if (!dirty)
                return 0;
        if (r->saved_mono != 0 && now_mono < r->saved_mono + REPEATS_SAVE_USEC)
                return r->saved_mono + REPEATS_SAVE_USEC;
        r->saved_mono = now_mono;
        return repeats_save(r) < 0 ? now_mono + REPEATS_SAVE_USEC : 0;
}

void repeats_sync(struct repeats *r) {
        (void) repeats_save(r);
}

struct repeats *repeats_free(struct repeats *r) {
        if (!r)
                return NULL;
        repeats_sync(r);
        pthread_mutex_destroy(&r->lock);
        free(r->items);
        free(r->snapshot);
        free(r);
        return NULL;
}

static bool repeat_has_site(const struct repeat *x, const char *site) {
        for (size_t k = 0; k < REPEAT_SITES && x->sites[k][0]; k++)
                if (strcmp(x->sites[k], site) == 0)
                        return true;
        return false;
}

static void repeat_drop_site(struct repeat *x, const char *site) {
        for (size_t k = 0; k < REPEAT_SITES && x->sites[k][0]; k++)
                if (strcmp(x->sites[k], site) == 0) {
                        memmove(x->sites[k], x->sites[k + 1], (REPEAT_SITES - 1 - k) * sizeof x->sites[0]);
                        x->sites[REPEAT_SITES - 1][0] = 0;
                        return;
                }
}

/* site was unwound to x's signature: it leads there now, and nowhere else of the owner's (a site
 * seen with two signatures is believed for the latest only). */
static void repeats_learn_site(struct repeats *r, struct repeat *x, const char *site) {
        for (size_t i = 0; i < r->n; i++)
                if (tenant_equal(&r->items[i].owner, &x->owner))
                        repeat_drop_site(&r->items[i], site);
        memmove(x->sites[1], x->sites[0], (REPEAT_SITES - 1) * sizeof x->sites[0]);
        snprintf(x->sites[0], sizeof x->sites[0], "%s", site);
}

static bool window_current(const struct repeat *x, uint64_t interval_usec, uint64_t now_usec) {
        return now_usec >= x->window_start && now_usec - x->window_start < interval_usec;
}

bool repeats_count_by_site(struct repeats *r, const struct tenant *owner, const char *site, unsigned burst, uint64_t interval_usec,
                           uint64_t now_usec, char signature[static 17], unsigned *ret_count) {
        bool found = false;

        if (!site || strlen(site) != 16)
                return false;
        pthread_mutex_lock(&r->lock);
        for (size_t i = 0; i < r->n && !found; i++) {
                struct repeat *x = &r->items[i];
                if (!tenant_equal(&x->owner, owner) || !repeat_has_site(x, site))
                        continue;
                /* Only a repeat: a crash within the burst is unwound, and its site learnt again. */
                if (!window_current(x, interval_usec, now_usec) || x->count < burst)
                        break;
                *ret_count = ++x->count;
                x->last = now_usec;
                memcpy(signature, x->signature, sizeof x->signature);
                found = true;
        }
        if (found)
                r->dirty = true;
        pthread_mutex_unlock(&r->lock);
        return found;
}

unsigned repeats_count(struct repeats *r, const struct tenant *owner, const char *signature, const char *site,
                       uint64_t interval_usec, uint64_t now_usec) {
        return repeats_count_seen(r, owner, signature, site, interval_usec, now_usec, NULL);
}

unsigned repeats_count_seen(struct repeats *r, const struct tenant *owner, const char *signature, const char *site,
                            uint64_t interval_usec, uint64_t now_usec, bool *ret_first_seen) {
        struct repeat *x = NULL;
        bool first_seen = false;
        unsigned n;

        pthread_mutex_lock(&r->lock);
        for (size_t i = 0; i < r->n && !x; i++)
                if (tenant_equal(&r->items[i].owner, owner) && strcmp(r->items[i].signature, signature) == 0)
                        x = &r->items[i];
        if (!x) {
                /* The least recently seen of this owner's, once they hold their share; else a free
                 * counter; else the least recently seen of all. */
                size_t own = 0;
                struct repeat *own_oldest = NULL, *oldest = NULL;
                for (size_t i = 0; i < r->n; i++) {
                        struct repeat *y = &r->items[i];
                        if (tenant_equal(&y->owner, owner)) {
                                own++;
                                if (!own_oldest || y->last < own_oldest->last)
                                        own_oldest = y;
                        }
                        if (!oldest || y->last < oldest->last)
                                oldest = y;
                }
                if (own >= REPEATS_PER_OWNER)
                        x = own_oldest;
                else if (r->n < REPEATS_MAX)
                        x = &r->items[r->n++];
                else
                        x = oldest;
                *x = (struct repeat) { .owner = { .uid = owner->uid, .userns = owner->userns }, .window_start = now_usec };
                first_seen = true;
                snprintf(x->signature, sizeof x->signature, "%s", signature);
        }
        if (!window_current(x, interval_usec, now_usec)) {
                x->window_start = now_usec;
                x->count = 0;
        }
        n = ++x->count;
        x->last = now_usec;
        if (site && strlen(site) == 16)
                repeats_learn_site(r, x, site);
        r->dirty = true;
        pthread_mutex_unlock(&r->lock);
        if (ret_first_seen)
                *ret_first_seen = first_seen;
        return n;
}
