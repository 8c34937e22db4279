/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl: main(), --help, the command line and the dispatch to one verb. */

/*
 * dumpctl — the operator's view of coredumpd: list the crashes it recorded, show one, get its core
 * back, debug it, show the effective policy, vacuum the store.
 *
 * The crashes come from the journal (record.c's entries) merged with the store's files whose
 * entry the journal lost (dumps.c). Everything about a dump is read through the daemon's library;
 * dumpctl is only the command line (this file), the gathering of entries (entries.c), the output
 * formats (format.c, json.c), the terminal: pager, colours, width (terminal.c) and one file per
 * verb (verb-*.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build-config.h"
#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/crash-id.h"
#include "shared/fields.h"
#include "shared/log.h"
#include "shared/parse.h"
#include "shared/strv.h"
#include "shared/timestamp.h"

/* Words the matches point into that are not argv's. */
static char **owned_words;

struct dumpctl_arguments arg = {
        .legend = true,
        .pager = true,
        .use_journal = true,
};

static void help(void) {
        printf("Usage: dumpctl [OPTIONS] [COMMAND] [MATCH...]\n\n"
               "List and retrieve the core dumps coredumpd recorded.\n\n"
               "Commands:\n"
               "  list [MATCH...]          List crashes (default)\n"
               "  info [MATCH...]          Show everything recorded about crashes (without MATCH: the newest)\n"
               "  dump [MATCH]             Write the newest matching core, decompressed\n"
               "  debug [MATCH]            Run a debugger on the newest matching core\n"
               "  report [MATCH]           Write the files of a bug report for the newest matching crash\n"
               "  groups [MATCH]           Matching crashes by signature: count, first, last, top frame\n"
               "  policy                   Show the effective policy rules\n"
               "  check                    Check the configuration and policy as coredumpd reads them\n"
               "  reload                   Check, then have a running coredumpd re-read them\n"
               "  vacuum                   Apply MaxAge=, MaxUse= and KeepFree= to the store now\n"
               "  remove MATCH...          Remove the matching crashes' cores (a user: their own)\n"
               "  metrics                  Print coredumpd's counters in Prometheus' text format\n\n"
               "A MATCH is a PID, an absolute executable path, a unit name (NAME.service, ...),\n"
               "FIELD=VALUE for any recorded field, a crash id (COREDUMPD_CRASH_ID=), or else a command\n"
               "name (comm).\n\n"
               "Options:\n"
               "  -h --help                      Show this help\n"
               "     --version                   Show the version\n"
               "  -1                             Only the newest crash (the same as -n 1)\n"
               "  -n N                           Only the newest N crashes\n"
               "  -r --reverse                   Newest crash first\n"
               "  -S --since=TIME                Only crashes at or after TIME (systemd.time(7))\n"
               "  -U --until=TIME                Only crashes at or before TIME\n"
               "  -F --field=FIELD               list: the values FIELD takes, each once, one per line\n"
               "  -q --quiet                     No notices (no match, no journal)\n"
               "     --json=MODE                 list, info, groups: JSON, MODE short, pretty or off\n"
               "     --no-legend                 list, groups: no header line\n"
               "     --no-pager                  Do not pipe the output into a pager\n"
               "  -o --output=FILE               dump: write the core to FILE, not stdout; metrics: replace\n"
               "                                 FILE with them (a new file renamed over it); report: the\n"
               "                                 report's new directory\n"
               "     --core                      report: the core in the report too\n"
               "  -D --directory=DIR             Read journal files from DIR\n"
               "     --file=PATH                 Read the journal file PATH (a glob; repeatable)\n"
               "     --root=ROOT                 Another system's root: its journal, its cores under ROOT\n"
               "     --image=IMAGE               Refused: mount the image first, then --root= (see dumpctl(1))\n"
               "     --no-journal                Read only the store, not the journal\n"
               "     --all, -m --merge           Read all journal files, other machines' too (containers',\n"
               "                                 /var/log/journal/MACHINE-ID), not only this machine's\n"
               "     --store=DIR                 The store (default: Storage= of the configuration)\n"
               "     --config=PATH               Configuration file (default %s)\n"
               "     --config-dir=DIR            Configuration drop-in directory, repeatable\n"
               "     --policy-dir=DIR            policy, info: policy directory, repeatable\n"
               "     --signature=SIG             Only crashes of this signature (COREDUMPD_SIGNATURE=)\n"
               "     --debugger=PATH             debug: the debugger (default: $DUMPCTL_DEBUGGER, $SYSTEMD_DEBUGGER or gdb)\n"
               "  -A --debugger-arguments=ARGS   debug: extra arguments for the debugger\n\n"
               "Exit status: 0 success, 1 no matching crash or an error (check, policy: a file has\n"
               "lines coredumpd leaves out), 2 invalid usage, 4 core not present (not kept or\n"
               "vacuumed), 5 permission denied.\n",
               COREDUMPD_CONFIG_FILE);
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
        else if (crash_id_is_valid(word))
                m.field = field_name(FIELD_CRASH_ID);
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

static int parse_json_mode(const char *s, enum json_mode *ret) {
        if (strcmp(s, "short") == 0)
                *ret = JSON_SHORT;
        else if (strcmp(s, "pretty") == 0)
                *ret = JSON_PRETTY;
        else if (strcmp(s, "off") == 0)
                *ret = JSON_OFF;
        else
                return -EINVAL;
        return 0;
}

static int parse_arguments(int argc, char *argv[]) {
        enum {
                ARG_VERSION = 0x100, ARG_JSON, ARG_NO_LEGEND, ARG_NO_PAGER, ARG_NO_JOURNAL, ARG_STORE,
                ARG_CONFIG, ARG_CONFIG_DIR, ARG_POLICY_DIR, ARG_DEBUGGER, ARG_SIGNATURE, ARG_FILE, ARG_ALL, ARG_CORE,
                ARG_ROOT, ARG_IMAGE,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "reverse", no_argument, NULL, 'r' },
                { "since", required_argument, NULL, 'S' },
                { "until", required_argument, NULL, 'U' },
                { "field", required_argument, NULL, 'F' },
                { "quiet", no_argument, NULL, 'q' },
                { "json", optional_argument, NULL, ARG_JSON },
                { "no-legend", no_argument, NULL, ARG_NO_LEGEND },
                { "no-pager", no_argument, NULL, ARG_NO_PAGER },
                { "output", required_argument, NULL, 'o' },
                { "core", no_argument, NULL, ARG_CORE },
                { "directory", required_argument, NULL, 'D' },
                { "file", required_argument, NULL, ARG_FILE },
                { "root", required_argument, NULL, ARG_ROOT },
                { "image", required_argument, NULL, ARG_IMAGE },
                { "no-journal", no_argument, NULL, ARG_NO_JOURNAL },
                { "all", no_argument, NULL, ARG_ALL },
                { "merge", no_argument, NULL, 'm' },
                { "store", required_argument, NULL, ARG_STORE },
                { "config", required_argument, NULL, ARG_CONFIG },
                { "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
                { "policy-dir", required_argument, NULL, ARG_POLICY_DIR },
                { "debugger", required_argument, NULL, ARG_DEBUGGER },
                { "signature", required_argument, NULL, ARG_SIGNATURE },
                { "debugger-arguments", required_argument, NULL, 'A' },
                {}
        };
        int c;
        uint32_t n;

        while ((c = getopt_long(argc, argv, "h1mn:rS:U:F:qo:D:A:", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("dumpctl (coredumpd) %s\n", COREDUMPD_VERSION);
                        return 0;
                case '1':
                        arg.lines = 1;
                        arg.lines_given = true;
                        break;
                case 'n':
                        if (parse_uint32(optarg, &n) < 0 || n == 0) {
                                log_error("Invalid number of crashes '%s' for -n: a number of at least 1.", optarg);
                                return -EINVAL;
                        }
                        arg.lines = n;
                        arg.lines_given = true;
                        break;
                case 'r':
                        arg.reverse = true;
                        break;
                case 'S':
                case 'U':
                        if (parse_timestamp(optarg, now_usec(), c == 'S' ? &arg.since : &arg.until) < 0) {
                                log_error("Invalid time '%s' for --%s=; see systemd.time(7): now, today, yesterday, "
                                          "-1h, '2 hours ago', '2024-03-01 12:00', ...", optarg,
                                          c == 'S' ? "since" : "until");
                                return -EINVAL;
                        }
                        break;
                case 'F':
                        if (!*optarg) {
                                log_error("-F needs a field name, such as COREDUMP_EXE.");
                                return -EINVAL;
                        }
                        arg.field = optarg;
                        break;
                case 'q':
                        arg.quiet = true;
                        break;
                case ARG_JSON:
                        if (!optarg && optind < argc && parse_json_mode(argv[optind], &arg.json) >= 0) {
                                optind++; /* "--json short", as coredumpctl takes it */
                                break;
                        }
                        if (!optarg) {
                                /* Bare --json: the old form, one object per line (deprecated). */
                                arg.json = JSON_LINES;
                                break;
                        }
                        if (parse_json_mode(optarg, &arg.json) < 0) {
                                log_error("Invalid --json= mode '%s': short, pretty or off.", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_NO_LEGEND:
                        arg.legend = false;
                        break;
                case ARG_NO_PAGER:
                        arg.pager = false;
                        break;
                case 'o':
                        arg.output = optarg;
                        break;
                case ARG_CORE:
                        arg.core = true;
                        break;
                case 'D':
                        arg.directory = optarg;
                        break;
                case ARG_FILE:
                        if (strv_extend(&arg.files, optarg) < 0)
                                return log_error_errno(ENOMEM, "%m");
                        break;
                case ARG_ROOT:
                        arg.root = optarg;
                        break;
                case ARG_IMAGE:
                        /* coredumpctl dissects and mounts the image (loop devices, root); dumpctl
                         * mounts nothing: the operator's systemd-dissect does, and --root= reads it. */
                        log_error("--image= is not supported: mount the image first (systemd-dissect --mount --read-only "
                                  "%s DIR), then dumpctl --root=DIR.", optarg);
                        return -EINVAL;
                case ARG_NO_JOURNAL:
                        arg.use_journal = false;
                        break;
                case ARG_ALL:
                case 'm':
                        arg.all = true;
                        break;
                case ARG_STORE:
                        arg.store = optarg;
                        break;
                case ARG_CONFIG:
                        arg.config = optarg;
                        break;
                case ARG_CONFIG_DIR:
                        if (strv_extend(&arg.config_dirs, optarg) < 0)
                                return log_error_errno(ENOMEM, "%m");
                        break;
                case ARG_POLICY_DIR:
                        if (strv_extend(&arg.policy_dirs, optarg) < 0)
                                return log_error_errno(ENOMEM, "%m");
                        break;
                case ARG_SIGNATURE: {
                        /* The same as the match COREDUMPD_SIGNATURE=SIG (its text lives in owned_words). */
                        _cleanup_free_ char *m = NULL;
                        if (asprintf(&m, "COREDUMPD_SIGNATURE=%s", optarg) < 0 || strv_extend(&owned_words, m) < 0 ||
                            add_match(owned_words[strv_length(owned_words) - 1]) < 0)
                                return log_error_errno(ENOMEM, "%m");
                        break;
                }
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
        if (!!arg.directory + !!arg.files + !!arg.root > 1) {
                log_error("-D, --file= and --root= each name journal files; give one of them.");
                return -EINVAL;
        }
        if (arg.root && arg.root[0] != '/') {
                log_error("--root= takes an absolute path, not '%s'.", arg.root);
                return -EINVAL;
        }
        if (arg.all && (arg.directory || arg.files || arg.root || !arg.use_journal)) {
                log_error("--all reads every journal file of the system; %s says which to read instead.",
                          arg.directory ? "-D" : arg.files ? "--file=" : arg.root ? "--root=" : "--no-journal");
                return -EINVAL;
        }
        if (!arg.use_journal && (arg.directory || arg.files)) {
                log_error("--no-journal and %s contradict each other.", arg.directory ? "-D" : "--file=");
                return -EINVAL;
        }

        arg.verb = optind < argc ? argv[optind++] : "list";
        if (strcmp(arg.verb, "gdb") == 0)
                arg.verb = "debug";
        for (; optind < argc; optind++)
                if (add_match(argv[optind]) < 0)
                        return log_error_errno(ENOMEM, "%m");

        if (arg.field && arg.json != JSON_OFF) {
                log_error("-F and --json= are two outputs; give one of them.");
                return -EINVAL;
        }
        return 1;
}

int main(int argc, char *argv[]) {
        static const struct {
                const char *name;
                int (*run)(void);
                bool takes_matches;
                bool pages;
        } verbs[] = {
                { "list", verb_list, true, true },
                { "info", verb_info, true, true },
                { "dump", verb_dump, true, false },
                { "debug", verb_debug, true, false },
                { "report", verb_report, true, false },
                { "groups", verb_groups, true, true },
                { "policy", verb_policy, false, true },
                { "check", verb_check, false, true },
                { "reload", verb_reload, false, false },
                { "vacuum", verb_vacuum, false, false },
                { "remove", verb_remove, true, false },
                { "metrics", verb_metrics, false, false },
        };
        int status = EXIT_USAGE;

        log_set_program_name("dumpctl");
        /* dumpctl as the cell that names frames, exec'd by symbols-cell.c (not a command). */
        if (argc == 2 && strcmp(argv[1], SYMBOLS_CELL_ARGUMENT) == 0)
                return symbols_cell_main();
        if (getenv("DUMPCTL_DEBUG"))
                log_set_max_priority(LOG_DEBUG);
        else
                log_set_max_priority(LOG_NOTICE);
        terminal_init();

        int r = parse_arguments(argc, argv);
        if (r <= 0) {
                status = r < 0 ? EXIT_USAGE : EXIT_OK;
                goto finish;
        }

        /* --root=: every path of the records, and the store, under it (reader/entries.h). */
        entry_set_root(arg.root);
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                if (strcmp(arg.verb, verbs[i].name) != 0)
                        continue;
                if (arg.root && !verbs[i].takes_matches) {
                        log_error("--root= applies to list, info, dump, debug and groups: the records of another root.");
                        goto finish;
                }
                if (!verbs[i].takes_matches && arg.n_matches > 0) {
                        log_error("'%s' takes no matches.", arg.verb);
                        goto finish;
                }
                if (arg.field && verbs[i].run != verb_list) {
                        log_error("-F applies to list only.");
                        goto finish;
                }
                if (arg.json != JSON_OFF && verbs[i].run != verb_list && verbs[i].run != verb_groups &&
                    verbs[i].run != verb_info) {
                        log_error("--json= applies to list, info and groups only (the verbs that print records).");
                        goto finish;
                }
                if (verbs[i].pages)
                        pager_open();
                status = verbs[i].run();
                pager_close();
                goto finish;
        }
        log_error("Unknown command '%s'; see dumpctl --help.", arg.verb);

finish:
        symbols_done();
        free(arg.matches);
        strv_free(owned_words);
        strv_free(arg.files);
        strv_free(arg.config_dirs);
        strv_free(arg.policy_dirs);
        return status;
}
