/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Policy files: INI text → rules, every error as "path:line: what is wrong". */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "shared/cleanup.h"
#include "shared/ini-file.h"
#include "shared/log.h"
#include "shared/parse.h"
#include "shared/strv.h"

#define RULE_SECTION "Rule"
#define LIST_SEPARATORS " \t,"

/* Every key policy_rule_entry() takes, for the hint on a misspelt one (man/check-options.py checks
 * that this list and the parser agree). */
static const char *const policy_keys[] = {
        "Name", "MatchExe", "MatchComm", "MatchUnit", "MatchSlice", "MatchSignature", "MatchContainer", "MatchMachine", "MatchUID", "MatchGID",
        "MatchSignal", "MatchDumpable", "MatchRlimitZero", "MatchSiCode", "MatchFaultAddress", "Action", "Wait",
        "MaxSize", "Compress", "UserspaceDump", "RateLimitIntervalSec", "RateLimitBurst", "OnRepeat", "MaxAgeSec",
        "JournalCore", "Notify", NULL,
};

#define HINT_SIZE "a size with an optional K, M, G or T suffix, such as 512M or 2G"
#define HINT_DURATION "a duration such as 500ms, 30s, 5min, 1d 12h or 1M (M: a month, m: a minute)"

struct policy_parse {
        struct policy *policy;
        const char *path;
        size_t first_rule;      /* index of this file's first rule */
        unsigned rule_seq;      /* ini section_seq of the current rule */
        struct policy_rule *rule;
};

static int parse_glob_list(struct ini_file *ini, char ***list, const char *key, const char *value) {
        if (!*value) {
                *list = strv_free(*list);
                return 0;
        }
        if (strv_extend(list, value) < 0)
                return ini_file_error(ini, "out of memory");
        return 0;
}

static int parse_id_list(struct ini_file *ini, struct id_range **list, size_t *n, const char *key,
                         const char *value) {
        _cleanup_(strv_freep) char **words = NULL;

        if (!*value) {
                free(*list);
                *list = NULL;
                *n = 0;
                return 0;
        }
        words = strv_split(value, LIST_SEPARATORS);
        if (!words)
                return ini_file_error(ini, "out of memory");

        for (char **w = words; *w; w++) {
                struct id_range range;
                if (parse_id_range(*w, &range.low, &range.high) < 0)
                        return ini_file_error(ini, "invalid %s= id or range '%s'", key, *w),
                               ini_file_hint(ini, "numeric ids or ranges such as 0 1000-1999, separated by spaces");

                struct id_range *grown = realloc(*list, (*n + 1) * sizeof *grown);
                if (!grown)
                        return ini_file_error(ini, "out of memory");
                grown[(*n)++] = range;
                *list = grown;
        }
        return 0;
}

static int parse_signal_list(struct ini_file *ini, struct policy_rule *rule, const char *value) {
        _cleanup_(strv_freep) char **words = NULL;

        if (!*value) {
                free(rule->match_signal);
                rule->match_signal = NULL;
                rule->n_match_signal = 0;
                return 0;
        }
        words = strv_split(value, LIST_SEPARATORS);
        if (!words)
                return ini_file_error(ini, "out of memory");

        for (char **w = words; *w; w++) {
                int sig = signal_from_string(*w);
                if (sig < 0)
                        return ini_file_error(ini, "invalid MatchSignal= signal '%s'", *w),
                               ini_file_hint(ini, "signal names such as SIGSEGV or ABRT, or numbers");

                int *grown = realloc(rule->match_signal, (rule->n_match_signal + 1) * sizeof *grown);
                if (!grown)
                        return ini_file_error(ini, "out of memory");
                grown[rule->n_match_signal++] = sig;
                rule->match_signal = grown;
        }
        return 0;
}

/* ---- MatchSiCode= and MatchFaultAddress= ---- */

static const struct {
        const char *name;
        int signo;              /* 0: any */
        int code;
} si_code_names[] = {
        { "SI_USER", 0, SI_USER },       { "SI_KERNEL", 0, SI_KERNEL },   { "SI_QUEUE", 0, SI_QUEUE },
        { "SI_TIMER", 0, SI_TIMER },     { "SI_MESGQ", 0, SI_MESGQ },     { "SI_ASYNCIO", 0, SI_ASYNCIO },
        { "SI_SIGIO", 0, SI_SIGIO },     { "SI_TKILL", 0, SI_TKILL },
        { "SEGV_MAPERR", SIGSEGV, 1 },   { "SEGV_ACCERR", SIGSEGV, 2 },   { "SEGV_BNDERR", SIGSEGV, 3 },
        { "SEGV_PKUERR", SIGSEGV, 4 },
        { "BUS_ADRALN", SIGBUS, 1 },     { "BUS_ADRERR", SIGBUS, 2 },     { "BUS_OBJERR", SIGBUS, 3 },
        { "BUS_MCEERR_AR", SIGBUS, 4 },  { "BUS_MCEERR_AO", SIGBUS, 5 },
        { "ILL_ILLOPC", SIGILL, 1 },     { "ILL_ILLOPN", SIGILL, 2 },     { "ILL_ILLADR", SIGILL, 3 },
        { "ILL_ILLTRP", SIGILL, 4 },     { "ILL_PRVOPC", SIGILL, 5 },     { "ILL_PRVREG", SIGILL, 6 },
        { "ILL_COPROC", SIGILL, 7 },     { "ILL_BADSTK", SIGILL, 8 },
        { "FPE_INTDIV", SIGFPE, 1 },     { "FPE_INTOVF", SIGFPE, 2 },     { "FPE_FLTDIV", SIGFPE, 3 },
        { "FPE_FLTOVF", SIGFPE, 4 },     { "FPE_FLTUND", SIGFPE, 5 },     { "FPE_FLTRES", SIGFPE, 6 },
        { "FPE_FLTINV", SIGFPE, 7 },     { "FPE_FLTSUB", SIGFPE, 8 },
        { "TRAP_BRKPT", SIGTRAP, 1 },    { "TRAP_TRACE", SIGTRAP, 2 },
};

const char *si_code_match_name(const struct si_code_match *m) {
        for (size_t i = 0; i < ELEMENTSOF(si_code_names); i++)
                if (si_code_names[i].signo == m->signo && si_code_names[i].code == m->code)
                        return si_code_names[i].name;
        return NULL;
}

int parse_si_code_match(const char *word, struct si_code_match *ret) {
        for (size_t i = 0; i < ELEMENTSOF(si_code_names); i++)
                if (strcasecmp(word, si_code_names[i].name) == 0) {
                        *ret = (struct si_code_match) { si_code_names[i].signo, si_code_names[i].code };
                        return 0;
                }

        char *end;
        errno = 0;
        long v = strtol(word, &end, 0);
        if (errno != 0 || end == word || *end || v < INT32_MIN || v > INT32_MAX)
                return -EINVAL;
        *ret = (struct si_code_match) { 0, (int) v };
        return 0;
}

static int parse_address(const char *s, uint64_t *ret) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 0);
        if (errno != 0 || end == s || *end || *s == '-')
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_fault_match(const char *word, struct fault_match *ret) {
        static const struct { const char *name; enum fault_class kind; } classes[] = {
                { "null", FAULT_NULL }, { "kernel", FAULT_KERNEL }, { "user", FAULT_USER },
        };
        for (size_t i = 0; i < ELEMENTSOF(classes); i++)
                if (strcasecmp(word, classes[i].name) == 0) {
                        *ret = (struct fault_match) { .kind = classes[i].kind };
                        return 0;
                }

        uint64_t low, high;
        const char *dash = strchr(word, '-');
        if (dash) {
                _cleanup_free_ char *first = strndup(word, (size_t) (dash - word));
                if (!first)
                        return -ENOMEM;
                if (parse_address(first, &low) < 0 || parse_address(dash + 1, &high) < 0 || high < low)
                        return -EINVAL;
        } else {
                if (parse_address(word, &low) < 0)
                        return -EINVAL;
                high = low;
        }
        *ret = (struct fault_match) { .kind = FAULT_RANGE, .low = low, .high = high };
        return 0;
}

/* A space-separated list parsed word by word into a growing array; an empty value clears it. */
#define DEFINE_PARSE_LIST(fn, type, parse_word)                                                      \
        static int fn(struct ini_file *ini, type **list, size_t *n, const char *key, const char *value) { \
                _cleanup_(strv_freep) char **words = NULL;                                           \
                if (!*value) {                                                                       \
                        free(*list);                                                                 \
                        *list = NULL;                                                                \
                        *n = 0;                                                                      \
                        return 0;                                                                    \
                }                                                                                    \
                words = strv_split(value, LIST_SEPARATORS);                                          \
                if (!words)                                                                          \
                        return ini_file_error(ini, "out of memory");                                 \
                for (char **w = words; *w; w++) {                                                    \
                        type item;                                                                   \
                        if (parse_word(*w, &item) < 0)                                               \
                                return ini_file_error(ini, "invalid %s= value '%s'", key, *w),       \
                                       ini_file_hint(ini, "see %s= in coredumpd.policy(5)", key);    \
                        type *grown = realloc(*list, (*n + 1) * sizeof *grown);                      \
                        if (!grown)                                                                  \
                                return ini_file_error(ini, "out of memory");                         \
                        grown[(*n)++] = item;                                                        \
                        *list = grown;                                                               \
                }                                                                                    \
                return 0;                                                                            \
        }
DEFINE_PARSE_LIST(parse_si_code_list, struct si_code_match, parse_si_code_match)
DEFINE_PARSE_LIST(parse_fault_list, struct fault_match, parse_fault_match)

static int parse_tristate(struct ini_file *ini, int *ret, const char *key, const char *value) {
        int b = parse_boolean(value);
        if (b < 0)
                return ini_file_error(ini, "invalid %s= '%s', expected yes or no", key, value),
                       ini_file_hint(ini, "yes, no, true, false, on, off, 1 or 0");
        *ret = b;
        return 0;
}

/* MaxAge= is the older name of MaxAgeSec= (a time span's key ends in Sec, as systemd's), and works. */
static const char *policy_key_canonical(const char *key) {
        static const char *const aliases[][2] = { { "MaxAge", "MaxAgeSec" } };
        for (size_t i = 0; i < ELEMENTSOF(aliases); i++)
                if (strcmp(key, aliases[i][0]) == 0)
                        return aliases[i][1];
        return key;
}

static int policy_rule_entry(struct ini_file *ini, struct policy_rule *rule, const char *written, const char *value) {
        const char *key = policy_key_canonical(written);
        if (strcmp(key, "Name") == 0) {
                if (!*value)
                        return ini_file_error(ini, "Name= must not be empty"),
                               ini_file_hint(ini, "leave Name= out to have the rule named file:line");
                char *s = strdup(value);
                if (!s)
                        return ini_file_error(ini, "out of memory");
                free(rule->name);
                rule->name = s;
                return 0;
        }
        if (strcmp(key, "MatchExe") == 0)
                return parse_glob_list(ini, &rule->match_exe, key, value);
        if (strcmp(key, "MatchComm") == 0)
                return parse_glob_list(ini, &rule->match_comm, key, value);
        if (strcmp(key, "MatchUnit") == 0)
                return parse_glob_list(ini, &rule->match_unit, key, value);
        if (strcmp(key, "MatchSlice") == 0)
                return parse_glob_list(ini, &rule->match_slice, key, value);
        if (strcmp(key, "MatchSignature") == 0)
                return parse_glob_list(ini, &rule->match_signature, key, value);
        if (strcmp(key, "MatchContainer") == 0)
                return parse_glob_list(ini, &rule->match_container, key, value);
        if (strcmp(key, "MatchMachine") == 0)
                return parse_glob_list(ini, &rule->match_machine, key, value);
        if (strcmp(key, "RateLimitIntervalSec") == 0) {
                uint64_t usec;
                if (parse_duration(value, &usec) < 0)
                        return ini_file_error(ini, "invalid %s= '%s'", written, value),
                               ini_file_hint(ini, HINT_DURATION);
                rule->rate_limit_interval_usec = usec;
                return 0;
        }
        if (strcmp(key, "MaxAgeSec") == 0) {
                uint64_t usec;
                if (parse_max_age(value, &usec) < 0)
                        return ini_file_error(ini, "invalid %s= '%s'", written, value),
                               ini_file_hint(ini, HINT_DURATION " or 30d, or 0 (infinity) for no age limit");
                rule->max_age_usec = usec;
                return 0;
        }
        if (strcmp(key, "RateLimitBurst") == 0) {
                uint32_t n;
                if (parse_uint32(value, &n) < 0 || n > 1000000)
                        return ini_file_error(ini, "invalid RateLimitBurst= '%s'", value),
                               ini_file_hint(ini, "a number of crashes from 0 (no rate limit) to 1000000");
                rule->rate_limit_burst = (int) n;
                return 0;
        }
        if (strcmp(key, "OnRepeat") == 0) {
                enum action a = action_from_string(value);
                if (a != ACTION_REJECT && a != ACTION_USERSPACE)
                        return ini_file_error(ini, "invalid OnRepeat= '%s', expected userspace or reject", value),
                               ini_file_hint(ini, "repeats get a stacks core of our own (userspace) or nothing (reject)");
                rule->on_repeat = (int) a;
                return 0;
        }
        if (strcmp(key, "JournalCore") == 0) {
                enum journal_core j;
                if (journal_core_from_string(value, &j) < 0)
                        return ini_file_error(ini, "invalid JournalCore= '%s', expected user, system or no", value),
                               ini_file_hint(ini, "user: a regular user's own journal only; system: the system journal "
                                                  "too (root's and system services' crashes as well, for a fleet)");
                rule->journal_core = (int) j;
                return 0;
        }
        if (strcmp(key, "Notify") == 0) {
                enum notify n;
                if (notify_from_string(value, &n) < 0)
                        return ini_file_error(ini, "invalid Notify= '%s', expected first, every or none", value),
                               ini_file_hint(ini, "which crashes start coredumpd-crash@.service: the first of a "
                                                  "signature in its interval (first), all (every), none");
                rule->notify = (int) n;
                return 0;
        }
        if (strcmp(key, "MatchUID") == 0)
                return parse_id_list(ini, &rule->match_uid, &rule->n_match_uid, key, value);
        if (strcmp(key, "MatchGID") == 0)
                return parse_id_list(ini, &rule->match_gid, &rule->n_match_gid, key, value);
        if (strcmp(key, "MatchSignal") == 0)
                return parse_signal_list(ini, rule, value);
        if (strcmp(key, "MatchDumpable") == 0)
                return parse_tristate(ini, &rule->match_dumpable, key, value);
        if (strcmp(key, "MatchRlimitZero") == 0)
                return parse_tristate(ini, &rule->match_rlimit_zero, key, value);
        if (strcmp(key, "MatchSiCode") == 0)
                return parse_si_code_list(ini, &rule->match_si_code, &rule->n_match_si_code, key, value);
        if (strcmp(key, "MatchFaultAddress") == 0)
                return parse_fault_list(ini, &rule->match_fault, &rule->n_match_fault, key, value);
        if (strcmp(key, "UserspaceDump") == 0) {
                enum userspace_mode m = userspace_mode_from_string(value);
                if (m == _USERSPACE_MODE_INVALID)
                        return ini_file_error(ini, "invalid UserspaceDump= '%s', expected stacks, stacks+heap-refs, all-writable or none", value),
                               ini_file_hint(ini, "the words are lower case");
                rule->userspace_mode = (int) m;
                return 0;
        }
        if (strcmp(key, "Action") == 0) {
                enum action a = action_from_string(value);
                rule->action_line = ini->line;
                if (a == _ACTION_INVALID)
                        return ini_file_error(ini, "invalid Action= '%s', expected kernel, userspace or reject", value),
                               ini_file_hint(ini, "kernel keeps the kernel's core, userspace makes our own, reject keeps none");
                rule->action = a;
                return 0;
        }
        if (strcmp(key, "Wait") == 0)
                return parse_tristate(ini, &rule->wait, key, value);
        if (strcmp(key, "MaxSize") == 0) {
                uint64_t size;
                if (parse_size(value, &size) < 0 || size == 0)
                        return ini_file_error(ini, "invalid MaxSize= size '%s'", value), ini_file_hint(ini, HINT_SIZE);
                rule->max_size = size;
                return 0;
        }
        if (strcmp(key, "Compress") == 0) {
                enum compression c;
                if (compression_from_string(value, &c) < 0)
                        return ini_file_error(ini, "invalid Compress= '%s', expected zstd or none", value),
                               ini_file_hint(ini, "zstd or none (yes and no are taken too)");
                rule->compress = (int) c;
                return 0;
        }
        return ini_file_unknown_key(ini, written, RULE_SECTION, policy_keys);
}

static int policy_entry(struct ini_file *ini, const char *section, const char *key, const char *value,
                        void *userdata) {
        struct policy_parse *pp = userdata;

        if (!*section)
                return ini_file_error(ini, "'%s=' outside of a [%s] section", key, RULE_SECTION),
                       ini_file_hint(ini, "each rule starts with a [%s] line", RULE_SECTION);
        if (strcmp(section, RULE_SECTION) != 0)
                return ini_file_section_error(ini, section, RULE_SECTION);

        if (!pp->rule || pp->rule_seq != ini->section_seq) {
                pp->rule = policy_add_rule(pp->policy, pp->path, ini->section_line);
                if (!pp->rule) {
                        ini->oom = true;
                        return ini_file_error(ini, "out of memory");
                }
                pp->rule_seq = ini->section_seq;
                pp->rule->section_seq = ini->section_seq;
        }
        return policy_rule_entry(ini, pp->rule, key, value);
}

/* Rules must say what to do; unnamed rules are named after their place. */
static int policy_check_new_rules(struct ini_file *ini, struct policy_parse *pp) {
        const char *base = strrchr(pp->path, '/') ? strrchr(pp->path, '/') + 1 : pp->path;

        for (size_t i = pp->first_rule; i < pp->policy->n_rules; i++) {
                struct policy_rule *r = &pp->policy->rules[i];

                if (!r->name && asprintf(&r->name, "%s:%u", base, r->line) < 0) {
                        r->name = NULL;
                        ini->oom = true;
                        return -ENOMEM;
                }
                /* An invalid Action= was reported already, at its own line. */
                if (r->action == _ACTION_INVALID && r->action_line == 0) {
                        ini_file_error_at(ini, r->line, "rule '%s' has no Action=", r->name);
                        ini_file_hint(ini, "add Action=kernel, Action=userspace or Action=reject");
                        ini->errors[ini->n_errors - 1].section_seq = r->section_seq;
                }
        }
        return 0;
}

static bool rule_has_error(const struct ini_file *ini, const struct policy_rule *r) {
        for (size_t i = 0; i < ini->n_errors; i++)
                if (ini->errors[i].section_seq == r->section_seq)
                        return true;
        return false;
}

int policy_parse_file(struct policy *p, FILE *f, const char *path) {
        struct ini_file ini = { .path = path, .manual = "coredumpd.policy(5)" };
        struct policy_parse pp = {
                .policy = p,
                .path = path,
                .first_rule = p->n_rules,
        };

        int r = ini_file_parse(&ini, f, policy_entry, &pp);
        if (r >= 0)
                (void) policy_check_new_rules(&ini, &pp);
        if (r >= 0)
                r = ini_file_report(&ini);
        /* A rule with an error goes as a whole, said once after its errors. */
        for (size_t i = pp.first_rule; i < p->n_rules;) {
                struct policy_rule *rule = &p->rules[i];
                if (r == -ENOMEM || rule_has_error(&ini, rule)) {
                        if (r != -ENOMEM)
                                log_warning("%s:%u: rule '%s' ignored for its errors; the other rules apply.", path,
                                            rule->line, rule->name ?: "(unnamed)");
                        policy_remove_rule(p, i);
                } else
                        i++;
        }
        ini_file_done(&ini);
        return r;
}
