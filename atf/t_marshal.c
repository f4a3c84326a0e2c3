/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_marshal: unit tests of the argument marshalling of injected system
 * calls (libproc-patch/libproc/agent/marshal.c): layout, alignment,
 * bounds, rejection of invalid descriptions, the round trip through a
 * simulated target, and the clamping of lengths that the target writes.
 */
#include <atf-c.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "agent/marshal.h"

/* A typical stack area: 64 KiB ending 16-aligned, far from anything. */
static const marshal_area_t stack_area = {
	0x7ffc00000000ULL, 0x7ffc00010000ULL
};

static marshal_t m;		/* big: keep it off the stack */

/*
 * The register of by-value argument i of c: its value, but a count of a
 * marshal_lenrules() rule is at most its by-reference buffer's size.
 */
static uint64_t
expected_byval(const psyscall_t *c, uint_t i)
{
	const marshal_lenrule_t *r;
	uint_t n = marshal_lenrules(c->ps_sysindex, &r);
	uint64_t v = (uint64_t)c->ps_argp[i].arg_value;

	for (uint_t k = 0; k < n; k++) {
		const argdes_t *b;

		if (r[k].ml_kind != ML_RVAL || (uint_t)r[k].ml_lenarg != i ||
		    (uint_t)r[k].ml_bufarg >= c->ps_nargs)
			continue;
		b = &c->ps_argp[r[k].ml_bufarg];
		if (b->arg_type == AT_BYREF && v > b->arg_size)
			v = b->arg_size;
	}
	return (v);
}

/*
 * Every invariant of marshal.h that the plan alone decides: the block in
 * the area, aligned, no wrap; each object inside the block (outputs inside
 * the read part), none overlapping; by-value registers unchanged; unused
 * registers 0.
 */
static void
check_plan(const marshal_t *mp, const marshal_area_t *area,
    const psyscall_t *calls, uint_t ncalls)
{
	uint64_t lo[MARSHAL_MAXCALLS * MARSHAL_NREGS];
	uint64_t hi[MARSHAL_MAXCALLS * MARSHAL_NREGS];
	size_t nobj = 0;

	ATF_REQUIRE(area->ma_lo <= mp->m_base);
	ATF_REQUIRE(mp->m_base + mp->m_size >= mp->m_base);	/* no wrap */
	ATF_REQUIRE(mp->m_base + mp->m_size <= area->ma_hi);
	ATF_REQUIRE_EQ(mp->m_sp % MARSHAL_SP_ALIGN, 0);
	ATF_REQUIRE(mp->m_sp <= mp->m_base);
	ATF_REQUIRE(mp->m_outsize <= mp->m_size);
	ATF_REQUIRE_EQ(mp->m_ncalls, ncalls);

	for (uint_t c = 0; c < ncalls; c++) {
		for (uint_t i = 0; i < MARSHAL_NREGS; i++) {
			const argdes_t *a;
			uint64_t r = mp->m_regs[c][i];

			if (i >= calls[c].ps_nargs) {
				ATF_REQUIRE_EQ_MSG(r, 0, "call %u reg %u", c, i);
				continue;
			}
			a = &calls[c].ps_argp[i];
			if (a->arg_type == AT_BYVAL) {
				ATF_REQUIRE_EQ(r, expected_byval(&calls[c], i));
				continue;
			}
			ATF_REQUIRE_EQ_MSG(r % MARSHAL_OBJ_ALIGN, 0,
			    "call %u arg %u misaligned", c, i);
			ATF_REQUIRE(r >= mp->m_base);
			ATF_REQUIRE(r + a->arg_size <=
			    mp->m_base + mp->m_size);
			if (a->arg_inout & AI_OUTPUT)
				ATF_REQUIRE_MSG(r + a->arg_size <=
				    mp->m_base + mp->m_outsize,
				    "output %u/%u outside the read part", c, i);
			else
				ATF_REQUIRE_MSG(r >= mp->m_base + mp->m_outsize,
				    "input %u/%u inside the read part", c, i);
			lo[nobj] = r;
			hi[nobj] = r + (a->arg_size ? a->arg_size : 1);
			nobj++;
		}
	}
	for (size_t x = 0; x < nobj; x++)
		for (size_t y = x + 1; y < nobj; y++)
			ATF_REQUIRE_MSG(hi[x] <= lo[y] || hi[y] <= lo[x],
			    "objects %zu and %zu overlap", x, y);
}

ATF_TC_WITHOUT_HEAD(layout_getsockopt);
ATF_TC_BODY(layout_getsockopt, tc)
{
	argdes_t a[5];
	psyscall_t c;
	int val = 0x11223344, len = sizeof (val);

	argdes_byval(&a[0], 7);
	argdes_byval(&a[1], SOL_SOCKET);
	argdes_byval(&a[2], SO_TYPE);
	argdes_byref(&a[3], &val, sizeof (val), AI_OUTPUT);
	argdes_byref(&a[4], &len, sizeof (len), AI_INOUT);
	psyscall_set(&c, SYS_getsockopt, a, 5);

	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	check_plan(&m, &stack_area, &c, 1);
	/* Two 4-byte outputs, 8 bytes each, at the top of the area. */
	ATF_CHECK_EQ(m.m_size, 16);
	ATF_CHECK_EQ(m.m_outsize, 16);
	ATF_CHECK_EQ(m.m_base, stack_area.ma_hi - 16);
	ATF_CHECK_EQ(m.m_sp, m.m_base);
	ATF_CHECK_EQ(m.m_regs[0][0], 7);
	ATF_CHECK_EQ(m.m_regs[0][3], m.m_base);
	ATF_CHECK_EQ(m.m_regs[0][4], m.m_base + 8);
}

ATF_TC_WITHOUT_HEAD(layout_outputs_first);
ATF_TC_BODY(layout_outputs_first, tc)
{
	char in1[13], in2[3], out1[5], io[20];
	argdes_t a1[3], a2[3];
	psyscall_t c[2];

	argdes_byref(&a1[0], in1, sizeof (in1), AI_INPUT);
	argdes_byref(&a1[1], out1, sizeof (out1), AI_OUTPUT);
	argdes_byval(&a1[2], -1);
	argdes_byref(&a2[0], in2, sizeof (in2), AI_INPUT);
	argdes_byval(&a2[1], 42);
	argdes_byref(&a2[2], io, sizeof (io), AI_INOUT);
	psyscall_set(&c[0], 1, a1, 3);
	psyscall_set(&c[1], 2, a2, 3);

	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, c, 2), 0);
	check_plan(&m, &stack_area, c, 2);
	ATF_CHECK_EQ(m.m_outsize, 8 + 24);
	ATF_CHECK_EQ(m.m_size, 8 + 24 + 16 + 8);
	/* Outputs in call order, then inputs in call order. */
	ATF_CHECK_EQ(m.m_regs[0][1], m.m_base);
	ATF_CHECK_EQ(m.m_regs[1][2], m.m_base + 8);
	ATF_CHECK_EQ(m.m_regs[0][0], m.m_base + 32);
	ATF_CHECK_EQ(m.m_regs[1][0], m.m_base + 48);
	ATF_CHECK_EQ((long)m.m_regs[0][2], -1L);
}

ATF_TC_WITHOUT_HEAD(alignment);
ATF_TC_BODY(alignment, tc)
{
	static const size_t sizes[] = { 1, 3, 5, 8, 13, 0, 4095, 4096 };
	static char objs[8][4096];
	argdes_t a[6];
	psyscall_t c[2];

	/* Areas whose end is not 16-aligned, objects of odd sizes. */
	for (uint64_t skew = 0; skew < 32; skew++) {
		marshal_area_t area = { 0x500000, 0x520000 + skew };

		for (int i = 0; i < 6; i++)
			argdes_byref(&a[i], objs[i], sizes[i],
			    i % 2 ? AI_OUTPUT : AI_INPUT);
		psyscall_set(&c[0], 0, a, 6);
		argdes_byref(&a[5], objs[6], sizes[6], AI_INOUT);
		psyscall_set(&c[1], 0, a + 4, 2);
		ATF_REQUIRE_EQ(marshal_plan(&m, &area, c, 2), 0);
		check_plan(&m, &area, c, 2);
		/* At most 15 bytes to align the end, 8 to align the base. */
		ATF_REQUIRE(area.ma_hi - (m.m_base + m.m_size) < 16 + 8);
	}
}

ATF_TC_WITHOUT_HEAD(stack_area_below_redzone);
ATF_TC_BODY(stack_area_below_redzone, tc)
{
	marshal_area_t area;

	for (uint64_t sp = 0x7ffc12345600; sp < 0x7ffc12345640; sp++) {
		ATF_REQUIRE_EQ(marshal_stack_area(sp, 0x7ffc12300000, 8192,
		    &area), 0);
		ATF_REQUIRE(area.ma_hi <= sp - MARSHAL_REDZONE);
		ATF_REQUIRE(sp - MARSHAL_REDZONE - area.ma_hi < 16);
		ATF_REQUIRE_EQ(area.ma_hi % 16, 0);
		ATF_REQUIRE_EQ(area.ma_hi - area.ma_lo, 8192);
	}
	/* The stack mapping's start bounds the area. */
	ATF_REQUIRE_EQ(marshal_stack_area(0x7ffc12345600, 0x7ffc12345000,
	    65536, &area), 0);
	ATF_CHECK_EQ(area.ma_lo, 0x7ffc12345000);
	ATF_CHECK_EQ(area.ma_hi, 0x7ffc12345600 - MARSHAL_REDZONE);
	/* No room: the mapping starts above the red zone, or sp is tiny. */
	ATF_CHECK_EQ(marshal_stack_area(0x7ffc12345600,
	    0x7ffc12345600 - MARSHAL_REDZONE, 65536, &area), ENOSPC);
	ATF_CHECK_EQ(marshal_stack_area(0x7ffc12345600,
	    0x7ffc12345610 - MARSHAL_REDZONE, 65536, &area), ENOSPC);
	ATF_CHECK_EQ(marshal_stack_area(100, 0, 65536, &area), ENOSPC);
	ATF_CHECK_EQ(marshal_stack_area(0, 0, 65536, &area), ENOSPC);
	ATF_CHECK_EQ(marshal_stack_area(UINT64_MAX, 0, 65536, &area), ENOSPC);
	/* A budget larger than the address space stops at MINADDR. */
	ATF_REQUIRE_EQ(marshal_stack_area(0x10000, 0, SIZE_MAX, &area), 0);
	ATF_CHECK_EQ(area.ma_lo, MARSHAL_MINADDR);

	/* A plan in a stack area stays below the red zone. */
	{
		char buf[100];
		argdes_t a;
		psyscall_t c;

		argdes_byref(&a, buf, sizeof (buf), AI_INOUT);
		psyscall_set(&c, 0, &a, 1);
		ATF_REQUIRE_EQ(marshal_stack_area(0x7ffc12345678,
		    0x7ffc12300000, 4096, &area), 0);
		ATF_REQUIRE_EQ(marshal_plan(&m, &area, &c, 1), 0);
		check_plan(&m, &area, &c, 1);
		ATF_CHECK(m.m_base + m.m_size <=
		    0x7ffc12345678 - MARSHAL_REDZONE);
	}
}

ATF_TC_WITHOUT_HEAD(bounds);
ATF_TC_BODY(bounds, tc)
{
	static char big[MAXARGL];
	marshal_area_t area;
	argdes_t a[2];
	psyscall_t c;

	argdes_byref(&a[0], big, MAXARGL, AI_INPUT);
	argdes_byref(&a[1], big, MAXARGL, AI_OUTPUT);
	psyscall_set(&c, 0, a, 2);

	/* Exactly enough room, then 8 bytes short. */
	area.ma_lo = 0x100000;
	area.ma_hi = 0x100000 + 2 * MAXARGL;
	ATF_REQUIRE_EQ(marshal_plan(&m, &area, &c, 1), 0);
	check_plan(&m, &area, &c, 1);
	ATF_CHECK_EQ(m.m_base, area.ma_lo);
	area.ma_hi -= 8;
	ATF_CHECK_EQ(marshal_plan(&m, &area, &c, 1), ENOSPC);
	/*
	 * An area at the bottom of user space, smaller than the block and
	 * ending below the block's size: ENOSPC, not a block placed at an
	 * address that wrapped below 0.
	 */
	area.ma_lo = MARSHAL_MINADDR;
	area.ma_hi = MARSHAL_MINADDR + MAXARGL / 2;
	ATF_REQUIRE(area.ma_hi < 2 * MAXARGL);
	ATF_CHECK_EQ(marshal_plan(&m, &area, &c, 1), ENOSPC);
	area.ma_lo = 0x100000;
	/* An empty area holds an empty batch only. */
	area.ma_hi = area.ma_lo;
	ATF_CHECK_EQ(marshal_plan(&m, &area, &c, 1), ENOSPC);
	ATF_CHECK_EQ(marshal_plan(&m, &area, &c, 0), 0);
	/* Areas that are not areas. */
	area.ma_lo = 0x200000;
	area.ma_hi = 0x100000;
	ATF_CHECK_EQ(marshal_plan(&m, &area, &c, 1), EINVAL);
	area.ma_lo = 0;
	area.ma_hi = 0x100000;
	ATF_CHECK_EQ(marshal_plan(&m, &area, &c, 1), EINVAL);
	area.ma_lo = MARSHAL_MAXADDR - 0x10000;
	area.ma_hi = UINT64_MAX;
	ATF_CHECK_EQ(marshal_plan(&m, &area, &c, 1), EINVAL);
	/* The very top of user space: fits, and does not wrap. */
	area.ma_hi = MARSHAL_MAXADDR;
	ATF_REQUIRE_EQ(marshal_plan(&m, &area, &c, 1), 0);
	check_plan(&m, &area, &c, 1);
	ATF_CHECK_EQ(m.m_base + m.m_size, MARSHAL_MAXADDR);
}

ATF_TC_WITHOUT_HEAD(largest_batch);
ATF_TC_BODY(largest_batch, tc)
{
	static char obj[MAXARGL];
	static argdes_t a[MARSHAL_MAXCALLS][MARSHAL_NREGS];
	static psyscall_t c[MARSHAL_MAXCALLS + 1];
	marshal_area_t area = { 0x10000000, 0x10000000 + MARSHAL_MAXBLOCK };
	size_t size, outsize;

	for (uint_t k = 0; k < MARSHAL_MAXCALLS; k++) {
		for (uint_t i = 0; i < MARSHAL_NREGS; i++)
			argdes_byref(&a[k][i], obj, MAXARGL, (int)(1 + (i + k) % 3));
		psyscall_set(&c[k], 0, a[k], MARSHAL_NREGS);
	}
	ATF_REQUIRE_EQ(marshal_check(c, MARSHAL_MAXCALLS, &size, &outsize), 0);
	ATF_CHECK_EQ(size, MARSHAL_MAXBLOCK);
	ATF_REQUIRE_EQ(marshal_plan(&m, &area, c, MARSHAL_MAXCALLS), 0);
	check_plan(&m, &area, c, MARSHAL_MAXCALLS);
	area.ma_hi--;
	ATF_CHECK_EQ(marshal_plan(&m, &area, c, MARSHAL_MAXCALLS), ENOSPC);
	/* One call more than a batch may hold. */
	c[MARSHAL_MAXCALLS] = c[0];
	ATF_CHECK_EQ(marshal_check(c, MARSHAL_MAXCALLS + 1, NULL, NULL),
	    EINVAL);
}

/* A description made invalid by mutate must be refused by every entry. */
static void
require_einval(const char *what, void (*mutate)(psyscall_t *, argdes_t *))
{
	char obj[16];
	argdes_t a[MAXARGS + 1];
	psyscall_t c[2];
	size_t size = 12345;

	for (int i = 0; i <= MAXARGS; i++)
		argdes_byref(&a[i], obj, sizeof (obj), AI_INOUT);
	psyscall_set(&c[0], SYS_getpid, NULL, 0);
	psyscall_set(&c[1], SYS_getsockopt, a, 5);
	ATF_REQUIRE_EQ_MSG(marshal_check(c, 2, NULL, NULL), 0, "%s", what);
	mutate(&c[1], a);
	ATF_CHECK_EQ_MSG(marshal_check(c, 2, &size, NULL), EINVAL, "%s", what);
	ATF_CHECK_EQ_MSG(size, 12345, "%s: size set on error", what);
	ATF_CHECK_EQ_MSG(marshal_plan(&m, &stack_area, c, 2), EINVAL, "%s",
	    what);
}

static void
mut_nargs_maxargs(psyscall_t *c, argdes_t *a)
{
	c->ps_nargs = MAXARGS + 1;
}

static void
mut_nargs_regs(psyscall_t *c, argdes_t *a)
{
	c->ps_nargs = MARSHAL_NREGS + 1;	/* <= MAXARGS, > x86_64 */
}

static void
mut_size(psyscall_t *c, argdes_t *a)
{
	a[3].arg_size = MAXARGL + 1;
}

static void
mut_null_input(psyscall_t *c, argdes_t *a)
{
	a[2].arg_inout = AI_INPUT;
	a[2].arg_object = NULL;
}

static void
mut_null_output(psyscall_t *c, argdes_t *a)
{
	a[2].arg_inout = AI_OUTPUT;
	a[2].arg_object = NULL;
}

static void
mut_type0(psyscall_t *c, argdes_t *a)
{
	a[0].arg_type = 0;
}

static void
mut_type3(psyscall_t *c, argdes_t *a)
{
	a[4].arg_type = 3;
}

static void
mut_inout0(psyscall_t *c, argdes_t *a)
{
	a[1].arg_inout = 0;
}

static void
mut_inout4(psyscall_t *c, argdes_t *a)
{
	a[1].arg_inout = 4;
}

static void
mut_null_argp(psyscall_t *c, argdes_t *a)
{
	c->ps_argp = NULL;
}

static void
mut_sysindex(psyscall_t *c, argdes_t *a)
{
	c->ps_sysindex = -1;
}

ATF_TC_WITHOUT_HEAD(invalid_descriptions);
ATF_TC_BODY(invalid_descriptions, tc)
{
	require_einval("nargs > MAXARGS", mut_nargs_maxargs);
	require_einval("nargs > 6", mut_nargs_regs);
	require_einval("arg_size > MAXARGL", mut_size);
	require_einval("NULL by-ref input", mut_null_input);
	require_einval("NULL by-ref output", mut_null_output);
	require_einval("arg_type 0", mut_type0);
	require_einval("arg_type 3", mut_type3);
	require_einval("arg_inout 0", mut_inout0);
	require_einval("arg_inout 4", mut_inout4);
	require_einval("NULL argp", mut_null_argp);
	require_einval("sysindex -1", mut_sysindex);
	ATF_CHECK_EQ(marshal_check(NULL, 1, NULL, NULL), EINVAL);
}

ATF_TC_WITHOUT_HEAD(valid_edges);
ATF_TC_BODY(valid_edges, tc)
{
	static char obj[MAXARGL];
	argdes_t a[MARSHAL_NREGS];
	psyscall_t c;

	/* Six arguments, the largest object, a zero-size NULL object, a
	 * by-value argument with meaningless inout and size. */
	for (int i = 0; i < MARSHAL_NREGS; i++)
		argdes_byref(&a[i], obj, MAXARGL, AI_INPUT);
	argdes_byref(&a[1], NULL, 0, AI_OUTPUT);
	argdes_byval(&a[2], 99);
	a[2].arg_inout = 77;
	a[2].arg_size = 65535;
	psyscall_set(&c, SYS_getpid, a, MARSHAL_NREGS);	/* no length rules */
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	check_plan(&m, &stack_area, &c, 1);
	ATF_CHECK_EQ(m.m_regs[0][2], 99);
	ATF_CHECK_EQ(m.m_outsize, 8);
	/* No by-ref objects: no write, no read. */
	psyscall_set(&c, SYS_getpid, NULL, 0);
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_CHECK_EQ(m.m_size, 0);
	ATF_CHECK_EQ(m.m_outsize, 0);
	ATF_CHECK_EQ(m.m_sp % 16, 0);
}

ATF_TC_WITHOUT_HEAD(pack_inputs_verbatim);
ATF_TC_BODY(pack_inputs_verbatim, tc)
{
	char path[] = "/etc/hostname", out[32], io[6] = "inout";
	uint8_t image[256];
	argdes_t a[4];
	psyscall_t c;

	memset(out, 0xAA, sizeof (out));
	argdes_byval(&a[0], -100);
	argdes_byref(&a[1], path, sizeof (path), AI_INPUT);
	argdes_byref(&a[2], out, sizeof (out), AI_OUTPUT);
	argdes_byref(&a[3], io, sizeof (io), AI_INOUT);
	psyscall_set(&c, SYS_readlinkat, a, 4);
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	check_plan(&m, &stack_area, &c, 1);
	memset(image, 0x55, sizeof (image));
	ATF_REQUIRE(m.m_size < sizeof (image));
	ATF_REQUIRE_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), 0);

	ATF_CHECK(memcmp(image + (m.m_regs[0][1] - m.m_base), path,
	    sizeof (path)) == 0);
	ATF_CHECK(memcmp(image + (m.m_regs[0][3] - m.m_base), io,
	    sizeof (io)) == 0);
	for (size_t i = 0; i < sizeof (out); i++)
		ATF_REQUIRE_EQ(image[m.m_regs[0][2] - m.m_base + i], 0);
	/* Padding is zero too, and nothing past m_size is touched. */
	ATF_CHECK_EQ(image[m.m_regs[0][1] - m.m_base + sizeof (path)], 0);
	ATF_CHECK_EQ(image[m.m_size], 0x55);
	/* The caller's objects are not changed by packing. */
	ATF_CHECK_STREQ(path, "/etc/hostname");
	ATF_CHECK_EQ((uint8_t)out[0], 0xAA);
	/* A short image, or calls that are not the plan's, are refused. */
	ATF_CHECK_EQ(marshal_pack(&m, &c, 1, image, m.m_size - 1), EINVAL);
	ATF_CHECK_EQ(marshal_pack(&m, &c, 0, image, sizeof (image)), EINVAL);
	a[2].arg_size = 64;
	ATF_CHECK_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), EINVAL);
}

ATF_TC_WITHOUT_HEAD(unpack_outputs_only);
ATF_TC_BODY(unpack_outputs_only, tc)
{
	uint8_t in[10], out[12 + 4], io[7 + 4], image[256];
	argdes_t a[3];
	psyscall_t c;

	memset(in, 'i', sizeof (in));
	memset(out, 'g', sizeof (out));		/* g: guard bytes */
	memset(io, 'g', sizeof (io));
	argdes_byref(&a[0], in, sizeof (in), AI_INPUT);
	argdes_byref(&a[1], out, 12, AI_OUTPUT);
	argdes_byref(&a[2], io, 7, AI_INOUT);
	psyscall_set(&c, 0, a, 3);
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_REQUIRE_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), 0);

	/* The simulated target fills everything it can reach. */
	memset(image, 'T', sizeof (image));
	marshal_result(&c, 0);
	ATF_REQUIRE_EQ(marshal_unpack(&m, &c, 1, image, m.m_outsize), 0);
	for (int i = 0; i < 12; i++)
		ATF_REQUIRE_EQ(out[i], 'T');
	for (int i = 0; i < 7; i++)
		ATF_REQUIRE_EQ(io[i], 'T');
	for (int i = 12; i < 16; i++)
		ATF_REQUIRE_EQ_MSG(out[i], 'g', "wrote past an output");
	for (int i = 7; i < 11; i++)
		ATF_REQUIRE_EQ_MSG(io[i], 'g', "wrote past an inout");
	for (int i = 0; i < 10; i++)
		ATF_REQUIRE_EQ_MSG(in[i], 'i', "an input was written back");

	/* Too short a read changes nothing at all. */
	memset(out, 'g', sizeof (out));
	ATF_CHECK_EQ(marshal_unpack(&m, &c, 1, image, m.m_outsize - 1),
	    EINVAL);
	ATF_CHECK_EQ(out[0], 'g');
}

ATF_TC_WITHOUT_HEAD(result_decoding);
ATF_TC_BODY(result_decoding, tc)
{
	psyscall_t c;

	memset(&c, 0, sizeof (c));
	marshal_result(&c, (uint64_t)-EBADF);
	ATF_CHECK_EQ(c.ps_errno, EBADF);
	ATF_CHECK_EQ(c.ps_rval.sys_rval1, -1);
	marshal_result(&c, 5);
	ATF_CHECK_EQ(c.ps_errno, 0);
	ATF_CHECK_EQ(c.ps_rval.sys_rval1, 5);
	marshal_result(&c, (uint64_t)-4095);
	ATF_CHECK_EQ(c.ps_errno, 4095);
	marshal_result(&c, (uint64_t)-4096);	/* not an error */
	ATF_CHECK_EQ(c.ps_errno, 0);
	ATF_CHECK_EQ(c.ps_rval.sys_rval1, -4096);
	marshal_result(&c, 0x7fffdeadb000ULL);	/* an mmap address */
	ATF_CHECK_EQ(c.ps_errno, 0);
	ATF_CHECK_EQ(c.ps_rval.sys_rval1, 0x7fffdeadb000L);
	marshal_result(&c, (uint64_t)-512);	/* ERESTARTSYS */
	ATF_CHECK_EQ(c.ps_errno, EINTR);
	marshal_result(&c, (uint64_t)-516);	/* ERESTART_RESTARTBLOCK */
	ATF_CHECK_EQ(c.ps_errno, EINTR);
	ATF_CHECK_EQ(c.ps_rval.sys_rval2, 0);
}

/* Run getsockopt-like call c through a target that writes tlen as the
 * length; return what the caller sees. */
static uint32_t
round_trip_len(psyscall_t *c, uint_t lenarg, uint32_t tlen, uint64_t rax)
{
	uint8_t image[256];
	uint32_t len;

	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, c, 1), 0);
	ATF_REQUIRE_EQ(marshal_pack(&m, c, 1, image, sizeof (image)), 0);
	memcpy(image + (m.m_regs[0][lenarg] - m.m_base), &tlen, sizeof (tlen));
	marshal_result(c, rax);
	ATF_REQUIRE_EQ(marshal_unpack(&m, c, 1, image, m.m_outsize), 0);
	memcpy(&len, c->ps_argp[lenarg].arg_object, sizeof (len));
	return (len);
}

/* c: getsockopt(3, SOL_SOCKET, optname, buf of size bytes, ilen). */
static void
getsockopt_set(psyscall_t *c, argdes_t a[5], int optname, void *buf,
    size_t size, int *ilen)
{
	argdes_byval(&a[0], 3);
	argdes_byval(&a[1], SOL_SOCKET);
	argdes_byval(&a[2], optname);
	argdes_byref(&a[3], buf, size, AI_OUTPUT);
	argdes_byref(&a[4], ilen, sizeof (*ilen), AI_INOUT);
	psyscall_set(c, SYS_getsockopt, a, 5);
}

ATF_TC_WITHOUT_HEAD(clamp_lengths);
ATF_TC_BODY(clamp_lengths, tc)
{
	struct sockaddr_storage ss;
	socklen_t slen;
	int val, ilen;
	argdes_t a[5];
	psyscall_t c;

	/* getsockopt: optlen is clamped to optval's size. */
	getsockopt_set(&c, a, SO_TYPE, &val, sizeof (val), &ilen);
	ilen = sizeof (val);
	ATF_CHECK_EQ(round_trip_len(&c, 4, 1000, 0), sizeof (val));
	ATF_CHECK_EQ(round_trip_len(&c, 4, 0xffffffffU, 0), sizeof (val));
	ATF_CHECK_EQ(round_trip_len(&c, 4, 2, 0), 2);
	ATF_CHECK_EQ(round_trip_len(&c, 4, 0, 0), 0);
	/* Also when the call failed: a length is a length. */
	ATF_CHECK_EQ(round_trip_len(&c, 4, 77, (uint64_t)-EBADF), sizeof (val));
	/* A NULL optval (by value 0) has no room at all. */
	argdes_byval(&a[3], 0);
	ATF_CHECK_EQ(round_trip_len(&c, 4, 9, 0), 0);

	/* getsockname: namelen is clamped to the sockaddr's size. */
	argdes_byval(&a[0], 3);
	argdes_byref(&a[1], &ss, 16, AI_OUTPUT);
	argdes_byref(&a[2], &slen, sizeof (slen), AI_INOUT);
	psyscall_set(&c, SYS_getsockname, a, 3);
	slen = 16;
	ATF_CHECK_EQ(round_trip_len(&c, 2, 110, 0), 16);
	ATF_CHECK_EQ(round_trip_len(&c, 2, 12, 0), 12);
	psyscall_set(&c, SYS_getpeername, a, 3);
	ATF_CHECK_EQ(round_trip_len(&c, 2, 4096, 0), 16);
	psyscall_set(&c, SYS_accept4, a, 3);
	ATF_CHECK_EQ(round_trip_len(&c, 2, 17, 0), 16);
	/* Another call number: no rule, the target's value stands. */
	psyscall_set(&c, SYS_getpid, a, 3);
	ATF_CHECK_EQ(round_trip_len(&c, 2, 4096, 0), 4096);
	/* A by-value buffer address that the caller gave is not clamped. */
	psyscall_set(&c, SYS_getsockname, a, 3);
	argdes_byval(&a[1], 0x12345678);
	ATF_CHECK_EQ(round_trip_len(&c, 2, 4096, 0), 4096);
}

/*
 * getsockopt's SO_GET_FILTER counts its optlen in instructions (struct
 * sock_filter, 8 bytes): a 64-byte optval holds 8 of them, both ways;
 * another option of the same call counts bytes.
 */
ATF_TC_WITHOUT_HEAD(clamp_lengths_filter);
ATF_TC_BODY(clamp_lengths_filter, tc)
{
	uint8_t filter[64];
	uint32_t inimg;
	uint8_t image[256];
	int ilen;
	argdes_t a[5];
	psyscall_t c;

	ATF_REQUIRE_EQ(marshal_optlen_unit(SOL_SOCKET, SO_GET_FILTER), 8);
	ATF_REQUIRE_EQ(marshal_optlen_unit(SOL_SOCKET, SO_TYPE), 1);
	getsockopt_set(&c, a, SO_GET_FILTER, filter, sizeof (filter), &ilen);
	ilen = 1000;
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_REQUIRE_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), 0);
	memcpy(&inimg, image + (m.m_regs[0][4] - m.m_base), 4);
	ATF_CHECK_EQ(inimg, 8);
	ATF_CHECK_EQ(round_trip_len(&c, 4, 1000, 0), 8);
	ATF_CHECK_EQ(round_trip_len(&c, 4, 5, 0), 5);
	/* The same buffer for a byte-counted option: 64. */
	argdes_byval(&a[2], SO_PEERSEC);
	ATF_CHECK_EQ(round_trip_len(&c, 4, 1000, 0), sizeof (filter));
}

ATF_TC_WITHOUT_HEAD(clamp_return_values);
ATF_TC_BODY(clamp_return_values, tc)
{
	char buf[10], link[64], image[256];
	argdes_t a[4];
	psyscall_t c;

	argdes_byval(&a[0], 0);
	argdes_byref(&a[1], buf, sizeof (buf), AI_OUTPUT);
	argdes_byval(&a[2], sizeof (buf));
	psyscall_set(&c, SYS_read, a, 3);
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_REQUIRE_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), 0);
	marshal_result(&c, 500);
	ATF_REQUIRE_EQ(marshal_unpack(&m, &c, 1, image, m.m_outsize), 0);
	ATF_CHECK_EQ(c.ps_rval.sys_rval1, sizeof (buf));
	marshal_result(&c, 7);
	ATF_REQUIRE_EQ(marshal_unpack(&m, &c, 1, image, m.m_outsize), 0);
	ATF_CHECK_EQ(c.ps_rval.sys_rval1, 7);
	marshal_result(&c, (uint64_t)-EIO);
	ATF_REQUIRE_EQ(marshal_unpack(&m, &c, 1, image, m.m_outsize), 0);
	ATF_CHECK_EQ(c.ps_rval.sys_rval1, -1);
	ATF_CHECK_EQ(c.ps_errno, EIO);

	/* readlinkat: the buffer is the third argument. */
	argdes_byval(&a[0], -100);
	argdes_byref(&a[1], buf, sizeof (buf), AI_INPUT);
	argdes_byref(&a[2], link, sizeof (link), AI_OUTPUT);
	argdes_byval(&a[3], sizeof (link));
	psyscall_set(&c, SYS_readlinkat, a, 4);
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_REQUIRE_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), 0);
	marshal_result(&c, 4000);
	ATF_REQUIRE_EQ(marshal_unpack(&m, &c, 1, image, m.m_outsize), 0);
	ATF_CHECK_EQ(c.ps_rval.sys_rval1, sizeof (link));
}

/*
 * The batch that the agent runs per socket: fstat, 16 getsockopts, two
 * names, SO_PEERCRED.  A simulated target writes a distinct pattern into
 * each output; every pattern must land in its caller's buffer.
 */
ATF_TC_WITHOUT_HEAD(socket_batch_round_trip);
ATF_TC_BODY(socket_batch_round_trip, tc)
{
	enum { NC = 20 };
	static uint8_t obj[NC][2][160];
	static uint8_t image[MARSHAL_MAXBLOCK];
	argdes_t a[NC][5];
	psyscall_t c[NC];
	marshal_area_t area;

	for (int k = 0; k < NC; k++) {
		size_t sz = k == 0 ? 144 : (k >= 17 && k <= 18) ? 128 : 4 + k;

		argdes_byval(&a[k][0], 9);
		argdes_byval(&a[k][1], SOL_SOCKET);
		argdes_byval(&a[k][2], k);
		argdes_byref(&a[k][3], obj[k][0], sz, AI_OUTPUT);
		argdes_byref(&a[k][4], obj[k][1], 4, AI_INOUT);
		memcpy(obj[k][1], &(uint32_t){ (uint32_t)sz }, 4);
		psyscall_set(&c[k], SYS_getsockopt, a[k], 5);
	}
	ATF_REQUIRE_EQ(marshal_stack_area(0x7ffe00001008, 0x7ffdfffe0000,
	    65536, &area), 0);
	ATF_REQUIRE_EQ(marshal_plan(&m, &area, c, NC), 0);
	check_plan(&m, &area, c, NC);
	ATF_CHECK_EQ(m.m_outsize, m.m_size);	/* all objects are outputs */
	ATF_REQUIRE_EQ(marshal_pack(&m, c, NC, image, sizeof (image)), 0);
	/* The inout lengths went in verbatim. */
	for (int k = 0; k < NC; k++)
		ATF_REQUIRE(memcmp(image + (m.m_regs[k][4] - m.m_base),
		    obj[k][1], 4) == 0);
	for (int k = 0; k < NC; k++) {
		memset(image + (m.m_regs[k][3] - m.m_base), 0x40 + k,
		    a[k][3].arg_size);
		memcpy(image + (m.m_regs[k][4] - m.m_base),
		    &(uint32_t){ 1000u + (uint32_t)k }, 4);
		marshal_result(&c[k], k == 5 ? (uint64_t)-ENOPROTOOPT : 0);
	}
	ATF_REQUIRE_EQ(marshal_unpack(&m, c, NC, image, m.m_outsize), 0);
	for (int k = 0; k < NC; k++) {
		uint32_t len;

		for (size_t i = 0; i < a[k][3].arg_size; i++)
			ATF_REQUIRE_EQ(obj[k][0][i], 0x40 + k);
		memcpy(&len, obj[k][1], 4);
		ATF_REQUIRE_EQ(len, a[k][3].arg_size);	/* clamped */
	}
	ATF_CHECK_EQ(c[5].ps_errno, ENOPROTOOPT);
	ATF_CHECK_EQ(c[6].ps_errno, 0);
}

/* The target's kernel is never asked to write past an object. */
ATF_TC_WITHOUT_HEAD(clamp_on_the_way_in);
ATF_TC_BODY(clamp_on_the_way_in, tc)
{
	char buf[10], image[256];
	int val, ilen;
	uint32_t inimg;
	argdes_t a[5];
	psyscall_t c;

	/* read(fd, buf[10], 500): the count register says 10. */
	argdes_byval(&a[0], 0);
	argdes_byref(&a[1], buf, sizeof (buf), AI_OUTPUT);
	argdes_byval(&a[2], 500);
	psyscall_set(&c, SYS_read, a, 3);
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	check_plan(&m, &stack_area, &c, 1);
	ATF_CHECK_EQ(m.m_regs[0][2], sizeof (buf));
	argdes_byval(&a[2], 4);
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_CHECK_EQ(m.m_regs[0][2], 4);
	argdes_byval(&a[2], -1);		/* a huge size_t */
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_CHECK_EQ(m.m_regs[0][2], sizeof (buf));
	/* A by-value buffer address: the caller's count stands. */
	argdes_byval(&a[1], 0x7000000);
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_CHECK_EQ((long)m.m_regs[0][2], -1L);

	/* getsockopt with optlen 1000 for a 4-byte optval: 4 goes in. */
	getsockopt_set(&c, a, SO_TYPE, &val, sizeof (val), &ilen);
	ilen = 1000;
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_REQUIRE_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), 0);
	memcpy(&inimg, image + (m.m_regs[0][4] - m.m_base), 4);
	ATF_CHECK_EQ(inimg, sizeof (val));
	ATF_CHECK_EQ(ilen, 1000);	/* the caller's own copy untouched */
	ilen = -5;
	ATF_REQUIRE_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), 0);
	memcpy(&inimg, image + (m.m_regs[0][4] - m.m_base), 4);
	ATF_CHECK_EQ(inimg, sizeof (val));
	ilen = 3;
	ATF_REQUIRE_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), 0);
	memcpy(&inimg, image + (m.m_regs[0][4] - m.m_base), 4);
	ATF_CHECK_EQ(inimg, 3);
	/* A NULL optval: the length goes in as given (the kernel judges). */
	argdes_byval(&a[3], 0);
	ilen = 1000;
	ATF_REQUIRE_EQ(marshal_plan(&m, &stack_area, &c, 1), 0);
	ATF_REQUIRE_EQ(marshal_pack(&m, &c, 1, image, sizeof (image)), 0);
	memcpy(&inimg, image + (m.m_regs[0][4] - m.m_base), 4);
	ATF_CHECK_EQ(inimg, 1000);
}

ATF_TC_WITHOUT_HEAD(lenrules_table);
ATF_TC_BODY(lenrules_table, tc)
{
	const marshal_lenrule_t *r;
	uint_t n;

	n = marshal_lenrules(SYS_recvfrom, &r);
	ATF_REQUIRE_EQ(n, 2);
	ATF_CHECK_EQ(r[0].ml_sysindex, SYS_recvfrom);
	ATF_CHECK_EQ(r[1].ml_sysindex, SYS_recvfrom);
	n = marshal_lenrules(SYS_getsockopt, &r);
	ATF_REQUIRE_EQ(n, 1);
	ATF_CHECK_EQ(r[0].ml_kind, ML_LENARG);
	ATF_CHECK_EQ(r[0].ml_lenarg, 4);
	ATF_CHECK_EQ(r[0].ml_bufarg, 3);
	ATF_CHECK_EQ(marshal_lenrules(SYS_getpid, &r), 0);
	ATF_CHECK(r == NULL);
	ATF_CHECK_EQ(marshal_lenrules(-1, &r), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, layout_getsockopt);
	ATF_TP_ADD_TC(tp, layout_outputs_first);
	ATF_TP_ADD_TC(tp, alignment);
	ATF_TP_ADD_TC(tp, stack_area_below_redzone);
	ATF_TP_ADD_TC(tp, bounds);
	ATF_TP_ADD_TC(tp, largest_batch);
	ATF_TP_ADD_TC(tp, invalid_descriptions);
	ATF_TP_ADD_TC(tp, valid_edges);
	ATF_TP_ADD_TC(tp, pack_inputs_verbatim);
	ATF_TP_ADD_TC(tp, unpack_outputs_only);
	ATF_TP_ADD_TC(tp, result_decoding);
	ATF_TP_ADD_TC(tp, clamp_lengths);
	ATF_TP_ADD_TC(tp, clamp_lengths_filter);
	ATF_TP_ADD_TC(tp, clamp_return_values);
	ATF_TP_ADD_TC(tp, socket_batch_round_trip);
	ATF_TP_ADD_TC(tp, clamp_on_the_way_in);
	ATF_TP_ADD_TC(tp, lenrules_table);
	return (atf_no_error());
}
