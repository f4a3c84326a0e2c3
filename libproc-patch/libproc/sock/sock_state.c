/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_state.c: a socket's state, its queues and a netlink socket's
 * groups, from what the socket itself answers (socksrc.h), written once
 * for the sources that ask it: the pidfd source and the agent's passing
 * (sock_local.c), and the agent's batch in the target.  What answers each
 * fact, for the same value as the kernel's socket tables give:
 *  - TCP: the state, TCP_INFO's tcpi_state (sk_state); a listener's
 *    backlog, which TCP_INFO gives in tcpi_unacked (connections waiting)
 *    and tcpi_sacked (the limit); else the queues, SIOCINQ and SIOCOUTQ.
 *    Only TCP_INFO's first SOCKSTATE_TCPI_LEN bytes are asked: the kernel
 *    copies no more than that.
 *  - unix stream and seqpacket: LISTEN by SO_ACCEPTCONN, else
 *    ESTABLISHED with a peer and CLOSE without; the queues, SIOCINQ and
 *    SIOCOUTQ.  No ioctl tells a unix listener's backlog (SIOCINQ refuses
 *    a listener): only the tables have it.
 *  - unix datagram: SIOCINQ and SIOCOUTQ, queued alone.
 *  - inet datagram and raw (UDP, UDP-Lite, ICMP, raw): SO_MEMINFO's
 *    receive and send memory, SK_MEMINFO_RMEM_ALLOC and _WMEM_ALLOC.
 *  - netlink: NETLINK_LIST_MEMBERSHIPS, every group word the kernel
 *    gives, up to SF_NLGROUPS_MAX (it says how long the whole is, which
 *    may be more than the room it was given: the rest is left out).
 * The agent's batch asks every question of every socket, its family not
 * known until it has run: only the answers that apply are taken.
 */
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <string.h>
#include <sys/ioctl.h>

#include "sock/socksrc.h"

#ifndef	SOL_NETLINK
#define	SOL_NETLINK	270	/* include/linux/socket.h */
#endif

#define	SQ_SOCKOPT(bit, level, name, field)				\
	[bit] = { 0, level, name, offsetof(sockstate_ans_t, field),	\
	    sizeof (((sockstate_ans_t *)0)->field) }
#define	SQ_IOCTL(bit, name, field)					\
	[bit] = { 1, 0, name, offsetof(sockstate_ans_t, field), sizeof (int) }

static const sockstate_q_t questions[SW_N] = {
	SQ_SOCKOPT(SWQ_TCPINFO, IPPROTO_TCP, TCP_INFO, st_tcpi),
	SQ_IOCTL(SWQ_INQ, SIOCINQ, st_inq),
	SQ_IOCTL(SWQ_OUTQ, SIOCOUTQ, st_outq),
	SQ_SOCKOPT(SWQ_MEMINFO, SOL_SOCKET, SO_MEMINFO, st_mem),
	SQ_SOCKOPT(SWQ_GROUPS, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS,
	    st_groups),
};

const sockstate_q_t *
sockstate_questions(void)
{
	return (questions);
}

void *
sockstate_slot(sockstate_ans_t *st, int i)
{
	return ((char *)st + questions[i].sq_off);
}

void
sockstate_answered(sockstate_ans_t *st, int i, socklen_t len)
{
	st->st_got |= 1U << i;
	st->st_len[i] = len;
}

/* Which questions apply to a socket of its family, type and protocol. */
static uint_t
applies(const sockfacts_t *sf)
{
	int kind;

	if ((sf->sf_have & (SF_DOMAIN | SF_TYPE)) != (SF_DOMAIN | SF_TYPE))
		return (0);
	if (sf->sf_domain == AF_NETLINK)
		return (SW_GROUPS);
	kind = sockstate_kind(sf->sf_domain, sf->sf_type, sf->sf_protocol);
	if (kind == 0)
		return (0);
	if (sf->sf_domain == AF_UNIX)
		return (SW_INQ | SW_OUTQ);
	return (kind == SOCKSTATE_LINE ? SW_TCPINFO | SW_INQ | SW_OUTQ :
	    SW_MEMINFO);
}

/* Is the socket a listener: 1, 0, or -1 when not known (yet). */
static int
listener(const sockfacts_t *sf)
{
	if (sf->sf_have & SF_STATE)
		return (sf->sf_state == PR_SS_LISTEN);
	if (sf->sf_bools.pr_known & PR_SO_ACCEPTCONN)
		return ((sf->sf_bools.pr_set & PR_SO_ACCEPTCONN) != 0);
	return (-1);
}

uint_t
sockstate_wants(const sockfacts_t *sf)
{
	uint_t w = applies(sf), want = 0;
	int lis = listener(sf);

	if ((w & SW_GROUPS) && !(sf->sf_have & SF_GROUPS))
		want |= SW_GROUPS;
	if ((w & SW_MEMINFO) && !(sf->sf_have & SF_QUEUES))
		want |= SW_MEMINFO;
	/* TCP: the state, and a listener's backlog, are TCP_INFO's. */
	if ((w & SW_TCPINFO) && (!(sf->sf_have & SF_STATE) ||
	    (!(sf->sf_have & SF_QUEUES) && lis != 0)))
		want |= SW_TCPINFO;
	/* Not known to listen: its queues (a listener refuses SIOCINQ). */
	if ((w & SW_INQ) && !(sf->sf_have & SF_QUEUES) && lis != 1)
		want |= SW_INQ | SW_OUTQ;
	return (want);
}

static void
set_queues(sockfacts_t *sf, uint_t queues, uint32_t rq, uint32_t wq)
{
	sf->sf_queues = queues;
	sf->sf_rq = rq;
	sf->sf_wq = wq;
	sf->sf_have |= SF_QUEUES;
}

/* TCP_INFO's state, and a listener's backlog. */
static void
take_tcpinfo(sockfacts_t *sf, const sockstate_ans_t *st)
{
	uint32_t waiting, limit;
	int state = st->st_tcpi[offsetof(struct tcp_info, tcpi_state)];

	if (st->st_len[SWQ_TCPINFO] < SOCKSTATE_TCPI_LEN || state < 1 ||
	    state > PR_SS_MAX)
		return;
	if (!(sf->sf_have & SF_STATE)) {
		sf->sf_state = state;
		sf->sf_have |= SF_STATE;
	}
	if (sf->sf_state != PR_SS_LISTEN || state != PR_SS_LISTEN ||
	    (sf->sf_have & SF_QUEUES))
		return;
	memcpy(&waiting, st->st_tcpi + offsetof(struct tcp_info,
	    tcpi_unacked), sizeof (waiting));
	memcpy(&limit, st->st_tcpi + offsetof(struct tcp_info, tcpi_sacked),
	    sizeof (limit));
	set_queues(sf, PR_SSQ_BACKLOG, waiting, limit);
}

/* A connection-oriented unix socket's state: listening, peer, or none. */
static void
take_unix_state(sockfacts_t *sf)
{
	int lis = listener(sf);

	if (lis < 0)
		return;
	if (lis)
		sf->sf_state = PR_SS_LISTEN;
	else if (sf->sf_have & SF_PEER)
		sf->sf_state = PR_SS_ESTABLISHED;
	else if (sf->sf_nopeer)
		sf->sf_state = PR_SS_CLOSE;
	else
		return;
	sf->sf_have |= SF_STATE;
}

static void
take_groups(sockfacts_t *sf, const sockstate_ans_t *st)
{
	size_t len = st->st_len[SWQ_GROUPS];

	if (len > sizeof (st->st_groups))
		len = sizeof (st->st_groups);	/* the rest is left out */
	sf->sf_ngroups = (uint_t)(len / sizeof (st->st_groups[0]));
	memcpy(sf->sf_groups, st->st_groups,
	    sf->sf_ngroups * sizeof (st->st_groups[0]));
	sf->sf_have |= SF_GROUPS;
}

void
sockstate_take(sockfacts_t *sf, const sockstate_ans_t *st)
{
	uint_t w = applies(sf), got = st->st_got & w;

	if (got & SW_TCPINFO)
		take_tcpinfo(sf, st);
	if (sf->sf_domain == AF_UNIX && !(sf->sf_have & SF_STATE) &&
	    sockstate_kind(AF_UNIX, sf->sf_type, -1) == SOCKSTATE_LINE)
		take_unix_state(sf);
	/*
	 * The queues of a socket that does not listen: SIOCINQ answered
	 * says it does not (a listener refuses it), whatever else is known.
	 */
	if ((got & (SW_INQ | SW_OUTQ)) == (SW_INQ | SW_OUTQ) &&
	    !(sf->sf_have & SF_QUEUES) && st->st_inq >= 0 &&
	    st->st_outq >= 0 && listener(sf) != 1)
		set_queues(sf, PR_SSQ_QUEUED, (uint32_t)st->st_inq,
		    (uint32_t)st->st_outq);
	if ((got & SW_MEMINFO) && !(sf->sf_have & SF_QUEUES) &&
	    st->st_len[SWQ_MEMINFO] >= sizeof (st->st_mem))
		set_queues(sf, PR_SSQ_QUEUED,
		    st->st_mem[SK_MEMINFO_RMEM_ALLOC],
		    st->st_mem[SK_MEMINFO_WMEM_ALLOC]);
	if ((got & SW_GROUPS) && !(sf->sf_have & SF_GROUPS))
		take_groups(sf, st);
}
