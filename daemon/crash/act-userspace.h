/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Action=userspace: the kernel holds the task (WAIT) while coredumpd writes its own core of it
 * (selfdump/selfdump.c) into the store, with the crash-context probe's registers and signal details.
 * UserspaceDump=none, or Wait=no (the task would not be held), only acknowledges. */

#include <stdatomic.h>

#include "crash/connection.h"
#include "crash/crash.h"

void act_userspace(const struct connection_env *env, const atomic_bool *expired, struct crash *c);
