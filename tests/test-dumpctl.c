/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * dumpctl against dumps the daemon's own code stored: a temporary store written through the
 * connection handler (so the files carry the real user.coredump.* attributes and ACL), read back
 * journal-less from the attributes, and through a journal directory made from the captured
 * records with systemd-journal-remote. Exit statuses are part of the interface (dumpctl(1)).
 */

#include <fcntl.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "harness.h"
#include "shared/cleanup.h"

#define FULL_MASK (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT | COREDUMP_WAIT)
#define TIMEOUT_MS 10000
#define JOURNAL_REMOTE "/lib/systemd/systemd-journal-remote"

static const char *dumpctl(void) {
        const char *p = getenv("DUMPCTL_BINARY");
        CHECK(p);
        return p;
}

/* Runs a shell command; returns its exit status and its stdout in *ret_out (stderr goes to ours). */
static int run(char **ret_out, const char *format, ...) __attribute__((format(printf, 2, 3)));
static int run(char **ret_out, const char *format, ...) {
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

/* One crash through the handler; returns the core the "kernel" sent (size bytes). */
static uint8_t *store_crash(struct test_env *e, size_t size, bool expect_core) {
        struct connection_run run;
        struct coredump_ack ack;
        uint8_t *core = fake_core_new(size, size);

        connection_run_start(&run, &e->env);
        fk_send_request(run.kernel_fd, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(run.kernel_fd, &ack, TIMEOUT_MS), ==, sizeof ack);
        fk_send_mark(run.kernel_fd, COREDUMP_MARK_REQACK);
        if (expect_core)
                CHECK_INT(fk_stream(run.kernel_fd, core, size), ==, size);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);
        return core;
}

static char *read_whole(const char *path, size_t *ret_size) {
        FILE *f = fopen(path, "re");
        CHECK(f);
        char *data = NULL;
        size_t size = 0;
        FILE *m = open_memstream(&data, &size);
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
                fwrite(buf, 1, n, m);
        fclose(m);
        fclose(f);
        *ret_size = size;
        return data;
}

static size_t count_lines(const char *s) {
        size_t n = 0;
        for (; s && *s; s++)
                n += *s == '\n';
        return n;
}

TEST(store_fallback_list_info_dump) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        const size_t size = (256 << 10) + 77;
        _cleanup_free_ uint8_t *core = store_crash(&e, size, true);
        _cleanup_free_ char *json = NULL, *table = NULL, *info = NULL, *pidmatch = NULL, *out = NULL;

        CHECK_INT(run(&json, "%s --no-journal --store=%s list --json", dumpctl(), e.store_dir), ==, 0);
        CHECK_INT(count_lines(json), ==, 1);
        CHECK(asprintf(&pidmatch, "\"pid\":%d,", (int) e.sleeper) > 0);
        CHECK(strstr(json, pidmatch));
        CHECK(strstr(json, "\"action\":\"kernel\""));
        CHECK(strstr(json, "\"rule\":\"builtin:keep\"")); /* from user.coredumpd.rule */
        CHECK(strstr(json, "\"comm\":\"crasher\""));
        CHECK(strstr(json, "\"signal\":11"));
        CHECK(strstr(json, "\"present\":\"present\""));
        CHECK(strstr(json, "\"source\":\"store\""));

        CHECK_INT(run(&table, "%s --no-journal --store=%s list", dumpctl(), e.store_dir), ==, 0);
        CHECK(strstr(table, "TIME") && strstr(table, "PRESENT") && strstr(table, "SEGV") && strstr(table, "builtin:keep"));

        CHECK_INT(run(&info, "%s --no-journal --store=%s --policy-dir=%s info %d", dumpctl(), e.store_dir,
                      e.policy_dir, (int) e.sleeper), ==, 0);
        CHECK(strstr(info, "Signal: 11 (SIGSEGV)"));
        CHECK(strstr(info, "Rule: builtin:keep"));
        CHECK(strstr(info, "Rule Source: built-in"));
        CHECK(strstr(info, "Source: store"));

        /* dump to a file and through a pipe: the very bytes the kernel sent */
        CHECK(asprintf(&out, "%s/out.core", e.dir) > 0);
        CHECK_INT(run(NULL, "%s --no-journal --store=%s -o %s dump crasher", dumpctl(), e.store_dir, out), ==, 0);
        size_t got_size;
        _cleanup_free_ char *got = read_whole(out, &got_size);
        CHECK_INT(got_size, ==, size);
        CHECK(memcmp(got, core, size) == 0);
        CHECK_INT(run(NULL, "%s --no-journal --store=%s dump %d | cmp - %s", dumpctl(), e.store_dir, (int) e.sleeper,
                      out), ==, 0);

        /* no such crash */
        CHECK_INT(run(NULL, "%s --no-journal --store=%s info 999999999", dumpctl(), e.store_dir), ==, 3);
        CHECK_INT(run(NULL, "%s --no-journal --store=%s list --json nosuchcomm", dumpctl(), e.store_dir), ==, 3);
        test_env_done(&e);
}

TEST(store_fallback_without_xattrs_uses_the_name) {
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\n");
        _cleanup_free_ uint8_t *core = store_crash(&e, 65536, true);
        char **names = NULL;
        CHECK_INT(test_env_count_cores(&e, &names), ==, 1);
        _cleanup_free_ char *json = NULL, *path = NULL, *pidmatch = NULL;
        CHECK(asprintf(&path, "%s/%s", e.store_dir, names[0]) > 0);
        CHECK_INT(run(NULL, "setfattr -x user.coredump.pid %s && setfattr -x user.coredumpd.action %s", path, path), ==, 0);

        CHECK_INT(run(&json, "%s --no-journal --store=%s list --json", dumpctl(), e.store_dir), ==, 0);
        CHECK(asprintf(&pidmatch, "\"pid\":%d,", (int) e.sleeper) > 0);
        CHECK(strstr(json, pidmatch) && strstr(json, "\"comm\":\"crasher\"") && strstr(json, "\"uid\":0,"));
        CHECK(strstr(json, "\"action\":\"kernel\""));
        free(names[0]);
        free(names);
        test_env_done(&e);
}

/* The captured records as a journal file in dir (journal export format → systemd-journal-remote). */
static void write_journal(struct record_capture *records, const char *dir) {
        _cleanup_free_ char *export = NULL, *journal = NULL;
        CHECK(asprintf(&export, "%s/entries.export", dir) > 0 && asprintf(&journal, "%s/system.journal", dir) > 0);
        FILE *f = fopen(export, "we");
        CHECK(f);
        struct timespec rt, mono;
        clock_gettime(CLOCK_REALTIME, &rt);
        clock_gettime(CLOCK_MONOTONIC, &mono);
        for (size_t i = 0; i < records->n; i++) {
                _cleanup_free_ char *boot = record_capture_field(records, i, "COREDUMPD_BOOT_ID");
                fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=%lld\n_BOOT_ID=%s\n_UID=0\n",
                        (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000 + (long long) i,
                        (long long) mono.tv_sec * 1000000 + mono.tv_nsec / 1000 + (long long) i, boot);
                for (size_t k = 0; k < records->records[i].n; k++) {
                        const char *e = records->records[i].v[k].iov_base;
                        const char *eq = strchr(e, '=');
                        if (!strchr(e, '\n')) {
                                fprintf(f, "%s\n", e);
                                continue;
                        }
                        /* A value spanning lines: the export format's binary form. */
                        uint64_t n = strlen(eq + 1);
                        fprintf(f, "%.*s\n", (int) (eq - e), e);
                        fwrite(&n, sizeof n, 1, f); /* little endian, as the machines we run on */
                        fprintf(f, "%s\n", eq + 1);
                }
                fputc('\n', f);
        }
        /* A forged entry from an ordinary user must not be listed. */
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=%lld\n_BOOT_ID=%s\n_UID=1000\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=424242\n"
                   "COREDUMP_FILENAME=/etc/shadow\n\n",
                (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000 + 100,
                (long long) mono.tv_sec * 1000000 + mono.tv_nsec / 1000 + 100, "0123456789abcdef0123456789abcdef");
        fclose(f);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", journal, export), ==, 0);
}

TEST(journal_directory_list_info_and_errors) {
        if (access(JOURNAL_REMOTE, X_OK) < 0) {
                printf("skipping: needs " JOURNAL_REMOTE "\n");
                exit(77);
        }
        struct test_env e, rej;
        test_env_init(&e, NULL, NULL);
        test_env_init(&rej, "[Rule]\nName=no-cores\nAction=reject\nWait=no\n", NULL);
        _cleanup_free_ uint8_t *core = store_crash(&e, 65536, true);
        _cleanup_free_ uint8_t *core2 = store_crash(&rej, 65536, false);
        CHECK_INT(record_capture_count(&rej.records), ==, 1);
        /* Both crashes in one journal. */
        struct record_capture all = { .records = NULL };
        struct fields both[2] = { e.records.records[0], rej.records.records[0] };
        all.records = both;
        all.n = 2;
        _cleanup_free_ char *jdir = NULL;
        CHECK(asprintf(&jdir, "%s/journal", e.dir) > 0 && mkdir(jdir, 0755) == 0);
        write_journal(&all, jdir);

        _cleanup_free_ char *json = NULL, *one = NULL, *info = NULL, *filename = NULL, *stored_pid = NULL,
                            *rej_pid = NULL;
        CHECK_INT(run(&json, "%s -D %s --store=%s list --json", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK_INT(count_lines(json), ==, 2); /* not the forged one, not the file twice */
        CHECK(!strstr(json, "424242"));
        CHECK(asprintf(&stored_pid, "\"pid\":%d,", (int) e.sleeper) > 0);
        CHECK(asprintf(&rej_pid, "\"pid\":%d,", (int) rej.sleeper) > 0);
        CHECK(strstr(json, stored_pid) && strstr(json, rej_pid));
        CHECK(strstr(json, "\"action\":\"reject\",\"rule\":\"no-cores\",\"result\":\"rejected\""));
        CHECK(strstr(json, "\"present\":\"none\",\"source\":\"journal\""));
        CHECK(strstr(json, "\"present\":\"present\",\"source\":\"journal\""));

        /* -r reverses; the matches select */
        CHECK_INT(run(&one, "%s -D %s --store=%s list --json COREDUMPD_ACTION=reject", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK_INT(count_lines(one), ==, 1);
        CHECK(strstr(one, rej_pid));
        free(one);
        CHECK_INT(run(&one, "%s -D %s --store=%s -r --no-legend list", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK_INT(count_lines(one), ==, 2);
        free(one);
        CHECK_INT(run(&one, "%s -D %s --store=%s --since=-1h --until=now list --json", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK_INT(count_lines(one), ==, 2);
        free(one);
        CHECK_INT(run(&one, "%s -D %s --store=%s --until=@1000 list --json", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK_INT(count_lines(one), ==, 0);

        CHECK_INT(run(&info, "%s -D %s --store=%s --policy-dir=%s info %d", dumpctl(), jdir, e.store_dir,
                      rej.policy_dir, (int) rej.sleeper), ==, 0);
        CHECK(strstr(info, "Action: reject") && strstr(info, "Rule: no-cores") && strstr(info, "Storage: none"));
        CHECK(strstr(info, "Rule Source: ") && strstr(info, "50-test.conf:1"));

        /* a rejected crash has no core: 4; a vacuumed one: 4; no such crash: 3 */
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o /dev/null dump %d", dumpctl(), jdir, e.store_dir, (int) rej.sleeper), ==, 4);
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o /dev/null dump %d", dumpctl(), jdir, e.store_dir, (int) e.sleeper), ==, 0);
        filename = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(unlink(filename) == 0);
        free(json);
        CHECK_INT(run(&json, "%s -D %s --store=%s list --json %d", dumpctl(), jdir, e.store_dir, (int) e.sleeper), ==, 0);
        CHECK(strstr(json, "\"present\":\"missing\""));
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o /dev/null dump %d", dumpctl(), jdir, e.store_dir, (int) e.sleeper), ==, 4);
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o /dev/null dump 999999999", dumpctl(), jdir, e.store_dir), ==, 3);

        test_env_done(&rej);
        test_env_done(&e);
}

TEST(unprivileged_user_sees_and_fetches_only_own) {
        if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) < 0) {
                printf("skipping: needs root and setpriv\n");
                exit(77);
        }
        struct test_env mine, root;
        test_env_init(&mine, NULL, NULL);
        test_env_init(&root, NULL, NULL);
        /* The store directory as installed: traversable, not listable by others. */
        CHECK(chmod(mine.dir, 0755) == 0 && chmod(mine.store_dir, 0751) == 0);
        mine.peer.uid = mine.peer.euid = 65534;
        mine.peer.gid = mine.peer.egid = 65534;
        _cleanup_free_ uint8_t *c1 = store_crash(&mine, 65536, true);
        _cleanup_free_ uint8_t *c2 = store_crash(&root, 65536, true);
        struct record_capture all = {};
        struct fields both[2] = { mine.records.records[0], root.records.records[0] };
        all.records = both;
        all.n = 2;
        _cleanup_free_ char *jdir = NULL, *json = NULL, *out = NULL, *mine_pid = NULL;
        CHECK(asprintf(&jdir, "%s/journal", mine.dir) > 0 && mkdir(jdir, 0755) == 0);
        if (access(JOURNAL_REMOTE, X_OK) < 0) {
                printf("skipping: needs " JOURNAL_REMOTE "\n");
                exit(77);
        }
        write_journal(&all, jdir);
        /* A user who may read the system journal (systemd-journal group): dumpctl filters by uid. */
        _cleanup_free_ char *jfile = NULL;
        CHECK(asprintf(&jfile, "%s/system.journal", jdir) > 0 && chmod(jfile, 0644) == 0);
        /* Root's dump is in this store too, as a 0640 root file without an ACL for nobody. */
        _cleanup_free_ char *root_file = record_capture_field(&root.records, 0, "COREDUMP_FILENAME");
        const char *base = strrchr(root_file, '/') + 1;
        CHECK_INT(run(NULL, "cp -a %s %s/%s", root_file, mine.store_dir, base), ==, 0);

#define AS_NOBODY "setpriv --reuid=65534 --regid=65534 --clear-groups "
        CHECK_INT(run(&json, AS_NOBODY "%s -D %s --store=%s list --json", dumpctl(), jdir, mine.store_dir), ==, 0);
        CHECK_INT(count_lines(json), ==, 1);
        CHECK(asprintf(&mine_pid, "\"pid\":%d,", (int) mine.sleeper) > 0);
        CHECK(strstr(json, mine_pid) && strstr(json, "\"uid\":65534,") && strstr(json, "\"present\":\"present\""));

        CHECK(asprintf(&out, "%s/mine.core", mine.dir) > 0);
        CHECK(chmod(mine.dir, 0777) == 0);
        CHECK_INT(run(NULL, AS_NOBODY "%s -D %s --store=%s -o %s dump %d", dumpctl(), jdir, mine.store_dir, out,
                      (int) mine.sleeper), ==, 0);
        CHECK_INT(run(NULL, AS_NOBODY "%s -D %s --store=%s -o %s dump %d", dumpctl(), jdir, mine.store_dir, out,
                      (int) root.sleeper), ==, 5);
        CHECK_INT(run(NULL, AS_NOBODY "%s -D %s --store=%s info %d", dumpctl(), jdir, mine.store_dir,
                      (int) root.sleeper), ==, 5);
        CHECK_INT(run(NULL, AS_NOBODY "%s --store=%s vacuum", dumpctl(), mine.store_dir), ==, 5);
        test_env_done(&root);
        test_env_done(&mine);
}

TEST(vacuum_applies_max_use_now) {
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\n");
        for (int i = 0; i < 3; i++) {
                free(store_crash(&e, 128 * 1024, true));
                usleep(10000);
        }
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 3);
        _cleanup_free_ char *out = NULL;
        CHECK_OK(write_text_file(e.dir, "small.conf", "[Coredump]\nMaxUse=1\nKeepFree=0\n"));
        CHECK_INT(run(&out, "%s --config=%s/small.conf --store=%s vacuum", dumpctl(), e.dir, e.store_dir), ==, 0);
        CHECK(strstr(out, "Removed 3 dumps."));
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

TEST(policy_is_check_policy) {
        struct test_env e;
        test_env_init(&e, "[Rule]\nName=sshd\nMatchExe=/usr/sbin/sshd\nAction=reject\n", NULL);
        const char *coredumpd = getenv("COREDUMPD_BINARY");
        CHECK(coredumpd);
        _cleanup_free_ char *a = NULL, *b = NULL;
        CHECK_INT(run(&a, "%s --policy-dir=%s policy", dumpctl(), e.policy_dir), ==, 0);
        CHECK_INT(run(&b, "%s --config=/dev/null --policy-dir=%s --check-policy", coredumpd, e.policy_dir), ==, 0);
        CHECK_STR(a, b);
        CHECK(strstr(a, "Name=sshd"));
        CHECK_OK(write_text_file(e.policy_dir, "60-bad.conf", "[Rule]\nBogus=1\n"));
        CHECK_INT(run(NULL, "%s --policy-dir=%s policy", dumpctl(), e.policy_dir), ==, 1);
        test_env_done(&e);
}

TEST(usage_and_version) {
        _cleanup_free_ char *v = NULL, *h = NULL;
        CHECK_INT(run(&v, "%s --version", dumpctl()), ==, 0);
        CHECK(strncmp(v, "dumpctl (coredumpd) ", 20) == 0);
        CHECK_INT(run(&h, "%s --help", dumpctl()), ==, 0);
        CHECK(strstr(h, "Exit status"));
        CHECK_INT(run(NULL, "%s frobnicate", dumpctl()), ==, 2);
        CHECK_INT(run(NULL, "%s --no-such-option", dumpctl()), ==, 2);
        CHECK_INT(run(NULL, "%s --since=yesterday-ish list", dumpctl()), ==, 2);
        CHECK_INT(run(NULL, "%s policy 1234", dumpctl()), ==, 2);
}

/* A journal directory (-D) is files anybody may have written, even with _UID=0 in them: dumpctl
 * opens no core outside the store for it, hands gdb no executable a user could have planted, and
 * never writes -o through a symlink. */
TEST(foreign_journal_and_output_hardening) {
        if (access(JOURNAL_REMOTE, X_OK) < 0) {
                printf("skipping: needs " JOURNAL_REMOTE "\n");
                exit(77);
        }
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ uint8_t *core = store_crash(&e, 65536, true);
        _cleanup_free_ char *stored = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        _cleanup_free_ char *jdir = NULL, *export = NULL, *journal = NULL, *out = NULL, *err = NULL;
        CHECK(stored);
        CHECK_OK(write_text_file(e.dir, "secret", "not for anybody else\n"));
        CHECK_OK(write_text_file(e.dir, "planted-exe", "#!/bin/sh\n"));
        _cleanup_free_ char *planted = NULL;
        CHECK(asprintf(&planted, "%s/planted-exe", e.dir) > 0 && chmod(planted, 0666) == 0);

        CHECK(asprintf(&jdir, "%s/journal", e.dir) > 0 && mkdir(jdir, 0755) == 0);
        CHECK(asprintf(&export, "%s/forged.export", jdir) > 0 && asprintf(&journal, "%s/system.journal", jdir) > 0);
        FILE *f = fopen(export, "we");
        CHECK(f);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        long long now = (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
        const char *boot = "0123456789abcdef0123456789abcdef";
        /* Pid 424243 "stored" its core as the secret; pid 424244's core is real, its exe planted. */
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=1\n_BOOT_ID=%s\n_UID=0\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=424243\n"
                   "COREDUMP_UID=0\nCOREDUMP_FILENAME=%s/secret\n\n", now, boot, e.dir);
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=2\n_BOOT_ID=%s\n_UID=0\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=424244\n"
                   "COREDUMP_UID=0\nCOREDUMP_COMM=crasher\nCOREDUMP_FILENAME=%s\nCOREDUMP_EXE=%s\n\n",
                now + 1, boot, stored, planted);
        fclose(f);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", journal, export), ==, 0);

        CHECK(asprintf(&out, "%s/out.core", e.dir) > 0);
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o %s dump 424243 2>/dev/null", dumpctl(), jdir, e.store_dir, out), ==, 5);
        struct stat st;
        CHECK(stat(out, &st) < 0 || st.st_size == 0);    /* nothing of the secret */

        CHECK_INT(run(&err, "%s -D %s --store=%s --debugger=/bin/echo debug 424244 2>&1", dumpctl(), jdir,
                      e.store_dir), ==, 0);
        CHECK(strstr(err, "Not handing"));              /* warned */
        CHECK(strstr(err, "-c "));                      /* the debugger ran on the core... */
        _cleanup_free_ char *echoed = NULL;
        CHECK(asprintf(&echoed, "%s -c", planted) > 0);
        CHECK(!strstr(err, echoed));                    /* ...without the planted executable */

        /* -o through a symlink: refused, its target untouched. */
        _cleanup_free_ char *link = NULL, *target = NULL;
        CHECK(asprintf(&link, "%s/link", e.dir) > 0 && asprintf(&target, "%s/target", e.dir) > 0);
        CHECK_OK(write_text_file(e.dir, "target", "keep me\n"));
        CHECK(symlink(target, link) == 0);
        CHECK(run(NULL, "%s --no-journal --store=%s -o %s dump crasher 2>/dev/null", dumpctl(), e.store_dir, link) != 0);
        size_t n;
        _cleanup_free_ char *kept = read_whole(target, &n);
        CHECK_STR(kept, "keep me\n");
        test_env_done(&e);
}

/* Crashes grouped by signature, and --signature= as a filter (from the store's attributes). */
TEST(groups_and_signature_filter) {
        struct test_env e;
        test_env_init(&e, NULL, "Compress=none\n");
        for (int i = 0; i < 3; i++) {
                _cleanup_free_ uint8_t *c = store_crash(&e, 16384, true);
        }
        _cleanup_free_ char *sig = record_capture_field(&e.records, 0, "COREDUMPD_SIGNATURE");
        CHECK(sig && strlen(sig) == 16);
        _cleanup_free_ char *json = NULL, *expect = NULL, *list = NULL, *table = NULL;
        CHECK_INT(run(&json, "%s --no-journal --store=%s groups --json", dumpctl(), e.store_dir), ==, 0);
        CHECK(asprintf(&expect, "{\"signature\":\"%s\",\"count\":3,", sig) > 0);
        CHECK(strstr(json, expect));
        CHECK_INT(count_lines(json), ==, 1);
        CHECK_INT(run(&table, "%s --no-journal --store=%s groups", dumpctl(), e.store_dir), ==, 0);
        CHECK(strstr(table, "SIGNATURE") && strstr(table, sig));
        CHECK_INT(run(&list, "%s --no-journal --store=%s --signature=%s list --json", dumpctl(), e.store_dir, sig), ==, 0);
        CHECK_INT(count_lines(list), ==, 3);
        CHECK_INT(run(NULL, "%s --no-journal --store=%s --signature=0000000000000000 list --json", dumpctl(),
                      e.store_dir), ==, 3);
        test_env_done(&e);
}

static const struct test_case tests[] = {
        TEST_ENTRY(groups_and_signature_filter),
        TEST_ENTRY(foreign_journal_and_output_hardening),
        TEST_ENTRY(store_fallback_list_info_dump),
        TEST_ENTRY(store_fallback_without_xattrs_uses_the_name),
        TEST_ENTRY(journal_directory_list_info_and_errors),
        TEST_ENTRY(unprivileged_user_sees_and_fetches_only_own),
        TEST_ENTRY(vacuum_applies_max_use_now),
        TEST_ENTRY(policy_is_check_policy),
        TEST_ENTRY(usage_and_version),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
