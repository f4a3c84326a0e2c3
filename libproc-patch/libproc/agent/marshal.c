/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * marshal.c: the layout of injected system calls' arguments in the
 * target, and the way back.  Pure: no system calls, no I/O (see
 * marshal.h, which also states the invariants).
 *
 * Every size here is bounded before it is added: at most
 * MARSHAL_MAXCALLS * MARSHAL_NREGS objects of at most MAXARGL bytes each,
 * so sums cannot overflow; addresses are checked against the area with
 * subtractions that cannot wrap.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/filter.h>

#include "agent/marshal.h"

#define	ROUNDUP(x, a)	(((x) + ((a) - 1)) & ~((size_t)(a) - 1))
#define	ROUNDDOWN(x, a)	((x) & ~((uint64_t)(a) - 1))

static const marshal_lenrule_t lenrules[] = {
	{ SYS_read, ML_RVAL, 2, 1 },
	{ SYS_pread64, ML_RVAL, 2, 1 },
	{ SYS_getcwd, ML_RVAL, 1, 0 },
#ifdef	SYS_readlink		/* not in asm-generic's table */
	{ SYS_readlink, ML_RVAL, 2, 1 },
#endif
	{ SYS_readlinkat, ML_RVAL, 3, 2 },
	{ SYS_getdents64, ML_RVAL, 2, 1 },
	{ SYS_getxattr, ML_RVAL, 3, 2 },
	{ SYS_lgetxattr, ML_RVAL, 3, 2 },
	{ SYS_fgetxattr, ML_RVAL, 3, 2 },
	{ SYS_listxattr, ML_RVAL, 2, 1 },
	{ SYS_llistxattr, ML_RVAL, 2, 1 },
	{ SYS_flistxattr, ML_RVAL, 2, 1 },
	{ SYS_recvfrom, ML_RVAL, 2, 1 },
	{ SYS_recvfrom, ML_LENARG, 5, 4 },
	{ SYS_accept, ML_LENARG, 2, 1 },
	{ SYS_accept4, ML_LENARG, 2, 1 },
	{ SYS_getsockname, ML_LENARG, 2, 1 },
	{ SYS_getpeername, ML_LENARG, 2, 1 },
	{ SYS_getsockopt, ML_LENARG, 4, 3 },
};

size_t
marshal_optlen_unit(long level, long optname)
{
	/* The kernel writes optlen instructions of the filter, not bytes. */
	return (level == SOL_SOCKET && optname == SO_GET_FILTER ?
	    sizeof (struct sock_filter) : 1);
}

/* The size, in units of its length argument, of a buffer of bsz bytes. */
static long
len_units(const psyscall_t *c, long bsz)
{
	const argdes_t *a = c->ps_argp;

	if (bsz < 0 || c->ps_sysindex != SYS_getsockopt || c->ps_nargs < 3 ||
	    a[1].arg_type != AT_BYVAL || a[2].arg_type != AT_BYVAL)
		return (bsz);
	return (bsz / (long)marshal_optlen_unit(a[1].arg_value,
	    a[2].arg_value));
}

uint_t
marshal_lenrules(int sysindex, const marshal_lenrule_t **rulesp)
{
	size_t n = sizeof (lenrules) / sizeof (lenrules[0]);

	/* The rules of one call are adjacent in the table. */
	for (size_t i = 0; i < n; i++) {
		if (lenrules[i].ml_sysindex != sysindex)
			continue;
		uint_t cnt = 0;
		while (i + cnt < n && lenrules[i + cnt].ml_sysindex == sysindex)
			cnt++;
		*rulesp = &lenrules[i];
		return (cnt);
	}
	*rulesp = NULL;
	return (0);
}

/* The room an object takes in the block. */
static size_t
obj_room(const argdes_t *a)
{
	size_t sz = a->arg_size == 0 ? 1 : a->arg_size;

	return (ROUNDUP(sz, MARSHAL_OBJ_ALIGN));
}

static int
is_output(const argdes_t *a)
{
	return ((a->arg_inout & AI_OUTPUT) != 0);
}

/* Argument a of call number c. */
static int
check_arg(const argdes_t *a, uint_t c)
{
	if (a->arg_type == AT_BYVAL)
		return (0);	/* arg_inout, arg_size, arg_object unused */
	if (a->arg_type == AT_RESULT)	/* an earlier call's result */
		return (a->arg_value >= 0 && (unsigned long)a->arg_value < c ?
		    0 : EINVAL);
	if (a->arg_type != AT_BYREF)
		return (EINVAL);
	if (a->arg_inout != AI_INPUT && a->arg_inout != AI_OUTPUT &&
	    a->arg_inout != AI_INOUT)
		return (EINVAL);
	if (a->arg_size > MAXARGL)
		return (EINVAL);
	if (a->arg_size != 0 && a->arg_object == NULL)
		return (EINVAL);
	return (0);
}

static int
check_call(const psyscall_t *c, uint_t idx)
{
	if (c->ps_sysindex < 0)
		return (EINVAL);
	if (c->ps_nargs > MAXARGS || c->ps_nargs > MARSHAL_NREGS)
		return (EINVAL);
	if (c->ps_nargs > 0 && c->ps_argp == NULL)
		return (EINVAL);
	for (uint_t i = 0; i < c->ps_nargs; i++) {
		if (check_arg(&c->ps_argp[i], idx) != 0)
			return (EINVAL);
	}
	return (0);
}

int
marshal_check(const psyscall_t *calls, uint_t ncalls, size_t *sizep,
    size_t *outsizep)
{
	size_t size = 0, outsize = 0;

	if (ncalls > MARSHAL_MAXCALLS || (ncalls > 0 && calls == NULL))
		return (EINVAL);
	for (uint_t c = 0; c < ncalls; c++) {
		if (check_call(&calls[c], c) != 0)
			return (EINVAL);
		for (uint_t i = 0; i < calls[c].ps_nargs; i++) {
			const argdes_t *a = &calls[c].ps_argp[i];

			if (a->arg_type != AT_BYREF)
				continue;
			size += obj_room(a);
			if (is_output(a))
				outsize += obj_room(a);
		}
	}
	if (sizep != NULL)
		*sizep = size;
	if (outsizep != NULL)
		*outsizep = outsize;
	return (0);
}

int
marshal_stack_area(uint64_t sp, uint64_t stack_lo, size_t budget,
    marshal_area_t *area)
{
	uint64_t hi, lo;

	if (sp > MARSHAL_MAXADDR ||
	    sp < MARSHAL_MINADDR + MARSHAL_REDZONE + MARSHAL_SP_ALIGN)
		return (ENOSPC);
	hi = ROUNDDOWN(sp - MARSHAL_REDZONE, MARSHAL_SP_ALIGN);
	lo = hi - MARSHAL_MINADDR > budget ? hi - budget : MARSHAL_MINADDR;
	if (lo < stack_lo)
		lo = stack_lo;
	if (lo >= hi)
		return (ENOSPC);
	area->ma_lo = lo;
	area->ma_hi = hi;
	return (0);
}

/*
 * The size of the buffer argument bufarg of call c: its arg_size when it
 * is by reference; for a by-value argument 0 when it is NULL and byval_0
 * is set, else -1 (an address that the caller gave and vouches for).
 */
static long
buf_size(const psyscall_t *c, int bufarg, int byval_0)
{
	const argdes_t *b;

	if (bufarg < 0 || (uint_t)bufarg >= c->ps_nargs)
		return (-1);
	b = &c->ps_argp[bufarg];
	if (b->arg_type == AT_BYREF)
		return (b->arg_size);
	if (b->arg_type != AT_BYVAL)
		return (-1);
	return (byval_0 && b->arg_value == 0 ? 0 : -1);
}

/*
 * On the way in: a count that says how much a call may write into a
 * by-reference buffer (read's count, readlinkat's bufsiz...) is at most
 * the buffer's size, so that the target's kernel never writes past an
 * object of the block, whatever the caller said.
 */
static void
clamp_counts(marshal_t *m, const psyscall_t *calls, uint_t ncalls)
{
	for (uint_t c = 0; c < ncalls; c++) {
		const marshal_lenrule_t *r;
		uint_t n = marshal_lenrules(calls[c].ps_sysindex, &r);

		for (uint_t k = 0; k < n; k++) {
			int ca = r[k].ml_lenarg;
			long bsz = buf_size(&calls[c], r[k].ml_bufarg, 0);

			if (r[k].ml_kind != ML_RVAL || bsz < 0 ||
			    (uint_t)ca >= calls[c].ps_nargs ||
			    calls[c].ps_argp[ca].arg_type != AT_BYVAL)
				continue;
			if (m->m_regs[c][ca] > (uint64_t)bsz)
				m->m_regs[c][ca] = (uint64_t)bsz;
		}
	}
}

/*
 * Give each object of the batch its offset in the block: outputs first,
 * in call order, then inputs.  The registers get base + offset.
 */
static void
place_objects(marshal_t *m, const psyscall_t *calls, uint_t ncalls)
{
	size_t off = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (uint_t c = 0; c < ncalls; c++) {
			for (uint_t i = 0; i < calls[c].ps_nargs; i++) {
				const argdes_t *a = &calls[c].ps_argp[i];

				if (a->arg_type != AT_BYREF ||
				    is_output(a) != (pass == 0))
					continue;
				m->m_regs[c][i] = m->m_base + off;
				off += obj_room(a);
			}
		}
	}
}

int
marshal_plan(marshal_t *m, const marshal_area_t *area,
    const psyscall_t *calls, uint_t ncalls)
{
	size_t size, outsize;
	uint64_t top, base;
	int err;

	if (area->ma_lo < MARSHAL_MINADDR || area->ma_hi > MARSHAL_MAXADDR ||
	    area->ma_lo > area->ma_hi)
		return (EINVAL);
	if ((err = marshal_check(calls, ncalls, &size, &outsize)) != 0)
		return (err);

	top = ROUNDDOWN(area->ma_hi, MARSHAL_SP_ALIGN);
	if (top < area->ma_lo || top - area->ma_lo < size)
		return (ENOSPC);
	base = ROUNDDOWN(top - size, MARSHAL_SP_ALIGN);
	if (base < area->ma_lo)
		return (ENOSPC);

	memset(m, 0, sizeof (*m));
	m->m_area = *area;
	m->m_ncalls = ncalls;
	m->m_base = base;
	m->m_size = size;
	m->m_outsize = outsize;
	m->m_sp = base;		/* 16-aligned; nothing above it is touched */
	for (uint_t c = 0; c < ncalls; c++) {
		for (uint_t i = 0; i < calls[c].ps_nargs; i++) {
			const argdes_t *a = &calls[c].ps_argp[i];

			if (a->arg_type == AT_BYVAL)
				m->m_regs[c][i] = (uint64_t)a->arg_value;
		}
	}
	clamp_counts(m, calls, ncalls);
	place_objects(m, calls, ncalls);
	return (0);
}

/*
 * The offset of a by-reference object in the block, checked against the
 * first limit bytes (so that a plan that does not match the calls can
 * never make us touch memory outside the image).  -1 when out of range.
 */
static long
obj_offset(const marshal_t *m, uint_t c, uint_t i, const argdes_t *a,
    size_t limit)
{
	uint64_t addr = m->m_regs[c][i];

	if (addr < m->m_base || addr - m->m_base > limit ||
	    limit - (addr - m->m_base) < a->arg_size)
		return (-1);
	return ((long)(addr - m->m_base));
}

/* Do the calls match the plan: the same number, all valid? */
static int
matches_plan(const marshal_t *m, const psyscall_t *calls, uint_t ncalls)
{
	size_t size, outsize;

	if (ncalls != m->m_ncalls)
		return (0);
	if (marshal_check(calls, ncalls, &size, &outsize) != 0)
		return (0);
	return (size == m->m_size && outsize == m->m_outsize);
}

/*
 * On the way in: a length that tells the call the size of a by-reference
 * buffer (getsockopt's optlen, getsockname's namelen) is at most that
 * buffer's size in the image, for the reason of clamp_counts().
 */
static void
clamp_input_lengths(const marshal_t *m, const psyscall_t *c, uint_t ci,
    uint8_t *img)
{
	const marshal_lenrule_t *r;
	uint_t n = marshal_lenrules(c->ps_sysindex, &r);

	for (uint_t k = 0; k < n; k++) {
		const argdes_t *l;
		long bsz = len_units(c, buf_size(c, r[k].ml_bufarg, 0));
		uint32_t len;
		long off;

		if (r[k].ml_kind != ML_LENARG || bsz < 0 ||
		    (uint_t)r[k].ml_lenarg >= c->ps_nargs)
			continue;
		l = &c->ps_argp[r[k].ml_lenarg];
		if (l->arg_type != AT_BYREF || !(l->arg_inout & AI_INPUT) ||
		    l->arg_size < sizeof (len) ||
		    (off = obj_offset(m, ci, (uint_t)r[k].ml_lenarg, l,
		    m->m_size)) < 0)
			continue;
		memcpy(&len, img + off, sizeof (len));
		if (len > (uint64_t)bsz) {
			len = (uint32_t)bsz;
			memcpy(img + off, &len, sizeof (len));
		}
	}
}

int
marshal_pack(const marshal_t *m, const psyscall_t *calls, uint_t ncalls,
    void *image, size_t imagelen)
{
	uint8_t *img = image;

	if (!matches_plan(m, calls, ncalls) || imagelen < m->m_size)
		return (EINVAL);
	if (m->m_size > 0)
		memset(img, 0, m->m_size);
	for (uint_t c = 0; c < ncalls; c++) {
		for (uint_t i = 0; i < calls[c].ps_nargs; i++) {
			const argdes_t *a = &calls[c].ps_argp[i];
			long off;

			if (a->arg_type != AT_BYREF ||
			    !(a->arg_inout & AI_INPUT) || a->arg_size == 0)
				continue;
			if ((off = obj_offset(m, c, i, a, m->m_size)) < 0)
				return (EINVAL);
			memcpy(img + off, a->arg_object, a->arg_size);
		}
		clamp_input_lengths(m, &calls[c], c, img);
	}
	return (0);
}

void
marshal_args(const marshal_t *m, const psyscall_t *calls, uint_t c,
    uint64_t args[MARSHAL_NREGS])
{
	memcpy(args, m->m_regs[c], sizeof (m->m_regs[c]));
	for (uint_t i = 0; i < calls[c].ps_nargs && i < MARSHAL_NREGS; i++) {
		const argdes_t *a = &calls[c].ps_argp[i];

		if (a->arg_type == AT_RESULT && a->arg_value >= 0 &&
		    (unsigned long)a->arg_value < c)
			args[i] = (uint64_t)calls[a->arg_value].ps_rval.sys_rval1;
	}
}

void
marshal_result(psyscall_t *c, uint64_t rax)
{
	long v = (long)rax;

	c->ps_rval.sys_rval2 = 0;
	if (v < 0 && v >= -4095) {
		c->ps_errno = (int)-v;
		c->ps_rval.sys_rval1 = -1;
		/* ERESTARTSYS .. ERESTART_RESTARTBLOCK never reach users. */
		if (c->ps_errno >= 512 && c->ps_errno <= 516)
			c->ps_errno = c->ps_errno == 515 ? ENOTTY : EINTR;
	} else {
		c->ps_errno = 0;
		c->ps_rval.sys_rval1 = v;
	}
}

static void
clamp_lenarg(psyscall_t *c, const marshal_lenrule_t *r)
{
	const argdes_t *l;
	uint32_t len;
	long bsz;

	if (r->ml_lenarg < 0 || (uint_t)r->ml_lenarg >= c->ps_nargs)
		return;
	l = &c->ps_argp[r->ml_lenarg];
	if (l->arg_type != AT_BYREF || !is_output(l) ||
	    l->arg_size < sizeof (len))
		return;
	if ((bsz = len_units(c, buf_size(c, r->ml_bufarg, 1))) < 0)
		return;
	memcpy(&len, l->arg_object, sizeof (len));
	if (len > (uint64_t)bsz) {
		len = (uint32_t)bsz;
		memcpy(l->arg_object, &len, sizeof (len));
	}
}

static void
clamp_rval(psyscall_t *c, const marshal_lenrule_t *r)
{
	long bsz;

	if (c->ps_errno != 0 || (bsz = buf_size(c, r->ml_bufarg, 0)) < 0)
		return;
	if (c->ps_rval.sys_rval1 > bsz)
		c->ps_rval.sys_rval1 = bsz;
}

static void
clamp_lengths(psyscall_t *c)
{
	const marshal_lenrule_t *rules;
	uint_t n = marshal_lenrules(c->ps_sysindex, &rules);

	for (uint_t k = 0; k < n; k++) {
		if (rules[k].ml_kind == ML_LENARG)
			clamp_lenarg(c, &rules[k]);
		else
			clamp_rval(c, &rules[k]);
	}
}

int
marshal_unpack(const marshal_t *m, psyscall_t *calls, uint_t ncalls,
    const void *image, size_t len)
{
	const uint8_t *img = image;

	if (!matches_plan(m, calls, ncalls) || len < m->m_outsize)
		return (EINVAL);
	/* Check every offset before the first byte is written. */
	for (uint_t c = 0; c < ncalls; c++) {
		for (uint_t i = 0; i < calls[c].ps_nargs; i++) {
			const argdes_t *a = &calls[c].ps_argp[i];

			if (a->arg_type == AT_BYREF && is_output(a) &&
			    obj_offset(m, c, i, a, m->m_outsize) < 0)
				return (EINVAL);
		}
	}
	for (uint_t c = 0; c < ncalls; c++) {
		for (uint_t i = 0; i < calls[c].ps_nargs; i++) {
			const argdes_t *a = &calls[c].ps_argp[i];

			if (a->arg_type != AT_BYREF || !is_output(a) ||
			    a->arg_size == 0)
				continue;
			memcpy(a->arg_object,
			    img + obj_offset(m, c, i, a, m->m_outsize),
			    a->arg_size);
		}
		clamp_lengths(&calls[c]);
	}
	return (0);
}
