/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The operator's check of what they wrote: coredumpd.conf with its drop-ins and the policy.d files,
 * read exactly as the daemon reads them (the same loaders), every wrong line reported once as
 * "file:line: what, ignored (hint: ...)", the rules that cannot do what they say warned about, then
 * what is in force printed. One function behind `coredumpd --check-config`/`--check-policy` and
 * `dumpctl check` (on the PATH), so the two can never disagree.
 */

#include <stdbool.h>

struct config_check {
        const char *config_path;                /* coredumpd.conf (or --config=) */
        bool config_explicit;                   /* --config= given: it must exist, no default drop-ins */
        const char *const *config_dropin_dirs;  /* config_dropin_dirs() */
        const char *const *policy_dirs;         /* policy_dirs_or_default() */
        bool print_config;                      /* the effective configuration, with the files read */
        bool print_policy;                      /* the effective rules */
};

/* Returns the number of problems found (lines, rules or files the daemon ignores; 0: all clean),
 * or -errno when the check itself could not be made. Problems are logged (stderr), the effective
 * configuration and rules go to stdout. */
int config_check_run(const struct config_check *c);
