/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The ELF container of a self-generated core, written with libelf: the ELF header (ET_CORE,
 * x86-64), the program headers — PT_NOTE first, then one PT_LOAD per memory segment — and the notes
 * (as an SHT_NOTE section that the PT_NOTE segment covers, the way gdb's gcore lays them out).
 *
 * Only the headers and notes go through libelf, into a small seekable file; the memory segments
 * follow back to back from the returned data offset and are streamed by the caller, so a large dump
 * never has to sit in memory.
 */

#include <stddef.h>
#include <stdint.h>

#define CORE_MAX_SEGMENTS 65000U

struct core_segment {
        uint64_t vaddr, size;   /* page-aligned; size: the bytes in the core (p_filesz) */
        uint64_t mem_size;      /* p_memsz, at least size: the mapping the segment covers */
        uint32_t flags;         /* PF_R | PF_W | PF_X */
};

/* Writes into fd (empty, seekable). *ret_data_offset: where segment 0's bytes go (page-aligned);
 * segment i follows segment i-1. */
int core_elf_write_headers(int fd, const void *notes, size_t notes_size, const struct core_segment *segments,
                           size_t n_segments, uint64_t page_size, uint64_t *ret_data_offset);
