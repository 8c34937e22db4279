/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The parser's side only (coredumpd-parser; never linked into the daemon): the stacks of a held
 * task, unwound from what the daemon handed over — the threads' registers, its memory through a
 * /proc/<pid>/mem fd, its maps, and its mapped files reached through /proc/<pid>/map_files
 * (parser/map-files.h: only those the one rule calls local, never a path walked in the task's
 * mounts), read with libelf's ELF_C_READ (never mapped: a file truncated meanwhile cannot SIGBUS
 * the reader). Call frame
 * information from .eh_frame, symbols from .symtab or .dynsym, separate debug info by build-id
 * only, never from a debuginfod server. Bounded by a time and a frame budget: what is not unwound
 * by then stays out.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "parser/map-files.h"
#include "parser/wire.h"
#include "selfdump/proc-maps.h"

struct unwind_request {
        pid_t pid;                      /* a name for libdwfl only: nothing is opened by it */
        int mem_fd;                     /* /proc/<pid>/mem */
        const char *maps_text;          /* /proc/<pid>/maps as read, for libdwfl's module list */
        const struct proc_maps *maps;   /* ... parsed, remote file systems marked */
        const struct map_files *files;  /* the mapped files handed over (opened): no other is opened */
        const struct parser_thread *threads; /* the crashing thread first */
        size_t n_threads;
        const char *exe;                /* the main executable's path, as /proc/<pid>/exe names it */
        uint64_t budget_usec;           /* for everything */
        unsigned max_frames;            /* per thread, at most UNWIND_MAX_FRAMES */
};

/* Unwinds what the budget allows. 0 with *ret filled (threads may be cut or empty), or -errno when
 * nothing could be looked at (out of memory). */
int unwind_task(const struct unwind_request *req, struct unwind_result *ret);

/* The pc of a thread as handed over (0 if unknown). */
uint64_t unwind_thread_pc(const struct parser_thread *t);
