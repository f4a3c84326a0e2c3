/*
 * sock_local.c: the facts of a socket that is open in this process,
 * asked locally: getsockopt(2), getsockname(2), getpeername(2).  The
 * sources that bring the target's socket here -- pidfd_getfd(2), or the
 * agent passing it over SCM_RIGHTS -- share this, so that pfiles prints
 * the same whichever brought it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "Pcontrol.h"

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
getopt_int(int s, int level, int name, int *valp)
{
	socklen_t len = sizeof (*valp);

	*valp = 0;
	if (getsockopt(s, level, name, valp, &len) != 0)
		return (-1);
	if (len != sizeof (*valp)) {
		errno = EPROTO;
		return (-1);
	}
	return (0);
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
/*
 * Whether the kernel refuses a SOL_SOCKET boolean to every socket of a
 * family is a fact of the kernel, not of the socket (SO_PASSCRED of inet
 * sockets since Linux 6.16): once one socket of a family has refused an
 * option with EOPNOTSUPP or ENOPROTOOPT, it is not asked of the others.
 * Shared by the walk's threads, hence atomic; never cleared.
 */
#define	REFUSED_FAMILIES	64
static _Atomic uint_t refused[REFUSED_FAMILIES];

static int
is_refused(int domain, uint_t bit)
{
	return (domain >= 0 && domain < REFUSED_FAMILIES &&
	    (atomic_load_explicit(&refused[domain], memory_order_relaxed) &
	    bit) != 0);
}

static void
note_refused(int domain, int level, uint_t bit, int err)
{
	if (level == SOL_SOCKET && domain >= 0 && domain < REFUSED_FAMILIES &&
	    (err == EOPNOTSUPP || err == ENOPROTOOPT))
		(void) atomic_fetch_or_explicit(&refused[domain], bit,
		    memory_order_relaxed);
}

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
		if (is_refused(domain, bool_opts[i].bit))
			continue;
		if (getopt_int(s, bool_opts[i].level, bool_opts[i].name,
		    &v) != 0) {
			note_refused(domain, bool_opts[i].level,
			    bool_opts[i].bit, errno);
			continue;
		}
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
sock_local_facts(int s, uint64_t ino, fdrec_t *rec)
{
	struct stat st;

	if (fstat(s, &st) != 0 || (uint64_t)st.st_ino != ino ||
	    !S_ISSOCK(st.st_mode))
		return (ESTALE);	/* replaced since the walk saw it */
	add_facts(s, rec);
	return (0);
}
