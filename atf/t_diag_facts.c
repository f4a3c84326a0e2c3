/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_diag_facts: a record of the kernel's socket tables into a socket's
 * facts (sock_table.c: sockfacts_from_table) and on into its record's
 * items (sockrec.c), for records built here with the values the test
 * chose: the state and queues of each kind of socket by the canonical
 * rules (SIOCINQ does not count a FIN, says nothing in the handshake; a
 * listener has a backlog), what the tables cannot tell (a TCP socket in
 * CLOSE with bytes to read and RCV_SHUTDOWN set, an MPTCP socket's
 * queues) left unknown and, for the diag source, said as a gap; a
 * netlink socket's groups; which facts a source that asks the socket
 * the rest (exact) takes from the tables.  t_diag_live has the running
 * kernel's tables.
 */
#include <atf-c.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netpacket/packet.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "libproc.h"
#include "netdiag/diag_parse.h"
#include "netdiag/diag_table.h"
#include "sock/socksrc.h"

/* ------------------------------------------------------------------ */
/* A table built by hand: its records, their names in its arena. */

#define	MAXENT	16

static diag_table_t tab;
static dent_t ents[MAXENT];
static uint8_t arena[8192];
static size_t nents;

static void
tab_reset(void)
{
	(void) memset(&tab, 0, sizeof (tab));
	(void) memset(ents, 0, sizeof (ents));
	nents = 0;
	tab.dt_ent = ents;
	tab.dt_arena = arena;
	tab.dt_sock = -1;
}

static dent_t *
ent(int family, int type, int protocol, int state)
{
	dent_t *e;

	ATF_REQUIRE(nents < MAXENT);
	e = &ents[nents++];
	e->de_ino = (uint32_t)(1000 + nents);
	e->de_family = (uint8_t)family;
	e->de_type = (uint8_t)type;
	e->de_protocol = (uint16_t)protocol;
	e->de_state = (uint8_t)state;
	e->de_names = (uint32_t)tab.dt_narena;
	return (e);
}

/* Bytes of the record's arena: its name, then its groups. */
static void
ent_put(dent_t *e, const void *p, size_t len)
{
	ATF_REQUIRE(e->de_names + e->de_namelen + e->de_peerlen +
	    e->de_ngroups * sizeof (uint32_t) == tab.dt_narena);
	ATF_REQUIRE(tab.dt_narena + len <= sizeof (arena));
	(void) memcpy(arena + tab.dt_narena, p, len);
	tab.dt_narena += len;
}

static void
ent_name(dent_t *e, const void *name, size_t len)
{
	ATF_REQUIRE(e->de_namelen == 0 && e->de_ngroups == 0);
	ent_put(e, name, len);
	e->de_namelen = (uint8_t)len;
	e->de_have |= DS_NAME;
}

static void
ent_groups(dent_t *e, const uint32_t *w, size_t n)
{
	ent_put(e, w, n * sizeof (*w));
	e->de_ngroups = (uint8_t)n;
}

static void
ent_queues(dent_t *e, uint32_t rq, uint32_t wq)
{
	e->de_rq = rq;
	e->de_wq = wq;
	e->de_have |= DS_RQLEN;
}

static void
ent_shutdown(dent_t *e, int how)
{
	e->de_shutdown = (uint8_t)how;
	e->de_have |= DS_SHUTDOWN;
}

static void
facts(const dent_t *e, int exact, sockfacts_t *sf)
{
	sockfacts_init(sf);
	sockfacts_from_table(sf, &tab, e, exact);
}

/*
 * The state and queues the facts hold: state -1 for none, queues 0 for
 * none (then rq and wq are not looked at).
 */
static void
want_state(const char *what, const sockfacts_t *sf, int state,
    uint_t queues, uint32_t rq, uint32_t wq)
{
	if (state < 0) {
		ATF_CHECK_MSG(!(sf->sf_have & SF_STATE), "%s: a state (%d)",
		    what, sf->sf_state);
	} else {
		ATF_CHECK_MSG(sf->sf_have & SF_STATE, "%s: no state", what);
		ATF_CHECK_EQ_MSG(sf->sf_state, state, "%s: state %d", what,
		    sf->sf_state);
	}
	if (queues == 0) {
		ATF_CHECK_MSG(!(sf->sf_have & SF_QUEUES), "%s: queues %u, %u",
		    what, sf->sf_rq, sf->sf_wq);
		return;
	}
	ATF_CHECK_MSG(sf->sf_have & SF_QUEUES, "%s: no queues", what);
	ATF_CHECK_EQ_MSG(sf->sf_queues, queues, "%s: kind %u", what,
	    sf->sf_queues);
	ATF_CHECK_EQ_MSG(sf->sf_rq, rq, "%s: %u to read", what, sf->sf_rq);
	ATF_CHECK_EQ_MSG(sf->sf_wq, wq, "%s: %u to send", what, sf->sf_wq);
}

/* The same for both kinds of source (exact or not). */
static void
want_both(const char *what, const dent_t *e, int state, uint_t queues,
    uint32_t rq, uint32_t wq)
{
	sockfacts_t sf;

	facts(e, 0, &sf);
	want_state(what, &sf, state, queues, rq, wq);
	facts(e, 1, &sf);
	want_state(what, &sf, state, queues, rq, wq);
}

/* ------------------------------------------------------------------ */

/*
 * A record (its counters when rq is not NONE, its shutdown bits when shut
 * is not NONE) and the state and queues both kinds of source take from
 * it (want_state's arguments).
 */
#define	NONE	0xffffffffU

typedef struct fcase {
	const char	*fc_what;
	int		fc_family, fc_type, fc_proto, fc_state;
	uint32_t	fc_rq, fc_wq;
	uint32_t	fc_shut;
	int		fc_want_state;
	uint_t		fc_want_q;
	uint32_t	fc_want_rq, fc_want_wq;
} fcase_t;

static void
run_cases(const fcase_t *fc, size_t n)
{
	tab_reset();
	for (size_t i = 0; i < n; i++) {
		dent_t *e = ent(fc[i].fc_family, fc[i].fc_type,
		    fc[i].fc_proto, fc[i].fc_state);

		if (fc[i].fc_rq != NONE)
			ent_queues(e, fc[i].fc_rq, fc[i].fc_wq);
		if (fc[i].fc_shut != NONE)
			ent_shutdown(e, (int)fc[i].fc_shut);
		want_both(fc[i].fc_what, e, fc[i].fc_want_state,
		    fc[i].fc_want_q, fc[i].fc_want_rq, fc[i].fc_want_wq);
	}
}

#define	RUN_CASES(fc)	run_cases((fc), sizeof (fc) / sizeof ((fc)[0]))
#define	TCP4		AF_INET, SOCK_STREAM, IPPROTO_TCP
#define	Q		PR_SSQ_QUEUED
#define	B		PR_SSQ_BACKLOG

ATF_TC_WITHOUT_HEAD(tcp_states);
ATF_TC_BODY(tcp_states, tc)
{
	static const fcase_t fc[] = {
		/* Bytes to read and to send, as the counters say. */
		{ "ESTABLISHED", TCP4, TCP_ESTABLISHED, 11, 22, NONE,
		    PR_SS_ESTABLISHED, Q, 11, 22 },
		/* The handshake: SIOCINQ, SIOCOUTQ say 0 (SYN counted). */
		{ "SYN_SENT", AF_INET6, SOCK_STREAM, IPPROTO_TCP,
		    TCP_SYN_SENT, 0, 1, NONE, PR_SS_SYN_SENT, Q, 0, 0 },
		/* A FIN received: counted by the kernel, not by SIOCINQ. */
		{ "CLOSE_WAIT", TCP4, TCP_CLOSE_WAIT, 6, 3, NONE,
		    PR_SS_CLOSE_WAIT, Q, 5, 3 },
		{ "LAST_ACK", TCP4, TCP_LAST_ACK, 1, 1, NONE,
		    PR_SS_LAST_ACK, Q, 0, 1 },
		/* None is received in FIN_WAIT2: every byte is data. */
		{ "FIN_WAIT2", TCP4, TCP_FIN_WAIT2, 7, 0, NONE,
		    PR_SS_FIN_WAIT2, Q, 7, 0 },
		/* A listener: connections waiting, the queue's limit. */
		{ "LISTEN", TCP4, TCP_LISTEN, 2, 511, NONE, PR_SS_LISTEN, B,
		    2, 511 },
		/* No counters in the record: the state alone. */
		{ "no counters", TCP4, TCP_ESTABLISHED, NONE, 0, NONE,
		    PR_SS_ESTABLISHED, 0, 0, 0 },
		/* CLOSE, RCV_SHUTDOWN clear: no FIN, every byte is data. */
		{ "CLOSE, RCV_SHUTDOWN clear", TCP4, TCP_CLOSE, 4, 9,
		    DS_SHUT_WR, PR_SS_CLOSE, Q, 4, 9 },
		/* Nothing to read: 0 whatever the FIN. */
		{ "CLOSE, nothing to read", TCP4, TCP_CLOSE, 0, 0,
		    DS_SHUT_RD | DS_SHUT_WR, PR_SS_CLOSE, Q, 0, 0 },
		/* MPTCP: its counters are its memory, not SIOCINQ's... */
		{ "MPTCP ESTABLISHED", AF_INET, SOCK_STREAM, IPPROTO_MPTCP,
		    TCP_ESTABLISHED, 4352, 0, NONE, PR_SS_ESTABLISHED, 0, 0,
		    0 },
		/* ... but a listener's are its backlog. */
		{ "MPTCP LISTEN", AF_INET6, SOCK_STREAM, IPPROTO_MPTCP,
		    TCP_LISTEN, 1, 128, NONE, PR_SS_LISTEN, B, 1, 128 },
	};

	RUN_CASES(fc);
}

/*
 * A TCP socket in CLOSE with bytes to read and RCV_SHUTDOWN set (after a
 * reset, or a FIN): one of them may be the FIN, which SIOCINQ does not
 * count.
 */
static dent_t *
close_unclear(void)
{
	dent_t *e = ent(AF_INET, SOCK_STREAM, IPPROTO_TCP, TCP_CLOSE);

	ent_queues(e, 4, 0);
	ent_shutdown(e, DS_SHUT_RD | DS_SHUT_WR);
	return (e);
}

ATF_TC_WITHOUT_HEAD(tcp_close);
ATF_TC_BODY(tcp_close, tc)
{
	sockfacts_t sf;
	dent_t *e;

	tab_reset();
	/*
	 * The diag source knows the state alone; a source that asks the
	 * socket takes neither from the table.
	 */
	e = close_unclear();
	facts(e, 0, &sf);
	want_state("CLOSE, RCV_SHUTDOWN, diag", &sf, PR_SS_CLOSE, 0, 0, 0);
	facts(e, 1, &sf);
	want_state("CLOSE, RCV_SHUTDOWN, exact", &sf, -1, 0, 0, 0);
	/* No INET_DIAG_SHUTDOWN: the same. */
	e = ent(AF_INET, SOCK_STREAM, IPPROTO_TCP, TCP_CLOSE);
	ent_queues(e, 4, 0);
	facts(e, 0, &sf);
	want_state("CLOSE, no shutdown, diag", &sf, PR_SS_CLOSE, 0, 0, 0);
	facts(e, 1, &sf);
	want_state("CLOSE, no shutdown, exact", &sf, -1, 0, 0, 0);
}

ATF_TC_WITHOUT_HEAD(datagram_and_unix);
ATF_TC_BODY(datagram_and_unix, tc)
{
	static const fcase_t fc[] = {
		/* Queues alone: the table's counts (memory), no state. */
		{ "UDP", AF_INET, SOCK_DGRAM, IPPROTO_UDP, TCP_ESTABLISHED,
		    1664, 768, NONE, -1, Q, 1664, 768 },
		{ "UDP-Lite", AF_INET6, SOCK_DGRAM, IPPROTO_UDPLITE,
		    TCP_CLOSE, 0, 0, NONE, -1, Q, 0, 0 },
		{ "raw", AF_INET, SOCK_RAW, IPPROTO_ICMP, TCP_CLOSE, 896, 0,
		    NONE, -1, Q, 896, 0 },
		/* A raw socket of protocol TCP is still a raw socket. */
		{ "raw TCP", AF_INET, SOCK_RAW, IPPROTO_TCP, TCP_CLOSE, 1, 2,
		    NONE, -1, Q, 1, 2 },
		/* No counts: nothing. */
		{ "UDP, no counts", AF_INET, SOCK_DGRAM, IPPROTO_UDP,
		    TCP_CLOSE, NONE, 0, NONE, -1, 0, 0, 0 },
		/* unix: UNIX_DIAG_RQLEN as it is. */
		{ "unix LISTEN", AF_UNIX, SOCK_STREAM, 0, TCP_LISTEN, 2, 9,
		    NONE, PR_SS_LISTEN, B, 2, 9 },
		{ "unix CONNECTED", AF_UNIX, SOCK_SEQPACKET, 0,
		    TCP_ESTABLISHED, 8, 768, NONE, PR_SS_ESTABLISHED, Q, 8,
		    768 },
		{ "unix UNCONNECTED", AF_UNIX, SOCK_STREAM, 0, TCP_CLOSE, 0,
		    0, NONE, PR_SS_CLOSE, Q, 0, 0 },
		{ "unix dgram", AF_UNIX, SOCK_DGRAM, 0, TCP_ESTABLISHED, 20,
		    1536, NONE, -1, Q, 20, 1536 },
		/* Netlink and packet sockets have neither. */
		{ "netlink", AF_NETLINK, SOCK_RAW, 0, TCP_CLOSE, NONE, 0,
		    NONE, -1, 0, 0, 0 },
		{ "packet", AF_PACKET, SOCK_DGRAM, 0x0800, 0, NONE, 0, NONE,
		    -1, 0, 0, 0 },
	};

	RUN_CASES(fc);
}

ATF_TC_WITHOUT_HEAD(groups_and_packet);
ATF_TC_BODY(groups_and_packet, tc)
{
	static const uint32_t w[3] = { 0x1, 0x5, 0x80000000U };
	struct sockaddr_ll sll;
	sockfacts_t sf;
	dent_t *e;

	tab_reset();
	e = ent(AF_NETLINK, SOCK_RAW, 0, TCP_CLOSE);
	ent_groups(e, w, 3);
	for (int exact = 0; exact <= 1; exact++) {
		facts(e, exact, &sf);
		ATF_CHECK(sf.sf_have & SF_GROUPS);
		ATF_CHECK_EQ(sf.sf_ngroups, 3);
		ATF_CHECK(memcmp(sf.sf_groups, w, sizeof (w)) == 0);
	}
	/* None joined: known to be none. */
	e = ent(AF_NETLINK, SOCK_RAW, 0, TCP_CLOSE);
	facts(e, 1, &sf);
	ATF_CHECK(sf.sf_have & SF_GROUPS);
	ATF_CHECK_EQ(sf.sf_ngroups, 0);
	/* Other families have none. */
	e = ent(AF_UNIX, SOCK_DGRAM, 0, TCP_CLOSE);
	facts(e, 0, &sf);
	ATF_CHECK(!(sf.sf_have & SF_GROUPS));

	/*
	 * A packet socket bound to no interface: its name is getsockname's
	 * bytes.  Bound to one: getsockname gives that device's hardware
	 * address too, so a source that asks takes it from the socket.
	 */
	(void) memset(&sll, 0, sizeof (sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(0x0003);
	e = ent(AF_PACKET, SOCK_RAW, 0x0003, 0);
	ent_name(e, &sll, offsetof(struct sockaddr_ll, sll_addr));
	for (int exact = 0; exact <= 1; exact++) {
		facts(e, exact, &sf);
		ATF_CHECK_MSG(sf.sf_have & SF_NAME, "exact %d", exact);
		ATF_CHECK_EQ(sf.sf_namelen, 12);
		ATF_CHECK(memcmp(&sf.sf_name, &sll, 12) == 0);
	}
	sll.sll_ifindex = 1;
	e = ent(AF_PACKET, SOCK_DGRAM, 0x0003, 0);
	ent_name(e, &sll, offsetof(struct sockaddr_ll, sll_addr));
	facts(e, 0, &sf);
	ATF_CHECK(sf.sf_have & SF_NAME);
	ATF_CHECK(memcmp(&sf.sf_name, &sll, 12) == 0);
	facts(e, 1, &sf);
	ATF_CHECK(!(sf.sf_have & SF_NAME));
	/* The family alone (SOCK_PACKET): never getsockname's bytes. */
	e = ent(AF_PACKET, SOCK_PACKET, 0x0003, 0);
	ent_name(e, &sll, sizeof (sa_family_t));
	facts(e, 1, &sf);
	ATF_CHECK(!(sf.sf_have & SF_NAME));
}

/* The state item and the gaps of the record of facts sf. */
static void
record_of(const sockfacts_t *sf, fdrec_t *rec, prsockstate_t *st,
    int *have_st, uint_t *gaps)
{
	const void *p;
	size_t len;
	prsockgaps_t g;

	ATF_REQUIRE_EQ(fdrec_reset(rec, 3), 0);
	sockrec_add(rec, sf);
	p = proc_fdinfo_misc(fdrec_info(rec), PR_SOCKSTATE, &len);
	*have_st = p != NULL && len == sizeof (*st);
	if (*have_st)
		(void) memcpy(st, p, sizeof (*st));
	p = proc_fdinfo_misc(fdrec_info(rec), PR_SOCKGAPS, &len);
	*gaps = 0;
	if (p != NULL && len >= sizeof (g)) {
		(void) memcpy(&g, p, sizeof (g));
		*gaps = g.pr_other;
	}
}

ATF_TC_WITHOUT_HEAD(diag_gaps);
ATF_TC_BODY(diag_gaps, tc)
{
	fdrec_t rec = { NULL, 0 };
	prsockstate_t st;
	sockfacts_t sf;
	uint_t gaps;
	int have;
	dent_t *e;

	tab_reset();
	/* The CLOSE ambiguity: the state shown, the queues a gap. */
	e = close_unclear();
	facts(e, 0, &sf);
	sf.sf_gapwhy = "the tables";
	record_of(&sf, &rec, &st, &have, &gaps);
	ATF_REQUIRE(have);
	ATF_CHECK_EQ(st.pr_state, PR_SS_CLOSE);
	ATF_CHECK_EQ(st.pr_queues, 0);
	ATF_CHECK(gaps & PR_GAP_QUEUES);
	ATF_CHECK(!(gaps & PR_GAP_STATE));

	/* Known: no gap of either. */
	e = ent(AF_INET, SOCK_STREAM, IPPROTO_TCP, TCP_CLOSE_WAIT);
	ent_queues(e, 6, 0);
	facts(e, 0, &sf);
	sf.sf_gapwhy = "the tables";
	record_of(&sf, &rec, &st, &have, &gaps);
	ATF_REQUIRE(have);
	ATF_CHECK_EQ(st.pr_state, PR_SS_CLOSE_WAIT);
	ATF_CHECK_EQ(st.pr_queues, PR_SSQ_QUEUED);
	ATF_CHECK_EQ(st.pr_read, 5);
	ATF_CHECK_EQ(st.pr_send, 0);
	ATF_CHECK(!(gaps & (PR_GAP_QUEUES | PR_GAP_STATE)));

	/* A UDP socket: the queues alone (pr_state 0). */
	e = ent(AF_INET, SOCK_DGRAM, IPPROTO_UDP, TCP_CLOSE);
	ent_queues(e, 1664, 0);
	facts(e, 0, &sf);
	sf.sf_gapwhy = "the tables";
	record_of(&sf, &rec, &st, &have, &gaps);
	ATF_REQUIRE(have);
	ATF_CHECK_EQ(st.pr_state, 0);
	ATF_CHECK_EQ(st.pr_queues, PR_SSQ_QUEUED);
	ATF_CHECK_EQ(st.pr_read, 1664);
	ATF_CHECK(!(gaps & (PR_GAP_QUEUES | PR_GAP_STATE)));
	fdrec_free(&rec);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, tcp_states);
	ATF_TP_ADD_TC(tp, tcp_close);
	ATF_TP_ADD_TC(tp, datagram_and_unix);
	ATF_TP_ADD_TC(tp, groups_and_packet);
	ATF_TP_ADD_TC(tp, diag_gaps);
	return (atf_no_error());
}
