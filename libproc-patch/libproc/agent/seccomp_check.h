/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * seccomp_check.h: what a thread's seccomp filters would do with a
 * system call, worked out without making it.  A pure module: no system
 * calls, no I/O, no global state, so that it can be unit-tested
 * (atf/t_seccomp.c) and fuzzed (fuzz/seccomp.c) on its own.  The agent
 * (agent_seccomp.c) reads the filters and asks this module before it
 * injects anything.
 *
 * The facts it relies on are the kernel's (Documentation/userspace-api/
 * seccomp_filter.rst, seccomp(2), and kernel/seccomp.c and the classic
 * BPF checker of net/core/filter.c, which they describe):
 *
 *  - A filter is a classic BPF program of 1 to 4096 instructions run
 *    on a struct seccomp_data (64 bytes: nr, arch, instruction_pointer,
 *    args[6], in the host's byte order).  A and X start at 0.  Its
 *    return value is an action (the high 16 bits, SECCOMP_RET_ACTION_FULL)
 *    and data (the low 16 bits).
 *
 *  - The kernel accepts a filter only if (sc_validate checks each rule):
 *    every instruction is one of the list below, with its exact code;
 *    a load from seccomp_data is a 32-bit word at an offset below 64 and
 *    a multiple of 4; a scratch word M[k] has k < 16 and is never read
 *    on a path before it is written; a division by a constant is not by
 *    0, and a shift by a constant is by less than 32; every jump lands
 *    inside the program (jt, jf and ja's k count instructions after the
 *    next one, so jumps only go forward); the last instruction is a
 *    return.  Since jumps only go forward and the last instruction
 *    returns, every path ends in a return, and a program of n
 *    instructions runs at most n steps.
 *
 *	BPF_LD|BPF_W|BPF_ABS	A = word at k of seccomp_data
 *	BPF_LD|BPF_W|BPF_LEN	A = 64;  BPF_LDX|BPF_W|BPF_LEN: X = 64
 *	BPF_LD|BPF_IMM		A = k;   BPF_LDX|BPF_IMM: X = k
 *	BPF_LD|BPF_MEM		A = M[k]; BPF_LDX|BPF_MEM: X = M[k]
 *	BPF_ST, BPF_STX		M[k] = A, M[k] = X
 *	BPF_ALU ADD SUB MUL DIV AND OR XOR LSH RSH, with K or X; NEG
 *				(32-bit, unsigned)
 *	BPF_MISC|BPF_TAX	X = A;  BPF_MISC|BPF_TXA: A = X
 *	BPF_JMP|BPF_JA		pc += k
 *	BPF_JMP JEQ JGT JGE JSET, with K or X (unsigned; JSET: A & operand)
 *	BPF_RET|BPF_K		return k;  BPF_RET|BPF_A: return A
 *
 *    A division by an X of 0 ends the program with the return value 0
 *    (SECCOMP_RET_KILL_THREAD), as the kernel's translation of classic
 *    BPF does.  A shift by an X of 32 or more has no defined result in
 *    classic BPF: sc_run refuses to guess it (SC_ESHIFT).
 *
 *  - All the filters of the thread run on every call, and the action
 *    of the highest precedence wins; among filters that give the same
 *    action, the most recently installed one's data is kept.  The
 *    precedence is the order of the action values as signed 32-bit
 *    numbers, lowest first:
 *	KILL_PROCESS > KILL_THREAD > TRAP > ERRNO > USER_NOTIF > TRACE >
 *	LOG > ALLOW.
 *    A value that is none of these takes its place in that order by its
 *    value, and the kernel kills the process for it.
 *
 * sc_run also knows BPF_LD|BPF_H|BPF_ABS and BPF_LD|BPF_B|BPF_ABS (16
 * and 8 bits at k, host byte order, k a multiple of the size) so that it
 * is total over the loads of classic BPF; the kernel refuses both in a
 * seccomp filter, and so does sc_validate, so they never decide what
 * the agent does.  Every other instruction (the BPF_IND and BPF_MSH
 * loads, BPF_MOD, BPF_RET|BPF_X, unknown codes) is SC_EINSN.
 *
 * Known and unknown input.  Some arguments of a call the agent is about
 * to inject are not known yet (the address of an object it has not
 * placed, the fd a call before it will return).  Each 32-bit word of the
 * input says whether it is known; a run that loads an unknown word stops
 * with SC_UNKNOWN: its result could depend on it, so nothing is proven.
 */
#ifndef	_SECCOMP_CHECK_H
#define	_SECCOMP_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>

#define	SC_MAXINSNS	4096	/* BPF_MAXINSNS */
#define	SC_MEMWORDS	16	/* BPF_MEMWORDS */
#define	SC_DATALEN	64	/* sizeof (struct seccomp_data) */
#define	SC_NWORDS	(SC_DATALEN / 4)
#define	SC_ALLKNOWN	0xffffU	/* every word known */

/* The input of a run: a struct seccomp_data, and what of it is known. */
typedef struct sc_input {
	uint8_t		si_data[SC_DATALEN];	/* host byte order */
	uint16_t	si_known;	/* bit w: bytes [4w, 4w + 4) known */
} sc_input_t;

/*
 * Make an input: system call nr of architecture arch (AUDIT_ARCH_*),
 * made by the instruction before ip, with args; argknown bit i says
 * whether args[i] is known (both of its words).  nr, arch and ip are
 * known.
 */
extern void sc_input_make(sc_input_t *, int, uint32_t, uint64_t,
    const uint64_t[6], unsigned);

/* Results of sc_validate and sc_run. */
#define	SC_OK		0
#define	SC_UNKNOWN	1	/* run: loaded a word that is not known */
#define	SC_ELEN		2	/* not 1 to SC_MAXINSNS instructions */
#define	SC_EINSN	3	/* an instruction no seccomp filter has */
#define	SC_ELOAD	4	/* a load outside seccomp_data, or unaligned */
#define	SC_EMEM		5	/* M[k] with k >= 16, or read before written */
#define	SC_EDIV		6	/* a division by the constant 0 */
#define	SC_ESHIFT	7	/* a shift by 32 or more */
#define	SC_EJUMP	8	/* a jump out of the program */
#define	SC_ENORET	9	/* no return at the end (run: ran off it) */
#define	SC_ESTEPS	10	/* more steps than instructions: impossible */

typedef struct sc_fault {
	int		sf_code;	/* one of the above */
	uint32_t	sf_pc;		/* the instruction at fault */
	uint32_t	sf_steps;	/* sc_run: instructions run, <= n */
} sc_fault_t;

/* The words of a result ("an instruction a seccomp filter cannot..."). */
extern const char *sc_strerror(int);

/*
 * Would the kernel accept prog[0..n) as a seccomp filter?  SC_OK, or
 * the first rule broken and where (*f, when f is not NULL).
 */
extern int sc_validate(const struct sock_filter *, size_t, sc_fault_t *);

/*
 * Run prog[0..n) on in.  SC_OK with the return value in *retp, or why
 * not (in *f, when f is not NULL); *retp is then 0.  Checks every rule of
 * sc_validate that a run can meet, whatever prog is, and stops after n
 * steps at most.
 */
extern int sc_run(const struct sock_filter *, size_t, const sc_input_t *,
    uint32_t *, sc_fault_t *);

/* The actions, highest precedence first. */
typedef enum sc_action {
	SC_ACT_KILL_PROCESS,
	SC_ACT_KILL_THREAD,
	SC_ACT_TRAP,
	SC_ACT_ERRNO,
	SC_ACT_USER_NOTIF,
	SC_ACT_TRACE,
	SC_ACT_LOG,
	SC_ACT_ALLOW,
	SC_ACT_OTHER	/* a value the kernel does not know: it kills */
} sc_action_t;

/* The action of a return value, and its name ("KILL_PROCESS"). */
extern sc_action_t sc_action(uint32_t);
extern const char *sc_action_name(sc_action_t);

/*
 * The result of several filters' return values, rets[0] the most
 * recently installed filter's: SECCOMP_RET_ALLOW when n is 0.
 */
extern uint32_t sc_combine(const uint32_t *, size_t);

/*
 * May the agent make a call whose combined result is ret?  ALLOW and LOG
 * run it; ERRNO makes it fail, which is only a missing fact, and is
 * accepted when errno_ok is set -- except with an errno of 0, which
 * makes the call seem to succeed without doing anything.  Anything else
 * (a kill, a trap, a user-space supervisor, a tracer) is refused.
 */
extern int sc_permits(uint32_t, int);

/* One filter. */
typedef struct sc_prog {
	const struct sock_filter *sp_insns;
	size_t		sp_len;
} sc_prog_t;

/*
 * Every filter of progs[0..n) (progs[0] the most recently installed) run
 * on in and their results combined.  SC_OK with the result in *retp, or
 * the first failure: its code, *f, and *whichp the filter's index.
 */
extern int sc_judge(const sc_prog_t *, size_t, const sc_input_t *,
    uint32_t *, sc_fault_t *, size_t *);

#endif	/* _SECCOMP_CHECK_H */
