/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/escape.h"

/* Length of the valid, non-control UTF-8 sequence at p (at most n bytes), or 0 if there is none. */
static size_t utf8_sequence_length(const uint8_t *p, size_t n) {
        uint32_t cp;
        size_t len;

        if (p[0] < 0xC2)
                return 0; /* ASCII is handled by the caller; 0x80-0xC1 never start a sequence */
        if (p[0] < 0xE0) {
                len = 2;
                cp = p[0] & 0x1F;
        } else if (p[0] < 0xF0) {
                len = 3;
                cp = p[0] & 0x0F;
        } else if (p[0] < 0xF5) {
                len = 4;
                cp = p[0] & 0x07;
        } else
                return 0;

        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((p[i] & 0xC0) != 0x80)
                        return 0;
                cp = (cp << 6) | (p[i] & 0x3F);
        }

        /* Reject overlong forms, surrogates, out of range and C1 controls. */
        if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF) || cp < 0xA0)
                return 0;
        /* Format characters that reorder or break what a reader sees around them: the bidi marks,
         * embeddings, overrides and isolates, and the line and paragraph separators. A name could
         * otherwise show another name, or end a line, on a terminal. */
        if (cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
            (cp >= 0x2066 && cp <= 0x2069))
                return 0;
        return len;
}

struct text_buffer {
        char *data;
        size_t used, allocated;
        bool failed;
};

static void buffer_append(struct text_buffer *b, const char *s, size_t n) {
        if (b->failed)
                return;
        if (b->used + n + 1 > b->allocated) {
                size_t want = b->allocated * 2 > b->used + n + 1 ? b->allocated * 2 : b->used + n + 64;
                char *p = realloc(b->data, want);
                if (!p) {
                        b->failed = true;
                        return;
                }
                b->data = p;
                b->allocated = want;
        }
        memcpy(b->data + b->used, s, n);
        b->used += n;
        b->data[b->used] = 0;
}

static void buffer_append_hex(struct text_buffer *b, uint8_t c) {
        char hex[5];
        snprintf(hex, sizeof hex, "\\x%02x", c);
        buffer_append(b, hex, 4);
}

static char *buffer_finish(struct text_buffer *b) {
        if (b->failed) {
                free(b->data);
                return NULL;
        }
        if (!b->data)
                return strdup("");
        return b->data;
}

/* keep_lines: newlines and tabs stay as they are (multi-line text: /proc's status, maps, limits). */
static void escape_into(struct text_buffer *b, const uint8_t *p, size_t n, bool escape_space, bool keep_lines) {
        for (size_t i = 0; i < n;) {
                uint8_t c = p[i];

                if (keep_lines && (c == '\n' || c == '\t')) {
                        buffer_append(b, (const char *) p + i, 1);
                        i++;
                } else if (c == '\\') {
                        buffer_append(b, "\\\\", 2);
                        i++;
                } else if (c == '\n') {
                        buffer_append(b, "\\n", 2);
                        i++;
                } else if (c == '\t') {
                        buffer_append(b, "\\t", 2);
                        i++;
                } else if (c == '\r') {
                        buffer_append(b, "\\r", 2);
                        i++;
                } else if (c == ' ' && escape_space) {
                        buffer_append_hex(b, c);
                        i++;
                } else if (c >= 0x20 && c < 0x7F) {
                        buffer_append(b, (const char *) p + i, 1);
                        i++;
                } else {
                        size_t len = utf8_sequence_length(p + i, n - i);
                        if (len > 0) {
                                buffer_append(b, (const char *) p + i, len);
                                i += len;
                        } else {
                                buffer_append_hex(b, c);
                                i++;
                        }
                }
        }
}

char *escape_text(const void *data, size_t size) {
        struct text_buffer b = {};
        escape_into(&b, data, size, false, false);
        return buffer_finish(&b);
}

char *escape_lines(const void *data, size_t size) {
        struct text_buffer b = {};
        escape_into(&b, data, size, false, true);
        return buffer_finish(&b);
}

char *escape_cmdline(const void *data, size_t size) {
        const uint8_t *p = data;
        struct text_buffer b = {};

        /* The kernel terminates every argument with NUL; drop the final one(s). */
        while (size > 0 && p[size - 1] == 0)
                size--;

        for (size_t start = 0; start <= size;) {
                const uint8_t *end = memchr(p + start, 0, size - start);
                size_t len = end ? (size_t) (end - (p + start)) : size - start;

                if (start > 0)
                        buffer_append(&b, " ", 1);
                escape_into(&b, p + start, len, true, false);
                start += len + 1;
        }
        return buffer_finish(&b);
}

static bool filename_char_is_safe(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '+' || c == '@' || c == '-';
}

char *escape_filename_part(const char *s) {
        struct text_buffer b = {};

        if (!s || !*s)
                return strdup("unknown");

        for (const char *c = s; *c; c++) {
                if (filename_char_is_safe(*c))
                        buffer_append(&b, c, 1);
                else
                        buffer_append_hex(&b, (uint8_t) *c);
        }
        return buffer_finish(&b);
}
