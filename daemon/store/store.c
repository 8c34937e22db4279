/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The store: its directory, a core's name and attributes, and any core written into an unnamed
 * file and linked when complete. Streaming from the socket: stream.c; copying a file in
 * (compression, kept files): copy.c; a writer in a process of its own: writer-process.c. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/escape.h"
#include "shared/log.h"
#include "shared/names.h"
#include "shared/timestamp.h"
#include "store/core-writer.h"
#include "store/store-internal.h"
#include "store/store.h"

/* ---- the store directory --------------------------------------------------------------------- */

int store_open(const char *path, const struct config *config, struct store **ret) {
        if (mkdir(path, 0751) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Cannot create store directory %s: %m", path);

        _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return log_error_errno(errno, "Cannot open store directory %s: %m", path);

        struct store *s = calloc(1, sizeof *s);
        if (!s || !(s->path = strdup(path))) {
                free(s);
                return log_error_errno(ENOMEM, "%m");
        }
        s->dir_fd = TAKE_FD(fd);
        pthread_mutex_init(&s->limits_lock, NULL);
        store_set_limits(s, config);
        pthread_mutex_init(&s->vacuum_lock, NULL);
        pthread_mutex_init(&s->reserve_lock, NULL);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        (void) sem_init(&s->compress_slots, 0, (unsigned) MAX(1L, cpus / 2));
        atomic_init(&s->interrupted, false);
        s->metrics = metrics_open(s->dir_fd); /* NULL: nothing counted, all else as before */
        *ret = s;
        return 0;
}

void store_set_limits(struct store *s, const struct config *config) {
        struct store_limits l = {
                .max_use = config->max_use,
                .max_use_per_user = config->max_use_per_user,
                .keep_free = config->keep_free,
                .max_age_usec = config->max_age_usec,
                .keep_per_signature = config->keep_per_signature,
                .compress_level = config->compress_level,
        };
        pthread_mutex_lock(&s->limits_lock);
        s->limits = l;
        pthread_mutex_unlock(&s->limits_lock);
}

struct store_limits store_get_limits(struct store *s) {
        pthread_mutex_lock(&s->limits_lock);
        struct store_limits l = s->limits;
        pthread_mutex_unlock(&s->limits_lock);
        return l;
}

struct store *store_free(struct store *s) {
        if (!s)
                return NULL;
        metrics_close(s->metrics);
        safe_close(s->dir_fd);
        pthread_mutex_destroy(&s->limits_lock);
        pthread_mutex_destroy(&s->vacuum_lock);
        free(s->tally.users);
        pthread_mutex_destroy(&s->reserve_lock);
        sem_destroy(&s->compress_slots);
        free(s->path);
        free(s);
        return NULL;
}

void stored_core_done(struct stored_core *c) {
        free(c->name);
        free(c->path);
        *c = (struct stored_core) {};
}

char *store_core_name(const char *comm, uid_t uid, const char *boot_id, pid_t pid, uint64_t timestamp_usec,
                      enum compression compression) {
        _cleanup_free_ char *part = escape_filename_part(comm);
        char *name;

        if (!part)
                return NULL;
        if (asprintf(&name, "core.%s.%" PRIu32 ".%s.%" PRIi32 ".%" PRIu64 "%s", part, (uint32_t) uid, boot_id,
                     (int32_t) pid, timestamp_usec, compression == COMPRESSION_ZSTD ? ".zst" : "") < 0)
                return NULL;
        return name;
}

/* ---- metadata on the file -------------------------------------------------------------------- */

static int set_xattr(int fd, enum field field, const char *value) {
        if (!value)
                return 0;
        return fsetxattr(fd, field_table[field].xattr, value, strlen(value), 0) < 0 ? negative_errno() : 0;
}

/* The crash's fields that have an attribute (user.coredump.* as systemd-coredump sets them, and
 * ours), so that the core carries its record even when the journal loses it. */
static void store_set_xattrs(int fd, const struct fields *metadata, bool truncated, const char *tag) {
        int r = 0;

        if (!metadata)
                return; /* not a core: a file kept beside one */

        for (enum field f = 0; f < _FIELD_MAX && r >= 0; f++)
                if (field_table[f].xattr)
                        r = set_xattr(fd, f, fields_get(metadata, f));
        if (truncated && r >= 0)
                r = set_xattr(fd, FIELD_TRUNCATED, "1");

        if (r < 0)
                log_crash_errno(tag, r == -EOPNOTSUPP ? LOG_DEBUG : LOG_WARNING, r,
                                "Cannot set user.coredump.* attributes on the core: %m");
}

/* Grants the crashing user read access through an ACL entry user:<uid>:r--. */
static int store_grant_user_read(int fd, uid_t uid, const char *tag) {
        acl_t acl = NULL;
        acl_entry_t entry;
        acl_permset_t permset;
        int r = 0;

        if (uid == 0 || uid == STORE_NO_READER)
                return 0; /* root reads it anyway */

        acl = acl_get_fd(fd);
        if (!acl ||
            acl_create_entry(&acl, &entry) < 0 ||
            acl_set_tag_type(entry, ACL_USER) < 0 ||
            acl_set_qualifier(entry, &uid) < 0 ||
            acl_get_permset(entry, &permset) < 0 ||
            acl_clear_perms(permset) < 0 ||
            acl_add_perm(permset, ACL_READ) < 0 ||
            acl_calc_mask(&acl) < 0 ||
            acl_set_fd(fd, acl) < 0)
                r = negative_errno();
        if (acl)
                acl_free(acl);

        if (r < 0)
                log_crash_errno(tag, r == -EOPNOTSUPP ? LOG_NOTICE : LOG_WARNING, r,
                                "Cannot grant uid %u read access to its dump: %m", (unsigned) uid);
        return r;
}

static int store_link(struct store *s, int fd, const char *name) {
        char proc_path[64];

        snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, proc_path, s->dir_fd, name, AT_SYMLINK_FOLLOW) >= 0)
                return 0;
        if (errno != ENOENT)
                return negative_errno();

        /* No /proc: linking an fd directly needs CAP_DAC_READ_SEARCH, which root has. */
        return linkat(fd, "", s->dir_fd, name, AT_EMPTY_PATH) < 0 ? negative_errno() : 0;
}

static int store_finish_file(int fd, const struct store_target *t, bool truncated, char *reason,
                             size_t reason_size) {
        if (fchmod(fd, CORE_FILE_MODE) < 0 || (geteuid() == 0 && fchown(fd, 0, 0) < 0)) {
                int r = negative_errno();
                snprintf(reason, reason_size, "cannot set owner and mode of the core: %s", strerror(-r));
                return r;
        }

        store_set_xattrs(fd, t->metadata, truncated, t->tag);
        (void) store_grant_user_read(fd, t->reader_uid, t->tag);

        if (!t->sync_later && fdatasync(fd) < 0) {
                int r = negative_errno();
                snprintf(reason, reason_size, "cannot sync the core: %s", strerror(-r));
                return r;
        }
        return 0;
}

/* ---- any core: written by a fill function into an unnamed file, then linked ------------------- */

int store_core_generated(struct store *s, const struct store_target *t, store_generate_fn generate,
                         void *userdata, struct stored_core *ret, char *reason, size_t reason_size) {
        _cleanup_(core_writer_done) struct core_writer writer = {};
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *name = NULL, *path = NULL;
        bool truncated = false;
        int r;

        name = strdup(t->name);
        if (!name || asprintf(&path, "%s/%s", s->path, name) < 0) {
                path = NULL;
                snprintf(reason, reason_size, "out of memory");
                return -ENOMEM;
        }
        fd = openat(s->dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC | O_NOFOLLOW, CORE_FILE_MODE);
        if (fd < 0) {
                r = negative_errno();
                snprintf(reason, reason_size, "cannot create an unnamed file (O_TMPFILE) in %s: %s", s->path,
                         strerror(-r));
                return r;
        }
        r = core_writer_init(&writer, fd, t->compress, store_get_limits(s).compress_level);
        if (r < 0) {
                snprintf(reason, reason_size, "cannot set up the compressor: %s", strerror(-r));
                return r;
        }

        r = generate(&writer, userdata, &truncated, reason, reason_size);
        if (r >= 0) {
                r = core_writer_finish(&writer);
                if (r < 0)
                        snprintf(reason, reason_size, "finishing the core failed: %s", strerror(-r));
        }
        if (r >= 0)
                r = store_finish_file(fd, t, truncated, reason, reason_size);
        if (r >= 0) {
                r = store_link(s, fd, name);
                if (r < 0)
                        snprintf(reason, reason_size, "cannot link the core as %s: %s", path, strerror(-r));
        }
        if (r < 0)
                return r;

        struct stat st;
        *ret = (struct stored_core) {
                .name = TAKE_PTR(name),
                .path = TAKE_PTR(path),
                .size = writer.size,
                .disk_size = fstat(fd, &st) >= 0 ? (uint64_t) st.st_blocks * 512 : 0,
                .truncated = truncated,
                .sync_pending = t->sync_later,
                .punch_pending = writer.spliced,
                .linked_usec = now_usec(),
                .compression = t->compress,
        };
        if (truncated)
                log_crash(t->tag, LOG_WARNING, "Core truncated at %" PRIu64 " bytes (MaxSize=).", writer.size);
        return 0;
}

int store_settle(struct store *s, struct stored_core *c, const char *tag, char *reason, size_t reason_size) {
        if (!c->punch_pending && !c->sync_pending)
                return 0;
        _cleanup_close_ int fd = openat(s->dir_fd, c->name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        int r = fd < 0 ? negative_errno() : 0;
        if (c->punch_pending && (r >= 0 || !c->sync_pending)) { /* else the sync's failure says why */
                int p = r < 0 ? r : core_file_punch_zeros(fd, c->size);
                struct stat st;
                if (p < 0)
                        log_crash_errno(tag, p == -EOPNOTSUPP ? LOG_DEBUG : LOG_NOTICE, p,
                                        "The zero blocks of %s stay data: cannot punch holes: %m", c->path);
                else if (fstat(fd, &st) >= 0)
                        c->disk_size = (uint64_t) st.st_blocks * 512;
        }
        c->punch_pending = false;
        if (!c->sync_pending)
                return 0;
        if (r >= 0 && fdatasync(fd) < 0)
                r = negative_errno();
        if (r < 0) {
                snprintf(reason, reason_size, "cannot sync the core: %s", strerror(-r));
                if (unlinkat(s->dir_fd, c->name, 0) < 0 && errno != ENOENT)
                        log_error_errno(errno, "Cannot remove %s, which could not be synced: %m", c->path);
                return r;
        }
        c->sync_pending = false;
        return 0;
}
