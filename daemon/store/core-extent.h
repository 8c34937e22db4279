/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * How long an ELF core should be, learnt from its own headers while it streams past.
 *
 * The kernel ends the stream with SHUT_WR whether the dump completed or not, and a peer that dies
 * mid-stream looks the same, so the end of the stream proves nothing. The ELF header and program
 * headers, which come first, say where every segment ends: a core shorter than that is incomplete.
 * The headers are kept as they stream past (bounded by CORE_EXTENT_HEADERS_MAX) and read with
 * libelf; any chunking of the stream gives the same answer. Data that is not an ELF core leaves
 * the extent unknown.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Program header tables beyond this are not followed (the extent stays unknown). */
#define CORE_EXTENT_HEADERS_MAX (4u << 20)

enum core_extent_state {
        CORE_EXTENT_COLLECTING, /* keeping the first header_want bytes */
        CORE_EXTENT_KNOWN,      /* expected size known */
        CORE_EXTENT_UNKNOWN,    /* not an ELF core we understand */
};

struct core_extent {
        enum core_extent_state state;
        uint64_t seen;                  /* bytes fed so far */
        uint8_t *headers;               /* the stream's first header_have bytes */
        size_t header_have, header_want;
        uint64_t expected;              /* end of the furthest header or segment */
};

void core_extent_init(struct core_extent *e);
void core_extent_feed(struct core_extent *e, const void *data, size_t size);
void core_extent_done(struct core_extent *e);

/* True when the headers have been seen; *ret_expected is the size the complete core has. */
bool core_extent_known(const struct core_extent *e, uint64_t *ret_expected);
