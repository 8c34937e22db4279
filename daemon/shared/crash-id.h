/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A crash's durable identity, COREDUMPD_CRASH_ID=: the boot id and what names the crashed process
 * uniquely within that boot. Where pidfds live on pidfs, that is the pidfd's inode number (64 bits,
 * never reused in a boot): "<boot id>-i<inode>"; elsewhere the pid and its start time (clock ticks
 * after boot, /proc/<pid>/stat field 22): "<boot id>-p<pid>-s<start time>". The daemon makes it;
 * dumpctl takes it as a match.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 32 hex digits, "-p", a pid, "-s", 20 digits, NUL: within 80. */
#define CRASH_ID_MAX 80

/* 0, or -EINVAL when boot_id is not 32 lower-case hex digits (then buf is ""). */
int crash_id_from_pidfs(char buf[static CRASH_ID_MAX], const char *boot_id, uint64_t inode);
int crash_id_from_start_time(char buf[static CRASH_ID_MAX], const char *boot_id, pid_t pid, uint64_t start_time);

/* Whether s has one of the two forms. */
bool crash_id_is_valid(const char *s);
