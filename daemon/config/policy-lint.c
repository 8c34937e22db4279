/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rules that parse but contradict themselves, each other or the system: warnings at file:line. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "config/policy.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "shared/log.h"

int read_suid_dumpable(void) {
        _cleanup_free_ char *text = NULL;
        size_t size;

        int r = read_file_at(AT_FDCWD, "/proc/sys/fs/suid_dumpable", 32, &text, &size, NULL);
        if (r < 0)
                return r;
        char *end;
        long v = strtol(text, &end, 10);
        if (end == text || v < 0 || v > 2)
                return -EINVAL;
        return (int) v;
}

/* A rule without a single Match*= takes every crash: nothing after it is ever reached. */
static bool rule_matches_everything(const struct policy_rule *r) {
        return !r->match_exe && !r->match_comm && !r->match_unit && !r->match_slice && !r->match_signature &&
               !r->match_container && !r->match_machine &&
               r->n_match_uid == 0 && r->n_match_gid == 0 && r->n_match_signal == 0 &&
               r->match_dumpable == POLICY_UNSET && r->match_rlimit_zero == POLICY_UNSET && r->n_match_si_code == 0 &&
               r->n_match_fault == 0;
}

#define lint(r, ...) (log_warning("%s:%u: rule '%s': " FIRST(__VA_ARGS__), (r)->source, (r)->line, (r)->name REST(__VA_ARGS__)), 1)
#define FIRST(a, ...) a
#define REST(a, ...) , ##__VA_ARGS__

int policy_lint(const struct policy *p, int suid_dumpable) {
        const struct policy_rule *catch_all = NULL;
        int n = 0;

        for (size_t i = 0; p && i < p->n_rules; i++) {
                const struct policy_rule *r = &p->rules[i];
                if (!r->source)
                        continue; /* the built-ins are fine */

                if (catch_all)
                        n += lint(r, "never matches: rule '%s' at %s:%u before it takes every crash "
                                     "(hint: give that rule a Match*= or move this one into an earlier file)",
                                  catch_all->name, catch_all->source, catch_all->line);
                if (r->action == ACTION_USERSPACE && r->wait == 0 && r->userspace_mode != USERSPACE_MODE_NONE)
                        n += lint(r, "Action=userspace with Wait=no writes no core: the task is released before "
                                     "coredumpd can read it (hint: set Wait=yes, or UserspaceDump=none to only "
                                     "acknowledge the crash)");
                if (r->userspace_mode != POLICY_UNSET && r->action != ACTION_USERSPACE)
                        n += lint(r, "UserspaceDump= has no effect with Action=%s (hint: it applies to "
                                     "Action=userspace only)", action_to_string(r->action));
                if (r->journal_core != POLICY_UNSET && r->journal_core != JOURNAL_CORE_NO && r->action == ACTION_REJECT)
                        n += lint(r, "JournalCore=%s has no effect with Action=reject: no core is kept to "
                                     "compact (hint: it applies to the crashes a rule keeps)",
                                  journal_core_to_string((enum journal_core) r->journal_core));
                if (r->journal_core == JOURNAL_CORE_SYSTEM && r->match_dumpable == 0)
                        n += lint(r, "JournalCore=system puts no core of MatchDumpable=no crashes in the system "
                                     "journal: a root-only core (setuid, or dumped as root) never goes into a "
                                     "journal (hint: dumpctl dump reads it from the store, as root)");
                if (r->match_dumpable == 0 && suid_dumpable >= 0 && suid_dumpable != 2)
                        n += lint(r, "MatchDumpable=no never matches while fs.suid_dumpable=%d: the kernel dumps "
                                     "privileged processes only with fs.suid_dumpable=2 (hint: sysctl "
                                     "fs.suid_dumpable=2, or drop the rule)", suid_dumpable);
                if (!catch_all && rule_matches_everything(r))
                        catch_all = r;
        }
        return n;
}
