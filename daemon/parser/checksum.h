/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* MD5 (RFC 1321), for what dpkg's md5sums say of a package's files: whether a file is still the
 * one the package installed. Not for anything that must resist a forger. */

#include <stddef.h>
#include <stdint.h>

struct md5 {
        uint32_t h[4];
        uint64_t length;                /* bytes taken so far */
        unsigned char block[64];
        size_t used;
};

void md5_init(struct md5 *m);
void md5_update(struct md5 *m, const void *data, size_t size);
/* The digest as 32 lowercase hex digits. */
void md5_hex(struct md5 *m, char ret[static 33]);
