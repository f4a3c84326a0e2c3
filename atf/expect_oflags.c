/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * expect_oflags.c: the one open flag the C library does not name for
 * 64-bit programs, O_LARGEFILE, as the kernel's uapi header of the
 * compiler's target defines it (asm-generic's, or the machine's own, as
 * arm64's).  Apart from expect.c: that header and <fcntl.h> cannot be
 * included together.
 */
#include <asm/fcntl.h>

#include "expect.h"

const int expect_o_largefile = O_LARGEFILE;
