/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Parsers for the values that appear in coredumpd.conf and policy files. All return 0 or -EINVAL
 * (-ERANGE on overflow) and leave the output untouched on failure. */

#include <stdbool.h>
#include <stdint.h>

#define USEC_PER_SEC    UINT64_C(1000000)
#define USEC_PER_MSEC   UINT64_C(1000)
#define USEC_PER_MINUTE (60 * USEC_PER_SEC)
#define USEC_PER_HOUR   (60 * USEC_PER_MINUTE)
#define USEC_PER_DAY    (24 * USEC_PER_HOUR)
#define USEC_PER_WEEK   (7 * USEC_PER_DAY)
#define USEC_PER_MONTH  UINT64_C(2629800000000)         /* 30.44 days, as systemd */
#define USEC_PER_YEAR   UINT64_C(31557600000000)        /* 365.25 days */
#define SIZE_INFINITY UINT64_MAX

/* yes/no, true/false, on/off, 1/0 → 1/0 */
int parse_boolean(const char *s);
/* "4096", "512K", "2M", "1G", "1T" (binary multiples, optional "B"/"iB"), "infinity" */
int parse_size(const char *s, uint64_t *ret);
/* A time span in systemd.time(7)'s syntax → microseconds: one parser for coredumpd.conf, the policy
 * files and dumpctl. Units, case-sensitive as systemd's: usec us µs, msec ms, seconds second sec s,
 * minutes minute min m, hours hour hr h, days day d, weeks week w, months month M (30.44 days),
 * years year y (365.25 days). Values combine ("1d 12h", "1h30min"), take fractions ("1.5h"), and
 * a number without a unit is of default_unit. -EINVAL (garbage, a sign, nothing), -ERANGE. */
int parse_duration_unit(const char *s, uint64_t default_unit, uint64_t *ret_usec);
/* The same, a bare number being seconds (as systemd's ...Sec= settings). */
int parse_duration(const char *s, uint64_t *ret_usec);
int parse_uint32(const char *s, uint32_t *ret);
/* "1000" or "1000-1999" */
int parse_id_range(const char *s, uint32_t *ret_low, uint32_t *ret_high);

/* Formats a size as "4096", "2M", "1G" when exact, "infinity" for SIZE_INFINITY. */
const char *format_size(char buf[static 32], uint64_t size);
/* Formats a duration as parse_duration() reads it, in its largest whole unit: "1y", "1M", "3d", "1h",
 * "5min", "30s", "500ms", "5us", "0". */
const char *format_duration(char buf[static 32], uint64_t usec);
