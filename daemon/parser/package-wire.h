/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * `coredumpd-parser --package`: the package a kept crash's executable belongs to, found after the
 * release in the cell (parser/package.c), never in the daemon: the ELF package note of the
 * executable where it has one, else dpkg's database of the task's root (the host's, or a
 * container's own: hostile there).
 *
 * Started with the task's root as fd 3 (an O_PATH directory: /proc/<pid>/root opened before the
 * release, or the daemon's own "/" for a task in the host's root); on stdin struct
 * parser_package_request; on stdout the answer, lines "KEY=value\n", at most PARSER_PACKAGE_ANSWER_MAX
 * bytes. The daemon believes it only after package_answer_decode(): every key known and once, every
 * value within its bound and of its characters (names and versions per Debian policy).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/dpkg.h"

#define PARSER_PACKAGE_MAGIC UINT32_C(0x50504443) /* "CDPP" */
#define PARSER_FD_PACKAGE_ROOT 3
#define PARSER_FD_PACKAGE_INDEX_IN 4    /* with PARSER_PACKAGE_INDEX: the kept index, or /dev/null */
#define PARSER_FD_PACKAGE_INDEX_OUT 5   /* and an unnamed file in the store a new one goes into */
#define PARSER_PACKAGE_EXE_MAX 4095
#define PARSER_PACKAGE_ERROR_MAX 200
#define PARSER_PACKAGE_ANSWER_MAX 4096
/* The longest JSON of an ELF package note taken (parser/package-note.h). */
#define PACKAGE_NOTE_JSON_MAX 2048
/* The largest index of the lists the cell writes and the daemon keeps (parser/package-index.h). */
#define PACKAGE_INDEX_FILE_MAX (UINT64_C(64) << 20)

enum {
        PARSER_PACKAGE_CONTAINER = 1u << 0,     /* fd 3 is a root of the task's own, not the host's */
        PARSER_PACKAGE_INDEX = 1u << 1,         /* fds 4 and 5: the index of the lists (parser/package-index.h) */
};

struct parser_package_request {
        uint32_t magic, version;
        uint32_t uid, gid;                      /* never 0 */
        uint32_t flags;                         /* PARSER_PACKAGE_* */
        char exe[PARSER_PACKAGE_EXE_MAX + 1];   /* /proc/<pid>/exe as the daemon read it, NUL-terminated */
};

bool parser_package_request_valid(const struct parser_package_request *req);

enum package_from {
        PACKAGE_FROM_NONE,              /* not attributed: error says why */
        PACKAGE_FROM_NOTE,              /* the executable's ELF package note */
        PACKAGE_FROM_DPKG,              /* dpkg's database of the task's root */
};

enum package_modified {
        PACKAGE_MODIFIED_UNKNOWN,       /* not checked (a note, no md5sums, the file replaced since) */
        PACKAGE_MODIFIED_NO,
        PACKAGE_MODIFIED_YES,           /* its md5sum is not the one dpkg recorded */
};

struct package_info {
        enum package_from from;
        char name[DPKG_NAME_MAX + 1];
        char version[DPKG_VERSION_MAX + 1];
        char arch[DPKG_ARCH_MAX + 1];           /* "" unknown */
        char source[DPKG_NAME_MAX + 1];         /* "" unknown (a note) */
        char source_version[DPKG_VERSION_MAX + 1];
        char file[DPKG_PATH_MAX + 1];           /* the path as the package lists it; "" for a note */
        enum package_modified modified;
        char json[PACKAGE_NOTE_JSON_MAX + 1];   /* the note's JSON; "" for dpkg */
        char error[PARSER_PACKAGE_ERROR_MAX + 1];
        bool index_written;                     /* INDEX=written: a new index is in fd 5 */
};

/* Whether json is one flat object (string, number, true/false/null values) of printable ASCII,
 * nothing but blanks after it. */
bool package_json_valid(const char *json);
/* The string value of key at the top level of a valid flat object (no escapes taken: a value with
 * a backslash is refused): 1 and ret (NUL-terminated, at most size - 1 bytes), else 0. */
int package_json_string(const char *json, const char *key, char *ret, size_t size);

const char *package_from_to_string(enum package_from f);
const char *package_modified_to_string(enum package_modified m);

/* The cell's side: the answer as lines into buf (cap bytes at least PARSER_PACKAGE_ANSWER_MAX):
 * its size. */
size_t package_answer_encode(const struct package_info *p, char *buf, size_t cap);

/* The daemon's side: size bytes the cell sent, checked — at most PARSER_PACKAGE_ANSWER_MAX, lines
 * of known keys each at most once, names per Debian policy (a note's: letters of either case and
 * [0-9+._~-] too), versions per policy, an architecture of [a-z0-9-], a path of printable bytes
 * starting with '/', the JSON a flat object of printable ASCII, the error printable; FROM=none with
 * an error and nothing else, note or dpkg with a name and a version. 0 and *ret, or -EBADMSG with
 * why. Never reads outside buf. */
int package_answer_decode(const char *buf, size_t size, struct package_info *ret, char *why, size_t why_size);
