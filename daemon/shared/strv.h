/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* NULL-terminated string lists. */

#include <stddef.h>

size_t strv_length(char *const *l);
/* Appends a copy of s; returns 0 or -ENOMEM. */
int strv_extend(char ***l, const char *s);
char **strv_free(char **l);
/* Splits s at any of the separator characters, dropping empty pieces. NULL on OOM. */
char **strv_split(const char *s, const char *separators);
static inline void strv_freep(char ***l) { strv_free(*l); }
