/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The policy.d directories (config/conf-files.c: /etc over /run over /usr/lib) read into one policy. */
#include <errno.h>
#include <stdio.h>

#include "config/conf-files.h"
#include "config/policy.h"
#include "shared/cleanup.h"
#include "shared/log.h"

static int policy_load_file(struct policy *p, const struct conf_file *cf) {
        if (cf->masked)
                return 0;

        _cleanup_fclose_ FILE *f = fopen(cf->path, "re");
        if (!f) {
                log_warning_errno(errno, "%s: cannot open: %m, its rules ignored", cf->path);
                return 1;
        }
        return policy_parse_file(p, f, cf->path);
}

int policy_load(const char *const *dirs, struct policy **ret) {
        _cleanup_(conf_file_list_done) struct conf_file_list files = {};
        _cleanup_(policy_unrefp) struct policy *p = NULL;
        int r, problems;

        *ret = NULL;
        problems = conf_files_list(dirs, &files);
        if (problems < 0)
                return problems;

        p = policy_new();
        if (!p)
                return log_error_errno(ENOMEM, "%m");

        /* Every file is read; what is wrong in one costs that rule (or that file) only. */
        for (size_t i = 0; i < files.n; i++) {
                r = policy_load_file(p, &files.files[i]);
                if (r < 0)
                        return r;
                problems += r;
        }

        r = policy_add_builtin_rules(p);
        if (r < 0)
                return log_error_errno(r, "%m");

        *ret = TAKE_PTR(p);
        return problems;
}

const char *const *policy_default_dirs(void) {
        return conf_dirs_default(CONF_POLICY);
}

const char *const *policy_dirs_or_default(char *const *given) {
        return conf_dirs_or_default(given, CONF_POLICY);
}
