/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl's text helpers: formatting times and sizes, JSON strings, suffixes. */
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

const char *format_time(char buf[static 64], uint64_t usec) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;
        if (usec == 0 || !localtime_r(&t, &tm) || strftime(buf, 64, "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
                return "n/a";
        return buf;
}

const char *format_time_short(char buf[static 32], uint64_t usec) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;
        if (usec == 0 || !localtime_r(&t, &tm) || strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm) == 0)
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
