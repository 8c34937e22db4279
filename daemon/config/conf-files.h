/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The ".d" directories coredumpd reads, as systemd reads its own: policy.d/ (the policy rules) and
 * coredumpd.conf.d/ (drop-ins over coredumpd.conf). Each kind lives in three directories, highest
 * priority first:
 *
 *   /etc/coredumpd/NAME.d         the operator's
 *   /run/coredumpd/NAME.d         runtime, generated
 *   /usr/lib/coredumpd/NAME.d     the vendor's
 *
 * Every "*.conf" file of them counts, by its name: a name in a higher directory masks the same
 * name in the lower ones (a link to /dev/null masks it altogether), and the files are taken in
 * lexical order of their names, whichever directory they are in.
 */

#include <stdbool.h>
#include <stddef.h>

enum conf_kind {
        CONF_POLICY,            /* policy.d; $COREDUMPD_POLICY_PATH replaces the defaults */
        CONF_DROPIN,            /* coredumpd.conf.d; $COREDUMPD_CONFIG_DROPIN_PATH replaces them */
        _CONF_KIND_MAX,
};

struct conf_file {
        char *name;             /* the file name, the key for masking */
        char *path;
        bool masked;            /* a link to /dev/null (or another character device) */
};

struct conf_file_list {
        struct conf_file *files;
        size_t n;
};

void conf_file_list_done(struct conf_file_list *l);

/* The *.conf files of dirs (a NULL-terminated list, highest priority first), sorted by name, one
 * per name. A missing directory is fine; one that cannot be read is logged and skipped. Returns the
 * number of directories skipped, or -ENOMEM. */
int conf_files_list(const char *const *dirs, struct conf_file_list *ret);

/* The default directories of a kind, or its environment variable's ':'-separated list. */
const char *const *conf_dirs_default(enum conf_kind kind);
/* The directories given (a NULL-terminated list from repeated options), else the defaults. */
const char *const *conf_dirs_or_default(char *const *given, enum conf_kind kind);
