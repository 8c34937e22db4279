/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <elf.h>
#include <assert.h>
#include <errno.h>
#include <gelf.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <unistd.h>

#include "selfdump/core-notes.h"
#include "shared/cleanup.h"

#define NOTE_ALIGN(n) (((n) + 3) & ~(size_t) 3)
#define USER_CS 0x33
#define USER_SS 0x2b

static_assert(sizeof(elf_gregset_t) == CORE_NREGS * sizeof(uint64_t), "x86-64 user_regs_struct");

void note_buffer_done(struct note_buffer *b) {
        free(b->data);
        *b = (struct note_buffer) {};
}

static int note_reserve(struct note_buffer *b, size_t more) {
        if (b->size + more <= b->allocated)
                return 0;
        size_t n = MAX(b->allocated * 2, b->size + more + 4096);
        uint8_t *grown = realloc(b->data, n);
        if (!grown)
                return -ENOMEM;
        b->data = grown;
        b->allocated = n;
        return 0;
}

int note_append(struct note_buffer *b, const char *owner, uint32_t type, const void *desc, size_t desc_size) {
        size_t name_size = strlen(owner) + 1;
        GElf_Nhdr h = {
                .n_namesz = (GElf_Word) name_size,
                .n_descsz = (GElf_Word) desc_size,
                .n_type = type,
        };
        size_t total = sizeof h + NOTE_ALIGN(name_size) + NOTE_ALIGN(desc_size);

        if (desc_size > UINT32_MAX || note_reserve(b, total) < 0)
                return -ENOMEM;
        uint8_t *p = b->data + b->size;
        memset(p, 0, total);
        memcpy(p, &h, sizeof h);
        memcpy(p + sizeof h, owner, name_size);
        if (desc_size > 0)
                memcpy(p + sizeof h + NOTE_ALIGN(name_size), desc, desc_size);
        b->size += total;
        return 0;
}

static struct timeval ticks_to_timeval(uint64_t ticks) {
        long hz = sysconf(_SC_CLK_TCK);
        if (hz <= 0)
                hz = 100;
        return (struct timeval) {
                .tv_sec = (time_t) (ticks / (uint64_t) hz),
                .tv_usec = (suseconds_t) (ticks % (uint64_t) hz * 1000000 / (uint64_t) hz),
        };
}

int note_append_prstatus(struct note_buffer *b, pid_t tid, const struct proc_stat *stat, int cursig,
                         const uint64_t regs[CORE_NREGS]) {
        struct elf_prstatus s = {
                .pr_info.si_signo = cursig,
                .pr_cursig = (short) cursig,
                .pr_pid = tid,
                .pr_ppid = stat->ppid,
                .pr_pgrp = stat->pgrp,
                .pr_sid = stat->session,
                .pr_utime = ticks_to_timeval(stat->utime),
                .pr_stime = ticks_to_timeval(stat->stime),
                .pr_cutime = ticks_to_timeval(stat->cutime),
                .pr_cstime = ticks_to_timeval(stat->cstime),
        };
        memcpy(&s.pr_reg, regs, sizeof s.pr_reg);
        return note_append(b, "CORE", NT_PRSTATUS, &s, sizeof s);
}

int note_append_prpsinfo(struct note_buffer *b, pid_t pid, const struct proc_stat *stat, uid_t uid, gid_t gid,
                         const char *comm, const char *cmdline_raw, size_t cmdline_size) {
        static const char states[] = "RSDTZW";
        const char *state = strchr(states, stat->state);
        struct elf_prpsinfo p = {
                .pr_state = state ? (char) (state - states) : 0,
                .pr_sname = stat->state,
                .pr_zomb = stat->state == 'Z',
                .pr_nice = (char) stat->nice,
                .pr_uid = uid,
                .pr_gid = gid,
                .pr_pid = pid,
                .pr_ppid = stat->ppid,
                .pr_pgrp = stat->pgrp,
                .pr_sid = stat->session,
        };

        if (comm)
                strncpy(p.pr_fname, comm, sizeof p.pr_fname - 1);
        /* Arguments separated by spaces, as the kernel writes them. */
        size_t n = MIN(cmdline_size, sizeof p.pr_psargs - 1);
        if (cmdline_raw)
                memcpy(p.pr_psargs, cmdline_raw, n);
        for (size_t i = 0; i < n; i++)
                if (p.pr_psargs[i] == 0)
                        p.pr_psargs[i] = ' ';
        while (n > 0 && p.pr_psargs[n - 1] == ' ')
                p.pr_psargs[--n] = 0;

        return note_append(b, "CORE", NT_PRPSINFO, &p, sizeof p);
}

int note_append_siginfo(struct note_buffer *b, const struct core_signal *sig) {
        siginfo_t si = {
                .si_signo = sig->signo,
                .si_errno = sig->si_errno,
                .si_code = sig->si_code,
        };
        if (sig->have_addr)
                si.si_addr = (void *) (uintptr_t) sig->addr;
        return note_append(b, "CORE", NT_SIGINFO, &si, sizeof si);
}

int note_append_auxv(struct note_buffer *b, const void *auxv, size_t size) {
        return note_append(b, "CORE", NT_AUXV, auxv, size);
}

int note_append_file(struct note_buffer *b, const struct proc_maps *maps, uint64_t page_size) {
        size_t count = 0, names = 0;

        for (size_t i = 0; i < maps->n; i++)
                if (proc_mapping_is_file(&maps->mappings[i])) {
                        count++;
                        names += strlen(maps->mappings[i].path) + 1;
                }

        /* count, page size, then (start, end, offset in pages) per file mapping, then the names. */
        size_t size = (2 + 3 * count) * sizeof(uint64_t) + names;
        _cleanup_free_ uint8_t *desc = calloc(1, size);
        if (!desc)
                return -ENOMEM;

        uint64_t *words = (uint64_t *) desc;
        char *name = (char *) (words + 2 + 3 * count);
        words[0] = count;
        words[1] = page_size;
        size_t k = 0;
        for (size_t i = 0; i < maps->n; i++) {
                const struct proc_mapping *m = &maps->mappings[i];
                if (!proc_mapping_is_file(m))
                        continue;
                words[2 + 3 * k] = m->start;
                words[2 + 3 * k + 1] = m->end;
                words[2 + 3 * k + 2] = m->offset / page_size;
                size_t len = strlen(m->path) + 1;
                memcpy(name, m->path, len);
                name += len;
                k++;
        }
        return note_append(b, "CORE", NT_FILE, desc, size);
}

void core_regs_from_sp_pc(uint64_t regs[CORE_NREGS], uint64_t sp, uint64_t pc) {
        memset(regs, 0, CORE_NREGS * sizeof regs[0]);
        regs[CORE_REG_RIP] = pc;
        regs[CORE_REG_RSP] = sp;
        regs[CORE_REG_CS] = USER_CS;
        regs[CORE_REG_SS] = USER_SS;
        regs[CORE_REG_EFLAGS] = 0x246;
}
