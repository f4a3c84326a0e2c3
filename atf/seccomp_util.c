/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * seccomp_util.c: the helpers of the seccomp programs (seccomp_util.h).
 */
#include "seccomp_util.h"

const uint64_t args0[6] = {
	3, 1, 3, 0x7ffe00001000ULL, 0x7ffe00001008ULL, 0x1234
};

int
kernel_accepts(const struct sock_filter *p, size_t n)
{
	struct sock_fprog fp = { (unsigned short)n,
	    (struct sock_filter *)(uintptr_t)p };
	isa_regs_t r;
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
		    isa_getregs(pid, &r) != 0 ||
		    isa_syscall_nr(&r) != SYS_seccomp)
			continue;
		if (in_call) {
			result = isa_retval(&r) == 0;
			break;
		}
		in_call = 1;
	}
out:
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, &st, 0);
	return (result);
}

uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

uint32_t
rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL +
	    1442695040888963407ULL;
	return ((uint32_t)(rng_state >> 33));
}

uint32_t
rnd_k(void)
{
	static const uint32_t ks[] = {
		0, 1, 2, 3, 4, 7, 15, 16, 31, 32, 60, 62, 63, 64, 255, 256,
		0xffff, 0x7fff0000, 0x80000000, 0xfffff000, 0xffffffff
	};

	return (rnd() % 3 == 0 ? rnd() : ks[rnd() % NELEM(ks)]);
}
