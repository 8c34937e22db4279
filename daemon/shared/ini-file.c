/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <ini.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shared/cleanup.h"
#include "shared/ini-file.h"
#include "shared/log.h"

struct ini_stream {
        struct ini_file *ini;
        FILE *f;
        char *line;
        size_t line_allocated;
        ini_entry_fn entry;
        void *userdata;
};

__attribute__((format(printf, 3, 0)))
static int ini_file_errorv(struct ini_file *ini, unsigned line, const char *format, va_list ap) {
        struct ini_error e = { .line = line, .section_seq = ini->section_seq };

        if (vasprintf(&e.message, format, ap) < 0) {
                ini->oom = true;
                return -EINVAL;
        }
        struct ini_error *grown = realloc(ini->errors, (ini->n_errors + 1) * sizeof *grown);
        if (!grown) {
                free(e.message);
                ini->oom = true;
                return -EINVAL;
        }
        ini->errors = grown;
        ini->errors[ini->n_errors++] = e;
        return -EINVAL;
}

int ini_file_error(struct ini_file *ini, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        int r = ini_file_errorv(ini, ini->line, format, ap);
        va_end(ap);
        return r;
}

int ini_file_error_at(struct ini_file *ini, unsigned line, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        int r = ini_file_errorv(ini, line, format, ap);
        va_end(ap);
        return r;
}

int ini_file_hint(struct ini_file *ini, const char *format, ...) {
        if (ini->n_errors == 0)
                return -EINVAL;
        struct ini_error *e = &ini->errors[ini->n_errors - 1];
        char *hint = NULL;
        va_list ap;
        va_start(ap, format);
        if (vasprintf(&hint, format, ap) < 0)
                hint = NULL;
        va_end(ap);
        free(e->hint);
        e->hint = hint;
        return -EINVAL;
}

int ini_file_section_error(struct ini_file *ini, const char *section, const char *expected) {
        if (ini->bad_section_seq == ini->section_seq && ini->section_seq != 0)
                return -EINVAL;
        ini->bad_section_seq = ini->section_seq;
        return ini_file_error_at(ini, ini->section_line, "unknown section [%s], expected [%s]", section, expected),
               ini_file_hint(ini, "every key of this file belongs in [%s]", expected);
}

/* Edit distance, case-insensitive, up to small strings. */
static size_t distance(const char *a, const char *b) {
        size_t n = strlen(a), m = strlen(b);
        if (n > 63 || m > 63)
                return SIZE_MAX;
        size_t row[64];
        for (size_t j = 0; j <= m; j++)
                row[j] = j;
        for (size_t i = 1; i <= n; i++) {
                size_t diag = row[0];
                row[0] = i;
                for (size_t j = 1; j <= m; j++) {
                        size_t up = row[j];
                        size_t cost = strncasecmp(a + i - 1, b + j - 1, 1) == 0 ? 0 : 1;
                        row[j] = MIN(MIN(row[j] + 1, row[j - 1] + 1), diag + cost);
                        diag = up;
                }
        }
        return row[m];
}

int ini_file_unknown_key(struct ini_file *ini, const char *key, const char *section, const char *const *known) {
        const char *best = NULL;
        size_t best_d = SIZE_MAX;

        for (const char *const *k = known; k && *k; k++) {
                size_t d = distance(key, *k);
                if (d < best_d) {
                        best_d = d;
                        best = *k;
                }
        }
        ini_file_error(ini, "unknown key '%s' in [%s]", key, section);
        /* Close: a typo, another case, or a word left out or added. */
        if (best && (best_d <= 2 || best_d * 3 <= strlen(key)))
                return ini_file_hint(ini, "did you mean %s=?", best);
        if (ini->manual)
                return ini_file_hint(ini, "the keys of [%s] are listed in %s", section, ini->manual);
        return -EINVAL;
}

/* inih's reader: one line per call, counted; section headers noted; over-long lines reported. */
static char *ini_stream_read_line(char *str, int num, void *userdata) {
        struct ini_stream *s = userdata;

        ssize_t n = getline(&s->line, &s->line_allocated, s->f);
        if (n < 0)
                return NULL;
        s->ini->line++;

        if (n >= num) {
                ini_file_error(s->ini, "line too long (more than %d characters)", num - 2);
                ini_file_hint(s->ini, "split the value over several assignments of a repeatable key");
                strcpy(str, "\n");
                return str;
        }
        if (memchr(s->line, 0, (size_t) n)) {
                ini_file_error(s->ini, "line contains a NUL byte");
                ini_file_hint(s->ini, "this is not a text file");
                strcpy(str, "\n");
                return str;
        }

        const char *p = s->line + strspn(s->line, " \t");
        if (*p == '[') {
                s->ini->section_seq++;
                s->ini->section_line = s->ini->line;
        }

        memcpy(str, s->line, (size_t) n + 1);
        return str;
}

static int ini_stream_entry(void *userdata, const char *section, const char *key, const char *value) {
        struct ini_stream *s = userdata;

        (void) s->entry(s->ini, section, key, value, s->userdata);
        return 1; /* keep going: every error is reported */
}

/* inih stops reporting at the first line it cannot parse (it returns that line's number only), so
 * such lines are caught here before inih sees them, each with its own error. An indented line is
 * left to inih: it continues the previous value. */
static bool line_is_malformed(const char *line) {
        if (line[0] == ' ' || line[0] == '\t')
                return false;
        const char *p = line;
        if (strncmp(p, "\xEF\xBB\xBF", 3) == 0)
                p += 3; /* a byte order mark, which inih skips */
        if (!*p || *p == '\n' || *p == '\r' || *p == '#' || *p == ';')
                return false;
        if (*p == '[')
                return !strchr(p, ']');
        return !strchr(p, '=') && !strchr(p, ':');
}

static char *ini_stream_read_checked(char *str, int num, void *userdata) {
        struct ini_stream *s = userdata;
        char *r = ini_stream_read_line(str, num, userdata);
        if (r && line_is_malformed(r)) {
                ini_file_error(s->ini, "syntax error (expected [Section] or Key=Value)");
                ini_file_hint(s->ini, "comments start with # or ;");
                strcpy(str, "\n");
        }
        return r;
}

int ini_file_report(struct ini_file *ini) {
        if (ini->oom)
                return log_error_errno(ENOMEM, "%s: %m", ini->path);
        if (ini->n_errors == 0)
                return 0;
        /* In line order; errors of one line in the order found (a stable insertion sort). */
        for (size_t i = 1; i < ini->n_errors; i++) {
                struct ini_error e = ini->errors[i];
                size_t k = i;
                for (; k > 0 && ini->errors[k - 1].line > e.line; k--)
                        ini->errors[k] = ini->errors[k - 1];
                ini->errors[k] = e;
        }
        const char *sep = ini->consequence ? ", " : "", *what = ini->consequence ?: "";
        for (size_t i = 0; i < ini->n_errors; i++) {
                const struct ini_error *e = &ini->errors[i];
                const char *hint = e->hint ?: ini->manual;
                if (hint && !e->hint)
                        log_warning("%s:%u: %s%s%s (hint: see %s)", ini->path, e->line, e->message, sep, what, hint);
                else if (hint)
                        log_warning("%s:%u: %s%s%s (hint: %s)", ini->path, e->line, e->message, sep, what, hint);
                else
                        log_warning("%s:%u: %s%s%s", ini->path, e->line, e->message, sep, what);
        }
        return (int) MIN(ini->n_errors, (size_t) INT_MAX);
}

void ini_file_done(struct ini_file *ini) {
        for (size_t i = 0; i < ini->n_errors; i++) {
                free(ini->errors[i].message);
                free(ini->errors[i].hint);
        }
        free(ini->errors);
        ini->errors = NULL;
        ini->n_errors = 0;
}

int ini_file_parse(struct ini_file *ini, FILE *f, ini_entry_fn entry, void *userdata) {
        struct ini_stream s = {
                .ini = ini,
                .f = f,
                .entry = entry,
                .userdata = userdata,
        };

        int r = ini_parse_stream(ini_stream_read_checked, &s, ini_stream_entry, &s);
        free(s.line);

        if (r < 0)
                return log_error_errno(ENOMEM, "%s: cannot parse: %m", ini->path);
        if (r > 0)
                ini_file_error_at(ini, (unsigned) r, "syntax error (expected [Section] or Key=Value)");
        return 0;
}
