/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Logging. Every message carries a syslog priority; a message about one crash carries that crash's
 * tag ("pid 1234 (comm)") so an operator can tell which crash an error belongs to. Errors are logged
 * once, where they are handled, with their errno: the format may use %m, which prints the errno
 * passed in.
 *
 * Under systemd (stderr is the journal stream) lines get a "<N>" priority prefix that journald
 * parses; otherwise they go to stderr as "coredumpd: text". Tests install a sink to capture them.
 */

#include <stdarg.h>
#include <stddef.h>
#include <syslog.h>

typedef void (*log_sink_fn)(int priority, const char *message, void *userdata);

/* Writes why into reason (size bytes), for the caller that logs it once, and returns r: "return
 * fail_reason(-EIO, reason, size, "...", ...);". */
int fail_reason(int r, char *reason, size_t size, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

void log_set_sink(log_sink_fn sink, void *userdata);
/* In a child just forked from a threaded process: the log lock may be held by a thread that is not
 * there any more, and the sink may take locks of its own. Starts afresh, logging to stderr. */
void log_after_fork(void);
void log_set_max_priority(int priority);
/* The "name: " prefix of lines on stderr (default "coredumpd"). */
void log_set_program_name(const char *name);
int log_get_max_priority(void);

/* Returns -|error| (or 0 when error is 0) so callers can "return log_..._errno(r, ...)". */
int log_internal(int priority, int error, const char *crash_tag, const char *format, ...)
        __attribute__((format(printf, 4, 5)));
int log_internalv(int priority, int error, const char *crash_tag, const char *format, va_list ap)
        __attribute__((format(printf, 4, 0)));

#define log_full_errno(prio, err, ...) log_internal((prio), (err), NULL, __VA_ARGS__)
#define log_error_errno(err, ...)   log_full_errno(LOG_ERR, (err), __VA_ARGS__)
#define log_warning_errno(err, ...) log_full_errno(LOG_WARNING, (err), __VA_ARGS__)
#define log_debug_errno(err, ...)   log_full_errno(LOG_DEBUG, (err), __VA_ARGS__)
#define log_error(...)   log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_notice(...)  log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_info(...)    log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_debug(...)   log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)

/* The same, about one crash. */
#define log_crash_errno(tag, prio, err, ...) log_internal((prio), (err), (tag), __VA_ARGS__)
#define log_crash(tag, prio, ...) log_internal((prio), 0, (tag), __VA_ARGS__)
