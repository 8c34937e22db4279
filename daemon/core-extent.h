/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * How long an ELF core should be, learnt from its own headers while it streams past.
 *
 * The kernel ends the stream with SHUT_WR whether the dump completed or not, and a peer that dies
 * mid-stream looks the same, so the end of the stream proves nothing. The ELF header and program
 * headers, which come first, say where every segment ends: a core shorter than that is incomplete.
 * Works in constant memory on any chunking of the stream. Data that is not an ELF core of this
 * machine's byte order leaves the extent unknown.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum core_extent_state {
        CORE_EXTENT_HEADER,     /* collecting the ELF header */
        CORE_EXTENT_PHDRS,      /* collecting program headers */
        CORE_EXTENT_KNOWN,      /* expected size known */
        CORE_EXTENT_UNKNOWN,    /* not an ELF core we understand */
};

struct core_extent {
        enum core_extent_state state;
        uint64_t seen;                  /* bytes fed so far */
        uint8_t header[64];
        size_t header_want;
        bool is64;
        uint64_t phoff, phentsize, phnum;
        uint8_t entry[64];
        size_t entry_have;
        uint64_t entries_done;
        uint64_t expected;              /* end of the furthest header or segment seen so far */
};

void core_extent_init(struct core_extent *e);
void core_extent_feed(struct core_extent *e, const void *data, size_t size);

/* True when the headers have been seen; *ret_expected is the size the complete core has. */
bool core_extent_known(const struct core_extent *e, uint64_t *ret_expected);
