/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_parse.c: a pure parser of NETLINK_SOCK_DIAG dump replies (see
 * diag_parse.h; the requests are diag_req.c's).
 *
 * The bytes handed to diag_parse() are not trusted: every length is
 * checked against what is left before anything is read, and every
 * structure is copied out with memcpy(), never read through a cast
 * pointer, so that no alignment is assumed.
 */
#include <errno.h>
#include <limits.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/packet_diag.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netpacket/packet.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "netdiag/diag_parse.h"

/* The netlink sizes, as size_t (the kernel headers' are int). */
#define	HDRLEN		((size_t)16)	/* NLMSG_HDRLEN */
#define	ATTRLEN		((size_t)4)	/* NLA_HDRLEN */
#define	ALIGN4(n)	(((size_t)(n) + 3) & ~(size_t)3)

/*
 * The u32 words of SK_MEMINFO_* the parser needs: up to SNDBUF, which
 * holds RMEM_ALLOC, RCVBUF and WMEM_ALLOC too.
 */
#define	MEMINFO_MINLEN	((SK_MEMINFO_SNDBUF + 1) * sizeof (uint32_t))

/* ------------------------------------------------------------------ */
/* Reading. */

static uint32_t
rd_u32(const uint8_t *p)
{
	uint32_t v;

	(void) memcpy(&v, p, sizeof (v));
	return (v);
}

/* A walk over the attributes that follow a diag structure. */
typedef struct attr_iter {
	const uint8_t	*ai_p;
	size_t		ai_left;
} attr_iter_t;

/*
 * The next attribute: 1 with its type (flags masked off), payload and
 * payload length; 0 at the end; -1 when the bytes left are not a whole
 * attribute (fewer than a header, a length below the header's or past
 * the end).  The last attribute may go without its padding.
 */
static int
attr_next(attr_iter_t *ai, uint16_t *typep, const uint8_t **datap,
    size_t *lenp)
{
	struct nlattr na;
	size_t step;

	if (ai->ai_left == 0)
		return (0);
	if (ai->ai_left < ATTRLEN)
		return (-1);
	(void) memcpy(&na, ai->ai_p, sizeof (na));
	if (na.nla_len < ATTRLEN || na.nla_len > ai->ai_left)
		return (-1);
	*typep = na.nla_type & NLA_TYPE_MASK;
	*datap = ai->ai_p + ATTRLEN;
	*lenp = na.nla_len - ATTRLEN;
	step = ALIGN4(na.nla_len);
	if (step > ai->ai_left)
		step = ai->ai_left;
	ai->ai_p += step;
	ai->ai_left -= step;
	return (1);
}

/* What one attribute of a record gives: 0, or an errno (EBADMSG). */
typedef int attr_f(uint16_t, const uint8_t *, size_t, const diag_req_t *,
    diag_sock_t *);

/*
 * The attributes after a record's diag structure (msize bytes, aligned),
 * each handed to fn: 0, or the first errno.
 */
static int
walk_attrs(const uint8_t *p, size_t len, size_t msize, attr_f *fn,
    const diag_req_t *req, diag_sock_t *ds)
{
	attr_iter_t ai;
	const uint8_t *data;
	size_t dlen;
	uint16_t type;
	int r, err;

	if (msize > len)
		return (EBADMSG);
	ai.ai_p = p + msize;
	ai.ai_left = len - msize;
	while ((r = attr_next(&ai, &type, &data, &dlen)) == 1) {
		if ((err = fn(type, data, dlen, req, ds)) != 0)
			return (err);
	}
	return (r < 0 ? EBADMSG : 0);
}

/* A meminfo attribute: 0, or EBADMSG when it is too short. */
static int
take_meminfo(diag_sock_t *ds, const uint8_t *data, size_t dlen)
{
	if (dlen < MEMINFO_MINLEN)
		return (EBADMSG);
	ds->ds_rcvbuf = rd_u32(data + SK_MEMINFO_RCVBUF * sizeof (uint32_t));
	ds->ds_sndbuf = rd_u32(data + SK_MEMINFO_SNDBUF * sizeof (uint32_t));
	ds->ds_rmem = rd_u32(data + SK_MEMINFO_RMEM_ALLOC * sizeof (uint32_t));
	ds->ds_wmem = rd_u32(data + SK_MEMINFO_WMEM_ALLOC * sizeof (uint32_t));
	ds->ds_have |= DS_MEM;
	return (0);
}

/* A uid attribute (unix, packet): 0, or EBADMSG when it is too short. */
static int
take_uid(diag_sock_t *ds, const uint8_t *data, size_t dlen)
{
	if (dlen < sizeof (uint32_t))
		return (EBADMSG);
	ds->ds_uid = rd_u32(data);
	ds->ds_have |= DS_UID;
	return (0);
}

/* Does this IPv6 address get a scope id from getsockname/getpeername? */
static int
v6_needs_scope(const uint8_t a[16])
{
	/* Link-local unicast, fe80::/10. */
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return (1);
	/* Multicast of interface-local (1) or link-local (2) scope. */
	if (a[0] == 0xff && ((a[1] & 0x0f) == 1 || (a[1] & 0x0f) == 2))
		return (1);
	return (0);
}

static void
inet_addr(int family, uint16_t port_be, const uint32_t addr[4],
    uint32_t ifindex, struct sockaddr_storage *ss, socklen_t *lenp)
{
	(void) memset(ss, 0, sizeof (*ss));
	if (family == AF_INET) {
		struct sockaddr_in sin;

		(void) memset(&sin, 0, sizeof (sin));
		sin.sin_family = AF_INET;
		sin.sin_port = port_be;
		(void) memcpy(&sin.sin_addr, addr, sizeof (sin.sin_addr));
		(void) memcpy(ss, &sin, sizeof (sin));
		*lenp = (socklen_t)sizeof (sin);
	} else {
		struct sockaddr_in6 sin6;

		(void) memset(&sin6, 0, sizeof (sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = port_be;
		sin6.sin6_flowinfo = 0;
		(void) memcpy(&sin6.sin6_addr, addr, sizeof (sin6.sin6_addr));
		sin6.sin6_scope_id = v6_needs_scope(sin6.sin6_addr.s6_addr) ?
		    ifindex : 0;
		(void) memcpy(ss, &sin6, sizeof (sin6));
		*lenp = (socklen_t)sizeof (sin6);
	}
}

/* Only the family: unnamed unix, and packet sockets. */
/*
 * A record's cookie (sock_diag_save_cookie: the low half first), which is
 * what getsockopt(SO_COOKIE) gives of the same socket.
 */
static uint64_t
cookie(const uint32_t c[2])
{
	return ((uint64_t)c[0] | (uint64_t)c[1] << 32);
}

static void
family_only(int family, struct sockaddr_storage *ss, socklen_t *lenp)
{
	(void) memset(ss, 0, sizeof (*ss));
	ss->ss_family = (sa_family_t)family;
	*lenp = (socklen_t)sizeof (sa_family_t);
}

/* The socket type of an inet dump's protocol. */
static int
inet_type(int protocol)
{
	switch (protocol) {
	case IPPROTO_TCP:
	case IPPROTO_MPTCP:
		return (SOCK_STREAM);
	case IPPROTO_RAW:
		return (SOCK_RAW);
	default:
		return (SOCK_DGRAM);
	}
}

/* One attribute of an inet record: 0, or EBADMSG when it is too short. */
static int
inet_attr(uint16_t type, const uint8_t *data, size_t dlen,
    const diag_req_t *req, diag_sock_t *ds)
{
	switch (type) {
	case INET_DIAG_SHUTDOWN:
		if (dlen < 1)
			return (EBADMSG);
		ds->ds_shutdown = data[0];
		ds->ds_have |= DS_SHUTDOWN;
		break;
	case INET_DIAG_SKMEMINFO:
		return (take_meminfo(ds, data, dlen));
	case INET_DIAG_SOCKOPT:
		if (dlen < 2)
			return (EBADMSG);
		ds->ds_inet_sockopt = (uint16_t)(data[0] | data[1] << 8);
		ds->ds_have |= DS_SOCKOPT;
		break;
	case INET_DIAG_PROTOCOL:
		if (dlen < 1)
			return (EBADMSG);
		if (req->dr_protocol == IPPROTO_RAW)
			ds->ds_protocol = data[0];
		break;
	case INET_DIAG_SKV6ONLY:
		if (dlen < 1)
			return (EBADMSG);
		if (ds->ds_family == AF_INET6) {
			ds->ds_v6only = data[0] != 0;
			ds->ds_have |= DS_V6ONLY;
		}
		break;
	default:
		break;
	}
	return (0);
}

/* The socket's name, and its peer's by inet_getname()'s rule. */
static void
inet_ends(const struct inet_diag_msg *m, diag_sock_t *ds)
{
	inet_addr(m->idiag_family, m->id.idiag_sport, m->id.idiag_src,
	    m->id.idiag_if, &ds->ds_name, &ds->ds_namelen);
	ds->ds_have |= DS_NAME;
	if (m->id.idiag_dport != 0 && m->idiag_state != TCP_CLOSE &&
	    m->idiag_state != TCP_SYN_SENT) {
		inet_addr(m->idiag_family, m->id.idiag_dport, m->id.idiag_dst,
		    m->id.idiag_if, &ds->ds_peer, &ds->ds_peerlen);
		ds->ds_have |= DS_PEER;
	}
}

static int
parse_inet(const uint8_t *p, size_t len, const diag_req_t *req,
    diag_sock_t *ds)
{
	struct inet_diag_msg m;
	int err;

	if (len < sizeof (m))
		return (EBADMSG);
	(void) memcpy(&m, p, sizeof (m));
	if (m.idiag_family != req->dr_family)
		return (EPROTO);

	ds->ds_family = m.idiag_family;
	ds->ds_type = inet_type(req->dr_protocol);
	ds->ds_protocol = req->dr_protocol;
	ds->ds_state = m.idiag_state;
	ds->ds_ino = m.idiag_inode;
	ds->ds_cookie = cookie(m.id.idiag_cookie);
	ds->ds_uid = m.idiag_uid;
	ds->ds_rqlen = m.idiag_rqueue;
	ds->ds_wqlen = m.idiag_wqueue;
	ds->ds_bound_if = m.id.idiag_if;
	ds->ds_have |= DS_UID | DS_RQLEN | DS_BOUND_IF;

	if ((err = walk_attrs(p, len, ALIGN4(sizeof (m)), inet_attr, req,
	    ds)) != 0)
		return (err);
	inet_ends(&m, ds);
	return (0);
}

/* One attribute of a unix record: 0, or EBADMSG when it is too short. */
static int
unix_attr(uint16_t type, const uint8_t *data, size_t dlen,
    const diag_req_t *req, diag_sock_t *ds)
{
	size_t off = offsetof(struct sockaddr_un, sun_path);

	switch (type) {
	case UNIX_DIAG_NAME:
		if (dlen > sizeof (ds->ds_name) - off)
			return (EBADMSG);
		(void) memcpy((uint8_t *)&ds->ds_name + off, data, dlen);
		ds->ds_namelen = (socklen_t)(off + dlen);
		break;
	case UNIX_DIAG_VFS: {
		struct unix_diag_vfs v;

		if (dlen < sizeof (v))
			return (EBADMSG);
		(void) memcpy(&v, data, sizeof (v));
		ds->ds_vfs_ino = v.udiag_vfs_ino;
		ds->ds_vfs_dev = v.udiag_vfs_dev;
		ds->ds_have |= DS_VFS;
		break;
	}
	case UNIX_DIAG_PEER:
		if (dlen < sizeof (uint32_t))
			return (EBADMSG);
		ds->ds_peer_ino = rd_u32(data);
		ds->ds_have |= DS_PEER_INO;
		break;
	case UNIX_DIAG_RQLEN: {
		struct unix_diag_rqlen q;

		if (dlen < sizeof (q))
			return (EBADMSG);
		(void) memcpy(&q, data, sizeof (q));
		ds->ds_rqlen = q.udiag_rqueue;
		ds->ds_wqlen = q.udiag_wqueue;
		ds->ds_have |= DS_RQLEN;
		break;
	}
	case UNIX_DIAG_MEMINFO:
		return (take_meminfo(ds, data, dlen));
	case UNIX_DIAG_SHUTDOWN:
		if (dlen < 1)
			return (EBADMSG);
		ds->ds_shutdown = data[0];
		ds->ds_have |= DS_SHUTDOWN;
		break;
	case UNIX_DIAG_UID:
		return (take_uid(ds, data, dlen));
	default:
		break;
	}
	return (0);
}

static int
parse_unix(const uint8_t *p, size_t len, diag_sock_t *ds)
{
	struct unix_diag_msg m;

	if (len < sizeof (m))
		return (EBADMSG);
	(void) memcpy(&m, p, sizeof (m));
	if (m.udiag_family != AF_UNIX)
		return (EPROTO);
	ds->ds_family = AF_UNIX;
	ds->ds_type = m.udiag_type;
	ds->ds_protocol = 0;
	ds->ds_state = m.udiag_state;
	ds->ds_ino = m.udiag_ino;
	ds->ds_cookie = cookie(m.udiag_cookie);
	/* Unnamed unless UNIX_DIAG_NAME says otherwise. */
	family_only(AF_UNIX, &ds->ds_name, &ds->ds_namelen);
	ds->ds_have |= DS_NAME;

	return (walk_attrs(p, len, ALIGN4(sizeof (m)), unix_attr, NULL, ds));
}

static void
netlink_addr(uint32_t pid, uint32_t groups, struct sockaddr_storage *ss,
    socklen_t *lenp)
{
	struct sockaddr_nl nl;

	(void) memset(&nl, 0, sizeof (nl));
	nl.nl_family = AF_NETLINK;
	nl.nl_pid = pid;
	nl.nl_groups = groups;
	(void) memset(ss, 0, sizeof (*ss));
	(void) memcpy(ss, &nl, sizeof (nl));
	*lenp = (socklen_t)sizeof (nl);
}

/*
 * NETLINK_DIAG_GROUPS: the kernel's bitmap of unsigned longs (bit g of
 * the bitmap is group g + 1), as words of 32, the low half of each long
 * first.  Whole longs only, up to DIAG_NLGROUPS_MAX words.
 */
static void
take_groups(diag_sock_t *ds, const uint8_t *data, size_t dlen)
{
	const size_t per = sizeof (unsigned long) / sizeof (uint32_t);
	size_t nlong = dlen / sizeof (unsigned long);
	unsigned long w;

	ds->ds_ngroups = 0;
	for (size_t i = 0; i < nlong * per &&
	    ds->ds_ngroups < DIAG_NLGROUPS_MAX; i++) {
		(void) memcpy(&w, data + i / per * sizeof (w), sizeof (w));
		ds->ds_groups[ds->ds_ngroups++] =
		    (uint32_t)(w >> (i % per * 32));
	}
}

/* One attribute of a netlink record: 0, or EBADMSG when it is too short. */
static int
netlink_attr(uint16_t type, const uint8_t *data, size_t dlen,
    const diag_req_t *req, diag_sock_t *ds)
{
	switch (type) {
	case NETLINK_DIAG_GROUPS:
		take_groups(ds, data, dlen);
		return (0);
	case NETLINK_DIAG_MEMINFO:
		return (take_meminfo(ds, data, dlen));
	default:
		return (0);
	}
}

static int
parse_netlink(const uint8_t *p, size_t len, diag_sock_t *ds)
{
	struct netlink_diag_msg m;
	int err;

	if (len < sizeof (m))
		return (EBADMSG);
	(void) memcpy(&m, p, sizeof (m));
	if (m.ndiag_family != AF_NETLINK)
		return (EPROTO);
	ds->ds_family = AF_NETLINK;
	ds->ds_type = m.ndiag_type;
	ds->ds_protocol = m.ndiag_protocol;
	ds->ds_state = m.ndiag_state;
	ds->ds_ino = m.ndiag_ino;
	ds->ds_cookie = cookie(m.ndiag_cookie);

	if ((err = walk_attrs(p, len, ALIGN4(sizeof (m)), netlink_attr, NULL,
	    ds)) != 0)
		return (err);

	/* getsockname gives the low 32 bits of the first long. */
	netlink_addr(m.ndiag_portid, ds->ds_ngroups > 0 ? ds->ds_groups[0] :
	    0, &ds->ds_name, &ds->ds_namelen);
	netlink_addr(m.ndiag_dst_portid,
	    m.ndiag_dst_group >= 1 && m.ndiag_dst_group <= 32 ?
	    1U << (m.ndiag_dst_group - 1) : 0, &ds->ds_peer, &ds->ds_peerlen);
	ds->ds_have |= DS_NAME | DS_PEER;
	return (0);
}

/*
 * A packet socket's name as packet_getname() writes it where the socket
 * is bound to no device: the family, the protocol (network order), the
 * interface, the rest 0; its length offsetof(sll_addr).
 */
static void
packet_addr(uint16_t num, uint32_t ifindex, struct sockaddr_storage *ss,
    socklen_t *lenp)
{
	struct sockaddr_ll sll;

	(void) memset(&sll, 0, sizeof (sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(num);
	sll.sll_ifindex = (int)ifindex;
	(void) memset(ss, 0, sizeof (*ss));
	(void) memcpy(ss, &sll, sizeof (sll));
	*lenp = (socklen_t)offsetof(struct sockaddr_ll, sll_addr);
}

/* One attribute of a packet record: 0, or EBADMSG when it is too short. */
static int
packet_attr(uint16_t type, const uint8_t *data, size_t dlen,
    const diag_req_t *req, diag_sock_t *ds)
{
	struct packet_diag_info pi;

	switch (type) {
	case PACKET_DIAG_INFO:
		if (dlen < sizeof (pi))
			return (EBADMSG);
		(void) memcpy(&pi, data, sizeof (pi));
		ds->ds_ifindex = pi.pdi_index;
		ds->ds_have |= DS_IFINDEX;
		break;
	case PACKET_DIAG_UID:
		return (take_uid(ds, data, dlen));
	case PACKET_DIAG_MEMINFO:
		return (take_meminfo(ds, data, dlen));
	default:
		break;
	}
	return (0);
}

static int
parse_packet(const uint8_t *p, size_t len, diag_sock_t *ds)
{
	struct packet_diag_msg m;
	int err;

	if (len < sizeof (m))
		return (EBADMSG);
	(void) memcpy(&m, p, sizeof (m));
	if (m.pdiag_family != AF_PACKET)
		return (EPROTO);
	ds->ds_family = AF_PACKET;
	ds->ds_type = m.pdiag_type;
	ds->ds_protocol = m.pdiag_num;
	ds->ds_state = 0;
	ds->ds_ino = m.pdiag_ino;
	ds->ds_cookie = cookie(m.pdiag_cookie);

	if ((err = walk_attrs(p, len, ALIGN4(sizeof (m)), packet_attr, NULL,
	    ds)) != 0)
		return (err);
	/* A SOCK_PACKET socket's name is a sockaddr_pkt: not in a dump. */
	if ((ds->ds_have & DS_IFINDEX) && m.pdiag_type != SOCK_PACKET)
		packet_addr(m.pdiag_num, ds->ds_ifindex, &ds->ds_name,
		    &ds->ds_namelen);
	else
		family_only(AF_PACKET, &ds->ds_name, &ds->ds_namelen);
	ds->ds_have |= DS_NAME;
	return (0);
}

/* One SOCK_DIAG_BY_FAMILY message's payload into ds: 0 or an errno. */
static int
parse_record(const uint8_t *p, size_t len, const diag_req_t *req,
    diag_sock_t *ds)
{
	(void) memset(ds, 0, sizeof (*ds));
	switch (req->dr_family) {
	case AF_INET:
	case AF_INET6:
		return (parse_inet(p, len, req, ds));
	case AF_UNIX:
		return (parse_unix(p, len, ds));
	case AF_NETLINK:
		return (parse_netlink(p, len, ds));
	default:
		return (parse_packet(p, len, ds));
	}
}

/* The errno of a negative error number from the kernel; EPROTO if none. */
static int
kernel_errno(int32_t e)
{
	if (e >= 0 || e == INT32_MIN)
		return (EPROTO);
	return (-e);
}

static int
parse_error(int *errp, int err)
{
	*errp = err;
	return (DIAG_ERROR);
}

/* The errno of a callback's nonzero return. */
static int
cb_errno(int err)
{
	return (err > 0 ? err : (err == INT_MIN ? ECANCELED : -err));
}

/*
 * One message, its header nh checked, its payload plen bytes at pl; last:
 * it ends the datagram.  DIAG_MORE to go on to the next message, else
 * DIAG_DONE or DIAG_ERROR.
 */
static int
parse_message(const struct nlmsghdr *nh, const uint8_t *pl, int last,
    const diag_dump_t *dd, int *errp)
{
	size_t plen = nh->nlmsg_len - HDRLEN;
	diag_sock_t ds;
	int32_t e;
	int err;

	switch (nh->nlmsg_type) {
	case NLMSG_ERROR:
		if (plen < sizeof (e))
			return (parse_error(errp, EBADMSG));
		(void) memcpy(&e, pl, sizeof (e));
		return (parse_error(errp, kernel_errno(e)));
	case NLMSG_DONE:
		/* A payload, when there is one, is the error. */
		if (plen >= sizeof (e)) {
			(void) memcpy(&e, pl, sizeof (e));
			if (e < 0)
				return (parse_error(errp, kernel_errno(e)));
		}
		return (last ? DIAG_DONE : parse_error(errp, EBADMSG));
	case SOCK_DIAG_BY_FAMILY:
		if ((err = parse_record(pl, plen, dd->dd_req, &ds)) != 0)
			return (parse_error(errp, err));
		if (dd->dd_cb != NULL && (err = dd->dd_cb(&ds, dd->dd_arg)) != 0)
			return (parse_error(errp, cb_errno(err)));
		return (DIAG_MORE);
	default:
		return (parse_error(errp, EPROTO));
	}
}

int
diag_parse(const void *buf, size_t len, uint32_t from_pid,
    const diag_dump_t *dd, int *errp)
{
	const uint8_t *p = buf;
	size_t off = 0, left, step;
	struct nlmsghdr nh;
	int rc;

	if (dd == NULL || !diag_req_valid(dd->dd_req))
		return (parse_error(errp, EINVAL));
	if (from_pid != 0)
		return (parse_error(errp, EPROTO));
	if (len > 0 && p == NULL)
		return (parse_error(errp, EINVAL));

	while (off < len) {
		left = len - off;
		if (left < HDRLEN)
			return (parse_error(errp, EBADMSG));
		(void) memcpy(&nh, p + off, sizeof (nh));
		if (nh.nlmsg_len < HDRLEN || nh.nlmsg_len > left)
			return (parse_error(errp, EBADMSG));
		if (nh.nlmsg_seq != dd->dd_seq)
			return (parse_error(errp, EPROTO));
		if (nh.nlmsg_flags & NLM_F_DUMP_INTR)
			return (parse_error(errp, EINTR));
		step = ALIGN4(nh.nlmsg_len);
		if (step > left)
			step = left;
		rc = parse_message(&nh, p + off + HDRLEN, off + step == len, dd,
		    errp);
		if (rc != DIAG_MORE)
			return (rc);
		off += step;
	}
	return (DIAG_MORE);
}

void
diag_unix_peer(const diag_sock_t *peer_rec, diag_sock_t *ds)
{
	if (ds == NULL || ds->ds_family != AF_UNIX ||
	    !(ds->ds_have & DS_PEER_INO))
		return;
	if (peer_rec == NULL || ds->ds_peer_ino == 0 ||
	    peer_rec->ds_family != AF_UNIX ||
	    peer_rec->ds_ino != ds->ds_peer_ino ||
	    !(peer_rec->ds_have & DS_NAME) ||
	    peer_rec->ds_namelen > sizeof (ds->ds_peer)) {
		ds->ds_have &= ~(uint32_t)DS_PEER;
		ds->ds_have |= DS_PEER_UNKNOWN;
		return;
	}
	ds->ds_peer = peer_rec->ds_name;
	ds->ds_peerlen = peer_rec->ds_namelen;
	ds->ds_have &= ~(uint32_t)DS_PEER_UNKNOWN;
	ds->ds_have |= DS_PEER;
}
