/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Unit names for the hooks (server/hooks.c): a template's instance made of a text as
 * systemd-escape(1) makes it, so that the unit's %I gives the text back exactly and %i is a valid
 * part of a unit name whatever the text holds. ASCII letters, digits, ':' and '_' stay, and '.'
 * where it does not lead; '/' becomes '-'; every other byte (a '-' too) becomes "\xNN".
 */

#include <stddef.h>

/* systemd's limit on a unit name, the suffix included. */
#define UNIT_NAME_MAX 255

/* "PREFIX@ESCAPED.SUFFIX" into buf (size bytes; at least UNIT_NAME_MAX + 1 to hold any valid
 * name): 0, or -EINVAL for an empty instance, -ENAMETOOLONG past UNIT_NAME_MAX (then buf is ""). */
int unit_name_instance(const char *prefix, const char *instance, const char *suffix, char *buf, size_t size);
