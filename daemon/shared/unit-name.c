/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "shared/unit-name.h"

static bool kept_as_is(char c, bool leading) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '_' ||
               (c == '.' && !leading);
}

/* Appends s (n bytes) at *at within size; false when it does not fit. */
static bool put(char *buf, size_t size, size_t *at, const char *s, size_t n) {
        if (*at + n >= size)
                return false;
        memcpy(buf + *at, s, n);
        *at += n;
        buf[*at] = 0;
        return true;
}

int unit_name_instance(const char *prefix, const char *instance, const char *suffix, char *buf, size_t size) {
        static const char hex[] = "0123456789abcdef";
        size_t at = 0;

        if (size == 0)
                return -ENAMETOOLONG;
        buf[0] = 0;
        if (!instance || !*instance)
                return -EINVAL;
        if (!put(buf, size, &at, prefix, strlen(prefix)) || !put(buf, size, &at, "@", 1))
                goto too_long;
        for (const char *p = instance; *p; p++) {
                unsigned char c = (unsigned char) *p;
                char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
                bool ok = kept_as_is((char) c, p == instance) ? put(buf, size, &at, p, 1)
                          : c == '/'                          ? put(buf, size, &at, "-", 1)
                                                              : put(buf, size, &at, e, sizeof e);
                if (!ok)
                        goto too_long;
        }
        if (!put(buf, size, &at, ".", 1) || !put(buf, size, &at, suffix, strlen(suffix)) || at > UNIT_NAME_MAX)
                goto too_long;
        return 0;
too_long:
        buf[0] = 0;
        return -ENAMETOOLONG;
}
