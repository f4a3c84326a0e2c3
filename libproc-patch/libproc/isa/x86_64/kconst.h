/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kconst.h (x86_64): the kernel's constants that the BPF program (which
 * reads the kernel's own values) and user space (which prints them:
 * the formatter's flag names, the endpoints' TCP states) must agree on,
 * written once.  They are the kernel's numbers on this ISA, not the C
 * library's: x86_64 uses include/uapi/asm-generic/fcntl.h and
 * errno-base.h.  Names carry K_ so that they never meet libc's macros.
 * Included by the BPF program (clang -target bpf, for this machine's
 * kernel) and by C; chosen by the Makefile (-I isa/$(ISA)).
 */
#ifndef	_KCONST_H
#define	_KCONST_H

#if !defined(__x86_64__) && !defined(__bpf__)
#error "isa/x86_64/kconst.h holds x86_64's kernel constants only"
#endif

/* include/uapi/asm-generic/fcntl.h: the open flags whose values differ */
#define	K_O_DIRECT	00040000
#define	K_O_LARGEFILE	00100000
#define	K_O_DIRECTORY	00200000
#define	K_O_NOFOLLOW	00400000

#include "../kconst_generic.h"

#endif	/* _KCONST_H */
