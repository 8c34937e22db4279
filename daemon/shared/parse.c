/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shared/cleanup.h"
#include "shared/parse.h"

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

int parse_duration(const char *s, uint64_t *ret_usec) {
        static const struct unit units[] = {
                { "", USEC_PER_SEC },
                { "s", USEC_PER_SEC }, { "sec", USEC_PER_SEC },
                { "ms", USEC_PER_MSEC }, { "msec", USEC_PER_MSEC },
                { "m", 60 * USEC_PER_SEC }, { "min", 60 * USEC_PER_SEC },
                { "h", 3600 * USEC_PER_SEC }, { "hr", 3600 * USEC_PER_SEC },
                { "d", 86400 * USEC_PER_SEC }, { "day", 86400 * USEC_PER_SEC }, { "days", 86400 * USEC_PER_SEC },
                { "w", 7 * 86400 * USEC_PER_SEC }, { "week", 7 * 86400 * USEC_PER_SEC },
                { "weeks", 7 * 86400 * USEC_PER_SEC },
        };

        if (!s)
                return -EINVAL;
        return parse_with_unit(s, units, ELEMENTSOF(units), ret_usec);
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
        static const struct unit units[] = {
                { "d", 86400 * USEC_PER_SEC }, { "h", 3600 * USEC_PER_SEC }, { "min", 60 * USEC_PER_SEC }, { "s", USEC_PER_SEC }, { "ms", USEC_PER_MSEC },
        };

        if (usec == 0)
                return strcpy(buf, "0");
        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (usec % units[i].factor == 0) {
                        snprintf(buf, 32, "%" PRIu64 "%s", usec / units[i].factor, units[i].suffix);
                        return buf;
                }
        /* Finer than parse_duration() reads: rounded to milliseconds. */
        snprintf(buf, 32, "%" PRIu64 "ms", (usec + USEC_PER_MSEC / 2) / USEC_PER_MSEC);
        return buf;
}
