/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * isa_rseq.h (aarch64): restartable sequences written in the machine's
 * own instructions, for the tests (atf/harm_helper.c): the agent itself
 * writes no code.  Not installed.
 */
#ifndef	_ISA_RSEQ_H
#define	_ISA_RSEQ_H

#include <stdint.h>

/*
 * One critical section: store its descriptor's address in *csp (the rseq
 * area's rseq_cs), spin n times, read rseq_cs back into *cs, and commit by
 * returning 1 as its last instruction; its abort handler (signed with
 * glibc's RSEQ_SIG, the instruction brk #0x45e0) returns 0.
 */
static inline long
isa_rseq_section(volatile uint64_t *csp, long n, uint64_t *cs)
{
	long ok;

	uint64_t tmp, cnt;

	__asm__ __volatile__(
	    "adrp %[tmp], 3f\n\t"
	    "add %[tmp], %[tmp], :lo12:3f\n\t"
	    "str %[tmp], [%[csp]]\n"
	    "1:\n\t"
	    "mov %[cnt], %[n]\n"
	    "2:\n\t"
	    "subs %[cnt], %[cnt], #1\n\t"
	    "b.ne 2b\n\t"
	    "ldr %[cs], [%[csp]]\n\t"
	    "mov %[ok], #1\n"
	    "4:\n\t"
	    "b 6f\n\t"
	    ".pushsection __rseq_cs, \"aw\"\n\t"
	    ".balign 32\n"
	    "3:\n\t"
	    ".long 0, 0\n\t"
	    ".quad 1b, 4b - 1b, 5f\n\t"
	    ".popsection\n\t"
	    ".pushsection __rseq_failure, \"ax\"\n\t"
	    ".inst 0xd428bc00\n"
	    "5:\n\t"
	    "mov %[ok], #0\n\t"
	    "b 6f\n\t"
	    ".popsection\n"
	    "6:\n\t"
	    : [ok] "=&r" (ok), [cs] "+&r" (*cs), [tmp] "=&r" (tmp),
	      [cnt] "=&r" (cnt)
	    : [csp] "r" (csp), [n] "r" (n)
	    : "memory", "cc");
	return (ok);
}

/*
 * An instruction that traps, and glibc's RSEQ_SIG as the word the kernel
 * wants just before an abort handler, for sections written in assembly.
 */
#define	ISA_RSEQ_TRAP	"brk #0"
#define	ISA_RSEQ_SIGN	".inst 0xd428bc00"

#endif	/* _ISA_RSEQ_H */
