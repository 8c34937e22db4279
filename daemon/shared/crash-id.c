/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "shared/crash-id.h"

#define BOOT_ID_LEN 32
#define HEX_LOWER "0123456789abcdef"
#define DIGITS "0123456789"

static bool boot_id_is_valid(const char *s) {
        return s && strlen(s) == BOOT_ID_LEN && strspn(s, HEX_LOWER) == BOOT_ID_LEN;
}

int crash_id_from_pidfs(char buf[static CRASH_ID_MAX], const char *boot_id, uint64_t inode) {
        buf[0] = 0;
        if (!boot_id_is_valid(boot_id))
                return -EINVAL;
        snprintf(buf, CRASH_ID_MAX, "%s-i%" PRIu64, boot_id, inode);
        return 0;
}

int crash_id_from_start_time(char buf[static CRASH_ID_MAX], const char *boot_id, pid_t pid, uint64_t start_time) {
        buf[0] = 0;
        if (!boot_id_is_valid(boot_id) || pid <= 0)
                return -EINVAL;
        snprintf(buf, CRASH_ID_MAX, "%s-p%" PRIi32 "-s%" PRIu64, boot_id, (int32_t) pid, start_time);
        return 0;
}

/* A decimal number of 1 to 20 digits without a leading zero (but "0" itself) at s; its length or 0. */
static size_t number_span(const char *s) {
        size_t n = strspn(s, DIGITS);
        if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
                return 0;
        return n;
}

bool crash_id_is_valid(const char *s) {
        if (!s || strlen(s) < BOOT_ID_LEN + 3 || strspn(s, HEX_LOWER) != BOOT_ID_LEN || s[BOOT_ID_LEN] != '-')
                return false;
        const char *p = s + BOOT_ID_LEN + 1;
        size_t n;

        if (*p == 'i')
                return (n = number_span(p + 1)) > 0 && p[1 + n] == 0;
        if (*p != 'p' || (n = number_span(p + 1)) == 0)
                return false;
        p += 1 + n;
        if (p[0] != '-' || p[1] != 's' || (n = number_span(p + 2)) == 0)
                return false;
        return p[2 + n] == 0;
}
