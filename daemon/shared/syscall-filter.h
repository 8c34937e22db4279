/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * System call filters built with libseccomp, so that every architecture libseccomp knows builds them
 * (the names are resolved for the native one). The parser's allow-list (parser/sandbox.c) and the
 * daemon's deny-list (server/privileges.c) are both made here. A filter covers the native
 * architecture only: a system call of any other ABI the kernel would take from this process (i386's
 * int 0x80 or x32 on x86-64, arm's compat mode on arm64) kills the process. A filter that cannot be
 * built or loaded is an error the caller refuses to go on without: none of them is optional.
 */

#include <stddef.h>
#include <stdint.h>
#include <seccomp.h>

/* A new filter whose default answer is default_action, for the native architecture, with
 * no_new_privs set at load. 0 or -errno. */
int syscall_filter_new(uint32_t default_action, scmp_filter_ctx *ret);

/* Each of names answered with action, where the native architecture has it (a name it lacks names
 * nothing to answer). A name libseccomp does not know at all is -ENOENT when must_know (a deny-list:
 * a call that could not be denied), else left out (an allow-list: a call that is not allowed).
 * 0, or -errno with *failed (if not NULL) the name that failed. */
int syscall_filter_add(scmp_filter_ctx ctx, uint32_t action, const char *const *names, size_t n, int must_know,
                       const char **failed);

/* The system call of that name, as libseccomp resolves it for the native architecture (a negative
 * pseudo number for one this architecture lacks), or -ENOENT. */
int syscall_filter_resolve(const char *name);

/* Loads it into the kernel for the calling thread (threads started later inherit it). 0 or -errno. */
int syscall_filter_load(scmp_filter_ctx ctx);
