/*
 * agent_client.h: state that lives and dies with a handle's agent.
 * Not installed.
 *
 * One user of the agent (sock_agent_pass.c, which has the agent pass the
 * target's sockets to us) keeps per-grab state -- its own socket, the
 * duplicates it holds -- that must be let go when the agent is: by
 * Pdestroy_agent(), which Prelease() calls.  The agent holds the state
 * for it and calls fini from Pdestroy_agent() before it gives the thread
 * back, while the agent can still run calls in the target.
 */
#ifndef	_AGENT_CLIENT_H
#define	_AGENT_CLIENT_H

#include <signal.h>

#include "Pcontrol.h"

typedef void agent_client_fini_f(struct ps_prochandle *, void *);

/* The state set on P's agent; NULL when none is, or P holds no agent. */
extern void *Pagent_client(struct ps_prochandle *);

/*
 * Set it (replacing any, without calling the old fini).  0, or -1 with
 * errno EINVAL when P holds no agent.
 */
extern int Pagent_set_client(struct ps_prochandle *, void *,
    agent_client_fini_f *);

/*
 * Block the calling thread's asynchronous signals for the span in which
 * the borrowed thread is not in its own state (see libproc.h); the old
 * mask goes back with pthread_sigmask(SIG_SETMASK, old, NULL).
 */
extern void agent_block_signals(sigset_t *);

#endif	/* _AGENT_CLIENT_H */
