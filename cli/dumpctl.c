/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dumpctl — the operator's view of coredumpd: list the crashes it recorded, show one, get its core
 * back, debug it, show the effective policy, vacuum the store.
 *
 * The crashes come from the journal (record.c's entries) merged with the store's files whose
 * entry the journal lost (dumps.c). Everything about a dump is read through the daemon's library;
 * this file is only the command line and the output formats.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "shared/cleanup.h"
#include "config/config.h"
#include "reader/core-reader.h"
#include "reader/entries.h"
#include "shared/log.h"
#include "shared/parse.h"
#include "config/policy.h"
#include "store/store.h"
#include "shared/strv.h"

/* Exit statuses, documented in dumpctl(1). */
enum {
        EXIT_OK = 0,
        EXIT_ERROR = 1,         /* anything else: I/O error, bad configuration, debugger failed */
        EXIT_USAGE = 2,         /* invalid command line */
        EXIT_NO_DUMP = 3,       /* no recorded crash matches */
        EXIT_NOT_PRESENT = 4,   /* the crash has no core: none was kept, or it was vacuumed */
        EXIT_PERMISSION = 5,    /* the crash or its core belongs to someone else */
};

struct match {
        const char *field;      /* COREDUMP_PID, COREDUMP_EXE, ... */
        const char *value;
};

static struct {
        const char *verb;
        bool reverse;
        bool json;
        bool legend;
        bool use_journal;
        uint64_t since, until;  /* 0: unset */
        const char *output;
        const char *directory;
        const char *store;
        const char *config;
        char **policy_dirs;
        const char *debugger;
        const char *debugger_arguments;
        struct match *matches;
        size_t n_matches;
} arg = {
        .legend = true,
        .use_journal = true,
};

static void help(void) {
        printf("Usage: dumpctl [OPTIONS] [COMMAND] [MATCH...]\n\n"
               "List and retrieve the core dumps coredumpd recorded.\n\n"
               "Commands:\n"
               "  list [MATCH...]          List crashes (default)\n"
               "  info [MATCH...]          Show everything recorded about crashes\n"
               "  dump [MATCH]             Write the newest matching core, decompressed\n"
               "  debug [MATCH]            Run a debugger on the newest matching core\n"
               "  policy                   Show the effective policy rules\n"
               "  vacuum                   Apply MaxUse= and KeepFree= to the store now\n\n"
               "A MATCH is a PID, an absolute executable path, a unit name (NAME.service, ...),\n"
               "FIELD=VALUE for any recorded field, or else a command name (comm).\n\n"
               "Options:\n"
               "  -h --help                      Show this help\n"
               "     --version                   Show the version\n"
               "  -r --reverse                   Newest crash first\n"
               "  -S --since=TIME                Only crashes at or after TIME\n"
               "  -U --until=TIME                Only crashes at or before TIME\n"
               "     --json                      list: one JSON object per line\n"
               "     --no-legend                 list: no header line\n"
               "     --no-pager                  Accepted for coredumpctl compatibility\n"
               "  -o --output=FILE               dump: write the core to FILE, not stdout\n"
               "  -D --directory=DIR             Read journal files from DIR\n"
               "     --no-journal                Read only the store, not the journal\n"
               "     --store=DIR                 The store (default: Storage= of the configuration)\n"
               "     --config=PATH               Configuration file (default %s)\n"
               "     --policy-dir=DIR            policy: policy directory, repeatable\n"
               "     --debugger=PATH             debug: the debugger (default: $DUMPCTL_DEBUGGER or gdb)\n"
               "  -A --debugger-arguments=ARGS   debug: extra arguments for the debugger\n\n"
               "Exit status: 0 success, 1 error, 2 invalid usage, 3 no matching crash,\n"
               "4 core not present (not kept or vacuumed), 5 permission denied.\n",
               COREDUMPD_CONFIG_FILE);
}

/* ---- time ------------------------------------------------------------------------------------ */

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

static uint64_t midnight_usec(int days_back) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
        tm.tm_mday -= days_back;
        tm.tm_isdst = -1;
        return (uint64_t) mktime(&tm) * USEC_PER_SEC;
}

/* "now", "today", "yesterday", "@EPOCH", "-1h", "2h ago", "YYYY-MM-DD[ HH:MM[:SS]]", "HH:MM[:SS]". */
static int parse_time(const char *s, uint64_t *ret) {
        static const char *const formats[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d",
                                               "%Y-%m-%dT%H:%M:%S", "%H:%M:%S", "%H:%M" };
        uint64_t u;

        if (strcmp(s, "now") == 0) {
                *ret = now_usec();
                return 0;
        }
        if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0) {
                *ret = midnight_usec(s[0] == 'y');
                return 0;
        }
        if (s[0] == '@') {
                char *end;
                errno = 0;
                unsigned long long sec = strtoull(s + 1, &end, 10);
                if (errno || *end || end == s + 1)
                        return -EINVAL;
                *ret = (uint64_t) sec * USEC_PER_SEC;
                return 0;
        }
        size_t n = strlen(s);
        if (s[0] == '-' || (n > 4 && strcmp(s + n - 4, " ago") == 0)) {
                _cleanup_free_ char *d = s[0] == '-' ? strdup(s + 1) : strndup(s, n - 4);
                if (!d || parse_duration(d, &u) < 0 || u > now_usec())
                        return -EINVAL;
                *ret = now_usec() - u;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(formats); i++) {
                time_t t = time(NULL);
                struct tm tm;
                localtime_r(&t, &tm);
                tm.tm_sec = 0;
                if (i < 4)
                        tm.tm_hour = tm.tm_min = 0;
                const char *end = strptime(s, formats[i], &tm);
                if (!end || *end)
                        continue;
                tm.tm_isdst = -1;
                t = mktime(&tm);
                if (t == (time_t) -1)
                        return -EINVAL;
                *ret = (uint64_t) t * USEC_PER_SEC;
                return 0;
        }
        return -EINVAL;
}

static const char *format_time(char buf[static 64], uint64_t usec) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;
        if (usec == 0 || !localtime_r(&t, &tm) || strftime(buf, 64, "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
                return "n/a";
        return buf;
}

static const char *format_bytes(char buf[static 32], uint64_t bytes) {
        static const char suffixes[] = "KMGTPE";
        if (bytes < 1024) {
                snprintf(buf, 32, "%" PRIu64 "B", bytes);
                return buf;
        }
        double v = (double) bytes;
        size_t i = 0;
        for (v /= 1024; v >= 1024 && i + 1 < sizeof suffixes - 1; i++)
                v /= 1024;
        snprintf(buf, 32, "%.1f%c", v, suffixes[i]);
        return buf;
}

/* ---- command line ---------------------------------------------------------------------------- */

static bool has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);
        return n > k && strcmp(s + n - k, suffix) == 0;
}

static int add_match(char *word) {
        static const char *const unit_suffixes[] = { ".service", ".socket", ".scope", ".slice", ".timer",
                                                     ".mount", ".path", ".target", ".swap" };
        struct match m = { .value = word };
        char *eq = strchr(word, '=');

        if (eq && eq != word) {
                *eq = 0;
                m.field = word;
                m.value = eq + 1;
        } else if (word[0] && strspn(word, "0123456789") == strlen(word))
                m.field = "COREDUMP_PID";
        else if (word[0] == '/')
                m.field = "COREDUMP_EXE";
        else {
                m.field = "COREDUMP_COMM";
                for (size_t i = 0; i < ELEMENTSOF(unit_suffixes); i++)
                        if (has_suffix(word, unit_suffixes[i]))
                                m.field = "COREDUMP_UNIT";
        }

        struct match *grown = realloc(arg.matches, (arg.n_matches + 1) * sizeof *grown);
        if (!grown)
                return -ENOMEM;
        arg.matches = grown;
        arg.matches[arg.n_matches++] = m;
        return 0;
}

static int parse_arguments(int argc, char *argv[]) {
        enum {
                ARG_VERSION = 0x100, ARG_JSON, ARG_NO_LEGEND, ARG_NO_PAGER, ARG_NO_JOURNAL, ARG_STORE,
                ARG_CONFIG, ARG_POLICY_DIR, ARG_DEBUGGER,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "reverse", no_argument, NULL, 'r' },
                { "since", required_argument, NULL, 'S' },
                { "until", required_argument, NULL, 'U' },
                { "json", no_argument, NULL, ARG_JSON },
                { "no-legend", no_argument, NULL, ARG_NO_LEGEND },
                { "no-pager", no_argument, NULL, ARG_NO_PAGER },
                { "output", required_argument, NULL, 'o' },
                { "directory", required_argument, NULL, 'D' },
                { "no-journal", no_argument, NULL, ARG_NO_JOURNAL },
                { "store", required_argument, NULL, ARG_STORE },
                { "config", required_argument, NULL, ARG_CONFIG },
                { "policy-dir", required_argument, NULL, ARG_POLICY_DIR },
                { "debugger", required_argument, NULL, ARG_DEBUGGER },
                { "debugger-arguments", required_argument, NULL, 'A' },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "hrS:U:o:D:A:", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("dumpctl (coredumpd) %s\n", COREDUMPD_VERSION);
                        return 0;
                case 'r':
                        arg.reverse = true;
                        break;
                case 'S':
                case 'U':
                        if (parse_time(optarg, c == 'S' ? &arg.since : &arg.until) < 0) {
                                log_error("Invalid time '%s' for --%s=.", optarg, c == 'S' ? "since" : "until");
                                return -EINVAL;
                        }
                        break;
                case ARG_JSON:
                        arg.json = true;
                        break;
                case ARG_NO_LEGEND:
                        arg.legend = false;
                        break;
                case ARG_NO_PAGER:
                        break;
                case 'o':
                        arg.output = optarg;
                        break;
                case 'D':
                        arg.directory = optarg;
                        break;
                case ARG_NO_JOURNAL:
                        arg.use_journal = false;
                        break;
                case ARG_STORE:
                        arg.store = optarg;
                        break;
                case ARG_CONFIG:
                        arg.config = optarg;
                        break;
                case ARG_POLICY_DIR:
                        if (strv_extend(&arg.policy_dirs, optarg) < 0)
                                return log_error_errno(ENOMEM, "%m");
                        break;
                case ARG_DEBUGGER:
                        arg.debugger = optarg;
                        break;
                case 'A':
                        arg.debugger_arguments = optarg;
                        break;
                default:
                        return -EINVAL;
                }
        }
        if (arg.since && arg.until && arg.since > arg.until) {
                log_error("--since= is after --until=.");
                return -EINVAL;
        }

        arg.verb = optind < argc ? argv[optind++] : "list";
        if (strcmp(arg.verb, "gdb") == 0)
                arg.verb = "debug";
        for (; optind < argc; optind++)
                if (add_match(argv[optind]) < 0)
                        return log_error_errno(ENOMEM, "%m");
        return 1;
}

/* ---- gathering ------------------------------------------------------------------------------- */

static bool entry_matches(const struct entry *d) {
        if (arg.since && d->time_usec < arg.since)
                return false;
        if (arg.until && d->time_usec > arg.until)
                return false;

        /* Matches on the same field are alternatives, different fields must all hold. */
        for (size_t i = 0; i < arg.n_matches; i++) {
                bool ok = false, seen = false;
                for (size_t k = 0; k < arg.n_matches; k++) {
                        if (strcmp(arg.matches[k].field, arg.matches[i].field) != 0)
                                continue;
                        if (k < i) {
                                seen = true; /* this field was decided already */
                                break;
                        }
                        const char *v = fields_get_name(&d->fields, arg.matches[k].field);
                        if (v && strcmp(v, arg.matches[k].value) == 0)
                                ok = true;
                }
                if (!seen && !ok)
                        return false;
        }
        return true;
}

/* Non-root users see only their own crashes. */
static bool entry_visible(const struct entry *d) {
        uid_t uid = getuid();
        return uid == 0 || (d->uid >= 0 && (uid_t) d->uid == uid);
}

static char *store_path(void) {
        if (arg.store)
                return strdup(arg.store);

        struct config config;
        config_init_defaults(&config);
        (void) config_load(&config, arg.config ?: COREDUMPD_CONFIG_FILE, arg.config != NULL);
        char *p = config.storage ? strdup(config.storage) : NULL;
        config_done(&config);
        return p;
}

/* All recorded crashes the caller may see that match; *ret_hidden counts matching ones of others. */
static int gather(struct entry_list *ret, size_t *ret_hidden) {
        struct entry_list all = {};
        int r;

        if (arg.use_journal) {
                sd_journal *j = NULL;
                r = arg.directory ? sd_journal_open_directory(&j, arg.directory, 0)
                                  : sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
                if (r < 0)
                        log_warning_errno(r, "Cannot open the journal, listing the store only: %m");
                else {
                        r = entry_list_load_journal(&all, j);
                        sd_journal_close(j);
                        if (r < 0)
                                log_warning_errno(r, "Reading the journal failed: %m");
                }
        }

        _cleanup_free_ char *store = store_path();
        if (!store)
                return log_error_errno(ENOMEM, "%m");
        r = entry_list_load_store(&all, store);
        if (r < 0 && r != -ENOENT && !(r == -EACCES && getuid() != 0))
                log_warning_errno(r, "Cannot list the store %s: %m", store);

        entry_list_finish(&all);

        struct entry_list l = {};
        size_t hidden = 0;
        for (size_t i = 0; i < all.n; i++) {
                struct entry *d = &all.entries[i];
                if (!entry_matches(d))
                        continue;
                if (!entry_visible(d)) {
                        hidden++;
                        continue;
                }
                struct entry *grown = realloc(l.entries, (l.n + 1) * sizeof *grown);
                if (!grown) {
                        entry_list_done(&l);
                        entry_list_done(&all);
                        return log_error_errno(ENOMEM, "%m");
                }
                l.entries = grown;
                l.entries[l.n++] = *d;
                *d = (struct entry) {};
        }
        entry_list_done(&all);

        if (arg.reverse)
                for (size_t i = 0; i < l.n / 2; i++) {
                        struct entry t = l.entries[i];
                        l.entries[i] = l.entries[l.n - 1 - i];
                        l.entries[l.n - 1 - i] = t;
                }
        *ret = l;
        if (ret_hidden)
                *ret_hidden = hidden;
        return 0;
}

static int no_dump_status(size_t hidden) {
        if (hidden > 0) {
                log_error("Permission denied: the matching crash%s belong%s to another user.", hidden > 1 ? "es" : "",
                          hidden > 1 ? "" : "s");
                return EXIT_PERMISSION;
        }
        log_error("No matching crash recorded.");
        return EXIT_NO_DUMP;
}

static const char *field_or(const struct entry *d, const char *field, const char *fallback) {
        const char *v = fields_get_name(&d->fields, field);
        return v && *v ? v : fallback;
}

/* ---- list ------------------------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s) {
        if (!s) {
                fputs("null", f);
                return;
        }
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"':  fputs("\\\"", f); break;
                case '\\': fputs("\\\\", f); break;
                case '\n': fputs("\\n", f); break;
                case '\t': fputs("\\t", f); break;
                case '\r': fputs("\\r", f); break;
                default:
                        if (*p < 0x20 || *p == 0x7f)
                                fprintf(f, "\\u%04x", *p);
                        else
                                fputc(*p, f);
                }
        }
        fputc('"', f);
}

static void json_number_field(FILE *f, const struct entry *d, const char *key, const char *field) {
        const char *v = fields_get_name(&d->fields, field);
        fprintf(f, ",\"%s\":", key);
        if (v && *v && strspn(v, "0123456789") == strlen(v))
                fputs(v, f);
        else
                fputs("null", f);
}

static void list_json_one(const struct entry *d) {
        char iso[64] = "";
        time_t t = (time_t) (d->time_usec / USEC_PER_SEC);
        struct tm tm;
        if (gmtime_r(&t, &tm))
                strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);

        printf("{\"time\":%" PRIu64 ",\"timestamp\":", d->time_usec);
        json_string(stdout, iso);
        printf(",\"pid\":");
        d->pid >= 0 ? printf("%lld", d->pid) : printf("null");
        printf(",\"uid\":");
        d->uid >= 0 ? printf("%lld", d->uid) : printf("null");
        json_number_field(stdout, d, "gid", "COREDUMP_GID");
        printf(",\"signal\":");
        d->signal > 0 ? printf("%d", d->signal) : printf("null");
        static const struct { const char *key, *field; } strings[] = {
                { "signal_name", "COREDUMP_SIGNAL_NAME" },
                { "comm", "COREDUMP_COMM" },
                { "exe", "COREDUMP_EXE" },
                { "unit", "COREDUMP_UNIT" },
                { "action", "COREDUMPD_ACTION" },
                { "rule", "COREDUMPD_RULE" },
                { "result", "COREDUMPD_RESULT" },
                { "filename", "COREDUMP_FILENAME" },
                { "boot_id", "COREDUMPD_BOOT_ID" },
        };
        for (size_t i = 0; i < ELEMENTSOF(strings); i++) {
                printf(",\"%s\":", strings[i].key);
                json_string(stdout, fields_get_name(&d->fields, strings[i].field));
        }
        json_number_field(stdout, d, "core_size", "COREDUMPD_CORE_SIZE");
        printf(",\"disk_size\":");
        d->presence == ENTRY_PRESENT ? printf("%" PRIu64, d->disk_size) : printf("null");
        printf(",\"truncated\":%s", fields_get(&d->fields, FIELD_TRUNCATED) ? "true" : "false");
        printf(",\"present\":\"%s\",\"source\":\"%s\"}\n", entry_presence_to_string(d->presence),
               entry_source_to_string(d->source));
}

static const char *entry_size_text(const struct entry *d, char buf[static 32]) {
        const char *core = fields_get(&d->fields, FIELD_CORE_SIZE);
        uint64_t u;
        if (core && parse_size(core, &u) >= 0)
                return format_bytes(buf, u);
        if (d->presence == ENTRY_PRESENT)
                return format_bytes(buf, d->disk_size);
        return "-";
}

static int verb_list(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        size_t hidden = 0;

        if (gather(&l, &hidden) < 0)
                return EXIT_ERROR;
        if (arg.json) {
                for (size_t i = 0; i < l.n; i++)
                        list_json_one(&l.entries[i]);
                fflush(stdout);
                return l.n > 0 || arg.n_matches == 0 ? EXIT_OK : EXIT_NO_DUMP;
        }
        if (l.n == 0) {
                if (arg.n_matches == 0 && !arg.since && !arg.until) {
                        if (arg.legend)
                                fprintf(stderr, "No crashes recorded.\n");
                        return EXIT_OK;
                }
                fprintf(stderr, "No matching crash recorded.\n");
                return EXIT_NO_DUMP;
        }

        size_t rule_w = 4, action_w = 6;
        for (size_t i = 0; i < l.n; i++) {
                rule_w = MAX(rule_w, strlen(field_or(&l.entries[i], "COREDUMPD_RULE", "-")));
                action_w = MAX(action_w, strlen(field_or(&l.entries[i], "COREDUMPD_ACTION", "-")));
        }
        rule_w = MIN(rule_w, (size_t) 32);
        if (arg.legend)
                printf("%-28s %7s %5s %-7s %-*s %-*s %7s %-12s %s\n", "TIME", "PID", "UID", "SIG", (int) action_w,
                       "ACTION", (int) rule_w, "RULE", "SIZE", "PRESENT", "EXE");
        for (size_t i = 0; i < l.n; i++) {
                const struct entry *d = &l.entries[i];
                char tbuf[64], sbuf[32], pid[24] = "-", uid[24] = "-", sig[16] = "-";
                if (d->pid >= 0)
                        snprintf(pid, sizeof pid, "%lld", d->pid);
                if (d->uid >= 0)
                        snprintf(uid, sizeof uid, "%lld", d->uid);
                const char *signame = fields_get(&d->fields, FIELD_SIGNAL_NAME);
                if (signame && strncmp(signame, "SIG", 3) == 0)
                        snprintf(sig, sizeof sig, "%s", signame + 3);
                else if (d->signal > 0)
                        snprintf(sig, sizeof sig, "%d", d->signal);
                printf("%-28s %7s %5s %-7s %-*s %-*.*s %7s %-12s %s\n", format_time(tbuf, d->time_usec), pid, uid, sig,
                       (int) action_w, field_or(d, "COREDUMPD_ACTION", "-"), (int) rule_w, (int) rule_w,
                       field_or(d, "COREDUMPD_RULE", "-"), entry_size_text(d, sbuf),
                       entry_presence_to_string(d->presence),
                       field_or(d, "COREDUMP_EXE", field_or(d, "COREDUMP_COMM", "n/a")));
        }
        return EXIT_OK;
}

/* ---- info ------------------------------------------------------------------------------------ */

static const char *const *policy_dirs(void) {
        return arg.policy_dirs ? (const char *const *) arg.policy_dirs : policy_default_dirs();
}

static void print_rule_origin(const char *name) {
        _cleanup_(policy_unrefp) struct policy *p = NULL;
        int saved = log_get_max_priority();

        log_set_max_priority(LOG_CRIT); /* a broken policy is `dumpctl policy`'s business */
        int r = policy_load(policy_dirs(), &p);
        log_set_max_priority(saved);
        if (r < 0 || !name)
                return;
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct policy_rule *rule = &p->rules[i];
                if (strcmp(rule->name, name) != 0)
                        continue;
                if (rule->source)
                        printf("   Rule Source: %s:%u (as it is now)\n", rule->source, rule->line);
                else
                        printf("   Rule Source: built-in\n");
                return;
        }
        printf("   Rule Source: no longer in the policy\n");
}

static void info_one(const struct entry *d) {
        char tbuf[64], sbuf[32];
        const char *comm = field_or(d, "COREDUMP_COMM", "n/a");
        const char *v;

        printf("           PID: %lld (%s)\n", d->pid, comm);
        printf("           UID: %s\n", field_or(d, "COREDUMP_UID", "n/a"));
        printf("           GID: %s\n", field_or(d, "COREDUMP_GID", "n/a"));
        if (d->signal > 0)
                printf("        Signal: %d (%s)\n", d->signal, field_or(d, "COREDUMP_SIGNAL_NAME", "?"));
        printf("     Timestamp: %s\n", format_time(tbuf, d->time_usec));
        if ((v = fields_get(&d->fields, FIELD_CMDLINE)))
                printf("  Command Line: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_EXE)))
                printf("    Executable: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_CGROUP)))
                printf(" Control Group: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_UNIT)))
                printf("          Unit: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_USER_UNIT)))
                printf("     User Unit: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_SLICE)))
                printf("         Slice: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_BOOT_ID)))
                printf("       Boot ID: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_HOSTNAME)))
                printf("      Hostname: %s\n", v);
        printf("        Action: %s\n", field_or(d, "COREDUMPD_ACTION", "n/a"));
        printf("          Rule: %s\n", field_or(d, "COREDUMPD_RULE", "n/a"));
        print_rule_origin(fields_get(&d->fields, FIELD_RULE));
        printf("        Result: %s\n", field_or(d, "COREDUMPD_RESULT", "n/a"));
        if ((v = fields_get(&d->fields, FIELD_ERROR)))
                printf("         Error: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_MARK)))
                printf("   Kernel Mark: %s\n", v);
        if ((v = fields_get(&d->fields, FIELD_FILENAME)))
                printf("       Storage: %s (%s)\n", v, entry_presence_to_string(d->presence));
        else
                printf("       Storage: none\n");
        if ((v = fields_get(&d->fields, FIELD_CORE_SIZE)))
                printf("     Core Size: %s%s\n", v, fields_get(&d->fields, FIELD_TRUNCATED) ? " (truncated)" : "");
        if (d->presence == ENTRY_PRESENT)
                printf("     Disk Size: %s\n", format_bytes(sbuf, d->disk_size));
        printf("        Source: %s\n", entry_source_to_string(d->source));
        if ((v = fields_get(&d->fields, FIELD_MESSAGE)))
                printf("       Message: %s\n", v);

        const char *bt = fields_get_name(&d->fields, "COREDUMPD_BACKTRACE") ?: fields_get_name(&d->fields, "COREDUMP_BACKTRACE");
        if (bt)
                printf("\n     Backtrace:\n%s\n", bt);

        printf("\n        Fields:\n");
        for (size_t i = 0; i < d->fields.n; i++) {
                const char *e = d->fields.v[i].iov_base;
                if (strncmp(e, "COREDUMP", 8) == 0)
                        printf("                %s\n", e);
        }
}

static int verb_info(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        size_t hidden = 0;

        if (gather(&l, &hidden) < 0)
                return EXIT_ERROR;
        if (l.n == 0)
                return no_dump_status(hidden);
        for (size_t i = 0; i < l.n; i++) {
                if (i > 0)
                        putchar('\n');
                info_one(&l.entries[i]);
        }
        return EXIT_OK;
}

/* ---- dump, debug ----------------------------------------------------------------------------- */

/* The newest matching crash with a core; a clear status when there is none. */
static int select_dump(struct entry_list *l, const struct entry **ret) {
        size_t hidden = 0;

        if (arg.n_matches > 0 && arg.reverse) {
                log_error("-r makes no sense here: the newest match is used.");
                return EXIT_USAGE;
        }
        if (gather(l, &hidden) < 0)
                return EXIT_ERROR;
        if (l->n == 0)
                return no_dump_status(hidden);

        const struct entry *best = NULL;
        for (size_t i = 0; i < l->n; i++)
                if (l->entries[i].presence != ENTRY_NONE &&
                    (!best || (arg.reverse ? l->entries[i].time_usec > best->time_usec
                                           : l->entries[i].time_usec >= best->time_usec)))
                        best = &l->entries[i];
        if (!best) {
                const struct entry *d = &l->entries[arg.reverse ? 0 : l->n - 1];
                log_error("Crash of pid %lld (%s) has no core: action %s, result %s.", d->pid,
                          field_or(d, "COREDUMP_COMM", "n/a"), field_or(d, "COREDUMPD_ACTION", "?"),
                          field_or(d, "COREDUMPD_RESULT", "?"));
                return EXIT_NOT_PRESENT;
        }
        if (best->presence == ENTRY_MISSING) {
                log_error("The core of pid %lld (%s) is gone (vacuumed or removed): %s", best->pid,
                          field_or(best, "COREDUMP_COMM", "n/a"), field_or(best, "COREDUMP_FILENAME", "?"));
                return EXIT_NOT_PRESENT;
        }
        if (best->presence == ENTRY_INACCESSIBLE) {
                log_error("Permission denied: the core of pid %lld (%s) is not readable for you: %s", best->pid,
                          field_or(best, "COREDUMP_COMM", "n/a"), field_or(best, "COREDUMP_FILENAME", "?"));
                return EXIT_PERMISSION;
        }
        *ret = best;
        return EXIT_OK;
}

static int open_status(const struct entry *d, int r) {
        const char *path = field_or(d, "COREDUMP_FILENAME", "?");
        if (r == -ENOENT) {
                log_error("The core is gone (vacuumed or removed): %s", path);
                return EXIT_NOT_PRESENT;
        }
        if (r == -EACCES || r == -EPERM) {
                log_error("Permission denied: %s", path);
                return EXIT_PERMISSION;
        }
        log_error_errno(r, "Cannot open %s: %m", path);
        return EXIT_ERROR;
}

static int write_core(const struct entry *d, int out_fd) {
        _cleanup_close_ int in_fd = -1;
        const char *path = field_or(d, "COREDUMP_FILENAME", "");
        uint64_t size = 0;

        int r = entry_open_core(d, &in_fd);
        if (r < 0)
                return open_status(d, r);
        r = core_decompress(in_fd, core_file_is_compressed(path), out_fd, &size);
        if (r == -EPIPE)
                return EXIT_OK; /* the reader stopped early, its business */
        if (r < 0) {
                log_error_errno(r, "Cannot decompress %s: %m", path);
                return EXIT_ERROR;
        }
        log_debug("Wrote %" PRIu64 " bytes of core from %s.", size, path);
        return EXIT_OK;
}

static int verb_dump(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        const struct entry *d = NULL;
        _cleanup_close_ int fd = -1;

        if (!arg.output && isatty(STDOUT_FILENO)) {
                log_error("Refusing to write a core to a terminal: use -o FILE or a pipe.");
                return EXIT_USAGE;
        }
        int status = select_dump(&l, &d);
        if (status != EXIT_OK)
                return status;

        if (arg.output) {
                fd = open(arg.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);
                if (fd < 0) {
                        log_error_errno(errno, "Cannot create %s: %m", arg.output);
                        return errno == EACCES ? EXIT_PERMISSION : EXIT_ERROR;
                }
        }
        status = write_core(d, fd >= 0 ? fd : STDOUT_FILENO);
        if (status == EXIT_OK && fd >= 0 && close(TAKE_FD(fd)) < 0) {
                log_error_errno(errno, "Cannot write %s: %m", arg.output);
                return EXIT_ERROR;
        }
        return status;
}

/* Splits ARGS at blanks, honouring '…' and "…" quoting and backslash escapes. */
static int split_arguments(const char *s, char ***ret) {
        char **l = NULL;

        while (s && *s) {
                while (*s == ' ' || *s == '\t' || *s == '\n')
                        s++;
                if (!*s)
                        break;
                size_t n = strlen(s);
                _cleanup_free_ char *word = malloc(n + 1);
                size_t k = 0;
                char quote = 0;
                if (!word) {
                        strv_free(l);
                        return -ENOMEM;
                }
                for (; *s; s++) {
                        if (quote) {
                                if (*s == quote)
                                        quote = 0;
                                else if (*s == '\\' && quote == '"' && s[1])
                                        word[k++] = *++s;
                                else
                                        word[k++] = *s;
                        } else if (*s == '\'' || *s == '"')
                                quote = *s;
                        else if (*s == '\\' && s[1])
                                word[k++] = *++s;
                        else if (*s == ' ' || *s == '\t' || *s == '\n')
                                break;
                        else
                                word[k++] = *s;
                }
                if (quote) {
                        strv_free(l);
                        return -EINVAL;
                }
                word[k] = 0;
                if (strv_extend(&l, word) < 0) {
                        strv_free(l);
                        return -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

/* The executable as recorded, without " (deleted)"; NULL if it is no longer there. */
static char *executable_of(const struct entry *d) {
        const char *exe = fields_get(&d->fields, FIELD_EXE);
        if (!exe || exe[0] != '/')
                return NULL;
        char *p = strdup(exe);
        if (p && has_suffix(p, " (deleted)"))
                p[strlen(p) - strlen(" (deleted)")] = 0;
        if (p && access(p, R_OK) < 0) {
                log_warning("The executable %s is not there any more; debugging the core alone.", p);
                free(p);
                return NULL;
        }
        return p;
}

static int verb_debug(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        _cleanup_(strv_freep) char **extra = NULL;
        _cleanup_(strv_freep) char **argv = NULL;
        _cleanup_free_ char *exe = NULL;
        const struct entry *d = NULL;
        const char *debugger = arg.debugger ?: getenv("DUMPCTL_DEBUGGER") ?: "gdb";
        char tmp[PATH_MAX];

        if (split_arguments(arg.debugger_arguments, &extra) < 0) {
                log_error("Cannot parse --debugger-arguments='%s'.", arg.debugger_arguments);
                return EXIT_USAGE;
        }
        int status = select_dump(&l, &d);
        if (status != EXIT_OK)
                return status;

        const char *tmpdir = getenv("TMPDIR") ?: "/var/tmp";
        snprintf(tmp, sizeof tmp, "%s/dumpctl-core.XXXXXX", tmpdir);
        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
                log_error_errno(errno, "Cannot create a temporary file in %s: %m", tmpdir);
                return EXIT_ERROR;
        }
        status = write_core(d, fd);
        if (status != EXIT_OK) {
                (void) unlink(tmp);
                return status;
        }

        exe = executable_of(d);
        if (strv_extend(&argv, debugger) < 0)
                goto oom;
        for (char **a = extra; a && *a; a++)
                if (strv_extend(&argv, *a) < 0)
                        goto oom;
        if (exe && strv_extend(&argv, exe) < 0)
                goto oom;
        if (strv_extend(&argv, "-c") < 0 || strv_extend(&argv, tmp) < 0)
                goto oom;

        fprintf(stderr, "Debugging pid %lld (%s) with %s, core %s%s%s\n", d->pid, field_or(d, "COREDUMP_COMM", "n/a"),
                debugger, field_or(d, "COREDUMP_FILENAME", "?"), exe ? ", executable " : "", exe ? exe : "");
        fflush(NULL);

        /* The debugger owns ^C while it runs. */
        struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
        sigaction(SIGINT, &ign, &old_int);
        sigaction(SIGQUIT, &ign, &old_quit);
        pid_t pid = fork();
        if (pid < 0) {
                log_error_errno(errno, "fork: %m");
                (void) unlink(tmp);
                return EXIT_ERROR;
        }
        if (pid == 0) {
                sigaction(SIGINT, &old_int, NULL);
                sigaction(SIGQUIT, &old_quit, NULL);
                execvp(debugger, argv);
                fprintf(stderr, "dumpctl: cannot run %s: %s\n", debugger, strerror(errno));
                _exit(127);
        }
        int ws = 0;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
                ;
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        (void) unlink(tmp);
        if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
                return EXIT_OK;
        if (WIFEXITED(ws))
                log_error("%s exited with status %d.", debugger, WEXITSTATUS(ws));
        else
                log_error("%s was killed by signal %d.", debugger, WTERMSIG(ws));
        return EXIT_ERROR;

oom:
        (void) unlink(tmp);
        log_error_errno(ENOMEM, "%m");
        return EXIT_ERROR;
}

/* ---- policy, vacuum -------------------------------------------------------------------------- */

static int verb_policy(void) {
        _cleanup_(policy_unrefp) struct policy *p = NULL;

        if (policy_load(policy_dirs(), &p) < 0)
                return EXIT_ERROR;
        policy_print(p, stdout);
        return EXIT_OK;
}

static int verb_vacuum(void) {
        struct config config;
        struct store *s = NULL;
        int r;

        if (geteuid() != 0) {
                log_error("Permission denied: only root may vacuum the store.");
                return EXIT_PERMISSION;
        }
        config_init_defaults(&config);
        r = config_load(&config, arg.config ?: COREDUMPD_CONFIG_FILE, arg.config != NULL);
        if (r < 0) {
                config_done(&config);
                return EXIT_ERROR;
        }
        r = store_open(arg.store ?: config.storage, config.max_use, config.keep_free, config.compress_level, &s);
        config_done(&config);
        if (r < 0)
                return EXIT_ERROR;
        log_set_max_priority(MAX(log_get_max_priority(), LOG_INFO));
        r = store_vacuum(s, NULL, NULL);
        store_free(s);
        if (r < 0)
                return EXIT_ERROR;
        printf("Removed %d dump%s.\n", r, r == 1 ? "" : "s");
        return EXIT_OK;
}

int main(int argc, char *argv[]) {
        static const struct {
                const char *name;
                int (*run)(void);
                bool takes_matches;
        } verbs[] = {
                { "list", verb_list, true },
                { "info", verb_info, true },
                { "dump", verb_dump, true },
                { "debug", verb_debug, true },
                { "policy", verb_policy, false },
                { "vacuum", verb_vacuum, false },
        };
        int status = EXIT_USAGE;

        log_set_program_name("dumpctl");
        if (getenv("DUMPCTL_DEBUG"))
                log_set_max_priority(LOG_DEBUG);
        else
                log_set_max_priority(LOG_NOTICE);

        int r = parse_arguments(argc, argv);
        if (r <= 0) {
                status = r < 0 ? EXIT_USAGE : EXIT_OK;
                goto finish;
        }

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                if (strcmp(arg.verb, verbs[i].name) != 0)
                        continue;
                if (!verbs[i].takes_matches && arg.n_matches > 0) {
                        log_error("'%s' takes no matches.", arg.verb);
                        goto finish;
                }
                status = verbs[i].run();
                goto finish;
        }
        log_error("Unknown command '%s'; see dumpctl --help.", arg.verb);

finish:
        free(arg.matches);
        strv_free(arg.policy_dirs);
        return status;
}
