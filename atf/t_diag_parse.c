/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_diag_parse: unit tests of the NETLINK_SOCK_DIAG reply parser and
 * request builders (diag_parse.c): on replies built here byte by byte,
 * and on real replies of the running kernel about sockets this test opens
 * itself, compared with what getsockname(2), getpeername(2),
 * getsockopt(2) and fstat(2) say of the same sockets.  Expected values
 * come from the test's own view, never from the parser.
 */
#include <atf-c.h>
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/packet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "netdiag/diag_parse.h"
#include "testutil.h"

#define	SEQ	4242U
#define	MAXREC	64

/* ------------------------------------------------------------------ */
/* Building replies. */

typedef struct mb {
	uint8_t	mb_buf[8192];
	size_t	mb_len;
	size_t	mb_start;	/* of the message being built */
} mb_t;

static mb_t mb;

static void
mb_reset(void)
{
	(void) memset(&mb, 0, sizeof (mb));
}

static void
mb_put(const void *p, size_t n)
{
	ATF_REQUIRE(mb.mb_len + n + 4 <= sizeof (mb.mb_buf));
	(void) memcpy(mb.mb_buf + mb.mb_len, p, n);
	mb.mb_len += n;
}

static void
mb_pad(void)
{
	while (mb.mb_len % 4 != 0)
		mb.mb_buf[mb.mb_len++] = 0;
}

static void
mb_msg(uint16_t type, uint32_t seq)
{
	struct nlmsghdr nh;

	mb_pad();
	mb.mb_start = mb.mb_len;
	(void) memset(&nh, 0, sizeof (nh));
	nh.nlmsg_type = type;
	nh.nlmsg_flags = NLM_F_MULTI;
	nh.nlmsg_seq = seq;
	mb_put(&nh, sizeof (nh));
}

static void
mb_attr(uint16_t type, const void *p, size_t n)
{
	struct nlattr na;

	mb_pad();
	na.nla_len = (uint16_t)(sizeof (na) + n);
	na.nla_type = type;
	mb_put(&na, sizeof (na));
	mb_put(p, n);
}

/* End the message: its nlmsg_len, then the padding. */
static void
mb_end(void)
{
	uint32_t len;

	mb_pad();
	len = (uint32_t)(mb.mb_len - mb.mb_start);
	(void) memcpy(mb.mb_buf + mb.mb_start, &len, sizeof (len));
}

static void
mb_int_msg(uint16_t type, int32_t v)
{
	mb_msg(type, SEQ);
	mb_put(&v, sizeof (v));
	mb_end();
}

static void
mb_meminfo(uint16_t type, uint32_t rcvbuf, uint32_t sndbuf)
{
	uint32_t m[SK_MEMINFO_VARS];

	(void) memset(m, 0, sizeof (m));
	m[SK_MEMINFO_RCVBUF] = rcvbuf;
	m[SK_MEMINFO_SNDBUF] = sndbuf;
	m[SK_MEMINFO_RMEM_ALLOC] = 77;
	mb_attr(type, m, sizeof (m));
}

static void
mb_inet(int family, int state, uint16_t sport, uint16_t dport,
    const void *src, const void *dst, uint32_t ifindex, uint32_t ino)
{
	struct inet_diag_msg m;
	size_t alen = family == AF_INET ? 4 : 16;

	(void) memset(&m, 0, sizeof (m));
	m.idiag_family = (uint8_t)family;
	m.idiag_state = (uint8_t)state;
	m.id.idiag_sport = htons(sport);
	m.id.idiag_dport = htons(dport);
	(void) memcpy(m.id.idiag_src, src, alen);
	(void) memcpy(m.id.idiag_dst, dst, alen);
	m.id.idiag_if = ifindex;
	m.idiag_uid = 1000;
	m.idiag_inode = ino;
	mb_msg(SOCK_DIAG_BY_FAMILY, SEQ);
	mb_put(&m, sizeof (m));
}

/* ------------------------------------------------------------------ */
/* Collecting records. */

static diag_sock_t recs[MAXREC];
static int nrecs;

static int
collect(const diag_sock_t *ds, void *arg)
{
	(void) arg;
	ATF_REQUIRE(nrecs < MAXREC);
	recs[nrecs++] = *ds;
	return (0);
}

static int
parse_req(const diag_req_t *req, uint32_t pid, uint32_t seq, int *errp)
{
	uint8_t *copy;
	int rc;

	/* In a buffer of exactly its size, at an odd address. */
	copy = malloc(mb.mb_len + 1);
	ATF_REQUIRE(copy != NULL);
	(void) memcpy(copy + 1, mb.mb_buf, mb.mb_len);
	nrecs = 0;
	*errp = 0;
	rc = diag_parse(copy + 1, mb.mb_len, pid, &(diag_dump_t){ req, seq,
	    collect, NULL }, errp);
	free(copy);
	return (rc);
}

static int
parse_as(int family, int protocol, int *errp)
{
	diag_req_t req = { family, protocol };

	return (parse_req(&req, 0, SEQ, errp));
}

/* ------------------------------------------------------------------ */

ATF_TC_WITHOUT_HEAD(build_requests);
ATF_TC_BODY(build_requests, tc)
{
	uint8_t buf[DIAG_REQ_MAX + 8];
	struct nlmsghdr nh;
	size_t n;
	diag_req_t bad[] = {
		{ AF_INET, IPPROTO_ICMP }, { AF_UNIX, 6 }, { AF_INET6, 0 },
		{ AF_BLUETOOTH, 0 }, { 0, 0 }
	};

	ATF_REQUIRE(diag_nreqs >= 13);
	for (size_t i = 0; i < diag_nreqs; i++) {
		const diag_req_t *r = &diag_reqs[i];

		ATF_CHECK(diag_req_valid(r));
		(void) memset(buf, 0xa5, sizeof (buf));
		n = diag_build_req(r, SEQ + (uint32_t)i, buf, sizeof (buf));
		ATF_REQUIRE(n >= sizeof (nh) && n <= DIAG_REQ_MAX);
		ATF_CHECK(buf[n] == 0xa5);
		(void) memcpy(&nh, buf, sizeof (nh));
		ATF_CHECK_EQ(nh.nlmsg_len, n);
		ATF_CHECK_EQ(nh.nlmsg_type, SOCK_DIAG_BY_FAMILY);
		ATF_CHECK_EQ(nh.nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
		ATF_CHECK_EQ(nh.nlmsg_seq, SEQ + i);
		ATF_CHECK_EQ(nh.nlmsg_pid, 0);
		ATF_CHECK_EQ(buf[16], r->dr_family);
		ATF_CHECK_EQ(diag_build_req(r, 1, buf, n - 1), 0);

		if (r->dr_family == AF_INET || r->dr_family == AF_INET6) {
			struct inet_diag_req_v2 q;

			ATF_CHECK_EQ(n, 16 + sizeof (q) +
			    (r->dr_protocol == IPPROTO_MPTCP ? 8 : 0));
			(void) memcpy(&q, buf + 16, sizeof (q));
			ATF_CHECK_EQ(q.sdiag_protocol,
			    r->dr_protocol == IPPROTO_MPTCP ? IPPROTO_TCP :
			    r->dr_protocol);
			ATF_CHECK_EQ(q.idiag_ext,
			    1 << (INET_DIAG_SKMEMINFO - 1));
			/* Not TIME_WAIT (6), SYN_RECV (3), NEW_SYN_RECV (12). */
			ATF_CHECK_EQ(q.idiag_states, 0xffffefb7U);
			ATF_CHECK_EQ(q.pad, 0);
			if (r->dr_protocol == IPPROTO_MPTCP) {
				struct nlattr na;
				uint32_t p;

				(void) memcpy(&na, buf + 16 + sizeof (q), 4);
				(void) memcpy(&p, buf + 20 + sizeof (q), 4);
				ATF_CHECK_EQ(na.nla_len, 8);
				ATF_CHECK_EQ(na.nla_type,
				    INET_DIAG_REQ_PROTOCOL);
				ATF_CHECK_EQ(p, IPPROTO_MPTCP);
			}
		} else if (r->dr_family == AF_UNIX) {
			struct unix_diag_req q;

			ATF_CHECK_EQ(n, 16 + sizeof (q));
			(void) memcpy(&q, buf + 16, sizeof (q));
			ATF_CHECK_EQ(q.udiag_states, ~0U);
			ATF_CHECK_EQ(q.udiag_show, UDIAG_SHOW_NAME |
			    UDIAG_SHOW_VFS | UDIAG_SHOW_PEER |
			    UDIAG_SHOW_RQLEN | UDIAG_SHOW_MEMINFO |
			    UDIAG_SHOW_UID);
		} else if (r->dr_family == AF_NETLINK) {
			struct netlink_diag_req q;

			ATF_CHECK_EQ(n, 16 + sizeof (q));
			(void) memcpy(&q, buf + 16, sizeof (q));
			ATF_CHECK_EQ(q.sdiag_protocol, NDIAG_PROTO_ALL);
			ATF_CHECK_EQ(q.ndiag_show,
			    NDIAG_SHOW_GROUPS | NDIAG_SHOW_MEMINFO);
		} else {
			struct packet_diag_req q;

			ATF_CHECK_EQ(r->dr_family, AF_PACKET);
			ATF_CHECK_EQ(n, 16 + sizeof (q));
			(void) memcpy(&q, buf + 16, sizeof (q));
			ATF_CHECK_EQ(q.sdiag_protocol, 0);
			ATF_CHECK_EQ(q.pdiag_show,
			    PACKET_SHOW_INFO | PACKET_SHOW_MEMINFO);
		}
	}
	for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
		int err;

		ATF_CHECK(!diag_req_valid(&bad[i]));
		ATF_CHECK_EQ(diag_build_req(&bad[i], 1, buf, sizeof (buf)), 0);
		mb_reset();
		ATF_CHECK_EQ(parse_req(&bad[i], 0, SEQ, &err), DIAG_ERROR);
		ATF_CHECK_EQ(err, EINVAL);
	}
}

ATF_TC_WITHOUT_HEAD(inet4_names_and_facts);
ATF_TC_BODY(inet4_names_and_facts, tc)
{
	struct in_addr lo, peer;
	struct sockaddr_in want;
	uint8_t sd = 1, so[2] = { 0x02 | 0x04, 0x01 };
	int err;

	ATF_REQUIRE(inet_pton(AF_INET, "127.0.0.1", &lo) == 1);
	ATF_REQUIRE(inet_pton(AF_INET, "10.1.2.3", &peer) == 1);
	mb_reset();
	/* Established: a peer, shutdown, meminfo, sockopt. */
	mb_inet(AF_INET, TCP_ESTABLISHED, 8080, 41234, &lo, &peer, 0, 999);
	mb_attr(INET_DIAG_SHUTDOWN, &sd, 1);
	mb_meminfo(INET_DIAG_SKMEMINFO, 131072, 16384);
	mb_attr(INET_DIAG_SOCKOPT, so, 2);
	mb_end();
	/* Listening: no peer. */
	mb_inet(AF_INET, TCP_LISTEN, 8080, 0, &lo, &peer, 0, 1000);
	mb_end();
	/* SYN_SENT and CLOSE with a dport: no peer either. */
	mb_inet(AF_INET, TCP_SYN_SENT, 1, 2, &lo, &peer, 0, 1001);
	mb_end();
	mb_inet(AF_INET, TCP_CLOSE, 1, 2, &lo, &peer, 0, 1002);
	mb_end();
	/* TIME_WAIT: inode 0, a peer. */
	mb_inet(AF_INET, TCP_TIME_WAIT, 1, 2, &lo, &peer, 0, 0);
	mb_end();
	mb_int_msg(NLMSG_DONE, 0);

	ATF_REQUIRE_EQ(parse_as(AF_INET, IPPROTO_TCP, &err), DIAG_DONE);
	ATF_REQUIRE_EQ(nrecs, 5);

	(void) memset(&want, 0, sizeof (want));
	want.sin_family = AF_INET;
	want.sin_port = htons(8080);
	want.sin_addr = lo;
	ATF_CHECK_EQ(recs[0].ds_ino, 999);
	ATF_CHECK_EQ(recs[0].ds_family, AF_INET);
	ATF_CHECK_EQ(recs[0].ds_type, SOCK_STREAM);
	ATF_CHECK_EQ(recs[0].ds_protocol, IPPROTO_TCP);
	ATF_CHECK_EQ(recs[0].ds_state, TCP_ESTABLISHED);
	ATF_CHECK_EQ(recs[0].ds_namelen, sizeof (want));
	ATF_CHECK(memcmp(&recs[0].ds_name, &want, sizeof (want)) == 0);
	want.sin_port = htons(41234);
	want.sin_addr = peer;
	ATF_CHECK(recs[0].ds_have & DS_PEER);
	ATF_CHECK_EQ(recs[0].ds_peerlen, sizeof (want));
	ATF_CHECK(memcmp(&recs[0].ds_peer, &want, sizeof (want)) == 0);
	ATF_CHECK(recs[0].ds_have & DS_SHUTDOWN);
	ATF_CHECK_EQ(recs[0].ds_shutdown, 1);
	ATF_CHECK(recs[0].ds_have & DS_MEM);
	ATF_CHECK_EQ(recs[0].ds_sndbuf, 16384);
	ATF_CHECK_EQ(recs[0].ds_rcvbuf, 131072);
	ATF_CHECK(recs[0].ds_have & DS_SOCKOPT);
	ATF_CHECK_EQ(recs[0].ds_inet_sockopt,
	    DS_SO_IS_ICSK | DS_SO_FREEBIND | DS_SO_BIND_ADDR_NO_PORT);
	ATF_CHECK(recs[0].ds_have & DS_UID);
	ATF_CHECK_EQ(recs[0].ds_uid, 1000);

	ATF_CHECK(!(recs[1].ds_have & (DS_PEER | DS_MEM | DS_SHUTDOWN)));
	ATF_CHECK_EQ(recs[1].ds_peerlen, 0);
	ATF_CHECK_EQ(recs[1].ds_state, TCP_LISTEN);
	ATF_CHECK(!(recs[2].ds_have & DS_PEER));
	ATF_CHECK(!(recs[3].ds_have & DS_PEER));
	ATF_CHECK(recs[4].ds_have & DS_PEER);
	ATF_CHECK_EQ(recs[4].ds_ino, 0);

	/* The same bytes as a UDP dump: datagram sockets. */
	mb.mb_len -= 20;	/* no NLMSG_DONE */
	ATF_REQUIRE_EQ(parse_as(AF_INET, IPPROTO_UDP, &err), DIAG_MORE);
	ATF_REQUIRE_EQ(nrecs, 5);
	ATF_CHECK_EQ(recs[0].ds_type, SOCK_DGRAM);
	ATF_CHECK_EQ(recs[0].ds_protocol, IPPROTO_UDP);
}

ATF_TC_WITHOUT_HEAD(inet6_scope_and_raw);
ATF_TC_BODY(inet6_scope_and_raw, tc)
{
	static const struct {
		const char	*addr;
		uint32_t	scope;	/* with idiag_if 3 */
	} cases[] = {
		{ "fe80::1", 3 }, { "febf::1", 3 }, { "fec0::1", 0 },
		{ "ff02::1", 3 }, { "ff01::1", 3 }, { "ff05::1", 0 },
		{ "::1", 0 }, { "2001:db8::1", 0 }, { "::ffff:127.0.0.1", 0 },
		{ "::", 0 },
	};
	const size_t ncases = sizeof (cases) / sizeof (cases[0]);
	struct sockaddr_in6 want;
	struct in6_addr a;
	uint8_t proto = IPPROTO_ICMPV6, v6only = 1;
	int err;

	mb_reset();
	for (size_t i = 0; i < ncases; i++) {
		ATF_REQUIRE(inet_pton(AF_INET6, cases[i].addr, &a) == 1);
		/* The peer has the same address: the same scope rule. */
		mb_inet(AF_INET6, TCP_ESTABLISHED, 7, 9, &a, &a, 3,
		    (uint32_t)(100 + i));
		mb_attr(INET_DIAG_PROTOCOL, &proto, 1);
		mb_attr(INET_DIAG_SKV6ONLY, &v6only, 1);
		mb_end();
	}
	ATF_REQUIRE_EQ(parse_as(AF_INET6, IPPROTO_RAW, &err), DIAG_MORE);
	ATF_REQUIRE_EQ(nrecs, (int)ncases);
	for (size_t i = 0; i < ncases; i++) {
		ATF_REQUIRE(inet_pton(AF_INET6, cases[i].addr, &a) == 1);
		(void) memset(&want, 0, sizeof (want));
		want.sin6_family = AF_INET6;
		want.sin6_port = htons(7);
		want.sin6_addr = a;
		want.sin6_scope_id = cases[i].scope;
		ATF_CHECK_EQ_MSG(recs[i].ds_namelen, sizeof (want), "%s",
		    cases[i].addr);
		ATF_CHECK_MSG(memcmp(&recs[i].ds_name, &want, sizeof (want)) ==
		    0, "%s: scope %u", cases[i].addr,
		    ((struct sockaddr_in6 *)&recs[i].ds_name)->sin6_scope_id);
		want.sin6_port = htons(9);
		ATF_CHECK_MSG(memcmp(&recs[i].ds_peer, &want, sizeof (want)) ==
		    0, "%s (peer)", cases[i].addr);
		ATF_CHECK_EQ(recs[i].ds_type, SOCK_RAW);
		ATF_CHECK_EQ(recs[i].ds_protocol, IPPROTO_ICMPV6);
		ATF_CHECK_EQ(recs[i].ds_bound_if, 3);
		ATF_CHECK(recs[i].ds_have & DS_V6ONLY);
		ATF_CHECK_EQ(recs[i].ds_v6only, 1);
	}

	/* INET_DIAG_PROTOCOL is a raw socket's alone; v6only a v6 one's. */
	ATF_REQUIRE_EQ(parse_as(AF_INET6, IPPROTO_TCP, &err), DIAG_MORE);
	ATF_CHECK_EQ(recs[0].ds_protocol, IPPROTO_TCP);
}

static void
mb_unix(int type, int state, uint32_t ino, const void *name, size_t namelen,
    int has_peer, uint32_t peer)
{
	struct unix_diag_msg m;
	struct unix_diag_rqlen q = { 3, 4 };
	uint32_t uid = 1234;
	uint8_t sd = 3;

	(void) memset(&m, 0, sizeof (m));
	m.udiag_family = AF_UNIX;
	m.udiag_type = (uint8_t)type;
	m.udiag_state = (uint8_t)state;
	m.udiag_ino = ino;
	mb_msg(SOCK_DIAG_BY_FAMILY, SEQ);
	mb_put(&m, sizeof (m));
	if (name != NULL)
		mb_attr(UNIX_DIAG_NAME, name, namelen);
	if (has_peer)
		mb_attr(UNIX_DIAG_PEER, &peer, sizeof (peer));
	mb_attr(UNIX_DIAG_RQLEN, &q, sizeof (q));
	mb_meminfo(UNIX_DIAG_MEMINFO, 1000, 2000);
	mb_attr(UNIX_DIAG_SHUTDOWN, &sd, 1);
	mb_attr(UNIX_DIAG_UID, &uid, sizeof (uid));
	mb_end();
}

ATF_TC_WITHOUT_HEAD(unix_names_and_peers);
ATF_TC_BODY(unix_names_and_peers, tc)
{
	static const char path[] = "/tmp/s";	/* with its NUL: 7 bytes */
	static const char abs[] = "\0abs\0x";	/* 6 bytes, inner NUL */
	char longpath[109];
	diag_sock_t d;
	int err;

	(void) memset(longpath, 'p', 108);
	longpath[108] = '\0';
	mb_reset();
	mb_unix(SOCK_STREAM, TCP_LISTEN, 10, path, sizeof (path), 0, 0);
	mb_unix(SOCK_STREAM, TCP_ESTABLISHED, 11, NULL, 0, 1, 12);
	mb_unix(SOCK_STREAM, TCP_ESTABLISHED, 12, path, sizeof (path), 1, 11);
	mb_unix(SOCK_SEQPACKET, TCP_ESTABLISHED, 13, abs, 6, 1, 0);
	mb_unix(SOCK_DGRAM, TCP_CLOSE, 14, longpath, sizeof (longpath), 0, 0);
	ATF_REQUIRE_EQ(parse_as(AF_UNIX, 0, &err), DIAG_MORE);
	ATF_REQUIRE_EQ(nrecs, 5);

	ATF_CHECK_EQ(recs[0].ds_namelen,
	    offsetof(struct sockaddr_un, sun_path) + sizeof (path));
	ATF_CHECK_EQ(recs[0].ds_name.ss_family, AF_UNIX);
	ATF_CHECK(memcmp(((struct sockaddr_un *)&recs[0].ds_name)->sun_path,
	    path, sizeof (path)) == 0);
	ATF_CHECK_EQ(recs[0].ds_state, TCP_LISTEN);
	ATF_CHECK(!(recs[0].ds_have & (DS_PEER_INO | DS_PEER)));
	ATF_CHECK_EQ(recs[0].ds_rqlen, 3);
	ATF_CHECK_EQ(recs[0].ds_wqlen, 4);
	ATF_CHECK_EQ(recs[0].ds_sndbuf, 2000);
	ATF_CHECK_EQ(recs[0].ds_rcvbuf, 1000);
	ATF_CHECK_EQ(recs[0].ds_shutdown, 3);
	ATF_CHECK_EQ(recs[0].ds_uid, 1234);

	/* Unnamed: only the family. */
	ATF_CHECK_EQ(recs[1].ds_namelen, sizeof (sa_family_t));
	ATF_CHECK_EQ(recs[1].ds_name.ss_family, AF_UNIX);
	ATF_CHECK(recs[1].ds_have & DS_PEER_INO);
	ATF_CHECK(!(recs[1].ds_have & DS_PEER));
	ATF_CHECK_EQ(recs[1].ds_peer_ino, 12);

	/* Abstract: its bytes, leading and inner NUL, no trailing one. */
	ATF_CHECK_EQ(recs[3].ds_namelen,
	    offsetof(struct sockaddr_un, sun_path) + 6);
	ATF_CHECK(memcmp(((struct sockaddr_un *)&recs[3].ds_name)->sun_path,
	    abs, 6) == 0);
	ATF_CHECK_EQ(recs[3].ds_type, SOCK_SEQPACKET);

	/* A 108-byte path: the NUL makes 111, as getsockname says. */
	ATF_CHECK_EQ(recs[4].ds_namelen, 111);

	/* The peer helper: names copied from the peer's record. */
	d = recs[1];
	diag_unix_peer(&recs[2], &d);
	ATF_CHECK(d.ds_have & DS_PEER);
	ATF_CHECK(!(d.ds_have & DS_PEER_UNKNOWN));
	ATF_CHECK_EQ(d.ds_peerlen, recs[2].ds_namelen);
	ATF_CHECK(memcmp(&d.ds_peer, &recs[2].ds_name, d.ds_peerlen) == 0);
	d = recs[2];
	diag_unix_peer(&recs[1], &d);
	ATF_CHECK(d.ds_have & DS_PEER);
	ATF_CHECK_EQ(d.ds_peerlen, sizeof (sa_family_t));
	ATF_CHECK_EQ(d.ds_peer.ss_family, AF_UNIX);
	/* The wrong record, none, or a peer gone: unknown. */
	d = recs[1];
	diag_unix_peer(&recs[0], &d);
	ATF_CHECK((d.ds_have & (DS_PEER | DS_PEER_UNKNOWN)) ==
	    DS_PEER_UNKNOWN);
	d = recs[1];
	diag_unix_peer(NULL, &d);
	ATF_CHECK((d.ds_have & (DS_PEER | DS_PEER_UNKNOWN)) ==
	    DS_PEER_UNKNOWN);
	d = recs[3];
	ATF_CHECK_EQ(d.ds_peer_ino, 0);
	diag_unix_peer(&recs[0], &d);
	ATF_CHECK((d.ds_have & (DS_PEER | DS_PEER_UNKNOWN)) ==
	    DS_PEER_UNKNOWN);
	/* Not connected: nothing changes. */
	d = recs[0];
	diag_unix_peer(&recs[1], &d);
	ATF_CHECK_EQ(d.ds_have, recs[0].ds_have);

	/* A name longer than any sockaddr: malformed. */
	mb_reset();
	{
		char huge[200];

		(void) memset(huge, 'x', sizeof (huge));
		mb_unix(SOCK_STREAM, TCP_CLOSE, 20, huge, sizeof (huge), 0, 0);
	}
	ATF_CHECK_EQ(parse_as(AF_UNIX, 0, &err), DIAG_ERROR);
	ATF_CHECK_EQ(err, EBADMSG);

	/*
	 * The edge: a name is kept where it fits a sockaddr_storage after
	 * the family (126 bytes); one byte more, or as many bytes as the
	 * whole storage, and the message is malformed.
	 */
	{
		const size_t room = sizeof (struct sockaddr_storage) -
		    offsetof(struct sockaddr_un, sun_path);
		char name[sizeof (struct sockaddr_storage)];

		(void) memset(name, 'n', sizeof (name));
		mb_reset();
		mb_unix(SOCK_DGRAM, TCP_CLOSE, 21, name, room, 0, 0);
		ATF_CHECK_EQ(parse_as(AF_UNIX, 0, &err), DIAG_MORE);
		ATF_REQUIRE_EQ(nrecs, 1);
		ATF_CHECK_EQ(recs[0].ds_namelen,
		    sizeof (struct sockaddr_storage));
		for (size_t extra = 1; extra <= 2; extra++) {
			mb_reset();
			mb_unix(SOCK_DGRAM, TCP_CLOSE, 22, name, room + extra,
			    0, 0);
			ATF_CHECK_EQ_MSG(parse_as(AF_UNIX, 0, &err),
			    DIAG_ERROR, "a name of %zu bytes", room + extra);
			ATF_CHECK_EQ(err, EBADMSG);
		}
	}
}

ATF_TC_WITHOUT_HEAD(netlink_and_packet);
ATF_TC_BODY(netlink_and_packet, tc)
{
	struct netlink_diag_msg n;
	struct packet_diag_msg p;
	struct sockaddr_nl want;
	unsigned long groups[2] = { 0x100000005UL, 7 };
	uint32_t uid = 55;
	uint32_t dst_groups[] = { 0, 1, 5, 32, 33 };
	uint32_t masks[] = { 0, 1, 1U << 4, 1U << 31, 0 };
	int err;

	mb_reset();
	for (size_t i = 0; i < 5; i++) {
		(void) memset(&n, 0, sizeof (n));
		n.ndiag_family = AF_NETLINK;
		n.ndiag_type = SOCK_RAW;
		n.ndiag_protocol = NETLINK_ROUTE;
		n.ndiag_state = 7;
		n.ndiag_portid = 4242;
		n.ndiag_dst_portid = (uint32_t)i;
		n.ndiag_dst_group = dst_groups[i];
		n.ndiag_ino = (uint32_t)(50 + i);
		mb_msg(SOCK_DIAG_BY_FAMILY, SEQ);
		mb_put(&n, sizeof (n));
		if (i == 0)
			mb_attr(NETLINK_DIAG_GROUPS, groups, sizeof (groups));
		mb_meminfo(NETLINK_DIAG_MEMINFO, 300, 400);
		mb_end();
	}
	ATF_REQUIRE_EQ(parse_as(AF_NETLINK, 0, &err), DIAG_MORE);
	ATF_REQUIRE_EQ(nrecs, 5);
	for (size_t i = 0; i < 5; i++) {
		(void) memset(&want, 0, sizeof (want));
		want.nl_family = AF_NETLINK;
		want.nl_pid = 4242;
		want.nl_groups = i == 0 ? 5 : 0;
		ATF_CHECK_EQ(recs[i].ds_namelen, sizeof (want));
		ATF_CHECK(memcmp(&recs[i].ds_name, &want, sizeof (want)) == 0);
		want.nl_pid = (uint32_t)i;
		want.nl_groups = masks[i];
		ATF_CHECK(recs[i].ds_have & DS_PEER);
		ATF_CHECK_EQ(recs[i].ds_peerlen, sizeof (want));
		ATF_CHECK_MSG(memcmp(&recs[i].ds_peer, &want, sizeof (want)) ==
		    0, "dst_group %u", dst_groups[i]);
		ATF_CHECK_EQ(recs[i].ds_protocol, NETLINK_ROUTE);
		ATF_CHECK_EQ(recs[i].ds_type, SOCK_RAW);
		ATF_CHECK_EQ(recs[i].ds_sndbuf, 400);
		ATF_CHECK(!(recs[i].ds_have & DS_UID));
	}

	mb_reset();
	(void) memset(&p, 0, sizeof (p));
	p.pdiag_family = AF_PACKET;
	p.pdiag_type = SOCK_DGRAM;
	p.pdiag_num = 0x0806;
	p.pdiag_ino = 77;
	mb_msg(SOCK_DIAG_BY_FAMILY, SEQ);
	mb_put(&p, sizeof (p));
	mb_attr(PACKET_DIAG_UID, &uid, sizeof (uid));
	mb_meminfo(PACKET_DIAG_MEMINFO, 1, 2);
	mb_end();
	mb_int_msg(NLMSG_DONE, 0);
	ATF_REQUIRE_EQ(parse_as(AF_PACKET, 0, &err), DIAG_DONE);
	ATF_REQUIRE_EQ(nrecs, 1);
	ATF_CHECK_EQ(recs[0].ds_namelen, sizeof (sa_family_t));
	ATF_CHECK_EQ(recs[0].ds_name.ss_family, AF_PACKET);
	ATF_CHECK(!(recs[0].ds_have & DS_PEER));
	ATF_CHECK_EQ(recs[0].ds_protocol, 0x0806);
	ATF_CHECK_EQ(recs[0].ds_type, SOCK_DGRAM);
	ATF_CHECK_EQ(recs[0].ds_uid, 55);
	ATF_CHECK_EQ(recs[0].ds_rcvbuf, 1);
	ATF_CHECK_EQ(recs[0].ds_ino, 77);
}

/* One good TCP record into mb. */
static void
good_record(uint32_t ino)
{
	struct in_addr lo = { htonl(INADDR_LOOPBACK) };
	uint8_t sd = 0;

	mb_inet(AF_INET, TCP_ESTABLISHED, 1, 2, &lo, &lo, 0, ino);
	mb_attr(INET_DIAG_SHUTDOWN, &sd, 1);
	mb_end();
}

static void
put32(size_t off, uint32_t v)
{
	(void) memcpy(mb.mb_buf + off, &v, sizeof (v));
}

static void
put16(size_t off, uint16_t v)
{
	(void) memcpy(mb.mb_buf + off, &v, sizeof (v));
}

static void
expect_error(const char *what, int want_err, int want_recs)
{
	int err, rc;

	rc = parse_as(AF_INET, IPPROTO_TCP, &err);
	ATF_CHECK_EQ_MSG(rc, DIAG_ERROR, "%s: rc %d", what, rc);
	ATF_CHECK_EQ_MSG(err, want_err, "%s: errno %d", what, err);
	ATF_CHECK_EQ_MSG(nrecs, want_recs, "%s: %d records", what, nrecs);
}

static int
stop_second(const diag_sock_t *ds, void *arg)
{
	int *n = arg;

	(void) ds;
	return (++*n == 2 ? ESRCH : 0);
}

ATF_TC_WITHOUT_HEAD(malformed);
ATF_TC_BODY(malformed, tc)
{
	diag_req_t tcp4 = { AF_INET, IPPROTO_TCP };
	size_t rl, attr;
	int err, n;

	/* Two good records: rl is the length of one. */
	mb_reset();
	good_record(1);
	rl = mb.mb_len;
	good_record(2);
	ATF_REQUIRE_EQ(parse_as(AF_INET, IPPROTO_TCP, &err), DIAG_MORE);
	ATF_REQUIRE_EQ(nrecs, 2);
	attr = rl + 16 + sizeof (struct inet_diag_msg);

	put32(rl, 8);
	expect_error("short nlmsg_len", EBADMSG, 1);
	put32(rl, (uint32_t)rl + 4);
	expect_error("nlmsg_len past the buffer", EBADMSG, 1);
	put32(rl, 0xffffffffU);
	expect_error("huge nlmsg_len", EBADMSG, 1);
	put32(rl, (uint32_t)rl);

	put16(attr, 12);
	expect_error("attribute past its message", EBADMSG, 1);
	put16(attr, 3);
	expect_error("attribute below its header", EBADMSG, 1);
	put16(attr, 4);
	expect_error("shutdown with no byte", EBADMSG, 1);
	put16(attr, 5);

	put32(rl, 16 + 40);
	mb.mb_len = rl + 16 + 40;
	expect_error("truncated inet_diag_msg", EBADMSG, 1);
	mb.mb_len = rl + 10;
	expect_error("truncated header", EBADMSG, 1);
	mb.mb_len = rl + 5;
	put32(rl, (uint32_t)rl);
	expect_error("a few stray bytes", EBADMSG, 1);

	/* A message of the dump that is not for this request. */
	mb.mb_len = rl;
	good_record(2);
	put32(rl + 8, SEQ + 1);
	expect_error("wrong seq", EPROTO, 1);
	put32(rl + 8, SEQ);
	put16(rl + 4, NLMSG_NOOP);
	expect_error("NLMSG_NOOP", EPROTO, 1);
	put16(rl + 4, SOCK_DIAG_BY_FAMILY);
	put16(rl + 6, NLM_F_MULTI | NLM_F_DUMP_INTR);
	expect_error("NLM_F_DUMP_INTR", EINTR, 1);
	put16(rl + 6, NLM_F_MULTI);
	mb.mb_buf[rl + 16] = AF_INET6;
	expect_error("a record of another family", EPROTO, 1);
	mb.mb_buf[rl + 16] = AF_INET;
	ATF_REQUIRE_EQ(parse_req(&tcp4, 4242, SEQ, &err), DIAG_ERROR);
	ATF_CHECK_EQ(err, EPROTO);
	ATF_CHECK_EQ(nrecs, 0);

	/* NLMSG_ERROR amid the dump, and an ack. */
	mb.mb_len = rl;
	mb_int_msg(NLMSG_ERROR, -ENOBUFS);
	good_record(3);
	expect_error("NLMSG_ERROR", ENOBUFS, 1);
	mb.mb_len = rl;
	mb_int_msg(NLMSG_ERROR, 0);
	expect_error("an ack", EPROTO, 1);
	mb.mb_len = rl;
	mb_int_msg(NLMSG_ERROR, INT32_MIN);
	expect_error("NLMSG_ERROR INT_MIN", EPROTO, 1);
	mb.mb_len = rl;
	mb_msg(NLMSG_ERROR, SEQ);
	mb_end();
	expect_error("NLMSG_ERROR with no errno", EBADMSG, 1);

	/* NLMSG_DONE: with the dump's error, early, bare. */
	mb.mb_len = rl;
	mb_int_msg(NLMSG_DONE, -EMSGSIZE);
	expect_error("NLMSG_DONE with an error", EMSGSIZE, 1);
	mb.mb_len = rl;
	mb_int_msg(NLMSG_DONE, 0);
	good_record(4);
	expect_error("NLMSG_DONE before the end", EBADMSG, 1);
	mb.mb_len = rl;
	mb_msg(NLMSG_DONE, SEQ);
	mb_end();
	ATF_CHECK_EQ(parse_as(AF_INET, IPPROTO_TCP, &err), DIAG_DONE);

	/* The callback stops the walk. */
	mb.mb_len = rl;
	good_record(2);
	good_record(3);
	n = 0;
	ATF_CHECK_EQ(diag_parse(mb.mb_buf, mb.mb_len, 0,
	    &(diag_dump_t){ &tcp4, SEQ, stop_second, &n }, &err), DIAG_ERROR);
	ATF_CHECK_EQ(err, ESRCH);
	ATF_CHECK_EQ(n, 2);

	/* Nothing at all: the dump goes on. */
	ATF_CHECK_EQ(diag_parse(NULL, 0, 0,
	    &(diag_dump_t){ &tcp4, SEQ, collect, NULL }, &err), DIAG_MORE);
}

/* ------------------------------------------------------------------ */
/* The real kernel. */

#define	MAXOWN	32

typedef struct own {
	int		o_fd;
	uint64_t	o_ino;
	int		o_family;
	int		o_proto;	/* inet: the dump's protocol */
	int		o_found;
	int		o_nodump;	/* this kernel has no dump of its kind */
	diag_sock_t	o_rec;
} own_t;

static own_t owns[MAXOWN];
static int nowns;

static void
own_add(int fd, int family, int proto)
{
	struct stat st;

	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE(nowns < MAXOWN);
	ATF_REQUIRE(fstat(fd, &st) == 0);
	owns[nowns].o_fd = fd;
	owns[nowns].o_ino = st.st_ino;
	owns[nowns].o_family = family;
	owns[nowns].o_proto = proto;
	owns[nowns].o_found = 0;
	owns[nowns].o_nodump = 0;
	nowns++;
}

static const diag_req_t *live_req;

static int
live_cb(const diag_sock_t *ds, void *arg)
{
	(void) arg;
	for (int i = 0; i < nowns; i++) {
		if (owns[i].o_ino != ds->ds_ino || ds->ds_ino == 0 ||
		    owns[i].o_family != live_req->dr_family ||
		    owns[i].o_proto != live_req->dr_protocol)
			continue;
		owns[i].o_found++;
		owns[i].o_rec = *ds;
	}
	return (0);
}

/* Make one dump; returns 0, or the errno the kernel refused it with. */
static int
live_dump(const diag_req_t *req)
{
	static uint8_t buf[65536];
	uint8_t q[DIAG_REQ_MAX];
	struct sockaddr_nl kern, from;
	socklen_t fromlen;
	size_t qlen;
	ssize_t n;
	int s, rc, err = 0;

	s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	ATF_REQUIRE(s >= 0);
	(void) memset(&kern, 0, sizeof (kern));
	kern.nl_family = AF_NETLINK;
	qlen = diag_build_req(req, SEQ, q, sizeof (q));
	ATF_REQUIRE(qlen > 0);
	ATF_REQUIRE(sendto(s, q, qlen, 0, (struct sockaddr *)&kern,
	    sizeof (kern)) == (ssize_t)qlen);
	live_req = req;
	do {
		fromlen = sizeof (from);
		n = recvfrom(s, buf, sizeof (buf), 0,
		    (struct sockaddr *)&from, &fromlen);
		ATF_REQUIRE(n > 0);
		ATF_REQUIRE_EQ(fromlen, sizeof (from));
		rc = diag_parse(buf, (size_t)n, from.nl_pid,
		    &(diag_dump_t){ req, SEQ, live_cb, NULL }, &err);
	} while (rc == DIAG_MORE);
	(void) close(s);
	if (rc == DIAG_ERROR)
		ATF_REQUIRE_MSG(err == ENOENT || err == EOPNOTSUPP,
		    "dump %d/%d: %s", req->dr_family, req->dr_protocol,
		    strerror(err));
	return (rc == DIAG_ERROR ? err : 0);
}

static void
inet_pair(int family, int type, int proto)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int l, c, a;

	(void) memset(&ss, 0, sizeof (ss));
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET) {
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
		    htonl(INADDR_LOOPBACK);
		len = sizeof (struct sockaddr_in);
	} else {
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
		len = sizeof (struct sockaddr_in6);
	}
	l = socket(family, type, proto);
	if (l < 0 && family == AF_INET6)
		return;		/* no IPv6 here */
	ATF_REQUIRE(l >= 0);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&ss, len) == 0);
	ATF_REQUIRE(getsockname(l, (struct sockaddr *)&ss, &len) == 0);
	own_add(l, family, proto);
	if (type == SOCK_STREAM)
		ATF_REQUIRE(listen(l, 4) == 0);
	c = socket(family, type, proto);
	ATF_REQUIRE(connect(c, (struct sockaddr *)&ss, len) == 0);
	own_add(c, family, proto);
	if (type == SOCK_STREAM) {
		a = accept(l, NULL, NULL);
		own_add(a, family, proto);
		ATF_REQUIRE(shutdown(a, SHUT_WR) == 0);
	}
}

static void
check_against_own_view(const own_t *o)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof (ss);
	int v, pr;
	socklen_t vl = sizeof (v);
	const diag_sock_t *d = &o->o_rec;

	/* A kind this kernel cannot dump (its diag module is not there). */
	if (o->o_nodump)
		return;
	/*
	 * A netlink socket bound to groups is dumped twice by some kernels:
	 * once from the table of bound sockets, once from the list of
	 * multicast listeners.
	 */
	ATF_CHECK_MSG(o->o_found == 1 ||
	    (o->o_family == AF_NETLINK && o->o_found == 2),
	    "ino %llu found %d times", (unsigned long long)o->o_ino,
	    o->o_found);
	if (o->o_found == 0)
		return;
	(void) memset(&ss, 0, sizeof (ss));
	ATF_REQUIRE(getsockname(o->o_fd, (struct sockaddr *)&ss, &len) == 0);
	ATF_CHECK(d->ds_have & DS_NAME);
	if (o->o_family != AF_PACKET) {
		ATF_CHECK_EQ_MSG(d->ds_namelen, len, "ino %llu: namelen %u, "
		    "getsockname %u", (unsigned long long)o->o_ino,
		    d->ds_namelen, len);
		ATF_CHECK_MSG(memcmp(&d->ds_name, &ss, len) == 0,
		    "ino %llu: the name differs", (unsigned long long)o->o_ino);
	} else {
		ATF_CHECK_EQ(d->ds_name.ss_family, AF_PACKET);
	}

	len = sizeof (ss);
	(void) memset(&ss, 0, sizeof (ss));
	pr = getpeername(o->o_fd, (struct sockaddr *)&ss, &len);
	if (o->o_family == AF_UNIX) {
		/* The unix peer comes from the helper. */
		ATF_CHECK_EQ((d->ds_have & DS_PEER_INO) != 0, pr == 0);
	} else if (o->o_family != AF_PACKET) {
		ATF_CHECK_EQ_MSG((d->ds_have & DS_PEER) != 0, pr == 0,
		    "ino %llu: getpeername %d", (unsigned long long)o->o_ino,
		    pr);
		if (pr == 0 && (d->ds_have & DS_PEER)) {
			ATF_CHECK_EQ(d->ds_peerlen, len);
			ATF_CHECK_MSG(memcmp(&d->ds_peer, &ss, len) == 0,
			    "ino %llu: the peer differs",
			    (unsigned long long)o->o_ino);
		}
	}

	ATF_REQUIRE(getsockopt(o->o_fd, SOL_SOCKET, SO_SNDBUF, &v, &vl) == 0);
	ATF_CHECK(d->ds_have & DS_MEM);
	ATF_CHECK_EQ((int)d->ds_sndbuf, v);
	vl = sizeof (v);
	ATF_REQUIRE(getsockopt(o->o_fd, SOL_SOCKET, SO_RCVBUF, &v, &vl) == 0);
	ATF_CHECK_EQ((int)d->ds_rcvbuf, v);
	vl = sizeof (v);
	ATF_REQUIRE(getsockopt(o->o_fd, SOL_SOCKET, SO_TYPE, &v, &vl) == 0);
	ATF_CHECK_EQ(d->ds_type, v);
	ATF_CHECK_EQ(d->ds_family, o->o_family);
	if (d->ds_have & DS_UID)
		ATF_CHECK_EQ(d->ds_uid, geteuid());
}

ATF_TC_WITHOUT_HEAD(live_kernel);
ATF_TC_BODY(live_kernel, tc)
{
	struct sockaddr_un sun;
	struct sockaddr_nl nl;
	socklen_t len;
	char path[64];
	int l, c, sp[2], s;

	nowns = 0;
	inet_pair(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	inet_pair(AF_INET6, SOCK_STREAM, IPPROTO_TCP);
	inet_pair(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
	inet_pair(AF_INET6, SOCK_DGRAM, IPPROTO_UDP);

	/* unix: a named listener with a client, an abstract one, a pair. */
	(void) snprintf(path, sizeof (path), "t_diag_parse.%d.sock",
	    (int)getpid());
	(void) memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	(void) strcpy(sun.sun_path, path);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(path) + 1);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&sun, len) == 0);
	ATF_REQUIRE(listen(l, 4) == 0);
	own_add(l, AF_UNIX, 0);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	ATF_REQUIRE(connect(c, (struct sockaddr *)&sun, len) == 0);
	own_add(c, AF_UNIX, 0);
	own_add(accept(l, NULL, NULL), AF_UNIX, 0);
	(void) unlink(path);

	(void) memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	(void) snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
	    "t_diag_parse.%d", (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(sun.sun_path + 1));
	l = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&sun, len) == 0);
	ATF_REQUIRE(listen(l, 4) == 0);
	own_add(l, AF_UNIX, 0);
	c = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	ATF_REQUIRE(connect(c, (struct sockaddr *)&sun, len) == 0);
	own_add(c, AF_UNIX, 0);
	own_add(accept(l, NULL, NULL), AF_UNIX, 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_DGRAM, 0, sp) == 0);
	own_add(sp[0], AF_UNIX, 0);
	own_add(sp[1], AF_UNIX, 0);

	/* netlink route, bound with groups. */
	(void) memset(&nl, 0, sizeof (nl));
	nl.nl_family = AF_NETLINK;
	nl.nl_groups = RTMGRP_LINK;
	s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	ATF_REQUIRE(bind(s, (struct sockaddr *)&nl, sizeof (nl)) == 0);
	own_add(s, AF_NETLINK, 0);

	/* packet, when allowed. */
	if ((s = socket(AF_PACKET, SOCK_DGRAM, 0)) >= 0)
		own_add(s, AF_PACKET, 0);

	/*
	 * Every dump; one that the kernel cannot make (ENOENT: its diag
	 * module is not there, as the kernel's configuration may leave
	 * out) leaves the sockets of that kind unchecked, and is said.
	 * The TCP dump is in every kernel pfiles runs on.
	 */
	for (size_t i = 0; i < diag_nreqs; i++) {
		const diag_req_t *q = &diag_reqs[i];

		if (live_dump(q) == 0)
			continue;
		ATF_REQUIRE_MSG(q->dr_protocol != IPPROTO_TCP ||
		    q->dr_family != AF_INET, "the TCP dump was refused");
		(void) printf("no dump of family %d protocol %d here\n",
		    q->dr_family, q->dr_protocol);
		for (int j = 0; j < nowns; j++)
			if (owns[j].o_family == q->dr_family &&
			    owns[j].o_proto == q->dr_protocol)
				owns[j].o_nodump = 1;
	}

	for (int i = 0; i < nowns; i++)
		check_against_own_view(&owns[i]);

	/* The unix peers, through the helper, against getpeername. */
	for (int i = 0; i < nowns; i++) {
		struct sockaddr_storage ss;
		diag_sock_t d;
		const diag_sock_t *peer = NULL;

		if (owns[i].o_family != AF_UNIX || owns[i].o_found != 1)
			continue;
		d = owns[i].o_rec;
		if (!(d.ds_have & DS_PEER_INO))
			continue;
		for (int j = 0; j < nowns; j++)
			if (owns[j].o_found == 1 &&
			    owns[j].o_family == AF_UNIX &&
			    owns[j].o_ino == d.ds_peer_ino)
				peer = &owns[j].o_rec;
		ATF_CHECK_MSG(peer != NULL, "no peer %llu",
		    (unsigned long long)d.ds_peer_ino);
		diag_unix_peer(peer, &d);
		len = sizeof (ss);
		(void) memset(&ss, 0, sizeof (ss));
		ATF_REQUIRE(getpeername(owns[i].o_fd, (struct sockaddr *)&ss,
		    &len) == 0);
		ATF_CHECK(d.ds_have & DS_PEER);
		ATF_CHECK_EQ(d.ds_peerlen, len);
		ATF_CHECK(memcmp(&d.ds_peer, &ss, len) == 0);
	}
	/* Shut down for writing: the accepted TCP ends said so. */
	for (int i = 0; i < nowns; i++)
		if (owns[i].o_found == 1 && owns[i].o_proto == IPPROTO_TCP)
			ATF_CHECK(owns[i].o_rec.ds_have & DS_SHUTDOWN);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, build_requests);
	ATF_TP_ADD_TC(tp, inet4_names_and_facts);
	ATF_TP_ADD_TC(tp, inet6_scope_and_raw);
	ATF_TP_ADD_TC(tp, unix_names_and_peers);
	ATF_TP_ADD_TC(tp, netlink_and_packet);
	ATF_TP_ADD_TC(tp, malformed);
	ATF_TP_ADD_TC(tp, live_kernel);
	return (atf_no_error());
}
