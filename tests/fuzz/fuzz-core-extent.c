/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ELF headers of a streamed core, fed in two arbitrary pieces. */
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/core-extent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct core_extent whole, split;
        uint64_t a = 0, b = 0;

        if (size == 0)
                return 0;
        size_t cut = data[0] % size;

        core_extent_init(&whole);
        core_extent_feed(&whole, data, size);
        core_extent_init(&split);
        core_extent_feed(&split, data, cut);
        core_extent_feed(&split, data + cut, size - cut);

        bool known = core_extent_known(&whole, &a);
        if (known != core_extent_known(&split, &b) || a != b)
                __builtin_trap();
        core_extent_done(&whole);
        core_extent_done(&split);
        return 0;
}
