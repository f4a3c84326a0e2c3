/*
 * sock_diag.c: socket facts from the kernel's socket tables
 * (NETLINK_SOCK_DIAG), for when pfiles may not touch the target: no
 * ptrace permission is needed, the target's sockets are neither
 * duplicated nor asked anything, and no thread of it is stopped.
 *
 * The walk gives each socket's inode; the facts come from dumps of the
 * tables of the target's network namespace, kept in memory and looked up
 * by inode (a hash).  A dump is made only when a socket's inode is not in
 * the dumps made so far, family group by family group (diag_groups[]), so
 * that a process is served by at most one dump per family and protocol
 * and by none of the families it has no socket of -- mostly: a socket
 * in no dump (made after its family's dump, or of a family the tables do
 * not cover) has every group dumped once more, once per process.  Per
 * socket there is no system call beyond the walk's own.
 *
 * A dump describes the namespace of the netlink socket that asks: where
 * the target's network namespace is not ours, the socket is made in a
 * short-lived thread that enters the target's namespace (setns), so that
 * pfiles itself does not move; where that is not allowed, every socket
 * says why it has no facts.
 *
 * The tables hold the type, the state (SO_ACCEPTCONN), the send and
 * receive buffers, and the names; not the other options, SO_LINGER or a
 * unix peer's credentials: each record says so (sf_gapwhy), and pfiles
 * names them once per process.  The records are parsed by diag_parse.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "diag_parse.h"
#include "socksrc.h"

#define	DIAG_RCVBUF	65536		/* one datagram of a dump */
#define	DIAG_WAIT_S	2		/* bound of one receive */
#define	DIAG_INTR_TRIES	3		/* dumps the kernel said changed */

/* Why a record lacks the facts the tables do not hold. */
static const char diag_gapwhy[] =
    "diag: the kernel's socket tables do not hold them";

/*
 * The dumps, in groups, in the order they are made when an inode is
 * missing: a group is the dumps that may hold a socket of one kind.  An
 * MPTCP socket's subflows are listed by the TCP dump under its inode:
 * the MPTCP dump, made with it, comes after and wins.
 */
static const diag_req_t diag_groups[][2] = {
	{ { AF_INET, IPPROTO_TCP }, { AF_INET, IPPROTO_MPTCP } },
	{ { AF_INET6, IPPROTO_TCP }, { AF_INET6, IPPROTO_MPTCP } },
	{ { AF_UNIX, 0 }, { 0, 0 } },
	{ { AF_INET, IPPROTO_UDP }, { AF_INET6, IPPROTO_UDP } },
	{ { AF_NETLINK, 0 }, { 0, 0 } },
	{ { AF_PACKET, 0 }, { 0, 0 } },
	{ { AF_INET, IPPROTO_UDPLITE }, { AF_INET6, IPPROTO_UDPLITE } },
	{ { AF_INET, IPPROTO_RAW }, { AF_INET6, IPPROTO_RAW } },
};
#define	NGROUPS	(sizeof (diag_groups) / sizeof (diag_groups[0]))

/* One socket of a dump, compact: its names are in the arena. */
typedef struct dent {
	uint64_t	de_ino;
	uint64_t	de_peer_ino;
	uint32_t	de_next;	/* in its hash chain: index + 1; 0 ends */
	uint32_t	de_sndbuf, de_rcvbuf;
	uint32_t	de_names;	/* arena offset: name, then peer */
	uint16_t	de_have;	/* DS_NAME, DS_PEER, DS_PEER_INO, DS_MEM */
	uint16_t	de_protocol;
	uint8_t		de_family, de_type, de_state;
	uint8_t		de_namelen, de_peerlen;
} dent_t;

typedef struct diag_state {
	pthread_mutex_t	dg_lock;	/* the walk's threads share it */
	int		dg_sock;	/* NETLINK_SOCK_DIAG, in the namespace */
	char		dg_nserr[PERRMSG_MAX];	/* why there is none */
	uint32_t	dg_seq;
	int		dg_done;	/* groups dumped: the first dg_done */
	int		dg_again;	/* every group dumped a second time */
	char		dg_dumperr[PERRMSG_MAX];	/* a dump that failed */
	uint8_t		*dg_buf;	/* DIAG_RCVBUF */
	dent_t		*dg_ent;
	size_t		dg_nent, dg_capent;
	uint8_t		*dg_arena;
	size_t		dg_narena, dg_caparena;
	uint32_t	*dg_hash;	/* index + 1 of a chain's first */
	size_t		dg_nhash;	/* a power of 2 */
	size_t		dg_hashed;	/* entries in the hash so far */
	int		dg_err;		/* a callback's: ENOMEM */
} diag_state_t;

/* ------------------------------------------------------------------ */
/* The table. */

static size_t
hash_of(uint64_t ino, size_t n)
{
	return ((size_t)((ino * 0x9e3779b97f4a7c15ULL) >> 20) & (n - 1));
}

static const dent_t *
lookup(const diag_state_t *dg, uint64_t ino)
{
	if (dg->dg_nhash == 0)
		return (NULL);
	for (uint32_t i = dg->dg_hash[hash_of(ino, dg->dg_nhash)]; i != 0;
	    i = dg->dg_ent[i - 1].de_next) {
		if (dg->dg_ent[i - 1].de_ino == ino)
			return (&dg->dg_ent[i - 1]);
	}
	return (NULL);
}

static int
grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap == 0 ? 1024 : *cap;
	void *q;

	while (n < need)
		n *= 2;
	if (n == *cap)
		return (0);
	if ((q = realloc(*p, n * size)) == NULL)
		return (ENOMEM);
	*p = q;
	*cap = n;
	return (0);
}

/*
 * Put the entries of a dump that is complete into the hash; a later one
 * of an inode already there wins (MPTCP over its subflows, a netlink
 * socket listed twice), so the chains are rebuilt when the table grows.
 */
static int
commit(diag_state_t *dg)
{
	size_t want = 1024;

	while (want < dg->dg_nent * 2)
		want *= 2;
	if (want != dg->dg_nhash) {
		uint32_t *h = calloc(want, sizeof (*h));

		if (h == NULL)
			return (ENOMEM);
		free(dg->dg_hash);
		dg->dg_hash = h;
		dg->dg_nhash = want;
		dg->dg_hashed = 0;
	}
	for (size_t i = dg->dg_hashed; i < dg->dg_nent; i++) {
		dent_t *e = &dg->dg_ent[i];
		uint32_t *head = &dg->dg_hash[hash_of(e->de_ino, dg->dg_nhash)];

		/* A later record of the same inode hides the earlier. */
		e->de_next = *head;
		*head = (uint32_t)(i + 1);
	}
	dg->dg_hashed = dg->dg_nent;
	return (0);
}

/* diag_parse's callback: one record into the table (not yet hashed). */
static int
take_record(const diag_sock_t *ds, void *arg)
{
	diag_state_t *dg = arg;
	size_t nl = 0, pl = 0;
	dent_t *e;

	if (ds->ds_ino == 0)		/* TIME_WAIT, a request: no fd */
		return (0);
	if (ds->ds_have & DS_NAME)
		nl = ds->ds_namelen;
	if (ds->ds_have & DS_PEER)
		pl = ds->ds_peerlen;
	if (nl > sizeof (ds->ds_name) || pl > sizeof (ds->ds_peer) ||
	    nl > UINT8_MAX || pl > UINT8_MAX)
		return (EBADMSG);
	if (grow((void **)&dg->dg_ent, &dg->dg_capent, dg->dg_nent + 1,
	    sizeof (dent_t)) != 0 || grow((void **)&dg->dg_arena,
	    &dg->dg_caparena, dg->dg_narena + nl + pl, 1) != 0 ||
	    dg->dg_narena + nl + pl > UINT32_MAX || dg->dg_nent >= UINT32_MAX)
		return (dg->dg_err = ENOMEM);
	e = &dg->dg_ent[dg->dg_nent++];
	memset(e, 0, sizeof (*e));
	e->de_ino = ds->ds_ino;
	e->de_peer_ino = ds->ds_peer_ino;
	e->de_sndbuf = ds->ds_sndbuf;
	e->de_rcvbuf = ds->ds_rcvbuf;
	e->de_have = (uint16_t)(ds->ds_have & (DS_NAME | DS_PEER |
	    DS_PEER_INO | DS_MEM));
	e->de_protocol = (uint16_t)ds->ds_protocol;
	e->de_family = (uint8_t)ds->ds_family;
	e->de_type = (uint8_t)ds->ds_type;
	e->de_state = (uint8_t)ds->ds_state;
	e->de_namelen = (uint8_t)nl;
	e->de_peerlen = (uint8_t)pl;
	e->de_names = (uint32_t)dg->dg_narena;
	memcpy(dg->dg_arena + dg->dg_narena, &ds->ds_name, nl);
	memcpy(dg->dg_arena + dg->dg_narena + nl, &ds->ds_peer, pl);
	dg->dg_narena += nl + pl;
	return (0);
}

/* ------------------------------------------------------------------ */
/* The dumps. */

/* One dump, whole, into the table: 0, or an errno (nothing is kept). */
static int
dump_once(diag_state_t *dg, const diag_req_t *req)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint8_t msg[DIAG_REQ_MAX];
	size_t nent = dg->dg_nent, narena = dg->dg_narena, len;
	uint32_t seq = ++dg->dg_seq;
	int r = DIAG_MORE, err = 0;

	if ((len = diag_build_req(req, seq, msg, sizeof (msg))) == 0)
		return (EINVAL);
	if (sendto(dg->dg_sock, msg, len, 0, (struct sockaddr *)&kernel,
	    sizeof (kernel)) != (ssize_t)len)
		return (errno != 0 ? errno : EIO);
	while (r == DIAG_MORE) {
		struct sockaddr_nl from;
		struct iovec iov = { dg->dg_buf, DIAG_RCVBUF };
		struct msghdr mh = {
			.msg_name = &from, .msg_namelen = sizeof (from),
			.msg_iov = &iov, .msg_iovlen = 1
		};
		ssize_t n = recvmsg(dg->dg_sock, &mh, MSG_TRUNC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno == EAGAIN ? ETIMEDOUT : errno;
			break;
		}
		if ((size_t)n > DIAG_RCVBUF || (mh.msg_flags & MSG_TRUNC) ||
		    mh.msg_namelen < sizeof (from)) {
			err = EBADMSG;
			break;
		}
		dg->dg_err = 0;
		r = diag_parse(dg->dg_buf, (size_t)n, from.nl_pid, seq, req,
		    take_record, dg, &err);
	}
	if (r == DIAG_DONE && (err = commit(dg)) == 0)
		return (0);
	/*
	 * Discard the whole dump; a dump cut short leaves datagrams of its
	 * own behind, which the next dump's sequence number tells apart.
	 */
	dg->dg_nent = nent;
	dg->dg_narena = narena;
	return (err != 0 ? err : EIO);
}

static const char *
req_name(const diag_req_t *req)
{
	switch (req->dr_family) {
	case AF_UNIX:
		return ("unix");
	case AF_NETLINK:
		return ("netlink");
	case AF_PACKET:
		return ("packet");
	default:
		break;
	}
	switch (req->dr_protocol) {
	case IPPROTO_TCP:
		return (req->dr_family == AF_INET ? "tcp" : "tcp6");
	case IPPROTO_UDP:
		return (req->dr_family == AF_INET ? "udp" : "udp6");
	case IPPROTO_UDPLITE:
		return (req->dr_family == AF_INET ? "udplite" : "udplite6");
	case IPPROTO_MPTCP:
		return (req->dr_family == AF_INET ? "mptcp" : "mptcp6");
	default:
		return (req->dr_family == AF_INET ? "raw" : "raw6");
	}
}

/*
 * The next group's dumps.  A dump the kernel cannot make (ENOENT: no
 * module for it) holds no socket; any other failure is remembered, as
 * the reason a socket may then not be found.
 */
static void
dump_group(struct ps_prochandle *P, diag_state_t *dg)
{
	const diag_req_t *g = diag_groups[dg->dg_done++];

	for (int k = 0; k < 2 && g[k].dr_family != 0; k++) {
		int err;

		for (int t = 0; (err = dump_once(dg, &g[k])) == EINTR &&
		    t < DIAG_INTR_TRIES; t++)
			continue;
		PDEBUG(P, "diag: %s dump: %s, %zu sockets known",
		    req_name(&g[k]), err == 0 ? "done" : strerror(err),
		    dg->dg_nent);
		if (err != 0 && err != ENOENT && dg->dg_dumperr[0] == '\0')
			(void) snprintf(dg->dg_dumperr, sizeof (dg->dg_dumperr),
			    "the %s dump failed: %s", req_name(&g[k]),
			    strerror(err));
	}
}

/* ------------------------------------------------------------------ */
/* The netlink socket, in the target's network namespace. */

typedef struct ns_task {
	int	nt_nsfd;
	int	nt_sock;
	int	nt_err;
} ns_task_t;

static int
diag_socket(void)
{
	struct timeval tv = { DIAG_WAIT_S, 0 };
	int s;

	if ((s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) < 0)
		return (-1);
	if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof (tv)) != 0) {
		int e = errno;

		(void) close(s);
		errno = e;
		return (-1);
	}
	return (s);
}

/* A thread of ours enters the namespace, makes the socket, and ends. */
static void *
ns_thread(void *arg)
{
	ns_task_t *nt = arg;

	if (setns(nt->nt_nsfd, CLONE_NEWNET) != 0)
		nt->nt_err = errno;
	else if ((nt->nt_sock = diag_socket()) < 0)
		nt->nt_err = errno;
	return (NULL);
}

/* Are a and b the same namespace file? */
static int
same_ns(const struct stat *a, const struct stat *b)
{
	return (a->st_dev == b->st_dev && a->st_ino == b->st_ino);
}

/* dg_sock in the target's namespace, or dg_nserr why there is none. */
static int
open_in_netns(struct ps_prochandle *P, diag_state_t *dg)
{
	struct stat ours, theirs;
	ns_task_t nt = { -1, -1, 0 };
	pthread_t t;
	int err;

	if ((nt.nt_nsfd = openat(P->procfd, "ns/net", O_RDONLY |
	    O_CLOEXEC)) < 0 || fstat(nt.nt_nsfd, &theirs) != 0) {
		err = errno;
		if (nt.nt_nsfd >= 0)
			(void) close(nt.nt_nsfd);
		if (Pexited(P))
			return (Pseterr(P, ESRCH, "no such process"));
		return (Pseterr(P, err, "its network namespace: %s",
		    strerror(err)));
	}
	if (stat("/proc/thread-self/ns/net", &ours) == 0 &&
	    same_ns(&ours, &theirs)) {
		(void) close(nt.nt_nsfd);
		if ((dg->dg_sock = diag_socket()) < 0)
			return (Pseterr(P, errno, "NETLINK_SOCK_DIAG: %s",
			    strerror(errno)));
		return (0);
	}
	if ((err = pthread_create(&t, NULL, ns_thread, &nt)) == 0)
		(void) pthread_join(t, NULL);
	else
		nt.nt_err = err;
	(void) close(nt.nt_nsfd);
	if (nt.nt_sock >= 0) {
		dg->dg_sock = nt.nt_sock;
		PDEBUG(P, "diag: dumps made in the process's network namespace");
		return (0);
	}
	/* Said for every socket; the walk goes on. */
	(void) snprintf(dg->dg_nserr, sizeof (dg->dg_nserr), "the process "
	    "is in another network namespace, which pfiles may not enter "
	    "(setns: %s)", strerror(nt.nt_err));
	return (0);
}

/* ------------------------------------------------------------------ */
/* The source. */

static void
diag_release(struct ps_prochandle *P)
{
	diag_state_t *dg = P->src_data;

	if (dg == NULL)
		return;
	if (dg->dg_sock >= 0)
		(void) close(dg->dg_sock);
	(void) pthread_mutex_destroy(&dg->dg_lock);
	free(dg->dg_buf);
	free(dg->dg_ent);
	free(dg->dg_arena);
	free(dg->dg_hash);
	free(dg);
	P->src_data = NULL;
}

static int
diag_probe(struct ps_prochandle *P)
{
	diag_state_t *dg;
	int err;

	if ((dg = calloc(1, sizeof (*dg))) == NULL ||
	    (dg->dg_buf = malloc(DIAG_RCVBUF)) == NULL) {
		free(dg);
		return (Pseterr(P, ENOMEM, "%s", strerror(ENOMEM)));
	}
	dg->dg_sock = -1;
	(void) pthread_mutex_init(&dg->dg_lock, NULL);
	P->src_data = dg;
	if ((err = open_in_netns(P, dg)) != 0) {
		diag_release(P);
		return (err);
	}
	return (0);
}

/* A name of the arena into ss. */
static void
arena_name(const diag_state_t *dg, uint32_t off, uint8_t len,
    struct sockaddr_storage *ss, socklen_t *lenp)
{
	memset(ss, 0, sizeof (*ss));
	memcpy(ss, dg->dg_arena + off, len);
	*lenp = len;
}

/* The facts of entry e, as the tables give them. */
static void
fill(const diag_state_t *dg, const dent_t *e, sockfacts_t *sf)
{
	const sockopt_t *opts = sockopt_table();

	sf->sf_domain = e->de_family;
	sf->sf_type = e->de_type;
	sf->sf_have |= SF_DOMAIN | SF_TYPE;
	if (e->de_family == AF_NETLINK) {
		sf->sf_protocol = e->de_protocol;
		sf->sf_have |= SF_PROTOCOL;
	}
	for (int row = 0; row < SOCKOPT_N; row++) {
		const sockopt_t *o = &opts[row];
		int v;

		if (o->so_kind == SOK_BOOL && o->so_bit == PR_SO_ACCEPTCONN)
			v = e->de_state == TCP_LISTEN;
		else if (o->so_kind == SOK_INT && (e->de_have & DS_MEM))
			v = (int)(o->so_item == PR_SOCKOPT_SNDBUF ?
			    e->de_sndbuf : e->de_rcvbuf);
		else
			continue;
		sockfacts_set_opt(sf, o, &v);
	}
	if (e->de_have & DS_NAME) {
		arena_name(dg, e->de_names, e->de_namelen, &sf->sf_name,
		    &sf->sf_namelen);
		sf->sf_have |= SF_NAME;
	}
	if (e->de_have & DS_PEER) {
		arena_name(dg, e->de_names + e->de_namelen, e->de_peerlen,
		    &sf->sf_peer, &sf->sf_peerlen);
		sf->sf_have |= SF_PEER;
	} else if (e->de_have & DS_PEER_INO) {
		/* A unix peer: its name is its own record's. */
		const dent_t *p = e->de_peer_ino != 0 ?
		    lookup(dg, e->de_peer_ino) : NULL;

		if (p != NULL && p->de_family == AF_UNIX &&
		    (p->de_have & DS_NAME)) {
			arena_name(dg, p->de_names, p->de_namelen,
			    &sf->sf_peer, &sf->sf_peerlen);
			sf->sf_have |= SF_PEER;
		} else {
			sf->sf_gaps |= SF_PEER;	/* connected, name unknown */
		}
	}
	sf->sf_gapwhy = diag_gapwhy;
}

static int
diag_facts(struct ps_prochandle *P, int fd, uint64_t ino, sockfacts_t *sf)
{
	diag_state_t *dg = P->src_data;
	const dent_t *e;

	if (dg->dg_nserr[0] != '\0') {
		sockfacts_error(sf, "diag: %s", dg->dg_nserr);
		return (0);
	}
	(void) pthread_mutex_lock(&dg->dg_lock);
	while ((e = lookup(dg, ino)) == NULL && dg->dg_done < (int)NGROUPS)
		dump_group(P, dg);
	/*
	 * Made after its family's dump?  Every group once more, once per
	 * process (a later record of an inode wins).
	 */
	if (e == NULL && !dg->dg_again) {
		PDEBUG(P, "diag: inode %llu in no dump: every dump again",
		    (unsigned long long)ino);
		dg->dg_again = 1;
		dg->dg_done = 0;
		while ((e = lookup(dg, ino)) == NULL &&
		    dg->dg_done < (int)NGROUPS)
			dump_group(P, dg);
		dg->dg_done = NGROUPS;
	}
	if (e != NULL)
		fill(dg, e, sf);
	else if (dg->dg_dumperr[0] != '\0')
		sockfacts_error(sf, "diag: not in the kernel's socket tables "
		    "(%s)", dg->dg_dumperr);
	else
		sockfacts_error(sf, "diag: not in the kernel's socket tables");
	(void) pthread_mutex_unlock(&dg->dg_lock);
	return (0);
}

const socksrc_ops_t sock_diag_ops = {
	.so_id = PSOCK_DIAG,
	.so_name = "diag",
	.so_probe = diag_probe,
	.so_facts = diag_facts,
	.so_release = diag_release,
	.so_parallel = 1,
};
