/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_diag_parse: unit tests of the NETLINK_SOCK_DIAG reply parser and
 * request builders (diag_parse.c) on replies built here byte by byte
 * (t_diag_live holds the running kernel's replies).  Expected values
 * come from the test's own view, never from the parser.
 */
#include "diagparse_util.h"

/* ------------------------------------------------------------------ */
/* Building replies. */

#define	MAXREC	64

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

/* A meminfo attribute: the buffers, and the memory counts. */
static void
mb_meminfo_all(uint16_t type, uint32_t rcvbuf, uint32_t sndbuf,
    uint32_t rmem, uint32_t wmem)
{
	uint32_t m[SK_MEMINFO_VARS];

	(void) memset(m, 0, sizeof (m));
	m[SK_MEMINFO_RCVBUF] = rcvbuf;
	m[SK_MEMINFO_SNDBUF] = sndbuf;
	m[SK_MEMINFO_RMEM_ALLOC] = rmem;
	m[SK_MEMINFO_WMEM_ALLOC] = wmem;
	mb_attr(type, m, sizeof (m));
}

static void
mb_meminfo(uint16_t type, uint32_t rcvbuf, uint32_t sndbuf)
{
	mb_meminfo_all(type, rcvbuf, sndbuf, 77, 0);
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

/* The queues of the inet record being built. */
static void
mb_inet_queues(uint32_t rq, uint32_t wq)
{
	size_t at = mb.mb_start + sizeof (struct nlmsghdr);

	(void) memcpy(mb.mb_buf + at + offsetof(struct inet_diag_msg,
	    idiag_rqueue), &rq, sizeof (rq));
	(void) memcpy(mb.mb_buf + at + offsetof(struct inet_diag_msg,
	    idiag_wqueue), &wq, sizeof (wq));
}

ATF_TC_WITHOUT_HEAD(inet_queues);
ATF_TC_BODY(inet_queues, tc)
{
	struct in_addr lo = { htonl(INADDR_LOOPBACK) };
	uint8_t sd = 1;
	int err;

	mb_reset();
	/* CLOSE_WAIT: 6 bytes (5 and the FIN) to read, 2 to send. */
	mb_inet(AF_INET, TCP_CLOSE_WAIT, 1, 2, &lo, &lo, 0, 500);
	mb_inet_queues(6, 2);
	mb_attr(INET_DIAG_SHUTDOWN, &sd, 1);
	mb_meminfo_all(INET_DIAG_SKMEMINFO, 0, 0, 1664, 768);
	mb_end();
	/* A listener: 3 waiting of 511. */
	mb_inet(AF_INET, TCP_LISTEN, 1, 0, &lo, &lo, 0, 501);
	mb_inet_queues(3, 511);
	mb_end();
	ATF_REQUIRE_EQ(parse_as(AF_INET, IPPROTO_TCP, &err), DIAG_MORE);
	ATF_REQUIRE_EQ(nrecs, 2);
	ATF_CHECK_EQ(recs[0].ds_state, TCP_CLOSE_WAIT);
	ATF_CHECK(recs[0].ds_have & DS_RQLEN);
	ATF_CHECK_EQ(recs[0].ds_rqlen, 6);
	ATF_CHECK_EQ(recs[0].ds_wqlen, 2);
	ATF_CHECK(recs[0].ds_have & DS_SHUTDOWN);
	ATF_CHECK_EQ(recs[0].ds_shutdown, DS_SHUT_RD);
	ATF_CHECK(recs[0].ds_have & DS_MEM);
	ATF_CHECK_EQ(recs[0].ds_rmem, 1664);
	ATF_CHECK_EQ(recs[0].ds_wmem, 768);
	ATF_CHECK_EQ(recs[1].ds_state, TCP_LISTEN);
	ATF_CHECK_EQ(recs[1].ds_rqlen, 3);
	ATF_CHECK_EQ(recs[1].ds_wqlen, 511);
	ATF_CHECK(!(recs[1].ds_have & (DS_MEM | DS_SHUTDOWN)));
	ATF_CHECK_EQ(recs[1].ds_rmem, 0);

	/* A meminfo one word short of what the parser reads: malformed. */
	mb_reset();
	mb_inet(AF_INET, TCP_ESTABLISHED, 1, 2, &lo, &lo, 0, 502);
	{
		uint32_t m[SK_MEMINFO_SNDBUF];

		(void) memset(m, 0, sizeof (m));
		mb_attr(INET_DIAG_SKMEMINFO, m, sizeof (m));
	}
	mb_end();
	ATF_CHECK_EQ(parse_as(AF_INET, IPPROTO_UDP, &err), DIAG_ERROR);
	ATF_CHECK_EQ(err, EBADMSG);
}

/* A netlink record of inode ino, with a groups attribute of len bytes. */
static void
mb_netlink_groups(uint32_t ino, const void *bm, size_t len)
{
	struct netlink_diag_msg n;

	(void) memset(&n, 0, sizeof (n));
	n.ndiag_family = AF_NETLINK;
	n.ndiag_type = SOCK_RAW;
	n.ndiag_protocol = NETLINK_ROUTE;
	n.ndiag_portid = 99;
	n.ndiag_ino = ino;
	mb_msg(SOCK_DIAG_BY_FAMILY, SEQ);
	mb_put(&n, sizeof (n));
	if (bm != NULL)
		mb_attr(NETLINK_DIAG_GROUPS, bm, len);
	mb_end();
}

/*
 * The groups' words as NETLINK_LIST_MEMBERSHIPS gives them: group g is
 * bit (g - 1) % 32 of word (g - 1) / 32.
 */
static void
words_of(const unsigned *g, size_t n, uint32_t *w, size_t nw)
{
	(void) memset(w, 0, nw * sizeof (*w));
	for (size_t i = 0; i < n; i++)
		if ((g[i] - 1) / 32 < nw)
			w[(g[i] - 1) / 32] |= 1U << ((g[i] - 1) % 32);
}

ATF_TC_WITHOUT_HEAD(netlink_groups);
ATF_TC_BODY(netlink_groups, tc)
{
	/* The kernel's bitmap: group g is bit (g - 1) of the longs. */
	enum { BITS = sizeof (unsigned long) * 8, NLONG = 2100 / BITS + 1 };
	static const unsigned groups[] = { 1, 3, 32, 33, 35, 64, 65, 100,
	    2047, 2048, 2049, 2100 };
	const size_t ng = sizeof (groups) / sizeof (groups[0]);
	unsigned long bm[NLONG], one = 1;
	uint32_t want[DIAG_NLGROUPS_MAX];
	struct sockaddr_nl nl;
	size_t partial = sizeof (unsigned long) / 2;
	int err;

	(void) memset(bm, 0, sizeof (bm));
	for (size_t i = 0; i < ng; i++)
		bm[(groups[i] - 1) / BITS] |= one << ((groups[i] - 1) % BITS);
	mb_reset();
	mb_netlink_groups(60, bm, sizeof (bm));		/* past the kept */
	mb_netlink_groups(61, bm, sizeof (unsigned long));	/* one long */
	mb_netlink_groups(62, bm, partial);		/* half a long */
	mb_netlink_groups(63, bm, 0);			/* none */
	mb_netlink_groups(64, NULL, 0);			/* no attribute */
	ATF_REQUIRE_EQ(parse_as(AF_NETLINK, 0, &err), DIAG_MORE);
	ATF_REQUIRE_EQ(nrecs, 5);

	/* Every word up to the 64th: groups 2049 and 2100 are not kept. */
	words_of(groups, ng, want, DIAG_NLGROUPS_MAX);
	ATF_CHECK_EQ(recs[0].ds_ngroups, DIAG_NLGROUPS_MAX);
	for (size_t i = 0; i < DIAG_NLGROUPS_MAX; i++)
		ATF_CHECK_EQ_MSG(recs[0].ds_groups[i], want[i], "word %zu: "
		    "0x%08x, not 0x%08x", i, recs[0].ds_groups[i], want[i]);
	(void) memcpy(&nl, &recs[0].ds_name, sizeof (nl));
	ATF_CHECK_EQ(nl.nl_groups, want[0]);
	ATF_CHECK_EQ(nl.nl_groups, 0x80000005U);

	/* One long: the words it holds. */
	ATF_CHECK_EQ(recs[1].ds_ngroups, sizeof (unsigned long) / 4);
	for (size_t i = 0; i < recs[1].ds_ngroups && i < DIAG_NLGROUPS_MAX;
	    i++)
		ATF_CHECK_EQ(recs[1].ds_groups[i], want[i]);
	/* Part of a long, none, or no attribute: no word. */
	for (int r = 2; r < 5; r++) {
		ATF_CHECK_EQ_MSG(recs[r].ds_ngroups, 0, "record %d", r);
		(void) memcpy(&nl, &recs[r].ds_name, sizeof (nl));
		ATF_CHECK_EQ(nl.nl_groups, 0);
		ATF_CHECK_EQ(nl.nl_pid, 99);
	}
	/* Netlink records alone have groups. */
	ATF_CHECK_EQ(recs[0].ds_ifindex, 0);
	ATF_CHECK(!(recs[0].ds_have & DS_IFINDEX));
}

/* A packet record: type, protocol (host order), an info of ilen bytes. */
static void
mb_packet(int type, uint16_t num, uint32_t ino, uint32_t ifindex,
    size_t ilen)
{
	struct packet_diag_msg p;
	struct packet_diag_info pi;

	(void) memset(&p, 0, sizeof (p));
	p.pdiag_family = AF_PACKET;
	p.pdiag_type = (uint8_t)type;
	p.pdiag_num = num;
	p.pdiag_ino = ino;
	(void) memset(&pi, 0, sizeof (pi));
	pi.pdi_index = ifindex;
	pi.pdi_version = 2;
	mb_msg(SOCK_DIAG_BY_FAMILY, SEQ);
	mb_put(&p, sizeof (p));
	if (ilen > 0)
		mb_attr(PACKET_DIAG_INFO, &pi, ilen);
	mb_end();
}

ATF_TC_WITHOUT_HEAD(packet_names);
ATF_TC_BODY(packet_names, tc)
{
	struct sockaddr_ll want;
	int err;

	mb_reset();
	mb_packet(SOCK_DGRAM, 0x0806, 80, 3, sizeof (struct packet_diag_info));
	mb_packet(SOCK_RAW, 0x0003, 81, 0, sizeof (struct packet_diag_info));
	/* getsockname gives a sockaddr_pkt: the family alone here. */
	mb_packet(SOCK_PACKET, 0x0800, 82, 3, sizeof (struct packet_diag_info));
	mb_packet(SOCK_DGRAM, 0x0800, 83, 3, 0);	/* no info */
	ATF_REQUIRE_EQ(parse_as(AF_PACKET, 0, &err), DIAG_MORE);
	ATF_REQUIRE_EQ(nrecs, 4);

	(void) memset(&want, 0, sizeof (want));
	want.sll_family = AF_PACKET;
	want.sll_protocol = htons(0x0806);
	want.sll_ifindex = 3;
	ATF_CHECK(recs[0].ds_have & DS_IFINDEX);
	ATF_CHECK_EQ(recs[0].ds_ifindex, 3);
	ATF_CHECK_EQ(recs[0].ds_namelen, 12);
	ATF_CHECK(memcmp(&recs[0].ds_name, &want, 12) == 0);
	want.sll_protocol = htons(0x0003);
	want.sll_ifindex = 0;
	ATF_CHECK_EQ(recs[1].ds_namelen, 12);
	ATF_CHECK(memcmp(&recs[1].ds_name, &want, 12) == 0);
	ATF_CHECK(recs[2].ds_have & DS_IFINDEX);
	ATF_CHECK_EQ(recs[2].ds_ifindex, 3);
	ATF_CHECK_EQ(recs[2].ds_namelen, sizeof (sa_family_t));
	ATF_CHECK_EQ(recs[2].ds_name.ss_family, AF_PACKET);
	ATF_CHECK(!(recs[3].ds_have & DS_IFINDEX));
	ATF_CHECK_EQ(recs[3].ds_namelen, sizeof (sa_family_t));
	for (int r = 0; r < 4; r++)
		ATF_CHECK(!(recs[r].ds_have & DS_PEER));

	/* An info one byte short of its structure: malformed. */
	mb_reset();
	mb_packet(SOCK_DGRAM, 0x0800, 84, 3,
	    sizeof (struct packet_diag_info) - 1);
	ATF_CHECK_EQ(parse_as(AF_PACKET, 0, &err), DIAG_ERROR);
	ATF_CHECK_EQ(err, EBADMSG);
	ATF_CHECK_EQ(nrecs, 0);
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

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, build_requests);
	ATF_TP_ADD_TC(tp, inet4_names_and_facts);
	ATF_TP_ADD_TC(tp, inet6_scope_and_raw);
	ATF_TP_ADD_TC(tp, unix_names_and_peers);
	ATF_TP_ADD_TC(tp, netlink_and_packet);
	ATF_TP_ADD_TC(tp, inet_queues);
	ATF_TP_ADD_TC(tp, netlink_groups);
	ATF_TP_ADD_TC(tp, packet_names);
	ATF_TP_ADD_TC(tp, malformed);
	return (atf_no_error());
}
