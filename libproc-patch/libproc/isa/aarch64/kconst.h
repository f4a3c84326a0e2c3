/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kconst.h (aarch64): the kernel's constants that the BPF program (which
 * reads the kernel's own values) and user space (which prints them:
 * the formatter's flag names, the endpoints' TCP states) must agree on,
 * written once.  They are the kernel's numbers on this ISA, not the C
 * library's: arm64 uses include/uapi/asm-generic/fcntl.h but for four
 * open flags of its own (arch/arm64/include/uapi/asm/fcntl.h), and
 * asm-generic/errno-base.h.  Names carry K_ so that they never meet
 * libc's macros.
 * Included by the BPF program (clang -target bpf, for this machine's
 * kernel) and by C; chosen by the Makefile (-I isa/$(ISA)).
 */
#ifndef	_KCONST_H
#define	_KCONST_H

#if !defined(__aarch64__) && !defined(__bpf__)
#error "isa/aarch64/kconst.h holds aarch64's kernel constants only"
#endif

/* arch/arm64/include/uapi/asm/fcntl.h: the open flags whose values differ */
#define	K_O_DIRECTORY	00040000
#define	K_O_NOFOLLOW	00100000
#define	K_O_DIRECT	00200000
#define	K_O_LARGEFILE	00400000

#include "../kconst_generic.h"

#endif	/* _KCONST_H */
