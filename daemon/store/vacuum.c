/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/fields.h"
#include "shared/fileio.h"
#include "shared/parse.h"
#include "shared/log.h"
#include "store/store.h"

#define AUTO_LIMIT_CAP (UINT64_C(4) << 30)

struct stored_file {
        char *name;
        struct timespec mtime;
        uint64_t disk_size;
        struct tenant owner;    /* its tenant attribute, else the uid of its name (UINT32_MAX: none) */
        uint64_t max_age_usec;  /* its rule's MaxAge= (user.coredumpd.max_age); 0: the store's */
        char signature[17];     /* user.coredumpd.signature; "": none (KeepPerSignature= spares it) */
        bool removed;
        bool attached;          /* a file kept with a core that is there: goes with it */
        struct stored_file *core;       /* for an attached file: its core */
};

struct stored_files {
        struct stored_file *files;
        size_t n;
        uint64_t usage;
};

static void stored_files_done(struct stored_files *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->files[i].name);
        free(l->files);
}

static int stored_file_compare(const void *a, const void *b) {
        const struct stored_file *x = a, *y = b;
        if (x->mtime.tv_sec != y->mtime.tv_sec)
                return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
        if (x->mtime.tv_nsec != y->mtime.tv_nsec)
                return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
        return strcmp(x->name, y->name);
}

uint32_t store_name_uid(const char *name) {
        const char *p = strchr(name + 5, '.');
        char *end;

        if (!p)
                return UINT32_MAX;
        errno = 0;
        unsigned long v = strtoul(p + 1, &end, 10);
        return errno == 0 && end != p + 1 && *end == '.' && v < UINT32_MAX ? (uint32_t) v : UINT32_MAX;
}

static int read_xattr(int fd, const char *name, char *buf, size_t size) {
        ssize_t n = fgetxattr(fd, name, buf, size - 1);
        if (n <= 0)
                return -ENODATA;
        buf[n] = 0;
        return 0;
}

/* Whom a stored file counts against for MaxUsePerUser= and the vacuum: its tenant attribute (a
 * container's namespace, the user a subuid range belongs to), else, on a core of before tenants,
 * its owner attribute, else the uid in its name. And how old it may grow: the MaxAge= of the rule
 * that kept it, if that rule said. */
static void file_attributes(int dir_fd, struct stored_file *f) {
        f->owner = (struct tenant) { .uid = store_name_uid(f->name) };
        _cleanup_close_ int fd = openat(dir_fd, f->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        char v[TENANT_TEXT_MAX];
        if (fd < 0)
                return;
        if (read_xattr(fd, field_table[FIELD_TENANT].xattr, v, sizeof v) < 0 || tenant_parse(v, &f->owner) < 0) {
                struct tenant o;
                if (read_xattr(fd, field_table[FIELD_OWNER_UID].xattr, v, sizeof v) >= 0 && tenant_parse(v, &o) >= 0 &&
                    o.userns == 0)
                        f->owner = o;
        }
        uint64_t age;
        if (read_xattr(fd, field_table[FIELD_MAX_AGE].xattr, v, sizeof v) >= 0 && parse_max_age(v, &age) >= 0)
                f->max_age_usec = age;
        if (read_xattr(fd, field_table[FIELD_SIGNATURE].xattr, v, sizeof v) >= 0 && strlen(v) == 16 &&
            strspn(v, "0123456789abcdef") == 16)
                memcpy(f->signature, v, sizeof f->signature);
}

/* The core whose attachment name is (store_name_is_attachment()), if it is there. */
static struct stored_file *core_of(struct stored_files *l, const char *name, size_t base_len) {
        for (size_t i = 0; i < l->n; i++) {
                const char *c = l->files[i].name;
                size_t n = strlen(c);
                if (n >= 4 && strcmp(c + n - 4, ".zst") == 0)
                        n -= 4;
                if (n == base_len && strncmp(c, name, base_len) == 0 && !store_name_is_attachment(c, NULL))
                        return &l->files[i];
        }
        return NULL;
}

/* Files kept with a core count to it and go with it; those whose core is gone stand alone. */
static void attach_files(struct stored_files *l) {
        for (size_t i = 0; i < l->n; i++) {
                size_t base_len;
                if (!store_name_is_attachment(l->files[i].name, &base_len))
                        continue;
                struct stored_file *core = core_of(l, l->files[i].name, base_len);
                if (!core)
                        continue;
                l->files[i].attached = true;
                l->files[i].core = core;
                core->disk_size += l->files[i].disk_size;
        }
}

/* The store's core.* regular files, oldest first. */
static int list_stored_files(int dir_fd, struct stored_files *ret) {
        _cleanup_closedir_ DIR *d = NULL;
        int k = open_dir_at(dir_fd, ".", &d);
        if (k < 0)
                return k;

        struct dirent *de;
        while ((errno = 0, de = readdir(d))) {
                struct stat st;

                if (strncmp(de->d_name, "core.", 5) != 0)
                        continue;
                if (fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;

                struct stored_file *grown = realloc(ret->files, (ret->n + 1) * sizeof *grown);
                if (!grown)
                        return -ENOMEM;
                ret->files = grown;
                char *name = strdup(de->d_name);
                if (!name)
                        return -ENOMEM;
                struct stored_file *f = &ret->files[ret->n++];
                *f = (struct stored_file) {
                        .name = name,
                        .mtime = st.st_mtim,
                        .disk_size = (uint64_t) st.st_blocks * 512,
                };
                file_attributes(dir_fd, f);
                ret->usage += (uint64_t) st.st_blocks * 512;
        }
        if (errno != 0)
                return negative_errno();

        if (ret->n > 0)
                qsort(ret->files, ret->n, sizeof ret->files[0], stored_file_compare);
        attach_files(ret);
        return 0;
}

uint64_t store_limit(uint64_t configured, uint64_t fs_size, unsigned percent) {
        if (configured != SIZE_AUTO)
                return configured;
        return MIN(fs_size / 100 * percent, AUTO_LIMIT_CAP);
}

struct user_usage {
        struct tenant owner;
        uint64_t usage;
};

/* Each user's total, over the files not removed. */
static int users_tally(const struct stored_files *l, struct user_usage **ret, size_t *ret_n) {
        struct user_usage *u = NULL;
        size_t n = 0;

        for (size_t i = 0; i < l->n; i++) {
                size_t k = 0;
                if (l->files[i].attached)
                        continue; /* counted with its core */
                while (k < n && !tenant_equal(&u[k].owner, &l->files[i].owner))
                        k++;
                if (k == n) {
                        struct user_usage *grown = realloc(u, (n + 1) * sizeof *grown);
                        if (!grown) {
                                free(u);
                                return -ENOMEM;
                        }
                        u = grown;
                        u[n++] = (struct user_usage) { .owner = l->files[i].owner };
                }
                u[k].usage += l->files[i].disk_size;
        }
        *ret = u;
        *ret_n = n;
        return 0;
}

static struct user_usage *user_of(struct user_usage *u, size_t n, const struct tenant *owner) {
        for (size_t k = 0; k < n; k++)
                if (tenant_equal(&u[k].owner, owner))
                        return &u[k];
        return NULL;
}

/* The oldest file of owner's that may go. */
static struct stored_file *oldest_of(struct stored_files *l, const char *keep, const struct tenant *owner) {
        for (size_t i = 0; i < l->n; i++) {
                struct stored_file *f = &l->files[i];
                if (!f->removed && !f->attached && tenant_equal(&f->owner, owner) && !(keep && strcmp(f->name, keep) == 0))
                        return f;
        }
        return NULL;
}

/* The next file to remove, and why; NULL when every limit holds. First the oldest of a user over
 * its share, then, while the store is over budget, the oldest of whichever user takes the most. */
static struct stored_file *pick_victim(struct stored_files *l, struct user_usage *u, size_t n, const char *keep,
                                       uint64_t per_user, bool over_budget, const char **ret_why) {
        struct stored_file *f;

        for (size_t k = 0; k < n; k++)
                if (u[k].usage > per_user && (f = oldest_of(l, keep, &u[k].owner))) {
                        *ret_why = "MaxUsePerUser=";
                        return f;
                }
        if (!over_budget)
                return NULL;

        /* Largest users first; one whose only file is the kept one is skipped. */
        for (;;) {
                struct user_usage *most = NULL;
                for (size_t k = 0; k < n; k++)
                        if (u[k].usage > 0 && (!most || u[k].usage > most->usage))
                                most = &u[k];
                if (!most)
                        return NULL;
                if ((f = oldest_of(l, keep, &most->owner))) {
                        *ret_why = "MaxUse=/KeepFree=";
                        return f;
                }
                most->usage = 0; /* nothing of it may go: look at the next */
        }
}

uint64_t store_usage_of(struct store *s, const struct tenant *owner) {
        _cleanup_(stored_files_done) struct stored_files files = {};
        uint64_t used = 0;

        if (list_stored_files(s->dir_fd, &files) < 0)
                return 0;
        for (size_t i = 0; i < files.n; i++)
                if (tenant_equal(&files.files[i].owner, owner))
                        used += files.files[i].disk_size;
        return used;
}

/* Removes f, and what was kept with it (its size was counted to the core). Returns the number of
 * files removed. */
static int remove_stored(struct store *s, struct stored_files *files, struct user_usage *users, size_t n_users,
                         struct stored_file *f, const char *why, uint64_t *free_space, const char *tag) {
        int removed = 0;

        f->removed = true;
        struct user_usage *owner = user_of(users, n_users, &f->owner);
        if (owner)
                owner->usage -= MIN(owner->usage, f->disk_size);
        if (unlinkat(s->dir_fd, f->name, 0) < 0) {
                if (errno != ENOENT)
                        log_crash_errno(tag, LOG_WARNING, errno, "Cannot remove old dump %s/%s: %m", s->path, f->name);
                return 0;
        }
        log_crash(tag, LOG_INFO, "Removed old dump %s/%s (%" PRIu64 " bytes) to honour %s.", s->path, f->name,
                  f->disk_size, why);
        enum metrics_vacuum_cause cause = strcmp(why, "MaxAge=") == 0 ? METRICS_VACUUM_AGE :
                                          strcmp(why, "MaxUsePerUser=") == 0 ? METRICS_VACUUM_PER_USER :
                                          METRICS_VACUUM_SIZE;
        metrics_add(s->metrics, METRICS_VACUUMED_CORES + cause, 1);
        metrics_add(s->metrics, METRICS_VACUUMED_BYTES + cause, f->disk_size);
        files->usage -= MIN(files->usage, f->disk_size);
        *free_space += f->disk_size;
        removed++;
        for (size_t i = 0; i < files->n; i++) {
                struct stored_file *a = &files->files[i];
                if (!a->attached || a->core != f || a->removed)
                        continue;
                a->removed = true;
                if (unlinkat(s->dir_fd, a->name, 0) < 0 && errno != ENOENT)
                        log_crash_errno(tag, LOG_WARNING, errno, "Cannot remove %s/%s kept with %s: %m", s->path,
                                        a->name, f->name);
                else
                        removed++;
        }
        return removed;
}

/* When f outlives its MaxAge= (its rule's, else the store's), CLOCK_REALTIME usec; UINT64_MAX:
 * never. */
static uint64_t expiry_of(const struct store_limits *l, const struct stored_file *f) {
        uint64_t limit = f->max_age_usec ?: l->max_age_usec;
        if (limit == 0 || limit == USEC_INFINITY || f->mtime.tv_sec < 0)
                return UINT64_MAX;
        uint64_t mtime = (uint64_t) f->mtime.tv_sec * USEC_PER_SEC + (uint64_t) f->mtime.tv_nsec / 1000;
        return mtime > UINT64_MAX - limit ? UINT64_MAX : mtime + limit;
}

/* Whether f is older than its MaxAge= at now (CLOCK_REALTIME). */
static bool too_old(const struct store_limits *l, const struct stored_file *f, uint64_t now) {
        return now > expiry_of(l, f);
}

/* What the full pass left, kept for the next crash's store_vacuum(): the usage, each user's, the
 * first expiry. */
static void tally_keep(struct store *s, const struct store_limits *l, const struct stored_files *files,
                       struct user_usage *users, size_t n_users) {
        struct store_tally *t = &s->tally;
        struct user_usage *copy = n_users > 0 ? calloc(n_users, sizeof *copy) : NULL;

        free(t->users);
        *t = (struct store_tally) { .next_expiry = UINT64_MAX, .max_age_usec = l->max_age_usec };
        if (n_users > 0 && !copy)
                return; /* not valid: the next crash lists the store again */
        if (n_users > 0)
                memcpy(copy, users, n_users * sizeof *copy);
        for (size_t i = 0; i < files->n; i++)
                if (!files->files[i].removed && !files->files[i].attached)
                        t->next_expiry = MIN(t->next_expiry, expiry_of(l, &files->files[i]));
        t->usage = files->usage;
        t->users = copy;
        t->n_users = n_users;
        t->valid = true;
}

/* The new core keep as the full pass would count it: its size with the files kept with it, its
 * owner, its expiry. False if it cannot be looked at. */
static bool new_core_look(int dir_fd, const char *keep, struct stored_file *f) {
        struct stat st;

        if (fstatat(dir_fd, keep, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                return false;
        *f = (struct stored_file) { .name = (char *) keep, .mtime = st.st_mtim, .disk_size = (uint64_t) st.st_blocks * 512 };
        file_attributes(dir_fd, f);
        for (unsigned k = 0;; k++) {
                _cleanup_free_ char *name = store_attachment_name(keep, k);
                if (!name || fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        break;
                f->disk_size += (uint64_t) st.st_blocks * 512;
        }
        return true;
}

/* The last pass's tally with the new core keep in it, when that breaks no limit and nothing has
 * outlived its MaxAge= since: then there is nothing to remove, and the store need not be listed
 * (a crash loop would list, stat and read the attributes of every core it left, per crash). Files
 * removed by others meanwhile only make the tally high: a pass comes sooner than needed, never
 * later. */
static bool tally_holds(struct store *s, const struct store_limits *l, const char *keep, uint64_t now,
                        uint64_t max_use, uint64_t max_use_per_user, uint64_t free_space, uint64_t keep_free) {
        struct store_tally *t = &s->tally;
        struct stored_file f;

        if (!t->valid || !keep || t->max_age_usec != l->max_age_usec || !new_core_look(s->dir_fd, keep, &f))
                return false;
        /* KeepPerSignature= counts the signature's cores: the store is listed for one that has one. */
        if (l->keep_per_signature > 0 && f.signature[0])
                return false;
        struct user_usage *u = user_of(t->users, t->n_users, &f.owner);
        uint64_t usage = t->usage + f.disk_size, user = (u ? u->usage : 0) + f.disk_size;
        uint64_t expiry = MIN(t->next_expiry, expiry_of(l, &f));
        if (usage > max_use || free_space < keep_free || user > max_use_per_user || now > expiry || !u)
                return false;
        t->usage = usage;
        u->usage = user;
        t->next_expiry = expiry;
        return true;
}

/* How many cores of file i's signature and tenant stay newer than it (or are keep, which stays
 * whatever its time). */
static unsigned newer_of_signature(const struct stored_files *l, const char *keep, size_t i) {
        const struct stored_file *f = &l->files[i];
        unsigned n = 0;
        for (size_t k = 0; k < l->n; k++) {
                const struct stored_file *g = &l->files[k];
                bool is_keep = keep && strcmp(g->name, keep) == 0;
                if (k == i || g->removed || g->attached || (k < i && !is_keep) || strcmp(g->signature, f->signature) != 0 ||
                    !tenant_equal(&g->owner, &f->owner))
                        continue;
                n++;
        }
        return n;
}

int store_vacuum(struct store *s, const char *keep, const char *tag) {
        _cleanup_(stored_files_done) struct stored_files files = {};
        _cleanup_free_ struct user_usage *users = NULL;
        size_t n_users = 0;
        struct statvfs sv;
        struct timespec ts;
        int removed = 0, r;

        pthread_mutex_lock(&s->vacuum_lock);

        if (fstatvfs(s->dir_fd, &sv) < 0) {
                r = log_crash_errno(tag, LOG_WARNING, errno, "Cannot vacuum %s, statvfs failed: %m", s->path);
                goto finish;
        }
        uint64_t fs_size = (uint64_t) sv.f_blocks * sv.f_frsize;
        uint64_t free_space = (uint64_t) sv.f_bavail * sv.f_frsize;
        struct store_limits l = store_get_limits(s);
        uint64_t max_use = store_limit(l.max_use, fs_size, STORE_MAX_USE_PERCENT);
        uint64_t max_use_per_user = l.max_use_per_user != SIZE_AUTO ? l.max_use_per_user : max_use;
        uint64_t keep_free = store_limit(l.keep_free, fs_size, STORE_KEEP_FREE_PERCENT);
        (void) clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t now = (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;

        if (tally_holds(s, &l, keep, now, max_use, max_use_per_user, free_space, keep_free)) {
                r = 0;
                goto finish;
        }
        s->tally.valid = false;
        s->vacuum_passes++;
        r = list_stored_files(s->dir_fd, &files);
        if (r < 0) {
                log_crash_errno(tag, LOG_WARNING, r, "Cannot vacuum %s, listing failed: %m", s->path);
                goto finish;
        }

        r = users_tally(&files, &users, &n_users);
        if (r < 0)
                goto finish;

        /* First what outlived its MaxAge=, whatever room there is (systemd-coredump's tmpfiles age). */
        for (size_t i = 0; i < files.n; i++) {
                struct stored_file *f = &files.files[i];
                if (f->removed || f->attached || (keep && strcmp(f->name, keep) == 0) || !too_old(&l, f, now))
                        continue;
                removed += remove_stored(s, &files, users, n_users, f, "MaxAge=", &free_space, tag);
        }

        /* Then KeepPerSignature=: of each signature and tenant only the newest so many, the new
         * core among them. */
        if (l.keep_per_signature > 0)
                for (size_t i = files.n; i-- > 0;) {
                        struct stored_file *f = &files.files[i];
                        if (f->removed || f->attached || !f->signature[0] || (keep && strcmp(f->name, keep) == 0) ||
                            newer_of_signature(&files, keep, i) < l.keep_per_signature)
                                continue;
                        removed += remove_stored(s, &files, users, n_users, f, "KeepPerSignature=", &free_space, tag);
                }

        for (;;) {
                const char *why = NULL;
                struct stored_file *f = pick_victim(&files, users, n_users, keep, max_use_per_user,
                                                    files.usage > max_use || free_space < keep_free, &why);
                if (!f)
                        break;
                removed += remove_stored(s, &files, users, n_users, f, why, &free_space, tag);
        }
        r = removed;
        tally_keep(s, &l, &files, users, n_users);

finish:
        pthread_mutex_unlock(&s->vacuum_lock);
        return r;
}
