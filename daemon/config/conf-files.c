/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The .d directories, /etc over /run over /usr/lib, their *.conf files by name: one lookup for
 * policy.d and coredumpd.conf.d. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build-config.h"
#include "config/conf-files.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/strv.h"

#define CONF_SUFFIX ".conf"

static const struct {
        const char *env;
        const char *const dirs[4];
} conf_kinds[_CONF_KIND_MAX] = {
        [CONF_POLICY] = {
                "COREDUMPD_POLICY_PATH",
                { COREDUMPD_POLICY_DIR_ETC, COREDUMPD_POLICY_DIR_RUN, COREDUMPD_POLICY_DIR_VENDOR, NULL },
        },
        [CONF_DROPIN] = {
                "COREDUMPD_CONFIG_DROPIN_PATH",
                { COREDUMPD_DROPIN_DIR_ETC, COREDUMPD_DROPIN_DIR_RUN, COREDUMPD_DROPIN_DIR_VENDOR, NULL },
        },
};

void conf_file_list_done(struct conf_file_list *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->files[i].name);
                free(l->files[i].path);
        }
        free(l->files);
        *l = (struct conf_file_list) {};
}

static bool conf_file_list_has(const struct conf_file_list *l, const char *name) {
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->files[i].name, name) == 0)
                        return true;
        return false;
}

static bool is_conf_file_name(const char *name) {
        size_t n = strlen(name), k = strlen(CONF_SUFFIX);
        return name[0] != '.' && n > k && strcmp(name + n - k, CONF_SUFFIX) == 0;
}

/* Adds dir's *.conf files whose names no directory of higher priority took. 1: the directory
 * could not be read (logged, the others still count), 0, or -ENOMEM. */
static int conf_file_list_add_dir(struct conf_file_list *l, const char *dir) {
        _cleanup_closedir_ DIR *d = opendir(dir);
        if (!d) {
                if (errno == ENOENT)
                        return 0;
                log_warning_errno(errno, "Cannot open directory %s: %m, ignored", dir);
                return 1;
        }

        struct dirent *de;
        while ((errno = 0, de = readdir(d))) {
                if (!is_conf_file_name(de->d_name) || conf_file_list_has(l, de->d_name))
                        continue;

                struct conf_file f = {};
                if (!(f.name = strdup(de->d_name)) || asprintf(&f.path, "%s/%s", dir, de->d_name) < 0) {
                        free(f.name);
                        return log_error_errno(ENOMEM, "%m");
                }

                struct stat st;
                if (stat(f.path, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
                        /* A directory or dangling link named *.conf is no file. A link to /dev/null
                         * (a character device) masks the name, as in systemd. */
                        free(f.name);
                        free(f.path);
                        continue;
                }
                f.masked = S_ISCHR(st.st_mode);

                struct conf_file *grown = realloc(l->files, (l->n + 1) * sizeof *grown);
                if (!grown) {
                        free(f.name);
                        free(f.path);
                        return log_error_errno(ENOMEM, "%m");
                }
                grown[l->n++] = f;
                l->files = grown;
        }
        if (errno != 0) {
                log_warning_errno(errno, "Cannot read directory %s: %m, the rest of it ignored", dir);
                return 1;
        }
        return 0;
}

static int conf_file_compare(const void *a, const void *b) {
        return strcmp(((const struct conf_file *) a)->name, ((const struct conf_file *) b)->name);
}

int conf_files_list(const char *const *dirs, struct conf_file_list *ret) {
        struct conf_file_list l = {};
        int problems = 0;

        for (const char *const *d = dirs; d && *d; d++) {
                int r = conf_file_list_add_dir(&l, *d);
                if (r < 0) {
                        conf_file_list_done(&l);
                        return r;
                }
                problems += r;
        }
        if (l.n > 1)
                qsort(l.files, l.n, sizeof l.files[0], conf_file_compare);
        *ret = l;
        return problems;
}

const char *const *conf_dirs_default(enum conf_kind kind) {
        static char **from_env[_CONF_KIND_MAX];

        const char *e = getenv(conf_kinds[kind].env);
        if (!e || !*e)
                return conf_kinds[kind].dirs;
        if (!from_env[kind])
                from_env[kind] = strv_split(e, ":");
        return from_env[kind] ? (const char *const *) from_env[kind] : conf_kinds[kind].dirs;
}

const char *const *conf_dirs_or_default(char *const *given, enum conf_kind kind) {
        return given ? (const char *const *) given : conf_dirs_default(kind);
}
