/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl check: coredumpd.conf, its drop-ins and the policy checked as the daemon reads them
 * (config/check.c, the code behind `coredumpd --check-config --check-policy`), on the PATH. */
#include <stdio.h>

#include "build-config.h"
#include "config/check.h"
#include "config/config.h"
#include "config/policy.h"
#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"

int verb_check(void) {
        struct config_check c = {
                .config_path = arg.config ?: COREDUMPD_CONFIG_FILE,
                .config_explicit = arg.config != NULL,
                .config_dropin_dirs = config_dropin_dirs(arg.config_dirs, arg.config != NULL),
                .policy_dirs = policy_dirs_or_default(arg.policy_dirs),
                .print_config = true,
                .print_policy = true,
        };

        /* Every warning is the point here, whatever the log level of the other verbs. */
        log_set_max_priority(MAX(log_get_max_priority(), LOG_WARNING));
        int r = config_check_run(&c);
        if (r < 0)
                return EXIT_ERROR;
        return r == 0 ? EXIT_OK : EXIT_ERROR;
}
