/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "build-config.h"
#include "config/conf-files.h"
#include "config/config.h"
#include "shared/cleanup.h"
#include "shared/ini-file.h"
#include "shared/log.h"
#include "shared/names.h"
#include "shared/parse.h"

#define CONFIG_SECTION "Coredump"

void config_init_defaults(struct config *c) {
        *c = (struct config) {
                .storage = strdup(COREDUMPD_STORAGE_DIR),
                .max_use = SIZE_AUTO,
                .max_use_per_user = SIZE_AUTO,
                .keep_free = SIZE_AUTO,
                /* systemd-coredump's ProcessSizeMax=/ExternalSizeMax= default: one user's crash loop
                 * cannot make a core larger than this, nor hold a task longer to stream it. */
                .max_size = UINT64_C(2) << 30,
                .compress = COMPRESSION_ZSTD,
                .compress_level = 3,
                .max_concurrent = 16,
                .max_concurrent_per_user = 8,
                .reserved_concurrent = 2,
                .max_queued = 256,
                .max_queued_per_user = 32,
                .deadline_usec = 60 * USEC_PER_SEC,
                .queue_deadline_usec = 300 * USEC_PER_SEC,
                .unwind_timeout_usec = 3 * USEC_PER_SEC,
                .unwind_max_frames = 64,
                .rate_limit_interval_usec = 3600 * USEC_PER_SEC,
                .rate_limit_burst = 5,
                .on_repeat = ACTION_REJECT,
                .min_rate = UINT64_C(1) << 20,
                /* systemd-coredump's RuntimeMaxSec=5min: no task is held longer, by anyone. */
                .max_duration_usec = 300 * USEC_PER_SEC,
                .idle_exit_usec = 30 * USEC_PER_SEC,
                /* systemd-coredump's tmpfiles.d line: d /var/lib/systemd/coredump 0755 root root 3d */
                .max_age_usec = 3 * 86400 * USEC_PER_SEC,
                /* systemd-coredump's JournalSizeMax= is 767M for Storage=journal; here the record
                 * carries a compact core only, for the fleet: small enough to forward every one. */
                .journal_size_max = UINT64_C(1) << 20,
                /* Not into the system journal, which more than root reads and a fleet ships, for
                 * root's and system services' crashes: only where its readers may read the crash. */
                .journal_core = JOURNAL_CORE_USER,
        };
}

void config_done(struct config *c) {
        free(c->storage);
        c->storage = NULL;
}

const char *compression_to_string(enum compression c) {
        return c == COMPRESSION_ZSTD ? "zstd" : "none";
}

int compression_from_string(const char *s, enum compression *ret) {
        if (!s)
                return -EINVAL;
        if (strcasecmp(s, "zstd") == 0) {
                *ret = COMPRESSION_ZSTD;
                return 0;
        }
        if (strcasecmp(s, "none") == 0) {
                *ret = COMPRESSION_NONE;
                return 0;
        }
        int b = parse_boolean(s);
        if (b < 0)
                return -EINVAL;
        *ret = b ? COMPRESSION_ZSTD : COMPRESSION_NONE;
        return 0;
}

static const char *const journal_core_names[_JOURNAL_CORE_MAX] = {
        [JOURNAL_CORE_NO] = "no",
        [JOURNAL_CORE_USER] = "user",
        [JOURNAL_CORE_SYSTEM] = "system",
};

const char *journal_core_to_string(enum journal_core j) {
        return j >= 0 && j < _JOURNAL_CORE_MAX ? journal_core_names[j] : NULL;
}

int journal_core_from_string(const char *s, enum journal_core *ret) {
        if (!s)
                return -EINVAL;
        for (enum journal_core j = 0; j < _JOURNAL_CORE_MAX; j++)
                if (strcmp(s, journal_core_names[j]) == 0) {
                        *ret = j;
                        return 0;
                }
        /* Not yes: which journal would it mean? */
        return -EINVAL;
}

int parse_max_age(const char *value, uint64_t *ret) {
        uint64_t u;
        if (strcasecmp(value, "infinity") == 0) {
                *ret = USEC_INFINITY;
                return 0;
        }
        if (parse_duration(value, &u) < 0)
                return -EINVAL;
        if (u != 0 && u < USEC_PER_SEC)
                return -ERANGE;         /* finer than the store's timestamps mean */
        *ret = u == 0 ? USEC_INFINITY : u;
        return 0;
}

const char *format_max_age(char buf[static 32], uint64_t usec) {
        return usec == USEC_INFINITY ? strcpy(buf, "infinity") : format_duration(buf, usec);
}

static int parse_size_or_auto(const char *value, uint64_t *ret) {
        if (strcasecmp(value, "auto") == 0) {
                *ret = SIZE_AUTO;
                return 0;
        }
        return parse_size(value, ret);
}

/* Every key config_entry() takes, for the hint on a misspelt one (man/check-options.py checks that
 * this list and the parser agree). */
static const char *const config_keys[] = {
        "Storage", "MaxUse", "MaxUsePerUser", "KeepFree", "MaxSize", "Compress", "CompressLevel",
        "MaxConcurrent", "MaxConcurrentPerUser", "ReservedConcurrent", "MaxQueued", "DeadlineSec", "QueueDeadlineSec",
        "MaxQueuedPerUser", "RateLimitIntervalSec", "RateLimitBurst", "OnRepeat", "UnwindTimeoutSec", "UnwindMaxFrames", "MinRate", "MaxDurationSec",
        "IdleExitSec", "MaxAgeSec", "KeepPerSignature", "JournalSizeMax", "JournalCore", NULL,
};

/* A time span's key ends in Sec, as systemd's (RateLimitIntervalSec=, TimeoutSec=); the names before
 * 2026-12 without it still work, as systemd's RateLimitInterval= does. */
const char *const config_key_aliases[][2] = {
        { "Deadline", "DeadlineSec" },
        { "QueueDeadline", "QueueDeadlineSec" },
        { "UnwindTimeout", "UnwindTimeoutSec" },
        { "MaxDuration", "MaxDurationSec" },
        { "IdleExit", "IdleExitSec" },
        { "MaxAge", "MaxAgeSec" },
        { NULL, NULL },
};

const char *config_key_canonical(const char *key) {
        for (size_t i = 0; config_key_aliases[i][0]; i++)
                if (strcmp(key, config_key_aliases[i][0]) == 0)
                        return config_key_aliases[i][1];
        return key;
}

const char *const *config_known_keys(void) {
        return config_keys;
}

#define HINT_SIZE "a size with an optional K, M, G or T suffix, such as 512M or 2G"
#define HINT_SIZE_AUTO HINT_SIZE ", or auto"
#define HINT_DURATION "a duration such as 500ms, 30s, 5min, 1d 12h or 1M (M: a month, m: a minute)"

/* "invalid Key= 'value'[, what]" with a hint. */
#define INVALID(ini, key, value, what, ...)                                                           \
        (ini_file_error((ini), "invalid %s= '%s'%s", (key), (value), (what)), ini_file_hint((ini), __VA_ARGS__))

static int config_entry(struct ini_file *ini, const char *section, const char *written, const char *value,
                        void *userdata) {
        struct config *c = userdata;
        const char *key = config_key_canonical(written);
        uint64_t u64;
        uint32_t u32;

        if (!*section)
                return ini_file_error(ini, "'%s=' outside of a section", written),
                       ini_file_hint(ini, "put a [%s] line before the first key", CONFIG_SECTION);
        if (strcmp(section, CONFIG_SECTION) != 0)
                return ini_file_section_error(ini, section, CONFIG_SECTION);

        if (strcmp(key, "Storage") == 0) {
                if (value[0] != '/')
                        return ini_file_error(ini, "Storage= must be an absolute path, got '%s'", value),
                               ini_file_hint(ini, "such as /var/lib/coredumpd");
                char *s = strdup(value);
                if (!s)
                        return ini_file_error(ini, "out of memory");
                free(c->storage);
                c->storage = s;
        } else if (strcmp(key, "MaxUse") == 0) {
                if (parse_size_or_auto(value, &u64) < 0)
                        return INVALID(ini, written, value, "", HINT_SIZE_AUTO);
                c->max_use = u64;
        } else if (strcmp(key, "MaxUsePerUser") == 0) {
                if (parse_size_or_auto(value, &u64) < 0)
                        return INVALID(ini, written, value, "", HINT_SIZE_AUTO);
                c->max_use_per_user = u64;
        } else if (strcmp(key, "KeepFree") == 0) {
                if (parse_size_or_auto(value, &u64) < 0)
                        return INVALID(ini, written, value, "", HINT_SIZE_AUTO);
                c->keep_free = u64;
        } else if (strcmp(key, "MaxSize") == 0) {
                if (parse_size(value, &u64) < 0 || u64 == 0)
                        return INVALID(ini, written, value, "", HINT_SIZE ", not 0");
                c->max_size = u64;
        } else if (strcmp(key, "Compress") == 0) {
                if (compression_from_string(value, &c->compress) < 0)
                        return INVALID(ini, written, value, ", expected zstd or none", "yes and no are taken too");
        } else if (strcmp(key, "CompressLevel") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 < 1 || u32 > 19)
                        return INVALID(ini, written, value, ", expected 1..19", "3 is fast, 19 is small");
                c->compress_level = (int) u32;
        } else if (strcmp(key, "MaxConcurrent") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 < 1 || u32 > 1024)
                        return INVALID(ini, written, value, ", expected 1..1024", "crashes handled at once, default 16");
                c->max_concurrent = u32;
        } else if (strcmp(key, "MaxConcurrentPerUser") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 < 1 || u32 > 1024)
                        return INVALID(ini, written, value, ", expected 1..1024", "crashes of one user at once, default 8");
                c->max_concurrent_per_user = u32;
        } else if (strcmp(key, "ReservedConcurrent") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 > 1024)
                        return INVALID(ini, written, value, ", expected 0..1024", "slots kept for system users, default 2");
                c->reserved_concurrent = u32;
        } else if (strcmp(key, "MaxQueued") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 > 65536)
                        return INVALID(ini, written, value, ", expected 0..65536", "crashes waiting for a slot, default 256");
                c->max_queued = u32;
        } else if (strcmp(key, "MaxQueuedPerUser") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 > 65536)
                        return INVALID(ini, written, value, ", expected 0..65536", "crashes of one user waiting for a slot, default 32");
                c->max_queued_per_user = u32;
        } else if (strcmp(key, "DeadlineSec") == 0) {
                if (parse_duration(value, &u64) < 0 || u64 < USEC_PER_MSEC)
                        return INVALID(ini, written, value, "", HINT_DURATION ", at least 1ms");
                c->deadline_usec = u64;
        } else if (strcmp(key, "QueueDeadlineSec") == 0) {
                if (parse_duration(value, &u64) < 0 || u64 < USEC_PER_MSEC)
                        return INVALID(ini, written, value, "", HINT_DURATION ", at least 1ms");
                c->queue_deadline_usec = u64;
        } else if (strcmp(key, "RateLimitIntervalSec") == 0) {
                if (parse_duration(value, &u64) < 0 || u64 == 0)
                        return INVALID(ini, written, value, "", HINT_DURATION ", not 0 (RateLimitBurst=0 turns the limit off)");
                c->rate_limit_interval_usec = u64;
        } else if (strcmp(key, "RateLimitBurst") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 > 1000000)
                        return INVALID(ini, written, value, "", "a number of crashes from 0 (no rate limit) to 1000000");
                c->rate_limit_burst = u32;
        } else if (strcmp(key, "KeepPerSignature") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 > 1000000)
                        return INVALID(ini, written, value, "", "a number of cores from 0 (no such limit) to 1000000");
                c->keep_per_signature = u32;
        } else if (strcmp(key, "OnRepeat") == 0) {
                enum action a = action_from_string(value);
                if (a != ACTION_REJECT && a != ACTION_USERSPACE)
                        return INVALID(ini, written, value, ", expected userspace or reject",
                                       "repeats get a stacks core of our own (userspace) or nothing (reject)");
                c->on_repeat = (int) a;
        } else if (strcmp(key, "UnwindTimeoutSec") == 0) {
                if (parse_duration(value, &u64) < 0)
                        return INVALID(ini, written, value, "", HINT_DURATION ", or 0 for no unwinding");
                c->unwind_timeout_usec = u64;
        } else if (strcmp(key, "UnwindMaxFrames") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 < 1 || u32 > 64)
                        return INVALID(ini, written, value, ", expected 1..64", "frames per thread, default 64");
                c->unwind_max_frames = u32;
        } else if (strcmp(key, "MinRate") == 0) {
                if (parse_size(value, &u64) < 0 || u64 < 1024)
                        return INVALID(ini, written, value, ", expected a size per second of at least 1K",
                                       "such as 512K or 1M");
                c->min_rate = u64;
        } else if (strcmp(key, "MaxDurationSec") == 0) {
                if (parse_duration(value, &u64) < 0 || u64 < USEC_PER_SEC)
                        return INVALID(ini, written, value, "", HINT_DURATION ", at least 1s");
                c->max_duration_usec = u64;
        } else if (strcmp(key, "IdleExitSec") == 0) {
                if (parse_duration(value, &u64) < 0)
                        return INVALID(ini, written, value, "", HINT_DURATION ", or 0 for never");
                c->idle_exit_usec = u64;
        } else if (strcmp(key, "JournalSizeMax") == 0) {
                if (parse_size(value, &u64) < 0 || (u64 > 0 && u64 < 4096) || u64 > JOURNAL_SIZE_MAX_LIMIT)
                        return INVALID(ini, written, value, ", expected 0 (none) or 4K..64M",
                                       "the compact core in a crash's record, such as 1M");
                c->journal_size_max = u64;
        } else if (strcmp(key, "JournalCore") == 0) {
                if (journal_core_from_string(value, &c->journal_core) < 0)
                        return INVALID(ini, written, value, ", expected user, system or no",
                                       "user: a regular user's own journal only; system: the system journal too");
        } else if (strcmp(key, "MaxAgeSec") == 0) {
                if (parse_max_age(value, &u64) < 0)
                        return INVALID(ini, written, value, "", HINT_DURATION " or 3d, or 0 (infinity) for no age limit");
                c->max_age_usec = u64;
        } else
                return ini_file_unknown_key(ini, written, CONFIG_SECTION, config_keys);

        return 0;
}

static int config_parse_file(struct config *c, FILE *f, const char *path) {
        struct ini_file ini = { .path = path, .manual = "coredumpd.conf(5)", .consequence = "ignored" };
        int r = ini_file_parse(&ini, f, config_entry, c);
        if (r >= 0)
                r = ini_file_report(&ini);
        ini_file_done(&ini);
        return r;
}

/* One file over *c: the number of lines skipped (a drop-in that cannot be opened: 1, the whole
 * file), 0 also for a file that is missing and need not exist, or -errno (logged). */
static int config_load_one(struct config *c, const char *path, bool must_exist, bool is_dropin) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f) {
                if (errno == ENOENT && !must_exist)
                        return 0;
                if (!is_dropin)
                        return log_error_errno(errno, "%s: cannot open: %m", path);
                log_warning_errno(errno, "%s: cannot open: %m, ignored", path);
                return 1;
        }
        return config_parse_file(c, f, path);
}

int config_load_with_dropins(struct config *c, const char *path, bool must_exist, const char *const *dropin_dirs) {
        _cleanup_(conf_file_list_done) struct conf_file_list dropins = {};
        struct config parsed = *c;
        int r, problems = 0;

        parsed.storage = strdup(c->storage ? c->storage : COREDUMPD_STORAGE_DIR);
        if (!parsed.storage)
                return log_error_errno(ENOMEM, "%s: %m", path);

        /* Every file is read; a wrong line costs that line only. */
        r = config_load_one(&parsed, path, must_exist, false);
        if (r < 0)
                goto fail;
        problems += r;
        if (dropin_dirs) {
                r = conf_files_list(dropin_dirs, &dropins);
                if (r < 0)
                        goto fail;
                problems += r;
        }
        for (size_t i = 0; i < dropins.n; i++) {
                if (dropins.files[i].masked)
                        continue;
                r = config_load_one(&parsed, dropins.files[i].path, true, true);
                if (r < 0)
                        goto fail;
                problems += r;
        }

        config_done(c);
        *c = parsed;
        return problems;

fail:
        config_done(&parsed);
        return r;
}

int config_load(struct config *c, const char *path, int must_exist) {
        return config_load_with_dropins(c, path, must_exist, NULL);
}

const char *config_update_runtime(struct config *live, const struct config *next) {
        char *storage = live->storage;
        bool storage_changed = strcmp(storage, next->storage) != 0;

        *live = *next;
        live->storage = storage;
        return storage_changed ? "Storage" : NULL;
}

const char *const *config_dropin_dirs(char *const *given, bool config_explicit) {
        if (given)
                return (const char *const *) given;
        return config_explicit ? NULL : conf_dirs_default(CONF_DROPIN);
}

static const char *format_size_or_auto(char buf[static 32], uint64_t size) {
        return size == SIZE_AUTO ? strcpy(buf, "auto") : format_size(buf, size);
}

void config_print(const struct config *c, FILE *out) {
        char b[32];

        fprintf(out, "[%s]\n", CONFIG_SECTION);
        fprintf(out, "Storage=%s\n", c->storage);
        fprintf(out, "MaxUse=%s\n", format_size_or_auto(b, c->max_use));
        fprintf(out, "MaxUsePerUser=%s\n", format_size_or_auto(b, c->max_use_per_user));
        fprintf(out, "KeepFree=%s\n", format_size_or_auto(b, c->keep_free));
        fprintf(out, "MaxSize=%s\n", format_size(b, c->max_size));
        fprintf(out, "Compress=%s\n", compression_to_string(c->compress));
        fprintf(out, "CompressLevel=%d\n", c->compress_level);
        fprintf(out, "MaxConcurrent=%u\n", c->max_concurrent);
        fprintf(out, "MaxConcurrentPerUser=%u\n", c->max_concurrent_per_user);
        fprintf(out, "ReservedConcurrent=%u\n", c->reserved_concurrent);
        fprintf(out, "MaxQueued=%u\n", c->max_queued);
        fprintf(out, "MaxQueuedPerUser=%u\n", c->max_queued_per_user);
        fprintf(out, "DeadlineSec=%s\n", format_duration(b, c->deadline_usec));
        fprintf(out, "QueueDeadlineSec=%s\n", format_duration(b, c->queue_deadline_usec));
        fprintf(out, "MinRate=%s\n", format_size(b, c->min_rate));
        fprintf(out, "MaxDurationSec=%s\n", format_duration(b, c->max_duration_usec));
        fprintf(out, "UnwindTimeoutSec=%s\n", format_duration(b, c->unwind_timeout_usec));
        fprintf(out, "UnwindMaxFrames=%u\n", c->unwind_max_frames);
        fprintf(out, "RateLimitIntervalSec=%s\n", format_duration(b, c->rate_limit_interval_usec));
        fprintf(out, "RateLimitBurst=%u\n", c->rate_limit_burst);
        fprintf(out, "OnRepeat=%s\n", action_to_string((enum action) c->on_repeat));
        fprintf(out, "MaxAgeSec=%s\n", format_max_age(b, c->max_age_usec));
        fprintf(out, "KeepPerSignature=%u\n", c->keep_per_signature);
        fprintf(out, "JournalSizeMax=%s\n", format_size(b, c->journal_size_max));
        fprintf(out, "JournalCore=%s\n", journal_core_to_string(c->journal_core));
        fprintf(out, "IdleExitSec=%s\n", format_duration(b, c->idle_exit_usec));
}
