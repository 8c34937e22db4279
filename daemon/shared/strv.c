/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shared/strv.h"

size_t strv_length(char *const *l) {
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

int strv_extend(char ***l, const char *s) {
        size_t n = strv_length(*l);
        char *copy = strdup(s);
        if (!copy)
                return -ENOMEM;

        char **grown = realloc(*l, (n + 2) * sizeof(char *));
        if (!grown) {
                free(copy);
                return -ENOMEM;
        }
        grown[n] = copy;
        grown[n + 1] = NULL;
        *l = grown;
        return 0;
}

char **strv_free(char **l) {
        for (size_t i = 0; l && l[i]; i++)
                free(l[i]);
        free(l);
        return NULL;
}

char **strv_split(const char *s, const char *separators) {
        char **l = calloc(1, sizeof(char *));
        if (!l)
                return NULL;

        for (const char *p = s; *p;) {
                p += strspn(p, separators);
                size_t n = strcspn(p, separators);
                if (n == 0)
                        break;

                char *piece = strndup(p, n);
                if (!piece || strv_extend(&l, piece) < 0) {
                        free(piece);
                        return strv_free(l);
                }
                free(piece);
                p += n;
        }
        return l;
}
