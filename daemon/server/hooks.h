/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The hook units (crash/notify.h) started off every crash's path: hooks_start() only queues the
 * unit (at most HOOKS_QUEUE_MAX waiting, HOOKS_QUEUE_PER_TENANT of them for one tenant: a tenant's
 * crash loop never takes another's hooks' room; more are dropped and said once), a thread of its own
 * takes them one by one and, where something is wanted by the unit's template, asks systemd to
 * start it: StartUnit(unit, "fail") on the system bus, which queues the start job and answers at
 * once — the job itself is not waited for. A slow, failing or absent systemd or hook costs the
 * daemon a queued entry, never a crash's time.
 *
 * "Wanted by the template": a unit directory of systemd's (HOOKS_UNIT_DIRS) holds an entry in
 * TEMPLATE.wants/, .requires/ or .upholds/ (what `systemctl enable` makes of a hook's
 * WantedBy=coredumpd-crash@.service), or a drop-in in TEMPLATE.d/ (which may add Wants=), or a copy
 * of the template itself in /etc or /run (an administrator's, which may say Wants=). Looked
 * at on the hook thread for each unit, a few stat()s: on a host without hooks nothing is ever
 * sent to systemd, no unit loaded.
 */

#include <stdint.h>
#include <sys/types.h>

#include "crash/notify.h"

#define HOOKS_QUEUE_MAX 64
#define HOOKS_QUEUE_PER_TENANT 8
#define HOOKS_CALL_TIMEOUT_USEC (2 * 1000000ULL)

struct hooks_options {
        /* Where the templates' .wants/ and the rest are looked for (NULL-terminated); NULL:
         * systemd's system unit directories. */
        const char *const *unit_dirs;
        /* The bus systemd is on; NULL: the system bus (sd_bus_open_system(), which takes
         * $DBUS_SYSTEM_BUS_ADDRESS). */
        const char *bus_address;
};

struct hooks;

/* Starts the hook thread. NULL when out of memory or no thread could be made (logged). */
struct hooks *hooks_new(const struct hooks_options *o);
/* Stops the thread: what is queued is dropped, a call under way is not waited for past a short
 * while (the thread is then left to the exit). */
void hooks_free(struct hooks *h);

/* hook_start_fn (crash/notify.h): userdata is the struct hooks. Never blocks. */
void hooks_start(enum hook hook, const char *unit, const struct tenant *tenant, void *userdata);
/* child_stuck_fn (shared/child.h): userdata is the struct hooks. Moves the stuck child pid into a
 * transient scope of its own (coredumpd-stuck-PID.scope), off the unit's control group, on the
 * hooks' thread. Never blocks. */
void hooks_scope_stuck_child(pid_t pid, const struct tenant *owner, void *userdata);

/* Tests: waits until the queue is empty and the thread idle, at most timeout_usec; true if so. */
bool hooks_settle(struct hooks *h, uint64_t timeout_usec);
/* Tests: units started (systemd answered), and those skipped for want of anything wanted. */
unsigned hooks_n_started(struct hooks *h);
/* Tests: stuck children moved into a scope of their own (systemd answered). */
unsigned hooks_n_scoped(struct hooks *h);
/* Tests: units dropped (the queue or the tenant's share of it full, or the stop). */
unsigned hooks_n_dropped(struct hooks *h);
unsigned hooks_n_unwanted(struct hooks *h);
