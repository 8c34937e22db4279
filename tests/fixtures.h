/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the host tests stand on: a temporary store, captured log lines and journal records, a real
 * process to be the "crashed" peer (so /proc works), an authenticator that vouches for it as a
 * coredumping task, and a simulated kernel on the other end of a socketpair.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"
#include "config/policy.h"
#include "crash/record.h"
#include "crash/steps.h"
#include "shared/tenant.h"
#include "shared/abi.h"
#include "store/store.h"

/* ---- temporary directories ---- */
char *tmpdir_new(void);
void tmpdir_remove(const char *path);
int write_text_file(const char *dir, const char *name, const char *text);

/* ---- log capture ---- */
struct log_capture {
        pthread_mutex_t lock;
        char **lines;
        size_t n;
};
void log_capture_start(struct log_capture *c);
void log_capture_stop(struct log_capture *c);
bool log_capture_contains(struct log_capture *c, const char *needle);
/* The priority of the first line containing needle (LOG_INFO, ...), -1 if no line does. */
int log_capture_priority(struct log_capture *c, const char *needle);

/* ---- record capture ---- */
struct record_capture {
        pthread_mutex_t lock;
        struct fields *records;
        size_t n;
};
void record_capture_init(struct record_capture *c);
void record_capture_done(struct record_capture *c);
int record_capture_sink(const struct fields *r, void *userdata);
/* Copy of a field of record i (NULL if absent); caller frees. */
char *record_capture_field(struct record_capture *c, size_t i, const char *field);
/* Copy of a binary field of record i (COREDUMP=) and its size; NULL if absent. Caller frees. */
void *record_capture_binary(struct record_capture *c, size_t i, const char *field, size_t *ret_size);
size_t record_capture_count(struct record_capture *c);

/* ---- peer processes ---- */
/* A forked child that sets its comm (if not NULL) and RLIMIT_CORE (core_limit, or unlimited if
 * negative), then waits. */
pid_t sleeper_start(const char *comm, long long core_limit);
/* The same, chrooted into root (needs root): a task with a root of its own. */
pid_t sleeper_start_in_root(const char *comm, const char *root);
/* A sleeper in a container of its own: a mount namespace whose root (pivot_root) is a tmpfs
 * mounted on root, holding /lib/kept.so (a copy of the ELF file elf) mapped; with device_over also
 * /lib/dev.so, mapped and then covered by a bind mount of /dev/null. */
pid_t sleeper_start_in_container(const char *root, const char *elf, bool device_over);
/* /bin/sh -c script, with the given argv[0] (hostile cmdline tests); the script should wait. */
pid_t sleeper_exec(const char *argv0, const char *script);
void sleeper_stop(pid_t pid);
/* A sleeper in a user and a pid namespace of its own, as `unshare -Urpf` makes one: uid and gid 0
 * and pid 1 inside; outside, nobody (65534) when the test runs as root, else the test's own ids. */
struct ns_sleeper {
        pid_t helper;           /* in the new user namespace, the parent of ... */
        pid_t pid;              /* ... pid 1 of the new pid namespace (as we see it) */
        uint32_t uid, gid;      /* outside */
};
void ns_sleeper_start(struct ns_sleeper *s);
/* userns false (needs root): the same task, at the same place, in a pid namespace but in our user
 * namespace (its crash signs as the other's does: a host twin of a container's task). */
void ns_sleeper_start_in(struct ns_sleeper *s, bool userns);
void ns_sleeper_stop(struct ns_sleeper *s);
/* A new pidfd for a sleeper (or this process), without pidfd_open(). */
int test_pidfd_of(pid_t pid);

/* A uid of the host's as a tenant (shared/tenant.h), for the calls that take one. */
#define TENANT_UID(u) (&(struct tenant) { .uid = (uint32_t) (u), .host = true })

struct fake_peer {
        pid_t pid;
        uint32_t uid, gid, euid, egid;
        uint32_t coredump_mask;         /* PIDFD_COREDUMPED | PIDFD_COREDUMP_USER by default */
        uint32_t signal;
        /* If set, the i-th authentication vouches for uids[i] (the last one repeats), else uid; and
         * with the pidfd of pids[i] where that is set, else of pid. */
        uint32_t uids[16];
        pid_t pids[16];
        size_t n_uids;
        atomic_size_t n_authenticated;
};
void fake_peer_init(struct fake_peer *p, pid_t pid);
/* authenticate_fn vouching for the fake_peer in userdata with a real pidfd of its pid. */
int fake_authenticate(int conn_fd, struct peer *ret, void *userdata);

/* ---- a daemon environment without a daemon ---- */
struct test_env {
        char *dir;
        char *store_dir;
        char *policy_dir;
        struct config config;
        struct store *store;
        struct policy *policy;
        struct record_capture records;
        struct record_capture user_records;     /* the copies for the user's journal, once env.user_records */
        struct log_capture logs;
        pid_t sleeper;
        struct fake_peer peer;
        struct host_view host;
        sem_t unwind_slots;
        struct crash_env env;
};

/* policy_text (may be NULL: built-in policy only) is written as policy.d/50-test.conf;
 * config_text (may be NULL) as coredumpd.conf over defaults with Storage= in the temp dir. */
void test_env_init(struct test_env *e, const char *policy_text, const char *config_text);
void test_env_done(struct test_env *e);
/* Number of core.* files in the store, and their total size if not NULL. */
size_t test_env_count_cores(struct test_env *e, char ***ret_names);
/* The count a store's .signatures (crash/repeats.c) holds for the one signature in it (its fourth
 * field); -1 without one. */
long signatures_saved_count(int store_dir_fd);

/* ---- running a connection handler on a socketpair ---- */
struct connection_run {
        pthread_t thread;
        struct connection conn;
        const struct crash_env *env;
        int kernel_fd;          /* our end: we play the kernel */
};
void connection_run_start(struct connection_run *run, const struct crash_env *env);
void connection_run_join(struct connection_run *run);

/* ---- the simulated kernel ---- */
void fk_send_request(int fd, uint32_t size, uint32_t size_ack, uint64_t mask);
/* Reads the ack: returns bytes received before 16 bytes, EOF or timeout. */
int fk_read_ack(int fd, struct coredump_ack *ack, int timeout_ms);
void fk_send_mark(int fd, uint32_t mark);
/* Sends data; returns bytes sent (short if the daemon closed). */
size_t fk_stream(int fd, const void *data, size_t size);
/* Bytes still arriving before EOF, or -ETIMEDOUT. */
long fk_wait_eof(int fd, int timeout_ms);

/* A synthetic ELF core of the given size (≥ 8192): header, a note, a load segment of mixed zero and
 * pseudo-random blocks. claimed_size is what its headers say (normally = size). */
uint8_t *fake_core_new(size_t size, size_t claimed_size);

/* Reads a stored file back, decompressing .zst. */
uint8_t *read_core_file(const char *path, size_t *ret_size);

/* Runs command with sh -c; returns its exit status (-1 if it did not exit) and its stdout in
 * *ret_out (malloc'ed; stderr goes to ours). */
int command_run(const char *command, char **ret_out);
/* command_run() of the formatted command, which it shows on stderr with its output and status;
 * a command that did not exit fails the test. */
int run(char **ret_out, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The dumpctl under test: $DUMPCTL_BINARY (meson sets it). */
const char *dumpctl(void);
/* This test in a network namespace of its own with its loopback up: the servers it starts listen
 * on every address of it (debuginfod has no option for one), and that is only its 127.0.0.1.
 * false (said) if it cannot make one: the test skips. */
bool enter_own_network(void);
