/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The request/ack/mark exchange of the coredump socket protocol:
 *
 *   kernel → us   struct coredump_req   (size may differ from ours: peek it, read what we know,
 *                                        discard the rest; shorter than 16 bytes lacks the mask)
 *   us → kernel   struct coredump_ack   exactly min(sizeof ack, req.size_ack) bytes
 *   kernel → us   u32 mark              REQACK, or why the ack was refused
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/abi.h"
#include "shared/names.h"

/* A request larger than this is not from a kernel we can talk to. */
#define COREDUMP_REQ_SIZE_MAX 4096U

/* The bits every flexible-coredump kernel offers and without which we cannot decide. */
#define COREDUMP_REQ_NEEDED (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT)

struct coredump_request {
        uint32_t size;          /* as sent by the kernel */
        uint32_t size_ack;
        uint64_t mask;
};

/* Parses the first min(size, 16) bytes of a request. -EBADMSG: too short to hold a mask, or an
 * absurd size; -EPROTO: size_ack too small for any ack. */
int request_parse(const void *data, size_t n, struct coredump_request *ret);

/* -EOPNOTSUPP if the kernel does not offer every COREDUMP_REQ_NEEDED bit. */
int request_check_mask(const struct coredump_request *req);

/* Reads a request from a blocking socket: peek the header, read, discard extra bytes. Returns
 * -ECONNRESET on EOF before the request was complete, the errno of a failed recv, or those of
 * request_parse(). */
int request_receive(int fd, struct coredump_request *ret);

/* Builds the ack for an action; the WAIT bit only if wanted and offered. Returns the byte count
 * to send, or -EOPNOTSUPP if the kernel did not offer the action. */
int ack_build(const struct coredump_request *req, enum action action, bool wait, struct coredump_ack *ret);
int ack_send(int fd, const struct coredump_ack *ack, size_t size);

/* Reads the kernel's u32 mark. -ECONNRESET on EOF. */
int mark_receive(int fd, uint32_t *ret);
