/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl debug: a debugger on the newest matching core, decompressed to a temporary file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/elf-build-id.h"
#include "shared/log.h"
#include "shared/saved-files.h"
#include "shared/strv.h"

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

/* Whether the crash is the caller's own (root's crashes are root's). */
static bool crash_is_callers(const struct entry *d) {
        return d->uid >= 0 && (uid_t) d->uid == getuid();
}

/* The build-id the unwinder read from the executable's own frames (COREDUMPD_FRAME= "N ID+0xOFF
 * SYMBOL+0xOFF MODULE"), or "". */
static void recorded_build_id(const struct entry *d, const char *exe, char out[static 41]) {
        size_t name_len = strlen("COREDUMPD_FRAME=");
        out[0] = 0;
        for (size_t i = 0; i < d->fields.n; i++) {
                const char *e = d->fields.v[i].iov_base;
                size_t len = d->fields.v[i].iov_len;
                if (len <= name_len || strncmp(e, "COREDUMPD_FRAME=", name_len) != 0)
                        continue;
                _cleanup_free_ char *line = strndup(e + name_len, len - name_len);
                char id[64], module[PATH_MAX];
                if (!line || sscanf(line, "%*u %63[0-9a-f]+0x%*x %*s %4095[^\n]", id, module) != 2)
                        continue;
                if (strcmp(module, exe) == 0 && strlen(id) <= 40) {
                        snprintf(out, 41, "%s", id);
                        return;
                }
        }
}

/* Whether the file at path is the build the unwinder read from the crashed task's own mapping of
 * it. Without a recorded build-id: as unknown says. */
static bool host_file_is_the_crashed(const struct entry *d, const char *path, bool unknown) {
        char recorded[41], host[41];
        recorded_build_id(d, path, recorded);
        if (!recorded[0])
                return unknown;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        return fd >= 0 && elf_file_build_id(fd, host) >= 0 && strcmp(host, recorded) == 0;
}

/* The executable as recorded, without " (deleted)"; NULL if it is no longer there. */

static char *executable_of(const struct entry *d) {
        const char *exe = fields_get(&d->fields, FIELD_EXE);
        if (!exe || exe[0] != '/')
                return NULL;
        if (d->found) {
                /* dumpctl --all: whoever wrote those files (a container's root, its linked journal)
                 * chose the path; it is not even looked at, and gdb reads nothing it names. */
                log_warning("Not looking at %s: it is named by a foreign record (not from this machine's own "
                            "system journal, in a journal file not named with -D or --file=); debugging the core alone.", exe);
                return NULL;
        }
        char *p = d->source == ENTRY_SOURCE_JOURNAL ? entry_path_in_root(exe) : strdup(exe); /* --root=: in it */
        if (p && has_suffix(p, " (deleted)"))
                p[strlen(p) - strlen(" (deleted)")] = 0;
        if (p && access(p, R_OK) < 0) {
                log_warning("The executable %s is not there any more; debugging the core alone.", p);
                free(p);
                return NULL;
        }
        struct stat st;
        if (p && d->foreign && (stat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))) {
                /* Anybody may have written that journal: gdb only gets a file only root could have put there. */
                log_warning("Not handing %s, named by a foreign record (not from this machine's own system "
                            "journal), to gdb: not a root-owned file that only root may change; debugging the core "
                            "alone.", p);
                free(p);
                return NULL;
        }
        if (p && !crash_is_callers(d) && (stat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))) {
                /* Another user's crash: the file at that path now is theirs to replace, and gdb reads
                 * (and may run scripts for) what it is given. */
                log_warning("Not handing %s to gdb: the crash is uid %lld's and the file is not one only root may "
                            "change; debugging the core alone.", p, d->uid);
                free(p);
                return NULL;
        }
        /* A task with a mount namespace of its own (a container, or a service with PrivateTmp= and
         * the like) named its executable in its own view: the host's file of that name may be
         * another, and is handed over only if it is the build recorded. Another user's crash: the
         * file at that path now must at least not be another build than the one that crashed. */
        if (p && entry_in_own_mount_namespace(d) && !host_file_is_the_crashed(d, p, false)) {
                log_warning("The executable %s was named in the crashed task's own mount namespace, and the host's "
                            "file of that name is not known to be the build that crashed; debugging the core alone.",
                            p);
                free(p);
                return NULL;
        }
        /* Another machine's crash (a collector's journal), or a remote one (dumpctl --all's foreign
         * records): this machine's file of that name is handed over only if it is the build recorded. */
        if (p && d->remote && !host_file_is_the_crashed(d, p, false)) {
                log_warning("The crash was recorded %s and %s here is not known to be the build that crashed; "
                            "debugging the core alone.",
                            entry_claims_this_machine(d) ? "in a foreign record (not this machine's own system journal)"
                                                         : "on another machine", p);
                free(p);
                return NULL;
        }
        if (p && !crash_is_callers(d) && !host_file_is_the_crashed(d, p, true)) {
                log_warning("Not handing %s to gdb: it is another build than the one that crashed (uid %lld's); "
                            "debugging the core alone.", p, d->uid);
                free(p);
                return NULL;
        }
        return p;
}

/*
 * A crash in a container: its record lists the ELF objects it mapped (COREDUMPD_SAVED_FILE=), and
 * the daemon kept copies of those the host lacks next to the core. The debugger gets a temporary
 * sysroot holding each at its path in the container: a link to the kept copy, or to the host's
 * file where it was the same; the executable from there; and auto-loading off, since the files
 * came from a container.
 */
struct sysroot {
        char path[PATH_MAX];            /* "" when there is none */
        char *exe;                      /* the executable in it, or NULL */
        char *search;                   /* the directories of its libraries, ':'-separated */
};

/* Creates the directories of rel (a checked path) under dir_fd; returns the parent's fd. */
static int make_parents(int dir_fd, const char *rel, const char **ret_last) {
        _cleanup_free_ char *copy = strdup(rel);
        int fd = dup(dir_fd);

        if (!copy || fd < 0) {
                safe_close(fd);
                return -ENOMEM;
        }
        char *p = copy + 1, *slash;
        while ((slash = strchr(p, '/'))) {
                *slash = 0;
                if (mkdirat(fd, p, 0700) < 0 && errno != EEXIST) {
                        int r = -errno;
                        safe_close(fd);
                        return r;
                }
                int next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                safe_close(fd);
                if (next < 0)
                        return -errno;
                fd = next;
                p = slash + 1;
        }
        *ret_last = rel + (p - copy);
        return fd;
}

/* A kept copy the debugger may be given: for a foreign entry only a root-owned file that only root
 * may change, as for the executable. */
static bool kept_copy_ok(const struct entry *d, const char *path) {
        struct stat st;
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, R_OK) < 0)
                return false;
        return !d->foreign || (st.st_uid == 0 && !(st.st_mode & 022));
}

static void remove_tree_at(int dir_fd) {
        _cleanup_closedir_ DIR *dir = fdopendir(dup(dir_fd));
        struct dirent *de;

        while (dir && (de = readdir(dir))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (de->d_type == DT_DIR) {
                        int sub = openat(dir_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (sub >= 0) {
                                remove_tree_at(sub);
                                close(sub);
                        }
                        (void) unlinkat(dir_fd, de->d_name, AT_REMOVEDIR);
                } else
                        (void) unlinkat(dir_fd, de->d_name, 0);
        }
}

static void sysroot_done(struct sysroot *r) {
        if (r->path[0]) {
                int fd = open(r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd >= 0) {
                        remove_tree_at(fd);
                        close(fd);
                }
                (void) rmdir(r->path);
        }
        free(r->exe);
        free(r->search);
        *r = (struct sysroot) {};
}

static int search_add(struct sysroot *r, const char *dir) {
        if (r->search) {
                /* once each */
                size_t n = strlen(dir);
                for (const char *p = r->search; p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL)
                        if (strncmp(p, dir, n) == 0 && (p[n] == ':' || p[n] == 0))
                                return 0;
        }
        char *grown;
        if (asprintf(&grown, "%s%s%s", r->search ?: "", r->search ? ":" : "", dir) < 0)
                return -ENOMEM;
        free(r->search);
        r->search = grown;
        return 0;
}

/* The sysroot's directory, new and empty, in $TMPDIR (or /var/tmp): 0, or -errno (logged). */
static int sysroot_dir_new(struct sysroot *r) {
        const char *tmpdir = getenv("TMPDIR") ?: "/var/tmp";
        snprintf(r->path, sizeof r->path, "%s/dumpctl-root.XXXXXX", tmpdir);
        if (!mkdtemp(r->path)) {
                int r_errno = errno;
                log_error_errno(r_errno, "Cannot create a temporary directory in %s: %m", tmpdir);
                r->path[0] = 0;
                return -r_errno;
        }
        return 0;
}

/* 0 with *r filled (or left empty: the record lists no files), or an exit status. */
static int sysroot_make(const struct entry *d, const char *exe_path, struct sysroot *r) {
        _cleanup_(saved_files_done) struct saved_files files = {};
        const char *core = fields_get(&d->fields, FIELD_FILENAME);

        if (d->found) {
                /* dumpctl --all's foreign record: its compact core names libraries too (its link map,
                 * its mapped files); an empty sysroot, so that gdb opens none of them here. */
                if (sysroot_dir_new(r) < 0)
                        return EXIT_ERROR;
                log_info("The record is foreign (not from this machine's own system journal): gdb gets the empty "
                         "sysroot %s, no library its core names.", r->path);
                return EXIT_OK;
        }
        if (!fields_get(&d->fields, FIELD_SAVED_FILE) || !core)
                return EXIT_OK;
        if (d->remote) {
                /* Another machine's, or a foreign record found by --all: no file it names is opened. */
                log_warning("The record is %s: debugging without the container's files it lists.",
                            entry_claims_this_machine(d) ? "foreign (not from this machine's own system journal)"
                                                         : "another machine's");
                return EXIT_OK;
        }
        if (saved_files_from_fields(&d->fields, &files) < 0) {
                log_warning("The record's %s is malformed; debugging without the container's files.",
                            field_name(FIELD_SAVED_FILE));
                return EXIT_OK;
        }
        _cleanup_free_ char *store_dir = NULL;
        if (d->foreign)
                store_dir = store_path() ? entry_path_in_root(store_path()) : NULL; /* --root=: in it */
        else if ((store_dir = strdup(core)))
                *strrchr(store_dir, '/') = 0;
        if (!store_dir)
                return EXIT_ERROR;

        if (sysroot_dir_new(r) < 0)
                return EXIT_ERROR;
        _cleanup_close_ int root_fd = open(r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (root_fd < 0)
                return EXIT_ERROR;

        size_t linked = 0;
        for (size_t i = 0; i < files.n; i++) {
                const struct saved_file *f = &files.v[i];
                _cleanup_free_ char *target = NULL;
                if (f->stored) {
                        if (asprintf(&target, "%s/%s", store_dir, f->stored) < 0)
                                return EXIT_ERROR;
                        if (!kept_copy_ok(d, target)) {
                                log_warning("The kept copy %s of %s is not there or not readable.", target, f->path);
                                continue;
                        }
                } else if (f->host) {
                        if (!(target = strdup(f->path)))
                                return EXIT_ERROR;
                } else {
                        log_warning("%s of the container was not kept; the debugger goes without it.", f->path);
                        continue;
                }
                const char *last = NULL;
                int dir = make_parents(root_fd, f->path, &last);
                if (dir < 0) {
                        log_warning("Cannot place %s in %s: %s", f->path, r->path, strerror(-dir));
                        continue;
                }
                int k = symlinkat(target, dir, last);
                close(dir);
                if (k < 0)
                        continue; /* listed twice */
                linked++;
                _cleanup_free_ char *full = NULL, *parent = NULL;
                if (asprintf(&full, "%s%s", r->path, f->path) < 0 || !(parent = strdup(full)))
                        return EXIT_ERROR;
                *strrchr(parent, '/') = 0;
                if (search_add(r, parent) < 0)
                        return EXIT_ERROR;
                if (exe_path && !r->exe && strcmp(f->path, exe_path) == 0)
                        r->exe = TAKE_PTR(full);
        }
        /* Merged /usr: the loader names /lib64/…, /lib/…, maps name /usr/lib/…. */
        static const char *const merged[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };
        for (size_t i = 0; i < sizeof merged / sizeof merged[0]; i++) {
                char usr[32];
                struct stat st;
                snprintf(usr, sizeof usr, "usr/%s", merged[i]);
                if (fstatat(root_fd, merged[i], &st, AT_SYMLINK_NOFOLLOW) < 0 && fstatat(root_fd, usr, &st, 0) == 0)
                        if (symlinkat(usr, root_fd, merged[i]) < 0)
                                log_debug("Cannot link /%s to %s: %m", merged[i], usr);
        }
        log_info("The crash was in a container: %zu of its %zu file(s) in %s for the debugger.", linked, files.n, r->path);
        return EXIT_OK;
}

static bool debugger_is_gdb(const char *debugger) {
        const char *base = strrchr(debugger, '/');
        base = base ? base + 1 : debugger;
        return strncmp(base, "gdb", 3) == 0;
}

int verb_debug(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        _cleanup_(strv_freep) char **extra = NULL;
        _cleanup_(strv_freep) char **argv = NULL;
        _cleanup_free_ char *exe = NULL;
        _cleanup_(sysroot_done) struct sysroot root = {};
        const struct entry *d = NULL;
        /* coredumpctl's $SYSTEMD_DEBUGGER too, for users who set it for that. */
        const char *debugger = arg.debugger ?: getenv("DUMPCTL_DEBUGGER") ?: getenv("SYSTEMD_DEBUGGER") ?: "gdb";
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

        const char *recorded_exe = fields_get(&d->fields, FIELD_EXE);
        _cleanup_free_ char *exe_path = recorded_exe ? strdup(recorded_exe) : NULL;
        if (exe_path && has_suffix(exe_path, " (deleted)"))
                exe_path[strlen(exe_path) - strlen(" (deleted)")] = 0;
        status = sysroot_make(d, exe_path, &root);
        if (status != EXIT_OK) {
                (void) unlink(tmp);
                return status;
        }
        if (root.path[0] && !d->found)
                /* A container's: never the host's file of that name. */
                exe = root.exe ? strdup(root.exe) : NULL;
        else
                exe = executable_of(d); /* a found record's: none, and why */
        if (strv_extend(&argv, debugger) < 0)
                goto oom;
        /* gdb reads $DEBUGINFOD_URLS (the environment is passed on as it is) but by default asks
         * before it uses it, and its batch mode answers no: whoever set the variable wants it. */
        if (debuginfod_urls_set() && debugger_is_gdb(debugger) &&
            (strv_extend(&argv, "-iex") < 0 || strv_extend(&argv, "set debuginfod enabled on") < 0))
                goto oom;
        if (root.path[0] && debugger_is_gdb(debugger)) {
                _cleanup_free_ char *sysroot = NULL, *search = NULL;
                if (asprintf(&sysroot, "set sysroot %s", root.path) < 0 ||
                    asprintf(&search, "set solib-search-path %s", root.search ?: root.path) < 0)
                        goto oom;
                if (strv_extend(&argv, "-iex") < 0 || strv_extend(&argv, "set auto-load off") < 0 ||
                    strv_extend(&argv, "-iex") < 0 || strv_extend(&argv, sysroot) < 0 ||
                    strv_extend(&argv, "-iex") < 0 || strv_extend(&argv, search) < 0)
                        goto oom;
        } else if ((d->foreign || !crash_is_callers(d)) && debugger_is_gdb(debugger)) {
                /* No .gdbinit or -gdb.py of another user's files runs with the caller's rights. */
                if (strv_extend(&argv, "-iex") < 0 || strv_extend(&argv, "set auto-load off") < 0)
                        goto oom;
        }
        if (arg.root && !root.path[0] && debugger_is_gdb(debugger)) {
                /* --root=: the libraries the core names are the other system's. */
                _cleanup_free_ char *sysroot = NULL;
                if (asprintf(&sysroot, "set sysroot %s", arg.root) < 0 || strv_extend(&argv, "-iex") < 0 ||
                    strv_extend(&argv, sysroot) < 0)
                        goto oom;
        }
        for (char **a = extra; a && *a; a++)
                if (strv_extend(&argv, *a) < 0)
                        goto oom;
        if (exe && strv_extend(&argv, exe) < 0)
                goto oom;
        if (strv_extend(&argv, "-c") < 0 || strv_extend(&argv, tmp) < 0)
                goto oom;

        fprintf(stderr, "Debugging pid %lld (%s) with %s, core %s%s%s\n", d->pid, field_or(d, "COREDUMP_COMM", "n/a"),
                debugger, d->presence == ENTRY_JOURNAL ? "the compact one in its journal record" : field_or(d, "COREDUMP_FILENAME", "?"),
                exe ? ", executable " : "", exe ? exe : "");
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
