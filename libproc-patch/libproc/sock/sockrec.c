/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sockrec.c: one way to turn the facts a source found into the items of
 * a socket's record, whichever source found them.  The rules of what is
 * shown live here, once:
 *  - the domain is SO_DOMAIN's, or else the family of the socket's name;
 *  - an option that a socket of its domain and type does not answer
 *    (TCP_NODELAY of anything but an inet stream) is not known;
 *  - SO_PEERCRED is shown for unix sockets only, and its process's name
 *    only where sock_peer.c proved it;
 *  - an address is kept as long as the kernel said, up to the storage;
 *  - a state line for the sockets of sockstate_kind(), its queues of the
 *    kind its state has (a listener's backlog, else bytes queued), and
 *    of a unix socket only the states it can be in;
 *  - netlink groups, trimmed to the last word with one set;
 *  - a source that cannot find out some facts at all (sf_gapwhy): the
 *    facts that this socket would have shown and that are not known (not
 *    an option the kernel refuses to every socket of its family).
 */
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sock/socksrc.h"

void
sockfacts_init(sockfacts_t *sf)
{
	memset(sf, 0, sizeof (*sf));
	sf->sf_domain = sf->sf_type = sf->sf_protocol = -1;
}

void
sockfacts_set_opt(sockfacts_t *sf, const sockopt_t *o, const void *val)
{
	int v;

	switch (o->so_kind) {
	case SOK_BOOL:
		memcpy(&v, val, sizeof (v));
		sf->sf_bools.pr_known |= o->so_bit;
		if (v != 0)
			sf->sf_bools.pr_set |= o->so_bit;
		else
			sf->sf_bools.pr_set &= ~o->so_bit;
		break;
	case SOK_LINGER:
		memcpy(&sf->sf_linger, val, sizeof (sf->sf_linger));
		sf->sf_have |= SF_LINGER;
		break;
	case SOK_INT:
		memcpy(&v, val, sizeof (v));
		if (o->so_item == PR_SOCKOPT_SNDBUF) {
			sf->sf_sndbuf = v;
			sf->sf_have |= SF_SNDBUF;
		} else if (o->so_item == PR_SOCKOPT_RCVBUF) {
			sf->sf_rcvbuf = v;
			sf->sf_have |= SF_RCVBUF;
		}
		break;
	}
}

void
sockfacts_error(sockfacts_t *sf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(sf->sf_err, sizeof (sf->sf_err), fmt, ap);
	va_end(ap);
}

static void
add_int(fdrec_t *rec, uint_t item, int v)
{
	(void) fdrec_add(rec, item, &v, sizeof (v));
}

static void
add_addr(fdrec_t *rec, uint_t item, const struct sockaddr_storage *ss,
    socklen_t len)
{
	if (len > sizeof (*ss))
		len = sizeof (*ss);
	(void) fdrec_add(rec, item, ss, len);
}

/*
 * The facts of a socket of domain that its source could not find out, as
 * PR_SOCKGAPS: the options that apply to it and are not known, and the
 * peer's credentials and name of a unix socket that has a peer.
 */
static void
add_gaps(fdrec_t *rec, const sockfacts_t *sf, int domain,
    const prsockbool_t *b)
{
	const sockopt_t *opts = sockopt_table();
	size_t wl = strlen(sf->sf_gapwhy);
	uint8_t buf[sizeof (prsockgaps_t) + PERRMSG_MAX];
	prsockgaps_t g;
	int kind;

	memset(&g, 0, sizeof (g));
	for (int i = 0; i < PR_SO_NBOOL; i++) {
		if (sockopt_applies(&opts[i], domain, sf->sf_type) &&
		    !(b->pr_known & opts[i].so_bit) &&
		    !sock_family_refuses(domain, i))
			g.pr_bools |= opts[i].so_bit;
	}
	if (!(sf->sf_have & SF_LINGER))
		g.pr_other |= PR_GAP_LINGER;
	if (!(sf->sf_have & SF_SNDBUF))
		g.pr_other |= PR_GAP_SNDBUF;
	if (!(sf->sf_have & SF_RCVBUF))
		g.pr_other |= PR_GAP_RCVBUF;
	if (domain == AF_UNIX && ((sf->sf_have & SF_PEER) ||
	    (sf->sf_gaps & SF_PEER)) && !(sf->sf_have & SF_CRED))
		g.pr_other |= PR_GAP_PEERCRED;
	if (sf->sf_gaps & SF_PEER)
		g.pr_other |= PR_GAP_PEERNAME;
	if (sf->sf_gaps & SF_PEERCOMM)
		g.pr_other |= PR_GAP_PEERCOMM;
	kind = sockstate_kind(domain, sf->sf_type, sf->sf_protocol);
	if (kind == SOCKSTATE_LINE && !(sf->sf_have & SF_STATE))
		g.pr_other |= PR_GAP_STATE;
	if (kind != 0 && !(sf->sf_have & SF_QUEUES))
		g.pr_other |= PR_GAP_QUEUES;
	if (g.pr_bools == 0 && g.pr_other == 0)
		return;
	if (wl > PERRMSG_MAX - 1)
		wl = PERRMSG_MAX - 1;
	memcpy(buf, &g, sizeof (g));
	memcpy(buf + sizeof (g), sf->sf_gapwhy, wl);
	buf[sizeof (g) + wl] = '\0';
	(void) fdrec_add(rec, PR_SOCKGAPS, buf, sizeof (g) + wl + 1);
}

int
sockstate_kind(int domain, int type, int protocol)
{
	if (domain == AF_UNIX)
		return (type == SOCK_STREAM || type == SOCK_SEQPACKET ?
		    SOCKSTATE_LINE : type == SOCK_DGRAM ? SOCKSTATE_QUEUED : 0);
	if (domain != AF_INET && domain != AF_INET6)
		return (0);
	if (type == SOCK_STREAM)
		return (protocol == -1 || protocol == IPPROTO_TCP ||
		    protocol == IPPROTO_MPTCP ? SOCKSTATE_LINE : 0);
	return (type == SOCK_DGRAM || type == SOCK_RAW ?
	    SOCKSTATE_QUEUED : 0);
}

void
sockfacts_tcp(sockfacts_t *sf, int state, uint32_t rcv, uint32_t snd,
    int fin)
{
	sf->sf_state = state;
	sf->sf_have |= SF_STATE | SF_QUEUES;
	if (state == PR_SS_LISTEN) {
		sf->sf_queues = PR_SSQ_BACKLOG;
		sf->sf_rq = rcv;
		sf->sf_wq = snd;
		return;
	}
	sf->sf_queues = PR_SSQ_QUEUED;
	if (state == PR_SS_SYN_SENT || state == PR_SS_SYN_RECV) {
		sf->sf_rq = sf->sf_wq = 0;
		return;
	}
	/* A FIN is always received in these, and counted until read. */
	if (state == PR_SS_CLOSE_WAIT || state == PR_SS_LAST_ACK ||
	    state == PR_SS_CLOSING || state == PR_SS_TIME_WAIT)
		fin = 1;
	if (rcv > 0 && fin < 0) {
		sf->sf_have &= ~SF_QUEUES;	/* one more, or not? */
		return;
	}
	sf->sf_rq = rcv > 0 && fin > 0 ? rcv - 1 : rcv;
	sf->sf_wq = snd;
}

/*
 * The state and queues item, where the socket has a state line: the
 * state only where it is one a socket of its kind is in, the queues
 * only of the kind its state has.
 */
static void
add_state(fdrec_t *rec, const sockfacts_t *sf, int domain)
{
	int kind = sockstate_kind(domain, sf->sf_type, sf->sf_protocol);
	prsockstate_t st;

	memset(&st, 0, sizeof (st));
	if (kind == SOCKSTATE_LINE) {
		if (!(sf->sf_have & SF_STATE) || sf->sf_state < 1 ||
		    sf->sf_state > PR_SS_MAX || (domain == AF_UNIX &&
		    sf->sf_state != PR_SS_LISTEN &&
		    sf->sf_state != PR_SS_ESTABLISHED &&
		    sf->sf_state != PR_SS_CLOSE))
			return;
		st.pr_state = sf->sf_state;
	} else if (kind != SOCKSTATE_QUEUED || !(sf->sf_have & SF_QUEUES)) {
		return;
	}
	if ((sf->sf_have & SF_QUEUES) && sf->sf_queues ==
	    (st.pr_state == PR_SS_LISTEN ? PR_SSQ_BACKLOG : PR_SSQ_QUEUED)) {
		st.pr_queues = sf->sf_queues;
		st.pr_read = sf->sf_rq;
		st.pr_send = sf->sf_wq;
	}
	(void) fdrec_add(rec, PR_SOCKSTATE, &st, sizeof (st));
}

/* A netlink socket's groups beyond the first 32 (which its name has). */
static void
add_groups(fdrec_t *rec, const sockfacts_t *sf, int domain)
{
	uint_t n = sf->sf_ngroups;

	if (domain != AF_NETLINK || !(sf->sf_have & SF_GROUPS))
		return;
	if (n > SF_NLGROUPS_MAX)
		n = SF_NLGROUPS_MAX;
	while (n > 0 && sf->sf_groups[n - 1] == 0)
		n--;
	if (n > 1)
		(void) fdrec_add(rec, PR_NLGROUPS, sf->sf_groups,
		    n * sizeof (sf->sf_groups[0]));
}

void
sockrec_add(fdrec_t *rec, const sockfacts_t *sf)
{
	const sockopt_t *opts = sockopt_table();
	prsockbool_t b = sf->sf_bools;
	int domain = sf->sf_domain;
	sa_family_t fam;

	if (!(sf->sf_have & SF_DOMAIN) && (sf->sf_have & SF_NAME) &&
	    sf->sf_namelen >= sizeof (fam)) {
		memcpy(&fam, &sf->sf_name, sizeof (fam));
		domain = fam;
	}
	for (int i = 0; i < PR_SO_NBOOL; i++) {
		if (!sockopt_applies(&opts[i], domain, sf->sf_type))
			b.pr_known &= ~opts[i].so_bit;
	}
	b.pr_set &= b.pr_known;

	/*
	 * An obsolete SOCK_PACKET socket's name is a struct sockaddr_pkt,
	 * not the sockaddr_ll pfiles shows of a packet socket: its family
	 * alone, never its bytes read as another struct's fields.
	 */
	if ((sf->sf_have & SF_NAME) && domain == AF_PACKET &&
	    sf->sf_type == SOCK_PACKET && sf->sf_namelen > sizeof (fam))
		add_addr(rec, PR_SOCKETNAME, &sf->sf_name, sizeof (fam));
	else if (sf->sf_have & SF_NAME)
		add_addr(rec, PR_SOCKETNAME, &sf->sf_name, sf->sf_namelen);
	if (sf->sf_have & SF_PEER)
		add_addr(rec, PR_PEERSOCKNAME, &sf->sf_peer, sf->sf_peerlen);
	if (b.pr_known != 0)
		(void) fdrec_add(rec, PR_SOCKOPTS_BOOL_OPTS, &b, sizeof (b));
	if (sf->sf_have & SF_LINGER)
		(void) fdrec_add(rec, PR_SOCKOPT_LINGER, &sf->sf_linger,
		    sizeof (sf->sf_linger));
	if (sf->sf_have & SF_SNDBUF)
		add_int(rec, PR_SOCKOPT_SNDBUF, sf->sf_sndbuf);
	if (sf->sf_have & SF_RCVBUF)
		add_int(rec, PR_SOCKOPT_RCVBUF, sf->sf_rcvbuf);
	if (sf->sf_have & SF_TYPE)
		add_int(rec, PR_SOCKOPT_TYPE, sf->sf_type);
	if (sf->sf_have & SF_PROTOCOL)
		add_int(rec, PR_SOCKOPT_PROTOCOL, sf->sf_protocol);
	if (domain >= 0)
		add_int(rec, PR_SOCKOPT_DOMAIN, domain);
	add_state(rec, sf, domain);
	add_groups(rec, sf, domain);
	if ((sf->sf_have & SF_IFNAME) && domain == AF_PACKET)
		(void) fdrec_add(rec, PR_IFNAME, sf->sf_ifname,
		    strnlen(sf->sf_ifname, sizeof (sf->sf_ifname) - 1) + 1);
	if ((sf->sf_have & SF_CRED) && domain == AF_UNIX)
		(void) fdrec_add(rec, PR_PEERCRED, &sf->sf_cred,
		    sizeof (sf->sf_cred));
	if ((sf->sf_have & (SF_CRED | SF_PEERCOMM)) ==
	    (SF_CRED | SF_PEERCOMM) && domain == AF_UNIX)
		(void) fdrec_add(rec, PR_PEERCOMM, sf->sf_peercomm,
		    strnlen(sf->sf_peercomm, sizeof (sf->sf_peercomm) - 1) + 1);
	if (sf->sf_err[0] != '\0')
		(void) fdrec_add(rec, PR_SOCKERR, sf->sf_err,
		    strlen(sf->sf_err) + 1);
	else if (sf->sf_gapwhy != NULL)
		add_gaps(rec, sf, domain, &b);
}
