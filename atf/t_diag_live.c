/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_diag_live: the NETLINK_SOCK_DIAG reply parser (diag_parse.c) on real
 * replies of the running kernel about sockets this test opens itself,
 * compared with what getsockname(2), getpeername(2), getsockopt(2) and
 * fstat(2) say of the same sockets.  Expected values come from the
 * test's own view, never from the parser; t_diag_parse holds the
 * replies built byte by byte.
 *
 *   - live_kernel: names, peers, buffers, types of every kind of socket.
 *   - live_states: the state and queues of sockets in the states that
 *     matter (a listener with clients it has not accepted, bytes not
 *     read, CLOSE_WAIT with its FIN, CLOSE after a reset with bytes not
 *     read, UDP datagrams queued, unix streams, listeners and
 *     datagrams), a netlink socket's groups above 32, a packet socket's
 *     interface and protocol (as root), against TCP_INFO, SIOCINQ,
 *     SIOCOUTQ, SO_MEMINFO, NETLINK_LIST_MEMBERSHIPS and getsockname.
 *   - pfiles_states: pfiles --via=diag on this very process with the
 *     same sockets: each one's state line, and its netlink groups,
 *     exactly as the same calls give them; the queues of the socket in
 *     CLOSE after a reset, which the tables cannot tell, left out and
 *     named on stderr.
 */
#include <linux/if_ether.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>

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

/* ------------------------------------------------------------------ */
/* Sockets in the states that matter, and their own view of them. */

#define	WAIT_MS		5000	/* for loopback traffic to settle */

/* Until cond holds: every loop bounded. */
#define	WAIT_FOR(cond, what)	do {					\
	long long t0_ = tu_now_ms();					\
									\
	while (!(cond)) {						\
		ATF_REQUIRE_MSG(tu_now_ms() - t0_ < WAIT_MS,		\
		    "waited %d ms for %s", WAIT_MS, (what));		\
		(void) usleep(1000);					\
	}								\
} while (0)

typedef struct live {
	int	lv_listen;	/* TCP, 2 clients not accepted (lv_pend) */
	int	lv_pend[2];
	int	lv_wr, lv_rd;	/* lv_rd has 11 bytes not read */
	int	lv_cw;		/* CLOSE_WAIT, 5 bytes and the FIN */
	int	lv_rst;		/* CLOSE after a reset, 4 bytes not read */
	int	lv_udp, lv_udps;	/* lv_udp has 2 datagrams queued */
	int	lv_us[2];	/* unix stream pair; lv_us[1] has 8 bytes */
	int	lv_ul;		/* unix listener of backlog 4 */
	int	lv_uc[2];	/* its clients, not accepted */
	int	lv_ud[2];	/* unix datagram pair; lv_ud[1] has two */
	int	lv_nl;		/* netlink route in groups 1 and 33 */
	int	lv_pk;		/* packet bound to lo, ETH_P_IP; -1: none */
} live_t;

static int
ioctl_int(int fd, unsigned long req)
{
	int v = -1;

	ATF_REQUIRE_MSG(ioctl(fd, req, &v) == 0, "ioctl %lu of fd %d: %s",
	    req, fd, strerror(errno));
	return (v);
}

static struct tcp_info
tcp_info_of(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof (ti);

	(void) memset(&ti, 0, sizeof (ti));
	ATF_REQUIRE(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0);
	return (ti);
}

/* SO_MEMINFO's word i. */
static uint32_t
meminfo_of(int fd, int i)
{
	uint32_t m[SK_MEMINFO_VARS];
	socklen_t len = sizeof (m);

	(void) memset(m, 0, sizeof (m));
	ATF_REQUIRE(getsockopt(fd, SOL_SOCKET, SO_MEMINFO, m, &len) == 0);
	ATF_REQUIRE(len > (socklen_t)(i * sizeof (m[0])));
	return (m[i]);
}

static struct sockaddr_in
loopback_any(void)
{
	struct sockaddr_in sin;

	(void) memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return (sin);
}

/* A client of l, and its accepted end in *ap. */
static int
tcp_connected(int l, int *ap, int client_port)
{
	struct sockaddr_in sin = loopback_any();
	socklen_t len = sizeof (sin);
	int c = socket(AF_INET, SOCK_STREAM, 0);

	ATF_REQUIRE(c >= 0);
	if (client_port != 0) {
		struct sockaddr_in me = loopback_any();

		me.sin_port = htons((uint16_t)client_port);
		if (bind(c, (struct sockaddr *)&me, sizeof (me)) != 0) {
			(void) close(c);
			return (-1);
		}
	}
	ATF_REQUIRE(getsockname(l, (struct sockaddr *)&sin, &len) == 0);
	ATF_REQUIRE(connect(c, (struct sockaddr *)&sin, len) == 0);
	if (ap != NULL)
		ATF_REQUIRE((*ap = accept(l, NULL, NULL)) >= 0);
	return (c);
}

/* A free port of the loopback address, as the kernel picks one. */
static int
free_port(void)
{
	struct sockaddr_in sin = loopback_any();
	socklen_t len = sizeof (sin);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	ATF_REQUIRE(s >= 0);
	ATF_REQUIRE(bind(s, (struct sockaddr *)&sin, len) == 0);
	ATF_REQUIRE(getsockname(s, (struct sockaddr *)&sin, &len) == 0);
	(void) close(s);
	return (ntohs(sin.sin_port));
}

/*
 * A client in CLOSE after its peer sent 4 bytes and reset the
 * connection.  Bound to a port of its own choosing, so that it stays in
 * the table of bound sockets, which the dumps list (a socket whose port
 * the kernel picked is in no table once closed).
 */
static int
tcp_reset_client(int l)
{
	struct linger lg = { 1, 0 };
	int c = -1, a;

	for (int t = 0; t < 16 && c < 0; t++)
		c = tcp_connected(l, &a, free_port());
	ATF_REQUIRE_MSG(c >= 0, "no port of our choosing could be bound");
	ATF_REQUIRE(write(a, "rset", 4) == 4);
	WAIT_FOR(ioctl_int(c, SIOCINQ) == 4, "4 bytes to arrive");
	ATF_REQUIRE(setsockopt(a, SOL_SOCKET, SO_LINGER, &lg,
	    sizeof (lg)) == 0);
	(void) close(a);
	WAIT_FOR(tcp_info_of(c).tcpi_state == TCP_CLOSE, "the reset");
	return (c);
}

static void
live_tcp(live_t *lv)
{
	struct sockaddr_in sin = loopback_any();
	int a;

	lv->lv_listen = socket(AF_INET, SOCK_STREAM, 0);
	ATF_REQUIRE(lv->lv_listen >= 0);
	ATF_REQUIRE(bind(lv->lv_listen, (struct sockaddr *)&sin,
	    sizeof (sin)) == 0);
	ATF_REQUIRE(listen(lv->lv_listen, 4) == 0);

	lv->lv_wr = tcp_connected(lv->lv_listen, &lv->lv_rd, 0);
	ATF_REQUIRE(write(lv->lv_wr, "eleven byte", 11) == 11);
	WAIT_FOR(ioctl_int(lv->lv_rd, SIOCINQ) == 11 &&
	    ioctl_int(lv->lv_wr, SIOCOUTQ) == 0, "11 bytes, acknowledged");

	lv->lv_cw = tcp_connected(lv->lv_listen, &a, 0);
	ATF_REQUIRE(write(a, "fiveb", 5) == 5);
	(void) close(a);
	WAIT_FOR(tcp_info_of(lv->lv_cw).tcpi_state == TCP_CLOSE_WAIT &&
	    ioctl_int(lv->lv_cw, SIOCINQ) == 5, "CLOSE_WAIT");

	lv->lv_rst = tcp_reset_client(lv->lv_listen);

	/* Last: these two stay in the accept queue. */
	for (int i = 0; i < 2; i++)
		lv->lv_pend[i] = tcp_connected(lv->lv_listen, NULL, 0);
	WAIT_FOR(tcp_info_of(lv->lv_listen).tcpi_unacked == 2,
	    "2 connections in the accept queue");
}

static void
live_udp(live_t *lv)
{
	struct sockaddr_in sin = loopback_any();
	socklen_t len = sizeof (sin);
	char buf[100];

	lv->lv_udp = socket(AF_INET, SOCK_DGRAM, 0);
	lv->lv_udps = socket(AF_INET, SOCK_DGRAM, 0);
	ATF_REQUIRE(lv->lv_udp >= 0 && lv->lv_udps >= 0);
	ATF_REQUIRE(bind(lv->lv_udp, (struct sockaddr *)&sin, len) == 0);
	ATF_REQUIRE(getsockname(lv->lv_udp, (struct sockaddr *)&sin,
	    &len) == 0);
	(void) memset(buf, 'u', sizeof (buf));
	ATF_REQUIRE(sendto(lv->lv_udps, buf, 100, 0, (struct sockaddr *)&sin,
	    len) == 100);
	ATF_REQUIRE(sendto(lv->lv_udps, buf, 50, 0, (struct sockaddr *)&sin,
	    len) == 50);
	WAIT_FOR(ioctl_int(lv->lv_udp, SIOCINQ) == 100, "a datagram");
}

static void
live_unix(live_t *lv)
{
	struct sockaddr_un sun;
	socklen_t len;
	char d[30];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, lv->lv_us) == 0);
	ATF_REQUIRE(write(lv->lv_us[0], "unixdata", 8) == 8);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_DGRAM, 0, lv->lv_ud) == 0);
	(void) memset(d, 'd', sizeof (d));
	ATF_REQUIRE(write(lv->lv_ud[0], d, 20) == 20);
	ATF_REQUIRE(write(lv->lv_ud[0], d, 30) == 30);

	(void) memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	(void) snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
	    "t_diag_live.states.%d", (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(sun.sun_path + 1));
	lv->lv_ul = socket(AF_UNIX, SOCK_STREAM, 0);
	ATF_REQUIRE(lv->lv_ul >= 0);
	ATF_REQUIRE(bind(lv->lv_ul, (struct sockaddr *)&sun, len) == 0);
	ATF_REQUIRE(listen(lv->lv_ul, 4) == 0);
	for (int i = 0; i < 2; i++) {
		lv->lv_uc[i] = socket(AF_UNIX, SOCK_STREAM, 0);
		ATF_REQUIRE(connect(lv->lv_uc[i], (struct sockaddr *)&sun,
		    len) == 0);
	}
}

/* netlink route in RTNLGRP_LINK (by bind) and in group 33 (joined). */
static void
live_other(live_t *lv)
{
	struct sockaddr_nl nl;
	struct sockaddr_ll sll;
	int g = 33;

	(void) memset(&nl, 0, sizeof (nl));
	nl.nl_family = AF_NETLINK;
	nl.nl_groups = RTMGRP_LINK;
	lv->lv_nl = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	ATF_REQUIRE(lv->lv_nl >= 0);
	ATF_REQUIRE(bind(lv->lv_nl, (struct sockaddr *)&nl, sizeof (nl)) == 0);
	ATF_REQUIRE_MSG(setsockopt(lv->lv_nl, SOL_NETLINK,
	    NETLINK_ADD_MEMBERSHIP, &g, sizeof (g)) == 0,
	    "NETLINK_ADD_MEMBERSHIP 33: %s", strerror(errno));

	(void) memset(&sll, 0, sizeof (sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_IP);
	sll.sll_ifindex = (int)if_nametoindex("lo");
	if ((lv->lv_pk = socket(AF_PACKET, SOCK_DGRAM, 0)) < 0) {
		(void) printf("no packet socket here: %s\n", strerror(errno));
		return;
	}
	ATF_REQUIRE(sll.sll_ifindex > 0);
	ATF_REQUIRE(bind(lv->lv_pk, (struct sockaddr *)&sll,
	    sizeof (sll)) == 0);
}

static void
live_open(live_t *lv)
{
	live_tcp(lv);
	live_udp(lv);
	live_unix(lv);
	live_other(lv);
}

/* NETLINK_LIST_MEMBERSHIPS: the words, how many (at most max). */
static size_t
memberships(int fd, uint32_t *w, size_t max)
{
	socklen_t len = (socklen_t)(max * sizeof (*w));

	(void) memset(w, 0, max * sizeof (*w));
	ATF_REQUIRE(getsockopt(fd, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, w,
	    &len) == 0);
	ATF_REQUIRE(len <= max * sizeof (*w));
	return (len / sizeof (*w));
}

/* The record of fd among the owns, or NULL (found none). */
static const diag_sock_t *
rec_of(int fd)
{
	for (int i = 0; i < nowns; i++)
		if (owns[i].o_fd == fd && owns[i].o_found > 0)
			return (&owns[i].o_rec);
	return (NULL);
}

static const diag_sock_t *
must_rec(int fd)
{
	const diag_sock_t *d = rec_of(fd);

	ATF_REQUIRE_MSG(d != NULL, "fd %d is in no dump", fd);
	return (d);
}

static void
live_own(const live_t *lv)
{
	const int tcp[] = { lv->lv_listen, lv->lv_wr, lv->lv_rd, lv->lv_cw,
	    lv->lv_rst, lv->lv_pend[0], lv->lv_pend[1] };
	const int unx[] = { lv->lv_us[0], lv->lv_us[1], lv->lv_ul,
	    lv->lv_uc[0], lv->lv_uc[1], lv->lv_ud[0], lv->lv_ud[1] };

	nowns = 0;
	for (size_t i = 0; i < sizeof (tcp) / sizeof (tcp[0]); i++)
		own_add(tcp[i], AF_INET, IPPROTO_TCP);
	own_add(lv->lv_udp, AF_INET, IPPROTO_UDP);
	own_add(lv->lv_udps, AF_INET, IPPROTO_UDP);
	for (size_t i = 0; i < sizeof (unx) / sizeof (unx[0]); i++)
		own_add(unx[i], AF_UNIX, 0);
	own_add(lv->lv_nl, AF_NETLINK, 0);
	if (lv->lv_pk >= 0)
		own_add(lv->lv_pk, AF_PACKET, 0);
}

/* A record's queues (UNIX_DIAG_RQLEN, idiag_rqueue and idiag_wqueue). */
static void
check_queues(int fd, uint32_t rq, uint32_t wq)
{
	const diag_sock_t *d = must_rec(fd);

	ATF_CHECK(d->ds_have & DS_RQLEN);
	ATF_CHECK_EQ_MSG(d->ds_rqlen, rq, "fd %d: %u to read, not %u", fd,
	    d->ds_rqlen, rq);
	ATF_CHECK_EQ_MSG(d->ds_wqlen, wq, "fd %d: %u to send, not %u", fd,
	    d->ds_wqlen, wq);
}

/* A TCP socket's record: its state (TCP_INFO's), and its counters. */
static void
check_tcp(int fd, uint32_t rq, uint32_t wq)
{
	ATF_CHECK_EQ_MSG(must_rec(fd)->ds_state, tcp_info_of(fd).tcpi_state,
	    "fd %d: state %d", fd, must_rec(fd)->ds_state);
	check_queues(fd, rq, wq);
}

static void
check_tcps(const live_t *lv)
{
	struct tcp_info ti = tcp_info_of(lv->lv_listen);
	const diag_sock_t *d;

	/* A listener: connections waiting, and the limit (TCP_INFO's). */
	check_tcp(lv->lv_listen, 2, ti.tcpi_sacked);
	ATF_CHECK_EQ(ti.tcpi_unacked, 2);
	ATF_CHECK_EQ(ti.tcpi_sacked, 4);
	check_tcp(lv->lv_rd, 11, 0);
	check_tcp(lv->lv_wr, 0, 0);
	/* CLOSE_WAIT: the FIN is counted, one more than SIOCINQ says. */
	check_tcp(lv->lv_cw, (uint32_t)ioctl_int(lv->lv_cw, SIOCINQ) + 1,
	    (uint32_t)ioctl_int(lv->lv_cw, SIOCOUTQ));
	d = must_rec(lv->lv_cw);
	ATF_CHECK((d->ds_have & DS_SHUTDOWN) && (d->ds_shutdown & DS_SHUT_RD));
	/* After a reset: no FIN, RCV_SHUTDOWN set all the same. */
	if ((d = rec_of(lv->lv_rst)) == NULL) {
		(void) printf("this kernel lists no TCP socket that is bound "
		    "and closed\n");
		return;
	}
	check_tcp(lv->lv_rst, 4, 0);
	ATF_CHECK((d->ds_have & DS_SHUTDOWN) && (d->ds_shutdown & DS_SHUT_RD));
}

static void
check_others(const live_t *lv)
{
	const int unx[] = { lv->lv_us[0], lv->lv_us[1], lv->lv_uc[0],
	    lv->lv_ud[0], lv->lv_ud[1] };
	uint32_t w[DIAG_NLGROUPS_MAX];
	const diag_sock_t *d;
	size_t n;

	for (int i = 0; i < 2; i++) {
		int fd = i == 0 ? lv->lv_udp : lv->lv_udps;

		d = must_rec(fd);
		ATF_CHECK(d->ds_have & DS_MEM);
		ATF_CHECK_EQ(d->ds_rmem, meminfo_of(fd, SK_MEMINFO_RMEM_ALLOC));
		ATF_CHECK_EQ(d->ds_wmem, meminfo_of(fd, SK_MEMINFO_WMEM_ALLOC));
	}
	ATF_CHECK(must_rec(lv->lv_udp)->ds_rmem > 0);
	for (size_t i = 0; i < sizeof (unx) / sizeof (unx[0]); i++)
		check_queues(unx[i], (uint32_t)ioctl_int(unx[i], SIOCINQ),
		    (uint32_t)ioctl_int(unx[i], SIOCOUTQ));
	ATF_CHECK_EQ(ioctl_int(lv->lv_us[1], SIOCINQ), 8);
	check_queues(lv->lv_ul, 2, 4);
	ATF_CHECK_EQ(must_rec(lv->lv_ul)->ds_state, TCP_LISTEN);

	/* Every word LIST_MEMBERSHIPS gives; any further one 0. */
	d = must_rec(lv->lv_nl);
	n = memberships(lv->lv_nl, w, DIAG_NLGROUPS_MAX);
	ATF_REQUIRE(n >= 2);
	ATF_CHECK_EQ(w[0], RTMGRP_LINK);
	ATF_CHECK_EQ(w[1], 1U);
	ATF_CHECK_MSG(d->ds_ngroups >= n, "%u words, not %zu", d->ds_ngroups,
	    n);
	for (size_t i = 0; i < d->ds_ngroups && i < DIAG_NLGROUPS_MAX; i++)
		ATF_CHECK_EQ_MSG(d->ds_groups[i], i < n ? w[i] : 0,
		    "word %zu: 0x%08x", i, d->ds_groups[i]);
}

static void
check_packet(const live_t *lv)
{
	struct sockaddr_ll got, want;
	socklen_t len = sizeof (want);
	const diag_sock_t *d;

	if (lv->lv_pk < 0)
		return;
	d = must_rec(lv->lv_pk);
	ATF_REQUIRE(getsockname(lv->lv_pk, (struct sockaddr *)&want,
	    &len) == 0);
	ATF_CHECK(d->ds_have & DS_IFINDEX);
	ATF_CHECK_EQ((int)d->ds_ifindex, want.sll_ifindex);
	ATF_CHECK_EQ(d->ds_protocol, ETH_P_IP);
	/* getsockname's up to the hardware type; the rest no dump has. */
	ATF_CHECK_EQ(d->ds_namelen, offsetof(struct sockaddr_ll, sll_addr));
	(void) memcpy(&got, &d->ds_name, sizeof (got));
	ATF_CHECK_EQ(got.sll_family, want.sll_family);
	ATF_CHECK_EQ(got.sll_protocol, want.sll_protocol);
	ATF_CHECK_EQ(got.sll_ifindex, want.sll_ifindex);
}

ATF_TC_WITHOUT_HEAD(live_states);
ATF_TC_BODY(live_states, tc)
{
	live_t lv;

	live_open(&lv);
	live_own(&lv);
	for (size_t i = 0; i < diag_nreqs; i++)
		if (live_dump(&diag_reqs[i]) != 0)
			ATF_REQUIRE_MSG(diag_reqs[i].dr_family != AF_NETLINK &&
			    diag_reqs[i].dr_family != AF_UNIX &&
			    diag_reqs[i].dr_protocol != IPPROTO_TCP,
			    "the dump of family %d protocol %d was refused",
			    diag_reqs[i].dr_family, diag_reqs[i].dr_protocol);
	check_tcps(&lv);
	check_others(&lv);
	check_packet(&lv);
}

/* ------------------------------------------------------------------ */
/* pfiles --via=diag on the same sockets. */

static const char *
tcp_state_name(int st)
{
	static const char *const names[] = { "?", "ESTABLISHED", "SYN_SENT",
	    "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE",
	    "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV" };

	ATF_REQUIRE(st > 0 && st < (int)(sizeof (names) / sizeof (names[0])));
	return (names[st]);
}

/* The state line of fd, as the calls give its facts; malloc'd. */
static char *
want_line(const live_t *lv, int fd)
{
	if (fd == lv->lv_listen) {
		struct tcp_info ti = tcp_info_of(fd);

		return (tu_asprintf("\tstate: LISTEN  backlog: %u of %u",
		    ti.tcpi_unacked, ti.tcpi_sacked));
	}
	if (fd == lv->lv_rst)	/* the tables cannot tell its queues */
		return (tu_asprintf("\tstate: CLOSE"));
	if (fd == lv->lv_udp || fd == lv->lv_udps)
		return (tu_asprintf("\tqueued: %u to read, %u to send",
		    meminfo_of(fd, SK_MEMINFO_RMEM_ALLOC),
		    meminfo_of(fd, SK_MEMINFO_WMEM_ALLOC)));
	if (fd == lv->lv_ul)
		return (tu_asprintf("\tstate: LISTEN  backlog: 2 of 4"));
	if (fd == lv->lv_ud[0] || fd == lv->lv_ud[1])
		return (tu_asprintf("\tqueued: %d to read, %d to send",
		    ioctl_int(fd, SIOCINQ), ioctl_int(fd, SIOCOUTQ)));
	if (fd == lv->lv_us[0] || fd == lv->lv_us[1] || fd == lv->lv_uc[0] ||
	    fd == lv->lv_uc[1])
		return (tu_asprintf("\tstate: CONNECTED  queued: %d to read, "
		    "%d to send", ioctl_int(fd, SIOCINQ),
		    ioctl_int(fd, SIOCOUTQ)));
	return (tu_asprintf("\tstate: %s  queued: %d to read, %d to send",
	    tcp_state_name(tcp_info_of(fd).tcpi_state),
	    ioctl_int(fd, SIOCINQ), ioctl_int(fd, SIOCOUTQ)));
}

/* The netlink socket's sockname line, groups from LIST_MEMBERSHIPS. */
static char *
want_nl_line(int fd)
{
	struct sockaddr_nl nl;
	socklen_t len = sizeof (nl);
	uint32_t w[DIAG_NLGROUPS_MAX];
	size_t n = memberships(fd, w, DIAG_NLGROUPS_MAX);
	char *line, *more;

	ATF_REQUIRE(getsockname(fd, (struct sockaddr *)&nl, &len) == 0);
	while (n > 1 && w[n - 1] == 0)
		n--;
	line = tu_asprintf("\tsockname: AF_NETLINK NETLINK_ROUTE  pid: %u  "
	    "groups: 0x%08x", nl.nl_pid, nl.nl_groups);
	for (size_t i = 1; i < n; i++) {
		more = tu_asprintf("%s,0x%08x", line, w[i]);
		free(line);
		line = more;
	}
	return (line);
}

/* The line of fd's block in out that starts with prefix; malloc'd. */
static char *
got_line(const char *out, int fd, const char *prefix)
{
	char *blk = tu_fd_block(out, fd), *line = NULL;

	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d", fd);
	for (const char *p = blk; p != NULL && *p != '\0' && line == NULL; ) {
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			line = tu_asprintf("%.*s", (int)strcspn(p, "\n"), p);
		p = strchr(p, '\n');
		p = p != NULL ? p + 1 : NULL;
	}
	free(blk);
	return (line != NULL ? line : tu_asprintf("(none)"));
}

/* "\nFD LINE" after *all; line is freed. */
static void
add_line(char **all, int fd, char *line)
{
	char *more = tu_asprintf("%s\n%d %s", *all, fd, line);

	free(line);
	free(*all);
	*all = more;
}

/* Every socket's expected line, the state's and the netlink one. */
static char *
want_all(const live_t *lv, const int *fds, size_t n)
{
	char *all = want_nl_line(lv->lv_nl);

	for (size_t i = 0; i < n; i++)
		add_line(&all, fds[i], want_line(lv, fds[i]));
	return (all);
}

ATF_TC_WITHOUT_HEAD(pfiles_states);
ATF_TC_BODY(pfiles_states, tc)
{
	live_t lv;
	char spid[16], *before, *after, *got;
	const char *const opts[] = { "--via=diag", "--no-endpoints", NULL };
	const char *pids[] = { spid, NULL };
	tu_result_t r;
	int rst_listed;

	live_open(&lv);
	/* Is the reset socket in the tables (a kernel that lists it)? */
	live_own(&lv);
	(void) live_dump(&(diag_req_t){ AF_INET, IPPROTO_TCP });
	rst_listed = rec_of(lv.lv_rst) != NULL;
	{
		const int fds[] = { lv.lv_listen, lv.lv_wr, lv.lv_rd, lv.lv_cw,
		    lv.lv_pend[0], lv.lv_udp, lv.lv_udps, lv.lv_us[0],
		    lv.lv_us[1], lv.lv_ul, lv.lv_uc[0], lv.lv_ud[0],
		    lv.lv_ud[1], rst_listed ? lv.lv_rst : lv.lv_wr };
		const size_t n = sizeof (fds) / sizeof (fds[0]);

		(void) snprintf(spid, sizeof (spid), "%d", (int)getpid());
		before = want_all(&lv, fds, n);
		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = opts,
		    .tp_pids = pids }, &r);
		after = want_all(&lv, fds, n);
		ATF_REQUIRE_MSG(strcmp(before, after) == 0, "the sockets "
		    "changed while pfiles ran:\n%s\n--\n%s", before, after);
		tu_write_file("diag.out", r.tr_out, r.tr_outlen);
		tu_write_file("diag.err", r.tr_err, r.tr_errlen);
		tu_require_exit("pfiles --via=diag", &r, 0);
		got = got_line(r.tr_out, lv.lv_nl, "\tsockname:");
		for (size_t i = 0; i < n; i++) {
			const char *pfx = fds[i] == lv.lv_udp ||
			    fds[i] == lv.lv_udps || fds[i] == lv.lv_ud[0] ||
			    fds[i] == lv.lv_ud[1] ? "\tqueued:" : "\tstate:";

			add_line(&got, fds[i], got_line(r.tr_out, fds[i], pfx));
		}
	}
	tu_require_same_text("states", before, strlen(before), got,
	    strlen(got));
	/* What the tables cannot tell is said, once. */
	if (rst_listed)
		ATF_CHECK_MSG(strstr(r.tr_err, ",queues (diag: ") != NULL,
		    "stderr does not name the queues:\n%s", r.tr_err);
	else
		(void) printf("this kernel lists no TCP socket that is bound "
		    "and closed\n");
	free(before);
	free(after);
	free(got);
	tu_result_free(&r);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, live_kernel);
	ATF_TP_ADD_TC(tp, live_states);
	ATF_TP_ADD_TC(tp, pfiles_states);
	return (atf_no_error());
}
