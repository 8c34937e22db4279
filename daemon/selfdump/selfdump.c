/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <elf.h>
#include <errno.h>
#include <sys/prctl.h>
#include <grp.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "selfdump/core-elf.h"
#include "selfdump/dump-filter.h"
#include "selfdump/proc-maps.h"
#include "selfdump/proc-threads.h"
#include "selfdump/selfdump.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"

#define COPY_CHUNK (128U * 1024)
#define LINK_MAP_MAX 4096U

/* ---- a set of page ranges --------------------------------------------------------------------- */

struct range {
        uint64_t lo, hi;
};

struct ranges {
        struct range *r;
        size_t n;
        uint64_t page;
};

static int ranges_add(struct ranges *s, uint64_t lo, uint64_t hi) {
        lo = lo / s->page * s->page;
        hi = (hi + s->page - 1) / s->page * s->page;
        if (hi <= lo)
                return 0;
        struct range *grown = realloc(s->r, (s->n + 1) * sizeof *grown);
        if (!grown)
                return -ENOMEM;
        s->r = grown;
        s->r[s->n++] = (struct range) { lo, hi };
        return 0;
}

static int compare_range(const void *a, const void *b) {
        const struct range *x = a, *y = b;
        return (x->lo > y->lo) - (x->lo < y->lo);
}

static void ranges_merge(struct ranges *s) {
        size_t k = 0;

        if (s->n == 0)
                return;
        qsort(s->r, s->n, sizeof *s->r, compare_range);
        for (size_t i = 1; i < s->n; i++) {
                if (s->r[i].lo <= s->r[k].hi)
                        s->r[k].hi = MAX(s->r[k].hi, s->r[i].hi);
                else
                        s->r[++k] = s->r[i];
        }
        s->n = k + 1;
}

/* ---- reading the process ---------------------------------------------------------------------- */

/* The core's layout over a task read in (writer.c): the task's facts are its, not owned here. */
struct process_image {
        const struct selfdump_request *req;
        uint64_t page;
        int mem_fd;
        int pagemap_fd;
        uint32_t filter;                /* coredump_filter */
        const struct proc_maps *maps;
        const struct proc_threads *threads;
        /* Per thread of threads: the probe's full registers, taken on the daemon's side. */
        uint64_t (*thread_regs)[CORE_NREGS];
        bool *thread_full;
        const struct proc_stat *stat;
        const char *auxv;
        size_t auxv_size;
        const char *cmdline;
        size_t cmdline_size;
        const char *comm;
        struct ranges ranges;
        struct core_segment *segments;
        size_t n_segments;
};

static void image_done(struct process_image *d) {
        free(d->ranges.r);
        free(d->segments);
}

/* pread() of the process's memory that never waits for a file system's server: in a mapping of a
 * file on a remote file system (fstype_is_remote()) only pages in memory are read, and the first
 * page that is not ends the read (-1 with EIO when it is the first). Other mappings read as they
 * are: their pages come from local file systems or anonymous memory. */
static ssize_t mem_pread(const struct process_image *d, void *buf, size_t size, uint64_t addr) {
        const struct proc_mapping *m = proc_maps_find(d->maps, addr);

        if (m && m->remote) {
                bool in[64];
                uint64_t first = addr / d->page * d->page;
                size = (size_t) MIN((uint64_t) size, m->end - addr);
                size_t np = (size_t) MIN((addr + size - first + d->page - 1) / d->page, (uint64_t) 64);
                size_t ok = 0;

                if (d->pagemap_fd >= 0 && proc_pagemap_in_memory(d->pagemap_fd, first, d->page, np, in) >= 0)
                        while (ok < np && in[ok])
                                ok++;
                if (ok == 0) {
                        errno = EIO;
                        return -1;
                }
                size = (size_t) MIN((uint64_t) size, first + ok * d->page - addr);
        }
        return pread(d->mem_fd, buf, size, (off_t) addr);
}

/* Reads process memory; false unless all of it could be read. */
static bool mem_read(const struct process_image *d, uint64_t addr, void *buf, size_t size) {
        ssize_t n = mem_pread(d, buf, size, addr);
        return n >= 0 && (size_t) n == size;
}

/* Adds [addr, addr + size) where it lies in readable mappings. */
static int add_mapped(struct process_image *d, uint64_t addr, uint64_t size) {
        const struct proc_mapping *m = proc_maps_find(d->maps, addr);
        if (!m || !m->read || size == 0)
                return 0;
        return ranges_add(&d->ranges, addr, MIN(addr + size, m->end));
}

static bool mapping_dumpable(const struct proc_mapping *m) {
        /* [vvar] is kernel data that reads fail on; [vsyscall] is fixed and not ours. */
        return m->read && !(m->path && (strcmp(m->path, "[vvar]") == 0 || strcmp(m->path, "[vsyscall]") == 0));
}

static int add_stack_windows(struct process_image *d) {
        for (size_t i = 0; i < d->threads->n; i++) {
                uint64_t sp = d->threads->threads[i].sp;
                const struct proc_mapping *m = sp ? proc_maps_find(d->maps, sp) : NULL;
                if (!m || !mapping_dumpable(m))
                        continue;
                /* From a page below sp (the red zone and whatever a signal frame left) upwards. */
                uint64_t lo = sp / d->page * d->page;
                lo = lo - d->page >= m->start && lo >= d->page ? lo - d->page : m->start;
                uint64_t hi = MIN(m->end, lo + STACK_WINDOW_MAX);
                int r = ranges_add(&d->ranges, lo, hi);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int add_elf_headers_and_vdso(struct process_image *d) {
        for (size_t i = 0; i < d->maps->n; i++) {
                const struct proc_mapping *m = &d->maps->mappings[i];
                unsigned char magic[SELFMAG];
                int r = 0;

                if (!mapping_dumpable(m))
                        continue;
                if (m->path && strcmp(m->path, "[vdso]") == 0)
                        r = ranges_add(&d->ranges, m->start, m->end);
                else if (proc_mapping_is_file(m) && m->offset == 0 && mem_read(d, m->start, magic, sizeof magic) &&
                         memcmp(magic, ELFMAG, SELFMAG) == 0)
                        r = ranges_add(&d->ranges, m->start, m->start + d->page);
                if (r < 0)
                        return r;
        }
        return 0;
}

static bool auxv_get(const struct process_image *d, uint64_t type, uint64_t *ret) {
        const Elf64_auxv_t *a = (const Elf64_auxv_t *) d->auxv;
        for (size_t i = 0; (i + 1) * sizeof *a <= d->auxv_size && a[i].a_type != AT_NULL; i++)
                if (a[i].a_type == type) {
                        *ret = a[i].a_un.a_val;
                        return true;
                }
        return false;
}

/* What gdb reads to find the shared libraries: the executable's dynamic section (for DT_DEBUG),
 * the loader's r_debug, and each link_map with its name. */
static int add_loader_state(struct process_image *d) {
        uint64_t phdr_addr, phnum, r_debug_addr = 0;
        int r;

        if (!auxv_get(d, AT_PHDR, &phdr_addr) || !auxv_get(d, AT_PHNUM, &phnum) || phnum == 0 || phnum > 256)
                return 0;
        _cleanup_free_ Elf64_Phdr *phdrs = calloc(phnum, sizeof *phdrs);
        if (!phdrs)
                return -ENOMEM;
        if (!mem_read(d, phdr_addr, phdrs, phnum * sizeof *phdrs))
                return 0;

        uint64_t bias = 0, dyn_addr = 0, dyn_size = 0;
        for (size_t i = 0; i < phnum; i++)
                if (phdrs[i].p_type == PT_PHDR)
                        bias = phdr_addr - phdrs[i].p_vaddr;
        for (size_t i = 0; i < phnum; i++)
                if (phdrs[i].p_type == PT_DYNAMIC) {
                        dyn_addr = bias + phdrs[i].p_vaddr;
                        dyn_size = phdrs[i].p_memsz;
                }
        if (dyn_addr == 0 || dyn_size == 0 || dyn_size > 64 * 1024)
                return 0; /* static executable */
        if ((r = add_mapped(d, phdr_addr, phnum * sizeof *phdrs)) < 0 || (r = add_mapped(d, dyn_addr, dyn_size)) < 0)
                return r;

        for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= dyn_size; off += sizeof(Elf64_Dyn)) {
                Elf64_Dyn dyn;
                if (!mem_read(d, dyn_addr + off, &dyn, sizeof dyn) || dyn.d_tag == DT_NULL)
                        break;
                if (dyn.d_tag == DT_DEBUG)
                        r_debug_addr = dyn.d_un.d_ptr;
        }
        struct r_debug dbg;
        if (r_debug_addr == 0 || !mem_read(d, r_debug_addr, &dbg, sizeof dbg))
                return 0;
        if ((r = add_mapped(d, r_debug_addr, sizeof dbg)) < 0)
                return r;

        uint64_t lm = (uint64_t) (uintptr_t) dbg.r_map;
        for (unsigned i = 0; lm != 0 && i < LINK_MAP_MAX; i++) {
                struct link_map map;
                if (!mem_read(d, lm, &map, sizeof map))
                        break;
                if ((r = add_mapped(d, lm, sizeof map)) < 0 ||
                    (r = add_mapped(d, (uint64_t) (uintptr_t) map.l_name, PATH_MAX)) < 0 ||
                    (r = add_mapped(d, (uint64_t) (uintptr_t) map.l_ld, sizeof(Elf64_Dyn))) < 0)
                        return r;
                lm = (uint64_t) (uintptr_t) map.l_next;
        }
        return 0;
}

static bool is_heap_candidate(const struct proc_mapping *m) {
        return m && m->write && !m->shared && mapping_dumpable(m) &&
               !(m->path && strncmp(m->path, "[stack", 6) == 0);
}

/* Pages of writable private mappings that the stack windows point into. */
static int add_heap_refs(struct process_image *d) {
        struct ranges stacks = { .page = d->page };
        unsigned added = 0;
        int r = 0;

        /* The stack windows are the ranges so far that lie in a thread's stack mapping. */
        for (size_t i = 0; i < d->threads->n && r >= 0; i++) {
                uint64_t sp = d->threads->threads[i].sp;
                const struct proc_mapping *m = sp ? proc_maps_find(d->maps, sp) : NULL;
                if (m && mapping_dumpable(m))
                        r = ranges_add(&stacks, MAX(m->start, sp / d->page * d->page),
                                       MIN(m->end, sp / d->page * d->page + STACK_WINDOW_MAX));
        }
        ranges_merge(&stacks);

        _cleanup_free_ uint64_t *buf = malloc(COPY_CHUNK);
        if (!buf)
                r = -ENOMEM;
        for (size_t i = 0; i < stacks.n && r >= 0 && added < HEAP_REFS_MAX_PAGES; i++)
                for (uint64_t a = stacks.r[i].lo; a < stacks.r[i].hi && r >= 0 && added < HEAP_REFS_MAX_PAGES;) {
                        size_t n = (size_t) MIN((uint64_t) COPY_CHUNK, stacks.r[i].hi - a);
                        ssize_t got = mem_pread(d, buf, n, a);
                        if (got <= 0) {
                                a += d->page;
                                continue;
                        }
                        for (size_t w = 0; w < (size_t) got / sizeof *buf && added < HEAP_REFS_MAX_PAGES && r >= 0; w++) {
                                if (buf[w] < d->page || !is_heap_candidate(proc_maps_find(d->maps, buf[w])))
                                        continue;
                                r = ranges_add(&d->ranges, buf[w], buf[w] + 1);
                                added++;
                        }
                        a += (uint64_t) got;
                }
        free(stacks.r);
        return r;
}

static int add_all_writable(struct process_image *d) {
        for (size_t i = 0; i < d->maps->n; i++) {
                const struct proc_mapping *m = &d->maps->mappings[i];
                if (m->write && !m->shared && mapping_dumpable(m)) {
                        int r = ranges_add(&d->ranges, m->start, m->end);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static uint32_t segment_flags(const struct proc_mapping *m) {
        return (m->read ? PF_R : 0) | (m->write ? PF_W : 0) | (m->exec ? PF_X : 0);
}

/* How far from its start a mapping may be dumped: what the kernel would dump of it
 * (dump-filter.c), and nothing of what cannot be read. */
static uint64_t allowed_end(const struct process_image *d, const struct proc_mapping *m) {
        struct dump_facts f;
        unsigned char magic[SELFMAG];

        if (!mapping_dumpable(m))
                return m->start;
        dump_facts_of(m, &f);
        switch (dump_extent_of(&f, d->filter)) {
        case DUMP_WHOLE:
                return m->end;
        case DUMP_ELF_HEADER:
                if (mem_read(d, m->start, magic, sizeof magic) && memcmp(magic, ELFMAG, SELFMAG) == 0)
                        return MIN(m->end, m->start + d->page);
                return m->start;
        default:
                return m->start;
        }
}

static int add_segment(struct process_image *d, uint64_t vaddr, uint64_t size, uint64_t mem_size, uint32_t flags) {
        struct core_segment *grown = realloc(d->segments, (d->n_segments + 1) * sizeof *grown);
        if (!grown)
                return -ENOMEM;
        d->segments = grown;
        d->segments[d->n_segments++] = (struct core_segment) { vaddr, size, mem_size, flags };
        return 0;
}

/* A PT_LOAD for every mapping, as the kernel writes one for every VMA: the chosen ranges that the
 * mapping allows have their bytes in the core (a range and the gap after it up to the next one
 * make one segment, p_filesz < p_memsz); a mapping, or its start, with nothing chosen is a segment
 * without bytes (p_filesz 0). Past CORE_MAX_SEGMENTS the segments without bytes are left out. */
static int build_segments(struct process_image *d) {
        size_t j = 0;
        int r;

        ranges_merge(&d->ranges);
        for (size_t k = 0; k < d->maps->n; k++) {
                const struct proc_mapping *m = &d->maps->mappings[k];
                uint64_t limit = allowed_end(d, m), at = m->start;
                bool open = false;      /* the last segment is this mapping's: a gap extends it */

                while (j > 0 && d->ranges.r[j - 1].hi > m->start)
                        j--;
                for (; j < d->ranges.n && d->ranges.r[j].lo < limit; j++) {
                        uint64_t lo = MAX(d->ranges.r[j].lo, m->start), hi = MIN(d->ranges.r[j].hi, limit);
                        if (lo >= hi)
                                continue;
                        if (lo > at) {
                                if (open)
                                        d->segments[d->n_segments - 1].mem_size += lo - at;
                                else if ((r = add_segment(d, at, 0, lo - at, segment_flags(m))) < 0)
                                        return r;
                        }
                        if ((r = add_segment(d, lo, hi - lo, hi - lo, segment_flags(m))) < 0)
                                return r;
                        open = true;
                        at = hi;
                }
                if (at < m->end) {
                        if (open)
                                d->segments[d->n_segments - 1].mem_size += m->end - at;
                        else if ((r = add_segment(d, at, 0, m->end - at, segment_flags(m))) < 0)
                                return r;
                }
        }
        if (d->n_segments > CORE_MAX_SEGMENTS) {
                size_t n = 0;
                for (size_t i = 0; i < d->n_segments; i++)
                        if (d->segments[i].size > 0) {
                                d->segments[n] = d->segments[i];
                                d->segments[n].mem_size = d->segments[n].size;
                                n++;
                        }
                d->n_segments = n;
        }
        return d->n_segments > CORE_MAX_SEGMENTS ? -E2BIG : 0;
}

/* ---- notes ------------------------------------------------------------------------------------ */

static int append_thread(struct process_image *d, struct note_buffer *notes, const struct proc_thread *t, bool crashing,
                         struct selfdump_result *res) {
        const struct selfdump_request *req = d->req;
        uint64_t regs[CORE_NREGS];
        bool full = false;

        if (crashing && req->have_crash_regs) {
                memcpy(regs, req->crash_regs, sizeof regs);
                full = true;
        } else if (d->thread_full) {
                size_t i = (size_t) (t - d->threads->threads);
                full = d->thread_full[i];
                if (full)
                        memcpy(regs, d->thread_regs[i], sizeof regs);
        }
        if (!full)
                core_regs_from_sp_pc(regs, t->sp, t->pc);

        res->n_threads++;
        res->n_threads_full_regs += full;
        return note_append_prstatus(notes, t->tid, &t->stat, req->signal.signo, regs);
}

static int build_notes(struct process_image *d, struct note_buffer *notes, struct selfdump_result *res) {
        const struct selfdump_request *req = d->req;
        const struct proc_thread *first = NULL;
        int r;

        /* The crashing thread first: gdb and libdwfl take the first NT_PRSTATUS as the current thread. */
        for (size_t i = 0; i < d->threads->n; i++)
                if (d->threads->threads[i].tid == (req->crash_tid ?: req->pid))
                        first = &d->threads->threads[i];
        if (!first)
                first = &d->threads->threads[0];
        r = append_thread(d, notes, first, true, res);
        for (size_t i = 0; i < d->threads->n && r >= 0; i++)
                if (&d->threads->threads[i] != first)
                        r = append_thread(d, notes, &d->threads->threads[i], false, res);
        if (r < 0)
                return r;

        if ((r = note_append_prpsinfo(notes, req->pid, d->stat, req->uid, req->gid, d->comm, d->cmdline,
                                      d->cmdline_size)) < 0 ||
            (r = note_append_siginfo(notes, &req->signal)) < 0 ||
            (d->auxv_size > 0 && (r = note_append_auxv(notes, d->auxv, d->auxv_size)) < 0) ||
            (r = note_append_file(notes, d->maps, d->page)) < 0)
                return r;
        return 0;
}

/* ---- writing ---------------------------------------------------------------------------------- */

struct output {
        struct core_writer *w;
        uint64_t max_size;
        bool truncated;
};

/* Writes what fits under the size limit; 1 once the limit is reached. */
static int output_write(struct output *o, const void *data, size_t size) {
        if (o->truncated)
                return 1;
        if (o->max_size > 0 && o->w->size + size > o->max_size) {
                size = (size_t) (o->max_size - o->w->size);
                o->truncated = true;
        }
        int r = size > 0 ? core_writer_write(o->w, data, size) : 0;
        return r < 0 ? r : o->truncated;
}

static int output_zeros(struct output *o, uint64_t n, uint8_t *buf) {
        memset(buf, 0, COPY_CHUNK);
        while (n > 0) {
                size_t k = (size_t) MIN((uint64_t) COPY_CHUNK, n);
                int r = output_write(o, buf, k);
                if (r != 0)
                        return r;
                n -= k;
        }
        return 0;
}

/* A segment's bytes from /proc/<pid>/mem; a page that cannot be read is written as zeros. */
static int output_segment(struct process_image *d, struct output *o, const struct core_segment *s, uint8_t *buf) {
        for (uint64_t a = s->vaddr, end = s->vaddr + s->size; a < end;) {
                size_t n = (size_t) MIN((uint64_t) COPY_CHUNK, end - a);
                ssize_t got = mem_pread(d, buf, n, a);
                if (got <= 0) {
                        /* Reads stop at the first page that fails (a guard page, an unreadable
                         * mapping): that page is written as zeros. */
                        got = (ssize_t) MIN((uint64_t) n, d->page);
                        memset(buf, 0, (size_t) got);
                }
                int r = output_write(o, buf, (size_t) got);
                if (r != 0)
                        return r;
                a += (uint64_t) got;
        }
        return 0;
}

static int output_core(struct process_image *d, const struct note_buffer *notes, struct output *o, char *error,
                       size_t error_size) {
        uint64_t data_off;
        struct stat st;
        int r;

        _cleanup_free_ uint8_t *buf = malloc(COPY_CHUNK);
        _cleanup_close_ int fd = memfd_create("coredumpd-core-headers", MFD_CLOEXEC);
        if (!buf || fd < 0) {
                snprintf(error, error_size, "cannot set up the core's headers: %s", buf ? strerror(errno) : "out of memory");
                return buf ? negative_errno() : -ENOMEM;
        }
        r = core_elf_write_headers(fd, notes->data, notes->size, d->segments, d->n_segments, d->page, &data_off);
        if (r < 0) {
                snprintf(error, error_size, "libelf could not write the core's headers: %s", strerror(-r));
                return r;
        }
        if (fstat(fd, &st) < 0 || (uint64_t) st.st_size > data_off) {
                snprintf(error, error_size, "the core's headers have an unexpected size");
                return -EIO;
        }

        /* Headers and notes from the memfd, zeros up to the page-aligned data, then the memory. */
        for (off_t off = 0; off < st.st_size;) {
                ssize_t n = pread(fd, buf, (size_t) MIN((off_t) COPY_CHUNK, st.st_size - off), off);
                if (n <= 0) {
                        snprintf(error, error_size, "cannot read back the core's headers");
                        return n < 0 ? negative_errno() : -EIO;
                }
                if ((r = output_write(o, buf, (size_t) n)) != 0)
                        goto done;
                off += n;
        }
        if ((r = output_zeros(o, data_off - (uint64_t) st.st_size, buf)) != 0)
                goto done;
        for (size_t i = 0; i < d->n_segments; i++)
                if ((r = output_segment(d, o, &d->segments[i], buf)) != 0)
                        goto done;
done:
        if (r < 0)
                snprintf(error, error_size, "writing the core failed: %s", strerror(-r));
        return r < 0 ? r : 0;
}

static int image_select(struct process_image *d) {
        int r = add_elf_headers_and_vdso(d);
        if (r >= 0)
                r = add_loader_state(d);
        if (r >= 0 && d->req->mode != USERSPACE_MODE_NONE)
                r = add_stack_windows(d);
        if (r >= 0 && d->req->mode == USERSPACE_MODE_STACKS_HEAP_REFS)
                r = add_heap_refs(d);
        if (r >= 0 && d->req->mode == USERSPACE_MODE_ALL_WRITABLE)
                r = add_all_writable(d);
        if (r >= 0)
                r = build_segments(d);
        return r;
}

int selfdump_write_task(const struct selfdump_request *req, const struct selfdump_task *t, struct core_writer *w,
                        struct selfdump_result *ret, char *error, size_t error_size) {
        struct process_image d = {
                .req = req,
                .page = (uint64_t) sysconf(_SC_PAGESIZE),
                .mem_fd = t->mem_fd,
                .pagemap_fd = t->pagemap_fd,
                .filter = t->filter,
                .maps = &t->maps,
                .threads = &t->threads,
                .thread_regs = t->thread_regs,
                .thread_full = t->thread_full,
                .stat = &t->stat,
                .auxv = t->auxv,
                .auxv_size = t->auxv_size,
                .cmdline = t->cmdline,
                .cmdline_size = t->cmdline_size,
                .comm = t->comm,
        };
        _cleanup_(note_buffer_done) struct note_buffer notes = {};
        struct selfdump_result res = {};
        struct output o = { .w = w, .max_size = req->max_size };
        int r;

        d.ranges.page = d.page;
        r = image_select(&d);
        if (r < 0)
                snprintf(error, error_size, "cannot choose the memory to dump: %s", strerror(-r));
        if (r >= 0) {
                r = build_notes(&d, &notes, &res);
                if (r < 0)
                        snprintf(error, error_size, "cannot build the core's notes: %s", strerror(-r));
        }
        if (r >= 0)
                r = output_core(&d, &notes, &o, error, error_size);
        if (r >= 0) {
                res.size = w->size;
                res.truncated = o.truncated;
                res.n_segments = d.n_segments;
                for (size_t i = 0; i < d.n_segments; i++)
                        res.memory_bytes += d.segments[i].size;
                *ret = res;
        }
        image_done(&d);
        return r;
}
