/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Time specs in systemd.time(7)'s syntax, parsed; times rendered relative to now. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "shared/cleanup.h"
#include "shared/parse.h"
#include "shared/timestamp.h"

static uint64_t clock_usec(clockid_t clock) {
        struct timespec ts;
        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

uint64_t now_usec(void) {
        return clock_usec(CLOCK_REALTIME);
}

uint64_t now_monotonic_usec(void) {
        return clock_usec(CLOCK_MONOTONIC);
}

struct timespec realtime_after(uint64_t usec) {
        uint64_t at = now_usec() + usec;
        return (struct timespec) { .tv_sec = (time_t) (at / USEC_PER_SEC), .tv_nsec = (long) (at % USEC_PER_SEC) * 1000 };
}

/* ---- timestamps ------------------------------------------------------------------------------ */

static bool has_word_suffix(const char *s, size_t n, const char *suffix) {
        size_t k = strlen(suffix);
        return n > k && strcmp(s + n - k, suffix) == 0 && (s[n - k - 1] == ' ' || s[n - k - 1] == '\t');
}

/* Midnight (local time) of today plus days. */
static int midnight(uint64_t now, int days, uint64_t *ret) {
        time_t t = (time_t) (now / USEC_PER_SEC);
        struct tm tm;
        if (!localtime_r(&t, &tm))
                return -EINVAL;
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
        tm.tm_mday += days;
        tm.tm_isdst = -1;
        t = mktime(&tm);
        if (t == (time_t) -1 || t < 0)
                return -ERANGE;
        *ret = (uint64_t) t * USEC_PER_SEC;
        return 0;
}

static int parse_digits(const char **p, int min, int max, int *ret) {
        int v = 0, n = 0;
        while (isdigit((unsigned char) **p) && n < max) {
                v = v * 10 + (**p - '0');
                (*p)++;
                n++;
        }
        if (n < min || isdigit((unsigned char) **p))
                return -EINVAL;
        *ret = v;
        return 0;
}

static int days_in_month(int year, int month) {
        static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        return month == 2 && leap ? 29 : days[month - 1];
}

static int weekday_from_string(const char *s, size_t n) {
        static const char *const names[] = { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                             "Saturday" };
        for (int i = 0; i < 7; i++)
                if ((n == 3 && strncasecmp(s, names[i], 3) == 0) ||
                    (n == strlen(names[i]) && strncasecmp(s, names[i], n) == 0))
                        return i;
        return -1;
}

/* [Wkd ]YYYY-MM-DD[( |T)HH:MM[:SS[.frac]]][ zone] | HH:MM[:SS[.frac]][ zone] */
static int parse_absolute(const char *s, uint64_t now, uint64_t *ret) {
        const char *p = s;
        int wday = -1, year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
        uint64_t frac_usec = 0;
        bool have_date = false, have_time = false, utc = false;
        long offset = 0; /* seconds east of UTC, with utc */

        if (isalpha((unsigned char) *p)) {
                size_t n = 0;
                while (isalpha((unsigned char) p[n]))
                        n++;
                wday = weekday_from_string(p, n);
                if (wday < 0 || (p[n] != ' ' && p[n] != '\t'))
                        return -EINVAL;
                p += n;
                p += strspn(p, " \t");
        }

        /* A date has a '-' after four digits; a time a ':' after one or two. */
        if (strspn(p, "0123456789") == 4 && p[4] == '-') {
                if (parse_digits(&p, 4, 4, &year) < 0 || *p++ != '-' || parse_digits(&p, 1, 2, &month) < 0 ||
                    *p++ != '-' || parse_digits(&p, 1, 2, &day) < 0)
                        return -EINVAL;
                if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month))
                        return -EINVAL;
                have_date = true;
                if ((*p == ' ' || *p == 'T') && isdigit((unsigned char) p[1]))
                        p++;
        }
        if (isdigit((unsigned char) *p)) {
                if (parse_digits(&p, 1, 2, &hour) < 0 || *p++ != ':' || parse_digits(&p, 2, 2, &minute) < 0)
                        return -EINVAL;
                if (*p == ':') {
                        p++;
                        if (parse_digits(&p, 2, 2, &second) < 0)
                                return -EINVAL;
                        if (*p == '.') {
                                uint64_t scale = 100000;
                                bool digits = false;
                                for (p++; isdigit((unsigned char) *p); p++, digits = true) {
                                        frac_usec += (uint64_t) (*p - '0') * scale;
                                        scale /= 10;
                                }
                                if (!digits)
                                        return -EINVAL;
                        }
                }
                if (hour > 23 || minute > 59 || second > 60)
                        return -EINVAL;
                have_time = true;
        }
        if (!have_date && !have_time)
                return -EINVAL;

        p += strspn(p, " \t");
        if (strcasecmp(p, "UTC") == 0 || strcasecmp(p, "GMT") == 0 || strcmp(p, "Z") == 0)
                utc = true;
        else if ((*p == '+' || *p == '-') && have_time) {
                /* +HH:MM or +HHMM */
                int sign = *p == '-' ? -1 : 1;
                p++;
                if (!isdigit((unsigned char) p[0]) || !isdigit((unsigned char) p[1]))
                        return -EINVAL;
                int oh = (p[0] - '0') * 10 + (p[1] - '0');
                p += 2;
                if (*p == ':')
                        p++;
                int om;
                if (parse_digits(&p, 2, 2, &om) < 0 || *p || oh > 14 || om > 59)
                        return -EINVAL;
                utc = true;
                offset = sign * (oh * 3600L + om * 60L);
        } else if (*p)
                return -EINVAL;

        time_t base = (time_t) (now / USEC_PER_SEC) + offset;
        struct tm tm;
        if (!(utc ? gmtime_r(&base, &tm) : localtime_r(&base, &tm)))
                return -EINVAL;
        if (have_date) {
                tm.tm_year = year - 1900;
                tm.tm_mon = month - 1;
                tm.tm_mday = day;
        }
        tm.tm_hour = hour;
        tm.tm_min = minute;
        tm.tm_sec = second;
        tm.tm_isdst = -1;
        time_t t = utc ? timegm(&tm) : mktime(&tm);
        if (t == (time_t) -1)
                return -EINVAL;
        if (utc)
                t -= offset;
        if (t < 0)
                return -ERANGE;

        if (wday >= 0) {
                /* The weekday given must be the date's (in the zone given). */
                time_t local = t + offset;
                struct tm check;
                if (!(utc ? gmtime_r(&local, &check) : localtime_r(&local, &check)) || check.tm_wday != wday)
                        return -EINVAL;
        }
        *ret = (uint64_t) t * USEC_PER_SEC + frac_usec;
        return 0;
}

int parse_timestamp(const char *s, uint64_t now, uint64_t *ret_usec) {
        uint64_t span;
        int r;

        if (!s)
                return -EINVAL;
        s += strspn(s, " \t");
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
                n--;
        _cleanup_free_ char *t = strndup(s, n);
        if (!t)
                return -ENOMEM;
        if (n == 0)
                return -EINVAL;

        if (strcmp(t, "now") == 0) {
                *ret_usec = now;
                return 0;
        }
        if (strcmp(t, "today") == 0)
                return midnight(now, 0, ret_usec);
        if (strcmp(t, "yesterday") == 0)
                return midnight(now, -1, ret_usec);
        if (strcmp(t, "tomorrow") == 0)
                return midnight(now, 1, ret_usec);

        if (t[0] == '@') {
                /* Seconds since the epoch, possibly with a fraction. */
                if (!isdigit((unsigned char) t[1]) || strspn(t + 1, "0123456789.") != n - 1)
                        return -EINVAL;
                r = parse_duration(t + 1, &span);
                if (r < 0)
                        return r;
                *ret_usec = span;
                return 0;
        }

        if (t[0] == '-' || t[0] == '+') {
                r = parse_duration(t + 1, &span);
                if (r < 0)
                        return r;
                goto relative;
        }
        if (has_word_suffix(t, n, "ago") || has_word_suffix(t, n, "left")) {
                bool ago = has_word_suffix(t, n, "ago");
                t[n - (ago ? 3 : 4)] = 0;
                r = parse_duration(t, &span);
                if (r < 0)
                        return r;
                t[0] = ago ? '-' : '+';
                goto relative;
        }
        return parse_absolute(t, now, ret_usec);

relative:
        if (t[0] == '-') {
                if (span > now)
                        return -ERANGE;
                *ret_usec = now - span;
        } else {
                if (span > UINT64_MAX - now)
                        return -ERANGE;
                *ret_usec = now + span;
        }
        return 0;
}

/* ---- relative rendering ---------------------------------------------------------------------- */

static const char *plural(uint64_t n, const char *one, const char *many) {
        return n == 1 ? one : many;
}

/* "N<sep>UNIT", and " R<sep>REST_UNIT" after it when R > 0. */
static void two_units(char *span, size_t size, uint64_t n, const char *unit, uint64_t rest, const char *rest_unit,
                      const char *sep) {
        int len = snprintf(span, size, "%" PRIu64 "%s%s", n, sep, unit);
        if (rest > 0 && len > 0 && (size_t) len < size)
                snprintf(span + len, size - (size_t) len, " %" PRIu64 "%s%s", rest, sep, rest_unit);
}

const char *format_timestamp_relative(char buf[static 64], uint64_t usec, uint64_t now) {
        bool future = usec > now;
        uint64_t d = future ? usec - now : now - usec;
        const char *when = future ? "" : " ago";
        const char *in = future ? "in " : "";
        char span[48];

        if (d < USEC_PER_SEC)
                return strcpy(buf, "now");
        /* Years, months and weeks: the unit and, when there is one, the next smaller one. */
        static const struct {
                uint64_t usec, next_usec;
                const char *one, *many, *next_one, *next_many;
        } large[] = {
                { USEC_PER_YEAR, USEC_PER_MONTH, "year", "years", "month", "months" },
                { USEC_PER_MONTH, USEC_PER_DAY, "month", "months", "day", "days" },
                { USEC_PER_WEEK, USEC_PER_DAY, "week", "weeks", "day", "days" },
        };
        size_t k = 0;
        while (k < sizeof large / sizeof large[0] && d < large[k].usec)
                k++;
        if (k < sizeof large / sizeof large[0]) {
                uint64_t n = d / large[k].usec, rest = (d % large[k].usec) / large[k].next_usec;
                two_units(span, sizeof span, n, plural(n, large[k].one, large[k].many), rest,
                          plural(rest, large[k].next_one, large[k].next_many), " ");
        } else if (d >= 2 * USEC_PER_DAY)
                snprintf(span, sizeof span, "%" PRIu64 " days", d / USEC_PER_DAY);
        else if (d >= 25 * USEC_PER_HOUR)
                snprintf(span, sizeof span, "1 day %" PRIu64 "h", (d - USEC_PER_DAY) / USEC_PER_HOUR);
        else if (d >= 6 * USEC_PER_HOUR)
                snprintf(span, sizeof span, "%" PRIu64 "h", d / USEC_PER_HOUR);
        else if (d >= USEC_PER_HOUR)
                two_units(span, sizeof span, d / USEC_PER_HOUR, "h", (d % USEC_PER_HOUR) / USEC_PER_MINUTE, "min", "");
        else if (d >= 5 * USEC_PER_MINUTE)
                snprintf(span, sizeof span, "%" PRIu64 "min", d / USEC_PER_MINUTE);
        else if (d >= USEC_PER_MINUTE)
                two_units(span, sizeof span, d / USEC_PER_MINUTE, "min", (d % USEC_PER_MINUTE) / USEC_PER_SEC, "s", "");
        else
                snprintf(span, sizeof span, "%" PRIu64 "s", d / USEC_PER_SEC);

        snprintf(buf, 64, "%s%s%s", in, span, when);
        return buf;
}
