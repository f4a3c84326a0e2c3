/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * isa.h (x86_64): what the agent needs to know of the machine, in one
 * place: the registers of a thread stopped by ptrace(2), where a system
 * call's number, arguments and result go, the instruction that makes
 * one, and the stack's rules.  The rest of the agent names none of
 * them.  Chosen by the Makefile (-I isa/$(ISA)); not installed.
 */
#ifndef	_ISA_H
#define	_ISA_H

#if !defined(__x86_64__)
#error "isa/x86_64/isa.h is for x86_64: the agent has no other ISA yet"
#endif

#include <elf.h>
#include <linux/audit.h>
#include <stdint.h>
#include <string.h>
#include <sys/user.h>

/* A thread's registers (PTRACE_GETREGS). */
typedef struct user_regs_struct isa_regs_t;

/* The system call instruction: syscall, 0f 05. */
#define	ISA_SYSCALL_LEN		2

static inline int
isa_is_syscall(const uint8_t *p)
{
	return (p[0] == 0x0f && p[1] == 0x05);
}

/* Of the process's ELF header (e_machine) and its seccomp_data (arch). */
#define	ISA_ELF_CLASS		ELFCLASS64
#define	ISA_ELF_MACHINE		EM_X86_64
#define	ISA_AUDIT_ARCH		AUDIT_ARCH_X86_64
#define	ISA_NAME		"64-bit x86_64"

/* The stack: the ABI's red zone below sp, and sp's alignment at a call. */
#define	ISA_STACK_REDZONE	128
#define	ISA_STACK_ALIGN		16

static inline uint64_t
isa_pc(const isa_regs_t *r)
{
	return (r->rip);
}

static inline void
isa_set_pc(isa_regs_t *r, uint64_t pc)
{
	r->rip = pc;
}

static inline uint64_t
isa_sp(const isa_regs_t *r)
{
	return (r->rsp);
}

/*
 * The call a thread stopped in a system call is in (orig_rax), or -1 when
 * it is in none; as the kernel sets it on entry.
 */
static inline long long
isa_syscall_nr(const isa_regs_t *r)
{
	return ((long long)r->orig_rax);
}

/* A call's result (-errno on failure), once it has returned. */
static inline long long
isa_retval(const isa_regs_t *r)
{
	return ((long long)r->rax);
}

static inline void
isa_set_retval(isa_regs_t *r, long long v)
{
	r->rax = (unsigned long long)v;
}

/* Argument i (0 to 5) of the call the thread is in. */
static inline uint64_t
isa_syscall_arg(const isa_regs_t *r, int i)
{
	switch (i) {
	case 0:
		return (r->rdi);
	case 1:
		return (r->rsi);
	case 2:
		return (r->rdx);
	case 3:
		return (r->r10);
	case 4:
		return (r->r8);
	default:
		return (r->r9);
	}
}

/*
 * Registers that make the thread, resumed at pc (a syscall instruction),
 * call nr with args on the stack sp, with no restart of an interrupted
 * call (orig_rax -1).
 */
static inline void
isa_set_call(isa_regs_t *r, uint64_t pc, int nr, const uint64_t args[6],
    uint64_t sp)
{
	r->rip = pc;
	r->rax = (unsigned long long)nr;
	r->orig_rax = (unsigned long long)-1;
	r->rdi = args[0];
	r->rsi = args[1];
	r->rdx = args[2];
	r->r10 = args[3];
	r->r8 = args[4];
	r->r9 = args[5];
	r->rsp = sp;
}

/*
 * Has the call made with isa_set_call() at pc come back from the kernel
 * (the thread stopped just after the instruction, in call nr)?
 */
static inline int
isa_call_done(const isa_regs_t *r, uint64_t pc, int nr)
{
	return (r->rip == pc + ISA_SYSCALL_LEN &&
	    r->orig_rax == (unsigned long long)(unsigned)nr);
}

#endif	/* _ISA_H */
