/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The check behind `coredumpd --check-config` and `dumpctl check`: the daemon's own loaders, their
 * warnings, the lint, then what is in force. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "config/check.h"
#include "config/conf-files.h"
#include "config/config.h"
#include "config/policy.h"
#include "shared/cleanup.h"
#include "shared/kernel-handler.h"
#include "shared/log.h"

static void config_done_p(struct config *c) {
        config_done(c);
}

int config_check_run(const struct config_check *o) {
        _cleanup_(config_done_p) struct config config;
        _cleanup_(policy_unrefp) struct policy *p = NULL;
        int problems = 0, r;

        config_init_defaults(&config);
        r = config_load_with_dropins(&config, o->config_path, o->config_explicit, o->config_dropin_dirs);
        if (r < 0)
                return r;
        problems += r;

        r = policy_load(o->policy_dirs, &p);
        if (r < 0)
                return r;
        problems += r;
        /* Rules that parse but cannot do what they say: warnings, not errors (the daemon uses them). */
        (void) policy_lint(p, read_suid_dumpable());

        if (o->print_config) {
                _cleanup_(conf_file_list_done) struct conf_file_list dropins = {};
                /* Valid settings that no crash reaches are worth a word. */
                (void) kernel_handler_warn();
                if (access(o->config_path, F_OK) == 0)
                        printf("# %s\n", o->config_path);
                if (conf_files_list(o->config_dropin_dirs, &dropins) >= 0)
                        for (size_t i = 0; i < dropins.n; i++)
                                printf("# %s%s\n", dropins.files[i].path, dropins.files[i].masked ? " (masked)" : "");
                config_print(&config, stdout);
        }
        if (o->print_policy) {
                if (o->print_config)
                        putchar('\n');
                policy_print(p, stdout);
        }
        fflush(stdout);
        if (problems > 0)
                log_error("%d problem%s found; coredumpd leaves out what is wrong and uses the rest, as printed.",
                          problems, problems == 1 ? "" : "s");
        return problems;
}
