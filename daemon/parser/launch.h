/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon's two sides of the parser (client.c, keep-client.c) share. */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The parser with req_fd as its stdin, res_fd (or /dev/null, if -1) as its stdout, the n fds at
 * 3, 4, ... (the task's for unwinding, files for --build-ids, the task's root for --keep-files),
 * and mode (NULL, "--record", "--build-ids", ...) as its argument; no environment. uid and gid
 * point at the ids of the request it is handed next: CELL_IDS_ANY there becomes an id of its own
 * (shared/cell-ids.h), held until it is reaped (NULL: the ids stay as they are). */
int parser_spawn(const int *fds, size_t n, int req_fd, int res_fd, const char *mode, uint32_t *uid, uint32_t *gid,
                 pid_t *ret_pid);

struct tenant;
/* One errand of the parser: started with the n fds and mode, handed req (small enough for the pipe,
 * so the write never waits for it; its ids at uid and gid within it, see parser_spawn()), its answer read into buf until it closes its end, cap bytes
 * came, or budget_usec; then it is reaped, killed if it has not ended by then. 0 with *ret_size
 * and *ret_status (0 when it could not be reaped: the answer is then judged alone), or -errno with
 * reason: not started, killed at its deadline (-ETIMEDOUT), the answer unreadable. */
int parser_errand(const int *fds, size_t n, const char *mode, const struct tenant *owner, void *req, size_t req_size,
                  uint32_t *uid, uint32_t *gid, uint64_t budget_usec, void *buf, size_t cap, size_t *ret_size,
                  int *ret_status, char *reason, size_t reason_size);

/* Waits until fd is ready for events: 0, -ETIMEDOUT at the deadline (CLOCK_MONOTONIC, usec), or
 * -errno. */
int parser_wait_fd(int fd, short events, uint64_t deadline_usec);

/* Writes all of buf to fd (best O_NONBLOCK) by the deadline: 0, -ETIMEDOUT, or -errno. */
int parser_write_until(int fd, const void *buf, size_t size, uint64_t deadline_usec);
