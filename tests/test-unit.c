/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The pure parts: escaping, names, value parsers, configuration, policy, request/ack, /proc
 * parsers, the ELF extent. */

#include <elf.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sched.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <pthread.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "config/conf-files.h"
#include "config/config.h"
#include "config/policy.h"
#include "crash/authenticate.h"
#include "crash/backtrace.h"
#include "crash/cgroup-names.h"
#include "crash/context.h"
#include "crash/outcome.h"
#include "crash/decide.h"
#include "crash/protocol.h"
#include "crash/record.h"
#include "crash/first-seen.h"
#include "crash/repeats.h"
#include "crash/site.h"
#include "fixtures.h"
#include "parser/client.h"
#include "parser/map-files.h"
#include "parser/sandbox.h"
#include "parser/wire.h"
#include "shared/elf-build-id.h"
#include "server/privileges.h"
#include "server/deadline.h"
#include "server/workers.h"
#include "harness.h"
#include "shared/cell.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "selfdump/proc-maps.h"
#include "selfdump/task-files.h"
#include "shared/crash-id.h"
#include "shared/saved-files.h"
#include "shared/escape.h"
#include "shared/fields.h"
#include "shared/fileio.h"
#include "store/metrics.h"
#include "shared/ini-file.h"
#include "shared/log.h"
#include "shared/names.h"
#include "shared/parse.h"
#include "shared/strv.h"
#include "shared/timestamp.h"
#include "shared/cell-ids.h"
#include "shared/unit-name.h"
#include "store/core-extent.h"
#include "store/reserve.h"
#include "store/core-writer.h"
#include "store/store.h"

/* ---- escaping ---- */

static void check_escape(const char *in, size_t n, const char *want) {
        _cleanup_free_ char *got = escape_text(in, n);
        CHECK_STR(got, want);
}

static void write_etc(const char *root, const char *name, const char *text) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/etc", root);
        (void) mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/etc/%s", root, name);
        FILE *f = fopen(path, "we");
        CHECK(f);
        CHECK(fputs(text, f) >= 0);
        CHECK(fclose(f) == 0);
}

/* The cells' own ids: a range nobody else has (not systemd's, not in the user database, not a
 * subordinate range), one id per child, never two children's the same, free again once reaped. */
TEST(cell_ids_one_per_child) {
        char root[] = "/tmp/test-cell-ids-XXXXXX", why[512];
        CHECK(mkdtemp(root) != NULL);
        write_etc(root, "passwd", "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534::/:/usr/sbin/nologin\n"
                                  "odd::2147287100:100::/:/bin/sh\n");
        write_etc(root, "group", "root:x:0:\n");
        write_etc(root, "subuid", "alice:100000:65536\n");
        write_etc(root, "subgid", "alice:100000:65536\n");

        /* Somebody else's. */
        CHECK_INT(cell_ids_init_range(root, 60000, 16, why, sizeof why), ==, -ERANGE);          /* dynamic users, nobody */
        CHECK(strstr(why, "overlaps"));
        CHECK_INT(cell_ids_init_range(root, 0x100000, 16, why, sizeof why), ==, -ERANGE);       /* containers */
        CHECK_INT(cell_ids_init_range(root, 0x7FFDFFF0, 0x20, why, sizeof why), ==, -ERANGE);   /* into the foreign range */
        CHECK_INT(cell_ids_init_range(root, 0xFFFFFFF0, 0x20, why, sizeof why), ==, -ERANGE);   /* past the last id */
        CHECK_INT(cell_ids_init_range(root, 2147287040, 256, why, sizeof why), ==, -EEXIST);    /* "odd", in passwd */
        CHECK(strstr(why, "\"odd\""));
        CHECK_INT(cell_ids_init_range(root, 100000 - 8, 16, why, sizeof why), ==, -EEXIST);     /* alice's subuids */
        CHECK(strstr(why, "subuid"));

        /* Refused: nothing leased, every cell nobody's. */
        uint32_t uid = CELL_IDS_ANY, gid = CELL_IDS_ANY, lease = 1, first, count;
        cell_ids_range(&first, &count);
        CHECK_INT(count, ==, 0);
        CHECK_OK(cell_ids_lease(&uid, &gid, &lease));
        CHECK_INT(lease, ==, 0);
        CHECK_INT(uid, ==, 65534);

        /* A range of 3 above "odd". */
        CHECK_OK(cell_ids_init_range(root, 2147287200, 3, why, sizeof why));
        uint32_t ids[3];
        for (int i = 0; i < 3; i++) {
                uid = gid = CELL_IDS_ANY;
                CHECK_OK(cell_ids_lease(&uid, &gid, &lease));
                CHECK(uid >= 2147287200 && uid < 2147287203);
                CHECK_INT(gid, ==, uid);
                CHECK_INT(lease, ==, uid);
                for (int k = 0; k < i; k++)
                        CHECK(ids[k] != uid);
                ids[i] = uid;
                cell_ids_bind(lease, 1000 + i);
        }
        CHECK_INT(cell_ids_held(), ==, 3);
        uid = gid = CELL_IDS_ANY;
        CHECK_INT(cell_ids_lease(&uid, &gid, &lease), ==, -EBUSY);                  /* all held */
        CHECK_INT(uid, ==, CELL_IDS_ANY);
        /* The crashing user's own ids, or ids that must stay: nothing leased. */
        uid = gid = 1000;
        CHECK_OK(cell_ids_lease(&uid, &gid, &lease));
        CHECK_INT(lease, ==, 0);
        CHECK_INT(uid, ==, 1000);
        CHECK_OK(cell_ids_lease(NULL, NULL, &lease));
        CHECK_INT(lease, ==, 0);

        /* Reaped: its id is free, and the next child gets it (the only free one). */
        cell_ids_reaped(1001);
        cell_ids_reaped(4242);  /* not ours: nothing */
        CHECK_INT(cell_ids_held(), ==, 2);
        uid = gid = CELL_IDS_ANY;
        CHECK_OK(cell_ids_lease(&uid, &gid, &lease));
        CHECK_INT(uid, ==, ids[1]);
        cell_ids_return(lease);                                                       /* it did not start */
        CHECK_INT(cell_ids_held(), ==, 2);
        cell_ids_reaped(1000);
        cell_ids_reaped(1002);
        CHECK_INT(cell_ids_held(), ==, 0);

        /* Ids are handed round: a just freed id is not the next one handed out. */
        CHECK_OK(cell_ids_init_range(root, 2147287200, 3, why, sizeof why));
        uint32_t a = CELL_IDS_ANY, b = CELL_IDS_ANY, l;
        CHECK_OK(cell_ids_lease(&a, &b, &l));
        cell_ids_return(l);
        uint32_t c = CELL_IDS_ANY, d = CELL_IDS_ANY;
        CHECK_OK(cell_ids_lease(&c, &d, &l));
        CHECK(c != a);
        cell_ids_return(l);
        CHECK_OK(cell_ids_init_range(root, 0, 0, why, sizeof why));                   /* off again */
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf %s", root);
        CHECK(system(cmd) == 0);
}

TEST(escape_text_hostile_bytes) {
        check_escape("plain", 5, "plain");
        check_escape("a\nb", 3, "a\\nb");
        check_escape("tab\there\r", 9, "tab\\there\\r");
        check_escape("back\\slash", 10, "back\\\\slash");
        check_escape("sl/ash", 6, "sl/ash");
        check_escape("\x01\x7f", 2, "\\x01\\x7f");
        check_escape("nul\0x", 5, "nul\\x00x");
        check_escape("\xc3\xbc" "ber", 5, "\xc3\xbc" "ber");          /* valid UTF-8 stays */
        check_escape("\xe2\x82\xac", 3, "\xe2\x82\xac");
        check_escape("\xff\xfe", 2, "\\xff\\xfe");                     /* invalid bytes */
        check_escape("\xc3", 1, "\\xc3");                              /* cut sequence */
        check_escape("\xc0\xaf", 2, "\\xc0\\xaf");                     /* overlong '/' */
        check_escape("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");            /* surrogate */
        check_escape("\xc2\x85", 2, "\\xc2\\x85");                     /* C1 control (NEL) */
        check_escape("", 0, "");
}

/* /proc's multi-line texts (COREDUMP_PROC_STATUS=, _MAPS=, _LIMITS=): their lines and columns stay,
 * everything else a task could put in them (a mapped file's name, its comm) is escaped as ever. */
TEST(escape_lines_keeps_lines_only) {
        static const char maps[] = "5555-6666 r-xp 00000000 08:01 12 /tmp/a\rb\x1b[2J \xe2\x80\xae" "x\n"
                                   "7777-8888 rw-p 00000000 00:00 0 \n";
        _cleanup_free_ char *got = escape_lines(maps, sizeof maps - 1);
        CHECK_STR(got, "5555-6666 r-xp 00000000 08:01 12 /tmp/a\\rb\\x1b[2J \\xe2\\x80\\xae" "x\n"
                       "7777-8888 rw-p 00000000 00:00 0 \n");
        _cleanup_free_ char *status = escape_lines("Name:\tcat\\\nUid:\t1\t1\n", 20);
        CHECK_STR(status, "Name:\tcat\\\\\nUid:\t1\t1\n");
        _cleanup_free_ char *nul = escape_lines("a\0b\n", 4);
        CHECK_STR(nul, "a\\x00b\n");
        /* The field table renders them so. */
        struct fields f = {};
        CHECK_OK(fields_set_text(&f, FIELD_PROC_MAPS, "1-2 r-xp 0 08:01 3 /x\x7f\n"));
        CHECK_STR(fields_get(&f, FIELD_PROC_MAPS), "1-2 r-xp 0 08:01 3 /x\\x7f\n");
        CHECK_STR(field_name(FIELD_PROC_STATUS), "COREDUMP_PROC_STATUS");
        CHECK_STR(field_name(FIELD_PROC_LIMITS), "COREDUMP_PROC_LIMITS");
        fields_done(&f);
}

/* A crasher's name cannot reorder or break the line it is shown on (Trojan Source's trick). */
TEST(escape_text_bidi_and_separators) {
        check_escape("a\xe2\x80\xae" "gpj.exe", 11, "a\\xe2\\x80\\xae" "gpj.exe");    /* RLO */
        check_escape("\xe2\x81\xa6x\xe2\x81\xa9", 7, "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9"); /* LRI, PDI */
        check_escape("\xe2\x80\x8f", 3, "\\xe2\\x80\\x8f");                         /* RLM */
        check_escape("\xd8\x9c", 2, "\\xd8\\x9c");                                     /* ALM */
        check_escape("a\xe2\x80\xa8" "b", 5, "a\\xe2\\x80\\xa8" "b");                /* LINE SEPARATOR */
        check_escape("\xe2\x80\x8d", 3, "\xe2\x80\x8d");                             /* ZWJ stays (emoji) */
        check_escape("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", 8, "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"); /* Hebrew stays */
}

TEST(escape_cmdline_arguments) {
        static const char raw[] = "/bin/prog\0--opt=a b\0line\nbreak\0\xff\0";
        _cleanup_free_ char *got = escape_cmdline(raw, sizeof raw - 1);
        CHECK_STR(got, "/bin/prog --opt=a\\x20b line\\nbreak \\xff");
        _cleanup_free_ char *empty = escape_cmdline("", 0);
        CHECK_STR(empty, "");
}

TEST(escape_filename_part_is_safe) {
        static const struct { const char *in, *want; } cases[] = {
                { "bash", "bash" },
                { "kworker/0:1", "kworker\\x2f0\\x3a1" },
                { "a.b", "a\\x2eb" },
                { "..", "\\x2e\\x2e" },
                { "new\nline", "new\\x0aline" },
                { "sp ace", "sp\\x20ace" },
                { "\xff", "\\xff" },
                { "", "unknown" },
                { "ok_+-@", "ok_+-@" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *got = escape_filename_part(cases[i].in);
                CHECK_STR(got, cases[i].want);
                CHECK(!strchr(got, '/') && !strchr(got, '.'));
        }
}

TEST(dump_file_name) {
        const char *boot_id = "0123456789abcdef0123456789abcdef";
        _cleanup_free_ char *zst = store_core_name("my prog/x", 1000, boot_id, 4242, 1700000000123456ULL,
                                                   COMPRESSION_ZSTD);
        CHECK_STR(zst, "core.my\\x20prog\\x2fx.1000.0123456789abcdef0123456789abcdef.4242.1700000000123456.zst");
        _cleanup_free_ char *plain = store_core_name("my prog/x", 1000, boot_id, 4242, 1700000000123456ULL,
                                                     COMPRESSION_NONE);
        CHECK_STR(plain, "core.my\\x20prog\\x2fx.1000.0123456789abcdef0123456789abcdef.4242.1700000000123456");
        _cleanup_free_ char *unknown = store_core_name(NULL, 1000, boot_id, 4242, 1700000000123456ULL,
                                                       COMPRESSION_NONE);
        CHECK(strncmp(unknown, "core.unknown.1000.", 18) == 0);
}

/* ---- fields ---- */

/* A binary value (the compact core, COREDUMP=) is kept byte for byte, NULs and newlines too, its
 * length the iovec's; the text setters refuse such a field; no other field is found in it. */
TEST(fields_binary_value) {
        static const char data[] = { 0x7f, 'E', 'L', 'F', 0, 1, 0, '\n', 'X', '=', 2 };
        struct fields f = {};

        CHECK_OK(fields_add_binary(&f, field_name(FIELD_COREDUMP), data, sizeof data));
        CHECK_OK(fields_set_text(&f, FIELD_COMM, "x"));
        CHECK_OK(fields_add_binary(&f, "EMPTY", "", 0));
        CHECK_INT(f.n, ==, 3);
        CHECK_INT(f.v[0].iov_len, ==, strlen("COREDUMP=") + sizeof data);
        CHECK(memcmp(f.v[0].iov_base, "COREDUMP=", 9) == 0);
        CHECK(memcmp((const char *) f.v[0].iov_base + 9, data, sizeof data) == 0);
        CHECK_INT(((const char *) f.v[0].iov_base)[f.v[0].iov_len], ==, 0); /* a NUL beyond it */
        CHECK_INT(f.v[2].iov_len, ==, strlen("EMPTY="));
        CHECK_STR(fields_get(&f, FIELD_COMM), "x");
        CHECK(fields_get(&f, FIELD_COREDUMP) == (const char *) f.v[0].iov_base + 9);
        CHECK(!fields_get_name(&f, "X"));
        CHECK(!fields_get(&f, FIELD_FILENAME));
        CHECK_INT(fields_set_text(&f, FIELD_COREDUMP, "text"), ==, -EINVAL);
        CHECK_INT(f.n, ==, 3);
        fields_done(&f);
}

/* ---- names ---- */

TEST(signal_names) {
        CHECK_STR(signal_to_name(SIGSEGV), "SIGSEGV");
        CHECK_STR(signal_to_name(SIGABRT), "SIGABRT");
        CHECK_STR(signal_to_name(SIGSYS), "SIGSYS");
        CHECK(signal_to_name(0) == NULL);
        CHECK(signal_to_name(40) == NULL);
        CHECK_INT(signal_from_string("SIGSEGV"), ==, SIGSEGV);
        CHECK_INT(signal_from_string("segv"), ==, SIGSEGV);
        CHECK_INT(signal_from_string("SigAbrt"), ==, SIGABRT);
        CHECK_INT(signal_from_string("11"), ==, 11);
        CHECK_INT(signal_from_string("64"), ==, 64);
        CHECK_INT(signal_from_string("0"), ==, -EINVAL);
        CHECK_INT(signal_from_string("65"), ==, -EINVAL);
        CHECK_INT(signal_from_string("SIGFOO"), ==, -EINVAL);
        CHECK_INT(signal_from_string("11x"), ==, -EINVAL);
        CHECK_INT(signal_from_string(""), ==, -EINVAL);
}

TEST(mark_names) {
        CHECK_STR(mark_to_name(COREDUMP_MARK_REQACK), "REQACK");
        CHECK_STR(mark_to_name(COREDUMP_MARK_MINSIZE), "MINSIZE");
        CHECK_STR(mark_to_name(COREDUMP_MARK_MAXSIZE), "MAXSIZE");
        CHECK_STR(mark_to_name(COREDUMP_MARK_UNSUPPORTED), "UNSUPPORTED");
        CHECK_STR(mark_to_name(COREDUMP_MARK_CONFLICTING), "CONFLICTING");
        CHECK(mark_to_name(5) == NULL);
        CHECK(mark_to_name(UINT32_MAX) == NULL);
}

TEST(action_names) {
        CHECK_INT(action_from_string("kernel"), ==, ACTION_KERNEL);
        CHECK_INT(action_from_string("userspace"), ==, ACTION_USERSPACE);
        CHECK_INT(action_from_string("reject"), ==, ACTION_REJECT);
        CHECK_INT(action_from_string("Kernel"), ==, _ACTION_INVALID);
        CHECK_STR(action_to_string(ACTION_USERSPACE), "userspace");
}

/* ---- value parsers ---- */

TEST(value_parsers) {
        uint64_t u;
        uint32_t lo, hi;
        char buf[32];

        CHECK_INT(parse_boolean("yes"), ==, 1);
        CHECK_INT(parse_boolean("Off"), ==, 0);
        CHECK_INT(parse_boolean("maybe"), ==, -EINVAL);

        CHECK(parse_size("4096", &u) == 0 && u == 4096);
        CHECK(parse_size("2M", &u) == 0 && u == 2 << 20);
        CHECK(parse_size("1GiB", &u) == 0 && u == UINT64_C(1) << 30);
        CHECK(parse_size("3k", &u) == 0 && u == 3072);
        CHECK(parse_size("infinity", &u) == 0 && u == SIZE_INFINITY);
        CHECK(parse_size("-1", &u) == -EINVAL);
        CHECK(parse_size("1X", &u) == -EINVAL);
        CHECK(parse_size("99999999999T", &u) == -ERANGE);
        CHECK_STR(format_size(buf, 2 << 20), "2M");
        CHECK_STR(format_size(buf, 1000), "1000");

        CHECK(parse_duration("60", &u) == 0 && u == 60 * USEC_PER_SEC);
        CHECK(parse_duration("500ms", &u) == 0 && u == 500 * USEC_PER_MSEC);
        CHECK(parse_duration("2min", &u) == 0 && u == 120 * USEC_PER_SEC);
        CHECK(parse_duration("1 s", &u) == 0 && u == USEC_PER_SEC);
        CHECK_STR(format_duration(buf, 0), "0");
        CHECK_STR(format_duration(buf, 3600 * USEC_PER_SEC), "1h");
        CHECK_STR(format_duration(buf, 90 * USEC_PER_SEC), "90s");
        CHECK_STR(format_duration(buf, 300 * USEC_PER_SEC), "5min");
        CHECK_STR(format_duration(buf, 1500 * USEC_PER_MSEC), "1500ms");

        CHECK(parse_id_range("1000", &lo, &hi) == 0 && lo == 1000 && hi == 1000);
        CHECK(parse_id_range("1000-1999", &lo, &hi) == 0 && lo == 1000 && hi == 1999);
        CHECK(parse_id_range("2-1", &lo, &hi) == -EINVAL);
        CHECK(parse_id_range("-1", &lo, &hi) == -EINVAL);
        CHECK(parse_id_range("4294967296", &lo, &hi) == -ERANGE);
}

/* ---- time specs (systemd.time(7)) ---- */

#define T_NOW (UINT64_C(1710504000) * USEC_PER_SEC) /* Fri 2024-03-15 12:00:00 UTC */

static uint64_t ts(const char *s) {
        uint64_t u = 0;
        int r = parse_timestamp(s, T_NOW, &u);
        if (r < 0)
                test_fail(__FILE__, __LINE__, "parse_timestamp(\"%s\"): %s", s, strerror(-r));
        return u / USEC_PER_SEC;
}

static void use_tz(const char *tz) {
        CHECK(setenv("TZ", tz, 1) == 0);
        tzset();
}

TEST(timestamp_parser) {
        uint64_t u;
        use_tz("UTC");

        CHECK_INT(ts("now"), ==, 1710504000);
        CHECK_INT(ts("  now "), ==, 1710504000);
        CHECK_INT(ts("today"), ==, 1710460800);
        CHECK_INT(ts("yesterday"), ==, 1710374400);
        CHECK_INT(ts("tomorrow"), ==, 1710547200);
        CHECK_INT(ts("@1000"), ==, 1000);
        CHECK(parse_timestamp("@1000.5", T_NOW, &u) == 0 && u == 1000500000);

        /* relative */
        CHECK_INT(ts("-1h"), ==, 1710504000 - 3600);
        CHECK_INT(ts("+30min"), ==, 1710504000 + 1800);
        CHECK_INT(ts("2 hours ago"), ==, 1710504000 - 7200);
        CHECK_INT(ts("1h 30min ago"), ==, 1710504000 - 5400);
        CHECK_INT(ts("1h30min ago"), ==, 1710504000 - 5400);
        CHECK_INT(ts("3 days ago"), ==, 1710504000 - 3 * 86400);
        CHECK_INT(ts("1 week left"), ==, 1710504000 + 7 * 86400);
        CHECK_INT(ts("-90"), ==, 1710504000 - 90);
        CHECK_INT(ts("-1.5h"), ==, 1710504000 - 5400);

        /* absolute */
        CHECK_INT(ts("2024-02-29 10:20:30"), ==, 1709202030);
        CHECK_INT(ts("2024-02-29T10:20:30"), ==, 1709202030);
        CHECK_INT(ts("Thu 2024-02-29 10:20:30"), ==, 1709202030);
        CHECK_INT(ts("thursday 2024-02-29 10:20:30"), ==, 1709202030);
        CHECK_INT(ts("2024-02-29 10:20"), ==, 1709202000);
        CHECK_INT(ts("2024-02-29"), ==, 1709164800);
        CHECK_INT(ts("2024-02-29 10:20:30 UTC"), ==, 1709202030);
        CHECK_INT(ts("2024-02-29 10:20:30Z"), ==, 1709202030);
        CHECK_INT(ts("2024-02-29 11:20:30+01:00"), ==, 1709202030);
        CHECK_INT(ts("2024-02-29 05:20:30 -0500"), ==, 1709202030);
        CHECK(parse_timestamp("2024-02-29 10:20:30.25", T_NOW, &u) == 0 && u == UINT64_C(1709202030250000));
        CHECK_INT(ts("10:00"), ==, 1710496800);            /* today */
        CHECK_INT(ts("10:00:05"), ==, 1710496805);

        /* local time: Berlin is UTC+1 in March before the switch */
        use_tz("Europe/Berlin");
        if (ts("2024-03-15 12:00") == 1710500400) {        /* skip if tzdata is missing */
                CHECK_INT(ts("2024-03-15 12:00 UTC"), ==, 1710504000);
                CHECK_INT(ts("2024-07-01 12:00"), ==, 1719828000); /* summer time */
                CHECK_INT(ts("today"), ==, 1710457200);
        }
        use_tz("UTC");

        static const char *const bad[] = {
                "", "   ", "yesterday-ish", "soon", "-", "-1 fortnight", "1h", "2 hours", "ago", "@", "@-5", "@1h",
                "2024-02-30", "2023-02-29", "2024-13-01", "2024-00-10", "2024-1-1x", "24:00", "12:60",
                "12:3", "Fri 2024-02-29", "Fry 2024-03-15", "2024-02-29 10:20:30 Mars", "12:00 +25:00",
                "1969-12-31", "2024-02-29 10:20:", "10:20:30.", "99999999999999999999h ago",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (parse_timestamp(bad[i], T_NOW, &u) >= 0)
                        test_fail(__FILE__, __LINE__, "parse_timestamp(\"%s\") accepted", bad[i]);
        CHECK_INT(parse_timestamp("2 days ago", UINT64_C(1000), &u), ==, -ERANGE);
}

TEST(timespan_parser) {
        uint64_t u;
        CHECK(parse_duration("90", &u) == 0 && u == 90 * USEC_PER_SEC);
        CHECK(parse_duration("500ms", &u) == 0 && u == 500 * USEC_PER_MSEC);
        CHECK(parse_duration("2 minutes 3s", &u) == 0 && u == 123 * USEC_PER_SEC);
        CHECK(parse_duration("1d", &u) == 0 && u == 86400 * USEC_PER_SEC);
        CHECK(parse_duration("1w", &u) == 0 && u == 7 * 86400 * USEC_PER_SEC);
        CHECK(parse_duration("1M", &u) == 0 && u == UINT64_C(2629800) * USEC_PER_SEC);
        CHECK(parse_duration("1m", &u) == 0 && u == 60 * USEC_PER_SEC);
        CHECK(parse_duration("1y", &u) == 0 && u == UINT64_C(31557600) * USEC_PER_SEC);
        CHECK(parse_duration("5us", &u) == 0 && u == 5);
        CHECK(parse_duration("", &u) == -EINVAL);
        CHECK(parse_duration("h", &u) == -EINVAL);
        CHECK(parse_duration("1 parsec", &u) == -EINVAL);
        CHECK(parse_duration("-1s", &u) == -EINVAL);
}

TEST(timestamp_relative) {
        char buf[64];
        const uint64_t now = T_NOW, s = USEC_PER_SEC;
        CHECK_STR(format_timestamp_relative(buf, now, now), "now");
        CHECK_STR(format_timestamp_relative(buf, now - 42 * s, now), "42s ago");
        CHECK_STR(format_timestamp_relative(buf, now - 150 * s, now), "2min 30s ago");
        CHECK_STR(format_timestamp_relative(buf, now - 180 * s, now), "3min ago");
        CHECK_STR(format_timestamp_relative(buf, now - 3 * 60 * s - 20 * s - 6 * 60 * s, now), "9min ago");
        CHECK_STR(format_timestamp_relative(buf, now - 3900 * s, now), "1h 5min ago");
        CHECK_STR(format_timestamp_relative(buf, now - 2 * 3600 * s, now), "2h ago");
        CHECK_STR(format_timestamp_relative(buf, now - 7 * 3600 * s, now), "7h ago");
        CHECK_STR(format_timestamp_relative(buf, now - 27 * 3600 * s, now), "1 day 3h ago");
        CHECK_STR(format_timestamp_relative(buf, now - 3 * 86400 * s, now), "3 days ago");
        CHECK_STR(format_timestamp_relative(buf, now - 9 * 86400 * s, now), "1 week 2 days ago");
        CHECK_STR(format_timestamp_relative(buf, now - 61 * 86400 * s, now), "2 months ago");
        CHECK_STR(format_timestamp_relative(buf, now - 400 * 86400 * s, now), "1 year 1 month ago");
        CHECK_STR(format_timestamp_relative(buf, now + 300 * s, now), "in 5min");
}

/* ---- configuration ---- */

static int load_config_text(const char *text, struct config *c, struct log_capture *logs, char **ret_path) {
        _cleanup_free_ char *dir = tmpdir_new();
        CHECK_OK(write_text_file(dir, "coredumpd.conf", text));
        CHECK(asprintf(ret_path, "%s/coredumpd.conf", dir) > 0);
        int r = config_load(c, *ret_path, true);
        tmpdir_remove(dir);
        return r;
}

TEST(config_parsing) {
        struct log_capture logs;
        struct config c;
        _cleanup_free_ char *path = NULL;
        log_capture_start(&logs);

        config_init_defaults(&c);
        CHECK_STR(c.storage, "/var/lib/coredumpd");
        CHECK_INT(c.deadline_usec, ==, 60 * USEC_PER_SEC);
        CHECK_INT(c.compress, ==, COMPRESSION_ZSTD);
        /* A repeat past the burst keeps its record only (issue 26: a crash loop's stacks cores). */
        CHECK_INT(c.rate_limit_burst, ==, 5);
        CHECK_INT(c.on_repeat, ==, ACTION_REJECT);

        CHECK_OK(load_config_text("# comment\n[Coredump]\nStorage=/srv/cores\nMaxUse=10G\nKeepFree=auto\n"
                                  "MaxSize=2G\nCompress=none\nCompressLevel=9\nMaxConcurrent=4\n"
                                  "Deadline=30s\nIdleExit=0\n", &c, &logs, &path));
        CHECK_STR(c.storage, "/srv/cores");
        CHECK_INT(c.max_use, ==, UINT64_C(10) << 30);
        CHECK_INT(c.keep_free, ==, SIZE_AUTO);
        CHECK_INT(c.max_size, ==, UINT64_C(2) << 30);
        CHECK_INT(c.compress, ==, COMPRESSION_NONE);
        CHECK_INT(c.compress_level, ==, 9);
        CHECK_INT(c.max_concurrent, ==, 4);
        CHECK_INT(c.deadline_usec, ==, 30 * USEC_PER_SEC);
        CHECK_INT(c.idle_exit_usec, ==, 0);
        config_done(&c);
        log_capture_stop(&logs);
}

/* A wrong line is logged at file:line and left out; the lines around it apply (as in systemd). */
static void check_bad_config(const char *text, const char *message) {
        struct log_capture logs;
        struct config c;
        _cleanup_free_ char *path = NULL, *needle = NULL;

        log_capture_start(&logs);
        config_init_defaults(&c);
        CHECK_INT(load_config_text(text, &c, &logs, &path), ==, 1);
        CHECK(asprintf(&needle, "%s:%s", path, message) > 0);
        if (!log_capture_contains(&logs, needle))
                test_fail(__FILE__, __LINE__, "no log line containing '%s'", needle);
        CHECK(log_capture_contains(&logs, ", ignored (hint: "));
        config_done(&c);
        log_capture_stop(&logs);
}

TEST(config_errors_name_file_and_line) {
        check_bad_config("[Coredump]\nStorage=/x\nBogus=1\n", "3: unknown key 'Bogus'");
        check_bad_config("[Coredump]\nMaxConcurrent=0\n", "2: invalid MaxConcurrent=");
        check_bad_config("[Other]\nMaxUse=1G\n", "1: unknown section [Other]");
        check_bad_config("[Coredump]\nStorage=relative\n", "2: Storage= must be an absolute path");
        check_bad_config("[Coredump]\nStorage=/a\nthis is not ini\n", "3: syntax error");
        check_bad_config("[Coredump]\nDeadline=soon\n", "2: invalid Deadline=");
        check_bad_config("[Coredump]\nMaxAge=fortnight\n", "2: invalid MaxAge=");
        check_bad_config("[Coredump]\nMaxAge=500ms\n", "2: invalid MaxAge=");
}

/* The rest of a file with a wrong line applies: a typo never stops the daemon, nor drops the
 * operator's other settings. */
TEST(config_bad_line_keeps_the_rest) {
        struct log_capture logs;
        struct config c;
        _cleanup_free_ char *path = NULL;

        log_capture_start(&logs);
        config_init_defaults(&c);
        CHECK_INT(load_config_text("[Coredump]\nStorage=/x\nMaxSise=1G\nMaxConcurrent=none\nMaxAge=1w\n"
                                   "[Coredumpp]\nMaxUse=1G\n[Coredump]\nCompress=none\n", &c, &logs, &path), ==, 3);
        CHECK_STR(c.storage, "/x");
        CHECK_INT(c.max_age_usec, ==, 7 * 86400 * USEC_PER_SEC);
        CHECK_INT(c.compress, ==, COMPRESSION_NONE);
        CHECK_INT(c.max_concurrent, ==, 16);    /* the default, where the value was wrong */
        CHECK_INT(c.max_use, ==, SIZE_AUTO);    /* in the unknown section */
        config_done(&c);
        log_capture_stop(&logs);
}

/* MaxAge=: systemd-coredump's 3 days by default; 0 and infinity: no age limit. */
TEST(config_max_age) {
        struct log_capture logs;
        struct config c;
        _cleanup_free_ char *path = NULL;
        char b[32];

        config_init_defaults(&c);
        CHECK_INT(c.max_age_usec, ==, 3 * 86400 * USEC_PER_SEC);
        CHECK_STR(format_max_age(b, c.max_age_usec), "3d");
        log_capture_start(&logs);
        CHECK_INT(load_config_text("[Coredump]\nMaxAge=0\n", &c, &logs, &path), ==, 0);
        CHECK_INT(c.max_age_usec, ==, USEC_INFINITY);
        CHECK_STR(format_max_age(b, c.max_age_usec), "infinity");
        free(path);
        path = NULL;
        CHECK_INT(load_config_text("[Coredump]\nMaxAge=36h\n", &c, &logs, &path), ==, 0);
        CHECK_INT(c.max_age_usec, ==, 36 * 3600 * USEC_PER_SEC);
        free(path);
        path = NULL;
        CHECK_INT(load_config_text("[Coredump]\nMaxAge=infinity\n", &c, &logs, &path), ==, 0);
        CHECK_INT(c.max_age_usec, ==, USEC_INFINITY);
        config_done(&c);
        log_capture_stop(&logs);
}

/* JournalSizeMax=: the compact core in a record, 1M by default; 0 for none, else 4K..64M (the
 * parser's own cap); a value outside is left out at file:line and the default stays. */
TEST(config_journal_size_max) {
        struct log_capture logs;
        struct config c;
        _cleanup_free_ char *path = NULL;
        char b[32];

        config_init_defaults(&c);
        CHECK_INT(c.journal_size_max, ==, UINT64_C(1) << 20);
        CHECK_STR(format_size(b, c.journal_size_max), "1M");
        CHECK_INT(JOURNAL_SIZE_MAX_LIMIT, ==, PARSER_COMPACT_MAX);
        log_capture_start(&logs);
        static const struct {
                const char *value;
                uint64_t want;
        } good[] = {
                { "0", 0 }, { "4K", 4096 }, { "4096", 4096 }, { "256K", 256 << 10 }, { "64M", UINT64_C(64) << 20 },
        };
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                _cleanup_free_ char *text = NULL;
                CHECK(asprintf(&text, "[Coredump]\nJournalSizeMax=%s\n", good[i].value) > 0);
                free(path);
                path = NULL;
                CHECK_INT(load_config_text(text, &c, &logs, &path), ==, 0);
                CHECK_INT(c.journal_size_max, ==, good[i].want);
        }
        config_done(&c);
        log_capture_stop(&logs);

        check_bad_config("[Coredump]\nJournalSizeMax=4095\n", "2: invalid JournalSizeMax= '4095'");
        check_bad_config("[Coredump]\nJournalSizeMax=1\n", "2: invalid JournalSizeMax=");
        check_bad_config("[Coredump]\nJournalSizeMax=65537K\n", "2: invalid JournalSizeMax=");
        check_bad_config("[Coredump]\nJournalSizeMax=1G\n", "2: invalid JournalSizeMax=");
        check_bad_config("[Coredump]\nJournalSizeMax=infinity\n", "2: invalid JournalSizeMax=");
        check_bad_config("[Coredump]\nJournalSizeMax=big\n", "2: invalid JournalSizeMax=");

        /* A wrong value keeps what was there. */
        config_init_defaults(&c);
        log_capture_start(&logs);
        free(path);
        path = NULL;
        CHECK_INT(load_config_text("[Coredump]\nJournalSizeMax=2K\n", &c, &logs, &path), ==, 1);
        CHECK_INT(c.journal_size_max, ==, UINT64_C(1) << 20);
        config_done(&c);
        log_capture_stop(&logs);
}

TEST(config_missing_file) {
        struct config c;
        config_init_defaults(&c);
        CHECK_OK(config_load(&c, "/nonexistent/coredumpd.conf", false));
        struct log_capture logs;
        log_capture_start(&logs);
        CHECK(config_load(&c, "/nonexistent/coredumpd.conf", true) < 0);
        log_capture_stop(&logs);
        config_done(&c);
}

/* Drop-ins: coredumpd.conf, then coredumpd.conf.d's *.conf sorted by name across /etc, /run and
 * /usr/lib, a name in /etc masking the same name in /run and /usr/lib, /dev/null masking it all. */
TEST(config_dropins_precedence) {
        _cleanup_free_ char *root = tmpdir_new();
        _cleanup_free_ char *etc = NULL, *run = NULL, *lib = NULL, *main_path = NULL, *masked = NULL;
        CHECK(asprintf(&etc, "%s/etc", root) > 0 && asprintf(&run, "%s/run", root) > 0 &&
              asprintf(&lib, "%s/lib", root) > 0 && asprintf(&main_path, "%s/coredumpd.conf", root) > 0);
        CHECK(mkdir(etc, 0755) == 0 && mkdir(run, 0755) == 0 && mkdir(lib, 0755) == 0);

        CHECK_OK(write_text_file(root, "coredumpd.conf", "[Coredump]\nMaxSize=1G\nMaxUse=1G\nCompress=none\n"));
        CHECK_OK(write_text_file(lib, "10-a.conf", "[Coredump]\nMaxSize=5G\nCompressLevel=5\n")); /* masked by etc */
        CHECK_OK(write_text_file(run, "10-a.conf", "[Coredump]\nCompressLevel=9\n"));               /* masked by etc */
        CHECK_OK(write_text_file(etc, "10-a.conf", "[Coredump]\nMaxSize=2G\n"));
        CHECK_OK(write_text_file(lib, "05-c.conf", "[Coredump]\nMaxUse=4G\nIdleExit=0\n"));          /* before 20-b */
        CHECK_OK(write_text_file(run, "20-b.conf", "[Coredump]\nMaxUse=3G\n"));
        CHECK_OK(write_text_file(lib, "30-masked.conf", "[Coredump]\nCompress=zstd\n"));
        CHECK_OK(write_text_file(lib, "40-not-a-dropin.txt", "[Coredump]\nMaxQueued=1\n"));
        CHECK(asprintf(&masked, "%s/30-masked.conf", etc) > 0 && symlink("/dev/null", masked) == 0);

        const char *dirs[] = { etc, run, lib, NULL };
        struct conf_file_list files = {};
        CHECK_OK(conf_files_list(dirs, &files));
        CHECK_INT(files.n, ==, 4);
        CHECK_STR(files.files[0].name, "05-c.conf");
        CHECK(strncmp(files.files[1].path, etc, strlen(etc)) == 0 && !files.files[1].masked);
        CHECK_STR(files.files[2].name, "20-b.conf");
        CHECK(files.files[3].masked);
        conf_file_list_done(&files);

        struct config c;
        config_init_defaults(&c);
        CHECK_OK(config_load_with_dropins(&c, main_path, true, dirs));
        CHECK_INT(c.max_size, ==, UINT64_C(2) << 30);   /* /etc's 10-a, not /usr/lib's nor /run's */
        CHECK_INT(c.compress_level, ==, 3);
        CHECK_INT(c.max_use, ==, UINT64_C(3) << 30);    /* 20-b after 05-c, across directories */
        CHECK_INT(c.idle_exit_usec, ==, 0);
        CHECK_INT(c.compress, ==, COMPRESSION_NONE);    /* 30-masked masked */
        CHECK_INT(c.max_queued, ==, 256);
        config_done(&c);

        /* Without drop-in directories: the main file alone; a missing main file with drop-ins. */
        config_init_defaults(&c);
        CHECK_OK(config_load_with_dropins(&c, main_path, true, NULL));
        CHECK_INT(c.max_size, ==, UINT64_C(1) << 30);
        config_done(&c);
        config_init_defaults(&c);
        CHECK_OK(config_load_with_dropins(&c, "/nonexistent/coredumpd.conf", false, dirs));
        CHECK_INT(c.max_size, ==, UINT64_C(2) << 30);
        config_done(&c);

        /* Which directories: given ones, none for an explicit --config=, else the defaults. */
        char *given[] = { etc, NULL };
        CHECK(config_dropin_dirs(given, true) == (const char *const *) given);
        CHECK(config_dropin_dirs(NULL, true) == NULL);
        const char *const *def = config_dropin_dirs(NULL, false);
        CHECK_STR(def[0], "/etc/coredumpd/coredumpd.conf.d");
        CHECK_STR(def[1], "/run/coredumpd/coredumpd.conf.d");
        CHECK_STR(def[2], "/usr/lib/coredumpd/coredumpd.conf.d");
        CHECK(def[3] == NULL);
        CHECK_STR(policy_default_dirs()[0], "/etc/coredumpd/policy.d"); /* the same lookup */
        tmpdir_remove(root);
}

/* Every error of every file, each at its line with a hint; the rest is applied. */
TEST(config_every_error_reported_with_hint) {
        _cleanup_free_ char *root = tmpdir_new(), *main_path = NULL, *d = NULL;
        CHECK(asprintf(&main_path, "%s/coredumpd.conf", root) > 0 && asprintf(&d, "%s/conf.d", root) > 0);
        CHECK(mkdir(d, 0755) == 0);
        CHECK_OK(write_text_file(root, "coredumpd.conf",
                                 "[Coredump]\nMaxUze=1G\nCompress=lz4\nStorage=/ok\nDeadline=soon\njunk line\n"
                                 "[Other]\nA=1\nB=2\nBogusThing=1\n"));
        CHECK_OK(write_text_file(d, "50-x.conf", "[Coredump]\nMaxConcurrent=0\nMaxsize=1G\n"));
        struct log_capture logs;
        log_capture_start(&logs);
        struct config c;
        config_init_defaults(&c);
        const char *dirs[] = { d, NULL };
        CHECK_INT(config_load_with_dropins(&c, main_path, true, dirs), ==, 7);
        CHECK_STR(c.storage, "/ok"); /* the line between the wrong ones */

        static const char *const main_errors[] = {
                ":2: unknown key 'MaxUze' in [Coredump], ignored (hint: did you mean MaxUse=?)",
                ":3: invalid Compress= 'lz4', expected zstd or none, ignored (hint: ",
                ":5: invalid Deadline= 'soon', ignored (hint: a duration such as",
                ":6: syntax error (expected [Section] or Key=Value), ignored (hint: ",
                ":7: unknown section [Other], expected [Coredump], ignored (hint: ",
        };
        for (size_t i = 0; i < ELEMENTSOF(main_errors); i++) {
                _cleanup_free_ char *needle = NULL;
                CHECK(asprintf(&needle, "%s%s", main_path, main_errors[i]) > 0);
                if (!log_capture_contains(&logs, needle))
                        test_fail(__FILE__, __LINE__, "no log line containing '%s'", needle);
        }
        _cleanup_free_ char *n1 = NULL, *n2 = NULL, *n3 = NULL;
        CHECK(asprintf(&n1, "%s/50-x.conf:2: invalid MaxConcurrent= '0', expected 1..1024, ignored (hint: ", d) > 0);
        CHECK(asprintf(&n2, "%s/50-x.conf:3: unknown key 'Maxsize' in [Coredump], ignored (hint: did you mean MaxSize=?)", d) > 0);
        CHECK(log_capture_contains(&logs, n1) && log_capture_contains(&logs, n2));
        /* One error per unknown section, not per key in it; a key far from any: the manual. */
        CHECK(!log_capture_contains(&logs, ":8: unknown section"));
        CHECK(asprintf(&n3, "%s:1: unknown key 'Zzz' in [Coredump], ignored (hint: the keys of [Coredump] are listed in "
                            "coredumpd.conf(5))", main_path) > 0);
        CHECK_OK(write_text_file(root, "coredumpd.conf", "[Coredump]\nZzz=1\n"));
        n3[strlen(main_path) + 1] = '2';
        CHECK_INT(config_load(&c, main_path, true), ==, 1);
        if (!log_capture_contains(&logs, n3))
                test_fail(__FILE__, __LINE__, "no log line containing '%s'", n3);
        config_done(&c);
        log_capture_stop(&logs);
        tmpdir_remove(root);
}

/* The effective configuration printed back reads back as the same configuration. */
TEST(config_print_round_trips) {
        _cleanup_free_ char *root = tmpdir_new(), *path = NULL, *text = NULL;
        size_t size;
        struct config a, b;
        config_init_defaults(&a);
        config_init_defaults(&b);
        CHECK(asprintf(&path, "%s/printed.conf", root) > 0);
        CHECK_OK(write_text_file(root, "in.conf", "[Coredump]\nStorage=/srv/c\nMaxUse=3G\nKeepFree=512M\n"
                                                  "Deadline=90s\nUnwindTimeout=0\nOnRepeat=reject\nMinRate=2M\n"
                                                  "JournalSizeMax=192K\n"));
        _cleanup_free_ char *in = NULL;
        CHECK(asprintf(&in, "%s/in.conf", root) > 0);
        CHECK_OK(config_load(&a, in, true));
        FILE *f = open_memstream(&text, &size);
        CHECK(f);
        config_print(&a, f);
        fclose(f);
        CHECK(strstr(text, "[Coredump]\nStorage=/srv/c\nMaxUse=3G\n"));
        CHECK(strstr(text, "\nDeadlineSec=90s\n") && strstr(text, "\nUnwindTimeoutSec=0\n") && strstr(text, "\nOnRepeat=reject\n"));
        CHECK(strstr(text, "\nJournalSizeMax=192K\n"));
        CHECK_OK(write_text_file(root, "printed.conf", text));
        CHECK_OK(config_load(&b, path, true));
        CHECK_STR(a.storage, b.storage);
#define SAME(field) CHECK_INT(a.field, ==, b.field)
        SAME(max_use); SAME(max_use_per_user); SAME(keep_free); SAME(max_size); SAME(compress);
        SAME(compress_level); SAME(max_concurrent); SAME(max_concurrent_per_user); SAME(reserved_concurrent);
        SAME(max_queued); SAME(deadline_usec); SAME(queue_deadline_usec); SAME(unwind_timeout_usec);
        SAME(rate_limit_interval_usec); SAME(rate_limit_burst); SAME(on_repeat); SAME(unwind_max_frames);
        SAME(min_rate); SAME(idle_exit_usec); SAME(journal_size_max);
#undef SAME
        CHECK_INT(a.on_repeat, ==, ACTION_REJECT);
        config_done(&a);
        config_done(&b);
        tmpdir_remove(root);
}

/* JournalCore=: user by default (the compact core only in a regular user's own journal); system
 * and no; anything else is left out at file:line and the default stays. */
TEST(config_journal_core) {
        struct log_capture logs;
        struct config c;
        _cleanup_free_ char *path = NULL;

        config_init_defaults(&c);
        CHECK_INT(c.journal_core, ==, JOURNAL_CORE_USER);
        log_capture_start(&logs);
        static const struct {
                const char *value;
                enum journal_core want;
        } good[] = { { "system", JOURNAL_CORE_SYSTEM }, { "no", JOURNAL_CORE_NO }, { "user", JOURNAL_CORE_USER } };
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                _cleanup_free_ char *text = NULL, *printed = NULL, *want = NULL;
                size_t printed_size;
                CHECK(asprintf(&text, "[Coredump]\nJournalCore=%s\n", good[i].value) > 0);
                free(path);
                path = NULL;
                CHECK_INT(load_config_text(text, &c, &logs, &path), ==, 0);
                CHECK_INT(c.journal_core, ==, good[i].want);
                FILE *out = open_memstream(&printed, &printed_size);
                config_print(&c, out);
                fclose(out);
                CHECK(asprintf(&want, "\nJournalCore=%s\n", good[i].value) > 0);
                CHECK(strstr(printed, want));
        }
        config_done(&c);
        log_capture_stop(&logs);

        check_bad_config("[Coredump]\nJournalCore=yes\n", "2: invalid JournalCore= 'yes', expected user, system or no");
        check_bad_config("[Coredump]\nStorage=/x\nJournalCore=System\n", "3: invalid JournalCore= 'System'");
        check_bad_config("[Coredump]\nJournalCore=\n", "2: invalid JournalCore=");
        check_bad_config("[Coredump]\nJournalCore=collector\n", "2: invalid JournalCore=");
}

/* ---- policy ---- */

static struct policy *policy_from_text(const char *text) {
        _cleanup_fclose_ FILE *f = fmemopen((void *) text, strlen(text), "r");
        struct policy *p = policy_new();
        CHECK(f && p);
        CHECK_OK(policy_parse_file(p, f, "/etc/coredumpd/policy.d/test.conf"));
        CHECK_OK(policy_add_builtin_rules(p));
        return p;
}

static struct crash_context sample_context(void) {
        return (struct crash_context) {
                .pid = 100,
                .uid = 1000,
                .euid = 1000,
                .gid = 100,
                .egid = 100,
                .comm = (char *) "python3",
                .exe = (char *) "/usr/bin/python3.11",
                .unit = (char *) "app.service",
                .slice = (char *) "system.slice",
                .signal = SIGSEGV,
                .rlimit_known = true,
                .rlimit_core = RLIMIT_UNLIMITED,
                .dumpable = true,
                .at_secure = 0,
                .container = {
                        .kind = (char *) "nspawn",
                        .name = (char *) "web-1",
                        .ns = { 11, 12, 13 },
                        .host_ns = { 1, 2, 3 },
                },
        };
}

static const char *decide_rule(const struct policy *p, struct crash_context *ctx) {
        const struct policy_rule *r = policy_find_rule(p, ctx);
        return r ? r->name : NULL;
}

/* Each Match*= names the context part it reads; the pidfd's facts need none. */
TEST(policy_rule_needs_the_parts_it_matches_on) {
        static const char text[] =
                "[Rule]\nName=ids\nMatchUID=0\nMatchGID=0\nMatchSignal=11\nMatchDumpable=yes\nAction=reject\n"
                "[Rule]\nName=names\nMatchComm=a*\nMatchExe=/b\nAction=reject\n"
                "[Rule]\nName=where\nMatchUnit=x.service\nMatchContainer=yes\nAction=reject\n"
                "[Rule]\nName=how\nMatchSiCode=SEGV_MAPERR\nMatchFaultAddress=null\nAction=reject\n";
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text(text);
        CHECK_INT(p->n_rules, ==, 6);
        CHECK_INT(policy_rule_needs(&p->rules[0]), ==, 0);
        CHECK_INT(policy_rule_needs(&p->rules[1]), ==, CONTEXT_COMM | CONTEXT_EXE);
        CHECK_INT(policy_rule_needs(&p->rules[2]), ==, CONTEXT_CGROUP | CONTEXT_CONTAINER);
        CHECK_INT(policy_rule_needs(&p->rules[3]), ==, CONTEXT_PROBE);
        CHECK_INT(policy_rule_needs(&p->rules[4]), ==, CONTEXT_RLIMIT);        /* builtin:rlimit-zero */
        CHECK_INT(policy_rule_needs(&p->rules[5]), ==, 0);                     /* builtin:keep */
        /* None of them is in a process's memory: the policy can run on the event loop. */
        for (size_t i = 0; i < p->n_rules; i++)
                CHECK_INT(policy_rule_needs(&p->rules[i]) & ~CONTEXT_LOOP_SAFE, ==, 0);
}

TEST(policy_every_key_round_trips) {
        static const char text[] =
                "[Rule]\n"
                "Name=everything\n"
                "MatchExe=/usr/bin/*\n"
                "MatchExe=/opt/*\n"
                "MatchComm=py*\n"
                "MatchUnit=*.service\n"
                "MatchSlice=system.slice\n"
                "MatchContainer=web*\n"
                "MatchContainer=yes\n"
                "MatchMachine=web-*\n"
                "MatchUID=0 1000-1999\n"
                "MatchGID=100,200\n"
                "MatchSignal=SIGSEGV abrt 7\n"
                "MatchDumpable=yes\n"
                "MatchRlimitZero=no\n"
                "Action=userspace\n"
                "Wait=no\n"
                "MaxSize=2G\n"
                "Compress=none\n";
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text(text);
        CHECK_INT(p->n_rules, ==, 3);

        _cleanup_free_ char *printed = NULL;
        size_t printed_size;
        FILE *out = open_memstream(&printed, &printed_size);
        policy_print(p, out);
        fclose(out);
        CHECK(strstr(printed, "# /etc/coredumpd/policy.d/test.conf:1\n[Rule]\nName=everything\n"
                              "MatchExe=/usr/bin/*\nMatchExe=/opt/*\nMatchComm=py*\nMatchUnit=*.service\n"
                              "MatchSlice=system.slice\nMatchContainer=web*\nMatchContainer=yes\nMatchMachine=web-*\n"
                              "MatchUID=0 1000-1999\nMatchGID=100 200\n"
                              "MatchSignal=SIGSEGV SIGABRT SIGBUS\nMatchDumpable=yes\nMatchRlimitZero=no\n"
                              "Action=userspace\nWait=no\nMaxSize=2G\nCompress=none\n"));
        CHECK(strstr(printed, "Name=builtin:rlimit-zero\nMatchRlimitZero=yes\nAction=reject\n"));
        CHECK(strstr(printed, "Name=builtin:keep\nAction=kernel\n"));

        /* What is printed parses back to the same. */
        _cleanup_(policy_unrefp) struct policy *again = policy_new();
        _cleanup_fclose_ FILE *in = fmemopen(printed, printed_size, "r");
        CHECK_OK(policy_parse_file(again, in, "/etc/coredumpd/policy.d/test.conf"));
        CHECK_INT(again->n_rules, ==, 3);

        struct crash_context ctx = sample_context();
        CHECK_STR(decide_rule(p, &ctx), "everything");
        struct decision d;
        struct config c;
        config_init_defaults(&c);
        CHECK_OK(policy_decide(p, &c, &ctx, &d));
        CHECK_INT(d.action, ==, ACTION_USERSPACE);
        CHECK(!d.wait);
        CHECK_INT(d.max_size, ==, UINT64_C(2) << 30);
        CHECK_INT(d.compress, ==, COMPRESSION_NONE);
        decision_done(&d);
        config_done(&c);
}

/* Every match key alone: the sample matches, and one changed field makes it miss. */
static const char *const match_lines[] = {
        "MatchExe=/usr/bin/python*",
        "MatchComm=python?",
        "MatchUnit=app.service",
        "MatchSlice=system.slice",
        "MatchUID=999-1000",
        "MatchGID=100",
        "MatchSignal=SIGSEGV SIGBUS",
        "MatchDumpable=yes",
        "MatchRlimitZero=no",
        "MatchContainer=web-?",
};

static void spoil_context(struct crash_context *c, size_t key) {
        switch (key) {
        case 0: c->exe = (char *) "/usr/sbin/python3"; break;
        case 1: c->comm = (char *) "python"; break;
        case 2: c->unit = NULL; break;
        case 3: c->slice = (char *) "user.slice"; break;
        case 4: c->uid = 1001; break;
        case 5: c->gid = 0; break;
        case 6: c->signal = SIGABRT; break;
        case 7: c->dumpable = false; break;
        case 8: c->rlimit_core = 0; break;
        case 9: c->container.name = (char *) "db-1"; break;
        }
}

TEST(policy_each_match_key) {
        for (size_t i = 0; i < ELEMENTSOF(match_lines); i++) {
                _cleanup_free_ char *text = NULL;
                CHECK(asprintf(&text, "[Rule]\nName=k\n%s\nAction=reject\n", match_lines[i]) > 0);
                _cleanup_(policy_unrefp) struct policy *p = policy_from_text(text);
                struct crash_context ctx = sample_context();
                CHECK_STR(decide_rule(p, &ctx), "k");
                spoil_context(&ctx, i);
                if (i == 8)
                        CHECK_STR(decide_rule(p, &ctx), "builtin:rlimit-zero");
                else
                        CHECK_STR(decide_rule(p, &ctx), "builtin:keep");
        }
}

/* MatchContainer=: yes is any container (named, or a pid namespace of its own), no is the host. */
/* MatchMachine=: a machined machine's name only (nspawn, machine-NAME.scope); yes/no: in one or not. */
TEST(policy_match_machine_only_machined_machines) {
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text(
                "[Rule]\nName=ct\nMatchMachine=ct*\nAction=reject\n"
                "[Rule]\nName=machines\nMatchMachine=yes\nAction=userspace\n"
                "[Rule]\nName=rest\nMatchMachine=no\nAction=kernel\n");
        struct crash_context ctx = sample_context();
        ctx.container.name = (char *) "ctest";
        ctx.container.kind = (char *) "machine";
        CHECK_STR(decide_rule(p, &ctx), "ct");
        ctx.container.kind = (char *) "nspawn";
        CHECK_STR(decide_rule(p, &ctx), "ct");
        ctx.container.name = (char *) "web";
        CHECK_STR(decide_rule(p, &ctx), "machines");
        /* A docker container named ctest is no machine. */
        ctx.container.name = (char *) "ctest";
        ctx.container.kind = (char *) "docker";
        CHECK_STR(decide_rule(p, &ctx), "rest");
        ctx.container.name = ctx.container.kind = NULL;
        CHECK_STR(decide_rule(p, &ctx), "rest");
}

TEST(policy_match_container_yes_no_and_globs) {
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text(
                "[Rule]\nName=host\nMatchContainer=no\nAction=kernel\n"
                "[Rule]\nName=db\nMatchContainer=db*\nMatchContainer=cache\nAction=reject\n"
                "[Rule]\nName=any\nMatchContainer=yes\nAction=userspace\n");
        struct crash_context ctx = sample_context();
        CHECK_STR(decide_rule(p, &ctx), "any");         /* web-1 */
        ctx.container.name = (char *) "db-7";
        CHECK_STR(decide_rule(p, &ctx), "db");
        ctx.container.name = (char *) "cache";
        CHECK_STR(decide_rule(p, &ctx), "db");

        /* No name, but a pid namespace of its own: a container all the same. */
        ctx.container.name = ctx.container.kind = NULL;
        CHECK_STR(decide_rule(p, &ctx), "any");
        /* A mount or user namespace alone (a sandboxed service) is the host. */
        ctx.container.ns[NAMESPACE_PID] = ctx.container.host_ns[NAMESPACE_PID];
        CHECK_STR(decide_rule(p, &ctx), "host");
        /* Namespaces unknown and no name: the host. */
        memset(ctx.container.ns, 0, sizeof ctx.container.ns);
        CHECK_STR(decide_rule(p, &ctx), "host");

        /* A glob never matches a crash without a container name. */
        _cleanup_(policy_unrefp) struct policy *g = policy_from_text("[Rule]\nName=g\nMatchContainer=*\nAction=reject\n");
        CHECK_STR(decide_rule(g, &ctx), "builtin:keep");
        ctx.container.name = (char *) "x";
        CHECK_STR(decide_rule(g, &ctx), "g");
}

TEST(policy_exe_match_sees_through_deleted) {
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text("[Rule]\nName=d\nMatchExe=/usr/bin/app\nAction=reject\n");
        struct crash_context ctx = sample_context();
        ctx.exe = (char *) "/usr/bin/app (deleted)";
        CHECK_STR(decide_rule(p, &ctx), "d");
}

TEST(policy_first_match_wins_and_lists_reset) {
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text(
                "[Rule]\nName=a\nMatchComm=nomatch\nMatchComm=\nMatchComm=python3\nAction=reject\n"
                "[Rule]\nName=b\nMatchComm=python3\nAction=kernel\n");
        struct crash_context ctx = sample_context();
        CHECK_STR(decide_rule(p, &ctx), "a");
        CHECK_INT(strv_length(p->rules[0].match_comm), ==, 1);
}

TEST(policy_builtin_default) {
        _cleanup_(policy_unrefp) struct policy *p = NULL;
        _cleanup_free_ char *dir = tmpdir_new();
        const char *dirs[] = { dir, "/nonexistent", NULL };
        CHECK_OK(policy_load(dirs, &p));
        CHECK_INT(p->n_rules, ==, 2);

        struct crash_context ctx = sample_context();
        struct config c;
        struct decision d;
        config_init_defaults(&c);
        CHECK_OK(policy_decide(p, &c, &ctx, &d));
        CHECK_INT(d.action, ==, ACTION_KERNEL);
        CHECK(d.wait);
        CHECK_INT(d.compress, ==, COMPRESSION_ZSTD);
        CHECK_INT(d.max_size, ==, c.max_size);
        decision_done(&d);

        ctx.rlimit_core = 0;
        CHECK_OK(policy_decide(p, &c, &ctx, &d));
        CHECK_INT(d.action, ==, ACTION_REJECT);
        CHECK_STR(d.rule, "builtin:rlimit-zero");
        decision_done(&d);
        config_done(&c);
        tmpdir_remove(dir);
}

TEST(policy_same_name_overrides_and_lexical_order) {
        _cleanup_free_ char *root = tmpdir_new();
        _cleanup_free_ char *etc = NULL, *vendor = NULL, *masked = NULL;
        CHECK(asprintf(&etc, "%s/etc", root) > 0 && asprintf(&vendor, "%s/vendor", root) > 0);
        CHECK(mkdir(etc, 0755) == 0 && mkdir(vendor, 0755) == 0);

        CHECK_OK(write_text_file(vendor, "10-a.conf", "[Rule]\nName=vendor-a\nMatchComm=x\nAction=reject\n"));
        CHECK_OK(write_text_file(etc, "10-a.conf", "[Rule]\nName=etc-a\nMatchComm=x\nAction=kernel\n"));
        CHECK_OK(write_text_file(vendor, "05-b.conf", "[Rule]\nName=vendor-b\nMatchComm=y\nAction=reject\n"));
        CHECK_OK(write_text_file(etc, "20-c.conf", "[Rule]\nName=etc-c\nAction=userspace\n"));
        CHECK_OK(write_text_file(vendor, "30-masked.conf", "[Rule]\nName=masked\nAction=reject\n"));
        CHECK(asprintf(&masked, "%s/30-masked.conf", etc) > 0);
        CHECK(symlink("/dev/null", masked) == 0);
        CHECK_OK(write_text_file(vendor, "README", "not a policy"));

        _cleanup_(policy_unrefp) struct policy *p = NULL;
        const char *dirs[] = { etc, vendor, NULL };
        CHECK_OK(policy_load(dirs, &p));
        CHECK_INT(p->n_rules, ==, 5);
        CHECK_STR(p->rules[0].name, "vendor-b"); /* 05 before 10 before 20 */
        CHECK_STR(p->rules[1].name, "etc-a");    /* /etc wins over the vendor file */
        CHECK_STR(p->rules[2].name, "etc-c");
        CHECK_STR(p->rules[3].name, "builtin:rlimit-zero");
        tmpdir_remove(root);
}

/* A rule with an error is left out as a whole, said at file:line; the other rules apply. kept: the
 * rules of the bad file that are fine. */
static void check_bad_policy_kept(const char *text, const char *message, size_t kept) {
        struct log_capture logs;
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_free_ char *needle = NULL;
        _cleanup_(policy_unrefp) struct policy *p = NULL;

        log_capture_start(&logs);
        CHECK_OK(write_text_file(dir, "10-ok.conf", "[Rule]\nName=ok\nAction=kernel\n"));
        CHECK_OK(write_text_file(dir, "20-bad.conf", text));
        const char *dirs[] = { dir, NULL };
        CHECK(policy_load(dirs, &p) > 0);
        CHECK(p);
        CHECK_INT(p->n_rules, ==, 1 + kept + 2);
        CHECK_STR(p->rules[0].name, "ok");
        CHECK_STR(p->rules[p->n_rules - 1].name, "builtin:keep");
        CHECK(asprintf(&needle, "%s/20-bad.conf:%s", dir, message) > 0);
        if (!log_capture_contains(&logs, needle))
                test_fail(__FILE__, __LINE__, "no log line containing '%s'", needle);
        log_capture_stop(&logs);
        tmpdir_remove(dir);
}

static void check_bad_policy(const char *text, const char *message) {
        check_bad_policy_kept(text, message, 0);
}

TEST(policy_malformed_names_file_and_line) {
        check_bad_policy("[Rule]\nName=x\nAction=explode\n", "3: invalid Action= 'explode'");
        check_bad_policy_kept("[Rule]\nName=x\n\n[Rule]\nName=y\nAction=kernel\n", "1: rule 'x' has no Action=", 1);
        check_bad_policy_kept("[Rule]\nName=x\n\n[Rule]\nName=y\nAction=kernel\n", "1: rule 'x' ignored for its errors", 1);
        check_bad_policy("[Rule]\nAction=kernel\nMatchSignal=SIGNOPE\n", "3: invalid MatchSignal= signal 'SIGNOPE'");
        check_bad_policy("[Rule]\nAction=kernel\nMatchUID=1-\n", "3: invalid MatchUID=");
        check_bad_policy("[Rule]\nAction=kernel\nMatchDumpable=perhaps\n", "3: invalid MatchDumpable=");
        check_bad_policy("[Rule]\nAction=kernel\nWait=later\n", "3: invalid Wait=");
        check_bad_policy("[Rule]\nAction=kernel\nMaxSize=0\n", "3: invalid MaxSize=");
        check_bad_policy("[Rule]\nAction=kernel\nMaxAge=soon\n", "3: invalid MaxAge=");
        check_bad_policy("[Rule]\nAction=kernel\nCompress=lz4\n", "3: invalid Compress=");
        check_bad_policy("[Rule]\nAction=kernel\nJournalCore=yes\n", "3: invalid JournalCore= 'yes', expected user, system or no");
        check_bad_policy("[Rule]\nName=f\nAction=kernel\n\nJournalCore=fleet\n", "5: invalid JournalCore= 'fleet'");
        check_bad_policy("[Rule]\nAction=kernel\nJournalCore=\n", "3: invalid JournalCore=");
        check_bad_policy("[Rule]\nAction=kernel\nNotify=always\n", "3: invalid Notify= 'always', expected first, every or none");
        check_bad_config("[Coredump]\nKeepPerSignature=-1\n", "2: invalid KeepPerSignature=");
        check_bad_config("[Coredump]\nKeepPerSignature=many\n", "2: invalid KeepPerSignature=");
        check_bad_policy("[Rule]\nAction=kernel\nMatchColour=red\n", "3: unknown key 'MatchColour'");
        check_bad_policy("Action=kernel\n", "1: 'Action=' outside of a [Rule] section");
        check_bad_policy("[Rules]\nAction=kernel\n", "1: unknown section [Rules]");
        check_bad_policy("[Rule]\nAction=kernel\nbroken line\n", "3: syntax error");
        check_bad_policy("[Rule]\nAction=kernel\nName=", "3: Name= must not be empty");
        /* The error before a rule's first key counts to it too; the rule after it stays. */
        check_bad_policy_kept("[Rule]\nbroken\nName=a\nAction=reject\n[Rule]\nName=b\nAction=reject\n", "2: syntax error", 1);

        /* Longer than the reader's bound (64 KiB; libinih's was 200 bytes). */
        _cleanup_free_ char *long_line = malloc(INI_LINE_MAX + 2);
        CHECK(long_line);
        memset(long_line, 'x', INI_LINE_MAX + 1);
        memcpy(long_line, "MatchExe=", 9);
        long_line[INI_LINE_MAX + 1] = 0;
        _cleanup_free_ char *text = NULL;
        CHECK(asprintf(&text, "[Rule]\nAction=kernel\n%s\n", long_line) > 0);
        check_bad_policy(text, "3: line too long");
}

/* Every file is read and every error reported, not just the first file's first; the rules with
 * errors are left out, the rest applies. */
TEST(policy_every_error_reported_with_hint) {
        _cleanup_free_ char *dir = tmpdir_new();
        CHECK_OK(write_text_file(dir, "10-a.conf", "[Rule]\nName=a\nAction=explode\nMatchColour=red\n\n[Rule]\nName=b\n"));
        CHECK_OK(write_text_file(dir, "20-b.conf", "Action=kernel\n[Rule]\nAction=kernel\nMatchUID=root\nWait=later\nMatchExr=/x\n"
                                                   "[Rule]\nName=good\nMatchUID=1000\nAction=reject\n"));
        struct log_capture logs;
        log_capture_start(&logs);
        _cleanup_(policy_unrefp) struct policy *p = NULL;
        const char *dirs[] = { dir, NULL };
        CHECK_INT(policy_load(dirs, &p), ==, 7);
        static const char *const errors[] = {
                "/10-a.conf:3: invalid Action= 'explode', expected kernel, userspace or reject (hint: ",
                "/10-a.conf:4: unknown key 'MatchColour' in [Rule] (hint: the keys of [Rule] are listed in coredumpd.policy(5))",
                "/10-a.conf:6: rule 'b' has no Action= (hint: add Action=",
                "/10-a.conf:1: rule 'a' ignored for its errors; the other rules apply.",
                "/20-b.conf:1: 'Action=' outside of a [Rule] section (hint: ",
                "/20-b.conf:4: invalid MatchUID= id or range 'root' (hint: ",
                "/20-b.conf:5: invalid Wait= 'later', expected yes or no (hint: ",
                "/20-b.conf:6: unknown key 'MatchExr' in [Rule] (hint: did you mean MatchExe=?)",
                "/20-b.conf:2: rule '20-b.conf:2' ignored for its errors",
        };
        for (size_t i = 0; i < ELEMENTSOF(errors); i++) {
                _cleanup_free_ char *needle = NULL;
                CHECK(asprintf(&needle, "%s%s", dir, errors[i]) > 0);
                if (!log_capture_contains(&logs, needle))
                        test_fail(__FILE__, __LINE__, "no log line containing '%s'", needle);
        }
        /* ... and what is right is in force. */
        CHECK(p);
        CHECK_INT(p->n_rules, ==, 3);
        CHECK_STR(p->rules[0].name, "good");
        CHECK_INT(p->rules[0].line, ==, 7);
        log_capture_stop(&logs);
        tmpdir_remove(dir);
}

/* Notify= of a rule: parsed, printed back, in the decision; first without it (the built-ins too). */
TEST(policy_notify) {
        static const char text[] = "[Rule]\nName=all\nMatchComm=a\nAction=kernel\nNotify=every\n\n"
                                   "[Rule]\nName=quiet\nMatchComm=q\nAction=kernel\nNotify=none\n\n"
                                   "[Rule]\nName=plain\nMatchComm=p\nAction=kernel\n";
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text(text);
        CHECK_INT(p->n_rules, ==, 5);
        CHECK_INT(p->rules[0].notify, ==, NOTIFY_EVERY);
        CHECK_INT(p->rules[1].notify, ==, NOTIFY_NONE);
        CHECK_INT(p->rules[2].notify, ==, POLICY_UNSET);
        _cleanup_free_ char *printed = NULL;
        size_t printed_size;
        FILE *out = open_memstream(&printed, &printed_size);
        policy_print(p, out);
        fclose(out);
        CHECK(strstr(printed, "Name=all\nMatchComm=a\nAction=kernel\nNotify=every\n"));
        CHECK(strstr(printed, "Name=quiet\nMatchComm=q\nAction=kernel\nNotify=none\n"));
        CHECK(strstr(printed, "Name=plain\nMatchComm=p\nAction=kernel\n\n"));
        struct config c;
        config_init_defaults(&c);
        static const struct {
                const char *comm;
                enum notify want;
        } cases[] = { { "a", NOTIFY_EVERY }, { "q", NOTIFY_NONE }, { "p", NOTIFY_FIRST }, { "other", NOTIFY_FIRST } };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct crash_context ctx = sample_context();
                struct decision d;
                ctx.comm = (char *) cases[i].comm;
                CHECK_OK(policy_decide(p, &c, &ctx, &d));
                CHECK_INT(d.notify, ==, cases[i].want);
                decision_done(&d);
        }
        config_done(&c);
}

/* JournalCore= of a rule: parsed, printed back, and in the decision over coredumpd.conf's; a rule
 * without it leaves coredumpd.conf's. */
TEST(policy_journal_core) {
        static const char text[] =
                "[Rule]\nName=fleet\nMatchUID=0-999\nAction=kernel\nJournalCore=system\n\n"
                "[Rule]\nName=quiet\nMatchComm=secret*\nAction=kernel\nJournalCore=no\n\n"
                "[Rule]\nName=users\nMatchComm=py*\nAction=kernel\nJournalCore=user\n\n"
                "[Rule]\nName=plain\nMatchComm=plain\nAction=kernel\n";
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text(text);
        CHECK_INT(p->n_rules, ==, 6);
        CHECK_INT(p->rules[0].journal_core, ==, JOURNAL_CORE_SYSTEM);
        CHECK_INT(p->rules[1].journal_core, ==, JOURNAL_CORE_NO);
        CHECK_INT(p->rules[2].journal_core, ==, JOURNAL_CORE_USER);
        CHECK_INT(p->rules[3].journal_core, ==, POLICY_UNSET);

        _cleanup_free_ char *printed = NULL;
        size_t printed_size;
        FILE *out = open_memstream(&printed, &printed_size);
        policy_print(p, out);
        fclose(out);
        CHECK(strstr(printed, "Name=fleet\nMatchUID=0-999\nAction=kernel\nJournalCore=system\n"));
        CHECK(strstr(printed, "Name=quiet\nMatchComm=secret*\nAction=kernel\nJournalCore=no\n"));
        CHECK(strstr(printed, "Name=plain\nMatchComm=plain\nAction=kernel\n\n"));
        _cleanup_(policy_unrefp) struct policy *again = policy_new();
        _cleanup_fclose_ FILE *in = fmemopen(printed, printed_size, "r");
        CHECK_OK(policy_parse_file(again, in, "/etc/coredumpd/policy.d/test.conf"));
        CHECK_INT(again->rules[0].journal_core, ==, JOURNAL_CORE_SYSTEM);

        struct config c;
        config_init_defaults(&c);
        static const struct {
                const char *comm;
                uint32_t uid;
                enum journal_core config, want;
        } cases[] = {
                { "daemon", 0, JOURNAL_CORE_USER, JOURNAL_CORE_SYSTEM },
                { "secretd", 1000, JOURNAL_CORE_SYSTEM, JOURNAL_CORE_NO },
                { "python3", 1000, JOURNAL_CORE_SYSTEM, JOURNAL_CORE_USER },
                { "plain", 1000, JOURNAL_CORE_USER, JOURNAL_CORE_USER },
                { "plain", 1000, JOURNAL_CORE_SYSTEM, JOURNAL_CORE_SYSTEM },
                { "other", 1000, JOURNAL_CORE_NO, JOURNAL_CORE_NO }, /* builtin:keep */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct crash_context ctx = sample_context();
                struct decision d;
                ctx.comm = (char *) cases[i].comm;
                ctx.uid = ctx.euid = cases[i].uid;
                c.journal_core = cases[i].config;
                CHECK_OK(policy_decide(p, &c, &ctx, &d));
                if (d.journal_core != cases[i].want)
                        test_fail(__FILE__, __LINE__, "%s (uid %u), JournalCore=%s in coredumpd.conf: rule %s gives %s", cases[i].comm,
                                  cases[i].uid, journal_core_to_string(cases[i].config), d.rule,
                                  journal_core_to_string(d.journal_core));
                decision_done(&d);
        }
        config_done(&c);
}

/* JournalCore= where it can do nothing: a rule that keeps no core, or one for root-only cores
 * (never put in a journal). */
TEST(policy_lint_journal_core) {
        static const char text[] =
                "[Rule]\nName=none-kept\nMatchComm=a\nAction=reject\nJournalCore=system\n\n"   /* 1 */
                "[Rule]\nName=setuid\nMatchDumpable=no\nAction=kernel\nJournalCore=system\n\n" /* 7 */
                "[Rule]\nName=fine\nMatchComm=b\nAction=reject\nJournalCore=no\n\n"           /* 13 */
                "[Rule]\nName=fleet\nMatchComm=c\nAction=kernel\nJournalCore=system\n";        /* 19 */
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text(text);
        struct log_capture logs;
        log_capture_start(&logs);
        CHECK_INT(policy_lint(p, 2), ==, 2);
        CHECK(log_capture_contains(&logs, "test.conf:1: rule 'none-kept': JournalCore=system has no effect with Action=reject"));
        CHECK(log_capture_contains(&logs, "test.conf:7: rule 'setuid': JournalCore=system puts no core of MatchDumpable=no crashes"));
        CHECK(!log_capture_contains(&logs, "rule 'fine'"));
        CHECK(!log_capture_contains(&logs, "rule 'fleet'"));
        log_capture_stop(&logs);
}

/* Rules that parse but cannot do what they say: warnings at file:line with a hint. */
TEST(policy_lint_contradictions) {
        static const char text[] =
                "[Rule]\nName=held-not\nMatchComm=a\nAction=userspace\nWait=no\n\n"             /* 1 */
                "[Rule]\nName=ack-only\nMatchComm=b\nAction=userspace\nWait=no\nUserspaceDump=none\n\n" /* 7: fine */
                "[Rule]\nName=suid\nMatchDumpable=no\nAction=reject\n\n"                          /* 14 */
                "[Rule]\nName=pointless\nMatchComm=c\nAction=kernel\nUserspaceDump=stacks\n\n"    /* 19 */
                "[Rule]\nName=all\nAction=kernel\n\n"                                              /* 25 */
                "[Rule]\nName=shadowed\nMatchComm=d\nAction=reject\n";                              /* 29 */
        _cleanup_(policy_unrefp) struct policy *p = policy_from_text(text);
        struct log_capture logs;
        log_capture_start(&logs);
        CHECK_INT(policy_lint(p, 0), ==, 4);
        CHECK(log_capture_contains(&logs, "test.conf:1: rule 'held-not': Action=userspace with Wait=no writes no core"));
        CHECK(log_capture_contains(&logs, "(hint: set Wait=yes"));
        CHECK(!log_capture_contains(&logs, "rule 'ack-only'"));
        CHECK(log_capture_contains(&logs, "test.conf:14: rule 'suid': MatchDumpable=no never matches while fs.suid_dumpable=0"));
        CHECK(log_capture_contains(&logs, "test.conf:19: rule 'pointless': UserspaceDump= has no effect with Action=kernel"));
        CHECK(log_capture_contains(&logs, "test.conf:29: rule 'shadowed': never matches: rule 'all' at "));
        log_capture_stop(&logs);
        log_capture_start(&logs);
        CHECK_INT(policy_lint(p, 2), ==, 3);     /* with fs.suid_dumpable=2 the suid rule is fine */
        CHECK_INT(policy_lint(p, -1), ==, 3);    /* unknown: not flagged */
        log_capture_stop(&logs);
        int v = read_suid_dumpable();
        CHECK(v >= 0 && v <= 2);
}

/* ---- request and ack ---- */

TEST(request_parse_sizes) {
        struct coredump_request req;
        uint8_t buf[32] = {};
        uint32_t v;

#define SET(off, val) (v = (val), memcpy(buf + (off), &v, 4))
        SET(0, 16); SET(4, 16); SET(8, 0xF);
        CHECK_OK(request_parse(buf, 16, &req));
        CHECK(req.size == 16 && req.size_ack == 16 && req.mask == 0xF);
        CHECK_INT(request_parse(buf, 8, &req), ==, -EBADMSG); /* read less than announced */
        SET(0, 24);
        CHECK_OK(request_parse(buf, 16, &req)); /* we read what we know */
        CHECK_INT(req.size, ==, 24);
        SET(0, 8);
        CHECK_INT(request_parse(buf, 16, &req), ==, -EBADMSG); /* lacks the mask */
        SET(0, 4097);
        CHECK_INT(request_parse(buf, 16, &req), ==, -EBADMSG);
        SET(0, 16); SET(4, 12);
        CHECK_INT(request_parse(buf, 16, &req), ==, -EPROTO);
        CHECK_INT(request_parse(buf, 7, &req), ==, -EBADMSG);
#undef SET
}

TEST(ack_build_rules) {
        struct coredump_request req = { .size = 16, .size_ack = 16, .mask = 0xF };
        struct coredump_ack ack;

        CHECK_INT(ack_build(&req, ACTION_KERNEL, true, &ack), ==, 16);
        CHECK(ack.size == 16 && ack.spare == 0 && ack.mask == (COREDUMP_KERNEL | COREDUMP_WAIT));
        CHECK_INT(ack_build(&req, ACTION_REJECT, false, &ack), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_REJECT);

        req.size_ack = 64; /* a kernel knowing a larger ack still gets ours */
        CHECK_INT(ack_build(&req, ACTION_USERSPACE, true, &ack), ==, 16);
        CHECK_INT(ack.size, ==, 16);

        req.mask = COREDUMP_KERNEL | COREDUMP_REJECT | (UINT64_C(1) << 33);
        CHECK_INT(ack_build(&req, ACTION_KERNEL, true, &ack), ==, 16);
        CHECK_INT(ack.mask, ==, COREDUMP_KERNEL); /* no WAIT offered, unknown bit not echoed */
        CHECK_INT(ack_build(&req, ACTION_USERSPACE, true, &ack), ==, -EOPNOTSUPP);
        CHECK_INT(request_check_mask(&req), ==, -EOPNOTSUPP);
        req.mask |= COREDUMP_USERSPACE;
        CHECK_OK(request_check_mask(&req));
}

/* ---- /proc parsers ---- */

TEST(proc_limits_parser) {
        static const char limits[] =
                "Limit                     Soft Limit           Hard Limit           Units     \n"
                "Max cpu time              unlimited            unlimited            seconds   \n"
                "Max core file size        0                    unlimited            bytes     \n";
        uint64_t v;
        CHECK_OK(parse_limits_core(limits, &v));
        CHECK_INT(v, ==, 0);
        CHECK_OK(parse_limits_core("Max core file size        unlimited            unlimited            bytes\n", &v));
        CHECK(v == RLIMIT_UNLIMITED);
        CHECK_OK(parse_limits_core("Max core file size        1048576              unlimited            bytes\n", &v));
        CHECK_INT(v, ==, 1048576);
        CHECK_INT(parse_limits_core("Max cpu time unlimited\n", &v), ==, -ENOENT);
        CHECK_INT(parse_limits_core("Max core file size        lots  x\n", &v), ==, -EINVAL);
}

TEST(proc_auxv_parser) {
        uint64_t a64[] = { AT_PAGESZ, 4096, AT_SECURE, 1, AT_NULL, 0 };
        uint32_t a32[] = { AT_PAGESZ, 4096, AT_UID, 1000, AT_SECURE, 0, AT_NULL, 0 };
        uint64_t no_secure[] = { AT_PAGESZ, 4096, AT_NULL, 0 };
        int secure;

        CHECK_OK(parse_auxv_at_secure(a64, sizeof a64, &secure));
        CHECK_INT(secure, ==, 1);
        CHECK_OK(parse_auxv_at_secure(a32, sizeof a32, &secure));
        CHECK_INT(secure, ==, 0);
        CHECK(parse_auxv_at_secure(no_secure, sizeof no_secure, &secure) < 0);
        CHECK(parse_auxv_at_secure("garbage", 7, &secure) < 0);
        CHECK(parse_auxv_at_secure("", 0, &secure) < 0);

        /* Our own auxv: a normal process is not AT_SECURE. */
        _cleanup_free_ char *data = NULL;
        size_t size;
        CHECK_OK(read_file_at(AT_FDCWD, "/proc/self/auxv", 8192, &data, &size, NULL));
        CHECK_OK(parse_auxv_at_secure(data, size, &secure));
        CHECK_INT(secure, ==, 0);
}

static void check_units(const char *path, const char *unit, const char *user_unit, const char *slice) {
        _cleanup_free_ char *u = NULL, *uu = NULL, *s = NULL;
        CHECK_OK(cgroup_path_to_units(path, &u, &uu, &s));
        if (unit)
                CHECK_STR(u, unit);
        else
                CHECK(!u);
        if (user_unit)
                CHECK_STR(uu, user_unit);
        else
                CHECK(!uu);
        CHECK_STR(s, slice);
}

TEST(proc_cgroup_to_units) {
        _cleanup_free_ char *path = NULL, *v1 = NULL;
        CHECK_OK(parse_proc_cgroup("0::/system.slice/sshd.service\n", &path));
        CHECK_STR(path, "/system.slice/sshd.service");
        CHECK_OK(parse_proc_cgroup("12:pids:/x\n1:name=systemd:/system.slice/cron.service\n", &v1));
        CHECK_STR(v1, "/system.slice/cron.service");

        check_units("/system.slice/sshd.service", "sshd.service", NULL, "system.slice");
        check_units("/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service",
                    "user@1000.service", "foo.service", "user-1000.slice");
        check_units("/user.slice/user-1000.slice/session-3.scope", "session-3.scope", NULL, "user-1000.slice");
        check_units("/init.scope", "init.scope", NULL, "-.slice");
        check_units("/", NULL, NULL, "-.slice");
        check_units("/machine.slice/libpod-abc.scope/container", "libpod-abc.scope", NULL, "machine.slice");
}

static void check_container(const char *path, const char *kind, const char *name) {
        _cleanup_free_ char *k = NULL, *n = NULL;
        int r = cgroup_path_to_container(path, SIZE_MAX, &k, &n);
        if (!kind) {
                if (r != -ENOENT || k || n)
                        test_fail(__FILE__, __LINE__, "%s: expected no container, got %d %s %s", path, r,
                                  k ? k : "-", n ? n : "-");
                return;
        }
        if (r != 0 || !k || !n || strcmp(k, kind) != 0 || strcmp(n, name) != 0)
                test_fail(__FILE__, __LINE__, "%s: expected %s %s, got %d %s %s", path, kind, name, r, k ? k : "-",
                          n ? n : "-");
}

TEST(cgroup_path_to_container_name) {
        static const char id[] = "4f1c0ffee0ddba11deadbeefcafef00d4f1c0ffee0ddba11deadbeefcafef00d";
        char path[256];

        /* systemd-nspawn: as a machined scope, or as the systemd-nspawn@ template service. */
        check_container("/machine.slice/machine-web.scope/payload/system.slice/nginx.service", "machine", "web");
        check_container("/machine.slice/machine-my\\x2dbox.scope/payload", "machine", "my-box");
        check_container("/machine.slice/systemd-nspawn@db\\x2d1.service/payload/init.scope", "nspawn", "db-1");
        check_container("/machine.slice/systemd-nspawn@db.service", "nspawn", "db");
        /* podman: systemd and cgroupfs managers, rootful and rootless; conmon is beside it, not in it. */
        snprintf(path, sizeof path, "/machine.slice/libpod-%s.scope/container", id);
        check_container(path, "podman", id);
        snprintf(path, sizeof path, "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-%s.scope", id);
        check_container(path, "podman", id);
        snprintf(path, sizeof path, "/libpod_parent/libpod-%s", id);
        check_container(path, "podman", id);
        snprintf(path, sizeof path, "/machine.slice/libpod-conmon-%s.scope", id);
        check_container(path, NULL, NULL);
        /* docker: systemd and cgroupfs drivers. */
        snprintf(path, sizeof path, "/system.slice/docker-%s.scope", id);
        check_container(path, "docker", id);
        snprintf(path, sizeof path, "/docker/%s", id);
        check_container(path, "docker", id);
        check_container("/system.slice/docker.service", NULL, NULL);
        /* containerd, CRI-O, LXC. */
        check_container("/kubepods.slice/kubepods-pod1.slice/cri-containerd-abc.scope", "containerd", "abc");
        check_container("/kubepods.slice/kubepods-pod1.slice/crio-abc.scope", "cri-o", "abc");
        check_container("/kubepods.slice/kubepods-pod1.slice/crio-conmon-abc.scope", NULL, NULL);
        check_container("/lxc.payload.c1/init.scope", "lxc", "c1");
        check_container("/lxc.monitor.c1", NULL, NULL);
        /* The outermost container names it: docker inside an nspawn machine is the machine's. */
        check_container("/machine.slice/machine-vm1.scope/payload/system.slice/docker-abc.scope", "machine", "vm1");
        /* The host: services, user sessions and user services, the root; empty names are none. */
        check_container("/system.slice/sshd.service", NULL, NULL);
        check_container("/user.slice/user-1000.slice/session-3.scope", NULL, NULL);
        check_container("/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service", NULL, NULL);
        check_container("/init.scope", NULL, NULL);
        check_container("/", NULL, NULL);
        check_container("", NULL, NULL);
        check_container("/machine.slice/machine-.scope", NULL, NULL);
        check_container("/machine.slice/libpod-.scope", NULL, NULL);
        check_container("/machine.slice/machine-bad\\x00.scope", "machine", "bad\\x00"); /* no NUL made */
}

/* ---- a crash's site key (crash/site.c) and the repeats known by it (crash/repeats.c) ---- */

/* A task's mappings, loaded at base (its executable) and base + 0x1000000 (its libc), the way
 * ASLR moves them between runs. */
static void site_maps(struct proc_mapping m[static 4], uint64_t base) {
        m[0] = (struct proc_mapping) { .start = base, .end = base + 0x1000, .read = true, .inode = 10, .dev_major = 8,
                                       .path = (char *) "/usr/bin/crasher" };
        m[1] = (struct proc_mapping) { .start = base + 0x1000, .end = base + 0x3000, .offset = 0x1000, .read = true,
                                       .exec = true, .inode = 10, .dev_major = 8, .path = (char *) "/usr/bin/crasher" };
        m[2] = (struct proc_mapping) { .start = base + 0x1000000, .end = base + 0x1100000, .offset = 0x28000,
                                       .read = true, .exec = true, .inode = 20, .dev_major = 8,
                                       .path = (char *) "/usr/lib/x86_64-linux-gnu/libc.so.6" };
        m[3] = (struct proc_mapping) { .start = base + 0x7000000, .end = base + 0x7021000, .read = true, .write = true,
                                       .path = (char *) "[stack]" };
}

/* The same crash in two runs (other load addresses) has one key; another caller, another signal or
 * another executable makes another; a pc in no file's code has none; only the first
 * SITE_CODE_WORDS code addresses of the stack count, and words that are no code address not at all. */
TEST(site_key_of_a_crash) {
        struct proc_mapping a[4], b[4];
        uint64_t base_a = 0x555555554000, base_b = 0x563412340000;
        site_maps(a, base_a);
        site_maps(b, base_b);
        struct proc_maps maps_a = { a, 4 }, maps_b = { b, 4 };
        /* abort() in libc, called from the executable at +0x1234, from main at +0x1500. */
        uint64_t words_a[] = { 42, base_a + 0x7020f00, base_a + 0x1000000 + 0x4567, base_a + 0x1234, 0, base_a + 0x1500 };
        uint64_t words_b[] = { 7, base_b + 0x7020e00, base_b + 0x1000000 + 0x4567, base_b + 0x1234, 9, base_b + 0x1500 };
        char ka[SITE_KEY_SIZE], kb[SITE_KEY_SIZE], kc[SITE_KEY_SIZE];

        CHECK(site_key_compute(&maps_a, 0x800, 10, 6, base_a + 0x1000000 + 0x100, words_a, 6, ka));
        CHECK(site_key_compute(&maps_b, 0x800, 10, 6, base_b + 0x1000000 + 0x100, words_b, 6, kb));
        CHECK_INT(strlen(ka), ==, 16);
        CHECK_STR(ka, kb);

        /* abort() called from elsewhere in the executable. */
        words_b[3] = base_b + 0x1240;
        CHECK(site_key_compute(&maps_b, 0x800, 10, 6, base_b + 0x1000000 + 0x100, words_b, 6, kc));
        CHECK(strcmp(ka, kc) != 0);
        words_b[3] = base_b + 0x1234;
        /* Another signal; another executable. */
        CHECK(site_key_compute(&maps_b, 0x800, 10, 11, base_b + 0x1000000 + 0x100, words_b, 6, kc));
        CHECK(strcmp(ka, kc) != 0);
        CHECK(site_key_compute(&maps_b, 0x800, 11, 6, base_b + 0x1000000 + 0x100, words_b, 6, kc));
        CHECK(strcmp(ka, kc) != 0);
        /* A pc in the stack, in a mapping that is not code, or in none: no key. */
        CHECK(!site_key_compute(&maps_b, 0x800, 10, 11, base_b + 0x7020000, words_b, 6, kc));
        CHECK_STR(kc, "");
        CHECK(!site_key_compute(&maps_b, 0x800, 10, 11, base_b + 0x10, words_b, 6, kc));
        CHECK(!site_key_compute(&maps_b, 0x800, 10, 11, 0x1000, words_b, 6, kc));

        /* Past SITE_CODE_WORDS code addresses the stack no longer counts. */
        uint64_t deep_a[SITE_CODE_WORDS + 2], deep_b[SITE_CODE_WORDS + 2];
        for (size_t i = 0; i < SITE_CODE_WORDS + 2; i++) {
                deep_a[i] = base_a + 0x1100 + 8 * i;
                deep_b[i] = base_b + 0x1100 + 8 * i;
        }
        deep_b[SITE_CODE_WORDS] = base_b + 0x2000;
        CHECK(site_key_compute(&maps_a, 0x800, 10, 6, base_a + 0x1200, deep_a, SITE_CODE_WORDS + 2, ka));
        CHECK(site_key_compute(&maps_b, 0x800, 10, 6, base_b + 0x1200, deep_b, SITE_CODE_WORDS + 2, kb));
        CHECK_STR(ka, kb);
        deep_b[SITE_CODE_WORDS - 1] = base_b + 0x2000;
        CHECK(site_key_compute(&maps_b, 0x800, 10, 6, base_b + 0x1200, deep_b, SITE_CODE_WORDS + 2, kb));
        CHECK(strcmp(ka, kb) != 0);
}

/* What site_key_take() is given of a live process of ours, as a crash's context would give it. */
struct site_of {
        struct site_task task;
        char *exe;
        char key[SITE_KEY_SIZE];
};

static void site_of_open(struct site_of *s, pid_t pid) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d", (int) pid);
        static const struct tenant owner = { .uid = 4242 };
        *s = (struct site_of) { .task = { .pid = pid, .signal = SIGSEGV, .tag = "site", .owner = &owner,
                                          .reader_uid = 65534, .reader_gid = 65534,
                                          .deadline_usec = now_monotonic_usec() + 5 * UINT64_C(1000000) } };
        s->task.proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(s->task.proc_fd >= 0);
        CHECK(read_link_at(s->task.proc_fd, "exe", &s->exe) >= 0);
        s->task.exe = s->exe;
}

static void site_of_close(struct site_of *s) {
        safe_close(s->task.proc_fd);
        free(s->exe);
}

/* Waits until pid runs exe and sits in system call nr (/proc/<pid>/syscall). */
static void wait_in_syscall(pid_t pid, const char *exe, int nr) {
        char path[64], text[256], target[256];
        for (int i = 0; i < 1000; i++) {
                snprintf(path, sizeof path, "/proc/%d/exe", (int) pid);
                ssize_t n = readlink(path, target, sizeof target - 1);
                target[n > 0 ? n : 0] = 0;
                snprintf(path, sizeof path, "/proc/%d/syscall", (int) pid);
                _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
                ssize_t got = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
                if (got > 0 && (!exe || strcmp(target, exe) == 0)) {
                        text[got] = 0;
                        if (atoi(text) == nr)
                                return;
                }
                usleep(2000);
        }
        test_fail(__FILE__, __LINE__, "the process never sat in its system call");
}

/* One program blocked at one place in two runs (ASLR: other load addresses): one site key, read
 * from the real /proc of each (maps, the sp and pc of /proc/<pid>/syscall, the top of the stack). */
TEST(site_key_of_two_runs) {
        struct site_of a, b;
        log_set_max_priority(LOG_DEBUG); /* why a site key is missing, if it is */
        pid_t pa = sleeper_exec("site-a", "exec sleep 1000"), pb = sleeper_exec("site-b", "exec sleep 1000");
        wait_in_syscall(pa, "/usr/bin/sleep", SYS_clock_nanosleep);
        wait_in_syscall(pb, "/usr/bin/sleep", SYS_clock_nanosleep);
        site_of_open(&a, pa);
        site_of_open(&b, pb);
        bool stalled;
        CHECK(site_key_take(&a.task, a.key, &stalled));
        CHECK(site_key_take(&b.task, b.key, &stalled));
        CHECK(!stalled);
        CHECK_INT(strlen(a.key), ==, 16);
        CHECK_STR(a.key, b.key);
        /* It means something only where the two were loaded apart. */
        _cleanup_(proc_maps_done) struct proc_maps ma = {}, mb = {};
        CHECK(proc_maps_read(a.task.proc_fd, &ma) >= 0 && proc_maps_read(b.task.proc_fd, &mb) >= 0);
        if (ma.n > 0 && mb.n > 0 && ma.mappings[0].start == mb.mappings[0].start)
                fprintf(stderr, "# note: both runs were loaded at the same address (ASLR off?)\n");
        site_of_close(&a);
        site_of_close(&b);
        sleeper_stop(pa);
        sleeper_stop(pb);
}

/* A process that parks its stack pointer at page first + 4096 of fresh memory (touched first, or
 * not) and sits in pause() there, never touching it: what a crasher does to make a reader of its
 * stack wait (the page a userfaultfd or a FUSE file would serve). */
static pid_t park_stack_on(char *mem, bool touch) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (touch)
                        memset(mem + 4096, 0, 4096);
                uint64_t sp = (uint64_t) (uintptr_t) (mem + 4096);
                __asm__ volatile("mov %0, %%rsp\n"
                                 "1: mov %1, %%eax\n"
                                 "syscall\n"
                                 "jmp 1b\n" : : "r"(sp), "i"(SYS_pause) : "rax", "rcx", "r11", "memory");
                __builtin_unreachable();
        }
        return pid;
}

/* Attack: a stack whose top is not in memory is not read (reading it could wait on the crasher's
 * terms, in the root daemon): no site key, the crash is unwound by the parser as any other. The
 * same stack in memory has one. */
TEST(site_key_never_waits_on_a_stack_not_in_memory) {
        char *mem = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(mem != MAP_FAILED);
        for (int touch = 0; touch < 2; touch++) {
                struct site_of s;
                pid_t pid = park_stack_on(mem, touch);
                wait_in_syscall(pid, NULL, SYS_pause);
                site_of_open(&s, pid);
                bool stalled;
                CHECK_INT(site_key_take(&s.task, s.key, &stalled), ==, touch);
                CHECK(!stalled);
                CHECK_INT(strlen(s.key), ==, touch ? 16 : 0);
                site_of_close(&s);
                CHECK(kill(pid, SIGKILL) == 0);
                CHECK(waitpid(pid, NULL, 0) == pid);
        }
        munmap(mem, 3 * 4096);
}

/* A site key is believed only past the burst of its signature, for its own owner, and for the
 * signature it was last unwound to; it survives a restart (the store's .signatures). */
TEST(repeats_known_by_site) {
        _cleanup_free_ char *dir = tmpdir_new();
        int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const uint64_t hour = 3600ULL * 1000000, t = 1000 * hour;
        const char *site = "0123456789abcdef", *sig1 = "1111111111111111", *sig2 = "2222222222222222";
        char sig[17];
        unsigned n = 0;

        CHECK(dir_fd >= 0);
        struct repeats *r = repeats_new(dir_fd);
        CHECK(r);
        /* Unknown site: to be unwound. */
        CHECK(!repeats_count_by_site(r, TENANT_UID(1000), site, 2, hour, t, sig, &n));
        CHECK_INT(repeats_count(r, TENANT_UID(1000), sig1, site, hour, t), ==, 1);
        /* Within the burst: unwound again, nothing counted by the site. */
        CHECK(!repeats_count_by_site(r, TENANT_UID(1000), site, 2, hour, t + 1, sig, &n));
        CHECK_INT(repeats_count(r, TENANT_UID(1000), sig1, site, hour, t + 1), ==, 2);
        /* Past it: a repeat, counted. */
        CHECK(repeats_count_by_site(r, TENANT_UID(1000), site, 2, hour, t + 2, sig, &n));
        CHECK_STR(sig, sig1);
        CHECK_INT(n, ==, 3);
        /* Another owner's crash at the same site is theirs to unwind. */
        CHECK(!repeats_count_by_site(r, TENANT_UID(1001), site, 2, hour, t + 3, sig, &n));
        /* A new interval starts with unwinding. */
        CHECK(!repeats_count_by_site(r, TENANT_UID(1000), site, 2, hour, t + hour + 3, sig, &n));
        /* After a restart, as before. */
        r = repeats_free(r);
        r = repeats_new(dir_fd);
        CHECK(r);
        CHECK(repeats_count_by_site(r, TENANT_UID(1000), site, 2, hour, t + 4, sig, &n));
        CHECK_STR(sig, sig1);
        CHECK_INT(n, ==, 4);
        /* Unwound once to another signature, the site leads there, and no longer to the first. */
        CHECK_INT(repeats_count(r, TENANT_UID(1000), sig2, site, hour, t + 5), ==, 1);
        CHECK(!repeats_count_by_site(r, TENANT_UID(1000), site, 2, hour, t + 6, sig, &n));
        CHECK_INT(repeats_count(r, TENANT_UID(1000), sig2, site, hour, t + 6), ==, 2);
        CHECK(repeats_count_by_site(r, TENANT_UID(1000), site, 2, hour, t + 7, sig, &n));
        CHECK_STR(sig, sig2);
        CHECK_INT(n, ==, 3);
        CHECK_INT(repeats_count(r, TENANT_UID(1000), sig1, NULL, hour, t + 8), ==, 5);
        r = repeats_free(r);
        close(dir_fd);
        tmpdir_remove(dir);
}

/* A crash loop writes the counts once a second, not once a crash: counting only marks them changed;
 * repeats_save_due() writes them when the last save is a second old and otherwise says when it will
 * be; repeats_free() (the daemon stopping) writes what is left, and a restart reads it all; a
 * failed write keeps them pending. */
static long long signatures_mtime_ns(int dir_fd) {
        struct stat st;
        if (fstatat(dir_fd, ".signatures", &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -1;
        return (long long) st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

TEST(repeats_saved_once_a_second) {
        _cleanup_free_ char *dir = tmpdir_new();
        int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const uint64_t hour = 3600ULL * 1000000, t = 1000 * hour, mono = 5000000;
        const char *sig = "1111111111111111";

        CHECK(dir_fd >= 0);
        struct repeats *r = repeats_new(dir_fd);
        CHECK(r);
        CHECK_INT(repeats_save_due(r, mono), ==, 0);            /* nothing counted, nothing to save */
        CHECK_INT(signatures_mtime_ns(dir_fd), ==, -1);
        CHECK_INT(repeats_count(r, TENANT_UID(1000), sig, NULL, hour, t), ==, 1);
        CHECK_INT(signatures_mtime_ns(dir_fd), ==, -1);         /* counting did not write */
        CHECK_INT(repeats_save_due(r, mono), ==, 0);            /* never saved: at once */
        long long first = signatures_mtime_ns(dir_fd);
        CHECK(first >= 0);
        /* 500 crashes within the second: not one write; the save is due a second after the last. */
        for (unsigned i = 2; i <= 500; i++)
                CHECK_INT(repeats_count(r, TENANT_UID(1000), sig, NULL, hour, t + i), ==, i);
        usleep(20000);
        CHECK_INT(repeats_save_due(r, mono + 400000), ==, mono + REPEATS_SAVE_USEC);
        CHECK_INT(signatures_mtime_ns(dir_fd), ==, first);
        CHECK_INT(signatures_saved_count(dir_fd), ==, 1);       /* a restart now would read one crash */
        /* Due: written, and nothing pending after. */
        CHECK_INT(repeats_save_due(r, mono + REPEATS_SAVE_USEC), ==, 0);
        CHECK(signatures_mtime_ns(dir_fd) > first);
        CHECK_INT(signatures_saved_count(dir_fd), ==, 500);
        CHECK_INT(repeats_save_due(r, mono + 3 * REPEATS_SAVE_USEC), ==, 0);
        /* Counted after the last save, then stopped: repeats_free() writes it, a restart reads it. */
        CHECK_INT(repeats_count(r, TENANT_UID(1000), sig, NULL, hour, t + 501), ==, 501);
        r = repeats_free(r);
        CHECK_INT(signatures_saved_count(dir_fd), ==, 501);
        r = repeats_new(dir_fd);
        CHECK(r);
        CHECK_INT(repeats_count(r, TENANT_UID(1000), sig, NULL, hour, t + 502), ==, 502);
        /* A write that fails (here: the new file's name taken by a directory) keeps the counts
         * pending, and the save is due again a second later. */
        CHECK(mkdirat(dir_fd, ".signatures.new", 0700) == 0);
        CHECK_INT(repeats_save_due(r, 10 * mono), ==, 10 * mono + REPEATS_SAVE_USEC);
        CHECK_INT(signatures_saved_count(dir_fd), ==, 501);
        CHECK(unlinkat(dir_fd, ".signatures.new", AT_REMOVEDIR) == 0);
        CHECK_INT(repeats_save_due(r, 10 * mono + REPEATS_SAVE_USEC), ==, 0);
        CHECK_INT(signatures_saved_count(dir_fd), ==, 502);
        r = repeats_free(r);
        close(dir_fd);
        tmpdir_remove(dir);
}

/* A cgroup seen before is named from the table by its id alone. That rests on two facts of the
 * kernel, checked here: a cgroup's id is its cgroup2 directory's (name_to_handle_at() finds it from
 * the path), and cgroup2 refuses to rename a directory, so an id keeps its path while it exists.
 * An entry pushed out (least recently used first) is a miss. Attack: one owner crashing in more
 * cgroups than their share (CGROUP_NAMES_PER_OWNER) replaces only their own entries, never
 * another owner's. */
TEST(cgroup_names_by_id) {
        struct host_view hv;
        host_view_open(NULL, &hv);
        CHECK(hv.cgroup_fd >= 0);                       /* the test machines have cgroup2 */
        /* The one change to the host this test makes: an empty cgroup of its own under the cgroup2
         * root (a directory with a known path and id, nothing moved into it), removed at the end.
         * No limit, group or mask is touched. */
        char a[64], b[64], pa[66];
        snprintf(a, sizeof a, "coredumpd-test-%d-a", (int) getpid());
        snprintf(b, sizeof b, "coredumpd-test-%d-b", (int) getpid());
        snprintf(pa, sizeof pa, "/%s", a);
        CHECK(mkdirat(hv.cgroup_fd, a, 0755) == 0);

        uint64_t id = 0, root_id = 0;
        struct stat st;
        CHECK_OK(cgroup_id_of_path(hv.cgroup_fd, pa, &id));
        CHECK(fstatat(hv.cgroup_fd, a, &st, 0) == 0);
        CHECK_INT(id, ==, (uint64_t) st.st_ino);      /* cgroup2: the id is the directory's inode */
        CHECK_OK(cgroup_id_of_path(hv.cgroup_fd, "/", &root_id));
        CHECK(root_id != id);
        CHECK_INT(cgroup_id_of_path(hv.cgroup_fd, "relative", &root_id), ==, -EINVAL);
        CHECK(renameat(hv.cgroup_fd, a, hv.cgroup_fd, b) < 0 && errno == EPERM);

        struct cgroup_names *t = cgroup_names_new();
        CHECK(t);
        struct cgroup_name got = { .delegated_to = -1 };
        CHECK_INT(cgroup_names_get(t, id, &got), ==, 0);
        CHECK_INT(cgroup_names_get(NULL, id, &got), ==, 0);
        CHECK_OK(cgroup_names_put(t, id, TENANT_UID(1000), &(struct cgroup_name) { .path = pa, .trusted_len = 3, .delegated_to = 1000 }));
        CHECK_INT(cgroup_names_get(t, id, &got), ==, 1);
        CHECK_STR(got.path, pa);
        CHECK_INT(got.trusted_len, ==, 3);
        CHECK_INT(got.delegated_to, ==, 1000);
        cgroup_name_done(&got);
        /* Put again (a new boundary): replaced, not added. */
        CHECK_OK(cgroup_names_put(t, id, TENANT_UID(1000), &(struct cgroup_name) { .path = pa, .trusted_len = 5, .delegated_to = -1 }));
        CHECK_INT(cgroup_names_get(t, id, &got), ==, 1);
        CHECK_INT(got.trusted_len, ==, 5);
        cgroup_name_done(&got);

        /* The least recently used goes first: id, used last of all, stays; the root, not, goes. */
        CHECK_OK(cgroup_names_put(t, root_id, TENANT_UID(1000), &(struct cgroup_name) { .path = (char *) "/", .delegated_to = -1 }));
        /* Owners 1..: each within their share, until the table is full. */
        for (uint64_t k = 1; k <= CGROUP_NAMES_MAX - 2; k++)
                CHECK_OK(cgroup_names_put(t, id + 2000000 + k, TENANT_UID((uint32_t) (1 + k % 4)),
                                          &(struct cgroup_name) { .path = pa, .delegated_to = -1 }));
        CHECK_INT(cgroup_names_get(t, id, &got), ==, 1); /* the table is full now */
        cgroup_name_done(&got);
        CHECK_OK(cgroup_names_put(t, id + 3000000, TENANT_UID(5), &(struct cgroup_name) { .path = pa, .delegated_to = -1 }));
        CHECK_INT(cgroup_names_get(t, root_id, &got), ==, 0);
        CHECK_INT(cgroup_names_get(t, id, &got), ==, 1);
        cgroup_name_done(&got);
        uint64_t hits, misses;
        cgroup_names_stats(t, &hits, &misses);
        CHECK_INT(hits, ==, 4);
        CHECK_INT(misses, ==, 2);

        /* Owner 666 crashes in 1000 cgroups of their own: their share fills, then their own
         * oldest entries go; owner 1000's entry stays, used or not. */
        cgroup_names_free(t);
        t = cgroup_names_new();
        CHECK(t);
        CHECK_OK(cgroup_names_put(t, id, TENANT_UID(1000), &(struct cgroup_name) { .path = pa, .delegated_to = -1 }));
        for (uint64_t k = 1; k <= 1000; k++)
                CHECK_OK(cgroup_names_put(t, id + 4000000 + k, TENANT_UID(666), &(struct cgroup_name) { .path = pa, .delegated_to = -1 }));
        CHECK_INT(cgroup_names_get(t, id, &got), ==, 1);
        cgroup_name_done(&got);
        size_t held = 0;
        for (uint64_t k = 1; k <= 1000; k++)
                if (cgroup_names_get(t, id + 4000000 + k, &got) == 1) {
                        held++;
                        CHECK(k > 1000 - CGROUP_NAMES_PER_OWNER); /* their newest */
                        cgroup_name_done(&got);
                }
        CHECK_INT(held, ==, CGROUP_NAMES_PER_OWNER);

        cgroup_names_free(t);
        CHECK(unlinkat(hv.cgroup_fd, a, AT_REMOVEDIR) == 0);
        host_view_close(&hv);
}

/* A cgroup delegated to a user (systemd chowns user@UID.service's to them) names no container
 * below it: "machine-prod.scope" inside a user's own subtree is their claim, not the host's. */
TEST(cgroup_delegation_boundary_stops_names) {
        if (geteuid() != 0) {
                printf("SKIP: needs root to chown\n");
                exit(77);
        }
        char root[] = "/tmp/test-cgroup-XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        char dir[PATH_MAX];
        static const char *const made[] = {
                "/machine.slice", "/machine.slice/machine-web.scope", "/user.slice", "/user.slice/user-1000.slice",
                "/user.slice/user-1000.slice/user@1000.service",
                "/user.slice/user-1000.slice/user@1000.service/machine.slice",
                "/user.slice/user-1000.slice/user@1000.service/machine.slice/machine-prod.scope",
        };
        for (size_t i = 0; i < ELEMENTSOF(made); i++) {
                snprintf(dir, sizeof dir, "%s%s", root, made[i]);
                CHECK(mkdir(dir, 0755) == 0);
        }
        snprintf(dir, sizeof dir, "%s/user.slice/user-1000.slice/user@1000.service", root);
        CHECK(chown(dir, 1000, 1000) == 0);
        int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        CHECK(fd >= 0);

        const char *host = "/machine.slice/machine-web.scope/payload";
        int64_t owner = 0;
        /* Root's all the way (payload is gone: only what was verified counts). */
        CHECK_INT(cgroup_delegation_boundary(fd, host, &owner), ==, strlen("/machine.slice/machine-web.scope"));
        CHECK_INT(owner, ==, -1);
        struct container_info ci = { .ns_uid = -1, .ns_gid = -1, .delegated_to = -1 };
        container_info_name(host, fd, "test", &ci);
        CHECK_STR(ci.name, "web");
        container_info_done(&ci);

        const char *user = "/user.slice/user-1000.slice/user@1000.service/machine.slice/machine-prod.scope";
        CHECK_INT(cgroup_delegation_boundary(fd, user, &owner), ==,
                  strlen("/user.slice/user-1000.slice/user@1000.service"));
        CHECK_INT(owner, ==, 1000);
        container_info_name(user, fd, "test", &ci);
        CHECK(ci.name == NULL && ci.kind == NULL);
        CHECK_INT(ci.delegated_to, ==, 1000);
        container_info_done(&ci);
        /* Without a cgroup root to look at, no name is taken on trust. */
        container_info_name(host, -1, "test", &ci);
        CHECK(ci.name == NULL);
        container_info_done(&ci);

        close(fd);
        for (size_t i = ELEMENTSOF(made); i > 0; i--) {
                snprintf(dir, sizeof dir, "%s%s", root, made[i - 1]);
                CHECK(rmdir(dir) == 0);
        }
        CHECK(rmdir(root) == 0);
}

TEST(proc_status_nspid_and_id_maps) {
        pid_t pid = 0;
        CHECK_OK(parse_status_nspid("Name:\tsh\nNSpid:\t4242\n", &pid));
        CHECK_INT(pid, ==, 4242);
        CHECK_OK(parse_status_nspid("Tgid:\t9\nNSpid:\t4242\t17\t1\nPPid:\t1\n", &pid));
        CHECK_INT(pid, ==, 1);
        CHECK_INT(parse_status_nspid("Name:\tsh\n", &pid), ==, -ENOENT);
        CHECK_INT(parse_status_nspid("NSpid:\t\n", &pid), ==, -EINVAL);
        CHECK_INT(parse_status_nspid("NSpid:\t12x\n", &pid), ==, -EINVAL);
        CHECK_INT(parse_status_nspid("NSpid:\t-3\n", &pid), ==, -EINVAL);
        CHECK_OK(parse_status_ppid("Name:\tsh\nPid:\t9\nPPid:\t4242\nTracerPid:\t0\n", &pid));
        CHECK_INT(pid, ==, 4242);
        CHECK_OK(parse_status_ppid("PPid:\t0", &pid));
        CHECK_INT(pid, ==, 0);
        CHECK_INT(parse_status_ppid("Name:\tPPid:\t5\n", &pid), ==, -ENOENT); /* only at a line's start */
        CHECK_INT(parse_status_ppid("PPid:\tx\n", &pid), ==, -EINVAL);
        CHECK_INT(parse_status_ppid("PPid:\t12 13\n", &pid), ==, -EINVAL);

        uint32_t inside = 7;
        CHECK_OK(id_map_to_inside("         0          0 4294967295\n", 1000, &inside));
        CHECK_INT(inside, ==, 1000);
        CHECK_OK(id_map_to_inside("         0       1000          1\n", 1000, &inside));
        CHECK_INT(inside, ==, 0);
        CHECK_INT(id_map_to_inside("         0       1000          1\n", 1001, &inside), ==, -ENOENT);
        CHECK_OK(id_map_to_inside("0 1000 1\n1 100000 65536\n", 100041, &inside));
        CHECK_INT(inside, ==, 42);
        CHECK_INT(id_map_to_inside("", 0, &inside), ==, -ENOENT);
        CHECK_INT(id_map_to_inside("garbage\n", 0, &inside), ==, -ENOENT);
}

/* The hooks' unit names: systemd-escape's instance escaping, the limit of 255. */
TEST(unit_name_instance_escapes_as_systemd_escape) {
        char b[UNIT_NAME_MAX + 1];
        CHECK_OK(unit_name_instance("coredumpd-crash", "0123456789abcdef0123456789abcdef-i42", "service", b, sizeof b));
        CHECK_STR(b, "coredumpd-crash@0123456789abcdef0123456789abcdef\\x2di42.service");
        CHECK_OK(unit_name_instance("x", ".a/b c:d_e.f\\", "service", b, sizeof b));
        CHECK_STR(b, "x@\\x2ea-b\\x20c:d_e.f\\x5c.service");
        CHECK_OK(unit_name_instance("x", "\xff", "service", b, sizeof b));
        CHECK_STR(b, "x@\\xff.service");
        CHECK_INT(unit_name_instance("x", "", "service", b, sizeof b), ==, -EINVAL);
        char long_text[300];
        memset(long_text, 'a', sizeof long_text - 1);
        long_text[sizeof long_text - 1] = 0;
        CHECK_INT(unit_name_instance("x", long_text, "service", b, sizeof b), ==, -ENAMETOOLONG);
        CHECK_STR(b, "");
        /* 64 bytes escaped to 4 each: over 255 */
        memset(long_text, '-', 64);
        long_text[64] = 0;
        CHECK_INT(unit_name_instance("x", long_text, "service", b, sizeof b), ==, -ENAMETOOLONG);
}

/* First-seen signatures: each once, remembered in the store across a new table; what is no
 * signature never counts; a hostile file's lines are left out. */
TEST(first_seen_once_per_signature_and_persistent) {
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(fd >= 0);
        struct first_seen *s = first_seen_new(fd);
        CHECK(s);
        CHECK(first_seen_take(s, "0123456789abcdef", 100));
        CHECK(!first_seen_take(s, "0123456789abcdef", 200));
        CHECK(first_seen_take(s, "fedcba9876543210", 300));
        CHECK(!first_seen_take(s, "not-a-signature!", 300));
        CHECK(!first_seen_take(s, "0123456789ABCDEF", 300));
        CHECK(!first_seen_take(s, NULL, 300));
        CHECK_INT(first_seen_count(s), ==, 2);
        s = first_seen_free(s);

        CHECK_OK(write_text_file(dir, "garbage", ""));
        int afd = openat(fd, ".signatures-seen", O_WRONLY | O_APPEND | O_CLOEXEC);
        CHECK(afd >= 0);
        const char *junk = "zzzz 1\n0123 5\n\n0123456789abcdef 1 extra\n";
        CHECK(write(afd, junk, strlen(junk)) == (ssize_t) strlen(junk));
        close(afd);
        s = first_seen_new(fd);
        CHECK_INT(first_seen_count(s), ==, 2);
        CHECK(!first_seen_take(s, "0123456789abcdef", 400));
        CHECK(!first_seen_take(s, "fedcba9876543210", 400));
        CHECK(first_seen_take(s, "00000000000000aa", 400));
        s = first_seen_free(s);
        tmpdir_remove(dir);
}

/* Past FIRST_SEEN_MAX the signature first seen longest ago is forgotten (and new again), and the
 * file is rewritten before it grows past twice as many lines. */
TEST(first_seen_bounded) {
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct first_seen *s = first_seen_new(fd);
        char sig[17];
        for (uint64_t i = 0; i < FIRST_SEEN_MAX + 10; i++) {
                snprintf(sig, sizeof sig, "%016" PRIx64, (uint64_t) (i * 0x9e3779b97f4a7c15ULL));
                CHECK(first_seen_take(s, sig, 1000 + i));
        }
        CHECK_INT(first_seen_count(s), ==, FIRST_SEEN_MAX);
        snprintf(sig, sizeof sig, "%016" PRIx64, (uint64_t) 0);
        CHECK(first_seen_take(s, sig, 999999999)); /* the first, forgotten */
        snprintf(sig, sizeof sig, "%016" PRIx64, (uint64_t) ((FIRST_SEEN_MAX + 9) * 0x9e3779b97f4a7c15ULL));
        CHECK(!first_seen_take(s, sig, 999999999));
        s = first_seen_free(s);
        s = first_seen_new(fd);
        CHECK_INT(first_seen_count(s), ==, FIRST_SEEN_MAX);
        CHECK(!first_seen_take(s, sig, 999999999));
        s = first_seen_free(s);
        struct stat st;
        CHECK(fstatat(fd, ".signatures-seen", &st, 0) == 0);
        CHECK_INT(st.st_size, <, 2 * FIRST_SEEN_MAX * 40);
        tmpdir_remove(dir);
}

TEST(crash_id_forms) {
        static const char boot[] = "0123456789abcdef0123456789abcdef";
        char id[CRASH_ID_MAX];

        CHECK_OK(crash_id_from_pidfs(id, boot, 123456789012ULL));
        CHECK_STR(id, "0123456789abcdef0123456789abcdef-i123456789012");
        CHECK(crash_id_is_valid(id));
        CHECK_OK(crash_id_from_pidfs(id, boot, UINT64_MAX));
        CHECK(crash_id_is_valid(id));
        CHECK_OK(crash_id_from_start_time(id, boot, 4242, 987654));
        CHECK_STR(id, "0123456789abcdef0123456789abcdef-p4242-s987654");
        CHECK(crash_id_is_valid(id));
        CHECK_OK(crash_id_from_start_time(id, boot, INT32_MAX, UINT64_MAX));
        CHECK(crash_id_is_valid(id));

        CHECK_INT(crash_id_from_pidfs(id, "unknown", 1), ==, -EINVAL);
        CHECK_STR(id, "");
        CHECK_INT(crash_id_from_start_time(id, boot, 0, 1), ==, -EINVAL);
        static const char *const bad[] = {
                "", "1234", "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef-",
                "0123456789abcdef0123456789abcdef-i", "0123456789abcdef0123456789abcdef-i01",
                "0123456789abcdef0123456789abcdef-i1x", "0123456789ABCDEF0123456789abcdef-i1",
                "0123456789abcdef0123456789abcde-i1", "0123456789abcdef0123456789abcdef-p1",
                "0123456789abcdef0123456789abcdef-p1-s", "0123456789abcdef0123456789abcdef-p1-i2",
                "0123456789abcdef0123456789abcdef-p1-s2-", "0123456789abcdef0123456789abcdef-i123456789012345678901",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (crash_id_is_valid(bad[i]))
                        test_fail(__FILE__, __LINE__, "'%s' taken as a crash id", bad[i]);
}

/* Nothing is read from a /proc that is not procfs, or not its root. */
TEST(proc_root_check_refuses_what_is_not_procfs) {
        char reason[160] = "";
        _cleanup_close_ int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(proc >= 0);
        CHECK_OK(proc_root_check(proc, reason, sizeof reason));

        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_close_ int tmp = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(tmp >= 0);
        CHECK_INT(proc_root_check(tmp, reason, sizeof reason), ==, -EXDEV);
        CHECK(strstr(reason, "is not procfs"));
        tmpdir_remove(dir);

        /* procfs, but not its root: /proc/self bind-mounted over /proc would look like this. */
        _cleanup_close_ int self = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(self >= 0);
        CHECK_INT(proc_root_check(self, reason, sizeof reason), ==, -EXDEV);
        CHECK(strstr(reason, "not the root of a procfs mount"));

        CHECK_INT(proc_root_check(-1, reason, sizeof reason), ==, -EBADF);
}

/* A crash in a container, as the record says it: the name (escaped) in the message and its field,
 * the kind, the ids inside, the namespaces not the host's. */
TEST(record_names_the_container) {
        struct crash c;
        struct config settings;
        config_init_defaults(&settings);
        crash_init(&c, &settings);
        c.have_context = true;
        c.context.pid = 4242;
        c.context.uid = 100000;
        CHECK(c.context.comm = strdup("nginx"));
        CHECK(c.context.container.name = strdup("web\n1"));
        CHECK(c.context.container.kind = strdup("nspawn"));
        CHECK(c.context.container.manager_cmdline = strdup("systemd-nspawn -D /srv/web"));
        c.context.container.ns_pid = 17;
        c.context.container.ns_uid = 0;
        c.context.container.ns_gid = 5;
        c.context.container.ns[NAMESPACE_PID] = 11;
        c.context.container.ns[NAMESPACE_MNT] = 2;
        c.context.container.ns[NAMESPACE_USER] = 13;
        c.context.container.host_ns[NAMESPACE_PID] = 1;
        c.context.container.host_ns[NAMESPACE_MNT] = 2;
        c.context.container.host_ns[NAMESPACE_USER] = 3;
        strcpy(c.context.crash_id, "0123456789abcdef0123456789abcdef-i77");
        c.result = CRASH_RESULT_REJECTED;

        _cleanup_(fields_done) struct fields f = {};
        CHECK_OK(record_build(&c, &f));
        CHECK(strstr(fields_get(&f, FIELD_MESSAGE), "Process 4242 (nginx) of user 100000 in container web\\n1 crashed"));
        CHECK_STR(fields_get(&f, FIELD_CONTAINER), "web\\n1");
        CHECK_STR(fields_get(&f, FIELD_CONTAINER_KIND), "nspawn");
        CHECK_STR(fields_get(&f, FIELD_CONTAINER_CMDLINE), "systemd-nspawn -D /srv/web");
        CHECK_STR(fields_get(&f, FIELD_IN_CONTAINER), "1");
        CHECK_STR(fields_get(&f, FIELD_OWN_NAMESPACES), "pid user");
        CHECK_STR(fields_get(&f, FIELD_NS_PID), "17");
        CHECK_STR(fields_get(&f, FIELD_NS_UID), "0");
        CHECK_STR(fields_get(&f, FIELD_NS_GID), "5");
        CHECK_STR(fields_get(&f, FIELD_PID_NS), "11");
        CHECK_STR(fields_get(&f, FIELD_MNT_NS), "2");
        CHECK_STR(fields_get(&f, FIELD_CRASH_ID), "0123456789abcdef0123456789abcdef-i77");

        /* Nothing known about its namespaces and no name: nothing claimed. */
        container_info_done(&c.context.container);
        c.context.container = (struct container_info) { .ns_uid = -1, .ns_gid = -1 };
        _cleanup_(fields_done) struct fields g = {};
        CHECK_OK(record_build(&c, &g));
        CHECK(!fields_get(&g, FIELD_IN_CONTAINER) && !fields_get(&g, FIELD_OWN_NAMESPACES) &&
              !fields_get(&g, FIELD_NS_UID) && !fields_get(&g, FIELD_CONTAINER) &&
              !fields_get(&g, FIELD_CONTAINER_CMDLINE));
        CHECK(!strstr(fields_get(&g, FIELD_MESSAGE), " in container "));
        crash_done(&c);
        config_done(&settings);
}

/* want NULL: no such value. */
static void check_optional_str(const char *got, const char *want) {
        if (want)
                CHECK_STR(got, want);
        else
                CHECK(!got);
}

/* COREDUMP_OWNER_UID= and COREDUMP_SESSION= as systemd derives them, from the slice before the
 * first unit (user-UID.slice) and that unit (session-N.scope) only: what the task could make below
 * a delegated unit never counts. */
TEST(record_session_and_owner_from_the_cgroup) {
        static const struct {
                const char *slice, *unit, *owner, *session;
        } cases[] = {
                { "user-1000.slice", "session-3.scope", "1000", "3" },
                { "user-1000.slice", "session-c12.scope", "1000", "c12" },
                { "user-1001.slice", "user@1001.service", "1001", NULL },
                { "system.slice", "cron.service", NULL, NULL },
                { "user-10x0.slice", "session-3.scope", NULL, "3" },
                { "user-.slice", "session-.scope", NULL, NULL },
                { "user-4294967295.slice", "session-a/b.scope", NULL, NULL },
                { "-.slice", NULL, NULL, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct crash c;
                struct config settings;
                config_init_defaults(&settings);
                crash_init(&c, &settings);
                c.have_context = true;
                c.context.pid = 42;
                c.context.uid = 1000;
                CHECK(c.context.slice = strdup(cases[i].slice));
                c.context.unit = cases[i].unit ? strdup(cases[i].unit) : NULL;
                c.result = CRASH_RESULT_REJECTED;
                _cleanup_(fields_done) struct fields f = {};
                CHECK_OK(record_build(&c, &f));
                check_optional_str(fields_get_name(&f, "COREDUMP_OWNER_UID"), cases[i].owner);
                check_optional_str(fields_get_name(&f, "COREDUMP_SESSION"), cases[i].session);
                crash_done(&c);
                config_done(&settings);
        }
}

/* PRIORITY= by what became of the crash: crit for a kept crash within its burst, notice for a
 * repeat and a policy reject, warning for overload, err for a failure; the reason in one word. */
TEST(record_priority_and_reason_by_outcome) {
        static const struct {
                enum crash_result result;
                const char *rule;
                unsigned repeat, burst;
                int error;
                const char *priority, *reason;
        } cases[] = {
                { CRASH_RESULT_STORED, "keep", 1, 5, 0, "2", NULL },
                { CRASH_RESULT_STORED, "keep", 0, 0, 0, "2", NULL },
                { CRASH_RESULT_STORED, "keep", 6, 5, 0, "5", "repeat" },
                { CRASH_RESULT_USERSPACE, "keep", 6, 5, 0, "5", "repeat" },
                { CRASH_RESULT_REJECTED, "keep", 6, 5, 0, "5", "repeat" },
                { CRASH_RESULT_REJECTED, "no", 1, 5, 0, "5", "rule" },
                { CRASH_RESULT_REJECTED, "builtin:rlimit-zero", 0, 0, 0, "5", "rlimit-zero" },
                { CRASH_RESULT_OVERLOAD, "overload", 0, 0, 0, "4", "overload" },
                { CRASH_RESULT_FAILED, "keep", 1, 5, -ENOSPC, "3", "no-room" },
                { CRASH_RESULT_FAILED, "keep", 1, 5, -ETIMEDOUT, "3", "deadline" },
                { CRASH_RESULT_FAILED, "keep", 1, 5, -EIO, "3", "error" },
                { CRASH_RESULT_FAILED, "context-unavailable", 0, 0, -ESRCH, "3", "no-context" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct crash c;
                struct config settings;
                config_init_defaults(&settings);
                crash_init(&c, &settings);
                CHECK_OK(crash_set_decision(&c, ACTION_REJECT, cases[i].rule));
                c.decision.repeat = cases[i].repeat;
                c.decision.rate_limit_burst = cases[i].burst;
                c.result = cases[i].result;
                c.error_code = cases[i].error;
                _cleanup_(fields_done) struct fields f = {};
                CHECK_OK(record_build(&c, &f));
                CHECK_STR(fields_get(&f, FIELD_PRIORITY), cases[i].priority);
                check_optional_str(fields_get(&f, FIELD_REASON), cases[i].reason);
                crash_done(&c);
                config_done(&settings);
        }
}

/* The note of a regular user's rejected crash for their own journal: what and why, at notice, with
 * coredumpd's message id (coredumpctl lists the crash once); nothing of the core. Only for a regular user of the host's, never for root, a
 * system user, a subuid range's task, or a crash that kept a core or failed. */
TEST(user_note_of_a_rejected_crash) {
        static const struct {
                uint32_t uid, tenant;
                enum crash_result result;
                const char *rule;
                bool wanted;
        } cases[] = {
                { 1000, 1000, CRASH_RESULT_REJECTED, "builtin:rlimit-zero", true },
                { 1000, 1000, CRASH_RESULT_REJECTED, "no", true },
                { 1000, 1000, CRASH_RESULT_OVERLOAD, "overload", true },
                { 1000, 1000, CRASH_RESULT_FAILED, "keep", false },
                { 1000, 1000, CRASH_RESULT_REJECTED, "self", false },
                { 0, 0, CRASH_RESULT_REJECTED, "no", false },
                { 33, 33, CRASH_RESULT_REJECTED, "no", false },
                { 65534, 65534, CRASH_RESULT_REJECTED, "no", false },
                { 100000, 1000, CRASH_RESULT_REJECTED, "no", false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct crash c;
                struct config settings;
                config_init_defaults(&settings);
                crash_init(&c, &settings);
                c.have_peer = true;
                c.peer.tenant = tenant_of_uid(cases[i].tenant);
                c.have_context = true;
                c.context.pid = 4242;
                c.context.uid = cases[i].uid;
                c.context.gid = cases[i].uid;
                CHECK(c.context.comm = strdup("crasher"));
                CHECK(c.context.cmdline = strdup("crasher --secret"));
                CHECK_OK(crash_set_decision(&c, ACTION_REJECT, cases[i].rule));
                c.result = cases[i].result;
                CHECK_INT(record_user_note_wanted(&c), ==, cases[i].wanted);
                if (cases[i].wanted) {
                        _cleanup_(fields_done) struct fields f = {};
                        CHECK_OK(record_build_user_note(&c, &f));
                        CHECK_STR(fields_get(&f, FIELD_MESSAGE_ID), COREDUMPD_MESSAGE_ID);
                        CHECK_STR(fields_get(&f, FIELD_PRIORITY), "5");
                        CHECK_STR(fields_get(&f, FIELD_RULE), cases[i].rule);
                        CHECK(fields_get(&f, FIELD_REASON));
                        CHECK(strstr(fields_get(&f, FIELD_MESSAGE), "Process 4242 (crasher) of user 1000"));
                        CHECK(!fields_get(&f, FIELD_CMDLINE) && !fields_get(&f, FIELD_BACKTRACE) &&
                              !fields_get(&f, FIELD_FILENAME));
                        if (strcmp(cases[i].rule, "builtin:rlimit-zero") == 0)
                                CHECK(strstr(fields_get(&f, FIELD_MESSAGE), "RLIMIT_CORE was 0"));
                }
                /* no peer pid set: the ids come from the context */
                crash_done(&c);
                config_done(&settings);
        }
}

/* The store's counters: atomic adds into the mapped file, read back by another reader; a file of an
 * older layout (fewer counters) keeps what it has; one that is not ours is replaced, and a reader
 * refuses it. */
TEST(metrics_file_counts_and_survives) {
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        uint64_t v[_METRICS_COUNTER_MAX];
        CHECK(dir_fd >= 0);
        CHECK_INT(metrics_read(dir_fd, v), ==, -ENOENT);

        struct metrics *m = metrics_open(dir_fd);
        CHECK(m);
        metrics_count_crash(m, METRICS_ACTION_REJECT, METRICS_RESULT_REJECTED, METRICS_REASON_RLIMIT_ZERO);
        metrics_count_crash(m, METRICS_ACTION_REJECT, METRICS_RESULT_REJECTED, METRICS_REASON_RLIMIT_ZERO);
        metrics_add(m, METRICS_CORE_BYTES_STORED, 4096);
        metrics_max(m, METRICS_QUEUE_PEAK, 7);
        metrics_max(m, METRICS_QUEUE_PEAK, 3);
        metrics_observe(m, METRICS_HISTOGRAM_ACK, 700);         /* le 0.001 */
        metrics_observe(m, METRICS_HISTOGRAM_ACK, 120000000);   /* +Inf only */
        struct metrics *m2 = metrics_open(dir_fd); /* a second process: dumpctl vacuum */
        CHECK(m2);
        metrics_add(m2, METRICS_VACUUMED_CORES + METRICS_VACUUM_AGE, 1);
        m2 = metrics_close(m2);
        m = metrics_close(m);

        CHECK_OK(metrics_read(dir_fd, v));
        CHECK_INT(v[metrics_crash_index(METRICS_ACTION_REJECT, METRICS_RESULT_REJECTED, METRICS_REASON_RLIMIT_ZERO)], ==, 2);
        CHECK_INT(v[METRICS_CORE_BYTES_STORED], ==, 4096);
        CHECK_INT(v[METRICS_QUEUE_PEAK], ==, 7);
        CHECK_INT(v[METRICS_VACUUMED_CORES + METRICS_VACUUM_AGE], ==, 1);
        CHECK_INT(v[metrics_histogram_index(METRICS_HISTOGRAM_ACK, 1)], ==, 1);
        CHECK_INT(v[metrics_histogram_index(METRICS_HISTOGRAM_ACK, METRICS_BUCKETS)], ==, 1);
        CHECK_INT(v[metrics_histogram_index(METRICS_HISTOGRAM_ACK, METRICS_BUCKETS + 1)], ==, 120000700);
        CHECK_INT(v[metrics_histogram_index(METRICS_HISTOGRAM_ACK, METRICS_BUCKETS + 2)], ==, 2);

        /* An older layout: the first 4 counters only. */
        struct { char magic[8]; uint32_t version, n; uint64_t c[4]; } old = { .version = METRICS_VERSION, .n = 4,
                                                                             .c = { 5, 6, 7, 8 } };
        memcpy(old.magic, METRICS_MAGIC, 8);
        CHECK(unlinkat(dir_fd, METRICS_FILE, 0) == 0);
        _cleanup_close_ int fd = openat(dir_fd, METRICS_FILE, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        CHECK(fd >= 0 && write(fd, &old, sizeof old) == (ssize_t) sizeof old);
        CHECK_OK(metrics_read(dir_fd, v));
        CHECK_INT(v[3], ==, 8);
        CHECK_INT(v[METRICS_QUEUE_PEAK], ==, 0);
        m = metrics_open(dir_fd);
        CHECK(m);
        metrics_add(m, 3, 1);
        m = metrics_close(m);
        CHECK_OK(metrics_read(dir_fd, v));
        CHECK_INT(v[0], ==, 5);
        CHECK_INT(v[3], ==, 9);
        struct stat st;
        CHECK(fstatat(dir_fd, METRICS_FILE, &st, 0) == 0);
        CHECK_INT(st.st_size, ==, 16 + 8 * _METRICS_COUNTER_MAX);
        CHECK_INT(st.st_mode & 07777, ==, 0644);

        /* Not ours: refused by a reader, replaced by a counter. */
        CHECK(unlinkat(dir_fd, METRICS_FILE, 0) == 0);
        CHECK_OK(write_text_file(dir, METRICS_FILE, "not counters at all\n"));
        CHECK_INT(metrics_read(dir_fd, v), ==, -EBADMSG);
        m = metrics_open(dir_fd);
        CHECK(m);
        m = metrics_close(m);
        CHECK_OK(metrics_read(dir_fd, v));
        CHECK_INT(v[0], ==, 0);
        /* A symlink is never followed. */
        CHECK(unlinkat(dir_fd, METRICS_FILE, 0) == 0);
        CHECK(symlinkat("/etc/passwd", dir_fd, METRICS_FILE) == 0);
        CHECK_INT(metrics_read(dir_fd, v), <, 0);
        tmpdir_remove(dir);
}

static size_t count_binary(const struct fields *f, const char *name, const void *bytes, size_t size) {
        size_t found = 0, len = strlen(name);
        for (size_t i = 0; i < f->n; i++)
                if (f->v[i].iov_len == len + 1 + size && memcmp(f->v[i].iov_base, name, len) == 0 &&
                    ((const char *) f->v[i].iov_base)[len] == '=' &&
                    memcmp((const char *) f->v[i].iov_base + len + 1, bytes, size) == 0)
                        found++;
        return found;
}

/* The compact core goes as bytes with its size into the records JournalCore= names: a regular
 * user's own copy (user, the default), the system journal's record too (system); the system
 * journal's record says why it has none, the user's copy never does. */
TEST(record_journal_core_in_the_copies_journal_core_names) {
        static const char bytes[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, '\n', 0, 4 };
        struct crash c;
        struct config settings;
        config_init_defaults(&settings);
        crash_init(&c, &settings);
        c.have_context = true;
        c.have_decision = true;
        c.context.pid = 4242;
        c.context.uid = c.context.euid = 1000;
        c.context.gid = c.context.egid = 1000;
        c.context.dumpable = 1;
        c.context.at_secure = 0;
        c.result = CRASH_RESULT_STORED;
        CHECK(c.journal_core = malloc(sizeof bytes));
        memcpy(c.journal_core, bytes, sizeof bytes);
        c.journal_core_size = sizeof bytes;

        /* JournalCore=user: the user's copy only. */
        c.decision.journal_core = JOURNAL_CORE_USER;
        _cleanup_(fields_done) struct fields f = {}, u = {};
        CHECK_OK(record_build(&c, &f));
        CHECK_OK(record_build_user_copy(&c, &u));
        CHECK_INT(count_binary(&f, "COREDUMP", bytes, sizeof bytes), ==, 0);
        CHECK(!fields_get(&f, FIELD_COREDUMP) && !fields_get(&f, FIELD_JOURNAL_CORE_SIZE));
        CHECK_STR(fields_get(&f, FIELD_JOURNAL_CORE_ERROR), "in the user's own journal only (JournalCore=user)");
        CHECK_INT(count_binary(&u, "COREDUMP", bytes, sizeof bytes), ==, 1);
        CHECK_STR(fields_get(&u, FIELD_JOURNAL_CORE_SIZE), "12");
        CHECK(!fields_get(&u, FIELD_JOURNAL_CORE_ERROR));
        CHECK_INT(u.n, ==, f.n + 1); /* the rest is the same */
        CHECK_STR(fields_get(&u, FIELD_MESSAGE), fields_get(&f, FIELD_MESSAGE));

        /* JournalCore=system: both; a system user's copy (filed in the system journal by journald)
         * none, root-only cores neither. */
        c.decision.journal_core = JOURNAL_CORE_SYSTEM;
        _cleanup_(fields_done) struct fields fs = {}, us = {};
        CHECK_OK(record_build(&c, &fs));
        CHECK_OK(record_build_user_copy(&c, &us));
        CHECK_INT(count_binary(&fs, "COREDUMP", bytes, sizeof bytes), ==, 1);
        CHECK_STR(fields_get(&fs, FIELD_JOURNAL_CORE_SIZE), "12");
        CHECK(!fields_get(&fs, FIELD_JOURNAL_CORE_ERROR));
        CHECK_INT(count_binary(&us, "COREDUMP", bytes, sizeof bytes), ==, 1);
        static const uint32_t not_own[] = { 33, 999, 65534, 61184, 65519, 0x80000, 0x7FFF0000 };
        for (size_t i = 0; i < ELEMENTSOF(not_own); i++) {
                c.context.uid = c.context.euid = not_own[i];
                CHECK(!record_user_copy_takes_core(&c));
        }
        static const uint32_t own[] = { 1000, 59092, 65536, 100000, 0x7FFFF };
        for (size_t i = 0; i < ELEMENTSOF(own); i++) {
                c.context.uid = c.context.euid = own[i];
                CHECK(record_user_copy_takes_core(&c));
        }
        c.context.uid = c.context.euid = 1000;
        c.context.euid = 0; /* setuid */
        CHECK(!record_user_copy_takes_core(&c));
        c.context.euid = 1000;
        c.decision.journal_core = JOURNAL_CORE_NO;
        CHECK(!record_user_copy_takes_core(&c));
        c.decision.journal_core = JOURNAL_CORE_USER;

        /* None made: the reason, escaped, in the system journal's record only. */
        free(c.journal_core);
        c.journal_core = NULL;
        c.journal_core_size = 0;
        snprintf(c.journal_core_error, sizeof c.journal_core_error, "too large\n");
        _cleanup_(fields_done) struct fields g = {}, v = {};
        CHECK_OK(record_build(&c, &g));
        CHECK_OK(record_build_user_copy(&c, &v));
        CHECK(!fields_get(&g, FIELD_COREDUMP) && !fields_get(&g, FIELD_JOURNAL_CORE_SIZE));
        CHECK_STR(fields_get(&g, FIELD_JOURNAL_CORE_ERROR), "too large\\n");
        CHECK(!fields_get(&v, FIELD_JOURNAL_CORE_ERROR) && !fields_get(&v, FIELD_JOURNAL_CORE_SIZE));
        crash_done(&c);
        config_done(&settings);
}

TEST(context_user_may_read_matrix) {
        struct crash_context c = sample_context();
        CHECK(context_user_may_read(&c));
        c.euid = 0;
        CHECK(!context_user_may_read(&c));
        c = sample_context();
        c.egid = 0;
        CHECK(!context_user_may_read(&c));
        c = sample_context();
        c.at_secure = 1;
        CHECK(!context_user_may_read(&c));
        c.at_secure = -1;
        CHECK(!context_user_may_read(&c));
        c = sample_context();
        c.dumpable = false;
        CHECK(!context_user_may_read(&c));
}

/* ---- the ELF extent ---- */

/* The extent of data written to a fresh file (as the store reads it back). 1 known, 0 unknown. */
static int extent_of(const void *data, size_t size, uint64_t *ret) {
        _cleanup_close_ int fd = memfd_create("core", MFD_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(write(fd, data, size) == (ssize_t) size);
        return core_extent_of_file(fd, ret);
}

/* A core with PN_XNUM program headers: the count lives in section header 0 at the end. n_phdrs
 * PT_LOAD headers, each of one 4 KiB page, then the pages, then the section header. */
static uint8_t *xnum_core_new(size_t n_phdrs, size_t *ret_size) {
        size_t phoff = sizeof(Elf64_Ehdr), data_off = phoff + n_phdrs * sizeof(Elf64_Phdr);
        data_off = (data_off + 4095) & ~(size_t) 4095;
        size_t shoff = data_off + n_phdrs * 4096, size = shoff + sizeof(Elf64_Shdr);
        uint8_t *core = calloc(1, size);
        CHECK(core);
        Elf64_Ehdr *eh = (Elf64_Ehdr *) core;
        memcpy(eh->e_ident, ELFMAG, SELFMAG);
        eh->e_ident[EI_CLASS] = ELFCLASS64;
        eh->e_ident[EI_DATA] = ELFDATA2LSB;
        eh->e_ident[EI_VERSION] = EV_CURRENT;
        eh->e_type = ET_CORE;
        eh->e_machine = EM_X86_64;
        eh->e_version = EV_CURRENT;
        eh->e_phoff = phoff;
        eh->e_shoff = shoff;
        eh->e_ehsize = sizeof(Elf64_Ehdr);
        eh->e_phentsize = sizeof(Elf64_Phdr);
        eh->e_phnum = PN_XNUM;
        eh->e_shentsize = sizeof(Elf64_Shdr);
        eh->e_shnum = 1;
        Elf64_Phdr *ph = (Elf64_Phdr *) (core + phoff);
        for (size_t i = 0; i < n_phdrs; i++)
                ph[i] = (Elf64_Phdr) { .p_type = PT_LOAD, .p_offset = data_off + i * 4096, .p_filesz = 4096,
                                       .p_memsz = 4096, .p_vaddr = 0x10000000 + i * 4096, .p_align = 4096 };
        Elf64_Shdr *sh = (Elf64_Shdr *) (core + shoff);
        sh->sh_info = (Elf64_Word) n_phdrs;
        *ret_size = size;
        return core;
}

TEST(core_extent_from_headers) {
        _cleanup_free_ uint8_t *core = fake_core_new(65536 + 100, 65536 + 100);
        uint64_t expected;

        CHECK_INT(extent_of(core, 65536 + 100, &expected), ==, 1);
        CHECK_INT(expected, ==, 65536 + 100);

        /* A core that claims more than it has. */
        _cleanup_free_ uint8_t *short_core = fake_core_new(8192, 1 << 20);
        CHECK_INT(extent_of(short_core, 8192, &expected), ==, 1);
        CHECK_INT(expected, ==, 1 << 20);

        /* Cut inside the ELF header. */
        CHECK_INT(extent_of(core, 40, &expected), ==, 1);
        CHECK_INT(expected, ==, sizeof(Elf64_Ehdr));

        /* Not ELF, or not a core: unknown. */
        CHECK_INT(extent_of("hello world, this is not an ELF file at all......................", 64, &expected), ==, 0);
        core[16] = ET_EXEC;
        CHECK_INT(extent_of(core, 4096, &expected), ==, 0);
}

/* More than 65534 mappings (PN_XNUM): whole, the extent is the file; cut anywhere, even before the
 * section header that holds the count, the extent is beyond what was received. */
TEST(core_extent_pn_xnum_and_far_phoff) {
        size_t size;
        _cleanup_free_ uint8_t *core = xnum_core_new(70000, &size);
        uint64_t expected;

        CHECK_INT(extent_of(core, size, &expected), ==, 1);
        CHECK_INT(expected, ==, size);
        CHECK_INT(extent_of(core, size - 1, &expected), ==, 1);        /* section header cut */
        CHECK_INT(expected, >, size - 1);
        CHECK_INT(extent_of(core, size / 2, &expected), ==, 1);        /* in the middle of the data */
        CHECK_INT(expected, >, size / 2);

        /* A program header table far from the ELF header, cut before it. */
        _cleanup_free_ uint8_t *far = fake_core_new(65536, 65536);
        Elf64_Ehdr *eh = (Elf64_Ehdr *) far;
        eh->e_phoff = 60000;
        CHECK_INT(extent_of(far, 32768, &expected), ==, 1);
        CHECK_INT(expected, >, 32768);
}

/* After the lock-down, perf_event_open() and every bpf() command but the probe's map reads and
 * deletes are refused by the filter, whatever capabilities are left (checked in a child). */
TEST(privileges_lock_down_filters_bpf_and_perf) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                if (privileges_drop_setup_capabilities() < 0)
                        _exit(10);
                union bpf_attr attr = { .map_fd = (uint32_t) -1 };
                errno = 0;
                if (syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr) >= 0 || errno != EPERM)
                        _exit(11);
                errno = 0;
                if (syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr) >= 0 || errno != EPERM)
                        _exit(12);
                errno = 0;
                if (syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0) >= 0 || errno != EPERM)
                        _exit(13);
                /* A map lookup passes the filter: the kernel itself answers (a bad fd). */
                errno = 0;
                if (syscall(SYS_bpf, BPF_MAP_LOOKUP_ELEM, &attr, sizeof attr) >= 0 || errno == EPERM)
                        _exit(14);
                _exit(0);
        }
        int status;
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK_INT(WEXITSTATUS(status), ==, 0);
}

/* The lock-down's filter holds what the unit's SystemCallFilter= denies wherever the daemon runs
 * (here: in a child of the test, under no unit): another process's memory (ptrace, process_vm_*,
 * kcmp, pidfd_getfd), mounting, modules, swap, clocks, raw I/O are refused with EPERM. Each is called
 * so that, unfiltered, root gets another answer (a bad pointer, a missing path, a bad fd); the
 * ptrace target is a sleeping sibling. What the daemon, its parser and its writers do still works:
 * processes (fork, pidfd_open, execve), splice, copy_file_range, sd-event's fds, a further filter.
 * Fails on 51da36f, whose filter refused only bpf() and perf_event_open(). */
static void *noop_thread(void *arg) {
        return arg;
}

TEST(privileges_lock_down_denies_what_the_unit_denies) {
        if (geteuid() != 0) {
                printf("SKIP: needs root (unfiltered, these calls must fail for another reason than EPERM)\n");
                exit(77);
        }
        pid_t sleeper = fork();
        CHECK(sleeper >= 0);
        if (sleeper == 0) {
                pause();
                _exit(0);
        }
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                if (privileges_drop_setup_capabilities() < 0)
                        _exit(10);
#define REFUSED(code, call)                                                                            \
                do {                                                                                   \
                        errno = 0;                                                                     \
                        if ((call) >= 0 || errno != EPERM) {                                           \
                                fprintf(stderr, "%s: not refused with EPERM (%m)\n", #call);           \
                                _exit(code);                                                           \
                        }                                                                              \
                } while (0)
                REFUSED(11, syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, sleeper, 0, 0));
                REFUSED(12, syscall(SYS_process_vm_readv, sleeper, NULL, 0, NULL, 0, 0));
                REFUSED(13, syscall(SYS_kcmp, getpid(), sleeper, 0 /* KCMP_FILE */, 0, 0));
                REFUSED(14, syscall(SYS_pidfd_getfd, -1, 0, 0));
                REFUSED(15, syscall(SYS_mount, "none", "/nonexistent/coredumpd-test", "tmpfs", 0, NULL));
                REFUSED(16, syscall(SYS_umount2, "/nonexistent/coredumpd-test", 0));
                REFUSED(17, syscall(SYS_init_module, NULL, 0, ""));
                REFUSED(18, syscall(SYS_swapon, NULL, 0));
                REFUSED(19, syscall(SYS_clock_settime, CLOCK_REALTIME, NULL));
                REFUSED(20, syscall(SYS_open_tree, -1, "", 0));
                REFUSED(21, syscall(SYS_chroot, "/nonexistent/coredumpd-test"));
#ifdef SYS_iopl
                REFUSED(22, syscall(SYS_iopl, 4 /* invalid level: EINVAL unfiltered */));
#endif
#undef REFUSED
                /* What serving crashes needs. */
                int fds[2], out[2];
                if (pipe(fds) < 0 || pipe(out) < 0 || write(fds[1], "x", 1) != 1 ||
                    splice(fds[0], NULL, out[1], NULL, 1, 0) != 1)
                        _exit(30);
                int memfd = memfd_create("coredumpd-test", MFD_CLOEXEC), memfd2 = memfd_create("coredumpd-test", MFD_CLOEXEC);
                if (memfd < 0 || memfd2 < 0 || write(memfd, "abc", 3) != 3 || lseek(memfd, 0, SEEK_SET) != 0 ||
                    copy_file_range(memfd, NULL, memfd2, NULL, 3, 0) != 3)
                        _exit(31);
                int pidfd = (int) syscall(SYS_pidfd_open, getpid(), 0);
                if (pidfd < 0 || syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
                        _exit(32);
                if (epoll_create1(EPOLL_CLOEXEC) < 0 || timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC) < 0 ||
                    eventfd(0, EFD_CLOEXEC) < 0)
                        _exit(33);
                sigset_t mask;
                sigemptyset(&mask);
                sigaddset(&mask, SIGUSR2);
                if (signalfd(-1, &mask, SFD_CLOEXEC) < 0)
                        _exit(34);
                pthread_t thread;
                if (pthread_create(&thread, NULL, noop_thread, NULL) != 0 || pthread_join(thread, NULL) != 0)
                        _exit(35);
                pid_t child = fork();
                if (child == 0) {
                        /* The parser's own filter goes on top of this one. */
                        char reason[256] = "";
                        struct cell_limits l = { .address_space = 1u << 30, .cpu_seconds = 5, .open_files = 64 };
                        if (sandbox_enter(65534, 65534, &l, SANDBOX_READ, reason, sizeof reason) < 0) {
                                fprintf(stderr, "sandbox_enter under the daemon's filter: %s\n", reason);
                                _exit(1);
                        }
                        _exit(0);
                }
                int st;
                if (child < 0 || waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                        _exit(36);
                child = fork();
                if (child == 0) {
                        execl("/bin/true", "true", (char *) NULL);
                        _exit(1);
                }
                if (child < 0 || waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                        _exit(37);
                _exit(0);
        }
        int status;
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(kill(sleeper, SIGKILL) == 0);
        CHECK(waitpid(sleeper, NULL, 0) == sleeper);
        if (!WIFEXITED(status))
                test_fail(__FILE__, __LINE__, "the filtered child was killed by signal %d", WTERMSIG(status));
        CHECK_INT(WEXITSTATUS(status), ==, 0);
}

/* Seccomp_filters: of /proc/<pid>/status (Linux 5.9): how many filters the process has stacked; -1
 * where the kernel does not say. */
static int seccomp_filters_of(pid_t pid) {
        _cleanup_free_ char *path = NULL, *status = NULL;
        CHECK(asprintf(&path, "/proc/%d/status", (int) pid) > 0);
        if (read_file_at(AT_FDCWD, path, 1 << 16, &status, NULL, NULL) < 0)
                return -1;
        const char *p = strstr(status, "\nSeccomp_filters:");
        return p ? atoi(p + strlen("\nSeccomp_filters:")) : -1;
}

/* The parser's filter is its own, not the one it inherits: coredumpd-parser, executed as the daemon
 * executes it by a child that holds the daemon's filter (privileges_install_syscall_filter(); in the
 * unit, systemd's filters come first), has one more in Seccomp_filters than that child had. Caught
 * in its cell, blocked reading the task's maps (a pipe the test holds), as nobody. With the filter
 * of parser/sandbox.c left out it has as many as its parent, and this fails. */
TEST(parser_filter_is_its_own) {
        if (geteuid() != 0) {
                printf("SKIP: needs root to start the parser as nobody\n");
                exit(77);
        }
        if (seccomp_filters_of(getpid()) < 0) {
                printf("SKIP: no Seccomp_filters in /proc/self/status (Linux before 5.9)\n");
                exit(77);
        }
        const char *parser = parser_program();
        int in[2], out[2], maps[2], report[2];
        CHECK(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0 && pipe2(maps, O_CLOEXEC) == 0 &&
              pipe2(report, O_CLOEXEC) == 0);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                int mem = open("/dev/null", O_RDONLY), mountinfo = open("/dev/null", O_RDONLY),
                    root = open("/", O_PATH | O_DIRECTORY);
                if (mem < 0 || mountinfo < 0 || root < 0)
                        _exit(120);
                /* Out of the way of the fd numbers the parser takes them at. */
                int fds[] = { in[0], out[1], fcntl(mem, F_DUPFD, 10), fcntl(maps[0], F_DUPFD, 10),
                              fcntl(mountinfo, F_DUPFD, 10), fcntl(root, F_DUPFD, 10) };
                for (int i = 0; i < 6; i++)
                        if (fds[i] < 0 || dup2(fds[i], i == 0 ? 0 : i == 1 ? 1 : PARSER_FD_MEM + i - 2) < 0)
                                _exit(121);
                if (privileges_install_syscall_filter() < 0)
                        _exit(122);
                int n = seccomp_filters_of(getpid());
                if (write(report[1], &n, sizeof n) != sizeof n)
                        _exit(123);
                execl(parser, "coredumpd-parser", (char *) NULL);
                _exit(124);
        }
        close(in[0]), close(out[1]), close(maps[0]), close(report[1]);
        int daemon_filters = -1;
        CHECK(read(report[0], &daemon_filters, sizeof daemon_filters) == sizeof daemon_filters);
        close(report[0]);
        CHECK_INT(daemon_filters, ==, seccomp_filters_of(getpid()) + 1);

        static struct parser_request req;
        req = (struct parser_request) { .magic = PARSER_MAGIC, .version = PARSER_VERSION, .pid = getpid(),
                                        .uid = 65534, .gid = 65534, .max_frames = 8, .budget_usec = 5000000,
                                        .memory_max = UINT64_C(1) << 30, .n_threads = 0 };
        strcpy(req.exe, "/nonexistent");
        CHECK(write(in[1], &req, sizeof req) == (ssize_t) sizeof req);
        close(in[1]);

        /* Waiting in read(PARSER_FD_MAPS): the cell is entered, the filter loaded. */
        _cleanup_free_ char *path = NULL, *want = NULL;
        CHECK(asprintf(&path, "/proc/%d/syscall", (int) pid) > 0);
        CHECK(asprintf(&want, "%d 0x%x ", (int) SYS_read, PARSER_FD_MAPS) > 0);
        bool waiting = false;
        for (int i = 0; i < 500 && !waiting; i++) {
                _cleanup_free_ char *sc = NULL;
                waiting = read_file_at(AT_FDCWD, path, 4096, &sc, NULL, NULL) >= 0 && strncmp(sc, want, strlen(want)) == 0;
                if (!waiting)
                        usleep(10000);
        }
        int parser_filters = seccomp_filters_of(pid);
        _cleanup_free_ char *status_path = NULL, *status = NULL;
        CHECK(asprintf(&status_path, "/proc/%d/status", (int) pid) > 0);
        CHECK_OK(read_file_at(AT_FDCWD, status_path, 1 << 16, &status, NULL, NULL));
        close(maps[1]);
        char buf[4096];
        while (read(out[0], buf, sizeof buf) > 0)
                ;
        close(out[0]);
        int st;
        CHECK(waitpid(pid, &st, 0) == pid);
        if (!waiting)
                test_fail(__FILE__, __LINE__, "the parser was not caught reading its maps (status %#x)", (unsigned) st);
        CHECK(strstr(status, "\nUid:\t65534\t65534\t65534\t65534\n"));
        CHECK(strstr(status, "\nSeccomp:\t2\n"));
        if (parser_filters != daemon_filters + 1)
                test_fail(__FILE__, __LINE__, "the parser has %d filters, its parent %d: not one of its own",
                          parser_filters, daemon_filters);
        CHECK(WIFEXITED(st));
}

#if defined(__x86_64__)
/* A system call of another ABI (i386's int 0x80) kills the process under either filter: none of
 * their rules would read its numbers right. */
static void check_compat_call_kills(bool parser) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                char reason[256] = "";
                struct cell_limits l = { .address_space = 1u << 30, .cpu_seconds = 5, .open_files = 64 };
                if (parser ? sandbox_enter(65534, 65534, &l, SANDBOX_READ, reason, sizeof reason) < 0
                           : privileges_install_syscall_filter() < 0)
                        _exit(10);
                long ret;
                __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20 /* i386's getpid */) : "memory");
                _exit(11);
        }
        int status;
        CHECK(waitpid(pid, &status, 0) == pid);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS)
                test_fail(__FILE__, __LINE__, "%s: int 0x80 did not kill with SIGSYS (status %#x)",
                          parser ? "parser" : "daemon", (unsigned) status);
}
#endif

TEST(syscall_filters_kill_other_abis) {
#if defined(__x86_64__)
        if (geteuid() != 0) {
                printf("SKIP: needs root to change ids\n");
                exit(77);
        }
        check_compat_call_kills(true);
        check_compat_call_kills(false);
#else
        printf("SKIP: x86-64's int 0x80 only\n");
        exit(77);
#endif
}


/* COREDUMPD_SAVED_FILES=: what the daemon writes reads back; a hostile journal's lines are refused
 * whole (paths that climb out, store names with a '/', blanks, odd build-ids). */
/* A result as the parser sends it: two threads, names, build-ids. */
static void sample_result(struct unwind_result *r) {
        *r = (struct unwind_result) { .n_threads = 2, .usec = 42 };
        strcpy(r->exe_build_id, "0123456789abcdef0123456789abcdef01234567");
        r->threads = calloc(2, sizeof r->threads[0]);
        CHECK(r->threads);
        r->threads[0] = (struct unwind_thread) { .tid = 100, .n_frames = 2 };
        r->threads[1] = (struct unwind_thread) { .tid = 101, .n_frames = 1, .cut = true };
        for (size_t i = 0; i < 2; i++) {
                r->threads[i].frames = calloc(r->threads[i].n_frames, sizeof r->threads[i].frames[0]);
                CHECK(r->threads[i].frames);
        }
        r->threads[0].frames[0] = (struct unwind_frame) {
                .pc = 0x401000, .module_offset = 0x1000, .module = strdup("/usr/bin/x"),
                .symbol = strdup("main"), .symbol_offset = 4,
        };
        strcpy(r->threads[0].frames[0].build_id, "abcd");
        r->threads[0].frames[1] = (struct unwind_frame) { .pc = 0x7f0000000000 };
        r->threads[1].frames[0] = (struct unwind_frame) { .pc = 1, .symbol = strdup("f") };
}

/* A crashing thread of n frames (build-id "b0ff", offsets 0x10, 0x20, ...) ending as cut says. */
static void trace_result(struct unwind_result *r, size_t n, enum unwind_cut cut) {
        *r = (struct unwind_result) { .n_threads = 1 };
        strcpy(r->exe_build_id, "0123456789abcdef0123456789abcdef01234567");
        r->threads = calloc(1, sizeof r->threads[0]);
        CHECK(r->threads);
        r->threads[0] = (struct unwind_thread) { .tid = 100, .n_frames = n, .cut = cut };
        r->threads[0].frames = calloc(n ? n : 1, sizeof r->threads[0].frames[0]);
        CHECK(r->threads[0].frames);
        for (size_t k = 0; k < n; k++) {
                r->threads[0].frames[k] = (struct unwind_frame) { .pc = 0x7f0000001000 + k, .module_offset = 0x10 * (k + 1) };
                strcpy(r->threads[0].frames[k].build_id, "b0ff");
        }
}

static void trace_signature(size_t n, enum unwind_cut cut, char out[static 17], bool *ret_partial) {
        struct unwind_result r;
        trace_result(&r, n, cut);
        signature_compute(&r, SIGSEGV, out);
        *ret_partial = signature_partial(&r);
        unwind_result_done(&r);
}

/* One rule for every crash (crash/backtrace.h): the same frames sign the same, whether they came
 * from the probe's registers or /proc's sp and pc, from a daemon the crash started or a running
 * one. A trace cut short before it has the signature's frames is partial: kept apart from every
 * complete signature, itself stable; cut below them, it signs the crash site as a complete one. */
TEST(signature_one_rule_cut_traces_partial) {
        char complete6[17], again[17], sig[17], partial1[17], complete1[17];
        bool partial;

        /* The warm crash of issue 25: six frames to the outermost. */
        trace_signature(6, UNWIND_CUT_NONE, complete6, &partial);
        CHECK(!partial);
        CHECK_INT(strlen(complete6), ==, 16);
        CHECK_INT(strspn(complete6, "0123456789abcdef"), ==, 16);
        trace_signature(6, UNWIND_CUT_NONE, again, &partial);
        CHECK_STR(again, complete6);
        /* Cut below the signature's frames (an error, UnwindMaxFrames=, the budget): the same. */
        trace_signature(6, UNWIND_CUT_ERROR, sig, &partial);
        CHECK(!partial);
        CHECK_STR(sig, complete6);
        trace_signature(SIGNATURE_FRAMES, UNWIND_CUT_BUDGET, sig, &partial);
        CHECK(!partial);
        CHECK_STR(sig, complete6);
        trace_signature(64, UNWIND_CUT_FRAMES, sig, &partial);
        CHECK(!partial);
        CHECK_STR(sig, complete6);

        /* The cold crash of issue 25: one frame, then the unwinder could go no further. Partial,
         * another signature than the complete one's, and the same each time. */
        trace_signature(1, UNWIND_CUT_ERROR, partial1, &partial);
        CHECK(partial);
        CHECK_INT(strlen(partial1), ==, 16);
        CHECK(strcmp(partial1, complete6) != 0);
        trace_signature(1, UNWIND_CUT_ERROR, again, &partial);
        CHECK_STR(again, partial1);
        /* Whatever cut it, a cut trace is one: its signature is over the frames it has. */
        trace_signature(1, UNWIND_CUT_BUDGET, sig, &partial);
        CHECK(partial);
        CHECK_STR(sig, partial1);
        /* One frame that is the whole stack is complete, and apart from the cut one. */
        trace_signature(1, UNWIND_CUT_NONE, complete1, &partial);
        CHECK(!partial);
        CHECK(strcmp(complete1, partial1) != 0);
        /* Within the signature's frames, every cut is partial; none is signed like a complete trace. */
        for (size_t n = 1; n < SIGNATURE_FRAMES; n++) {
                char whole[17];
                trace_signature(n, UNWIND_CUT_NONE, whole, &partial);
                CHECK(!partial);
                for (enum unwind_cut cut = UNWIND_CUT_ERROR; cut < _UNWIND_CUT_MAX; cut++) {
                        trace_signature(n, cut, sig, &partial);
                        CHECK(partial);
                        CHECK(strcmp(sig, whole) != 0);
                        CHECK(strcmp(sig, complete6) != 0);
                }
        }
        /* Nothing unwound: no signature at all. */
        trace_signature(0, UNWIND_CUT_ERROR, sig, &partial);
        CHECK_STR(sig, "");
        CHECK(!partial);

        /* The reasons, as the record (COREDUMPD_BACKTRACE_CUT=) and the stack trace name them. */
        CHECK(unwind_cut_to_string(UNWIND_CUT_NONE) == NULL);
        CHECK_STR(unwind_cut_to_string(UNWIND_CUT_ERROR), "error");
        CHECK_STR(unwind_cut_to_string(UNWIND_CUT_BUDGET), "budget");
        CHECK_STR(unwind_cut_to_string(UNWIND_CUT_FRAMES), "frames");
        CHECK(unwind_cut_to_string(_UNWIND_CUT_MAX) == NULL);
        struct unwind_result r;
        trace_result(&r, 1, UNWIND_CUT_ERROR);
        _cleanup_free_ char *text = unwind_thread_format(&r.threads[0]);
        CHECK(text && strstr(text, "(cut short: error)\n"));
        unwind_result_done(&r);
        trace_result(&r, 2, UNWIND_CUT_NONE);
        _cleanup_free_ char *whole_text = unwind_thread_format(&r.threads[0]);
        CHECK(whole_text && !strstr(whole_text, "cut short"));

        /* Each reason crosses the parser's wire; a reason beyond them is refused. */
        for (enum unwind_cut cut = UNWIND_CUT_NONE; cut <= _UNWIND_CUT_MAX; cut++) {
                struct unwind_result back = {};
                _cleanup_free_ void *buf = NULL;
                size_t size = 0;
                char reason[160];
                int error = 1;
                r.threads[0].cut = cut;
                CHECK_OK(parser_result_encode(&r, 0, &buf, &size));
                int k = parser_result_decode(buf, size, &back, &error, reason, sizeof reason);
                if (cut == _UNWIND_CUT_MAX)
                        CHECK_INT(k, ==, -EBADMSG);
                else {
                        CHECK_OK(k);
                        CHECK_INT(back.threads[0].cut, ==, cut);
                }
                unwind_result_done(&back);
        }
        unwind_result_done(&r);
}

/* The parser's answer (parser/wire.c): what it encodes decodes back the same; every cut, every count
 * beyond the maxima, every byte that is not what the format allows is refused, never read past. */
TEST(parser_result_round_trip_and_hostile_bytes) {
        struct unwind_result r, back = {};
        sample_result(&r);
        _cleanup_free_ void *buf = NULL;
        size_t size = 0;
        char reason[160];
        int error = 1;
        CHECK_OK(parser_result_encode(&r, 0, &buf, &size));
        CHECK_OK(parser_result_decode(buf, size, &back, &error, reason, sizeof reason));
        CHECK_INT(error, ==, 0);
        CHECK_INT(back.n_threads, ==, 2);
        CHECK_STR(back.exe_build_id, "0123456789abcdef0123456789abcdef01234567");
        CHECK_INT(back.threads[0].tid, ==, 100);
        CHECK_INT(back.threads[0].n_frames, ==, 2);
        CHECK_STR(back.threads[0].frames[0].module, "/usr/bin/x");
        CHECK_STR(back.threads[0].frames[0].symbol, "main");
        CHECK_STR(back.threads[0].frames[0].build_id, "abcd");
        CHECK_INT(back.threads[0].frames[0].symbol_offset, ==, 4);
        CHECK(back.threads[0].frames[1].module == NULL && back.threads[0].frames[1].symbol == NULL);
        CHECK_INT(back.threads[1].cut, ==, UNWIND_CUT_ERROR);
        CHECK_STR(back.threads[1].frames[0].symbol, "f");
        CHECK_INT(back.usec, ==, 42);
        unwind_result_done(&back);

        /* Every shorter prefix, and one byte more: refused. */
        for (size_t n = 0; n < size; n++)
                CHECK_INT(parser_result_decode(buf, n, &back, &error, reason, sizeof reason), ==, -EBADMSG);
        _cleanup_free_ unsigned char *longer = calloc(1, size + 1);
        memcpy(longer, buf, size);
        CHECK_INT(parser_result_decode(longer, size + 1, &back, &error, reason, sizeof reason), ==, -EBADMSG);

        /* A flipped byte anywhere: refused, or a result within every bound. */
        _cleanup_free_ unsigned char *bad = malloc(size);
        for (size_t i = 0; i < size; i++) {
                memcpy(bad, buf, size);
                bad[i] ^= 0xff;
                if (parser_result_decode(bad, size, &back, &error, reason, sizeof reason) == 0) {
                        CHECK(back.n_threads <= UNWIND_MAX_THREADS);
                        unwind_result_done(&back);
                }
        }
        struct parser_result_header *h = (struct parser_result_header *) longer;
        memcpy(longer, buf, size);
        h->n_threads = UNWIND_MAX_THREADS + 1;
        CHECK_INT(parser_result_decode(longer, size, &back, &error, reason, sizeof reason), ==, -EBADMSG);
        memcpy(longer, buf, size);
        h->exe_build_id[0] = 'X';                              /* not lowercase hex */
        CHECK_INT(parser_result_decode(longer, size, &back, &error, reason, sizeof reason), ==, -EBADMSG);
        CHECK(strstr(reason, "build-id"));
        memcpy(longer, buf, size);
        unsigned char *name = memmem(longer, size, "/usr/bin/x", 10);
        CHECK(name);
        name[3] = 0;                                            /* a NUL inside a name */
        CHECK_INT(parser_result_decode(longer, size, &back, &error, reason, sizeof reason), ==, -EBADMSG);

        /* Names longer than their maxima are cut by the encoder, never sent whole. */
        free(r.threads[0].frames[0].symbol);
        r.threads[0].frames[0].symbol = malloc(PARSER_SYMBOL_MAX * 4 + 1);
        memset(r.threads[0].frames[0].symbol, 's', PARSER_SYMBOL_MAX * 4);
        r.threads[0].frames[0].symbol[PARSER_SYMBOL_MAX * 4] = 0;
        free(buf);
        buf = NULL;
        CHECK_OK(parser_result_encode(&r, 0, &buf, &size));
        CHECK(size <= PARSER_RESULT_MAX);
        CHECK_OK(parser_result_decode(buf, size, &back, &error, reason, sizeof reason));
        CHECK_INT(strlen(back.threads[0].frames[0].symbol), ==, PARSER_SYMBOL_MAX);
        unwind_result_done(&back);

        /* The parser's own error: no threads, the error passed on. */
        free(buf);
        buf = NULL;
        CHECK_OK(parser_result_encode(&r, -EACCES, &buf, &size));
        CHECK_OK(parser_result_decode(buf, size, &back, &error, reason, sizeof reason));
        CHECK_INT(error, ==, -EACCES);
        CHECK_INT(back.n_threads, ==, 0);
        unwind_result_done(&back);
        unwind_result_done(&r);
}

/* --build-ids' answer as the daemon checks it: exactly one line per file, "-" or hex. */
TEST(parser_build_ids_answer_checked) {
        char ids[3][41];
        static const char good[] = "0123456789abcdef0123456789abcdef01234567\n-\nab\n";
        CHECK_OK(parser_build_ids_decode(good, strlen(good), 3, ids));
        CHECK_STR(ids[0], "0123456789abcdef0123456789abcdef01234567");
        CHECK_STR(ids[1], "");
        CHECK_STR(ids[2], "ab");
        static const char *const bad[] = {
                "ab\n-\n",                                            /* a line short */
                "ab\n-\nab\nab\n",                                  /* a line over */
                "ab\n-\nab",                                          /* no newline at the end */
                "AB\n-\nab\n",                                       /* upper case */
                "abc\n-\nab\n",                                      /* odd length */
                "0123456789abcdef0123456789abcdef0123456789\n-\nab\n", /* 42 digits */
                "\n-\nab\n",                                         /* empty */
                "a\x1b\n-\nab\n",                                   /* a control character */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                CHECK_INT(parser_build_ids_decode(bad[i], strlen(bad[i]), 3, ids), ==, -EBADMSG);
        CHECK_INT(parser_build_ids_decode(good, strlen(good), PARSER_BUILD_ID_FILES_MAX + 1, NULL), ==, -EBADMSG);
}

/* The build-ids of files the daemon opened, read by coredumpd-parser --build-ids in its cell: an
 * ELF file's id, "" for a file that is not ELF; the same as reading them here. */
TEST(parser_reads_build_ids_in_its_cell) {
        if (geteuid() != 0) {
                printf("SKIP: needs root to start the parser as nobody\n");
                exit(77);
        }
        int fds[3];
        fds[0] = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
        fds[1] = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
        fds[2] = open("/usr/bin/env", O_RDONLY | O_CLOEXEC);
        CHECK(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);
        char want0[41], want2[41], ids[3][41], reason[256] = "";
        CHECK_OK(elf_file_build_id(fds[0], want0));
        CHECK_OK(elf_file_build_id(fds[2], want2));
        CHECK(want0[0] && want2[0]);
        struct tenant owner = tenant_of_uid(getuid());
        int r = parser_build_ids(fds, 3, &owner, ids, reason, sizeof reason);
        if (r < 0)
                fprintf(stderr, "parser_build_ids: %s\n", reason);
        CHECK_OK(r);
        CHECK_STR(ids[0], want0);
        CHECK_STR(ids[1], "");
        CHECK_STR(ids[2], want2);
        for (int i = 0; i < 3; i++)
                close(fds[i]);
}

/* Children SIGKILL could not end are left to a reaper thread, counted until they are reaped: past
 * STUCK_MAX_PER_TENANT of one owner, or STUCK_MAX in all, no further child is started for that
 * owner (root and system users up to STUCK_MAX_SYSTEM); abandoned crash threads count in the same
 * budget (here stand-ins that wait in pause() until the test ends them). */
static pid_t abandoned_child(uid_t owner) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                for (;;)
                        pause();
        }
        struct tenant t = tenant_of_uid(owner);
        child_reap_later(pid, &t);
        return pid;
}

TEST(abandoned_children_bounded) {
        pid_t pids[STUCK_MAX];
        size_t n = 0;
        struct tenant t1000 = tenant_of_uid(1000), t1001 = tenant_of_uid(1001), root = tenant_of_uid(0);

        CHECK_INT(child_abandoned(NULL), ==, 0);
        for (unsigned i = 0; i + 1 < STUCK_MAX_PER_TENANT; i++) {
                CHECK(!stuck_budget_exhausted(&t1000));
                pids[n++] = abandoned_child(1000);
        }
        /* A stuck crash thread of the same tenant counts in the same budget. */
        CHECK(!stuck_budget_exhausted(&t1000));
        stuck_thread_add(&t1000);
        CHECK_INT(child_abandoned(&t1000), ==, STUCK_MAX_PER_TENANT - 1);
        CHECK_INT(stuck_count(&t1000), ==, STUCK_MAX_PER_TENANT);
        CHECK(stuck_budget_exhausted(&t1000));
        CHECK(stuck_budget_exhausted(&t1000));
        CHECK(!stuck_budget_exhausted(&t1001)); /* another user's budget is their own */
        stuck_thread_remove(&t1000);
        CHECK(!stuck_budget_exhausted(&t1000));
        pids[n++] = abandoned_child(1000);
        CHECK(stuck_budget_exhausted(&t1000));
        /* The bound in all: owners of one child each fill it; root's and system users' work goes
         * on up to STUCK_MAX_SYSTEM. */
        for (uid_t owner = 2000; n < STUCK_MAX; owner++)
                pids[n++] = abandoned_child(owner);
        CHECK_INT(child_abandoned(NULL), ==, STUCK_MAX);
        CHECK(stuck_budget_exhausted(&t1001));
        CHECK(stuck_budget_exhausted(&t1001));
        CHECK(!stuck_budget_exhausted(&root));
        CHECK_INT(stuck_threads(), ==, 0);
        /* Once they end, the reaper threads reap them and the budgets come back. */
        for (size_t i = 0; i < n; i++)
                CHECK_OK(kill(pids[i], SIGKILL));
        for (unsigned ms = 0; child_abandoned(NULL) > 0 && ms < 5000; ms += 10)
                usleep(10000);
        CHECK_INT(child_abandoned(NULL), ==, 0);
        CHECK(!stuck_budget_exhausted(&t1000));
}

/* The cell a core's writer enters (shared/cell.c), in a child of the test: the ids asked for, no
 * capability, not dumpable, no_new_privs, the limits; never as root. */
TEST(cell_has_no_privileges) {
        if (geteuid() != 0) {
                printf("SKIP: needs root to change ids\n");
                exit(77);
        }
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                char reason[256] = "";
                struct rlimit rl;
                struct cell_limits l = { .address_space = UINT64_C(1) << 40, .cpu_seconds = 5, .open_files = 64,
                                         .file_size = RLIM_INFINITY };
                if (cell_enter(0, 0, &l, reason, sizeof reason) != -EPERM)
                        _exit(10);
                if (cell_enter(65534, 65534, &l, reason, sizeof reason) < 0) {
                        fprintf(stderr, "cell_enter: %s\n", reason);
                        _exit(11);
                }
                if (getuid() != 65534 || geteuid() != 65534 || getegid() != 65534 || getgroups(0, NULL) != 0)
                        _exit(12);
                if (cell_holds_capabilities() || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0 ||
                    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
                        _exit(13);
                if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max != 64 || getrlimit(RLIMIT_CORE, &rl) < 0 ||
                    rl.rlim_max != 0)
                        _exit(14);
                if (setresuid(0, 0, 0) == 0)
                        _exit(15);
                _exit(0);
        }
        int status;
        CHECK_INT(waitpid(pid, &status, 0), ==, pid);
        CHECK(WIFEXITED(status));
        CHECK_INT(WEXITSTATUS(status), ==, 0);
}

/* The parser's cell (parser/sandbox.c), entered in a child of the test: the ids asked for, no
 * capability, not dumpable, and a system call filter that lets it read files and nothing else. */
TEST(parser_cell_has_no_privileges) {
        if (geteuid() != 0) {
                printf("SKIP: needs root to change ids\n");
                exit(77);
        }
        int ns_pipe[2], go_pipe[2];
        char score_buf[16];
        CHECK(pipe2(ns_pipe, O_CLOEXEC) == 0 && pipe2(go_pipe, O_CLOEXEC) == 0);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                char reason[256] = "";
                struct cell_limits l = { .address_space = 1u << 30, .cpu_seconds = 5, .open_files = 64 };
                if (sandbox_enter(0, 0, &l, SANDBOX_READ, reason, sizeof reason) != -EPERM)
                        _exit(10); /* never as root */
                if (sandbox_enter(65534, 65534, &l, SANDBOX_READ, reason, sizeof reason) < 0) {
                        fprintf(stderr, "sandbox_enter: %s\n", reason);
                        _exit(11);
                }
                /* In a user namespace of its own, which maps no id: every id reads as the overflow
                 * id, 65534; the kernel's view of it (below, from the parent) is the one asked for. */
                if (getuid() != 65534 || getegid() != 65534 || getgroups(0, NULL) != 0)
                        _exit(12);
                int pipe_ok = write(ns_pipe[1], "x", 1) == 1 && read(go_pipe[0], score_buf, 1) == 1;
                if (!pipe_ok)
                        _exit(24);
                if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0 || errno != EPERM)
                        _exit(22);
                int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        _exit(14);
                char status[4096] = "";
                ssize_t n = read(fd, status, sizeof status - 1);
                close(fd);
                if (n <= 0 || !strstr(status, "CapEff:\t0000000000000000") || !strstr(status, "CapPrm:\t0000000000000000") ||
                    !strstr(status, "NoNewPrivs:\t1") || !strstr(status, "Seccomp:\t2"))
                        _exit(15);
                fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
                char score[16] = "";
                if (fd < 0 || read(fd, score, sizeof score - 1) <= 0 || atoi(score) != 1000)
                        _exit(23);
                close(fd);
                errno = 0;
                if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0 || errno != EPERM)
                        _exit(16);
                if (kill(getppid(), 0) == 0 || errno != EPERM)
                        _exit(17);
                if (syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, getppid(), 0, 0) == 0 || errno != EPERM)
                        _exit(18);
                if (syscall(SYS_process_vm_readv, getppid(), NULL, 0, NULL, 0, 0) == 0 || errno != EPERM)
                        _exit(19);
                if (fork() >= 0 || errno != EPERM)
                        _exit(20);
                if (open("/tmp/coredumpd-parser-writes", O_WRONLY | O_CREAT | O_CLOEXEC, 0600) >= 0)
                        _exit(21);
                char *const argv[] = { (char *) "true", NULL };
                if (execve("/bin/true", argv, argv + 1) == 0 || errno != EPERM)
                        _exit(25);
                _exit(0);
        }
        /* Seen from outside, while the child waits in its cell: its real ids are the ones asked
         * for, and its user namespace is not ours. */
        char c;
        CHECK(read(ns_pipe[0], &c, 1) == 1);
        char path[64], status[4096] = "";
        snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(read(fd, status, sizeof status - 1) > 0);
        close(fd);
        CHECK(strstr(status, "\nUid:\t65534\t65534\t65534\t65534\n") != NULL);
        /* Not dumpable: its /proc files are root's. */
        struct stat pst;
        CHECK(stat(path, &pst) == 0);
        CHECK_INT(pst.st_uid, ==, 0);
        static const char *const kinds[] = { "user" };
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                char ours[64], theirs[64];
                struct stat a, b;
                snprintf(ours, sizeof ours, "/proc/self/ns/%s", kinds[i]);
                snprintf(theirs, sizeof theirs, "/proc/%d/ns/%s", (int) pid, kinds[i]);
                CHECK(stat(ours, &a) == 0 && stat(theirs, &b) == 0);
                if (a.st_ino == b.st_ino)
                        fprintf(stderr, "the parser shares our %s namespace\n", kinds[i]);
                CHECK(a.st_ino != b.st_ino);
        }
        CHECK(write(go_pipe[1], "g", 1) == 1);
        int st = 0;
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(WIFEXITED(st));
        CHECK_INT(WEXITSTATUS(st), ==, 0);
        close(ns_pipe[0]), close(ns_pipe[1]), close(go_pipe[0]), close(go_pipe[1]);
}

/* --record's cell (SANDBOX_JOURNAL): a socket to journald (AF_UNIX only: the filter reads socket()'s
 * first argument), a memfd; still nothing written by path, no other socket, no execve. */
TEST(parser_record_cell_reaches_only_journald) {
        if (geteuid() != 0) {
                printf("SKIP: needs root to change ids\n");
                exit(77);
        }
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                char reason[256] = "";
                struct cell_limits l = { .address_space = 1u << 30, .cpu_seconds = 5, .open_files = 64 };
                if (sandbox_enter(65534, 65534, &l, SANDBOX_JOURNAL, reason, sizeof reason) < 0) {
                        fprintf(stderr, "sandbox_enter: %s\n", reason);
                        _exit(10);
                }
                int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                if (fd < 0)
                        _exit(11);
                close(fd);
                if (memfd_create("coredumpd-test", MFD_CLOEXEC) < 0)
                        _exit(12);
                errno = 0;
                if (socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0) >= 0 || errno != EPERM)
                        _exit(13);
                errno = 0;
                if (socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, 0) >= 0 || errno != EPERM)
                        _exit(14);
                errno = 0;
                if (open("/tmp/coredumpd-record-writes", O_WRONLY | O_CREAT | O_CLOEXEC, 0600) >= 0 || errno != EPERM)
                        _exit(15);
                char *const argv[] = { (char *) "true", NULL };
                if (execve("/bin/true", argv, argv + 1) == 0 || errno != EPERM)
                        _exit(16);
                _exit(0);
        }
        int st;
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(WIFEXITED(st));
        CHECK_INT(WEXITSTATUS(st), ==, 0);
}

/* A held crash's deadline (server/deadline.c): Deadline= without progress; after it, an average below
 * MinRate= (a core that trickles a byte a minute is cut as soon as one that says nothing); at
 * MaxDuration= in all, however fast it moves. */
TEST(deadline_trickle_rate_floor_and_max_duration) {
        struct config c;
        config_init_defaults(&c);
        const uint64_t s = USEC_PER_SEC, t0 = 1000 * s;
        CHECK_INT(c.max_duration_usec, ==, 300 * s);
        CHECK_INT(c.max_size, ==, UINT64_C(2) << 30);

        /* Silent: ends at Deadline= (60 s). */
        CHECK(deadline_next(&c, t0, 0, 0, t0 + 59 * s, NULL) > 0);
        CHECK_INT(deadline_next(&c, t0, 0, 0, t0 + 60 * s, NULL), ==, 0);
        /* A byte a minute: always "moving", never at 1M/s on average: cut once Deadline= is past. */
        uint64_t last = t0 + 59 * s;
        CHECK(deadline_next(&c, t0, last, 2, t0 + 60 * s, NULL) > 0);
        const char *why = NULL;
        CHECK_INT(deadline_next(&c, t0, t0 + 61 * s, 2, t0 + 62 * s, &why), ==, 0);
        CHECK(why && strstr(why, "MinRate="));
        CHECK_INT(deadline_next(&c, t0, 0, 0, t0 + 60 * s, &why), ==, 0);
        CHECK(why && strstr(why, "no progress"));
        /* 10 MB/s: goes on, and is looked at again within the rate check's period. */
        uint64_t now = t0 + 120 * s, next = deadline_next(&c, t0, now, 10 * (UINT64_C(1) << 20) * 120, now, NULL);
        CHECK(next > now && next <= now + 5 * s);
        /* ... but not past MaxDuration=. */
        now = t0 + 300 * s;
        CHECK_INT(deadline_next(&c, t0, now, UINT64_MAX / 2, now, &why), ==, 0);
        CHECK(why && strstr(why, "MaxDuration="));
        c.max_duration_usec = 3600 * s;
        /* Without MaxDuration= in the way: Deadline= + MaxSize= / MinRate= (60 s + 2048 s). */
        CHECK(deadline_next(&c, t0, t0 + 2107 * s, UINT64_MAX / 2, t0 + 2107 * s, NULL) > 0);
        CHECK_INT(deadline_next(&c, t0, t0 + 2108 * s, UINT64_MAX / 2, t0 + 2108 * s, NULL), ==, 0);
        config_done(&c);
}

/* The record handed to coredumpd-parser --record: what is encoded decodes the same; a field that is
 * no NAME=value or names a trusted field (_UID=), root's ids, a cut: refused. */
TEST(parser_record_round_trip_and_refusals) {
        struct iovec v[] = {
                { .iov_base = (char *) "MESSAGE=crashed\nStack trace", .iov_len = 27 },
                { .iov_base = (char *) "COREDUMP_PID=42", .iov_len = 15 },
        };
        _cleanup_free_ void *buf = NULL;
        size_t size = 0, n = 0;
        uid_t uid;
        gid_t gid;
        struct iovec *back = NULL;
        CHECK_OK(parser_record_encode(v, 2, 1000, 1000, &buf, &size));
        CHECK_OK(parser_record_decode(buf, size, &back, &n, &uid, &gid));
        CHECK_INT(n, ==, 2);
        CHECK_INT(uid, ==, 1000);
        CHECK(back[0].iov_len == 27 && memcmp(back[0].iov_base, v[0].iov_base, 27) == 0);
        free(back);
        for (size_t k = 0; k < size; k++)
                CHECK_INT(parser_record_decode(buf, k, &back, &n, &uid, &gid), ==, -EBADMSG);
        free(buf);
        buf = NULL;
        CHECK_OK(parser_record_encode(v, 2, 0, 0, &buf, &size));
        CHECK_INT(parser_record_decode(buf, size, &back, &n, &uid, &gid), ==, -EBADMSG);
        free(buf);
        buf = NULL;
        struct iovec trusted = { .iov_base = (char *) "_UID=0", .iov_len = 6 };
        CHECK_OK(parser_record_encode(&trusted, 1, 1000, 1000, &buf, &size));
        CHECK_INT(parser_record_decode(buf, size, &back, &n, &uid, &gid), ==, -EBADMSG);
        free(buf);
        buf = NULL;
        struct iovec bare = { .iov_base = (char *) "no equals sign", .iov_len = 14 };
        CHECK_OK(parser_record_encode(&bare, 1, 1000, 1000, &buf, &size));
        CHECK_INT(parser_record_decode(buf, size, &back, &n, &uid, &gid), ==, -EBADMSG);
}

/* A reload sets the store's limits while crashes read them: every read is one whole set, old or
 * new, never a mix (a reservation that saw the new KeepFree= with the old MaxUsePerUser=). */
struct limits_flipper {
        struct store *store;
        struct config a, b;
        atomic_bool stop;
};

static void *flip_limits(void *arg) {
        struct limits_flipper *f = arg;
        for (unsigned i = 0; !atomic_load(&f->stop); i++)
                store_set_limits(f->store, i % 2 ? &f->b : &f->a);
        return NULL;
}

TEST(store_limits_change_as_one_set) {
        _cleanup_free_ char *dir = tmpdir_new();
        struct limits_flipper f = {};
        config_init_defaults(&f.a);
        config_init_defaults(&f.b);
        f.a.max_use = 1, f.a.max_use_per_user = 1, f.a.keep_free = 1, f.a.max_age_usec = 1, f.a.compress_level = 1;
        f.b.max_use = 2, f.b.max_use_per_user = 2, f.b.keep_free = 2, f.b.max_age_usec = 2, f.b.compress_level = 2;
        CHECK_OK(store_open(dir, &f.a, &f.store));
        struct store_limits l = store_get_limits(f.store);
        CHECK_INT(l.keep_free, ==, 1);
        pthread_t thread;
        CHECK(pthread_create(&thread, NULL, flip_limits, &f) == 0);
        unsigned seen[3] = {};
        for (unsigned i = 0; i < 200000; i++) {
                l = store_get_limits(f.store);
                uint64_t v = l.max_use;
                CHECK(v == 1 || v == 2);
                CHECK_INT(l.max_use_per_user, ==, v);
                CHECK_INT(l.keep_free, ==, v);
                CHECK_INT(l.max_age_usec, ==, v);
                CHECK_INT((uint64_t) l.compress_level, ==, v);
                seen[v]++;
        }
        atomic_store(&f.stop, true);
        CHECK(pthread_join(thread, NULL) == 0);
        printf("# whole sets read: %u old, %u new\n", seen[1], seen[2]);
        store_free(f.store);
        config_done(&f.a);
        config_done(&f.b);
}

/* A core the task waited on is linked before it is synced: store_settle() puts it on disk and says
 * so once; a spliced core's zero blocks become holes in the same open; a core that went before it
 * could be synced is not left behind (nor named as kept). */
static int write_bytes(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason, size_t reason_size) {
        (void) userdata, (void) reason, (void) reason_size;
        *ret_truncated = false;
        return core_writer_write(w, "core bytes", 10);
}

TEST(store_settle_after_the_link) {
        _cleanup_free_ char *dir = tmpdir_new();
        struct config c;
        config_init_defaults(&c);
        struct store *st = NULL;
        CHECK_OK(store_open(dir, &c, &st));
        char reason[256] = "";
        struct store_target t = { .name = "core.later", .reader_uid = STORE_NO_READER, .max_size = 4096,
                                  .compress = COMPRESSION_NONE, .sync_later = true };
        struct stored_core sc = {};
        CHECK_OK(store_core_generated(st, &t, write_bytes, NULL, &sc, reason, sizeof reason));
        CHECK(sc.sync_pending);
        CHECK(faccessat(st->dir_fd, "core.later", F_OK, 0) == 0); /* linked already */
        CHECK_OK(store_settle(st, &sc, "test", reason, sizeof reason));
        CHECK(!sc.sync_pending);
        CHECK_OK(store_settle(st, &sc, "test", reason, sizeof reason)); /* nothing left to do */
        stored_core_done(&sc);

        /* Spliced in unseen (here: zeros written as data, then marked so): holes after it, and synced. */
        t.name = "core.spliced", t.max_size = 4 << 20;
        CHECK_OK(store_core_generated(st, &t, write_bytes, NULL, &sc, reason, sizeof reason));
        {
                _cleanup_close_ int fd = openat(st->dir_fd, "core.spliced", O_WRONLY | O_CLOEXEC);
                _cleanup_free_ char *zeros = calloc(1, 2 << 20);
                CHECK(fd >= 0 && zeros);
                CHECK(pwrite(fd, zeros, 2 << 20, 1 << 20) == 2 << 20);
                struct stat before;
                CHECK(fstat(fd, &before) == 0 && before.st_blocks * 512 >= 2 << 20);
        }
        sc.size = 3 << 20, sc.punch_pending = true;
        CHECK_OK(store_settle(st, &sc, "test", reason, sizeof reason));
        CHECK(!sc.punch_pending && !sc.sync_pending);
        CHECK(sc.disk_size < 1 << 20); /* the 2 MiB of zeros are holes (the store is a tmpfs or ext4) */
        stored_core_done(&sc);

        t.name = "core.now", t.sync_later = false, t.max_size = 4096;
        CHECK_OK(store_core_generated(st, &t, write_bytes, NULL, &sc, reason, sizeof reason));
        CHECK(!sc.sync_pending); /* synced before its link */
        stored_core_done(&sc);

        /* A core that cannot be synced (here: gone, a stand-in for an I/O error) is not kept. */
        t.name = "core.lost", t.sync_later = true;
        CHECK_OK(store_core_generated(st, &t, write_bytes, NULL, &sc, reason, sizeof reason));
        CHECK(unlinkat(st->dir_fd, "core.lost", 0) == 0);
        CHECK(store_settle(st, &sc, "test", reason, sizeof reason) == -ENOENT);
        CHECK(strstr(reason, "cannot sync the core"));
        CHECK(faccessat(st->dir_fd, "core.lost", F_OK, 0) < 0 && errno == ENOENT);
        stored_core_done(&sc);
        store_free(st);
        config_done(&c);
}

/* Room is reserved before a core is taken: free space less KeepFree= less what others hold, and
 * the user's MaxUsePerUser= left; given back, it is there again. */
TEST(store_reservations_bound_cores_in_flight) {
        _cleanup_free_ char *dir = tmpdir_new();
        struct config c;
        config_init_defaults(&c);
        struct statvfs sv;
        CHECK(statvfs(dir, &sv) == 0);
        const uint64_t mib = UINT64_C(1) << 20;
        uint64_t free_space = (uint64_t) sv.f_bavail * sv.f_frsize;
        if (free_space < 256 * mib) {
                printf("SKIP: less than 256 MiB free under %s\n", dir);
                exit(77);
        }
        c.keep_free = free_space - 64 * mib;                    /* 64 MiB of room */
        struct store *st = NULL;
        CHECK_OK(store_open(dir, &c, &st));
        char why[256] = "";

        /* Other tests write and remove files on this file system meanwhile: figures within 24 MiB. */
        uint64_t a = store_reserve(st, TENANT_UID(1000), UINT64_C(1) << 30, why, sizeof why);
        CHECK_INT(a, >, 40 * mib);
        CHECK_INT(a, <, 88 * mib);
        uint64_t b = store_reserve(st, TENANT_UID(1001), UINT64_C(1) << 30, why, sizeof why);
        CHECK_INT(b, <, 24 * mib);                              /* the first holds it */
        if (b == 0)
                CHECK(strstr(why, "reserved by crashes in flight"));
        store_unreserve(st, a);
        store_unreserve(st, b);
        uint64_t again = store_reserve(st, TENANT_UID(1000), UINT64_C(1) << 30, why, sizeof why);
        CHECK_INT(again, >, 40 * mib);
        store_unreserve(st, again);
        CHECK_INT(store_reserve(st, TENANT_UID(1000), 4096, why, sizeof why), ==, 4096);
        store_unreserve(st, 4096);

        /* MaxUsePerUser=: uid 1000's cores take 8 KiB of a 12 KiB share. */
        c.max_use_per_user = 4096 * 3;
        store_set_limits(st, &c);
        CHECK_OK(write_text_file(dir, "core.x.1000.0123456789abcdef0123456789abcdef.1.1", ""));
        int fd = openat(st->dir_fd, "core.x.1000.0123456789abcdef0123456789abcdef.1.1", O_WRONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        char block[8192];
        memset(block, 'x', sizeof block);
        CHECK(write(fd, block, sizeof block) == (ssize_t) sizeof block && fsync(fd) == 0);
        close(fd);
        uint64_t used = store_usage_of(st, TENANT_UID(1000));
        CHECK_INT(used, >=, 8192);
        uint64_t u = store_reserve(st, TENANT_UID(1000), UINT64_C(1) << 30, why, sizeof why);
        CHECK_INT(u, ==, used >= 4096 * 3 ? 0 : 4096 * 3 - used);
        store_unreserve(st, u);
        CHECK_INT(store_reserve(st, TENANT_UID(1001), 4096, why, sizeof why), ==, 4096);    /* another user: unaffected */
        store_unreserve(st, 4096);

        /* A core of a subuid (its name says 200007) whose owner is 1001 counts as 1001's. */
        CHECK_OK(write_text_file(dir, "core.x.200007.0123456789abcdef0123456789abcdef.2.2", ""));
        fd = openat(st->dir_fd, "core.x.200007.0123456789abcdef0123456789abcdef.2.2", O_WRONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(write(fd, block, sizeof block) == (ssize_t) sizeof block && fsync(fd) == 0);
        if (fsetxattr(fd, "user.coredumpd.owner_uid", "1001", 4, 0) == 0) {
                CHECK_INT(store_usage_of(st, TENANT_UID(1001)), >=, 8192);
                CHECK_INT(store_usage_of(st, TENANT_UID(200007)), ==, 0);
                uint64_t r1001 = store_reserve(st, TENANT_UID(1001), UINT64_C(1) << 30, why, sizeof why);
                CHECK_INT(r1001, <=, 4096);                     /* 8 KiB of its 12 KiB used */
                store_unreserve(st, r1001);
        } else
                printf("no user xattrs under %s: the owner attribute is not checked\n", dir);
        close(fd);

        /* A core of a container root made (its name says 0, root inside) is the container's: root's
         * MaxUsePerUser= and its weight in the vacuum do not carry it. */
        const struct tenant ct = { .uid = 0, .userns = UINT64_C(4026532845) };
        CHECK_OK(write_text_file(dir, "core.x.0.0123456789abcdef0123456789abcdef.3.3", ""));
        fd = openat(st->dir_fd, "core.x.0.0123456789abcdef0123456789abcdef.3.3", O_WRONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(write(fd, block, sizeof block) == (ssize_t) sizeof block && fsync(fd) == 0);
        if (fsetxattr(fd, "user.coredumpd.tenant", "0:4026532845", 12, 0) == 0 &&
            fsetxattr(fd, "user.coredumpd.owner_uid", "0", 1, 0) == 0) {
                CHECK_INT(store_usage_of(st, &ct), >=, 8192);
                CHECK_INT(store_usage_of(st, TENANT_UID(0)), ==, 0);
        } else
                printf("no user xattrs under %s: the tenant attribute is not checked\n", dir);
        close(fd);
        store_free(st);
        config_done(&c);
        tmpdir_remove(dir);
}

/* A tenant's text is "UID" or "UID:USERNS", a plain uid (files of before tenants) a uid's; nothing
 * else parses. Repeat counters kept for root and for a container root made stay apart, in the
 * table and across a restart (the store's .signatures). */
TEST(tenant_text_and_counters_apart) {
        char buf[TENANT_TEXT_MAX];
        struct tenant t;
        const struct tenant ct = { .uid = 0, .userns = UINT64_C(4026532845) };
        CHECK_STR(tenant_format(TENANT_UID(1000), buf), "1000");
        CHECK_STR(tenant_format(&ct, buf), "0:4026532845");
        CHECK_OK(tenant_parse("0:4026532845", &t));
        CHECK(tenant_equal(&t, &ct) && !t.host);
        CHECK_OK(tenant_parse("33", &t));
        CHECK(tenant_equal(&t, TENANT_UID(33)) && !tenant_is_system(&t)); /* the task's place is not in it */
        CHECK(tenant_is_system(TENANT_UID(33)) && tenant_is_system(TENANT_UID(0)) && !tenant_is_system(TENANT_UID(1000)));
        CHECK(!tenant_is_system(&ct));
        const char *bad[] = { "", "x", "-1", "1:", "1:0", "1 ", " 1", "4294967295", "1:2:3", "0:x", "+5" };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                CHECK_INT(tenant_parse(bad[i], &t), ==, -EINVAL);

        _cleanup_free_ char *dir = tmpdir_new();
        int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const uint64_t hour = 3600ULL * 1000000, now = 1000 * hour;
        const char *sig = "1111111111111111";
        CHECK(dir_fd >= 0);
        struct repeats *r = repeats_new(dir_fd);
        CHECK(r);
        for (unsigned i = 1; i <= 5; i++)
                CHECK_INT(repeats_count(r, &ct, sig, NULL, hour, now + i), ==, i);
        CHECK_INT(repeats_count(r, TENANT_UID(0), sig, NULL, hour, now + 6), ==, 1);
        r = repeats_free(r);
        r = repeats_new(dir_fd);
        CHECK(r);
        CHECK_INT(repeats_count(r, TENANT_UID(0), sig, NULL, hour, now + 7), ==, 2);
        CHECK_INT(repeats_count(r, &ct, sig, NULL, hour, now + 8), ==, 6);
        r = repeats_free(r);
        close(dir_fd);
        tmpdir_remove(dir);
}

/* Bounds are kept per tenant: a task in a user namespace a user made counts as that user, whatever
 * (sub)uid it runs as there — crashing as 65536 subuids is still one user —, but not as one of the
 * host's own (no reserved room); a task in one root made counts as that namespace, never as root;
 * a task of ours as its real uid. */
TEST(peer_tenant_of_user_namespaces) {
        if (geteuid() != 0) {
                printf("SKIP: needs root to map a subuid range\n");
                exit(77);
        }
        int go[2], ready[2];
        CHECK(pipe(go) == 0 && pipe(ready) == 0);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                char c = 0;
                /* An ordinary user makes a user namespace; its parent maps a subuid range into it. */
                if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0 ||
                    unshare(CLONE_NEWUSER) < 0)
                        _exit(1);
                if (write(ready[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
                        _exit(2);
                if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
                        _exit(3);
                if (write(ready[1], "y", 1) != 1)
                        _exit(4);
                pause();
                _exit(0);
        }
        char c;
        CHECK(read(ready[0], &c, 1) == 1);
        char dir[32];
        snprintf(dir, sizeof dir, "/proc/%d", (int) pid);
        CHECK_OK(write_text_file(dir, "uid_map", "0 100000 65536\n"));
        CHECK_OK(write_text_file(dir, "setgroups", "deny\n"));
        CHECK_OK(write_text_file(dir, "gid_map", "0 100000 65536\n"));
        CHECK(write(go[1], "g", 1) == 1);
        CHECK(read(ready[0], &c, 1) == 1 && c == 'y');

        struct peer p = { .pidfd = (int) syscall(SYS_pidfd_open, pid, 0) };
        CHECK(p.pidfd >= 0);
        CHECK_OK(pidfd_query_info(p.pidfd, 0, &p.info));
        CHECK_INT(p.info.ruid, ==, 100000);                             /* a subuid */
        peer_resolve_tenant(&p, 0);
        CHECK_INT(p.tenant.uid, ==, 65534);                             /* its owner */
        CHECK_INT(p.tenant.userns, ==, 0);
        CHECK(!p.tenant.host && tenant_equal(&p.tenant, TENANT_UID(65534)));

        /* A task in our own user namespace is its own real uid. */
        struct peer self = { .pidfd = (int) syscall(SYS_pidfd_open, getpid(), 0) };
        CHECK(self.pidfd >= 0);
        CHECK_OK(pidfd_query_info(self.pidfd, 0, &self.info));
        peer_resolve_tenant(&self, 0);
        CHECK(tenant_equal(&self.tenant, TENANT_UID(getuid())) && self.tenant.host);
        CHECK(tenant_is_system(&self.tenant));                          /* root, of the host's */

        /* A user namespace root made (as systemd-nspawn -U, LXD): the namespace, not root. */
        struct ns_sleeper ns;
        ns_sleeper_start(&ns);
        struct peer ct = { .pidfd = test_pidfd_of(ns.pid) };
        CHECK(ct.pidfd >= 0);
        CHECK_OK(pidfd_query_info(ct.pidfd, 0, &ct.info));
        peer_resolve_tenant(&ct, 0);
        struct stat st;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/ns/user", (int) ns.pid);
        CHECK(stat(path, &st) == 0);
        CHECK_INT(ct.tenant.uid, ==, 0);
        CHECK_INT(ct.tenant.userns, ==, (uint64_t) st.st_ino);
        CHECK(!ct.tenant.host && !tenant_equal(&ct.tenant, TENANT_UID(0)) && !tenant_is_system(&ct.tenant));
        close(ct.pidfd);
        ns_sleeper_stop(&ns);

        /* Real uid 0 whose user namespace cannot be learnt (no pidfd here; a reaped peer's says none):
         * a tenant of its own, never host root's. */
        struct peer unknown = { .pidfd = -1, .info = { .ruid = 0 } };
        peer_resolve_tenant(&unknown, 0);
        CHECK(!tenant_equal(&unknown.tenant, TENANT_UID(0)) && !tenant_is_system(&unknown.tenant));

        close(self.pidfd);
        close(p.pidfd);
        kill(pid, SIGKILL);
        CHECK(waitpid(pid, NULL, 0) == pid);
}

TEST(saved_files_round_trip_and_hostile_lines) {
        struct saved_files l = {};
        struct saved_file exe = { .path = (char *) "/opt/ct/bin/ct crash", .stored = (char *) "core.ctcrash.0.0123.7.9.file-0" };
        memcpy(exe.build_id, "0123abcd", 9);
        struct saved_file libc = { .path = (char *) "/usr/lib/x86_64-linux-gnu/libc.so.6", .host = true };
        struct saved_file lost = { .path = (char *) "/opt/ct/lib/libbig.so" };
        CHECK_OK(saved_files_add(&l, &exe));
        CHECK_OK(saved_files_add(&l, &libc));
        CHECK_OK(saved_files_add(&l, &lost));
        static const char *const expect[] = {
                "0123abcd core.ctcrash.0.0123.7.9.file-0 /opt/ct/bin/ct crash",
                "- host /usr/lib/x86_64-linux-gnu/libc.so.6",
                "- - /opt/ct/lib/libbig.so",
        };
        struct fields record = {};
        CHECK_OK(fields_set_text(&record, FIELD_COMM, "ctcrash"));
        for (size_t i = 0; i < l.n; i++) {
                _cleanup_free_ char *text = saved_file_format(&l.v[i]);
                CHECK_STR(text, expect[i]);
                CHECK_OK(fields_set_text(&record, FIELD_SAVED_FILE, text));
        }
        struct saved_files back = {};
        CHECK_OK(saved_files_from_fields(&record, &back));
        CHECK_INT(back.n, ==, 3);
        CHECK_STR(back.v[0].path, "/opt/ct/bin/ct crash");
        CHECK_STR(back.v[0].stored, "core.ctcrash.0.0123.7.9.file-0");
        CHECK_STR(back.v[0].build_id, "0123abcd");
        CHECK(!back.v[0].host);
        CHECK(back.v[1].host && !back.v[1].stored && back.v[1].build_id[0] == 0);
        CHECK(!back.v[2].host && !back.v[2].stored);
        saved_files_done(&back);
        saved_files_done(&l);

        /* One bad line spoils the record's list. */
        CHECK_OK(fields_add(&record, "COREDUMPD_SAVED_FILE", "- host /../etc/shadow"));
        CHECK_INT(saved_files_from_fields(&record, &back), ==, -EINVAL);
        CHECK_INT(back.n, ==, 0);
        fields_done(&record);

        struct saved_file bad = { .path = (char *) "/opt/../etc/shadow" };
        CHECK_INT(saved_files_add(&l, &bad), ==, -EINVAL);
        CHECK_INT(l.n, ==, 0);

        static const char *const hostile[] = {
                "- host /../../etc/shadow",
                "- host /usr/./lib/x",
                "- host /usr//lib/x",
                "- host relative/path",
                "- host /",
                "- core.a/../../etc/passwd /x",
                "- notcore.x /x",
                "- core.x\tz /x",
                "XYZ host /x",
                "abc host /x",
                "0123456789abcdef0123456789abcdef0123456789 host /x",
                "- host",
                "-",
                "",
                "- host /x\\y",
                "- host /x\x01y",
                "- host /ok\n- host /bad",
        };
        for (size_t i = 0; i < ELEMENTSOF(hostile); i++) {
                struct saved_files h = {};
                if (saved_files_add_line(&h, hostile[i]) != -EINVAL)
                        test_fail(__FILE__, __LINE__, "accepted: %s", hostile[i]);
                CHECK_INT(h.n, ==, 0);
        }
        CHECK(saved_file_path_ok("/a/b c/d"));
        CHECK(!saved_file_path_ok("/a/b/"));
        CHECK(saved_file_name_ok("core.a\\x2eb.0.0123.1.2.file-3"));
        CHECK(!saved_file_name_ok("core."  "a b"));
}

/* Which mount holds a path, from a mountinfo: the longest mount point, the later line of equal
 * ones; escaped blanks in mount points; nothing looked up. */
TEST(mountinfo_path_remote_by_longest_mount_point) {
        const char *mi =
                "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
                "2 1 0:40 / /mnt/fuse rw - fuse.sshfs host:/ rw\n"
                "3 2 8:2 / /mnt/fuse/local rw - ext4 /dev/sda2 rw\n"
                "4 1 0:41 / /srv/with\\040blank rw - nfs4 srv:/ rw\n"
                "5 1 0:42 / /opt rw - tmpfs tmpfs rw\n"
                "6 1 0:43 / /opt rw - 9p share rw\n";
        CHECK_INT(mountinfo_path_is_remote(mi, "/usr/lib/libc.so.6"), ==, 0);
        CHECK_INT(mountinfo_path_is_remote(mi, "/mnt/fuse/x.so"), ==, 1);
        CHECK_INT(mountinfo_path_is_remote(mi, "/mnt/fuse"), ==, 1);
        CHECK_INT(mountinfo_path_is_remote(mi, "/mnt/fusex/y"), ==, 0);
        CHECK_INT(mountinfo_path_is_remote(mi, "/mnt/fuse/local/z"), ==, 0);
        CHECK_INT(mountinfo_path_is_remote(mi, "/srv/with blank/lib.so"), ==, 1);
        CHECK_INT(mountinfo_path_is_remote(mi, "/srv/with"), ==, 0);
        CHECK_INT(mountinfo_path_is_remote(mi, "/opt/ct/bin/x"), ==, 1); /* mounted over the tmpfs */
        CHECK_INT(mountinfo_path_is_remote(mi, "relative"), ==, -EINVAL);
        /* The same rule as the mappings': overlay and a type not known to be local are remote. */
        CHECK_INT(mountinfo_path_is_remote("1 0 8:1 / / rw - ext4 x rw\n"
                                           "2 1 0:50 / /var/lib/ct rw - overlay overlay rw,lowerdir=/a:/b\n"
                                           "3 1 0:51 / /mnt/odd rw - weirdfs none rw\n", "/var/lib/ct/usr/bin/x"), ==, 1);
        CHECK_INT(mountinfo_path_is_remote("1 0 8:1 / / rw - ext4 x rw\n"
                                           "3 1 0:51 / /mnt/odd rw - weirdfs none rw\n", "/mnt/odd/y"), ==, 1);
        CHECK_INT(mountinfo_path_is_remote("1 0 0:2 / / rw - rootfs rootfs rw\n", "/usr/bin/x"), ==, 0);
        CHECK_INT(mountinfo_path_is_remote("1 0 8:1 / /home rw - ext4 x rw\n", "/usr"), ==, -ENOENT);
        CHECK_INT(mountinfo_path_is_remote("garbage\n", "/usr"), ==, -EINVAL);
}

static void write_file_at(const char *dir, const char *rel, const char *text) {
        _cleanup_free_ char *path = NULL;
        CHECK(asprintf(&path, "%s%s", dir, rel) > 0);
        _cleanup_free_ char *cmd = NULL;
        CHECK(asprintf(&cmd, "mkdir -p \"$(dirname '%s')\"", path) > 0);
        CHECK(system(cmd) == 0);
        CHECK(write_text_file(dir, rel + 1, text) >= 0);
}

static struct proc_mapping mapping_of(const char *file, const char *maps_path) {
        struct stat st;
        CHECK(stat(file, &st) == 0);
        return (struct proc_mapping) {
                .path = (char *) maps_path,
                .inode = st.st_ino,
                .dev_major = major(st.st_dev),
                .dev_minor = minor(st.st_dev),
        };
}

/* Every openat() of this binary without O_PATH that opened something other than a regular file or a
 * directory is counted (a definition in the executable comes before libc's). */
static atomic_uint special_opened;

int openat(int dirfd, const char *path, int flags, ...) {
        mode_t mode = 0;
        if (flags & (O_CREAT | O_TMPFILE)) {
                va_list ap;
                va_start(ap, flags);
                mode = va_arg(ap, mode_t);
                va_end(ap);
        }
        int fd = (int) syscall(SYS_openat, dirfd, path, flags, mode);
        struct stat st;
        if (fd >= 0 && !(flags & O_PATH) && syscall(SYS_fstat, fd, &st) == 0 && !S_ISREG(st.st_mode) &&
            !S_ISDIR(st.st_mode))
                atomic_fetch_add(&special_opened, 1);
        return fd;
}

/* What _FORTIFY_SOURCE makes of an openat() whose flags are not known at compile time. */
int __openat64_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags) {
        return openat(dirfd, path, flags);
}

/* A device node (or, where one cannot be made, a FIFO) where a mapped file is expected — the very
 * inode the mapping names — is looked at, never opened for reading (issue 38 gap 1). */
TEST(task_file_device_node_never_opened) {
        _cleanup_free_ char *dir = tmpdir_new(), *node = NULL;
        CHECK(asprintf(&node, "%s/lib.so", dir) > 0);
        if (mknod(node, S_IFCHR | 0644, makedev(1, 3)) < 0)
                CHECK(mkfifo(node, 0644) == 0);
        struct stat st;
        CHECK(stat(node, &st) == 0);
        struct proc_mapping m = {
                .path = node,
                .inode = st.st_ino,
                .dev_major = major(st.st_dev),
                .dev_minor = minor(st.st_dev),
        };
        atomic_store(&special_opened, 0);
        CHECK_INT(task_file_open(-1, &m), ==, -EBADF);
        _cleanup_close_ int root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        m.path = (char *) "/lib.so";
        CHECK_INT(task_file_open(root_fd, &m), <, 0);
        CHECK_INT(atomic_load(&special_opened), ==, 0);
        tmpdir_remove(dir);
}


/* The unwinder's files (parser/map-files.c): map_files' entry names as the kernel writes them,
 * each file once by device and inode, at most the table's bound — a file holding a thread's pc
 * always, else the largest — and only a file a mapping the one rule calls local names is taken. */
TEST(map_files_selection_dedup_bound) {
        uint64_t a, b;
        CHECK_OK(map_files_name_parse("7f0000001000-7f0000002000", &a, &b));
        CHECK(a == UINT64_C(0x7f0000001000) && b == UINT64_C(0x7f0000002000));
        static const char *const bad[] = { ".", "..", "7F00-7f10", "0x1-2", "2-1", "1-1", "1-", "-1", "1-2-3",
                                           "11111111111111111-2", "1 -2", "1-2 ", "" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (map_files_name_parse(bad[i], &a, &b) != -EINVAL)
                        test_fail(__FILE__, __LINE__, "\"%s\" taken as an entry's name", bad[i]);

        /* Fake fds (never closed by the table but a file's opened fd, -1 here). */
        static struct map_files t;
        map_files_init(&t, 3);
        CHECK_INT(t.max, ==, 3);
#define FILE_(fd_, ino_, size_, pinned_) \
        (&(struct map_file) { .path_fd = (fd_), .fd = -1, .dev_major = 8, .dev_minor = 1, .inode = (ino_), .size = (size_), .pinned = (pinned_) })
        CHECK_INT(map_files_offer(&t, FILE_(100, 1, 10, false)), ==, -1);
        CHECK_INT(map_files_offer(&t, FILE_(101, 1, 10, false)), ==, 101);  /* the same file again */
        struct map_file other_dev = *FILE_(102, 1, 11, false);
        other_dev.dev_minor = 2;                                                /* same inode, another device */
        CHECK_INT(map_files_offer(&t, &other_dev), ==, -1);
        CHECK_INT(t.n, ==, 2);
        CHECK_INT(map_files_offer(&t, FILE_(103, 3, 20, false)), ==, -1);
        CHECK_INT(t.n, ==, 3);
        CHECK_INT(map_files_offer(&t, FILE_(104, 4, 5, false)), ==, 104);   /* full, smaller than all */
        CHECK_INT(map_files_offer(&t, FILE_(105, 5, 30, false)), ==, 100);  /* larger: the smallest leaves */
        CHECK_INT(map_files_offer(&t, FILE_(106, 6, 0, true)), ==, 102);    /* a pc's file: in, whatever its size */
        CHECK_INT(map_files_offer(&t, FILE_(107, 7, 1, true)), ==, 103);
        CHECK_INT(map_files_offer(&t, FILE_(108, 8, 1000, false)), ==, 105);
        CHECK_INT(map_files_offer(&t, FILE_(109, 9, 2000, false)), ==, 108);
        CHECK_INT(map_files_offer(&t, FILE_(110, 10, 1, true)), ==, 109);
        CHECK_INT(t.n, ==, 3);
        /* All pinned: nothing leaves, not even for a pc's file (MAP_FILES_MAX > UNWIND_MAX_THREADS). */
        CHECK_INT(map_files_offer(&t, FILE_(111, 11, 5000, true)), ==, 111);
        for (size_t i = 0; i < t.n; i++)
                CHECK(t.files[i].pinned && t.files[i].inode != 11);
        t.n = 0; /* fake fds: nothing to close */

        map_files_init(&t, 100000);
        CHECK_INT(t.max, ==, MAP_FILES_MAX);
        for (int i = 0; i < MAP_FILES_MAX + 10; i++)
                CHECK_INT(map_files_offer(&t, FILE_(1000 + i, 1000 + (uint64_t) i, 100 + (uint64_t) i, false)), ==,
                          i < MAP_FILES_MAX ? -1 : 1000 + i - MAP_FILES_MAX);
        CHECK_INT(t.n, ==, MAP_FILES_MAX);
        t.n = 0;

        /* Which files a mapping calls local: by device and inode, never through a remote mapping. */
        map_files_init(&t, 8);
        CHECK_INT(map_files_offer(&t, FILE_(200, 20, 1, false)), ==, -1);
        CHECK_INT(map_files_offer(&t, FILE_(201, 21, 1, false)), ==, -1);
        CHECK_INT(map_files_offer(&t, FILE_(202, 22, 1, false)), ==, -1);
        t.files[0].fd = 300;
        t.files[1].fd = 301;
        t.files[2].fd = 302;
        struct proc_mapping m[] = {
                { .start = 0x1000, .end = 0x2000, .inode = 20, .dev_major = 8, .dev_minor = 1, .path = (char *) "/usr/bin/x" },
                { .start = 0x2000, .end = 0x3000, .inode = 20, .dev_major = 8, .dev_minor = 1, .path = (char *) "/usr/bin/x" },
                /* inode 21 only through a mapping marked remote */
                { .start = 0x3000, .end = 0x4000, .inode = 21, .dev_major = 8, .dev_minor = 1, .remote = true, .path = (char *) "/f/y" },
                /* inode 22 only on another device: another file */
                { .start = 0x4000, .end = 0x5000, .inode = 22, .dev_major = 0, .dev_minor = 52, .path = (char *) "/f/z" },
                { .start = 0x5000, .end = 0x6000, .inode = 0, .path = (char *) "[heap]" },
        };
        struct proc_maps maps = { .mappings = m, .n = ELEMENTSOF(m) };
        CHECK_INT(map_files_mark_local(&t, &maps), ==, 1);
        CHECK(t.files[0].local && !t.files[1].local && !t.files[2].local);
        CHECK_INT(map_files_fd(&t, &m[0]), ==, 300);
        CHECK_INT(map_files_fd(&t, &m[1]), ==, 300);
        CHECK_INT(map_files_fd(&t, &m[2]), ==, -1);
        CHECK_INT(map_files_fd(&t, &m[3]), ==, -1);
        CHECK_INT(map_files_fd(&t, &m[4]), ==, -1);
        struct proc_mapping remote_twin = m[0];
        remote_twin.remote = true;
        CHECK_INT(map_files_fd(&t, &remote_twin), ==, -1);
        CHECK_INT(map_files_fd(NULL, &m[0]), ==, -1);
        t.n = 0;
#undef FILE_

        /* The request's bound is checked by the parser, and the version says the fds changed. */
        static struct parser_request req;
        req = (struct parser_request) { .magic = PARSER_MAGIC, .version = PARSER_VERSION, .uid = 65534, .gid = 65534,
                                        .max_files = PARSER_MAP_FILES_MAX };
        CHECK(parser_request_valid(&req));
        req.max_files = PARSER_MAP_FILES_MAX + 1;
        CHECK(!parser_request_valid(&req));
        req.max_files = 0;
        CHECK(parser_request_valid(&req));
        req.version = 1;
        CHECK(!parser_request_valid(&req));
}

/* map_files for real (the tests run as root, with CAP_CHECKPOINT_RESTORE): our own mapped files,
 * each once, regular files only, the one holding a given pc pinned; in the "cell" only the local
 * ones opened, read-only, the very files mapped. */
static __attribute__((noinline)) void map_files_marker(void) {
        __asm__ volatile("");
}

TEST(map_files_collect_and_open_own) {
        _cleanup_close_ int dir = open("/proc/self/map_files", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(dir >= 0);
        static struct map_files t;
        uint64_t pcs[] = { 0, (uint64_t) (uintptr_t) map_files_marker };
        map_files_init(&t, MAP_FILES_MAX);
        CHECK_OK(map_files_collect(dir, pcs, ELEMENTSOF(pcs), &t));
        if (t.n == 0) {
                printf("# no entry of map_files could be followed (no CAP_CHECKPOINT_RESTORE?)\n");
                return;
        }
        struct stat exe;
        CHECK(stat("/proc/self/exe", &exe) == 0);
        size_t pinned = 0, ours = 0;
        for (size_t i = 0; i < t.n; i++) {
                for (size_t j = 0; j < i; j++)
                        CHECK(!(t.files[i].inode == t.files[j].inode && t.files[i].dev_major == t.files[j].dev_major &&
                                t.files[i].dev_minor == t.files[j].dev_minor));
                struct stat st;
                CHECK(fstat(t.files[i].path_fd, &st) == 0);
                CHECK(S_ISREG(st.st_mode));
                pinned += t.files[i].pinned;
                if (st.st_ino == exe.st_ino && st.st_dev == exe.st_dev) {
                        ours++;
                        CHECK(t.files[i].pinned);
                }
        }
        CHECK_INT(ours, ==, 1);
        CHECK_INT(pinned, ==, 1);

        struct proc_maps maps = {};
        _cleanup_close_ int proc = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(proc >= 0);
        CHECK_OK(proc_maps_read_marked(proc, &maps));
        size_t opened = map_files_open_local(&t, &maps);
        CHECK_INT(opened, >, 0);
        bool found = false;
        for (size_t k = 0; k < maps.n; k++) {
                const struct proc_mapping *m = &maps.mappings[k];
                int fd = map_files_fd(&t, m);
                if (fd < 0)
                        continue;
                CHECK(!m->remote);
                struct stat st;
                CHECK(fstat(fd, &st) == 0);
                CHECK((uint64_t) st.st_ino == m->inode);
                CHECK_INT(fcntl(fd, F_GETFL) & O_ACCMODE, ==, O_RDONLY);
                found = found || (st.st_ino == exe.st_ino && st.st_dev == exe.st_dev);
        }
        CHECK(found);
        for (size_t i = 0; i < t.n; i++)
                CHECK_INT(t.files[i].path_fd, ==, -1);
        map_files_done(&t);
        proc_maps_done(&maps);

        /* Bounded: one file. */
        map_files_init(&t, 1);
        CHECK_OK(map_files_collect(dir, pcs, ELEMENTSOF(pcs), &t));
        CHECK_INT(t.n, ==, 1);
        CHECK(t.files[0].pinned);
        map_files_done(&t);
}

/* A task's mapped file is opened inside its root, following no symlink (maps names resolved paths),
 * from our root when the path is ours (a chroot), and only if it is the mapped inode; remote ones
 * never. */
TEST(task_file_opened_inside_its_root) {
        _cleanup_free_ char *t = tmpdir_new();
        _cleanup_free_ char *root = NULL, *inside = NULL, *host = NULL, *rel = NULL;
        CHECK(asprintf(&root, "%s/root", t) > 0);
        CHECK(asprintf(&rel, "%s/lib/x.so", t) > 0);           /* the same absolute path in both */
        CHECK(asprintf(&inside, "%s%s", root, rel) > 0);
        write_file_at(root, rel, "inside");
        write_file_at(t, "/lib/x.so", "host");
        CHECK(asprintf(&host, "%s/lib/x.so", t) > 0);
        _cleanup_free_ char *link = NULL;
        CHECK(asprintf(&link, "%s/abs", root) > 0);
        CHECK(symlink(rel, link) == 0);                          /* absolute, pointing inside the root */
        _cleanup_close_ int root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        CHECK(root_fd >= 0);
        char buf[16] = "";

        struct proc_mapping m = mapping_of(inside, rel);
        int fd = task_file_open(root_fd, &m);
        CHECK_OK(fd);
        CHECK(pread(fd, buf, sizeof buf - 1, 0) == 6 && memcmp(buf, "inside", 6) == 0);
        close(fd);

        /* A symlink, even one that stays inside: not followed. */
        m.path = (char *) "/abs";
        CHECK_INT(task_file_open(root_fd, &m), ==, -ELOOP);

        /* The path names the host's file, and that is the mapped one: a chroot's view. */
        m = mapping_of(host, rel);
        fd = task_file_open(root_fd, &m);
        CHECK_OK(fd);
        memset(buf, 0, sizeof buf);
        CHECK(pread(fd, buf, sizeof buf - 1, 0) == 4 && memcmp(buf, "host", 4) == 0);
        close(fd);

        /* Neither is the mapped inode: nothing. */
        m.inode = 1;
        CHECK_INT(task_file_open(root_fd, &m), ==, -ESTALE);
        m = mapping_of(inside, rel);
        m.remote = true;
        CHECK_INT(task_file_open(root_fd, &m), ==, -EREMOTE);
        m.remote = false;
        m.path = (char *) "[vdso]";
        CHECK_INT(task_file_open(root_fd, &m), ==, -EINVAL);

        /* Without openat2(): the resolved path walked, no symlink followed, nothing above the root. */
        fd = open_beneath_nofollow(root_fd, rel, O_RDONLY | O_CLOEXEC);
        CHECK_OK(fd);
        memset(buf, 0, sizeof buf);
        CHECK(pread(fd, buf, sizeof buf - 1, 0) == 6 && memcmp(buf, "inside", 6) == 0);
        close(fd);
        CHECK_INT(open_beneath_nofollow(root_fd, "/abs", O_RDONLY | O_CLOEXEC), ==, -ELOOP);
        _cleanup_free_ char *via_link = NULL;
        CHECK(asprintf(&via_link, "%s/dirlink", root) > 0 && symlink("/", via_link) == 0);
        CHECK_INT(open_beneath_nofollow(root_fd, "/dirlink/abs", O_RDONLY | O_CLOEXEC), ==, -ELOOP);
        CHECK_INT(open_beneath_nofollow(root_fd, "/../x", O_RDONLY | O_CLOEXEC), ==, -EINVAL);
        CHECK_INT(open_beneath_nofollow(root_fd, "relative", O_RDONLY | O_CLOEXEC), ==, -EINVAL);
        CHECK_INT(open_beneath_nofollow(root_fd, "/nothere/x", O_RDONLY | O_CLOEXEC), ==, -ENOENT);

        /* Our own root: none of its own. */
        _cleanup_close_ int self = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int other = 5;
        CHECK_INT(task_root_open(self, 0, &other), ==, 0);
        CHECK_INT(other, ==, -1);

        /* Build-ids: this test binary has one, a text file is no ELF. */
        _cleanup_close_ int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        char id[41];
        CHECK_OK(elf_file_build_id(exe, id));
        fd = open(host, O_RDONLY | O_CLOEXEC);
        CHECK_INT(elf_file_build_id(fd, id), ==, -EINVAL);
        close(fd);
        tmpdir_remove(t);
}

/* Spliced plain cores: the pipe's bytes land in the file whole and unseen (zero blocks are data until
 * core_file_punch_zeros(), after the task's release); a file that takes no splice (here O_APPEND:
 * EINVAL) gets them copied, for this chunk and the next. */
static bool splice_through(int fd, const uint8_t *data, size_t size, size_t chunk) {
        struct core_writer w;
        int p[2];
        CHECK(pipe2(p, O_CLOEXEC) == 0);
        CHECK(fcntl(p[1], F_SETPIPE_SZ, (int) chunk) >= (int) chunk);
        CHECK_OK(core_writer_init(&w, fd, COMPRESSION_NONE, 0));
        for (size_t done = 0; done < size; done += chunk) {
                CHECK(write(p[1], data + done, chunk) == (ssize_t) chunk);
                CHECK_INT(core_writer_splice(&w, p[0], chunk), ==, (long) chunk);
        }
        CHECK_OK(core_writer_finish(&w));
        CHECK_INT(w.size, ==, size);
        bool spliced = w.spliced;
        core_writer_done(&w);
        close(p[0]);
        close(p[1]);
        return spliced;
}

TEST(core_writer_splices_or_copies) {
        _cleanup_free_ char *t = tmpdir_new();
        const size_t chunk = 64 * 1024, size = 4 * chunk;
        uint8_t *data = malloc(size);
        CHECK(data);
        for (size_t i = 0; i < size; i++)
                data[i] = (uint8_t) (i * 7 + 1);
        memset(data + chunk, 0, 2 * chunk);     /* 32 zero blocks in the middle */

        _cleanup_free_ char *a = NULL, *b = NULL;
        CHECK(asprintf(&a, "%s/spliced", t) > 0 && asprintf(&b, "%s/appended", t) > 0);
        int fd = open(a, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        CHECK(splice_through(fd, data, size, chunk));
        struct stat st;
        CHECK(fstat(fd, &st) == 0);
        CHECK_INT(st.st_size, ==, size);
        CHECK_INT((uint64_t) st.st_blocks * 512, >=, size); /* not looked at while spliced */
        CHECK_OK(core_file_punch_zeros(fd, size));
        CHECK(fstat(fd, &st) == 0);
        CHECK_INT(st.st_size, ==, size);
        CHECK_INT((uint64_t) st.st_blocks * 512, <=, size - 2 * chunk + 4096); /* the zeros are a hole */
        close(fd);

        /* Zero runs across the punch's windows (4 MiB): 10 MiB of data but 3..9 MiB zero. */
        _cleanup_free_ char *big = NULL;
        CHECK(asprintf(&big, "%s/big", t) > 0);
        fd = open(big, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        const size_t mib = 1 << 20;
        uint8_t *page = calloc(1, mib);
        CHECK(page);
        for (size_t m = 0; m < 10; m++) {
                memset(page, m >= 3 && m < 9 ? 0 : 0x5a, mib);
                CHECK(pwrite(fd, page, mib, (off_t) (m * mib)) == (ssize_t) mib);
        }
        CHECK_OK(core_file_punch_zeros(fd, 10 * mib));
        CHECK(fstat(fd, &st) == 0);
        CHECK_INT((uint64_t) st.st_blocks * 512, <=, 4 * mib + 8192);
        CHECK_INT((uint64_t) st.st_blocks * 512, >=, 4 * mib);
        for (size_t m = 0; m < 10; m++) {
                CHECK(pread(fd, page, mib, (off_t) (m * mib)) == (ssize_t) mib);
                CHECK(page[0] == (m >= 3 && m < 9 ? 0 : 0x5a) && page[mib - 1] == page[0]);
        }
        free(page);
        close(fd);

        /* O_APPEND: every write lands at the end, so the copy's data has no zero block. */
        for (size_t i = chunk; i < 3 * chunk; i++)
                data[i] = (uint8_t) (i * 3 + 2);
        fd = open(b, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        CHECK(!splice_through(fd, data, size, chunk));
        close(fd);

        for (int k = 0; k < 2; k++) {
                _cleanup_free_ char *back = NULL;
                size_t n = 0;
                CHECK_OK(read_file_at(AT_FDCWD, k ? b : a, 2 * size, &back, &n, NULL));
                CHECK_INT(n, ==, size);
                if (k) {
                        CHECK(memcmp(back, data, size) == 0);
                } else {
                        CHECK(memcmp(back, data, chunk) == 0 && memcmp(back + 3 * chunk, data + 3 * chunk, chunk) == 0);
                        for (size_t i = chunk; i < 3 * chunk; i++)
                                CHECK(back[i] == 0);
                }
        }
        free(data);
        tmpdir_remove(t);
}

/* Attachment names: after the core's name without .zst, told apart from cores. */
TEST(store_attachment_names) {
        _cleanup_free_ char *a = store_attachment_name("core.x.0.0123456789abcdef0123456789abcdef.7.9.zst", 2);
        CHECK_STR(a, "core.x.0.0123456789abcdef0123456789abcdef.7.9.file-2");
        size_t n;
        CHECK(store_name_is_attachment(a, &n));
        CHECK_INT(n, ==, strlen("core.x.0.0123456789abcdef0123456789abcdef.7.9"));
        CHECK(!store_name_is_attachment("core.x.0.0123456789abcdef0123456789abcdef.7.9.zst", NULL));
        CHECK(!store_name_is_attachment("core.x.0.b.7.9.file-", NULL));
        CHECK(!store_name_is_attachment("core.x.0.b.7.9.file-2x", NULL));
        CHECK(!store_name_is_attachment("other.file-2", NULL));
        CHECK(!store_name_is_attachment("core.file-02", NULL));        /* no core's name before it */
}

static const struct test_case tests[] = {
        TEST_ENTRY(core_writer_splices_or_copies),
        TEST_ENTRY(privileges_lock_down_filters_bpf_and_perf),
        TEST_ENTRY(privileges_lock_down_denies_what_the_unit_denies),
        TEST_ENTRY(syscall_filters_kill_other_abis),
        TEST_ENTRY(parser_filter_is_its_own),
        TEST_ENTRY(cell_ids_one_per_child),
        TEST_ENTRY(escape_text_hostile_bytes),
        TEST_ENTRY(escape_text_bidi_and_separators),
        TEST_ENTRY(escape_lines_keeps_lines_only),
        TEST_ENTRY(escape_cmdline_arguments),
        TEST_ENTRY(escape_filename_part_is_safe),
        TEST_ENTRY(dump_file_name),
        TEST_ENTRY(signal_names),
        TEST_ENTRY(mark_names),
        TEST_ENTRY(action_names),
        TEST_ENTRY(value_parsers),
        TEST_ENTRY(timestamp_parser),
        TEST_ENTRY(timespan_parser),
        TEST_ENTRY(timestamp_relative),
        TEST_ENTRY(fields_binary_value),
        TEST_ENTRY(config_parsing),
        TEST_ENTRY(config_errors_name_file_and_line),
        TEST_ENTRY(config_bad_line_keeps_the_rest),
        TEST_ENTRY(config_max_age),
        TEST_ENTRY(config_journal_size_max),
        TEST_ENTRY(config_journal_core),
        TEST_ENTRY(config_missing_file),
        TEST_ENTRY(config_dropins_precedence),
        TEST_ENTRY(config_every_error_reported_with_hint),
        TEST_ENTRY(config_print_round_trips),
        TEST_ENTRY(policy_rule_needs_the_parts_it_matches_on),
        TEST_ENTRY(policy_every_key_round_trips),
        TEST_ENTRY(policy_each_match_key),
        TEST_ENTRY(policy_match_container_yes_no_and_globs),
        TEST_ENTRY(policy_match_machine_only_machined_machines),
        TEST_ENTRY(policy_exe_match_sees_through_deleted),
        TEST_ENTRY(policy_first_match_wins_and_lists_reset),
        TEST_ENTRY(policy_builtin_default),
        TEST_ENTRY(policy_same_name_overrides_and_lexical_order),
        TEST_ENTRY(policy_malformed_names_file_and_line),
        TEST_ENTRY(policy_every_error_reported_with_hint),
        TEST_ENTRY(policy_lint_contradictions),
        TEST_ENTRY(policy_journal_core),
        TEST_ENTRY(policy_lint_journal_core),
        TEST_ENTRY(request_parse_sizes),
        TEST_ENTRY(ack_build_rules),
        TEST_ENTRY(proc_limits_parser),
        TEST_ENTRY(proc_auxv_parser),
        TEST_ENTRY(proc_cgroup_to_units),
        TEST_ENTRY(cgroup_path_to_container_name),
        TEST_ENTRY(cgroup_delegation_boundary_stops_names),
        TEST_ENTRY(cgroup_names_by_id),
        TEST_ENTRY(site_key_of_a_crash),
        TEST_ENTRY(site_key_of_two_runs),
        TEST_ENTRY(site_key_never_waits_on_a_stack_not_in_memory),
        TEST_ENTRY(repeats_known_by_site),
        TEST_ENTRY(repeats_saved_once_a_second),
        TEST_ENTRY(proc_status_nspid_and_id_maps),
        TEST_ENTRY(crash_id_forms),
        TEST_ENTRY(policy_notify),
        TEST_ENTRY(unit_name_instance_escapes_as_systemd_escape),
        TEST_ENTRY(first_seen_once_per_signature_and_persistent),
        TEST_ENTRY(first_seen_bounded),
        TEST_ENTRY(proc_root_check_refuses_what_is_not_procfs),
        TEST_ENTRY(record_names_the_container),
        TEST_ENTRY(record_journal_core_in_the_copies_journal_core_names),
        TEST_ENTRY(context_user_may_read_matrix),
        TEST_ENTRY(core_extent_from_headers),
        TEST_ENTRY(core_extent_pn_xnum_and_far_phoff),
        TEST_ENTRY(saved_files_round_trip_and_hostile_lines),
        TEST_ENTRY(mountinfo_path_remote_by_longest_mount_point),
        TEST_ENTRY(map_files_selection_dedup_bound),
        TEST_ENTRY(map_files_collect_and_open_own),
        TEST_ENTRY(task_file_opened_inside_its_root),
        TEST_ENTRY(task_file_device_node_never_opened),
        TEST_ENTRY(parser_result_round_trip_and_hostile_bytes),
        TEST_ENTRY(signature_one_rule_cut_traces_partial),
        TEST_ENTRY(parser_cell_has_no_privileges),
        TEST_ENTRY(parser_record_cell_reaches_only_journald),
        TEST_ENTRY(cell_has_no_privileges),
        TEST_ENTRY(abandoned_children_bounded),
        TEST_ENTRY(parser_build_ids_answer_checked),
        TEST_ENTRY(parser_reads_build_ids_in_its_cell),
        TEST_ENTRY(tenant_text_and_counters_apart),
        TEST_ENTRY(peer_tenant_of_user_namespaces),
        TEST_ENTRY(parser_record_round_trip_and_refusals),
        TEST_ENTRY(deadline_trickle_rate_floor_and_max_duration),
        TEST_ENTRY(store_limits_change_as_one_set),
        TEST_ENTRY(store_settle_after_the_link),
        TEST_ENTRY(store_reservations_bound_cores_in_flight),
        TEST_ENTRY(store_attachment_names),
        TEST_ENTRY(record_session_and_owner_from_the_cgroup),
        TEST_ENTRY(record_priority_and_reason_by_outcome),
        TEST_ENTRY(user_note_of_a_rejected_crash),
        TEST_ENTRY(metrics_file_counts_and_survives),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
