/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* dumpctl's shared state (the parsed options and matches) and what its files call of each other. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reader/entries.h"

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

struct dumpctl_arguments {
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
};

/* The parsed command line; defined in dumpctl.c. */
extern struct dumpctl_arguments arg;

/* format.c */
const char *format_time(char buf[static 64], uint64_t usec);
const char *format_bytes(char buf[static 32], uint64_t bytes);
void json_string(FILE *f, const char *s);
bool has_suffix(const char *s, const char *suffix);

/* entries.c */
int gather(struct entry_list *ret, size_t *ret_hidden);
/* The store: --store=, else Storage= of coredumpd.conf. */
char *store_path(void);
int no_dump_status(size_t hidden);
const char *field_or(const struct entry *d, const char *field, const char *fallback);
int select_dump(struct entry_list *l, const struct entry **ret);

/* verb-dump.c: writes the decompressed core of d to out_fd; returns an exit status. */
int write_core(const struct entry *d, int out_fd);

/* verb-policy.c */

/* The verbs: each returns an exit status. */
int verb_list(void);
int verb_info(void);
int verb_dump(void);
int verb_debug(void);
int verb_groups(void);
int verb_policy(void);
int verb_vacuum(void);
