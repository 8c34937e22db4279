/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The effective rules printed back in the file format (coredumpd --check-policy, dumpctl policy). */
#include <inttypes.h>
#include <stdio.h>

#include "config/policy.h"
#include "shared/names.h"
#include "shared/parse.h"

static void print_globs(FILE *out, const char *key, char *const *list) {
        for (char *const *p = list; p && *p; p++)
                fprintf(out, "%s=%s\n", key, *p);
}

static void print_ids(FILE *out, const char *key, const struct id_range *list, size_t n) {
        if (n == 0)
                return;
        fprintf(out, "%s=", key);
        for (size_t i = 0; i < n; i++) {
                if (list[i].low == list[i].high)
                        fprintf(out, "%s%u", i ? " " : "", list[i].low);
                else
                        fprintf(out, "%s%u-%u", i ? " " : "", list[i].low, list[i].high);
        }
        fputc('\n', out);
}

static void print_rule(FILE *out, const struct policy_rule *r) {
        char size[32];

        if (r->source)
                fprintf(out, "# %s:%u\n", r->source, r->line);
        else
                fprintf(out, "# built-in\n");
        fprintf(out, "[Rule]\nName=%s\n", r->name);
        print_globs(out, "MatchExe", r->match_exe);
        print_globs(out, "MatchComm", r->match_comm);
        print_globs(out, "MatchUnit", r->match_unit);
        print_globs(out, "MatchSlice", r->match_slice);
        print_globs(out, "MatchSignature", r->match_signature);
        print_globs(out, "MatchContainer", r->match_container);
        print_globs(out, "MatchMachine", r->match_machine);
        print_ids(out, "MatchUID", r->match_uid, r->n_match_uid);
        print_ids(out, "MatchGID", r->match_gid, r->n_match_gid);
        if (r->n_match_signal > 0) {
                fputs("MatchSignal=", out);
                for (size_t i = 0; i < r->n_match_signal; i++) {
                        const char *name = signal_to_name(r->match_signal[i]);
                        if (name)
                                fprintf(out, "%s%s", i ? " " : "", name);
                        else
                                fprintf(out, "%s%d", i ? " " : "", r->match_signal[i]);
                }
                fputc('\n', out);
        }
        if (r->match_dumpable != POLICY_UNSET)
                fprintf(out, "MatchDumpable=%s\n", r->match_dumpable ? "yes" : "no");
        if (r->match_rlimit_zero != POLICY_UNSET)
                fprintf(out, "MatchRlimitZero=%s\n", r->match_rlimit_zero ? "yes" : "no");
        if (r->n_match_si_code > 0) {
                fputs("MatchSiCode=", out);
                for (size_t i = 0; i < r->n_match_si_code; i++) {
                        const char *name = si_code_match_name(&r->match_si_code[i]);
                        if (name)
                                fprintf(out, "%s%s", i ? " " : "", name);
                        else
                                fprintf(out, "%s%d", i ? " " : "", r->match_si_code[i].code);
                }
                fputc('\n', out);
        }
        if (r->n_match_fault > 0) {
                static const char *const classes[] = { [FAULT_NULL] = "null", [FAULT_KERNEL] = "kernel",
                                                       [FAULT_USER] = "user" };
                fputs("MatchFaultAddress=", out);
                for (size_t i = 0; i < r->n_match_fault; i++) {
                        const struct fault_match *m = &r->match_fault[i];
                        if (m->kind != FAULT_RANGE)
                                fprintf(out, "%s%s", i ? " " : "", classes[m->kind]);
                        else if (m->low == m->high)
                                fprintf(out, "%s0x%" PRIx64, i ? " " : "", m->low);
                        else
                                fprintf(out, "%s0x%" PRIx64 "-0x%" PRIx64, i ? " " : "", m->low, m->high);
                }
                fputc('\n', out);
        }
        fprintf(out, "Action=%s\n", action_to_string(r->action));
        if (r->wait != POLICY_UNSET)
                fprintf(out, "Wait=%s\n", r->wait ? "yes" : "no");
        if (r->max_size > 0)
                fprintf(out, "MaxSize=%s\n", format_size(size, r->max_size));
        if (r->compress != POLICY_UNSET)
                fprintf(out, "Compress=%s\n", compression_to_string((enum compression) r->compress));
        if (r->userspace_mode != POLICY_UNSET)
                fprintf(out, "UserspaceDump=%s\n", userspace_mode_to_string((enum userspace_mode) r->userspace_mode));
        if (r->rate_limit_interval_usec > 0)
                fprintf(out, "RateLimitIntervalSec=%" PRIu64 "s\n", r->rate_limit_interval_usec / 1000000);
        if (r->rate_limit_burst != POLICY_UNSET)
                fprintf(out, "RateLimitBurst=%d\n", r->rate_limit_burst);
        if (r->on_repeat != POLICY_UNSET)
                fprintf(out, "OnRepeat=%s\n", action_to_string((enum action) r->on_repeat));
        if (r->max_age_usec > 0)
                fprintf(out, "MaxAgeSec=%s\n", format_max_age(size, r->max_age_usec));
        if (r->journal_core != POLICY_UNSET)
                fprintf(out, "JournalCore=%s\n", journal_core_to_string((enum journal_core) r->journal_core));
        if (r->notify != POLICY_UNSET)
                fprintf(out, "Notify=%s\n", notify_to_string((enum notify) r->notify));
}

void policy_print(const struct policy *p, FILE *out) {
        for (size_t i = 0; i < p->n_rules; i++) {
                if (i > 0)
                        fputc('\n', out);
                print_rule(out, &p->rules[i]);
        }
}
