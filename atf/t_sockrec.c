/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_sockrec: the one place where a source's facts become a record's items
 * (sock/sockrec.c), on facts the test makes: which sockets have a state
 * line, what the kernel's TCP counters mean as SIOCINQ and SIOCOUTQ say
 * them, which states a unix socket shows, netlink groups trimmed, and the
 * facts a source that cannot find them all says are missing.  The values
 * expected are the kernel's, as tcp_ioctl() and tcp_inq() define them.
 */
#include <atf-c.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "sock/socksrc.h"

/* The PR_SOCKSTATE of the record sockrec_add() makes of sf: 1, or 0. */
static int
state_of(const sockfacts_t *sf, prsockstate_t *st)
{
	fdrec_t rec = { NULL, 0 };
	const void *p;
	size_t len;
	int found;

	ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
	sockrec_add(&rec, sf);
	p = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKSTATE, &len);
	found = p != NULL && len == sizeof (*st);
	if (found)
		memcpy(st, p, sizeof (*st));
	fdrec_free(&rec);
	return (found);
}

static void
facts(sockfacts_t *sf, int domain, int type)
{
	sockfacts_init(sf);
	sf->sf_domain = domain;
	sf->sf_type = type;
	sf->sf_have |= SF_DOMAIN | SF_TYPE;
}

ATF_TC_WITHOUT_HEAD(state_kinds);
ATF_TC_BODY(state_kinds, tc)
{
	ATF_CHECK_EQ(sockstate_kind(AF_INET, SOCK_STREAM, -1), SOCKSTATE_LINE);
	ATF_CHECK_EQ(sockstate_kind(AF_INET6, SOCK_STREAM, IPPROTO_TCP),
	    SOCKSTATE_LINE);
	ATF_CHECK_EQ(sockstate_kind(AF_INET, SOCK_STREAM, IPPROTO_MPTCP),
	    SOCKSTATE_LINE);
	ATF_CHECK_EQ(sockstate_kind(AF_INET, SOCK_STREAM, IPPROTO_SCTP), 0);
	ATF_CHECK_EQ(sockstate_kind(AF_INET, SOCK_DGRAM, IPPROTO_UDP),
	    SOCKSTATE_QUEUED);
	ATF_CHECK_EQ(sockstate_kind(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6),
	    SOCKSTATE_QUEUED);
	ATF_CHECK_EQ(sockstate_kind(AF_UNIX, SOCK_STREAM, 0), SOCKSTATE_LINE);
	ATF_CHECK_EQ(sockstate_kind(AF_UNIX, SOCK_SEQPACKET, 0),
	    SOCKSTATE_LINE);
	ATF_CHECK_EQ(sockstate_kind(AF_UNIX, SOCK_DGRAM, 0), SOCKSTATE_QUEUED);
	ATF_CHECK_EQ(sockstate_kind(AF_NETLINK, SOCK_RAW, 0), 0);
	ATF_CHECK_EQ(sockstate_kind(AF_PACKET, SOCK_RAW, 0), 0);
}

/* The kernel's raw counters of a TCP socket, as SIOCINQ/SIOCOUTQ say. */
ATF_TC_WITHOUT_HEAD(tcp_counters);
ATF_TC_BODY(tcp_counters, tc)
{
	static const struct {
		int		state;
		uint32_t	rcv, snd;
		int		fin;
		int		known;
		uint_t		queues;
		uint32_t	r, w;
	} cases[] = {
		{ PR_SS_ESTABLISHED, 1000, 20, 0, 1, PR_SSQ_QUEUED, 1000, 20 },
		/* The SYN takes a sequence number, which is no byte. */
		{ PR_SS_SYN_SENT, 0, 1, 0, 1, PR_SSQ_QUEUED, 0, 0 },
		{ PR_SS_SYN_RECV, 0, 1, -1, 1, PR_SSQ_QUEUED, 0, 0 },
		/* A FIN received and not read takes one, which is no byte. */
		{ PR_SS_CLOSE_WAIT, 1001, 0, -1, 1, PR_SSQ_QUEUED, 1000, 0 },
		{ PR_SS_CLOSE_WAIT, 1, 0, -1, 1, PR_SSQ_QUEUED, 0, 0 },
		{ PR_SS_CLOSE_WAIT, 0, 0, -1, 1, PR_SSQ_QUEUED, 0, 0 },
		{ PR_SS_LAST_ACK, 5, 1, -1, 1, PR_SSQ_QUEUED, 4, 1 },
		{ PR_SS_CLOSING, 1, 1, -1, 1, PR_SSQ_QUEUED, 0, 1 },
		{ PR_SS_FIN_WAIT2, 7, 0, 0, 1, PR_SSQ_QUEUED, 7, 0 },
		{ PR_SS_CLOSE, 7, 0, 1, 1, PR_SSQ_QUEUED, 6, 0 },
		{ PR_SS_CLOSE, 7, 0, 0, 1, PR_SSQ_QUEUED, 7, 0 },
		/* In CLOSE with bytes, and no telling whether a FIN came. */
		{ PR_SS_CLOSE, 7, 0, -1, 0, 0, 0, 0 },
		{ PR_SS_CLOSE, 1, 0, -1, 0, 0, 0, 0 },
		{ PR_SS_CLOSE, 0, 0, -1, 1, PR_SSQ_QUEUED, 0, 0 },
		{ PR_SS_LISTEN, 3, 2, -1, 1, PR_SSQ_BACKLOG, 3, 2 },
	};

	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		sockfacts_t sf;
		prsockstate_t st;

		facts(&sf, AF_INET, SOCK_STREAM);
		sockfacts_tcp(&sf, cases[i].state, cases[i].rcv, cases[i].snd,
		    cases[i].fin);
		ATF_REQUIRE_MSG(state_of(&sf, &st), "case %zu", i);
		ATF_CHECK_EQ_MSG(st.pr_state, cases[i].state, "case %zu", i);
		ATF_CHECK_EQ_MSG(st.pr_queues, cases[i].known ?
		    cases[i].queues : 0, "case %zu", i);
		if (cases[i].known) {
			ATF_CHECK_EQ_MSG(st.pr_read, cases[i].r, "case %zu", i);
			ATF_CHECK_EQ_MSG(st.pr_send, cases[i].w, "case %zu", i);
		}
	}
}

/* Only what a socket of its kind can show is kept. */
ATF_TC_WITHOUT_HEAD(kept_by_kind);
ATF_TC_BODY(kept_by_kind, tc)
{
	sockfacts_t sf;
	prsockstate_t st;

	/* A unix socket is listening, connected or not: nothing else. */
	facts(&sf, AF_UNIX, SOCK_STREAM);
	sf.sf_state = PR_SS_CLOSE_WAIT;
	sf.sf_have |= SF_STATE;
	ATF_CHECK(!state_of(&sf, &st));
	sf.sf_state = PR_SS_CLOSE;
	ATF_REQUIRE(state_of(&sf, &st));
	ATF_CHECK_EQ(st.pr_state, PR_SS_CLOSE);
	ATF_CHECK_EQ(st.pr_queues, 0U);
	/* Queues of the wrong kind for the state are not shown. */
	facts(&sf, AF_INET, SOCK_STREAM);
	sf.sf_state = PR_SS_LISTEN;
	sf.sf_queues = PR_SSQ_QUEUED;
	sf.sf_rq = 1;
	sf.sf_have |= SF_STATE | SF_QUEUES;
	ATF_REQUIRE(state_of(&sf, &st));
	ATF_CHECK_EQ(st.pr_queues, 0U);
	/* A datagram socket has queues alone, and only when known. */
	facts(&sf, AF_INET, SOCK_DGRAM);
	sf.sf_state = PR_SS_ESTABLISHED;
	sf.sf_have |= SF_STATE;
	ATF_CHECK(!state_of(&sf, &st));
	sf.sf_queues = PR_SSQ_QUEUED;
	sf.sf_rq = 2304;
	sf.sf_have |= SF_QUEUES;
	ATF_REQUIRE(state_of(&sf, &st));
	ATF_CHECK_EQ(st.pr_state, 0);
	ATF_CHECK_EQ(st.pr_read, 2304U);
	/* A netlink socket has none; nor a TCP socket of unknown state. */
	facts(&sf, AF_NETLINK, SOCK_RAW);
	sf.sf_queues = PR_SSQ_QUEUED;
	sf.sf_have |= SF_QUEUES;
	ATF_CHECK(!state_of(&sf, &st));
	facts(&sf, AF_INET, SOCK_STREAM);
	sf.sf_queues = PR_SSQ_QUEUED;
	sf.sf_have |= SF_QUEUES;
	ATF_CHECK(!state_of(&sf, &st));
}

ATF_TC_WITHOUT_HEAD(groups_and_gaps);
ATF_TC_BODY(groups_and_gaps, tc)
{
	fdrec_t rec = { NULL, 0 };
	const prsockgaps_t *g;
	const uint32_t *w;
	sockfacts_t sf;
	size_t len;

	/* Trimmed to the last word with a group; none for 32 or fewer. */
	facts(&sf, AF_NETLINK, SOCK_RAW);
	sf.sf_groups[0] = 1;
	sf.sf_groups[2] = 4;
	sf.sf_ngroups = 5;
	sf.sf_have |= SF_GROUPS;
	ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
	sockrec_add(&rec, &sf);
	w = proc_fdinfo_misc(fdrec_info(&rec), PR_NLGROUPS, &len);
	ATF_REQUIRE(w != NULL);
	ATF_CHECK_EQ(len, 3 * sizeof (uint32_t));
	/* Group 33 alone: two words. */
	sf.sf_groups[2] = 0;
	sf.sf_groups[1] = 1;
	ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
	sockrec_add(&rec, &sf);
	w = proc_fdinfo_misc(fdrec_info(&rec), PR_NLGROUPS, &len);
	ATF_REQUIRE(w != NULL);
	ATF_CHECK_EQ(len, 2 * sizeof (uint32_t));
	sf.sf_groups[1] = 0;
	ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
	sockrec_add(&rec, &sf);
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_NLGROUPS,
	    &len) == NULL);

	/* A source that cannot find them all: state and queues missing. */
	facts(&sf, AF_INET, SOCK_STREAM);
	sf.sf_gapwhy = "test";
	sf.sf_state = PR_SS_CLOSE;
	sf.sf_have |= SF_STATE;
	ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
	sockrec_add(&rec, &sf);
	g = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKGAPS, &len);
	ATF_REQUIRE(g != NULL && len > sizeof (*g));
	ATF_CHECK_EQ(g->pr_other & (PR_GAP_STATE | PR_GAP_QUEUES),
	    (uint_t)PR_GAP_QUEUES);
	fdrec_free(&rec);
}

/* A SOCK_PACKET socket's name (a sockaddr_pkt) shows its family alone. */
ATF_TC_WITHOUT_HEAD(sock_packet_name);
ATF_TC_BODY(sock_packet_name, tc)
{
	fdrec_t rec = { NULL, 0 };
	sockfacts_t sf;
	size_t len;

	for (int type = SOCK_RAW; type <= SOCK_PACKET; type += SOCK_PACKET -
	    SOCK_RAW) {
		facts(&sf, AF_PACKET, type);
		memset(&sf.sf_name, 0x41, sizeof (sf.sf_name));
		sf.sf_name.ss_family = AF_PACKET;
		sf.sf_namelen = 18;
		sf.sf_have |= SF_NAME;
		ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
		sockrec_add(&rec, &sf);
		ATF_REQUIRE(proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKETNAME,
		    &len) != NULL);
		ATF_CHECK_EQ_MSG(len, type == SOCK_PACKET ?
		    sizeof (sa_family_t) : 18, "type %d: %zu", type, len);
	}
	fdrec_free(&rec);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, sock_packet_name);
	ATF_TP_ADD_TC(tp, state_kinds);
	ATF_TP_ADD_TC(tp, tcp_counters);
	ATF_TP_ADD_TC(tp, kept_by_kind);
	ATF_TP_ADD_TC(tp, groups_and_gaps);
	return (atf_no_error());
}
