/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The connection handler driven by a simulated kernel on a socketpair: the test sends the request,
 * reads the ack, sends the mark and streams the core, as fs/coredump.c does. The peer identity is a
 * real sleeping child (so /proc context is real) vouched for as coredumping by a fake
 * authenticator; one test uses the real authenticator against a real, non-crashing client.
 */

#include <elf.h>
#include <endian.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <acl/libacl.h>
#include <sched.h>
#include <sys/acl.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <systemd/sd-id128.h>
#include <time.h>
#include <unistd.h>

#include "crash/authenticate.h"
#include "crash/backtrace.h"
#include "crash/container.h"
#include "crash/context.h"
#include "crash/first-seen.h"
#include "crash/notify.h"
#include "crash/repeats.h"
#include "fixtures.h"
#include "parser/client.h"
#include "shared/saved-files.h"
#include "harness.h"
#include "shared/cleanup.h"
#include "shared/crash-id.h"
#include "shared/fileio.h"
#include "shared/log.h"
#include "shared/names.h"
#include "shared/timestamp.h"
#include "shared/unit-name.h"

#define FULL_MASK (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT | COREDUMP_WAIT)
#define TIMEOUT_MS 10000

static const char policy_reject[] = "[Rule]\nName=no\nAction=reject\nWait=no\n";
static const char policy_userspace[] = "[Rule]\nName=us\nAction=userspace\nUserspaceDump=none\n";

/* Request, ack (checked), mark. Returns the ack. */
static struct coredump_ack exchange(int kfd, uint32_t req_size, uint32_t size_ack, uint64_t mask, uint32_t mark) {
        struct coredump_ack ack;

        fk_send_request(kfd, req_size, size_ack, mask);
        CHECK_INT(fk_read_ack(kfd, &ack, TIMEOUT_MS), ==, sizeof ack);
        CHECK_INT(ack.size, ==, sizeof ack);
        CHECK_INT(ack.spare, ==, 0);
        CHECK_INT(ack.mask & ~mask, ==, 0); /* only bits the kernel offered */
        fk_send_mark(kfd, mark);
        return ack;
}

static void check_field(struct test_env *e, size_t i, const char *field, const char *want) {
        _cleanup_free_ char *v = record_capture_field(&e->records, i, field);
        if (!want) {
                if (v)
                        test_fail(__FILE__, __LINE__, "record %zu has %s=%s, expected none", i, field, v);
                return;
        }
        if (!v || strcmp(v, want) != 0)
                test_fail(__FILE__, __LINE__, "record %zu: %s=%s, expected %s", i, field, v ? v : "(none)", want);
}

/* fdatasync() and fallocate() as the daemon's code in this binary calls them: passed on to the
 * kernel, and noted (which file, when), so that a test sees whether a core was put on disk, or its
 * zero blocks punched, while its task waited or after (a definition in the executable comes before
 * libc's). No behaviour is changed. */
struct sync_seen {
        dev_t dev;
        ino_t ino;
        uint64_t usec;
};
static struct sync_seen syncs_seen[64];
static atomic_uint n_syncs_seen;
static atomic_bool syncs_fail; /* a disk that fails: every fdatasync() EIO */

int fdatasync(int fd) {
        struct stat st;
        if (atomic_load(&syncs_fail)) {
                errno = EIO;
                return -1;
        }
        if (fstat(fd, &st) == 0) {
                unsigned i = atomic_fetch_add(&n_syncs_seen, 1);
                if (i < ELEMENTSOF(syncs_seen))
                        syncs_seen[i] = (struct sync_seen) { st.st_dev, st.st_ino, now_usec() };
        }
        return (int) syscall(SYS_fdatasync, fd);
}

static atomic_uint_fast64_t first_punch_usec;

int fallocate(int fd, int mode, off_t offset, off_t len) {
        if (mode & FALLOC_FL_PUNCH_HOLE) {
                uint64_t now = now_usec(), zero = 0;
                atomic_compare_exchange_strong(&first_punch_usec, &zero, now);
        }
        return (int) syscall(SYS_fallocate, fd, mode, offset, len);
}

/* Streams a whole synthetic core with action kernel and checks the stored file equals it, in the
 * form wanted ("zstd" or "plain"). interrupt: the store is interrupted first (a stopping daemon),
 * so a core is not compressed after the task is released. */
static void store_and_compare(const char *config, size_t size, bool expect_holes, const char *form, bool interrupt) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, NULL, config);
        if (interrupt)
                store_interrupt(e.store);
        atomic_store(&n_syncs_seen, 0);
        atomic_store(&first_punch_usec, 0);

        _cleanup_free_ uint8_t *core = fake_core_new(size, size);
        connection_run_start(&run, &e.env);
        struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        CHECK_INT(fk_stream(run.kernel_fd, core, size), ==, size);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0); /* WAIT ends with our close */
        connection_run_join(&run);

        CHECK_INT(record_capture_count(&e.records), ==, 1);
        check_field(&e, 0, "MESSAGE_ID", "fc2e22bc6ee647b6b90729ab34a250b1");
        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMPD_ACTION", "kernel");
        check_field(&e, 0, "COREDUMPD_RULE", "builtin:keep");
        check_field(&e, 0, "COREDUMP_COMM", "crasher");
        check_field(&e, 0, "COREDUMP_SIGNAL_NAME", "SIGSEGV");
        check_field(&e, 0, "COREDUMP_TRUNCATED", NULL);
        check_field(&e, 0, "COREDUMPD_CORE_FORM", form);

        /* Unwound before the ack: a signature, and the stack traces in the message. */
        _cleanup_free_ char *signature = record_capture_field(&e.records, 0, "COREDUMPD_SIGNATURE");
        CHECK(signature && strlen(signature) == 16 && strspn(signature, "0123456789abcdef") == 16);
        _cleanup_free_ char *message = record_capture_field(&e.records, 0, "MESSAGE");
        CHECK(message && strstr(message, "\n\nStack trace of thread ") && strstr(message, "\n#0 "));
        _cleanup_free_ char *backtrace = record_capture_field(&e.records, 0, "COREDUMPD_BACKTRACE");
        CHECK(backtrace && strstr(backtrace, "sleeper_start"));

        _cleanup_free_ char *path = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(path);
        size_t len = strlen(path);
        bool zst = len > 4 && strcmp(path + len - 4, ".zst") == 0;
        CHECK(zst == (strcmp(form, "zstd") == 0));

        /* The core was in the store before the task was released; compression came after. */
        _cleanup_free_ char *available = record_capture_field(&e.records, 0, "COREDUMPD_AVAILABLE_TIMESTAMP");
        _cleanup_free_ char *released = record_capture_field(&e.records, 0, "COREDUMPD_RELEASED_TIMESTAMP");
        CHECK(available && released);
        CHECK(strtoull(available, NULL, 10) <= strtoull(released, NULL, 10));
        /* How long the kernel waited for our answer, and the part of it spent reading /proc. */
        _cleanup_free_ char *ack_usec = record_capture_field(&e.records, 0, "COREDUMPD_ACK_USEC");
        _cleanup_free_ char *context_usec = record_capture_field(&e.records, 0, "COREDUMPD_CONTEXT_USEC");
        CHECK(ack_usec && context_usec);
        CHECK_INT(strtoull(context_usec, NULL, 10), <=, strtoull(ack_usec, NULL, 10));
        CHECK_INT(strtoull(ack_usec, NULL, 10), <, 60 * 1000000ULL);
        size_t got_size;
        _cleanup_free_ uint8_t *got = read_core_file(path, &got_size);
        CHECK_INT(got_size, ==, size);
        CHECK(memcmp(got, core, size) == 0);

        struct stat st;
        CHECK(stat(path, &st) == 0);
        CHECK_INT(st.st_mode & 07777, ==, 0640);
        if (zst) {
                uint64_t linked = (uint64_t) st.st_ctim.tv_sec * 1000000 + (uint64_t) st.st_ctim.tv_nsec / 1000;
                CHECK_INT(linked + 10000, >=, strtoull(released, NULL, 10)); /* ctime: coarse clock */
                _cleanup_free_ char *plain = strndup(path, len - 4);
                CHECK(access(plain, F_OK) < 0 && errno == ENOENT); /* one form in the store */
        }
        if (expect_holes) {
                CHECK_INT((uint64_t) st.st_blocks * 512, <, size); /* zero pages became holes */
                /* ... after the task's release: while it waited, the bytes were only spliced */
                CHECK_INT(atomic_load(&first_punch_usec), >=, strtoull(released, NULL, 10));
        }

        /* The task waited for the core's link, not for the disk: nothing was synced before its release;
         * the core its record names was synced after it (a plain core compressed next never is). */
        unsigned n_syncs = atomic_load(&n_syncs_seen), core_syncs = 0;
        CHECK_INT(n_syncs, <=, ELEMENTSOF(syncs_seen));
        for (unsigned i = 0; i < n_syncs; i++) {
                CHECK_INT(syncs_seen[i].usec, >=, strtoull(released, NULL, 10));
                if (syncs_seen[i].dev == st.st_dev && syncs_seen[i].ino == st.st_ino)
                        core_syncs++;
        }
        CHECK_INT(core_syncs, ==, 1);

        char value[64] = "";
        ssize_t n = getxattr(path, "user.coredump.pid", value, sizeof value - 1);
        CHECK(n > 0);
        CHECK_INT(atoi(value), ==, e.sleeper);
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 1);
        test_env_done(&e);
}

/* A core that cannot be put on disk after its task's release is not kept: the record says why (the
 * sync is the last step before it), and no file is left in the store. */
TEST(core_not_synced_not_kept) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, NULL, "Compress=none\n");
        _cleanup_free_ uint8_t *core = fake_core_new(65536, 65536);
        atomic_store(&syncs_fail, true);
        connection_run_start(&run, &e.env);
        struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        CHECK_INT(fk_stream(run.kernel_fd, core, 65536), ==, 65536);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);
        atomic_store(&syncs_fail, false);
        CHECK_INT(record_capture_count(&e.records), ==, 1);
        check_field(&e, 0, "COREDUMPD_RESULT", "failed");
        check_field(&e, 0, "COREDUMP_FILENAME", NULL);
        _cleanup_free_ char *error = record_capture_field(&e.records, 0, "COREDUMPD_ERROR");
        CHECK(error && strstr(error, "cannot sync the core") && strstr(error, "not kept"));
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

/* One crash whose ack must be expected_mask and after which no core is sent: the "kernel" ends
 * its side and waits for the daemon to close (which ends WAIT). */
static void crash_without_core(struct test_env *e, uint64_t expected_mask) {
        struct connection_run run;

        connection_run_start(&run, &e->env);
        struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask, ==, expected_mask);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);
}

TEST(kernel_zstd_roundtrip) {
        store_and_compare(NULL, (1 << 20) + 123, false, "zstd", false);
}

TEST(kernel_plain_with_holes_roundtrip) {
        store_and_compare("Compress=none\n", (1 << 20) + 4096 * 5 + 17, true, "plain", false);
}

/* A stopping daemon does not start compressing: the plain core (a valid one, with its holes) is
 * what the record names. */
TEST(kernel_zstd_interrupted_keeps_plain) {
        store_and_compare(NULL, (1 << 20) + 4096 * 3 + 5, true, "plain", true);
}

TEST(userspace_action_left_to_userspace) {
        struct test_env e;
        test_env_init(&e, policy_userspace, NULL);

        crash_without_core(&e, COREDUMP_USERSPACE | COREDUMP_WAIT);

        check_field(&e, 0, "COREDUMPD_RESULT", "left-to-userspace");
        check_field(&e, 0, "COREDUMPD_ACTION", "userspace");
        check_field(&e, 0, "COREDUMPD_RULE", "us");
        check_field(&e, 0, "COREDUMP_FILENAME", NULL);
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

TEST(userspace_action_writes_own_core) {
        struct test_env e;
        test_env_init(&e, "[Rule]\nName=own\nAction=userspace\n", NULL);

        crash_without_core(&e, COREDUMP_USERSPACE | COREDUMP_WAIT);

        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMPD_ACTION", "userspace");
        check_field(&e, 0, "COREDUMPD_USERSPACE_MODE", "stacks");
        check_field(&e, 0, "COREDUMPD_USERSPACE_THREADS", "1");
        check_field(&e, 0, "COREDUMPD_PROBE", "no");
        _cleanup_free_ char *path = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(path);
        size_t size;
        _cleanup_free_ uint8_t *core = read_core_file(path, &size);
        CHECK(core && size > 4096);
        CHECK(memcmp(core, "\177ELF", 4) == 0);
        CHECK_INT(core[16], ==, 4); /* e_type ET_CORE */
        struct stat st;
        CHECK(stat(path, &st) == 0);
        CHECK_INT(st.st_mode & 07777, ==, 0640);
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 1);
        test_env_done(&e);
}

TEST(reject_action_writes_nothing) {
        struct test_env e;
        test_env_init(&e, policy_reject, NULL);

        reader_pool_end();
        crash_without_core(&e, COREDUMP_REJECT); /* Wait=no */
        /* Nothing of its memory read: no reader started (parser/client.h). */
        CHECK_INT(reader_pool_count(), ==, 0);

        check_field(&e, 0, "COREDUMPD_RESULT", "rejected");
        check_field(&e, 0, "COREDUMPD_ACTION", "reject");
        check_field(&e, 0, "COREDUMPD_RULE", "no");
        check_field(&e, 0, "COREDUMP_PROC_STATUS", NULL);
        check_field(&e, 0, "COREDUMP_PROC_MAPS", NULL);
        check_field(&e, 0, "COREDUMP_PROC_LIMITS", NULL);
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

/* A rejected crash is not unwound (the task is released as quickly as the kernel allows), unless a
 * rule matches on signatures: then every crash is unwound before the policy decides. */
TEST(reject_skips_unwinding_unless_a_rule_needs_the_signature) {
        struct test_env e;
        test_env_init(&e, policy_reject, NULL);
        crash_without_core(&e, COREDUMP_REJECT);
        char *sig = record_capture_field(&e.records, 0, "COREDUMPD_SIGNATURE");
        CHECK(!sig);
        test_env_done(&e);

        test_env_init(&e, "[Rule]\nName=never\nMatchSignature=0000000000000000\nAction=kernel\n\n"
                          "[Rule]\nName=no\nAction=reject\nWait=no\n", NULL);
        crash_without_core(&e, COREDUMP_REJECT);
        sig = record_capture_field(&e.records, 0, "COREDUMPD_SIGNATURE");
        CHECK(sig && strlen(sig) == 16);
        free(sig);
        check_field(&e, 0, "COREDUMPD_RULE", "no");
        test_env_done(&e);
}

TEST(rlimit_core_zero_rejected_by_default) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, NULL, NULL);
        pid_t limited = sleeper_start("nocore", 0);
        e.peer.pid = limited;

        connection_run_start(&run, &e.env);
        struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask & (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT), ==, COREDUMP_REJECT);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);

        check_field(&e, 0, "COREDUMPD_RULE", "builtin:rlimit-zero");
        check_field(&e, 0, "COREDUMP_RLIMIT", "0");
        check_field(&e, 0, "COREDUMP_COMM", "nocore");
        sleeper_stop(limited);
        test_env_done(&e);
}

static void check_mark(uint32_t mark, const char *name) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, NULL, NULL);

        connection_run_start(&run, &e.env);
        (void) exchange(run.kernel_fd, 16, 16, FULL_MASK, mark);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);

        check_field(&e, 0, "COREDUMPD_RESULT", "failed");
        check_field(&e, 0, "COREDUMPD_MARK", name);
        _cleanup_free_ char *needle = NULL;
        CHECK(asprintf(&needle, "with mark %s", mark_to_name(mark) ? name : "unknown") > 0);
        CHECK(log_capture_contains(&e.logs, needle));
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

TEST(mark_minsize_logged_and_recorded) { check_mark(COREDUMP_MARK_MINSIZE, "MINSIZE"); }
TEST(mark_maxsize_logged_and_recorded) { check_mark(COREDUMP_MARK_MAXSIZE, "MAXSIZE"); }
TEST(mark_unsupported_logged_and_recorded) { check_mark(COREDUMP_MARK_UNSUPPORTED, "UNSUPPORTED"); }
TEST(mark_conflicting_logged_and_recorded) { check_mark(COREDUMP_MARK_CONFLICTING, "CONFLICTING"); }
TEST(mark_unknown_logged_and_recorded) { check_mark(77, "77"); }

/* A request of the given size, then reject: the ack is 16 bytes, the mark is read correctly. */
static void check_request_size(uint32_t size, uint32_t size_ack) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, policy_reject, NULL);

        connection_run_start(&run, &e.env);
        struct coredump_ack ack = exchange(run.kernel_fd, size, size_ack, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0); /* not a byte more than the ack */
        connection_run_join(&run);

        check_field(&e, 0, "COREDUMPD_RESULT", "rejected"); /* the extra bytes were not taken as the mark */
        test_env_done(&e);
}

TEST(request_size_16) { check_request_size(16, 16); }
TEST(request_size_24_extra_discarded) { check_request_size(24, 16); }
TEST(request_size_4096_extra_discarded) { check_request_size(4096, 16); }
TEST(request_larger_ack_size_still_16) { check_request_size(16, 64); }

/* A request we refuse: no ack at all, the connection closed, the failure recorded. */
static void check_refused_request(uint32_t size, uint32_t size_ack, uint64_t mask, const char *error_part) {
        struct test_env e;
        struct connection_run run;
        struct coredump_ack ack;
        test_env_init(&e, NULL, NULL);

        connection_run_start(&run, &e.env);
        fk_send_request(run.kernel_fd, size, size_ack, mask);
        CHECK_INT(fk_read_ack(run.kernel_fd, &ack, TIMEOUT_MS), ==, 0); /* EOF, no ack */
        connection_run_join(&run);

        check_field(&e, 0, "COREDUMPD_RESULT", "failed");
        _cleanup_free_ char *error = record_capture_field(&e.records, 0, "COREDUMPD_ERROR");
        CHECK(error && strstr(error, error_part));
        test_env_done(&e);
}

TEST(request_size_8_lacks_mask_refused) { check_refused_request(8, 16, 0, "malformed request"); }
TEST(request_size_huge_refused) { check_refused_request(1 << 20, 16, FULL_MASK, "malformed request"); }
TEST(request_tiny_ack_size_refused) { check_refused_request(16, 8, FULL_MASK, "ack of fewer than"); }
TEST(request_lacking_needed_bits_refused) {
        check_refused_request(16, 16, COREDUMP_KERNEL | COREDUMP_WAIT, "lacking 0x6");
}

TEST(request_unknown_bits_never_echoed) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, policy_userspace, NULL);

        uint64_t offered = FULL_MASK | (UINT64_C(1) << 40) | (UINT64_C(1) << 5);
        connection_run_start(&run, &e.env);
        struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, offered, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask, ==, COREDUMP_USERSPACE | COREDUMP_WAIT);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);
        check_field(&e, 0, "COREDUMPD_REQUEST_MASK", "0x1000000002f");
        test_env_done(&e);
}

TEST(request_without_wait_gets_no_wait) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, policy_userspace, NULL);

        connection_run_start(&run, &e.env);
        struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK & ~COREDUMP_WAIT, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask, ==, COREDUMP_USERSPACE);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);
        test_env_done(&e);
}

TEST(peer_vanishing_mid_stream_leaves_no_file) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, NULL, NULL);

        size_t claimed = 4 << 20, sent = 300 * 1024;
        _cleanup_free_ uint8_t *core = fake_core_new(sent, claimed);
        connection_run_start(&run, &e.env);
        (void) exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_stream(run.kernel_fd, core, sent), ==, sent);
        run.kernel_fd = safe_close(run.kernel_fd); /* the peer is gone */
        connection_run_join(&run);

        check_field(&e, 0, "COREDUMPD_RESULT", "failed");
        check_field(&e, 0, "COREDUMP_FILENAME", NULL);
        _cleanup_free_ char *error = record_capture_field(&e.records, 0, "COREDUMPD_ERROR");
        CHECK(error && strstr(error, "vanished"));
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

TEST(size_cap_truncates_and_says_so) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, "[Rule]\nName=small\nAction=kernel\nMaxSize=64K\n", NULL);

        size_t size = 1 << 20;
        _cleanup_free_ uint8_t *core = fake_core_new(size, size);
        connection_run_start(&run, &e.env);
        (void) exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        size_t sent = fk_stream(run.kernel_fd, core, size); /* stops when the daemon hangs up */
        CHECK_INT(sent, >, 64 * 1024);
        (void) shutdown(run.kernel_fd, SHUT_WR);
        CHECK(fk_wait_eof(run.kernel_fd, TIMEOUT_MS) >= 0);
        connection_run_join(&run);

        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMP_TRUNCATED", "1");
        check_field(&e, 0, "COREDUMPD_CORE_SIZE", "65536");
        CHECK(log_capture_contains(&e.logs, "truncated"));
        _cleanup_free_ char *path = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        size_t got_size;
        _cleanup_free_ uint8_t *got = read_core_file(path, &got_size);
        CHECK_INT(got_size, ==, 64 * 1024);
        CHECK(memcmp(got, core, got_size) == 0);
        char value[8] = "";
        CHECK(getxattr(path, "user.coredump.truncated", value, sizeof value) == 1 && value[0] == '1');
        test_env_done(&e);
}

static void store_one(struct test_env *e, size_t size) {
        struct connection_run run;
        _cleanup_free_ uint8_t *core = fake_core_new(size, size);

        connection_run_start(&run, &e->env);
        (void) exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_stream(run.kernel_fd, core, size), ==, size);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);
}

/* Every unwinder slot taken (as by as many crashes as CPUs being unwound): a crash waits
 * UnwindTimeout= for one, then goes on without a backtrace and is stored all the same; with a slot
 * free again, the next crash is unwound. */
TEST(unwinders_busy_crash_goes_on_without_backtrace) {
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\nUnwindTimeout=300ms\n");
        unsigned held = 0;
        while (sem_trywait(&e.unwind_slots) == 0)
                held++;
        CHECK_INT(held, >=, 1);

        uint64_t t0 = now_monotonic_usec();
        store_one(&e, 16384);
        uint64_t waited = now_monotonic_usec() - t0;
        CHECK_INT(record_capture_count(&e.records), ==, 1);
        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMPD_SIGNATURE", NULL);
        check_field(&e, 0, "COREDUMPD_BACKTRACE", NULL);
        CHECK(log_capture_contains(&e.logs, "Every unwinder was busy"));
        CHECK_INT(waited, >=, 300000);
        _cleanup_free_ char *ack_usec = record_capture_field(&e.records, 0, "COREDUMPD_ACK_USEC");
        CHECK(ack_usec && strtoull(ack_usec, NULL, 10) >= 300000);

        (void) sem_post(&e.unwind_slots);
        store_one(&e, 16384);
        CHECK_INT(record_capture_count(&e.records), ==, 2);
        _cleanup_free_ char *signature = record_capture_field(&e.records, 1, "COREDUMPD_SIGNATURE");
        CHECK(signature && strlen(signature) == 16);
        while (held-- > 1)
                (void) sem_post(&e.unwind_slots);
        test_env_done(&e);
}

/* Compression waits for the released task's exit, not to take the CPU from its teardown: at most
 * exit_wait_usec while it lives on (here the sleeper, which is no crashing task), not at all once
 * it has ended, nor when the daemon is stopping. */
TEST(compression_waits_for_the_task_exit) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        /* Long enough that a crash which did not wait cannot take it on a loaded machine (a VM run
         * beside the tests): what is told apart is waiting for it or not. */
        e.env.exit_wait_usec = 3000000;
        const size_t size = 16384;

        uint64_t t0 = now_monotonic_usec();
        store_one(&e, size);
        CHECK_INT(now_monotonic_usec() - t0, >=, 3000000);
        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMPD_CORE_FORM", "zstd");

        struct connection_run run;
        _cleanup_free_ uint8_t *core = fake_core_new(size, size);
        t0 = now_monotonic_usec();
        connection_run_start(&run, &e.env);
        (void) exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK(kill(e.sleeper, SIGKILL) == 0);  /* ends now: a zombie, its pidfd readable */
        CHECK_INT(fk_stream(run.kernel_fd, core, size), ==, size);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);
        CHECK_INT(now_monotonic_usec() - t0, <, 3000000);
        CHECK_INT(record_capture_count(&e.records), ==, 2);
        check_field(&e, 1, "COREDUMPD_RESULT", "stored");
        check_field(&e, 1, "COREDUMPD_CORE_FORM", "zstd");

        /* A stopping daemon waits for nobody (and compresses nothing): a fresh task that lives on. */
        sleeper_stop(e.sleeper);
        e.sleeper = sleeper_start("crasher", -1);
        fake_peer_init(&e.peer, e.sleeper);
        store_interrupt(e.store);
        t0 = now_monotonic_usec();
        store_one(&e, size);
        CHECK_INT(now_monotonic_usec() - t0, <, 3000000);
        check_field(&e, 2, "COREDUMPD_RESULT", "stored");
        check_field(&e, 2, "COREDUMPD_CORE_FORM", "plain");
        test_env_done(&e);
}

static uint64_t store_usage(struct test_env *e) {
        char **names;
        size_t n = test_env_count_cores(e, &names);
        uint64_t total = 0;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *p = NULL;
                struct stat st;
                CHECK(asprintf(&p, "%s/%s", e->store_dir, names[i]) > 0);
                CHECK(stat(p, &st) == 0);
                total += (uint64_t) st.st_blocks * 512;
                free(names[i]);
        }
        free(names);
        return total;
}

TEST(vacuum_keeps_max_use) {
        struct test_env e;
        /* Incompressible, hole-free 96K cores: four fit in 400K, never five. */
        test_env_init(&e, NULL, "Compress=none\nMaxUse=400K\n");

        _cleanup_free_ char *first = NULL;
        for (int i = 0; i < 8; i++) {
                store_one(&e, 96 * 1024);
                if (i == 0)
                        first = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
                CHECK_INT(store_usage(&e), <=, 400 * 1024);
                usleep(10000); /* distinct mtimes */
        }
        _cleanup_free_ char *last = record_capture_field(&e.records, 7, "COREDUMP_FILENAME");
        CHECK(access(last, F_OK) == 0);   /* the newest is kept */
        CHECK(access(first, F_OK) < 0);   /* the oldest went */
        CHECK_INT(test_env_count_cores(&e, NULL), >=, 2);
        CHECK(log_capture_contains(&e.logs, "Removed old dump"));
        test_env_done(&e);
}

/* A core file of uid, of size bytes of data, made directly in the store, mtime age seconds ago. */
static void plant_core(struct test_env *e, uint32_t uid, int n, size_t size, int age) {
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ uint8_t *data = fake_core_new(size, size);
        CHECK(asprintf(&path, "%s/core.planted.%u.0123456789abcdef0123456789abcdef.%d.%d", e->store_dir, uid,
                       1000 + n, n) > 0);
        memset(data, 0xa5, size);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
        CHECK(fd >= 0);
        CHECK(write(fd, data, size) == (ssize_t) size);
        struct timespec times[2] = { { .tv_sec = time(NULL) - age }, { .tv_sec = time(NULL) - age } };
        CHECK(futimens(fd, times) == 0);
}

static bool planted_exists(struct test_env *e, uint32_t uid, int n) {
        _cleanup_free_ char *path = NULL;
        CHECK(asprintf(&path, "%s/core.planted.%u.0123456789abcdef0123456789abcdef.%d.%d", e->store_dir, uid,
                       1000 + n, n) > 0);
        return access(path, F_OK) == 0;
}

/* One user's flood does not flush another's cores out: over MaxUse= the user whose cores take the
 * most loses its oldest first, even when another user's core is older. MaxUsePerUser= caps one
 * user on its own. */
TEST(vacuum_fair_between_users) {
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\nMaxUse=400K\n");
        plant_core(&e, 0, 0, 64 * 1024, 100);                   /* root's, the oldest */
        for (int i = 1; i <= 6; i++)
                plant_core(&e, 1000, i, 64 * 1024, 100 - i);    /* a user's flood */
        CHECK_INT(store_vacuum(e.store, NULL, "test"), >, 0);
        CHECK(planted_exists(&e, 0, 0));                        /* root's survives */
        CHECK(!planted_exists(&e, 1000, 1));                    /* the flood's oldest went */
        CHECK(planted_exists(&e, 1000, 6));
        CHECK_INT(store_usage(&e), <=, 400 * 1024);
        test_env_done(&e);

        test_env_init(&e, NULL, "Compress=none\nMaxUsePerUser=200K\n");
        plant_core(&e, 0, 0, 64 * 1024, 100);
        for (int i = 1; i <= 4; i++)
                plant_core(&e, 1000, i, 64 * 1024, 100 - i);
        CHECK_INT(store_vacuum(e.store, NULL, "test"), ==, 1);  /* 4 x 64K > 200K ≥ 3 x 64K */
        CHECK(planted_exists(&e, 0, 0));
        CHECK(!planted_exists(&e, 1000, 1));
        CHECK(planted_exists(&e, 1000, 2) && planted_exists(&e, 1000, 4));
        test_env_done(&e);
}

/* Marks planted core n of uid with a signature, as the store marks a stored one. */
static void plant_signature(struct test_env *e, uint32_t uid, int n, const char *signature) {
        _cleanup_free_ char *path = NULL;
        CHECK(asprintf(&path, "%s/core.planted.%u.0123456789abcdef0123456789abcdef.%d.%d", e->store_dir, uid,
                       1000 + n, n) > 0);
        CHECK(setxattr(path, "user.coredumpd.signature", signature, strlen(signature), 0) == 0);
}

/* KeepPerSignature=2: of each signature and tenant the newest two cores stay, whatever the room;
 * another user's cores of the same signature, other signatures and cores without one are not
 * counted against them. */
TEST(vacuum_keeps_per_signature) {
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\nKeepPerSignature=2\n");
        for (int i = 1; i <= 4; i++) {
                plant_core(&e, 1000, i, 8192, 100 - i);
                plant_signature(&e, 1000, i, "00000000000000aa");
        }
        for (int i = 5; i <= 6; i++) {
                plant_core(&e, 1001, i, 8192, 100 - i);
                plant_signature(&e, 1001, i, "00000000000000aa");
        }
        plant_core(&e, 1000, 7, 8192, 200);
        plant_signature(&e, 1000, 7, "00000000000000bb");
        for (int i = 8; i <= 10; i++)
                plant_core(&e, 1000, i, 8192, 300);             /* no signature */
        CHECK_INT(store_vacuum(e.store, NULL, "test"), ==, 2);
        CHECK(!planted_exists(&e, 1000, 1) && !planted_exists(&e, 1000, 2));
        CHECK(planted_exists(&e, 1000, 3) && planted_exists(&e, 1000, 4));
        CHECK(planted_exists(&e, 1001, 5) && planted_exists(&e, 1001, 6));
        CHECK(planted_exists(&e, 1000, 7));
        for (int i = 8; i <= 10; i++)
                CHECK(planted_exists(&e, 1000, i));
        CHECK(log_capture_contains(&e.logs, "to honour KeepPerSignature="));
        test_env_done(&e);

        /* Through the crash path: each stored core of one site leaves only the newest
         * (KeepPerSignature=1), the one just stored. */
        test_env_init(&e, NULL, "Compress=none\nKeepPerSignature=1\n");
        for (int i = 0; i < 3; i++) {
                store_one(&e, 16384);
                usleep(10000);
        }
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 1);
        _cleanup_free_ char *last = record_capture_field(&e.records, 2, "COREDUMP_FILENAME");
        CHECK(last && access(last, F_OK) == 0);
        test_env_done(&e);
}

static void plant_attachment(struct test_env *e, uint32_t uid, int n, int k, size_t size);
static bool attachment_exists(struct test_env *e, uint32_t uid, int n, int k);

/* The path of a planted core. */
static char *planted_path(struct test_env *e, uint32_t uid, int n) {
        char *path = NULL;
        CHECK(asprintf(&path, "%s/core.planted.%u.0123456789abcdef0123456789abcdef.%d.%d", e->store_dir, uid,
                       1000 + n, n) > 0);
        return path;
}

#define DAY (24 * 3600)

/* store_remove_core() for a user: the crash's uid (user.coredump.uid, else, where the file system
 * keeps no user.* attributes, the uid in the core's name) must be theirs and the core theirs to read
 * (here: their own file); never a symlink, never a name that is not a core's; root any. */
TEST(remove_core_checks_whose_it_is) {
        struct test_env e;
        char why[256];
        unsigned n;
        test_env_init(&e, NULL, NULL);
        plant_core(&e, 1000, 1, 8192, 10);                      /* no attributes: the name says 1000 */
        plant_core(&e, 1001, 2, 8192, 10);                      /* 1001's by its name, 1000's file */
        plant_core(&e, 1000, 3, 8192, 10);                      /* 1000's by name, root's file: not readable */
        plant_core(&e, 1000, 4, 8192, 10);
        char p1[PATH_MAX], p2[PATH_MAX], p3[PATH_MAX], p4[PATH_MAX];
#define PLANTED "%s/core.planted.%u.0123456789abcdef0123456789abcdef.%d.%d"
        snprintf(p1, sizeof p1, PLANTED, e.store_dir, 1000, 1001, 1);
        snprintf(p2, sizeof p2, PLANTED, e.store_dir, 1001, 1002, 2);
        snprintf(p3, sizeof p3, PLANTED, e.store_dir, 1000, 1003, 3);
        snprintf(p4, sizeof p4, PLANTED, e.store_dir, 1000, 1004, 4);
        CHECK(chown(p1, 1000, 1000) == 0 && chown(p2, 1000, 1000) == 0 && chown(p4, 1000, 1000) == 0);
        CHECK(setxattr(p4, "user.coredump.uid", "1001", 4, 0) == 0 || errno == ENOTSUP);
        int dir_fd = e.store->dir_fd;
        CHECK_INT(store_remove_core(dir_fd, strrchr(p2, '/') + 1, 1000, &n, why, sizeof why), ==, -EPERM);
        CHECK(strstr(why, "another user's"));
        CHECK_INT(store_remove_core(dir_fd, strrchr(p3, '/') + 1, 1000, &n, why, sizeof why), ==, -EPERM);
        CHECK(strstr(why, "not yours to read"));
        if (access(p4, F_OK) == 0 && getxattr(p4, "user.coredump.uid", why, sizeof why) == 4)
                CHECK_INT(store_remove_core(dir_fd, strrchr(p4, '/') + 1, 1000, &n, why, sizeof why), ==, -EPERM);
        CHECK_INT(store_remove_core(dir_fd, "../x", 1000, &n, why, sizeof why), ==, -EINVAL);
        CHECK_INT(store_remove_core(dir_fd, "core.x.1000.y.file-0", 1000, &n, why, sizeof why), ==, -EINVAL);
        CHECK(symlinkat(strrchr(p1, '/') + 1, dir_fd, "core.link.1000.0123456789abcdef0123456789abcdef.1.1") == 0);
        CHECK_INT(store_remove_core(dir_fd, "core.link.1000.0123456789abcdef0123456789abcdef.1.1", 1000, &n, why, sizeof why), ==,
                  -ELOOP);
        CHECK(access(p1, F_OK) == 0 && access(p2, F_OK) == 0 && access(p3, F_OK) == 0);
        CHECK_OK(store_remove_core(dir_fd, strrchr(p1, '/') + 1, 1000, &n, why, sizeof why));
        CHECK_INT(n, ==, 1);
        CHECK(access(p1, F_OK) < 0);
        CHECK_OK(store_remove_core(dir_fd, strrchr(p3, '/') + 1, 0, &n, why, sizeof why)); /* root: any */
        CHECK(access(p3, F_OK) < 0);
        test_env_done(&e);
}

/* MaxAge=: cores older than it go whatever the room, with the files kept beside them; a rule's own
 * MaxAge= (the core's user.coredumpd.max_age) keeps its cores longer or shorter; the core being
 * kept is never removed. The clock is the files' mtime (set by futimens), nobody waits for days. */
TEST(vacuum_max_age) {
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\nMaxAge=1d\n");
        plant_core(&e, 1000, 0, 8192, 2 * DAY);                 /* older than 1d: goes */
        plant_attachment(&e, 1000, 0, 0, 4096);                 /* ... and what was kept with it */
        plant_core(&e, 1000, 1, 8192, DAY / 2);                 /* younger: stays */
        plant_core(&e, 1000, 2, 8192, 2 * DAY);                 /* its rule said 1w: stays */
        plant_core(&e, 1000, 3, 8192, 2 * 3600);                /* its rule said 1h: goes */
        plant_core(&e, 0, 4, 8192, 400 * DAY);                  /* its rule said infinity: stays */
        plant_core(&e, 0, 5, 8192, 5 * DAY);                    /* the one being kept: stays */
        _cleanup_free_ char *p2 = planted_path(&e, 1000, 2), *p3 = planted_path(&e, 1000, 3);
        _cleanup_free_ char *p4 = planted_path(&e, 0, 4), *p5 = planted_path(&e, 0, 5);
        CHECK(setxattr(p2, "user.coredumpd.max_age", "1w", 2, 0) == 0);
        CHECK(setxattr(p3, "user.coredumpd.max_age", "1h", 2, 0) == 0);
        CHECK(setxattr(p4, "user.coredumpd.max_age", "infinity", 8, 0) == 0);
        const char *keep = "core.planted.0.0123456789abcdef0123456789abcdef.1005.5"; /* p5's name */
        CHECK(access(p5, F_OK) == 0);
        CHECK_INT(store_vacuum(e.store, keep, "test"), ==, 3);
        CHECK(!planted_exists(&e, 1000, 0) && !attachment_exists(&e, 1000, 0, 0));
        CHECK(planted_exists(&e, 1000, 1));
        CHECK(planted_exists(&e, 1000, 2));
        CHECK(!planted_exists(&e, 1000, 3));
        CHECK(planted_exists(&e, 0, 4) && planted_exists(&e, 0, 5));
        CHECK(log_capture_contains(&e.logs, "to honour MaxAge="));
        /* Once it is not the one being kept, its age counts like any other's. */
        CHECK_INT(store_vacuum(e.store, NULL, "test"), ==, 1);
        CHECK(!planted_exists(&e, 0, 5));
        test_env_done(&e);

        /* The default: systemd-coredump's 3 days. */
        test_env_init(&e, NULL, "Compress=none\n");
        plant_core(&e, 1000, 0, 8192, 3 * DAY + 60);
        plant_core(&e, 1000, 1, 8192, 3 * DAY - 60);
        CHECK_INT(store_vacuum(e.store, NULL, "test"), ==, 1);
        CHECK(!planted_exists(&e, 1000, 0) && planted_exists(&e, 1000, 1));
        test_env_done(&e);

        /* MaxAge=infinity (or 0): no age limit at all. */
        test_env_init(&e, NULL, "Compress=none\nMaxAge=infinity\n");
        plant_core(&e, 1000, 0, 8192, 1000 * DAY);
        CHECK_INT(store_vacuum(e.store, NULL, "test"), ==, 0);
        CHECK(planted_exists(&e, 1000, 0));
        test_env_done(&e);
}

/* The store is listed only when a limit may break: after a pass, a new core that keeps the store
 * within MaxUse=, KeepFree= and its user's share, with nothing past its MaxAge= yet, is counted on
 * the last pass's tally (a crash loop does not list, stat and read every core it left, per crash);
 * one that takes the store over, the first expiry, or another MaxAge= makes a pass, which removes
 * what it must as before. */
TEST(vacuum_lists_the_store_only_when_needed) {
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\nMaxAge=1d\nMaxUse=64K\nKeepFree=0\n");
        plant_core(&e, 1000, 0, 8192, DAY - 2);                 /* past MaxAge= in 2 s */
        plant_core(&e, 1000, 1, 8192, 60);
        const char *k1 = "core.planted.1000.0123456789abcdef0123456789abcdef.1001.1";
        CHECK_INT(store_vacuum(e.store, k1, "test"), ==, 0);
        CHECK_INT(e.store->vacuum_passes, ==, 1);
        /* Within every limit: no pass. */
        plant_core(&e, 1000, 2, 8192, 0);
        CHECK_INT(store_vacuum(e.store, "core.planted.1000.0123456789abcdef0123456789abcdef.1002.2", "test"), ==, 0);
        CHECK_INT(e.store->vacuum_passes, ==, 1);
        /* A new user: a pass (the tally has no share of theirs). */
        plant_core(&e, 1001, 3, 8192, 0);
        CHECK_INT(store_vacuum(e.store, "core.planted.1001.0123456789abcdef0123456789abcdef.1003.3", "test"), ==, 0);
        CHECK_INT(e.store->vacuum_passes, ==, 2);
        /* Over MaxUse=: a pass, user 1000's oldest goes. */
        plant_core(&e, 1000, 4, 40960, 0);
        CHECK_INT(store_vacuum(e.store, "core.planted.1000.0123456789abcdef0123456789abcdef.1004.4", "test"), ==, 1);
        CHECK_INT(e.store->vacuum_passes, ==, 3);
        CHECK(!planted_exists(&e, 1000, 0) && planted_exists(&e, 1000, 1) && planted_exists(&e, 1000, 4));
        test_env_done(&e);

        /* The first expiry: core 0 is past MaxAge= in 2 s. Before, a new core makes no pass; after,
         * the next one's does, and core 0 goes. Another MaxAge= (a reload) makes a pass at once. */
        test_env_init(&e, NULL, "Compress=none\nMaxAge=1d\nKeepFree=0\n");
        plant_core(&e, 1000, 0, 8192, DAY - 2);
        plant_core(&e, 1000, 1, 8192, 0);
        CHECK_INT(store_vacuum(e.store, "core.planted.1000.0123456789abcdef0123456789abcdef.1001.1", "test"), ==, 0);
        plant_core(&e, 1000, 2, 8192, 0);
        CHECK_INT(store_vacuum(e.store, "core.planted.1000.0123456789abcdef0123456789abcdef.1002.2", "test"), ==, 0);
        CHECK_INT(e.store->vacuum_passes, ==, 1);
        sleep(3);
        plant_core(&e, 1000, 3, 8192, 0);
        CHECK_INT(store_vacuum(e.store, "core.planted.1000.0123456789abcdef0123456789abcdef.1003.3", "test"), ==, 1);
        CHECK_INT(e.store->vacuum_passes, ==, 2);
        CHECK(!planted_exists(&e, 1000, 0) && planted_exists(&e, 1000, 1));
        e.config.max_age_usec = 3600ULL * 1000000;
        store_set_limits(e.store, &e.config);
        plant_core(&e, 1000, 4, 8192, 0);
        CHECK_INT(store_vacuum(e.store, "core.planted.1000.0123456789abcdef0123456789abcdef.1004.4", "test"), ==, 0);
        CHECK_INT(e.store->vacuum_passes, ==, 3);
        test_env_done(&e);
}

/* A rule's MaxAge= goes with its crash: in the record and on the stored core, where the vacuum
 * finds it; a rule without one leaves both alone (the configuration's MaxAge= applies then). */
TEST(rule_max_age_kept_on_the_core) {
        struct test_env e;
        test_env_init(&e, "[Rule]\nName=keep-long\nMaxAge=30d\nAction=kernel\n", "Compress=none\n");
        store_one(&e, 64 * 1024);
        CHECK_INT(record_capture_count(&e.records), ==, 1);
        check_field(&e, 0, "COREDUMPD_RULE", "keep-long");
        check_field(&e, 0, "COREDUMPD_MAX_AGE", "30d");
        _cleanup_free_ char *path = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(path);
        char value[32] = "";
        CHECK_INT(getxattr(path, "user.coredumpd.max_age", value, sizeof value - 1), ==, 3);
        CHECK_STR(value, "30d");
        /* 10 days old: the configuration's 3 days would take it, its rule's 30 do not. */
        struct timespec old[2] = { { .tv_sec = time(NULL) - 10 * DAY }, { .tv_sec = time(NULL) - 10 * DAY } };
        CHECK(utimensat(AT_FDCWD, path, old, 0) == 0);
        CHECK_INT(store_vacuum(e.store, NULL, "test"), ==, 0);
        CHECK(access(path, F_OK) == 0);
        test_env_done(&e);

        test_env_init(&e, NULL, "Compress=none\n");
        store_one(&e, 64 * 1024);
        check_field(&e, 0, "COREDUMPD_MAX_AGE", NULL);
        _cleanup_free_ char *plain = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(plain && getxattr(plain, "user.coredumpd.max_age", value, sizeof value - 1) < 0);
        CHECK(utimensat(AT_FDCWD, plain, old, 0) == 0);
        CHECK_INT(store_vacuum(e.store, NULL, "test"), ==, 1);
        CHECK(access(plain, F_OK) < 0);
        test_env_done(&e);
}

/* A file kept with a core (<core>.file-N) counts to it and goes with it; it is never a victim of
 * its own while its core is there. */
static void plant_attachment(struct test_env *e, uint32_t uid, int n, int k, size_t size) {
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ uint8_t *data = calloc(1, size);
        CHECK(data);
        memset(data, 0x5a, size);
        CHECK(asprintf(&path, "%s/core.planted.%u.0123456789abcdef0123456789abcdef.%d.%d.file-%d", e->store_dir, uid,
                       1000 + n, n, k) > 0);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
        CHECK(fd >= 0);
        CHECK(write(fd, data, size) == (ssize_t) size);
}

static bool attachment_exists(struct test_env *e, uint32_t uid, int n, int k) {
        _cleanup_free_ char *path = NULL;
        CHECK(asprintf(&path, "%s/core.planted.%u.0123456789abcdef0123456789abcdef.%d.%d.file-%d", e->store_dir, uid,
                       1000 + n, n, k) > 0);
        return access(path, F_OK) == 0;
}

TEST(vacuum_removes_kept_files_with_their_core) {
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\nMaxUse=400K\n");
        /* Three 64K cores, the oldest with two 112K files, the newest with 8K: 424K, over 400K. */
        for (int i = 0; i < 3; i++)
                plant_core(&e, 1000, i, 64 * 1024, 100 - i);
        plant_attachment(&e, 1000, 0, 0, 112 * 1024);
        plant_attachment(&e, 1000, 0, 1, 112 * 1024);
        plant_attachment(&e, 1000, 2, 0, 8 * 1024);    /* the newest's, recent: never alone */
        CHECK_INT(store_usage(&e), >, 400 * 1024);
        int removed = store_vacuum(e.store, NULL, "test");
        CHECK_INT(removed, ==, 3);                      /* the oldest core and its two files */
        CHECK(!planted_exists(&e, 1000, 0));
        CHECK(!attachment_exists(&e, 1000, 0, 0) && !attachment_exists(&e, 1000, 0, 1));
        CHECK(planted_exists(&e, 1000, 1) && planted_exists(&e, 1000, 2));
        CHECK(attachment_exists(&e, 1000, 2, 0));
        CHECK_INT(store_usage(&e), <=, 400 * 1024);

        /* An orphan (its core gone) goes like any old file, here the oldest of all. */
        plant_attachment(&e, 1000, 7, 0, 300 * 1024);  /* no core 7 */
        _cleanup_free_ char *orphan = NULL;
        CHECK(asprintf(&orphan, "%s/core.planted.1000.0123456789abcdef0123456789abcdef.1007.7.file-0", e.store_dir) > 0);
        struct timespec old[2] = { { .tv_sec = time(NULL) - 500 }, { .tv_sec = time(NULL) - 500 } };
        CHECK(utimensat(AT_FDCWD, orphan, old, 0) == 0);
        CHECK_INT(store_vacuum(e.store, NULL, "test"), >=, 1);
        CHECK(!attachment_exists(&e, 1000, 7, 0));
        CHECK(planted_exists(&e, 1000, 1) && planted_exists(&e, 1000, 2) && attachment_exists(&e, 1000, 2, 0));
        test_env_done(&e);
}


/* Whether path's ACL has user:<uid>:r-- (read, not write). */
static bool has_user_read_acl(const char *path, uid_t uid) {
        acl_t acl = acl_get_file(path, ACL_TYPE_ACCESS);
        CHECK(acl);
        bool found = false;
        acl_entry_t entry;
        for (int w = ACL_FIRST_ENTRY; acl_get_entry(acl, w, &entry) == 1; w = ACL_NEXT_ENTRY) {
                acl_tag_t tag;
                CHECK(acl_get_tag_type(entry, &tag) == 0);
                if (tag != ACL_USER)
                        continue;
                uid_t *q = acl_get_qualifier(entry);
                acl_permset_t ps;
                CHECK(acl_get_permset(entry, &ps) == 0);
                if (*q == uid && acl_get_perm(ps, ACL_READ) == 1 && acl_get_perm(ps, ACL_WRITE) == 0)
                        found = true;
                acl_free(q);
        }
        acl_free(acl);
        return found;
}

/* A file kept beside a core: copied whole from its start (whatever the source's offset), 0640
 * with the reader's ACL, bounded by what is left, never over an existing name, and nothing is left
 * behind when it is refused. */
TEST(saved_file_copied_bounded_never_replacing) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ char *src_path = NULL, *copy = NULL;
        CHECK(asprintf(&src_path, "%s/source", e.dir) > 0);
        CHECK(asprintf(&copy, "%s/core.x.1000.0123456789abcdef0123456789abcdef.7.9.file-0", e.store_dir) > 0);
        _cleanup_close_ int src = open(src_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        CHECK(src >= 0);
        /* Text, a run of zero blocks (the copy may leave a hole), text again. */
        uint8_t *data = calloc(1, 200 * 1024);
        CHECK(data);
        memset(data, 'a', 5000);
        memset(data + 150 * 1024, 'b', 50 * 1024);
        CHECK(write(src, data, 200 * 1024) == 200 * 1024);      /* the offset is now at the end */

        const char *name = strrchr(copy, '/') + 1;
        char reason[256] = "";
        uint64_t disk = 0;
        CHECK_INT(store_save_file(e.store, src, name, 1000, 100 * 1024, &disk, "test", reason, sizeof reason), ==, -EFBIG);
        CHECK(strstr(reason, "more than"));
        CHECK(access(copy, F_OK) < 0 && errno == ENOENT);

        CHECK_OK(store_save_file(e.store, src, name, 1000, 1 << 20, &disk, "test", reason, sizeof reason));
        struct stat st;
        CHECK(stat(copy, &st) == 0);
        CHECK_INT(st.st_size, ==, 200 * 1024);
        CHECK_INT(st.st_mode & 07777, ==, 0640);
        CHECK_INT(disk, ==, (uint64_t) st.st_blocks * 512);
        size_t size = 0;
        _cleanup_free_ char *back = NULL;
        CHECK_OK(read_file_at(AT_FDCWD, copy, 1 << 20, &back, &size, NULL));
        CHECK_INT(size, ==, 200 * 1024);
        CHECK(memcmp(back, data, size) == 0);
        if (geteuid() == 0)
                CHECK(has_user_read_acl(copy, 1000));

        /* Never over an existing name: the first copy stays as it was. */
        CHECK(pwrite(src, "c", 1, 0) == 1);
        CHECK_INT(store_save_file(e.store, src, name, 1000, 1 << 20, &disk, "test", reason, sizeof reason), ==, -EEXIST);
        free(back);
        back = NULL;
        CHECK_OK(read_file_at(AT_FDCWD, copy, 1 << 20, &back, &size, NULL));
        CHECK(back[0] == 'a');

        /* Not a regular file. */
        _cleanup_close_ int dir = open(e.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK_INT(store_save_file(e.store, dir, "core.y.file-0", 1000, 1 << 20, NULL, "test", reason, sizeof reason), ==, -EBADF);
        free(data);
        test_env_done(&e);
}

/* ---- a container's files: read by the parser's cell, never by the daemon's own threads -------- */

/* The container's kept file, by inode: every fstat() and pread() on an fd (not O_PATH) of it in this
 * process — the daemon's — is counted; with watched_hang a pread() of it waits 6 s, as a read from a
 * FUSE server that never answers would wait for ever (the test would then fail, not hang). */
static atomic_bool watching, watched_hang;
static dev_t watched_dev;
static ino_t watched_ino;
static atomic_uint watched_touched;

static bool watched(int fd) {
        struct stat st;
        if (!atomic_load(&watching) || fd < 0 || syscall(SYS_fstat, fd, &st) < 0)
                return false;
        int fl = (int) syscall(SYS_fcntl, fd, F_GETFL);
        return st.st_dev == watched_dev && st.st_ino == watched_ino && fl >= 0 && !(fl & O_PATH);
}

int fstat(int fd, struct stat *st) {
        if (watched(fd))
                atomic_fetch_add(&watched_touched, 1);
        return (int) syscall(SYS_fstat, fd, st);
}

ssize_t pread(int fd, void *buf, size_t size, off_t offset) {
        if (watched(fd)) {
                atomic_fetch_add(&watched_touched, 1);
                for (int i = 0; i < 60 && atomic_load(&watched_hang); i++)
                        usleep(100 * 1000);
                if (atomic_load(&watched_hang)) {
                        errno = EIO;
                        return -1;
                }
        }
        return (ssize_t) syscall(SYS_pread64, fd, buf, size, offset);
}

struct container_crash {
        struct test_env e;
        char *root;
        char *parser_saved;
        uint64_t usec;          /* from the connection to the record */
};

/* A crash of a sleeper in a container of its own (sleeper_start_in_container()), /lib/kept.so a
 * copy of /bin/true; fake_parser: a program started for --keep-files instead of the parser. */
static void container_crash(struct container_crash *c, const char *config, bool device_over, const char *fake_parser) {
        test_env_init(&c->e, NULL, config);
        c->root = tmpdir_new();
        const char *saved = getenv("COREDUMPD_PARSER");
        c->parser_saved = saved ? strdup(saved) : NULL;
        if (fake_parser) {
                _cleanup_free_ char *path = NULL, *text = NULL;
                CHECK(asprintf(&path, "%s/fake-parser", c->e.dir) > 0);
                (void) path;
                CHECK(asprintf(&text, "#!/bin/sh\nif [ \"$1\" = --keep-files ]; then %s; fi\nexec %s \"$@\"\n", fake_parser,
                               c->parser_saved) > 0);
                CHECK(write_text_file(c->e.dir, "fake-parser", text) >= 0);
                CHECK(chmod(path, 0755) == 0);
                CHECK(setenv("COREDUMPD_PARSER", path, 1) == 0);
        }
        sleeper_stop(c->e.sleeper);
        c->e.sleeper = sleeper_start_in_container(c->root, "/bin/true", device_over);
        fake_peer_init(&c->e.peer, c->e.sleeper);
        _cleanup_free_ char *in_root = NULL;
        CHECK(asprintf(&in_root, "/proc/%d/root/lib/kept.so", (int) c->e.sleeper) > 0);
        struct stat st;
        CHECK(stat(in_root, &st) == 0);
        watched_dev = st.st_dev;
        watched_ino = st.st_ino;
        atomic_store(&watched_touched, 0);
        atomic_store(&watching, true);
        uint64_t start = now_monotonic_usec();
        store_one(&c->e, 64 * 1024);
        c->usec = now_monotonic_usec() - start;
        atomic_store(&watching, false);
        atomic_store(&watched_hang, false);
        check_field(&c->e, 0, "COREDUMPD_RESULT", "stored");
}

static void container_crash_done(struct container_crash *c) {
        if (c->parser_saved)
                CHECK(setenv("COREDUMPD_PARSER", c->parser_saved, 1) == 0);
        free(c->parser_saved);
        sleeper_stop(c->e.sleeper);
        c->e.sleeper = 0;
        test_env_done(&c->e);
        tmpdir_remove(c->root);
        free(c->root);
}

static size_t kept_copies(struct test_env *e) {
        char **names;
        size_t n = test_env_count_cores(e, &names), k = 0;
        for (size_t i = 0; i < n; i++) {
                k += strstr(names[i], ".file-") != NULL;
                free(names[i]);
        }
        free(names);
        return k;
}

/* The container's file the host lacks is kept next to the core, as the cell read it; the daemon's
 * process never held an fd of it (issue 38 gap 1); a device node bind-mounted where a mapped file
 * was is neither listed nor kept. */
TEST(container_files_kept_by_the_cell_not_the_daemon) {
        if (geteuid() != 0) {
                printf("SKIP: a mount namespace needs root\n");
                return;
        }
        struct container_crash c = {};
        container_crash(&c, "Compress=none\n", true, NULL);
        CHECK_INT(atomic_load(&watched_touched), ==, 0);
        struct saved_files files = {};
        CHECK_OK(saved_files_from_fields(&c.e.records.records[0], &files));
        const struct saved_file *kept = NULL;
        for (size_t i = 0; i < files.n; i++) {
                printf("%s %s %s\n", files.v[i].build_id, files.v[i].stored ? files.v[i].stored : "-", files.v[i].path);
                CHECK(strcmp(files.v[i].path, "/lib/dev.so") != 0);
                if (strcmp(files.v[i].path, "/lib/kept.so") == 0)
                        kept = &files.v[i];
        }
        CHECK(kept && kept->stored && !kept->host && kept->build_id[0]);
        _cleanup_free_ char *copy = NULL, *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        CHECK(asprintf(&copy, "%s/%s", c.e.store_dir, kept->stored) > 0);
        CHECK_OK(read_file_at(AT_FDCWD, copy, 1 << 24, &a, &na, NULL));
        CHECK_OK(read_file_at(AT_FDCWD, "/bin/true", 1 << 24, &b, &nb, NULL));
        CHECK(na == nb && memcmp(a, b, na) == 0);
        CHECK_INT(kept_copies(&c.e), ==, 1);
        check_field(&c.e, 0, "COREDUMPD_SAVED_FILE_ERROR", NULL);
        saved_files_done(&files);
        container_crash_done(&c);
}

/* A cell that never opens the files (as on a FUSE server under an overlay that never answers) holds
 * the crash no longer than its deadline: the crash is stored and recorded without the files, with
 * why. The daemon's own thread would have waited in the read (6 s here, for ever on FUSE). */
TEST(container_file_that_never_answers_does_not_hold_the_thread) {
        if (geteuid() != 0) {
                printf("SKIP: a mount namespace needs root\n");
                return;
        }
        struct container_crash c = {};
        atomic_store(&watched_hang, true);
        container_crash(&c, "Compress=none\nDeadline=1s\n", false, "exec /bin/sleep 600");
        printf("crash handled in %" PRIu64 " ms\n", c.usec / 1000);
        CHECK_INT(c.usec, <, 5 * UINT64_C(1000000));
        CHECK_INT(atomic_load(&watched_touched), ==, 0);
        _cleanup_free_ char *why = record_capture_field(&c.e.records, 0, "COREDUMPD_SAVED_FILE_ERROR");
        CHECK(why && strstr(why, "deadline"));
        printf("%s\n", why);
        check_field(&c.e, 0, "COREDUMPD_SAVED_FILE", NULL);
        CHECK_INT(kept_copies(&c.e), ==, 0);
        container_crash_done(&c);
}

/* A fake kept-files cell (python): holds every file it is asked for, and after the go byte
 * announces a copy of 100000 bytes of the last one; what follows (the script's rest) is the test's. */
#define FAKE_CELL_COPY_100000                                                                   \
        "exec /usr/bin/python3 -c 'import os,struct,time\n"                                     \
        "h=os.read(0,1568)\n"                                                                   \
        "n=struct.unpack_from(\"<I\",h,16)[0]\n"                                               \
        "os.write(1,struct.pack(\"<II64i\",0x4b504443,n,*([0]*64)))\n"                         \
        "os.read(0,1)\n"                                                                        \
        "os.write(1,struct.pack(\"<IIIi40sQ\",0x4b504443,n-1,3,0,b\"\",100000)"

/* A cell that stops in the middle of a copy (a read that never returns, after the release): the
 * daemon stops waiting at Deadline=, links no partial copy and says why. */
TEST(container_file_copy_that_stalls_is_not_kept) {
        if (geteuid() != 0) {
                printf("SKIP: a mount namespace needs root\n");
                return;
        }
        struct container_crash c = {};
        /* Holds every file it is asked for, then announces 100000 bytes of the last, sends 5000. */
        const char *fake =
                FAKE_CELL_COPY_100000 "+bytes(5000))\n"
                "time.sleep(600)'";
        container_crash(&c, "Compress=none\nDeadline=1s\n", false, fake);
        printf("crash handled in %" PRIu64 " ms\n", c.usec / 1000);
        CHECK_INT(c.usec, <, 5 * UINT64_C(1000000));
        _cleanup_free_ char *why = record_capture_field(&c.e.records, 0, "COREDUMPD_SAVED_FILE_ERROR");
        CHECK(why && strstr(why, "copying"));
        printf("%s\n", why);
        CHECK_INT(kept_copies(&c.e), ==, 0);
        container_crash_done(&c);
}

/* A cell that trickles a copy, each piece well within Deadline= but the whole never done: the
 * copies take Deadline= in all, then the daemon stops waiting, links no partial copy and says why
 * (the thread would otherwise be held for as long as the cell likes). */
TEST(container_file_copy_that_trickles_is_cut_in_all) {
        if (geteuid() != 0) {
                printf("SKIP: a mount namespace needs root\n");
                return;
        }
        struct container_crash c = {};
        /* Holds every file it is asked for, then announces 100000 bytes of the last, 100 every 0.3 s. */
        const char *fake =
                FAKE_CELL_COPY_100000 ")\n"
                "for i in range(1000):\n"
                "  os.write(1,bytes(100))\n"
                "  time.sleep(0.3)'";
        container_crash(&c, "Compress=none\nDeadline=2s\n", false, fake);
        printf("crash handled in %" PRIu64 " ms\n", c.usec / 1000);
        CHECK_INT(c.usec, <, 8 * UINT64_C(1000000));
        _cleanup_free_ char *why = record_capture_field(&c.e.records, 0, "COREDUMPD_SAVED_FILE_ERROR");
        CHECK(why && strstr(why, "copying") && strstr(why, "in all"));
        printf("%s\n", why);
        CHECK_INT(kept_copies(&c.e), ==, 0);
        container_crash_done(&c);
}

/* A crash of a task with a root of its own (here a chroot, in our mount namespace: maps names its
 * files by our paths): its files are listed in COREDUMPD_SAVED_FILE=, those that are the host's
 * own (the same inode) are not copied, and the unwinder still finds its symbols. */
TEST(crash_with_its_own_root_lists_its_files) {
        if (geteuid() != 0) {
                printf("SKIP: chroot needs root\n");
                return;
        }
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\n");
        _cleanup_free_ char *root = tmpdir_new();
        sleeper_stop(e.sleeper);
        e.sleeper = sleeper_start_in_root("chrooted", root);
        fake_peer_init(&e.peer, e.sleeper);

        store_one(&e, 64 * 1024);
        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        _cleanup_free_ char *text = record_capture_field(&e.records, 0, "COREDUMPD_SAVED_FILE");
        CHECK(text);
        printf("%s\n", text);
        struct saved_files files = {};
        CHECK_INT(record_capture_count(&e.records), ==, 1);
        CHECK_OK(saved_files_from_fields(&e.records.records[0], &files));
        char self[4096] = "";
        CHECK(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
        CHECK_INT(files.n, >=, 2);                      /* the executable, libc, ... */
        CHECK_STR(files.v[0].path, self);               /* the executable first */
        for (size_t i = 0; i < files.n; i++)
                CHECK(files.v[i].host && !files.v[i].stored);
        CHECK(files.v[0].build_id[0]);
        saved_files_done(&files);
        char **names;
        size_t n = test_env_count_cores(&e, &names);
        for (size_t i = 0; i < n; i++) {
                CHECK(!strstr(names[i], ".file-"));
                free(names[i]);
        }
        free(names);
        _cleanup_free_ char *frames = record_capture_field(&e.records, 0, "COREDUMPD_BACKTRACE");
        CHECK(frames && strstr(frames, "sleeper_start_in_root"));
        test_env_done(&e);
        tmpdir_remove(root);
}

/* The same crash site again and again: the first RateLimitBurst= get the rule's action, the
 * repeats are answered REJECT before any core data (OnRepeat=reject), each recorded with the same
 * signature and its number; the counts survive a restart (a new table from the store). */
TEST(repeats_rejected_before_the_dump) {
        struct test_env e;
        test_env_init(&e, "[Rule]\nName=repeater\nAction=kernel\nRateLimitBurst=2\nOnRepeat=reject\n", NULL);
        e.env.repeats = repeats_new(e.store->dir_fd);
        CHECK(e.env.repeats);

        reader_pool_end();
        for (int i = 0; i < 4; i++) {
                struct connection_run run;
                _cleanup_free_ uint8_t *core = fake_core_new(16384, 16384);
                connection_run_start(&run, &e.env);
                struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
                if (i < 2) {
                        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
                        CHECK_INT(fk_stream(run.kernel_fd, core, 16384), ==, 16384);
                } else
                        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
                CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
                CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
                connection_run_join(&run);
        }
        /* The site keys and command lines of all four read by one reader, kept between them: none
         * started per crash. */
        CHECK_INT(reader_pool_count(), ==, 1);
        reader_pool_end();
        _cleanup_free_ char *sig0 = record_capture_field(&e.records, 0, "COREDUMPD_SIGNATURE");
        CHECK(sig0 && strlen(sig0) == 16);
        for (size_t i = 0; i < 4; i++) {
                _cleanup_free_ char *sig = record_capture_field(&e.records, i, "COREDUMPD_SIGNATURE");
                _cleanup_free_ char *repeat = record_capture_field(&e.records, i, "COREDUMPD_REPEAT");
                CHECK_STR(sig, sig0);
                CHECK(repeat && atoi(repeat) == (int) i + 1);
        }
        check_field(&e, 1, "COREDUMPD_RESULT", "stored");
        check_field(&e, 2, "COREDUMPD_RESULT", "rejected");
        /* The first two were unwound and taught the table their site; the repeats were known by
         * it, and no parser was started for them (nothing unwound, no backtrace). */
        _cleanup_free_ char *site0 = record_capture_field(&e.records, 0, "COREDUMPD_SITE");
        CHECK(site0 && strlen(site0) == 16);
        for (size_t i = 0; i < 4; i++) {
                _cleanup_free_ char *site = record_capture_field(&e.records, i, "COREDUMPD_SITE");
                _cleanup_free_ char *from = record_capture_field(&e.records, i, "COREDUMPD_SIGNATURE_FROM");
                _cleanup_free_ char *usec = record_capture_field(&e.records, i, "COREDUMPD_UNWIND_USEC");
                _cleanup_free_ char *frames = record_capture_field(&e.records, i, "COREDUMPD_BACKTRACE");
                CHECK_STR(site, site0);
                /* A repeat known by its site is rejected before the rest of its context is read:
                 * its record names it as any rejected crash's does, no command line. */
                _cleanup_free_ char *cmdline = record_capture_field(&e.records, i, "COREDUMP_CMDLINE");
                _cleanup_free_ char *comm = record_capture_field(&e.records, i, "COREDUMP_COMM");
                _cleanup_free_ char *exe = record_capture_field(&e.records, i, "COREDUMP_EXE");
                CHECK(comm && exe);
                if (i < 2) {
                        CHECK(!from && usec && frames && cmdline);
                } else {
                        CHECK_STR(from, "site");
                        CHECK(!usec && !frames && !cmdline);
                }
        }
        _cleanup_free_ char *message = record_capture_field(&e.records, 3, "MESSAGE");
        _cleanup_free_ char *needle = NULL;
        CHECK(asprintf(&needle, "(repeat 4 of signature %s, known by its site, not unwound)", sig0) > 0);
        CHECK(message && strstr(message, needle));
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 2);
        /* The first repeat is logged, the next only recorded (their lines are debug). */
        CHECK_INT(log_capture_priority(&e.logs, "Repeat 3 of signature"), ==, LOG_INFO);
        CHECK(log_capture_contains(&e.logs, "the next repeats are in their records, not logged"));
        CHECK_INT(log_capture_priority(&e.logs, "Repeat 4 of signature"), ==, LOG_DEBUG);

        /* After a restart the table comes back from the store. */
        repeats_free(e.env.repeats);
        e.env.repeats = repeats_new(e.store->dir_fd);
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        uint64_t now_usec = (uint64_t) now.tv_sec * 1000000 + (uint64_t) now.tv_nsec / 1000;
        char sig[17];
        unsigned n = 0;
        CHECK(repeats_count_by_site(e.env.repeats, TENANT_UID(getuid()), site0, 2, 3600ULL * 1000000, now_usec, sig, &n));
        CHECK_STR(sig, sig0);
        CHECK_INT(n, ==, 5);
        CHECK_INT(repeats_count(e.env.repeats, TENANT_UID(getuid()), sig0, NULL, 3600ULL * 1000000, now_usec), ==, 6);
        e.env.repeats = repeats_free(e.env.repeats);
        test_env_done(&e);
}

/* ---- the hooks (crash/notify.h) ---- */

/* The hook units a crash hands on, as the server's queue would get them. */
struct hook_calls {
        pthread_mutex_t lock;
        char units[16][UNIT_NAME_MAX + 1];
        enum hook hooks[16];
        size_t n;
};

static void hook_record(enum hook hook, const char *unit, const struct tenant *tenant, void *userdata) {
        struct hook_calls *h = userdata;
        pthread_mutex_lock(&h->lock);
        if (h->n < 16) {
                snprintf(h->units[h->n], sizeof h->units[0], "%s", unit);
                h->hooks[h->n++] = hook;
        }
        pthread_mutex_unlock(&h->lock);
}

static size_t hook_count(struct hook_calls *h, enum hook hook) {
        size_t n = 0;
        for (size_t i = 0; i < h->n; i++)
                n += h->hooks[i] == hook;
        return n;
}

/* n crashes at one site under policy (RateLimitBurst=2, OnRepeat=reject): the first two streamed,
 * the rest rejected as repeats. */
static void crash_loop(struct test_env *e, unsigned n) {
        for (unsigned i = 0; i < n; i++) {
                struct connection_run run;
                _cleanup_free_ uint8_t *core = fake_core_new(16384, 16384);
                connection_run_start(&run, &e->env);
                struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
                if (ack.mask & COREDUMP_KERNEL)
                        CHECK_INT(fk_stream(run.kernel_fd, core, 16384), ==, 16384);
                CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
                CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
                connection_run_join(&run);
        }
}

static void hooks_env_init(struct test_env *e, struct hook_calls *calls, const char *notify) {
        _cleanup_free_ char *policy = NULL;
        CHECK(asprintf(&policy, "[Rule]\nName=loop\nAction=kernel\nRateLimitBurst=2\nOnRepeat=reject\n%s%s%s", notify ? "Notify=" : "",
                       notify ?: "", notify ? "\n" : "") > 0);
        test_env_init(e, policy, NULL);
        e->env.repeats = repeats_new(e->store->dir_fd);
        e->env.first_seen = first_seen_new(e->store->dir_fd);
        CHECK(e->env.repeats && e->env.first_seen);
        *calls = (struct hook_calls) { .lock = PTHREAD_MUTEX_INITIALIZER };
        e->env.hook_start = hook_record;
        e->env.hook_userdata = calls;
}

static void hooks_env_done(struct test_env *e) {
        e->env.repeats = repeats_free(e->env.repeats);
        e->env.first_seen = first_seen_free(e->env.first_seen);
        test_env_done(e);
}

/* A crash loop (Notify=first, the default): its first crash starts coredumpd-crash@CRASH_ID.service
 * and, its signature being new here, coredumpd-new-signature@SIGNATURE.service, each once; its
 * repeats start nothing. The signature stays known across a restart (a new table from the store):
 * the next crash is neither new nor, within the interval, a first. */
TEST(hooks_first_crash_of_a_new_signature_once) {
        struct test_env e;
        struct hook_calls calls;
        hooks_env_init(&e, &calls, NULL);

        crash_loop(&e, 4);
        CHECK_INT(record_capture_count(&e.records), ==, 4);
        CHECK_INT(calls.n, ==, 2);
        CHECK_INT(hook_count(&calls, HOOK_CRASH), ==, 1);
        CHECK_INT(hook_count(&calls, HOOK_NEW_SIGNATURE), ==, 1);
        _cleanup_free_ char *crash_id = record_capture_field(&e.records, 0, "COREDUMPD_CRASH_ID");
        _cleanup_free_ char *sig = record_capture_field(&e.records, 0, "COREDUMPD_SIGNATURE");
        CHECK(crash_id && crash_id_is_valid(crash_id) && sig && strlen(sig) == 16);
        char want[UNIT_NAME_MAX + 1];
        CHECK_OK(unit_name_instance("coredumpd-crash", crash_id, "service", want, sizeof want));
        CHECK_STR(calls.units[0], want);
        CHECK(strstr(calls.units[0], "\\x2d")); /* the id's '-' escaped: %I gives it back */
        CHECK_OK(unit_name_instance("coredumpd-new-signature", sig, "service", want, sizeof want));
        CHECK_STR(calls.units[1], want);
        check_field(&e, 0, "COREDUMPD_FIRST_SEEN", "1");
        for (size_t i = 1; i < 4; i++)
                check_field(&e, i, "COREDUMPD_FIRST_SEEN", NULL);

        /* A restart: the signature is still known. */
        e.env.first_seen = first_seen_free(e.env.first_seen);
        e.env.first_seen = first_seen_new(e.store->dir_fd);
        CHECK_INT(first_seen_count(e.env.first_seen), ==, 1);
        crash_loop(&e, 1);
        CHECK_INT(calls.n, ==, 2);
        check_field(&e, 4, "COREDUMPD_FIRST_SEEN", NULL);
        hooks_env_done(&e);
}

/* Notify=every: every crash of the loop starts its crash's unit (the new signature's still once);
 * Notify=none: nothing at all, though the signature is noted as seen. */
TEST(hooks_notify_every_and_none) {
        struct test_env e;
        struct hook_calls calls;
        hooks_env_init(&e, &calls, "every");
        crash_loop(&e, 4);
        CHECK_INT(hook_count(&calls, HOOK_CRASH), ==, 4);
        CHECK_INT(hook_count(&calls, HOOK_NEW_SIGNATURE), ==, 1);
        for (size_t i = 0; i < 4; i++) {
                _cleanup_free_ char *crash_id = record_capture_field(&e.records, i, "COREDUMPD_CRASH_ID");
                char want[UNIT_NAME_MAX + 1];
                CHECK_OK(unit_name_instance("coredumpd-crash", crash_id, "service", want, sizeof want));
                bool found = false;
                for (size_t k = 0; k < calls.n; k++)
                        found = found || strcmp(calls.units[k], want) == 0;
                CHECK(found);
        }
        hooks_env_done(&e);

        hooks_env_init(&e, &calls, "none");
        crash_loop(&e, 3);
        CHECK_INT(calls.n, ==, 0);
        check_field(&e, 0, "COREDUMPD_FIRST_SEEN", "1");
        CHECK_INT(first_seen_count(e.env.first_seen), ==, 1);
        hooks_env_done(&e);
}

/* Without a rate limit (RateLimitBurst=0) there are no repeats: under Notify=first every crash
 * unwound to a signature starts its crash's unit; the new signature's still once. */
TEST(hooks_first_without_rate_limit_every_crash) {
        struct test_env e;
        struct hook_calls calls;
        test_env_init(&e, "[Rule]\nName=loop\nAction=kernel\nRateLimitBurst=0\n", NULL);
        e.env.repeats = repeats_new(e.store->dir_fd);
        e.env.first_seen = first_seen_new(e.store->dir_fd);
        CHECK(e.env.repeats && e.env.first_seen);
        calls = (struct hook_calls) { .lock = PTHREAD_MUTEX_INITIALIZER };
        e.env.hook_start = hook_record;
        e.env.hook_userdata = &calls;

        crash_loop(&e, 3);
        CHECK_INT(record_capture_count(&e.records), ==, 3);
        CHECK_INT(hook_count(&calls, HOOK_CRASH), ==, 3);
        CHECK_INT(hook_count(&calls, HOOK_NEW_SIGNATURE), ==, 1);
        hooks_env_done(&e);
}

/* ---- the compact core in the record (COREDUMP=) ---- */

/* The compact core the parser makes of a stored core, as the test reads it: what the record must
 * carry byte for byte. */
static void *compact_of(const char *path, uint64_t max_size, size_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        char reason[256] = "";
        void *buf = NULL;
        CHECK(fd >= 0);
        int r = parser_compact_core(fd, max_size, &(struct tenant) { .uid = 0, .host = true }, &buf, ret_size, reason, sizeof reason);
        if (r < 0)
                test_fail(__FILE__, __LINE__, "compact core of %s: %s", path, reason);
        return buf;
}

/* Record i of rc carries the compact core of its stored core: COREDUMP= is what the parser makes of
 * that file, an ELF core within JournalSizeMax=, and COREDUMPD_JOURNAL_CORE_SIZE= says its size. */
static void check_journal_core_in(struct record_capture *rc, size_t i, uint64_t max_size) {
        size_t size = 0, want_size = 0;
        _cleanup_free_ void *core = record_capture_binary(rc, i, "COREDUMP", &size);
        _cleanup_free_ char *error = record_capture_field(rc, i, "COREDUMPD_JOURNAL_CORE_ERROR");
        if (!core)
                test_fail(__FILE__, __LINE__, "record %zu has no COREDUMP= (COREDUMPD_JOURNAL_CORE_ERROR=%s)", i,
                          error ? error : "(none)");
        if (error)
                test_fail(__FILE__, __LINE__, "record %zu: COREDUMPD_JOURNAL_CORE_ERROR=%s beside its core", i, error);
        CHECK(parser_compact_core_valid(core, size, max_size));
        _cleanup_free_ char *size_text = record_capture_field(rc, i, "COREDUMPD_JOURNAL_CORE_SIZE");
        CHECK(size_text);
        CHECK_INT(strtoull(size_text, NULL, 10), ==, size);
        _cleanup_free_ char *path = record_capture_field(rc, i, "COREDUMP_FILENAME");
        CHECK(path); /* the record names the file as ever */
        _cleanup_free_ void *want = compact_of(path, max_size, &want_size);
        CHECK_INT(size, ==, want_size);
        CHECK(memcmp(core, want, size) == 0);
        struct stat st;
        CHECK(stat(path, &st) == 0);
        printf("record %zu: compact core of %zu bytes, the stored core %lld bytes on disk\n", i, size,
               (long long) st.st_size);
}

static void check_journal_core(struct test_env *e, size_t i, uint64_t max_size) {
        check_journal_core_in(&e->records, i, max_size);
}

/* Record i of rc carries no compact core; its COREDUMPD_JOURNAL_CORE_ERROR= holds error_part, or
 * (NULL) there is none. */
static void check_no_journal_core_in(struct record_capture *rc, size_t i, const char *error_part) {
        size_t size = 0;
        _cleanup_free_ void *core = record_capture_binary(rc, i, "COREDUMP", &size);
        if (core)
                test_fail(__FILE__, __LINE__, "record %zu carries a compact core of %zu bytes, expected none", i, size);
        _cleanup_free_ char *size_text = record_capture_field(rc, i, "COREDUMPD_JOURNAL_CORE_SIZE");
        if (size_text)
                test_fail(__FILE__, __LINE__, "record %zu: COREDUMPD_JOURNAL_CORE_SIZE=%s, expected none", i, size_text);
        _cleanup_free_ char *error = record_capture_field(rc, i, "COREDUMPD_JOURNAL_CORE_ERROR");
        if (!error_part && error)
                test_fail(__FILE__, __LINE__, "record %zu: COREDUMPD_JOURNAL_CORE_ERROR=%s, expected none", i, error);
        if (error_part && (!error || !strstr(error, error_part)))
                test_fail(__FILE__, __LINE__, "record %zu: COREDUMPD_JOURNAL_CORE_ERROR=%s, expected one with '%s'", i,
                          error ? error : "(none)", error_part);
}

static void check_no_journal_core(struct test_env *e, size_t i, const char *error_part) {
        check_no_journal_core_in(&e->records, i, error_part);
}

/* The first crash of a signature in its interval carries the compact core of its stored core
 * (Action=userspace: our own zstd core; Action=kernel: the kernel's, compacted from the plain file
 * before it is compressed); its repeats carry none, nor an error. */
TEST(journal_core_with_the_first_crash_of_a_signature) {
        struct test_env e;
        test_env_init(&e, "[Rule]\nName=own\nAction=userspace\nUserspaceDump=all-writable\nJournalCore=system\n", NULL);
        e.env.repeats = repeats_new(e.store->dir_fd);
        CHECK(e.env.repeats);

        crash_without_core(&e, COREDUMP_USERSPACE | COREDUMP_WAIT);
        crash_without_core(&e, COREDUMP_USERSPACE | COREDUMP_WAIT);
        CHECK_INT(record_capture_count(&e.records), ==, 2);
        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMPD_REPEAT", "1");
        check_field(&e, 0, "COREDUMPD_CORE_FORM", "zstd");
        check_journal_core(&e, 0, UINT64_C(1) << 20);
        check_field(&e, 1, "COREDUMPD_RESULT", "stored");
        check_field(&e, 1, "COREDUMPD_REPEAT", "2");
        check_no_journal_core(&e, 1, NULL);

        /* The same core as the kernel's, into a store of its own (a new count): compacted before
         * compression, the record names the .zst and carries what the parser makes of it. */
        _cleanup_free_ char *path = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        size_t full_size = 0;
        _cleanup_free_ uint8_t *full = read_core_file(path, &full_size);
        e.env.repeats = repeats_free(e.env.repeats);
        test_env_done(&e);

        test_env_init(&e, NULL, "JournalCore=system\n");
        e.env.repeats = repeats_new(e.store->dir_fd);
        CHECK(e.env.repeats);
        struct connection_run run;
        connection_run_start(&run, &e.env);
        struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        CHECK_INT(fk_stream(run.kernel_fd, full, full_size), ==, full_size);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);
        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMPD_ACTION", "kernel");
        check_field(&e, 0, "COREDUMPD_CORE_FORM", "zstd");
        check_field(&e, 0, "COREDUMPD_REPEAT", "1");
        check_journal_core(&e, 0, UINT64_C(1) << 20);
        e.env.repeats = repeats_free(e.env.repeats);
        test_env_done(&e);
}

/* JournalSizeMax=0: no compact core, and nothing said about one. Nor for a crash that is not
 * counted (RateLimitBurst=0): only a first crash of its signature gets one. */
TEST(journal_core_none_when_off_or_not_counted) {
        struct test_env e;
        test_env_init(&e, "[Rule]\nName=own\nAction=userspace\n", "JournalSizeMax=0\nJournalCore=system\n");
        e.env.repeats = repeats_new(e.store->dir_fd);
        CHECK(e.env.repeats);
        crash_without_core(&e, COREDUMP_USERSPACE | COREDUMP_WAIT);
        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMPD_REPEAT", "1");
        check_no_journal_core(&e, 0, NULL);
        e.env.repeats = repeats_free(e.env.repeats);
        test_env_done(&e);

        test_env_init(&e, "[Rule]\nName=own\nAction=userspace\nRateLimitBurst=0\nJournalCore=system\n", NULL);
        e.env.repeats = repeats_new(e.store->dir_fd);
        CHECK(e.env.repeats);
        crash_without_core(&e, COREDUMP_USERSPACE | COREDUMP_WAIT);
        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMPD_REPEAT", NULL);
        check_no_journal_core(&e, 0, NULL);
        e.env.repeats = repeats_free(e.env.repeats);
        test_env_done(&e);
}

/* A core whose notes alone exceed JournalSizeMax= (4K, the least it may be): no compact core, and
 * the record says why; the core itself is stored and named as ever. */
TEST(journal_core_too_large_says_why) {
        struct test_env e;
        test_env_init(&e, NULL, "JournalSizeMax=4K\nJournalCore=system\n");
        e.env.repeats = repeats_new(e.store->dir_fd);
        CHECK(e.env.repeats);

        size_t size = 64 * 1024;
        _cleanup_free_ uint8_t *core = fake_core_new(size, size);
        Elf64_Phdr note;
        memcpy(&note, core + sizeof(Elf64_Ehdr), sizeof note);
        CHECK_INT(note.p_type, ==, PT_NOTE);
        note.p_filesz = 8192; /* notes of 8K: more than the whole compact core may take */
        memcpy(core + sizeof(Elf64_Ehdr), &note, sizeof note);

        struct connection_run run;
        connection_run_start(&run, &e.env);
        struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL | COREDUMP_WAIT);
        CHECK_INT(fk_stream(run.kernel_fd, core, size), ==, size);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);

        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        check_field(&e, 0, "COREDUMPD_REPEAT", "1");
        check_no_journal_core(&e, 0, "too large even compacted");
        _cleanup_free_ char *path = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(path && access(path, R_OK) == 0);
        CHECK(log_capture_contains(&e.logs, "No compact core in the record (JournalSizeMax=4K)"));
        e.env.repeats = repeats_free(e.env.repeats);
        test_env_done(&e);
}

TEST(deadline_closes_stalled_connection) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, NULL, NULL);

        _cleanup_free_ uint8_t *core = fake_core_new(1 << 20, 1 << 20);
        connection_run_start(&run, &e.env);
        (void) exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_stream(run.kernel_fd, core, 8192), ==, 8192); /* then the "kernel" stalls */
        usleep(100000);
        connection_expire(&run.conn); /* what the loop's deadline timer does */
        CHECK(fk_wait_eof(run.kernel_fd, TIMEOUT_MS) >= 0);
        connection_run_join(&run);

        check_field(&e, 0, "COREDUMPD_RESULT", "failed");
        _cleanup_free_ char *error = record_capture_field(&e.records, 0, "COREDUMPD_ERROR");
        CHECK(error && strstr(error, "deadline"));
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

TEST(own_crash_rejected_at_once) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        e.peer.pid = getpid();

        crash_without_core(&e, COREDUMP_REJECT);
        check_field(&e, 0, "COREDUMPD_RULE", "self");
        check_field(&e, 0, "COREDUMPD_RESULT", "rejected");
        test_env_done(&e);
}

/* Kills the peer right after vouching for it: the /proc verification must then fail. */
static int authenticate_then_kill(int conn_fd, struct peer *ret, void *userdata) {
        const struct fake_peer *p = userdata;
        int r = fake_authenticate(conn_fd, ret, userdata);
        sleeper_stop(p->pid);
        return r;
}

TEST(vanished_process_cannot_be_verified) {
        struct test_env e;
        struct connection_run run;
        test_env_init(&e, NULL, NULL);
        e.peer.pid = sleeper_start("victim", -1);
        e.env.authenticate = authenticate_then_kill;

        connection_run_start(&run, &e.env);
        struct coredump_ack ack = exchange(run.kernel_fd, 16, 16, FULL_MASK, COREDUMP_MARK_REQACK);
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);
        CHECK(fk_wait_eof(run.kernel_fd, TIMEOUT_MS) >= 0);
        connection_run_join(&run);

        check_field(&e, 0, "COREDUMPD_RESULT", "failed");
        check_field(&e, 0, "COREDUMPD_RULE", "context-unavailable");
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

static void check_acl(uint32_t uid, uint32_t euid, uint32_t coredump_mask, bool want_user_entry) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        e.peer.uid = uid;
        e.peer.euid = euid;
        e.peer.gid = e.peer.egid = 1000;
        e.peer.coredump_mask = coredump_mask;

        store_one(&e, 16384);
        _cleanup_free_ char *path = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(path);

        bool found = has_user_read_acl(path, uid);
        CHECK_INT(found, ==, want_user_entry);
        test_env_done(&e);
}

/* A crash of uid (euid, gid) stored with the default policy and the config_text given, the
 * user's copies captured too (the daemon sends them with coredumpd-parser --record). */
static void store_one_of(struct test_env *e, const char *policy_text, const char *config_text, uint32_t uid,
                         uint32_t euid, uint32_t gid, uint32_t coredump_mask) {
        test_env_init(e, policy_text, config_text);
        e->env.repeats = repeats_new(e->store->dir_fd);
        CHECK(e->env.repeats);
        e->env.user_records = true;
        e->peer.uid = uid;
        e->peer.euid = euid;
        e->peer.gid = e->peer.egid = gid;
        e->peer.coredump_mask = coredump_mask;
        store_one(e, 16384);
        check_field(e, 0, "COREDUMPD_RESULT", "stored");
        check_field(e, 0, "COREDUMPD_REPEAT", "1");
}

static void store_one_done(struct test_env *e) {
        e->env.repeats = repeats_free(e->env.repeats);
        test_env_done(e);
}

#define DUMPED_AS_USER (PIDFD_COREDUMPED | PIDFD_COREDUMP_USER)

/* A root-only core (setuid: uid 1000, euid 0; or dumped as root) is never put in a journal, which
 * adm and systemd-journal read, whatever JournalCore= says: the record says why, and the user gets
 * no copy. */
TEST(journal_core_withheld_for_root_only_cores) {
        static const char *const configs[] = { NULL, "JournalCore=system\n" };
        for (size_t i = 0; i < ELEMENTSOF(configs); i++) {
                struct test_env e;
                store_one_of(&e, NULL, configs[i], 1000, 0, 1000, DUMPED_AS_USER);
                check_no_journal_core(&e, 0, "withheld: a root-only core");
                CHECK_INT(record_capture_count(&e.user_records), ==, 0);
                store_one_done(&e);
                store_one_of(&e, NULL, configs[i], 1000, 1000, 1000, PIDFD_COREDUMPED | PIDFD_COREDUMP_ROOT);
                check_no_journal_core(&e, 0, "withheld: a root-only core");
                CHECK_INT(record_capture_count(&e.user_records), ==, 0);
                store_one_done(&e);
        }
}

/* By default (JournalCore=user) the compact core of root's and of a system service's crash goes
 * into no record: the system journal is read by adm and systemd-journal and shipped by
 * systemd-journal-upload. The record says why; a system user's copy (journald files it in the
 * system journal too) carries none either. */
TEST(journal_core_not_in_the_system_journal_for_root_and_system_users) {
        static const uint32_t uids[] = { 0, 33, 999, 65534, 61184 };
        for (size_t i = 0; i < ELEMENTSOF(uids); i++) {
                struct test_env e;
                store_one_of(&e, NULL, NULL, uids[i], uids[i], uids[i], DUMPED_AS_USER);
                check_no_journal_core(&e, 0, "withheld from the system journal");
                CHECK_INT(record_capture_count(&e.user_records), ==, uids[i] == 0 ? 0 : 1);
                if (uids[i] != 0) {
                        check_no_journal_core_in(&e.user_records, 0, NULL);
                        _cleanup_free_ char *uid = record_capture_field(&e.user_records, 0, "COREDUMP_UID");
                        CHECK(uid && strtoul(uid, NULL, 10) == uids[i]);
                }
                store_one_done(&e);
        }
}

/* JournalCore=system (a fleet's collector): root's and a system service's compact core in the
 * system journal's record, by a rule or by coredumpd.conf; a rule says otherwise than the file. */
TEST(journal_core_in_the_system_journal_when_opted_in) {
        struct test_env e;
        store_one_of(&e, "[Rule]\nName=fleet\nAction=kernel\nJournalCore=system\n", NULL, 0, 0, 0, DUMPED_AS_USER);
        check_journal_core(&e, 0, UINT64_C(1) << 20);
        CHECK_INT(record_capture_count(&e.user_records), ==, 0);
        store_one_done(&e);

        store_one_of(&e, NULL, "JournalCore=system\n", 33, 33, 33, DUMPED_AS_USER);
        check_journal_core(&e, 0, UINT64_C(1) << 20);
        CHECK_INT(record_capture_count(&e.user_records), ==, 1);
        check_no_journal_core_in(&e.user_records, 0, NULL); /* once in the system journal is enough */
        store_one_done(&e);

        store_one_of(&e, "[Rule]\nName=not-this-one\nAction=kernel\nJournalCore=user\n", "JournalCore=system\n", 0,
                     0, 0, DUMPED_AS_USER);
        check_no_journal_core(&e, 0, "JournalCore=user");
        store_one_done(&e);
}

/* A regular user's crash: the compact core goes into the copy in their own journal (which they,
 * root, adm and systemd-journal read), not into the system journal's record, which says where it
 * went; JournalCore=system puts it in both, JournalCore=no in neither. */
TEST(journal_core_in_a_regular_users_own_copy) {
        struct test_env e;
        store_one_of(&e, NULL, NULL, 1000, 1000, 1000, DUMPED_AS_USER);
        check_no_journal_core(&e, 0, "in the user's own journal only (JournalCore=user)");
        CHECK_INT(record_capture_count(&e.user_records), ==, 1);
        check_journal_core_in(&e.user_records, 0, UINT64_C(1) << 20);
        store_one_done(&e);

        store_one_of(&e, NULL, "JournalCore=system\n", 1000, 1000, 1000, DUMPED_AS_USER);
        check_journal_core(&e, 0, UINT64_C(1) << 20);
        check_journal_core_in(&e.user_records, 0, UINT64_C(1) << 20);
        store_one_done(&e);

        store_one_of(&e, "[Rule]\nName=none\nAction=kernel\nJournalCore=no\n", "JournalCore=system\n", 1000, 1000,
                     1000, DUMPED_AS_USER);
        check_no_journal_core(&e, 0, NULL);
        check_no_journal_core_in(&e.user_records, 0, NULL);
        CHECK(!log_capture_contains(&e.logs, "A compact core of"));
        store_one_done(&e);
}

TEST(acl_granted_to_dumpable_user) {
        check_acl(1000, 1000, PIDFD_COREDUMPED | PIDFD_COREDUMP_USER, true);
}
TEST(acl_withheld_for_setuid) {
        check_acl(1000, 0, PIDFD_COREDUMPED | PIDFD_COREDUMP_USER, false);
}
TEST(acl_withheld_when_dumped_as_root) {
        check_acl(1000, 1000, PIDFD_COREDUMPED | PIDFD_COREDUMP_ROOT, false);
}

TEST(hostile_comm_escaped_in_record_and_file_name) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        pid_t hostile = sleeper_start("a/b\nc.d\xfe", -1);
        e.peer.pid = hostile;

        store_one(&e, 16384);
        check_field(&e, 0, "COREDUMP_COMM", "a/b\\nc.d\\xfe");
        char **names;
        CHECK_INT(test_env_count_cores(&e, &names), ==, 1);
        const char *want = "core.a\\x2fb\\x0ac\\x2ed\\xfe.0.";
        CHECK(strncmp(names[0], want, strlen(want)) == 0);
        CHECK(!strchr(names[0], '/') && !strchr(names[0], '\n'));
        CHECK(log_capture_contains(&e.logs, "(a/b\\nc.d\\xfe)")); /* log lines escape it too */
        free(names[0]);
        free(names);
        sleeper_stop(hostile);
        test_env_done(&e);
}

TEST(hostile_cmdline_escaped) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        pid_t hostile = sleeper_exec("ev\nil/../\xff" "x", "while :; do sleep 1; done # a b\tc");
        e.peer.pid = hostile;

        store_one(&e, 16384);
        check_field(&e, 0, "COREDUMP_CMDLINE",
                    "ev\\nil/../\\xffx -c while\\x20:;\\x20do\\x20sleep\\x201;\\x20done\\x20#\\x20a\\x20b\\tc");
        check_field(&e, 0, "COREDUMP_COMM", "sh");
        _cleanup_free_ char *exe = record_capture_field(&e.records, 0, "COREDUMP_EXE");
        CHECK(exe && exe[0] == '/' && !strchr(exe, '\n'));
        sleeper_stop(hostile);
        test_env_done(&e);
}

/* A kept crash's record has its status, maps and limits as systemd-coredump's fields, read by its
 * reader (the daemon reads none of them for the record), whole lines within their bounds, newlines
 * and tabs kept and everything else a task controls escaped: a mapped file whose name holds a
 * terminal's escape sequence shows it as text. */
TEST(kept_crash_records_proc_status_maps_limits) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ char *dir = tmpdir_new();
        char script[512];
        snprintf(script, sizeof script, "cp /bin/sleep '%s/sl\033]0;x\007eep' && exec '%s/sl\033]0;x\007eep' 1000", dir,
                 dir);
        pid_t pid = sleeper_exec("proc-texts", script);
        char path[64], target[512] = "";
        snprintf(path, sizeof path, "/proc/%d/exe", (int) pid);
        for (int i = 0; i < 500 && !strstr(target, "eep"); i++) { /* until it runs the copy */
                memset(target, 0, sizeof target);
                if (readlink(path, target, sizeof target - 1) < 0)
                        break;
                usleep(10000);
        }
        CHECK(strstr(target, "eep") != NULL);
        e.peer.pid = pid;

        store_one(&e, 16384);
        check_field(&e, 0, "COREDUMPD_RESULT", "stored");
        _cleanup_free_ char *status = record_capture_field(&e.records, 0, "COREDUMP_PROC_STATUS");
        _cleanup_free_ char *maps = record_capture_field(&e.records, 0, "COREDUMP_PROC_MAPS");
        _cleanup_free_ char *limits = record_capture_field(&e.records, 0, "COREDUMP_PROC_LIMITS");
        CHECK(status && maps && limits);
        CHECK(strncmp(status, "Name:\t", 6) == 0 && strstr(status, "\nUid:\t") && strstr(status, "\nVmRSS:"));
        CHECK(strstr(limits, "Max core file size") != NULL);
        CHECK(strstr(maps, "/sl\\x1b]0;x\\x07eep\n") != NULL);
        CHECK(strlen(status) <= READER_PROC_STATUS_MAX && strlen(maps) <= READER_PROC_MAPS_MAX * 4 &&
              strlen(limits) <= READER_PROC_LIMITS_MAX);
        for (const char *p = maps; *p; p++)
                CHECK(*p == '\n' || *p == '\t' || (unsigned char) *p >= 0x20);
        for (const char *p = status; *p; p++)
                CHECK(*p == '\n' || *p == '\t' || (unsigned char) *p >= 0x20);
        sleeper_stop(pid);
        test_env_done(&e);
}

/* A real client, not a crashing task, through the real authenticator: refused, nothing recorded. */
/* ---- where a crash lives: namespaces, container, crash id, a /proc to trust ---- */

static char *ns_id_text(pid_t pid, const char *ns) {
        char path[64];
        struct stat st;
        char *text;
        snprintf(path, sizeof path, "/proc/%d/ns/%s", (int) pid, ns);
        CHECK(stat(path, &st) == 0);
        CHECK(asprintf(&text, "%llu", (unsigned long long) st.st_ino) > 0);
        return text;
}

/* What the crash id of pid must be, worked out here the way it is defined (coredumpd(8)). */
static char *expected_crash_id(pid_t pid) {
        char boot[33], id[CRASH_ID_MAX];
        sd_id128_t b;
        struct statfs sfs;
        struct stat st;

        CHECK_OK(sd_id128_get_boot(&b));
        sd_id128_to_string(b, boot);
        _cleanup_close_ int pidfd = test_pidfd_of(pid);
        CHECK(pidfd >= 0);
        CHECK(fstatfs(pidfd, &sfs) == 0);
        if ((uint64_t) sfs.f_type == PID_FS_MAGIC) {
                CHECK(fstat(pidfd, &st) == 0);
                CHECK_OK(crash_id_from_pidfs(id, boot, (uint64_t) st.st_ino));
        } else {
                /* Field 22 of /proc/PID/stat, after the parenthesised comm. */
                char path[64];
                _cleanup_free_ char *stat = NULL;
                unsigned long long start = 0;
                snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
                CHECK_OK(read_file_at(AT_FDCWD, path, 4096, &stat, NULL, NULL));
                const char *p = strrchr(stat, ')');
                CHECK(p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                                  &start) == 1);
                CHECK_OK(crash_id_from_start_time(id, boot, pid, start));
        }
        return strdup(id);
}

/* A crash on the host: its own pid and uid inside, our namespaces, no container; a crash id. */
TEST(record_says_where_a_host_crash_lives) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        e.peer.uid = e.peer.euid = (uint32_t) getuid();
        e.peer.gid = e.peer.egid = (uint32_t) getgid();
        store_one(&e, 16384);

        char number[32];
        snprintf(number, sizeof number, "%d", (int) e.sleeper);
        check_field(&e, 0, "COREDUMPD_NS_PID", number);
        snprintf(number, sizeof number, "%u", e.peer.uid);
        check_field(&e, 0, "COREDUMPD_NS_UID", number);
        snprintf(number, sizeof number, "%u", e.peer.gid);
        check_field(&e, 0, "COREDUMPD_NS_GID", number);
        _cleanup_free_ char *pidns = ns_id_text(e.sleeper, "pid"), *mntns = ns_id_text(e.sleeper, "mnt"),
                            *userns = ns_id_text(e.sleeper, "user");
        check_field(&e, 0, "COREDUMPD_PID_NS", pidns);
        check_field(&e, 0, "COREDUMPD_MNT_NS", mntns);
        check_field(&e, 0, "COREDUMPD_USER_NS", userns);
        /* Which of them are not the host's: PID 1's, where we may read those, else ours. */
        char own[32] = "";
        static const char *const kinds[] = { "pid", "mnt", "user" };
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                char path[64];
                struct stat st;
                snprintf(path, sizeof path, "/proc/1/ns/%s", kinds[i]);
                if (stat(path, &st) < 0) {
                        snprintf(path, sizeof path, "/proc/self/ns/%s", kinds[i]);
                        CHECK(stat(path, &st) == 0);
                }
                _cleanup_free_ char *mine = ns_id_text(e.sleeper, kinds[i]);
                if (strtoull(mine, NULL, 10) != (unsigned long long) st.st_ino)
                        snprintf(own + strlen(own), sizeof own - strlen(own), "%s%s", own[0] ? " " : "", kinds[i]);
        }
        check_field(&e, 0, "COREDUMPD_OWN_NAMESPACES", own[0] ? own : "none");

        /* Not in a container, unless this test itself runs in a cgroup that names one. */
        _cleanup_free_ char *cgroup_text = NULL, *cgroup = NULL, *kind = NULL, *name = NULL;
        CHECK_OK(read_file_at(AT_FDCWD, "/proc/self/cgroup", 65536, &cgroup_text, NULL, NULL));
        CHECK_OK(parse_proc_cgroup(cgroup_text, &cgroup));
        (void) cgroup_path_to_container(cgroup, SIZE_MAX, &kind, &name);
        check_field(&e, 0, "COREDUMPD_IN_CONTAINER", name ? "1" : "0");
        _cleanup_free_ char *message = record_capture_field(&e.records, 0, "MESSAGE");
        CHECK(message && (strstr(message, " in container ") != NULL) == (name != NULL));
        check_field(&e, 0, "COREDUMPD_CONTAINER", name);
        check_field(&e, 0, "COREDUMPD_CONTAINER_KIND", kind);
        check_field(&e, 0, "COREDUMP_CONTAINER_CMDLINE", NULL); /* our pid namespace: no manager */

        _cleanup_free_ char *crash_id = expected_crash_id(e.sleeper);
        check_field(&e, 0, "COREDUMPD_CRASH_ID", crash_id);
        /* ... and it is on the stored core. */
        _cleanup_free_ char *path = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        char value[CRASH_ID_MAX] = "";
        CHECK(path && getxattr(path, "user.coredumpd.crash_id", value, sizeof value - 1) > 0);
        CHECK_STR(value, crash_id);
        test_env_done(&e);
}

/* A crash in namespaces of its own, matched by MatchContainer=: kept (left to userspace), its
 * record has all; rejected, all that names it but what is read from a process's memory (its
 * command line, its container manager's), which is read only for a crash that is kept. */
static void namespaced_crash(const char *action, const char *result) {
        struct test_env e;
        struct ns_sleeper s;
        char policy[256];
        bool kept = strcmp(action, "reject") != 0;
        snprintf(policy, sizeof policy, "[Rule]\nName=containers\nMatchContainer=yes\nAction=%s\n%s", action,
                 kept ? "UserspaceDump=none\n" : "Wait=no\n");
        test_env_init(&e, policy, NULL);
        ns_sleeper_start(&s);
        e.peer.pid = s.pid;
        e.peer.uid = e.peer.euid = s.uid;
        e.peer.gid = e.peer.egid = s.gid;

        crash_without_core(&e, kept ? COREDUMP_USERSPACE | COREDUMP_WAIT : COREDUMP_REJECT);
        char number[32];
        snprintf(number, sizeof number, "%d", (int) s.pid);
        check_field(&e, 0, "COREDUMP_PID", number);
        check_field(&e, 0, "COREDUMPD_NS_PID", "1");
        snprintf(number, sizeof number, "%u", s.uid);
        check_field(&e, 0, "COREDUMP_UID", number);
        check_field(&e, 0, "COREDUMPD_NS_UID", "0");
        check_field(&e, 0, "COREDUMPD_NS_GID", "0");
        check_field(&e, 0, "COREDUMPD_OWN_NAMESPACES", "pid user");
        check_field(&e, 0, "COREDUMPD_IN_CONTAINER", "1");
        check_field(&e, 0, "COREDUMPD_RULE", "containers");
        _cleanup_free_ char *comm = record_capture_field(&e.records, 0, "COREDUMP_COMM");
        _cleanup_free_ char *exe = record_capture_field(&e.records, 0, "COREDUMP_EXE");
        _cleanup_free_ char *cmdline = record_capture_field(&e.records, 0, "COREDUMP_CMDLINE");
        CHECK(comm && exe && strstr(exe, "test-protocol"));
        /* The manager is the helper that made the pid namespace: a fork of this test. */
        _cleanup_free_ char *manager = record_capture_field(&e.records, 0, "COREDUMP_CONTAINER_CMDLINE");
        if (kept) {
                CHECK(cmdline && strstr(cmdline, "test-protocol"));
                /* Its command line is this test's own, as the record escapes it (run by name or
                 * all tests at once). */
                _cleanup_free_ char *own = NULL;
                size_t own_size = 0;
                CHECK_OK(read_file_at(AT_FDCWD, "/proc/self/cmdline", 1 << 16, &own, &own_size, NULL));
                for (size_t k = 0; k + 1 < own_size; k++)
                        if (own[k] == '\0')
                                own[k] = ' ';
                if (!manager || strcmp(manager, own) != 0)
                        test_fail(__FILE__, __LINE__, "the manager's command line is '%s', not this test's '%s'",
                                  manager ? manager : "(none)", own);
        } else
                CHECK(!cmdline && !manager);
        check_field(&e, 0, "COREDUMPD_RESULT", result);
        _cleanup_free_ char *pidns = ns_id_text(s.pid, "pid"), *userns = ns_id_text(s.pid, "user");
        check_field(&e, 0, "COREDUMPD_PID_NS", pidns);
        check_field(&e, 0, "COREDUMPD_USER_NS", userns);
        _cleanup_free_ char *crash_id = expected_crash_id(s.pid);
        check_field(&e, 0, "COREDUMPD_CRASH_ID", crash_id);
        ns_sleeper_stop(&s);
        test_env_done(&e);
}

/* The policy reads a rule's /proc files only once its conditions on the pidfd's facts hold, and
 * only those files: a rule for another uid reads nothing, MatchComm= reads comm alone, and the
 * record's identity for a rejected crash adds exe and cgroup but never the task's memory. */
TEST(policy_reads_only_what_its_rules_need) {
        struct test_env e;
        test_env_init(&e, "[Rule]\nName=other-user\nMatchUID=4242\nMatchExe=/x\nAction=reject\n"
                          "[Rule]\nName=by-comm\nMatchComm=*\nAction=reject\n", NULL);
        struct peer peer;
        CHECK_OK(fake_authenticate(-1, &peer, &e.peer));
        struct crash_context ctx;
        CHECK_OK(context_open(&peer, &e.host, NULL, "test", &ctx));
        CHECK_INT(ctx.parts, ==, 0);

        CHECK(!policy_rule_matches(&e.policy->rules[0], &ctx));
        CHECK_INT(ctx.parts, ==, 0);                    /* uid differs: no file read */
        CHECK(policy_rule_matches(&e.policy->rules[1], &ctx));
        CHECK_INT(ctx.parts, ==, CONTEXT_COMM);
        CHECK(ctx.comm && !ctx.exe);

        context_read(&ctx, CONTEXT_IDENTITY);
        CHECK(ctx.exe && ctx.cgroup && !ctx.cmdline);
        CHECK_INT(ctx.parts & CONTEXT_MEMORY, ==, 0);
        context_read(&ctx, CONTEXT_ALL);
        CHECK(ctx.cmdline && ctx.rlimit_known && ctx.at_secure >= 0);
        CHECK_INT(ctx.parts, ==, CONTEXT_ALL);
        context_done(&ctx);
        peer_done(&peer);
        test_env_done(&e);
}

/* The second crash from a cgroup is named from the daemon's table by the pidfd's cgroup id: the
 * same path, unit, slice and container, without reading /proc/<pid>/cgroup. */
TEST(second_crash_of_a_cgroup_reads_no_cgroup_file) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        struct peer peer;
        struct crash_context first, second;

        CHECK_OK(fake_authenticate(-1, &peer, &e.peer));
        CHECK(peer.info.mask & PIDFD_INFO_CGROUPID);    /* the test machines' kernels give it */
        CHECK_OK(context_open(&peer, &e.host, NULL, "test", &first));
        context_read(&first, CONTEXT_CGROUP);
        CHECK(first.cgroup && !first.cgroup_cached);
        CHECK_OK(context_open(&peer, &e.host, NULL, "test", &second));
        context_read(&second, CONTEXT_CGROUP);
        CHECK(second.cgroup && second.cgroup_cached);
        CHECK_STR(second.cgroup, first.cgroup);
        CHECK_STR(second.slice, first.slice);
        CHECK((second.unit == NULL) == (first.unit == NULL) && (!first.unit || strcmp(first.unit, second.unit) == 0));
        CHECK((second.container.name == NULL) == (first.container.name == NULL));
        CHECK_INT(second.container.delegated_to, ==, first.container.delegated_to);

        /* A pidfd without the id (an older kernel's): read from /proc every time. */
        struct crash_context third;
        peer.info.mask &= ~PIDFD_INFO_CGROUPID;
        CHECK_OK(context_open(&peer, &e.host, NULL, "test", &third));
        context_read(&third, CONTEXT_CGROUP);
        CHECK(third.cgroup && !third.cgroup_cached);
        CHECK_STR(third.cgroup, first.cgroup);
        context_done(&first);
        context_done(&second);
        context_done(&third);
        peer_done(&peer);
        test_env_done(&e);
}

TEST(record_and_policy_see_a_namespaced_crash) {
        namespaced_crash("userspace", "left-to-userspace");
        namespaced_crash("reject", "rejected");
}

/* A container root made (its user namespace's owner is 0) is a tenant of its own, never host root:
 * its crashes of a copy of a host program at the same place do not count for root's crash there.
 * The attack (issue 38): a systemd-nspawn -U tenant crashed a host binary until root's own crash of
 * it was a repeat, rejected. Here the container's task and root's twin (the same code at the same
 * place: one signature) crash in turn; root's is the first of its signature, kept. */
TEST(container_crashes_never_make_host_roots_repeats) {
        if (geteuid() != 0) {
                printf("SKIP: needs root to make a user namespace root owns\n");
                exit(77);
        }
        struct test_env e;
        struct ns_sleeper s[2];
        test_env_init(&e, "[Rule]\nName=repeater\nAction=userspace\nUserspaceDump=none\nRateLimitBurst=2\n"
                          "OnRepeat=reject\n", NULL);
        e.env.repeats = repeats_new(e.store->dir_fd);
        CHECK(e.env.repeats);
        volatile int twins = 2; /* not unrolled: one call site, the twins' stacks are alike */
        for (int i = 0; i < twins; i++)
                ns_sleeper_start_in(&s[i], i == 0);

        e.peer.pid = s[0].pid;
        e.peer.uid = e.peer.euid = s[0].uid;
        e.peer.gid = e.peer.egid = s[0].gid;
        for (int i = 0; i < 3; i++)
                crash_without_core(&e, i < 2 ? COREDUMP_USERSPACE | COREDUMP_WAIT : COREDUMP_REJECT);
        e.peer.pid = s[1].pid;
        e.peer.uid = e.peer.euid = e.peer.gid = e.peer.egid = 0;
        crash_without_core(&e, COREDUMP_USERSPACE | COREDUMP_WAIT);

        _cleanup_free_ char *sig0 = record_capture_field(&e.records, 0, "COREDUMPD_SIGNATURE");
        _cleanup_free_ char *sig3 = record_capture_field(&e.records, 3, "COREDUMPD_SIGNATURE");
        CHECK(sig0 && strlen(sig0) == 16);
        if (!sig3 || strcmp(sig3, sig0) != 0) {
                _cleanup_free_ char *bt0 = record_capture_field(&e.records, 0, "COREDUMPD_BACKTRACE");
                _cleanup_free_ char *bt3 = record_capture_field(&e.records, 3, "COREDUMPD_BACKTRACE");
                test_fail(__FILE__, __LINE__, "the twins sign apart: %s\n%s\nand %s\n%s", sig0, bt0 ? bt0 : "",
                          sig3 ? sig3 : "(none)", bt3 ? bt3 : "");
        }
        check_field(&e, 2, "COREDUMPD_REPEAT", "3");            /* the container's own repeat */
        check_field(&e, 3, "COREDUMPD_REPEAT", "1");            /* root's: the first */
        check_field(&e, 3, "COREDUMPD_RESULT", "left-to-userspace");
        /* The record says whom it counted against: the container's owner is root, its tenant the
         * user namespace; root's crash is root's. */
        _cleanup_free_ char *userns = ns_id_text(s[0].pid, "user"), *tenant = NULL;
        CHECK(asprintf(&tenant, "0:%s", userns) > 0);
        check_field(&e, 0, "COREDUMPD_OWNER_UID", "0");
        check_field(&e, 0, "COREDUMPD_TENANT", tenant);
        check_field(&e, 3, "COREDUMPD_OWNER_UID", "0");
        check_field(&e, 3, "COREDUMPD_TENANT", "0");

        for (int i = 0; i < 2; i++)
                ns_sleeper_stop(&s[i]);
        e.env.repeats = repeats_free(e.env.repeats);
        test_env_done(&e);
}

/* A /proc that is not procfs, or not its root, is not read: the crash is rejected at once and
 * recorded as failed, saying why. */
static void check_untrusted_proc(const char *proc_path, const char *reason) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        host_view_close(&e.host);
        host_view_open(proc_path ? proc_path : e.dir, &e.host);

        crash_without_core(&e, COREDUMP_REJECT);
        check_field(&e, 0, "COREDUMPD_RESULT", "failed");
        check_field(&e, 0, "COREDUMPD_RULE", "context-unavailable");
        _cleanup_free_ char *error = record_capture_field(&e.records, 0, "COREDUMPD_ERROR");
        CHECK(error && strstr(error, reason));
        CHECK(log_capture_contains(&e.logs, reason));
        check_field(&e, 0, "COREDUMP_COMM", NULL); /* nothing read */
        check_field(&e, 0, "COREDUMPD_IN_CONTAINER", NULL);
        /* The crash id needs no /proc where pidfds live on pidfs. */
        struct statfs sfs;
        _cleanup_close_ int pidfd = test_pidfd_of(e.sleeper);
        CHECK(pidfd >= 0 && fstatfs(pidfd, &sfs) == 0);
        _cleanup_free_ char *crash_id = (uint64_t) sfs.f_type == PID_FS_MAGIC ? expected_crash_id(e.sleeper) : NULL;
        check_field(&e, 0, "COREDUMPD_CRASH_ID", crash_id);
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

TEST(proc_not_procfs_refused) { check_untrusted_proc(NULL, "is not procfs"); }
TEST(proc_not_procfs_root_refused) { check_untrusted_proc("/proc/self", "not the root of a procfs mount"); }

TEST(real_authenticator_refuses_userspace_peer) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        e.env.authenticate = authenticate_peer;

        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s/sock", e.dir);
        _cleanup_close_ int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(lfd >= 0);
        CHECK(bind(lfd, (struct sockaddr *) &sa, sizeof sa) == 0);
        CHECK(listen(lfd, 4) == 0);

        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                struct coredump_ack ack;
                if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                        _exit(2);
                fk_send_request(fd, 16, 16, FULL_MASK);
                _exit(fk_read_ack(fd, &ack, TIMEOUT_MS) == 0 ? 0 : 1); /* refused: EOF, no ack */
        }

        struct connection conn;
        int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        CHECK(cfd >= 0);
        connection_init(&conn, cfd);
        crash_handle(&e.env, &conn);
        CHECK_INT(conn.fd, ==, -1);
        connection_destroy(&conn);

        int status;
        CHECK(waitpid(child, &status, 0) == child);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK_INT(record_capture_count(&e.records), ==, 0);
        _cleanup_free_ char *needle = NULL;
        CHECK(asprintf(&needle, "Refusing connection from pid %d (uid 0): not a coredumping task", (int) child) > 0);
        CHECK(log_capture_contains(&e.logs, needle));
        test_env_done(&e);
}

/* A peer reaped before its connection is accepted (killed while it waited in the backlog) is still
 * told apart: its pidfd's exit record says whether it dumped. A stranger is refused as one, by pid
 * (from SO_PEERCRED), not for a failed query. */
TEST(real_authenticator_reaped_peer_still_checked) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        e.env.authenticate = authenticate_peer;

        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s/sock", e.dir);
        _cleanup_close_ int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(lfd >= 0);
        CHECK(bind(lfd, (struct sockaddr *) &sa, sizeof sa) == 0);
        CHECK(listen(lfd, 4) == 0);

        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                        _exit(2);
                fk_send_request(fd, 16, 16, FULL_MASK);
                _exit(0);
        }
        int status;
        CHECK(waitpid(child, &status, 0) == child);     /* reaped before the accept */
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

        struct connection conn;
        int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        CHECK(cfd >= 0);
        {
                int pidfd = -1;
                socklen_t len = sizeof pidfd;
                struct pidfd_info info;
                if (getsockopt(cfd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0 ||
                    pidfd_query_info(pidfd, PIDFD_INFO_EXIT, &info) < 0) {
                        printf("SKIP: this kernel keeps no exit record for a reaped pidfd (PIDFD_INFO_EXIT, 6.15)\n");
                        exit(77);
                }
                close(pidfd);
        }
        connection_init(&conn, cfd);
        crash_handle(&e.env, &conn);
        connection_destroy(&conn);
        CHECK_INT(record_capture_count(&e.records), ==, 0);
        CHECK(!log_capture_contains(&e.logs, "Cannot query the peer's pidfd"));
        _cleanup_free_ char *needle = NULL;
        CHECK(asprintf(&needle, "Refusing connection from pid %d (uid 0): not a coredumping task", (int) child) > 0);
        CHECK(log_capture_contains(&e.logs, needle));
        test_env_done(&e);
}

/* Runs a shell command, returns its stdout (NULL if it failed). */
static char *run_capture(const char *command) {
        char *out;

        if (command_run(command, &out) != 0) {
                fprintf(stderr, "'%s' failed:\n%s\n", command, out);
                free(out);
                return NULL;
        }
        return out;
}

/* Bookworm's coredumpctl reads our record: the entry goes through journal export format into a
 * journal file (systemd-journal-remote), then coredumpctl --file lists and describes it. coredumpctl
 * is $COREDUMPCTL, /usr/bin/coredumpctl, or the copy scripts/install-deps unpacks (never installs:
 * systemd-coredump's postinst would set the host's core_pattern) under $COREDUMPD_CACHE. Skipped
 * (77) where those tools are missing. */
TEST(record_read_by_coredumpctl) {
        char private_copy[PATH_MAX];
        const char *coredumpctl = getenv("COREDUMPCTL");
        if (!coredumpctl && access("/usr/bin/coredumpctl", X_OK) == 0)
                coredumpctl = "/usr/bin/coredumpctl";
        if (!coredumpctl) {
                snprintf(private_copy, sizeof private_copy, "%s/coredumpctl/usr/bin/coredumpctl",
                         getenv("COREDUMPD_CACHE") ?: "/var/cache/coredumpd");
                coredumpctl = private_copy;
        }
        if (access("/lib/systemd/systemd-journal-remote", X_OK) < 0 || access(coredumpctl, X_OK) < 0) {
                printf("skipping: needs systemd-journal-remote and coredumpctl (or $COREDUMPCTL)\n");
                exit(77);
        }
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        store_one(&e, 65536);
        CHECK_INT(record_capture_count(&e.records), ==, 1);

        _cleanup_free_ char *export = NULL, *journal = NULL;
        CHECK(asprintf(&export, "%s/entry.export", e.dir) > 0 && asprintf(&journal, "%s/entry.journal", e.dir) > 0);
        FILE *f = fopen(export, "we");
        CHECK(f);
        struct timespec rt, mono;
        clock_gettime(CLOCK_REALTIME, &rt);
        clock_gettime(CLOCK_MONOTONIC, &mono);
        char boot_id[33] = "";
        _cleanup_free_ char *stamp = record_capture_field(&e.records, 0, "COREDUMPD_BOOT_ID");
        snprintf(boot_id, sizeof boot_id, "%s", stamp);
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=%lld\n_BOOT_ID=%s\n",
                (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000, (long long) mono.tv_sec * 1000000 + mono.tv_nsec / 1000,
                boot_id);
        for (size_t i = 0; i < e.records.records[0].n; i++) {
                const char *field = e.records.records[0].v[i].iov_base;
                const char *eq = strchr(field, '=');
                if (!eq || !strchr(eq, '\n')) {
                        fprintf(f, "%s\n", field);
                        continue;
                }
                /* A value with newlines (MESSAGE with its stack traces) in the export format's binary
                 * form: the name, a newline, the size as little-endian 64 bits, the data. */
                uint64_t size = htole64((uint64_t) strlen(eq + 1));
                fprintf(f, "%.*s\n", (int) (eq - field), field);
                fwrite(&size, sizeof size, 1, f);
                fprintf(f, "%s\n", eq + 1);
        }
        fputc('\n', f);
        fclose(f);

        _cleanup_free_ char *convert = NULL, *list_cmd = NULL, *info_cmd = NULL;
        CHECK(asprintf(&convert, "/lib/systemd/systemd-journal-remote --output=%s %s 2>&1", journal, export) > 0);
        _cleanup_free_ char *converted = run_capture(convert);
        CHECK(converted);
        CHECK(asprintf(&list_cmd, "%s --no-pager --no-legend --file=%s list 2>&1", coredumpctl, journal) > 0);
        _cleanup_free_ char *list = run_capture(list_cmd);
        CHECK(list);
        fprintf(stderr, "coredumpctl list:\n%s", list);
        _cleanup_free_ char *pid = NULL;
        CHECK(asprintf(&pid, " %d ", (int) e.sleeper) > 0);
        CHECK(strstr(list, pid) && strstr(list, "SIGSEGV") && strstr(list, "present"));

        CHECK(asprintf(&info_cmd, "%s --no-pager --file=%s info %d 2>&1", coredumpctl, journal, (int) e.sleeper) > 0);
        _cleanup_free_ char *info = run_capture(info_cmd);
        CHECK(info);
        fprintf(stderr, "coredumpctl info:\n%s", info);
        _cleanup_free_ char *filename = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(strstr(info, "Signal: 11 (SEGV)"));
        CHECK(strstr(info, "Command Line: "));
        CHECK(strstr(info, filename));
        test_env_done(&e);
}

static size_t count_open_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        CHECK(d);
        size_t n = 0;
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

/* One crash of each kind, over and over: fds and heap must not grow. */
TEST(crash_loop_1000_no_fd_or_memory_growth) {
        struct test_env e;
        test_env_init(&e, NULL, "MaxUse=256K\n");
        static const char *const policies[] = {
                "[Rule]\nAction=kernel\n", "[Rule]\nAction=userspace\n", "[Rule]\nAction=reject\n",
        };
        struct policy *by_action[3];
        for (int i = 0; i < 3; i++) {
                _cleanup_fclose_ FILE *f = fmemopen((void *) policies[i], strlen(policies[i]), "r");
                by_action[i] = policy_new();
                CHECK_OK(policy_parse_file(by_action[i], f, "mem.conf"));
        }
        _cleanup_free_ uint8_t *core = fake_core_new(8192, 8192);
        log_set_max_priority(LOG_WARNING); /* keep the output small */

        size_t fds_before = 0, heap_before = 0;
        for (int i = 0; i < 1000; i++) {
                if (i == 20) { /* after warm-up: caches, thread stacks */
                        fds_before = count_open_fds();
                        heap_before = mallinfo2().uordblks;
                }
                int kind = i % 4;
                policy_unref(e.policy);
                e.policy = policy_ref(by_action[kind == 3 ? 0 : kind]);

                struct connection_run run;
                connection_run_start(&run, &e.env);
                (void) exchange(run.kernel_fd, 16, 16, FULL_MASK,
                                kind == 3 ? COREDUMP_MARK_CONFLICTING : COREDUMP_MARK_REQACK);
                if (kind == 0) {
                        CHECK_INT(fk_stream(run.kernel_fd, core, 8192), ==, 8192);
                        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
                }
                CHECK(fk_wait_eof(run.kernel_fd, TIMEOUT_MS) >= 0);
                connection_run_join(&run);
        }
        size_t fds_after = count_open_fds();
        size_t heap_after = mallinfo2().uordblks;

        CHECK_INT(record_capture_count(&e.records), ==, 1000);
        CHECK_INT(fds_after, ==, fds_before);
        /* The captured records themselves grow; allow for them but nothing per-crash beyond that. */
        size_t record_bytes = 0;
        for (size_t i = 20; i < e.records.n; i++)
                for (size_t j = 0; j < e.records.records[i].n; j++)
                        record_bytes += e.records.records[i].v[j].iov_len + 64;
        CHECK_INT(heap_after, <=, heap_before + record_bytes + 256 * 1024);
        for (int i = 0; i < 3; i++)
                policy_unref(by_action[i]);
        test_env_done(&e);
}

static const struct test_case tests[] = {
        TEST_ENTRY(kernel_zstd_roundtrip),
        TEST_ENTRY(kernel_plain_with_holes_roundtrip),
        TEST_ENTRY(kernel_zstd_interrupted_keeps_plain),
        TEST_ENTRY(core_not_synced_not_kept),
        TEST_ENTRY(userspace_action_left_to_userspace),
        TEST_ENTRY(userspace_action_writes_own_core),
        TEST_ENTRY(reject_action_writes_nothing),
        TEST_ENTRY(reject_skips_unwinding_unless_a_rule_needs_the_signature),
        TEST_ENTRY(rlimit_core_zero_rejected_by_default),
        TEST_ENTRY(mark_minsize_logged_and_recorded),
        TEST_ENTRY(mark_maxsize_logged_and_recorded),
        TEST_ENTRY(mark_unsupported_logged_and_recorded),
        TEST_ENTRY(mark_conflicting_logged_and_recorded),
        TEST_ENTRY(mark_unknown_logged_and_recorded),
        TEST_ENTRY(request_size_16),
        TEST_ENTRY(request_size_24_extra_discarded),
        TEST_ENTRY(request_size_4096_extra_discarded),
        TEST_ENTRY(request_larger_ack_size_still_16),
        TEST_ENTRY(request_size_8_lacks_mask_refused),
        TEST_ENTRY(request_size_huge_refused),
        TEST_ENTRY(request_tiny_ack_size_refused),
        TEST_ENTRY(request_lacking_needed_bits_refused),
        TEST_ENTRY(request_unknown_bits_never_echoed),
        TEST_ENTRY(request_without_wait_gets_no_wait),
        TEST_ENTRY(peer_vanishing_mid_stream_leaves_no_file),
        TEST_ENTRY(size_cap_truncates_and_says_so),
        TEST_ENTRY(vacuum_keeps_max_use),
        TEST_ENTRY(vacuum_fair_between_users),
        TEST_ENTRY(vacuum_keeps_per_signature),
        TEST_ENTRY(remove_core_checks_whose_it_is),
        TEST_ENTRY(vacuum_max_age),
        TEST_ENTRY(vacuum_lists_the_store_only_when_needed),
        TEST_ENTRY(rule_max_age_kept_on_the_core),
        TEST_ENTRY(unwinders_busy_crash_goes_on_without_backtrace),
        TEST_ENTRY(compression_waits_for_the_task_exit),
        TEST_ENTRY(vacuum_removes_kept_files_with_their_core),
        TEST_ENTRY(saved_file_copied_bounded_never_replacing),
        TEST_ENTRY(crash_with_its_own_root_lists_its_files),
        TEST_ENTRY(container_files_kept_by_the_cell_not_the_daemon),
        TEST_ENTRY(container_file_that_never_answers_does_not_hold_the_thread),
        TEST_ENTRY(container_file_copy_that_stalls_is_not_kept),
        TEST_ENTRY(container_file_copy_that_trickles_is_cut_in_all),
        TEST_ENTRY(repeats_rejected_before_the_dump),
        TEST_ENTRY(hooks_first_crash_of_a_new_signature_once),
        TEST_ENTRY(hooks_notify_every_and_none),
        TEST_ENTRY(hooks_first_without_rate_limit_every_crash),
        TEST_ENTRY(journal_core_with_the_first_crash_of_a_signature),
        TEST_ENTRY(journal_core_none_when_off_or_not_counted),
        TEST_ENTRY(journal_core_too_large_says_why),
        TEST_ENTRY(journal_core_withheld_for_root_only_cores),
        TEST_ENTRY(journal_core_not_in_the_system_journal_for_root_and_system_users),
        TEST_ENTRY(journal_core_in_the_system_journal_when_opted_in),
        TEST_ENTRY(journal_core_in_a_regular_users_own_copy),
        TEST_ENTRY(deadline_closes_stalled_connection),
        TEST_ENTRY(own_crash_rejected_at_once),
        TEST_ENTRY(vanished_process_cannot_be_verified),
        TEST_ENTRY(acl_granted_to_dumpable_user),
        TEST_ENTRY(acl_withheld_for_setuid),
        TEST_ENTRY(acl_withheld_when_dumped_as_root),
        TEST_ENTRY(hostile_comm_escaped_in_record_and_file_name),
        TEST_ENTRY(hostile_cmdline_escaped),
        TEST_ENTRY(kept_crash_records_proc_status_maps_limits),
        TEST_ENTRY(record_says_where_a_host_crash_lives),
        TEST_ENTRY(policy_reads_only_what_its_rules_need),
        TEST_ENTRY(second_crash_of_a_cgroup_reads_no_cgroup_file),
        TEST_ENTRY(container_crashes_never_make_host_roots_repeats),
        TEST_ENTRY(record_and_policy_see_a_namespaced_crash),
        TEST_ENTRY(proc_not_procfs_refused),
        TEST_ENTRY(proc_not_procfs_root_refused),
        TEST_ENTRY(real_authenticator_refuses_userspace_peer),
        TEST_ENTRY(real_authenticator_reaped_peer_still_checked),
        TEST_ENTRY(record_read_by_coredumpctl),
        TEST_ENTRY(crash_loop_1000_no_fd_or_memory_growth),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
