/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <time.h>

#include "server/hooks.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/tenant.h"
#include "shared/timestamp.h"
#include "shared/unit-name.h"

/* systemd's system unit search path (systemd.unit(5)), where a template's .wants/ may be. */
static const char *const default_unit_dirs[] = {
        "/etc/systemd/system.control", "/run/systemd/system.control", "/run/systemd/transient",
        "/run/systemd/generator.early", "/etc/systemd/system", "/etc/systemd/system.attached",
        "/run/systemd/system", "/run/systemd/system.attached", "/run/systemd/generator",
        "/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system",
        "/run/systemd/generator.late", NULL,
};

struct hook_job {
        enum hook hook;
        pid_t stuck_pid;                /* > 0: not a hook, a stuck child to move to a scope */
        struct tenant tenant;
        char unit[UNIT_NAME_MAX + 1];
};

struct hooks {
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;            /* a job queued, the stop, the queue drained */
        struct hook_job queue[HOOKS_QUEUE_MAX];
        size_t head, n;
        bool busy;                      /* the thread works on a job taken off the queue */
        bool stop;
        bool done;                      /* the thread has ended */
        bool drop_said;                 /* a full queue was said since it last drained */
        unsigned n_dropped, n_started, n_unwanted, n_scoped;

        char **unit_dirs;
        char *bus_address;
        sd_bus *bus;                    /* the thread's own */
        bool bus_failure_said;
};

/* Whether dir/name is a directory with an entry (a drop-in directory: a *.conf). */
static bool dir_has_entry(const char *dir, const char *name, const char *suffix) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int) sizeof path)
                return false;
        DIR *d = opendir(path);
        if (!d)
                return false;
        bool found = false;
        for (struct dirent *e; !found && (e = readdir(d));) {
                size_t n = strlen(e->d_name);
                if (e->d_name[0] == '.')
                        continue;
                found = !suffix || (n > strlen(suffix) && strcmp(e->d_name + n - strlen(suffix), suffix) == 0);
        }
        closedir(d);
        return found;
}

static bool template_wanted(const struct hooks *h, enum hook hook) {
        static const struct {
                const char *dir_suffix, *entry_suffix;
        } kinds[] = { { ".wants", NULL }, { ".requires", NULL }, { ".upholds", NULL }, { ".d", ".conf" } };
        const char *template = hook_template(hook);
        char name[PATH_MAX];

        for (char **dir = h->unit_dirs; *dir; dir++) {
                /* A copy of the template of the administrator's (or a runtime one) may say Wants=
                 * itself: not read here, taken as wanting something. */
                if (strncmp(*dir, "/etc/", 5) == 0 || strncmp(*dir, "/run/", 5) == 0) {
                        struct stat st;
                        snprintf(name, sizeof name, "%s/%s", *dir, template);
                        if (stat(name, &st) == 0)
                                return true;
                }
                for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
                        snprintf(name, sizeof name, "%s%s", template, kinds[k].dir_suffix);
                        if (dir_has_entry(*dir, name, kinds[k].entry_suffix))
                                return true;
                }
        }
        return false;
}

static int bus_open(struct hooks *h) {
        sd_bus *bus = NULL;
        int r;

        if (h->bus)
                return 0;
        if (h->bus_address) {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, h->bus_address);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, 1);
                if (r >= 0)
                        r = sd_bus_start(bus);
        } else
                r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_set_method_call_timeout(bus, HOOKS_CALL_TIMEOUT_USEC);
        if (r < 0) {
                sd_bus_flush_close_unref(bus);
                return r;
        }
        h->bus = bus;
        return 0;
}

static void start_unit(struct hooks *h, const struct hook_job *job) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;

        int r = bus_open(h);
        if (r < 0) {
                /* No bus (no dbus on this host, or it is down): said once until one works. */
                log_full_errno(h->bus_failure_said ? LOG_DEBUG : LOG_WARNING, r,
                               "Cannot start hook unit %s: cannot connect to the system bus: %m", job->unit);
                h->bus_failure_said = true;
                return;
        }
        /* "fail": a start never replaces a job queued for the unit (a stop at shutdown). */
        r = sd_bus_call_method(h->bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                               "org.freedesktop.systemd1.Manager", "StartUnit", &error, &reply, "ss", job->unit, "fail");
        if (r < 0) {
                log_warning_errno(r, "Cannot start hook unit %s: %s", job->unit, error.message ? error.message : strerror(-r));
                /* A broken connection is made anew for the next unit. */
                if (!sd_bus_is_open(h->bus))
                        h->bus = sd_bus_flush_close_unref(h->bus);
        } else {
                h->bus_failure_said = false;
                log_info("Started hook unit %s.", job->unit);
        }
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        pthread_mutex_lock(&h->lock);
        if (r >= 0)
                h->n_started++;
        pthread_mutex_unlock(&h->lock);
}

/* A child that SIGKILL did not end (shared/child.h) leaves coredumpd.service's control group for a
 * transient scope of its own, coredumpd-stuck-PID.scope: systemd waits for a unit's processes at its
 * stop, and this one ends only when the kernel lets it (a file system that does not answer), so
 * in the daemon's unit it would hold `systemctl stop coredumpd` until systemd gives up on it. It
 * stays the daemon's child, reaped and counted against its tenant as before. */
static void move_to_scope(struct hooks *h, const struct hook_job *job) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL, *reply = NULL;
        char unit[64], who[TENANT_TEXT_MAX], description[160];

        snprintf(unit, sizeof unit, "coredumpd-stuck-%d.scope", (int) job->stuck_pid);
        snprintf(description, sizeof description, "coredumpd's child %d, stuck in the kernel (a crash of tenant %s)",
                 (int) job->stuck_pid, tenant_format(&job->tenant, who));
        int r = bus_open(h);
        if (r >= 0)
                r = sd_bus_message_new_method_call(h->bus, &m, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                                   "org.freedesktop.systemd1.Manager", "StartTransientUnit");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", unit, "fail");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = sd_bus_message_append(m, "(sv)(sv)(sv)", "PIDs", "au", 1, (uint32_t) job->stuck_pid, "Description", "s",
                                          description, "CollectMode", "s", "inactive-or-failed");
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a(sa(sv))", 0);
        if (r >= 0)
                r = sd_bus_call(h->bus, m, 0, &error, &reply);
        if (r < 0) {
                /* It may have ended meanwhile; or no bus: it stays in the unit (the stop then waits). */
                log_full_errno(LOG_NOTICE, r, "Cannot move the stuck child %d to %s: %s", (int) job->stuck_pid, unit,
                               error.message ? error.message : strerror(-r));
                if (h->bus && !sd_bus_is_open(h->bus))
                        h->bus = sd_bus_flush_close_unref(h->bus);
        } else
                log_info("The stuck child %d is in %s now: it ends when the kernel lets it.", (int) job->stuck_pid, unit);
        sd_bus_error_free(&error);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        pthread_mutex_lock(&h->lock);
        if (r >= 0)
                h->n_scoped++;
        pthread_mutex_unlock(&h->lock);
}

static void *hooks_thread(void *userdata) {
        struct hooks *h = userdata;

        pthread_mutex_lock(&h->lock);
        for (;;) {
                h->busy = false;
                if (h->n == 0) {
                        h->drop_said = false;
                        pthread_cond_broadcast(&h->cond); /* hooks_settle() */
                }
                while (!h->stop && h->n == 0)
                        pthread_cond_wait(&h->cond, &h->lock);
                if (h->stop)
                        break;
                struct hook_job job = h->queue[h->head];
                h->head = (h->head + 1) % HOOKS_QUEUE_MAX;
                h->n--;
                h->busy = true;
                pthread_mutex_unlock(&h->lock);

                if (job.stuck_pid > 0)
                        move_to_scope(h, &job);
                else if (template_wanted(h, job.hook))
                        start_unit(h, &job);
                else {
                        log_debug("Not starting %s: nothing is wanted by %s.", job.unit, hook_template(job.hook));
                        pthread_mutex_lock(&h->lock);
                        h->n_unwanted++;
                        pthread_mutex_unlock(&h->lock);
                }
                pthread_mutex_lock(&h->lock);
        }
        h->done = true;
        pthread_cond_broadcast(&h->cond);
        pthread_mutex_unlock(&h->lock);
        return NULL;
}

static void hooks_release(struct hooks *h) {
        sd_bus_flush_close_unref(h->bus);
        for (char **d = h->unit_dirs; d && *d; d++)
                free(*d);
        free(h->unit_dirs);
        free(h->bus_address);
        pthread_cond_destroy(&h->cond);
        pthread_mutex_destroy(&h->lock);
        free(h);
}

struct hooks *hooks_new(const struct hooks_options *o) {
        const char *const *dirs = o && o->unit_dirs ? o->unit_dirs : default_unit_dirs;
        size_t n = 0;

        struct hooks *h = calloc(1, sizeof *h);
        if (!h)
                return NULL;
        pthread_mutex_init(&h->lock, NULL);
        pthread_cond_init(&h->cond, NULL);
        while (dirs[n])
                n++;
        h->unit_dirs = calloc(n + 1, sizeof *h->unit_dirs);
        bool ok = h->unit_dirs != NULL;
        for (size_t i = 0; ok && i < n; i++)
                ok = (h->unit_dirs[i] = strdup(dirs[i])) != NULL;
        if (ok && o && o->bus_address)
                ok = (h->bus_address = strdup(o->bus_address)) != NULL;
        if (!ok) {
                hooks_release(h);
                log_error_errno(ENOMEM, "No hooks: %m");
                return NULL;
        }
        int r = pthread_create(&h->thread, NULL, hooks_thread, h);
        if (r != 0) {
                hooks_release(h);
                log_error_errno(r, "No hooks: cannot start their thread: %m");
                return NULL;
        }
        return h;
}

void hooks_free(struct hooks *h) {
        if (!h)
                return;
        pthread_mutex_lock(&h->lock);
        h->stop = true;
        pthread_cond_broadcast(&h->cond);
        /* A call to systemd under way ends within HOOKS_CALL_TIMEOUT_USEC; the stop waits half a
         * second at most, then leaves the thread (and what it uses) to the exit. */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 500 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
        }
        while (!h->done)
                if (pthread_cond_timedwait(&h->cond, &h->lock, &until) == ETIMEDOUT)
                        break;
        bool done = h->done;
        pthread_mutex_unlock(&h->lock);
        if (!done) {
                log_debug("A hook unit's start is still under way: not waiting for it.");
                pthread_detach(h->thread);
                return;
        }
        pthread_join(h->thread, NULL);
        hooks_release(h);
}

/* How many of the queued jobs are tenant's (h->lock held). */
static size_t queued_for(const struct hooks *h, const struct tenant *tenant) {
        size_t n = 0;
        for (size_t i = 0; i < h->n; i++)
                n += tenant_equal(&h->queue[(h->head + i) % HOOKS_QUEUE_MAX].tenant, tenant);
        return n;
}

/* Queues job, unless the queue is full or (share) its tenant's share of it; never blocks. */
static void enqueue(struct hooks *h, const struct hook_job *job, const char *unit, bool share) {
        const struct tenant *tenant = &job->tenant;

        pthread_mutex_lock(&h->lock);
        bool full = h->n >= HOOKS_QUEUE_MAX;
        if (h->stop || full || (share && queued_for(h, tenant) >= HOOKS_QUEUE_PER_TENANT)) {
                h->n_dropped++;
                bool say = !h->stop && !h->drop_said;
                h->drop_said = true;
                pthread_mutex_unlock(&h->lock);
                char who[TENANT_TEXT_MAX];
                if (full)
                        log_full_errno(say ? LOG_WARNING : LOG_DEBUG, 0,
                                       "Not starting hook unit %s: %u waiting already (the next such are logged at debug level).",
                                       unit, HOOKS_QUEUE_MAX);
                else
                        log_full_errno(say ? LOG_WARNING : LOG_DEBUG, 0,
                                       "Not starting hook unit %s: %u of tenant %s's waiting already (the next such are logged at debug level).",
                                       unit, HOOKS_QUEUE_PER_TENANT, tenant_format(tenant, who));
                return;
        }
        h->queue[(h->head + h->n) % HOOKS_QUEUE_MAX] = *job;
        h->n++;
        pthread_cond_broadcast(&h->cond);
        pthread_mutex_unlock(&h->lock);
}

void hooks_start(enum hook hook, const char *unit, const struct tenant *tenant, void *userdata) {
        struct hooks *h = userdata;

        if (!h || !unit || !tenant || strlen(unit) > UNIT_NAME_MAX)
                return;
        struct hook_job job = { .hook = hook, .tenant = *tenant };
        snprintf(job.unit, sizeof job.unit, "%s", unit);
        enqueue(h, &job, unit, true);
}

void hooks_scope_stuck_child(pid_t pid, const struct tenant *owner, void *userdata) {
        struct hooks *h = userdata;

        if (!h || pid <= 0 || !owner)
                return;
        /* Not within the tenant's share of hooks: stuck children are few (shared/child.h's budget). */
        struct hook_job job = { .stuck_pid = pid, .tenant = *owner };
        snprintf(job.unit, sizeof job.unit, "coredumpd-stuck-%d.scope", (int) pid);
        enqueue(h, &job, job.unit, false);
}

bool hooks_settle(struct hooks *h, uint64_t timeout_usec) {
        uint64_t until = now_monotonic_usec() + timeout_usec;
        pthread_mutex_lock(&h->lock);
        while ((h->n > 0 || h->busy) && now_monotonic_usec() < until) {
                pthread_mutex_unlock(&h->lock);
                struct timespec t = { .tv_nsec = 10 * 1000000L };
                nanosleep(&t, NULL);
                pthread_mutex_lock(&h->lock);
        }
        bool settled = h->n == 0 && !h->busy;
        pthread_mutex_unlock(&h->lock);
        return settled;
}

/* A counter of h's, read under its lock. */
static unsigned counter(struct hooks *h, const unsigned *c) {
        pthread_mutex_lock(&h->lock);
        unsigned n = *c;
        pthread_mutex_unlock(&h->lock);
        return n;
}

unsigned hooks_n_started(struct hooks *h) {
        return counter(h, &h->n_started);
}

unsigned hooks_n_scoped(struct hooks *h) {
        return counter(h, &h->n_scoped);
}

unsigned hooks_n_dropped(struct hooks *h) {
        return counter(h, &h->n_dropped);
}

unsigned hooks_n_unwanted(struct hooks *h) {
        return counter(h, &h->n_unwanted);
}
