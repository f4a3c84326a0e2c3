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
#include <errno.h>
#include <linux/audit.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>

/* A thread's registers (PTRACE_GETREGS). */
typedef struct user_regs_struct isa_regs_t;

/* Those of a thread stopped by ptrace: 0, or -1 with errno. */
static inline int
isa_getregs(pid_t tid, isa_regs_t *r)
{
	return (ptrace(PTRACE_GETREGS, tid, NULL, r) != 0 ? -1 : 0);
}

static inline int
isa_setregs(pid_t tid, const isa_regs_t *r)
{
	return (ptrace(PTRACE_SETREGS, tid, NULL, r) != 0 ? -1 : 0);
}

/* Does the thread run 64-bit code (%cs of 64-bit user code)? */
static inline int
isa_native(const isa_regs_t *r)
{
	return (r->cs == 0x33);
}

/* The system call instruction: syscall, 0f 05, at any byte. */
#define	ISA_SYSCALL_LEN		2
#define	ISA_INSN_ALIGN		1

static inline int
isa_is_syscall(const uint8_t *p)
{
	return (p[0] == 0x0f && p[1] == 0x05);
}

/*
 * Of the process's ELF header (e_machine) and its seccomp_data (arch);
 * the compat ISA is that of 32-bit processes (and int $0x80).
 */
#define	ISA_ELF_CLASS		ELFCLASS64
#define	ISA_ELF_MACHINE		EM_X86_64
#define	ISA_AUDIT_ARCH		AUDIT_ARCH_X86_64
#define	ISA_AUDIT_ARCH_COMPAT	AUDIT_ARCH_I386
#define	ISA_NAME		"64-bit x86_64"

/* The end of user space (47-bit addresses; 56-bit ones only on request). */
#define	ISA_USER_END		0x800000000000ULL

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
 * A thread stopped in the kernel's signal code (our interrupt's stop, a
 * group stop) stops there before the kernel decides whether to restart a
 * call it was in: rax then holds -ERESTARTSYS (or another -ERESTART code)
 * or the call's result, orig_rax the call's number (-1: in no call), and
 * rip is just after its syscall instruction.
 */
static inline int
isa_in_syscall(const isa_regs_t *r)
{
	return ((long long)r->orig_rax != -1);
}

/* The call a thread at a system-call stop is in. */
static inline long long
isa_syscall_nr(const isa_regs_t *r)
{
	return ((long long)r->orig_rax);
}

/*
 * The syscall instruction the call a stopped thread is in came through,
 * to be confirmed by reading it; 0 when it is in none.
 */
static inline uint64_t
isa_parked_insn(const isa_regs_t *r)
{
	return (isa_in_syscall(r) ? r->rip - ISA_SYSCALL_LEN : 0);
}

/*
 * The call that failed with EINTR on its way into this stop and that the
 * thread can be made to restart (isa_set_restart), or -1.
 */
static inline long long
isa_eintr_call(const isa_regs_t *r)
{
	if ((long long)r->rax != -EINTR)
		return (-1);
	return ((long long)r->orig_rax);
}

/*
 * What the agent gives back exactly on this ISA (the tests ask): a call
 * our stop made fail with EINTR is restarted; a call restarted through
 * restart_syscall (nanosleep) after a batch sleeps only what it had left.
 */
#define	ISA_RESTARTS_EINTR	1
#define	ISA_KEEPS_RESTART_BLOCK	1

#define	ISA_ERESTARTNOHAND	514	/* the kernel's, not in <errno.h> */

/*
 * Make the kernel restart that call when the thread leaves its stop,
 * unless a signal handler is to run first (then the call fails with EINTR,
 * as it would have anyway): -ERESTARTNOHAND, read after the stop.
 */
static inline void
isa_set_restart(isa_regs_t *r)
{
	r->rax = (unsigned long long)-ISA_ERESTARTNOHAND;
}

/* A call's result (-errno on failure), once it has returned. */
static inline long long
isa_retval(const isa_regs_t *r)
{
	return ((long long)r->rax);
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
