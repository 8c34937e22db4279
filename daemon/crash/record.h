/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The durable record of a crash: one journal entry in systemd-coredump's format
 * (MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1, COREDUMP_* fields) so that coredumpctl finds it,
 * plus COREDUMPD_* fields saying what coredumpd did. Where the entry goes is a sink: the journal in
 * the daemon, a capture in tests.
 */

#include <stddef.h>
#include <sys/uio.h>

#include "crash/crash.h"

#define COREDUMP_MESSAGE_ID "fc2e22bc6ee647b6b90729ab34a250b1"

struct record {
        struct iovec *fields;   /* each "FIELD=value" */
        size_t n;
};

/* Appends FIELD=value (formatted). Returns 0 or -ENOMEM. */
int record_add(struct record *r, const char *field, const char *format, ...) __attribute__((format(printf, 3, 4)));
/* Appends a "FIELD=value" datum as read from the journal (binary data stops at its first NUL). */
int record_add_raw(struct record *r, const void *data, size_t size);
/* The value of the first FIELD, or NULL. */
const char *record_get(const struct record *r, const char *field);
void record_done(struct record *r);

/* Builds the entry for a crash. */
int record_build(const struct crash *c, struct record *ret);

typedef int (*record_sink_fn)(const struct record *r, void *userdata);

/* Sends to the journal with sd_journal_sendv(). */
int record_sink_journal(const struct record *r, void *userdata);

/* Builds and sends; failures are logged with the crash's tag. */
void record_crash(const struct crash *c, record_sink_fn sink, void *userdata);
