/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_table.c: dumps of the kernel's socket tables (NETLINK_SOCK_DIAG)
 * of the target's network namespace, kept in memory: compact records in
 * one array, their names in an arena, a hash by inode, and at first use
 * a second hash by addresses and ports for inet sockets.
 *
 * A dump describes the namespace of the netlink socket that asks: where
 * the target's network namespace is not ours, the socket is made in a
 * short-lived thread that enters the target's namespace (Pin_netns()),
 * so that pfiles itself does not move; where that is not allowed, the table says
 * why (dt_nserr) and holds nothing.  The records are parsed by
 * diag_parse.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "netdiag/diag_kind.h"
#include "netdiag/diag_parse.h"
#include "netdiag/diag_table.h"

#define	DIAG_RCVBUF	65536		/* one datagram of a dump */
#define	DIAG_WAIT_S	2		/* bound of one receive */
#define	DIAG_INTR_TRIES	3		/* dumps the kernel said changed */

/*
 * The dumps, in groups, in the order they are made when an inode is
 * missing: a group is the dumps that may hold a socket of one kind.  An
 * MPTCP socket's subflows are listed by the TCP dump under its inode:
 * the MPTCP dump, made with it, comes after and wins.  The indices are
 * the DT_* of diag_table.h.
 */
static const diag_req_t diag_groups[DT_NGROUPS][2] = {
	{ { AF_INET, IPPROTO_TCP }, { AF_INET, IPPROTO_MPTCP } },
	{ { AF_INET6, IPPROTO_TCP }, { AF_INET6, IPPROTO_MPTCP } },
	{ { AF_UNIX, 0 }, { 0, 0 } },
	{ { AF_INET, IPPROTO_UDP }, { AF_INET6, IPPROTO_UDP } },
	{ { AF_NETLINK, 0 }, { 0, 0 } },
	{ { AF_PACKET, 0 }, { 0, 0 } },
	{ { AF_INET, IPPROTO_UDPLITE }, { AF_INET6, IPPROTO_UDPLITE } },
	{ { AF_INET, IPPROTO_RAW }, { AF_INET6, IPPROTO_RAW } },
};


/* ------------------------------------------------------------------ */
/* The table. */

static size_t
hash_of(uint64_t ino, size_t n)
{
	return ((size_t)((ino * 0x9e3779b97f4a7c15ULL) >> 20) & (n - 1));
}

const dent_t *
diag_table_lookup(const diag_table_t *dt, uint64_t ino)
{
	if (dt->dt_nhash == 0)
		return (NULL);
	for (uint32_t i = dt->dt_hash[hash_of(ino, dt->dt_nhash)]; i != 0;
	    i = dt->dt_ent[i - 1].de_next) {
		if (dt->dt_ent[i - 1].de_ino == ino)
			return (&dt->dt_ent[i - 1]);
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
commit(diag_table_t *dt)
{
	size_t want = 1024;

	while (want < dt->dt_nent * 2)
		want *= 2;
	if (want != dt->dt_nhash) {
		uint32_t *h = calloc(want, sizeof (*h));

		if (h == NULL)
			return (ENOMEM);
		free(dt->dt_hash);
		dt->dt_hash = h;
		dt->dt_nhash = want;
		dt->dt_hashed = 0;
	}
	for (size_t i = dt->dt_hashed; i < dt->dt_nent; i++) {
		dent_t *e = &dt->dt_ent[i];
		uint32_t *head = &dt->dt_hash[hash_of(e->de_ino, dt->dt_nhash)];

		/* A later record of the same inode hides the earlier. */
		e->de_next = *head;
		*head = (uint32_t)(i + 1);
	}
	dt->dt_hashed = dt->dt_nent;
	return (0);
}

/*
 * The queues of a record as its kind counts them (diag_table.h): an inet
 * stream socket's from the kernel's counters, an inet datagram or raw
 * socket's from its memory, a unix socket's from UNIX_DIAG_RQLEN.
 */
static void
take_queues(const diag_sock_t *ds, dent_t *e)
{
	int inet = ds->ds_family == AF_INET || ds->ds_family == AF_INET6;

	if (inet && ds->ds_type != SOCK_STREAM) {
		if (!(ds->ds_have & DS_MEM))
			return;
		e->de_rq = ds->ds_rmem;
		e->de_wq = ds->ds_wmem;
	} else if ((inet || ds->ds_family == AF_UNIX) &&
	    (ds->ds_have & DS_RQLEN)) {
		e->de_rq = ds->ds_rqlen;
		e->de_wq = ds->ds_wqlen;
	} else {
		return;
	}
	e->de_have |= DS_RQLEN;
}

/* The facts of ds kept in e, but its names and groups. */
static void
take_facts(const diag_sock_t *ds, dent_t *e)
{
	memset(e, 0, sizeof (*e));
	e->de_ino = (uint32_t)ds->ds_ino;
	e->de_peer_ino = (uint32_t)ds->ds_peer_ino;
	e->de_cookie = ds->ds_cookie;
	e->de_sndbuf = ds->ds_sndbuf;
	e->de_rcvbuf = ds->ds_rcvbuf;
	e->de_have = (uint16_t)(ds->ds_have & (DS_NAME | DS_PEER |
	    DS_PEER_INO | DS_MEM | DS_SHUTDOWN));
	e->de_protocol = (uint16_t)ds->ds_protocol;
	e->de_family = (uint8_t)ds->ds_family;
	e->de_type = (uint8_t)ds->ds_type;
	e->de_state = (uint8_t)ds->ds_state;
	e->de_bound = (ds->ds_have & DS_BOUND_IF) && ds->ds_bound_if != 0;
	e->de_dual = ds->ds_family == AF_INET6 && (ds->ds_have & DS_V6ONLY) &&
	    !ds->ds_v6only;
	e->de_shutdown = (uint8_t)ds->ds_shutdown;
	take_queues(ds, e);
}

/* diag_parse's callback: one record into the table (not yet hashed). */
static int
take_record(const diag_sock_t *ds, void *arg)
{
	diag_table_t *dt = arg;
	size_t nl = 0, pl = 0, ng = 0, gl;
	uint8_t *at;
	dent_t *e;

	/* TIME_WAIT, a request: no fd.  Every dump's inode is 32 bits. */
	if (ds->ds_ino == 0 || ds->ds_ino > UINT32_MAX ||
	    ds->ds_peer_ino > UINT32_MAX)
		return (0);
	if (ds->ds_have & DS_NAME)
		nl = ds->ds_namelen;
	if (ds->ds_have & DS_PEER)
		pl = ds->ds_peerlen;
	if (ds->ds_family == AF_NETLINK)
		ng = ds->ds_ngroups;
	while (ng > 0 && ds->ds_groups[ng - 1] == 0)
		ng--;
	gl = ng * sizeof (ds->ds_groups[0]);
	if (nl > sizeof (ds->ds_name) || pl > sizeof (ds->ds_peer) ||
	    nl > UINT8_MAX || pl > UINT8_MAX || ng > DIAG_NLGROUPS_MAX)
		return (EBADMSG);
	if (grow((void **)&dt->dt_ent, &dt->dt_capent, dt->dt_nent + 1,
	    sizeof (dent_t)) != 0 || grow((void **)&dt->dt_arena,
	    &dt->dt_caparena, dt->dt_narena + nl + pl + gl, 1) != 0 ||
	    dt->dt_narena + nl + pl + gl > UINT32_MAX ||
	    dt->dt_nent >= UINT32_MAX)
		return (dt->dt_err = ENOMEM);
	e = &dt->dt_ent[dt->dt_nent++];
	take_facts(ds, e);
	e->de_namelen = (uint8_t)nl;
	e->de_peerlen = (uint8_t)pl;
	e->de_ngroups = (uint8_t)ng;
	e->de_names = (uint32_t)dt->dt_narena;
	at = dt->dt_arena + dt->dt_narena;
	memcpy(at, &ds->ds_name, nl);
	memcpy(at + nl, &ds->ds_peer, pl);
	memcpy(at + nl + pl, ds->ds_groups, gl);
	dt->dt_narena += nl + pl + gl;
	return (0);
}

/* A name of the arena into ss. */
static void
arena_name(const diag_table_t *dt, uint32_t off, uint8_t len,
    struct sockaddr_storage *ss, socklen_t *lenp)
{
	memset(ss, 0, sizeof (*ss));
	memcpy(ss, dt->dt_arena + off, len);
	*lenp = len;
}

void
diag_table_name(const diag_table_t *dt, const dent_t *e,
    struct sockaddr_storage *ss, socklen_t *lenp)
{
	arena_name(dt, e->de_names, e->de_namelen, ss, lenp);
}

void
diag_table_peer(const diag_table_t *dt, const dent_t *e,
    struct sockaddr_storage *ss, socklen_t *lenp)
{
	arena_name(dt, e->de_names + e->de_namelen, e->de_peerlen, ss, lenp);
}

void
diag_table_groups(const diag_table_t *dt, const dent_t *e, uint32_t *w)
{
	memcpy(w, dt->dt_arena + e->de_names + e->de_namelen + e->de_peerlen,
	    e->de_ngroups * sizeof (*w));
}

/* ------------------------------------------------------------------ */
/* The dumps. */

/* One dump, whole, into the table: 0, or an errno (nothing is kept). */
static int
dump_once(diag_table_t *dt, const diag_req_t *req)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint8_t msg[DIAG_REQ_MAX];
	size_t nent = dt->dt_nent, narena = dt->dt_narena, len;
	diag_dump_t dd = { .dd_req = req, .dd_seq = ++dt->dt_seq,
	    .dd_cb = take_record, .dd_arg = dt };
	int r = DIAG_MORE, err = 0;

	if ((len = diag_build_req(req, dd.dd_seq, msg, sizeof (msg))) == 0)
		return (EINVAL);
	if (sendto(dt->dt_sock, msg, len, 0, (struct sockaddr *)&kernel,
	    sizeof (kernel)) != (ssize_t)len)
		return (errno != 0 ? errno : EIO);
	while (r == DIAG_MORE) {
		struct sockaddr_nl from;
		struct iovec iov = { dt->dt_buf, DIAG_RCVBUF };
		struct msghdr mh = {
			.msg_name = &from, .msg_namelen = sizeof (from),
			.msg_iov = &iov, .msg_iovlen = 1
		};
		ssize_t n = recvmsg(dt->dt_sock, &mh, MSG_TRUNC);

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
		dt->dt_err = 0;
		r = diag_parse(dt->dt_buf, (size_t)n, from.nl_pid, &dd, &err);
	}
	if (r == DIAG_DONE && (err = commit(dt)) == 0)
		return (0);
	/*
	 * Discard the whole dump; a dump cut short leaves datagrams of its
	 * own behind, which the next dump's sequence number tells apart.
	 */
	dt->dt_nent = nent;
	dt->dt_narena = narena;
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
 * Group g's dumps.  Each one's outcome is kept (dt_reqerr): ENOENT, a
 * dump the kernel cannot make (no module for it), and any other failure,
 * are the reasons a socket may then not be found.
 */
void
diag_table_dump(struct ps_prochandle *P, diag_table_t *dt, int g)
{
	const diag_req_t *req;

	if (g < 0 || g >= DT_NGROUPS || (dt->dt_dumped & (1U << g)) ||
	    dt->dt_sock < 0)
		return;
	if (dt->dt_dumped == 0)
		dt->dt_turn = P->share_turn;
	dt->dt_dumped |= 1U << g;
	req = diag_groups[g];
	for (int k = 0; k < 2 && req[k].dr_family != 0; k++) {
		int err;

		Ptick(P);	/* a dump of a busy host's sockets takes a while */

		for (int t = 0; (err = dump_once(dt, &req[k])) == EINTR &&
		    t < DIAG_INTR_TRIES; t++)
			continue;
		PDEBUG(P, "diag: %s dump: %s, %zu sockets known",
		    req_name(&req[k]), err == 0 ? "done" : strerror(err),
		    dt->dt_nent);
		dt->dt_reqerr[g][k] = err;
	}
}

/* May a socket of kind (NULL: any) be in the dump of req? */
static int
may_hold(const diag_req_t *req, const diag_req_t *kind)
{
	return (kind == NULL || (req->dr_family == kind->dr_family &&
	    req->dr_protocol == kind->dr_protocol));
}

void
diag_table_why(const diag_table_t *dt, const diag_req_t *kind, char *buf,
    size_t len)
{
	const char *mod = NULL, *why = NULL, *m;
	size_t n = 0;
	int many = 0;

	buf[0] = '\0';
	for (int g = 0; g < DT_NGROUPS; g++)
		for (int k = 0; k < 2 && diag_groups[g][k].dr_family != 0; k++)
			if (may_hold(&diag_groups[g][k], kind) &&
			    dt->dt_reqerr[g][k] != 0 &&
			    dt->dt_reqerr[g][k] != ENOENT) {
				(void) snprintf(buf, len, "the %s dump failed: "
				    "%s", req_name(&diag_groups[g][k]),
				    strerror(dt->dt_reqerr[g][k]));
				return;
			}
	for (int g = 0; g < DT_NGROUPS; g++) {
		for (int k = 0; k < 2 && diag_groups[g][k].dr_family != 0;
		    k++) {
			const diag_req_t *req = &diag_groups[g][k];
			const char *w;

			if (!may_hold(req, kind) || dt->dt_reqerr[g][k] !=
			    ENOENT || n >= len)
				continue;
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
			    n == 0 ? "this kernel gives no " : ", ",
			    req_name(req));
			w = diag_nodump_why(req, &m);
			many |= mod != NULL && strcmp(mod, m) != 0;
			mod = m;
			why = w;
		}
	}
	if (n > 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, " dump");
	/* Why, where it is known and the same module's. */
	if (n > 0 && n < len && !many && why != NULL)
		(void) snprintf(buf + n, len - n, ": %s is %s", mod, why);
}

int
diag_table_next(struct ps_prochandle *P, diag_table_t *dt)
{
	for (int g = 0; g < DT_NGROUPS; g++) {
		if (!(dt->dt_dumped & (1U << g))) {
			diag_table_dump(P, dt, g);
			return (1);
		}
	}
	return (0);
}

int
diag_table_dumped(const diag_table_t *dt, int g)
{
	return (g >= 0 && g < DT_NGROUPS && (dt->dt_dumped & (1U << g)));
}

/* ------------------------------------------------------------------ */
/* The netlink socket, in the target's network namespace. */

/* The socket made in the namespace (Pin_netns()), or why not. */
typedef struct ns_task {
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

/* On a thread of ours in the namespace: the socket. */
static void
ns_socket(void *arg)
{
	ns_task_t *nt = arg;

	if ((nt->nt_sock = diag_socket()) < 0)
		nt->nt_err = errno;
}

/* Are a and b the same namespace file? */
static int
same_ns(const struct stat *a, const struct stat *b)
{
	return (a->st_dev == b->st_dev && a->st_ino == b->st_ino);
}

/*
 * dt_sock in the namespace of nsfd, or dt_nserr why there is none (it
 * may not be entered).  0, or an errno with the handle's message.
 */
static int
open_in_netns(struct ps_prochandle *P, diag_table_t *dt, int nsfd)
{
	struct stat ours, theirs;
	ns_task_t nt = { -1, 0 };
	int err;

	if (fstat(nsfd, &theirs) != 0)
		return (Pseterr(P, errno, "its network namespace: %s",
		    strerror(errno)));
	dt->dt_nsdev = theirs.st_dev;
	dt->dt_nsino = theirs.st_ino;
	if (stat("/proc/thread-self/ns/net", &ours) == 0 &&
	    same_ns(&ours, &theirs)) {
		if ((dt->dt_sock = diag_socket()) < 0)
			return (Pseterr(P, errno, "NETLINK_SOCK_DIAG: %s",
			    strerror(errno)));
		return (0);
	}
	if ((err = Pin_netns(nsfd, ns_socket, &nt)) != 0)
		nt.nt_err = err;
	if (nt.nt_sock >= 0) {
		dt->dt_sock = nt.nt_sock;
		PDEBUG(P, "diag: dumps made in network namespace %llu",
		    (unsigned long long)theirs.st_ino);
		return (0);
	}
	/* Said for every socket; the walk goes on. */
	(void) snprintf(dt->dt_nserr, sizeof (dt->dt_nserr), "the process "
	    "is in another network namespace, which pfiles may not enter "
	    "(setns: %s)", strerror(nt.nt_err));
	return (0);
}

void
diag_table_free(diag_table_t *dt)
{
	if (dt == NULL)
		return;
	if (dt->dt_sock >= 0)
		(void) close(dt->dt_sock);
	free(dt->dt_buf);
	free(dt->dt_ent);
	free(dt->dt_arena);
	free(dt->dt_hash);
	free(dt->dt_thash);
	free(dt->dt_tnext);
	free(dt);
}

diag_table_t *
diag_table_new_in(struct ps_prochandle *P, int nsfd)
{
	diag_table_t *dt;
	int err;

	if ((dt = calloc(1, sizeof (*dt))) == NULL ||
	    (dt->dt_buf = malloc(DIAG_RCVBUF)) == NULL) {
		free(dt);
		(void) Pseterr(P, ENOMEM, "%s", strerror(ENOMEM));
		return (NULL);
	}
	dt->dt_sock = -1;
	if ((err = open_in_netns(P, dt, nsfd)) != 0) {
		diag_table_free(dt);
		errno = err;
		return (NULL);
	}
	return (dt);
}

diag_table_t *
diag_table_new(struct ps_prochandle *P)
{
	diag_table_t *dt;
	int nsfd, err;

	if ((nsfd = openat(P->procfd, "ns/net", O_RDONLY | O_CLOEXEC)) < 0) {
		/* A dying process's namespaces go before its pidfd says so. */
		err = errno;
		if (Pexiting(P) || (err == ENOENT && Pkilled(P)))
			err = Pseterr(P, ESRCH, "no such process");
		else
			(void) Pseterr(P, err, "its network namespace: %s",
			    strerror(err));
		errno = err;
		return (NULL);
	}
	dt = diag_table_new_in(P, nsfd);
	err = errno;
	(void) close(nsfd);
	errno = err;
	return (dt);
}

int
diag_table_stale(const struct ps_prochandle *P, const diag_table_t *dt)
{
	return (P->share_turn != 0 && dt->dt_dumped != 0 &&
	    dt->dt_turn != P->share_turn);
}

const dent_t *
diag_table_find(struct ps_prochandle *P, diag_table_t *dt, uint64_t ino)
{
	const dent_t *e;

	for (int again = 0; ; again = 1) {
		while ((e = diag_table_lookup(dt, ino)) == NULL &&
		    diag_table_next(P, dt))
			continue;
		if (e != NULL || again || !diag_table_stale(P, dt) ||
		    2 * dt->dt_credit < dt->dt_nent || dt->dt_sock < 0)
			break;
		PDEBUG(P, "diag: socket %llu not in the run's tables of %zu "
		    "sockets, dumped in turn %u: dumped again",
		    (unsigned long long)ino, dt->dt_nent, dt->dt_turn);
		dt->dt_dumped = 0;
		dt->dt_credit = 0;
	}
	dt->dt_credit++;
	return (e);
}
