/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "build-config.h"
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
                .max_size = UINT64_C(32) << 30,
                .compress = COMPRESSION_ZSTD,
                .compress_level = 3,
                .max_concurrent = 16,
                .max_concurrent_per_user = 8,
                .reserved_concurrent = 2,
                .max_queued = 256,
                .deadline_usec = 60 * USEC_PER_SEC,
                .queue_deadline_usec = 300 * USEC_PER_SEC,
                .unwind_timeout_usec = 3 * USEC_PER_SEC,
                .unwind_max_frames = 64,
                .rate_limit_interval_usec = 3600 * USEC_PER_SEC,
                .rate_limit_burst = 5,
                .on_repeat = ACTION_USERSPACE,
                .min_rate = UINT64_C(1) << 20,
                .idle_exit_usec = 30 * USEC_PER_SEC,
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

static int parse_size_or_auto(const char *value, uint64_t *ret) {
        if (strcasecmp(value, "auto") == 0) {
                *ret = SIZE_AUTO;
                return 0;
        }
        return parse_size(value, ret);
}

static int config_entry(struct ini_file *ini, const char *section, const char *key, const char *value,
                        void *userdata) {
        struct config *c = userdata;
        uint64_t u64;
        uint32_t u32;

        if (strcmp(section, CONFIG_SECTION) != 0)
                return ini_file_error(ini, "unknown section [%s], expected [%s]", section, CONFIG_SECTION);

        if (strcmp(key, "Storage") == 0) {
                if (value[0] != '/')
                        return ini_file_error(ini, "Storage= must be an absolute path, got '%s'", value);
                char *s = strdup(value);
                if (!s)
                        return ini_file_error(ini, "out of memory");
                free(c->storage);
                c->storage = s;
        } else if (strcmp(key, "MaxUse") == 0) {
                if (parse_size_or_auto(value, &u64) < 0)
                        return ini_file_error(ini, "invalid MaxUse= size '%s'", value);
                c->max_use = u64;
        } else if (strcmp(key, "MaxUsePerUser") == 0) {
                if (parse_size_or_auto(value, &u64) < 0)
                        return ini_file_error(ini, "invalid MaxUsePerUser= '%s'", value);
                c->max_use_per_user = u64;
        } else if (strcmp(key, "KeepFree") == 0) {
                if (parse_size_or_auto(value, &u64) < 0)
                        return ini_file_error(ini, "invalid KeepFree= size '%s'", value);
                c->keep_free = u64;
        } else if (strcmp(key, "MaxSize") == 0) {
                if (parse_size(value, &u64) < 0 || u64 == 0)
                        return ini_file_error(ini, "invalid MaxSize= size '%s'", value);
                c->max_size = u64;
        } else if (strcmp(key, "Compress") == 0) {
                if (compression_from_string(value, &c->compress) < 0)
                        return ini_file_error(ini, "invalid Compress= '%s', expected zstd or none", value);
        } else if (strcmp(key, "CompressLevel") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 < 1 || u32 > 19)
                        return ini_file_error(ini, "invalid CompressLevel= '%s', expected 1..19", value);
                c->compress_level = (int) u32;
        } else if (strcmp(key, "MaxConcurrent") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 < 1 || u32 > 1024)
                        return ini_file_error(ini, "invalid MaxConcurrent= '%s', expected 1..1024", value);
                c->max_concurrent = u32;
        } else if (strcmp(key, "MaxConcurrentPerUser") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 < 1 || u32 > 1024)
                        return ini_file_error(ini, "invalid MaxConcurrentPerUser= '%s', expected 1..1024", value);
                c->max_concurrent_per_user = u32;
        } else if (strcmp(key, "ReservedConcurrent") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 > 1024)
                        return ini_file_error(ini, "invalid ReservedConcurrent= '%s', expected 0..1024", value);
                c->reserved_concurrent = u32;
        } else if (strcmp(key, "MaxQueued") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 > 65536)
                        return ini_file_error(ini, "invalid MaxQueued= '%s', expected 0..65536", value);
                c->max_queued = u32;
        } else if (strcmp(key, "Deadline") == 0) {
                if (parse_duration(value, &u64) < 0 || u64 < USEC_PER_MSEC)
                        return ini_file_error(ini, "invalid Deadline= '%s'", value);
                c->deadline_usec = u64;
        } else if (strcmp(key, "QueueDeadline") == 0) {
                if (parse_duration(value, &u64) < 0 || u64 < USEC_PER_MSEC)
                        return ini_file_error(ini, "invalid QueueDeadline= '%s'", value);
                c->queue_deadline_usec = u64;
        } else if (strcmp(key, "RateLimitIntervalSec") == 0) {
                if (parse_duration(value, &u64) < 0 || u64 == 0)
                        return ini_file_error(ini, "invalid RateLimitIntervalSec= '%s'", value);
                c->rate_limit_interval_usec = u64;
        } else if (strcmp(key, "RateLimitBurst") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 > 1000000)
                        return ini_file_error(ini, "invalid RateLimitBurst= '%s'", value);
                c->rate_limit_burst = u32;
        } else if (strcmp(key, "OnRepeat") == 0) {
                enum action a = action_from_string(value);
                if (a != ACTION_REJECT && a != ACTION_USERSPACE)
                        return ini_file_error(ini, "invalid OnRepeat= '%s', expected userspace or reject", value);
                c->on_repeat = (int) a;
        } else if (strcmp(key, "UnwindTimeout") == 0) {
                if (parse_duration(value, &u64) < 0)
                        return ini_file_error(ini, "invalid UnwindTimeout= '%s'", value);
                c->unwind_timeout_usec = u64;
        } else if (strcmp(key, "UnwindMaxFrames") == 0) {
                if (parse_uint32(value, &u32) < 0 || u32 < 1 || u32 > 64)
                        return ini_file_error(ini, "invalid UnwindMaxFrames= '%s', expected 1..64", value);
                c->unwind_max_frames = u32;
        } else if (strcmp(key, "MinRate") == 0) {
                if (parse_size(value, &u64) < 0 || u64 < 1024)
                        return ini_file_error(ini, "invalid MinRate= '%s', expected a size per second of at least 1K", value);
                c->min_rate = u64;
        } else if (strcmp(key, "IdleExit") == 0) {
                if (parse_duration(value, &u64) < 0)
                        return ini_file_error(ini, "invalid IdleExit= '%s'", value);
                c->idle_exit_usec = u64;
        } else
                return ini_file_error(ini, "unknown key '%s' in [%s]", key, CONFIG_SECTION);

        return 0;
}

int config_load(struct config *c, const char *path, int must_exist) {
        _cleanup_fclose_ FILE *f = NULL;
        struct config parsed = *c;
        int r;

        f = fopen(path, "re");
        if (!f) {
                if (errno == ENOENT && !must_exist)
                        return 0;
                return log_error_errno(errno, "%s: cannot open: %m", path);
        }

        parsed.storage = strdup(c->storage ? c->storage : COREDUMPD_STORAGE_DIR);
        if (!parsed.storage)
                return log_error_errno(ENOMEM, "%s: %m", path);

        struct ini_file ini = { .path = path };
        r = ini_file_parse(&ini, f, config_entry, &parsed);
        if (r >= 0)
                r = ini_file_report(&ini);
        if (r < 0) {
                config_done(&parsed);
                return r;
        }

        config_done(c);
        *c = parsed;
        return 0;
}
