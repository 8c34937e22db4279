/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/cell-ids.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

/* The stuck work not ended yet (shared/child.h): abandoned children (pid) and crash threads (pid 0);
 * rare, so a list scanned under the lock. */
static pthread_mutex_t abandoned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct abandoned {
        pid_t pid;                      /* 0: a crash thread */
        struct tenant owner;
} *abandoned;
static size_t n_abandoned;

static void abandoned_add(pid_t pid, const struct tenant *owner) {
        pthread_mutex_lock(&abandoned_lock);
        struct abandoned *grown = realloc(abandoned, (n_abandoned + 1) * sizeof *grown);
        if (grown) {
                abandoned = grown;
                abandoned[n_abandoned++] = (struct abandoned) { pid, *owner };
        }
        pthread_mutex_unlock(&abandoned_lock);
}

/* The entry of pid, or (pid 0) one thread of owner's. */
static void abandoned_remove(pid_t pid, const struct tenant *owner) {
        pthread_mutex_lock(&abandoned_lock);
        for (size_t i = 0; i < n_abandoned; i++)
                if (abandoned[i].pid == pid && (pid != 0 || tenant_equal(&abandoned[i].owner, owner))) {
                        abandoned[i] = abandoned[--n_abandoned];
                        break;
                }
        pthread_mutex_unlock(&abandoned_lock);
}

enum stuck_kind { STUCK_ANY, STUCK_THREAD, STUCK_CHILD };

static unsigned abandoned_count(const struct tenant *t, enum stuck_kind kind) {
        unsigned n = 0;

        pthread_mutex_lock(&abandoned_lock);
        for (size_t i = 0; i < n_abandoned; i++)
                n += (!t || tenant_equal(&abandoned[i].owner, t)) &&
                     (kind == STUCK_ANY || (kind == STUCK_THREAD) == (abandoned[i].pid == 0));
        pthread_mutex_unlock(&abandoned_lock);
        return n;
}

unsigned stuck_count(const struct tenant *t) {
        return abandoned_count(t, STUCK_ANY);
}

unsigned stuck_threads(void) {
        return abandoned_count(NULL, STUCK_THREAD);
}

bool stuck_budget_exhausted(const struct tenant *t) {
        unsigned all = stuck_count(NULL);
        if (all >= (tenant_is_system(t) ? STUCK_MAX_SYSTEM : STUCK_MAX))
                return true;
        return stuck_count(t) >= STUCK_MAX_PER_TENANT;
}

void stuck_thread_add(const struct tenant *t) {
        abandoned_add(0, t);
}

void stuck_thread_remove(const struct tenant *t) {
        abandoned_remove(0, t);
}

unsigned child_abandoned(const struct tenant *owner) {
        return abandoned_count(owner, STUCK_CHILD);
}

static void *reap_thread(void *arg) {
        pid_t pid = (pid_t) (intptr_t) arg;
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        cell_ids_reaped(pid);
        abandoned_remove(pid, NULL);
        return NULL;
}

static struct {
        pthread_mutex_t lock;
        child_stuck_fn fn;
        void *userdata;
} stuck_handler = { .lock = PTHREAD_MUTEX_INITIALIZER };

void child_set_stuck_handler(child_stuck_fn fn, void *userdata) {
        pthread_mutex_lock(&stuck_handler.lock);
        stuck_handler.fn = fn;
        stuck_handler.userdata = userdata;
        pthread_mutex_unlock(&stuck_handler.lock);
}

void child_reap_later(pid_t pid, const struct tenant *owner) {
        pthread_t t;
        pthread_attr_t attr;

        /* Counted even without a thread to reap it: it stays, a zombie at least. */
        abandoned_add(pid, owner);
        pthread_mutex_lock(&stuck_handler.lock);
        if (stuck_handler.fn)
                stuck_handler.fn(pid, owner, stuck_handler.userdata);
        pthread_mutex_unlock(&stuck_handler.lock);
        if (pthread_attr_init(&attr) != 0)
                return;
        (void) pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        (void) pthread_attr_setstacksize(&attr, 64 * 1024);
        if (pthread_create(&t, &attr, reap_thread, (void *) (intptr_t) pid) != 0)
                log_warning("Cannot start a thread to reap the stuck child %d; it stays a zombie.", (int) pid);
        pthread_attr_destroy(&attr);
}

bool child_wait_until(pid_t pid, int pidfd, uint64_t deadline_usec, int *ret_status) {
        int status = 0;

        for (;;) {
                uint64_t now = now_monotonic_usec();
                if (pidfd >= 0) {
                        int ms = now >= deadline_usec ? 0 : (int) MIN((deadline_usec - now + 999) / 1000, 1000);
                        struct pollfd p = { .fd = pidfd, .events = POLLIN };
                        int n = poll(&p, 1, ms);
                        if (n > 0)
                                break;
                        if (n < 0 && errno != EINTR)
                                return false;
                } else {
                        pid_t w = waitpid(pid, &status, WNOHANG);
                        if (w == pid) {
                                cell_ids_reaped(pid);
                                if (ret_status)
                                        *ret_status = status;
                                return true;
                        }
                        if (now < deadline_usec)
                                usleep(20000);
                }
                if (now_monotonic_usec() >= deadline_usec)
                        return false;
        }
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        cell_ids_reaped(pid);
        if (ret_status)
                *ret_status = status;
        return true;
}

bool child_kill_and_reap(pid_t pid, int pidfd, const struct tenant *owner, int *ret_status) {
        if (pidfd < 0 || syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) < 0)
                (void) kill(pid, SIGKILL);
        if (child_wait_until(pid, pidfd, now_monotonic_usec() + CHILD_KILL_GRACE_USEC, ret_status))
                return true;
        child_reap_later(pid, owner);
        return false;
}
