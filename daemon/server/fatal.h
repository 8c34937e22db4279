/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * coredumpd's own crash. With fs.suid_dumpable=2 even a non-dumpable root task is dumped, and a
 * dump of coredumpd would make the kernel connect to coredumpd's own socket while all its threads
 * are dying: nobody would ack, the daemon would never finish dying, systemd would never start it
 * again, and every later crasher would wait on the socket. So a fatal signal ends the daemon at
 * once, without a core: the handler writes one line to stderr (the journal) and exits with
 * 128 + the signal; socket activation starts a new daemon on the next crash.
 */

/* Installs the handlers (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGQUIT,
 * SIGXCPU, SIGXFSZ) and an alternate stack for the calling thread. */
int fatal_signals_install(void);
/* An alternate signal stack for a new thread, so that even a stack overflow reaches the handler.
 * Returns the stack to pass to fatal_signals_thread_done() when the thread ends, or NULL. */
void *fatal_signals_thread_init(void);
void fatal_signals_thread_done(void *stack);
