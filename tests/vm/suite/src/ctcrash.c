/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A program that case 73 copies into a container's root only (/opt/ct/bin/ctcrash): it crashes
 * three calls deep, in functions whose names the record's backtrace and dumpctl debug's gdb must
 * both show. */
#include <stdio.h>

static volatile int *volatile target;

__attribute__((noinline)) static int ct_inner(int depth) {
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

int main(void) {
        return ct_outer(1);
}
