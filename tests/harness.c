/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

void test_fail(const char *file, int line, const char *format, ...) {
        va_list ap;

        fprintf(stderr, "%s:%d: ", file, line);
        va_start(ap, format);
        vfprintf(stderr, format, ap);
        va_end(ap);
        fputc('\n', stderr);
        fflush(stderr);
        exit(EXIT_FAILURE);
}

static int run_isolated(const struct test_case *t) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                t->run();
                exit(EXIT_SUCCESS);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int test_main(int argc, char *argv[], const struct test_case *tests, size_t n_tests) {
        signal(SIGPIPE, SIG_IGN);

        if (argc > 1 && strcmp(argv[1], "--list") == 0) {
                for (size_t i = 0; i < n_tests; i++)
                        printf("%s\n", tests[i].name);
                return EXIT_SUCCESS;
        }

        if (argc > 1) {
                for (size_t i = 0; i < n_tests; i++)
                        if (strcmp(argv[1], tests[i].name) == 0) {
                                tests[i].run();
                                printf("ok - %s\n", tests[i].name);
                                return EXIT_SUCCESS;
                        }
                fprintf(stderr, "No test named %s (see --list).\n", argv[1]);
                return EXIT_FAILURE;
        }

        int failed = 0;
        printf("1..%zu\n", n_tests);
        for (size_t i = 0; i < n_tests; i++) {
                bool ok = run_isolated(&tests[i]) == 0;
                printf("%s %zu - %s\n", ok ? "ok" : "not ok", i + 1, tests[i].name);
                failed += !ok;
        }
        printf("%zu passed, %d failed\n", n_tests - (size_t) failed, failed);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
