/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names for the frames the daemon's unwinder could not name: a stripped binary's frame is recorded
 * with its module's build-id and the pc's offset from the module's start (COREDUMPD_FRAME=), and
 * here, later and on whatever machine reads the record (a collector), the debug file of that
 * build-id is looked for: under /usr/lib/debug/.build-id first, then from the debuginfod servers
 * of $DEBUGINFOD_URLS through elfutils' client, bounded in time, and libdwfl names the function.
 *
 * Never on the daemon's crash path: the daemon's parser has no environment, no sockets and no
 * debuginfod (parser/unwind.c). Everything read from a record is hostile: a build-id is requested
 * only as lowercase hex of a build-id's length, offsets are parsed strictly, and what is opened is
 * the file elfutils' client put in its cache or the local debug directory's, never a path from the
 * record. The lookup itself, the client and libdwfl, runs in a cell (dumpctl.h): unprivileged,
 * killed at the run's deadline, its answer checked; this file only matches the record's lines and
 * writes the names it got back into them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dumpctl.h"
#include "shared/cleanup.h"

/* The frames a record holds (UNWIND_MAX_FRAMES). */
#define MAX_FRAMES SYMBOLS_MAX_QUERIES

bool build_id_valid(const char *s) {
        size_t n = s ? strlen(s) : 0;
        /* GNU build-ids: 8 (lld's fast), 16 (md5, uuid) or 20 bytes (sha1); at most the record's 40
         * hex digits. */
        if (n < 16 || n > 40 || n % 2 != 0)
                return false;
        return strspn(s, "0123456789abcdef") == n;
}

void symbols_done(void) {
        symbols_cell_done();
}

/* ---- the record's frames ---------------------------------------------------------------------- */

struct frame {
        bool named;                     /* the record names its function */
        char build_id[41];              /* "" when none or not a valid one */
        uint64_t module_offset;
        bool known;
};

/* A hex number of at most 16 digits after "0x" at *p; advances *p. */
static bool parse_hex(const char **p, uint64_t *ret) {
        const char *s = *p;
        if (strncmp(s, "0x", 2) != 0)
                return false;
        s += 2;
        size_t n = strspn(s, "0123456789abcdef");
        if (n == 0 || n > 16)
                return false;
        uint64_t v = 0;
        for (size_t i = 0; i < n; i++)
                v = v << 4 | (uint64_t) (s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
        *ret = v;
        *p = s + n;
        return true;
}

/* A decimal frame number below MAX_FRAMES at *p; advances *p. */
static bool parse_index(const char **p, size_t *ret) {
        const char *s = *p;
        size_t n = strspn(s, "0123456789");
        if (n == 0 || n > 2 || (n == 2 && s[0] == '0'))
                return false;
        size_t v = n == 1 ? (size_t) (s[0] - '0') : (size_t) (s[0] - '0') * 10 + (size_t) (s[1] - '0');
        if (v >= MAX_FRAMES)
                return false;
        *ret = v;
        *p = s + n;
        return true;
}

/* COREDUMPD_FRAME= "N BUILDID+0xOFFSET SYMBOL+0xOFFSET MODULE" (record.c; "-" for none). A
 * malformed one is ignored. */
static void frame_parse(const char *value, size_t len, struct frame frames[static MAX_FRAMES]) {
        char text[128];
        if (len >= sizeof text)
                len = sizeof text - 1; /* the module's name may be cut: it is not read */
        memcpy(text, value, len);
        text[len] = 0;

        const char *p = text;
        size_t k;
        if (!parse_index(&p, &k) || *p++ != ' ')
                return;
        const char *id = p;
        size_t id_len = strcspn(p, "+ ");
        p += id_len;
        if (*p++ != '+')
                return;
        uint64_t offset;
        if (!parse_hex(&p, &offset) || *p++ != ' ')
                return;
        struct frame f = { .known = true, .module_offset = offset, .named = strncmp(p, "-+0x", 4) != 0 };
        if (id_len < sizeof f.build_id) {
                memcpy(f.build_id, id, id_len);
                f.build_id[id_len] = 0;
                if (!build_id_valid(f.build_id))
                        f.build_id[0] = 0;
        }
        if (frames[k].known)
                return; /* twice: the first stands */
        frames[k] = f;
}

/* Whether the line of bt (n bytes) is an unnamed frame that frames[] ties to a build-id:
 * "#N  0x<16 hex> n/a (MODULE + 0xOFFSET)", unwind_thread_format()'s line of an unnamed frame in a
 * module with a build-id, whose N and OFFSET are a COREDUMPD_FRAME='s. *ret_na: its "n/a". */
static bool line_match(const char *line, size_t n, const struct frame frames[static MAX_FRAMES], size_t *ret_k,
                       const char **ret_na) {
        const char *p = line;
        size_t k = 0;
        uint64_t pc, offset;
        const char *na = NULL;
        if (*p == '#' && (p++, parse_index(&p, &k)) && *p == ' ') {
                p += strspn(p, " ");
                if (parse_hex(&p, &pc) && strncmp(p, " n/a (", 6) == 0)
                        na = p + 1;
        }
        const char *tail = na ? memmem(line, n, " + 0x", 5) : NULL;
        const char *last = NULL;
        while (tail && tail < line + n) {
                last = tail;
                tail = memmem(tail + 1, (size_t) (line + n - tail - 1), " + 0x", 5);
        }
        const char *q = last ? last + 3 : NULL;
        if (!(q && parse_hex(&q, &offset) && q == line + n - 1 && *q == ')' && frames[k].known && !frames[k].named &&
              frames[k].build_id[0] && frames[k].module_offset == offset))
                return false;
        *ret_k = k;
        *ret_na = na;
        return true;
}

/* Whether a debug file of build_id is on this machine (its name only: the cell reads it). */
static bool local_debug_file(const char *build_id) {
        char path[sizeof DEBUG_DIRECTORY + 64];
        snprintf(path, sizeof path, DEBUG_DIRECTORY "/%.2s/%s.debug", build_id, build_id + 2);
        return access(path, F_OK) == 0;
}

char *symbols_backtrace(const struct entry *d, const char *bt) {
        static const char name[] = "COREDUMPD_FRAME=";
        struct frame frames[MAX_FRAMES] = {};
        struct symbol_query queries[MAX_FRAMES];
        static struct symbol_answer answers[MAX_FRAMES];
        ssize_t asked[MAX_FRAMES];      /* frame k's query, or -1 */
        size_t n = 0;
        bool any_source = debuginfod_urls_set();

        if (!bt)
                return NULL;
        for (size_t i = 0; i < d->fields.n; i++) {
                const char *e = d->fields.v[i].iov_base;
                size_t len = d->fields.v[i].iov_len;
                if (len <= sizeof name - 1 || strncmp(e, name, sizeof name - 1) != 0)
                        continue;
                frame_parse(e + sizeof name - 1, len - (sizeof name - 1), frames);
        }
        /* The frames whose lines are there to be named: asked for all at once. */
        for (size_t k = 0; k < MAX_FRAMES; k++)
                asked[k] = -1;
        for (const char *line = bt; *line;) {
                size_t len = strcspn(line, "\n"), k;
                const char *na;
                if (line_match(line, len, frames, &k, &na) && asked[k] < 0) {
                        asked[k] = (ssize_t) n;
                        queries[n] = (struct symbol_query) { .module_offset = frames[k].module_offset };
                        memcpy(queries[n].build_id, frames[k].build_id, sizeof queries[n].build_id);
                        any_source = any_source || local_debug_file(frames[k].build_id);
                        n++;
                }
                line += len + (line[len] == '\n');
        }
        if (n == 0 || !any_source || symbols_cell_lookup(queries, n, answers) < 0)
                return NULL;

        char *text = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&text, &size);
        if (!out)
                return NULL;
        bool changed = false;
        for (const char *line = bt; *line;) {
                size_t len = strcspn(line, "\n"), k;
                const char *next = line + len + (line[len] == '\n');
                const char *na;
                const struct symbol_answer *a =
                        line_match(line, len, frames, &k, &na) && asked[k] >= 0 ? &answers[asked[k]] : NULL;
                if (a && a->origin != SYMBOL_NONE) {
                        fwrite(line, 1, (size_t) (na - line), out);
                        fprintf(out, "%s + 0x%" PRIx64 " [%s]", a->name, a->offset,
                                a->origin == SYMBOL_LOCAL ? "debug file" : "debuginfod");
                        fwrite(na + 3, 1, (size_t) (next - na - 3), out);
                        changed = true;
                } else
                        fwrite(line, 1, (size_t) (next - line), out);
                line = next;
        }
        if (fclose(out) != 0 || !changed) {
                free(text);
                return NULL;
        }
        return text;
}
