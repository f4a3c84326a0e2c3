/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_local.c: the facts of a socket that is open in this process,
 * asked locally: getsockopt(2), getsockname(2), getpeername(2).  The
 * sources that bring the target's socket here -- pidfd_getfd(2), or the
 * agent passing it over SCM_RIGHTS -- share this, so that pfiles prints
 * the same whichever brought it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sock/socksrc.h"

/*
 * Whether the kernel refuses an option to every socket of a family is a
 * fact of the kernel, not of the socket (SO_PASSCRED of inet sockets
 * since Linux 6.16): once one socket of a family has refused a SOL_SOCKET
 * option with EOPNOTSUPP or ENOPROTOOPT, it is not asked of the others.
 * Shared by the walk's threads, hence atomic; never cleared.  Indexed by
 * family, one bit per row of the option table.
 */
#define	REFUSED_FAMILIES	64
static _Atomic uint_t refused[REFUSED_FAMILIES];

static int
is_refused(int domain, int row)
{
	return (domain >= 0 && domain < REFUSED_FAMILIES &&
	    (atomic_load_explicit(&refused[domain], memory_order_relaxed) &
	    (1U << row)) != 0);
}

static void
note_refused(int domain, const sockopt_t *o, int row, int err)
{
	if (o->so_level == SOL_SOCKET && domain >= 0 &&
	    domain < REFUSED_FAMILIES && (err == EOPNOTSUPP ||
	    err == ENOPROTOOPT))
		(void) atomic_fetch_or_explicit(&refused[domain], 1U << row,
		    memory_order_relaxed);
}

/*
 * Does the kernel refuse option row to every socket of domain?  Known
 * from the sockets asked so far; else asked once of a socket of that
 * domain made here for the purpose (for the diag source, which asks no
 * socket anything).  A domain we cannot make a socket of: not refused.
 */
static _Atomic uint_t probed[REFUSED_FAMILIES / 32 + 1];
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

int
sock_family_refuses(int domain, int row)
{
	const sockopt_t *opts = sockopt_table();
	uint_t bit = 1U << (domain % 32);
	int s, v;

	if (domain < 0 || domain >= REFUSED_FAMILIES)
		return (0);
	/* Probed once; the walk's other threads wait for the answer. */
	if (!(atomic_load(&probed[domain / 32]) & bit)) {
		(void) pthread_mutex_lock(&probe_lock);
		if (!(atomic_load(&probed[domain / 32]) & bit) &&
		    ((s = socket(domain, SOCK_DGRAM | SOCK_CLOEXEC, 0)) >= 0 ||
		    (s = socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0)) {
			for (int r = 0; r < SOCKOPT_N; r++) {
				socklen_t len = sizeof (v);

				if (opts[r].so_level == SOL_SOCKET &&
				    opts[r].so_kind == SOK_BOOL &&
				    getsockopt(s, SOL_SOCKET, opts[r].so_optname,
				    &v, &len) != 0)
					note_refused(domain, &opts[r], r, errno);
			}
			(void) close(s);
		}
		(void) atomic_fetch_or(&probed[domain / 32], bit);
		(void) pthread_mutex_unlock(&probe_lock);
	}
	return (is_refused(domain, row));
}

/* An int option, when the kernel gives one of that size. */
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

/* The options of the table that a socket of this domain and type answers. */
static void
ask_options(int s, sockfacts_t *sf)
{
	const sockopt_t *opts = sockopt_table();
	union {
		int		i;
		struct linger	lg;
	} v;

	for (int row = 0; row < SOCKOPT_N; row++) {
		const sockopt_t *o = &opts[row];
		socklen_t len = (socklen_t)sockopt_size(o);

		if (!sockopt_applies(o, sf->sf_domain, sf->sf_type) ||
		    is_refused(sf->sf_domain, row))
			continue;
		memset(&v, 0, sizeof (v));
		if (getsockopt(s, o->so_level, o->so_optname, &v, &len) != 0) {
			note_refused(sf->sf_domain, o, row, errno);
			continue;
		}
		if (len == sockopt_size(o))
			sockfacts_set_opt(sf, o, &v);
	}
}

typedef int sockname_f(int, struct sockaddr *, socklen_t *);

static int
ask_name(int s, sockname_f *fn, struct sockaddr_storage *ss,
    socklen_t *lenp)
{
	*lenp = sizeof (*ss);
	memset(ss, 0, sizeof (*ss));
	if (fn(s, (struct sockaddr *)ss, lenp) != 0)
		return (0);
	if (*lenp > sizeof (*ss))	/* the kernel says how long it was */
		*lenp = sizeof (*ss);
	return (1);
}

/*
 * All the facts pfiles shows.  The family comes with the socket's name;
 * SO_DOMAIN is asked only when the socket has no name to give, and
 * SO_PROTOCOL only where pfiles shows it (netlink).
 */
static void
ask_facts(int s, sockfacts_t *sf)
{
	struct ucred cred;
	socklen_t len;
	sa_family_t fam;
	int v;

	if (ask_name(s, getsockname, &sf->sf_name, &sf->sf_namelen)) {
		sf->sf_have |= SF_NAME;
		if (sf->sf_namelen >= sizeof (fam)) {
			memcpy(&fam, &sf->sf_name, sizeof (fam));
			sf->sf_domain = fam;
			sf->sf_have |= SF_DOMAIN;
		}
	}
	if (!(sf->sf_have & SF_DOMAIN) &&
	    getopt_int(s, SOL_SOCKET, SO_DOMAIN, &v) == 0) {
		sf->sf_domain = v;
		sf->sf_have |= SF_DOMAIN;
	}
	if (getopt_int(s, SOL_SOCKET, SO_TYPE, &v) == 0) {
		sf->sf_type = v;
		sf->sf_have |= SF_TYPE;
	}
	if (sf->sf_domain == AF_NETLINK &&
	    getopt_int(s, SOL_SOCKET, SO_PROTOCOL, &v) == 0) {
		sf->sf_protocol = v;
		sf->sf_have |= SF_PROTOCOL;
	}
	ask_options(s, sf);
	if (ask_name(s, getpeername, &sf->sf_peer, &sf->sf_peerlen))
		sf->sf_have |= SF_PEER;
	if (sf->sf_domain == AF_UNIX) {
		len = sizeof (cred);
		if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
		    len == sizeof (cred)) {
			sf->sf_cred = cred;
			sf->sf_have |= SF_CRED;
		}
	}
}

int
sock_local_facts(int s, uint64_t ino, sockfacts_t *sf)
{
	struct stat st;

	if (fstat(s, &st) != 0 || (uint64_t)st.st_ino != ino ||
	    !S_ISSOCK(st.st_mode))
		return (ESTALE);	/* replaced since the walk saw it */
	ask_facts(s, sf);
	return (0);
}
