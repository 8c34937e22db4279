/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "crash/protocol.h"
#include "shared/cleanup.h"

int request_parse(const void *data, size_t n, struct coredump_request *ret) {
        struct coredump_req wire = {};

        if (n < COREDUMP_REQ_HEADER_SIZE)
                return -EBADMSG;
        memcpy(&wire, data, MIN(n, sizeof wire));

        /* We must have read what the kernel announced, up to what we know. */
        if (n < MIN((size_t) wire.size, sizeof wire))
                return -EBADMSG;
        if (wire.size < COREDUMP_REQ_SIZE_VER0 || wire.size > COREDUMP_REQ_SIZE_MAX)
                return -EBADMSG;
        if (wire.size_ack < COREDUMP_ACK_SIZE_VER0)
                return -EPROTO;

        *ret = (struct coredump_request) {
                .size = wire.size,
                .size_ack = wire.size_ack,
                .mask = wire.mask,
        };
        return 0;
}

int request_check_mask(const struct coredump_request *req) {
        return (req->mask & COREDUMP_REQ_NEEDED) == COREDUMP_REQ_NEEDED ? 0 : -EOPNOTSUPP;
}

static bool peer_has_hung_up(int fd) {
        struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
        return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* recv() exactly n bytes (MSG_WAITALL may still return short on signals or shutdown). */
static int recv_exact(int fd, void *buf, size_t n, int flags) {
        size_t done = 0;

        while (done < n) {
                ssize_t k = recv(fd, (char *) buf + done, n - done, flags | MSG_WAITALL);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        return -ECONNRESET;
                if (flags & MSG_PEEK) {
                        /* A peek always starts at the front. MSG_WAITALL returns short only at
                         * end of stream (or on a signal): tell the two apart. */
                        if ((size_t) k >= n)
                                return 0;
                        if (peer_has_hung_up(fd))
                                return -ECONNRESET;
                        continue;
                }
                done += (size_t) k;
        }
        return 0;
}

static int discard_bytes(int fd, size_t n) {
        char scratch[512];

        while (n > 0) {
                size_t chunk = MIN(n, sizeof scratch);
                int r = recv_exact(fd, scratch, chunk, 0);
                if (r < 0)
                        return r;
                n -= chunk;
        }
        return 0;
}

int request_receive(int fd, struct coredump_request *ret) {
        struct coredump_req wire;
        int r;

        r = recv_exact(fd, &wire, COREDUMP_REQ_HEADER_SIZE, MSG_PEEK);
        if (r < 0)
                return r;
        if (wire.size < COREDUMP_REQ_SIZE_VER0 || wire.size > COREDUMP_REQ_SIZE_MAX)
                return -EBADMSG; /* lacks the mask, or nonsense: refuse without reading on */

        r = recv_exact(fd, &wire, sizeof wire, 0);
        if (r < 0)
                return r;
        r = discard_bytes(fd, wire.size - sizeof wire);
        if (r < 0)
                return r;

        return request_parse(&wire, sizeof wire, ret);
}

int ack_build(const struct coredump_request *req, enum action action, bool wait, struct coredump_ack *ret) {
        static const uint64_t action_bits[_ACTION_MAX] = {
                [ACTION_KERNEL] = COREDUMP_KERNEL,
                [ACTION_USERSPACE] = COREDUMP_USERSPACE,
                [ACTION_REJECT] = COREDUMP_REJECT,
        };

        if (action < 0 || action >= _ACTION_MAX || !(req->mask & action_bits[action]))
                return -EOPNOTSUPP;

        size_t size = MIN(sizeof *ret, (size_t) req->size_ack);
        *ret = (struct coredump_ack) {
                .size = (uint32_t) size,
                .mask = action_bits[action] | (wait ? (req->mask & COREDUMP_WAIT) : 0),
        };
        return (int) size;
}

int ack_send(int fd, const struct coredump_ack *ack, size_t size) {
        size_t done = 0;

        while (done < size) {
                ssize_t k = send(fd, (const char *) ack + done, size - done, MSG_NOSIGNAL);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                done += (size_t) k;
        }
        return 0;
}

int mark_receive(int fd, uint32_t *ret) {
        uint32_t mark;
        int r = recv_exact(fd, &mark, sizeof mark, 0);
        if (r < 0)
                return r;
        *ret = mark;
        return 0;
}
