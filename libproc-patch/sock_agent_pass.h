/*
 * sock_agent_pass.h: the agent's fast path, in which the target passes
 * its sockets to us over SCM_RIGHTS (sock_agent_pass.c).  Not installed.
 */
#ifndef	_SOCK_AGENT_PASS_H
#define	_SOCK_AGENT_PASS_H

#include "Pcontrol.h"

/* sock_pass_facts(): this socket is not served; ask the per-socket batch. */
#define	SOCK_PASS_NO	(-1)

/* The walk's next batch of fds, as sock_agent_batch() is told it. */
extern void sock_pass_batch(struct ps_prochandle *, const int *, size_t);

/*
 * The socket items of fd (whose inode the walk saw as ino), from its
 * duplicate passed to us: 0, ENOENT, ESTALE or ESRCH as for every source
 * (Pcontrol.h), or SOCK_PASS_NO when passing does not serve this fd.
 */
extern int sock_pass_facts(struct ps_prochandle *, int, uint64_t,
    fdrec_t *);

#endif	/* _SOCK_AGENT_PASS_H */
