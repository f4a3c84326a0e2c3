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
 *  - the name, but for an inet socket bound to the wildcard address: its
 *    getsockname gives the source address it may have taken since, which
 *    the tables do not hold;
 *  - the peer: an inet or netlink peer as the record gives it, a unix
 *    peer by its own record's name; and that there is none, when the
 *    record has no peer (getpeername would fail);
 *  - the cookie, by which the socket asked is known to be the socket of
 *    the record.
 * Not exact: a unix peer whose record is not in the tables (its name is
 * then asked, or for the diag source, a gap).
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#include "netdiag/diag_parse.h"
#include "netdiag/diag_table.h"
#include "sock/socksrc.h"

/* Is ss an inet name of the wildcard address? */
static int
wildcard(const struct sockaddr_storage *ss, socklen_t len)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;

	if (ss->ss_family == AF_INET && len >= sizeof (*sin))
		return (sin->sin_addr.s_addr == htonl(INADDR_ANY));
	if (ss->ss_family == AF_INET6 && len >= sizeof (*sin6))
		return (IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr));
	return (0);
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
		if (exact && wildcard(&sf->sf_name, sf->sf_namelen))
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
	if (exact)
		sf->sf_cookie = e->de_cookie;
}
