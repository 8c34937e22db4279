/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the store's files share among themselves, not with their callers. */

/* More than the kernel queues on a coredump socket (its send buffer, wmem_default); the unit of
 * every copy into the store. */
#define STREAM_BUFFER_SIZE (256 * 1024)
/* A stored core, and a file kept beside it: root's, read by its user through an ACL. */
#define CORE_FILE_MODE 0640
