/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel's request as bytes: parse it, and build every ack it allows. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "crash/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct coredump_request req;
        struct coredump_ack ack;

        if (request_parse(data, size, &req) < 0)
                return 0;
        (void) request_check_mask(&req);
        for (int a = 0; a < _ACTION_MAX; a++)
                for (int wait = 0; wait < 2; wait++) {
                        int n = ack_build(&req, (enum action) a, wait, &ack);
                        if (n >= 0 && ((size_t) n > sizeof ack || (ack.mask & ~req.mask)))
                                __builtin_trap();
                }
        return 0;
}
