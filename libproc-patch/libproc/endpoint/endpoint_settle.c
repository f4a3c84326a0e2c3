/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint_settle.c: the other end of each of the target's sockets
 * (endpoint.c's step 2): the socket connected to it, by its inode.
 *
 * The source's facts settle it first where they can (the bpf source
 * gives each socket's unix peer, and the ends of each connection, with
 * the list of the target's sockets): settle() says, for one socket,
 * what the tables would.  The sockets they do not settle are looked up
 * in the kernel's socket tables of the target's network namespace
 * (netdiag/diag_table.c): a unix socket's peer inode; for a connected
 * TCP, MPTCP, UDP or UDP-Lite socket, the socket whose own address and
 * port are this one's peer's and the reverse.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "kconst.h"
#include "netdiag/diag_kind.h"
#include "netdiag/diag_parse.h"
#include "endpoint/endpoint_impl.h"

/* ------------------------------------------------------------------ */
/* The other ends the tables give. */

/*
 * May a socket of this family and protocol have an other end: a unix
 * socket, or an inet one whose other end a 4-tuple names (TCP, UDP...)?
 */
static int
may_connect(int family, int protocol)
{
	if (family == AF_UNIX)
		return (1);
	if (family != AF_INET && family != AF_INET6)
		return (0);
	return (protocol == IPPROTO_TCP || protocol == IPPROTO_MPTCP ||
	    protocol == IPPROTO_UDP || protocol == IPPROTO_UDPLITE);
}

/* Is e a socket whose other end a 4-tuple names (TCP, UDP...)? */
static int
inet_connected(const dent_t *e)
{
	if (e->de_family == AF_UNIX || !may_connect(e->de_family,
	    e->de_protocol))
		return (0);
	return ((e->de_have & (DS_NAME | DS_PEER)) == (DS_NAME | DS_PEER));
}

/*
 * A socket of the target not in a run's tables of an earlier turn may
 * have been made since, with an other end the tables do not show: it is
 * counted (en_unlisted, "not in the socket tables this run read
 * before"), unless it cannot have one.  It cannot when
 *  - its kind has none (may_connect(): an unbound netlink socket is in
 *    no table, whenever it was made), known before the walk; or
 *  - it has no peer, as the walk finds it (no_peer()): a socket's other
 *    end is its peer's socket (UNIX_DIAG_PEER, the one with the reversed
 *    4-tuple), and one that getpeername finds unconnected has none.  An
 *    unbound TCP or UDP socket, which the kernel hashes in no table, is
 *    one; a socket connected since the tables were read is not.
 * A socket whose facts could not be had (closed since, not asked, a
 * source that knows only the tables) stays counted.
 */
static int
may_be_missed(struct ps_prochandle *P, int fd)
{
	diag_req_t kind;

	return (!diag_sock_kind(P, fd, &kind) ||
	    may_connect(kind.dr_family, kind.dr_protocol));
}

/*
 * Do the facts of the walk's record show a socket with no peer: asked
 * (its name known, no failure said), and getpeername gave none (no peer
 * name, nor a peer known to be there whose name is not)?
 */
static int
no_peer(const prfdinfo_t *info)
{
	const void *g;
	prsockgaps_t gaps;
	size_t len;

	if (proc_fdinfo_misc(info, PR_SOCKETNAME, NULL) == NULL ||
	    proc_fdinfo_misc(info, PR_PEERSOCKNAME, NULL) != NULL ||
	    proc_fdinfo_misc(info, PR_SOCKERR, NULL) != NULL)
		return (0);
	if ((g = proc_fdinfo_misc(info, PR_SOCKGAPS, &len)) == NULL)
		return (1);
	if (len < sizeof (gaps))
		return (0);
	memcpy(&gaps, g, sizeof (gaps));
	return (!(gaps.pr_other & PR_GAP_PEERNAME));
}

void
endpoints_seen(endpoints_t *en, const prfdinfo_t *info)
{
	size_t lo = 0, hi;

	if (en == NULL || en->en_nmissed == 0 || !no_peer(info))
		return;
	for (hi = en->en_nmissed; lo < hi; ) {
		size_t mid = lo + (hi - lo) / 2;

		if (en->en_missed[mid].em_ino < info->pr_ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < en->en_nmissed && en->en_missed[lo].em_ino ==
	    info->pr_ino && !en->en_missed[lo].em_nopeer) {
		en->en_missed[lo].em_nopeer = 1;
		en->en_unlisted--;
	}
}

/* A socket not in a run's tables of an earlier turn (ep_find_peers). */
static diag_table_t missed;
#define	MISSED	(&missed)

/* The sockets of ask still missing (tab[i] MISSED), into en_missed. */
static void
keep_missed(endpoints_t *en, const holds_t *ask, diag_table_t **tab)
{
	free(en->en_missed);
	en->en_missed = NULL;
	en->en_nmissed = 0;
	if (en->en_unlisted == 0 || (en->en_missed = calloc(en->en_unlisted,
	    sizeof (epmissed_t))) == NULL)
		return;		/* none is then found to have no peer */
	for (size_t i = 0; i < ask->h_n; i++) {
		if (tab[i] == MISSED && en->en_nmissed < en->en_unlisted)
			en->en_missed[en->en_nmissed++].em_ino =
			    ask->h_v[i].eh_ino;
	}
}

/*
 * Every inode asked about in the tables, into tab (by ask's index), as
 * the diag source would; then, once more, those missing from a run's
 * tables of an earlier turn (made since?), now that this process's
 * lookups count toward reading them again (diag_table_find).  Those
 * still missing are counted in en_unlisted.
 */
static void
look_up(struct ps_prochandle *P, endpoints_t *en, diag_nets_t *dn,
    const holds_t *ask, diag_table_t **tab)
{
	for (int round = 0; round < 2; round++) {
		size_t stale = 0;

		for (size_t i = 0; i < ask->h_n; i++) {
			if ((i > 0 && ask->h_v[i].eh_ino ==
			    ask->h_v[i - 1].eh_ino) ||
			    (round == 1 && tab[i] != MISSED))
				continue;
			if (diag_nets_find(P, dn, ask->h_v[i].eh_fd,
			    ask->h_v[i].eh_ino, &tab[i]) != NULL)
				continue;
			if (tab[i] != NULL && diag_table_stale(P, tab[i]) &&
			    may_be_missed(P, ask->h_v[i].eh_fd)) {
				tab[i] = MISSED;
				stale++;
			} else {
				tab[i] = NULL;
			}
		}
		en->en_unlisted = stale;
		if (stale == 0)
			break;
	}
	keep_missed(en, ask, tab);
	for (size_t i = 0; i < ask->h_n; i++)
		if (tab[i] == MISSED)
			tab[i] = NULL;
}

/*
 * The other end of each socket of ask (sorted, some of the target's) that
 * has one in the tables, after the en_npeers found already.  Each socket
 * is looked up in the tables of its own network namespace (diag_nets.c),
 * and its other end in the same tables.  A TCP connection's other end
 * may be a socket of the other family (a dual-stack socket holds a
 * v4-mapped address): when one is not found, the TCP dump of the other
 * family is made too, once per table.  0 or an errno.
 */
int
ep_find_peers(struct ps_prochandle *P, endpoints_t *en, diag_nets_t *dn,
    const holds_t *ask)
{
	diag_table_t **tab;
	size_t base = en->en_npeers;
	int err = 0, round;

	if ((tab = calloc(ask->h_n > 0 ? ask->h_n : 1, sizeof (*tab))) == NULL)
		return (ENOMEM);
	look_up(P, en, dn, ask, tab);
	for (round = 0; round < 2; round++) {
		int again = 0;

		en->en_npeers = base;
		en->en_ambiguous = 0;
		for (size_t i = 0; i < ask->h_n; i++) {
			uint64_t ino = ask->h_v[i].eh_ino, peer = 0;
			diag_table_t *dt = tab[i];
			const dent_t *e;

			if (dt == NULL || (e = diag_table_lookup(dt, ino)) ==
			    NULL)
				continue;
			if (e->de_family == AF_UNIX &&
			    (e->de_have & DS_PEER_INO))
				peer = e->de_peer_ino;
			else if (inet_connected(e) &&
			    (peer = diag_table_reverse(dt, e, &err)) == 0 &&
			    err == 0 && (e->de_protocol == IPPROTO_TCP ||
			    e->de_protocol == IPPROTO_MPTCP) && round == 0 &&
			    !(diag_table_dumped(dt, DT_TCP4) &&
			    diag_table_dumped(dt, DT_TCP6))) {
				diag_table_dump(P, dt, DT_TCP4);
				diag_table_dump(P, dt, DT_TCP6);
				again = 1;
			}
			if (err != 0) {
				free(tab);
				return (err);
			}
			if (peer == DIAG_REV_MANY) {
				en->en_ambiguous++;	/* said, not named */
				continue;
			}
			if (peer == 0)
				continue;
			en->en_peers[en->en_npeers].ep_ino = ino;
			en->en_peers[en->en_npeers].ep_peer = peer;
			en->en_npeers++;
		}
		if (!again)
			break;
	}
	free(tab);
	return (0);
}

/* ------------------------------------------------------------------ */
/* The other ends the source's facts settle. */

/*
 * A TCP socket in a state that the dumps list (DIAG_INET_STATES: not
 * SYN_RECV, TIME_WAIT or NEW_SYN_RECV) and whose both ends getpeername
 * and getsockname give (not SYN_SENT, CLOSE or LISTEN): its other end
 * is the socket with the reversed ends, when one is listed.
 */
static int
tcp_connected(const psockid_t *id)
{
	if (id->sid_protocol != IPPROTO_TCP || !(id->sid_have & PSI_ENDS) ||
	    (id->sid_family != AF_INET && id->sid_family != AF_INET6))
		return (0);
	switch (id->sid_state) {
	case K_TCP_ESTABLISHED:
	case K_TCP_FIN_WAIT1:
	case K_TCP_FIN_WAIT2:
	case K_TCP_CLOSE_WAIT:
	case K_TCP_LAST_ACK:
	case K_TCP_CLOSING:
		return (1);
	default:
		return (0);
	}
}

/*
 * The hash of the ends (own, then peer) of a connection: their 64-bit
 * words and ports, each multiplied in (an odd constant), then mixed
 * (murmur3's finalizer), to a slot of n.
 */
static size_t
ends_hash(const uint8_t *a, uint16_t ap, const uint8_t *b, uint16_t bp,
    size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t w[4], h = ((uint64_t)ap << 16 | bp) * k;

	memcpy(&w[0], a, 8);
	memcpy(&w[1], a + 8, 8);
	memcpy(&w[2], b, 8);
	memcpy(&w[3], b + 8, 8);
	for (size_t i = 0; i < 4; i++)
		h = (h ^ w[i]) * k + (h >> 29);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return ((size_t)h & (n - 1));
}

/* What the facts say of one socket's other end. */
typedef enum { EP_ASK, EP_NONE, EP_PEER } epverdict_t;

typedef struct settler {
	const ids_t	*st_ids;
	uint32_t	*st_hash;	/* index + 1 of the TCP ones; 0 ends */
	uint32_t	*st_next;
	size_t		st_nhash;
} settler_t;

/*
 * The other end of id, as the tables would give it (ep_find_peers()):
 *  - a socket of another network namespace than the target's: its own
 *    namespace's tables are asked;
 *  - a unix socket's is its peer's inode (UNIX_DIAG_PEER), 0 none;
 *  - a listening or closed TCP socket has none;
 *  - a connected TCP socket's is the one socket with the reversed ends
 *    (two such: none, as diag_table_reverse() says), found among the
 *    target's own: the tables hold it with its ends, in the namespace
 *    of both.  When the target holds none, it may be another process's:
 *    the tables are asked;
 *  - an unconnected UDP socket has none (no socket's own end is a
 *    wildcard with port 0); a connected UDP or UDP-Lite socket's may be
 *    one of several (SO_REUSEPORT), an MPTCP socket's is listed by two
 *    dumps: the tables are asked, as for a socket the facts do not
 *    describe;
 *  - any other socket (raw, netlink, packet...) has none.
 */
static epverdict_t
settle(const settler_t *st, const psockid_t *id, uint64_t *peerp)
{
	uint64_t found = 0;

	if ((id->sid_have & (PSI_OWNNET | PSI_PROTO)) !=
	    (PSI_OWNNET | PSI_PROTO))
		return (EP_ASK);
	if (!id->sid_ownnet)
		return (EP_ASK);		/* in its own namespace's */
	if (id->sid_family == AF_UNIX) {
		if (!(id->sid_have & PSI_UNIXPEER))
			return (EP_ASK);
		*peerp = id->sid_peer_ino;
		return (id->sid_peer_ino != 0 ? EP_PEER : EP_NONE);
	}
	if (id->sid_family != AF_INET && id->sid_family != AF_INET6)
		return (EP_NONE);
	switch (id->sid_protocol) {
	case IPPROTO_TCP:
		if (id->sid_state == K_TCP_LISTEN ||
		    id->sid_state == K_TCP_CLOSE)
			return (EP_NONE);
		if (!tcp_connected(id) || st->st_nhash == 0)
			return (EP_ASK);
		for (uint32_t i = st->st_hash[ends_hash(id->sid_peer,
		    id->sid_peer_port, id->sid_own, id->sid_own_port,
		    st->st_nhash)]; i != 0; i = st->st_next[i - 1]) {
			const psockid_t *c = &st->st_ids->i_v[i - 1];

			if (c->sid_ino == id->sid_ino ||
			    c->sid_own_port != id->sid_peer_port ||
			    c->sid_peer_port != id->sid_own_port ||
			    memcmp(c->sid_own, id->sid_peer, 16) != 0 ||
			    memcmp(c->sid_peer, id->sid_own, 16) != 0)
				continue;
			if (found != 0 && found != c->sid_ino)
				return (EP_NONE);	/* two: not a guess */
			found = c->sid_ino;
		}
		if (found == 0)
			return (EP_ASK);
		*peerp = found;
		return (EP_PEER);
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		return ((id->sid_have & PSI_ENDS) ? EP_ASK : EP_NONE);
	case IPPROTO_MPTCP:
		return (EP_ASK);
	default:
		return (EP_NONE);
	}
}

/*
 * The other ends that the source's facts settle, into en_peers; the
 * sockets they do not, into ask (sorted).  0 or an errno.
 */
int
ep_settle_all(struct ps_prochandle *P, endpoints_t *en, holds_t *ask)
{
	const ids_t *ids = &en->en_ids;
	settler_t st;
	size_t n = 1024;
	int err = 0;

	memset(&st, 0, sizeof (st));
	st.st_ids = ids;
	/* The target's connected TCP sockets of its namespace, by ends. */
	while (n < ids->i_n * 2)
		n *= 2;
	if (ids->i_n > 0 &&
	    ((st.st_hash = calloc(n, sizeof (uint32_t))) == NULL ||
	    (st.st_next = calloc(ids->i_n, sizeof (uint32_t))) == NULL)) {
		free(st.st_hash);
		return (ENOMEM);
	}
	if (st.st_hash != NULL) {
		st.st_nhash = n;
		for (size_t i = 0; i < ids->i_n; i++) {
			const psockid_t *c = &ids->i_v[i];
			size_t b;

			if (!tcp_connected(c) || (c->sid_have & PSI_OWNNET) == 0 ||
			    !c->sid_ownnet)
				continue;
			b = ends_hash(c->sid_own, c->sid_own_port, c->sid_peer,
			    c->sid_peer_port, n);
			st.st_next[i] = st.st_hash[b];
			st.st_hash[b] = (uint32_t)(i + 1);
		}
	}
	for (size_t i = 0; err == 0 && i < ids->i_n; i++) {
		const psockid_t *id = &ids->i_v[i];
		uint64_t peer = 0;

		switch (settle(&st, id, &peer)) {
		case EP_PEER:
			en->en_peers[en->en_npeers].ep_ino = id->sid_ino;
			en->en_peers[en->en_npeers].ep_peer = peer;
			en->en_npeers++;
			break;
		case EP_ASK:
			err = ep_holds_add(ask, id->sid_ino, P->pid, id->sid_fd);
			break;
		case EP_NONE:
			break;
		}
	}
	free(st.st_hash);
	free(st.st_next);
	if (err == 0 && ask->h_n > 1)
		qsort(ask->h_v, ask->h_n, sizeof (ephold_t), ep_hold_cmp);
	return (err);
}
