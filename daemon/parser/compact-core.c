/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "parser/compact-core.h"
#include "parser/core-source.h"
#include "selfdump/core-notes.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/fileio.h"

/* struct elf_prstatus on x86-64: the registers (user_regs_struct) start at this offset. */
#define PRSTATUS_REGS_OFFSET 112
#define PRSTATUS_MIN_SIZE (PRSTATUS_REGS_OFFSET + CORE_NREGS * 8)
/* Below a thread's sp: the ABI's red zone, which a leaf function may use without moving sp. */
#define RED_ZONE 128
#define PAGE_SIZE_CORE 4096
/* A stack window smaller than this is not worth its program header. */
#define MIN_WINDOW 256
#define PATH_MAX_CORE 4096
/* vm.max_map_count's largest sensible value, and then some. */
#define PHNUM_MAX (UINT64_C(1) << 22)
/* Program headers stay countable in e_phnum (below PN_XNUM) with the notes'. */
#define PLAN_MAX_RANGES 60000

/* ---- what to keep ---------------------------------------------------------------------------- */

enum range_kind { RANGE_STACK, RANGE_LOADER, RANGE_ELF_HEAD, RANGE_SEGMENT };

struct range {
        uint64_t offset, vaddr, len;
        uint32_t flags;
        enum range_kind kind;
        uint8_t *data;
};

struct plan {
        const struct source *src;
        const Elf64_Phdr *ph;
        size_t phnum;
        struct range *v;
        size_t n;
        uint64_t budget;                /* bytes left for program headers and memory */
};

static void plan_done(struct plan *p) {
        for (size_t i = 0; i < p->n; i++)
                free(p->v[i].data);
        free(p->v);
}

/* The loadable segment whose dumped bytes (p_filesz) hold addr; NULL if none. */
static const Elf64_Phdr *segment_of(const struct plan *p, uint64_t addr) {
        for (size_t i = 0; i < p->phnum; i++)
                if (p->ph[i].p_type == PT_LOAD && addr >= p->ph[i].p_vaddr && addr - p->ph[i].p_vaddr < p->ph[i].p_filesz)
                        return &p->ph[i];
        return NULL;
}

/* The core's bytes at a process address, all of them or false. */
static bool mem_read(const struct plan *p, uint64_t addr, void *buf, size_t size) {
        const Elf64_Phdr *seg = segment_of(p, addr);
        if (!seg || size > seg->p_vaddr + seg->p_filesz - addr)
                return false;
        return source_read(p->src, seg->p_offset + (addr - seg->p_vaddr), buf, size) == (ssize_t) size;
}

/* Adds len bytes from vaddr on (cut at the end of their segment's dumped bytes), if the budget has
 * room for them and their program header (for a stack, as much of the window as fits). */
static int plan_add(struct plan *p, uint64_t vaddr, uint64_t len, enum range_kind kind) {
        const Elf64_Phdr *seg = segment_of(p, vaddr);
        if (!seg || len == 0 || p->budget <= sizeof(Elf64_Phdr) || p->n >= PLAN_MAX_RANGES)
                return 0;
        if (len > seg->p_vaddr + seg->p_filesz - vaddr)
                len = seg->p_vaddr + seg->p_filesz - vaddr;
        uint64_t room = p->budget - sizeof(Elf64_Phdr);
        if (len > room) {
                if (kind != RANGE_STACK || room < MIN_WINDOW)
                        return 0;
                len = room;
        }
        struct range *grown = realloc(p->v, (p->n + 1) * sizeof *grown);
        if (!grown)
                return -ENOMEM;
        p->v = grown;
        p->v[p->n++] = (struct range) {
                .offset = seg->p_offset + (vaddr - seg->p_vaddr),
                .vaddr = vaddr,
                .len = len,
                .flags = seg->p_flags,
                .kind = kind,
        };
        p->budget -= sizeof(Elf64_Phdr) + len;
        return 0;
}

static bool covered(const struct plan *p, const Elf64_Phdr *seg) {
        for (size_t i = 0; i < p->n; i++)
                if (p->v[i].vaddr >= seg->p_vaddr && p->v[i].vaddr - seg->p_vaddr < seg->p_memsz)
                        return true;
        return false;
}

/* The notes of one kind ("CORE" owner): calls fn with each descriptor. */
static int notes_each(const uint8_t *notes, size_t size, uint32_t type,
                      int (*fn)(const uint8_t *desc, size_t size, void *userdata), void *userdata) {
        size_t p = 0;
        while (size - p >= sizeof(Elf64_Nhdr)) {
                Elf64_Nhdr h;
                memcpy(&h, notes + p, sizeof h);
                size_t name_at = p + sizeof h;
                uint64_t name_len = ((uint64_t) h.n_namesz + 3) & ~UINT64_C(3);
                uint64_t desc_len = ((uint64_t) h.n_descsz + 3) & ~UINT64_C(3);
                if (name_len > size - name_at || desc_len > size - name_at - name_len)
                        break; /* the rest is not a note: what came before stands */
                size_t desc_at = name_at + (size_t) name_len;
                if (h.n_type == type && h.n_namesz == 5 && memcmp(notes + name_at, "CORE", 5) == 0) {
                        int r = fn(notes + desc_at, h.n_descsz, userdata);
                        if (r != 0)
                                return r;
                }
                p = desc_at + (size_t) desc_len;
        }
        return 0;
}

struct thread_windows {
        struct plan *plan;
        const struct compact_limits *lim;
        bool crashing;                  /* this pass: the first thread's only, or all the others' */
        unsigned n;
};

/* A thread's stack from just below its sp: the crashing thread's (the first NT_PRSTATUS) in one
 * pass, the others' in a later one. */
static int add_stack(const uint8_t *desc, size_t size, void *userdata) {
        struct thread_windows *t = userdata;
        uint64_t sp;
        unsigned i = t->n++;
        if (size < PRSTATUS_MIN_SIZE || (i == 0) != t->crashing)
                return 0;
        memcpy(&sp, desc + PRSTATUS_REGS_OFFSET + CORE_REG_RSP * 8, sizeof sp);
        uint64_t low = sp >= RED_ZONE ? (sp - RED_ZONE) & ~UINT64_C(15) : 0;
        const Elf64_Phdr *seg = segment_of(t->plan, low);
        if (!seg) {
                seg = segment_of(t->plan, sp);
                if (!seg)
                        return 0; /* a sp outside the dumped memory: nothing of that stack to keep */
                low = seg->p_vaddr;
        }
        return plan_add(t->plan, low, i == 0 ? t->lim->crash_stack : t->lim->thread_stack, RANGE_STACK);
}

struct auxv_want {
        uint64_t phdr, phnum;
};

static int auxv_scan(const uint8_t *desc, size_t size, void *userdata) {
        struct auxv_want *w = userdata;
        for (size_t i = 0; i + 16 <= size; i += 16) {
                uint64_t type, val;
                memcpy(&type, desc + i, 8);
                memcpy(&val, desc + i + 8, 8);
                if (type == AT_PHDR)
                        w->phdr = val;
                else if (type == AT_PHNUM)
                        w->phnum = val;
        }
        return 1;
}

/* What gdb reads to find the shared libraries, read from the core's own memory as the dynamic
 * linker left it: the executable's program headers and dynamic section (DT_DEBUG), r_debug, and
 * each link_map with its name. */
#define LINK_MAPS_MAX 1024
#define LINK_MAP_PUBLIC 40              /* l_addr, l_name, l_ld, l_next, l_prev */
#define R_DEBUG_SIZE 40
static int add_loader_state(struct plan *p, const uint8_t *notes, size_t notes_size) {
        struct auxv_want a = {};
        uint64_t bias = 0, dyn = 0, dyn_size = 0, r_debug = 0, lm;
        Elf64_Phdr eph[64];
        int r;

        (void) notes_each(notes, notes_size, NT_AUXV, auxv_scan, &a);
        if (a.phdr == 0 || a.phnum == 0 || a.phnum > ELEMENTSOF(eph) || !mem_read(p, a.phdr, eph, a.phnum * sizeof *eph))
                return 0;
        for (size_t i = 0; i < a.phnum; i++)
                if (eph[i].p_type == PT_PHDR)
                        bias = a.phdr - eph[i].p_vaddr;
        for (size_t i = 0; i < a.phnum; i++)
                if (eph[i].p_type == PT_DYNAMIC) {
                        dyn = bias + eph[i].p_vaddr;
                        dyn_size = eph[i].p_memsz;
                }
        if (dyn == 0 || dyn_size == 0 || dyn_size > 64 * 1024)
                return 0; /* static */
        if ((r = plan_add(p, a.phdr, a.phnum * sizeof *eph, RANGE_LOADER)) < 0 ||
            (r = plan_add(p, dyn, dyn_size, RANGE_LOADER)) < 0)
                return r;
        for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= dyn_size; off += sizeof(Elf64_Dyn)) {
                Elf64_Dyn d;
                if (!mem_read(p, dyn + off, &d, sizeof d) || d.d_tag == DT_NULL)
                        break;
                if (d.d_tag == DT_DEBUG)
                        r_debug = d.d_un.d_ptr;
        }
        uint64_t dbg[R_DEBUG_SIZE / 8];
        if (r_debug == 0 || !mem_read(p, r_debug, dbg, sizeof dbg))
                return 0;
        if ((r = plan_add(p, r_debug, sizeof dbg, RANGE_LOADER)) < 0)
                return r;
        lm = dbg[1]; /* r_map, after the int r_version and its padding */
        for (unsigned i = 0; lm != 0 && i < LINK_MAPS_MAX; i++) {
                uint64_t map[LINK_MAP_PUBLIC / 8];
                char name[PATH_MAX_CORE];
                if (!mem_read(p, lm, map, sizeof map))
                        break;
                size_t name_len = 0;
                const Elf64_Phdr *seg = segment_of(p, map[1]);
                if (seg) {
                        uint64_t avail = seg->p_vaddr + seg->p_filesz - map[1];
                        size_t want = avail < sizeof name ? (size_t) avail : sizeof name;
                        if (mem_read(p, map[1], name, want)) {
                                const char *nul = memchr(name, 0, want);
                                name_len = nul ? (size_t) (nul - name) + 1 : want;
                        }
                }
                if ((r = plan_add(p, lm, sizeof map, RANGE_LOADER)) < 0 ||
                    (r = plan_add(p, map[1], name_len, RANGE_LOADER)) < 0 ||
                    (r = plan_add(p, map[2], sizeof(Elf64_Dyn), RANGE_LOADER)) < 0)
                        return r;
                lm = map[3];
        }
        return 0;
}

static int by_offset(const void *a, const void *b) {
        const struct range *x = a, *y = b;
        return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int by_filesz(const void *a, const void *b) {
        const Elf64_Phdr *x = *(const Elf64_Phdr *const *) a, *y = *(const Elf64_Phdr *const *) b;
        return x->p_filesz < y->p_filesz ? -1 : x->p_filesz > y->p_filesz;
}

/* Overlapping or touching ranges of one segment become one. */
static void plan_merge(struct plan *p) {
        size_t k = 0;
        qsort(p->v, p->n, sizeof *p->v, by_offset);
        for (size_t i = 0; i < p->n; i++) {
                struct range *last = k > 0 ? &p->v[k - 1] : NULL;
                if (last && p->v[i].offset <= last->offset + last->len &&
                    p->v[i].offset - last->offset == p->v[i].vaddr - last->vaddr && p->v[i].flags == last->flags &&
                    segment_of(p, last->vaddr) == segment_of(p, p->v[i].vaddr)) {
                        uint64_t end = p->v[i].offset + p->v[i].len;
                        if (end > last->offset + last->len)
                                last->len = end - last->offset;
                        if (p->v[i].kind != RANGE_ELF_HEAD)
                                last->kind = p->v[i].kind;
                        continue;
                }
                p->v[k++] = p->v[i];
        }
        p->n = k;
}

int compact_core(int fd, int out_fd, const struct compact_limits *lim, char *reason, size_t reason_size) {
        _cleanup_free_ Elf64_Phdr *ph = NULL, *oph = NULL;
        _cleanup_free_ uint8_t *notes = NULL;
        _cleanup_free_ const Elf64_Phdr **small = NULL;
        struct source s;
        struct plan plan = {};
        size_t n_small = 0, n_note_ph = 0;
        uint64_t notes_size = 0;
        Elf64_Ehdr eh;
        ssize_t n;
        int r;

        uint64_t max_size = lim->max_size < PARSER_COMPACT_MAX ? lim->max_size : PARSER_COMPACT_MAX;
        r = source_open(&s, fd);
        if (r < 0) {
                r = fail_reason(r, reason, reason_size, "%s",
                         r == -EFBIG ? "a compressed core too large to compact" : "cannot read the core");
                goto out;
        }

        n = source_read(&s, 0, &eh, sizeof eh);
        if (n != (ssize_t) sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
            eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_CORE ||
            eh.e_machine != EM_X86_64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff < sizeof eh) {
                r = fail_reason(-EBADMSG, reason, reason_size, "%s", "not an x86-64 ELF core");
                goto out;
        }
        size_t phnum = eh.e_phnum;
        if (phnum == PN_XNUM) {
                /* More than 65534 segments: the count is in the first section header. */
                Elf64_Shdr sh0;
                if (eh.e_shoff == 0 || source_read(&s, eh.e_shoff, &sh0, sizeof sh0) != (ssize_t) sizeof sh0) {
                        r = fail_reason(-EBADMSG, reason, reason_size, "%s", "no count of its segments");
                        goto out;
                }
                phnum = sh0.sh_info;
        }
        if (phnum == 0 || phnum > PHNUM_MAX) {
                r = fail_reason(-EBADMSG, reason, reason_size, "%s", phnum ? "more segments than a process can map" : "no segments");
                goto out;
        }
        ph = calloc(phnum, sizeof *ph);
        if (!ph)
                goto oom;
        n = source_read(&s, eh.e_phoff, ph, phnum * sizeof *ph);
        if (n != (ssize_t) (phnum * sizeof *ph)) {
                r = fail_reason(-EBADMSG, reason, reason_size, "%s", "the program headers are cut");
                goto out;
        }

        /* The notes, whole. The budget is for all of the compact core. */
        uint64_t fixed = sizeof eh;
        for (size_t i = 0; i < phnum && notes_size <= max_size; i++)
                if (ph[i].p_type == PT_NOTE) {
                        /* Each note segment at most the bound: its size padded cannot wrap. */
                        notes_size += ph[i].p_filesz > max_size ? max_size + 1 : (ph[i].p_filesz + 3) & ~UINT64_C(3);
                        fixed += sizeof(Elf64_Phdr);
                        n_note_ph++;
                }
        fixed += notes_size;
        if (n_note_ph == 0) {
                r = fail_reason(-EBADMSG, reason, reason_size, "%s", "no notes: no registers to unwind from");
                goto out;
        }
        if (fixed > max_size) {
                r = fail_reason(-E2BIG, reason, reason_size, "the notes alone take %" PRIu64 " bytes, more than %" PRIu64,
                         fixed, max_size);
                goto out;
        }
        notes = calloc(1, notes_size ? notes_size : 1);
        if (!notes)
                goto oom;
        uint64_t at = 0;
        for (size_t i = 0; i < phnum; i++) {
                if (ph[i].p_type != PT_NOTE)
                        continue;
                n = source_read(&s, ph[i].p_offset, notes + at, ph[i].p_filesz);
                if (n != (ssize_t) ph[i].p_filesz) {
                        r = fail_reason(-EBADMSG, reason, reason_size, "%s", "the notes are cut");
                        goto out;
                }
                at += (ph[i].p_filesz + 3) & ~UINT64_C(3);
        }

        /* What to keep, most useful first, while the budget lasts: the crashing thread's stack,
         * what gdb needs to find the libraries, the other threads' stacks, ELF headers (build-ids),
         * small writable segments. */
        plan = (struct plan) { .src = &s, .ph = ph, .phnum = phnum, .budget = max_size - fixed };
        struct thread_windows tw = { .plan = &plan, .lim = lim, .crashing = true };
        r = notes_each(notes, notes_size, NT_PRSTATUS, add_stack, &tw);
        r = r < 0 ? r : add_loader_state(&plan, notes, notes_size);
        if (r >= 0) {
                tw = (struct thread_windows) { .plan = &plan, .lim = lim, .crashing = false };
                r = notes_each(notes, notes_size, NT_PRSTATUS, add_stack, &tw);
        }
        for (size_t i = 0; i < phnum && r >= 0; i++)
                if (ph[i].p_type == PT_LOAD && !(ph[i].p_flags & PF_W) && ph[i].p_filesz > 0 &&
                    ph[i].p_filesz <= PAGE_SIZE_CORE)
                        r = plan_add(&plan, ph[i].p_vaddr, ph[i].p_filesz, RANGE_ELF_HEAD);
        small = r < 0 ? NULL : calloc(phnum, sizeof *small);
        if (!small)
                goto oom;
        for (size_t i = 0; i < phnum; i++)
                if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W) && ph[i].p_filesz > 0 &&
                    ph[i].p_filesz <= lim->small_segment && !covered(&plan, &ph[i]))
                        small[n_small++] = &ph[i];
        qsort(small, n_small, sizeof *small, by_filesz);
        for (size_t i = 0; i < n_small && r >= 0; i++)
                r = plan_add(&plan, small[i]->p_vaddr, small[i]->p_filesz, RANGE_SEGMENT);
        if (r < 0)
                goto oom;
        plan_merge(&plan);

        size_t kept = 0;
        for (size_t i = 0; i < plan.n; i++) {
                struct range rg = plan.v[i];
                rg.data = malloc(rg.len ? rg.len : 1);
                if (!rg.data)
                        goto oom;
                n = source_read(&s, rg.offset, rg.data, rg.len);
                if (n < 0) {
                        free(rg.data);
                        r = fail_reason((int) n, reason, reason_size, "%s", "cannot read the core's memory");
                        goto out;
                }
                rg.len = (uint64_t) n; /* a core cut short (MaxSize=) keeps what it holds */
                if (rg.kind == RANGE_ELF_HEAD && (rg.len < SELFMAG || memcmp(rg.data, ELFMAG, SELFMAG) != 0))
                        rg.len = 0; /* not the start of an ELF file: no build-id to find there */
                if (rg.len > 0)
                        plan.v[kept++] = rg;
                else
                        free(rg.data);
        }
        for (size_t i = kept; i < plan.n; i++)
                plan.v[i].data = NULL;
        plan.n = kept;

        /* Header, program headers, notes, memory. */
        size_t out_ph = n_note_ph + plan.n;
        uint64_t offset = sizeof eh + out_ph * sizeof(Elf64_Phdr);
        oph = calloc(out_ph, sizeof *oph);
        if (!oph)
                goto oom;
        size_t k = 0;
        for (size_t i = 0; i < phnum; i++)
                if (ph[i].p_type == PT_NOTE) {
                        oph[k] = ph[i];
                        oph[k].p_offset = offset;
                        offset += (ph[i].p_filesz + 3) & ~UINT64_C(3);
                        k++;
                }
        for (size_t i = 0; i < plan.n; i++, k++) {
                oph[k] = (Elf64_Phdr) {
                        .p_type = PT_LOAD,
                        .p_flags = plan.v[i].flags,
                        .p_offset = offset,
                        .p_vaddr = plan.v[i].vaddr,
                        .p_filesz = plan.v[i].len,
                        .p_memsz = plan.v[i].len,
                        .p_align = 1,
                };
                offset += plan.v[i].len;
        }
        if (offset > max_size || out_ph >= PN_XNUM) {
                r = fail_reason(-E2BIG, reason, reason_size, "%s", "the plan overran its budget");
                goto out;
        }
        Elf64_Ehdr oeh = eh;
        oeh.e_phoff = sizeof oeh;
        oeh.e_phnum = (Elf64_Half) out_ph;
        oeh.e_shoff = 0;
        oeh.e_shnum = 0;
        oeh.e_shentsize = 0;
        oeh.e_shstrndx = SHN_UNDEF;
        r = write_full(out_fd, &oeh, sizeof oeh);
        r = r ?: write_full(out_fd, oph, out_ph * sizeof *oph);
        r = r ?: write_full(out_fd, notes, notes_size);
        for (size_t i = 0; i < plan.n && r == 0; i++)
                r = write_full(out_fd, plan.v[i].data, plan.v[i].len);
        if (r < 0)
                r = fail_reason(r, reason, reason_size, "%s", "cannot write the compact core");
        goto out;

oom:
        r = fail_reason(-ENOMEM, reason, reason_size, "%s", "out of memory");
out:
        plan_done(&plan);
        source_done(&s);
        return r;
}
