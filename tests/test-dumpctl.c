/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * dumpctl against dumps the daemon's own code stored: a temporary store written through the
 * connection handler (so the files carry the real user.coredump.* attributes and ACL), read back
 * journal-less from the attributes, and through a journal directory made from the captured
 * records with systemd-journal-remote. Exit statuses are part of the interface (dumpctl(1)).
 */

#include <elf.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crash/first-seen.h"
#include "crash/repeats.h"
#include "crash/user-notes.h"
#include "fixtures.h"
#include "store/store.h"
#include "harness.h"
#include "shared/cleanup.h"
#include "shared/elf-build-id.h"
#include "shared/timestamp.h"

#define FULL_MASK (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT | COREDUMP_WAIT)
#define TIMEOUT_MS 10000
#define JOURNAL_REMOTE "/lib/systemd/systemd-journal-remote"

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

static bool has_suffix_of(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);
        return n >= k && strcmp(s + n - k, suffix) == 0;
}

static size_t count_lines(const char *s) {
        size_t n = 0;
        for (; s && *s; s++)
                n += *s == '\n';
        return n;
}

/* ---- Prometheus' text format, checked ---------------------------------------------------------- */

/* A metric or label name. */
static bool prom_name_ok(const char *s, size_t n, bool label) {
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                char ch = s[i];
                bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (!label && ch == ':') ||
                          (i > 0 && ch >= '0' && ch <= '9');
                if (!ok)
                        return false;
        }
        return true;
}

struct prom_family {
        char name[128], type[16];
        bool help;
        double last_le, last_bucket, inf;
        bool have_inf;
};

/* Checks text as the exposition format (0.0.4) has it and as dumpctl(1) promises: every family
 * with HELP and TYPE before its samples, counters ending in _total, no sample twice, label values
 * among the bounded sets, histogram buckets ascending and cumulative with +Inf equal to _count.
 * Returns the number of samples. */
static size_t prom_check(const char *text) {
        struct prom_family fams[64] = {};
        size_t n_fams = 0, n_samples = 0;
        char **seen = NULL;
        size_t n_seen = 0;
        static const char *const label_values[] = {
                "none", "kernel", "userspace", "reject", "stored", "left-to-userspace", "rejected", "overload",
                "failed", "rule", "rlimit-zero", "repeat", "no-room", "deadline", "kernel-refused", "self",
                "no-context", "abandoned", "error", "age", "size", "per-user",
        };

        CHECK(text && strlen(text) > 0 && text[strlen(text) - 1] == '\n');
        _cleanup_free_ char *copy = strdup(text);
        CHECK(copy);
        for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
                if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0) {
                        const char *name = line + 7;
                        size_t k = strcspn(name, " ");
                        CHECK(prom_name_ok(name, k, false) && name[k] == ' ' && name[k + 1]);
                        struct prom_family *f = NULL;
                        for (size_t i = 0; i < n_fams && !f; i++)
                                if (strlen(fams[i].name) == k && strncmp(fams[i].name, name, k) == 0)
                                        f = &fams[i];
                        if (!f) {
                                CHECK(n_fams < ELEMENTSOF(fams) && k < sizeof fams[0].name);
                                f = &fams[n_fams++];
                                memcpy(f->name, name, k);
                        }
                        if (line[2] == 'H') {
                                CHECK(!f->help && !f->type[0]); /* HELP once, before TYPE */
                                f->help = true;
                        } else {
                                CHECK(!f->type[0]);
                                const char *type = name + k + 1;
                                CHECK(strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0 ||
                                      strcmp(type, "histogram") == 0);
                                snprintf(f->type, sizeof f->type, "%s", type);
                                if (strcmp(type, "counter") == 0)
                                        CHECK(has_suffix_of(f->name, "_total"));
                        }
                        continue;
                }
                CHECK(line[0] != '#');
                /* name{labels} value */
                size_t k = strcspn(line, "{ ");
                CHECK(prom_name_ok(line, k, false));
                struct prom_family *f = NULL;
                const char *suffix = "";
                for (size_t i = 0; i < n_fams && !f; i++) {
                        size_t fl = strlen(fams[i].name);
                        if (k < fl || strncmp(line, fams[i].name, fl) != 0)
                                continue;
                        const char *rest = line + fl;
                        size_t rest_len = k - fl;
                        if (rest_len == 0 && strcmp(fams[i].type, "histogram") != 0)
                                f = &fams[i];
                        else if (strcmp(fams[i].type, "histogram") == 0 &&
                                 ((rest_len == 7 && strncmp(rest, "_bucket", 7) == 0) ||
                                  (rest_len == 4 && strncmp(rest, "_sum", 4) == 0) ||
                                  (rest_len == 6 && strncmp(rest, "_count", 6) == 0))) {
                                f = &fams[i];
                                suffix = rest;
                        }
                }
                CHECK(f && f->help && f->type[0]); /* declared before its samples */
                const char *p = line + k;
                double le = -1;
                bool inf = false;
                if (*p == '{') {
                        p++;
                        while (*p != '}') {
                                size_t ln = strcspn(p, "=");
                                CHECK(prom_name_ok(p, ln, true) && p[ln] == '=' && p[ln + 1] == '"');
                                const char *v = p + ln + 2;
                                size_t vl = strcspn(v, "\"\\\n");
                                CHECK(v[vl] == '"');
                                if (ln == 2 && strncmp(p, "le", 2) == 0) {
                                        CHECK(strncmp(suffix, "_bucket", 7) == 0);
                                        if (vl == 4 && strncmp(v, "+Inf", 4) == 0)
                                                inf = true;
                                        else {
                                                char *end;
                                                le = strtod(v, &end);
                                                CHECK(end == v + vl);
                                        }
                                } else {
                                        bool known = false;
                                        for (size_t i = 0; i < ELEMENTSOF(label_values) && !known; i++)
                                                known = strlen(label_values[i]) == vl && strncmp(label_values[i], v, vl) == 0;
                                        CHECK(known); /* bounded: no crash's own name or number */
                                }
                                p = v + vl + 1;
                                if (*p == ',')
                                        p++;
                                else
                                        CHECK(*p == '}');
                        }
                        p++;
                }
                CHECK(*p == ' ');
                char *end;
                double value = strtod(p + 1, &end);
                CHECK(end != p + 1 && *end == 0 && value >= 0);
                /* No sample twice. */
                size_t id_len = (size_t) (p - line);
                for (size_t i = 0; i < n_seen; i++)
                        CHECK(!(strlen(seen[i]) == id_len && strncmp(seen[i], line, id_len) == 0));
                seen = realloc(seen, (n_seen + 1) * sizeof *seen);
                CHECK(seen && (seen[n_seen++] = strndup(line, id_len)));
                if (strncmp(suffix, "_bucket", 7) == 0) {
                        CHECK(!f->have_inf && (inf || le > f->last_le) && value >= f->last_bucket);
                        f->last_le = le;
                        f->last_bucket = value;
                        if (inf) {
                                f->have_inf = true;
                                f->inf = value;
                        }
                } else if (strcmp(suffix, "_count") == 0)
                        CHECK(f->have_inf && value == f->inf);
                n_samples++;
        }
        for (size_t i = 0; i < n_fams; i++)
                CHECK(fams[i].help && fams[i].type[0] &&
                      (strcmp(fams[i].type, "histogram") != 0 || fams[i].have_inf));
        for (size_t i = 0; i < n_seen; i++)
                free(seen[i]);
        free(seen);
        return n_samples;
}

/* The value of the sample "name{labels}" (exactly as printed), or -1 if there is none. */
static long long prom_value(const char *text, const char *sample) {
        size_t n = strlen(sample);
        for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (strncmp(p, sample, n) == 0 && p[n] == ' ')
                        return strtoll(p + n + 1, NULL, 10);
        return -1;
}

/* A crash the daemon answers with REJECT (no core data follows). */
static void reject_crash(struct test_env *e) {
        struct connection_run run;
        struct coredump_ack ack;

        connection_run_start(&run, &e->env);
        fk_send_request(run.kernel_fd, 16, 16, FULL_MASK);
        CHECK_INT(fk_read_ack(run.kernel_fd, &ack, TIMEOUT_MS), ==, sizeof ack);
        CHECK_INT(ack.mask & (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT), ==, COREDUMP_REJECT);
        fk_send_mark(run.kernel_fd, COREDUMP_MARK_REQACK);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, TIMEOUT_MS), ==, 0);
        connection_run_join(&run);
}

/* After crashes of known outcomes — 2 stored, 2 repeats rejected, 1 rejected by a rule, 1 by
 * builtin:rlimit-zero, all of uid 1000 — dumpctl metrics counts exactly those, in a text that parses
 * as Prometheus' format; the user got a note of each rejected one but the second repeat. */
TEST(metrics_count_known_outcomes) {
        struct test_env e;
        test_env_init(&e, "[Rule]\nName=no\nMatchComm=rejectme\nAction=reject\nWait=no\n\n"
                          "[Rule]\nName=repeater\nMatchComm=crasher\nAction=kernel\nRateLimitBurst=2\nOnRepeat=reject\n",
                      NULL);
        e.env.repeats = repeats_new(e.store->dir_fd);
        e.env.first_seen = first_seen_new(e.store->dir_fd);
        CHECK(e.env.repeats && e.env.first_seen);
        e.env.user_records = true;
        e.peer.uid = e.peer.euid = e.peer.gid = e.peer.egid = 1000;
        user_notes_reset();

        for (int i = 0; i < 2; i++)
                free(store_crash(&e, 16384, true));
        reject_crash(&e);
        reject_crash(&e);
        pid_t rejectme = sleeper_start("rejectme", -1), nocore = sleeper_start("nocore", 0);
        e.peer.pid = rejectme;
        reject_crash(&e);
        e.peer.pid = nocore;
        reject_crash(&e);
        sleeper_stop(rejectme);
        sleeper_stop(nocore);

        CHECK_OK(write_text_file(e.dir, "pattern", "@@/run/coredump.socket\n"));
        _cleanup_free_ char *out = NULL, *bad = NULL, *gone = NULL;
        CHECK_INT(run(&out, "COREDUMPD_CORE_PATTERN_FILE=%s/pattern %s --config=%s/coredumpd.conf --policy-dir=%s "
                      "--store=%s metrics", e.dir, dumpctl(), e.dir, e.policy_dir, e.store_dir), ==, 0);
        CHECK(prom_check(out) > 40);
        CHECK_INT(prom_value(out, "coredumpd_registered"), ==, 1);
        CHECK_INT(prom_value(out, "coredumpd_config_problems"), ==, 0);
        CHECK_INT(prom_value(out, "coredumpd_crashes_total{action=\"kernel\",result=\"stored\",reason=\"none\"}"), ==, 2);
        CHECK_INT(prom_value(out, "coredumpd_crashes_total{action=\"reject\",result=\"rejected\",reason=\"repeat\"}"), ==, 2);
        CHECK_INT(prom_value(out, "coredumpd_crashes_total{action=\"reject\",result=\"rejected\",reason=\"rule\"}"), ==, 1);
        CHECK_INT(prom_value(out, "coredumpd_crashes_total{action=\"reject\",result=\"rejected\",reason=\"rlimit-zero\"}"), ==, 1);
        CHECK_INT(count_lines(strstr(out, "\ncoredumpd_crashes_total{")) , >, 0);
        CHECK_INT(prom_value(out, "coredumpd_cores_stored_total"), ==, 2);
        CHECK(prom_value(out, "coredumpd_core_bytes_stored_total") > 0);
        CHECK_INT(prom_value(out, "coredumpd_signatures_first_seen_total"), ==, 1);
        CHECK_INT(prom_value(out, "coredumpd_ack_latency_seconds_count"), ==, 6);
        CHECK_INT(prom_value(out, "coredumpd_release_latency_seconds_count"), ==, 6);
        CHECK_INT(prom_value(out, "coredumpd_ack_latency_seconds_bucket{le=\"+Inf\"}"), ==, 6);
        CHECK_INT(prom_value(out, "coredumpd_user_notes_total"), ==, 3);
        CHECK_INT(prom_value(out, "coredumpd_user_notes_withheld_total"), ==, 1);
        CHECK_INT(prom_value(out, "coredumpd_store_cores"), ==, 2);
        CHECK_INT(prom_value(out, "coredumpd_vacuumed_cores_total{cause=\"size\"}"), ==, 0);

        /* The user's journal: the two stored copies and three notes, each with its reason. */
        CHECK_INT(record_capture_count(&e.user_records), ==, 5);
        static const char *const reasons[] = { NULL, NULL, "repeat", "rule", "rlimit-zero" };
        for (size_t i = 0; i < 5; i++) {
                _cleanup_free_ char *reason = record_capture_field(&e.user_records, i, "COREDUMPD_REASON");
                _cleanup_free_ char *priority = record_capture_field(&e.user_records, i, "PRIORITY");
                if (reasons[i])
                        CHECK_STR(reason, reasons[i]);
                else
                        CHECK(!reason);
                CHECK_STR(priority, reasons[i] ? "5" : "2");
        }

        /* A line left out of the configuration, a pattern not ours. */
        _cleanup_free_ char *conf = NULL;
        CHECK(asprintf(&conf, "[Coredump]\nStorage=%s\nBogus=1\n", e.store_dir) > 0);
        CHECK_OK(write_text_file(e.dir, "bad.conf", conf));
        CHECK_OK(write_text_file(e.dir, "pattern", "|/lib/systemd/systemd-coredump %P\n"));
        CHECK_INT(run(&bad, "COREDUMPD_CORE_PATTERN_FILE=%s/pattern %s --config=%s/bad.conf --policy-dir=%s "
                      "--store=%s metrics", e.dir, dumpctl(), e.dir, e.policy_dir, e.store_dir), ==, 0);
        prom_check(bad);
        CHECK_INT(prom_value(bad, "coredumpd_registered"), ==, 0);
        CHECK_INT(prom_value(bad, "coredumpd_config_problems"), ==, 1);

        /* -o: the file replaced whole, readable by node-exporter's user. */
        CHECK_INT(run(NULL, "COREDUMPD_CORE_PATTERN_FILE=%s/pattern %s --config=%s/coredumpd.conf --policy-dir=%s "
                      "--store=%s metrics -o %s/coredumpd.prom", e.dir, dumpctl(), e.dir, e.policy_dir, e.store_dir,
                      e.dir), ==, 0);
        _cleanup_free_ char *prom_path = NULL;
        CHECK(asprintf(&prom_path, "%s/coredumpd.prom", e.dir) > 0);
        size_t size;
        _cleanup_free_ char *written = read_whole(prom_path, &size);
        prom_check(written);
        CHECK_INT(prom_value(written, "coredumpd_cores_stored_total"), ==, 2);
        struct stat st;
        CHECK(stat(prom_path, &st) == 0 && (st.st_mode & 07777) == 0644);
        CHECK_INT(run(&gone, "ls %s | grep -c tmp", e.dir), ==, 1); /* no temporary left */

        /* No store (none made yet, or a Storage= not there): every counter 0, no crash's sample. */
        _cleanup_free_ char *nostore = NULL, *noconf = NULL;
        CHECK(asprintf(&noconf, "[Coredump]\nStorage=%s/no-store\n", e.dir) > 0);
        CHECK_OK(write_text_file(e.dir, "no-store.conf", noconf));
        CHECK_INT(run(&nostore, "COREDUMPD_CORE_PATTERN_FILE=%s/pattern %s --config=%s/no-store.conf --policy-dir=%s "
                      "metrics", e.dir, dumpctl(), e.dir, e.policy_dir), ==, 0);
        prom_check(nostore);
        CHECK(!strstr(nostore, "\ncoredumpd_crashes_total{"));
        CHECK_INT(prom_value(nostore, "coredumpd_cores_stored_total"), ==, 0);
        CHECK_INT(prom_value(nostore, "coredumpd_core_bytes_stored_total"), ==, 0);
        CHECK_INT(prom_value(nostore, "coredumpd_ack_latency_seconds_count"), ==, 0);
        CHECK_INT(prom_value(nostore, "coredumpd_user_notes_total"), ==, 0);
        CHECK(!strstr(nostore, "coredumpd_store_cores"));

        e.env.first_seen = first_seen_free(e.env.first_seen);
        e.env.repeats = repeats_free(e.env.repeats);
        test_env_done(&e);
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

        CHECK_INT(run(&table, "COLUMNS=200 %s --no-journal --store=%s list", dumpctl(), e.store_dir), ==, 0);
        CHECK(strstr(table, "TIME") && strstr(table, "COREFILE") && strstr(table, "SEGV") && strstr(table, "builtin:keep"));

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

        /* no such crash: 1, as coredumpctl */
        CHECK_INT(run(NULL, "%s --no-journal --store=%s info 999999999", dumpctl(), e.store_dir), ==, 1);
        CHECK_INT(run(NULL, "%s --no-journal --store=%s list --json nosuchcomm", dumpctl(), e.store_dir), ==, 1);
        test_env_done(&e);
}

/* A crash id is a match of its own (COREDUMPD_CRASH_ID=, kept as user.coredumpd.crash_id). */
TEST(crash_id_is_a_match) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ uint8_t *core = store_crash(&e, 64 << 10, true);
        _cleanup_free_ char *id = record_capture_field(&e.records, 0, "COREDUMPD_CRASH_ID");
        CHECK(id);
        _cleanup_free_ char *other = strdup(id);
        CHECK(other);
        strcpy(strchr(other, '-'), "-i1");
        _cleanup_free_ char *json = NULL, *info = NULL;

        CHECK_INT(run(&json, "%s --no-journal --store=%s list --json %s", dumpctl(), e.store_dir, id), ==, 0);
        CHECK_INT(count_lines(json), ==, 1);
        _cleanup_free_ char *key = NULL;
        CHECK(asprintf(&key, "\"crash_id\":\"%s\"", id) > 0);
        CHECK(strstr(json, key) && strstr(json, "\"container\":null"));
        CHECK_INT(run(NULL, "%s --no-journal --store=%s list %s", dumpctl(), e.store_dir, other), ==, 1);
        CHECK_INT(run(&info, "%s --no-journal --store=%s info COREDUMPD_CRASH_ID=%s", dumpctl(), e.store_dir, id), ==, 0);
        CHECK(strstr(info, id));
        _cleanup_free_ char *line = NULL;
        CHECK(asprintf(&line, "      Crash ID: %s\n", id) > 0);
        CHECK(strstr(info, line));
        CHECK(!strstr(info, "PID Inside:") && !strstr(info, "Container:")); /* same as outside; none */

        /* The hooks' interface: info --json, every documented key in every object (dumpctl(1), JSON OUTPUT
         * OF INFO; more may be added, none removed). */
        CHECK_OK(write_text_file(e.dir, "keys.py",
                                 "import json, sys\n"
                                 "d = json.load(sys.stdin)\n"
                                 "keys = {'time', 'timestamp', 'pid', 'uid', 'gid', 'signal', 'crash_id', 'signature',\n"
                                 "        'signal_name', 'comm', 'exe', 'cmdline', 'unit', 'user_unit', 'slice', 'cgroup',\n"
                                 "        'container', 'hostname', 'boot_id', 'tenant', 'action', 'rule', 'result', 'error',\n"
                                 "        'filename', 'message', 'repeat', 'first_seen', 'core_size', 'disk_size', 'truncated',\n"
                                 "        'present', 'source', 'journal_core', 'backtrace', 'proc_status', 'proc_maps', 'proc_limits'}\n"
                                 "assert len(d) == 1 and keys <= set(d[0]), keys - set(d[0])\n"
                                 "x = d[0]\n"
                                 "assert x['crash_id'] == sys.argv[1] and x['action'] == 'kernel' and x['present'] == 'present', x\n"
                                 "assert x['first_seen'] is False and isinstance(x['pid'], int), x\n"));
        CHECK_INT(run(NULL, "%s --no-journal --store=%s --json=pretty info COREDUMPD_CRASH_ID=%s | python3 %s/keys.py %s",
                      dumpctl(), e.store_dir, id, e.dir, id), ==, 0);
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

/* The captured records as a journal file in dir (journal export format → systemd-journal-remote),
 * as another machine's if machine_id is not NULL. */
static void write_journal_of(struct record_capture *records, const char *dir, const char *machine_id) {
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
                if (machine_id)
                        fprintf(f, "_MACHINE_ID=%s\n", machine_id);
                for (size_t k = 0; k < records->records[i].n; k++) {
                        const char *e = records->records[i].v[k].iov_base;
                        size_t len = records->records[i].v[k].iov_len;
                        const char *eq = memchr(e, '=', len);
                        CHECK(eq);
                        if (!memchr(e, '\n', len) && !memchr(e, 0, len)) {
                                fprintf(f, "%.*s\n", (int) len, e);
                                continue;
                        }
                        /* A value spanning lines, or bytes (the compact core, COREDUMP=): the export
                         * format's binary form. */
                        uint64_t n = len - (size_t) (eq + 1 - e);
                        fprintf(f, "%.*s\n", (int) (eq - e), e);
                        fwrite(&n, sizeof n, 1, f); /* little endian, as the machines we run on */
                        fwrite(eq + 1, 1, n, f);
                        fputc('\n', f);
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

static void write_journal(struct record_capture *records, const char *dir) {
        write_journal_of(records, dir, NULL);
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
        CHECK_INT(run(&one, "%s -D %s --store=%s --until=@1000 list --json", dumpctl(), jdir, e.store_dir), ==, 1);
        CHECK_INT(count_lines(one), ==, 0);

        CHECK_INT(run(&info, "%s -D %s --store=%s --policy-dir=%s info %d", dumpctl(), jdir, e.store_dir,
                      rej.policy_dir, (int) rej.sleeper), ==, 0);
        CHECK(strstr(info, "Action: reject") && strstr(info, "Rule: no-cores") && strstr(info, "Storage: none"));
        CHECK(strstr(info, "Rule Source: ") && strstr(info, "50-test.conf:1"));

        /* a rejected crash has no core: 4; a vacuumed one: 4; no such crash: 1 */
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o /dev/null dump %d", dumpctl(), jdir, e.store_dir, (int) rej.sleeper), ==, 4);
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o /dev/null dump %d", dumpctl(), jdir, e.store_dir, (int) e.sleeper), ==, 0);
        filename = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(unlink(filename) == 0);
        free(json);
        CHECK_INT(run(&json, "%s -D %s --store=%s list --json %d", dumpctl(), jdir, e.store_dir, (int) e.sleeper), ==, 0);
        CHECK(strstr(json, "\"present\":\"missing\""));
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o /dev/null dump %d", dumpctl(), jdir, e.store_dir, (int) e.sleeper), ==, 4);
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o /dev/null dump 999999999", dumpctl(), jdir, e.store_dir), ==, 1);

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
        /* A user in no group who may read this journal file: dumpctl filters by uid (members of adm
         * and systemd-journal see every crash, as coredumpctl shows them). */
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
        /* In systemd-journal: every crash; root's core is not the user's to fetch. */
        struct group *journal_group = getgrnam("systemd-journal");
        if (journal_group) {
                _cleanup_free_ char *seen = NULL, *root_pid = NULL;
                CHECK(asprintf(&root_pid, "\"pid\":%d,", (int) root.sleeper) > 0);
                CHECK_INT(run(&seen, "setpriv --reuid=65534 --regid=65534 --groups=%u %s -D %s --store=%s list --json",
                              (unsigned) journal_group->gr_gid, dumpctl(), jdir, mine.store_dir), ==, 0);
                CHECK_INT(count_lines(seen), ==, 2);
                CHECK(strstr(seen, mine_pid) && strstr(seen, root_pid));
                CHECK(unlink(out) == 0);
                CHECK(run(NULL, "setpriv --reuid=65534 --regid=65534 --groups=%u %s -D %s --store=%s -o %s dump %d",
                          (unsigned) journal_group->gr_gid, dumpctl(), jdir, mine.store_dir, out, (int) root.sleeper) != 0);
                CHECK(access(out, F_OK) < 0);
        }
        test_env_done(&root);
        test_env_done(&mine);
}

/* dumpctl remove: a user removes their own crash's core (through coredumpd-remove, started per
 * connection as root by the socket, here by systemd-socket-activate), never another's — not by
 * dumpctl's match, and not by asking the helper for another's core by name, nor through a symlink
 * planted in the store; root removes any, directly. Records stay: the cores show as missing. */
TEST(remove_own_cores_only) {
        if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) < 0 || access("/usr/bin/systemd-socket-activate", X_OK) < 0 ||
            access(JOURNAL_REMOTE, X_OK) < 0) {
                printf("skipping: needs root, setpriv, systemd-socket-activate and " JOURNAL_REMOTE "\n");
                exit(77);
        }
        struct test_env mine, root;
        test_env_init(&mine, NULL, NULL);
        test_env_init(&root, NULL, NULL);
        CHECK(chmod(mine.dir, 0755) == 0 && chmod(mine.store_dir, 0751) == 0);
        mine.peer.uid = mine.peer.euid = 65534;
        mine.peer.gid = mine.peer.egid = 65534;
        _cleanup_free_ uint8_t *c1 = store_crash(&mine, 65536, true);
        _cleanup_free_ uint8_t *c2 = store_crash(&root, 65536, true);
        struct record_capture all = {};
        struct fields both[2] = { mine.records.records[0], root.records.records[0] };
        all.records = both;
        all.n = 2;
        _cleanup_free_ char *jdir = NULL, *jfile = NULL, *sock = NULL, *out = NULL;
        CHECK(asprintf(&jdir, "%s/journal", mine.dir) > 0 && mkdir(jdir, 0755) == 0);
        write_journal(&all, jdir);
        CHECK(asprintf(&jfile, "%s/system.journal", jdir) > 0 && chmod(jfile, 0644) == 0);
        _cleanup_free_ char *mine_file = record_capture_field(&mine.records, 0, "COREDUMP_FILENAME");
        _cleanup_free_ char *root_src = record_capture_field(&root.records, 0, "COREDUMP_FILENAME");
        const char *root_base = strrchr(root_src, '/') + 1;
        _cleanup_free_ char *root_file = NULL;
        CHECK(asprintf(&root_file, "%s/%s", mine.store_dir, root_base) > 0);
        CHECK_INT(run(NULL, "cp -a %s %s", root_src, root_file), ==, 0);
        /* A symlink in the store, named as a core of nobody's, to a file of nobody's. */
        _cleanup_free_ char *victim = NULL, *link = NULL;
        CHECK(asprintf(&victim, "%s/victim", mine.dir) > 0);
        CHECK_OK(write_text_file(mine.dir, "victim", "keep me\n"));
        CHECK(chown(victim, 65534, 65534) == 0);
        CHECK(asprintf(&link, "%s/core.evil.65534.0123456789abcdef0123456789abcdef.1.1", mine.store_dir) > 0);
        CHECK(symlink(victim, link) == 0);

        /* The helper, as coredumpd-remove.socket runs it: one root process per connection. */
        CHECK(asprintf(&sock, "%s/remove.socket", mine.dir) > 0);
        pid_t helper = fork();
        CHECK(helper >= 0);
        if (helper == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGTERM); /* gone with a failed test */
                execl("/usr/bin/systemd-socket-activate", "systemd-socket-activate", "--accept", "--inetd", "-l", sock,
                      getenv("COREDUMPD_REMOVE_BINARY"), "--store", mine.store_dir, (char *) NULL);
                _exit(127);
        }
        for (int i = 0; i < 500 && access(sock, F_OK) < 0; i++)
                usleep(10000);
        CHECK(access(sock, F_OK) == 0 && chmod(sock, 0666) == 0);

#define AS_NOBODY_R "setpriv --reuid=65534 --regid=65534 --clear-groups env COREDUMPD_REMOVE_SOCKET=%s "
        /* Root's crash: not the user's to see, nor to remove. */
        CHECK_INT(run(NULL, AS_NOBODY_R "%s -D %s --store=%s remove %d", sock, dumpctl(), jdir, mine.store_dir,
                      (int) root.sleeper), ==, 5);
        CHECK(access(root_file, F_OK) == 0);
        /* Asking the helper outright for root's core, and for the symlink: refused there. */
        CHECK_OK(write_text_file(mine.dir, "ask.py",
                                 "import socket, sys\n"
                                 "s = socket.socket(socket.AF_UNIX)\n"
                                 "s.connect(sys.argv[1])\n"
                                 "s.sendall(sys.argv[2].encode() + b'\\n')\n"
                                 "s.shutdown(socket.SHUT_WR)\n"
                                 "print(s.makefile().read().strip())\n"));
        _cleanup_free_ char *answer = NULL, *answer2 = NULL, *answer3 = NULL, *list = NULL;
        CHECK_INT(run(&answer, AS_NOBODY_R "python3 %s/ask.py %s %s", sock, mine.dir, sock, root_base), ==, 0);
        CHECK(strncmp(answer, "-1 ", 3) == 0 && strstr(answer, "another user's"));      /* -EPERM */
        CHECK(access(root_file, F_OK) == 0);
        CHECK_INT(run(&answer2, AS_NOBODY_R "python3 %s/ask.py %s %s", sock, mine.dir, sock, strrchr(link, '/') + 1), ==, 0);
        CHECK(strncmp(answer2, "-40 ", 4) == 0);                                        /* -ELOOP */
        struct stat st;
        CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode) && access(victim, F_OK) == 0);
        CHECK_INT(run(&answer3, AS_NOBODY_R "python3 %s/ask.py %s %s", sock, mine.dir, sock, "../journal/system.journal"), ==, 0);
        CHECK(strncmp(answer3, "-22 ", 4) == 0);                                        /* -EINVAL */

        /* The user's own: removed; its record stays, the core missing. */
        CHECK_INT(run(NULL, AS_NOBODY_R "%s -D %s --store=%s remove %d", sock, dumpctl(), jdir, mine.store_dir,
                      (int) mine.sleeper), ==, 0);
        CHECK(access(mine_file, F_OK) < 0);
        CHECK_INT(run(&list, AS_NOBODY_R "%s -D %s --store=%s list --json=short %d", sock, dumpctl(), jdir, mine.store_dir,
                      (int) mine.sleeper), ==, 0);
        CHECK(strstr(list, "\"present\":\"missing\""));
        /* Again: nothing left to remove. */
        CHECK_INT(run(NULL, AS_NOBODY_R "%s -D %s --store=%s remove %d", sock, dumpctl(), jdir, mine.store_dir,
                      (int) mine.sleeper), ==, 4);
        /* No match: a usage error, not "everything". */
        CHECK_INT(run(NULL, "%s -D %s --store=%s remove", dumpctl(), jdir, mine.store_dir), ==, 2);
        /* Root: any, directly (root's record names its own store: the copy here is found by the store's
         * attributes). */
        CHECK_INT(run(NULL, "%s --no-journal --store=%s remove %d", dumpctl(), mine.store_dir, (int) root.sleeper), ==, 0);
        CHECK(access(root_file, F_OK) < 0);
        kill(helper, SIGTERM);
        waitpid(helper, NULL, 0);
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
        /* dumpctl check on the PATH is the daemon's --check-config --check-policy, to the byte. */
        _cleanup_free_ char *c = NULL, *d = NULL, *conf = NULL;
        CHECK(asprintf(&conf, "%s/coredumpd.conf", e.dir) > 0);
        CHECK_INT(run(&c, "%s --config=%s --policy-dir=%s check 2>/dev/null", dumpctl(), conf, e.policy_dir), ==, 0);
        CHECK_INT(run(&d, "%s --config=%s --policy-dir=%s --check-config --check-policy 2>/dev/null", coredumpd, conf,
                      e.policy_dir), ==, 0);
        CHECK_STR(c, d);
        CHECK(strstr(c, "[Coredump]\n") && strstr(c, "Name=sshd"));
        CHECK_OK(write_text_file(e.policy_dir, "60-bad.conf", "[Rule]\nBogus=1\n"));
        CHECK_INT(run(NULL, "%s --policy-dir=%s policy", dumpctl(), e.policy_dir), ==, 1);
        CHECK_INT(run(NULL, "%s --config=%s --policy-dir=%s check", dumpctl(), conf, e.policy_dir), ==, 1);
        CHECK_INT(run(NULL, "%s --config=%s --policy-dir=%s --check-policy", coredumpd, conf, e.policy_dir), ==, 1);
        test_env_done(&e);
}

static bool have_journal_remote(void);

/* A record of another machine (dumpctl --all reads systemd-journal-remote's files; a journal file
 * may be copied here): the path it names is on that machine. Even where a file of that name is
 * here, dumpctl neither calls it present nor hands it out; a record of this machine naming it is
 * as before. */
TEST(remote_machine_record_is_not_ours) {
        if (!have_journal_remote())
                exit(77);
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ uint8_t *core = store_crash(&e, 65536, true);
        _cleanup_free_ char *stored = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        _cleanup_free_ char *jdir = NULL, *export = NULL, *journal = NULL, *out = NULL, *err = NULL, *local = NULL;
        size_t n;
        CHECK(stored);
        _cleanup_free_ char *machine_id = read_whole("/etc/machine-id", &n);
        CHECK(machine_id && n >= 32);
        local = strndup(machine_id, 32);
        const char *other = strcmp(local, "0123456789abcdef0123456789abcdef") ? "0123456789abcdef0123456789abcdef"
                                                                               : "fedcba9876543210fedcba9876543210";

        CHECK(asprintf(&jdir, "%s/journal", e.dir) > 0 && mkdir(jdir, 0755) == 0);
        CHECK(asprintf(&export, "%s/remote.export", jdir) > 0 && asprintf(&journal, "%s/system.journal", jdir) > 0);
        FILE *f = fopen(export, "we");
        CHECK(f);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        long long now = (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
        const char *boot = "00112233445566778899aabbccddeeff";
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=1\n_BOOT_ID=%s\n_MACHINE_ID=%s\n_UID=0\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=525201\n"
                   "COREDUMP_UID=0\nCOREDUMP_COMM=faraway\nCOREDUMP_HOSTNAME=far\nCOREDUMP_FILENAME=%s\n\n",
                now, boot, other, stored);
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=2\n_BOOT_ID=%s\n_MACHINE_ID=%s\n_UID=0\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=525202\n"
                   "COREDUMP_UID=0\nCOREDUMP_COMM=nearby\nCOREDUMP_FILENAME=%s\n\n",
                now + 1, boot, local, stored);
        fclose(f);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", journal, export), ==, 0);

        CHECK_INT(run(&out, "%s --file=%s --store=%s --json=short list", dumpctl(), journal, e.store_dir), ==, 0);
        CHECK(strstr(out, "\"pid\":525201") && strstr(out, "\"pid\":525202"));
        const char *far = strstr(out, "\"pid\":525201"), *near = strstr(out, "\"pid\":525202");
        const char *far_end = strchr(far, '}'), *near_end = strchr(near, '}');
        const char *far_core = strstr(far, "\"corefile\":\"remote\""), *near_core = strstr(near, "\"corefile\":\"present\"");
        CHECK(far_core && far_core < far_end);
        CHECK(near_core && near_core < near_end);

        _cleanup_free_ char *o = NULL;
        CHECK(asprintf(&o, "%s/out.core", e.dir) > 0);
        CHECK_INT(run(&err, "%s --file=%s --store=%s -o %s dump 525201 2>&1", dumpctl(), journal, e.store_dir, o), ==, 4);
        CHECK(strstr(err, "on the machine that recorded it (far, machine id"));
        struct stat st;
        CHECK(stat(o, &st) < 0);
        CHECK_INT(run(NULL, "%s --file=%s --store=%s -o %s dump 525202", dumpctl(), journal, e.store_dir, o), ==, 0);
        CHECK(stat(o, &st) == 0 && st.st_size == 65536);
        test_env_done(&e);
}

/* dumpctl --all as root, in a mount namespace of its own where /var/log/journal is the test's: this
 * machine's own system journal (/var/log/journal/MACHINE-ID/system.journal) holds the genuine record;
 * a container's linked journal (/var/log/journal/ITS-ID), which the container's root writes byte by
 * byte, holds records claiming this machine's id, one without _UID, one with _UID=0. Neither is
 * trusted: the secret and the stored core they name are never opened, only a compact core they
 * carry is read, and gdb gets it with auto-load off and without the executable they name. The
 * genuine record is read as ever. */
static int run_all(char **ret_out, const char *jroot, const char *command) {
        return run(ret_out, "unshare -m --propagation private sh -c 'mount --bind %s /var/log/journal && "
                            "{ [ ! -d /run/log ] || mount -t tmpfs tmpfs /run/log; } && exec %s'", jroot, command);
}

TEST(all_trusts_only_this_machines_system_journal) {
        if (geteuid() != 0 || !have_journal_remote() || run(NULL, "unshare -m true") != 0) {
                printf("skipping: needs root, unshare -m and " JOURNAL_REMOTE "\n");
                exit(77);
        }
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ uint8_t *core = store_crash(&e, 65536, true);
        _cleanup_free_ char *stored = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(stored);
        size_t n;
        _cleanup_free_ char *machine_id = read_whole("/etc/machine-id", &n);
        CHECK(machine_id && n >= 32);
        machine_id[32] = 0;
        const char *other = strcmp(machine_id, "0123456789abcdef0123456789abcdef") ? "0123456789abcdef0123456789abcdef"
                                                                                  : "fedcba9876543210fedcba9876543210";
        CHECK_OK(write_text_file(e.dir, "secret", "not for the container\n"));
        /* The executable the container's records name: a root-owned copy of /usr/bin/true, its
         * build-id recorded as the crashed one's (what let main's dumpctl hand such a file to gdb). */
        CHECK_INT(run(NULL, "cp /usr/bin/true %s/planted-exe", e.dir), ==, 0);
        char planted_id[41];
        _cleanup_close_ int pfd = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
        CHECK(pfd >= 0);
        CHECK_OK(elf_file_build_id(pfd, planted_id));
        CHECK(planted_id[0]);
        _cleanup_free_ char *jroot = NULL, *local = NULL, *container = NULL, *export = NULL, *journal = NULL,
                            *secret = NULL, *planted = NULL, *out = NULL, *args = NULL, *gdb = NULL, *body = NULL,
                            *cmd = NULL, *json = NULL, *err = NULL, *trace = NULL, *genuine = NULL;
        CHECK(asprintf(&secret, "%s/secret", e.dir) > 0 && asprintf(&planted, "%s/planted-exe", e.dir) > 0);
        CHECK(chmod(planted, 0755) == 0);
        CHECK(asprintf(&jroot, "%s/jroot", e.dir) > 0 && mkdir(jroot, 0755) == 0);
        CHECK(asprintf(&local, "%s/%s", jroot, machine_id) > 0 && mkdir(local, 0755) == 0);
        CHECK(asprintf(&container, "%s/%s", jroot, other) > 0 && mkdir(container, 0755) == 0);
        write_journal_of(&e.records, local, machine_id);

        /* The container root's file: this machine's id, the secret, a stored core, its own exe, and
         * a compact core (an ELF core header is all dumpctl checks). */
        CHECK(asprintf(&export, "%s/forged.export", container) > 0 &&
              asprintf(&journal, "%s/system.journal", container) > 0);
        FILE *f = fopen(export, "we");
        CHECK(f);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        long long now = (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
        const char *boot = "00112233445566778899aabbccddeeff";
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=1\n_BOOT_ID=%s\n_MACHINE_ID=%s\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=515151\n"
                   "COREDUMP_UID=0\nCOREDUMP_COMM=forged\nCOREDUMP_FILENAME=%s\n\n", now, boot, machine_id, secret);
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=2\n_BOOT_ID=%s\n_MACHINE_ID=%s\n_UID=0\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=515152\n"
                   "COREDUMP_UID=0\nCOREDUMP_COMM=forged\nCOREDUMP_FILENAME=%s\n\n", now + 1, boot, machine_id, stored);
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=3\n_BOOT_ID=%s\n_MACHINE_ID=%s\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=515153\n"
                   "COREDUMP_UID=0\nCOREDUMP_COMM=forged\nCOREDUMP_FILENAME=%s\nCOREDUMP_EXE=%s\n"
                   "COREDUMPD_FRAME=0 %s+0x1139 main+0x10 %s\nCOREDUMP\n",
                now + 2, boot, machine_id, stored, planted, planted_id, planted);
        Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT, .e_ehsize = sizeof eh };
        memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = ELFCLASS64;
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        eh.e_ident[EI_VERSION] = EV_CURRENT;
        uint64_t size = sizeof eh;
        fwrite(&size, sizeof size, 1, f);
        fwrite(&eh, sizeof eh, 1, f);
        fputs("\n\n", f);
        fclose(f);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", journal, export), ==, 0);

        /* Listed, neither as present: nothing they name is even looked at. */
        CHECK(asprintf(&cmd, "strace -f -qq -e trace=%%file -o %s/strace.all %s --all --store=%s --json=short list",
                       e.dir, dumpctl(), e.store_dir) > 0);
        CHECK_INT(run_all(&json, jroot, cmd), ==, 0);
        CHECK(asprintf(&genuine, "\"pid\":%d,", (int) e.sleeper) > 0);
        const char *g = strstr(json, genuine), *f1 = strstr(json, "\"pid\":515151"), *f2 = strstr(json, "\"pid\":515152");
        CHECK(g && f1 && f2);
        CHECK(strstr(g, "\"present\":\"present\"") < strchr(g, '}'));
        CHECK(!strstr(f1, "\"present\":\"present\"") || strstr(f1, "\"present\":\"present\"") > strchr(f1, '}'));
        CHECK(!strstr(f2, "\"present\":\"present\"") || strstr(f2, "\"present\":\"present\"") > strchr(f2, '}'));
        _cleanup_free_ char *trace_path = NULL;
        CHECK(asprintf(&trace_path, "%s/strace.all", e.dir) > 0);
        trace = read_whole(trace_path, &n);
        CHECK(trace && !strstr(trace, secret));

        /* dump: not the secret, not the stored core; 4, said why. */
        CHECK(asprintf(&out, "%s/out.core", e.dir) > 0);
        struct stat st;
        free(cmd);
        CHECK(asprintf(&cmd, "%s --all --store=%s -o %s dump 515151 2>&1", dumpctl(), e.store_dir, out) > 0);
        CHECK_INT(run_all(&err, jroot, cmd), ==, 4);
        CHECK(strstr(err, "not from this machine's own system journal"));
        CHECK(stat(out, &st) < 0);
        free(cmd);
        CHECK(asprintf(&cmd, "%s --all --store=%s -o %s dump 515152 2>/dev/null", dumpctl(), e.store_dir, out) > 0);
        CHECK_INT(run_all(NULL, jroot, cmd), ==, 4);
        CHECK(stat(out, &st) < 0);
        /* With a compact core: that, never the stored file it names. */
        free(cmd);
        CHECK(asprintf(&cmd, "%s --all --store=%s -o %s dump 515153", dumpctl(), e.store_dir, out) > 0);
        CHECK_INT(run_all(NULL, jroot, cmd), ==, 0);
        CHECK(stat(out, &st) == 0 && st.st_size == (off_t) sizeof eh);
        CHECK(unlink(out) == 0);

        /* info says whose word it is; nothing it names is looked at. */
        free(cmd);
        CHECK(asprintf(&cmd, "strace -f -qq -e trace=%%file -o %s/strace.info %s --all --store=%s info 515153 2>&1",
                       e.dir, dumpctl(), e.store_dir) > 0);
        _cleanup_free_ char *info = NULL;
        CHECK_INT(run_all(&info, jroot, cmd), ==, 0);
        CHECK(strstr(info, "Source: journal (foreign: not this machine's own system journal; no path it names is opened)"));
        free(trace);
        free(trace_path);
        CHECK(asprintf(&trace_path, "%s/strace.info", e.dir) > 0);
        trace = read_whole(trace_path, &n);
        CHECK(trace && !strstr(trace, planted));

        /* debug (a "gdb" that notes its arguments): auto-load off, not the planted executable (of
         * the build recorded, root's, mode 0755: still not looked at), and said why. */
        CHECK(asprintf(&args, "%s/gdb.args", e.dir) > 0 && asprintf(&gdb, "%s/gdb-fake", e.dir) > 0);
        CHECK(asprintf(&body, "#!/bin/sh\necho \"$*\" > %s\n", args) > 0);
        CHECK_OK(write_text_file(e.dir, "gdb-fake", body));
        CHECK(chmod(gdb, 0755) == 0);
        free(cmd);
        CHECK(asprintf(&cmd, "strace -f -qq -e trace=%%file -o %s/strace.debug %s --all --store=%s --debugger=%s debug 515153 2>&1",
                       e.dir, dumpctl(), e.store_dir, gdb) > 0);
        free(err);
        err = NULL;
        CHECK_INT(run_all(&err, jroot, cmd), ==, 0);
        printf("%s", err);
        CHECK(strstr(err, "named by a foreign record (not from this machine's own system journal"));
        _cleanup_free_ char *got = read_whole(args, &n);
        CHECK(strstr(got, "set auto-load off") && !strstr(got, planted) && strstr(got, " -c "));
        /* and an empty sysroot: no library the compact core names is opened here either */
        CHECK(strstr(got, "set sysroot ") && strstr(got, "/dumpctl-root."));
        free(trace);
        free(trace_path);
        CHECK(asprintf(&trace_path, "%s/strace.debug", e.dir) > 0);
        trace = read_whole(trace_path, &n);
        CHECK(trace && !strstr(trace, planted));

        /* The genuine record: its stored core, gdb as for the caller's own crash. */
        free(cmd);
        CHECK(asprintf(&cmd, "%s --all --store=%s -o %s dump %d", dumpctl(), e.store_dir, out, (int) e.sleeper) > 0);
        CHECK_INT(run_all(NULL, jroot, cmd), ==, 0);
        size_t got_size = 0;
        _cleanup_free_ char *dumped = read_whole(out, &got_size);
        CHECK_INT(got_size, ==, 65536);
        CHECK(memcmp(dumped, core, 65536) == 0);
        free(cmd);
        CHECK(asprintf(&cmd, "%s --all --store=%s --debugger=%s debug %d", dumpctl(), e.store_dir, gdb, (int) e.sleeper) > 0);
        CHECK_INT(run_all(NULL, jroot, cmd), ==, 0);
        free(got);
        got = read_whole(args, &n);
        CHECK(!strstr(got, "set auto-load off") && strstr(got, " -c "));
        /* Without --all, only this machine's files: the container's records are not listed. */
        free(cmd);
        free(json);
        CHECK(asprintf(&cmd, "%s --store=%s --json=short list", dumpctl(), e.store_dir) > 0);
        CHECK_INT(run_all(&json, jroot, cmd), ==, 0);
        CHECK(strstr(json, genuine) && !strstr(json, "515151"));
        test_env_done(&e);
}

/* The compact core in the record (COREDUMP=): listed as there with its size; where the core file
 * is gone, or the record is another machine's (a collector's journal), dump writes it and debug
 * hands it to the debugger in a private temporary file; where the file is here, the file is what
 * they read. A record without one whose file is gone has no core to give. */
TEST(dump_and_debug_fall_back_to_the_journal_core) {
        if (!have_journal_remote())
                exit(77);
        struct test_env e;
        /* root's crash (the test's): its compact core in the system journal's record, opted in as a
         * fleet does. */
        test_env_init(&e, "[Rule]\nName=own\nAction=userspace\nUserspaceDump=all-writable\nJournalCore=system\n", NULL);
        e.env.repeats = repeats_new(e.store->dir_fd);
        CHECK(e.env.repeats);
        _cleanup_free_ uint8_t *unused = store_crash(&e, 8192, false);
        e.env.repeats = repeats_free(e.env.repeats);
        CHECK_INT(record_capture_count(&e.records), ==, 1);
        size_t compact_size = 0;
        _cleanup_free_ void *compact = record_capture_binary(&e.records, 0, "COREDUMP", &compact_size);
        CHECK(compact && compact_size > 0);
        _cleanup_free_ char *stored = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(stored);
        size_t full_size = 0;
        _cleanup_free_ uint8_t *full = read_core_file(stored, &full_size);
        CHECK(full_size != compact_size);

        _cleanup_free_ char *jdir = NULL, *rdir = NULL, *json = NULL, *info = NULL, *out = NULL, *err = NULL,
                            *size_key = NULL, *size_text = NULL, *got_path = NULL, *script = NULL, *body = NULL;
        CHECK(asprintf(&jdir, "%s/journal", e.dir) > 0 && mkdir(jdir, 0755) == 0);
        CHECK(asprintf(&rdir, "%s/remote", e.dir) > 0 && mkdir(rdir, 0755) == 0);
        write_journal(&e.records, jdir);
        CHECK(asprintf(&out, "%s/out.core", e.dir) > 0);
        CHECK(asprintf(&size_key, "\"journal_core\":true,\"journal_core_size\":%zu", compact_size) > 0);
        CHECK(asprintf(&size_text, "compact core in the journal too, %zu bytes", compact_size) > 0);

        /* The file is here: it is what is read; the record's core is said to be there too. */
        CHECK_INT(run(&json, "%s -D %s --store=%s list --json=short", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(json, "\"present\":\"present\"") && strstr(json, size_key));
        CHECK_INT(run(&info, "%s -D %s --store=%s info", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(info, size_text));
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o %s dump", dumpctl(), jdir, e.store_dir, out), ==, 0);
        size_t got_size = 0;
        _cleanup_free_ char *got = read_whole(out, &got_size);
        CHECK_INT(got_size, ==, full_size);
        CHECK(memcmp(got, full, full_size) == 0);
        CHECK(unlink(out) == 0);

        /* Another machine's record (a collector): its path is not this machine's, the record's core is
         * what dumpctl gives. */
        size_t n;
        _cleanup_free_ char *machine_id = read_whole("/etc/machine-id", &n);
        CHECK(machine_id && n >= 32);
        write_journal_of(&e.records, rdir, strncmp(machine_id, "0123456789abcdef", 16) ? "0123456789abcdef0123456789abcdef"
                                                                                       : "fedcba9876543210fedcba9876543210");
        free(json);
        CHECK_INT(run(&json, "%s -D %s --store=%s list --json=short", dumpctl(), rdir, e.store_dir), ==, 0);
        CHECK(strstr(json, "\"present\":\"journal\"") && strstr(json, "\"corefile\":\"journal\"") && strstr(json, size_key));
        CHECK_INT(run(&err, "%s -D %s --store=%s -o %s dump 2>&1", dumpctl(), rdir, e.store_dir, out), ==, 0);
        CHECK(strstr(err, "on the machine that recorded it: the compact core its record carries instead"));
        free(got);
        got = read_whole(out, &got_size);
        CHECK_INT(got_size, ==, compact_size);
        CHECK(memcmp(got, compact, compact_size) == 0);
        CHECK(unlink(out) == 0);

        /* The file removed: list and info say so, dump writes the record's core (to a file, to a
         * pipe), debug hands it over in a 0600 file of its own. */
        CHECK(unlink(stored) == 0);
        free(json);
        CHECK_INT(run(&json, "%s -D %s --store=%s list --json=short", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(json, "\"present\":\"journal\"") && strstr(json, "\"corefile\":\"journal\"") && strstr(json, size_key));
        free(info);
        CHECK_INT(run(&info, "%s -D %s --store=%s info", dumpctl(), jdir, e.store_dir), ==, 0);
        free(size_text);
        CHECK(asprintf(&size_text, "(missing; compact core in the journal, %zu bytes)", compact_size) > 0);
        CHECK(strstr(info, size_text));
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o %s dump", dumpctl(), jdir, e.store_dir, out), ==, 0);
        free(got);
        got = read_whole(out, &got_size);
        CHECK_INT(got_size, ==, compact_size);
        CHECK(memcmp(got, compact, compact_size) == 0);
        CHECK_INT(run(NULL, "%s -D %s --store=%s -q dump | cmp - %s", dumpctl(), jdir, e.store_dir, out), ==, 0);

        CHECK(asprintf(&got_path, "%s/debugged.core", e.dir) > 0);
        CHECK(asprintf(&body, "#!/bin/sh\nfor a; do last=$a; done\nstat -c %%a \"$last\" > %s.mode\ncp \"$last\" %s\n",
                       got_path, got_path) > 0);
        CHECK_OK(write_text_file(e.dir, "debugger", body));
        CHECK(asprintf(&script, "%s/debugger", e.dir) > 0 && chmod(script, 0755) == 0);
        free(err);
        CHECK_INT(run(&err, "%s -D %s --store=%s --debugger=%s debug 2>&1", dumpctl(), jdir, e.store_dir, script), ==, 0);
        CHECK(strstr(err, "core the compact one in its journal record"));
        free(got);
        got = read_whole(got_path, &got_size);
        CHECK_INT(got_size, ==, compact_size);
        CHECK(memcmp(got, compact, compact_size) == 0);
        _cleanup_free_ char *mode_path = NULL, *mode = NULL;
        CHECK(asprintf(&mode_path, "%s.mode", got_path) > 0);
        mode = read_whole(mode_path, &n);
        CHECK_STR(mode, "600\n");

        /* gdb reads it: the crashed thread's stack from the compact core alone. */
        if (access("/usr/bin/gdb", X_OK) == 0) {
                _cleanup_free_ char *bt = NULL;
                CHECK_INT(run(&bt, "%s -D %s --store=%s --debugger-arguments='-batch -ex bt' debug 2>&1", dumpctl(),
                              jdir, e.store_dir), ==, 0);
                CHECK(strstr(bt, "#0 ") && strstr(bt, "sleeper_start"));
        }
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
        size_t n_trace;
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
        /* A name with terminal controls: an ESC sequence retitling the terminal, a C1 CSI. */
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=3\n_BOOT_ID=%s\n_UID=0\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=424245\n"
                   "COREDUMP_UID=0\nCOREDUMP_COMM=ev\x1b]0;pwned\x07il\xc2\x9b" "2J\n\n", now + 2, boot);
        fclose(f);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", journal, export), ==, 0);

        CHECK(asprintf(&out, "%s/out.core", e.dir) > 0);
        /* 4, not present: a foreign record's path outside the store is never looked at, so it is
         * refused before any open (the exit status of entry_open_core()'s -EPERM, 5, is not reached). */
        CHECK_INT(run(NULL, "%s -D %s --store=%s -o %s dump 424243 2>/dev/null", dumpctl(), jdir, e.store_dir, out), ==, 4);
        struct stat st;
        CHECK(stat(out, &st) < 0 || st.st_size == 0);    /* nothing of the secret */
        /* The forged record claims no other machine (no _MACHINE_ID: this one's): its path outside
         * the store is not even looked at — the secret's existence and size are not its to learn. */
        _cleanup_free_ char *listed = NULL;
        CHECK_INT(run(&listed, "strace -f -qq -e trace=%%file -o %s/strace.list %s -D %s --store=%s --json=short list 424243",
                      e.dir, dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(listed, "\"corefile\":\"missing\""));
        _cleanup_free_ char *trace_path = NULL, *trace = NULL, *secret_path = NULL;
        CHECK(asprintf(&trace_path, "%s/strace.list", e.dir) > 0 && asprintf(&secret_path, "%s/secret", e.dir) > 0);
        trace = read_whole(trace_path, &n_trace);
        CHECK(trace && !strstr(trace, secret_path));

        _cleanup_free_ char *shown = NULL;
        CHECK_INT(run(&shown, "%s -D %s --store=%s info 424245 2>&1", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(shown, "424245"));
        CHECK(!strchr(shown, '\x1b') && !strchr(shown, '\x07') && !strstr(shown, "\xc2\x9b"));

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

        /* -o to a FIFO: refused at once, not waiting for a reader; to another user's file: refused,
         * the file untouched. */
        _cleanup_free_ char *fifo = NULL;
        CHECK(asprintf(&fifo, "%s/fifo", e.dir) > 0 && mkfifo(fifo, 0666) == 0);
        CHECK(run(NULL, "timeout 10 %s --no-journal --store=%s -o %s dump crasher 2>/dev/null", dumpctl(), e.store_dir,
                  fifo) == 1);
        CHECK(chown(target, 65534, 65534) == 0);
        CHECK(run(NULL, "%s --no-journal --store=%s -o %s dump crasher 2>/dev/null", dumpctl(), e.store_dir, target) == 1);
        free(kept);
        kept = read_whole(target, &n);
        CHECK_STR(kept, "keep me\n");
        test_env_done(&e);
}

/* A task with a mount namespace of its own named its executable in its own view: dumpctl info says
 * so, and dumpctl debug hands the host's file of that name to the debugger only if its build-id is
 * the one the unwinder read from the task's own mapping. Another user's crash: not a file of
 * another build than the one recorded. */
TEST(debug_own_mount_namespace_checks_the_build_id) {
        if (access(JOURNAL_REMOTE, X_OK) < 0) {
                printf("skipping: needs " JOURNAL_REMOTE "\n");
                exit(77);
        }
        const char *exe = "/usr/bin/true";
        char id[41];
        _cleanup_close_ int efd = open(exe, O_RDONLY | O_CLOEXEC);
        CHECK(efd >= 0);
        CHECK_OK(elf_file_build_id(efd, id));
        CHECK(id[0]);
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ uint8_t *core = store_crash(&e, 65536, true);
        _cleanup_free_ char *stored = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        _cleanup_free_ char *jdir = NULL, *export = NULL, *journal = NULL;
        CHECK(stored);
        CHECK(asprintf(&jdir, "%s/journal", e.dir) > 0 && mkdir(jdir, 0755) == 0);
        CHECK(asprintf(&export, "%s/m.export", jdir) > 0 && asprintf(&journal, "%s/system.journal", jdir) > 0);
        FILE *f = fopen(export, "we");
        CHECK(f);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        long long now = (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
        /* In its own mount namespace, 424250: the build-id matches; 424251: another build; 424252:
         * none recorded. Another user's crash on the host, 424253: the same build; 424254: another. */
        const char *frames[] = { id, "00112233445566778899aabbccddeeff00112233", NULL, id,
                                 "00112233445566778899aabbccddeeff00112233" };
        for (int i = 0; i < 5; i++) {
                fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=%d\n"
                           "_BOOT_ID=0123456789abcdef0123456789abcdef\n_UID=0\n"
                           "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=%d\n"
                           "COREDUMP_UID=%d\nCOREDUMP_COMM=true\nCOREDUMP_FILENAME=%s\nCOREDUMP_EXE=%s\n"
                           "COREDUMPD_OWN_NAMESPACES=%s\n",
                        now + i, i + 1, 424250 + i, i < 3 ? 0 : 1000, stored, exe, i < 3 ? "mnt" : "none");
                if (frames[i])
                        fprintf(f, "COREDUMPD_FRAME=0 %s+0x1139 main+0x10 %s\n", frames[i], exe);
                fprintf(f, "\n");
        }
        fclose(f);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", journal, export), ==, 0);

        _cleanup_free_ char *shown = NULL, *echoed = NULL;
        CHECK_INT(run(&shown, "%s -D %s --store=%s info 424250 2>&1", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(shown, "Executable: /usr/bin/true (in its own mount namespace)"));
        CHECK(asprintf(&echoed, "%s -c", exe) > 0);
        for (int i = 0; i < 3; i++) {
                _cleanup_free_ char *out = NULL;
                CHECK_INT(run(&out, "%s -D %s --store=%s --debugger=/bin/echo debug %d 2>&1", dumpctl(), jdir,
                              e.store_dir, 424250 + i), ==, 0);
                printf("%s\n", out);
                CHECK(strstr(out, "-c "));
                CHECK((strstr(out, echoed) != NULL) == (i == 0));
                CHECK((strstr(out, "own mount namespace") != NULL) == (i != 0));
        }
        /* coredumpctl's $SYSTEMD_DEBUGGER is the debugger when neither --debugger= nor
         * $DUMPCTL_DEBUGGER says. */
        _cleanup_free_ char *env_out = NULL;
        CHECK_INT(run(&env_out, "env -u DUMPCTL_DEBUGGER SYSTEMD_DEBUGGER=/bin/echo %s -D %s --store=%s debug 424250 2>&1",
                      dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(env_out, echoed));
        for (int i = 3; i < 5; i++) {
                _cleanup_free_ char *out = NULL;
                CHECK_INT(run(&out, "%s -D %s --store=%s --debugger=/bin/echo debug %d 2>&1", dumpctl(), jdir,
                              e.store_dir, 424250 + i), ==, 0);
                printf("%s\n", out);
                CHECK((strstr(out, echoed) != NULL) == (i == 3));
                CHECK((strstr(out, "another build") != NULL) == (i == 4));
        }
        test_env_done(&e);
}

/* On a kernel that hands its crashes elsewhere (Debian's own 6.1: no coredump socket, the pattern
 * left alone), "No crash recorded." alone would mislead: dumpctl and --check-config say why. */
TEST(not_the_kernels_handler_is_said) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        CHECK_OK(write_text_file(e.dir, "pattern", "|/usr/share/apport/apport -p%p -s%s -c%c\n"));
        _cleanup_free_ char *out = NULL, *check = NULL, *ours = NULL;
        CHECK_INT(run(&out, "COREDUMPD_CORE_PATTERN_FILE=%s/pattern %s --no-journal --store=%s list 2>&1", e.dir,
                      dumpctl(), e.store_dir), ==, 1);
        CHECK(strstr(out, "No crash recorded."));
        CHECK(strstr(out, "coredumpd is not the kernel's handler: kernel.core_pattern is '|/usr/share/apport/apport"));
        const char *coredumpd = getenv("COREDUMPD_BINARY");
        CHECK(coredumpd);
        CHECK_INT(run(&check, "COREDUMPD_CORE_PATTERN_FILE=%s/pattern %s --config=/dev/null --policy-dir=%s --check-config 2>&1",
                      e.dir, coredumpd, e.policy_dir), ==, 0);
        CHECK(strstr(check, "coredumpd is not the kernel's handler"));
        CHECK_OK(write_text_file(e.dir, "pattern", "@@/run/coredump.socket\n"));
        CHECK_INT(run(&ours, "COREDUMPD_CORE_PATTERN_FILE=%s/pattern %s --no-journal --store=%s list 2>&1", e.dir,
                      dumpctl(), e.store_dir), ==, 1);
        CHECK(!strstr(ours, "not the kernel's handler"));
        test_env_done(&e);
}

/* A collector's journal, as systemd-journal-remote writes it: e->dir/remote/remote-NAME.journal,
 * made by journal_remote_finish() from the export-format records written to the returned file
 * (NAME.export in e->dir). *ret_now: the time now, in µs, for the records' timestamps. */
struct remote_journal {
        char *dir, *export, *journal;
        FILE *f;
};

static long long remote_journal_start(struct test_env *e, const char *name, struct remote_journal *ret) {
        struct timespec rt;
        *ret = (struct remote_journal) {};
        CHECK(asprintf(&ret->dir, "%s/remote", e->dir) > 0 && mkdir(ret->dir, 0755) == 0);
        CHECK(asprintf(&ret->export, "%s/%s.export", e->dir, name) > 0);
        CHECK(asprintf(&ret->journal, "%s/remote-%s.journal", ret->dir, name) > 0);
        ret->f = fopen(ret->export, "we");
        CHECK(ret->f);
        clock_gettime(CLOCK_REALTIME, &rt);
        return (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
}

static void remote_journal_finish(struct remote_journal *r) {
        CHECK(fclose(r->f) == 0);
        r->f = NULL;
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", r->journal, r->export), ==, 0);
}

static void remote_journal_done(struct remote_journal *r) {
        free(r->dir);
        free(r->export);
        free(r->journal);
}

/* On a collector (journals from systemd-journal-remote): one crash site on two machines is one
 * group with two hosts; another site is another group; the newest record's host is named. */
TEST(groups_span_machines) {
        if (!have_journal_remote())
                exit(77);
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ char *json = NULL, *table = NULL;
        struct remote_journal rj;
        long long now = remote_journal_start(&e, "fleet", &rj);
        const char *jdir = rj.dir;
        static const struct { const char *machine, *host, *sig; int pid; } recs[] = {
                { "11111111111111111111111111111111", "alpha", "aaaaaaaaaaaaaaaa", 1001 },
                { "22222222222222222222222222222222", "beta", "aaaaaaaaaaaaaaaa", 1002 },
                { "11111111111111111111111111111111", "alpha", "bbbbbbbbbbbbbbbb", 1003 },
                { "22222222222222222222222222222222", "beta", "aaaaaaaaaaaaaaaa", 1004 },
        };
        for (size_t i = 0; i < ELEMENTSOF(recs); i++)
                fprintf(rj.f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=%zu\n_BOOT_ID=00112233445566778899aabbccddee%02zu\n"
                           "_MACHINE_ID=%s\n_HOSTNAME=%s\n_UID=0\nMESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\n"
                           "COREDUMPD_ACTION=reject\nCOREDUMP_PID=%d\nCOREDUMP_UID=0\nCOREDUMP_COMM=svc\n"
                           "COREDUMP_HOSTNAME=%s\nCOREDUMPD_SIGNATURE=%s\nCOREDUMP_FILENAME=/etc/shadow\n\n",
                        now + (long long) i, i + 1, i, recs[i].machine, recs[i].host, recs[i].pid, recs[i].host,
                        recs[i].sig);
        remote_journal_finish(&rj);

        CHECK_INT(run(&json, "%s -D %s --store=%s groups --json", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK_INT(count_lines(json), ==, 2);
        CHECK(strstr(json, "{\"signature\":\"aaaaaaaaaaaaaaaa\",\"count\":3,\"hosts\":2,"));
        CHECK(strstr(json, "{\"signature\":\"bbbbbbbbbbbbbbbb\",\"count\":1,\"hosts\":1,"));
        const char *a = strstr(json, "aaaaaaaaaaaaaaaa");
        CHECK(a && strstr(a, "\"last_host\":\"beta\"") < strchr(a, '}'));
        CHECK_INT(run(&table, "COLUMNS=200 %s -D %s --store=%s groups", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(table, "HOSTS") && strstr(table, "HOST "));
        const char *row = strstr(table, "aaaaaaaaaaaaaaaa");
        CHECK(row);
        long count = 0, hosts = 0;
        CHECK(sscanf(row, "aaaaaaaaaaaaaaaa %ld %ld", &count, &hosts) == 2);
        CHECK_INT(count, ==, 3);
        CHECK_INT(hosts, ==, 2);
        /* A foreign record's COREDUMP_FILENAME (here /etc/shadow) is data: never opened. */
        _cleanup_free_ char *err = NULL, *o = NULL;
        CHECK(asprintf(&o, "%s/out.core", e.dir) > 0);
        CHECK_INT(run(&err, "%s -D %s --store=%s -o %s dump 1001 2>&1", dumpctl(), jdir, e.store_dir, o), !=, 0);
        struct stat st;
        CHECK(stat(o, &st) < 0);
        remote_journal_done(&rj);
        test_env_done(&e);
}

static size_t count_of(const char *s, const char *needle) {
        size_t n = 0;
        for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
                n++;
        return n;
}

/* A collector's journal holds a crash again each time journal-upload restarts (it resends the last
 * entry), and -D with --file names the same file twice: each crash is listed once, all of them are. */
TEST(each_crash_once_however_often_received) {
        if (!have_journal_remote())
                exit(77);
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ char *json = NULL, *groups = NULL;
        struct remote_journal rj;
        long long now = remote_journal_start(&e, "resent", &rj);
        const char *jdir = rj.dir, *journal = rj.journal;
        enum { CRASHES = 3000 };
        size_t records = 0;
        for (int c = 0; c < CRASHES; c++)
                /* Every third crash arrives twice, every seventh three times. */
                for (int copy = 0; copy < 1 + (c % 3 == 0) + (c % 7 == 0); copy++, records++)
                        fprintf(rj.f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=%zu\n"
                                   "_BOOT_ID=00112233445566778899aabbccddeeff\n_MACHINE_ID=11111111111111111111111111111111\n"
                                   "_HOSTNAME=alpha\n_UID=0\nMESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\n"
                                   "COREDUMPD_ACTION=reject\nCOREDUMP_PID=%d\nCOREDUMP_UID=0\nCOREDUMP_COMM=svc\n"
                                   "COREDUMPD_CRASH_ID=%016x\nCOREDUMPD_SIGNATURE=%s\n\n",
                                now + (long long) records, records + 1, 10000 + c, 0xc0de0000u + (unsigned) c,
                                c % 2 ? "aaaaaaaaaaaaaaaa" : "bbbbbbbbbbbbbbbb");
        remote_journal_finish(&rj);

        CHECK_INT(run(&json, "%s -D %s --store=%s list --json=short", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK_INT(count_of(json, "\"pid\":"), ==, CRASHES);
        for (int c = 0; c < CRASHES; c += 997) {
                _cleanup_free_ char *pid = NULL;
                CHECK(asprintf(&pid, "\"pid\":%d,", 10000 + c) > 0);
                CHECK(strstr(json, pid) && !strstr(strstr(json, pid) + 1, pid));
        }
        /* The same file named twice is still each crash once. */
        free(json);
        json = NULL;
        CHECK_INT(run(&json, "%s --file=%s --file=%s --store=%s list --json=short", dumpctl(), journal, journal,
                      e.store_dir), ==, 0);
        CHECK_INT(count_of(json, "\"pid\":"), ==, CRASHES);
        CHECK_INT(run(&groups, "%s -D %s --store=%s groups --json", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(groups, "{\"signature\":\"aaaaaaaaaaaaaaaa\",\"count\":1500,\"hosts\":1,"));
        CHECK(strstr(groups, "{\"signature\":\"bbbbbbbbbbbbbbbb\",\"count\":1500,\"hosts\":1,"));
        remote_journal_done(&rj);
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
                      e.store_dir), ==, 1);
        test_env_done(&e);
}

/* ---- coredumpctl's hands: a journal of three crashes ---------------------------------------- */

/* Two stored crashes of one process (kernel, builtin:keep), then a rejected one of another (rule
 * no-cores), in a journal directory, oldest first. */
struct jfixture {
        struct test_env e, rej;
        char *jdir, *journal;
        int e_pid, rej_pid;
        char *t_e1;             /* COREDUMP_TIMESTAMP of the second crash */
};

static bool have_journal_remote(void) {
        if (access(JOURNAL_REMOTE, X_OK) == 0)
                return true;
        printf("skipping: needs " JOURNAL_REMOTE "\n");
        return false;
}

static void jfixture_init(struct jfixture *f, const char *rule_name) {
        _cleanup_free_ char *policy = NULL;
        CHECK(asprintf(&policy, "[Rule]\nName=%s\nAction=reject\nWait=no\n", rule_name) > 0);
        test_env_init(&f->e, NULL, NULL);
        test_env_init(&f->rej, policy, NULL);
        free(store_crash(&f->e, 65536, true));
        usleep(2000);
        free(store_crash(&f->e, 65536, true));
        usleep(2000);
        free(store_crash(&f->rej, 65536, false));
        CHECK_INT(record_capture_count(&f->e.records), ==, 2);
        struct fields three[3] = { f->e.records.records[0], f->e.records.records[1], f->rej.records.records[0] };
        struct record_capture all = { .records = three, .n = 3 };
        CHECK(asprintf(&f->jdir, "%s/journal", f->e.dir) > 0 && mkdir(f->jdir, 0755) == 0);
        CHECK(asprintf(&f->journal, "%s/system.journal", f->jdir) > 0);
        write_journal(&all, f->jdir);
        f->e_pid = (int) f->e.sleeper;
        f->rej_pid = (int) f->rej.sleeper;
        f->t_e1 = record_capture_field(&f->e.records, 1, "COREDUMP_TIMESTAMP");
        CHECK(f->t_e1);
}

static void jfixture_done(struct jfixture *f) {
        free(f->jdir);
        free(f->journal);
        free(f->t_e1);
        test_env_done(&f->rej);
        test_env_done(&f->e);
}

/* "dumpctl -D JOURNAL --store=STORE" */
#define DCTL "%s -D %s --store=%s --no-pager"
#define DCTL_ARGS(f) dumpctl(), (f)->jdir, (f)->e.store_dir


/* The widest line, in columns (UTF-8 continuation bytes take none). */
static size_t widest_line(const char *s) {
        size_t widest = 0, w = 0;
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if (*p == '\n') {
                        widest = MAX(widest, w);
                        w = 0;
                } else if ((*p & 0xC0) != 0x80)
                        w++;
        }
        return MAX(widest, w);
}

/* -1, -n N, -r: the newest crashes, in either order. */
TEST(newest_only_and_count) {
        if (!have_journal_remote())
                exit(77);
        struct jfixture f;
        jfixture_init(&f, "no-cores");
        _cleanup_free_ char *one = NULL, *two = NULL, *rev = NULL, *rej = NULL, *e = NULL;
        CHECK(asprintf(&rej, "\"pid\":%d,", f.rej_pid) > 0 && asprintf(&e, "\"pid\":%d,", f.e_pid) > 0);

        CHECK_INT(run(&one, DCTL " -1 list --json", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_lines(one), ==, 1);
        CHECK(strstr(one, rej));
        CHECK_INT(run(&two, DCTL " -n 2 list --json", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_lines(two), ==, 2);
        CHECK(strstr(two, e) && strstr(two, rej) && strstr(two, e) < strstr(two, rej)); /* oldest first */
        CHECK_INT(run(&rev, DCTL " -n 2 -r list --json", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_lines(rev), ==, 2);
        CHECK(strstr(rev, rej) < strstr(rev, e));                                       /* newest first */
        free(two);
        CHECK_INT(run(&two, DCTL " -n 10 list --json", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_lines(two), ==, 3);
        free(two);
        CHECK_INT(run(&two, DCTL " -n 1 list --json %d", DCTL_ARGS(&f), f.e_pid), ==, 0); /* after matching */
        CHECK_INT(count_lines(two), ==, 1);
        CHECK(strstr(two, e));
        CHECK_INT(run(NULL, DCTL " -n 0 list", DCTL_ARGS(&f)), ==, 2);
        CHECK_INT(run(NULL, DCTL " -n many list", DCTL_ARGS(&f)), ==, 2);
        jfixture_done(&f);
}

/* -F FIELD: the values the field takes among the matching crashes, each once, as coredumpctl. */
TEST(field_values_each_once) {
        if (!have_journal_remote())
                exit(77);
        struct jfixture f;
        jfixture_init(&f, "no-cores");
        _cleanup_free_ char *actions = NULL, *pids = NULL, *want = NULL, *rule = NULL, *none = NULL, *lng = NULL;
        CHECK_INT(run(&actions, DCTL " -F COREDUMPD_ACTION", DCTL_ARGS(&f)), ==, 0); /* list is the default */
        CHECK_STR(actions, "kernel\nreject\n");                     /* each value once */
        CHECK_INT(run(&pids, DCTL " -r --field=COREDUMP_PID list", DCTL_ARGS(&f)), ==, 0);
        CHECK(asprintf(&want, "%d\n%d\n", f.rej_pid, f.e_pid) > 0);
        CHECK_STR(pids, want);
        CHECK_INT(run(&rule, DCTL " -1 -F COREDUMPD_RULE list", DCTL_ARGS(&f)), ==, 0);
        CHECK_STR(rule, "no-cores\n");
        CHECK_INT(run(&lng, DCTL " -F COREDUMPD_RULE list COREDUMPD_ACTION=kernel", DCTL_ARGS(&f)), ==, 0);
        CHECK_STR(lng, "builtin:keep\n");
        CHECK_INT(run(&none, DCTL " -F NO_SUCH_FIELD list", DCTL_ARGS(&f)), ==, 0);   /* crashes, no values */
        CHECK_STR(none, "");
        CHECK_INT(run(NULL, DCTL " -F COREDUMP_PID list nosuchcomm", DCTL_ARGS(&f)), ==, 1);
        CHECK_INT(run(NULL, DCTL " -F COREDUMP_PID info", DCTL_ARGS(&f)), ==, 2);
        CHECK_INT(run(NULL, DCTL " -F COREDUMP_PID --json=short list", DCTL_ARGS(&f)), ==, 2);
        jfixture_done(&f);
}

#define JSON_KEYS "'time','timestamp','pid','uid','gid','signal','signal_name','comm','exe','unit','action','rule'," \
                  "'result','reason','filename','boot_id','crash_id','container','core_size','disk_size','truncated','present','source','journal_core','journal_core_size'," \
                  "'recorder','host','sig','corefile','size'"

/* --json=short|pretty: one JSON array of objects with the documented keys, as coredumpctl; bare
 * --json: the old object per line; no match: [] and 1, as in text. */
TEST(json_modes_array_shape_and_exit_codes) {
        if (!have_journal_remote())
                exit(77);
        struct jfixture f;
        jfixture_init(&f, "no-cores");
        CHECK_OK(write_text_file(f.e.dir, "check.py",
                                 "import json, sys\n"
                                 "d = json.load(sys.stdin)\n"
                                 "assert isinstance(d, list), d\n"
                                 "assert len(d) == int(sys.argv[1]), d\n"
                                 "keys = {" JSON_KEYS "}\n"
                                 "assert all(isinstance(x, dict) and set(x) == keys for x in d), d\n"
                                 "if d:\n"
                                 "    assert [x['action'] for x in d][-1] == 'reject', d\n"
                                 "    assert all(isinstance(x['time'], int) and isinstance(x['pid'], int) for x in d), d\n"
                                 "    assert all(isinstance(x['truncated'], bool) for x in d), d\n"
                                 "    assert d[-1]['present'] == 'none' and d[-1]['rule'] == 'no-cores', d\n"));
        _cleanup_free_ char *s = NULL, *p = NULL, *sp = NULL, *lines = NULL, *empty = NULL, *empty_p = NULL,
                            *none = NULL, *table = NULL;

        CHECK_INT(run(&s, DCTL " --json=short list", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_lines(s), ==, 1);
        CHECK(strncmp(s, "[{\"time\":", 9) == 0 && strcmp(s + strlen(s) - 3, "}]\n") == 0);
        CHECK_INT(count_of(s, "},{"), ==, 2);
        CHECK_INT(run(NULL, DCTL " --json=short list | python3 %s/check.py 3", DCTL_ARGS(&f), f.e.dir), ==, 0);

        CHECK_INT(run(&p, DCTL " --json=pretty list", DCTL_ARGS(&f)), ==, 0);
        static const char pretty_start[] = "[\n        {\n                \"time\" : ";
        CHECK(strncmp(p, pretty_start, strlen(pretty_start)) == 0);
        CHECK(strcmp(p + strlen(p) - strlen("\n        }\n]\n"), "\n        }\n]\n") == 0);
        CHECK_INT(run(NULL, DCTL " --json=pretty list | python3 %s/check.py 3", DCTL_ARGS(&f), f.e.dir), ==, 0);
        CHECK_INT(run(NULL, DCTL " --json=pretty -1 list | python3 %s/check.py 1", DCTL_ARGS(&f), f.e.dir), ==, 0);
        CHECK_INT(run(&sp, DCTL " --json short list", DCTL_ARGS(&f)), ==, 0);      /* as coredumpctl takes it */
        CHECK_STR(sp, s);

        /* The deprecated bare --json: one object per line, each valid JSON. */
        CHECK_INT(run(&lines, DCTL " --json list", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_lines(lines), ==, 3);
        CHECK_INT(run(NULL, DCTL " --json list | python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]'",
                      DCTL_ARGS(&f)), ==, 0);

        /* No match: 1 in every form; an empty array where there is an array. */
        CHECK_INT(run(&empty, DCTL " --json=short list nosuchcomm", DCTL_ARGS(&f)), ==, 1);
        CHECK_STR(empty, "[]\n");
        CHECK_INT(run(&empty_p, DCTL " --json=pretty list nosuchcomm", DCTL_ARGS(&f)), ==, 1);
        CHECK_STR(empty_p, "[]\n");
        CHECK_INT(run(NULL, DCTL " --json=pretty list nosuchcomm | python3 %s/check.py 0", DCTL_ARGS(&f), f.e.dir), ==, 0);
        CHECK_INT(run(&none, DCTL " --json list nosuchcomm", DCTL_ARGS(&f)), ==, 1);
        CHECK_STR(none, "");
        CHECK_INT(run(NULL, DCTL " list nosuchcomm", DCTL_ARGS(&f)), ==, 1);
        CHECK_INT(run(NULL, DCTL " --until=@1000 list", DCTL_ARGS(&f)), ==, 1);
        CHECK_INT(run(NULL, DCTL " --json=short --since=tomorrow list", DCTL_ARGS(&f)), ==, 1);

        /* off is the table; other modes and verbs are usage errors. */
        CHECK_INT(run(&table, DCTL " --json=off list", DCTL_ARGS(&f)), ==, 0);
        CHECK(strncmp(table, "TIME ", 5) == 0);
        CHECK_INT(run(NULL, DCTL " --json=long list", DCTL_ARGS(&f)), ==, 2);
        CHECK_INT(run(NULL, DCTL " --json=short policy", DCTL_ARGS(&f)), ==, 2);

        /* info speaks list's JSON (json.c), with its own keys more: signature, repeat, package. */
        _cleanup_free_ char *i = NULL;
        CHECK_INT(run(&i, DCTL " --json=short info %d", DCTL_ARGS(&f), f.e_pid), ==, 0);
        CHECK(i[0] == '[' && count_of(i, "{\"time\":") == 2 && strstr(i, "\"signature\":\"") &&
              strstr(i, "\"repeat\":") && strstr(i, "\"package\":null") && strstr(i, "\"recorder\":\"coredumpd\""));
        CHECK_INT(run(NULL, DCTL " --json=pretty -n 3 info | python3 -c 'import json, sys; d = json.load(sys.stdin); "
                            "assert len(d) == 3 and all(\"backtrace\" in x and \"corefile\" in x for x in d), d'",
                      DCTL_ARGS(&f)), ==, 0);
        _cleanup_free_ char *empty_info = NULL;
        CHECK_INT(run(&empty_info, DCTL " --json=short info nosuchcomm", DCTL_ARGS(&f)), ==, 1);
        CHECK_STR(empty_info, "[]\n");
        CHECK_INT(run(NULL, DCTL " --json=short vacuum", DCTL_ARGS(&f)), ==, 2);
        /* The hooks' interface: one array, the newest crash without a match. */
        CHECK_INT(run(NULL, DCTL " --json=short info | python3 -c 'import json, sys; d = json.load(sys.stdin); "
                            "assert isinstance(d, list) and len(d) == 1 and d[0][\"rule\"] == \"no-cores\", d'",
                      DCTL_ARGS(&f)), ==, 0);

        /* groups speaks the same JSON. */
        _cleanup_free_ char *g = NULL;
        CHECK_INT(run(&g, DCTL " --json=short groups", DCTL_ARGS(&f)), ==, 0);
        CHECK(g[0] == '[' && strstr(g, "\"count\":"));
        CHECK_INT(run(NULL, DCTL " --json=pretty groups | python3 -c 'import json, sys; d = json.load(sys.stdin); "
                            "assert isinstance(d, list) and d and all(\"signature\" in x for x in d)'",
                      DCTL_ARGS(&f)), ==, 0);
        jfixture_done(&f);
}

/* --since/--until take systemd.time(7) specs. */
TEST(since_until_time_specs) {
        if (!have_journal_remote())
                exit(77);
        struct jfixture f;
        jfixture_init(&f, "no-cores");
        static const struct {
                const char *spec;
                int status;
                size_t n;
        } cases[] = {
                { "--since=-1h", 0, 3 },
                { "--since='2 hours ago' --until=now", 0, 3 },
                { "--since='1h 30min ago'", 0, 3 },
                { "--since=yesterday", 0, 3 },
                { "-S today", 0, 3 },
                { "--since=+1h", 1, 0 },
                { "--since=tomorrow", 1, 0 },
                { "--until=yesterday", 1, 0 },
                { "--until='2 days ago'", 1, 0 },
                { "--until='1970-01-02 00:00 UTC'", 1, 0 },
                { "--since='1970-01-02 00:00:00 UTC'", 0, 3 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *out = NULL;
                CHECK_INT(run(&out, DCTL " %s --no-legend list", DCTL_ARGS(&f), cases[i].spec), ==, cases[i].status);
                CHECK_INT(count_lines(out), ==, cases[i].n);
        }
        /* To the microsecond, from the second crash on. */
        _cleanup_free_ char *out = NULL, *at = NULL, *before = NULL;
        unsigned long long t = strtoull(f.t_e1, NULL, 10);
        CHECK(asprintf(&at, "@%llu.%06llu", t / 1000000, t % 1000000) > 0);
        CHECK_INT(run(&out, DCTL " --since=%s -F COREDUMPD_ACTION", DCTL_ARGS(&f), at), ==, 0);
        CHECK_STR(out, "kernel\nreject\n");
        free(out);
        CHECK_INT(run(&out, DCTL " --until=%s --no-legend list", DCTL_ARGS(&f), at), ==, 0);
        CHECK_INT(count_lines(out), ==, 2);                     /* both kernel crashes, up to that one */
        CHECK(!strstr(out, "reject"));
        CHECK_INT(run(NULL, DCTL " --since='yesterday-ish' list", DCTL_ARGS(&f)), ==, 2);
        CHECK_INT(run(NULL, DCTL " --since='2024-02-30' list", DCTL_ARGS(&f)), ==, 2);
        CHECK_INT(run(NULL, DCTL " --since=now --until=yesterday list", DCTL_ARGS(&f)), ==, 2);
        jfixture_done(&f);
}

/* info without a match: the newest crash only, as coredumpctl; its time relative to now. */
TEST(info_newest_and_relative_time) {
        if (!have_journal_remote())
                exit(77);
        struct jfixture f;
        jfixture_init(&f, "no-cores");
        _cleanup_free_ char *one = NULL, *two = NULL, *all = NULL, *pid = NULL;
        CHECK_INT(run(&one, DCTL " --policy-dir=%s info", DCTL_ARGS(&f), f.rej.policy_dir), ==, 0);
        CHECK_INT(count_of(one, "           PID: "), ==, 1);
        CHECK(asprintf(&pid, "PID: %d (crasher)", f.rej_pid) > 0);
        CHECK(strstr(one, pid) && strstr(one, "Rule: no-cores"));
        CHECK(strstr(one, " ago)\n") || strstr(one, " (now)\n"));
        CHECK(!strstr(one, "\x1b["));                           /* no colours into a pipe */
        CHECK_INT(run(&two, DCTL " -n 2 info", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_of(two, "           PID: "), ==, 2);
        CHECK_INT(run(&all, DCTL " info %d", DCTL_ARGS(&f), f.e_pid), ==, 0); /* a match: every matching one */
        CHECK_INT(count_of(all, "           PID: "), ==, 2);
        /* The kept crash's /proc texts among its fields, each of their lines in the column. */
        CHECK(strstr(all, "\n                COREDUMP_PROC_STATUS=Name:\t"));
        CHECK(strstr(all, "\n                COREDUMP_PROC_LIMITS=Limit "));
        CHECK(strstr(all, "\n                    Max core file size "));
        CHECK(strstr(all, "\n                COREDUMP_PROC_MAPS="));
        CHECK_INT(run(NULL, DCTL " info nosuchcomm", DCTL_ARGS(&f)), ==, 1);
        jfixture_done(&f);
}

/* list fits 80 columns (EXE and RULE cut with an ellipsis), or $COLUMNS; SIZE is the core's size. */
TEST(list_fits_the_width) {
        if (!have_journal_remote())
                exit(77);
        struct jfixture f;
        jfixture_init(&f, "a-rather-long-rule-name-that-would-not-fit-in-any-table");
        _cleanup_free_ char *narrow = NULL, *wide = NULL, *ascii = NULL;
        CHECK_INT(run(&narrow, "env -u COLUMNS LC_ALL=C.UTF-8 " DCTL " list", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_lines(narrow), ==, 4);
        CHECK_INT(widest_line(narrow), <=, 80);
        CHECK(strncmp(narrow, "TIME ", 5) == 0 && strstr(narrow, " SIZE COREFILE EXE\n"));
        CHECK(strstr(narrow, "\u2026") && strstr(narrow, "a-rather"));   /* cut, with an ellipsis */
        CHECK(strstr(narrow, "\u2026") && !strstr(narrow, "build-tests/tests/test-dumpctl\n"));
        CHECK(strstr(narrow, " 64.0K present "));                      /* the core's size, uncompressed */
        CHECK(strstr(narrow, " - none "));                             /* none kept, no size */
        CHECK_INT(run(&ascii, "env -u COLUMNS LC_ALL=C LANG=C " DCTL " list", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(widest_line(ascii), <=, 80);
        CHECK(strstr(ascii, "...") && !strstr(ascii, "\u2026"));
        CHECK_INT(run(&wide, "COLUMNS=250 " DCTL " list", DCTL_ARGS(&f)), ==, 0);
        CHECK(strstr(wide, "a-rather-long-rule-name-that-would-not-fit-in-any-table"));
        CHECK(strstr(wide, "/test-dumpctl\n"));
        CHECK_INT(widest_line(wide), >, 80);
        jfixture_done(&f);
}

/* Exit statuses of the sources: a bad -D, --file=, --config= or --store= is an error (1) with a
 * message; --file= reads one journal file, globs allowed. -q silences the notices. */
TEST(sources_errors_and_quiet) {
        if (!have_journal_remote())
                exit(77);
        struct jfixture f;
        jfixture_init(&f, "no-cores");
        _cleanup_free_ char *out = NULL, *err = NULL, *quiet = NULL, *glob = NULL, *d = NULL, *conf = NULL;

        CHECK_INT(run(&out, "%s --file=%s --store=%s -F COREDUMPD_ACTION", dumpctl(), f.journal, f.e.store_dir), ==, 0);
        CHECK_STR(out, "kernel\nreject\n");
        CHECK_INT(run(&glob, "%s --file='%s/*.journal' --store=%s -1 -F COREDUMPD_ACTION", dumpctl(), f.jdir,
                      f.e.store_dir), ==, 0);
        CHECK_STR(glob, "reject\n");

        CHECK_INT(run(&err, "%s -D %s/nonexistent --store=%s list 2>&1", dumpctl(), f.e.dir, f.e.store_dir), ==, 1);
        CHECK(strstr(err, "Cannot read the journal directory -D"));
        CHECK_INT(run(NULL, "%s -D %s --store=%s list", dumpctl(), f.journal, f.e.store_dir), ==, 1); /* a file */
        CHECK_INT(run(NULL, "%s --file=%s/nonexistent.journal --store=%s list", dumpctl(), f.jdir, f.e.store_dir), ==, 1);
        CHECK_INT(run(NULL, "%s --file=%s --store=%s list", dumpctl(), f.jdir, f.e.store_dir), ==, 1);  /* a directory */
        CHECK_INT(run(NULL, "%s --file='%s/*.nothing' --store=%s list", dumpctl(), f.jdir, f.e.store_dir), ==, 1);
        CHECK_INT(run(NULL, DCTL " --file=%s list", DCTL_ARGS(&f), f.journal), ==, 2);       /* -D and --file */
        CHECK_INT(run(NULL, "%s --no-journal --file=%s list", dumpctl(), f.journal), ==, 2);

        free(err);
        CHECK_INT(run(&err, "%s -D %s --store=%s/nonexistent list 2>&1", dumpctl(), f.jdir, f.e.dir), ==, 1);
        CHECK(strstr(err, "Cannot use the store --store="));
        CHECK_INT(run(NULL, "%s -D %s --store=%s list", dumpctl(), f.jdir, f.journal), ==, 1);      /* a file */
        free(err);
        CHECK_INT(run(&err, "%s -D %s --config=%s/nonexistent.conf list 2>&1", dumpctl(), f.jdir, f.e.dir), ==, 1);
        CHECK(strstr(err, "nonexistent.conf: cannot open"));
        CHECK_OK(write_text_file(f.e.dir, "bad.conf", "[Coredump]\nMaxUze=1G\nCompress=lz4\n"));
        free(err);
        /* A wrong line: list goes on with the rest (as the daemon does) and points at check, which
         * names every wrong line at its file:line, prints what is in force and exits 1. */
        CHECK_INT(run(&err, "%s -D %s --config=%s/bad.conf list 2>&1", dumpctl(), f.jdir, f.e.dir), ==, 0);
        CHECK(strstr(err, "see dumpctl check") && !strstr(err, "MaxUze"));
        free(err);
        free(out);
        out = NULL;
        CHECK_INT(run(&err, "%s --config=%s/bad.conf --policy-dir=%s check 2>&1 >/dev/null", dumpctl(), f.e.dir,
                      f.e.policy_dir), ==, 1);
        CHECK(strstr(err, "bad.conf:2: unknown key 'MaxUze' in [Coredump], ignored (hint: did you mean MaxUse=?)"));
        CHECK(strstr(err, "bad.conf:3: invalid Compress= 'lz4', expected zstd or none, ignored"));
        CHECK(strstr(err, "2 problems found"));
        CHECK_INT(run(&out, "%s --config=%s/bad.conf --policy-dir=%s check 2>/dev/null", dumpctl(), f.e.dir,
                      f.e.policy_dir), ==, 1);
        CHECK(strstr(out, "[Coredump]\n") && strstr(out, "\nCompress=zstd\n") && strstr(out, "\nMaxAgeSec=3d\n"));
        CHECK(strstr(out, "\n[Rule]\nName=builtin:rlimit-zero\n"));
        /* A wrong rule: left out, the check fails; fixed, it passes. */
        CHECK_OK(write_text_file(f.e.dir, "good.conf", "[Coredump]\nMaxAge=1w\n"));
        CHECK_OK(write_text_file(f.e.policy_dir, "60-typo.conf", "[Rule]\nName=typo\nMatchExe=/x\nActon=reject\n"));
        free(err);
        CHECK_INT(run(&err, "%s --config=%s/good.conf --policy-dir=%s check 2>&1 >/dev/null", dumpctl(), f.e.dir,
                      f.e.policy_dir), ==, 1);
        CHECK(strstr(err, "60-typo.conf:4: unknown key 'Acton' in [Rule] (hint: did you mean Action=?)"));
        CHECK(strstr(err, "60-typo.conf:1: rule 'typo' ignored for its errors"));
        _cleanup_free_ char *typo = NULL;
        CHECK(asprintf(&typo, "%s/60-typo.conf", f.e.policy_dir) > 0 && unlink(typo) == 0);
        free(out);
        CHECK_INT(run(&out, "%s --config=%s/good.conf --policy-dir=%s check 2>/dev/null", dumpctl(), f.e.dir,
                      f.e.policy_dir), ==, 0);
        CHECK(strstr(out, "\nMaxAgeSec=7d\n"));
        /* --all is every journal file of the system's; -D, --file= and --no-journal say otherwise. */
        CHECK_INT(run(NULL, "%s --all -D %s list 2>/dev/null", dumpctl(), f.jdir), ==, 2);
        CHECK_INT(run(NULL, "%s --all --file=%s list 2>/dev/null", dumpctl(), f.journal), ==, 2);
        CHECK_INT(run(NULL, "%s --all --no-journal list 2>/dev/null", dumpctl()), ==, 2);
        CHECK_INT(run(NULL, "%s --merge -D %s list 2>/dev/null", dumpctl(), f.jdir), ==, 2);   /* journalctl's name */

        /* The store from a drop-in (--config-dir=) over the main file. */
        CHECK(asprintf(&d, "%s/conf.d", f.e.dir) > 0 && mkdir(d, 0755) == 0);
        CHECK(asprintf(&conf, "[Coredump]\nStorage=%s\n", f.e.store_dir) > 0);
        CHECK_OK(write_text_file(d, "50-store.conf", conf));
        CHECK_OK(write_text_file(f.e.dir, "main.conf", "[Coredump]\nStorage=/nonexistent\n"));
        free(out);
        CHECK_INT(run(&out, "%s -D %s --config=%s/main.conf --config-dir=%s -1 -F COREDUMPD_RESULT list %d", dumpctl(), f.jdir,
                      f.e.dir, d, f.e_pid), ==, 0);
        CHECK_STR(out, "stored\n");
        free(out);
        CHECK_INT(run(&out, "%s -D %s --config=%s/main.conf --config-dir=%s -o /dev/null dump %d", dumpctl(), f.jdir,
                      f.e.dir, d, f.e_pid), ==, 0);

        /* -q: no notice for no match; the status stays. */
        free(err);
        CHECK_INT(run(&err, DCTL " list nosuchcomm 2>&1", DCTL_ARGS(&f)), ==, 1);
        CHECK(strstr(err, "No matching crash"));
        CHECK_INT(run(&quiet, DCTL " -q list nosuchcomm 2>&1", DCTL_ARGS(&f)), ==, 1);
        CHECK_STR(quiet, "");
        free(quiet);
        CHECK_INT(run(&quiet, DCTL " --quiet info nosuchcomm 2>&1", DCTL_ARGS(&f)), ==, 1);
        CHECK_STR(quiet, "");
        jfixture_done(&f);
}

/* Under -D or --file= on a collector, a journal file that is garbage, cut short or empty (an upload
 * gone wrong, a disk that filled up) is named once with why, and the readable files are still
 * listed; --file= with nothing readable is an error naming each file. */
TEST(unreadable_journal_files_are_named) {
        if (!have_journal_remote())
                exit(77);
        struct jfixture f;
        jfixture_init(&f, "no-cores");
        _cleanup_free_ char *garbage = NULL, *cut = NULL, *empty = NULL, *out = NULL, *err = NULL, *only = NULL;
        CHECK(asprintf(&garbage, "%s/remote-garbage.journal", f.jdir) > 0);
        CHECK(asprintf(&cut, "%s/remote-cut.journal~", f.jdir) > 0);
        CHECK(asprintf(&empty, "%s/remote-empty.journal", f.jdir) > 0);
        CHECK_INT(run(NULL, "head -c 65536 /dev/urandom >%s && head -c 3000 %s >%s && : >%s", garbage, f.journal, cut,
                      empty), ==, 0);

        CHECK_INT(run(&out, DCTL " list --json 2>/dev/null", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_lines(out), ==, 3);
        CHECK_INT(run(&err, DCTL " list 2>&1 >/dev/null", DCTL_ARGS(&f)), ==, 0);
        CHECK_INT(count_lines(err), ==, 3); /* one line for each, nothing else */
        CHECK(strstr(err, "remote-garbage.journal cannot be read (corrupt: "));
        CHECK(strstr(err, "remote-cut.journal~ cannot be read (empty or cut short: "));
        CHECK(strstr(err, "remote-empty.journal cannot be read (empty or cut short: "));
        CHECK_INT(count_of(err, "ignored."), ==, 3);
        CHECK(!strstr(err, "system.journal"));

        /* --file=: the bad ones are left out, the good one read; none good is an error. */
        free(out);
        CHECK_INT(run(&out, "%s --file='%s/*.journal*' --store=%s -F COREDUMPD_ACTION 2>/dev/null", dumpctl(), f.jdir,
                      f.e.store_dir), ==, 0);
        CHECK_STR(out, "kernel\nreject\n");
        CHECK_INT(run(&only, "%s --file=%s --file=%s --store=%s list 2>&1", dumpctl(), garbage, empty, f.e.store_dir), ==, 1);
        CHECK(strstr(only, "remote-garbage.journal cannot be read") && strstr(only, "remote-empty.journal cannot be read"));
        CHECK(strstr(only, "Cannot open the journal files: none of them can be read."));
        /* -D of nothing readable: the files are named, then no crash (1); the rejected crash was
         * in the journal only (the stored ones are still listed from the store). */
        CHECK_INT(unlink(f.journal), ==, 0);
        free(err);
        CHECK_INT(run(&err, DCTL " list COREDUMPD_ACTION=reject 2>&1", DCTL_ARGS(&f)), ==, 1);
        CHECK(strstr(err, "remote-garbage.journal cannot be read") && strstr(err, "No matching crash"));
        jfixture_done(&f);
}

/* On a terminal (a pty from script(1)): a pager as systemd's tools use one, colours; neither into a
 * pipe, nor with --no-pager, $SYSTEMD_COLORS=0 or $NO_COLOR. */
TEST(pager_and_colours_on_a_terminal) {
        if (!have_journal_remote())
                exit(77);
        if (access("/usr/bin/script", X_OK) < 0) {
                printf("skipping: needs script(1)\n");
                exit(77);
        }
        struct jfixture f;
        jfixture_init(&f, "no-cores");
        _cleanup_free_ char *pager = NULL, *out = NULL;
        CHECK_OK(write_text_file(f.e.dir, "pager", "#!/bin/sh\necho \"PAGER LESS=$LESS LESSSECURE=$LESSSECURE\"\nsed 's/^/paged: /'\n"));
        CHECK(asprintf(&pager, "%s/pager", f.e.dir) > 0 && chmod(pager, 0755) == 0);
#define ON_TTY(env, opts) "env -u SYSTEMD_COLORS -u NO_COLOR -u SYSTEMD_PAGER -u SYSTEMD_LESS -u SYSTEMD_PAGERSECURE -u SUDO_UID " \
                          env " script -qec \"%s -D %s --store=%s " opts " list\" /dev/null"
        CHECK_INT(run(&out, ON_TTY("PAGER=%s", ""), pager, DCTL_ARGS(&f)), ==, 0);
        CHECK(strstr(out, "PAGER LESS=FRSXMK LESSSECURE="));
        CHECK(strstr(out, "paged: ") && strstr(out, "\x1b[4mTIME "));          /* paged, with colours */
        free(out);
        CHECK_INT(run(&out, ON_TTY("PAGER=/bin/false SYSTEMD_PAGER=%s SYSTEMD_LESS=XR SYSTEMD_PAGERSECURE=1", ""), pager,
                      DCTL_ARGS(&f)), ==, 0);
        CHECK(strstr(out, "PAGER LESS=XR LESSSECURE=1") && strstr(out, "paged: "));
        free(out);
        CHECK_INT(run(&out, ON_TTY("PAGER=%s", "--no-pager"), pager, DCTL_ARGS(&f)), ==, 0);
        CHECK(!strstr(out, "paged: ") && strstr(out, "\x1b[4mTIME "));
        free(out);
        CHECK_INT(run(&out, ON_TTY("PAGER=cat NO_COLOR=1", ""), DCTL_ARGS(&f)), ==, 0);
        CHECK(strstr(out, "TIME") && !strstr(out, "\x1b[") && !strstr(out, "paged: "));
        free(out);
        CHECK_INT(run(&out, ON_TTY("PAGER= SYSTEMD_COLORS=0", ""), DCTL_ARGS(&f)), ==, 0);
        CHECK(strstr(out, "TIME") && !strstr(out, "\x1b["));
        free(out);
        CHECK_INT(run(&out, ON_TTY("PAGER=cat TERM=dumb", ""), DCTL_ARGS(&f)), ==, 0);
        CHECK(!strstr(out, "\x1b["));
        free(out);
        /* A pipe: no pager, no colours, unless $SYSTEMD_COLORS asks for them. */
        CHECK_INT(run(&out, "PAGER=%s " DCTL " list", pager, DCTL_ARGS(&f)), ==, 0);
        CHECK(!strstr(out, "paged: ") && !strstr(out, "\x1b["));
        free(out);
        CHECK_INT(run(&out, "SYSTEMD_COLORS=1 NO_COLOR=1 " DCTL " list", DCTL_ARGS(&f)), ==, 0);
        CHECK(strstr(out, "\x1b[4mTIME ") && strstr(out, " EXE\x1b[0m\n") && strstr(out, "\x1b[0;32mpresent"));
        jfixture_done(&f);
}


/* A container's crash: dumpctl debug hands the debugger a temporary sysroot with the kept copy at
 * its in-container path, links to the host's identical files, the kept executable (never the
 * host's file of that name), auto-loading off; and removes it afterwards. */
TEST(debug_container_crash_gets_a_sysroot) {
        if (access(JOURNAL_REMOTE, X_OK) < 0 || geteuid() != 0) {
                printf("skipping: needs " JOURNAL_REMOTE " and root\n");
                exit(77);
        }
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ uint8_t *core = store_crash(&e, 65536, true);
        _cleanup_free_ char *stored = record_capture_field(&e.records, 0, "COREDUMP_FILENAME");
        CHECK(stored);
        const char *core_name = strrchr(stored, '/') + 1;
        _cleanup_free_ char *kept_name = store_attachment_name(core_name, 0), *kept = NULL;
        CHECK(kept_name && asprintf(&kept, "%s/%s", e.store_dir, kept_name) > 0);
        CHECK_OK(write_text_file(e.store_dir, kept_name, "the container's program\n"));
        CHECK(chmod(kept, 0640) == 0);

        _cleanup_free_ char *jdir = NULL, *export = NULL, *journal = NULL, *out = NULL, *fake = NULL, *tmp = NULL;
        CHECK(asprintf(&jdir, "%s/journal", e.dir) > 0 && mkdir(jdir, 0755) == 0);
        CHECK(asprintf(&tmp, "%s/tmp", e.dir) > 0 && mkdir(tmp, 0700) == 0);
        CHECK(asprintf(&export, "%s/c.export", jdir) > 0 && asprintf(&journal, "%s/system.journal", jdir) > 0);
        FILE *f = fopen(export, "we");
        CHECK(f);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        long long now = (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000;
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=1\n_BOOT_ID=0123456789abcdef0123456789abcdef\n"
                   "_UID=0\nMESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=kernel\nCOREDUMP_PID=424245\n"
                   "COREDUMP_UID=0\nCOREDUMP_COMM=ctcrash\nCOREDUMP_FILENAME=%s\nCOREDUMP_EXE=/opt/ctnothere/bin/ctcrash\n"
                   "COREDUMPD_SAVED_FILE=0123abcd %s /opt/ctnothere/bin/ctcrash\n"
                   "COREDUMPD_SAVED_FILE=- host /bin/sh\n"
                   "COREDUMPD_SAVED_FILE=- - /opt/ctnothere/lib/libbig.so\n\n",
                now, stored, kept_name);
        fclose(f);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", journal, export), ==, 0);

        /* A "gdb" that shows its arguments and what the sysroot holds. */
        CHECK(asprintf(&fake, "%s/gdb-fake", e.dir) > 0);
        CHECK_OK(write_text_file(e.dir, "gdb-fake",
                                 "#!/bin/sh\nfor a; do echo \"ARG:$a\"; done\n"
                                 "root=$(printf '%s\\n' \"$@\" | sed -n 's/^set sysroot //p')\n"
                                 "echo \"EXE-LINK:$(readlink \"$root/opt/ctnothere/bin/ctcrash\")\"\n"
                                 "echo \"SH-LINK:$(readlink \"$root/bin/sh\")\"\n"
                                 "test -e \"$root/opt/ctnothere/lib/libbig.so\" && echo LIBBIG-THERE\n"
                                 "cat \"$root/opt/ctnothere/bin/ctcrash\" 2>/dev/null\nexit 0\n"));
        CHECK(chmod(fake, 0755) == 0);
        CHECK_INT(run(&out, "TMPDIR=%s %s -D %s --store=%s --debugger=%s debug 424245 2>&1", tmp, dumpctl(), jdir,
                      e.store_dir, fake), ==, 0);
        printf("%s\n", out);
        CHECK(strstr(out, "ARG:set auto-load off"));
        CHECK(strstr(out, "ARG:set sysroot "));
        CHECK(strstr(out, "ARG:set solib-search-path "));
        _cleanup_free_ char *exe_link = NULL;
        CHECK(asprintf(&exe_link, "EXE-LINK:%s\n", kept) > 0);
        CHECK(strstr(out, exe_link));                           /* the kept copy at its path */
        CHECK(strstr(out, "SH-LINK:/bin/sh\n"));                /* the host's, where it was the same */
        CHECK(!strstr(out, "LIBBIG-THERE"));
        CHECK(strstr(out, "was not kept"));
        CHECK(strstr(out, "the container's program"));
        CHECK(strstr(out, "/opt/ctnothere/bin/ctcrash\nARG:-c\n")); /* the executable: in the sysroot */
        CHECK(!strstr(out, "ARG:/opt/ctnothere/bin/ctcrash\n"));
        _cleanup_free_ char *left = NULL;
        CHECK_INT(run(&left, "ls -A %s", tmp), ==, 0);
        CHECK_STR(left, "");                                    /* the sysroot is gone */

        /* A kept copy others may write is not handed over from a journal anybody may have written. */
        CHECK(chmod(kept, 0666) == 0);
        free(out);
        out = NULL;
        CHECK_INT(run(&out, "TMPDIR=%s %s -D %s --store=%s --debugger=%s debug 424245 2>&1", tmp, dumpctl(), jdir,
                      e.store_dir, fake), ==, 0);
        CHECK(strstr(out, "EXE-LINK:\n"));
        CHECK(!strstr(out, "the container's program"));
        test_env_done(&e);
}

/* ---- symbols from debuginfod ----------------------------------------------------------------- */

#define DEBUGINFOD "/usr/bin/debuginfod"

/* The HTTP status of GET path from 127.0.0.1:port, or -1 (nothing listens, no answer). */
static int http_status(int port, const char *path) {
        _cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        struct timeval tv = { .tv_sec = 2 };
        char buf[64] = "";
        CHECK(fd >= 0);
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (connect(fd, (struct sockaddr *) &a, sizeof a) < 0)
                return -1;
        dprintf(fd, "GET %s HTTP/1.0\r\n\r\n", path);
        ssize_t n = read(fd, buf, sizeof buf - 1);
        int status;
        if (n <= 0 || sscanf(buf, "HTTP/%*s %d", &status) != 1)
                return -1;
        return status;
}

/* debuginfod as nobody on port, serving the ELF files under dir, its database in db_dir (nobody's);
 * its log (every request line) in log. Returns once it serves build_id, within a deadline. */
static pid_t debuginfod_start(int port, const char *dir, const char *db_dir, const char *log, const char *build_id) {
        char port_text[16], path[128];
        _cleanup_free_ char *db = NULL;
        snprintf(port_text, sizeof port_text, "%d", port);
        CHECK(asprintf(&db, "%s/debuginfod.sqlite", db_dir) > 0);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
                        _exit(126);
                if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(126);
                /* After the change of ids, which clears it: it ends with the test. */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                char *env[] = { (char *) "HOME=/nonexistent", (char *) "PATH=/usr/bin:/bin", NULL };
                /* -F: ELF files under dir; no rescans or grooming after the first scan. */
                execle(DEBUGINFOD, DEBUGINFOD, "-p", port_text, "-d", db, "-F", "-t", "0", "-g", "0", dir, (char *) NULL,
                       env);
                _exit(127);
        }
        snprintf(path, sizeof path, "/buildid/%s/debuginfo", build_id);
        uint64_t deadline = now_monotonic_usec() + 60 * UINT64_C(1000000);
        while (http_status(port, path) != 200) {
                int ws;
                if (waitpid(pid, &ws, WNOHANG) == pid)
                        test_fail(__FILE__, __LINE__, "debuginfod exited (see %s)", log);
                if (now_monotonic_usec() > deadline)
                        test_fail(__FILE__, __LINE__, "debuginfod does not serve %s within 60 s (see %s)", build_id, log);
                usleep(100 * 1000);
        }
        return pid;
}

static void debuginfod_stop(pid_t pid) {
        int ws;
        CHECK(kill(pid, SIGTERM) == 0);
        CHECK(waitpid(pid, &ws, 0) == pid);
}

static void export_binary_field(FILE *f, const char *name, const char *value) {
        uint64_t n = strlen(value); /* little-endian, as the export format has it (x86-64) */
        fprintf(f, "%s\n", name);
        fwrite(&n, sizeof n, 1, f);
        fprintf(f, "%s\n", value);
}

static uint64_t symbol_address(const char *program, const char *symbol) {
        _cleanup_free_ char *out = NULL;
        CHECK_INT(run(&out, "nm -P %s | awk '$1 == \"%s\" { print $3 }'", program, symbol), ==, 0);
        unsigned long long a = 0;
        CHECK(sscanf(out, "%llx", &a) == 1 && a > 0);
        return a;
}

/* On a collector: a crash record of a stripped binary (frames without names, with the module's
 * build-id) is named by dumpctl info and groups from a real debuginfod (as nobody, on loopback)
 * serving the debug file split off it; cached, it is named with the server gone; an unreachable
 * server or one that never answers leaves the frames as recorded, within DEBUGINFOD_TIMEOUT= for
 * the whole run, the exit status unchanged; a record's build-id that is not one (not lowercase hex,
 * too long) is never asked for. */
TEST(symbols_from_debuginfod) {
        if (!have_journal_remote())
                exit(77);
        if (access(DEBUGINFOD, X_OK) < 0 || geteuid() != 0) {
                printf("skipping: needs " DEBUGINFOD " (Debian package debuginfod) and root\n");
                exit(77);
        }
        if (!enter_own_network())
                exit(77);
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ char *srv = tmpdir_new(), *jdir = NULL, *export = NULL, *journal = NULL, *prog = NULL,
                            *debug = NULL, *dbdir = NULL, *log = NULL, *out = NULL, *groups = NULL, *err = NULL;
        CHECK(chmod(srv, 0755) == 0);
        CHECK(asprintf(&prog, "%s/crashy", e.dir) > 0 && asprintf(&debug, "%s/crashy.debug", srv) > 0);
        CHECK(asprintf(&dbdir, "%s/db", srv) > 0 && mkdir(dbdir, 0755) == 0 && chown(dbdir, 65534, 65534) == 0);
        CHECK(asprintf(&log, "%s/debuginfod.log", e.dir) > 0);
        CHECK_OK(write_text_file(e.dir, "crashy.c",
                                 "__attribute__((noinline)) int crash_here(volatile int *p) { return *p + 1; }\n"
                                 "int main(void) { return crash_here((volatile int *) 0); }\n"));
        /* Built with its symbols and DWARF; the debug file split off, the program stripped of both. */
        CHECK_INT(run(NULL, "cc -g -O1 -Wl,--build-id=sha1 -o %s %s/crashy.c && objcopy --only-keep-debug %s %s && "
                            "objcopy --strip-all %s", prog, e.dir, prog, debug, prog), ==, 0);
        _cleanup_free_ char *names = NULL;
        CHECK_INT(run(&names, "nm %s 2>&1", prog), ==, 0);
        CHECK(strstr(names, "no symbols"));
        char id[41];
        _cleanup_close_ int prog_fd = open(prog, O_RDONLY | O_CLOEXEC);
        CHECK(prog_fd >= 0 && elf_file_build_id(prog_fd, id) >= 0);
        uint64_t crash_here = symbol_address(debug, "crash_here"), main_at = symbol_address(debug, "main");

        /* The record as the daemon writes it for a stripped binary: frames without names. */
        static const char bad_case[] = "0123456789ABCDEF0123456789ABCDEF01234567";   /* not lowercase */
        static const char bad_long[] = "0123456789abcdef0123456789abcdef0123456789abcdef";
        static const char unknown[] = "00112233445566778899aabbccddeeff00112233";     /* valid, not served */
        _cleanup_free_ char *bt = NULL, *frames = NULL;
        CHECK(asprintf(&bt,
                       "#0  0x%016llx n/a (crashy + 0x%llx)\n#1  0x%016llx n/a (crashy + 0x%llx)\n"
                       "#2  0x00007f0000001010 n/a (bad1 + 0x10)\n#3  0x00007f0000002020 n/a (bad2 + 0x20)\n"
                       "#4  0x00007f0000003030 n/a (other + 0x30)\n",
                       0x555555554000ULL + crash_here + 1, (unsigned long long) crash_here + 1,
                       0x555555554000ULL + main_at + 5, (unsigned long long) main_at + 4) > 0);
        CHECK(asprintf(&frames,
                       "COREDUMPD_FRAME=0 %s+0x%llx -+0x0 /usr/bin/crashy\nCOREDUMPD_FRAME=1 %s+0x%llx -+0x0 /usr/bin/crashy\n"
                       "COREDUMPD_FRAME=2 %s+0x10 -+0x0 /usr/lib/bad1.so\nCOREDUMPD_FRAME=3 %s+0x20 -+0x0 /usr/lib/bad2.so\n"
                       "COREDUMPD_FRAME=4 %s+0x30 -+0x0 /usr/lib/other.so\n",
                       id, (unsigned long long) crash_here + 1, id, (unsigned long long) main_at + 4, bad_case, bad_long,
                       unknown) > 0);
        CHECK(asprintf(&jdir, "%s/remote", e.dir) > 0 && mkdir(jdir, 0755) == 0);
        CHECK(asprintf(&export, "%s/fleet.export", e.dir) > 0 && asprintf(&journal, "%s/remote-far.journal", jdir) > 0);
        FILE *f = fopen(export, "we");
        CHECK(f);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        fprintf(f, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=1\n_BOOT_ID=00112233445566778899aabbccddeeff\n"
                   "_MACHINE_ID=11111111111111111111111111111111\n_HOSTNAME=far\n_UID=0\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=reject\nCOREDUMPD_RESULT=rejected\n"
                   "COREDUMP_PID=31337\nCOREDUMP_UID=0\nCOREDUMP_COMM=crashy\nCOREDUMP_EXE=/usr/bin/crashy\n"
                   "COREDUMP_HOSTNAME=far\nCOREDUMPD_SIGNATURE=dddddddddddddddd\n%s",
                (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000, frames);
        export_binary_field(f, "COREDUMPD_BACKTRACE", bt);
        fputc('\n', f);
        fclose(f);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", journal, export), ==, 0);
        /* Without a server: as recorded. */
        CHECK_INT(run(&out, "env -u DEBUGINFOD_URLS %s -D %s --store=%s info 31337", dumpctl(), jdir, e.store_dir), ==, 0);
        CHECK(strstr(out, bt));
        free(out);

        pid_t server = debuginfod_start(8002, srv, dbdir, log, id);
        _cleanup_free_ char *expect0 = NULL, *expect1 = NULL;
        CHECK(asprintf(&expect0, "#0  0x%016llx crash_here + 0x1 [debuginfod] (crashy + 0x%llx)\n",
                       0x555555554000ULL + crash_here + 1, (unsigned long long) crash_here + 1) > 0);
        CHECK(asprintf(&expect1, "#1  0x%016llx main + 0x4 [debuginfod] (crashy + 0x%llx)\n",
                       0x555555554000ULL + main_at + 5, (unsigned long long) main_at + 4) > 0);
#define WITH_SERVER(port, cache) "DEBUGINFOD_URLS=http://127.0.0.1:" #port " DEBUGINFOD_CACHE_PATH=%s/" cache " "
        CHECK_INT(run(&out, WITH_SERVER(8002, "cache") "%s -D %s --store=%s info 31337", e.dir, dumpctl(), jdir,
                      e.store_dir), ==, 0);
        CHECK(strstr(out, expect0) && strstr(out, expect1));
        /* Not a build-id, or one the server lacks: the line as recorded. */
        CHECK(strstr(out, "#2  0x00007f0000001010 n/a (bad1 + 0x10)\n#3  0x00007f0000002020 n/a (bad2 + 0x20)\n"
                          "#4  0x00007f0000003030 n/a (other + 0x30)\n"));
        CHECK_INT(run(&groups, WITH_SERVER(8002, "cache") "COLUMNS=250 %s -D %s --store=%s groups", e.dir, dumpctl(),
                      jdir, e.store_dir), ==, 0);
        CHECK(strstr(groups, "dddddddddddddddd") && strstr(groups, " crash_here + 0x1 [debuginfod] (crashy + 0x"));
        debuginfod_stop(server);

        /* What was asked: the build-id served (by dumpctl's client, elfutils' user agent) and the
         * one it lacks; neither of the others, in any form. */
        size_t log_size;
        _cleanup_free_ char *requests = read_whole(log, &log_size);
        printf("# debuginfod's log:\n%s", requests);
        _cleanup_free_ char *asked = NULL, *asked_unknown = NULL;
        CHECK(asprintf(&asked, "UA:elfutils") > 0 && asprintf(&asked_unknown, "GET /buildid/%s/debuginfo", unknown) > 0);
        CHECK(strstr(requests, asked) && strstr(requests, asked_unknown));
        size_t n_asked = 0;
        for (const char *p = requests; (p = strstr(p, "GET /buildid/")); p++, n_asked++) {
                const char *b = p + strlen("GET /buildid/");
                if (strncmp(b, id, 40) != 0 && strncmp(b, unknown, 40) != 0)
                        test_fail(__FILE__, __LINE__, "asked for another build-id: %.80s", p);
        }
        CHECK_INT(n_asked, >=, 3);
        CHECK(!strstr(requests, "0123456789ABCDEF") && !strstr(requests, "0123456789abcdef0123"));

        /* The server gone: what the client cached still names the frames. */
        free(out);
        CHECK_INT(run(&out, WITH_SERVER(8002, "cache") "%s -D %s --store=%s info 31337", e.dir, dumpctl(), jdir,
                      e.store_dir), ==, 0);
        CHECK(strstr(out, expect0) && strstr(out, expect1));

        /* Nothing listens: the frames as recorded, one notice, at once, the same exit status. */
        free(out);
        uint64_t t0 = now_monotonic_usec();
        CHECK_INT(run(&out, WITH_SERVER(8003, "cache-refused") "%s -D %s --store=%s info 31337 2>&1", e.dir, dumpctl(),
                      jdir, e.store_dir), ==, 0);
        CHECK_INT(now_monotonic_usec() - t0, <, 5 * UINT64_C(1000000));
        CHECK(strstr(out, bt) && strstr(out, "Cannot ask DEBUGINFOD_URLS for debug files: Connection refused"));

        /* A server that takes the connection and never answers: the whole run within
         * DEBUGINFOD_TIMEOUT= (its first build-id uses it up, the second is not asked), though
         * the client alone would wait that long for each try of each. */
        _cleanup_close_ int mute = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(8004), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        CHECK(mute >= 0 && bind(mute, (struct sockaddr *) &a, sizeof a) == 0 && listen(mute, 16) == 0);
        free(out);
        t0 = now_monotonic_usec();
        CHECK_INT(run(&out, WITH_SERVER(8004, "cache-mute") "DEBUGINFOD_TIMEOUT=2 %s -D %s --store=%s info 31337 2>&1",
                      e.dir, dumpctl(), jdir, e.store_dir), ==, 0);
        uint64_t took = now_monotonic_usec() - t0;
        printf("# took %" PRIu64 " ms\n", took / 1000);
        CHECK_INT(took, >=, 1900 * UINT64_C(1000));
        CHECK_INT(took, <, 5 * UINT64_C(1000000)); /* the client alone: 6.7 s here */
        CHECK(strstr(out, bt) && strstr(out, "No answer from DEBUGINFOD_URLS within 2 s"));
#undef WITH_SERVER
        tmpdir_remove(srv);
        test_env_done(&e);
}

/* dumpctl debug hands gdb the environment as it is and, where $DEBUGINFOD_URLS names a server,
 * has it use it (gdb asks first by default, and its batch mode answers no). */
TEST(debug_gdb_uses_debuginfod_when_asked) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        _cleanup_free_ uint8_t *core = store_crash(&e, 65536, true);
        _cleanup_free_ char *fake = NULL, *with = NULL, *without = NULL;
        CHECK(asprintf(&fake, "%s/gdb-fake", e.dir) > 0);
        CHECK_OK(write_text_file(e.dir, "gdb-fake", "#!/bin/sh\nfor a; do echo \"ARG:$a\"; done\n"
                                                    "echo \"URLS:$DEBUGINFOD_URLS\"\nexit 0\n"));
        CHECK(chmod(fake, 0755) == 0);
        CHECK_INT(run(&with, "DEBUGINFOD_URLS=http://127.0.0.1:9 %s --no-journal --store=%s --debugger=%s debug 2>&1",
                      dumpctl(), e.store_dir, fake), ==, 0);
        CHECK(strstr(with, "ARG:-iex\nARG:set debuginfod enabled on\n") && strstr(with, "URLS:http://127.0.0.1:9\n"));
        CHECK_INT(run(&without, "env -u DEBUGINFOD_URLS %s --no-journal --store=%s --debugger=%s debug 2>&1", dumpctl(),
                      e.store_dir, fake), ==, 0);
        CHECK(!strstr(without, "set debuginfod") && strstr(without, "URLS:\n"));
        test_env_done(&e);
}

/* report: the bundle of a crash with a package (its fields added to the record the daemon made), the
 * dependencies' versions from a fake dpkg status ($DPKG_ADMINDIR), the reportbug command; a crash
 * without a package gets PACKAGE to fill in; a directory that exists is never written into. */
TEST(report_bundle_names_the_package_and_reportbug) {
        if (!have_journal_remote())
                exit(77);
        struct test_env e, rej;
        test_env_init(&e, NULL, NULL);
        test_env_init(&rej, "[Rule]\nName=no-cores\nAction=reject\nWait=no\n", NULL);
        const size_t size = 65536 + 13;
        _cleanup_free_ uint8_t *core = store_crash(&e, size, true);
        free(store_crash(&rej, 65536, false));
        struct fields *f = &e.records.records[0];
        CHECK_OK(fields_set_text(f, FIELD_PACKAGE_NAME, "coredumpd-fixture"));
        CHECK_OK(fields_set_text(f, FIELD_PACKAGE_VERSION, "1.0-1"));
        CHECK_OK(fields_set_text(f, FIELD_PACKAGE_ARCHITECTURE, "amd64"));
        CHECK_OK(fields_set_text(f, FIELD_PACKAGE_SOURCE, "fixture-src"));
        CHECK_OK(fields_set_text(f, FIELD_PACKAGE_SOURCE_VERSION, "1.0-1"));
        CHECK_OK(fields_set_text(f, FIELD_PACKAGE_FILE, "/bin/fixture"));
        CHECK_OK(fields_set_text(f, FIELD_PACKAGE_MODIFIED, "yes"));
        CHECK_OK(fields_set_text(f, FIELD_PACKAGE_FROM, "dpkg"));
        if (!fields_get(f, FIELD_SIGNATURE))
                CHECK_OK(fields_set_text(f, FIELD_SIGNATURE, "0123456789abcdef"));
        _cleanup_free_ char *sig = strdup(fields_get(f, FIELD_SIGNATURE));
        CHECK_OK(fields_set_text(&rej.records.records[0], FIELD_PACKAGE_ERROR,
                                 "no package note, and the container's root has no dpkg database (/var/lib/dpkg/status)"));
        struct fields both[2] = { e.records.records[0], rej.records.records[0] };
        struct record_capture all = { .records = both, .n = 2 };
        _cleanup_free_ char *jdir = NULL, *admin = NULL, *out = NULL, *dir = NULL, *path = NULL;
        CHECK(asprintf(&jdir, "%s/journal", e.dir) > 0 && mkdir(jdir, 0755) == 0);
        write_journal(&all, jdir);
        CHECK(asprintf(&admin, "%s/dpkg", e.dir) > 0 && mkdir(admin, 0755) == 0);
        CHECK_OK(write_text_file(admin, "status",
                                 "Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nVersion: 2.36-9\n\n"
                                 "Package: coredumpd-fixture\nStatus: install ok installed\nArchitecture: amd64\n"
                                 "Version: 1.0-1\nDepends: libc6 (>= 2.36), libfoo | libc6\n"));
        CHECK(asprintf(&dir, "%s/bug", e.dir) > 0);

        /* info shows the package */
        CHECK_INT(run(&out, "%s -D %s --store=%s info %d", dumpctl(), jdir, e.store_dir, (int) e.sleeper), ==, 0);
        CHECK(strstr(out, "Package: coredumpd-fixture 1.0-1 (arch amd64, source fixture-src 1.0-1, from dpkg)"));
        CHECK(strstr(out, "MODIFIED") && strstr(out, "Package File: /bin/fixture"));
        free(out);
        CHECK_INT(run(&out, "%s -D %s --store=%s info %d", dumpctl(), jdir, e.store_dir, (int) rej.sleeper), ==, 0);
        CHECK(strstr(out, "Package: none (no package note, and the container's root has no dpkg database"));
        free(out);

        CHECK_INT(run(&out, "DPKG_ADMINDIR=%s %s -D %s --store=%s report -o %s %d", admin, dumpctl(), jdir,
                      e.store_dir, dir, (int) e.sleeper), ==, 0);
        _cleanup_free_ char *cmd = NULL;
        CHECK(asprintf(&cmd, "reportbug --attach=%s/summary.txt --attach=%s/backtrace.txt --attach=%s/package.txt "
                             "--attach=%s/record.txt --attach=%s/os-release coredumpd-fixture\n", dir, dir, dir, dir, dir) > 0);
        CHECK(strstr(out, cmd));
        struct stat st;
        CHECK(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700);
        size_t n;
        _cleanup_free_ char *summary = NULL, *package = NULL, *record = NULL;
        CHECK(asprintf(&path, "%s/summary.txt", dir) > 0);
        summary = read_whole(path, &n);
        CHECK(strstr(summary, "Package: coredumpd-fixture 1.0-1 (MODIFIED locally)"));
        CHECK(strstr(summary, "Source: fixture-src 1.0-1"));
        CHECK(strstr(summary, "Decided by: rule "));
        CHECK(strstr(summary, "Kernel: "));
        _cleanup_free_ char *sigline = NULL;
        CHECK(asprintf(&sigline, "\ncoredumpd-signature: %s", sig) > 0);
        CHECK(strstr(summary, sigline));
        free(path);
        CHECK(asprintf(&path, "%s/package.txt", dir) > 0);
        package = read_whole(path, &n);
        CHECK(strstr(package, "Depends (the versions installed on this host now):\n  libc6 2.36-9 amd64\n"
                              "  libfoo (not installed"));
        free(path);
        CHECK(asprintf(&path, "%s/record.txt", dir) > 0);
        record = read_whole(path, &n);
        CHECK(strstr(record, "COREDUMP_PACKAGE_NAME=coredumpd-fixture\n"));
        free(path);
        CHECK(asprintf(&path, "%s/core", dir) > 0);
        CHECK(access(path, F_OK) < 0); /* only with --core */
        free(out);

        /* never into a directory that exists */
        CHECK_INT(run(&out, "%s -D %s --store=%s report -o %s %d", dumpctl(), jdir, e.store_dir, dir, (int) e.sleeper), ==, 1);
        free(out);
        /* --core: the core too */
        free(dir);
        CHECK(asprintf(&dir, "%s/bug-core", e.dir) > 0);
        CHECK_INT(run(&out, "%s -D %s --store=%s --core report -o %s %d", dumpctl(), jdir, e.store_dir, dir,
                      (int) e.sleeper), ==, 0);
        CHECK(strstr(out, "/core) is not attached"));
        free(path);
        CHECK(asprintf(&path, "%s/core", dir) > 0);
        _cleanup_free_ char *copy = read_whole(path, &n);
        CHECK_INT(n, ==, size);
        CHECK(memcmp(copy, core, size) == 0);
        free(out);

        /* the rejected crash: no package, no core for --core */
        free(dir);
        CHECK(asprintf(&dir, "%s/bug-rej", e.dir) > 0);
        CHECK_INT(run(&out, "%s -D %s --store=%s --core report -o %s %d", dumpctl(), jdir, e.store_dir, dir,
                      (int) rej.sleeper), ==, 4);
        free(out);
        CHECK_INT(run(&out, "%s -D %s --store=%s report -o %s %d", dumpctl(), jdir, e.store_dir, dir,
                      (int) rej.sleeper), ==, 0);
        CHECK(strstr(out, "not attributed to a package (no package note") && strstr(out, "/os-release PACKAGE\n"));
        test_env_done(&rej);
        test_env_done(&e);
}

static const struct test_case tests[] = {
        TEST_ENTRY(report_bundle_names_the_package_and_reportbug),
        TEST_ENTRY(groups_span_machines),
        TEST_ENTRY(each_crash_once_however_often_received),
        TEST_ENTRY(symbols_from_debuginfod),
        TEST_ENTRY(debug_gdb_uses_debuginfod_when_asked),
        TEST_ENTRY(groups_and_signature_filter),
        TEST_ENTRY(crash_id_is_a_match),
        TEST_ENTRY(foreign_journal_and_output_hardening),
        TEST_ENTRY(debug_container_crash_gets_a_sysroot),
        TEST_ENTRY(debug_own_mount_namespace_checks_the_build_id),
        TEST_ENTRY(not_the_kernels_handler_is_said),
        TEST_ENTRY(store_fallback_list_info_dump),
        TEST_ENTRY(store_fallback_without_xattrs_uses_the_name),
        TEST_ENTRY(journal_directory_list_info_and_errors),
        TEST_ENTRY(unprivileged_user_sees_and_fetches_only_own),
        TEST_ENTRY(vacuum_applies_max_use_now),
        TEST_ENTRY(remove_own_cores_only),
        TEST_ENTRY(policy_is_check_policy),
        TEST_ENTRY(remote_machine_record_is_not_ours),
        TEST_ENTRY(all_trusts_only_this_machines_system_journal),
        TEST_ENTRY(dump_and_debug_fall_back_to_the_journal_core),
        TEST_ENTRY(usage_and_version),
        TEST_ENTRY(newest_only_and_count),
        TEST_ENTRY(field_values_each_once),
        TEST_ENTRY(json_modes_array_shape_and_exit_codes),
        TEST_ENTRY(since_until_time_specs),
        TEST_ENTRY(info_newest_and_relative_time),
        TEST_ENTRY(list_fits_the_width),
        TEST_ENTRY(sources_errors_and_quiet),
        TEST_ENTRY(unreadable_journal_files_are_named),
        TEST_ENTRY(pager_and_colours_on_a_terminal),
        TEST_ENTRY(metrics_count_known_outcomes),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
