/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The package a kept crash belongs to (COREDUMP_PACKAGE_NAME= and the rest): asked of
 * `coredumpd-parser --package` after the release, off the task's wait, never read in the daemon.
 * The parser gets the task's root — a container's own, opened through the pidfd-verified
 * /proc/<pid> before the release (package_prepare()), or the daemon's "/" for a task in the host's
 * root — and the executable's path as /proc/<pid>/exe named it; the daemon believes its answer
 * only after package_answer_decode().
 */

#include "crash/crash.h"
#include "crash/steps.h"

/* Before the ack, while the task is held: its root opened (context_open_root()) so that the
 * package can be looked up after the release, when /proc/<pid>/root is gone; and the crash counted
 * as kept and in flight until package_release() (step_package(), or crash_done()). */
void package_prepare(struct crash *c);
void package_release(struct crash *c);

/* As many other kept crashes in flight as this, and the lookup is left out (a burst): its record
 * says so in COREDUMPD_PACKAGE_ERROR=. */
#define PACKAGE_BURST 2

/* After the release, for a crash whose core is kept: c->package filled (NULL when not looked for:
 * env->packages off, the daemon stopping, out of memory). A parser that fails leaves
 * PACKAGE_FROM_NONE with why. */
void step_package(const struct crash_env *env, struct crash *c);
