/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Names for the numbers that travel through coredumpd: signals, protocol marks, actions. */

#include <stdint.h>

/* "SIGSEGV" for 11; NULL for a number without a name. */
const char *signal_to_name(int sig);
/* Accepts "SIGSEGV", "SEGV" (any case) or a number 1..64; returns the signal or -EINVAL. */
int signal_from_string(const char *s);

/* "REQACK", "MINSIZE", ...; NULL for an unknown mark. */
const char *mark_to_name(uint32_t mark);

enum action {
        ACTION_KERNEL,          /* let the kernel stream the core to us; we store it */
        ACTION_USERSPACE,       /* userspace produces the core itself */
        ACTION_REJECT,          /* no core */
        _ACTION_MAX,
        _ACTION_INVALID = -1,
};

const char *action_to_string(enum action a);
enum action action_from_string(const char *s);
