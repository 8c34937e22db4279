/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The answer of the cell that names frames (dumpctl.h, "The wire"), checked whole before a byte of
 * it is believed: a cell that a crafted debug file took over may send anything. Only the lines the
 * wire allows, in its order; a name of printable ASCII (no control character: no terminal
 * sequence reaches root's terminal), at most SYMBOL_MAX; an offset of at most 16 hex digits;
 * exactly one answer per frame asked; nothing after the end. No allocation, no logging: the
 * notices go to the caller's function (tests/fuzz/fuzz-symbols-answer.c feeds it anything).
 */
#include <stdlib.h>
#include <string.h>

#include "dumpctl.h"

const char *const symbols_notice_words[_SYMBOLS_NOTICE_MAX] = {
        [SYMBOLS_NOTICE_LIBRARY] = "library",
        [SYMBOLS_NOTICE_FUNCTIONS] = "functions",
        [SYMBOLS_NOTICE_CLIENT] = "client",
        [SYMBOLS_NOTICE_ERROR] = "error",
        [SYMBOLS_NOTICE_TIME] = "time",
        [SYMBOLS_NOTICE_CELL] = "cell",
};

bool symbols_notice_has_errno(enum symbols_notice notice) {
        return notice == SYMBOLS_NOTICE_CLIENT || notice == SYMBOLS_NOTICE_ERROR || notice == SYMBOLS_NOTICE_CELL;
}

/* "WORD" or "WORD ERRNO" (1 to 4095) of a notice the wire knows. */
static bool notice_line(const char *line, symbols_notice_fn fn, void *userdata) {
        for (enum symbols_notice i = 0; i < _SYMBOLS_NOTICE_MAX; i++) {
                size_t n = strlen(symbols_notice_words[i]);
                if (strncmp(line, symbols_notice_words[i], n) != 0)
                        continue;
                const char *rest = line + n;
                int error = 0;
                if (symbols_notice_has_errno(i)) {
                        size_t digits = *rest == ' ' ? strspn(rest + 1, "0123456789") : 0;
                        if (digits == 0 || digits > 4 || rest[1 + digits] != 0)
                                return false;
                        error = atoi(rest + 1);
                        if (error <= 0 || error >= 4096)
                                return false;
                } else if (*rest != 0)
                        return false;
                if (fn)
                        fn(i, error, userdata);
                return true;
        }
        return false;
}

/* "L|D 0xOFFSET NAME" (after "= "). */
static bool answer_line(const char *line, struct symbol_answer *ret) {
        if ((line[0] != 'L' && line[0] != 'D') || strncmp(line + 1, " 0x", 3) != 0)
                return false;
        const char *hex = line + 4;
        size_t digits = strspn(hex, "0123456789abcdef");
        if (digits == 0 || digits > 16 || hex[digits] != ' ')
                return false;
        const char *name = hex + digits + 1;
        size_t len = strlen(name);
        if (len == 0 || len > SYMBOL_MAX)
                return false;
        for (size_t i = 0; i < len; i++)
                if ((unsigned char) name[i] < 0x20 || (unsigned char) name[i] >= 0x7f)
                        return false;
        ret->origin = line[0] == 'L' ? SYMBOL_LOCAL : SYMBOL_DEBUGINFOD;
        ret->offset = strtoull(hex, NULL, 16);
        memcpy(ret->name, name, len + 1);
        return true;
}

bool symbols_answer_decode(char *buf, size_t size, size_t n, struct symbol_answer *answers, symbols_notice_fn fn,
                           void *userdata) {
        size_t k = 0;

        if (size == 0 || memchr(buf, 0, size) || buf[size - 1] != '\n')
                return false;
        buf[size - 1] = 0; /* the last line's end: every line now ends in '\n' or here */
        for (char *line = buf, *end = NULL; line < buf + size; line = end + 1) {
                end = strchr(line, '\n');
                if (!end)
                        end = buf + size - 1;
                *end = 0;
                if (line[0] == '!' && line[1] == ' ' && k == 0) {
                        if (!notice_line(line + 2, fn, userdata))
                                return false;
                } else if (strcmp(line, "-") == 0 && k < n)
                        answers[k++] = (struct symbol_answer) {};
                else if (line[0] == '=' && line[1] == ' ' && k < n) {
                        if (!answer_line(line + 2, &answers[k++]))
                                return false;
                } else if (strcmp(line, ".") == 0)
                        return k == n && end == buf + size - 1;
                else
                        return false;
        }
        return false;
}
