/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Policy: what to do with one crash. An ordered list of rules, the first whose every Match*= holds
 * wins. Files are INI ("[Rule]" sections), loaded from policy.d directories:
 *
 *   [Rule]
 *   Name=no-cores-for-sshd        shown in the journal as COREDUMPD_RULE=
 *   MatchExe=/usr/sbin/sshd       fnmatch(3) glob on the executable path   (repeatable: any of)
 *   MatchComm=python*             glob on comm                             (repeatable)
 *   MatchUnit=*.service           glob on the systemd unit                 (repeatable)
 *   MatchSlice=user.slice         glob on the innermost slice              (repeatable)
 *   MatchSignature=3f2a*          glob on the crash signature (crash/backtrace.c)  (repeatable)
 *   MatchContainer=web*           glob on the container's name (crash/container.c); yes: in any
 *                                 container, no: not in one (the host)    (repeatable)
 *   MatchMachine=build*           the same for systemd-machined machines only (systemd-nspawn@NAME,
 *                                 machine-NAME.scope); yes: in one, no: not (repeatable)
 *   MatchUID=0 1000-1999          uids or ranges, space separated          (any of)
 *   MatchGID=...                  likewise for the gid
 *   MatchSignal=SIGABRT 11        signal names or numbers                  (any of)
 *   MatchDumpable=yes|no          the kernel dumped the task as itself (not as root)
 *   MatchRlimitZero=yes|no        RLIMIT_CORE soft limit is 0
 *   MatchSiCode=SEGV_MAPERR -6    si_code: numbers (any signal), SI_* names (any signal) or
 *                                 signal-specific names (SEGV_ACCERR, BUS_ADRERR, ILL_ILLOPC,
 *                                 FPE_INTDIV, TRAP_BRKPT…, which also require that signal)  (any of)
 *   MatchFaultAddress=null kernel user 0x1000-0x1fff 0xdead
 *                                 the fault address (si_addr of a kernel-raised SIGSEGV, SIGBUS,
 *                                 SIGILL, SIGFPE or SIGTRAP, as the crash-context probe saw it):
 *                                 null = the NULL page, below max(4096, vm.mmap_min_addr); kernel =
 *                                 the upper half; user = the rest of the lower half; or an address
 *                                 or inclusive range. A crash without a known fault address (no
 *                                 probe, kill(), abort()) never matches.                  (any of)
 *   Action=kernel|userspace|reject
 *   Wait=yes|no                   hold the task until we are done (default yes)
 *   MaxSize=2G                    size cap for this dump (default: MaxSize= of coredumpd.conf)
 *   Compress=zstd|none            (default: Compress= of coredumpd.conf)
 *   RateLimitIntervalSec=1h       per signature: the first RateLimitBurst= crashes in this interval
 *   RateLimitBurst=5              get the rule's action; later ones, repeats, get OnRepeat=
 *   OnRepeat=reject|userspace     (nothing, or a stacks self-dump); defaults from coredumpd.conf
 *   MaxAge=30d                    this crash's core is removed when older (default: MaxAge= of
 *                                 coredumpd.conf; 0 or infinity: no age limit)
 *   JournalCore=user|system|no    which records carry the crash's compact core (COREDUMP=): the copy
 *                                 in a regular user's own journal only (user), the system journal's
 *                                 record too, for root's and system services' crashes as well
 *                                 (system: a fleet's collector), or none; default: JournalCore= of
 *                                 coredumpd.conf. A root-only core (setuid) never goes in.
 *   Notify=first|every|none       which of its crashes start the hook coredumpd-crash@CRASH_ID.service
 *                                 (crash/notify.h): the first of a signature in its rate-limit interval
 *                                 (first, the default: a crash loop starts one per interval), every
 *                                 one, or none (nor coredumpd-new-signature@SIGNATURE.service)
 *   UserspaceDump=stacks|stacks+heap-refs|all-writable|none
 *                                 what the core coredumpd writes itself for Action=userspace holds:
 *                                 registers and notes of every thread, the first page of each mapped
 *                                 ELF file (build-ids), the dynamic loader's link map, and the stack
 *                                 window of each thread (stacks, the default), plus the pages the
 *                                 stacks point into (stacks+heap-refs), or every writable private
 *                                 mapping (all-writable); none only acknowledges. Needs Wait=yes.
 *
 * An empty assignment of a repeatable key clears the earlier ones. Every policy ends with the two
 * built-in rules: RLIMIT_CORE == 0 → reject, then everything else → kernel.
 *
 * A rule with any error (an unknown key, a value that does not parse, no Action=) is left out as a
 * whole, with a warning at each error's file:line: half a rule would match crashes its author did
 * not mean. Every other rule, of that file and of the others, applies.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "config/userspace-mode.h"
#include "shared/names.h"

#define POLICY_UNSET (-1)

struct id_range {
        uint32_t low, high;
};

struct si_code_match {
        int signo;              /* 0: any signal */
        int code;
};

enum fault_class {
        FAULT_NULL,
        FAULT_KERNEL,
        FAULT_USER,
        FAULT_RANGE,
};

struct fault_match {
        enum fault_class kind;
        uint64_t low, high;     /* FAULT_RANGE, inclusive */
};

struct policy_rule {
        char *name;
        char *source;           /* file the rule came from, NULL for built-ins */
        unsigned line;          /* line of its [Rule] header */
        unsigned action_line;   /* line of its Action=, 0 if it has none */
        unsigned section_seq;   /* while its file is parsed: its section's ini_file.section_seq */

        char **match_exe;       /* NULL-terminated lists of globs */
        char **match_comm;
        char **match_unit;
        char **match_slice;
        char **match_signature; /* globs on the crash signature */
        char **match_container; /* globs on the container name, or "yes" / "no" */
        char **match_machine;   /* the same, only for systemd-machined machines (nspawn, machine-*.scope) */
        struct id_range *match_uid;
        size_t n_match_uid;
        struct id_range *match_gid;
        size_t n_match_gid;
        int *match_signal;
        size_t n_match_signal;
        int match_dumpable;     /* POLICY_UNSET, 0, 1 */
        int match_rlimit_zero;  /* POLICY_UNSET, 0, 1 */
        struct si_code_match *match_si_code;
        size_t n_match_si_code;
        struct fault_match *match_fault;
        size_t n_match_fault;

        enum action action;
        int wait;               /* POLICY_UNSET (means yes), 0, 1 */
        uint64_t max_size;      /* 0: unset */
        int compress;           /* POLICY_UNSET or enum compression */
        int userspace_mode;     /* POLICY_UNSET or enum userspace_mode */
        uint64_t rate_limit_interval_usec;      /* 0: unset (RateLimitIntervalSec= of coredumpd.conf) */
        int rate_limit_burst;   /* POLICY_UNSET, or per signature and interval */
        int on_repeat;          /* POLICY_UNSET, ACTION_REJECT or ACTION_USERSPACE */
        uint64_t max_age_usec;  /* 0: unset (MaxAge= of coredumpd.conf); USEC_INFINITY: no limit */
        int journal_core;       /* POLICY_UNSET or enum journal_core */
        int notify;             /* POLICY_UNSET (means first) or enum notify */
};

/* Notify=: which crashes of a rule start the hooks (crash/notify.h). */
enum notify {
        NOTIFY_FIRST,
        NOTIFY_EVERY,
        NOTIFY_NONE,
        _NOTIFY_MAX,
};
const char *notify_to_string(enum notify n);
int notify_from_string(const char *s, enum notify *ret);

struct policy {
        atomic_uint n_ref;
        struct policy_rule *rules;
        size_t n_rules;
};

struct policy *policy_new(void);
struct policy *policy_ref(struct policy *p);
struct policy *policy_unref(struct policy *p);
static inline void policy_unrefp(struct policy **p) { if (*p) policy_unref(*p); }

/* Adds an empty rule at the end (before the built-ins are appended). */
struct policy_rule *policy_add_rule(struct policy *p, const char *source, unsigned line);
/* Removes rule i (freeing it). */
void policy_remove_rule(struct policy *p, size_t i);
/* Appends the built-in tail rules. */
int policy_add_builtin_rules(struct policy *p);

/* Whether some rule matches on the crash signature (MatchSignature=): then every crash has to be
 * unwound before the policy can decide. */
bool policy_uses_signature(const struct policy *p);

/* Parses one policy file's text into p (rules are appended). Every error is logged once, as a
 * warning "path:line: what is wrong (hint: ...)", and a rule with any error is left out (logged
 * too). Returns the number of errors (0: the file was clean), or -ENOMEM. */
int policy_parse_file(struct policy *p, FILE *f, const char *path);

/* Loads every *.conf of dirs (config/conf-files.h: earlier directories win for the same file name;
 * files are taken in lexical order of their names), then appends the built-ins. Every file is
 * read; what is wrong in one is logged and left out (a rule, or a file that cannot be read), the
 * rest applies. Returns the number of errors with *ret set (0: all clean), or -ENOMEM. */
int policy_load(const char *const *dirs, struct policy **ret);

/* The default directories, or the ':'-separated $COREDUMPD_POLICY_PATH. */
const char *const *policy_default_dirs(void);
/* The directories given (--policy-dir=, a NULL-terminated list), or else the default ones. */
const char *const *policy_dirs_or_default(char *const *given);

/* MatchSiCode= words: "SEGV_MAPERR", "SI_TKILL", "-6", "1" → *ret. */
int parse_si_code_match(const char *word, struct si_code_match *ret);
/* The name parse_si_code_match() takes for m, or NULL for a plain number. */
const char *si_code_match_name(const struct si_code_match *m);
/* MatchFaultAddress= words: "null", "kernel", "user", "0x1000", "0x1000-0x1fff" → *ret. */
int parse_fault_match(const char *word, struct fault_match *ret);

/* Logs a warning, "file:line: rule 'name': what (hint: ...)", for every rule that parses but cannot
 * do what it says: Action=userspace with Wait=no, UserspaceDump= without Action=userspace,
 * MatchDumpable=no while fs.suid_dumpable (given; negative: unknown) is not 2, a rule behind one
 * that takes every crash. Returns the number of warnings. */
int policy_lint(const struct policy *p, int suid_dumpable);
/* /proc/sys/fs/suid_dumpable: 0, 1, 2 or -errno. */
int read_suid_dumpable(void);

/* Prints the effective rules in the file format, each preceded by "# source:line". */
void policy_print(const struct policy *p, FILE *out);
