/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent_lend.c: a borrowed thread between batches (agent.h): lent to run
 * its own code, the stops it meets then passed on (agent_service, the
 * handle's tick), and taken back for the next batch.
 */
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent.h"

/*
 * The stops a lent thread came to while the caller was busy between
 * batches, passed on without waiting: a signal that came for it is
 * delivered at once (it would wait, the thread stopped, until the next
 * batch); a group stop (another process's SIGSTOP) is left to the kernel
 * (PTRACE_LISTEN), so that SIGCONT ends it as for any thread; an exec is
 * noted.  Only stops already there are seen.
 */
void
agent_service(struct ps_prochandle *P)
{
	struct agent *ag = P->agent;
	long now = agent_now_ms();
	int st, sig;

	/* One look a millisecond at most: the loops that tick are tight. */
	if (ag == NULL || ag->ag_state != AG_LENT || now == ag->ag_served ||
	    ag->ag_owner != (pid_t)syscall(SYS_gettid))	/* ptrace(2) is the tracer's own */
		return;
	ag->ag_served = now;
	for (int n = 0; ag->ag_state == AG_LENT && n < AGENT_MAX_STOPS; n++) {
		if (waitpid(ag->ag_tid, &st, __WALL | WNOHANG) != ag->ag_tid)
			return;
		switch (agent_stop_kind(st, &sig)) {
		case ST_GONE:
			ag->ag_state = AG_GONE;
			return;
		case ST_EVENT:		/* not ours while lent: a group stop */
			(void) ptrace(PTRACE_LISTEN, ag->ag_tid, NULL, NULL);
			continue;
		case ST_EXEC:
			ag->ag_execd = 1;
			break;
		case ST_SIGNAL:
			ag->ag_passed++;
			break;
		default:
			sig = 0;
			break;
		}
		if (ptrace(PTRACE_CONT, ag->ag_tid, NULL,
		    (void *)(long)sig) != 0 && errno == ESRCH)
			(void) agent_lost(ag);
	}
}

int
agent_lend(struct agent *ag)
{
	if (ag->ag_state != AG_PARKED)
		return (EINVAL);
	if (ptrace(PTRACE_CONT, ag->ag_tid, NULL, NULL) != 0)
		return (errno == ESRCH ? agent_lost(ag) : errno);
	ag->ag_state = AG_LENT;
	return (0);
}

int
agent_take(struct ps_prochandle *P, struct agent *ag)
{
	isa_regs_t r;
	int err;

	if (ag->ag_state != AG_LENT)
		return (ag->ag_state == AG_PARKED ? 0 : EINVAL);
	ag->ag_passed = 0;
	if (ptrace(PTRACE_INTERRUPT, ag->ag_tid, NULL, NULL) != 0) {
		err = errno == ESRCH ? agent_lost(ag) : errno;
		if (err == ESRCH)
			return (Pseterr(P, ESRCH, "no such process"));
		return (Pseterr(P, err, "ptrace interrupt: %s", strerror(err)));
	}
	if ((err = agent_wait_for(ag, ST_EVENT, PTRACE_CONT, 0)) != 0)
		return (agent_no_stop(P, ag, err));
	ag->ag_state = AG_PARKED;
	if (ag->ag_execd) {
		/* What was examined (its syscall instruction...) is gone. */
		ag->ag_state = AG_BROKEN;
		return (Pseterr(P, ENOEXEC, "thread %d exec'd",
		    (int)ag->ag_tid));
	}
	if ((err = agent_get_regs(ag, &r)) != 0)
		return (Pseterr(P, err, "ptrace getregs: %s", strerror(err)));
	return (agent_restart_interrupted(P, ag, &r));
}
