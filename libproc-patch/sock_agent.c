/*
 * sock_agent.c: socket facts through the agent (agent.c), for kernels
 * and sandboxes without pidfd_getfd(2).
 *
 * The agent is made once, when the source is probed, and kept for the
 * whole walk (Prelease gives the thread back).  Per socket: ONE batch of
 * system calls run in the target -- fstat (to be sure the fd is still
 * the socket the walk saw), SO_TYPE, SO_PROTOCOL, SO_DOMAIN, the nine
 * boolean options and TCP_NODELAY, SO_LINGER, SO_SNDBUF, SO_RCVBUF,
 * getsockname, getpeername, SO_PEERCRED -- so one write and one read of
 * the target's memory.  The items added are those of sock_pidfd.c, made
 * by the same rules, so that pfiles prints the same either way: a fact
 * whose call failed is left out; TCP_NODELAY only for TCP, SO_PEERCRED
 * only for unix sockets, although the batch asks for both every time
 * (the domain is only known once the batch has run).
 *
 * That batch is the fallback.  First the target is asked to pass its
 * sockets to us, 253 in one message (sock_agent_pass.c), and their facts
 * are asked of the duplicates, as the pidfd source does; the batch serves
 * the sockets that cannot be passed, or every socket of a grab in which
 * passing cannot work.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "Pcontrol.h"
#include "sock_agent_pass.h"

/* The getsockopt calls of the batch, in its order after the fstat. */
enum {
	Q_TYPE, Q_PROTOCOL, Q_DOMAIN,
	Q_BOOL0,				/* PR_SO_NBOOL of them */
	Q_LINGER = Q_BOOL0 + PR_SO_NBOOL,
	Q_SNDBUF, Q_RCVBUF, Q_PEERCRED,
	Q_NOPTS
};

static const struct {
	int	level;
	int	name;
	uint_t	bit;		/* booleans: their PR_ bit */
} opts[Q_NOPTS] = {
	[Q_TYPE] = { SOL_SOCKET, SO_TYPE, 0 },
	[Q_PROTOCOL] = { SOL_SOCKET, SO_PROTOCOL, 0 },
	[Q_DOMAIN] = { SOL_SOCKET, SO_DOMAIN, 0 },
	[Q_BOOL0 + 0] = { SOL_SOCKET, SO_DEBUG, PR_SO_DEBUG },
	[Q_BOOL0 + 1] = { SOL_SOCKET, SO_REUSEADDR, PR_SO_REUSEADDR },
	[Q_BOOL0 + 2] = { SOL_SOCKET, SO_KEEPALIVE, PR_SO_KEEPALIVE },
	[Q_BOOL0 + 3] = { SOL_SOCKET, SO_DONTROUTE, PR_SO_DONTROUTE },
	[Q_BOOL0 + 4] = { SOL_SOCKET, SO_BROADCAST, PR_SO_BROADCAST },
	[Q_BOOL0 + 5] = { SOL_SOCKET, SO_OOBINLINE, PR_SO_OOBINLINE },
	[Q_BOOL0 + 6] = { SOL_SOCKET, SO_REUSEPORT, PR_SO_REUSEPORT },
	[Q_BOOL0 + 7] = { SOL_SOCKET, SO_PASSCRED, PR_SO_PASSCRED },
	[Q_BOOL0 + 8] = { SOL_SOCKET, SO_ACCEPTCONN, PR_SO_ACCEPTCONN },
	[Q_BOOL0 + 9] = { IPPROTO_TCP, TCP_NODELAY, PR_TCP_NODELAY },
	[Q_LINGER] = { SOL_SOCKET, SO_LINGER, 0 },
	[Q_SNDBUF] = { SOL_SOCKET, SO_SNDBUF, 0 },
	[Q_RCVBUF] = { SOL_SOCKET, SO_RCVBUF, 0 },
	[Q_PEERCRED] = { SOL_SOCKET, SO_PEERCRED, 0 },
};

/* The calls of the batch: fstat, the options, the two names. */
enum { C_FSTAT, C_OPT0, C_SOCKNAME = C_OPT0 + Q_NOPTS, C_PEERNAME, C_N };

/* One socket's batch: the calls, their arguments and their objects. */
typedef struct sock_batch {
	psyscall_t	sb_calls[C_N];
	argdes_t	sb_args[C_N][5];
	struct stat	sb_st;
	union {
		int		i;
		struct linger	lg;
		struct ucred	cred;
	}		sb_val[Q_NOPTS];
	int		sb_len[Q_NOPTS];
	struct sockaddr_storage sb_name[2];
	socklen_t	sb_namelen[2];
} sock_batch_t;

static void
set_call(sock_batch_t *b, int c, int nr, uint_t nargs)
{
	b->sb_calls[c].ps_sysindex = nr;
	b->sb_calls[c].ps_nargs = nargs;
	b->sb_calls[c].ps_argp = b->sb_args[c];
}

static void
build_batch(sock_batch_t *b, int fd)
{
	memset(b, 0, sizeof (*b));
	argdes_byval(&b->sb_args[C_FSTAT][0], fd);
	argdes_byref(&b->sb_args[C_FSTAT][1], &b->sb_st, sizeof (b->sb_st),
	    AI_OUTPUT);
	set_call(b, C_FSTAT, SYS_fstat, 2);

	for (int q = 0; q < Q_NOPTS; q++) {
		argdes_t *a = b->sb_args[C_OPT0 + q];
		size_t sz = q == Q_LINGER ? sizeof (struct linger) :
		    q == Q_PEERCRED ? sizeof (struct ucred) : sizeof (int);

		b->sb_len[q] = (int)sz;
		argdes_byval(&a[0], fd);
		argdes_byval(&a[1], opts[q].level);
		argdes_byval(&a[2], opts[q].name);
		argdes_byref(&a[3], &b->sb_val[q], sz, AI_OUTPUT);
		argdes_byref(&a[4], &b->sb_len[q], sizeof (int), AI_INOUT);
		set_call(b, C_OPT0 + q, SYS_getsockopt, 5);
	}

	for (int k = 0; k < 2; k++) {
		int c = k == 0 ? C_SOCKNAME : C_PEERNAME;
		argdes_t *a = b->sb_args[c];

		b->sb_namelen[k] = sizeof (b->sb_name[k]);
		argdes_byval(&a[0], fd);
		argdes_byref(&a[1], &b->sb_name[k], sizeof (b->sb_name[k]),
		    AI_OUTPUT);
		argdes_byref(&a[2], &b->sb_namelen[k], sizeof (socklen_t),
		    AI_INOUT);
		set_call(b, c, k == 0 ? SYS_getsockname : SYS_getpeername, 3);
	}
}

/* Option q, when its call succeeded with the size asked for. */
static const void *
opt_value(const sock_batch_t *b, int q)
{
	const psyscall_t *c = &b->sb_calls[C_OPT0 + q];
	int want = q == Q_LINGER ? (int)sizeof (struct linger) :
	    q == Q_PEERCRED ? (int)sizeof (struct ucred) : (int)sizeof (int);

	if (c->ps_errno != 0 || b->sb_len[q] != want)
		return (NULL);
	return (&b->sb_val[q]);
}

static void
add_int(fdrec_t *rec, const sock_batch_t *b, int q, uint_t type)
{
	const void *v = opt_value(b, q);

	if (v != NULL)
		(void) fdrec_add(rec, type, v, sizeof (int));
}

static void
add_name(fdrec_t *rec, const sock_batch_t *b, int k, uint_t type)
{
	const psyscall_t *c = &b->sb_calls[k == 0 ? C_SOCKNAME : C_PEERNAME];
	socklen_t len = b->sb_namelen[k];

	if (c->ps_errno != 0)
		return;
	if (len > sizeof (b->sb_name[k]))	/* clamped already; be sure */
		len = sizeof (b->sb_name[k]);
	(void) fdrec_add(rec, type, &b->sb_name[k], len);
}

static void
add_facts(fdrec_t *rec, const sock_batch_t *b)
{
	const int *tp = opt_value(b, Q_TYPE), *pp = opt_value(b, Q_PROTOCOL);
	const int *dp = opt_value(b, Q_DOMAIN);
	prsockbool_t bools = { 0, 0 };
	int is_tcp;
	const void *v;

	add_int(rec, b, Q_TYPE, PR_SOCKOPT_TYPE);
	add_int(rec, b, Q_PROTOCOL, PR_SOCKOPT_PROTOCOL);
	add_int(rec, b, Q_DOMAIN, PR_SOCKOPT_DOMAIN);

	/*
	 * As sock_local.c: TCP_NODELAY counts for an inet stream that
	 * answers it (TCP and MPTCP do, SCTP does not).
	 */
	(void) pp;
	is_tcp = dp != NULL && (*dp == AF_INET || *dp == AF_INET6) &&
	    tp != NULL && *tp == SOCK_STREAM;
	for (int i = 0; i < PR_SO_NBOOL; i++) {
		const int *bv = opt_value(b, Q_BOOL0 + i);
		uint_t bit = opts[Q_BOOL0 + i].bit;

		if (bv == NULL || (bit == PR_TCP_NODELAY && !is_tcp))
			continue;
		bools.pr_known |= bit;
		if (*bv != 0)
			bools.pr_set |= bit;
	}
	(void) fdrec_add(rec, PR_SOCKOPTS_BOOL_OPTS, &bools, sizeof (bools));

	if ((v = opt_value(b, Q_LINGER)) != NULL)
		(void) fdrec_add(rec, PR_SOCKOPT_LINGER, v,
		    sizeof (struct linger));
	add_int(rec, b, Q_SNDBUF, PR_SOCKOPT_SNDBUF);
	add_int(rec, b, Q_RCVBUF, PR_SOCKOPT_RCVBUF);

	add_name(rec, b, 0, PR_SOCKETNAME);
	add_name(rec, b, 1, PR_PEERSOCKNAME);

	if (dp != NULL && *dp == AF_UNIX &&
	    (v = opt_value(b, Q_PEERCRED)) != NULL)
		(void) fdrec_add(rec, PR_PEERCRED, v, sizeof (struct ucred));
}

int
sock_agent_probe(struct ps_prochandle *P)
{
	int err;

	if (P->agent != NULL || Pcreate_agent(P) == 0)
		return (0);
	err = errno;
	(void) snprintf(P->socksrc_err, sizeof (P->socksrc_err),
	    "agent: %s", Pagent_error()[0] != '\0' ? Pagent_error() :
	    strerror(err));
	return (err);
}

int
sock_agent_facts(struct ps_prochandle *P, int fd, uint64_t ino, fdrec_t *rec)
{
	sock_batch_t b;
	char msg[sizeof (P->socksrc_err)];
	int err;

	if ((err = sock_pass_facts(P, fd, ino, rec)) != SOCK_PASS_NO)
		return (err);
	build_batch(&b, fd);
	if (Psyscall_batch(P, b.sb_calls, C_N) != 0) {
		if ((err = errno) == ESRCH)
			return (ESRCH);
		(void) snprintf(msg, sizeof (msg), "agent: %s",
		    Pagent_error()[0] != '\0' ? Pagent_error() :
		    strerror(err));
		(void) fdrec_add(rec, PR_SOCKERR, msg, strlen(msg) + 1);
		return (0);
	}
	if (b.sb_calls[C_FSTAT].ps_errno == EBADF)
		return (ENOENT);	/* closed since the walk saw it */
	if (b.sb_calls[C_FSTAT].ps_errno != 0 ||
	    (uint64_t)b.sb_st.st_ino != ino || !S_ISSOCK(b.sb_st.st_mode))
		return (ESTALE);	/* replaced since the walk saw it */
	add_facts(rec, &b);
	return (0);
}

/* The walk's next batch of fds: those the target may pass. */
void
sock_agent_batch(struct ps_prochandle *P, const int *fds, size_t nfds)
{
	sock_pass_batch(P, fds, nfds);
}
