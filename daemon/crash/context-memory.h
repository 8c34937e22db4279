/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The context's parts that are read of the task's memory, by the crash's reader (crash/context-memory.c). */

#include "crash/context-state.h"

/* CONTEXT_MEMORY: the command lines, by the crash's reader. */
void context_read_memory(struct crash_context *c);
/* A kept crash's status, maps and limits for its record (COREDUMP_PROC_*=), by the crash's reader
 * while the task is held; not once its memory did not answer (the maps would wait on its
 * mmap_lock). Failing, they stay NULL (logged). */
void context_read_proc_texts(struct crash_context *c);
/* The crash's reader's job (parser/client.h): its tenant, the ids parser_ids() gives, the deadline
 * reader_wait_usec from now. */
struct reader_job;
void context_reader_job(const struct crash_context *c, struct reader_job *ret);
