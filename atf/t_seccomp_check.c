/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_seccomp_check: the seccomp checker (libproc-patch/libproc/agent/
 * seccomp_check.c), unit by unit, against the kernel where it decides;
 * t_seccomp holds the agent's side.
 *  run_instructions	each instruction, on values whose result the
 *			program's own construction gives
 *  run_faults		every fault of a run, and the steps bound
 *  validate_rules	the kernel's rules, case by case; each case is also
 *			given to the kernel (a child installs it, traced,
 *			and the result of its seccomp(2) is read)
 *  validate_random	random programs: sc_validate accepts exactly what
 *			the kernel accepts
 *  kernel_agrees	random valid filters installed in a child that then
 *			makes the call: what the kernel did (the errno, or
 *			SIGSYS) is what sc_run said
 *  combine		the precedence of the actions, ties, sc_permits,
 *			and the kernel's tie rule
 *  container_profile	an allowlist with an ERRNO default and argument
 *			checks, as container runtimes make them
 */
#include "seccomp_util.h"

#define	OFF_IP		offsetof(struct seccomp_data, instruction_pointer)

static void
input0(sc_input_t *in)
{
	sc_input_make(in, SYS_getsockopt, ISA_AUDIT_ARCH, IP0, args0,
	    0x3f);
}

/* Run p on in: SC_OK required; its return value. */
static uint32_t
run_ok(const struct sock_filter *p, size_t n, const sc_input_t *in,
    const char *what)
{
	sc_fault_t f;
	uint32_t ret;
	int err;

	err = sc_run(p, n, in, &ret, &f);
	ATF_REQUIRE_MSG(err == SC_OK, "%s: %s at %u", what, sc_strerror(err),
	    f.sf_pc);
	ATF_CHECK_MSG(f.sf_steps >= 1 && f.sf_steps <= n, "%s: %u steps",
	    what, f.sf_steps);
	return (ret);
}

/* Run p on the default input: must fail with code at pc. */
static void
run_fails(const struct sock_filter *p, size_t n, const sc_input_t *in,
    int code, uint32_t pc, const char *what)
{
	sc_fault_t f;
	uint32_t ret = 1;
	int err;

	err = sc_run(p, n, in, &ret, &f);
	ATF_CHECK_MSG(err == code && f.sf_pc == pc && ret == 0,
	    "%s: %s at %u (ret %u), not %s at %u", what, sc_strerror(err),
	    f.sf_pc, ret, sc_strerror(code), pc);
	ATF_CHECK_MSG(f.sf_steps <= n, "%s: %u steps", what, f.sf_steps);
}

/* A op k (or X = k with BPF_X): A's value after. */
static uint32_t
alu_of(uint16_t op, uint32_t a, uint32_t k)
{
	struct sock_filter p[] = {
		S(BPF_LD | BPF_IMM, a),
		S(BPF_LDX | BPF_IMM, k),
		S(BPF_ALU | op, k),
		S(BPF_RET | BPF_A, 0),
	};
	sc_input_t in;

	input0(&in);
	return (run_ok(p, NELEM(p), &in, "alu"));
}

/* Does jump op (K or X) with A = a and operand v take its true branch? */
static int
jump_of(uint16_t op, uint32_t a, uint32_t v)
{
	struct sock_filter p[] = {
		S(BPF_LD | BPF_IMM, a),
		S(BPF_LDX | BPF_IMM, v),
		J(BPF_JMP | op, v, 0, 1),
		S(BPF_RET | BPF_K, 1),
		S(BPF_RET | BPF_K, 0),
	};
	sc_input_t in;

	input0(&in);
	return ((int)run_ok(p, NELEM(p), &in, "jump"));
}

ATF_TC_WITHOUT_HEAD(run_instructions);
ATF_TC_BODY(run_instructions, tc)
{
	sc_input_t in;

	input0(&in);
	{
		/* Each word of seccomp_data, as built. */
		static const struct { uint32_t off, want; } w[] = {
			{ OFF_NR, SYS_getsockopt },
			{ OFF_ARCH, ISA_AUDIT_ARCH },
			{ OFF_IP, (uint32_t)IP0 },
			{ OFF_IP + 4, (uint32_t)(IP0 >> 32) },
			{ OFF_ARG(0), 3 }, { OFF_ARG(0) + 4, 0 },
			{ OFF_ARG(3), 0x00001000 }, { OFF_ARG(3) + 4, 0x7ffe },
			{ OFF_ARG(5), 0x1234 },
		};

		for (size_t i = 0; i < NELEM(w); i++) {
			struct sock_filter p[] = {
				S(BPF_LD | BPF_W | BPF_ABS, w[i].off),
				S(BPF_RET | BPF_A, 0),
			};

			ATF_CHECK_EQ(run_ok(p, 2, &in, "ld"), w[i].want);
		}
	}
	{
		/* 16- and 8-bit loads: the host's byte order (x86_64). */
		struct sock_filter h[] = {
			S(BPF_LD | BPF_H | BPF_ABS, OFF_ARG(5)),
			S(BPF_RET | BPF_A, 0),
		};
		struct sock_filter b[] = {
			S(BPF_LD | BPF_B | BPF_ABS, OFF_ARG(5) + 1),
			S(BPF_RET | BPF_A, 0),
		};

		ATF_CHECK_EQ(run_ok(h, 2, &in, "ldh"), 0x1234);
		ATF_CHECK_EQ(run_ok(b, 2, &in, "ldb"), 0x12);
	}
	{
		struct sock_filter len[] = {
			S(BPF_LDX | BPF_W | BPF_LEN, 0),
			S(BPF_MISC | BPF_TXA, 0),
			S(BPF_RET | BPF_A, 0),
		};
		struct sock_filter mem[] = {
			S(BPF_LD | BPF_IMM, 9),
			S(BPF_ST, 3),
			S(BPF_LDX | BPF_IMM, 4),
			S(BPF_STX, 15),
			S(BPF_LD | BPF_W | BPF_LEN, 0),	/* A = 64 */
			S(BPF_LD | BPF_MEM, 15),	/* A = 4 */
			S(BPF_LDX | BPF_MEM, 3),	/* X = 9 */
			S(BPF_ALU | BPF_MUL | BPF_X, 0),	/* A = 36 */
			S(BPF_MISC | BPF_TAX, 0),
			S(BPF_LD | BPF_IMM, 1),
			S(BPF_ALU | BPF_ADD | BPF_X, 0),	/* 37 */
			S(BPF_RET | BPF_A, 0),
		};
		struct sock_filter ja[] = {
			S(BPF_LD | BPF_IMM, 1),
			S(BPF_JMP | BPF_JA, 1),
			S(BPF_RET | BPF_K, 2),
			S(BPF_RET | BPF_A, 0),
		};

		ATF_CHECK_EQ(run_ok(len, NELEM(len), &in, "len"), 64);
		ATF_CHECK_EQ(run_ok(mem, NELEM(mem), &in, "mem"), 37);
		ATF_CHECK_EQ(run_ok(ja, NELEM(ja), &in, "ja"), 1);
	}
	/* ALU: 32-bit, unsigned, wrapping; K and X alike. */
	for (int x = 0; x < 2; x++) {
		uint16_t src = x ? BPF_X : BPF_K;

		ATF_CHECK_EQ(alu_of(BPF_ADD | src, 100, 7), 107);
		ATF_CHECK_EQ(alu_of(BPF_SUB | src, 100, 7), 93);
		ATF_CHECK_EQ(alu_of(BPF_SUB | src, 1, 2), 0xffffffffU);
		ATF_CHECK_EQ(alu_of(BPF_MUL | src, 100, 7), 700);
		ATF_CHECK_EQ(alu_of(BPF_MUL | src, 0x10000, 0x10000), 0);
		ATF_CHECK_EQ(alu_of(BPF_DIV | src, 100, 7), 14);
		ATF_CHECK_EQ(alu_of(BPF_DIV | src, 0xffffffffU, 2),
		    0x7fffffffU);
		ATF_CHECK_EQ(alu_of(BPF_AND | src, 100, 7), 4);
		ATF_CHECK_EQ(alu_of(BPF_OR | src, 100, 7), 103);
		ATF_CHECK_EQ(alu_of(BPF_XOR | src, 100, 7), 99);
		ATF_CHECK_EQ(alu_of(BPF_LSH | src, 100, 7), 12800);
		ATF_CHECK_EQ(alu_of(BPF_LSH | src, 1, 31), 0x80000000U);
		ATF_CHECK_EQ(alu_of(BPF_RSH | src, 100, 7), 0);
		ATF_CHECK_EQ(alu_of(BPF_RSH | src, 0x80000000U, 31), 1);
	}
	ATF_CHECK_EQ(alu_of(BPF_NEG, 5, 0), 0xfffffffbU);
	/* Division by an X of 0 ends the program with 0 (KILL_THREAD). */
	ATF_CHECK_EQ(alu_of(BPF_DIV | BPF_X, 5, 0), 0);
	/* Jumps: unsigned, K and X alike; JSET tests A & operand. */
	for (int x = 0; x < 2; x++) {
		uint16_t src = x ? BPF_X : BPF_K;

		ATF_CHECK_EQ(jump_of(BPF_JEQ | src, 5, 5), 1);
		ATF_CHECK_EQ(jump_of(BPF_JEQ | src, 5, 6), 0);
		ATF_CHECK_EQ(jump_of(BPF_JGT | src, 6, 5), 1);
		ATF_CHECK_EQ(jump_of(BPF_JGT | src, 5, 5), 0);
		ATF_CHECK_EQ(jump_of(BPF_JGT | src, 0x80000000U, 1), 1);
		ATF_CHECK_EQ(jump_of(BPF_JGE | src, 5, 5), 1);
		ATF_CHECK_EQ(jump_of(BPF_JGE | src, 4, 5), 0);
		ATF_CHECK_EQ(jump_of(BPF_JSET | src, 6, 4), 1);
		ATF_CHECK_EQ(jump_of(BPF_JSET | src, 6, 1), 0);
	}
	{
		/* The farthest a conditional jump goes: 255 ahead. */
		struct sock_filter p[258];

		p[0] = J(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 255);	/* A 0 */
		for (int i = 1; i < 256; i++)
			p[i] = S(BPF_RET | BPF_K, 1);
		p[256] = S(BPF_RET | BPF_K, 2);
		p[257] = S(BPF_RET | BPF_K, 3);
		ATF_CHECK_EQ(run_ok(p, NELEM(p), &in, "jf 255"), 2);
	}
}

ATF_TC_WITHOUT_HEAD(run_faults);
ATF_TC_BODY(run_faults, tc)
{
	static struct sock_filter big[SC_MAXINSNS + 1];
	sc_input_t in, part;
	sc_fault_t f;
	uint32_t ret;

#define	LDW(k)	S(BPF_LD | BPF_W | BPF_ABS, (k))
#define	RETA	S(BPF_RET | BPF_A, 0)
	input0(&in);
	/* Loads: inside seccomp_data, aligned to their size. */
	{
		struct sock_filter p64[] = { LDW(64), RETA };
		struct sock_filter p2[] = { LDW(2), RETA };
		struct sock_filter pmax[] = { LDW(0xffffffffU), RETA };
		struct sock_filter h1[] = {
			S(BPF_LD | BPF_H | BPF_ABS, 1), RETA };
		struct sock_filter h62[] = {
			S(BPF_LD | BPF_H | BPF_ABS, 62), RETA };
		struct sock_filter b64[] = {
			S(BPF_LD | BPF_B | BPF_ABS, 64), RETA };
		struct sock_filter b63[] = {
			S(BPF_LD | BPF_B | BPF_ABS, 63), RETA };

		run_fails(p64, 2, &in, SC_ELOAD, 0, "ld 64");
		run_fails(p2, 2, &in, SC_ELOAD, 0, "ld 2");
		run_fails(pmax, 2, &in, SC_ELOAD, 0, "ld max");
		run_fails(h1, 2, &in, SC_ELOAD, 0, "ldh 1");
		run_fails(b64, 2, &in, SC_ELOAD, 0, "ldb 64");
		(void) run_ok(h62, 2, &in, "ldh 62");
		(void) run_ok(b63, 2, &in, "ldb 63");
	}
	/* An argument not known: a load of either of its words stops. */
	{
		struct sock_filter lo[] = { LDW(OFF_ARG(3)), RETA };
		struct sock_filter hi[] = {
			S(BPF_LD | BPF_B | BPF_ABS, OFF_ARG(3) + 7), RETA };
		struct sock_filter other[] = { LDW(OFF_ARG(4)), RETA };
		struct sock_filter skip[] = {
			J(BPF_JMP | BPF_JA, 1, 0, 0),
			LDW(OFF_ARG(3)),
			S(BPF_RET | BPF_K, 5),
		};

		sc_input_make(&part, SYS_getsockopt, ISA_AUDIT_ARCH, IP0,
		    args0, 0x3f & ~(1U << 3));
		run_fails(lo, 2, &part, SC_UNKNOWN, 0, "unknown lo");
		run_fails(hi, 2, &part, SC_UNKNOWN, 0, "unknown hi");
		(void) run_ok(other, 2, &part, "known arg");
		/* Not looked at on the path taken: proven. */
		ATF_CHECK_EQ(run_ok(skip, 3, &part, "skip"), 5);
	}
	/* Jumps out of the program, on the branch taken. */
	{
		struct sock_filter ja[] = {
			S(BPF_JMP | BPF_JA, 1), RETA };
		struct sock_filter jamax[] = {
			S(BPF_JMP | BPF_JA, 0xffffffffU), RETA };
		struct sock_filter jt[] = {
			S(BPF_LD | BPF_IMM, 0),
			J(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0),
			RETA,
		};
		struct sock_filter jf[] = {
			S(BPF_LD | BPF_IMM, 1),
			J(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0),
			RETA,
		};

		run_fails(ja, 2, &in, SC_EJUMP, 0, "ja past");
		run_fails(jamax, 2, &in, SC_EJUMP, 0, "ja max");
		run_fails(jt, 3, &in, SC_EJUMP, 1, "jt past");
		/* The branch not taken is not the run's business. */
		(void) run_ok(jf, 3, &in, "jt not taken");
	}
	{
		struct sock_filter noret[] = { S(BPF_LD | BPF_IMM, 1) };
		struct sock_filter st16[] = { S(BPF_ST, 16), RETA };
		struct sock_filter unset[] = { S(BPF_LD | BPF_MEM, 0), RETA };
		struct sock_filter lshk[] = {
			S(BPF_ALU | BPF_LSH | BPF_K, 32), RETA };
		struct sock_filter rshx[] = {
			S(BPF_LDX | BPF_IMM, 32),
			S(BPF_ALU | BPF_RSH | BPF_X, 0), RETA };
		struct sock_filter divk[] = {
			S(BPF_ALU | BPF_DIV | BPF_K, 0), RETA };

		run_fails(noret, 1, &in, SC_ENORET, 0, "no ret");
		run_fails(st16, 2, &in, SC_EMEM, 0, "st 16");
		run_fails(unset, 2, &in, SC_EMEM, 0, "unset");
		run_fails(lshk, 2, &in, SC_ESHIFT, 0, "lsh 32");
		run_fails(rshx, 3, &in, SC_ESHIFT, 1, "rsh x 32");
		run_fails(divk, 2, &in, SC_EDIV, 0, "div 0");
	}
	/* What a seccomp filter cannot have. */
	{
		static const uint16_t bad[] = {
			BPF_ALU | BPF_MOD | BPF_K, BPF_ALU | BPF_MOD | BPF_X,
			BPF_LD | BPF_W | BPF_IND, BPF_LDX | BPF_B | BPF_MSH,
			BPF_RET | BPF_X, BPF_ALU | BPF_NEG | BPF_X,
			BPF_LDX | BPF_W | BPF_ABS, BPF_JMP | BPF_JA | BPF_X,
			0x0106, 0x0008, 0xffff,
		};

		for (size_t i = 0; i < NELEM(bad); i++) {
			struct sock_filter p[] = { S(bad[i], 0), RETA };

			run_fails(p, 2, &in, SC_EINSN, 0, "bad code");
		}
	}
	/* Lengths, and the bound on steps: a run is never longer. */
	ATF_CHECK_EQ(sc_run(NULL, 1, &in, &ret, &f), SC_ELEN);
	ATF_CHECK_EQ(sc_run(big, 0, &in, &ret, &f), SC_ELEN);
	for (size_t i = 0; i < SC_MAXINSNS; i++)
		big[i] = S(BPF_JMP | BPF_JA, 0);
	big[SC_MAXINSNS - 1] = S(BPF_RET | BPF_K, 7);
	big[SC_MAXINSNS] = S(BPF_RET | BPF_K, 8);
	ATF_CHECK_EQ(run_ok(big, SC_MAXINSNS, &in, "longest"), 7);
	ATF_CHECK_EQ(sc_run(big, SC_MAXINSNS, &in, &ret, &f), SC_OK);
	ATF_CHECK_EQ(f.sf_steps, SC_MAXINSNS);
	ATF_CHECK_EQ(sc_run(big, SC_MAXINSNS + 1, &in, &ret, &f), SC_ELEN);
	ATF_CHECK_EQ(sc_validate(big, SC_MAXINSNS, NULL), SC_OK);
	ATF_CHECK_EQ(sc_validate(big, SC_MAXINSNS + 1, NULL), SC_ELEN);
#undef	LDW
#undef	RETA
}

/* Check sc_validate against the expected code, and the kernel. */
static void
check_rule(const struct sock_filter *p, size_t n, int want, const char *what)
{
	sc_fault_t f;
	int got = sc_validate(p, n, &f), k;

	ATF_CHECK_MSG(got == want, "%s: sc_validate says %s at %u, not %s",
	    what, sc_strerror(got), f.sf_pc, sc_strerror(want));
	k = kernel_accepts(p, n);
	ATF_REQUIRE_MSG(k >= 0, "%s: cannot ask the kernel", what);
	ATF_CHECK_MSG(k == (want == SC_OK), "%s: the kernel %s it", what,
	    k ? "accepts" : "refuses");
}

ATF_TC_WITHOUT_HEAD(validate_rules);
ATF_TC_BODY(validate_rules, tc)
{
	static struct sock_filter big[SC_MAXINSNS + 1];
#define	RETK	S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define	CHECK(want, ...)						\
	do {								\
		struct sock_filter p_[] = { __VA_ARGS__ };		\
		check_rule(p_, NELEM(p_), (want), #__VA_ARGS__);	\
	} while (0)

	CHECK(SC_OK, RETK);
	CHECK(SC_OK, S(BPF_RET | BPF_A, 0));
	check_rule(big, 0, SC_ELEN, "empty");
	for (size_t i = 0; i < SC_MAXINSNS + 1; i++)
		big[i] = S(BPF_LD | BPF_IMM, 0);
	big[SC_MAXINSNS - 1] = RETK;
	check_rule(big, SC_MAXINSNS, SC_OK, "4096 instructions");
	big[SC_MAXINSNS] = RETK;
	check_rule(big, SC_MAXINSNS + 1, SC_ELEN, "4097 instructions");
	CHECK(SC_ENORET, S(BPF_LD | BPF_IMM, 0));
	CHECK(SC_ENORET, RETK, S(BPF_LD | BPF_IMM, 0));
	/* Loads. */
	CHECK(SC_OK, S(BPF_LD | BPF_W | BPF_ABS, 60), RETK);
	CHECK(SC_ELOAD, S(BPF_LD | BPF_W | BPF_ABS, 64), RETK);
	CHECK(SC_ELOAD, S(BPF_LD | BPF_W | BPF_ABS, 2), RETK);
	CHECK(SC_ELOAD, S(BPF_LD | BPF_W | BPF_ABS, 0xfffff000U), RETK);
	CHECK(SC_EINSN, S(BPF_LD | BPF_H | BPF_ABS, 0), RETK);
	CHECK(SC_EINSN, S(BPF_LD | BPF_B | BPF_ABS, 0), RETK);
	CHECK(SC_EINSN, S(BPF_LD | BPF_W | BPF_IND, 0), RETK);
	CHECK(SC_EINSN, S(BPF_LDX | BPF_B | BPF_MSH, 0), RETK);
	CHECK(SC_EINSN, S(BPF_LDX | BPF_W | BPF_ABS, 0), RETK);
	CHECK(SC_OK, S(BPF_LD | BPF_W | BPF_LEN, 0),
	    S(BPF_LDX | BPF_W | BPF_LEN, 0), RETK);
	CHECK(SC_EINSN, S(BPF_LD | BPF_H | BPF_IMM, 0), RETK);
	/* ALU. */
	CHECK(SC_EINSN, S(BPF_ALU | BPF_MOD | BPF_K, 3), RETK);
	CHECK(SC_EINSN, S(BPF_ALU | BPF_MOD | BPF_X, 0), RETK);
	CHECK(SC_EDIV, S(BPF_ALU | BPF_DIV | BPF_K, 0), RETK);
	CHECK(SC_OK, S(BPF_ALU | BPF_DIV | BPF_X, 0), RETK);
	CHECK(SC_OK, S(BPF_ALU | BPF_LSH | BPF_K, 31), RETK);
	CHECK(SC_ESHIFT, S(BPF_ALU | BPF_LSH | BPF_K, 32), RETK);
	CHECK(SC_ESHIFT, S(BPF_ALU | BPF_RSH | BPF_K, 32), RETK);
	CHECK(SC_OK, S(BPF_ALU | BPF_RSH | BPF_X, 0), RETK);
	CHECK(SC_OK, S(BPF_ALU | BPF_XOR | BPF_K, 7), RETK);
	CHECK(SC_OK, S(BPF_ALU | BPF_NEG, 0), RETK);
	CHECK(SC_EINSN, S(BPF_ALU | BPF_NEG | BPF_X, 0), RETK);
	CHECK(SC_EINSN, S(BPF_RET | BPF_X, 0));
	CHECK(SC_EINSN, S(0x0106, 0));
	CHECK(SC_EINSN, S(BPF_JMP | BPF_JA | BPF_X, 0), RETK);
	CHECK(SC_OK, S(BPF_MISC | BPF_TAX, 0), S(BPF_MISC | BPF_TXA, 0),
	    RETK);
	/* Scratch memory. */
	CHECK(SC_OK, S(BPF_ST, 15), S(BPF_LD | BPF_MEM, 15), RETK);
	CHECK(SC_EMEM, S(BPF_ST, 16), RETK);
	CHECK(SC_EMEM, S(BPF_STX, 16), RETK);
	CHECK(SC_EMEM, S(BPF_LDX | BPF_MEM, 16), RETK);
	CHECK(SC_EMEM, S(BPF_LD | BPF_MEM, 0), RETK);
	CHECK(SC_EMEM, S(BPF_ST, 1), S(BPF_LDX | BPF_MEM, 0), RETK);
	/* Written on one way only, then read where the ways meet. */
	CHECK(SC_EMEM, J(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
	    S(BPF_ST, 0), S(BPF_LD | BPF_MEM, 0), RETK);
	CHECK(SC_OK, J(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
	    S(BPF_ST, 0), S(BPF_JMP | BPF_JA, 1), S(BPF_STX, 0),
	    S(BPF_LD | BPF_MEM, 0), RETK);
	/* What was written before a jump reaches its targets. */
	CHECK(SC_OK, S(BPF_ST, 0), J(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0),
	    S(BPF_ST, 1), S(BPF_JMP | BPF_JA, 0), S(BPF_LD | BPF_MEM, 0),
	    RETK);
	CHECK(SC_OK, S(BPF_ST, 0), J(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0),
	    S(BPF_LD | BPF_MEM, 0), RETK);
	/* After a return the next instruction keeps what was written. */
	CHECK(SC_OK, S(BPF_ST, 0), RETK, S(BPF_LD | BPF_MEM, 0), RETK);
	/* Jumps. */
	CHECK(SC_OK, S(BPF_JMP | BPF_JA, 1), RETK, RETK);
	CHECK(SC_EJUMP, S(BPF_JMP | BPF_JA, 2), RETK, RETK);
	CHECK(SC_EJUMP, S(BPF_JMP | BPF_JA, 0xffffffffU), RETK);
	CHECK(SC_OK, J(BPF_JMP | BPF_JGT | BPF_K, 0, 1, 0), RETK, RETK);
	CHECK(SC_EJUMP, J(BPF_JMP | BPF_JGT | BPF_K, 0, 2, 0), RETK, RETK);
	CHECK(SC_EJUMP, J(BPF_JMP | BPF_JSET | BPF_X, 0, 0, 2), RETK,
	    RETK);
	CHECK(SC_EJUMP, J(BPF_JMP | BPF_JGE | BPF_K, 0, 0, 0));
#undef	CHECK
#undef	RETK
}

ATF_TC_WITHOUT_HEAD(validate_random);
ATF_TC_BODY(validate_random, tc)
{
	static const uint16_t codes[] = {
		BPF_LD | BPF_W | BPF_ABS, BPF_LD | BPF_H | BPF_ABS,
		BPF_LD | BPF_W | BPF_LEN, BPF_LDX | BPF_W | BPF_LEN,
		BPF_LD | BPF_IMM, BPF_LDX | BPF_IMM, BPF_LD | BPF_MEM,
		BPF_LDX | BPF_MEM, BPF_ST, BPF_STX, BPF_MISC | BPF_TAX,
		BPF_MISC | BPF_TXA, BPF_ALU | BPF_ADD | BPF_K,
		BPF_ALU | BPF_DIV | BPF_K, BPF_ALU | BPF_DIV | BPF_X,
		BPF_ALU | BPF_LSH | BPF_K, BPF_ALU | BPF_RSH | BPF_X,
		BPF_ALU | BPF_MOD | BPF_K, BPF_ALU | BPF_NEG,
		BPF_JMP | BPF_JA, BPF_JMP | BPF_JEQ | BPF_K,
		BPF_JMP | BPF_JGT | BPF_X, BPF_JMP | BPF_JSET | BPF_K,
		BPF_RET | BPF_K, BPF_RET | BPF_A, BPF_RET | BPF_X,
	};
	int agree = 0, accepted = 0;

	for (int t = 0; t < 400; t++) {
		struct sock_filter p[12];
		size_t n = 1 + rnd() % NELEM(p);
		int ours, k;

		for (size_t i = 0; i < n; i++) {
			uint16_t c = codes[rnd() % NELEM(codes)];

			p[i] = J(c, rnd_k(),
			    (uint8_t)(rnd() % (n + 1)),
			    (uint8_t)(rnd() % (n + 1)));
			if (BPF_CLASS(c) == BPF_JMP && BPF_OP(c) == BPF_JA)
				p[i].k = rnd() % (n + 1);
			if (BPF_CLASS(c) == BPF_ST || BPF_CLASS(c) == BPF_STX ||
			    BPF_MODE(c) == BPF_MEM)
				p[i].k = rnd() % 17;
		}
		if (rnd() % 8 != 0)
			p[n - 1] = S(BPF_RET | BPF_K, 0);
		ours = sc_validate(p, n, NULL) == SC_OK;
		k = kernel_accepts(p, n);
		ATF_REQUIRE_MSG(k >= 0, "cannot ask the kernel");
		ATF_CHECK_MSG(ours == k, "program %d: sc_validate %s, the "
		    "kernel %s", t, ours ? "accepts" : "refuses",
		    k ? "accepts" : "refuses");
		agree += ours == k;
		accepted += k;
	}
	(void) printf("%d of 400 random programs judged alike; the kernel "
	    "accepted %d\n", agree, accepted);
	ATF_CHECK_MSG(accepted >= 40, "only %d accepted: a weak test",
	    accepted);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, run_instructions);
	ATF_TP_ADD_TC(tp, run_faults);
	ATF_TP_ADD_TC(tp, validate_rules);
	ATF_TP_ADD_TC(tp, validate_random);
	return (atf_no_error());
}
