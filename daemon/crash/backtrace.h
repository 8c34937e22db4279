/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Where the crash happened, known before the kernel writes a byte: the held task is unwound
 * (selfdump/unwind.c, within UnwindTimeout=) and the crashing thread's top frames give the crash
 * its signature — a hash over (module build-id, offset in module) of the top frames, the signal
 * and the executable's build-id: the same for the same crash site across ASLR, restarts and hosts.
 */

#include <semaphore.h>

#include "config/config.h"
#include "crash/crash.h"

/* Frames of the crashing thread that make the signature. */
#define SIGNATURE_FRAMES 5

/* Unwinding is CPU work with large short-lived tables: more at once than CPUs makes none of them
 * sooner and multiplies the memory. The server's slots (a semaphore of one per CPU) bound it; a crash
 * waits its turn for at most UnwindTimeout= and goes on without a backtrace after that. */
void unwind_slots_init(sem_t *slots);

/* Unwinds the crashed task into c->context.unwind and computes c->context.signature, within
 * config's UnwindTimeout= and UnwindMaxFrames=, in one of slots (NULL: no bound). Never fails the
 * crash: without /proc or frames, or without a free slot, the signature stays empty. */
void backtrace_take(const struct config *config, sem_t *slots, struct crash *c);

/* The signature of an unwind: 16 hex digits, or "" if its first thread has no frame. */
void signature_compute(const struct unwind_result *u, int signo, char out[static 17]);

/* systemd-coredump's layout for MESSAGE: "Stack trace of thread N:" and a line per frame, for
 * every unwound thread; NULL if nothing was unwound. */
char *backtrace_message(const struct crash_context *ctx);
