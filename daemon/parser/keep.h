/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* `coredumpd-parser --keep-files` (parser/wire.h): the cell's side. Returns the exit status. */
int keep_files_main(void);
