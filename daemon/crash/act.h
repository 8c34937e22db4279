/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Carries out the decision once the kernel accepted our ack: kernel → store the streamed core
 * (then vacuum), userspace → leave it to userspace, reject → nothing. Sets crash->result. */

#include <stdatomic.h>

#include "crash/connection.h"
#include "crash/crash.h"

void act_on_decision(const struct connection_env *env, int fd, const atomic_bool *expired, struct crash *c);
