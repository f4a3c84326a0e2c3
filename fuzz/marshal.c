/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * marshal.c: fuzzing harness of the agent's argument marshalling
 * (libproc-patch/marshal.c), a batch at a time:
 *
 *	marshal_check/plan -> marshal_pack -> simulated target memory ->
 *	marshal_result -> marshal_unpack
 *
 * Input (little-endian; decoding never fails, a short input reads as
 * zeros):
 *	mode		1 byte: AREA_STACK (marshal_stack_area, else an area
 *			given outright), AREA_RAW (addresses as they come,
 *			else folded into user space)
 *	area		AREA_STACK: sp (8), distance to the stack's start
 *			(4), budget (4); else: lo (8), length (4), hi (8)
 *	ncalls		1 byte, 0-71 (above MARSHAL_MAXCALLS is tried too)
 *	each call	sysindex: 1 byte, an index in a table of calls, or
 *			0xff and 4 bytes as they come; nargs: 1 byte, 0-9,
 *			bit 7 a NULL ps_argp
 *	each argument	flags (1 byte: type, inout, NULL object, long
 *			value, AT_RESULT), arg_size (2), arg_value (1 or 8), and for a
 *			by-reference input the object's bytes
 *	each call	its return register: a kind (1 byte) and, for most
 *			kinds, a value
 *	the rest	what the hostile target leaves in the whole block
 *
 * Every description is also judged here, from marshal.h's rules alone,
 * and marshal_check() must agree.  After a successful plan the harness
 * checks every invariant marshal.h lists: the block inside the area and
 * below the red zone with no wrap-around, an aligned stack pointer,
 * every object inside the block (outputs inside the part read back),
 * aligned, and no two overlapping; by-value registers; inputs copied
 * unchanged into the image and never touched afterwards; outputs
 * holding what the target wrote, no byte written past any object (each
 * object is a malloc of exactly its size, for AddressSanitizer).  The
 * lengths and counts of marshal_lenrules() (marshal.h's "Lengths") are
 * the exceptions: checked here to be clamped to their buffers on the
 * way in (registers, image) and on the way back (objects, sys_rval1).
 * Calls that do not match the plan, and images too short, are refused
 * with nothing written.
 */
#include <errno.h>
#include <linux/filter.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "fuzz.h"
#include "agent/marshal.h"

#define	AREA_STACK	0x01
#define	AREA_RAW	0x02

/* 0-3 (0 and 3 invalid), or with 0x40 AT_RESULT */
#define	ARG_TYPE(f)	(((f) & 0x40) ? AT_RESULT : (f) & 0x03)
#define	ARG_INOUT(f)	(((f) >> 2) & 0x03)	/* 0-3: 0 invalid */
#define	ARG_NULLOBJ	0x10
#define	ARG_LONGVAL	0x20

#define	NCALLS_MOD	72	/* up to MARSHAL_MAXCALLS + 7 */
#define	NARGS_MOD	10	/* up to MAXARGS + 1 */
#define	NULL_ARGP	0x80

#define	MAXOBJS		(NCALLS_MOD * NARGS_MOD)

/* Calls pfiles and the pr_* wrappers make, and the ones with rules. */
static const int known_calls[] = {
	SYS_getsockopt, SYS_getsockname, SYS_getpeername, SYS_fcntl,
	SYS_fstat, SYS_lseek, SYS_openat, SYS_close,
	SYS_getrlimit, SYS_prlimit64, SYS_read, SYS_pread64, SYS_getcwd,
#ifdef	SYS_open		/* not in asm-generic's table */
	SYS_open, SYS_readlink,
#endif
	SYS_readlinkat, SYS_getdents64, SYS_getxattr,
	SYS_lgetxattr, SYS_fgetxattr, SYS_listxattr, SYS_llistxattr,
	SYS_flistxattr, SYS_recvfrom, SYS_accept, SYS_accept4, SYS_mmap,
	SYS_munmap,
};
#define	NKNOWN	(sizeof (known_calls) / sizeof (known_calls[0]))

/* The batch as decoded, with what the harness remembers of it. */
typedef struct batch {
	uint_t		b_ncalls;	/* as decoded, maybe too many */
	psyscall_t	*b_calls;
	argdes_t	*b_args[NCALLS_MOD];	/* each call's own array */
	uint8_t		*b_orig[NCALLS_MOD][NARGS_MOD];	/* objects before */
	uint64_t	b_rax[NCALLS_MOD];
	int		b_valid;	/* by marshal.h's rules */
	size_t		b_size;		/* of the block, when valid */
	size_t		b_outsize;
} batch_t;

static batch_t B;	/* large: off the stack */

static size_t
room_of(const argdes_t *a)
{
	size_t sz = a->arg_size == 0 ? 1 : a->arg_size;

	return ((sz + MARSHAL_OBJ_ALIGN - 1) &
	    ~(size_t)(MARSHAL_OBJ_ALIGN - 1));
}

static int
is_byref(const argdes_t *a)
{
	return (a->arg_type == AT_BYREF);
}

static int
is_out(const argdes_t *a)
{
	return (is_byref(a) && (a->arg_inout & AI_OUTPUT));
}

/* Judge argument a of call c by marshal.h's rules; 1 when valid. */
static int
arg_valid(const argdes_t *a, uint_t c)
{
	if (a->arg_type == AT_BYVAL)
		return (1);
	if (a->arg_type == AT_RESULT)
		return (a->arg_value >= 0 && (unsigned long)a->arg_value < c);
	return (a->arg_type == AT_BYREF &&
	    (a->arg_inout == AI_INPUT || a->arg_inout == AI_OUTPUT ||
	    a->arg_inout == AI_INOUT) && a->arg_size <= MAXARGL &&
	    (a->arg_size == 0 || a->arg_object != NULL));
}

static void
decode_arg(fuzz_in_t *in, argdes_t *a, uint8_t **origp)
{
	uint8_t f = fuzz_u8(in);
	uint8_t *obj = NULL;

	a->arg_type = (char)ARG_TYPE(f);
	a->arg_inout = (char)ARG_INOUT(f);
	a->arg_size = fuzz_u16(in);
	a->arg_value = (f & ARG_LONGVAL) ? (long)fuzz_u64(in) :
	    (long)(int8_t)fuzz_u8(in);
	a->arg_object = NULL;
	*origp = NULL;
	if (a->arg_type != AT_BYREF || (f & ARG_NULLOBJ))
		return;
	/* An object of exactly arg_size bytes (past MAXARGL too). */
	if ((obj = malloc(a->arg_size)) == NULL)
		abort();
	if (a->arg_inout & AI_INPUT)
		(void) fuzz_take(in, obj, a->arg_size);
	else
		memset(obj, 0xa5, a->arg_size);
	if ((*origp = malloc(a->arg_size)) == NULL)
		abort();
	memcpy(*origp, obj, a->arg_size);
	a->arg_object = obj;
}

static void
decode_calls(fuzz_in_t *in)
{
	B.b_ncalls = fuzz_u8(in) % NCALLS_MOD;
	if ((B.b_calls = malloc(B.b_ncalls * sizeof (psyscall_t))) == NULL)
		abort();
	memset(B.b_calls, 0, B.b_ncalls * sizeof (psyscall_t));
	B.b_valid = B.b_ncalls <= MARSHAL_MAXCALLS;
	B.b_size = B.b_outsize = 0;

	for (uint_t c = 0; c < B.b_ncalls; c++) {
		psyscall_t *call = &B.b_calls[c];
		uint8_t s = fuzz_u8(in), n;

		call->ps_sysindex = s == 0xff ? (int)fuzz_u32(in) :
		    known_calls[s % NKNOWN];
		n = fuzz_u8(in);
		call->ps_nargs = (n & ~NULL_ARGP) % NARGS_MOD;
		if ((B.b_args[c] = malloc(call->ps_nargs *
		    sizeof (argdes_t))) == NULL)
			abort();
		for (uint_t i = 0; i < call->ps_nargs; i++)
			decode_arg(in, &B.b_args[c][i], &B.b_orig[c][i]);
		call->ps_argp = (n & NULL_ARGP) && call->ps_nargs > 0 ? NULL :
		    B.b_args[c];

		if (call->ps_sysindex < 0 || call->ps_nargs > MAXARGS ||
		    call->ps_nargs > MARSHAL_NREGS ||
		    (call->ps_nargs > 0 && call->ps_argp == NULL))
			B.b_valid = 0;
		for (uint_t i = 0; call->ps_argp != NULL &&
		    i < call->ps_nargs; i++) {
			const argdes_t *a = &call->ps_argp[i];

			if (!arg_valid(a, c)) {
				B.b_valid = 0;
			} else if (is_byref(a)) {
				B.b_size += room_of(a);
				if (is_out(a))
					B.b_outsize += room_of(a);
			}
		}
	}
}

/* The return registers: errors, restart codes, lengths, anything. */
static void
decode_rax(fuzz_in_t *in)
{
	for (uint_t c = 0; c < B.b_ncalls; c++) {
		uint8_t kind = fuzz_u8(in);

		switch (kind % 4) {
		case 0:
			B.b_rax[c] = (uint64_t)-(int64_t)(fuzz_u16(in) % 4097);
			break;
		case 1:
			B.b_rax[c] = (uint64_t)-(int64_t)(512 + kind / 4 % 5);
			break;
		case 2:
			B.b_rax[c] = fuzz_u16(in);
			break;
		default:
			B.b_rax[c] = fuzz_u64(in);
			break;
		}
	}
}

static void
free_batch(void)
{
	for (uint_t c = 0; c < B.b_ncalls; c++) {
		for (uint_t i = 0; i < B.b_calls[c].ps_nargs; i++) {
			free(B.b_args[c][i].arg_object);
			free(B.b_orig[c][i]);
			B.b_orig[c][i] = NULL;
		}
		free(B.b_args[c]);
	}
	free(B.b_calls);
	B.b_calls = NULL;
}

/*
 * The area: from marshal_stack_area() (checked here), or as given.
 * Returns 0 and the area, or -1 when there is none to plan in; *spp is
 * the stack pointer for a stack area, else 0.
 */
static int
decode_area(fuzz_in_t *in, uint8_t mode, marshal_area_t *area,
    uint64_t *spp)
{
	const uint64_t span = MARSHAL_MAXADDR - MARSHAL_MINADDR;
	uint64_t sp, stack_lo, gap, lo, hi, len;
	size_t budget;

	*spp = 0;
	if (!(mode & AREA_STACK)) {
		lo = fuzz_u64(in);
		len = fuzz_u32(in);
		hi = fuzz_u64(in);
		if (!(mode & AREA_RAW)) {
			lo = MARSHAL_MINADDR + lo % span;
			hi = lo + len;
		}
		area->ma_lo = lo;
		area->ma_hi = hi;
		return (0);
	}

	sp = fuzz_u64(in);
	gap = fuzz_u32(in);
	budget = fuzz_u32(in);
	if (!(mode & AREA_RAW)) {
		sp = MARSHAL_MINADDR + sp % span;
		budget %= 4 * MARSHAL_MAXBLOCK;
	}
	stack_lo = sp > gap ? sp - gap : 0;
	if (marshal_stack_area(sp, stack_lo, budget, area) != 0)
		return (-1);
	FUZZ_CHECK(area->ma_lo < area->ma_hi);
	FUZZ_CHECK(area->ma_lo >= MARSHAL_MINADDR && area->ma_lo >= stack_lo);
	FUZZ_CHECK(area->ma_hi <= MARSHAL_MAXADDR);
	FUZZ_CHECK(sp - MARSHAL_REDZONE <= sp &&	/* no wrap */
	    area->ma_hi <= sp - MARSHAL_REDZONE);
	FUZZ_CHECK(area->ma_hi % MARSHAL_SP_ALIGN == 0);
	FUZZ_CHECK(area->ma_hi - area->ma_lo <= budget);
	*spp = sp;
	return (0);
}

/* A length of call in its own units, for a buffer of bytes. */
static long
len_units(const psyscall_t *call, long bytes)
{
	const argdes_t *a = call->ps_argp;

	/* getsockopt's optlen for SO_GET_FILTER counts instructions */
	if (call->ps_sysindex == SYS_getsockopt && a != NULL &&
	    call->ps_nargs >= 3 && a[1].arg_type == AT_BYVAL &&
	    a[2].arg_type == AT_BYVAL && a[1].arg_value == SOL_SOCKET &&
	    a[2].arg_value == SO_GET_FILTER)
		return (bytes / (long)sizeof (struct sock_filter));
	return (bytes);
}

/*
 * marshal.h's "Lengths": the most that argument i of call may hold as
 * the length (ML_LENARG) or count (ML_RVAL) of a rule of kind, that is
 * the size of the rule's by-reference buffer (in the length's units:
 * SO_GET_FILTER's optlen counts instructions); with null_is_0, a NULL
 * by-value buffer counts as 0 bytes (ML_LENARG on the way back).  -1
 * when no rule limits argument i.
 */
static long
rule_limit(const psyscall_t *call, uint_t i, int kind, int null_is_0)
{
	const marshal_lenrule_t *rules;
	uint_t n = marshal_lenrules(call->ps_sysindex, &rules);

	for (uint_t k = 0; k < n; k++) {
		const argdes_t *b;

		if (rules[k].ml_kind != kind || rules[k].ml_lenarg < 0 ||
		    (uint_t)rules[k].ml_lenarg != i ||
		    rules[k].ml_bufarg < 0 ||
		    (uint_t)rules[k].ml_bufarg >= call->ps_nargs)
			continue;
		b = &call->ps_argp[rules[k].ml_bufarg];
		if (is_byref(b))
			return (kind == ML_LENARG ?
			    len_units(call, (long)b->arg_size) :
			    (long)b->arg_size);
		if (null_is_0 && b->arg_type == AT_BYVAL && b->arg_value == 0)
			return (0);
	}
	return (-1);
}

/* The most a successful call may return (ML_RVAL), or -1. */
static long
rval_limit(const psyscall_t *call)
{
	const marshal_lenrule_t *rules;
	uint_t n = marshal_lenrules(call->ps_sysindex, &rules);

	for (uint_t k = 0; k < n; k++) {
		if (rules[k].ml_kind == ML_RVAL && rules[k].ml_bufarg >= 0 &&
		    (uint_t)rules[k].ml_bufarg < call->ps_nargs &&
		    is_byref(&call->ps_argp[rules[k].ml_bufarg]))
			return (call->ps_argp[rules[k].ml_bufarg].arg_size);
	}
	return (-1);
}

/*
 * The registers call c runs with (marshal_args), once the calls before
 * it have run: the plan's, but an AT_RESULT argument is the result of
 * the earlier call it names.
 */
static void
check_args(const marshal_t *m, uint_t c)
{
	const psyscall_t *call = &B.b_calls[c];
	uint64_t args[MARSHAL_NREGS];

	marshal_args(m, B.b_calls, c, args);
	for (uint_t i = 0; i < MARSHAL_NREGS; i++) {
		const argdes_t *a = i < call->ps_nargs ? &call->ps_argp[i] :
		    NULL;

		if (a != NULL && a->arg_type == AT_RESULT)
			FUZZ_CHECK(args[i] == (uint64_t)B.b_calls[
			    a->arg_value].ps_rval.sys_rval1);
		else
			FUZZ_CHECK(args[i] == m->m_regs[c][i]);
	}
}

/* A 32-bit length at p, at most limit (when limit >= 0). */
static uint32_t
clamped_len(const void *p, long limit)
{
	uint32_t len;

	memcpy(&len, p, sizeof (len));
	return (limit >= 0 && len > (uint64_t)limit ? (uint32_t)limit : len);
}

/* For qsort: objects by address. */
typedef struct obj {
	uint64_t	o_addr;
	size_t		o_room;
} obj_t;

static int
obj_cmp(const void *x, const void *y)
{
	const obj_t *a = x, *b = y;

	return (a->o_addr < b->o_addr ? -1 : a->o_addr > b->o_addr);
}

static obj_t objs[MAXOBJS];

static void
check_plan(const marshal_t *m, const marshal_area_t *area, uint64_t sp)
{
	uint_t nobj = 0;

	FUZZ_CHECK(m->m_ncalls == B.b_ncalls);
	FUZZ_CHECK(m->m_size == B.b_size && m->m_outsize == B.b_outsize);
	FUZZ_CHECK(m->m_area.ma_lo == area->ma_lo &&
	    m->m_area.ma_hi == area->ma_hi);
	/* The block: inside the area, below the red zone, no wrap. */
	FUZZ_CHECK(MARSHAL_MINADDR <= area->ma_lo && area->ma_lo <= m->m_base);
	FUZZ_CHECK(m->m_base + m->m_size >= m->m_base);
	FUZZ_CHECK(m->m_base + m->m_size <= area->ma_hi);
	FUZZ_CHECK(area->ma_hi <= MARSHAL_MAXADDR);
	FUZZ_CHECK(sp == 0 || m->m_base + m->m_size <= sp - MARSHAL_REDZONE);
	/* The stack pointer: aligned, below the block's objects. */
	FUZZ_CHECK(m->m_sp % MARSHAL_SP_ALIGN == 0 && m->m_sp <= m->m_base);
	FUZZ_CHECK(m->m_sp >= area->ma_lo);

	for (uint_t c = 0; c < B.b_ncalls; c++) {
		const psyscall_t *call = &B.b_calls[c];

		for (uint_t i = call->ps_nargs; i < MARSHAL_NREGS; i++)
			FUZZ_CHECK(m->m_regs[c][i] == 0);
		for (uint_t i = 0; i < call->ps_nargs; i++) {
			const argdes_t *a = &call->ps_argp[i];
			uint64_t r = m->m_regs[c][i];
			uint64_t end = is_out(a) ? m->m_outsize : m->m_size;

			if (a->arg_type == AT_RESULT) {
				FUZZ_CHECK(r == 0);	/* known when run */
				continue;
			}
			if (!is_byref(a)) {
				uint64_t want = (uint64_t)a->arg_value;
				long lim = rule_limit(call, i, ML_RVAL, 0);

				if (lim >= 0 && want > (uint64_t)lim)
					want = (uint64_t)lim;	/* a count */
				FUZZ_CHECK(r == want);
				continue;
			}
			FUZZ_CHECK(r % MARSHAL_OBJ_ALIGN == 0);
			FUZZ_CHECK(r >= m->m_base &&
			    r - m->m_base <= end &&
			    end - (r - m->m_base) >= room_of(a));
			objs[nobj].o_addr = r;
			objs[nobj].o_room = room_of(a);
			nobj++;
		}
	}
	qsort(objs, nobj, sizeof (objs[0]), obj_cmp);
	for (uint_t k = 1; k < nobj; k++)
		FUZZ_CHECK(objs[k - 1].o_addr + objs[k - 1].o_room <=
		    objs[k].o_addr);
}

/* The image: inputs copied unchanged, output-only objects zero. */
static void
check_image(const marshal_t *m, const uint8_t *img)
{
	for (uint_t c = 0; c < B.b_ncalls; c++) {
		const psyscall_t *call = &B.b_calls[c];

		for (uint_t i = 0; i < call->ps_nargs; i++) {
			const argdes_t *a = &call->ps_argp[i];
			const uint8_t *o;

			if (!is_byref(a) || a->arg_size == 0)
				continue;
			o = img + (m->m_regs[c][i] - m->m_base);
			if (a->arg_inout & AI_INPUT) {
				long lim = rule_limit(call, i, ML_LENARG, 0);
				size_t skip = 0;

				if (lim >= 0 && a->arg_size >= 4) {
					/* A length: at most its buffer. */
					FUZZ_CHECK(clamped_len(o, -1) ==
					    clamped_len(a->arg_object, lim));
					skip = 4;
				}
				FUZZ_CHECK(memcmp(o + skip,
				    (const uint8_t *)a->arg_object + skip,
				    a->arg_size - skip) == 0);
			} else {
				for (size_t k = 0; k < a->arg_size; k++)
					FUZZ_CHECK(o[k] == 0);
			}
		}
	}
}

/* Every caller object as it was decoded: nothing was written. */
static void
check_untouched(void)
{
	for (uint_t c = 0; c < B.b_ncalls; c++) {
		for (uint_t i = 0; i < B.b_calls[c].ps_nargs; i++) {
			const argdes_t *a = &B.b_args[c][i];

			if (B.b_orig[c][i] != NULL)
				FUZZ_CHECK(memcmp(a->arg_object, B.b_orig[c][i],
				    a->arg_size) == 0);
		}
	}
}

/*
 * What one call's output objects must hold after unpack: the image's
 * bytes, but a length of an ML_LENARG rule clamped to its buffer; and a
 * successful call's count of an ML_RVAL rule at most its buffer's size.
 */
static void
check_outputs(const marshal_t *m, uint_t c, const uint8_t *back)
{
	const psyscall_t *call = &B.b_calls[c];
	const marshal_lenrule_t *rules;
	uint_t nrules = marshal_lenrules(call->ps_sysindex, &rules);
	long lim;

	FUZZ_CHECK(nrules == 0 || rules != NULL);
	for (uint_t k = 0; k < nrules; k++) {
		FUZZ_CHECK(rules[k].ml_sysindex == call->ps_sysindex);
		FUZZ_CHECK(rules[k].ml_kind == ML_LENARG ||
		    rules[k].ml_kind == ML_RVAL);
	}
	if (call->ps_errno == 0 && (lim = rval_limit(call)) >= 0)
		FUZZ_CHECK(call->ps_rval.sys_rval1 <= lim);

	for (uint_t i = 0; i < call->ps_nargs; i++) {
		const argdes_t *a = &call->ps_argp[i];
		const uint8_t *img;
		size_t skip = 0;

		if (!is_byref(a) || a->arg_size == 0)
			continue;
		if (!is_out(a)) {
			FUZZ_CHECK(memcmp(a->arg_object, B.b_orig[c][i],
			    a->arg_size) == 0);
			continue;
		}
		img = back + (m->m_regs[c][i] - m->m_base);
		lim = rule_limit(call, i, ML_LENARG, 1);
		if (lim >= 0 && a->arg_size >= 4) {
			FUZZ_CHECK(clamped_len(a->arg_object, -1) ==
			    clamped_len(img, lim));
			skip = 4;
		}
		FUZZ_CHECK(memcmp((const uint8_t *)a->arg_object + skip,
		    img + skip, a->arg_size - skip) == 0);
	}
}

static void
check_result(const psyscall_t *call, uint64_t rax)
{
	long v = (long)rax;

	FUZZ_CHECK(call->ps_rval.sys_rval2 == 0);
	if (v < 0 && v >= -4095) {
		int e = (int)-v;

		if (e >= 512 && e <= 516)
			e = e == 515 ? ENOTTY : EINTR;
		FUZZ_CHECK(call->ps_errno == e);
		FUZZ_CHECK(call->ps_rval.sys_rval1 == -1);
	} else {
		FUZZ_CHECK(call->ps_errno == 0);
	}
}

/* Run the planned batch against a simulated, hostile target. */
static void
run_batch(const marshal_t *m, fuzz_in_t *in)
{
	uint8_t *img, *back;
	size_t n;

	/* The one write: an image of exactly m_size bytes. */
	if ((img = malloc(m->m_size)) == NULL)
		abort();
	if (m->m_size > 0)
		FUZZ_CHECK(marshal_pack(m, B.b_calls, B.b_ncalls, img,
		    m->m_size - 1) == EINVAL);
	FUZZ_CHECK(marshal_pack(m, B.b_calls, B.b_ncalls, img,
	    m->m_size) == 0);
	check_image(m, img);
	check_untouched();

	/* The target runs the calls and scribbles over the whole block. */
	(void) fuzz_take(in, img, m->m_size);

	/* The one read: the first m_outsize bytes, in a buffer that size. */
	if ((back = malloc(m->m_outsize)) == NULL)
		abort();
	memcpy(back, img, m->m_outsize);
	free(img);

	for (uint_t c = 0; c < B.b_ncalls; c++) {
		check_args(m, c);
		marshal_result(&B.b_calls[c], B.b_rax[c]);
		check_result(&B.b_calls[c], B.b_rax[c]);
	}
	/* Refused with nothing written: too short, or calls not planned. */
	if (m->m_outsize > 0) {
		FUZZ_CHECK(marshal_unpack(m, B.b_calls, B.b_ncalls, back,
		    m->m_outsize - 1) == EINVAL);
		check_untouched();
	}
	if (B.b_ncalls > 0) {
		n = B.b_ncalls - 1;
		FUZZ_CHECK(marshal_unpack(m, B.b_calls, (uint_t)n, back,
		    m->m_outsize) == EINVAL);
		check_untouched();
	}

	FUZZ_CHECK(marshal_unpack(m, B.b_calls, B.b_ncalls, back,
	    m->m_outsize) == 0);
	for (uint_t c = 0; c < B.b_ncalls; c++)
		check_outputs(m, c, back);
	free(back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	marshal_area_t area;
	marshal_t m;
	fuzz_in_t in;
	uint64_t sp;
	size_t size, outsize;
	uint8_t mode;
	int have_area, err, fits;

	if (len > FUZZ_MAXLEN)
		return (0);
	fuzz_in_init(&in, data, len);
	mode = fuzz_u8(&in);
	have_area = decode_area(&in, mode, &area, &sp) == 0;
	decode_calls(&in);
	decode_rax(&in);

	err = marshal_check(B.b_calls, B.b_ncalls, &size, &outsize);
	FUZZ_CHECK(err == 0 || err == EINVAL);
	FUZZ_CHECK((err == 0) == B.b_valid);
	if (err == 0)
		FUZZ_CHECK(size == B.b_size && outsize == B.b_outsize);

	if (have_area) {
		err = marshal_plan(&m, &area, B.b_calls, B.b_ncalls);
		if (area.ma_lo < MARSHAL_MINADDR ||
		    area.ma_hi > MARSHAL_MAXADDR || area.ma_lo > area.ma_hi ||
		    !B.b_valid) {
			FUZZ_CHECK(err == EINVAL);
		} else {
			/* Is there a 16-aligned block ending by ma_hi? */
			uint64_t top = area.ma_hi & ~(uint64_t)15;

			fits = top >= area.ma_lo + B.b_size &&
			    ((top - B.b_size) & ~(uint64_t)15) >= area.ma_lo;
			FUZZ_CHECK(err == (fits ? 0 : ENOSPC));
		}
		if (err == 0) {
			check_plan(&m, &area, sp);
			run_batch(&m, &in);
		}
	}
	free_batch();
	return (0);
}
