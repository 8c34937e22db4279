/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shared/cleanup.h"
#include "shared/ini-file.h"
#include "shared/log.h"

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

/* ---- the reader: systemd.syntax(7) ------------------------------------------------------------ */

#define WHITESPACE " \t\n\r"
#define COMMENTS "#;"

/* One physical line into *buf (without its newline), at most INI_LINE_MAX bytes kept: 1 past the
 * limit, the rest of the line read and dropped, says it was too long. Returns the bytes kept, or
 * -1 at the end of the file (nothing read). */
static ssize_t read_physical_line(FILE *f, char **buf, size_t *allocated, bool *ret_too_long, bool *ret_nul) {
        size_t n = 0;
        bool any = false;

        *ret_too_long = *ret_nul = false;
        for (;;) {
                int c = getc(f);
                if (c == EOF) {
                        if (!any)
                                return -1;
                        break;
                }
                any = true;
                if (c == '\n')
                        break;
                if (c == 0)
                        *ret_nul = true;
                if (n >= INI_LINE_MAX) {
                        *ret_too_long = true;
                        continue;
                }
                if (n + 1 >= *allocated) {
                        size_t want = MAX(*allocated * 2, (size_t) 256);
                        char *grown = realloc(*buf, want);
                        if (!grown)
                                return -2;
                        *buf = grown;
                        *allocated = want;
                }
                (*buf)[n++] = (char) c;
        }
        if (!*buf) {
                *buf = malloc(1);
                if (!*buf)
                        return -2;
                *allocated = 1;
        }
        (*buf)[n] = 0;
        return (ssize_t) n;
}

static char *strip(char *s) {
        s += strspn(s, WHITESPACE);
        size_t n = strlen(s);
        while (n > 0 && strchr(WHITESPACE, s[n - 1]))
                n--;
        s[n] = 0;
        return s;
}

/* Whether the line ends in a backslash that is not itself escaped: it continues on the next. */
static bool ends_in_continuation(const char *s, size_t n) {
        size_t k = 0;
        while (k < n && s[n - 1 - k] == '\\')
                k++;
        return k % 2 == 1;
}

/* One logical line: a [Section] header or Key=Value. Errors are recorded at ini->line. */
static void parse_logical_line(struct ini_file *ini, char *line, char **section, ini_entry_fn entry, void *userdata) {
        char *l = strip(line);

        if (!*l)
                return;
        if (*l == '[') {
                size_t n = strlen(l);
                ini->section_seq++;
                ini->section_line = ini->line;
                char *name = NULL;
                if (n < 3 || l[n - 1] != ']' || memchr(l + 1, ']', n - 2) || memchr(l + 1, '[', n - 2)) {
                        ini_file_error(ini, "invalid section header '%s'", l);
                        ini_file_hint(ini, "a section header is [Name] alone on its line");
                        name = strdup("");      /* the keys below it belong to no section */
                } else
                        name = strndup(l + 1, n - 2);
                if (!name) {
                        ini->oom = true;
                        return;
                }
                free(*section);
                *section = name;
                /* A bad header is said once, not again for each of its keys. */
                if (!**section)
                        ini->bad_section_seq = ini->section_seq;
                return;
        }

        char *eq = strchr(l, '=');
        if (!eq) {
                ini_file_error(ini, "syntax error (expected [Section] or Key=Value)");
                if (strchr(l, ':'))
                        ini_file_hint(ini, "a key and its value are separated by '=', not ':'");
                else
                        ini_file_hint(ini, "comments are lines starting with # or ;");
                return;
        }
        *eq = 0;
        char *key = strip(l), *value = strip(eq + 1);
        if (!*key) {
                ini_file_error(ini, "syntax error (no key before '=')");
                ini_file_hint(ini, "a setting is Key=Value");
                return;
        }
        if (strpbrk(key, WHITESPACE)) {
                ini_file_error(ini, "invalid key name '%s'", key);
                ini_file_hint(ini, "a key is one word, such as MaxSize; comments are lines starting with # or ;");
                return;
        }
        if (!**section && ini->section_seq != 0 && ini->bad_section_seq == ini->section_seq)
                return; /* under a header already said to be invalid */
        (void) entry(ini, *section, key, value, userdata);
}

int ini_file_parse(struct ini_file *ini, FILE *f, ini_entry_fn entry, void *userdata) {
        _cleanup_free_ char *buf = NULL, *logical = NULL, *section = strdup("");
        size_t allocated = 0, logical_len = 0;
        unsigned physical = 0, logical_first = 0;
        bool skipping = false;    /* the rest of a continued line left out as too long */
        int r = 0;

        if (!section)
                return log_error_errno(ENOMEM, "%s: cannot parse: %m", ini->path);

        for (;;) {
                bool too_long, nul;
                ssize_t n = read_physical_line(f, &buf, &allocated, &too_long, &nul);
                if (n == -2) {
                        r = -ENOMEM;
                        break;
                }
                if (n == -1)
                        break;
                physical++;
                char *l = buf;
                if (physical == 1 && strncmp(l, "\xEF\xBB\xBF", 3) == 0)
                        l += 3; /* a byte order mark */
                if (nul || too_long) {
                        ini->line = physical;
                        if (nul)
                                ini_file_error(ini, "line contains a NUL byte"),
                                        ini_file_hint(ini, "this is not a text file");
                        else
                                ini_file_error(ini, "line too long (more than %d bytes)", INI_LINE_MAX),
                                        ini_file_hint(ini, "split the value over several assignments of a repeatable key");
                        /* A continued line ends here with it. */
                        logical_len = 0;
                        if (logical)
                                logical[0] = 0;
                        continue;
                }

                /* A comment only where a line starts (after its indentation); also within a
                 * continued line, which goes on after it (systemd.syntax(7)). */
                const char *first = l + strspn(l, WHITESPACE);
                if (*first && strchr(COMMENTS, *first))
                        continue;

                size_t len = strlen(l);
                bool continues = ends_in_continuation(l, len);
                if (continues)
                        l[len - 1] = ' ';       /* the backslash becomes a space */
                if (skipping) {
                        /* The rest of a line left out as too long: none of it is a line of its own. */
                        skipping = continues;
                        continue;
                }

                if (logical_len == 0 && !continues) {
                        ini->line = physical;
                        parse_logical_line(ini, l, &section, entry, userdata);
                        continue;
                }

                if (logical_len == 0)
                        logical_first = physical;
                if (logical_len + len > INI_LINE_MAX) {
                        ini->line = logical_first;
                        ini_file_error(ini, "line too long (more than %d bytes with its continuations)", INI_LINE_MAX);
                        ini_file_hint(ini, "split the value over several assignments of a repeatable key");
                        logical_len = 0;
                        logical[0] = 0;
                        skipping = continues;
                        continue;
                }
                char *grown = realloc(logical, logical_len + len + 1);
                if (!grown) {
                        r = -ENOMEM;
                        break;
                }
                logical = grown;
                memcpy(logical + logical_len, l, len + 1);
                logical_len += len;
                if (continues)
                        continue;
                ini->line = logical_first;
                parse_logical_line(ini, logical, &section, entry, userdata);
                logical_len = 0;
        }
        if (r >= 0 && logical_len > 0) {
                /* The file ended in a continued line: it ends there. */
                ini->line = logical_first;
                parse_logical_line(ini, logical, &section, entry, userdata);
        }
        if (r >= 0 && ferror(f))
                r = -errno ?: -EIO;
        if (r == -ENOMEM || ini->oom)
                return log_error_errno(ENOMEM, "%s: cannot parse: %m", ini->path);
        if (r < 0)
                return log_error_errno(-r, "%s: cannot read: %m", ini->path);
        return 0;
}
