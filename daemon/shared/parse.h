/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Parsers for the values that appear in coredumpd.conf and policy files. All return 0 or -EINVAL
 * (-ERANGE on overflow) and leave the output untouched on failure. */

#include <stdbool.h>
#include <stdint.h>

#define USEC_PER_SEC  UINT64_C(1000000)
#define USEC_PER_MSEC UINT64_C(1000)
#define SIZE_INFINITY UINT64_MAX

/* yes/no, true/false, on/off, 1/0 → 1/0 */
int parse_boolean(const char *s);
/* "4096", "512K", "2M", "1G", "1T" (binary multiples, optional "B"/"iB"), "infinity" */
int parse_size(const char *s, uint64_t *ret);
/* "60", "60s", "500ms", "2min", "1h", "3d", "2w" → microseconds */
int parse_duration(const char *s, uint64_t *ret_usec);
int parse_uint32(const char *s, uint32_t *ret);
/* "1000" or "1000-1999" */
int parse_id_range(const char *s, uint32_t *ret_low, uint32_t *ret_high);

/* Formats a size as "4096", "2M", "1G" when exact, "infinity" for SIZE_INFINITY. */
const char *format_size(char buf[static 32], uint64_t size);
/* Formats a duration as parse_duration() reads it: "3d", "1h", "5min", "30s", "500ms", "0". */
const char *format_duration(char buf[static 32], uint64_t usec);
