/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_pidfd.c: socket facts through pidfd_getfd(2).
 *
 * The socket is duplicated into this process, asked locally
 * (sock_local.c) and closed at once.  The target is neither stopped nor
 * is its memory read.  Per socket: one pidfd_getfd, one fstat (to be sure
 * the duplicate is the socket the walk saw), the options, the two names,
 * SO_PEERCRED for unix sockets, one close (sock_close.c: never one that
 * lingers): 20 system calls for a TCP socket.  Safe from several threads at once.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sock/socksrc.h"


#define	EXEC_TRIES	EXEC_SETTLE_MS	/* 1 ms each */

/*
 * pidfd_getfd(2).  While an exec by another thread hands the process
 * over to the exec'ing thread, the pidfd names no task for a moment
 * (ESRCH) although the process lives on: asked again, bounded.
 */
static int
getfd(struct ps_prochandle *P, int fd)
{
	int s;

	for (int i = 0; (s = (int)syscall(SYS_pidfd_getfd, PFD_PIDFD(P), fd,
	    0)) < 0 && errno == ESRCH && i < EXEC_TRIES && !Pexited(P); i++)
		(void) usleep(1000);
	return (s);
}

/*
 * Can pidfd_getfd serve?  Asking for fd -1 passes the kernel's permission
 * check (ptrace access, seccomp) and then fails with EBADF, without
 * touching any fd of the target.
 */
static int
pidfd_probe(struct ps_prochandle *P)
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
	if ((fd = getfd(P, -1)) >= 0) {
		(void) close(fd);	/* cannot happen; do not leak it */
		return (0);
	}
	if ((err = errno) == EBADF)
		return (0);
	if (Pexited(P))
		err = ESRCH;
	return (Pseterr(P, err, "pidfd_getfd: %s", strerror(err)));
}

static int
pidfd_facts(struct ps_prochandle *P, int fd, uint64_t ino,
    sockfacts_t *sf)
{
	int s, err;

	if ((s = getfd(P, fd)) < 0) {
		if ((err = errno) == EBADF)
			return (ENOENT);	/* closed since the walk */
		if (Pexited(P))
			return (ESRCH);
		sockfacts_error(sf, "pidfd_getfd: %s", strerror(err));
		return (0);
	}
	err = sock_local_facts(s, ino, sf);
	sock_close(s, sf);
	return (err);
}

const socksrc_ops_t sock_pidfd_ops = {
	.sc_id = PSOCK_PIDFD,
	.sc_name = "pidfd",
	.sc_probe = pidfd_probe,
	.sc_facts = pidfd_facts,
	.sc_parallel = 1,
};
