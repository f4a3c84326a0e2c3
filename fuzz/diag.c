/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag.c: fuzzing harness of the NETLINK_SOCK_DIAG reply parser
 * (diag_parse.c) and request builder (diag_req.c).
 *
 * Input (integers little-endian):
 *
 *	byte 0		which request the datagram answers: an index into
 *			diag_reqs[], modulo diag_nreqs
 *	bytes 1-4	the request's sequence number
 *	bytes 5-8	the sender's nl_pid (0: the kernel)
 *	byte 9		bits 0-2: how many bytes past an 8-aligned address the
 *			datagram is placed (so that no alignment is assumed);
 *			bits 3-7: the callback stops the walk (with ESRCH) at
 *			that record, 1-31 (0: never)
 *	the rest	one datagram, as recv(2) gives it
 *
 * The datagram is handed over in a buffer that ends exactly where it does,
 * so that a read past it is caught.  Checked:
 *  - diag_parse returns DIAG_MORE, DIAG_DONE or DIAG_ERROR, and a positive
 *    errno with DIAG_ERROR;
 *  - every record delivered is sane: its family is the request's, its
 *    names fit their storage and are of its family and of the length
 *    getsockname gives for it (a packet socket's sockaddr_ll holding its
 *    protocol and interface), its ds_have has no unknown bit, and the
 *    facts a family never has are absent;
 *  - the model: a second walk written here from diag_parse.h's description
 *    alone (its own reading of the headers, its own size table) gives the
 *    same result, the same errno, the same number of records, and for
 *    each, in order, the same inode, the same memory counts, the same
 *    packet interface, and the same netlink group words (the model's
 *    reading: u32 words of the bitmap's whole longs, as a little-endian
 *    machine lays them out);
 *  - diag_unix_peer on two unix records in a row keeps its convention:
 *    DS_PEER or DS_PEER_UNKNOWN, never both, only with DS_PEER_INO;
 *  - diag_build_req builds a request for the kind that fits DIAG_REQ_MAX,
 *    carries the seq, and refuses a buffer one byte too small.
 */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/packet_diag.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "netdiag/diag_parse.h"
#include "fuzz.h"

#define	MAXRECS		4096
#define	STOP_ERRNO	ESRCH

#define	DS_ALL	(DS_NAME | DS_PEER | DS_PEER_INO | DS_PEER_UNKNOWN | \
	DS_MEM | DS_UID | DS_RQLEN | DS_SHUTDOWN | DS_SOCKOPT | DS_BOUND_IF | \
	DS_VFS | DS_V6ONLY | DS_IFINDEX)

/* What a record holds that both sides say: the model's, the parser's. */
typedef struct m_rec {
	uint64_t	mr_ino;
	int		mr_mem;		/* a meminfo attribute was there */
	uint32_t	mr_rmem, mr_wmem;
	int		mr_info;	/* a packet info attribute was there */
	uint32_t	mr_ifindex;
	uint32_t	mr_ngroups;
	uint32_t	mr_groups[DIAG_NLGROUPS_MAX];
} m_rec_t;

/* What the parser delivered. */
static m_rec_t got[MAXRECS];
static size_t ngot;
static unsigned stop_at;
static const diag_req_t *cur_req;
static diag_sock_t prev_unix;
static int have_prev_unix;

/* ------------------------------------------------------------------ */
/* The model. */

static uint32_t
m_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return (v);
}

static uint16_t
m_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return (v);
}

/*
 * The least payload each attribute the parser reads must have, by family;
 * 0 for an attribute it does not read.
 */
static size_t
m_attr_min(int family, unsigned type)
{
	if (family == AF_INET || family == AF_INET6) {
		switch (type) {
		case INET_DIAG_SHUTDOWN: return (1);
		case INET_DIAG_SKMEMINFO: return (16);
		case INET_DIAG_SOCKOPT: return (2);
		case INET_DIAG_PROTOCOL: return (1);
		case INET_DIAG_SKV6ONLY: return (1);
		default: return (0);
		}
	}
	if (family == AF_UNIX) {
		switch (type) {
		case UNIX_DIAG_VFS: return (8);
		case UNIX_DIAG_PEER: return (4);
		case UNIX_DIAG_RQLEN: return (8);
		case UNIX_DIAG_MEMINFO: return (16);
		case UNIX_DIAG_SHUTDOWN: return (1);
		case UNIX_DIAG_UID: return (4);
		default: return (0);
		}
	}
	if (family == AF_NETLINK)
		return (type == NETLINK_DIAG_MEMINFO ? 16 : 0);
	switch (type) {
	case PACKET_DIAG_INFO: return (24);
	case PACKET_DIAG_UID: return (4);
	case PACKET_DIAG_MEMINFO: return (16);
	default: return (0);
	}
}

/* The attribute type of each family's meminfo. */
static unsigned
m_meminfo_type(int family)
{
	switch (family) {
	case AF_INET:
	case AF_INET6:
		return (INET_DIAG_SKMEMINFO);
	case AF_UNIX:
		return (UNIX_DIAG_MEMINFO);
	case AF_NETLINK:
		return (NETLINK_DIAG_MEMINFO);
	default:
		return (PACKET_DIAG_MEMINFO);
	}
}

/* What one attribute, well-formed, puts in the record (the last wins). */
static void
m_attr_take(int family, unsigned type, const uint8_t *pl, size_t plen,
    m_rec_t *mr)
{
	if (type == m_meminfo_type(family)) {
		mr->mr_mem = 1;
		mr->mr_rmem = m_u32(pl);		/* SK_MEMINFO_RMEM_ALLOC */
		mr->mr_wmem = m_u32(pl + 8);		/* SK_MEMINFO_WMEM_ALLOC */
	} else if (family == AF_PACKET && type == PACKET_DIAG_INFO) {
		mr->mr_info = 1;
		mr->mr_ifindex = m_u32(pl);		/* pdi_index */
	} else if (family == AF_NETLINK && type == NETLINK_DIAG_GROUPS) {
		size_t whole = plen / sizeof (long) * sizeof (long);

		mr->mr_ngroups = 0;
		memset(mr->mr_groups, 0, sizeof (mr->mr_groups));
		for (size_t at = 0; at + 4 <= whole &&
		    mr->mr_ngroups < DIAG_NLGROUPS_MAX; at += 4)
			mr->mr_groups[mr->mr_ngroups++] = m_u32(pl + at);
	}
}

/* The size of the family's diag message, and where its inode is. */
static void
m_layout(int family, size_t *size, size_t *inooff)
{
	switch (family) {
	case AF_INET:
	case AF_INET6:
		*size = 72;
		*inooff = 68;
		break;
	case AF_UNIX:
		*size = 16;
		*inooff = 4;
		break;
	case AF_NETLINK:
		*size = 28;
		*inooff = 16;
		break;
	default:
		*size = 16;
		*inooff = 4;
		break;
	}
}

/* A record's payload: 0 when well-formed, else the errno. */
static int
m_record(const uint8_t *p, size_t n, int family, m_rec_t *mr)
{
	size_t size, inooff, at, alen, unix_max;

	m_layout(family, &size, &inooff);
	if (n < size)
		return (EBADMSG);
	if (p[0] != family)
		return (EPROTO);
	memset(mr, 0, sizeof (*mr));
	mr->mr_ino = m_u32(p + inooff);
	unix_max = sizeof (struct sockaddr_storage) -
	    offsetof(struct sockaddr_un, sun_path);
	for (at = size; at < n; ) {
		unsigned type;

		if (n - at < 4)
			return (EBADMSG);
		alen = m_u16(p + at);
		type = m_u16(p + at + 2) & 0x3fff;
		if (alen < 4 || alen > n - at)
			return (EBADMSG);
		if (alen - 4 < m_attr_min(family, type))
			return (EBADMSG);
		if (family == AF_UNIX && type == UNIX_DIAG_NAME &&
		    alen - 4 > unix_max)
			return (EBADMSG);
		m_attr_take(family, type, p + at + 4, alen - 4, mr);
		at += (alen + 3) / 4 * 4;
	}
	return (0);
}

/*
 * The whole datagram: returns the status, with *errp and the inodes of
 * the records delivered (at most stop records, stop 0 for all).
 */
static int
m_walk(const uint8_t *p, size_t n, uint32_t pid, uint32_t seq, int family,
    unsigned stop, m_rec_t *recs, size_t *nrecs, int *errp)
{
	size_t at = 0;

	*nrecs = 0;
	if (pid != 0) {
		*errp = EPROTO;
		return (DIAG_ERROR);
	}
	while (at < n) {
		uint32_t mlen, e;
		uint16_t type, flags;
		size_t next;
		int err;

		if (n - at < 16) {
			*errp = EBADMSG;
			return (DIAG_ERROR);
		}
		mlen = m_u32(p + at);
		type = m_u16(p + at + 4);
		flags = m_u16(p + at + 6);
		if (mlen < 16 || mlen > n - at) {
			*errp = EBADMSG;
			return (DIAG_ERROR);
		}
		if (m_u32(p + at + 8) != seq) {
			*errp = EPROTO;
			return (DIAG_ERROR);
		}
		if (flags & 0x10) {
			*errp = EINTR;
			return (DIAG_ERROR);
		}
		next = at + ((size_t)mlen + 3) / 4 * 4;
		if (next > n)
			next = n;
		if (type == 2) {		/* NLMSG_ERROR */
			if (mlen < 20) {
				*errp = EBADMSG;
				return (DIAG_ERROR);
			}
			e = m_u32(p + at + 16);
			*errp = (int32_t)e < 0 && e != 0x80000000U ?
			    -(int32_t)e : EPROTO;
			return (DIAG_ERROR);
		}
		if (type == 3) {		/* NLMSG_DONE */
			if (mlen >= 20 && (int32_t)m_u32(p + at + 16) < 0) {
				e = m_u32(p + at + 16);
				*errp = e != 0x80000000U ? -(int32_t)e :
				    EPROTO;
				return (DIAG_ERROR);
			}
			if (next != n) {
				*errp = EBADMSG;
				return (DIAG_ERROR);
			}
			return (DIAG_DONE);
		}
		if (type != 20) {
			*errp = EPROTO;
			return (DIAG_ERROR);
		}
		if ((err = m_record(p + at + 16, mlen - 16, family,
		    &recs[*nrecs])) != 0) {
			*errp = err;
			return (DIAG_ERROR);
		}
		(*nrecs)++;
		if (stop != 0 && *nrecs == stop) {
			*errp = STOP_ERRNO;
			return (DIAG_ERROR);
		}
		at = next;
	}
	return (DIAG_MORE);
}

/* ------------------------------------------------------------------ */
/* The parser's side. */

static void
check_sockaddr(const diag_sock_t *ds, const struct sockaddr_storage *ss,
    socklen_t len)
{
	FUZZ_CHECK(len <= sizeof (*ss));
	FUZZ_CHECK(len >= sizeof (sa_family_t));
	FUZZ_CHECK(ss->ss_family == ds->ds_family);
	switch (ds->ds_family) {
	case AF_INET:
		FUZZ_CHECK(len == sizeof (struct sockaddr_in));
		break;
	case AF_INET6:
		FUZZ_CHECK(len == sizeof (struct sockaddr_in6));
		break;
	case AF_NETLINK:
		FUZZ_CHECK(len == sizeof (struct sockaddr_nl));
		break;
	case AF_PACKET:
		if ((ds->ds_have & DS_IFINDEX) && ds->ds_type != SOCK_PACKET) {
			struct sockaddr_ll sll;

			FUZZ_CHECK(len == offsetof(struct sockaddr_ll,
			    sll_addr));
			memcpy(&sll, ss, sizeof (sll));
			FUZZ_CHECK(sll.sll_protocol ==
			    htons((uint16_t)ds->ds_protocol));
			FUZZ_CHECK((uint32_t)sll.sll_ifindex == ds->ds_ifindex);
			FUZZ_CHECK(sll.sll_hatype == 0 && sll.sll_halen == 0);
		} else {
			FUZZ_CHECK(len == sizeof (sa_family_t));
		}
		break;
	default:
		break;
	}
}

static int
on_sock(const diag_sock_t *ds, void *arg)
{
	diag_sock_t cp;

	(void) arg;
	FUZZ_CHECK(ngot < MAXRECS);
	FUZZ_CHECK(ds->ds_family == cur_req->dr_family);
	FUZZ_CHECK((ds->ds_have & ~(uint32_t)DS_ALL) == 0);
	FUZZ_CHECK(ds->ds_have & DS_NAME);
	FUZZ_CHECK(!(ds->ds_have & DS_PEER_UNKNOWN));
	check_sockaddr(ds, &ds->ds_name, ds->ds_namelen);
	if (ds->ds_have & DS_PEER)
		check_sockaddr(ds, &ds->ds_peer, ds->ds_peerlen);
	else
		FUZZ_CHECK(ds->ds_peerlen == 0);

	switch (ds->ds_family) {
	case AF_INET:
	case AF_INET6:
		FUZZ_CHECK(ds->ds_have & DS_BOUND_IF);
		FUZZ_CHECK(!(ds->ds_have & (DS_PEER_INO | DS_VFS)));
		FUZZ_CHECK(ds->ds_family == AF_INET6 ||
		    !(ds->ds_have & DS_V6ONLY));
		FUZZ_CHECK(ds->ds_type == (cur_req->dr_protocol == IPPROTO_RAW ?
		    SOCK_RAW : cur_req->dr_protocol == IPPROTO_TCP ||
		    cur_req->dr_protocol == IPPROTO_MPTCP ? SOCK_STREAM :
		    SOCK_DGRAM));
		break;
	case AF_UNIX:
		FUZZ_CHECK(!(ds->ds_have & (DS_PEER | DS_SOCKOPT |
		    DS_BOUND_IF | DS_V6ONLY)));
		/* The peer helper's convention, on the record before. */
		cp = *ds;
		diag_unix_peer(have_prev_unix ? &prev_unix : NULL, &cp);
		if (cp.ds_have & DS_PEER_INO) {
			FUZZ_CHECK(((cp.ds_have & DS_PEER) != 0) !=
			    ((cp.ds_have & DS_PEER_UNKNOWN) != 0));
			if (cp.ds_have & DS_PEER) {
				FUZZ_CHECK(have_prev_unix &&
				    prev_unix.ds_ino == cp.ds_peer_ino &&
				    cp.ds_peer_ino != 0);
				FUZZ_CHECK(cp.ds_peerlen ==
				    prev_unix.ds_namelen);
				FUZZ_CHECK(memcmp(&cp.ds_peer,
				    &prev_unix.ds_name, cp.ds_peerlen) == 0);
			}
		} else {
			FUZZ_CHECK(cp.ds_have == ds->ds_have);
		}
		prev_unix = *ds;
		have_prev_unix = 1;
		break;
	case AF_NETLINK: {
		struct sockaddr_nl nl;

		FUZZ_CHECK(ds->ds_have & DS_PEER);
		FUZZ_CHECK(!(ds->ds_have & (DS_UID | DS_PEER_INO | DS_VFS |
		    DS_SOCKOPT | DS_BOUND_IF | DS_SHUTDOWN | DS_IFINDEX)));
		/* The name's groups are the first word of them. */
		memcpy(&nl, &ds->ds_name, sizeof (nl));
		FUZZ_CHECK(nl.nl_groups ==
		    (ds->ds_ngroups > 0 ? ds->ds_groups[0] : 0));
		break;
	}
	case AF_PACKET:
		FUZZ_CHECK(!(ds->ds_have & (DS_PEER | DS_PEER_INO | DS_VFS |
		    DS_SOCKOPT | DS_BOUND_IF | DS_SHUTDOWN | DS_RQLEN)));
		break;
	default:
		FUZZ_CHECK(0);
	}
	FUZZ_CHECK(ds->ds_ngroups <= DIAG_NLGROUPS_MAX);
	FUZZ_CHECK(ds->ds_family == AF_NETLINK || ds->ds_ngroups == 0);
	FUZZ_CHECK(ds->ds_family == AF_PACKET || !(ds->ds_have & DS_IFINDEX));

	memset(&got[ngot], 0, sizeof (got[ngot]));
	got[ngot].mr_ino = ds->ds_ino;
	got[ngot].mr_mem = (ds->ds_have & DS_MEM) != 0;
	got[ngot].mr_rmem = ds->ds_rmem;
	got[ngot].mr_wmem = ds->ds_wmem;
	got[ngot].mr_info = (ds->ds_have & DS_IFINDEX) != 0;
	got[ngot].mr_ifindex = ds->ds_ifindex;
	got[ngot].mr_ngroups = ds->ds_ngroups;
	memcpy(got[ngot].mr_groups, ds->ds_groups,
	    ds->ds_ngroups * sizeof (ds->ds_groups[0]));
	ngot++;
	if (stop_at != 0 && ngot == stop_at)
		return (STOP_ERRNO);
	return (0);
}

static void
check_build(const diag_req_t *req, uint32_t seq)
{
	uint8_t buf[DIAG_REQ_MAX];
	struct nlmsghdr nh;
	size_t n;

	n = diag_build_req(req, seq, buf, sizeof (buf));
	FUZZ_CHECK(n >= 16 + 20 && n <= DIAG_REQ_MAX && n % 4 == 0);
	memcpy(&nh, buf, sizeof (nh));
	FUZZ_CHECK(nh.nlmsg_len == n);
	FUZZ_CHECK(nh.nlmsg_seq == seq);
	FUZZ_CHECK(nh.nlmsg_type == SOCK_DIAG_BY_FAMILY);
	FUZZ_CHECK(buf[16] == req->dr_family);
	FUZZ_CHECK(diag_build_req(req, seq, buf, n - 1) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static m_rec_t model[MAXRECS];
	fuzz_in_t in;
	const diag_req_t *req;
	diag_dump_t dd;
	uint32_t seq, pid;
	uint8_t ctl, *space, *dgram;
	size_t len, nmodel, shift;
	int rc, err = 0, merr = 0, mrc;

	if (size > FUZZ_MAXLEN)
		return (0);
	fuzz_in_init(&in, data, size);
	req = &diag_reqs[fuzz_u8(&in) % diag_nreqs];
	seq = fuzz_u32(&in);
	pid = fuzz_u32(&in);
	ctl = fuzz_u8(&in);
	shift = ctl & 7;
	stop_at = ctl >> 3;
	len = in.fi_left;

	check_build(req, seq);

	/* The datagram at the chosen misalignment, ending at the end. */
	if ((space = malloc(shift + len)) == NULL)
		abort();
	dgram = space + shift;
	(void) fuzz_take(&in, dgram, len);

	cur_req = req;
	ngot = 0;
	have_prev_unix = 0;
	dd.dd_req = req;
	dd.dd_seq = seq;
	dd.dd_cb = on_sock;
	dd.dd_arg = NULL;
	rc = diag_parse(dgram, len, pid, &dd, &err);
	FUZZ_CHECK(rc == DIAG_MORE || rc == DIAG_DONE || rc == DIAG_ERROR);
	if (rc == DIAG_ERROR)
		FUZZ_CHECK(err > 0);

	mrc = m_walk(dgram, len, pid, seq, req->dr_family, stop_at,
	    model, &nmodel, &merr);
	FUZZ_CHECK(rc == mrc);
	if (rc == DIAG_ERROR)
		FUZZ_CHECK(err == merr);
	FUZZ_CHECK(ngot == nmodel);
	for (size_t i = 0; i < ngot && i < nmodel; i++)
		FUZZ_CHECK(memcmp(&got[i], &model[i], sizeof (got[i])) == 0);

	/* Without a callback the result is the same, bar the stop. */
	if (stop_at == 0) {
		int err2 = 0;

		dd.dd_cb = NULL;
		FUZZ_CHECK(diag_parse(dgram, len, pid, &dd, &err2) == rc);
		FUZZ_CHECK(rc != DIAG_ERROR || err2 == err);
	}
	free(space);
	return (0);
}
