/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Action=userspace: the kernel holds the task (WAIT) while coredumpd writes its own core of it
 * (selfdump/selfdump.c) into the store, with the crash-context probe's registers and signal
 * details. UserspaceDump=none, or Wait=no (the task would not be held), only acknowledges.
 * Sets the crash's result; a failure goes through crash_fail(). */

#include <stdatomic.h>

#include "crash/crash.h"
#include "selfdump/probe.h"
#include "store/store.h"

/* probe may be NULL (no registers of other threads then); *expired is the connection's deadline. */
void act_userspace(struct store *store, struct probe *probe, const atomic_bool *expired, struct crash *c);
