/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_local.c: the facts of sockets that are open in this process,
 * asked locally: getsockopt(2), getsockname(2), getpeername(2).  The
 * sources that bring the target's socket here -- pidfd_getfd(2), or the
 * agent passing it over SCM_RIGHTS -- share this, so that pfiles prints
 * the same whichever brought it.
 *
 * Only what the facts do not hold yet is asked: the walk fills in what
 * the kernel's socket tables hold exactly (sock_table.c), and with it
 * the socket's cookie.  The sockets of a batch are asked together, in
 * rounds, each round's options in one go where the kernel allows it
 * (sock_ring.c):
 *  1. one at a time: that the socket is the one the walk saw (fstat: its
 *     inode), unless its cookie is known; its name and peer, unless
 *     known (the family comes with the name; a packet socket's whole
 *     sockaddr_ll is getsockname's, the tables' being its family alone);
 *  2. SO_DOMAIN (a socket with no name) and SO_TYPE, unless known, and
 *     with them SO_ACCEPTCONN (a listener's queues are not asked);
 *  3. SO_COOKIE, when known, which must be the tables' (else the socket
 *     is not the one the walk saw); SO_PROTOCOL of a netlink socket; the
 *     options of the table that apply to its domain and type and are not
 *     known; SO_PEERCRED of a unix socket; the questions of its state,
 *     queues and netlink groups that the facts leave (sock_state.c):
 *     TCP_INFO, SIOCINQ, SIOCOUTQ, SO_MEMINFO, NETLINK_LIST_MEMBERSHIPS.
 * Then, of a unix socket whose SO_PEERCRED names a pid, SO_PEERPIDFD: the
 * proof that its process is still the one recorded (sock_peer.c).
 * For a TCP socket whose facts the tables gave, state and queues with
 * them, that is round 3 alone, in which TCP_NODELAY (IPPROTO_TCP, which
 * the ring does not take) is the only getsockopt(2) of its own; without
 * its state, TCP_INFO is another (SIOCINQ and SIOCOUTQ go in the ring).
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sock/sock_ring.h"
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

/* Is the socket open here as s the one of inode ino? */
static int
same_inode(int s, uint64_t ino)
{
	struct stat st;

	return (fstat(s, &st) == 0 && (uint64_t)st.st_ino == ino &&
	    S_ISSOCK(st.st_mode));
}

/* What a request of a batch asks, besides a row of the option table. */
#define	Q_DOMAIN	(-1)
#define	Q_TYPE		(-2)
#define	Q_PROTOCOL	(-3)
#define	Q_COOKIE	(-4)
#define	Q_PEERCRED	(-5)
#define	Q_STATE0	(-6)	/* Q_STATE0 - i: question i of the state */
/* In one round, at most: the state's are 3 at most (TCP). */
#define	Q_PER_SOCKET	(SOCKOPT_N + 3 + 3)

typedef union qval {
	int		i;
	struct linger	lg;
	struct ucred	cred;
	uint64_t	cookie;
} qval_t;

/* A batch: its requests, and for each, whose and what. */
typedef struct batch {
	sockopt_req_t	*b_req;
	qval_t		*b_val;
	int		*b_who;
	int		*b_what;	/* a row of the table, or Q_* */
	sockstate_ans_t	*b_ans;		/* the state's answers, by whose */
	size_t		b_n;
	/* the socket the requests added next ask (batch_for) */
	int		b_fd, b_family, b_whose;
} batch_t;

/* The requests added next ask socket s, of family, the who'th socket. */
static void
batch_for(batch_t *b, int s, int family, int who)
{
	b->b_fd = s;
	b->b_family = family;
	b->b_whose = who;
}

/* A request whose answer goes to val (len bytes). */
static void
add_req_to(batch_t *b, int what, int level, int name, void *val,
    socklen_t len)
{
	sockopt_req_t *q = &b->b_req[b->b_n];

	q->sr_fd = b->b_fd;
	q->sr_family = b->b_family;
	q->sr_level = level;
	q->sr_name = name;
	q->sr_val = val;
	q->sr_len = len;
	b->b_who[b->b_n] = b->b_whose;
	b->b_what[b->b_n] = what;
	b->b_n++;
}

static void
add_req(batch_t *b, int what, int level, int name, socklen_t len)
{
	memset(&b->b_val[b->b_n], 0, sizeof (b->b_val[0]));
	add_req_to(b, what, level, name, &b->b_val[b->b_n], len);
}

/* An int answer of the right size into *vp; 0, or -1. */
static int
int_answer(const sockopt_req_t *q, const qval_t *v, int *vp)
{
	if (q->sr_err != 0 || q->sr_len != sizeof (int))
		return (-1);
	*vp = v->i;
	return (0);
}

/*
 * Does the name the facts hold say all getsockname would?  A packet
 * socket's, from the tables, may be its family alone: its interface and
 * protocol are in the rest of its sockaddr_ll (up to the hardware
 * address, which is as long as the kernel says).
 */
static int
name_whole(const sockfacts_t *sf)
{
	sa_family_t fam;

	if (!(sf->sf_have & SF_NAME))
		return (0);
	if (sf->sf_namelen < sizeof (fam))
		return (1);
	memcpy(&fam, &sf->sf_name, sizeof (fam));
	return (fam != AF_PACKET ||
	    sf->sf_namelen >= offsetof(struct sockaddr_ll, sll_addr));
}

/* Round 1, for one socket: 0, or ESTALE. */
static int
round_names(int s, uint64_t ino, sockfacts_t *sf)
{
	sa_family_t fam;

	if (sf->sf_cookie == 0 && !same_inode(s, ino))
		return (ESTALE);	/* replaced since the walk saw it */
	if (!name_whole(sf) &&
	    ask_name(s, getsockname, &sf->sf_name, &sf->sf_namelen)) {
		sf->sf_have |= SF_NAME;
		if (!(sf->sf_have & SF_DOMAIN) &&
		    sf->sf_namelen >= sizeof (fam)) {
			memcpy(&fam, &sf->sf_name, sizeof (fam));
			sf->sf_domain = fam;
			sf->sf_have |= SF_DOMAIN;
		}
	}
	if (!(sf->sf_have & SF_PEER) && !sf->sf_nopeer) {
		if (ask_name(s, getpeername, &sf->sf_peer, &sf->sf_peerlen))
			sf->sf_have |= SF_PEER;
		else if (errno == ENOTCONN)
			sf->sf_nopeer = 1;	/* a unix socket's state says so */
	}
	return (0);
}

/*
 * Round 2's requests for one socket: SO_DOMAIN and SO_TYPE, unless known.
 * With them SO_ACCEPTCONN, so that round 3 knows a listener, of which
 * SIOCINQ and SIOCOUTQ would be asked in vain; not on its own, which
 * would be a round more.
 */
static void
round_kind(batch_t *b, int who, int s, const sockfacts_t *sf)
{
	const sockopt_t *opts = sockopt_table();

	if ((sf->sf_have & (SF_DOMAIN | SF_TYPE)) == (SF_DOMAIN | SF_TYPE))
		return;
	batch_for(b, s, (sf->sf_have & SF_DOMAIN) ? sf->sf_domain : -1, who);
	if (!(sf->sf_have & SF_DOMAIN))
		add_req(b, Q_DOMAIN, SOL_SOCKET, SO_DOMAIN, sizeof (int));
	if (!(sf->sf_have & SF_TYPE))
		add_req(b, Q_TYPE, SOL_SOCKET, SO_TYPE, sizeof (int));
	for (int row = 0; row < SOCKOPT_N; row++) {
		if (opts[row].so_kind == SOK_BOOL &&
		    opts[row].so_bit == PR_SO_ACCEPTCONN &&
		    !(sf->sf_bools.pr_known & PR_SO_ACCEPTCONN))
			add_req(b, row, SOL_SOCKET, SO_ACCEPTCONN,
			    sizeof (int));
	}
}

/* Round 3's questions of a socket's state (sock_state.c). */
static void
round_state(batch_t *b, int who, const sockfacts_t *sf)
{
	const sockstate_q_t *qs = sockstate_questions();
	sockstate_ans_t *st = &b->b_ans[who];
	uint_t want = sockstate_wants(sf);

	memset(st, 0, sizeof (*st));
	for (int i = 0; i < SW_N; i++) {
		if (want & (1U << i))
			add_req_to(b, Q_STATE0 - i, qs[i].sq_ioctl ?
			    SOCKRING_IOCTL : qs[i].sq_level, qs[i].sq_name,
			    sockstate_slot(st, i), (socklen_t)qs[i].sq_size);
	}
}

/* Round 3's requests for one socket. */
static void
round_options(batch_t *b, int who, int s, const sockfacts_t *sf)
{
	const sockopt_t *opts = sockopt_table();
	int dom = sf->sf_domain;

	batch_for(b, s, dom, who);
	if (sf->sf_cookie != 0)
		add_req(b, Q_COOKIE, SOL_SOCKET, SO_COOKIE, sizeof (uint64_t));
	if (dom == AF_NETLINK && !(sf->sf_have & SF_PROTOCOL))
		add_req(b, Q_PROTOCOL, SOL_SOCKET, SO_PROTOCOL, sizeof (int));
	for (int row = 0; row < SOCKOPT_N; row++) {
		const sockopt_t *o = &opts[row];
		uint_t known = o->so_kind == SOK_BOOL ?
		    (sf->sf_bools.pr_known & o->so_bit) :
		    o->so_kind == SOK_LINGER ? (sf->sf_have & SF_LINGER) :
		    o->so_item == PR_SOCKOPT_SNDBUF ?
		    (sf->sf_have & SF_SNDBUF) : (sf->sf_have & SF_RCVBUF);

		if (known || !sockopt_applies(o, dom, sf->sf_type) ||
		    sock_family_refuses(dom, row))
			continue;
		add_req(b, row, o->so_level, o->so_optname,
		    (socklen_t)sockopt_size(o));
	}
	if (dom == AF_UNIX && !(sf->sf_have & SF_CRED))
		add_req(b, Q_PEERCRED, SOL_SOCKET, SO_PEERCRED,
		    sizeof (struct ucred));
	round_state(b, who, sf);
}

/* One answer of round 2 or 3 into the facts; ESTALE for a cookie not the
 * tables'. */
static int
take_answer(const sockopt_req_t *q, const qval_t *v, int what, int s,
    uint64_t ino, sockfacts_t *sf)
{
	const sockopt_t *opts = sockopt_table();
	int i;

	switch (what) {
	case Q_DOMAIN:
		if (int_answer(q, v, &i) == 0) {
			sf->sf_domain = i;
			sf->sf_have |= SF_DOMAIN;
		}
		return (0);
	case Q_TYPE:
		if (int_answer(q, v, &i) == 0) {
			sf->sf_type = i;
			sf->sf_have |= SF_TYPE;
		}
		return (0);
	case Q_PROTOCOL:
		if (int_answer(q, v, &i) == 0) {
			sf->sf_protocol = i;
			sf->sf_have |= SF_PROTOCOL;
		}
		return (0);
	case Q_COOKIE:
		/* A kernel that does not say: the inode tells. */
		if (q->sr_err != 0 || q->sr_len != sizeof (uint64_t))
			return (same_inode(s, ino) ? 0 : ESTALE);
		return (v->cookie == sf->sf_cookie ? 0 : ESTALE);
	case Q_PEERCRED:
		if (q->sr_err == 0 && q->sr_len == sizeof (struct ucred)) {
			sf->sf_cred = v->cred;
			sf->sf_have |= SF_CRED;
		}
		return (0);
	default:
		if (q->sr_err != 0)
			note_refused(sf->sf_domain, &opts[what], what,
			    q->sr_err);
		else if (q->sr_len == sockopt_size(&opts[what]))
			sockfacts_set_opt(sf, &opts[what], v);
		return (0);
	}
}

/* Ask a round's requests, and take their answers. */
static void
run_round(batch_t *b, const int *s, const uint64_t *ino,
    sockfacts_t *const *sf, int *err)
{
	if (b->b_n == 0)
		return;
	sockring_ask(b->b_req, b->b_n);
	for (size_t k = 0; k < b->b_n; k++) {
		int who = b->b_who[k], e;

		if (err[who] != 0)
			continue;
		if (b->b_what[k] <= Q_STATE0) {
			if (b->b_req[k].sr_err == 0)
				sockstate_answered(&b->b_ans[who],
				    Q_STATE0 - b->b_what[k], b->b_req[k].sr_len);
			continue;
		}
		e = take_answer(&b->b_req[k], &b->b_val[k], b->b_what[k],
		    s[who], ino[who], sf[who]);
		if (e != 0)
			err[who] = e;
	}
	b->b_n = 0;
}

void
sock_local_facts_many(const int *s, const uint64_t *ino,
    sockfacts_t *const *sf, int *err, size_t n)
{
	batch_t b;
	size_t cap = n * Q_PER_SOCKET;

	b.b_n = 0;
	b.b_req = malloc(cap * sizeof (*b.b_req));
	b.b_val = malloc(cap * sizeof (*b.b_val));
	b.b_who = malloc(cap * sizeof (*b.b_who));
	b.b_what = malloc(cap * sizeof (*b.b_what));
	b.b_ans = calloc(n, sizeof (*b.b_ans));
	if (b.b_req == NULL || b.b_val == NULL || b.b_who == NULL ||
	    b.b_what == NULL || b.b_ans == NULL) {
		for (size_t i = 0; i < n; i++) {
			if (s[i] >= 0) {
				err[i] = 0;
				sockfacts_error(sf[i], "%s", strerror(ENOMEM));
			}
		}
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= 0)
			err[i] = round_names(s[i], ino[i], sf[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= 0 && err[i] == 0)
			round_kind(&b, (int)i, s[i], sf[i]);
	}
	run_round(&b, s, ino, sf, err);
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= 0 && err[i] == 0)
			round_options(&b, (int)i, s[i], sf[i]);
	}
	run_round(&b, s, ino, sf, err);
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= 0 && err[i] == 0)
			sockstate_take(sf[i], &b.b_ans[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= 0 && err[i] == 0 && sf[i]->sf_domain == AF_UNIX &&
		    (sf[i]->sf_have & SF_CRED) && sf[i]->sf_cred.pid > 0)
			sock_peer_name(sf[i], sock_peer_pidfd, &s[i]);
	}
out:
	free(b.b_req);
	free(b.b_val);
	free(b.b_who);
	free(b.b_what);
	free(b.b_ans);
}

int
sock_local_facts(int s, uint64_t ino, sockfacts_t *sf)
{
	int err = 0;

	sock_local_facts_many(&s, &ino, &sf, &err, 1);
	return (err);
}
