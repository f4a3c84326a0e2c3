/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_parse.h: a pure parser of NETLINK_SOCK_DIAG dump replies, and the
 * builders of the dump requests it understands.
 *
 * Nothing here does I/O.  The caller (sock_diag.c) builds a request with
 * diag_build_req(), sends it on a NETLINK_SOCK_DIAG socket, and hands each
 * datagram it receives, whole, to diag_parse(), which calls back once per
 * socket of the dump with what getsockname(2), getpeername(2) and
 * getsockopt(2) would say inside the socket's owner, as far as the dump
 * tells it.  Every length in a reply is checked before it is used, and
 * structures are read with memcpy(), so any bytes at all may be handed to
 * diag_parse().
 *
 * The requests are those of diag_reqs[] below: TCP, UDP, UDP-Lite, raw and
 * MPTCP sockets of AF_INET and AF_INET6, and every AF_UNIX, AF_NETLINK and
 * AF_PACKET socket of the caller's network namespace.
 *
 * What the kernel's dumps do that a caller must allow for (seen on Linux
 * 6.18, and in its sources):
 *  - the TCP dump lists the subflows of every MPTCP socket with the MPTCP
 *    socket's own inode, and with the subflow's state and buffer sizes:
 *    where an inode is in both, the MPTCP dump's record is the socket's;
 *  - a netlink socket bound to multicast groups may be listed twice in
 *    one dump (from the table of bound sockets and from the list of
 *    listeners), with the same facts;
 *  - a dump the kernel cannot make (no raw_diag, no mptcp_diag) may be
 *    refused by NLMSG_ERROR or by an NLMSG_DONE carrying -ENOENT; both
 *    come back from diag_parse() as DIAG_ERROR with ENOENT;
 *  - TIME_WAIT and SYN_RECV entries of the TCP dump have inode 0;
 *  - a socket can be created or closed while the dump runs: a record may
 *    be missing, and a dump is never a snapshot.
 */
#ifndef	_DIAG_PARSE_H
#define	_DIAG_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* What diag_parse() returns. */
#define	DIAG_MORE	0	/* the dump goes on: receive the next one */
#define	DIAG_DONE	1	/* NLMSG_DONE was seen: the dump is complete */
#define	DIAG_ERROR	2	/* *errp says why; discard the whole dump */

/* diag_sock_t.ds_have: the facts that a record holds. */
#define	DS_NAME		0x0001	/* ds_name, ds_namelen */
#define	DS_PEER		0x0002	/* ds_peer, ds_peerlen */
#define	DS_PEER_INO	0x0004	/* ds_peer_ino (unix) */
#define	DS_PEER_UNKNOWN	0x0008	/* connected, but the peer's name unknown */
#define	DS_MEM		0x0010	/* ds_sndbuf, ds_rcvbuf */
#define	DS_UID		0x0020	/* ds_uid */
#define	DS_RQLEN	0x0040	/* ds_rqlen, ds_wqlen */
#define	DS_SHUTDOWN	0x0080	/* ds_shutdown */
#define	DS_SOCKOPT	0x0100	/* ds_inet_sockopt */
#define	DS_BOUND_IF	0x0200	/* ds_bound_if (every inet record) */
#define	DS_VFS		0x0400	/* ds_vfs_ino, ds_vfs_dev (unix path) */
#define	DS_V6ONLY	0x0800	/* ds_v6only (AF_INET6, listening/closed) */
#define	DS_IFINDEX	0x1000	/* ds_ifindex (packet) */

/* ds_shutdown: the kernel's RCV_SHUTDOWN and SEND_SHUTDOWN. */
#define	DS_SHUT_RD		0x1
#define	DS_SHUT_WR		0x2

/*
 * The netlink group words a record holds at most (ds_groups): 2,048
 * groups, more than any kernel's family has.
 */
#define	DIAG_NLGROUPS_MAX	64

/*
 * The bits of ds_inet_sockopt: the two bytes of struct inet_diag_sockopt
 * as one number, the first byte in the low 8 bits.  The bit numbers are
 * those of the kernel's bit fields as GCC lays them out on a
 * little-endian machine (the first field in the lowest bit).
 */
#define	DS_SO_RECVERR		0x0001
#define	DS_SO_IS_ICSK		0x0002
#define	DS_SO_FREEBIND		0x0004
#define	DS_SO_HDRINCL		0x0008
#define	DS_SO_MC_LOOP		0x0010
#define	DS_SO_TRANSPARENT	0x0020
#define	DS_SO_MC_ALL		0x0040
#define	DS_SO_NODEFRAG		0x0080
#define	DS_SO_BIND_ADDR_NO_PORT	0x0100
#define	DS_SO_RECVERR_RFC4884	0x0200
#define	DS_SO_DEFER_CONNECT	0x0400

/*
 * One socket from a dump, as getsockname/getsockopt inside its owner would
 * see it.  Fields whose DS_* bit is not in ds_have are zero.
 *
 *  ds_ino	the socket's inode number (st_ino of its fd); 0 for the TCP
 *		records that no fd can own (TIME_WAIT, SYN_RECV requests):
 *		they are delivered too, and the caller passes them over.
 *  ds_cookie	the socket's cookie, as getsockopt(SO_COOKIE) gives it: one
 *		socket's for its life, never another's (every record).
 *  ds_family	AF_INET, AF_INET6, AF_UNIX, AF_NETLINK or AF_PACKET: always
 *		the family of the request (a record of another is an error).
 *  ds_type	SOCK_STREAM, ...: unix udiag_type, netlink ndiag_type, packet
 *		pdiag_type; inet: from the protocol dumped (TCP and MPTCP
 *		SOCK_STREAM, UDP and UDP-Lite SOCK_DGRAM, raw SOCK_RAW).
 *  ds_protocol	inet: the protocol dumped, except for raw sockets, where it
 *		is the socket's own protocol (INET_DIAG_PROTOCOL; 255 when
 *		the kernel does not say); netlink: ndiag_protocol; packet:
 *		pdiag_num (the ethertype, host order); unix: 0.
 *  ds_state	the TCP_* state as the kernel reports it (an inet datagram
 *		socket is TCP_CLOSE, or TCP_ESTABLISHED once connected; a
 *		listening unix socket is TCP_LISTEN).
 *  ds_shutdown	INET_DIAG_SHUTDOWN / UNIX_DIAG_SHUTDOWN: the sk_shutdown bits
 *		(DS_SHUT_RD, DS_SHUT_WR); DS_SHUTDOWN.
 *  ds_sndbuf, ds_rcvbuf
 *		SK_MEMINFO_SNDBUF and SK_MEMINFO_RCVBUF: exactly what
 *		getsockopt(SO_SNDBUF / SO_RCVBUF) returns; DS_MEM.
 *  ds_rmem, ds_wmem
 *		SK_MEMINFO_RMEM_ALLOC and SK_MEMINFO_WMEM_ALLOC: the memory
 *		of what is queued to read and to send (sk_rmem_alloc,
 *		sk_wmem_alloc - 1), as SO_MEMINFO gives them; DS_MEM.
 *  ds_uid	the socket's owner uid (idiag_uid, UNIX_DIAG_UID,
 *		PACKET_DIAG_UID); DS_UID.  Netlink dumps have none.
 *  ds_rqlen, ds_wqlen
 *		unix: UNIX_DIAG_RQLEN, what SIOCINQ and SIOCOUTQ say (a
 *		listening socket: connections waiting, and its backlog);
 *		inet: idiag_rqueue and idiag_wqueue, the kernel's own
 *		counters (TCP: rcv_nxt - copied_seq, which counts a FIN
 *		received, and write_seq - snd_una; a TCP listener:
 *		connections waiting, and its backlog); DS_RQLEN.
 *  ds_peer_ino	unix: UNIX_DIAG_PEER, the inode of the peer; DS_PEER_INO.
 *		0 is possible: the peer's socket has been released (its
 *		owner closed it) while this one still holds it.
 *  ds_bound_if	inet: idiag_if, the interface bound to (SO_BINDTODEVICE or
 *		a link-local bind), 0 for none; DS_BOUND_IF.
 *  ds_inet_sockopt
 *		inet: INET_DIAG_SOCKOPT (Linux 5.10 and later), DS_SO_*
 *		above; DS_SOCKOPT.
 *  ds_v6only	AF_INET6: INET_DIAG_SKV6ONLY (IPV6_V6ONLY), which the
 *		kernel reports for listening and closed sockets; DS_V6ONLY.
 *  ds_vfs_ino, ds_vfs_dev
 *		unix bound to a path: UNIX_DIAG_VFS, the inode and (kernel
 *		encoded) device of the socket file; DS_VFS.
 *  ds_groups, ds_ngroups
 *		netlink: NETLINK_DIAG_GROUPS, every group joined, in words
 *		of 32 as NETLINK_LIST_MEMBERSHIPS gives them (group g + 1
 *		is bit g % 32 of word g / 32), as many as the kernel's
 *		bitmap of unsigned longs has, up to DIAG_NLGROUPS_MAX (the
 *		words past it are not kept); 0 words when the socket has
 *		joined none.  Every netlink record (no DS_* bit).
 *  ds_ifindex	packet: PACKET_DIAG_INFO's pdi_index, the interface the
 *		socket is bound to (0: any); DS_IFINDEX.  The attribute
 *		must hold a whole struct packet_diag_info.
 *  ds_name, ds_namelen
 *		DS_NAME: byte for byte what getsockname(2) returns in the
 *		owner, and the length it returns:
 *		- AF_INET: sockaddr_in {AF_INET, sport, src}, 16 bytes;
 *		- AF_INET6: sockaddr_in6 {AF_INET6, sport, flowinfo 0, src,
 *		  scope id}, 28 bytes, the scope id being ds_bound_if when
 *		  src needs one (link-local unicast, interface- and
 *		  link-local multicast), else 0, as the kernel computes it;
 *		- AF_UNIX: sun_path as the kernel stores it (a path with its
 *		  trailing NUL, an abstract name starting with a NUL, an
 *		  autobound name too), namelen offsetof(sun_path) plus its
 *		  length, which may exceed sizeof (struct sockaddr_un) by
 *		  one as getsockname's does for a 108-byte path; an unnamed
 *		  socket: only sun_family, namelen sizeof (sa_family_t);
 *		- AF_NETLINK: sockaddr_nl {AF_NETLINK, 0, portid, the first
 *		  32 groups (ds_groups[0], 0 for none)}, 12 bytes;
 *		- AF_PACKET with DS_IFINDEX: sockaddr_ll {AF_PACKET,
 *		  sll_protocol htons(pdiag_num), sll_ifindex ds_ifindex},
 *		  hatype, pkttype and halen 0, namelen offsetof(sll_addr):
 *		  getsockname's bytes where the socket is bound to no
 *		  interface; one bound to an interface has that device's
 *		  hardware type and address there too, which no dump
 *		  gives;
 *		- AF_PACKET of type SOCK_PACKET (whose getsockname gives
 *		  a sockaddr_pkt with the device's name), or without
 *		  PACKET_DIAG_INFO: only the family, namelen
 *		  sizeof (sa_family_t).
 *		The source address of an inet socket is the one it is bound
 *		to (rcv_saddr): the address getsockname returns unless the
 *		socket is bound to the wildcard and has sent without
 *		connecting, which a dump cannot tell.
 *  ds_peer, ds_peerlen
 *		DS_PEER: what getpeername(2) returns, set only where it
 *		would succeed:
 *		- inet: {dport, dst} (v6 with the scope id rule above and
 *		  flowinfo 0) when dport is not 0 and the state is neither
 *		  TCP_CLOSE nor TCP_SYN_SENT;
 *		- netlink: always (the kernel, or the connected peer):
 *		  {AF_NETLINK, 0, dst_portid, dst_group ? 1 << (dst_group
 *		  - 1) : 0}, 12 bytes (a dst_group above 32, which the
 *		  kernel never has, gives 0);
 *		- unix: never from diag_parse(), whose message holds only
 *		  the peer's inode: see diag_unix_peer();
 *		- packet: never.
 */
typedef struct diag_sock {
	uint64_t	ds_ino;
	uint64_t	ds_cookie;	/* SO_COOKIE's; 0: none given */
	uint32_t	ds_have;	/* DS_* */
	int		ds_family;
	int		ds_type;
	int		ds_protocol;
	int		ds_state;
	int		ds_shutdown;
	uint32_t	ds_sndbuf, ds_rcvbuf;
	uint32_t	ds_rmem, ds_wmem;
	uint32_t	ds_uid;
	uint32_t	ds_rqlen, ds_wqlen;
	uint64_t	ds_peer_ino;
	uint32_t	ds_bound_if;
	uint16_t	ds_inet_sockopt;
	uint8_t		ds_v6only;
	uint32_t	ds_vfs_ino, ds_vfs_dev;
	uint32_t	ds_ifindex;
	uint32_t	ds_ngroups;
	uint32_t	ds_groups[DIAG_NLGROUPS_MAX];
	struct sockaddr_storage ds_name;
	socklen_t	ds_namelen;
	struct sockaddr_storage ds_peer;
	socklen_t	ds_peerlen;
} diag_sock_t;

/*
 * Which dump a request asks for, and a reply answers.  dr_family is
 * AF_INET, AF_INET6, AF_UNIX, AF_NETLINK or AF_PACKET; dr_protocol, for
 * AF_INET and AF_INET6 only (0 otherwise), is IPPROTO_TCP, IPPROTO_UDP,
 * IPPROTO_UDPLITE, IPPROTO_RAW (every raw socket, whatever its protocol)
 * or IPPROTO_MPTCP.
 */
typedef struct diag_req {
	int	dr_family;
	int	dr_protocol;
} diag_req_t;

/*
 * Every dump there is, in the order a caller that wants all sockets would
 * make them.  A kernel without the module of one (raw_diag, udp_diag,
 * mptcp_diag) answers its request with NLMSG_ERROR ENOENT.
 */
extern const diag_req_t diag_reqs[];
extern const size_t diag_nreqs;

/* Is req one that diag_build_req() and diag_parse() know? 1 or 0. */
extern int diag_req_valid(const diag_req_t *req);

/*
 * The TCP states an inet request asks for: every state but those whose
 * sockets no fd can hold (TIME_WAIT, and the request sockets of SYN_RECV
 * and NEW_SYN_RECV), which a busy host has by the ten thousand.
 */
#define	DIAG_INET_STATES	(~0U & ~((1U << 6) | (1U << 3) | (1U << 12)))

/*
 * The largest request diag_build_req() makes, in bytes: a buffer of this
 * size is always big enough.
 */
#define	DIAG_REQ_MAX	128

/*
 * Build the dump request for req with sequence number seq into buf: an
 * nlmsghdr (SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, nlmsg_pid 0)
 * followed by
 *  - inet: struct inet_diag_req_v2 for DIAG_INET_STATES, with idiag_ext asking
 *    for INET_DIAG_SKMEMINFO (INET_DIAG_SHUTDOWN and, since Linux 5.10,
 *    INET_DIAG_SOCKOPT come unasked); for raw sockets the same bytes as
 *    struct inet_diag_req_raw with sdiag_raw_protocol 0 (a dump is not
 *    filtered by it); for MPTCP, whose number does not fit in
 *    sdiag_protocol, an INET_DIAG_REQ_PROTOCOL attribute after it;
 *  - unix: struct unix_diag_req for every state, with UDIAG_SHOW_NAME,
 *    VFS, PEER, RQLEN, MEMINFO and UID;
 *  - netlink: struct netlink_diag_req for NDIAG_PROTO_ALL with
 *    NDIAG_SHOW_GROUPS and NDIAG_SHOW_MEMINFO;
 *  - packet: struct packet_diag_req with PACKET_SHOW_INFO (which brings
 *    PACKET_DIAG_UID too) and PACKET_SHOW_MEMINFO.
 * Returns the length of the request (its nlmsg_len), or 0 when req is not
 * valid or cap is too small (then buf is not written).
 */
extern size_t diag_build_req(const diag_req_t *req, uint32_t seq, void *buf,
    size_t cap);

/* Called once per socket; nonzero stops the walk with that errno. */
typedef int diag_sock_cb_t(const diag_sock_t *, void *);

/* The dump a datagram answers, the same for every datagram of it. */
typedef struct diag_dump {
	const diag_req_t *dd_req;	/* what the request was built from */
	uint32_t	dd_seq;		/* the request's sequence number */
	diag_sock_cb_t	*dd_cb;		/* called once per socket, or NULL */
	void		*dd_arg;	/* dd_cb's second argument */
} diag_dump_t;

/*
 * Parse one datagram as received from the NETLINK_SOCK_DIAG socket.
 *
 * from_pid is nl_pid of the sender's sockaddr_nl (recvfrom's address): it
 * must be 0, the kernel.  dd_seq is the request's sequence number, which
 * every message must carry.  dd_req says which dump the datagram answers;
 * it must be one diag_build_req() built the request from (the parser
 * counts on the attributes that request asks for: a unix socket with no
 * UNIX_DIAG_NAME is unnamed).
 *
 * The datagram holds whole netlink messages, each at an NLMSG_ALIGN'd
 * offset: SOCK_DIAG_BY_FAMILY records, each delivered to dd_cb as it is
 * parsed, then possibly NLMSG_DONE.  Returns
 *  DIAG_MORE	all the messages were records: the dump goes on;
 *  DIAG_DONE	NLMSG_DONE ended the datagram (with no error in it);
 *  DIAG_ERROR	with *errp set to a positive errno:
 *		- the error of NLMSG_ERROR, or the negative value NLMSG_DONE
 *		  carries when the kernel's dump failed;
 *		- EINTR when a message has NLM_F_DUMP_INTR (the dump was
 *		  inconsistent: make it again);
 *		- EPROTO for a message that is not for this request: a
 *		  sender other than the kernel, a wrong nlmsg_seq, an
 *		  nlmsg_type other than the three above, a record of another
 *		  family than the request's, an NLMSG_ERROR of 0 (an ack);
 *		- EBADMSG for malformed bytes: a message shorter than its
 *		  header or longer than the rest of the datagram, a record
 *		  too short for its diag structure, an attribute shorter
 *		  than its header or longer than the rest of its message,
 *		  stray bytes after the last attribute or message (anything
 *		  after NLMSG_DONE included), an attribute too short for
 *		  what it must hold, a unix name too long for a sockaddr;
 *		- EINVAL when dd is NULL or dd_req not valid, or buf is
 *		  NULL with len > 0;
 *		- the callback's nonzero return, which stops the walk.
 * On DIAG_ERROR no further callback is made for this datagram, but the
 * records before the bad message may have been delivered already: the
 * caller then discards the whole dump, every datagram of it included.
 * Nothing is kept between calls; the record handed to dd_cb lives only for
 * the call.
 */
extern int diag_parse(const void *buf, size_t len, uint32_t from_pid,
    const diag_dump_t *dd, int *errp);

/*
 * Give the unix socket ds its peer name, from peer_rec, the record of the
 * same dump whose ds_ino is ds->ds_peer_ino.  getpeername(2) on a unix
 * socket returns the peer's address: its bound name, or only the family
 * when the peer is unnamed; so ds_peer becomes a copy of the peer's
 * ds_name (DS_PEER set).
 *
 * Convention for a peer that is not in the dump: a socket whose peer was
 * released (ds_peer_ino 0) or whose peer's record was not found is still
 * connected for getpeername(2), which succeeds with the name the peer had;
 * the dump no longer tells that name.  Call diag_unix_peer() with peer_rec
 * NULL: it sets DS_PEER_UNKNOWN and clears DS_PEER.  The same is done when
 * ds_peer_ino is 0, or peer_rec is not a usable record of that inode (not
 * AF_UNIX, another ds_ino, no DS_NAME), whatever peer_rec is.
 *
 * ds without DS_PEER_INO is not connected (getpeername fails with
 * ENOTCONN), and ds that is not AF_UNIX has no unix peer: then nothing is
 * changed.
 */
extern void diag_unix_peer(const diag_sock_t *peer_rec, diag_sock_t *ds);

#endif	/* _DIAG_PARSE_H */
