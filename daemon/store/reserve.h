/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Room in the store, reserved before a core is streamed or made: at most the free space less
 * KeepFree= and less what crashes in flight hold already, and at most what is left of the tenant's
 * (shared/tenant.h: a user, or a container) MaxUsePerUser=. A core is cut (truncated) at its reservation, so that crashes at once cannot fill
 * the file system before any vacuum runs; the reservation is held until the core is compressed
 * (plain and compressed copies are there together meanwhile) and then given back.
 */

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Reserves up to want bytes for a core of owner's (its tenant); returns what was granted (0: no
 * room, why says why). */
uint64_t store_reserve(struct store *s, const struct tenant *owner, uint64_t want, char *why, size_t why_size);
/* Gives a reservation back. */
void store_unreserve(struct store *s, uint64_t granted);
