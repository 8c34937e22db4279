/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * coredumpctl's view, and dumpctl's of the same journals: each crash once for root, a member of adm
 * and the crashing user, as bookworm's coredumpctl (the private `dpkg-deb -x` copy scripts/install-deps
 * unpacks) and dumpctl read them from a /var/log/journal of the test's own (a mount namespace of the
 * test's); systemd-coredump's records listed read-only; info, --json, -r, HOST, --root.
 */

#include <elf.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "harness.h"
#include "shared/cleanup.h"
#include "shared/fields.h"

#define FULL_MASK (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT | COREDUMP_WAIT)
#define TIMEOUT_MS 10000
#define JOURNAL_REMOTE "/lib/systemd/systemd-journal-remote"
#define DUMPED_AS_USER (PIDFD_COREDUMPED | PIDFD_COREDUMP_USER)

static const char *coredumpctl(void) {
        static char path[PATH_MAX];
        const char *p = getenv("COREDUMPCTL");
        if (p)
                return p;
        if (access("/usr/bin/coredumpctl", X_OK) == 0)
                return "/usr/bin/coredumpctl";
        snprintf(path, sizeof path, "%s/coredumpctl/usr/bin/coredumpctl", getenv("COREDUMPD_CACHE") ?: "/var/cache/coredumpd");
        return path;
}

static void store_crash(struct test_env *e, size_t size) {
        struct connection_run r;
        struct coredump_ack ack;
        _cleanup_free_ uint8_t *core = fake_core_new(size, size);

        connection_run_start(&r, &e->env);
        fk_send_request(r.kernel_fd, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(r.kernel_fd, &ack, TIMEOUT_MS), ==, sizeof ack);
        fk_send_mark(r.kernel_fd, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_stream(r.kernel_fd, core, size), ==, size);
        CHECK(shutdown(r.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(r.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&r);
}

static size_t count(const char *s, const char *needle) {
        size_t n = 0;
        for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle))
                n++;
        return n;
}

static char *machine_id(void) {
        char buf[64] = "";
        FILE *f = fopen("/etc/machine-id", "re");
        CHECK(f && fgets(buf, sizeof buf, f));
        fclose(f);
        buf[32] = 0;
        return strdup(buf);
}

/* The records as journald files them: each with _UID=uid (and this machine's id), in export format
 * for systemd-journal-remote, which writes the journal file path. extra: more export text, entries
 * of the test's own (each ending in an empty line). */
static void write_journal_file(const char *path, struct record_capture *records, unsigned uid, const char *extra) {
        _cleanup_free_ char *export = NULL, *mid = machine_id();
        CHECK(asprintf(&export, "%s.export", path) > 0);
        FILE *f = fopen(export, "we");
        CHECK(f);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        for (size_t i = 0; records && i < records->n; i++) {
                _cleanup_free_ char *boot = record_capture_field(records, i, "COREDUMPD_BOOT_ID");
                fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=%zu\n_BOOT_ID=%s\n_UID=%u\n_MACHINE_ID=%s\n",
                        (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000 + (long long) i, i + 1, boot, uid, mid);
                for (size_t k = 0; k < records->records[i].n; k++) {
                        const char *e = records->records[i].v[k].iov_base;
                        size_t len = records->records[i].v[k].iov_len;
                        const char *eq = memchr(e, '=', len);
                        CHECK(eq);
                        if (!memchr(e, '\n', len) && !memchr(e, 0, len)) {
                                fprintf(f, "%.*s\n", (int) len, e);
                                continue;
                        }
                        uint64_t n = len - (size_t) (eq + 1 - e);
                        fprintf(f, "%.*s\n", (int) (eq - e), e);
                        fwrite(&n, sizeof n, 1, f);
                        fwrite(eq + 1, 1, n, f);
                        fputc('\n', f);
                }
                fputc('\n', f);
        }
        if (extra)
                fputs(extra, f);
        fclose(f);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", path, export), ==, 0);
        CHECK(unlink(export) == 0);
}

/* command in a mount namespace of its own where /var/log/journal is jroot's, /run/log empty and
 * /var/lib/systemd/coredump sdcd's, run with the ids of who ("" for root). */
static int run_in(char **ret_out, const char *jroot, const char *sdcd, const char *who, const char *command) {
        return run(ret_out,
                   "unshare -m --propagation private sh -c 'mount --bind %s /var/log/journal && "
                   "{ [ ! -d /run/log ] || mount -t tmpfs tmpfs /run/log; } && mount --bind %s /var/lib/systemd/coredump && "
                   "exec %s %s'",
                   jroot, sdcd, who, command);
}

#define AS_USER "setpriv --reuid=1000 --regid=1000 --clear-groups"
#define AS_ADM "setpriv --reuid=4242 --regid=4242 --groups=4"

/* A regular user's stored crash (uid 1000), root's, and a crash systemd-coredump recorded (its
 * record in the user's journal, sent as the user, its core a file of root's in
 * /var/lib/systemd/coredump), in journal files as journald keeps them: system.journal (root, adm)
 * and user-1000.journal (the user, adm). Bookworm's coredumpctl and dumpctl list each crash once
 * for root and for a member of adm, the user's two for the user; dumpctl marks systemd-coredump's
 * record and dumps its core, never one a forged record names elsewhere or through a link. */
TEST(each_crash_once_for_root_adm_and_user) {
        if (geteuid() != 0 || access(JOURNAL_REMOTE, X_OK) < 0 || access(coredumpctl(), X_OK) < 0 ||
            access("/usr/bin/setpriv", X_OK) < 0 || run(NULL, "unshare -m true") != 0 ||
            access("/var/lib/systemd/coredump", F_OK) < 0) {
                printf("skipping: needs root, unshare -m, setpriv, " JOURNAL_REMOTE " and coredumpctl\n");
                exit(77);
        }
        struct group *adm = getgrnam("adm");
        if (!adm || adm->gr_gid != 4) {
                printf("skipping: needs Debian's group adm (gid 4)\n");
                exit(77);
        }
        struct test_env user, root;
        test_env_init(&user, NULL, NULL);
        test_env_init(&root, NULL, NULL);
        user.env.user_records = root.env.user_records = true;
        user.peer.uid = user.peer.euid = 1000;
        user.peer.gid = user.peer.egid = 1000;
        user.peer.coredump_mask = DUMPED_AS_USER;
        store_crash(&user, 65536);
        store_crash(&root, 65536);
        CHECK(chmod(user.dir, 0755) == 0 && chmod(user.store_dir, 0751) == 0);
        CHECK(chmod(root.dir, 0755) == 0 && chmod(root.store_dir, 0751) == 0);

        /* The system record beside a filed copy carries coredumpd's id, the copy coredumpctl's; root's
         * crash has no copy, its record coredumpctl's id. */
        CHECK_INT(record_capture_count(&user.user_records), ==, 1);
        CHECK_INT(record_capture_count(&root.user_records), ==, 0);
        _cleanup_free_ char *sys_id = record_capture_field(&user.records, 0, "MESSAGE_ID");
        _cleanup_free_ char *copy_id = record_capture_field(&user.user_records, 0, "MESSAGE_ID");
        _cleanup_free_ char *root_id = record_capture_field(&root.records, 0, "MESSAGE_ID");
        CHECK_STR(sys_id, COREDUMPD_MESSAGE_ID);
        CHECK_STR(copy_id, COREDUMP_MESSAGE_ID);
        CHECK_STR(root_id, COREDUMP_MESSAGE_ID);

        /* systemd-coredump's crash: its core, a file of root's; a forged record of the user's about
         * root's crash (not listed); records naming /etc/shadow and a link (listed, never opened). */
        _cleanup_free_ char *mid = machine_id(), *jroot = NULL, *local = NULL, *sdcd = NULL, *sys = NULL,
                            *usr = NULL, *extra = NULL, *core_path = NULL;
        CHECK(asprintf(&jroot, "%s/jroot", user.dir) > 0 && mkdir(jroot, 0755) == 0);
        CHECK(asprintf(&local, "%s/%s", jroot, mid) > 0 && mkdir(local, 0755) == 0);
        CHECK(asprintf(&sdcd, "%s/sdcd", user.dir) > 0 && mkdir(sdcd, 0755) == 0);
        const char *name = "core.sdcrash.1000.00112233445566778899aabbccddeeff.626262.1700000000000000";
        CHECK(asprintf(&core_path, "%s/%s", sdcd, name) > 0);
        CHECK_OK(write_text_file(sdcd, name, "systemd-coredump's core\n"));
        CHECK(chmod(core_path, 0644) == 0);
        _cleanup_free_ char *link = NULL;
        CHECK(asprintf(&link, "%s/core.linked.1000.00112233445566778899aabbccddeeff.626264.1700000000000000", sdcd) > 0);
        CHECK(symlink(core_path, link) == 0);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        long long now = (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
        const char *sd_fields = "MESSAGE_ID=" COREDUMP_MESSAGE_ID "\nSYSLOG_IDENTIFIER=systemd-coredump\nPRIORITY=2\n"
                                "COREDUMP_GID=1000\nCOREDUMP_SIGNAL=6\nCOREDUMP_SIGNAL_NAME=SIGABRT\n";
        CHECK(asprintf(&extra,
                       "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=10\n_BOOT_ID=00112233445566778899aabbccddeeff\n"
                       "_UID=1000\n_MACHINE_ID=%s\n%sCOREDUMP_PID=626262\nCOREDUMP_UID=1000\nCOREDUMP_COMM=sdcrash\n"
                       "COREDUMP_FILENAME=/var/lib/systemd/coredump/%s\n\n"
                       "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=11\n_BOOT_ID=00112233445566778899aabbccddeeff\n"
                       "_UID=1000\n_MACHINE_ID=%s\n%sCOREDUMP_PID=626263\nCOREDUMP_UID=0\nCOREDUMP_COMM=forged\n\n"
                       "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=12\n_BOOT_ID=00112233445566778899aabbccddeeff\n"
                       "_UID=1000\n_MACHINE_ID=%s\n%sCOREDUMP_PID=626264\nCOREDUMP_UID=1000\nCOREDUMP_COMM=linked\n"
                       "COREDUMP_FILENAME=/var/lib/systemd/coredump/%s\n\n"
                       "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=13\n_BOOT_ID=00112233445566778899aabbccddeeff\n"
                       "_UID=1000\n_MACHINE_ID=%s\n%sCOREDUMP_PID=626265\nCOREDUMP_UID=1000\nCOREDUMP_COMM=shadow\n"
                       "COREDUMP_FILENAME=/etc/shadow\n\n",
                       now - 3000000, mid, sd_fields, name, now - 2000000, mid, sd_fields, now - 1500000, mid, sd_fields,
                       strrchr(link, '/') + 1, now - 1000000, mid, sd_fields) > 0);

        /* system.journal: root's and the user's system records (root, adm read it); user-1000.journal:
         * the copy and systemd-coredump's records (the user, adm). */
        struct record_capture both = {};
        struct fields v[2] = { user.records.records[0], root.records.records[0] };
        both.records = v;
        both.n = 2;
        CHECK(asprintf(&sys, "%s/system.journal", local) > 0 && asprintf(&usr, "%s/user-1000.journal", local) > 0);
        write_journal_file(sys, &both, 0, NULL);
        write_journal_file(usr, &user.user_records, 1000, extra);
        CHECK(chown(sys, 0, 4) == 0 && chmod(sys, 0640) == 0);
        CHECK(chown(usr, 1000, 4) == 0 && chmod(usr, 0640) == 0);

        _cleanup_free_ char *user_pid = NULL, *root_pid = NULL, *cmd = NULL, *dcmd = NULL;
        CHECK(asprintf(&user_pid, " %d ", (int) user.sleeper) > 0 && asprintf(&root_pid, " %d ", (int) root.sleeper) > 0);
        CHECK(asprintf(&cmd, "%s --no-pager --no-legend list", coredumpctl()) > 0);
        CHECK(asprintf(&dcmd, "%s --store=%s --json=short list", dumpctl(), user.store_dir) > 0);
        _cleanup_free_ char *user_json_pid = NULL, *root_json_pid = NULL;
        CHECK(asprintf(&user_json_pid, "\"pid\":%d,", (int) user.sleeper) > 0 &&
              asprintf(&root_json_pid, "\"pid\":%d,", (int) root.sleeper) > 0);

        struct {
                const char *who;
                size_t own, others;     /* the user's crash, root's */
        } views[] = { { "", 1, 1 }, { AS_ADM, 1, 1 }, { AS_USER, 1, 0 } };
        for (size_t i = 0; i < ELEMENTSOF(views); i++) {
                _cleanup_free_ char *out = NULL, *json = NULL;
                /* coredumpctl: each crash once (the user's from its copy), systemd-coredump's too. */
                CHECK_INT(run_in(&out, jroot, sdcd, views[i].who, cmd), ==, 0);
                CHECK_INT(count(out, user_pid), ==, views[i].own);
                CHECK_INT(count(out, root_pid), ==, views[i].others);
                CHECK_INT(count(out, " 626262 "), ==, 1);
                /* dumpctl: the same crashes once, systemd-coredump's marked, not the forgery. */
                CHECK_INT(run_in(&json, jroot, sdcd, views[i].who, dcmd), ==, 0);
                CHECK_INT(count(json, user_json_pid), ==, views[i].own);
                CHECK_INT(count(json, root_json_pid), ==, views[i].others);
                CHECK_INT(count(json, "\"pid\":626262,"), ==, 1);
                CHECK_INT(count(json, "\"pid\":626263,"), ==, 0);
                CHECK_INT(count(json, "\"recorder\":\"systemd-coredump\""), ==, 3);
                CHECK_INT(count(json, "\"recorder\":\"coredumpd\""), ==, views[i].own + views[i].others);
        }

        /* Root's dumpctl: the user's crash from the trusted system record; systemd-coredump's core,
         * a file of root's; not through a link, not /etc/shadow, not a file of another owner's. */
        _cleanup_free_ char *out = NULL, *json = NULL, *info = NULL, *dump = NULL, *got = NULL;
        CHECK_INT(run_in(&json, jroot, sdcd, "", dcmd), ==, 0);
        const char *u = strstr(json, user_json_pid);
        CHECK(u && strstr(u, "\"present\":\"present\"") < strchr(u, '}'));
        CHECK(asprintf(&dump, "%s --store=%s -o %s/out.core dump 626262", dumpctl(), user.store_dir, user.dir) > 0);
        CHECK_INT(run_in(NULL, jroot, sdcd, "", dump), ==, 0);
        CHECK(asprintf(&got, "%s/out.core", user.dir) > 0);
        FILE *f = fopen(got, "re");
        char line[64] = "";
        CHECK(f && fgets(line, sizeof line, f));
        fclose(f);
        CHECK_STR(line, "systemd-coredump's core\n");
        CHECK(unlink(got) == 0);
        free(dump);
        CHECK(asprintf(&dump, "%s --store=%s -o %s/out.core dump 626264", dumpctl(), user.store_dir, user.dir) > 0);
        CHECK(run_in(NULL, jroot, sdcd, "", dump) != 0);
        free(dump);
        CHECK(asprintf(&dump, "%s --store=%s -o %s/out.core dump 626265", dumpctl(), user.store_dir, user.dir) > 0);
        CHECK(run_in(NULL, jroot, sdcd, "", dump) != 0);
        struct stat st;
        CHECK(stat(got, &st) < 0);
        CHECK(chown(core_path, 1000, 1000) == 0); /* not root's: not systemd-coredump's */
        free(dump);
        CHECK(asprintf(&dump, "%s --store=%s -o %s/out.core dump 626262", dumpctl(), user.store_dir, user.dir) > 0);
        CHECK(run_in(NULL, jroot, sdcd, "", dump) != 0);
        CHECK(stat(got, &st) < 0);
        CHECK(chown(core_path, 0, 0) == 0);
        free(dump);
        CHECK(asprintf(&dump, "%s --store=%s info 626262", dumpctl(), user.store_dir) > 0);
        CHECK_INT(run_in(&info, jroot, sdcd, "", dump), ==, 0);
        CHECK(strstr(info, "Recorded By: systemd-coredump"));
        test_env_done(&root);
        test_env_done(&user);
}

/* info says the signature, the repeat count and the package (where the record has one: systemd's
 * COREDUMP_PACKAGE_NAME/_VERSION); list shows HOST only where the crashes come from more than one
 * machine; -r takes a match (dump: the newest match, as coredumpctl); --root= reads another
 * system's journal and its cores under that root, every record foreign; --image= is refused with
 * the way to do it. */
TEST(info_host_reverse_and_root) {
        if (access(JOURNAL_REMOTE, X_OK) < 0) {
                printf("skipping: needs " JOURNAL_REMOTE "\n");
                exit(77);
        }
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        store_crash(&e, 65536);
        pid_t second = sleeper_start("crasher", -1); /* a crash of its own (a process crashes once) */
        e.peer.pid = second;
        store_crash(&e, 65536);
        CHECK_INT(record_capture_count(&e.records), ==, 2);
        _cleanup_free_ char *mid = machine_id(), *jdir = NULL, *sys = NULL, *extra = NULL, *out = NULL;
        const char *other = strcmp(mid, "0123456789abcdef0123456789abcdef") ? "0123456789abcdef0123456789abcdef"
                                                                            : "fedcba9876543210fedcba9876543210";
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        CHECK(asprintf(&extra,
                       "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=20\n_BOOT_ID=00112233445566778899aabbccddeeff\n"
                       "_UID=0\n_MACHINE_ID=%s\n_HOSTNAME=faraway\nMESSAGE_ID=" COREDUMP_MESSAGE_ID "\n"
                       "COREDUMPD_ACTION=kernel\nCOREDUMPD_RULE=builtin:keep\nCOREDUMP_PID=525300\nCOREDUMP_UID=0\n"
                       "COREDUMP_GID=0\nCOREDUMP_SIGNAL=11\nCOREDUMP_COMM=far\nCOREDUMP_HOSTNAME=faraway\n"
                       "COREDUMPD_SIGNATURE=0123456789abcdef\nCOREDUMPD_REPEAT=4\nCOREDUMP_PACKAGE_NAME=farpkg\n"
                       "COREDUMP_PACKAGE_VERSION=1.2-3\n\n",
                       (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000 - 5000000, other) > 0);
        CHECK(asprintf(&jdir, "%s/journal", e.dir) > 0 && mkdir(jdir, 0755) == 0);
        CHECK(asprintf(&sys, "%s/system.journal", jdir) > 0);
        write_journal_file(sys, &e.records, 0, extra);

        /* info: signature, repeats, package */
        CHECK_INT(run(&out, "%s -D %s --store=%s --no-pager info 525300", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(out, "Package: farpkg 1.2-3\n") && strstr(out, "Signature: 0123456789abcdef\n") &&
              strstr(out, "Repeats: 4 ") && strstr(out, "Hostname: faraway\n"));
        free(out);
        _cleanup_free_ char *sig = record_capture_field(&e.records, 1, "COREDUMPD_SIGNATURE");
        CHECK(sig);
        CHECK_INT(run(&out, "%s -D %s --store=%s --no-pager info %d", dumpctl(), jdir, e.store_dir, (int) second), ==, 0);
        CHECK(strstr(out, sig) && strstr(out, "Signature: ") && !strstr(out, "Package:"));
        free(out);

        /* HOST: two machines, the column; one, none. */
        CHECK_INT(run(&out, "COLUMNS=200 %s -D %s --store=%s --no-pager list", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strncmp(out, "TIME ", 5) == 0 && strstr(out, " HOST ") && strstr(out, " faraway "));
        free(out);
        CHECK_INT(run(&out, "COLUMNS=200 %s -D %s --store=%s --no-pager list crasher", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strncmp(out, "TIME ", 5) == 0 && !strstr(out, "HOST"));
        free(out);

        /* -r with a match: newest first; dump takes the newest match either way. */
        _cleanup_free_ char *t0 = record_capture_field(&e.records, 0, "COREDUMP_TIMESTAMP");
        _cleanup_free_ char *t1 = record_capture_field(&e.records, 1, "COREDUMP_TIMESTAMP");
        CHECK_INT(run(&out, "%s -D %s --store=%s -r -F COREDUMP_TIMESTAMP list crasher", dumpctl(), jdir, e.store_dir), ==, 0);
        _cleanup_free_ char *want = NULL;
        CHECK(asprintf(&want, "%s\n%s\n", t1, t0) > 0);
        CHECK_STR(out, want);
        free(out);
        CHECK_INT(run(NULL, "%s -D %s --store=%s -r -o %s/r.core dump crasher", dumpctl(), jdir, e.store_dir, e.dir), ==, 0);

        /* --root=: the other system's journal (ROOT/var/log/journal) and its cores under ROOT, at the
         * path its records name; nothing on this system's path. */
        _cleanup_free_ char *root = NULL, *rjournal = NULL, *rstore = NULL, *file = NULL;
        file = record_capture_field(&e.records, 1, "COREDUMP_FILENAME");
        CHECK(file);
        CHECK(asprintf(&root, "%s/root", e.dir) > 0 && asprintf(&rjournal, "%s/var/log/journal/%s", root, mid) > 0 &&
              asprintf(&rstore, "%s%s", root, e.store_dir) > 0);
        CHECK_INT(run(NULL, "mkdir -p %s %s && cp -a %s %s/", rjournal, rstore, file, rstore), ==, 0);
        free(sys);
        CHECK(asprintf(&sys, "%s/system.journal", rjournal) > 0);
        write_journal_file(sys, &e.records, 0, NULL);
        CHECK_INT(run(NULL, "rm -f %s", file), ==, 0);
        CHECK_INT(run(&out, "%s --root=%s --store=%s --json=short list", dumpctl(), root, e.store_dir), ==, 0);
        CHECK_INT(count(out, "\"corefile\":\"present\""), ==, 1);
        CHECK_INT(count(out, "\"corefile\":\"missing\""), ==, 1); /* the first crash's core is not in the root */
        free(out);
        CHECK_INT(run(NULL, "%s --root=%s --store=%s -o %s/root.core dump %d", dumpctl(), root, e.store_dir, e.dir,
                      (int) second), ==, 0);
        CHECK_INT(run(&out, "cmp %s/root.core %s/r.core && echo same", e.dir, e.dir), ==, 0);
        CHECK_STR(out, "same\n");
        free(out);
        CHECK_INT(run(NULL, "%s --no-journal --store=%s -o /dev/null dump %d", dumpctl(), e.store_dir, (int) second), !=, 0);
        /* debug: gdb looks for the libraries in the root, auto-load off (a foreign record). */
        _cleanup_free_ char *gdb = NULL, *body = NULL;
        CHECK(asprintf(&gdb, "%s/gdb-fake", e.dir) > 0 &&
              asprintf(&body, "#!/bin/sh\necho \"$*\" > %s/gdb.args\n", e.dir) > 0);
        CHECK_OK(write_text_file(e.dir, "gdb-fake", body));
        CHECK(chmod(gdb, 0755) == 0);
        CHECK_INT(run(NULL, "%s --root=%s --store=%s --debugger=%s debug %d", dumpctl(), root, e.store_dir, gdb,
                      (int) second), ==, 0);
        CHECK_INT(run(&out, "cat %s/gdb.args", e.dir), ==, 0);
        _cleanup_free_ char *sysroot = NULL;
        CHECK(asprintf(&sysroot, "set sysroot %s ", root) > 0);
        CHECK(strstr(out, sysroot) && strstr(out, "set auto-load off") && strstr(out, " -c "));
        free(out);
        CHECK_INT(run(NULL, "%s --root=%s -D %s list", dumpctl(), root, jdir), ==, 2);
        CHECK_INT(run(NULL, "%s --root=relative list", dumpctl()), ==, 2);
        CHECK_INT(run(NULL, "%s --root=%s --store=%s vacuum", dumpctl(), root, e.store_dir), ==, 2);
        CHECK_INT(run(&out, "%s --image=%s/disk.raw list 2>&1", dumpctl(), e.dir), ==, 2);
        CHECK(strstr(out, "systemd-dissect --mount") && strstr(out, "--root="));
        sleeper_stop(second);
        test_env_done(&e);
}

static const struct test_case tests[] = {
        TEST_ENTRY(each_crash_once_for_root_adm_and_user),
        TEST_ENTRY(info_host_reverse_and_root),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
