/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A small test harness. A test binary holds named tests; run with a name it runs that test in
 * process (meson registers each name as its own test), run without one it runs all, each in a
 * child process, printing TAP. A failed check prints file:line and the condition and ends the test.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_case {
        const char *name;
        void (*run)(void);
};

#define TEST(n) static void test_##n(void)
#define TEST_ENTRY(n) { #n, test_##n }

int test_main(int argc, char *argv[], const struct test_case *tests, size_t n_tests);

_Noreturn void test_fail(const char *file, int line, const char *format, ...) __attribute__((format(printf, 3, 4)));

#define CHECK(cond)                                                                                     \
        do {                                                                                            \
                if (!(cond))                                                                            \
                        test_fail(__FILE__, __LINE__, "CHECK failed: %s", #cond);                       \
        } while (0)

#define CHECK_INT(a, op, b)                                                                             \
        do {                                                                                            \
                long long _a = (long long) (a), _b = (long long) (b);                                   \
                if (!(_a op _b))                                                                        \
                        test_fail(__FILE__, __LINE__, "CHECK failed: %s %s %s (%lld vs %lld)", #a, #op, #b, _a, _b); \
        } while (0)

#define CHECK_STR(a, b)                                                                                 \
        do {                                                                                            \
                const char *_a = (a), *_b = (b);                                                        \
                if (!_a || !_b || strcmp(_a, _b) != 0)                                                  \
                        test_fail(__FILE__, __LINE__, "CHECK failed: %s == %s (\"%s\" vs \"%s\")", #a, #b, \
                                  _a ? _a : "(null)", _b ? _b : "(null)");                              \
        } while (0)

#define CHECK_OK(expr)                                                                                  \
        do {                                                                                            \
                long long _r = (long long) (expr);                                                      \
                if (_r < 0)                                                                             \
                        test_fail(__FILE__, __LINE__, "CHECK failed: %s: %s", #expr, strerror((int) -_r)); \
        } while (0)
