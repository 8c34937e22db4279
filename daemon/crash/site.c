/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crash/site.h"
#include "parser/client.h"
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

_Static_assert(SITE_STACK_BYTES == READER_WORDS_MAX * 8, "the reader reads the site key's stack words");

static const char *site_why(uint32_t why) {
        switch (why) {
        case READER_SITE_NO_MAPS:
                return "its maps cannot be read";
        case READER_SITE_SP_NOT_ANON:
                return "its sp is not in an anonymous private mapping";
        case READER_SITE_NOT_IN_MEMORY:
                /* The pc alone would make every abort() of a program one site. */
                return "the top of its stack is not all in memory";
        default:
                return "the reader says so";
        }
}

bool site_key_take(const struct site_task *t, char out[static SITE_KEY_SIZE], bool *ret_stalled) {
        _cleanup_free_ struct reader_answer *a = NULL;
        _cleanup_free_ struct proc_mapping *mappings = NULL;
        uint64_t pc, sp, frames_end;
        char reason[160] = "";
        const char *why = reason;

        out[0] = 0;
        *ret_stalled = false;
        if (t->proc_fd < 0)
                return false;
        if (!crash_pc_sp(t, &pc, &sp, &frames_end)) {
                why = "its pc and sp are unknown";
                goto none;
        }
        a = calloc(1, sizeof *a);
        if (!a) {
                why = "out of memory";
                goto none;
        }
        /* The maps and the stack's words are read by the tenant's reader, not here: a process that
         * shares the task's memory can hold its mmap_lock as long as it likes. */
        const struct reader_job job = {
                .proc_fd = t->proc_fd,
                .owner = t->owner,
                .uid = t->reader_uid,
                .gid = t->reader_gid,
                .deadline_usec = t->deadline_usec,
        };
        int r = reader_site(&job, pc, sp, frames_end, t->exe, a, reason, sizeof reason);
        if (r < 0) {
                *ret_stalled = r == -ETIMEDOUT;
                log_crash(t->tag, r == -ETIMEDOUT ? LOG_NOTICE : LOG_DEBUG, "No site key: the reader of its maps and stack: %s.",
                          reason);
                return false;
        }
        if (a->why != READER_SITE_OK) {
                why = site_why(a->why);
                goto none;
        }
        /* Its answer, checked (reader_answer_decode()): executable mappings of files, sorted and
         * disjoint, as proc_maps_find() takes them. */
        mappings = calloc(a->n_maps ? a->n_maps : 1, sizeof *mappings);
        if (!mappings) {
                why = "out of memory";
                goto none;
        }
        for (size_t i = 0; i < a->n_maps; i++) {
                mappings[i] = reader_proc_mapping(&a->maps[i], "/"); /* a file's: its name is not needed */
                mappings[i].read = mappings[i].exec = true;
        }
        const struct proc_maps maps = { .mappings = mappings, .n = a->n_maps };
        if (!site_key_compute(&maps, a->exe_dev, a->exe_ino, t->signal, pc, a->words, a->n_words, out)) {
                why = "its pc is in no file's code";
                goto none;
        }
        return true;
none:
        log_crash(t->tag, LOG_DEBUG, "No site key: %s; the crash is unwound to tell a repeat.", why);
        return false;
}
