/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent_clock.c: the agent's deadline -- one per handle, for everything
 * by which the agents of a grab keep a thread of the target from running
 * its own code: seizing and parking a thread, batches, new agents after
 * an exec, and the waits and retries between them, added up.  Each entry
 * of the agent's that may hold a thread (Pcreate_agent, a batch, a
 * source's settling after an exec) opens a span of the clock and closes
 * it when it is done; nested entries count once.  Past the deadline no
 * span opens: the thread is given back as it was and every later entry
 * fails at once with ETIME, the handle's message saying why.
 *
 * Between batches the borrowed thread runs its own code (agent_lend), so
 * that time is not counted: pfiles writing to a slow pipe costs the
 * target nothing.
 */
#include <errno.h>
#include <stdlib.h>

#include "agent/agent.h"

int
Pset_agent_deadline(struct ps_prochandle *P, unsigned int ms)
{
	if (P == NULL || ms > PAGENT_DEADLINE_MAX) {
		errno = EINVAL;
		return (-1);
	}
	P->ag_deadline = ms;
	return (0);
}

/*
 * The default deadline: LIBPROC_AGENT_DEADLINE_MS of the environment
 * (1 to PAGENT_DEADLINE_MAX), read once, else PAGENT_DEADLINE_MS.
 */
static long
deadline_default(void)
{
	static long dflt;	/* 0: not read yet */
	long d = __atomic_load_n(&dflt, __ATOMIC_RELAXED);
	const char *v;
	char *end;

	if (d != 0)
		return (d);
	d = PAGENT_DEADLINE_MS;
	if ((v = getenv("LIBPROC_AGENT_DEADLINE_MS")) != NULL) {
		long n = strtol(v, &end, 10);

		if (*v != '\0' && *end == '\0' && n > 0 &&
		    n <= PAGENT_DEADLINE_MAX)
			d = n;
	}
	__atomic_store_n(&dflt, d, __ATOMIC_RELAXED);
	return (d);
}

/* The handle's deadline in ms. */
static long
deadline_of(const struct ps_prochandle *P)
{
	return (P->ag_deadline != 0 ? (long)P->ag_deadline :
	    deadline_default());
}

unsigned int
Pagent_held(struct ps_prochandle *P)
{
	long t;

	if (P == NULL) {
		errno = EINVAL;
		return (0);
	}
	t = P->ag_spent;
	if (P->ag_span_depth > 0)
		t += agent_now_ms() - P->ag_span_t0;
	return ((unsigned int)t);
}

long
agent_left_ms(struct ps_prochandle *P)
{
	return (deadline_of(P) - (long)Pagent_held(P));
}

int
agent_deadline_err(struct ps_prochandle *P)
{
	return (Pseterr(P, ETIME, "the target was held for its deadline "
	    "(%ld ms)", deadline_of(P)));
}

int
agent_span_open(struct ps_prochandle *P, int gate)
{
	if (gate && agent_left_ms(P) <= 0) {
		/* As it found it: the thread goes back now, not at Prelease. */
		if (P->agent != NULL && P->ag_span_depth == 0)
			Pdestroy_agent(P);
		return (agent_deadline_err(P));
	}
	if (P->ag_span_depth++ == 0)
		P->ag_span_t0 = agent_now_ms();
	return (0);
}

void
agent_span_close(struct ps_prochandle *P)
{
	if (P->ag_span_depth > 0 && --P->ag_span_depth == 0)
		P->ag_spent += agent_now_ms() - P->ag_span_t0;
}

long
agent_bound(struct ps_prochandle *P, long bound_ms)
{
	long left = agent_left_ms(P);

	return (agent_now_ms() + (left < bound_ms ? (left > 0 ? left : 0) :
	    bound_ms));
}

/*
 * A batch's bound: AGENT_BATCH_MS, doubled for the next batch after each
 * batch cut at it (to AGENT_BATCH_MAX_MS), back to AGENT_BATCH_MS after
 * one that was not.  On a machine too busy or too slow to make a batch's
 * calls in 100 ms (a throttled cgroup, an emulated CPU), a batch made
 * again is given the time it needs, rather than cut each time alike.
 */
long
agent_batch_ms(const struct ps_prochandle *P)
{
	return (P->ag_batch_ms != 0 ? P->ag_batch_ms : AGENT_BATCH_MS);
}

void
agent_batch_ended(struct ps_prochandle *P, int cut)
{
	long b = agent_batch_ms(P);

	P->ag_batch_ms = !cut ? AGENT_BATCH_MS :
	    b * 2 > AGENT_BATCH_MAX_MS ? AGENT_BATCH_MAX_MS : b * 2;
}
