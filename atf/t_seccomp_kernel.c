/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_seccomp_kernel: the seccomp checker against the kernel on whole
 * filters, and how filters combine (t_seccomp_check holds its units).
 *  kernel_agrees	random valid filters installed in a child that then
 *			makes the call: what the kernel did (the errno, or
 *			SIGSYS) is what sc_run said
 *  combine		the precedence of the actions, ties, sc_permits,
 *			and the kernel's tie rule
 *  container_profile	an allowlist with an ERRNO default and argument
 *			checks, as container runtimes make them
 */
#include "seccomp_util.h"

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
		sc_input_make(&in, SYS_getppid, ISA_AUDIT_ARCH, 0, a,
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
	    ISA_AUDIT_ARCH, 1, 0);
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
		ATF_CHECK_EQ(profile_says(p, n, ISA_AUDIT_ARCH, allowed[i],
		    0), SECCOMP_RET_ALLOW);
	ATF_CHECK_EQ(profile_says(p, n, ISA_AUDIT_ARCH, SYS_ptrace, 0),
	    RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, ISA_AUDIT_ARCH, SYS_getppid, 0),
	    RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, ISA_AUDIT_ARCH,
	    0x40000000 | SYS_getpid, 0), RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, ISA_AUDIT_ARCH_COMPAT, SYS_getpid, 0),
	    SECCOMP_RET_KILL_PROCESS);
	for (size_t i = 0; i < NELEM(personas); i++)
		ATF_CHECK_EQ(profile_says(p, n, ISA_AUDIT_ARCH,
		    SYS_personality, personas[i]), SECCOMP_RET_ALLOW);
	ATF_CHECK_EQ(profile_says(p, n, ISA_AUDIT_ARCH, SYS_personality,
	    9), RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, ISA_AUDIT_ARCH, SYS_clone,
	    0x11200000), RET_ERRNO(EPERM));
	ATF_CHECK_EQ(profile_says(p, n, ISA_AUDIT_ARCH, SYS_clone,
	    0x01200000), SECCOMP_RET_ALLOW);
	/* Every call of the agent's socket batch is allowed outright. */
	ATF_CHECK(sc_permits(profile_says(p, n, ISA_AUDIT_ARCH,
	    SYS_getsockopt, 5), 0));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, kernel_agrees);
	ATF_TP_ADD_TC(tp, combine);
	ATF_TP_ADD_TC(tp, container_profile);
	return (atf_no_error());
}
