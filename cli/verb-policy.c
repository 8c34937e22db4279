/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl policy: the effective policy rules, from the policy directories the options select, after
 * the warnings for rules that cannot do what they say. */
#include <stdio.h>

#include "config/policy.h"
#include "dumpctl.h"
#include "shared/cleanup.h"

int verb_policy(void) {
        _cleanup_(policy_unrefp) struct policy *p = NULL;

        int r = policy_load(policy_dirs_or_default(arg.policy_dirs), &p);
        if (r < 0)
                return EXIT_ERROR;
        (void) policy_lint(p, read_suid_dumpable());
        policy_print(p, stdout);
        return r == 0 ? EXIT_OK : EXIT_ERROR;
}
