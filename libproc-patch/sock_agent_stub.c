/*
 * sock_agent_stub.c: stands in for the agent until agent.c is built;
 * the source then says it is not available.
 */
#include <errno.h>
#include <stdio.h>

#include "Pcontrol.h"

int
sock_agent_probe(struct ps_prochandle *P)
{
	(void) snprintf(P->socksrc_err, sizeof (P->socksrc_err),
	    "agent: not available");
	return (ENOTSUP);
}

int
sock_agent_facts(struct ps_prochandle *P, int fd, uint64_t ino, fdrec_t *rec)
{
	return (ENOTSUP);
}

void
Pdestroy_agent(struct ps_prochandle *P)
{
}
