/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent_rseq.c: the borrowed thread's rseq registration, read once per
 * agent, and where a thread stopped inside an rseq critical section must
 * be given back (agent.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>

#include "agent/agent.h"

#ifndef	PTRACE_GET_RSEQ_CONFIGURATION
#define	PTRACE_GET_RSEQ_CONFIGURATION	0x420f	/* Linux 5.13 */
#endif
#define	RSEQ_CS_OFFSET	8	/* of rseq_cs in struct rseq */

/* The layouts of <linux/ptrace.h> and <linux/rseq.h>, kernel ABI. */
typedef struct rseq_conf {
	uint64_t	rc_area;
	uint32_t	rc_size;
	uint32_t	rc_sig;
	uint32_t	rc_flags;
	uint32_t	rc_pad;
} rseq_conf_t;

typedef struct rseq_cs_desc {
	uint32_t	cs_version;
	uint32_t	cs_flags;
	uint64_t	cs_start;
	uint64_t	cs_post_commit;	/* offset from cs_start */
	uint64_t	cs_abort;
} rseq_cs_desc_t;

/* The thread's rseq registration, if it has one (read once per agent). */
void
agent_read_rseq(struct agent *ag)
{
	rseq_conf_t rc;

	memset(&rc, 0, sizeof (rc));
	if (ptrace(PTRACE_GET_RSEQ_CONFIGURATION, ag->ag_tid,
	    (void *)sizeof (rc), &rc) == (long)sizeof (rc) && rc.rc_area != 0) {
		ag->ag_rseq = rc.rc_area;
		ag->ag_rseq_sig = rc.rc_sig;
	}
}

int
agent_rseq_resume(struct ps_prochandle *P, struct agent *ag,
    const isa_regs_t *r, uint64_t *ripp)
{
	rseq_cs_desc_t cs;
	uint64_t csp;
	uint32_t sig;

	*ripp = isa_pc(r);
	/*
	 * A thread stopped in a system call is in no critical section (a
	 * section holds no system call); only one stopped in user code may
	 * be, and only then is the rseq area read.
	 */
	if (ag->ag_rseq == 0 || isa_in_syscall(r))
		return (0);
	if (Pread(P, &csp, sizeof (csp), (uintptr_t)(ag->ag_rseq +
	    RSEQ_CS_OFFSET)) != (ssize_t)sizeof (csp))
		return (errno != 0 ? errno : EIO);
	if (csp == 0)
		return (0);
	if (Pread(P, &cs, sizeof (cs), (uintptr_t)csp) != (ssize_t)sizeof (cs))
		return (errno != 0 ? errno : EIO);
	if (isa_pc(r) < cs.cs_start ||
	    isa_pc(r) - cs.cs_start >= cs.cs_post_commit)
		return (0);
	/* The kernel aborts only to a handler signed as registered. */
	if (cs.cs_abort < sizeof (sig) || Pread(P, &sig, sizeof (sig),
	    (uintptr_t)(cs.cs_abort - sizeof (sig))) != (ssize_t)sizeof (sig) ||
	    sig != ag->ag_rseq_sig)
		return (Pseterr(P, EIO, "thread %d is in an rseq critical "
		    "section whose abort handler is not signed",
		    (int)ag->ag_tid));
	*ripp = cs.cs_abort;
	PDEBUG(P, "agent: thread %d in an rseq critical section: given back "
	    "at its abort handler", (int)ag->ag_tid);
	return (0);
}
