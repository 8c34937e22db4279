/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reader's wire (parser/wire.h): its start, its requests, its answers, and their checks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/wire.h"
#include "shared/cleanup.h"

bool reader_hello_valid(const struct reader_hello *h) {
        return h->magic == READER_HELLO_MAGIC && h->version == READER_VERSION && h->uid != 0 && h->gid != 0 &&
               h->uid != UINT32_MAX && h->gid != UINT32_MAX;
}

size_t reader_kind_fds(uint32_t kind) {
        switch (kind) {
        case READER_SITE:
                return 3; /* maps, pagemap, mem */
        case READER_CMDLINE:
                return 1;
        case READER_FILES:
                return 2; /* maps, mountinfo */
        case READER_PROC:
                return READER_PROC_PARTS; /* status, maps, limits */
        default:
                return 0;
        }
}

size_t reader_proc_max(size_t i) {
        static const size_t max[READER_PROC_PARTS] = { READER_PROC_STATUS_MAX, READER_PROC_MAPS_MAX, READER_PROC_LIMITS_MAX };
        return i < READER_PROC_PARTS ? max[i] : 0;
}

bool reader_request_valid(const struct reader_request *req, size_t n_fds) {
        return req->magic == READER_MAGIC && req->version == READER_VERSION && reader_kind_fds(req->kind) > 0 &&
               reader_kind_fds(req->kind) == n_fds && memchr(req->exe, 0, sizeof req->exe) != NULL;
}

size_t reader_answer_encode(const struct reader_answer *a, uint32_t seq, void *buf) {
        bool ok = a->error == 0;
        struct reader_answer_header h = {
                .magic = READER_ANSWER_MAGIC,
                .version = READER_VERSION,
                .kind = a->kind,
                .seq = seq,
                .error = a->error,
                .why = ok ? a->why : 0,
                .exe_dev = ok ? a->exe_dev : 0,
                .exe_ino = ok ? a->exe_ino : 0,
                .n_maps = ok ? (uint32_t) MIN(a->n_maps, READER_MAPS_MAX) : 0,
                .n_words = ok ? (uint32_t) MIN(a->n_words, READER_WORDS_MAX) : 0,
                .text_size = ok && a->text ? (uint32_t) MIN(a->text_size, READER_TEXT_MAX) : 0,
                .n_files = ok ? a->n_files : 0,
                .n_remote = ok ? a->n_remote : 0,
        };
        char *p = buf;
        memcpy(p, &h, sizeof h);
        p += sizeof h;
        memcpy(p, a->maps, h.n_maps * sizeof a->maps[0]);
        p += h.n_maps * sizeof a->maps[0];
        memcpy(p, a->words, h.n_words * sizeof a->words[0]);
        p += h.n_words * sizeof a->words[0];
        if (h.text_size > 0)
                memcpy(p, a->text, h.text_size);
        p += h.text_size;
        return (size_t) (p - (char *) buf);
}

__attribute__((format(printf, 3, 4))) static int bad(char *reason, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, size, fmt, ap);
        va_end(ap);
        return -EBADMSG;
}

void reader_answer_done(struct reader_answer *a) {
        free(a->text);
        a->text = NULL;
        a->text_size = 0;
}

int reader_answer_decode(const void *buf, size_t size, uint32_t kind, uint32_t seq, struct reader_answer *ret,
                         char *reason, size_t reason_size) {
        struct reader_answer_header h;
        const char *p = buf;

        memset(ret, 0, sizeof *ret);
        if (size < sizeof h)
                return bad(reason, reason_size, "%zu bytes, shorter than a header", size);
        memcpy(&h, p, sizeof h);
        if (h.magic != READER_ANSWER_MAGIC || h.version != READER_VERSION)
                return bad(reason, reason_size, "%s", "no answer of this reader's version");
        if (h.kind != kind || h.seq != seq)
                return bad(reason, reason_size, "the answer to another request (kind %u, seq %u)", h.kind, h.seq);
        if (h.reserved != 0)
                return bad(reason, reason_size, "%s", "reserved bits set");
        if (h.error > 0 || h.error < -4095)
                return bad(reason, reason_size, "error %d is no -errno", (int) h.error);
        if (h.error < 0 && (h.why || h.exe_dev || h.exe_ino || h.n_maps || h.n_words || h.text_size || h.n_files ||
                            h.n_remote))
                return bad(reason, reason_size, "%s", "an error with a payload");
        if (h.n_maps > READER_MAPS_MAX || h.n_words > READER_WORDS_MAX || h.text_size > READER_TEXT_MAX)
                return bad(reason, reason_size, "counts beyond their bounds (%u maps, %u words, %u bytes)", h.n_maps,
                           h.n_words, h.text_size);
        bool parts_ok;
        switch (kind) {
        case READER_SITE:
                parts_ok = h.text_size == 0 && h.why < _READER_SITE_WHY_MAX && !h.n_files && !h.n_remote &&
                           (h.why == READER_SITE_OK || (!h.n_maps && !h.n_words));
                break;
        case READER_CMDLINE:
        case READER_PROC:
                parts_ok = !h.n_maps && !h.n_words && !h.why && !h.exe_dev && !h.exe_ino && !h.n_files && !h.n_remote;
                break;
        case READER_FILES:
                parts_ok = !h.n_words && !h.why && !h.exe_dev && !h.exe_ino && h.n_maps <= READER_FILES_MAX &&
                           h.n_remote <= h.n_files && h.n_maps <= h.n_files - h.n_remote;
                break;
        default:
                parts_ok = false;
        }
        if (!parts_ok)
                return bad(reason, reason_size, "%s", "parts this kind of answer has not");
        size_t want = sizeof h + (size_t) h.n_maps * sizeof(struct reader_mapping) + (size_t) h.n_words * 8 +
                      h.text_size;
        if (size != want)
                return bad(reason, reason_size, "%zu bytes where its counts say %zu", size, want);
        p += sizeof h;
        memcpy(ret->maps, p, (size_t) h.n_maps * sizeof ret->maps[0]);
        p += (size_t) h.n_maps * sizeof ret->maps[0];
        for (size_t i = 0; i < h.n_maps; i++) {
                const struct reader_mapping *m = &ret->maps[i];
                if (m->start >= m->end || m->inode == 0 || m->dev_major >= 1u << 12 || m->dev_minor >= 1u << 20)
                        return bad(reason, reason_size, "mapping %zu is no file's mapping", i);
                if (i > 0 && m->start < ret->maps[i - 1].end)
                        return bad(reason, reason_size, "mapping %zu is out of order or overlaps", i);
        }
        memcpy(ret->words, p, (size_t) h.n_words * 8);
        p += (size_t) h.n_words * 8;
        if (kind == READER_FILES) {
                /* One absolute path per mapping, each ended by its NUL, filling the text. */
                size_t at = 0;
                for (size_t i = 0; i < h.n_maps; i++) {
                        const char *nul = at < h.text_size ? memchr(p + at, 0, h.text_size - at) : NULL;
                        size_t len = nul ? (size_t) (nul - (p + at)) : 0;
                        if (!nul || len == 0 || len > PARSER_KEEP_PATH_MAX || p[at] != '/')
                                return bad(reason, reason_size, "path %zu is no absolute path", i);
                        at += len + 1;
                }
                if (at != h.text_size)
                        return bad(reason, reason_size, "%s", "bytes after the last path");
        }
        if (kind == READER_PROC && h.error == 0) {
                /* Three texts, each ended by its NUL, within its bound, empty or whole lines. */
                size_t at = 0;
                for (size_t i = 0; i < READER_PROC_PARTS; i++) {
                        const char *nul = at < h.text_size ? memchr(p + at, 0, h.text_size - at) : NULL;
                        size_t len = nul ? (size_t) (nul - (p + at)) : 0;
                        if (!nul)
                                return bad(reason, reason_size, "text %zu is not ended", i);
                        if (len > reader_proc_max(i))
                                return bad(reason, reason_size, "text %zu is %zu bytes, over its %zu", i, len,
                                           reader_proc_max(i));
                        if (len > 0 && p[at + len - 1] != '\n')
                                return bad(reason, reason_size, "text %zu ends within a line", i);
                        at += len + 1;
                }
                if (at != h.text_size)
                        return bad(reason, reason_size, "%s", "bytes after the last text");
        }
        if (h.text_size > 0 || kind != READER_SITE) {
                ret->text = malloc((size_t) h.text_size + 1);
                if (!ret->text)
                        return -ENOMEM;
                memcpy(ret->text, p, h.text_size);
                ret->text[h.text_size] = 0;
        }
        ret->kind = h.kind;
        ret->error = h.error;
        ret->why = h.why;
        ret->exe_dev = h.exe_dev;
        ret->exe_ino = h.exe_ino;
        ret->n_maps = h.n_maps;
        ret->n_words = h.n_words;
        ret->text_size = h.text_size;
        ret->n_files = h.n_files;
        ret->n_remote = h.n_remote;
        for (size_t i = 0, at = 0; kind == READER_PROC && h.error == 0 && i < READER_PROC_PARTS; i++) {
                ret->proc[i] = ret->text + at;
                at += strlen(ret->proc[i]) + 1;
        }
        for (size_t i = 0, at = 0; kind == READER_FILES && i < h.n_maps; i++) {
                ret->paths[i] = ret->text + at;
                at += strlen(ret->paths[i]) + 1;
        }
        return 0;
}
