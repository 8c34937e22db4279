/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include "config/config.h"

/* A held crash's deadline: started at its slot, bytes last arrived at last (0: none yet), received
 * so far; 0 if it has expired at now (with why), else when to look again. Deadline= without
 * progress; after the first Deadline=, an average below MinRate=; MaxDuration= (or Deadline= +
 * MaxSize= / MinRate=, if sooner) in all. */
uint64_t deadline_next(const struct config *c, uint64_t started, uint64_t last, uint64_t received, uint64_t now,
                       const char **ret_why);
