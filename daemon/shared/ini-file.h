/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * coredumpd.conf and the policy files, read in systemd.syntax(7)'s syntax, and every error in a file
 * kept, each reported as "file:line: what is wrong (hint: what would be right)":
 *
 *   - a line's leading and trailing whitespace is ignored: an indented Key=Value is a key of its own;
 *   - empty lines, and lines whose first character (after the indentation) is # or ;, are comments;
 *     nowhere else: '#' and ';' within a value are part of it;
 *   - [Section] alone on a line starts a section; every other line is Key=Value, split at the first
 *     '=' (no ':' separator), key and value stripped of whitespace;
 *   - a line ending in a backslash goes on on the next (the backslash becomes a space; comment
 *     lines between are skipped);
 *   - a line (with its continuations) may be INI_LINE_MAX bytes long; a longer one, one with a NUL
 *     byte, a header that is not [Name] and a line that is neither, are errors, left out.
 *
 * The reader is our own, not libinih's: inih's syntax is chosen when inih is compiled
 * (INI_ALLOW_MULTILINE, INI_ALLOW_INLINE_COMMENTS, INI_MAX_LINE, ...), and Debian's libinih1 is
 * built with the defaults: an indented line continues the previous value, ':' separates a key too,
 * ';' after a space starts a comment, and a line is at most 200 bytes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The longest line, with its continuations (systemd takes 1 MiB; a value here needs far less). */
#define INI_LINE_MAX (64 * 1024)

struct ini_error {
        unsigned line;
        unsigned section_seq;   /* the section it was found in (ini_file.section_seq then) */
        char *message;
        char *hint;             /* may be NULL */
};

struct ini_file {
        const char *path;
        const char *manual;     /* "coredumpd.conf(5)": the hint of errors without one of their own */
        const char *consequence; /* what became of a line with an error ("ignored"), or NULL */
        unsigned line;          /* line being parsed */
        unsigned section_line;  /* line of the current section header */
        unsigned section_seq;   /* incremented at every section header */
        unsigned bad_section_seq; /* the last section reported as unknown */
        struct ini_error *errors;
        size_t n_errors;
        bool oom;
};

/* Called for every key=value. Returns 0, or calls ini_file_error() and returns its result. */
typedef int (*ini_entry_fn)(struct ini_file *ini, const char *section, const char *key,
                            const char *value, void *userdata);

/* Records an error at the current line. Returns -EINVAL. */
int ini_file_error(struct ini_file *ini, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The same at a given line. */
int ini_file_error_at(struct ini_file *ini, unsigned line, const char *format, ...)
        __attribute__((format(printf, 3, 4)));
/* Sets the hint of the error recorded last. Returns -EINVAL, so that
 * "return ini_file_error(...), ini_file_hint(...);" reads as one. */
int ini_file_hint(struct ini_file *ini, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* An unknown section, recorded once per section at its header's line. Returns -EINVAL. */
int ini_file_section_error(struct ini_file *ini, const char *section, const char *expected);
/* An unknown key: the hint names the closest of known[] (NULL-terminated) if one is close. */
int ini_file_unknown_key(struct ini_file *ini, const char *key, const char *section, const char *const *known);

/* Parses f into ini (whose path must be set). Errors are recorded in ini, not logged: the caller may
 * add its own checks with ini_file_error_at(), then calls ini_file_report(). Returns -ENOMEM or 0. */
int ini_file_parse(struct ini_file *ini, FILE *f, ini_entry_fn entry, void *userdata);

/* Logs every recorded error, in line order, as "path:line: message[, consequence] (hint: ...)" at
 * LOG_WARNING (what is wrong in a file never stops the rest of it from being used: the caller
 * decides what an error costs and says so in consequence). Returns the number of errors (0: the
 * file was fine), or -ENOMEM. */
int ini_file_report(struct ini_file *ini);
/* Frees the recorded errors. */
void ini_file_done(struct ini_file *ini);
