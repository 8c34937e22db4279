/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parser/package-wire.h"
#include "parser/wire.h"
#include "shared/cleanup.h"

bool parser_package_request_valid(const struct parser_package_request *req) {
        return req->magic == PARSER_PACKAGE_MAGIC && req->version == PARSER_VERSION && req->uid != 0 && req->gid != 0 &&
               (req->flags & ~(uint32_t) (PARSER_PACKAGE_CONTAINER | PARSER_PACKAGE_INDEX)) == 0 &&
               !((req->flags & PARSER_PACKAGE_CONTAINER) && (req->flags & PARSER_PACKAGE_INDEX)) &&
               memchr(req->exe, 0, sizeof req->exe) != NULL;
}

static const char *const from_names[] = {
        [PACKAGE_FROM_NONE] = "none",
        [PACKAGE_FROM_NOTE] = "note",
        [PACKAGE_FROM_DPKG] = "dpkg",
};

static const char *const modified_names[] = {
        [PACKAGE_MODIFIED_UNKNOWN] = "unknown",
        [PACKAGE_MODIFIED_NO] = "no",
        [PACKAGE_MODIFIED_YES] = "yes",
};

const char *package_from_to_string(enum package_from f) {
        return (unsigned) f < 3 ? from_names[f] : "none";
}

const char *package_modified_to_string(enum package_modified m) {
        return (unsigned) m < 3 ? modified_names[m] : "unknown";
}

size_t package_answer_encode(const struct package_info *p, char *buf, size_t cap) {
        size_t n = 0;
#define LINE(key, value)                                                                                  \
        do {                                                                                              \
                if ((value)[0] && n < cap) {                                                              \
                        int k = snprintf(buf + n, cap - n, key "=%s\n", (value));                         \
                        n = k < 0 ? n : MIN(cap, n + (size_t) k);                                         \
                }                                                                                         \
        } while (0)
        LINE("FROM", package_from_to_string(p->from));
        if (p->from != PACKAGE_FROM_NONE) {
                LINE("NAME", p->name);
                LINE("VERSION", p->version);
                LINE("ARCH", p->arch);
                LINE("SOURCE", p->source);
                LINE("SOURCE_VERSION", p->source_version);
                LINE("FILE", p->file);
                LINE("MODIFIED", package_modified_to_string(p->modified));
                LINE("JSON", p->json);
        }
        LINE("ERROR", p->error);
        if (p->index_written)
                LINE("INDEX", "written");
#undef LINE
        return n;
}

static const char *skip_blanks(const char *p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
                p++;
        return p;
}

/* A JSON string without escapes other than \" \\ \/ (kept for the check only): past its closing
 * quote, or NULL. */
static const char *json_skip_string(const char *p) {
        if (*p != '"')
                return NULL;
        for (p++; *p && *p != '"'; p++)
                if (*p == '\\') {
                        if (!strchr("\"\\/bfnrt", p[1]))
                                return NULL;
                        p++;
                }
        return *p == '"' ? p + 1 : NULL;
}

static const char *json_skip_value(const char *p) {
        if (*p == '"')
                return json_skip_string(p);
        if (strncmp(p, "true", 4) == 0)
                return p + 4;
        if (strncmp(p, "false", 5) == 0)
                return p + 5;
        if (strncmp(p, "null", 4) == 0)
                return p + 4;
        const char *start = p;
        if (*p == '-')
                p++;
        while ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-')
                p++;
        return p > start && p[-1] >= '0' && p[-1] <= '9' ? p : NULL;
}

bool package_json_valid(const char *s) {
        for (const char *p = s; *p; p++)
                if ((unsigned char) *p < 0x20 && !strchr("\t\n\r", *p))
                        return false;
                else if ((unsigned char) *p > 0x7e)
                        return false;
        const char *p = skip_blanks(s);
        if (*p++ != '{')
                return false;
        p = skip_blanks(p);
        if (*p == '}')
                return *skip_blanks(p + 1) == 0;
        for (;;) {
                p = json_skip_string(skip_blanks(p));
                if (!p)
                        return false;
                p = skip_blanks(p);
                if (*p++ != ':')
                        return false;
                p = json_skip_value(skip_blanks(p));
                if (!p)
                        return false;
                p = skip_blanks(p);
                if (*p == '}')
                        return *skip_blanks(p + 1) == 0;
                if (*p++ != ',')
                        return false;
        }
}

int package_json_string(const char *json, const char *key, char *ret, size_t size) {
        const char *p = skip_blanks(json);
        size_t k = strlen(key);

        if (*p++ != '{')
                return 0;
        for (;;) {
                p = skip_blanks(p);
                if (*p != '"')
                        return 0;
                const char *name = p + 1, *after = json_skip_string(p);
                if (!after)
                        return 0;
                bool match = (size_t) (after - 1 - name) == k && memcmp(name, key, k) == 0;
                p = skip_blanks(after);
                if (*p++ != ':')
                        return 0;
                p = skip_blanks(p);
                const char *end = json_skip_value(p);
                if (!end)
                        return 0;
                if (match) {
                        if (*p != '"')
                                return 0;
                        size_t n = (size_t) (end - 1 - (p + 1));
                        if (n >= size || memchr(p + 1, '\\', n))
                                return 0;
                        memcpy(ret, p + 1, n);
                        ret[n] = 0;
                        return 1;
                }
                p = skip_blanks(end);
                if (*p++ != ',')
                        return 0;
        }
}

/* A note's name: wider than Debian's (other distributions' packages), still no blank or quote. */
static bool note_name_valid(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > DPKG_NAME_MAX)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("+._~-", c)))
                        return false;
        }
        return true;
}

static bool note_version_valid(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > DPKG_VERSION_MAX)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("+._~:^-", c)))
                        return false;
        }
        return true;
}

static bool printable(const char *s) {
        for (; *s; s++)
                if ((unsigned char) *s < 0x20 || (unsigned char) *s > 0x7e)
                        return false;
        return true;
}

static int bad(char *why, size_t size, const char *what) {
        snprintf(why, size, "%s", what);
        return -EBADMSG;
}

int package_answer_decode(const char *buf, size_t size, struct package_info *ret, char *why, size_t why_size) {
        struct package_info p = {};
        char from[8] = "", modified[8] = "", index[8] = "";
        struct {
                const char *key;
                char *value;
                size_t cap;
                bool seen;
        } keys[] = {
                { "FROM", from, sizeof from, false },
                { "NAME", p.name, sizeof p.name, false },
                { "VERSION", p.version, sizeof p.version, false },
                { "ARCH", p.arch, sizeof p.arch, false },
                { "SOURCE", p.source, sizeof p.source, false },
                { "SOURCE_VERSION", p.source_version, sizeof p.source_version, false },
                { "FILE", p.file, sizeof p.file, false },
                { "MODIFIED", modified, sizeof modified, false },
                { "JSON", p.json, sizeof p.json, false },
                { "ERROR", p.error, sizeof p.error, false },
                { "INDEX", index, sizeof index, false },
        };

        if (size > PARSER_PACKAGE_ANSWER_MAX)
                return bad(why, why_size, "too long");
        if (size == 0 || buf[size - 1] != '\n')
                return bad(why, why_size, "not whole lines");
        for (size_t pos = 0; pos < size;) {
                const char *line = buf + pos, *nl = memchr(line, '\n', size - pos);
                size_t n = (size_t) (nl - line);
                pos += n + 1;
                const char *eq = memchr(line, '=', n);
                if (!eq || memchr(line, 0, n))
                        return bad(why, why_size, "a line that is not KEY=value");
                size_t k = (size_t) (eq - line), vn = n - k - 1;
                size_t i = 0;
                while (i < ELEMENTSOF(keys) && !(strlen(keys[i].key) == k && memcmp(keys[i].key, line, k) == 0))
                        i++;
                if (i == ELEMENTSOF(keys))
                        return bad(why, why_size, "an unknown key");
                if (keys[i].seen)
                        return bad(why, why_size, "a key twice");
                if (vn == 0 || vn >= keys[i].cap)
                        return bad(why, why_size, "a value empty or too long");
                keys[i].seen = true;
                memcpy(keys[i].value, eq + 1, vn);
                keys[i].value[vn] = 0;
        }
        if (index[0] && strcmp(index, "written") != 0)
                return bad(why, why_size, "an unknown INDEX");
        p.index_written = index[0] != 0;
        if (!printable(p.error) || !printable(p.file) || (p.file[0] && p.file[0] != '/'))
                return bad(why, why_size, "unprintable text");
        if (strcmp(from, "none") == 0) {
                for (size_t i = 1; i < ELEMENTSOF(keys) - 2; i++)
                        if (keys[i].seen)
                                return bad(why, why_size, "facts without a package");
                if (!p.error[0])
                        return bad(why, why_size, "no package and no reason");
                p.from = PACKAGE_FROM_NONE;
                *ret = p;
                return 0;
        }
        if (strcmp(from, "note") == 0)
                p.from = PACKAGE_FROM_NOTE;
        else if (strcmp(from, "dpkg") == 0)
                p.from = PACKAGE_FROM_DPKG;
        else
                return bad(why, why_size, "an unknown FROM");
        bool dpkg = p.from == PACKAGE_FROM_DPKG;
        if (!(dpkg ? dpkg_name_valid(p.name) : note_name_valid(p.name)))
                return bad(why, why_size, "an invalid package name");
        if (!(dpkg ? dpkg_version_valid(p.version) : note_version_valid(p.version)))
                return bad(why, why_size, "an invalid version");
        if ((p.arch[0] && !dpkg_arch_valid(p.arch)) || (p.source[0] && !dpkg_name_valid(p.source)) ||
            (p.source_version[0] && !dpkg_version_valid(p.source_version)))
                return bad(why, why_size, "an invalid architecture or source");
        if (dpkg && (!p.file[0] || p.json[0]))
                return bad(why, why_size, "dpkg's answer without its file, or with a note");
        if (!dpkg && (!p.json[0] || p.file[0]))
                return bad(why, why_size, "a note's answer without its JSON");
        if (p.json[0]) {
                char name[DPKG_NAME_MAX + 1];
                if (!printable(p.json) || package_json_string(p.json, "name", name, sizeof name) != 1 ||
                    strcmp(name, p.name) != 0)
                        return bad(why, why_size, "JSON that does not name the package");
        }
        if (!modified[0] || strcmp(modified, "unknown") == 0)
                p.modified = PACKAGE_MODIFIED_UNKNOWN;
        else if (strcmp(modified, "no") == 0)
                p.modified = PACKAGE_MODIFIED_NO;
        else if (strcmp(modified, "yes") == 0)
                p.modified = PACKAGE_MODIFIED_YES;
        else
                return bad(why, why_size, "an unknown MODIFIED");
        *ret = p;
        return 0;
}
