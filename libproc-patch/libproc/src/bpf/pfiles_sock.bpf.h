/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * pfiles_sock.bpf.h: a socket's facts, for the BPF program: its options
 * as getsockopt(2) gives them, its two names as getsockname(2) and
 * getpeername(2) give them, a unix peer's pid (SO_PEERCRED), the inode
 * of a unix socket's peer, and (pfiles_state.bpf.h) its state, queues
 * and netlink groups; part of pfiles.bpf.c, which includes it
 * after what it uses (the record, the reader's pid namespace), and
 * compiled only there.
 */
#ifndef	_PFILES_SOCK_BPF_H
#define	_PFILES_SOCK_BPF_H

static __always_inline int
sock_flag_set(unsigned long flags, int bit)
{
	return ((flags >> bit) & 1);
}

#include "pfiles_state.bpf.h"

/*
 * The options of sk_getsockopt() (net/core/sock.c) and do_tcp_getsockopt()
 * (net/ipv4/tcp.c).
 */
static __attribute__((noinline)) void
fill_sockopts(struct pfb_rec *r, struct socket *so, struct sock *sk)
{
	unsigned long fl = sk->__sk_common.skc_flags;
	__u32 b = 0, known = PFB_SO_ALL & ~(PFB_SO_PASSCRED | PFB_TCP_NODELAY);

	/* SO_DEBUG: sock_flag(sk, SOCK_DBG) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags, SOCK_DBG)))
		b |= PFB_SO_DEBUG;
	/* SO_REUSEADDR: sk->sk_reuse */
	if (BPF_CORE_READ_BITFIELD(&sk->__sk_common, skc_reuse) != 0)
		b |= PFB_SO_REUSEADDR;
	/* SO_KEEPALIVE: sock_flag(sk, SOCK_KEEPOPEN) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_KEEPOPEN)))
		b |= PFB_SO_KEEPALIVE;
	/* SO_DONTROUTE: sock_flag(sk, SOCK_LOCALROUTE) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_LOCALROUTE)))
		b |= PFB_SO_DONTROUTE;
	/* SO_BROADCAST: sock_flag(sk, SOCK_BROADCAST) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_BROADCAST)))
		b |= PFB_SO_BROADCAST;
	/* SO_OOBINLINE: sock_flag(sk, SOCK_URGINLINE) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_URGINLINE)))
		b |= PFB_SO_OOBINLINE;
	/* SO_REUSEPORT: sk->sk_reuseport */
	if (BPF_CORE_READ_BITFIELD(&sk->__sk_common, skc_reuseport) != 0)
		b |= PFB_SO_REUSEPORT;
	/*
	 * SO_PASSCRED: since 6.16, -EOPNOTSUPP unless sk_may_scm_recv()
	 * (AF_UNIX, AF_NETLINK, AF_BLUETOOTH), else sk->sk_scm_credentials;
	 * before, test_bit(SOCK_PASSCRED, &sock->flags) of every socket.
	 */
	if (bpf_core_field_exists(struct sock___scm, sk_scm_credentials)) {
		if (r->r_family == K_AF_UNIX || r->r_family == K_AF_NETLINK ||
		    r->r_family == K_AF_BLUETOOTH) {
			known |= PFB_SO_PASSCRED;
			if (BPF_CORE_READ_BITFIELD((struct sock___scm *)sk,
			    sk_scm_credentials) != 0)
				b |= PFB_SO_PASSCRED;
		}
	} else {
		known |= PFB_SO_PASSCRED;
		if (sock_flag_set(so->flags, K_SOCK_PASSCRED))
			b |= PFB_SO_PASSCRED;
	}
	/* SO_ACCEPTCONN: sk->sk_state == TCP_LISTEN */
	if (sk->__sk_common.skc_state == K_TCP_LISTEN)
		b |= PFB_SO_ACCEPTCONN;
	/*
	 * TCP_NODELAY: !!(tcp_sk(sk)->nonagle & TCP_NAGLE_OFF), of an
	 * inet or inet6 stream socket of TCP, whose sock is a tcp_sock (as
	 * bpf_skc_to_tcp_sock() checks: a raw socket may be of IPPROTO_TCP).
	 * No BTF pointer to it: read, not loaded.
	 */
	if ((r->r_family == K_AF_INET || r->r_family == K_AF_INET6) &&
	    r->r_type == K_SOCK_STREAM && r->r_protocol == K_IPPROTO_TCP) {
		known |= PFB_TCP_NODELAY;
		if (BPF_CORE_READ_BITFIELD_PROBED((struct tcp_sock *)sk,
		    nonagle) & K_TCP_NAGLE_OFF)
			b |= PFB_TCP_NODELAY;
	}
	r->r_bools = b;
	r->r_bools_known = known;

	/* SO_LINGER: sock_flag(sk, SOCK_LINGER), sk_lingertime / HZ */
	r->r_linger_on = sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_LINGER));
	r->r_lingertime = sk->sk_lingertime;
	/* SO_SNDBUF, SO_RCVBUF: sk->sk_sndbuf, sk->sk_rcvbuf */
	r->r_sndbuf = sk->sk_sndbuf;
	r->r_rcvbuf = sk->sk_rcvbuf;
	r->r_sock_have |= PFB_S_LINGER | PFB_S_BUFS;
}

/*
 * An IPv6 address on the stack: a type of our own, not vmlinux.h's (whose
 * every access is relocated at load).
 */
struct ends_addr {
	__u32	w[4];
};

static __always_inline void
put16(__u8 *p, __u16 v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

/*
 * An inet socket's two ends as inet_getname() (net/ipv4/af_inet.c) and
 * inet6_getname() (net/ipv6/af_inet6.c) give them: the addresses as
 * IPv6 ones (an AF_INET socket's mapped, ::ffff:a.b.c.d), the ports in
 * network order.  Returns 0 when getpeername would fail (ENOTCONN).
 */
static __always_inline int
inet_ends(struct sock *sk, int family, struct ends_addr *own, __u16 *ownport,
    struct ends_addr *peer, __u16 *peerport)
{
	__u16 dport = sk->__sk_common.skc_dport;
	unsigned int state = sk->__sk_common.skc_state;
	__u32 a4;

	/* inet_sk(sk): no BTF pointer to it, so read, not loaded */
	*ownport = BPF_CORE_READ((struct inet_sock *)sk, inet_sport);
	if (family == K_AF_INET) {
		a4 = sk->__sk_common.skc_rcv_saddr;
		if (a4 == 0)
			a4 = BPF_CORE_READ((struct inet_sock *)sk, inet_saddr);
		own->w[0] = 0;
		own->w[1] = 0;
		own->w[2] = bpf_htonl(0xffff);
		own->w[3] = a4;
		peer->w[0] = 0;
		peer->w[1] = 0;
		peer->w[2] = bpf_htonl(0xffff);
		peer->w[3] = sk->__sk_common.skc_daddr;
	} else {
		__builtin_memcpy(own, &sk->__sk_common.skc_v6_rcv_saddr, 16);
		/* np->saddr: saddr is struct ipv6_pinfo's first member */
		if ((own->w[0] | own->w[1] | own->w[2] | own->w[3]) == 0)
			(void) bpf_probe_read_kernel(own, 16,
			    BPF_CORE_READ((struct inet_sock *)sk, pinet6));
		__builtin_memcpy(peer, &sk->__sk_common.skc_v6_daddr, 16);
	}
	*peerport = dport;
	return (dport != 0 && ((1U << state) &
	    ((1U << K_TCP_CLOSE) | (1U << K_TCP_SYN_SENT))) == 0);
}

/* A struct sockaddr_in or sockaddr_in6 of an end into a. */
static __always_inline void
put_inet(struct pfb_addr *a, int family, const struct ends_addr *in6,
    __u16 port)
{
	/* family, then the port (network order) */
	put16(a->a_data, family);
	__builtin_memcpy(a->a_data + 2, &port, 2);
	if (family == K_AF_INET) {
		__builtin_memcpy(a->a_data + 4, &in6->w[3], 4);
		a->a_len = 16;
	} else {
		/* sin6_flowinfo at 4, sin6_addr at 8, sin6_scope_id at 24 */
		__builtin_memcpy(a->a_data + 8, in6, 16);
		a->a_len = 28;
	}
}

static __always_inline void
fill_inet(struct pfb_rec *r, struct sock *sk)
{
	struct ends_addr own, peer;
	__u16 ownport, peerport;

	if (inet_ends(sk, r->r_family, &own, &ownport, &peer, &peerport))
		put_inet(&r->r_peername, r->r_family, &peer, peerport);
	else
		r->r_peername.a_err = -K_ENOTCONN;
	put_inet(&r->r_sockname, r->r_family, &own, ownport);
}

/*
 * unix_getname() (net/unix/af_unix.c): the unix_address of the unix
 * socket u as it is.  u is read, not loaded: a unix_sock is its struct
 * sock cast (unix_sk()), with no BTF pointer to it.
 */
static __always_inline void
fill_unix_addr(struct pfb_addr *a, struct unix_sock *u)
{
	struct unix_address *ua = BPF_CORE_READ(u, addr);
	unsigned int len;

	if (ua == NULL) {
		put16(a->a_data, K_AF_UNIX);
		a->a_len = 2;	/* offsetof(struct sockaddr_un, sun_path) */
		return;
	}
	len = BPF_CORE_READ(ua, len);
	if (len > PFB_ADDR_MAX)
		len = PFB_ADDR_MAX;
	/* a length the verifier cannot bound: read, not loaded */
	if (bpf_probe_read_kernel(a->a_data, len & (2 * PFB_ADDR_MAX - 1),
	    (char *)ua + bpf_core_field_offset(struct unix_address, name)) != 0) {
		a->a_err = -K_EOPNOTSUPP;	/* not what the kernel says */
		return;
	}
	a->a_len = len;
}

/*
 * An AF_UNIX socket (its family checked by the caller): its name, its
 * peer's (unix_peer(): the peer of a unix socket is a unix socket),
 * SO_PEERCRED's pid and that process's pidfs inode.
 */
static __always_inline void
fill_unix(struct pfb_rec *r, struct sock *sk, const struct reader_ns *rn)
{
	struct unix_sock *u = (struct unix_sock *)sk;
	struct unix_sock *pu = (struct unix_sock *)BPF_CORE_READ(u, peer);

	struct pid *pp = BPF_CORE_READ(sk, sk_peer_pid);
	__u64 ino;

	fill_unix_addr(&r->r_sockname, u);
	if (pu == NULL)
		r->r_peername.a_err = -K_ENOTCONN;
	else
		fill_unix_addr(&r->r_peername, pu);
	/* SO_PEERCRED: pid_vnr(sk->sk_peer_pid), in the reader's ns */
	r->r_peer_pid = pid_nr_in(pp, rn);
	r->r_sock_have |= PFB_S_PEERPID;
	/*
	 * The identity of that very process, never reused: its pidfs
	 * inode, which a pidfd of the process now with that pid shows.
	 */
	if (pp != NULL && r->r_peer_pid > 0 &&
	    bpf_core_field_exists(((struct pid___ino *)pp)->ino)) {
		ino = BPF_CORE_READ((struct pid___ino *)pp, ino);
		if (ino != 0 && ino <= 0xffffffffULL) {
			r->r_peer_ino = (__u32)ino;
			r->r_sock_have |= PFB_S_PEERINO;
		}
	}
}

/* netlink_getname() (net/netlink/af_netlink.c): struct sockaddr_nl. */
static __always_inline void
fill_netlink(struct pfb_rec *r, struct sock *sk)
{
	/* nlk_sk(sk): no BTF pointer to it, so read, not loaded */
	struct netlink_sock *nlk = (struct netlink_sock *)sk;
	unsigned long *groups = BPF_CORE_READ(nlk, groups);
	unsigned long g0 = 0;
	__u32 portid, grp, dg;

	portid = BPF_CORE_READ(nlk, portid);
	if (groups != NULL)
		(void) bpf_probe_read_kernel(&g0, sizeof (g0), groups);
	grp = (__u32)g0;
	put16(r->r_sockname.a_data, K_AF_NETLINK);
	__builtin_memcpy(r->r_sockname.a_data + 4, &portid, 4);
	__builtin_memcpy(r->r_sockname.a_data + 8, &grp, 4);
	r->r_sockname.a_len = 12;

	portid = BPF_CORE_READ(nlk, dst_portid);
	dg = BPF_CORE_READ(nlk, dst_group);
	/* netlink_group_mask() */
	grp = (dg == 0 || dg > 32) ? 0 : 1U << (dg - 1);
	put16(r->r_peername.a_data, K_AF_NETLINK);
	__builtin_memcpy(r->r_peername.a_data + 4, &portid, 4);
	__builtin_memcpy(r->r_peername.a_data + 8, &grp, 4);
	r->r_peername.a_len = 12;
}

/*
 * packet_getname() (net/packet/af_packet.c): of the struct sockaddr_ll
 * it gives, the family, the protocol (po->num, network order) and the
 * interface's index, which is what pfiles shows of it; the device's type
 * and address, which it looks up by that index, are not read.  A
 * SOCK_PACKET socket's name is another struct (packet_getname_spkt()):
 * left to the calls, as is every name where the kernel has no
 * packet_sock (AF_PACKET not built).
 */
static __always_inline void
fill_packet(struct pfb_rec *r, struct sock *sk)
{
	/* pkt_sk(sk): no BTF pointer to it, so read, not loaded */
	struct packet_sock *po = (struct packet_sock *)sk;
	__be16 num;
	int ifindex;

	/* a peer: -EOPNOTSUPP */
	r->r_peername.a_err = -K_EOPNOTSUPP;
	if (r->r_type == K_SOCK_PACKET ||
	    !bpf_core_type_exists(struct packet_sock))
		return;
	num = BPF_CORE_READ(po, num);
	ifindex = BPF_CORE_READ(po, ifindex);
	r->r_sockname.a_err = 0;
	put16(r->r_sockname.a_data, K_AF_PACKET);
	__builtin_memcpy(r->r_sockname.a_data + 2, &num, 2);
	__builtin_memcpy(r->r_sockname.a_data + 4, &ifindex, 4);
	r->r_sockname.a_len = 8;	/* offsetof (sockaddr_ll, sll_hatype) */
}

static __always_inline void
fill_sock(struct pfb_rec *r, struct socket *so, const struct reader_ns *rn)
{
	struct sock *sk;

	r->r_have |= PFB_H_SOCK;
	sk = so->sk;
	if (sk == NULL)
		return;
	r->r_sock_have |= PFB_S_SK;
	/* SO_DOMAIN, SO_TYPE, SO_PROTOCOL */
	r->r_family = sk->__sk_common.skc_family;
	r->r_type = sk->sk_type;
	r->r_protocol = sk->sk_protocol;
	fill_sockopts(r, so, sk);

	r->r_sockname.a_err = PFB_ENOTCOMPUTED;
	r->r_peername.a_err = PFB_ENOTCOMPUTED;
	switch (r->r_family) {
	case K_AF_INET:
	case K_AF_INET6:
		r->r_sockname.a_err = 0;
		r->r_peername.a_err = 0;
		fill_inet(r, sk);
		fill_inet_state(r, sk);
		break;
	case K_AF_UNIX:
		r->r_sockname.a_err = 0;
		r->r_peername.a_err = 0;
		fill_unix(r, sk, rn);
		fill_unix_state(r, sk);
		break;
	case K_AF_NETLINK:
		r->r_sockname.a_err = 0;
		r->r_peername.a_err = 0;
		fill_netlink(r, sk);
		fill_groups(r, sk);
		break;
	case K_AF_PACKET:
		fill_packet(r, sk);
		break;
	default:
		break;
	}
}

/*
 * sock_i_ino() (net/core/sock.c): the inode of the socket a struct sock
 * belongs to, 0 when it has none.  SOCK_INODE() is container_of: read.
 */
static __always_inline __u64
sock_ino(struct sock *sk)
{
	struct socket *so;

	if (sk == NULL || (so = BPF_CORE_READ(sk, sk_socket)) == NULL)
		return (0);
	return (BPF_CORE_READ((struct inode *)((char *)so +
	    bpf_core_field_offset(struct socket_alloc, vfs_inode)), i_ino));
}

#endif	/* _PFILES_SOCK_BPF_H */
