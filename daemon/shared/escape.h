/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Strings from a crashing process (comm, exe, cmdline, cgroup) are hostile: they may hold newlines,
 * slashes, control bytes or invalid UTF-8. They are escaped before they reach a log line, a journal
 * field, an xattr or a file name, and never used as a path.
 */

#include <stddef.h>

/* Printable ASCII and valid non-control UTF-8 stay; '\\', control bytes, invalid bytes and the
 * bidi and line-separator format characters (U+061C, U+200E/F, U+2028-202E, U+2066-2069) become
 * \\, \n, \t, \r or \xNN per byte. Returns a new string, NULL on OOM. */
char *escape_text(const void *data, size_t size);

/* Text of many lines from a crashing process (/proc/pid/status, maps, limits): as escape_text(), but
 * newlines and tabs stay as they are, so that the lines and their columns read as the kernel wrote
 * them. */
char *escape_lines(const void *data, size_t size);

/* /proc/pid/cmdline (NUL-separated arguments) as one line: each argument escaped as above, with
 * spaces inside an argument as \x20, arguments joined by single spaces. */
char *escape_cmdline(const void *data, size_t size);

/* A safe file-name component: only [A-Za-z0-9_+@-] stay, every other byte becomes \xNN (so '.'
 * and '/' can never appear). An empty input becomes "unknown". */
char *escape_filename_part(const char *s);
