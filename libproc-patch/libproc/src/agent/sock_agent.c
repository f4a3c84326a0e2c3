/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_agent.c: socket facts through the agent (agent.c), for kernels
 * and sandboxes without pidfd_getfd(2).
 *
 * The agent is made once, when the source is probed, and kept for the
 * whole walk (Prelease gives the thread back); between two batches the
 * thread runs (Psyscall.c).  First the target is asked to pass its
 * sockets to us, 253 in one message (sock_pass.c), and their facts are
 * asked of the duplicates, as the pidfd source does.
 *
 * The fallback, for the sockets that cannot be passed or every socket of
 * a grab in which passing cannot work: ONE batch of system calls per
 * socket run in the target, so one write and one read of the target's
 * memory.  The batch first duplicates the fd in the target
 * (F_DUPFD_CLOEXEC) and asks everything of that duplicate, which is a
 * reference to one open file whatever the target's other threads do to
 * fd N meanwhile: fstat (to be sure it is the socket the walk saw),
 * SO_TYPE, SO_PROTOCOL, SO_DOMAIN, SO_PEERCRED, every option of the
 * table (sockopts.h), getsockname, getpeername, every question of its
 * state, queues and netlink groups (sock_state.c: TCP_INFO, SIOCINQ,
 * SIOCOUTQ, SO_MEMINFO, NETLINK_LIST_MEMBERSHIPS); then it closes the
 * duplicate (or, if the batch broke off before, a batch of its own
 * does).  Every call is made whatever the socket's family, which is only
 * known once the batch has run; sockrec.c and sock_state.c then keep
 * what applies, as for every source.  A seccomp filter of the target's
 * that would kill it for a question of the state (an ioctl it does not
 * allow) refuses the whole batch before any of it runs: the batch is
 * made again without them, and so for the agent's other sockets.  Their
 * state and queues are then a gap, as where the sandbox makes those
 * calls fail (EPERM, EACCES, ENOSYS); the rest of the facts stand.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "agent/agent.h"
#include "src/agent/sock_pass.h"

/* Why a record lacks the peer's credentials (agent_facts()). */
static const char agent_gapwhy[] = "agent: asked inside the process, "
    "whose pid namespace is not pfiles'";
/* Why it lacks the peer's name: no pidfd of the peer to prove it. */
static const char agent_peerwhy[] = "agent: asked inside the process, "
    "not passed to pfiles";
/* Why it lacks its state and queues; and with one of the others. */
static const char agent_statewhy[] = "agent: the process's sandbox "
    "refuses the calls that ask for them";
static const char agent_gapstatewhy[] = "agent: asked inside the "
    "process, whose pid namespace is not pfiles' and whose sandbox "
    "refuses the calls of the state";
static const char agent_peerstatewhy[] = "agent: asked inside the "
    "process, not passed to pfiles; its sandbox refuses the calls of the "
    "state";

/* The facts other than the options, asked with getsockopt. */
enum { F_TYPE, F_PROTOCOL, F_DOMAIN, F_PEERCRED, F_N };

static const int fact_optname[F_N] = {
	[F_TYPE] = SO_TYPE, [F_PROTOCOL] = SO_PROTOCOL,
	[F_DOMAIN] = SO_DOMAIN, [F_PEERCRED] = SO_PEERCRED,
};

/*
 * The calls of the batch, each on the fd that C_FIRST made.  When the
 * target can open no fd (its RLIMIT_NOFILE), the batch is "direct"
 * instead: every call is on fd N itself, and C_FIRST and C_LAST are an
 * fstat of fd N before and after the others, all three of which must
 * see the socket the walk saw.  That leaves one race, which only a
 * duplicate closes: fd N switched to another file and back to the same
 * socket within the batch (dup2 twice).
 */
enum {
	C_FIRST,	/* F_DUPFD_CLOEXEC of fd N; direct: fstat */
	C_FSTAT,
	C_FACT0,
	C_OPT0 = C_FACT0 + F_N,
	C_SOCKNAME = C_OPT0 + SOCKOPT_N,
	C_PEERNAME,
	C_STATE0,	/* the questions of sock_state.c, SW_N of them */
	C_LAST = C_STATE0 + SW_N, /* close of the duplicate; direct: fstat */
	C_N
};

typedef union {
	int		i;
	struct linger	lg;
	struct ucred	cred;
} optval_t;

/* One socket's batch: the calls, their arguments and their objects. */
typedef struct sock_batch {
	int		sb_direct;
	int		sb_nostate;	/* without the calls C_STATE0... */
	psyscall_t	sb_calls[C_N];
	argdes_t	sb_args[C_N][5];
	struct stat	sb_st[3];	/* C_FSTAT; direct: C_FIRST, C_LAST */
	optval_t	sb_val[C_N];	/* by call index */
	int		sb_len[C_N];
	struct sockaddr_storage sb_name[2];
	socklen_t	sb_namelen[2];
	sockstate_ans_t	sb_state;
} sock_batch_t;

/* The socket argument of a call: the duplicate, or fd N. */
static void
fd_arg(const sock_batch_t *b, argdes_t *a, int fd)
{
	if (b->sb_direct)
		argdes_byval(a, fd);
	else
		argdes_result(a, C_FIRST);
}

static void
add_fstat(sock_batch_t *b, int c, int fd, struct stat *st)
{
	fd_arg(b, &b->sb_args[c][0], fd);
	argdes_byref(&b->sb_args[c][1], st, sizeof (*st), AI_OUTPUT);
	psyscall_set(&b->sb_calls[c], SYS_fstat, b->sb_args[c], 2);
}

static void
add_getsockopt(sock_batch_t *b, int c, int fd, int level, int name,
    size_t size)
{
	argdes_t *a = b->sb_args[c];

	b->sb_len[c] = (int)size;
	fd_arg(b, &a[0], fd);
	argdes_byval(&a[1], level);
	argdes_byval(&a[2], name);
	argdes_byref(&a[3], &b->sb_val[c], size, AI_OUTPUT);
	argdes_byref(&a[4], &b->sb_len[c], sizeof (int), AI_INOUT);
	psyscall_set(&b->sb_calls[c], SYS_getsockopt, a, 5);
}

/* The questions of the state: a getsockopt, or an ioctl's int. */
static void
add_state(sock_batch_t *b, int fd)
{
	const sockstate_q_t *qs = sockstate_questions();

	for (int i = 0; i < SW_N; i++) {
		int c = C_STATE0 + i;
		argdes_t *a = b->sb_args[c];
		void *slot = sockstate_slot(&b->sb_state, i);

		if (!qs[i].sq_ioctl) {
			b->sb_state.st_len[i] = (socklen_t)qs[i].sq_size;
			fd_arg(b, &a[0], fd);
			argdes_byval(&a[1], qs[i].sq_level);
			argdes_byval(&a[2], qs[i].sq_name);
			argdes_byref(&a[3], slot, qs[i].sq_size, AI_OUTPUT);
			argdes_byref(&a[4], &b->sb_state.st_len[i],
			    sizeof (socklen_t), AI_INOUT);
			psyscall_set(&b->sb_calls[c], SYS_getsockopt, a, 5);
			continue;
		}
		fd_arg(b, &a[0], fd);
		argdes_byval(&a[1], qs[i].sq_name);
		argdes_byref(&a[2], slot, qs[i].sq_size, AI_OUTPUT);
		psyscall_set(&b->sb_calls[c], SYS_ioctl, a, 3);
	}
}

static void
build_batch(sock_batch_t *b, int fd, int direct, int nostate)
{
	const sockopt_t *opts = sockopt_table();

	memset(b, 0, sizeof (*b));
	b->sb_direct = direct;
	b->sb_nostate = nostate;
	if (direct) {
		add_fstat(b, C_FIRST, fd, &b->sb_st[1]);
		add_fstat(b, C_LAST, fd, &b->sb_st[2]);
	} else {
		argdes_byval(&b->sb_args[C_FIRST][0], fd);
		argdes_byval(&b->sb_args[C_FIRST][1], F_DUPFD_CLOEXEC);
		argdes_byval(&b->sb_args[C_FIRST][2], 0);
		psyscall_set(&b->sb_calls[C_FIRST], SYS_fcntl,
		    b->sb_args[C_FIRST], 3);
		argdes_result(&b->sb_args[C_LAST][0], C_FIRST);
		psyscall_set(&b->sb_calls[C_LAST], SYS_close,
		    b->sb_args[C_LAST], 1);
	}
	add_fstat(b, C_FSTAT, fd, &b->sb_st[0]);

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
		fd_arg(b, &a[0], fd);
		argdes_byref(&a[1], &b->sb_name[k], sizeof (b->sb_name[k]),
		    AI_OUTPUT);
		argdes_byref(&a[2], &b->sb_namelen[k], sizeof (socklen_t),
		    AI_INOUT);
		psyscall_set(&b->sb_calls[c], k == 0 ? SYS_getsockname :
		    SYS_getpeername, a, 3);
	}
	add_state(b, fd);
}

/*
 * Run the batch; without its state's calls (sb_nostate), C_LAST runs
 * right after C_PEERNAME and the state's are left as not run.  As
 * Psyscall_batch: 0, or -1 with errno.
 */
static int
run_sock_batch(struct ps_prochandle *P, sock_batch_t *b)
{
	psyscall_t c[C_STATE0 + 1];
	int r, err;

	if (!b->sb_nostate)
		return (Psyscall_batch(P, b->sb_calls, C_N));
	memcpy(c, b->sb_calls, C_STATE0 * sizeof (c[0]));
	c[C_STATE0] = b->sb_calls[C_LAST];
	r = Psyscall_batch(P, c, C_STATE0 + 1);
	err = errno;
	memcpy(b->sb_calls, c, C_STATE0 * sizeof (c[0]));
	b->sb_calls[C_LAST] = c[C_STATE0];
	for (int i = C_STATE0; i < C_LAST; i++) {
		b->sb_calls[i].ps_errno = ECANCELED;
		b->sb_calls[i].ps_rval.sys_rval1 = -1;
	}
	errno = err;
	return (r);
}

/* Did call c run (and succeed)?  Psyscall_batch starts each at -1. */
static int
ran_ok(const sock_batch_t *b, int c)
{
	return (b->sb_calls[c].ps_errno == 0 &&
	    b->sb_calls[c].ps_rval.sys_rval1 != -1);
}

/* Did call c run at all?  Not when the batch broke off or was cut. */
static int
ran(const sock_batch_t *b, int c)
{
	return (b->sb_calls[c].ps_errno != ECANCELED &&
	    (b->sb_calls[c].ps_errno != 0 ||
	    b->sb_calls[c].ps_rval.sys_rval1 != -1));
}

/*
 * The batch broke off after its duplicate was made and before it was
 * closed: close it now (past the deadline too), so that the target is
 * left with no fd of ours.
 */
static void
undo_dup(struct ps_prochandle *P, const sock_batch_t *b)
{
	long dup = b->sb_calls[C_FIRST].ps_rval.sys_rval1;
	psyscall_t c;
	argdes_t a;

	if (b->sb_direct || !ran_ok(b, C_FIRST) || ran(b, C_LAST) ||
	    P->agent == NULL || P->agent->ag_state == AG_GONE)
		return;
	argdes_byval(&a, dup);
	psyscall_set(&c, SYS_close, &a, 1);
	if (agent_undo_batch(P, &c, 1) != 0)
		PDEBUG(P, "agent: could not close fd %ld of ours in the "
		    "target: %s", dup, Perrmsg(P));
}

/* Is st the socket the walk saw as ino? */
static int
is_walk_socket(const struct stat *st, uint64_t ino)
{
	return ((uint64_t)st->st_ino == ino && S_ISSOCK(st->st_mode));
}

/*
 * The identity of the batch's socket: 0 when its facts are the socket's
 * the walk saw, ENOENT (fd N closed since), ESTALE (replaced since), or
 * another errno, with why in sf.
 */
static int
batch_identity(const sock_batch_t *b, uint64_t ino, sockfacts_t *sf)
{
	int first = b->sb_calls[C_FIRST].ps_errno;
	int err = first != 0 ? first : b->sb_calls[C_FSTAT].ps_errno;

	if (err == 0 && b->sb_direct)
		err = b->sb_calls[C_LAST].ps_errno;
	if (err == EBADF)
		return (ENOENT);	/* closed since the walk saw it */
	if (err != 0) {
		/* Facts not known to be this socket's are no facts. */
		sockfacts_error(sf, "agent: %s: %s", first != 0 &&
		    !b->sb_direct ? "fcntl" : "fstat", strerror(err));
		return (err);
	}
	if (!is_walk_socket(&b->sb_st[0], ino) || (b->sb_direct &&
	    (!is_walk_socket(&b->sb_st[1], ino) ||
	    !is_walk_socket(&b->sb_st[2], ino))))
		return (ESTALE);	/* replaced since the walk saw it */
	return (0);
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

/*
 * The answers of the state's questions: each call that succeeded, with
 * the length the target's kernel gave (marshal clamps it to the room).
 */
static void
batch_state(const sock_batch_t *b, sockfacts_t *sf)
{
	sockstate_ans_t st = b->sb_state;

	st.st_got = 0;
	for (int i = 0; i < SW_N; i++) {
		if (ran_ok(b, C_STATE0 + i))
			sockstate_answered(&st, i,
			    sockstate_questions()[i].sq_ioctl ? sizeof (int) :
			    b->sb_state.st_len[i]);
	}
	sockstate_take(sf, &st);
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
	if (b->sb_calls[C_PEERNAME].ps_errno == ENOTCONN)
		sf->sf_nopeer = 1;	/* a unix socket's state says so */
	batch_state(b, sf);
}

/*
 * The first call of the batch that the target's sandbox refused (a
 * seccomp filter's EPERM or ENOSYS, an LSM's EACCES): its facts are
 * missing, and the reason is said.
 */
static void
note_refused(const sock_batch_t *b, sockfacts_t *sf)
{
	for (int c = C_FACT0; c <= C_PEERNAME; c++) {
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

/*
 * The peer of a socket asked inside the target.  SO_PEERCRED's pid is a
 * pid of the target's pid namespace: in ours it may name another
 * process, so where the namespaces differ it is not shown.  Else the
 * pid is shown, but no name: who has that pid now is proven only by a
 * pidfd of the peer, which the target's socket gives only to whom holds
 * it (sock_peer.c), and this one stays in the target.  Either is said
 * (a gap of the record, as diag's): never a silent "?".  Only a unix
 * socket's peer shows credentials: of another socket (a listener, whose
 * SO_PEERCRED is its own; an inet socket) they go unsaid, and its other
 * gaps (a unix listener's backlog) are not put down to the namespace.
 */
static void
batch_peer(struct ps_prochandle *P, sockfacts_t *sf)
{
	if (!(sf->sf_have & SF_CRED))
		return;
	if (!Psame_pidns(P)) {
		sf->sf_have &= ~SF_CRED;
		if ((sf->sf_have & SF_PEER) && sf->sf_domain == AF_UNIX)
			sf->sf_gapwhy = agent_gapwhy;
	} else if ((sf->sf_have & (SF_PEER | SF_DOMAIN)) ==
	    (SF_PEER | SF_DOMAIN) && sf->sf_domain == AF_UNIX &&
	    sf->sf_cred.pid != 0) {
		/* the peer: line sockrec.c makes, unnamed */
		sf->sf_gaps |= SF_PEERCOMM;
		if (sf->sf_gapwhy == NULL)
			sf->sf_gapwhy = agent_peerwhy;
	}
}

/*
 * A batch without the state's calls, or whose state's calls the sandbox
 * refused (a seccomp filter's EPERM or ENOSYS, an LSM's EACCES; not a
 * question that does not apply, which fails otherwise): its state and
 * queues are a gap, not an error of the whole socket.
 */
static void
batch_nostate(const sock_batch_t *b, sockfacts_t *sf)
{
	int refused = b->sb_nostate;

	for (int c = C_STATE0; c < C_LAST; c++) {
		int e = b->sb_calls[c].ps_errno;

		refused |= e == EPERM || e == EACCES || e == ENOSYS;
	}
	if (!refused)
		return;
	sf->sf_gapwhy = sf->sf_gapwhy == NULL ? agent_statewhy :
	    sf->sf_gapwhy == agent_peerwhy ? agent_peerstatewhy :
	    agent_gapstatewhy;
}

/* Is the agent's thread parked or lent, ready for a batch? */
static int
agent_parked(struct ps_prochandle *P)
{
	return (P->agent != NULL && (P->agent->ag_state == AG_PARKED ||
	    P->agent->ag_state == AG_LENT));
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

/*
 * How many agents one socket's facts may take: only a thread lost while
 * the process lives on (an exec's hand-over) asks for another.  A process
 * that execs every 30 ms from a second thread kills the main thread each
 * time; on a loaded machine 3 agents in a row were lost to it.
 */
#define	RENEW_TRIES	12

/*
 * A new agent after a failure of err (Pcreate_agent's, or a batch's):
 * 0, or why there is none.
 */
/*
 * May we trace the process at all?  The kernel's check for opening its
 * memory is ptrace's own (PTRACE_MODE_ATTACH: credentials, Yama, the
 * LSMs): where that passes, and no seccomp filter of ours may refuse
 * ptrace(2) itself, an EPERM of PTRACE_SEIZE is the thread's state (a
 * zombie leader in an exec's hand-over, a thread still ours from an
 * agent let go), which settles, and not a refusal.
 */
static int
may_trace(struct ps_prochandle *P)
{
	int fd;

	/* PR_GET_SECCOMP: 0 unfiltered; a filter may refuse prctl too. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0)
		return (0);
	if ((fd = Pprocopen(P, "mem", O_RDONLY | O_CLOEXEC)) < 0)
		return (0);
	(void) close(fd);
	return (1);
}

static int
agent_settle_span(struct ps_prochandle *P, int err)
{
	/*
	 * The thread went in an exec's hand-over (gone: ESRCH; exiting, and
	 * so not to be seized: EPERM; the old image read: ENOEXEC): one of
	 * the new image.  EPERM from a thread that lives on is a refusal
	 * (no permission to trace, a seccomp filter): said, not taken for
	 * an exec -- once it holds: the thread refused may have been the
	 * old one, a zombie, while the one now seen took its pid.
	 */
	if (err == EPERM && Plives_on(P) && !may_trace(P)) {
		(void) usleep(5000);
		if (Pcreate_agent(P) == 0)
			return (0);
		if ((err = errno) == EPERM && Plives_on(P))
			return (err);
	}
	for (int i = 0; (err == ESRCH || err == EIO || err == EPERM ||
	    err == ENOEXEC) &&
	    i < EXEC_SETTLE_MS / 5 && !Pexiting(P); i++) {
		if (agent_left_ms(P) <= 0)
			return (agent_deadline_err(P));
		(void) usleep(5000);
		if (agent_renew(P))
			return (0);
		err = errno;
	}
	return (err);
}

/*
 * The settling, its waits counted by the agent's clock: a process that
 * execs faster than an agent can settle ends it at the deadline.
 */
static int
agent_settle(struct ps_prochandle *P, int err)
{
	int e;

	if ((e = agent_span_open(P, 1)) != 0)
		return (e);
	err = agent_settle_span(P, err);
	agent_span_close(P);
	return (err);
}

static int
agent_probe(struct ps_prochandle *P, int how)
{
	const procstatus_t *ps;
	int err;

	/*
	 * Not on its own does pfiles run system calls in a process under
	 * seccomp: a call the filter forbids could kill it.  --via=agent
	 * asks for that by name.
	 */
	if (how == SOCKSRC_AUTO && (ps = Pstatus_facts(P)) != NULL &&
	    ps->pst_seccomp > 0) {
		PDEBUG(P, "socket facts: agent not tried (seccomp)");
		return (socksrc_pass(P, "not used on a process under seccomp"));
	}
	if (P->agent != NULL || Pcreate_agent(P) == 0)
		return (0);
	err = agent_settle(P, errno);		/* Pcreate_agent said why */
	/*
	 * A process that is exiting cannot be seized (EPERM), nor its maps
	 * read (ENOEXEC): it is gone, not refused.
	 */
	if (err != 0 && Pexiting(P))
		return (Pseterr(P, ESRCH, "no such process"));
	return (err);
}

/* Is the target under a seccomp filter (Seccomp: in its status)? */
static int
under_filter(struct ps_prochandle *P)
{
	const procstatus_t *ps = Pstatus_facts(P);

	return (ps != NULL && ps->pst_seccomp > 0);
}

static int
agent_facts(struct ps_prochandle *P, int fd, uint64_t ino, sockfacts_t *sf)
{
	sock_batch_t b;
	int err = 0, renew = 0;

	for (int tries = 0; tries < RENEW_TRIES; tries++) {
		/* Again after a failure, or an agent already broken: anew. */
		if ((renew || (P->agent != NULL && !agent_parked(P))) &&
		    !agent_renew(P) && agent_settle(P, errno) != 0)
			break;
		renew = 1;
		err = sock_pass_facts(P, fd, ino, sf);
		if (err == ESRCH && !Pexiting(P))
			continue;
		if (err != SOCK_PASS_NO)
			return (err);
		build_batch(&b, fd, P->agent != NULL && P->agent->ag_nodup,
		    P->agent != NULL && P->agent->ag_nostate);
		if (run_sock_batch(P, &b) != 0) {
			err = errno;
			undo_dup(P, &b);
			/*
			 * Refused by the target's seccomp filter before it
			 * ran: again, without the state's.  Only a target
			 * under a filter: an EPERM of an exec storm's is
			 * the exec's, settled as the other failures are.
			 */
			if (err == EPERM && !b.sb_nostate && !ran(&b, C_FIRST) &&
			    agent_parked(P) && under_filter(P)) {
				P->agent->ag_nostate = 1;
				renew = 0;
				tries--;
				continue;
			}
			/* Cut at its bound: again, with the same agent. */
			if (err == EAGAIN && agent_parked(P)) {
				renew = 0;
				continue;
			}
			if (err == ETIME)
				break;
			if ((err == ESRCH || !agent_parked(P)) && !Pexiting(P))
				continue;
			if (err == ESRCH)
				return (ESRCH);
			break;
		}
		/* No fd to spare in the target: on fd N itself, checked. */
		if (!b.sb_direct && (b.sb_calls[C_FIRST].ps_errno == EMFILE ||
		    b.sb_calls[C_FIRST].ps_errno == EINVAL)) {
			P->agent->ag_nodup = 1;
			renew = 0;
			tries--;
			continue;
		}
		if ((err = batch_identity(&b, ino, sf)) != 0)
			return (err == ENOENT || err == ESTALE ? err : 0);
		batch_facts(&b, sf);
		note_refused(&b, sf);
		batch_peer(P, sf);
		batch_nostate(&b, sf);
		return (0);
	}
	/* Gone, by the agent's word, yet living on: an exec took each. */
	if ((err == ESRCH || strcmp(P->errmsg, "no such process") == 0) &&
	    !Pexiting(P))
		sockfacts_error(sf, "agent: each agent made was lost to an "
		    "exec in the process");
	else
		sockfacts_error(sf, "agent: %s", P->errmsg[0] != '\0' ?
		    P->errmsg : strerror(err != 0 ? err : EIO));
	return (0);
}

/*
 * Each socket's facts; first, a signal or a group stop that met the lent
 * thread since the last socket is passed on, so that it waits on us for
 * as long as one socket takes at most, not until the next batch.
 */
static int
agent_facts_served(struct ps_prochandle *P, int fd, uint64_t ino,
    sockfacts_t *sf)
{
	agent_service(P);
	return (agent_facts(P, fd, ino, sf));
}

/*
 * What a socket cannot be asked (a unix listener's backlog) is taken from
 * the socket tables the walk holds, as the pidfd source takes it.
 */
static void
agent_facts_each(struct ps_prochandle *P, sockask_t *asks, size_t n)
{
	sockask_each(P, asks, n, agent_facts_served);
	for (size_t i = 0; i < n; i++) {
		if (asks[i].sa_err == 0)
			sockfacts_queues_from_table(&asks[i].sa_facts,
			    asks[i].sa_tab, asks[i].sa_dent);
	}
	sockask_backlogs(P, asks, n);
}

const socksrc_ops_t sock_agent_ops = {
	.sc_id = PSOCK_AGENT,
	.sc_name = "agent",
	.sc_probe = agent_probe,
	.sc_batch = sock_pass_batch,
	.sc_facts = agent_facts_each,
	.sc_release = sock_pass_release,
};
