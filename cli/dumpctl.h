/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* dumpctl's shared state (the parsed options and matches) and what its files call of each other. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "config/config.h"
#include "reader/entries.h"

/* Exit statuses, documented in dumpctl(1). No matching crash is 1, as for coredumpctl. */
enum {
        EXIT_OK = 0,
        EXIT_ERROR = 1,         /* an error: I/O, -D, --file or --store, debugger failed; check, policy:
                                 * a file has lines coredumpd leaves out */
        EXIT_NO_DUMP = 1,       /* no recorded crash matches (in text and JSON alike) */
        EXIT_USAGE = 2,         /* invalid command line */
        EXIT_NOT_PRESENT = 4,   /* the crash has no core: none was kept, or it was vacuumed */
        EXIT_PERMISSION = 5,    /* the crash or its core belongs to someone else */
};

enum json_mode {
        JSON_OFF,
        JSON_LINES,             /* bare --json (deprecated): one object per line */
        JSON_SHORT,             /* one array, on one line, as coredumpctl --json=short */
        JSON_PRETTY,            /* one array, indented */
};

struct match {
        const char *field;      /* COREDUMP_PID, COREDUMP_EXE, ... */
        const char *value;
};

struct dumpctl_arguments {
        const char *verb;
        bool reverse;
        enum json_mode json;
        bool legend;
        bool quiet;
        bool pager;
        bool use_journal;
        bool all;               /* --all: every journal file, other machines' too */
        size_t lines;           /* -n: at most this many, the newest; 0: all */
        bool lines_given;
        const char *field;      /* -F */
        uint64_t since, until;  /* 0: unset */
        const char *output;
        bool core;              /* report --core: the core in the bundle */
        const char *directory;
        const char *root;       /* --root=: another system's root (its journal, its cores) */
        char **files;           /* --file= */
        const char *store;
        const char *config;
        char **config_dirs;
        char **policy_dirs;
        const char *debugger;
        const char *debugger_arguments;
        struct match *matches;
        size_t n_matches;
};

/* The parsed command line; defined in dumpctl.c. */
extern struct dumpctl_arguments arg;

/* format.c */
const char *format_time(char buf[static 64], uint64_t usec);
/* "2024-03-01 12:34:56", local time: the list's TIME column. */
const char *format_time_short(char buf[static 32], uint64_t usec);
const char *format_bytes(char buf[static 32], uint64_t bytes);
void json_string(FILE *f, const char *s);
bool has_suffix(const char *s, const char *suffix);

/* json.c: a list of flat objects, in the --json= mode. */
struct json_writer {
        FILE *f;
        enum json_mode mode;
        size_t n_objects, n_fields;
};
void json_list_begin(struct json_writer *w, FILE *f, enum json_mode mode);
void json_list_end(struct json_writer *w);
void json_object_begin(struct json_writer *w);
void json_object_end(struct json_writer *w);
void json_field_string(struct json_writer *w, const char *key, const char *value);   /* NULL: null */
void json_field_number(struct json_writer *w, const char *key, long long value);     /* < 0: null */
void json_field_unsigned(struct json_writer *w, const char *key, uint64_t value);
void json_field_bool(struct json_writer *w, const char *key, bool value);
/* A field whose value is digits, as a number; anything else (or NULL) is null. */
void json_field_digits(struct json_writer *w, const char *key, const char *value);
/* A recorded crash as JSON, the one form every verb prints (list; detailed: info's, more keys). */
void json_entry(struct json_writer *w, const struct entry *d, bool detailed);
/* "coredumpd" or "systemd-coredump": who wrote the record. */
const char *entry_recorder(const struct entry *d);

/* terminal.c: the pager, colours and the width, as systemd's tools have them. */
/* Notes whether stdout is a terminal and its width; call before pager_open(). */
void terminal_init(void);
/* A pager on stdout (and stderr, if it is a terminal) unless --no-pager or stdout is not a terminal. */
void pager_open(void);
/* Waits for the pager to finish. */
void pager_close(void);
bool colors_enabled(void);
/* $COLUMNS, else the terminal's width, else 80. */
size_t terminal_columns(void);
/* An ANSI sequence, or "" without colours. */
const char *ansi(const char *sequence);
#define ANSI_NORMAL "\x1b[0m"
#define ANSI_BOLD "\x1b[1m"
#define ANSI_UNDERLINE "\x1b[4m"
#define ANSI_RED "\x1b[0;1;31m"
#define ANSI_GREEN "\x1b[0;32m"
#define ANSI_YELLOW "\x1b[0;33m"
#define ANSI_GREY "\x1b[0;38;5;245m"
/* Prints s in width columns: cut with an ellipsis at its end (or, keep_tail, its start), padded
 * with blanks if pad. */
void print_cell(const char *s, size_t width, bool keep_tail, bool pad);

/* entries.c */
/* The configuration (--config=, --config-dir=, or the defaults), loaded once; NULL after an error
 * (logged). */
const struct config *dumpctl_config(void);
/* All recorded crashes the caller may see that match, oldest first (-r: newest first), at most the
 * newest limit (0: all); *ret_hidden counts matching ones of others. */
int gather(struct entry_list *ret, size_t *ret_hidden, size_t limit);
/* The store: --store=, else Storage= of the configuration. NULL after an error (logged). */
const char *store_path(void);
int no_dump_status(size_t hidden);
const char *field_or(const struct entry *d, const char *field, const char *fallback);
/* Whether the crashed task had a mount namespace of its own (COREDUMPD_OWN_NAMESPACES= names
 * "mnt"): the paths in its record are of its view, not necessarily the host's. */
bool entry_in_own_mount_namespace(const struct entry *d);
int select_dump(struct entry_list *l, const struct entry **ret);
/* Writes d's compact core (the record's COREDUMP=) to out_fd from the journal it was read from,
 * opened again as the options say. 0 and *ret_size (may be NULL), or -errno (see
 * entry_write_journal_core(); -ENOMEDIUM: the journal cannot be opened now), not logged but for
 * the journal's own trouble. */
int write_journal_core(const struct entry *d, int out_fd, uint64_t *ret_size);
/* Which machine recorded it (a key, to tell machines apart): the journal's _MACHINE_ID, else the
 * record's host name; records read from the store alone are this machine's ("local"). */
const char *entry_machine(const struct entry *d);
/* The machine that recorded it, as list's HOST column names it: the record's COREDUMP_HOSTNAME,
 * else the journal's _HOSTNAME, else "-". */
const char *entry_host(const struct entry *d);
/* The colour of a presence, for list and info. */
const char *presence_color(enum entry_presence p);

/* symbols.c: names for the frames the daemon's unwinder could not name (stripped binaries), from
 * the debug file of the frame's module by build-id: under /usr/lib/debug/.build-id, else from the
 * debuginfod servers of $DEBUGINFOD_URLS (elfutils' client, its cache), all queries of a run within
 * $DEBUGINFOD_TIMEOUT seconds, else SYMBOLS_DEFAULT_TIMEOUT_SEC. */
#define SYMBOLS_DEFAULT_TIMEOUT_SEC 10
/* Whether s is a build-id that may be looked up: lowercase hex, 16 to 40 digits, even. */
bool build_id_valid(const char *s);
/* bt, d's COREDUMPD_BACKTRACE=, with every unnamed frame that d's COREDUMPD_FRAME= ties to a
 * build-id named where its debug file is found ("function + 0x12 [debuginfod]"); NULL: bt as it
 * is (nothing to name, nothing found, or no memory). */
char *symbols_backtrace(const struct entry *d, const char *bt);
/* debuginfod-env.c: whether $DEBUGINFOD_URLS names a server (is neither unset nor blank). */
bool debuginfod_urls_set(void);
/* Ends the lookup's cell, if one runs (below). */
void symbols_done(void);

/*
 * symbols-cell.c, symbols-lookup.c: the frames' names (symbols.c) are looked up in a cell: a fresh `dumpctl` (this program, exec'd
 * again) that reads the debug files, talks to the debuginfod servers and runs libdwfl on what they
 * answer (symbols-lookup.c), started and waited for by symbols-cell.c. When dumpctl runs as root or
 * with any capability the cell runs as SYMBOLS_CELL_UID without capabilities; else as the user, as
 * before. Everything it reads is another machine's data (a record names any build-id; a server or a
 * debug file is attacker-shaped ELF and DWARF); its answer is checked before a byte is printed.
 *
 * The wire, text lines on one socket (the cell's stdin and stdout):
 *   request  "BUILDID 0xOFFSET\n" per frame (at most SYMBOLS_MAX_QUERIES), then an empty line;
 *   answer   per frame in order "= L|D 0xSYMBOL_OFFSET NAME\n" (named from a local debug file or
 *            from debuginfod) or "-\n"; before them any "! NOTICE [ERRNO]\n"; then ".\n".
 */

/* The hidden argument that makes dumpctl the cell (argv[1], alone). */
#define SYMBOLS_CELL_ARGUMENT "--symbols-cell"
/* The ids of the cell of a privileged dumpctl: nobody's, as the daemon's parser for root's crashes. */
#define SYMBOLS_CELL_UID 65534
#define SYMBOLS_CELL_GID 65534
/* Where a privileged dumpctl keeps the cell's debuginfod cache when $DEBUGINFOD_CACHE_PATH names
 * none: the cell's own directory is DIR/unprivileged/UID (symbols-cell.c). */
#define SYMBOLS_CACHE_DIRECTORY "/var/cache/coredumpd/debuginfod"
#define DEBUG_DIRECTORY "/usr/lib/debug/.build-id"

/* The frames a record holds (UNWIND_MAX_FRAMES): the most asked in one request. */
#define SYMBOLS_MAX_QUERIES 64
/* A name printed from a debug file, at most (the parser's PARSER_SYMBOL_MAX). */
#define SYMBOL_MAX 512
/* The cell's time beyond $DEBUGINFOD_TIMEOUT: starting, the local debug files, its answer. */
#define SYMBOLS_CELL_GRACE_USEC (UINT64_C(2000000))

enum symbol_origin {
        SYMBOL_NONE,
        SYMBOL_LOCAL,           /* DEBUG_DIRECTORY */
        SYMBOL_DEBUGINFOD,
};

struct symbol_query {
        char build_id[41];      /* build_id_valid() */
        uint64_t module_offset;
};

struct symbol_answer {
        enum symbol_origin origin;
        uint64_t offset;        /* from the symbol's start */
        char name[SYMBOL_MAX + 1];      /* printable ASCII */
};

/* symbols-wire.c: the notices of the cell, said once each by dumpctl in its own words. */
enum symbols_notice {
        SYMBOLS_NOTICE_LIBRARY,         /* libdebuginfod cannot be loaded */
        SYMBOLS_NOTICE_FUNCTIONS,       /* it lacks the client's functions */
        SYMBOLS_NOTICE_CLIENT,          /* ERRNO: the client does not start */
        SYMBOLS_NOTICE_ERROR,           /* ERRNO: a query failed, not "not found" */
        SYMBOLS_NOTICE_TIME,            /* $DEBUGINFOD_TIMEOUT spent */
        SYMBOLS_NOTICE_CELL,            /* ERRNO: the cell could not be entered */
        _SYMBOLS_NOTICE_MAX,
};
/* Their words on the wire. */
extern const char *const symbols_notice_words[_SYMBOLS_NOTICE_MAX];
bool symbols_notice_has_errno(enum symbols_notice notice);
typedef void (*symbols_notice_fn)(enum symbols_notice notice, int error, void *userdata);
/* The cell's answer to n queries, buf[0..size) (changed), checked whole: true and answers[0..n)
 * filled, each notice handed to fn (may be NULL) as it comes; false for anything the wire does
 * not allow (answers[] then partly filled: not to be used). */
bool symbols_answer_decode(char *buf, size_t size, size_t n, struct symbol_answer *answers, symbols_notice_fn fn,
                           void *userdata);

/* debuginfod-env.c: the seconds of $DEBUGINFOD_TIMEOUT, if it is a positive number, else the
 * default: in usec. */
uint64_t symbols_budget_usec(void);

/* symbols-cell.c: names for queries[0..n) by the cell (started at the first call), within the run's
 * deadline. Returns 0 with answers[] filled (SYMBOL_NONE: no name), or -errno: the cell is gone (or
 * could not start), said once, and no later call names anything. */
int symbols_cell_lookup(const struct symbol_query *queries, size_t n, struct symbol_answer *answers);
/* Ends the cell, if one runs. */
void symbols_cell_done(void);

/* symbols-lookup.c: the cell's main, after the exec; returns the exit status. */
int symbols_cell_main(void);

/* verb-dump.c: writes the decompressed core of d to out_fd, or, where its file is gone or on
 * another machine, the compact core its record carries; returns an exit status. */
int write_core(const struct entry *d, int out_fd);

/* The verbs: each returns an exit status. */
int verb_list(void);
int verb_info(void);
int verb_dump(void);
int verb_debug(void);
int verb_groups(void);
int verb_policy(void);
int verb_check(void);
int verb_reload(void);
int verb_vacuum(void);
int verb_remove(void);
int verb_metrics(void);
int verb_report(void);
