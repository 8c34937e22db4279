/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
        if (ini->error_line != 0 && ini->error_line <= line)
                return -EINVAL; /* keep the first one */
        ini->error_line = line;
        vsnprintf(ini->error, sizeof ini->error, format, ap);
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

/* inih's reader: one line per call, counted; section headers noted; over-long lines reported. */
static char *ini_stream_read_line(char *str, int num, void *userdata) {
        struct ini_stream *s = userdata;

        ssize_t n = getline(&s->line, &s->line_allocated, s->f);
        if (n < 0)
                return NULL;
        s->ini->line++;

        if (n >= num) {
                ini_file_error(s->ini, "line too long (more than %d characters)", num - 2);
                strcpy(str, "\n");
                return str;
        }
        if (memchr(s->line, 0, (size_t) n)) {
                ini_file_error(s->ini, "line contains a NUL byte");
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
        return 1; /* keep going: the first error is kept, later ones may be reported after a fix */
}

int ini_file_report(struct ini_file *ini) {
        if (ini->error_line == 0)
                return 0;
        log_error("%s:%u: %s", ini->path, ini->error_line, ini->error);
        return -EBADMSG;
}

int ini_file_parse(struct ini_file *ini, FILE *f, ini_entry_fn entry, void *userdata) {
        struct ini_stream s = {
                .ini = ini,
                .f = f,
                .entry = entry,
                .userdata = userdata,
        };

        int r = ini_parse_stream(ini_stream_read_line, &s, ini_stream_entry, &s);
        free(s.line);

        if (r < 0)
                return log_error_errno(ENOMEM, "%s: cannot parse: %m", ini->path);
        if (r > 0)
                ini_file_error_at(ini, (unsigned) r, "syntax error (expected [Section] or Key=Value)");
        return 0;
}
