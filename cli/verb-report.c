/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dumpctl report: the newest matching crash as a bundle for a bug report — a new directory (private:
 * 0700, files 0600; the record may hold a command line the user should read before sending it) with
 * summary.txt (package, versions, kernel, OS, the rule that decided, the signature as a line to
 * search for duplicates), record.txt, backtrace.txt, package.txt, os-release and, with --core, the
 * core. Prints the reportbug command that files it; runs nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/dpkg.h"
#include "shared/escape.h"
#include "shared/fileio.h"
#include "shared/log.h"

#define STATUS_MAX (64u << 20)
#define OS_RELEASE_MAX (64u << 10)
#define DEPENDS_MAX 64

static const char *const attachments[] = { "summary.txt", "backtrace.txt", "package.txt", "record.txt", "os-release" };

static FILE *create(int dir_fd, const char *name) {
        int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) {
                log_error_errno(errno, "Cannot create %s: %m", name);
                return NULL;
        }
        FILE *f = fdopen(fd, "we");
        if (!f)
                safe_close(fd);
        return f;
}

static int finish(FILE *f, const char *name) {
        if (ferror(f) | (fclose(f) != 0))
                return log_error_errno(EIO, "Cannot write %s: %m", name);
        return 0;
}

static const char *text(const struct entry *d, enum field f) {
        return fields_get(&d->fields, f);
}

/* The host's dpkg status ($DPKG_ADMINDIR/status, as dpkg takes it), or NULL. */
static char *read_status(size_t *ret_size) {
        const char *admin = getenv("DPKG_ADMINDIR");
        char *buf = NULL;
        if (!admin || admin[0] != '/')
                admin = "/var/lib/dpkg";
        _cleanup_close_ int dir = open(admin, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0 || read_file_at(dir, "status", STATUS_MAX, &buf, ret_size, NULL) < 0)
                return NULL;
        return buf;
}

struct depends_writer {
        FILE *f;
        const char *status;
        size_t status_size;
};

static void write_dependency(const char *name, void *userdata) {
        struct depends_writer *w = userdata;
        struct dpkg_package p;
        if (dpkg_status_find(w->status, w->status_size, name, NULL, &p) > 0)
                fprintf(w->f, "  %s %s%s%s\n", p.name, p.version, p.arch[0] ? " " : "", p.arch);
        else
                fprintf(w->f, "  %s (not installed: a virtual package or an alternative)\n", name);
}

/* package.txt: the package as recorded, its dependencies' versions from this host's status when
 * the recorded version is the one installed here. */
static int write_package(int dir_fd, const struct entry *d) {
        FILE *f = create(dir_fd, "package.txt");
        const char *name = text(d, FIELD_PACKAGE_NAME), *version = text(d, FIELD_PACKAGE_VERSION);
        if (!f)
                return -EIO;
        if (!name) {
                fprintf(f, "Package: none recorded (%s)\n", text(d, FIELD_PACKAGE_ERROR) ?: "not looked up");
                return finish(f, "package.txt");
        }
        fprintf(f, "Package: %s\nVersion: %s\n", name, version ?: "?");
        const char *v;
        if ((v = text(d, FIELD_PACKAGE_ARCHITECTURE)))
                fprintf(f, "Architecture: %s\n", v);
        if ((v = text(d, FIELD_PACKAGE_SOURCE)))
                fprintf(f, "Source: %s %s\n", v, text(d, FIELD_PACKAGE_SOURCE_VERSION) ?: "");
        if ((v = text(d, FIELD_PACKAGE_FILE)))
                fprintf(f, "File: %s\n", v);
        if ((v = text(d, FIELD_PACKAGE_MODIFIED)))
                fprintf(f, "Modified: %s%s\n", v,
                        strcmp(v, "yes") == 0 ? " (its md5sum is not the one the package installed)" : "");
        if ((v = text(d, FIELD_PACKAGE_FROM)))
                fprintf(f, "Found by: %s\n", v);

        size_t size = 0;
        _cleanup_free_ char *status = NULL;
        struct dpkg_package here;
        if (entry_in_own_mount_namespace(d)) {
                fprintf(f, "Depends: unknown (the crash was in a mount namespace of its own, a container: its "
                           "packages are not this host's)\n");
                return finish(f, "package.txt");
        }
        status = read_status(&size);
        if (!status || dpkg_status_find(status, size, name, text(d, FIELD_PACKAGE_ARCHITECTURE), &here) <= 0)
                fprintf(f, "Depends: unknown (%s is not installed on this host)\n", name);
        else if (!version || strcmp(here.version, version) != 0)
                fprintf(f, "Depends: unknown (this host has %s %s, the crash was of %s)\n", name, here.version,
                        version ?: "?");
        else {
                fprintf(f, "Depends (the versions installed on this host now):\n");
                struct depends_writer w = { f, status, size };
                if (here.depends)
                        dpkg_depends_foreach(here.depends, here.depends_size, DEPENDS_MAX, write_dependency, &w);
        }
        return finish(f, "package.txt");
}

/* record.txt: every text field of the record; the compact core only named. */
static int write_record(int dir_fd, const struct entry *d) {
        FILE *f = create(dir_fd, "record.txt");
        if (!f)
                return -EIO;
        for (size_t i = 0; i < d->fields.n; i++) {
                const char *e = d->fields.v[i].iov_base;
                if (strncmp(e, "COREDUMP=", 9) == 0) {
                        fprintf(f, "COREDUMP=(the compact core, %zu bytes, not included)\n", d->fields.v[i].iov_len - 9);
                        continue;
                }
                _cleanup_free_ char *safe = escape_text(e, strlen(e));
                fprintf(f, "%s\n", safe ?: "");
        }
        return finish(f, "record.txt");
}

static int write_backtrace(int dir_fd, const struct entry *d) {
        FILE *f = create(dir_fd, "backtrace.txt");
        if (!f)
                return -EIO;
        const char *bt = fields_get_name(&d->fields, "COREDUMPD_BACKTRACE") ?: fields_get_name(&d->fields, "COREDUMP_BACKTRACE");
        _cleanup_free_ char *named = bt ? symbols_backtrace(d, bt) : NULL;
        fprintf(f, "%s\n", named ?: bt ?: "(no backtrace was recorded)");
        return finish(f, "backtrace.txt");
}

/* os-release of this host (/etc, else /usr/lib), as it is. */
static char *os_release(void) {
        char *buf = NULL;
        size_t size;
        _cleanup_close_ int etc = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int lib = open("/usr/lib", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        /* /etc/os-release is a symlink to ../usr/lib/os-release on Debian: read where it points. */
        if (lib >= 0 && read_file_at(lib, "os-release", OS_RELEASE_MAX, &buf, &size, NULL) == 0)
                return buf;
        if (etc >= 0 && read_file_at(etc, "os-release", OS_RELEASE_MAX, &buf, &size, NULL) == 0)
                return buf;
        return NULL;
}

static void os_pretty_name(const char *release, char *ret, size_t size) {
        snprintf(ret, size, "unknown");
        for (const char *p = release; p && *p;) {
                const char *nl = strchrnul(p, '\n');
                if (strncmp(p, "PRETTY_NAME=", 12) == 0) {
                        const char *v = p + 12;
                        size_t n = (size_t) (nl - v);
                        if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
                                v++;
                                n -= 2;
                        }
                        snprintf(ret, size, "%.*s", (int) MIN(n, size - 1), v);
                }
                p = *nl ? nl + 1 : nl;
        }
}

static bool this_boot(const struct entry *d) {
        const char *boot = text(d, FIELD_BOOT_ID);
        char *now = NULL;
        size_t size;
        _cleanup_close_ int dir = open("/proc/sys/kernel/random", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (!boot || dir < 0 || read_file_at(dir, "boot_id", 64, &now, &size, NULL) < 0)
                return false;
        /* "8d2c...-...": the record's has no dashes */
        char plain[64] = "";
        size_t k = 0;
        for (const char *c = now; *c && k < sizeof plain - 1; c++)
                if (*c != '-' && *c != '\n')
                        plain[k++] = *c;
        free(now);
        return strcmp(plain, boot) == 0;
}

static int write_summary(int dir_fd, const struct entry *d, const char *release, bool with_core) {
        FILE *f = create(dir_fd, "summary.txt");
        struct utsname u;
        char pretty[128], tbuf[64];
        if (!f)
                return -EIO;
        const char *name = text(d, FIELD_PACKAGE_NAME), *sig = text(d, FIELD_SIGNATURE), *v;
        os_pretty_name(release, pretty, sizeof pretty);
        fprintf(f, "Crash of %s (pid %lld), signal %s, %s\n", field_or(d, "COREDUMP_EXE", "?"), d->pid,
                field_or(d, "COREDUMP_SIGNAL_NAME", "?"), d->time_usec ? format_time(tbuf, d->time_usec) : "n/a");
        if (name)
                fprintf(f, "Package: %s %s%s\n", name, text(d, FIELD_PACKAGE_VERSION) ?: "?",
                        (v = text(d, FIELD_PACKAGE_MODIFIED)) && strcmp(v, "yes") == 0 ? " (MODIFIED locally)" : "");
        else
                fprintf(f, "Package: none recorded (%s)\n", text(d, FIELD_PACKAGE_ERROR) ?: "not looked up");
        if ((v = text(d, FIELD_PACKAGE_SOURCE)))
                fprintf(f, "Source: %s %s\n", v, text(d, FIELD_PACKAGE_SOURCE_VERSION) ?: "");
        fprintf(f, "Operating system: %s\n", pretty);
        fprintf(f, "Kernel: %s (%s)\n", uname(&u) == 0 ? u.release : "?",
                this_boot(d) ? "the one that crashed: this boot" : "now; the crash was in another boot");
        fprintf(f, "Decided by: rule %s, action %s, result %s\n", field_or(d, "COREDUMPD_RULE", "?"),
                field_or(d, "COREDUMPD_ACTION", "?"), field_or(d, "COREDUMPD_RESULT", "?"));
        if (sig)
                fprintf(f, "\nSearch for duplicates with this line (the same crash site has the same signature\n"
                           "on every machine):\ncoredumpd-signature: %s%s\n", sig,
                        text(d, FIELD_SIGNATURE_PARTIAL) ? " (of a trace cut short)" : "");
        else
                fprintf(f, "\nNo signature: the crashing thread could not be unwound.\n");
        fprintf(f, "\nFiles: summary.txt backtrace.txt package.txt record.txt os-release%s\n", with_core ? " core" : "");
        return finish(f, "summary.txt");
}

static int write_os_release(int dir_fd, const char *release) {
        FILE *f = create(dir_fd, "os-release");
        if (!f)
                return -EIO;
        fputs(release ?: "(no os-release on this host)\n", f);
        return finish(f, "os-release");
}

/* The bundle's directory: -o DIR, else coredumpd-report-PID-TIME here; never one that exists. */
static int make_dir(const struct entry *d, char **ret) {
        char *path = NULL;
        if (arg.output)
                path = strdup(arg.output);
        else if (asprintf(&path, "coredumpd-report-%lld-%" PRIu64, d->pid, d->time_usec / 1000000) < 0)
                path = NULL;
        if (!path)
                return log_error_errno(ENOMEM, "%m");
        if (mkdir(path, 0700) < 0) {
                int r = log_error_errno(errno, "Cannot make the report's directory %s: %m%s", path,
                                        errno == EEXIST ? " (name a new one with -o DIR)" : "");
                free(path);
                return r;
        }
        *ret = path;
        return 0;
}

int verb_report(void) {
        _cleanup_(entry_list_done) struct entry_list l = {};
        _cleanup_free_ char *dir = NULL, *release = NULL;
        size_t hidden = 0;

        if (gather(&l, &hidden, 1) < 0)
                return EXIT_ERROR;
        if (l.n == 0)
                return no_dump_status(hidden);
        const struct entry *d = &l.entries[l.n - 1];
        if (arg.core && d->presence == ENTRY_NONE) {
                log_error("Crash of pid %lld (%s) has no core for --core: action %s, result %s.", d->pid,
                          field_or(d, "COREDUMP_COMM", "n/a"), field_or(d, "COREDUMPD_ACTION", "?"),
                          field_or(d, "COREDUMPD_RESULT", "?"));
                return EXIT_NOT_PRESENT;
        }
        if (make_dir(d, &dir) < 0)
                return EXIT_ERROR;
        _cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir_fd < 0)
                return log_error_errno(errno, "Cannot open %s: %m", dir), EXIT_ERROR;
        release = os_release();
        if (write_summary(dir_fd, d, release, arg.core) < 0 || write_record(dir_fd, d) < 0 ||
            write_backtrace(dir_fd, d) < 0 || write_package(dir_fd, d) < 0 || write_os_release(dir_fd, release) < 0)
                return EXIT_ERROR;
        if (arg.core) {
                _cleanup_close_ int fd = openat(dir_fd, "core", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
                if (fd < 0)
                        return log_error_errno(errno, "Cannot create %s/core: %m", dir), EXIT_ERROR;
                int status = write_core(d, fd);
                if (status != EXIT_OK)
                        return status;
        }

        const char *package = text(d, FIELD_PACKAGE_NAME);
        bool debian = package && text(d, FIELD_PACKAGE_FROM) && strcmp(text(d, FIELD_PACKAGE_FROM), "dpkg") == 0;
        printf("Wrote the report of pid %lld (%s) to %s/.\n", d->pid, field_or(d, "COREDUMP_COMM", "n/a"), dir);
        if (!package)
                printf("The crash is not attributed to a package (%s): name the package yourself.\n",
                       text(d, FIELD_PACKAGE_ERROR) ?: "not looked up");
        else if (!debian)
                printf("The package %s was named by the executable's package note, not by dpkg: it may not be Debian's.\n",
                       package);
        /* A directory name the shell would split or expand is quoted. */
        bool plain = strspn(dir, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-") == strlen(dir) &&
                     !strchr(dir, '\'');
        printf("Read the files, then file the bug with:\n\n  reportbug");
        for (size_t i = 0; i < ELEMENTSOF(attachments); i++)
                printf(plain ? " --attach=%s/%s" : " '--attach=%s/%s'", dir, attachments[i]);
        printf(" %s\n", package ?: "PACKAGE");
        if (arg.core)
                printf("\nThe core (%s/core) is not attached: it holds the process's memory and is large; send it only "
                       "where the maintainer asks for it.\n", dir);
        return EXIT_OK;
}
