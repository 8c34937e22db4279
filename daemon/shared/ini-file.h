/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * INI files through libinih, with what inih alone does not give: the line number of every entry,
 * a counter that changes at each section header (so repeated [Rule] sections stay apart), a
 * limit on line length that is reported instead of silently splitting the line, and one
 * "file:line: what is wrong" message for the first error in the file.
 */

#include <stdbool.h>
#include <stdio.h>

struct ini_file {
        const char *path;
        unsigned line;          /* line being parsed */
        unsigned section_line;  /* line of the current section header */
        unsigned section_seq;   /* incremented at every section header */
        unsigned error_line;    /* first error, 0 if none */
        char error[256];
};

/* Called for every key=value. Returns 0, or calls ini_file_error() and returns its result. */
typedef int (*ini_entry_fn)(struct ini_file *ini, const char *section, const char *key,
                            const char *value, void *userdata);

/* Records an error at the current line (only the first error in a file is kept). Returns -EINVAL. */
int ini_file_error(struct ini_file *ini, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The same at a given line. */
int ini_file_error_at(struct ini_file *ini, unsigned line, const char *format, ...)
        __attribute__((format(printf, 3, 4)));

/* Parses f into ini (whose path must be set). Errors are recorded in ini, not logged: the caller may
 * add its own checks with ini_file_error_at(), then calls ini_file_report(). Returns -ENOMEM or 0. */
int ini_file_parse(struct ini_file *ini, FILE *f, ini_entry_fn entry, void *userdata);

/* Logs the earliest recorded error as "path:line: message" at LOG_ERR and returns -EBADMSG, or
 * returns 0 when the file was fine. */
int ini_file_report(struct ini_file *ini);
