/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * isa.h (aarch64): what the agent needs to know of the machine, in one
 * place: the registers of a thread stopped by ptrace(2), where a system
 * call's number, arguments and result go, the instruction that makes
 * one, and the stack's rules.  The rest of the agent names none of
 * them.  Chosen by the Makefile (-I isa/$(ISA)); not installed.
 *
 * Where arm64 differs from x86_64 for the agent:
 *  - the registers are read and written as two regsets: NT_PRSTATUS
 *    (x0-x30, sp, pc, pstate) and NT_ARM_SYSTEM_CALL (the number of the
 *    call the thread is in, -1 for none: the kernel's syscallno);
 *  - the kernel decides whether to restart an interrupted call BEFORE a
 *    thread stops in its signal code (do_signal()), and forgets that the
 *    thread was in a call (syscallno -1): a thread stopped there while
 *    blocked in a restartable call has pc AT its svc and x0 its first
 *    argument again (the kernel's orig_x0), ready to make the call anew;
 *    one whose call failed (EINTR) has pc after the svc, x0 -EINTR, x8
 *    the call's number, and its first argument is lost to us;
 *  - at a system-call stop the kernel shows x7 as 0 (entry) or 1 (exit)
 *    and puts the thread's own x7 back after it, whatever we write there.
 */
#ifndef	_ISA_H
#define	_ISA_H

#if !defined(__aarch64__)
#error "isa/aarch64/isa.h is for aarch64"
#endif

#include <elf.h>
#include <errno.h>
#include <linux/audit.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>

#ifndef	NT_ARM_SYSTEM_CALL
#define	NT_ARM_SYSTEM_CALL	0x404
#endif

/* A thread's registers: its NT_PRSTATUS and NT_ARM_SYSTEM_CALL regsets. */
typedef struct isa_regs {
	struct user_regs_struct	ir_gp;	/* x0-x30, sp, pc, pstate */
	int			ir_syscallno;	/* -1: in no call */
} isa_regs_t;

/* Those of a thread stopped by ptrace: 0, or -1 with errno. */
static inline int
isa_getregs(pid_t tid, isa_regs_t *r)
{
	struct iovec gp = { &r->ir_gp, sizeof (r->ir_gp) };
	struct iovec nr = { &r->ir_syscallno, sizeof (r->ir_syscallno) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &gp) != 0 ||
	    ptrace(PTRACE_GETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL,
	    &nr) != 0)
		return (-1);
	return (0);
}

static inline int
isa_setregs(pid_t tid, const isa_regs_t *r)
{
	struct iovec gp = { (void *)&r->ir_gp, sizeof (r->ir_gp) };
	struct iovec nr = { (void *)&r->ir_syscallno,
	    sizeof (r->ir_syscallno) };

	if (ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &gp) != 0 ||
	    ptrace(PTRACE_SETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL,
	    &nr) != 0)
		return (-1);
	return (0);
}

#define	ISA_PSR_MODE32	0x10	/* pstate: the thread runs AArch32 code */

/* Does the thread run 64-bit code? */
static inline int
isa_native(const isa_regs_t *r)
{
	return ((r->ir_gp.pstate & ISA_PSR_MODE32) == 0);
}

/* The system call instruction: svc #0, d4000001, 4-aligned. */
#define	ISA_SYSCALL_LEN		4
#define	ISA_INSN_ALIGN		4

static inline int
isa_is_syscall(const uint8_t *p)
{
	return (p[0] == 0x01 && p[1] == 0x00 && p[2] == 0x00 && p[3] == 0xd4);
}

/*
 * Of the process's ELF header (e_machine) and its seccomp_data (arch);
 * the compat ISA is that of 32-bit (AArch32) processes.
 */
#define	ISA_ELF_CLASS		ELFCLASS64
#define	ISA_ELF_MACHINE		EM_AARCH64
#define	ISA_AUDIT_ARCH		AUDIT_ARCH_AARCH64
#define	ISA_AUDIT_ARCH_COMPAT	AUDIT_ARCH_ARM
#define	ISA_NAME		"64-bit aarch64"

/* The end of user space (48-bit addresses; 52-bit ones only on request). */
#define	ISA_USER_END		0x1000000000000ULL

/* The stack: no red zone below sp; sp 16-aligned. */
#define	ISA_STACK_REDZONE	0
#define	ISA_STACK_ALIGN		16

static inline uint64_t
isa_pc(const isa_regs_t *r)
{
	return (r->ir_gp.pc);
}

static inline void
isa_set_pc(isa_regs_t *r, uint64_t pc)
{
	r->ir_gp.pc = pc;
}

static inline uint64_t
isa_sp(const isa_regs_t *r)
{
	return (r->ir_gp.sp);
}

/*
 * Is the thread stopped inside a system call?  Known at system-call
 * stops only: in the kernel's signal code the kernel has already
 * forgotten it (see the top of this file).
 */
static inline int
isa_in_syscall(const isa_regs_t *r)
{
	return (r->ir_syscallno != -1);
}

/* The call a thread at a system-call stop is in. */
static inline long long
isa_syscall_nr(const isa_regs_t *r)
{
	return (r->ir_syscallno);
}

/*
 * The svc the call a stopped thread is in came through: none that the
 * agent may use.  A thread stopped in the kernel's signal code while
 * in a call that is to be restarted has pc at that svc, and the kernel,
 * when the thread next leaves the stop, turns a call made at that very
 * address into restart_syscall (x8) where the interrupted call asked for
 * it (nanosleep): the agent's first call would be that one.  The vDSO's
 * svc is used instead.
 */
static inline uint64_t
isa_parked_insn(const isa_regs_t *r)
{
	return (0);
}

/*
 * The call that failed with EINTR on its way into this stop and that the
 * thread can be made to restart: none, as its first argument is lost
 * (x0 holds -EINTR; the kernel's orig_x0 is in no regset).  The call
 * fails with EINTR, as after any stop.
 */
static inline long long
isa_eintr_call(const isa_regs_t *r)
{
	return (-1);
}

/*
 * What the agent gives back exactly on this ISA (the tests ask): no call
 * that failed with EINTR is restarted (above); and a call the kernel
 * restarts through restart_syscall (nanosleep), when a batch ran at the
 * stop that interrupted it, is made again whole, from the svc with its
 * own arguments: the registers a batch saves there still hold the call's
 * own number, restart_syscall not yet chosen.  A thread seized and let go
 * with no batch restarts exactly, and so does one that a batch takes back
 * in restart_syscall (lent after the agent's first stop, it was let go
 * there): which of the two a batch meets is a matter of timing.
 */
#define	ISA_RESTARTS_EINTR	0
#define	ISA_KEEPS_RESTART_BLOCK	0

/*
 * Does isa_in_syscall() know, at a stop in the kernel's signal code?  No:
 * the agent reads the rseq area of a thread parked in a call too (one
 * pread a batch), as it cannot tell it from one in user code.
 */
#define	ISA_PARKED_CALL_KNOWN	0

static inline void
isa_set_restart(isa_regs_t *r)
{
}

/* A call's result (-errno on failure), once it has returned. */
static inline long long
isa_retval(const isa_regs_t *r)
{
	return ((long long)r->ir_gp.regs[0]);
}

/* Argument i (0 to 5) of the call the thread is in: x0-x5. */
static inline uint64_t
isa_syscall_arg(const isa_regs_t *r, int i)
{
	return (r->ir_gp.regs[i >= 0 && i < 6 ? i : 5]);
}

/*
 * Registers that make the thread, resumed at pc (an svc), call nr (x8)
 * with args (x0-x5) on the stack sp, with no restart of an interrupted
 * call (syscallno -1: the kernel's signal code, which runs when the
 * thread leaves its stop, then leaves pc and x0 alone).  x7 is the
 * thread's own: the kernel keeps it across the system-call stops.
 */
static inline void
isa_set_call(isa_regs_t *r, uint64_t pc, int nr, const uint64_t args[6],
    uint64_t sp)
{
	r->ir_gp.pc = pc;
	r->ir_gp.regs[8] = (uint64_t)(unsigned)nr;
	r->ir_syscallno = -1;
	for (int i = 0; i < 6; i++)
		r->ir_gp.regs[i] = args[i];
	r->ir_gp.sp = sp;
}

/*
 * Has the call made with isa_set_call() at pc come back from the kernel
 * (the thread stopped just after the instruction, in call nr)?
 */
static inline int
isa_call_done(const isa_regs_t *r, uint64_t pc, int nr)
{
	return (r->ir_gp.pc == pc + ISA_SYSCALL_LEN && r->ir_syscallno == nr);
}

#endif	/* _ISA_H */
