/*
 * sock_agent.c: socket facts through the agent (agent.c), for kernels
 * and sandboxes without pidfd_getfd(2).
 *
 * The agent is made once, when the source is probed, and kept for the
 * whole walk (Prelease gives the thread back).  First the target is
 * asked to pass its sockets to us, 253 in one message (sock_pass.c), and
 * their facts are asked of the duplicates, as the pidfd source does.
 *
 * The fallback, for the sockets that cannot be passed or every socket of
 * a grab in which passing cannot work: ONE batch of system calls per
 * socket run in the target -- fstat (to be sure the fd is still the
 * socket the walk saw), SO_TYPE, SO_PROTOCOL, SO_DOMAIN, SO_PEERCRED,
 * every option of the table (sockopts.h), getsockname, getpeername -- so
 * one write and one read of the target's memory.  Every call is made
 * whatever the socket's family, which is only known once the batch has
 * run; sockrec.c then keeps what applies, as for every source.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "agent.h"
#include "sock_pass.h"

/* The facts other than the options, asked with getsockopt. */
enum { F_TYPE, F_PROTOCOL, F_DOMAIN, F_PEERCRED, F_N };

static const int fact_optname[F_N] = {
	[F_TYPE] = SO_TYPE, [F_PROTOCOL] = SO_PROTOCOL,
	[F_DOMAIN] = SO_DOMAIN, [F_PEERCRED] = SO_PEERCRED,
};

/* The calls of the batch. */
enum {
	C_FSTAT,
	C_FACT0,
	C_OPT0 = C_FACT0 + F_N,
	C_SOCKNAME = C_OPT0 + SOCKOPT_N,
	C_PEERNAME,
	C_N
};

typedef union {
	int		i;
	struct linger	lg;
	struct ucred	cred;
} optval_t;

/* One socket's batch: the calls, their arguments and their objects. */
typedef struct sock_batch {
	psyscall_t	sb_calls[C_N];
	argdes_t	sb_args[C_N][5];
	struct stat	sb_st;
	optval_t	sb_val[C_N];	/* by call index */
	int		sb_len[C_N];
	struct sockaddr_storage sb_name[2];
	socklen_t	sb_namelen[2];
} sock_batch_t;

static void
add_getsockopt(sock_batch_t *b, int c, int fd, int level, int name,
    size_t size)
{
	argdes_t *a = b->sb_args[c];

	b->sb_len[c] = (int)size;
	argdes_byval(&a[0], fd);
	argdes_byval(&a[1], level);
	argdes_byval(&a[2], name);
	argdes_byref(&a[3], &b->sb_val[c], size, AI_OUTPUT);
	argdes_byref(&a[4], &b->sb_len[c], sizeof (int), AI_INOUT);
	psyscall_set(&b->sb_calls[c], SYS_getsockopt, a, 5);
}

static void
build_batch(sock_batch_t *b, int fd)
{
	const sockopt_t *opts = sockopt_table();

	memset(b, 0, sizeof (*b));
	argdes_byval(&b->sb_args[C_FSTAT][0], fd);
	argdes_byref(&b->sb_args[C_FSTAT][1], &b->sb_st, sizeof (b->sb_st),
	    AI_OUTPUT);
	psyscall_set(&b->sb_calls[C_FSTAT], SYS_fstat, b->sb_args[C_FSTAT],
	    2);

	for (int f = 0; f < F_N; f++)
		add_getsockopt(b, C_FACT0 + f, fd, SOL_SOCKET,
		    fact_optname[f], f == F_PEERCRED ? sizeof (struct ucred) :
		    sizeof (int));
	for (int row = 0; row < SOCKOPT_N; row++)
		add_getsockopt(b, C_OPT0 + row, fd, opts[row].so_level,
		    opts[row].so_optname, sockopt_size(&opts[row]));

	for (int k = 0; k < 2; k++) {
		int c = k == 0 ? C_SOCKNAME : C_PEERNAME;
		argdes_t *a = b->sb_args[c];

		b->sb_namelen[k] = sizeof (b->sb_name[k]);
		argdes_byval(&a[0], fd);
		argdes_byref(&a[1], &b->sb_name[k], sizeof (b->sb_name[k]),
		    AI_OUTPUT);
		argdes_byref(&a[2], &b->sb_namelen[k], sizeof (socklen_t),
		    AI_INOUT);
		psyscall_set(&b->sb_calls[c], k == 0 ? SYS_getsockname :
		    SYS_getpeername, a, 3);
	}
}

/* The value of getsockopt call c, when it succeeded with the size asked. */
static const optval_t *
value_of(const sock_batch_t *b, int c, size_t size)
{
	if (b->sb_calls[c].ps_errno != 0 || b->sb_len[c] != (int)size)
		return (NULL);
	return (&b->sb_val[c]);
}

static void
set_fact(sockfacts_t *sf, const sock_batch_t *b, int f, int *field,
    uint_t bit)
{
	const optval_t *v = value_of(b, C_FACT0 + f, sizeof (int));

	if (v != NULL) {
		*field = v->i;
		sf->sf_have |= bit;
	}
}

static void
set_name(const sock_batch_t *b, int k, struct sockaddr_storage *ss,
    socklen_t *lenp, sockfacts_t *sf, uint_t bit)
{
	if (b->sb_calls[k == 0 ? C_SOCKNAME : C_PEERNAME].ps_errno != 0)
		return;
	*ss = b->sb_name[k];
	*lenp = b->sb_namelen[k] > sizeof (*ss) ? sizeof (*ss) :
	    b->sb_namelen[k];
	sf->sf_have |= bit;
}

static void
batch_facts(const sock_batch_t *b, sockfacts_t *sf)
{
	const sockopt_t *opts = sockopt_table();
	const optval_t *v;

	set_fact(sf, b, F_TYPE, &sf->sf_type, SF_TYPE);
	set_fact(sf, b, F_PROTOCOL, &sf->sf_protocol, SF_PROTOCOL);
	set_fact(sf, b, F_DOMAIN, &sf->sf_domain, SF_DOMAIN);
	if ((v = value_of(b, C_FACT0 + F_PEERCRED,
	    sizeof (struct ucred))) != NULL) {
		sf->sf_cred = v->cred;
		sf->sf_have |= SF_CRED;
	}
	for (int row = 0; row < SOCKOPT_N; row++) {
		if ((v = value_of(b, C_OPT0 + row,
		    sockopt_size(&opts[row]))) != NULL)
			sockfacts_set_opt(sf, &opts[row], v);
	}
	set_name(b, 0, &sf->sf_name, &sf->sf_namelen, sf, SF_NAME);
	set_name(b, 1, &sf->sf_peer, &sf->sf_peerlen, sf, SF_PEER);
}

/*
 * The first call of the batch that the target's sandbox refused (a
 * seccomp filter's EPERM or ENOSYS, an LSM's EACCES): its facts are
 * missing, and the reason is said.
 */
static void
note_refused(const sock_batch_t *b, sockfacts_t *sf)
{
	for (int c = C_FACT0; c < C_N; c++) {
		int e = b->sb_calls[c].ps_errno;

		if (e == EPERM || e == EACCES || e == ENOSYS) {
			sockfacts_error(sf, "agent: %s: %s",
			    c == C_SOCKNAME ? "getsockname" :
			    c == C_PEERNAME ? "getpeername" : "getsockopt",
			    strerror(e));
			return;
		}
	}
}

/* Is the agent's thread parked, ready for a batch? */
static int
agent_parked(struct ps_prochandle *P)
{
	return (P->agent != NULL && P->agent->ag_state == AG_PARKED);
}

/*
 * The agent's thread is gone or changed under us while the process
 * lives on: an exec by another thread made every other thread exit, and
 * gave the pid to the exec'ing one.  An exec is not an exit: a new agent,
 * on a thread of the new image.  1 when there is one.
 */
static int
agent_renew(struct ps_prochandle *P)
{
	if (Pexiting(P))
		return (0);
	PDEBUG(P, "agent: its thread is gone, the process lives on (an "
	    "exec?): a new agent");
	Pdestroy_agent(P);
	/* Its memory is the new image's: /proc/PID/mem is opened anew. */
	if (P->memfd >= 0) {
		(void) close(P->memfd);
		P->memfd = -1;
	}
	return (Pcreate_agent(P) == 0);
}

#define	RENEW_TRIES	3

static int
agent_probe(struct ps_prochandle *P)
{
	int err;

	if (P->agent != NULL || Pcreate_agent(P) == 0)
		return (0);
	err = errno;			/* Pcreate_agent set the message */
	/*
	 * The thread went in an exec's hand-over (gone: ESRCH; exiting, and
	 * so not to be seized: EPERM; the old image read: ENOEXEC): one of
	 * the new image.  A real refusal is refused again, and said.
	 */
	for (int i = 0; (err == ESRCH || err == EIO || err == EPERM ||
	    err == ENOEXEC) &&
	    i < EXEC_SETTLE_MS / 5 && !Pexiting(P); i++) {
		(void) usleep(5000);
		if (agent_renew(P))
			return (0);
		err = errno;
	}
	return (err);
}

static int
agent_facts(struct ps_prochandle *P, int fd, uint64_t ino, sockfacts_t *sf)
{
	sock_batch_t b;
	int err = 0;

	for (int tries = 0; tries < RENEW_TRIES; tries++) {
		/* Again after a failure, or an agent already broken: anew. */
		if ((tries > 0 || (P->agent != NULL && !agent_parked(P))) &&
		    !agent_renew(P))
			break;
		err = sock_pass_facts(P, fd, ino, sf);
		if (err == ESRCH && !Pexiting(P))
			continue;
		if (err != SOCK_PASS_NO)
			return (err);
		build_batch(&b, fd);
		if (Psyscall_batch(P, b.sb_calls, C_N) != 0) {
			err = errno;
			if ((err == ESRCH || !agent_parked(P)) && !Pexiting(P))
				continue;
			if (err == ESRCH)
				return (ESRCH);
			break;
		}
		if ((err = b.sb_calls[C_FSTAT].ps_errno) == EBADF)
			return (ENOENT);	/* closed since the walk saw it */
		if (err != 0) {
			/* Facts not known to be this socket's are no facts. */
			sockfacts_error(sf, "agent: fstat: %s", strerror(err));
			return (0);
		}
		if ((uint64_t)b.sb_st.st_ino != ino ||
		    !S_ISSOCK(b.sb_st.st_mode))
			return (ESTALE);	/* replaced since the walk saw it */
		batch_facts(&b, sf);
		note_refused(&b, sf);
		/*
		 * SO_PEERCRED's pid, asked inside the target, is a pid of its
		 * pid namespace: in ours it may name another process.  Not
		 * shown.
		 */
		if (!Psame_pidns(P))
			sf->sf_have &= ~SF_CRED;
		return (0);
	}
	sockfacts_error(sf, "agent: %s", P->errmsg[0] != '\0' ? P->errmsg :
	    strerror(err != 0 ? err : EIO));
	return (0);
}

const socksrc_ops_t sock_agent_ops = {
	.so_id = PSOCK_AGENT,
	.so_name = "agent",
	.so_probe = agent_probe,
	.so_batch = sock_pass_batch,
	.so_facts = agent_facts,
	.so_release = sock_pass_release,
};
