/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * pfiles_state.bpf.h: a socket's state and queues, and a netlink
 * socket's groups, for the BPF program: what TCP_INFO, SIOCINQ,
 * SIOCOUTQ, SO_MEMINFO and NETLINK_LIST_MEMBERSHIPS give, read from the
 * kernel's structures (the meaning of r_rq and r_wq is pfiles_bpf.h's).
 * Part of pfiles.bpf.c: pfiles_sock.bpf.h includes it after what it
 * uses (the record, sock_flag_set()); compiled only there.
 *
 * The program reads without the socket's locks, which the kernel's calls
 * take.  So of two counters one of which never passes the other
 * (copied_seq and rcv_nxt), the one behind is read first: their
 * difference is never below zero, nor more than it became while they
 * were read; and a queue that changes while it is walked is left
 * unknown, never summed from two moments.
 */
#ifndef	_PFILES_STATE_BPF_H
#define	_PFILES_STATE_BPF_H

/*
 * SIOCOUTQ of a unix socket, SO_MEMINFO's SK_MEMINFO_WMEM_ALLOC of any:
 * sk_wmem_alloc_get(), the count less the one the socket holds itself.
 */
static __always_inline __u32
sk_outq(struct sock *sk)
{
	return ((__u32)sk->sk_wmem_alloc.refs.counter - 1);
}

/*
 * A unix socket's receive queue, summed as unix_inq_len() sums it: the
 * bytes of each skb not yet read (unix_skb_len(): skb->len less
 * UNIXCB(skb).consumed), by one bpf_loop() (one step for the verifier
 * to check), at most PFB_QWALK skbs.  The walk's state is in map
 * memory, its pointers plain values read through with
 * bpf_probe_read_kernel() (see pfiles_locks.bpf.h).
 */
struct qwalk {
	__u64	qw_head;	/* &sk->sk_receive_queue */
	__u64	qw_pos;		/* the next skb */
	__u64	qw_sum;
	__u32	qw_off_len;	/* of skb->len */
	__u32	qw_off_consumed;	/* of UNIXCB(skb).consumed */
	__u32	qw_n;		/* skbs summed */
	__u32	qw_done;	/* 1: back at the head; 2: a read failed */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct qwalk);
} pfb_qwalk SEC(".maps");

/* A __u32 at off from the kernel address at; 0 and *bad set if unread. */
static __always_inline __u32
read32(__u64 at, __u32 off, __u32 *bad)
{
	__u32 v = 0;

	if (bpf_probe_read_kernel(&v, sizeof (v), (const char *)at + off) != 0)
		*bad = 2;
	return (v);
}

static long
queue_step(__u64 index __attribute__((unused)),
    void *arg __attribute__((unused)))
{
	__u32 zero = 0, len, consumed;
	struct qwalk *qw = bpf_map_lookup_elem(&pfb_qwalk, &zero);
	__u64 pos, next = 0;

	if (qw == NULL)
		return (1);
	pos = qw->qw_pos;
	if (pos == qw->qw_head) {
		qw->qw_done = 1;
		return (1);
	}
	if (pos == 0 || qw->qw_n >= PFB_QWALK)
		return (1);
	len = read32(pos, qw->qw_off_len, &qw->qw_done);
	consumed = read32(pos, qw->qw_off_consumed, &qw->qw_done);
	/* skb->next: the first member of struct sk_buff in every kernel */
	if (bpf_probe_read_kernel(&next, sizeof (next), (const void *)pos) !=
	    0)
		qw->qw_done = 2;
	if (qw->qw_done != 0)
		return (1);
	qw->qw_sum += len - consumed;
	qw->qw_n++;
	qw->qw_pos = next;
	return (0);
}

/*
 * The sum of the receive queue of the unix socket sk into *sum: 1, or 0
 * when it is longer than PFB_QWALK skbs, changed while it was walked, or
 * could not be read (then the queues are left unknown).
 */
static __always_inline int
queue_sum(struct sock *sk, __u32 *sum)
{
	struct qwalk *qw;
	__u32 zero = 0, qlen = sk->sk_receive_queue.qlen;

	if (qlen > PFB_QWALK ||
	    (qw = bpf_map_lookup_elem(&pfb_qwalk, &zero)) == NULL)
		return (0);
	qw->qw_head = (__u64)&sk->sk_receive_queue;
	qw->qw_pos = (__u64)sk->sk_receive_queue.next;
	qw->qw_sum = 0;
	qw->qw_n = 0;
	qw->qw_done = 0;
	qw->qw_off_len = bpf_core_field_offset(struct sk_buff, len);
	qw->qw_off_consumed = bpf_core_field_offset(struct sk_buff, cb) +
	    bpf_core_field_offset(struct unix_skb_parms, consumed);
	(void) bpf_loop(PFB_QWALK + 1, queue_step, NULL, 0);
	if (qw->qw_done != 1 || qw->qw_n != qlen ||
	    sk->sk_receive_queue.qlen != qlen || qw->qw_sum > 0xffffffffULL)
		return (0);
	*sum = (__u32)qw->qw_sum;
	return (1);
}

/*
 * A unix socket (unix_ioctl(), unix_inq_len(), unix_outq_len(); for a
 * listener, what unix_diag's UNIX_DIAG_RQLEN gives): a datagram socket
 * its first datagram's length; a stream or seqpacket socket its state,
 * and its bytes to read, or for a listener its connections waiting.
 */
static __always_inline void
fill_unix_state(struct pfb_rec *r, struct sock *sk)
{
	unsigned int state = sk->__sk_common.skc_state;
	struct sk_buff *first = sk->sk_receive_queue.next;
	__u32 inq = 0, outq = sk_outq(sk);

	if (r->r_type == K_SOCK_DGRAM) {
		/* skb_peek(): the head itself when the queue is empty */
		if (first != (struct sk_buff *)&sk->sk_receive_queue)
			inq = BPF_CORE_READ(first, len);
		r->r_rq = inq;
		r->r_wq = outq;
		r->r_sock_have |= PFB_S_QUEUES;
		return;
	}
	if (r->r_type != K_SOCK_STREAM && r->r_type != K_SOCK_SEQPACKET)
		return;
	r->r_state = state;
	r->r_sock_have |= PFB_S_STATE;
	if (state == K_TCP_LISTEN) {
		r->r_rq = sk->sk_receive_queue.qlen;
		r->r_wq = sk->sk_max_ack_backlog;
		r->r_sock_have |= PFB_S_QUEUES;
		return;
	}
	/* A stream socket's count, kept since 6.17; a seqpacket's summed */
	if (r->r_type == K_SOCK_STREAM &&
	    bpf_core_field_exists(struct unix_sock___inq, inq_len))
		inq = BPF_CORE_READ((struct unix_sock___inq *)sk, inq_len);
	else if (!queue_sum(sk, &inq))
		return;
	r->r_rq = inq;
	r->r_wq = outq;
	r->r_sock_have |= PFB_S_QUEUES;
}

/*
 * A TCP socket (its sock a tcp_sock: checked by the caller): its state;
 * a listener's backlog as TCP_INFO gives it (tcpi_unacked, tcpi_sacked);
 * else the counters that tcp_inq() and SIOCOUTQ (tcp_ioctl()) start
 * from, and whether a FIN was received, which sockfacts_tcp() uses as
 * they do.  Urgent data is not taken into account: where some not read
 * inline is pending, tcp_inq() stops at its mark, and SIOCINQ says less
 * than this (the socket tables cannot tell it either).  copied_seq is
 * read before rcv_nxt and snd_una before write_seq: each pair's first
 * never passes its second.
 */
static __always_inline void
fill_tcp_state(struct pfb_rec *r, struct sock *sk, unsigned int state)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u32 copied, una;

	r->r_state = state;
	r->r_sock_have |= PFB_S_STATE | PFB_S_QUEUES;
	if (state == K_TCP_LISTEN) {
		r->r_rq = sk->sk_ack_backlog;
		r->r_wq = sk->sk_max_ack_backlog;
		return;
	}
	/* No BTF pointer to the tcp_sock: read, not loaded */
	copied = BPF_CORE_READ(tp, copied_seq);
	r->r_rq = BPF_CORE_READ(tp, rcv_nxt) - copied;
	una = BPF_CORE_READ(tp, snd_una);
	r->r_wq = BPF_CORE_READ(tp, write_seq) - una;
	if (sock_flag_set(sk->__sk_common.skc_flags,
	    bpf_core_enum_value(enum sock_flags, SOCK_DONE)))
		r->r_sock_have |= PFB_S_FIN;
}

/*
 * The state and queues of an inet socket, where it has them
 * (sockstate_kind() of sockrec.c): TCP's (MPTCP's sock is not a tcp_sock:
 * left to the calls), and a datagram or raw socket's memory as
 * SO_MEMINFO gives it (sk_rmem_alloc; sk_wmem_alloc less the one the
 * socket holds itself, sk_wmem_alloc_get()).  A subprogram, after
 * fill_sockopts() (see "Relocations" in pfiles.bpf.c).
 */
static __attribute__((noinline)) void
fill_inet_state(struct pfb_rec *r, struct sock *sk)
{
	unsigned int state = sk->__sk_common.skc_state;

	if (r->r_type == K_SOCK_STREAM) {
		if (r->r_protocol == K_IPPROTO_TCP)
			fill_tcp_state(r, sk, state);
		return;
	}
	if (r->r_type != K_SOCK_DGRAM && r->r_type != K_SOCK_RAW)
		return;
	r->r_rq = (__u32)sk->sk_backlog.rmem_alloc.counter;
	r->r_wq = sk_outq(sk);
	r->r_sock_have |= PFB_S_QUEUES;
}

/*
 * A netlink socket's groups as NETLINK_LIST_MEMBERSHIPS gives them: the
 * words of 32 of its bitmap (nlk->groups, nlk->ngroups bits, allocated
 * in whole longs), at most PFB_NLGROUPS_MAX, after the record's empty
 * path (PFB_GROUPS_AT), r_ngroups of them; none when they could not be
 * read.  ngroups is read before groups: a bitmap is only ever made
 * larger, and ngroups set after it.  The words are the bitmap's bytes: a
 * long's two halves are its words in order on a little-endian machine
 * (pfiles_bpf.h).
 */
static __always_inline void
fill_groups(struct pfb_rec *r, struct sock *sk)
{
	/* nlk_sk(sk): no BTF pointer to it, so read, not loaded */
	struct netlink_sock *nlk = (struct netlink_sock *)sk;
	__u32 ng = BPF_CORE_READ(nlk, ngroups), n, size;
	unsigned long *groups = BPF_CORE_READ(nlk, groups);

	n = groups == NULL ? 0 : ng / 32 + (ng % 32 != 0);
	if (n > PFB_NLGROUPS_MAX)
		n = PFB_NLGROUPS_MAX;
	size = PFB_GROUPS_SIZE(n);
	if (n > 0) {
		/* The last 8 bytes zeroed: an odd count's pad */
		*(__u64 *)&r->r_path[PFB_GROUPS_AT + size - 8] = 0;
		if (bpf_probe_read_kernel(&r->r_path[PFB_GROUPS_AT], n * 4,
		    groups) != 0)
			return;
	}
	r->r_ngroups = (__u16)n;
	r->r_sock_have |= PFB_S_GROUPS;
}

#endif	/* _PFILES_STATE_BPF_H */
