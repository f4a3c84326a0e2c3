/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_req.c: the NETLINK_SOCK_DIAG dump requests that diag_parse.c
 * understands, and their builder (see diag_parse.h).
 */
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/packet_diag.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "netdiag/diag_parse.h"

const diag_req_t diag_reqs[] = {
	{ AF_INET, IPPROTO_TCP },
	{ AF_INET6, IPPROTO_TCP },
	{ AF_INET, IPPROTO_UDP },
	{ AF_INET6, IPPROTO_UDP },
	{ AF_INET, IPPROTO_UDPLITE },
	{ AF_INET6, IPPROTO_UDPLITE },
	{ AF_INET, IPPROTO_RAW },
	{ AF_INET6, IPPROTO_RAW },
	{ AF_INET, IPPROTO_MPTCP },
	{ AF_INET6, IPPROTO_MPTCP },
	{ AF_UNIX, 0 },
	{ AF_NETLINK, 0 },
	{ AF_PACKET, 0 },
};
const size_t diag_nreqs = sizeof (diag_reqs) / sizeof (diag_reqs[0]);

int
diag_req_valid(const diag_req_t *req)
{
	if (req == NULL)
		return (0);
	switch (req->dr_family) {
	case AF_INET:
	case AF_INET6:
		switch (req->dr_protocol) {
		case IPPROTO_TCP:
		case IPPROTO_UDP:
		case IPPROTO_UDPLITE:
		case IPPROTO_RAW:
		case IPPROTO_MPTCP:
			return (1);
		default:
			return (0);
		}
	case AF_UNIX:
	case AF_NETLINK:
	case AF_PACKET:
		return (req->dr_protocol == 0);
	default:
		return (0);
	}
}

/*
 * The body of each family's request, written at body (DIAG_REQ_MAX less
 * the header, zeroed): its length, aligned.
 */
static size_t
inet_req(const diag_req_t *req, uint8_t *body)
{
	struct inet_diag_req_v2 r;
	size_t len;

	(void) memset(&r, 0, sizeof (r));
	r.sdiag_family = (uint8_t)req->dr_family;
	/*
	 * MPTCP (262) does not fit in the byte: the kernel then takes the
	 * protocol from an INET_DIAG_REQ_PROTOCOL attribute.
	 */
	r.sdiag_protocol = req->dr_protocol == IPPROTO_MPTCP ?
	    IPPROTO_TCP : (uint8_t)req->dr_protocol;
	r.idiag_ext = 1U << (INET_DIAG_SKMEMINFO - 1);
	/* pad is sdiag_raw_protocol for raw: 0, a dump ignores it. */
	r.pad = 0;
	r.idiag_states = DIAG_INET_STATES;
	r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	(void) memcpy(body, &r, sizeof (r));
	len = NLMSG_ALIGN(sizeof (r));
	if (req->dr_protocol == IPPROTO_MPTCP) {
		struct nlattr na;
		uint32_t proto = IPPROTO_MPTCP;

		na.nla_len = (uint16_t)(NLA_HDRLEN + sizeof (proto));
		na.nla_type = INET_DIAG_REQ_PROTOCOL;
		(void) memcpy(body + len, &na, sizeof (na));
		(void) memcpy(body + len + NLA_HDRLEN, &proto, sizeof (proto));
		len += NLA_ALIGN(na.nla_len);
	}
	return (len);
}

static size_t
unix_req(uint8_t *body)
{
	struct unix_diag_req r;

	(void) memset(&r, 0, sizeof (r));
	r.sdiag_family = AF_UNIX;
	r.udiag_states = ~0U;
	r.udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS | UDIAG_SHOW_PEER |
	    UDIAG_SHOW_RQLEN | UDIAG_SHOW_MEMINFO | UDIAG_SHOW_UID;
	(void) memcpy(body, &r, sizeof (r));
	return (NLMSG_ALIGN(sizeof (r)));
}

static size_t
netlink_req(uint8_t *body)
{
	struct netlink_diag_req r;

	(void) memset(&r, 0, sizeof (r));
	r.sdiag_family = AF_NETLINK;
	r.sdiag_protocol = NDIAG_PROTO_ALL;
	r.ndiag_show = NDIAG_SHOW_GROUPS | NDIAG_SHOW_MEMINFO;
	(void) memcpy(body, &r, sizeof (r));
	return (NLMSG_ALIGN(sizeof (r)));
}

static size_t
packet_req(uint8_t *body)
{
	struct packet_diag_req r;

	(void) memset(&r, 0, sizeof (r));
	r.sdiag_family = AF_PACKET;
	r.pdiag_show = PACKET_SHOW_INFO | PACKET_SHOW_MEMINFO;
	(void) memcpy(body, &r, sizeof (r));
	return (NLMSG_ALIGN(sizeof (r)));
}

size_t
diag_build_req(const diag_req_t *req, uint32_t seq, void *buf, size_t cap)
{
	uint8_t msg[DIAG_REQ_MAX];
	struct nlmsghdr nh;
	size_t len = NLMSG_HDRLEN;

	if (!diag_req_valid(req))
		return (0);
	(void) memset(msg, 0, sizeof (msg));
	switch (req->dr_family) {
	case AF_INET:
	case AF_INET6:
		len += inet_req(req, msg + len);
		break;
	case AF_UNIX:
		len += unix_req(msg + len);
		break;
	case AF_NETLINK:
		len += netlink_req(msg + len);
		break;
	default:	/* AF_PACKET: diag_req_valid() allows no other */
		len += packet_req(msg + len);
		break;
	}

	if (buf == NULL || cap < len)
		return (0);
	(void) memset(&nh, 0, sizeof (nh));
	nh.nlmsg_len = (uint32_t)len;
	nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nh.nlmsg_seq = seq;
	nh.nlmsg_pid = 0;
	(void) memcpy(msg, &nh, sizeof (nh));
	(void) memcpy(buf, msg, len);
	return (len);
}
