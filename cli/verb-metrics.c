/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl metrics: the daemon's counters (store/metrics.h) and the store's state in Prometheus' text
 * exposition format (version 0.0.4): HELP and TYPE lines, counters ending in _total, histograms
 * with cumulative _bucket{le=...}, _sum and _count. Labels take a few fixed values only: nothing
 * of a crash's own (no signature, executable or user). With -o FILE, written to a new file beside
 * FILE and renamed over it (node-exporter's textfile collector never reads half a file). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "build-config.h"
#include "config/check.h"
#include "config/config.h"
#include "config/policy.h"
#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/kernel-handler.h"
#include "shared/log.h"
#include "store/metrics.h"
#include "store/store.h"

static void family(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample(FILE *f, const char *name, uint64_t value) {
        fprintf(f, "%s %" PRIu64 "\n", name, value);
}

static void histogram(FILE *f, const uint64_t *v, enum metrics_histogram h, const char *name, const char *help) {
        uint64_t cumulative = 0;

        family(f, name, "histogram", help);
        for (unsigned b = 0; b <= METRICS_BUCKETS; b++) {
                cumulative += v[metrics_histogram_index(h, b)];
                if (b < METRICS_BUCKETS)
                        fprintf(f, "%s_bucket{le=\"%g\"} %" PRIu64 "\n", name, (double) metrics_bucket_usec[b] / 1e6,
                                cumulative);
                else
                        fprintf(f, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n", name, cumulative);
        }
        uint64_t sum = v[metrics_histogram_index(h, METRICS_BUCKETS + 1)];
        fprintf(f, "%s_sum %" PRIu64 ".%06" PRIu64 "\n", name, sum / 1000000, sum % 1000000);
        fprintf(f, "%s_count %" PRIu64 "\n", name, v[metrics_histogram_index(h, METRICS_BUCKETS + 2)]);
}

static void print_counters(FILE *f, const uint64_t *v) {
        family(f, "coredumpd_crashes_total", "counter",
               "Crashes handled, by the action decided, the result and its reason (COREDUMPD_ACTION=, _RESULT=, _REASON=).");
        for (enum metrics_action a = 0; a < _METRICS_ACTION_MAX; a++)
                for (enum metrics_result r = 0; r < _METRICS_RESULT_MAX; r++)
                        for (enum metrics_reason why = 0; why < _METRICS_REASON_MAX; why++) {
                                uint64_t n = v[metrics_crash_index(a, r, why)];
                                if (n > 0)
                                        fprintf(f, "coredumpd_crashes_total{action=\"%s\",result=\"%s\",reason=\"%s\"} %" PRIu64 "\n",
                                                metrics_action_label(a), metrics_result_label(r),
                                                metrics_reason_label(why), n);
                        }
        family(f, "coredumpd_cores_stored_total", "counter", "Cores kept in the store (the kernel's or coredumpd's own).");
        sample(f, "coredumpd_cores_stored_total", v[METRICS_CORES_STORED]);
        family(f, "coredumpd_core_bytes_stored_total", "counter", "Bytes on disk of the cores kept, as they were stored.");
        sample(f, "coredumpd_core_bytes_stored_total", v[METRICS_CORE_BYTES_STORED]);
        family(f, "coredumpd_cores_truncated_total", "counter", "Cores kept cut at their size limit (COREDUMP_TRUNCATED=1).");
        sample(f, "coredumpd_cores_truncated_total", v[METRICS_CORES_TRUNCATED]);
        family(f, "coredumpd_signatures_first_seen_total", "counter",
               "Crashes of a signature this host had never recorded before (COREDUMPD_FIRST_SEEN=1).");
        sample(f, "coredumpd_signatures_first_seen_total", v[METRICS_SIGNATURES_FIRST_SEEN]);
        family(f, "coredumpd_vacuumed_cores_total", "counter", "Cores the vacuum removed, by the limit that removed them.");
        for (enum metrics_vacuum_cause c = 0; c < _METRICS_VACUUM_MAX; c++)
                fprintf(f, "coredumpd_vacuumed_cores_total{cause=\"%s\"} %" PRIu64 "\n", metrics_vacuum_label(c),
                        v[METRICS_VACUUMED_CORES + c]);
        family(f, "coredumpd_vacuumed_bytes_total", "counter", "Bytes on disk the vacuum freed, by the limit that removed them.");
        for (enum metrics_vacuum_cause c = 0; c < _METRICS_VACUUM_MAX; c++)
                fprintf(f, "coredumpd_vacuumed_bytes_total{cause=\"%s\"} %" PRIu64 "\n", metrics_vacuum_label(c),
                        v[METRICS_VACUUMED_BYTES + c]);
        histogram(f, v, METRICS_HISTOGRAM_ACK, "coredumpd_ack_latency_seconds",
                  "From accepting a crash's connection to the ack: how long the kernel waited for the answer.");
        histogram(f, v, METRICS_HISTOGRAM_RELEASE, "coredumpd_release_latency_seconds",
                  "From accepting a crash's connection to its release: how long the crashed task was held.");
        family(f, "coredumpd_queue_peak", "gauge", "The most crashes that waited in the queue at once (MaxQueued=).");
        sample(f, "coredumpd_queue_peak", v[METRICS_QUEUE_PEAK]);
        family(f, "coredumpd_user_notes_total", "counter", "Rejected crashes told in their user's own journal.");
        sample(f, "coredumpd_user_notes_total", v[METRICS_USER_NOTES]);
        family(f, "coredumpd_user_notes_withheld_total", "counter",
               "Rejected crashes of regular users not told in their journal: past the bound of notes.");
        sample(f, "coredumpd_user_notes_withheld_total", v[METRICS_USER_NOTES_WITHHELD]);
}

/* The cores in the store and what they take (with the files kept beside them): root only, as the
 * store is listed by root only. False when it cannot be listed. */
static bool store_usage(int dir_fd, uint64_t *ret_cores, uint64_t *ret_bytes) {
        int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return false;
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return false;
        }
        uint64_t cores = 0, bytes = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                struct stat st;
                if (strncmp(de->d_name, "core.", 5) != 0 ||
                    fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                bytes += (uint64_t) st.st_blocks * 512;
                if (!store_name_is_attachment(de->d_name, NULL))
                        cores++;
        }
        *ret_cores = cores;
        *ret_bytes = bytes;
        return true;
}

static void print_store(FILE *f, int dir_fd, const struct config *config) {
        struct statvfs sv;
        uint64_t cores, bytes;

        if (store_usage(dir_fd, &cores, &bytes)) {
                family(f, "coredumpd_store_cores", "gauge", "Cores in the store now.");
                sample(f, "coredumpd_store_cores", cores);
                family(f, "coredumpd_store_bytes", "gauge", "Bytes on disk the store's cores and the files kept with them take now.");
                sample(f, "coredumpd_store_bytes", bytes);
        }
        if (fstatvfs(dir_fd, &sv) < 0)
                return;
        uint64_t fs_size = (uint64_t) sv.f_blocks * sv.f_frsize;
        family(f, "coredumpd_store_max_use_bytes", "gauge", "MaxUse=: the most the store's cores may take.");
        sample(f, "coredumpd_store_max_use_bytes", store_limit(config->max_use, fs_size, STORE_MAX_USE_PERCENT));
        family(f, "coredumpd_store_keep_free_bytes", "gauge", "KeepFree=: the room the store leaves free on its file system.");
        sample(f, "coredumpd_store_keep_free_bytes", store_limit(config->keep_free, fs_size, STORE_KEEP_FREE_PERCENT));
        family(f, "coredumpd_store_free_bytes", "gauge", "Bytes free for unprivileged users on the store's file system now.");
        sample(f, "coredumpd_store_free_bytes", (uint64_t) sv.f_bavail * sv.f_frsize);
}

/* The problems `dumpctl check` reports (lines, rules, files left out), its lines not printed. */
static int config_problems(void) {
        struct config_check c = {
                .config_path = arg.config ?: COREDUMPD_CONFIG_FILE,
                .config_explicit = arg.config != NULL,
                .config_dropin_dirs = config_dropin_dirs(arg.config_dirs, arg.config != NULL),
                .policy_dirs = policy_dirs_or_default(arg.policy_dirs),
        };
        int level = log_get_max_priority();
        log_set_max_priority(LOG_CRIT);
        int r = config_check_run(&c);
        log_set_max_priority(level);
        return r;
}

static int print_all(FILE *f) {
        uint64_t v[_METRICS_COUNTER_MAX] = {}; /* all 0 where the store is not there (yet) */
        char pattern[256];

        const struct config *config = dumpctl_config();
        const char *store = store_path();
        if (!config || !store)
                return EXIT_ERROR;
        _cleanup_close_ int dir_fd = open(store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int r = dir_fd < 0 ? -ENOENT : metrics_read(dir_fd, v);
        if (r < 0 && r != -ENOENT) {
                log_error_errno(-r, "Cannot read the counters in %s/%s: %m", store, METRICS_FILE);
                return EXIT_ERROR;
        }

        family(f, "coredumpd_registered", "gauge",
               "1 when kernel.core_pattern hands crashes to coredumpd, 0 when crashes are not collected by it.");
        sample(f, "coredumpd_registered", kernel_handler_is_ours(pattern, sizeof pattern));
        int problems = config_problems();
        if (problems >= 0) {
                family(f, "coredumpd_config_problems", "gauge",
                       "Lines, rules and files of the configuration and policy that coredumpd leaves out (dumpctl check).");
                sample(f, "coredumpd_config_problems", (uint64_t) problems);
        }
        print_counters(f, v); /* all 0 before the first crash */
        if (dir_fd >= 0)
                print_store(f, dir_fd, config);
        return EXIT_OK;
}

/* FILE written whole or not at all: a new file beside it (0644), renamed over it. */
static int print_to_file(const char *path) {
        _cleanup_free_ char *tmp = NULL;
        if (asprintf(&tmp, "%s.%u.tmp", path, (unsigned) getpid()) < 0)
                return EXIT_ERROR;
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
                log_error_errno(errno, "Cannot create %s: %m", tmp);
                return EXIT_ERROR;
        }
        FILE *f = fchmod(fd, 0644) >= 0 ? fdopen(fd, "we") : NULL; /* node-exporter reads it, whatever the umask */
        if (!f) {
                safe_close(fd);
                (void) unlink(tmp);
                return EXIT_ERROR;
        }
        int status = print_all(f);
        if (fflush(f) != 0 || fsync(fileno(f)) < 0 || ferror(f))
                status = EXIT_ERROR;
        if (fclose(f) != 0)
                status = EXIT_ERROR;
        if (status == EXIT_OK && rename(tmp, path) < 0) {
                log_error_errno(errno, "Cannot rename %s to %s: %m", tmp, path);
                status = EXIT_ERROR;
        }
        if (status != EXIT_OK)
                (void) unlink(tmp);
        return status;
}

int verb_metrics(void) {
        if (arg.output)
                return print_to_file(arg.output);
        int status = print_all(stdout);
        fflush(stdout);
        return status;
}
