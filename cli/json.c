/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl's JSON: a list of flat objects, as one array (short, pretty) or one object per line. */
#include <inttypes.h>
#include <string.h>

#include "dumpctl.h"

#define INDENT "        "

static bool json_is_array(const struct json_writer *w) {
        return w->mode == JSON_SHORT || w->mode == JSON_PRETTY;
}

void json_list_begin(struct json_writer *w, FILE *f, enum json_mode mode) {
        *w = (struct json_writer) { .f = f, .mode = mode };
        if (json_is_array(w))
                fputc('[', f);
}

void json_list_end(struct json_writer *w) {
        if (json_is_array(w))
                fputs(w->mode == JSON_PRETTY && w->n_objects > 0 ? "\n]\n" : "]\n", w->f);
        fflush(w->f);
}

void json_object_begin(struct json_writer *w) {
        if (w->mode == JSON_PRETTY)
                fputs(w->n_objects > 0 ? ",\n" INDENT "{" : "\n" INDENT "{", w->f);
        else {
                if (w->mode == JSON_SHORT && w->n_objects > 0)
                        fputc(',', w->f);
                fputc('{', w->f);
        }
        w->n_fields = 0;
}

void json_object_end(struct json_writer *w) {
        if (w->mode == JSON_PRETTY)
                fputs(w->n_fields > 0 ? "\n" INDENT "}" : "}", w->f);
        else
                fputc('}', w->f);
        if (w->mode == JSON_LINES)
                fputc('\n', w->f);
        w->n_objects++;
}

static void json_key(struct json_writer *w, const char *key) {
        if (w->mode == JSON_PRETTY)
                fputs(w->n_fields > 0 ? ",\n" INDENT INDENT : "\n" INDENT INDENT, w->f);
        else if (w->n_fields > 0)
                fputc(',', w->f);
        json_string(w->f, key);
        fputs(w->mode == JSON_PRETTY ? " : " : ":", w->f);
        w->n_fields++;
}

void json_field_string(struct json_writer *w, const char *key, const char *value) {
        json_key(w, key);
        json_string(w->f, value);
}

void json_field_number(struct json_writer *w, const char *key, long long value) {
        json_key(w, key);
        if (value < 0)
                fputs("null", w->f);
        else
                fprintf(w->f, "%lld", value);
}

void json_field_unsigned(struct json_writer *w, const char *key, uint64_t value) {
        json_key(w, key);
        fprintf(w->f, "%" PRIu64, value);
}

void json_field_bool(struct json_writer *w, const char *key, bool value) {
        json_key(w, key);
        fputs(value ? "true" : "false", w->f);
}

void json_field_digits(struct json_writer *w, const char *key, const char *value) {
        json_key(w, key);
        if (value && *value && strspn(value, "0123456789") == strlen(value) && strlen(value) < 20)
                fputs(value, w->f);
        else
                fputs("null", w->f);
}
