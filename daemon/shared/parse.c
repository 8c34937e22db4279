/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shared/cleanup.h"
#include "shared/parse.h"

#define WHITESPACE " \t\n\r"

int parse_boolean(const char *s) {
        static const char *const yes[] = { "yes", "y", "true", "t", "on", "1" };
        static const char *const no[] = { "no", "n", "false", "f", "off", "0" };

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

/* Unsigned decimal number at the start of s (no sign, no spaces), *end after it. */
static int parse_leading_u64(const char *s, uint64_t *ret, const char **end) {
        if (!isdigit((unsigned char) *s))
                return -EINVAL;

        char *e;
        errno = 0;
        unsigned long long v = strtoull(s, &e, 10);
        if (errno == ERANGE)
                return -ERANGE;
        *ret = v;
        *end = e;
        return 0;
}

struct unit {
        const char *suffix;
        uint64_t factor;
};

/* A number with one of the suffixes in units[] (case-insensitive), times that unit's factor. */
static int parse_with_unit(const char *s, const struct unit *units, size_t n_units, uint64_t *ret) {
        const char *end;
        uint64_t v;

        int r = parse_leading_u64(s, &v, &end);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n_units; i++)
                if (strcasecmp(end, units[i].suffix) == 0) {
                        if (v > UINT64_MAX / units[i].factor)
                                return -ERANGE;
                        *ret = v * units[i].factor;
                        return 0;
                }
        return -EINVAL;
}

int parse_size(const char *s, uint64_t *ret) {
        static const struct unit units[] = {
                { "", 1 },
                { "B", 1 },
                { "K", UINT64_C(1) << 10 }, { "KB", UINT64_C(1) << 10 }, { "KiB", UINT64_C(1) << 10 },
                { "M", UINT64_C(1) << 20 }, { "MB", UINT64_C(1) << 20 }, { "MiB", UINT64_C(1) << 20 },
                { "G", UINT64_C(1) << 30 }, { "GB", UINT64_C(1) << 30 }, { "GiB", UINT64_C(1) << 30 },
                { "T", UINT64_C(1) << 40 }, { "TB", UINT64_C(1) << 40 }, { "TiB", UINT64_C(1) << 40 },
        };

        if (!s)
                return -EINVAL;
        if (strcasecmp(s, "infinity") == 0) {
                *ret = SIZE_INFINITY;
                return 0;
        }
        return parse_with_unit(s, units, ELEMENTSOF(units), ret);
}

/* systemd.time(7)'s units, case-sensitive (M is a month, m a minute). A unit matches where the
 * word after the number is exactly it: "5ms" is milliseconds, "5mz" nothing. */
static const struct unit duration_units[] = {
        { "usec", 1 },                    { "us", 1 },
        { "\u00b5s", 1 } /* MICRO SIGN */, { "\u03bcs", 1 } /* GREEK SMALL LETTER MU */,
        { "msec", USEC_PER_MSEC },        { "ms", USEC_PER_MSEC },
        { "seconds", USEC_PER_SEC },      { "second", USEC_PER_SEC },
        { "sec", USEC_PER_SEC },          { "s", USEC_PER_SEC },
        { "minutes", USEC_PER_MINUTE },   { "minute", USEC_PER_MINUTE },
        { "min", USEC_PER_MINUTE },       { "m", USEC_PER_MINUTE },
        { "hours", USEC_PER_HOUR },       { "hour", USEC_PER_HOUR },
        { "hr", USEC_PER_HOUR },          { "h", USEC_PER_HOUR },
        { "days", USEC_PER_DAY },         { "day", USEC_PER_DAY },          { "d", USEC_PER_DAY },
        { "weeks", USEC_PER_WEEK },       { "week", USEC_PER_WEEK },        { "w", USEC_PER_WEEK },
        { "months", USEC_PER_MONTH },     { "month", USEC_PER_MONTH },      { "M", USEC_PER_MONTH },
        { "years", USEC_PER_YEAR },       { "year", USEC_PER_YEAR },        { "y", USEC_PER_YEAR },
};

static bool is_unit_char(unsigned char c) {
        /* Letters, and the bytes of a UTF-8 µ: a word of them is one unit. */
        return isalpha(c) || c >= 0x80;
}

/* The unit at *p (consumed), or default_unit where there is none. -EINVAL for an unknown word. */
static int duration_unit(const char **p, uint64_t default_unit, uint64_t *ret) {
        size_t n = 0;
        while (is_unit_char((unsigned char) (*p)[n]))
                n++;
        if (n == 0) {
                *ret = default_unit;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(duration_units); i++)
                if (strlen(duration_units[i].suffix) == n && strncmp(*p, duration_units[i].suffix, n) == 0) {
                        *ret = duration_units[i].factor;
                        *p += n;
                        return 0;
                }
        return -EINVAL;
}

int parse_duration_unit(const char *s, uint64_t default_unit, uint64_t *ret_usec) {
        uint64_t total = 0;
        bool any = false;

        if (!s || default_unit == 0)
                return -EINVAL;
        for (const char *p = s;;) {
                p += strspn(p, WHITESPACE);
                if (!*p)
                        break;
                if (!isdigit((unsigned char) *p) && *p != '.')
                        return -EINVAL;         /* no sign: a span is never negative */

                uint64_t whole = 0, frac = 0, frac_div = 1;
                bool digits = false;
                for (; isdigit((unsigned char) *p); p++, digits = true) {
                        uint64_t digit = (uint64_t) (*p - '0');
                        if (whole > UINT64_MAX / 10 || whole * 10 > UINT64_MAX - digit)
                                return -ERANGE;
                        whole = whole * 10 + digit;
                }
                if (*p == '.')
                        for (p++; isdigit((unsigned char) *p); p++, digits = true)
                                if (frac_div < UINT64_C(1000000000000)) {
                                        frac = frac * 10 + (uint64_t) (*p - '0');
                                        frac_div *= 10;
                                }
                if (!digits)
                        return -EINVAL;

                size_t space = strspn(p, WHITESPACE);
                p += space;
                uint64_t unit;
                const char *before = p;
                if (duration_unit(&p, default_unit, &unit) < 0)
                        return -EINVAL;
                /* "1.2.3" is no span, "1 .5" and "1s.5" are two (as systemd reads them). */
                if (p == before && space == 0 && *p)
                        return -EINVAL;

                if (whole > UINT64_MAX / unit)
                        return -ERANGE;
                uint64_t v = whole * unit;
                /* frac / frac_div of a unit: below one unit, so no overflow before the sum. */
                uint64_t part = (uint64_t) ((long double) frac * (long double) unit / (long double) frac_div);
                if (v > UINT64_MAX - part)
                        return -ERANGE;
                v += part;
                if (total > UINT64_MAX - v)
                        return -ERANGE;
                total += v;
                any = true;
        }
        if (!any)
                return -EINVAL;
        *ret_usec = total;
        return 0;
}

int parse_duration(const char *s, uint64_t *ret_usec) {
        return parse_duration_unit(s, USEC_PER_SEC, ret_usec);
}

int parse_uint32(const char *s, uint32_t *ret) {
        const char *end;
        uint64_t v;

        if (!s)
                return -EINVAL;
        int r = parse_leading_u64(s, &v, &end);
        if (r < 0)
                return r;
        if (*end)
                return -EINVAL;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

int parse_id_range(const char *s, uint32_t *ret_low, uint32_t *ret_high) {
        char low[16];
        uint32_t lo, hi;
        int r;

        if (!s)
                return -EINVAL;
        const char *dash = strchr(s, '-');
        if (!dash) {
                r = parse_uint32(s, &lo);
                if (r < 0)
                        return r;
                *ret_low = *ret_high = lo;
                return 0;
        }

        size_t n = (size_t) (dash - s);
        if (n == 0 || n >= sizeof low)
                return -EINVAL;
        memcpy(low, s, n);
        low[n] = 0;
        r = parse_uint32(low, &lo);
        if (r < 0)
                return r;
        r = parse_uint32(dash + 1, &hi);
        if (r < 0)
                return r;
        if (hi < lo)
                return -EINVAL;
        *ret_low = lo;
        *ret_high = hi;
        return 0;
}

const char *format_size(char buf[static 32], uint64_t size) {
        static const char suffixes[] = "TGMK";

        if (size == SIZE_INFINITY)
                return strcpy(buf, "infinity");
        for (int i = 0; i < 4; i++) {
                unsigned shift = 10u * (unsigned) (4 - i);
                uint64_t unit = UINT64_C(1) << shift;
                if (size >= unit && size % unit == 0) {
                        snprintf(buf, 32, "%" PRIu64 "%c", size >> shift, suffixes[i]);
                        return buf;
                }
        }
        snprintf(buf, 32, "%" PRIu64, size);
        return buf;
}

const char *format_duration(char buf[static 32], uint64_t usec) {
        /* The largest unit it is a whole number of; never w, so that days stay days. */
        static const struct unit units[] = {
                { "y", USEC_PER_YEAR }, { "M", USEC_PER_MONTH }, { "d", USEC_PER_DAY }, { "h", USEC_PER_HOUR },
                { "min", USEC_PER_MINUTE }, { "s", USEC_PER_SEC }, { "ms", USEC_PER_MSEC }, { "us", 1 },
        };

        if (usec == 0)
                return strcpy(buf, "0");
        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (usec % units[i].factor == 0) {
                        snprintf(buf, 32, "%" PRIu64 "%s", usec / units[i].factor, units[i].suffix);
                        return buf;
                }
        return buf; /* not reached: everything is a whole number of us */
}
