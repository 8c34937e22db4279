/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A program that case 73 copies into a container's root only (/opt/ct/bin/ctcrash): it crashes
 * three calls deep, in functions whose names the record's backtrace and dumpctl debug's gdb must
 * both show. */
#include <stdio.h>
#include <unistd.h>

static volatile int *volatile target;
static int sleeping;

__attribute__((noinline)) static int ct_inner(int depth) {
        if (sleeping) { /* "ctcrash sleep": waits there instead, to be looked at */
                printf("ctcrash: sleeping at depth %d\n", depth);
                fflush(stdout);
                pause();
        }
        printf("ctcrash: crashing at depth %d\n", depth);
        fflush(stdout);
        return *target + depth; /* NULL: SIGSEGV */
}

__attribute__((noinline)) static int ct_middle(int depth) {
        return ct_inner(depth + 1) + 1;
}

__attribute__((noinline)) static int ct_outer(int depth) {
        return ct_middle(depth + 1) + 1;
}

int main(int argc, char *argv[]) {
        sleeping = argc > 1;
        return ct_outer(1);
}
