/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * How long an ELF core should be, learnt from its own headers once it is in the store.
 *
 * The kernel ends the stream with SHUT_WR whether the dump completed or not, and a peer that dies
 * mid-stream looks the same, so the end of the stream proves nothing. The core's ELF header,
 * program headers and (for more than 65534 of them, PN_XNUM) its first section header say where
 * every part ends: a core shorter than that is incomplete. They are read once, with libelf, from
 * the file the plain core was written to. Data that is not an ELF core leaves the extent unknown.
 */

#include <stdint.h>

/* 1: *ret_expected is the size the complete core has (it may be more than the file holds);
 * 0: unknown (not an ELF core, or headers that make no sense); negative errno on I/O errors. */
int core_extent_of_file(int fd, uint64_t *ret_expected);
