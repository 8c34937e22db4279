/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cleanup.h"
#include "shared/ini-file.h"
#include "shared/log.h"
#include "shared/parse.h"
#include "config/policy.h"
#include "shared/strv.h"

#define RULE_SECTION "Rule"
#define LIST_SEPARATORS " \t,"
#define DELETED_SUFFIX " (deleted)"

/* ---- lifetime -------------------------------------------------------------------------------- */

struct policy *policy_new(void) {
        struct policy *p = calloc(1, sizeof *p);
        if (p)
                atomic_init(&p->n_ref, 1);
        return p;
}

struct policy *policy_ref(struct policy *p) {
        if (p)
                atomic_fetch_add(&p->n_ref, 1);
        return p;
}

static void policy_rule_done(struct policy_rule *r) {
        free(r->name);
        free(r->source);
        strv_free(r->match_exe);
        strv_free(r->match_comm);
        strv_free(r->match_unit);
        strv_free(r->match_slice);
        free(r->match_uid);
        free(r->match_gid);
        free(r->match_signal);
        free(r->match_si_code);
        free(r->match_fault);
}

struct policy *policy_unref(struct policy *p) {
        if (!p || atomic_fetch_sub(&p->n_ref, 1) != 1)
                return NULL;

        for (size_t i = 0; i < p->n_rules; i++)
                policy_rule_done(&p->rules[i]);
        free(p->rules);
        free(p);
        return NULL;
}

struct policy_rule *policy_add_rule(struct policy *p, const char *source, unsigned line) {
        struct policy_rule *rules = realloc(p->rules, (p->n_rules + 1) * sizeof *rules);
        if (!rules)
                return NULL;
        p->rules = rules;

        struct policy_rule *r = &rules[p->n_rules];
        *r = (struct policy_rule) {
                .line = line,
                .match_dumpable = POLICY_UNSET,
                .match_rlimit_zero = POLICY_UNSET,
                .action = _ACTION_INVALID,
                .wait = POLICY_UNSET,
                .compress = POLICY_UNSET,
                .userspace_mode = POLICY_UNSET,
        };
        if (source && !(r->source = strdup(source)))
                return NULL;
        p->n_rules++;
        return r;
}

int policy_add_builtin_rules(struct policy *p) {
        struct policy_rule *r;

        r = policy_add_rule(p, NULL, 0);
        if (!r || !(r->name = strdup("builtin:rlimit-zero")))
                return -ENOMEM;
        r->match_rlimit_zero = 1;
        r->action = ACTION_REJECT;

        r = policy_add_rule(p, NULL, 0);
        if (!r || !(r->name = strdup("builtin:keep")))
                return -ENOMEM;
        r->action = ACTION_KERNEL;
        return 0;
}

/* ---- parsing --------------------------------------------------------------------------------- */

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
                        return ini_file_error(ini, "invalid %s= id or range '%s'", key, *w);

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
                        return ini_file_error(ini, "invalid MatchSignal= signal '%s'", *w);

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

static const char *si_code_match_name(const struct si_code_match *m) {
        for (size_t i = 0; i < ELEMENTSOF(si_code_names); i++)
                if (si_code_names[i].signo == m->signo && si_code_names[i].code == m->code)
                        return si_code_names[i].name;
        return NULL;
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

bool fault_match_matches(const struct fault_match *m, uint64_t addr, uint64_t null_page_end) {
        bool upper_half = addr >> 63;
        switch (m->kind) {
        case FAULT_NULL:
                return addr < null_page_end;
        case FAULT_KERNEL:
                return upper_half;
        case FAULT_USER:
                return !upper_half && addr >= null_page_end;
        case FAULT_RANGE:
                return addr >= m->low && addr <= m->high;
        }
        return false;
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
                                return ini_file_error(ini, "invalid %s= value '%s'", key, *w);       \
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
                return ini_file_error(ini, "invalid %s= '%s', expected yes or no", key, value);
        *ret = b;
        return 0;
}

static int policy_rule_entry(struct ini_file *ini, struct policy_rule *rule, const char *key, const char *value) {
        if (strcmp(key, "Name") == 0) {
                if (!*value)
                        return ini_file_error(ini, "Name= must not be empty");
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
                        return ini_file_error(ini, "invalid UserspaceDump= '%s', expected stacks, stacks+heap-refs, all-writable or none", value);
                rule->userspace_mode = (int) m;
                return 0;
        }
        if (strcmp(key, "Action") == 0) {
                enum action a = action_from_string(value);
                if (a == _ACTION_INVALID)
                        return ini_file_error(ini, "invalid Action= '%s', expected kernel, userspace or reject", value);
                rule->action = a;
                return 0;
        }
        if (strcmp(key, "Wait") == 0)
                return parse_tristate(ini, &rule->wait, key, value);
        if (strcmp(key, "MaxSize") == 0) {
                uint64_t size;
                if (parse_size(value, &size) < 0 || size == 0)
                        return ini_file_error(ini, "invalid MaxSize= size '%s'", value);
                rule->max_size = size;
                return 0;
        }
        if (strcmp(key, "Compress") == 0) {
                enum compression c;
                if (compression_from_string(value, &c) < 0)
                        return ini_file_error(ini, "invalid Compress= '%s', expected zstd or none", value);
                rule->compress = (int) c;
                return 0;
        }
        return ini_file_error(ini, "unknown key '%s' in [%s]", key, RULE_SECTION);
}

static int policy_entry(struct ini_file *ini, const char *section, const char *key, const char *value,
                        void *userdata) {
        struct policy_parse *pp = userdata;

        if (!*section)
                return ini_file_error(ini, "'%s=' outside of a [%s] section", key, RULE_SECTION);
        if (strcmp(section, RULE_SECTION) != 0)
                return ini_file_error(ini, "unknown section [%s], expected [%s]", section, RULE_SECTION);

        if (!pp->rule || pp->rule_seq != ini->section_seq) {
                pp->rule = policy_add_rule(pp->policy, pp->path, ini->section_line);
                if (!pp->rule)
                        return ini_file_error(ini, "out of memory");
                pp->rule_seq = ini->section_seq;
        }
        return policy_rule_entry(ini, pp->rule, key, value);
}

/* Rules must say what to do; unnamed rules are named after their place. */
static int policy_check_new_rules(struct ini_file *ini, struct policy_parse *pp) {
        const char *base = strrchr(pp->path, '/') ? strrchr(pp->path, '/') + 1 : pp->path;

        for (size_t i = pp->first_rule; i < pp->policy->n_rules; i++) {
                struct policy_rule *r = &pp->policy->rules[i];

                /* An invalid Action= was reported already, at its own line. */
                if (r->action == _ACTION_INVALID && ini->error_line == 0)
                        ini_file_error_at(ini, r->line, "rule '%s' has no Action=", r->name ? r->name : "(unnamed)");
                if (!r->name && asprintf(&r->name, "%s:%u", base, r->line) < 0) {
                        r->name = NULL;
                        return ini_file_error_at(ini, r->line, "out of memory");
                }
        }
        return 0;
}

int policy_parse_file(struct policy *p, FILE *f, const char *path) {
        struct ini_file ini = { .path = path };
        struct policy_parse pp = {
                .policy = p,
                .path = path,
                .first_rule = p->n_rules,
        };

        int r = ini_file_parse(&ini, f, policy_entry, &pp);
        if (r < 0)
                return r;
        (void) policy_check_new_rules(&ini, &pp);
        return ini_file_report(&ini);
}

/* ---- matching -------------------------------------------------------------------------------- */

static bool glob_list_matches(char *const *patterns, const char *value) {
        if (!patterns || !*patterns)
                return true; /* no condition */
        if (!value)
                return false;
        for (char *const *p = patterns; *p; p++)
                if (fnmatch(*p, value, 0) == 0)
                        return true;
        return false;
}

static bool exe_matches(char *const *patterns, const char *exe) {
        if (glob_list_matches(patterns, exe))
                return true;

        /* An executable replaced while running shows as "/path (deleted)"; match its path too. */
        size_t n = exe ? strlen(exe) : 0, k = strlen(DELETED_SUFFIX);
        if (n <= k || strcmp(exe + n - k, DELETED_SUFFIX) != 0)
                return false;
        _cleanup_free_ char *path = strndup(exe, n - k);
        return path && glob_list_matches(patterns, path);
}

static bool id_list_matches(const struct id_range *list, size_t n, uint32_t id) {
        if (n == 0)
                return true;
        for (size_t i = 0; i < n; i++)
                if (id >= list[i].low && id <= list[i].high)
                        return true;
        return false;
}

static bool signal_list_matches(const int *list, size_t n, int sig) {
        if (n == 0)
                return true;
        for (size_t i = 0; i < n; i++)
                if (list[i] == sig)
                        return true;
        return false;
}

static bool tristate_matches(int want, bool have) {
        return want == POLICY_UNSET || (want != 0) == have;
}

static bool si_code_list_matches(const struct si_code_match *list, size_t n, const struct crash_context *ctx) {
        if (n == 0)
                return true;
        if (!ctx->si_code_known)
                return false;
        for (size_t i = 0; i < n; i++)
                if (list[i].code == ctx->si_code && (list[i].signo == 0 || list[i].signo == ctx->signal))
                        return true;
        return false;
}

static bool fault_list_matches(const struct fault_match *list, size_t n, const struct crash_context *ctx) {
        if (n == 0)
                return true;
        if (!ctx->fault_addr_known)
                return false;
        for (size_t i = 0; i < n; i++)
                if (fault_match_matches(&list[i], ctx->fault_addr, ctx->null_page_end ?: 4096))
                        return true;
        return false;
}

bool policy_rule_matches(const struct policy_rule *rule, const struct crash_context *ctx) {
        bool rlimit_zero = ctx->rlimit_known && ctx->rlimit_core == 0;

        return exe_matches(rule->match_exe, ctx->exe) &&
               glob_list_matches(rule->match_comm, ctx->comm) &&
               glob_list_matches(rule->match_unit, ctx->unit) &&
               glob_list_matches(rule->match_slice, ctx->slice) &&
               id_list_matches(rule->match_uid, rule->n_match_uid, ctx->uid) &&
               id_list_matches(rule->match_gid, rule->n_match_gid, ctx->gid) &&
               signal_list_matches(rule->match_signal, rule->n_match_signal, ctx->signal) &&
               tristate_matches(rule->match_dumpable, ctx->dumpable) &&
               tristate_matches(rule->match_rlimit_zero, rlimit_zero) &&
               si_code_list_matches(rule->match_si_code, rule->n_match_si_code, ctx) &&
               fault_list_matches(rule->match_fault, rule->n_match_fault, ctx);
}

const struct policy_rule *policy_find_rule(const struct policy *p, const struct crash_context *ctx) {
        for (size_t i = 0; p && i < p->n_rules; i++)
                if (policy_rule_matches(&p->rules[i], ctx))
                        return &p->rules[i];
        return NULL;
}

int policy_decide(const struct policy *p, const struct config *config, const struct crash_context *ctx,
                  struct decision *ret) {
        const struct policy_rule *rule = policy_find_rule(p, ctx);

        *ret = (struct decision) {
                .action = rule ? rule->action : ACTION_KERNEL,
                .wait = !rule || rule->wait != 0,
                .max_size = rule && rule->max_size > 0 ? rule->max_size : config->max_size,
                .compress = rule && rule->compress != POLICY_UNSET ? (enum compression) rule->compress
                                                                     : config->compress,
                .userspace_mode = rule && rule->userspace_mode != POLICY_UNSET ? (enum userspace_mode) rule->userspace_mode
                                                                               : USERSPACE_MODE_STACKS,
                .rule = strdup(rule ? rule->name : "builtin:keep"),
        };
        return ret->rule ? 0 : -ENOMEM;
}

void decision_done(struct decision *d) {
        free(d->rule);
        d->rule = NULL;
}

/* ---- printing -------------------------------------------------------------------------------- */

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
}

void policy_print(const struct policy *p, FILE *out) {
        for (size_t i = 0; i < p->n_rules; i++) {
                if (i > 0)
                        fputc('\n', out);
                print_rule(out, &p->rules[i]);
        }
}
