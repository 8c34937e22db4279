/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The signatures this host has recorded a crash of: a crash whose signature is not among them is
 * its signature's first on this host (COREDUMPD_FIRST_SEEN=1, and the hook
 * coredumpd-new-signature@SIGNATURE.service). Host-wide, of every tenant and every action, and not
 * per rate-limit interval (crash/repeats.h counts those, per tenant, and forgets).
 *
 * Kept in the store directory as .signatures-seen, one line "SIGNATURE FIRST-USEC" per signature,
 * appended when a signature is first seen (before its record is written), so that neither a
 * restart nor the daemon idling out makes a signature new again. At most FIRST_SEEN_MAX
 * signatures: past them the one first seen longest ago is forgotten (its next crash is new
 * again); the file is rewritten when it holds twice as many lines.
 */

#include <stdbool.h>
#include <stdint.h>

#define FIRST_SEEN_MAX 65536

struct first_seen;

/* Loads dir_fd/.signatures-seen (missing or malformed lines: left out). dir_fd is not owned. NULL
 * only when out of memory. */
struct first_seen *first_seen_new(int dir_fd);
struct first_seen *first_seen_free(struct first_seen *s);

/* Whether signature (16 hex digits) is seen here for the first time: then it is remembered, with
 * now_usec, and written to the store at once. False for a known one and for anything that is no
 * signature. Thread-safe. */
bool first_seen_take(struct first_seen *s, const char *signature, uint64_t now_usec);

/* How many signatures are known (tests). */
size_t first_seen_count(struct first_seen *s);
