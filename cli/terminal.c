/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dumpctl on a terminal, as systemd's tools behave there:
 *
 *  - a pager when stdout is a terminal (not with --no-pager): $SYSTEMD_PAGER, else $PAGER, else
 *    less, else more; "cat" or an empty value means none. less gets LESS=$SYSTEMD_LESS or FRSXMK.
 *    In secure mode ($SYSTEMD_PAGERSECURE=1, or when it is unset and we run with another user's
 *    privileges, through sudo or set-uid) LESSSECURE=1 is set, and with $SYSTEMD_PAGERSECURE unset
 *    only less is trusted with it;
 *  - colours when stdout is a terminal, unless $SYSTEMD_COLORS says otherwise (a boolean, or 16,
 *    256, 24bit), $NO_COLOR is set or $TERM is dumb;
 *  - the width: $COLUMNS, else the terminal's, else 80.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "shared/log.h"
#include "shared/parse.h"
#include "shared/strv.h"

static bool stdout_tty, stderr_tty;
static size_t tty_columns;
static pid_t pager_pid;
static int saved_stdout = -1, saved_stderr = -1;

void terminal_init(void) {
        struct winsize ws = {};

        stdout_tty = isatty(STDOUT_FILENO);
        stderr_tty = isatty(STDERR_FILENO);
        if (stdout_tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                tty_columns = ws.ws_col;
}

size_t terminal_columns(void) {
        const char *e = getenv("COLUMNS");
        uint32_t n;

        if (e && parse_uint32(e, &n) >= 0 && n > 0 && n < 100000)
                return n;
        return tty_columns > 0 ? tty_columns : 80;
}

bool colors_enabled(void) {
        static int cached = -1;

        if (cached >= 0)
                return cached;
        const char *e = getenv("SYSTEMD_COLORS");
        int b = e ? parse_boolean(e) : -1;
        if (b >= 0)
                cached = b;
        else if (e && (strcmp(e, "16") == 0 || strcmp(e, "256") == 0 || strcmp(e, "24bit") == 0))
                cached = 1;
        else if (getenv("NO_COLOR"))
                cached = 0;
        else if (getenv("TERM") && strcmp(getenv("TERM"), "dumb") == 0)
                cached = 0;
        else
                cached = stdout_tty;
        return cached;
}

const char *ansi(const char *sequence) {
        return colors_enabled() ? sequence : "";
}

static bool utf8_locale(void) {
        const char *l = getenv("LC_ALL");
        if (!l || !*l)
                l = getenv("LC_CTYPE");
        if (!l || !*l)
                l = getenv("LANG");
        return l && (strcasestr(l, "UTF-8") || strcasestr(l, "utf8"));
}

void print_cell(const char *s, size_t width, bool keep_tail, bool pad) {
        size_t n = strlen(s);

        if (n <= width) {
                fputs(s, stdout);
                if (pad)
                        printf("%*s", (int) (width - n), "");
                return;
        }
        /* Cut: one column for the ellipsis ("..." takes three in a non-UTF-8 locale). */
        bool utf8 = utf8_locale();
        const char *dots = utf8 ? "\u2026" : "...";
        size_t dots_w = utf8 ? 1 : 3;
        if (width <= dots_w) {
                printf("%.*s", (int) width, s);
                return;
        }
        size_t keep = width - dots_w;
        if (keep_tail)
                printf("%s%s", dots, s + n - keep);
        else
                printf("%.*s%s", (int) keep, s, dots);
}

/* ---- the pager ------------------------------------------------------------------------------- */

static bool pager_secure(bool *ret_explicit) {
        const char *e = getenv("SYSTEMD_PAGERSECURE");
        int b = e ? parse_boolean(e) : -1;

        *ret_explicit = b >= 0;
        if (b >= 0)
                return b;
        /* Another user's privileges: sudo, pkexec, set-uid. */
        return geteuid() != getuid() || getenv("SUDO_UID") || getenv("PKEXEC_UID");
}

/* In the child: the pager, or else a plain copy of stdin to stdout. */
static _Noreturn void pager_exec(void) {
        bool secure_explicit, secure = pager_secure(&secure_explicit);
        const char *pager = getenv("SYSTEMD_PAGER");

        if (!pager)
                pager = getenv("PAGER");
        (void) setenv("LESS", getenv("SYSTEMD_LESS") ?: "FRSXMK", 1);
        if (getenv("SYSTEMD_LESSCHARSET"))
                (void) setenv("LESSCHARSET", getenv("SYSTEMD_LESSCHARSET"), 1);
        if (secure)
                (void) setenv("LESSSECURE", "1", 1);
        else
                (void) unsetenv("LESSSECURE");

        /* A pager named by the environment is trusted with secure mode only if that was asked for. */
        if (pager && (!secure || secure_explicit)) {
                char **argv = strv_split(pager, " \t");
                if (argv && argv[0])
                        execvp(argv[0], argv);
                strv_free(argv);
        }
        execlp("less", "less", NULL);
        if (!secure)
                execlp("more", "more", NULL);

        /* No pager at all: copy, so that the output is not lost. */
        char buf[65536];
        ssize_t n;
        while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0)
                if (write_full(STDOUT_FILENO, buf, (size_t) n) < 0)
                        break;
        _exit(EXIT_SUCCESS);
}

void pager_open(void) {
        int fds[2];

        if (!arg.pager || !stdout_tty || pager_pid > 0)
                return;
        const char *pager = getenv("SYSTEMD_PAGER") ?: getenv("PAGER");
        if (pager && (!*pager || strcmp(pager, "cat") == 0))
                return;
        if (pipe2(fds, O_CLOEXEC) < 0) {
                log_debug_errno(errno, "No pager, pipe: %m");
                return;
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
                log_debug_errno(errno, "No pager, fork: %m");
                safe_close(fds[0]);
                safe_close(fds[1]);
                return;
        }
        if (pid == 0) {
                if (dup2(fds[0], STDIN_FILENO) < 0)
                        _exit(EXIT_FAILURE);
                safe_close(fds[0]);
                safe_close(fds[1]);
                (void) signal(SIGPIPE, SIG_DFL);
                pager_exec();
        }

        saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
        (void) dup2(fds[1], STDOUT_FILENO);
        if (stderr_tty) {
                saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
                (void) dup2(fds[1], STDERR_FILENO);
        }
        safe_close(fds[0]);
        safe_close(fds[1]);
        pager_pid = pid;
}

void pager_close(void) {
        if (pager_pid <= 0)
                return;
        fflush(stdout);
        fflush(stderr);
        /* EOF for the pager: our ends of the pipe go, the terminal comes back. */
        if (saved_stdout >= 0)
                (void) dup2(saved_stdout, STDOUT_FILENO);
        else
                (void) close(STDOUT_FILENO);
        if (saved_stderr >= 0)
                (void) dup2(saved_stderr, STDERR_FILENO);
        saved_stdout = safe_close(saved_stdout);
        saved_stderr = safe_close(saved_stderr);
        while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
                ;
        pager_pid = 0;
}
