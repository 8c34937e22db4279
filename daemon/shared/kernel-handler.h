/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The pattern coredumpd-register sets: the kernel connects to coredumpd.socket and negotiates. */
#define COREDUMPD_CORE_PATTERN "@@/run/coredump.socket"

/* Whether coredumpd is the kernel's coredump handler: kernel.core_pattern is ours. pattern gets the
 * pattern as read (one line, truncated to size), or "" when it cannot be read. The file is
 * /proc/sys/kernel/core_pattern, or $COREDUMPD_CORE_PATTERN_FILE (for tests). */
bool kernel_handler_is_ours(char *pattern, size_t size);

/* Logs a warning that crashes are not collected, with the pattern in force and where to look, when
 * coredumpd is not the kernel's handler; returns whether it is. */
bool kernel_handler_warn(void);
