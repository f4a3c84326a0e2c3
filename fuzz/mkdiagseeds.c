/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mkdiagseeds: write seed inputs for the diag harness (fuzz/diag.c) from
 * real NETLINK_SOCK_DIAG replies of this machine's kernel.
 *
 *	mkdiagseeds DIR
 *
 * opens one socket of each kind it can (TCP listening with a client not
 * accepted, connected with bytes unread, and accepted in CLOSE_WAIT; UDP
 * bound with datagrams queued, and connected; UDP-Lite, raw, MPTCP, each
 * over IPv4 and IPv6; unix stream named, abstract and unnamed, a
 * socketpair, unix datagram, a listening seqpacket socket; netlink route
 * with groups, one above 32 among them; packet bound to an interface),
 * then makes every dump of diag_reqs[] and writes, in the harness's input
 * format, into DIR (which must exist):
 *
 *   K-own-N	the record of one of its own sockets, as the kernel sent
 *		it (K names the dump: tcp4, unix, ...);
 *   K-mine	all its own records in one datagram, then the kernel's
 *		NLMSG_DONE;
 *   K-first	the first datagram the kernel sent, whole, when it is at
 *		most 4 KiB;
 *   K-done	the last datagram's NLMSG_DONE alone;
 *   K-error	the kernel's NLMSG_ERROR, for a dump it refused (a
 *		module that is not there);
 *   keep-*	hostile datagrams made from a real TCP record: a short
 *		nlmsg_len, an nlmsg_len past the datagram, an attribute
 *		past its message, an attribute length below 4, an
 *		NLMSG_ERROR amid a dump, NLMSG_DONE before the end, a wrong
 *		seq in the second message, a sender other than the kernel,
 *		a diag structure cut short;
 *   made-*	netlink and packet records built here: group bitmaps of no
 *		word, part of a long, and more words than are kept; a
 *		packet socket's info, whole, cut short, and on a
 *		SOCK_PACKET socket.
 *
 * The request is built by diag_build_req(), as libproc builds it.  Run as
 * root for raw and packet sockets; what cannot be opened is said on
 * stderr and passed over.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/packet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "netdiag/diag_parse.h"

#define	SEQ		0x5eed0001U
#define	MAXOWN		64
#define	RCVBUF		65536

static const char *dir;
static uint64_t own[MAXOWN];
static int nown;
static uint8_t tcp_rec[1024];	/* a real TCP record message, for keep-* */
static size_t tcp_reclen;

static void
keep_fd(int fd)
{
	struct stat st;

	if (fd < 0 || nown == MAXOWN || fstat(fd, &st) != 0)
		return;
	own[nown++] = st.st_ino;
}

static int
is_own(uint64_t ino)
{
	for (int i = 0; i < nown; i++)
		if (own[i] == ino)
			return (1);
	return (0);
}

/* Write one seed: the harness's 10-byte header, then the datagram. */
static void
write_seed(const char *name, int kind, uint32_t seq, uint32_t pid,
    uint8_t ctl, const void *dgram, size_t len)
{
	uint8_t hdr[10];
	char path[4096];
	FILE *f;

	hdr[0] = (uint8_t)kind;
	for (int i = 0; i < 4; i++) {
		hdr[1 + i] = (uint8_t)(seq >> (8 * i));
		hdr[5 + i] = (uint8_t)(pid >> (8 * i));
	}
	hdr[9] = ctl;
	(void) snprintf(path, sizeof (path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	if (fwrite(hdr, 1, sizeof (hdr), f) != sizeof (hdr) ||
	    (len > 0 && fwrite(dgram, 1, len, f) != len) || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* ------------------------------------------------------------------ */
/* The sockets. */

static void
say(const char *what)
{
	(void) fprintf(stderr, "mkdiagseeds: no %s: %s\n", what,
	    strerror(errno));
}

static void
open_inet(int family, int type, int proto, const char *name)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int l, c, a;

	(void) memset(&ss, 0, sizeof (ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof (*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_loopback;
		len = sizeof (*sin6);
	}
	if ((l = socket(family, type, proto)) < 0) {
		say(name);
		return;
	}
	if (bind(l, (struct sockaddr *)&ss, len) != 0 ||
	    getsockname(l, (struct sockaddr *)&ss, &len) != 0) {
		say(name);
		(void) close(l);
		return;
	}
	keep_fd(l);
	if (type == SOCK_STREAM) {
		if (listen(l, 8) != 0) {
			say(name);
			return;
		}
		if ((c = socket(family, type, proto)) < 0 ||
		    connect(c, (struct sockaddr *)&ss, len) != 0) {
			say(name);
			return;
		}
		keep_fd(c);
		if ((a = accept(l, NULL, NULL)) >= 0)
			keep_fd(a);
		/*
		 * Bytes the accepted end does not read, then half closed
		 * (INET_DIAG_SHUTDOWN): it is in CLOSE_WAIT, the FIN
		 * counted in its idiag_rqueue.
		 */
		(void) write(c, "seed", 4);
		(void) shutdown(c, SHUT_WR);
		/* A client left in the accept queue. */
		if ((c = socket(family, type, proto)) >= 0 &&
		    connect(c, (struct sockaddr *)&ss, len) == 0)
			keep_fd(c);
	} else {
		/* A second one, connected to the first, which it sends to. */
		if ((c = socket(family, type, proto)) < 0 ||
		    connect(c, (struct sockaddr *)&ss, len) != 0) {
			say(name);
			return;
		}
		keep_fd(c);
		(void) write(c, "queued", 6);
		(void) write(c, "queued too", 10);
	}
}

static void
open_raw(int family, int proto, const char *name)
{
	int s;

	if ((s = socket(family, SOCK_RAW, proto)) < 0) {
		say(name);
		return;
	}
	keep_fd(s);
}

static void
unix_addr(struct sockaddr_un *sun, socklen_t *lenp, const char *path,
    int abstract)
{
	(void) memset(sun, 0, sizeof (*sun));
	sun->sun_family = AF_UNIX;
	if (abstract) {
		(void) memcpy(sun->sun_path + 1, path, strlen(path));
		*lenp = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
		    1 + strlen(path));
	} else {
		(void) snprintf(sun->sun_path, sizeof (sun->sun_path), "%s",
		    path);
		*lenp = (socklen_t)sizeof (*sun);
	}
}

static void
open_unix(void)
{
	struct sockaddr_un sun;
	socklen_t len;
	char path[108];
	int l, c, sp[2];

	(void) snprintf(path, sizeof (path), "/tmp/mkdiagseeds.%d",
	    (int)getpid());
	(void) unlink(path);

	/* Named stream listener, a client and the accepted end. */
	unix_addr(&sun, &len, path, 0);
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sun, len) != 0 || listen(l, 8) != 0) {
		say("unix named");
	} else {
		keep_fd(l);
		if ((c = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0 &&
		    connect(c, (struct sockaddr *)&sun, len) == 0) {
			keep_fd(c);
			/* Left pending, for UNIX_DIAG_RQLEN of a listener. */
		}
	}
	(void) unlink(path);

	/* Abstract seqpacket listener and an accepted connection. */
	unix_addr(&sun, &len, "mkdiagseeds-abstract", 1);
	if ((l = socket(AF_UNIX, SOCK_SEQPACKET, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sun, len) != 0 || listen(l, 8) != 0) {
		say("unix abstract");
	} else {
		keep_fd(l);
		if ((c = socket(AF_UNIX, SOCK_SEQPACKET, 0)) >= 0 &&
		    connect(c, (struct sockaddr *)&sun, len) == 0) {
			keep_fd(c);
			keep_fd(accept(l, NULL, NULL));
		}
	}

	/* A socketpair, one end with data waiting. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0) {
		keep_fd(sp[0]);
		keep_fd(sp[1]);
		(void) write(sp[0], "seed", 4);
		(void) shutdown(sp[1], SHUT_RD);
	}

	/* An unnamed datagram socket, and an autobound one. */
	if ((c = socket(AF_UNIX, SOCK_DGRAM, 0)) >= 0)
		keep_fd(c);
	if ((c = socket(AF_UNIX, SOCK_DGRAM, 0)) >= 0) {
		(void) memset(&sun, 0, sizeof (sun));
		sun.sun_family = AF_UNIX;
		if (bind(c, (struct sockaddr *)&sun, sizeof (sa_family_t)) ==
		    0)
			keep_fd(c);
	}
}

static void
open_netlink(void)
{
	struct sockaddr_nl nl;
	int s, group = 33;

	(void) memset(&nl, 0, sizeof (nl));
	nl.nl_family = AF_NETLINK;
	nl.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR;
	if ((s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)) < 0 ||
	    bind(s, (struct sockaddr *)&nl, sizeof (nl)) != 0) {
		say("netlink route");
		return;
	}
	keep_fd(s);
	/* A group above 32: NETLINK_DIAG_GROUPS has them all. */
	if (setsockopt(s, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
	    sizeof (group)) != 0)
		say("netlink group 33");
}

static void
open_packet(void)
{
	struct sockaddr_ll sll;
	int s;

	if ((s = socket(AF_PACKET, SOCK_DGRAM, 0)) < 0) {
		say("packet");
		return;
	}
	keep_fd(s);
	/* One bound to the loopback interface, for ETH_P_IP. */
	(void) memset(&sll, 0, sizeof (sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_IP);
	sll.sll_ifindex = (int)if_nametoindex("lo");
	if ((s = socket(AF_PACKET, SOCK_DGRAM, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&sll, sizeof (sll)) != 0) {
		say("packet bound to lo");
		return;
	}
	keep_fd(s);
}

/* ------------------------------------------------------------------ */
/* The dumps. */

static const char *
kind_name(const diag_req_t *r)
{
	static char buf[32];
	const char *p;

	switch (r->dr_protocol) {
	case IPPROTO_TCP: p = "tcp"; break;
	case IPPROTO_UDP: p = "udp"; break;
	case IPPROTO_UDPLITE: p = "udplite"; break;
	case IPPROTO_RAW: p = "raw"; break;
	case IPPROTO_MPTCP: p = "mptcp"; break;
	default: p = NULL; break;
	}
	if (p != NULL) {
		(void) snprintf(buf, sizeof (buf), "%s%d", p,
		    r->dr_family == AF_INET ? 4 : 6);
		return (buf);
	}
	return (r->dr_family == AF_UNIX ? "unix" :
	    r->dr_family == AF_NETLINK ? "netlink" : "packet");
}

/* Where the inode of a record is, by family. */
static size_t
ino_offset(int family)
{
	switch (family) {
	case AF_INET:
	case AF_INET6:
		return (16 + 68);
	case AF_NETLINK:
		return (16 + 16);
	default:
		return (16 + 4);
	}
}

static void
dump(int kind)
{
	const diag_req_t *r = &diag_reqs[kind];
	static uint8_t buf[RCVBUF], mine[RCVBUF];
	uint8_t req[DIAG_REQ_MAX];
	struct sockaddr_nl kern, from;
	socklen_t fromlen;
	size_t reqlen, minelen = 0;
	char name[64];
	const char *k = kind_name(r);
	int s, first = 1, done = 0, nrec = 0;
	ssize_t n;

	if ((s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) < 0) {
		perror("mkdiagseeds: NETLINK_SOCK_DIAG");
		exit(1);
	}
	(void) memset(&kern, 0, sizeof (kern));
	kern.nl_family = AF_NETLINK;
	reqlen = diag_build_req(r, SEQ, req, sizeof (req));
	if (sendto(s, req, reqlen, 0, (struct sockaddr *)&kern,
	    sizeof (kern)) != (ssize_t)reqlen) {
		perror("mkdiagseeds: sendto");
		exit(1);
	}
	while (!done) {
		size_t off = 0;

		fromlen = sizeof (from);
		n = recvfrom(s, buf, sizeof (buf), 0, (struct sockaddr *)&from,
		    &fromlen);
		if (n <= 0) {
			perror("mkdiagseeds: recvfrom");
			break;
		}
		if (first && n <= 4096) {
			(void) snprintf(name, sizeof (name), "%s-first", k);
			write_seed(name, kind, SEQ, from.nl_pid, 0, buf,
			    (size_t)n);
		}
		first = 0;
		while (off + 16 <= (size_t)n) {
			struct nlmsghdr nh;
			uint32_t ino;

			(void) memcpy(&nh, buf + off, sizeof (nh));
			if (nh.nlmsg_len < 16 || nh.nlmsg_len > n - off)
				break;
			if (nh.nlmsg_type == NLMSG_ERROR) {
				(void) snprintf(name, sizeof (name),
				    "%s-error", k);
				write_seed(name, kind, SEQ, 0, 0, buf + off,
				    nh.nlmsg_len);
				done = 1;
				break;
			}
			if (nh.nlmsg_type == NLMSG_DONE) {
				(void) snprintf(name, sizeof (name), "%s-done",
				    k);
				write_seed(name, kind, SEQ, 0, 0, buf + off,
				    nh.nlmsg_len);
				if (minelen + nh.nlmsg_len <= sizeof (mine)) {
					(void) memcpy(mine + minelen, buf + off,
					    nh.nlmsg_len);
					(void) snprintf(name, sizeof (name),
					    "%s-mine", k);
					write_seed(name, kind, SEQ, 0, 0, mine,
					    minelen + nh.nlmsg_len);
				}
				done = 1;
				break;
			}
			if (nh.nlmsg_len >= ino_offset(r->dr_family) + 4) {
				(void) memcpy(&ino, buf + off +
				    ino_offset(r->dr_family), sizeof (ino));
				if (ino != 0 && is_own(ino)) {
					(void) snprintf(name, sizeof (name),
					    "%s-own-%d", k, nrec++);
					write_seed(name, kind, SEQ, 0, 0,
					    buf + off, nh.nlmsg_len);
					if (minelen + NLMSG_ALIGN(nh.nlmsg_len)
					    <= sizeof (mine)) {
						(void) memcpy(mine + minelen,
						    buf + off, nh.nlmsg_len);
						minelen += NLMSG_ALIGN(
						    nh.nlmsg_len);
					}
					if (r->dr_protocol == IPPROTO_TCP &&
					    r->dr_family == AF_INET &&
					    tcp_reclen == 0 &&
					    nh.nlmsg_len <= sizeof (tcp_rec)) {
						(void) memcpy(tcp_rec,
						    buf + off, nh.nlmsg_len);
						tcp_reclen = nh.nlmsg_len;
					}
				}
			}
			off += NLMSG_ALIGN(nh.nlmsg_len);
		}
	}
	(void) close(s);
	(void) fprintf(stderr, "mkdiagseeds: %s: %d own records\n", k, nrec);
}

/* ------------------------------------------------------------------ */
/* The hostile ones, from the real TCP record. */

static void
put_u32(uint8_t *p, uint32_t v)
{
	(void) memcpy(p, &v, sizeof (v));
}

static void
put_u16(uint8_t *p, uint16_t v)
{
	(void) memcpy(p, &v, sizeof (v));
}

/* A message of type with a 4-byte payload v, at p; returns its length. */
static size_t
small_msg(uint8_t *p, uint16_t type, int32_t v)
{
	struct nlmsghdr nh;

	(void) memset(&nh, 0, sizeof (nh));
	nh.nlmsg_len = 20;
	nh.nlmsg_type = type;
	nh.nlmsg_flags = NLM_F_MULTI;
	nh.nlmsg_seq = SEQ;
	(void) memcpy(p, &nh, sizeof (nh));
	(void) memcpy(p + 16, &v, sizeof (v));
	return (20);
}

static void
hostile(void)
{
	static uint8_t b[4096];
	size_t rl = NLMSG_ALIGN(tcp_reclen), n;
	const int k = 0;	/* diag_reqs[0] is TCP over IPv4 */

	if (tcp_reclen < 16 + 72 + 8) {
		(void) fprintf(stderr, "mkdiagseeds: no TCP record with "
		    "attributes: no keep-* seeds\n");
		return;
	}
	/* Two records, then a real-looking NLMSG_DONE. */
	(void) memcpy(b, tcp_rec, tcp_reclen);
	(void) memcpy(b + rl, tcp_rec, tcp_reclen);
	n = 2 * rl + small_msg(b + 2 * rl, NLMSG_DONE, 0);
	write_seed("keep-two-and-done", k, SEQ, 0, 0, b, n);
	write_seed("keep-two-and-done-misaligned", k, SEQ, 0, 3, b, n);
	write_seed("keep-stop-at-second", k, SEQ, 0, 2 << 3, b, n);

	/* nlmsg_len below the header's size, in the second message. */
	put_u32(b + rl, 8);
	write_seed("keep-short-nlmsg-len", k, SEQ, 0, 0, b, n);
	/* nlmsg_len past the datagram. */
	put_u32(b + rl, (uint32_t)(n - rl + 4));
	write_seed("keep-nlmsg-len-past-end", k, SEQ, 0, 0, b, n);
	put_u32(b + rl, 0xffffffffU);
	write_seed("keep-nlmsg-len-huge", k, SEQ, 0, 0, b, n);
	put_u32(b + rl, (uint32_t)tcp_reclen);

	/* The first attribute of the second record: longer than the rest. */
	put_u16(b + rl + 16 + 72, (uint16_t)(tcp_reclen - 16 - 72 + 4));
	write_seed("keep-attr-past-message", k, SEQ, 0, 0, b, n);
	/* ... and shorter than its own header. */
	put_u16(b + rl + 16 + 72, 3);
	write_seed("keep-attr-len-below-4", k, SEQ, 0, 0, b, n);
	put_u16(b + rl + 16 + 72, 0);
	write_seed("keep-attr-len-0", k, SEQ, 0, 0, b, n);
	(void) memcpy(b + rl, tcp_rec, tcp_reclen);

	/* NLMSG_ERROR (ENOBUFS) between the two records. */
	(void) memcpy(b, tcp_rec, tcp_reclen);
	n = rl + small_msg(b + rl, NLMSG_ERROR, -ENOBUFS);
	(void) memcpy(b + n, tcp_rec, tcp_reclen);
	write_seed("keep-error-mid-dump", k, SEQ, 0, 0, b, n + tcp_reclen);
	/* An NLMSG_ERROR of 0, an ack, which a dump never has. */
	n = rl + small_msg(b + rl, NLMSG_ERROR, 0);
	write_seed("keep-error-ack", k, SEQ, 0, 0, b, n);
	/* NLMSG_DONE before the second record. */
	n = rl + small_msg(b + rl, NLMSG_DONE, 0);
	(void) memcpy(b + n, tcp_rec, tcp_reclen);
	write_seed("keep-done-early", k, SEQ, 0, 0, b, n + tcp_reclen);
	/* NLMSG_DONE with the dump's error in it. */
	n = rl + small_msg(b + rl, NLMSG_DONE, -EINTR);
	write_seed("keep-done-with-error", k, SEQ, 0, 0, b, n);
	/* NLMSG_DONE with no payload at all. */
	(void) small_msg(b + rl, NLMSG_DONE, 0);
	put_u32(b + rl, 16);
	write_seed("keep-done-bare", k, SEQ, 0, 0, b, rl + 16);

	/* A wrong seq in the second message. */
	(void) memcpy(b + rl, tcp_rec, tcp_reclen);
	put_u32(b + rl + 8, SEQ + 1);
	write_seed("keep-wrong-seq", k, SEQ, 0, 0, b, 2 * rl);
	(void) memcpy(b + rl, tcp_rec, tcp_reclen);
	/* NLM_F_DUMP_INTR on the second. */
	put_u16(b + rl + 6, NLM_F_MULTI | NLM_F_DUMP_INTR);
	write_seed("keep-dump-intr", k, SEQ, 0, 0, b, 2 * rl);
	(void) memcpy(b + rl, tcp_rec, tcp_reclen);

	/* A sender other than the kernel (nl_pid 4242). */
	write_seed("keep-sender-not-kernel", k, SEQ, 4242, 0, b, 2 * rl);

	/* The diag structure cut short: 40 of its 72 bytes. */
	put_u32(b + rl, 16 + 40);
	write_seed("keep-truncated-diag-msg", k, SEQ, 0, 0, b, rl + 16 + 40);
	/* The datagram itself ends inside a header. */
	write_seed("keep-truncated-header", k, SEQ, 0, 0, b, rl + 10);
	/* An unknown message type. */
	(void) memcpy(b + rl, tcp_rec, tcp_reclen);
	put_u16(b + rl + 4, NLMSG_NOOP);
	write_seed("keep-unknown-type", k, SEQ, 0, 0, b, 2 * rl);
	/* A record of another family than the request's. */
	(void) memcpy(b + rl, tcp_rec, tcp_reclen);
	b[rl + 16] = AF_INET6;
	write_seed("keep-wrong-family", k, SEQ, 0, 0, b, 2 * rl);
	/* An empty datagram: no message, the dump goes on. */
	write_seed("keep-empty", k, SEQ, 0, 0, b, 0);
}

/* ------------------------------------------------------------------ */
/* Records made here: netlink groups and packet info. */

/* The index of a family's dump in diag_reqs[]. */
static int
req_of(int family)
{
	for (size_t k = 0; k < diag_nreqs; k++)
		if (diag_reqs[k].dr_family == family)
			return ((int)k);
	return (0);
}

/* One record message: the diag structure, one attribute; its length. */
static size_t
made_rec(uint8_t *b, const void *msg, size_t mlen, uint16_t atype,
    const void *attr, size_t alen)
{
	struct nlmsghdr nh;
	struct nlattr na;
	size_t at = 16 + NLMSG_ALIGN(mlen);

	(void) memset(b, 0, at + 4 + alen + 4);
	(void) memcpy(b + 16, msg, mlen);
	na.nla_len = (uint16_t)(4 + alen);
	na.nla_type = atype;
	(void) memcpy(b + at, &na, sizeof (na));
	if (alen > 0)
		(void) memcpy(b + at + 4, attr, alen);
	(void) memset(&nh, 0, sizeof (nh));
	nh.nlmsg_len = (uint32_t)(at + 4 + alen);
	nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nh.nlmsg_flags = NLM_F_MULTI;
	nh.nlmsg_seq = SEQ;
	(void) memcpy(b, &nh, sizeof (nh));
	return (nh.nlmsg_len);
}

static void
made(void)
{
	static uint8_t b[4096];
	unsigned long groups[40];
	struct netlink_diag_msg n;
	struct packet_diag_msg p;
	struct packet_diag_info pi;
	static const size_t glen[] = { 0, 4, 12, 8, 16, sizeof (groups) };
	char name[64];

	(void) memset(&n, 0, sizeof (n));
	n.ndiag_family = AF_NETLINK;
	n.ndiag_type = SOCK_RAW;
	n.ndiag_portid = 4242;
	n.ndiag_ino = 77;
	for (size_t i = 0; i < sizeof (groups) / sizeof (groups[0]); i++)
		groups[i] = 0x8000000000000001UL >> (i % 2);
	/* No word, part of one, whole ones, more than are kept. */
	for (size_t i = 0; i < sizeof (glen) / sizeof (glen[0]); i++) {
		(void) snprintf(name, sizeof (name), "made-netlink-groups-%zu",
		    glen[i]);
		write_seed(name, req_of(AF_NETLINK), SEQ, 0, 0, b,
		    made_rec(b, &n, sizeof (n), NETLINK_DIAG_GROUPS, groups,
		    glen[i]));
	}

	(void) memset(&p, 0, sizeof (p));
	p.pdiag_family = AF_PACKET;
	p.pdiag_type = SOCK_DGRAM;
	p.pdiag_num = ETH_P_IP;
	p.pdiag_ino = 78;
	(void) memset(&pi, 0, sizeof (pi));
	pi.pdi_index = 1;
	write_seed("made-packet-info", req_of(AF_PACKET), SEQ, 0, 0, b,
	    made_rec(b, &p, sizeof (p), PACKET_DIAG_INFO, &pi, sizeof (pi)));
	write_seed("made-packet-info-short", req_of(AF_PACKET), SEQ, 0, 0, b,
	    made_rec(b, &p, sizeof (p), PACKET_DIAG_INFO, &pi,
	    sizeof (pi) - 1));
	p.pdiag_type = SOCK_PACKET;
	write_seed("made-packet-sock-packet", req_of(AF_PACKET), SEQ, 0, 0, b,
	    made_rec(b, &p, sizeof (p), PACKET_DIAG_INFO, &pi, sizeof (pi)));
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		(void) fprintf(stderr, "usage: mkdiagseeds DIR\n");
		return (2);
	}
	dir = argv[1];

	open_inet(AF_INET, SOCK_STREAM, IPPROTO_TCP, "tcp4");
	open_inet(AF_INET6, SOCK_STREAM, IPPROTO_TCP, "tcp6");
	open_inet(AF_INET, SOCK_DGRAM, IPPROTO_UDP, "udp4");
	open_inet(AF_INET6, SOCK_DGRAM, IPPROTO_UDP, "udp6");
	open_inet(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE, "udplite4");
	open_inet(AF_INET6, SOCK_DGRAM, IPPROTO_UDPLITE, "udplite6");
	open_inet(AF_INET, SOCK_STREAM, IPPROTO_MPTCP, "mptcp4");
	open_inet(AF_INET6, SOCK_STREAM, IPPROTO_MPTCP, "mptcp6");
	open_raw(AF_INET, IPPROTO_ICMP, "raw4");
	open_raw(AF_INET6, IPPROTO_ICMPV6, "raw6");
	open_unix();
	open_netlink();
	open_packet();

	for (size_t k = 0; k < diag_nreqs; k++)
		dump((int)k);
	hostile();
	made();
	return (0);
}
