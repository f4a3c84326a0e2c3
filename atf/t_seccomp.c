/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_seccomp: the agent never injects a system call that the target's
 * seccomp filters have not been proven to allow.
 *
 * The checker (libproc-patch/libproc/agent/seccomp_check.c), unit by unit:
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
 * The agent, on targets of this program's own (forked: a TCP listener, a
 * socketpair, a pipe pair to answer on):
 *  kill_getsockopt	a filter that kills the process on getsockopt:
 *			pfiles --via=agent exits 0, prints every fd, says
 *			why the socket details are missing, and the target
 *			lives (it answers, and exits 0 when told)
 *  kill_mmap		the same on mmap: pfiles prints all (no call of a
 *			socket's batch is an mmap); a batch too large for
 *			the stack is refused before its mapping is made
 *  kill_sendmsg		the same on sendmsg; sendmsg injected is refused
 *  errno_getsockopt	ERRNO instead: the agent runs, the facts are
 *			missing; ERRNO with errno 0 is refused
 *  actions		every action on getppid: refused or run, as said
 *  arguments		a filter on a by-value argument decides per call;
 *			one on an address the agent has not chosen refuses
 *  several_filters	one filter among several kills: refused
 *  strict_mode		only read, write, exit and rt_sigreturn
 *  filter_added	a filter added by another thread of the target
 *			(TSYNC) while the agent holds one is seen
 *  unreadable		pfiles under a filter of its own cannot read the
 *			target's: the agent refuses, the target lives
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libproc.h"
#include "agent/seccomp_check.h"
#include "testutil.h"

#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"
#define	NELEM(a)	(sizeof (a) / sizeof ((a)[0]))
#define	S(c, k)		((struct sock_filter)BPF_STMT((c), (k)))
#define	J(c, k, t, f)	((struct sock_filter)BPF_JUMP((c), (k), (t), (f)))
#define	OFF_NR		offsetof(struct seccomp_data, nr)
#define	OFF_ARCH	offsetof(struct seccomp_data, arch)
#define	OFF_IP		offsetof(struct seccomp_data, instruction_pointer)
#define	OFF_ARG(i)	(offsetof(struct seccomp_data, args) + 8 * (i))
#define	RET_ERRNO(e)	(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define	WAIT_MS		10000

/* ------------------------------------------------------------------ */
/* The checker. */

static const uint64_t args0[6] = {
	3, 1, 3, 0x7ffe00001000ULL, 0x7ffe00001008ULL, 0x1234
};
#define	IP0	0x7fff12345678ULL

static void
input0(sc_input_t *in)
{
	sc_input_make(in, SYS_getsockopt, AUDIT_ARCH_X86_64, IP0, args0,
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
			{ OFF_ARCH, AUDIT_ARCH_X86_64 },
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

		sc_input_make(&part, SYS_getsockopt, AUDIT_ARCH_X86_64, IP0,
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

/*
 * Does the kernel accept p as a seccomp filter?  A child installs it
 * under ptrace, and the result of its seccomp(2) is read at the call's
 * exit, before the filter can do anything to the child; the child is
 * then killed.  1, 0, or -1 when it could not be found out.
 */
static int
kernel_accepts(const struct sock_filter *p, size_t n)
{
	struct sock_fprog fp = { (unsigned short)n,
	    (struct sock_filter *)(uintptr_t)p };
	struct user_regs_struct r;
	int st, in_call = 0, result = -1;
	pid_t pid;

	if (n > 0xffff)
		return (0);	/* the length does not even fit */
	if ((pid = fork()) < 0)
		return (-1);
	if (pid == 0) {
		(void) ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		(void) raise(SIGSTOP);
		(void) prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		(void) syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		goto out;
	(void) ptrace(PTRACE_SETOPTIONS, pid, NULL,
	    (void *)(long)PTRACE_O_TRACESYSGOOD);
	for (int i = 0; i < 64; i++) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) != 0 ||
		    waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80) ||
		    ptrace(PTRACE_GETREGS, pid, NULL, &r) != 0 ||
		    r.orig_rax != SYS_seccomp)
			continue;
		if (in_call) {
			result = r.rax == 0;
			break;
		}
		in_call = 1;
	}
out:
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, &st, 0);
	return (result);
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

/* A small pseudo-random generator, the same on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL +
	    1442695040888963407ULL;
	return ((uint32_t)(rng_state >> 33));
}

/* A constant of the kinds filters and bugs like. */
static uint32_t
rnd_k(void)
{
	static const uint32_t ks[] = {
		0, 1, 2, 3, 4, 7, 15, 16, 31, 32, 60, 62, 63, 64, 255, 256,
		0xffff, 0x7fff0000, 0x80000000, 0xfffff000, 0xffffffff
	};

	return (rnd() % 3 == 0 ? rnd() : ks[rnd() % NELEM(ks)]);
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

/* How a child's call under a filter ended. */
typedef struct kres {
	int	kr_sig;		/* killed by this signal; 0: not */
	long	kr_ret;
	int	kr_errno;
} kres_t;

/* Install p in a child, which then makes call nr with args. */
static void
kernel_run(const struct sock_filter *p, size_t n, int nr,
    const uint64_t a[6], kres_t *kr)
{
	struct sock_fprog fp = { (unsigned short)n,
	    (struct sock_filter *)(uintptr_t)p };
	long out[2] = { 0, 0 };
	int fds[2], st;
	pid_t pid;

	ATF_REQUIRE(pipe(fds) == 0);
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		(void) close(fds[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) != 0)
			_exit(99);
		errno = 0;
		out[0] = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		out[1] = errno;
		(void) write(fds[1], out, sizeof (out));
		_exit(0);
	}
	(void) close(fds[1]);
	memset(kr, 0, sizeof (*kr));
	if (read(fds[0], out, sizeof (out)) == (ssize_t)sizeof (out)) {
		kr->kr_ret = out[0];
		kr->kr_errno = (int)out[1];
	}
	(void) close(fds[0]);
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_REQUIRE_MSG(!WIFEXITED(st) || WEXITSTATUS(st) == 0,
	    "the child could not install the filter");
	if (WIFSIGNALED(st))
		kr->kr_sig = WTERMSIG(st);
}

/*
 * A random filter that the kernel accepts, for getppid: prefix (not
 * getppid: allow), M[0..15] written, a random body, and an epilogue
 * that returns ERRNO with the low 12 bits of A.  Jumps stay in the body
 * or land on the epilogue; nothing loads the instruction pointer (the
 * child's is not known here).
 */
static size_t
random_filter(struct sock_filter *p, size_t body)
{
	size_t n = 0, epi;

	p[n++] = S(BPF_LD | BPF_W | BPF_ABS, OFF_NR);
	p[n++] = J(BPF_JMP | BPF_JEQ | BPF_K,
	    SYS_getppid, 0, 0);		/* jf set below */
	for (uint32_t i = 0; i < SC_MEMWORDS; i++) {
		p[n++] = S(BPF_LD | BPF_IMM, rnd_k());
		p[n++] = S(BPF_ST, i);
	}
	epi = n + body;
	for (size_t i = 0; i < body; i++, n++) {
		static const uint16_t ops[] = {
			BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_AND, BPF_OR,
			BPF_XOR, BPF_LSH, BPF_RSH
		};
		static const uint16_t jops[] = {
			BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET
		};
		static const uint32_t words[] = {
			0, 4, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60
		};
		size_t room = epi - n - 1;	/* the farthest jump */
		uint16_t src = rnd() % 2 ? BPF_X : BPF_K, op;
		uint32_t k = rnd_k();

		switch (rnd() % 12) {
		case 0:
		case 1:
			p[n] = S(BPF_LD | BPF_W | BPF_ABS,
			    words[rnd() % NELEM(words)]);
			break;
		case 2:
			p[n] = S(rnd() % 2 ? BPF_LD |
			    BPF_IMM : BPF_LDX | BPF_IMM, k);
			break;
		case 3:
			p[n] = S(rnd() % 2 ? BPF_LD |
			    BPF_MEM : BPF_LDX | BPF_MEM, rnd() % 16);
			break;
		case 4:
			p[n] = S(rnd() % 2 ? BPF_ST :
			    BPF_STX, rnd() % 16);
			break;
		case 5: {
			static const uint16_t misc[] = {
				BPF_MISC | BPF_TAX, BPF_MISC | BPF_TXA,
				BPF_ALU | BPF_NEG, BPF_LD | BPF_W | BPF_LEN,
				BPF_LDX | BPF_W | BPF_LEN
			};
			p[n] = S(misc[rnd() % NELEM(misc)],
			    0);
			break;
		}
		case 6:
		case 7:
		case 8:
			op = ops[rnd() % NELEM(ops)];
			if (src == BPF_K && op == BPF_DIV && k == 0)
				k = 3;
			if (src == BPF_K && (op == BPF_LSH || op == BPF_RSH))
				k %= 32;
			p[n] = S(BPF_ALU | op | src, k);
			break;
		case 9:
			p[n] = S(BPF_JMP | BPF_JA,
			    rnd() % (room + 1));
			break;
		case 10:
			p[n] = J(BPF_JMP |
			    jops[rnd() % NELEM(jops)] | src, k,
			    (uint8_t)(rnd() % (room + 1)),
			    (uint8_t)(rnd() % (room + 1)));
			break;
		default:
			p[n] = S(BPF_RET | BPF_K,
			    RET_ERRNO(rnd() % 0x1000));
			break;
		}
	}
	p[n++] = S(BPF_ALU | BPF_AND | BPF_K, 0xfff);
	p[n++] = S(BPF_ALU | BPF_OR | BPF_K,
	    SECCOMP_RET_ERRNO);
	p[n++] = S(BPF_RET | BPF_A, 0);
	p[n++] = S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	p[1].jf = (uint8_t)(n - 1 - 2);
	return (n);
}

ATF_TC_WITHOUT_HEAD(kernel_agrees);
ATF_TC_BODY(kernel_agrees, tc)
{
	int compared = 0, kills = 0, undefined = 0;

	for (int t = 0; t < 300; t++) {
		struct sock_filter p[2 + 32 + 60 + 4];
		size_t n = random_filter(p, 1 + rnd() % 60);
		uint64_t a[6];
		sc_input_t in;
		sc_fault_t f;
		uint32_t ret;
		kres_t kr;
		int err;

		for (int i = 0; i < 6; i++)
			a[i] = (uint64_t)rnd() << 32 | rnd_k();
		ATF_REQUIRE_MSG(sc_validate(p, n, &f) == SC_OK,
		    "program %d: %s at %u", t, sc_strerror(f.sf_code),
		    f.sf_pc);
		/* Not the instruction pointer: words 2 and 3 unknown. */
		sc_input_make(&in, SYS_getppid, AUDIT_ARCH_X86_64, 0, a,
		    0x3f);
		in.si_known &= (uint16_t)~0xcU;
		err = sc_run(p, n, &in, &ret, &f);
		ATF_CHECK(f.sf_steps <= n);
		if (err == SC_ESHIFT) {
			undefined++;	/* no defined result to compare */
			continue;
		}
		ATF_REQUIRE_MSG(err == SC_OK, "program %d: %s at %u", t,
		    sc_strerror(err), f.sf_pc);
		kernel_run(p, n, SYS_getppid, a, &kr);
		compared++;
		if (sc_action(ret) == SC_ACT_KILL_THREAD) {
			kills++;
			ATF_CHECK_MSG(kr.kr_sig == SIGSYS, "program %d: the "
			    "kernel did not kill (signal %d, ret %ld)", t,
			    kr.kr_sig, kr.kr_ret);
			continue;
		}
		ATF_REQUIRE_EQ(sc_action(ret), SC_ACT_ERRNO);
		ATF_CHECK_MSG(kr.kr_sig == 0, "program %d: killed by %d", t,
		    kr.kr_sig);
		if ((ret & SECCOMP_RET_DATA) == 0) {
			ATF_CHECK_MSG(kr.kr_ret == 0 && kr.kr_errno == 0,
			    "program %d: ERRNO 0 gave %ld, errno %d", t,
			    kr.kr_ret, kr.kr_errno);
		} else {
			ATF_CHECK_MSG(kr.kr_ret == -1 &&
			    (uint32_t)kr.kr_errno == (ret & SECCOMP_RET_DATA),
			    "program %d: errno %d, sc_run said %u", t,
			    kr.kr_errno, ret & SECCOMP_RET_DATA);
		}
	}
	(void) printf("%d filters compared with the kernel (%d kills), %d "
	    "with an undefined shift\n", compared, kills, undefined);
	ATF_CHECK(compared >= 200);
}

ATF_TC_WITHOUT_HEAD(combine);
ATF_TC_BODY(combine, tc)
{
	/* The documented order, highest precedence first. */
	static const uint32_t acts[] = {
		SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD,
		SECCOMP_RET_TRAP | 7, RET_ERRNO(13),
		SECCOMP_RET_USER_NOTIF, SECCOMP_RET_TRACE | 5,
		SECCOMP_RET_LOG, SECCOMP_RET_ALLOW,
	};
	static const sc_action_t kinds[] = {
		SC_ACT_KILL_PROCESS, SC_ACT_KILL_THREAD, SC_ACT_TRAP,
		SC_ACT_ERRNO, SC_ACT_USER_NOTIF, SC_ACT_TRACE, SC_ACT_LOG,
		SC_ACT_ALLOW,
	};
	uint32_t two[2], other = 0x00010000U;
	kres_t kr;

	for (size_t i = 0; i < NELEM(acts); i++) {
		ATF_CHECK_EQ(sc_action(acts[i]), kinds[i]);
		for (size_t j = 0; j < NELEM(acts); j++) {
			two[0] = acts[i];
			two[1] = acts[j];
			ATF_CHECK_EQ_MSG(sc_combine(two, 2),
			    acts[i < j ? i : j], "%s with %s",
			    sc_action_name(kinds[i]),
			    sc_action_name(kinds[j]));
		}
	}
	ATF_CHECK_EQ(sc_combine(NULL, 0), SECCOMP_RET_ALLOW);
	/* The kernel starts from ALLOW: an ALLOW with data keeps it. */
	two[0] = SECCOMP_RET_ALLOW | 5;
	ATF_CHECK_EQ(sc_combine(two, 1), SECCOMP_RET_ALLOW);
	/* Ties: the most recently installed (first) filter's data. */
	two[0] = RET_ERRNO(1);
	two[1] = RET_ERRNO(2);
	ATF_CHECK_EQ(sc_combine(two, 2), RET_ERRNO(1));
	/* A value the kernel does not know: by its value, and it kills. */
	ATF_CHECK_EQ(sc_action(other), SC_ACT_OTHER);
	two[0] = SECCOMP_RET_TRAP;
	two[1] = other;
	ATF_CHECK_EQ(sc_combine(two, 2), other);
	two[0] = SECCOMP_RET_KILL_THREAD;
	ATF_CHECK_EQ(sc_combine(two, 2), SECCOMP_RET_KILL_THREAD);
	/* What the agent may run. */
	ATF_CHECK(sc_permits(SECCOMP_RET_ALLOW, 0));
	ATF_CHECK(sc_permits(SECCOMP_RET_LOG, 0));
	ATF_CHECK(sc_permits(RET_ERRNO(1), 1));
	ATF_CHECK(!sc_permits(RET_ERRNO(1), 0));
	ATF_CHECK(!sc_permits(RET_ERRNO(0), 1));
	for (size_t i = 0; i < 6; i++) {
		if (kinds[i] != SC_ACT_ERRNO)
			ATF_CHECK(!sc_permits(acts[i], 1));
	}
	ATF_CHECK(!sc_permits(other, 1));

	/* The kernel's ties, on a child with two filters. */
	{
		struct sock_filter older[] = {
			S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
			J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
			S(BPF_RET | BPF_K, RET_ERRNO(1)),
			S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		/* Two filters in one: the newer is the second prctl. */
		struct sock_fprog fo = { NELEM(older), older };
		int fds[2], st, e = 0;
		pid_t pid;

		ATF_REQUIRE(pipe(fds) == 0);
		ATF_REQUIRE((pid = fork()) >= 0);
		if (pid == 0) {
			(void) prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
			(void) prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fo);
			older[2].k = RET_ERRNO(2);
			(void) prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fo);
			errno = 0;
			(void) syscall(SYS_getppid);
			e = errno;
			(void) write(fds[1], &e, sizeof (e));
			_exit(0);
		}
		(void) close(fds[1]);
		ATF_REQUIRE(read(fds[0], &e, sizeof (e)) == sizeof (e));
		(void) close(fds[0]);
		(void) waitpid(pid, &st, 0);
		two[0] = RET_ERRNO(2);		/* newest first */
		two[1] = RET_ERRNO(1);
		ATF_CHECK_EQ(e, 2);
		ATF_CHECK_EQ(sc_combine(two, 2) & SECCOMP_RET_DATA,
		    (uint32_t)e);
	}
	/* One filter, and its kernel: ERRNO 0 makes the call "succeed". */
	{
		struct sock_filter p[] = {
			S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
			J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
			S(BPF_RET | BPF_K, RET_ERRNO(0)),
			S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};

		kernel_run(p, NELEM(p), SYS_getppid, args0, &kr);
		ATF_CHECK_EQ(kr.kr_sig, 0);
		ATF_CHECK_EQ(kr.kr_ret, 0);
		ATF_CHECK_EQ(kr.kr_errno, 0);
	}
}

/*
 * A container runtime's default profile, in shape: the architecture
 * (others killed), x32 numbers refused, personality allowed for a few
 * values of its argument, clone refused with CLONE_NEWUSER, an allowlist,
 * and ERRNO(EPERM) for everything else.
 */
static const int allowed[] = {
	SYS_read, SYS_write, SYS_close, SYS_fstat, SYS_mmap, SYS_munmap,
	SYS_socket, SYS_sendmsg, SYS_recvmsg, SYS_getsockopt,
	SYS_getsockname, SYS_getpeername, SYS_exit_group, SYS_getpid,
};
static const uint32_t personas[] = { 0, 8, 0x20000, 0xffffffffU };

static size_t
build_profile(struct sock_filter *p)
{
	size_t n = 0;

	p[n++] = S(BPF_LD | BPF_W | BPF_ABS, OFF_ARCH);
	p[n++] = J(BPF_JMP | BPF_JEQ | BPF_K,
	    AUDIT_ARCH_X86_64, 1, 0);
	p[n++] = S(BPF_RET | BPF_K,
	    SECCOMP_RET_KILL_PROCESS);
	p[n++] = S(BPF_LD | BPF_W | BPF_ABS, OFF_NR);
	p[n++] = J(BPF_JMP | BPF_JGE | BPF_K,
	    0x40000000U, 0, 1);
	p[n++] = S(BPF_RET | BPF_K, RET_ERRNO(EPERM));
	for (size_t i = 0; i < NELEM(allowed); i++) {
		p[n++] = J(BPF_JMP | BPF_JEQ | BPF_K,
		    (uint32_t)allowed[i], 0, 1);
		p[n++] = S(BPF_RET | BPF_K,
		    SECCOMP_RET_ALLOW);
	}
	/* personality(persona): allowed for the listed values only. */
	p[n++] = J(BPF_JMP | BPF_JEQ | BPF_K,
	    SYS_personality, 0, 3 + NELEM(personas));
	p[n++] = S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(0));
	for (size_t i = 0; i < NELEM(personas); i++)
		p[n++] = J(BPF_JMP | BPF_JEQ | BPF_K,
		    personas[i], (uint8_t)(NELEM(personas) - i), 0);
	p[n++] = S(BPF_RET | BPF_K, RET_ERRNO(EPERM));
	p[n++] = S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	/* The accumulator no longer holds nr: load it again. */
	p[n++] = S(BPF_LD | BPF_W | BPF_ABS, OFF_NR);
	/* clone(flags): refused with CLONE_NEWUSER. */
	p[n++] = J(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone,
	    0, 4);
	p[n++] = S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(0));
	p[n++] = J(BPF_JMP | BPF_JSET | BPF_K,
	    0x10000000U, 1, 0);
	p[n++] = S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	p[n++] = S(BPF_RET | BPF_K, RET_ERRNO(EPERM));
	p[n++] = S(BPF_RET | BPF_K, RET_ERRNO(EPERM));
	return (n);
}

/* The profile's verdict on one call. */
static uint32_t
profile_says(const struct sock_filter *p, size_t n, uint32_t arch, int nr,
    uint64_t arg0)
{
	const sc_prog_t prog = { p, n };
	uint64_t a[6] = { arg0, 0, 0, 0, 0, 0 };
	sc_input_t in;
	sc_fault_t f;
	uint32_t ret;
	size_t which;

	sc_input_make(&in, nr, arch, IP0, a, 0x3f);
	ATF_REQUIRE_EQ(sc_judge(&prog, 1, &in, &ret, &f, &which), SC_OK);
	return (ret);
}

ATF_TC_WITHOUT_HEAD(container_profile);
ATF_TC_BODY(container_profile, tc)
{
	struct sock_filter p[128];
	size_t n = build_profile(p);
	sc_fault_t f;

	ATF_REQUIRE_MSG(sc_validate(p, n, &f) == SC_OK, "%s at %u",
	    sc_strerror(f.sf_code), f.sf_pc);
	ATF_CHECK_EQ(kernel_accepts(p, n), 1);
	for (size_t i = 0; i < NELEM(allowed); i++)
		ATF_CHECK_EQ(profile_says(p, n, AUDIT_ARCH_X86_64, allowed[i],
		    0), SECCOMP_RET_ALLOW);
	ATF_CHECK_EQ(profile_says(p, n, AUDIT_ARCH_X86_64, SYS_ptrace, 0),
	    RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, AUDIT_ARCH_X86_64, SYS_getppid, 0),
	    RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, AUDIT_ARCH_X86_64,
	    0x40000000 | SYS_getpid, 0), RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, AUDIT_ARCH_I386, SYS_getpid, 0),
	    SECCOMP_RET_KILL_PROCESS);
	for (size_t i = 0; i < NELEM(personas); i++)
		ATF_CHECK_EQ(profile_says(p, n, AUDIT_ARCH_X86_64,
		    SYS_personality, personas[i]), SECCOMP_RET_ALLOW);
	ATF_CHECK_EQ(profile_says(p, n, AUDIT_ARCH_X86_64, SYS_personality,
	    9), RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, AUDIT_ARCH_X86_64, SYS_clone,
	    0x11200000), RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, AUDIT_ARCH_X86_64, SYS_clone,
	    0x01200000), SECCOMP_RET_ALLOW);
	/* Every call of the agent's socket batch is allowed outright. */
	ATF_CHECK(sc_permits(profile_says(p, n, AUDIT_ARCH_X86_64,
	    SYS_getsockopt, 5), 0));
}

/* ------------------------------------------------------------------ */
/* Targets of our own. */

/* A filter: call nr gets action, every other call is allowed. */
#define	ON_CALL(nr, action) {						\
	S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),				\
	J(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),			\
	S(BPF_RET | BPF_K, (action)),					\
	S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),				\
}

typedef struct tspec {
	size_t		ts_nprogs;
	struct sock_fprog ts_progs[3];
	int		ts_strict;	/* seccomp strict mode, last */
	struct sock_fprog ts_tsync;	/* a thread adds this on 't' */
} tspec_t;

typedef struct target {
	pid_t	t_pid;
	int	t_cmd;		/* ours: 'p' ping, 'q' quit */
	int	t_ans;		/* theirs: 'r' ready, 'o' pong */
	int	t_tcmd;		/* the other thread's: 't' add a filter */
} target_t;

/* The target's fds, as the child lays them out. */
#define	T_CMD		3
#define	T_ANS		4
#define	T_TCMD		5
#define	T_LISTEN	6	/* then the socketpair: 7 and 8 */

static pid_t live_pid;

static void
kill_live(void)
{
	if (live_pid > 0)
		(void) kill(live_pid, SIGKILL);
}

static void *
tsync_thread(void *arg)
{
	const tspec_t *ts = arg;
	char c;

	while (read(T_TCMD, &c, 1) == 1) {
		long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_TSYNC, &ts->ts_tsync);

		(void) write(T_ANS, r == 0 ? "T" : "F", 1);
	}
	return (NULL);
}

static void
target_main(const tspec_t *ts, int cmd, int ans, int tcmd)
{
	struct sockaddr_in sin;
	int null, l, sp[2];
	pthread_t t;
	char c;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* 0-2 /dev/null, 3-5 the pipes, nothing else inherited. */
	cmd = fcntl(cmd, F_DUPFD, 20);
	ans = fcntl(ans, F_DUPFD, 20);
	tcmd = fcntl(tcmd, F_DUPFD, 20);
	if ((null = open("/dev/null", O_RDWR)) < 0 || dup2(null, 0) < 0 ||
	    dup2(null, 1) < 0 || dup2(null, 2) < 0 || dup2(cmd, T_CMD) < 0 ||
	    dup2(ans, T_ANS) < 0 || dup2(tcmd, T_TCMD) < 0)
		_exit(90);
	(void) syscall(SYS_close_range, T_TCMD + 1, ~0U, 0);
	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) != T_LISTEN ||
	    bind(l, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(l, 1) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0)
		_exit(91);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(92);
	for (size_t i = 0; i < ts->ts_nprogs; i++) {
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
		    &ts->ts_progs[i]) != 0)
			_exit(94);
	}
	/* With the same filters as the main thread: TSYNC needs that. */
	if (ts->ts_tsync.len > 0 &&
	    pthread_create(&t, NULL, tsync_thread, (void *)ts) != 0)
		_exit(93);
	if (ts->ts_strict && prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0)
		_exit(95);
	/* From here on: read, write and exit only. */
	(void) write(T_ANS, "r", 1);
	while (read(T_CMD, &c, 1) == 1 && c == 'p')
		(void) write(T_ANS, "o", 1);
	if (ts->ts_strict)
		(void) syscall(SYS_exit, 0);
	(void) syscall(SYS_exit_group, 0);
}

/* One byte from fd within WAIT_MS: it, or 0. */
static char
answer(int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char c;

	if (poll(&pfd, 1, WAIT_MS) != 1 || read(fd, &c, 1) != 1)
		return (0);
	return (c);
}

static void
target_start(target_t *t, const tspec_t *ts)
{
	int cmd[2], ans[2], tcmd[2];

	(void) signal(SIGPIPE, SIG_IGN);	/* a dead target: EPIPE */
	ATF_REQUIRE(pipe2(cmd, O_CLOEXEC) == 0 &&
	    pipe2(ans, O_CLOEXEC) == 0 && pipe2(tcmd, O_CLOEXEC) == 0);
	if (live_pid == 0)
		(void) atexit(kill_live);
	ATF_REQUIRE((t->t_pid = fork()) >= 0);
	if (t->t_pid == 0)
		target_main(ts, cmd[0], ans[1], tcmd[0]);
	live_pid = t->t_pid;
	(void) close(cmd[0]);
	(void) close(ans[1]);
	(void) close(tcmd[0]);
	t->t_cmd = cmd[1];
	t->t_ans = ans[0];
	t->t_tcmd = tcmd[1];
	ATF_REQUIRE_MSG(answer(t->t_ans) == 'r', "the target did not start");
}

/* The target answers: its main thread serves, the process lives. */
static void
target_ping(const target_t *t)
{
	pid_t r = 0;
	int st = 0;

	if (write(t->t_cmd, "p", 1) == 1 && answer(t->t_ans) == 'o')
		return;
	/* A dying process may take a while (a core dump): up to 3 s. */
	for (int i = 0; i < 300 && (r = waitpid(t->t_pid, &st, WNOHANG)) == 0;
	    i++)
		(void) usleep(10000);
	/* As its tracer, the agent may have collected its death itself. */
	if (r < 0 && errno == ECHILD)
		atf_tc_fail("the target died during a batch of the agent");
	if (r > 0 && WIFSIGNALED(st))
		atf_tc_fail("the target was killed by signal %d%s",
		    WTERMSIG(st), WTERMSIG(st) == SIGSYS ? " (SIGSYS: its "
		    "seccomp filter)" : "");
	atf_tc_fail("the target does not answer (state %c, wait status "
	    "0x%x)", tu_proc_state(t->t_pid), st);
}

/* Tell it to quit: it must exit 0, never be killed. */
static void
target_stop(target_t *t)
{
	int st;

	(void) write(t->t_cmd, "q", 1);
	(void) close(t->t_cmd);
	(void) close(t->t_tcmd);
	(void) close(t->t_ans);
	ATF_REQUIRE(waitpid(t->t_pid, &st, 0) == t->t_pid);
	live_pid = 0;
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the target "
	    "ended with wait status 0x%x%s", st, WIFSIGNALED(st) &&
	    WTERMSIG(st) == SIGSYS ? ": killed by SIGSYS" : "");
}

static void
spec_one(tspec_t *ts, struct sock_filter *f, size_t n)
{
	memset(ts, 0, sizeof (*ts));
	ts->ts_nprogs = 1;
	ts->ts_progs[0].len = (unsigned short)n;
	ts->ts_progs[0].filter = f;
}

static struct ps_prochandle *
grab(pid_t pid)
{
	struct ps_prochandle *P;
	int perr;

	ATF_REQUIRE_MSG((P = Pgrab(pid, 0, &perr)) != NULL, "Pgrab: %s",
	    Pgrab_error(perr));
	return (P);
}

/* getsockopt(fd, SOL_SOCKET, opt) in the target: Psyscall's result. */
static int
target_getsockopt(struct ps_prochandle *P, int fd, int opt, int *valp)
{
	socklen_t len = sizeof (int);
	argdes_t a[5];
	sysret_t rv;

	*valp = -1;
	argdes_byval(&a[0], fd);
	argdes_byval(&a[1], SOL_SOCKET);
	argdes_byval(&a[2], opt);
	argdes_byref(&a[3], valp, sizeof (int), AI_OUTPUT);
	argdes_byref(&a[4], &len, sizeof (len), AI_INOUT);
	return (Psyscall(P, &rv, SYS_getsockopt, 5, a));
}

/* A Psyscall that must be refused (-1, EPERM) with this message. */
static void
require_refused(struct ps_prochandle *P, int rv, const char *msg)
{
	int e = errno;

	ATF_CHECK_EQ_MSG(rv, -1, "not refused: returned %d", rv);
	ATF_CHECK_EQ_MSG(e, EPERM, "errno %d", e);
	ATF_CHECK_MSG(strcmp(Perrmsg(P), msg) == 0, "message \"%s\", not "
	    "\"%s\"", Perrmsg(P), msg);
}

/* pfiles' output with --via=pidfd: no call is made in the target. */
static char *
pidfd_output(const char *pidarg)
{
	const char *const argv[] = { TU_PFILES, "--via=pidfd", pidarg, NULL };
	tu_result_t r;
	char *out;

	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	tu_require_exit("pfiles --via=pidfd", &r, 0);
	out = strdup(r.tr_out);
	tu_result_free(&r);
	ATF_REQUIRE(out != NULL && strstr(out, "\tSOCK_STREAM\n") != NULL);
	return (out);
}

/*
 * pfiles --via=agent on a target under filter f: it exits 0 and prints
 * every fd; with why NULL it prints what pidfd prints (its peers unnamed)
 * and nothing on stderr, else no socket details and why on stderr.  The
 * target lives.
 */
static void
pfiles_on(struct sock_filter *f, size_t n, const char *why)
{
	char pidarg[16], *want;
	tspec_t ts;
	target_t t;
	tu_result_t r;

	spec_one(&ts, f, n);
	target_start(&t, &ts);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)t.t_pid);
	want = pidfd_output(pidarg);
	{
		const char *const argv[] = { TU_PFILES, "--via=agent", pidarg,
		    NULL };

		tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	}
	target_ping(&t);
	tu_require_exit("pfiles --via=agent", &r, 0);
	if (why == NULL) {
		/* asked inside a filtered target: no peer is proven */
		want = tu_unnamed_peers(want);
		tu_require_same_str("agent.stdout", want, r.tr_out);
		tu_require_same_str("agent.stderr", "", r.tr_err);
	} else {
		char *msg = tu_asprintf("pfiles: %s: details of 3 sockets "
		    "unavailable: agent: %s\n", pidarg, why);

		tu_require_same_str("agent.stderr", msg, r.tr_err);
		free(msg);
		ATF_CHECK_MSG(strstr(r.tr_out, "\tSOCK_") == NULL,
		    "socket details printed:\n%s", r.tr_out);
		for (int fd = T_LISTEN; fd <= T_LISTEN + 2; fd++) {
			char *line = tu_asprintf("\n%4d: S_IFSOCK ", fd);

			ATF_CHECK_MSG(strstr(r.tr_out, line) != NULL,
			    "fd %d not shown:\n%s", fd, r.tr_out);
			free(line);
		}
	}
	tu_result_free(&r);
	free(want);
	target_ping(&t);
	target_stop(&t);
}

/* A library call on a target under filter f, then the target lives. */
typedef void (*lib_fn_t)(struct ps_prochandle *, const target_t *);

static void
lib_on(const tspec_t *ts, lib_fn_t fn)
{
	struct ps_prochandle *P;
	target_t t;

	target_start(&t, ts);
	P = grab(t.t_pid);
	fn(P, &t);
	Prelease(P, 0);
	target_ping(&t);
	target_stop(&t);
}

static void
lib_on_filter(struct sock_filter *f, size_t n, lib_fn_t fn)
{
	tspec_t ts;

	spec_one(&ts, f, n);
	lib_on(&ts, fn);
}

#define	REQUIRE_ROOT(tc)						\
	atf_tc_set_md_var(tc, "require.user", "root")

/* --- getsockopt ---------------------------------------------------- */

static void
lib_getsockopt(struct ps_prochandle *P, const target_t *t)
{
	psyscall_t c[2];
	argdes_t a[2][1];
	int v;

	require_refused(P, target_getsockopt(P, T_LISTEN, SO_TYPE, &v),
	    "getsockopt would be killed by the process's seccomp filter");
	ATF_CHECK_EQ(v, -1);
	/* The call before it in the batch did not run either. */
	argdes_byval(&a[0][0], 0);
	psyscall_set(&c[0], SYS_getpid, a[0], 0);
	argdes_byval(&a[1][0], T_LISTEN);
	psyscall_set(&c[1], SYS_getsockopt, a[1], 1);
	require_refused(P, Psyscall_batch(P, c, 2),
	    "getsockopt would be killed by the process's seccomp filter");
	ATF_CHECK(c[0].ps_rval.sys_rval1 == -1 && c[0].ps_errno == 0);
	/* Another call runs. */
	target_ping(t);
	ATF_CHECK_EQ(Psyscall_batch(P, c, 1), 0);
	ATF_CHECK_EQ(c[0].ps_rval.sys_rval1, t->t_pid);
}

ATF_TC(kill_getsockopt);
ATF_TC_HEAD(kill_getsockopt, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose filter kills the "
	    "process on getsockopt: pfiles --via=agent exits 0, says why "
	    "the socket details are missing, and the target lives; "
	    "Psyscall refuses the call and runs no call of its batch");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(kill_getsockopt, tc)
{
	struct sock_filter f[] = ON_CALL(SYS_getsockopt,
	    SECCOMP_RET_KILL_PROCESS);

	pfiles_on(f, NELEM(f), "getsockopt would be killed by the "
	    "process's seccomp filter");
	lib_on_filter(f, NELEM(f), lib_getsockopt);
}

/* --- mmap ---------------------------------------------------------- */

static void
lib_mmap(struct ps_prochandle *P, const target_t *t)
{
	/* 9 outputs of 4 KiB: more than the 32 KiB of the thread's stack. */
	static char bufs[9][MAXARGL];
	argdes_t a[9][3];
	psyscall_t c[9];

	for (int i = 0; i < 9; i++) {
		argdes_byval(&a[i][0], -1);
		argdes_byref(&a[i][1], bufs[i], MAXARGL, AI_OUTPUT);
		argdes_byval(&a[i][2], MAXARGL);
		psyscall_set(&c[i], SYS_read, a[i], 3);
	}
	require_refused(P, Psyscall_batch(P, c, 9),
	    "mmap would be killed by the process's seccomp filter");
	for (int i = 0; i < 9; i++)
		ATF_CHECK(c[i].ps_rval.sys_rval1 == -1 &&
		    c[i].ps_errno == 0);
	target_ping(t);
	/* On the stack, fewer of the same calls run. */
	ATF_CHECK_EQ(Psyscall_batch(P, c, 3), 0);
	ATF_CHECK_EQ(c[0].ps_errno, EBADF);
}

ATF_TC(kill_mmap);
ATF_TC_HEAD(kill_mmap, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose filter kills the "
	    "process on mmap: pfiles --via=agent prints all, the target "
	    "lives; a batch too large for the stack is refused before its "
	    "mapping is made");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(kill_mmap, tc)
{
	struct sock_filter f[] = ON_CALL(SYS_mmap, SECCOMP_RET_KILL_PROCESS);

	pfiles_on(f, NELEM(f), NULL);
	lib_on_filter(f, NELEM(f), lib_mmap);
}

/* --- sendmsg ------------------------------------------------------- */

static void
lib_sendmsg(struct ps_prochandle *P, const target_t *t)
{
	argdes_t a[3];
	sysret_t rv;

	argdes_byval(&a[0], T_LISTEN + 1);
	argdes_byval(&a[1], 0);
	argdes_byval(&a[2], MSG_DONTWAIT);
	require_refused(P, Psyscall(P, &rv, SYS_sendmsg, 3, a),
	    "sendmsg would be killed by the process's seccomp filter");
	target_ping(t);
}

ATF_TC(kill_sendmsg);
ATF_TC_HEAD(kill_sendmsg, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose filter kills the "
	    "process on sendmsg: pfiles --via=agent prints all, the target "
	    "lives; an injected sendmsg is refused");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(kill_sendmsg, tc)
{
	struct sock_filter f[] = ON_CALL(SYS_sendmsg,
	    SECCOMP_RET_KILL_PROCESS);

	pfiles_on(f, NELEM(f), NULL);
	lib_on_filter(f, NELEM(f), lib_sendmsg);
}

/* --- ERRNO --------------------------------------------------------- */

static void
lib_errno0(struct ps_prochandle *P, const target_t *t)
{
	int v;

	require_refused(P, target_getsockopt(P, T_LISTEN, SO_TYPE, &v),
	    "getsockopt would be skipped as if it had succeeded by the "
	    "process's seccomp filter");
	target_ping(t);
}

ATF_TC(errno_getsockopt);
ATF_TC_HEAD(errno_getsockopt, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose filter fails "
	    "getsockopt with EPERM, EACCES or ENOSYS (the ways sandboxes "
	    "refuse a call): the agent runs, the facts are missing and the "
	    "refusal is named; ERRNO with errno 0 is refused");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(errno_getsockopt, tc)
{
	static const int refusals[] = { EPERM, EACCES, ENOSYS };
	struct sock_filter f0[] = ON_CALL(SYS_getsockopt, RET_ERRNO(0));

	for (size_t i = 0; i < NELEM(refusals); i++) {
		struct sock_filter f[] = ON_CALL(SYS_getsockopt,
		    RET_ERRNO(refusals[i]));
		char *why = tu_asprintf("getsockopt: %s",
		    strerror(refusals[i]));

		pfiles_on(f, NELEM(f), why);
		free(why);
	}
	lib_on_filter(f0, NELEM(f0), lib_errno0);
}

/* --- every action -------------------------------------------------- */

static const struct {
	uint32_t	act;
	int		want;		/* Psyscall's result when it runs */
	const char	*refused;	/* or the message */
} actions[] = {
	{ SECCOMP_RET_KILL_PROCESS, 0, "killed" },
	{ SECCOMP_RET_KILL_THREAD, 0, "killed" },
	{ SECCOMP_RET_TRAP, 0, "trapped (SIGSYS)" },
	{ RET_ERRNO(0), 0, "skipped as if it had succeeded" },
	{ RET_ERRNO(EACCES), EACCES, NULL },
	{ SECCOMP_RET_USER_NOTIF, 0, "handed to a user-space supervisor" },
	{ SECCOMP_RET_TRACE, 0, "handed to a tracer" },
	{ SECCOMP_RET_LOG, 0, NULL },
	{ 0x00010000U, 0, "killed" },
};
static size_t action_at;

static void
lib_action(struct ps_prochandle *P, const target_t *t)
{
	sysret_t rv;
	int r;

	r = Psyscall(P, &rv, SYS_getppid, 0, NULL);
	if (actions[action_at].refused != NULL) {
		char *msg = tu_asprintf("getppid would be %s by the process's "
		    "seccomp filter", actions[action_at].refused);

		require_refused(P, r, msg);
		free(msg);
	} else {
		ATF_CHECK_EQ_MSG(r, actions[action_at].want, "action 0x%x: "
		    "%d: %s", actions[action_at].act, r, Perrmsg(P));
		if (r == 0)
			ATF_CHECK_EQ(rv.sys_rval1, getpid());
	}
	target_ping(t);
}

ATF_TC(actions);
ATF_TC_HEAD(actions, tc)
{
	atf_tc_set_md_var(tc, "descr", "Every action on the injected call: "
	    "KILL_PROCESS, KILL_THREAD, TRAP, USER_NOTIF, TRACE, an unknown "
	    "one and ERRNO 0 are refused; LOG and ERRNO run");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(actions, tc)
{
	for (action_at = 0; action_at < NELEM(actions); action_at++) {
		struct sock_filter f[] = ON_CALL(SYS_getppid,
		    actions[action_at].act);

		lib_on_filter(f, NELEM(f), lib_action);
	}
}

/* --- arguments ----------------------------------------------------- */

static void
lib_arg_value(struct ps_prochandle *P, const target_t *t)
{
	int v;

	ATF_CHECK_EQ(target_getsockopt(P, T_LISTEN, SO_TYPE, &v), 0);
	ATF_CHECK_EQ(v, SOCK_STREAM);
	require_refused(P, target_getsockopt(P, T_LISTEN, SO_RCVBUF, &v),
	    "getsockopt would be killed by the process's seccomp filter");
	target_ping(t);
}

static void
lib_arg_address(struct ps_prochandle *P, const target_t *t)
{
	argdes_t a[5];
	sysret_t rv;
	int v;

	/* optval by reference: an address the agent has not chosen. */
	require_refused(P, target_getsockopt(P, T_LISTEN, SO_TYPE, &v),
	    "getsockopt cannot be proven allowed by the process's seccomp "
	    "filter: it looks at an argument not known before the call");
	/* By value, it is known: NULL is killed, 0x1000 is allowed. */
	argdes_byval(&a[0], T_LISTEN);
	argdes_byval(&a[1], SOL_SOCKET);
	argdes_byval(&a[2], SO_TYPE);
	argdes_byval(&a[3], 0);
	argdes_byval(&a[4], 0x1000);
	require_refused(P, Psyscall(P, &rv, SYS_getsockopt, 5, a),
	    "getsockopt would be killed by the process's seccomp filter");
	argdes_byval(&a[3], 0x1000);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getsockopt, 5, a), EFAULT);
	target_ping(t);
}

ATF_TC(arguments);
ATF_TC_HEAD(arguments, tc)
{
	atf_tc_set_md_var(tc, "descr", "A filter on a by-value argument "
	    "decides each call; one that looks at an address the agent has "
	    "not chosen yet is refused as unproven");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(arguments, tc)
{
	/* getsockopt is killed for SO_RCVBUF (argument 2). */
	struct sock_filter byvalue[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 3),
		S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(2)),
		J(BPF_JMP | BPF_JEQ | BPF_K, SO_RCVBUF, 0, 1),
		S(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	/* getsockopt is killed when optval (argument 3) is NULL. */
	struct sock_filter address[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 3),
		S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(3)),
		J(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		S(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	lib_on_filter(byvalue, NELEM(byvalue), lib_arg_value);
	lib_on_filter(address, NELEM(address), lib_arg_address);
}

/* --- several filters ----------------------------------------------- */

static void
lib_several(struct ps_prochandle *P, const target_t *t)
{
	int v;

	require_refused(P, target_getsockopt(P, T_LISTEN, SO_TYPE, &v),
	    "getsockopt would be killed by the process's seccomp filter");
	ATF_CHECK_EQ(target_getsockopt(P, T_LISTEN, SO_RCVBUF, &v), 0);
	target_ping(t);
}

/*
 * An argument that is the result of an earlier call of the batch is not
 * known when the batch is proven: a filter that looks at it cannot be
 * proven to allow the call, whatever value the check would guess.
 */
static void
lib_arg_result(struct ps_prochandle *P, const target_t *t)
{
	psyscall_t c[2];
	argdes_t a[2][3];
	sysret_t rv;

	/* socket() gets the lowest free fd: T_LISTEN + 3, the one killed. */
	argdes_byval(&a[0][0], AF_UNIX);
	argdes_byval(&a[0][1], SOCK_DGRAM | SOCK_CLOEXEC);
	argdes_byval(&a[0][2], 0);
	psyscall_set(&c[0], SYS_socket, a[0], 3);
	argdes_result(&a[1][0], 0);
	psyscall_set(&c[1], SYS_close, a[1], 1);
	require_refused(P, Psyscall_batch(P, c, 2),
	    "close cannot be proven allowed by the process's seccomp "
	    "filter: it looks at an argument not known before the call");
	ATF_CHECK(c[0].ps_rval.sys_rval1 == -1 && c[0].ps_errno == 0);
	ATF_CHECK(c[1].ps_rval.sys_rval1 == -1 && c[1].ps_errno == 0);
	target_ping(t);
	/* close of a known fd the filter allows runs (no such fd). */
	argdes_byval(&a[1][0], 100);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_close, 1, a[1]), EBADF);
	target_ping(t);
}

ATF_TC(arguments_result);
ATF_TC_HEAD(arguments_result, tc)
{
	atf_tc_set_md_var(tc, "descr", "A batch whose close takes the fd "
	    "an earlier socket() of the batch returns, under a filter that "
	    "kills close of that fd: refused as unproven before anything "
	    "runs, the target lives");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(arguments_result, tc)
{
	/* close(T_LISTEN + 3) kills the process. */
	struct sock_filter f[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_close, 0, 3),
		S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(0)),
		J(BPF_JMP | BPF_JEQ | BPF_K, T_LISTEN + 3, 0, 1),
		S(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	lib_on_filter(f, NELEM(f), lib_arg_result);
}

/* --- a filter that faults when run ---------------------------------- */

static void
lib_run_fault(struct ps_prochandle *P, const target_t *t)
{
	sysret_t rv;

	require_refused(P, Psyscall(P, &rv, SYS_getppid, 0, NULL),
	    "getppid cannot be proven allowed by the process's seccomp "
	    "filter 0: a shift by 32 bits or more (instruction 3)");
	/* The other calls do not reach the shift. */
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, t->t_pid);
	target_ping(t);
}

ATF_TC(run_fault);
ATF_TC_HEAD(run_fault, tc)
{
	atf_tc_set_md_var(tc, "descr", "A filter the kernel accepts that "
	    "shifts by an X of 32 on getppid, which has no defined result: "
	    "the call is refused, naming the filter, the fault and the "
	    "instruction; other calls run");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(run_fault, tc)
{
	struct sock_filter f[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 2),
		S(BPF_LDX | BPF_W | BPF_IMM, 32),
		S(BPF_ALU | BPF_LSH | BPF_X, 0),
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	lib_on_filter(f, NELEM(f), lib_run_fault);
}

ATF_TC(several_filters);
ATF_TC_HEAD(several_filters, tc)
{
	atf_tc_set_md_var(tc, "descr", "One of three filters kills: the "
	    "call is refused, whichever was installed first");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(several_filters, tc)
{
	struct sock_filter allow[] = {
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter errno_other[] = ON_CALL(SYS_ptrace,
	    RET_ERRNO(EPERM));
	/* getsockopt of SO_TYPE (argument 2) only. */
	struct sock_filter kill[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 3),
		S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(2)),
		J(BPF_JMP | BPF_JEQ | BPF_K, SO_TYPE, 0, 1),
		S(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		S(BPF_RET | BPF_K, SECCOMP_RET_LOG),
	};
	tspec_t ts;

	for (int first = 0; first < 2; first++) {
		memset(&ts, 0, sizeof (ts));
		ts.ts_nprogs = 3;
		ts.ts_progs[first ? 0 : 2].filter = kill;
		ts.ts_progs[first ? 0 : 2].len = NELEM(kill);
		ts.ts_progs[1].filter = allow;
		ts.ts_progs[1].len = NELEM(allow);
		ts.ts_progs[first ? 2 : 0].filter = errno_other;
		ts.ts_progs[first ? 2 : 0].len = NELEM(errno_other);
		lib_on(&ts, lib_several);
	}
}

/* --- strict mode --------------------------------------------------- */

static void
lib_strict(struct ps_prochandle *P, const target_t *t)
{
	argdes_t a[3];
	sysret_t rv;
	char c = 'x';

	static const struct { int nr; const char *name; } other[] = {
		{ SYS_close, "close" }, { SYS_fstat, "fstat" },
		{ SYS_getsockopt, "getsockopt" }, { SYS_fcntl, "fcntl" },
		{ SYS_mmap, "mmap" }, { SYS_getpid, "getpid" },
	};

	require_refused(P, Psyscall(P, &rv, SYS_getppid, 0, NULL),
	    "getppid would be killed by the process's seccomp strict mode");
	/* Every call of the library other than read and write, too. */
	argdes_byval(&a[0], 100);
	for (size_t i = 0; i < NELEM(other); i++) {
		char *msg = tu_asprintf("%s would be killed by the process's "
		    "seccomp strict mode", other[i].name);

		require_refused(P, Psyscall(P, &rv, other[i].nr, 1, a), msg);
		free(msg);
	}
	target_ping(t);
	/* write is allowed: the target writes to its answer pipe. */
	argdes_byval(&a[0], T_ANS);
	argdes_byref(&a[1], &c, 1, AI_INPUT);
	argdes_byval(&a[2], 1);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_write, 3, a), 0);
	ATF_CHECK_EQ(rv.sys_rval1, 1);
	ATF_CHECK_EQ(answer(t->t_ans), 'x');
}

ATF_TC(strict_mode);
ATF_TC_HEAD(strict_mode, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target in seccomp strict mode: "
	    "only read, write, exit and rt_sigreturn are injected; close, "
	    "fstat, getsockopt, fcntl, mmap, getpid are refused");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(strict_mode, tc)
{
	tspec_t ts;

	memset(&ts, 0, sizeof (ts));
	ts.ts_strict = 1;
	lib_on(&ts, lib_strict);
}

/* --- a filter added while the agent is out ------------------------- */

static void
lib_tsync(struct ps_prochandle *P, const target_t *t)
{
	sysret_t rv;
	char c;

	ATF_REQUIRE_EQ(Pcreate_agent(P), 0);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getppid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, getpid());
	/* The other thread adds a filter to every thread, ours too. */
	ATF_REQUIRE(write(t->t_tcmd, "t", 1) == 1);
	c = answer(t->t_ans);
	ATF_REQUIRE_MSG(c == 'T', "the filter was not added: %c", c);
	require_refused(P, Psyscall(P, &rv, SYS_getppid, 0, NULL),
	    "getppid would be killed by the process's seccomp filter");
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	Pdestroy_agent(P);
}

ATF_TC(filter_added);
ATF_TC_HEAD(filter_added, tc)
{
	atf_tc_set_md_var(tc, "descr", "A filter that another thread of "
	    "the target adds to all its threads (TSYNC) while the agent "
	    "holds one is seen at the next batch, with or without a filter "
	    "before");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(filter_added, tc)
{
	struct sock_filter kill[] = ON_CALL(SYS_getppid,
	    SECCOMP_RET_KILL_PROCESS);
	struct sock_filter allow[] = {
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	tspec_t ts;

	for (int before = 0; before < 2; before++) {
		memset(&ts, 0, sizeof (ts));
		ts.ts_tsync.filter = kill;
		ts.ts_tsync.len = NELEM(kill);
		if (before) {
			ts.ts_nprogs = 1;
			ts.ts_progs[0].filter = allow;
			ts.ts_progs[0].len = NELEM(allow);
		}
		lib_on(&ts, lib_tsync);
	}
}

/* --- filters that cannot be read ----------------------------------- */

ATF_TC(unreadable);
ATF_TC_HEAD(unreadable, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles under a seccomp filter of "
	    "its own cannot read the target's filters: the agent refuses "
	    "every batch, says why, and the target lives");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(unreadable, tc)
{
	struct sock_filter f[] = ON_CALL(SYS_getsockopt,
	    SECCOMP_RET_KILL_PROCESS);
	char pidarg[16], nr[16], *msg;
	tspec_t ts;
	target_t t;
	tu_result_t r;

	spec_one(&ts, f, NELEM(f));
	target_start(&t, &ts);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)t.t_pid);
	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_acct);
	{
		const char *const argv[] = { SECCOMP_DENY, nr, "1", TU_PFILES,
		    "--via=agent", pidarg, NULL };

		tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	}
	target_ping(&t);
	tu_require_exit("pfiles --via=agent", &r, 0);
	msg = tu_asprintf("pfiles: %s: details of 3 sockets unavailable: "
	    "agent: the process's seccomp filters cannot be read: %s (it "
	    "takes CAP_SYS_ADMIN, and no seccomp filter of our own)\n",
	    pidarg, strerror(EACCES));
	tu_require_same_str("unreadable.stderr", msg, r.tr_err);
	free(msg);
	tu_result_free(&r);
	target_stop(&t);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, run_instructions);
	ATF_TP_ADD_TC(tp, run_faults);
	ATF_TP_ADD_TC(tp, validate_rules);
	ATF_TP_ADD_TC(tp, validate_random);
	ATF_TP_ADD_TC(tp, kernel_agrees);
	ATF_TP_ADD_TC(tp, combine);
	ATF_TP_ADD_TC(tp, container_profile);
	ATF_TP_ADD_TC(tp, kill_getsockopt);
	ATF_TP_ADD_TC(tp, kill_mmap);
	ATF_TP_ADD_TC(tp, kill_sendmsg);
	ATF_TP_ADD_TC(tp, errno_getsockopt);
	ATF_TP_ADD_TC(tp, actions);
	ATF_TP_ADD_TC(tp, arguments);
	ATF_TP_ADD_TC(tp, arguments_result);
	ATF_TP_ADD_TC(tp, run_fault);
	ATF_TP_ADD_TC(tp, several_filters);
	ATF_TP_ADD_TC(tp, strict_mode);
	ATF_TP_ADD_TC(tp, filter_added);
	ATF_TP_ADD_TC(tp, unreadable);
	return (atf_no_error());
}
