/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dumpctl's side of the cell that names frames (dumpctl.h). The cell is started at the first frame
 * that needs it, once per run: a fork that keeps no fd but its socket (stdin and stdout) and
 * /dev/null (stderr), enters shared/cell.c's cell — resource limits, the unprivileged ids, no
 * capability, not dumpable, no new privileges, killed with dumpctl — and execs dumpctl again
 * (/proc/self/exe, SYMBOLS_CELL_ARGUMENT) with a clean environment, so that nothing of this
 * process (its memory: records of every user a root dumpctl read; its fds: journal files) is there.
 *
 * Run by root the cell is SYMBOLS_CELL_UID (its bounding set emptied), and its debuginfod cache
 * is a directory of its own, DIR/unprivileged/UID, where DIR is $DEBUGINFOD_CACHE_PATH (root's
 * own directory) or SYMBOLS_CACHE_DIRECTORY: "unprivileged" is root's, mode 0700, so that no
 * other process of that uid reaches the cache, which is the cell's alone. Each directory is
 * opened without following a link and checked by its fd; the cell starts in it (its current
 * directory).
 * Run by a user, the cell is that user, with their own cache, as the client has it, and without
 * any capability the user's dumpctl may have (ambient, or a file's).
 *
 * dumpctl waits for the whole run's answers $DEBUGINFOD_TIMEOUT + SYMBOLS_CELL_GRACE_USEC at most:
 * then the cell is killed, and so is one that answers what the wire does not allow or more than it
 * allows. Either way the frames left keep their recorded lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dumpctl.h"
#include "shared/cell.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

/* What the cell may use: libcurl and TLS, libdw with a debug file mapped, the cache's files. */
#define CELL_ADDRESS_SPACE (UINT64_C(4) << 30)
#define CELL_OPEN_FILES 256
#define CELL_FILE_SIZE (UINT64_C(2) << 30)
/* Capabilities dropped from the bounding set: every number this kernel may know (EINVAL past its
 * last). */
#define CAP_LAST_CAP_PROBE 63
/* The most an answer may hold: every frame named at the longest, and each notice. */
#define ANSWER_MAX (SYMBOLS_MAX_QUERIES * (SYMBOL_MAX + 32) + 512)

/* The variables the cell is given (the client's and libcurl's); a user's cell its cache's too. */
static const char *const passed_variables[] = {
        "DEBUGINFOD_URLS", "DEBUGINFOD_TIMEOUT", "DEBUGINFOD_MAXTIME", "DEBUGINFOD_MAXSIZE",
        "DEBUGINFOD_RETRY_LIMIT", "DEBUGINFOD_HEADERS_FILE", "http_proxy", "https_proxy", "HTTPS_PROXY",
        "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY", "CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR",
};
static const char *const user_variables[] = { "DEBUGINFOD_CACHE_PATH", "XDG_CACHE_HOME", "HOME" };

static struct {
        pid_t pid;              /* 0: not started */
        int fd;                 /* our end of its socket */
        uint64_t left_usec;     /* of its time: what dumpctl may still wait for its answers */
        bool gone;              /* ended, killed, or never started: said once; nothing more asked */
        bool said[6];           /* each notice once */
} cell = { .fd = -1 };

/* Whether any of this process's uids is root's: its cell is then SYMBOLS_CELL_UID's. (A user
 * with capabilities, who may not change ids, has a cell of the user's without them.) */
static bool root_ids(void) {
        uid_t r, e, s;
        if (getresuid(&r, &e, &s) < 0)
                return true;
        return r == 0 || e == 0 || s == 0;
}

/* name under dir_fd: made (mode 0700) if missing, opened without following a link. -errno. */
static int open_directory(int dir_fd, const char *name) {
        if (mkdirat(dir_fd, name, 0700) < 0 && errno != EEXIST)
                return -errno;
        int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* The cell's cache directory, for a privileged dumpctl: DIR/unprivileged/UID, made and checked
 * (see the top). An fd, or -errno with why. */
static int cache_open(uid_t uid, gid_t gid, char *reason, size_t size) {
        const char *base = getenv("DEBUGINFOD_CACHE_PATH");
        char name[16];
        struct stat st;

        if (!base || !*base) {
                base = SYMBOLS_CACHE_DIRECTORY;
                (void) mkdir("/var/cache/coredumpd", 0755);
        }
        if (base[0] != '/')
                return fail_reason(-EINVAL, reason, size, "DEBUGINFOD_CACHE_PATH=%s is not an absolute path", base);
        _cleanup_close_ int base_fd = open_directory(AT_FDCWD, base);
        if (base_fd < 0)
                return fail_reason(base_fd, reason, size, "cannot open %s: %s", base, strerror(-base_fd));
        if (fstat(base_fd, &st) < 0 || st.st_uid != 0)
                return fail_reason(-EPERM, reason, size, "%s is not root's", base);
        _cleanup_close_ int private_fd = open_directory(base_fd, "unprivileged");
        if (private_fd < 0)
                return fail_reason(private_fd, reason, size, "cannot open %s/unprivileged: %s", base, strerror(-private_fd));
        if (fstat(private_fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 077) != 0)
                return fail_reason(-EPERM, reason, size, "%s/unprivileged is not root's alone (mode 0700)", base);
        snprintf(name, sizeof name, "%u", (unsigned) uid);
        int fd = open_directory(private_fd, name);
        if (fd < 0)
                return fail_reason(fd, reason, size, "cannot open %s/unprivileged/%s: %s", base, name, strerror(-fd));
        /* Made just now (root's), or the cell's from a run before: the cell's, and only its. */
        if (fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != uid) ||
            (st.st_uid == 0 && fchown(fd, uid, gid) < 0) || fchmod(fd, 0700) < 0) {
                safe_close(fd);
                return fail_reason(-EPERM, reason, size, "%s/unprivileged/%s is not the cell's", base, name);
        }
        return fd;
}

/* "NAME=value" for each variable passed that is set (a user's cell: its cache's too; without urls,
 * not DEBUGINFOD_URLS), then "DEBUGINFOD_CACHE_PATH=." for a cell started in its own cache
 * directory; NULL-terminated, in env (room for every variable and one). */
static void environment_build(char **env, size_t size, bool privileged_cell, bool own_cache, bool urls) {
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(passed_variables) + ELEMENTSOF(user_variables); i++) {
                bool user = i >= ELEMENTSOF(passed_variables);
                const char *name = user ? user_variables[i - ELEMENTSOF(passed_variables)] : passed_variables[i];
                const char *value = getenv(name);
                if (!value || (user && privileged_cell) || (!urls && strcmp(name, "DEBUGINFOD_URLS") == 0) ||
                    n + 2 >= size)
                        continue;
                if (asprintf(&env[n], "%s=%s", name, value) >= 0)
                        n++;
        }
        if (own_cache && asprintf(&env[n], "DEBUGINFOD_CACHE_PATH=.") >= 0)
                n++;
        env[n] = NULL;
}

/* In the fork, before the exec: only async-signal-safe calls (dumpctl has no threads, but keeps
 * to it). Never returns. */
static void __attribute__((noreturn))
cell_child(pid_t parent, int sock, int null_fd, int cache_fd, uid_t uid, gid_t gid, const struct cell_limits *limits,
           char **env) {
        static char *const argv[] = { (char *) "dumpctl", (char *) SYMBOLS_CELL_ARGUMENT, NULL };
        char reason[256], message[32];
        sigset_t none;

        /* Both above 2 first (dumpctl may have been started without stdin), then in place. */
        sock = fcntl(sock, F_DUPFD, 3);
        null_fd = fcntl(null_fd, F_DUPFD, 3);
        if (sock < 0 || null_fd < 0 || dup2(sock, STDIN_FILENO) < 0 || dup2(sock, STDOUT_FILENO) < 0 ||
            dup2(null_fd, STDERR_FILENO) < 0)
                _exit(125);
        if (cache_fd >= 0 ? fchdir(cache_fd) < 0 : chdir("/") < 0)
                _exit(125);
        /* No fd but the three: not the journal's, not the store's, not the pager's. */
        if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
                for (int fd = 3; fd < 65536; fd++)
                        (void) close(fd);
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        (void) signal(SIGPIPE, SIG_DFL);
        /* Root empties the bounding set, and its change of ids drops every capability; a user's
         * capabilities are dropped here. cell_enter() checks that none is left. */
        int r = 0;
        if (geteuid() == 0)
                for (int c = 0; c <= CAP_LAST_CAP_PROBE && r == 0; c++)
                        if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
                                r = -errno;
        if (r == 0 && uid != 0 && uid == getuid())
                r = cell_drop_capabilities();
        if (r >= 0)
                r = cell_enter(uid, gid, limits, reason, sizeof reason);
        if (r < 0) {
                int n = snprintf(message, sizeof message, "! %s %d\n.\n", symbols_notice_words[SYMBOLS_NOTICE_CELL], -r);
                (void) !write(STDOUT_FILENO, message, (size_t) n);
                _exit(125);
        }
        /* After the change of ids, which clears it: the cell ends with dumpctl. */
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
                _exit(125);
        execve("/proc/self/exe", argv, env);
        _exit(127);
}

static void say(size_t which, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void say(size_t which, const char *format, ...) {
        va_list ap;
        if (which < ELEMENTSOF(cell.said) && cell.said[which])
                return;
        if (which < ELEMENTSOF(cell.said))
                cell.said[which] = true;
        va_start(ap, format);
        log_internalv(LOG_NOTICE, 0, NULL, format, ap);
        va_end(ap);
}

static int cell_start(void) {
        bool root = root_ids();
        uid_t uid = root ? SYMBOLS_CELL_UID : getuid();
        gid_t gid = root ? SYMBOLS_CELL_GID : getgid();
        char reason[512] = "";
        char *env[ELEMENTSOF(passed_variables) + ELEMENTSOF(user_variables) + 2] = {};
        _cleanup_close_ int cache_fd = -1, null_fd = -1;
        int pair[2];

        cell.gone = true; /* until it runs */
        bool urls = debuginfod_urls_set();
        if (root && urls) {
                cache_fd = cache_open(uid, gid, reason, sizeof reason);
                if (cache_fd < 0) {
                        say(0, "Not asking DEBUGINFOD_URLS: %s; only this machine's debug files name frames.", reason);
                        urls = false;
                }
        }
        null_fd = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (null_fd < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) {
                int r = -errno;
                say(0, "Cannot start the symbol lookup: %s", strerror(-r));
                return r;
        }
        const struct cell_limits limits = {
                .address_space = CELL_ADDRESS_SPACE,
                .cpu_seconds = symbols_budget_usec() / UINT64_C(1000000) + 5,
                .open_files = CELL_OPEN_FILES,
                .file_size = CELL_FILE_SIZE,
        };
        environment_build(env, ELEMENTSOF(env), root, cache_fd >= 0, urls);
        pid_t parent = getpid(), pid = fork();
        if (pid == 0)
                cell_child(parent, pair[1], null_fd, cache_fd, uid, gid, &limits, env);
        int r = -errno;
        for (size_t i = 0; env[i]; i++)
                free(env[i]);
        safe_close(pair[1]);
        if (pid < 0) {
                safe_close(pair[0]);
                say(0, "Cannot start the symbol lookup: %s", strerror(-r));
                return r;
        }
        cell.pid = pid;
        cell.fd = pair[0];
        cell.left_usec = symbols_budget_usec() + SYMBOLS_CELL_GRACE_USEC;
        cell.gone = false;
        log_debug("The symbol lookup runs as pid %d, uid %u.", (int) pid, (unsigned) uid);
        return 0;
}

/* The cell ended (or is ended now, kill): reaped, why said once. */
static void cell_end(bool kill_it, const char *why) {
        int status = 0;
        bool reaped = false;

        if (cell.pid > 0) {
                if (kill_it)
                        (void) kill(cell.pid, SIGKILL);
                reaped = child_wait_until(cell.pid, -1, now_monotonic_usec() + CHILD_KILL_GRACE_USEC, &status);
                if (!reaped && !kill_it) {
                        (void) kill(cell.pid, SIGKILL);
                        reaped = child_wait_until(cell.pid, -1, now_monotonic_usec() + CHILD_KILL_GRACE_USEC, &status);
                }
        }
        if (why && cell.pid > 0) {
                if (reaped && WIFSIGNALED(status) && !kill_it)
                        say(1, "The symbol lookup ended by signal %d (%s): the frames left are not named.",
                            WTERMSIG(status), strsignal(WTERMSIG(status)));
                else
                        say(1, "The symbol lookup %s.", why);
        }
        cell.fd = safe_close(cell.fd);
        cell.pid = 0;
        cell.gone = true;
}

/* A notice of the cell, said as dumpctl words it, once. */
static void on_notice(enum symbols_notice notice, int error, void *userdata) {
        (void) userdata;
        switch (notice) {
        case SYMBOLS_NOTICE_LIBRARY:
        case SYMBOLS_NOTICE_FUNCTIONS:
                say(2, "DEBUGINFOD_URLS is set, but libdebuginfod.so.1 cannot be used: frames stay unnamed.");
                break;
        case SYMBOLS_NOTICE_CLIENT:
                say(3, "Cannot start the debuginfod client: %s", strerror(error));
                break;
        case SYMBOLS_NOTICE_ERROR:
                say(4, "Cannot ask DEBUGINFOD_URLS for debug files: %s", strerror(error));
                break;
        case SYMBOLS_NOTICE_TIME:
                say(5, "No answer from DEBUGINFOD_URLS within %" PRIu64 " s (DEBUGINFOD_TIMEOUT=): the frames left are "
                       "not named.", symbols_budget_usec() / UINT64_C(1000000));
                break;
        default:
                say(0, "Cannot start the symbol lookup unprivileged: %s", strerror(error));
                break;
        }
}

int symbols_cell_lookup(const struct symbol_query *queries, size_t n, struct symbol_answer *answers) {
        static char buf[ANSWER_MAX + 1];
        char line[64];
        size_t got = 0;

        for (size_t i = 0; i < n; i++)
                answers[i] = (struct symbol_answer) {};
        if (n == 0)
                return 0;
        if (n > SYMBOLS_MAX_QUERIES)
                return -E2BIG;
        if (cell.gone)
                return -ECHILD;
        if (cell.pid == 0) {
                int r = cell_start();
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i <= n; i++) {
                int len = i < n ? snprintf(line, sizeof line, "%s 0x%" PRIx64 "\n", queries[i].build_id,
                                           queries[i].module_offset)
                                : snprintf(line, sizeof line, "\n");
                if (send(cell.fd, line, (size_t) len, MSG_NOSIGNAL) != len) {
                        cell_end(false, "ended before it was asked: the frames left are not named");
                        return -ECHILD;
                }
        }
        /* Its answer, until it is whole, within the time left of the run's and ANSWER_MAX. Only
         * the waits count (not a pager's, between two records). */
        uint64_t start = now_monotonic_usec(), deadline = start + cell.left_usec;
        for (;;) {
                uint64_t now = now_monotonic_usec();
                if (now >= deadline) {
                        char why[160];
                        snprintf(why, sizeof why, "did not end within %" PRIu64 " s (DEBUGINFOD_TIMEOUT= and %" PRIu64
                                 " s): killed, the frames left are not named",
                                 symbols_budget_usec() / UINT64_C(1000000), SYMBOLS_CELL_GRACE_USEC / UINT64_C(1000000));
                        cell_end(true, why);
                        return -ETIMEDOUT;
                }
                struct pollfd p = { .fd = cell.fd, .events = POLLIN };
                int ms = (int) MIN((deadline - now + 999) / 1000, 1000);
                int k = poll(&p, 1, ms);
                if (k < 0 && errno != EINTR) {
                        cell_end(true, "could not be waited for: killed");
                        return -errno;
                }
                if (k <= 0)
                        continue;
                ssize_t r = recv(cell.fd, buf + got, ANSWER_MAX - got, MSG_DONTWAIT);
                if (r < 0 && (errno == EAGAIN || errno == EINTR))
                        continue;
                if (r <= 0) {
                        cell_end(false, "ended without an answer: the frames left are not named");
                        return -ECHILD;
                }
                if (memchr(buf + got, 0, (size_t) r)) {
                        cell_end(true, "answered what it may not: killed, the frames left are not named");
                        return -EBADMSG;
                }
                got += (size_t) r;
                buf[got] = 0;
                if (got >= 2 && strcmp(buf + got - 2, ".\n") == 0 && (got == 2 || buf[got - 3] == '\n'))
                        break;
                if (got >= ANSWER_MAX) {
                        cell_end(true, "answered more than it may: killed, the frames left are not named");
                        return -EBADMSG;
                }
        }
        uint64_t took = now_monotonic_usec() - start;
        cell.left_usec -= MIN(took, cell.left_usec);
        if (strncmp(buf, "! cell ", 7) == 0) {
                /* It could not drop its privileges, and exits without reading anything. */
                if (!symbols_answer_decode(buf, got, 0, NULL, on_notice, NULL))
                        say(0, "Cannot start the symbol lookup unprivileged.");
                cell_end(true, NULL);
                return -EPERM;
        }
        if (!symbols_answer_decode(buf, got, n, answers, on_notice, NULL)) {
                for (size_t i = 0; i < n; i++)
                        answers[i] = (struct symbol_answer) {};
                cell_end(true, "answered what it may not: killed, the frames left are not named");
                return -EBADMSG;
        }
        return 0;
}

void symbols_cell_done(void) {
        if (cell.pid > 0) {
                /* The end of its requests: it frees what it holds and exits. */
                (void) shutdown(cell.fd, SHUT_WR);
                cell_end(false, NULL);
        }
        cell = (typeof(cell)) { .fd = -1 };
}
