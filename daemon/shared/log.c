/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/log.h"

static log_sink_fn log_sink;
static void *log_sink_userdata;
static int log_max_priority = LOG_INFO;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *log_program_name = "coredumpd";

void log_set_program_name(const char *name) {
        log_program_name = name;
}

void log_set_sink(log_sink_fn sink, void *userdata) {
        pthread_mutex_lock(&log_lock);
        log_sink = sink;
        log_sink_userdata = userdata;
        pthread_mutex_unlock(&log_lock);
}

void log_after_fork(void) {
        pthread_mutex_init(&log_lock, NULL);
        log_sink = NULL;
        log_sink_userdata = NULL;
}

void log_set_max_priority(int priority) {
        log_max_priority = priority;
}

int log_get_max_priority(void) {
        return log_max_priority;
}

/* journald sets JOURNAL_STREAM=dev:ino for the stream it connected to our stderr. */
static bool stderr_is_journal(void) {
        static int cached = -1;
        if (cached >= 0)
                return cached;

        const char *e = getenv("JOURNAL_STREAM");
        struct stat st;
        uint64_t dev, ino;
        cached = e && sscanf(e, "%" SCNu64 ":%" SCNu64, &dev, &ino) == 2 &&
                 fstat(STDERR_FILENO, &st) >= 0 &&
                 (uint64_t) st.st_dev == dev && (uint64_t) st.st_ino == ino;
        return cached;
}

static void log_to_stderr(int priority, const char *message) {
        char line[4096 + 64];
        int n;

        if (stderr_is_journal())
                n = snprintf(line, sizeof line, "<%d>%s\n", priority, message);
        else
                n = snprintf(line, sizeof line, "%s: %s\n", log_program_name, message);
        if (n < 0)
                return;
        size_t len = (size_t) n < sizeof line ? (size_t) n : sizeof line - 1;
        /* One write per line so concurrent workers don't interleave. To journald's stream never a
         * blocking one: while journald is itself held in its dump, a full stream drops the line
         * instead of stopping the daemon that would release it. */
        if (stderr_is_journal())
                (void) !send(STDERR_FILENO, line, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        else
                (void) !write(STDERR_FILENO, line, len);
}

int log_internalv(int priority, int error, const char *crash_tag, const char *format, va_list ap) {
        int ret = error > 0 ? -error : error;

        if (priority > log_max_priority)
                return ret;

        char text[4096], message[4096 + 128];
        int saved = errno;
        errno = error < 0 ? -error : error; /* for %m */
        vsnprintf(text, sizeof text, format, ap);
        errno = saved;

        if (crash_tag)
                snprintf(message, sizeof message, "%s: %s", crash_tag, text);
        else
                snprintf(message, sizeof message, "%s", text);

        pthread_mutex_lock(&log_lock);
        if (log_sink)
                log_sink(priority, message, log_sink_userdata);
        else
                log_to_stderr(priority, message);
        pthread_mutex_unlock(&log_lock);

        return ret;
}

int log_internal(int priority, int error, const char *crash_tag, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        int r = log_internalv(priority, error, crash_tag, format, ap);
        va_end(ap);
        return r;
}

int fail_reason(int r, char *reason, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, size, fmt, ap);
        va_end(ap);
        return r;
}
