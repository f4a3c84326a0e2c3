/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * marshal.h: the arguments of system calls run in a target, laid out in
 * the target's memory.  A pure module: no system calls, no I/O, no global
 * state, so that it can be unit-tested and fuzzed (fuzz/) on its own.
 *
 * The agent (agent.c) runs a batch of calls (psyscall_t, each with its
 * argdes_t) in one borrow of a thread.  Every by-reference object of the
 * whole batch goes into one contiguous block of the target's memory,
 * inside a scratch area that the agent chose: below the borrowed thread's
 * red zone (marshal_stack_area), or a private mapping.  Then:
 *
 *	marshal_plan()	checks every description and size, places the
 *			block in the area and computes each call's argument
 *			registers (a value, or the target address of the
 *			by-reference object);
 *	marshal_pack()	builds the image of the block: the agent writes it
 *			into the target with ONE write (m_size bytes at
 *			m_base; none when m_size is 0);
 *	...		the calls run; the agent reads the first m_outsize
 *			bytes of the block back with ONE read (none when
 *			m_outsize is 0);
 *	marshal_result() decodes each call's return register;
 *	marshal_unpack() scatters that image into the callers' output
 *			buffers, and clamps every length the target wrote.
 *
 * The block, addresses growing to the right:
 *
 *	m_sp == m_base                  m_base + m_outsize    m_base + m_size
 *	|  output objects (AI_OUTPUT,   |  input-only objects  |  <= ma_hi
 *	|  AI_INOUT), in call order     |  (AI_INPUT)          |
 *
 * Each object starts on a MARSHAL_OBJ_ALIGN boundary and owns at least
 * MARSHAL_OBJ_ALIGN bytes (a zero-size object too, so that every object
 * has an address of its own).  Output objects come first so that the one
 * read covers outputs only.  Output-only objects are zero in the image
 * (the target never sees stale bytes of the caller).
 *
 * Invariants, for a harness to check after a successful marshal_plan()
 * (every one is derived from the public fields below):
 *  - MARSHAL_MINADDR <= ma_lo <= m_base, m_base + m_size <= ma_hi <=
 *    MARSHAL_MAXADDR, and m_base + m_size does not wrap;
 *  - m_sp % MARSHAL_SP_ALIGN == 0 and m_sp <= m_base; with an area from
 *    marshal_stack_area(sp, ...), ma_hi <= sp - MARSHAL_REDZONE;
 *  - for each by-reference argument a of call c, the object
 *    [m_regs[c][a], m_regs[c][a] + arg_size) lies inside
 *    [m_base, m_base + m_size), and inside [m_base, m_base + m_outsize)
 *    when it is an output; no two objects overlap; each by-value
 *    argument's register is its arg_value (but see marshal_lenrules:
 *    a count is at most its buffer's size); registers past ps_nargs
 *    are 0;
 *  - after marshal_pack(), the bytes of each input object in the image
 *    equal the caller's object (but a length of marshal_lenrules is at
 *    most its buffer's size);
 *  - after marshal_unpack(), each output object holds the image's bytes,
 *    and no more than arg_size bytes were written to it; each length
 *    named by a rule of marshal_lenrules() is at most its buffer's size.
 *
 * An AT_RESULT argument takes no room, and its register in the plan is 0:
 * its value is known only once the earlier call it names has run
 * (marshal_args).
 *
 * Errors: EINVAL for an invalid description (bad arg_type or arg_inout,
 * an AT_RESULT naming this call or a later one,
 * arg_size > MAXARGL, NULL arg_object of a by-reference object with a
 * size, ps_nargs > MAXARGS or > MARSHAL_NREGS, a NULL ps_argp with
 * arguments, ps_sysindex < 0, more than MARSHAL_MAXCALLS calls) or area
 * (outside [MARSHAL_MINADDR, MARSHAL_MAXADDR], or ma_lo > ma_hi); ENOSPC
 * when the block does not fit in the area.
 */
#ifndef	_MARSHAL_H
#define	_MARSHAL_H

#include <stddef.h>
#include <stdint.h>

#include "isa.h"
#include "libproc.h"

#define	MARSHAL_NREGS		6	/* rdi, rsi, rdx, r10, r8, r9 */
#define	MARSHAL_MAXCALLS	64	/* calls in one batch */
#define	MARSHAL_OBJ_ALIGN	8	/* of each object in the block */
#define	MARSHAL_SP_ALIGN	ISA_STACK_ALIGN	/* of the stack pointer */
#define	MARSHAL_REDZONE		ISA_STACK_REDZONE /* the ABI's, below sp */
#define	MARSHAL_MINADDR		0x1000ULL	/* lowest area address */
#define	MARSHAL_MAXADDR		ISA_USER_END	/* end of user space */

/* The largest block: every argument of every call a maximal object. */
#define	MARSHAL_MAXBLOCK \
	((size_t)MARSHAL_MAXCALLS * MARSHAL_NREGS * MAXARGL)

/* A scratch area of the target: the addresses [ma_lo, ma_hi). */
typedef struct marshal_area {
	uint64_t	ma_lo;
	uint64_t	ma_hi;
} marshal_area_t;

/* A planned batch. */
typedef struct marshal {
	marshal_area_t	m_area;		/* the area it was planned in */
	uint_t		m_ncalls;
	uint64_t	m_base;		/* target address of the block */
	size_t		m_size;		/* bytes of the block: the write */
	size_t		m_outsize;	/* bytes from m_base: the read */
	uint64_t	m_sp;		/* stack pointer for the calls */
	uint64_t	m_regs[MARSHAL_MAXCALLS][MARSHAL_NREGS];
} marshal_t;

/*
 * The area below the red zone of a thread whose stack pointer is sp and
 * whose stack mapping starts at stack_lo: at most budget bytes, ending at
 * sp - MARSHAL_REDZONE rounded down to MARSHAL_SP_ALIGN.  0 or ENOSPC.
 */
extern int marshal_stack_area(uint64_t sp, uint64_t stack_lo, size_t budget,
    marshal_area_t *);

/*
 * Check the descriptions of a batch; 0 or EINVAL.  When sizep/outsizep
 * are not NULL they get the block's size and its output part: what an
 * area must hold (plus MARSHAL_SP_ALIGN for the alignment of the block).
 */
extern int marshal_check(const psyscall_t *, uint_t, size_t *, size_t *);

/* Plan a batch in an area: 0, EINVAL or ENOSPC; *m is set on success. */
extern int marshal_plan(marshal_t *, const marshal_area_t *,
    const psyscall_t *, uint_t);

/*
 * The image of the block (imagelen >= m_size bytes, of which m_size are
 * written) from the callers' input objects.  0, or EINVAL when calls do
 * not match the plan or the image is too small.
 */
extern int marshal_pack(const marshal_t *, const psyscall_t *, uint_t,
    void *, size_t);

/*
 * The argument registers of call c as it is about to run: the plan's,
 * with each AT_RESULT argument replaced by the result (sys_rval1) of the
 * earlier call it names, which has run (marshal_result) by then.
 */
extern void marshal_args(const marshal_t *, const psyscall_t *, uint_t,
    uint64_t [MARSHAL_NREGS]);

/*
 * A call's return register (rax) decoded into ps_rval and ps_errno: an
 * error is a value in [-4095, -1].  The kernel's internal restart codes
 * (ERESTARTSYS...), which a call interrupted by the agent may return,
 * become EINTR.  sys_rval2 is 0: Linux x86_64 calls return one value.
 */
extern void marshal_result(psyscall_t *, uint64_t);

/*
 * Scatter the image read back (len >= m_outsize bytes) into the callers'
 * output objects, then clamp the lengths of marshal_lenrules().  Call it
 * after marshal_result() for every call.  0, or EINVAL when calls do not
 * match the plan or the image is too short (nothing is then written).
 */
extern int marshal_unpack(const marshal_t *, psyscall_t *, uint_t,
    const void *, size_t);

/*
 * Lengths.  The target is not trusted, and neither is a length that a
 * caller got wrong: for the calls of this table, marshal makes sure that
 * the target's kernel is never asked to write past a by-reference object
 * of the block, and that a length the target writes back never exceeds
 * the caller's buffer.
 *  - ML_LENARG: argument ml_lenarg is a by-reference socklen_t (or int)
 *    that gives and gets back the length of argument ml_bufarg (e.g.
 *    getsockopt's optlen, getsockname's namelen).  On the way in, when
 *    ml_bufarg is by reference, its value in the image is at most
 *    ml_bufarg's arg_size (marshal_pack).  On the way back, it is
 *    clamped to ml_bufarg's arg_size, or to 0 when ml_bufarg is a NULL
 *    by-value pointer; it is not clamped when ml_bufarg is another
 *    by-value address (which the caller gave and vouches for).  Lengths
 *    are compared as unsigned 32-bit values: a negative int becomes the
 *    buffer's size.  A length counts bytes, but getsockopt's optlen for
 *    SO_GET_FILTER, which counts instructions (marshal_optlen_unit):
 *    the size is then the number of whole instructions the buffer holds.
 *  - ML_RVAL: argument ml_lenarg is a by-value count of the bytes the
 *    call may put in by-reference argument ml_bufarg (read's count,
 *    readlinkat's bufsiz): its register is at most ml_bufarg's arg_size
 *    (marshal_plan).  A successful call returns the number of bytes it
 *    put there: sys_rval1 is clamped to arg_size as well.
 * These are the only exceptions to "by-value registers are arg_value"
 * and "inputs reach the block unchanged".
 */
#define	ML_LENARG	1
#define	ML_RVAL		2

typedef struct marshal_lenrule {
	int		ml_sysindex;
	int		ml_kind;	/* ML_LENARG, ML_RVAL */
	int		ml_lenarg;	/* the length (count) argument */
	int		ml_bufarg;	/* the buffer it describes */
} marshal_lenrule_t;

/* The rules of a system call: their number, and *rulesp. */
extern uint_t marshal_lenrules(int, const marshal_lenrule_t **);

/* The bytes one unit of getsockopt's optlen for level, optname stands for. */
extern size_t marshal_optlen_unit(long, long);

#endif	/* _MARSHAL_H */
