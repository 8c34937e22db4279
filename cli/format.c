/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl's text helpers: parsing and formatting times, formatting sizes, JSON strings, suffixes. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/parse.h"

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

static uint64_t midnight_usec(int days_back) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
        tm.tm_mday -= days_back;
        tm.tm_isdst = -1;
        return (uint64_t) mktime(&tm) * USEC_PER_SEC;
}

/* "now", "today", "yesterday", "@EPOCH", "-1h", "2h ago", "YYYY-MM-DD[ HH:MM[:SS]]", "HH:MM[:SS]". */
int parse_time(const char *s, uint64_t *ret) {
        static const char *const formats[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d",
                                               "%Y-%m-%dT%H:%M:%S", "%H:%M:%S", "%H:%M" };
        uint64_t u;

        if (strcmp(s, "now") == 0) {
                *ret = now_usec();
                return 0;
        }
        if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0) {
                *ret = midnight_usec(s[0] == 'y');
                return 0;
        }
        if (s[0] == '@') {
                char *end;
                errno = 0;
                unsigned long long sec = strtoull(s + 1, &end, 10);
                if (errno || *end || end == s + 1)
                        return -EINVAL;
                *ret = (uint64_t) sec * USEC_PER_SEC;
                return 0;
        }
        size_t n = strlen(s);
        if (s[0] == '-' || (n > 4 && strcmp(s + n - 4, " ago") == 0)) {
                _cleanup_free_ char *d = s[0] == '-' ? strdup(s + 1) : strndup(s, n - 4);
                if (!d || parse_duration(d, &u) < 0 || u > now_usec())
                        return -EINVAL;
                *ret = now_usec() - u;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(formats); i++) {
                time_t t = time(NULL);
                struct tm tm;
                localtime_r(&t, &tm);
                tm.tm_sec = 0;
                if (i < 4)
                        tm.tm_hour = tm.tm_min = 0;
                const char *end = strptime(s, formats[i], &tm);
                if (!end || *end)
                        continue;
                tm.tm_isdst = -1;
                t = mktime(&tm);
                if (t == (time_t) -1)
                        return -EINVAL;
                *ret = (uint64_t) t * USEC_PER_SEC;
                return 0;
        }
        return -EINVAL;
}

const char *format_time(char buf[static 64], uint64_t usec) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;
        if (usec == 0 || !localtime_r(&t, &tm) || strftime(buf, 64, "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
                return "n/a";
        return buf;
}

const char *format_bytes(char buf[static 32], uint64_t bytes) {
        static const char suffixes[] = "KMGTPE";
        if (bytes < 1024) {
                snprintf(buf, 32, "%" PRIu64 "B", bytes);
                return buf;
        }
        double v = (double) bytes;
        size_t i = 0;
        for (v /= 1024; v >= 1024 && i + 1 < sizeof suffixes - 1; i++)
                v /= 1024;
        snprintf(buf, 32, "%.1f%c", v, suffixes[i]);
        return buf;
}

bool has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);
        return n > k && strcmp(s + n - k, suffix) == 0;
}

void json_string(FILE *f, const char *s) {
        if (!s) {
                fputs("null", f);
                return;
        }
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"':  fputs("\\\"", f); break;
                case '\\': fputs("\\\\", f); break;
                case '\n': fputs("\\n", f); break;
                case '\t': fputs("\\t", f); break;
                case '\r': fputs("\\r", f); break;
                default:
                        if (*p < 0x20 || *p == 0x7f)
                                fprintf(f, "\\u%04x", *p);
                        else
                                fputc(*p, f);
                }
        }
        fputc('"', f);
}
