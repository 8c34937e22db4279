/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "crash/backtrace.h"
#include "fixtures.h"
#include "harness.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "shared/log.h"

/* ---- temporary directories ------------------------------------------------------------------- */

char *tmpdir_new(void) {
        char *p = strdup("/tmp/coredumpd-test.XXXXXX");
        CHECK(p && mkdtemp(p));
        return p;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) remove(path);
        return 0;
}

void tmpdir_remove(const char *path) {
        if (path)
                (void) nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int write_text_file(const char *dir, const char *name, const char *text) {
        _cleanup_free_ char *path = NULL;
        CHECK(asprintf(&path, "%s/%s", dir, name) > 0);
        _cleanup_fclose_ FILE *f = fopen(path, "we");
        if (!f)
                return -errno;
        fputs(text, f);
        return 0;
}

/* ---- log capture ----------------------------------------------------------------------------- */

static void log_capture_sink(int priority, const char *message, void *userdata) {
        struct log_capture *c = userdata;

        fprintf(stderr, "<%d> %s\n", priority, message);
        pthread_mutex_lock(&c->lock);
        char **grown = realloc(c->lines, (c->n + 1) * sizeof *grown);
        if (grown) {
                c->lines = grown;
                /* With its priority, as stderr carries it to journald: "<6> message". */
                if (asprintf(&c->lines[c->n], "<%d> %s", priority, message) > 0)
                        c->n++;
        }
        pthread_mutex_unlock(&c->lock);
}

void log_capture_start(struct log_capture *c) {
        *c = (struct log_capture) {};
        pthread_mutex_init(&c->lock, NULL);
        log_set_max_priority(LOG_DEBUG);
        log_set_sink(log_capture_sink, c);
}

void log_capture_stop(struct log_capture *c) {
        log_set_sink(NULL, NULL);
        for (size_t i = 0; i < c->n; i++)
                free(c->lines[i]);
        free(c->lines);
        pthread_mutex_destroy(&c->lock);
        *c = (struct log_capture) {};
}

bool log_capture_contains(struct log_capture *c, const char *needle) {
        bool found = false;
        pthread_mutex_lock(&c->lock);
        for (size_t i = 0; i < c->n && !found; i++)
                found = strstr(c->lines[i], needle) != NULL;
        pthread_mutex_unlock(&c->lock);
        return found;
}

int log_capture_priority(struct log_capture *c, const char *needle) {
        int priority = -1;
        pthread_mutex_lock(&c->lock);
        for (size_t i = 0; i < c->n && priority < 0; i++)
                if (strstr(c->lines[i], needle) && sscanf(c->lines[i], "<%d>", &priority) != 1)
                        priority = -1;
        pthread_mutex_unlock(&c->lock);
        return priority;
}

/* ---- record capture -------------------------------------------------------------------------- */

void record_capture_init(struct record_capture *c) {
        *c = (struct record_capture) {};
        pthread_mutex_init(&c->lock, NULL);
}

void record_capture_done(struct record_capture *c) {
        for (size_t i = 0; i < c->n; i++)
                fields_done(&c->records[i]);
        free(c->records);
        pthread_mutex_destroy(&c->lock);
}

int record_capture_sink(const struct fields *r, void *userdata) {
        struct record_capture *c = userdata;
        struct fields copy = {};

        for (size_t i = 0; i < r->n; i++) {
                const char *e = r->v[i].iov_base;
                size_t binary = strlen(field_name(FIELD_COREDUMP));
                if (r->v[i].iov_len > binary && memcmp(e, field_name(FIELD_COREDUMP), binary) == 0 && e[binary] == '=') {
                        /* The compact core: bytes, kept as they are. */
                        CHECK(fields_add_binary(&copy, field_name(FIELD_COREDUMP), e + binary + 1,
                                                r->v[i].iov_len - binary - 1) == 0);
                        continue;
                }
                /* Every other field is text: no NUL in it. */
                CHECK(memchr(e, 0, r->v[i].iov_len) == NULL);
                /* No field may span lines (the journal's text protocol and humans rely on it), but
                 * the message and the backtrace, which carry the stack traces as systemd-coredump's
                 * MESSAGE does, and /proc's texts as the table renders them (FIELD_ESCAPED_LINES). */
                bool lines = false;
                for (enum field f = 0; f < _FIELD_MAX && !lines; f++) {
                        size_t k = strlen(field_table[f].name);
                        lines = field_table[f].render == FIELD_ESCAPED_LINES && strncmp(e, field_table[f].name, k) == 0 &&
                                e[k] == '=';
                }
                CHECK(memchr(e, '\n', r->v[i].iov_len) == NULL || strncmp(e, "MESSAGE=", 8) == 0 ||
                      strncmp(e, "COREDUMPD_BACKTRACE=", 20) == 0 || lines);
                const char *eq = strchr(e, '=');
                CHECK(eq);
                _cleanup_free_ char *field = strndup(e, (size_t) (eq - e));
                CHECK(fields_add(&copy, field, "%s", eq + 1) == 0);
        }

        pthread_mutex_lock(&c->lock);
        struct fields *grown = realloc(c->records, (c->n + 1) * sizeof *grown);
        CHECK(grown);
        c->records = grown;
        c->records[c->n++] = copy;
        pthread_mutex_unlock(&c->lock);
        return 0;
}

char *record_capture_field(struct record_capture *c, size_t i, const char *field) {
        char *v = NULL;
        pthread_mutex_lock(&c->lock);
        if (i < c->n) {
                const char *s = fields_get_name(&c->records[i], field);
                v = s ? strdup(s) : NULL;
        }
        pthread_mutex_unlock(&c->lock);
        return v;
}

void *record_capture_binary(struct record_capture *c, size_t i, const char *field, size_t *ret_size) {
        void *v = NULL;
        size_t k = strlen(field);
        *ret_size = 0;
        pthread_mutex_lock(&c->lock);
        for (size_t n = 0; i < c->n && n < c->records[i].n && !v; n++) {
                const struct iovec *e = &c->records[i].v[n];
                if (e->iov_len > k && memcmp(e->iov_base, field, k) == 0 && ((const char *) e->iov_base)[k] == '=') {
                        *ret_size = e->iov_len - k - 1;
                        v = malloc(*ret_size + 1);
                        CHECK(v);
                        memcpy(v, (const char *) e->iov_base + k + 1, *ret_size);
                }
        }
        pthread_mutex_unlock(&c->lock);
        return v;
}

size_t record_capture_count(struct record_capture *c) {
        pthread_mutex_lock(&c->lock);
        size_t n = c->n;
        pthread_mutex_unlock(&c->lock);
        return n;
}

/* ---- peer processes -------------------------------------------------------------------------- */

/*
 * pidfds of the test's peer processes. pidfd_open() would do, but valgrind (3.19) does not know
 * that syscall, so each peer hands us one end of a socketpair it created: the socket's peer
 * credentials name the peer, and SO_PEERPIDFD on it yields a pidfd whenever we need one.
 */
#define MAX_SLEEPERS 64
static struct {
        pid_t pid;
        int source;
} pidfd_sources[MAX_SLEEPERS];

static void pidfd_source_add(pid_t pid, int fd) {
        for (size_t i = 0; i < MAX_SLEEPERS; i++)
                if (pidfd_sources[i].pid == 0) {
                        pidfd_sources[i].pid = pid;
                        pidfd_sources[i].source = fd;
                        return;
                }
        test_fail(__FILE__, __LINE__, "too many sleepers");
}

static void pidfd_source_remove(pid_t pid) {
        for (size_t i = 0; i < MAX_SLEEPERS; i++)
                if (pidfd_sources[i].pid == pid) {
                        safe_close(pidfd_sources[i].source);
                        pidfd_sources[i].pid = 0;
                }
}

static int pidfd_from_socket(int fd) {
        int pidfd = -1;
        socklen_t len = sizeof pidfd;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
                return -errno;
        return pidfd;
}

int test_pidfd_of(pid_t pid) {
        if (pid == getpid()) {
                int sv[2];
                if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                        return -errno;
                int r = pidfd_from_socket(sv[0]);
                close(sv[0]);
                close(sv[1]);
                return r;
        }
        for (size_t i = 0; i < MAX_SLEEPERS; i++)
                if (pidfd_sources[i].pid == pid)
                        return pidfd_from_socket(pidfd_sources[i].source);
        int r = sys_pidfd_open(pid, 0);
        return r < 0 ? -errno : r;
}

/* In the child: a socketpair of its own, one end sent to the parent over channel. */
static void send_pidfd_source(int channel) {
        int sv[2];
        char byte = 'x';
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct iovec iov = { &byte, 1 };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control };

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                _exit(126);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &sv[1], sizeof(int));
        if (sendmsg(channel, &msg, MSG_NOSIGNAL) != 1)
                _exit(126);
        close(sv[1]);
}

static int receive_pidfd_source(int channel) {
        char byte;
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct iovec iov = { &byte, 1 };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof control };

        CHECK(recvmsg(channel, &msg, MSG_CMSG_CLOEXEC) == 1);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        CHECK(c && c->cmsg_type == SCM_RIGHTS);
        int fd;
        memcpy(&fd, CMSG_DATA(c), sizeof fd);
        return fd;
}

/* A limit, or (negative) unlimited, whatever the test runner's ulimit -c was. */
static void set_core_limit(long long limit) {
        struct rlimit rl;
        if (limit >= 0)
                rl = (struct rlimit) { (rlim_t) limit, (rlim_t) limit };
        else
                rl = (struct rlimit) { RLIM_INFINITY, RLIM_INFINITY };
        if (setrlimit(RLIMIT_CORE, &rl) < 0 && getrlimit(RLIMIT_CORE, &rl) == 0) {
                rl.rlim_cur = rl.rlim_max;
                (void) setrlimit(RLIMIT_CORE, &rl);
        }
}

/* Until the child sits in a system call (pause()), as a crashed task does: /proc/PID/syscall then
 * gives its stack and instruction pointers, and the unwinder a stack to walk. */
static void wait_blocked(pid_t pid) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/syscall", (int) pid);
        for (int i = 0; i < 500; i++) {
                char text[128] = "";
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
                if (fd >= 0)
                        close(fd);
                if (n > 0 && strncmp(text, "running", 7) != 0)
                        return;
                usleep(2000);
        }
}

/* Inlined into both: the unwinding tests look for their names in the stack. */
static inline __attribute__((always_inline)) pid_t sleeper_start_full(const char *comm, long long core_limit,
                                                                   const char *root) {
        int p[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) == 0);

        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (comm)
                        (void) prctl(PR_SET_NAME, comm);
                set_core_limit(core_limit);
                if (root && (chroot(root) < 0 || chdir("/") < 0))
                        _exit(1);
                send_pidfd_source(p[1]);
                for (;;)
                        pause();
        }
        close(p[1]);
        pidfd_source_add(pid, receive_pidfd_source(p[0]));
        close(p[0]);
        wait_blocked(pid);
        return pid;
}

pid_t sleeper_start(const char *comm, long long core_limit) {
        return sleeper_start_full(comm, core_limit, NULL);
}

pid_t sleeper_start_in_root(const char *comm, const char *root) {
        return sleeper_start_full(comm, -1, root);
}

/* Copies the file at from to to (created 0755). */
static int copy_file(const char *from, const char *to) {
        int in = open(from, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        char buf[65536];
        ssize_t n = 0;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
                if (write(out, buf, (size_t) n) != n)
                        n = -1;
        int r = in >= 0 && out >= 0 && n == 0 ? 0 : -1;
        if (in >= 0)
                close(in);
        if (out >= 0)
                close(out);
        return r;
}

static int map_file(const char *path) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        return p == MAP_FAILED ? -1 : 0;
}

pid_t sleeper_start_in_container(const char *root, const char *elf, bool device_over) {
        int p[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) == 0);

        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                char lib[PATH_MAX], kept[PATH_MAX], dev[PATH_MAX], old[PATH_MAX];
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                (void) prctl(PR_SET_NAME, "contained");
                set_core_limit(-1);
                snprintf(lib, sizeof lib, "%s/lib", root);
                snprintf(kept, sizeof kept, "%s/lib/kept.so", root);
                snprintf(dev, sizeof dev, "%s/lib/dev.so", root);
                snprintf(old, sizeof old, "%s/old", root);
                if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                    mount("tmpfs", root, "tmpfs", 0, "size=32m,mode=0755") < 0 || mkdir(lib, 0755) < 0 ||
                    mkdir(old, 0755) < 0 || copy_file(elf, kept) < 0 || map_file(kept) < 0)
                        _exit(1);
                /* A mapped file whose path names a device node by the time of the crash. */
                if (device_over && (copy_file(elf, dev) < 0 || map_file(dev) < 0 ||
                                    mount("/dev/null", dev, NULL, MS_BIND, NULL) < 0))
                        _exit(1);
                if (syscall(SYS_pivot_root, root, old) < 0 || chdir("/") < 0 || umount2("/old", MNT_DETACH) < 0)
                        _exit(1);
                send_pidfd_source(p[1]);
                for (;;)
                        pause();
        }
        close(p[1]);
        pidfd_source_add(pid, receive_pidfd_source(p[0]));
        close(p[0]);
        wait_blocked(pid);
        return pid;
}

pid_t sleeper_exec(const char *argv0, const char *script) {
        char self[256] = "";
        CHECK(readlink("/proc/self/exe", self, sizeof self - 1) > 0);

        int p[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) == 0);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                set_core_limit(-1);
                send_pidfd_source(p[1]);
                char *argv[] = { (char *) argv0, (char *) "-c", (char *) script, NULL };
                execv("/bin/sh", argv);
                _exit(127);
        }
        close(p[1]);
        pidfd_source_add(pid, receive_pidfd_source(p[0]));
        close(p[0]);
        /* Wait until the exec happened: /proc/pid/exe no longer is the test binary. */
        for (int i = 0; i < 500; i++) {
                char path[64], target[256] = "";
                snprintf(path, sizeof path, "/proc/%d/exe", (int) pid);
                ssize_t n = readlink(path, target, sizeof target - 1);
                if (n > 0 && strcmp(target, self) != 0)
                        return pid;
                usleep(2000);
        }
        test_fail(__FILE__, __LINE__, "sleeper did not exec");
}

void sleeper_stop(pid_t pid) {
        if (pid <= 0)
                return;
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
        pidfd_source_remove(pid);
}

static void write_proc_file(pid_t pid, const char *name, const char *text) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/%s", (int) pid, name);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(write(fd, text, strlen(text)) == (ssize_t) strlen(text));
}

/* The helper unshares the user namespace, waits for its maps (written here), becomes 0 inside,
 * unshares the pid namespace and forks pid 1 of it, which hands us its pidfd source and waits.
 * Without userns (as root), the same but in our user namespace: our own uid and gid. */
void ns_sleeper_start_in(struct ns_sleeper *s, bool userns) {
        int up[2], down[2], channel[2];
        CHECK(pipe2(up, O_CLOEXEC) == 0 && pipe2(down, O_CLOEXEC) == 0);
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) == 0);
        bool root = getuid() == 0;
        *s = (struct ns_sleeper) { .uid = root && userns ? 65534 : getuid(), .gid = root && userns ? 65534 : getgid() };
        CHECK(userns || root);

        s->helper = fork();
        CHECK(s->helper >= 0);
        if (s->helper == 0) {
                char byte;
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if ((userns && unshare(CLONE_NEWUSER) < 0) || write(up[1], "u", 1) != 1 || read(down[0], &byte, 1) != 1)
                        _exit(10);
                if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
                        _exit(11);
                /* A change of ids cleared it: a test that fails leaves no helper behind. */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                (void) prctl(PR_SET_DUMPABLE, 1);
                if (unshare(CLONE_NEWPID) < 0)
                        _exit(12);
                pid_t inner = fork();
                if (inner == 0) {
                        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                        send_pidfd_source(channel[1]);
                        for (;;)
                                pause();
                }
                if (inner < 0 || write(up[1], &inner, sizeof inner) != sizeof inner)
                        _exit(13);
                (void) waitpid(inner, NULL, 0);
                _exit(0);
        }
        close(up[1]);
        close(down[0]);
        close(channel[1]);
        char byte = 0, map[64];
        CHECK(read(up[0], &byte, 1) == 1);
        if (!root)
                write_proc_file(s->helper, "setgroups", "deny");
        if (userns) {
                snprintf(map, sizeof map, "0 %u 1\n", s->uid);
                write_proc_file(s->helper, "uid_map", map);
                snprintf(map, sizeof map, "0 %u 1\n", s->gid);
                write_proc_file(s->helper, "gid_map", map);
        }
        CHECK(write(down[1], "m", 1) == 1);
        CHECK(read(up[0], &s->pid, sizeof s->pid) == sizeof s->pid);
        CHECK(s->pid > 0);
        pidfd_source_add(s->pid, receive_pidfd_source(channel[0]));
        close(up[0]);
        close(down[1]);
        close(channel[0]);
        wait_blocked(s->pid);
}

void ns_sleeper_start(struct ns_sleeper *s) {
        ns_sleeper_start_in(s, true);
}

void ns_sleeper_stop(struct ns_sleeper *s) {
        (void) kill(s->pid, SIGKILL);
        CHECK(waitpid(s->helper, NULL, 0) == s->helper);
        pidfd_source_remove(s->pid);
}

void fake_peer_init(struct fake_peer *p, pid_t pid) {
        *p = (struct fake_peer) {
                .pid = pid,
                .coredump_mask = PIDFD_COREDUMPED | PIDFD_COREDUMP_USER,
                .signal = 11,
        };
}

int fake_authenticate(int conn_fd, struct peer *ret, void *userdata) {
        struct fake_peer *p = userdata;
        size_t i = atomic_fetch_add(&p->n_authenticated, 1);
        uint32_t uid = p->n_uids > 0 ? p->uids[MIN(i, p->n_uids - 1)] : p->uid;
        pid_t pid = p->n_uids > 0 && p->pids[MIN(i, p->n_uids - 1)] > 0 ? p->pids[MIN(i, p->n_uids - 1)] : p->pid;

        int pidfd = test_pidfd_of(pid);
        if (pidfd < 0)
                return log_error_errno(pidfd, "fake authenticator: no pidfd for %d: %m", (int) pid);

        /* The cgroup id as the kernel gives it, where it does (the context names cgroups by it). */
        struct pidfd_info real = {};
        bool cgroupid = pidfd_query_info(pidfd, PIDFD_INFO_CGROUPID, &real) >= 0 && (real.mask & PIDFD_INFO_CGROUPID);

        *ret = (struct peer) {
                .pidfd = pidfd,
                .info = {
                        .mask = PIDFD_INFO_PID | PIDFD_INFO_CREDS | PIDFD_INFO_COREDUMP |
                                PIDFD_INFO_COREDUMP_SIGNAL | (cgroupid ? PIDFD_INFO_CGROUPID : 0),
                        .cgroupid = cgroupid ? real.cgroupid : 0,
                        .pid = (uint32_t) pid,
                        .tgid = (uint32_t) pid,
                        .ruid = uid,
                        .rgid = p->gid,
                        .euid = p->euid,
                        .egid = p->egid,
                        .suid = p->euid,
                        .sgid = p->egid,
                        .fsuid = p->euid,
                        .fsgid = p->egid,
                        .coredump_mask = p->coredump_mask,
                        .coredump_signal = p->signal,
                },
        };
        return 0;
}

/* ---- test environment ------------------------------------------------------------------------ */

static struct policy *test_env_policy(void *userdata) {
        struct test_env *e = userdata;
        return policy_ref(e->policy);
}

void test_env_init(struct test_env *e, const char *policy_text, const char *config_text) {
        *e = (struct test_env) {};
        log_capture_start(&e->logs);
        record_capture_init(&e->records);
        record_capture_init(&e->user_records);

        e->dir = tmpdir_new();
        CHECK(asprintf(&e->store_dir, "%s/store", e->dir) > 0);
        CHECK(asprintf(&e->policy_dir, "%s/policy.d", e->dir) > 0);
        CHECK(mkdir(e->policy_dir, 0755) == 0);

        config_init_defaults(&e->config);
        _cleanup_free_ char *conf = NULL, *conf_path = NULL;
        /* A generous unwinding budget: a loaded test machine must not cut the stacks short (the
         * signatures the tests compare are over the top frames). */
        CHECK(asprintf(&conf, "[Coredump]\nStorage=%s\nMaxUse=1G\nKeepFree=0\nUnwindTimeout=30s\n%s", e->store_dir,
                       config_text ? config_text : "") > 0);
        CHECK_OK(write_text_file(e->dir, "coredumpd.conf", conf));
        CHECK(asprintf(&conf_path, "%s/coredumpd.conf", e->dir) > 0);
        CHECK_OK(config_load(&e->config, conf_path, true));

        if (policy_text)
                CHECK_OK(write_text_file(e->policy_dir, "50-test.conf", policy_text));
        const char *dirs[] = { e->policy_dir, NULL };
        CHECK_OK(policy_load(dirs, &e->policy));

        CHECK_OK(store_open(e->config.storage, &e->config, &e->store));

        e->sleeper = sleeper_start("crasher", -1);
        fake_peer_init(&e->peer, e->sleeper);

        e->env = (struct crash_env) {
                .authenticate = fake_authenticate,
                .authenticate_userdata = &e->peer,
                .policy_acquire = test_env_policy,
                .policy_userdata = e,
                .config = &e->config,
                .store = e->store,
                .record_sink = record_capture_sink,
                .record_userdata = &e->records,
                .user_record_sink = record_capture_sink,
                .user_record_userdata = &e->user_records,
                .host = &e->host,
                .unwind_slots = &e->unwind_slots,
        };
        host_view_open(NULL, &e->host);
        unwind_slots_init(&e->unwind_slots);
}

void test_env_done(struct test_env *e) {
        sleeper_stop(e->sleeper);
        host_view_close(&e->host);
        sem_destroy(&e->unwind_slots);
        store_free(e->store);
        policy_unref(e->policy);
        config_done(&e->config);
        tmpdir_remove(e->dir);
        free(e->dir);
        free(e->store_dir);
        free(e->policy_dir);
        record_capture_done(&e->records);
        record_capture_done(&e->user_records);
        log_capture_stop(&e->logs);
}

long signatures_saved_count(int store_dir_fd) {
        _cleanup_close_ int fd = openat(store_dir_fd, ".signatures", O_RDONLY | O_CLOEXEC);
        char buf[512] = "";
        unsigned count;
        if (fd < 0 || read(fd, buf, sizeof buf - 1) <= 0 || sscanf(buf, "%*u %*s %*u %u", &count) != 1)
                return -1;
        return count;
}

size_t test_env_count_cores(struct test_env *e, char ***ret_names) {
        DIR *d = opendir(e->store_dir);
        CHECK(d);
        size_t n = 0;
        char **names = NULL;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                CHECK(strncmp(de->d_name, "core.", 5) == 0); /* nothing else ever appears */
                names = realloc(names, (n + 2) * sizeof *names);
                CHECK(names);
                names[n++] = strdup(de->d_name);
                names[n] = NULL;
        }
        closedir(d);
        if (ret_names)
                *ret_names = names;
        else {
                for (size_t i = 0; i < n; i++)
                        free(names[i]);
                free(names);
        }
        return n;
}

/* ---- connection runs ------------------------------------------------------------------------- */

static void *connection_run_main(void *userdata) {
        struct connection_run *run = userdata;
        crash_handle(run->env, &run->conn);
        return NULL;
}

void connection_run_start(struct connection_run *run, const struct crash_env *env) {
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
        run->env = env;
        run->kernel_fd = sv[1];
        connection_init(&run->conn, sv[0]);
        CHECK(pthread_create(&run->thread, NULL, connection_run_main, run) == 0);
}

void connection_run_join(struct connection_run *run) {
        CHECK(pthread_join(run->thread, NULL) == 0);
        connection_destroy(&run->conn);
        run->kernel_fd = safe_close(run->kernel_fd);
}

/* ---- the simulated kernel -------------------------------------------------------------------- */

void fk_send_request(int fd, uint32_t size, uint32_t size_ack, uint64_t mask) {
        uint8_t *buf = malloc(size);
        CHECK(buf && size >= 8);
        memset(buf, 0xAB, size); /* a newer kernel's fields we don't know */
        memcpy(buf, &size, 4);
        memcpy(buf + 4, &size_ack, 4);
        if (size >= 16)
                memcpy(buf + 8, &mask, 8);
        /* The daemon may hang up on a request it refuses before taking all of it. */
        (void) fk_stream(fd, buf, size);
        free(buf);
}

static int wait_readable(int fd, int timeout_ms) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, timeout_ms);
        return r < 0 ? -errno : r;
}

int fk_read_ack(int fd, struct coredump_ack *ack, int timeout_ms) {
        size_t got = 0;
        memset(ack, 0, sizeof *ack);
        while (got < sizeof *ack) {
                if (wait_readable(fd, timeout_ms) <= 0)
                        break;
                ssize_t n = recv(fd, (char *) ack + got, sizeof *ack - got, 0);
                if (n <= 0)
                        break;
                got += (size_t) n;
        }
        return (int) got;
}

void fk_send_mark(int fd, uint32_t mark) {
        CHECK(send(fd, &mark, sizeof mark, MSG_NOSIGNAL) == sizeof mark);
}

size_t fk_stream(int fd, const void *data, size_t size) {
        size_t done = 0;
        while (done < size) {
                ssize_t n = send(fd, (const char *) data + done, MIN(size - done, (size_t) 65536), MSG_NOSIGNAL);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                done += (size_t) n;
        }
        return done;
}

long fk_wait_eof(int fd, int timeout_ms) {
        long extra = 0;
        char buf[4096];
        for (;;) {
                if (wait_readable(fd, timeout_ms) <= 0)
                        return -ETIMEDOUT;
                ssize_t n = recv(fd, buf, sizeof buf, 0);
                if (n < 0 && errno == ECONNRESET)
                        return extra;
                if (n <= 0)
                        return n < 0 ? -errno : extra;
                extra += n;
        }
}

/* ---- synthetic cores ------------------------------------------------------------------------- */

uint8_t *fake_core_new(size_t size, size_t claimed_size) {
        CHECK(size >= 8192 && claimed_size >= 8192);
        uint8_t *buf = calloc(1, size);
        CHECK(buf);

        uint64_t x = 0x9E3779B97F4A7C15ULL ^ size;
        for (size_t off = 4096; off + 4096 <= size; off += 4096) {
                if ((off / 4096) % 3 == 0)
                        continue; /* a zero page */
                for (size_t i = 0; i < 4096; i += 8) {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        memcpy(buf + off + i, &x, 8);
                }
        }
        for (size_t i = size - size % 4096; i < size; i++)
                buf[i] = (uint8_t) i;

        Elf64_Ehdr eh = {
                .e_type = ET_CORE,
                .e_machine = EM_X86_64,
                .e_version = EV_CURRENT,
                .e_phoff = sizeof(Elf64_Ehdr),
                .e_ehsize = sizeof(Elf64_Ehdr),
                .e_phentsize = sizeof(Elf64_Phdr),
                .e_phnum = 2,
        };
        memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = ELFCLASS64;
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        eh.e_ident[EI_VERSION] = EV_CURRENT;
        Elf64_Phdr ph[2] = {
                { .p_type = PT_NOTE, .p_offset = 512, .p_filesz = 256 },
                { .p_type = PT_LOAD, .p_offset = 4096, .p_filesz = claimed_size - 4096, .p_memsz = claimed_size - 4096 },
        };
        memcpy(buf, &eh, sizeof eh);
        memcpy(buf + sizeof eh, ph, sizeof ph);
        memset(buf + 512, 0x4E, 256);
        return buf;
}

uint8_t *read_core_file(const char *path, size_t *ret_size) {
        _cleanup_free_ char *raw = NULL;
        size_t raw_size;
        CHECK_OK(read_file_at(AT_FDCWD, path, 64 << 20, &raw, &raw_size, NULL));

        size_t n = strlen(path);
        if (n < 4 || strcmp(path + n - 4, ".zst") != 0) {
                *ret_size = raw_size;
                uint8_t *copy = malloc(raw_size + 1);
                CHECK(copy);
                memcpy(copy, raw, raw_size);
                return copy;
        }

        ZSTD_DCtx *d = ZSTD_createDCtx();
        CHECK(d);
        size_t cap = 1 << 20, used = 0;
        uint8_t *out = malloc(cap);
        ZSTD_inBuffer in = { raw, raw_size, 0 };
        for (;;) {
                if (used == cap) {
                        cap *= 2;
                        out = realloc(out, cap);
                        CHECK(out);
                }
                ZSTD_outBuffer o = { out + used, cap - used, 0 };
                size_t r = ZSTD_decompressStream(d, &o, &in);
                CHECK(!ZSTD_isError(r));
                used += o.pos;
                if (r == 0 && in.pos == in.size)
                        break;
                if (in.pos == in.size && o.pos < o.size)
                        test_fail(__FILE__, __LINE__, "truncated zstd frame in %s", path);
        }
        ZSTD_freeDCtx(d);
        *ret_size = used;
        return out;
}

int command_run(const char *command, char **ret_out) {
        FILE *p = popen(command, "r");
        CHECK(p);
        char *out = NULL;
        size_t size = 0;
        FILE *m = open_memstream(&out, &size);
        CHECK(m);
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0)
                fwrite(buf, 1, n, m);
        fclose(m);
        int status = pclose(p);
        *ret_out = out;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int run(char **ret_out, const char *format, ...) {
        _cleanup_free_ char *command = NULL;
        va_list ap;
        va_start(ap, format);
        CHECK(vasprintf(&command, format, ap) > 0);
        va_end(ap);
        fprintf(stderr, "$ %s\n", command);
        char *out;
        int status = command_run(command, &out);
        fprintf(stderr, "%s[exit %d]\n", out, status);
        CHECK(status >= 0);
        if (ret_out)
                *ret_out = out;
        else
                free(out);
        return status;
}

const char *dumpctl(void) {
        const char *p = getenv("DUMPCTL_BINARY");
        CHECK(p);
        return p;
}

bool enter_own_network(void) {
        if (unshare(CLONE_NEWNET) < 0) {
                printf("skipping: cannot make a network namespace: %m\n");
                return false;
        }
        _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct ifreq ifr = {};
        CHECK(fd >= 0);
        snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
        CHECK(ioctl(fd, SIOCGIFFLAGS, &ifr) == 0);
        ifr.ifr_flags |= IFF_UP;
        CHECK(ioctl(fd, SIOCSIFFLAGS, &ifr) == 0);
        return true;
}
