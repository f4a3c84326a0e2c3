/*
 * sock_diag.c: socket facts from NETLINK_SOCK_DIAG and procfs.
 * Not written yet: the source says so.
 */
#include <errno.h>
#include <stdio.h>

#include "Pcontrol.h"

int
sock_diag_probe(struct ps_prochandle *P)
{
	(void) snprintf(P->socksrc_err, sizeof (P->socksrc_err),
	    "diag: not available");
	return (ENOTSUP);
}

int
sock_diag_facts(struct ps_prochandle *P, int fd, uint64_t ino, fdrec_t *rec)
{
	return (ENOTSUP);
}

void
sock_diag_free(struct ps_prochandle *P)
{
}
