/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/wire.h"
#include "shared/cleanup.h"
#include "shared/escape.h"

void unwind_result_done(struct unwind_result *r) {
        for (size_t i = 0; i < r->n_threads; i++) {
                for (size_t k = 0; k < r->threads[i].n_frames; k++) {
                        free(r->threads[i].frames[k].module);
                        free(r->threads[i].frames[k].symbol);
                }
                free(r->threads[i].frames);
        }
        free(r->threads);
        *r = (struct unwind_result) {};
}

char *unwind_thread_format(const struct unwind_thread *t) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return NULL;
        for (size_t k = 0; k < t->n_frames; k++) {
                const struct unwind_frame *fr = &t->frames[k];
                const char *module = fr->module ? strrchr(fr->module, '/') : NULL;
                module = module ? module + 1 : fr->module;
                fprintf(f, "#%-2zu 0x%016" PRIx64 " ", k, fr->pc);
                if (fr->symbol)
                        fprintf(f, "%s + 0x%" PRIx64, fr->symbol, fr->symbol_offset);
                else
                        fprintf(f, "n/a");
                fprintf(f, " (%s", module ? module : "n/a");
                if (fr->build_id[0])
                        fprintf(f, " + 0x%" PRIx64, fr->module_offset);
                fprintf(f, ")\n");
        }
        if (t->cut != UNWIND_CUT_NONE)
                fprintf(f, "(cut short: %s)\n", unwind_cut_to_string(t->cut) ?: "?");
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}

const char *unwind_cut_to_string(enum unwind_cut cut) {
        static const char *const names[_UNWIND_CUT_MAX] = {
                [UNWIND_CUT_ERROR] = "error",
                [UNWIND_CUT_BUDGET] = "budget",
                [UNWIND_CUT_FRAMES] = "frames",
        };
        return (unsigned) cut < _UNWIND_CUT_MAX ? names[cut] : NULL;
}

bool parser_request_valid(const struct parser_request *req) {
        if (req->magic != PARSER_MAGIC || req->version != PARSER_VERSION)
                return false;
        if (req->n_threads > UNWIND_MAX_THREADS || req->max_frames > UNWIND_MAX_FRAMES ||
            req->max_files > PARSER_MAP_FILES_MAX)
                return false;
        if (req->uid == 0 || req->gid == 0)
                return false;
        return memchr(req->exe, 0, sizeof req->exe) != NULL;
}

/* ---- encoding (the parser) ------------------------------------------------------------------- */

struct buf {
        unsigned char *data;
        size_t size, used;
};

static void put(struct buf *b, const void *p, size_t n) {
        /* Sized for the maxima up front: never more than PARSER_RESULT_MAX. */
        if (b->used + n <= b->size) {
                memcpy(b->data + b->used, p, n);
                b->used += n;
        }
}

static size_t name_len(const char *s, size_t max) {
        return s ? strnlen(s, max) : 0;
}

int parser_result_encode(const struct unwind_result *r, int error, void **ret_buf, size_t *ret_size) {
        struct buf b = { .size = PARSER_RESULT_MAX };
        size_t n_threads = error < 0 ? 0 : MIN(r->n_threads, (size_t) UNWIND_MAX_THREADS);

        b.data = calloc(1, b.size);
        if (!b.data)
                return -ENOMEM;
        struct parser_result_header h = {
                .magic = PARSER_MAGIC,
                .version = PARSER_VERSION,
                .error = error < 0 ? error : 0,
                .n_threads = (uint32_t) n_threads,
                .usec = r ? r->usec : 0,
        };
        if (r && error >= 0)
                memcpy(h.exe_build_id, r->exe_build_id, strnlen(r->exe_build_id, sizeof h.exe_build_id));
        put(&b, &h, sizeof h);
        for (size_t i = 0; i < n_threads; i++) {
                const struct unwind_thread *t = &r->threads[i];
                size_t n_frames = MIN(t->n_frames, (size_t) UNWIND_MAX_FRAMES);
                struct parser_wire_thread wt = {
                        .tid = t->tid,
                        .n_frames = (uint16_t) n_frames,
                        .cut = t->cut,
                };
                put(&b, &wt, sizeof wt);
                for (size_t k = 0; k < n_frames; k++) {
                        const struct unwind_frame *f = &t->frames[k];
                        struct parser_wire_frame wf = {
                                .pc = f->pc,
                                .module_offset = f->module_offset,
                                .symbol_offset = f->symbol_offset,
                                .module_len = (uint16_t) name_len(f->module, PARSER_MODULE_MAX),
                                .symbol_len = (uint16_t) name_len(f->symbol, PARSER_SYMBOL_MAX),
                        };
                        memcpy(wf.build_id, f->build_id, strnlen(f->build_id, sizeof wf.build_id));
                        put(&b, &wf, sizeof wf);
                        put(&b, f->module, wf.module_len);
                        put(&b, f->symbol, wf.symbol_len);
                }
        }
        ((struct parser_result_header *) b.data)->size = (uint32_t) b.used;
        *ret_buf = b.data;
        *ret_size = b.used;
        return 0;
}

/* ---- decoding (the daemon) ------------------------------------------------------------------- */

struct cursor {
        const unsigned char *p;
        size_t left;
};

static bool take(struct cursor *c, void *out, size_t n) {
        if (n > c->left)
                return false;
        memcpy(out, c->p, n);
        c->p += n;
        c->left -= n;
        return true;
}

/* A build-id as sent: up to 40 lowercase hex digits (an even number), then NULs only. */
static bool build_id_take(const char in[40], char out[static 41]) {
        size_t n = strnlen(in, 40);
        if (n % 2 != 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((in[i] >= '0' && in[i] <= '9') || (in[i] >= 'a' && in[i] <= 'f')))
                        return false;
        for (size_t i = n; i < 40; i++)
                if (in[i] != 0)
                        return false;
        memcpy(out, in, n);
        out[n] = 0;
        return true;
}

/* A name as the crashed task's files gave it: escaped (shared/escape.h) before it reaches a record,
 * a log line or a terminal. */
static bool name_take(struct cursor *c, size_t len, size_t max, char **ret) {
        *ret = NULL;
        if (len == 0)
                return true;
        if (len > max || len > c->left || memchr(c->p, 0, len))
                return false;
        *ret = escape_text(c->p, len);
        if (!*ret)
                return false;
        c->p += len;
        c->left -= len;
        return true;
}

static int fail(char *reason, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, size, fmt, ap);
        va_end(ap);
        return -EBADMSG;
}

int parser_result_decode(const void *buf, size_t size, struct unwind_result *ret, int *ret_error, char *reason,
                         size_t reason_size) {
        struct cursor c = { .p = buf, .left = size };
        struct parser_result_header h;
        struct unwind_result r = {};
        int k;

        *ret_error = 0;
        if (size > PARSER_RESULT_MAX)
                return fail(reason, reason_size, "result of %zu bytes, more than the %zu allowed", size,
                            (size_t) PARSER_RESULT_MAX);
        if (!take(&c, &h, sizeof h))
                return fail(reason, reason_size, "result of %zu bytes, shorter than its header", size);
        if (h.magic != PARSER_MAGIC || h.version != PARSER_VERSION)
                return fail(reason, reason_size, "result with magic 0x%" PRIx32 " version %" PRIu32, h.magic,
                            h.version);
        if (h.size != size)
                return fail(reason, reason_size, "result says %" PRIu32 " bytes, %zu came", h.size, size);
        if (h.error > 0 || h.error < -4095)
                return fail(reason, reason_size, "result with error %" PRId32, h.error);
        if (h.n_threads > UNWIND_MAX_THREADS)
                return fail(reason, reason_size, "result with %" PRIu32 " threads", h.n_threads);
        if (h.error < 0 && h.n_threads > 0)
                return fail(reason, reason_size, "result with an error and threads");
        if (!build_id_take(h.exe_build_id, r.exe_build_id))
                return fail(reason, reason_size, "result with a malformed build-id");
        r.usec = h.usec;

        if (h.n_threads > 0) {
                r.threads = calloc(h.n_threads, sizeof r.threads[0]);
                if (!r.threads)
                        return -ENOMEM;
        }
        for (uint32_t i = 0; i < h.n_threads; i++) {
                struct unwind_thread *t = &r.threads[i];
                struct parser_wire_thread wt;
                if (!take(&c, &wt, sizeof wt)) {
                        k = fail(reason, reason_size, "result cut in thread %" PRIu32, i);
                        goto error;
                }
                r.n_threads++;
                if (wt.tid <= 0 || wt.n_frames > UNWIND_MAX_FRAMES || wt.cut >= _UNWIND_CUT_MAX) {
                        k = fail(reason, reason_size, "result with thread %" PRId32 " of %u frames", wt.tid,
                                 (unsigned) wt.n_frames);
                        goto error;
                }
                t->tid = wt.tid;
                t->cut = wt.cut;
                if (wt.n_frames == 0)
                        continue;
                t->frames = calloc(wt.n_frames, sizeof t->frames[0]);
                if (!t->frames) {
                        k = -ENOMEM;
                        goto error;
                }
                for (unsigned f = 0; f < wt.n_frames; f++) {
                        struct unwind_frame *fr = &t->frames[f];
                        struct parser_wire_frame wf;
                        if (!take(&c, &wf, sizeof wf)) {
                                k = fail(reason, reason_size, "result cut in a frame of thread %" PRId32, wt.tid);
                                goto error;
                        }
                        t->n_frames++;
                        fr->pc = wf.pc;
                        fr->module_offset = wf.module_offset;
                        fr->symbol_offset = wf.symbol_offset;
                        if (!build_id_take(wf.build_id, fr->build_id) ||
                            !name_take(&c, wf.module_len, PARSER_MODULE_MAX, &fr->module) ||
                            !name_take(&c, wf.symbol_len, PARSER_SYMBOL_MAX, &fr->symbol)) {
                                k = fail(reason, reason_size, "result with a malformed frame in thread %" PRId32,
                                         wt.tid);
                                goto error;
                        }
                }
        }
        if (c.left != 0) {
                k = fail(reason, reason_size, "result with %zu bytes after its last frame", c.left);
                goto error;
        }
        *ret_error = h.error;
        *ret = r;
        return 0;

error:
        unwind_result_done(&r);
        return k;
}

/* ---- a crash record ---------------------------------------------------------------------------- */

int parser_record_encode(const struct iovec *v, size_t n, uid_t uid, gid_t gid, void **ret_buf, size_t *ret_size) {
        size_t size = sizeof(struct parser_record_header);
        if (n > PARSER_RECORD_FIELDS_MAX)
                return -E2BIG;
        for (size_t i = 0; i < n; i++) {
                if (v[i].iov_len > PARSER_RECORD_MAX)
                        return -E2BIG;
                size += sizeof(uint32_t) + v[i].iov_len;
                if (size > PARSER_RECORD_MAX)
                        return -E2BIG;
        }
        unsigned char *buf = malloc(size), *p;
        if (!buf)
                return -ENOMEM;
        struct parser_record_header h = {
                .magic = PARSER_RECORD_MAGIC,
                .version = PARSER_VERSION,
                .uid = uid,
                .gid = gid,
                .n_fields = (uint32_t) n,
                .size = (uint32_t) size,
        };
        memcpy(buf, &h, sizeof h);
        p = buf + sizeof h;
        for (size_t i = 0; i < n; i++) {
                uint32_t len = (uint32_t) v[i].iov_len;
                memcpy(p, &len, sizeof len);
                memcpy(p + sizeof len, v[i].iov_base, len);
                p += sizeof len + len;
        }
        *ret_buf = buf;
        *ret_size = size;
        return 0;
}

static bool field_name_valid(const char *p, size_t len) {
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p)
                return false;
        for (const char *c = p; c < eq; c++)
                if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
                        return false;
        return p[0] != '_'; /* trusted fields are journald's to add */
}

int parser_record_decode(const void *buf, size_t size, struct iovec **ret_v, size_t *ret_n, uid_t *ret_uid,
                         gid_t *ret_gid) {
        struct cursor c = { .p = buf, .left = size };
        struct parser_record_header h;

        if (size > PARSER_RECORD_MAX || !take(&c, &h, sizeof h))
                return -EBADMSG;
        if (h.magic != PARSER_RECORD_MAGIC || h.version != PARSER_VERSION || h.size != size || h.uid == 0 ||
            h.gid == 0 || h.n_fields == 0 || h.n_fields > PARSER_RECORD_FIELDS_MAX)
                return -EBADMSG;
        struct iovec *v = calloc(h.n_fields, sizeof *v);
        if (!v)
                return -ENOMEM;
        for (uint32_t i = 0; i < h.n_fields; i++) {
                uint32_t len;
                if (!take(&c, &len, sizeof len) || len > c.left || !field_name_valid((const char *) c.p, len)) {
                        free(v);
                        return -EBADMSG;
                }
                v[i] = (struct iovec) { .iov_base = (void *) c.p, .iov_len = len };
                c.p += len;
                c.left -= len;
        }
        if (c.left != 0) {
                free(v);
                return -EBADMSG;
        }
        *ret_v = v;
        *ret_n = h.n_fields;
        *ret_uid = h.uid;
        *ret_gid = h.gid;
        return 0;
}

bool parser_build_id_request_valid(const struct parser_build_id_request *req) {
        return req->magic == PARSER_BUILD_ID_MAGIC && req->version == PARSER_VERSION && req->uid != 0 && req->gid != 0 &&
               req->n_files <= PARSER_BUILD_ID_FILES_MAX;
}

int parser_build_ids_decode(const char *buf, size_t size, size_t n, char (*ret)[41]) {
        size_t pos = 0;

        if (n > PARSER_BUILD_ID_FILES_MAX)
                return -EBADMSG;
        for (size_t i = 0; i < n; i++) {
                const char *line = buf + pos;
                const char *eol = memchr(line, '\n', size - pos);
                if (!eol)
                        return -EBADMSG;
                size_t len = (size_t) (eol - line);
                if (len == 1 && line[0] == '-')
                        ret[i][0] = 0;
                else {
                        if (len < 2 || len > 40 || len % 2 != 0)
                                return -EBADMSG;
                        for (size_t k = 0; k < len; k++)
                                if (!((line[k] >= '0' && line[k] <= '9') || (line[k] >= 'a' && line[k] <= 'f')))
                                        return -EBADMSG;
                        memcpy(ret[i], line, len);
                        ret[i][len] = 0;
                }
                pos += len + 1;
        }
        return pos == size ? 0 : -EBADMSG;
}


bool parser_compact_request_valid(const struct parser_compact_request *req) {
        return req->magic == PARSER_COMPACT_MAGIC && req->version == PARSER_VERSION && req->uid != 0 && req->gid != 0 &&
               req->max_size >= sizeof(Elf64_Ehdr) && req->max_size <= PARSER_COMPACT_MAX;
}

bool parser_compact_core_valid(const void *buf, size_t size, uint64_t max_size) {
        Elf64_Ehdr eh;

        if (size < sizeof eh || size > max_size)
                return false;
        memcpy(&eh, buf, sizeof eh);
        if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
            eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_CORE || eh.e_machine != EM_X86_64 ||
            eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum == PN_XNUM)
                return false;
        return eh.e_phoff >= sizeof eh && eh.e_phoff <= size &&
               (uint64_t) eh.e_phnum * sizeof(Elf64_Phdr) <= size - eh.e_phoff;
}

/* ---- a container's files kept with its core -------------------------------------------------- */

bool parser_keep_request_valid(const struct parser_keep_request *req) {
        if (req->magic != PARSER_KEEP_MAGIC || req->version != PARSER_VERSION || req->uid == 0 || req->gid == 0 ||
            req->n_files > PARSER_KEEP_FILES_MAX)
                return false;
        for (uint32_t i = 0; i < req->n_files; i++)
                if (req->files[i].path_len == 0 || req->files[i].path_len > PARSER_KEEP_PATH_MAX)
                        return false;
        return true;
}

int parser_keep_opened_check(const struct parser_keep_opened *o, size_t n) {
        if (o->magic != PARSER_KEEP_MAGIC || o->n_files != n || n > PARSER_KEEP_FILES_MAX)
                return -EBADMSG;
        for (size_t i = 0; i < n; i++)
                if (o->error[i] > 0 || o->error[i] < -4095)
                        return -EBADMSG;
        return 0;
}

int parser_keep_entry_check(const struct parser_keep_entry *e, const struct parser_keep_opened *opened, size_t n,
                            uint32_t *next, uint64_t *budget, char ret_build_id[static 41]) {
        ret_build_id[0] = 0;
        if (e->magic != PARSER_KEEP_MAGIC || e->error > 0 || e->error < -4095)
                return -EBADMSG;
        if (e->what == PARSER_KEEP_END)
                return 0;
        if (e->what < PARSER_KEEP_HOST || e->what > PARSER_KEEP_NONE || e->index < *next || e->index >= n ||
            opened->error[e->index] != 0)
                return -EBADMSG;
        if (!build_id_take(e->build_id, ret_build_id))
                return -EBADMSG;
        if (e->what == PARSER_KEEP_COPY) {
                if (e->size > *budget)
                        return -EBADMSG;
                *budget -= e->size;
        } else if (e->size != 0)
                return -EBADMSG;
        *next = e->index + 1;
        return 0;
}
