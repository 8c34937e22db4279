/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cleanup.h"
#include "shared/saved-files.h"

bool saved_file_path_ok(const char *path) {
        if (!path || path[0] != '/' || strlen(path) >= PATH_MAX)
                return false;
        for (const unsigned char *p = (const unsigned char *) path; *p; p++)
                if (*p < 0x20 || *p == 0x7f || *p == '\\')
                        return false;
        for (const char *c = path; *c;) {
                c++; /* past the '/' */
                size_t n = strcspn(c, "/");
                if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c += n;
        }
        return true;
}

bool saved_file_name_ok(const char *name) {
        if (!name || strncmp(name, "core.", 5) != 0 || strlen(name) > NAME_MAX)
                return false;
        for (const unsigned char *p = (const unsigned char *) name; *p; p++)
                if (*p <= 0x20 || *p == 0x7f || *p == '/')
                        return false;
        return true;
}

static bool build_id_ok(const char *s) {
        size_t n = strlen(s);
        return n % 2 == 0 && n <= 40 && strspn(s, "0123456789abcdef") == n;
}

int saved_files_add(struct saved_files *l, const struct saved_file *f) {
        if (!saved_file_path_ok(f->path) || !build_id_ok(f->build_id) || (f->stored && !saved_file_name_ok(f->stored)))
                return -EINVAL;
        struct saved_file *grown = realloc(l->v, (l->n + 1) * sizeof *grown);
        if (!grown)
                return -ENOMEM;
        l->v = grown;
        struct saved_file *n = &l->v[l->n];
        *n = (struct saved_file) { .host = f->host && !f->stored };
        memcpy(n->build_id, f->build_id, sizeof n->build_id);
        n->path = strdup(f->path);
        n->stored = f->stored ? strdup(f->stored) : NULL;
        if (!n->path || (f->stored && !n->stored)) {
                free(n->path);
                free(n->stored);
                return -ENOMEM;
        }
        l->n++;
        return 0;
}

char *saved_file_format(const struct saved_file *f) {
        char *text;
        if (asprintf(&text, "%s %s %s", f->build_id[0] ? f->build_id : "-", f->stored ? f->stored : f->host ? "host" : "-",
                     f->path) < 0)
                return NULL;
        return text;
}

int saved_files_add_line(struct saved_files *l, const char *line) {
        _cleanup_free_ char *copy = line ? strdup(line) : NULL;
        struct saved_file f = {};

        if (!copy)
                return -ENOMEM;
        char *sp1 = strchr(copy, ' ');
        char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
        if (!sp2)
                return -EINVAL;
        *sp1 = *sp2 = 0;
        if (strcmp(copy, "-") != 0) {
                if (strlen(copy) == 0 || !build_id_ok(copy))
                        return -EINVAL;
                memcpy(f.build_id, copy, strlen(copy) + 1);
        }
        const char *what = sp1 + 1;
        if (strcmp(what, "host") == 0)
                f.host = true;
        else if (strcmp(what, "-") != 0) {
                if (!saved_file_name_ok(what))
                        return -EINVAL;
                f.stored = (char *) what;
        }
        f.path = sp2 + 1;
        return saved_files_add(l, &f);
}

int saved_files_from_fields(const struct fields *f, struct saved_files *ret) {
        const char *name = field_name(FIELD_SAVED_FILE);
        size_t k = strlen(name);
        struct saved_files l = {};

        for (size_t i = 0; i < f->n; i++) {
                const char *e = f->v[i].iov_base;
                if (strncmp(e, name, k) != 0 || e[k] != '=')
                        continue;
                int r = saved_files_add_line(&l, e + k + 1);
                if (r < 0) {
                        saved_files_done(&l);
                        return r;
                }
        }
        *ret = l;
        return 0;
}

void saved_files_done(struct saved_files *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].path);
                free(l->v[i].stored);
        }
        free(l->v);
        *l = (struct saved_files) {};
}
