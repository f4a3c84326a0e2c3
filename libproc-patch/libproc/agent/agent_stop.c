/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent_stop.c: the agent's ptrace stops.  Every wait for a stop is
 * bounded (ag_until: AGENT_STOP_MS for our interrupt's stop, a batch's
 * calls AGENT_BATCH_MS and the handle's deadline): waitpid with WNOHANG,
 * polled for a moment and then between naps that grow.  A thread that dies under a wait ends
 * it with ESRCH; a signal that arrives meanwhile is given back to the
 * thread, so that nothing is lost.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "agent/agent.h"

/* Milliseconds since some fixed point. */
long
agent_now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Nanoseconds since *t0. */
static long
spin_ns(const struct timespec *t0)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((ts.tv_sec - t0->tv_sec) * 1000000000L +
	    (ts.tv_nsec - t0->tv_nsec));
}

/*
 * The wait of agent_wait_event.  Its naps are taken with a timer slack of
 * AGENT_NAP_SLACK_NS (the default, 50 us, would make each end that much
 * late, and a socket's calls wait for stops thousands of times); the
 * thread's own slack is left in *slackp for the caller to put back.
 */
static int
wait_event(pid_t tid, int *stp, long timeout_ms, int *slackp)
{
	long deadline = agent_now_ms() + timeout_ms;
	long nap_ns = AGENT_NAP0_NS;
	struct timespec t0;

	(void) clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(tid, stp, __WALL | WNOHANG);

		if (r == tid)
			return (0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return (errno == ECHILD ? ESRCH : errno);
		/*
		 * A stop we asked for comes in microseconds: look again at
		 * once for a moment.  Then sleep, never sched_yield(): on a
		 * busy machine a yield hands the CPU to another task for its
		 * whole slice, and the thread waits, stopped, all that time;
		 * a task woken from a sleep gets the CPU back at once.
		 */
		if (spin_ns(&t0) < AGENT_SPIN_NS)
			continue;
		if (agent_now_ms() >= deadline)
			return (ETIMEDOUT);
		if (*slackp < 0 && (*slackp = prctl(PR_GET_TIMERSLACK, 0, 0, 0,
		    0)) > 0)
			(void) prctl(PR_SET_TIMERSLACK, AGENT_NAP_SLACK_NS, 0, 0,
			    0);
		struct timespec ts = { 0, nap_ns };
		(void) nanosleep(&ts, NULL);
		if (nap_ns < 1000000)
			nap_ns *= 2;
	}
}

/*
 * Wait for the next event of the thread within timeout_ms.  0 with the
 * status in *stp; ETIMEDOUT; ESRCH when there is nothing to wait for.
 */
int
agent_wait_event(pid_t tid, int *stp, long timeout_ms)
{
	int slack = -1;
	int err = wait_event(tid, stp, timeout_ms, &slack);

	if (slack > 0)		/* the thread's own slack, back */
		(void) prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	return (err);
}

enum stop_kind
agent_stop_kind(int st, int *sigp)
{
	*sigp = 0;
	if (WIFEXITED(st) || WIFSIGNALED(st))
		return (ST_GONE);
	if (WSTOPSIG(st) == (SIGTRAP | 0x80))
		return (ST_SYSCALL);
	if ((st >> 16) == PTRACE_EVENT_STOP)
		return (ST_EVENT);	/* our interrupt, or a group stop */
	if ((st >> 16) == PTRACE_EVENT_EXEC)
		return (ST_EXEC);	/* it exec'd (PTRACE_O_TRACEEXEC) */
	*sigp = WSTOPSIG(st);
	return (ST_SIGNAL);
}

/*
 * Wait until the thread reaches a stop of kind want, no later than
 * ag_until (which the caller sets: agent_bound), resuming it with
 * resume_req over the stops that are not (a group stop is resumed; an
 * exec stop is resumed and noted in ag_execd; a
 * signal-delivery stop gets its signal back, so that nothing is lost,
 * except, when in_batch, a fault that our injected call caused, which is
 * suppressed and ends the batch with EFAULT).  0, ESRCH, ETIMEDOUT,
 * EFAULT, or an errno of ptrace.
 */
int
agent_wait_for(struct agent *ag, enum stop_kind want, int resume_req,
    int in_batch)
{
	long deadline = ag->ag_until;
	int st, sig, err, interrupted = 0;

	for (int n = 0; n < AGENT_MAX_STOPS; n++) {
		long left = deadline - agent_now_ms();

		err = agent_wait_event(ag->ag_tid, &st, left > 0 ? left : 0);
		if (err == ETIMEDOUT && in_batch && !interrupted) {
			/*
			 * An injected call outlasts the batch's bound (it
			 * blocks): interrupt it (EINTR), and give the thread
			 * a moment to come to its stop.
			 */
			(void) ptrace(PTRACE_INTERRUPT, ag->ag_tid, NULL, NULL);
			interrupted = 1;
			deadline = agent_now_ms() + AGENT_GRACE_MS;
			continue;
		}
		if (err != 0)
			return (err);
		enum stop_kind k = agent_stop_kind(st, &sig);
		if (k == ST_GONE) {
			ag->ag_state = AG_GONE;
			return (ESRCH);
		}
		if (k == want)
			return (0);
		/* An exec while lent: its new image is not the one examined. */
		if (k == ST_EXEC)
			ag->ag_execd = 1;
		if (k == ST_SIGNAL && sig != SIGSTOP && in_batch)
			return (EFAULT);
		if (k == ST_SIGNAL)
			ag->ag_passed++;
		if (ptrace(resume_req, ag->ag_tid, NULL,
		    (void *)(long)(k == ST_SIGNAL ? sig : 0)) != 0)
			return (errno == ESRCH ? ESRCH : errno);
	}
	return (ETIMEDOUT);
}

/*
 * A ptrace request failed with ESRCH: the thread is either gone (or
 * going: SIGKILL wakes it from any stop) or no longer stopped.  Find out
 * which within a short bound, looking at its events without consuming a
 * stop (WNOWAIT), so that whoever waits next still sees it.
 */
int
agent_lost(struct agent *ag)
{
	long deadline = agent_now_ms() + 100;
	siginfo_t si;
	int st;

	do {
		memset(&si, 0, sizeof (si));
		if (waitid(P_PID, (id_t)ag->ag_tid, &si, WEXITED | WSTOPPED |
		    __WALL | WNOHANG | WNOWAIT) != 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			ag->ag_state = AG_BROKEN;
			return (EIO);
		}
		if (si.si_pid == ag->ag_tid && (si.si_code == CLD_EXITED ||
		    si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED)) {
			(void) waitpid(ag->ag_tid, &st, __WALL | WNOHANG);
			break;
		}
		if (si.si_pid == ag->ag_tid) {		/* stopped after all */
			ag->ag_state = AG_BROKEN;
			return (EIO);
		}
		struct timespec ts = { 0, 1000000 };
		(void) nanosleep(&ts, NULL);
	} while (agent_now_ms() < deadline);
	if (kill(ag->ag_tid, 0) != 0 && errno == ESRCH) {
		ag->ag_state = AG_GONE;
		return (ESRCH);
	}
	ag->ag_state = AG_BROKEN;
	return (EIO);
}


int
agent_get_regs(struct agent *ag, isa_regs_t *r)
{
	if (isa_getregs(ag->ag_tid, r) != 0)
		return (errno == ESRCH ? agent_lost(ag) : errno);
	return (0);
}

int
agent_set_regs(struct agent *ag, const isa_regs_t *r)
{
	if (isa_setregs(ag->ag_tid, r) != 0)
		return (errno == ESRCH ? agent_lost(ag) : errno);
	return (0);
}

int
agent_get_mask(struct agent *ag, uint64_t *mask)
{
	if (ptrace(PTRACE_GETSIGMASK, ag->ag_tid, (void *)sizeof (*mask),
	    mask) != 0)
		return (errno == ESRCH ? agent_lost(ag) : errno);
	return (0);
}

int
agent_set_mask(struct agent *ag, uint64_t mask)
{
	if (ptrace(PTRACE_SETSIGMASK, ag->ag_tid, (void *)sizeof (mask),
	    &mask) != 0)
		return (errno == ESRCH ? agent_lost(ag) : errno);
	return (0);
}
