/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_pidfd.c: socket facts through pidfd_getfd(2).
 *
 * Each socket is duplicated into this process, asked locally and closed
 * at once (sock/sock_getfd.c).  The target is neither stopped nor is its
 * memory read.  Safe from several threads at once.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sock/socksrc.h"

/*
 * Can pidfd_getfd serve?  Asking for fd -1 passes the kernel's permission
 * check (ptrace access, seccomp) and then fails with EBADF, without
 * touching any fd of the target.
 */
static int
pidfd_probe(struct ps_prochandle *P, int how)
{
	int fd, err;

	if (P->pidfd < 0)
		return (P->pidfd_err == ENOSYS ? Pseterr(P, ENOSYS,
		    "pidfd_open is not available") : Pseterr(P, P->pidfd_err,
		    "pidfd_open: %s", strerror(P->pidfd_err)));
	/*
	 * Its main thread has exited: pidfd_getfd takes the files of the
	 * thread its pidfd names, and the main thread has none.  A pidfd
	 * of a live thread (PIDFD_THREAD) needs Linux 6.9.
	 */
	if (P->tid != 0 && P->thrpidfd < 0)
		return (Pseterr(P, ENOTSUP, "the process's main thread has "
		    "exited, and this kernel has no pidfd of a thread "
		    "(PIDFD_THREAD, Linux 6.9)"));
	if ((fd = sock_getfd(P, -1)) >= 0) {
		(void) close(fd);	/* cannot happen; do not leak it */
		return (0);
	}
	if ((err = errno) == EBADF)
		return (0);
	if (Pexited(P))
		err = ESRCH;
	return (Pseterr(P, err, "pidfd_getfd: %s", strerror(err)));
}

const socksrc_ops_t sock_pidfd_ops = {
	.sc_id = PSOCK_PIDFD,
	.sc_name = "pidfd",
	.sc_probe = pidfd_probe,
	.sc_facts = sock_getfd_facts,
	.sc_parallel = 1,
};
