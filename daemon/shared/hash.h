/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * FNV-1a, 64 bits: the stable, dependency-free hash of short texts behind a crash's signature
 * (crash/backtrace.c) and its site key (crash/site.c). Stable across builds and machines: a fleet
 * groups by it.
 */

#include <stdint.h>

#define FNV1A_64_INIT UINT64_C(0xcbf29ce484222325)

static inline uint64_t fnv1a_64(uint64_t h, const char *s) {
        for (; *s; s++) {
                h ^= (unsigned char) *s;
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}
