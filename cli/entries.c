/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl's crashes: the configuration and the store, gathering the entries from journal and store,
 * matching them, selecting one. */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build-config.h"
#include "config/config.h"
#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/kernel-handler.h"
#include "shared/log.h"
#include "shared/strv.h"

static struct config config;
static bool config_loaded;

static void config_free(void) {
        config_done(&config);
}

const struct config *dumpctl_config(void) {
        if (config_loaded)
                return &config;
        config_init_defaults(&config);
        atexit(config_free);
        /* An explicit --config= must be there. What is wrong in a file is `dumpctl check`'s to tell
         * line by line; here, as for the daemon, the rest applies, and a word says so. */
        int saved = log_get_max_priority();
        log_set_max_priority(MIN(saved, LOG_ERR));
        int r = config_load_with_dropins(&config, arg.config ?: COREDUMPD_CONFIG_FILE, arg.config != NULL,
                                         config_dropin_dirs(arg.config_dirs, arg.config != NULL));
        log_set_max_priority(saved);
        if (r < 0) {
                log_error_errno(r, "Cannot read the configuration: %m");
                return NULL;
        }
        if (r > 0 && !arg.quiet)
                log_warning("The configuration has lines coredumpd leaves out; see dumpctl check.");
        config_loaded = true;
        return &config;
}

const char *store_path(void) {
        static bool checked;

        if (arg.store) {
                /* Named on the command line: it must be a directory (others may search it, not list it);
                 * with --root=, the other system's, under its root. */
                struct stat st;
                _cleanup_free_ char *here = entry_path_in_root(arg.store);
                if (!here)
                        return NULL;
                if (!checked && stat(here, &st) < 0) {
                        log_error_errno(errno, "Cannot use the store --store=%s: %m", arg.store);
                        return NULL;
                }
                if (!checked && !S_ISDIR(st.st_mode)) {
                        log_error("Cannot use the store --store=%s: not a directory.", arg.store);
                        return NULL;
                }
                checked = true;
                return arg.store;
        }
        const struct config *c = dumpctl_config();
        return c ? c->storage : NULL;
}

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

/* Whether the caller is in group name (its real or a supplementary group). */
static bool in_group(const char *name) {
        struct group *g = getgrnam(name);
        if (!g)
                return false;
        if (getgid() == g->gr_gid || getegid() == g->gr_gid)
                return true;
        int n = getgroups(0, NULL);
        if (n <= 0)
                return false;
        _cleanup_free_ gid_t *list = calloc((size_t) n, sizeof *list);
        if (!list || (n = getgroups(n, list)) < 0)
                return false;
        for (int i = 0; i < n; i++)
                if (list[i] == g->gr_gid)
                        return true;
        return false;
}

/* Root, and members of adm and systemd-journal (who read every journal file, as journald's files'
 * ACLs and group say), see every crash, as coredumpctl shows them; other users their own only. */
static bool entry_visible(const struct entry *d) {
        static int reads_all = -1;
        uid_t uid = getuid();
        if (uid == 0 || (d->uid >= 0 && (uid_t) d->uid == uid))
                return true;
        if (reads_all < 0)
                reads_all = in_group("adm") || in_group("systemd-journal");
        return reads_all;
}

/* --file=: each a path or a glob, which must name at least one file. */
static int expand_files(char ***ret) {
        char **l = NULL;

        for (char **f = arg.files; f && *f; f++) {
                glob_t g = {};
                int r = glob(*f, GLOB_NOCHECK, NULL, &g);
                if (r != 0) {
                        globfree(&g);
                        strv_free(l);
                        return log_error_errno(ENOMEM, "%m");
                }
                for (size_t i = 0; i < g.gl_pathc; i++) {
                        struct stat st;
                        int e = stat(g.gl_pathv[i], &st) < 0 ? errno
                                : S_ISDIR(st.st_mode)       ? EISDIR
                                : !S_ISREG(st.st_mode)      ? EINVAL
                                                            : 0;
                        if (e != 0) {
                                log_error_errno(e, "Cannot read the journal file --file=%s: %m", g.gl_pathv[i]);
                                globfree(&g);
                                strv_free(l);
                                return -e;
                        }
                        if (strv_extend(&l, g.gl_pathv[i]) < 0) {
                                globfree(&g);
                                strv_free(l);
                                return log_error_errno(ENOMEM, "%m");
                        }
                }
                globfree(&g);
        }
        *ret = l;
        return 0;
}

/* A journal file sd-journal cannot read (not a journal, cut short, empty, a format newer than this
 * libsystemd's): sd_journal_open_directory() passes over it without a word and
 * sd_journal_open_files() fails the whole set without naming it. On a collector such a file is
 * anyone's upload gone wrong, so each named file is tried alone first, and one that fails is named
 * here, once, and left out; the rest is read. */
static bool journal_file_readable(const char *path) {
        sd_journal *j = NULL;
        int r = sd_journal_open_files(&j, (const char *[]) { path, NULL }, 0);
        if (r < 0) {
                log_warning_errno(r, "Journal file %s cannot be read (%s%m), ignored.", path,
                                  r == -EBADMSG                              ? "corrupt: "
                                  : r == -ENODATA                            ? "empty or cut short: "
                                  : r == -EPROTONOSUPPORT || r == -EOPNOTSUPP ? "unsupported format: "
                                                                              : "");
                return false;
        }
        sd_journal_close(j);
        return true;
}

static bool is_journal_file_name(const char *name) {
        size_t n = strlen(name);
        return (n > 8 && strcmp(name + n - 8, ".journal") == 0) || (n > 9 && strcmp(name + n - 9, ".journal~") == 0);
}

/* -D: the journal files sd_journal_open_directory() reads (directly in the directory, *.journal
 * and *.journal~), each tried alone so that an unreadable one is named. */
static void check_directory_files(const char *dir) {
        _cleanup_closedir_ DIR *d = opendir(dir);
        if (!d)
                return; /* sd_journal_open_directory() says why */
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!is_journal_file_name(de->d_name))
                        continue;
                _cleanup_free_ char *path = NULL;
                struct stat st;
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
                        log_error_errno(ENOMEM, "%m");
                        return;
                }
                if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                        continue;
                (void) journal_file_readable(path);
        }
}

static bool is_system_journal_name(const char *name) {
        return strcmp(name, "system.journal") == 0 ||
               (strncmp(name, "system@", 7) == 0 && is_journal_file_name(name));
}

/* This machine's own system journal files, the only ones whose _UID=0 proves anything (see
 * entry_list_load_journal()): system.journal and its archives in /var/log/journal/MACHINE-ID and
 * /run/log/journal/MACHINE-ID, directories of root's that only root may change, regular files of
 * root's that the caller may read (none: 0 and *ret NULL). */
static int open_local_system_journal(sd_journal **ret) {
        _cleanup_(strv_freep) char **files = NULL;
        char id[SD_ID128_STRING_MAX];
        sd_id128_t m;

        *ret = NULL;
        if (sd_id128_get_machine(&m) < 0)
                return 0;
        sd_id128_to_string(m, id);
        for (size_t i = 0; i < 2; i++) {
                _cleanup_free_ char *dir = NULL;
                struct stat st;
                if (asprintf(&dir, "%s/%s", i == 0 ? "/var/log/journal" : "/run/log/journal", id) < 0)
                        return -ENOMEM;
                if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
                        continue;
                _cleanup_closedir_ DIR *d = opendir(dir);
                struct dirent *de;
                while (d && (de = readdir(d))) {
                        _cleanup_free_ char *path = NULL;
                        if (!is_system_journal_name(de->d_name))
                                continue;
                        if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
                                return -ENOMEM;
                        if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || access(path, R_OK) < 0)
                                continue;
                        if (strv_extend(&files, path) < 0)
                                return -ENOMEM;
                }
        }
        if (!files)
                return 0;
        return sd_journal_open_files(ret, (const char **) files, 0);
}

/* The journal as the options name it: the files the user named (-D, --file=), whose trouble is an
 * error (logged, negative), or the system's, whose trouble is a warning (0 and *ret NULL: the store
 * may still be listed). The system's is every file it has (this machine's only, or with --all all
 * machines'), its own system journal files among them: see load_journal(). */
static int open_journal(sd_journal **ret) {
        sd_journal *j = NULL;
        int r;

        *ret = NULL;

        if (arg.root) {
                /* Another system's journal (its /var/log/journal and /run/log/journal), as coredumpctl
                 * --root= reads it: every record foreign, its paths taken under the root. */
                r = sd_journal_open_directory(&j, arg.root, SD_JOURNAL_OS_ROOT);
                if (r < 0)
                        return log_error_errno(r, "Cannot open the journal of the root --root=%s: %m", arg.root);
        } else if (arg.directory) {
                struct stat st;
                if (stat(arg.directory, &st) < 0)
                        return log_error_errno(errno, "Cannot read the journal directory -D %s: %m", arg.directory);
                if (!S_ISDIR(st.st_mode))
                        return log_error_errno(ENOTDIR, "Cannot read the journal directory -D %s: %m", arg.directory);
                check_directory_files(arg.directory);
                r = sd_journal_open_directory(&j, arg.directory, 0);
                if (r < 0)
                        return log_error_errno(r, "Cannot open the journal directory -D %s: %m", arg.directory);
        } else if (arg.files) {
                _cleanup_(strv_freep) char **files = NULL;
                r = expand_files(&files);
                if (r < 0)
                        return r;
                size_t n = 0;
                for (size_t i = 0; files[i]; i++) {
                        if (journal_file_readable(files[i]))
                                files[n++] = files[i];
                        else
                                free(files[i]);
                }
                files[n] = NULL;
                if (n == 0)
                        return log_error_errno(ENODATA, "Cannot open the journal files: none of them can be read.");
                r = sd_journal_open_files(&j, (const char **) files, 0);
                if (r < 0)
                        return log_error_errno(r, "Cannot open the journal files: %m");
        } else {
                /* As coredumpctl: this machine's journal files, or with --all those of every machine
                 * in journald's directories too (/var/log/journal/MACHINE-ID: a container's linked
                 * journal, another machine's files). */
                r = sd_journal_open(&j, arg.all ? 0 : SD_JOURNAL_LOCAL_ONLY);
                if (r < 0) {
                        if (!arg.quiet)
                                log_warning_errno(r, "Cannot open the journal, listing the store only: %m");
                        return 0;
                }
        }
        *ret = j;
        return 0;
}

/* The journal's entries (see open_journal() for its trouble). Without -D and --file=, this machine's
 * own system journal files are read first, on their own: their records are the trusted ones; then
 * every file, whose records not read already are foreign (users' journals, and with --all containers'
 * and other machines'). */
static int load_journal(struct entry_list *all) {
        bool named = arg.directory || arg.files || arg.root;
        sd_journal *j = NULL;
        int r;

        if (!named) {
                r = open_local_system_journal(&j);
                if (r >= 0 && j)
                        r = entry_list_load_journal(all, j, JOURNAL_LOCAL_SYSTEM);
                sd_journal_close(j);
                if (r < 0 && !arg.quiet)
                        log_warning_errno(r, "Reading this machine's system journal failed: %m");
        }
        r = open_journal(&j);
        if (r < 0 || !j)
                return r;
        r = entry_list_load_journal(all, j, named ? JOURNAL_NAMED : arg.all ? JOURNAL_FOUND : JOURNAL_LOCAL);
        sd_journal_close(j);
        if (r < 0) {
                if (named)
                        return log_error_errno(r, "Reading the journal failed: %m");
                if (!arg.quiet)
                        log_warning_errno(r, "Reading the journal failed: %m");
        }
        return 0;
}

int gather(struct entry_list *ret, size_t *ret_hidden, size_t limit) {
        _cleanup_(entry_list_done) struct entry_list all = {};
        int r;

        const char *store = store_path();
        if (!store)
                return -EINVAL;
        /* --root=: the store's path and the records' paths are the other system's, taken under it. */
        _cleanup_free_ char *store_here = entry_path_in_root(store);
        if (!store_here)
                return log_error_errno(ENOMEM, "%m");
        if (arg.use_journal) {
                r = load_journal(&all);
                if (r < 0)
                        return r;
        }

        r = entry_list_load_store(&all, store_here);
        if (r < 0 && r != -ENOENT && !(r == -EACCES && getuid() != 0) && !arg.quiet)
                log_warning_errno(r, "Cannot list the store %s: %m", store_here);

        entry_list_finish(&all, store);

        size_t hidden = 0, kept = 0;
        for (size_t i = 0; i < all.n; i++) {
                struct entry *d = &all.entries[i];
                bool keep = entry_matches(d);
                if (keep && !entry_visible(d)) {
                        hidden++;
                        keep = false;
                }
                if (keep)
                        all.entries[kept++] = *d;
                else
                        entry_done(d);
        }
        all.n = kept;
        struct entry_list l = all;
        all = (struct entry_list) {};

        /* -n, -1: the newest only. */
        if (limit > 0 && l.n > limit) {
                size_t drop = l.n - limit;
                for (size_t i = 0; i < drop; i++)
                        entry_done(&l.entries[i]);
                memmove(l.entries, l.entries + drop, limit * sizeof l.entries[0]);
                l.n = limit;
        }
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

int no_dump_status(size_t hidden) {
        /* Others' crashes matched by name (PID, FIELD=VALUE, ...): say so. Unnamed, they are not ours
         * to mention. */
        if (hidden > 0 && arg.n_matches > 0) {
                log_error("Permission denied: the matching crash%s belong%s to another user.", hidden > 1 ? "es" : "",
                          hidden > 1 ? "" : "s");
                return EXIT_PERMISSION;
        }
        if (!arg.quiet) {
                log_notice(arg.n_matches == 0 && !arg.since && !arg.until ? "No crash recorded."
                                                                          : "No matching crash recorded.");
                /* Why there may be none: the kernel hands its crashes to another handler. */
                (void) kernel_handler_warn();
        }
        return EXIT_NO_DUMP;
}

int write_journal_core(const struct entry *d, int out_fd, uint64_t *ret_size) {
        sd_journal *j;

        /* The journal as the entry was read from it: its cursor names it there. A trusted record's
         * in this machine's system journal files alone, where no other file may hold an entry of the
         * same cursor with another core. */
        int r = !d->foreign && !arg.directory && !arg.files && !arg.root ? open_local_system_journal(&j) : open_journal(&j);
        if (r < 0)
                return r;
        if (!j)
                return -ENOMEDIUM;
        r = entry_write_journal_core(j, d, out_fd, ret_size);
        sd_journal_close(j);
        return r;
}

const char *entry_machine(const struct entry *d) {
        return field_or(d, "_MACHINE_ID", field_or(d, "COREDUMP_HOSTNAME", "local"));
}

const char *entry_host(const struct entry *d) {
        return field_or(d, "COREDUMP_HOSTNAME", field_or(d, "_HOSTNAME", "-"));
}

const char *field_or(const struct entry *d, const char *field, const char *fallback) {
        const char *v = fields_get_name(&d->fields, field);
        return v && *v ? v : fallback;
}

bool entry_in_own_mount_namespace(const struct entry *d) {
        const char *own = fields_get(&d->fields, FIELD_OWN_NAMESPACES);
        for (const char *p = own; p && *p;) {
                size_t n = strcspn(p, " ");
                if (n == 3 && strncmp(p, "mnt", 3) == 0)
                        return true;
                p += n;
                p += strspn(p, " ");
        }
        return false;
}

const char *presence_color(enum entry_presence p) {
        switch (p) {
        case ENTRY_PRESENT:      return ansi(ANSI_GREEN);
        case ENTRY_MISSING:      return ansi(ANSI_YELLOW);
        case ENTRY_INACCESSIBLE: return ansi(ANSI_RED);
        case ENTRY_NONE:         return ansi(ANSI_GREY);
        case ENTRY_REMOTE:       return ansi(ANSI_GREY);
        case ENTRY_JOURNAL:      return ansi(ANSI_GREEN);
        }
        return "";
}

/* The newest matching crash with a core; a clear status when there is none. */
int select_dump(struct entry_list *l, const struct entry **ret) {
        size_t hidden = 0;

        /* -r, as coredumpctl takes it here: the newest match is used either way. */
        if (gather(l, &hidden, 0) < 0)
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
        if (best->presence == ENTRY_REMOTE && entry_claims_this_machine(best)) {
                log_error("The core of pid %lld (%s) is not read: its record is not from this machine's own system "
                          "journal as root wrote it, and nothing it names is opened (%s); it carries no compact core.",
                          best->pid, field_or(best, "COREDUMP_COMM", "n/a"), field_or(best, "COREDUMP_FILENAME", "?"));
                return EXIT_NOT_PRESENT;
        }
        if (best->presence == ENTRY_REMOTE) {
                log_error("The core of pid %lld (%s) is on the machine that recorded it (%s, machine id %s), not this one.",
                          best->pid, field_or(best, "COREDUMP_COMM", "n/a"), field_or(best, "COREDUMP_HOSTNAME", "?"),
                          field_or(best, "_MACHINE_ID", "?"));
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
