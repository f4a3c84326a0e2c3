/*
 * sock_pidfd.c: socket facts through pidfd_getfd(2).
 *
 * The socket is duplicated into this process, asked locally
 * (sock_local.c) and closed at once.  The target is neither stopped nor
 * is its memory read.  Per socket: one pidfd_getfd, one fstat (to be sure
 * the duplicate is the socket the walk saw), the options, the two names,
 * SO_PEERCRED for unix sockets, one close: 20 system calls for a TCP
 * socket.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "Pcontrol.h"

#ifndef	SYS_pidfd_getfd
#define	SYS_pidfd_getfd	438
#endif

static int
pidfd_getfd(int pidfd, int fd)
{
	return ((int)syscall(SYS_pidfd_getfd, pidfd, fd, 0));
}

/*
 * Can pidfd_getfd serve?  Asking for fd -1 passes the kernel's permission
 * check (ptrace access, seccomp) and then fails with EBADF, without
 * touching any fd of the target.
 */
int
sock_pidfd_probe(struct ps_prochandle *P)
{
	int fd, err;

	if (P->pidfd < 0) {
		(void) snprintf(P->socksrc_err, sizeof (P->socksrc_err),
		    "pidfd: pidfd_open is not available");
		return (ENOSYS);
	}
	fd = pidfd_getfd(P->pidfd, -1);
	if (fd >= 0) {		/* cannot happen; do not leak it */
		(void) close(fd);
		return (0);
	}
	err = errno;
	if (err == EBADF)
		return (0);
	if (Pexited(P))
		err = ESRCH;
	(void) snprintf(P->socksrc_err, sizeof (P->socksrc_err),
	    "pidfd: pidfd_getfd: %s", strerror(err));
	return (err);
}

int
sock_pidfd_facts(struct ps_prochandle *P, int fd, uint64_t ino, fdrec_t *rec)
{
	char msg[96];
	int s, err;

	if ((s = pidfd_getfd(P->pidfd, fd)) < 0) {
		err = errno;
		if (err == EBADF)
			return (ENOENT);	/* closed since the walk saw it */
		if (Pexited(P))
			return (ESRCH);
		(void) snprintf(msg, sizeof (msg), "pidfd_getfd: %s",
		    strerror(err));
		(void) fdrec_add(rec, PR_SOCKERR, msg, strlen(msg) + 1);
		return (0);
	}
	err = sock_local_facts(s, ino, rec);
	(void) close(s);
	return (err);
}
