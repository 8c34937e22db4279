/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "crash/backtrace.h"
#include "crash/user-notes.h"
#include "server/server.h"
#include "server/workers.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

static struct policy *server_policy_acquire(void *userdata) {
        struct server *s = userdata;

        pthread_mutex_lock(&s->policy_lock);
        struct policy *p = policy_ref(s->policy);
        pthread_mutex_unlock(&s->policy_lock);
        return p;
}

int server_reload_policy(struct server *s) {
        struct policy *p = NULL;

        /* What is wrong in a file was logged at its file:line and left out; the rest applies. */
        int r = policy_load(s->policy_dirs, &p);
        if (r < 0) {
                log_error_errno(r, "Policy reload failed (%m), keeping the previous policy.");
                return r;
        }

        pthread_mutex_lock(&s->policy_lock);
        struct policy *old = s->policy;
        s->policy = p;
        pthread_mutex_unlock(&s->policy_lock);
        policy_unref(old);

        log_info("Policy reloaded: %zu rules.", p->n_rules);
        return 0;
}

static void server_wake(struct server *s) {
        uint64_t one = 1;
        (void) !write(s->wake_fd, &one, sizeof one);
}

static void server_update_idle(struct server *s);

/* coredumpd.conf and its drop-ins read anew, on the loop (the loop's own readers of the
 * configuration — admission, fair shares, deadlines, the idle timer — see it at once; each crash
 * took its copy when it came, crash.settings). What is wrong in a file was logged at its
 * file:line and left out, as at start. */
static void server_reload_config(struct server *s) {
        struct config next;

        if (!s->config_path)
                return;
        config_init_defaults(&next);
        int r = config_load_with_dropins(&next, s->config_path, s->config_must_exist, s->config_dropin_dirs);
        if (r < 0) {
                log_error_errno(r, "Configuration reload failed (%m), keeping the previous configuration.");
                config_done(&next);
                return;
        }
        const char *fixed = config_update_runtime(s->config, &next);
        /* Once per new value: a second reload with the same file says nothing more. */
        if (fixed && !(s->restart_warned && strcmp(s->restart_warned, next.storage) == 0)) {
                log_warning("Storage=%s needs a restart: the store stays %s until coredumpd starts again "
                            "(systemctl restart coredumpd, or the next crash after IdleExit=).",
                            next.storage, s->config->storage);
                free(s->restart_warned);
                s->restart_warned = strdup(next.storage);
        } else if (!fixed) {
                free(s->restart_warned); /* back as it runs: a later change is news again */
                s->restart_warned = NULL;
        }
        config_done(&next);
        store_set_limits(s->env.store, s->config);
        server_update_idle(s);
        log_info("Configuration reloaded%s.", r > 0 ? " (with lines left out, see above)" : "");
}

static void server_reload(struct server *s) {
        if (s->notify)
                (void) sd_notify(0, "RELOADING=1");
        server_reload_config(s);
        (void) server_reload_policy(s);
        if (s->notify)
                (void) sd_notify(0, "READY=1");
}

void server_request_reload(struct server *s) {
        atomic_store(&s->reload_requested, true);
        server_wake(s);
}

void server_request_stop(struct server *s) {
        atomic_store(&s->stop_requested, true);
        server_wake(s);
}

/* ---- lifecycle of the loop ------------------------------------------------------------------- */

static void server_maybe_finish(struct server *s) {
        if (s->stopping && workers_busy(s->workers) == 0)
                (void) sd_event_exit(s->event, 0);
}

static void server_begin_stop(struct server *s, const char *why) {
        if (s->stopping)
                return;
        s->stopping = true;
        log_info("Stopping (%s); %u crash(es) still being handled.", why, workers_busy(s->workers));
        if (s->notify)
                (void) sd_notify(0, "STOPPING=1");
        (void) sd_event_source_set_enabled(s->listen_source, SD_EVENT_OFF);
        (void) sd_event_source_set_enabled(s->idle_timer, SD_EVENT_OFF);
        /* Cores still being compressed stay plain (valid, and recorded so); crashes still holding
         * their task are cut in a few seconds, the queued answered now (workers_stop()). */
        store_interrupt(s->env.store);
        workers_stop(s->workers);
        server_maybe_finish(s);
}

static int on_idle(sd_event_source *source, uint64_t usec, void *userdata) {
        server_begin_stop(userdata, "idle");
        return 0;
}

static void server_update_idle(struct server *s) {
        if (s->stopping || s->config->idle_exit_usec == 0)
                return;
        if (workers_busy(s->workers) > 0) {
                (void) sd_event_source_set_enabled(s->idle_timer, SD_EVENT_OFF);
                return;
        }
        uint64_t now;
        (void) sd_event_now(s->event, CLOCK_MONOTONIC, &now);
        (void) sd_event_source_set_time(s->idle_timer, now + s->config->idle_exit_usec);
        (void) sd_event_source_set_enabled(s->idle_timer, SD_EVENT_ONESHOT);
}

/* Housekeeping, off every crash's way to its ack and at most once a second each: the signature
 * counts saved (crash/repeats.h) and the heap trimmed (workers_trim_due()); at once when the last
 * time is a second ago, else when it is, by the timer. */
static void server_housekeeping(struct server *s) {
        uint64_t now, next = 0, due;

        if (sd_event_now(s->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        if (s->env.repeats)
                next = repeats_save_due(s->env.repeats, now);
        due = workers_trim_due(s->workers, now);
        if (due != 0 && (next == 0 || due < next))
                next = due;
        if (next == 0)
                return;
        (void) sd_event_source_set_time(s->housekeeping_timer, next);
        (void) sd_event_source_set_enabled(s->housekeeping_timer, SD_EVENT_ONESHOT);
}

static int on_housekeeping_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        server_housekeeping(userdata);
        return 0;
}

/* A worker was reaped: maybe housekeeping due, maybe idle now, maybe done stopping. */
static void on_workers_changed(void *userdata) {
        struct server *s = userdata;
        server_housekeeping(s);
        server_update_idle(s);
        server_maybe_finish(s);
}

static int on_wake(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct server *s = userdata;
        uint64_t n;

        (void) !read(s->wake_fd, &n, sizeof n);
        if (atomic_exchange(&s->reload_requested, false))
                server_reload(s);
        if (atomic_load(&s->stop_requested))
                server_begin_stop(s, "requested");
        return 0;
}

/* How long the listener rests when accept() finds no fd: the kernel holds the waiting crashes in the
 * socket's backlog meanwhile, and workers give fds back as they end. */
/* On stop, the notes of rejected crashes still queued get this long (then are left). */
#define USER_NOTES_STOP_USEC (1000 * UINT64_C(1000))
#define LISTEN_PAUSE_USEC (250 * UINT64_C(1000))

static int on_resume(sd_event_source *source, uint64_t usec, void *userdata) {
        struct server *s = userdata;
        if (!s->stopping)
                (void) sd_event_source_set_enabled(s->listen_source, SD_EVENT_ON);
        return 0;
}

/* Out of fds, or too few left for a crash (fds_short()): accept() would fail at once again, the loop
 * would spin. Rest instead. */
static void pause_listening(struct server *s, int err) {
        uint64_t now;
        if (s->n_paused++ == 0 || s->n_paused % 100 == 0)
                log_warning_errno(err, "Not accepting crash connections (%m, or too few fds left for one): pausing for %u ms, crashes wait in the "
                                  "socket's backlog (%u times so far).", (unsigned) (LISTEN_PAUSE_USEC / 1000), s->n_paused);
        (void) sd_event_source_set_enabled(s->listen_source, SD_EVENT_OFF);
        if (sd_event_now(s->event, CLOCK_MONOTONIC, &now) < 0)
                now = 0;
        if (s->resume_timer) {
                (void) sd_event_source_set_time(s->resume_timer, now + LISTEN_PAUSE_USEC);
                (void) sd_event_source_set_enabled(s->resume_timer, SD_EVENT_ONESHOT);
        } else if (sd_event_add_time(s->event, &s->resume_timer, CLOCK_MONOTONIC, now + LISTEN_PAUSE_USEC, 0,
                                     on_resume, s) < 0)
                (void) sd_event_source_set_enabled(s->listen_source, SD_EVENT_ON); /* spin rather than stop */
}

/* The fds a crash needs after accept(), before its record: its pidfd (SO_PEERPIDFD, without which
 * it cannot even be told from a stranger and is closed unrecorded), the namespaces walked for its
 * owner, its /proc files, the parser's pipes, the store's file. And the crashes already running
 * take theirs as they go (twice MaxConcurrent= threads, a few each). */
#define FD_RESERVE_BASE 16
#define FD_RESERVE_PER_SLOT 8

/* The counted fds stand, with FD_RESERVE_PER_SLOT more for each crash accepted since, for at most
 * this long: listing /proc/self/fd before every accept() was a good part of a crash loop's repeat
 * under emulation (twice per crash), and what the daemon opens itself is in the reserve anyway. */
#define FDS_COUNT_MAX_AGE_USEC (250 * 1000ULL)

/* The fds this process has open (/proc/self/fd), or -errno. */
static int fds_count(void) {
        DIR *d = opendir("/proc/self/fd");
        if (!d)
                return -errno;
        int open_fds = 0;
        struct dirent *de;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        open_fds++;
        closedir(d); /* its own fd was counted: it is given back */
        return open_fds - 1;
}

/* Fewer fds left than a crash and those running need: accept() would still succeed, with the
 * last fd, and the crash would then be lost without a record (no pidfd). Leave it in the backlog.
 * An estimate from the last count (FDS_COUNT_MAX_AGE_USEC) may only say there are enough: fewer
 * are counted again before they are believed. */
static bool fds_short(struct server *s) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return false;
        if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > UINT_MAX)
                return false;
        uint64_t limit = rl.rlim_cur;
        uint64_t reserve = MIN(FD_RESERVE_BASE + (uint64_t) FD_RESERVE_PER_SLOT * s->config->max_concurrent,
                               limit / 2); /* a low limit still serves crashes */

        uint64_t now = now_monotonic_usec();
        if (s->fds_counted_usec > 0 && now - s->fds_counted_usec < FDS_COUNT_MAX_AGE_USEC) {
                uint64_t estimate = s->fds_counted + (uint64_t) FD_RESERVE_PER_SLOT * s->fds_accepted_since;
                if (limit > estimate && limit - estimate >= reserve)
                        return false;
        }
        int open_fds = fds_count();
        if (open_fds < 0)
                return open_fds != -ENOENT; /* no /proc: accept() alone tells; else it cannot even look */
        s->fds_counted = (unsigned) open_fds;
        s->fds_counted_usec = now;
        s->fds_accepted_since = 0;
        return limit <= (uint64_t) open_fds || limit - (uint64_t) open_fds < reserve;
}

/* One turn of the loop accepts crashes for this long at most (and for one at least): what each takes
 * on the loop (authenticated, asked, decided, a REJECT answered) is slow on a starved machine, and
 * the backlog refills as fast as crashes come. Draining it in one turn kept the loop from the rest
 * for as long as a storm lasted: no deadline, no mark, no slot freed, no watchdog ping (WatchdogSec=
 * aborted the daemon, and the crashes it held were lost). The socket stays readable: the loop
 * comes back to it after what is already due, each source in its turn. */
#define ACCEPT_TURN_USEC (20 * UINT64_C(1000))

static int on_listen(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        struct server *s = userdata;
        uint64_t turn_end = now_monotonic_usec() + ACCEPT_TURN_USEC;

        for (unsigned n = 0;; n++) {
                if (n > 0 && now_monotonic_usec() >= turn_end)
                        break; /* the rest in a later turn */
                if (fds_short(s)) {
                        pause_listening(s, EMFILE);
                        break;
                }
                /* Without SOCK_NONBLOCK the connection is blocking, as the workers expect. */
                int cfd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
                if (cfd < 0) {
                        if (errno == EINTR || errno == ECONNABORTED)
                                continue;
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                                pause_listening(s, errno);
                                break;
                        }
                        if (errno != EAGAIN)
                                log_error_errno(errno, "Cannot accept a crash connection: %m");
                        break;
                }
                s->n_accepted++;
                s->fds_accepted_since++;
                workers_start(s->workers, cfd);
        }

        server_update_idle(s);
        return 0;
}

static int on_signal(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata) {
        struct server *s = userdata;

        if (si->ssi_signo == SIGHUP)
                server_reload(s);
        else
                server_begin_stop(s, si->ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
        return 0;
}

/* ---- construction ---------------------------------------------------------------------------- */

static int server_add_sources(struct server *s, bool handle_signals) {
        int r;

        r = sd_event_add_io(s->event, &s->listen_source, s->listen_fd, EPOLLIN, on_listen, s);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the listening socket: %m");
        r = sd_event_add_io(s->event, &s->wake_source, s->wake_fd, EPOLLIN, on_wake, s);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the wake-up eventfd: %m");
        r = sd_event_add_time(s->event, &s->idle_timer, CLOCK_MONOTONIC, UINT64_MAX, 0, on_idle, s);
        if (r < 0)
                return log_error_errno(r, "Cannot add the idle timer: %m");
        (void) sd_event_source_set_enabled(s->idle_timer, SD_EVENT_OFF);
        r = sd_event_add_time(s->event, &s->housekeeping_timer, CLOCK_MONOTONIC, UINT64_MAX, 0, on_housekeeping_timer, s);
        if (r < 0)
                return log_error_errno(r, "Cannot add the housekeeping timer: %m");
        (void) sd_event_source_set_enabled(s->housekeeping_timer, SD_EVENT_OFF);

        if (handle_signals) {
                r = sd_event_add_signal(s->event, NULL, SIGTERM, on_signal, s);
                if (r >= 0)
                        r = sd_event_add_signal(s->event, NULL, SIGINT, on_signal, s);
                if (r >= 0)
                        r = sd_event_add_signal(s->event, NULL, SIGHUP, on_signal, s);
                if (r < 0)
                        return log_error_errno(r, "Cannot watch signals: %m");
        }
        return 0;
}

int server_new(const struct server_options *o, struct server **ret) {
        struct server *s = calloc(1, sizeof *s);
        int r;

        if (!s) {
                safe_close(o->listen_fd);
                return log_error_errno(ENOMEM, "%m");
        }
        s->listen_fd = o->listen_fd;
        s->wake_fd = -1;
        s->config = o->config;
        s->config_path = o->config_path;
        s->config_must_exist = o->config_must_exist;
        s->config_dropin_dirs = o->config_dropin_dirs;
        atomic_init(&s->reload_requested, false);
        s->notify = o->notify;
        s->policy = policy_ref(o->policy);
        s->policy_dirs = o->policy_dirs;
        pthread_mutex_init(&s->policy_lock, NULL);
        host_view_open(NULL, &s->host);
        unwind_slots_init(&s->unwind_slots);
        s->env = (struct crash_env) {
                .authenticate = o->authenticate,
                .authenticate_userdata = o->authenticate_userdata,
                .policy_acquire = server_policy_acquire,
                .policy_userdata = s,
                .config = o->config,
                .store = o->store,
                .record_sink = o->record_sink,
                .record_userdata = o->record_userdata,
                .user_records = o->user_records,
                .packages = o->packages,
                .probe = o->probe,
                .repeats = o->repeats,
                .host = &s->host,
                .unwind_slots = &s->unwind_slots,
                .exit_wait_usec = o->exit_wait_usec,
                .first_seen = o->first_seen,
                .hook_start = o->hook_start,
                .hook_userdata = o->hook_userdata,
        };

        s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (s->wake_fd < 0) {
                r = log_error_errno(errno, "Cannot create an eventfd: %m");
                goto fail;
        }
        r = sd_event_new(&s->event);
        if (r < 0) {
                log_error_errno(r, "Cannot create the event loop: %m");
                goto fail;
        }
        /* Under WatchdogSec= the loop pings systemd as it turns: a loop wedged for that long (a
         * bug, or a write that never returns) gets the daemon restarted instead of every crash
         * after it waiting on the socket. Without WATCHDOG_USEC this does nothing. */
        if (s->notify && sd_event_set_watchdog(s->event, true) < 0)
                log_warning("Cannot enable the watchdog pings; going on without them.");
        r = workers_new(s->event, s->config, &s->env, on_workers_changed, s, &s->workers);
        if (r < 0)
                goto fail;
        r = server_add_sources(s, o->handle_signals);
        if (r < 0)
                goto fail;

        *ret = s;
        return 0;

fail:
        server_free(s);
        return r;
}

struct server *server_free(struct server *s) {
        if (!s)
                return NULL;

        workers_free(s->workers);
        if (stuck_threads() > 0) {
                /* An abandoned thread may still return into the steps, which use what the crash
                 * environment holds (the host view, the unwinders' semaphore, the policy): left as
                 * it is, never waited for. The process exits next; the kernel ends the rest. */
                log_warning("%u crash thread(s) stuck in the kernel left behind.", stuck_threads());
                return NULL;
        }

        sd_event_source_disable_unref(s->listen_source);
        sd_event_source_disable_unref(s->resume_timer);
        sd_event_source_disable_unref(s->wake_source);
        sd_event_source_disable_unref(s->idle_timer);
        sd_event_source_disable_unref(s->housekeeping_timer);
        sd_event_unref(s->event);
        safe_close(s->listen_fd);
        safe_close(s->wake_fd);
        policy_unref(s->policy);
        free(s->restart_warned);
        host_view_close(&s->host);
        sem_destroy(&s->unwind_slots);
        pthread_mutex_destroy(&s->policy_lock);
        free(s);
        return NULL;
}

/* A turn of the loop (one source's dispatch) this long is told: what runs on the loop is bounded
 * (crashes accepted for ACCEPT_TURN_USEC a turn, each decided from what the kernel and /proc say at
 * once, records written by the recorder's thread), so such a turn is the loop starved of the CPU
 * (a storm on an emulated VM: up to 2 s seen) or a wait that should not be there, to look at long
 * before WatchdogSec= (a minute) aborts the daemon. */
#define LOOP_TURN_SLOW_USEC (1000 * UINT64_C(1000))

/* sd_event_loop(), with each dispatch timed. */
static int server_loop(struct server *s) {
        while (sd_event_get_state(s->event) != SD_EVENT_FINISHED) {
                int r = sd_event_prepare(s->event);
                if (r == 0)
                        r = sd_event_wait(s->event, UINT64_MAX);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                uint64_t t0 = now_monotonic_usec();
                r = sd_event_dispatch(s->event);
                if (r < 0)
                        return r;
                uint64_t took = now_monotonic_usec() - t0;
                if (took > s->longest_turn_usec)
                        s->longest_turn_usec = took;
                if (took >= LOOP_TURN_SLOW_USEC)
                        log_warning("A turn of the event loop took %" PRIu64 " ms (the longest so far %" PRIu64 " ms).",
                                    took / 1000, s->longest_turn_usec / 1000);
        }
        int code = 0;
        int r = sd_event_get_exit_code(s->event, &code);
        return r < 0 ? r : code;
}

int server_run(struct server *s) {
        server_update_idle(s);
        if (s->notify)
                (void) sd_notify(0, "READY=1\nSTATUS=Waiting for crashes.");
        log_debug("Listening for crashes (MaxConcurrent=%u).", s->config->max_concurrent);

        int r = server_loop(s);
        log_info("The longest turn of the event loop took %" PRIu64 " ms.", s->longest_turn_usec / 1000);
        if (s->env.repeats)
                repeats_sync(s->env.repeats); /* what the last second counted */
        user_notes_stop(USER_NOTES_STOP_USEC); /* the notes of rejected crashes still queued */
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        return 0;
}
