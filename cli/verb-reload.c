/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl reload: the configuration and the policy checked (as `dumpctl check`, without printing
 * what is in force), then `systemctl try-reload-or-restart coredumpd.service`.
 *
 * Why not `systemctl reload`: coredumpd is socket-activated and exits after IdleExit= of quiet,
 * and systemd refuses to reload a unit that is not active ("Unit coredumpd.service is not active,
 * cannot reload", exit status 1). There is nothing to reload then: every start reads coredumpd.conf,
 * its drop-ins and the policy, so the next crash gets them. try-reload-or-restart says exactly that
 * to systemd: reload (SIGHUP) if it runs, nothing if not, and succeeds either way. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build-config.h"
#include "config/check.h"
#include "config/config.h"
#include "config/policy.h"
#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"

#define UNIT "coredumpd.service"

/* Runs systemctl with args (NULL-terminated, after "systemctl"); its exit status, or -errno. */
static int systemctl(const char *const *args, bool quiet) {
        const char *argv[8] = { "systemctl" };
        size_t n = 1;
        for (; args[n - 1] && n < ELEMENTSOF(argv) - 1; n++)
                argv[n] = args[n - 1];
        argv[n] = NULL;

        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0)
                return log_error_errno(errno, "Cannot fork: %m");
        if (pid == 0) {
                if (quiet) {
                        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                        if (null >= 0) {
                                dup2(null, STDOUT_FILENO);
                                dup2(null, STDERR_FILENO);
                        }
                }
                execvp(argv[0], (char **) argv);
                if (!quiet)
                        fprintf(stderr, "dumpctl: cannot run systemctl: %m\n");
                _exit(127);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return log_error_errno(errno, "Cannot wait for systemctl: %m");
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int verb_reload(void) {
        struct config_check c = {
                .config_path = arg.config ?: COREDUMPD_CONFIG_FILE,
                .config_explicit = arg.config != NULL,
                .config_dropin_dirs = config_dropin_dirs(arg.config_dirs, arg.config != NULL),
                .policy_dirs = policy_dirs_or_default(arg.policy_dirs),
        };

        if (arg.config || arg.config_dirs || arg.policy_dirs) {
                log_error("reload applies the daemon's own files; --config=, --config-dir= and --policy-dir= are for check.");
                return EXIT_USAGE;
        }
        log_set_max_priority(MAX(log_get_max_priority(), LOG_WARNING));
        int problems = config_check_run(&c);
        if (problems < 0)
                return EXIT_ERROR;

        bool running = systemctl((const char *const[]) { "is-active", "--quiet", UNIT, NULL }, true) == 0;
        int r = systemctl((const char *const[]) { "try-reload-or-restart", UNIT, NULL }, false);
        if (r != 0) {
                log_error("systemctl try-reload-or-restart " UNIT " failed (exit status %d).", r);
                return EXIT_ERROR;
        }
        if (!arg.quiet) {
                if (running)
                        printf("coredumpd reloaded its configuration and policy.\n");
                else
                        printf("coredumpd is not running (idle): the next crash starts it with this configuration and policy.\n");
        }
        return problems == 0 ? EXIT_OK : EXIT_ERROR;
}
