/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * isa_rseq.h (x86_64): restartable sequences written in the machine's
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
 * glibc's RSEQ_SIG) returns 0.
 */
static inline long
isa_rseq_section(volatile uint64_t *csp, long n, uint64_t *cs)
{
	long ok;

	__asm__ __volatile__(
	    "leaq 3f(%%rip), %%rax\n\t"
	    "movq %%rax, (%[csp])\n\t"
	    "1:\n\t"
	    "movq %[n], %%rcx\n"
	    "2:\n\t"
	    "decq %%rcx\n\t"
	    "jnz 2b\n\t"
	    "movq (%[csp]), %[cs]\n\t"
	    "movq $1, %[ok]\n"
	    "4:\n\t"
	    "jmp 6f\n\t"
	    ".pushsection __rseq_cs, \"aw\"\n\t"
	    ".balign 32\n"
	    "3:\n\t"
	    ".long 0, 0\n\t"
	    ".quad 1b, 4b - 1b, 5f\n\t"
	    ".popsection\n\t"
	    ".pushsection __rseq_failure, \"ax\"\n\t"
	    ".long 0x53053053\n"
	    "5:\n\t"
	    "movq $0, %[ok]\n\t"
	    "jmp 6f\n\t"
	    ".popsection\n"
	    "6:\n\t"
	    : [ok] "=&r" (ok), [cs] "+&r" (*cs)
	    : [csp] "r" (csp), [n] "r" (n)
	    : "rax", "rcx", "memory", "cc");
	return (ok);
}

/*
 * An instruction that traps, and glibc's RSEQ_SIG as the word the kernel
 * wants just before an abort handler, for sections written in assembly.
 */
#define	ISA_RSEQ_TRAP	"ud2"
#define	ISA_RSEQ_SIGN	".long 0x53053053"

#endif	/* _ISA_RSEQ_H */
