/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* One grammar, systemd's (issue 40, item 2): the time spans of systemd.time(7), read by one parser
 * for coredumpd.conf, the policy files and dumpctl; the files read as systemd.syntax(7) says; the
 * shipped coredumpd.conf saying the code's defaults and every key. */

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "config/policy.h"
#include "fixtures.h"
#include "harness.h"
#include "shared/cleanup.h"
#include "shared/ini-file.h"
#include "shared/log.h"
#include "shared/parse.h"
#include "shared/strv.h"
#include "shared/timestamp.h"

#define S USEC_PER_SEC
#define MINUTE (60 * S)
#define HOUR (60 * MINUTE)
#define DAY (24 * HOUR)

/* ---- time spans ---- */

static void check_span(const char *text, uint64_t want) {
        uint64_t u = 12345;
        int r = parse_duration(text, &u);
        if (r < 0 || u != want)
                test_fail(__FILE__, __LINE__, "parse_duration(\"%s\") = %d, %" PRIu64 " (want %" PRIu64 ")", text, r, u,
                          want);
}

static void check_span_fails(const char *text, int want) {
        uint64_t u = 12345;
        int r = parse_duration(text, &u);
        if (r != want || u != 12345)
                test_fail(__FILE__, __LINE__, "parse_duration(\"%s\") = %d (want %d), output %" PRIu64, text, r, want, u);
}

/* Every unit of systemd.time(7), in each of its spellings. */
TEST(duration_every_unit) {
        static const struct {
                const char *unit;
                uint64_t usec;
        } units[] = {
                { "usec", 1 }, { "us", 1 }, { "\u00b5s", 1 }, { "\u03bcs", 1 },
                { "msec", 1000 }, { "ms", 1000 },
                { "seconds", S }, { "second", S }, { "sec", S }, { "s", S },
                { "minutes", MINUTE }, { "minute", MINUTE }, { "min", MINUTE }, { "m", MINUTE },
                { "hours", HOUR }, { "hour", HOUR }, { "hr", HOUR }, { "h", HOUR },
                { "days", DAY }, { "day", DAY }, { "d", DAY },
                { "weeks", 7 * DAY }, { "week", 7 * DAY }, { "w", 7 * DAY },
                { "months", UINT64_C(2629800) * S }, { "month", UINT64_C(2629800) * S }, { "M", UINT64_C(2629800) * S },
                { "years", UINT64_C(31557600) * S }, { "year", UINT64_C(31557600) * S }, { "y", UINT64_C(31557600) * S },
        };
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                _cleanup_free_ char *a = NULL, *b = NULL;
                CHECK(asprintf(&a, "3%s", units[i].unit) > 0 && asprintf(&b, " 3 %s ", units[i].unit) > 0);
                check_span(a, 3 * units[i].usec);
                check_span(b, 3 * units[i].usec);
        }
        /* A year is 365.25 days, a month a twelfth of it (30.44 days), as systemd's. */
        CHECK_INT(USEC_PER_MONTH * 12, ==, USEC_PER_YEAR);
        CHECK_INT(USEC_PER_YEAR, ==, UINT64_C(36525) * 864 * S);
}

/* Case-sensitive as systemd's: M a month, m a minute; no other case of a unit is one. */
TEST(duration_month_is_not_minute) {
        check_span("1M", USEC_PER_MONTH);
        check_span("1m", MINUTE);
        check_span("6months", 6 * USEC_PER_MONTH);
        check_span_fails("1MIN", -EINVAL);
        check_span_fails("1H", -EINVAL);
        check_span_fails("1D", -EINVAL);
        check_span_fails("1Ms", -EINVAL);
        check_span_fails("1S", -EINVAL);
}

TEST(duration_combined_and_fractions) {
        check_span("1d 12h", DAY + 12 * HOUR);
        check_span("1h30min", HOUR + 30 * MINUTE);
        check_span("1h 30min 15s 500ms", HOUR + 30 * MINUTE + 15 * S + 500 * USEC_PER_MSEC);
        check_span("2 hours 3 minutes", 2 * HOUR + 3 * MINUTE);
        check_span("1y 2M", USEC_PER_YEAR + 2 * USEC_PER_MONTH);
        check_span("1.5h", 90 * MINUTE);
        check_span(".5s", 500 * USEC_PER_MSEC);
        check_span("0.25d", 6 * HOUR);
        check_span("1.5", 1500 * USEC_PER_MSEC);
        check_span("  \t5min\t ", 5 * MINUTE);
}

/* A number without a unit is of the key's default unit: seconds for coredumpd's keys, as for
 * systemd's ...Sec=. */
TEST(duration_bare_number) {
        uint64_t u;
        check_span("0", 0);
        check_span("60", 60 * S);
        check_span("1 30", 31 * S);
        check_span("1d12", DAY + 12 * S);       /* as systemd: a bare number after a unit is seconds too */
        check_span("1s.5", 1500 * USEC_PER_MSEC);
        CHECK(parse_duration_unit("250", USEC_PER_MSEC, &u) == 0 && u == 250 * USEC_PER_MSEC);
        CHECK(parse_duration_unit("250 s", USEC_PER_MSEC, &u) == 0 && u == 250 * S);
        CHECK(parse_duration_unit("3", 1, &u) == 0 && u == 3);
}

TEST(duration_overflow_and_garbage) {
        check_span("18446744073709551615us", UINT64_MAX);
        check_span_fails("18446744073709551616us", -ERANGE);
        check_span_fails("99999999999999999999", -ERANGE);
        check_span_fails("584555y", -ERANGE);     /* beyond 2^64 us */
        check_span_fails("18446744073709551615us 1us", -ERANGE);
        check_span_fails("18446744073709551615 s", -ERANGE);
        static const char *const bad[] = {
                "", " ", "s", "min", "-1s", "+1s", "1 parsec", "5mz", "1.2.3", "1..2", ".", "1h-1m",
                "fortnight", "1secs", "1 s s", "1,5h", "0x10", "1e3", "infinity", "5 min ago", "1.5.5",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                uint64_t u;
                if (parse_duration(bad[i], &u) != -EINVAL)
                        test_fail(__FILE__, __LINE__, "parse_duration(\"%s\") not -EINVAL", bad[i]);
        }
        uint64_t u;
        CHECK(parse_duration(NULL, &u) == -EINVAL);
}

/* What format_duration() writes parse_duration() reads back, M and y included. */
TEST(duration_format_round_trips) {
        char buf[32];
        static const uint64_t values[] = { 0, 1, 999, USEC_PER_MSEC, 1500 * USEC_PER_MSEC, 90 * S, 5 * MINUTE, HOUR,
                                           3 * DAY, 14 * DAY, USEC_PER_MONTH, 6 * USEC_PER_MONTH, USEC_PER_YEAR,
                                           DAY + 12 * HOUR, UINT64_MAX };
        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                uint64_t u;
                format_duration(buf, values[i]);
                if (parse_duration(buf, &u) < 0 || u != values[i])
                        test_fail(__FILE__, __LINE__, "%" PRIu64 " → '%s' does not read back", values[i], buf);
        }
        CHECK_STR(format_duration(buf, USEC_PER_MONTH), "1M");
        CHECK_STR(format_duration(buf, USEC_PER_YEAR), "1y");
        CHECK_STR(format_duration(buf, 3 * DAY), "3d");
        CHECK_STR(format_duration(buf, 5 * MINUTE), "5min");
        CHECK_STR(format_duration(buf, 7), "7us");
}

/* dumpctl's --since/--until take the same spans. */
#define T_NOW (UINT64_C(1710504000) * S) /* Fri 2024-03-15 12:00:00 UTC */
TEST(dumpctl_since_until_spans) {
        uint64_t u;
        CHECK(parse_timestamp("-1h", T_NOW, &u) == 0 && u == T_NOW - HOUR);
        CHECK(parse_timestamp("-1M", T_NOW, &u) == 0 && u == T_NOW - USEC_PER_MONTH);
        CHECK(parse_timestamp("-1m", T_NOW, &u) == 0 && u == T_NOW - MINUTE);
        CHECK(parse_timestamp("1d 12h ago", T_NOW, &u) == 0 && u == T_NOW - DAY - 12 * HOUR);
        CHECK(parse_timestamp("2 hours ago", T_NOW, &u) == 0 && u == T_NOW - 2 * HOUR);
        CHECK(parse_timestamp("+1h30min", T_NOW, &u) == 0 && u == T_NOW + 90 * MINUTE);
        CHECK(parse_timestamp("@1700000000.5", T_NOW, &u) == 0 && u == UINT64_C(1700000000500000));
        CHECK(parse_timestamp("-1MIN", T_NOW, &u) == -EINVAL);
        CHECK(parse_timestamp("2024-03-01 12:00 UTC", T_NOW, &u) == 0 && u == UINT64_C(1709294400) * S);
}

/* ---- the file syntax (systemd.syntax(7)) ---- */

struct seen {
        char **entries;         /* "line:[section] key=value" */
};

static int record_entry(struct ini_file *ini, const char *section, const char *key, const char *value, void *userdata) {
        struct seen *seen = userdata;
        char *e = NULL;
        CHECK(asprintf(&e, "%u:[%s] %s=%s", ini->line, section, key, value) > 0);
        CHECK_OK(strv_extend(&seen->entries, e));
        free(e);
        return 0;
}

/* Parses text; returns the entries seen, joined by '|', and the errors as "line: message (hint)"
 * joined by '|'. */
static void parse_text(const char *text, size_t len, char **ret_entries, char **ret_errors) {
        FILE *f = fmemopen((void *) text, len, "r");
        CHECK(f);
        struct ini_file ini = { .path = "test.conf" };
        struct seen seen = {};
        CHECK_OK(ini_file_parse(&ini, f, record_entry, &seen));
        fclose(f);

        char *entries = strdup(""), *errors = strdup("");
        for (char **e = seen.entries; e && *e; e++) {
                char *j = NULL;
                CHECK(asprintf(&j, "%s%s%s", entries, *entries ? "|" : "", *e) > 0);
                free(entries);
                entries = j;
        }
        for (size_t i = 0; i < ini.n_errors; i++) {
                char *j = NULL;
                CHECK(asprintf(&j, "%s%s%u: %s (%s)", errors, *errors ? "|" : "", ini.errors[i].line,
                               ini.errors[i].message, ini.errors[i].hint ?: "") > 0);
                free(errors);
                errors = j;
        }
        strv_free(seen.entries);
        ini_file_done(&ini);
        *ret_entries = entries;
        *ret_errors = errors;
}

#define CHECK_PARSE(text, want_entries, want_errors)                                                    \
        do {                                                                                            \
                _cleanup_free_ char *_e = NULL, *_x = NULL;                                             \
                parse_text((text), strlen(text), &_e, &_x);                                             \
                CHECK_STR(_e, (want_entries));                                                          \
                CHECK_STR(_x, (want_errors));                                                           \
        } while (0)

/* An indented key is a key of its own, not the continuation of the value above (libinih's): a rule
 * with "  Action=reject" under its MatchExe= has that action. */
TEST(reader_indented_key_is_a_key) {
        CHECK_PARSE("[Rule]\nMatchExe=/usr/bin/x\n  Action=reject\n\tWait=no\n",
                    "2:[Rule] MatchExe=/usr/bin/x|3:[Rule] Action=reject|4:[Rule] Wait=no", "");
        CHECK_PARSE("  [Rule]  \n   Name = a b  \n", "2:[Rule] Name=a b", "");
}

/* Key: value is no assignment: an error at file:line with a hint, and left out. */
TEST(reader_colon_is_no_separator) {
        CHECK_PARSE("[Coredump]\nMaxSize: 1G\nCompress=none\n", "3:[Coredump] Compress=none",
                    "2: syntax error (expected [Section] or Key=Value) (a key and its value are separated by '=', not ':')");
        /* A ':' in a value is the value's. */
        CHECK_PARSE("[Rule]\nMatchExe=/opt/a:b\n", "2:[Rule] MatchExe=/opt/a:b", "");
}

/* '#' and ';' start a comment only at the start of a line; within a value they are the value's. */
TEST(reader_comments_only_at_line_start) {
        CHECK_PARSE("# c\n; c\n   # indented c\n[Rule]\nMatchExe=/a ; /b\nName=x # not a comment\nMatchComm=a;b\n",
                    "5:[Rule] MatchExe=/a ; /b|6:[Rule] Name=x # not a comment|7:[Rule] MatchComm=a;b", "");
}

/* Lines far beyond libinih's 200 bytes are read whole; beyond INI_LINE_MAX one is an error. */
TEST(reader_long_lines) {
        char line[1100];
        memset(line, 'a', sizeof line);
        memcpy(line, "[Rule]\nMatchExe=", 16);
        line[16 + 1000] = '\n';
        line[16 + 1001] = 0;
        _cleanup_free_ char *want = NULL;
        CHECK(asprintf(&want, "2:[Rule] MatchExe=%.*s", 1000, line + 16) > 0);
        CHECK_PARSE(line, want, "");

        size_t n = INI_LINE_MAX + 100;
        _cleanup_free_ char *big = malloc(n + 64);
        CHECK(big);
        strcpy(big, "[Rule]\nMatchExe=");
        memset(big + 16, 'b', n);
        strcpy(big + 16 + n, "\nName=after\n");
        CHECK_PARSE(big, "3:[Rule] Name=after",
                    "2: line too long (more than 65536 bytes) (split the value over several assignments of a repeatable key)");

        /* Just within the bound. */
        memset(big + 16, 'c', INI_LINE_MAX - 16);
        strcpy(big + INI_LINE_MAX, "\n");
        _cleanup_free_ char *e = NULL, *x = NULL;
        parse_text(big, strlen(big), &e, &x);
        CHECK_STR(x, "");
        CHECK_INT(strlen(e), ==, strlen("2:[Rule] MatchExe=") + INI_LINE_MAX - 16);

        /* Continued past the bound: the rest of that line is left out with it, not read as lines of
         * their own; the next line after it is read. */
        size_t half = INI_LINE_MAX / 2 + 10;
        _cleanup_free_ char *cont = malloc(3 * half + 128);
        CHECK(cont);
        char *p = stpcpy(cont, "[Rule]\nMatchExe=");
        for (int i = 0; i < 3; i++) {
                memset(p, 'd', half);
                p += half;
                p = stpcpy(p, i < 2 ? "\\\n" : "\\\nName=inside\\\n");
        }
        strcpy(p, "tail\nName=after\n");
        CHECK_PARSE(cont, "7:[Rule] Name=after",
                    "2: line too long (more than 65536 bytes with its continuations) (split the value over several assignments of a repeatable key)");
}

/* A trailing backslash continues a line, the backslash becoming a space; comment lines within are
 * skipped; an escaped backslash continues nothing. */
TEST(reader_backslash_continuation) {
        CHECK_PARSE("[Rule]\nMatchExe=/a \\\n  /b\nName=n\n", "2:[Rule] MatchExe=/a    /b|4:[Rule] Name=n", "");
        CHECK_PARSE("[Rule]\nMatchExe=/a\\\n# skipped\n; skipped\n/b\n", "2:[Rule] MatchExe=/a /b", "");
        CHECK_PARSE("[Rule]\nMatchExe=/a\\\\\nName=n\n", "2:[Rule] MatchExe=/a\\\\|3:[Rule] Name=n", "");
        CHECK_PARSE("[Rule]\nMatchExe=/a\\", "2:[Rule] MatchExe=/a", "");
}

/* What is neither a header nor Key=Value is reported at its line and left out; the rest is read. */
TEST(reader_errors_at_file_line) {
        CHECK_PARSE("[Rule\nA=1\n", "",
                    "1: invalid section header '[Rule' (a section header is [Name] alone on its line)");
        CHECK_PARSE("[Rule] x\n", "", "1: invalid section header '[Rule] x' (a section header is [Name] alone on its line)");
        CHECK_PARSE("[Rule]\n=1\nB=2\n", "3:[Rule] B=2", "2: syntax error (no key before '=') (a setting is Key=Value)");
        CHECK_PARSE("[Rule]\nMax Size=1\n", "",
                    "2: invalid key name 'Max Size' (a key is one word, such as MaxSize; comments are lines starting with # or ;)");
        CHECK_PARSE("[Rule]\njust words\n", "",
                    "2: syntax error (expected [Section] or Key=Value) (comments are lines starting with # or ;)");
        CHECK_PARSE("\xEF\xBB\xBF[Rule]\nA=1\r\n", "2:[Rule] A=1", "");
        static const char nul[] = "[Rule]\nA=1\0x\nB=2\n";
        _cleanup_free_ char *e = NULL, *x = NULL;
        parse_text(nul, sizeof nul - 1, &e, &x);
        CHECK_STR(e, "3:[Rule] B=2");
        CHECK_STR(x, "2: line contains a NUL byte (this is not a text file)");
        /* Keys before any section reach the caller with section "", which says what is wrong. */
        CHECK_PARSE("A=1\n[S]\n", "1:[] A=1", "");
}

/* ---- coredumpd.conf's keys on the shared parsers ---- */

static int load_config_text(const char *text, struct config *c, char **ret_log) {
        struct log_capture logs;
        _cleanup_free_ char *dir = tmpdir_new(), *path = NULL;
        CHECK_OK(write_text_file(dir, "coredumpd.conf", text));
        CHECK(asprintf(&path, "%s/coredumpd.conf", dir) > 0);
        log_capture_start(&logs);
        int r = config_load(c, path, true);
        if (ret_log)
                *ret_log = log_capture_contains(&logs, "invalid") ? strdup("invalid") : NULL;
        log_capture_stop(&logs);
        tmpdir_remove(dir);
        return r;
}

TEST(config_max_age_month_and_combined) {
        struct config c;
        config_init_defaults(&c);
        CHECK_INT(load_config_text("[Coredump]\nMaxAge=1M\n", &c, NULL), ==, 0);
        CHECK_INT(c.max_age_usec, ==, USEC_PER_MONTH);
        CHECK_INT(load_config_text("[Coredump]\nMaxAge=1d 12h\n", &c, NULL), ==, 0);
        CHECK_INT(c.max_age_usec, ==, DAY + 12 * HOUR);
        CHECK_INT(load_config_text("[Coredump]\nMaxAge=6months\n", &c, NULL), ==, 0);
        CHECK_INT(c.max_age_usec, ==, 6 * USEC_PER_MONTH);
        CHECK_INT(load_config_text("[Coredump]\nMaxAge=1m\n", &c, NULL), ==, 0);
        CHECK_INT(c.max_age_usec, ==, MINUTE);
        CHECK_INT(load_config_text("[Coredump]\nMaxAge=1MIN\n", &c, NULL), ==, 1);
        CHECK_INT(c.max_age_usec, ==, MINUTE);
        config_done(&c);
}

/* Every duration key takes the full grammar, a bare number in seconds; sizes stay sizes (MinRate=
 * is bytes per second: 1M there is a MiB/s, base 1024). */
TEST(config_keys_use_the_shared_parsers) {
        struct config c;
        config_init_defaults(&c);
        CHECK_INT(load_config_text("[Coredump]\nDeadline=1min 30s\nQueueDeadline=2m\nUnwindTimeout=1.5s\n"
                                   "RateLimitIntervalSec=1d 12h\nMaxDuration=1h30min\nIdleExit=90\n"
                                   "MinRate=1M\nMaxSize=1G\nJournalSizeMax=512K\n", &c, NULL), ==, 0);
        CHECK_INT(c.deadline_usec, ==, 90 * S);
        CHECK_INT(c.queue_deadline_usec, ==, 2 * MINUTE);
        CHECK_INT(c.unwind_timeout_usec, ==, 1500 * USEC_PER_MSEC);
        CHECK_INT(c.rate_limit_interval_usec, ==, DAY + 12 * HOUR);
        CHECK_INT(c.max_duration_usec, ==, 90 * MINUTE);
        CHECK_INT(c.idle_exit_usec, ==, 90 * S);
        CHECK_INT(c.min_rate, ==, UINT64_C(1) << 20);
        CHECK_INT(c.max_size, ==, UINT64_C(1) << 30);
        CHECK_INT(c.journal_size_max, ==, UINT64_C(512) << 10);
        /* A duration is no size, and a size no duration. */
        CHECK_INT(load_config_text("[Coredump]\nMinRate=1min\n", &c, NULL), ==, 1);
        CHECK_INT(load_config_text("[Coredump]\nDeadline=1M\nMaxDuration=1K\n", &c, NULL), ==, 1);
        CHECK_INT(c.deadline_usec, ==, USEC_PER_MONTH);
        config_done(&c);
}

/* A time span's key ends in Sec (DeadlineSec=, ..., as RateLimitIntervalSec=); the older names are
 * aliases that still work, and the printer writes the new ones. */
TEST(config_duration_keys_sec_and_aliases) {
        static const char *const pairs[][3] = {
                { "DeadlineSec", "Deadline", "\nDeadlineSec=7s\n" },
                { "QueueDeadlineSec", "QueueDeadline", "\nQueueDeadlineSec=7s\n" },
                { "UnwindTimeoutSec", "UnwindTimeout", "\nUnwindTimeoutSec=7s\n" },
                { "MaxDurationSec", "MaxDuration", "\nMaxDurationSec=7s\n" },
                { "IdleExitSec", "IdleExit", "\nIdleExitSec=7s\n" },
                { "MaxAgeSec", "MaxAge", "\nMaxAgeSec=7s\n" },
        };
        for (size_t i = 0; i < ELEMENTSOF(pairs); i++)
                for (int alias = 0; alias < 2; alias++) {
                        struct config c;
                        _cleanup_free_ char *text = NULL, *out = NULL;
                        size_t size;
                        config_init_defaults(&c);
                        CHECK(asprintf(&text, "[Coredump]\n%s=7\n", pairs[i][alias]) > 0);
                        CHECK_INT(load_config_text(text, &c, NULL), ==, 0);
                        FILE *f = open_memstream(&out, &size);
                        CHECK(f);
                        config_print(&c, f);
                        fclose(f);
                        if (!strstr(out, pairs[i][2]))
                                test_fail(__FILE__, __LINE__, "%s=7 not printed as %s", pairs[i][alias], pairs[i][2] + 1);
                        CHECK_STR(config_key_canonical(pairs[i][alias]), pairs[i][0]);
                        config_done(&c);
                }
        /* An error names the key as written. */
        struct log_capture logs;
        struct config c;
        config_init_defaults(&c);
        _cleanup_free_ char *dir = tmpdir_new(), *path = NULL;
        CHECK_OK(write_text_file(dir, "c.conf", "[Coredump]\nDeadline=soon\nIdleExitSec=later\n"));
        CHECK(asprintf(&path, "%s/c.conf", dir) > 0);
        log_capture_start(&logs);
        CHECK_INT(config_load(&c, path, true), ==, 2);
        CHECK(log_capture_contains(&logs, ":2: invalid Deadline= 'soon'"));
        CHECK(log_capture_contains(&logs, ":3: invalid IdleExitSec= 'later'"));
        log_capture_stop(&logs);
        config_done(&c);
        tmpdir_remove(dir);
}

/* Policy files take the same spans. */
TEST(policy_keys_use_the_shared_parser) {
        _cleanup_free_ char *dir = tmpdir_new();
        CHECK_OK(write_text_file(dir, "10-a.conf", "[Rule]\nName=a\nMatchExe=/x\n  Action=reject\n"
                                                   "MaxAge=1M\nRateLimitIntervalSec=1d 12h\n\n"
                                                   "[Rule]\nName=b\nAction=kernel\nMaxAgeSec=6months\n"));
        struct log_capture logs;
        log_capture_start(&logs);
        _cleanup_(policy_unrefp) struct policy *p = NULL;
        const char *dirs[] = { dir, NULL };
        CHECK_INT(policy_load(dirs, &p), ==, 0);
        log_capture_stop(&logs);
        CHECK_STR(p->rules[0].name, "a");
        CHECK_INT(p->rules[0].action, ==, ACTION_REJECT);
        CHECK_INT(p->rules[0].max_age_usec, ==, USEC_PER_MONTH);
        CHECK_INT(p->rules[0].rate_limit_interval_usec, ==, DAY + 12 * HOUR);
        CHECK_STR(p->rules[1].name, "b");
        CHECK_INT(p->rules[1].max_age_usec, ==, 6 * USEC_PER_MONTH);
        tmpdir_remove(dir);
}

/* ---- the shipped coredumpd.conf ---- */

static char *print_config(const struct config *c) {
        char *out = NULL;
        size_t size;
        FILE *f = open_memstream(&out, &size);
        CHECK(f);
        config_print(c, f);
        fclose(f);
        return out;
}

static bool in_list(char *const *list, const char *s) {
        for (char *const *l = list; l && *l; l++)
                if (strcmp(*l, s) == 0)
                        return true;
        return false;
}

/* Its commented "#Key=value" lines are the code's defaults, each key once, every key the parser
 * knows by its name (no alias), the same the printer writes; and the file is clean as it is. */
TEST(shipped_conffile_says_the_defaults_and_every_key) {
        const char *root = getenv("COREDUMPD_SOURCE_ROOT");
        CHECK(root);
        _cleanup_free_ char *path = NULL;
        CHECK(asprintf(&path, "%s/daemon/config/coredumpd.conf", root) > 0);
        FILE *f = fopen(path, "re");
        CHECK(f);

        _cleanup_(strv_freep) char **keys = NULL;
        char *uncommented = strdup("[Coredump]\n"), *line = NULL;
        size_t allocated = 0;
        CHECK(uncommented);
        while (getline(&line, &allocated, f) > 0) {
                if (line[0] != '#' || !(line[1] >= 'A' && line[1] <= 'Z') || !strchr(line, '='))
                        continue;
                char *key = strndup(line + 1, strcspn(line + 1, "="));
                CHECK(key);
                if (in_list(keys, key))
                        test_fail(__FILE__, __LINE__, "%s: %s= twice", path, key);
                if (strcmp(config_key_canonical(key), key) != 0)
                        test_fail(__FILE__, __LINE__, "%s: %s= is the old name of %s=", path, key,
                                  config_key_canonical(key));
                CHECK_OK(strv_extend(&keys, key));
                free(key);
                char *grown = NULL;
                CHECK(asprintf(&grown, "%s%s", uncommented, line + 1) > 0);
                free(uncommented);
                uncommented = grown;
        }
        free(line);
        fclose(f);

        /* Every key the parser knows is there, and nothing else. */
        for (const char *const *k = config_known_keys(); *k; k++)
                if (!in_list(keys, *k))
                        test_fail(__FILE__, __LINE__, "%s: no #%s= line", path, *k);
        size_t n_known = 0;
        for (const char *const *k = config_known_keys(); *k; k++)
                n_known++;
        CHECK_INT(strv_length(keys), ==, n_known);

        /* The values are the defaults: the file with every line uncommented is read without an
         * error, and what is in force then prints as an empty file's defaults. */
        struct config defaults, shipped, as_is;
        config_init_defaults(&defaults);
        config_init_defaults(&shipped);
        config_init_defaults(&as_is);
        CHECK_INT(load_config_text(uncommented, &shipped, NULL), ==, 0);
        _cleanup_free_ char *want = print_config(&defaults), *got = print_config(&shipped);
        if (strcmp(want, got) != 0)
                test_fail(__FILE__, __LINE__, "the shipped file's values are not the defaults:\n%s\nvs\n%s", got, want);
        CHECK_INT(config_load(&as_is, path, true), ==, 0);
        _cleanup_free_ char *as_is_text = print_config(&as_is);
        CHECK_STR(as_is_text, want);

        /* The printer writes every key, by its name. */
        _cleanup_(strv_freep) char **printed = strv_split(want, "\n");
        CHECK(printed);
        size_t n_printed = 0;
        for (char **l = printed; *l; l++) {
                if (**l == '[' || !strchr(*l, '='))
                        continue;
                _cleanup_free_ char *key = strndup(*l, strcspn(*l, "="));
                if (!in_list(keys, key))
                        test_fail(__FILE__, __LINE__, "printed %s= is not in the shipped file", key);
                n_printed++;
        }
        CHECK_INT(n_printed, ==, n_known);
        free(uncommented);
        config_done(&defaults);
        config_done(&shipped);
        config_done(&as_is);
}

static const struct test_case tests[] = {
        TEST_ENTRY(duration_every_unit),
        TEST_ENTRY(duration_month_is_not_minute),
        TEST_ENTRY(duration_combined_and_fractions),
        TEST_ENTRY(duration_bare_number),
        TEST_ENTRY(duration_overflow_and_garbage),
        TEST_ENTRY(duration_format_round_trips),
        TEST_ENTRY(dumpctl_since_until_spans),
        TEST_ENTRY(reader_indented_key_is_a_key),
        TEST_ENTRY(reader_colon_is_no_separator),
        TEST_ENTRY(reader_comments_only_at_line_start),
        TEST_ENTRY(reader_long_lines),
        TEST_ENTRY(reader_backslash_continuation),
        TEST_ENTRY(reader_errors_at_file_line),
        TEST_ENTRY(config_max_age_month_and_combined),
        TEST_ENTRY(config_keys_use_the_shared_parsers),
        TEST_ENTRY(config_duration_keys_sec_and_aliases),
        TEST_ENTRY(policy_keys_use_the_shared_parser),
        TEST_ENTRY(shipped_conffile_says_the_defaults_and_every_key),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
