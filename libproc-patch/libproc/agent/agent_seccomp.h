/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent_seccomp.h: the agent never injects a system call that the
 * borrowed thread's seccomp filters have not been proven to allow
 * (agent_seccomp.c reads them, seccomp_check.c runs them).  Not
 * installed.  Every function returns an errno (Pcontrol.h).
 *
 * Where Psyscall.c asks:
 *  - agent_seccomp_allows(), at the start of every batch, before
 *    anything of it is written or run: each call of the batch, with the
 *    arguments it will have (an argument by reference, whose address is
 *    not known yet, as an unknown);
 *  - agent_seccomp_scratch(), before the private mapping of a batch too
 *    large for the stack is made: its mmap, and the munmap that removes
 *    it (which must not fail);
 *  - agent_seccomp_gate(), in run_call(), through which every injected
 *    call goes: the call with its exact registers, once more.  After the
 *    first two it never refuses, unless another thread of the target
 *    added a filter to ours (SECCOMP_FILTER_FLAG_TSYNC) during the batch.
 * A refusal is EPERM; the first gives the handle its message itself,
 * the others leave it for agent_seccomp_refusal(), which run_batch()
 * asks before its own message.
 */
#ifndef	_AGENT_SECCOMP_H
#define	_AGENT_SECCOMP_H

#include "agent/agent.h"

/*
 * May the batch run?  0; EPERM with the message "NAME would be killed by
 * the process's seccomp filter", "the process's seccomp filters cannot be
 * read: ..." and so on; ESRCH when the thread is gone.  syscall_insn is
 * the address of the syscall instruction the calls go through.
 */
extern int agent_seccomp_allows(struct ps_prochandle *, struct agent *,
    const psyscall_t *, uint_t, uint64_t);

/* May the private mapping of len bytes be made, and removed?  0, EPERM. */
extern int agent_seccomp_scratch(struct agent *, uint64_t);

/* May call nr run with these registers now?  0, EPERM. */
extern int agent_seccomp_gate(struct agent *, int, const uint64_t[6]);

/* Did the last two refuse?  Then 1, and the handle's message says why. */
extern int agent_seccomp_refusal(struct ps_prochandle *, struct agent *);

/* Pdestroy_agent: what was read of the filters goes. */
extern void agent_seccomp_free(struct agent *);

#endif	/* _AGENT_SECCOMP_H */
