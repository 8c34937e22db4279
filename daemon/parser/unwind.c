/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "parser/map-files.h"
#include "parser/unwind.h"
#include "selfdump/proc-maps.h"
#include "shared/cleanup.h"
#include "shared/timestamp.h"

/* x86-64: DWARF registers 0..16 (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8..r15, rip) from the
 * kernel's user_regs_struct order, in which the probe and /proc hand them over. */
static const unsigned dwarf_from_user[17] = { 10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16 };

struct unwinder;

struct thread_ctx {
        struct unwinder *u;
        const struct parser_thread *t;
};

/* An ELF image read into memory (the vDSO): libdwfl's Elf refers to it until dwfl_end(). */
struct image {
        void *data;
        struct image *next;
};

struct unwinder {
        const struct unwind_request *req;
        Dwfl *dwfl;
        int mem_fd;
        const struct map_files *files;  /* the mapped files handed over: no other is opened */
        const struct proc_maps *maps;   /* remote ones marked: never read, never opened */
        struct image *images;
        uint64_t deadline_usec;         /* CLOCK_MONOTONIC */
        struct thread_ctx *ctx;         /* the threads to unwind, the crashing one first */
        size_t n_ctx, next;
        struct unwind_thread *current;
        Dwarf_Addr last_lookup;         /* the current thread's last frame, as its CFI is looked up */
        unsigned max_frames;
        bool over_budget;
};

static bool budget_left(struct unwinder *u) {
        if (!u->over_budget && now_monotonic_usec() >= u->deadline_usec)
                u->over_budget = true;
        return !u->over_budget;
}

/* ---- the thread callbacks: the held task through /proc ---------------------------------------- */

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp) {
        struct unwinder *u = arg;

        if (u->next >= u->n_ctx || !budget_left(u))
                return 0;
        struct thread_ctx *c = &u->ctx[u->next++];
        *thread_argp = c;
        return c->t->tid;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg) {
        struct unwinder *u = arg;
        uint64_t word;

        if (!budget_left(u))
                return false;
        /* A page of a file a server serves could wait for it forever: not for an unwinder. */
        const struct proc_mapping *m = proc_maps_find(u->maps, addr);
        if (m && m->remote)
                return false;
        if (pread(u->mem_fd, &word, sizeof word, (off_t) addr) != (ssize_t) sizeof word)
                return false;
        *result = word;
        return true;
}

/* user_regs_struct's rsp and rip. */
#define USER_REG_SP 19
#define USER_REG_PC 16

uint64_t unwind_thread_pc(const struct parser_thread *t) {
        return t->regs[USER_REG_PC];
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *thread_arg) {
        const struct thread_ctx *c = thread_arg;
        Dwarf_Word dwarf[17];

        if (c->t->regs[USER_REG_SP] == 0 || c->t->regs[USER_REG_PC] == 0)
                return false;
        /* Only sp and pc (from /proc): the other registers are unknown, not 0. A frame whose call
         * frame information needs one of them (rbp, in code built with frame pointers) ends the
         * trace with an error, marked cut, where a 0 would have made up a caller. */
        if (!c->t->crashed) {
                Dwarf_Word sp = c->t->regs[USER_REG_SP];
                if (!dwfl_thread_state_registers(thread, 7, 1, &sp))
                        return false;
                dwfl_thread_state_register_pc(thread, c->t->regs[USER_REG_PC]);
                return true;
        }
        for (size_t i = 0; i < 17; i++)
                dwarf[i] = c->t->regs[dwarf_from_user[i]];
        return dwfl_thread_state_registers(thread, 0, 17, dwarf);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
        .next_thread = cb_next_thread,
        .memory_read = cb_memory_read,
        .set_initial_registers = cb_set_initial_registers,
};

/* The unwinder at work on this thread, for find_elf(), whose callback has no argument of ours. */
static __thread struct unwinder *active_unwinder;

/* The mapping of the file name, the one at base if it is one. */
static const struct proc_mapping *mapping_named(const struct proc_maps *maps, const char *name, Dwarf_Addr base) {
        const struct proc_mapping *m = proc_maps_find(maps, base);
        if (m && m->path && strcmp(m->path, name) == 0)
                return m;
        for (size_t i = 0; i < maps->n; i++)
                if (maps->mappings[i].path && strcmp(maps->mappings[i].path, name) == 0)
                        return &maps->mappings[i];
        return NULL;
}

/* The vDSO, from the task's memory: at most a few pages, into an image of ours. */
#define VDSO_MAX (64 * 1024)

static Elf *vdso_elf(struct unwinder *u, const struct proc_mapping *m) {
        size_t size = m->end - m->start;
        if (m->end <= m->start || size > VDSO_MAX)
                return NULL;
        struct image *img = calloc(1, sizeof *img);
        if (!img)
                return NULL;
        img->data = malloc(size);
        if (!img->data || pread(u->mem_fd, img->data, size, (off_t) m->start) != (ssize_t) size) {
                free(img->data);
                free(img);
                return NULL;
        }
        img->next = u->images;
        u->images = img;
        return elf_memory(img->data, size);
}

/* A module's ELF file: only one of those handed over (map_files_fd(): reached through
 * /proc/<pid>/map_files, a file the one rule calls local), never opened by the name its maps give —
 * no path is walked in the task's mounts, and a file not handed over leaves its frames unnamed.
 * Read, not mapped (ELF_C_READ): a truncated file is a read error, not a SIGBUS. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file_name,
                    Elf **elfp) {
        struct unwinder *u = active_unwinder;
        const struct proc_mapping *m = u ? proc_maps_find(u->maps, base) : NULL;

        *elfp = NULL;
        if (!u || !name)
                return -1;
        if (strcmp(name, "[vdso]") == 0) {
                if (m && m->path && strcmp(m->path, "[vdso]") == 0)
                        *elfp = vdso_elf(u, m);
                return -1;
        }
        if (name[0] != '/')
                return -1;
        m = mapping_named(u->maps, name, base);
        int handed = map_files_fd(u->files, m);
        if (handed < 0)
                return -1;
        /* libdwfl closes what it is given: a copy, each read from its own offset (pread). */
        int fd = fcntl(handed, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -1;
        *elfp = elf_begin(fd, ELF_C_READ, NULL);
        if (!*elfp) {
                close(fd);
                return -1;
        }
        /* The in-root name: separate debug info is looked up by build-id only. */
        *file_name = strdup(name);
        return fd;
}

/* Separate debug files by build-id only (under /usr/lib/debug/.build-id, where Debian's -dbgsym
 * packages put them). dwfl_standard_find_debuginfo() would go on to a debuginfod server when that
 * finds nothing: the daemon has no network (PrivateNetwork=), the task is held meanwhile, and only
 * loading libdebuginfod with libcurl and its TLS libraries cost 8 MiB of resident memory,
 * measured (bench/README.md). A debugger reads the stored core later, with debuginfod if the
 * operator wants it. */
static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_callbacks = {
        .find_elf = find_elf,
        .find_debuginfo = dwfl_build_id_find_debuginfo,
        .debuginfo_path = &debuginfo_path,
};

/* ---- frames ---------------------------------------------------------------------------------- */

static void build_id_hex(Dwfl_Module *mod, char out[static 41]) {
        const unsigned char *bits;
        GElf_Addr vaddr, bias;
        /* The module's ELF is found lazily; its build-id is known once it is. */
        if (mod)
                (void) dwfl_module_getelf(mod, &bias);
        int n = mod ? dwfl_module_build_id(mod, &bits, &vaddr) : -1;

        out[0] = 0;
        for (int i = 0; i < n && i < 20; i++)
                snprintf(out + 2 * i, 3, "%02x", bits[i]);
}

static int on_frame(Dwfl_Frame *state, void *arg) {
        struct unwinder *u = arg;
        struct unwind_thread *t = u->current;
        Dwarf_Addr pc;
        bool activation;

        if (!budget_left(u) || t->n_frames >= u->max_frames)
                return DWARF_CB_ABORT;
        if (!dwfl_frame_pc(state, &pc, &activation))
                return DWARF_CB_ABORT;

        /* A return address points after the call: look the caller up at the call itself. */
        Dwarf_Addr lookup = activation ? pc : pc - 1;
        u->last_lookup = lookup;
        struct unwind_frame *f = &t->frames[t->n_frames++];
        *f = (struct unwind_frame) { .pc = pc };

        Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, lookup);
        if (mod) {
                Dwarf_Addr start;
                const char *name = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
                build_id_hex(mod, f->build_id);
                f->module_offset = lookup - start;
                f->module = name ? strdup(name) : NULL;

                GElf_Off offset;
                GElf_Sym sym;
                const char *symbol = dwfl_module_addrinfo(mod, lookup, &offset, &sym, NULL, NULL, NULL);
                if (symbol) {
                        f->symbol = strdup(symbol);
                        f->symbol_offset = offset;
                }
        }
        return DWARF_CB_OK;
}

/* Whether the call frame information at lookup says the caller's return address is undefined: the
 * outermost frame (glibc's _start and clone3 say so). libdwfl ends a trace without an error there,
 * but also where the return address could not be computed (a register it depends on unknown, as
 * rbp is when only sp and pc are): only this tells a complete trace from one cut short. */
static bool frame_is_outermost(struct unwinder *u, Dwarf_Addr lookup) {
        Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, lookup);
        if (!mod)
                return false;
        /* In libdwfl's order: .eh_frame, then .debug_frame. */
        for (int which = 0; which < 2; which++) {
                Dwarf_Addr bias;
                Dwarf_CFI *cfi = which == 0 ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
                Dwarf_Frame *frame;
                if (!cfi || dwarf_cfi_addrframe(cfi, lookup - bias, &frame) != 0)
                        continue;
                Dwarf_Op ops_mem[3], *ops = NULL;
                size_t nops = 0;
                int ra = dwarf_frame_info(frame, NULL, NULL, NULL);
                bool undefined = ra >= 0 && dwarf_frame_register(frame, ra, ops_mem, &ops, &nops) == 0 && nops == 0 &&
                                 ops == ops_mem;
                free(frame);
                return undefined;
        }
        return false;
}

static int on_thread(Dwfl_Thread *thread, void *arg) {
        struct unwinder *u = arg;
        struct unwind_thread *t = u->current;

        t->tid = dwfl_thread_tid(thread);
        t->frames = calloc(u->max_frames, sizeof t->frames[0]);
        if (!t->frames)
                return DWARF_CB_ABORT;
        u->last_lookup = 0;
        int r = dwfl_thread_getframes(thread, on_frame, u);
        /* Complete only where the last frame's call frame information says there is no caller:
         * anything else stopped early, and says why. */
        if (r == 0 && t->n_frames > 0 && frame_is_outermost(u, u->last_lookup))
                t->cut = UNWIND_CUT_NONE;
        else if (r != 0 && u->over_budget)
                t->cut = UNWIND_CUT_BUDGET;
        else if (r != 0 && t->n_frames >= u->max_frames)
                t->cut = UNWIND_CUT_FRAMES;
        else
                t->cut = UNWIND_CUT_ERROR;
        u->current++;
        return budget_left(u) ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* ---- the whole task -------------------------------------------------------------------------- */

struct exe_lookup {
        char path[4096];
        char *build_id;
};

static int exe_build_id_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg) {
        struct exe_lookup *e = arg;
        if (!name || strcmp(name, e->path) != 0)
                return DWARF_CB_OK;
        build_id_hex(mod, e->build_id);
        return DWARF_CB_ABORT;
}

int unwind_task(const struct unwind_request *req, struct unwind_result *ret) {
        struct unwinder u = {
                .req = req,
                .mem_fd = req->mem_fd,
                .files = req->files,
                .maps = req->maps,
                .deadline_usec = now_monotonic_usec() + req->budget_usec,
                .max_frames = MIN(req->max_frames ? req->max_frames : UNWIND_MAX_FRAMES, UNWIND_MAX_FRAMES),
        };
        struct unwind_result res = {};
        uint64_t t0 = now_monotonic_usec();
        FILE *maps = NULL;
        int r;

        size_t n = MIN(req->n_threads, (size_t) UNWIND_MAX_THREADS);
        u.ctx = calloc(MAX(n, 1), sizeof u.ctx[0]);
        res.threads = calloc(MAX(n, 1), sizeof res.threads[0]);
        if (!u.ctx || !res.threads) {
                r = -ENOMEM;
                goto finish;
        }
        for (size_t i = 0; i < n; i++)
                u.ctx[u.n_ctx++] = (struct thread_ctx) { .u = &u, .t = &req->threads[i] };

        active_unwinder = &u;
        u.dwfl = dwfl_begin(&dwfl_callbacks);
        if (!u.dwfl) {
                r = -ENOMEM;
                goto finish;
        }
        /* The module list from the maps text the daemon's fd gave, not from /proc by pid. */
        maps = fmemopen((void *) req->maps_text, strlen(req->maps_text), "r");
        dwfl_report_begin(u.dwfl);
        if (!maps || dwfl_linux_proc_maps_report(u.dwfl, maps) != 0 || dwfl_report_end(u.dwfl, NULL, NULL) != 0) {
                r = 0; /* no modules: nothing to unwind with, an empty result */
                goto finish;
        }
        struct exe_lookup exe = { .build_id = res.exe_build_id };
        snprintf(exe.path, sizeof exe.path, "%s", req->exe ? req->exe : "");
        if (exe.path[0])
                (void) dwfl_getmodules(u.dwfl, exe_build_id_cb, &exe, 0);
        if (!dwfl_attach_state(u.dwfl, NULL, req->pid, &thread_callbacks, &u)) {
                r = 0;
                goto finish;
        }
        u.current = res.threads;
        (void) dwfl_getthreads(u.dwfl, on_thread, &u);
        res.n_threads = (size_t) (u.current - res.threads);
        r = 0;

finish:
        if (u.dwfl)
                dwfl_end(u.dwfl);
        if (maps)
                fclose(maps);
        while (u.images) {
                struct image *next = u.images->next;
                free(u.images->data);
                free(u.images);
                u.images = next;
        }
        active_unwinder = NULL;
        free(u.ctx);
        res.usec = now_monotonic_usec() - t0;
        if (r < 0) {
                unwind_result_done(&res);
                return r;
        }
        *ret = res;
        return 0;
}
