/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A policy file: parse it (errors are fine), then print and match what parsed. */
#include <stdio.h>
#include <stdlib.h>

#include "config/policy.h"
#include "crash/decide.h"
#include "shared/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct crash_context ctx = {
                .pid = 1, .uid = 1000, .gid = 1000, .comm = (char *) "x", .exe = (char *) "/bin/x (deleted)",
                .signal = 11, .rlimit_known = true, .dumpable = true,
        };
        log_set_max_priority(LOG_CRIT);

        FILE *f = fmemopen((void *) data, size, "r");
        if (!f)
                return 0;
        struct policy *p = policy_new();
        if (p && policy_parse_file(p, f, "fuzz.conf") >= 0) {
                FILE *null = fopen("/dev/null", "w");
                if (null) {
                        policy_print(p, null);
                        fclose(null);
                }
                (void) policy_find_rule(p, &ctx);
        }
        policy_unref(p);
        fclose(f);
        return 0;
}
