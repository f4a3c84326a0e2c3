/*
 * sock_diag.c: socket facts from NETLINK_SOCK_DIAG.  Not written yet:
 * the probe says so, and auto passes on to the next source.
 */
#include <errno.h>

#include "socksrc.h"

static int
diag_probe(struct ps_prochandle *P)
{
	return (Pseterr(P, ENOTSUP, "not available"));
}

static int
diag_facts(struct ps_prochandle *P, int fd, uint64_t ino, sockfacts_t *sf)
{
	return (ENOTSUP);
}

const socksrc_ops_t sock_diag_ops = {
	.so_id = PSOCK_DIAG,
	.so_name = "diag",
	.so_probe = diag_probe,
	.so_facts = diag_facts,
};
