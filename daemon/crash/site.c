/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crash/site.h"
#include "selfdump/core-notes.h"
#include "selfdump/proc-threads.h"
#include "shared/cleanup.h"
#include "shared/hash.h"
#include "shared/log.h"

/* A code address as a place in a file: the executable mapping of a file that holds it. */
static const struct proc_mapping *code_mapping(const struct proc_maps *maps, uint64_t addr) {
        const struct proc_mapping *m = proc_maps_find(maps, addr);
        return m && m->exec && m->inode != 0 && proc_mapping_is_file(m) ? m : NULL;
}

static uint64_t hash_place(uint64_t h, const char *what, const struct proc_mapping *m, uint64_t addr) {
        char item[96];
        snprintf(item, sizeof item, "%s %x:%x:%" PRIu64 "+%" PRIx64 "\n", what, m->dev_major, m->dev_minor, m->inode,
                 addr - m->start + m->offset);
        return fnv1a_64(h, item);
}

bool site_key_compute(const struct proc_maps *maps, uint64_t exe_dev, uint64_t exe_ino, int signo, uint64_t pc,
                      const uint64_t *words, size_t n, char out[static SITE_KEY_SIZE]) {
        char item[96];

        out[0] = 0;
        const struct proc_mapping *m = code_mapping(maps, pc);
        if (!m)
                return false;
        snprintf(item, sizeof item, "coredumpd-site-1 signal=%d exe=%" PRIx64 ":%" PRIu64 "\n", signo, exe_dev, exe_ino);
        uint64_t h = fnv1a_64(FNV1A_64_INIT, item);
        h = hash_place(h, "pc", m, pc);
        size_t taken = 0;
        for (size_t i = 0; i < n && taken < SITE_CODE_WORDS; i++) {
                m = code_mapping(maps, words[i]);
                if (!m)
                        continue;
                h = hash_place(h, "code", m, words[i]);
                taken++;
        }
        snprintf(out, SITE_KEY_SIZE, "%016" PRIx64, h);
        return true;
}

/* The crashing thread's pc and sp: the probe's registers, else /proc's (stat shows them for a
 * dumping thread, syscall for any thread that is held); and where its frames end: the main thread's
 * first stack pointer (above it the kernel put argc, argv, the environment and the auxiliary vector,
 * below a random gap of up to 8 KiB: words that differ from run to run, on pages maybe never
 * touched), 0 for another thread (its stack mapping's end). */
static bool crash_pc_sp(const struct site_task *t, uint64_t *pc, uint64_t *sp, uint64_t *frames_end) {
        pid_t tid = t->probe && t->probe->tid > 0 ? t->probe->tid : t->pid;
        struct proc_thread thread;

        /* That thread alone: the crash path reads no other thread's files for it. */
        *pc = *sp = *frames_end = 0;
        if (proc_thread_read(t->proc_fd, tid, &thread) < 0)
                return false;
        *pc = thread.pc;
        *sp = thread.sp;
        if (tid == t->pid)
                *frames_end = thread.stat.start_stack;
        if (t->probe && t->probe->have_regs) {
                *pc = t->probe->regs[CORE_REG_RIP];
                *sp = t->probe->regs[CORE_REG_RSP];
        }
        return *pc != 0 && *sp != 0;
}

/* The top of the stack as words, where every page of it is in memory. The number of words read. */
static size_t read_stack_top(int proc_fd, const struct proc_mapping *stack, uint64_t sp, uint64_t frames_end,
                             uint64_t words[static SITE_STACK_BYTES / 8]) {
        long page_size = sysconf(_SC_PAGESIZE);
        uint64_t from = sp & ~UINT64_C(7);
        uint64_t end = frames_end > from && frames_end <= stack->end ? frames_end : stack->end;
        uint64_t to = end - from > SITE_STACK_BYTES ? from + SITE_STACK_BYTES : end;

        if (to <= from)
                return 0;
        uint64_t first_page = from / (uint64_t) page_size, last_page = (to - 1) / (uint64_t) page_size;
        bool in[SITE_STACK_BYTES / 4096 + 2];

        if (page_size <= 0 || last_page - first_page + 1 > sizeof in / sizeof in[0])
                return 0;
        _cleanup_close_ int pagemap = openat(proc_fd, "pagemap", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (pagemap < 0 || proc_pagemap_in_memory(pagemap, first_page * (uint64_t) page_size, (uint64_t) page_size,
                                                  last_page - first_page + 1, in) < 0)
                return 0;
        for (uint64_t p = 0; p <= last_page - first_page; p++)
                if (!in[p])
                        return 0;
        _cleanup_close_ int mem = openat(proc_fd, "mem", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (mem < 0)
                return 0;
        ssize_t got = pread(mem, words, to - from, (off_t) from);
        return got > 0 ? (size_t) got / 8 : 0;
}

bool site_key_take(const struct site_task *t, char out[static SITE_KEY_SIZE]) {
        _cleanup_(proc_maps_done) struct proc_maps maps = {};
        uint64_t words[SITE_STACK_BYTES / 8];
        uint64_t pc, sp, frames_end, exe_dev = 0, exe_ino = 0;
        const char *why;

        out[0] = 0;
        if (t->proc_fd < 0)
                return false;
        if (!crash_pc_sp(t, &pc, &sp, &frames_end)) {
                why = "its pc and sp are unknown";
                goto none;
        }
        if (proc_maps_read(t->proc_fd, &maps) < 0) {
                why = "its maps cannot be read";
                goto none;
        }
        const struct proc_mapping *stack = proc_maps_find(&maps, sp);
        if (!stack || stack->inode != 0 || stack->shared || !stack->read) {
                why = "its sp is not in an anonymous private mapping";
                goto none;
        }
        /* The executable by the mapping of the same name as /proc/<pid>/exe (both are the kernel's
         * names of one file); stat() of the link itself could wait for the file's file system. */
        for (size_t i = 0; t->exe && i < maps.n; i++)
                if (maps.mappings[i].path && strcmp(maps.mappings[i].path, t->exe) == 0) {
                        exe_dev = makedev(maps.mappings[i].dev_major, maps.mappings[i].dev_minor);
                        exe_ino = maps.mappings[i].inode;
                        break;
                }
        size_t n = read_stack_top(t->proc_fd, stack, sp, frames_end, words);
        if (n == 0) {
                /* The pc alone would make every abort() of a program one site. */
                why = "the top of its stack is not all in memory";
                goto none;
        }
        if (!site_key_compute(&maps, exe_dev, exe_ino, t->signal, pc, words, n, out)) {
                why = "its pc is in no file's code";
                goto none;
        }
        return true;
none:
        log_crash(t->tag, LOG_DEBUG, "No site key: %s; the crash is unwound to tell a repeat.", why);
        return false;
}
