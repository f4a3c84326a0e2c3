/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_table.c: a socket's facts as the kernel's socket tables hold them
 * (NETLINK_SOCK_DIAG, netdiag/), written once for every source: the diag
 * source takes all it can from them, the others take what the tables
 * hold exactly as a call would give it, and ask the socket the rest.
 *
 * Exact, from a record of the tables (diag_parse.h says why each is):
 *  - the family, the type, a netlink socket's protocol;
 *  - SO_ACCEPTCONN (the state is TCP_LISTEN), SO_SNDBUF and SO_RCVBUF
 *    (the very fields getsockopt reads);
 *  - the name, but for an inet socket bound to the wildcard address (its
 *    getsockname gives the source address it may have taken since, which
 *    the tables do not hold) and for a packet socket bound to an
 *    interface (whose getsockname gives the device's hardware address);
 *  - the peer: an inet or netlink peer as the record gives it, a unix
 *    peer by its own record's name; and that there is none, when the
 *    record has no peer (getpeername would fail);
 *  - the state and queues (libproc.h's prsockstate_t; diag_table.h says
 *    which counters each kind's are): what TCP_INFO, SIOCINQ and SIOCOUTQ
 *    or SO_MEMINFO give at the instant of the dump.  Not where the record
 *    cannot tell them: a TCP socket in CLOSE with bytes to read and
 *    RCV_SHUTDOWN set may or may not have a FIN counted among them; an
 *    MPTCP socket's counters are its memory, not what SIOCINQ says of it
 *    (but a listener's backlog);
 *  - a netlink socket's groups, every word of them;
 *  - the cookie, by which the socket asked is known to be the socket of
 *    the record.
 * Not exact: a unix peer whose record is not in the tables (its name is
 * then asked, or for the diag source, a gap).
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netpacket/packet.h>
#include <stddef.h>
#include <string.h>

#include "netdiag/diag_parse.h"
#include "netdiag/diag_table.h"
#include "sock/socksrc.h"

/* Is ss (of the tables) not the name getsockname would give? */
static int
name_inexact(const struct sockaddr_storage *ss, socklen_t len)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_ll *sll = (const void *)ss;

	if (ss->ss_family == AF_INET && len >= sizeof (*sin))
		return (sin->sin_addr.s_addr == htonl(INADDR_ANY));
	if (ss->ss_family == AF_INET6 && len >= sizeof (*sin6))
		return (IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr));
	/* Bound to no interface: no hardware address follows. */
	if (ss->ss_family == AF_PACKET)
		return (len != offsetof(struct sockaddr_ll, sll_addr) ||
		    sll->sll_ifindex != 0);
	return (0);
}

/*
 * A TCP or MPTCP socket's state and queues.  A FIN is received in the
 * states that follow one (sockfacts_tcp() knows them) and in none of the
 * others but CLOSE, where RCV_SHUTDOWN clear says none was, and set that
 * one may have been (a FIN, or a reset, or shutdown(SHUT_RD)).
 */
static void
table_tcp(sockfacts_t *sf, const dent_t *e, int exact)
{
	int fin = 0;

	if (!(e->de_have & DS_RQLEN)) {
		sf->sf_state = e->de_state;
		sf->sf_have |= SF_STATE;
		return;
	}
	if (e->de_state == TCP_CLOSE)
		fin = (e->de_have & DS_SHUTDOWN) &&
		    !(e->de_shutdown & DS_SHUT_RD) ? 0 : -1;
	sockfacts_tcp(sf, e->de_state, e->de_rq, e->de_wq, fin);
	if (e->de_protocol == IPPROTO_MPTCP && e->de_state != TCP_LISTEN)
		sf->sf_have &= ~SF_QUEUES;
	/* Asked of the socket, state and queues at one instant. */
	else if (exact && !(sf->sf_have & SF_QUEUES))
		sf->sf_have &= ~SF_STATE;
}

/* A netlink socket's groups: every word (SF_NLGROUPS_MAX is the table's). */
static void
table_groups(sockfacts_t *sf, const diag_table_t *dt, const dent_t *e)
{
	if (e->de_family != AF_NETLINK)
		return;
	diag_table_groups(dt, e, sf->sf_groups);
	sf->sf_ngroups = e->de_ngroups;
	sf->sf_have |= SF_GROUPS;
}

/* The state and queues of the sockets that have them (sockstate_kind). */
static void
table_state(sockfacts_t *sf, const dent_t *e, int exact)
{
	int inet = e->de_family == AF_INET || e->de_family == AF_INET6;
	int kind = sockstate_kind(e->de_family, e->de_type,
	    inet ? e->de_protocol : 0);

	if (kind == SOCKSTATE_LINE && inet) {
		table_tcp(sf, e, exact);
		return;
	}
	if (kind == SOCKSTATE_LINE) {
		sf->sf_state = e->de_state;
		sf->sf_have |= SF_STATE;
	}
	if (kind == 0 || !(e->de_have & DS_RQLEN))
		return;
	sf->sf_queues = kind == SOCKSTATE_LINE && e->de_state == TCP_LISTEN ?
	    PR_SSQ_BACKLOG : PR_SSQ_QUEUED;
	sf->sf_rq = e->de_rq;
	sf->sf_wq = e->de_wq;
	sf->sf_have |= SF_QUEUES;
}

void
sockfacts_from_table(sockfacts_t *sf, const diag_table_t *dt, const dent_t *e,
    int exact)
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
		diag_table_name(dt, e, &sf->sf_name, &sf->sf_namelen);
		if (exact && name_inexact(&sf->sf_name, sf->sf_namelen))
			sf->sf_namelen = 0;
		else
			sf->sf_have |= SF_NAME;
	}
	if (e->de_have & DS_PEER) {
		diag_table_peer(dt, e, &sf->sf_peer, &sf->sf_peerlen);
		sf->sf_have |= SF_PEER;
	} else if (e->de_have & DS_PEER_INO) {
		const dent_t *p = e->de_peer_ino != 0 ?
		    diag_table_lookup(dt, e->de_peer_ino) : NULL;

		if (p != NULL && p->de_family == AF_UNIX &&
		    (p->de_have & DS_NAME)) {
			diag_table_name(dt, p, &sf->sf_peer, &sf->sf_peerlen);
			sf->sf_have |= SF_PEER;
		} else if (!exact) {
			sf->sf_gaps |= SF_PEER;	/* connected, name unknown */
		}
	} else {
		sf->sf_nopeer = 1;
	}
	table_state(sf, e, exact);
	table_groups(sf, dt, e);
	if (exact)
		sf->sf_cookie = e->de_cookie;
}

void
sockfacts_queues_from_table(sockfacts_t *sf, const diag_table_t *dt,
    const dent_t *e)
{
	sockfacts_t t;

	if (e == NULL || (sf->sf_have & SF_QUEUES) || sf->sf_err[0] != '\0')
		return;
	sockfacts_init(&t);
	sockfacts_from_table(&t, dt, e, 1);
	if (!(t.sf_have & SF_QUEUES) || !(t.sf_have & SF_STATE) ||
	    ((sf->sf_have & SF_STATE) && sf->sf_state != t.sf_state))
		return;
	sf->sf_state = t.sf_state;
	sf->sf_queues = t.sf_queues;
	sf->sf_rq = t.sf_rq;
	sf->sf_wq = t.sf_wq;
	sf->sf_have |= SF_STATE | SF_QUEUES;
}

/* Why a unix listener's backlog is not known: no table has it. */
static const char backlog_why[] = "a unix listener's backlog is only in "
    "the socket tables, which could not be read";

/* A unix listener whose backlog its socket could not tell? */
static int
needs_backlog(const sockask_t *a)
{
	const sockfacts_t *sf = &a->sa_facts;

	return (a->sa_err == 0 && sf->sf_err[0] == '\0' &&
	    sf->sf_domain == AF_UNIX && (sf->sf_have & SF_STATE) &&
	    sf->sf_state == PR_SS_LISTEN && !(sf->sf_have & SF_QUEUES));
}

void
sockask_backlogs(struct ps_prochandle *P, sockask_t *asks, size_t n)
{
	diag_table_t *dt = NULL;
	size_t i;

	for (i = 0; i < n && !needs_backlog(&asks[i]); i++)
		continue;
	if (i == n)
		return;
	/* One dump of the unix table of the namespace, for them all. */
	if ((dt = diag_table_new(P)) != NULL && dt->dt_nserr[0] == '\0')
		diag_table_dump(P, dt, DT_UNIX);
	for (; i < n; i++) {
		if (!needs_backlog(&asks[i]))
			continue;
		if (dt != NULL && dt->dt_nserr[0] == '\0')
			sockfacts_queues_from_table(&asks[i].sa_facts, dt,
			    diag_table_lookup(dt, asks[i].sa_ino));
		if (needs_backlog(&asks[i]) &&
		    asks[i].sa_facts.sf_gapwhy == NULL)
			asks[i].sa_facts.sf_gapwhy = backlog_why;
	}
	diag_table_free(dt);
}
