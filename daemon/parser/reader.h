/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* `coredumpd-parser --reader` (parser/wire.h): the cell's side. Returns the exit status. */
int reader_main(void);
