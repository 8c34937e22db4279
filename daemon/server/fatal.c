/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server/fatal.h"
#include "shared/cleanup.h"

#define ALT_STACK_SIZE (64 * 1024)

static const int fatal_signals[] = {
        SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGQUIT, SIGXCPU, SIGXFSZ,
};

/* Appends s to buf at *n (no libc formatting in a signal handler). */
static void put(char *buf, size_t size, size_t *n, const char *s) {
        while (*s && *n + 1 < size)
                buf[(*n)++] = *s++;
}

static void put_number(char *buf, size_t size, size_t *n, uint64_t v, unsigned base) {
        char digits[24];
        size_t k = 0;
        do {
                digits[k++] = "0123456789abcdef"[v % base];
                v /= base;
        } while (v > 0 && k < sizeof digits);
        if (base == 16)
                put(buf, size, n, "0x");
        while (k > 0 && *n + 1 < size)
                buf[(*n)++] = digits[--k];
}

static void on_fatal_signal(int sig, siginfo_t *si, void *ucontext) {
        char line[160];
        size_t n = 0;

        put(line, sizeof line, &n, "<2>coredumpd: fatal signal ");
        put_number(line, sizeof line, &n, (uint64_t) sig, 10);
        put(line, sizeof line, &n, ", code ");
        put_number(line, sizeof line, &n, (uint64_t) (uint32_t) si->si_code, 10);
        put(line, sizeof line, &n, ", address ");
        put_number(line, sizeof line, &n, (uint64_t) (uintptr_t) si->si_addr, 16);
        put(line, sizeof line, &n, ": exiting without a core (it would be sent to ourselves)\n");
        (void) !write(STDERR_FILENO, line, n);

        /* All threads, at once; no atexit handlers, no flushing of state that may be corrupt. */
        syscall(SYS_exit_group, 128 + sig);
}

void *fatal_signals_thread_init(void) {
        stack_t ss = { .ss_size = ALT_STACK_SIZE };

        ss.ss_sp = malloc(ALT_STACK_SIZE);
        if (!ss.ss_sp)
                return NULL;
        if (sigaltstack(&ss, NULL) < 0) {
                free(ss.ss_sp);
                return NULL;
        }
        return ss.ss_sp;
}

void fatal_signals_thread_done(void *stack) {
        stack_t ss = { .ss_flags = SS_DISABLE };

        if (!stack)
                return;
        (void) sigaltstack(&ss, NULL);
        free(stack);
}

int fatal_signals_install(void) {
        struct sigaction sa = {
                .sa_sigaction = on_fatal_signal,
                .sa_flags = SA_SIGINFO | SA_ONSTACK,
        };

        sigfillset(&sa.sa_mask);
        (void) fatal_signals_thread_init(); /* the main thread's, kept for its life */
        for (size_t i = 0; i < ELEMENTSOF(fatal_signals); i++)
                if (sigaction(fatal_signals[i], &sa, NULL) < 0)
                        return -errno;
        return 0;
}
