/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The frames' names (symbols.c) are looked up in a cell: a fresh `dumpctl` (this program, exec'd
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

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

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

/* The notices of the cell: said once each, by dumpctl, from the code alone. */
#define SYMBOLS_NOTICE_LIBRARY "library"        /* libdebuginfod cannot be loaded */
#define SYMBOLS_NOTICE_FUNCTIONS "functions"    /* it lacks the client's functions */
#define SYMBOLS_NOTICE_CLIENT "client"          /* ERRNO: the client does not start */
#define SYMBOLS_NOTICE_ERROR "error"            /* ERRNO: a query failed, not "not found" */
#define SYMBOLS_NOTICE_TIME "time"              /* $DEBUGINFOD_TIMEOUT spent */
#define SYMBOLS_NOTICE_CELL "cell"              /* ERRNO: the cell could not be entered */

/* The seconds of $DEBUGINFOD_TIMEOUT, if it is a positive number, else the default: in usec. */
uint64_t symbols_budget_usec(void);

/* symbols-cell.c: names for queries[0..n) by the cell (started at the first call), within the run's
 * deadline. Returns 0 with answers[] filled (SYMBOL_NONE: no name), or -errno: the cell is gone (or
 * could not start), said once, and no later call names anything. */
int symbols_cell_lookup(const struct symbol_query *queries, size_t n, struct symbol_answer *answers);
/* Ends the cell, if one runs. */
void symbols_cell_done(void);

/* symbols-lookup.c: the cell's main, after the exec; returns the exit status. */
int symbols_cell_main(void);
