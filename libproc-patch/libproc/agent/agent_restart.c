/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent_restart.c: the blocking calls that our stop makes fail with EINTR,
 * and that the agent has the kernel restart instead (agent.c seizes and
 * takes the thread; isa.h says how a call is restarted on this machine).
 *
 * Some blocking calls fail with EINTR when their thread is merely
 * stopped, ptrace stops included (signal(7) lists them): epoll_wait,
 * semop and semtimedop, sigtimedwait and sigwaitinfo, recv with a
 * SO_RCVTIMEO.  Where the call has no timeout, restarting it is exactly
 * the same call, so the thread is made to restart it (isa_set_restart):
 * the kernel then restarts it when the thread is given back, unless a
 * signal handler is to run first, in which case the call returns EINTR as
 * it would have anyway.  Only when the thread came straight from the call
 * into our stop (no signal was delivered on the way), so that its
 * registers are still those the call left.  A call with a timeout is left
 * alone: the time left is not known (pfiles.1 says which calls), as after
 * any stop.  Where the machine keeps no way to restart the call
 * (isa_eintr_call says -1), the call fails with EINTR, as after any stop.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "agent/agent.h"

#ifndef	SYS_epoll_pwait2
#define	SYS_epoll_pwait2	441
#endif

static const struct {
	long	rs_nr;
	int	rs_arg;		/* its timeout: argument 2 or 3; -1 none */
	int	rs_int;		/* an int, infinite when < 0; else a pointer */
} restartable[] = {
#ifdef	SYS_epoll_wait		/* not in every ISA's table */
	{ SYS_epoll_wait, 3, 1 },	/* (epfd, events, max, int timeout) */
#endif
	{ SYS_epoll_pwait, 3, 1 },
	{ SYS_epoll_pwait2, 3, 0 },	/* timespec *, NULL: none */
	{ SYS_semop, -1, 0 },		/* never a timeout */
	{ SYS_semtimedop, 3, 0 },	/* (id, sops, nsops, timespec *) */
	{ SYS_rt_sigtimedwait, 2, 0 },	/* (set, info, timespec *, size) */
};

static int
restartable_eintr(const struct agent *ag, const isa_regs_t *r)
{
	long long nr;

	if (ag->ag_passed != 0 || (nr = isa_eintr_call(r)) < 0)
		return (0);
	for (size_t i = 0; i < sizeof (restartable) /
	    sizeof (restartable[0]); i++) {
		unsigned long long t;

		if (nr != restartable[i].rs_nr)
			continue;
		if (restartable[i].rs_arg < 0)
			return (1);
		t = isa_syscall_arg(r, restartable[i].rs_arg);
		return (restartable[i].rs_int ? (int)t < 0 : t == 0);
	}
	return (0);
}

int
agent_restart_interrupted(struct ps_prochandle *P, struct agent *ag,
    isa_regs_t *r)
{
	int err;

	if (!restartable_eintr(ag, r))
		return (0);
	isa_set_restart(r);
	if ((err = agent_set_regs(ag, r)) != 0)
		return (Pseterr(P, err, "ptrace setregs: %s", strerror(err)));
	return (0);
}
