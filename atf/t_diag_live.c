/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_diag_live: the NETLINK_SOCK_DIAG reply parser (diag_parse.c) on real
 * replies of the running kernel about sockets this test opens itself,
 * compared with what getsockname(2), getpeername(2), getsockopt(2) and
 * fstat(2) say of the same sockets.  Expected values come from the
 * test's own view, never from the parser; t_diag_parse holds the
 * replies built byte by byte.
 */
#include "diagparse_util.h"

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
	ATF_TP_ADD_TC(tp, live_kernel);
	return (atf_no_error());
}
