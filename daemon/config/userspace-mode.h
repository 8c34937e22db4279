/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a self-generated core (Action=userspace) holds besides registers, notes and the first page
 * of every mapped ELF file: policy's UserspaceDump=. */

#include <string.h>

enum userspace_mode {
        USERSPACE_MODE_NONE,            /* no core: acknowledge and leave it to userspace */
        USERSPACE_MODE_STACKS,          /* each thread's stack window around its sp (the default) */
        USERSPACE_MODE_STACKS_HEAP_REFS,/* plus the pages of writable mappings the stacks point into */
        USERSPACE_MODE_ALL_WRITABLE,    /* every readable, writable private mapping */
        _USERSPACE_MODE_MAX,
        _USERSPACE_MODE_INVALID = -1,
};

static inline const char *userspace_mode_to_string(enum userspace_mode m) {
        static const char *const names[_USERSPACE_MODE_MAX] = {
                [USERSPACE_MODE_NONE] = "none",
                [USERSPACE_MODE_STACKS] = "stacks",
                [USERSPACE_MODE_STACKS_HEAP_REFS] = "stacks+heap-refs",
                [USERSPACE_MODE_ALL_WRITABLE] = "all-writable",
        };
        return m >= 0 && m < _USERSPACE_MODE_MAX ? names[m] : NULL;
}

static inline enum userspace_mode userspace_mode_from_string(const char *s) {
        for (int m = 0; m < _USERSPACE_MODE_MAX; m++)
                if (strcmp(s, userspace_mode_to_string((enum userspace_mode) m)) == 0)
                        return (enum userspace_mode) m;
        return _USERSPACE_MODE_INVALID;
}
