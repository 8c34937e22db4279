/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "shared/dpkg.h"

static bool is_lower_alnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static bool is_alnum(char c) {
        return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

bool dpkg_name_valid(const char *s) {
        size_t n = strlen(s);
        if (n < 2 || n > DPKG_NAME_MAX || !is_lower_alnum(s[0]))
                return false;
        for (size_t i = 1; i < n; i++)
                if (!is_lower_alnum(s[i]) && !strchr("+.-", s[i]))
                        return false;
        return true;
}

bool dpkg_version_valid(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > DPKG_VERSION_MAX)
                return false;
        const char *colon = strchr(s, ':');
        const char *upstream = s;
        if (colon) {
                if (colon == s)
                        return false;
                for (const char *p = s; p < colon; p++)
                        if (!is_digit(*p))
                                return false;
                upstream = colon + 1;
        }
        if (!is_digit(upstream[0]))
                return false;
        for (const char *p = upstream; *p; p++)
                if (!is_alnum(*p) && !strchr(".+~-", *p) && !(colon && *p == ':'))
                        return false;
        return upstream[strlen(upstream) - 1] != '-';
}

bool dpkg_arch_valid(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > DPKG_ARCH_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_lower_alnum(s[i]) && s[i] != '-')
                        return false;
        return true;
}

/* The line at *offset (without its '\n'), *offset moved past it: false at the end. */
static bool next_line(const char *text, size_t size, size_t *offset, const char **ret, size_t *ret_size) {
        if (*offset >= size)
                return false;
        const char *start = text + *offset;
        const char *nl = memchr(start, '\n', size - *offset);
        size_t n = nl ? (size_t) (nl - start) : size - *offset;
        *ret = start;
        *ret_size = n;
        *offset += n + (nl ? 1 : 0);
        return true;
}

/* value (its leading blanks and trailing blanks dropped) into buf if it fits: false if it does not. */
static bool copy_value(const char *v, size_t n, char *buf, size_t cap) {
        while (n > 0 && (*v == ' ' || *v == '\t')) {
                v++;
                n--;
        }
        while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
                n--;
        if (n >= cap || memchr(v, 0, n))
                return false;
        memcpy(buf, v, n);
        buf[n] = 0;
        return true;
}

/* "Name:" at the start of line: the value after it. */
static bool field_is(const char *line, size_t n, const char *name, const char **ret, size_t *ret_size) {
        size_t k = strlen(name);
        if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
                return false;
        *ret = line + k + 1;
        *ret_size = n - k - 1;
        return true;
}

static bool status_installed(const char *v, size_t n) {
        char s[64];
        if (!copy_value(v, n, s, sizeof s))
                return false;
        return strcmp(s, "install ok installed") == 0 || strcmp(s, "hold ok installed") == 0 ||
               strcmp(s, "install ok triggers-pending") == 0 || strcmp(s, "install ok triggers-awaited") == 0 ||
               strcmp(s, "hold ok triggers-pending") == 0 || strcmp(s, "hold ok triggers-awaited") == 0;
}

/* "Source: name" or "Source: name (version)". */
static bool parse_source(const char *v, size_t n, struct dpkg_package *p) {
        char s[DPKG_NAME_MAX + DPKG_VERSION_MAX + 8];
        if (!copy_value(v, n, s, sizeof s))
                return false;
        char *paren = strchr(s, '(');
        if (paren) {
                char *end = strchr(paren, ')');
                if (!end || end[1] != 0)
                        return false;
                *end = 0;
                if (!copy_value(paren + 1, strlen(paren + 1), p->source_version, sizeof p->source_version) ||
                    !dpkg_version_valid(p->source_version))
                        return false;
                *paren = 0;
        }
        return copy_value(s, strlen(s), p->source, sizeof p->source) && dpkg_name_valid(p->source);
}

int dpkg_status_next(const char *text, size_t size, size_t *offset, struct dpkg_package *ret) {
        while (*offset < size) {
                struct dpkg_package p = {};
                bool installed = false, bad = false, any = false;
                const char *line, *v;
                size_t n, vn;

                while (next_line(text, size, offset, &line, &n)) {
                        if (n == 0 || (n == 1 && line[0] == '\r'))
                                break;
                        any = true;
                        if (line[0] == ' ' || line[0] == '\t')
                                continue; /* a continuation line (Description:, Conffiles:) */
                        if (field_is(line, n, "Package", &v, &vn))
                                bad |= !copy_value(v, vn, p.name, sizeof p.name) || !dpkg_name_valid(p.name);
                        else if (field_is(line, n, "Version", &v, &vn))
                                bad |= !copy_value(v, vn, p.version, sizeof p.version) || !dpkg_version_valid(p.version);
                        else if (field_is(line, n, "Architecture", &v, &vn))
                                bad |= !copy_value(v, vn, p.arch, sizeof p.arch) || !dpkg_arch_valid(p.arch);
                        else if (field_is(line, n, "Status", &v, &vn))
                                installed = status_installed(v, vn);
                        else if (field_is(line, n, "Source", &v, &vn))
                                bad |= !parse_source(v, vn, &p);
                        else if (field_is(line, n, "Multi-Arch", &v, &vn)) {
                                char m[16];
                                p.multi_arch_same = copy_value(v, vn, m, sizeof m) && strcmp(m, "same") == 0;
                        } else if (field_is(line, n, "Depends", &v, &vn)) {
                                p.depends = v;
                                p.depends_size = vn;
                        }
                }
                if (!any || bad || !installed || !p.name[0] || !p.version[0])
                        continue;
                if (!p.source[0])
                        memcpy(p.source, p.name, sizeof p.source);
                if (!p.source_version[0])
                        memcpy(p.source_version, p.version, sizeof p.source_version);
                *ret = p;
                return 1;
        }
        return 0;
}

int dpkg_status_find(const char *text, size_t size, const char *name, const char *arch, struct dpkg_package *ret) {
        struct dpkg_package p;
        size_t offset = 0;
        while (dpkg_status_next(text, size, &offset, &p) > 0)
                if (strcmp(p.name, name) == 0 && (!arch || strcmp(p.arch, arch) == 0)) {
                        *ret = p;
                        return 1;
                }
        return 0;
}

static bool line_equals(const char *line, size_t n, const char *s) {
        size_t k = strlen(s);
        return n == k && memcmp(line, s, k) == 0;
}

bool dpkg_list_contains(const char *text, size_t size, const char *path) {
        size_t offset = 0, n;
        const char *line;
        while (next_line(text, size, &offset, &line, &n))
                if (line_equals(line, n, path))
                        return true;
        return false;
}

int dpkg_md5sums_find(const char *text, size_t size, const char *path, char ret[static 33]) {
        size_t offset = 0, n;
        const char *line;

        if (path[0] != '/')
                return 0;
        while (next_line(text, size, &offset, &line, &n)) {
                /* "<32 hex>  <path without '/'>" */
                if (n < 35 || line[32] != ' ' || line[33] != ' ' || !line_equals(line + 34, n - 34, path + 1))
                        continue;
                for (size_t i = 0; i < 32; i++) {
                        char c = line[i];
                        if (c >= 'A' && c <= 'F')
                                c = (char) (c - 'A' + 'a');
                        if (!is_digit(c) && !(c >= 'a' && c <= 'f'))
                                return 0;
                        ret[i] = c;
                }
                ret[32] = 0;
                return 1;
        }
        return 0;
}

static bool path_line(const char *line, size_t n, char *buf, size_t cap) {
        return n > 0 && line[0] == '/' && n < cap && !memchr(line, 0, n) && copy_value(line, n, buf, cap) &&
               strlen(buf) == n;
}

int dpkg_diversions_find(const char *text, size_t size, const char *path, struct dpkg_diversion *ret) {
        size_t offset = 0;
        const char *l[3];
        size_t n[3];

        for (;;) {
                for (int i = 0; i < 3; i++)
                        if (!next_line(text, size, &offset, &l[i], &n[i]))
                                return 0;
                struct dpkg_diversion d = {};
                if (!path_line(l[0], n[0], d.from, sizeof d.from) || !path_line(l[1], n[1], d.to, sizeof d.to))
                        continue;
                if (!line_equals(l[2], n[2], ":") &&
                    (!copy_value(l[2], n[2], d.by, sizeof d.by) || !dpkg_name_valid(d.by)))
                        continue;
                if (strcmp(d.from, path) == 0 || strcmp(d.to, path) == 0) {
                        *ret = d;
                        return 1;
                }
        }
}

size_t dpkg_depends_foreach(const char *value, size_t size, size_t max, void (*fn)(const char *name, void *userdata),
                            void *userdata) {
        size_t count = 0, i = 0;

        while (i < size && count < max) {
                /* One dependency: up to ',' (alternatives '|' after its first are left). */
                size_t end = i;
                while (end < size && value[end] != ',')
                        end++;
                size_t j = i;
                while (j < end && (value[j] == ' ' || value[j] == '\t'))
                        j++;
                size_t k = j;
                while (k < end && value[k] != ' ' && value[k] != '(' && value[k] != ':' && value[k] != '|' &&
                       value[k] != '[' && value[k] != '\t')
                        k++;
                char name[DPKG_NAME_MAX + 1];
                if (k > j && k - j <= DPKG_NAME_MAX) {
                        memcpy(name, value + j, k - j);
                        name[k - j] = 0;
                        if (dpkg_name_valid(name)) {
                                fn(name, userdata);
                                count++;
                        }
                }
                i = end + 1;
        }
        return count;
}
