/*
 * sock_pidfd.c: socket facts through pidfd_getfd(2).
 *
 * The socket is duplicated into this process, asked locally (getsockopt,
 * getsockname, getpeername) and closed at once.  The target is neither
 * stopped nor is its memory read.  Per socket: one pidfd_getfd, one fstat
 * (to be sure the duplicate is the socket the walk saw), the options, the
 * two names, SO_PEERCRED for unix sockets, one close: 20 system calls for
 * a TCP socket.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "Pcontrol.h"

#ifndef	SYS_pidfd_getfd
#define	SYS_pidfd_getfd	438
#endif

/* The boolean options, in the bit order of libproc.h. */
static const struct {
	int	level;
	int	name;
	uint_t	bit;
} bool_opts[] = {
	{ SOL_SOCKET, SO_DEBUG, PR_SO_DEBUG },
	{ SOL_SOCKET, SO_REUSEADDR, PR_SO_REUSEADDR },
	{ SOL_SOCKET, SO_KEEPALIVE, PR_SO_KEEPALIVE },
	{ SOL_SOCKET, SO_DONTROUTE, PR_SO_DONTROUTE },
	{ SOL_SOCKET, SO_BROADCAST, PR_SO_BROADCAST },
	{ SOL_SOCKET, SO_OOBINLINE, PR_SO_OOBINLINE },
	{ SOL_SOCKET, SO_REUSEPORT, PR_SO_REUSEPORT },
	{ SOL_SOCKET, SO_PASSCRED, PR_SO_PASSCRED },
	{ SOL_SOCKET, SO_ACCEPTCONN, PR_SO_ACCEPTCONN },
	{ IPPROTO_TCP, TCP_NODELAY, PR_TCP_NODELAY },
};

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

static int
getopt_int(int s, int level, int name, int *valp)
{
	socklen_t len = sizeof (*valp);

	*valp = 0;
	return (getsockopt(s, level, name, valp, &len) == 0 &&
	    len == sizeof (*valp) ? 0 : -1);
}

static void
add_int_opt(int s, int name, uint_t type, fdrec_t *rec)
{
	int v;

	if (getopt_int(s, SOL_SOCKET, name, &v) == 0)
		(void) fdrec_add(rec, type, &v, sizeof (v));
}

/*
 * The boolean options.  TCP_NODELAY is asked of inet streams only; a
 * stream that is not TCP (SCTP) refuses it, and then it is not shown.
 * An option the socket refuses (SO_PASSCRED of an inet socket, since
 * Linux 6.16) is not known, and not shown.
 */
static void
add_bool_opts(int s, int domain, int type, fdrec_t *rec)
{
	int inet = domain == AF_INET || domain == AF_INET6;
	prsockbool_t b = { 0, 0 };
	int v;

	for (size_t i = 0; i < sizeof (bool_opts) / sizeof (bool_opts[0]);
	    i++) {
		if (bool_opts[i].bit == PR_TCP_NODELAY &&
		    (!inet || type != SOCK_STREAM))
			continue;
		if (getopt_int(s, bool_opts[i].level, bool_opts[i].name,
		    &v) != 0)
			continue;
		b.pr_known |= bool_opts[i].bit;
		if (v != 0)
			b.pr_set |= bool_opts[i].bit;
	}
	(void) fdrec_add(rec, PR_SOCKOPTS_BOOL_OPTS, &b, sizeof (b));
}

typedef int sockname_f(int, struct sockaddr *, socklen_t *);

/* Add the name as an item; its family, or -1 when there is none. */
static int
add_name(int s, sockname_f *fn, uint_t type, fdrec_t *rec)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof (ss);

	memset(&ss, 0, sizeof (ss));
	if (fn(s, (struct sockaddr *)&ss, &len) != 0)
		return (-1);
	if (len > sizeof (ss))		/* the kernel says how long it was */
		len = sizeof (ss);
	(void) fdrec_add(rec, type, &ss, len);
	return (len >= sizeof (ss.ss_family) ? ss.ss_family : -1);
}

/*
 * All the facts pfiles shows, asked of the local duplicate s.  The family
 * comes with the socket's name; SO_DOMAIN is asked only when the socket
 * has no name to give, SO_PROTOCOL only where pfiles shows it (netlink).
 */
static void
add_facts(int s, fdrec_t *rec)
{
	int type = -1, proto, domain;
	struct linger lg;
	struct ucred cred;
	socklen_t len;

	if ((domain = add_name(s, getsockname, PR_SOCKETNAME, rec)) < 0 &&
	    getopt_int(s, SOL_SOCKET, SO_DOMAIN, &domain) != 0)
		domain = -1;
	if (domain >= 0)
		(void) fdrec_add(rec, PR_SOCKOPT_DOMAIN, &domain,
		    sizeof (domain));
	if (getopt_int(s, SOL_SOCKET, SO_TYPE, &type) == 0)
		(void) fdrec_add(rec, PR_SOCKOPT_TYPE, &type, sizeof (type));
	if (domain == AF_NETLINK &&
	    getopt_int(s, SOL_SOCKET, SO_PROTOCOL, &proto) == 0)
		(void) fdrec_add(rec, PR_SOCKOPT_PROTOCOL, &proto,
		    sizeof (proto));

	add_bool_opts(s, domain, type, rec);

	len = sizeof (lg);
	if (getsockopt(s, SOL_SOCKET, SO_LINGER, &lg, &len) == 0 &&
	    len == sizeof (lg))
		(void) fdrec_add(rec, PR_SOCKOPT_LINGER, &lg, sizeof (lg));
	add_int_opt(s, SO_SNDBUF, PR_SOCKOPT_SNDBUF, rec);
	add_int_opt(s, SO_RCVBUF, PR_SOCKOPT_RCVBUF, rec);

	(void) add_name(s, getpeername, PR_PEERSOCKNAME, rec);

	if (domain == AF_UNIX) {
		len = sizeof (cred);
		if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
		    len == sizeof (cred))
			(void) fdrec_add(rec, PR_PEERCRED, &cred,
			    sizeof (cred));
	}
}

int
sock_pidfd_facts(struct ps_prochandle *P, int fd, uint64_t ino, fdrec_t *rec)
{
	char msg[96];
	struct stat st;
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
	if (fstat(s, &st) != 0 || (uint64_t)st.st_ino != ino ||
	    !S_ISSOCK(st.st_mode)) {
		(void) close(s);
		return (ESTALE);	/* replaced since the walk saw it */
	}
	add_facts(s, rec);
	(void) close(s);
	return (0);
}
