/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_reverse.c: the other end of an inet socket, found in its table by
 * addresses and ports (diag_table_reverse): a second hash, made at first
 * use, by the four-tuple and by a server's own end; a UDP client's server
 * may be of the other family where the kernel would deliver to it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netdiag/diag_parse.h"
#include "netdiag/diag_table.h"


/* One end of an inet connection: an IPv6 address (v4 mapped) and port. */
typedef struct inend {
	uint8_t		ie_addr[16];
	uint16_t	ie_port;	/* network order, as the sockaddr's */
} inend_t;

/* An inet sockaddr of len bytes as an end: 0, or -1. */
static int
to_end(const uint8_t *sa, size_t len, inend_t *ie)
{
	sa_family_t fam;

	memset(ie, 0, sizeof (*ie));
	if (len < sizeof (fam))
		return (-1);
	memcpy(&fam, sa, sizeof (fam));
	if (fam == AF_INET && len >= sizeof (struct sockaddr_in)) {
		struct sockaddr_in sin;

		memcpy(&sin, sa, sizeof (sin));
		ie->ie_addr[10] = ie->ie_addr[11] = 0xff;
		memcpy(&ie->ie_addr[12], &sin.sin_addr, 4);
		ie->ie_port = sin.sin_port;
		return (0);
	}
	if (fam == AF_INET6 && len >= sizeof (struct sockaddr_in6)) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, sa, sizeof (sin6));
		memcpy(ie->ie_addr, &sin6.sin6_addr, 16);
		ie->ie_port = sin6.sin6_port;
		return (0);
	}
	return (-1);
}

/*
 * The transport of an inet record, as a class: the other end of a TCP
 * socket may be listed by the MPTCP dump (and the reverse).
 */
static int
transport_of(const dent_t *e)
{
	return (e->de_protocol == IPPROTO_MPTCP ? IPPROTO_TCP :
	    e->de_protocol);
}

/* e's own end and its peer's: 0, or -1 when e is no connected inet. */
static int
ends_of(const diag_table_t *dt, const dent_t *e, inend_t *own,
    inend_t *peer)
{
	if ((e->de_family != AF_INET && e->de_family != AF_INET6) ||
	    (e->de_have & (DS_NAME | DS_PEER)) != (DS_NAME | DS_PEER))
		return (-1);
	if (to_end(dt->dt_arena + e->de_names, e->de_namelen, own) != 0 ||
	    to_end(dt->dt_arena + e->de_names + e->de_namelen, e->de_peerlen,
	    peer) != 0)
		return (-1);
	return (0);
}

/* The hash of a connection as seen from the end whose own end is a. */
static size_t
tuple_hash(const inend_t *a, const inend_t *b, int proto, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const uint8_t *p[2] = { (const uint8_t *)a, (const uint8_t *)b };

	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < 16; i++)
			h = (h ^ p[k][i]) * 0x100000001b3ULL;
		h = (h ^ (uint8_t)(k == 0 ? a->ie_port : b->ie_port)) *
		    0x100000001b3ULL;
		h = (h ^ (uint8_t)((k == 0 ? a->ie_port : b->ie_port) >> 8)) *
		    0x100000001b3ULL;
	}
	h = (h ^ (uint64_t)proto) * 0x100000001b3ULL;
	return ((size_t)(h >> 16) & (n - 1));
}

static int
same_end(const inend_t *a, const inend_t *b)
{
	return (a->ie_port == b->ie_port &&
	    memcmp(a->ie_addr, b->ie_addr, 16) == 0);
}

/*
 * e's own end, when e is a UDP or UDP-Lite socket bound to a port and
 * connected to none, and to no interface (SO_BINDTODEVICE): a server,
 * which takes the datagrams of every socket connected to its address
 * and port: 0, or -1.
 */
static int
server_end(const diag_table_t *dt, const dent_t *e, inend_t *own)
{
	if ((e->de_family != AF_INET && e->de_family != AF_INET6) ||
	    (e->de_protocol != IPPROTO_UDP &&
	    e->de_protocol != IPPROTO_UDPLITE) ||
	    (e->de_have & (DS_NAME | DS_PEER)) != DS_NAME || e->de_bound)
		return (-1);
	if (to_end(dt->dt_arena + e->de_names, e->de_namelen, own) != 0 ||
	    own->ie_port == 0)
		return (-1);
	return (0);
}

/* The key of the servers of a port in the tuple hash: the port alone. */
static void
port_key(uint16_t port, inend_t *key, inend_t *none)
{
	memset(key, 0, sizeof (*key));
	memset(none, 0, sizeof (*none));
	key->ie_port = port;
}

/* Is the end's address the wildcard (0.0.0.0, v4 mapped, or ::)? */
static int
is_any(const inend_t *ie)
{
	static const uint8_t any6[16], any4[16] = { [10] = 0xff, [11] = 0xff };

	return (memcmp(ie->ie_addr, any6, 16) == 0 ||
	    memcmp(ie->ie_addr, any4, 16) == 0);
}

/* Is the end's address an IPv4 one (v4 mapped)? */
static int
is_v4(const inend_t *ie)
{
	static const uint8_t v4map[12] = { [10] = 0xff, [11] = 0xff };

	return (memcmp(ie->ie_addr, v4map, 12) == 0);
}

/* Is the end's address loopback (127.0.0.0/8, v4 mapped, or ::1)? */
static int
is_loopback(const inend_t *ie)
{
	static const uint8_t lo6[16] = { [15] = 1 };

	return (memcmp(ie->ie_addr, lo6, 16) == 0 ||
	    (is_v4(ie) && ie->ie_addr[12] == 127));
}

/*
 * The hash by addresses and ports of every connected inet entry, and of
 * every UDP server (server_end()) by its port alone.
 */
static int
tuple_index(diag_table_t *dt)
{
	size_t want = 1024;
	inend_t own, peer;
	uint32_t *h, *nx;

	if (dt->dt_thash != NULL && dt->dt_tfor == dt->dt_nent)
		return (0);
	while (want < dt->dt_nent * 2)
		want *= 2;
	if ((h = calloc(want, sizeof (*h))) == NULL ||
	    (nx = calloc(dt->dt_nent + 1, sizeof (*nx))) == NULL) {
		free(h);
		return (ENOMEM);
	}
	for (size_t i = 0; i < dt->dt_nent; i++) {
		const dent_t *e = &dt->dt_ent[i];
		size_t b;

		if (ends_of(dt, e, &own, &peer) == 0)
			b = tuple_hash(&own, &peer, transport_of(e), want);
		else if (server_end(dt, e, &own) == 0) {
			port_key(own.ie_port, &own, &peer);
			b = tuple_hash(&own, &peer, e->de_protocol, want);
		} else
			continue;
		nx[i] = h[b];
		h[b] = (uint32_t)(i + 1);
	}
	free(dt->dt_thash);
	free(dt->dt_tnext);
	dt->dt_thash = h;
	dt->dt_tnext = nx;
	dt->dt_nthash = want;
	dt->dt_tfor = dt->dt_nent;
	return (0);
}

/*
 * Does server c, whose own end is own, take datagrams sent to peer, as
 * far as families go?  A datagram to an IPv4 address (an AF_INET peer,
 * or an AF_INET6 socket's v4-mapped one) reaches AF_INET sockets, and
 * AF_INET6 ones bound to a v4-mapped address or to :: with IPV6_V6ONLY
 * known to be off (a dual-stack server); one to an IPv6 address reaches
 * AF_INET6 sockets only.
 */
static int
takes_family(const dent_t *c, const inend_t *own, const inend_t *peer)
{
	if (!is_v4(peer))
		return (c->de_family == AF_INET6);
	return (c->de_family == AF_INET || is_v4(own) || c->de_dual);
}

/*
 * The server that takes the datagrams of e, a UDP or UDP-Lite socket
 * connected to peer and to no socket that is connected back: as the
 * kernel's lookup prefers, the one server bound to peer's address and
 * port; else, when peer's address is loopback (so surely this host's),
 * the one bound to the wildcard address and that port.  Servers of
 * either family that take a datagram sent to peer (takes_family()): 0
 * when there is none, DIAG_REV_MANY when two would do.
 */
static uint64_t
udp_server(const diag_table_t *dt, const dent_t *e, const inend_t *peer)
{
	inend_t key, none, o;
	uint64_t exact = 0, wild = 0;
	int manywild = 0;

	port_key(peer->ie_port, &key, &none);
	for (uint32_t i = dt->dt_thash[tuple_hash(&key, &none,
	    e->de_protocol, dt->dt_nthash)]; i != 0; i = dt->dt_tnext[i - 1]) {
		const dent_t *c = &dt->dt_ent[i - 1];

		if (c->de_ino == e->de_ino || c->de_protocol != e->de_protocol ||
		    server_end(dt, c, &o) != 0 || o.ie_port != peer->ie_port ||
		    !takes_family(c, &o, peer))
			continue;
		if (same_end(&o, peer)) {
			if (exact != 0 && exact != c->de_ino)
				return (DIAG_REV_MANY);
			exact = c->de_ino;
		} else if (is_any(&o) && is_loopback(peer)) {
			manywild |= wild != 0 && wild != c->de_ino;
			wild = c->de_ino;
		}
	}
	if (exact != 0)
		return (exact);
	return (manywild ? DIAG_REV_MANY : wild);
}

uint64_t
diag_table_reverse(diag_table_t *dt, const dent_t *e, int *errp)
{
	inend_t own, peer, o2, p2;
	uint64_t found = 0;
	int proto = transport_of(e);

	*errp = 0;
	if (ends_of(dt, e, &own, &peer) != 0)
		return (0);
	/* Connected to itself: its own other end, the only one there is. */
	if (same_end(&own, &peer))
		return (e->de_ino);
	if ((*errp = tuple_index(dt)) != 0)
		return (0);
	/* The other end's own end is our peer, its peer us. */
	for (uint32_t i = dt->dt_thash[tuple_hash(&peer, &own, proto,
	    dt->dt_nthash)]; i != 0; i = dt->dt_tnext[i - 1]) {
		const dent_t *c = &dt->dt_ent[i - 1];

		if (transport_of(c) != proto || c->de_ino == e->de_ino ||
		    ends_of(dt, c, &o2, &p2) != 0 || !same_end(&o2, &peer) ||
		    !same_end(&p2, &own))
			continue;
		if (found != 0 && found != c->de_ino)
			return (DIAG_REV_MANY);	/* two would do: no guess */
		found = c->de_ino;
	}
	/* A UDP client of a server that is connected to no one. */
	if (found == 0 && (proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE))
		found = udp_server(dt, e, &peer);
	return (found);
}
