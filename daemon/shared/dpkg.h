/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * dpkg's database as text: the status file, a package's file list (info/PKG.list), its md5sums
 * (info/PKG.md5sums) and the diversions. Pure functions on a buffer of known size (not necessarily
 * NUL-terminated): nothing here opens a file. On the host the files are root's; in a container's
 * root they are the container's, hostile: every line is taken within the buffer, every value kept
 * is checked (names per Debian policy, versions per policy) and bounded, and what does not pass is
 * skipped as if it were not there. Read in coredumpd-parser's cell only (parser/package.c) and by
 * dumpctl report from the local host's status.
 */

#include <stdbool.h>
#include <stddef.h>

/* Longest accepted package name, version, architecture (longer ones are invalid, not cut). */
#define DPKG_NAME_MAX 128
#define DPKG_VERSION_MAX 128
#define DPKG_ARCH_MAX 32
/* Longest path kept of a list or diversion. */
#define DPKG_PATH_MAX 1024

struct dpkg_package {
        char name[DPKG_NAME_MAX + 1];
        char version[DPKG_VERSION_MAX + 1];
        char arch[DPKG_ARCH_MAX + 1];           /* "" if the stanza has none */
        char source[DPKG_NAME_MAX + 1];         /* Source:, else the package's own name */
        char source_version[DPKG_VERSION_MAX + 1]; /* "Source: x (v)", else the package's version */
        bool multi_arch_same;                   /* its files are info/NAME:ARCH.* */
        const char *depends;                    /* its Depends: value in the buffer, or NULL */
        size_t depends_size;
};

/* A package name by Debian policy (5.6.1): [a-z0-9][a-z0-9+.-]+, at most DPKG_NAME_MAX. */
bool dpkg_name_valid(const char *s);
/* A version by Debian policy (5.6.12): [epoch:]upstream[-revision]; digits for the epoch,
 * upstream starting with a digit, [A-Za-z0-9.+~-] (and ':' after an epoch), at most
 * DPKG_VERSION_MAX. */
bool dpkg_version_valid(const char *s);
/* An architecture name: [a-z0-9-]+, at most DPKG_ARCH_MAX. */
bool dpkg_arch_valid(const char *s);

/* The next installed package (Status: install|hold ok installed, or triggers-pending/-awaited)
 * at or after *offset in the status text: 1 and *ret, *offset moved past its stanza; 0 at the end.
 * A stanza with an invalid or missing name or version is skipped. */
int dpkg_status_next(const char *text, size_t size, size_t *offset, struct dpkg_package *ret);
/* The installed package name (arch: its architecture, or NULL for any): 1 and *ret, else 0. */
int dpkg_status_find(const char *text, size_t size, const char *name, const char *arch, struct dpkg_package *ret);

/* Whether a file list (one absolute path a line) has path as a line. */
bool dpkg_list_contains(const char *text, size_t size, const char *path);

/* The md5sum md5sums lists for path (absolute; the file names it without the leading '/'):
 * 1 and 32 lowercase hex digits in ret, else 0. */
int dpkg_md5sums_find(const char *text, size_t size, const char *path, char ret[static 33]);

/* A diversion: the file a package ships as from is installed as to, unless by is that package;
 * by is "" for a local diversion (dpkg's ":"). */
struct dpkg_diversion {
        char from[DPKG_PATH_MAX + 1];
        char to[DPKG_PATH_MAX + 1];
        char by[DPKG_NAME_MAX + 1];
};
/* The diversion path is the from or the to of: 1 and *ret, else 0 (the diversions file is triples
 * of lines: from, to, the diverting package or ":"). A triple with an invalid line is skipped. */
int dpkg_diversions_find(const char *text, size_t size, const char *path, struct dpkg_diversion *ret);

/* Calls fn for each dependency name of a Depends: value (the first of alternatives, without
 * version or architecture qualifier), at most max of them, valid names only. Returns the count. */
size_t dpkg_depends_foreach(const char *value, size_t size, size_t max, void (*fn)(const char *name, void *userdata),
                            void *userdata);
