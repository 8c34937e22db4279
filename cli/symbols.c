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
 * record. The client (libdebuginfod.so.1, which links libcurl) is loaded only when
 * $DEBUGINFOD_URLS names a server, as libdwfl itself does.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

#define DEBUG_DIRECTORY "/usr/lib/debug/.build-id"
/* The frames a record holds (UNWIND_MAX_FRAMES), and the distinct modules looked up in one run. */
#define MAX_FRAMES 64
#define MAX_MODULES 64
/* A name printed from a debug file, at most (the parser's PARSER_SYMBOL_MAX). */
#define SYMBOL_MAX 512

enum origin {
        ORIGIN_NONE,
        ORIGIN_LOCAL,           /* DEBUG_DIRECTORY */
        ORIGIN_DEBUGINFOD,
};

struct module {
        char build_id[41];
        Dwfl *dwfl;             /* NULL: no debug file found */
        Dwfl_Module *mod;
        enum origin origin;
};

/* elfutils' client, as debuginfod_find_debuginfo(3) documents it: its soname and the functions
 * used (not its header: the package is no build dependency for four prototypes). */
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"
typedef struct debuginfod_client debuginfod_client;
typedef int (*debuginfod_progressfn_t)(debuginfod_client *client, long a, long b);

struct client_api {
        debuginfod_client *(*begin)(void);
        void (*end)(debuginfod_client *);
        int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
        void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
};

static struct {
        bool initialized;
        struct module modules[MAX_MODULES];
        size_t n_modules;
        void *library;                  /* dlopen()ed, or NULL */
        struct client_api api;
        debuginfod_client *client;
        bool client_failed;             /* said once; no more attempts */
        uint64_t budget_usec;           /* for all queries of this run */
        uint64_t deadline;              /* CLOCK_MONOTONIC, set at the first query; 0: none yet */
        bool out_of_time;               /* said once */
        bool said_error;
} state;

bool build_id_valid(const char *s) {
        size_t n = s ? strlen(s) : 0;
        /* GNU build-ids: 8 (lld's fast), 16 (md5, uuid) or 20 bytes (sha1); at most the record's 40
         * hex digits. */
        if (n < 16 || n > 40 || n % 2 != 0)
                return false;
        return strspn(s, "0123456789abcdef") == n;
}

/* $DEBUGINFOD_TIMEOUT's seconds if it is a positive number, else the default. */
static uint64_t budget_from_environment(void) {
        const char *t = getenv("DEBUGINFOD_TIMEOUT");
        char *end;
        if (t && *t >= '0' && *t <= '9') {
                errno = 0;
                unsigned long long s = strtoull(t, &end, 10);
                if (errno == 0 && *end == 0 && s > 0 && s <= 24 * 3600)
                        return s * UINT64_C(1000000);
        }
        return SYMBOLS_DEFAULT_TIMEOUT_SEC * UINT64_C(1000000);
}

bool debuginfod_urls_set(void) {
        const char *urls = getenv("DEBUGINFOD_URLS");
        return urls && urls[strspn(urls, " \t")] != 0;
}

static int progress(debuginfod_client *client, long a, long b) {
        (void) client;
        (void) a;
        (void) b;
        /* Non-zero stops the transfer; the client calls this about once a second while it waits. */
        return now_monotonic_usec() >= state.deadline;
}

static bool client_open(void) {
        if (state.client)
                return true;
        if (state.client_failed)
                return false;
        state.client_failed = true;
        state.library = dlopen(DEBUGINFOD_SONAME, RTLD_LAZY | RTLD_LOCAL);
        if (!state.library) {
                log_notice("DEBUGINFOD_URLS is set, but %s cannot be loaded (%s): frames stay unnamed.", DEBUGINFOD_SONAME,
                           dlerror());
                return false;
        }
        struct client_api *a = &state.api;
        *(void **) &a->begin = dlsym(state.library, "debuginfod_begin");
        *(void **) &a->end = dlsym(state.library, "debuginfod_end");
        *(void **) &a->find_debuginfo = dlsym(state.library, "debuginfod_find_debuginfo");
        *(void **) &a->set_progressfn = dlsym(state.library, "debuginfod_set_progressfn");
        if (!a->begin || !a->end || !a->find_debuginfo || !a->set_progressfn) {
                log_notice("%s lacks the client functions: frames stay unnamed.", DEBUGINFOD_SONAME);
                return false;
        }
        state.client = a->begin();
        if (!state.client) {
                log_notice("Cannot start the debuginfod client: %m");
                return false;
        }
        a->set_progressfn(state.client, progress);
        state.client_failed = false;
        return true;
}

/* The run's time for debuginfod is spent: said once, no more queries. Returns -1. */
static int out_of_time(void) {
        if (!state.out_of_time)
                log_notice("No answer from DEBUGINFOD_URLS within %" PRIu64 " s (DEBUGINFOD_TIMEOUT=): the frames left "
                           "are not named.", state.budget_usec / UINT64_C(1000000));
        state.out_of_time = true;
        return -1;
}

/* An fd of the debug file of build_id (validated) from the debuginfod servers, or -1. */
static int debuginfod_find(const char *build_id) {
        if (!debuginfod_urls_set() || state.out_of_time || !client_open())
                return -1;
        if (state.deadline == 0)
                state.deadline = now_monotonic_usec() + state.budget_usec;
        if (now_monotonic_usec() >= state.deadline)
                return out_of_time();
        /* The hex form (length 0): the client checks it and names its cache entry by it. */
        int fd = state.api.find_debuginfo(state.client, (const unsigned char *) build_id, 0, NULL);
        if (fd >= 0)
                return fd;
        if (now_monotonic_usec() >= state.deadline)
                return out_of_time();
        if (fd != -ENOENT && !state.said_error) {
                /* Not found is an answer; anything else is the servers' or the network's trouble. */
                state.said_error = true;
                log_notice("Cannot ask DEBUGINFOD_URLS for debug files: %s", strerror(-fd));
        } else
                log_debug("No debug file for build-id %s from DEBUGINFOD_URLS: %s", build_id, strerror(-fd));
        return -1;
}

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, const char *file_name,
                        const char *debuglink_file, GElf_Word debuglink_crc, char **debuginfo_file_name) {
        (void) mod, (void) userdata, (void) modname, (void) base, (void) file_name, (void) debuglink_file;
        (void) debuglink_crc, (void) debuginfo_file_name;
        return -1; /* the debug file is the module: nothing else is looked for */
}

static int no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
                  Elf **elfp) {
        (void) mod, (void) userdata, (void) modname, (void) base, (void) file_name, (void) elfp;
        return -1; /* the module is reported with its fd: never called */
}

static const Dwfl_Callbacks offline_callbacks = {
        .find_elf = no_elf,
        .find_debuginfo = no_debuginfo,
};

/* A Dwfl of the debug file at fd (consumed), if it is the build asked for. */
static Dwfl *dwfl_of(int fd, const char *build_id, Dwfl_Module **ret_mod) {
        Dwfl *dwfl = dwfl_begin(&offline_callbacks);
        if (!dwfl) {
                close(fd);
                return NULL;
        }
        dwfl_report_begin(dwfl);
        Dwfl_Module *mod = dwfl_report_elf(dwfl, build_id, build_id, fd, 0, false);
        if (!mod || dwfl_report_end(dwfl, NULL, NULL) != 0) {
                if (!mod)
                        close(fd);
                dwfl_end(dwfl);
                return NULL;
        }
        /* The file's own build-id must be the one asked for: a server's or a link's mistake is no
         * name for this frame. */
        const unsigned char *bits;
        GElf_Addr vaddr;
        int n = dwfl_module_build_id(mod, &bits, &vaddr);
        char hex[41] = "";
        for (int i = 0; i < n && i < 20; i++)
                snprintf(hex + 2 * i, 3, "%02x", bits[i]);
        if (n <= 0 || n > 20 || strcmp(hex, build_id) != 0) {
                log_debug("The debug file found for build-id %s is of build-id %s: not used.", build_id, hex[0] ? hex : "none");
                dwfl_end(dwfl);
                return NULL;
        }
        *ret_mod = mod;
        return dwfl;
}

static struct module *module_get(const char *build_id) {
        for (size_t i = 0; i < state.n_modules; i++)
                if (strcmp(state.modules[i].build_id, build_id) == 0)
                        return &state.modules[i];
        if (state.n_modules >= MAX_MODULES)
                return NULL;
        struct module *m = &state.modules[state.n_modules++];
        *m = (struct module) {};
        snprintf(m->build_id, sizeof m->build_id, "%s", build_id);

        char path[sizeof DEBUG_DIRECTORY + 64];
        snprintf(path, sizeof path, DEBUG_DIRECTORY "/%.2s/%s.debug", build_id, build_id + 2);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))
                fd = safe_close(fd);
        if (fd >= 0 && (m->dwfl = dwfl_of(fd, build_id, &m->mod)))
                m->origin = ORIGIN_LOCAL;
        else if ((fd = debuginfod_find(build_id)) >= 0 && (m->dwfl = dwfl_of(fd, build_id, &m->mod)))
                m->origin = ORIGIN_DEBUGINFOD;
        return m;
}

/* Printable ASCII of at most SYMBOL_MAX bytes: a debug file is data too. */
static char *clean_name(const char *name) {
        size_t n = strnlen(name, SYMBOL_MAX);
        char *s = strndup(name, n);
        for (size_t i = 0; s && i < n; i++)
                if ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] >= 0x7f)
                        s[i] = '?';
        return s;
}

/* The function at module_offset (from the module's start, as the daemon's unwinder reckons it:
 * libdwfl's start of the module, the first load segment's page) in m's file: the symbol around it
 * (a debug file split off keeps the program's .symtab). */
static char *function_at(const struct module *m, uint64_t module_offset, uint64_t *ret_offset) {
        Dwarf_Addr start, end;
        if (!dwfl_module_info(m->mod, NULL, &start, &end, NULL, NULL, NULL, NULL))
                return NULL;
        if (module_offset >= end - start)
                return NULL;
        Dwarf_Addr addr = start + module_offset;

        GElf_Off offset;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(m->mod, addr, &offset, &sym, NULL, NULL, NULL);
        if (!name || !*name)
                return NULL;
        *ret_offset = offset;
        return clean_name(name);
}

static void symbols_init(void) {
        if (state.initialized)
                return;
        state.initialized = true;
        state.budget_usec = budget_from_environment();
}

void symbols_done(void) {
        for (size_t i = 0; i < state.n_modules; i++)
                if (state.modules[i].dwfl)
                        dwfl_end(state.modules[i].dwfl);
        if (state.client)
                state.api.end(state.client);
        /* The library stays loaded: what its own libraries (libcurl, TLS) set up when loaded is
         * theirs, and unloading would only lose it. */
        void *library = state.library;
        state = (typeof(state)) { .library = library };
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

char *symbols_backtrace(const struct entry *d, const char *bt) {
        static const char name[] = "COREDUMPD_FRAME=";
        struct frame frames[MAX_FRAMES] = {};
        bool any = false;

        if (!bt)
                return NULL;
        for (size_t i = 0; i < d->fields.n; i++) {
                const char *e = d->fields.v[i].iov_base;
                size_t len = d->fields.v[i].iov_len;
                if (len <= sizeof name - 1 || strncmp(e, name, sizeof name - 1) != 0)
                        continue;
                frame_parse(e + sizeof name - 1, len - (sizeof name - 1), frames);
        }
        for (size_t k = 0; k < MAX_FRAMES; k++)
                any = any || (frames[k].known && !frames[k].named && frames[k].build_id[0]);
        if (!any)
                return NULL;
        symbols_init();

        char *text = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&text, &size);
        if (!out)
                return NULL;
        bool changed = false;
        for (const char *line = bt; *line;) {
                size_t n = strcspn(line, "\n");
                const char *next = line + n + (line[n] == '\n');
                /* "#N  0x<16 hex> n/a (MODULE + 0xOFFSET)": unwind_thread_format()'s line of an
                 * unnamed frame in a module with a build-id. */
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
                bool match = q && parse_hex(&q, &offset) && q == line + n - 1 && *q == ')' && frames[k].known &&
                             !frames[k].named && frames[k].build_id[0] && frames[k].module_offset == offset;
                struct module *m = match ? module_get(frames[k].build_id) : NULL;
                uint64_t symbol_offset = 0;
                _cleanup_free_ char *function = m && m->dwfl ? function_at(m, offset, &symbol_offset) : NULL;
                if (function) {
                        fwrite(line, 1, (size_t) (na - line), out);
                        fprintf(out, "%s + 0x%" PRIx64 " [%s]", function, symbol_offset,
                                m->origin == ORIGIN_LOCAL ? "debug file" : "debuginfod");
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
