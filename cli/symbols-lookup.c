/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cell's side of the frames' names (dumpctl.h): `dumpctl --symbols-cell`, exec'd by
 * symbols-cell.c already in its ids, limits and cache directory. For each build-id asked, the
 * debug file under /usr/lib/debug/.build-id, else from the debuginfod servers of $DEBUGINFOD_URLS
 * through elfutils' client (libdebuginfod.so.1, which links libcurl, loaded only when
 * $DEBUGINFOD_URLS names a server, as libdwfl itself does), all queries within $DEBUGINFOD_TIMEOUT;
 * libdwfl names the function at the offset. A file is used only if its own build-id is the one
 * asked for. Its answer goes back on stdout; it prints nothing else (its stderr is /dev/null).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "dumpctl.h"
#include "shared/cell.h"
#include "shared/cleanup.h"
#include "shared/timestamp.h"

/* The distinct modules looked up in one run. */
#define MAX_MODULES 64

struct module {
        char build_id[41];
        Dwfl *dwfl;             /* NULL: no debug file found */
        Dwfl_Module *mod;
        enum symbol_origin origin;
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
        FILE *out;
} state;

static void notice(enum symbols_notice what, int error) {
        if (symbols_notice_has_errno(what))
                fprintf(state.out, "! %s %d\n", symbols_notice_words[what], error > 0 && error < 4096 ? error : EIO);
        else
                fprintf(state.out, "! %s\n", symbols_notice_words[what]);
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
                notice(SYMBOLS_NOTICE_LIBRARY, 0);
                return false;
        }
        struct client_api *a = &state.api;
        *(void **) &a->begin = dlsym(state.library, "debuginfod_begin");
        *(void **) &a->end = dlsym(state.library, "debuginfod_end");
        *(void **) &a->find_debuginfo = dlsym(state.library, "debuginfod_find_debuginfo");
        *(void **) &a->set_progressfn = dlsym(state.library, "debuginfod_set_progressfn");
        if (!a->begin || !a->end || !a->find_debuginfo || !a->set_progressfn) {
                notice(SYMBOLS_NOTICE_FUNCTIONS, 0);
                return false;
        }
        state.client = a->begin();
        if (!state.client) {
                notice(SYMBOLS_NOTICE_CLIENT, errno);
                return false;
        }
        a->set_progressfn(state.client, progress);
        state.client_failed = false;
        return true;
}

/* The run's time for debuginfod is spent: said once, no more queries. Returns -1. */
static int out_of_time(void) {
        if (!state.out_of_time)
                notice(SYMBOLS_NOTICE_TIME, 0);
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
                notice(SYMBOLS_NOTICE_ERROR, -fd);
        }
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
        snprintf(m->build_id, sizeof m->build_id, "%.40s", build_id);

        char path[sizeof DEBUG_DIRECTORY + 64];
        snprintf(path, sizeof path, DEBUG_DIRECTORY "/%.2s/%s.debug", build_id, build_id + 2);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))
                fd = safe_close(fd);
        if (fd >= 0 && (m->dwfl = dwfl_of(fd, build_id, &m->mod)))
                m->origin = SYMBOL_LOCAL;
        else if ((fd = debuginfod_find(build_id)) >= 0 && (m->dwfl = dwfl_of(fd, build_id, &m->mod)))
                m->origin = SYMBOL_DEBUGINFOD;
        return m;
}

/* The function at module_offset (from the module's start, as the daemon's unwinder reckons it:
 * libdwfl's start of the module, the first load segment's page) in m's file: the symbol around it
 * (a debug file split off keeps the program's .symtab). Printable ASCII, cut at SYMBOL_MAX. */
static bool function_at(const struct module *m, uint64_t module_offset, struct symbol_answer *ret) {
        Dwarf_Addr start, end;
        if (!dwfl_module_info(m->mod, NULL, &start, &end, NULL, NULL, NULL, NULL))
                return false;
        if (module_offset >= end - start)
                return false;
        GElf_Off offset;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(m->mod, start + module_offset, &offset, &sym, NULL, NULL, NULL);
        if (!name || !*name)
                return false;
        size_t n = strnlen(name, SYMBOL_MAX);
        for (size_t i = 0; i < n; i++)
                ret->name[i] = (unsigned char) name[i] < 0x20 || (unsigned char) name[i] >= 0x7f ? '?' : name[i];
        ret->name[n] = 0;
        ret->offset = offset;
        ret->origin = m->origin;
        return true;
}

/* "BUILDID 0xOFFSET" as symbols-cell.c writes it; false for anything else. */
static bool query_parse(const char *line, struct symbol_query *ret) {
        const char *space = strchr(line, ' ');
        if (!space || (size_t) (space - line) >= sizeof ret->build_id)
                return false;
        memcpy(ret->build_id, line, (size_t) (space - line));
        ret->build_id[space - line] = 0;
        const char *hex = space + 1;
        size_t n = strncmp(hex, "0x", 2) == 0 ? strspn(hex + 2, "0123456789abcdef") : 0;
        if (!build_id_valid(ret->build_id) || n == 0 || n > 16 || hex[2 + n] != 0)
                return false;
        ret->module_offset = strtoull(hex + 2, NULL, 16);
        return true;
}

int symbols_cell_main(void) {
        /* An exec made this process dumpable again: before anything else, not (no process of its
         * uid may ptrace it or read its memory). */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                return 1;
        /* Only ever unprivileged: what follows parses another machine's data. */
        if (getuid() == 0 || geteuid() == 0 || cell_holds_capabilities())
                return 1;
        state.budget_usec = symbols_budget_usec();
        state.out = stdout;

        char line[128];
        struct symbol_query queries[SYMBOLS_MAX_QUERIES];
        size_t n = 0;
        while (fgets(line, sizeof line, stdin)) {
                size_t len = strlen(line);
                if (len == 0 || line[len - 1] != '\n')
                        return 1;
                line[--len] = 0;
                if (len > 0) {
                        if (n >= SYMBOLS_MAX_QUERIES || !query_parse(line, &queries[n]))
                                return 1;
                        n++;
                        continue;
                }
                /* The request is whole: the notices come first, as they arise, then the names. */
                static struct symbol_answer answers[SYMBOLS_MAX_QUERIES];
                for (size_t i = 0; i < n; i++) {
                        struct module *m = module_get(queries[i].build_id);
                        answers[i] = (struct symbol_answer) {};
                        if (m && m->dwfl)
                                (void) function_at(m, queries[i].module_offset, &answers[i]);
                }
                for (size_t i = 0; i < n; i++)
                        if (answers[i].origin == SYMBOL_NONE)
                                fputs("-\n", state.out);
                        else
                                fprintf(state.out, "= %c 0x%" PRIx64 " %s\n", answers[i].origin == SYMBOL_LOCAL ? 'L' : 'D',
                                        answers[i].offset, answers[i].name);
                fputs(".\n", state.out);
                if (fflush(state.out) != 0)
                        return 1;
                n = 0;
        }
        for (size_t i = 0; i < state.n_modules; i++)
                if (state.modules[i].dwfl)
                        dwfl_end(state.modules[i].dwfl);
        if (state.client)
                state.api.end(state.client);
        return 0;
}
