/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The event loop: concurrency limit, deadline timer, idle exit, policy reload. The server runs in a
 * thread of the test, listening on a socket in a temporary directory. */

#include <sys/socket.h>
#include <fcntl.h>
#include <inttypes.h>
#include <dirent.h>
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "harness.h"
#include "server/hooks.h"
#include "shared/unit-name.h"
#include "server/listen.h"
#include "server/server.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/timestamp.h"
#include <systemd/sd-bus.h>

#define FULL_MASK (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT | COREDUMP_WAIT)

struct running_server {
        struct server *server;
        pthread_t thread;
        int result;
        char *socket_path;
};

static void *server_thread(void *userdata) {
        struct running_server *rs = userdata;
        rs->result = server_run(rs->server);
        return NULL;
}

/* What the next server_start*() gives its server, for a test that needs another: the authenticator
 * (every crash's first step on the loop), and whether it talks to $NOTIFY_SOCKET (the watchdog). */
static authenticate_fn server_authenticate = fake_authenticate;
static record_sink_fn server_record_sink = record_capture_sink;
static bool server_notify;

static void server_start_waiting(struct running_server *rs, struct test_env *e, uint64_t exit_wait_usec) {
        CHECK(asprintf(&rs->socket_path, "%s/coredump.socket", e->dir) > 0);
        int fd = listen_fd_bind(rs->socket_path);
        CHECK_OK(fd);

        static const char *dirs_copy[2], *dropin_dirs[2];
        static char conf_path[PATH_MAX], dropin_dir[PATH_MAX];
        dirs_copy[0] = e->policy_dir;
        snprintf(conf_path, sizeof conf_path, "%s/coredumpd.conf", e->dir);
        snprintf(dropin_dir, sizeof dropin_dir, "%s/coredumpd.conf.d", e->dir);
        dropin_dirs[0] = dropin_dir;
        struct server_options o = {
                .config = &e->config,
                .config_path = conf_path,
                .config_must_exist = true,
                .config_dropin_dirs = dropin_dirs,
                .listen_fd = fd,
                .store = e->store,
                .policy = e->policy,
                .policy_dirs = dirs_copy,
                .authenticate = server_authenticate,
                .authenticate_userdata = &e->peer,
                .record_sink = server_record_sink,
                .record_userdata = &e->records,
                .repeats = e->env.repeats,
                .exit_wait_usec = exit_wait_usec,
                .notify = server_notify,
        };
        CHECK_OK(server_new(&o, &rs->server));
        CHECK(pthread_create(&rs->thread, NULL, server_thread, rs) == 0);
}

/* The fake peers never exit: compression does not wait for them. */
static void server_start(struct running_server *rs, struct test_env *e) {
        server_start_waiting(rs, e, 0);
}

static void server_join(struct running_server *rs) {
        CHECK(pthread_join(rs->thread, NULL) == 0);
        CHECK_INT(rs->result, ==, 0);
        server_free(rs->server);
        free(rs->socket_path);
}

static int client_connect(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        strncpy(sa.sun_path, path, sizeof sa.sun_path - 1);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(fd >= 0);
        CHECK(connect(fd, (struct sockaddr *) &sa, sizeof sa) == 0);
        return fd;
}

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static bool wait_records(struct test_env *e, size_t n, int timeout_ms) {
        for (int i = 0; i < timeout_ms / 10; i++) {
                if (record_capture_count(&e->records) >= n)
                        return true;
                usleep(10000);
        }
        return false;
}

static char *find_record_field(struct test_env *e, const char *key, const char *value, const char *field) {
        for (size_t i = 0; i < record_capture_count(&e->records); i++) {
                _cleanup_free_ char *v = record_capture_field(&e->records, i, key);
                if (v && strcmp(v, value) == 0)
                        return record_capture_field(&e->records, i, field);
        }
        return NULL;
}

/* Streams a 64 KiB core to a fresh crash connection in 8 KiB pieces, pause_ms apart; returns when
 * the daemon closed the connection, and how long after the connect that was. */
static uint64_t stream_slowly(struct running_server *rs, size_t chunk, int pause_ms) {
        struct coredump_ack ack;
        _cleanup_close_ int fd = client_connect(rs->socket_path);
        uint64_t t0 = now_ms();
        _cleanup_free_ uint8_t *core = fake_core_new(65536, 65536);

        fk_send_request(fd, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(fd, &ack, 5000), ==, 16);
        fk_send_mark(fd, COREDUMP_MARK_REQACK);
        for (size_t off = 0; off < 65536; off += chunk) {
                usleep((useconds_t) pause_ms * 1000);
                if (fk_stream(fd, core + off, chunk) != chunk)
                        break;
        }
        (void) shutdown(fd, SHUT_WR);
        CHECK(fk_wait_eof(fd, 10000) >= 0);
        return now_ms() - t0;
}

/* The deadline is on progress: a core that keeps moving is taken although it streams for longer
 * than Deadline=.  The pauses stay well under Deadline= so that a loaded machine's scheduling
 * does not turn one into a stall. */
TEST(deadline_spares_a_moving_core) {
        struct test_env e;
        struct running_server rs = {};
        test_env_init(&e, NULL, "Deadline=1500ms\nMinRate=1K\nIdleExit=0\n");
        server_start(&rs, &e);

        CHECK_INT(stream_slowly(&rs, 8192, 300), >=, 2400);
        CHECK(wait_records(&e, 1, 5000));
        _cleanup_free_ char *result = record_capture_field(&e.records, 0, "COREDUMPD_RESULT");
        CHECK_STR(result, "stored");
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 1);

        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* However it moves, a connection ends at Deadline= + MaxSize= / MinRate=: here 1 s + 1 s (where its
 * average, 10 KiB/s, is also below MinRate=), while the core, 16 pieces 400 ms apart, would take
 * 6.4 s.  The pauses stay well under Deadline=, so that on a loaded machine those bounds, not a
 * stall, end it. */
TEST(deadline_caps_a_moving_core) {
        struct test_env e;
        struct running_server rs = {};
        test_env_init(&e, NULL, "Deadline=1s\nMaxSize=64K\nMinRate=64K\nIdleExit=0\n");
        server_start(&rs, &e);

        uint64_t elapsed = stream_slowly(&rs, 4096, 400);
        CHECK_INT(elapsed, >=, 1900);
        CHECK_INT(elapsed, <, 4000);
        CHECK(wait_records(&e, 1, 5000));
        _cleanup_free_ char *error = record_capture_field(&e.records, 0, "COREDUMPD_ERROR");
        CHECK(error && strstr(error, "deadline"));
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);

        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* A crash whose "kernel" has sent its request: returns the connection. */
static int crash_connect(struct running_server *rs) {
        int fd = client_connect(rs->socket_path);
        fk_send_request(fd, 16, 16, FULL_MASK);
        return fd;
}

/* Completes an acked crash: mark, a whole small core, end of stream; waits for the close. */
static void crash_finish(int fd) {
        _cleanup_free_ uint8_t *core = fake_core_new(16384, 16384);
        fk_send_mark(fd, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_stream(fd, core, 16384), ==, 16384);
        CHECK(shutdown(fd, SHUT_WR) == 0);
        CHECK(fk_wait_eof(fd, 10000) >= 0);
}

static size_t count_records(struct test_env *e, const char *field, const char *value) {
        size_t n = 0;
        for (size_t i = 0; i < record_capture_count(&e->records); i++) {
                _cleanup_free_ char *v = record_capture_field(&e->records, i, field);
                n += v && strcmp(v, value) == 0;
        }
        return n;
}

/* Beyond MaxConcurrent= a crash waits (no answer yet, the kernel holds it) and is taken when a
 * slot frees: both are stored. */
TEST(queued_beyond_max_concurrent_then_stored) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=1\nDeadline=10s\nIdleExit=0\n");
        server_start(&rs, &e);

        _cleanup_close_ int a = crash_connect(&rs);
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        _cleanup_close_ int b = crash_connect(&rs);
        CHECK_INT(fk_read_ack(b, &ack, 500), ==, 0);            /* queued: no answer */

        crash_finish(a);
        CHECK_INT(fk_read_ack(b, &ack, 5000), ==, 16);          /* the freed slot is b's */
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        crash_finish(b);

        CHECK(wait_records(&e, 2, 5000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 2);
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 2);
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* Entries of the loop's epoll set whose fd is closed or now another file (/proc/self/fdinfo's
 * "tfd: N ... ino: I" lines against fstat(N)): an fd closed while still registered. */
static unsigned epoll_stale_targets(struct running_server *rs) {
        char path[64], line[256];
        unsigned n = 0;
        snprintf(path, sizeof path, "/proc/self/fdinfo/%d", sd_event_get_fd(rs->server->event));
        FILE *f = fopen(path, "re");
        CHECK(f);
        while (fgets(line, sizeof line, f)) {
                int tfd;
                const char *i = strstr(line, "ino:");
                if (sscanf(line, "tfd: %d", &tfd) != 1 || !i)
                        continue;
                unsigned long long ino = strtoull(i + 4, NULL, 16);
                struct stat st;
                if (fstat(tfd, &st) < 0 || (unsigned long long) st.st_ino != ino)
                        n++;
        }
        fclose(f);
        return n;
}

/* A rejected crash's socket leaves the loop's epoll set before it is closed. While a child holds a
 * copy of every fd (a parser being spawned for another crash, until its exec), closing first left
 * the socket in the set with its source freed: the kernel closing its end then woke the loop with
 * a freed source, and sd-event aborted (the attack of the VM case queue-monopolised). */
TEST(rejected_crash_leaves_epoll_before_close) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, "[Rule]\nName=no\nAction=reject\nWait=no\n", "Deadline=10s\nIdleExit=0\n");
        server_start(&rs, &e);

        int b = crash_connect(&rs);
        CHECK_INT(fk_read_ack(b, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        pid_t holder = fork();          /* holds every fd of ours, the server's socket too */
        CHECK(holder >= 0);
        if (holder == 0) {
                usleep(1000000);
                _exit(0);
        }
        fk_send_mark(b, COREDUMP_MARK_REQACK);
        CHECK(wait_records(&e, 1, 5000));       /* (no EOF on b: the child holds the other end) */
        usleep(100000);
        unsigned stale = epoll_stale_targets(&rs);  /* while the child lives */
        close(b);
        CHECK(waitpid(holder, NULL, 0) == holder);
        CHECK_INT(stale, ==, 0);

        int c = crash_connect(&rs);     /* the loop still turns */
        CHECK_INT(fk_read_ack(c, &ack, 5000), ==, 16);
        fk_send_mark(c, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(c, 5000), ==, 0);
        close(c);
        CHECK(wait_records(&e, 2, 5000));
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* The policy decides on the loop: a crash it rejects is answered at once, without a slot, while
 * the only one is held; its record names it (comm, exe) without what a kept crash reads of the
 * task's memory (its command line). The crash holding the slot is stored after it. */
TEST(rejected_crash_needs_no_slot) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, "[Rule]\nName=no-4242\nMatchUID=4242\nAction=reject\nWait=no\n",
                      "MaxConcurrent=1\nDeadline=10s\nIdleExit=0\n");
        e.peer.uids[0] = 0;
        e.peer.uids[1] = 4242;
        e.peer.uids[2] = 0;
        e.peer.n_uids = 3;
        server_start(&rs, &e);

        _cleanup_close_ int a = crash_connect(&rs);
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        _cleanup_close_ int b = crash_connect(&rs);
        CHECK_INT(fk_read_ack(b, &ack, 2000), ==, 16);          /* not queued behind a */
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        fk_send_mark(b, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(b, 5000), ==, 0);
        _cleanup_close_ int c = crash_connect(&rs);
        CHECK_INT(fk_read_ack(c, &ack, 500), ==, 0);            /* kept: queued behind a */

        CHECK(wait_records(&e, 1, 5000));
        _cleanup_free_ char *rule = find_record_field(&e, "COREDUMPD_RESULT", "rejected", "COREDUMPD_RULE");
        _cleanup_free_ char *comm = find_record_field(&e, "COREDUMPD_RESULT", "rejected", "COREDUMP_COMM");
        _cleanup_free_ char *exe = find_record_field(&e, "COREDUMPD_RESULT", "rejected", "COREDUMP_EXE");
        _cleanup_free_ char *cmdline = find_record_field(&e, "COREDUMPD_RESULT", "rejected", "COREDUMP_CMDLINE");
        CHECK_STR(rule, "no-4242");
        CHECK(comm && exe && !cmdline);

        crash_finish(a);
        CHECK_INT(fk_read_ack(c, &ack, 5000), ==, 16);
        crash_finish(c);
        CHECK(wait_records(&e, 3, 5000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 2);
        _cleanup_free_ char *kept_cmdline = find_record_field(&e, "COREDUMPD_RESULT", "stored", "COREDUMP_CMDLINE");
        CHECK(kept_cmdline);
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* A crash gives its slot back when it releases its task, not when its thread ends: here the first
 * crash's thread goes on waiting (up to 3 s) for its task's exit before it compresses, and the
 * queued crash is answered at once all the same. Deadline= passes meanwhile: with nothing held it
 * cuts nothing and says nothing. */
TEST(released_crash_frees_its_slot) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=1\nDeadline=1s\nIdleExit=0\n");
        server_start_waiting(&rs, &e, 3000000);

        _cleanup_close_ int a = crash_connect(&rs);
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        _cleanup_close_ int b = crash_connect(&rs);
        CHECK_INT(fk_read_ack(b, &ack, 500), ==, 0);            /* queued behind a */

        crash_finish(a);                                        /* a's task released */
        uint64_t t0 = now_ms();
        CHECK_INT(fk_read_ack(b, &ack, 5000), ==, 16);
        CHECK_INT(now_ms() - t0, <, 2000);                      /* not after a's 3 s */
        crash_finish(b);

        CHECK(wait_records(&e, 2, 10000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 2);
        CHECK_INT(count_records(&e, "COREDUMPD_CORE_FORM", "zstd"), ==, 2);
        CHECK(!log_capture_contains(&e.logs, "reached its deadline"));
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* A crash that waited QueueDeadline= in the queue is answered REJECT then, and recorded as overload. */
TEST(queued_for_queue_deadline_rejected_as_overload) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=1\nQueueDeadline=800ms\nDeadline=10s\nMinRate=1K\nIdleExit=0\n");
        server_start(&rs, &e);

        /* a keeps its slot by moving slowly; b waits behind it. */
        _cleanup_close_ int a = crash_connect(&rs);
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        fk_send_mark(a, COREDUMP_MARK_REQACK);
        _cleanup_free_ uint8_t *core = fake_core_new(65536, 65536);
        _cleanup_close_ int b = crash_connect(&rs);
        uint64_t t0 = now_ms();
        for (size_t off = 0; off < 65536; off += 8192) {
                CHECK_INT(fk_stream(a, core + off, 8192), ==, 8192);
                if (fk_read_ack(b, &ack, 300) == 16)
                        break;
        }
        uint64_t waited = now_ms() - t0;
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        CHECK_INT(waited, >=, 700);
        CHECK_INT(waited, <, 2400);
        fk_send_mark(b, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(b, 5000), ==, 0);
        CHECK(wait_records(&e, 1, 5000));
        _cleanup_free_ char *rule = find_record_field(&e, "COREDUMPD_RESULT", "overload", "COREDUMPD_RULE");
        CHECK_STR(rule, "overload");

        (void) shutdown(a, SHUT_RDWR);
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* One user's crashes hold at most MaxConcurrentPerUser= slots: another user's crash, queued behind
 * them, goes ahead; and a root crash takes the reserved slot while users hold all the others. */
TEST(fair_shares_per_user_and_reserved_for_root) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=3\nMaxConcurrentPerUser=1\nReservedConcurrent=1\nDeadline=10s\nIdleExit=0\n");
        e.peer.n_uids = 4;
        memcpy(e.peer.uids, (uint32_t[]) { 1000, 1000, 1001, 0 }, 4 * sizeof(uint32_t));
        server_start(&rs, &e);

        _cleanup_close_ int a = crash_connect(&rs);             /* 1000: runs */
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        _cleanup_close_ int b = crash_connect(&rs);             /* 1000 again: over its share, waits */
        CHECK_INT(fk_read_ack(b, &ack, 300), ==, 0);
        _cleanup_close_ int c = crash_connect(&rs);             /* 1001: goes ahead of b */
        CHECK_INT(fk_read_ack(c, &ack, 5000), ==, 16);
        /* Two users run; the last slot is reserved: root takes it at once. */
        _cleanup_close_ int d = crash_connect(&rs);             /* 0 */
        CHECK_INT(fk_read_ack(d, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        CHECK_INT(fk_read_ack(b, &ack, 300), ==, 0);            /* b still waits */

        crash_finish(a);
        CHECK_INT(fk_read_ack(b, &ack, 5000), ==, 16);          /* 1000's slot is free again */
        crash_finish(b);
        crash_finish(c);
        crash_finish(d);
        CHECK(wait_records(&e, 4, 5000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 4);

        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* The reserved slot is for root and system users of the host's own user namespace: a container
 * root made (its tasks were host root's before tenants) waits behind a user's crash for a user's
 * slot, while host root takes the reserved one at once. */
TEST(reserved_slot_not_for_a_container) {
        if (geteuid() != 0) {
                printf("SKIP: needs root to make a user namespace root owns\n");
                exit(77);
        }
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        struct ns_sleeper ct;
        /* (A rule of its own: the sleeper in a user namespace has this test's RLIMIT_CORE.) */
        test_env_init(&e, "[Rule]\nName=all\nAction=kernel\n",
                      "MaxConcurrent=2\nMaxConcurrentPerUser=1\nReservedConcurrent=1\nDeadline=10s\nIdleExit=0\n");
        ns_sleeper_start(&ct);
        e.peer.n_uids = 3;
        memcpy(e.peer.uids, (uint32_t[]) { 1000, ct.uid, 0 }, 3 * sizeof(uint32_t));
        e.peer.pids[1] = ct.pid;
        server_start(&rs, &e);

        _cleanup_close_ int a = crash_connect(&rs);             /* 1000: the users' one slot */
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        _cleanup_close_ int b = crash_connect(&rs);             /* the container: waits for it */
        CHECK_INT(fk_read_ack(b, &ack, 300), ==, 0);
        _cleanup_close_ int c = crash_connect(&rs);             /* host root: the reserved slot */
        CHECK_INT(fk_read_ack(c, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        CHECK_INT(fk_read_ack(b, &ack, 300), ==, 0);            /* b still waits */

        crash_finish(a);
        CHECK_INT(fk_read_ack(b, &ack, 5000), ==, 16);          /* the users' slot is free again */
        crash_finish(b);
        crash_finish(c);
        CHECK(wait_records(&e, 3, 5000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 3);

        server_request_stop(rs.server);
        server_join(&rs);
        ns_sleeper_stop(&ct);
        test_env_done(&e);
}

/* A system user has a queue quota as every tenant has: www-data (33) crashing in a loop waits with
 * at most MaxQueuedPerUser= crashes, the next is rejected (before tenants: no quota, the queue was
 * theirs to fill). */
TEST(queue_quota_for_a_system_user) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=1\nMaxConcurrentPerUser=1\nReservedConcurrent=0\nMaxQueued=8\n"
                                "MaxQueuedPerUser=1\nDeadline=10s\nIdleExit=0\n");
        e.peer.uid = 33;
        server_start(&rs, &e);

        _cleanup_close_ int a = crash_connect(&rs);             /* runs */
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        _cleanup_close_ int b = crash_connect(&rs);             /* waits: its one in the queue */
        CHECK_INT(fk_read_ack(b, &ack, 300), ==, 0);
        _cleanup_close_ int c = crash_connect(&rs);             /* over its quota: rejected */
        CHECK_INT(fk_read_ack(c, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        fk_send_mark(c, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(c, 5000), ==, 0);

        crash_finish(a);
        CHECK_INT(fk_read_ack(b, &ack, 5000), ==, 16);
        crash_finish(b);
        CHECK(wait_records(&e, 3, 5000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 2);
        _cleanup_free_ char *error = find_record_field(&e, "COREDUMPD_RESULT", "overload", "COREDUMPD_ERROR");
        if (!error || !strstr(error, "quota"))
                test_fail(__FILE__, __LINE__, "overload error '%s' does not name the quota", error ? error : "(none)");

        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* One user cannot crowd others out of the queue: their crashes beyond MaxQueuedPerUser= are
 * rejected at once, and another user's crash that may run takes its slot although the queue is
 * full (it was rejected "queue full" before). */
TEST(queue_quota_per_user_and_a_runnable_crash_never_rejected) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=2\nMaxConcurrentPerUser=1\nReservedConcurrent=0\nMaxQueued=2\n"
                                "MaxQueuedPerUser=2\nDeadline=10s\nIdleExit=0\n");
        e.peer.n_uids = 5;
        memcpy(e.peer.uids, (uint32_t[]) { 1000, 1000, 1000, 1000, 1001 }, 5 * sizeof(uint32_t));
        server_start(&rs, &e);

        _cleanup_close_ int a = crash_connect(&rs);             /* runs */
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        _cleanup_close_ int b = crash_connect(&rs);             /* over its share: waits */
        CHECK_INT(fk_read_ack(b, &ack, 300), ==, 0);
        _cleanup_close_ int c = crash_connect(&rs);             /* waits: the queue is full now */
        CHECK_INT(fk_read_ack(c, &ack, 300), ==, 0);
        _cleanup_close_ int d = crash_connect(&rs);             /* over the user's quota: rejected */
        CHECK_INT(fk_read_ack(d, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        fk_send_mark(d, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(d, 5000), ==, 0);
        _cleanup_close_ int f = crash_connect(&rs);             /* 1001 may run: runs, queue full or not */
        CHECK_INT(fk_read_ack(f, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);

        crash_finish(a);
        CHECK_INT(fk_read_ack(b, &ack, 5000), ==, 16);
        crash_finish(b);
        CHECK_INT(fk_read_ack(c, &ack, 5000), ==, 16);
        crash_finish(c);
        crash_finish(f);
        CHECK(wait_records(&e, 5, 5000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 4);
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "overload"), ==, 1);
        _cleanup_free_ char *error = find_record_field(&e, "COREDUMPD_RESULT", "overload", "COREDUMPD_ERROR");
        if (!error || !strstr(error, "quota"))
                test_fail(__FILE__, __LINE__, "overload error '%s' does not name the quota", error ? error : "(none)");

        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* Out of fds, the listener rests instead of spinning on EMFILE (a busy loop before, and crashes lost
 * as the backlog filled): the crashes wait in the backlog and are served once fds come back. */
TEST(fd_exhaustion_pauses_the_listener) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        struct rlimit saved, low;
        test_env_init(&e, NULL, "Deadline=10s\nIdleExit=0\n");
        server_start(&rs, &e);

        /* The clients' sockets first: connect() needs no new fd once the limit is low. */
        int fds[3];
        for (size_t i = 0; i < 3; i++) {
                fds[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                CHECK(fds[i] >= 0);
        }
        int highest = 0;
        for (int fd = 0; fd < 4096; fd++)
                if (fcntl(fd, F_GETFD) >= 0)
                        highest = fd;
        CHECK(getrlimit(RLIMIT_NOFILE, &saved) == 0);
        low = (struct rlimit) { .rlim_cur = (rlim_t) highest + 1, .rlim_max = saved.rlim_max };
        CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
        /* Every hole below the limit filled: no fd left for anyone in this process. */
        int fillers[4096], n_fillers = 0;
        while (n_fillers < 4096 && (fillers[n_fillers] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
                n_fillers++;

        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        strncpy(sa.sun_path, rs.socket_path, sizeof sa.sun_path - 1);
        struct rusage r0, r1;
        CHECK(getrusage(RUSAGE_SELF, &r0) == 0);
        for (size_t i = 0; i < 3; i++) {
                CHECK(connect(fds[i], (struct sockaddr *) &sa, sizeof sa) == 0);
                fk_send_request(fds[i], 16, 16, FULL_MASK);
        }
        CHECK_INT(fk_read_ack(fds[0], &ack, 1000), ==, 0);     /* not accepted: no fd */
        CHECK(getrusage(RUSAGE_SELF, &r1) == 0);
        uint64_t cpu_ms = (uint64_t) (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1000 +
                          (uint64_t) ((r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec)) / 1000;
        for (int i = 0; i < n_fillers; i++)
                close(fillers[i]);
        CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
        if (cpu_ms > 500)
                test_fail(__FILE__, __LINE__, "%" PRIu64 " ms of CPU in a second out of fds: the listener spins", cpu_ms);

        for (size_t i = 0; i < 3; i++) {
                CHECK_INT(fk_read_ack(fds[i], &ack, 5000), ==, 16);
                crash_finish(fds[i]);
                close(fds[i]);
        }
        CHECK(wait_records(&e, 3, 5000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 3);
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* Nearly out of fds, the listener rests before the last one: a crash accepted with the last fd had no
 * fd left for its pidfd and was closed without a record. With a few fds still free (fewer than a
 * crash and the running ones need), a crash waits in the backlog, and is served once fds come back. */
TEST(fd_headroom_kept_before_accept) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        struct rlimit saved, low;
        test_env_init(&e, NULL, "MaxConcurrent=4\nDeadline=10s\nIdleExit=0\n");
        server_start(&rs, &e);

        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(fd >= 0);
        int highest = 0;
        for (int i = 0; i < 4096; i++)
                if (fcntl(i, F_GETFD) >= 0)
                        highest = i;
        CHECK(getrlimit(RLIMIT_NOFILE, &saved) == 0);
        /* Every hole filled, then four fds free: accept() would succeed; the reserve says no. */
        low = (struct rlimit) { .rlim_cur = (rlim_t) highest + 1, .rlim_max = saved.rlim_max };
        CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
        int fillers[4096], n_fillers = 0;
        while (n_fillers < 4096 && (fillers[n_fillers] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
                n_fillers++;
        low.rlim_cur += 4;
        CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);

        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        strncpy(sa.sun_path, rs.socket_path, sizeof sa.sun_path - 1);
        CHECK(connect(fd, (struct sockaddr *) &sa, sizeof sa) == 0);
        fk_send_request(fd, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(fd, &ack, 1000), ==, 0);         /* left in the backlog */
        CHECK_INT(record_capture_count(&e.records), ==, 0);

        for (int i = 0; i < n_fillers; i++)
                close(fillers[i]);
        CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
        CHECK_INT(fk_read_ack(fd, &ack, 5000), ==, 16);
        crash_finish(fd);
        CHECK(wait_records(&e, 1, 5000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 1);
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* With MaxConcurrent=1, no queue and one crash in progress, the next is answered REJECT at once and
 * recorded as overload; the stalled first one is cut at its deadline. */
TEST(overload_rejected_and_deadline_enforced) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=1\nMaxQueued=0\nDeadline=1500ms\nIdleExit=0\n");
        server_start(&rs, &e);

        /* First crash: acked KERNEL|WAIT, then the "kernel" stalls mid-stream. */
        _cleanup_close_ int a = client_connect(rs.socket_path);
        uint64_t t0 = now_ms();
        fk_send_request(a, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        fk_send_mark(a, COREDUMP_MARK_REQACK);
        _cleanup_free_ uint8_t *core = fake_core_new(65536, 65536);
        CHECK_INT(fk_stream(a, core, 8192), ==, 8192);

        /* Second crash while the first holds the only slot. */
        _cleanup_close_ int b = client_connect(rs.socket_path);
        fk_send_request(b, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(b, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        fk_send_mark(b, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(b, 5000), ==, 0);
        CHECK(now_ms() - t0 < 1000); /* answered at once, not after the first finished */

        /* The first is closed by its deadline. */
        CHECK(fk_wait_eof(a, 5000) >= 0);
        uint64_t elapsed = now_ms() - t0;
        CHECK_INT(elapsed, >=, 1400);
        CHECK_INT(elapsed, <, 4000);

        CHECK(wait_records(&e, 2, 5000));
        _cleanup_free_ char *overload_rule = find_record_field(&e, "COREDUMPD_RESULT", "overload", "COREDUMPD_RULE");
        CHECK_STR(overload_rule, "overload");
        _cleanup_free_ char *overload_action = find_record_field(&e, "COREDUMPD_RESULT", "overload", "COREDUMPD_ACTION");
        CHECK_STR(overload_action, "reject");
        _cleanup_free_ char *error = find_record_field(&e, "COREDUMPD_RESULT", "failed", "COREDUMPD_ERROR");
        CHECK(error && strstr(error, "deadline"));
        CHECK(log_capture_contains(&e.logs, "deadline"));
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);

        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* The loop waits for a request without blocking on it: a crash whose request comes 300 ms after
 * its connect is answered then, while another that never sends one waits beside it; that one is
 * closed at Deadline= and recorded as failed, saying what it waited for. */
TEST(late_and_missing_requests_wait_on_the_loop) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=2\nDeadline=1s\nIdleExit=0\n");
        server_start(&rs, &e);

        _cleanup_close_ int silent = client_connect(rs.socket_path);
        uint64_t t0 = now_ms();
        _cleanup_close_ int late = client_connect(rs.socket_path);
        usleep(300000);
        fk_send_request(late, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(late, &ack, 2000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        CHECK_INT(now_ms() - t0, <, 900);
        crash_finish(late);

        CHECK(fk_wait_eof(silent, 5000) >= 0);
        uint64_t elapsed = now_ms() - t0;
        CHECK_INT(elapsed, >=, 900);
        CHECK_INT(elapsed, <, 3000);
        CHECK(wait_records(&e, 2, 5000));
        _cleanup_free_ char *error = find_record_field(&e, "COREDUMPD_RESULT", "failed", "COREDUMPD_ERROR");
        CHECK(error && strstr(error, "waiting for the request reached its deadline"));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 1);
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* systemd's end of the watchdog: $NOTIFY_SOCKET, a datagram socket; the longest time between two
 * WATCHDOG=1 (or since the last one, at the end). */
struct watchdog_peer {
        int fd;
        pthread_t thread;
        atomic_bool stop;
        atomic_uint pings;
        uint64_t last_ms, longest_ms;
        pthread_mutex_t lock;
};

static void *watchdog_peer_thread(void *userdata) {
        struct watchdog_peer *w = userdata;
        char buf[512];

        while (!atomic_load(&w->stop)) {
                struct pollfd p = { .fd = w->fd, .events = POLLIN };
                if (poll(&p, 1, 50) <= 0)
                        continue;
                ssize_t n = recv(w->fd, buf, sizeof buf - 1, 0);
                if (n <= 0)
                        continue;
                buf[n] = 0;
                if (!strstr(buf, "WATCHDOG=1"))
                        continue;
                uint64_t now = now_ms();
                pthread_mutex_lock(&w->lock);
                if (w->last_ms > 0 && now - w->last_ms > w->longest_ms)
                        w->longest_ms = now - w->last_ms;
                w->last_ms = now;
                pthread_mutex_unlock(&w->lock);
                atomic_fetch_add(&w->pings, 1);
        }
        return NULL;
}

static void watchdog_peer_start(struct watchdog_peer *w, const char *dir, uint64_t period_usec) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char value[32];

        *w = (struct watchdog_peer) { .lock = PTHREAD_MUTEX_INITIALIZER };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s/notify", dir);
        w->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        CHECK(w->fd >= 0);
        CHECK(bind(w->fd, (struct sockaddr *) &sa, sizeof sa) == 0);
        CHECK(setenv("NOTIFY_SOCKET", sa.sun_path, 1) == 0);
        snprintf(value, sizeof value, "%" PRIu64, period_usec);
        CHECK(setenv("WATCHDOG_USEC", value, 1) == 0);
        snprintf(value, sizeof value, "%d", (int) getpid());
        CHECK(setenv("WATCHDOG_PID", value, 1) == 0);
        CHECK(pthread_create(&w->thread, NULL, watchdog_peer_thread, w) == 0);
}

/* The longest time without a ping, up to now. */
static uint64_t watchdog_peer_stop(struct watchdog_peer *w) {
        uint64_t now = now_ms();
        atomic_store(&w->stop, true);
        CHECK(pthread_join(w->thread, NULL) == 0);
        close(w->fd);
        uint64_t longest = MAX(w->longest_ms, w->last_ms > 0 ? now - w->last_ms : UINT64_MAX);
        (void) unsetenv("NOTIFY_SOCKET");
        (void) unsetenv("WATCHDOG_USEC");
        (void) unsetenv("WATCHDOG_PID");
        return longest;
}

/* Every crash's first step on the loop, as slow as on a starved machine (an emulated VM sharing its
 * cores): 60 ms. */
#define SLOW_LOOP_STEP_USEC 60000
static int slow_authenticate(int conn_fd, struct peer *ret, void *userdata) {
        usleep(SLOW_LOOP_STEP_USEC);
        return fake_authenticate(conn_fd, ret, userdata);
}

/* A storm on a starved machine: 60 crashes in the backlog at once, each taking 60 ms of the loop
 * (3.6 s in all). The loop takes them in turns with everything else, pinging the watchdog
 * (WatchdogSec=2s here, 1min in the unit) as it turns: no gap reaches its period. Draining the
 * backlog in one turn went 3.6 s without a ping, and systemd would have aborted the daemon with
 * every held crash. Each crash is still answered and recorded. */
TEST(storm_on_a_slow_loop_keeps_the_watchdog_fed) {
        enum { N = 60 };
        struct test_env e;
        struct running_server rs = {};
        struct watchdog_peer wd;
        struct coredump_ack ack;
        int fds[N];

        test_env_init(&e, "[Rule]\nName=no\nAction=reject\nWait=no\n", "MaxConcurrent=32\nDeadline=60s\nIdleExit=0\n");
        watchdog_peer_start(&wd, e.dir, 2000000);
        server_authenticate = slow_authenticate;
        server_notify = true;
        server_start(&rs, &e);
        for (uint64_t t0 = now_ms(); atomic_load(&wd.pings) == 0 && now_ms() - t0 < 5000;)
                usleep(10000);
        CHECK_INT(atomic_load(&wd.pings), >, 0); /* the watchdog is on: pinged at the start */

        for (int i = 0; i < N; i++)
                fds[i] = crash_connect(&rs);
        for (int i = 0; i < N; i++) {
                CHECK_INT(fk_read_ack(fds[i], &ack, 30000), ==, 16);
                CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
                fk_send_mark(fds[i], COREDUMP_MARK_REQACK);
        }
        for (int i = 0; i < N; i++) {
                CHECK_INT(fk_wait_eof(fds[i], 10000), ==, 0);
                close(fds[i]);
        }
        CHECK(wait_records(&e, N, 10000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "rejected"), ==, N);
        usleep(100000);
        uint64_t longest = watchdog_peer_stop(&wd);
        fprintf(stderr, "Longest time without a watchdog ping: %" PRIu64 " ms.\n", longest);
        CHECK_INT(longest, <, 2000);
        /* No turn of the loop much longer than one crash's share of it. */
        CHECK_INT(rs.server->longest_turn_usec, <, 1000000);

        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* The journal, as while journald takes nothing (its socket's queue full: busy, flooded by any user,
 * restarting): a record's write waits until journal_stalled is cleared. */
static atomic_bool journal_stalled;
static atomic_uint journal_waiting;
static int stalled_journal_sink(const struct fields *f, void *userdata) {
        atomic_fetch_add(&journal_waiting, 1);
        while (atomic_load(&journal_stalled))
                usleep(10000);
        atomic_fetch_sub(&journal_waiting, 1);
        return record_capture_sink(f, userdata);
}

/* A crash the loop finishes (a REJECT) has its record written off the loop: while the journal takes
 * nothing for 3 s, the next crash is answered at once all the same, and both records are written
 * once the journal takes them again. The loop waited for the journal before. */
TEST(loop_never_waits_for_the_journal) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;

        test_env_init(&e, "[Rule]\nName=no\nAction=reject\nWait=no\n", "Deadline=10s\nIdleExit=0\n");
        server_record_sink = stalled_journal_sink;
        atomic_store(&journal_stalled, true);
        server_start(&rs, &e);

        _cleanup_close_ int a = crash_connect(&rs);
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        fk_send_mark(a, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(a, 5000), ==, 0);
        for (uint64_t t0 = now_ms(); atomic_load(&journal_waiting) == 0 && now_ms() - t0 < 5000;)
                usleep(10000);
        CHECK_INT(atomic_load(&journal_waiting), ==, 1);         /* a's record waits for the journal */

        uint64_t t0 = now_ms();
        _cleanup_close_ int b = crash_connect(&rs);
        CHECK_INT(fk_read_ack(b, &ack, 5000), ==, 16);
        CHECK_INT(now_ms() - t0, <, 1000);                       /* answered meanwhile */
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        fk_send_mark(b, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(b, 5000), ==, 0);
        CHECK_INT(record_capture_count(&e.records), ==, 0);

        usleep(2500000);
        atomic_store(&journal_stalled, false);
        CHECK(wait_records(&e, 2, 5000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "rejected"), ==, 2);
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

TEST(concurrent_crashes_all_stored) {
        struct test_env e;
        struct running_server rs = {};
        test_env_init(&e, NULL, "MaxConcurrent=4\nIdleExit=0\n");
        server_start(&rs, &e);

        int fds[4];
        struct coredump_ack ack;
        _cleanup_free_ uint8_t *core = fake_core_new(256 * 1024, 256 * 1024);
        for (int i = 0; i < 4; i++) {
                fds[i] = client_connect(rs.socket_path);
                fk_send_request(fds[i], 16, 16, FULL_MASK);
                CHECK_INT(fk_read_ack(fds[i], &ack, 5000), ==, 16);
                CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
                fk_send_mark(fds[i], COREDUMP_MARK_REQACK);
        }
        for (int i = 0; i < 4; i++) {
                CHECK_INT(fk_stream(fds[i], core, 256 * 1024), ==, 256 * 1024);
                CHECK(shutdown(fds[i], SHUT_WR) == 0);
        }
        for (int i = 0; i < 4; i++) {
                CHECK_INT(fk_wait_eof(fds[i], 10000), ==, 0);
                close(fds[i]);
        }
        CHECK(wait_records(&e, 4, 5000));
        for (size_t i = 0; i < 4; i++) {
                _cleanup_free_ char *result = record_capture_field(&e.records, i, "COREDUMPD_RESULT");
                CHECK_STR(result, "stored");
        }
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 4);

        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* A server whose one rule keeps the first crash of a signature and rejects its repeats. */
static void repeater_start(struct test_env *e, struct running_server *rs) {
        test_env_init(e, "[Rule]\nName=repeater\nAction=kernel\nRateLimitBurst=1\nOnRepeat=reject\n", "IdleExit=0\n");
        e->env.repeats = repeats_new(e->store->dir_fd);
        CHECK(e->env.repeats);
        server_start(rs, e);
}

static void repeater_stop(struct test_env *e, struct running_server *rs) {
        server_request_stop(rs->server);
        server_join(rs);
        e->env.repeats = repeats_free(e->env.repeats);
        test_env_done(e);
}

/* The signature counts are saved by the loop, off the crashes' way to their acks: the repeats of a
 * crash loop are in .signatures within a second or so of the last, the daemon still running (its
 * timer, not its stop, wrote them). */
TEST(signature_counts_saved_by_the_loop) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        repeater_start(&e, &rs);

        for (int i = 0; i < 6; i++) {
                _cleanup_close_ int fd = crash_connect(&rs);
                CHECK_INT(fk_read_ack(fd, &ack, 5000), ==, 16);
                if (i == 0) {
                        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
                        crash_finish(fd);
                        continue;
                }
                CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
                fk_send_mark(fd, COREDUMP_MARK_REQACK);
                CHECK(shutdown(fd, SHUT_WR) == 0);
                CHECK(fk_wait_eof(fd, 10000) >= 0);
        }
        CHECK(wait_records(&e, 6, 10000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "rejected"), ==, 5);
        long saved = -1;
        for (int i = 0; i < 500 && saved != 6; i++) {
                saved = signatures_saved_count(e.store->dir_fd);
                if (saved != 6)
                        usleep(10000);
        }
        CHECK_INT(saved, ==, 6);
        repeater_stop(&e, &rs);
}

/* opendir() as the server's code in this binary calls it, passed on (as open() and fdopendir()), the
 * listings of /proc/self/fd counted (a definition in the executable comes before libc's). */
static atomic_uint fd_listings;

DIR *opendir(const char *name) {
        if (strcmp(name, "/proc/self/fd") == 0)
                atomic_fetch_add(&fd_listings, 1);
        int fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        DIR *d = fdopendir(fd);
        if (!d)
                close(fd);
        return d;
}

/* The fds left are counted before an accept(), not listed for every crash: a loop of crashes costs a
 * listing of /proc/self/fd every quarter of a second at most while plenty are left. */
TEST(fds_counted_not_listed_per_crash) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, "[Rule]\nName=refuse\nAction=reject\n", "IdleExit=0\n");
        server_start(&rs, &e);

        const int crashes = 40;
        uint64_t start = now_monotonic_usec();
        atomic_store(&fd_listings, 0);
        for (int i = 0; i < crashes; i++) {
                _cleanup_close_ int fd = crash_connect(&rs);
                CHECK_INT(fk_read_ack(fd, &ack, 5000), ==, 16);
                CHECK(ack.mask & COREDUMP_REJECT);
                fk_send_mark(fd, COREDUMP_MARK_REQACK);
                CHECK(shutdown(fd, SHUT_WR) == 0);
                CHECK(fk_wait_eof(fd, 10000) >= 0);
        }
        CHECK(wait_records(&e, crashes, 10000));
        uint64_t elapsed = now_monotonic_usec() - start;
        unsigned listings = atomic_load(&fd_listings);
        printf("# %d crashes in %" PRIu64 " ms: /proc/self/fd listed %u times\n", crashes, elapsed / 1000, listings);
        CHECK_INT(listings, >=, 1);
        CHECK_INT(listings, <=, 2 + elapsed / (250 * 1000));
        CHECK_INT(listings, <, (unsigned) crashes); /* it was 2 per crash */
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "rejected"), ==, crashes);
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* pthread_create() as the server's code in this binary calls it, passed on to libc's, counted. */
static atomic_uint threads_started;

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
        static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
        if (!real)
                real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)) dlsym(RTLD_NEXT, "pthread_create");
        atomic_fetch_add(&threads_started, 1);
        return real(thread, attr, start, arg);
}

/* A crash loop's repeats each go to a thread (their site key reads the task's memory), but not to a
 * new one: a thread done with a crash waits for the next (it was a thread's start and end per
 * crash). */
TEST(crash_threads_kept_for_the_next) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        repeater_start(&e, &rs);

        const int crashes = 20;
        atomic_store(&threads_started, 0);
        for (int i = 0; i < crashes; i++) {
                _cleanup_close_ int fd = crash_connect(&rs);
                CHECK_INT(fk_read_ack(fd, &ack, 5000), ==, 16);
                if (i == 0) {
                        crash_finish(fd);
                        continue;
                }
                if (ack.mask != COREDUMP_REJECT)
                        printf("# crash %d: ack 0x%x\n", i, (unsigned) ack.mask);
                CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
                fk_send_mark(fd, COREDUMP_MARK_REQACK);
                CHECK(shutdown(fd, SHUT_WR) == 0);
                CHECK(fk_wait_eof(fd, 10000) >= 0);
                CHECK(wait_records(&e, (unsigned) i + 1, 10000)); /* one crash at a time */
        }
        unsigned started = atomic_load(&threads_started);
        printf("# %d crashes one after the other: %u thread(s) started\n", crashes, started);
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "rejected"), ==, crashes - 1);
        CHECK_INT(started, >=, 1);
        CHECK_INT(started, <=, 3); /* the first crash's, and one beside it at most while it compresses */
        repeater_stop(&e, &rs);
}

/* A thread that compressed a core runs at a low CPU and I/O priority it cannot raise again (nice 10,
 * idle I/O): it takes no further crash, whose task would wait at that priority. */
TEST(compressing_thread_takes_no_further_crash) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "IdleExit=0\n");
        server_start(&rs, &e);

        const int crashes = 3;
        atomic_store(&threads_started, 0);
        for (int i = 0; i < crashes; i++) {
                _cleanup_close_ int fd = crash_connect(&rs);
                CHECK_INT(fk_read_ack(fd, &ack, 5000), ==, 16);
                CHECK(ack.mask & COREDUMP_KERNEL);
                crash_finish(fd);
                CHECK(wait_records(&e, (unsigned) i + 1, 10000));
        }
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, crashes);
        CHECK_INT(count_records(&e, "COREDUMPD_CORE_FORM", "zstd"), ==, crashes); /* each compressed after its release */
        CHECK_INT(atomic_load(&threads_started), ==, (unsigned) crashes);
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

TEST(idle_exit) {
        struct test_env e;
        struct running_server rs = {};
        test_env_init(&e, NULL, "IdleExit=200ms\n");
        uint64_t t0 = now_ms();
        server_start(&rs, &e);
        server_join(&rs); /* returns on its own */
        CHECK_INT(now_ms() - t0, >=, 150);
        CHECK(log_capture_contains(&e.logs, "Stopping (idle)"));
        test_env_done(&e);
}

/* A rule with an error is left out (at its file:line), the others of the reload apply. */
TEST(malformed_policy_reload_leaves_out_the_rule) {
        struct test_env e;
        struct running_server rs = {};
        test_env_init(&e, "[Rule]\nName=first\nAction=reject\n", "IdleExit=0\n");
        server_start(&rs, &e);

        CHECK_OK(write_text_file(e.policy_dir, "40-broken.conf", "[Rule]\nName=broken\nAction=kernel\nMatchUID=x\n"));
        struct policy *before = rs.server->policy;
        CHECK_OK(server_reload_policy(rs.server));
        CHECK(rs.server->policy != before);
        _cleanup_free_ char *needle = NULL, *left_out = NULL;
        CHECK(asprintf(&needle, "%s/40-broken.conf:4: invalid MatchUID= id or range 'x'", e.policy_dir) > 0);
        CHECK(asprintf(&left_out, "%s/40-broken.conf:1: rule 'broken' ignored for its errors", e.policy_dir) > 0);
        CHECK(log_capture_contains(&e.logs, needle));
        CHECK(log_capture_contains(&e.logs, left_out));

        /* The broken rule (before it, it would have kept the crash) is not there; the rest is. */
        struct coredump_ack ack;
        _cleanup_close_ int a = client_connect(rs.socket_path);
        fk_send_request(a, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(a, &ack, 5000), ==, 16);
        CHECK_INT(ack.mask & ~COREDUMP_WAIT, ==, COREDUMP_REJECT);
        fk_send_mark(a, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(a, 5000), ==, 0);

        CHECK(wait_records(&e, 1, 5000));
        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

static bool wait_log(struct test_env *e, const char *needle, int timeout_ms) {
        for (int i = 0; i < timeout_ms / 10; i++) {
                if (log_capture_contains(&e->logs, needle))
                        return true;
                usleep(10000);
        }
        return false;
}

/* A reload (SIGHUP) reads coredumpd.conf and its drop-ins anew: the next crash has the new
 * settings, a wrong line is logged and left out, and Storage=, which cannot change while the
 * daemon runs, is said once to need a restart and kept. */
TEST(reload_reads_the_configuration) {
        struct test_env e;
        struct running_server rs = {};
        test_env_init(&e, NULL, "IdleExit=0\nCompress=none\n");
        server_start(&rs, &e);

        crash_finish(crash_connect(&rs));
        CHECK(wait_records(&e, 1, 5000));
        _cleanup_free_ char *form1 = record_capture_field(&e.records, 0, "COREDUMPD_CORE_FORM");
        _cleanup_free_ char *trunc1 = record_capture_field(&e.records, 0, "COREDUMP_TRUNCATED");
        CHECK_STR(form1, "plain");
        CHECK(!trunc1);

        /* A drop-in: a smaller MaxSize= (the next core is cut), a typo, another Storage=. */
        _cleanup_free_ char *dropins = NULL, *elsewhere = NULL, *typo = NULL;
        CHECK(asprintf(&dropins, "%s/coredumpd.conf.d", e.dir) > 0 && mkdir(dropins, 0755) == 0);
        CHECK(asprintf(&elsewhere, "%s/elsewhere", e.dir) > 0);
        _cleanup_free_ char *text = NULL;
        CHECK(asprintf(&text, "[Coredump]\nMaxSize=8K\nMaxSise=1G\nStorage=%s\nMaxAge=2w\n", elsewhere) > 0);
        CHECK_OK(write_text_file(dropins, "50-reload.conf", text));
        server_request_reload(rs.server);
        CHECK(wait_log(&e, "Configuration reloaded (with lines left out", 5000));
        CHECK(asprintf(&typo, "%s/50-reload.conf:3: unknown key 'MaxSise' in [Coredump], ignored", dropins) > 0);
        CHECK(log_capture_contains(&e.logs, typo));
        CHECK(log_capture_contains(&e.logs, "needs a restart"));
        CHECK_STR(rs.server->config->storage, e.store_dir);
        CHECK_INT(store_get_limits(e.store).max_age_usec, ==, UINT64_C(14) * 86400 * 1000000);

        crash_finish(crash_connect(&rs));
        CHECK(wait_records(&e, 2, 5000));
        _cleanup_free_ char *trunc2 = record_capture_field(&e.records, 1, "COREDUMP_TRUNCATED");
        _cleanup_free_ char *file2 = record_capture_field(&e.records, 1, "COREDUMP_FILENAME");
        CHECK_STR(trunc2, "1");
        CHECK(file2 && strncmp(file2, e.store_dir, strlen(e.store_dir)) == 0); /* the store it had */

        /* The same again: the restart is not said twice. */
        log_capture_stop(&e.logs);
        log_capture_start(&e.logs);
        server_request_reload(rs.server);
        CHECK(wait_log(&e, "Configuration reloaded", 5000));
        CHECK(!log_capture_contains(&e.logs, "needs a restart"));

        server_request_stop(rs.server);
        server_join(&rs);
        test_env_done(&e);
}

/* openat64() as the daemon's code in this binary calls it (fileio.c's read_file_at()): a kept crash of
 * stuck_pid blocks in reading its cmdline — as a thread blocks uninterruptibly on a task whose mm a
 * sibling holds locked — until stuck_release, far beyond any deadline. */
static atomic_int stuck_pid;
static atomic_bool stuck_release;
static atomic_uint stuck_blocked;

int test_openat64(int dir_fd, const char *name, int flags, ...) __asm__("openat64");
int test_openat64(int dir_fd, const char *name, int flags, ...) {
        static int (*real)(int, const char *, int, ...);
        mode_t mode = 0;
        if (flags & (O_CREAT | O_TMPFILE)) {
                va_list ap;
                va_start(ap, flags);
                mode = (mode_t) va_arg(ap, int);
                va_end(ap);
        }
        if (!real)
                real = (int (*)(int, const char *, int, ...)) dlsym(RTLD_NEXT, "openat64");
        int pid = atomic_load(&stuck_pid);
        if (pid > 0 && strcmp(name, "cmdline") == 0) {
                char path[64], link[64] = "", want[32];
                snprintf(path, sizeof path, "/proc/self/fd/%d", dir_fd);
                snprintf(want, sizeof want, "/proc/%d", pid);
                ssize_t n = readlink(path, link, sizeof link - 1);
                if (n > 0 && (link[n] = 0, strcmp(link, want) == 0)) {
                        atomic_fetch_add(&stuck_blocked, 1);
                        while (!atomic_load(&stuck_release))
                                usleep(10000);
                }
        }
        return real(dir_fd, name, flags, mode);
}

static pid_t stuck_task_start(void) {
        pid_t pid = sleeper_start("stuck", -1);
        atomic_store(&stuck_pid, pid);
        atomic_store(&stuck_release, false);
        atomic_store(&stuck_blocked, 0);
        return pid;
}

static void stuck_task_stop(pid_t pid) {
        atomic_store(&stuck_pid, 0);
        sleeper_stop(pid);
}

/* A crash whose thread blocks in the kernel past its deadline is abandoned 2 s after the cut: its
 * slot and its user's share are free at once (a further crash of another user and of the same user
 * run), it is recorded once, with why; and when its thread returns at last, nothing more. */
TEST(stuck_thread_abandoned_frees_its_slot) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=1\nMaxConcurrentPerUser=1\nDeadline=1s\nIdleExit=0\n");
        pid_t stuck = stuck_task_start();
        e.peer.n_uids = 3;
        memcpy(e.peer.uids, (uint32_t[]) { 1000, 1001, 1000 }, 3 * sizeof(uint32_t));
        e.peer.pids[0] = stuck;
        server_start(&rs, &e);

        _cleanup_close_ int a = crash_connect(&rs);             /* 1000: stuck before its ack */
        for (int i = 0; i < 500 && atomic_load(&stuck_blocked) == 0; i++)
                usleep(10000);
        CHECK_INT(atomic_load(&stuck_blocked), ==, 1);
        uint64_t t0 = now_ms();
        _cleanup_close_ int b = crash_connect(&rs);             /* 1001: waits for the slot */
        CHECK_INT(fk_read_ack(b, &ack, 6000), ==, 16);          /* after Deadline= + the grace */
        CHECK_INT(now_ms() - t0, <, 5000);
        CHECK(wait_records(&e, 1, 2000));
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "failed"), ==, 1);
        _cleanup_free_ char *why = find_record_field(&e, "COREDUMPD_RESULT", "failed", "COREDUMPD_ERROR");
        CHECK(why && strstr(why, "stuck in the kernel"));
        crash_finish(b);
        _cleanup_close_ int c = crash_connect(&rs);             /* 1000 again: its share is free */
        CHECK_INT(fk_read_ack(c, &ack, 3000), ==, 16);
        crash_finish(c);
        CHECK(wait_records(&e, 3, 5000));

        atomic_store(&stuck_release, true);                     /* the stuck thread returns */
        usleep(500000);
        CHECK(log_capture_contains(&e.logs, "returned after it was abandoned"));
        CHECK_INT(record_capture_count(&e.records), ==, 3);     /* no second record */
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 2);
        server_request_stop(rs.server);
        server_join(&rs);
        stuck_task_stop(stuck);
        test_env_done(&e);
}

/* Past STUCK_MAX_PER_TENANT stuck threads, a tenant's next crash is answered REJECT on the loop
 * with why, while another tenant's is kept; and the stop neither waits for the stuck threads nor
 * takes long. */
TEST(stuck_tenant_rejected_and_stop_prompt) {
        struct test_env e;
        struct running_server rs = {};
        struct coredump_ack ack;
        test_env_init(&e, NULL, "MaxConcurrent=4\nDeadline=1s\nIdleExit=0\n");
        pid_t stuck = stuck_task_start();
        e.peer.n_uids = 4;
        memcpy(e.peer.uids, (uint32_t[]) { 1000, 1000, 1000, 1001 }, 4 * sizeof(uint32_t));
        e.peer.pids[0] = e.peer.pids[1] = stuck;
        server_start(&rs, &e);

        int a1 = crash_connect(&rs), a2 = crash_connect(&rs);
        for (int i = 0; i < 500 && atomic_load(&stuck_blocked) < 2; i++)
                usleep(10000);
        CHECK_INT(atomic_load(&stuck_blocked), ==, 2);
        CHECK(wait_records(&e, 2, 6000));                       /* both abandoned and recorded */
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "failed"), ==, 2);

        _cleanup_close_ int c = crash_connect(&rs);             /* 1000: rejected at once */
        CHECK_INT(fk_read_ack(c, &ack, 2000), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        fk_send_mark(c, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_wait_eof(c, 5000), ==, 0);
        _cleanup_close_ int d = crash_connect(&rs);             /* 1001: kept */
        CHECK_INT(fk_read_ack(d, &ack, 2000), ==, 16);
        CHECK(ack.mask & COREDUMP_KERNEL);
        crash_finish(d);
        CHECK(wait_records(&e, 4, 5000));
        _cleanup_free_ char *why = find_record_field(&e, "COREDUMPD_RESULT", "overload", "COREDUMPD_ERROR");
        CHECK_STR(why, "2 of this tenant's crashes are stuck in the kernel");
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "stored"), ==, 1);

        uint64_t t0 = now_ms();                                 /* the stuck threads never return */
        server_request_stop(rs.server);
        server_join(&rs);
        CHECK_INT(now_ms() - t0, <, 3000);
        close(a1);
        close(a2);
        /* (The stuck threads hold the environment: the test's child exits with them.) */
}

/* A crash stuck while the daemon stops: cut at the stop, abandoned and recorded, and the stop ends
 * within its grace, not waiting for the thread. */
TEST(stop_with_a_stuck_thread_is_prompt) {
        struct test_env e;
        struct running_server rs = {};
        test_env_init(&e, NULL, "Deadline=60s\nIdleExit=0\n");
        pid_t stuck = stuck_task_start();
        e.peer.pid = stuck;
        server_start(&rs, &e);

        int a = crash_connect(&rs);
        for (int i = 0; i < 500 && atomic_load(&stuck_blocked) == 0; i++)
                usleep(10000);
        CHECK_INT(atomic_load(&stuck_blocked), ==, 1);
        uint64_t t0 = now_ms();
        server_request_stop(rs.server);
        server_join(&rs);
        CHECK_INT(now_ms() - t0, <, 9000);                      /* not Deadline=60s */
        CHECK_INT(record_capture_count(&e.records), ==, 1);
        CHECK_INT(count_records(&e, "COREDUMPD_RESULT", "failed"), ==, 1);
        close(a);
}

/* ---- the hooks' thread (server/hooks.c) against a bus of its own ---- */

/* A dbus-daemon of the test's own (never the host's bus) with a stand-in for systemd on it: it owns
 * org.freedesktop.systemd1 and notes each StartUnit's unit and mode. */
struct fake_systemd {
        char *dir;
        char address[PATH_MAX + 16];
        pid_t daemon;
        pthread_t thread;
        atomic_bool stop;
        atomic_bool ready;
        pthread_mutex_t lock;
        char units[8][UNIT_NAME_MAX + 1];
        char modes[8][16];
        size_t n;
        char scopes[4][64];
        uint32_t scope_pids[4];
        size_t n_scopes;
};

/* StartTransientUnit(name, mode, properties, aux): notes a scope's name and its PIDs= (one). */
static int fake_start_transient_unit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct fake_systemd *f = userdata;
        const char *unit, *mode;
        uint32_t pid = 0;
        int r = sd_bus_message_read(m, "ss", &unit, &mode);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "(sv)");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
                const char *name;
                r = sd_bus_message_read(m, "s", &name);
                if (r >= 0 && strcmp(name, "PIDs") == 0)
                        r = sd_bus_message_read(m, "v", "au", 1, &pid);
                else if (r >= 0)
                        r = sd_bus_message_skip(m, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        if (r < 0)
                return r;
        pthread_mutex_lock(&f->lock);
        if (f->n_scopes < 4) {
                snprintf(f->scopes[f->n_scopes], sizeof f->scopes[0], "%s", unit);
                f->scope_pids[f->n_scopes++] = pid;
        }
        pthread_mutex_unlock(&f->lock);
        return sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/job/2");
}

static int fake_start_unit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct fake_systemd *f = userdata;
        const char *unit, *mode;
        int r = sd_bus_message_read(m, "ss", &unit, &mode);
        if (r < 0)
                return r;
        pthread_mutex_lock(&f->lock);
        if (f->n < 8) {
                snprintf(f->units[f->n], sizeof f->units[0], "%s", unit);
                snprintf(f->modes[f->n], sizeof f->modes[0], "%s", mode);
                f->n++;
        }
        pthread_mutex_unlock(&f->lock);
        return sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/job/1");
}

static const sd_bus_vtable fake_manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("StartUnit", "ss", "o", fake_start_unit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("StartTransientUnit", "ssa(sv)a(sa(sv))", "o", fake_start_transient_unit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static void *fake_systemd_thread(void *userdata) {
        struct fake_systemd *f = userdata;
        sd_bus *bus = NULL;
        CHECK_OK(sd_bus_new(&bus));
        CHECK_OK(sd_bus_set_address(bus, f->address));
        CHECK_OK(sd_bus_set_bus_client(bus, 1));
        CHECK_OK(sd_bus_start(bus));
        CHECK_OK(sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                                          fake_manager_vtable, f));
        CHECK_OK(sd_bus_request_name(bus, "org.freedesktop.systemd1", 0));
        atomic_store(&f->ready, true);
        while (!atomic_load(&f->stop)) {
                int r = sd_bus_process(bus, NULL);
                CHECK_OK(r);
                if (r == 0)
                        (void) sd_bus_wait(bus, 100000);
        }
        sd_bus_flush_close_unref(bus);
        return NULL;
}

static void fake_systemd_start(struct fake_systemd *f) {
        *f = (struct fake_systemd) { .lock = PTHREAD_MUTEX_INITIALIZER };
        f->dir = tmpdir_new();
        char conf[PATH_MAX], socket_path[PATH_MAX];
        snprintf(socket_path, sizeof socket_path, "%s/bus", f->dir);
        snprintf(f->address, sizeof f->address, "unix:path=%s", socket_path);
        _cleanup_free_ char *text = NULL;
        CHECK(asprintf(&text,
                       "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                       " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                       "<busconfig><type>system</type><listen>%s</listen><auth>EXTERNAL</auth>\n"
                       "<policy context=\"default\"><allow user=\"*\"/><allow own=\"*\"/>"
                       "<allow send_destination=\"*\"/><allow receive_sender=\"*\"/></policy></busconfig>\n",
                       f->address) > 0);
        CHECK_OK(write_text_file(f->dir, "bus.conf", text));
        snprintf(conf, sizeof conf, "--config-file=%s/bus.conf", f->dir);
        f->daemon = fork();
        CHECK(f->daemon >= 0);
        if (f->daemon == 0) {
                execlp("dbus-daemon", "dbus-daemon", conf, "--nofork", "--nopidfile", "--nosyslog", (char *) NULL);
                _exit(127);
        }
        for (int i = 0; i < 500 && access(socket_path, F_OK) < 0; i++)
                usleep(10000);
        if (access(socket_path, F_OK) < 0)
                test_fail(__FILE__, __LINE__, "dbus-daemon (from the package dbus-daemon) did not start");
        CHECK(pthread_create(&f->thread, NULL, fake_systemd_thread, f) == 0);
        for (int i = 0; i < 500 && !atomic_load(&f->ready); i++)
                usleep(10000);
        CHECK(atomic_load(&f->ready));
}

static void fake_systemd_stop(struct fake_systemd *f) {
        atomic_store(&f->stop, true);
        pthread_join(f->thread, NULL);
        kill(f->daemon, SIGTERM);
        waitpid(f->daemon, NULL, 0);
        tmpdir_remove(f->dir);
        free(f->dir);
}

static const struct tenant hook_tenant = { .uid = 1000, .host = true };

/* Nothing wanted by the template: no call to systemd at all. Once a hook is enabled (an entry in
 * the template's .wants/), one StartUnit per unit, mode "fail", on the bus; a hook of the other
 * template stays unwanted. */
TEST(hooks_start_units_only_where_wanted) {
        struct fake_systemd f;
        fake_systemd_start(&f);
        _cleanup_free_ char *units = tmpdir_new();
        const char *dirs[] = { units, NULL };
        struct hooks *h = hooks_new(&(struct hooks_options) { .unit_dirs = dirs, .bus_address = f.address });
        CHECK(h);

        hooks_start(HOOK_CRASH, "coredumpd-crash@a.service", &hook_tenant, h);
        CHECK(hooks_settle(h, 5000000));
        CHECK_INT(hooks_n_unwanted(h), ==, 1);
        CHECK_INT(hooks_n_started(h), ==, 0);
        CHECK_INT(f.n, ==, 0);

        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/coredumpd-crash@.service.wants", units);
        CHECK(mkdir(path, 0755) == 0);
        snprintf(path, sizeof path, "%s/coredumpd-crash@.service.wants/myhook@.service", units);
        CHECK(symlink("/nonexistent/myhook@.service", path) == 0);
        hooks_start(HOOK_CRASH, "coredumpd-crash@b.service", &hook_tenant, h);
        hooks_start(HOOK_NEW_SIGNATURE, "coredumpd-new-signature@0123456789abcdef.service", &hook_tenant, h);
        CHECK(hooks_settle(h, 5000000));
        CHECK_INT(hooks_n_started(h), ==, 1);
        CHECK_INT(hooks_n_unwanted(h), ==, 2);
        pthread_mutex_lock(&f.lock);
        CHECK_INT(f.n, ==, 1);
        CHECK_STR(f.units[0], "coredumpd-crash@b.service");
        CHECK_STR(f.modes[0], "fail");
        pthread_mutex_unlock(&f.lock);

        /* A drop-in directory with a .conf counts too (it may say Wants=). */
        snprintf(path, sizeof path, "%s/coredumpd-new-signature@.service.d", units);
        CHECK(mkdir(path, 0755) == 0);
        CHECK_OK(write_text_file(path, "50-hook.conf", "[Unit]\nWants=myalert@%i.service\n"));
        hooks_start(HOOK_NEW_SIGNATURE, "coredumpd-new-signature@0123456789abcdef.service", &hook_tenant, h);
        CHECK(hooks_settle(h, 5000000));
        CHECK_INT(hooks_n_started(h), ==, 2);
        hooks_free(h);
        fake_systemd_stop(&f);
        tmpdir_remove(units);
}

/* No bus at all (none listens there): the start fails on the hooks' thread, said once, and the
 * caller never waits; a full queue drops what does not fit, at once. */
TEST(hooks_without_a_bus_cost_the_caller_nothing) {
        _cleanup_free_ char *units = tmpdir_new();
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/coredumpd-crash@.service.wants", units);
        CHECK(mkdir(path, 0755) == 0);
        CHECK_OK(write_text_file(path, "myhook@.service", ""));
        char address[PATH_MAX + 16];
        snprintf(address, sizeof address, "unix:path=%s/no-bus", units);
        const char *dirs[] = { units, NULL };
        struct hooks *h = hooks_new(&(struct hooks_options) { .unit_dirs = dirs, .bus_address = address });
        CHECK(h);
        uint64_t t0 = now_monotonic_usec();
        for (int i = 0; i < 3 * HOOKS_QUEUE_MAX; i++) {
                char unit[64];
                snprintf(unit, sizeof unit, "coredumpd-crash@%d.service", i);
                hooks_start(HOOK_CRASH, unit, &hook_tenant, h);
        }
        CHECK_INT(now_monotonic_usec() - t0, <, 500000);
        CHECK(hooks_settle(h, 10000000));
        CHECK_INT(hooks_n_started(h), ==, 0);
        hooks_free(h);
        tmpdir_remove(units);
}

/* The waiting room is shared per tenant: one tenant's crash loop fills its own share
 * (HOOKS_QUEUE_PER_TENANT) and no more, another tenant's hooks still get theirs. The hook thread is
 * held on its first job by a bus that takes the connection and never answers. */
TEST(hooks_queue_is_shared_per_tenant) {
        _cleanup_free_ char *units = tmpdir_new();
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/coredumpd-crash@.service.wants", units);
        CHECK(mkdir(path, 0755) == 0);
        CHECK_OK(write_text_file(path, "myhook@.service", ""));
        _cleanup_close_ int mute = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        CHECK(snprintf(sa.sun_path, sizeof sa.sun_path, "%s/mute-bus", units) < (int) sizeof sa.sun_path);
        snprintf(path, sizeof path, "%s", sa.sun_path);
        CHECK(mute >= 0 && bind(mute, (struct sockaddr *) &sa, sizeof sa) == 0 && listen(mute, 64) == 0);
        char address[PATH_MAX + 16];
        snprintf(address, sizeof address, "unix:path=%s", path);
        const char *dirs[] = { units, NULL };
        struct hooks *h = hooks_new(&(struct hooks_options) { .unit_dirs = dirs, .bus_address = address });
        CHECK(h);
        const struct tenant loop = { .uid = 1001, .host = true };
        const struct tenant container = { .uid = 0, .userns = 4026532999, .host = false };
        for (int i = 0; i < 3 * HOOKS_QUEUE_MAX; i++) {
                char unit[64];
                snprintf(unit, sizeof unit, "coredumpd-crash@loop%d.service", i);
                hooks_start(HOOK_CRASH, unit, &loop, h);
        }
        unsigned dropped = hooks_n_dropped(h);
        /* The thread took the first (or not yet): the share holds the rest. */
        CHECK_INT(dropped, >=, 3 * HOOKS_QUEUE_MAX - HOOKS_QUEUE_PER_TENANT - 1);
        CHECK_INT(dropped, <=, 3 * HOOKS_QUEUE_MAX - HOOKS_QUEUE_PER_TENANT);
        for (int i = 0; i < HOOKS_QUEUE_PER_TENANT; i++) {
                char unit[64];
                snprintf(unit, sizeof unit, "coredumpd-crash@other%d.service", i);
                hooks_start(HOOK_CRASH, unit, &container, h);
        }
        CHECK_INT(hooks_n_dropped(h), ==, dropped);
        hooks_start(HOOK_CRASH, "coredumpd-crash@other-more.service", &container, h);
        CHECK_INT(hooks_n_dropped(h), ==, dropped + 1);
        hooks_free(h);
        tmpdir_remove(units);
}

static void note_stuck(pid_t pid, const struct tenant *owner, void *userdata) {
        *(pid_t *) userdata = pid;
}

/* A child SIGKILL cannot end leaves the daemon's unit: child_reap_later() tells the stuck handler,
 * and the hooks' thread asks systemd for a scope of its own holding just that pid
 * (StartTransientUnit "coredumpd-stuck-PID.scope", PIDs=PID), whatever hooks are wanted. */
TEST(stuck_child_moved_to_a_scope_of_its_own) {
        pid_t told = 0;
        child_set_stuck_handler(note_stuck, &told);
        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                pause();
                _exit(0);
        }
        const struct tenant owner = { .uid = 1000, .host = true };
        child_reap_later(child, &owner);
        child_set_stuck_handler(NULL, NULL);
        CHECK_INT(told, ==, child);
        kill(child, SIGKILL);
        for (int i = 0; i < 500 && child_abandoned(&owner) > 0; i++)
                usleep(10000);
        CHECK_INT(child_abandoned(&owner), ==, 0);

        struct fake_systemd f;
        fake_systemd_start(&f);
        _cleanup_free_ char *units = tmpdir_new();
        const char *dirs[] = { units, NULL };
        struct hooks *h = hooks_new(&(struct hooks_options) { .unit_dirs = dirs, .bus_address = f.address });
        CHECK(h);
        hooks_scope_stuck_child(4242, &owner, h);
        CHECK(hooks_settle(h, 5000000));
        CHECK_INT(hooks_n_scoped(h), ==, 1);
        pthread_mutex_lock(&f.lock);
        CHECK_INT(f.n_scopes, ==, 1);
        CHECK_STR(f.scopes[0], "coredumpd-stuck-4242.scope");
        CHECK_INT(f.scope_pids[0], ==, 4242);
        CHECK_INT(f.n, ==, 0);
        pthread_mutex_unlock(&f.lock);
        hooks_free(h);
        fake_systemd_stop(&f);
        tmpdir_remove(units);
}

static const struct test_case tests[] = {
        TEST_ENTRY(overload_rejected_and_deadline_enforced),
        TEST_ENTRY(storm_on_a_slow_loop_keeps_the_watchdog_fed),
        TEST_ENTRY(loop_never_waits_for_the_journal),
        TEST_ENTRY(hooks_start_units_only_where_wanted),
        TEST_ENTRY(hooks_without_a_bus_cost_the_caller_nothing),
        TEST_ENTRY(hooks_queue_is_shared_per_tenant),
        TEST_ENTRY(stuck_child_moved_to_a_scope_of_its_own),
        TEST_ENTRY(deadline_spares_a_moving_core),
        TEST_ENTRY(queued_beyond_max_concurrent_then_stored),
        TEST_ENTRY(rejected_crash_needs_no_slot),
        TEST_ENTRY(released_crash_frees_its_slot),
        TEST_ENTRY(queued_for_queue_deadline_rejected_as_overload),
        TEST_ENTRY(reserved_slot_not_for_a_container),
        TEST_ENTRY(queue_quota_for_a_system_user),
        TEST_ENTRY(fair_shares_per_user_and_reserved_for_root),
        TEST_ENTRY(queue_quota_per_user_and_a_runnable_crash_never_rejected),
        TEST_ENTRY(fd_exhaustion_pauses_the_listener),
        TEST_ENTRY(fd_headroom_kept_before_accept),
        TEST_ENTRY(rejected_crash_leaves_epoll_before_close),
        TEST_ENTRY(deadline_caps_a_moving_core),
        TEST_ENTRY(late_and_missing_requests_wait_on_the_loop),
        TEST_ENTRY(concurrent_crashes_all_stored),
        TEST_ENTRY(signature_counts_saved_by_the_loop),
        TEST_ENTRY(fds_counted_not_listed_per_crash),
        TEST_ENTRY(crash_threads_kept_for_the_next),
        TEST_ENTRY(compressing_thread_takes_no_further_crash),
        TEST_ENTRY(idle_exit),
        TEST_ENTRY(malformed_policy_reload_leaves_out_the_rule),
        TEST_ENTRY(reload_reads_the_configuration),
        TEST_ENTRY(stuck_thread_abandoned_frees_its_slot),
        TEST_ENTRY(stuck_tenant_rejected_and_stop_prompt),
        TEST_ENTRY(stop_with_a_stuck_thread_is_prompt),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
