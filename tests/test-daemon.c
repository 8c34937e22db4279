/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The coredumpd executable itself: --check-policy, --check-config, and --listen with the real authenticator
 * refusing a client that is not a crashing task, then a clean exit on SIGTERM. */

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures.h"
#include "harness.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"

#define FULL_MASK (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT | COREDUMP_WAIT)

extern char **environ;

static const char *daemon_path(void) {
        const char *p = getenv("COREDUMPD_BINARY");
        CHECK(p);
        return p;
}

/* Runs coredumpd with args; stdout and stderr go to files in dir. Returns the pid. */
static pid_t spawn_daemon(const char *dir, char *const args[]) {
        posix_spawn_file_actions_t fa;
        _cleanup_free_ char *out = NULL, *err = NULL;
        pid_t pid;

        CHECK(asprintf(&out, "%s/stdout", dir) > 0 && asprintf(&err, "%s/stderr", dir) > 0);
        CHECK(posix_spawn_file_actions_init(&fa) == 0);
        CHECK(posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC, 0644) == 0);
        CHECK(posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0644) == 0);
        CHECK(posix_spawn(&pid, daemon_path(), &fa, NULL, args, environ) == 0);
        posix_spawn_file_actions_destroy(&fa);
        return pid;
}

static int wait_exit(pid_t pid) {
        int status;
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        return WEXITSTATUS(status);
}

static char *read_output(const char *dir, const char *name) {
        _cleanup_free_ char *path = NULL;
        char *text;
        CHECK(asprintf(&path, "%s/%s", dir, name) > 0);
        CHECK_OK(read_file_at(AT_FDCWD, path, 1 << 20, &text, NULL, NULL));
        return text;
}

TEST(check_policy_prints_effective_rules) {
        _cleanup_free_ char *dir = tmpdir_new(), *pdir = NULL, *conf = NULL;
        CHECK(asprintf(&pdir, "%s/policy.d", dir) > 0 && mkdir(pdir, 0755) == 0);
        CHECK(asprintf(&conf, "%s/none.conf", dir) > 0);
        CHECK_OK(write_text_file(pdir, "10-sshd.conf", "[Rule]\nName=sshd\nMatchExe=/usr/sbin/sshd\nAction=reject\n"));

        char *args[] = { (char *) "coredumpd", (char *) "--check-policy", (char *) "--policy-dir", pdir,
                         (char *) "--config", conf, NULL };
        CHECK_OK(write_text_file(dir, "none.conf", "[Coredump]\n"));
        CHECK_INT(wait_exit(spawn_daemon(dir, args)), ==, 0);
        _cleanup_free_ char *out = read_output(dir, "stdout");
        CHECK(strstr(out, "[Rule]\nName=sshd\nMatchExe=/usr/sbin/sshd\nAction=reject\n"));
        CHECK(strstr(out, "Name=builtin:keep\n"));

        CHECK_OK(write_text_file(pdir, "20-bad.conf", "[Rule]\nName=bad\nAction=maybe\n"));
        CHECK_INT(wait_exit(spawn_daemon(dir, args)), ==, 1);
        _cleanup_free_ char *err = read_output(dir, "stderr");
        CHECK(strstr(err, "/policy.d/20-bad.conf:3: invalid Action= 'maybe'"));
        tmpdir_remove(dir);
}

/* --check-config: the main file and its drop-ins, every error of every file (config and policy)
 * at file:line with a hint, warnings for contradicting rules, the effective configuration. */
TEST(check_config_reports_every_error_and_the_effective_configuration) {
        _cleanup_free_ char *dir = tmpdir_new(), *pdir = NULL, *cdir = NULL, *conf = NULL;
        CHECK(asprintf(&pdir, "%s/policy.d", dir) > 0 && mkdir(pdir, 0755) == 0);
        CHECK(asprintf(&cdir, "%s/coredumpd.conf.d", dir) > 0 && mkdir(cdir, 0755) == 0);
        CHECK(asprintf(&conf, "%s/coredumpd.conf", dir) > 0);
        CHECK_OK(write_text_file(dir, "coredumpd.conf", "[Coredump]\nMaxUse=1G\nMaxSize=1G\n"));
        CHECK_OK(write_text_file(cdir, "10-size.conf", "[Coredump]\nMaxSize=2G\n"));
        CHECK_OK(write_text_file(pdir, "10-p.conf", "[Rule]\nName=u\nMatchComm=x\nAction=userspace\nWait=no\n"));

        char *args[] = { (char *) "coredumpd", (char *) "--check-config", (char *) "--config", conf,
                         (char *) "--config-dir", cdir, (char *) "--policy-dir", pdir, NULL };
        CHECK_INT(wait_exit(spawn_daemon(dir, args)), ==, 0);
        _cleanup_free_ char *out = read_output(dir, "stdout"), *err = read_output(dir, "stderr");
        _cleanup_free_ char *files = NULL;
        CHECK(asprintf(&files, "# %s\n# %s/10-size.conf\n[Coredump]\n", conf, cdir) > 0);
        CHECK(strstr(out, files));
        CHECK(strstr(out, "\nMaxUse=1G\n") && strstr(out, "\nMaxSize=2G\n") && strstr(out, "\nIdleExitSec=30s\n"));
        CHECK(!strstr(out, "[Rule]"));
        CHECK(strstr(err, "/policy.d/10-p.conf:1: rule 'u': Action=userspace with Wait=no writes no core"));

        /* --config= alone: no drop-ins. Both checks at once: configuration, then rules. */
        char *alone[] = { (char *) "coredumpd", (char *) "--check-config", (char *) "--check-policy", (char *) "--config",
                          conf, (char *) "--policy-dir", pdir, NULL };
        CHECK_INT(wait_exit(spawn_daemon(dir, alone)), ==, 0);
        free(out);
        out = read_output(dir, "stdout");
        CHECK(strstr(out, "\nMaxSize=1G\n") && !strstr(out, "10-size.conf"));
        CHECK(strstr(out, "IdleExitSec=30s\n\n# ") && strstr(out, "[Rule]\nName=u\n"));

        /* Errors in the main file, a drop-in and the policy: all of them, and exit 1; what is in
         * force all the same (the wrong lines left out) is printed. */
        CHECK_OK(write_text_file(dir, "coredumpd.conf", "[Coredump]\nMaxUze=1G\nDeadline=soon\n"));
        CHECK_OK(write_text_file(cdir, "20-bad.conf", "[Coredump]\nCompress=lz4\n"));
        CHECK_OK(write_text_file(pdir, "20-bad.conf", "[Rule]\nAction=maybe\n[Rule]\nName=n\n"));
        CHECK_INT(wait_exit(spawn_daemon(dir, args)), ==, 1);
        free(err);
        err = read_output(dir, "stderr");
        static const char *const needles[] = {
                "/coredumpd.conf:2: unknown key 'MaxUze' in [Coredump], ignored (hint: did you mean MaxUse=?)",
                "/coredumpd.conf:3: invalid Deadline= 'soon', ignored (hint: ",
                "/coredumpd.conf.d/20-bad.conf:2: invalid Compress= 'lz4', expected zstd or none, ignored (hint: ",
                "/policy.d/20-bad.conf:2: invalid Action= 'maybe'",
                "/policy.d/20-bad.conf:3: rule 'n' has no Action= (hint: ",
                "/policy.d/20-bad.conf:1: rule '20-bad.conf:1' ignored for its errors",
                "/policy.d/10-p.conf:1: rule 'u': Action=userspace with Wait=no", /* warned all the same */
                "5 problems found",
        };
        for (size_t i = 0; i < ELEMENTSOF(needles); i++)
                if (!strstr(err, needles[i]))
                        test_fail(__FILE__, __LINE__, "stderr lacks '%s':\n%s", needles[i], err);
        free(out);
        out = read_output(dir, "stdout");
        CHECK(strstr(out, "\nDeadlineSec=1min\n") && strstr(out, "\nMaxSize=2G\n") && strstr(out, "\nCompress=zstd\n"));
        tmpdir_remove(dir);
}

TEST(listen_refuses_userspace_client_reloads_on_sighup_exits_on_sigterm) {
        _cleanup_free_ char *dir = tmpdir_new(), *pdir = NULL, *conf = NULL, *sock = NULL, *conf_text = NULL;
        CHECK(asprintf(&pdir, "%s/policy.d", dir) > 0 && mkdir(pdir, 0755) == 0);
        CHECK(asprintf(&conf, "%s/coredumpd.conf", dir) > 0);
        CHECK(asprintf(&sock, "%s/coredump.socket", dir) > 0);
        CHECK(asprintf(&conf_text, "[Coredump]\nStorage=%s/store\nIdleExit=0\n", dir) > 0);
        CHECK_OK(write_text_file(dir, "coredumpd.conf", conf_text));

        char *args[] = { (char *) "coredumpd", (char *) "--no-probe", (char *) "--listen", sock, (char *) "--config", conf,
                         (char *) "--policy-dir", pdir, NULL };
        pid_t pid = spawn_daemon(dir, args);

        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        strncpy(sa.sun_path, sock, sizeof sa.sun_path - 1);
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        bool connected = false;
        for (int i = 0; i < 500 && !connected; i++) {
                connected = connect(fd, (struct sockaddr *) &sa, sizeof sa) == 0;
                if (!connected)
                        usleep(10000);
        }
        CHECK(connected);

        struct stat st;
        CHECK(stat(sock, &st) == 0);
        CHECK_INT(st.st_mode & 0777, ==, 0600);

        struct coredump_ack ack;
        fk_send_request(fd, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(fd, &ack, 10000), ==, 0); /* closed without an ack */

        /* SIGHUP with a broken policy rule and a typo in coredumpd.conf: both re-read, both named at
         * their file:line, and left out; the daemon goes on. */
        CHECK_OK(write_text_file(pdir, "10-broken.conf", "[Rule]\nAction=kernel\nMatchUID=root\n"));
        free(conf_text);
        CHECK(asprintf(&conf_text, "[Coredump]\nStorage=%s/store\nIdleExit=0\nIdleExitt=1s\n", dir) > 0);
        CHECK_OK(write_text_file(dir, "coredumpd.conf", conf_text));
        CHECK(kill(pid, SIGHUP) == 0);
        _cleanup_free_ char *reload_needle = NULL, *conf_needle = NULL;
        CHECK(asprintf(&reload_needle, "%s/10-broken.conf:3: invalid MatchUID=", pdir) > 0);
        CHECK(asprintf(&conf_needle, "%s:4: unknown key 'IdleExitt' in [Coredump], ignored", conf) > 0);
        bool reloaded = false;
        for (int i = 0; i < 500 && !reloaded; i++) {
                _cleanup_free_ char *partial = read_output(dir, "stderr");
                reloaded = strstr(partial, "Policy reloaded") != NULL;
                if (!reloaded)
                        usleep(10000);
        }
        CHECK(reloaded);

        CHECK(kill(pid, SIGTERM) == 0);
        CHECK_INT(wait_exit(pid), ==, 0);
        _cleanup_free_ char *err = read_output(dir, "stderr");
        CHECK(strstr(err, reload_needle));
        CHECK(strstr(err, conf_needle));
        CHECK(strstr(err, "Configuration reloaded (with lines left out"));
        CHECK(strstr(err, "rule '10-broken.conf:1' ignored for its errors"));
        _cleanup_free_ char *needle = NULL;
        CHECK(asprintf(&needle, "Refusing connection from pid %d (uid %u): not a coredumping task",
                       (int) getpid(), (unsigned) getuid()) > 0);
        if (!strstr(err, needle))
                test_fail(__FILE__, __LINE__, "stderr lacks '%s':\n%s", needle, err);
        CHECK(strstr(err, "Stopping (SIGTERM)"));
        tmpdir_remove(dir);
}

/* Serving crashes, the daemon keeps CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH, and CAP_SETGID and
 * CAP_SETUID for its parser and CAP_KILL to end it, at most, in every set including the bounding set,
 * CAP_CHECKPOINT_RESTORE (map_files, for its parser) permitted and bounding only, never effective,
 * and runs with no_new_privs and its own system call filter. */
static void check_locked_down(pid_t pid) {
        _cleanup_free_ char *path = NULL, *status = NULL;
        const uint64_t kept = (UINT64_C(1) << 2) | (UINT64_C(1) << 5) | (UINT64_C(1) << 6) | (UINT64_C(1) << 7) |
                              (UINT64_C(1) << 19);

        CHECK(asprintf(&path, "/proc/%d/status", (int) pid) > 0);
        CHECK_OK(read_file_at(AT_FDCWD, path, 1 << 16, &status, NULL, NULL));
        const uint64_t passed_on = UINT64_C(1) << 40; /* CAP_CHECKPOINT_RESTORE */
        static const char *const sets[] = { "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:" };
        for (size_t i = 0; i < ELEMENTSOF(sets); i++) {
                const char *p = strstr(status, sets[i]);
                CHECK(p);
                uint64_t v = strtoull(p + strlen(sets[i]), NULL, 16);
                bool passes_on = strcmp(sets[i], "CapPrm:") == 0 || strcmp(sets[i], "CapBnd:") == 0;
                if (v & ~(kept | (passes_on ? passed_on : 0)))
                        test_fail(__FILE__, __LINE__, "%s %016llx holds more than CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_KILL, CAP_SETGID, CAP_SETUID",
                                  sets[i], (unsigned long long) v);
        }
        CHECK(strstr(status, "NoNewPrivs:\t1"));
        CHECK(strstr(status, "Seccomp:\t2"));
        /* A filter of its own, started under no unit: more than the test (its parent) has. */
        _cleanup_free_ char *ours = NULL;
        CHECK_OK(read_file_at(AT_FDCWD, "/proc/self/status", 1 << 16, &ours, NULL, NULL));
        const char *mine = strstr(ours, "\nSeccomp_filters:"), *theirs = strstr(status, "\nSeccomp_filters:");
        if (mine && theirs) {
                int a = atoi(mine + strlen("\nSeccomp_filters:")), b = atoi(theirs + strlen("\nSeccomp_filters:"));
                if (b != a + 1)
                        test_fail(__FILE__, __LINE__, "the daemon has %d system call filters, the test %d", b, a);
        }
}

/* A fatal signal ends the daemon at once and without a core (a dump of coredumpd would be sent to
 * coredumpd): it exits with 128 + the signal and says why on stderr. */
static void check_fatal_signal(int sig) {
        _cleanup_free_ char *dir = tmpdir_new(), *conf = NULL, *sock = NULL, *conf_text = NULL;
        CHECK(asprintf(&conf, "%s/coredumpd.conf", dir) > 0);
        CHECK(asprintf(&sock, "%s/coredump.socket", dir) > 0);
        CHECK(asprintf(&conf_text, "[Coredump]\nStorage=%s/store\nIdleExit=0\n", dir) > 0);
        CHECK_OK(write_text_file(dir, "coredumpd.conf", conf_text));

        char *args[] = { (char *) "coredumpd", (char *) "--no-probe", (char *) "--listen", sock, (char *) "--config", conf, NULL };
        pid_t pid = spawn_daemon(dir, args);
        bool ready = false;
        for (int i = 0; i < 500 && !ready; i++) {
                ready = access(sock, F_OK) == 0;
                if (!ready)
                        usleep(10000);
        }
        CHECK(ready);
        usleep(100000); /* past the setup, into the loop */

        if (sig == SIGSEGV)
                check_locked_down(pid);
        CHECK(kill(pid, sig) == 0);
        int status;
        CHECK(waitpid(pid, &status, 0) == pid);
        if (!WIFEXITED(status))
                test_fail(__FILE__, __LINE__, "signal %d: the daemon was killed by signal %d%s", sig,
                          WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                          WIFSIGNALED(status) && WCOREDUMP(status) ? " and dumped" : "");
        CHECK_INT(WEXITSTATUS(status), ==, 128 + sig);
        _cleanup_free_ char *err = read_output(dir, "stderr");
        _cleanup_free_ char *needle = NULL;
        CHECK(asprintf(&needle, "coredumpd: fatal signal %d,", sig) > 0);
        if (!strstr(err, needle))
                test_fail(__FILE__, __LINE__, "stderr lacks '%s':\n%s", needle, err);
        tmpdir_remove(dir);
}

TEST(fatal_signal_exits_without_core) {
        check_fatal_signal(SIGSEGV);
        check_fatal_signal(SIGABRT);
}

TEST(no_socket_is_an_error) {
        _cleanup_free_ char *dir = tmpdir_new(), *conf = NULL;
        CHECK(asprintf(&conf, "%s/none.conf", dir) > 0);
        CHECK_OK(write_text_file(dir, "none.conf", "[Coredump]\n"));
        char *args[] = { (char *) "coredumpd", (char *) "--config", conf, NULL };
        CHECK_INT(wait_exit(spawn_daemon(dir, args)), ==, 1);
        _cleanup_free_ char *err = read_output(dir, "stderr");
        CHECK(strstr(err, "No socket"));
        tmpdir_remove(dir);
}

static const struct test_case tests[] = {
        TEST_ENTRY(fatal_signal_exits_without_core),
        TEST_ENTRY(check_policy_prints_effective_rules),
        TEST_ENTRY(check_config_reports_every_error_and_the_effective_configuration),
        TEST_ENTRY(listen_refuses_userspace_client_reloads_on_sighup_exits_on_sigterm),
        TEST_ENTRY(no_socket_is_an_error),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
