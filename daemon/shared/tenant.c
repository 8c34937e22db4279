/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "shared/tenant.h"

const char *tenant_format(const struct tenant *t, char buf[static TENANT_TEXT_MAX]) {
        if (t->userns == 0)
                snprintf(buf, TENANT_TEXT_MAX, "%" PRIu32, t->uid);
        else
                snprintf(buf, TENANT_TEXT_MAX, "%" PRIu32 ":%" PRIu64, t->uid, t->userns);
        return buf;
}

static int parse_decimal(const char *s, uint64_t max, const char **ret_end, uint64_t *ret) {
        char *end;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno != 0 || v > max)
                return -EINVAL;
        *ret_end = end;
        *ret = v;
        return 0;
}

int tenant_parse(const char *s, struct tenant *ret) {
        uint64_t uid, userns = 0;
        const char *end;

        if (parse_decimal(s, UINT32_MAX - 1, &end, &uid) < 0)
                return -EINVAL;
        if (*end == ':' && (parse_decimal(end + 1, UINT64_MAX, &end, &userns) < 0 || userns == 0))
                return -EINVAL;
        if (*end != 0)
                return -EINVAL;
        *ret = (struct tenant) { .uid = (uint32_t) uid, .userns = userns };
        return 0;
}
