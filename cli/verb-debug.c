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
#include "shared/log.h"
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
        struct stat st;
        if (p && d->foreign && (stat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))) {
                /* Anybody may have written that journal: gdb only gets a file only root could have put there. */
                log_warning("Not handing %s, named by a journal from --directory, to gdb: not a root-owned file "
                            "that only root may change; debugging the core alone.", p);
                free(p);
                return NULL;
        }
        return p;
}

int verb_debug(void) {
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
