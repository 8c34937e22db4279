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

/*
 * The signature of an unwind: 16 hex digits, or "" if its first thread has no frame.
 *
 * One rule, whatever the daemon's state (started by this very crash or long running, with the
 * crash-context probe's registers or only /proc's sp and pc): the hash of the signal, the
 * executable's build-id and the crashing thread's top SIGNATURE_FRAMES frames. A trace that
 * reached its outermost frame, or that has all SIGNATURE_FRAMES frames, signs the crash site. One
 * cut short before that (enum unwind_cut: an error, the budget) is partial: its signature is
 * marked as such in the hash, so that it never groups with complete ones, and in the record
 * (COREDUMPD_SIGNATURE_PARTIAL=1, COREDUMPD_BACKTRACE_CUT=).
 */
void signature_compute(const struct unwind_result *u, int signo, char out[static 17]);
/* Whether signature_compute() signs a trace cut short within its frames. */
bool signature_partial(const struct unwind_result *u);

/* systemd-coredump's layout for MESSAGE: "Stack trace of thread N:" and a line per frame, for
 * every unwound thread; NULL if nothing was unwound. */
char *backtrace_message(const struct crash_context *ctx);
