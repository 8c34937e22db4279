/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon's two sides of the parser (client.c, keep-client.c) share. */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The parser with req_fd as its stdin, res_fd (or /dev/null, if -1) as its stdout, the n fds at
 * 3, 4, ... (the task's for unwinding, files for --build-ids, the task's root for --keep-files),
 * and mode (NULL, "--record", "--build-ids", ...) as its argument; no environment. */
int parser_spawn(const int *fds, size_t n, int req_fd, int res_fd, const char *mode, pid_t *ret_pid);

/* Waits until fd is ready for events: 0, -ETIMEDOUT at the deadline (CLOCK_MONOTONIC, usec), or
 * -errno. */
int parser_wait_fd(int fd, short events, uint64_t deadline_usec);

/* Writes all of buf to fd (best O_NONBLOCK) by the deadline: 0, -ETIMEDOUT, or -errno. */
int parser_write_until(int fd, const void *buf, size_t size, uint64_t deadline_usec);
