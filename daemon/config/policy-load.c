/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build-config.h"
#include "config/policy.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/strv.h"

#define POLICY_SUFFIX ".conf"

struct policy_file {
        char *name;     /* file name, the key for overriding */
        char *path;
};

struct policy_file_list {
        struct policy_file *files;
        size_t n;
};

static void policy_file_list_done(struct policy_file_list *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->files[i].name);
                free(l->files[i].path);
        }
        free(l->files);
}

static bool policy_file_list_has(const struct policy_file_list *l, const char *name) {
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->files[i].name, name) == 0)
                        return true;
        return false;
}

static bool is_policy_file_name(const char *name) {
        size_t n = strlen(name), k = strlen(POLICY_SUFFIX);
        return name[0] != '.' && n > k && strcmp(name + n - k, POLICY_SUFFIX) == 0;
}

/* Adds dir's *.conf files whose names are not taken by a directory of higher priority. */
static int policy_file_list_add_dir(struct policy_file_list *l, const char *dir) {
        _cleanup_closedir_ DIR *d = opendir(dir);
        if (!d) {
                if (errno == ENOENT)
                        return 0;
                return log_error_errno(errno, "Cannot open policy directory %s: %m", dir);
        }

        struct dirent *de;
        while ((errno = 0, de = readdir(d))) {
                if (!is_policy_file_name(de->d_name) || policy_file_list_has(l, de->d_name))
                        continue;

                struct policy_file f = {};
                if (!(f.name = strdup(de->d_name)) || asprintf(&f.path, "%s/%s", dir, de->d_name) < 0) {
                        free(f.name);
                        return log_error_errno(ENOMEM, "%m");
                }

                struct stat st;
                if (stat(f.path, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
                        /* A directory or dangling link named *.conf is not a policy file. A link to
                         * /dev/null (character device) masks the name, as in systemd. */
                        free(f.name);
                        free(f.path);
                        continue;
                }

                struct policy_file *grown = realloc(l->files, (l->n + 1) * sizeof *grown);
                if (!grown) {
                        free(f.name);
                        free(f.path);
                        return log_error_errno(ENOMEM, "%m");
                }
                grown[l->n++] = f;
                l->files = grown;
        }
        if (errno != 0)
                return log_error_errno(errno, "Cannot read policy directory %s: %m", dir);
        return 0;
}

static int policy_file_compare(const void *a, const void *b) {
        return strcmp(((const struct policy_file *) a)->name, ((const struct policy_file *) b)->name);
}

static int policy_load_file(struct policy *p, const struct policy_file *pf) {
        struct stat st;

        if (stat(pf->path, &st) == 0 && S_ISCHR(st.st_mode))
                return 0; /* masked */

        _cleanup_fclose_ FILE *f = fopen(pf->path, "re");
        if (!f)
                return log_error_errno(errno, "Cannot open policy file %s: %m", pf->path);
        return policy_parse_file(p, f, pf->path);
}

int policy_load(const char *const *dirs, struct policy **ret) {
        _cleanup_(policy_file_list_done) struct policy_file_list files = {};
        _cleanup_(policy_unrefp) struct policy *p = NULL;
        int r;

        for (const char *const *d = dirs; d && *d; d++) {
                r = policy_file_list_add_dir(&files, *d);
                if (r < 0)
                        return r;
        }
        if (files.n > 0)
                qsort(files.files, files.n, sizeof files.files[0], policy_file_compare);

        p = policy_new();
        if (!p)
                return log_error_errno(ENOMEM, "%m");

        for (size_t i = 0; i < files.n; i++) {
                r = policy_load_file(p, &files.files[i]);
                if (r < 0)
                        return r;
        }

        r = policy_add_builtin_rules(p);
        if (r < 0)
                return log_error_errno(r, "%m");

        *ret = TAKE_PTR(p);
        return 0;
}

const char *const *policy_default_dirs(void) {
        static const char *const builtin[] = {
                COREDUMPD_POLICY_DIR_ETC,
                COREDUMPD_POLICY_DIR_RUN,
                COREDUMPD_POLICY_DIR_VENDOR,
                NULL,
        };
        static char **from_env;

        const char *e = getenv("COREDUMPD_POLICY_PATH");
        if (!e || !*e)
                return builtin;
        if (!from_env)
                from_env = strv_split(e, ":");
        return from_env ? (const char *const *) from_env : builtin;
}

const char *const *policy_dirs_or_default(char *const *given) {
        return given ? (const char *const *) given : policy_default_dirs();
}
